/* test_mcp_resources.c: specification of MCP resources (device://info, pin://<name>),
   completion/complete and the device prompts (diagnose_pin, board_overview). */
#include "test_mcp_util.h"

#if FW_WITH_MCP

static void setup(void)
{
    mcp_setup(true);
    fw_session_init(&sess, &dev);
    one_reply = 1;
}

/* resources/read of uri: the one content's text, parsed. */
static json_t *read_json(const char *uri)
{
    char params[128];
    snprintf(params, sizeof params, "{\"uri\":\"%s\"}", uri);
    json_t *r = result_of("resources/read", params);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "contents")), 1);
    ck_assert_str_eq(jstr(r, "contents.0.uri"), uri);
    ck_assert_str_eq(jstr(r, "contents.0.mimeType"), "application/json");
    return own(jparse(jstr(r, "contents.0.text")));
}

/* ---------------------------------------------------------------- list and templates */

START_TEST(test_resources_list)
{
    json_t *list = json_object_get(result_of("resources/list", NULL), "resources");
    ck_assert_uint_eq(json_array_size(list), 1 + mcp_test_board.pin_count);
    ck_assert_str_eq(jstr(list, "0.uri"), "device://info");
    ck_assert_str_eq(jstr(list, "0.mimeType"), "application/json");
    for (size_t i = 0; i < mcp_test_board.pin_count; i++) {
        json_t *r = json_array_get(list, i + 1);
        char uri[64];
        snprintf(uri, sizeof uri, "pin://%s", mcp_test_pins[i].name);
        ck_assert_str_eq(jstr(r, "uri"), uri);
        ck_assert_str_eq(jstr(r, "name"), mcp_test_pins[i].name);
        ck_assert_str_eq(jstr(r, "mimeType"), "application/json");
        ck_assert_ptr_nonnull(strstr(jstr(r, "description"), mcp_test_pins[i].description));
    }
    ck_assert_str_eq(jstr(list, "3.description"),
                     "Light sensor: adc_input on pin 34, sampled every 100 ms");
    /* a cursor is accepted (everything fits one page) */
    json_t *again = json_object_get(result_of("resources/list", "{\"cursor\":\"x\"}"), "resources");
    ck_assert_uint_eq(json_array_size(again), json_array_size(list));
}
END_TEST

START_TEST(test_resource_templates)
{
    json_t *t = json_object_get(result_of("resources/templates/list", NULL), "resourceTemplates");
    ck_assert_uint_eq(json_array_size(t), 1);
    ck_assert_str_eq(jstr(t, "0.uriTemplate"), "pin://{name}");
    ck_assert_str_eq(jstr(t, "0.mimeType"), "application/json");
}
END_TEST

/* ---------------------------------------------------------------- read */

START_TEST(test_read_device_info_is_get_info)
{
    json_t *info = read_json("device://info");
    ck_assert(json_equal(info, result_of("get_info", NULL)));
}
END_TEST

START_TEST(test_read_digital_output)
{
    result_of("gpio_write", "{\"pin\":\"led\",\"value\":true}");
    json_t *led = read_json("pin://led");
    ck_assert_int_eq(jint(led, "pin"), 2);
    ck_assert_str_eq(jstr(led, "type"), "digital_output");
    ck_assert_str_eq(jstr(led, "description"), "Status LED");
    ck_assert(json_is_true(json_object_get(led, "value")));
    ck_assert_ptr_null(json_object_get(led, "summary")); /* not sampled */
    unsigned reads = hal.pins[2].reads;
    read_json("pin://led");
    ck_assert_uint_eq(hal.pins[2].reads, reads + 1); /* read through the HAL each time */
}
END_TEST

START_TEST(test_read_adc_with_summary)
{
    hal.pins[34].adc = 2048;
    for (int k = 1; k <= 3; k++) {
        hal.now = 100u * (unsigned)k;
        fw_device_poll(&dev);
    }
    hal.pins[34].adc = 1023;
    json_t *s = read_json("pin://sensor");
    ck_assert_str_eq(jstr(s, "type"), "adc_input");
    ck_assert_int_eq(jint(s, "value"), 1023); /* now, not the last sample */
    ck_assert(json_is_real(json_object_get(s, "volts")) ||
              json_is_integer(json_object_get(s, "volts")));
    ck_assert_int_eq(jint(s, "summary.count"), 3);
    ck_assert_int_eq(jint(s, "summary.latest"), 2048);
    ck_assert_int_eq(jint(s, "sampling.interval_ms"), 100);
    ck_assert_int_eq(jint(s, "thresholds.high"), 3000);
}
END_TEST

