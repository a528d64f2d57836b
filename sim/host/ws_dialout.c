/* ws_dialout.c: the dial-out link (--connect): the device connects to a backend, says hello,
   serves MCP envelopes, and reconnects with exponential backoff when the backend goes away. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dialout.h"
#include "log.h"
#include "ws_internal.h"

/* The device's transport hello (seed 003): no session_id until the backend assigns one. */
static const char hello[] =
    "{\"type\":\"hello\",\"version\":1,\"features\":{\"mcp\":true},\"transport\":\"websocket\"}";

/*
 * States: idle (the retry timer runs) -> connecting (an attempt in lws's hands, conn not open)
 * -> connected (conn open) -> closed or failed -> idle again, until stopped. One attempt at a
 * time: the timer starts only when an attempt has ended.
 */
struct ws_link {
    ws_conn_t conn; /* the connection's MCP state while connected */
    host_ws_t *ws;
    host_t *h;        /* the device it serves: ws->h, or a fleet's (host_ws_dial) */
    ws_link_t *next;  /* the next link of ws (a fleet's devices), or NULL */
    const char *text; /* the URL (templated for the link's device) */
    char *owned_text; /* text when templated (malloc'd), else NULL */
    char *device_id;  /* the Device-Id header's value (malloc'd), or NULL: none sent */
    char **headers;   /* --connect-header values, {n} templated (malloc'd), cfg.header_count */
    host_link_stats_t stats;
    uint64_t fleet_start_ns; /* uv_hrtime() the first connection is timed from */
    bool watching;           /* a watcher on h drains the connection (h != ws->h) */
    host_ws_url_t url;
    char host_header[300];
    uv_timer_t retry;
    unsigned attempt;  /* attempts since the last established connection */
    uint32_t delay_ms; /* wait before the next attempt */
    int close_code;    /* the backend's close code, 0 when none came */
    bool stopping;
};

/* ---------------------------------------------------------------- the URL */

static int parse_port(const char *s, size_t n, uint16_t *port)
{
    unsigned long v = 0;
    if (n == 0 || n > 5) return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v == 0 || v > 65535) return -1;
    *port = (uint16_t)v;
    return 0;
}

/* Splits "HOST[:PORT]" (HOST may be "[v6]") off the front of s; returns its length or -1. */
static int parse_authority(const char *s, host_ws_url_t *out)
{
    size_t n = strcspn(s, "/?#"), hlen;
    const char *host = s, *port = NULL;
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) return -1;
        host = s + 1;
        hlen = (size_t)(close - host);
        if (close + 1 < s + n) {
            if (close[1] != ':') return -1;
            port = close + 2;
        }
    } else {
        const char *colon = memchr(s, ':', n);
        hlen = colon ? (size_t)(colon - s) : n;
        if (colon) port = colon + 1;
    }
    if (hlen == 0 || hlen >= sizeof out->host) return -1;
    memcpy(out->host, host, hlen);
    out->host[hlen] = 0;
    out->port = 80;
    if (port && parse_port(port, (size_t)(s + n - port), &out->port) != 0) return -1;
    return (int)n;
}

int host_ws_url_parse(const char *url, host_ws_url_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    for (const char *p = url; *p; p++) {
        if ((unsigned char)*p <= ' ' || *p == 0x7f) {
            snprintf(err, cap, "--connect '%s': the URL contains a space or control character",
                     url);
            return -1;
        }
    }
    if (strncasecmp(url, "wss://", 6) == 0) {
        snprintf(err, cap,
                 "--connect '%s': wss:// (TLS) is not supported; use ws://, or reach a TLS "
                 "backend through a local proxy (e.g. socat or stunnel)",
                 url);
        return -1;
    }
    int n = strncasecmp(url, "ws://", 5) == 0 ? parse_authority(url + 5, out) : -1;
    const char *path = n >= 0 ? url + 5 + n : "";
    if (n < 0 || strchr(url, '#') || strlen(path) + 2 > sizeof out->path) {
        snprintf(err, cap, "--connect '%s': expected ws://HOST[:PORT][/PATH] (a port 1-65535)",
                 url);
        return -1;
    }
    snprintf(out->path, sizeof out->path, "%s%s", *path == '/' ? "" : "/", path);
    return 0;
}

