/* test_apps.c: the application tool catalog, the demo's touch tools, mcpd's tool vocabulary
   (mcpd.c, against a strip and a DHT22 behind the HAL) and the boards that enable them
   (test_boards.h). */
#include <math.h>

#include "apps.h"
#include "test_harness.h"

#define TOUCH_PIN 4

static hal_api_t api;

/* A touch pad whose successive readings follow a script (then repeat the last one). */
static struct {
    uint16_t values[40];
    unsigned count, next;
} touch;

static fw_err_t scripted_adc(void *ctx, uint16_t pin, uint16_t *raw)
{
    if (pin != TOUCH_PIN || touch.count == 0) return mock_hal_api.adc_read(ctx, pin, raw);
    mock.pins[pin].adc_reads++;
    *raw = touch.values[touch.next < touch.count ? touch.next++ : touch.count - 1];
    return FW_OK;
}

static void setup(void)
{
    harness_reset();
    memset(&touch, 0, sizeof touch);
    api = mock_hal_api;
    api.adc_read = scripted_adc;
    harness_start(test_board_esp32_demo(), &api);
}

static int error_code(const char *method, const char *params)
{
    json_t *error = json_object_get(rpc(method, params), "error");
    ck_assert_msg(json_is_object(error), "%s did not fail: %s", method, out.buf);
    return (int)json_integer_value(json_object_get(error, "code"));
}

/* The entry named `name` in array arr of objects (by "name" or, for pins, by "pin"). */
static json_t *find_named(json_t *arr, const char *key, json_t *want)
{
    size_t i;
    json_t *item;
    json_array_foreach(arr, i, item)
    {
        if (json_equal(json_object_get(item, key), want)) return item;
    }
    return NULL;
}

static json_t *find_tool(json_t *tools, const char *name)
{
    json_t *n = json_string(name);
    json_t *t = find_named(tools, "name", n);
    json_decref(n);
    return t;
}

static json_t *find_pin(json_t *pins, int number)
{
    json_t *n = json_integer(number);
    json_t *p = find_named(pins, "pin", n);
    json_decref(n);
    return p;
}

/* ---------------------------------------------------------------- the esp32-demo board */

START_TEST(test_demo_board_get_info)
{
    json_t *r = ok("get_info", NULL);
    ck_assert_str_eq(str_at(r, "device"), "esp32-demo");
    ck_assert_str_eq(str_at(r, "version"), "1.0.0");
    ck_assert_str_eq(str_at(r, "platform"), "arduino");
    ck_assert_int_eq(int_at(r, "pin_count"), 3);
}
END_TEST

START_TEST(test_demo_board_pins_as_the_seed_lists_them)
{
    json_t *pins = json_object_get(ok("list_tools", NULL), "pins");
    ck_assert_uint_eq(json_array_size(pins), 3);
    json_t *led = find_pin(pins, 2), *sensor = find_pin(pins, 34), *pwm = find_pin(pins, 18);
    ck_assert_ptr_nonnull(led);
    ck_assert_str_eq(str_at(led, "name"), "led");
    ck_assert_str_eq(str_at(led, "type"), "digital_output");
    ck_assert_str_eq(str_at(led, "description"), "Onboard LED");
    ck_assert_ptr_nonnull(sensor);
    ck_assert_str_eq(str_at(sensor, "name"), "sensor");
    ck_assert_str_eq(str_at(sensor, "type"), "adc_input");
    ck_assert_str_eq(str_at(sensor, "description"), "Analog Sensor");
#if FW_WITH_SAMPLING
    json_t *caps = json_object_get(sensor, "capabilities");
    ck_assert(bool_at(caps, "summary") && bool_at(caps, "buffer") && !bool_at(caps, "events"));
    json_t *sampling = json_object_get(sensor, "sampling");
    ck_assert_int_eq(int_at(sampling, "interval_ms"), 500);
    ck_assert_int_eq(int_at(sampling, "buffer_size"), 20);
#else
    ck_assert_ptr_null(json_object_get(sensor, "sampling")); /* a build without sampling */
#endif
    ck_assert_ptr_nonnull(pwm);
    ck_assert_str_eq(str_at(pwm, "name"), "led_pwm");
    ck_assert_str_eq(str_at(pwm, "type"), "pwm_output");
}
END_TEST

