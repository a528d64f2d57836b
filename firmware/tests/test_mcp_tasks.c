/* test_mcp_tasks.c: specification of MCP tasks, the io.modelcontextprotocol/tasks extension of
   2026-07-28, in the core: negotiation through _meta, execution.taskSupport, CreateTaskResult,
   steps over device time (fw_device_poll), tasks/get, tasks/update, tasks/cancel, slots; and
   MCP 2025-11-25's tasks on the same slots (params.task, tasks/get|list|result|cancel, ttl,
   taskSupport errors), and an outputSchema from parameter descriptors. */
#include <stdio.h>

#include "fw_internal.h" /* fw_mcp_tasks_next: the tasks' share of the next deadline */
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

/* A task in a higher slot than every other live one, once the lower ones expired: it is still
   seen by the scans that run after every request (the next deadline, the drain), and a new task
   takes the lowest free slot beside it. */
START_TEST(test_high_slot_outlives_lower_ones)
{
    char low[2][32], high[32];
    for (unsigned i = 0; i < 2; i++)
        snprintf(low[i], sizeof low[i], "%s", start_task("count", "{\"seconds\":0}"));
    hal.now += FW_TASK_TTL_MS - 5000;
    snprintf(high, sizeof high, "%s", start_task("count", "{\"seconds\":8}")); /* slot 2 */
    hal.now += 6000; /* the two below it expire; it has run 6 of its 8 steps */
    fw_device_poll(&dev);
    for (unsigned i = 0; i < 2; i++) {
        char params[320];
        snprintf(params, sizeof params, "{\"taskId\":\"%s\"," META_TASKS "}", low[i]);
        error_of("tasks/get", params, FW_RPC_INVALID_PARAMS);
    }
    ck_assert_str_eq(jstr(get_task(high), "status"), "working");
    ck_assert_uint_eq(fw_mcp_tasks_next(&dev), hal.now + 1000); /* its next step */
    start_task("count", "{\"seconds\":50}"); /* slot 0 */
    ck_assert_uint_eq(fw_mcp_tasks_next(&dev), hal.now + 1000);
    hal.now += 2000;
    fw_device_poll(&dev);
    json_t *r = get_task(high);
    ck_assert_str_eq(jstr(r, "status"), "completed");
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "counted 8 after 8000 ms");
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

/* ---------------------------------------------------------------- MCP 2025-11-25's tasks */
#if FW_WITH_TASKS_2025

static fw_err_t reading_fn(fw_call_t *call)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "raw", 512);
    fw_jw_kv_str(w, "unit", "counts");
    return FW_OK;
}

static const char *const units[] = {"counts", "mv", NULL};
static const fw_param_t reading_out[] = {
    {.name = "raw", .type = FW_PARAM_INTEGER, .required = true, .has_min = true, .has_max = true,
     .min = 0, .max = 4095},
    {.name = "unit", .type = FW_PARAM_STRING, .required = true, .enum_values = units},
    {.name = "note", .type = FW_PARAM_STRING},
};
static const fw_tool_t tool_reading = {.name = "reading",
                                       .description = "a reading with an output schema",
                                       .flags = FW_TOOL_READ_ONLY,
                                       .handler = reading_fn,
                                       .out = reading_out,
                                       .out_count = FW_ARRAY_LEN(reading_out)};

