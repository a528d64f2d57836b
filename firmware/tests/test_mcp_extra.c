/* test_mcp_extra.c: specification of the core's extension points for MCP: resources and prompts
   an application adds (fw_device_add_resource, fw_device_add_prompt, fw_device_resource_changed)
   and tools that ask the client (fw_call_ask, fw_call_answer) with a deferred response. */
#include <stdio.h>

#include "test_mcp_util.h"

#if FW_WITH_MCP

static void setup(void)
{
    mcp_setup(true);
    fw_session_init(&sess, &dev);
}

/* initialize declaring the client capabilities caps (a JSON object's members). */
static void initialize_with(const char *caps)
{
    char params[256];
    snprintf(params, sizeof params,
             "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{%s},\"clientInfo\":{\"name\":"
             "\"t\",\"version\":\"1\"}}",
             caps);
    result_of("initialize", params);
}

/* ---------------------------------------------------------------- resources */

/* Writes {"contents":[{"uri", "mimeType", "text": "<user> <uri>"}]}. */
static fw_err_t read_echo(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    char text[160];
    snprintf(text, sizeof text, "%s %s", (const char *)res->user, uri);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "contents");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", uri);
    if (res->mime_type != NULL) fw_jw_kv_str(w, "mimeType", res->mime_type);
    fw_jw_kv_str(w, "text", text);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t read_missing(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    (void)res;
    return fw_call_errorf(call, FW_ERR_RESOURCE_NOT_FOUND, "no item %s", uri);
}

static const fw_resource_t res_notes = {"app://notes", "notes",   "Notes of the app",
                                        "text/plain",  read_echo, "fixed"};
static const fw_resource_t res_item = {"app://item/{id}/data", "item",    "An item by id",
                                       "application/json",     read_echo, "template"};
static const fw_resource_t res_special = {
    "app://item/special/data", "special", NULL, NULL, read_echo, "special"};
static const fw_resource_t res_gone = {"app://gone", "gone", NULL, NULL, read_missing, NULL};

static fw_err_t add_res(const char *uri, const char *name, bool with_read)
{
    static fw_resource_t pool[32];
    static unsigned used;
    fw_resource_t *r = &pool[used++ % 32];
    *r = (fw_resource_t){uri, name, NULL, NULL, with_read ? read_echo : NULL, "x"};
    return fw_device_add_resource(&dev, r);
}

/* Resources the application added, as the listings show them: fixed ones after device://info
   and the pins, templates after pin://{name}. */
static size_t app_resources_listed(void)
{
    json_t *list = json_object_get(result_of("resources/list", NULL), "resources");
    json_t *templates =
        json_object_get(result_of("resources/templates/list", NULL), "resourceTemplates");
    size_t own_fixed = 1 + mcp_test_board.pin_count;
    ck_assert_uint_ge(json_array_size(list), own_fixed);
    ck_assert_uint_ge(json_array_size(templates), 1);
    return json_array_size(list) - own_fixed + json_array_size(templates) - 1;
}

START_TEST(test_add_resource_checks_the_descriptor)
{
    ck_assert_int_eq(fw_device_add_resource(&dev, NULL), FW_ERR_ARG);
    ck_assert_int_eq(add_res("", "n", true), FW_ERR_ARG);
    ck_assert_int_eq(add_res(NULL, "n", true), FW_ERR_ARG);
    ck_assert_int_eq(add_res("a://x", "", true), FW_ERR_ARG);
    ck_assert_int_eq(add_res("a://x", "n", false), FW_ERR_ARG);
    const char *bad_templates[] = {"a://{}/x", "a://{x}/{y}", "a://{x",  "a://x}",
                                   "a://}{x}", "a://{x/y}",   "a://{x}}"};
    for (size_t i = 0; i < sizeof bad_templates / sizeof *bad_templates; i++)
        ck_assert_msg(add_res(bad_templates[i], "n", true) == FW_ERR_ARG, "%s accepted",
                      bad_templates[i]);
    char long_uri[200];
    memset(long_uri, 'u', sizeof long_uri - 1);
    long_uri[sizeof long_uri - 1] = 0;
    ck_assert_int_eq(add_res(long_uri, "n", true), FW_ERR_ARG);
    ck_assert_uint_eq(app_resources_listed(), 0);
}
END_TEST

START_TEST(test_add_resource_refuses_uris_served_already)
{
    ck_assert_int_eq(add_res("device://info", "n", true), FW_ERR_EXISTS);
    ck_assert_int_eq(add_res("pin://led", "n", true), FW_ERR_EXISTS);
    ck_assert_int_eq(add_res("pin://{other}", "n", true), FW_ERR_EXISTS);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_notes), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_notes), FW_ERR_EXISTS);
    ck_assert_int_eq(add_res("app://notes", "again", true), FW_ERR_EXISTS);
}
END_TEST

START_TEST(test_add_resource_pool_is_bounded)
{
    char uris[FW_EXTRA_RESOURCES_MAX + 1][24];
    for (int i = 0; i < FW_EXTRA_RESOURCES_MAX; i++) {
        snprintf(uris[i], sizeof uris[i], "a://r%d", i);
        ck_assert_int_eq(add_res(uris[i], "n", true), FW_OK);
    }
    ck_assert_int_eq(add_res("a://one-more", "n", true), FW_ERR_NO_SPACE);
    /* fw_device_init starts afresh: added resources are forgotten */
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(app_resources_listed(), 0);
    ck_assert_int_eq(add_res("a://one-more", "n", true), FW_OK);
}
END_TEST

