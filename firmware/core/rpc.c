/* rpc.c: JSON-RPC 2.0: envelope checks, batches, dispatch to methods and tools, responses. */
#include <stdarg.h>
#include <string.h>

#include "framing_fast.h"
#include "fw_internal.h"

/*
 * One message is handled in one pass: parse into dev->toks, then for the request (or each
 * batch element) check the envelope, find the method, bind the params, run the handler. Every
 * response is streamed into one writer on the caller's sink; a batch's "[" is written only
 * when its first response starts, so an all-notification batch writes nothing at all.
 * A notification runs like a request but its handler writes into a discarding writer.
 * A layer above JSON-RPC (dev->layer: MCP, when the build has it) hooks in through the table
 * of fw_rpc_layer_t: its methods are found before MCP/U's methods and the tools; it and fw_log
 * see the message's session and output through dev->msg, so a layer's call may write notifications
 * before its response when the output frames messages.
 */

/* ---------------------------------------------------------------- response state */

/* Clears all but the message and issue texts, which are read only once written (message[0]
   says whether there is one, issue_count how many issues). */
static void resp_init(fw_resp_t *r, fw_jw_t *w, bool *batch_open)
{
#if FW_SPEED_PATHS
    memset(r, 0, offsetof(fw_resp_t, message));
    r->message[0] = '\0';
    memset(&r->issue_count, 0, sizeof *r - offsetof(fw_resp_t, issue_count));
#else
    memset(r, 0, sizeof *r);
#endif
    r->w = w;
    r->batch_open = batch_open;
    r->id = FW_S("null");
    r->id_len = 4;
}

/* Writer depth outside the response object: 1 inside a batch's array, else 0. */
static uint8_t resp_base_depth(const fw_resp_t *r)
{
    return r->batch_open != NULL ? 1 : 0;
}

static void resp_vfail(fw_resp_t *r, fw_err_t err, const char *fmt, va_list ap)
{
    r->err = err;
    fw_vfmt(r->message, sizeof r->message, fmt, ap);
}

static void resp_fail(fw_resp_t *r, fw_err_t err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    resp_vfail(r, err, fmt, ap);
    va_end(ap);
}

/* Opens the response object: first the batch's "[" if nobody has yet, then jsonrpc and id. */
static void resp_begin(fw_resp_t *r)
{
    if (r->batch_open != NULL && !*r->batch_open) {
        fw_jw_arr_begin(r->w);
        *r->batch_open = true;
    }
#if FW_SPEED_PATHS >= 2
    static const char head[] FW_ROM_STR = "\"jsonrpc\":\"2.0\",\"id\":";
    fw_jw_obj_begin_raw(r->w, head, sizeof head - 1);
#else
    fw_jw_obj_begin(r->w);
    fw_jw_kv_str(r->w, "jsonrpc", FW_S("2.0"));
    fw_jw_key(r->w, "id");
#endif
    if (r->id != NULL) {
        fw_jw_raw(r->w, r->id, r->id_len);
    } else {
        fw_jw_null(r->w);
    }
}

/* Counts a response that reaches the client (a notification's goes nowhere). */
static void count_error(fw_device_t *dev, const fw_resp_t *r, int code)
{
    if (r->id == NULL) return;
    dev->counters.errors++;
    if (code == FW_RPC_PARSE_ERROR) dev->counters.parse_errors++;
}

static void write_issues(fw_jw_t *w, const fw_resp_t *r)
{
    fw_jw_key(w, "issues");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < r->issue_count; i++) {
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "path", r->issues[i].path);
        fw_jw_kv_str(w, "message", r->issues[i].message);
        fw_jw_obj_end(w);
    }
    fw_jw_arr_end(w);
}

/* data: the issues of invalid params, the error's name for hardware errors, else nothing. */
static void write_error_data(fw_device_t *dev, fw_jw_t *w, const fw_resp_t *r, fw_err_t err,
                             int code)
{
    bool issues = err == FW_ERR_INVALID_PARAMS && r->issue_count > 0;
    bool hw = code >= FW_RPC_HW_FIRST && code <= FW_RPC_HW_LAST;
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    if (!issues && layer != NULL && layer->error_data != NULL && layer->error_data(dev, w, err))
        return;
    if (!issues && !hw) return;
    fw_jw_key(w, "data");
    fw_jw_obj_begin(w);
    if (issues) {
        write_issues(w, r);
        /* issues past FW_ISSUES_MAX are counted, not listed */
        if (r->issues_dropped > 0) fw_jw_kv_i64(w, "issues_omitted", r->issues_dropped);
    } else {
        fw_jw_kv_str(w, "error", fw_err_str(err));
    }
    fw_jw_obj_end(w);
}

/* Writes the whole error response for err; the message is the one worded for err, if any. */
static bool resp_error(fw_device_t *dev, fw_resp_t *r, fw_err_t err)
{
    int code = fw_err_rpc_code(err);
    bool worded = r->err == err && r->message[0] != 0;
    resp_begin(r);
#if FW_SPEED_PATHS >= 2
    static const char key[] FW_ROM_STR = "\"error\":";
    static const char code_key[] FW_ROM_STR = "\"code\":";
    fw_jw_key_raw(r->w, key, sizeof key - 1);
    fw_jw_obj_begin_raw(r->w, code_key, sizeof code_key - 1);
    fw_jw_i64(r->w, code);
#else
    fw_jw_key(r->w, "error");
    fw_jw_obj_begin(r->w);
    fw_jw_kv_i64(r->w, "code", code);
#endif
    fw_jw_kv_str(r->w, "message", worded ? r->message : fw_err_str(err));
    write_error_data(dev, r->w, r, err, code);
    fw_jw_obj_end(r->w);
    fw_jw_obj_end(r->w);
    count_error(dev, r, code);
    if (dev->msg != NULL && r->id != NULL) dev->msg->err_code = code;
    return r->id != NULL;
}

void fw_jw_close_to(fw_jw_t *w, uint8_t depth)
{
#if FW_SPEED_PATHS >= 2
    if (fw_jw_close_objs(w, depth)) return; /* the usual case: objects, nothing pending */
#endif
    if (w->in_str) fw_jw_str_end(w);
    if (w->want_value) fw_jw_null(w);
    while (w->depth > depth && w->err == FW_OK) {
        if ((w->obj_mask >> w->depth) & 1u) {
            fw_jw_obj_end(w);
        } else {
            fw_jw_arr_end(w);
        }
    }
}

