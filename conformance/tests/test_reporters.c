/* test_reporters.c: console, TAP, JUnit (checked against tests/junit.xsd) and JSON reports. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <unistd.h>

#include <jansson.h>

#include "ctest_util.h"
#include "reporter.h"

static conf_scenario_t *sc;
static conf_result_t results[4];
static conf_summary_t sum;
static conf_report_info_t info = {"sim:esp32-demo", "esp32-demo 1.0.0", "tcp", 4, "mcpsim", false};

static void setup(void)
{
    sc = conf_scenario_new();
    sc->name = conf_strdup("mcpu/gpio/write");
    sc->description = conf_strdup("d");
    sc->file = conf_strdup("scenarios/mcpu/gpio.json");
    sc->line = 12;
    sc->col = 5;
    sc->source = conf_strdup("mcpu protocol: gpio_write");
    const char *names[] = {"mcpu/a", "mcpu/b <&\"quoted\">", "hil/c", "jsonrpc/d"};
    conf_status_t st[] = {CONF_PASS, CONF_FAIL, CONF_SKIP, CONF_STALE};
    for (size_t i = 0; i < 4; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].sc = sc;
        results[i].name = conf_strdup(names[i]);
        results[i].status = st[i];
        results[i].ms = 1.5;
        results[i].steps = json_pack("[{s:s, s:s, s:s, s:f, s:b}]", "step", "1", "action", "send",
                                     "detail", "get_info", "ms", 0.25, "ok", 1);
    }
    results[1].message = conf_strdup("step 2 (send gpio_read): at $.result.value: expected true, "
                                     "got false");
    results[1].expected = conf_strdup("{\n  \"value\": true\n}");
    results[1].actual = conf_strdup("{\n  \"value\": false\n}");
    results[1].transcript = conf_strdup("-> {\"id\":1}\n<- {\"id\":1,\"raw\":\"\x01\xff\"}\n");
    results[2].message = conf_strdup("needs tool read_temperature # not here");
    memset(&sum, 0, sizeof sum);
    sum.total = 4;
    sum.passed = 1;
    sum.failed = 1;
    sum.skipped = 1;
    sum.stale = 1;
    sum.ms = 1234.0;
    sum.notes = "boot noise: ets Jun  8\n";
}

static void teardown(void)
{
    for (size_t i = 0; i < 4; i++) conf_result_free(&results[i]);
    conf_scenario_free(sc);
}

/* Runs a reporter over the four results into a string (malloc'd). */
static char *report(const conf_reporter_ops_t *ops, bool color)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    conf_reporter_t r = {ops, out, color, false, &info};
    if (ops->begin) ops->begin(&r, &info);
    for (size_t i = 0; i < 4; i++)
        if (ops->result) ops->result(&r, &results[i], i + 1, 4);
    if (ops->end) ops->end(&r, results, 4, &sum);
    fclose(out);
    return text;
}

START_TEST(console_lines_and_failure_details)
{
    char *t = report(&conf_reporter_console, false);
    ck_assert_ptr_nonnull(strstr(t, "conformance: sim:esp32-demo (esp32-demo 1.0.0, tcp), 4 "
                                    "scenarios\n"));
    ck_assert_ptr_nonnull(strstr(t, "[1/4] PASS  must   mcpu/a"));
    ck_assert_ptr_nonnull(strstr(t, "[2/4] FAIL  must   mcpu/b"));
    ck_assert_ptr_nonnull(strstr(t, "[3/4] SKIP  must   hil/c"));
    ck_assert_ptr_nonnull(strstr(t, "needs tool read_temperature"));
    ck_assert_ptr_nonnull(strstr(t, "[4/4] STALE must   jsonrpc/d"));
    ck_assert_ptr_nonnull(strstr(t, "      why:\n        step 2 (send gpio_read)"));
    ck_assert_ptr_nonnull(strstr(t, "      scenario: scenarios/mcpu/gpio.json:12:5\n"));
    ck_assert_ptr_nonnull(strstr(t, "      expected:\n        {\n          \"value\": true\n"));
    ck_assert_ptr_nonnull(strstr(t, "      transcript:\n        -> {\"id\":1}\n"));
    ck_assert_ptr_nonnull(strstr(t, "4 scenarios: 1 passed, 1 failed, 1 skipped, 0 expected "
                                    "failures, 1 stale in 1.23 s\n"));
    ck_assert_ptr_null(strstr(t, "\033["));
    free(t);
    t = report(&conf_reporter_console, true);
    ck_assert_ptr_nonnull(strstr(t, "\033[32mPASS \033[0m"));
    ck_assert_ptr_nonnull(strstr(t, "\033[31mFAIL \033[0m"));
    free(t);
}
END_TEST

