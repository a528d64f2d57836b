/* test_control.c: the control channel (every sim.* method and its errors, the JSON-RPC
   envelope) and the simulated device it moves, observed through the firmware's own tools. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fw_codes.h"
#include "sim_internal.h"
#include "test_util.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif

static cap_t cap;

static sim_t *boot_text(const char *text, sim_clock_mode_t mode)
{
    sim_error_t err;
    sim_board_t *b = sim_board_load_text("test.json", text, strlen(text), &err);
    ck_assert_msg(b != NULL, "%s", err.text);
    sim_t *sim = sim_create(b, mode, &err);
    ck_assert_msg(sim != NULL, "%s", err.text);
    return sim;
}

static sim_t *boot(const char *board, sim_clock_mode_t mode)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sim/boards/%s.json", MCPSIM_SOURCE_DIR, board);
    sim_error_t err;
    sim_board_t *b = sim_board_load(path, &err);
    ck_assert_msg(b != NULL, "%s", err.text);
    sim_t *sim = sim_create(b, mode, &err);
    ck_assert_msg(sim != NULL, "%s", err.text);
    return sim;
}

/* The whole response of a control message (a printf format), parsed. */
static json_t *ctl_raw(sim_t *sim, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *text = sim_control_handle(sim, msg, strlen(msg));
    if (text == NULL) return NULL;
    json_error_t je;
    json_t *r = json_loads(text, 0, &je);
    ck_assert_msg(r != NULL, "response is not JSON: %s", text);
    free(text);
    return r;
}

/* Calls method with params (JSON text); returns the result (caller decrefs), failing the test
   on an error response. */
static json_t *ctl(sim_t *sim, const char *method, const char *params)
{
    json_t *r = ctl_raw(sim, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
                        method, params);
    json_t *err = json_object_get(r, "error");
    ck_assert_msg(err == NULL, "%s %s: %s", method, params,
                  json_string_value(json_object_get(err, "message")));
    json_t *res = json_incref(json_object_get(r, "result"));
    json_decref(r);
    return res;
}

/* Calls method expecting error `code`; returns its message (static). */
static const char *ctl_err(sim_t *sim, const char *method, const char *params, int code)
{
    static char msg[512];
    json_t *r = ctl_raw(sim, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\",\"params\":%s}",
                        method, params);
    json_t *err = json_object_get(r, "error");
    ck_assert_msg(err != NULL, "%s %s did not fail", method, params);
    ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), code);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), 7);
    snprintf(msg, sizeof msg, "%s", json_string_value(json_object_get(err, "message")));
    json_decref(r);
    return msg;
}

/* A request to the firmware (a tool call); returns the parsed response. */
static json_t *fw(sim_t *sim, const char *method, const char *params)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":%s}",
             method, params);
    cap_reset(&cap);
    ck_assert(fw_device_handle(sim_device(sim), msg, strlen(msg), cap_sink(&cap)));
    json_t *r = json_loads(cap.buf, 0, NULL);
    ck_assert_msg(r != NULL, "%s", cap.buf);
    return r;
}

static json_t *fw_ok(sim_t *sim, const char *method, const char *params)
{
    json_t *r = fw(sim, method, params);
    ck_assert_msg(json_object_get(r, "result") != NULL, "%s: %s", method, cap.buf);
    json_t *res = json_incref(json_object_get(r, "result"));
    json_decref(r);
    return res;
}

static long long get_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", key);
    return json_integer_value(v);
}

static bool get_bool(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    ck_assert_msg(json_is_boolean(v), "%s is not a boolean", key);
    return json_is_true(v);
}

/* ---------------------------------------------------------------- the clock */

START_TEST(advance_5s_gives_exactly_10_samples)
{
    sim_t *sim = boot("esp32-demo", SIM_CLOCK_VIRTUAL);
    json_t *r = ctl(sim, "sim.advance", "{\"ms\": 5000}");
    ck_assert_int_eq(get_int(r, "now_ms"), 5000);
    json_decref(r);
    json_t *buf = fw_ok(sim, "get_pin_buffer", "{\"pin\": \"sensor\"}");
    json_t *samples = json_object_get(buf, "samples");
    ck_assert_uint_eq(json_array_size(samples), 10);
    for (size_t i = 0; i < 10; i++)
        ck_assert_int_eq(get_int(json_array_get(samples, i), "t"), 500 * (long long)(i + 1));
    /* the sine of the board: 1.65 V + 0.5 V * sin(2 pi t / 60 s) at t = 5 s */
    ck_assert_int_eq(get_int(json_array_get(samples, 9), "value"), 2358);
    json_decref(buf);
    r = ctl(sim, "sim.advance", "{\"ms\": 249.5}"); /* fractions of a ms are fine */
    ck_assert_int_eq(get_int(r, "now_us"), 5249500);
    json_decref(r);
    buf = fw_ok(sim, "get_pin_buffer", "{\"pin\": 34, \"since\": 10}");
    ck_assert_uint_eq(json_array_size(json_object_get(buf, "samples")), 0);
    json_decref(buf);
    sim_destroy(sim);
}
END_TEST

