/* test_it_listen.c: integration: MCP 2026-07-28 subscriptions/listen over mcpsim's connection
   transports, TCP and WebSocket (plain, and in seed 003's {session_id, type: "mcp", payload}
   envelope), and stdio (one client): the acknowledgement, then resource updates and log messages tagged with the
   subscriptionId on the connection that listened; a cancellation only its own client can make;
   the slots bounded (-32603) and freed when a connection closes. (HTTP: test_it_http.) */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"
#include "ws_peer.h"

#define META_CORE                                                                                  \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{}"
#define META "\"_meta\":{" META_CORE "}"
#define META_WARN "\"_meta\":{" META_CORE ",\"io.modelcontextprotocol/logLevel\":\"warning\"}"

/* Most listen requests one test sends before the device must have refused one. */
#define LISTENS_MAX 16

static it_proc_t proc;
static int ws_port;

typedef enum kind { OVER_TCP, OVER_WS, OVER_WS_ENVELOPE } kind_t;

/* One client connection, whatever the transport. */
typedef struct peer {
    kind_t kind;
    it_conn_t *line; /* TCP: newline-delimited JSON-RPC */
    ws_peer_t *ws;   /* WebSocket: a message per frame */
} peer_t;

static void start(void)
{
    static const char *const args[] = {"--board", "esp32-demo", "--tcp", "0", "--control", "0",
                                       "--ws", "0", "--clock", "virtual", "--log-level", "debug",
                                       NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    char *log = it_stderr(&proc);
    const char *s = strstr(log, "ws: listening on ws://127.0.0.1:");
    ws_port = s ? atoi(s + strlen("ws: listening on ws://127.0.0.1:")) : 0;
    free(log);
    ck_assert_int_gt(ws_port, 0);
}

static peer_t peer_open(kind_t kind)
{
    peer_t p = {kind, NULL, NULL};
    if (kind == OVER_TCP)
        p.line = it_tcp_connect(proc.tcp_port);
    else
        p.ws = ws_peer_open(ws_port);
    return p;
}

static void peer_close(peer_t *p)
{
    if (p->line) it_conn_close(p->line);
    if (p->ws) ws_peer_close(p->ws);
    p->line = NULL;
    p->ws = NULL;
}

/* Sends one JSON-RPC message (in the envelope when the peer speaks it). */
static void peer_send(peer_t *p, const char *msg)
{
    if (p->kind == OVER_TCP) {
        it_send(p->line, msg);
        it_send(p->line, "\n");
    } else if (p->kind == OVER_WS) {
        ws_peer_send_text(p->ws, msg);
    } else {
        char *env = NULL;
        ck_assert_int_gt(asprintf(&env, "{\"session_id\":\"s-7\",\"type\":\"mcp\",\"payload\":%s}",
                                  msg),
                         0);
        ws_peer_send_text(p->ws, env);
        free(env);
    }
}

/* The next JSON-RPC message within timeout_s (unwrapped from its envelope, which must carry the
   session's id), or NULL. */
static json_t *peer_recv(peer_t *p, double timeout_s)
{
    char *text = NULL;
    if (p->kind == OVER_TCP) {
        text = it_read_line(p->line, timeout_s);
    } else {
        int code = 0;
        int op = ws_peer_recv(p->ws, timeout_s, &text, NULL, &code);
        if (op == WS_NOTHING) return NULL;
        ck_assert_msg(op == WS_OP_TEXT, "opcode %d (close code %d)", op, code);
    }
    if (!text) return NULL;
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    ck_assert_msg(j != NULL, "not JSON: %s", text);
    free(text);
    if (p->kind != OVER_WS_ENVELOPE) return j;
    ck_assert_str_eq(json_string_value(json_object_get(j, "type")), "mcp");
    ck_assert_str_eq(json_string_value(json_object_get(j, "session_id")), "s-7");
    json_t *payload = json_incref(json_object_get(j, "payload"));
    json_decref(j);
    ck_assert_ptr_nonnull(payload);
    return payload;
}

static const char *method_of(const json_t *m)
{
    const char *s = json_string_value(json_object_get(m, "method"));
    return s ? s : "";
}

static const char *sub_id_of(const json_t *m)
{
    json_t *meta = json_object_get(json_object_get(m, "params"), "_meta");
    return json_string_value(json_object_get(meta, "io.modelcontextprotocol/subscriptionId"));
}

/* Reads until a message with method (a notification) or with string/integer id arrives; the
   others are dropped. Returns it, or NULL when IT_TIMEOUT passed. */
static json_t *wait_method(peer_t *p, const char *method)
{
    double deadline = it_now() + IT_TIMEOUT;
    while (it_now() < deadline) {
        json_t *m = peer_recv(p, deadline - it_now());
        if (!m) return NULL;
        if (strcmp(method_of(m), method) == 0) return m;
        json_decref(m);
    }
    return NULL;
}

static json_t *wait_id(peer_t *p, int id)
{
    double deadline = it_now() + IT_TIMEOUT;
    while (it_now() < deadline) {
        json_t *m = peer_recv(p, deadline - it_now());
        if (!m) return NULL;
        if (json_integer_value(json_object_get(m, "id")) == id && !json_object_get(m, "method"))
            return m;
        json_decref(m);
    }
    return NULL;
}

/* Sends subscriptions/listen with the string id and filter; returns the first message back:
   the acknowledgement, or an error response. */
static json_t *listen_on(peer_t *p, const char *id, const char *filter, bool warnings)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"subscriptions/listen\","
             "\"params\":{\"notifications\":%s,%s}}",
             id, filter, warnings ? META_WARN : META);
    peer_send(p, msg);
    json_t *m = peer_recv(p, IT_TIMEOUT);
    ck_assert_msg(m != NULL, "nothing came back for listen %s", id);
    return m;
}

