/* test_mcp.c: specification of MCP in the core: lifecycle (initialize, ping, version
   negotiation), tools/list (pages, annotations) and tools/call (content, structuredContent,
   isError, progress, cancellation), next to the unchanged MCP/U methods. */
#include "test_mcp_util.h"

#if FW_WITH_MCP

static mock_i2c_dev_t *eeprom;

static void setup(void)
{
    eeprom = mcp_setup(true);
    fw_session_init(&sess, &dev);
}

static void initialize(const char *version)
{
    char params[160];
    snprintf(params, sizeof params,
             "{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
             "\"version\":\"1\"}}",
             version);
    result_of("initialize", params);
}

/* ---------------------------------------------------------------- initialize */

typedef struct version_case {
    const char *asked; /* NULL: no protocolVersion */
    const char *answered;
} version_case_t;

static const version_case_t versions[] = {
    {"2024-11-05", "2024-11-05"}, {"2025-03-26", "2025-03-26"}, {"2025-06-18", "2025-06-18"},
    {"2025-11-25", "2025-11-25"}, {"2023-01-01", "2025-11-25"}, {"2099-12-31", "2025-11-25"},
    {"", "2025-11-25"},           {NULL, "2025-11-25"},
};

START_TEST(test_version_negotiation)
{
    const version_case_t *c = &versions[_i];
    char params[96];
    if (c->asked)
        snprintf(params, sizeof params, "{\"protocolVersion\":\"%s\",\"capabilities\":{}}",
                 c->asked);
    json_t *r = result_of("initialize", c->asked ? params : "{}");
    ck_assert_str_eq(jstr(r, "protocolVersion"), c->answered);
    ck_assert_str_eq(fw_session_protocol_version(&sess), c->answered);
    ck_assert(sess.initialize_seen);
    ck_assert(!sess.initialized);
}
END_TEST

START_TEST(test_initialize_result)
{
    initialize("2025-06-18");
    json_t *r = json_object_get(own(mcap_json(&out, 0)), "result");
    ck_assert_uint_eq(out.count, 1);
    ck_assert_str_eq(jstr(r, "serverInfo.name"), "mcp-test");
    ck_assert_str_eq(jstr(r, "serverInfo.version"), "2.3.4");
    ck_assert(json_is_false(jpath(r, "capabilities.tools.listChanged")));
    ck_assert(json_is_true(jpath(r, "capabilities.resources.subscribe")));
    ck_assert(json_is_false(jpath(r, "capabilities.resources.listChanged")));
    ck_assert(json_is_false(jpath(r, "capabilities.prompts.listChanged")));
    ck_assert(json_is_object(jpath(r, "capabilities.logging")));
    ck_assert(json_is_object(jpath(r, "capabilities.completions")));
    const char *text = jstr(r, "instructions");
    ck_assert_ptr_nonnull(strstr(text, "mcp-test 2.3.4"));
    for (size_t i = 0; i < mcp_test_board.pin_count; i++)
        ck_assert_msg(strstr(text, mcp_test_pins[i].name) != NULL, "%s", text);
}
END_TEST

/* completion/complete came with 2025-03-26: not announced to a 2024-11-05 client. */
START_TEST(test_no_completions_capability_for_2024)
{
    initialize("2024-11-05");
    json_t *r = json_object_get(own(mcap_json(&out, 0)), "result");
    ck_assert_ptr_null(jpath(r, "capabilities.completions"));
    ck_assert(json_is_object(jpath(r, "capabilities.logging")));
}
END_TEST

START_TEST(test_initialize_records_client_capabilities)
{
    result_of("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"sampling\":{},"
                            "\"elicitation\":{}}}");
    ck_assert_uint_eq(sess.client_caps, FW_CLIENT_SAMPLING | FW_CLIENT_ELICITATION);
    result_of("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":{}}}");
    ck_assert_uint_eq(sess.client_caps, FW_CLIENT_ROOTS);
}
END_TEST

START_TEST(test_initialize_rejects_wrong_types)
{
    json_t *e = error_of("initialize", "{\"protocolVersion\":20250618}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "protocolVersion");
    e = error_of("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":[]}",
                 FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "capabilities");
    error_of("initialize", "[\"2025-06-18\"]", FW_RPC_INVALID_PARAMS); /* MCP params are named */
    ck_assert(!sess.initialize_seen);
}
END_TEST

START_TEST(test_initialized_notification)
{
    initialize("2025-11-25");
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    ck_assert(!answered);
    ck_assert_uint_eq(out.len, 0);
    ck_assert(sess.initialized);
}
END_TEST

/* Lenient: MCP/U clients never initialize, so nothing requires it. */
START_TEST(test_requests_before_initialize)
{
    json_t *r = result_of("ping", NULL);
    ck_assert_uint_eq(json_object_size(r), 0);
    ck_assert(json_is_array(json_object_get(result_of("tools/list", NULL), "tools")));
    ck_assert(!sess.initialize_seen);
    ck_assert_str_eq(fw_session_protocol_version(&sess), "2025-11-25");
}
END_TEST

START_TEST(test_ping_exact_bytes)
{
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
    ck_assert_str_eq(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"result\":{}}");
    ck_assert_uint_eq(out.count, 1);
    ck_assert_uint_eq(out.ends[0], out.len);
}
END_TEST

START_TEST(test_version_api)
{
    ck_assert(fw_mcp_version_supported("2025-06-18", 10));
    ck_assert(fw_mcp_version_supported("2024-11-05", 10));
    ck_assert(!fw_mcp_version_supported("2025-06-1", 9));
    ck_assert(!fw_mcp_version_supported("2025-06-188", 11));
    ck_assert(!fw_mcp_version_supported(NULL, 0));
}
END_TEST

static const char *const unknown_methods[] = {"tools/lists", "resources/foo", "initialise",
                                              "prompts",     "tools/call/x",  "Ping"};

