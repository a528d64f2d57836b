/* mcp_tasks.c: MCP tasks, the io.modelcontextprotocol/tasks extension of 2026-07-28 (SEP-2663).
   A task tool's tools/call takes one of the device's fixed slots (fw_device_t.tasks) and
   answers a CreateTaskResult at once; the tool then runs in steps over device time, in
   fw_device_poll (and before any tasks request, so a client polling a device that is not
   otherwise polled still sees it move). tasks/get inlines the result or the error; tasks/update
   delivers answers to the task's input requests; tasks/cancel stops it. tasks/list and
   tasks/result are gone from the revision (-32601 there).

   The same slots serve MCP 2025-11-25's tasks for sessions that negotiated that version: a
   tools/call with params.task creates one ({"task": Task}), tasks/get and tasks/cancel answer
   the Task, tasks/list pages through them, tasks/result gives the tool's result once the task
   is terminal. */
#include "mcp_internal.h"

#if FW_WITH_TASKS

#define POLL_INTERVAL_MS 500u

#if FW_WITH_TASKS_2025
#define TTL_OF(t) ((t)->ttl_ms)
#define IS_2025(t) ((t)->spec == FW_TASK_SPEC_2025_11_25)
#else
#define TTL_OF(t) FW_TASK_TTL_MS
#define IS_2025(t) false
#endif
#define ARGS_TOKENS 24u

fw_err_t fw_device_add_task_tool(fw_device_t *dev, const fw_task_tool_t *tt)
{
    if (dev == NULL || tt == NULL || tt->tool == NULL || tt->step == NULL) return FW_ERR_ARG;
    if (dev->task_tool_count >= FW_TASK_TOOLS_MAX) return FW_ERR_NO_SPACE;
    dev->task_tools[dev->task_tool_count++] = *tt;
    return FW_OK;
}

static const fw_task_tool_t *task_tool_of(const fw_device_t *dev, const fw_tool_t *tool)
{
    for (size_t i = 0; i < dev->task_tool_count; i++)
        if (dev->task_tools[i].tool == tool ||
            strcmp(dev->task_tools[i].tool->name, tool->name) == 0)
            return &dev->task_tools[i];
    return NULL;
}

fw_task_step_fn fw_mcp_task_step_of(const fw_device_t *dev, const fw_tool_t *tool)
{
    const fw_task_tool_t *tt = task_tool_of(dev, tool);
    return tt != NULL && !tt->handler_first ? tt->step : NULL;
}

static bool terminal(const fw_task_t *t)
{
    return t->status >= FW_TASK_S_COMPLETED;
}

/* ---------------------------------------------------------------- stepping */

static void run_step(fw_device_t *dev, fw_task_t *t, uint64_t now)
{
    fw_json_tok_t toks[ARGS_TOKENS];
    fw_json_doc_t doc;
    size_t n = strlen(t->args);
    int32_t args = -1;
    if (n > 0 && fw_json_parse(&doc, t->args, n, toks, ARGS_TOKENS, 4) == FW_OK) args = 0;
    fw_task_step_t s = {dev, &doc, args, (uint32_t)(now - t->created_ms), t->state, 0, 0,
                        t->accepted, t->text, sizeof t->text, 0, 0};
    t->text[0] = 0;
    fw_task_rc_t rc = t->step(&s);
#if FW_WITH_TASKS_2025
    /* the step's progress (or, when it reports none, the count of its working steps) */
    if (IS_2025(t) && t->token_len > 0 && rc == FW_TASK_WORKING) {
        uint32_t p = s.total > 0 || s.progress > 0 ? s.progress : t->progress + 1u;
        if (!t->progress_seen || p > t->progress) { /* progress only ever increases */
            t->progress_due = true;
            t->progress_seen = true;
            t->progress = p;
            t->total = s.total;
        }
    }
#endif
    t->state = s.state;
    t->rc = (uint8_t)rc;
    t->updated_ms = now;
    switch (rc) {
    case FW_TASK_WORKING:
        t->status = FW_TASK_S_WORKING;
        /* from the instant the step was due, so a late poll catches up (advance) */
        t->wake_at_ms = (t->wake_at_ms != 0 && t->wake_at_ms <= now ? t->wake_at_ms : now) +
                        (s.wake_ms > 0 ? s.wake_ms : 1u);
        break;
    case FW_TASK_DONE:
    case FW_TASK_TOOL_ERROR: t->status = FW_TASK_S_COMPLETED; break;
    case FW_TASK_INPUT:
        if (s.input_want != 0) {
            t->status = FW_TASK_S_INPUT_REQUIRED;
            t->pending = s.input_want;
            t->accepted = 0;
            break;
        }
        fw_fmt(t->text, sizeof t->text, "%s", "the tool asked for input without naming any");
        t->rc = FW_TASK_FAILED;
        t->status = FW_TASK_S_FAILED;
        break;
    default: t->status = FW_TASK_S_FAILED; break;
    }
    if (t->status == FW_TASK_S_FAILED) t->err = FW_ERR_INTERNAL;
}

