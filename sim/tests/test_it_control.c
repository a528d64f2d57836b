/* test_it_control.c: integration: the control channel moves the simulated world and the device
   sees it over its own transports (virtual clock, inputs, wires, I2C faults). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"

static it_proc_t proc;
static it_conn_t *dev; /* the device's TCP transport */
static it_conn_t *ctl; /* the control channel */

static void start(const char *board)
{
    it_start_board(&proc, board);
    dev = it_tcp_connect(proc.tcp_port);
    ctl = it_tcp_connect(proc.control_port);
}

static void stop(void)
{
    it_conn_close(dev);
    it_conn_close(ctl);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}

/* A control call that must succeed; returns the reply (result checked). */
static json_t *control(int id, const char *method, const char *params)
{
    json_t *r = it_call(ctl, id, method, params);
    it_result(r);
    return r;
}

static json_t *samples_of(json_t *reply)
{
    return json_object_get(it_result(reply), "samples");
}

START_TEST(advancing_the_virtual_clock_5s_gives_exactly_10_samples)
{
    start("esp32-demo");
    json_t *r = it_call(dev, 1, "get_pin_buffer", "{\"pin\":34}");
    ck_assert_uint_eq(json_array_size(samples_of(r)), 0);
    json_decref(r);
    usleep(700 * 1000); /* wall time passes; virtual time does not */
    r = it_call(dev, 2, "get_pin_buffer", "{\"pin\":34}");
    ck_assert_uint_eq(json_array_size(samples_of(r)), 0);
    json_decref(r);

    json_decref(control(1, "sim.advance", "{\"ms\":5000}"));
    r = it_call(dev, 3, "get_pin_buffer", "{\"pin\":34}");
    json_t *samples = samples_of(r);
    ck_assert_uint_eq(json_array_size(samples), 10);
    for (size_t i = 0; i < 10; i++) { /* every tick at its exact instant */
        json_t *s = json_array_get(samples, i);
        ck_assert_int_eq(json_integer_value(json_object_get(s, "t")), 500 * (json_int_t)(i + 1));
        ck_assert_int_eq(json_integer_value(json_object_get(s, "seq")), (json_int_t)(i + 1));
    }
    json_decref(r);
    stop();
}
END_TEST

START_TEST(set_input_is_seen_by_gpio_read)
{
    start("uno");
    json_decref(control(1, "sim.set_input", "{\"pin\":2,\"level\":false}"));
    json_t *r = it_call(dev, 1, "gpio_read", "{\"pin\":2}");
    ck_assert(json_is_false(json_object_get(it_result(r), "value")));
    json_decref(r);
    json_decref(control(2, "sim.set_input", "{\"pin\":\"button\",\"level\":true}"));
    r = it_call(dev, 2, "gpio_read", "{\"pin\":2}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    stop();
}
END_TEST

START_TEST(a_wired_relay_drives_its_input_and_the_input_cannot_be_forced)
{
    start("greenhouse");
    for (int level = 1; level >= 0; level--) {
        char params[64];
        snprintf(params, sizeof params, "{\"pin\":25,\"value\":%s}", level ? "true" : "false");
        json_decref(it_call(dev, 10 + level, "gpio_write", params));
        json_t *r = it_call(dev, 20 + level, "gpio_read", "{\"pin\":26}");
        ck_assert(json_is_true(json_object_get(it_result(r), "value")) == (level == 1));
        json_decref(r);
    }
    json_t *r = it_call(ctl, 3, "sim.set_input", "{\"pin\":26,\"level\":true}");
    ck_assert_int_eq(it_error_code(r), FW_RPC_INVALID_PARAMS);
    const char *msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
    ck_assert_msg(msg && strstr(msg, "wire"), "message: %s", msg);
    json_decref(r);
    stop();
}
END_TEST

START_TEST(a_tmp102_that_does_not_acknowledge_gives_a_clear_device_error)
{
    start("greenhouse");
    json_t *r = it_call(dev, 1, "read_temperature", NULL);
    double c = json_number_value(json_object_get(it_result(r), "celsius"));
    ck_assert(c > 10.0 && c < 35.0);
    json_decref(r);

    r = control(1, "sim.fault.inject", "{\"kind\":\"i2c_nack\",\"address\":\"0x48\"}");
    json_int_t id = json_integer_value(json_object_get(it_result(r), "id"));
    json_decref(r);
    r = it_call(dev, 2, "read_temperature", NULL);
    ck_assert_int_eq(it_error_code(r), FW_RPC_I2C_NACK);
    const char *msg = json_string_value(json_object_get(json_object_get(r, "error"), "message"));
    ck_assert_msg(msg && strstr(msg, "0x48"), "message does not name 0x48: %s", msg);
    json_decref(r);

    char params[32];
    snprintf(params, sizeof params, "{\"id\":%lld}", (long long)id);
    json_decref(control(2, "sim.fault.clear", params));
    r = it_call(dev, 3, "read_temperature", NULL);
    it_result(r);
    json_decref(r);
    stop();
}
END_TEST

START_TEST(the_control_channel_frames_lines_like_the_device)
{
    start("esp32-demo");
    json_t *r = it_rpc(ctl, "garbage");
    ck_assert_int_eq(it_error_code(r), FW_RPC_PARSE_ERROR);
    json_decref(r);
    /* Blank lines and a notification get no reply; two messages in one write get two; a
       message split across writes is one message. */
    it_send(ctl, "\n  \r\n{\"jsonrpc\":\"2.0\",\"method\":\"sim.time\"}\n"
                 "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sim.time\"}\r\n"
                 "{\"jsonrpc\":\"2.0\",\"id\":8,");
    usleep(50 * 1000);
    it_send(ctl, "\"method\":\"sim.time\"}\n");
    for (int id = 7; id <= 8; id++) {
        char *line = it_read_line(ctl, IT_TIMEOUT);
        ck_assert_ptr_nonnull(line);
        r = json_loads(line, 0, NULL);
        ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), id);
        json_decref(r);
        free(line);
    }
    stop();
}
END_TEST

