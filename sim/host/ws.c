/* ws.c: WebSocket on the host's libuv loop: the libwebsockets context, the /mcp server with its
   upgrade checks, and the push of device notifications to every connection. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http_check.h"
#include "http_guard.h"
#include "log.h"
#include "ws_internal.h"

#define WS_PATH "/mcp"

/* ---------------------------------------------------------------- notifications */

/* Loop thread: every connection gets what its session has not seen. */
static void drain_all(host_ws_t *ws)
{
    for (ws_conn_t *c = ws->conns; c; c = c->next) ws_conn_drain(c, ws->h);
}

/* The watcher (host_device_watch): after every call into the device (loop thread): every
   connection, or only the one whose message the call handled (when it was one of ours). */
static void on_device(void *ctx, bool all)
{
    host_ws_t *ws = ctx;
    if (ws->stopping) return;
    if (all)
        drain_all(ws);
    else if (ws->calling)
        ws_conn_drain(ws->calling, ws->h);
}

/* ---------------------------------------------------------------- upgrade checks */

/* Answers a plain HTTP request (or a refused upgrade) with status and a text body. */
static int http_reply(struct lws *wsi, unsigned status, const char *body, bool auth)
{
    static const char challenge[] = "Bearer realm=\"mcpsim\"";
    unsigned char buf[LWS_PRE + 1024];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    size_t n = strlen(body);
    if (n > sizeof buf - LWS_PRE - 1) n = sizeof buf - LWS_PRE - 1;
    if (lws_add_http_common_headers(wsi, status, "text/plain", n, &p, end) ||
        (auth && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_WWW_AUTHENTICATE,
                                              (const unsigned char *)challenge,
                                              (int)sizeof challenge - 1, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    memcpy(start, body, n);
    if (lws_write(wsi, start, n, LWS_WRITE_HTTP_FINAL) != (int)n) return -1;
    return 1;
}

static int refuse_upgrade(struct lws *wsi, unsigned status, const char *why, bool auth)
{
    char peer[64] = "?", body[600];
    lws_get_peer_simple(wsi, peer, sizeof peer);
    host_log(HOST_LOG_WARN, "ws: %s: upgrade refused (%u): %s", peer, status, why);
    snprintf(body, sizeof body, "%s\n", why);
    return http_reply(wsi, status, body, auth);
}

/* A Sec-WebSocket-Protocol list, if the client sent one, must offer "mcp". */
static bool subprotocol_ok(struct lws *wsi)
{
    char list[512];
    int n = lws_hdr_copy(wsi, list, sizeof list, WSI_TOKEN_PROTOCOL);
    if (n == 0) return true;
    for (char *save = NULL, *p = n > 0 ? strtok_r(list, ", \t", &save) : NULL; p;
         p = strtok_r(NULL, ", \t", &save))
        if (strcmp(p, "mcp") == 0) return true;
    return false;
}

/* Past the listener's limit an upgrade gets 503; the refusals are logged once a second at most,
   with their count. */
static int refuse_over_limit(host_ws_t *ws, struct lws *wsi)
{
    unsigned n = host_refusal(ws->h, &ws->refused);
    if (n) {
        char peer[64] = "?";
        lws_get_peer_simple(wsi, peer, sizeof peer);
        host_log(HOST_LOG_WARN,
                 "ws: refused %u upgrade%s past the limit of %u connections open at once (the "
                 "latest from %s): close idle clients",
                 n, n == 1 ? "" : "s", ws->limit, peer);
    }
    return http_reply(wsi, 503, "too many WebSocket connections open: try again later\n", false);
}

/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: the path, Host, Origin and token, before any frame.
   0 lets the upgrade proceed; 1 means refused with an HTTP answer. */
static int check_upgrade(host_ws_t *ws, struct lws *wsi)
{
    char path[512] = "", host[512] = "", origin[512] = "", why[700];
    lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI);
    if (strcmp(path, WS_PATH) != 0) {
        snprintf(why, sizeof why, "no WebSocket endpoint at %s: connect to %s", path, WS_PATH);
        return refuse_upgrade(wsi, 404, why, false);
    }
    if (!subprotocol_ok(wsi)) {
        return refuse_upgrade(
            wsi, 400, "unsupported WebSocket subprotocol: ask for 'mcp' or for none", false);
    }
    char second[512];
    if (lws_hdr_copy_fragment(wsi, second, sizeof second, WSI_TOKEN_HOST, 1) >= 0)
        return refuse_upgrade(wsi, 400, "two Host headers: a request has exactly one", false);
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0 ||
        !host_http_host_allowed(host, ws->cfg.allow_hosts, ws->cfg.allow_host_count)) {
        snprintf(why, sizeof why,
                 "Host '%s' is not allowed (DNS rebinding protection): use localhost, or allow "
                 "it with --allow-host",
                 host);
        return refuse_upgrade(wsi, 403, why, false);
    }
    int olen = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN); /* -1: too long */
    if (olen < 0 || (olen > 0 && !host_http_origin_allowed(origin, ws->cfg.allow_origins,
                                                           ws->cfg.allow_origin_count))) {
        snprintf(why, sizeof why,
                 "Origin '%s' is not allowed: only local pages may connect unless "
                 "--allow-origin says otherwise",
                 origin);
        return refuse_upgrade(wsi, 403, why, false);
    }
    if (ws->live >= ws->limit) return refuse_over_limit(ws, wsi);
    if (!ws->cfg.auth_token) return 0;
    /* The header's own length: a long token works as it does on --http. */
    int alen = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    char *auth = alen > 0 ? malloc((size_t)alen + 1) : NULL;
    bool ok = auth && lws_hdr_copy(wsi, auth, alen + 1, WSI_TOKEN_HTTP_AUTHORIZATION) > 0 &&
              host_http_bearer_ok(auth, ws->cfg.auth_token);
    free(auth);
    if (!ok)
        return refuse_upgrade(wsi, 401,
                              "missing or wrong bearer token: send 'Authorization: Bearer "
                              "<token>' (--auth-token)",
                              true);
    return 0;
}

