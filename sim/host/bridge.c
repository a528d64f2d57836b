/* bridge.c: --device: real MCP/U devices (serial or TCP) served as one MCP server on every host
   transport: discovery, tool conversion, forwarding, reconnection. Every device line is read and
   written on the loop thread, never waited for: requests queue per device (one in flight on the
   line) and their answers are written later through the transports' late writers. */
#include "bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "log.h"

#define DISCOVER_TIMEOUT_MS 2000u
#define DISCOVER_TRIES 3
#define CONNECT_TIMEOUT_MS 3000u
#define DTR_PULSE_MS 100u
/* Requests that may wait for one device's line; more are refused at once (a client that floods a
   slow device must not make the bridge grow without bound). */
#define QUEUE_MAX 256u

/* Where a device's link is. */
typedef enum dev_state {
    DEV_IDLE,       /* no link: a retry is scheduled (or the bridge is stopping) */
    DEV_CONNECTING, /* TCP connect in progress */
    DEV_RESET,      /* serial: DTR held low */
    DEV_SETTLE,     /* waiting settle_ms for the board to boot */
    DEV_DISCOVER,   /* get_info, list_tools in flight */
    DEV_UP          /* serving */
} dev_state_t;

typedef enum req_kind { REQ_CALL, REQ_PASS, REQ_INFO, REQ_TOOLS } req_kind_t;

/* One request for a device's line: a client's (CALL, PASS) or discovery's (INFO, TOOLS). */
typedef struct bridge_req {
    struct bridge_req *next;
    req_kind_t kind;
    json_t *id;     /* the client's id; NULL: a notification passed through */
    char *method;   /* the device's method */
    char *name;     /* tools/call: the MCP tool name, for messages */
    json_t *params; /* owned, or NULL */
    host_late_t late;
    unsigned timeout_ms;
    uint64_t dev_id; /* the id on the device's line */
} bridge_req_t;

/* A late answer waiting to be written (after the device call). */
typedef struct late_msg {
    struct late_msg *next;
    host_late_t late;
    char *text;
} late_msg_t;

/* One device behind the bridge: its link, what discovery found, its reconnection state. */
typedef struct bridge_dev {
    host_bridge_t *b;
    const char *url_text;
    host_device_url_t url;
    char name[64]; /* from get_info, made safe for tool names; unique among the devices */
    bool named;    /* discovered once: the name is the device's own */
    dev_state_t state;
    int fd;          /* -1 without a link */
    uv_poll_t *poll; /* the line; one per link, freed by its close callback */
    int events;      /* what poll watches */
    uv_timer_t step; /* connect timeout, DTR pulse, settle, retry backoff */
    uv_timer_t due;  /* the request in flight's timeout */
    bool timers;     /* both initialised */
    unsigned backoff_ms;
    int tries;       /* get_info attempts in this discovery */
    bool ever_up;    /* discovered once (a later discovery is a comeback) */
    bool failed;     /* startup: the first attempt failed (without wait=1) */
    bool quiet;      /* the "waiting for" line was logged: retries log at debug */
    host_buf_t in;   /* bytes read and not yet a whole line */
    host_buf_t out;  /* bytes not yet written */
    json_t *info;    /* get_info's result */
    json_t *tools;   /* list_tools' tools (the device's own objects) */
    json_t *pins;    /* list_tools' pins, or [] */
    json_t *found;   /* discovery in progress: get_info's result */
    uint64_t next_id;
    bridge_req_t *head, *tail; /* waiting for the line */
    size_t queued;
    bridge_req_t *inflight;
} bridge_dev_t;

struct host_bridge {
    host_t *h;
    bridge_dev_t devs[HOST_DEVICES_MAX];
    size_t count;
    bool prefixed;  /* several devices: DEV__tool */
    uint32_t epoch; /* tool-list generation, bumped when a device comes back */
    bool stopping;
    bool starting; /* host_bridge_open runs the loop until every device answered */
    bool changed;  /* epoch bumped in a loop callback: the watchers are told after it */
    late_msg_t *late_head, *late_tail;
};

static void send_msg(json_t *msg, fw_msg_sink_t out);
static void send_result(const json_t *id, json_t *result, fw_msg_sink_t out);
static void send_error(const json_t *id, int code, const char *message, fw_msg_sink_t out);
static json_t *text_result(const char *text, bool is_error);
static void safe_name(const char *in, char *out, size_t cap);

/* ---------------------------------------------------------------- URLs */

static int parse_query(const char *q, host_device_url_t *u, char *err, size_t cap)
{
    while (q && *q) {
        size_t len = strcspn(q, "&");
        char key[32];
        const char *eq = memchr(q, '=', len);
        unsigned long v = 0;
        char *end = NULL;
        if (eq && (size_t)(eq - q) < sizeof key) {
            snprintf(key, sizeof key, "%.*s", (int)(eq - q), q);
            v = strtoul(eq + 1, &end, 10);
        }
        if (!eq || !end || end != q + len || end == eq + 1 || v > 10000000ul) {
            snprintf(err, cap, "'%.*s': expected NAME=NUMBER (baud, settle_ms, timeout_ms, wait)",
                     (int)len, q);
            return -1;
        }
        if (strcmp(key, "baud") == 0 && u->serial)
            u->baud = (unsigned)v;
        else if (strcmp(key, "settle_ms") == 0)
            u->settle_ms = (unsigned)v;
        else if (strcmp(key, "timeout_ms") == 0 && v > 0)
            u->timeout_ms = (unsigned)v;
        else if (strcmp(key, "wait") == 0 && v <= 1)
            u->wait = v == 1;
        else {
            snprintf(err, cap, "'%.*s': unknown or invalid parameter", (int)len, q);
            return -1;
        }
        q += len + (q[len] == '&');
    }
    return 0;
}

