/* test_rpc.c: specification of JSON-RPC handling (rpc.c): envelopes, ids, batches, streams. */
#include <jansson.h>
#include <stdio.h>

#include "fw_device.h"
#include "mock_hal.h"
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

static const fw_pin_def_t pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "LED"},
    {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .description = "Sensor"},
};

static const fw_board_t board = {
    .device = "rpc-test",
    .version = "9.9.9",
    .platform = "mock",
    .pins = pins,
    .pin_count = 2,
    .adc_bits = 12,
    .adc_ref_mv = 3300,
};

static fw_device_t dev;
static mock_hal_t hal;
static cap_t out;
static unsigned runs; /* times the "count" tool ran */

static fw_err_t tool_count(fw_call_t *call)
{
    runs++;
    fw_jw_kv_i64(fw_call_result(call), "runs", runs);
    return FW_OK;
}

static fw_err_t tool_echo(fw_call_t *call)
{
    const fw_arg_t *n = fw_call_arg(call, "n");
    fw_jw_t *w = fw_call_result(call);
    if (n->present) fw_jw_kv_i64(w, "n", n->i);
    return FW_OK;
}

/* A worded hardware failure: an I2C NACK, or in a build without I2C (whose error table has no
   I2C errors) a failed conversion. */
#if FW_WITH_I2C
#define WORDED_ERR FW_ERR_I2C_NACK
#define WORDED_CODE FW_RPC_I2C_NACK
#define WORDED_NAME "i2c device did not acknowledge"
#else
#define WORDED_ERR FW_ERR_ADC
#define WORDED_CODE FW_RPC_ADC
#define WORDED_NAME "adc conversion failed"
#endif

static fw_err_t tool_nack(fw_call_t *call)
{
    return fw_call_errorf(call, WORDED_ERR, "chip at 0x%x did not acknowledge", 0x48u);
}

static fw_err_t tool_hw(fw_call_t *call)
{
    (void)call;
    return FW_ERR_HW;
}

static fw_err_t tool_empty(fw_call_t *call)
{
    (void)call;
    return FW_OK;
}

/* Starts a result, leaves an array and a key open, then fails: a handler bug. */
static fw_err_t tool_bug(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "a", 1);
    fw_jw_key(w, "list");
    fw_jw_arr_begin(w);
    fw_jw_i64(w, 2);
    return FW_ERR_HW;
}

/* Leaves an object and a pending key open but succeeds: also closed by the core. */
static fw_err_t tool_unbalanced(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "o");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "k");
    return FW_OK;
}

/* Six issues: four are listed, the message counts the rest. */
static fw_err_t tool_issues(fw_call_t *call)
{
    for (int i = 0; i < 6; i++) fw_call_param_error(call, "x", "bad %d", i);
    return FW_ERR_INVALID_PARAMS;
}

/* Needs three quarters of the scratch: works only if scratch is reset per request. */
static fw_err_t tool_scratch(fw_call_t *call)
{
    if (fw_scratch_alloc(call->dev, FW_SCRATCH_SIZE - FW_SCRATCH_SIZE / 4) == NULL)
        return FW_ERR_NO_SPACE;
    fw_call_result(call);
    return FW_OK;
}

static const fw_param_t echo_params[] = {
    {.name = "n", .type = FW_PARAM_INTEGER, .description = "a number"},
};

#define TOOL(nm, fn)                                                                               \
    {                                                                                              \
        .name = nm, .description = nm, .handler = fn                                               \
    }
static const fw_tool_t test_tools[] = {
    TOOL("count", tool_count),
    {.name = "echo",
     .description = "echo",
     .params = echo_params,
     .param_count = 1,
     .handler = tool_echo},
    TOOL("nack", tool_nack),
    TOOL("hw", tool_hw),
    TOOL("empty", tool_empty),
    TOOL("bug", tool_bug),
    TOOL("unbalanced", tool_unbalanced),
};

/* Registered by the tests that use them (a small build has room for eight tools). */
static const fw_tool_t issues_tool = TOOL("issues", tool_issues);
static const fw_tool_t scratch_tool = TOOL("scratch", tool_scratch);

static void setup(void)
{
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
    for (size_t i = 0; i < FW_ARRAY_LEN(test_tools); i++)
        ck_assert_int_eq(fw_device_add_tool(&dev, &test_tools[i]), FW_OK);
    runs = 0;
    cap_reset(&out);
}

static bool answered;

/* Handles msg and returns what was written (empty when nothing). */
static const char *rpc(const char *msg)
{
    cap_reset(&out);
    answered = fw_device_handle(&dev, msg, strlen(msg), cap_sink(&out));
    ck_assert_int_eq(answered, out.len > 0);
    return out.buf;
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "not JSON (%s): %s", e.text, text);
    return j;
}

