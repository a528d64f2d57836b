/* test_builtins_pins.c: the pin tools (gpio, pwm, adc, summary, buffer, events) over JSON-RPC. */
#include "test_harness.h"

enum { P_LED, P_BUTTON, P_PWM, P_SENSOR, P_RAW, P_DOOR, P_COUNT };

static const fw_pin_def_t test_pins[P_COUNT] = {
    [P_LED] = {.number = 2,
               .type = FW_PIN_DIGITAL_OUTPUT,
               .name = "led",
               .description = "Onboard LED"},
    [P_BUTTON] = TEST_PIN_BUTTON,
    [P_PWM] = {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "led_pwm"},
    [P_SENSOR] = TEST_PIN_SENSOR,
    [P_RAW] = {.number = 35, .type = FW_PIN_ADC_INPUT, .name = "raw"},
    [P_DOOR] = {.number = 5,
                .type = FW_PIN_DIGITAL_INPUT,
                .name = "door",
#if FW_WITH_SAMPLING
                .sample_interval_ms = 100,
#endif
                .events = true},
};

/* Every pin tool: the standard list leaves pin_mode out in the mcpu-min profile. */
static const fw_toolset_t *const pin_sets[] = {&fw_builtin_gpio,
                                               &fw_builtin_pin_mode,
                                               &fw_builtin_pwm,
                                               &fw_builtin_adc,
#if FW_WITH_SAMPLING
                                               &fw_builtin_pins,
#endif
                                               NULL};

#if FW_WITH_SAMPLING
/* The rings of the button (8) and the sensor (20); the two boards never run at once. */
static fw_sample_slot_t store[28];
#define STORE .sample_store = store, .sample_store_len = FW_ARRAY_LEN(store)
#else
#define STORE .sample_store = NULL
#endif

/* ESP32-like: 12-bit ADC, 3.3 V, readings in volts. */
static const fw_board_t esp_board = {.device = "pins-test",
                                     .version = "1.0.0",
                                     .platform = "test",
                                     .pins = test_pins,
                                     .pin_count = P_COUNT,
                                     .adc_bits = 12,
                                     .adc_ref_mv = 3300,
                                     .adc_report = FW_ADC_REPORT_VOLTS,
                                     .toolsets = pin_sets,
                                     STORE};

/* AVR-like: 10-bit ADC, 5 V, readings in millivolts. */
static const fw_board_t avr_board = {.device = "pins-avr",
                                     .version = "1.0.0",
                                     .platform = "test",
                                     .pins = test_pins,
                                     .pin_count = P_COUNT,
                                     .adc_bits = 10,
                                     .adc_ref_mv = 5000,
                                     .adc_report = FW_ADC_REPORT_MV,
                                     .toolsets = pin_sets,
                                     STORE};

static void start(const fw_board_t *b)
{
    harness_start(b, &mock_hal_api);
}

static void setup(void)
{
    harness_reset();
    start(&esp_board);
}

/* The error object of a failing call, after checking its code. */
static json_t *fails(const char *method, const char *params, int code)
{
    json_t *error = rpc_error(method, params, code);
    ck_assert(json_object_get(reply, "result") == NULL);
    return error;
}

/* An invalid-params failure whose data.issues names `path`. */
static json_t *bad_param(const char *method, const char *params, const char *path)
{
    json_t *error = fails(method, params, FW_RPC_INVALID_PARAMS);
    json_t *issues = json_object_get(json_object_get(error, "data"), "issues");
    ck_assert_msg(json_array_size(issues) >= 1, "no issues in %s", out.buf);
    size_t i;
    json_t *issue;
    json_array_foreach(issues, i, issue)
    {
        if (strcmp(json_string_value(json_object_get(issue, "path")), path) == 0) return error;
    }
    ck_abort_msg("no issue for %s in %s", path, out.buf);
    return NULL;
}

static void expect_result(json_t *result, const char *want_json)
{
    json_error_t jerr;
    json_t *want = json_loads(want_json, 0, &jerr);
    ck_assert_ptr_nonnull(want);
    ck_assert_msg(json_equal(result, want), "got %s, want %s", out.buf, want_json);
    json_decref(want);
}

static json_int_t get_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_integer(v), "%s is not an integer in %s", key, out.buf);
    return json_integer_value(v);
}

static const char *message(json_t *error)
{
    return json_string_value(json_object_get(error, "message"));
}