int host_device_url_parse(const char *text, host_device_url_t *u, char *err, size_t cap)
{
    memset(u, 0, sizeof *u);
    u->baud = HOST_BRIDGE_BAUD;
    u->timeout_ms = HOST_BRIDGE_TIMEOUT_MS;
    const char *q = strchr(text, '?');
    size_t body = q ? (size_t)(q - text) : strlen(text);
    if (strncmp(text, "serial:", 7) == 0 && body > 7 && body - 7 < sizeof u->path) {
        u->serial = true;
        u->settle_ms = HOST_BRIDGE_SETTLE_MS;
        snprintf(u->path, sizeof u->path, "%.*s", (int)(body - 7), text + 7);
    } else if (strncmp(text, "tcp:", 4) == 0) {
        const char *hp = text + 4, *colon = memchr(hp, ':', body - 4);
        const char *last = colon;
        while (last && memchr(last + 1, ':', (size_t)(text + body - last - 1)))
            last = memchr(last + 1, ':', (size_t)(text + body - last - 1));
        size_t hl = last ? (size_t)(last - hp) : 0,
               pl = last ? (size_t)(text + body - last - 1) : 0;
        if (hl >= 2 && hp[0] == '[' && hp[hl - 1] == ']') hp++, hl -= 2;
        if (!last || hl == 0 || hl >= sizeof u->host || pl == 0 || pl >= sizeof u->port ||
            strspn(last + 1, "0123456789") < pl) {
            snprintf(err, cap, "--device '%s': expected tcp:HOST:PORT", text);
            return -1;
        }
        snprintf(u->host, sizeof u->host, "%.*s", (int)hl, hp);
        snprintf(u->port, sizeof u->port, "%.*s", (int)pl, last + 1);
    } else {
        snprintf(err, cap, "--device '%s': expected serial:PATH[?baud=N] or tcp:HOST:PORT", text);
        return -1;
    }
    return q ? parse_query(q + 1, u, err, cap) : 0;
}


static speed_t baud_const(unsigned baud)
{
    switch (baud) {
    case 9600:
        return B9600;
    case 19200:
        return B19200;
    case 38400:
        return B38400;
    case 57600:
        return B57600;
    case 230400:
        return B230400;
    case 460800:
        return B460800;
    case 921600:
        return B921600;
    default:
        return B115200;
    }
}

/* ---------------------------------------------------------------- late answers */

static void late_push(host_bridge_t *b, host_late_t late, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!late.fn || !text) {
        free(text);
        return;
    }
    late_msg_t *m = malloc(sizeof *m);
    if (!m) abort();
    m->next = NULL;
    m->late = late;
    m->text = text;
    if (b->late_tail)
        b->late_tail->next = m;
    else
        b->late_head = m;
    b->late_tail = m;
}

static json_t *result_msg(const json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

static json_t *error_msg(const json_t *id, int code, const char *message)
{
    return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id, "error", "code", code,
                     "message", message);
}

void host_bridge_deliver(host_bridge_t *b)
{
    host_t *h = b->h;
    for (;;) {
        late_msg_t *m = b->late_head;
        if (m) {
            b->late_head = m->next;
            if (!b->late_head) b->late_tail = NULL;
        }
        if (!m) return;
        size_t len = strlen(m->text);
        if (host_tap_on(&h->tap) && host_tap_admit(&h->tap)) {
            host_tap_call_t call;
            host_tap_call_begin(&call, &h->tap, m->late.transport ? m->late.transport : "bridge",
                                host_wall_us(h), false);
            host_tap_call_out(&call, m->text, len);
            host_tap_call_out_end(&call);
            host_tap_call_finish(&call);
        }
        m->late.fn(m->late.ctx, m->text, len);
        free(m->text);
        free(m);
    }
}

static size_t count_in(const bridge_req_t *r, const void *ctx)
{
    size_t n = 0;
    for (; r; r = r->next) n += r->late.fn && r->late.ctx == ctx && r->id;
    return n;
}

size_t host_bridge_pending(host_bridge_t *b, const void *ctx)
{
    size_t n = 0;
    for (size_t i = 0; i < b->count; i++) {
        n += count_in(b->devs[i].head, ctx);
        const bridge_req_t *f = b->devs[i].inflight;
        n += f && f->late.fn && f->late.ctx == ctx && f->id;
    }
    for (late_msg_t *m = b->late_head; m; m = m->next) n += m->late.ctx == ctx;
    return n;
}

void host_bridge_forget(host_bridge_t *b, const void *ctx)
{
    for (size_t i = 0; i < b->count; i++) {
        for (bridge_req_t *r = b->devs[i].head; r; r = r->next)
            if (r->late.ctx == ctx) r->late.fn = NULL;
        bridge_req_t *f = b->devs[i].inflight;
        if (f && f->late.ctx == ctx) f->late.fn = NULL;
    }
    late_msg_t **pp = &b->late_head, *prev = NULL;
    while (*pp) {
        late_msg_t *m = *pp;
        if (m->late.ctx != ctx) {
            prev = m;
            pp = &m->next;
            continue;
        }
        *pp = m->next;
        free(m->text);
        free(m);
    }
    b->late_tail = prev;
}

/* ---------------------------------------------------------------- the link */

static void req_free(bridge_req_t *r)
{
    json_decref(r->id);
    json_decref(r->params);
    free(r->method);
    free(r->name);
    free(r);
}

/* The request's answer when the device said nothing: timed out (or the link went down). */
static void req_fail(bridge_dev_t *d, bridge_req_t *r, bool timed_out)
{
    if (!r->id || (r->kind != REQ_CALL && r->kind != REQ_PASS)) return;
    char msg[512];
    if (r->kind == REQ_PASS) {
        late_push(d->b, r->late,
                  error_msg(r->id, -32000,
                            d->b->stopping ? "the bridge is shutting down"
                            : timed_out    ? "device timed out"
                                           : "device disconnected"));
        return;
    }
    if (d->b->stopping)
        snprintf(msg, sizeof msg, "the bridge is shutting down; %s was not answered", r->name);
    else if (timed_out)
        snprintf(msg, sizeof msg, "device %s did not answer %s within %u ms", d->name, r->name,
                 r->timeout_ms);
    else
        snprintf(msg, sizeof msg,
                 "device %s is disconnected (unplugged or reset); the bridge is "
                 "reconnecting, try again",
                 d->name);
    late_push(d->b, r->late, result_msg(r->id, text_result(msg, true)));
}

/* A client's request answered by the device (reply: its response object). */
static void req_answer(bridge_dev_t *d, bridge_req_t *r, json_t *reply)
{
    if (!r->id) return;
    if (r->kind == REQ_PASS) {
        json_t *copy = json_copy(reply);
        json_object_set(copy, "id", r->id);
        late_push(d->b, r->late, copy);
        return;
    }
    char msg[512];
    json_t *err = json_object_get(reply, "error"), *result = json_object_get(reply, "result");
    if (err) {
        char *data = json_dumps(json_object_get(err, "data"), JSON_COMPACT | JSON_ENCODE_ANY);
        const char *m = json_string_value(json_object_get(err, "message"));
        snprintf(msg, sizeof msg, "device error %" JSON_INTEGER_FORMAT ": %s%s%s",
                 json_integer_value(json_object_get(err, "code")), m ? m : "(no message)",
                 data ? " " : "", data ? data : "");
        free(data);
        late_push(d->b, r->late, result_msg(r->id, text_result(msg, true)));
        return;
    }
    char *text = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY);
    json_t *res = text_result(text ? text : "null", false);
    free(text);
    if (json_is_object(result)) json_object_set(res, "structuredContent", result);
    late_push(d->b, r->late, result_msg(r->id, res));
}

