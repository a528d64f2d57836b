/* test_it_one_json.c: integration: one corpus of tricky messages (big numbers, duplicate keys,
   bad UTF-8, deep nesting, batches, invalid envelopes) sent over TCP, the pty, WebSocket and
   Streamable HTTP gets the same verdict on each: the same reply, byte for byte, or none. */
#include <check.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fw_codes.h"
#include "it_util.h"
#include "ws_peer.h"

static it_proc_t proc;
static int ws_port, http_port;

/* What the device must make of a message: a result (ACCEPT), no answer (SILENT), an error with
   the code given, or a batch's array of answers (BATCH). */
#define ACCEPT 0
#define SILENT 1
#define BATCH 2

typedef struct sample {
    const char *what;
    const char *msg;
    int verdict; /* ACCEPT, SILENT, BATCH or a JSON-RPC error code */
    bool ws_frame_refused; /* not valid UTF-8: WebSocket refuses the frame (RFC 6455 8.1, close
                              1007) before any JSON is read, as it must */
} sample_t;

static const sample_t corpus[] = {
    {"a huge exponent", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"n\":1e999999}}",
     ACCEPT, false},
    {"a 23-digit integer",
     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"n\":99999999999999999999999}}",
     ACCEPT, false},
    {"a 23-digit id", "{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999999,\"method\":\"ping\"}",
     ACCEPT, false},
    {"duplicate keys (the first wins)",
     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"method\":\"no/such\"}", ACCEPT, false},
    {"duplicate keys (the first is unknown)",
     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"no/such\",\"method\":\"ping\"}",
     FW_RPC_METHOD_NOT_FOUND, false},
    {"bad UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"s\":\"\xff\xfe\"}}",
     FW_RPC_PARSE_ERROR, true},
    {"an overlong UTF-8 encoding",
     "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"s\":\"\xc0\xaf\"}}",
     FW_RPC_PARSE_ERROR, true},
    {"a lone surrogate escape",
     "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"s\":\"\\ud800\"}}",
     FW_RPC_PARSE_ERROR, false},
    {"deep nesting",
     "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"params\":{\"a\":[[[[[[[[[[[[[[[[[[[[["
     "1]]]]]]]]]]]]]]]]]]]]}}",
     FW_RPC_INVALID_REQUEST, false}, /* over FW_JSON_DEPTH_MAX */
    {"a leading zero", "{\"jsonrpc\":\"2.0\",\"id\":09,\"method\":\"ping\"}", FW_RPC_PARSE_ERROR,
     false},
    {"trailing bytes", "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"} x", FW_RPC_PARSE_ERROR,
     false},
    {"a batch", "[{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":12,"
                "\"method\":\"no/such\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]",
     BATCH, false},
    {"an empty batch", "[]", FW_RPC_INVALID_REQUEST, false},
    {"a batch of a scalar", "[1]", BATCH, false},
    {"a batch of notifications only", "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]", SILENT,
     false},
    {"jsonrpc 1.0", "{\"jsonrpc\":\"1.0\",\"id\":13,\"method\":\"ping\"}", FW_RPC_INVALID_REQUEST,
     false},
    {"no jsonrpc member", "{\"id\":14,\"method\":\"ping\"}", FW_RPC_INVALID_REQUEST, false},
    {"a method that is no string", "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":5}",
     FW_RPC_INVALID_REQUEST, false},
    {"an object id", "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}",
     FW_RPC_INVALID_REQUEST, false},
    {"a string", "\"ping\"", FW_RPC_INVALID_REQUEST, false},
    {"a number", "1e999999", FW_RPC_INVALID_REQUEST, false},
    {"an unknown method", "{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"no/such\"}",
     FW_RPC_METHOD_NOT_FOUND, false},
    {"a notification", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}", SILENT, false},
    {"a response nobody asked for", "{\"jsonrpc\":\"2.0\",\"id\":17,\"result\":{}}", SILENT, false},
    {"a tools/call with a huge number argument",
     "{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"tools/call\",\"params\":{\"name\":\"gpio_write\","
     "\"arguments\":{\"pin\":1e999999,\"value\":1}}}",
     FW_RPC_INVALID_PARAMS, false}, /* read as a number, refused as a pin */
};
#define CORPUS_N (sizeof corpus / sizeof corpus[0])

#define INIT                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
/* Sent after each sample on the byte streams and WebSocket: the first answer after a sample is
   either the sample's or this one's (then the sample got none). */
