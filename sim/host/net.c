/* net.c: TCP listeners and their connections: byte input to a handler, a bounded write queue. */
#include "net.h"

#include <netdb.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_guard.h"
#include "log.h"

struct host_server {
    uv_tcp_t listener;
    host_t *host;
    char name[16];
    const host_server_ops_t *ops;
    size_t out_max;
    uint64_t fd_warned_ms; /* loop time of the last warning about the open-files limit */
    unsigned live, limit;  /* connections open, and the most served at once */
    host_refusals_t refused; /* past the limit */
    host_conn_t *conns;      /* live connections, doubly linked */
    host_conn_t *current;    /* the connection in ops->data now (host_server_current) */
    host_conn_t *turns;      /* connections whose turn ended with input held (conn_yield) */
    uv_idle_t turn;          /* runs while `turns` is not empty: their next turns */
    unsigned refs;           /* the listener + every connection not yet freed */
    char readbuf[64 * 1024]; /* reads are handled synchronously, so one buffer serves all */
};

/*
 * Output is a two-part queue: replies append to `pending`; when no write is in flight the two
 * buffers swap and `inflight` is handed to uv_write, which owns it until its callback.
 */
struct host_conn {
    uv_tcp_t tcp;
    host_server_t *srv;
    void *state;
    host_buf_t pending, inflight;
    uv_write_t wreq;
    bool writing;    /* inflight is with uv_write */
    bool eof;        /* the client finished sending: close once the output is flushed */
    bool over_limit; /* output beyond out_max: disconnect after the current input */
    bool closing;
    bool refused; /* past the listener's limit: closed as it came */
    bool counted;    /* in the host's output budget (ops->budgeted) */
    bool paused;     /* over its share: not read until it sent half of it */
    bool yielded;    /* its turn ended with input held: in srv->turns, not read meanwhile */
    host_buf_t held; /* input received but not handed on yet (paused or yielded mid-read) */
    uint64_t written;  /* bytes of output accepted so far (host_conn_write) */
    size_t line_out;   /* estimate of the output of one line of its input (bytes) */
    host_conn_t *turn_next; /* in srv->turns */
    char peer[64];
    host_conn_t *prev, *next;
};

static void srv_unref(host_server_t *srv)
{
    if (--srv->refs == 0) free(srv);
}

static void format_addr(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    char ip[64] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        uv_ip6_name(a, ip, sizeof ip);
        port = ntohs(a->sin6_port);
        snprintf(out, cap, "[%s]:%u", ip, port);
        return;
    }
    const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
    uv_ip4_name(a, ip, sizeof ip);
    port = ntohs(a->sin_port);
    snprintf(out, cap, "%s:%u", ip, port);
}

/* ---------------------------------------------------------------- connections */

static void on_conn_closed(uv_handle_t *handle)
{
    host_conn_t *c = handle->data;
    host_server_t *srv = c->srv;
    srv->ops->close(c, c->state);
    if (!c->refused) host_log(HOST_LOG_INFO, "%s: %s disconnected", srv->name, c->peer);
    if (c->counted) {
        host_out_conn(srv->host, -1);
        host_out_sent(srv->host, c->pending.len + c->inflight.len);
    }
    host_buf_free(&c->held);
    if (c->yielded) {
        host_conn_t **p = &srv->turns;
        while (*p != c) p = &(*p)->turn_next;
        *p = c->turn_next;
    }
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    host_buf_free(&c->pending);
    host_buf_free(&c->inflight);
    free(c);
    srv->live--;
    srv_unref(srv);
}