START_TEST(test_demo_board_adc_in_volts)
{
    mock.pins[34].adc = 2048;
    json_t *r = ok("adc_read", "{'pin':34}");
    ck_assert_int_eq(int_at(r, "value"), 2048);
    ck_assert_double_eq_tol(json_number_value(json_object_get(r, "volts")), 1.65, 0.005);
}
END_TEST

START_TEST(test_demo_board_has_no_i2c_tools)
{
    ck_assert_int_eq(error_code("i2c_scan", NULL), FW_RPC_METHOD_NOT_FOUND);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "read_temperature"));
    ck_assert_ptr_null(fw_device_find_tool(&dev, "eeprom_read"));
}
END_TEST

/* ---------------------------------------------------------------- read_touch */

START_TEST(test_read_touch_listed_with_polling)
{
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    json_t *t = find_tool(tools, "read_touch");
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(str_at(t, "description"),
                     FW_WITH_DESCRIPTIONS ? "Read capacitive touch sensor buffer on GPIO4" : "");
    json_t *polling = json_object_get(t, "polling");
    ck_assert(bool_at(polling, "enabled"));
    ck_assert_int_eq(int_at(polling, "interval_ms"), 2000);
    json_t *props = json_object_get(json_object_get(t, "inputSchema"), "properties");
    ck_assert_int_eq(int_at(json_object_get(props, "threshold"), "default"), 40);
}
END_TEST

START_TEST(test_read_touch_reads_the_touch_channel)
{
    mock.pins[TOUCH_PIN].adc = 72; /* untouched */
    json_t *r = ok("read_touch", NULL);
    /* MCP/U's polled-tool shape, which its client's poller stores */
    ck_assert_str_eq(str_at(r, "type"), "buffer");
    ck_assert_str_eq(str_at(r, "resource"), "touch_gpio4");
    json_t *values = json_object_get(r, "values");
    ck_assert_uint_eq(json_array_size(values), 1);
    ck_assert_int_eq(json_integer_value(json_array_get(values, 0)), 72);
    ck_assert_int_eq(int_at(r, "pin"), 4);
    ck_assert_int_eq(int_at(r, "value"), 72);
    ck_assert(!bool_at(r, "touched"));
    ck_assert_int_eq(int_at(r, "threshold"), 40);
    ck_assert_uint_eq(mock.pins[TOUCH_PIN].adc_reads, 1);
    mock.pins[TOUCH_PIN].adc = 15; /* a finger on the pad */
    ck_assert(bool_at(ok("read_touch", "{}"), "touched"));
}
END_TEST