START_TEST(time_and_advance_errors)
{
    sim_t *sim = boot("esp32-demo", SIM_CLOCK_REALTIME);
    json_t *t = ctl(sim, "sim.time", "{}");
    ck_assert_str_eq(json_string_value(json_object_get(t, "mode")), "realtime");
    ck_assert_int_eq(get_int(t, "now_ms"), 0);
    ck_assert_int_eq(get_int(t, "next_event_us"), 500000);
    json_decref(t);
    ck_assert_str_eq(ctl_err(sim, "sim.advance", "{\"ms\": 10}", FW_RPC_SIM_STATE),
                     "sim.advance needs the virtual clock (start mcpsim with --clock virtual); "
                     "this sim runs in real time");
    sim_sync_wall(sim, 1200000); /* real time: the host reports the wall clock */
    t = ctl(sim, "sim.time", "{}");
    ck_assert_int_eq(get_int(t, "now_ms"), 1200);
    json_decref(t);
    json_t *buf = fw_ok(sim, "get_pin_buffer", "{\"pin\": \"sensor\"}");
    ck_assert_uint_eq(json_array_size(json_object_get(buf, "samples")), 2);
    json_decref(buf);
    sim_sync_wall(sim, 1000); /* never backwards */
    ck_assert_uint_eq(sim_now_us(sim), 1200000);
    sim_destroy(sim);
    sim = boot("esp32-demo", SIM_CLOCK_VIRTUAL);
    ck_assert_str_eq(ctl_err(sim, "sim.advance", "{\"ms\": -1}", FW_RPC_INVALID_PARAMS),
                     "params.ms: -1 is out of range 0..1e+12");
    ck_assert_str_eq(ctl_err(sim, "sim.advance", "{}", FW_RPC_INVALID_PARAMS),
                     "params: missing required key \"ms\"");
    ck_assert_str_eq(ctl_err(sim, "sim.advance", "{\"ms\": \"5\"}", FW_RPC_INVALID_PARAMS),
                     "params.ms: must be a number, not a string");
    ck_assert_str_eq(ctl_err(sim, "sim.time", "{\"x\": 1}", FW_RPC_INVALID_PARAMS),
                     "params.x: unknown key \"x\" (this method takes no parameters)");
    sim_sync_wall(sim, 5000000); /* virtual time ignores the wall clock */
    ck_assert_uint_eq(sim_now_us(sim), 0);
    sim_destroy(sim);
}
END_TEST

/* ---------------------------------------------------------------- pins */

START_TEST(set_input_is_read_by_gpio_read)
{
    sim_t *sim = boot("uno", SIM_CLOCK_VIRTUAL);
    json_t *r = fw_ok(sim, "gpio_read", "{\"pin\": 2}");
    ck_assert(get_bool(r, "value")); /* the pull-up holds the released button high */
    json_decref(r);
    r = ctl(sim, "sim.set_input", "{\"pin\": \"button\", \"level\": false}");
    ck_assert(!get_bool(r, "level"));
    ck_assert(!get_bool(r, "external"));
    json_decref(r);
    r = fw_ok(sim, "gpio_read", "{\"pin\": 2}");
    ck_assert(!get_bool(r, "value"));
    json_decref(r);
    json_decref(ctl(sim, "sim.set_input", "{\"pin\": 2, \"level\": null}")); /* released */
    r = fw_ok(sim, "gpio_read", "{\"pin\": \"button\"}");
    ck_assert(get_bool(r, "value"));
    json_decref(r);
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": 13, \"level\": true}", FW_RPC_INVALID_PARAMS),
        "params.pin: pin 13 (led) is an output the firmware drives");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": 14, \"level\": true}", FW_RPC_INVALID_PARAMS),
        "params.pin: pin 14 (sensor) is an adc_input; set_input drives digital "
        "inputs");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": 2, \"level\": 2}", FW_RPC_INVALID_PARAMS),
        "params.level: must be true, false, 0, 1 or null (floating)");
    ck_assert_str_eq(ctl_err(sim, "sim.set_input", "{\"pin\": 2}", FW_RPC_INVALID_PARAMS),
                     "params: missing required key \"level\"");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": \"knob\", \"level\": 1}", FW_RPC_INVALID_PARAMS),
        "params.pin: no pin named \"knob\" on this board");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": [2], \"level\": 1}", FW_RPC_INVALID_PARAMS),
        "params.pin: must be a pin number or name, not an array");
    sim_destroy(sim);
}
END_TEST