START_TEST(test_resources_list_and_templates)
{
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_item), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_notes), FW_OK);
    json_t *list = json_object_get(result_of("resources/list", NULL), "resources");
    size_t n = json_array_size(list);
    /* device://info, the 4 pins, then the fixed resource only */
    ck_assert_uint_eq(n, 1 + mcp_test_board.pin_count + 1);
    json_t *last = json_array_get(list, n - 1);
    ck_assert_str_eq(jstr(last, "uri"), "app://notes");
    ck_assert_str_eq(jstr(last, "name"), "notes");
    ck_assert_str_eq(jstr(last, "description"), "Notes of the app");
    ck_assert_str_eq(jstr(last, "mimeType"), "text/plain");
    json_t *templates =
        json_object_get(result_of("resources/templates/list", NULL), "resourceTemplates");
    ck_assert_uint_eq(json_array_size(templates), 2);
    ck_assert_str_eq(jstr(templates, "0.uriTemplate"), "pin://{name}");
    ck_assert_str_eq(jstr(templates, "1.uriTemplate"), "app://item/{id}/data");
    ck_assert_str_eq(jstr(templates, "1.name"), "item");
    ck_assert_str_eq(jstr(templates, "1.mimeType"), "application/json");
    ck_assert_ptr_null(jpath(templates, "1.uri"));
}
END_TEST

/* A descriptor without description or mimeType publishes neither. */
START_TEST(test_optional_members_are_left_out)
{
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_special), FW_OK);
    json_t *list = json_object_get(result_of("resources/list", NULL), "resources");
    json_t *last = json_array_get(list, json_array_size(list) - 1);
    ck_assert_str_eq(jstr(last, "uri"), "app://item/special/data");
    ck_assert_ptr_null(json_object_get(last, "description"));
    ck_assert_ptr_null(json_object_get(last, "mimeType"));
}
END_TEST

typedef struct read_case {
    const char *uri;
    const char *text; /* NULL: -32002 */
} read_case_t;

static const read_case_t reads[] = {
    {"app://notes", "fixed app://notes"},
    {"app://item/42/data", "template app://item/42/data"},
    {"app://item/a%20b/data", "template app://item/a%20b/data"},
    {"app://item/special/data", "special app://item/special/data"}, /* fixed before template */
    {"app://item//data", NULL},    /* the variable is never empty */
    {"app://item/4/2/data", NULL}, /* nor more than one segment */
    {"app://item/42/dat", NULL},   /* the text around it must match */
    {"app://items/42/data", NULL},
    {"app://notes/more", NULL},
    {"app://item/{id}/data", "template app://item/{id}/data"}, /* one segment: as any value */
};

START_TEST(test_resources_read_matches_fixed_uris_then_templates)
{
    const read_case_t *c = &reads[_i];
    char params[128];
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_item), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_notes), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_special), FW_OK);
    snprintf(params, sizeof params, "{\"uri\":\"%s\"}", c->uri);
    if (c->text == NULL) {
        json_t *e = error_of("resources/read", params, FW_RPC_RESOURCE_NOT_FOUND);
        ck_assert_ptr_nonnull(strstr(jstr(e, "message"), c->uri));
        return;
    }
    json_t *r = result_of("resources/read", params);
    ck_assert_str_eq(jstr(r, "contents.0.uri"), c->uri);
    ck_assert_str_eq(jstr(r, "contents.0.text"), c->text);
}
END_TEST

START_TEST(test_resource_handler_errors_are_the_requests)
{
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_gone), FW_OK);
    json_t *e = error_of("resources/read", "{\"uri\":\"app://gone\"}", FW_RPC_RESOURCE_NOT_FOUND);
    ck_assert_str_eq(jstr(e, "message"), "no item app://gone");
}
END_TEST

/* Updates of an added resource: only on fw_device_resource_changed, only to subscribers. */
START_TEST(test_resource_changed_reaches_subscribers)
{
    fw_session_t other;
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_notes), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_item), FW_OK);
    initialize_with("");
    fw_session_init(&other, &dev);
    result_of("resources/subscribe", "{\"uri\":\"app://notes\"}");
    result_of("resources/subscribe", "{\"uri\":\"app://item/7/data\"}");
    ck_assert_uint_eq(sess.subscriptions, (1u << (FW_PINS_MAX + 1)) | (1u << (FW_PINS_MAX + 2)));
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 0); /* nothing changed */
    ck_assert_int_eq(fw_device_resource_changed(&dev, "app://notes"), FW_OK);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 1);
    json_t *n = msg_at(0);
    ck_assert_str_eq(jstr(n, "method"), "notifications/resources/updated");
    ck_assert_str_eq(jstr(n, "params.uri"), "app://notes");
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 0);  /* once */
    ck_assert_uint_eq(fw_device_drain(&dev, &other, mcap_sink(&out)), 0); /* not subscribed */
    /* templates and unknown URIs have no change to report */
    ck_assert_int_eq(fw_device_resource_changed(&dev, "app://item/{id}/data"),
                     FW_ERR_RESOURCE_NOT_FOUND);
    ck_assert_int_eq(fw_device_resource_changed(&dev, "app://nothing"), FW_ERR_RESOURCE_NOT_FOUND);
    ck_assert_int_eq(fw_device_resource_changed(&dev, NULL), FW_ERR_RESOURCE_NOT_FOUND);
    result_of("resources/unsubscribe", "{\"uri\":\"app://notes\"}");
    ck_assert_int_eq(fw_device_resource_changed(&dev, "app://notes"), FW_OK);
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 0);
    error_of("resources/subscribe", "{\"uri\":\"app://nothing\"}", FW_RPC_RESOURCE_NOT_FOUND);
}
END_TEST

