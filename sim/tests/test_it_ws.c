/* test_it_ws.c: integration: MCP over WebSocket (--ws) and the dial-out link (--connect) of
   build/bin/mcpsim, driven by ws_peer.c as the client and as the backend. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"
#include "ws_peer.h"

static it_proc_t proc;
static int ws_port; /* the --ws listener's port, 0 without one */

static const char initialize[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";

/* Starts esp32-demo with TCP, the control channel, the virtual clock and extra (NULL-terminated);
   reads the WebSocket port from the debug log ("ws: listening on ws://127.0.0.1:PORT/mcp"). */
static bool start_with(const char *const *extra)
{
    const char *args[32] = {"--board", "esp32-demo", "--tcp",   "0",           "--control",
                            "0",       "--clock",    "virtual", "--log-level", "debug"};
    size_t n = 10;
    for (size_t i = 0; extra && extra[i] && n < 31; i++) args[n++] = extra[i];
    args[n] = NULL;
    if (!it_start(&proc, args)) return false;
    char *log = it_stderr(&proc);
    const char *s = strstr(log, "ws: listening on ws://127.0.0.1:");
    ws_port = s ? atoi(s + strlen("ws: listening on ws://127.0.0.1:")) : 0;
    free(log);
    return true;
}

static void start(void)
{
    const char *extra[] = {"--ws", "0", NULL};
    ck_assert_msg(start_with(extra), "mcpsim did not start (exit %d)", proc.status);
    ck_assert_int_gt(ws_port, 0);
}

static void stop(void)
{
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}

static bool log_has(const char *text)
{
    char *log = it_stderr(&proc);
    bool found = strstr(log, text) != NULL;
    if (!found) fprintf(stderr, "---- mcpsim's log, without '%s':\n%s----\n", text, log);
    free(log);
    return found;
}

/* The JSON-RPC message of m: its payload when m is an envelope. Borrowed. */
/* The next message is a close frame with code (pings answered, pongs skipped on the way). */
static void expect_close(ws_peer_t *p, int code)
{
    int got = 0;
    char *data = NULL;
    ck_assert_int_eq(ws_peer_recv(p, IT_TIMEOUT, &data, NULL, &got), WS_OP_CLOSE);
    ck_assert_int_eq(got, code);
}

static json_t *body_of(json_t *m)
{
    return json_is_string(json_object_get(m, "type")) ? json_object_get(m, "payload") : m;
}

/* The next message carrying an id (notifications on the way are dropped). */
static json_t *next_response(ws_peer_t *p)
{
    for (;;) {
        json_t *m = ws_peer_recv_json(p, IT_TIMEOUT);
        if (json_object_get(body_of(m), "id")) return m;
        json_decref(m);
    }
}

static json_t *rpc(ws_peer_t *p, const char *text)
{
    ws_peer_send_text(p, text);
    return next_response(p);
}

/* The next notification named method (others, such as log messages, are dropped). */
static json_t *next_notification(ws_peer_t *p, const char *method)
{
    for (;;) {
        json_t *m = ws_peer_recv_json(p, IT_TIMEOUT);
        const char *name = json_string_value(json_object_get(body_of(m), "method"));
        ck_assert_msg(!json_object_get(body_of(m), "id"), "a response where %s was expected",
                      method);
        if (name && strcmp(name, method) == 0) return m;
        json_decref(m);
    }
}

static const char *str_at(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static bool has_tool(json_t *tools, const char *name)
{
    for (size_t i = 0; i < json_array_size(tools); i++)
        if (strcmp(str_at(json_array_get(tools, i), "name"), name) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- plain JSON-RPC */

START_TEST(plain_json_rpc_initialize_list_and_call_gpio)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    json_t *r = rpc(p, initialize);
    json_t *res = it_result(r);
    ck_assert_str_eq(str_at(res, "protocolVersion"), "2025-06-18");
    ck_assert_str_eq(str_at(json_object_get(res, "serverInfo"), "name"), "esp32-demo");
    json_decref(r);
    ws_peer_send_text(p, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 2); /* not a reply to the
                                                                         notification */
    json_t *tools = json_object_get(it_result(r), "tools");
    ck_assert(has_tool(tools, "gpio_write"));
    ck_assert(has_tool(tools, "gpio_read"));
    json_decref(r);

    r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}}");
    ck_assert(!json_is_true(json_object_get(it_result(r), "isError")));
    json_decref(r);
    r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"gpio_read\",\"arguments\":{\"pin\":2}}}");
    json_t *sc = json_object_get(it_result(r), "structuredContent");
    ck_assert(json_is_true(json_object_get(sc, "value")));
    json_decref(r);
    ws_peer_close(p);
    stop();
}
END_TEST

/* Each message is exactly one text frame holding one JSON text, without a newline. */
START_TEST(every_reply_is_one_text_frame_without_newline)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    ws_peer_send_text(p, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}");
    char *data = NULL;
    size_t len = 0;
    ck_assert_int_eq(ws_peer_recv(p, IT_TIMEOUT, &data, &len, NULL), WS_OP_TEXT);
    ck_assert_str_eq(data, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}");
    free(data);
    ck_assert(ws_peer_quiet(p, 0.2));
    ws_peer_close(p);
    stop();
}
END_TEST

/* A client that sends hundreds of requests at once (each answer written at once or queued):
   another client is answered meanwhile, and every one of its answers comes, once, in order. */