START_TEST(test_unknown_methods_are_32601)
{
    json_t *e = error_of(unknown_methods[_i], NULL, FW_RPC_METHOD_NOT_FOUND);
    char want[64];
    snprintf(want, sizeof want, "method '%s' not found", unknown_methods[_i]);
    ck_assert_str_eq(jstr(e, "message"), want);
}
END_TEST

static fw_err_t noop(fw_call_t *call)
{
    (void)call;
    return FW_OK;
}

START_TEST(test_mcp_method_names_are_reserved)
{
    static const fw_tool_t ping_tool = {.name = "ping", .description = "x", .handler = noop};
    static const fw_tool_t list_tool = {.name = "tools/list", .description = "x", .handler = noop};
    ck_assert_int_eq(fw_device_add_tool(&dev, &ping_tool), FW_ERR_EXISTS);
    ck_assert_int_eq(fw_device_add_tool(&dev, &list_tool), FW_ERR_EXISTS);
}
END_TEST

/* MCP/U keeps its own shapes: get_info byte for byte, list_tools with readOnly flags. */
START_TEST(test_mcpu_methods_unchanged)
{
    initialize("2025-06-18");
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_info\"}");
    ck_assert_str_eq(out.buf, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"device\":\"mcp-test\","
                              "\"version\":\"2.3.4\",\"platform\":\"mock\",\"pin_count\":4,"
                              "\"core_version\":\"" FW_CORE_VERSION "\"}}");
    json_t *r = result_of("list_tools", NULL);
    json_t *tools = json_object_get(r, "tools");
    ck_assert(json_is_array(json_object_get(r, "pins")));
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        ck_assert_ptr_null(json_object_get(t, "annotations"));
        if (strcmp(jstr(t, "name"), "gpio_read") == 0)
            ck_assert(json_is_true(json_object_get(t, "readOnly")));
    }
    r = result_of("gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert(json_is_true(json_object_get(r, "value")));
    ck_assert_ptr_null(json_object_get(r, "content"));
}
END_TEST

/* MCP is a layer above JSON-RPC: a device built with it answers MCP/U exactly as one without,
   before any initialize, over the byte stream and in batches mixed with MCP requests. */
START_TEST(test_layer_leaves_mcpu_intact)
{
    static const char get_info[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_info\"}";
    static const char want_info[] =
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"device\":\"mcp-test\",\"version\":"
        "\"2.3.4\",\"platform\":\"mock\",\"pin_count\":4,\"core_version\":\"" FW_CORE_VERSION
        "\"}}";
    static cap_t line;
    fw_framer_t fr;
    fw_framer_init(&fr);
    /* no session, no initialize: a plain MCP/U host on a UART */
    static const char stream[] =
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_info\"}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"gpio_write\",\"params\":{\"pin\":\"led\","
        "\"value\":true}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/lis\"}\n";
    cap_reset(&line);
    fw_device_feed(&dev, &fr, (const uint8_t *)stream, strlen(stream), cap_sink(&line));
    char *second = strchr(line.buf, '\n'), *third = second ? strchr(second + 1, '\n') : NULL;
    ck_assert_ptr_nonnull(third);
    ck_assert_uint_eq(line.buf[line.len - 1], '\n');
    *second++ = 0;
    *third++ = 0;
    line.buf[line.len - 1] = 0;
    ck_assert_str_eq(line.buf, want_info);
    json_t *w = own(jparse(second));
    ck_assert(json_is_true(jpath(w, "result.value")));
    ck_assert_ptr_null(jpath(w, "result.content")); /* an MCP/U result, not a CallToolResult */
    ck_assert(hal.pins[2].level);
    json_t *e = own(jparse(third));
    ck_assert_int_eq(jint(e, "error.code"), FW_RPC_METHOD_NOT_FOUND);
    /* MCP/U and MCP requests side by side in one batch, each answered in its own protocol */
    static const char batch[] =
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"},"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}]";
    cap_reset(&line);
    ck_assert(fw_device_handle(&dev, batch, strlen(batch), cap_sink(&line)));
    json_t *rs = own(jparse(line.buf));
    ck_assert_uint_eq(json_array_size(rs), 3);
    ck_assert(json_is_array(jpath(rs, "0.result.tools")));
    ck_assert(json_is_array(jpath(rs, "0.result.pins")));
    ck_assert_uint_eq(json_object_size(jpath(rs, "1.result")), 0);
    ck_assert(json_is_true(jpath(rs, "2.result.value")));
    /* after an MCP initialize on the same device, MCP/U's answers are byte for byte the same */
    initialize("2025-06-18");
    cap_reset(&line);
    ck_assert(fw_device_handle(&dev, get_info, strlen(get_info), cap_sink(&line)));
    ck_assert_str_eq(line.buf, want_info);
}
END_TEST

/* ---------------------------------------------------------------- tools/list */

/* Length of the JSON array or object starting at p, by bracket matching outside strings. */
static size_t raw_len(const char *p)
{
    int depth = 0;
    bool in_str = false;
    for (const char *q = p; *q; q++) {
        if (in_str) {
            if (*q == '\\')
                q++;
            else if (*q == '"')
                in_str = false;
        } else if (*q == '"') {
            in_str = true;
        } else if (*q == '[' || *q == '{') {
            depth++;
        } else if ((*q == ']' || *q == '}') && --depth == 0) {
            return (size_t)(q + 1 - p);
        }
    }
    ck_abort_msg("unbalanced JSON: %s", p);
    return 0;
}

/* Every page of tools/list from the first (params_extra: more members, e.g. withUserTools):
   an array of the pages' "tools" arrays. Checks each page's raw "tools" array against
   FW_MCP_PAGE_BYTES (unless it holds a single tool) and its length against FW_MCP_PAGE_TOOLS. */
