/* test_it_http.c: integration: MCP over Streamable HTTP (mcpsim --http) with libcurl as the
   client: sessions, header checks, limits, GET event streams and SSE answers. */
#include <check.h>
#include <curl/curl.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"

static it_proc_t proc;
static int http_port;
static char url[160];

/* ---------------------------------------------------------------- an HTTP client */

typedef struct resp {
    long status;
    char *body; /* NUL-terminated */
    size_t len;
    char session[80];
    char content_type[128];
    char www_authenticate[256];
    char allow[128];
    char cors_origin[128];  /* Access-Control-Allow-Origin */
    char cors_expose[256];  /* Access-Control-Expose-Headers */
    char cors_headers[256]; /* Access-Control-Allow-Headers */
} resp_t;

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
    resp_t *r = ud;
    r->body = realloc(r->body, r->len + size * n + 1);
    ck_assert_ptr_nonnull(r->body);
    memcpy(r->body + r->len, data, size * n);
    r->len += size * n;
    r->body[r->len] = 0;
    return size * n;
}

/* Copies the value of header `name` from a raw header line into out. */
static void header_value(const char *line, size_t len, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    if (len <= n + 1 || strncasecmp(line, name, n) != 0 || line[n] != ':') return;
    const char *v = line + n + 1;
    while (*v == ' ') v++;
    size_t vlen = len - (size_t)(v - line);
    while (vlen > 0 && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n')) vlen--;
    snprintf(out, cap, "%.*s", (int)vlen, v);
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
    resp_t *r = ud;
    size_t len = size * n;
    header_value(data, len, "Mcp-Session-Id", r->session, sizeof r->session);
    header_value(data, len, "Content-Type", r->content_type, sizeof r->content_type);
    header_value(data, len, "WWW-Authenticate", r->www_authenticate, sizeof r->www_authenticate);
    header_value(data, len, "Allow", r->allow, sizeof r->allow);
    header_value(data, len, "Access-Control-Allow-Origin", r->cors_origin, sizeof r->cors_origin);
    header_value(data, len, "Access-Control-Expose-Headers", r->cors_expose, sizeof r->cors_expose);
    header_value(data, len, "Access-Control-Allow-Headers", r->cors_headers,
                 sizeof r->cors_headers);
    return len;
}

static void resp_free(resp_t *r)
{
    free(r->body);
    free(r);
}

/* One request to path with the headers given (NULL-terminated; "Name:" removes curl's own). */
static resp_t *request_to(const char *path, const char *method, const char *body, size_t len,
                          const char *const *headers)
{
    resp_t *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    CURL *c = curl_easy_init();
    char target[256];
    snprintf(target, sizeof target, "http://127.0.0.1:%d%s", http_port, path);
    curl_easy_setopt(c, CURLOPT_URL, target);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; headers && headers[i]; i++) list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)IT_TIMEOUT);
    CURLcode rc = curl_easy_perform(c);
    ck_assert_msg(rc == CURLE_OK, "%s %s: %s", method, path, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    if (!r->body) on_body("", 1, 0, r);
    return r;
}

static resp_t *request(const char *method, const char *body, const char *const *headers)
{
    return request_to("/mcp", method, body, body ? strlen(body) : 0, headers);
}

#define CT_JSON "Content-Type: application/json"
#define ACCEPT_BOTH "Accept: application/json, text/event-stream"

/* A POST as an MCP client sends it, in session sid (NULL: none), with one extra header. */
static resp_t *post_with(const char *sid, const char *body, const char *extra)
{
    char sh[128];
    snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", sid ? sid : "");
    const char *headers[] = {CT_JSON, ACCEPT_BOTH, sid ? sh : extra, sid ? extra : NULL, NULL};
    return request("POST", body, headers);
}

static resp_t *post(const char *sid, const char *body)
{
    return post_with(sid, body, NULL);
}

/* The JSON-RPC error code of a refusal's body (every refusal carries one). */
static int error_code(const resp_t *r)
{
    json_t *doc = json_loads(r->body, 0, NULL);
    ck_assert_msg(doc != NULL, "status %ld body is not JSON: %s", r->status, r->body);
    int code = (int)json_integer_value(json_object_get(json_object_get(doc, "error"), "code"));
    json_decref(doc);
    return code;
}

/* Asserts status and, for a refusal, a JSON-RPC error body with code. */
static void expect_refusal(resp_t *r, long status, int code, const char *words)
{
    ck_assert_msg(r->status == status, "expected %ld, got %ld: %s", status, r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/json");
    ck_assert_int_eq(error_code(r), code);
    if (words) ck_assert_msg(strstr(r->body, words), "'%s' not in %s", words, r->body);
    resp_free(r);
}

#define INIT_BODY                                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"     \
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

/* initialize + notifications/initialized; returns the session id (malloc'd). */
static char *initialize(void)
{
    resp_t *r = post(NULL, INIT_BODY);
    ck_assert_msg(r->status == 200, "initialize: %ld %s", r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/json");
    ck_assert_uint_eq(strlen(r->session), 32);
    ck_assert_uint_eq(strspn(r->session, "0123456789abcdef"), 32);
    char *sid = strdup(r->session);
    resp_free(r);
    r = post(sid, INITIALIZED);
    ck_assert_int_eq(r->status, 202);
    resp_free(r);
    return sid;
}

/* A request in sid answered with application/json; returns the parsed reply. */
static json_t *rpc(const char *sid, const char *body)
{
    resp_t *r = post(sid, body);
    ck_assert_msg(r->status == 200, "%s: %ld %s", body, r->status, r->body);
    ck_assert_str_eq(r->content_type, "application/json");
    json_t *doc = json_loads(r->body, 0, NULL);
    ck_assert_ptr_nonnull(doc);
    resp_free(r);
    return doc;
}

/* tools/call name(args) in sid; returns the reply (result asserted, not an isError). */
static json_t *call_tool(const char *sid, int id, const char *name, const char *args)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}",
             id, name, args);
    json_t *reply = rpc(sid, body);
    json_t *result = it_result(reply);
    ck_assert(!json_is_true(json_object_get(result, "isError")));
    return reply;
}

static void delete_session(const char *sid)
{
    char sh[128];
    snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", sid);
    const char *headers[] = {sh, NULL};
    resp_t *r = request("DELETE", NULL, headers);
    ck_assert_int_eq(r->status, 204);
    resp_free(r);
}

/* ---------------------------------------------------------------- GET streams (raw sockets) */

/* Reads lines until one contains needle; false on timeout or end of stream. */
static bool wait_for(it_conn_t *c, const char *needle, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    for (;;) {
        double left = deadline - it_now();
        char *line = left > 0 ? it_read_line(c, left) : NULL;
        if (!line) return false;
        bool found = strstr(line, needle) != NULL;
        free(line);
        if (found) return true;
    }
}

/* Opens sid's GET stream and waits for its greeting (the stream is live). */
static it_conn_t *open_stream(const char *sid)
{
    it_conn_t *c = it_tcp_connect(http_port);
    char req[512];
    snprintf(req, sizeof req,
             "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n"
             "Mcp-Session-Id: %s\r\n\r\n",
             http_port, sid);
    it_send(c, req);
    char *status = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(status);
    ck_assert_msg(strncmp(status, "HTTP/1.1 200", 12) == 0, "GET stream: %s", status);
    free(status);
    ck_assert(wait_for(c, "text/event-stream", IT_TIMEOUT));
    ck_assert(wait_for(c, ": mcpsim event stream", IT_TIMEOUT));
    return c;
}

/* ---------------------------------------------------------------- starting mcpsim */

