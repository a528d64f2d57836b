/* test_mcp_tasks.c: specification of MCP tasks, the io.modelcontextprotocol/tasks extension of
   2026-07-28, in the core: negotiation through _meta, execution.taskSupport, CreateTaskResult,
   steps over device time (fw_device_poll), tasks/get, tasks/update, tasks/cancel, slots. */
#include <stdio.h>

#include "test_mcp_util.h"

#if FW_WITH_TASKS

#define META_NO_CAPS "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\""
#define META META_NO_CAPS ",\"io.modelcontextprotocol/clientCapabilities\":{}}"
#define META_TASKS                                                                                 \
    META_NO_CAPS ",\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{"              \
                 "\"io.modelcontextprotocol/tasks\":{}}}}"

/* A tool taking `seconds` of device time, one step a second; fails on purpose with seconds 13. */
static fw_err_t count_now(fw_call_t *call)
{
    fw_jw_kv_str(fw_call_result(call), "ran", "at once");
    return FW_OK;
}

static fw_task_rc_t count_step(fw_task_step_t *t)
{
    int32_t v = fw_json_obj_get(t->args_doc, (uint32_t)t->args, "seconds");
    int64_t n = 0;
    ck_assert_int_eq(fw_json_get_i64(t->args_doc, (uint32_t)v, &n), FW_OK);
    if (n == 13) {
        snprintf(t->text, t->text_cap, "unlucky");
        return FW_TASK_FAILED;
    }
    if ((int64_t)t->state < n) {
        t->state++;
        t->wake_ms = 1000;
        return FW_TASK_WORKING;
    }
    snprintf(t->text, t->text_cap, "counted %u after %u ms", (unsigned)t->state,
             (unsigned)t->elapsed_ms);
    return FW_TASK_DONE;
}

static fw_task_rc_t ask_step(fw_task_step_t *t)
{
    if (t->state++ == 0) {
        t->input_want = 0x3;
        snprintf(t->text, t->text_cap, "sure?");
        return FW_TASK_INPUT;
    }
    snprintf(t->text, t->text_cap, "accepted %u", (unsigned)t->input_accepted);
    return FW_TASK_DONE;
}

static const fw_param_t seconds_param[] = {
    {.name = "seconds", .type = FW_PARAM_INTEGER, .required = true, .has_min = true,
     .has_max = true, .min = 0, .max = 100, .description = "how long"},
};
static const fw_tool_t tool_count = {.name = "count",
                                     .description = "counts seconds",
                                     .params = seconds_param,
                                     .param_count = 1,
                                     .flags = FW_TOOL_READ_ONLY | FW_TOOL_TASK_OPTIONAL,
                                     .handler = count_now};
static const fw_tool_t tool_ask2 = {.name = "ask2",
                                    .description = "asks twice",
                                    .flags = FW_TOOL_TASK_REQUIRED,
                                    .handler = count_now};
static const fw_task_tool_t steps[] = {{&tool_count, count_step, false},
                                       {&tool_ask2, ask_step, false}};

static void setup(void)
{
    mcp_setup(true);
    fw_session_init(&sess, &dev);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_count), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_ask2), FW_OK);
    for (size_t i = 0; i < 2; i++) ck_assert_int_eq(fw_device_add_task_tool(&dev, &steps[i]), FW_OK);
}

static const char *start_task(const char *name, const char *args)
{
    char params[256];
    snprintf(params, sizeof params, "{\"name\":\"%s\",\"arguments\":%s," META_TASKS "}", name,
             args);
    json_t *r = result_of("tools/call", params);
    ck_assert_str_eq(jstr(r, "resultType"), "task");
    ck_assert_ptr_null(json_object_get(r, "task")); /* flat, no wrapper */
    ck_assert_ptr_null(json_object_get(r, "result"));
    ck_assert_int_gt(jint(r, "ttlMs"), 0);
    ck_assert_ptr_nonnull(strstr(jstr(r, "createdAt"), "T"));
    return jstr(r, "taskId");
}

static json_t *get_task(const char *id)
{
    char params[320];
    snprintf(params, sizeof params, "{\"taskId\":\"%s\"," META_TASKS "}", id);
    return result_of("tasks/get", params);
}