#if FW_SPEED_PATHS >= 2
/* The result's head call by call (a batch's first response, a writer short of room): out of
   result_begin, whose one copy then needs fewer registers saved. */
FW_COLD_L2 static void result_head_slow(fw_resp_t *r)
{
    static const char key[] FW_ROM_STR = "\"result\":";
    resp_begin(r);
    fw_jw_key_raw(r->w, key, sizeof key - 1);
    fw_jw_obj_begin(r->w);
}
#endif

#if FW_SPEED_PATHS >= 2
/* `{"jsonrpc":"2.0","id":` val `,"result":{` in one copy (fw_jw_open2_raw). */
static bool result_head(fw_jw_t *w, const char *val, size_t vn)
{
    static const char head[] = "\"jsonrpc\":\"2.0\",\"id\":";
    static const char tail[] = ",\"result\":{";
    return fw_jw_open2_raw(w, head, sizeof head - 1, val, vn, tail, sizeof tail - 1);
}
#endif

static void result_begin(fw_device_t *dev, fw_resp_t *r)
{
    if (r->result_started) return;
#if FW_SPEED_PATHS >= 2
    /* the head, the id and `,"result":{` in one copy once a batch's "[" is written */
    bool id = r->id != NULL;
    if (!(r->batch_open == NULL || *r->batch_open) ||
        !result_head(r->w, id ? r->id : "null", id ? r->id_len : 4u))
        result_head_slow(r);
#else
    resp_begin(r);
    fw_jw_key(r->w, "result");
    fw_jw_obj_begin(r->w);
#endif
    r->result_started = true;
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    /* the message's flag first: it is the test that usually fails */
    if (dev->msg != NULL && dev->msg->result_hook && layer != NULL && layer->result_opened != NULL)
        layer->result_opened(dev, r->w);
}

fw_jw_t *fw_resp_result(fw_device_t *dev, fw_resp_t *r)
{
    result_begin(dev, r);
    return r->w;
}

/*
 * Completes the response after the handler returned err. A handler that failed after starting
 * its result (or left the result unbalanced) is a bug the client cannot be told about any more:
 * the result is closed as it stands and the bug counted as an error.
 */
static bool resp_finish(fw_device_t *dev, fw_resp_t *r, fw_err_t err)
{
    uint8_t base = resp_base_depth(r);
#if FW_WITH_MCP
    if (r->deferred) return false; /* answered when the client's answer arrives (MCP) */
#endif
    if (!r->result_started && err != FW_OK) return resp_error(dev, r, err);
    result_begin(dev, r); /* FW_OK without a result: an empty result object */
    if (err != FW_OK || r->w->depth != base + 2 || r->w->want_value || r->w->in_str)
        dev->counters.errors++;
#if FW_SPEED_PATHS >= 2
    /* the usual two objects closed here, without the call (fw_jw_close_to's first test) */
    if (!fw_jw_close_objs(r->w, base))
#endif
        fw_jw_close_to(r->w, base);
    return r->id != NULL;
}

/* ---------------------------------------------------------------- handler API */

const fw_arg_t *(fw_call_arg)(const fw_call_t *call, const char *name)
{
    for (size_t i = 0; i < call->tool->param_count; i++) {
        const char *p = call->tool->params[i].name; /* often the very same string */
        if (p == name || (fw_rd8(p) == fw_rd8(name) && fw_streq(p, name))) return &call->args[i];
    }
    return NULL;
}

#if FW_WITH_MCP
/* fw_call_result with the layer's hook or a tool inside tools/call: apart where speed is asked
   for, so the usual call (neither) saves no registers for the hook's call. */
FW_COLD_L2 static fw_jw_t *call_result_hooked(fw_call_t *call)
{
    fw_resp_t *r = call->priv;
    const fw_rpc_layer_t *layer = FW_LAYER(call->dev);
    fw_msg_t *m = call->dev->msg;
    if (layer != NULL && layer->result_begins != NULL && m != NULL && m->result_hook)
        layer->result_begins(call->dev);
    if (r->tool_w == NULL && m != NULL) m->live = false;
    if (r->tool_w != NULL) { /* a tool inside MCP's tools/call (fw_rpc_run_tool) */
        if (!r->tool_started) fw_jw_obj_begin(r->tool_w);
        r->tool_started = true;
        return r->tool_w;
    }
    return fw_resp_result(call->dev, r);
}
#endif

/* Once the response is being written, no notification may come before it any more. A request
   to the client still being written is ended first (the call is then answered at once). */
fw_jw_t *fw_call_result(fw_call_t *call)
{
    fw_resp_t *r = call->priv;
#if FW_WITH_MCP && FW_SPEED_PATHS >= 2
    fw_msg_t *m = call->dev->msg;
    if (r->tool_w != NULL || m == NULL || m->result_hook) return call_result_hooked(call);
    m->live = false; /* what call_result_hooked does when there is no hook to run */
#elif FW_WITH_MCP
    return call_result_hooked(call); /* one call site: inlined, as before */
#endif
    return fw_resp_result(call->dev, r);
}

fw_err_t fw_call_errorf(fw_call_t *call, fw_err_t err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    resp_vfail(call->priv, err, fmt, ap);
    va_end(ap);
    return err;
}

/* The message names the first issue and counts the others: "invalid params: pin: ... (and
   2 more)"; data.issues lists the first FW_ISSUES_MAX. */