#if FW_WITH_SAMPLING
static void poll_at(uint64_t t)
{
    mock.now = t;
    fw_device_poll(&dev);
}
#endif

/* ---------------------------------------------------------------- gpio */

START_TEST(test_gpio_write_drives_the_pin)
{
    expect_result(ok("gpio_write", "{'pin':2,'value':true}"),
                  "{\"pin\":2,\"name\":\"led\",\"value\":true}");
    ck_assert(mock.pins[2].level);
    ck_assert_uint_eq(mock.pins[2].writes, 1);
    expect_result(ok("gpio_write", "{'pin':2,'value':false}"),
                  "{\"pin\":2,\"name\":\"led\",\"value\":false}");
    ck_assert(!mock.pins[2].level);
    /* positional params follow the declaration order */
    expect_result(ok("gpio_write", "[2,true]"), "{\"pin\":2,\"name\":\"led\",\"value\":true}");
}
END_TEST

START_TEST(test_gpio_write_rejects_wrong_pins_and_values)
{
    json_t *e = bad_param("gpio_write", "{'pin':4,'value':true}", "pin");
    ck_assert_ptr_nonnull(strstr(message(e), "button"));
    bad_param("gpio_write", "{'pin':18,'value':true}", "pin");
    bad_param("gpio_write", "{'pin':99,'value':true}", "pin");
    bad_param("gpio_write", "{'pin':'nope','value':true}", "pin");
    bad_param("gpio_write", "{'pin':2,'value':1}", "value");
    bad_param("gpio_write", "{'pin':2}", "value");
    bad_param("gpio_write", "{'value':true}", "pin");
    ck_assert_uint_eq(mock.pins[2].writes + mock.pins[4].writes + mock.pins[18].writes, 0);
}
END_TEST

START_TEST(test_gpio_read_inputs_and_outputs)
{
    mock.pins[4].level = true;
    expect_result(ok("gpio_read", "{'pin':4}"),
                  "{\"pin\":4,\"name\":\"button\",\"value\":true}");
    ok("gpio_write", "{'pin':2,'value':true}");
    expect_result(ok("gpio_read", "{'pin':2}"), "{\"pin\":2,\"name\":\"led\",\"value\":true}");
    bad_param("gpio_read", "{'pin':34}", "pin");
    bad_param("gpio_read", "{}", "pin");
}
END_TEST

/* fw_write_pin_id writes both members in one run where it can (device.c): whatever the pin
   (number, name to escape, no name), the room left and the members before it, the bytes,
   the count and the error must be those of the two members written one by one. */
static cap_t pin_id_got, pin_id_want;

static void pin_id_both_ways(const fw_pin_def_t *def, size_t pad, bool in_array)
{
    static char padding[3 * FW_JW_BUF_SIZE + 1];
    memset(padding, 'x', pad);
    padding[pad] = 0;
    fw_jw_t got, want;
    cap_reset(&pin_id_got);
    cap_reset(&pin_id_want);
    fw_jw_init(&got, cap_sink(&pin_id_got));
    fw_jw_init(&want, cap_sink(&pin_id_want));
    fw_jw_t *ws[2] = {&got, &want};
    for (int t = 0; t < 2; t++) {
        if (in_array) {
            fw_jw_arr_begin(ws[t]);
            if (pad > 0) fw_jw_str(ws[t], padding);
        } else {
            fw_jw_obj_begin(ws[t]);
            if (pad > 0) fw_jw_kv_str(ws[t], "p", padding);
        }
    }
    fw_write_pin_id(&got, def);
    FW_JW_KV_I64(&want, "pin", def->number);
    FW_JW_KV_STR(&want, "name", def->name ? def->name : "");
    for (int t = 0; t < 2; t++) {
        if (in_array)
            fw_jw_arr_end(ws[t]);
        else
            fw_jw_obj_end(ws[t]);
    }
    ck_assert_int_eq(fw_jw_flush(&got), fw_jw_flush(&want));
    ck_assert_uint_eq(got.total, want.total);
    ck_assert_uint_eq(got.total, pin_id_got.len);
    ck_assert_str_eq(pin_id_got.buf, pin_id_want.buf);
}