/* Steps every working task that is due and frees the expired ones (ttlMs after creation). */
static void advance(fw_device_t *dev, uint64_t now)
{
    size_t top = 0; /* past the last slot still live */
    for (size_t i = 0; i < dev->task_top; i++) {
        fw_task_t *t = &dev->tasks[i];
        if (t->id == 0) continue;
        if (now - t->created_ms >= TTL_OF(t)) {
#if FW_WITH_TASKS_2025
            /* a tasks/result waits: its session's drain answers it, then frees the slot */
            if (t->waiter != NULL) {
                t->expired = true;
                top = i + 1u;
                continue;
            }
#endif
            t->id = 0;
            continue;
        }
        /* a poll that comes late runs the steps due since, each at most 16 at a time */
        for (unsigned k = 0; k < 16u && t->status == FW_TASK_S_WORKING && now >= t->wake_at_ms;
             k++)
            run_step(dev, t, now);
        top = i + 1u;
    }
    dev->task_top = (uint8_t)top;
}

void fw_mcp_tasks_poll(fw_device_t *dev)
{
    advance(dev, fw_hal_now(dev));
}

uint64_t fw_mcp_tasks_next(const fw_device_t *dev)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < dev->task_top; i++) {
        const fw_task_t *t = &dev->tasks[i];
        if (t->id != 0 && t->status == FW_TASK_S_WORKING && t->wake_at_ms < next)
            next = t->wake_at_ms;
#if FW_WITH_TASKS_2025
        /* a waiting tasks/result is answered when its task expires */
        if (t->id != 0 && t->waiter != NULL && !t->expired && t->created_ms + t->ttl_ms < next)
            next = t->created_ms + t->ttl_ms;
#endif
    }
    return next;
}

/* ---------------------------------------------------------------- writing a task */

static void id_text(char out[16], uint32_t id)
{
    fw_fmt(out, 16, "task-%u", (unsigned)id);
}

static char *digits(char *p, unsigned v, unsigned n)
{
    for (unsigned i = n; i-- > 0;) {
        p[i] = (char)('0' + v % 10u);
        v /= 10u;
    }
    return p + n;
}

/* Device time as an ISO-8601 instant: the device has no calendar, so its clock's zero (boot)
   is 1970-01-01T00:00:00Z (days to a civil date: Howard Hinnant's algorithm). */
static void write_time(fw_jw_t *w, const char *key, uint64_t ms)
{
    char b[32], *p = b;
    uint64_t secs = ms / 1000u;
    uint32_t days = (uint32_t)(secs / 86400u), sod = (uint32_t)(secs % 86400u);
    uint32_t z = days + 719468u, era = z / 146097u, doe = z - era * 146097u;
    uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    uint32_t d = doy - (153u * mp + 2u) / 5u + 1u, m = mp < 10u ? mp + 3u : mp - 9u;
    uint32_t y = yoe + era * 400u + (m <= 2u);
    p = digits(p, y, 4);
    *p++ = '-';
    p = digits(p, m, 2);
    *p++ = '-';
    p = digits(p, d, 2);
    *p++ = 'T';
    p = digits(p, sod / 3600u, 2);
    *p++ = ':';
    p = digits(p, sod / 60u % 60u, 2);
    *p++ = ':';
    p = digits(p, sod % 60u, 2);
    *p++ = '.';
    p = digits(p, (unsigned)(ms % 1000u), 3);
    *p++ = 'Z';
    fw_jw_key(w, key);
    fw_jw_strn(w, b, (size_t)(p - b));
}

