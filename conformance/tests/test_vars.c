/* test_vars.c: variables, paths into JSON and "${...}" substitution. */
#include <jansson.h>

#include "ctest_util.h"
#include "util.h"
#include "vars.h"

static json_t *J(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    ck_assert_ptr_nonnull(v);
    return v;
}

static conf_vars_t globals, local;

static void setup(void)
{
    conf_vars_init(&globals, NULL);
    conf_vars_set(&globals, "pin", J("{\"adc_input\":{\"pin\":34,\"name\":\"sensor\"}}"));
    conf_vars_set(&globals, "tools", J("[{\"name\":\"gpio_write\"},{\"name\":\"adc_read\"}]"));
    conf_vars_init(&local, &globals);
    conf_vars_set(&local, "seq", json_integer(10));
    conf_vars_set(&local, "word", json_string("hi"));
}

static void teardown(void)
{
    conf_vars_free(&local);
    conf_vars_free(&globals);
}

/* Substitutes tmpl and compares with want (compact JSON); want NULL expects an error msg. */
static void check_subst(const char *tmpl, const char *want, const char *err_want)
{
    json_t *t = J(tmpl);
    char err[256] = "";
    json_t *out = conf_vars_subst(&local, t, err, sizeof err);
    if (want) {
        ck_assert_msg(out != NULL, "%s: %s", tmpl, err);
        char *text = conf_json_text(out);
        ck_assert_str_eq(text, want);
        free(text);
    } else {
        ck_assert_msg(out == NULL, "%s should fail", tmpl);
        ck_assert_str_eq(err, err_want);
    }
    json_decref(out);
    json_decref(t);
}

START_TEST(lookup_through_scopes_and_paths)
{
    ck_assert_int_eq(json_integer_value(conf_vars_get(&local, "pin.adc_input.pin")), 34);
    ck_assert_str_eq(json_string_value(conf_vars_get(&local, "tools[1].name")), "adc_read");
    ck_assert_int_eq(json_integer_value(conf_vars_get(&local, "seq")), 10);
    ck_assert_ptr_null(conf_vars_get(&local, "pin.digital_input.pin"));
    ck_assert_ptr_null(conf_vars_get(&local, "tools[2]"));
    ck_assert_ptr_null(conf_vars_get(&globals, "seq"));
    ck_assert_ptr_null(conf_vars_get(&local, ""));
}
END_TEST

START_TEST(local_shadows_global)
{
    conf_vars_set(&local, "tools", json_string("mine"));
    ck_assert_str_eq(json_string_value(conf_vars_get(&local, "tools")), "mine");
    ck_assert_ptr_nonnull(conf_vars_get(&globals, "tools[0]"));
}
END_TEST

START_TEST(paths)
{
    json_t *m = J("{\"result\":{\"samples\":[{\"seq\":1},{\"seq\":2}],\"a.b\":1}}");
    ck_assert_int_eq(json_integer_value(conf_json_at(m, "result.samples[1].seq")), 2);
    ck_assert_ptr_eq(conf_json_at(m, ""), m);
    ck_assert_ptr_null(conf_json_at(m, "result.samples[5]"));
    ck_assert_ptr_null(conf_json_at(m, "result..x"));
    json_decref(m);
    ck_assert(conf_path_valid("result.samples[0].seq"));
    ck_assert(conf_path_valid("[3]"));
    ck_assert(!conf_path_valid("result..x"));
    ck_assert(!conf_path_valid("a[x]"));
    ck_assert(!conf_path_valid("a["));
    ck_assert(!conf_path_valid(".a"));
}
END_TEST

START_TEST(whole_string_keeps_type)
{
    check_subst("{\"pin\":\"${pin.adc_input.pin}\"}", "{\"pin\":34}", NULL);
    check_subst("\"${tools[0]}\"", "{\"name\":\"gpio_write\"}", NULL);
    check_subst("[\"${seq+5}\",\"${seq-11}\"]", "[15,-1]", NULL);
}
END_TEST

START_TEST(embedded_becomes_text)
{
    check_subst("\"pin ${pin.adc_input.name} (${pin.adc_input.pin})\"", "\"pin sensor (34)\"",
                NULL);
    check_subst("\"${word}${word}\"", "\"hihi\"", NULL);
    check_subst("\"cost $${x} and ${seq}\"", "\"cost ${x} and 10\"", NULL);
    check_subst("\"no vars $ here {}\"", "\"no vars $ here {}\"", NULL);
}
END_TEST

START_TEST(errors_are_named)
{
    check_subst("{\"a\":[\"${nope}\"]}", NULL, "unknown variable \"nope\"");
    check_subst("\"${word+1}\"", NULL, "\"word\" is string, not an integer, in \"${word+1}\"");
    check_subst("\"x ${seq\"", NULL, "unterminated \"${\" in \"x ${seq\"");
    check_subst("\"${}\"", NULL, "bad variable reference \"${}\"");
}
END_TEST

static Suite *vars_suite(void)
{
    Suite *s = suite_create("vars");
    TCase *tc = tcase_create("vars");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, lookup_through_scopes_and_paths);
    tcase_add_test(tc, local_shadows_global);
    tcase_add_test(tc, paths);
    tcase_add_test(tc, whole_string_keeps_type);
    tcase_add_test(tc, embedded_becomes_text);
    tcase_add_test(tc, errors_are_named);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(vars_suite)