static void setup_2025(void)
{
    setup();
    ck_assert_int_eq(fw_device_add_tool(&dev, &tool_reading), FW_OK);
    json_t *r = result_of("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                        "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
    ck_assert_str_eq(jstr(r, "protocolVersion"), "2025-11-25");
}

/* tools/call with params.task: the CreateTaskResult {"task": Task}; returns the task's id. */
static const char *start_2025(const char *name, const char *args, const char *task)
{
    char params[256];
    snprintf(params, sizeof params, "{\"name\":\"%s\",\"arguments\":%s,\"task\":%s}", name, args,
             task);
    json_t *r = result_of("tools/call", params);
    ck_assert_ptr_null(json_object_get(r, "resultType"));
    ck_assert_ptr_null(json_object_get(r, "content"));
    ck_assert_str_eq(jstr(r, "task.status"), "working");
    ck_assert_ptr_nonnull(strstr(jstr(r, "task.createdAt"), "T"));
    ck_assert_ptr_nonnull(jpath(r, "task.lastUpdatedAt"));
    ck_assert_int_gt(jint(r, "task.pollInterval"), 0);
    return jstr(r, "task.taskId");
}

static json_t *call_2025(const char *method, const char *id, int error)
{
    char params[96];
    snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", id);
    return error ? error_of(method, params, error) : result_of(method, params);
}

START_TEST(test_2025_capability_and_output_schema)
{
    json_t *r = result_of("initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}");
    ck_assert_ptr_nonnull(jpath(r, "capabilities.tasks.list"));
    ck_assert_ptr_nonnull(jpath(r, "capabilities.tasks.cancel"));
    ck_assert_ptr_nonnull(jpath(r, "capabilities.tasks.requests.tools.call"));
    ck_assert_ptr_null(jpath(r, "capabilities.extensions"));
    /* the listed outputSchema comes from the descriptors; the result is its structuredContent */
    json_t *schema = NULL;
    char params[64] = "{}";
    for (int page = 0; page < 8 && schema == NULL; page++) {
        r = result_of("tools/list", params);
        json_t *tools = json_object_get(r, "tools");
        for (size_t i = 0; i < json_array_size(tools); i++) {
            json_t *t = json_array_get(tools, i);
            if (strcmp(jstr(t, "name"), "reading") == 0) schema = jpath(t, "outputSchema");
            else if (strcmp(jstr(t, "name"), "count") == 0)
                ck_assert_ptr_null(jpath(t, "outputSchema"));
        }
        json_t *next = json_object_get(r, "nextCursor");
        if (next == NULL) break;
        snprintf(params, sizeof params, "{\"cursor\":\"%s\"}", json_string_value(next));
    }
    ck_assert_ptr_nonnull(schema);
    ck_assert_str_eq(jstr(schema, "type"), "object");
    ck_assert_str_eq(jstr(schema, "properties.raw.type"), "integer");
    ck_assert_int_eq(jint(schema, "properties.raw.maximum"), 4095);
    ck_assert_str_eq(jstr(schema, "properties.unit.enum.1"), "mv");
    ck_assert_uint_eq(json_array_size(jpath(schema, "required")), 2); /* note is optional */
    ck_assert(json_is_false(json_object_get(schema, "additionalProperties")));
    r = result_of("tools/call", "{\"name\":\"reading\"}");
    ck_assert_int_eq(jint(r, "structuredContent.raw"), 512);
    ck_assert_str_eq(jstr(r, "structuredContent.unit"), "counts");
    ck_assert_str_eq(jstr(r, "content.0.text"), "{\"raw\":512,\"unit\":\"counts\"}");
    /* 2025-06-18 declares no tasks; its tasks/list is -32601, its params.task ignored */
    r = result_of("initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}");
    ck_assert_ptr_null(jpath(r, "capabilities.tasks"));
    error_of("tasks/list", "{}", FW_RPC_METHOD_NOT_FOUND);
    r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":1},\"task\":{}}");
    ck_assert_str_eq(jstr(r, "structuredContent.ran"), "at once");
}
END_TEST

