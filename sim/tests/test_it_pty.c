/* test_it_pty.c: integration: the device's UART on a pty, opened like a serial port at 115200. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "it_util.h"
#include "test_util.h"

static bool has_tool(json_t *tools, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) if (strcmp(json_string_value(json_object_get(t, "name")),
                                               name) == 0) return true;
    return false;
}

static void check_get_info(it_conn_t *c, int id)
{
    json_t *r = it_call(c, id, "get_info", NULL);
    json_t *res = it_result(r);
    ck_assert_str_eq(json_string_value(json_object_get(res, "device")), "esp32-demo");
    ck_assert_int_eq(json_integer_value(json_object_get(res, "pin_count")), 3);
    json_decref(r);
}

START_TEST(pty_answers_get_info_and_list_tools)
{
    it_proc_t p;
    it_start_board(&p, "esp32-demo");
    ck_assert_msg(strncmp(p.uart, "/dev/pts/", 9) == 0, "uart line: '%s'", p.uart);
    it_conn_t *c = it_serial_open(p.uart);
    check_get_info(c, 1);

    json_t *r = it_call(c, 2, "list_tools", NULL);
    json_t *res = it_result(r);
    json_t *tools = json_object_get(res, "tools");
    ck_assert(has_tool(tools, "gpio_write"));
    ck_assert(has_tool(tools, "adc_read"));
    ck_assert(has_tool(tools, "get_pin_buffer"));
    json_t *pins = json_object_get(res, "pins");
    ck_assert_uint_eq(json_array_size(pins), 3);
    json_decref(r);

    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(pty_serves_the_greenhouse_and_its_i2c_sensor)
{
    it_proc_t p;
    it_start_board(&p, "greenhouse");
    it_conn_t *c = it_serial_open(p.uart);
    json_t *r = it_call(c, 1, "get_info", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "device")), "greenhouse");
    json_decref(r);
    r = it_call(c, 2, "read_temperature", "{\"unit\":\"C\"}");
    ck_assert_int_eq(json_integer_value(json_object_get(it_result(r), "address")), 0x48);
    json_decref(r);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(pty_can_be_closed_and_reopened)
{
    it_proc_t p;
    it_start_board(&p, "esp32-demo");
    for (int round = 0; round < 3; round++) {
        it_conn_t *c = it_serial_open(p.uart);
        check_get_info(c, 10 + round);
        it_conn_close(c);
    }
    /* With no client on the pty, the simulator idles (no hang-up it would spin on). */
    double cpu0 = it_cpu_seconds(&p);
    usleep(500 * 1000);
    double busy = it_cpu_seconds(&p) - cpu0;
    ck_assert_msg(busy < 0.1, "%.2f s of CPU in 0.5 s without a client", busy);
    /* A client that leaves without reading its reply does not break the next one. */
    it_conn_t *c = it_serial_open(p.uart);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"list_tools\"}\n");
    it_conn_close(c);
    c = it_serial_open(p.uart);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"get_info\"}\n");
    bool answered = false;
    for (char *line; !answered && (line = it_read_line(c, IT_TIMEOUT)) != NULL; free(line))
        answered = strstr(line, "\"id\":20") != NULL; /* skips a stale reply to 99, if any */
    ck_assert_msg(answered, "no reply to id 20 after reopening");
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

/* Far more reply bytes than the pty holds, while the client is not reading: none is lost. */
START_TEST(pty_keeps_every_reply_while_the_client_is_slow)
{
    enum { N = 60 };
    it_proc_t p;
    it_start_board(&p, "esp32-demo");
    it_conn_t *c = it_serial_open(p.uart);
    char req[128];
    for (int i = 0; i < N; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"list_tools\"}\n",
                 i + 1);
        it_send(c, req);
    }
    usleep(300 * 1000);
    size_t bytes = 0;
    for (int i = 0; i < N; i++) {
        char *line = it_read_line(c, IT_TIMEOUT);
        ck_assert_msg(line != NULL, "reply %d of %d missing", i + 1, N);
        bytes += strlen(line) + 1;
        json_t *reply = json_loads(line, 0, NULL);
        ck_assert_msg(reply != NULL, "reply %d is not JSON (bytes lost?)", i + 1);
        ck_assert_int_eq(json_integer_value(json_object_get(reply, "id")), i + 1);
        json_decref(reply);
        free(line);
    }
    ck_assert_uint_gt(bytes, 64 * 1024); /* more than the simulator lets pile up */
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(pty_link_points_at_the_pty_and_goes_away_at_exit)
{
    char link[128];
    snprintf(link, sizeof link, "/tmp/mcpsim-it-link-%ld", (long)getpid());
    FILE *old = fopen(link, "w"); /* something already there is replaced */
    ck_assert_ptr_nonnull(old);
    fclose(old);
    const char *args[] = {"--board", "esp32-demo", "--pty-link", link, "--clock", "virtual", NULL};
    it_proc_t p;
    ck_assert(it_start(&p, args));
    ck_assert_str_eq(p.uart_link, link);
    char target[128];
    ssize_t n = readlink(link, target, sizeof target - 1);
    ck_assert_int_gt(n, 0);
    target[n] = 0;
    ck_assert_str_eq(target, p.uart);

    it_conn_t *c = it_serial_open(link);
    check_get_info(c, 1);
    it_conn_close(c);

    double seconds;
    ck_assert_int_eq(it_stop(&p, SIGTERM, &seconds), 0);
    ck_assert_msg(seconds < 1.0, "exit took %.2f s", seconds);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), -1);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

static Suite *it_pty_suite(void)
{
    Suite *s = suite_create("it_pty");
    TCase *tc = tcase_create("pty");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, pty_answers_get_info_and_list_tools);
    tcase_add_test(tc, pty_serves_the_greenhouse_and_its_i2c_sensor);
    tcase_add_test(tc, pty_can_be_closed_and_reopened);
    tcase_add_test(tc, pty_keeps_every_reply_while_the_client_is_slow);
    tcase_add_test(tc, pty_link_points_at_the_pty_and_goes_away_at_exit);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_pty_suite)