/* A request without an upgrade: this port speaks only WebSocket. */
static int plain_http(struct lws *wsi, const char *uri)
{
    bool ours = uri && strcmp(uri, WS_PATH) == 0;
    int rc = http_reply(wsi, ours ? 426 : 404,
                        ours ? "this endpoint speaks WebSocket: open ws://HOST:PORT/mcp\n"
                             : "not found: the WebSocket endpoint is /mcp\n",
                        false);
    if (rc < 0) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* ---------------------------------------------------------------- the server protocol */

static int server_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                     size_t len)
{
    host_ws_t *ws = lws_context_user(lws_get_context(wsi));
    ws_conn_t *c = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return check_upgrade(ws, wsi);
    case LWS_CALLBACK_HTTP:
        return plain_http(wsi, in);
    case LWS_CALLBACK_ESTABLISHED:
        ws->live++;
        ws_conn_open(c, ws, wsi, "ws", false);
        host_log(HOST_LOG_INFO, "ws: %s connected", c->peer);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return ws_conn_receive(c, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return ws_conn_writable(c);
    case LWS_CALLBACK_CLOSED:
        if (c && c->open) {
            host_log(HOST_LOG_INFO, "ws: %s disconnected", c->peer);
            ws->live--;
        }
        if (c) ws_conn_close(c);
        return 0;
    default:
        return 0;
    }
}