static void free_handle(uv_handle_t *handle)
{
    free(handle);
}

static void on_poll(uv_poll_t *p, int status, int events);

static void watch(bridge_dev_t *d)
{
    if (!d->poll) return;
    int want = UV_READABLE | UV_DISCONNECT;
    if (d->state == DEV_CONNECTING || d->out.len > 0) want |= UV_WRITABLE;
    if (want == d->events) return;
    d->events = want;
    uv_poll_start(d->poll, want, on_poll);
}

/* Closes the link's poll handle and its descriptor. */
static void link_close(bridge_dev_t *d)
{
    if (d->poll) uv_close((uv_handle_t *)d->poll, free_handle);
    d->poll = NULL;
    d->events = 0;
    if (d->fd >= 0) close(d->fd);
    d->fd = -1;
    d->in.len = 0;
    d->out.len = 0;
    if (d->timers) {
        uv_timer_stop(&d->step);
        uv_timer_stop(&d->due);
    }
}

/* Every request of d fails (the link went down, or the bridge stops). */
static void fail_all(bridge_dev_t *d)
{
    bridge_req_t *r = d->inflight;
    d->inflight = NULL;
    if (r) {
        req_fail(d, r, false);
        req_free(r);
    }
    while ((r = d->head)) {
        d->head = r->next;
        req_fail(d, r, false);
        req_free(r);
    }
    d->tail = NULL;
    d->queued = 0;
    json_decref(d->found);
    d->found = NULL;
}

static void dev_connect(bridge_dev_t *d);

static void on_step_retry(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    if (!d->b->stopping && d->state == DEV_IDLE) dev_connect(d);
    host_bridge_deliver(d->b);
}

/* The link failed (unplugged, reset, closed, never answered): closed, its requests answered,
   and a reconnection scheduled with backoff. */
static void link_down(bridge_dev_t *d, const char *why)
{
    if (d->state == DEV_UP)
        host_log(HOST_LOG_WARN, "device %s: link lost (%s); reconnecting", d->name, why);
    else if (d->state != DEV_IDLE)
        host_log(HOST_LOG_DEBUG, "device %s: %s", d->url_text, why);
    link_close(d);
    fail_all(d);
    d->state = DEV_IDLE;
    if (d->b->stopping) return;
    if (d->b->starting && !d->url.wait && !d->ever_up) {
        d->failed = true;
        return;
    }
    d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : HOST_BRIDGE_RETRY_MS;
    if (d->backoff_ms > HOST_BRIDGE_RETRY_MAX_MS) d->backoff_ms = HOST_BRIDGE_RETRY_MAX_MS;
    uv_timer_start(&d->step, on_step_retry, d->backoff_ms, 0);
}

/* Writes what the line takes now; the rest when it is writable. */
static void write_some(bridge_dev_t *d)
{
    while (d->out.len > 0 && d->fd >= 0) {
        ssize_t n = write(d->fd, d->out.data, d->out.len);
        if (n > 0) {
            host_buf_consume(&d->out, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        link_down(d, n < 0 ? strerror(errno) : "write failed");
        return;
    }
    watch(d);
}

static void on_due(uv_timer_t *t);

/* Puts r on the line (d has nothing in flight). */
static void send_req(bridge_dev_t *d, bridge_req_t *r)
{
    r->dev_id = ++d->next_id;
    json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)r->dev_id,
                            "method", r->method);
    if (r->params) json_object_set(req, "params", r->params);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    d->inflight = r;
    host_buf_append(&d->out, text, strlen(text));
    host_buf_append(&d->out, "\n", 1);
    free(text);
    uv_timer_start(&d->due, on_due, r->timeout_ms, 0);
    write_some(d);
}

/* The next queued request onto the line, when it is free. Notifications passed through take no
   turn: nothing answers them. */
static void kick(bridge_dev_t *d)
{
    while (d->state == DEV_UP && !d->inflight && d->head) {
        bridge_req_t *r = d->head;
        d->head = r->next;
        if (!d->head) d->tail = NULL;
        d->queued--;
        if (r->kind == REQ_PASS && !r->id) {
            r->dev_id = ++d->next_id;
            json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", r->method);
            if (r->params) json_object_set(n, "params", r->params);
            char *text = json_dumps(n, JSON_COMPACT);
            json_decref(n);
            host_buf_append(&d->out, text, strlen(text));
            host_buf_append(&d->out, "\n", 1);
            free(text);
            req_free(r);
            write_some(d);
            continue;
        }
        send_req(d, r);
    }
}

static bridge_req_t *new_req(req_kind_t kind, const char *method, unsigned timeout_ms)
{
    bridge_req_t *r = calloc(1, sizeof *r);
    if (!r) abort();
    r->kind = kind;
    r->method = strdup(method);
    if (!r->method) abort();
    r->timeout_ms = timeout_ms;
    return r;
}

/* ---------------------------------------------------------------- discovery */

static void discover_failed(bridge_dev_t *d, const char *what)
{
    if (d->url.wait && !d->quiet && !d->ever_up) {
        host_log(HOST_LOG_WARN, "device %s: %s did not answer; waiting for it", d->url_text, what);
        d->quiet = true;
    } else {
        host_log(d->b->starting && !d->url.wait ? HOST_LOG_ERROR : HOST_LOG_DEBUG,
                 "device %s: %s did not answer", d->url_text, what);
    }
    link_down(d, "discovery failed");
}

static void ask_info(bridge_dev_t *d)
{
    d->tries++;
    send_req(d, new_req(REQ_INFO, "get_info", DISCOVER_TIMEOUT_MS));
}

static void discover(bridge_dev_t *d)
{
    d->state = DEV_DISCOVER;
    d->tries = 0;
    ask_info(d);
}

/* Unique among the devices: name, name_2, ... */
static void take_name(bridge_dev_t *d)
{
    char name[48];
    safe_name(json_string_value(json_object_get(d->info, "device")), name, sizeof name);
    snprintf(d->name, sizeof d->name, "%s", name);
    host_bridge_t *b = d->b;
    for (size_t k = 0, n = 2; k < b->count; k++)
        if (&b->devs[k] != d && b->devs[k].named && strcmp(b->devs[k].name, d->name) == 0) {
            snprintf(d->name, sizeof d->name, "%s_%zu", name, n++);
            k = (size_t)-1; /* check again from the first */
        }
    d->named = true;
}

