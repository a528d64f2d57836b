/* test_fixtures.c: the conformance fixtures (sim_enable_fixtures): registered on every board and
   after every reset, absent without the flag, and answering as the MCP conformance suite's
   scenarios describe (the suite itself runs in tools/mcp-conformance). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixtures.h"
#include "sim_internal.h"
#include "test_util.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif

static const char *const tool_names[] = {"test_simple_text",
                                                          "test_image_content",
                                                          "test_audio_content",
                                                          "test_embedded_resource",
                                                          "test_multiple_content_types",
                                                          "test_tool_with_logging",
                                                          "test_tool_with_progress",
                                                          "test_error_handling",
                                                          "test_sampling",
                                                          "test_elicitation",
                                                          "test_elicitation_sep1034_defaults",
                                                          "test_elicitation_sep1330_enums"};

static sim_t *sim;
static fw_session_t sess;

/* The messages one call wrote, each ended by end(). */
static struct {
    char buf[1 << 16];
    size_t len;
    size_t ends[32];
    unsigned count;
} out;

static void out_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    ck_assert_uint_lt(out.len + len, sizeof out.buf);
    memcpy(out.buf + out.len, data, len);
    out.len += len;
}

static void out_end(void *ctx)
{
    (void)ctx;
    ck_assert_uint_lt(out.count, 32);
    out.ends[out.count++] = out.len;
}

static json_t *parsed[32];
static unsigned parsed_count;

/* Message k of the last call, parsed (freed at teardown). */
static json_t *msg(unsigned k)
{
    ck_assert_msg(k < out.count, "message %u of %u: %.*s", k, out.count, (int)out.len, out.buf);
    size_t start = k ? out.ends[k - 1] : 0;
    json_error_t e;
    json_t *j = json_loadb(out.buf + start, out.ends[k] - start, 0, &e);
    ck_assert_msg(j != NULL, "not JSON: %.*s", (int)(out.ends[k] - start), out.buf + start);
    ck_assert_uint_lt(parsed_count, 32);
    parsed[parsed_count++] = j;
    return j;
}

static bool deliver(const char *text)
{
    out.len = 0;
    out.count = 0;
    fw_msg_sink_t sink = {out_write, NULL, out_end, NULL};
    return fw_device_handle_session(sim_device(sim), &sess, text, strlen(text), sink);
}

/* The value at a '.'-separated path (numbers index arrays). */
static json_t *at(json_t *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = strtok(buf, "."); p && j; p = strtok(NULL, "."))
        j = json_is_array(j) ? json_array_get(j, strtoul(p, NULL, 10)) : json_object_get(j, p);
    return j;
}

static const char *str(json_t *j, const char *path)
{
    json_t *v = at(j, path);
    ck_assert_msg(json_is_string(v), "%s is not a string", path);
    return json_string_value(v);
}

/* The result of request method/params (the last message written), failing on an error. */
static json_t *result(const char *method, const char *params)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":\"%s\",\"params\":%s}", method, params);
    ck_assert_msg(deliver(text), "no response to %s", text);
    json_t *r = json_object_get(msg(out.count - 1), "result");
    ck_assert_msg(json_is_object(r), "%s failed: %.*s", method, (int)out.len, out.buf);
    return r;
}

static sim_t *boot(const char *board)
{
    char path[512];
    sim_error_t err;
    snprintf(path, sizeof path, "%s/sim/boards/%s.json", MCPSIM_SOURCE_DIR, board);
    sim_board_t *b = sim_board_load(path, &err);
    ck_assert_msg(b != NULL, "%s", err.text);
    sim_t *s = sim_create(b, SIM_CLOCK_VIRTUAL, &err);
    ck_assert_msg(s != NULL, "%s", err.text);
    return s;
}

static void setup(void)
{
    sim = boot("esp32-demo");
    ck_assert_int_eq(sim_enable_fixtures(sim), FW_OK);
    fw_session_init(&sess, sim_device(sim));
    parsed_count = 0;
    result("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"sampling\":{},"
                         "\"elicitation\":{}}}");
}

static void teardown(void)
{
    for (unsigned i = 0; i < parsed_count; i++) json_decref(parsed[i]);
    sim_destroy(sim);
}

/* ---------------------------------------------------------------- registration */

static const char *const boards[] = {"esp32-demo", "uno", "greenhouse"};