static json_t *list_pages(const char *params_extra)
{
    char params[256], cursor[32] = "";
    json_t *pages = own(json_array());
    for (;;) {
        snprintf(params, sizeof params, "{%s%s%s%s%s}", params_extra ? params_extra : "",
                 params_extra && cursor[0] ? "," : "", cursor[0] ? "\"cursor\":\"" : "", cursor,
                 cursor[0] ? "\"" : "");
        json_t *r = result_of("tools/list", params);
        const char *arr = strstr(out.buf, "\"tools\":[");
        json_t *tools = json_object_get(r, "tools");
        ck_assert_ptr_nonnull(arr);
        if (json_array_size(tools) > 1) /* a single tool may be larger than a page */
            ck_assert_uint_le(raw_len(arr + 8), FW_MCP_PAGE_BYTES);
        ck_assert_uint_le(json_array_size(tools), FW_MCP_PAGE_TOOLS);
        json_array_append(pages, tools);
        json_t *next = json_object_get(r, "nextCursor");
        if (next == NULL) break;
        ck_assert(json_array_size(tools) > 0);
        snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
        ck_assert_uint_lt(json_array_size(pages), 50);
    }
    return pages;
}

/* The tools of all pages, in order. */
static json_t *all_tools(json_t *pages)
{
    json_t *all = own(json_array());
    size_t i;
    json_t *page;
    json_array_foreach(pages, i, page) json_array_extend(all, page);
    return all;
}

static json_t *names_of(json_t *tools)
{
    json_t *names = own(json_array());
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) json_array_append(names, json_object_get(t, "name"));
    return names;
}

static size_t largest_page(json_t *pages)
{
    size_t max = 0, i;
    json_t *page;
    json_array_foreach(pages, i, page) if (json_array_size(page) > max) max = json_array_size(page);
    return max;
}

/* The names list_tools gives (MCP/U), in order. */
static json_t *mcpu_names(bool with_user_tools)
{
    json_t *names = own(json_array());
    json_t *r = result_of("list_tools", with_user_tools ? "{\"with_user_tools\":true}" : NULL);
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(r, "tools"), i, t)
        json_array_append(names, json_object_get(t, "name"));
    return names;
}

static void assert_no_duplicates(json_t *names)
{
    for (size_t i = 0; i < json_array_size(names); i++)
        for (size_t j = 0; j < i; j++)
            ck_assert_str_ne(json_string_value(json_array_get(names, i)),
                             json_string_value(json_array_get(names, j)));
}

START_TEST(test_tools_list_entries)
{
    json_t *tools = all_tools(list_pages(NULL));
    ck_assert_uint_eq(json_array_size(tools), fw_device_tool_count(&dev));
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        const fw_tool_t *d = fw_device_find_tool(&dev, jstr(t, "name"));
        ck_assert_ptr_nonnull(d);
        ck_assert_str_eq(jstr(t, "description"), d->description);
        ck_assert_str_eq(jstr(t, "inputSchema.type"), "object");
        ck_assert(json_is_object(jpath(t, "inputSchema.properties")));
        ck_assert(json_boolean_value(jpath(t, "annotations.readOnlyHint")) ==
                  ((d->flags & FW_TOOL_READ_ONLY) != 0));
        ck_assert(json_is_boolean(jpath(t, "annotations.destructiveHint")));
        ck_assert(json_boolean_value(jpath(t, "annotations.destructiveHint")) ==
                  ((d->flags & FW_TOOL_DESTRUCTIVE) != 0));
        ck_assert_ptr_null(json_object_get(t, "readOnly"));
    }
}
END_TEST

/* One registry, one schema writer: tools/list and list_tools agree on names, order and
   inputSchema. */
START_TEST(test_tools_list_matches_list_tools)
{
    json_t *mcp = all_tools(list_pages(NULL));
    json_t *mcpu = json_object_get(result_of("list_tools", NULL), "tools");
    ck_assert_uint_eq(json_array_size(mcp), json_array_size(mcpu));
    ck_assert_uint_eq(json_array_size(mcp), fw_device_tool_count(&dev));
    for (size_t i = 0; i < json_array_size(mcp); i++) {
        json_t *a = json_array_get(mcp, i), *b = json_array_get(mcpu, i);
        ck_assert_str_eq(jstr(a, "name"), jstr(b, "name"));
        ck_assert(json_equal(json_object_get(a, "inputSchema"), json_object_get(b, "inputSchema")));
    }
}
END_TEST

/* MCP requires inputSchema: a board's omit_schemas applies to MCP/U only. */
START_TEST(test_omit_schemas_is_mcpu_only)
{
    static fw_board_t avr;
    avr = mcp_test_board;
    avr.omit_schemas = true;
    ck_assert_int_eq(fw_device_init(&dev, &avr, &mock_hal_api, &hal), FW_OK);
    json_t *t = json_array_get(json_object_get(result_of("tools/list", NULL), "tools"), 0);
    ck_assert(json_is_object(json_object_get(t, "inputSchema")));
    t = json_array_get(json_object_get(result_of("list_tools", NULL), "tools"), 0);
    ck_assert_ptr_null(json_object_get(t, "inputSchema"));
}
END_TEST

static fw_err_t tool_ok(fw_call_t *call)
{
    fw_jw_kv_str(fw_call_result(call), "tool", call->tool->name);
    return FW_OK;
}

/* A tool whose result has n bytes of string in {"s":"..."} (8 bytes of frame). */
static fw_err_t tool_long(fw_call_t *call)
{
    size_t n = (size_t)fw_call_arg(call, "n")->i;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "s");
    fw_jw_str_begin(w);
    for (size_t i = 0; i < n; i++) fw_jw_str_chunk(w, i % 7 == 0 ? "\"" : "a", 1);
    fw_jw_str_end(w);
    return FW_OK;
}

static const fw_param_t long_params[] = {
    {.name = "n", .type = FW_PARAM_INTEGER, .required = true},
};
static const fw_tool_t long_tool = {.name = "long",
                                    .description = "long result",
                                    .params = long_params,
                                    .param_count = 1,
                                    .handler = tool_long};

