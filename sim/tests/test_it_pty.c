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

/* board with its pty reset on open as its board file says (it_start_board turns it off). */
static void start_resetting(it_proc_t *p, const char *board)
{
    const char *args[] = {"--board", board, "--pty", "--tcp", "0", "--clock", "virtual", NULL};
    ck_assert_msg(it_start(p, args), "mcpsim --board %s did not start", board);
}

/* The esp32-demo board file's uart.boot_banner (the ESP32's ROM prints it after a reset). */
#define ESP32_BANNER "ets Jun  8 2016 00:22:57\r"

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
    start_resetting(&p, "esp32-demo");
    it_conn_t *c = it_serial_open_keep(p.uart);
    /* the esp32-demo resets when its port opens: its boot banner comes first */
    char *banner = it_read_line(c, IT_TIMEOUT);
    ck_assert_str_eq(banner, ESP32_BANNER);
    free(banner);
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

/* The led's level read over TCP (1 or 0). */
static int led_level(it_conn_t *tcp, int id)
{
    json_t *r = it_call(tcp, id, "gpio_read", "{\"pin\":2}");
    int level = json_is_true(json_object_get(it_result(r), "value"));
    json_decref(r);
    return level;
}

/* A client that left half a request must not spoil the next client's first one: the port
   starts empty on every open, with or without the reset (USB-serial boards behave so). */
static void check_half_line_is_dropped(const char *board, const char *reset)
{
    const char *args[] = {"--board", board, "--pty", "--pty-reset-on-open", reset,
                          "--clock", "virtual", NULL};
    it_proc_t p;
    ck_assert(it_start(&p, args));
    it_conn_t *c = it_serial_open(p.uart);
    json_decref(it_call(c, 1, "get_info", NULL));
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"gpio_wr"); /* and leaves */
    usleep(100 * 1000); /* the device has read the half line before the next open */
    it_conn_close(c);
    c = it_serial_open(p.uart);
    json_t *r = it_call(c, 42, "get_info", NULL); /* skips the banner, not a parse error */
    ck_assert_ptr_null(json_object_get(r, "error"));
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "device")), board);
    json_decref(r);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}

START_TEST(pty_open_drops_a_half_line_left_by_the_previous_client)
{
    check_half_line_is_dropped("esp32-demo", "off");
    check_half_line_is_dropped("esp32-demo", "on");
    check_half_line_is_dropped("greenhouse", "off");
}
END_TEST

/* esp32-demo resets on open by default (its board file): the banner is the first line and the
   device has rebooted (the led written over TCP before is back at its reset level). */
START_TEST(pty_open_resets_the_esp32_demo_and_prints_its_banner)
{
    it_proc_t p;
    start_resetting(&p, "esp32-demo");
    it_conn_t *tcp = it_tcp_connect(p.tcp_port);
    json_decref(it_call(tcp, 1, "gpio_write", "{\"pin\":2,\"value\":true}"));
    ck_assert_int_eq(led_level(tcp, 2), 1);
    it_conn_t *c = it_serial_open_keep(p.uart);
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(line);
    ck_assert_str_eq(line, ESP32_BANNER);
    free(line);
    check_get_info(c, 3);
    ck_assert_int_eq(led_level(tcp, 4), 0); /* rebooted */
    it_conn_close(c);
    /* off: no reboot, no banner: the first line is the answer */
    json_decref(it_call(tcp, 5, "gpio_write", "{\"pin\":2,\"value\":true}"));
    it_conn_close(tcp);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
    const char *args[] = {"--board", "esp32-demo", "--pty", "--pty-reset-on-open", "off",
                          "--tcp", "0", "--clock", "virtual", NULL};
    ck_assert(it_start(&p, args));
    tcp = it_tcp_connect(p.tcp_port);
    json_decref(it_call(tcp, 1, "gpio_write", "{\"pin\":2,\"value\":true}"));
    c = it_serial_open_keep(p.uart);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_info\"}\n");
    line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(line, "\"id\":2"));
    free(line);
    ck_assert_int_eq(led_level(tcp, 3), 1); /* not rebooted */
    it_conn_close(c);
    it_conn_close(tcp);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

/* The uno resets on open too (DTR), and its bootloader prints nothing: the answer comes first. */
START_TEST(pty_open_resets_the_uno_silently)
{
    it_proc_t p;
    start_resetting(&p, "uno");
    it_conn_t *tcp = it_tcp_connect(p.tcp_port);
    json_decref(it_call(tcp, 1, "gpio_write", "{\"pin\":13,\"value\":true}"));
    it_conn_t *c = it_serial_open_keep(p.uart);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_info\"}\n");
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(strstr(line, "\"id\":2"));
    free(line);
    json_t *r = it_call(tcp, 3, "gpio_read", "{\"pin\":13}");
    ck_assert(json_is_false(json_object_get(it_result(r), "value")));
    json_decref(r);
    it_conn_close(c);
    it_conn_close(tcp);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
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
    tcase_add_test(tc, pty_open_drops_a_half_line_left_by_the_previous_client);
    tcase_add_test(tc, pty_open_resets_the_esp32_demo_and_prints_its_banner);
    tcase_add_test(tc, pty_open_resets_the_uno_silently);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_pty_suite)