START_TEST(test_every_board_takes_the_fixtures)
{
    sim_t *s = boot(boards[_i]);
    fw_device_t *dev = sim_device(s);
    uint8_t board_tools = dev->tool_count;
    for (size_t i = 0; i < sizeof tool_names / sizeof *tool_names; i++)
        ck_assert_ptr_null(fw_device_find_tool(dev, tool_names[i])); /* not without the flag */
    ck_assert_int_eq(dev->resource_count, 0);
    ck_assert_int_eq(dev->prompt_count, 0);
    ck_assert_int_eq(sim_enable_fixtures(s), FW_OK);
    ck_assert_int_eq(sim_enable_fixtures(s), FW_OK); /* once is enough */
    ck_assert_uint_eq(dev->tool_count, board_tools + SIM_FIXTURE_TOOLS + SIM_FIXTURE_TASK_TOOLS);
    for (size_t i = 0; i < sizeof tool_names / sizeof *tool_names; i++)
        ck_assert_ptr_nonnull(fw_device_find_tool(dev, tool_names[i]));
    ck_assert_int_eq(dev->resource_count, 4);
    ck_assert_int_eq(dev->prompt_count, 5);
    sim_reset(s); /* the firmware boots again: the fixtures come back with it */
    ck_assert_uint_eq(dev->tool_count, board_tools + SIM_FIXTURE_TOOLS + SIM_FIXTURE_TASK_TOOLS);
    ck_assert_int_eq(dev->resource_count, 4);
    ck_assert_int_eq(dev->prompt_count, 5);
    sim_destroy(s);
}
END_TEST

/* ---------------------------------------------------------------- what they answer */

START_TEST(test_content_tools)
{
    json_t *r = result("tools/call", "{\"name\":\"test_simple_text\"}");
    ck_assert_str_eq(str(r, "content.0.type"), "text");
    ck_assert_str_eq(str(r, "content.0.text"), "This is a simple text response for testing.");
    ck_assert_ptr_null(at(r, "structuredContent"));
    r = result("tools/call", "{\"name\":\"test_image_content\",\"arguments\":{}}");
    ck_assert_str_eq(str(r, "content.0.mimeType"), "image/png");
    ck_assert_str_eq(str(r, "content.0.data"),
                     "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3"
                     "A0FDAAAAAElFTkSuQmCC");
    r = result("tools/call", "{\"name\":\"test_audio_content\"}");
    ck_assert_str_eq(str(r, "content.0.type"), "audio");
    ck_assert_str_eq(str(r, "content.0.mimeType"), "audio/wav");
    r = result("tools/call", "{\"name\":\"test_embedded_resource\"}");
    ck_assert_str_eq(str(r, "content.0.resource.uri"), "test://embedded-resource");
    ck_assert_str_eq(str(r, "content.0.resource.text"), "This is an embedded resource content.");
    r = result("tools/call", "{\"name\":\"test_multiple_content_types\"}");
    ck_assert_str_eq(str(r, "content.0.type"), "text");
    ck_assert_str_eq(str(r, "content.1.type"), "image");
    ck_assert_str_eq(str(r, "content.2.resource.text"), "{\"test\":\"data\",\"value\":123}");
    r = result("tools/call", "{\"name\":\"test_error_handling\"}");
    ck_assert(json_is_true(at(r, "isError")));
    ck_assert_str_eq(str(r, "content.0.text"),
                     "This tool intentionally returns an error for testing");
}
END_TEST

START_TEST(test_logging_and_progress_come_before_the_result)
{
    result("logging/setLevel", "{\"level\":\"debug\"}");
    result("tools/call", "{\"name\":\"test_tool_with_logging\"}");
    ck_assert_uint_eq(out.count, 4);
    const char *texts[] = {"Tool execution started", "Tool processing data",
                           "Tool execution completed"};
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_str_eq(str(msg(i), "method"), "notifications/message");
        ck_assert_str_eq(str(msg(i), "params.level"), "info");
        ck_assert_str_eq(str(msg(i), "params.data"), texts[i]);
    }
    result("tools/call", "{\"name\":\"test_tool_with_progress\",\"_meta\":{\"progressToken\":"
                         "\"p1\"}}");
    ck_assert_uint_eq(out.count, 4);
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_str_eq(str(msg(i), "params.progressToken"), "p1");
        ck_assert_int_eq(json_integer_value(at(msg(i), "params.progress")), 50 * i);
        ck_assert_int_eq(json_integer_value(at(msg(i), "params.total")), 100);
    }
}
END_TEST

