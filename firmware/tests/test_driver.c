/* test_driver.c: the driver API (fw_driver.h) as a chip author outside firmware/ uses it: a
   driver defined here, in the test, reaches a device through a board's chips alone. */
#include "test_harness.h"

#if FW_WITH_I2C

/* ---------------------------------------------------------------- an out-of-tree driver */

/*
 * "lux42", an imaginary I2C light sensor: register 0x00 holds its ID (0x42), registers 0x10..0x11
 * the light level (big-endian counts). Its per-chip configuration is a gain (1..4) the counts
 * are multiplied by; the probe refuses any other gain, and reads the ID to see the chip is there.
 */
#define LUX42_ID 0x42u
#define LUX42_REG_ID 0x00u
#define LUX42_REG_LEVEL 0x10u

typedef struct lux42_config {
    uint8_t gain;
} lux42_config_t;

extern const fw_driver_t lux42_driver;

/* What the probe saw, for the tests. */
static struct {
    unsigned runs;
    const fw_chip_t *chips[4];
    uint8_t ids[4];
    fw_err_t results[4];
} probed;

static fw_err_t lux42_probe(fw_device_t *d, const fw_chip_t *chip)
{
    const lux42_config_t *cfg = chip->config;
    unsigned k = probed.runs++;
    if (k < FW_ARRAY_LEN(probed.chips)) probed.chips[k] = chip;
    fw_err_t err = FW_OK;
    if (cfg == NULL || cfg->gain < 1 || cfg->gain > 4) {
        err = FW_ERR_ARG; /* a configuration this driver cannot serve */
    } else {
        uint8_t reg = LUX42_REG_ID, id = 0;
        err = fw_i2c_transfer(d, chip->bus, chip->addr, &reg, 1, &id, 1);
        if (k < FW_ARRAY_LEN(probed.ids)) probed.ids[k] = id;
        if (err == FW_OK && id != LUX42_ID) err = FW_ERR_DEVICE_DATA;
    }
    if (k < FW_ARRAY_LEN(probed.results)) probed.results[k] = err;
    return err;
}

static fw_err_t read_lux_fn(fw_call_t *call)
{
    const fw_arg_t *addr = fw_call_arg(call, "address");
    const fw_chip_t *chip =
        fw_device_chip(call->dev, &lux42_driver, addr->present ? (int)addr->i : -1);
    if (chip == NULL)
        return fw_call_param_error(call, "address", "no lux42 at 0x%x on this board",
                                   (unsigned)addr->i);
    uint8_t reg = LUX42_REG_LEVEL, level[2];
    fw_err_t err = fw_i2c_call_xfer(call, "lux42", chip->bus, chip->addr, &reg, 1, level, 2);
    if (err != FW_OK) return err;
    const lux42_config_t *cfg = chip->config;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "address", chip->addr);
    fw_jw_kv_i64(w, "bus", chip->bus);
    fw_jw_kv_i64(w, "lux", (int64_t)(((unsigned)level[0] << 8 | level[1]) * cfg->gain));
    return FW_OK;
}

static const fw_param_t read_lux_params[] = {
    {.name = "address",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 0x08,
     .max = 0x77,
     .description = "7-bit address of the sensor (default: the board's first lux42)"},
};