START_TEST(a_pipelining_client_loses_nothing_and_another_is_answered)
{
    enum { N = 300 };
    start();
    ws_peer_t *busy = ws_peer_open(ws_port), *other = ws_peer_open(ws_port);
    char req[96];
    for (int i = 1; i <= N; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}", i);
        ws_peer_send_text(busy, req);
    }
    json_t *r = rpc(other, "{\"jsonrpc\":\"2.0\",\"id\":\"o\",\"method\":\"ping\"}");
    ck_assert_str_eq(str_at(r, "id"), "o");
    json_decref(r);
    for (int i = 1; i <= N; i++) {
        r = next_response(busy);
        ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), i);
        ck_assert_ptr_nonnull(json_object_get(r, "result"));
        json_decref(r);
    }
    ck_assert(ws_peer_quiet(busy, 0.2));
    ws_peer_close(busy);
    ws_peer_close(other);
    stop();
}
END_TEST

/* Every connection is its own MCP session: negotiated versions differ, state does not leak. */
START_TEST(two_connections_have_their_own_sessions)
{
    start();
    ws_peer_t *old = ws_peer_open(ws_port), *now = ws_peer_open(ws_port);
    json_t *r = rpc(old, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                         "\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"old\",\"version\":\"1\"}}}");
    ck_assert_str_eq(str_at(it_result(r), "protocolVersion"), "2024-11-05");
    json_decref(r);
    r = rpc(now, initialize);
    ck_assert_str_eq(str_at(it_result(r), "protocolVersion"), "2025-06-18");
    json_decref(r);
    static const char call[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
                               "{\"name\":\"gpio_read\",\"arguments\":{\"pin\":2}}}";
    r = rpc(old, call); /* structuredContent arrived with 2025-06-18 */
    ck_assert_ptr_null(json_object_get(it_result(r), "structuredContent"));
    json_decref(r);
    r = rpc(now, call);
    ck_assert_ptr_nonnull(json_object_get(it_result(r), "structuredContent"));
    json_decref(r);
    ws_peer_close(old);
    ws_peer_close(now);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the envelope */

START_TEST(an_envelope_is_answered_in_an_envelope_with_its_session_id)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    /* The payload reaches the core byte for byte: the id 1.50 comes back as 1.50. */
    ws_peer_send_text(p,
                      "{\"session_id\":\"s-42\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\","
                      "\"id\":1.50,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                      "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"b\","
                      "\"version\":\"1\"}}}}");
    char *data = NULL;
    ck_assert_int_eq(ws_peer_recv(p, IT_TIMEOUT, &data, NULL, NULL), WS_OP_TEXT);
    static const char head[] = "{\"session_id\":\"s-42\",\"type\":\"mcp\",\"payload\":"
                               "{\"jsonrpc\":\"2.0\",\"id\":1.50,\"result\":";
    ck_assert_msg(strncmp(data, head, sizeof head - 1) == 0, "not wrapped as sent: %s", data);
    free(data);

    json_t *r = rpc(p, "{\"session_id\":\"s-42\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\","
                       "\"id\":\"a\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"\","
                       "\"withUserTools\":false}}}");
    ck_assert_str_eq(str_at(r, "session_id"), "s-42");
    ck_assert_str_eq(str_at(r, "type"), "mcp");
    ck_assert_str_eq(str_at(json_object_get(r, "payload"), "id"), "a");
    ck_assert(
        has_tool(json_object_get(it_result(json_object_get(r, "payload")), "tools"), "gpio_write"));
    json_decref(r);

    /* Plain JSON-RPC on the same connection is answered plain. */
    r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
    ck_assert_ptr_null(json_object_get(r, "type"));
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 9);
    json_decref(r);

    /* Other envelope types get no answer: the next answer is the ping's. */
    ws_peer_send_text(p, "{\"session_id\":\"s-42\",\"type\":\"listen\",\"state\":\"start\"}");
    r = rpc(p, "{\"session_id\":7,\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\",\"id\":10,"
               "\"method\":\"ping\"}}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "session_id")), 7); /* any JSON */
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "payload"), "id")), 10);
    json_decref(r);
    ck_assert(log_has("envelope of type \"listen\" ignored"));
    ws_peer_close(p);
    stop();
}
END_TEST

START_TEST(a_malformed_envelope_gets_invalid_request_in_an_envelope)
{
    static const char *const bad[] = {
        "{\"session_id\":\"s\",\"type\":\"mcp\",\"payload\":\"tools/list\"}",
        "{\"session_id\":\"s\",\"type\":\"mcp\"}",
        ("{\"session_id\":\"s\",\"type\":\"mcp\",\"payload\":[{\"jsonrpc\":\"2.0\",\"id\":1,"
         "\"method\":\"ping\"}]}"),
    };
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ws_peer_send_text(p, bad[i]);
        json_t *m = ws_peer_recv_json(p, IT_TIMEOUT);
        ck_assert_str_eq(str_at(m, "session_id"), "s");
        ck_assert_str_eq(str_at(m, "type"), "mcp");
        json_t *payload = json_object_get(m, "payload");
        ck_assert(json_is_null(json_object_get(payload, "id")));
        ck_assert_int_eq(it_error_code(payload), FW_RPC_INVALID_REQUEST);
        json_decref(m);
    }
    /* Text that is not JSON is the core's parse error, plain. */
    ws_peer_send_text(p, "{\"type\":\"mcp\",");
    json_t *m = ws_peer_recv_json(p, IT_TIMEOUT);
    ck_assert_int_eq(it_error_code(m), FW_RPC_PARSE_ERROR);
    json_decref(m);
    ws_peer_close(p);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- pushed notifications */