START_TEST(a_wire_carries_the_output_to_the_input)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_decref(fw_ok(sim, "gpio_write", "{\"pin\": \"relay\", \"value\": true}"));
    json_t *r = fw_ok(sim, "gpio_read", "{\"pin\": 26}");
    ck_assert(get_bool(r, "value"));
    json_decref(r);
    r = ctl(sim, "sim.get_pin", "{\"pin\": 26}");
    ck_assert_int_eq(get_int(r, "wire_from"), 25);
    json_decref(r);
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 250}"));
    json_decref(fw_ok(sim, "gpio_write", "{\"pin\": \"relay\", \"value\": false}"));
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 100}"));
    r = fw_ok(sim, "get_pin_events", "{\"pin\": \"button\"}");
    json_t *ev = json_object_get(r, "events");
    ck_assert_uint_eq(json_array_size(ev), 1); /* the first sample sets the state */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ev, 0), "kind")), "falling");
    ck_assert_int_eq(get_int(json_array_get(ev, 0), "t"), 300);
    json_decref(r);
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_input", "{\"pin\": 26, \"level\": true}", FW_RPC_INVALID_PARAMS),
        "params.pin: pin 26 (button) is driven by a wire from pin 25");
    sim_destroy(sim);
}
END_TEST

static const char *pwm_board = "{\"device\": \"pwm-loop\", \"pins\": ["
                               "{\"pin\": 18, \"name\": \"pwm\", \"type\": \"pwm_output\"},"
                               "{\"pin\": 35, \"name\": \"meter\", \"type\": \"adc_input\"}],"
                               "\"wires\": [{\"from\": 18, \"to\": \"meter\"}]}";

START_TEST(pwm_wired_to_adc_reads_the_mean_voltage)
{
    sim_t *sim = boot_text(pwm_board, SIM_CLOCK_VIRTUAL);
    json_t *r = fw_ok(sim, "adc_read", "{\"pin\": 35}");
    ck_assert_int_eq(get_int(r, "value"), 0); /* the PWM pin is not driving yet */
    json_decref(r);
    json_decref(fw_ok(sim, "pwm_write", "{\"pin\": 18, \"duty\": 128}"));
    r = fw_ok(sim, "adc_read", "{\"pin\": 35}");
    ck_assert_int_eq(get_int(r, "value"), 2056); /* 128 / 255 * 4095 */
    json_decref(r);
    r = ctl(sim, "sim.get_pin", "{\"pin\": \"pwm\"}");
    ck_assert(get_bool(r, "pwm"));
    ck_assert_int_eq(get_int(r, "duty"), 128);
    ck_assert_int_eq(get_int(r, "frequency_hz"), 5000); /* the default of analogWrite */
    ck_assert_str_eq(json_string_value(json_object_get(r, "mode")), "output");
    json_decref(r);
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_analog", "{\"pin\": 35, \"volts\": 1}", FW_RPC_INVALID_PARAMS),
        "params.pin: pin 35 (meter) is driven by a wire");
    sim_destroy(sim);
}
END_TEST

START_TEST(waveforms_and_analog_values)
{
    sim_t *sim = boot("esp32-demo", SIM_CLOCK_VIRTUAL);
    json_t *r = ctl(sim, "sim.set_analog", "{\"pin\": \"sensor\", \"volts\": 0.825}");
    ck_assert_int_eq(get_int(r, "raw"), 1024); /* 1023.75 */
    json_decref(r);
    r = fw_ok(sim, "adc_read", "{\"pin\": 34}");
    ck_assert_int_eq(get_int(r, "value"), 1024);
    json_decref(r);
    json_decref(ctl(sim, "sim.set_waveform",
                    "{\"pin\": 34, \"waveform\": {\"type\": \"square\", "
                    "\"low\": 0, \"high\": 3.3, \"period_ms\": 1000}}"));
    r = fw_ok(sim, "adc_read", "{\"pin\": 34}");
    ck_assert_int_eq(get_int(r, "value"), 4095);
    json_decref(r);
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 600}"));
    r = fw_ok(sim, "adc_read", "{\"pin\": 34}");
    ck_assert_int_eq(get_int(r, "value"), 0);
    json_decref(r);
    /* the touch channel is in counts; read_touch sees it */
    json_decref(ctl(sim, "sim.set_analog", "{\"pin\": 4, \"raw\": 15}"));
    r = fw_ok(sim, "read_touch", "{}");
    ck_assert(get_bool(r, "touched"));
    ck_assert_int_eq(get_int(r, "value"), 15);
    json_decref(r);
    json_decref(ctl(sim, "sim.set_waveform", "{\"pin\": 4, \"waveform\": 70}"));
    r = fw_ok(sim, "read_touch", "{}");
    ck_assert_int_eq(get_int(r, "value"), 70); /* the channel keeps its unit */
    json_decref(r);
    ck_assert_str_eq(ctl_err(sim, "sim.set_waveform",
                             "{\"pin\": 34, \"waveform\": {\"type\": "
                             "\"sine\", \"amplitude\": 1, \"period_ms\": "
                             "0}}",
                             FW_RPC_INVALID_PARAMS),
                     "params.waveform.period_ms: 0 is out of range 0.001..1e+12");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_waveform", "{\"pin\": 2, \"waveform\": 1}", FW_RPC_INVALID_PARAMS),
        "params.pin: pin 2 (led) is a digital_output; waveforms drive adc_input "
        "pins and channels");
    ck_assert_str_eq(ctl_err(sim, "sim.set_waveform", "{\"pin\": 34}", FW_RPC_INVALID_PARAMS),
                     "params: missing required key \"waveform\"");
    ck_assert_str_eq(ctl_err(sim, "sim.set_analog", "{\"pin\": 34, \"volts\": 1, \"raw\": 3}",
                             FW_RPC_INVALID_PARAMS),
                     "params.raw: give volts or raw, not both");
    ck_assert_str_eq(
        ctl_err(sim, "sim.set_analog", "{\"pin\": 34, \"raw\": 5000}", FW_RPC_INVALID_PARAMS),
        "params.raw: 5000 is out of range 0..4095");
    sim_destroy(sim);
}
END_TEST