START_TEST(test_read_touch_threshold)
{
    mock.pins[TOUCH_PIN].adc = 40;
    ck_assert(!bool_at(ok("read_touch", NULL), "touched")); /* strictly below counts */
    mock.pins[TOUCH_PIN].adc = 39;
    ck_assert(bool_at(ok("read_touch", NULL), "touched"));
    mock.pins[TOUCH_PIN].adc = 60;
    json_t *r = ok("read_touch", "{'threshold':61}");
    ck_assert(bool_at(r, "touched"));
    ck_assert_int_eq(int_at(r, "threshold"), 61);
    ck_assert_int_eq(error_code("read_touch", "{'threshold':-1}"), FW_RPC_INVALID_PARAMS);
    ck_assert_int_eq(error_code("read_touch", "{'threshold':'high'}"), FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_read_touch_reports_adc_failure)
{
    mock.pins[TOUCH_PIN].adc_fail = FW_ERR_ADC;
    json_t *error = json_object_get(rpc("read_touch", NULL), "error");
    ck_assert_int_eq(json_integer_value(json_object_get(error, "code")), FW_RPC_ADC);
    ck_assert_ptr_nonnull(strstr(str_at(error, "message"), "GPIO4"));
}
END_TEST

/* ---------------------------------------------------------------- calibrate_touch */

START_TEST(test_calibrate_touch_is_for_the_user_only)
{
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    ck_assert_ptr_null(find_tool(tools, "calibrate_touch"));
    ck_assert_ptr_nonnull(find_tool(tools, "read_touch"));
    tools = json_object_get(ok("list_tools", "{'with_user_tools':true}"), "tools");
    ck_assert_ptr_nonnull(find_tool(tools, "calibrate_touch"));
    const fw_tool_t *t = fw_device_find_tool(&dev, "calibrate_touch");
    ck_assert(t->flags & FW_TOOL_USER_ONLY);
    ck_assert(t->flags & FW_TOOL_READ_ONLY);
}
END_TEST

START_TEST(test_calibrate_touch_measures_the_baseline)
{
    const uint16_t readings[] = {70, 72, 68, 74};
    memcpy(touch.values, readings, sizeof readings);
    touch.count = 4;
    json_t *r = ok("calibrate_touch", "{'samples':4}");
    ck_assert_int_eq(int_at(r, "pin"), 4);
    ck_assert_int_eq(int_at(r, "samples"), 4);
    ck_assert_int_eq(int_at(r, "baseline"), 71);
    ck_assert_int_eq(int_at(r, "min"), 68);
    ck_assert_int_eq(int_at(r, "max"), 74);
    ck_assert_int_eq(int_at(r, "suggested_threshold"), 47); /* 2/3 of 71, rounded */
    ck_assert_uint_eq(mock.pins[TOUCH_PIN].adc_reads, 4);
}
END_TEST

START_TEST(test_calibrate_touch_defaults_and_limits)
{
    mock.pins[TOUCH_PIN].adc = 60;
    json_t *r = ok("calibrate_touch", NULL);
    ck_assert_int_eq(int_at(r, "samples"), 8);
    ck_assert_int_eq(int_at(r, "baseline"), 60);
    ck_assert_int_eq(int_at(r, "suggested_threshold"), 40);
    ck_assert_uint_eq(mock.pins[TOUCH_PIN].adc_reads, 8);
    ck_assert_int_eq(error_code("calibrate_touch", "{'samples':0}"), FW_RPC_INVALID_PARAMS);
    ck_assert_int_eq(error_code("calibrate_touch", "{'samples':33}"), FW_RPC_INVALID_PARAMS);
    mock.pins[TOUCH_PIN].adc_fail = FW_ERR_ADC;
    ck_assert_int_eq(error_code("calibrate_touch", NULL), FW_RPC_ADC);
}
END_TEST

/* ---------------------------------------------------------------- catalog and boards */

START_TEST(test_catalog_finds_tools_by_name)
{
    ck_assert_ptr_eq(fw_app_tool_find("read_touch"), &fw_app_read_touch);
    ck_assert_ptr_eq(fw_app_tool_find("calibrate_touch"), &fw_app_calibrate_touch);
    ck_assert_ptr_null(fw_app_tool_find("read_touch2"));
    ck_assert_ptr_null(fw_app_tool_find(""));
    ck_assert_ptr_null(fw_app_tool_find(NULL));
}
END_TEST

/* A board enables application tools by pointer; one that cannot be registered stops the start
   (names are resolved before that: fw_app_tool_find, by the board generator). */
START_TEST(test_board_with_an_unusable_app_tool_is_refused)
{
    static const fw_tool_t no_handler = {.name = "self_destruct", .description = "broken"};
    const fw_tool_t dup_name = {.name = "adc_read",
                                .description = "a second adc_read",
                                .handler = fw_app_read_touch.handler};
    ck_assert_ptr_null(fw_app_tool_find("self_destruct"));
    fw_board_t b = *test_board_esp32_demo();
    const fw_tool_t *malformed[] = {&fw_app_read_touch, &no_handler, NULL};
    b.app_tools = malformed;
    ck_assert_int_eq(fw_device_init(&dev, &b, &api, &mock), FW_ERR_ARG);
    const fw_tool_t *taken[] = {&fw_app_read_touch, &dup_name, NULL};
    b.app_tools = taken;
    ck_assert_int_eq(fw_device_init(&dev, &b, &api, &mock), FW_ERR_EXISTS);
    const fw_tool_t *twice[] = {&fw_app_read_touch, &fw_app_read_touch, NULL};
    b.app_tools = twice;
    ck_assert_int_eq(fw_device_init(&dev, &b, &api, &mock), FW_ERR_EXISTS);
    b.app_tools = NULL; /* without them the board is fine */
    ck_assert_int_eq(fw_device_init(&dev, &b, &api, &mock), FW_OK);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "read_touch"));
}
END_TEST

