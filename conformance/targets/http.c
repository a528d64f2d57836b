/* http.c: the http://HOST:PORT/PATH target: MCP Streamable HTTP (POST, SSE, sessions) with libcurl.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "target.h"

#define POST_TIMEOUT_MS 10000
#define CONNECT_TIMEOUT_MS 3000
#define GET_WAIT_MS 250

/* One transfer in flight: a POST, a DELETE, or the session's GET stream. */
typedef struct xfer {
    CURL *easy;
    struct curl_slist *headers;
    conf_buf_t body; /* the whole body (JSON responses, error texts) */
    conf_buf_t line; /* SSE: the line being read */
    conf_buf_t data; /* SSE: the event's data lines */
    bool sse;        /* the Content-Type is text/event-stream (known at the first body byte) */
    bool typed;      /* sse was decided */
    bool done;
    bool queue; /* messages go to the target's queue (false for raw http steps) */
    long status;
    char session[160];   /* the Mcp-Session-Id response header */
    json_t *headers_out; /* response headers, lower-case names */
    json_t *events;      /* raw http steps: the SSE messages */
    struct http_impl *h;
} xfer_t;

typedef struct http_impl {
    CURLM *multi;
    char url[512];
    char session[160]; /* Mcp-Session-Id, once issued */
    char version[32];  /* negotiated MCP-Protocol-Version */
    char auth[160];    /* "Bearer TOKEN" for the Authorization header, or "" */
    xfer_t *get;       /* the session's GET event stream, or NULL */
    bool get_refused;  /* the server does not offer one (405) */
    xfer_t *posts[8];  /* POSTs whose event streams are still open */
    char **queue;      /* messages received, in order */
    size_t qhead, qlen, qcap;
} http_impl_t;

static void queue_push(http_impl_t *h, const char *text, size_t len)
{
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
    if (!len) return;
    if (h->qlen == h->qcap) {
        h->qcap = h->qcap ? h->qcap * 2 : 16;
        h->queue = conf_xrealloc(h->queue, h->qcap * sizeof *h->queue);
    }
    h->queue[h->qlen++] = conf_strndup(text, len);
}

/* ---------------------------------------------------------------- SSE */

static void sse_dispatch(xfer_t *x)
{
    if (x->data.len) {
        if (x->queue) queue_push(x->h, x->data.p, x->data.len);
        if (x->events) {
            json_t *j = json_loadb(x->data.p, x->data.len, 0, NULL);
            json_array_append_new(x->events, j ? j : conf_json_string_lossy(x->data.p));
        }
    }
    x->data.len = 0;
}

/* One line of an event stream (without its end): data lines gather, a blank line dispatches. */
static void sse_line(xfer_t *x, const char *l, size_t n)
{
    if (n && l[n - 1] == '\r') n--;
    if (n == 0) {
        sse_dispatch(x);
        return;
    }
    if (l[0] == ':') return; /* a comment (keep-alive) */
    if (n >= 5 && strncmp(l, "data:", 5) == 0) {
        size_t skip = n > 5 && l[5] == ' ' ? 6 : 5;
        if (x->data.len) conf_buf_add(&x->data, "\n", 1);
        conf_buf_add(&x->data, l + skip, n - skip);
    }
    /* event:, id:, retry: do not matter here */
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ud)
{
    xfer_t *x = ud;
    size_t n = size * nmemb;
    if (!x->typed) {
        char *ct = NULL;
        curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
        x->sse = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
        x->typed = true;
    }
    conf_buf_add(&x->body, ptr, n);
    if (!x->sse) return n;
    for (size_t i = 0; i < n; i++) {
        if (ptr[i] == '\n') {
            sse_line(x, x->line.p ? x->line.p : "", x->line.len);
            x->line.len = 0;
        } else {
            conf_buf_add(&x->line, ptr + i, 1);
        }
    }
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ud)
{
    xfer_t *x = ud;
    size_t n = size * nmemb;
    const char *colon = memchr(ptr, ':', n);
    if (!colon) return n;
    char name[128];
    size_t nl = (size_t)(colon - ptr);
    if (nl >= sizeof name) return n;
    for (size_t i = 0; i < nl; i++)
        name[i] = (char)(ptr[i] >= 'A' && ptr[i] <= 'Z' ? ptr[i] + 32 : ptr[i]);
    name[nl] = 0;
    const char *v = colon + 1, *end = ptr + n;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    char *value = conf_strndup(v, (size_t)(end - v));
    if (strcmp(name, "mcp-session-id") == 0) conf_copy(x->session, sizeof x->session, value);
    if (x->headers_out) json_object_set_new(x->headers_out, name, conf_json_string_lossy(value));
    free(value);
    return n;
}