/* The client's subprotocol may be "mcp" (the MCP SDKs ask for it) or none at all. */
static const struct lws_protocols server_protocols[] = {
    {"mcp", server_cb, sizeof(ws_conn_t), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---------------------------------------------------------------- setup */

/* libwebsockets' own log lines go to ours: its errors as warnings, the rest at debug. */
static void lws_log_line(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    host_log(level == LLL_ERR ? HOST_LOG_WARN : HOST_LOG_DEBUG, "lws: %.*s", (int)n, line);
}

static int create_context(host_ws_t *ws)
{
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    lws_set_log_level(host_log_enabled(HOST_LOG_DEBUG) ? LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR,
                      lws_log_line);
    ws->loops[0] = &ws->h->loop;
    /* text is checked for UTF-8 by ws_conn_receive, not by lws (LWS_SERVER_OPTION_VALIDATE_UTF8
       fails correct clients: ws_conn.c, utf8_feed) */
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.foreign_loops = ws->loops; /* one loop: the host's, so lws and the device share a thread */
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.user = ws;
    ws->ctx = lws_create_context(&info);
    if (!ws->ctx) host_log(HOST_LOG_ERROR, "ws: cannot create the libwebsockets context");
    return ws->ctx ? 0 : -1;
}

/* lws binds to numeric addresses only: resolves HOST (a name such as localhost, or a literal)
   to the numeric form. */
static int numeric_host(const char *host, char *out, size_t cap, bool *v6)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0) {
        host_log(HOST_LOG_ERROR, "ws: cannot resolve '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    *v6 = res->ai_family == AF_INET6;
    rc = getnameinfo(res->ai_addr, res->ai_addrlen, out, (socklen_t)cap, NULL, 0, NI_NUMERICHOST);
    freeaddrinfo(res);
    return rc == 0 ? 0 : -1;
}

static int open_server(host_ws_t *ws, char *url, size_t cap)
{
    const host_endpoint_t *ep = &ws->cfg.listen;
    char numeric[256];
    bool v6 = false;
    if (numeric_host(ep->host, numeric, sizeof numeric, &v6) != 0) return -1;
    struct lws_context_creation_info vi;
    memset(&vi, 0, sizeof vi);
    vi.port = ep->port;
    vi.iface = numeric;
    vi.protocols = server_protocols;
    vi.vhost_name = "mcpsim-ws";
    vi.options = v6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6;
    ws->server = lws_create_vhost(ws->ctx, &vi);
    if (!ws->server) {
        host_log(HOST_LOG_ERROR, "ws: cannot listen on %s:%u (address in use or not available)",
                 ep->host, (unsigned)ep->port);
        return -1;
    }
    ws->port = lws_get_vhost_listen_port(ws->server);
    snprintf(ws->bound, sizeof ws->bound, v6 ? "[%s]" : "%s", numeric);
    snprintf(url, cap, "ws://%s:%d%s", ws->bound, ws->port, WS_PATH);
    host_log(HOST_LOG_DEBUG, "ws: listening on %s", url);
    bool loopback = strncmp(numeric, "127.", 4) == 0 || strcmp(numeric, "::1") == 0;
    if (!loopback && ws->cfg.allow_host_count == 0)
        host_log(HOST_LOG_WARN,
                 "ws: listening on %s without --allow-host: upgrades from other machines will be "
                 "refused (their Host is not localhost)",
                 ws->bound);
    return 0;
}

static int open_client_vhost(host_ws_t *ws)
{
    struct lws_context_creation_info vi;
    memset(&vi, 0, sizeof vi);
    vi.port = CONTEXT_PORT_NO_LISTEN;
    vi.protocols = ws_link_protocols();
    vi.vhost_name = "mcpsim-connect";
    ws->client = lws_create_vhost(ws->ctx, &vi);
    if (!ws->client) host_log(HOST_LOG_ERROR, "connect: cannot create the client vhost");
    return ws->client ? 0 : -1;
}

int host_ws_open(host_t *h, const host_ws_config_t *cfg, char *url, size_t cap)
{
    host_ws_t *ws = calloc(1, sizeof *ws);
    if (!ws) abort();
    ws->h = h;
    ws->cfg = *cfg;
    ws->limit = http_guard_conn_limit(); /* as for HTTP: half the open-files limit, at most 2048 */
    h->ws = ws; /* from here on host_stop/host_close take it down, whatever fails */
    if (url && cap) url[0] = 0;
    if (create_context(ws) != 0) return -1;
    if (cfg->listen.enabled && open_server(ws, url, cap) != 0) return -1;
    if (cfg->connect && (open_client_vhost(ws) != 0 || ws_link_start(ws) != 0)) return -1;
    return host_device_watch(h, on_device, ws);
}

void host_ws_stop(host_ws_t *ws)
{
    if (ws->stopping) return;
    ws->stopping = true;
    if (ws->link) ws_link_stop(ws->link);
    /* On a foreign loop this only starts: lws closes its handles through the loop. */
    if (ws->ctx) lws_context_destroy(ws->ctx);
}

void host_ws_free(host_ws_t *ws)
{
    if (!ws) return;
    /* The second call, once the loop ran the close callbacks, frees the context itself. */
    if (ws->ctx) lws_context_destroy(ws->ctx);
    if (ws->link) ws_link_free(ws->link);
    free(ws);
}
