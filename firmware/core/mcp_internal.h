/* mcp_internal.h: contracts between the MCP modules of the core (mcp.c and mcp_*.c). */
#ifndef MCP_INTERNAL_H
#define MCP_INTERNAL_H

#include "fw_internal.h"
#include "fw_sampling.h"

/* A request to an MCP method: the response goes through call (fw_call_result, fw_call_errorf,
   fw_call_param_error); params is the params object token, or -1 when absent. */
typedef struct fw_mcp_req {
    fw_call_t *call;
    fw_device_t *dev;
    fw_msg_t *msg;
    fw_session_t *session;
    const fw_json_doc_t *doc;
    int32_t params;
#if FW_SPEED_PATHS >= 2
    int32_t meta; /* params._meta's token once found (-1: none), 0 (no value's token) until then:
                     the stateless check and the progressToken share one lookup (fw_mcp_meta) */
#endif
} fw_mcp_req_t;

typedef struct fw_mcp_method fw_mcp_method_t;

struct fw_mcp_method {
    const char *name;
    fw_err_t (*run)(fw_mcp_req_t *q);
    uint8_t flags; /* FW_MCP_* */
};

/* Method flags for MCP 2026-07-28 (mcp_stateless.c). */
#define FW_MCP_REMOVED 0x01u   /* not a method of the stateless revision: -32601 there */
#define FW_MCP_CACHEABLE 0x02u /* its result carries ttlMs and cacheScope */
#define FW_MCP_INPUT 0x04u     /* may answer with an InputRequiredResult (inputResponses,
                                  requestState are read) */

/* ---------------------------------------------------------------- hooks of the layer */

/* As fw_rpc_layer_t's members of the same role (fw_internal.h). */
void fw_mcp_ask_end(fw_device_t *dev);
fw_err_t fw_mcp_answer(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t msg, fw_resp_t *r,
                       bool *taken);
void fw_mcp_observe(fw_device_t *dev);
void fw_mcp_vlog(fw_device_t *dev, fw_log_level_t level, const char *fmt, va_list ap);

/* ---------------------------------------------------------------- versions (mcp.c) */

/* Protocol versions spoken, oldest first; fw_session_t.version is an index + 1. */
#define FW_MCP_VERSION_COUNT 4u
#define FW_MCP_V2025_03_26 1u /* completions capability */
#define FW_MCP_V2025_06_18 2u /* structuredContent, titles */
#define FW_MCP_V2025_11_25 3u /* tasks (params.task, tasks/get|list|result|cancel) */

/* Index of the version the session negotiated (the newest when it has not). */
unsigned fw_mcp_version_of(const fw_session_t *s);

/* The stateless revision, served per request beside the stateful ones. */
#define FW_MCP_STATELESS_VERSION "2026-07-28"

/* Writes every version spoken, newest first, as an array value. */
void fw_mcp_write_versions(fw_jw_t *w);

/* FW_CLIENT_* of a ClientCapabilities object token (-1: none). */
uint8_t fw_mcp_client_caps(const fw_mcp_req_t *q, int32_t caps);

/* ---------------------------------------------------------------- stateless (mcp_stateless.c) */

/* Token of params._meta's protocolVersion when it is not a stateful revision's (the request is
   then a stateless one), or -1. */
int32_t fw_mcp_meta_version(const fw_mcp_req_t *q);

/* Runs method m for a stateless request whose _meta names version (token): checks _meta,
   refuses removed methods and other versions, runs m in dev->stateless. */
fw_err_t fw_mcp_stateless_run(fw_mcp_req_t *q, const fw_mcp_method_t *m, int32_t version);

/* Hooks of the layer (fw_rpc_layer_t.result_opened, .error_data). */
void fw_mcp_result_opened(fw_device_t *dev, fw_jw_t *w);
bool fw_mcp_error_data(fw_device_t *dev, fw_jw_t *w, fw_err_t err);

/* SipHash-2-4 (Aumasson and Bernstein), incremental: the MAC of request states. */
typedef struct fw_sip {
    uint64_t v[4];
    uint8_t buf[8];
    uint64_t len;
} fw_sip_t;

void fw_sip_init(fw_sip_t *s, const uint8_t key[16]);
void fw_sip_update(fw_sip_t *s, const void *data, size_t len);
uint64_t fw_sip_final(fw_sip_t *s);

/* ---------------------------------------------------------------- params (mcp.c) */

/* Value token of member key of object token obj (-1: no object), or -1. */
int32_t fw_mcp_member(const fw_mcp_req_t *q, int32_t obj, const char *key);

/* The request's params._meta token, or -1 (q->meta where it was found already). */
static inline int32_t fw_mcp_meta(const fw_mcp_req_t *q)
{
#if FW_SPEED_PATHS >= 2
    if (q->meta != 0) return q->meta;
#endif
    return fw_mcp_member(q, q->params, "_meta");
}