/* An error response: its code, and its message compared exactly when msg is non-NULL. */
static void check_error(const char *text, const char *id_raw, int code, const char *msg)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{", id_raw);
    ck_assert_msg(strncmp(text, prefix, strlen(prefix)) == 0, "%s", text);
    json_t *j = parse(text);
    json_t *err = json_object_get(j, "error");
    ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), code);
    if (msg != NULL) ck_assert_str_eq(json_string_value(json_object_get(err, "message")), msg);
    ck_assert_ptr_null(json_object_get(j, "result"));
    json_decref(j);
}

#define REQ(id, rest) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":" rest "}"

/* ---------------------------------------------------------------- requests and ids */

START_TEST(test_request_exact_bytes)
{
    ck_assert_str_eq(rpc(REQ("1", "\"get_info\"")),
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"device\":\"rpc-test\","
                     "\"version\":\"9.9.9\",\"platform\":\"mock\",\"pin_count\":2,"
                     "\"core_version\":\"" FW_CORE_VERSION "\"}}");
    ck_assert(answered);
}
END_TEST

/* Ids are echoed byte for byte, whatever their magnitude, form or escapes. */
static const char *const ids[] = {
    "0",    "-1",         "12345678901234567890", "-0.5e3",       "1.000", "1E400",
    "\"\"", "\"a\\\"b\"", "\"\\u00e9\\n\"",       "\"\xc3\xa9\"", "null",
};

START_TEST(test_ids_echoed_exactly)
{
    char msg[128], want[128];
    snprintf(msg, sizeof msg, "{\"id\":%s,\"method\":\"empty\",\"jsonrpc\":\"2.0\"}", ids[_i]);
    snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", ids[_i]);
    ck_assert_str_eq(rpc(msg), want);
}
END_TEST

START_TEST(test_escaped_method_name)
{
    ck_assert_str_eq(rpc(REQ("3", "\"e\\u006dpty\"")),
                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
}
END_TEST

START_TEST(test_params_absent_object_array)
{
    ck_assert_str_eq(rpc(REQ("1", "\"echo\"")), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    ck_assert_str_eq(rpc(REQ("1", "\"echo\",\"params\":{\"n\":5}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":5}}");
    ck_assert_str_eq(rpc(REQ("1", "\"echo\",\"params\":[6]")),
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":6}}");
}
END_TEST

/* The envelope's members: the first of a repeated key wins, escaped keys and an escaped "2.0"
   count as their decoded text, and a key of a member's length but other bytes is another key. */
START_TEST(test_envelope_keys_first_wins_and_escapes)
{
    static const char *const cases[][2] = {
        {"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"empty\"}", "1"},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"empty\",\"method\":\"nope\",\"id\":3}", "3"},
        {"{\"\\u006asonrpc\":\"2.0\",\"\\u0069d\":4,\"meth\\u006fd\":\"empty\"}", "4"},
        {"{\"jsonrpc\":\"2\\u002e0\",\"id\":5,\"method\":\"empty\"}", "5"},
        {"{\"jsonrpc\":\"2.0\",\"iD\":9,\"mEthod\":\"x\",\"method\":\"empty\",\"id\":6}", "6"},
        {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"empty\",\"result\":1,\"error\":{},"
         "\"params\":{},\"params\":5,\"jsonrpc\":\"1.0\"}",
         "7"},
        {"{\"jsonrpc\":\"2.0\",\"id\":\"a-long-string-id-of-forty-bytes-and-more\","
         "\"method\":\"empty\"}",
         "\"a-long-string-id-of-forty-bytes-and-more\""},
    };
    char want[128];
    for (size_t i = 0; i < FW_ARRAY_LEN(cases); i++) {
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}", cases[i][1]);
        ck_assert_str_eq(rpc(cases[i][0]), want);
    }
    static const char *const versions[] = {"\"2.\"", "\"2.00\"", "\"\"", "\"2,0\"",
                                           "\"2\\u002e1\""};
    char msg[128];
    for (size_t i = 0; i < FW_ARRAY_LEN(versions); i++) {
        snprintf(msg, sizeof msg, "{\"jsonrpc\":%s,\"id\":8,\"method\":\"empty\"}", versions[i]);
        check_error(rpc(msg), "8", FW_RPC_INVALID_REQUEST, "'jsonrpc' must be \"2.0\"");
    }
}
END_TEST

/* ---------------------------------------------------------------- invalid requests */

typedef struct bad_case {
    const char *msg;
    const char *id; /* raw id expected in the answer */
    const char *message;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {"{\"id\":7,\"method\":\"empty\"}", "7", "'jsonrpc' is missing (it must be \"2.0\")"},
    {"{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"empty\"}", "7", "'jsonrpc' must be \"2.0\""},
    {"{\"jsonrpc\":2.0,\"id\":7,\"method\":\"empty\"}", "7", "'jsonrpc' must be \"2.0\""},
    {"{\"jsonrpc\":\"2.0 \",\"id\":7,\"method\":\"empty\"}", "7", "'jsonrpc' must be \"2.0\""},
    {"{\"jsonrpc\":\"2.0\",\"id\":\"x\"}", "\"x\"", "'method' is missing"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}", "7", "'method' must be a string"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":null}", "7", "'method' must be a string"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"empty\",\"params\":5}", "7",
     "'params' must be an object or an array"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"empty\",\"params\":\"x\"}", "7",
     "'params' must be an object or an array"},
    {"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"empty\",\"params\":null}", "7",
     "'params' must be an object or an array"},
    {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"empty\"}", "null",
     "'id' must be a string, a number or null"},
    {"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"empty\"}", "null",
     "'id' must be a string, a number or null"},
    {"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"empty\"}", "null",
     "'id' must be a string, a number or null"},
    {"{\"jsonrpc\":\"2.0\",\"id\":false,\"method\":\"empty\"}", "null",
     "'id' must be a string, a number or null"},
    /* invalid without an id: not a notification, answered with id null (JSON-RPC 2.0 s.5) */
    {"{\"jsonrpc\":\"2.0\",\"method\":5}", "null", "'method' must be a string"},
    {"{\"method\":\"empty\"}", "null", "'jsonrpc' is missing (it must be \"2.0\")"},
    {"{}", "null", "'jsonrpc' is missing (it must be \"2.0\")"},
    {"5", "null", "request must be a JSON object (got number)"},
    {"\"get_info\"", "null", "request must be a JSON object (got string)"},
    {"null", "null", "request must be a JSON object (got null)"},
    {"true", "null", "request must be a JSON object (got boolean)"},
};

