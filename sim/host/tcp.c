/* tcp.c: the device's TCP transport: newline-delimited JSON-RPC, one framer per client. */
#include <stdlib.h>

#include "net.h"
#include "transports.h"

static void *tcp_open(host_conn_t *conn)
{
    (void)conn;
    fw_framer_t *fr = malloc(sizeof *fr);
    if (!fr) abort();
    fw_framer_init(fr);
    return fr;
}

static void tcp_data(host_conn_t *conn, void *state, const char *data, size_t len)
{
    host_device_feed(host_conn_host(conn), state, (const uint8_t *)data, len, host_conn_sink(conn));
}

static void tcp_close(host_conn_t *conn, void *state)
{
    (void)conn;
    free(state);
}

static const host_server_ops_t tcp_ops = {tcp_open, tcp_data, tcp_close};

host_server_t *host_tcp_open(host_t *h, const host_endpoint_t *ep, char *addr, size_t cap)
{
    return host_server_open(h, "tcp", ep, &tcp_ops, HOST_TCP_OUT_MAX, addr, cap);
}