/* Starts board with --http 0 --control 0 --clock virtual and the extra args. */
static void start_with(const char *board, const char *const *extra)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const char *args[40] = {"--board", board,     "--http",  "0",           "--control",
                            "0",       "--clock", "virtual", "--log-level", "debug"};
    size_t n = 10;
    for (size_t i = 0; extra && extra[i] && n < 39; i++) args[n++] = extra[i];
    args[n] = NULL;
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    snprintf(url, sizeof url, "%s", proc.http);
    ck_assert_msg(sscanf(url, "http://127.0.0.1:%d/mcp", &http_port) == 1, "http line: '%s'", url);
}

static void start(void)
{
    start_with("esp32-demo", NULL);
}

static void stop(void)
{
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
    curl_global_cleanup();
}

/* ---------------------------------------------------------------- sessions and calls */

START_TEST(initialize_issues_a_random_session_id_per_session)
{
    start();
    char *a = initialize(), *b = initialize();
    ck_assert_str_ne(a, b);
    free(a);
    free(b);
    stop();
}
END_TEST

START_TEST(a_failed_initialize_creates_no_session)
{
    start();
    resp_t *r = post(NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":5}");
    ck_assert_int_eq(r->status, 200); /* the JSON-RPC error is the answer */
    ck_assert_int_eq(error_code(r), FW_RPC_INVALID_REQUEST);
    ck_assert_str_eq(r->session, "");
    resp_free(r);
    stop();
}
END_TEST

START_TEST(tools_list_and_gpio_and_adc_calls_in_a_session)
{
    start();
    char *sid = initialize();
    json_t *reply = rpc(sid, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    json_t *tools = json_object_get(it_result(reply), "tools");
    bool gpio = false, adc = false;
    for (size_t i = 0; i < json_array_size(tools); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(tools, i), "name"));
        gpio |= strcmp(name, "gpio_write") == 0;
        adc |= strcmp(name, "adc_read") == 0;
    }
    ck_assert(gpio && adc);
    json_decref(reply);

    json_decref(call_tool(sid, 3, "gpio_write", "{\"pin\":2,\"value\":true}"));
    reply = call_tool(sid, 4, "gpio_read", "{\"pin\":2}");
    json_t *sc = json_object_get(it_result(reply), "structuredContent");
    ck_assert(json_is_true(json_object_get(sc, "value")));
    json_decref(reply);
    json_decref(call_tool(sid, 5, "gpio_write", "{\"pin\":\"led\",\"value\":false}"));
    reply = call_tool(sid, 6, "gpio_read", "{\"pin\":2}");
    ck_assert(json_is_false(
        json_object_get(json_object_get(it_result(reply), "structuredContent"), "value")));
    json_decref(reply);

    reply = call_tool(sid, 7, "adc_read", "{\"pin\":34}");
    sc = json_object_get(it_result(reply), "structuredContent");
    ck_assert_ptr_nonnull(sc);
    ck_assert_int_eq(json_integer_value(json_object_get(sc, "pin")), 34);
    json_decref(reply);
    free(sid);
    stop();
}
END_TEST

START_TEST(requests_need_a_known_session)
{
    start();
    const char *list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    expect_refusal(post(NULL, list), 400, FW_RPC_TRANSPORT_ERROR, "Mcp-Session-Id header missing");
    expect_refusal(post("0123456789abcdef0123456789abcdef", list), 404, FW_RPC_SESSION_NOT_FOUND,
                   "session not found");
    expect_refusal(post("short", list), 404, FW_RPC_SESSION_NOT_FOUND, NULL);
    char *sid = initialize();
    json_decref(rpc(sid, list));
    delete_session(sid);
    expect_refusal(post(sid, list), 404, FW_RPC_SESSION_NOT_FOUND, "session not found");
    char sh[128];
    snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", sid);
    const char *del[] = {sh, NULL};
    expect_refusal(request("DELETE", NULL, del), 404, FW_RPC_SESSION_NOT_FOUND, NULL);
    const char *del_none[] = {NULL};
    expect_refusal(request("DELETE", NULL, del_none), 400, FW_RPC_TRANSPORT_ERROR, NULL);
    free(sid);
    stop();
}
END_TEST

START_TEST(a_post_of_notifications_or_responses_gets_202_without_body)
{
    start();
    char *sid = initialize();
    resp_t *r = post(sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                          "\"params\":{\"requestId\":99}}");
    ck_assert_int_eq(r->status, 202);
    ck_assert_uint_eq(r->len, 0);
    resp_free(r);
    r = post(sid, "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{}}"); /* a client's answer */
    ck_assert_int_eq(r->status, 202);
    ck_assert_uint_eq(r->len, 0);
    resp_free(r);
    free(sid);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- header checks and limits */

START_TEST(malformed_json_gets_400_with_a_parse_error)
{
    start();
    char *sid = initialize();
    /* the device's own verdict and words, as on every other transport */
    expect_refusal(post(sid, "{\"jsonrpc\":\"2.0\",\"id\":"), 400, FW_RPC_PARSE_ERROR,
                   "parse error at byte 22");
    expect_refusal(post(NULL, "not json"), 400, FW_RPC_PARSE_ERROR, "parse error at byte 1");
    free(sid);
    stop();
}
END_TEST

/* A finished POST's state serves the next POST (http.c keeps spares, their body buffers too):
   an empty body after others stays empty, and a body is only its own bytes, whether the
   buffer before it was kept (short) or not (over 4 KiB). */
START_TEST(a_reused_request_state_holds_only_its_own_body)
{
    start();
    resp_t *first = post(NULL, "");
    ck_assert_int_eq(first->status, 400);
    char big[6000];
    snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"%5900d\"}", 7);
    const char *bodies[] = {"not json", big, "{\"jsonrpc\":\"2.0\",\"id\":", big, NULL};
    for (size_t i = 0; bodies[i]; i++) {
        resp_free(post(NULL, bodies[i]));
        resp_t *r = post(NULL, "");
        ck_assert_int_eq(r->status, first->status);
        ck_assert_str_eq(r->body, first->body);
        resp_free(r);
    }
    resp_free(first);
    expect_refusal(post(NULL, "{\"jsonrpc\":\"2.0\",\"id\":"), 400, FW_RPC_PARSE_ERROR,
                   "parse error at byte 22");
    stop();
}
END_TEST

START_TEST(post_needs_json_content_and_an_accept_of_json_and_sse)
{
    start();
    const char *text[] = {"Content-Type: text/plain", ACCEPT_BOTH, NULL};
    expect_refusal(request("POST", INIT_BODY, text), 415, FW_RPC_TRANSPORT_ERROR,
                   "application/json");
    const char *no_type[] = {"Content-Type:", ACCEPT_BOTH, NULL};
    expect_refusal(request("POST", INIT_BODY, no_type), 415, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *json_only[] = {CT_JSON, "Accept: application/json", NULL};
    expect_refusal(request("POST", INIT_BODY, json_only), 406, FW_RPC_TRANSPORT_ERROR,
                   "text/event-stream");
    const char *sse_only[] = {CT_JSON, "Accept: text/event-stream", NULL};
    expect_refusal(request("POST", INIT_BODY, sse_only), 406, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *charset[] = {"Content-Type: application/json; charset=utf-8",
                             "Accept: text/event-stream;q=0.9, application/json", NULL};
    resp_t *r = request("POST", INIT_BODY, charset);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    stop();
}
END_TEST

/* Feeds a body through curl's read callback: sent chunked, without Content-Length. */
typedef struct upload {
    size_t left;
} upload_t;

static size_t on_read(char *buf, size_t size, size_t n, void *ud)
{
    upload_t *u = ud;
    size_t k = size * n < u->left ? size * n : u->left;
    memset(buf, ' ', k);
    u->left -= k;
    return k;
}

static long post_chunked(size_t len)
{
    CURL *c = curl_easy_init();
    upload_t u = {len};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(c, CURLOPT_READDATA, &u);
    struct curl_slist *h = curl_slist_append(NULL, CT_JSON);
    h = curl_slist_append(h, ACCEPT_BOTH);
    h = curl_slist_append(h, "Transfer-Encoding: chunked");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    resp_t r = {0};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)IT_TIMEOUT);
    ck_assert_int_eq(curl_easy_perform(c), CURLE_OK);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    ck_assert_ptr_nonnull(r.body);
    ck_assert_ptr_nonnull(strstr(r.body, "-32000"));
    free(r.body);
    return status;
}