START_TEST(test_sampling_asks_and_answers)
{
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"test_sampling\",\"arguments\":{\"prompt\":\"Say hi\"}}}"));
    json_t *q = msg(0);
    ck_assert_str_eq(str(q, "method"), "sampling/createMessage");
    ck_assert_str_eq(str(q, "params.messages.0.role"), "user");
    ck_assert_str_eq(str(q, "params.messages.0.content.text"), "Say hi");
    ck_assert_int_eq(json_integer_value(at(q, "params.maxTokens")), 100);
    char answer[256];
    snprintf(answer, sizeof answer,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":{"
             "\"type\":\"text\",\"text\":\"Hi \\\"there\\\"\"},\"model\":\"m\"}}",
             (long long)json_integer_value(at(q, "id")));
    ck_assert(!deliver(answer));
    json_t *r = msg(0);
    ck_assert_int_eq(json_integer_value(at(r, "id")), 5);
    ck_assert_str_eq(str(r, "result.content.0.text"), "LLM response: Hi \"there\"");
}
END_TEST

START_TEST(test_elicitation_asks_and_answers)
{
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"test_elicitation\",\"arguments\":{\"message\":\"Who?\"}}}"));
    json_t *q = msg(0);
    ck_assert_str_eq(str(q, "method"), "elicitation/create");
    ck_assert_str_eq(str(q, "params.message"), "Who?");
    ck_assert_str_eq(str(q, "params.requestedSchema.properties.email.type"), "string");
    ck_assert_str_eq(str(q, "params.requestedSchema.required.1"), "email");
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{"
                 "\"username\":\"u\"}}}"));
    ck_assert_str_eq(str(msg(0), "result.content.0.text"),
                     "User response: action=accept, content={\"username\":\"u\"}");
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"test_elicitation_sep1034_defaults\"}}"));
    q = msg(0);
    ck_assert_str_eq(str(q, "params.requestedSchema.properties.name.default"), "John Doe");
    ck_assert_int_eq(json_integer_value(at(q, "params.requestedSchema.properties.age.default")),
                     30);
    ck_assert(json_real_value(at(q, "params.requestedSchema.properties.score.default")) == 95.5);
    ck_assert_str_eq(str(q, "params.requestedSchema.properties.status.default"), "active");
    ck_assert(json_is_true(at(q, "params.requestedSchema.properties.verified.default")));
    ck_assert(!deliver("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"action\":\"decline\"}}"));
    ck_assert_str_eq(str(msg(0), "result.content.0.text"),
                     "Elicitation completed: action=decline, content=null");
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":"
                 "\"test_elicitation_sep1330_enums\"}}"));
    q = msg(0);
    json_t *props = at(q, "params.requestedSchema.properties");
    ck_assert_str_eq(str(props, "untitledSingle.enum.2"), "option3");
    ck_assert_str_eq(str(props, "titledSingle.oneOf.0.title"), "First Option");
    ck_assert_str_eq(str(props, "legacyEnum.enumNames.1"), "Option Two");
    ck_assert_str_eq(str(props, "untitledMulti.items.enum.0"), "option1");
    ck_assert_str_eq(str(props, "titledMulti.items.anyOf.2.const"), "value3");
    ck_assert(
        !deliver("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-1,\"message\":\"nope\"}}"));
    ck_assert(json_is_true(at(msg(0), "result.isError")));
    ck_assert_str_eq(str(msg(0), "result.content.0.text"), "elicitation failed: nope");
}
END_TEST