static void expect_ack(json_t *m, const char *id)
{
    ck_assert_str_eq(method_of(m), "notifications/subscriptions/acknowledged");
    ck_assert_str_eq(sub_id_of(m), id);
    json_decref(m);
}

static void expect_full(json_t *m)
{
    json_t *err = json_object_get(m, "error");
    ck_assert_msg(err != NULL, "a listen beyond the slots was not refused");
    ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), FW_RPC_INTERNAL_ERROR);
    ck_assert(strstr(json_string_value(json_object_get(err, "message")),
                     "Subscription limit reached") != NULL);
    json_decref(m);
}

/* A stateless tools/call (id) on p; its response is awaited, what else came is dropped. */
static void call_on(peer_t *p, int id, const char *name, const char *args)
{
    char msg[512];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"
             "\"%s\",\"arguments\":%s," META "}}",
             id, name, args);
    peer_send(p, msg);
    json_t *r = wait_id(p, id);
    ck_assert_msg(r != NULL, "no response to %s", name);
    json_decref(r);
}

/* Makes the device log an error: the control channel fails the sensor's ADC, then adc_read. */
static void log_an_error(peer_t *p)
{
    it_conn_t *ctl = it_tcp_connect(proc.control_port);
    json_t *r = it_rpc(ctl, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.fault.inject\","
                            "\"params\":{\"kind\":\"adc_fail\",\"pin\":34}}");
    it_result(r);
    json_decref(r);
    it_conn_close(ctl);
    call_on(p, 40, "adc_read", "{\"pin\":34}");
}