START_TEST(read_outputs_lists_every_pin)
{
    sim_t *sim = boot("esp32-demo", SIM_CLOCK_VIRTUAL);
    json_decref(fw_ok(sim, "gpio_write", "{\"pin\": 2, \"value\": true}"));
    json_decref(fw_ok(sim, "pwm_write", "{\"pin\": 18, \"duty\": 200, \"frequency\": 1000}"));
    json_t *r = ctl(sim, "sim.read_outputs", "{}");
    json_t *pins = json_object_get(r, "pins");
    ck_assert_uint_eq(json_array_size(pins), 4); /* three registry pins and the touch channel */
    json_t *led = json_array_get(pins, 0), *pwm = json_array_get(pins, 2),
           *touch = json_array_get(pins, 3);
    ck_assert_int_eq(get_int(led, "pin"), 2);
    ck_assert(get_bool(led, "level"));
    ck_assert_str_eq(json_string_value(json_object_get(led, "mode")), "output");
    ck_assert_int_eq(get_int(pwm, "duty"), 200);
    ck_assert_int_eq(get_int(pwm, "frequency_hz"), 1000);
    ck_assert(json_is_null(json_object_get(touch, "name")));
    ck_assert(!get_bool(touch, "registry"));
    json_decref(r);
    r = ctl(sim, "sim.get_pin", "{\"pin\": \"4\"}"); /* digits name a pin number */
    ck_assert_int_eq(get_int(r, "raw"), 72);
    ck_assert_str_eq(json_string_value(json_object_get(r, "unit")), "counts");
    json_decref(r);
    ck_assert_str_eq(ctl_err(sim, "sim.get_pin", "{\"pin\": 99}", FW_RPC_INVALID_PARAMS),
                     "params.pin: no pin 99 on this board");
    sim_destroy(sim);
}
END_TEST

/* ---------------------------------------------------------------- I2C */

START_TEST(tmp102_nack_fault_is_a_clear_device_error)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_t *r = fw_ok(sim, "read_temperature", "{}");
    ck_assert_double_eq_tol(json_number_value(json_object_get(r, "celsius")), 16.0, 1e-9);
    json_decref(r);
    json_t *f = ctl(sim, "sim.fault.inject", "{\"kind\": \"i2c_nack\", \"address\": \"0x48\"}");
    long long id = get_int(f, "id");
    json_decref(f);
    r = fw(sim, "read_temperature", "{}");
    json_t *err = json_object_get(r, "error");
    ck_assert_ptr_nonnull(err);
    ck_assert_int_eq(get_int(err, "code"), FW_RPC_I2C_NACK);
    ck_assert_msg(strstr(json_string_value(json_object_get(err, "message")), "0x48") != NULL, "%s",
                  cap.buf);
    json_decref(r);
    char params[64];
    snprintf(params, sizeof params, "{\"id\": %lld}", id);
    json_decref(ctl(sim, "sim.fault.clear", params));
    r = fw_ok(sim, "read_temperature", "{}");
    json_decref(r);
    ck_assert_str_eq(ctl_err(sim, "sim.fault.clear", params, FW_RPC_INVALID_PARAMS),
                     "params.id: no active fault with id 1 (see sim.faults)");
    sim_destroy(sim);
}
END_TEST

