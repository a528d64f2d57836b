/* ws.c: the ws://HOST:PORT/PATH[?envelope=1] target: one JSON-RPC message per text frame (lws). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "target.h"

#define CONNECT_TIMEOUT_MS 3000
#define WRITE_TIMEOUT_MS 2000
#define TICK_US (10 * LWS_US_PER_MS) /* the service loop wakes at least this often */

typedef struct ws_impl {
    struct lws_context *ctx;
    struct lws *wsi;
    lws_sorted_usec_list_t tick;
    bool connected, closed;
    char why[256];       /* why the connection failed or closed */
    bool envelope;       /* wrap what we send, unwrap what comes back */
    char session_id[48]; /* the envelope's session_id */
    char auth[160];      /* "Bearer TOKEN" for the handshake's Authorization header, or "" */
    size_t fragment;     /* fragment=N: each message sent in frames of N bytes (0: one frame) */
    size_t opos;         /* the bytes of the message being written already sent */
    conf_buf_t partial;  /* a message arriving in fragments */
    char **queue;        /* whole messages received */
    size_t qhead, qlen, qcap;
    unsigned char **out; /* frames to write, each LWS_PRE + text + NUL, with its length */
    size_t *out_len;
    size_t ohead, olen, ocap;
} ws_impl_t;

static void push(char ***q, size_t *len, size_t *cap, void *item, size_t **lens, size_t n)
{
    if (*len == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *q = conf_xrealloc(*q, *cap * sizeof **q);
        if (lens) *lens = conf_xrealloc(*lens, *cap * sizeof **lens);
    }
    if (lens) (*lens)[*len] = n;
    (*q)[(*len)++] = item;
}

/* A message received: with the envelope on, our own envelopes give their payload. */
static void deliver(ws_impl_t *w, const char *text, size_t len)
{
    char *msg = conf_strndup(text, len);
    if (w->envelope) {
        json_t *j = json_loadb(text, len, 0, NULL);
        const char *sid = json_string_value(json_object_get(j, "session_id"));
        const json_t *payload = json_object_get(j, "payload");
        if (sid && strcmp(sid, w->session_id) == 0 && payload) {
            free(msg);
            msg = conf_json_text(payload);
        }
        json_decref(j);
    }
    push(&w->queue, &w->qlen, &w->qcap, msg, NULL, 0);
}