static void conn_close(host_conn_t *c)
{
    if (c->closing) return;
    c->closing = true;
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

static void conn_flush(host_conn_t *c);
static void conn_resume(host_conn_t *c);

static size_t conn_queued(const host_conn_t *c)
{
    return c->pending.len + c->inflight.len;
}

/* The client ended its input: closed once its output is written and nothing more is due. */
static bool conn_done(host_conn_t *c)
{
    return c->eof && !c->writing && c->pending.len == 0 &&
           !(c->srv->ops->busy && c->srv->ops->busy(c, c->state));
}

static void on_written(uv_write_t *req, int status)
{
    host_conn_t *c = req->data;
    c->writing = false;
    if (c->counted) host_out_sent(c->srv->host, c->inflight.len);
    c->inflight.len = 0;
    if (c->closing) return;
    if (status < 0) {
        host_log(HOST_LOG_DEBUG, "%s: %s: write failed: %s", c->srv->name, c->peer,
                 uv_strerror(status));
        conn_close(c);
        return;
    }
    if (conn_done(c))
        conn_close(c);
    else
        conn_flush(c);
    if (c->paused && !c->closing && conn_queued(c) <= host_out_share(c->srv->host) / 2)
        conn_resume(c);
}

static void conn_flush(host_conn_t *c)
{
    if (c->writing || c->closing || c->pending.len == 0) return;
    if (!c->paused) {
        /* straight to the socket first: a batch of answers usually fits in its buffer, then
           there is no write request and no callback (a paused client resumes from on_written) */
        uv_buf_t b = uv_buf_init(c->pending.data, (unsigned)c->pending.len);
        int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        if (n < 0 && n != UV_EAGAIN) {
            host_log(HOST_LOG_DEBUG, "%s: %s: write failed: %s", c->srv->name, c->peer,
                     uv_strerror(n));
            conn_close(c);
            return;
        }
        if (n > 0) {
            if (c->counted) host_out_sent(c->srv->host, (size_t)n);
            host_buf_consume(&c->pending, (size_t)n);
        }
        if (c->pending.len == 0) {
            if (conn_done(c)) conn_close(c);
            return;
        }
    }
    host_buf_swap(&c->pending, &c->inflight);
    uv_buf_t b = uv_buf_init(c->inflight.data, (unsigned)c->inflight.len);
    c->wreq.data = c;
    int rc = uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_written);
    if (rc != 0) {
        host_log(HOST_LOG_DEBUG, "%s: %s: write failed: %s", c->srv->name, c->peer,
                 uv_strerror(rc));
        conn_close(c);
        return;
    }
    c->writing = true;
}

void host_conn_write(host_conn_t *c, const char *data, size_t len)
{
    if (c->closing || c->over_limit) return;
    size_t held = conn_queued(c) + len;
    if (held > c->srv->out_max || (c->counted && host_out_over_hard(c->srv->host, held))) {
        c->over_limit = true;
        return;
    }
    host_buf_append(&c->pending, data, len);
    c->written += len;
    if (c->counted) host_out_queued(c->srv->host, len);
}

static void sink_write(void *ctx, const char *data, size_t len)
{
    host_conn_write(ctx, data, len);
}

fw_sink_t host_conn_sink(host_conn_t *c)
{
    fw_sink_t s = {sink_write, c};
    return s;
}

void host_conn_flush(host_conn_t *c)
{
    if (c->closing) return;
    if (c->over_limit) {
        host_t *h = c->srv->host;
        if (c->counted && h->out_total > h->out_budget)
            host_log(HOST_LOG_WARN,
                     "%s: %s does not read its replies (%zu bytes queued, over twice its share "
                     "of %zu while all clients hold %zu of the %zu-byte output budget): "
                     "disconnected",
                     c->srv->name, c->peer, conn_queued(c), host_out_share(h), h->out_total,
                     h->out_budget);
        else
            host_log(HOST_LOG_WARN,
                     "%s: %s does not read its replies (over %zu bytes queued): disconnected",
                     c->srv->name, c->peer, c->srv->out_max);
        conn_close(c);
    } else {
        conn_flush(c);
    }
}

bool host_conn_closing(const host_conn_t *c)
{
    return c->closing;
}

void host_server_each(host_server_t *srv, void (*fn)(host_conn_t *conn, void *state, void *arg),
                      void *arg)
{
    for (host_conn_t *c = srv->conns; c; c = c->next) fn(c, c->state, arg);
}

host_conn_t *host_server_current(const host_server_t *srv, void **state)
{
    if (srv->current && state) *state = srv->current->state;
    return srv->current;
}

host_t *host_conn_host(const host_conn_t *c)
{
    return c->srv->host;
}

host_t *host_server_host(const host_server_t *srv)
{
    return srv->host;
}

const char *host_conn_peer(const host_conn_t *c)
{
    return c->peer;
}

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    host_conn_t *c = handle->data;
    (void)suggested;
    *buf = uv_buf_init(c->srv->readbuf, sizeof c->srv->readbuf);
}

/*
 * Turns. A budgeted client's input is handed on a turn at a time: up to TURN_LINES lines, and
 * no more once they produced TURN_OUT bytes of answers. What is left waits in c->held with
 * reading stopped, and the connection joins srv->turns; the loop's idle handle gives each of
 * them its next turn after the loop has polled every socket again. So 300 clients that each
 * pipeline 150 requests with long answers cost another client one turn of each, not all of
 * their requests, before its own request is read; a pipelined client with short answers still
 * has a whole read (up to TURN_LINES lines) handled in one turn.
 */
#define TURN_LINES 16u
#define TURN_OUT (16u << 10)

static void on_turn(uv_idle_t *idle);

static void conn_yield(host_conn_t *c)
{
    if (c->yielded) return;
    c->yielded = true;
    uv_read_stop((uv_stream_t *)&c->tcp);
    c->turn_next = c->srv->turns;
    c->srv->turns = c;
    if (!uv_is_active((uv_handle_t *)&c->srv->turn)) uv_idle_start(&c->srv->turn, on_turn);
}