/* list_tools answered: the device serves. */
static void discovered(bridge_dev_t *d, json_t *res)
{
    host_bridge_t *b = d->b;
    bool same = d->tools && json_equal(d->tools, json_object_get(res, "tools"));
    json_decref(d->info);
    json_decref(d->tools);
    json_decref(d->pins);
    d->info = d->found;
    d->found = NULL;
    d->tools = json_incref(json_object_get(res, "tools"));
    d->pins = json_is_array(json_object_get(res, "pins")) ? json_incref(json_object_get(res, "pins"))
                                                          : json_array();
    if (!d->named) take_name(d);
    d->state = DEV_UP;
    d->backoff_ms = 0;
    d->quiet = false;
    if (d->ever_up) {
        host_log(HOST_LOG_INFO, "device %s: back (%s), %zu tools%s", d->name, d->url_text,
                 json_array_size(d->tools), same ? "" : ", changed");
    } else {
        host_log(HOST_LOG_INFO, "device %s: %s, %zu tools, %zu pins", d->name, d->url_text,
                 json_array_size(d->tools), json_array_size(d->pins));
    }
    if (d->ever_up || !b->starting) {
        /* every initialized session is told, even when the list looks the same: the device may
           have been reflashed with same-named tools */
        b->epoch++;
        b->changed = true;
    }
    d->ever_up = true;
}

/* A discovery request's answer (reply NULL: it timed out). */
static void discovery_step(bridge_dev_t *d, bridge_req_t *r, json_t *reply)
{
    json_t *res = json_object_get(reply, "result");
    if (r->kind == REQ_INFO) {
        if (!reply && d->tries < DISCOVER_TRIES) {
            ask_info(d); /* a board that just reset may lose the first request */
        } else if (!json_is_object(res)) {
            if (reply) host_log(HOST_LOG_WARN, "device %s: get_info failed", d->url_text);
            discover_failed(d, "get_info");
        } else {
            json_decref(d->found);
            d->found = json_incref(res);
            send_req(d, new_req(REQ_TOOLS, "list_tools", DISCOVER_TIMEOUT_MS));
        }
        return;
    }
    if (json_is_array(json_object_get(res, "tools")))
        discovered(d, res);
    else
        discover_failed(d, "list_tools");
}

/* ---------------------------------------------------------------- line events */

/* The request in flight is over (reply: the device's response, NULL: timed out). */
static void finish(bridge_dev_t *d, json_t *reply)
{
    bridge_req_t *r = d->inflight;
    d->inflight = NULL;
    uv_timer_stop(&d->due);
    if (r->kind == REQ_INFO || r->kind == REQ_TOOLS)
        discovery_step(d, r, reply);
    else if (reply)
        req_answer(d, r, reply);
    else
        req_fail(d, r, true);
    req_free(r);
    kick(d);
}

static void on_due(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    if (d->inflight) {
        host_log(HOST_LOG_DEBUG, "device %s: %s timed out after %u ms", d->name,
                 d->inflight->method, d->inflight->timeout_ms);
        finish(d, NULL);
    }
    host_bridge_deliver(d->b);
}

/* One line from the device: the answer in flight, or something dropped (boot noise,
   notifications, the late answer of a request that timed out). */
static void on_line(bridge_dev_t *d, const char *line)
{
    json_t *doc = json_loads(line, 0, NULL);
    json_t *jid = json_object_get(doc, "id");
    if (d->inflight && json_is_integer(jid) &&
        (uint64_t)json_integer_value(jid) == d->inflight->dev_id &&
        (json_object_get(doc, "result") || json_object_get(doc, "error"))) {
        finish(d, doc);
    } else if (line[0]) {
        host_log(HOST_LOG_DEBUG, "device %s: ignored line: %.120s", d->name, line);
    }
    json_decref(doc);
}

/* Reads what is there and handles every whole line; false when the link went down. */
static bool read_lines(bridge_dev_t *d)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(d->fd, buf, sizeof buf);
        if (n > 0) {
            host_buf_append(&d->in, buf, (size_t)n);
            if (d->in.len > (1u << 20)) d->in.len = 0; /* a device that never ends a line */
            if ((size_t)n < sizeof buf) break;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        link_down(d, n == 0 ? "end of file" : strerror(errno));
        return false;
    }
    char *nl;
    while (d->fd >= 0 && d->in.len && (nl = memchr(d->in.data, '\n', d->in.len))) {
        size_t n = (size_t)(nl - d->in.data);
        char *line = malloc(n + 1);
        if (!line) abort();
        memcpy(line, d->in.data, n);
        line[n] = 0;
        if (n && line[n - 1] == '\r') line[n - 1] = 0;
        host_buf_consume(&d->in, n + 1);
        if (d->state == DEV_UP || d->state == DEV_DISCOVER)
            on_line(d, line);
        free(line);
    }
    return d->fd >= 0;
}

static void open_failed(bridge_dev_t *d, const char *err);
static void begin_line(bridge_dev_t *d);