static int on_event(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    (void)user;
    struct lws_context *ctx = lws_get_context(wsi);
    ws_impl_t *w = ctx ? lws_context_user(ctx) : NULL;
    if (!w) return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        w->connected = true;
        break;
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: { /* in: where to write, len: room left */
        unsigned char **p = in, *end = *p + len;
        if (w->auth[0] && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_AUTHORIZATION,
                                                       (const unsigned char *)w->auth,
                                                       (int)strlen(w->auth), p, end) != 0)
            return -1;
        break;
    }
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        snprintf(w->why, sizeof w->why, "WebSocket connection failed: %.*s", (int)(in ? len : 0),
                 in ? (const char *)in : "");
        if (in && !len)
            snprintf(w->why, sizeof w->why, "WebSocket connection failed: %s", (const char *)in);
        w->closed = true;
        w->wsi = NULL;
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        conf_buf_add(&w->partial, in, len);
        if (lws_is_final_fragment(wsi)) {
            deliver(w, conf_buf_str(&w->partial), w->partial.len);
            w->partial.len = 0;
        }
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (w->ohead < w->olen) {
            unsigned char *f = w->out[w->ohead];
            size_t n = w->out_len[w->ohead], left = n - w->opos;
            size_t chunk = w->fragment && left > w->fragment ? w->fragment : left;
            bool fin = chunk == left;
            /* fragment=N: a text frame without FIN, continuations, the last one with FIN (the
               bytes before the fragment, already sent, make room for its header). */
            int flags = w->fragment ? lws_write_ws_flags(LWS_WRITE_TEXT, w->opos == 0, fin)
                                    : LWS_WRITE_TEXT;
            if (lws_write(wsi, f + LWS_PRE + w->opos, chunk, (enum lws_write_protocol)flags) <
                (int)chunk) {
                snprintf(w->why, sizeof w->why, "WebSocket write failed");
                return -1;
            }
            w->opos += chunk;
            if (!fin) {
                lws_callback_on_writable(wsi);
                break;
            }
            w->opos = 0;
            free(f);
            w->ohead++;
            if (w->ohead < w->olen) lws_callback_on_writable(wsi);
        }
        break;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        snprintf(w->why, sizeof w->why, "the server closed the WebSocket (code %u)",
                 len >= 2 ? (unsigned)(((const unsigned char *)in)[0] << 8 |
                                       ((const unsigned char *)in)[1])
                          : 0u);
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (!w->why[0]) snprintf(w->why, sizeof w->why, "the WebSocket connection closed");
        w->closed = true;
        w->wsi = NULL;
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {{"conformance", on_event, 0, 65536, 0, NULL, 0},
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

static void on_tick(lws_sorted_usec_list_t *sul)
{
    ws_impl_t *w = lws_container_of(sul, ws_impl_t, tick);
    lws_sul_schedule(w->ctx, 0, &w->tick, on_tick, TICK_US);
}

/* Services the connection until done() or the deadline; the tick bounds each wait. */
static bool service_until(ws_impl_t *w, bool (*done)(const ws_impl_t *), int64_t deadline)
{
    while (!done(w)) {
        if (w->closed || conf_now_ms() >= deadline) return done(w);
        lws_service(w->ctx, 0);
    }
    return true;
}

static bool is_connected(const ws_impl_t *w)
{
    return w->connected || w->closed;
}
static bool all_written(const ws_impl_t *w)
{
    return w->ohead == w->olen;
}
static bool has_message(const ws_impl_t *w)
{
    return w->qhead < w->qlen;
}

/* "//HOST:PORT/PATH[?envelope=1]" */
static int parse(const char *spec, char *host, size_t hcap, int *port, char *path, size_t pcap,
                 bool *envelope, size_t *fragment)
{
    if (strncmp(spec, "//", 2) != 0) return -1;
    const char *hp = spec + 2, *slash = hp + strcspn(hp, "/?");
    char hostport[300], env[8] = "";
    if ((size_t)(slash - hp) >= sizeof hostport) return -1;
    memcpy(hostport, hp, (size_t)(slash - hp));
    hostport[slash - hp] = 0;
    if (!strchr(hostport, ':')) {
        conf_copy(host, hcap, hostport);
        *port = 80;
    } else {
        char *colon = strrchr(hostport, ':');
        *colon = 0;
        conf_copy(host, hcap, hostport[0] == '[' ? hostport + 1 : hostport);
        if (host[0] && host[strlen(host) - 1] == ']') host[strlen(host) - 1] = 0;
        *port = atoi(colon + 1);
    }
    const char *q = strchr(slash, '?');
    size_t plen = q ? (size_t)(q - slash) : strlen(slash);
    if (plen == 0)
        conf_copy(path, pcap, "/");
    else
        snprintf(path, pcap, "%.*s", (int)plen, slash);
    *envelope = q && conf_query_get(q, "envelope", env, sizeof env) && strcmp(env, "0") != 0;
    char frag[16] = "";
    *fragment = q && conf_query_get(q, "fragment", frag, sizeof frag) ? strtoul(frag, NULL, 10) : 0;
    return host[0] && *port > 0 && *port < 65536 ? 0 : -1;
}

static int ws_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char host[256], path[256];
    int port = 0;
    bool envelope = false;
    size_t fragment = 0;
    if (parse(spec, host, sizeof host, &port, path, sizeof path, &envelope, &fragment) != 0) {
        snprintf(err, cap,
                 "ws target \"ws:%s\": expected ws://HOST:PORT/PATH[?envelope=1][&fragment=N]",
                 spec);
        return CONF_EXIT_USAGE;
    }
    lws_set_log_level(0, NULL);
    ws_impl_t *w = conf_xcalloc(1, sizeof *w);
    w->envelope = envelope;
    w->fragment = fragment;
    if (t->auth_token[0]) snprintf(w->auth, sizeof w->auth, "Bearer %s", t->auth_token);
    snprintf(w->session_id, sizeof w->session_id, "conformance-%ld", (long)getpid());
    t->impl = w;
    t->stream = false;
    conf_copy(t->transport, sizeof t->transport, "ws");
    struct lws_context_creation_info ci;
    memset(&ci, 0, sizeof ci);
    ci.port = CONTEXT_PORT_NO_LISTEN;
    ci.protocols = protocols;
    ci.user = w;
    ci.gid = -1;
    ci.uid = -1;
    w->ctx = lws_create_context(&ci);
    if (!w->ctx) {
        snprintf(err, cap, "ws target: cannot create the libwebsockets context");
        t->ops->close(t);
        return CONF_EXIT_UNREACHABLE;
    }
    lws_sul_schedule(w->ctx, 0, &w->tick, on_tick, TICK_US);
    struct lws_client_connect_info cc;
    memset(&cc, 0, sizeof cc);
    char hosthdr[300];
    snprintf(hosthdr, sizeof hosthdr, "%.200s:%d", host, port);
    cc.context = w->ctx;
    cc.address = host;
    cc.port = port;
    cc.path = path;
    cc.host = hosthdr;
    cc.local_protocol_name = "conformance";
    w->wsi = lws_client_connect_via_info(&cc);
    if (!w->wsi && !w->closed) {
        snprintf(w->why, sizeof w->why, "cannot connect to %.200s:%d", host, port);
        w->closed = true;
    }
    service_until(w, is_connected, conf_now_ms() + CONNECT_TIMEOUT_MS);
    if (!w->connected) {
        snprintf(err, cap, "ws://%s:%d%s: %s", host, port, path,
                 w->why[0] ? w->why : "no WebSocket handshake in time");
        t->ops->close(t);
        return CONF_EXIT_UNREACHABLE;
    }
    return CONF_EXIT_OK;
}