START_TEST(test_invalid_request_reasons)
{
    const bad_case_t *c = &bad_cases[_i];
    check_error(rpc(c->msg), c->id, FW_RPC_INVALID_REQUEST, c->message);
    ck_assert(answered);
}
END_TEST

START_TEST(test_method_not_found)
{
    check_error(rpc(REQ("\"q\"", "\"foo\"")), "\"q\"", FW_RPC_METHOD_NOT_FOUND,
                "method 'foo' not found");
    check_error(rpc(REQ("1", "\"fo\\u00e9\"")), "1", FW_RPC_METHOD_NOT_FOUND,
                "method 'fo\xc3\xa9' not found");
    check_error(rpc(REQ("1", "\"\"")), "1", FW_RPC_METHOD_NOT_FOUND, "method '' not found");
    /* core methods and tools only: not a prefix, not case-insensitive */
    check_error(rpc(REQ("1", "\"get_inf\"")), "1", FW_RPC_METHOD_NOT_FOUND, NULL);
    check_error(rpc(REQ("1", "\"GET_INFO\"")), "1", FW_RPC_METHOD_NOT_FOUND, NULL);
}
END_TEST

START_TEST(test_long_method_name_cut)
{
    char msg[400], name[201];
    memset(name, 'm', 200);
    name[200] = 0;
    snprintf(msg, sizeof msg, REQ("1", "\"%s\""), name);
    const char *text = rpc(msg);
    check_error(text, "1", FW_RPC_METHOD_NOT_FOUND, NULL);
    json_t *j = parse(text);
    const char *m = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
    ck_assert_ptr_nonnull(strstr(m, "mmm..."));
    ck_assert_uint_lt(strlen(m), FW_ERRMSG_MAX);
    json_decref(j);
}
END_TEST

START_TEST(test_responses_ignored)
{
    ck_assert_str_eq(rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), "");
    ck_assert(!answered);
    ck_assert_str_eq(
        rpc("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"x\"}}"), "");
    ck_assert_str_eq(rpc("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":5}"), "");
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 0);
    ck_assert_uint_eq(fw_device_counters(&dev)->requests, 0);
}
END_TEST

/* ---------------------------------------------------------------- notifications */

START_TEST(test_notification_runs_silently)
{
    ck_assert_str_eq(rpc("{\"jsonrpc\":\"2.0\",\"method\":\"count\"}"), "");
    ck_assert(!answered);
    ck_assert_uint_eq(runs, 1);
    ck_assert_str_eq(rpc("{\"jsonrpc\":\"2.0\",\"method\":\"count\",\"params\":{}}"), "");
    ck_assert_uint_eq(runs, 2);
    ck_assert_uint_eq(fw_device_counters(&dev)->notifications, 2);
    ck_assert_uint_eq(fw_device_counters(&dev)->requests, 2);
    /* id null is a request, not a notification */
    ck_assert_str_eq(rpc(REQ("null", "\"count\"")),
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{\"runs\":3}}");
}
END_TEST

START_TEST(test_notification_errors_silent)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &issues_tool), FW_OK);
    static const char *const msgs[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"foo\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"n\":\"x\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"zz\":1}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"nack\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"hw\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"issues\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"bug\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"unbalanced\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"list_tools\"}",
    };
    for (size_t i = 0; i < FW_ARRAY_LEN(msgs); i++) {
        ck_assert_str_eq(rpc(msgs[i]), "");
        ck_assert(!answered);
    }
    ck_assert_uint_eq(fw_device_counters(&dev)->notifications, FW_ARRAY_LEN(msgs));
    /* no error was sent; only the two handler bugs (bug, unbalanced) are counted */
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 2);
    /* the device still answers normally afterwards */
    ck_assert_str_eq(rpc(REQ("2", "\"empty\"")), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
}
END_TEST

