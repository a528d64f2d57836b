/* http.c: MCP's Streamable HTTP transport (libmicrohttpd): POST, GET and DELETE on /mcp. */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fw_codes.h"
#include "http_check.h"
#include "http_guard.h"
#include "http_session.h"
#include "net.h"
#include "log.h"
#include "mhd_uv.h"

/*
 * One loop, no threads: libmicrohttpd is driven from the host's libuv loop (mhd_uv.h: its epoll
 * fd watched by a uv_poll, its timeout by a uv_timer), so every callback below runs on the loop
 * thread and calls the device as the other transports do. Nothing blocks: a POST whose answer
 * comes later (a bridged device, --device) parks its connection (MHD_suspend_connection) until
 * the late answer resumes it; an event stream with nothing to send (a session's GET stream, a
 * call stream waiting for the client's answer, a subscriptions/listen stream) parks in its
 * content reader, which returns 0, and is resumed when the device wrote something for it (the
 * device watcher, on_device), when its keep-alive is due or when its client hangs up.
 */

/* Connections served at once: http_guard_conn_limit() (from the open-files limit), with a cap
   per client address (--http-per-address) and deadlines for slow headers and bodies
   (http_guard.h). */
/* A connection silent for this long is closed (streams send a keep-alive every 15 s). */
#define CONN_TIMEOUT_S 60u

/* The verdict of a check on the last value of a header: a client sends the same Host,
   Content-Type and Accept with every request, and each of these checks depends on the value
   alone (and on the allow lists, fixed at start). A longer value is checked every time. */
typedef struct memo {
    char value[128];
    bool known; /* value holds one */
    bool ok;
} memo_t;

struct host_http {
    host_t *host;
    struct MHD_Daemon *daemon;
    host_mhd_t *mhd;     /* drives the daemon from the loop (mhd_uv.h) */
    http_guard_t *guard; /* slow and silent clients, refused connections (http_guard.h) */
    host_sessions_t sessions;
    struct listen_stream *listens; /* open subscriptions/listen streams */
    const char *const *allow_hosts;
    size_t allow_host_count;
    const char *const *allow_origins;
    size_t allow_origin_count;
    const char *auth_token; /* NULL: no authentication */
    unsigned idle_timeout_s;
    size_t conn_memory; /* libmicrohttpd's memory per connection (--http-conn-memory) */
    host_session_t *calling; /* the session whose POST the device handles now, or NULL */
    const struct req_hdrs *hdrs;        /* the headers of the request on_request serves now */
    struct MHD_Connection *hdrs_conn;   /* ... on this connection (NULL: none) */
    struct http_req *spare; /* finished POSTs' states kept for the next ones (req_new) */
    unsigned spare_count;
    struct body_block *blocks; /* spare response bodies (send_copy) */
    unsigned block_count;
    memo_t host_ok, type_ok, accept_ok; /* check_host's and check_post_headers' last verdicts */
};

/* The messages the device wrote for one POST: concatenated, with the end of each. The first
   COL_INLINE ends, kinds and codes are kept in the collector itself (a POST's answer is one
   message but for notifications before it); a collector is not copied once it holds any. */
#define COL_INLINE 4
typedef struct collector {
    host_buf_t data;
    size_t *ends;   /* ends_in, or allocated past COL_INLINE messages */
    uint8_t *kinds; /* fw_msg_kind_t of each, as the device's sink told it */
    int32_t *codes; /* the error code of each FW_MSG_ERROR */
    size_t ends_in[COL_INLINE];
    uint8_t kinds_in[COL_INLINE];
    int32_t codes_in[COL_INLINE];
    size_t count, cap;
    fw_msg_kind_t kind; /* of the message being written (tell comes before end) */
    int32_t code;
} collector_t;

/* The request headers the transport reads, found in one pass over the request's headers
   (hdrs_read) instead of one walk of the list per lookup: the first of each name, as
   MHD_lookup_connection_value finds it, and how many Host headers came. */
enum {
    H_HOST,
    H_ORIGIN,
    H_AUTH,
    H_TYPE,
    H_ACCEPT,
    H_LENGTH,
    H_SESSION,
    H_VERSION,
    H_ACRM,
    H_COUNT
};

typedef struct req_hdrs {
    const char *v[H_COUNT];
    unsigned found; /* bit i: v[i] is the first header of that name */
    unsigned hosts; /* Host headers */
} req_hdrs_t;

/* A request's state between libmicrohttpd's calls: the POST body as it arrives, then, while
   a bridged device has not answered yet, what the answer needs once it came. */
typedef struct http_req {
    req_hdrs_t hdrs; /* its headers (valid until the request completes) */
    host_buf_t body;
    bool too_large;
    bool over_budget; /* the input budget refused the body: 503 */
    bool waiting;  /* the device answers later: the connection is parked */
    bool answered; /* the late answer came */
    host_mhd_park_t *park;
    collector_t col;     /* what the device wrote */
    host_answer_t answer;
    host_session_t *s;   /* stateful: the session, referenced */
    bool created, requests;
    bool stateless, listen;
    bool unreadable; /* the device cannot read the body: its error is the answer */
    fw_session_t none;   /* stateless: the request's own session */
    host_buf_t kept;     /* a spare state's body buffer, empty: the body's first bytes take it (an
                            empty body stays NULL, as in a new state) */
    struct http_req *next_spare; /* in http->spare */
} http_req_t;

/* A finished POST's state is kept for the next one, its body buffer and the buffer its answer
   was collected in too (each up to SPARE_BODY_MAX bytes), and its answer goes out in a spare
   block (send_copy): a POST whose answer is one message of up to BODY_BLOCK bytes allocates
   nothing of mcpsim's own (libmicrohttpd still allocates its response and the copies of its
   headers). At most SPARE_REQS states and SPARE_BLOCKS blocks are kept. */
#define SPARE_REQS 16u
#define SPARE_BODY_MAX 4096u
#define SPARE_BLOCKS 16u
#define BODY_BLOCK 4096u

/* A response body that libmicrohttpd gives back once the response is gone (body_back). */
typedef struct body_block {
    host_http_t *http;
    struct body_block *next;
    char data[BODY_BLOCK];
} body_block_t;

/* A refusal: the HTTP status, the JSON-RPC error in the body and the headers it needs. */
typedef struct http_err {
    unsigned status;
    int code;
    char message[512];
    const char *allow; /* 405: the Allow header */
    bool challenge;    /* 401: WWW-Authenticate */
    bool token_given;  /* 401: a token was sent, and it was wrong */
    bool retry_after;  /* 503: Retry-After: 1 */
    char requested[104]; /* -32022: the version asked for (data.requested, data.supported) */
} http_err_t;

/* ---------------------------------------------------------------- responses */

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

#define HDR_NAME(s) {s, sizeof s - 1}
static const struct {
    const char *name;
    size_t len;
} hdr_names[H_COUNT] = {
    [H_HOST] = HDR_NAME("Host"),
    [H_ORIGIN] = HDR_NAME("Origin"),
    [H_AUTH] = HDR_NAME("Authorization"),
    [H_TYPE] = HDR_NAME("Content-Type"),
    [H_ACCEPT] = HDR_NAME("Accept"),
    [H_LENGTH] = HDR_NAME("Content-Length"),
    [H_SESSION] = HDR_NAME("Mcp-Session-Id"),
    [H_VERSION] = HDR_NAME("MCP-Protocol-Version"),
    [H_ACRM] = HDR_NAME("Access-Control-Request-Method"),
};
#undef HDR_NAME

/* id when key (hdr_names[id].len bytes) is that name in any case, else H_COUNT: the canonical
   spelling, which clients send, is compared as bytes first (inlined: id is a constant in each
   call), strncasecmp takes any other, as MHD_lookup_connection_value matches. */
static inline unsigned named(const char *key, unsigned id)
{
    const char *name = hdr_names[id].name;
    size_t len = hdr_names[id].len;
    return memcmp(key, name, len) == 0 || strncasecmp(key, name, len) == 0 ? id : H_COUNT;
}

/* The id of a request header's name (key_size bytes), H_COUNT for a name not read: its length
   picks the one name it can be (the first letter where two names share a length). */
static unsigned hdr_id(const char *key, size_t key_size)
{
    int first = key[0] | 0x20; /* a letter's lower case */
    switch (key_size) {
    case 4:
        return named(key, H_HOST);
    case 6:
        return first == 'o' ? named(key, H_ORIGIN) : named(key, H_ACCEPT);
    case 12:
        return named(key, H_TYPE);
    case 13:
        return named(key, H_AUTH);
    case 14:
        return first == 'c' ? named(key, H_LENGTH) : named(key, H_SESSION);
    case 20:
        return named(key, H_VERSION);
    case 29:
        return named(key, H_ACRM);
    default:
        return H_COUNT;
    }
}

