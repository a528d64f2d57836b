/* test_pindev.c: the pin devices of a board file (pindev.c): a servo reading its pin's PWM, a
   NeoPixel strip behind the HAL's strip operations, a DHT22 whose frames the mcpd app decodes;
   their configuration errors and their control-channel faces. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apps.h"
#include "pindev.h"
#include "test_util.h"

static sim_pindevs_t *make(const char *json)
{
    json_error_t je;
    json_t *arr = json_loads(json, 0, &je);
    ck_assert_msg(arr != NULL, "bad test JSON: %s", je.text);
    sim_cfg_err_t e;
    sim_pindevs_t *d = sim_pindevs_create(arr, ".", &e);
    json_decref(arr);
    ck_assert_msg(d != NULL, "%s: %s", e.path, e.msg);
    return d;
}

static const char *refused(const char *json)
{
    static char text[sizeof((sim_cfg_err_t *)0)->path + sizeof((sim_cfg_err_t *)0)->msg + 4];
    json_t *arr = json_loads(json, 0, NULL);
    ck_assert_ptr_nonnull(arr);
    sim_cfg_err_t e = {0};
    sim_pindevs_t *d = sim_pindevs_create(arr, ".", &e);
    json_decref(arr);
    ck_assert_msg(d == NULL, "%s was accepted", json);
    snprintf(text, sizeof text, "%s: %s", e.path, e.msg);
    return text;
}

static sim_pwm_view_t servo_pwm; /* what the servo's pin carries in a test */
static sim_pwm_view_t view(void *ctx, uint16_t pin)
{
    (void)ctx;
    (void)pin;
    return servo_pwm;
}

static const char *const BOARD =
    "[{\"model\": \"servo\", \"pin\": 13},"
    " {\"model\": \"neopixel\", \"pin\": 5, \"name\": \"strip\", \"count\": 4},"
    " {\"model\": \"dht22\", \"pin\": 4, \"temperature\": 21.3, \"humidity\": {\"type\": "
    "\"points\", \"points\": [[0, 40], [1000, 60]]}}]";

START_TEST(servo_angle_from_the_pulse)
{
    sim_pindevs_t *d = make(BOARD);
    sim_cfg_err_t e;
    servo_pwm = (sim_pwm_view_t){1, 4823, 16, 50}; /* 1471.9 us of 20 ms: 90 degrees */
    json_t *s = sim_pindevs_get(d, "servo", 0, view, NULL, &e);
    ck_assert(json_is_true(json_object_get(s, "attached")));
    ck_assert(fabs(json_real_value(json_object_get(s, "angle")) - 90.0) < 0.2);
    json_decref(s);
    servo_pwm.freq_hz = 5000; /* not a servo signal */
    s = sim_pindevs_get(d, "servo", 0, view, NULL, &e);
    ck_assert(json_is_false(json_object_get(s, "attached")));
    ck_assert(json_is_null(json_object_get(s, "angle")));
    json_decref(s);
    /* its calibration is settable; a range the wrong way round is refused */
    json_t *p = json_pack("{s:s, s:i, s:i}", "name", "servo", "min_us", 1000, "max_us", 2000);
    ck_assert(sim_pindevs_set(d, "servo", p, ".", &e));
    json_decref(p);
    servo_pwm = (sim_pwm_view_t){1, 3277, 16, 50}; /* 1000 us: 0 degrees now */
    s = sim_pindevs_get(d, "servo", 0, view, NULL, &e);
    ck_assert(fabs(json_real_value(json_object_get(s, "angle"))) < 0.2);
    json_decref(s);
    p = json_pack("{s:s, s:i}", "name", "servo", "min_us", 2500);
    ck_assert(!sim_pindevs_set(d, "servo", p, ".", &e));
    ck_assert_str_eq(e.path, "max_us");
    json_decref(p);
    sim_pindevs_destroy(d);
}
END_TEST

