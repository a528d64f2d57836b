/* test_host_cli.c: unit tests of mcpsim's command line: flags, [HOST:]PORT and board lookup. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bridge.h"
#include "cli.h"
#include "log.h"
#include "test_util.h"

static host_options_t o;
static char err[256];

/* Parses a NULL-terminated list of arguments (argv[0] added). */
static int parse(const char *const *args)
{
    char *argv[32] = {"mcpsim"};
    int argc = 1;
    while (args[argc - 1]) argv[argc] = (char *)args[argc - 1], argc++;
    err[0] = 0;
    return host_cli_parse(argc, argv, &o, err, sizeof err);
}

START_TEST(endpoint_port_only_binds_loopback)
{
    host_endpoint_t ep;
    ck_assert_int_eq(host_endpoint_parse("7000", &ep, err, sizeof err), 0);
    ck_assert(ep.enabled);
    ck_assert_str_eq(ep.host, "127.0.0.1");
    ck_assert_uint_eq(ep.port, 7000);
    ck_assert_int_eq(host_endpoint_parse("0", &ep, err, sizeof err), 0);
    ck_assert_uint_eq(ep.port, 0);
}
END_TEST

START_TEST(endpoint_with_host_and_ipv6)
{
    host_endpoint_t ep;
    ck_assert_int_eq(host_endpoint_parse("0.0.0.0:65535", &ep, err, sizeof err), 0);
    ck_assert_str_eq(ep.host, "0.0.0.0");
    ck_assert_uint_eq(ep.port, 65535);
    ck_assert_int_eq(host_endpoint_parse("localhost:1", &ep, err, sizeof err), 0);
    ck_assert_str_eq(ep.host, "localhost");
    ck_assert_int_eq(host_endpoint_parse("[::1]:7000", &ep, err, sizeof err), 0);
    ck_assert_str_eq(ep.host, "::1");
    ck_assert_uint_eq(ep.port, 7000);
}
END_TEST

START_TEST(endpoint_errors_say_what_is_wrong)
{
    static const char *const bad[] = {"",          "65536", "70x", "host:", ":7000",
                                      "[::1]7000", "[::1",  "-1",  "123456"};
    host_endpoint_t ep;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_msg(host_endpoint_parse(bad[i], &ep, err, sizeof err) == -1, "'%s' accepted",
                      bad[i]);
        ck_assert_msg(strstr(err, bad[i]) != NULL, "'%s': message '%s' does not quote it", bad[i],
                      err);
    }
}
END_TEST

START_TEST(defaults_and_every_flag)
{
    const char *a1[] = {"--board", "esp32-demo", "--tcp", "7000", NULL};
    ck_assert_int_eq(parse(a1), 0);
    ck_assert_str_eq(o.board, "esp32-demo");
    ck_assert(!o.pty && o.tcp.enabled && !o.control.enabled);
    ck_assert_int_eq(o.clock, SIM_CLOCK_REALTIME);
    ck_assert_int_eq(o.log_level, HOST_LOG_INFO);

    const char *a2[] = {"--board=b.json",         "--pty-link", "/tmp/x",
                        "--control=0.0.0.0:7001", "--clock",    "virtual",
                        "--log-level=debug",      NULL};
    ck_assert_int_eq(parse(a2), 0);
    ck_assert_str_eq(o.board, "b.json");
    ck_assert(o.pty); /* implied by --pty-link */
    ck_assert_str_eq(o.pty_link, "/tmp/x");
    ck_assert_str_eq(o.control.host, "0.0.0.0");
    ck_assert_uint_eq(o.control.port, 7001);
    ck_assert_int_eq(o.clock, SIM_CLOCK_VIRTUAL);
    ck_assert_int_eq(o.log_level, HOST_LOG_DEBUG);
    ck_assert_uint_eq(o.output_budget_mb, HOST_OUTPUT_BUDGET_MB_DEFAULT);
    ck_assert_uint_eq(o.input_budget_mb, HOST_INPUT_BUDGET_MB_DEFAULT);

    const char *a3[] = {"--board", "b", "--tcp", "0", "--output-budget", "8", "--input-budget=4096",
                        NULL};
    ck_assert_int_eq(parse(a3), 0);
    ck_assert_uint_eq(o.output_budget_mb, 8);
    ck_assert_uint_eq(o.input_budget_mb, 4096);
}
END_TEST