static const char *status_name(uint8_t s)
{
    switch (s) {
    case FW_TASK_S_WORKING: return "working";
    case FW_TASK_S_INPUT_REQUIRED: return "input_required";
    case FW_TASK_S_COMPLETED: return "completed";
    case FW_TASK_S_FAILED: return "failed";
    default: return "cancelled";
    }
}

static void write_envelope(fw_jw_t *w, const fw_task_t *t)
{
    char id[16];
    id_text(id, t->id);
    fw_jw_kv_str(w, "taskId", id);
    fw_jw_kv_str(w, "status", status_name(t->status));
    write_time(w, "createdAt", t->created_ms);
    write_time(w, "lastUpdatedAt", t->updated_ms);
    fw_jw_kv_i64(w, "ttlMs", FW_TASK_TTL_MS);
    fw_jw_kv_i64(w, "pollIntervalMs", POLL_INTERVAL_MS);
}

/* Every input request is a yes/no question (its message is the step's text). */
static void write_input_requests(fw_jw_t *w, const fw_task_t *t)
{
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{\"confirm\":{\"type\":\"boolean\"}}}";
    fw_jw_key(w, "inputRequests");
    fw_jw_obj_begin(w);
    for (unsigned i = 0; i < 8u; i++) {
        if (!(t->pending & (1u << i))) continue;
        char key[12];
        fw_fmt(key, sizeof key, "input-%u", i);
        fw_jw_key(w, key);
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "method", "elicitation/create");
        fw_jw_key(w, "params");
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "mode", "form");
        fw_jw_kv_str(w, "message", t->text);
        fw_jw_key(w, "requestedSchema");
        fw_jw_raw(w, schema, sizeof schema - 1u);
        fw_jw_obj_end(w);
        fw_jw_obj_end(w);
    }
    fw_jw_obj_end(w);
}

/* The DetailedTask of tasks/get: the envelope, and the result, the error or the input requests. */
static void write_detail(fw_jw_t *w, const fw_task_t *t)
{
    write_envelope(w, t);
    if (t->status == FW_TASK_S_COMPLETED) {
        fw_jw_key(w, "result");
        fw_jw_obj_begin(w);
        fw_jw_key(w, "content");
        fw_jw_arr_begin(w);
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "type", "text");
        fw_jw_kv_str(w, "text", t->text);
        fw_jw_obj_end(w);
        fw_jw_arr_end(w);
        if (t->rc == FW_TASK_TOOL_ERROR) fw_jw_kv_bool(w, "isError", true);
        fw_jw_obj_end(w);
    } else if (t->status == FW_TASK_S_FAILED) {
        fw_jw_key(w, "error");
        fw_jw_obj_begin(w);
        fw_jw_kv_i64(w, "code", fw_err_rpc_code((fw_err_t)t->err));
        fw_jw_kv_str(w, "message", t->text[0] ? t->text : "the task failed");
        fw_jw_obj_end(w);
    } else if (t->status == FW_TASK_S_INPUT_REQUIRED) {
        write_input_requests(w, t);
    } else if (t->status == FW_TASK_S_CANCELLED) {
        fw_jw_kv_str(w, "statusMessage", "cancelled by the client");
    }
}

/* ---------------------------------------------------------------- tools/call */

static fw_task_t *take_slot(fw_device_t *dev)
{
    fw_task_t *oldest = NULL;
    for (size_t i = 0; i < FW_MAX_TASKS; i++) {
        fw_task_t *t = &dev->tasks[i];
        if (t->id == 0) return t;
#if FW_WITH_TASKS_2025
        if (t->waiter != NULL) continue; /* freed once its tasks/result is answered */
#endif
        /* full: the finished task updated longest ago makes room, before its ttlMs */
        if (terminal(t) && (oldest == NULL || t->updated_ms < oldest->updated_ms)) oldest = t;
    }
    return oldest;
}

/* A new task of step with arguments raw (len bytes), answered as a CreateTaskResult. */
static fw_task_t *start_slot(fw_call_t *call, fw_task_step_fn step, const char *raw, size_t len,
                             uint8_t spec, uint32_t ttl_ms, const fw_mcp_req_t *q25,
                             fw_err_t *err);
