/* test_scenario.c: the scenario loader: what format 1 accepts, and every refusal with its place. */
#define _DEFAULT_SOURCE
#include <jansson.h>

#include "ctest_util.h"
#include "jpos.h"
#include "scenario.h"

static conf_library_t lib;
static char err[1024];

static void setup(void)
{
    conf_library_init(&lib);
    err[0] = 0;
}

static void teardown(void)
{
    conf_library_free(&lib);
}

static int load(const char *text)
{
    return conf_load_text(&lib, "t.json", text, strlen(text), err, sizeof err);
}

#define REFUSED(text, msg)                                                                         \
    do {                                                                                           \
        size_t before = lib.count;                                                                 \
        ck_assert_int_eq(load(text), -1);                                                          \
        ck_assert_str_eq(err, msg);                                                                \
        ck_assert_uint_eq(lib.count, before);                                                      \
    } while (0)

#define HEAD "{\"format\":1,\"name\":\"s\",\"description\":\"d\",\"source\":\"t\",\"level\":\"must\",\n"

/* ---------------------------------------------------------------- positions */

START_TEST(jpos_finds_keys_and_values)
{
    const char *t = "{\n  \"a\": [1, {\"b\": \"x\\\"y\", \"c\": {\"d\": 2}}],\n  \"\\u00e9\": 3\n}";
    conf_path_t p = {.n = 0};
    int line, col;
    conf_path_push_key(&p, "a");
    conf_path_push_index(&p, 1);
    conf_path_push_key(&p, "c");
    ck_assert(conf_jpos_locate(t, strlen(t), &p, true, &line, &col));
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(col, 26);
    ck_assert(conf_jpos_locate(t, strlen(t), &p, false, &line, &col));
    ck_assert_int_eq(col, 31);
    conf_path_push_key(&p, "zz");
    ck_assert(!conf_jpos_locate(t, strlen(t), &p, true, &line, &col));
    ck_assert_int_eq(col, 31); /* the deepest part found */
    p.n = 0;
    conf_path_push_key(&p, "\xc3\xa9"); /* the key spelled with an escape in the text */
    ck_assert(conf_jpos_locate(t, strlen(t), &p, true, &line, &col));
    ck_assert_int_eq(line, 3);
    ck_assert_int_eq(col, 3);
    char text[64];
    p.n = 0;
    conf_path_push_key(&p, "steps");
    conf_path_push_index(&p, 3);
    conf_path_push_key(&p, "send");
    conf_path_format(&p, NULL, text, sizeof text);
    ck_assert_str_eq(text, "steps[3].send");
}
END_TEST

/* ---------------------------------------------------------------- accepted */

START_TEST(loads_one_scenario)
{
    ck_assert_int_eq(load(HEAD "\"tags\":[\"gpio\"],\"requires\":{\"pins\":[\"digital_output\"],"
                               "\"tools\":[\"gpio_write\"]},\"timeout_ms\":500,\n"
                               "\"steps\":[{\"send\":{\"method\":\"get_info\"},"
                               "\"expect\":{\"result\":{\"device\":{\"$match\":\"type\","
                               "\"type\":\"string\"}}},\"capture\":{\"dev\":\"result.device\"}}]}"),
                     0);
    ck_assert_uint_eq(lib.count, 1);
    conf_scenario_t *sc = lib.items[0];
    ck_assert_str_eq(sc->name, "s");
    ck_assert_str_eq(sc->description, "d");
    ck_assert_int_eq(sc->timeout_ms, 500);
    ck_assert_int_eq(sc->line, 1);
    ck_assert(!sc->needs_control);
    ck_assert(!sc->needs_stream);
    ck_assert_uint_eq(json_array_size(sc->steps), 1);
}
END_TEST