static char tool_names[FW_TOOLS_MAX][16];
static fw_tool_t extra_tools[FW_TOOLS_MAX];

/* Fills the registry up to FW_TOOLS_MAX with tools whose descriptions have desc_len bytes. */
static void fill_registry(size_t desc_len)
{
    static char desc[10000];
    ck_assert_uint_lt(desc_len, sizeof desc);
    memset(desc, 'd', desc_len);
    desc[desc_len] = 0;
    for (size_t i = 0; fw_device_tool_count(&dev) < FW_TOOLS_MAX; i++) {
        snprintf(tool_names[i], sizeof tool_names[i], "extra_%zu", i);
        extra_tools[i] =
            (fw_tool_t){.name = tool_names[i], .description = desc, .handler = tool_ok};
        ck_assert_int_eq(fw_device_add_tool(&dev, &extra_tools[i]), FW_OK);
    }
}

START_TEST(test_pages_bounded_by_count)
{
    fill_registry(4);
    json_t *pages = list_pages(NULL);
    json_t *all = names_of(all_tools(pages));
    /* the long built-in descriptions end the first page by bytes; then tiny tools by count */
    ck_assert_uint_eq(largest_page(pages), FW_MCP_PAGE_TOOLS);
    ck_assert_uint_ge(json_array_size(pages),
                      (FW_TOOLS_MAX + FW_MCP_PAGE_TOOLS - 1) / FW_MCP_PAGE_TOOLS);
    ck_assert(json_equal(all, mcpu_names(false)));
    assert_no_duplicates(all);
}
END_TEST

START_TEST(test_pages_bounded_by_bytes)
{
    fill_registry(2500);
    json_t *pages = list_pages(NULL);
    json_t *all = names_of(all_tools(pages));
    ck_assert_uint_lt(largest_page(pages), FW_MCP_PAGE_TOOLS); /* bytes ended every page */
    ck_assert_uint_ge(json_array_size(pages), 26u * 2500u / FW_MCP_PAGE_BYTES);
    ck_assert(json_equal(all, mcpu_names(false)));
    assert_no_duplicates(all);
}
END_TEST

/* A tool longer than a page still gets a page of its own, so listing ends. */
START_TEST(test_oversized_tool_gets_its_own_page)
{
    static char desc[FW_MCP_PAGE_BYTES + 100];
    static const fw_tool_t big_proto = {.name = "big", .handler = tool_ok};
    static fw_tool_t big;
    memset(desc, 'x', sizeof desc - 1);
    big = big_proto;
    big.description = desc;
    ck_assert_int_eq(fw_device_add_tool(&dev, &big), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &long_tool), FW_OK); /* one more after it */
    json_t *pages = list_pages(NULL);
    size_t n = json_array_size(pages);
    ck_assert_uint_ge(n, 3);
    ck_assert_uint_eq(json_array_size(json_array_get(pages, n - 2)), 1);
    ck_assert_str_eq(jstr(pages, "0.0.name"), "gpio_write");
    ck_assert_str_eq(jstr(json_array_get(pages, n - 2), "0.name"), "big");
    ck_assert_str_eq(jstr(json_array_get(pages, n - 1), "0.name"), "long");
}
END_TEST

static const char *const bad_cursors[] = {"\"abc\"", "\"-1\"", "\"999\"",
                                          "\"1x\"",  "\" 1\"", "5",
                                          "true",    "{}",     "\"99999999999999999999\""};

START_TEST(test_bad_cursor_is_32602)
{
    char params[64];
    snprintf(params, sizeof params, "{\"cursor\":%s}", bad_cursors[_i]);
    json_t *e = error_of("tools/list", params, FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "cursor");
}
END_TEST

/* The first page: no cursor, "" (as the 003 device's clients send) or null. */
START_TEST(test_empty_cursor_is_first_page)
{
    json_t *a = json_object_get(result_of("tools/list", NULL), "tools");
    ck_assert(
        json_equal(a, json_object_get(result_of("tools/list", "{\"cursor\":\"\"}"), "tools")));
    ck_assert(
        json_equal(a, json_object_get(result_of("tools/list", "{\"cursor\":null}"), "tools")));
    ck_assert(
        json_equal(a, json_object_get(result_of("tools/list", "{\"cursor\":\"0\"}"), "tools")));
    char last[32];
    snprintf(last, sizeof last, "{\"cursor\":\"%u\"}", (unsigned)fw_device_tool_count(&dev));
    json_t *end = json_object_get(result_of("tools/list", last), "tools");
    ck_assert_uint_eq(json_array_size(end), 0); /* the end of the registry: an empty page */
}
END_TEST

static bool has_tool(json_t *tools, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) if (strcmp(jstr(t, "name"), name) == 0) return true;
    return false;
}

START_TEST(test_with_user_tools)
{
    static const fw_tool_t secret = {.name = "factory_reset",
                                     .description = "for the user",
                                     .flags = FW_TOOL_USER_ONLY | FW_TOOL_DESTRUCTIVE,
                                     .handler = tool_ok};
    ck_assert_int_eq(fw_device_add_tool(&dev, &secret), FW_OK);
    ck_assert(!has_tool(all_tools(list_pages(NULL)), "factory_reset"));
    ck_assert(!has_tool(all_tools(list_pages("\"withUserTools\":false")), "factory_reset"));
    json_t *all = all_tools(list_pages("\"withUserTools\":true"));
    ck_assert(has_tool(all, "factory_reset"));
    ck_assert(json_equal(names_of(all), mcpu_names(true)));
    ck_assert(json_equal(names_of(all_tools(list_pages(NULL))), mcpu_names(false)));
    error_of("tools/list", "{\"withUserTools\":\"yes\"}", FW_RPC_INVALID_PARAMS);
    /* not listed, but callable */
    json_t *r = result_of("tools/call", "{\"name\":\"factory_reset\"}");
    ck_assert_str_eq(jstr(r, "structuredContent.tool"), "factory_reset");
}
END_TEST