/* ---------------------------------------------------------------- transfers */

static void add_header(xfer_t *x, const char *name, const char *value)
{
    char *line = conf_asprintf("%s: %s", name, value);
    x->headers = curl_slist_append(x->headers, line);
    free(line);
}

/* The target's bearer token, when it has one (conf_target_t.auth_token). */
static void auth_header(xfer_t *x)
{
    if (x->h->auth[0]) add_header(x, "Authorization", x->h->auth);
}

static xfer_t *xfer_new(http_impl_t *h, const char *method, bool queue)
{
    xfer_t *x = conf_xcalloc(1, sizeof *x);
    x->h = h;
    x->queue = queue;
    x->easy = curl_easy_init();
    curl_easy_setopt(x->easy, CURLOPT_URL, h->url);
    curl_easy_setopt(x->easy, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
    curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    return x;
}

static void xfer_free(http_impl_t *h, xfer_t *x)
{
    if (!x) return;
    curl_multi_remove_handle(h->multi, x->easy);
    curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    conf_buf_free(&x->body);
    conf_buf_free(&x->line);
    conf_buf_free(&x->data);
    json_decref(x->headers_out);
    json_decref(x->events);
    free(x);
}

/* Runs the transfers until x is done (or, with until_stream, until x turned out to be an event
   stream), or the deadline. Returns true when that happened. */
static bool drive(http_impl_t *h, xfer_t *x, bool until_stream, int64_t deadline)
{
    for (;;) {
        int running = 0;
        curl_multi_perform(h->multi, &running);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(h->multi, &left))) {
            if (m->msg != CURLMSG_DONE) continue;
            xfer_t *d = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&d);
            d->done = true;
            curl_easy_getinfo(d->easy, CURLINFO_RESPONSE_CODE, &d->status);
            if (d->sse) {
                if (d->line.len) sse_line(d, d->line.p, d->line.len);
                sse_dispatch(d);
            }
            if (m->data.result != CURLE_OK && d->status == 0) d->status = -(long)m->data.result;
        }
        if (x && (x->done || (until_stream && x->typed && x->sse))) return true;
        if (!x && h->qhead < h->qlen) return true;
        int64_t left_ms = deadline - conf_now_ms();
        if (left_ms <= 0) return false;
        curl_multi_poll(h->multi, NULL, 0, (int)(left_ms < 50 ? left_ms : 50), NULL);
    }
}

/* Default request headers: JSON in, JSON or SSE out, and (unless it starts a new session) the
   session and the protocol version. */
static void std_headers(http_impl_t *h, xfer_t *x, bool body, bool in_session)
{
    if (body) add_header(x, "Content-Type", "application/json");
    add_header(x, "Accept", "application/json, text/event-stream");
    auth_header(x);
    if (in_session && h->session[0]) add_header(x, "Mcp-Session-Id", h->session);
    if (in_session && h->version[0]) add_header(x, "MCP-Protocol-Version", h->version);
}

/* DELETEs the current session (best effort), as a client ending it does. */
static void end_session(http_impl_t *h)
{
    xfer_t *x = xfer_new(h, "DELETE", false);
    std_headers(h, x, false, true);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, 2000L);
    curl_easy_perform(x->easy);
    xfer_free(h, x);
}

static bool is_initialize(const char *msg, size_t len)
{
    json_t *req = json_loadb(msg, len, 0, NULL);
    const char *method = json_string_value(json_object_get(req, "method"));
    bool init = method && strcmp(method, "initialize") == 0;
    json_decref(req);
    return init;
}

