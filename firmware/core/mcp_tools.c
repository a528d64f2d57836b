/* mcp_tools.c: MCP tools/list (pages bounded by count and by bytes) and tools/call (content,
   structuredContent, isError, progress). */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/* ---------------------------------------------------------------- tools/list */

/*
 * The cursor is the registry index where the next page starts, as decimal text. A page ends
 * before the tool that would make it hold more than FW_MCP_PAGE_TOOLS tools or make its
 * "tools" array longer than FW_MCP_PAGE_BYTES; each entry is measured first by writing it to a
 * counting writer (a sink that discards), so no buffer is needed. A page always takes its first
 * tool, however long, so that listing makes progress.
 */

static size_t entry_size(const fw_device_t *dev, const fw_tool_t *t)
{
    fw_jw_t counter;
    fw_jw_init(&counter, (fw_sink_t){NULL, NULL});
    fw_write_tool(&counter, dev->board, t, true);
    return counter.total;
}

/* Index one past the last tool of the page starting at start. */
static size_t page_end(const fw_device_t *dev, bool with_user, size_t start)
{
    size_t n = 0, bytes = 2; /* "[" and "]" */
    size_t i = start;
    for (; i < dev->tool_count; i++) {
        const fw_tool_t *t = dev->tools[i];
        if (!fw_tool_listed(t, with_user)) continue;
        if (n == FW_MCP_PAGE_TOOLS) break;
        size_t add = entry_size(dev, t) + (n > 0 ? 1u : 0u); /* the comma before it */
        if (n > 0 && bytes + add > FW_MCP_PAGE_BYTES) break;
        bytes += add;
        n++;
    }
    return i;
}

static bool listed_from(const fw_device_t *dev, bool with_user, size_t i)
{
    for (; i < dev->tool_count; i++)
        if (fw_tool_listed(dev->tools[i], with_user)) return true;
    return false;
}

/* Absent, null or "" (as the 003 device's clients send) is the first page. */
static fw_err_t read_cursor(fw_mcp_req_t *q, size_t *start)
{
    char text[12];
    *start = 0;
    int32_t tok = fw_mcp_member(q, q->params, "cursor");
    if (tok >= 0 && q->doc->toks[tok].type == FW_JSON_NULL) return FW_OK;
    fw_err_t err = fw_mcp_string(q, q->params, "cursor", "cursor", false, text, sizeof text);
    if (err != FW_OK || text[0] == 0) return err;
    size_t v = 0, n = 0;
    for (; text[n] >= '0' && text[n] <= '9' && v <= q->dev->tool_count; n++)
        v = v * 10u + (size_t)(text[n] - '0');
    if (text[n] != 0 || v > q->dev->tool_count)
        return fw_call_param_error(q->call, "cursor",
                                   "invalid cursor '%s': pass the nextCursor of the previous "
                                   "page, or none for the first",
                                   text);
    *start = v;
    return FW_OK;
}

fw_err_t fw_mcp_tools_list(fw_mcp_req_t *q)
{
    const fw_device_t *dev = q->dev;
    bool with_user = false;
    size_t start;
    fw_err_t err = read_cursor(q, &start);
    if (err == FW_OK) err = fw_mcp_bool(q, q->params, "withUserTools", "withUserTools", &with_user);
    if (err != FW_OK) return err;
    size_t end = page_end(dev, with_user, start);
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "tools");
    fw_jw_arr_begin(w);
    for (size_t i = start; i < end; i++)
        if (fw_tool_listed(dev->tools[i], with_user))
            fw_write_tool(w, dev->board, dev->tools[i], true);
    fw_jw_arr_end(w);
    if (listed_from(dev, with_user, end)) {
        char next[12];
        fw_fmt(next, sizeof next, "%u", (unsigned)end);
        fw_jw_kv_str(w, "nextCursor", next);
    }
    return FW_OK;
}

/* ---------------------------------------------------------------- tools/call */

/*
 * The tool's result object is wanted twice (as the text of a content block and as
 * structuredContent), so it is written into dev->result_buf through a tee sink (at level 2 one
 * that never left the writer's buffer is taken from there: tee_flush). When it does not
 * fit, the tee starts the response there and then, and streams the kept bytes and all later ones
 * once, escaped, into the text block: such a result has no structuredContent. The handler cannot
 * fail any more once it writes its result, so starting the response mid-handler is safe.
 */
typedef struct tee {
    fw_call_t *call;
    char *buf;
    size_t cap, len;
    fw_jw_t *text; /* the response writer, inside the open text string, once streaming */
} tee_t;