fw_err_t fw_call_param_error(fw_call_t *call, const char *path, const char *fmt, ...)
{
    fw_resp_t *r = call->priv;
    if (r->issue_count < FW_ISSUES_MAX) {
        fw_issue_t *is = &r->issues[r->issue_count++];
        va_list ap;
        va_start(ap, fmt);
        fw_fmt(is->path, sizeof is->path, FW_S("%s"), path != NULL ? path : FW_S(""));
        fw_vfmt(is->message, sizeof is->message, fmt, ap);
        va_end(ap);
    } else if (r->issues_dropped < UINT8_MAX) {
        r->issues_dropped++;
    }
    unsigned more = (unsigned)r->issue_count + r->issues_dropped - 1u;
    /* " (and N more)" (13 + more digits than one) always fits whole: the first issue's text is
       cut before it, ending with "..." */
    size_t tail = more == 0 ? 0 : 13u + (more > 9u) + (more > 99u);
    size_t room = sizeof r->message - tail; /* for the first issue's text and its NUL */
    size_t len = fw_fmt(r->message, room + (tail > 0), FW_S("invalid params: %s: %s"),
                        r->issues[0].path, r->issues[0].message);
    if (tail > 0) {
        if (len >= room) len = fw_cut_dots(r->message, room - 4);
        fw_fmt(r->message + len, sizeof r->message - len, FW_S(" (and %u more)"), more);
    }
    r->err = FW_ERR_INVALID_PARAMS;
    return FW_ERR_INVALID_PARAMS;
}

/* ---------------------------------------------------------------- running tools */

void fw_log_tool_failure(fw_call_t *call, fw_err_t err)
{
    const fw_resp_t *r = call->priv;
    if (err == FW_OK || err == FW_ERR_INVALID_PARAMS) return;
    const char *why = r->err == err && r->message[0] != 0 ? r->message : fw_err_str(err);
    fw_log(call->dev, FW_LOG_ERROR, "tool %s failed: %s", call->tool->name, why);
    (void)why; /* a build without a log drops the entry */
}

#if FW_WITH_MCP
/* A result that is not one balanced object (the writer must be back inside it) is a bug. */
static bool tool_result_broken(const fw_jw_t *w, uint8_t depth)
{
    return w->depth != depth || w->want_value || w->in_str || w->err != FW_OK;
}

fw_err_t fw_rpc_run_tool(fw_call_t *call, const fw_tool_t *tool, const fw_json_doc_t *doc,
                         int32_t args, fw_jw_t *w, bool *started)
{
    fw_resp_t *r = call->priv;
    const fw_msg_t *m = call->dev->msg;
    call->tool = tool;
    *started = false;
    fw_err_t err = doc != NULL ? fw_schema_bind(call, doc, args) : FW_OK;
    if (err != FW_OK) return err;
    r->tool_w = w;
    r->tool_started = false;
    err = tool->handler(call);
    /* a handler that wrote nothing returns {}, unless it asked the client and waits */
    if (err == FW_OK && (m == NULL || (!m->asked && !m->input_required))) fw_call_result(call);
    *started = r->tool_started;
    if (*started && (err != FW_OK || tool_result_broken(w, 1))) call->dev->counters.errors++;
    if (*started) fw_jw_close_to(w, 0);
    r->tool_w = NULL;
    r->tool_started = false;
    return err;
}
#endif

/* ---------------------------------------------------------------- one request */

/* The first raw byte of string token tok, or 0 when it is empty or escaped (no quick test). */
static unsigned char first_byte(const fw_json_doc_t *doc, uint32_t tok)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    if ((t->flags & FW_JSON_F_ESCAPED) != 0 || t->end == t->start) return 0;
    return (unsigned char)doc->buf[t->start];
}

#if FW_METHOD_INDEX
void fw_method_index_add(fw_device_t *dev, const char *name, size_t entry)
{
    size_t n = strlen(name);
    uint32_t h = fw_method_hash(name, n);
    while (dev->method_slot[h % FW_METHOD_SLOTS] != 0) h++;
    dev->method_slot[h % FW_METHOD_SLOTS] = (uint32_t)(n < 0xFFFFu ? n : 0xFFFFu) << 16 | entry;
}

/* Whether p[0..n) and s[0..n) are the same bytes, both known to hold n bytes: for up to 16,
   two overlapping loads of each instead of a loop (the names of methods and tools). */
static bool same_bytes(const char *p, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b, c, d;
        memcpy(&a, p, 8);
        memcpy(&b, s, 8);
        memcpy(&c, p + n - 8, 8);
        memcpy(&d, s + n - 8, 8);
        return ((a ^ b) | (c ^ d)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t a, b, c, d;
        memcpy(&a, p, 4);
        memcpy(&b, s, 4);
        memcpy(&c, p + n - 4, 4);
        memcpy(&d, s + n - 4, 4);
        return ((a ^ b) | (c ^ d)) == 0;
    }
    return memcmp(p, s, n) == 0;
}

/* The core method or tool of index entry (as the index files it). */
static const fw_tool_t *method_entry(const fw_device_t *dev, size_t entry)
{
    return entry <= fw_mcpu_method_count ? &fw_mcpu_methods[entry - 1u]
                                         : dev->tools[entry - 1u - fw_mcpu_method_count];
}
#endif

/* The method or tool named by string token tok, entry by entry: the first byte rules out most
   before the full comparison. Where the index finds unescaped names it is left for escaped
   ones, and kept out of find_method's caller, whose registers it would take. */
#if FW_METHOD_INDEX
FW_COLD_L2
#endif
static const fw_tool_t *scan_methods(const fw_device_t *dev, const fw_json_doc_t *doc, uint32_t tok)
{
    unsigned char first = first_byte(doc, tok);
    for (size_t i = 0; i < fw_mcpu_method_count; i++) {
        const char *name = fw_tool_name(&fw_mcpu_methods[i]);
        if ((first == 0 || fw_rd8(name) == first) && fw_tok_is(doc, tok, name))
            return &fw_mcpu_methods[i];
    }
    for (size_t i = 0; i < dev->tool_count; i++) {
        const char *name = fw_tool_name(dev->tools[i]);
        if ((first == 0 || fw_rd8(name) == first) && fw_tok_is(doc, tok, name))
            return dev->tools[i];
    }
    return NULL;
}

/* The method or tool named by string token tok: by the index where the build has it and the
   name is unescaped (the slots from its hash on, until an empty one: the first filed, a core
   method before the tools, wins as below); else by scan_methods. */
