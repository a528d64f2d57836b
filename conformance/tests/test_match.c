/* test_match.c: the matchers' specification: what each accepts, refuses, and says when it fails. */
#include <jansson.h>

#include "ctest_util.h"
#include "match.h"

static json_t *J(const char *text)
{
    json_error_t e;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &e);
    ck_assert_msg(v != NULL, "bad test JSON %s: %s", text, e.text);
    return v;
}

/* Matches and returns the failure text ("" when it matched); *ok tells the verdict. */
static char why_text[2048];

static bool run(const char *expected, const char *actual)
{
    json_t *e = J(expected), *a = actual ? J(actual) : NULL;
    conf_buf_t why = {0};
    bool ok = conf_match(e, a, "$", &why);
    conf_copy(why_text, sizeof why_text, conf_buf_str(&why));
    ck_assert_msg(ok == (why.len == 0), "verdict and message disagree: %s", why_text);
    conf_buf_free(&why);
    json_decref(e);
    json_decref(a);
    return ok;
}

#define PASS(e, a) ck_assert_msg(run(e, a), "expected %s to match %s: %s", a, e, why_text)
#define FAIL_WITH(e, a, msg)                                                                       \
    do {                                                                                           \
        ck_assert_msg(!run(e, a), "expected %s NOT to match %s", a, e);                            \
        ck_assert_str_eq(why_text, msg);                                                           \
    } while (0)

START_TEST(subset_is_default)
{
    PASS("{\"result\":{\"pin\":2}}", "{\"id\":1,\"result\":{\"pin\":2,\"name\":\"led\"}}");
    FAIL_WITH("{\"result\":{\"pin\":3}}", "{\"result\":{\"pin\":2}}",
              "at $.result.pin: expected 3, got 2");
    FAIL_WITH("{\"result\":{\"value\":true}}", "{\"result\":{}}",
              "at $.result.value: expected true, got nothing (missing)");
    FAIL_WITH("{\"result\":{\"pin\":2}}", "{\"result\":[1]}",
              "at $.result: expected an object, got [1]");
    PASS("1", "1.0");
    PASS("\"a\"", "\"a\"");
    FAIL_WITH("\"a\"", "\"b\"", "at $: expected \"a\", got \"b\"");
    FAIL_WITH("null", "false", "at $: expected null, got false");
    FAIL_WITH("1", "\"1\"", "at $: expected 1, got \"1\"");
}
END_TEST

START_TEST(arrays_match_element_by_element)
{
    PASS("[1,{\"a\":1}]", "[1,{\"a\":1,\"b\":2}]");
    FAIL_WITH("[1,2]", "[1,2,3]", "at $: expected an array of 2 items, got 3: [1,2,3]");
    FAIL_WITH("[1,{\"a\":1}]", "[1,{\"a\":2}]", "at $[1].a: expected 1, got 2");
    FAIL_WITH("[1]", "{}", "at $: expected an array, got {}");
}
END_TEST

START_TEST(subset_spelled_out)
{
    PASS("{\"$match\":\"subset\",\"value\":{\"a\":1}}", "{\"a\":1,\"b\":2}");
    FAIL_WITH("{\"$match\":\"subset\",\"value\":{\"a\":1}}", "{\"b\":2}",
              "at $.a: expected 1, got nothing (missing)");
}
END_TEST

START_TEST(exact_refuses_extra_members)
{
    PASS("{\"$match\":\"exact\",\"value\":{\"a\":[1,2]}}", "{\"a\":[1,2.0]}");
    FAIL_WITH("{\"$match\":\"exact\",\"value\":{\"a\":1}}", "{\"a\":1,\"b\":2}",
              "at $: expected exactly {\"a\":1}, got {\"a\":1,\"b\":2}");
    FAIL_WITH("{\"r\":{\"$match\":\"exact\",\"value\":[1]}}", "{\"r\":[1,2]}",
              "at $.r: expected exactly [1], got [1,2]");
}
END_TEST