START_TEST(test_pin_id_in_one_run_matches_two_members)
{
    static char long_name[FW_JW_BUF_SIZE + 8];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    const char *names[] = {"led",
                           "",
                           NULL,
                           "a\"b",
                           "back\\slash",
                           "tab\there",
                           "~\x7f\xc3\xa9",
                           long_name,
                           long_name + sizeof long_name / 2,
                           long_name + sizeof long_name - 4};
    const uint16_t numbers[] = {0, 2, 9, 10, 34, 99, 100, 255, 65535};
    for (size_t n = 0; n < FW_ARRAY_LEN(names); n++)
        for (size_t k = 0; k < FW_ARRAY_LEN(numbers); k++) {
            fw_pin_def_t def = {.number = numbers[k], .name = names[n]};
            for (size_t pad = 0; pad <= 2 * FW_JW_BUF_SIZE + 10; pad++) {
                pin_id_both_ways(&def, pad, false);
                if (pad < 4) pin_id_both_ways(&def, pad, true);
            }
        }
}
END_TEST

START_TEST(test_gpio_hardware_failure_names_the_pin)
{
    mock.gpio_fail = FW_ERR_HW;
    json_t *e = fails("gpio_write", "{'pin':2,'value':true}", fw_err_rpc_code(FW_ERR_HW));
    ck_assert_ptr_nonnull(strstr(message(e), "gpio_write on pin 2 (led) failed"));
    e = fails("gpio_read", "{'pin':4}", fw_err_rpc_code(FW_ERR_HW));
    ck_assert_ptr_nonnull(strstr(message(e), "gpio_read on pin 4 (button) failed"));
    e = fails("pin_mode", "{'pin':4,'mode':'output'}", fw_err_rpc_code(FW_ERR_HW));
    ck_assert_ptr_nonnull(strstr(message(e), "pin 4 (button)"));
    /* unchanged on failure */
    ck_assert_uint_eq(fw_device_pin_state(&dev, P_BUTTON)->type, FW_PIN_DIGITAL_INPUT);
}
END_TEST

START_TEST(test_pin_mode_switches_between_input_and_output)
{
    expect_result(ok("pin_mode", "{'pin':4,'mode':'output'}"),
                  "{\"pin\":4,\"name\":\"button\",\"mode\":\"output\","
                  "\"type\":\"digital_output\"}");
    ck_assert_int_eq(mock.pins[4].mode, HAL_PIN_OUTPUT);
    expect_result(ok("gpio_write", "{'pin':4,'value':true}"),
                  "{\"pin\":4,\"name\":\"button\",\"value\":true}");
    ck_assert(mock.pins[4].level);

    expect_result(ok("pin_mode", "{'pin':2,'mode':'input_pullup'}"),
                  "{\"pin\":2,\"name\":\"led\",\"mode\":\"input_pullup\","
                  "\"type\":\"digital_input\"}");
    ck_assert_int_eq(mock.pins[2].mode, HAL_PIN_INPUT_PULLUP);
    bad_param("gpio_write", "{'pin':2,'value':false}", "pin");
    expect_result(ok("gpio_read", "{'pin':2}"), "{\"pin\":2,\"name\":\"led\",\"value\":true}");

    ok("pin_mode", "{'pin':2,'mode':'input_pulldown'}");
    ck_assert_int_eq(mock.pins[2].mode, HAL_PIN_INPUT_PULLDOWN);
    ok("pin_mode", "{'pin':2,'mode':'input'}");
    ck_assert_int_eq(mock.pins[2].mode, HAL_PIN_INPUT);

    /* list_tools shows the type the pin has now */
    json_t *pins = json_object_get(ok("list_tools", NULL), "pins");
    size_t i;
    json_t *p;
    json_array_foreach(pins, i, p)
    {
        if (get_int(p, "pin") == 2)
            ck_assert_str_eq(json_string_value(json_object_get(p, "type")), "digital_input");
    }
}
END_TEST

START_TEST(test_pin_mode_rejects_bad_modes_and_pins)
{
    bad_param("pin_mode", "{'pin':2,'mode':'floating'}", "mode");
    ck_assert_ptr_nonnull(strstr(out.buf, "input_pullup")); /* lists the choices */
    bad_param("pin_mode", "{'pin':18,'mode':'output'}", "pin");
    bad_param("pin_mode", "{'pin':34,'mode':'input'}", "pin");
    bad_param("pin_mode", "{'pin':2}", "mode");
    ck_assert_int_eq(mock.pins[2].mode, HAL_PIN_OUTPUT);
}
END_TEST

/* ---------------------------------------------------------------- pwm */