#if FW_WITH_TASKS_2025
static void write_task_2025(fw_jw_t *w, const fw_task_t *t);
static fw_err_t cancel_2025(fw_mcp_req_t *q, fw_task_t *t);
#endif

static fw_err_t start(fw_call_t *call, fw_task_step_fn step, const char *raw, size_t len)
{
    fw_err_t err;
    fw_task_t *t = start_slot(call, step, raw, len, FW_TASK_SPEC_EXTENSION, FW_TASK_TTL_MS, NULL,
                               &err);
    if (t == NULL) return err;
    write_envelope(fw_call_result(call), t);
    return FW_OK;
}

/* A new task in a slot, its first step run; NULL with *err worded when none can be had. q25:
   the MCP 2025-11-25 tools/call creating it (its session and progressToken), or NULL. */
static fw_task_t *start_slot(fw_call_t *call, fw_task_step_fn step, const char *raw, size_t len,
                             uint8_t spec, uint32_t ttl_ms, const fw_mcp_req_t *q25,
                             fw_err_t *err)
{
    fw_device_t *dev = call->dev;
    *err = FW_OK;
    if (len >= FW_TASK_ARGS_MAX) {
        *err = fw_call_param_error(call, "arguments", "longer than the %u bytes a task keeps",
                                   (unsigned)(FW_TASK_ARGS_MAX - 1u));
        return NULL;
    }
    uint64_t now = fw_hal_now(dev);
    advance(dev, now);
    fw_task_t *t = take_slot(dev);
    if (t == NULL) {
        *err = fw_call_errorf(call, FW_ERR_NO_SPACE, "all %u task slots hold running tasks",
                              (unsigned)FW_MAX_TASKS);
        return NULL;
    }
    memset(t, 0, sizeof *t);
#if FW_WITH_TASKS_2025
    t->spec = spec;
    t->ttl_ms = ttl_ms;
    if (q25 != NULL) {
        t->owner = q25->session;
        int32_t token = fw_mcp_progress_token(q25);
        size_t token_len = 0;
        const char *token_raw =
            token >= 0 ? fw_json_tok_raw(q25->doc, (uint32_t)token, &token_len) : "";
        if (token_len <= sizeof t->token) { /* longer: no progress (documented) */
            memcpy(t->token, token_raw, token_len);
            t->token_len = (uint8_t)token_len;
        }
    }
#else
    (void)spec, (void)ttl_ms, (void)q25;
#endif
    t->id = ++dev->task_next_id;
    if (t->id == 0) t->id = ++dev->task_next_id;
    if ((size_t)(t - dev->tasks) >= dev->task_top) dev->task_top = (uint8_t)(t - dev->tasks + 1);
    t->step = step;
    t->created_ms = now;
    t->updated_ms = now;
    t->status = FW_TASK_S_WORKING;
    memcpy(t->args, raw, len);
    t->args[len] = 0;
    run_step(dev, t, now); /* durable before the answer: tasks/get finds it at once */
    dev->msg->task_created = true;
    return t;
}

fw_err_t fw_mcp_task_create(fw_mcp_req_t *q, const fw_tool_t *tool, fw_task_step_fn step,
                            int32_t args)
{
    q->call->tool = tool;
    fw_err_t err = fw_schema_bind(q->call, q->doc, args);
    if (err != FW_OK) return err;
    size_t len = 0;
    const char *raw = args >= 0 ? fw_json_tok_raw(q->doc, (uint32_t)args, &len) : "";
    return start(q->call, step, raw, len);
}

fw_err_t fw_call_start_task(fw_call_t *call, const char *args_json)
{
    const fw_task_tool_t *tt = call->tool != NULL ? task_tool_of(call->dev, call->tool) : NULL;
    if (tt == NULL || call->dev->msg == NULL || !fw_call_client_has(call, FW_CLIENT_TASKS))
        return fw_call_errorf(call, FW_ERR_ARG, "%s", "not a task tool's request with the tasks "
                                                      "extension");
    if (args_json == NULL) args_json = "";
    return start(call, tt->step, args_json, strlen(args_json));
}

/* ---------------------------------------------------------------- tasks/get, update, cancel */