START_TEST(a_subscriber_is_told_after_the_control_channel_advances_the_clock)
{
    start();
    ws_peer_t *plain = ws_peer_open(ws_port), *wrapped = ws_peer_open(ws_port);
    ws_peer_t *other = ws_peer_open(ws_port);
    json_decref(rpc(plain, initialize));
    json_t *r = rpc(plain, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                           "\"params\":{\"uri\":\"pin://sensor\"}}");
    it_result(r);
    json_decref(r);
    json_decref(rpc(wrapped, "{\"session_id\":\"e-1\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":"
                             "\"2.0\",\"id\":1,\"method\":\"resources/subscribe\",\"params\":"
                             "{\"uri\":\"pin://sensor\"}}}"));
    json_decref(rpc(other, initialize));
    ck_assert(ws_peer_quiet(plain, 0.3)); /* virtual time stands still: nothing changes */

    it_conn_t *ctl = it_tcp_connect(proc.control_port);
    r = it_call(ctl, 1, "sim.advance", "{\"ms\":5000}");
    it_result(r);
    json_decref(r);

    json_t *n = next_notification(plain, "notifications/resources/updated");
    ck_assert_str_eq(str_at(json_object_get(n, "params"), "uri"), "pin://sensor");
    json_decref(n);
    n = next_notification(wrapped, "notifications/resources/updated");
    ck_assert_str_eq(str_at(n, "session_id"), "e-1");
    ck_assert_str_eq(str_at(json_object_get(json_object_get(n, "payload"), "params"), "uri"),
                     "pin://sensor");
    json_decref(n);
    /* The connection that did not subscribe hears nothing of it. */
    r = rpc(other, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 3);
    json_decref(r);
    it_conn_close(ctl);
    ws_peer_close(plain);
    ws_peer_close(wrapped);
    ws_peer_close(other);
    stop();
}
END_TEST

/* A change made through another transport (TCP) reaches the WebSocket subscriber. */
START_TEST(a_change_made_over_tcp_is_pushed_to_a_websocket_subscriber)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    json_decref(rpc(p, initialize));
    json_decref(rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"pin://led\"}}"));
    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(tcp, 1, "gpio_write", "{\"pin\":2,\"value\":true}");
    it_result(r);
    json_decref(r);
    json_t *n = next_notification(p, "notifications/resources/updated");
    ck_assert_str_eq(str_at(json_object_get(n, "params"), "uri"), "pin://led");
    json_decref(n);
    it_conn_close(tcp);
    ws_peer_close(p);
    stop();
}
END_TEST

/* POSTs body to the HTTP transport's /mcp; asserts a 200 and copies Mcp-Session-Id to sid_out
   (if not NULL). */
static void http_post(int port, const char *sid, const char *body, char *sid_out, size_t cap)
{
    char head[1024];
    snprintf(head, sizeof head,
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\n%s%s%sContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n",
             port, sid ? "MCP-Protocol-Version: 2025-06-18\r\nMcp-Session-Id: " : "",
             sid ? sid : "", sid ? "\r\n" : "", strlen(body));
    it_conn_t *c = it_tcp_connect(port);
    it_send(c, head);
    it_send(c, body);
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_msg(line && strstr(line, " 200 "), "HTTP answered %s", line ? line : "nothing");
    free(line);
    while ((line = it_read_line(c, IT_TIMEOUT)) != NULL && strcmp(line, "\r") != 0) {
        if (sid_out && strncasecmp(line, "Mcp-Session-Id: ", 16) == 0)
            snprintf(sid_out, cap, "%.*s", (int)strcspn(line + 16, "\r"), line + 16);
        free(line);
    }
    free(line);
    it_conn_close(c);
}

/* A request served on the HTTP transport's own threads reaches a WebSocket subscriber: the
   loop is woken to push it, as libwebsockets may only be used there (TSan checks this). */
START_TEST(a_change_made_over_http_is_pushed_to_a_websocket_subscriber)
{
    const char *extra[] = {"--ws", "0", "--http", "0", NULL};
    ck_assert(start_with(extra));
    int http_port = 0;
    ck_assert_int_eq(sscanf(proc.http, "http://127.0.0.1:%d/mcp", &http_port), 1);
    ws_peer_t *p = ws_peer_open(ws_port);
    json_decref(rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
                       "\"params\":{\"uri\":\"pin://led\"}}"));
    char sid[80] = "";
    http_post(http_port, NULL, initialize, sid, sizeof sid);
    ck_assert_str_ne(sid, "");
    http_post(http_port, sid,
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
              "\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}}",
              NULL, 0);
    json_t *n = next_notification(p, "notifications/resources/updated");
    ck_assert_str_eq(str_at(json_object_get(n, "params"), "uri"), "pin://led");
    json_decref(n);
    ws_peer_close(p);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the upgrade */

static int upgrade_status(const char *path, const char *host, const char *const *headers,
                          char *head, size_t cap)
{
    ws_peer_t *p = NULL;
    int status = ws_peer_connect(ws_port, path, host, headers, &p, head, cap);
    ws_peer_close(p);
    return status;
}