/* A should-level failure is reported as such and does not count without --strict. */
START_TEST(should_failures_are_labelled_and_uncounted)
{
    sc->level = CONF_LEVEL_SHOULD;
    char *t = report(&conf_reporter_tap, false);
    ck_assert_ptr_nonnull(strstr(t, "\nnot ok 2 - mcpu/b <&\"quoted\"> [should] # TODO should-level: "
                                    "not counted without --strict\n"));
    ck_assert_ptr_nonnull(strstr(t, "  level: should\n"));
    free(t);
    t = report(&conf_reporter_junit, false);
    ck_assert_ptr_nonnull(strstr(t, "classname=\"conformance.should.mcpu\""));
    ck_assert_ptr_nonnull(strstr(t, "<skipped message=\"should-level failure, not counted"));
    ck_assert_ptr_nonnull(strstr(t, "tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"2\""));
    free(t);
    info.strict = true;
    sum.strict = true;
    t = report(&conf_reporter_tap, false);
    ck_assert_ptr_null(strstr(t, "# TODO should-level"));
    free(t);
    info.strict = false;
    sum.strict = false;
    sc->level = CONF_LEVEL_MUST;
}
END_TEST

START_TEST(tap_version_13)
{
    char *t = report(&conf_reporter_tap, false);
    ck_assert_ptr_eq(strstr(t, "TAP version 13\n1..4\n"), t);
    ck_assert_ptr_nonnull(strstr(t, "\nok 1 - mcpu/a [must]\n"));
    ck_assert_ptr_nonnull(
        strstr(t, "\nnot ok 2 - mcpu/b <&\"quoted\"> [must]\n  ---\n  message: \"step 2"));
    ck_assert_ptr_nonnull(strstr(t, "  at: \"scenarios/mcpu/gpio.json:12:5\"\n"));
    ck_assert_ptr_nonnull(strstr(t, "  actual: \"{\\n  \\\"value\\\": false\\n}\"\n"));
    ck_assert_ptr_nonnull(
        strstr(t, "\nok 3 - hil/c [must] # SKIP needs tool read_temperature   not here\n"));
    ck_assert_ptr_nonnull(strstr(t, "\nnot ok 4 - jsonrpc/d [must]\n  ---\n  message: \"listed in "
                                    "--expected-failures but passed\""));
    free(t);
}
END_TEST

START_TEST(junit_valid_against_schema)
{
    char *t = report(&conf_reporter_junit, false);
    ck_assert_ptr_nonnull(strstr(t, "<testsuites name=\"conformance\" tests=\"4\" failures=\"2\" "
                                    "errors=\"0\" skipped=\"1\" time=\"1.234\">"));
    ck_assert_ptr_nonnull(strstr(t, "name=\"mcpu/b &lt;&amp;&quot;quoted&quot;&gt;\""));
    ck_assert_ptr_nonnull(strstr(t, "classname=\"conformance.must.mcpu\""));
    ck_assert_ptr_nonnull(strstr(t, "<skipped message=\"needs tool read_temperature # not "
                                    "here\"/>"));
    ck_assert_ptr_nonnull(strstr(t, "<failure message=\"listed in --expected-failures but "
                                    "passed\""));
    ck_assert_ptr_nonnull(strstr(t, "file=\"scenarios/mcpu/gpio.json\" line=\"12\""));
    ck_assert_ptr_null(strstr(t, "\x01"));
    ck_assert_ptr_null(strstr(t, "\xff"));
    char path[] = "/tmp/conf_junitXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    if (access("/usr/bin/xmllint", X_OK) == 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "xmllint --noout --schema %s %s 2>&1", CONF_TEST_JUNIT_XSD, path);
        ck_assert_msg(system(cmd) == 0, "JUnit report does not validate: %s", t);
    } else {
        fprintf(stderr, "test_reporters: xmllint not installed, JUnit schema check skipped\n");
    }
    unlink(path);
    free(t);
}
END_TEST

START_TEST(json_report_has_steps)
{
    char *t = report(&conf_reporter_json, false);
    json_error_t e;
    json_t *doc = json_loads(t, 0, &e);
    ck_assert_msg(doc != NULL, "%s", e.text);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "format")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "target")), "sim:esp32-demo");
    json_t *s = json_object_get(doc, "summary");
    ck_assert_int_eq(json_integer_value(json_object_get(s, "failed")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "stale")), 1);
    json_t *b = json_array_get(json_object_get(doc, "scenarios"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(b, "status")), "fail");
    ck_assert_str_eq(json_string_value(json_object_get(b, "file")), "scenarios/mcpu/gpio.json");
    ck_assert_ptr_nonnull(json_object_get(b, "transcript"));
    json_t *step = json_array_get(json_object_get(b, "steps"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(step, "action")), "send");
    ck_assert(json_real_value(json_object_get(step, "ms")) > 0.2);
    json_decref(doc);
    free(t);
}
END_TEST

static Suite *reporters_suite(void)
{
    Suite *s = suite_create("reporters");
    TCase *tc = tcase_create("reporters");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, console_lines_and_failure_details);
    tcase_add_test(tc, tap_version_13);
    tcase_add_test(tc, should_failures_are_labelled_and_uncounted);
    tcase_add_test(tc, junit_valid_against_schema);
    tcase_add_test(tc, json_report_has_steps);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(reporters_suite)