START_TEST(loads_a_suite_and_merges)
{
    ck_assert_int_eq(
        load("{\"format\":1,\"suite\":\"gpio\",\"source\":\"t\",\"level\":\"should\",\"tags\":[\"a\"],\"timeout_ms\":300,"
             "\"requires\":{\"tools\":[\"gpio_read\"],\"control\":true},\n\"scenarios\":[\n"
             "{\"name\":\"one\",\"description\":\"d1\",\"tags\":[\"b\",\"a\"],"
             "\"requires\":{\"tools\":[\"gpio_write\"]},\"steps\":[{\"control\":{\"method\":"
             "\"sim.reset\"}},{\"send_raw\":[\"{\",\"}\\n\"]}]},\n"
             "{\"name\":\"two\",\"description\":\"d2\",\"timeout_ms\":50,"
             "\"requires\":{\"control\":false},\"steps\":[{\"wait\":{\"ms\":5}}]}]}"),
        0);
    ck_assert_uint_eq(lib.count, 2);
    conf_scenario_t *one = lib.items[0], *two = lib.items[1];
    ck_assert_str_eq(one->name, "gpio/one");
    ck_assert_int_eq(one->line, 3);
    char *tags = conf_json_text(one->tags), *req = conf_json_text(one->requires);
    ck_assert_str_eq(tags, "[\"a\",\"b\"]");
    ck_assert_str_eq(req, "{\"tools\":[\"gpio_read\",\"gpio_write\"],\"control\":true}");
    free(tags);
    free(req);
    ck_assert_int_eq(one->timeout_ms, 300);
    ck_assert(one->needs_control);
    ck_assert(one->needs_stream);
    ck_assert_str_eq(two->name, "gpio/two");
    ck_assert_int_eq(two->timeout_ms, 50);
    ck_assert(!two->needs_control);
}
END_TEST

START_TEST(every_step_kind_loads)
{
    ck_assert_int_eq(
        load(HEAD "\"requires\":{\"control\":true},\"steps\":[\n"
                  "{\"send\":{\"method\":\"m\",\"params\":{}},\"id\":\"x\",\"timeout_ms\":9},\n"
                  "{\"send\":{\"method\":\"m\",\"params\":[1]},\"notification\":true},\n"
                  "{\"send_json\":[1,2],\"expect\":{}},\n"
                  "{\"send_raw\":\"x\\n\",\"expect\":{\"error\":{\"code\":-32700}}},\n"
                  "{\"expect\":{\"id\":null},\"capture\":{\"v\":\"error.code\"}},\n"
                  "{\"expect_notification\":{\"method\":\"x\"}},\n"
                  "{\"expect_silence\":{\"ms\":0}},\n"
                  "{\"control\":{\"method\":\"sim.advance\",\"params\":{\"ms\":1}},"
                  "\"expect\":{\"result\":{}}},\n"
                  "{\"wait\":{\"ms\":\"${t}\"},\"comment\":\"c\"},\n"
                  "{\"set\":{\"a\":1}},\n"
                  "{\"assert\":{\"value\":\"${a}\",\"matches\":{\"$match\":\"any\"}}},\n"
                  "{\"repeat\":{\"count\":2,\"as\":\"i\",\"steps\":[{\"wait\":{\"ms\":1}}]}},\n"
                  "{\"for_each\":{\"in\":\"tools\",\"as\":\"t\",\"where\":{\"name\":"
                  "{\"$match\":\"regex\",\"pattern\":\"^g\"}},\"steps\":[{\"set\":{\"b\":2}}]}}"
                  "]}"),
        0);
}
END_TEST