/* With the envelope on, a plain JSON-RPC message goes out wrapped; an envelope the scenario
   wrote itself (an object with "type" and no "jsonrpc") goes out as it is. */
static char *wrap(const ws_impl_t *w, const char *msg, size_t len)
{
    json_t *j = w->envelope ? json_loadb(msg, len, JSON_DECODE_ANY, NULL) : NULL;
    bool own = json_is_object(j) && json_object_get(j, "type") && !json_object_get(j, "jsonrpc");
    if (!j || own) {
        json_decref(j);
        return conf_strndup(msg, len);
    }
    json_t *env =
        json_pack("{s:s, s:s, s:o}", "session_id", w->session_id, "type", "mcp", "payload", j);
    char *text = conf_json_text(env);
    json_decref(env);
    return text;
}

static int ws_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    ws_impl_t *w = t->impl;
    if (w->closed || !w->wsi) {
        snprintf(err, cap, "%s", w->why[0] ? w->why : "the WebSocket is closed");
        return -1;
    }
    char *text = wrap(w, msg, len);
    size_t n = strlen(text);
    unsigned char *frame = conf_xmalloc(LWS_PRE + n + 1);
    memcpy(frame + LWS_PRE, text, n + 1);
    free(text);
    push((char ***)&w->out, &w->olen, &w->ocap, frame, &w->out_len, n);
    lws_callback_on_writable(w->wsi);
    if (!service_until(w, all_written, conf_now_ms() + WRITE_TIMEOUT_MS)) {
        snprintf(err, cap, "WebSocket send: %s", w->why[0] ? w->why : "not written in time");
        return -1;
    }
    return 0;
}

static int ws_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                      size_t cap)
{
    ws_impl_t *w = t->impl;
    service_until(w, has_message, deadline);
    if (w->qhead < w->qlen) {
        *msg = w->queue[w->qhead++];
        *len = strlen(*msg);
        if (w->qhead == w->qlen) w->qhead = w->qlen = 0;
        return 1;
    }
    if (w->closed) {
        snprintf(err, cap, "%s", w->why[0] ? w->why : "the WebSocket closed");
        return -1;
    }
    return 0;
}

static void ws_close(conf_target_t *t)
{
    ws_impl_t *w = t->impl;
    if (!w) return;
    if (w->ctx) lws_context_destroy(w->ctx);
    for (size_t i = w->qhead; i < w->qlen; i++) free(w->queue[i]);
    for (size_t i = w->ohead; i < w->olen; i++) free(w->out[i]);
    free(w->queue);
    free(w->out);
    free(w->out_len);
    conf_buf_free(&w->partial);
    free(w);
    t->impl = NULL;
}

const conf_target_ops_t conf_target_ws = {"ws",       ws_open,  ws_send, NULL,
                                          ws_receive, ws_close, NULL,    NULL};
