/* test_host_http_cli.c: the HTTP transport's command line: --http, its limits, --allow-host,
   --allow-origin and --auth-token (or $MCPSIM_AUTH_TOKEN). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "test_util.h"

static host_options_t o;
static char err[256];

/* Parses a NULL-terminated list of arguments (argv[0] added). */
static int parse(const char *const *args)
{
    char *argv[64] = {"mcpsim"};
    int argc = 1;
    while (args[argc - 1]) argv[argc] = (char *)args[argc - 1], argc++;
    err[0] = 0;
    return host_cli_parse(argc, argv, &o, err, sizeof err);
}

START_TEST(http_alone_is_something_to_serve_with_secure_defaults)
{
    unsetenv("MCPSIM_AUTH_TOKEN");
    const char *args[] = {"--board", "uno", "--http", "0", NULL};
    ck_assert_int_eq(parse(args), 0);
    ck_assert(o.http.enabled);
    ck_assert_str_eq(o.http.host, "127.0.0.1"); /* loopback unless asked */
    ck_assert_uint_eq(o.http.port, 0);
    ck_assert_uint_eq(o.http_idle_timeout_s, 1800);
    ck_assert_uint_eq(o.http_max_sessions, 32);
    ck_assert_uint_eq(o.http_conn_memory_kib, 16);
    ck_assert_uint_eq(o.allow_host_count, 0);
    ck_assert_uint_eq(o.allow_origin_count, 0);
    ck_assert_ptr_null(o.auth_token);
}
END_TEST

START_TEST(limits_take_whole_numbers_in_range)
{
    const char *args[] = {
        "--board", "uno", "--http", "[::1]:7002", "--http-idle-timeout=5", "--http-max-sessions",
        "3",       NULL};
    ck_assert_int_eq(parse(args), 0);
    ck_assert_str_eq(o.http.host, "::1");
    ck_assert_uint_eq(o.http.port, 7002);
    ck_assert_uint_eq(o.http_idle_timeout_s, 5);
    ck_assert_uint_eq(o.http_max_sessions, 3);
    static const char *const bad[] = {"0", "86401", "-1", "5s", "", " 5", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *a[] = {"--board", "uno", "--http", "0", "--http-idle-timeout", bad[i], NULL};
        ck_assert_msg(parse(a) == -1, "idle timeout '%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "--http-idle-timeout"));
        ck_assert_ptr_nonnull(strstr(err, "1 to 86400"));
    }
    const char *none[] = {"--board", "uno", "--http", "0", "--http-max-sessions", "0", NULL};
    ck_assert_int_eq(parse(none), -1);
    ck_assert_ptr_nonnull(strstr(err, "1 to 1024"));
    const char *mem[] = {"--board", "uno", "--http", "0", "--http-conn-memory", "64", NULL};
    ck_assert_int_eq(parse(mem), 0);
    ck_assert_uint_eq(o.http_conn_memory_kib, 64);
    static const char *const bad_mem[] = {"3", "1025", "0", "16k", ""};
    for (size_t i = 0; i < sizeof bad_mem / sizeof bad_mem[0]; i++) {
        const char *a[] = {"--board", "uno", "--http", "0", "--http-conn-memory", bad_mem[i], NULL};
        ck_assert_msg(parse(a) == -1, "connection memory '%s' accepted", bad_mem[i]);
        ck_assert_ptr_nonnull(strstr(err, "--http-conn-memory"));
        ck_assert_ptr_nonnull(strstr(err, "4 to 1024"));
    }
}
END_TEST

START_TEST(allow_lists_repeat_up_to_16)
{
    const char *args[] = {"--board",
                          "uno",
                          "--http",
                          "0",
                          "--allow-host",
                          "a.lan",
                          "--allow-host",
                          "b.lan:7002",
                          "--allow-origin",
                          "*",
                          NULL};
    ck_assert_int_eq(parse(args), 0);
    ck_assert_uint_eq(o.allow_host_count, 2);
    ck_assert_str_eq(o.allow_hosts[1], "b.lan:7002");
    ck_assert_uint_eq(o.allow_origin_count, 1);
    ck_assert_str_eq(o.allow_origins[0], "*");

    const char *many[64] = {"--board", "uno", "--http", "0"};
    int n = 4;
    for (int i = 0; i < 17; i++) many[n++] = "--allow-host=x";
    many[n] = NULL;
    ck_assert_int_eq(parse(many), -1);
    ck_assert_ptr_nonnull(strstr(err, "too many"));
    const char *empty[] = {"--board", "uno", "--http", "0", "--allow-origin=", NULL};
    ck_assert_int_eq(parse(empty), -1);
    ck_assert_ptr_nonnull(strstr(err, "must not be empty"));
}
END_TEST

START_TEST(auth_token_from_the_flag_or_the_environment)
{
    setenv("MCPSIM_AUTH_TOKEN", "from-env", 1);
    const char *plain[] = {"--board", "uno", "--http", "0", NULL};
    ck_assert_int_eq(parse(plain), 0);
    ck_assert_str_eq(o.auth_token, "from-env");
    const char *flag[] = {"--board", "uno", "--http", "0", "--auth-token", "from-flag", NULL};
    ck_assert_int_eq(parse(flag), 0);
    ck_assert_str_eq(o.auth_token, "from-flag"); /* the flag wins */
    setenv("MCPSIM_AUTH_TOKEN", "", 1); /* refused as --auth-token '' is: never "no token" */
    ck_assert_int_eq(parse(plain), -1);
    ck_assert_ptr_nonnull(strstr(err, "MCPSIM_AUTH_TOKEN: the token must not be empty"));
    unsetenv("MCPSIM_AUTH_TOKEN");
    const char *empty[] = {"--board", "uno", "--http", "0", "--auth-token", "", NULL};
    ck_assert_int_eq(parse(empty), -1);
    ck_assert_ptr_nonnull(strstr(err, "--auth-token"));
}
END_TEST

START_TEST(a_bad_http_endpoint_is_a_usage_error)
{
    const char *args[] = {"--board", "uno", "--http", "80x", NULL};
    ck_assert_int_eq(parse(args), -1);
    ck_assert_ptr_nonnull(strstr(err, "port"));
}
END_TEST

static Suite *http_cli_suite(void)
{
    Suite *s = suite_create("host_http_cli");
    TCase *tc = tcase_create("flags");
    tcase_add_test(tc, http_alone_is_something_to_serve_with_secure_defaults);
    tcase_add_test(tc, limits_take_whole_numbers_in_range);
    tcase_add_test(tc, allow_lists_repeat_up_to_16);
    tcase_add_test(tc, auth_token_from_the_flag_or_the_environment);
    tcase_add_test(tc, a_bad_http_endpoint_is_a_usage_error);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(http_cli_suite)