START_TEST(a_body_over_1_mib_gets_413)
{
    start();
    size_t len = (1u << 20) + 1;
    char *big = malloc(len + 1);
    memset(big, ' ', len);
    big[len] = 0;
    const char *headers[] = {CT_JSON, ACCEPT_BOTH, NULL};
    expect_refusal(request_to("/mcp", "POST", big, len, headers), 413, FW_RPC_TRANSPORT_ERROR,
                   "limit");
    free(big);
    ck_assert_int_eq(post_chunked(2u << 20), 413); /* no Content-Length: counted as it comes */
    char *sid = initialize();                      /* the server is fine afterwards */
    free(sid);
    stop();
}
END_TEST

/* Everything c receives until the server closes (what its line reader holds first). */
static char *read_rest(it_conn_t *c)
{
    size_t len = c->len, cap = c->len + 4096;
    char *out = malloc(cap + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, c->buf, c->len);
    double deadline = it_now() + IT_TIMEOUT;
    for (;;) {
        struct pollfd p = {c->fd, POLLIN, 0};
        int left = (int)((deadline - it_now()) * 1000);
        ck_assert_msg(left > 0 && poll(&p, 1, left) == 1, "the server did not close");
        if (cap - len < 4096) out = realloc(out, (cap *= 2) + 1);
        ssize_t n = read(c->fd, out + len, cap - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    out[len] = 0;
    return out;
}

/* Request bodies still arriving share the input budget (--input-budget 1: 1 MiB). Four clients
   each send all but the last byte of a 300 KiB body: three fit, the fourth goes over (whichever
   is read last) and its bytes are given back at once; when its last byte comes it gets 503 with
   Retry-After. The three are answered as usual. */
START_TEST(bodies_beyond_the_input_budget_get_503_with_retry_after)
{
    const char *extra[] = {"--input-budget", "1", NULL};
    start_with("esp32-demo", extra);
    size_t len = 300u << 10;
    char *body = malloc(len);
    memset(body, ' ', len);
    memcpy(body, INIT_BODY, strlen(INIT_BODY));
    it_conn_t *c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = it_tcp_connect(http_port);
        char head[512];
        snprintf(head, sizeof head,
                 "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n%s\r\nContent-Length: %zu\r\n"
                 "Connection: close\r\n\r\n",
                 CT_JSON, ACCEPT_BOTH, len);
        it_send(c[i], head);
        ck_assert(write(c[i]->fd, body, len - 1) == (ssize_t)(len - 1));
    }
    /* the budget is judged as the bytes arrive: the refusal is logged then */
    double deadline = it_now() + IT_TIMEOUT;
    for (bool seen = false; !seen && it_now() < deadline; usleep(20000)) {
        char *err = it_stderr(&proc);
        seen = strstr(err, "goes over the input budget") != NULL;
        free(err);
    }
    int refused = 0;
    for (int i = 0; i < 4; i++) {
        ck_assert(write(c[i]->fd, " ", 1) == 1);
        char *status = it_read_line(c[i], IT_TIMEOUT);
        ck_assert_ptr_nonnull(status);
        if (strstr(status, " 503 ")) {
            refused++;
            char *rest = read_rest(c[i]);
            ck_assert_msg(strstr(rest, "Retry-After: 1\r\n") && strstr(rest, "(input budget)"),
                          "%s", rest);
            free(rest);
        } else { /* taken whole and answered as usual: the device's error for a request this
                    long (over FW_MSG_MAX) */
            ck_assert_msg(strncmp(status, "HTTP/1.1 200", 12) == 0, "%s", status);
            char *rest = read_rest(c[i]);
            ck_assert_msg(strstr(rest, "over FW_MSG_MAX") != NULL, "%s", rest);
            free(rest);
        }
        free(status);
        it_conn_close(c[i]);
    }
    ck_assert_int_eq(refused, 1);
    free(body);
    char *sid = initialize(); /* and the server is fine afterwards */
    free(sid);
    stop();
}
END_TEST

START_TEST(a_foreign_host_header_gets_403_unless_allowed)
{
    start();
    const char *evil[] = {CT_JSON, ACCEPT_BOTH, "Host: evil.com", NULL};
    expect_refusal(request("POST", INIT_BODY, evil), 403, FW_RPC_TRANSPORT_ERROR, "DNS rebinding");
    const char *evil_port[] = {CT_JSON, ACCEPT_BOTH, "Host: evil.com:80", NULL};
    expect_refusal(request("POST", INIT_BODY, evil_port), 403, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *local[] = {CT_JSON, ACCEPT_BOTH, "Host: localhost:1234", NULL};
    resp_t *r = request("POST", INIT_BODY, local);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    stop();

    const char *allow[] = {"--allow-host", "evil.com", NULL};
    start_with("esp32-demo", allow);
    r = request("POST", INIT_BODY, evil);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    const char *other[] = {CT_JSON, ACCEPT_BOTH, "Host: other.com", NULL};
    expect_refusal(request("POST", INIT_BODY, other), 403, FW_RPC_TRANSPORT_ERROR, NULL);
    stop();
}
END_TEST

/* A POST with two Host headers, the second's name spelt second_name, is refused with 400. */
static void two_hosts_refused(const char *second_name)
{
    it_conn_t *c = it_tcp_connect(http_port);
    char req[512];
    snprintf(req, sizeof req,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n%s: evil.example\r\n%s\r\n%s\r\n"
             "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
             second_name, CT_JSON, ACCEPT_BOTH, strlen(INIT_BODY), INIT_BODY);
    it_send(c, req);
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(line);
    ck_assert_msg(strstr(line, " 400 ") != NULL, "%s", line);
    free(line);
    it_conn_close(c);
}

/* Only the first Host header is looked up: a request with two is refused (400), whatever they
   say, and the daemon logs its limits at start. */
START_TEST(two_host_headers_get_400)
{
    start();
    two_hosts_refused("Host");
    char *err = it_stderr(&proc);
    ck_assert_msg(strstr(err, "connections,") && strstr(err, "per address"), "%s", err);
    free(err);
    stop();
}
END_TEST

/* Header names in any case: the transport reads every header it checks in one pass over the
   request's headers, matching names as libmicrohttpd does (case-insensitively, the first of a
   name); a second Host in another case still counts. */
START_TEST(header_names_match_in_any_case)
{
    start();
    char *sid = initialize();
    char sh[128];
    snprintf(sh, sizeof sh, "mcp-session-id: %s", sid);
    const char *lower[] = {"content-type: application/json",
                           "ACCEPT: application/json, text/event-stream", sh, NULL};
    resp_t *r = request("POST", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}", lower);
    ck_assert_msg(r->status == 200, "%ld %s", r->status, r->body);
    ck_assert_msg(strstr(r->body, "\"id\":5") != NULL, "%s", r->body);
    resp_free(r);
    const char *evil[] = {CT_JSON, ACCEPT_BOTH, "oRiGiN: http://evil.com", NULL};
    expect_refusal(request("POST", INIT_BODY, evil), 403, FW_RPC_TRANSPORT_ERROR, "evil.com");
    const char *type[] = {"CONTENT-TYPE: text/plain", ACCEPT_BOTH, NULL};
    expect_refusal(request("POST", INIT_BODY, type), 415, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *accept[] = {CT_JSON, "accept: application/json", NULL};
    expect_refusal(request("POST", INIT_BODY, accept), 406, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *version[] = {CT_JSON, ACCEPT_BOTH, sh, "mcp-protocol-version: 1999-01-01", NULL};
    expect_refusal(request("GET", NULL, version), 400, FW_RPC_TRANSPORT_ERROR, "1999-01-01");
    free(sid);
    two_hosts_refused("hOST");
    stop();
}
END_TEST

/* The status of an initialize (no session) carrying one more header of pad bytes. */
static long status_with_pad(size_t pad)
{
    char *h = malloc(pad + 16);
    ck_assert_ptr_nonnull(h);
    memcpy(h, "X-Pad: ", 7);
    memset(h + 7, 'p', pad);
    h[7 + pad] = 0;
    const char *headers[] = {CT_JSON, ACCEPT_BOTH, h, NULL};
    resp_t *r = request("POST", INIT_BODY, headers);
    long status = r->status;
    resp_free(r);
    free(h);
    return status;
}

/* --http-conn-memory: libmicrohttpd's memory per connection bounds a request's head; a head
   over it gets 431 and the next request is served. The default (16 KiB) takes 12 KiB of
   headers (Node.js, where the MCP SDK's servers run, takes 16 KiB by default). */
START_TEST(a_request_head_over_the_connection_memory_gets_431)
{
    start();
    ck_assert_int_eq(status_with_pad(12 * 1024), 200);
    ck_assert_int_eq(status_with_pad(20 * 1024), 431);
    ck_assert_int_eq(status_with_pad(100), 200);
    stop();
    const char *small[] = {"--http-conn-memory", "8", NULL};
    start_with("esp32-demo", small);
    ck_assert_int_eq(status_with_pad(6 * 1024), 200);
    ck_assert_int_eq(status_with_pad(9 * 1024), 431);
    char *sid = initialize(); /* and a session's calls after it */
    json_t *v = call_tool(sid, 7, "gpio_write", "{\"pin\":2,\"value\":true}");
    json_decref(v);
    free(sid);
    stop();
    const char *big[] = {"--http-conn-memory", "64", NULL};
    start_with("esp32-demo", big);
    ck_assert_int_eq(status_with_pad(40 * 1024), 200);
    stop();
}
END_TEST

/* A name as long as one the transport reads, but another, is not taken for it (the header pass
   picks its candidate by length): each request below lacks the header it seems to carry. */
START_TEST(header_names_of_the_same_length_are_not_confused)
{
    start();
    char *sid = initialize();
    char sh[128];
    snprintf(sh, sizeof sh, "Mcp-Session-Ix: %s", sid); /* Content-Length's length too */
    const char *session[] = {CT_JSON, ACCEPT_BOTH, sh, NULL};
    expect_refusal(request("POST", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}",
                           session),
                   400, FW_RPC_TRANSPORT_ERROR, "Mcp-Session-Id header missing");
    const char *accept[] = {CT_JSON, "Origin: application/json, text/event-stream", NULL};
    expect_refusal(request("POST", INIT_BODY, accept), 403, FW_RPC_TRANSPORT_ERROR, "Origin");
    const char *accepx[] = {CT_JSON, "Accept:", "Accepx: application/json, text/event-stream",
                            NULL};
    expect_refusal(request("POST", INIT_BODY, accepx), 406, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *type[] = {"Content-Type:", "Content-Typf: application/json", ACCEPT_BOTH, NULL};
    expect_refusal(request("POST", INIT_BODY, type), 415, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *version[] = {CT_JSON, ACCEPT_BOTH, "Mcp-Session-Id: x",
                             "XCP-Protocol-Version: 1999-01-01", NULL};
    expect_refusal(request("POST", INIT_BODY, version), 404, FW_RPC_SESSION_NOT_FOUND, NULL);
    free(sid);
    stop();
}
END_TEST

/* The server keeps its verdict on the last Host, Content-Type and Accept it saw (http.c's memo):
   each value still gets its own, whatever came before it (a longer or shorter value with the
   same start, one over the memo's 127 bytes). */
START_TEST(header_verdicts_follow_each_value_in_turn)
{
    start();
    char long_accept[300];
    snprintf(long_accept, sizeof long_accept, "Accept: application/json, %200s, text/event-stream",
             "text/plain;q=0.5");
    char long_bad[300];
    snprintf(long_bad, sizeof long_bad, "Accept: application/json, %200s", "text/plain;q=0.5");
    struct {
        const char *headers[4];
        long status;
    } turns[] = {
        {{CT_JSON, ACCEPT_BOTH, NULL}, 200},
        {{CT_JSON, ACCEPT_BOTH, "Host: 127.0.0.1.evil.com", NULL}, 403},
        {{CT_JSON, ACCEPT_BOTH, "Host: 127.0.0.1", NULL}, 200},
        {{CT_JSON, ACCEPT_BOTH, "Host: 127.0.0.", NULL}, 403},
        {{"Content-Type: application/json; charset=utf-8", ACCEPT_BOTH, NULL}, 200},
        {{"Content-Type: application/jsonx", ACCEPT_BOTH, NULL}, 415},
        {{CT_JSON, ACCEPT_BOTH, NULL}, 200},
        {{"Content-Type: application/jso", ACCEPT_BOTH, NULL}, 415},
        {{CT_JSON, "Accept: application/json, text/event-stream;q=0", NULL}, 406},
        {{CT_JSON, ACCEPT_BOTH, NULL}, 200},
        {{CT_JSON, "Accept: application/json, text/event-strea", NULL}, 406},
        {{CT_JSON, long_accept, NULL}, 200},
        {{CT_JSON, long_bad, NULL}, 406},
        {{CT_JSON, long_accept, NULL}, 200},
    };
    for (size_t i = 0; i < sizeof turns / sizeof turns[0]; i++) {
        resp_t *r = request("POST", INIT_BODY, turns[i].headers);
        ck_assert_msg(r->status == turns[i].status, "turn %zu: expected %ld, got %ld: %s", i,
                      turns[i].status, r->status, r->body);
        resp_free(r);
    }
    stop();
}
END_TEST

START_TEST(a_foreign_origin_gets_403_unless_allowed)
{
    start();
    const char *evil[] = {CT_JSON, ACCEPT_BOTH, "Origin: http://evil.com", NULL};
    expect_refusal(request("POST", INIT_BODY, evil), 403, FW_RPC_TRANSPORT_ERROR, "Origin");
    const char *local[] = {CT_JSON, ACCEPT_BOTH, "Origin: http://localhost:6274", NULL};
    resp_t *r = request("POST", INIT_BODY, local);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    stop();

    const char *allow[] = {"--allow-origin", "http://evil.com", NULL};
    start_with("esp32-demo", allow);
    r = request("POST", INIT_BODY, evil);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    const char *other[] = {CT_JSON, ACCEPT_BOTH, "Origin: https://evil.com", NULL};
    expect_refusal(request("POST", INIT_BODY, other), 403, FW_RPC_TRANSPORT_ERROR, NULL);
    stop();

    const char *any[] = {"--allow-origin", "*", NULL};
    start_with("esp32-demo", any);
    r = request("POST", INIT_BODY, other);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    stop();
}
END_TEST

START_TEST(browsers_of_allowed_origins_get_cors_headers)
{
    const char *token[] = {"--auth-token", "s3cret", NULL};
    start_with("esp32-demo", token);
    const char *pre[] = {"Origin: http://localhost:6274", "Access-Control-Request-Method: POST",
                         "Access-Control-Request-Headers: content-type, mcp-session-id", NULL};
    resp_t *r = request("OPTIONS", NULL, pre); /* a preflight carries no token */
    ck_assert_int_eq(r->status, 204);
    ck_assert_str_eq(r->cors_origin, "http://localhost:6274");
    ck_assert_ptr_nonnull(strstr(r->cors_headers, "Mcp-Session-Id"));
    ck_assert_ptr_nonnull(strstr(r->cors_headers, "Mcp-Method")); /* 2026-07-28 requests */
    ck_assert_ptr_nonnull(strstr(r->cors_headers, "Authorization"));
    resp_free(r);
    const char *post_h[] = {CT_JSON, ACCEPT_BOTH, "Origin: http://localhost:6274",
                            "Authorization: Bearer s3cret", NULL};
    r = request("POST", INIT_BODY, post_h);
    ck_assert_int_eq(r->status, 200);
    ck_assert_str_eq(r->cors_origin, "http://localhost:6274");
    ck_assert_ptr_nonnull(strstr(r->cors_expose, "Mcp-Session-Id"));
    resp_free(r);
    const char *evil[] = {"Origin: http://evil.com", "Access-Control-Request-Method: POST", NULL};
    r = request("OPTIONS", NULL, evil);
    ck_assert_str_eq(r->cors_origin, "");
    expect_refusal(r, 403, FW_RPC_TRANSPORT_ERROR, NULL);
    const char *plain[] = {"Authorization: Bearer s3cret", NULL};
    expect_refusal(request("OPTIONS", NULL, plain), 405, FW_RPC_TRANSPORT_ERROR,
                   NULL); /* not a preflight */
    stop();
}
END_TEST

static void check_token_required(void)
{
    const char *none[] = {CT_JSON, ACCEPT_BOTH, NULL};
    resp_t *r = request("POST", INIT_BODY, none);
    ck_assert_str_eq(r->www_authenticate, "Bearer realm=\"mcpsim\"");
    expect_refusal(r, 401, FW_RPC_TRANSPORT_ERROR, "Authorization: Bearer");
    const char *wrong[] = {CT_JSON, ACCEPT_BOTH, "Authorization: Bearer nope", NULL};
    r = request("POST", INIT_BODY, wrong);
    ck_assert_str_eq(r->www_authenticate, "Bearer realm=\"mcpsim\", error=\"invalid_token\"");
    expect_refusal(r, 401, FW_RPC_TRANSPORT_ERROR, "wrong credentials");
    const char *right[] = {CT_JSON, ACCEPT_BOTH, "Authorization: Bearer s3cret", NULL};
    r = request("POST", INIT_BODY, right);
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
}

START_TEST(auth_token_requires_the_bearer_token)
{
    const char *token[] = {"--auth-token", "s3cret", NULL};
    start_with("esp32-demo", token);
    check_token_required();
    const char *get[] = {"Accept: text/event-stream", NULL};
    expect_refusal(request("GET", NULL, get), 401, FW_RPC_TRANSPORT_ERROR, NULL); /* every method */
    stop();

    setenv("MCPSIM_AUTH_TOKEN", "s3cret", 1); /* the environment keeps it off the command line */
    start();
    unsetenv("MCPSIM_AUTH_TOKEN");
    check_token_required();
    stop();
}
END_TEST

START_TEST(the_protocol_version_header_must_be_supported)
{
    start();
    char *sid = initialize();
    const char *list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
    expect_refusal(post_with(sid, list, "MCP-Protocol-Version: 1999-01-01"), 400,
                   FW_RPC_UNSUPPORTED_VERSION, "MCP-Protocol-Version");
    resp_t *r = post_with(sid, list, "MCP-Protocol-Version: 2025-06-18");
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    r = post_with(sid, list, "MCP-Protocol-Version: 2025-03-26"); /* any supported one */
    ck_assert_int_eq(r->status, 200);
    resp_free(r);
    free(sid);
    stop();
}
END_TEST

START_TEST(other_paths_404_and_other_methods_405)
{
    start();
    const char *headers[] = {CT_JSON, ACCEPT_BOTH, NULL};
    expect_refusal(request_to("/", "POST", INIT_BODY, strlen(INIT_BODY), headers), 404,
                   FW_RPC_TRANSPORT_ERROR, "use /mcp");
    expect_refusal(request_to("/mcp/x", "GET", NULL, 0, headers), 404, FW_RPC_TRANSPORT_ERROR,
                   NULL);
    resp_t *r = request("PUT", INIT_BODY, headers);
    ck_assert_str_eq(r->allow, "GET, POST, DELETE");
    expect_refusal(r, 405, FW_RPC_TRANSPORT_ERROR, "PUT");
    r = request("PATCH", INIT_BODY, headers);
    ck_assert_str_eq(r->allow, "GET, POST, DELETE");
    expect_refusal(r, 405, FW_RPC_TRANSPORT_ERROR, NULL);
    stop();
}
END_TEST

static long list_status(const char *sid)
{
    resp_t *r = post(sid, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
    long status = r->status;
    resp_free(r);
    return status;
}

/* At the limit the least recently used idle session ends for a new one; only when every
   session is busy (here: each has its GET stream open) does initialize get 503. */
START_TEST(the_session_limit_ends_the_lru_idle_session_or_gives_503)
{
    const char *two[] = {"--http-max-sessions", "2", "--http-sessions-per-client", "2", NULL};
    start_with("esp32-demo", two);
    char *a = initialize(), *b = initialize();
    ck_assert_int_eq(list_status(a), 200); /* b is now the least recently used */
    char *c = initialize();
    ck_assert_int_eq(list_status(b), 404);
    ck_assert_int_eq(list_status(a), 200);
    ck_assert_int_eq(list_status(c), 200);
    it_conn_t *sa = open_stream(a), *sc = open_stream(c);
    expect_refusal(post(NULL, INIT_BODY), 503, FW_RPC_TRANSPORT_ERROR,
                   "too many sessions of 127.0.0.1 (limit 2");
    delete_session(a);
    char *d = initialize();
    ck_assert_int_eq(list_status(d), 200);
    it_conn_close(sa);
    it_conn_close(sc);
    free(a);
    free(b);
    free(c);
    free(d);
    stop();
}
END_TEST

/* One client address holds at most --http-sessions-per-client (default: half the maximum):
   its own least recently used idle session ends, another's never does. */
START_TEST(a_client_over_its_session_cap_loses_its_own_lru_session)
{
    const char *four[] = {"--http-max-sessions", "4", NULL};
    start_with("esp32-demo", four);
    char *a = initialize(), *b = initialize();
    char *c = initialize(); /* the third of 127.0.0.1, cap 2: a goes */
    ck_assert_int_eq(list_status(a), 404);
    ck_assert_int_eq(list_status(b), 200);
    ck_assert_int_eq(list_status(c), 200);
    char *err = it_stderr(&proc);
    ck_assert_msg(strstr(err, "of a client at its --http-sessions-per-client"), "%s", err);
    free(err);
    free(a);
    free(b);
    free(c);
    stop();
}
END_TEST

START_TEST(an_idle_session_expires)
{
    const char *one[] = {"--http-idle-timeout", "1", NULL};
    start_with("esp32-demo", one);
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}";
    char *busy = initialize(), *idle = initialize();
    for (int i = 0; i < 4; i++) { /* 2 s of requests every 0.5 s: never idle for 1 s */
        usleep(500 * 1000);
        json_decref(rpc(busy, ping));
    }
    expect_refusal(post(idle, ping), 404, FW_RPC_SESSION_NOT_FOUND, "expired");
    json_decref(rpc(busy, ping));
    char *err = it_stderr(&proc);
    ck_assert_ptr_nonnull(strstr(err, "expired: idle for"));
    free(err);
    free(busy);
    free(idle);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- streams */

START_TEST(get_streams_carry_each_sessions_own_subscriptions)
{
    start();
    it_conn_t *ctl = it_tcp_connect(proc.control_port);
    char *a = initialize(), *b = initialize();
    json_decref(rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"pin://sensor\"}}"));
    it_conn_t *sa = open_stream(a), *sb = open_stream(b);
    json_t *r = it_call(ctl, 1, "sim.advance", "{\"ms\":1000}"); /* the sensor is sampled */
    it_result(r);
    json_decref(r);
    ck_assert(wait_for(sa, "\"notifications/resources/updated\"", IT_TIMEOUT));
    ck_assert(!wait_for(sb, "notifications/resources/updated", 0.5));

    /* Unsubscribed, A hears nothing more; subscribed, B does. */
    json_decref(rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\","
                       "\"params\":{\"uri\":\"pin://sensor\"}}"));
    json_decref(rpc(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"pin://sensor\"}}"));
    r = it_call(ctl, 2, "sim.advance", "{\"ms\":1000}");
    json_decref(r);
    ck_assert(wait_for(sb, "pin://sensor", IT_TIMEOUT));
    ck_assert(!wait_for(sa, "notifications/resources/updated", 0.5));
    it_conn_close(sa);
    it_conn_close(sb);
    it_conn_close(ctl);
    free(a);
    free(b);
    stop();
}
END_TEST

START_TEST(a_change_made_over_http_reaches_another_sessions_stream)
{
    start();
    char *a = initialize(), *b = initialize();
    json_decref(rpc(a, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"pin://led\"}}"));
    it_conn_t *sa = open_stream(a);
    json_decref(call_tool(b, 3, "gpio_write", "{\"pin\":2,\"value\":true}"));
    ck_assert(wait_for(sa, "\"uri\":\"pin://led\"", IT_TIMEOUT));
    it_conn_close(sa);
    free(a);
    free(b);
    stop();
}
END_TEST

/* MCP 2026-07-28 subscriptions/listen: the POST is answered by an SSE stream that starts with
   the acknowledgement, carries a pin's updates made by another client, each tagged with the
   listen request's id, and ends when its client closes it (HTTP's cancellation of a stream);
   its slot is then free. try_listen: the stream, or NULL when the POST was not answered 200. */
static it_conn_t *try_listen(const char *id)
{
    it_conn_t *c = it_tcp_connect(http_port);
    char body[512], req[1024];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"subscriptions/listen\","
             "\"params\":{\"notifications\":{\"resourceSubscriptions\":[\"pin://led\"]},"
             "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
             id);
    snprintf(req, sizeof req,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
             "Mcp-Method: subscriptions/listen\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n%s",
             http_port, strlen(body), body);
    it_send(c, req);
    char *status = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(status);
    ck_assert_msg(strncmp(status, "HTTP/1.1 200", 12) == 0, "listen: %s", status);
    free(status);
    bool stream = false, json = false; /* the answer's Content-Type */
    while (!stream && !json) {
        char *line = it_read_line(c, IT_TIMEOUT);
        ck_assert_msg(line && line[0] != '\r', "listen: no Content-Type");
        stream = strcasestr(line, "Content-Type: text/event-stream") != NULL;
        json = strcasestr(line, "Content-Type: application/json") != NULL;
        free(line);
    }
    if (json) { /* all slots taken: a JSON answer, -32603 (its text is test_it_listen's) */
        it_conn_close(c);
        return NULL;
    }
    ck_assert(wait_for(c, "notifications/subscriptions/acknowledged", IT_TIMEOUT));
    return c;
}

static it_conn_t *open_listen(const char *id)
{
    it_conn_t *c = try_listen(id);
    ck_assert_msg(c != NULL, "listen %s was refused", id);
    return c;
}

/* The next tagged update of pin://led on the listen stream ls. */
static bool next_led_update(it_conn_t *ls, const char *id)
{
    char tag[128];
    snprintf(tag, sizeof tag, "\"io.modelcontextprotocol/subscriptionId\":\"%s\"", id);
    double deadline = it_now() + IT_TIMEOUT;
    bool seen = false;
    while (!seen && it_now() < deadline) {
        char *line = it_read_line(ls, deadline - it_now());
        if (!line) break;
        seen = strstr(line, "notifications/resources/updated") != NULL &&
               strstr(line, "\"uri\":\"pin://led\"") != NULL && strstr(line, tag) != NULL;
        free(line);
    }
    return seen;
}

START_TEST(a_listen_stream_carries_updates_until_its_client_closes_it)
{
    start();
    it_conn_t *ls = open_listen("listen-1");
    char *b = initialize();
    json_decref(call_tool(b, 3, "gpio_write", "{\"pin\":2,\"value\":true}"));
    ck_assert_msg(next_led_update(ls, "listen-1"),
                  "no tagged notifications/resources/updated on the listen stream");
    /* a POSTed cancellation naming its id comes from no known client (a stateless POST has no
       identity): the stream goes on */
    const char *ch[] = {CT_JSON, ACCEPT_BOTH, "MCP-Protocol-Version: 2026-07-28",
                        "Mcp-Method: notifications/cancelled", NULL};
    resp_t *r = request("POST",
                        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                        "\"params\":{\"requestId\":\"listen-1\",\"_meta\":{\"io."
                        "modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io."
                        "modelcontextprotocol/clientCapabilities\":{}}}}",
                        ch);
    ck_assert_msg(r->status == 202, "cancel: %ld %s", r->status, r->body);
    resp_free(r);
    json_decref(call_tool(b, 4, "gpio_write", "{\"pin\":2,\"value\":false}"));
    ck_assert_msg(next_led_update(ls, "listen-1"), "the stream ended with another's cancel");
    /* the other slots taken, then ls's client goes away: its slot serves a new stream */
    it_conn_t *more[16];
    size_t n = 0;
    while (n < 16 && (more[n] = try_listen("listen-more")) != NULL) n++;
    ck_assert_uint_lt(n, 16);
    it_conn_close(ls);
    it_conn_t *again = NULL;
    for (double deadline = it_now() + IT_TIMEOUT; !again && it_now() < deadline;)
        if (!(again = try_listen("listen-2"))) usleep(100 * 1000);
    ck_assert_msg(again != NULL, "the closed stream's slot was not freed");
    it_conn_close(again);
    for (size_t k = 0; k < n; k++) it_conn_close(more[k]);
    free(b);
    stop();
}
END_TEST

START_TEST(one_get_stream_per_session_and_get_needs_sse)
{
    start();
    char *sid = initialize();
    char sh[128];
    snprintf(sh, sizeof sh, "Mcp-Session-Id: %s", sid);
    const char *json_only[] = {sh, "Accept: application/json", NULL};
    expect_refusal(request("GET", NULL, json_only), 406, FW_RPC_TRANSPORT_ERROR,
                   "text/event-stream");
    const char *no_session[] = {"Accept: text/event-stream", NULL};
    expect_refusal(request("GET", NULL, no_session), 400, FW_RPC_TRANSPORT_ERROR, NULL);
    it_conn_t *s1 = open_stream(sid);
    const char *again[] = {sh, "Accept: text/event-stream", NULL};
    expect_refusal(request("GET", NULL, again), 409, FW_RPC_TRANSPORT_ERROR, "already");
    it_conn_close(s1); /* the client goes away: its stream ends within 250 ms */
    usleep(600 * 1000);
    it_conn_t *s2 = open_stream(sid); /* so the session may open another */
    it_conn_close(s2);
    free(sid);
    stop();
}
END_TEST

/* The threads of the mcpsim process (/proc/PID/task). */
static int thread_count(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)proc.pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    int threads = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1) break;
    fclose(f);
    return threads;
}

/* libmicrohttpd runs on the loop: with streams open, requests in flight and the dashboard
   serving too, mcpsim is one thread, and a stream parked with nothing to send costs no CPU. */
START_TEST(http_runs_on_the_one_loop_thread)
{
    const char *extra[] = {"--dashboard", "0", NULL};
    start_with("esp32-demo", extra);
    char *sid = initialize();
    it_conn_t *streams[8];
    for (int i = 0; i < 8; i++) {
        char *other = initialize();
        streams[i] = open_stream(other);
        free(other);
    }
    json_t *r = rpc(sid, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    json_decref(r);
    ck_assert_int_eq(thread_count(), 1);
    double cpu = it_cpu_seconds(&proc);
    usleep(1000 * 1000); /* 8 idle streams for 1 s: parked, not polling */
    ck_assert_msg(it_cpu_seconds(&proc) - cpu < 0.1, "%.3f s of CPU while idle",
                  it_cpu_seconds(&proc) - cpu);
    for (int i = 0; i < 8; i++) it_conn_close(streams[i]);
    ck_assert_int_eq(thread_count(), 1);
    free(sid);
    stop();
}
END_TEST

START_TEST(delete_ends_the_sessions_stream)
{
    start();
    char *sid = initialize();
    it_conn_t *s = open_stream(sid);
    delete_session(sid);
    /* The chunked body ends: its last chunk is "0". */
    double deadline = it_now() + IT_TIMEOUT;
    bool ended = false;
    while (!ended && it_now() < deadline) {
        char *line = it_read_line(s, deadline - it_now());
        if (!line) break;
        ended = strcmp(line, "0\r") == 0;
        free(line);
    }
    ck_assert(ended);
    it_conn_close(s);
    free(sid);
    stop();
}
END_TEST

START_TEST(in_real_time_updates_of_a_sampled_pin_arrive_by_themselves)
{
    const char *realtime[] = {"--clock", "realtime", NULL};
    start_with("esp32-demo", realtime);
    char *sid = initialize();
    json_decref(rpc(sid, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                         "\"params\":{\"uri\":\"pin://sensor\"}}"));
    it_conn_t *st = open_stream(sid);
    /* The sensor is sampled every 500 ms by the loop's clock timer: no request needed. */
    ck_assert(wait_for(st, "pin://sensor", IT_TIMEOUT));
    json_decref(call_tool(sid, 3, "adc_read", "{\"pin\":34}")); /* requests keep the clock */
    ck_assert(wait_for(st, "pin://sensor", IT_TIMEOUT));
    it_conn_close(st);
    free(sid);
    stop();
}
END_TEST

/* Splits an SSE body into the JSON of its events (asserting each is "event: message"). */
static json_t *sse_messages(const char *body)
{
    json_t *list = json_array();
    const char *p = body;
    while ((p = strstr(p, "event: message\ndata: ")) != NULL) {
        p += 21;
        const char *end = strstr(p, "\n\n");
        ck_assert_ptr_nonnull(end);
        json_t *msg = json_loadb(p, (size_t)(end - p), 0, NULL);
        ck_assert_ptr_nonnull(msg);
        json_array_append_new(list, msg);
        p = end + 2;
    }
    return list;
}

START_TEST(progress_notifications_precede_the_result_in_an_sse_answer)
{
    start_with("greenhouse", NULL);
    char *sid = initialize();
    resp_t *r = post(sid, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
                          "\"name\":\"i2c_scan\",\"arguments\":{},"
                          "\"_meta\":{\"progressToken\":\"scan-1\"}}}");
    ck_assert_int_eq(r->status, 200);
    ck_assert_str_eq(r->content_type, "text/event-stream");
    json_t *msgs = sse_messages(r->body);
    size_t n = json_array_size(msgs);
    ck_assert_uint_ge(n, 2);
    json_int_t last = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        json_t *m = json_array_get(msgs, i);
        ck_assert_str_eq(json_string_value(json_object_get(m, "method")), "notifications/progress");
        json_t *params = json_object_get(m, "params");
        ck_assert_str_eq(json_string_value(json_object_get(params, "progressToken")), "scan-1");
        json_int_t progress = json_integer_value(json_object_get(params, "progress"));
        ck_assert_int_gt(progress, last); /* increasing */
        last = progress;
    }
    json_t *result = json_array_get(msgs, n - 1);
    ck_assert_int_eq(json_integer_value(json_object_get(result, "id")), 7);
    ck_assert_ptr_nonnull(json_object_get(result, "result"));
    json_decref(msgs);
    resp_free(r);

    /* Without a progress token the same call is one application/json answer. */
    json_decref(call_tool(sid, 8, "i2c_scan", "{}"));
    free(sid);
    stop();
}
END_TEST

/* Sends a POST over a raw connection (its answer may be a stream) and reads its status line. */
static it_conn_t *post_raw(const char *sid, const char *body)
{
    it_conn_t *c = it_tcp_connect(http_port);
    char head[512];
    snprintf(head, sizeof head,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\n"
             "Content-Length: %zu\r\n\r\n",
             http_port, sid, strlen(body));
    it_send(c, head);
    it_send(c, body);
    char *status = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(status);
    ck_assert_msg(strncmp(status, "HTTP/1.1 200", 12) == 0, "POST: %s", status);
    free(status);
    ck_assert(wait_for(c, "text/event-stream", IT_TIMEOUT));
    return c;
}

/* The next SSE event whose data holds needle, parsed; NULL on timeout or end of stream. */
static json_t *next_event(it_conn_t *c, const char *needle, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    for (;;) {
        double left = deadline - it_now();
        char *line = left > 0 ? it_read_line(c, left) : NULL;
        if (!line) return NULL;
        json_t *msg = NULL;
        if (strncmp(line, "data: ", 6) == 0 && strstr(line, needle))
            msg = json_loads(line + 6, 0, NULL);
        bool end = strcmp(line, "0\r") == 0; /* the chunked body's end */
        free(line);
        if (msg || end) return msg;
    }
}

/* True when the chunked answer ends (its last chunk) within timeout_s, no event first. */
static bool stream_ends(it_conn_t *c, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    for (;;) {
        double left = deadline - it_now();
        char *line = left > 0 ? it_read_line(c, left) : NULL;
        if (!line) return false;
        bool end = strcmp(line, "0\r") == 0, event = strncmp(line, "data: ", 6) == 0;
        free(line);
        if (end || event) return end;
    }
}

#define INIT_SAMPLING                                                                              \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"     \
    "\"2025-06-18\",\"capabilities\":{\"sampling\":{}},\"clientInfo\":{\"name\":\"it\","           \
    "\"version\":\"1\"}}}"

/* Asks for test_sampling in call stream `call_id`; returns the stream, *asked the request's id. */
static it_conn_t *call_sampling(const char *sid, const char *call_id, json_int_t *asked)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"test_sampling\",\"arguments\":{\"prompt\":\"Capital of France?\"}}}",
             call_id);
    it_conn_t *c = post_raw(sid, body);
    json_t *req = next_event(c, "sampling/createMessage", IT_TIMEOUT);
    ck_assert_ptr_nonnull(req);
    ck_assert(json_is_integer(json_object_get(req, "id")));
    *asked = json_integer_value(json_object_get(req, "id"));
    json_decref(req);
    return c;
}