START_TEST(strip_buffer_show_and_brightness)
{
    sim_pindevs_t *d = make(BOARD);
    uint16_t count = 0;
    hal_strip_op_t set = {HAL_STRIP_SET, 200, 100, 50, 0, 3};
    ck_assert_int_eq(sim_pindevs_strip(d, 5, &set, &count), FW_OK);
    ck_assert_uint_eq(count, 4);
    set.index = 4;
    ck_assert_int_eq(sim_pindevs_strip(d, 5, &set, &count), FW_ERR_ARG); /* past the strip */
    ck_assert_int_eq(sim_pindevs_strip(d, 6, &set, &count), FW_ERR_UNSUPPORTED); /* no strip */
    sim_cfg_err_t e;
    json_t *s = sim_pindevs_get(d, "strip", 0, view, NULL, &e);
    ck_assert_int_eq(
        json_integer_value(json_array_get(json_array_get(json_object_get(s, "buffer"), 3), 0)),
        200);
    ck_assert_int_eq(
        json_integer_value(json_array_get(json_array_get(json_object_get(s, "pixels"), 3), 0)), 0);
    json_decref(s); /* not shown yet */
    hal_strip_op_t half = {HAL_STRIP_BRIGHTNESS, 0, 0, 0, 127, 0},
                   show = {HAL_STRIP_SHOW, 0, 0, 0, 0, 0};
    ck_assert_int_eq(sim_pindevs_strip(d, 5, &half, &count), FW_OK);
    ck_assert_int_eq(sim_pindevs_strip(d, 5, &show, &count), FW_OK);
    s = sim_pindevs_get(d, "strip", 0, view, NULL, &e);
    json_t *px = json_array_get(json_object_get(s, "pixels"), 3);
    ck_assert_int_eq(json_integer_value(json_array_get(px, 0)), 100);
    ck_assert_int_eq(json_integer_value(json_array_get(px, 1)), 50);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "shows")), 1);
    json_decref(s);
    json_t *p = json_loads("{\"name\": \"strip\", \"pixels\": [[1, 2, 3], [4, 5, 256]]}", 0, NULL);
    ck_assert(!sim_pindevs_set(d, "strip", p, ".", &e));
    ck_assert_str_eq(e.path, "pixels[1]");
    json_decref(p);
    sim_pindevs_destroy(d);
}
END_TEST

START_TEST(dht22_frames_decode_to_the_waveforms)
{
    sim_pindevs_t *d = make(BOARD);
    uint8_t f[5];
    int hum, temp;
    ck_assert_int_eq(sim_pindevs_dht(d, 4, 500000, f), FW_OK); /* 0.5 s: humidity 50 */
    ck_assert(mcpd_dht_decode(f, &hum, &temp));
    ck_assert_int_eq(hum, 500);
    ck_assert_int_eq(temp, 213);
    sim_cfg_err_t e;
    json_t *p = json_pack("{s:s, s:f, s:b}", "name", "dht22", "temperature", -7.4, "fail", 0);
    ck_assert(sim_pindevs_set(d, "dht22", p, ".", &e));
    json_decref(p);
    ck_assert_int_eq(sim_pindevs_dht(d, 4, 0, f), FW_OK);
    ck_assert(mcpd_dht_decode(f, &hum, &temp));
    ck_assert_int_eq(temp, -74); /* the sign bit */
    f[4] ^= 1;
    ck_assert(!mcpd_dht_decode(f, &hum, &temp)); /* a bad checksum */
    p = json_pack("{s:s, s:b}", "name", "dht22", "fail", 1);
    ck_assert(sim_pindevs_set(d, "dht22", p, ".", &e));
    json_decref(p);
    ck_assert_int_eq(sim_pindevs_dht(d, 4, 0, f), FW_ERR_TIMEOUT);
    p = json_pack("{s:s, s:s}", "name", "dht22", "humidity", "wet");
    ck_assert(!sim_pindevs_set(d, "dht22", p, ".", &e)); /* a waveform that is not one */
    ck_assert_str_eq(e.path, "humidity");
    json_decref(p);
    json_t *s = sim_pindevs_get(d, "dht22", 0, view, NULL, &e);
    ck_assert(json_is_true(json_object_get(s, "fail"))); /* the refused set changed nothing */
    json_decref(s);
    ck_assert_ptr_null(sim_pindevs_get(d, "nope", 0, view, NULL, &e));
    ck_assert_str_eq(e.path, "name");
    sim_pindevs_destroy(d);
}
END_TEST

START_TEST(bad_configurations_name_the_path)
{
    ck_assert_str_eq(
        refused("[{\"model\": \"servo\", \"pin\": 1}, {\"model\": \"stepper\", \"pin\": 2}]"),
        "[1].model: unknown value \"stepper\" (expected one of: servo, neopixel, dht22)");
    ck_assert_str_eq(
        refused("[{\"model\": \"servo\", \"pin\": 1}, {\"model\": \"dht22\", \"pin\": 1}]"),
        "[1].pin: pin 1 already has the servo");
    ck_assert_str_eq(refused("[{\"model\": \"neopixel\", \"pin\": 1, \"count\": 0}]"),
                     "[0].count: 0 is out of range 1..1024");
    ck_assert_str_eq(
        refused("[{\"model\": \"servo\", \"pin\": 1, \"min_us\": 2000, \"max_us\": 1000}]"),
        "[0].max_us: must exceed min_us");
    ck_assert_str_eq(refused("{}"), ": must be an array");
}
END_TEST

static Suite *pindev_suite(void)
{
    Suite *s = suite_create("pindev");
    TCase *t = tcase_create("pin devices");
    tcase_add_test(t, servo_angle_from_the_pulse);
    tcase_add_test(t, strip_buffer_show_and_brightness);
    tcase_add_test(t, dht22_frames_decode_to_the_waveforms);
    tcase_add_test(t, bad_configurations_name_the_path);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(pindev_suite)