START_TEST(upgrades_are_checked_for_path_host_and_origin)
{
    char head[4096];
    static const char *const evil[] = {"Origin: http://evil.example", NULL};
    static const char *const local[] = {"Origin: http://localhost:5173", NULL};
    start();
    ck_assert_int_eq(upgrade_status("/mcp", NULL, evil, head, sizeof head), 403);
    ck_assert_msg(strstr(head, " 403 ") != NULL, "%s", head);
    ck_assert(log_has("upgrade refused (403): Origin 'http://evil.example' is not allowed"));
    ck_assert_int_eq(upgrade_status("/mcp", NULL, local, head, sizeof head), 101);
    ck_assert_int_eq(upgrade_status("/mcp", "evil.example:80", NULL, head, sizeof head), 403);
    ck_assert(log_has("Host 'evil.example:80' is not allowed"));
    ck_assert_int_eq(upgrade_status("/mcp", "localhost:1234", NULL, head, sizeof head), 101);
    ck_assert_int_eq(upgrade_status("/other", NULL, NULL, head, sizeof head), 404);
    ck_assert_int_eq(upgrade_status("/mcp/x", NULL, NULL, head, sizeof head), 404);
    ck_assert_int_eq(upgrade_status("/mcp?device=1", NULL, NULL, head, sizeof head), 101);
    static const char *const chat[] = {"Sec-WebSocket-Protocol: chat", NULL};
    static const char *const mcp[] = {"Sec-WebSocket-Protocol: chat, mcp", NULL};
    ck_assert_int_eq(upgrade_status("/mcp", NULL, chat, head, sizeof head), 400);
    ck_assert_int_eq(upgrade_status("/mcp", NULL, mcp, head, sizeof head), 101);
    ck_assert_msg(strcasestr(head, "Sec-WebSocket-Protocol: mcp\r\n") != NULL, "%s", head);

    /* A request without an upgrade: 426 at /mcp. */
    it_conn_t *c = it_tcp_connect(ws_port);
    it_send(c, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(line);
    ck_assert_msg(strstr(line, " 426 ") != NULL, "%s", line);
    free(line);
    it_conn_close(c);
    stop();
}
END_TEST

START_TEST(allowed_origins_and_the_bearer_token_apply_to_the_upgrade)
{
    char head[4096];
    static const char *const app[] = {"Origin: https://app.example", NULL};
    static const char *const app_token[] = {"Origin: https://app.example",
                                            "Authorization: Bearer sekret", NULL};
    static const char *const wrong[] = {"Authorization: Bearer nope", NULL};
    static const char *const evil_token[] = {"Origin: http://evil.example",
                                             "Authorization: Bearer sekret", NULL};
    const char *extra[] = {"--ws",   "0", "--allow-origin", "https://app.example", "--auth-token",
                           "sekret", NULL};
    ck_assert(start_with(extra));
    ck_assert_int_eq(upgrade_status("/mcp", NULL, app, head, sizeof head), 401);
    ck_assert_msg(strcasestr(head, "WWW-Authenticate: Bearer") != NULL, "%s", head);
    ck_assert_int_eq(upgrade_status("/mcp", NULL, wrong, head, sizeof head), 401);
    ck_assert_int_eq(upgrade_status("/mcp", NULL, app_token, head, sizeof head), 101);
    ck_assert_int_eq(upgrade_status("/mcp", NULL, evil_token, head, sizeof head), 403);
    static const char *const second_host[] = {"Host: evil.example", NULL};
    ck_assert_int_eq(upgrade_status("/mcp", NULL, second_host, head, sizeof head), 400);
    stop();

    /* a long token (1,100 characters) works as it does on --http */
    static char token[1101], auth[1200];
    for (size_t i = 0; i < 1100; i++) token[i] = (char)('A' + i % 26);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    const char *long_token[] = {"--ws", "0", "--auth-token", token, NULL};
    const char *const with_long[] = {auth, NULL};
    ck_assert(start_with(long_token));
    ck_assert_int_eq(upgrade_status("/mcp", NULL, with_long, head, sizeof head), 101);
    auth[30] ^= 1;
    ck_assert_int_eq(upgrade_status("/mcp", NULL, with_long, head, sizeof head), 401);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- frames */

START_TEST(a_binary_frame_closes_the_connection_with_1003)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port), *other = ws_peer_open(ws_port);
    static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    ws_peer_send_frame(p, WS_OP_BINARY, true, msg, sizeof msg - 1);
    expect_close(p, 1003);
    json_t *r = rpc(other, msg); /* the others go on */
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 1);
    json_decref(r);
    ws_peer_close(p);
    ws_peer_close(other);
    stop();
}
END_TEST

START_TEST(text_that_is_not_utf8_closes_the_connection_with_1007)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    ws_peer_send_frame(p, WS_OP_TEXT, true, "{\"a\":\"\xff\"}", 8);
    expect_close(p, 1007);
    ws_peer_close(p);
    stop();
}
END_TEST

START_TEST(a_fragmented_message_is_reassembled)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    ws_peer_send_frame(p, WS_OP_TEXT, false, "{\"jsonrpc\":\"2.0\",", 17);
    ws_peer_send_frame(p, WS_OP_PING, true, "hi", 2); /* control frames may come in between */
    ws_peer_send_frame(p, WS_OP_CONT, false, "\"id\":7,\"method\"", 15);
    ws_peer_send_frame(p, WS_OP_CONT, true, ":\"ping\"}", 8);
    json_t *r = next_response(p);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 7);
    it_result(r);
    json_decref(r);
    ws_peer_close(p);
    stop();
}
END_TEST

/* UTF-8 is checked across a message's fragments, and only on its own bytes: a character cut
   between two fragments is whole text, a pong with a binary payload between fragments is not
   part of the text (libwebsockets 4.1.6's own check closed this with 1007), and an overlong
   form cut between fragments is refused. */