START_TEST(type_matcher)
{
    PASS("{\"$match\":\"type\",\"type\":\"integer\"}", "5");
    PASS("{\"$match\":\"type\",\"type\":\"number\"}", "5");
    PASS("{\"$match\":\"type\",\"type\":\"number\"}", "5.5");
    PASS("{\"$match\":\"type\",\"type\":[\"string\",\"null\"]}", "null");
    PASS("{\"$match\":\"type\",\"type\":\"boolean\"}", "false");
    FAIL_WITH("{\"$match\":\"type\",\"type\":\"integer\"}", "5.5",
              "at $: expected a value of type integer, got number 5.5");
    FAIL_WITH("{\"v\":{\"$match\":\"type\",\"type\":[\"string\",\"null\"]}}", "{\"v\":1}",
              "at $.v: expected a value of one of the types [\"string\",\"null\"], got integer 1");
    FAIL_WITH("{\"v\":{\"$match\":\"type\",\"type\":\"string\"}}", "{}",
              "at $.v: expected a value (type matcher), got nothing (missing)");
}
END_TEST

START_TEST(regex_matcher)
{
    PASS("{\"$match\":\"regex\",\"pattern\":\"^[0-9]+\\\\.[0-9]+\\\\.[0-9]+$\"}", "\"1.0.0\"");
    PASS("{\"$match\":\"regex\",\"pattern\":\"led\"}", "\"onboard led\"");
    FAIL_WITH("{\"$match\":\"regex\",\"pattern\":\"^x\"}", "\"abc\"",
              "at $: expected a string matching /^x/, got \"abc\"");
    FAIL_WITH("{\"$match\":\"regex\",\"pattern\":\"^x\"}", "12",
              "at $: expected a string matching /^x/, got 12");
}
END_TEST

START_TEST(range_matcher)
{
    PASS("{\"$match\":\"range\",\"min\":0,\"max\":4095}", "0");
    PASS("{\"$match\":\"range\",\"min\":0,\"max\":4095}", "4095");
    PASS("{\"$match\":\"range\",\"min\":0.5}", "1e9");
    PASS("{\"$match\":\"range\",\"max\":3.3}", "3.3");
    PASS("{\"$match\":\"range\",\"min\":9007199254740992,\"max\":9007199254740993}",
         "9007199254740993");
    FAIL_WITH("{\"$match\":\"range\",\"min\":9007199254740993}", "9007199254740992",
              "at $: expected a number in [9007199254740993, +inf], got 9007199254740992");
    FAIL_WITH("{\"v\":{\"$match\":\"range\",\"min\":0,\"max\":4095}}", "{\"v\":4096}",
              "at $.v: expected a number in [0, 4095], got 4096");
    FAIL_WITH("{\"$match\":\"range\",\"max\":1}", "\"0\"",
              "at $: expected a number in [-inf, 1], got \"0\"");
}
END_TEST

START_TEST(approximate_matcher)
{
    PASS("{\"$match\":\"approximate\",\"value\":1.65,\"tolerance\":0.01}", "1.66");
    PASS("{\"$match\":\"approximate\",\"value\":20,\"tolerance\":0.0625}", "20.0625");
    FAIL_WITH("{\"$match\":\"approximate\",\"value\":1.65,\"tolerance\":0.01}", "1.7",
              "at $: expected 1.65 +/- 0.01, got 1.7");
    FAIL_WITH("{\"$match\":\"approximate\",\"value\":1,\"tolerance\":1}", "true",
              "at $: expected 1 +/- 1, got true");
}
END_TEST