static const fw_tool_t lux42_tools[] = {
    {.name = "read_lux",
     .description = "Read the light level of a lux42 sensor",
     .params = read_lux_params,
     .param_count = FW_ARRAY_LEN(read_lux_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = read_lux_fn},
};

const fw_driver_t lux42_driver = {.name = "lux42",
                                  .tools = lux42_tools,
                                  .tool_count = FW_ARRAY_LEN(lux42_tools),
                                  .probe = lux42_probe};

/* ---------------------------------------------------------------- boards carrying it */

static const lux42_config_t gain2 = {.gain = 2}, gain1 = {.gain = 1}, gain0 = {.gain = 0};

/* Two sensors on bus 0 and nothing else: no built-in tool set, only the driver's tools. */
static const fw_chip_t two_lux[] = {
    {.driver = &lux42_driver, .bus = 0, .addr = 0x23, .config = &gain2},
    {.driver = &lux42_driver, .bus = 0, .addr = 0x5C, .config = &gain1},
};
static const fw_board_t lux_board = {.device = "lux-test",
                                     .version = "1",
                                     .platform = "test",
                                     .i2c_bus_count = 1,
                                     .chips = two_lux,
                                     .chip_count = FW_ARRAY_LEN(two_lux)};

static mock_i2c_dev_t *lux_a, *lux_b;

static mock_i2c_dev_t *add_lux(uint8_t addr, uint16_t level)
{
    mock_i2c_dev_t *d = mock_hal_add_i2c(&mock, 0, addr, 1, 32, 0);
    d->mem[LUX42_REG_ID] = LUX42_ID;
    d->mem[LUX42_REG_LEVEL] = (uint8_t)(level >> 8);
    d->mem[LUX42_REG_LEVEL + 1] = (uint8_t)level;
    return d;
}

static void setup(void)
{
    harness_reset();
    memset(&probed, 0, sizeof probed);
    lux_a = add_lux(0x23, 300);
    lux_b = add_lux(0x5C, 1000);
}

static bool listed(json_t *tools, const char *name)
{
    size_t i, n = 0;
    json_t *t;
    json_array_foreach(tools, i, t) n += strcmp(str_at(t, "name"), name) == 0;
    ck_assert_uint_le(n, 1);
    return n == 1;
}

/* ---------------------------------------------------------------- tests */

START_TEST(test_driver_tool_is_registered_listed_and_callable)
{
    harness_start(&lux_board, &mock_hal_api);
    ck_assert_uint_eq(fw_device_tool_count(&dev), 1); /* once, for both chips */
    ck_assert_ptr_eq(fw_device_find_tool(&dev, "read_lux"), &lux42_tools[0]);
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    ck_assert_uint_eq(json_array_size(tools), 1);
    ck_assert(listed(tools, "read_lux"));
    json_t *r = ok("read_lux", NULL); /* the first chip, gain 2 */
    ck_assert_int_eq(int_at(r, "address"), 0x23);
    ck_assert_int_eq(int_at(r, "lux"), 600);
    r = ok("read_lux", "{'address':92}"); /* 0x5C, gain 1 */
    ck_assert_int_eq(int_at(r, "lux"), 1000);
    json_t *e = rpc_error("read_lux", "{'address':16}", FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(str_at(e, "message"), "no lux42 at 0x10"));
    rpc_error("read_lux", "{'address':200}", FW_RPC_INVALID_PARAMS); /* its schema holds */
}
END_TEST

START_TEST(test_driver_tools_join_the_board_tool_sets)
{
    fw_board_t b = lux_board;
    b.toolsets = fw_builtins_i2c;
    harness_start(&b, &mock_hal_api);
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    ck_assert(listed(tools, "read_lux"));
    ck_assert(listed(tools, "gpio_write"));
    ck_assert(listed(tools, "i2c_scan"));
    /* registered after the tool sets, in the board's order */
    ck_assert_str_eq(fw_device_tool_at(&dev, fw_device_tool_count(&dev) - 1)->name, "read_lux");
    json_t *scan = ok("i2c_scan", NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(scan, "devices")), 2);
}
END_TEST

START_TEST(test_probe_runs_for_each_chip_with_its_config)
{
    harness_start(&lux_board, &mock_hal_api);
    ck_assert_uint_eq(probed.runs, 2);
    ck_assert_ptr_eq(probed.chips[0], &two_lux[0]);
    ck_assert_ptr_eq(probed.chips[1], &two_lux[1]);
    /* the HAL was usable: each probe read its chip's ID over the bus */
    ck_assert_uint_eq(probed.ids[0], LUX42_ID);
    ck_assert_uint_eq(probed.ids[1], LUX42_ID);
    ck_assert_uint_eq(lux_a->transfers, 1);
    ck_assert_uint_eq(lux_b->transfers, 1);
    ck_assert_int_eq(probed.results[0], FW_OK);
}
END_TEST

START_TEST(test_probe_refusing_a_configuration_stops_the_start)
{
    static const fw_chip_t bad[] = {
        {.driver = &lux42_driver, .bus = 0, .addr = 0x23, .config = &gain2},
        {.driver = &lux42_driver, .bus = 0, .addr = 0x5C, .config = &gain0},
    };
    fw_board_t b = lux_board;
    b.chips = bad;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_ARG);
    ck_assert_uint_eq(probed.runs, 2);
    ck_assert_int_eq(probed.results[1], FW_ERR_ARG);
    b.chips = &bad[1]; /* alone, and without any config */
    b.chip_count = 1;
    static const fw_chip_t unconfigured = {.driver = &lux42_driver, .bus = 0, .addr = 0x23};
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_ARG);
    b.chips = &unconfigured;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_ARG);
}
END_TEST