START_TEST(test_read_pwm_and_input)
{
    result_of("pwm_write", "{\"pin\":\"fan\",\"duty\":128}");
    json_t *fan = read_json("pin://fan");
    ck_assert_int_eq(jint(fan, "duty"), 128);
    hal.pins[4].level = true;
    json_t *button = read_json("pin://button");
    ck_assert(json_is_true(json_object_get(button, "value")));
    ck_assert_int_eq(jint(button, "summary.count"), 0);
    ck_assert(json_is_null(jpath(button, "summary.latest")));
}
END_TEST

/* MCP's -32002 for a URI that names nothing. */
static const char *const unknown_uris[] = {"pin://nope", "pin://",     "pin://LED",
                                           "pin://34",   "device://",  "file:///etc/passwd",
                                           "",           "pin://led/x"};

START_TEST(test_read_unknown_uri)
{
    char params[128], msg[128];
    snprintf(params, sizeof params, "{\"uri\":\"%s\"}", unknown_uris[_i]);
    json_t *e = error_of("resources/read", params, FW_RPC_RESOURCE_NOT_FOUND);
    snprintf(msg, sizeof msg, "Resource not found: %s", unknown_uris[_i]);
    ck_assert_str_eq(jstr(e, "message"), msg);
    error_of("resources/subscribe", params, FW_RPC_RESOURCE_NOT_FOUND);
    error_of("resources/unsubscribe", params, FW_RPC_RESOURCE_NOT_FOUND);
}
END_TEST