START_TEST(test_pwm_write_sets_duty_and_frequency)
{
    expect_result(ok("pwm_write", "{'pin':18,'duty':128}"),
                  "{\"pin\":18,\"name\":\"led_pwm\",\"duty\":128}");
    ck_assert_uint_eq(mock.pins[18].duty, 128);
    ck_assert_uint_eq(mock.pins[18].freq_hz, 0); /* the port's default */
    expect_result(ok("pwm_write", "{'pin':18,'duty':255,'frequency':1000}"),
                  "{\"pin\":18,\"name\":\"led_pwm\",\"duty\":255,\"frequency\":1000}");
    ck_assert_uint_eq(mock.pins[18].duty, 255);
    ck_assert_uint_eq(mock.pins[18].freq_hz, 1000);
    ok("pwm_write", "{'pin':18,'duty':0,'frequency':40000000}");
    ck_assert_uint_eq(mock.pins[18].duty, 0);
    ck_assert_uint_eq(mock.pins[18].freq_hz, 40000000);
}
END_TEST

START_TEST(test_pwm_write_rejects_out_of_range)
{
    bad_param("pwm_write", "{'pin':18,'duty':256}", "duty");
    ck_assert_ptr_nonnull(strstr(out.buf, "255"));
    bad_param("pwm_write", "{'pin':18,'duty':-1}", "duty");
    bad_param("pwm_write", "{'pin':18,'duty':12.5}", "duty");
    bad_param("pwm_write", "{'pin':18,'duty':10,'frequency':40000001}", "frequency");
    bad_param("pwm_write", "{'pin':18,'duty':10,'frequency':-5}", "frequency");
    bad_param("pwm_write", "{'pin':2,'duty':10}", "pin");
    bad_param("pwm_write", "{'pin':18}", "duty");
    ck_assert_uint_eq(mock.pins[18].writes, 0);
}
END_TEST

/* ---------------------------------------------------------------- adc */

START_TEST(test_adc_read_in_volts)
{
    mock.pins[34].adc = 2048;
    expect_result(ok("adc_read", "{'pin':34}"),
                  "{\"pin\":34,\"name\":\"sensor\",\"value\":2048,\"volts\":1.65}");
    ck_assert_ptr_nonnull(strstr(out.buf, "\"volts\":1.65"));
    mock.pins[35].adc = 4095;
    expect_result(ok("adc_read", "{'pin':35}"),
                  "{\"pin\":35,\"name\":\"raw\",\"value\":4095,\"volts\":3.3}");
    ck_assert_ptr_nonnull(strstr(out.buf, "\"volts\":3.30"));
}
END_TEST

START_TEST(test_adc_read_in_millivolts_on_avr)
{
    start(&avr_board);
    mock.pins[34].adc = 512;
    expect_result(ok("adc_read", "{'pin':34}"),
                  "{\"pin\":34,\"name\":\"sensor\",\"value\":512,\"mv\":2502}");
}
END_TEST

START_TEST(test_adc_read_failure_is_a_hardware_error)
{
    mock.pins[34].adc_fail = FW_ERR_ADC;
    json_t *e = fails("adc_read", "{'pin':34}", FW_RPC_ADC);
    ck_assert_str_eq(message(e), "adc_read on pin 34 (sensor) failed: adc conversion failed");
    bad_param("adc_read", "{'pin':2}", "pin");
    bad_param("adc_read", "{'pin':18}", "pin");
}
END_TEST

#if FW_WITH_SAMPLING
/* ---------------------------------------------------------------- summary */

START_TEST(test_summary_before_any_sample_is_null)
{
    expect_result(ok("get_pin_summary", "{'pin':34}"),
                  "{\"pin\":34,\"name\":\"sensor\",\"samples\":0,\"count\":0,\"min\":null,"
                  "\"max\":null,"
                  "\"avg\":null,\"latest\":null,\"latest_volts\":null,\"missed\":0,"
                  "\"read_errors\":0}");
}
END_TEST