START_TEST(test_resources_and_prompts)
{
    json_t *r = result("resources/read", "{\"uri\":\"test://static-text\"}");
    ck_assert_str_eq(str(r, "contents.0.text"), "This is the content of the static text resource.");
    ck_assert_str_eq(str(r, "contents.0.mimeType"), "text/plain");
    r = result("resources/read", "{\"uri\":\"test://static-binary\"}");
    ck_assert_str_eq(str(r, "contents.0.mimeType"), "image/png");
    ck_assert_ptr_nonnull(at(r, "contents.0.blob"));
    r = result("resources/read", "{\"uri\":\"test://template/12\\\"3/data\"}");
    ck_assert_str_eq(str(r, "contents.0.uri"), "test://template/12\"3/data");
    ck_assert_str_eq(
        str(r, "contents.0.text"),
        "{\"id\":\"12\\\"3\",\"templateTest\":true,\"data\":\"Data for ID: 12\\\"3\"}");
    result("resources/subscribe", "{\"uri\":\"test://watched-resource\"}");
    result("resources/unsubscribe", "{\"uri\":\"test://watched-resource\"}");
    r = result("prompts/get", "{\"name\":\"test_prompt_with_arguments\",\"arguments\":{\"arg1\":"
                              "\"hello\",\"arg2\":\"world\"}}");
    ck_assert_str_eq(str(r, "messages.0.content.text"),
                     "Prompt with arguments: arg1='hello', arg2='world'");
    r = result("prompts/get", "{\"name\":\"test_prompt_with_embedded_resource\",\"arguments\":{"
                              "\"resourceUri\":\"test://example-resource\"}}");
    ck_assert_str_eq(str(r, "messages.0.content.resource.uri"), "test://example-resource");
    ck_assert_str_eq(str(r, "messages.1.content.text"),
                     "Please process the embedded resource above.");
    r = result("prompts/get", "{\"name\":\"test_prompt_with_image\"}");
    ck_assert_str_eq(str(r, "messages.0.content.type"), "image");
    r = result("prompts/get", "{\"name\":\"test_simple_prompt\"}");
    ck_assert_str_eq(str(r, "messages.0.content.text"), "This is a simple prompt for testing.");
    r = result("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
                                      "\"test_prompt_with_arguments\"},\"argument\":{\"name\":"
                                      "\"arg1\",\"value\":\"test\"}}");
    ck_assert_str_eq(str(r, "completion.values.0"), "testValue1");
}
END_TEST

/* server-stateless's list-change hooks add real entries, one per call, until their pool is
   used up; a listen stream that asked for that list hears of each (the others do not). */
START_TEST(test_trigger_hooks_change_the_lists)
{
#if FW_WITH_LISTEN
    fw_device_t *dev = sim_device(sim);
    size_t tools = fw_device_tool_count(dev);
    fw_session_t listener;
    fw_session_init(&listener, dev);
    out.len = 0;
    out.count = 0;
    static const char listen[] =
        "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"method\":\"subscriptions/listen\",\"params\":"
        "{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/"
        "protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    fw_msg_sink_t sink = {out_write, NULL, out_end, NULL};
    ck_assert(!fw_device_handle_session(dev, &listener, listen, strlen(listen), sink));
    ck_assert_str_eq(str(msg(0), "method"), "notifications/subscriptions/acknowledged");
    for (unsigned k = 1; k <= 4; k++) {
        json_t *r = result("tools/call", "{\"name\":\"test_trigger_tool_change\",\"arguments\":{}}");
        char name[32];
        snprintf(name, sizeof name, "test_added_tool_%u", k);
        ck_assert_str_eq(str(r, "content.0.text"), name);
        ck_assert_ptr_nonnull(fw_device_find_tool(dev, name));
        out.len = 0;
        out.count = 0;
        ck_assert_uint_eq(fw_device_drain(dev, &listener, sink), 1);
        ck_assert_str_eq(str(msg(0), "method"), "notifications/tools/list_changed");
    }
    ck_assert_uint_eq(fw_device_tool_count(dev), tools + 4);
    json_t *r = result("tools/call", "{\"name\":\"test_trigger_tool_change\",\"arguments\":{}}");
    ck_assert(json_is_true(at(r, "isError"))); /* the pool is used up: the list stays */
    ck_assert_uint_eq(fw_device_tool_count(dev), tools + 4);
    r = result("tools/call", "{\"name\":\"test_trigger_prompt_change\",\"arguments\":{}}");
    ck_assert_str_eq(str(r, "content.0.text"), "test_added_prompt_1");
    r = result("prompts/get", "{\"name\":\"test_added_prompt_1\"}");
    ck_assert_ptr_nonnull(strstr(str(r, "messages.0.content.text"), "added at run time"));
    out.len = 0;
    out.count = 0;
    ck_assert_uint_eq(fw_device_drain(dev, &listener, sink), 0); /* it asked for tools only */
#endif
}
END_TEST

static Suite *fixtures_suite(void)
{
    Suite *s = suite_create("fixtures");
    TCase *t = tcase_create("registration");
    tcase_add_loop_test(t, test_every_board_takes_the_fixtures, 0, sizeof boards / sizeof *boards);
    suite_add_tcase(s, t);
    t = tcase_create("answers");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_content_tools);
    tcase_add_test(t, test_logging_and_progress_come_before_the_result);
    tcase_add_test(t, test_sampling_asks_and_answers);
    tcase_add_test(t, test_elicitation_asks_and_answers);
    tcase_add_test(t, test_resources_and_prompts);
    tcase_add_test(t, test_trigger_hooks_change_the_lists);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(fixtures_suite)