static const fw_tool_t *find_method(const fw_device_t *dev, const fw_json_doc_t *doc, uint32_t tok)
{
#if FW_METHOD_INDEX
    const fw_json_tok_t *t = &doc->toks[tok];
    if ((t->flags & FW_JSON_F_ESCAPED) == 0) {
        const char *p = doc->buf + t->start;
        size_t n = (size_t)(t->end - t->start);
        uint32_t len = n < 0xFFFFu ? (uint32_t)n : 0xFFFFu;
        for (uint32_t h = fw_method_hash(p, n), e; (e = dev->method_slot[h % FW_METHOD_SLOTS]) != 0;
             h++) {
            if (e >> 16 != len) continue;
            const fw_tool_t *m = method_entry(dev, e & 0xFFFFu);
            /* a name of the same length has its n bytes and its NUL */
            if (len < 0xFFFFu ? same_bytes(p, m->name, n) : fw_tok_is(doc, tok, m->name)) return m;
        }
        return NULL;
    }
#endif
    return scan_methods(dev, doc, tok);
}

/* A string token as text for a message: decoded, or its raw bytes cut with "..." if long
   (decoding fails only for want of room: the raw text is then longer than cap - 4). */
const char *fw_tok_name(const fw_json_doc_t *doc, uint32_t tok, char *out, size_t cap)
{
    if (fw_json_str_decode(doc, tok, out, cap) >= 0) return out;
    memcpy(out, doc->buf + doc->toks[tok].start, cap - 3);
    fw_cut_dots(out, cap - 4);
    return out;
}

size_t fw_cut_dots(char *s, size_t n)
{
    while (n > 0 && ((unsigned char)s[n] & 0xC0u) == 0x80u) n--;
    fw_rom_copy(s + n, FW_S("..."), 4);
    return n + 3;
}

/* The members of a message object that JSON-RPC reads: token indexes, -1 when absent (the
   first occurrence of a key wins), found in one pass over its keys. */
enum { ENV_VERSION, ENV_ID, ENV_METHOD, ENV_PARAMS, ENV_RESULT, ENV_ERROR, ENV_COUNT };
typedef struct envelope {
    int32_t m[ENV_COUNT];
} envelope_t;

/* In enum order; their first bytes differ, so one byte finds the only candidate. */
static const char env_names[ENV_COUNT][8] FW_ROM = {"jsonrpc", "id",     "method",
                                                    "params",  "result", "error"};

/* The envelope member key token k names (ENV_*), or ENV_COUNT for another key. Cold where
   read_envelope takes unescaped keys itself: inlined, its loop made the key walk spill. */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
FW_COLD_L2
#endif
static unsigned env_member_slow(const fw_json_doc_t *doc, uint32_t k)
{
    unsigned char first = first_byte(doc, k);
    for (unsigned j = 0; j < ENV_COUNT; j++)
        if ((first == 0 || fw_rd8(env_names[j]) == first) && fw_tok_is(doc, k, env_names[j]))
            return j;
    return ENV_COUNT;
}

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* Member j's value token is k + 1 unless an earlier key named j. */
static inline void env_take(envelope_t *env, unsigned j, uint32_t k)
{
    if (env->m[j] < 0) env->m[j] = (int32_t)(k + 1);
}

/* An unescaped key by its length, then its bytes (about 300 instructions less per request than
   the table), each case taking its member itself; the document's arrays and the key count are
   read once (a generic member index and the reloads were a third of the walk). Inlined into
   each caller: a second one (fw_rpc_read_members) must not take it out of the request path. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void read_envelope(const fw_json_doc_t *doc, uint32_t obj, envelope_t *env)
{
    for (unsigned j = 0; j < ENV_COUNT; j++) env->m[j] = -1;
    const fw_json_tok_t *toks = doc->toks;
    const char *buf = doc->buf;
    uint16_t count = toks[obj].count;
    uint32_t k = obj + 1;
    for (uint16_t i = 0; i < count; i++, k = toks[k + 1].next) {
        const fw_json_tok_t *t = &toks[k];
        if ((t->flags & FW_JSON_F_ESCAPED) != 0) {
            unsigned j = env_member_slow(doc, k);
            if (j < ENV_COUNT) env_take(env, j, k);
            continue;
        }
        const char *p = buf + t->start;
        switch (t->end - t->start) {
        case 2:
            if (memcmp(p, "id", 2) == 0) env_take(env, ENV_ID, k);
            break;
        case 5:
            if (memcmp(p, "error", 5) == 0) env_take(env, ENV_ERROR, k);
            break;
        case 6:
            if (memcmp(p, "method", 6) == 0)
                env_take(env, ENV_METHOD, k);
            else if (memcmp(p, "params", 6) == 0)
                env_take(env, ENV_PARAMS, k);
            else if (memcmp(p, "result", 6) == 0)
                env_take(env, ENV_RESULT, k);
            break;
        case 7:
            if (memcmp(p, "jsonrpc", 7) == 0) env_take(env, ENV_VERSION, k);
            break;
        default:
            break;
        }
    }
}
#else
static void read_envelope(const fw_json_doc_t *doc, uint32_t obj, envelope_t *env)
{
    for (unsigned j = 0; j < ENV_COUNT; j++) env->m[j] = -1;
    uint32_t k = obj + 1;
    for (uint16_t i = 0; i < doc->toks[obj].count; i++, k = doc->toks[k + 1].next) {
        unsigned j = env_member_slow(doc, k);
        if (j < ENV_COUNT && env->m[j] < 0) env->m[j] = (int32_t)(k + 1);
    }
}
#endif

void fw_rpc_read_members(const fw_json_doc_t *doc, uint32_t obj, int32_t *id, int32_t *method,
                         int32_t *params)
{
    envelope_t env;
    read_envelope(doc, obj, &env);
    *id = env.m[ENV_ID];
    *method = env.m[ENV_METHOD];
    *params = env.m[ENV_PARAMS];
}

/* Whether string token tok may name one of the layer's methods (its method_firsts). */
static bool layer_may_name(const fw_rpc_layer_t *layer, const fw_json_doc_t *doc, uint32_t tok)
{
    unsigned first = (unsigned)first_byte(doc, tok) - 'a';
    return layer->method_firsts == 0 || first >= 26u || ((layer->method_firsts >> first) & 1u);
}

/* Not inlined: its buffer would sit in dispatch's frame under every call (FW_NOINLINE where RAM
   is scarce, FW_COLD_L2 where speed is asked for). */