#define SENTINEL "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"method\":\"ping\"}"
#define SENTINEL_REPLY "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"result\":{}}"

static void start(void)
{
    const char *args[] = {"--board", "esp32-demo", "--pty", "--pty-reset-on-open", "off",
                          "--tcp",   "0",          "--ws",  "0",                   "--http",
                          "0",       "--clock",    "virtual", "--log-level",       "debug",
                          NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    char *log = it_stderr(&proc);
    const char *s = strstr(log, "ws: listening on ws://127.0.0.1:");
    ws_port = s ? atoi(s + strlen("ws: listening on ws://127.0.0.1:")) : 0;
    free(log);
    const char *p = strrchr(proc.http, ':');
    http_port = p ? atoi(p + 1) : 0;
    ck_assert_int_gt(ws_port, 0);
    ck_assert_int_gt(http_port, 0);
    ck_assert_str_ne(proc.uart, "");
}

/* ---------------------------------------------------------------- the transports */

/* What one transport made of one message: its reply (malloc'd) or NULL for none. */
typedef char *(*send_fn)(void *t, const char *msg, int *ws_close);

static char *line_send(void *t, const char *msg, int *ws_close)
{
    it_conn_t *c = t;
    (void)ws_close;
    char line[4096];
    snprintf(line, sizeof line, "%s\n%s\n", msg, SENTINEL);
    it_send(c, line);
    char *reply = it_read_line(c, IT_TIMEOUT);
    ck_assert_msg(reply != NULL, "no answer to '%s' nor to the sentinel", msg);
    if (strcmp(reply, SENTINEL_REPLY) == 0) {
        free(reply);
        return NULL;
    }
    char *sentinel = it_read_line(c, IT_TIMEOUT);
    ck_assert_msg(sentinel && strcmp(sentinel, SENTINEL_REPLY) == 0, "after '%s': %s", msg,
                  sentinel ? sentinel : "(nothing)");
    free(sentinel);
    return reply;
}

static char *ws_send(void *t, const char *msg, int *ws_close)
{
    ws_peer_t *p = t;
    ws_peer_send_text(p, msg);
    ws_peer_send_text(p, SENTINEL);
    char *data = NULL;
    size_t len = 0;
    int code = 0;
    int op = ws_peer_recv(p, IT_TIMEOUT, &data, &len, &code);
    if (op == WS_OP_CLOSE) {
        *ws_close = code;
        return NULL;
    }
    ck_assert_msg(op == WS_OP_TEXT, "no answer to '%s' over WebSocket (op %d)", msg, op);
    if (strcmp(data, SENTINEL_REPLY) == 0) {
        free(data);
        return NULL;
    }
    char *sentinel = NULL;
    ck_assert_int_eq(ws_peer_recv(p, IT_TIMEOUT, &sentinel, &len, &code), WS_OP_TEXT);
    ck_assert_str_eq(sentinel, SENTINEL_REPLY);
    free(sentinel);
    return data;
}

typedef struct http_t {
    char session[80];
    long status;
} http_t;

typedef struct body {
    char *data;
    size_t len;
} body_t;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    body_t *b = ud;
    b->data = realloc(b->data, b->len + size * n + 1);
    ck_assert_ptr_nonnull(b->data);
    memcpy(b->data + b->len, data, size * n);
    b->len += size * n;
    b->data[b->len] = 0;
    return size * n;
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    http_t *h = ud;
    size_t len = size * n;
    if (len > 16 && strncasecmp(data, "Mcp-Session-Id: ", 16) == 0)
        snprintf(h->session, sizeof h->session, "%.*s", (int)strcspn(data + 16, "\r\n"), data + 16);
    return len;
}

/* POSTs msg (in the session, once there is one); the reply body, or NULL for 202. */
static char *http_post(http_t *h, const char *msg)
{
    CURL *c = curl_easy_init();
    char url[128], sh[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", http_port);
    snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", h->session);
    struct curl_slist *list = curl_slist_append(NULL, "Content-Type: application/json");
    list = curl_slist_append(list, "Accept: application/json, text/event-stream");
    if (h->session[0]) list = curl_slist_append(list, sh);
    body_t b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, msg);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(msg));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)IT_TIMEOUT);
    CURLcode rc = curl_easy_perform(c);
    ck_assert_msg(rc == CURLE_OK, "POST: %s", curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &h->status);
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    if (h->status == 202) {
        ck_assert_uint_eq(b.len, 0);
        free(b.data);
        return NULL;
    }
    ck_assert_msg(h->status == 200 || h->status == 400, "POST '%s': status %ld: %s", msg,
                  h->status, b.data ? b.data : "");
    ck_assert_ptr_nonnull(b.data);
    return b.data;
}