/* ---------------------------------------------------------------- handler outcomes */

START_TEST(test_handler_error_worded)
{
    char want[256];
    snprintf(want, sizeof want,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":%d,"
             "\"message\":\"chip at 0x48 did not acknowledge\","
             "\"data\":{\"error\":\"" WORDED_NAME "\"}}}",
             WORDED_CODE);
    ck_assert_str_eq(rpc(REQ("4", "\"nack\"")), want);
}
END_TEST

START_TEST(test_handler_error_plain)
{
    char want[256];
    snprintf(want, sizeof want,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":%d,"
             "\"message\":\"hardware failure\",\"data\":{\"error\":\"hardware failure\"}}}",
             FW_RPC_HW_FAILURE);
    ck_assert_str_eq(rpc(REQ("4", "\"hw\"")), want);
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 1);
}
END_TEST

START_TEST(test_ok_without_result_is_empty_object)
{
    ck_assert_str_eq(rpc(REQ("4", "\"empty\"")), "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}");
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 0);
}
END_TEST

START_TEST(test_error_after_result_closed_and_counted)
{
    ck_assert_str_eq(rpc(REQ("4", "\"bug\"")),
                     "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"a\":1,\"list\":[2]}}");
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 1);
    ck_assert_str_eq(rpc(REQ("5", "\"unbalanced\"")),
                     "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"o\":{\"k\":null}}}");
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 2);
#if FW_WITH_BATCH
    /* the same inside a batch: the array stays well formed */
    const char *text = rpc("[" REQ("1", "\"bug\"") "," REQ("2", "\"empty\"") "]");
    ck_assert_str_eq(text, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"list\":[2]}},"
                           "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]");
#endif
}
END_TEST

START_TEST(test_issues_listed_and_counted)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &issues_tool), FW_OK);
    const char *text = rpc(REQ("1", "\"issues\""));
    check_error(text, "1", FW_RPC_INVALID_PARAMS, "invalid params: x: bad 0 (and 5 more)");
    json_t *j = parse(text);
    json_t *issues =
        json_object_get(json_object_get(json_object_get(j, "error"), "data"), "issues");
    ck_assert_uint_eq(json_array_size(issues), FW_ISSUES_MAX);
    for (size_t i = 0; i < FW_ISSUES_MAX; i++) {
        char want[16];
        snprintf(want, sizeof want, "bad %zu", i);
        json_t *is = json_array_get(issues, i);
        ck_assert_str_eq(json_string_value(json_object_get(is, "path")), "x");
        ck_assert_str_eq(json_string_value(json_object_get(is, "message")), want);
    }
    json_decref(j);
}
END_TEST