FW_NOINLINE FW_COLD_L2 static bool method_not_found(fw_device_t *dev, const fw_json_doc_t *doc,
                                                    uint32_t method, fw_resp_t *r)
{
    char name[48];
    resp_fail(r, FW_ERR_METHOD_NOT_FOUND, FW_S("method '%s' not found"),
              fw_tok_name(doc, method, name, sizeof name));
    return resp_error(dev, r, FW_ERR_METHOD_NOT_FOUND);
}

/* The request's stateless flags are set again as it runs (MCP). */
static inline void reset_msg_flags(fw_device_t *dev)
{
#if FW_WITH_MCP
    if (dev->msg != NULL) {
        dev->msg->stateless = false;
        dev->msg->input_required = false;
        dev->msg->cacheable = false;
        dev->msg->need_caps = 0;
        dev->msg->state = NULL;
        dev->msg->requested = NULL;
        dev->msg->ask_input = false;
        dev->msg->task_created = false;
    }
#else
    (void)dev;
#endif
}

/* dev->call cleared but for the arguments, which binding clears: on a part whose memset goes
   byte by byte they are most of the call. */
static inline fw_call_t *call_init(fw_device_t *dev, const fw_tool_t *tool, fw_resp_t *r)
{
    fw_call_t *call = &dev->call;
#if FW_SPEED_PATHS
    memset(call, 0, offsetof(fw_call_t, args));
    memset((char *)call + offsetof(fw_call_t, args) + sizeof call->args, 0,
           sizeof *call - offsetof(fw_call_t, args) - sizeof call->args);
#else
    memset(call, 0, sizeof *call);
#endif
    call->dev = dev;
    call->tool = tool;
    call->priv = r;
    return call;
}

/* A layer's method (lm) with its raw params. Apart from dispatch where speed is asked for: the
   MCP/U methods and tools then run without its registers and its clearing of the arguments. */
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
__attribute__((noinline))
#endif
static bool
run_layer_method(fw_device_t *dev, const fw_json_doc_t *doc, const void *lm, int32_t params,
                 fw_resp_t *r)
{
    reset_msg_flags(dev);
    fw_call_t *call = call_init(dev, NULL, r);
#if FW_SPEED_PATHS
    memset(call->args, 0, sizeof call->args); /* a layer's method gets them cleared here */
#endif
    fw_err_t err = FW_LAYER(dev)->run(lm, call, doc, params);
    fw_layer_observe(dev);
    return resp_finish(dev, r, err);
}

/*
 * Runs a valid request or notification (r->id NULL): an MCP method with its raw params, or an
 * MCP/U method or tool with params bound by its descriptor. Pin changes the call made are
 * observed at once, so even a change undone later in the same batch reaches subscribers.
 */
static bool dispatch(fw_device_t *dev, const fw_json_doc_t *doc, const envelope_t *env,
                     fw_resp_t *r)
{
    int32_t method = env->m[ENV_METHOD];
    int32_t params = env->m[ENV_PARAMS];
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    const void *lm =
        layer != NULL && layer->method_find != NULL && layer_may_name(layer, doc, (uint32_t)method)
            ? layer->method_find(doc, (uint32_t)method)
            : NULL;
    if (lm != NULL) return run_layer_method(dev, doc, lm, params, r);
    const fw_tool_t *tool = find_method(dev, doc, (uint32_t)method);
    if (tool == NULL) return method_not_found(dev, doc, (uint32_t)method, r);
    tool = fw_tool_load(dev, tool); /* its descriptor, readable */
    reset_msg_flags(dev);
    fw_call_t *call = call_init(dev, tool, r);
    fw_err_t err = fw_schema_bind(call, doc, params);
    if (err == FW_OK) err = tool->handler(call);
    if (!r->result_started) fw_log_tool_failure(call, err);
    fw_layer_observe(dev);
    return resp_finish(dev, r, err);
}

static bool valid_id_type(uint8_t type)
{
    return type == FW_JSON_NUMBER || type == FW_JSON_STRING || type == FW_JSON_NULL;
}

const char *fw_json_tok_raw(const fw_json_doc_t *doc, uint32_t tok, size_t *len)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    bool quoted = t->type == FW_JSON_STRING;
    *len = t->end - t->start + (quoted ? 2u : 0u);
    return doc->buf + t->start - (quoted ? 1 : 0);
}

/* The id's bytes exactly as received (a string with its quotes and escapes). */
static void take_id(fw_resp_t *r, const fw_json_doc_t *doc, uint32_t id)
{
    r->id = fw_json_tok_raw(doc, id, &r->id_len);
}

/* Whether token tok is the string "2.0": an unescaped one is its three bytes, compared at once
   instead of byte by byte. */
static bool version_is_2_0(const fw_json_doc_t *doc, uint32_t tok)
{
#if FW_SPEED_PATHS >= 2
    const fw_json_tok_t *t = &doc->toks[tok];
    if (t->type == FW_JSON_STRING && (t->flags & FW_JSON_F_ESCAPED) == 0)
        return t->end - t->start == 3 && memcmp(doc->buf + t->start, "2.0", 3) == 0;
#endif
    return fw_tok_is(doc, tok, FW_S("2.0"));
}

/* The reason the envelope is not a valid request, or NULL. */
static const char *envelope_problem(const fw_json_doc_t *doc, const envelope_t *env)
{
    int32_t version = env->m[ENV_VERSION], method = env->m[ENV_METHOD];
    int32_t id = env->m[ENV_ID], params = env->m[ENV_PARAMS];
    if (version < 0) return FW_S("'jsonrpc' is missing (it must be \"2.0\")");
    if (!version_is_2_0(doc, (uint32_t)version)) return FW_S("'jsonrpc' must be \"2.0\"");
    if (method < 0) return FW_S("'method' is missing");
    if (doc->toks[method].type != FW_JSON_STRING) return FW_S("'method' must be a string");
    if (id >= 0 && !valid_id_type(doc->toks[id].type))
        return FW_S("'id' must be a string, a number or null");
    if (params >= 0 && doc->toks[params].type != FW_JSON_OBJECT &&
        doc->toks[params].type != FW_JSON_ARRAY)
        return FW_S("'params' must be an object or an array");
    return NULL;
}