/* --pty-reset-on-open: on, off, or the board file's choice (-1) when not given; pty only. */
START_TEST(pty_reset_on_open)
{
    const char *a1[] = {"--board", "uno", "--pty", NULL};
    ck_assert_int_eq(parse(a1), 0);
    ck_assert_int_eq(o.pty_reset_on_open, -1);
    const char *a2[] = {"--board", "uno", "--pty", "--pty-reset-on-open", "off", NULL};
    ck_assert_int_eq(parse(a2), 0);
    ck_assert_int_eq(o.pty_reset_on_open, 0);
    const char *a3[] = {"--board", "uno", "--pty-link", "/tmp/x", "--pty-reset-on-open=on", NULL};
    ck_assert_int_eq(parse(a3), 0);
    ck_assert_int_eq(o.pty_reset_on_open, 1);
    const char *a4[] = {"--board", "uno", "--pty", "--pty-reset-on-open", "yes", NULL};
    ck_assert_int_eq(parse(a4), -1);
    ck_assert_ptr_nonnull(strstr(err, "on|off"));
    const char *a5[] = {"--board", "uno", "--tcp", "0", "--pty-reset-on-open", "on", NULL};
    ck_assert_int_eq(parse(a5), -1);
    ck_assert_ptr_nonnull(strstr(err, "needs --pty"));
}
END_TEST

START_TEST(help_and_version_need_nothing_else)
{
    const char *a1[] = {"--help", NULL};
    ck_assert_int_eq(parse(a1), 0);
    ck_assert(o.help);
    const char *a2[] = {"-h", NULL};
    ck_assert_int_eq(parse(a2), 0);
    ck_assert(o.help);
    const char *a3[] = {"--version", NULL};
    ck_assert_int_eq(parse(a3), 0);
    ck_assert(o.version);
}
END_TEST