/* ---------------------------------------------------------------- tools/call */

START_TEST(test_call_content_and_structured_content)
{
    initialize("2025-06-18");
    json_t *r = result_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"led\","
                                        "\"value\":true}}");
    ck_assert_uint_eq(out.count, 1);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "content")), 1);
    ck_assert_str_eq(jstr(r, "content.0.type"), "text");
    json_t *text = own(jparse(jstr(r, "content.0.text")));
    json_t *sc = json_object_get(r, "structuredContent");
    ck_assert(json_equal(text, sc));
    ck_assert_int_eq(jint(sc, "pin"), 2);
    ck_assert(json_is_true(json_object_get(sc, "value")));
    ck_assert_ptr_null(json_object_get(r, "isError"));
    ck_assert(hal.pins[2].level);
}
END_TEST

/* structuredContent came with 2025-06-18; older sessions get the text only. */
START_TEST(test_call_text_only_before_2025_06_18)
{
    initialize("2025-03-26");
    json_t *r = result_of("tools/call", "{\"name\":\"gpio_read\",\"arguments\":{\"pin\":\"led\"}}");
    ck_assert_ptr_null(json_object_get(r, "structuredContent"));
    json_t *text = own(jparse(jstr(r, "content.0.text")));
    ck_assert_str_eq(jstr(text, "name"), "led");
}
END_TEST

/* A NACK injected into the mock bus is a failure of the tool's work: isError, not an error. */
START_TEST(test_call_hardware_failure_is_error_result)
{
    unsigned errors = fw_device_counters(&dev)->errors;
    eeprom->fail = FW_ERR_I2C_NACK;
    json_t *r = result_of("tools/call", "{\"name\":\"eeprom_read\",\"arguments\":{\"offset\":0}}");
    ck_assert(json_is_true(json_object_get(r, "isError")));
    ck_assert_str_eq(jstr(r, "content.0.type"), "text");
    ck_assert_str_eq(jstr(r, "content.0.text"), "no acknowledge from eeprom 0x50 on bus 0");
    ck_assert_ptr_null(json_object_get(r, "structuredContent"));
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, errors + 1);
    r = result_of("tools/call", "{\"name\":\"i2c_read\",\"arguments\":{\"address\":72}}");
    ck_assert(json_is_true(json_object_get(r, "isError")));
    ck_assert_str_eq(jstr(r, "content.0.text"), "no acknowledge from i2c device 0x48 on bus 0");
}
END_TEST

START_TEST(test_call_unknown_tool)
{
    json_t *e =
        error_of("tools/call", "{\"name\":\"nope\",\"arguments\":{}}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "message"), "unknown tool: nope");
    /* core methods are not tools */
    e = error_of("tools/call", "{\"name\":\"get_info\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "message"), "unknown tool: get_info");
    e = error_of("tools/call", "{\"name\":\"tools/list\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "message"), "unknown tool: tools/list");
}
END_TEST

/* params' members are read as JSON has them whichever way they are found: a key with escapes
   is its decoded text, the first of two equal keys counts, _meta's progressToken likewise; a
   name with escapes, or too long, is read as any string parameter. */
START_TEST(test_call_params_escaped_and_repeated_keys)
{
    json_t *n = result_of("tools/call", "{\"name\":\"gpio_r\\u0065ad\",\"arguments\":{\"pin\":2}}");
    ck_assert_str_eq(jstr(n, "structuredContent.name"), "led");
    char params[160];
    snprintf(params, sizeof params, "{\"name\":\"gpio_read%054d\",\"arguments\":{\"pin\":2}}", 0);
    json_t *e1 = error_of("tools/call", params, FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e1, "message"), "unknown tool: gpio_read"
                                          "000000000000000000000000000000000000000000000000000000");
    snprintf(params, sizeof params, "{\"name\":\"gpio_read%055d\",\"arguments\":{\"pin\":2}}", 0);
    e1 = error_of("tools/call", params, FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e1, "message"), "invalid params: name: is longer than 63 bytes");
    json_t *r = result_of("tools/call", "{\"n\\u0061me\":\"gpio_read\",\"name\":\"nope\","
                                        "\"arguments\":{\"pin\":\"led\"},\"arguments\":7}");
    ck_assert_str_eq(jstr(r, "structuredContent.name"), "led");
    json_t *e = error_of("tools/call",
                         "{\"name\":\"gpio_read\",\"\\u0061rguments\":7,"
                         "\"arguments\":{\"pin\":\"led\"}}",
                         FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "message"), "invalid params: arguments: must be an object");
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"i2c_scan\",\"\\u005fmeta\":{\"progressToken\":7},\"_meta\":{}}}");
    ck_assert_uint_eq(out.count, 8); /* 7 notifications, then the result */
    ck_assert_int_eq(jint(own(mcap_json(&out, 0)), "params.progressToken"), 7);
}
END_TEST