int host_ws_header_check(const char *header, char *err, size_t cap)
{
    size_t name = strspn(header, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (name == 0 || header[name] != ':' || strpbrk(header, "\r\n")) {
        snprintf(err, cap, "--connect-header '%s': expected 'Name: value' on one line", header);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- attempts and backoff */

static void connect_now(ws_link_t *link);

/* A fleet's links log their comings and goings at debug level (the fleet sums them up). */
static host_log_level_t link_level(const ws_link_t *link)
{
    return link->next || link != link->ws->link ? HOST_LOG_DEBUG : HOST_LOG_INFO;
}

static void on_retry(uv_timer_t *t)
{
    connect_now(t->data);
}

/* Schedules the next attempt (once: a failure may be reported more than one way). */
static void schedule_retry(ws_link_t *link, const char *why)
{
    if (link->stopping || link->ws->stopping || uv_is_active((uv_handle_t *)&link->retry)) return;
    host_log(link_level(link), "connect: %s: %s; next attempt in %.1f s", link->text, why,
             link->delay_ms / 1000.0);
    uv_timer_start(&link->retry, on_retry, link->delay_ms, 0);
    link->delay_ms =
        link->delay_ms * 2 > HOST_WS_RETRY_MAX_MS ? HOST_WS_RETRY_MAX_MS : link->delay_ms * 2;
}

static void connect_now(ws_link_t *link)
{
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    link->attempt++;
    link->stats.attempts++;
    link->close_code = 0;
    host_log(link_level(link), "connect: %s: connecting (attempt %u)", link->text, link->attempt);
    ci.context = link->ws->ctx;
    ci.vhost = link->ws->client;
    ci.address = link->url.host;
    ci.port = link->url.port;
    ci.path = link->url.path;
    ci.host = link->host_header;
    ci.opaque_user_data = link;
    ci.local_protocol_name = ws_link_protocols()[0].name;
    if (!lws_client_connect_via_info(&ci))
        schedule_retry(link, "the connection could not be started");
}

/* ---------------------------------------------------------------- the client protocol */

static void established(ws_link_t *link, struct lws *wsi)
{
    link->attempt = 0;
    link->delay_ms = HOST_WS_RETRY_MIN_MS;
    ws_conn_open_device(&link->conn, link->ws, link->h, wsi, "connect", true);
    host_log(link_level(link), "connect: %s: connected to %s; hello sent", link->text,
             link->conn.peer);
    ws_conn_send(&link->conn, hello, sizeof hello - 1);
    if (link->stats.established++ == 0)
        link->stats.first_connect_s = (uv_hrtime() - link->fleet_start_ns) / 1e9;
    link->stats.connected = true;
}

/* Adds the closing connection's message counts to the link's. */
static void count_closed(ws_link_t *link)
{
    if (!link->conn.open) return;
    link->stats.msgs_in += link->conn.msgs_in;
    link->stats.msgs_out += link->conn.msgs_out;
    link->stats.drops++;
    link->stats.connected = false;
}

static void closed(ws_link_t *link)
{
    char why[80] = "the backend closed the connection";
    if (link->close_code)
        snprintf(why, sizeof why, "the backend closed the connection (%d)", link->close_code);
    else if (!link->conn.open)
        snprintf(why, sizeof why, "the connection closed before the upgrade");
    if (!link->conn.open) link->stats.failures++;
    count_closed(link);
    ws_conn_close(&link->conn);
    schedule_retry(link, why);
}

static void connection_error(ws_link_t *link, struct lws *wsi, const char *in, size_t len)
{
    char why[300];
    unsigned status = lws_http_client_http_response(wsi); /* 0 when no answer came */
    if (!in) in = "unknown error";
    if (len == 0 || len > 200) len = strnlen(in, 200); /* lws passes a string, len or not */
    int n = snprintf(why, sizeof why, "cannot connect: %.*s", (int)len, in);
    if (status && n > 0 && (size_t)n < sizeof why)
        snprintf(why + n, sizeof why - (size_t)n, " (the backend answered HTTP %u)", status);
    link->stats.failures++;
    schedule_retry(link, why);
}

/* One "Name: value" header (lws wants the colon in the name). */
static int append_header(struct lws *wsi, const char *h, unsigned char **p, unsigned char *end)
{
    size_t name = strcspn(h, ":");
    char key[128];
    if (name + 2 > sizeof key) return -1;
    memcpy(key, h, name + 1);
    key[name + 1] = 0;
    const char *value = h + name + 1 + strspn(h + name + 1, " \t");
    return lws_add_http_header_by_name(wsi, (const unsigned char *)key,
                                       (const unsigned char *)value, (int)strlen(value), p, end);
}

/* Device-Id (seed 003's device names itself on the upgrade), then the --connect-header ones. */
static int append_headers(const ws_link_t *link, struct lws *wsi, void *in, size_t len)
{
    unsigned char **p = in, *end = *p + len;
    if (link->device_id) {
        char h[300];
        snprintf(h, sizeof h, "Device-Id: %s", link->device_id);
        if (append_header(wsi, h, p, end)) return -1;
    }
    for (size_t i = 0; i < link->ws->cfg.header_count; i++)
        if (append_header(wsi, link->headers[i], p, end)) return -1;
    return 0;
}

static int link_cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                   size_t len)
{
    ws_link_t *link = lws_get_opaque_user_data(wsi);
    (void)user;
    if (!link) return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        return append_headers(link, wsi, in, len);
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        established(link, wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return ws_conn_receive(&link->conn, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return link->conn.open ? ws_conn_writable(&link->conn) : 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (len >= 2)
            link->close_code = ((const unsigned char *)in)[0] << 8 | ((const unsigned char *)in)[1];
        return 0;
    case LWS_CALLBACK_CLIENT_CLOSED:
        closed(link);
        return 0;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        connection_error(link, wsi, in, len);
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols link_protocols[] = {
    {"mcpsim-dialout", link_cb, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

const struct lws_protocols *ws_link_protocols(void)
{
    return link_protocols;
}

/* ---------------------------------------------------------------- life */

/* A fleet's device (h != ws->h): its own watcher sends its session's notifications. */
static void on_device(void *ctx, bool all)
{
    (void)all; /* one session: drained on every tell */
    ws_link_t *link = ctx;
    if (link->conn.open && !link->ws->stopping) ws_conn_drain(&link->conn, link->h);
}

/* A link for device h, number n of a fleet (1 for a single device), connecting after delay_ms.
   NULL after logging (a bad URL). */
static ws_link_t *link_new(host_ws_t *ws, host_t *h, unsigned n, uint32_t delay_ms)
{
    char err[300];
    ws_link_t *link = calloc(1, sizeof *link);
    if (!link) abort();
    link->ws = ws;
    link->h = h;
    link->owned_text = host_template(ws->cfg.connect, n);
    link->text = link->owned_text;
    link->device_id = host_template(ws->cfg.device_id, n);
    link->headers = calloc(ws->cfg.header_count + 1, sizeof *link->headers);
    if (!link->headers) abort();
    for (size_t i = 0; i < ws->cfg.header_count; i++)
        link->headers[i] = host_template(ws->cfg.headers[i], n);
    link->stats.first_connect_s = -1;
    link->fleet_start_ns = ws->cfg.fleet_start_ns ? ws->cfg.fleet_start_ns : uv_hrtime();
    if (host_ws_url_parse(link->text, &link->url, err, sizeof err) != 0) {
        host_log(HOST_LOG_ERROR, "%s", err);
        ws_link_free(link);
        return NULL;
    }
    uv_timer_init(&ws->h->loop, &link->retry);
    link->retry.data = link;
    bool v6 = strchr(link->url.host, ':') != NULL;
    if (link->url.port == 80)
        snprintf(link->host_header, sizeof link->host_header, v6 ? "[%s]" : "%s", link->url.host);
    else
        snprintf(link->host_header, sizeof link->host_header, v6 ? "[%s]:%u" : "%s:%u",
                 link->url.host, (unsigned)link->url.port);
    link->delay_ms = HOST_WS_RETRY_MIN_MS;
    if (h != ws->h) link->watching = host_device_watch(h, on_device, link) == 0;
    if (delay_ms == 0)
        connect_now(link);
    else
        uv_timer_start(&link->retry, on_retry, delay_ms, 0);
    return link;
}

int ws_link_start(host_ws_t *ws)
{
    ws->link = link_new(ws, ws->h, 1, 0);
    return ws->link ? 0 : -1;
}

ws_link_t *host_ws_dial(host_ws_t *ws, host_t *dev, unsigned n, uint32_t delay_ms)
{
    ws_link_t *link = link_new(ws, dev, n, delay_ms);
    if (!link) return NULL;
    if (!ws->link) { /* the first device's own link comes first (host_ws_first_link) */
        ws->link = link;
        return link;
    }
    link->next = ws->link->next; /* after it, in no particular order: O(1) for a fleet */
    ws->link->next = link;
    return link;
}

ws_link_t *host_ws_first_link(host_ws_t *ws)
{
    return ws ? ws->link : NULL;
}

const host_link_stats_t *host_ws_link_stats(const ws_link_t *link, host_link_stats_t *now)
{
    *now = link->stats;
    if (link->conn.open) {
        now->msgs_in += link->conn.msgs_in;
        now->msgs_out += link->conn.msgs_out;
    }
    return now;
}

void ws_link_stop(ws_link_t *link)
{
    for (; link; link = link->next) {
        link->stopping = true;
        if (link->watching) host_device_unwatch(link->h, on_device, link);
        link->watching = false;
        uv_close((uv_handle_t *)&link->retry, NULL);
    }
}

void ws_link_free(ws_link_t *link)
{
    while (link) {
        ws_link_t *next = link->next;
        ws_conn_close(&link->conn); /* in case the context went without a close callback */
        for (size_t i = 0; link->headers && i < link->ws->cfg.header_count; i++)
            free(link->headers[i]);
        free(link->headers);
        free(link->owned_text);
        free(link->device_id);
        free(link);
        link = next;
    }
}