/*
 * Readers of a member of object token obj (-1: absent). path names the member in an issue
 * ("ref.type"). Absent optional members leave the default (out "" / *out -1 / *out unchanged).
 * A wrong type, a missing required member or a string longer than cap-1 bytes is recorded as
 * an issue and returns FW_ERR_INVALID_PARAMS.
 */
fw_err_t fw_mcp_string(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path,
                       bool required, char *out, size_t cap);
fw_err_t fw_mcp_object(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path,
                       bool required, int32_t *out);
fw_err_t fw_mcp_bool(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path, bool *out);

#if FW_SPEED_PATHS >= 2
/* The value tokens of members keys[0..n) of object token obj in one pass: for each key what
   fw_mcp_member gives (the first occurrence, -1 when absent or obj is no object), in found[j].
   Inline: with n known, found is set without a loop (a memset call otherwise). */
static inline void fw_mcp_members(const fw_mcp_req_t *q, int32_t obj, const char *const keys[],
                                  size_t n, int32_t found[])
{
    const fw_json_doc_t *doc = q->doc;
    for (size_t j = 0; j < n; j++) found[j] = -1;
    if (obj < 0 || (uint32_t)obj >= doc->count || doc->toks[obj].type != FW_JSON_OBJECT) return;
    uint32_t k = (uint32_t)obj + 1u;
    for (uint16_t i = 0; i < doc->toks[obj].count; i++) {
        const fw_json_tok_t *t = &doc->toks[k]; /* a key: a string */
        const char *p = doc->buf + t->start;
        size_t len = (size_t)(t->end - t->start);
        bool raw = (t->flags & FW_JSON_F_ESCAPED) == 0;
        for (size_t j = 0; j < n; j++) {
            if (found[j] < 0 && (raw ? fw_raw_is(p, len, keys[j]) : fw_tok_is(doc, k, keys[j]))) {
                found[j] = (int32_t)(k + 1u);
                break;
            }
        }
        k = doc->toks[k + 1u].next;
    }
}

/* fw_mcp_string and fw_mcp_object of a member found so: its token tok (-1: absent). */
fw_err_t fw_mcp_string_tok(fw_mcp_req_t *q, int32_t tok, const char *path, bool required, char *out,
                           size_t cap);
fw_err_t fw_mcp_object_tok(fw_mcp_req_t *q, int32_t tok, const char *path, bool required,
                           int32_t *out);
#endif

/* Writes text, or formatted text (fw_fmt's format, at most 95 bytes), into w's open string. */
void fw_mcp_chunk(fw_jw_t *w, const char *s);
void fw_mcp_chunkf(fw_jw_t *w, const char *fmt, ...);

/* ---------------------------------------------------------------- notifications (mcp_notify.c) */

/* Starts a notification of method on out in w ({"jsonrpc":"2.0","method":...,"params":{);
   fw_mcp_notify_end closes, flushes and ends the message. */
void fw_mcp_notify_begin(fw_jw_t *w, const fw_msg_sink_t *out, const char *method);
void fw_mcp_notify_end(fw_jw_t *w, const fw_msg_sink_t *out);

/* ---------------------------------------------------------------- resources (mcp_resources.c) */

/* The resource a URI names: a pin's index, FW_PINS_MAX for device://info, or -1. */
int fw_mcp_resource_find(const fw_device_t *dev, const char *uri);

/* Writes "pin://<name>" as a string value. */
void fw_mcp_write_pin_uri(fw_jw_t *w, const fw_pin_def_t *def);

/* A pin's value read through the HAL now (digital level, ADC count; PWM duty is the state). */
typedef struct fw_mcp_reading {
    fw_err_t err;
    bool level;
    uint16_t raw;
} fw_mcp_reading_t;

/* Reads pin i; a digital read also updates the pin's known level. Returns rd->err. */
fw_err_t fw_mcp_read_pin(fw_device_t *dev, size_t i, fw_mcp_reading_t *rd);

/* Writes the application/json text of pin i's resource as a string value: its registry entry,
   the reading (or "error"), and its sampling summary when sampled. */
void fw_mcp_write_pin_text(fw_jw_t *w, const fw_device_t *dev, size_t i,
                           const fw_mcp_reading_t *rd);

/* The one resource template, "pin://{name}", and its variable. */
#define FW_MCP_PIN_TEMPLATE "pin://{name}"
#define FW_MCP_PIN_TEMPLATE_VAR "name"

/* ---------------------------------------------------------------- prompts (mcp_prompts.c) */