START_TEST(utf8_is_checked_across_fragments_and_not_on_control_frames)
{
#define FRAME(op, fin, text) ws_peer_send_frame(p, op, fin, text, sizeof text - 1)
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    FRAME(WS_OP_TEXT, false, "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3");
    FRAME(WS_OP_PONG, true, "\x89\x02\xff\xc0"); /* not UTF-8, and need not be */
    FRAME(WS_OP_CONT, false, "\xa9\xe2\x82");    /* the end of an e-acute, the start of a euro */
    FRAME(WS_OP_PING, true, "\xfe");
    FRAME(WS_OP_CONT, true, "\xac\",\"method\":\"ping\"}");
    json_t *r = next_response(p);
    ck_assert_str_eq(json_string_value(json_object_get(r, "id")), "\xc3\xa9\xe2\x82\xac");
    it_result(r);
    json_decref(r);
    FRAME(WS_OP_TEXT, false, "{\"a\":\"\xe0"); /* E0 then 80..9F: an overlong form */
    FRAME(WS_OP_CONT, true, "\x9f\xbf\"}");
    expect_close(p, 1007);
    ws_peer_close(p);
    stop();
#undef FRAME
}
END_TEST

START_TEST(a_message_over_1_mib_closes_the_connection_with_1009)
{
    start();
    ws_peer_t *p = ws_peer_open(ws_port);
    size_t half = 1u << 19;
    char *spaces = malloc(half + 1);
    memset(spaces, ' ', half + 1);
    ws_peer_send_frame(p, WS_OP_TEXT, false, spaces, half);
    ws_peer_send_frame(p, WS_OP_CONT, true, spaces, half + 1);
    free(spaces);
    expect_close(p, 1009);
    ws_peer_close(p);
    stop();
}
END_TEST

/* The listener serves at most half the open-files limit at once, as HTTP does: past it an
   upgrade gets 503, with a warning, and the others go on; one leaving makes room. The limit here:
   100 descriptors (set before mcpsim starts, which raises its soft limit to the hard one), so
   50 connections. */
START_TEST(upgrades_past_the_listener_limit_get_503)
{
    struct rlimit rl = {100, 100};
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    start();
    enum { N = 60, LIMIT = 50 };
    ws_peer_t *p[N];
    int refused = 0;
    for (int i = 0; i < N; i++) {
        char response[512];
        int status = ws_peer_connect(ws_port, "/mcp", NULL, NULL, &p[i], response, sizeof response);
        if (i < LIMIT) {
            ck_assert_int_eq(status, 101);
        } else {
            ck_assert_msg(status == 503, "%d: %s", status, response);
            refused++;
        }
    }
    ck_assert_int_eq(refused, N - LIMIT);
    json_t *r = rpc(p[LIMIT - 1], "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    it_result(r); /* the served ones go on */
    json_decref(r);
    ck_assert(log_has("past the limit of 50 connections open at once"));
    ws_peer_close(p[0]); /* one leaves: room for one more */
    bool upgraded = false;
    for (int attempt = 0; attempt < 50 && !upgraded; attempt++) {
        usleep(100000);
        ws_peer_t *late = NULL;
        upgraded = ws_peer_connect(ws_port, "/mcp", NULL, NULL, &late, NULL, 0) == 101;
        if (late) ws_peer_close(late);
    }
    ck_assert(upgraded);
    for (int i = 1; i < LIMIT; i++) ws_peer_close(p[i]);
    stop();
}
END_TEST

/* Unfinished messages share the input budget (--input-budget 1: 1 MiB). Four clients each
   hold 300 KiB of a message they have not finished: three fit, the fourth goes over and is
   closed with 1013 (whichever is read last), its bytes given back. A short message still goes
   through, a long one does not while the three hold their bytes, and does once they left (the
   host hands it whole to the core, which refuses it for its own limit, FW_MSG_MAX). */
START_TEST(unfinished_messages_beyond_the_input_budget_are_closed_with_1013)
{
    const char *extra[] = {"--ws", "0", "--input-budget", "1", NULL};
    ck_assert_msg(start_with(extra), "mcpsim did not start (exit %d)", proc.status);
    ck_assert_int_gt(ws_port, 0);
    size_t part = 300u << 10;
    char *spaces = malloc(2 * part);
    memset(spaces, ' ', 2 * part);
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"";
    ws_peer_t *hog[4];
    for (int i = 0; i < 4; i++) {
        hog[i] = ws_peer_open(ws_port);
        ws_peer_send_frame(hog[i], WS_OP_TEXT, false, head, sizeof head - 1);
        ws_peer_send_frame(hog[i], WS_OP_CONT, false, spaces, part);
    }
    int refused = -1, closes = 0;
    double deadline = it_now() + IT_TIMEOUT;
    while (closes == 0 && it_now() < deadline) {
        for (int i = 0; i < 4; i++) {
            int code = 0;
            char *data = NULL;
            int op = ws_peer_recv(hog[i], 0.05, &data, NULL, &code);
            free(data);
            if (op == WS_OP_CLOSE) {
                ck_assert_int_eq(code, 1013);
                refused = i;
                closes++;
            } else {
                ck_assert_int_eq(op, WS_NOTHING);
            }
        }
    }
    ck_assert_int_eq(closes, 1);
    for (int i = 0; i < 4; i++)
        if (i != refused) ck_assert(ws_peer_quiet(hog[i], 0.2)); /* the three still open */
    ck_assert(log_has("(input budget): closing (1013)"));
    ws_peer_close(hog[refused]);

    ws_peer_t *p = ws_peer_open(ws_port); /* a short message: no budget needed */
    json_t *r = rpc(p, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
    it_result(r);
    json_decref(r);
    ws_peer_send_frame(p, WS_OP_TEXT, false, head, sizeof head - 1); /* a long one: over */
    ws_peer_send_frame(p, WS_OP_CONT, false, spaces, 2 * part);
    expect_close(p, 1013);
    ws_peer_close(p);

    for (int i = 0; i < 4; i++) /* the three leave: their bytes are given back */
        if (i != refused) ws_peer_close(hog[i]);
    bool answered = false;
    for (int attempt = 0; attempt < 50 && !answered; attempt++) {
        p = ws_peer_open(ws_port);
        ws_peer_send_frame(p, WS_OP_TEXT, false, head, sizeof head - 1);
        ws_peer_send_frame(p, WS_OP_CONT, false, spaces, 2 * part);
        ws_peer_send_frame(p, WS_OP_CONT, true, "}", 1);
        char *data = NULL;
        int code = 0;
        int op = ws_peer_recv(p, IT_TIMEOUT, &data, NULL, &code);
        answered = op == WS_OP_TEXT;
        if (answered) {
            json_t *doc = json_loads(data, 0, NULL);
            ck_assert_ptr_nonnull(doc);
            /* taken whole: the core answers (it reads at most FW_MSG_MAX bytes) */
            char whole[64];
            snprintf(whole, sizeof whole, "request of %zu bytes", sizeof head - 1 + 2 * part + 1);
            json_t *e = json_object_get(doc, "error");
            ck_assert_int_eq(json_integer_value(json_object_get(e, "code")), -32600);
            ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), whole));
            json_decref(doc);
        } else { /* the server has not seen them leave yet */
            ck_assert_int_eq(op, WS_OP_CLOSE);
            ck_assert_int_eq(code, 1013);
            usleep(100000);
        }
        free(data);
        ws_peer_close(p);
    }
    ck_assert(answered);
    free(spaces);
    stop();
}
END_TEST