START_TEST(test_2025_task_to_completed_and_result)
{
    char id[32];
    snprintf(id, sizeof id, "%s", start_2025("count", "{\"seconds\":2}", "{\"ttl\":60000}"));
    json_t *r = call_2025("tasks/get", id, 0);
    ck_assert_str_eq(jstr(r, "taskId"), id);
    ck_assert_str_eq(jstr(r, "status"), "working");
    ck_assert_int_eq(jint(r, "ttl"), 60000);
    hal.now += 2000;
    fw_device_poll(&dev);
    r = call_2025("tasks/get", id, 0);
    ck_assert_str_eq(jstr(r, "status"), "completed");
    ck_assert_str_eq(jstr(r, "statusMessage"), "counted 2 after 2000 ms");
    ck_assert_ptr_null(json_object_get(r, "result")); /* not inlined, as the extension does */
    r = call_2025("tasks/result", id, 0);
    ck_assert_str_eq(jstr(r, "content.0.text"), "counted 2 after 2000 ms");
    ck_assert(json_is_false(json_object_get(r, "isError")));
    json_t *related = json_object_get(jpath(r, "_meta"), "io.modelcontextprotocol/related-task");
    ck_assert_str_eq(jstr(related, "taskId"), id);
    /* a failed task's tasks/result is its error */
    snprintf(id, sizeof id, "%s", "");
    char params[128];
    snprintf(params, sizeof params, "%s",
             "{\"name\":\"count\",\"arguments\":{\"seconds\":13},\"task\":{}}");
    r = result_of("tools/call", params);
    snprintf(id, sizeof id, "%s", jstr(r, "task.taskId"));
    ck_assert_str_eq(jstr(r, "task.status"), "failed");
    json_t *e = call_2025("tasks/result", id, FW_RPC_INTERNAL_ERROR);
    ck_assert_str_eq(jstr(e, "message"), "unlucky");
}
END_TEST

START_TEST(test_2025_task_support_errors)
{
    /* required without params.task, forbidden with it: -32601; optional without: at once */
    json_t *e = error_of("tools/call", "{\"name\":\"ask2\"}", FW_RPC_METHOD_NOT_FOUND);
    ck_assert_str_eq(jstr(e, "message"), "tool ask2 requires task augmentation (taskSupport: "
                                         "required): call it with params.task");
    e = error_of("tools/call", "{\"name\":\"reading\",\"task\":{}}", FW_RPC_METHOD_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "forbidden"));
    json_t *r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":1}}");
    ck_assert_str_eq(jstr(r, "structuredContent.ran"), "at once");
    error_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":1},\"task\":5}",
             FW_RPC_INVALID_PARAMS);
    error_of("tools/call",
             "{\"name\":\"count\",\"arguments\":{\"seconds\":1},\"task\":{\"ttl\":\"long\"}}",
             FW_RPC_INVALID_PARAMS);
    error_of("tools/call", "{\"name\":\"count\",\"arguments\":{},\"task\":{}}",
             FW_RPC_INVALID_PARAMS); /* arguments are bound before a slot is taken */
    call_2025("tasks/get", "task-77", FW_RPC_INVALID_PARAMS);
}
END_TEST

START_TEST(test_2025_cancel_ttl_and_list)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%s", start_2025("count", "{\"seconds\":50}", "{\"ttl\":2500}"));
    snprintf(b, sizeof b, "%s", start_2025("count", "{\"seconds\":50}", "{}"));
    json_t *r = call_2025("tasks/cancel", b, 0);
    ck_assert_str_eq(jstr(r, "taskId"), b);
    ck_assert_str_eq(jstr(r, "status"), "cancelled");
    ck_assert_int_eq(jint(r, "ttl"), FW_TASK_TTL_MS);
    call_2025("tasks/cancel", b, FW_RPC_INVALID_PARAMS); /* already terminal */
    json_t *e = call_2025("tasks/result", b, FW_RPC_INVALID_PARAMS); /* cancelled: no result */
    ck_assert_ptr_nonnull(strstr(jstr(e, "message"), "cancelled"));
    hal.now += 10000;
    fw_device_poll(&dev);
    ck_assert_str_eq(jstr(call_2025("tasks/get", b, 0), "status"), "cancelled");
    call_2025("tasks/get", a, FW_RPC_INVALID_PARAMS); /* its 2.5 s ttl has passed */
    /* a ttl is kept within 1 s .. FW_TASK_TTL_MS */
    r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":9},"
                                "\"task\":{\"ttl\":1}}");
    ck_assert_int_eq(jint(r, "task.ttl"), 1000);
    r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":9},"
                                "\"task\":{\"ttl\":999999999}}");
    ck_assert_int_eq(jint(r, "task.ttl"), FW_TASK_TTL_MS);