START_TEST(test_invalid_params_from_schema)
{
    ck_assert_str_eq(rpc(REQ("1", "\"echo\",\"params\":{\"n\":true}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,"
                     "\"message\":\"invalid params: n: must be an integer (got boolean)\","
                     "\"data\":{\"issues\":[{\"path\":\"n\","
                     "\"message\":\"must be an integer (got boolean)\"}]}}}");
}
END_TEST

START_TEST(test_scratch_reset_per_request)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &scratch_tool), FW_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(rpc(REQ("1", "\"scratch\"")),
                         "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
#if FW_WITH_BATCH
    const char *text = rpc(
        "[" REQ("1", "\"scratch\"") "," REQ("2", "\"scratch\"") "," REQ("3", "\"scratch\"") "]");
    json_t *j = parse(text);
    for (size_t i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(json_object_get(json_array_get(j, i), "result"));
    json_decref(j);
#endif
}
END_TEST

/* ---------------------------------------------------------------- parse and size errors */

START_TEST(test_parse_error_then_recovery)
{
    ck_assert_str_eq(rpc("{\"jsonrpc\":\"2.0\","),
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                     "\"message\":\"parse error at byte 17\"}}");
    check_error(rpc("{\"a\":}"), "null", FW_RPC_PARSE_ERROR, "parse error at byte 5");
    check_error(rpc(""), "null", FW_RPC_PARSE_ERROR, NULL);
    check_error(rpc(REQ("1", "\"empty\"") " x"), "null", FW_RPC_PARSE_ERROR, NULL);
    check_error(rpc("[" REQ("1", "\"empty\"")), "null", FW_RPC_PARSE_ERROR,
                NULL); /* broken batch */
    ck_assert_uint_eq(fw_device_counters(&dev)->parse_errors, 5);
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, 5);
    ck_assert_str_eq(rpc(REQ("2", "\"empty\"")), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
}
END_TEST

START_TEST(test_token_pool_exhausted)
{
    static char msg[4096];
    size_t n = (size_t)snprintf(msg, sizeof msg,
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
                                "\"params\":[0");
    for (int i = 0; i < FW_JSON_TOKENS_MAX; i++)
        n += (size_t)snprintf(msg + n, sizeof msg - n, ",0");
    snprintf(msg + n, sizeof msg - n, "]}");
    char want[96];
    snprintf(want, sizeof want, "request has more than %d JSON tokens (FW_JSON_TOKENS_MAX)",
             FW_JSON_TOKENS_MAX);
    check_error(rpc(msg), "null", FW_RPC_INVALID_REQUEST, want);
    ck_assert_str_eq(rpc(REQ("2", "\"empty\"")), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
}
END_TEST

/* A whole message the reader cannot index (FW_MSG_MAX bytes or more) is refused by its size. */
START_TEST(test_message_over_the_reader_limit)
{
    static char msg[FW_MSG_MAX + 1];
    const char *req = REQ("1", "\"empty\"");
    size_t n = strlen(req);
    memcpy(msg, req, n);
    memset(msg + n, ' ', sizeof msg - n);
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, msg, FW_MSG_MAX - 1, cap_sink(&out)));
    ck_assert_str_eq(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    char want[128];
    snprintf(want, sizeof want, "request of %u bytes is over FW_MSG_MAX (at most %u)",
             (unsigned)FW_MSG_MAX, (unsigned)FW_MSG_MAX - 1u);
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, msg, FW_MSG_MAX, cap_sink(&out)));
    check_error(out.buf, "null", FW_RPC_INVALID_REQUEST, want);
}
END_TEST

START_TEST(test_depth_exhausted)
{
    char msg[256] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":";
    for (int i = 0; i < FW_JSON_DEPTH_MAX; i++) strcat(msg, "[");
    for (int i = 0; i < FW_JSON_DEPTH_MAX; i++) strcat(msg, "]");
    strcat(msg, "}");
    char want[96];
    snprintf(want, sizeof want, "request nests deeper than %d levels (FW_JSON_DEPTH_MAX)",
             FW_JSON_DEPTH_MAX);
    check_error(rpc(msg), "null", FW_RPC_INVALID_REQUEST, want);
}
END_TEST

#if FW_WITH_BATCH
/* ---------------------------------------------------------------- batches */

START_TEST(test_batch_empty)
{
    check_error(rpc("[]"), "null", FW_RPC_INVALID_REQUEST,
                "empty batch: a batch array must hold at least one request");
    check_error(rpc(" [ ] "), "null", FW_RPC_INVALID_REQUEST, NULL);
}
END_TEST

static void batch_of(char *msg, size_t cap, int n)
{
    size_t len = (size_t)snprintf(msg, cap, "[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(msg + len, cap - len, "%s" REQ("%d", "\"empty\""), i ? "," : "", i);
    snprintf(msg + len, cap - len, "]");
}

START_TEST(test_batch_limit)
{
    static char msg[2048];
    char want[96];
    batch_of(msg, sizeof msg, FW_BATCH_MAX + 1);
    snprintf(want, sizeof want, "batch has %d requests; at most %d are allowed (FW_BATCH_MAX)",
             FW_BATCH_MAX + 1, FW_BATCH_MAX);
    check_error(rpc(msg), "null", FW_RPC_INVALID_REQUEST, want);
    ck_assert_uint_eq(runs, 0);
    batch_of(msg, sizeof msg, FW_BATCH_MAX);
    json_t *j = parse(rpc(msg));
    ck_assert(json_is_array(j));
    ck_assert_uint_eq(json_array_size(j), FW_BATCH_MAX);
    for (int i = 0; i < FW_BATCH_MAX; i++)
        ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(j, (size_t)i), "id")),
                         i);
    json_decref(j);
}
END_TEST

START_TEST(test_batch_mixed)
{
    const char *text = rpc(
        "[" REQ("1", "\"count\"") ","
                                  "{\"jsonrpc\":\"2.0\",\"method\":\"count\"},"
                                  "5,"
                                  "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":1},"
                                  "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"}," REQ(
                                      "\"b\"", "\"nope\"") ","
                                                           "{\"jsonrpc\":\"2.0\",\"id\":3}," REQ(
                                                               "4", "\"count\"") "]");
    ck_assert_str_eq(text, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"runs\":1}},"
                           "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                           "\"message\":\"request must be a JSON object (got number)\"}},"
                           "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"error\":{\"code\":-32601,"
                           "\"message\":\"method 'nope' not found\"}},"
                           "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32600,"
                           "\"message\":\"'method' is missing\"}},"
                           "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"runs\":3}}]");
    ck_assert_uint_eq(runs, 3);
    const fw_counters_t *c = fw_device_counters(&dev);
    ck_assert_uint_eq(c->requests, 7); /* the response element is not a request */
    ck_assert_uint_eq(c->notifications, 2);
    ck_assert_uint_eq(c->errors, 3);
}
END_TEST