START_TEST(length_matcher)
{
    PASS("{\"$match\":\"length\",\"value\":3}", "[1,2,3]");
    PASS("{\"$match\":\"length\",\"value\":2}", "\"\\u00e9t\"");
    PASS("{\"$match\":\"length\",\"min\":1}", "{\"a\":1}");
    PASS("{\"$match\":\"length\",\"min\":1,\"max\":2}", "\"ab\"");
    FAIL_WITH("{\"$match\":\"length\",\"value\":10}", "[1]",
              "at $: expected length 10, got 1: [1]");
    FAIL_WITH("{\"$match\":\"length\",\"min\":2,\"max\":3}", "[]",
              "at $: expected length in [2, 3], got 0: []");
    FAIL_WITH("{\"$match\":\"length\",\"min\":1}", "5",
              "at $: expected a string, array or object, got 5");
}
END_TEST

START_TEST(contains_matcher)
{
    PASS("{\"$match\":\"contains\",\"value\":{\"name\":\"gpio_write\"}}",
         "[{\"name\":\"get_info\"},{\"name\":\"gpio_write\",\"x\":1}]");
    PASS("{\"$match\":\"contains\",\"value\":\"not found\"}", "\"method 'x' not found\"");
    FAIL_WITH("{\"$match\":\"contains\",\"value\":3}", "[1,2]",
              "at $: expected an array with an element matching 3, got [1,2]");
    FAIL_WITH("{\"$match\":\"contains\",\"value\":\"zz\"}", "\"abc\"",
              "at $: expected a string containing \"zz\", got \"abc\"");
    FAIL_WITH("{\"$match\":\"contains\",\"value\":3}", "{}",
              "at $: expected an array containing 3, got {}");
}
END_TEST

START_TEST(absent_matcher)
{
    PASS("{\"error\":{\"$match\":\"absent\"}}", "{\"result\":{}}");
    FAIL_WITH("{\"error\":{\"$match\":\"absent\"}}", "{\"error\":{\"code\":1}}",
              "at $.error: expected no such member, got {\"code\":1}");
    /* null is a value, not an absence */
    FAIL_WITH("{\"x\":{\"$match\":\"absent\"}}", "{\"x\":null}",
              "at $.x: expected no such member, got null");
}
END_TEST

START_TEST(any_matcher)
{
    PASS("{\"id\":{\"$match\":\"any\"}}", "{\"id\":null}");
    FAIL_WITH("{\"id\":{\"$match\":\"any\"}}", "{}",
              "at $.id: expected a value, got nothing (missing)");
}
END_TEST

START_TEST(all_and_one_of)
{
    const char *all = "{\"$match\":\"all\",\"of\":[{\"$match\":\"type\",\"type\":\"integer\"},"
                      "{\"$match\":\"range\",\"min\":0,\"max\":255}]}";
    PASS(all, "128");
    FAIL_WITH(all, "1.5", "at $: expected a value of type integer, got number 1.5");
    FAIL_WITH(all, "256", "at $: expected a number in [0, 255], got 256");
    const char *one = "{\"$match\":\"one_of\",\"of\":[\"volts\",\"mv\"]}";
    PASS(one, "\"mv\"");
    FAIL_WITH(one, "\"amps\"", "at $: expected one of [\"volts\",\"mv\"], got \"amps\"");
}
END_TEST

START_TEST(nested_paths_in_messages)
{
    FAIL_WITH("{\"result\":{\"samples\":[{},{\"value\":{\"$match\":\"range\",\"max\":1}}]}}",
              "{\"result\":{\"samples\":[{},{\"value\":2}]}}",
              "at $.result.samples[1].value: expected a number in [-inf, 1], got 2");
}
END_TEST

/* ---------------------------------------------------------------- validation */

static char verr[512], vpath[512];

static bool validate(const char *tmpl)
{
    json_t *t = J(tmpl);
    conf_path_t p = {.n = 0};
    bool ok = conf_match_validate(t, &p, verr, sizeof verr);
    conf_path_format(&p, NULL, vpath, sizeof vpath);
    json_decref(t);
    return ok;
}