START_TEST(test_read_bad_params)
{
    json_t *e = error_of("resources/read", NULL, FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "uri");
    e = error_of("resources/read", "{\"uri\":3}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "must be a string");
    char params[256];
    snprintf(params, sizeof params, "{\"uri\":\"pin://%0150d\"}", 0);
    e = error_of("resources/read", params, FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "uri");
}
END_TEST

/* A pin that cannot be read is a hardware error of the request, as in its tools. */
START_TEST(test_read_hardware_failure)
{
    hal.pins[34].adc_fail = FW_ERR_ADC;
    json_t *e = error_of("resources/read", "{\"uri\":\"pin://sensor\"}", FW_RPC_ADC);
    ck_assert_str_eq(jstr(e, "message"), "reading pin 34 (sensor) failed: adc conversion failed");
}
END_TEST

START_TEST(test_subscribe_sets_session_bits)
{
    result_of("resources/subscribe", "{\"uri\":\"pin://sensor\"}");
    result_of("resources/subscribe", "{\"uri\":\"device://info\"}");
    ck_assert_uint_eq(sess.subscriptions, (1u << 2) | FW_SUB_DEVICE);
    result_of("resources/unsubscribe", "{\"uri\":\"pin://sensor\"}");
    result_of("resources/unsubscribe", "{\"uri\":\"pin://led\"}"); /* not subscribed: fine */
    ck_assert_uint_eq(sess.subscriptions, FW_SUB_DEVICE);
}
END_TEST

/* ---------------------------------------------------------------- completion */

typedef struct completion_case {
    const char *params;
    const char *values; /* JSON array */
} completion_case_t;

static const completion_case_t completions[] = {
    {"{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"pin://"
     "{name}\"},\"argument\":{\"name\":\"name\","
     "\"value\":\"s\"}}",
     "[\"sensor\"]"},
    {"{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"pin://"
     "{name}\"},\"argument\":{\"name\":\"name\","
     "\"value\":\"\"}}",
     "[\"led\",\"button\",\"sensor\",\"fan\"]"},
    {"{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"pin://"
     "{name}\"},\"argument\":{\"name\":\"name\","
     "\"value\":\"x\"}}",
     "[]"},
    {"{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"pin://"
     "{name}\"},\"argument\":{\"name\":\"other\","
     "\"value\":\"\"}}",
     "[]"},
    {"{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"device://"
     "info\"},\"argument\":{\"name\":\"name\","
     "\"value\":\"\"}}",
     "[]"},
    {"{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"diagnose_pin\"},\"argument\":{\"name\":\"pin\","
     "\"value\":\"b\"}}",
     "[\"button\"]"},
    {"{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"diagnose_pin\"},\"argument\":{\"name\":\"pin\","
     "\"value\":\"\"},\"context\":{\"arguments\":{}}}",
     "[\"led\",\"button\",\"sensor\",\"fan\"]"},
    {"{\"ref\":{\"type\":\"ref/"
     "prompt\",\"name\":\"board_overview\"},\"argument\":{\"name\":\"pin\","
     "\"value\":\"\"}}",
     "[]"},
};

START_TEST(test_completion)
{
    json_t *c =
        json_object_get(result_of("completion/complete", completions[_i].params), "completion");
    json_t *want = own(jparse(completions[_i].values));
    ck_assert_msg(json_equal(json_object_get(c, "values"), want), "%s", out.buf);
    ck_assert_int_eq(jint(c, "total"), (json_int_t)json_array_size(want));
    ck_assert(json_is_false(json_object_get(c, "hasMore")));
}
END_TEST

static const char *const bad_completions[] = {
    "{\"argument\":{\"name\":\"pin\",\"value\":\"\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"diagnose_pin\"}}",
    "{\"ref\":{\"type\":\"ref/"
    "tool\",\"name\":\"x\"},\"argument\":{\"name\":\"pin\",\"value\":\"\"}}",
    "{\"ref\":{\"type\":\"ref/"
    "prompt\",\"name\":\"nope\"},\"argument\":{\"name\":\"pin\",\"value\":\"\"}}",
    "{\"ref\":{\"type\":\"ref/resource\"},\"argument\":{\"name\":\"name\",\"value\":\"\"}}",
    "{\"ref\":\"pin://{name}\",\"argument\":{\"name\":\"name\",\"value\":\"\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"diagnose_pin\"},\"argument\":{\"value\":\"\"}}",
};

START_TEST(test_completion_bad_params)
{
    error_of("completion/complete", bad_completions[_i], FW_RPC_INVALID_PARAMS);
}
END_TEST

/* ---------------------------------------------------------------- prompts */

START_TEST(test_prompts_list)
{
    json_t *p = json_object_get(result_of("prompts/list", NULL), "prompts");
    ck_assert_uint_eq(json_array_size(p), 2);
    ck_assert_str_eq(jstr(p, "0.name"), "diagnose_pin");
    ck_assert_str_eq(jstr(p, "0.arguments.0.name"), "pin");
    ck_assert(json_is_true(jpath(p, "0.arguments.0.required")));
    ck_assert_str_eq(jstr(p, "1.name"), "board_overview");
    ck_assert_uint_eq(json_array_size(jpath(p, "1.arguments")), 0);
    ck_assert(json_is_string(jpath(p, "1.description")));
}
END_TEST

/* The text names the pin, its type and the tools that take it; the pin's state is embedded. */
START_TEST(test_diagnose_pin)
{
    hal.pins[34].adc = 4095;
    json_t *r =
        result_of("prompts/get", "{\"name\":\"diagnose_pin\",\"arguments\":{\"pin\":\"sensor\"}}");
    json_t *m = json_object_get(r, "messages");
    ck_assert_uint_eq(json_array_size(m), 2);
    ck_assert_str_eq(jstr(m, "0.role"), "user");
    ck_assert_str_eq(jstr(m, "0.content.type"), "text");
    const char *text = jstr(m, "0.content.text");
    ck_assert_ptr_nonnull(strstr(text, "pin 34 (sensor)"));
    ck_assert_ptr_nonnull(strstr(text, "adc_input"));
    ck_assert_ptr_nonnull(strstr(text, "\"Light sensor\""));
    ck_assert_ptr_nonnull(strstr(text, "adc_read"));
    ck_assert_ptr_null(strstr(text, "gpio_write")); /* takes digital outputs only */
    ck_assert_str_eq(jstr(m, "1.content.type"), "resource");
    ck_assert_str_eq(jstr(m, "1.content.resource.uri"), "pin://sensor");
    json_t *state = own(jparse(jstr(m, "1.content.resource.text")));
    ck_assert_int_eq(jint(state, "value"), 4095);
    ck_assert_str_eq(jstr(r, "description"), "Diagnose pin 34 (sensor)");
    /* by number too */
    r = result_of("prompts/get", "{\"name\":\"diagnose_pin\",\"arguments\":{\"pin\":\"2\"}}");
    ck_assert_ptr_nonnull(strstr(jstr(r, "messages.0.content.text"), "gpio_write"));
}
END_TEST

/* A pin that cannot be read is part of the diagnosis, not an error. */
START_TEST(test_diagnose_unreadable_pin)
{
    hal.pins[34].adc_fail = FW_ERR_ADC;
    json_t *r =
        result_of("prompts/get", "{\"name\":\"diagnose_pin\",\"arguments\":{\"pin\":\"sensor\"}}");
    ck_assert_ptr_nonnull(strstr(jstr(r, "messages.0.content.text"), "reading it failed"));
    json_t *state = own(jparse(jstr(r, "messages.1.content.resource.text")));
    ck_assert(json_is_null(json_object_get(state, "value")));
    ck_assert_str_eq(jstr(state, "error"), "adc conversion failed");
}
END_TEST

START_TEST(test_diagnose_bad_arguments)
{
    json_t *e = error_of("prompts/get", "{\"name\":\"diagnose_pin\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "arguments.pin");
    e = error_of("prompts/get", "{\"name\":\"diagnose_pin\",\"arguments\":{\"pin\":\"nope\"}}",
                 -32602);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "no pin named 'nope' on this board");
    e = error_of("prompts/get", "{\"name\":\"diagnose_pin\",\"arguments\":{\"pin\":34}}",
                 FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "must be a string");
}
END_TEST

START_TEST(test_board_overview)
{
    json_t *r = result_of("prompts/get", "{\"name\":\"board_overview\"}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "messages")), 1);
    const char *text = jstr(r, "messages.0.content.text");
    ck_assert_ptr_nonnull(strstr(text, "mcp-test 2.3.4"));
    for (size_t i = 0; i < mcp_test_board.pin_count; i++)
        ck_assert_ptr_nonnull(strstr(text, mcp_test_pins[i].name));
    for (size_t i = 0; i < fw_device_tool_count(&dev); i++)
        ck_assert_msg(strstr(text, fw_device_tool_at(&dev, i)->name) != NULL, "%s missing",
                      fw_device_tool_at(&dev, i)->name);
    ck_assert_ptr_nonnull(strstr(text, "- eeprom_write (destructive)"));
    ck_assert_ptr_nonnull(strstr(text, "- adc_read (read-only)"));
    ck_assert_ptr_nonnull(strstr(text, "sampled every 10 ms"));
}
END_TEST

START_TEST(test_unknown_prompt)
{
    json_t *e = error_of("prompts/get", "{\"name\":\"nope\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "message"),
                     "invalid params: name: unknown prompt 'nope' (see prompts/list)");
    error_of("prompts/get", "{\"name\":\"board_overview\",\"arguments\":[]}",
             FW_RPC_INVALID_PARAMS);
}
END_TEST

Suite *mcp_resources_suite(void);

Suite *mcp_resources_suite(void)
{
    Suite *s = suite_create("mcp_resources");
    TCase *t = tcase_create("resources");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_resources_list);
    tcase_add_test(t, test_resource_templates);
    tcase_add_test(t, test_read_device_info_is_get_info);
    tcase_add_test(t, test_read_digital_output);
    tcase_add_test(t, test_read_adc_with_summary);
    tcase_add_test(t, test_read_pwm_and_input);
    tcase_add_loop_test(t, test_read_unknown_uri, 0, sizeof unknown_uris / sizeof unknown_uris[0]);
    tcase_add_test(t, test_read_bad_params);
    tcase_add_test(t, test_read_hardware_failure);
    tcase_add_test(t, test_subscribe_sets_session_bits);
    suite_add_tcase(s, t);

    t = tcase_create("completion");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_loop_test(t, test_completion, 0, sizeof completions / sizeof completions[0]);
    tcase_add_loop_test(t, test_completion_bad_params, 0,
                        sizeof bad_completions / sizeof bad_completions[0]);
    suite_add_tcase(s, t);

    t = tcase_create("prompts");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_prompts_list);
    tcase_add_test(t, test_diagnose_pin);
    tcase_add_test(t, test_diagnose_unreadable_pin);
    tcase_add_test(t, test_diagnose_bad_arguments);
    tcase_add_test(t, test_board_overview);
    tcase_add_test(t, test_unknown_prompt);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_MCP) */

/* A build without MCP: resources/read and prompts/get are unknown methods. */
START_TEST(test_feature_is_off)
{
    static const fw_board_t b = {.device = "no-mcp", .version = "1", .platform = "mock"};
    ck_assert(!FW_WITH_MCP);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    fw_session_init(&sess, &dev);
    error_of("resources/read", "{\"uri\":\"device://info\"}", FW_RPC_METHOD_NOT_FOUND);
    error_of("prompts/list", NULL, FW_RPC_METHOD_NOT_FOUND);
    error_of("completion/complete", NULL, FW_RPC_METHOD_NOT_FOUND);
    mcp_teardown();
}
END_TEST

Suite *mcp_resources_suite(void);

Suite *mcp_resources_suite(void)
{
    Suite *s = suite_create("mcp_resources");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_resources_suite)
