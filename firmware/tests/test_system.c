/* test_system.c: the system_info tool: identity, uptime, chip facts, memory pools, counters. */
#include "test_harness.h"

static hal_api_t api;

#if FW_WITH_I2C && FW_WITH_SAMPLING
#define SYSTEM_BOARD test_board_greenhouse_min()
#else
/* The greenhouse-min as a build without I2C and sampling can have it: its pins, unsampled, and
   system_info listed explicitly (mcpu-min's standard list is MCP/U's tool set only). */
static const fw_board_t *system_board(void)
{
    static const fw_toolset_t *const sets[] = {&fw_builtin_gpio, &fw_builtin_pwm, &fw_builtin_adc,
                                               &fw_builtin_system, NULL};
    static fw_board_t b;
    b = *test_board_greenhouse_min_pins();
    b.toolsets = sets;
    return &b;
}
#define SYSTEM_BOARD system_board()
#endif

static void start(const fw_board_t *b)
{
    harness_start(b, &api);
}

static void setup(void)
{
    harness_reset();
    mock.now = 1000; /* boot is not at time 0 */
    api = mock_hal_api;
    start(SYSTEM_BOARD);
}

static void send(const char *msg)
{
    cap_reset(&out);
    fw_device_handle(&dev, msg, strlen(msg), cap_sink(&out));
}

/* Calls system_info (params: JSON text or NULL) and returns its parsed reply. */
static json_t *call_info(const char *params)
{
    char req[256];
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"system_info\"%s%s}",
             params ? ",\"params\":" : "", params ? params : "");
    send(req);
    return harness_parse();
}

static json_t *info(void)
{
    json_t *result = json_object_get(call_info(NULL), "result");
    ck_assert_msg(json_is_object(result), "system_info failed: %s", out.buf);
    return result;
}

START_TEST(test_identity_from_the_board_and_the_core)
{
    json_t *r = info();
    ck_assert_str_eq(str_at(r, "device"), "greenhouse-min");
    ck_assert_str_eq(str_at(r, "version"), "1.0.0");
    ck_assert_str_eq(str_at(r, "platform"), "bare-metal");
    ck_assert_str_eq(str_at(r, "core_version"), FW_CORE_VERSION);
    ck_assert_str_eq(str_at(r, "profile"), FW_PROFILE_NAME);
    ck_assert_str_eq(str_at(r, "profile"), FW_PROFILE == FW_PROFILE_FULL ? "full" : "mcpu-min");
}
END_TEST

START_TEST(test_chip_facts_come_from_the_port)
{
    json_t *r = info();
    ck_assert_str_eq(str_at(r, "chip"), "mock");
    ck_assert_str_eq(str_at(r, "unique_id"), "00:11:22:33:44:55");
    ck_assert_int_eq(int_at(r, "cpu_mhz"), 240);
    ck_assert_int_eq(int_at(r, "ram_bytes"), 327680);
    ck_assert_int_eq(int_at(r, "flash_bytes"), 4194304);
}
END_TEST

static fw_err_t failing_info(void *ctx, hal_device_info_t *di)
{
    (void)ctx;
    di->chip = "half-written";
    return FW_ERR_HW;
}

/* Unknown chip facts are left out; identity, memory and counters stay. */
START_TEST(test_chip_facts_absent_without_device_info)
{
    static const char *const chip_keys[] = {"chip", "unique_id", "cpu_mhz", "ram_bytes",
                                            "flash_bytes"};
    for (int variant = 0; variant < 2; variant++) {
        api.device_info = variant == 0 ? NULL : failing_info;
        start(SYSTEM_BOARD);
        json_t *r = info();
        for (size_t i = 0; i < sizeof chip_keys / sizeof chip_keys[0]; i++)
            ck_assert_msg(json_object_get(r, chip_keys[i]) == NULL, "%s present in %s",
                          chip_keys[i], out.buf);
        ck_assert_str_eq(str_at(r, "device"), "greenhouse-min");
        ck_assert(json_is_object(json_object_get(r, "memory")));
        ck_assert(json_is_object(json_object_get(r, "counters")));
    }
}
END_TEST

START_TEST(test_uptime_counts_from_init)
{
    ck_assert_int_eq(int_at(info(), "uptime_ms"), 0);
    mock.now = 3500;
    ck_assert_int_eq(int_at(info(), "uptime_ms"), 2500);
    mock.now = 1000 + 86400000ull * 60; /* 60 days: past 32 bits of milliseconds */
    ck_assert_int_eq(int_at(info(), "uptime_ms"), 86400000ll * 60);
}
END_TEST

START_TEST(test_memory_reports_the_pools)
{
    json_t *m = json_object_get(info(), "memory");
    ck_assert_int_eq(int_at(m, "device_instance_bytes"), (json_int_t)sizeof(fw_device_t));
    ck_assert_int_eq(int_at(m, "line_max"), FW_LINE_MAX);
    ck_assert_int_eq(int_at(m, "json_tokens"), FW_JSON_TOKENS_MAX);
    ck_assert_int_eq(int_at(m, "tools_max"), FW_TOOLS_MAX);
    ck_assert_int_eq(int_at(m, "tools_used"), (json_int_t)fw_device_tool_count(&dev));
#if FW_WITH_I2C && FW_WITH_SAMPLING
    ck_assert_int_gt(int_at(m, "tools_used"), 10); /* built-ins, i2c, tmp102 and at24c tools */
#endif
    ck_assert_int_eq(int_at(m, "pins_max"), FW_PINS_MAX);
    ck_assert_int_eq(int_at(m, "pins_used"), 3);
#if FW_WITH_SAMPLING
    ck_assert_int_eq(int_at(m, "event_queue"), FW_EVENT_QUEUE_MAX);
    ck_assert_int_eq(int_at(m, "events_queued"), 0);
#else
    ck_assert_ptr_null(json_object_get(m, "event_queue")); /* no queue in the build */
#endif
    ck_assert_int_eq(int_at(m, "scratch_bytes"), FW_SCRATCH_SIZE);
}
END_TEST