static char *http_send(void *t, const char *msg, int *ws_close)
{
    (void)ws_close;
    return http_post(t, msg);
}

/* ---------------------------------------------------------------- the verdict */

/* The verdict a reply stands for (as the sample's verdict field). */
static int verdict_of(const char *reply)
{
    if (!reply) return SILENT;
    if (reply[0] == '[') return BATCH;
    const char *e = strstr(reply, "\"error\":{\"code\":");
    return e ? atoi(e + strlen("\"error\":{\"code\":")) : ACCEPT;
}

START_TEST(the_same_bytes_get_the_same_verdict_on_every_transport)
{
    start();
    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    it_conn_t *pty = it_serial_open(proc.uart);
    ws_peer_t *ws = ws_peer_open(ws_port);
    http_t http = {0};
    const char *names[] = {"tcp", "pty", "ws", "http"};
    void *ts[] = {tcp, pty, ws, &http};
    send_fn fns[] = {line_send, line_send, ws_send, http_send};
    for (int i = 0; i < 4; i++) { /* a session on each, as a client opens it */
        int ignored = 0;
        char *r = fns[i](ts[i], INIT, &ignored);
        ck_assert_msg(r && verdict_of(r) == ACCEPT, "%s: initialize: %s", names[i], r ? r : "-");
        free(r);
        ck_assert_ptr_null(fns[i](ts[i], INITIALIZED, &ignored));
    }
    ck_assert_uint_eq(strlen(http.session), 32);
    for (size_t k = 0; k < CORPUS_N; k++) {
        const sample_t *s = &corpus[k];
        char *replies[4] = {NULL, NULL, NULL, NULL};
        for (int i = 0; i < 4; i++) {
            if (i == 2 && s->ws_frame_refused) { /* the frame never reaches the JSON reader */
                int code = 0;
                ck_assert_ptr_null(ws_send(ws, s->msg, &code));
                ck_assert_msg(code == 1007, "%s over WebSocket: close code %d, not 1007",
                              s->what, code);
                ws_peer_close(ws);
                ws = ws_peer_open(ws_port);
                ts[2] = ws;
                int ignored = 0;
                free(ws_send(ws, INIT, &ignored));
                ck_assert_ptr_null(ws_send(ws, INITIALIZED, &ignored));
                continue;
            }
            int close_code = 0;
            replies[i] = fns[i](ts[i], s->msg, &close_code);
            ck_assert_msg(close_code == 0, "%s over %s: closed (%d)", s->what, names[i],
                          close_code);
            ck_assert_msg(verdict_of(replies[i]) == s->verdict,
                          "%s over %s: verdict %d, expected %d: %s", s->what, names[i],
                          verdict_of(replies[i]), s->verdict, replies[i] ? replies[i] : "(none)");
            if (i == 3) /* HTTP's status follows the verdict: 400 for what is no JSON at all */
                ck_assert_msg(http.status == (s->verdict == SILENT               ? 202
                                              : s->verdict == FW_RPC_PARSE_ERROR ? 400
                                                                                 : 200),
                              "%s over http: status %ld", s->what, http.status);
        }
        for (int i = 1; i < 4; i++) { /* byte for byte the reply TCP got */
            if (i == 2 && s->ws_frame_refused) continue;
            if (!replies[0] || !replies[i]) {
                ck_assert_msg(!replies[0] && !replies[i], "%s: %s answered, %s did not", s->what,
                              replies[0] ? names[0] : names[i], replies[0] ? names[i] : names[0]);
                continue;
            }
            ck_assert_msg(strcmp(replies[0], replies[i]) == 0, "%s: tcp said %s, %s said %s",
                          s->what, replies[0], names[i], replies[i]);
        }
        for (int i = 0; i < 4; i++) free(replies[i]);
    }
    it_conn_close(tcp);
    it_conn_close(pty);
    ws_peer_close(ws);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}
END_TEST

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    Suite *s = suite_create("one_json");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, the_same_bytes_get_the_same_verdict_on_every_transport);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    curl_global_cleanup();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