START_TEST(i2c_get_and_set_move_the_models)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_t *r = ctl(sim, "sim.i2c.set", "{\"address\": 72, \"temperature_c\": -12.5}");
    ck_assert_str_eq(json_string_value(json_object_get(r, "model")), "tmp102");
    ck_assert_str_eq(json_string_value(json_object_get(r, "name")), "air");
    json_decref(r);
    r = fw_ok(sim, "read_temperature", "{}");
    ck_assert_double_eq_tol(json_number_value(json_object_get(r, "celsius")), -12.5, 1e-9);
    ck_assert_int_eq(get_int(r, "raw"), -200);
    json_decref(r);
    r = ctl(sim, "sim.i2c.get", "{\"address\": \"0x48\", \"bus\": 0}");
    ck_assert_double_eq_tol(json_number_value(json_object_get(r, "temperature_c")), -12.5, 1e-9);
    ck_assert_int_eq(get_int(json_object_get(r, "registers"), "temperature"), 0xF380);
    json_decref(r);
    /* EEPROM: the backend writes, the firmware reads; the firmware writes, the backend reads */
    json_decref(ctl(sim, "sim.i2c.set", "{\"address\": 80, \"offset\": 100, \"bytes\": \"cafe\"}"));
    r = fw_ok(sim, "eeprom_read", "{\"offset\": 100, \"count\": 2}");
    json_t *bytes = json_object_get(r, "bytes");
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 0)), 0xCA);
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 1)), 0xFE);
    json_decref(r);
    uint64_t before = sim_now_us(sim);
    r = fw_ok(sim, "eeprom_write", "{\"offset\": 30, \"bytes\": [1, 2, 3]}");
    ck_assert_int_eq(get_int(r, "pages"), 2); /* 30..31 and 32: two page writes */
    json_decref(r);
    /* each page write waits out its 5 ms cycle on the virtual clock by acknowledge polling */
    ck_assert_uint_ge(sim_now_us(sim) - before, 10000);
    ck_assert_uint_lt(sim_now_us(sim) - before, 12000);
    r = ctl(sim, "sim.i2c.get",
            "{\"address\": 80, \"offset\": 30, \"count\": 3, "
            "\"encoding\": \"array\"}");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(r, "bytes"), 2)), 3);
    ck_assert_int_eq(get_int(r, "page_writes"), 2);
    json_decref(r);
    ck_assert_str_eq(ctl_err(sim, "sim.i2c.get", "{\"address\": 73}", FW_RPC_INVALID_PARAMS),
                     "params.address: no device at 0x49 on bus 0 (devices at address/bus: "
                     "[\"0x48/0\",\"0x50/0\"])");
    ck_assert_str_eq(ctl_err(sim, "sim.i2c.get", "{}", FW_RPC_INVALID_PARAMS),
                     "params: missing required key \"address\"");
    ck_assert_str_eq(
        ctl_err(sim, "sim.i2c.set", "{\"address\": 72, \"celsius\": 1}", FW_RPC_INVALID_PARAMS),
        "params.celsius: unknown key \"celsius\" (allowed: temperature_c, waveform, "
        "extended)");
    ck_assert_str_eq(
        ctl_err(sim, "sim.i2c.get", "{\"address\": 80, \"offset\": 5000}", FW_RPC_INVALID_PARAMS),
        "params.offset: 5000 is out of range 0..4095");
    sim_destroy(sim);
}
END_TEST

START_TEST(faults_of_every_kind)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_decref(ctl(sim, "sim.fault.inject", "{\"kind\": \"adc_fail\", \"pin\": \"soil\"}"));
    json_t *r = fw(sim, "adc_read", "{\"pin\": 36}");
    ck_assert_int_eq(get_int(json_object_get(r, "error"), "code"), FW_RPC_ADC);
    json_decref(r);
    json_decref(ctl(sim, "sim.fault.inject", "{\"kind\": \"i2c_bus_stuck\"}")); /* bus 0 */
    r = fw(sim, "i2c_scan", "{}");
    ck_assert_int_eq(get_int(json_object_get(r, "error"), "code"), FW_RPC_I2C_BUS);
    json_decref(r);
    json_t *list = ctl(sim, "sim.faults", "{}");
    ck_assert_uint_eq(json_array_size(json_object_get(list, "faults")), 2);
    json_decref(list);
    r = ctl(sim, "sim.fault.clear", "{\"all\": true}");
    ck_assert_int_eq(get_int(r, "cleared"), 2);
    json_decref(r);
    json_decref(ctl(sim, "sim.fault.inject", "{\"kind\": \"latency\", \"pin\": 36, \"us\": 700}"));
    uint64_t t0 = sim_now_us(sim);
    json_decref(fw_ok(sim, "adc_read", "{\"pin\": 36}"));
    ck_assert_uint_eq(sim_now_us(sim) - t0, 700);
    json_decref(
        ctl(sim, "sim.fault.inject", "{\"kind\": \"latency\", \"address\": 72, \"us\": 1000}"));
    t0 = sim_now_us(sim);
    json_decref(fw_ok(sim, "read_temperature", "{}")); /* two register reads */
    ck_assert_uint_eq(sim_now_us(sim) - t0, 2 * (1000 + 480));
    ck_assert_str_eq(
        ctl_err(sim, "sim.fault.inject", "{\"kind\": \"i2c_nack\"}", FW_RPC_INVALID_PARAMS),
        "params: missing required key \"address\"");
    ck_assert_str_eq(ctl_err(sim, "sim.fault.inject", "{\"kind\": \"adc_fail\", \"pin\": 25}",
                             FW_RPC_INVALID_PARAMS),
                     "params.pin: pin 25 (relay) is not an adc_input");
    ck_assert_str_eq(ctl_err(sim, "sim.fault.inject",
                             "{\"kind\": \"adc_fail\", \"pin\": 36, "
                             "\"address\": 72}",
                             FW_RPC_INVALID_PARAMS),
                     "params.address: \"address\" does not apply to this kind of fault");
    ck_assert_str_eq(
        ctl_err(sim, "sim.fault.inject", "{\"kind\": \"latency\"}", FW_RPC_INVALID_PARAMS),
        "params: missing required key \"us\"");
    ck_assert_str_eq(ctl_err(sim, "sim.fault.inject",
                             "{\"kind\": \"latency\", \"us\": 5, "
                             "\"pin\": 36, \"bus\": 0}",
                             FW_RPC_INVALID_PARAMS),
                     "params.pin: a latency fault targets a pin or I2C, not both");
    ck_assert_str_eq(ctl_err(sim, "sim.fault.inject", "{\"kind\": \"i2c_bus_stuck\", \"bus\": 1}",
                             FW_RPC_INVALID_PARAMS),
                     "params.bus: bus 1 does not exist: the board has 1 i2c bus(es)");
    ck_assert_str_eq(
        ctl_err(sim, "sim.fault.inject", "{\"kind\": \"brownout\"}", FW_RPC_INVALID_PARAMS),
        "params.kind: unknown value \"brownout\" (expected one of: i2c_nack, "
        "i2c_bus_stuck, adc_fail, latency)");
    ck_assert_str_eq(ctl_err(sim, "sim.fault.clear", "{}", FW_RPC_INVALID_PARAMS),
                     "params: give either \"id\" (one fault) or \"all\": true");
    sim_destroy(sim);
}
END_TEST