/* ---------------------------------------------------------------- prompts */

/* Repeats its arguments: "a=<argv[0] or (none)> b=<argv[1] or (none)>". */
static fw_err_t get_echo(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    char text[256];
    size_t n = 0;
    for (size_t i = 0; i < p->arg_count; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s=%s", i ? " " : "", p->args[i].name,
                              argv[i] ? argv[i] : "(none)");
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "messages");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "role", "user");
    fw_jw_key(w, "content");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_kv_str(w, "text", text);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

static const char *const colours[] = {"red", "green", "grey", NULL};
static const fw_prompt_arg_t echo_args[] = {
    {"a", "First", true, colours},
    {"b", NULL, false, NULL},
};
static const fw_prompt_t prompt_echo = {"echo",   "Echo", "Repeats its arguments", echo_args, 2,
                                        get_echo, NULL};
static const fw_prompt_t prompt_bare = {"bare", NULL, NULL, NULL, 0, get_echo, NULL};

START_TEST(test_add_prompt_checks_the_descriptor)
{
    fw_prompt_t p = prompt_echo;
    fw_prompt_arg_t dup[2] = {{"x", NULL, false, NULL}, {"x", NULL, false, NULL}};
    ck_assert_int_eq(fw_device_add_prompt(&dev, NULL), FW_ERR_ARG);
    p.name = "";
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.name = "a_prompt_name_that_is_far_too_long_for_the_device_to_read_back_again";
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.get = NULL;
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.arg_count = FW_PARAMS_MAX + 1;
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.args = NULL;
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.args = dup;
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_ARG);
    p = prompt_echo;
    p.name = "diagnose_pin"; /* the device's own */
    ck_assert_int_eq(fw_device_add_prompt(&dev, &p), FW_ERR_EXISTS);
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_OK);
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_ERR_EXISTS);
}
END_TEST

START_TEST(test_add_prompt_pool_is_bounded)
{
    static fw_prompt_t many[FW_EXTRA_PROMPTS_MAX + 1];
    static char names[FW_EXTRA_PROMPTS_MAX + 1][16];
    for (int i = 0; i <= FW_EXTRA_PROMPTS_MAX; i++) {
        snprintf(names[i], sizeof names[i], "p%d", i);
        many[i] = prompt_bare;
        many[i].name = names[i];
        ck_assert_int_eq(fw_device_add_prompt(&dev, &many[i]),
                         i < FW_EXTRA_PROMPTS_MAX ? FW_OK : FW_ERR_NO_SPACE);
    }
}
END_TEST

START_TEST(test_prompts_list_adds_the_applications)
{
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_OK);
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_bare), FW_OK);
    json_t *list = json_object_get(result_of("prompts/list", NULL), "prompts");
    ck_assert_uint_eq(json_array_size(list), 4);
    ck_assert_str_eq(jstr(list, "0.name"), "diagnose_pin");
    ck_assert_str_eq(jstr(list, "2.name"), "echo");
    ck_assert_str_eq(jstr(list, "2.title"), "Echo");
    ck_assert_str_eq(jstr(list, "2.description"), "Repeats its arguments");
    ck_assert_str_eq(jstr(list, "2.arguments.0.name"), "a");
    ck_assert_str_eq(jstr(list, "2.arguments.0.description"), "First");
    ck_assert(json_is_true(jpath(list, "2.arguments.0.required")));
    ck_assert_ptr_null(jpath(list, "2.arguments.1.description"));
    ck_assert(json_is_false(jpath(list, "2.arguments.1.required")));
    ck_assert_str_eq(jstr(list, "3.name"), "bare");
    ck_assert_ptr_null(jpath(list, "3.title"));
    ck_assert_ptr_null(jpath(list, "3.description"));
    ck_assert_uint_eq(json_array_size(jpath(list, "3.arguments")), 0);
}
END_TEST

START_TEST(test_prompts_get_decodes_the_arguments)
{
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_OK);
    json_t *r = result_of(
        "prompts/get", "{\"name\":\"echo\",\"arguments\":{\"a\":\"x\\\"y\\u00e9\",\"b\":\"2\"}}");
    ck_assert_str_eq(jstr(r, "messages.0.content.text"), "a=x\"y\xc3\xa9 b=2");
    r = result_of("prompts/get", "{\"name\":\"echo\",\"arguments\":{\"a\":\"\"}}");
    ck_assert_str_eq(jstr(r, "messages.0.content.text"), "a= b=(none)");
    /* the device's own prompts still answer */
    result_of("prompts/get", "{\"name\":\"board_overview\"}");
}
END_TEST