START_TEST(directory_loading_collects_errors)
{
    char dir[] = "/tmp/conf_scnXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/b.json", dir);
    FILE *f = fopen(path, "w");
    fputs(HEAD "\"steps\":[{\"wait\":{\"ms\":1}}]}", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/a.json", dir);
    f = fopen(path, "w");
    fputs("{\"format\":1,", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    f = fopen(path, "w");
    fputs("ignored", f);
    fclose(f);
    conf_buf_t errors = {0};
    ck_assert_int_eq(conf_load_path(&lib, dir, &errors), 1);
    ck_assert_uint_eq(lib.count, 1);
    ck_assert_msg(strstr(conf_buf_str(&errors), "/a.json:1:") != NULL, "%s", conf_buf_str(&errors));
    conf_buf_free(&errors);
    ck_assert_int_eq(conf_load_path(&lib, "/nonexistent/x", &errors), 1);
    conf_buf_free(&errors);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

/* ---------------------------------------------------------------- refused */

START_TEST(refuses_syntax_errors_with_position)
{
    REFUSED("{\"format\":1,\n\"name\": \"s\",,}", "t.json:2:13: string or '}' expected near ','");
    REFUSED("{\"format\":1,\"format\":1}", "t.json:1:20: duplicate object key near '\"format\"'");
}
END_TEST

START_TEST(source_and_level_required_and_inherited)
{
    REFUSED("{\"format\":1,\"name\":\"s\",\"description\":\"d\",\"source\":\"x\",\n"
            "\"steps\":[{\"wait\":{\"ms\":1}}]}",
            "t.json:1:1: scenario \"s\" does not say its level: give \"source\" (the rule it "
            "checks, e.g. \"jsonrpc-2.0 §5\") and \"level\" (must, should or extension) to it or "
            "its suite");
    REFUSED("{\"format\":1,\"name\":\"s\",\"description\":\"d\",\"source\":\"x\",\n"
            "\"level\":\"may\",\"steps\":[{\"wait\":{\"ms\":1}}]}",
            "t.json:2:9: must be \"must\", \"should\" or \"extension\" (at level)");
    ck_assert_int_eq(load("{\"format\":1,\"suite\":\"x\",\"source\":\"rfc\",\"level\":\"should\","
                          "\"scenarios\":[{\"name\":\"a\",\"description\":\"d\",\"steps\":[{\"wait\":"
                          "{\"ms\":1}}]},{\"name\":\"b\",\"description\":\"d\",\"level\":\"extension\","
                          "\"source\":\"mine\",\"steps\":[{\"wait\":{\"ms\":1}}]}]}"),
                     0);
    ck_assert_int_eq(lib.items[0]->level, CONF_LEVEL_SHOULD);
    ck_assert_str_eq(lib.items[0]->source, "rfc");
    ck_assert_int_eq(lib.items[1]->level, CONF_LEVEL_EXTENSION);
    ck_assert_str_eq(lib.items[1]->source, "mine");
}
END_TEST

START_TEST(refuses_unknown_keys_with_position)
{
    REFUSED(HEAD "  \"stpes\":[]}",
            "t.json:2:3: unknown key \"stpes\" in a scenario (known keys: format, name, "
            "description, tags, requires, timeout_ms, source, level, steps) (at stpes)");
    REFUSED(
        HEAD "\"steps\":[\n  {\"send\":{\"method\":\"m\"}},\n  {\"sned\":{}}]}",
        "t.json:4:4: unknown key \"sned\" in a step (known keys: send, send_json, send_raw, http, "
        "expect, expect_notification, expect_silence, control, wait, repeat, for_each, set, "
        "assert) "
        "(at steps[1].sned)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\"},\n \"expct\":{}}]}",
            "t.json:3:2: unknown key \"expct\" in a send step (known keys: send, comment, id, "
            "notification, expect, capture, timeout_ms) (at steps[0].expct)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\",\"parms\":{}}}]}",
            "t.json:2:32: unknown key \"parms\" in send (known keys: method, params) "
            "(at steps[0].send.parms)");
    REFUSED(HEAD "\"requires\":{\"pin\":[]},\"steps\":[{\"wait\":{\"ms\":1}}]}",
            "t.json:2:13: unknown key \"pin\" in requires (known keys: protocol, transport, pins, "
            "tools, control, vars, capabilities, revision) (at requires.pin)");
    REFUSED(HEAD "\"requires\":{\"revision\":\"2026-7-28\"},\"steps\":[{\"wait\":{\"ms\":1}}]}",
            "t.json:2:24: must be an MCP revision such as \"2026-07-28\" (at requires.revision)");
    REFUSED(HEAD "\"steps\":[{\"wait\":{\"ms\":1,\"s\":2}}]}",
            "t.json:2:26: unknown key \"s\" in a duration (known keys: ms) (at steps[0].wait.s)");
    REFUSED(HEAD "\"steps\":[{\"wait\":{\"ms\":1},\"expect\":{}}]}",
            "t.json:2:27: unknown key \"expect\" in a wait step (known keys: wait, comment) "
            "(at steps[0].expect)");
    REFUSED("{\"format\":1,\"suite\":\"x\",\"scenarios\":[],\"extra\":1}",
            "t.json:1:40: unknown key \"extra\" in a suite (known keys: format, suite, "
            "description, tags, requires, timeout_ms, source, level, scenarios) (at extra)");
    REFUSED("{\"format\":1,\"suite\":\"x\",\"scenarios\":[{\"format\":1}]}",
            "t.json:1:39: unknown key \"format\" in a scenario (known keys: name, description, "
            "tags, requires, timeout_ms, source, level, steps) (at scenarios[0].format)");
}
END_TEST

START_TEST(refuses_bad_matchers_with_position)
{
    REFUSED(HEAD "\"steps\":[{\"expect\":{\"result\":\n {\"$match\":\"rnage\"}}}]}",
            "t.json:3:3: unknown matcher \"rnage\" (subset exact type regex range approximate "
            "length contains absent any all one_of anyOf) (at steps[0].expect.result.$match)");
    REFUSED(HEAD "\"steps\":[{\"expect\":{\"$match\":\"range\",\"mn\":1}}]}",
            "t.json:2:38: unknown key \"mn\" in the range matcher (at steps[0].expect.mn)");
}
END_TEST

START_TEST(refuses_wrong_types_and_values)
{
    REFUSED("{\"format\":2}", "t.json:1:11: unsupported format version 2 (this runner reads 1) "
                              "(at format)");
    REFUSED("{\"name\":\"x\"}", "t.json:1:1: missing required key \"format\"");
    REFUSED("[1]", "t.json:1:1: a scenario file holds an object: one scenario (with \"steps\") "
                   "or a suite (with \"scenarios\")");
    REFUSED("{\"format\":1,\"name\":\"x\",\"steps\":[{\"wait\":{\"ms\":1}}]}",
            "t.json:1:1: missing required key \"description\"");
    REFUSED("{\"format\":1,\"name\":\"a b\",\"description\":\"d\",\"steps\":[]}",
            "t.json:1:20: must be a name: letters, digits and _ . : / - (no spaces) (at name)");
    REFUSED(HEAD "\"steps\":[]}", "t.json:2:9: must be a non-empty list of steps (at steps)");
    REFUSED(HEAD "\"steps\":[3]}", "t.json:2:10: a step must be an object (at steps[0])");
    REFUSED(HEAD "\"steps\":[{}]}",
            "t.json:2:10: a step needs an action: send, send_json, send_raw, http, expect, "
            "expect_notification, expect_silence, control, wait, repeat, for_each, set or assert "
            "(at steps[0])");
    REFUSED(HEAD "\"steps\":[{\"wait\":{\"ms\":1},\"set\":{\"a\":1}}]}",
            "t.json:2:27: a step has one action; this one has both \"wait\" and \"set\" "
            "(at steps[0].set)");
    REFUSED(HEAD "\"steps\":[{\"send\":{}}]}",
            "t.json:2:18: missing required key \"method\" (at steps[0].send)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\",\"params\":3}}]}",
            "t.json:2:41: must be an object, an array or a \"${...}\" reference "
            "(at steps[0].send.params)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\"},\"notification\":true,\"expect\":{}}]}",
            "t.json:2:53: a notification gets no response: drop \"expect\" or \"notification\" "
            "(at steps[0].expect)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\"},\"notification\":true,\"id\":1}]}",
            "t.json:2:53: a notification has no id (at steps[0].id)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\"},\"id\":[1]}]}",
            "t.json:2:38: must be a number, a string or null (at steps[0].id)");
    REFUSED(HEAD "\"steps\":[{\"send\":{\"method\":\"m\"},\"timeout_ms\":0}]}",
            "t.json:2:46: must be an integer from 1 to 3600000 (milliseconds) "
            "(at steps[0].timeout_ms)");
    REFUSED(HEAD "\"steps\":[{\"send_raw\":[]}]}",
            "t.json:2:22: must be a string, or a non-empty list of strings (sent as separate "
            "writes) (at steps[0].send_raw)");
    REFUSED(HEAD "\"steps\":[{\"expect\":{},\"capture\":{\"x\":\"a..b\"}}]}",
            "t.json:2:38: must be a path into the message such as \"result.samples[0].seq\" "
            "(at steps[0].capture.x)");
    REFUSED(HEAD "\"steps\":[{\"expect\":{},\"capture\":{\"1x\":\"a\"}}]}",
            "t.json:2:34: \"1x\" is not a variable name (at steps[0].capture.1x)");
    REFUSED(HEAD "\"steps\":[{\"set\":{}}]}",
            "t.json:2:17: must be an object {\"variable\": value} (at steps[0].set)");
    REFUSED(HEAD "\"steps\":[{\"repeat\":{\"count\":-1,\"steps\":[{\"set\":{\"a\":1}}]}}]}",
            "t.json:2:29: must be an integer from 0 to 1000000 or a \"${...}\" reference "
            "(at steps[0].repeat.count)");
    REFUSED(HEAD "\"steps\":[{\"for_each\":{\"in\":\"tools\",\"steps\":[{\"set\":{\"a\":1}}]}}]}",
            "t.json:2:22: missing required key \"as\" (at steps[0].for_each)");
    REFUSED(
        HEAD "\"steps\":[{\"repeat\":{\"count\":1,\"steps\":[{\"nope\":1}]}}]}",
        "t.json:2:41: unknown key \"nope\" in a step (known keys: send, send_json, send_raw, http, "
        "expect, expect_notification, expect_silence, control, wait, repeat, for_each, set, "
        "assert) "
        "(at steps[0].repeat.steps[0].nope)");
    REFUSED(HEAD "\"steps\":[{\"assert\":{\"value\":1}}]}",
            "t.json:2:20: missing required key \"matches\" (at steps[0].assert)");
    REFUSED(HEAD "\"steps\":[{\"assert\":{\"value\":1,\"matches\":{\"$match\":\"any\",\"x\":1}}}]}",
            "t.json:2:57: unknown key \"x\" in the any matcher (at steps[0].assert.matches.x)");
    REFUSED(HEAD "\"steps\":[{\"for_each\":{\"in\":\"a..b\",\"as\":\"x\",\"steps\":[{\"set\":{"
                 "\"a\":1}}]}}]}",
            "t.json:2:28: must name a list variable such as \"tools\" or \"pins\" "
            "(at steps[0].for_each.in)");
    REFUSED(HEAD "\"steps\":[{\"expect_silence\":5}]}",
            "t.json:2:28: must be an object {\"ms\": N, \"allow\": T} (at steps[0].expect_silence)");
    REFUSED(HEAD "\"steps\":[{\"control\":{\"params\":{}}}]}",
            "t.json:2:21: missing required key \"method\" (at steps[0].control)");
    REFUSED(HEAD "\"requires\":{\"pins\":[\"analog\"]},\"steps\":[{\"set\":{\"a\":1}}]}",
            "t.json:2:21: unknown value \"analog\" (at requires.pins[0])");
    REFUSED(HEAD "\"requires\":{\"transport\":\"usb\"},\"steps\":[{\"set\":{\"a\":1}}]}",
            "t.json:2:25: unknown value \"usb\" (at requires.transport[0])");
    REFUSED(HEAD "\"requires\":{\"protocol\":\"mqtt\"},\"steps\":[{\"set\":{\"a\":1}}]}",
            "t.json:2:24: must be \"mcpu\" or \"mcp\" (at requires.protocol)");
    REFUSED(HEAD "\"requires\":{\"control\":1},\"steps\":[{\"set\":{\"a\":1}}]}",
            "t.json:2:23: must be true or false (at requires.control)");
}
END_TEST

START_TEST(refuses_control_without_requires)
{
    REFUSED(HEAD "\"steps\":[{\"control\":{\"method\":\"sim.reset\"}}]}",
            "t.json:2:1: scenario \"s\" has control steps but does not require the control "
            "channel: add \"control\": true to its \"requires\" (at steps)");
}
END_TEST

START_TEST(refuses_duplicate_names)
{
    ck_assert_int_eq(load(HEAD "\"steps\":[{\"set\":{\"a\":1}}]}"), 0);
    REFUSED("{\"format\":1,\"suite\":\"x\",\"level\":\"must\",\"source\":\"t\",\"scenarios\":[\n"
            "{\"name\":\"a\",\"description\":\"d\",\"steps\":[{\"set\":{\"a\":1}}]},\n"
            "{\"name\":\"a\",\"description\":\"d\",\"steps\":[{\"set\":{\"a\":1}}]}]}",
            "t.json:3:9: scenario name \"x/a\" is already used (t.json:2:1) "
            "(at scenarios[1].name)");
    REFUSED(HEAD "\"steps\":[{\"set\":{\"a\":1}}]}",
            "t.json:1:20: scenario name \"s\" is already used (t.json:1:1) (at name)");
    ck_assert_uint_eq(lib.count, 1);
}
END_TEST

static Suite *scenario_suite(void)
{
    Suite *s = suite_create("scenario");
    TCase *tc = tcase_create("scenario");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, jpos_finds_keys_and_values);
    tcase_add_test(tc, loads_one_scenario);
    tcase_add_test(tc, loads_a_suite_and_merges);
    tcase_add_test(tc, every_step_kind_loads);
    tcase_add_test(tc, directory_loading_collects_errors);
    tcase_add_test(tc, refuses_syntax_errors_with_position);
    tcase_add_test(tc, refuses_unknown_keys_with_position);
    tcase_add_test(tc, source_and_level_required_and_inherited);
    tcase_add_test(tc, refuses_bad_matchers_with_position);
    tcase_add_test(tc, refuses_wrong_types_and_values);
    tcase_add_test(tc, refuses_control_without_requires);
    tcase_add_test(tc, refuses_duplicate_names);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(scenario_suite)