START_TEST(a_tool_asking_the_client_streams_the_request_then_the_result_after_the_answer)
{
    const char *fixtures[] = {"--conformance-fixtures", NULL};
    start_with("esp32-demo", fixtures);
    resp_t *r = post(NULL, INIT_SAMPLING);
    ck_assert_int_eq(r->status, 200);
    char *sid = strdup(r->session);
    resp_free(r);
    json_int_t asked = 0;
    it_conn_t *call = call_sampling(sid, "call-1", &asked);

    char answer[512];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":"
             "{\"type\":\"text\",\"text\":\"Paris\"},\"model\":\"m\",\"stopReason\":\"endTurn\"}}",
             (long long)asked);
    r = post(sid, answer); /* the answer, on a POST of its own: 202 */
    ck_assert_int_eq(r->status, 202);
    ck_assert_uint_eq(r->len, 0);
    resp_free(r);
    json_t *result = next_event(call, "call-1", IT_TIMEOUT); /* on the waiting call's stream */
    ck_assert_ptr_nonnull(result);
    char *text = json_dumps(result, JSON_COMPACT);
    ck_assert_msg(strstr(text, "Paris"), "result: %s", text);
    free(text);
    json_decref(result);
    ck_assert(stream_ends(call, IT_TIMEOUT)); /* the call is answered: its stream ends */
    it_conn_close(call);

    /* Cancelled while it waits: the stream ends without a result. */
    call = call_sampling(sid, "call-2", &asked);
    r = post(sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
                  "\"params\":{\"requestId\":\"call-2\"}}");
    ck_assert_int_eq(r->status, 202);
    resp_free(r);
    ck_assert(stream_ends(call, IT_TIMEOUT));
    it_conn_close(call);
    free(sid);
    stop();
}
END_TEST