START_TEST(test_prompts_get_checks_the_arguments)
{
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_OK);
    json_t *e = error_of("prompts/get", "{\"name\":\"echo\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "arguments.a");
    e = error_of("prompts/get", "{\"name\":\"echo\",\"arguments\":{\"a\":1,\"b\":[]}}",
                 FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "arguments.a");
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "must be a string");
    ck_assert_str_eq(jstr(e, "data.issues.1.path"), "arguments.b");
    e = error_of("prompts/get", "{\"name\":\"echo\",\"arguments\":{\"a\":\"x\\u0000y\"}}",
                 FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "must not contain NUL characters");
    char params[FW_SCRATCH_SIZE + 64];
    int n = snprintf(params, sizeof params, "{\"name\":\"echo\",\"arguments\":{\"a\":\"");
    memset(params + n, 'z', FW_SCRATCH_SIZE);
    snprintf(params + n + FW_SCRATCH_SIZE, sizeof params - (size_t)n - FW_SCRATCH_SIZE, "\"}}");
    e = error_of("prompts/get", params, FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(e, "data.issues.0.message"), "longer than"));
    error_of("prompts/get", "{\"name\":\"nothing\"}", FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_completion_of_an_applications_prompt)
{
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt_echo), FW_OK);
    ck_assert_int_eq(fw_device_add_resource(&dev, &res_item), FW_OK);
    json_t *c = result_of("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":"
                                                 "\"echo\"},\"argument\":{\"name\":\"a\","
                                                 "\"value\":\"gr\"}}");
    ck_assert_uint_eq(json_array_size(jpath(c, "completion.values")), 2);
    ck_assert_str_eq(jstr(c, "completion.values.0"), "green");
    ck_assert_str_eq(jstr(c, "completion.values.1"), "grey");
    ck_assert_int_eq(jint(c, "completion.total"), 2);
    ck_assert(json_is_false(jpath(c, "completion.hasMore")));
    c = result_of("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"echo\"},"
                                         "\"argument\":{\"name\":\"b\",\"value\":\"\"}}");
    ck_assert_uint_eq(json_array_size(jpath(c, "completion.values")), 0);
    c = result_of("completion/complete", "{\"ref\":{\"type\":\"ref/resource\",\"uri\":"
                                         "\"app://item/{id}/data\"},\"argument\":{\"name\":"
                                         "\"id\",\"value\":\"\"}}");
    ck_assert_uint_eq(json_array_size(jpath(c, "completion.values")), 0);
    error_of("completion/complete",
             "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nothing\"},"
             "\"argument\":{\"name\":\"a\",\"value\":\"\"}}",
             -32602);
}
END_TEST

/* ---------------------------------------------------------------- asking the client */

/* How the asking tools behave, set by each test. */
static struct {
    int runs;
    bool fail_after_ask;   /* return an error after fw_call_ask */
    bool result_after_ask; /* call fw_call_result after fw_call_ask (a handler bug) */
    bool ask_twice;        /* ask again when the first answer comes */
    fw_err_t ask_err;      /* what fw_call_ask returned last */
} asker;

/* The first run asks sampling/createMessage; the run for the answer reports what came back. */
static fw_err_t ask_fn(fw_call_t *call)
{
    const fw_answer_t *a = fw_call_answer(call);
    fw_jw_t *p;
    asker.runs++;
    if (a == NULL || asker.ask_twice) {
        asker.ask_twice = asker.ask_twice && a == NULL;
        asker.ask_err = fw_call_ask(call, "sampling/createMessage", &p);
        if (asker.ask_err != FW_OK) return asker.ask_err;
        fw_jw_kv_i64(p, "maxTokens", 100);
        fw_jw_kv_str(p, "round", a == NULL ? "first" : "second");
        if (asker.fail_after_ask) return fw_call_errorf(call, FW_ERR_HW, "%s", "gave up");
        if (asker.result_after_ask) fw_jw_kv_str(fw_call_result(call), "early", "yes");
        return FW_OK;
    }
    ck_assert_int_eq(fw_call_arg(call, "prompt")->present, false); /* not bound again */
    fw_jw_t *w = fw_call_result(call);
    int32_t tok = a->result >= 0 ? a->result : a->error;
    const fw_json_tok_t *t = &a->doc->toks[tok];
    fw_jw_kv_str(w, a->result >= 0 ? "answer" : "refused", "");
    fw_jw_key(w, "raw");
    fw_jw_strn(w, a->doc->buf + t->start, t->end - t->start);
    return FW_OK;
}

static const fw_param_t prompt_param[] = {
    {.name = "prompt", .type = FW_PARAM_STRING, .required = true},
};

static const fw_tool_t ask_tool = {.name = "ask",
                                   .description = "asks the client",
                                   .params = prompt_param,
                                   .param_count = 1,
                                   .flags = FW_TOOL_READ_ONLY,
                                   .handler = ask_fn};

static fw_err_t ask_roots_fn(fw_call_t *call)
{
    fw_jw_t *p;
    if (fw_call_answer(call) != NULL) return FW_OK;
    asker.ask_err = fw_call_ask(call, "roots/list", &p);
    return asker.ask_err;
}