/* The same binder as MCP/U calls: -32602 with every issue in data.issues. */
START_TEST(test_call_bad_arguments)
{
    json_t *e = error_of("tools/call",
                         "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":\"nope\","
                         "\"value\":3}}",
                         -32602);
    json_t *issues = jpath(e, "data.issues");
    ck_assert_uint_eq(json_array_size(issues), 2);
    ck_assert_str_eq(jstr(issues, "0.path"), "pin");
    ck_assert_str_eq(jstr(issues, "0.message"), "no pin named 'nope' on this board");
    ck_assert_str_eq(jstr(issues, "1.path"), "value");
    ck_assert_str_eq(jstr(e, "message"),
                     "invalid params: pin: no pin named 'nope' on this board (and 1 more)");
    e = error_of("tools/call", "{\"name\":\"gpio_write\"}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "required parameter missing");
    e = error_of("tools/call", "{\"name\":\"gpio_write\",\"arguments\":[\"led\",true]}",
                 FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "arguments");
    e = error_of("tools/call", "{\"arguments\":{}}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "name");
    e = error_of("tools/call", "{\"name\":7}", FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.message"), "must be a string");
    ck_assert_uint_eq(hal.pins[2].writes, 0);
}
END_TEST

/* Up to FW_MCP_RESULT_MAX bytes the result is sent twice; beyond, once, as text. */
START_TEST(test_call_long_result_streams_as_text)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &long_tool), FW_OK);
    size_t n = 0, len = 8; /* {"s":""} */
    while (len + (n % 7 == 0 ? 2u : 1u) <= FW_MCP_RESULT_MAX) len += (n++ % 7 == 0 ? 2u : 1u);
    char params[96];
    snprintf(params, sizeof params, "{\"name\":\"long\",\"arguments\":{\"n\":%zu}}", n);
    json_t *r = result_of("tools/call", params);
    json_t *sc = json_object_get(r, "structuredContent");
    ck_assert_msg(sc != NULL, "the longest result that fits FW_MCP_RESULT_MAX is kept");
    ck_assert(json_equal(own(jparse(jstr(r, "content.0.text"))), sc));
    ck_assert_uint_eq(strlen(jstr(r, "content.0.text")), len);
    const size_t more[] = {n + 1, n + 5000};
    for (size_t k = 0; k < 2; k++) {
        snprintf(params, sizeof params, "{\"name\":\"long\",\"arguments\":{\"n\":%zu}}", more[k]);
        r = result_of("tools/call", params);
        ck_assert_ptr_null(json_object_get(r, "structuredContent"));
        json_t *text = own(jparse(jstr(r, "content.0.text")));
        ck_assert_uint_eq(strlen(jstr(text, "s")), more[k]);
        ck_assert_ptr_null(json_object_get(r, "isError"));
    }
}
END_TEST

/* Starts its result, then fails: a handler bug. */
static fw_err_t tool_bug(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "a", 1);
    fw_jw_key(w, "list");
    fw_jw_arr_begin(w);
    return FW_ERR_HW;
}

START_TEST(test_call_handler_bug_is_error_result)
{
    static const fw_tool_t bug = {.name = "bug", .description = "bug", .handler = tool_bug};
    ck_assert_int_eq(fw_device_add_tool(&dev, &bug), FW_OK);
    unsigned errors = fw_device_counters(&dev)->errors;
    json_t *r = result_of("tools/call", "{\"name\":\"bug\"}");
    ck_assert(json_is_true(json_object_get(r, "isError")));
    json_t *text = own(jparse(jstr(r, "content.0.text")));
    ck_assert_int_eq(jint(text, "a"), 1);
    ck_assert_ptr_null(json_object_get(r, "structuredContent"));
    ck_assert_uint_eq(fw_device_counters(&dev)->errors, errors + 1);
}
END_TEST

START_TEST(test_call_without_result_members)
{
    static const fw_tool_t quiet = {.name = "quiet", .description = "q", .handler = noop};
    ck_assert_int_eq(fw_device_add_tool(&dev, &quiet), FW_OK);
    json_t *r = result_of("tools/call", "{\"name\":\"quiet\"}");
    ck_assert_str_eq(jstr(r, "content.0.text"), "{}");
    ck_assert_uint_eq(json_object_size(json_object_get(r, "structuredContent")), 0);
}
END_TEST

/* A FW_TOOL_MCP_RESULT tool writes its own content blocks (an image here); with failed set it
   fails before its result. Progress works as for any tool. */
static bool image_fails;

static fw_err_t tool_image(fw_call_t *call)
{
    fw_call_progress(call, 1, 2, "drawing");
    if (image_fails) return fw_call_errorf(call, FW_ERR_HW, "%s", "camera off");
    fw_call_progress(call, 2, 2, NULL);
    fw_jw_t *w = fw_call_result(call);
    fw_call_progress(call, 3, 3, NULL); /* too late: the response has begun */
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "image");
    fw_jw_kv_str(w, "data", "iVBORw0KGgo=");
    fw_jw_kv_str(w, "mimeType", "image/png");
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

START_TEST(test_call_tool_with_its_own_content)
{
    static const fw_tool_t image = {.name = "image",
                                    .description = "an image",
                                    .flags = FW_TOOL_MCP_RESULT | FW_TOOL_READ_ONLY,
                                    .handler = tool_image};
    ck_assert_int_eq(fw_device_add_tool(&dev, &image), FW_OK);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"image\",\"_meta\":{\"progressToken\":\"i\"}}}");
    ck_assert_uint_eq(out.count, 3);
    ck_assert_str_eq(jstr(own(mcap_json(&out, 0)), "params.message"), "drawing");
    ck_assert_int_eq(jint(own(mcap_json(&out, 1)), "params.progress"), 2);
    json_t *r = json_object_get(own(mcap_json(&out, 2)), "result");
    ck_assert_str_eq(jstr(r, "content.0.type"), "image");
    ck_assert_str_eq(jstr(r, "content.0.mimeType"), "image/png");
    ck_assert_uint_eq(json_object_size(r), 1);
    image_fails = true;
    r = result_of("tools/call", "{\"name\":\"image\"}");
    image_fails = false;
    ck_assert(json_is_true(json_object_get(r, "isError")));
    ck_assert_str_eq(jstr(r, "content.0.text"), "camera off");
}
END_TEST

/* tools/call as a notification runs, and writes nothing. */
START_TEST(test_call_as_notification)
{
    send_in(&sess,
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"gpio_write\","
            "\"arguments\":{\"pin\":2,\"value\":true},\"_meta\":{\"progressToken\":1}}}");
    ck_assert(!answered);
    ck_assert_uint_eq(out.len, 0);
    ck_assert(hal.pins[2].level);
}
END_TEST

/* ---------------------------------------------------------------- progress */