/* A client over its share of the output budget is not read (lws_rx_flow_control); input held
   behind that pause is judged when reading resumes: the requests are answered in order, and text
   that is not UTF-8 still closes with 1007 (a close frame, not a bare hang-up). */
START_TEST(invalid_utf8_held_behind_back_pressure_still_closes_with_1007)
{
    const char *extra[] = {"--ws", "0", "--output-budget", "1", NULL};
    ck_assert(start_with(extra));
    ws_peer_t *idle[15]; /* 16 clients: a share of 64 KiB, the least there is */
    for (int i = 0; i < 15; i++) idle[i] = ws_peer_open(ws_port);
    ws_peer_t *p = ws_peer_open(ws_port);
    int small = 4096;
    setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    enum { N = 200 };
    char req[96];
    for (int i = 1; i <= N; i++) {
        int n = snprintf(req, sizeof req,
                         "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}", i);
        ws_peer_send_frame(p, WS_OP_TEXT, true, req, (size_t)n);
    }
    ws_peer_send_frame(p, WS_OP_TEXT, true, "{\"a\":\"\xc0\xaf\"}", 10);
    usleep(300 * 1000); /* it has been paused, with the rest waiting, before it reads */
    int next = 1, op, code = 0;
    for (;;) {
        char *data = NULL;
        op = ws_peer_recv(p, IT_TIMEOUT, &data, NULL, &code);
        if (op != WS_OP_TEXT) break;
        json_t *m = json_loads(data, 0, NULL);
        free(data);
        ck_assert_ptr_nonnull(m);
        ck_assert_int_eq(json_integer_value(json_object_get(m, "id")), next);
        json_decref(m);
        next++;
    }
    ck_assert_msg(op == WS_OP_CLOSE, "after %d answers: %d, not a close frame", next - 1, op);
    ck_assert_int_eq(code, 1007);
    ck_assert_int_gt(next, 20); /* answers past the share came: it was paused, then read on */
    ws_peer_close(p);
    for (int i = 0; i < 15; i++) ws_peer_close(idle[i]);
    stop();
}
END_TEST

/* Invalid UTF-8 with more frames behind it in the same write (a long message, a frame of a
   reserved opcode, a ping): the 1007 close frame comes, and nothing after the refused message is
   parsed (the reserved opcode would end the connection with libwebsockets' own 1002). */