static const fw_tool_t roots_tool = {.name = "roots",
                                     .description = "asks for roots",
                                     .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,
                                     .handler = ask_roots_fn};

static void ask_setup(void)
{
    setup();
    memset(&asker, 0, sizeof asker);
    ck_assert_int_eq(fw_device_add_tool(&dev, &ask_tool), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &roots_tool), FW_OK);
}

#define CALL_ASK(id)                                                                               \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","   \
    "\"arguments\":{\"prompt\":\"hi\"}}}"

/* The client's result for request id. */
static void answer(unsigned id)
{
    char msg[160];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"result\":{\"text\":\"fine\"}}", id);
    send_in(&sess, msg);
}

START_TEST(test_ask_sends_a_request_and_defers_the_response)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("\"call-1\""));
    ck_assert(!answered); /* no response of its own: an HTTP transport answers 202 */
    ck_assert_uint_eq(out.count, 1);
    size_t len;
    const char *text = mcap_text(&out, 0, &len);
    ck_assert_str_eq(text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\","
                           "\"params\":{\"maxTokens\":100,\"round\":\"first\"}}");
    ck_assert_ptr_eq(sess.ask_tool, &ask_tool);
    ck_assert_uint_eq(sess.ask_id, 1);
    answer(1);
    ck_assert(!answered); /* the response belongs to the earlier call, not to this message */
    ck_assert_uint_eq(out.count, 1);
    json_t *r = msg_at(0);
    ck_assert_str_eq(jstr(r, "id"), "call-1");
    ck_assert_str_eq(jstr(r, "result.content.0.type"), "text");
    ck_assert_str_eq(jstr(r, "result.structuredContent.raw"), "{\"text\":\"fine\"}");
    ck_assert_ptr_null(sess.ask_tool);
    ck_assert_int_eq(asker.runs, 2);
    answer(1); /* a second answer finds nothing waiting */
    ck_assert(!answered);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

START_TEST(test_an_error_answer_reaches_the_handler)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("7"));
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"no\"}}");
    json_t *r = msg_at(0);
    ck_assert_int_eq(jint(r, "id"), 7);
    ck_assert_str_eq(jstr(r, "result.structuredContent.raw"), "{\"code\":-1,\"message\":\"no\"}");
    ck_assert_ptr_nonnull(jpath(r, "result.structuredContent.refused"));
}
END_TEST

/* Only a response with the number the device sent answers the waiting call. */
START_TEST(test_other_responses_are_ignored)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("7"));
    const char *others[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}",
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        send_in(&sess, others[i]);
        ck_assert(!answered);
        ck_assert_uint_eq(out.len, 0);
        ck_assert_ptr_eq(sess.ask_tool, &ask_tool);
    }
    fw_session_t other; /* nor does the same id in another session */
    fw_session_init(&other, &dev);
    send_in(&other, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    ck_assert_uint_eq(out.len, 0);
    answer(1);
    ck_assert_int_eq(jint(msg_at(0), "id"), 7);
}
END_TEST

START_TEST(test_ask_needs_the_clients_capability)
{
    initialize_with("\"elicitation\":{}");
    send_in(&sess, CALL_ASK("3"));
    ck_assert(answered);
    /* no request went out: the failure's log message, then the result */
    ck_assert_uint_eq(out.count, 2);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "notifications/message");
    json_t *r = msg_at(1);
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    ck_assert(json_is_true(jpath(r, "result.isError")));
    ck_assert_str_eq(jstr(r, "result.content.0.text"),
                     "the client did not declare the capability sampling/ requests need");
    ck_assert_ptr_null(sess.ask_tool);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"roots\"}}");
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    initialize_with("\"roots\":{}");
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"roots\"}}");
    ck_assert_int_eq(asker.ask_err, FW_OK);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "roots/list");
}
END_TEST

START_TEST(test_one_request_waits_at_a_time)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("1"));
    send_in(&sess, CALL_ASK("2"));
    ck_assert(answered);
    ck_assert_int_eq(asker.ask_err, FW_ERR_NO_SPACE);
    json_t *r = msg_at(out.count - 1);
    ck_assert_int_eq(jint(r, "id"), 2);
    ck_assert(json_is_true(jpath(r, "result.isError")));
    answer(1);
    ck_assert_int_eq(jint(msg_at(0), "id"), 1); /* the first still waited */
}
END_TEST

/* Calls that cannot carry a request: a plain sink, a batch, a notification, an MCP/U call. */
START_TEST(test_ask_needs_a_framed_single_request)
{
    cap_t plain;
    initialize_with("\"sampling\":{}");
    cap_reset(&plain);
    ck_assert(fw_device_handle(&dev, CALL_ASK("1"), strlen(CALL_ASK("1")), cap_sink(&plain)));
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(plain.buf, "\"isError\":true"));
    send_in(&sess, "[" CALL_ASK("1") "]");
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    ck_assert_ptr_null(sess.ask_tool);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
                   "\"arguments\":{\"prompt\":\"hi\"}}}");
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ask\",\"params\":{\"prompt\":"
                   "\"hi\"}}");
    ck_assert_int_eq(asker.ask_err, FW_ERR_UNSUPPORTED);
    ck_assert_ptr_null(sess.ask_tool);
}
END_TEST