START_TEST(test_summary_of_adc_and_digital_pins)
{
    static const uint16_t values[] = {100, 300, 201};
    for (size_t i = 0; i < 3; i++) {
        mock.pins[34].adc = values[i];
        poll_at(500u * (i + 1u));
    }
    expect_result(ok("get_pin_summary", "{'pin':'sensor'}"),
                  "{\"pin\":34,\"name\":\"sensor\",\"samples\":3,\"count\":3,\"min\":100,"
                  "\"max\":300,"
                  "\"avg\":200.33,\"latest\":201,\"latest_volts\":0.16,\"missed\":0,"
                  "\"read_errors\":0}");
    ck_assert_ptr_nonnull(strstr(out.buf, "\"avg\":200.33"));
    /* button (100 ms) was polled only every 500 ms: one sample per poll, 4 ticks missed each */
    json_t *r = ok("get_pin_summary", "{'pin':4}");
    ck_assert_int_eq(get_int(r, "count"), 3);
    ck_assert_int_eq(get_int(r, "missed"), 12);
    ck_assert(json_object_get(r, "latest_volts") == NULL);
    ck_assert(json_object_get(r, "latest_mv") == NULL);
    mock.pins[4].level = true;
    poll_at(3000); /* ticks 1600..2900 missed, one sample at 3000 */
    expect_result(ok("get_pin_summary", "{'pin':'button'}"),
                  "{\"pin\":4,\"name\":\"button\",\"samples\":4,\"count\":4,\"min\":0,"
                  "\"max\":1,"
                  "\"avg\":0.25,\"latest\":1,\"missed\":26,\"read_errors\":0}");
}
END_TEST

START_TEST(test_summary_in_millivolts_on_avr)
{
    start(&avr_board);
    mock.pins[34].adc = 1023;
    poll_at(500);
    json_t *r = ok("get_pin_summary", "{'pin':34}");
    ck_assert_int_eq(get_int(r, "latest_mv"), 5000);
    ck_assert(json_object_get(r, "latest_volts") == NULL);
}
END_TEST

START_TEST(test_summary_needs_the_capability)
{
    json_t *e = bad_param("get_pin_summary", "{'pin':'door'}", "pin");
    ck_assert_ptr_nonnull(strstr(message(e), "pin 5 (door)"));
    ck_assert_ptr_nonnull(strstr(message(e), "summary"));
    bad_param("get_pin_summary", "{'pin':35}", "pin");
    bad_param("get_pin_summary", "{'pin':2}", "pin");
    bad_param("get_pin_summary", "{'pin':77}", "pin");
}
END_TEST

/* ---------------------------------------------------------------- buffer */

/* Sensor samples 1..n at 500 ms steps with value 10 * seq. */
static void sensor_samples(unsigned n)
{
    for (unsigned i = 1; i <= n; i++) {
        mock.pins[34].adc = (uint16_t)(10u * i);
        poll_at(500u * i);
    }
}

/* MCP/U's {pin: name, count: buffered, values: oldest first}, our samples beside values. */
START_TEST(test_buffer_returns_samples_oldest_first)
{
    sensor_samples(3);
    expect_result(ok("get_pin_buffer", "{'pin':34}"),
                  "{\"pin\":\"sensor\",\"number\":34,\"count\":3,\"values\":[10,20,30],"
                  "\"samples\":["
                  "{\"seq\":1,\"t\":500,\"value\":10},{\"seq\":2,\"t\":1000,\"value\":20},"
                  "{\"seq\":3,\"t\":1500,\"value\":30}],\"next_since\":3,\"oldest_seq\":1,"
                  "\"latest_seq\":3,\"gap\":0,\"more\":false}");
    expect_result(ok("get_pin_buffer", "{'pin':34,'since':3}"),
                  "{\"pin\":\"sensor\",\"number\":34,\"count\":3,\"values\":[],"
                  "\"samples\":[],\"next_since\":3,"
                  "\"oldest_seq\":1,\"latest_seq\":3,\"gap\":0,\"more\":false}");
    /* MCP/U's client asks {pin, limit: buffer_size} and reads values: the oldest limit */
    json_t *r = ok("get_pin_buffer", "{'pin':'sensor','limit':2}");
    ck_assert_int_eq(get_int(r, "count"), 3);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "values")), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(r, "values"), 1)), 20);
    ck_assert(json_is_true(json_object_get(r, "more")));
}
END_TEST

START_TEST(test_buffer_limit_and_since)
{
    sensor_samples(5);
    json_t *r = ok("get_pin_buffer", "{'pin':'sensor','since':1,'limit':2}");
    json_t *samples = json_object_get(r, "samples");
    ck_assert_uint_eq(json_array_size(samples), 2);
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(r, "values"), 0)), 20);
    ck_assert_int_eq(get_int(json_array_get(samples, 0), "seq"), 2);
    ck_assert_int_eq(get_int(json_array_get(samples, 1), "seq"), 3);
    ck_assert_int_eq(get_int(r, "next_since"), 3);
    ck_assert(json_is_true(json_object_get(r, "more")));
    r = ok("get_pin_buffer", "{'pin':'sensor','since':3,'limit':2}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "samples")), 2);
    ck_assert_int_eq(get_int(r, "next_since"), 5);
    ck_assert(json_is_false(json_object_get(r, "more"))); /* exactly the rest */
    bad_param("get_pin_buffer", "{'pin':34,'limit':0}", "limit");
    bad_param("get_pin_buffer", "{'pin':34,'limit':65}", "limit");
    bad_param("get_pin_buffer", "{'pin':34,'since':-1}", "since");
}
END_TEST