START_TEST(invalid_utf8_with_more_frames_behind_it_closes_with_1007)
{
    start();
    /* the frames in one write, past libwebsockets' read size (4 KiB): the refused message, a
       long one, a frame with a reserved opcode, a ping; masked with a zero key */
    static unsigned char wire[8192];
    static const char bad[] = "{\"a\":\"\xc0\xaf\"}",
                      ping[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    static char filler[6000];
    memset(filler, ' ', sizeof filler);
    filler[0] = '1';
    const struct {
        unsigned char b0;
        const char *p;
        size_t len;
    } frames[] = {{0x81, bad, sizeof bad - 1},
                  {0x81, filler, sizeof filler},
                  {0x83, "x", 1},
                  {0x81, ping, sizeof ping - 1}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        wire[n++] = frames[i].b0;
        if (frames[i].len < 126) {
            wire[n++] = (unsigned char)(0x80 | frames[i].len);
        } else {
            wire[n++] = 0x80 | 126;
            wire[n++] = (unsigned char)(frames[i].len >> 8);
            wire[n++] = (unsigned char)frames[i].len;
        }
        memset(wire + n, 0, 4);
        n += 4;
        memcpy(wire + n, frames[i].p, frames[i].len);
        n += frames[i].len;
    }
    for (int round = 0; round < 20; round++) {
        ws_peer_t *p = ws_peer_open(ws_port);
        ck_assert_int_eq(send(p->fd, wire, n, MSG_NOSIGNAL), (ssize_t)n);
        expect_close(p, 1007);
        ws_peer_close(p);
    }
    stop();
}
END_TEST

/* A client that sends without reading is cut off once 1 MiB of answers wait for it. */
START_TEST(a_client_that_does_not_read_is_disconnected)
{
    start();
    ws_peer_t *hog = ws_peer_open(ws_port), *good = ws_peer_open(ws_port);
    int small = 4096;
    setsockopt(hog->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    fcntl(hog->fd, F_SETFL, fcntl(hog->fd, F_GETFL) | O_NONBLOCK);
    /* A masked frame of tools/list, written raw (the peer's sender blocks). */
    static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    unsigned char frame[2 + 4 + sizeof req];
    frame[0] = 0x81;
    frame[1] = 0x80 | (unsigned char)(sizeof req - 1);
    memset(frame + 2, 0, 4); /* a zero mask */
    memcpy(frame + 6, req, sizeof req - 1);
    bool cut = false;
    double deadline = it_now() + 4 * IT_TIMEOUT;
    for (int i = 0; !cut && it_now() < deadline; i++) {
        ssize_t n = send(hog->fd, frame, sizeof frame - 1, MSG_NOSIGNAL);
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            cut = true;
        else if (n < 0)
            usleep(1000);
        else
            ck_assert_int_eq(n, (ssize_t)sizeof frame - 1); /* a frame is never split here */
        if (i % 200 == 0) {
            json_t *r = rpc(good, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
            json_decref(r);
        }
    }
    ck_assert_msg(cut, "the non-reading client was never disconnected");
    ck_assert(log_has("does not read its messages"));
    json_t *r = rpc(good, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 3);
    json_decref(r);
    ws_peer_close(hog);
    ws_peer_close(good);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- dial-out */

static void check_hello(ws_peer_t *b)
{
    json_t *h = ws_peer_recv_json(b, IT_TIMEOUT);
    ck_assert_str_eq(str_at(h, "type"), "hello");
    ck_assert_int_eq(json_integer_value(json_object_get(h, "version")), 1);
    ck_assert(json_is_true(json_object_get(json_object_get(h, "features"), "mcp")));
    ck_assert_str_eq(str_at(h, "transport"), "websocket");
    ck_assert_ptr_null(json_object_get(h, "session_id")); /* none until the backend assigns */
    json_decref(h);
}

static json_t *backend_call(ws_peer_t *b, const char *sid, int id, const char *method)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"session_id\":\"%s\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\",\"id\":%d,"
             "\"method\":\"%s\"}}",
             sid, id, method);
    json_t *r = rpc(b, text);
    ck_assert_str_eq(str_at(r, "session_id"), sid);
    ck_assert_str_eq(str_at(r, "type"), "mcp");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "payload"), "id")), id);
    return r;
}

START_TEST(the_device_dials_out_says_hello_serves_envelopes_and_reconnects)
{
    int port = 0;
    int lfd = ws_peer_listen(&port);
    char url[128], req[4096];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/xiaozhi/v1/?device=sim", port);
    const char *extra[] = {"--connect",
                           url,
                           "--connect-header",
                           "Authorization: Bearer t0k",
                           "--connect-header",
                           "Device-Id: 02:00:00:00:00:01",
                           NULL};
    ck_assert(start_with(extra));
    ws_peer_t *b = ws_peer_accept(lfd, IT_TIMEOUT, 101, req, sizeof req);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(strncmp(req, "GET /xiaozhi/v1/?device=sim HTTP/1.1\r\n", 38) == 0, "%s", req);
    ck_assert_msg(strcasestr(req, "\r\nAuthorization: Bearer t0k\r\n") != NULL, "%s", req);
    ck_assert_msg(strcasestr(req, "\r\nDevice-Id: 02:00:00:00:00:01\r\n") != NULL, "%s", req);
    check_hello(b);

    /* The backend's hello assigns the session id; notifications and answers carry it. */
    ws_peer_send_text(b,
                      "{\"type\":\"hello\",\"transport\":\"websocket\",\"session_id\":\"srv-1\"}");
    json_t *r =
        rpc(b, "{\"session_id\":\"srv-1\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\","
               "\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
               "\"2024-11-05\",\"capabilities\":{}}}}");
    ck_assert_str_eq(str_at(r, "session_id"), "srv-1");
    ck_assert_str_eq(str_at(it_result(json_object_get(r, "payload")), "protocolVersion"),
                     "2024-11-05");
    json_decref(r);
    r = backend_call(b, "srv-1", 2, "tools/list");
    ck_assert(
        has_tool(json_object_get(it_result(json_object_get(r, "payload")), "tools"), "gpio_read"));
    json_decref(r);

    /* The backend goes away: the device is back after the first backoff step (0.5 s). */
    ws_peer_send_close(b, 1001);
    char *data = NULL;
    int code = 0;
    ws_peer_recv(b, IT_TIMEOUT, &data, NULL, &code); /* the device's answering close */
    ws_peer_close(b);
    double t0 = it_now();
    b = ws_peer_accept(lfd, IT_TIMEOUT, 101, req, sizeof req);
    double waited = it_now() - t0;
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(waited >= 0.4 && waited < 2.5, "reconnected after %.2f s", waited);
    check_hello(b); /* a fresh link: no session id remembered */
    r = backend_call(b, "srv-2", 3, "tools/list");
    json_decref(r);
    ck_assert(log_has("the backend closed the connection (1001); next attempt in 0.5 s"));
    ws_peer_close(b);
    close(lfd);
    stop();
}
END_TEST