START_TEST(test_discover_and_list_announce_tasks)
{
    json_t *r = result_of("server/discover", "{" META "}");
    ck_assert_ptr_nonnull(jpath(r, "capabilities.extensions"));
    ck_assert_ptr_nonnull(
        json_object_get(jpath(r, "capabilities.extensions"), "io.modelcontextprotocol/tasks"));
    ck_assert_ptr_null(jpath(r, "capabilities.tasks"));
    const char *seen_optional = NULL, *seen_required = NULL;
    char params[512], cursor[64] = "";
    for (int page = 0; page < 8; page++) { /* every page of tools/list */
        snprintf(params, sizeof params, "{%s%s%s" META "}", cursor[0] ? "\"cursor\":\"" : "",
                 cursor, cursor[0] ? "\"," : "");
        r = result_of("tools/list", params);
        json_t *tools = json_object_get(r, "tools");
        for (size_t i = 0; i < json_array_size(tools); i++) {
            json_t *t = json_array_get(tools, i);
            json_t *ex = jpath(t, "execution.taskSupport");
            const char *ts = ex != NULL ? json_string_value(ex) : NULL;
            if (strcmp(jstr(t, "name"), "count") == 0) seen_optional = ts;
            if (strcmp(jstr(t, "name"), "ask2") == 0) seen_required = ts;
            if (strcmp(jstr(t, "name"), "gpio_read") == 0) ck_assert_ptr_null(ex);
        }
        json_t *next = json_object_get(r, "nextCursor");
        if (next == NULL) break;
        snprintf(cursor, sizeof cursor, "%s", json_string_value(next));
    }
    ck_assert_ptr_nonnull(seen_optional);
    ck_assert_ptr_nonnull(seen_required);
    ck_assert_str_eq(seen_optional, "optional");
    ck_assert_str_eq(seen_required, "required");
}
END_TEST

START_TEST(test_task_runs_over_device_time)
{
    const char *id = start_task("count", "{\"seconds\":3}");
    char idc[32];
    snprintf(idc, sizeof idc, "%s", id);
    ck_assert_str_eq(jstr(get_task(idc), "status"), "working");
    hal.now += 2000;
    fw_device_poll(&dev);
    ck_assert_str_eq(jstr(get_task(idc), "status"), "working");
    hal.now += 1000;
    fw_device_poll(&dev);
    json_t *r = get_task(idc);
    ck_assert_str_eq(jstr(r, "status"), "completed");
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "counted 3 after 3000 ms");
    ck_assert_ptr_null(jpath(r, "result.isError"));
    /* the deadline the host sleeps to is the next step's */
    const char *id2 = start_task("count", "{\"seconds\":5}");
    (void)id2;
    ck_assert_uint_le(fw_device_next_deadline(&dev), hal.now + 1000);
}
END_TEST

START_TEST(test_failed_task_inlines_error)
{
    char id[32];
    snprintf(id, sizeof id, "%s", start_task("count", "{\"seconds\":13}"));
    json_t *r = get_task(id);
    ck_assert_str_eq(jstr(r, "status"), "failed");
    ck_assert_int_eq(jint(r, "error.code"), FW_RPC_INTERNAL_ERROR);
    ck_assert_str_eq(jstr(r, "error.message"), "unlucky");
    ck_assert_ptr_null(json_object_get(r, "result"));
}
END_TEST

START_TEST(test_without_extension)
{
    /* optional: runs at once; required: -32021 naming the extension; tasks methods gated */
    json_t *r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":2}," META
                                        "}");
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_ptr_null(json_object_get(r, "taskId"));
    json_t *e = error_of("tools/call", "{\"name\":\"ask2\"," META "}", FW_RPC_MISSING_CLIENT_CAP);
    ck_assert_ptr_nonnull(json_object_get(jpath(e, "data.requiredCapabilities.extensions"),
                                          "io.modelcontextprotocol/tasks"));
    error_of("tasks/get", "{\"taskId\":\"task-1\"," META "}", FW_RPC_MISSING_CLIENT_CAP);
    error_of("tasks/cancel", "{\"taskId\":\"task-1\"," META "}", FW_RPC_MISSING_CLIENT_CAP);
    /* removed in the extension */
    error_of("tasks/list", "{" META_TASKS "}", FW_RPC_METHOD_NOT_FOUND);
    error_of("tasks/result", "{\"taskId\":\"task-1\"," META_TASKS "}", FW_RPC_METHOD_NOT_FOUND);
    error_of("tasks/get", "{\"taskId\":\"task-99\"," META_TASKS "}", FW_RPC_INVALID_PARAMS);
    /* a 2026-07-28 request's invalid arguments are a tool execution error (isError) */
    r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{}," META "}");
    ck_assert(json_is_true(json_object_get(r, "isError")));
    ck_assert_ptr_nonnull(strstr(jstr(r, "content.0.text"), "seconds"));
    /* (a 2025 session's stay -32602) */
    error_of("tools/call", "{\"name\":\"count\",\"arguments\":{}}", FW_RPC_INVALID_PARAMS);
    /* a task's invalid arguments are refused before a slot is taken */
    error_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":-1}," META_TASKS "}",
             FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_input_and_partial_update)
{
    char id[32], params[512];
    snprintf(id, sizeof id, "%s", start_task("ask2", "{}"));
    json_t *r = get_task(id);
    ck_assert_str_eq(jstr(r, "status"), "input_required");
    ck_assert_str_eq(jstr(r, "inputRequests.input-0.method"), "elicitation/create");
    ck_assert_ptr_nonnull(jpath(r, "inputRequests.input-1"));
    snprintf(params, sizeof params,
             "{\"taskId\":\"%s\",\"inputResponses\":{\"input-1\":{\"action\":\"accept\"},"
             "\"bogus\":{}}," META_TASKS "}", id);
    r = result_of("tasks/update", params);
    ck_assert_str_eq(jstr(r, "resultType"), "complete");
    ck_assert_ptr_null(json_object_get(r, "status"));
    r = get_task(id);
    ck_assert_str_eq(jstr(r, "status"), "input_required");
    ck_assert_ptr_nonnull(jpath(r, "inputRequests.input-0"));
    ck_assert_ptr_null(jpath(r, "inputRequests.input-1"));
    snprintf(params, sizeof params,
             "{\"taskId\":\"%s\",\"inputResponses\":{\"input-0\":{\"action\":\"decline\"}}," META_TASKS
             "}", id);
    result_of("tasks/update", params);
    r = get_task(id);
    ck_assert_str_eq(jstr(r, "status"), "completed");
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "accepted 2"); /* bit 1 only */
}
END_TEST