#if FW_WITH_I2C && FW_WITH_SAMPLING
START_TEST(test_greenhouse_board_loads_with_its_drivers)
{
    ck_assert_int_eq(fw_device_init(&dev, test_board_greenhouse_min(), &api, &mock), FW_OK);
    static const char *const names[] = {"i2c_scan",         "i2c_read",    "i2c_write",
                                        "read_temperature", "eeprom_read", "eeprom_write",
                                        "system_info"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        ck_assert_msg(fw_device_find_tool(&dev, names[i]) != NULL, "%s missing", names[i]);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "read_touch"));
    json_t *r = ok("get_info", NULL);
    ck_assert_str_eq(str_at(r, "device"), "greenhouse-min");
    ck_assert_int_eq(int_at(r, "pin_count"), 3);
}
END_TEST
#endif

/* ---------------------------------------------------------------- mcpd (seed 002) */

#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT
/* A strip of four pixels and a DHT22 behind the HAL, as the port would drive them. */
static struct {
    uint8_t buf[4][3], shown[4][3], level;
    unsigned shows;
    uint8_t frame[5];
    fw_err_t dht_err;
} hw;

static fw_err_t test_strip(void *ctx, uint16_t pin, const hal_strip_op_t *op, uint16_t *count)
{
    (void)ctx;
    *count = 4;
    if (pin != 5) return FW_ERR_UNSUPPORTED;
    if (op->kind == HAL_STRIP_SET && op->index >= 4) return FW_ERR_ARG;
    for (unsigned i = 0; i < 4; i++) {
        if (op->kind == HAL_STRIP_FILL || (op->kind == HAL_STRIP_SET && op->index == i))
            hw.buf[i][0] = op->r, hw.buf[i][1] = op->g, hw.buf[i][2] = op->b;
        if (op->kind == HAL_STRIP_SHOW) memcpy(hw.shown[i], hw.buf[i], 3);
    }
    if (op->kind == HAL_STRIP_BRIGHTNESS) hw.level = op->level;
    if (op->kind == HAL_STRIP_SHOW) hw.shows++;
    return FW_OK;
}

static fw_err_t test_dht(void *ctx, uint16_t pin, uint8_t frame[5])
{
    (void)ctx;
    if (pin != 4) return FW_ERR_UNSUPPORTED;
    memcpy(frame, hw.frame, 5);
    return hw.dht_err;
}