START_TEST(an_overlong_control_line_is_refused_and_the_channel_goes_on)
{
    start("esp32-demo");
    size_t n = (1u << 20) + 100;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    memcpy(big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.time\",\"x\":\"", 48);
    big[n - 2] = '"';
    big[n - 1] = '}';
    big[n] = 0;
    json_t *r = it_rpc(ctl, big);
    ck_assert_int_eq(it_error_code(r), FW_RPC_INVALID_REQUEST);
    json_decref(r);
    free(big);
    json_decref(control(2, "sim.time", NULL));
    stop();
}
END_TEST

/* Replies still queued when a client ends its input are all delivered before the close: 10 MB
   of snapshots is more than the kernel's socket buffers hold, less than the control limit. */
START_TEST(a_control_client_that_stops_sending_gets_every_reply)
{
    enum { N = 1000 };
    start("greenhouse");
    char req[96];
    for (int i = 1; i <= N; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"sim.snapshot\"}\n",
                 i);
        it_send(ctl, req);
    }
    shutdown(ctl->fd, SHUT_WR);
    usleep(300 * 1000);
    for (int i = 1; i <= N; i++) {
        char *line = it_read_line(ctl, IT_TIMEOUT);
        ck_assert_msg(line != NULL, "reply %d of %d missing", i, N);
        ck_assert_msg(strstr(line, "\"result\"") != NULL, "reply %d: %.200s", i, line);
        free(line);
    }
    ck_assert(it_wait_closed(ctl, IT_TIMEOUT));
    stop();
}
END_TEST

START_TEST(advance_is_refused_on_the_realtime_clock)
{
    const char *args[] = {"--board", "esp32-demo", "--control", "0", NULL};
    ck_assert(it_start(&proc, args));
    ctl = it_tcp_connect(proc.control_port);
    json_t *r = it_call(ctl, 1, "sim.advance", "{\"ms\":1000}");
    ck_assert_int_eq(it_error_code(r), FW_RPC_SIM_STATE);
    json_decref(r);
    it_conn_close(ctl);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}
END_TEST

static Suite *it_control_suite(void)
{
    Suite *s = suite_create("it_control");
    TCase *tc = tcase_create("control");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, advancing_the_virtual_clock_5s_gives_exactly_10_samples);
    tcase_add_test(tc, set_input_is_seen_by_gpio_read);
    tcase_add_test(tc, a_wired_relay_drives_its_input_and_the_input_cannot_be_forced);
    tcase_add_test(tc, a_tmp102_that_does_not_acknowledge_gives_a_clear_device_error);
    tcase_add_test(tc, the_control_channel_frames_lines_like_the_device);
    tcase_add_test(tc, an_overlong_control_line_is_refused_and_the_channel_goes_on);
    tcase_add_test(tc, a_control_client_that_stops_sending_gets_every_reply);
    tcase_add_test(tc, advance_is_refused_on_the_realtime_clock);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_control_suite)