START_TEST(test_batch_all_notifications_writes_nothing)
{
    ck_assert_str_eq(rpc("[{\"jsonrpc\":\"2.0\",\"method\":\"count\"},"
                         "{\"jsonrpc\":\"2.0\",\"method\":\"nope\"},"
                         "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":0}]"),
                     "");
    ck_assert(!answered);
    ck_assert_uint_eq(out.writes, 0);
    ck_assert_uint_eq(runs, 1);
}
END_TEST

START_TEST(test_batch_nested_non_objects)
{
    ck_assert_str_eq(rpc("[[" REQ("1", "\"empty\"") "],[],1,\"x\",null]"),
                     "[{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                     "\"message\":\"request must be a JSON object (got array)\"}},"
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                     "\"message\":\"request must be a JSON object (got array)\"}},"
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                     "\"message\":\"request must be a JSON object (got number)\"}},"
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                     "\"message\":\"request must be a JSON object (got string)\"}},"
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                     "\"message\":\"request must be a JSON object (got null)\"}}]");
}
END_TEST

START_TEST(test_batch_big_results_stream)
{
    /* responses far larger than the writer's buffer arrive whole and in order */
    const char *text = rpc("[" REQ("1", "\"list_tools\"") "," REQ("2", "\"list_tools\"") "]");
    json_t *j = parse(text);
    ck_assert_uint_eq(json_array_size(j), 2);
    ck_assert_uint_gt(out.len, 2 * FW_JW_BUF_SIZE);
    ck_assert_uint_gt(out.writes, 2);
    json_decref(j);
}
END_TEST

/* A response's head lands at every offset of the writer's buffer, and is longer than it: the
   bytes are the same whether the head goes in one copy or call by call (FW_SPEED_PATHS 2). */
START_TEST(test_response_heads_at_every_buffer_offset)
{
    static char msg[4096], want[4096], id[2 * FW_JW_BUF_SIZE + 8];
    for (size_t pad = 0; pad < 2 * FW_JW_BUF_SIZE; pad++) {
        memset(id, 'x', pad);
        id[pad] = '\0';
        snprintf(msg, sizeof msg,
                 "[" REQ("\"%s\"", "\"empty\"") "," REQ("7", "\"empty\"") "," REQ("\"%s\"",
                                                                                  "\"empty\"") "]",
                 id, id);
        snprintf(want, sizeof want,
                 "[{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{}},"
                 "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}},"
                 "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{}}]",
                 id, id);
        ck_assert_str_eq(rpc(msg), want);
        snprintf(msg, sizeof msg, REQ("\"%s\"", "\"count\""), id);
        snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"runs\":%u}}",
                 id, runs + 1);
        ck_assert_str_eq(rpc(msg), want);
    }
}
END_TEST

#else