/* Starts the result with content: [{"type":"text","text": (the string value comes next). */
static fw_jw_t *begin_content(fw_call_t *call)
{
    fw_jw_t *w = fw_resp_result(call->dev, call->priv);
    FW_JW_KEY(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    FW_JW_KV_STR(w, "type", "text");
    FW_JW_KEY(w, "text");
    return w;
}

static void end_content(fw_jw_t *w)
{
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
}

static void tee_write(void *ctx, const char *data, size_t n)
{
    tee_t *t = ctx;
    if (t->text == NULL && n <= t->cap - t->len) {
        memcpy(t->buf + t->len, data, n);
        t->len += n;
        return;
    }
    if (t->text == NULL) {
        t->call->dev->msg->live = false; /* the response has begun: no more notifications */
        t->text = begin_content(t->call);
        fw_jw_str_begin(t->text);
        fw_jw_str_chunk(t->text, t->buf, t->len);
    }
    fw_jw_str_chunk(t->text, data, n);
}

/* A failure of the tool's work: a result with isError and the worded message. */
static fw_err_t write_failure(fw_mcp_req_t *q, fw_err_t err)
{
    const fw_resp_t *r = q->call->priv;
    bool worded = r->err == err && r->message[0] != 0;
    fw_jw_t *w = begin_content(q->call);
    fw_jw_str(w, worded ? r->message : fw_err_str(err));
    end_content(w);
    fw_jw_kv_bool(w, "isError", true);
    q->dev->counters.errors++;
    return FW_OK;
}

/* A result the tool wrote; ok false when the handler broke its contract (then isError). */
static fw_err_t write_result(fw_mcp_req_t *q, tee_t *t, bool ok)
{
    fw_jw_t *w = t->text;
    if (w != NULL) {
        fw_jw_str_end(w);
    } else {
        w = begin_content(q->call);
        fw_jw_str_json(w, t->buf, t->len);
    }
    end_content(w);
    if (!ok) {
        fw_jw_kv_bool(w, "isError", true);
    } else if (t->text == NULL && fw_mcp_version_of(q->session) >= FW_MCP_V2025_06_18) {
        FW_JW_KEY(w, "structuredContent");
        fw_jw_raw(w, t->buf, t->len);
    }
    return FW_OK;
}

/* _meta.progressToken (a string or a number), or -1. */
int32_t fw_mcp_progress_token(const fw_mcp_req_t *q)
{
    int32_t meta = fw_mcp_meta(q);
    if (meta < 0 || q->doc->toks[meta].type != FW_JSON_OBJECT) return -1;
    int32_t tok = fw_mcp_member(q, meta, "progressToken");
    if (tok < 0) return -1;
    uint8_t type = q->doc->toks[tok].type;
    return type == FW_JSON_STRING || type == FW_JSON_NUMBER ? tok : -1;
}

/* Notifications may be written while the tool runs and nothing of the response is written
   yet: only for a request (not a notification), outside a batch, on a framed output. */
static void live_begin(fw_mcp_req_t *q)
{
    const fw_resp_t *r = q->call->priv;
    q->msg->live = q->msg->framed && !q->msg->batch && r->id != NULL;
    q->msg->progress = fw_mcp_progress_token(q);
    q->msg->asked = false;
}

static void live_end(fw_mcp_req_t *q)
{
    q->msg->live = false;
    q->msg->progress = -1;
}

/*
 * After a handler that asked the client (fw_call_ask): the request is ended, and the call's
 * response waits for the answer. A handler that failed after asking, or wrote its result
 * anyway, is answered now: the session stops waiting and will ignore the client's answer.
 */
static bool asked_and_waits(fw_mcp_req_t *q, fw_err_t err, bool started)
{
    fw_resp_t *r = q->call->priv;
    if (!q->msg->asked) return false;
    fw_mcp_ask_end(q->dev);
    q->msg->asked = false;
    if (err != FW_OK || started || r->result_started) {
        q->session->ask_tool = NULL;
        return false;
    }
    r->deferred = true;
    return true;
}

/* Hands the result's bytes in w to the tee. Where speed is asked for, a result that w's buffer
   holds whole (none went to the tee yet) stays there: the tee is pointed at it, not copied. */
static void tee_flush(fw_jw_t *w)
{
#if FW_SPEED_PATHS >= 2
    tee_t *t = w->sink.ctx;
    if (t->len == 0 && t->text == NULL && w->used <= t->cap) {
        t->buf = w->buf;
        t->len = w->used;
        return;
    }
#endif
    fw_jw_flush(w);
}

/* Runs the tool into w (the tee); a failure is logged while still live, before the result.
   doc NULL: a deferred call runs again, with no arguments bound. */
static fw_err_t run(fw_mcp_req_t *q, const fw_tool_t *tool, const fw_json_doc_t *doc, int32_t args,
                    fw_jw_t *w, bool *started)
{
    live_begin(q);
    fw_err_t err = fw_rpc_run_tool(q->call, tool, doc, args, w, started);
    tee_flush(w);
    if (!*started) fw_log_tool_failure(q->call, err);
    live_end(q);
    return err;
}

/* A FW_TOOL_MCP_RESULT tool writes the members of the CallToolResult itself, straight into
   the response (as an MCP/U call would); a failure before its result is still wrapped. */
static fw_err_t run_direct(fw_mcp_req_t *q, const fw_tool_t *tool, const fw_json_doc_t *doc,
                           int32_t args)
{
    const fw_resp_t *r = q->call->priv;
    q->call->tool = tool;
    fw_err_t err = doc != NULL ? fw_schema_bind(q->call, doc, args) : FW_OK;
    if (err == FW_ERR_INVALID_PARAMS && q->msg->stateless) return write_failure(q, err);
    if (err != FW_OK) return err;
    live_begin(q);
    err = tool->handler(q->call);
    if (!r->result_started) fw_log_tool_failure(q->call, err);
    live_end(q);
    fw_mcp_ask_input_end(q->call);
    if (asked_and_waits(q, err, false)) return FW_OK;
    if (r->result_started || err == FW_OK || err == FW_ERR_INVALID_PARAMS ||
        err == FW_ERR_CLIENT_CAPABILITY)
        return err;
    return write_failure(q, err);
}

/* Runs tool for a tools/call (doc NULL: again, for the client's answer, without arguments). */
static fw_err_t call_tool(fw_mcp_req_t *q, const fw_tool_t *tool, const fw_json_doc_t *doc,
                          int32_t args)
{
    if (tool->flags & FW_TOOL_MCP_RESULT) return run_direct(q, tool, doc, args);
    tee_t t = {q->call, q->dev->result_buf, sizeof q->dev->result_buf, 0, NULL};
    fw_jw_t w;
    bool started;
    fw_jw_init(&w, (fw_sink_t){tee_write, &t});
    fw_err_t err = run(q, tool, doc, args, &w, &started);
    fw_mcp_ask_input_end(q->call);
    if (q->msg->input_required) return err; /* answered straight into the response */
    if (asked_and_waits(q, err, started)) return FW_OK;
    /* 2026-07-28 (SEP-1303's advice made the rule): arguments the schema refuses are a tool
       execution error the model can read and correct, not a protocol error */
    if (!started && err == FW_ERR_INVALID_PARAMS && q->msg->stateless)
        return write_failure(q, err);
    if (!started && (err == FW_ERR_INVALID_PARAMS || err == FW_ERR_CLIENT_CAPABILITY)) return err;
    if (!started) return write_failure(q, err);
    return write_result(q, &t, err == FW_OK && w.err == FW_OK);
}

#if FW_SPEED_PATHS >= 2
/* The tool string token tok (-1: none) names when the name has no escapes and fits name (cap
   bytes with its NUL): found on its raw bytes and copied to name, as fw_mcp_string_tok and
   fw_device_find_tool would read and find it. NULL otherwise: the caller then reads it so. */
static const fw_tool_t *tool_named(const fw_mcp_req_t *q, int32_t tok, char *name, size_t cap)
{
    if (tok < 0) return NULL;
    const fw_json_tok_t *t = &q->doc->toks[tok];
    size_t n = (size_t)(t->end - t->start);
    if (t->type != FW_JSON_STRING || (t->flags & FW_JSON_F_ESCAPED) != 0 || n >= cap) return NULL;
    const char *p = q->doc->buf + t->start;
    for (size_t i = 0; i < q->dev->tool_count; i++) {
        if (!fw_raw_is(p, n, fw_tool_name(q->dev->tools[i]))) continue;
        memcpy(name, p, n);
        name[n] = 0;
        return q->dev->tools[i];
    }
    return NULL;
}
#endif

/* Unknown tools and invalid arguments are JSON-RPC errors (-32602); a failure of the tool's
   work is a result with isError. */
fw_err_t fw_mcp_tools_call(fw_mcp_req_t *q)
{
    char name[64];
    int32_t args;
#if FW_SPEED_PATHS >= 2
    /* the members of params read here, found in one pass (task below too) */
    enum { NAME, ARGUMENTS, TASK, MEMBERS };
    static const char *const keys[MEMBERS] = {"name", "arguments", "task"};
    int32_t m[MEMBERS];
    fw_mcp_members(q, q->params, keys, MEMBERS, m);
    const fw_tool_t *tool = tool_named(q, m[NAME], name, sizeof name);
    fw_err_t err =
        tool != NULL ? FW_OK : fw_mcp_string_tok(q, m[NAME], "name", true, name, sizeof name);
    if (err == FW_OK) err = fw_mcp_object_tok(q, m[ARGUMENTS], "arguments", false, &args);
#define TASK_MEMBER m[TASK]
#else
    const fw_tool_t *tool = NULL;
    fw_err_t err = fw_mcp_string(q, q->params, "name", "name", true, name, sizeof name);
    if (err == FW_OK) err = fw_mcp_object(q, q->params, "arguments", "arguments", false, &args);
#define TASK_MEMBER fw_mcp_member(q, q->params, "task")
#endif
    if (err != FW_OK) return err;
    if (tool == NULL) tool = fw_device_find_tool(q->dev, name);
    if (tool == NULL)
        return fw_call_errorf(q->call, FW_ERR_INVALID_PARAMS, "unknown tool: %s", name);
#if FW_WITH_TASKS
    /* a task tool runs as a task for a client that negotiated the extension (the device
       decides; a legacy params.task hint changes nothing), at once for others, or not at all
       when it requires a task */
    fw_task_step_fn step = (tool->flags & (FW_TOOL_TASK_OPTIONAL | FW_TOOL_TASK_REQUIRED))
                               ? fw_mcp_task_step_of(q->dev, tool)
                               : NULL;
    if (step != NULL && fw_call_client_has(q->call, FW_CLIENT_TASKS))
        return fw_mcp_task_create(q, tool, step, args);
    /* MCP 2025-11-25: the client asks for a task with params.task; a tool whose taskSupport
       forbids it, or requires it when not asked, is -32601 */
#if FW_WITH_TASKS_2025
    if (fw_mcp_tasks_2025(q)) {
        int32_t task = TASK_MEMBER;
        if (task >= 0) return fw_mcp_task_create_2025(q, tool, step, args, task);
        if (tool->flags & FW_TOOL_TASK_REQUIRED)
            return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND,
                                  "tool %s requires task augmentation (taskSupport: required): "
                                  "call it with params.task",
                                  name);
    }
#endif
    if ((tool->flags & FW_TOOL_TASK_REQUIRED) && !fw_call_client_has(q->call, FW_CLIENT_TASKS))
        return fw_call_need_client(q->call, FW_CLIENT_TASKS);
#endif
    return call_tool(q, tool, q->doc, args);
#undef TASK_MEMBER
}