/* ---------------------------------------------------------------- snapshot, reset */

START_TEST(snapshot_holds_the_whole_board)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_decref(fw_ok(sim, "get_info", "{}"));
    json_decref(ctl(sim, "sim.fault.inject", "{\"kind\": \"i2c_nack\", \"address\": 80}"));
    json_t *s = ctl(sim, "sim.snapshot", "{}");
    ck_assert_str_eq(json_string_value(json_object_get(s, "device")), "greenhouse");
    ck_assert_str_eq(json_string_value(json_object_get(s, "mode")), "virtual");
    ck_assert_uint_eq(json_array_size(json_object_get(s, "pins")), 4);
    ck_assert_uint_eq(json_array_size(json_object_get(s, "wires")), 1);
    json_t *devs = json_object_get(json_object_get(s, "i2c"), "devices");
    ck_assert_uint_eq(json_array_size(devs), 2);
    ck_assert_int_eq(get_int(json_array_get(devs, 1), "size"), 4096);
    ck_assert_uint_eq(json_array_size(json_object_get(s, "faults")), 1);
    json_t *fwj = json_object_get(s, "firmware");
    ck_assert_int_eq(get_int(json_object_get(fwj, "counters"), "requests"), 1);
    ck_assert_int_eq(get_int(fwj, "next_deadline_ms"), 100);
    json_decref(s);
    /* the samples the firmware took, from its own rings: soil (36) every 1000 ms */
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 3500}"));
    s = ctl(sim, "sim.snapshot", "{}");
    json_t *soil = json_object_get(json_object_get(s, "samples"), "36");
    ck_assert_uint_eq(json_array_size(soil), 3);
    for (size_t k = 0; k < 3; k++) {
        json_t *smp = json_array_get(soil, k);
        ck_assert_int_eq(json_integer_value(json_array_get(smp, 0)), (json_int_t)k + 1);
        ck_assert_int_eq(json_integer_value(json_array_get(smp, 1)), 1000 * ((json_int_t)k + 1));
    }
    /* button (26) every 100 ms: 35 taken, its 16-slot ring holds the last 16 */
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(s, "samples"), "26")), 16);
    json_decref(s);
    sim_destroy(sim);
}
END_TEST