/* A build without batches answers an array with one -32600, running none of its requests. */
START_TEST(test_batches_refused)
{
    const char *text = rpc("[" REQ("1", "\"count\"") "," REQ("2", "\"count\"") "]");
    check_error(text, "null", FW_RPC_INVALID_REQUEST, NULL);
    ck_assert_ptr_nonnull(strstr(text, "FW_WITH_BATCH"));
    ck_assert_uint_eq(runs, 0);
    check_error(rpc("[]"), "null", FW_RPC_INVALID_REQUEST, NULL);
    ck_assert_str_eq(rpc(REQ("2", "\"empty\"")), "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
}
END_TEST

#endif

/* ---------------------------------------------------------------- byte streams */

static const char stream[] = REQ("1", "\"count\"") "\n"
                                                   "{\"jsonrpc\":\"2.0\",\"method\":\"count\"}\r\n"
                                                   "\n" REQ("\"z\"", "\"nope\"") "\r\n"
                                                                                 "{bad\n";

static const char stream_answer[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"runs\":1}}\n"
                                    "{\"jsonrpc\":\"2.0\",\"id\":\"z\",\"error\":{\"code\":-32601,"
                                    "\"message\":\"method 'nope' not found\"}}\n"
                                    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                                    "\"message\":\"parse error at byte 1\"}}\n";

static void feed(fw_framer_t *fr, const char *data, size_t len)
{
    fw_device_feed(&dev, fr, (const uint8_t *)data, len, cap_sink(&out));
}

START_TEST(test_feed_whole)
{
    fw_framer_t fr;
    fw_framer_init(&fr);
    feed(&fr, stream, strlen(stream));
    ck_assert_str_eq(out.buf, stream_answer);
    ck_assert_uint_eq(runs, 2);
}
END_TEST

START_TEST(test_feed_split_everywhere)
{
    size_t n = strlen(stream);
    for (size_t cut = 0; cut <= n; cut++) {
        fw_framer_t fr;
        fw_framer_init(&fr);
        cap_reset(&out);
        runs = 0;
        feed(&fr, stream, cut);
        feed(&fr, stream + cut, n - cut);
        ck_assert_msg(strcmp(out.buf, stream_answer) == 0, "cut at %zu: %s", cut, out.buf);
    }
    fw_framer_t fr;
    fw_framer_init(&fr);
    cap_reset(&out);
    runs = 0;
    for (size_t i = 0; i < n; i++) feed(&fr, stream + i, 1);
    ck_assert_str_eq(out.buf, stream_answer);
}
END_TEST

START_TEST(test_feed_partial_line_waits)
{
    fw_framer_t fr;
    fw_framer_init(&fr);
    feed(&fr, REQ("1", "\"count\""), strlen(REQ("1", "\"count\"")));
    ck_assert_uint_eq(out.len, 0);
    ck_assert_uint_eq(runs, 0);
    feed(&fr, "\n", 1);
    ck_assert_str_eq(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"runs\":1}}\n");
}
END_TEST

static const char overlong_answer[] =
    "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"line exceeds "
    "%d bytes (FW_LINE_MAX); discarded up to the next newline\"}}\n";

START_TEST(test_feed_overlong_then_good)
{
    static char chunk[3 * FW_LINE_MAX];
    char want[512];
    size_t n = 0;
    memset(chunk, 'x', FW_LINE_MAX + 200);
    n = FW_LINE_MAX + 200;
    chunk[n++] = '\n';
    n += (size_t)snprintf(chunk + n, sizeof chunk - n, "%s\n", REQ("2", "\"count\""));
    fw_framer_t fr;
    fw_framer_init(&fr);
    feed(&fr, chunk, n);
    size_t len = (size_t)snprintf(want, sizeof want, overlong_answer, FW_LINE_MAX);
    snprintf(want + len, sizeof want - len, "%s\n",
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"runs\":1}}");
    ck_assert_str_eq(out.buf, want);
    const fw_counters_t *c = fw_device_counters(&dev);
    ck_assert_uint_eq(c->overlong_lines, 1);
    ck_assert_uint_eq(c->parse_errors, 1);
    ck_assert_uint_eq(c->errors, 1);
}
END_TEST

START_TEST(test_feed_overlong_in_pieces)
{
    /* the error comes once, when the line becomes too long; its rest is dropped silently */
    static char xs[FW_LINE_MAX];
    char want[512];
    memset(xs, 'x', sizeof xs);
    fw_framer_t fr;
    fw_framer_init(&fr);
    feed(&fr, xs, sizeof xs); /* exactly FW_LINE_MAX: still acceptable */
    ck_assert_uint_eq(out.len, 0);
    feed(&fr, "y", 1);
    snprintf(want, sizeof want, overlong_answer, FW_LINE_MAX);
    ck_assert_str_eq(out.buf, want);
    feed(&fr, xs, sizeof xs);
    feed(&fr, xs, sizeof xs);
    ck_assert_str_eq(out.buf, want);
    feed(&fr, "\n" REQ("3", "\"empty\"") "\n", strlen(REQ("3", "\"empty\"")) + 2);
    ck_assert_str_eq(out.buf + strlen(want), "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n");
}
END_TEST

START_TEST(test_feed_line_at_limit_is_handled)
{
    static char line[FW_LINE_MAX + 2];
    size_t n =
        (size_t)snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"empty\"");
    memset(line + n, ' ', FW_LINE_MAX - 1 - n);
    line[FW_LINE_MAX - 1] = '}';
    line[FW_LINE_MAX] = '\n';
    fw_framer_t fr;
    fw_framer_init(&fr);
    feed(&fr, line, FW_LINE_MAX + 1);
    ck_assert_str_eq(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
}
END_TEST

/* The parse error's text is made in the reply's writer: its offset of one to five digits (up to
   four in one run, five the general way), the same whether the line came whole or in pieces,
   and without the newline from fw_device_handle. */
START_TEST(test_feed_parse_error_offsets)
{
    static const size_t at[] = {0, 7, 10, 99, 100, 150, 999, 1000, 1007, 1020, 9999, 10000, 54321};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        static char line[60000];
        char want[200];
        memset(line, ' ', at[k]);
        memcpy(line + at[k], "}\n", 3);
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                 "\"message\":\"parse error at byte %zu\"}}",
                 at[k]);
        ck_assert_str_eq(rpc(line), want);
        size_t n = at[k] + 2;
        if (n > FW_LINE_MAX) continue; /* (a longer line is refused as overlong) */
        for (size_t cut = 0; cut <= n; cut += 1 + n / 9) {
            fw_framer_t fr;
            fw_framer_init(&fr);
            cap_reset(&out);
            feed(&fr, line, cut);
            feed(&fr, line + cut, n - cut);
            ck_assert_uint_eq(out.len, strlen(want) + 1);
            ck_assert_mem_eq(out.buf, want, strlen(want));
            ck_assert_int_eq(out.buf[out.len - 1], '\n');
        }
    }
}
END_TEST