/*
 * A response from the client. When it is the answer a deferred tools/call waits for, that
 * call's response is written now (outside a batch it is a message of its own, not this one's
 * reply: dev->msg->resumed); any other response is ignored.
 */
FW_COLD_L2 static bool handle_answer(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t msg,
                                     fw_resp_t *r)
{
    bool taken = false;
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    fw_err_t err = FW_OK;
    if (layer != NULL && layer->answer != NULL) err = layer->answer(dev, doc, msg, r, &taken);
    if (!taken) return false;
    fw_layer_observe(dev);
    bool answered = resp_finish(dev, r, err);
    if (answered && r->batch_open == NULL) dev->msg->resumed = true;
    return answered;
}

/* The rare outcomes of handle_one, kept out of it so that its usual path saves fewer registers
   and has no writer of its own in its frame. */
FW_COLD_L2 static bool reject_request(fw_device_t *dev, fw_resp_t *r, const char *fmt,
                                      const char *what)
{
    resp_fail(r, FW_ERR_INVALID_REQUEST, fmt, what);
    return resp_error(dev, r, FW_ERR_INVALID_REQUEST);
}

/* A notification runs, but what it writes goes nowhere. */
FW_COLD_L2 static bool run_notification(fw_device_t *dev, const fw_json_doc_t *doc,
                                        const envelope_t *env, fw_resp_t *r)
{
    fw_jw_t discard;
    fw_jw_init(&discard, (fw_sink_t){NULL, NULL});
    dev->counters.notifications++;
    r->w = &discard;
    r->batch_open = NULL;
    r->id = NULL;
    return dispatch(dev, doc, env, r);
}

/* Handles one request object (or what stands in its place in a batch); true if answered. */
static bool handle_one(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t req, fw_jw_t *w,
                       bool *batch_open)
{
    fw_resp_t *r = &dev->resp;
    resp_init(r, w, batch_open);
    dev->scratch_used = 0;
    if (doc->toks[req].type != FW_JSON_OBJECT) {
        dev->counters.requests++;
        return reject_request(dev, r, FW_S("request must be a JSON object (got %s)"),
                              fw_json_type_name(doc->toks[req].type));
    }
    envelope_t env;
    read_envelope(doc, req, &env);
    int32_t id = env.m[ENV_ID];
    if (env.m[ENV_METHOD] < 0 && (env.m[ENV_RESULT] >= 0 || env.m[ENV_ERROR] >= 0))
        return handle_answer(dev, doc, req, r); /* a response to us: nothing to answer */
    dev->counters.requests++;
    if (id >= 0 && valid_id_type(doc->toks[id].type)) take_id(r, doc, (uint32_t)id);
    const char *problem = envelope_problem(doc, &env);
    if (problem != NULL) return reject_request(dev, r, FW_S("%s"), problem);
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    if (id >= 0 && dev->msg->cancels && layer != NULL && layer->take_cancelled != NULL &&
        layer->take_cancelled(dev, r->id, r->id_len))
        return false; /* the layer cancelled it: a cancelled request gets no response */
    if (id >= 0) return dispatch(dev, doc, &env, r);
    return run_notification(dev, doc, &env, r);
}

/* ---------------------------------------------------------------- whole messages */

/* An error about the whole message (id null, never inside a batch array). */
static bool reject_message(fw_device_t *dev, fw_jw_t *w, fw_err_t err, const char *fmt, ...)
{
    fw_resp_t *r = &dev->resp;
    va_list ap;
    resp_init(r, w, NULL);
    va_start(ap, fmt);
    resp_vfail(r, err, fmt, ap);
    va_end(ap);
    return resp_error(dev, r, err);
}

#if FW_SPEED_PATHS >= 2
_Static_assert(FW_RPC_PARSE_ERROR == -32700, "the parse error's text below names its code");
/* The general way of the parse error, out of line: a writer that has written something already
   (not so from handle_msg), or an offset of 10,000 or more. */
FW_NOINLINE FW_COLD_L2 static bool parse_error_general(fw_device_t *dev, fw_jw_t *w, size_t pos)
{
    return reject_message(dev, w, FW_ERR_JSON_INVALID, FW_S("parse error at byte %u"),
                          (unsigned)pos);
}

/*
 * What reject_message writes for a parse error, as one run made in the writer's buffer itself
 * before anything else of the reply: the envelope, code and message are constant but for the
 * byte offset (no formatting, no writer call per member). The usual case makes no call, so it
 * saves no register; the rest go the general way.
 */
static bool parse_error(fw_device_t *dev, fw_jw_t *w, size_t pos)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                               "\"message\":\"parse error at byte ";
    if (w->total != 0 || pos >= 10000u || sizeof head - 1 + 4 + 3 >= sizeof w->buf)
        return parse_error_general(dev, w, pos);
    char *p = w->buf;
    memcpy(p, head, sizeof head - 1);
    size_t n = sizeof head - 1;
    unsigned at = (unsigned)pos;
    if (at >= 100u) { /* the first one or two digits (below), then the last two */
        unsigned hi = at / 100u;
        at -= hi * 100u;
        size_t one = hi < 10u;
        memcpy(p + n, fw_jw_digit_pairs_ + 2u * hi + one, 2);
        n += 2u - one;
        memcpy(p + n, fw_jw_digit_pairs_ + 2u * at, 2);
        n += 2;
    } else { /* its pair of digits, or the second of "0d" (the byte after is overwritten) */
        size_t one = at < 10u;
        memcpy(p + n, fw_jw_digit_pairs_ + 2u * at + one, 2);
        n += 2u - one;
    }
    memcpy(p + n, "\"}}", 3);
    n += 3;
    fw_resp_t *r = &dev->resp;
    resp_init(r, w, NULL);
    r->err = FW_ERR_JSON_INVALID;
    /* what fw_jw_raw leaves: one value at the top level, n bytes */
    w->used = n;
    w->total = n;
    w->first_mask &= (fw_jw_mask_t)~1u;
    count_error(dev, r, FW_RPC_PARSE_ERROR);
    if (dev->msg != NULL) dev->msg->err_code = FW_RPC_PARSE_ERROR;
    return true;
}
#endif