START_TEST(reset_reinitialises_the_firmware_and_keeps_the_hardware)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_decref(fw_ok(sim, "gpio_write", "{\"pin\": 25, \"value\": true}"));
    json_decref(fw_ok(sim, "pwm_write", "{\"pin\": 27, \"duty\": 99}"));
    json_decref(ctl(sim, "sim.i2c.set", "{\"address\": 80, \"offset\": 0, \"bytes\": [42]}"));
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 3000}"));
    json_t *r = ctl(sim, "sim.reset", "{}");
    ck_assert_int_eq(get_int(r, "resets"), 1);
    ck_assert_int_eq(get_int(r, "now_ms"), 3000); /* the clock runs on */
    json_decref(r);
    r = ctl(sim, "sim.get_pin", "{\"pin\": 25}");
    ck_assert(!get_bool(r, "level"));
    ck_assert_str_eq(json_string_value(json_object_get(r, "mode")), "output"); /* re-inited */
    json_decref(r);
    r = ctl(sim, "sim.get_pin", "{\"pin\": 27}");
    ck_assert(!get_bool(r, "pwm"));
    ck_assert_str_eq(json_string_value(json_object_get(r, "mode")), "input");
    json_decref(r);
    r = fw_ok(sim, "get_pin_buffer", "{\"pin\": 36}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "samples")), 0);
    json_decref(r);
    r = fw_ok(sim, "eeprom_read", "{\"offset\": 0}");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(r, "bytes"), 0)), 42);
    json_decref(r);
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 1000}"));
    r = fw_ok(sim, "get_pin_buffer", "{\"pin\": 36}");
    json_t *samples = json_object_get(r, "samples");
    ck_assert_uint_eq(json_array_size(samples), 1);
    ck_assert_int_eq(get_int(json_array_get(samples, 0), "t"), 4000);
    json_decref(r);
    /* the firmware's own reset request takes effect at the next clock step */
    sim_device(sim)->hal->reset(sim_device(sim)->hal_ctx);
    ck_assert_uint_eq(sim_next_event_us(sim), sim_now_us(sim));
    ck_assert(sim_advance(sim, 0));
    r = ctl(sim, "sim.snapshot", "{}");
    ck_assert_int_eq(get_int(r, "resets"), 2);
    json_decref(r);
    sim_destroy(sim);
}
END_TEST

/* The same board and the same calls give the same results. */
static char *scripted_run(void)
{
    sim_t *sim = boot("greenhouse", SIM_CLOCK_VIRTUAL);
    json_decref(ctl(sim, "sim.set_waveform",
                    "{\"pin\": 36, \"waveform\": {\"type\": \"noise\", "
                    "\"mean\": 1.6, \"stddev\": 0.8, \"seed\": 3}}"));
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 20000}"));
    json_decref(fw_ok(sim, "eeprom_write", "{\"offset\": 0, \"bytes\": [9, 8, 7]}"));
    json_decref(ctl(sim, "sim.advance", "{\"ms\": 777}"));
    json_t *a = fw_ok(sim, "get_pin_buffer", "{\"pin\": 36}");
    json_t *b = fw_ok(sim, "get_pin_events", "{}");
    json_t *c = ctl(sim, "sim.snapshot", "{}");
    json_t *all = json_pack("[o, o, o]", a, b, c);
    char *text = json_dumps(all, JSON_COMPACT);
    json_decref(all);
    sim_destroy(sim);
    return text;
}

START_TEST(runs_are_deterministic)
{
    char *one = scripted_run(), *two = scripted_run();
    ck_assert_str_eq(one, two);
    ck_assert_ptr_nonnull(strstr(one, "\"kind\":\"rising\"")); /* the noise crossed thresholds */
    free(one);
    free(two);
}
END_TEST

/* ---------------------------------------------------------------- the envelope */

static const char *error_of(sim_t *sim, const char *msg, int code)
{
    static char text[512];
    json_t *r = ctl_raw(sim, "%s", msg);
    ck_assert_ptr_nonnull(r);
    json_t *err = json_object_get(r, "error");
    ck_assert_msg(err != NULL, "%s did not fail", msg);
    ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), code);
    snprintf(text, sizeof text, "%s", json_string_value(json_object_get(err, "message")));
    json_decref(r);
    return text;
}