START_TEST(test_buffer_reports_overwritten_samples_as_gap)
{
    sensor_samples(25); /* ring of 20: seqs 6..25 remain */
    json_t *r = ok("get_pin_buffer", "{'pin':34,'since':2,'limit':1}");
    ck_assert_int_eq(get_int(r, "gap"), 3); /* 3, 4 and 5 were lost */
    ck_assert_int_eq(get_int(r, "oldest_seq"), 6);
    ck_assert_int_eq(get_int(json_array_get(json_object_get(r, "samples"), 0), "seq"), 6);
    ck_assert_int_eq(get_int(r, "next_since"), 6);
    r = ok("get_pin_buffer", "{'pin':34,'since':6}");
    ck_assert_int_eq(get_int(r, "gap"), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "samples")), 19);
}
END_TEST

/* MCP/U answers a pin without a ring with buffer_available false, not an error. */
START_TEST(test_buffer_unavailable_without_the_capability)
{
    static const char *const pins[] = {"{'pin':'door'}", "{'pin':'raw'}", "{'pin':2}"};
    static const char *const names[] = {"door", "raw", "led"};
    for (size_t i = 0; i < 3; i++) {
        json_t *r = ok("get_pin_buffer", pins[i]);
        ck_assert_str_eq(json_string_value(json_object_get(r, "pin")), names[i]);
        ck_assert(json_is_false(json_object_get(r, "buffer_available")));
        ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(r, "reason")), "buffer"));
        ck_assert_ptr_null(json_object_get(r, "values"));
    }
    bad_param("get_pin_buffer", "{'pin':77}", "pin");
}
END_TEST

/* ---------------------------------------------------------------- events */

/*
 * Interleaves edges of two digital inputs at t = 100..900 (the first sample of each primes);
 * the sensor's sample at 500 ms primes it below its thresholds. Queue afterwards, oldest first:
 *   1 button rising @200, 2 door rising @300, 3 button falling @400, 4 door falling @600,
 *   5 button rising @700, 6 button falling @900
 */
static void make_events(void)
{
    static const bool button[] = {false, true, true, false, false, false, true, true, false};
    static const bool door[] = {false, false, true, true, true, false, false, false, false};
    mock.pins[34].adc = 500;
    for (unsigned i = 0; i < 9; i++) {
        mock.pins[4].level = button[i];
        mock.pins[5].level = door[i];
        poll_at(100u * (i + 1u));
    }
    ck_assert_uint_eq(fw_event_count(&dev), 6);
}

static void expect_seqs(json_t *events, const json_int_t *seqs, size_t n)
{
    ck_assert_msg(json_array_size(events) == n, "events %s", out.buf);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(get_int(json_array_get(events, i), "seq"), seqs[i]);
}

START_TEST(test_events_report_and_clear)
{
    make_events();
    mock.pins[34].adc = 3500;
    poll_at(1000); /* the sensor rises: seq 7 */
    json_t *r = ok("get_pin_events", "{'clear':false}");
    static const json_int_t all[] = {1, 2, 3, 4, 5, 6, 7};
    expect_seqs(json_object_get(r, "events"), all, 7);
    ck_assert_int_eq(get_int(r, "pending"), 7);
    ck_assert_int_eq(get_int(r, "dropped"), 0);
    json_t *e = json_array_get(json_object_get(r, "events"), 3);
    expect_result(e, "{\"type\":\"threshold_low\",\"value\":0,\"threshold\":0,\"seq\":4,"
                     "\"t\":600,\"pin\":5,\"name\":\"door\",\"kind\":\"falling\"}");
    ck_assert_ptr_null(json_object_get(r, "pin")); /* every pin's events */
    r = ok("get_pin_events", NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "events")), 7);
    json_t *last = json_array_get(json_object_get(r, "events"), 6);
    expect_result(last, "{\"type\":\"threshold_high\",\"value\":3500,\"threshold\":3000,"
                        "\"seq\":7,\"t\":1000,\"pin\":34,\"name\":\"sensor\","
                        "\"kind\":\"rising\"}");
    ck_assert_int_eq(get_int(r, "pending"), 0);
    ck_assert_int_eq(get_int(r, "next_since"), 7);
    r = ok("get_pin_events", NULL);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "events")), 0);
    ck_assert_int_eq(get_int(r, "next_since"), 0);
}
END_TEST