static const fw_board_t *mcpd_board(void)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led"},
        {.number = 13, .type = FW_PIN_PWM_OUTPUT, .name = "servo"},
        {.number = 5, .type = FW_PIN_DIGITAL_OUTPUT, .name = "neopixel"},
        {.number = 4, .type = FW_PIN_DIGITAL_INPUT, .name = "dht"},
    };
    static const fw_tool_t *const apps[] = {&fw_app_pin_mode,      &fw_app_digital_read,
                                            &fw_app_digital_write, &fw_app_pwm_write,
                                            &fw_app_servo_write,   &fw_app_neopixel_set,
                                            &fw_app_neopixel_fill, &fw_app_neopixel_brightness,
                                            &fw_app_dht_read,      NULL};
    static const fw_board_t board = {.device = "mcpd-test",
                                     .version = "1",
                                     .platform = "mock",
                                     .pins = pins,
                                     .pin_count = FW_ARRAY_LEN(pins),
                                     .adc_bits = 12,
                                     .adc_ref_mv = 3300,
                                     .adc_report = FW_ADC_REPORT_VOLTS,
                                     .app_tools = apps};
    return &board;
}

static void setup_mcpd(void)
{
    harness_reset();
    memset(&hw, 0, sizeof hw);
    api = mock_hal_api;
    api.strip = test_strip;
    api.dht_frame = test_dht;
    harness_start(mcpd_board(), &api);
}

START_TEST(test_mcpd_board_has_only_its_tools)
{
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    ck_assert_uint_eq(json_array_size(tools), 9);
    ck_assert_ptr_nonnull(find_tool(tools, "digital_write"));
    ck_assert_ptr_null(find_tool(tools, "gpio_write")); /* no built-ins */
}
END_TEST

START_TEST(test_mcpd_gpio_round_trip)
{
    ck_assert_str_eq(
        json_string_value(json_object_get(ok("pin_mode", "{'pin':2,'mode':'OUTPUT'}"), "mode")),
        "OUTPUT");
    ck_assert_int_eq(mock.pins[2].mode, HAL_PIN_OUTPUT);
    ok("digital_write", "{'pin':2,'value':1}");
    ck_assert(mock.pins[2].level);
    ck_assert_int_eq(int_at(ok("digital_read", "{'pin':2}"), "value"), 1);
    rpc_error("pin_mode", "{'pin':2,'mode':'output'}", FW_RPC_INVALID_PARAMS); /* mcpd's case */
    rpc_error("digital_write", "{'pin':2,'value':2}", FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_mcpd_pwm_and_servo)
{
    /* 512 of 10 bits is half: 128 of the HAL's 8 bits (a port without pwm_write_res) */
    json_t *r = ok("pwm_write", "{'pin':13,'duty':512,'frequency':1000,'resolution':10}");
    ck_assert_int_eq(int_at(r, "channel"), 0);
    ck_assert_uint_eq(mock.pins[13].duty, 128);
    ck_assert_uint_eq(mock.pins[13].freq_hz, 1000);
    json_t *e = rpc_error("pwm_write", "{'pin':13,'duty':1,'frequency':80000,'resolution':10}",
                          FW_RPC_INVALID_PARAMS); /* 81.92 MHz: past LEDC's clock */
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), "80 MHz"));
    rpc_error("pwm_write", "{'pin':13,'duty':1025,'resolution':10}", FW_RPC_INVALID_PARAMS);
    rpc_error("pwm_write", "{'pin':13,'duty':1,'channel':16}", FW_RPC_INVALID_PARAMS);
    /* 90 degrees of 544..2400 us is a 1472 us pulse at 50 Hz */
    r = ok("servo_write", "{'pin':13,'angle':90}");
    ck_assert_int_eq(int_at(r, "pulseUs"), 1472);
    ck_assert_uint_eq(mock.pins[13].freq_hz, 50);
    ck_assert_uint_eq(mock.pins[13].duty, 19); /* 1472/20000 of 255 */
    ck_assert_int_eq(
        int_at(ok("servo_write", "{'pin':13,'angle':180,'minUs':1000,'maxUs':2000}"), "pulseUs"),
        2000);
    rpc_error("servo_write", "{'pin':13,'angle':10,'minUs':2000,'maxUs':1000}",
              FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_mcpd_neopixel)
{
    ok("neopixel_fill", "{'r':1,'g':2,'b':3}");
    ok("neopixel_set", "{'index':3,'r':255,'g':0,'b':9,'show':false}");
    ck_assert_uint_eq(hw.shows, 1);
    ck_assert_uint_eq(hw.shown[3][0], 1); /* set without show: not sent yet */
    ck_assert_uint_eq(hw.buf[3][0], 255);
    ok("neopixel_set", "{'index':0,'r':7,'g':7,'b':7}");
    ck_assert_uint_eq(hw.shown[3][2], 9);
    ck_assert_uint_eq(hw.shows, 2);
    ok("neopixel_brightness", "{'brightness':40}");
    ck_assert_uint_eq(hw.level, 40);
    json_t *e = rpc_error("neopixel_set", "{'index':4,'r':1,'g':1,'b':1}", FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), "4 pixels"));
}
END_TEST