START_TEST(a_tool_cannot_ask_a_client_without_the_capability)
{
    const char *fixtures[] = {"--conformance-fixtures", NULL};
    start_with("esp32-demo", fixtures);
    char *sid = initialize(); /* declares no sampling */
    resp_t *r = post(sid, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                          "{\"name\":\"test_sampling\",\"arguments\":{\"prompt\":\"x\"}}}");
    ck_assert_int_eq(r->status, 200); /* answered at once (a log message may precede it) */
    ck_assert_msg(strstr(r->body, "\"isError\":true") && strstr(r->body, "capability sampling"),
                  "reply: %s", r->body);
    resp_free(r);
    free(sid);
    stop();
}
END_TEST

/* Clients working at once, each in its own session (ThreadSanitizer watches the server). */
static void *client_thread(void *arg)
{
    (void)arg;
    char *sid = initialize();
    for (int i = 0; i < 15; i++) {
        json_decref(
            call_tool(sid, 10 + i, "gpio_write",
                      i % 2 ? "{\"pin\":2,\"value\":true}" : "{\"pin\":2,\"value\":false}"));
        json_decref(call_tool(sid, 100 + i, "adc_read", "{\"pin\":34}"));
    }
    delete_session(sid);
    free(sid);
    return NULL;
}

START_TEST(concurrent_sessions_with_streams_and_the_clock_moving)
{
    start();
    it_conn_t *ctl = it_tcp_connect(proc.control_port);
    char *watcher = initialize();
    json_decref(rpc(watcher, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                             "\"params\":{\"uri\":\"pin://led\"}}"));
    it_conn_t *st = open_stream(watcher);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, client_thread, NULL), 0);
    for (int i = 0; i < 10; i++) json_decref(it_call(ctl, i, "sim.advance", "{\"ms\":100}"));
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    ck_assert(wait_for(st, "pin://led", IT_TIMEOUT));
    it_conn_close(st);
    it_conn_close(ctl);
    free(watcher);
    stop();
}
END_TEST