#define REFUSED(t, msg, path)                                                                      \
    do {                                                                                           \
        ck_assert_msg(!validate(t), "template %s should be refused", t);                           \
        ck_assert_str_eq(verr, msg);                                                               \
        ck_assert_str_eq(vpath, path);                                                             \
    } while (0)

START_TEST(validation_accepts_good_templates)
{
    ck_assert(validate("{\"a\":[1,{\"$match\":\"range\",\"min\":\"${x}\"}],\"b\":null}"));
    ck_assert(validate("{\"$match\":\"length\",\"max\":3}"));
    ck_assert(validate("{\"$match\":\"all\",\"of\":[{\"$match\":\"any\"}]}"));
    ck_assert(validate("{\"$match\":\"type\",\"type\":[\"integer\",\"null\"]}"));
}
END_TEST

START_TEST(validation_refuses_bad_matchers)
{
    REFUSED("{\"r\":{\"$match\":\"rnage\",\"min\":0}}",
            "unknown matcher \"rnage\" (subset exact type regex range approximate length "
            "contains absent any all one_of anyOf)",
            "r.$match");
    REFUSED("{\"$match\":\"range\",\"min\":0,\"maxx\":3}",
            "unknown key \"maxx\" in the range matcher", "maxx");
    REFUSED("{\"$match\":\"range\"}", "the range matcher needs \"min\", \"max\" or both", "");
    REFUSED("{\"$match\":\"range\",\"min\":\"0\"}", "\"min\" must be a number", "min");
    ck_assert(!validate("{\"$match\":\"regex\",\"pattern\":\"(\"}"));
    ck_assert_msg(strncmp(verr, "invalid regular expression: ", 28) == 0, "%s", verr);
    ck_assert_str_eq(vpath, "pattern");
    REFUSED("{\"$match\":\"type\",\"type\":\"int\"}",
            "unknown type \"int\" (one of null boolean integer number string array object)",
            "type");
    REFUSED("{\"$match\":\"approximate\",\"value\":1}",
            "the approximate matcher needs \"tolerance\"", "");
    REFUSED("{\"$match\":\"length\"}",
            "the length matcher needs \"value\", or \"min\" and/or \"max\"", "");
    REFUSED("{\"$match\":\"length\",\"value\":-1}", "\"value\" must be an integer >= 0", "value");
    REFUSED("{\"$match\":\"all\",\"of\":[]}", "\"of\" must be a non-empty list of templates", "of");
    REFUSED("{\"$match\":\"all\",\"of\":[{\"$match\":\"nope\"}]}",
            "unknown matcher \"nope\" (subset exact type regex range approximate length contains "
            "absent any all one_of anyOf)",
            "of[0].$match");
    REFUSED("{\"$match\":\"contains\",\"value\":{\"x\":{\"$match\":7}}}",
            "\"$match\" must be a matcher name", "value.x.$match");
    REFUSED("[{\"$match\":\"exact\"}]", "the exact matcher needs \"value\"", "[0]");
}
END_TEST

static Suite *match_suite(void)
{
    Suite *s = suite_create("match");
    TCase *tc = tcase_create("match");
    tcase_add_test(tc, subset_is_default);
    tcase_add_test(tc, arrays_match_element_by_element);
    tcase_add_test(tc, subset_spelled_out);
    tcase_add_test(tc, exact_refuses_extra_members);
    tcase_add_test(tc, type_matcher);
    tcase_add_test(tc, regex_matcher);
    tcase_add_test(tc, range_matcher);
    tcase_add_test(tc, approximate_matcher);
    tcase_add_test(tc, length_matcher);
    tcase_add_test(tc, contains_matcher);
    tcase_add_test(tc, absent_matcher);
    tcase_add_test(tc, any_matcher);
    tcase_add_test(tc, all_and_one_of);
    tcase_add_test(tc, nested_paths_in_messages);
    tcase_add_test(tc, validation_accepts_good_templates);
    tcase_add_test(tc, validation_refuses_bad_matchers);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(match_suite)