/* A hardware error from the probe (the chip does not answer, or answers wrongly) is not the
   board's fault: the device starts, and the tool reports the failure when called. */
START_TEST(test_absent_chip_does_not_stop_the_start)
{
    lux_a->present = false;
    lux_b->mem[LUX42_REG_ID] = 0x99;
    harness_start(&lux_board, &mock_hal_api);
    ck_assert_int_eq(probed.results[0], FW_ERR_I2C_NACK);
    ck_assert_int_eq(probed.results[1], FW_ERR_DEVICE_DATA);
    json_t *e = rpc_error("read_lux", NULL, FW_RPC_I2C_NACK);
    ck_assert_str_eq(str_at(e, "message"), "no acknowledge from lux42 0x23 on bus 0");
    lux_a->present = true;
    ck_assert_int_eq(int_at(ok("read_lux", NULL), "lux"), 600);
}
END_TEST

#if FW_WITH_MCP
/* The probe's failure is written to the firmware log, and an MCP session that initializes later
   receives it (entries the start wrote reach every session while the ring holds them); entries
   written after the start and before a session's initialize do not. */
START_TEST(test_absent_chip_is_logged)
{
    lux_a->present = false;
    harness_start(&lux_board, &mock_hal_api);
    ck_assert_uint_eq(dev.log_count, 1);
    const fw_log_entry_t *e = &dev.log[(dev.log_head + FW_LOG_RING - 1) % FW_LOG_RING];
    ck_assert_uint_eq(e->level, FW_LOG_WARNING);
    ck_assert_str_eq(e->text, "lux42 at 0x23 on bus 0: i2c device did not acknowledge");

    fw_log(&dev, FW_LOG_ERROR, "after the start"); /* before the session: not sent to it */
    fw_session_t s;
    fw_session_init(&s, &dev);
    static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                               "\"params\":{\"protocolVersion\":\"2025-06-18\"}}";
    cap_reset(&out);
    const fw_msg_sink_t sink = {cap_sink(&out).write, &out, NULL, NULL}; /* one message a line */
    ck_assert(fw_device_handle_session(&dev, &s, init, sizeof init - 1, sink));
    cap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &s, sink), 1);
    ck_assert_ptr_null(strstr(out.buf, "after the start"));
    ck_assert_ptr_nonnull(
        strstr(out.buf, "lux42 at 0x23 on bus 0: i2c device did not acknowledge"));
    ck_assert_ptr_nonnull(strstr(out.buf, "\"level\":\"warning\""));
    cap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &s, sink), 0); /* once */
}
END_TEST
#endif

static Suite *driver_suite(void)
{
    Suite *s = suite_create("driver");
    TCase *t = tcase_create("out_of_tree");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_driver_tool_is_registered_listed_and_callable);
    tcase_add_test(t, test_driver_tools_join_the_board_tool_sets);
    tcase_add_test(t, test_probe_runs_for_each_chip_with_its_config);
    tcase_add_test(t, test_probe_refusing_a_configuration_stops_the_start);
    tcase_add_test(t, test_absent_chip_does_not_stop_the_start);
#if FW_WITH_MCP
    tcase_add_test(t, test_absent_chip_is_logged);
#endif
    suite_add_tcase(s, t);
    return s;
}

#else /* !FW_WITH_I2C */

/* A build without I2C has no chips: a board that carries one is refused, not half started. */
START_TEST(test_chips_need_a_build_with_i2c)
{
    static const fw_driver_t some = {.name = "some"};
    static const fw_chip_t chip = {.driver = &some, .bus = 0, .addr = 0x23};
    static const fw_board_t b = {.device = "x",
                                 .version = "1",
                                 .platform = "test",
                                 .i2c_bus_count = 1,
                                 .chips = &chip,
                                 .chip_count = 1};
    harness_reset();
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_UNSUPPORTED);
    harness_teardown();
}
END_TEST

static Suite *driver_suite(void)
{
    Suite *s = suite_create("driver");
    TCase *t = tcase_create("no_i2c");
    tcase_add_test(t, test_chips_need_a_build_with_i2c);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(driver_suite)