typedef struct fw_mcp_prompt_arg {
    const char *name;
    const char *description;
    bool required;
    bool pin; /* a pin name: completion/complete offers the registry's names */
} fw_mcp_prompt_arg_t;

typedef struct fw_mcp_prompt {
    const char *name;
    const char *title;
    const char *description;
    const fw_mcp_prompt_arg_t *args;
    uint8_t arg_count;
    fw_err_t (*get)(fw_mcp_req_t *q, int32_t args); /* args: the arguments object or -1 */
} fw_mcp_prompt_t;

/* Longest prompt name + 1 (prompts/get, completion/complete read it into a buffer this big). */
#define FW_MCP_PROMPT_NAME_MAX 64

/* The device's own prompt of that name, or NULL. */
const fw_mcp_prompt_t *fw_mcp_prompt_find(const char *name);

/* The application's prompt of that name (fw_device_add_prompt), or NULL. */
const fw_prompt_t *fw_mcp_extra_prompt_find(const fw_device_t *dev, const char *name);

/* ---------------------------------------------------------------- methods of the other files */

fw_err_t fw_mcp_tools_list(fw_mcp_req_t *q);
fw_err_t fw_mcp_tools_call(fw_mcp_req_t *q);
fw_err_t fw_mcp_resources_list(fw_mcp_req_t *q);
fw_err_t fw_mcp_resources_templates(fw_mcp_req_t *q);
fw_err_t fw_mcp_resources_read(fw_mcp_req_t *q);
fw_err_t fw_mcp_resources_subscribe(fw_mcp_req_t *q);
fw_err_t fw_mcp_resources_unsubscribe(fw_mcp_req_t *q);
fw_err_t fw_mcp_prompts_list(fw_mcp_req_t *q);
fw_err_t fw_mcp_prompts_get(fw_mcp_req_t *q);
fw_err_t fw_mcp_complete(fw_mcp_req_t *q);

/* The request's params._meta.progressToken (a string or a number), or -1 (mcp_tools.c). */
int32_t fw_mcp_progress_token(const fw_mcp_req_t *q);

/* ---------------------------------------------------------------- tasks (mcp_tasks.c) */

#define FW_MCP_TASKS_EXTENSION "io.modelcontextprotocol/tasks"

#if FW_WITH_TASKS
/* The step of a tool registered with fw_device_add_task_tool, or NULL. */
fw_task_step_fn fw_mcp_task_step_of(const fw_device_t *dev, const fw_tool_t *tool);

/* tools/call of a task tool from a client that negotiated the extension: binds (validates) the
   arguments, takes a slot, runs the first step and answers the CreateTaskResult. */
fw_err_t fw_mcp_task_create(fw_mcp_req_t *q, const fw_tool_t *tool, fw_task_step_fn step,
                            int32_t args);

#if FW_WITH_TASKS_2025
/* Whether the request is of a session that negotiated MCP 2025-11-25 (its tasks apply). */
bool fw_mcp_tasks_2025(const fw_mcp_req_t *q);

/* tools/call with params.task (token task) in such a session: the CreateTaskResult
   {"task": Task} of a new task of step, or -32601 when the tool has no step
   (taskSupport forbidden). */
fw_err_t fw_mcp_task_create_2025(fw_mcp_req_t *q, const fw_tool_t *tool, fw_task_step_fn step,
                                 int32_t args, int32_t task);

fw_err_t fw_mcp_tasks_list(fw_mcp_req_t *q);
fw_err_t fw_mcp_tasks_result(fw_mcp_req_t *q);

/* fw_device_drain's part: for session s, the progress of the tasks it created and the
   response of a tasks/result it holds whose task ended. Returns the messages written. */
size_t fw_mcp_tasks_drain(fw_device_t *dev, const fw_session_t *s, const fw_msg_sink_t *out);

/* s went away: its held tasks/result is dropped, its tasks send no more progress. */
void fw_mcp_tasks_release(fw_device_t *dev, const fw_session_t *s);
#else
#define fw_mcp_tasks_2025(q) ((void)(q), false)
#endif
fw_err_t fw_mcp_tasks_get(fw_mcp_req_t *q);
fw_err_t fw_mcp_tasks_update(fw_mcp_req_t *q);
fw_err_t fw_mcp_tasks_cancel(fw_mcp_req_t *q);
#endif

/* After a stateless tools/call handler ran: the input request fw_call_ask wrote is closed and
   the result gets its request state (mcp_ask.c). */
void fw_mcp_ask_input_end(fw_call_t *call);

/* Runs the deferred tools/call of call->tool again with the client's answer (the response
   object token msg of doc); the result goes to call's response as a tools/call's would. */
fw_err_t fw_mcp_resume(fw_call_t *call, const fw_json_doc_t *doc, uint32_t msg);

#endif