static Suite *it_http_suite(void)
{
    Suite *s = suite_create("it_http");
    TCase *tc = tcase_create("sessions");
    tcase_add_test(tc, initialize_issues_a_random_session_id_per_session);
    tcase_add_test(tc, a_failed_initialize_creates_no_session);
    tcase_add_test(tc, tools_list_and_gpio_and_adc_calls_in_a_session);
    tcase_add_test(tc, requests_need_a_known_session);
    tcase_add_test(tc, a_post_of_notifications_or_responses_gets_202_without_body);
    suite_add_tcase(s, tc);
    tc = tcase_create("checks");
    tcase_add_test(tc, malformed_json_gets_400_with_a_parse_error);
    tcase_add_test(tc, a_reused_request_state_holds_only_its_own_body);
    tcase_add_test(tc, post_needs_json_content_and_an_accept_of_json_and_sse);
    tcase_add_test(tc, a_body_over_1_mib_gets_413);
    tcase_add_test(tc, bodies_beyond_the_input_budget_get_503_with_retry_after);
    tcase_add_test(tc, a_foreign_host_header_gets_403_unless_allowed);
    tcase_add_test(tc, two_host_headers_get_400);
    tcase_add_test(tc, header_names_match_in_any_case);
    tcase_add_test(tc, header_names_of_the_same_length_are_not_confused);
    tcase_add_test(tc, header_verdicts_follow_each_value_in_turn);
    tcase_add_test(tc, a_foreign_origin_gets_403_unless_allowed);
    tcase_add_test(tc, auth_token_requires_the_bearer_token);
    tcase_add_test(tc, browsers_of_allowed_origins_get_cors_headers);
    tcase_add_test(tc, the_protocol_version_header_must_be_supported);
    tcase_add_test(tc, other_paths_404_and_other_methods_405);
    tcase_add_test(tc, the_session_limit_ends_the_lru_idle_session_or_gives_503);
    tcase_add_test(tc, a_client_over_its_session_cap_loses_its_own_lru_session);
    tcase_add_test(tc, an_idle_session_expires);
    suite_add_tcase(s, tc);
    tc = tcase_create("streams");
    tcase_add_test(tc, get_streams_carry_each_sessions_own_subscriptions);
    tcase_add_test(tc, a_change_made_over_http_reaches_another_sessions_stream);
    tcase_add_test(tc, a_listen_stream_carries_updates_until_its_client_closes_it);
    tcase_add_test(tc, one_get_stream_per_session_and_get_needs_sse);
    tcase_add_test(tc, delete_ends_the_sessions_stream);
    tcase_add_test(tc, in_real_time_updates_of_a_sampled_pin_arrive_by_themselves);
    tcase_add_test(tc, progress_notifications_precede_the_result_in_an_sse_answer);
    tcase_add_test(tc,
                   a_tool_asking_the_client_streams_the_request_then_the_result_after_the_answer);
    tcase_add_test(tc, a_tool_cannot_ask_a_client_without_the_capability);
    tcase_add_test(tc, concurrent_sessions_with_streams_and_the_clock_moving);
    tcase_add_test(tc, http_runs_on_the_one_loop_thread);
    tcase_add_test(tc, a_request_head_over_the_connection_memory_gets_431);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_http_suite)