static enum MHD_Result hdrs_one(void *cls, enum MHD_ValueKind kind, const char *key,
                                size_t key_size, const char *value, size_t value_size)
{
    req_hdrs_t *h = cls;
    (void)kind;
    (void)value_size;
    unsigned id = hdr_id(key, key_size);
    if (id == H_COUNT) return MHD_YES;
    if (id == H_HOST) h->hosts++; /* as count_host counts */
    if (!(h->found & 1u << id)) {
        h->found |= 1u << id;
        h->v[id] = value;
    }
    return MHD_YES;
}

static void hdrs_read(struct MHD_Connection *c, req_hdrs_t *h)
{
    memset(h, 0, sizeof *h);
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, hdrs_one, h);
}

/* Header id of the request on c: from the snapshot on_request took, else looked up. */
static const char *hdr(const host_http_t *http, struct MHD_Connection *c, unsigned id)
{
    if (http->hdrs && http->hdrs_conn == c) return http->hdrs->v[id];
    return header(c, hdr_names[id].name);
}

static void peer_of(struct MHD_Connection *c, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char ip[INET6_ADDRSTRLEN] = "?";
    if (!ci || !ci->client_addr) {
        snprintf(out, cap, "(client)");
    } else if (ci->client_addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)ci->client_addr;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(out, cap, "[%s]:%u", ip, (unsigned)ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)ci->client_addr;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, cap, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
    }
}

/* The client's address without its port: sessions are counted per address. */
static void peer_address(struct MHD_Connection *c, char *out, size_t cap)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(out, cap, "(client)");
    if (!ci || !ci->client_addr) return;
    if (ci->client_addr->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)ci->client_addr)->sin6_addr,
                  out, (socklen_t)cap);
    else
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)ci->client_addr)->sin_addr,
                  out, (socklen_t)cap);
}

/*
 * CORS, for browser clients of an allowed origin: they may read the answer and the headers
 * an MCP client needs. (A refused origin gets none: its browser shows the 403 as a failure.)
 */
static void add_cors(const host_http_t *http, struct MHD_Connection *c, struct MHD_Response *r)
{
    const char *origin = hdr(http, c, H_ORIGIN);
    if (!origin || !host_http_origin_allowed(origin, http->allow_origins, http->allow_origin_count))
        return;
    MHD_add_response_header(r, "Access-Control-Allow-Origin", origin);
    MHD_add_response_header(r, "Access-Control-Expose-Headers",
                            "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate");
    MHD_add_response_header(r, "Vary", "Origin");
}

/* Queues r with the CORS headers it needs, and lets go of it. */
static enum MHD_Result queue(const host_http_t *http, struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *r)
{
    add_cors(http, c, r);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* A CORS preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin: what
   a browser may send to /mcp. Needs no token: browsers send none with a preflight. */
static enum MHD_Result preflight(const host_http_t *http, struct MHD_Connection *c)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST, DELETE");
    MHD_add_response_header(r, "Access-Control-Allow-Headers",
                            "Content-Type, Accept, Authorization, Mcp-Session-Id, "
                            "MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID");
    MHD_add_response_header(r, "Access-Control-Max-Age", "600");
    return queue(http, c, 204, r);
}

/* Sends r with its Content-Type (NULL: none) and session id (NULL: none). */
static enum MHD_Result send_response(const host_http_t *http, struct MHD_Connection *c,
                                     unsigned status, const char *type, struct MHD_Response *r,
                                     const char *session_id)
{
    if (type) MHD_add_response_header(r, "Content-Type", type);
    if (type && strcmp(type, "text/event-stream") == 0)
        MHD_add_response_header(r, "Cache-Control", "no-cache");
    if (session_id) MHD_add_response_header(r, "Mcp-Session-Id", session_id);
    return queue(http, c, status, r);
}

/* Sends body (len bytes, malloc'd: the response frees it; NULL: no body). */
static enum MHD_Result send_body(const host_http_t *http, struct MHD_Connection *c, unsigned status,
                                 const char *type, char *body, size_t len, const char *session_id)
{
    struct MHD_Response *r = body
                                 ? MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE)
                                 : MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    return send_response(http, c, status, type, r, session_id);
}

/* libmicrohttpd lets a response go: its block is kept for the next one, or freed. */
static void body_back(void *cls)
{
    body_block_t *b = cls;
    host_http_t *http = b->http;
    if (http->block_count == SPARE_BLOCKS) {
        free(b);
        return;
    }
    b->next = http->blocks;
    http->blocks = b;
    http->block_count++;
}

/* As send_body for a body the caller keeps: copied into a spare block when it fits one. */
static enum MHD_Result send_copy(host_http_t *http, struct MHD_Connection *c, unsigned status,
                                 const char *type, const char *body, size_t len,
                                 const char *session_id)
{
    if (len > BODY_BLOCK) {
        char *own = malloc(len);
        if (!own) abort();
        memcpy(own, body, len);
        return send_body(http, c, status, type, own, len, session_id);
    }
    body_block_t *b = http->blocks;
    if (b) {
        http->blocks = b->next;
        http->block_count--;
    } else {
        b = malloc(sizeof *b);
        if (!b) abort();
        b->http = http;
    }
    memcpy(b->data, body, len);
    struct MHD_Response *r =
        MHD_create_response_from_buffer_with_free_callback_cls(len, b->data, body_back, b);
    if (!r) {
        body_back(b);
        return MHD_NO;
    }
    return send_response(http, c, status, type, r, session_id);
}

/* Makes s valid UTF-8 in place, as a JSON string must be: a byte that does not begin a
   well-formed sequence becomes '?'. Messages quote the request's method, URL and headers, which
   may be any bytes (and "%.100s" may cut a sequence); jansson refuses invalid UTF-8, and the
   error body would be NULL (found by sim/tests/fuzz/fuzz_http.c). */
static void utf8_repair(char *s)
{
    static const uint32_t least[] = {0, 0x80, 0x800, 0x10000};
    for (unsigned char *p = (unsigned char *)s; *p;) {
        unsigned n;
        uint32_t cp;
        if (*p < 0x80) {
            p++;
            continue;
        } else if ((*p & 0xE0) == 0xC0) {
            n = 1, cp = *p & 0x1Fu;
        } else if ((*p & 0xF0) == 0xE0) {
            n = 2, cp = *p & 0x0Fu;
        } else if ((*p & 0xF8) == 0xF0) {
            n = 3, cp = *p & 0x07u;
        } else {
            *p++ = '?';
            continue;
        }
        unsigned i = 1;
        for (; i <= n && (p[i] & 0xC0) == 0x80; i++) cp = cp << 6 | (p[i] & 0x3Fu);
        if (i <= n || cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            *p++ = '?';
            continue;
        }
        p += n + 1;
    }
}

/* An empty refusal (the message and the version asked for are written by fail and
   check_stateless; the whole struct is not zeroed on every request). */
static void err_init(http_err_t *e)
{
    e->status = 0;
    e->code = 0;
    e->message[0] = 0;
    e->allow = NULL;
    e->challenge = e->token_given = e->retry_after = false;
    e->requested[0] = 0;
}

static void fail(http_err_t *e, unsigned status, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(http_err_t *e, unsigned status, int code, const char *fmt, ...)
{
    e->status = status;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    utf8_repair(e->message);
}

/* Sends a refusal: the status, a JSON-RPC error body (id null) and the headers it needs. */
static enum MHD_Result send_error(const host_http_t *http, struct MHD_Connection *c,
                                  const char *method, const char *url, const http_err_t *e)
{
    char peer[80];
    peer_of(c, peer, sizeof peer);
    host_log(HOST_LOG_INFO, "http: %s %s %s -> %u: %s", peer, method, url, e->status, e->message);
    json_t *doc = json_pack("{s:s, s:n, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", "error", "code",
                            e->code, "message", e->message);
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (e->allow) MHD_add_response_header(r, "Allow", e->allow);
    if (e->retry_after) MHD_add_response_header(r, "Retry-After", "1");
    if (e->challenge)
        MHD_add_response_header(r, "WWW-Authenticate",
                                e->token_given ? "Bearer realm=\"mcpsim\", error=\"invalid_token\""
                                               : "Bearer realm=\"mcpsim\"");
    return queue(http, c, e->status, r);
}

/* ---------------------------------------------------------------- checks of every request */

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind;
    (void)value;
    if (strcasecmp(key, "Host") == 0) ++*(unsigned *)cls;
    return MHD_YES;
}

/* check(http, v), or its verdict on v kept in m. */
static bool checked(host_http_t *http, memo_t *m, const char *v,
                    bool (*check)(const host_http_t *http, const char *v))
{
    if (m->known && strcmp(m->value, v) == 0) return m->ok;
    bool ok = check(http, v);
    size_t n = strlen(v);
    if (n < sizeof m->value) {
        memcpy(m->value, v, n + 1);
        m->known = true;
        m->ok = ok;
    }
    return ok;
}

static bool host_allowed(const host_http_t *http, const char *host)
{
    return host_http_host_allowed(host, http->allow_hosts, http->allow_host_count);
}