#if FW_MAX_TASKS >= 6
    for (int i = 0; i < 3; i++) start_2025("count", "{\"seconds\":9}", "{}");
    /* six tasks: a page of four, then the rest */
    r = result_of("tasks/list", "{}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "tasks")), 4);
    char params[64];
    snprintf(params, sizeof params, "{\"cursor\":\"%s\"}", jstr(r, "nextCursor"));
    r = result_of("tasks/list", params);
    ck_assert_uint_eq(json_array_size(json_object_get(r, "tasks")), 2);
    ck_assert_ptr_null(json_object_get(r, "nextCursor"));
    ck_assert_str_eq(jstr(r, "tasks.1.status"), "working");
#endif
    error_of("tasks/list", "{\"cursor\":\"x9\"}", FW_RPC_INVALID_PARAMS);
}
END_TEST


/* Sends a tasks/result with raw id `id` for task `task` in session s: it is held (no reply). */
static void hold_result(fw_session_t *s, const char *id, const char *task)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tasks/result\",\"params\":"
             "{\"taskId\":\"%s\"}}",
             id, task);
    send_in(s, msg);
    ck_assert_msg(!answered && out.count == 0, "tasks/result was answered at once: %s", out.buf);
}

/* Drains s into out; returns how many messages came (checked against the count returned). */
static unsigned drain(fw_session_t *s)
{
    mcap_reset(&out);
    size_t n = fw_device_drain(&dev, s, mcap_sink(&out));
    ck_assert_uint_eq(n, out.count);
    return out.count;
}

START_TEST(test_2025_result_waits_with_progress)
{
    /* a progressToken on the task-augmented call: notifications/progress while it works */
    json_t *r = result_of("tools/call", "{\"name\":\"count\",\"arguments\":{\"seconds\":2},"
                                        "\"task\":{},\"_meta\":{\"progressToken\":\"p-1\"}}");
    char id[32];
    snprintf(id, sizeof id, "%s", jstr(r, "task.taskId"));
    hold_result(&sess, "\"held-7\"", id);
    fw_session_t other;
    fw_session_init(&other, &dev);
    ck_assert_uint_eq(drain(&other), 0); /* progress goes to the creating session only */
    ck_assert_uint_eq(drain(&sess), 1);
    r = msg_at(0);
    ck_assert_str_eq(jstr(r, "method"), "notifications/progress");
    ck_assert_str_eq(jstr(r, "params.progressToken"), "p-1");
    ck_assert_int_eq(jint(r, "params.progress"), 1); /* count_step reports none: its steps */
    ck_assert_ptr_null(jpath(r, "params.total"));
    ck_assert_ptr_null(jpath(r, "id"));
    ck_assert_uint_eq(drain(&sess), 0); /* sent once */
    hal.now += 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&sess), 1);
    ck_assert_int_eq(jint(msg_at(0), "params.progress"), 2);
    /* the task still works: tasks/get answers, the held request stays held */
    ck_assert_str_eq(jstr(call_2025("tasks/get", id, 0), "status"), "working");
    call_2025("tasks/result", id, FW_RPC_INVALID_PARAMS); /* one request waits per task */
    hal.now += 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&other), 0);
    ck_assert_uint_eq(drain(&sess), 1); /* the response, no progress once terminal */
    r = msg_at(0);
    ck_assert_str_eq(jstr(r, "id"), "held-7");
    ck_assert_str_eq(jstr(r, "result.content.0.text"), "counted 2 after 2000 ms");
    ck_assert(json_is_false(jpath(r, "result.isError")));
    json_t *related = json_object_get(jpath(r, "result._meta"),
                                      "io.modelcontextprotocol/related-task");
    ck_assert_str_eq(jstr(related, "taskId"), id);
    ck_assert_uint_eq(drain(&sess), 0); /* answered once */
    /* terminal now: tasks/result answers at once */
    r = call_2025("tasks/result", id, 0);
    ck_assert_str_eq(jstr(r, "content.0.text"), "counted 2 after 2000 ms");
    /* without a progressToken no progress is sent */
    start_2025("count", "{\"seconds\":3}", "{}");
    hal.now += 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&sess), 0);
}
END_TEST