START_TEST(test_events_filtered_by_pin_keep_the_others_in_order)
{
    make_events();
    json_t *r = ok("get_pin_events", "{'pin':5}");
    ck_assert_str_eq(json_string_value(json_object_get(r, "pin")), "door"); /* MCP/U: the name */
    static const json_int_t door[] = {2, 4};
    expect_seqs(json_object_get(r, "events"), door, 2);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(r, "events"), 1), "kind")),
        "falling");
    ck_assert_int_eq(get_int(r, "pending"), 0); /* none of door's left */
    r = ok("get_pin_events", "{'clear':false}");
    static const json_int_t rest[] = {1, 3, 5, 6};
    expect_seqs(json_object_get(r, "events"), rest, 4);
    ck_assert_int_eq(get_int(r, "pending"), 4);
    r = ok("get_pin_events", "{'pin':4,'clear':true}");
    expect_seqs(json_object_get(r, "events"), rest, 4);
    ck_assert_int_eq(fw_event_count(&dev), 0);
}
END_TEST

START_TEST(test_events_since_for_non_destructive_readers)
{
    make_events();
    json_t *r = ok("get_pin_events", "{'clear':false,'since':4}");
    static const json_int_t newer[] = {5, 6};
    expect_seqs(json_object_get(r, "events"), newer, 2);
    ck_assert_int_eq(get_int(r, "next_since"), 6);
    r = ok("get_pin_events", "{'clear':false,'since':6}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "events")), 0);
    ck_assert_int_eq(get_int(r, "next_since"), 6);
    /* with clear, only the returned events go */
    r = ok("get_pin_events", "{'since':4}");
    expect_seqs(json_object_get(r, "events"), newer, 2);
    ck_assert_int_eq(get_int(r, "pending"), 4);
    static const json_int_t older[] = {1, 2, 3, 4};
    expect_seqs(json_object_get(ok("get_pin_events", NULL), "events"), older, 4);
}
END_TEST

/* As MCP/U: a pin without the events capability has no events (not an error). */
START_TEST(test_events_of_a_pin_without_the_capability)
{
    make_events();
    json_t *r = ok("get_pin_events", "{'pin':'raw'}");
    ck_assert_str_eq(json_string_value(json_object_get(r, "pin")), "raw");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "events")), 0);
    ck_assert_uint_eq(fw_event_count(&dev), 6); /* the other pins' events stay */
    bad_param("get_pin_events", "{'pin':77}", "pin");
    bad_param("get_pin_events", "{'clear':'yes'}", "clear");
    bad_param("get_pin_events", "{'since':-3}", "since");
}
END_TEST

/* MCP/U lists get_pin_events only when a pin has the events capability: a board whose one
   sampled pin buffers without events lists summary and buffer, not events. */
START_TEST(test_events_tool_only_with_an_event_pin)
{
    static const fw_pin_def_t quiet_pins[] = {
        {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .sample_interval_ms = 500,
         .buffer_size = 4, .summary = true, .buffer = true},
        /* events without sampling raise none: not enough either */
        {.number = 5, .type = FW_PIN_DIGITAL_INPUT, .name = "door", .events = true},
    };
    static fw_sample_slot_t quiet_store[4];
    static const fw_board_t quiet = {.device = "quiet",
                                     .version = "1",
                                     .platform = "test",
                                     .pins = quiet_pins,
                                     .pin_count = FW_ARRAY_LEN(quiet_pins),
                                     .toolsets = pin_sets,
                                     .sample_store = quiet_store,
                                     .sample_store_len = FW_ARRAY_LEN(quiet_store)};
    start(&quiet);
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    bool summary = false, buffer = false, events = false;
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        const char *n = json_string_value(json_object_get(t, "name"));
        summary = summary || strcmp(n, "get_pin_summary") == 0;
        buffer = buffer || strcmp(n, "get_pin_buffer") == 0;
        events = events || strcmp(n, "get_pin_events") == 0;
    }
    ck_assert(summary && buffer && !events);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "get_pin_events"));
    start(&esp_board);
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "get_pin_events"));
}
END_TEST

