/* dashboard.c: the browser dashboard (--dashboard): the embedded page, the board's state as an
   event stream, and control requests carried out with the control channel's own semantics. */
#include "dashboard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "http_check.h"
#include "log.h"
#include "mhd_uv.h"
#include "mono.h"
#include "net.h"

/*
 * One loop, no threads: as http.c, libmicrohttpd is driven from the host's libuv loop
 * (mhd_uv.h). An event stream with nothing to send parks its connection in its content reader
 * (which returns 0) until the board changed, its pause between snapshots ended or a keep-alive
 * is due. The device watcher only counts changes and resumes the waiting streams, and only
 * while a stream is open: with no browser connected the dashboard costs one comparison per call
 * into the device.
 */

/* The page, generated at build time from sim/host/dashboard/index.html (embed.cmake). */
extern const unsigned char host_dashboard_page[];
extern const size_t host_dashboard_page_len;

#define CONN_MAX 64u
#define CONN_TIMEOUT_S 60u
#define KEEPALIVE_MS 15000u

/* The snapshot request every stream and /api/snapshot send to the control channel's handler. */
static const char snapshot_req[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sim.snapshot\"}";

/* What lets the browser load nothing but this page's own script, style and requests. */
static const char csp[] = "default-src 'none'; script-src 'unsafe-inline'; "
                          "style-src 'unsafe-inline'; img-src data:; connect-src 'self'; "
                          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct host_dashboard {
    host_t *host;
    struct MHD_Daemon *daemon;
    host_mhd_t *mhd; /* drives the daemon from the loop (mhd_uv.h) */
    const char *const *allow_hosts;
    size_t allow_host_count;
    const char *const *allow_origins;
    size_t allow_origin_count;
    const char *auth_token;
    struct dash_stream *streams; /* open event streams: the watcher does nothing without */
    uint64_t changes; /* calls into the device seen while a stream was open */
    bool stopping;
};

/* One event stream: the bytes not sent yet and what it sent last. */
typedef struct dash_stream {
    host_dashboard_t *d;
    host_buf_t out;
    size_t sent;      /* bytes of out already handed to libmicrohttpd */
    uint64_t seen;    /* d->changes when the last snapshot was taken */
    uint64_t last_ms; /* monotonic time of the last snapshot */
    uint64_t idle_ms; /* monotonic time of the last thing sent (keep-alives follow it) */
    char *last;       /* the last snapshot sent (an unchanged board sends nothing) */
    uint64_t log_seq; /* the next message-log entry to send (host_tap_read) */
    bool first;
    bool pausing;     /* parked until the pause between snapshots ends: a change need not wake it */
    host_mhd_park_t *park;
    struct dash_stream *prev, *next; /* in d->streams */
} dash_stream_t;

/* A POST body as it arrives. */
typedef struct dash_req {
    host_buf_t body;
    bool too_large;
} dash_req_t;

/* ---------------------------------------------------------------- the device */

/* The board may have changed: every stream waiting for a change goes on. */
static void changed(host_dashboard_t *d)
{
    if (!d->streams) return;
    d->changes++;
    for (dash_stream_t *st = d->streams; st; st = st->next)
        if (!st->pausing) host_mhd_unpark(st->park);
}

/* The watcher: after every call into the device (loop thread). */
static void on_device(void *ctx, bool all)
{
    (void)all;
    changed(ctx);
}

/* The message tap (tap.h) added entries: the streams wake as for a change of the board. */
static void on_log(void *ctx)
{
    changed(ctx);
}

/* The board as the control channel's sim.snapshot answers it (malloc'd). Reading tells no
   watcher: a snapshot is not a change (else every stream would wake itself). */
static char *snapshot(host_dashboard_t *d)
{
    return sim_control_handle(d->host->sim, snapshot_req, sizeof snapshot_req - 1);
}

/* ---------------------------------------------------------------- responses */

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* Queues a response with body (copied) and the headers every answer carries. */
static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type,
                                 const char *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy", csp);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* A refusal: status and a one-line JSON body {"error": message}. */
static enum MHD_Result refuse(struct MHD_Connection *c, const char *method, const char *url,
                              unsigned status, const char *message)
{
    host_log(HOST_LOG_INFO, "dashboard: %s %s -> %u: %s", method, url, status, message);
    json_t *doc = json_pack("{s:s}", "error", message);
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    enum MHD_Result rc = send_text(c, status, "application/json", body, strlen(body));
    free(body);
    return rc;
}

/* Host, Origin and token: the checks of --http (http_check.c); NULL, or why the request is
   refused (with *status). */
static const char *check_request(const host_dashboard_t *d, struct MHD_Connection *c,
                                 unsigned *status)
{
    const char *host = header(c, "Host");
    const char *origin = header(c, "Origin");
    *status = 403;
    if (!host || !host_http_host_allowed(host, d->allow_hosts, d->allow_host_count))
        return "Host is not allowed (DNS rebinding protection): only localhost, 127.0.0.1 and "
               "[::1] unless --allow-host names it";
    if (origin && !host_http_origin_allowed(origin, d->allow_origins, d->allow_origin_count))
        return "Origin is not allowed: only http(s)://localhost, 127.0.0.1 and [::1] unless "
               "--allow-origin names it";
    if (!d->auth_token) return NULL;
    const char *token = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    char bearer[600];
    if (token) snprintf(bearer, sizeof bearer, "Bearer %.580s", token);
    if (host_http_bearer_ok(header(c, "Authorization"), d->auth_token) ||
        (token && host_http_bearer_ok(bearer, d->auth_token)))
        return NULL;
    *status = 401;
    return "authentication required: send 'Authorization: Bearer TOKEN' or ?token=TOKEN with "
           "the token of --auth-token";
}

/* ---------------------------------------------------------------- the event stream */

/* Appends text to what the stream has to send (all sent before: starts over). */
static void add(dash_stream_t *st, const char *text)
{
    if (st->sent == st->out.len) {
        st->out.len = 0;
        st->sent = 0;
    }
    host_buf_append(&st->out, text, strlen(text));
}

/* Appends one "snapshot" event carrying text (one line of compact JSON). */
static void add_event(dash_stream_t *st, const char *text)
{
    add(st, "event: snapshot\ndata: ");
    add(st, text);
    add(st, "\n\n");
}

/* Appends one "log" event per message-log entry the stream has not sent yet; true if any. */
static bool add_log(dash_stream_t *st)
{
    host_tap_entry_t batch[32];
    bool any = false;
    for (;;) {
        size_t n = host_tap_read(&st->d->host->tap, st->log_seq, batch, 32, &st->log_seq, NULL);
        for (size_t i = 0; i < n; i++) {
            char *text = host_tap_entry_json(&batch[i]);
            add(st, "event: log\ndata: ");
            add(st, text);
            add(st, "\n\n");
            free(text);
        }
        if (n == 0) return any;
        any = true;
    }
}

/*
 * Whether there is something to send: the first snapshot at once, then a snapshot after a
 * change (at most one per HOST_DASHBOARD_MIN_INTERVAL_MS), or a comment as keep-alive. 1: it
 * was added; 0: nothing yet, the connection is parked until a change, the end of the pause or
 * the keep-alive; -1: the dashboard stops or the browser went away.
 */
static int news(dash_stream_t *st)
{
    host_dashboard_t *d = st->d;
    st->pausing = false;
    for (;;) {
        if (d->stopping || host_mhd_park_hung_up(st->park)) return -1;
        bool changed = st->first || d->changes != st->seen;
        uint64_t now = host_mono_ms();
        if (!changed) { /* a keep-alive is due KEEPALIVE_MS after the last event */
            if (now >= st->idle_ms + KEEPALIVE_MS) {
                add(st, ": keep-alive\n\n");
                st->idle_ms = now;
                return 1;
            }
            host_mhd_park(st->park, st->idle_ms + KEEPALIVE_MS - now);
            return 0;
        }
        if (!st->first && now < st->last_ms + HOST_DASHBOARD_MIN_INTERVAL_MS) {
            st->pausing = true;
            host_mhd_park(st->park, st->last_ms + HOST_DASHBOARD_MIN_INTERVAL_MS - now);
            return 0;
        }
        st->seen = d->changes; /* changes from here on are in this snapshot or the next */
        st->first = false;
        st->last_ms = now;
        char *text = snapshot(d);
        bool any = false;
        if (text && (!st->last || strcmp(st->last, text) != 0)) { /* else: nothing changed */
            add_event(st, text);
            free(st->last);
            st->last = text;
            any = true;
        } else {
            free(text);
        }
        any = add_log(st) || any; /* the messages since the last event, after the snapshot */
        if (!any) continue;
        st->idle_ms = st->last_ms;
        return 1;
    }
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    dash_stream_t *st = cls;
    (void)pos;
    if (st->sent == st->out.len) {
        int got = news(st);
        if (got < 0) return MHD_CONTENT_READER_END_OF_STREAM;
        if (got == 0) return 0; /* parked */
    }
    size_t n = st->out.len - st->sent;
    if (n > max) n = max;
    memcpy(buf, st->out.data + st->sent, n);
    st->sent += n;
    return (ssize_t)n;
}

static void stream_free(void *cls)
{
    dash_stream_t *st = cls;
    host_dashboard_t *d = st->d;
    if (st->prev)
        st->prev->next = st->next;
    else if (d->streams == st)
        d->streams = st->next;
    if (st->next) st->next->prev = st->prev;
    host_mhd_park_free(st->park);
    host_tap_listen(&d->host->tap, false);
    host_buf_free(&st->out);
    free(st->last);
    free(st);
}

static enum MHD_Result open_stream(host_dashboard_t *d, struct MHD_Connection *c)
{
    dash_stream_t *st = calloc(1, sizeof *st);
    if (!st) abort();
    st->d = d;
    st->first = true;
    st->idle_ms = host_mono_ms();
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    st->park = host_mhd_park_new(d->mhd, c, ci ? (int)ci->connect_fd : -1);
    st->next = d->streams;
    if (st->next) st->next->prev = st;
    d->streams = st;
    host_tap_listen(&d->host->tap, true); /* the message log records while a stream is open */
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, st, stream_free);
    if (!r) {
        stream_free(st);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result rc = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return rc;
}

/* ---------------------------------------------------------------- requests */

static enum MHD_Result send_snapshot(host_dashboard_t *d, struct MHD_Connection *c)
{
    char *text = snapshot(d);
    enum MHD_Result rc = send_text(c, 200, "application/json", text, strlen(text));
    free(text);
    return rc;
}

/* GET /api/log: the message log's ring, oldest first, and its counters. */
static enum MHD_Result send_log(host_dashboard_t *d, struct MHD_Connection *c)
{
    host_tap_entry_t *entries = malloc(HOST_TAP_RING * sizeof *entries);
    if (!entries) abort();
    uint64_t next, skipped;
    size_t n = host_tap_read(&d->host->tap, 0, entries, HOST_TAP_RING, &next, &skipped);
    host_buf_t b = {0};
    char head[160];
    snprintf(head, sizeof head,
             "{\"listening\":%u,\"recorded\":%llu,\"skipped\":%llu,\"throttled\":%llu,"
             "\"entries\":[",
             atomic_load(&d->host->tap.listeners), (unsigned long long)(next - 1),
             (unsigned long long)skipped, (unsigned long long)atomic_load(&d->host->tap.throttled));
    host_buf_append(&b, head, strlen(head));
    for (size_t i = 0; i < n; i++) {
        char *text = host_tap_entry_json(&entries[i]);
        if (i > 0) host_buf_append(&b, ",", 1);
        host_buf_append(&b, text, strlen(text));
        free(text);
    }
    host_buf_append(&b, "]}", 2);
    free(entries);
    enum MHD_Result rc = send_text(c, 200, "application/json", b.data, b.len);
    host_buf_free(&b);
    return rc;
}

/* POST /api/control: the body is one control-channel message, run as the control channel runs
   it (the watchers hear of it; the loop re-arms its clock). */
static enum MHD_Result run_control(host_dashboard_t *d, struct MHD_Connection *c, dash_req_t *req)
{
    if (req->too_large) return refuse(c, "POST", "/api/control", 413, "request body over 64 KiB");
    char *resp =
        host_device_control(d->host, req->body.data ? req->body.data : "", req->body.len);
    if (!resp) return send_text(c, 204, "application/json", "", 0); /* a notification */
    enum MHD_Result rc = send_text(c, 200, "application/json", resp, strlen(resp));
    free(resp);
    return rc;
}

static enum MHD_Result first_call(host_dashboard_t *d, struct MHD_Connection *c, const char *url,
                                  const char *method, void **con_cls)
{
    unsigned status;
    const char *why = check_request(d, c, &status);
    if (why) return refuse(c, method, url, status, why);
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
        if (get)
            return send_text(c, 200, "text/html; charset=utf-8", (const char *)host_dashboard_page,
                             host_dashboard_page_len);
    } else if (strcmp(url, "/events") == 0) {
        if (get) return open_stream(d, c);
    } else if (strcmp(url, "/api/snapshot") == 0) {
        if (get) return send_snapshot(d, c);
    } else if (strcmp(url, "/api/log") == 0) {
        if (get) return send_log(d, c);
    } else if (strcmp(url, "/api/control") == 0) {
        if (strcmp(method, "POST") == 0) {
            /* application/json only: a cross-site form cannot send it without a preflight */
            if (!host_http_is_json(header(c, "Content-Type")))
                return refuse(c, method, url, 415, "Content-Type must be application/json");
            dash_req_t *req = calloc(1, sizeof *req);
            if (!req) abort();
            *con_cls = req;
            return MHD_YES;
        }
    } else {
        return refuse(c, method, url, 404,
                      "not found: the dashboard serves /, /events, "
                      "/api/snapshot, /api/log and POST /api/control");
    }
    return refuse(c, method, url, 405, "method not allowed here");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    dash_req_t *req = *con_cls;
    if (!req) return first_call(cls, c, url, method, con_cls);
    if (*upload_size > 0) {
        if (!req->too_large && req->body.len + *upload_size > HOST_DASHBOARD_BODY_MAX) {
            req->too_large = true;
            host_buf_free(&req->body);
        }
        if (!req->too_large) host_buf_append(&req->body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    return run_control(cls, c, req);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    dash_req_t *req = *con_cls;
    if (!req) return;
    host_buf_free(&req->body);
    free(req);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    host_log(HOST_LOG_DEBUG, "dashboard: libmicrohttpd: %s", msg);
}

/* ---------------------------------------------------------------- the server */

/* A listening socket on the first address ep resolves to, its URL in url; -1 with err set. */
static int listen_on(const host_endpoint_t *ep, char *url, size_t cap, char *err, size_t ecap)
{
    struct addrinfo *res = host_resolve_passive(ep, err, ecap);
    if (res == NULL) return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0) {
        snprintf(err, ecap, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    char ip[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)&ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(url, cap, "http://[%s]:%u/", ip, (unsigned)ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(url, cap, "http://%s:%u/", ip, (unsigned)ntohs(a->sin_port));
    }
    return fd;
}

host_dashboard_t *host_dashboard_open(host_t *h, const host_options_t *o, char *url, size_t cap)
{
    char err[256];
    int fd = listen_on(&o->dashboard, url, cap, err, sizeof err);
    if (fd < 0) {
        host_log(HOST_LOG_ERROR, "dashboard: cannot listen on %s:%u: %s", o->dashboard.host,
                 (unsigned)o->dashboard.port, err);
        return NULL;
    }
    host_dashboard_t *d = calloc(1, sizeof *d);
    if (!d) abort();
    d->host = h;
    d->allow_hosts = o->allow_hosts;
    d->allow_host_count = o->allow_host_count;
    d->allow_origins = o->allow_origins;
    d->allow_origin_count = o->allow_origin_count;
    d->auth_token = o->auth_token;
    host_tap_set_notify(&h->tap, on_log, d);
    if (host_device_watch(h, on_device, d) != 0) {
        host_log(HOST_LOG_ERROR, "dashboard: too many transports watch the device");
    } else {
        d->daemon = MHD_start_daemon(
            HOST_MHD_FLAGS, 0, NULL, NULL, on_request, d, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
            MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, d,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
            (unsigned)CONN_TIMEOUT_S, MHD_OPTION_END);
        if (!d->daemon) {
            host_log(HOST_LOG_ERROR, "dashboard: cannot start libmicrohttpd on %s", url);
            host_device_unwatch(h, on_device, d);
        } else if (!(d->mhd = host_mhd_start(&h->loop, d->daemon, "dashboard"))) {
            MHD_stop_daemon(d->daemon);
            d->daemon = NULL;
            host_device_unwatch(h, on_device, d);
        }
    }
    if (!d->daemon) {
        host_tap_set_notify(&h->tap, NULL, NULL);
        close(fd);
        free(d);
        return NULL;
    }
    host_log(HOST_LOG_INFO, "dashboard: %s%s", url,
             o->auth_token ? " (bearer token required: open it with ?token=TOKEN)" : "");
    return d;
}

void host_dashboard_close(host_dashboard_t *d)
{
    d->stopping = true;  /* every stream ends */
    host_mhd_stop(d->mhd); /* resumes what is parked, closes every connection */
    host_device_unwatch(d->host, on_device, d);
    host_tap_set_notify(&d->host->tap, NULL, NULL);
    free(d);
}