static void on_poll(uv_poll_t *p, int status, int events)
{
    bridge_dev_t *d = p->data;
    host_t *h = d->b->h;
    if (p != d->poll) {
        /* a closed link's last event */
    } else if (d->state == DEV_CONNECTING) {
        if (status < 0 || (events & (UV_WRITABLE | UV_DISCONNECT | UV_READABLE))) {
            /* libuv reports a socket error as UV_EBADF: SO_ERROR says what it was */
            int soerr = 0;
            socklen_t sl = sizeof soerr;
            if (getsockopt(d->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0) soerr = errno;
            if (soerr != 0 || status < 0) {
                char err[300];
                snprintf(err, sizeof err, "%s:%s: %s", d->url.host, d->url.port,
                         soerr ? strerror(soerr) : uv_strerror(status));
                open_failed(d, err);
            } else {
                uv_timer_stop(&d->step);
                begin_line(d);
            }
        }
    } else if (status < 0) {
        link_down(d, uv_strerror(status));
    } else {
        bool up = true;
        if (events & (UV_READABLE | UV_DISCONNECT)) up = read_lines(d);
        if (up && (events & UV_DISCONNECT) && d->fd >= 0) {
            link_down(d, "hung up");
            up = false;
        }
        if (up && (events & UV_WRITABLE)) write_some(d);
    }
    bool changed = d->b->changed;
    d->b->changed = false;
    host_bridge_deliver(d->b);
    if (changed) host_clock_rearm(h); /* tells the watchers: transports drain list_changed */
}

/* ---------------------------------------------------------------- opening */

static void on_settle(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    if (d->state == DEV_SETTLE) {
        tcflush(d->fd, TCIFLUSH); /* what the boot printed so far */
        discover(d);
    }
    host_bridge_deliver(d->b);
}

/* Watches the line (polled from now on, what arrives before discovery dropped). */
static void poll_line(bridge_dev_t *d)
{
    if (d->poll) return;
    d->poll = malloc(sizeof *d->poll);
    if (!d->poll) abort();
    uv_poll_init(&d->b->h->loop, d->poll, d->fd);
    d->poll->data = d;
    d->events = 0;
}

/* Connected (TCP) or reset (serial): settle_ms for the board to boot, then discovery. */
static void begin_line(bridge_dev_t *d)
{
    poll_line(d);
    if (d->url.settle_ms) {
        d->state = DEV_SETTLE;
        watch(d);
        uv_timer_start(&d->step, on_settle, d->url.settle_ms, 0);
        return;
    }
    watch(d);
    discover(d);
}

static void on_dtr(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    if (d->state == DEV_RESET) {
        int dtr = TIOCM_DTR;
        ioctl(d->fd, TIOCMBIS, &dtr);
        begin_line(d);
    }
    host_bridge_deliver(d->b);
}

static void on_connect_timeout(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    if (d->state == DEV_CONNECTING) {
        char err[300];
        snprintf(err, sizeof err, "%s:%s: connection timed out", d->url.host, d->url.port);
        open_failed(d, err);
    }
    host_bridge_deliver(d->b);
}

/* The first failure of a device with wait=1 says so once; the retries are quiet. */
static void open_failed(bridge_dev_t *d, const char *err)
{
    if (!d->quiet) {
        if (d->b->starting && !d->url.wait)
            host_log(HOST_LOG_ERROR, "device %s: cannot open: %s", d->url_text, err);
        else if (!d->ever_up)
            host_log(HOST_LOG_WARN,
                     "device %s: cannot open: %s; waiting for it (retrying every %u ms at most)",
                     d->url_text, err, HOST_BRIDGE_RETRY_MAX_MS);
        else
            host_log(HOST_LOG_DEBUG, "device %s: cannot open: %s", d->url_text, err);
    }
    if (d->url.wait || d->ever_up) d->quiet = true;
    d->state = DEV_IDLE;
    link_down(d, err);
}

/* Opens the link without waiting: a serial port raw at its baud, reset by a DTR pulse (as a
   USB-serial board's auto-reset wiring wants; a port without modem lines ignores it); a TCP
   connection started. Discovery follows from the loop. */
static void dev_connect(bridge_dev_t *d)
{
    char err[600];
    const host_device_url_t *u = &d->url;
    if (u->serial) {
        d->fd = open(u->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (d->fd < 0) {
            snprintf(err, sizeof err, "%s: %s", u->path, strerror(errno));
            open_failed(d, err);
            return;
        }
        struct termios t;
        if (tcgetattr(d->fd, &t) == 0) {
            cfmakeraw(&t);
            cfsetispeed(&t, baud_const(u->baud));
            cfsetospeed(&t, baud_const(u->baud));
            t.c_cflag |= CLOCAL | CREAD;
            tcsetattr(d->fd, TCSANOW, &t);
        }
        int dtr = TIOCM_DTR;
        if (ioctl(d->fd, TIOCMBIC, &dtr) == 0) {
            d->state = DEV_RESET;
            uv_timer_start(&d->step, on_dtr, DTR_PULSE_MS, 0);
            return;
        }
        begin_line(d);
        return;
    }
    /* getaddrinfo blocks: a name is resolved once per attempt (numeric addresses at once) */
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(u->host, u->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, sizeof err, "%s:%s: %s", u->host, u->port, gai_strerror(rc));
        open_failed(d, err);
        return;
    }
    snprintf(err, sizeof err, "%s:%s: no address", u->host, u->port);
    for (struct addrinfo *ai = res; ai && d->fd < 0; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) {
            d->fd = fd;
            break;
        }
        snprintf(err, sizeof err, "%s:%s: %s", u->host, u->port, strerror(errno));
        close(fd);
    }
    freeaddrinfo(res);
    if (d->fd < 0) {
        open_failed(d, err);
        return;
    }
    d->state = DEV_CONNECTING;
    poll_line(d);
    watch(d);
    uv_timer_start(&d->step, on_connect_timeout, CONNECT_TIMEOUT_MS, 0);
}

/* ---------------------------------------------------------------- discovery */

/* The schema of a pin parameter: the registry's pins of the types the tool works on. */
static json_t *pin_schema(const json_t *pins, const char *const *types)
{
    json_t *nums = json_array();
    host_buf_t desc = {0};
    host_buf_append(&desc, "pin number", 10);
    size_t i;
    json_t *pin;
    json_array_foreach(pins, i, pin)
    {
        const char *type = json_string_value(json_object_get(pin, "type"));
        json_t *num = json_object_get(pin, "pin");
        bool ok = false;
        for (size_t k = 0; type && types[k]; k++) ok |= strcmp(type, types[k]) == 0;
        if (!ok || !json_is_integer(num)) continue;
        char part[160];
        const char *name = json_string_value(json_object_get(pin, "name"));
        int n = snprintf(part, sizeof part, "%s %" JSON_INTEGER_FORMAT "%s%s%s",
                         json_array_size(nums) ? "," : ":", json_integer_value(num),
                         name ? " (" : "", name ? name : "", name ? ")" : "");
        host_buf_append(&desc, part, n > 0 ? (size_t)n : 0);
        json_array_append(nums, num);
    }
    json_t *s = json_pack("{s:s, s:s%}", "type", "integer", "description", desc.data, desc.len);
    host_buf_free(&desc);
    if (json_array_size(nums)) json_object_set(s, "enum", nums);
    json_decref(nums);
    return s;
}

/* For a device that omits schemas (MCP/U on AVR): MCP/U's built-ins from the pin registry;
   any other tool takes any object. */
static json_t *infer_schema(const char *tool, const json_t *pins)
{
    static const char *const out[] = {"digital_output", NULL};
    static const char *const io[] = {"digital_output", "digital_input", NULL};
    static const char *const pwm[] = {"pwm_output", NULL};
    static const char *const adc[] = {"adc_input", NULL};
    const char *const *types = strcmp(tool, "gpio_write") == 0  ? out
                               : strcmp(tool, "gpio_read") == 0 ? io
                               : strcmp(tool, "pwm_write") == 0 ? pwm
                               : strcmp(tool, "adc_read") == 0  ? adc
                                                                : NULL;
    if (!types) return json_pack("{s:s}", "type", "object");
    json_t *props = json_pack("{s:o}", "pin", pin_schema(pins, types));
    json_t *req = json_pack("[s]", "pin");
    if (types == out) {
        json_object_set_new(
            props, "value",
            json_pack("{s:s, s:s}", "type", "boolean", "description", "true = HIGH, false = LOW"));
        json_array_append_new(req, json_string("value"));
    } else if (types == pwm) {
        json_object_set_new(props, "duty",
                            json_pack("{s:s, s:i, s:i, s:s}", "type", "integer", "minimum", 0,
                                      "maximum", 255, "description", "duty cycle 0-255"));
        json_array_append_new(req, json_string("duty"));
    }
    return json_pack("{s:s, s:o, s:o}", "type", "object", "properties", props, "required", req);
}