/* A reply longer than the writer's buffer (written to the sink in parts) still ends with its
   newline, once, and several lines of one read each get theirs. */
START_TEST(test_feed_long_reply_and_several_lines)
{
    char name[300], line[400];
    size_t name_len = FW_LINE_MAX - 60 < 250 ? FW_LINE_MAX - 60 : 250; /* the line fits */
    memset(name, 'n', name_len);
    name[name_len] = '\0';
    int n = snprintf(line, sizeof line, REQ("1", "\"%s\"") "\n\r\n" REQ("2", "\"count\"") "\r\n",
                     name);
    fw_framer_t fr;
    fw_framer_init(&fr);
    cap_reset(&out);
    feed(&fr, line, (size_t)n);
    ck_assert_msg(out.len > FW_JW_BUF_SIZE, "%s", out.buf);
    ck_assert_ptr_nonnull(strstr(out.buf, "\"code\":-32601"));
    const char *second = strstr(out.buf, "}}\n{");
    ck_assert_ptr_nonnull(second);
    ck_assert_str_eq(second + 3, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"runs\":1}}\n");
    size_t newlines = 0;
    for (size_t i = 0; i < out.len; i++) newlines += out.buf[i] == '\n';
    ck_assert_uint_eq(newlines, 2);
}
END_TEST

/* ---------------------------------------------------------------- suite */

static Suite *rpc_suite(void)
{
    Suite *s = suite_create("rpc");
    TCase *t = tcase_create("requests");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_add_test(t, test_request_exact_bytes);
    tcase_add_loop_test(t, test_ids_echoed_exactly, 0, (int)FW_ARRAY_LEN(ids));
    tcase_add_test(t, test_escaped_method_name);
    tcase_add_test(t, test_params_absent_object_array);
    tcase_add_test(t, test_envelope_keys_first_wins_and_escapes);
    tcase_add_loop_test(t, test_invalid_request_reasons, 0, (int)FW_ARRAY_LEN(bad_cases));
    tcase_add_test(t, test_method_not_found);
    tcase_add_test(t, test_long_method_name_cut);
    tcase_add_test(t, test_responses_ignored);
    tcase_add_test(t, test_notification_runs_silently);
    tcase_add_test(t, test_notification_errors_silent);
    tcase_add_test(t, test_handler_error_worded);
    tcase_add_test(t, test_handler_error_plain);
    tcase_add_test(t, test_ok_without_result_is_empty_object);
    tcase_add_test(t, test_error_after_result_closed_and_counted);
    tcase_add_test(t, test_issues_listed_and_counted);
    tcase_add_test(t, test_invalid_params_from_schema);
    tcase_add_test(t, test_scratch_reset_per_request);
    tcase_add_test(t, test_parse_error_then_recovery);
    tcase_add_test(t, test_token_pool_exhausted);
    tcase_add_test(t, test_depth_exhausted);
    tcase_add_test(t, test_message_over_the_reader_limit);
    suite_add_tcase(s, t);

    TCase *b = tcase_create("batches");
    tcase_add_checked_fixture(b, setup, NULL);
#if FW_WITH_BATCH
    tcase_add_test(b, test_batch_empty);
    tcase_add_test(b, test_batch_limit);
    tcase_add_test(b, test_batch_mixed);
    tcase_add_test(b, test_batch_all_notifications_writes_nothing);
    tcase_add_test(b, test_batch_nested_non_objects);
    tcase_add_test(b, test_batch_big_results_stream);
    tcase_add_test(b, test_response_heads_at_every_buffer_offset);
#else
    tcase_add_test(b, test_batches_refused);
#endif
    suite_add_tcase(s, b);

    TCase *f = tcase_create("streams");
    tcase_add_checked_fixture(f, setup, NULL);
    tcase_add_test(f, test_feed_whole);
    tcase_add_test(f, test_feed_split_everywhere);
    tcase_add_test(f, test_feed_partial_line_waits);
    tcase_add_test(f, test_feed_overlong_then_good);
    tcase_add_test(f, test_feed_overlong_in_pieces);
    tcase_add_test(f, test_feed_line_at_limit_is_handled);
    tcase_add_test(f, test_feed_parse_error_offsets);
    tcase_add_test(f, test_feed_long_reply_and_several_lines);
    suite_add_tcase(s, f);
    return s;
}

TEST_MAIN(rpc_suite)