static bool is_json(const host_http_t *http, const char *type)
{
    (void)http;
    return host_http_is_json(type);
}

/* Accept lists both answers a POST may get: JSON and an SSE stream. */
static bool accepts_answers(const host_http_t *http, const char *accept)
{
    static const char *const answers[] = {"application/json", "text/event-stream"};
    bool ok[2];
    (void)http;
    host_http_accepts_each(accept, answers, 2, ok);
    return ok[0] && ok[1];
}

static bool check_host(host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    const char *host = hdr(http, c, H_HOST);
    if (!host) {
        fail(e, 400, FW_RPC_TRANSPORT_ERROR, "Host header missing");
        return false;
    }
    unsigned hosts = 0; /* only the first is looked up: a second one must not slip past */
    if (http->hdrs && http->hdrs_conn == c)
        hosts = http->hdrs->hosts;
    else
        MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &hosts);
    if (hosts != 1) {
        fail(e, 400, FW_RPC_TRANSPORT_ERROR, "%u Host headers: a request has exactly one",
             hosts);
        return false;
    }
    if (checked(http, &http->host_ok, host, host_allowed)) return true;
    fail(e, 403, FW_RPC_TRANSPORT_ERROR,
         "Host '%.200s' is not allowed (DNS rebinding protection): only localhost, 127.0.0.1 "
         "and [::1] unless --allow-host names it",
         host);
    return false;
}

static bool check_origin(const host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    const char *origin = hdr(http, c, H_ORIGIN);
    if (!origin || host_http_origin_allowed(origin, http->allow_origins, http->allow_origin_count))
        return true;
    fail(e, 403, FW_RPC_TRANSPORT_ERROR,
         "Origin '%.200s' is not allowed: only http(s)://localhost, 127.0.0.1 and [::1] unless "
         "--allow-origin names it",
         origin);
    return false;
}

static bool check_auth(const host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    if (!http->auth_token) return true;
    const char *auth = hdr(http, c, H_AUTH);
    if (host_http_bearer_ok(auth, http->auth_token)) return true;
    fail(e, 401, FW_RPC_TRANSPORT_ERROR,
         "%s: send 'Authorization: Bearer TOKEN' with the token of --auth-token",
         auth ? "wrong credentials" : "authentication required");
    e->challenge = true;
    e->token_given = auth != NULL;
    return false;
}

static bool check_version(const host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    const char *v = hdr(http, c, H_VERSION);
    if (!v || fw_mcp_version_supported(v, strlen(v))) return true; /* absent: 2025-03-26 */
    fw_session_t none;
    memset(&none, 0, sizeof none);
    fail(e, 400, FW_RPC_TRANSPORT_ERROR,
         "unsupported MCP-Protocol-Version '%.100s' (this server speaks 2024-11-05 to %s)", v,
         fw_session_protocol_version(&none));
    return false;
}

/* The checks every request passes first: Host, Origin, the path. */
static bool check_common(host_http_t *http, struct MHD_Connection *c, const char *url,
                         http_err_t *e)
{
    if (!check_host(http, c, e) || !check_origin(http, c, e)) return false;
    if (strcmp(url, "/mcp") != 0) {
        fail(e, 404, FW_RPC_TRANSPORT_ERROR, "no MCP endpoint at '%.200s': use /mcp", url);
        return false;
    }
    return true;
}

/* Whether the decimal number s begins with is over max (libmicrohttpd has checked the
   header's syntax): 20 digits or more, leading zeros aside, are over any max. */
static bool decimal_over(const char *s, uint64_t max)
{
    while (*s == '0') s++;
    uint64_t v = 0;
    for (unsigned n = 0; *s >= '0' && *s <= '9'; s++, n++) {
        if (n == 19) return true;
        v = v * 10u + (uint64_t)(*s - '0');
    }
    return v > max;
}

static bool check_post_headers(host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    const char *type = hdr(http, c, H_TYPE);
    const char *accept = hdr(http, c, H_ACCEPT);
    const char *length = hdr(http, c, H_LENGTH);
    if (!type || !checked(http, &http->type_ok, type, is_json)) {
        fail(e, 415, FW_RPC_TRANSPORT_ERROR, "Content-Type must be application/json (got '%.100s')",
             type ? type : "");
        return false;
    }
    if (!accept || !checked(http, &http->accept_ok, accept, accepts_answers)) {
        fail(e, 406, FW_RPC_TRANSPORT_ERROR,
             "Accept must list both application/json and text/event-stream (got '%.100s')",
             accept ? accept : "");
        return false;
    }
    if (length && decimal_over(length, HOST_HTTP_BODY_MAX)) {
        fail(e, 413, FW_RPC_TRANSPORT_ERROR,
             "request body of %.20s bytes is over the limit of %u bytes", length,
             HOST_HTTP_BODY_MAX);
        return false;
    }
    return true; /* MCP-Protocol-Version: with the body (handle_post) */
}

/* ---------------------------------------------------------------- sessions */

/* The session named by the Mcp-Session-Id header, referenced; NULL with e filled. */
static host_session_t *find_session(host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    const char *id = hdr(http, c, H_SESSION);
    if (!id) {
        fail(e, 400, FW_RPC_TRANSPORT_ERROR,
             "Mcp-Session-Id header missing: initialize first (POST initialize without it) and "
             "send the id its response carries with every request");
        return NULL;
    }
    host_session_t *s = host_sessions_find(&http->sessions, id);
    if (!s)
        fail(e, 404, FW_RPC_SESSION_NOT_FOUND,
             "session not found: unknown, ended (DELETE) or expired (idle for over %u s): "
             "initialize a new one",
             http->idle_timeout_s);
    return s;
}

/* A session for an initialize sent without a session id: reserved, not listed yet. */
static host_session_t *new_session(host_http_t *http, struct MHD_Connection *c, http_err_t *e)
{
    char owner[64];
    peer_address(c, owner, sizeof owner);
    host_reserve_t r = host_sessions_reserve_for(&http->sessions, owner);
    if (r == HOST_RESERVE_CLIENT_CAP) {
        fail(e, 503, FW_RPC_TRANSPORT_ERROR,
             "too many sessions of %s (limit %u, --http-sessions-per-client), each with a "
             "request, stream or call in progress: end one with DELETE /mcp",
             owner, http->sessions.per_client);
        return NULL;
    }
    if (r != HOST_RESERVED) {
        fail(e, 503, FW_RPC_TRANSPORT_ERROR,
             "too many sessions (limit %u, --http-max-sessions), each with a request, stream "
             "or call in progress: end one with DELETE /mcp or let one expire (idle timeout "
             "%u s)",
             http->sessions.max, http->idle_timeout_s);
        return NULL;
    }
    host_session_t *s = host_session_new();
    if (!s) {
        host_sessions_unreserve(&http->sessions);
        fail(e, 500, FW_RPC_INTERNAL_ERROR, "no random bytes for a session id");
        return NULL;
    }
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    fw_session_init(&s->fw, sim_device(http->host->sim));
    return s;
}

/* After the initialize of a new session ran: lists it when it succeeded. True if listed. */
static bool finish_new_session(host_http_t *http, struct MHD_Connection *c, host_session_t *s)
{
    if (!s->fw.initialize_seen) {
        host_sessions_unreserve(&http->sessions);
        return false;
    }
    unsigned count = host_sessions_publish(&http->sessions, s);
    if (count == 0) return false;
    char peer[80], tag[16];
    peer_of(c, peer, sizeof peer);
    host_session_tag(s, tag);
    host_log(HOST_LOG_INFO, "http: session %s opened by %s (%u of %u)", tag, peer, count,
             http->sessions.max);
    return true;
}

/* ---------------------------------------------------------------- event streams */

/* A GET or call stream as libmicrohttpd's content reader sees it. */
typedef struct http_stream {
    host_stream_t *st;
    host_mhd_park_t *park;
} http_stream_t;

static void stream_wake(void *ctx)
{
    host_mhd_unpark(((http_stream_t *)ctx)->park);
}

/* Nothing to send now: parks until the stream is woken or its keep-alive is due. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    http_stream_t *hs = cls;
    (void)pos;
    ssize_t n = host_stream_read(hs->st, buf, max);
    if (n == 0) host_mhd_park(hs->park, host_stream_wait_ms(hs->st));
    return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free(void *cls)
{
    http_stream_t *hs = cls;
    host_stream_close(hs->st);
    host_mhd_park_free(hs->park);
    free(hs);
}

static int socket_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return ci ? (int)ci->connect_fd : -1;
}

/* Answers with stream st (a GET stream or a call stream), which ends with the response. */
static enum MHD_Result send_stream(const host_http_t *http, struct MHD_Connection *c,
                                   host_stream_t *st)
{
    http_stream_t *hs = calloc(1, sizeof *hs);
    if (!hs) abort();
    hs->st = st;
    hs->park = host_mhd_park_new(http->mhd, c, socket_of(c));
    host_stream_on_wake(st, stream_wake, hs);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, hs, stream_free);
    if (!r) {
        stream_free(hs);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    return queue(http, c, 200, r);
}