static void safe_name(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; in && *in && n + 1 < cap; in++)
        out[n++] = (char)((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
                                  (*in >= '0' && *in <= '9') || *in == '-' || *in == '_'
                              ? *in
                              : '_');
    if (n == 0) n = (size_t)snprintf(out, cap, "device");
    out[n] = 0;
}

/* ---------------------------------------------------------------- answers */

/* What msg (a message the bridge built) is, for the sink's tell. */
static fw_msg_kind_t kind_of(const json_t *msg, int32_t *code)
{
    const json_t *err = json_object_get(msg, "error");
    *code = err ? (int32_t)json_integer_value(json_object_get(err, "code")) : 0;
    if (json_object_get(msg, "method"))
        return json_object_get(msg, "id") ? FW_MSG_REQUEST : FW_MSG_NOTIFICATION;
    return err ? FW_MSG_ERROR : FW_MSG_RESULT;
}

static void send_msg(json_t *msg, fw_msg_sink_t out)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    int32_t code = 0;
    fw_msg_kind_t kind = kind_of(msg, &code);
    json_decref(msg);
    out.write(out.ctx, text, strlen(text));
    if (out.tell) out.tell(out.ctx, kind, code);
    if (out.end)
        out.end(out.ctx);
    else
        out.write(out.ctx, "\n", 1);
    free(text);
}

static void send_result(const json_t *id, json_t *result, fw_msg_sink_t out)
{
    send_msg(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result), out);
}

static void send_error(const json_t *id, int code, const char *message, fw_msg_sink_t out)
{
    json_t *jid = id ? json_incref((json_t *)id) : json_null();
    send_msg(json_pack("{s:s, s:o, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", jid, "error", "code",
                       code, "message", message),
             out);
}

/* The tool of an MCP name: its device and the device's own tool object. */
static bridge_dev_t *find_tool(host_bridge_t *b, const char *name, json_t **tool)
{
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        const char *rest = name;
        size_t nl = strlen(d->name);
        if (b->prefixed) {
            if (strncmp(name, d->name, nl) != 0 || strncmp(name + nl, "__", 2) != 0) continue;
            rest = name + nl + 2;
        }
        size_t k;
        json_t *t;
        json_array_foreach(d->tools, k, t)
        {
            const char *tn = json_string_value(json_object_get(t, "name"));
            if (tn && strcmp(tn, rest) == 0) {
                *tool = t;
                return d;
            }
        }
    }
    return NULL;
}

static json_t *mcp_tool(host_bridge_t *b, bridge_dev_t *d, json_t *t)
{
    const char *tn = json_string_value(json_object_get(t, "name"));
    char name[192];
    snprintf(name, sizeof name, "%s%s%s", b->prefixed ? d->name : "", b->prefixed ? "__" : "", tn);
    json_t *schema = json_object_get(t, "inputSchema");
    schema = json_is_object(schema) ? json_deep_copy(schema) : infer_schema(tn, d->pins);
    if (!json_object_get(schema, "type"))
        json_object_set_new(schema, "type", json_string("object"));
    const char *desc = json_string_value(json_object_get(t, "description"));
    json_t *out = json_pack("{s:s, s:o}", "name", name, "inputSchema", schema);
    if (desc) json_object_set_new(out, "description", json_string(desc));
    return out;
}

static void tools_list(host_bridge_t *b, const json_t *id, const json_t *params, fw_msg_sink_t out)
{
    size_t start = 0, index = 0;
    json_t *cursor = json_object_get(params, "cursor");
    if (cursor) {
        const char *c = json_string_value(cursor);
        char *end = NULL;
        start = c ? strtoul(c, &end, 10) : 0;
        if (!c || !*c || *end) {
            send_error(id, -32602, "tools/list: invalid cursor", out);
            return;
        }
    }
    json_t *tools = json_array();
    bool more = false;
    for (size_t i = 0; i < b->count; i++) {
        size_t k;
        json_t *t;
        json_array_foreach(b->devs[i].tools, k, t)
        {
            if (!json_is_string(json_object_get(t, "name"))) continue;
            if (index >= start && json_array_size(tools) < HOST_BRIDGE_PAGE)
                json_array_append_new(tools, mcp_tool(b, &b->devs[i], t));
            else if (index >= start)
                more = true;
            index++;
        }
    }
    json_t *res = json_pack("{s:o}", "tools", tools);
    if (more) {
        char next[32];
        snprintf(next, sizeof next, "%zu", start + HOST_BRIDGE_PAGE);
        json_object_set_new(res, "nextCursor", json_string(next));
    }
    send_result(id, res, out);
}

static json_t *text_result(const char *text, bool is_error)
{
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text, "isError",
                     is_error);
}

/* tools/call: forwarded; what the device says, or why it said nothing, as the tool's result. */

static void resources(host_bridge_t *b, const json_t *id, bool read, const json_t *params,
                      fw_msg_sink_t out)
{
    const char *want = read ? json_string_value(json_object_get(params, "uri")) : NULL;
    json_t *list = json_array();
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        char uri[128];
        snprintf(uri, sizeof uri, "device://%s/info", d->name);
        if (!read) {
            json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", uri, "name",
                                                  d->name, "description",
                                                  "get_info, the pin registry and the link state",
                                                  "mimeType", "application/json"));
        } else if (want && strcmp(want, uri) == 0) {
            json_t *doc = json_pack("{s:O, s:O, s:s, s:b}", "info", d->info ? d->info : json_null(),
                                    "pins", d->pins ? d->pins : json_null(), "url", d->url_text,
                                    "connected", d->state == DEV_UP);
            char *text = json_dumps(doc, JSON_COMPACT);
            json_decref(doc);
            json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "uri", uri, "mimeType",
                                                  "application/json", "text", text));
            free(text);
        }
    }
    if (read && json_array_size(list) == 0) {
        json_decref(list);
        send_error(id, -32002, "resource not found", out);
        return;
    }
    send_result(id, json_pack("{s:o}", read ? "contents" : "resources", list), out);
}