#endif

/* ---------------------------------------------------------------- published schemas */

static json_t *listed_tool(json_t *tools, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0) return t;
    }
    ck_abort_msg("tool %s not listed", name);
    return NULL;
}

START_TEST(test_tools_are_listed_with_their_schemas)
{
    json_t *tools = json_object_get(ok("list_tools", NULL), "tools");
    static const char *const names[] = {
        "gpio_write",
        "gpio_read",
        "pin_mode",
        "pwm_write",
        "adc_read",
#if FW_WITH_SAMPLING
        "get_pin_summary",
        "get_pin_buffer",
        "get_pin_events",
#endif
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        json_t *t = listed_tool(tools, names[i]);
        /* descriptions say what a tool does (a build without them lists "") */
        size_t desc = strlen(json_string_value(json_object_get(t, "description")));
        if (FW_WITH_DESCRIPTIONS)
            ck_assert_uint_gt(desc, 40);
        else
            ck_assert_uint_eq(desc, 0);
        json_t *props = json_object_get(json_object_get(t, "inputSchema"), "properties");
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(props, "pin"), "type")),
                         "integer");
    }
    json_t *duty = json_object_get(
        json_object_get(json_object_get(listed_tool(tools, "pwm_write"), "inputSchema"),
                        "properties"),
        "duty");
    ck_assert_int_eq(get_int(duty, "minimum"), 0);
    ck_assert_int_eq(get_int(duty, "maximum"), 255);
    json_t *mode = json_object_get(
        json_object_get(json_object_get(listed_tool(tools, "pin_mode"), "inputSchema"),
                        "properties"),
        "mode");
    ck_assert_uint_eq(json_array_size(json_object_get(mode, "enum")), 4);
    ck_assert(json_is_true(json_object_get(listed_tool(tools, "adc_read"), "readOnly")));
    ck_assert(json_object_get(listed_tool(tools, "gpio_write"), "readOnly") == NULL);
#if FW_WITH_SAMPLING
    ck_assert(json_object_get(listed_tool(tools, "get_pin_events"), "readOnly") == NULL);
#endif
}
END_TEST

static Suite *builtins_pins_suite(void)
{
    Suite *s = suite_create("builtins_pins");
    TCase *t = tcase_create("gpio");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_gpio_write_drives_the_pin);
    tcase_add_test(t, test_gpio_write_rejects_wrong_pins_and_values);
    tcase_add_test(t, test_gpio_read_inputs_and_outputs);
    tcase_add_test(t, test_gpio_hardware_failure_names_the_pin);
    tcase_add_test(t, test_pin_id_in_one_run_matches_two_members);
    tcase_add_test(t, test_pin_mode_switches_between_input_and_output);
    tcase_add_test(t, test_pin_mode_rejects_bad_modes_and_pins);
    suite_add_tcase(s, t);
    t = tcase_create("pwm_adc");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_pwm_write_sets_duty_and_frequency);
    tcase_add_test(t, test_pwm_write_rejects_out_of_range);
    tcase_add_test(t, test_adc_read_in_volts);
    tcase_add_test(t, test_adc_read_in_millivolts_on_avr);
    tcase_add_test(t, test_adc_read_failure_is_a_hardware_error);
    suite_add_tcase(s, t);
#if FW_WITH_SAMPLING
    t = tcase_create("summary_buffer");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_summary_before_any_sample_is_null);
    tcase_add_test(t, test_summary_of_adc_and_digital_pins);
    tcase_add_test(t, test_summary_in_millivolts_on_avr);
    tcase_add_test(t, test_summary_needs_the_capability);
    tcase_add_test(t, test_buffer_returns_samples_oldest_first);
    tcase_add_test(t, test_buffer_limit_and_since);
    tcase_add_test(t, test_buffer_reports_overwritten_samples_as_gap);
    tcase_add_test(t, test_buffer_unavailable_without_the_capability);
    suite_add_tcase(s, t);
    t = tcase_create("events");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_events_report_and_clear);
    tcase_add_test(t, test_events_filtered_by_pin_keep_the_others_in_order);
    tcase_add_test(t, test_events_since_for_non_destructive_readers);
    tcase_add_test(t, test_events_of_a_pin_without_the_capability);
    tcase_add_test(t, test_events_tool_only_with_an_event_pin);
    suite_add_tcase(s, t);
#endif
    t = tcase_create("listing");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_tools_are_listed_with_their_schemas);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(builtins_pins_suite)