/* ---------------------------------------------------------------- POST */

static void col_write(void *ctx, const char *data, size_t len)
{
    host_buf_append(&((collector_t *)ctx)->data, data, len);
}

/* The sink's tell: what the message being written is (so nothing is parsed again). */
static void col_tell(void *ctx, fw_msg_kind_t kind, int32_t code)
{
    collector_t *col = ctx;
    col->kind = kind;
    col->code = code;
}

static void col_end(void *ctx)
{
    collector_t *col = ctx;
    if (col->count == col->cap && col->cap == 0) {
        col->cap = COL_INLINE;
        col->ends = col->ends_in;
        col->kinds = col->kinds_in;
        col->codes = col->codes_in;
    } else if (col->count == col->cap) {
        bool inline_ = col->ends == col->ends_in;
        col->cap *= 2;
        size_t *ends = realloc(inline_ ? NULL : col->ends, col->cap * sizeof *col->ends);
        uint8_t *kinds = realloc(inline_ ? NULL : col->kinds, col->cap * sizeof *col->kinds);
        int32_t *codes = realloc(inline_ ? NULL : col->codes, col->cap * sizeof *col->codes);
        if (!ends || !kinds || !codes) abort();
        if (inline_) {
            memcpy(ends, col->ends_in, sizeof col->ends_in);
            memcpy(kinds, col->kinds_in, sizeof col->kinds_in);
            memcpy(codes, col->codes_in, sizeof col->codes_in);
        }
        col->ends = ends;
        col->kinds = kinds;
        col->codes = codes;
    }
    col->kinds[col->count] = (uint8_t)col->kind;
    col->codes[col->count] = col->code;
    col->ends[col->count++] = col->data.len;
    col->kind = FW_MSG_RESULT; /* a message without a tell (a bridged device's late answer) */
    col->code = 0;
}

/* Moves src's messages to dst; src is left empty. */
static void col_move(collector_t *dst, collector_t *src)
{
    *dst = *src;
    if (src->ends == src->ends_in) { /* dst's own copies of the inline arrays */
        dst->ends = dst->ends_in;
        dst->kinds = dst->kinds_in;
        dst->codes = dst->codes_in;
    }
    memset(src, 0, sizeof *src);
}

static fw_msg_sink_t col_sink(collector_t *col)
{
    return (fw_msg_sink_t){col_write, col, col_end, col_tell};
}

/* Empties col for the next POST: its messages go, its data buffer stays (empty) unless it grew
   past SPARE_BODY_MAX. */
static void col_clear(collector_t *col)
{
    if (col->data.cap > SPARE_BODY_MAX) host_buf_free(&col->data);
    col->data.len = 0;
    if (col->ends != col->ends_in) {
        free(col->ends);
        free(col->kinds);
        free(col->codes);
    }
    col->ends = NULL;
    col->kinds = NULL;
    col->codes = NULL;
    col->count = col->cap = 0;
    col->kind = FW_MSG_RESULT;
    col->code = 0;
}

static bool is_response(fw_msg_kind_t kind)
{
    return kind == FW_MSG_RESULT || kind == FW_MSG_ERROR || kind == FW_MSG_BATCH;
}

/* True for a single message whose method is initialize (it may create a session). */
static bool is_initialize(const fw_envelope_t *env)
{
    return env->method >= 0 && (fw_json_str_eq)(&env->doc, (uint32_t)env->method, "initialize");
}

/* The POST's answer: one message as application/json, several as an SSE stream. */
static enum MHD_Result send_messages(host_http_t *http, struct MHD_Connection *c,
                                     const collector_t *col, const char *session_id)
{
    if (col->count == 1)
        return send_copy(http, c, 200, "application/json", col->data.data, col->ends[0],
                         session_id);
    host_buf_t sse = {0};
    for (size_t i = 0, start = 0; i < col->count; start = col->ends[i++])
        host_sse_event(&sse, col->data.data + start, col->ends[i] - start);
    return send_body(http, c, 200, "text/event-stream", sse.data, sse.len, session_id);
}

/* True when the device wrote a request to the client (fw_call_ask): its call waits. */
static bool asks_client(const collector_t *col)
{
    for (size_t i = 0; i < col->count; i++)
        if (col->kinds[i] == FW_MSG_REQUEST) return true;
    return false;
}

/* Messages written for a POST that gets no answer (202): what the client's answer resumed
   goes to the waiting call's stream, the rest to the session's GET stream. */
static void deliver_messages(host_http_t *http, host_session_t *s, const collector_t *col)
{
    for (size_t i = 0, start = 0; i < col->count; start = col->ends[i++]) {
        const char *msg = col->data.data + start;
        size_t len = col->ends[i] - start;
        host_session_deliver(&http->sessions, s, msg, len, is_response(col->kinds[i]));
    }
}

/* The POST's tools/call asked the client and waits: its answer is a stream that sends the
   request now and the call's response once the client's answer (another POST) resumed it. */
static enum MHD_Result open_call_stream(host_http_t *http, struct MHD_Connection *c,
                                        host_session_t *s, const collector_t *col)
{
    host_buf_t sse = {0};
    for (size_t i = 0, start = 0; i < col->count; start = col->ends[i++])
        host_sse_event(&sse, col->data.data + start, col->ends[i] - start);
    host_stream_t *st = host_call_stream_open(&http->sessions, s, socket_of(c), sse.data, sse.len);
    host_buf_free(&sse);
    char tag[16];
    host_session_tag(s, tag);
    host_log(HOST_LOG_DEBUG, "http: session %s: a tools/call waits for the client's answer", tag);
    return send_stream(http, c, st);
}

/* Whether a request of s still waits for its response (fw_call_ask, a held tasks/result). */
static bool call_waits(host_http_t *http, host_session_t *s)
{
    return fw_device_session_waits(sim_device(http->host->sim), &s->fw);
}

/* The late answer of a bridged device (--device), on the loop thread: the parked POST goes on. */
static void http_late(void *ctx, const char *msg, size_t len)
{
    http_req_t *req = ctx;
    col_write(&req->col, msg, len);
    col_end(&req->col);
    req->answered = true;
    if (req->park) host_mhd_unpark(req->park); /* else it came before call_device returned */
}

static enum MHD_Result finish_post(host_http_t *http, struct MHD_Connection *c, http_req_t *req);
static enum MHD_Result finish_stateless(host_http_t *http, struct MHD_Connection *c,
                                        http_req_t *req);

/* Runs the body in session fw (env: the body as handle_post read it); the answer is sent at
   once, or once the late answer came. */
static enum MHD_Result call_device(host_http_t *http, struct MHD_Connection *c, http_req_t *req,
                                   fw_session_t *fw, const fw_envelope_t *env)
{
    fw_msg_sink_t out = col_sink(&req->col);
    host_session_t *outer = http->calling;
    http->calling = req->s && fw == &req->s->fw ? req->s : NULL; /* for the watcher */
    req->answer = host_device_session_late(http->host, "http", fw, req->body.data, req->body.len,
                                           env, out, (host_late_t){http_late, req, "http"});
    http->calling = outer;
    if (req->answer == HOST_DEFERRED && !req->answered) { /* the bridge always answers: the
                                                             device's reply or its timeout */
        req->waiting = true;
        req->park = host_mhd_park_new(http->mhd, c, -1);
        host_mhd_park(req->park, 0);
        return MHD_YES;
    }
    return req->stateless ? finish_stateless(http, c, req) : finish_post(http, c, req);
}

/*
 * Runs the body in session s; created: s came with this initialize (not listed yet);
 * requests: the body holds at least one request. The answer: the device's reply (JSON, or SSE
 * when notifications precede it), a call stream when the call asked the client, or 202.
 */
static enum MHD_Result run_post(host_http_t *http, struct MHD_Connection *c, http_req_t *req,
                                const fw_envelope_t *env, host_session_t *s, bool created,
                                bool requests)
{
    req->s = s;
    req->created = created;
    req->requests = requests;
    return call_device(http, c, req, &s->fw, env);
}

/* The answer of run_post's call, once the device gave it. */
static enum MHD_Result finish_post(host_http_t *http, struct MHD_Connection *c, http_req_t *req)
{
    host_session_t *s = req->s;
    bool created = req->created, requests = req->requests;
    collector_t col;
    col_move(&col, &req->col);
    req->s = NULL;
    bool answered = req->answer != HOST_SILENT;
    bool listed = !created || finish_new_session(http, c, s);
    enum MHD_Result rc;
    if (answered && col.count > 0) {
        rc = send_messages(http, c, &col, created && listed ? s->id : NULL);
    } else if (listed && requests && (asks_client(&col) || (!answered && call_waits(http, s)))) {
        /* the call asked the client, or the device holds the request (a 2025-11-25 tasks/result
           until its task ends): the POST's stream stays open for the response */
        rc = open_call_stream(http, c, s, &col);
    } else {
        if (listed) deliver_messages(http, s, &col);
        rc = send_body(http, c, 202, NULL, NULL, 0, NULL);
    }
    /* A call cancelled (or initialize again) waits no more: its stream must not hang on. */
    if (listed && host_session_has_call(&http->sessions, s) && !call_waits(http, s))
        host_session_end_call(&http->sessions, s);
    col_clear(&col);
    if (!req->col.data.data) /* (nothing was collected meanwhile) */
        req->col.data = col.data;
    else
        host_buf_free(&col.data);
    host_session_release(&http->sessions, s);
    return rc;
}