START_TEST(test_a_long_call_id_cannot_wait)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("\"an-id-that-is-longer-than-thirty-two-bytes\""));
    ck_assert_int_eq(asker.ask_err, FW_ERR_NO_SPACE);
    ck_assert(answered);
}
END_TEST

/* A handler that fails after asking: the request is out, the call answers at once. */
START_TEST(test_failing_after_ask_answers_now)
{
    initialize_with("\"sampling\":{}");
    asker.fail_after_ask = true;
    send_in(&sess, CALL_ASK("5"));
    ck_assert(answered);
    ck_assert_uint_eq(out.count, 2);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "sampling/createMessage");
    json_t *r = msg_at(1);
    ck_assert_int_eq(jint(r, "id"), 5);
    ck_assert(json_is_true(jpath(r, "result.isError")));
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "gave up");
    ck_assert_ptr_null(sess.ask_tool);
    answer(1);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

/* fw_call_result after fw_call_ask ends the request first: both messages stay whole. */
START_TEST(test_result_after_ask_answers_now)
{
    initialize_with("\"sampling\":{}");
    asker.result_after_ask = true;
    send_in(&sess, CALL_ASK("5"));
    ck_assert(answered);
    ck_assert_uint_eq(out.count, 2);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "sampling/createMessage");
    ck_assert_str_eq(jstr(msg_at(1), "result.structuredContent.early"), "yes");
    ck_assert_ptr_null(sess.ask_tool);
}
END_TEST

START_TEST(test_cancelling_the_waiting_call)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("\"c\""));
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                   "\"requestId\":\"c\"}}");
    ck_assert(!answered);
    ck_assert_ptr_null(sess.ask_tool);
    answer(1);
    ck_assert_uint_eq(out.len, 0); /* MCP: a cancelled request is never answered */
}
END_TEST

START_TEST(test_initialize_ends_the_wait)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("1"));
    initialize_with("\"sampling\":{}");
    ck_assert_ptr_null(sess.ask_tool);
    answer(1);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

START_TEST(test_the_tool_may_ask_again)
{
    initialize_with("\"sampling\":{}");
    asker.ask_twice = true;
    send_in(&sess, CALL_ASK("9"));
    answer(1);
    ck_assert(!answered);
    ck_assert_uint_eq(out.count, 1);
    ck_assert_str_eq(jstr(msg_at(0), "params.round"), "second");
    ck_assert_int_eq(jint(msg_at(0), "id"), 2);
    answer(2);
    ck_assert_int_eq(jint(msg_at(0), "id"), 9);
    ck_assert_int_eq(asker.runs, 3);
}
END_TEST