static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

static void initialize(host_bridge_t *b, fw_session_t *s, const json_t *id, const json_t *params,
                       fw_msg_sink_t out)
{
    const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
    size_t v = 0;
    for (size_t i = 0; asked && i < sizeof versions / sizeof versions[0]; i++)
        if (strcmp(asked, versions[i]) == 0) v = i;
    s->initialize_seen = true;
    s->initialized = false;
    s->version = (uint8_t)(v + 1);
    s->change_cursor = b->epoch;
    char instr[256];
    snprintf(instr, sizeof instr,
             "A bridge to %zu real MCP/U device%s: each tool runs on the "
             "hardware.%s",
             b->count, b->count > 1 ? "s" : "", b->prefixed ? " Tool names are DEVICE__TOOL." : "");
    send_result(id,
                json_pack("{s:s, s:{s:{s:b}, s:{}}, s:{s:s, s:s}, s:s}", "protocolVersion",
                          versions[v], "capabilities", "tools", "listChanged", 1, "resources",
                          "serverInfo", "name", "mcpsim-bridge", "version", MCPSIM_VERSION,
                          "instructions", instr),
                out);
}


/* ---------------------------------------------------------------- requests for a device */

/* Queues r for d's line; the loop puts it on the line when its turn comes. Without
   a late writer, or when d cannot take it, it is answered (failed) at once through out. */
static host_answer_t enqueue(bridge_dev_t *d, bridge_req_t *r, fw_msg_sink_t out)
{
    host_bridge_t *b = d->b;
    bool has_id = r->id != NULL;
    const char *refusal = b->stopping                 ? "the bridge is shutting down"
                          : has_id && !r->late.fn     ? "this transport cannot wait for a device"
                          : d->queued >= QUEUE_MAX    ? "too many requests wait for this device"
                          : d->state != DEV_UP        ? "device disconnected"
                                                      : NULL;
    if (refusal) {
        char msg[512];
        if (has_id && r->kind == REQ_CALL) {
            if (d->state != DEV_UP && !b->stopping)
                snprintf(msg, sizeof msg,
                         "device %s is disconnected (unplugged or reset); the bridge is "
                         "reconnecting, try again",
                         d->name);
            else
                snprintf(msg, sizeof msg, "device %s: %s", d->name, refusal);
            send_result(r->id, text_result(msg, true), out);
        } else if (has_id) {
            send_error(r->id, -32000, refusal, out);
        }
        req_free(r);
        return has_id ? HOST_ANSWERED : HOST_SILENT;
    }
    if (d->tail)
        d->tail->next = r;
    else
        d->head = r;
    d->tail = r;
    d->queued++;
    kick(d); /* answers that came at once are delivered when the call returns */
    return has_id ? HOST_DEFERRED : HOST_SILENT;
}

/* tools/call: queued for the tool's device; what it says, or why it said nothing, becomes the
   tool's result. */
static host_answer_t tools_call(host_bridge_t *b, const json_t *id, const json_t *params,
                                fw_msg_sink_t out, host_late_t late)
{
    const char *name = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments");
    json_t *tool = NULL;
    bridge_dev_t *d = name ? find_tool(b, name, &tool) : NULL;
    if (!d || (args && !json_is_object(args))) {
        char msg[256];
        if (!name)
            snprintf(msg, sizeof msg, "tools/call: params.name (a string) is missing");
        else if (!d)
            snprintf(msg, sizeof msg, "unknown tool: %.200s", name);
        else
            snprintf(msg, sizeof msg, "tools/call %.200s: arguments must be an object", name);
        send_error(id, -32602, msg, out);
        return HOST_ANSWERED;
    }
    bridge_req_t *r =
        new_req(REQ_CALL, json_string_value(json_object_get(tool, "name")), d->url.timeout_ms);
    r->id = json_incref((json_t *)id);
    r->name = strdup(name);
    if (!r->name) abort();
    r->params = args ? json_incref(args) : json_object();
    r->late = late;
    return enqueue(d, r, out);
}

/* A method that is not MCP: MCP/U forwarded to the device (DEV__method with several). */
static host_answer_t passthrough(host_bridge_t *b, const json_t *id, const char *method,
                                 json_t *params, fw_msg_sink_t out, host_late_t late)
{
    bridge_dev_t *d = b->count == 1 && !b->prefixed ? &b->devs[0] : NULL;
    const char *m = method;
    for (size_t i = 0; !d && i < b->count; i++) {
        size_t nl = strlen(b->devs[i].name);
        if (strncmp(method, b->devs[i].name, nl) == 0 && strncmp(method + nl, "__", 2) == 0)
            d = &b->devs[i], m = method + nl + 2;
    }
    if (!d) {
        if (!id) return HOST_SILENT;
        send_error(id, -32601, "method not found (several devices: call DEVICE__METHOD)", out);
        return HOST_ANSWERED;
    }
    bridge_req_t *r = new_req(REQ_PASS, m, d->url.timeout_ms);
    r->id = id ? json_incref((json_t *)id) : NULL;
    r->params = params ? json_incref(params) : NULL;
    r->late = late;
    return enqueue(d, r, out);
}

/* One parsed message. */
static host_answer_t handle_doc(host_bridge_t *b, fw_session_t *s, json_t *doc, fw_msg_sink_t out,
                                host_late_t late)
{
    json_t *id = json_object_get(doc, "id");
    json_t *method = json_object_get(doc, "method");
    json_t *params = json_object_get(doc, "params");
    bool valid_id = !id || json_is_string(id) || json_is_integer(id);
    if (!json_is_object(doc) || !json_is_string(method) ||
        !json_is_string(json_object_get(doc, "jsonrpc")) ||
        strcmp(json_string_value(json_object_get(doc, "jsonrpc")), "2.0") != 0 || !valid_id ||
        (params && !json_is_object(params) && !json_is_array(params))) {
        if (json_is_object(doc) && !method &&
            (json_object_get(doc, "result") || json_object_get(doc, "error")))
            return HOST_SILENT; /* a client's response: nothing asked it anything */
        send_error(valid_id ? id : NULL, -32600, "invalid request", out);
        return HOST_ANSWERED;
    }
    const char *m = json_string_value(method);
    if (!id && strncmp(m, "notifications/", 14) == 0) {
        if (strcmp(m, "notifications/initialized") == 0) s->initialized = true;
        return HOST_SILENT;
    }
    if (!id && strchr(m, '/')) return HOST_SILENT;
    if (!id) return passthrough(b, NULL, m, params, out, late); /* an MCP/U notification */
    if (strcmp(m, "initialize") == 0)
        initialize(b, s, id, params, out);
    else if (strcmp(m, "ping") == 0)
        send_result(id, json_object(), out);
    else if (strcmp(m, "tools/list") == 0)
        tools_list(b, id, params, out);
    else if (strcmp(m, "tools/call") == 0)
        return tools_call(b, id, params, out, late);
    else if (strcmp(m, "resources/list") == 0 || strcmp(m, "resources/read") == 0)
        resources(b, id, m[10] == 'r', params, out);
    else if (strcmp(m, "resources/templates/list") == 0)
        send_result(id, json_pack("{s:[]}", "resourceTemplates"), out);
    else if (strchr(m, '/'))
        send_error(id, -32601, "method not found", out);
    else
        return passthrough(b, id, m, params, out, late);
    return HOST_ANSWERED;
}