static bool reject_unparsed(fw_device_t *dev, fw_jw_t *w, const fw_json_doc_t *doc, fw_err_t err)
{
    if (err == FW_ERR_JSON_NOMEM && doc->len > FW_MSG_MAX - 1u)
        return reject_message(dev, w, FW_ERR_JSON_NOMEM,
                              FW_S("request of %u bytes is over FW_MSG_MAX (at most %u)"),
                              (unsigned)doc->len, (unsigned)FW_MSG_MAX - 1u);
    if (err == FW_ERR_JSON_NOMEM)
        return reject_message(dev, w, FW_ERR_JSON_NOMEM,
                              FW_S("request has more than %u JSON tokens (FW_JSON_TOKENS_MAX)"),
                              (unsigned)FW_JSON_TOKENS_MAX);
    if (err == FW_ERR_JSON_DEPTH)
        return reject_message(dev, w, FW_ERR_JSON_DEPTH,
                              FW_S("request nests deeper than %u levels (FW_JSON_DEPTH_MAX)"),
                              (unsigned)FW_JSON_DEPTH_MAX);
#if FW_SPEED_PATHS >= 2
    return parse_error(dev, w, doc->err_pos);
#else
    return reject_message(dev, w, FW_ERR_JSON_INVALID, FW_S("parse error at byte %u"),
                          (unsigned)doc->err_pos);
#endif
}

#if FW_WITH_BATCH
static bool handle_batch(fw_device_t *dev, const fw_json_doc_t *doc, fw_jw_t *w)
{
    uint32_t n = doc->toks[0].count;
    bool open = false;
    if (n == 0)
        return reject_message(dev, w, FW_ERR_INVALID_REQUEST,
                              FW_S("empty batch: a batch array must hold at least one request"));
    if (n > FW_BATCH_MAX)
        return reject_message(dev, w, FW_ERR_BATCH_TOO_LARGE,
                              FW_S("batch has %u requests; at most %u are allowed (FW_BATCH_MAX)"),
                              (unsigned)n, (unsigned)FW_BATCH_MAX);
    for (uint32_t i = 0, e = 1; i < n; i++, e = doc->toks[e].next)
        handle_one(dev, doc, e, w, &open);
    if (open) fw_jw_arr_end(w);
    return open;
}
#else
/* A build without batches answers an array with one -32600 (list_tools reports batch false). */
static bool handle_batch(fw_device_t *dev, const fw_json_doc_t *doc, fw_jw_t *w)
{
    (void)doc;
    return reject_message(dev, w, FW_ERR_INVALID_REQUEST,
                          FW_S("batches are not supported by this build (FW_WITH_BATCH 0)"));
}
#endif

void fw_msg_sink_end(const fw_msg_sink_t *out, fw_msg_kind_t kind, int32_t code)
{
    if (out->tell != NULL) out->tell(out->ctx, kind, code);
    if (out->end != NULL) {
        out->end(out->ctx);
    } else if (out->write != NULL) {
        out->write(out->ctx, "\n", 1);
    }
}

/* Inlined into each caller, so each gets a copy made for its sink (and, where the speed paths
   are off, fw_rpc_handle stays the one function it was). */
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
#define HANDLE_INLINE static inline __attribute__((always_inline))
#else
#define HANDLE_INLINE static
#endif

/*
 * The one entry for whole messages (fw_rpc_handle and a byte stream's lines). While it runs
 * dev->msg describes the message (its session and output) to the MCP methods, fw_log and
 * fw_call_progress. A request cancelled earlier in the same message is forgotten with it:
 * requests run one at a time, so a later message can only name one that has already finished.
 */
HANDLE_INLINE bool handle_msg(fw_device_t *dev, void *session, const char *msg, size_t len,
                              const fw_msg_sink_t *out, bool framed, bool padded,
                              const fw_json_doc_t *parsed)
{
    fw_jw_t w;
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
    fw_jw_init_at_(&w, (fw_sink_t){out->write, out->ctx}); /* first: out is then done with */
#else
    fw_jw_init(&w, (fw_sink_t){out->write, out->ctx});
#endif
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
    /* All zero but the members set below. One clear of the whole struct compiles to a rep
       stosq here (an instruction per 8 bytes); each half alone is a few 16-byte stores. */
    fw_msg_t m;
    memset(&m, 0, sizeof m / 2);
    memset((char *)&m + sizeof m / 2, 0, sizeof m - sizeof m / 2);
    m.session = session;
    m.out = *out;
    m.framed = framed;
    m.progress = -1;
#else
    fw_msg_t m = {.session = session, .out = *out, .framed = framed, .progress = -1};
#endif
    fw_msg_t *outer = dev->msg;
    fw_json_doc_t doc;
    bool answered;
    dev->msg = &m;
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    if (layer != NULL && layer->msg_begin != NULL) layer->msg_begin(dev, &m, session);
    fw_err_t err;
#if FW_SPEED_PATHS >= 2
    if (parsed != NULL) { /* the transport's reading of msg (fw_rpc_handle_parsed) */
        doc = *parsed;
        err = FW_OK;
    } else
#else
    (void)parsed;
#endif
    {
        /* (padded: msg is a framer's line, its NUL and pad after it) */
        err = padded ? fw_json_parse_padded(&doc, msg, len, dev->toks, FW_JSON_TOKENS_MAX,
                                            FW_JSON_DEPTH_MAX)
                     : fw_json_parse(&doc, msg, len, dev->toks, FW_JSON_TOKENS_MAX,
                                     FW_JSON_DEPTH_MAX);
    }
    m.doc = &doc;
    if (err != FW_OK) {
        answered = reject_unparsed(dev, &w, &doc, err);
    } else if (doc.toks[0].type == FW_JSON_ARRAY) {
        m.batch = true;
        answered = handle_batch(dev, &doc, &w);
    } else {
        answered = handle_one(dev, &doc, 0, &w, NULL);
    }
#if FW_SPEED_PATHS >= 2
    if (answered && framed && out->end == NULL && out->tell == NULL && w.used < sizeof w.buf) {
        /* A line (no hook to run before its end): the newline joins the reply's last bytes
           (the writer always has a byte of room between calls) and they go out in one write,
           the writer's flush done here, instead of the flush's and then the newline's. */
        w.buf[w.used++] = '\n';
        if (out->write != NULL) out->write(out->ctx, w.buf, w.used);
    } else
#endif
    {
        fw_jw_flush(&w);
        if (answered && framed)
            fw_msg_sink_end(out,
                            m.batch      ? FW_MSG_BATCH
                            : m.err_code ? FW_MSG_ERROR
                                         : FW_MSG_RESULT,
                            m.batch ? 0 : m.err_code);
    }
    dev->msg = outer;
    dev->scratch_used = 0;
    /* a framed output tells apart a deferred call's response from this message's reply */
    return answered && !(framed && m.resumed);
}