/* Over a byte stream: the request is a line, the deferred response a line after the answer. */
START_TEST(test_ask_over_a_byte_stream)
{
    static cap_t stream;
    fw_framer_t fr;
    fw_framer_init(&fr);
    cap_reset(&stream);
    const char *lines = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                        "\"capabilities\":{\"sampling\":{}}}}\n" CALL_ASK("8") "\n";
    fw_device_feed_session(&dev, &sess, &fr, (const uint8_t *)lines, strlen(lines),
                           cap_sink(&stream));
    char *second = strchr(stream.buf, '\n') + 1;
    ck_assert_ptr_nonnull(strstr(second, "\"method\":\"sampling/createMessage\""));
    ck_assert_uint_eq(strlen(second), (size_t)(strchr(second, '\n') - second) + 1);
    cap_reset(&stream);
    const char *reply = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    fw_device_feed_session(&dev, &sess, &fr, (const uint8_t *)reply, strlen(reply),
                           cap_sink(&stream));
    ck_assert_ptr_nonnull(strstr(stream.buf, "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":"));
    ck_assert_uint_eq(stream.buf[stream.len - 1], '\n');
}
END_TEST

/* A FW_TOOL_MCP_RESULT tool answers with the content it writes. */
static fw_err_t direct_fn(fw_call_t *call)
{
    fw_jw_t *p;
    const fw_answer_t *a = fw_call_answer(call);
    if (a == NULL) return fw_call_ask(call, "elicitation/create", &p);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_kv_str(w, "text", "answered");
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

START_TEST(test_an_mcp_result_tool_asks_too)
{
    static const fw_tool_t direct = {
        .name = "direct", .description = "d", .flags = FW_TOOL_MCP_RESULT, .handler = direct_fn};
    ck_assert_int_eq(fw_device_add_tool(&dev, &direct), FW_OK);
    initialize_with("\"elicitation\":{}");
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"direct\"}}");
    ck_assert(!answered);
    ck_assert_str_eq(jstr(msg_at(0), "method"), "elicitation/create");
    ck_assert_uint_eq(json_object_size(jpath(msg_at(0), "params")), 0);
    answer(1);
    json_t *r = msg_at(0);
    ck_assert_int_eq(jint(r, "id"), 4);
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "answered");
    ck_assert_ptr_null(jpath(r, "result.structuredContent"));
}
END_TEST

/* Once the device is initialised again, a late answer is moot. */
START_TEST(test_an_answer_after_reinit_is_ignored)
{
    initialize_with("\"sampling\":{}");
    send_in(&sess, CALL_ASK("1"));
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    answer(1);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_ptr_null(sess.ask_tool);
}
END_TEST

/* ---------------------------------------------------------------- the transport's envelope */

/* Messages a transport hands over after reading their envelope: sessions, calls, errors of
   every kind, batches, and bodies the reading refuses (no JSON, too deep, too many tokens, too
   long). */
static const char *const envelope_msgs[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"gpio_write\","
    "\"arguments\":{\"pin\":2,\"value\":true}}}",
    " {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":{\"name\":"
    "\"gpio_read\",\"arguments\":{\"pin\":2}}} ",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"gpio_write\","
    "\"arguments\":{\"pin\":2,\"value\":\"on\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"no/such\"}",
    "[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":"
    "\"notifications/cancelled\",\"params\":{\"requestId\":9}},{\"jsonrpc\":\"2.0\",\"id\":7,"
    "\"method\":\"gpio_read\",\"params\":{\"pin\":2}}]",
    "[]",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}",
    "",
    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":",
    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\",\"params\":{\"a\":[[[[[[[[[[[[[[[[[[1]]]]]]]"
    "]]]]]]]]]]]}}",
    "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}",
};

/* Every answer of the device (whether it answered, then the messages) to envelope_msgs and to
   two bodies made here (more tokens than FW_JSON_TOKENS_MAX; over FW_MSG_MAX), each handed to
   fw_device_handle_envelope after fw_envelope_read with ntoks tokens, or (ntoks 0) to
   fw_device_handle_session; on a fresh device. */
static size_t envelope_transcript(uint32_t ntoks, char *t, size_t cap)
{
    static char many[FW_JSON_TOKENS_MAX * 4 + 64], big[FW_MSG_MAX + 64];
    size_t n = (size_t)snprintf(many, sizeof many, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":"
                                                   "\"ping\",\"params\":{\"a\":[");
    for (unsigned i = 0; i < FW_JSON_TOKENS_MAX; i++) n += (size_t)snprintf(many + n, 4, "1,");
    memcpy(many + n, "1]}}", 5);
    n = (size_t)snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\","
                                          "\"params\":{\"a\":\"");
    memset(big + n, 'x', FW_MSG_MAX - n);
    memcpy(big + FW_MSG_MAX, "\"}}", 4);
    const char *msgs[sizeof envelope_msgs / sizeof envelope_msgs[0] + 2];
    size_t count = 0;
    for (; count < sizeof envelope_msgs / sizeof envelope_msgs[0]; count++)
        msgs[count] = envelope_msgs[count];
    msgs[count++] = many;
    msgs[count++] = big;

    mcap_reset(&out);
    mcp_setup(true);
    fw_session_init(&sess, &dev);
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        mcap_reset(&out);
        bool a;
        if (ntoks == 0) {
            a = fw_device_handle_session(&dev, &sess, msgs[i], strlen(msgs[i]), mcap_sink(&out));
        } else {
            static fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
            fw_envelope_t env;
            fw_envelope_read(&env, msgs[i], strlen(msgs[i]), toks, ntoks);
            a = fw_device_handle_envelope(&dev, &sess, &env, mcap_sink(&out));
        }
        int w = snprintf(t + used, cap - used, "%zu %d %u %s\n", i, (int)a, out.count, out.buf);
        ck_assert(w > 0 && (size_t)w < cap - used);
        used += (size_t)w;
    }
    return used;
}

/* The envelope's members as the device reads them: the first of a name, escaped keys
   decoded, a batch holding a request, and what is no request. */
START_TEST(test_envelope_members)
{
    static fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    fw_envelope_t env;
    const char *m = "{\"\\u0069d\":7,\"method\":\"a\",\"method\":\"b\",\"params\":{\"_meta\":{"
                    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}},\"id\":8}";
    ck_assert_int_eq(fw_envelope_read(&env, m, strlen(m), toks, FW_JSON_TOKENS_MAX), FW_OK);
    ck_assert(env.requests && !env.batch);
    ck_assert_int_eq(env.id, 2);
    ck_assert(fw_json_str_eq(&env.doc, (uint32_t)env.method, "a"));
    ck_assert(env.params > 0 && env.meta > env.params && env.version > env.meta);
    ck_assert(fw_json_str_eq(&env.doc, (uint32_t)env.version, "2026-07-28"));
    ck_assert_int_eq(env.caps, -1);
    m = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    ck_assert_int_eq(fw_envelope_read(&env, m, strlen(m), toks, FW_JSON_TOKENS_MAX), FW_OK);
    ck_assert(!env.requests && env.method > 0 && env.id == -1 && env.params == -1);
    m = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},1,{\"i\\u0064\":2,\"method\":\"ping\"}]";
    ck_assert_int_eq(fw_envelope_read(&env, m, strlen(m), toks, FW_JSON_TOKENS_MAX), FW_OK);
    ck_assert(env.batch && env.requests && env.method == -1);
    m = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},{\"method\":\"x\"}]";
    ck_assert_int_eq(fw_envelope_read(&env, m, strlen(m), toks, FW_JSON_TOKENS_MAX), FW_OK);
    ck_assert(env.batch && !env.requests);
    ck_assert_int_eq(fw_envelope_read(&env, "\"id\"", 4, toks, FW_JSON_TOKENS_MAX), FW_OK);
    ck_assert(!env.batch && !env.requests && env.id == -1 && env.method == -1);
    ck_assert_int_eq(fw_envelope_read(&env, "{\"id\":", 6, toks, FW_JSON_TOKENS_MAX),
                     FW_ERR_JSON_INVALID);
}
END_TEST