START_TEST(test_2025_held_result_at_cancel_expiry_and_hangup)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%s", start_2025("count", "{\"seconds\":50}", "{}"));
    hold_result(&sess, "9", a);
    ck_assert_uint_eq(drain(&sess), 0);
    /* cancelled: the held request gets the cancelled outcome on the next drain */
    ck_assert_str_eq(jstr(call_2025("tasks/cancel", a, 0), "status"), "cancelled");
    ck_assert_uint_eq(drain(&sess), 1);
    json_t *r = msg_at(0);
    ck_assert_int_eq(jint(r, "id"), 9);
    ck_assert_int_eq(jint(r, "error.code"), FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(r, "error.message"), "cancelled"));
    /* expired (its ttl passed while it worked): answered with an error, then gone */
    snprintf(b, sizeof b, "%s", start_2025("count", "{\"seconds\":50}", "{\"ttl\":2500}"));
    hold_result(&sess, "10", b);
    hal.now += 2000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&sess), 0);
    hal.now += 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&sess), 1);
    r = msg_at(0);
    ck_assert_int_eq(jint(r, "id"), 10);
    ck_assert_int_eq(jint(r, "error.code"), FW_RPC_INVALID_PARAMS);
    ck_assert_ptr_nonnull(strstr(jstr(r, "error.message"), "expired"));
    call_2025("tasks/get", b, FW_RPC_INVALID_PARAMS); /* freed */
    /* the waiting session goes away: its request is dropped, the task runs on */
    fw_session_t other;
    fw_session_init(&other, &dev);
    request_in(&other, "initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}");
    snprintf(a, sizeof a, "%s", start_2025("count", "{\"seconds\":1}", "{}"));
    hold_result(&other, "\"o\"", a);
    fw_device_session_release(&dev, &other);
    hal.now += 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&other), 0);
    ck_assert_uint_eq(drain(&sess), 0);
    ck_assert_str_eq(jstr(call_2025("tasks/get", a, 0), "status"), "completed");
    /* a request in a batch cannot wait */
    snprintf(b, sizeof b, "%s", start_2025("count", "{\"seconds\":9}", "{}"));
    char msg[160];
    snprintf(msg, sizeof msg,
             "[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/result\",\"params\":"
             "{\"taskId\":\"%s\"}}]", b);
    send_in(&sess, msg);
    ck_assert(answered);
    ck_assert_int_eq(jint(msg_at(0), "0.error.code"), FW_RPC_INVALID_PARAMS);
}
END_TEST
#endif

static Suite *mcp_tasks_suite(void)
{
    Suite *s = suite_create("mcp_tasks");
#if FW_WITH_TASKS_2025
    TCase *t2 = tcase_create("tasks_2025_11_25");
    tcase_add_checked_fixture(t2, setup_2025, mcp_teardown);
    tcase_add_test(t2, test_2025_capability_and_output_schema);
    tcase_add_test(t2, test_2025_task_to_completed_and_result);
    tcase_add_test(t2, test_2025_task_support_errors);
    tcase_add_test(t2, test_2025_cancel_ttl_and_list);
    tcase_add_test(t2, test_2025_result_waits_with_progress);
    tcase_add_test(t2, test_2025_held_result_at_cancel_expiry_and_hangup);
    suite_add_tcase(s, t2);
#endif
    TCase *t = tcase_create("tasks");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_discover_and_list_announce_tasks);
    tcase_add_test(t, test_task_runs_over_device_time);
    tcase_add_test(t, test_failed_task_inlines_error);
    tcase_add_test(t, test_without_extension);
    tcase_add_test(t, test_input_and_partial_update);
    tcase_add_test(t, test_cancel_and_slots);
    tcase_add_test(t, test_high_slot_outlives_lower_ones);
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