/* The client's answer arrived: the tool runs again, in the same session, as a tools/call
   without arguments whose response carries the waiting call's id. */
fw_err_t fw_mcp_resume(fw_call_t *call, const fw_json_doc_t *doc, uint32_t msg)
{
    fw_msg_t *m = call->dev->msg;
    fw_answer_t a = {doc, fw_json_obj_get(doc, msg, "result"), fw_json_obj_get(doc, msg, "error")};
    fw_mcp_req_t q = {
        .call = call, .dev = call->dev, .msg = m, .session = m->session, .doc = doc, .params = -1};
    m->answer = &a;
    fw_err_t err = call_tool(&q, call->tool, NULL, -1);
    m->answer = NULL;
    return err;
}

void fw_call_progress(fw_call_t *call, uint32_t done, uint32_t total, const char *message)
{
    fw_msg_t *m = call->dev->msg;
    if (m == NULL || !m->live || m->progress < 0) return;
    size_t len;
    const char *token = fw_json_tok_raw(m->doc, (uint32_t)m->progress, &len);
    fw_jw_t w;
    fw_mcp_notify_begin(&w, &m->out, "notifications/progress");
    fw_jw_key(&w, "progressToken");
    fw_jw_raw(&w, token, len);
    fw_jw_kv_i64(&w, "progress", done);
    if (total > 0) fw_jw_kv_i64(&w, "total", total);
    if (message != NULL) fw_jw_kv_str(&w, "message", message);
    fw_mcp_notify_end(&w, &m->out);
}

#endif