static void listen_over(kind_t kind)
{
    start();
    peer_t a = peer_open(kind), b = peer_open(kind), c = peer_open(kind);
    json_t *ack = listen_on(&a, "L", "{\"resourceSubscriptions\":[\"pin://led\",\"pin://none\"]}",
                            true);
    json_t *subs = json_object_get(json_object_get(json_object_get(ack, "params"),
                                                   "notifications"),
                                   "resourceSubscriptions");
    ck_assert_int_eq(json_array_size(subs), 1); /* the honoured subset */
    ck_assert_str_eq(json_string_value(json_array_get(subs, 0)), "pin://led");
    expect_ack(ack, "L");

    /* b takes the other slots, its first with the same id as a's; then they are all taken */
    json_t *m = listen_on(&b, "L", "{}", false);
    expect_ack(m, "L");
    int taken = 2;
    for (; taken <= LISTENS_MAX; taken++) {
        m = listen_on(&b, "more", "{}", false);
        if (json_object_get(m, "error")) break;
        expect_ack(m, "more");
    }
    ck_assert_int_le(taken, LISTENS_MAX);
    expect_full(m);

    /* b cancels "L": its own stream ends (a slot is free again), a's with the same id does not */
    peer_send(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  "{\"requestId\":\"L\"," META "}}");
    call_on(&b, 9, "gpio_read", "{\"pin\":2}"); /* the cancellation was handled before this */
    expect_ack(listen_on(&c, "C1", "{}", false), "C1");
    expect_full(listen_on(&c, "C2", "{}", false));

    /* a pin change and a log message reach a's stream, tagged with its listen request's id */
    call_on(&c, 10, "gpio_write", "{\"pin\":2,\"value\":true}");
    m = wait_method(&a, "notifications/resources/updated");
    ck_assert_msg(m != NULL, "no notifications/resources/updated on the listening connection");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "params"), "uri")),
                     "pin://led");
    ck_assert_str_eq(sub_id_of(m), "L");
    json_decref(m);
    log_an_error(&c);
    m = wait_method(&a, "notifications/message");
    ck_assert_msg(m != NULL, "no notifications/message on the listening connection");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "params"), "level")),
                     "error");
    ck_assert_str_eq(sub_id_of(m), "L");
    json_decref(m);
    /* c's and b's streams asked for neither: nothing came to them (c asked no log level) */
    m = peer_recv(&c, 0.3);
    ck_assert_msg(m == NULL, "c got %s", method_of(m));
    m = peer_recv(&b, 0.1);
    ck_assert_msg(m == NULL, "b got %s", method_of(m));

    /* a goes away: its slot is free for c */
    peer_close(&a);
    double deadline = it_now() + IT_TIMEOUT;
    bool acked = false;
    for (int k = 0; !acked && it_now() < deadline; k++) {
        char id[16];
        snprintf(id, sizeof id, "C%d", k + 3);
        m = listen_on(&c, id, "{}", false);
        acked = strcmp(method_of(m), "notifications/subscriptions/acknowledged") == 0;
        json_decref(m);
        if (!acked) usleep(50 * 1000);
    }
    ck_assert_msg(acked, "the closed connection's listen slot was not freed");
    peer_close(&b);
    peer_close(&c);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}

/* stdio: one client; its listen stream's notifications share stdout with the responses. */
START_TEST(over_stdio)
{
    static const char *const args[] = {"--board", "esp32-demo", "--stdio", "--clock", "virtual",
                                       NULL};
    peer_t a = {OVER_TCP, it_start_stdio(&proc, args), NULL};
    ck_assert_ptr_nonnull(a.line);
    expect_ack(listen_on(&a, "S", "{\"resourceSubscriptions\":[\"pin://led\"]}", false), "S");
    call_on(&a, 2, "gpio_write", "{\"pin\":2,\"value\":true}");
    json_t *m = wait_method(&a, "notifications/resources/updated");
    ck_assert_msg(m != NULL, "no notifications/resources/updated on stdout");
    ck_assert_str_eq(sub_id_of(m), "S");
    json_decref(m);
    peer_send(&a, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                  "{\"requestId\":\"S\"," META "}}");
    call_on(&a, 3, "gpio_write", "{\"pin\":2,\"value\":false}");
    m = peer_recv(&a, 0.3);
    ck_assert_msg(m == NULL, "after the cancellation: %s", method_of(m));
    it_close_input(a.line);
    ck_assert_int_eq(it_wait_exit(&proc), 0);
    it_conn_close(a.line);
}
END_TEST

START_TEST(over_tcp)
{
    listen_over(OVER_TCP);
}
END_TEST

START_TEST(over_websocket)
{
    listen_over(OVER_WS);
}
END_TEST

START_TEST(over_websocket_in_the_envelope)
{
    listen_over(OVER_WS_ENVELOPE);
}
END_TEST

static Suite *it_listen_suite(void)
{
    Suite *s = suite_create("it_listen");
    TCase *tc = tcase_create("transports");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, over_tcp);
    tcase_add_test(tc, over_websocket);
    tcase_add_test(tc, over_websocket_in_the_envelope);
    tcase_add_test(tc, over_stdio);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_listen_suite)