/* Attempts at 0, 0.5, 1.5 and 3.5 s find nobody, then a refusal (403), then the backend. */
START_TEST(dial_out_backs_off_exponentially_while_the_backend_is_away_or_refuses)
{
    int port = 0;
    close(ws_peer_listen(&port)); /* a port nobody listens on (for now) */
    char url[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/", port);
    const char *extra[] = {"--connect", url, NULL};
    double t0 = it_now();
    ck_assert(start_with(extra));
    while (it_now() < t0 + 2.5) usleep(10000);
    int lfd = ws_peer_listen(&port);
    ck_assert_ptr_null(ws_peer_accept(lfd, IT_TIMEOUT, 403, NULL, 0)); /* attempt 4: refused */
    double refused = it_now() - t0;
    ck_assert_msg(refused >= 3.0 && refused < 5.0, "attempt 4 came after %.2f s", refused);
    ws_peer_t *b = ws_peer_accept(lfd, 2 * IT_TIMEOUT, 101, NULL, 0); /* 4 s later */
    double gap = it_now() - t0 - refused;
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(gap >= 3.5 && gap < 5.5, "attempt 5 came %.2f s after attempt 4", gap);
    check_hello(b);
    ck_assert(log_has("next attempt in 0.5 s"));
    ck_assert(log_has("next attempt in 1.0 s"));
    ck_assert(log_has("next attempt in 2.0 s"));
    ck_assert(log_has("next attempt in 4.0 s"));
    ck_assert(log_has("connecting (attempt 5)"));
    ws_peer_close(b);
    close(lfd);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- the command line */

static void expect_usage_error(const char *const *extra, const char *message)
{
    ck_assert(!start_with(extra));
    ck_assert_int_eq(proc.status, 2);
    ck_assert(log_has(message));
    it_stop(&proc, SIGTERM, NULL);
}

START_TEST(bad_dial_out_flags_are_usage_errors)
{
    const char *wss[] = {"--connect", "wss://example.com/x", NULL};
    expect_usage_error(wss, "wss:// (TLS) is not supported");
    const char *http[] = {"--connect", "http://example.com/x", NULL};
    expect_usage_error(http, "expected ws://HOST[:PORT][/PATH]");
    const char *port[] = {"--connect", "ws://example.com:0/x", NULL};
    expect_usage_error(port, "expected ws://HOST[:PORT][/PATH]");
    const char *header[] = {"--connect", "ws://127.0.0.1:9/", "--connect-header", "NoColon", NULL};
    expect_usage_error(header, "expected 'Name: value'");
    const char *alone[] = {"--connect-header", "A: b", NULL};
    expect_usage_error(alone, "--connect-header needs --connect");
}
END_TEST

START_TEST(a_ws_port_in_use_is_an_error)
{
    start();
    it_proc_t first = proc;
    char taken[32];
    snprintf(taken, sizeof taken, "127.0.0.1:%d", ws_port);
    const char *extra[] = {"--ws", taken, NULL};
    ck_assert(!start_with(extra));
    ck_assert_int_eq(proc.status, 1);
    ck_assert(log_has("ws: cannot listen on 127.0.0.1"));
    it_stop(&proc, SIGTERM, NULL);
    proc = first;
    stop();
}
END_TEST

static Suite *it_ws_suite(void)
{
    Suite *s = suite_create("it_ws");
    TCase *tc = tcase_create("ws");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, plain_json_rpc_initialize_list_and_call_gpio);
    tcase_add_test(tc, every_reply_is_one_text_frame_without_newline);
    tcase_add_test(tc, a_pipelining_client_loses_nothing_and_another_is_answered);
    tcase_add_test(tc, two_connections_have_their_own_sessions);
    tcase_add_test(tc, an_envelope_is_answered_in_an_envelope_with_its_session_id);
    tcase_add_test(tc, a_malformed_envelope_gets_invalid_request_in_an_envelope);
    tcase_add_test(tc, a_subscriber_is_told_after_the_control_channel_advances_the_clock);
    tcase_add_test(tc, a_change_made_over_tcp_is_pushed_to_a_websocket_subscriber);
    tcase_add_test(tc, a_change_made_over_http_is_pushed_to_a_websocket_subscriber);
    tcase_add_test(tc, upgrades_are_checked_for_path_host_and_origin);
    tcase_add_test(tc, allowed_origins_and_the_bearer_token_apply_to_the_upgrade);
    tcase_add_test(tc, a_binary_frame_closes_the_connection_with_1003);
    tcase_add_test(tc, text_that_is_not_utf8_closes_the_connection_with_1007);
    tcase_add_test(tc, a_fragmented_message_is_reassembled);
    tcase_add_test(tc, utf8_is_checked_across_fragments_and_not_on_control_frames);
    tcase_add_test(tc, a_message_over_1_mib_closes_the_connection_with_1009);
    tcase_add_test(tc, unfinished_messages_beyond_the_input_budget_are_closed_with_1013);
    tcase_add_test(tc, upgrades_past_the_listener_limit_get_503);
    tcase_add_test(tc, a_client_that_does_not_read_is_disconnected);
    tcase_add_test(tc, invalid_utf8_held_behind_back_pressure_still_closes_with_1007);
    tcase_add_test(tc, invalid_utf8_with_more_frames_behind_it_closes_with_1007);
    tcase_add_test(tc, the_device_dials_out_says_hello_serves_envelopes_and_reconnects);
    tcase_add_test(tc, dial_out_backs_off_exponentially_while_the_backend_is_away_or_refuses);
    tcase_add_test(tc, bad_dial_out_flags_are_usage_errors);
    tcase_add_test(tc, a_ws_port_in_use_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_ws_suite)