/* The task params.taskId names, after the gate on the extension; NULL with the error worded. */
static fw_task_t *find(fw_mcp_req_t *q, fw_err_t *err)
{
    char id[24];
    *err = FW_OK;
    if (!fw_call_client_has(q->call, FW_CLIENT_TASKS) && !fw_mcp_tasks_2025(q)) {
        *err = fw_call_need_client(q->call, FW_CLIENT_TASKS);
        return NULL;
    }
    *err = fw_mcp_string(q, q->params, "taskId", "taskId", true, id, sizeof id);
    if (*err != FW_OK) return NULL;
    advance(q->dev, fw_hal_now(q->dev));
    for (size_t i = 0; i < FW_MAX_TASKS; i++) {
        fw_task_t *t = &q->dev->tasks[i];
        char mine[16];
        if (t->id == 0) continue;
#if FW_WITH_TASKS_2025
        if (t->expired) continue; /* past its ttl: only its waiting tasks/result sees it */
#endif
        id_text(mine, t->id);
        if (strcmp(mine, id) == 0) return t;
    }
    *err = fw_call_errorf(q->call, FW_ERR_INVALID_PARAMS, "unknown task: %s", id);
    return NULL;
}

fw_err_t fw_mcp_tasks_get(fw_mcp_req_t *q)
{
    fw_err_t err;
    fw_task_t *t = find(q, &err);
    if (t == NULL) return err;
#if FW_WITH_TASKS_2025
    if (IS_2025(t)) {
        write_task_2025(fw_call_result(q->call), t);
        return FW_OK;
    }
#endif
    write_detail(fw_call_result(q->call), t);
    return FW_OK;
}

/* inputResponses {"input-i": {"action": "accept", ...}}: each answers request i; keys the task
   does not wait for are ignored. When none is left pending the task works again at once. */
fw_err_t fw_mcp_tasks_update(fw_mcp_req_t *q)
{
    fw_err_t err;
    fw_task_t *t = find(q, &err);
    if (t == NULL) return err;
    int32_t responses;
    err = fw_mcp_object(q, q->params, "inputResponses", "inputResponses", true, &responses);
    if (err != FW_OK) return err;
    if (t->status == FW_TASK_S_INPUT_REQUIRED) {
        for (unsigned i = 0; i < 8u; i++) {
            char key[12];
            fw_fmt(key, sizeof key, "input-%u", i);
            int32_t r = fw_mcp_member(q, responses, key);
            if (r < 0 || !(t->pending & (1u << i))) continue;
            t->pending &= (uint8_t)~(1u << i);
            int32_t action = fw_mcp_member(q, r, "action");
            if (action >= 0 && fw_json_str_eq(q->doc, (uint32_t)action, "accept"))
                t->accepted |= (uint8_t)(1u << i);
        }
        uint64_t now = fw_hal_now(q->dev);
        t->updated_ms = now;
        if (t->pending == 0) {
            t->status = FW_TASK_S_WORKING;
            t->wake_at_ms = now;
            run_step(q->dev, t, now);
        }
    }
    fw_call_result(q->call);
    return FW_OK;
}

/* Cancelling a finished task changes nothing and is acknowledged the same way. */
fw_err_t fw_mcp_tasks_cancel(fw_mcp_req_t *q)
{
    fw_err_t err;
    fw_task_t *t = find(q, &err);
    if (t == NULL) return err;
#if FW_WITH_TASKS_2025
    if (IS_2025(t)) return cancel_2025(q, t);
#endif
    if (!terminal(t)) {
        t->status = FW_TASK_S_CANCELLED;
        t->pending = 0;
        t->updated_ms = fw_hal_now(q->dev);
    }
    fw_call_result(q->call);
    return FW_OK;
}

/* ---------------------------------------------------------------- MCP 2025-11-25 */

#if FW_WITH_TASKS_2025
/* 2025-11-25: a terminal task cannot be cancelled; the answer is the cancelled Task. */
static fw_err_t cancel_2025(fw_mcp_req_t *q, fw_task_t *t)
{
    if (terminal(t))
        return fw_call_errorf(q->call, FW_ERR_INVALID_PARAMS,
                              "cannot cancel task task-%u: it is already %s", (unsigned)t->id,
                              status_name(t->status));
    t->status = FW_TASK_S_CANCELLED;
    t->updated_ms = fw_hal_now(q->dev);
    fw_fmt(t->text, sizeof t->text, "%s", "cancelled by the client");
    write_task_2025(fw_call_result(q->call), t);
    return FW_OK;
}

