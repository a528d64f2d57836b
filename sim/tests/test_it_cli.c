/* test_it_cli.c: integration: mcpsim's command line, board lookup, start-up errors, signals,
   and the real-time clock. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "it_util.h"
#include "test_util.h"

/* Runs mcpsim expecting it to exit by itself; returns the exit code, stderr in *err. */
static int run_failing(const char *const *args, char **err)
{
    it_proc_t p;
    ck_assert_msg(!it_start(&p, args), "mcpsim started although it should not");
    *err = it_stderr(&p);
    it_stop(&p, SIGTERM, NULL);
    return p.status;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(a_bad_board_file_exits_2_naming_file_line_and_column)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mcpsim-it-bad-%ld.json", (long)getpid());
    write_file(path, "{\n  \"device\": \"broken\",\n  \"pins\": [ 1, ]\n}\n");
    const char *args[] = {"--board", path, "--tcp", "0", NULL};
    char *err;
    ck_assert_int_eq(run_failing(args, &err), 2);
    char want[96];
    snprintf(want, sizeof want, "%s:3:", path);
    const char *at = strstr(err, want);
    ck_assert_msg(at != NULL, "no '%s' in stderr: %s", want, err);
    at += strlen(want);
    ck_assert_msg(*at >= '0' && *at <= '9', "no column after '%s' in: %s", want, err);
    while (*at >= '0' && *at <= '9') at++;
    ck_assert_msg(at[0] == ':' && at[1] == ' ' && at[2] != '\n', "no message in: %s", err);
    free(err);
    unlink(path);
}
END_TEST

START_TEST(an_unknown_board_name_exits_2_and_says_where_it_looked)
{
    const char *args[] = {"--board", "no-such-board", "--tcp", "0", NULL};
    char *err;
    ck_assert_int_eq(run_failing(args, &err), 2);
    ck_assert_msg(strstr(err, "no-such-board.json") && strstr(err, "sim/boards"), "got: %s", err);
    free(err);
}
END_TEST

START_TEST(usage_errors_exit_2_with_a_message)
{
    static const char *const cases[][7] = {
        {"--board", "esp32-demo", "--tcp", "99999", NULL},
        {"--board", "esp32-demo", "--tcp", NULL},
        {"--board", "esp32-demo", "--clock", "fast", "--tcp", "0"},
        {"--board", "esp32-demo", "--frobnicate", NULL},
        {"--tcp", "0", NULL},
        {"--board", "esp32-demo", NULL},
    };
    static const char *const expect[] = {"port",         "needs a value", "--clock",
                                         "--frobnicate", "--board",       "nothing to serve"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        ck_assert_int_eq(run_failing(cases[i], &err), 2);
        ck_assert_msg(strstr(err, expect[i]) != NULL, "case %zu: no '%s' in: %s", i, expect[i],
                      err);
        free(err);
    }
}
END_TEST

/* Runs mcpsim with one flag that prints and exits 0; returns its stdout. */
static char *run_printing(const char *flag)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s", it_bin(), flag);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    char *out = calloc(1, 65536);
    size_t n = fread(out, 1, 65535, f);
    out[n] = 0;
    ck_assert_int_eq(pclose(f), 0);
    return out;
}

