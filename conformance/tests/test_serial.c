/* test_serial.c: the serial target against a pty pair: raw 8N1, lines, boot noise, baud errors. */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 600
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "ctest_util.h"
#include "target.h"

static int master = -1;
static char slave_path[128];

static void setup(void)
{
    master = posix_openpt(O_RDWR | O_NOCTTY);
    ck_assert_int_ge(master, 0);
    ck_assert_int_eq(grantpt(master), 0);
    ck_assert_int_eq(unlockpt(master), 0);
    const char *name = ptsname(master);
    ck_assert_ptr_nonnull(name);
    conf_copy(slave_path, sizeof slave_path, name);
    struct termios t;
    tcgetattr(master, &t);
    cfmakeraw(&t);
    tcsetattr(master, TCSANOW, &t);
}

static void teardown(void)
{
    close(master);
}

static conf_target_t *open_serial(const char *query)
{
    char spec[256], err[256];
    int rc;
    snprintf(spec, sizeof spec, "serial:%s%s", slave_path, query);
    conf_target_t *t = conf_target_open(spec, NULL, &rc, err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    return t;
}

START_TEST(configured_raw_8n1)
{
    conf_target_t *t = open_serial("?baud=115200");
    ck_assert_str_eq(t->transport, "serial");
    ck_assert(t->stream);
    int fd = open(slave_path, O_RDWR | O_NOCTTY);
    struct termios tio;
    ck_assert_int_eq(tcgetattr(fd, &tio), 0);
    ck_assert_uint_eq(tio.c_cflag & CSIZE, CS8);
    ck_assert_uint_eq(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0);
    ck_assert_uint_eq(tio.c_lflag & (ICANON | ECHO), 0);
    ck_assert_uint_eq(cfgetospeed(&tio), B115200);
    close(fd);
    conf_target_close(t);
}
END_TEST

START_TEST(messages_both_ways)
{
    conf_target_t *t = open_serial("");
    char err[256], buf[64] = {0};
    ck_assert_int_eq(t->ops->send(t, "{\"id\":1}", 8, err, sizeof err), 0);
    ck_assert_int_eq(read(master, buf, sizeof buf - 1), 9);
    ck_assert_str_eq(buf, "{\"id\":1}\n");
    ck_assert_int_eq(write(master, "{\"id\":", 6), 6);
    char *msg;
    size_t len;
    ck_assert_int_eq(t->ops->receive(t, conf_now_ms() + 30, &msg, &len, err, sizeof err), 0);
    ck_assert_int_eq(write(master, "1}\r\n{\"id\":2}\n", 13), 13);
    ck_assert_int_eq(t->ops->receive(t, conf_now_ms() + 500, &msg, &len, err, sizeof err), 1);
    ck_assert_str_eq(msg, "{\"id\":1}");
    free(msg);
    ck_assert_int_eq(t->ops->receive(t, conf_now_ms() + 500, &msg, &len, err, sizeof err), 1);
    ck_assert_str_eq(msg, "{\"id\":2}");
    free(msg);
    conf_target_close(t);
}
END_TEST

START_TEST(boot_noise_is_noted_not_returned)
{
    conf_target_t *t = open_serial("");
    const char *boot =
        "ets Jun  8 2016 00:22:57\r\nrst:0x1 (POWERON_RESET)\r\n{\"id\":1}\nnot json\n";
    ck_assert_int_eq(write(master, boot, strlen(boot)), (ssize_t)strlen(boot));
    char err[256], *msg;
    size_t len;
    ck_assert_int_eq(t->ops->receive(t, conf_now_ms() + 500, &msg, &len, err, sizeof err), 1);
    ck_assert_str_eq(msg, "{\"id\":1}");
    free(msg);
    ck_assert_str_eq(conf_buf_str(&t->notes), "boot noise: ets Jun  8 2016 00:22:57\n"
                                              "boot noise: rst:0x1 (POWERON_RESET)\n");
    /* after the first JSON line, garbage is the device's answer, not noise */
    ck_assert_int_eq(t->ops->receive(t, conf_now_ms() + 500, &msg, &len, err, sizeof err), 1);
    ck_assert_str_eq(msg, "not json");
    free(msg);
    conf_target_close(t);
}
END_TEST

START_TEST(bad_specs_refused)
{
    char err[256];
    int rc;
    char spec[256];
    snprintf(spec, sizeof spec, "serial:%s?baud=12345", slave_path);
    ck_assert_ptr_null(conf_target_open(spec, NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, CONF_EXIT_USAGE);
    ck_assert_str_eq(err, "unsupported baud rate 12345 (9600 .. 921600)");
    ck_assert_ptr_null(conf_target_open("serial:/dev/nonexistent-tty", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, CONF_EXIT_UNREACHABLE);
    ck_assert_ptr_null(conf_target_open("bogus:x", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, CONF_EXIT_USAGE);
    ck_assert_ptr_null(conf_target_open("tcp:nohostport", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, CONF_EXIT_USAGE);
}
END_TEST

START_TEST(query_parsing)
{
    char v[16];
    ck_assert(conf_query_get("?baud=9600&dtr=1", "dtr", v, sizeof v));
    ck_assert_str_eq(v, "1");
    ck_assert(conf_query_get("?baud=9600&dtr=1", "baud", v, sizeof v));
    ck_assert_str_eq(v, "9600");
    ck_assert(!conf_query_get("?baudx=1", "baud", v, sizeof v));
    ck_assert(!conf_query_get("", "baud", v, sizeof v));
}
END_TEST

static Suite *serial_suite(void)
{
    Suite *s = suite_create("serial");
    TCase *tc = tcase_create("serial");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, configured_raw_8n1);
    tcase_add_test(tc, messages_both_ways);
    tcase_add_test(tc, boot_noise_is_noted_not_returned);
    tcase_add_test(tc, bad_specs_refused);
    tcase_add_test(tc, query_parsing);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(serial_suite)