START_TEST(test_mcpd_dht22)
{
    /* 65.2 %, -10.1 degrees C (the sign in bit 15), and the checksum */
    memcpy(hw.frame, (uint8_t[]){0x02, 0x8C, 0x80, 0x65, 0x73}, 5);
    json_t *r = ok("dht_read", NULL);
    ck_assert(fabs(json_real_value(json_object_get(r, "temperature")) + 10.1) < 1e-9);
    ck_assert(fabs(json_number_value(json_object_get(r, "humidity")) - 65.2) < 1e-9);
    ck_assert_str_eq(json_string_value(json_object_get(r, "unit")), "C");
    r = ok("dht_read", "{'fahrenheit':true}");
    ck_assert(fabs(json_real_value(json_object_get(r, "temperature")) - 13.82) < 1e-9);
    hw.frame[4] ^= 0x10;
    json_t *e = rpc_error("dht_read", NULL, FW_RPC_HW_FAILURE);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "message")), "checksum"));
    hw.dht_err = FW_ERR_TIMEOUT;
    rpc_error("dht_read", NULL, FW_RPC_HW_TIMEOUT);
}
END_TEST
#endif

static Suite *apps_suite(void)
{
    Suite *s = suite_create("apps");
    TCase *t = tcase_create("esp32_demo");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_demo_board_get_info);
    tcase_add_test(t, test_demo_board_pins_as_the_seed_lists_them);
    tcase_add_test(t, test_demo_board_adc_in_volts);
    tcase_add_test(t, test_demo_board_has_no_i2c_tools);
    suite_add_tcase(s, t);

    t = tcase_create("touch");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_read_touch_listed_with_polling);
    tcase_add_test(t, test_read_touch_reads_the_touch_channel);
    tcase_add_test(t, test_read_touch_threshold);
    tcase_add_test(t, test_read_touch_reports_adc_failure);
    tcase_add_test(t, test_calibrate_touch_is_for_the_user_only);
    tcase_add_test(t, test_calibrate_touch_measures_the_baseline);
    tcase_add_test(t, test_calibrate_touch_defaults_and_limits);
    suite_add_tcase(s, t);

#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT
    t = tcase_create("mcpd");
    tcase_add_checked_fixture(t, setup_mcpd, harness_teardown);
    tcase_add_test(t, test_mcpd_board_has_only_its_tools);
    tcase_add_test(t, test_mcpd_gpio_round_trip);
    tcase_add_test(t, test_mcpd_pwm_and_servo);
    tcase_add_test(t, test_mcpd_neopixel);
    tcase_add_test(t, test_mcpd_dht22);
    suite_add_tcase(s, t);

#endif
    t = tcase_create("catalog");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_catalog_finds_tools_by_name);
    tcase_add_test(t, test_board_with_an_unusable_app_tool_is_refused);
#if FW_WITH_I2C && FW_WITH_SAMPLING
    tcase_add_test(t, test_greenhouse_board_loads_with_its_drivers);
#endif
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(apps_suite)