START_TEST(test_cancel_and_slots)
{
    char ids[FW_MAX_TASKS][32], params[320];
    for (unsigned i = 0; i < FW_MAX_TASKS; i++)
        snprintf(ids[i], sizeof ids[i], "%s", start_task("count", "{\"seconds\":50}"));
    /* every slot holds a working task: no room */
    json_t *e = error_of("tools/call",
                         "{\"name\":\"count\",\"arguments\":{\"seconds\":1}," META_TASKS "}",
                         fw_err_rpc_code(FW_ERR_NO_SPACE));
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "task slots"));
    /* cancel: an empty ack, twice the same; the cancelled task's slot is reused */
    snprintf(params, sizeof params, "{\"taskId\":\"%s\"," META_TASKS "}", ids[0]);
    for (int k = 0; k < 2; k++) {
        json_t *r = result_of("tasks/cancel", params);
        ck_assert_str_eq(jstr(r, "resultType"), "complete");
        ck_assert_ptr_null(json_object_get(r, "taskId"));
        ck_assert_ptr_null(json_object_get(r, "status"));
    }
    ck_assert_str_eq(jstr(get_task(ids[0]), "status"), "cancelled");
    hal.now += 60000; /* a cancelled task does not move on */
    fw_device_poll(&dev);
    ck_assert_str_eq(jstr(get_task(ids[0]), "status"), "cancelled");
    start_task("count", "{\"seconds\":0}");
    error_of("tasks/get", params, FW_RPC_INVALID_PARAMS); /* its slot went to the new task */
    /* ttlMs after creation every task is gone */
    hal.now += FW_TASK_TTL_MS;
    fw_device_poll(&dev);
    snprintf(params, sizeof params, "{\"taskId\":\"%s\"," META_TASKS "}", ids[1]);
    error_of("tasks/get", params, FW_RPC_INVALID_PARAMS);
}
END_TEST

static Suite *mcp_tasks_suite(void)
{
    Suite *s = suite_create("mcp_tasks");
    TCase *t = tcase_create("tasks");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_discover_and_list_announce_tasks);
    tcase_add_test(t, test_task_runs_over_device_time);
    tcase_add_test(t, test_failed_task_inlines_error);
    tcase_add_test(t, test_without_extension);
    tcase_add_test(t, test_input_and_partial_update);
    tcase_add_test(t, test_cancel_and_slots);
    suite_add_tcase(s, t);
    return s;
}

#else

START_TEST(test_feature_is_off)
{
    static const fw_board_t b = {.device = "no-tasks", .version = "1", .platform = "mock"};
    ck_assert(!FW_WITH_TASKS);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    fw_task_tool_t tt = {NULL, NULL, false};
    ck_assert_int_eq(fw_device_add_task_tool(&dev, &tt), FW_ERR_UNSUPPORTED);
}
END_TEST

static Suite *mcp_tasks_suite(void)
{
    Suite *s = suite_create("mcp_tasks");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_tasks_suite)