START_TEST(envelope_errors)
{
    sim_t *sim = boot("esp32-demo", SIM_CLOCK_VIRTUAL);
    ck_assert_str_eq(error_of(sim, "{\"jsonrpc\": \"2.0\", \"id\": 1", FW_RPC_PARSE_ERROR),
                     "Parse error: '}' expected near end of file (line 1, column 26)");
    ck_assert_str_eq(error_of(sim, "{\"id\": 1, \"method\": \"sim.time\"}", FW_RPC_INVALID_REQUEST),
                     "Invalid Request: jsonrpc must be \"2.0\"");
    ck_assert_str_eq(error_of(sim, "{\"jsonrpc\": \"2.0\", \"id\": 1}", FW_RPC_INVALID_REQUEST),
                     "Invalid Request: method must be a string");
    ck_assert_str_eq(error_of(sim, "{\"jsonrpc\": \"2.0\", \"id\": [1], \"method\": \"sim.time\"}",
                              FW_RPC_INVALID_REQUEST),
                     "Invalid Request: id must be a string, a number or null");
    ck_assert_str_eq(
        error_of(sim,
                 "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"sim.time\", "
                 "\"extra\": 1}",
                 FW_RPC_INVALID_REQUEST),
        "Invalid Request: unknown key \"extra\" (allowed: jsonrpc, id, method, params)");
    ck_assert_str_eq(error_of(sim, "[]", FW_RPC_INVALID_REQUEST), "Invalid Request: empty batch");
    { /* a batch limit: 64 messages run, 65 are refused whole */
        static char big[65 * 64 + 8];
        size_t n = 0;
        big[n++] = '[';
        for (int i = 0; i < 65; i++)
            n += (size_t)snprintf(big + n, sizeof big - n,
                                  "%s{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"sim.time\"}",
                                  i ? "," : "", i);
        snprintf(big + n, sizeof big - n, "]");
        char *refused = sim_control_handle(sim, big, strlen(big)); /* over ctl_raw's 2 KB */
        json_t *r = json_loads(refused, 0, NULL);
        json_t *e = json_object_get(r, "error");
        ck_assert_int_eq(json_integer_value(json_object_get(e, "code")), FW_RPC_INVALID_REQUEST);
        ck_assert_str_eq(json_string_value(json_object_get(e, "message")),
                         "Invalid Request: a batch of 65 messages (at most 64): none was run");
        json_decref(r);
        free(refused);
        char *cut = big, *next; /* the last ",{": the 65th message starts there */
        while ((next = strstr(cut + 1, ",{")) != NULL) cut = next;
        snprintf(cut, sizeof big - (size_t)(cut - big), "]");
        char *text = sim_control_handle(sim, big, strlen(big));
        json_t *answers = json_loads(text, 0, NULL);
        ck_assert_msg(json_array_size(answers) == 64, "%.300s", text);
        json_decref(answers);
        free(text);
    }
    ck_assert_str_eq(error_of(sim, "7", FW_RPC_INVALID_REQUEST),
                     "Invalid Request: a request is an object, not an integer");
    ck_assert_str_eq(error_of(sim, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"sim.tim\"}",
                              FW_RPC_METHOD_NOT_FOUND),
                     "Method not found: \"sim.tim\" (see docs/control-channel.md for the sim.* "
                     "methods)");
    ck_assert_str_eq(error_of(sim,
                              "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"sim.time\", "
                              "\"params\": [1]}",
                              FW_RPC_INVALID_PARAMS),
                     "params: must be an object of named parameters, not an array");
    /* a notification gets no answer, even when it fails */
    ck_assert_ptr_null(ctl_raw(sim, "{\"jsonrpc\": \"2.0\", \"method\": \"sim.advance\", "
                                    "\"params\": {\"ms\": 10}}"));
    ck_assert_uint_eq(sim_now_us(sim), 10000);
    ck_assert_ptr_null(ctl_raw(sim, "{\"jsonrpc\": \"2.0\", \"method\": \"sim.nope\"}"));
    /* a batch answers its requests in order */
    json_t *r = ctl_raw(sim, "[{\"jsonrpc\": \"2.0\", \"id\": \"a\", \"method\": \"sim.time\"},"
                             "{\"jsonrpc\": \"2.0\", \"method\": \"sim.time\"},"
                             "{\"jsonrpc\": \"2.0\", \"id\": null, \"method\": \"sim.nope\"}]");
    ck_assert_uint_eq(json_array_size(r), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(r, 0), "id")), "a");
    ck_assert(json_is_null(json_object_get(json_array_get(r, 1), "id")));
    ck_assert_int_eq(get_int(json_object_get(json_array_get(r, 1), "error"), "code"),
                     FW_RPC_METHOD_NOT_FOUND);
    json_decref(r);
    r = ctl_raw(sim, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"sim.get_pin\", "
                     "\"params\": {\"pin\": 2}}");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "result"), "name")),
                     "led");
    json_decref(r);
    r = ctl_raw(sim, "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"sim.get_pin\", "
                     "\"params\": {\"pin\": 77}}");
    json_t *data = json_object_get(json_object_get(r, "error"), "data");
    ck_assert_str_eq(json_string_value(json_object_get(data, "path")), "params.pin");
    json_decref(r);
    sim_destroy(sim);
}
END_TEST

static Suite *control_suite(void)
{
    Suite *s = suite_create("control");
    TCase *clock = tcase_create("clock");
    tcase_add_test(clock, advance_5s_gives_exactly_10_samples);
    tcase_add_test(clock, time_and_advance_errors);
    tcase_add_test(clock, runs_are_deterministic);
    suite_add_tcase(s, clock);
    TCase *pins = tcase_create("pins");
    tcase_add_test(pins, set_input_is_read_by_gpio_read);
    tcase_add_test(pins, a_wire_carries_the_output_to_the_input);
    tcase_add_test(pins, pwm_wired_to_adc_reads_the_mean_voltage);
    tcase_add_test(pins, waveforms_and_analog_values);
    tcase_add_test(pins, read_outputs_lists_every_pin);
    suite_add_tcase(s, pins);
    TCase *i2c = tcase_create("i2c");
    tcase_add_test(i2c, tmp102_nack_fault_is_a_clear_device_error);
    tcase_add_test(i2c, i2c_get_and_set_move_the_models);
    tcase_add_test(i2c, faults_of_every_kind);
    suite_add_tcase(s, i2c);
    TCase *whole = tcase_create("board");
    tcase_add_test(whole, snapshot_holds_the_whole_board);
    tcase_add_test(whole, reset_reinitialises_the_firmware_and_keeps_the_hardware);
    tcase_add_test(whole, envelope_errors);
    suite_add_tcase(s, whole);
    return s;
}

TEST_MAIN(control_suite)