static void open_get_stream(http_impl_t *h)
{
    if (h->get || h->get_refused || !h->session[0]) return;
    xfer_t *x = xfer_new(h, "GET", true);
    add_header(x, "Accept", "text/event-stream");
    auth_header(x);
    add_header(x, "Mcp-Session-Id", h->session);
    if (h->version[0]) add_header(x, "MCP-Protocol-Version", h->version);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    curl_multi_add_handle(h->multi, x->easy);
    h->get = x;
    /* Long enough for a prompt refusal; a server that holds back the stream's headers until its
       first event (Node's does) is not waited for: the stream is driven with everything else. */
    drive(h, x, true, conf_now_ms() + GET_WAIT_MS);
    if (x->done) { /* refused (405: no stream offered) or failed: do without */
        h->get = NULL;
        h->get_refused = true;
        xfer_free(h, x);
    }
}

/* After an initialize: the session id it issued and the version it negotiated. */
static void note_initialize(http_impl_t *h, const xfer_t *x)
{
    if (x->session[0] && strcmp(x->session, h->session) != 0) {
        if (h->get) { /* a new session: the old stream belongs to the old one */
            xfer_free(h, h->get);
            h->get = NULL;
        }
        if (h->session[0]) end_session(h);
        conf_copy(h->session, sizeof h->session, x->session);
        h->get_refused = false;
    }
    /* the response is the last message queued: its protocolVersion is what later requests say */
    for (size_t i = h->qlen; i > h->qhead; i--) {
        json_t *resp = json_loads(h->queue[i - 1], 0, NULL);
        const char *v =
            json_string_value(json_object_get(json_object_get(resp, "result"), "protocolVersion"));
        if (v) conf_copy(h->version, sizeof h->version, v);
        json_decref(resp);
        if (v) break;
    }
}

static void keep_post(http_impl_t *h, xfer_t *x)
{
    for (size_t i = 0; i < sizeof h->posts / sizeof h->posts[0]; i++)
        if (!h->posts[i]) {
            h->posts[i] = x;
            return;
        }
    xfer_free(h, x); /* too many open streams: this one is dropped */
}

static void reap_posts(http_impl_t *h)
{
    for (size_t i = 0; i < sizeof h->posts / sizeof h->posts[0]; i++)
        if (h->posts[i] && h->posts[i]->done) {
            xfer_free(h, h->posts[i]);
            h->posts[i] = NULL;
        }
}

/*
 * MCP 2026-07-28: a request whose params._meta names a protocol version (not one of the
 * stateful revisions, which never put it there) is stateless: no session, and the headers the
 * revision wants: MCP-Protocol-Version (the _meta's), Mcp-Method and, for a call, a prompt or a
 * read, Mcp-Name. Its errors come with HTTP 4xx and a JSON-RPC body, which is the answer.
 */
static bool stateless_headers(xfer_t *x, const char *msg, size_t len)
{
    json_t *req = json_loadb(msg, len, 0, NULL);
    json_t *params = json_object_get(req, "params");
    const char *version = json_string_value(json_object_get(
        json_object_get(params, "_meta"), "io.modelcontextprotocol/protocolVersion"));
    const char *method = json_string_value(json_object_get(req, "method"));
    bool stateless =
        version && method && strncmp(version, "2024-", 5) != 0 && strncmp(version, "2025-", 5) != 0;
    if (stateless) {
        add_header(x, "Content-Type", "application/json");
        add_header(x, "Accept", "application/json, text/event-stream");
        add_header(x, "MCP-Protocol-Version", version);
        add_header(x, "Mcp-Method", method);
        auth_header(x);
        const char *key = strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0
                              ? "name"
                          : strcmp(method, "resources/read") == 0 ? "uri"
                          : strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
                                  strcmp(method, "tasks/cancel") == 0
                              ? "taskId" /* SEP-2663's routing header */
                              : NULL;
        const char *name = key ? json_string_value(json_object_get(params, key)) : NULL;
        if (name) add_header(x, "Mcp-Name", name);
    }
    json_decref(req);
    return stateless;
}

/* A 4xx whose body is a JSON-RPC error response (a stateless request's refusal). */
static bool is_rpc_error(const xfer_t *x)
{
    if (x->status < 400 || x->status >= 500 || x->sse) return false;
    json_t *resp = json_loads(conf_buf_str(&x->body), 0, NULL);
    bool rpc = json_is_object(json_object_get(resp, "error")) && json_object_get(resp, "id") &&
               !json_is_null(json_object_get(resp, "id"));
    json_decref(resp);
    return rpc;
}