START_TEST(usage_errors)
{
    static const struct {
        const char *args[8];
        const char *msg;
    } cases[] = {
        {{"--tcp", "7000"}, "--board NAME|FILE is required"},
        {{"--board", "x"}, "nothing to serve"},
        {{"--board", "x", "--tcp"}, "--tcp needs a value"},
        {{"--board", "x", "--pty=1"}, "--pty takes no value"},
        {{"--board", "x", "--pty", "extra"}, "unexpected argument 'extra'"},
        {{"--board", "x", "--ptyy"}, "unknown option '--ptyy'"},
        {{"--board", "x", "--pty", "--clock", "slow"}, "--clock 'slow': expected realtime|virtual"},
        {{"--board", "x", "--pty", "--log-level", "loud"}, "expected error|warn|info|debug"},
        {{"--board", "x", "--tcp", "7000", "--control", "7000"}, "cannot share 127.0.0.1:7000"},
        {{"--board", "x", "--tcp", "0", "--input-budget", "0"}, "--input-budget"},
        {{"--board", "x", "--tcp", "0", "--input-budget", "4097"}, "--input-budget"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(parse(cases[i].args), -1);
        ck_assert_msg(strstr(err, cases[i].msg) != NULL, "case %zu: '%s' lacks '%s'", i, err,
                      cases[i].msg);
    }
}
END_TEST

START_TEST(board_paths_are_used_as_is)
{
    char out[256];
    ck_assert_int_eq(host_board_path("./mine", out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "./mine");
    ck_assert_int_eq(host_board_path("other.json", out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, "other.json");
}
END_TEST

START_TEST(board_names_are_looked_up_env_first_then_compiled_in)
{
    char dir[64], file[128], out[256];
    snprintf(dir, sizeof dir, "/tmp/mcpsim-cli-%ld", (long)getpid());
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/esp32-demo.json", dir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);

    setenv("MCPSIM_BOARDS", "/nonexistent:", 1);
    ck_assert_int_eq(host_board_path("esp32-demo", out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, MCPSIM_SOURCE_DIR "/sim/boards/esp32-demo.json");

    char env[160];
    snprintf(env, sizeof env, "/nonexistent:%s", dir);
    setenv("MCPSIM_BOARDS", env, 1);
    ck_assert_int_eq(host_board_path("esp32-demo", out, sizeof out, err, sizeof err), 0);
    ck_assert_str_eq(out, file);

    ck_assert_int_eq(host_board_path("nope", out, sizeof out, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "nope.json") && strstr(err, "/nonexistent") && strstr(err, dir) &&
                      strstr(err, MCPSIM_SOURCE_DIR "/sim/boards") &&
                      strstr(err, "/usr/share/mcpsim/boards"),
                  "message: %s", err);
    unsetenv("MCPSIM_BOARDS");
    unlink(file);
    rmdir(dir);
}
END_TEST

START_TEST(stdio_and_device_flags)
{
    const char *stdio_only[] = {"--board", "uno", "--stdio", NULL};
    ck_assert_int_eq(parse(stdio_only), 0);
    ck_assert(o.stdio);
    const char *bridge[] = {
        "--device", "serial:/dev/ttyUSB0?baud=9600", "--device", "tcp:10.0.0.5:3000", "--tcp", "0",
        NULL}; /* --tcp: every profile has it (mcpu-min refuses --http, having no MCP) */
    ck_assert_int_eq(parse(bridge), 0);
    ck_assert_uint_eq(o.device_count, 2);
    ck_assert_str_eq(o.devices[1], "tcp:10.0.0.5:3000");
    const char *both[] = {"--board", "uno", "--device", "tcp:h:1", "--stdio", NULL};
    ck_assert_int_eq(parse(both), -1);
    ck_assert_msg(strstr(err, "exclude"), "%s", err);
    const char *with_control[] = {"--device", "tcp:h:1", "--control", "0", NULL};
    ck_assert_int_eq(parse(with_control), -1);
    const char *bad_scheme[] = {"--device", "usb:1", "--stdio", NULL};
    ck_assert_int_eq(parse(bad_scheme), -1);
    ck_assert_msg(strstr(err, "serial:PATH"), "%s", err);
    const char *list[] = {"--list-boards", NULL};
    ck_assert_int_eq(parse(list), 0);
    ck_assert(o.list_boards);
}
END_TEST

START_TEST(did_you_mean)
{
    const char *typo[] = {"--bord", "uno", NULL};
    ck_assert_int_eq(parse(typo), -1);
    ck_assert_str_eq(err, "unknown option '--bord' (did you mean --board?)");
    const char *prefix[] = {"--board", "uno", "--std", NULL};
    ck_assert_int_eq(parse(prefix), -1);
    ck_assert_msg(strstr(err, "did you mean --stdio?"), "%s", err);
    const char *far[] = {"--frobnicate", NULL};
    ck_assert_int_eq(parse(far), -1);
    ck_assert_str_eq(err, "unknown option '--frobnicate'");
    const char *names[] = {"esp32-demo", "greenhouse", "uno", NULL};
    ck_assert_str_eq(host_cli_nearest("esp23-demo", names), "esp32-demo");
    ck_assert_str_eq(host_cli_nearest("greenhous", names), "greenhouse");
    ck_assert_ptr_null(host_cli_nearest("stm32", names));
    char path[512], msg[1024];
    unsetenv("MCPSIM_BOARDS");
    ck_assert_int_eq(host_board_path("greenhose", path, sizeof path, msg, sizeof msg), -1);
    ck_assert_msg(strstr(msg, "(did you mean greenhouse?)"), "%s", msg);
}
END_TEST

START_TEST(device_urls)
{
    host_device_url_t u;
    ck_assert_int_eq(host_device_url_parse("serial:/dev/ttyACM0", &u, err, sizeof err), 0);
    ck_assert(u.serial);
    ck_assert_str_eq(u.path, "/dev/ttyACM0");
    ck_assert_uint_eq(u.baud, 115200);
    ck_assert_uint_eq(u.settle_ms, 600);
    ck_assert_int_eq(host_device_url_parse("serial:/tmp/x?baud=9600&settle_ms=0&timeout_ms=250", &u,
                                           err, sizeof err),
                     0);
    ck_assert_uint_eq(u.baud, 9600);
    ck_assert_uint_eq(u.settle_ms, 0);
    ck_assert_uint_eq(u.timeout_ms, 250);
    ck_assert_int_eq(host_device_url_parse("tcp:192.168.1.5:3000", &u, err, sizeof err), 0);
    ck_assert(!u.serial);
    ck_assert_str_eq(u.host, "192.168.1.5");
    ck_assert_str_eq(u.port, "3000");
    ck_assert_uint_eq(u.settle_ms, 0);
    ck_assert_int_eq(host_device_url_parse("tcp:[::1]:7000", &u, err, sizeof err), 0);
    ck_assert_str_eq(u.host, "::1");
    ck_assert_int_eq(host_device_url_parse("tcp:host", &u, err, sizeof err), -1);
    ck_assert_int_eq(host_device_url_parse("tcp:host:port", &u, err, sizeof err), -1);
    ck_assert_int_eq(host_device_url_parse("serial:", &u, err, sizeof err), -1);
    ck_assert_int_eq(host_device_url_parse("serial:/x?baud=fast", &u, err, sizeof err), -1);
    ck_assert_int_eq(host_device_url_parse("tcp:h:1?baud=9600", &u, err, sizeof err), -1);
    ck_assert_int_eq(host_device_url_parse("serial:/x?colour=red", &u, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "colour"), "%s", err);
}
END_TEST

static Suite *host_cli_suite(void)
{
    Suite *s = suite_create("host_cli");
    TCase *tc = tcase_create("cli");
    tcase_add_test(tc, endpoint_port_only_binds_loopback);
    tcase_add_test(tc, endpoint_with_host_and_ipv6);
    tcase_add_test(tc, endpoint_errors_say_what_is_wrong);
    tcase_add_test(tc, defaults_and_every_flag);
    tcase_add_test(tc, help_and_version_need_nothing_else);
    tcase_add_test(tc, pty_reset_on_open);
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, board_paths_are_used_as_is);
    tcase_add_test(tc, board_names_are_looked_up_env_first_then_compiled_in);
    tcase_add_test(tc, stdio_and_device_flags);
    tcase_add_test(tc, did_you_mean);
    tcase_add_test(tc, device_urls);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(host_cli_suite)