/*
 * Hands one turn of input to the transport. A budgeted client's input goes a few lines at a
 * time (as many as the output of its recent lines lets fit in the turn), and only while it
 * holds less than its share of the output budget: over it, the rest waits in c->held, unread
 * input stays in the kernel (reading stops), until it has sent half of its share
 * (conn_resume). Near the share, one line at a time: one read full of requests with long
 * answers cannot queue more than one answer past the share.
 */
static void conn_consume(host_conn_t *c, const char *data, size_t len)
{
    host_t *h = c->srv->host;
    size_t lines_left = TURN_LINES;
    uint64_t turn_start = c->written;
    bool yield = false;
    while (len > 0 && !c->closing && !c->over_limit) {
        size_t n = len, lines = 0;
        uint64_t before = c->written;
        if (c->counted) {
            size_t queued = conn_queued(c), share = host_out_share(h);
            size_t turn_out = (size_t)(c->written - turn_start);
            if (queued >= share) break;
            if (lines_left == 0 || turn_out >= TURN_OUT) {
                yield = true;
                break;
            }
            size_t per_line = c->line_out ? c->line_out : 1;
            lines = (TURN_OUT - turn_out) / per_line;
            if (lines < 1 || queued >= share / 4) lines = 1;
            if (lines > lines_left) lines = lines_left;
            n = 0;
            size_t k = 0;
            while (k < lines && n < len) {
                const char *nl = memchr(data + n, '\n', len - n);
                n = nl ? (size_t)(nl - data) + 1 : len;
                k++;
            }
            lines = k;
            lines_left -= k;
        }
        c->srv->current = c;
        c->srv->ops->data(c, c->state, data, n);
        c->srv->current = NULL;
        if (lines > 0) /* an average over the recent chunks: halves towards the latest */
            c->line_out = (c->line_out + (size_t)(c->written - before) / lines + 1) / 2;
        data += n;
        len -= n;
    }
    if (len == 0 || c->closing || c->over_limit) return;
    host_buf_append(&c->held, data, len);
    if (yield) {
        conn_yield(c);
    } else if (!c->paused) {
        c->paused = true;
        uv_read_stop((uv_stream_t *)&c->tcp);
        host_log(HOST_LOG_DEBUG, "%s: %s holds %zu bytes of replies (share %zu): not read until it reads",
                 c->srv->name, c->peer, conn_queued(c), host_out_share(h));
    }
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);

/* The next turn of the held input, then reading goes on (unless it paused or yielded again). */
static void conn_continue(host_conn_t *c)
{
    host_buf_t in = c->held;
    memset(&c->held, 0, sizeof c->held);
    conn_consume(c, in.data, in.len);
    host_buf_free(&in);
    host_conn_flush(c);
    if (!c->paused && !c->yielded && !c->closing && !c->eof)
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

/* The client sent enough: its held input is handed on (unless its turn is still to come). */
static void conn_resume(host_conn_t *c)
{
    c->paused = false;
    if (!c->yielded) conn_continue(c);
}

/* The next turn of every connection whose turn ended with input held. */
static void on_turn(uv_idle_t *idle)
{
    host_server_t *srv = idle->data;
    host_conn_t *list = srv->turns;
    srv->turns = NULL;
    while (list) {
        host_conn_t *c = list;
        list = c->turn_next;
        c->yielded = false;
        if (!c->closing && !c->paused) conn_continue(c);
    }
    if (!srv->turns) uv_idle_stop(idle);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    host_conn_t *c = stream->data;
    if (nread > 0) {
        conn_consume(c, buf->base, (size_t)nread);
        host_conn_flush(c);
    } else if (nread == UV_EOF) {
        c->eof = true;
        uv_read_stop(stream);
        if (conn_done(c)) conn_close(c);
    } else if (nread < 0) {
        host_log(HOST_LOG_DEBUG, "%s: %s: read failed: %s", c->srv->name, c->peer,
                 uv_strerror((int)nread));
        conn_close(c);
    }
}

/* Past the open-files limit the system resets new connections before the loop sees them
   (libuv accepts and closes them): a connection that takes one of the last descriptors is
   logged instead, once a second at most. */
static void warn_near_fd_limit(host_server_t *srv, host_conn_t *c)
{
    uv_os_fd_t fd;
    struct rlimit rl;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) != 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
        rl.rlim_cur == RLIM_INFINITY || (rlim_t)fd + 32 < rl.rlim_cur)
        return;
    uint64_t now = uv_now(&srv->host->loop);
    if (now - srv->fd_warned_ms < 1000 && srv->fd_warned_ms != 0) return;
    srv->fd_warned_ms = now;
    host_log(HOST_LOG_WARN,
             "%s: %s took descriptor %d of the open-files limit %llu: new connections are "
             "refused (reset) past it; raise it (ulimit -n) or close idle clients",
             srv->name, c->peer, (int)fd, (unsigned long long)rl.rlim_cur);
}