/* ---------------------------------------------------------------- POST, MCP 2026-07-28 */

/*
 * The stateless revision: no session, every request carries its protocol version in
 * params._meta and in the MCP-Protocol-Version header, and its method (and the tool, prompt or
 * resource it names) in Mcp-Method and Mcp-Name, which must agree with the body (-32020,
 * HeaderMismatch). The transport checks what only it sees, the headers, before the device runs
 * the request in a session of its own for that one request (the core checks _meta itself, on
 * every transport). Errors answer with 400 Bad Request, -32601 with 404 Not Found.
 */

/* The header's value without the optional whitespace around it (RFC 9110 5.5), in out. */
static const char *header_trimmed(struct MHD_Connection *c, const char *name, char *out,
                                  size_t cap)
{
    const char *v = header(c, name);
    if (!v) return NULL;
    while (*v == ' ' || *v == '\t') v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
    if (n >= cap) n = cap - 1;
    memcpy(out, v, n);
    out[n] = 0;
    return out;
}

/* What Mcp-Name stands for in a request of method: params.name, .uri or .taskId, or NULL. */
static const char *name_member(const char *method)
{
    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0) return "name";
    if (strcmp(method, "resources/read") == 0) return "uri";
    if (strcmp(method, "tasks/get") == 0 || strcmp(method, "tasks/update") == 0 ||
        strcmp(method, "tasks/cancel") == 0)
        return "taskId"; /* not tasks/result, tasks/list: the revision removed them (-32601) */
    return NULL;
}

/* String token tok of env decoded into out (NUL-terminated); NULL when tok is absent, not a
   string or longer than cap - 1. */
static const char *env_str(const fw_envelope_t *env, int32_t tok, char *out, size_t cap)
{
    if (tok < 0 || env->doc.toks[tok].type != FW_JSON_STRING) return NULL;
    return fw_json_str_decode(&env->doc, (uint32_t)tok, out, cap) >= 0 ? out : NULL;
}

/* Member key of object token obj (-1 when obj is no object or has no such member). */
static int32_t env_member(const fw_envelope_t *env, int32_t obj, const char *key)
{
    if (obj < 0 || env->doc.toks[obj].type != FW_JSON_OBJECT) return -1;
    return (fw_json_obj_get)(&env->doc, (uint32_t)obj, key);
}

/* True when the body asks for the stateless revision: a header naming a version that is not a
   stateful one, or (no header, no session) a _meta protocolVersion. */
static bool wants_stateless(const host_http_t *http, struct MHD_Connection *c,
                            const fw_envelope_t *env)
{
    const char *v = hdr(http, c, H_VERSION);
    if (v) return !fw_mcp_version_supported(v, strlen(v));
    if (hdr(http, c, H_SESSION)) return false;
    char pv[128];
    if (!env_str(env, env->version, pv, sizeof pv)) return false;
    return !fw_mcp_version_supported(pv, strlen(pv));
}

/* The headers against the body; false with e filled (status, code) when they disagree. */
static bool check_stateless(struct MHD_Connection *c, const fw_envelope_t *env, http_err_t *e)
{
    char value[512], trimmed[512], text[512];
    if (env->batch || env->doc.toks[0].type != FW_JSON_OBJECT) {
        fail(e, 400, FW_RPC_INVALID_REQUEST,
             "a request of MCP 2026-07-28 is one JSON-RPC object (no batches)");
        return false;
    }
    const char *version = header_trimmed(c, "MCP-Protocol-Version", value, sizeof value);
    if (!version) {
        fail(e, 400, FW_RPC_HEADER_MISMATCH, "MCP-Protocol-Version header missing");
        return false;
    }
    if (strcmp(version, "2026-07-28") != 0 && env->version < 0) { /* neither stateful nor stateless */
        fail(e, 400, FW_RPC_UNSUPPORTED_VERSION,
             "unsupported MCP-Protocol-Version '%.100s' (this server speaks 2026-07-28, and "
             "2024-11-05 to 2025-11-25 after initialize)",
             version);
        snprintf(e->requested, sizeof e->requested, "%s", version);
        utf8_repair(e->requested);
        return false;
    }
    if (env->meta < 0 || env->doc.toks[env->meta].type != FW_JSON_OBJECT || env->version < 0 ||
        env->caps < 0) {
        fail(e, 400, FW_RPC_INVALID_PARAMS,
             "Invalid params: params._meta must carry io.modelcontextprotocol/protocolVersion "
             "and io.modelcontextprotocol/clientCapabilities");
        return false;
    }
    const char *pv = env_str(env, env->version, text, sizeof text);
    if (!pv || strcmp(pv, version) != 0) {
        fail(e, 400, FW_RPC_HEADER_MISMATCH,
             "MCP-Protocol-Version header '%.100s' does not match _meta's protocolVersion",
             version);
        return false;
    }
    char mbuf[256];
    const char *method = env_str(env, env->method, mbuf, sizeof mbuf);
    if (!method) method = "";
    const char *hm = header_trimmed(c, "Mcp-Method", trimmed, sizeof trimmed);
    if (!hm || strcmp(hm, method) != 0) {
        fail(e, 400, FW_RPC_HEADER_MISMATCH,
             hm ? "Mcp-Method header '%.100s' does not match the body's method '%.100s'"
                : "Mcp-Method header missing (the body's method is '%.100s')",
             hm ? hm : method, method);
        return false;
    }
    const char *key = name_member(method);
    int32_t n = key ? env_member(env, env->params, key) : -1;
    const char *name = env_str(env, n, text, sizeof text);
    bool is_str = n >= 0 && env->doc.toks[n].type == FW_JSON_STRING;
    const char *hn = header_trimmed(c, "Mcp-Name", trimmed, sizeof trimmed);
    if (is_str ? !hn || !name || strcmp(hn, name) != 0 : hn != NULL) {
        fail(e, 400, FW_RPC_HEADER_MISMATCH,
             "Mcp-Name header %s%.100s%s does not match the body's params.%s",
             hn ? "'" : "", hn ? hn : "missing", hn ? "'" : "", key ? key : "name");
        return false;
    }
    return true;
}

/* The HTTP status of a stateless answer (its kind and code, as the device's sink told them):
   404 for an unknown method, 400 for the other errors of the request itself, 200 for results
   and the device's own failures. */
static unsigned stateless_status(fw_msg_kind_t kind, int32_t v)
{
    if (kind != FW_MSG_ERROR) return 200;
    if (v == FW_RPC_METHOD_NOT_FOUND) return 404;
    if (v == FW_RPC_INVALID_PARAMS || v == FW_RPC_INVALID_REQUEST || v == FW_RPC_PARSE_ERROR ||
        v == FW_RPC_HEADER_MISMATCH || v == FW_RPC_MISSING_CLIENT_CAP ||
        v == FW_RPC_UNSUPPORTED_VERSION)
        return 400;
    return 200;
}

/* A refusal of a stateless request: its id is kept, as the body wrote it (the client matches
   errors by it; an id that is no string or number becomes null). */
static enum MHD_Result send_stateless_error(const host_http_t *http, struct MHD_Connection *c,
                                           const fw_envelope_t *env, const http_err_t *e)
{
    char peer[80];
    peer_of(c, peer, sizeof peer);
    host_log(HOST_LOG_INFO, "http: %s POST /mcp -> %u: %s", peer, e->status, e->message);
    const char *id = "null";
    int id_len = 4;
    if (env->id >= 0) {
        const fw_json_tok_t *t = &env->doc.toks[env->id];
        bool str = t->type == FW_JSON_STRING;
        if (str || t->type == FW_JSON_NUMBER) {
            id = env->doc.buf + t->start - (str ? 1 : 0);
            id_len = (int)(t->end - t->start) + (str ? 2 : 0);
        }
    }
    json_t *err = json_pack("{s:i, s:s}", "code", e->code, "message", e->message);
    if (e->code == FW_RPC_UNSUPPORTED_VERSION) /* the versions server/discover lists */
        json_object_set_new(err, "data",
                            json_pack("{s:[s,s,s,s,s], s:s}", "supported", "2026-07-28",
                                      "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
                                      "requested", e->requested));
    char *text = json_dumps(err, JSON_COMPACT);
    json_decref(err);
    host_buf_t body = {0};
    host_buf_append(&body, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
    host_buf_append(&body, id, (size_t)id_len);
    host_buf_append(&body, ",\"error\":", 9);
    host_buf_append(&body, text, strlen(text));
    host_buf_append(&body, "}", 1);
    free(text);
    return send_body(http, c, e->status, "application/json", body.data, body.len, NULL);
}

/* An Mcp-Param-* value: "=?base64?B64?=" is Base64 (canonical: padded to a multiple of 4, the
   standard alphabet, '=' only at the end), anything else the value itself. False when the
   Base64 is malformed. */
static bool param_value(const char *h, char *out, size_t cap)
{
    size_t n = strlen(h);
    if (n < 11 || strncmp(h, "=?base64?", 9) != 0 || strcmp(h + n - 2, "?=") != 0) {
        snprintf(out, cap, "%s", h);
        return true;
    }
    char b64[512];
    size_t len = n - 11;
    if (len % 4 != 0 || len >= sizeof b64) return false;
    memcpy(b64, h + 9, len);
    b64[len] = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = b64[i];
        bool alpha = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                     (ch >= '0' && ch <= '9') || ch == '+' || ch == '/';
        if (!alpha && !(ch == '=' && i >= len - 2 && (i == len - 1 || b64[len - 1] == '=')))
            return false;
    }
    int got = lws_b64_decode_string(b64, out, (int)cap);
    return got >= 0 && (size_t)got < cap;
}