/* The device answers a message handed over with its envelope exactly as the same message
   handed over as text, whether the transport read it with the device's limits or with fewer
   tokens (its refusal is not taken: the device reads the text again). */
START_TEST(test_envelope_handoff_answers_as_the_text)
{
    static char by_text[1 << 16], by_env[1 << 16], by_few[1 << 16];
    size_t a = envelope_transcript(0, by_text, sizeof by_text);
    size_t b = envelope_transcript(FW_JSON_TOKENS_MAX, by_env, sizeof by_env);
    size_t c = envelope_transcript(3, by_few, sizeof by_few);
    ck_assert_str_eq(by_env, by_text);
    ck_assert_str_eq(by_few, by_text);
    ck_assert_uint_eq(a, b);
    ck_assert_uint_eq(a, c);
    /* what the transcript holds: a call answered in the session, a refusal of each kind */
    ck_assert_ptr_nonnull(strstr(by_text, "\"structuredContent\":{\"pin\":2"));
    ck_assert_ptr_nonnull(strstr(by_text, "-32700"));
    ck_assert_ptr_nonnull(strstr(by_text, "FW_JSON_TOKENS_MAX"));
    ck_assert_ptr_nonnull(strstr(by_text, "FW_MSG_MAX"));
    ck_assert_ptr_nonnull(strstr(by_text, "FW_JSON_DEPTH_MAX"));
}
END_TEST

static Suite *mcp_extra_suite(void)
{
    Suite *s = suite_create("mcp_extra");
    TCase *t = tcase_create("resources");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_add_resource_checks_the_descriptor);
    tcase_add_test(t, test_add_resource_refuses_uris_served_already);
    tcase_add_test(t, test_add_resource_pool_is_bounded);
    tcase_add_test(t, test_resources_list_and_templates);
    tcase_add_test(t, test_optional_members_are_left_out);
    tcase_add_loop_test(t, test_resources_read_matches_fixed_uris_then_templates, 0,
                        sizeof reads / sizeof reads[0]);
    tcase_add_test(t, test_resource_handler_errors_are_the_requests);
    tcase_add_test(t, test_resource_changed_reaches_subscribers);
    suite_add_tcase(s, t);
    t = tcase_create("prompts");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_add_prompt_checks_the_descriptor);
    tcase_add_test(t, test_add_prompt_pool_is_bounded);
    tcase_add_test(t, test_prompts_list_adds_the_applications);
    tcase_add_test(t, test_prompts_get_decodes_the_arguments);
    tcase_add_test(t, test_prompts_get_checks_the_arguments);
    tcase_add_test(t, test_completion_of_an_applications_prompt);
    suite_add_tcase(s, t);
    t = tcase_create("ask");
    tcase_add_checked_fixture(t, ask_setup, mcp_teardown);
    tcase_add_test(t, test_ask_sends_a_request_and_defers_the_response);
    tcase_add_test(t, test_an_error_answer_reaches_the_handler);
    tcase_add_test(t, test_other_responses_are_ignored);
    tcase_add_test(t, test_ask_needs_the_clients_capability);
    tcase_add_test(t, test_one_request_waits_at_a_time);
    tcase_add_test(t, test_ask_needs_a_framed_single_request);
    tcase_add_test(t, test_a_long_call_id_cannot_wait);
    tcase_add_test(t, test_failing_after_ask_answers_now);
    tcase_add_test(t, test_result_after_ask_answers_now);
    tcase_add_test(t, test_cancelling_the_waiting_call);
    tcase_add_test(t, test_initialize_ends_the_wait);
    tcase_add_test(t, test_the_tool_may_ask_again);
    tcase_add_test(t, test_ask_over_a_byte_stream);
    tcase_add_test(t, test_an_mcp_result_tool_asks_too);
    tcase_add_test(t, test_an_answer_after_reinit_is_ignored);
    suite_add_tcase(s, t);
    t = tcase_create("envelope");
    tcase_add_checked_fixture(t, NULL, mcp_teardown);
    tcase_add_test(t, test_envelope_members);
    tcase_add_test(t, test_envelope_handoff_answers_as_the_text);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_MCP) */

/* A build without MCP: an application's resources and prompts are refused. */
static fw_err_t get_nothing(fw_call_t *call, const fw_prompt_t *p, const char *const *argv)
{
    (void)p, (void)argv;
    fw_call_result(call);
    return FW_OK;
}

START_TEST(test_feature_is_off)
{
    static const fw_prompt_t prompt = {"p", NULL, "a prompt", NULL, 0, get_nothing, NULL};
    static const fw_board_t b = {.device = "no-mcp", .version = "1", .platform = "mock"};
    ck_assert(!FW_WITH_MCP);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_int_eq(fw_device_add_prompt(&dev, &prompt), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_device_resource_changed(&dev, "a://x"), FW_ERR_UNSUPPORTED);
}
END_TEST

static Suite *mcp_extra_suite(void)
{
    Suite *s = suite_create("mcp_extra");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_extra_suite)
