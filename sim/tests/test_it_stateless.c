/* test_it_stateless.c: integration: MCP 2026-07-28 requests (params._meta, no initialize) over
   mcpsim's byte-stream transports, TCP, the UART (pty) and stdio, beside a 2025 session on the
   same connection. (HTTP and WebSocket: scenarios/mcp/stateless.json in the conformance tests.) */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"

#define META                                                                                       \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                      \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static it_proc_t proc;

/* The stateless exchanges every transport must carry; c speaks to a fresh esp32-demo. */
static void exercise(it_conn_t *c)
{
    json_t *r = it_call(c, 1, "server/discover", "{" META "}");
    json_t *res = it_result(r);
    ck_assert_str_eq(json_string_value(json_object_get(res, "resultType")), "complete");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(res, "supportedVersions"), 0)),
                     "2026-07-28");
    json_decref(r);

    r = it_call(c, 2, "tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true},"
                                    META "}");
    res = it_result(r);
    ck_assert_str_eq(json_string_value(json_object_get(res, "resultType")), "complete");
    ck_assert(!json_is_true(json_object_get(res, "isError")));
    json_decref(r);

    r = it_call(c, 3, "ping", "{" META "}");
    ck_assert_int_eq(it_error_code(r), FW_RPC_METHOD_NOT_FOUND);
    json_decref(r);
    r = it_call(c, 4, "tools/list",
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2030-01-01\","
                "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
    ck_assert_int_eq(it_error_code(r), FW_RPC_UNSUPPORTED_VERSION);
    json_decref(r);

    /* the same connection still serves the 2025 revision: initialize, then ping */
    r = it_call(c, 5, "initialize",
                "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
                "{\"name\":\"it\",\"version\":\"1\"}}");
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "protocolVersion")),
                     "2025-11-25");
    json_decref(r);
    r = it_call(c, 6, "ping", NULL);
    ck_assert(json_is_object(it_result(r)));
    json_decref(r);
    /* and the pin the stateless call drove reads back high through MCP/U */
    r = it_call(c, 7, "gpio_read", "{\"pin\":2}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
}

START_TEST(over_tcp)
{
    it_start_board(&proc, "esp32-demo");
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    exercise(c);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(over_the_uart)
{
    it_start_board(&proc, "esp32-demo");
    it_conn_t *c = it_serial_open(proc.uart);
    exercise(c);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(over_stdio)
{
    static const char *const args[] = {"--board", "esp32-demo", "--stdio", "--clock", "virtual",
                                       NULL};
    it_conn_t *c = it_start_stdio(&proc, args);
    ck_assert_ptr_nonnull(c);
    exercise(c);
    it_close_input(c);
    ck_assert_int_eq(it_wait_exit(&proc), 0);
    it_conn_close(c);
}
END_TEST

static Suite *it_stateless_suite(void)
{
    Suite *s = suite_create("it_stateless");
    TCase *tc = tcase_create("transports");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, over_tcp);
    tcase_add_test(tc, over_the_uart);
    tcase_add_test(tc, over_stdio);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_stateless_suite)