/* SEP-2243's custom headers: a tools/call of a tool whose inputSchema marks a property with
   "x-mcp-header": NAME must carry Mcp-Param-NAME equal to that argument (-32020 otherwise). */
static bool check_custom_headers(host_http_t *http, struct MHD_Connection *c,
                                 const fw_envelope_t *env, http_err_t *e)
{
    char nbuf[256], vbuf[512];
    const char *name = env_str(env, env_member(env, env->params, "name"), nbuf, sizeof nbuf);
    if (env->method < 0 || !(fw_json_str_eq)(&env->doc, (uint32_t)env->method, "tools/call") ||
        name == NULL)
        return true;
    const fw_tool_t *tool = fw_device_find_tool(sim_device(http->host->sim), name);
    const char *schema = tool != NULL && (tool->flags & FW_TOOL_SCHEMA_JSON) ? tool->user : NULL;
    if (schema == NULL) return true; /* only a schema as JSON text can carry x-mcp-header */
    json_t *sj = json_loads(schema, 0, NULL); /* the tool's schema (the device's), not the body */
    int32_t args = env_member(env, env->params, "arguments");
    const char *prop;
    json_t *def;
    bool ok = true;
    json_object_foreach(json_object_get(sj, "properties"), prop, def) {
        const char *suffix = json_string_value(json_object_get(def, "x-mcp-header"));
        if (suffix == NULL) continue;
        char hname[96], trimmed[512], value[512];
        snprintf(hname, sizeof hname, "Mcp-Param-%s", suffix);
        const char *h = header_trimmed(c, hname, trimmed, sizeof trimmed);
        int32_t v = env_member(env, args, prop);
        const char *arg = env_str(env, v, vbuf, sizeof vbuf);
        if (h == NULL) {
            if (v < 0 || env->doc.toks[v].type == FW_JSON_NULL) continue;
            fail(e, 400, FW_RPC_HEADER_MISMATCH, "%.100s header missing (arguments.%.100s is set)",
                 hname, prop);
        } else if (!param_value(h, value, sizeof value)) {
            fail(e, 400, FW_RPC_HEADER_MISMATCH, "%.100s header: malformed Base64", hname);
        } else if (arg == NULL || strcmp(arg, value) != 0) {
            fail(e, 400, FW_RPC_HEADER_MISMATCH,
                 "%.100s header does not match the body's arguments.%.100s", hname, prop);
        } else {
            continue;
        }
        ok = false;
        break;
    }
    json_decref(sj);
    return ok;
}

/*
 * subscriptions/listen (2026-07-28): the core keeps the stream's filter and cursors in a
 * listener slot (fw_device_listen_*); the POST is answered with an SSE stream that starts with
 * the acknowledgement and carries the slot's notifications. The slot is the stream's
 * (fw_device_listen_take). After every call into the device (on_device) each open stream drains
 * its slot, and a stream parked with nothing to send is resumed when that gave it something. It
 * ends when the client closes it (HTTP's cancellation: a POSTed notifications/cancelled comes
 * from no known client and is ignored) or when the server stops; with nothing to say it sends a
 * keep-alive comment every LISTEN_KEEPALIVE_MS.
 */
#define LISTEN_KEEPALIVE_MS 15000

#if FW_WITH_LISTEN
typedef struct listen_stream {
    host_http_t *http;
    int slot;
    bool closed;    /* the slot closed (cancelled) */
    host_buf_t sse; /* events waiting to be read */
    uint64_t last_ms; /* when something was last sent */
    host_mhd_park_t *park;
    struct listen_stream *prev, *next; /* in http->listens */
} listen_stream_t;

static uint64_t now_ms(void)
{
    return uv_hrtime() / 1000000u;
}

static void listen_col_events(host_buf_t *sse, const collector_t *col)
{
    for (size_t i = 0, start = 0; i < col->count; start = col->ends[i++])
        host_sse_event(sse, col->data.data + start, col->ends[i] - start);
}

/* Moves the slot's notifications to the stream's events; true if it has news (or ended). */
static bool listen_pull(listen_stream_t *ls)
{
    if (ls->closed) return true;
    fw_device_t *dev = sim_device(ls->http->host->sim);
    if (!fw_device_listen_open(dev, ls->slot)) {
        ls->closed = true;
        return true;
    }
    collector_t col = {0};
    fw_device_listen_drain(dev, ls->slot, col_sink(&col));
    listen_col_events(&ls->sse, &col);
    bool news = col.count > 0;
    col_clear(&col);
    host_buf_free(&col.data);
    return news;
}

static ssize_t listen_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    listen_stream_t *ls = cls;
    (void)pos;
    if (ls->sse.len == 0) listen_pull(ls);
    if (ls->sse.len == 0) {
        if (ls->closed || host_mhd_park_hung_up(ls->park) || ls->http->sessions.stopping)
            return MHD_CONTENT_READER_END_OF_STREAM;
        uint64_t idle = now_ms() - ls->last_ms;
        if (idle < LISTEN_KEEPALIVE_MS) {
            host_mhd_park(ls->park, LISTEN_KEEPALIVE_MS - idle);
            return 0;
        }
        static const char ping[] = ": keep-alive\n\n";
        host_buf_append(&ls->sse, ping, sizeof ping - 1);
    }
    size_t n = ls->sse.len < max ? ls->sse.len : max;
    memcpy(buf, ls->sse.data, n);
    host_buf_consume(&ls->sse, n);
    ls->last_ms = now_ms();
    return (ssize_t)n;
}

/* After every call into the device: wakes the streams whose slot has something for them. */
static void listen_wake_all(host_http_t *http)
{
    for (listen_stream_t *ls = http->listens; ls; ls = ls->next)
        if (listen_pull(ls)) host_mhd_unpark(ls->park);
}

static void listen_free(void *cls)
{
    listen_stream_t *ls = cls;
    host_http_t *http = ls->http;
    if (ls->prev)
        ls->prev->next = ls->next;
    else if (http->listens == ls)
        http->listens = ls->next;
    if (ls->next) ls->next->prev = ls->prev;
    fw_device_listen_close(sim_device(http->host->sim), ls->slot);
    host_mhd_park_free(ls->park);
    host_buf_free(&ls->sse);
    free(ls);
}

static enum MHD_Result open_listen_stream(host_http_t *http, struct MHD_Connection *c, int slot,
                                          const collector_t *col)
{
    listen_stream_t *ls = calloc(1, sizeof *ls);
    if (!ls) return MHD_NO;
    ls->http = http;
    ls->slot = slot;
    ls->last_ms = now_ms();
    ls->park = host_mhd_park_new(http->mhd, c, socket_of(c));
    ls->next = http->listens;
    if (ls->next) ls->next->prev = ls;
    http->listens = ls;
    listen_col_events(&ls->sse, col);
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, listen_read, ls, listen_free);
    if (!r) {
        listen_free(ls);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-cache");
    return queue(http, c, 200, r);
}

/* The slot the message just handled (in session owner) opened, or -1: the stream owns it. */
static int listen_take_opened(host_http_t *http, const fw_session_t *owner)
{
    return fw_device_listen_take(sim_device(http->host->sim), owner);
}
#else /* a core without listener slots (FW_WITH_LISTEN 0): no listen stream */
struct listen_stream {
    int unused;
};

static void listen_wake_all(host_http_t *http)
{
    (void)http;
}

static int listen_take_opened(host_http_t *http, const fw_session_t *owner)
{
    (void)http;
    (void)owner;
    return -1;
}

static enum MHD_Result open_listen_stream(host_http_t *http, struct MHD_Connection *c, int slot,
                                          const collector_t *col)
{
    (void)http;
    (void)c;
    (void)slot;
    (void)col;
    return MHD_NO;
}
#endif