/* A notification per page written: 32 bytes from offset 20 take two pages of 32. */
START_TEST(test_progress_precedes_result)
{
    initialize("2025-06-18");
    send_in(&sess,
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":"
            "\"eeprom_write\",\"arguments\":{\"offset\":20,\"bytes\":[1,2,3,4,5,6,7,8,9,10,11,12,"
            "13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]},\"_meta\":{"
            "\"progressToken\":\"tok-1\"}}}");
    ck_assert(answered);
    ck_assert_uint_eq(out.count, 3); /* pages 20..31 and 32..51: two notifications */
    static const int done[] = {12, 32};
    for (unsigned k = 0; k < 2; k++) {
        json_t *n = own(mcap_json(&out, k));
        ck_assert_str_eq(jstr(n, "method"), "notifications/progress");
        ck_assert_ptr_null(json_object_get(n, "id"));
        ck_assert_str_eq(jstr(n, "params.progressToken"), "tok-1");
        ck_assert_int_eq(jint(n, "params.progress"), done[k]);
        ck_assert_int_eq(jint(n, "params.total"), 32);
    }
    json_t *r = own(mcap_json(&out, 2));
    ck_assert_int_eq(jint(r, "id"), 9);
    ck_assert_int_eq(jint(r, "result.structuredContent.written"), 32);
    ck_assert_int_eq(jint(r, "result.structuredContent.pages"), 2);
}
END_TEST

/* i2c_scan reports every 16 addresses of 112; a numeric token is echoed as a number. */
START_TEST(test_progress_of_i2c_scan)
{
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"i2c_scan\",\"_meta\":{\"progressToken\":7}}}");
    ck_assert_uint_eq(out.count, 8);
    for (unsigned k = 0; k < 7; k++) {
        json_t *n = own(mcap_json(&out, k));
        ck_assert_int_eq(jint(n, "params.progressToken"), 7);
        ck_assert_int_eq(jint(n, "params.progress"), 16 * (k + 1));
        ck_assert_int_eq(jint(n, "params.total"), 112);
    }
    json_t *r = own(mcap_json(&out, 7));
    ck_assert_int_eq(jint(r, "result.structuredContent.devices.0"), 0x50);
}
END_TEST

START_TEST(test_no_progress_without_token)
{
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"i2c_scan\",\"_meta\":{}}}");
    ck_assert_uint_eq(out.count, 1);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"i2c_scan\",\"_meta\":{\"progressToken\":{}}}}");
    ck_assert_uint_eq(out.count, 1);
}
END_TEST

/* Nothing may come between a batch's responses, and a plain fw_sink_t cannot frame messages. */
START_TEST(test_no_progress_in_batch_or_unframed)
{
    send_in(&sess, "[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"i2c_scan\",\"_meta\":{\"progressToken\":7}}}]");
    ck_assert_uint_eq(out.count, 1);
    json_t *r = own(mcap_json(&out, 0));
    ck_assert(json_is_array(r));
    static cap_t plain;
    cap_reset(&plain);
    const char *msg =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"i2c_scan\",\"_meta\":{\"progressToken\":7}}}";
    ck_assert(fw_device_handle(&dev, msg, strlen(msg), cap_sink(&plain)));
    json_t *one = own(jparse(plain.buf)); /* exactly one JSON text */
    ck_assert_int_eq(jint(one, "id"), 3);
}
END_TEST

static unsigned lines_of(const char *text, json_t **out_lines, unsigned max)
{
    unsigned n = 0;
    const char *p = text;
    while (*p && n < max) {
        const char *nl = strchr(p, '\n');
        ck_assert_ptr_nonnull(nl);
        json_error_t e;
        out_lines[n] = own(json_loadb(p, (size_t)(nl - p), 0, &e));
        ck_assert_ptr_nonnull(out_lines[n]);
        n++;
        p = nl + 1;
    }
    return n;
}

/* Over a byte stream, every message is a line. */
START_TEST(test_progress_over_feed_session)
{
    static cap_t stream;
    fw_framer_t fr;
    fw_framer_init(&fr);
    cap_reset(&stream);
    const char *req =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"i2c_scan\",\"_meta\":{\"progressToken\":\"s\"}}}\n";
    fw_device_feed_session(&dev, &sess, &fr, (const uint8_t *)req, strlen(req), cap_sink(&stream));
    json_t *lines[16];
    ck_assert_uint_eq(lines_of(stream.buf, lines, 16), 8);
    ck_assert_str_eq(jstr(lines[0], "method"), "notifications/progress");
    ck_assert_int_eq(jint(lines[7], "id"), 3);
    /* the old entry point serves the implicit session the same way */
    cap_reset(&stream);
    fw_device_feed(&dev, &fr, (const uint8_t *)req, strlen(req), cap_sink(&stream));
    ck_assert_uint_eq(lines_of(stream.buf, lines, 16), 8);
}
END_TEST

/* ---------------------------------------------------------------- cancellation */

START_TEST(test_cancel_a_queued_batch_member)
{
    send_in(&sess, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                   "\"requestId\":2,\"reason\":\"user\"}},"
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}},"
                   "{\"jsonrpc\":\"2.0\",\"id\":\"2\",\"method\":\"ping\"}]");
    json_t *r = own(mcap_json(&out, 0));
    ck_assert_uint_eq(json_array_size(r), 2); /* id 1 and id "2": a string is another id */
    ck_assert_int_eq(jint(r, "0.id"), 1);
    ck_assert_str_eq(jstr(r, "1.id"), "2");
    ck_assert_uint_eq(hal.pins[2].writes, 0);
    ck_assert_uint_eq(sess.cancelled_len, 0);
}
END_TEST

/* A cancellation read after its request finished is ignored, and forgotten with its message. */
START_TEST(test_late_cancel_is_ignored)
{
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                   "\"requestId\":1}}");
    ck_assert(!answered);
    ck_assert_uint_eq(out.len, 0);
    json_t *r = result_of("ping", NULL); /* id 1 again: answered */
    ck_assert_uint_eq(json_object_size(r), 0);
    send_in(&sess, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\","
                   "\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}]");
    ck_assert_uint_eq(json_array_size(own(mcap_json(&out, 0))), 1);
}
END_TEST