bool fw_mcp_tasks_2025(const fw_mcp_req_t *q)
{
    return !q->msg->stateless && q->session->initialize_seen &&
           fw_mcp_version_of(q->session) == FW_MCP_V2025_11_25;
}

/* The Task object's members: taskId, status, statusMessage (the step's text: progress while
   working, the summary or the failure after), createdAt, lastUpdatedAt, ttl, pollInterval. */
static void write_task_2025(fw_jw_t *w, const fw_task_t *t)
{
    char id[16];
    id_text(id, t->id);
    fw_jw_kv_str(w, "taskId", id);
    fw_jw_kv_str(w, "status", status_name(t->status));
    if (t->text[0] != 0 && t->status != FW_TASK_S_INPUT_REQUIRED)
        fw_jw_kv_str(w, "statusMessage", t->text);
    write_time(w, "createdAt", t->created_ms);
    write_time(w, "lastUpdatedAt", t->updated_ms);
    fw_jw_kv_i64(w, "ttl", t->ttl_ms);
    fw_jw_kv_i64(w, "pollInterval", POLL_INTERVAL_MS);
}

/* params.task {"ttl": ms}: the device keeps a task at most FW_TASK_TTL_MS (and at least 1 s). */
static fw_err_t read_ttl(fw_mcp_req_t *q, int32_t task, uint32_t *ttl)
{
    *ttl = FW_TASK_TTL_MS;
    if (q->doc->toks[task].type != FW_JSON_OBJECT)
        return fw_call_param_error(q->call, "task", "%s", "must be an object ({\"ttl\": ms})");
    int32_t tok = fw_mcp_member(q, task, "ttl");
    if (tok < 0 || q->doc->toks[tok].type == FW_JSON_NULL) return FW_OK;
    int64_t v;
    if (q->doc->toks[tok].type != FW_JSON_NUMBER || fw_json_get_i64(q->doc, (uint32_t)tok, &v) != FW_OK ||
        v < 0)
        return fw_call_param_error(q->call, "task/ttl", "%s",
                                   "must be a non-negative integer of milliseconds");
    *ttl = v < 1000 ? 1000u : v > (int64_t)FW_TASK_TTL_MS ? FW_TASK_TTL_MS : (uint32_t)v;
    return FW_OK;
}

fw_err_t fw_mcp_task_create_2025(fw_mcp_req_t *q, const fw_tool_t *tool, fw_task_step_fn step,
                                 int32_t args, int32_t task)
{
    uint32_t ttl;
    fw_err_t err = read_ttl(q, task, &ttl);
    if (err != FW_OK) return err;
    if (step == NULL && (tool->flags & (FW_TOOL_TASK_OPTIONAL | FW_TOOL_TASK_REQUIRED)))
        return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND,
                              "tool %s gathers input before its task starts, which only MCP "
                              "2026-07-28 can do: it cannot run as a 2025-11-25 task",
                              tool->name);
    if (step == NULL)
        return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND,
                              "tool %s does not support task-augmented execution (taskSupport: "
                              "forbidden): call it without params.task",
                              tool->name);
    q->call->tool = tool;
    err = fw_schema_bind(q->call, q->doc, args);
    if (err != FW_OK) return err;
    size_t len = 0;
    const char *raw = args >= 0 ? fw_json_tok_raw(q->doc, (uint32_t)args, &len) : "";
    fw_task_t *t = start_slot(q->call, step, raw, len, FW_TASK_SPEC_2025_11_25, ttl, q, &err);
    if (t == NULL) return err;
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "task");
    fw_jw_obj_begin(w);
    write_task_2025(w, t);
    fw_jw_obj_end(w);
    return FW_OK;
}

#define LIST_PAGE 4u