START_TEST(help_documents_every_flag_with_an_example)
{
    char *out = run_printing("--help");
    static const char *const flags[] = {"--board",   "--pty",   "--pty-link",  "--tcp",
                                        "--control", "--clock", "--log-level", "--help",
                                        "--version", "e.g.",    "Example"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        ck_assert_msg(strstr(out, flags[i]) != NULL, "--help lacks %s", flags[i]);
    free(out);
    out = run_printing("--version");
    ck_assert_msg(strncmp(out, "mcpsim ", 7) == 0, "--version: %s", out);
    free(out);
}
END_TEST

START_TEST(boards_are_found_through_MCPSIM_BOARDS)
{
    char dir[64], src[512], dst[128];
    snprintf(dir, sizeof dir, "/tmp/mcpsim-it-boards-%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(src, sizeof src, "cp %s/sim/boards/esp32-demo.json %s/from-env.json",
             MCPSIM_SOURCE_DIR, dir);
    ck_assert_int_eq(system(src), 0);
    setenv("MCPSIM_BOARDS", dir, 1);
    const char *args[] = {"--board", "from-env", "--tcp", "0", NULL};
    it_proc_t p;
    ck_assert(it_start(&p, args));
    it_conn_t *c = it_tcp_connect(p.tcp_port);
    json_t *r = it_call(c, 1, "get_info", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "device")), "esp32-demo");
    json_decref(r);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGINT, NULL), 0);
    snprintf(dst, sizeof dst, "%s/from-env.json", dir);
    unlink(dst);
    rmdir(dir);
}
END_TEST

START_TEST(a_port_in_use_exits_1)
{
    const char *args1[] = {"--board", "esp32-demo", "--tcp", "0", NULL};
    it_proc_t first;
    ck_assert(it_start(&first, args1));
    char port[16];
    snprintf(port, sizeof port, "%d", first.tcp_port);
    const char *args2[] = {"--board", "esp32-demo", "--tcp", port, NULL};
    char *err;
    ck_assert_int_eq(run_failing(args2, &err), 1);
    ck_assert_msg(strstr(err, "cannot listen") != NULL, "got: %s", err);
    free(err);
    ck_assert_int_eq(it_stop(&first, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(sigterm_and_sigint_exit_0_within_a_second)
{
    static const int sigs[] = {SIGTERM, SIGINT};
    for (int i = 0; i < 2; i++) {
        it_proc_t p;
        it_start_board(&p, "esp32-demo");
        it_conn_t *tcp = it_tcp_connect(p.tcp_port);
        it_conn_t *ctl = it_tcp_connect(p.control_port);
        it_conn_t *uart = it_serial_open(p.uart);
        it_send(tcp, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_"); /* half a request */
        usleep(50 * 1000);
        double seconds;
        ck_assert_int_eq(it_stop(&p, sigs[i], &seconds), 0);
        ck_assert_msg(seconds < 1.0, "exit took %.2f s", seconds);
        ck_assert(it_wait_closed(tcp, IT_TIMEOUT)); /* the clients see the end */
        it_conn_close(tcp);
        it_conn_close(ctl);
        it_conn_close(uart);
    }
}
END_TEST

/* --clock realtime: the 500 ms sensor is sampled as time passes, with no control call. */
START_TEST(the_realtime_clock_follows_the_wall_clock)
{
    const char *args[] = {"--board", "esp32-demo", "--tcp", "0", NULL};
    it_proc_t p;
    ck_assert(it_start(&p, args));
    double t0 = it_now();
    usleep(1300 * 1000);
    it_conn_t *c = it_tcp_connect(p.tcp_port);
    json_t *r = it_call(c, 1, "get_pin_buffer", "{\"pin\":34}");
    double elapsed = it_now() - t0;
    size_t n = json_array_size(json_object_get(it_result(r), "samples"));
    ck_assert_msg(n >= 2 && (double)n <= elapsed / 0.5 + 1, "%zu samples after %.2f s", n, elapsed);
    json_decref(r);
    it_conn_close(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
}
END_TEST

static Suite *it_cli_suite(void)
{
    Suite *s = suite_create("it_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_bad_board_file_exits_2_naming_file_line_and_column);
    tcase_add_test(tc, an_unknown_board_name_exits_2_and_says_where_it_looked);
    tcase_add_test(tc, usage_errors_exit_2_with_a_message);
    tcase_add_test(tc, help_documents_every_flag_with_an_example);
    tcase_add_test(tc, boards_are_found_through_MCPSIM_BOARDS);
    tcase_add_test(tc, a_port_in_use_exits_1);
    tcase_add_test(tc, sigterm_and_sigint_exit_0_within_a_second);
    tcase_add_test(tc, the_realtime_clock_follows_the_wall_clock);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_cli_suite)