/* A connection past the listener's limit is closed at once; the refusals are logged once a
   second at most, with their count. */
static bool over_limit(host_server_t *srv, host_conn_t *c)
{
    if (srv->live <= srv->limit) return false;
    unsigned n = host_refusal(srv->host, &srv->refused);
    if (n)
        host_log(HOST_LOG_WARN,
                 "%s: refused %u connection%s past the limit of %u open at once (the latest "
                 "from %s): close idle clients",
                 srv->name, n, n == 1 ? "" : "s", srv->limit, c->peer);
    c->refused = true;
    conn_close(c);
    return true;
}

static void on_connection(uv_stream_t *listener, int status)
{
    host_server_t *srv = listener->data;
    if (status < 0) {
        host_log(HOST_LOG_WARN, "%s: accept failed: %s", srv->name, uv_strerror(status));
        return;
    }
    host_conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        host_log(HOST_LOG_ERROR, "%s: out of memory for a new connection", srv->name);
        return;
    }
    c->srv = srv;
    if (srv->ops->budgeted) {
        c->counted = true;
        host_out_conn(srv->host, 1);
    }
    c->tcp.data = c;
    uv_tcp_init(listener->loop, &c->tcp);
    srv->refs++;
    srv->live++;
    c->next = srv->conns;
    if (srv->conns) srv->conns->prev = c;
    srv->conns = c;
    c->state = srv->ops->open(c); /* before any close: on_conn_closed hands state back */
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        snprintf(c->peer, sizeof c->peer, "(client)");
        conn_close(c);
        return;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
        format_addr(&ss, c->peer, sizeof c->peer);
    if (over_limit(srv, c)) return;
    uv_tcp_nodelay(&c->tcp, 1); /* one reply per request: do not wait to fill a segment */
    warn_near_fd_limit(srv, c);
    host_log(HOST_LOG_INFO, "%s: %s connected", srv->name, c->peer);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

/* ---------------------------------------------------------------- listeners */

struct addrinfo *host_resolve_passive(const host_endpoint_t *ep, char *err, size_t cap)
{
    char port[8];
    snprintf(port, sizeof port, "%u", (unsigned)ep->port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int rc = getaddrinfo(ep->host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, cap, "%s", gai_strerror(rc));
        return NULL;
    }
    return res;
}

/* Binds and listens on the first address ep resolves to. 0, or -1 with the reason in err. */
static int listen_on(host_server_t *srv, const host_endpoint_t *ep, char *err, size_t cap)
{
    struct addrinfo *res = host_resolve_passive(ep, err, cap);
    if (res == NULL) return -1;
    int rc = uv_tcp_bind(&srv->listener, res->ai_addr, 0);
    freeaddrinfo(res);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&srv->listener, 128, on_connection);
    if (rc != 0) {
        snprintf(err, cap, "%s", uv_strerror(rc));
        return -1;
    }
    return 0;
}

/* The listener's or the turn handle's close: one reference of the server each. */
static void on_listener_closed(uv_handle_t *handle)
{
    srv_unref(handle->data);
}

host_server_t *host_server_open(host_t *h, const char *name, const host_endpoint_t *ep,
                                const host_server_ops_t *ops, size_t out_max, char *addr,
                                size_t addr_cap)
{
    host_server_t *srv = calloc(1, sizeof *srv);
    if (!srv) return NULL;
    srv->host = h;
    snprintf(srv->name, sizeof srv->name, "%s", name);
    srv->ops = ops;
    srv->out_max = out_max;
    srv->refs = 2; /* the listener and the turn handle */
    srv->limit = http_guard_conn_limit(); /* as for HTTP: half the open-files limit, at most 2048 */
    srv->listener.data = srv;
    srv->turn.data = srv;
    uv_tcp_init(&h->loop, &srv->listener);
    uv_idle_init(&h->loop, &srv->turn);
    char err[128];
    if (listen_on(srv, ep, err, sizeof err) != 0) {
        host_log(HOST_LOG_ERROR, "%s: cannot listen on %s:%u: %s", name, ep->host,
                 (unsigned)ep->port, err);
        uv_close((uv_handle_t *)&srv->listener, on_listener_closed);
        uv_close((uv_handle_t *)&srv->turn, on_listener_closed);
        return NULL;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
    uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&ss, &len);
    format_addr(&ss, addr, addr_cap);
    host_log(HOST_LOG_DEBUG, "%s: listening on %s", name, addr);
    return srv;
}

void host_server_close(host_server_t *srv)
{
    for (host_conn_t *c = srv->conns; c; c = c->next) conn_close(c);
    uv_close((uv_handle_t *)&srv->listener, on_listener_closed);
    uv_close((uv_handle_t *)&srv->turn, on_listener_closed);
}