#if FW_WITH_I2C && FW_WITH_SAMPLING
START_TEST(test_tools_used_depends_on_the_board)
{
    json_int_t greenhouse = int_at(json_object_get(info(), "memory"), "tools_used");
    start(test_board_esp32_demo()); /* no I2C: no i2c or driver tools, two app tools */
    json_int_t demo = int_at(json_object_get(info(), "memory"), "tools_used");
    ck_assert_int_eq(demo, (json_int_t)fw_device_tool_count(&dev));
    ck_assert_int_eq(greenhouse - demo, 3 + 1 + 2 - 2);
}
END_TEST
#endif

START_TEST(test_counters_move_with_traffic)
{
    json_t *c = json_object_get(info(), "counters");
    ck_assert_int_eq(int_at(c, "requests"), 1); /* system_info counts itself */
    ck_assert_int_eq(int_at(c, "errors"), 0);
    ck_assert_int_eq(int_at(c, "parse_errors"), 0);
    ck_assert_int_eq(int_at(c, "notifications"), 0);
    ck_assert_int_eq(int_at(c, "overlong_lines"), 0);
    ck_assert_int_eq(int_at(c, "events_dropped"), 0);

    send("{\"jsonrpc\":\"2.0\",\"id\":1,");                             /* parse error */
    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no_such_tool\"}"); /* error */
    send("{\"jsonrpc\":\"2.0\",\"method\":\"get_info\"}");              /* notification */
    fw_framer_t fr;
    fw_framer_init(&fr);
    static uint8_t line[FW_LINE_MAX + 10];
    memset(line, 'x', sizeof line);
    line[sizeof line - 1] = '\n';
    cap_reset(&out);
    fw_device_feed(&dev, &fr, line, sizeof line, cap_sink(&out)); /* overlong line */

    c = json_object_get(info(), "counters");
    ck_assert_int_eq(int_at(c, "requests"), 4);
    ck_assert_int_eq(int_at(c, "errors"), 3); /* parse error, unknown method, overlong line */
    ck_assert_int_eq(int_at(c, "parse_errors"), 2);
    ck_assert_int_eq(int_at(c, "notifications"), 1);
    ck_assert_int_eq(int_at(c, "overlong_lines"), 1);
}
END_TEST

#if FW_WITH_SAMPLING
/* A door contact sampled every 10 ms with events on: more edges than the queue holds. */
static const fw_pin_def_t door_pins[] = {
    {.number = 5,
     .type = FW_PIN_DIGITAL_INPUT,
     .name = "door",
     .sample_interval_ms = 10,
     .events = true},
};
static const fw_board_t door_board = {.device = "door",
                                      .version = "2",
                                      .platform = "test",
                                      .pins = door_pins,
                                      .pin_count = 1,
                                      .toolsets = fw_builtins};

START_TEST(test_events_queued_and_dropped)
{
    start(&door_board);
    unsigned edges = FW_EVENT_QUEUE_MAX + 5;
    for (unsigned i = 1; i <= edges + 1; i++) {
        mock.pins[5].level = i % 2 == 0;
        mock.now = 1000 + 10u * i;
        fw_device_poll(&dev);
    }
    json_t *r = info();
    ck_assert_int_eq(int_at(json_object_get(r, "memory"), "events_queued"), FW_EVENT_QUEUE_MAX);
    ck_assert_int_eq(int_at(json_object_get(r, "counters"), "events_dropped"),
                     edges - FW_EVENT_QUEUE_MAX);
}
END_TEST
#endif

START_TEST(test_takes_no_arguments_and_is_read_only)
{
    json_t *error = json_object_get(call_info("{\"verbose\":true}"), "error");
    ck_assert_int_eq(json_integer_value(json_object_get(error, "code")), FW_RPC_INVALID_PARAMS);
    ck_assert(json_is_object(json_object_get(call_info("{}"), "result")));
    ck_assert(json_is_object(json_object_get(call_info("[]"), "result")));
    const fw_tool_t *t = fw_device_find_tool(&dev, "system_info");
    ck_assert_ptr_nonnull(t);
    ck_assert(t->flags & FW_TOOL_READ_ONLY);
    ck_assert(!(t->flags & FW_TOOL_DESTRUCTIVE));
}
END_TEST

static Suite *system_suite(void)
{
    Suite *s = suite_create("system");
    TCase *t = tcase_create("system_info");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_identity_from_the_board_and_the_core);
    tcase_add_test(t, test_chip_facts_come_from_the_port);
    tcase_add_test(t, test_chip_facts_absent_without_device_info);
    tcase_add_test(t, test_uptime_counts_from_init);
    tcase_add_test(t, test_memory_reports_the_pools);
#if FW_WITH_I2C && FW_WITH_SAMPLING
    tcase_add_test(t, test_tools_used_depends_on_the_board);
#endif
    tcase_add_test(t, test_counters_move_with_traffic);
#if FW_WITH_SAMPLING
    tcase_add_test(t, test_events_queued_and_dropped);
#endif
    tcase_add_test(t, test_takes_no_arguments_and_is_read_only);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(system_suite)