bool fw_rpc_handle(fw_device_t *dev, void *session, const char *msg, size_t len, fw_msg_sink_t out,
                   bool framed)
{
    return handle_msg(dev, session, msg, len, &out, framed, false, NULL);
}

bool fw_rpc_handle_parsed(fw_device_t *dev, void *session, const fw_json_doc_t *doc, bool ok,
                          fw_msg_sink_t out)
{
#if FW_SPEED_PATHS >= 2
    if (ok) return handle_msg(dev, session, doc->buf, doc->len, &out, true, false, doc);
#endif
    (void)ok;
    return fw_rpc_handle(dev, session, doc->buf, doc->len, out, true); /* (no copy of its own) */
}

bool fw_device_handle(fw_device_t *dev, const char *msg, size_t len, fw_sink_t out)
{
    return fw_rpc_handle(dev, NULL, msg, len, (fw_msg_sink_t){out.write, out.ctx, NULL, NULL},
                         false);
}

/* ---------------------------------------------------------------- byte streams */

/* Not inlined: its writer would sit in fw_rpc_feed's frame under every request's. */
FW_NOINLINE FW_COLD_L2 static void write_overlong(fw_device_t *dev, const fw_msg_sink_t *out)
{
    fw_jw_t w;
    fw_jw_init(&w, (fw_sink_t){out->write, out->ctx});
    dev->counters.overlong_lines++;
    reject_message(dev, &w, FW_ERR_LINE_TOO_LONG,
                   FW_S("line exceeds %u bytes (FW_LINE_MAX); discarded up to the next newline"),
                   (unsigned)FW_LINE_MAX);
    fw_jw_flush(&w);
    fw_msg_sink_end(out, FW_MSG_ERROR, fw_err_rpc_code(FW_ERR_LINE_TOO_LONG));
    fw_log(dev, FW_LOG_WARNING, "discarded a request line longer than %u bytes (FW_LINE_MAX)",
           (unsigned)FW_LINE_MAX);
}

#if FW_SPEED_PATHS >= 2
/* A read's arguments, kept in memory across its first push (below). */
typedef struct feed_state {
    fw_device_t *dev;
    void *session;
    fw_framer_t *fr;
    const uint8_t *data;
    size_t len;
    fw_sink_t out;
    fw_frame_event_t ev;
} feed_state_t;

/* The read's events from the one the first push reported (used bytes taken), then the rest of
   the read. Every message is a line: the sink has no end or tell hook, so each reply ends with
   "\n" (handle_msg puts it in the writer). Not inlined into the reads: the message, writer and
   document it holds would be set up by every read, most of which end no line. The read's state
   stays in st, read from there where needed: kept in registers across the calls, it would take
   more saving and spilling than the loads. */
__attribute__((noinline)) static void feed_events(feed_state_t *st, size_t used)
{
    for (;;) {
        st->data += used;
        st->len -= used;
        const fw_msg_sink_t lines = {st->out.write, st->out.ctx, NULL, NULL};
        if (st->ev == FW_FRAME_LINE) {
            handle_msg(st->dev, st->session, st->fr->line, st->fr->len, &lines, true, true, NULL);
        } else {
            write_overlong(st->dev, &lines);
        }
        if (st->len == 0) return;
        used = fw_framer_push(st->fr, st->data, st->len, &st->ev);
        if (st->ev == FW_FRAME_NONE) return; /* the framer took all of data (its contract) */
    }
}

/*
 * Most reads end no line: the framer (its usual path inline here, no call) takes them whole and
 * that is all. The arguments wait in memory (st, whose address the push's rare paths are given)
 * rather than in registers the push must leave alone, which would be saved and restored by
 * every read.
 */
HANDLE_INLINE void feed(fw_device_t *dev, void *session, fw_framer_t *fr, const uint8_t *data,
                        size_t len, fw_sink_t out)
{
    if (len == 0) return;
    feed_state_t st = {dev, session, fr, data, len, out, FW_FRAME_NONE};
    size_t used = framer_push(fr, data, len, &st.ev);
    if (st.ev != FW_FRAME_NONE) feed_events(&st, used);
}

void fw_rpc_feed(fw_device_t *dev, void *session, fw_framer_t *fr, const uint8_t *data, size_t len,
                 fw_sink_t out)
{
    feed(dev, session, fr, data, len, out);
}

/* The same, not a call to fw_rpc_feed: a read costs a few dozen instructions here, and passing
   six arguments on would add a tenth. */
void fw_device_feed(fw_device_t *dev, fw_framer_t *fr, const uint8_t *data, size_t len,
                    fw_sink_t out)
{
    feed(dev, NULL, fr, data, len, out);
}
#else
/* Every message is a line: the sink has no end hook, so fw_msg_sink_end writes "\n". */
void fw_rpc_feed(fw_device_t *dev, void *session, fw_framer_t *fr, const uint8_t *data, size_t len,
                 fw_sink_t out)
{
    const fw_msg_sink_t lines = {out.write, out.ctx, NULL, NULL};
    while (len > 0) {
        fw_frame_event_t ev;
        size_t used = fw_framer_push(fr, data, len, &ev);
        data += used;
        len -= used;
        if (ev == FW_FRAME_LINE) {
            fw_rpc_handle(dev, session, fr->line, fr->len, lines, true);
        } else if (ev == FW_FRAME_OVERFLOW) {
            write_overlong(dev, &lines);
        } else if (used == 0) {
            break; /* the framer took nothing and reported nothing: do not spin */
        }
    }
}

void fw_device_feed(fw_device_t *dev, fw_framer_t *fr, const uint8_t *data, size_t len,
                    fw_sink_t out)
{
    fw_rpc_feed(dev, NULL, fr, data, len, out);
}
#endif