static bool is_listen(const fw_envelope_t *env)
{
    return env->method >= 0 && env->id >= 0 &&
           (fw_json_str_eq)(&env->doc, (uint32_t)env->method, "subscriptions/listen");
}

/* Runs the body in a session of its own, for this one request (the stateless revision, and a
   body the device cannot read: it answers the error). */
static enum MHD_Result run_alone(host_http_t *http, struct MHD_Connection *c, http_req_t *req,
                                 const fw_envelope_t *env, bool listen)
{
    fw_session_init(&req->none, sim_device(http->host->sim));
    req->stateless = true;
    req->listen = listen;
    return call_device(http, c, req, &req->none, env);
}

static enum MHD_Result stateless_post(host_http_t *http, struct MHD_Connection *c,
                                      http_req_t *req, const fw_envelope_t *env)
{
    http_err_t e;
    err_init(&e);
    if (!check_stateless(c, env, &e) || !check_custom_headers(http, c, env, &e))
        return send_stateless_error(http, c, env, &e);
    return run_alone(http, c, req, env, is_listen(env));
}

/* The answer of stateless_post's call, once the device gave it. */
static enum MHD_Result finish_stateless(host_http_t *http, struct MHD_Connection *c,
                                        http_req_t *req)
{
    collector_t *col = &req->col;
    host_answer_t a = req->answer;
    enum MHD_Result rc;
    int slot = -1;
    if (req->listen) /* the slot the listen request opened, if it did */
        slot = listen_take_opened(http, &req->none);
    if (slot >= 0 && a == HOST_SILENT) {
        rc = open_listen_stream(http, c, slot, col);
    } else if (a == HOST_SILENT || col->count == 0) {
        rc = send_body(http, c, 202, NULL, NULL, 0, NULL);
    } else if (col->count == 1) {
        size_t len = col->ends[0];
        unsigned status = stateless_status((fw_msg_kind_t)col->kinds[0], col->codes[0]);
        if (req->unreadable) /* 400 for what is no JSON; a body over the device's limits is
                                HTTP's business no more than any other answer of the device */
            status = col->codes[0] == FW_RPC_PARSE_ERROR ? 400 : 200;
        rc = send_copy(http, c, status, "application/json", col->data.data, len, NULL);
    } else {
        rc = send_messages(http, c, col, NULL); /* notifications, then the response: SSE */
    }
    col_clear(col);
    return rc;
}

static enum MHD_Result handle_post(host_http_t *http, struct MHD_Connection *c, http_req_t *req)
{
    http_err_t e;
    err_init(&e);
    if (req->too_large) {
        fail(&e, 413, FW_RPC_TRANSPORT_ERROR, "request body over the limit of %u bytes",
             HOST_HTTP_BODY_MAX);
        return send_error(http, c, "POST", "/mcp", &e);
    }
    if (req->over_budget) {
        fail(&e, 503, FW_RPC_TRANSPORT_ERROR,
             "request body refused for now: the server holds too much unfinished input "
             "(input budget); retry later");
        e.retry_after = true;
        return send_error(http, c, "POST", "/mcp", &e);
    }
    /* the envelope, read as the device reads it (the core's reader and limits): the same bytes
       get the same verdict on every transport */
    fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    fw_envelope_t env;
    if (fw_envelope_read(&env, req->body.data ? req->body.data : "", req->body.len, toks,
                         FW_JSON_TOKENS_MAX) != FW_OK) {
        req->unreadable = true; /* the device answers why (400 for a parse error) */
        return run_alone(http, c, req, &env, false);
    }
    if (wants_stateless(http, c, &env)) return stateless_post(http, c, req, &env);
    bool init = is_initialize(&env), requests = env.requests;
    bool created = init && !hdr(http, c, H_SESSION);
    host_session_t *s = created ? new_session(http, c, &e) : find_session(http, c, &e);
    if (!s) return send_error(http, c, "POST", "/mcp", &e);
    return run_post(http, c, req, &env, s, created, requests);
}

/* Collects the body as it arrives (counted in the input budget until the request ends);
   beyond the limit it is dropped and the answer is 413, beyond the budget 503. */
static void receive(host_http_t *http, http_req_t *req, const char *data, size_t len)
{
    if (req->too_large || req->over_budget) return;
    bool over = req->body.len + len > HOST_HTTP_BODY_MAX;
    if (over || !host_in_take(http->host, req->body.len, len)) {
        if (over) {
            req->too_large = true;
        } else {
            req->over_budget = true;
            host_log(HOST_LOG_WARN,
                     "http: a request body goes over the input budget (unfinished messages "
                     "hold %zu of %zu bytes): refused with 503",
                     http->host->in_total, http->host->in_budget);
        }
        host_in_release(http->host, req->body.len);
        host_buf_free(&req->body);
        return;
    }
    if (!req->body.data) host_buf_swap(&req->body, &req->kept);
    host_buf_append(&req->body, data, len);
}

/* ---------------------------------------------------------------- GET and DELETE */

/* GET: the session's stream of server-initiated messages (one per session at a time). */
static enum MHD_Result open_stream(host_http_t *http, struct MHD_Connection *c)
{
    http_err_t e;
    err_init(&e);
    if (!host_http_accepts(hdr(http, c, H_ACCEPT), "text/event-stream")) {
        fail(&e, 406, FW_RPC_TRANSPORT_ERROR,
             "Accept must list text/event-stream for the GET stream");
        return send_error(http, c, "GET", "/mcp", &e);
    }
    host_session_t *s = check_version(http, c, &e) ? find_session(http, c, &e) : NULL;
    if (!s) return send_error(http, c, "GET", "/mcp", &e);
    host_stream_t *st = host_stream_open(&http->sessions, s, socket_of(c));
    host_session_release(&http->sessions, s); /* the stream holds its own reference */
    if (!st) {
        fail(&e, 409, FW_RPC_TRANSPORT_ERROR, "this session already has an open GET stream");
        return send_error(http, c, "GET", "/mcp", &e);
    }
    return send_stream(http, c, st);
}

/* DELETE: ends the session; its GET stream ends after what is queued. */
static enum MHD_Result end_session(host_http_t *http, struct MHD_Connection *c)
{
    http_err_t e;
    err_init(&e);
    host_session_t *s = check_version(http, c, &e) ? find_session(http, c, &e) : NULL;
    if (!s) return send_error(http, c, "DELETE", "/mcp", &e);
    char tag[16];
    host_session_tag(s, tag);
    if (host_sessions_end(&http->sessions, s))
        host_log(HOST_LOG_INFO, "http: session %s ended by DELETE", tag);
    host_session_release(&http->sessions, s);
    return send_body(http, c, 204, NULL, NULL, 0, NULL);
}

/* ---------------------------------------------------------------- libmicrohttpd callbacks */

/* A zeroed request state: a spare one (its body buffer kept, empty) or a new one. */
static http_req_t *req_new(host_http_t *http)
{
    http_req_t *req = http->spare;
    if (!req) {
        req = calloc(1, sizeof *req);
        if (!req) abort();
        return req;
    }
    http->spare = req->next_spare;
    http->spare_count--;
    host_buf_t kept = req->body, out = req->col.data;
    memset(req, 0, sizeof *req);
    req->kept = kept;
    req->col.data = out;
    return req;
}

/* Lets go of a finished request's state (what it held is freed already): kept as a spare, or
   freed. */
static void req_free(host_http_t *http, http_req_t *req)
{
    if (!req->body.data) host_buf_swap(&req->body, &req->kept); /* no body, or it was dropped */
    if (http->spare_count == SPARE_REQS || req->body.cap > SPARE_BODY_MAX) {
        host_buf_free(&req->body);
        host_buf_free(&req->col.data);
        free(req);
        return;
    }
    req->body.len = 0;
    req->next_spare = http->spare;
    http->spare = req;
    http->spare_count++;
}

/* First call of a request (headers only): checks, then GET and DELETE are answered, a POST
   gets its state to collect the body. */
static enum MHD_Result first_call(host_http_t *http, struct MHD_Connection *c, const char *url,
                                  const char *method, void **con_cls)
{
    http_err_t e;
    err_init(&e);
    if (!check_common(http, c, url, &e)) return send_error(http, c, method, url, &e);
    bool post = strcmp(method, "POST") == 0; /* most requests: the others are not compared */
    if (!post && strcmp(method, "OPTIONS") == 0 && hdr(http, c, H_ORIGIN) && hdr(http, c, H_ACRM))
        return preflight(http, c);
    if (!check_auth(http, c, &e)) return send_error(http, c, method, url, &e);
    if (!post && strcmp(method, "GET") == 0) return open_stream(http, c);
    if (!post && strcmp(method, "DELETE") == 0) return end_session(http, c);
    if (!post) {
        fail(&e, 405, FW_RPC_TRANSPORT_ERROR,
             "method %.20s not allowed on /mcp: use POST, GET or DELETE", method);
        e.allow = "GET, POST, DELETE";
        return send_error(http, c, method, url, &e);
    }
    if (!check_post_headers(http, c, &e)) return send_error(http, c, method, url, &e);
    http_req_t *req = req_new(http);
    if (http->hdrs && http->hdrs_conn == c) /* the request's later calls read these */
        req->hdrs = *http->hdrs;
    else
        hdrs_read(c, &req->hdrs);
    *con_cls = req;
    http_guard_headers_done(c, true); /* the body must follow in time */
    return MHD_YES;
}