static void describe_failure(const xfer_t *x, char *err, size_t cap)
{
    if (x->status < 0)
        snprintf(err, cap, "HTTP POST failed: %s", curl_easy_strerror((CURLcode)-x->status));
    else
        snprintf(err, cap, "HTTP %ld from the server (transport error): %.300s", x->status,
                 conf_buf_str(&x->body));
}

static int http_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    http_impl_t *h = t->impl;
    reap_posts(h);
    /* An initialize starts a new session (a server refuses one inside its session). */
    bool init = is_initialize(msg, len);
    xfer_t *x = xfer_new(h, "POST", true);
    bool stateless = stateless_headers(x, msg, len);
    if (stateless) init = false;
    if (!stateless) std_headers(h, x, true, !init);
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE, (long)len);
    curl_easy_setopt(x->easy, CURLOPT_COPYPOSTFIELDS, msg);
    curl_multi_add_handle(h->multi, x->easy);
    if (!drive(h, x, true, conf_now_ms() + POST_TIMEOUT_MS)) {
        snprintf(err, cap, "HTTP POST: no answer within %d ms", POST_TIMEOUT_MS);
        xfer_free(h, x);
        return -1;
    }
    if (!x->done) { /* an event stream still open: its messages arrive in receive() */
        keep_post(h, x);
        return 0;
    }
    int rc = 0;
    if (stateless && is_rpc_error(x)) {
        queue_push(h, conf_buf_str(&x->body), x->body.len);
    } else if (x->status < 200 || x->status >= 300) {
        describe_failure(x, err, cap);
        rc = x->status > 0 ? -2 : -1;
    } else {
        if (!x->sse && x->status != 202) queue_push(h, conf_buf_str(&x->body), x->body.len);
        if (init) note_initialize(h, x);
        open_get_stream(h);
    }
    xfer_free(h, x);
    return rc;
}

static int http_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                        size_t cap)
{
    http_impl_t *h = t->impl;
    (void)err;
    (void)cap;
    if (h->qhead == h->qlen) drive(h, NULL, false, deadline);
    if (h->qhead == h->qlen) {
        h->qhead = h->qlen = 0;
        return 0;
    }
    *msg = h->queue[h->qhead++];
    *len = strlen(*msg);
    return 1;
}

/* ---------------------------------------------------------------- raw exchanges (http steps) */

/* req: {method, headers: {name: value|null}, body: JSON, body_text: string, session: bool,
   path: "/..." (instead of the target's), body_pad: N blanks appended to the body}.
 *resp: {status, headers, body (JSON or null), text, messages}. */
