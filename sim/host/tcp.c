/* tcp.c: the device's TCP transport: newline-delimited JSON-RPC, one framer and one MCP session
   per client, and the push of device notifications to every client. */
#include <stdlib.h>

#include "log.h"
#include "net.h"
#include "transports.h"

/* One client: its framing state and its MCP session (a client that never initializes is an
   MCP/U client: the core pushes nothing to its session). */
typedef struct tcp_client {
    fw_framer_t framer;
    fw_session_t session;
    host_tap_src_t tap; /* the message log's line assembly */
    host_conn_t *conn;
} tcp_client_t;

static void *tcp_open(host_conn_t *conn)
{
    host_t *h = host_conn_host(conn);
    tcp_client_t *cl = malloc(sizeof *cl);
    if (!cl) abort();
    fw_framer_init(&cl->framer);
    host_tap_src_init(&cl->tap, "tcp");
    cl->conn = conn;
    fw_session_init(&cl->session, sim_device(h->sim));
    return cl;
}

/* A bridged request's answer, after the call: one line (loop thread, after the call). */
static void tcp_late(void *ctx, const char *msg, size_t len)
{
    tcp_client_t *cl = ctx;
    host_conn_write(cl->conn, msg, len);
    host_conn_write(cl->conn, "\n", 1);
    host_conn_flush(cl->conn);
}

static void tcp_data(host_conn_t *conn, void *state, const char *data, size_t len)
{
    tcp_client_t *cl = state;
    host_device_feed_late(host_conn_host(conn), &cl->tap, &cl->session, &cl->framer,
                          (const uint8_t *)data, len, host_conn_sink(conn),
                          (host_late_t){tcp_late, cl, "tcp"});
}

/* Answers still due (a bridged call): a client that ended its input still gets them. */
static bool tcp_busy(host_conn_t *conn, void *state)
{
    return host_device_pending(host_conn_host(conn), state) > 0;
}

static void tcp_close(host_conn_t *conn, void *state)
{
    tcp_client_t *cl = state;
    host_device_forget(host_conn_host(conn), cl);
    host_device_release(host_conn_host(conn), &cl->session); /* its listen streams end */
    host_tap_src_free(&cl->tap);
    free(cl);
}

static const host_server_ops_t tcp_ops = {tcp_open, tcp_data, tcp_close, tcp_busy, true};

static void conn_write(void *ctx, const char *data, size_t len)
{
    host_conn_write(ctx, data, len);
}

/* One client's pending notifications, one line each, into its bounded queue (a client that
   lets them pile up is disconnected like one that does not read its replies). */
static void drain_one(host_conn_t *conn, void *state, void *arg)
{
    tcp_client_t *cl = state;
    if (host_conn_closing(conn)) return;
    fw_msg_sink_t out = {conn_write, conn, NULL, NULL}; /* end NULL: newline-delimited */
    if (host_device_drain(arg, &cl->session, out) > 0) host_conn_flush(conn);
}

/* The watcher: after every call into the device (loop thread): every client, or only the one
   whose request the call handled (when it was a TCP client's). */
static void on_device(void *ctx, bool all)
{
    host_server_t *srv = ctx;
    host_t *h = host_server_host(srv);
    void *state = NULL;
    host_conn_t *current = all ? NULL : host_server_current(srv, &state);
    if (all)
        host_server_each(srv, drain_one, h);
    else if (current)
        drain_one(current, state, h);
}

host_server_t *host_tcp_open(host_t *h, const host_endpoint_t *ep, char *addr, size_t cap)
{
    host_server_t *srv = host_server_open(h, "tcp", ep, &tcp_ops, HOST_TCP_OUT_MAX, addr, cap);
    if (srv && host_device_watch(h, on_device, srv) != 0) {
        host_log(HOST_LOG_ERROR, "tcp: too many notification watchers");
        host_server_close(srv);
        return NULL;
    }
    return srv;
}

void host_tcp_close(host_server_t *srv)
{
    host_device_unwatch(host_server_host(srv), on_device, srv);
    host_server_close(srv);
}