static enum MHD_Result serve(host_http_t *http, struct MHD_Connection *c, const char *url,
                             const char *method, const char *upload, size_t *upload_size,
                             void **con_cls)
{
    void *cls = http;
    http_req_t *req = *con_cls;
    if (!req) {
        enum MHD_Result rc = first_call(cls, c, url, method, con_cls);
        if (!*con_cls) http_guard_headers_done(c, false); /* answered: no body to wait for */
        return rc;
    }
    if (req->waiting) { /* resumed: the late answer came (or the server stops) */
        if (!req->answered) {
            host_mhd_park(req->park, 0);
            return MHD_YES;
        }
        req->waiting = false;
        return req->stateless ? finish_stateless(cls, c, req) : finish_post(cls, c, req);
    }
    if (*upload_size > 0) {
        receive(cls, req, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    http_guard_body_done(c);
    return handle_post(cls, c, req);
}

/* Every call of libmicrohttpd for a request: the first (headers only) reads the headers the
   transport looks at in one pass; a POST keeps them for its later calls. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    host_http_t *http = cls;
    http_req_t *req = *con_cls;
    const req_hdrs_t *outer = http->hdrs;
    struct MHD_Connection *outer_c = http->hdrs_conn;
    req_hdrs_t first;
    if (req) {
        http->hdrs = &req->hdrs;
    } else {
        hdrs_read(c, &first);
        http->hdrs = &first;
    }
    http->hdrs_conn = c;
    enum MHD_Result rc = serve(http, c, url, method, upload, upload_size, con_cls);
    http->hdrs = outer;
    http->hdrs_conn = outer_c;
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    host_http_t *http = cls;
    (void)toe;
    http_guard_request_done(c);
    http_req_t *req = *con_cls;
    if (!req) return;
    if (req->waiting && !req->answered) host_device_forget(http->host, req);
    if (req->s) host_session_release(&http->sessions, req->s);
    host_mhd_park_free(req->park);
    col_clear(&req->col);
    host_in_release(http->host, req->body.len);
    req_free(http, req);
    *con_cls = NULL;
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    host_http_t *http = cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    if (http && http_guard_log(http->guard, msg)) return; /* refusals: summarised each second */
    /* A client that goes away mid-answer is routine, not something to warn about. */
    bool routine = strstr(msg, "Failed to send") || strstr(msg, "Failed to receive") ||
                   strstr(msg, "no longer available") || strstr(msg, "reset by remote");
    host_log(routine ? HOST_LOG_DEBUG : HOST_LOG_WARN, "http: libmicrohttpd: %s", msg);
}

/* ---------------------------------------------------------------- the server */

static void format_url(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        snprintf(out, cap, "http://[%s]:%u/mcp", ip, (unsigned)ntohs(a->sin6_port));
    } else {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, cap, "http://%s:%u/mcp", ip, (unsigned)ntohs(a->sin_port));
    }
}

static bool is_loopback_bind(const char *host)
{
    return strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0 ||
           strcmp(host, "localhost") == 0;
}

/* A listening socket on the first address ep resolves to; -1 with the reason in err. */
static int listen_on(const host_endpoint_t *ep, char *url, size_t cap, char *err, size_t ecap)
{
    struct addrinfo *res = host_resolve_passive(ep, err, ecap);
    if (res == NULL) return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
        snprintf(err, ecap, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    format_url(&ss, url, cap);
    return fd;
}

/* A session left the table (DELETE, expiry, eviction, shutdown): the device forgets what it
   held for it (a 2025-11-25 tasks/result waiting for its task), so no later session at the
   same address receives it. */
static void session_unlisted(void *ctx, const fw_session_t *fw)
{
    host_device_release(ctx, fw);
}

/* host_device_drain in the shape host_sessions_drain_with wants. */
static size_t host_drain(void *h, fw_session_t *session, fw_msg_sink_t out)
{
    return host_device_drain(h, session, out);
}

/* The watcher (host_device_watch): after every call into the device, on the loop thread:
   moves every session's notifications to its GET stream and every listen slot's to its stream,
   and wakes the streams that got something. Told "not all", only the session whose POST the
   call handled can have something (a listen slot has no session of its own: nothing new). */
static void on_device(void *ctx, bool all)
{
    host_http_t *http = ctx;
    if (!all) {
        if (http->calling)
            host_session_drain_with(&http->sessions, http->calling, host_drain, http->host);
        return;
    }
    host_sessions_drain_with(&http->sessions, host_drain, http->host);
    listen_wake_all(http);
}

static struct MHD_Daemon *start_daemon(host_http_t *http, int fd)
{
    return MHD_start_daemon(HOST_MHD_FLAGS, 0, NULL, NULL, on_request, http, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log,
                            http, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
                            on_completed, http, MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify,
                            http->guard, MHD_OPTION_CONNECTION_LIMIT, http_guard_conn_limit(),
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                            http_guard_per_address(http->guard), MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)CONN_TIMEOUT_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                            http->conn_memory, MHD_OPTION_END);
}

host_http_t *host_http_open(host_t *h, const host_options_t *o, char *url, size_t cap)
{
    char err[256];
    int fd = listen_on(&o->http, url, cap, err, sizeof err);
    if (fd < 0) {
        host_log(HOST_LOG_ERROR, "http: cannot listen on %s:%u: %s", o->http.host,
                 (unsigned)o->http.port, err);
        return NULL;
    }
    host_http_t *http = calloc(1, sizeof *http);
    if (!http) abort();
    http->host = h;
    http->allow_hosts = o->allow_hosts;
    http->allow_host_count = o->allow_host_count;
    http->allow_origins = o->allow_origins;
    http->allow_origin_count = o->allow_origin_count;
    http->auth_token = o->auth_token;
    http->idle_timeout_s = o->http_idle_timeout_s;
    http->conn_memory = (size_t)o->http_conn_memory_kib << 10;
    host_sessions_init(&http->sessions, o->http_max_sessions,
                       (uint64_t)o->http_idle_timeout_s * 1000u);
    if (o->http_sessions_per_client) http->sessions.per_client = o->http_sessions_per_client;
    http->sessions.on_unlist = session_unlisted;
    http->sessions.on_unlist_ctx = h;
    http->guard = http_guard_open(h, http_guard_conn_limit(), o->http_per_address, CONN_TIMEOUT_S);
    if (host_device_watch(h, on_device, http) != 0) {
        host_log(HOST_LOG_ERROR, "http: too many transports watch the device");
    } else if (!(http->daemon = start_daemon(http, fd))) {
        host_log(HOST_LOG_ERROR, "http: cannot start libmicrohttpd on %s", url);
        host_device_unwatch(h, on_device, http);
    } else if (!(http->mhd = host_mhd_start(&h->loop, http->daemon, "http"))) {
        MHD_stop_daemon(http->daemon);
        http->daemon = NULL;
        host_device_unwatch(h, on_device, http);
    }
    if (!http->daemon) {
        close(fd);
        http_guard_close(http->guard);
        host_sessions_destroy(&http->sessions);
        free(http);
        return NULL;
    }
    host_log(HOST_LOG_INFO,
             "http: MCP Streamable HTTP at %s (%u sessions at most, %u s idle "
             "timeout, %u connections, %u per address, %zu KiB each%s)",
             url, o->http_max_sessions, o->http_idle_timeout_s, http_guard_conn_limit(),
             http_guard_per_address(http->guard), http->conn_memory >> 10,
             o->auth_token ? ", bearer token required" : "");
    if (!is_loopback_bind(o->http.host) && o->allow_host_count == 0)
        host_log(HOST_LOG_WARN,
                 "http: listening on %s, but only requests with Host localhost, 127.0.0.1 or "
                 "[::1] are served: name the others with --allow-host",
                 o->http.host);
    return http;
}

void host_http_close(host_http_t *http)
{
    host_sessions_stop(&http->sessions); /* wakes every stream: they end */
    host_mhd_stop(http->mhd); /* resumes what is parked, closes every connection */
    while (http->spare) { /* after the requests' last on_completed */
        http_req_t *req = http->spare;
        http->spare = req->next_spare;
        host_buf_free(&req->body);
        host_buf_free(&req->col.data);
        free(req);
    }
    while (http->blocks) { /* after the last response went (body_back) */
        body_block_t *b = http->blocks;
        http->blocks = b->next;
        free(b);
    }
    http_guard_close(http->guard);
    host_device_unwatch(http->host, on_device, http);
    host_sessions_destroy(&http->sessions);
    free(http);
}