/* The cursor is the slot index the page starts at, as decimal text. */
fw_err_t fw_mcp_tasks_list(fw_mcp_req_t *q)
{
    char text[8];
    if (!fw_mcp_tasks_2025(q))
        return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND, "%s",
                              "tasks/list is MCP 2025-11-25's: initialize with that version");
    fw_err_t err = fw_mcp_string(q, q->params, "cursor", "cursor", false, text, sizeof text);
    if (err != FW_OK) return err;
    size_t start = 0, n = 0;
    for (; text[n] >= '0' && text[n] <= '9' && start <= FW_MAX_TASKS; n++)
        start = start * 10u + (size_t)(text[n] - '0');
    if (text[n] != 0 || start > FW_MAX_TASKS)
        return fw_call_param_error(q->call, "cursor", "invalid cursor '%s': pass the nextCursor "
                                   "of the previous page, or none for the first", text);
    advance(q->dev, fw_hal_now(q->dev));
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "tasks");
    fw_jw_arr_begin(w);
    size_t i = start, listed = 0;
    for (; i < FW_MAX_TASKS; i++) {
        const fw_task_t *t = &q->dev->tasks[i];
        if (t->id == 0 || !IS_2025(t) || t->expired) continue;
        if (listed == LIST_PAGE) break;
        fw_jw_obj_begin(w);
        write_task_2025(w, t);
        fw_jw_obj_end(w);
        listed++;
    }
    fw_jw_arr_end(w);
    if (i < FW_MAX_TASKS) {
        char next[8];
        fw_fmt(next, sizeof next, "%u", (unsigned)i);
        fw_jw_kv_str(w, "nextCursor", next);
    }
    return FW_OK;
}

/* The CallToolResult of a completed task: its text block, isError, and _meta naming it. */
static void write_outcome(fw_jw_t *w, const fw_task_t *t)
{
    char id[16];
    id_text(id, t->id);
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_kv_str(w, "text", t->text);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "isError", t->rc == FW_TASK_TOOL_ERROR);
    fw_jw_key(w, "_meta");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "io.modelcontextprotocol/related-task");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "taskId", id);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

/* The error a terminal task that did not complete answers tasks/result with (code, text). */
static fw_err_t outcome_error(const fw_task_t *t, char *text, size_t cap)
{
    if (t->expired) {
        fw_fmt(text, cap, "task task-%u expired (its ttl of %u ms passed) before it ended",
               (unsigned)t->id, (unsigned)t->ttl_ms);
        return FW_ERR_INVALID_PARAMS;
    }
    if (t->status == FW_TASK_S_CANCELLED) {
        fw_fmt(text, cap, "task task-%u was cancelled: it has no result", (unsigned)t->id);
        return FW_ERR_INVALID_PARAMS;
    }
    fw_fmt(text, cap, "%s", t->text[0] ? t->text : "the task failed");
    return (fw_err_t)t->err;
}

/*
 * The tool's result once the task is terminal: the CallToolResult (its text block, isError for
 * a tool error) with _meta naming the task; a failed task's error as the JSON-RPC error, a
 * cancelled one's -32602. A task still working holds the request (as 2025-11-25 asks) without
 * holding the device: the slot keeps the request's id and session, nothing is answered now, and
 * that session's fw_device_drain answers it once the task is terminal or expired. One request
 * waits per task; a second, one in a batch or one whose id is longer than FW_MCP_ID_MAX is
 * -32602 (poll tasks/get).
 */
fw_err_t fw_mcp_tasks_result(fw_mcp_req_t *q)
{
    fw_err_t err;
    fw_task_t *t = find(q, &err);
    if (t == NULL) return err;
    fw_resp_t *r = q->call->priv;
    if (!terminal(t)) {
        const char *why = t->waiter != NULL ? "another tasks/result already waits for it"
                          : q->msg->batch   ? "a request in a batch cannot wait"
                          : r->id_len > sizeof t->wait_id
                              ? "its id is longer than FW_MCP_ID_MAX bytes"
                              : NULL;
        if (why != NULL)
            return fw_call_errorf(q->call, FW_ERR_INVALID_PARAMS,
                                  "task task-%u is still %s and this request cannot wait (%s): "
                                  "poll tasks/get until it is completed, failed or cancelled",
                                  (unsigned)t->id, status_name(t->status), why);
        if (r->id == NULL) return FW_OK; /* a notification: nothing to answer */
        t->waiter = q->session;
        memcpy(t->wait_id, r->id, r->id_len);
        t->wait_id_len = (uint8_t)r->id_len;
        r->deferred = true;
        return FW_OK;
    }
    if (t->status != FW_TASK_S_COMPLETED) {
        char text[FW_ERRMSG_MAX];
        err = outcome_error(t, text, sizeof text);
        return fw_call_errorf(q->call, err, "%s", text);
    }
    write_outcome(fw_call_result(q->call), t);
    return FW_OK;
}

