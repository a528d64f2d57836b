/* http_guard.c: deadlines for slow and silent HTTP clients, and the log of refused connections.
 *
 * libmicrohttpd closes a connection only when it stays silent for the idle timeout, so a client
 * that sends one header byte a second holds its connection (a socket and a slot of the
 * connection limit) for ever. The guard gives every connection a deadline: its request header must be in
 * within HOST_HTTP_HEADER_S of connecting, a POST's body within HOST_HTTP_BODY_S of its header.
 * A timer on the loop shuts down the socket of a connection past its deadline; libmicrohttpd
 * then sees the end of its input and closes it as it closes any other. A GET stream and a POST
 * being answered have no deadline. Everything runs on the loop thread (libmicrohttpd is driven
 * from it, mhd_uv.h); a connection leaves the table (CLOSED) before libmicrohttpd closes its
 * socket, so the timer never shuts down a reused descriptor.
 */
#include "http_guard.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "log.h"
#include "mono.h"

#define SWEEP_MS 500u

typedef struct guard_conn {
    struct http_guard *g;
    int fd;
    uint64_t deadline_ms; /* 0: none */
    bool header_phase;    /* the deadline is the header's (else the body's) */
    struct guard_conn *prev, *next;
} guard_conn_t;

struct http_guard {
    uv_timer_t timer;
    guard_conn_t *conns;
    unsigned live, conn_max, per_address, idle_s;
    unsigned refused;               /* by the limits, since the last summary */
    unsigned slow_header, slow_body; /* closed by the sweep, since the last summary */
    uint64_t last_summary_ms;
};

unsigned http_guard_conn_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return HOST_HTTP_CONN_CAP;
    rlim_t half = rl.rlim_cur / 2;
    if (half < 16) half = 16;
    return half > HOST_HTTP_CONN_CAP ? HOST_HTTP_CONN_CAP : (unsigned)half;
}

unsigned http_guard_per_address(const http_guard_t *g)
{
    return g->per_address;
}

/* The log of what the last interval refused or closed. */
static void summarise(http_guard_t *g, uint64_t now)
{
    unsigned refused = g->refused;
    g->refused = 0;
    if (refused)
        host_log(HOST_LOG_WARN,
                 "http: refused %u connection%s in the last %.1f s (limits: %u connections, %u "
                 "per address; %u open)",
                 refused, refused == 1 ? "" : "s", (double)(now - g->last_summary_ms) / 1000.0,
                 g->conn_max, g->per_address, g->live);
    if (g->slow_header || g->slow_body)
        host_log(HOST_LOG_WARN,
                 "http: closed %u connection%s that sent no whole request header within %u s "
                 "and %u that sent no whole body within %u s",
                 g->slow_header, g->slow_header == 1 ? "" : "s", HOST_HTTP_HEADER_S, g->slow_body,
                 HOST_HTTP_BODY_S);
    g->slow_header = g->slow_body = 0;
    g->last_summary_ms = now;
}

static void on_sweep(uv_timer_t *t)
{
    http_guard_t *g = t->data;
    uint64_t now = host_mono_ms();
    for (guard_conn_t *c = g->conns; c; c = c->next) {
        if (c->deadline_ms == 0 || now < c->deadline_ms || c->fd < 0) continue;
        shutdown(c->fd, SHUT_RDWR); /* libmicrohttpd reads the end and closes it */
        if (c->header_phase)
            g->slow_header++;
        else
            g->slow_body++;
        c->deadline_ms = 0;
    }
    if (now - g->last_summary_ms >= 1000u) summarise(g, now);
}

http_guard_t *http_guard_open(host_t *h, unsigned conn_max, unsigned per_address,
                              unsigned idle_s)
{
    http_guard_t *g = calloc(1, sizeof *g);
    if (!g) abort();
    g->conn_max = conn_max;
    g->per_address = per_address ? per_address : (conn_max * 3u / 4u ? conn_max * 3u / 4u : 1u);
    g->idle_s = idle_s;
    g->last_summary_ms = host_mono_ms();
    uv_timer_init(&h->loop, &g->timer);
    g->timer.data = g;
    uv_timer_start(&g->timer, on_sweep, SWEEP_MS, SWEEP_MS);
    uv_unref((uv_handle_t *)&g->timer); /* the daemon keeps nothing alive by itself */
    return g;
}

static void on_timer_closed(uv_handle_t *handle)
{
    http_guard_t *g = handle->data;
    summarise(g, host_mono_ms());
    while (g->conns) { /* none after MHD_stop_daemon; kept safe all the same */
        guard_conn_t *c = g->conns;
        g->conns = c->next;
        free(c);
    }
    free(g);
}

void http_guard_close(http_guard_t *g)
{
    if (!g) return;
    uv_timer_stop(&g->timer);
    uv_close((uv_handle_t *)&g->timer, on_timer_closed);
}

void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe)
{
    http_guard_t *g = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        guard_conn_t *gc = calloc(1, sizeof *gc);
        if (!gc) abort();
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        gc->g = g;
        gc->fd = ci ? (int)ci->connect_fd : -1;
        gc->header_phase = true;
        gc->deadline_ms = host_mono_ms() + HOST_HTTP_HEADER_S * 1000u;
        gc->next = g->conns;
        if (g->conns) g->conns->prev = gc;
        g->conns = gc;
        g->live++;
        *socket_context = gc;
        return;
    }
    guard_conn_t *gc = *socket_context;
    if (!gc) return;
    if (gc->prev)
        gc->prev->next = gc->next;
    else
        g->conns = gc->next;
    if (gc->next) gc->next->prev = gc->prev;
    g->live--;
    free(gc);
    *socket_context = NULL;
}

/* c's entry (NULL when it has none). */
static guard_conn_t *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* Sets gc's deadline to ms from now (0: none). */
static void set_deadline(guard_conn_t *gc, uint64_t ms, bool header_phase)
{
    if (!gc) return;
    gc->deadline_ms = ms ? host_mono_ms() + ms : 0;
    gc->header_phase = header_phase;
}

void http_guard_headers_done(struct MHD_Connection *c, bool body_follows)
{
    set_deadline(conn_of(c), body_follows ? HOST_HTTP_BODY_S * 1000u : 0, false);
}

void http_guard_body_done(struct MHD_Connection *c)
{
    set_deadline(conn_of(c), 0, false);
}

void http_guard_request_done(struct MHD_Connection *c)
{
    guard_conn_t *gc = conn_of(c);
    /* keep-alive: the next request may come after the idle timeout's wait */
    if (gc) set_deadline(gc, ((uint64_t)gc->g->idle_s + HOST_HTTP_HEADER_S) * 1000u, true);
}

bool http_guard_log(http_guard_t *g, const char *msg)
{
    if (!g || !(strstr(msg, "limit") || strstr(msg, "accepting"))) return false;
    g->refused++;
    return true;
}