/* ---------------------------------------------------------------- live log messages */

START_TEST(test_tool_failure_logged_before_result)
{
    initialize("2025-06-18");
    eeprom->fail = FW_ERR_I2C_NACK;
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
                   "\"eeprom_read\",\"arguments\":{\"offset\":0}}}");
    ck_assert_uint_eq(out.count, 2);
    json_t *n = own(mcap_json(&out, 0));
    ck_assert_str_eq(jstr(n, "method"), "notifications/message");
    ck_assert_str_eq(jstr(n, "params.level"), "error");
    ck_assert_str_eq(jstr(n, "params.logger"), "mcp-test");
    ck_assert_str_eq(jstr(n, "params.data"),
                     "tool eeprom_read failed: no acknowledge from eeprom 0x50 on bus 0");
    ck_assert(json_is_true(jpath(own(mcap_json(&out, 1)), "result.isError")));
    /* delivered once: the session's cursor moved past it */
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 0);
}
END_TEST

/* ---------------------------------------------------------------- suite */

Suite *mcp_suite(void);

Suite *mcp_suite(void)
{
    Suite *s = suite_create("mcp");
    TCase *t = tcase_create("lifecycle");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_loop_test(t, test_version_negotiation, 0, sizeof versions / sizeof versions[0]);
    tcase_add_test(t, test_initialize_result);
    tcase_add_test(t, test_no_completions_capability_for_2024);
    tcase_add_test(t, test_initialize_records_client_capabilities);
    tcase_add_test(t, test_initialize_rejects_wrong_types);
    tcase_add_test(t, test_initialized_notification);
    tcase_add_test(t, test_requests_before_initialize);
    tcase_add_test(t, test_ping_exact_bytes);
    tcase_add_test(t, test_version_api);
    tcase_add_loop_test(t, test_unknown_methods_are_32601, 0,
                        sizeof unknown_methods / sizeof unknown_methods[0]);
    tcase_add_test(t, test_mcp_method_names_are_reserved);
    tcase_add_test(t, test_mcpu_methods_unchanged);
    tcase_add_test(t, test_layer_leaves_mcpu_intact);
    suite_add_tcase(s, t);

    t = tcase_create("tools_list");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_tools_list_entries);
    tcase_add_test(t, test_tools_list_matches_list_tools);
    tcase_add_test(t, test_omit_schemas_is_mcpu_only);
    tcase_add_test(t, test_pages_bounded_by_count);
    tcase_add_test(t, test_pages_bounded_by_bytes);
    tcase_add_test(t, test_oversized_tool_gets_its_own_page);
    tcase_add_loop_test(t, test_bad_cursor_is_32602, 0, sizeof bad_cursors / sizeof bad_cursors[0]);
    tcase_add_test(t, test_empty_cursor_is_first_page);
    tcase_add_test(t, test_with_user_tools);
    suite_add_tcase(s, t);

    t = tcase_create("tools_call");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_call_content_and_structured_content);
    tcase_add_test(t, test_call_text_only_before_2025_06_18);
    tcase_add_test(t, test_call_hardware_failure_is_error_result);
    tcase_add_test(t, test_call_unknown_tool);
    tcase_add_test(t, test_call_params_escaped_and_repeated_keys);
    tcase_add_test(t, test_call_bad_arguments);
    tcase_add_test(t, test_call_long_result_streams_as_text);
    tcase_add_test(t, test_call_handler_bug_is_error_result);
    tcase_add_test(t, test_call_without_result_members);
    tcase_add_test(t, test_call_tool_with_its_own_content);
    tcase_add_test(t, test_call_as_notification);
    tcase_add_test(t, test_progress_precedes_result);
    tcase_add_test(t, test_progress_of_i2c_scan);
    tcase_add_test(t, test_no_progress_without_token);
    tcase_add_test(t, test_no_progress_in_batch_or_unframed);
    tcase_add_test(t, test_progress_over_feed_session);
    tcase_add_test(t, test_cancel_a_queued_batch_member);
    tcase_add_test(t, test_late_cancel_is_ignored);
    tcase_add_test(t, test_tool_failure_logged_before_result);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_MCP) */

/* A build without MCP: the MCP methods are unknown, its API refuses or does nothing, and the
   device still answers MCP/U. */
static fw_err_t read_nothing(fw_call_t *call, const fw_resource_t *res, const char *uri)
{
    (void)res, (void)uri;
    fw_call_result(call);
    return FW_OK;
}

START_TEST(test_feature_is_off)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led"}};
    static const fw_board_t b = {.device = "no-mcp",
                                 .version = "1",
                                 .platform = "mock",
                                 .pins = pins,
                                 .pin_count = 1,
                                 .toolsets = fw_builtins};
    static const fw_resource_t res = {"a://x", "x", NULL, NULL, read_nothing, NULL};
    ck_assert(!FW_WITH_MCP);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    fw_session_init(&sess, &dev);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
    ck_assert(answered);
    json_t *r = msg_at(0);
    ck_assert_int_eq(jint(r, "error.code"), FW_RPC_METHOD_NOT_FOUND);
    send_in(&sess, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_info\"}");
    ck_assert_str_eq(jstr(msg_at(0), "result.device"), "no-mcp");
    ck_assert_int_eq(fw_device_add_resource(&dev, &res), FW_ERR_UNSUPPORTED);
    ck_assert(!fw_mcp_version_supported("2025-06-18", 10));
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &sess, mcap_sink(&out)), 0);
    ck_assert_uint_eq(out.len, 0);
    mcp_teardown();
}
END_TEST

Suite *mcp_suite(void);

Suite *mcp_suite(void)
{
    Suite *s = suite_create("mcp");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_suite)