host_answer_t host_bridge_handle(host_bridge_t *b, fw_session_t *session, const char *msg,
                                 size_t len, fw_msg_sink_t out, host_late_t late)
{
    json_error_t e;
    json_t *doc = json_loadb(msg, len, 0, &e);
    if (!doc) {
        char text[256];
        snprintf(text, sizeof text, "parse error: %s", e.text);
        send_error(NULL, -32700, text, out);
        return HOST_ANSWERED;
    }
    if (json_is_array(doc)) {
        json_decref(doc);
        send_error(NULL, -32600, "batches are not supported", out);
        return HOST_ANSWERED;
    }
    host_answer_t answered = handle_doc(b, session, doc, out, late);
    json_decref(doc);
    return answered;
}

typedef struct line_out {
    fw_sink_t sink;
} line_out_t;

static void line_write(void *ctx, const char *data, size_t len)
{
    line_out_t *l = ctx;
    l->sink.write(l->sink.ctx, data, len);
}

static void line_end(void *ctx)
{
    line_out_t *l = ctx;
    l->sink.write(l->sink.ctx, "\n", 1);
}

/* Lines are assembled in the transport's framer (the core's limit, FW_LINE_MAX): its buffer,
   used by the bridge alone while it serves. */
void host_bridge_feed(host_bridge_t *b, fw_session_t *session, fw_framer_t *fr, const uint8_t *data,
                      size_t len, fw_sink_t out, host_late_t late)
{
    line_out_t l = {out};
    fw_msg_sink_t msg = {line_write, &l, line_end, NULL};
    if (fr->ready) fr->len = 0, fr->ready = false;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (fr->discarding) continue;
            if (fr->len == FW_LINE_MAX) {
                fr->discarding = true;
                send_error(NULL, -32700, "line longer than the limit (1024 bytes)", msg);
                continue;
            }
            fr->line[fr->len++] = (char)data[i];
            continue;
        }
        size_t n = fr->len;
        if (n && fr->line[n - 1] == '\r') n--;
        bool blank = true;
        for (size_t k = 0; k < n && blank; k++)
            blank = fr->line[k] == ' ' || fr->line[k] == '\t' || fr->line[k] == '\r';
        if (!fr->discarding && n > 0 && !blank)
            host_bridge_handle(b, session, fr->line, n, msg, late);
        fr->len = 0;
        fr->discarding = false;
    }
}

size_t host_bridge_drain(host_bridge_t *b, fw_session_t *session, fw_msg_sink_t out)
{
    if (!session->initialize_seen || session->change_cursor == b->epoch) return 0;
    session->change_cursor = b->epoch;
    send_msg(
        json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/tools/list_changed"),
        out);
    return 1;
}

/* ---------------------------------------------------------------- life */

static bool all_settled(host_bridge_t *b)
{
    for (size_t i = 0; i < b->count; i++) {
        const bridge_dev_t *d = &b->devs[i];
        if (d->state != DEV_UP && !d->failed && !(d->url.wait && d->quiet)) return false;
    }
    return true;
}

int host_bridge_open(host_t *h, const char *const *urls, size_t count)
{
    host_bridge_t *b = calloc(1, sizeof *b);
    if (!b) abort();
    h->bridge = b; /* freed by host_close, after the loop closed the handles */
    b->h = h;
    b->prefixed = count > 1;
    b->starting = true;
    for (size_t i = 0; i < count; i++) {
        bridge_dev_t *d = &b->devs[b->count++];
        char err[600];
        d->b = b;
        d->fd = -1;
        d->url_text = urls[i];
        uv_timer_init(&h->loop, &d->step);
        uv_timer_init(&h->loop, &d->due);
        d->step.data = d->due.data = d;
        d->timers = true;
        snprintf(d->name, sizeof d->name, "device");
        if (host_device_url_parse(urls[i], &d->url, err, sizeof err) != 0) {
            host_log(HOST_LOG_ERROR, "%s", err);
            goto fail;
        }
        if (d->url.wait) { /* a name for the tools until the device tells its own */
            snprintf(d->name, sizeof d->name, "device%zu", i + 1);
            if (count == 1) snprintf(d->name, sizeof d->name, "device");
        }
    }
    for (size_t i = 0; i < b->count; i++) dev_connect(&b->devs[i]);
    /* The loop runs the discoveries (nothing else is open yet): every device is served, or
       waited for with wait=1, or this fails. */
    for (;;) {
        bool done = all_settled(b) || h->stopping;
        if (done) break;
        uv_run(&h->loop, UV_RUN_ONCE);
    }
    b->starting = false;
    bool failed = h->stopping;
    for (size_t i = 0; i < b->count; i++) failed |= b->devs[i].failed;
    if (failed) goto fail;
    return 0;
fail:
    host_bridge_stop(b);
    return -1;
}

void host_bridge_stop(host_bridge_t *b)
{
    bool was = b->stopping;
    b->stopping = true;
    for (size_t i = 0; i < b->count && !was; i++) {
        bridge_dev_t *d = &b->devs[i];
        link_close(d);
        fail_all(d);
        d->state = DEV_IDLE;
        if (d->timers) {
            uv_close((uv_handle_t *)&d->step, NULL);
            uv_close((uv_handle_t *)&d->due, NULL);
        }
        d->timers = false;
    }
    host_bridge_deliver(b); /* the waiting requests' answers: shutting down */
}

void host_bridge_free(host_bridge_t *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        fail_all(d);
        json_decref(d->info);
        json_decref(d->tools);
        json_decref(d->pins);
        host_buf_free(&d->in);
        host_buf_free(&d->out);
    }
    late_msg_t *m;
    while ((m = b->late_head)) {
        b->late_head = m->next;
        free(m->text);
        free(m);
    }
    free(b);
}