/* Writes a whole message: the held tasks/result's response for t. */
static void answer_waiter(fw_task_t *t, const fw_msg_sink_t *out)
{
    fw_jw_t w;
    fw_jw_init(&w, (fw_sink_t){out->write, out->ctx});
    fw_jw_obj_begin(&w);
    fw_jw_kv_str(&w, "jsonrpc", "2.0");
    fw_jw_key(&w, "id");
    fw_jw_raw(&w, t->wait_id, t->wait_id_len);
    fw_msg_kind_t kind = FW_MSG_RESULT;
    int32_t code = 0;
    if (t->status == FW_TASK_S_COMPLETED && !t->expired) {
        fw_jw_key(&w, "result");
        fw_jw_obj_begin(&w);
        write_outcome(&w, t);
        fw_jw_obj_end(&w);
    } else {
        char text[FW_ERRMSG_MAX];
        fw_err_t err = outcome_error(t, text, sizeof text);
        fw_jw_key(&w, "error");
        fw_jw_obj_begin(&w);
        kind = FW_MSG_ERROR;
        code = (int32_t)fw_err_rpc_code(err);
        fw_jw_kv_i64(&w, "code", code);
        fw_jw_kv_str(&w, "message", text);
        fw_jw_obj_end(&w);
    }
    fw_jw_obj_end(&w);
    fw_jw_flush(&w);
    fw_msg_sink_end(out, kind, code);
    t->waiter = NULL;
    if (t->expired) t->id = 0;
}

/* notifications/progress of t's creating tools/call: its progressToken, the step's report and
   the status message. */
static void send_progress(const fw_task_t *t, const fw_msg_sink_t *out)
{
    fw_jw_t w;
    fw_mcp_notify_begin(&w, out, "notifications/progress");
    fw_jw_key(&w, "progressToken");
    fw_jw_raw(&w, t->token, t->token_len);
    fw_jw_kv_i64(&w, "progress", t->progress);
    if (t->total > 0) fw_jw_kv_i64(&w, "total", t->total);
    if (t->text[0] != 0) fw_jw_kv_str(&w, "message", t->text);
    fw_mcp_notify_end(&w, out);
}

size_t fw_mcp_tasks_drain(fw_device_t *dev, const fw_session_t *s, const fw_msg_sink_t *out)
{
    size_t sent = 0;
    for (size_t i = 0; i < dev->task_top; i++) {
        fw_task_t *t = &dev->tasks[i];
        if (t->id == 0 || !IS_2025(t)) continue;
        if (t->owner == s && t->progress_due) {
            t->progress_due = false;
            /* the token is valid while the task works: a terminal task sends no more */
            if (!terminal(t) && !t->expired) {
                send_progress(t, out);
                sent++;
            }
        }
        if (t->waiter == s && (terminal(t) || t->expired)) {
            answer_waiter(t, out);
            sent++;
        }
    }
    return sent;
}

void fw_mcp_tasks_release(fw_device_t *dev, const fw_session_t *s)
{
    for (size_t i = 0; i < FW_MAX_TASKS; i++) {
        fw_task_t *t = &dev->tasks[i];
        if (t->id == 0 || !IS_2025(t)) continue;
        if (t->owner == s) {
            t->owner = NULL;
            t->progress_due = false;
        }
        if (t->waiter != s) continue;
        t->waiter = NULL;
        if (t->expired) t->id = 0;
    }
}
#endif /* FW_WITH_TASKS_2025 */

#else

fw_err_t fw_call_start_task(fw_call_t *call, const char *args_json)
{
    (void)args_json;
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s", "no tasks in this build");
}

fw_err_t fw_device_add_task_tool(fw_device_t *dev, const fw_task_tool_t *tt)
{
    (void)dev;
    (void)tt;
    return FW_ERR_UNSUPPORTED;
}

#endif