static int http_exchange(conf_target_t *t, const json_t *req, json_t **resp, char *err, size_t cap)
{
    http_impl_t *h = t->impl;
    const char *method = json_string_value(json_object_get(req, "method"));
    if (!method) method = "POST";
    const json_t *hdrs = json_object_get(req, "headers");
    const json_t *body = json_object_get(req, "body");
    const char *text = json_string_value(json_object_get(req, "body_text"));
    bool with_session = !json_is_false(json_object_get(req, "session"));
    const char *path = json_string_value(json_object_get(req, "path"));
    size_t pad = (size_t)json_integer_value(json_object_get(req, "body_pad"));
    xfer_t *x = xfer_new(h, method, false);
    if (path) { /* the target's scheme://host:port with this path */
        const char *host = strstr(h->url, "://");
        const char *slash = host ? strchr(host + 3, '/') : NULL;
        int keep = slash ? (int)(slash - h->url) : (int)strlen(h->url);
        char *url = conf_asprintf("%.*s%s", keep, h->url, path);
        curl_easy_setopt(x->easy, CURLOPT_URL, url);
        free(url);
    }
    x->headers_out = json_object();
    x->events = json_array();
    char *owned = body ? conf_json_text(body) : NULL;
    if (owned) text = owned;
    const char *defaults[][2] = {
        {"Content-Type", text ? "application/json" : NULL},
        {"Accept", "application/json, text/event-stream"},
        {"Mcp-Session-Id", with_session && h->session[0] ? h->session : NULL},
        {"MCP-Protocol-Version", h->version[0] ? h->version : NULL},
        {"Authorization", h->auth[0] ? h->auth : NULL}};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        if (!defaults[i][1]) continue;
        bool overridden = false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)hdrs, k, v) if (strcasecmp(k, defaults[i][0]) == 0)
            overridden = true;
        if (!overridden) add_header(x, defaults[i][0], defaults[i][1]);
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)hdrs, k, v)
    {
        if (json_is_string(v))
            add_header(x, k, json_string_value(v));
        else { /* null: the header is not sent at all */
            char *line = conf_asprintf("%s:", k);
            x->headers = curl_slist_append(x->headers, line);
            free(line);
        }
    }
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    if (text && pad) { /* blanks after the body: still the same JSON, only longer */
        size_t n = strlen(text);
        char *padded = conf_xcalloc(1, n + pad + 1);
        memcpy(padded, text, n);
        memset(padded + n, ' ', pad);
        free(owned);
        owned = padded;
        text = padded;
    }
    if (text) {
        curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
        curl_easy_setopt(x->easy, CURLOPT_COPYPOSTFIELDS, text);
    }
    free(owned);
    curl_multi_add_handle(h->multi, x->easy);
    bool finished = drive(h, x, false, conf_now_ms() + POST_TIMEOUT_MS);
    if (!finished || x->status < 0) {
        snprintf(err, cap, "HTTP %s: %s", method,
                 finished ? curl_easy_strerror((CURLcode)-x->status) : "no answer in time");
        xfer_free(h, x);
        return -1;
    }
    json_t *parsed = x->sse ? NULL : json_loadb(conf_buf_str(&x->body), x->body.len, 0, NULL);
    *resp = json_pack("{s:I, s:O, s:o, s:o, s:O}", "status", (json_int_t)x->status, "headers",
                      x->headers_out, "body", parsed ? parsed : json_null(), "text",
                      conf_json_string_lossy(conf_buf_str(&x->body)), "messages", x->events);
    xfer_free(h, x);
    return 0;
}

/* ---------------------------------------------------------------- open / close */

static int http_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    if (strncmp(spec, "//", 2) != 0 || strlen(spec) + 6 >= sizeof((http_impl_t *)0)->url) {
        snprintf(err, cap, "http target \"%s\": expected http://HOST:PORT/PATH", spec);
        return CONF_EXIT_USAGE;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    http_impl_t *h = conf_xcalloc(1, sizeof *h);
    snprintf(h->url, sizeof h->url, "http:%s", spec);
    if (t->auth_token[0]) snprintf(h->auth, sizeof h->auth, "Bearer %s", t->auth_token);
    h->multi = curl_multi_init();
    t->impl = h;
    t->stream = false;
    conf_copy(t->transport, sizeof t->transport, "http");
    /* reachable? a connection attempt tells before discovery does */
    CURL *probe = curl_easy_init();
    curl_easy_setopt(probe, CURLOPT_URL, h->url);
    curl_easy_setopt(probe, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(probe, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
    CURLcode rc = curl_easy_perform(probe);
    curl_easy_cleanup(probe);
    if (rc != CURLE_OK) {
        snprintf(err, cap, "cannot reach %s: %s", h->url, curl_easy_strerror(rc));
        t->ops->close(t);
        return CONF_EXIT_UNREACHABLE;
    }
    return CONF_EXIT_OK;
}

static void http_close(conf_target_t *t)
{
    http_impl_t *h = t->impl;
    if (!h) return;
    if (h->get) xfer_free(h, h->get);
    for (size_t i = 0; i < sizeof h->posts / sizeof h->posts[0]; i++) xfer_free(h, h->posts[i]);
    if (h->session[0]) end_session(h); /* the session ends with us */
    for (size_t i = h->qhead; i < h->qlen; i++) free(h->queue[i]);
    free(h->queue);
    curl_multi_cleanup(h->multi);
    free(h);
    t->impl = NULL;
    curl_global_cleanup();
}

const conf_target_ops_t conf_target_http = {"http",       http_open,  http_send,     NULL,
                                            http_receive, http_close, http_exchange, NULL};
