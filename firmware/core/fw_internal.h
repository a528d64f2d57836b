/* fw_internal.h: contracts between the modules of the core (not part of the public API). */
#ifndef FW_INTERNAL_H
#define FW_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "fw_device.h"

/* Assertion of the core's own invariants (never for outside input). A port may define
   FW_ASSERT_FAIL. By default gcc/clang trap (a HardFault on Cortex-M that the debugger or the
   watchdog catches; SIGILL in the simulator and the tests, so nothing spins until a timeout);
   other compilers stop in an endless loop the debugger can find. */
#ifndef FW_ASSERT_FAIL
#if defined(__GNUC__)
#define FW_ASSERT_FAIL() __builtin_trap()
#else
#define FW_ASSERT_FAIL()                                                                           \
    do {                                                                                           \
        for (;;) {                                                                                 \
        }                                                                                          \
    } while (0)
#endif
#endif
#define FW_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            FW_ASSERT_FAIL();                                                                      \
        }                                                                                          \
    } while (0)

/* ---------------------------------------------------------------- framing (framing.c) */

typedef enum fw_frame_event {
    FW_FRAME_NONE = 0, /* all input consumed, no complete line */
    FW_FRAME_LINE,     /* fr->line[0..fr->len) is a complete non-empty line (NUL-terminated) */
    FW_FRAME_OVERFLOW  /* a line exceeded FW_LINE_MAX; its bytes are being dropped */
} fw_frame_event_t;

/*
 * Consumes bytes from data[0..len) until an event or the end; returns how many were consumed
 * and sets *ev. Call again with the rest after handling FW_FRAME_LINE / FW_FRAME_OVERFLOW.
 * CR before LF is dropped; empty (or CR-only) lines are skipped; OVERFLOW is reported once per
 * overlong line, when its (FW_LINE_MAX+1)-th byte arrives.
 */
size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev);

/* ---------------------------------------------------------------- formatting (fmt.c) */

/* Writes the formatted text (the fw_call_errorf format subset) into out, always NUL-terminated,
   truncated to cap-1 bytes. Returns the length written. */
/* Strings and descriptors that may be in flash (fw_config.h's FW_ROM; fmt.c): length,
   equality and a copy into RAM, reading through fw_rd8; plain C where flash is not separate. */
#if FW_ROM_SPLIT
size_t fw_strlen(const char *s);
bool fw_streq(const char *a, const char *b);
void fw_rom_copy(void *dst, const void *src, size_t n);
/* Declares `const type *name` pointing at a RAM copy of *src (a descriptor in flash or RAM). */
#define FW_ROM_LOAD(type, name, src)                                                               \
    type name##_rom_copy_;                                                                         \
    fw_rom_copy(&name##_rom_copy_, (src), sizeof name##_rom_copy_);                                \
    const type *name = &name##_rom_copy_
#else
#define fw_strlen(s) strlen(s)
#define fw_streq(a, b) (strcmp((a), (b)) == 0)
#define fw_rom_copy(dst, src, n) memcpy((dst), (src), (n))
#define FW_ROM_LOAD(type, name, src) const type *name = (src)
#endif

/* Keeps a rarely run function (an error's, a slow path's) out of its callers where speed is
   asked for most, so that their fast paths neither save registers for it nor carry its locals;
   elsewhere the compiler decides. */
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
#define FW_COLD_L2 __attribute__((noinline, cold))
#else
#define FW_COLD_L2
#endif

/* Keeps a function out of its callers, so that its locals (a message buffer on an error path)
   are on the stack only while it runs, not in every caller's frame: where RAM is scarcest (a
   part whose constant data is apart, FW_ROM_SPLIT); elsewhere the compiler decides. */
#if FW_ROM_SPLIT
#define FW_NOINLINE __attribute__((noinline))
#else
#define FW_NOINLINE
#endif

/* A tool descriptor (in flash or RAM) as the call path reads it: where flash is separate, a
   copy in dev->tool_ram with its parameters in dev->param_ram (valid until the next load);
   elsewhere t itself. fw_tool_name reads just its name pointer. */
#if FW_ROM_SPLIT
const fw_tool_t *fw_tool_load(fw_device_t *dev, const fw_tool_t *t);
const char *fw_tool_name(const fw_tool_t *t);
#else
#define fw_tool_load(dev, t) ((void)(dev), (t))
#define fw_tool_name(t) ((t)->name)
#endif

/* Whether token tok is the string s (NUL-terminated, in flash or RAM): fw_json_str_eq, with
   an unescaped token's raw bytes compared inline where speed is asked for and s is in
   plain memory (the method, tool, parameter and envelope names of every request). */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* fw_tok_is of an unescaped string token's raw bytes p[0..n). */
static inline bool fw_raw_is(const char *p, size_t n, const char *s)
{
    /* most mismatches show in the first two bytes: no call (s[1] is there once s[0] is not 0) */
    if (n == 0 || s[0] != p[0]) return n == 0 && s[0] == '\0';
    if (n == 1 || s[1] != p[1]) return n == 1 && s[1] == '\0';
    /* names are short: a loop, no call. p holds no NUL (a raw JSON string has no control
       byte), so s's NUL is a mismatch and nothing past it is read. */
    for (size_t i = 2; i < n; i++)
        if (s[i] != p[i]) return false;
    return s[n] == '\0';
}

static inline bool fw_tok_is(const fw_json_doc_t *doc, uint32_t tok, const char *s)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    if (t->type != FW_JSON_STRING || (t->flags & FW_JSON_F_ESCAPED) != 0)
        return (fw_json_str_eq)(doc, tok, s);
    return fw_raw_is(doc->buf + t->start, (size_t)(t->end - t->start), s);
}
#else
#define fw_tok_is(doc, tok, s) (fw_json_str_eq)((doc), (tok), (s))
#endif

/* A string token as text for a message, in out (cap >= 5 bytes): decoded, or its raw bytes
   cut with "..." when the decoded text does not fit (rpc.c). Returns out. */
const char *fw_tok_name(const fw_json_doc_t *doc, uint32_t tok, char *out, size_t cap);

/* Ends the text in s at n bytes or fewer with "..." and a NUL (s has room for n + 4), never
   within a UTF-8 character: s[n] is the byte that followed. Returns the length with the dots. */
size_t fw_cut_dots(char *s, size_t n);

/* The JSON type of a token as messages name it ("boolean" for true and false; fmt.c). */
const char *fw_json_type_name(uint8_t type);

size_t fw_vfmt(char *out, size_t cap, const char *fmt, va_list ap);
size_t fw_fmt(char *out, size_t cap, const char *fmt, ...);

/* ---------------------------------------------------------------- responses (rpc.c) */

/* fw_issue_t and fw_resp_t, the response state of one request, are in fw_device.h: the
   device holds the one response being written (requests are handled one at a time). */

/* Starts the response's result object (once: the envelope, "result" and "{") and returns the
   message writer, even while a nested tool's result goes to tool_w. */
fw_jw_t *fw_resp_result(fw_device_t *dev, fw_resp_t *r);

/* Closes whatever w has open down to depth (a handler may leave a key, string or container). */
void fw_jw_close_to(fw_jw_t *w, uint8_t depth);

#if FW_SPEED_PATHS >= 2
/* memcpy for runs that are mostly short (names, keys, numbers, ids): up to 16 bytes by two
   overlapping copies of constant size, which compile to loads and stores instead of a call;
   longer runs by memcpy. */
static inline void fw_copy_short(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        unsigned char a = s[0], m = s[n / 2], z = s[n - 1];
        d[0] = a;
        d[n / 2] = m;
        d[n - 1] = z;
    }
}
#endif

#if FW_SPEED_PATHS >= 2
/*
 * A response's head in one copy (inline, so that the constant parts' copies are too): where
 * the writer is at a value of an array or at the top and the room is there, opens an object,
 * writes `head` (JSON text ending with a key and its colon), `val` (that key's raw value) and
 * `tail` (text beginning with `,` and ending with a key, its colon and `{`), and leaves the
 * writer inside that inner object before its first member. false, having changed nothing,
 * where it cannot: the caller then writes the same bytes call by call.
 */
static inline bool fw_jw_open2_raw(fw_jw_t *w, const char *head, size_t hn, const char *val,
                                   size_t vn, const char *tail, size_t tn)
{
    if (hn + tn + 2u >= sizeof w->buf) return false; /* a small writer (known when inlined) */
    unsigned depth = w->depth;
    fw_jw_mask_t first_mask = w->first_mask;
    size_t used = w->used;
    bool first = (first_mask >> depth) & 1u;
    size_t n = (first ? 0u : 1u) + 1u + hn + vn + tn;
    if (w->err != FW_OK || w->in_str || ((w->obj_mask >> depth) & 1u) != 0 ||
        (!first && depth == 0) || depth + 2u > FW_JW_DEPTH_MAX || used + n >= sizeof w->buf)
        return false; /* (vn is the length of bytes in memory: used + n does not wrap) */
    /* The writer's members are stored before the bytes: nothing then has to live across the
       byte stores (a char store may alias the writer, so a member read or kept after one costs
       a load or a register). Levels depth + 1 and depth + 2 are objects; depth and depth + 1
       have an element, depth + 2 none yet. */
    w->used = used + n;
    w->total += n;
    w->obj_mask |= (fw_jw_mask_t)(6u << depth);
    first_mask = (fw_jw_mask_t)(first_mask & ~(1u << depth));
    first_mask = (fw_jw_mask_t)(first_mask & ~(1u << (depth + 1u)));
    w->first_mask = (fw_jw_mask_t)(first_mask | (1u << (depth + 2u)));
    w->depth = (uint8_t)(depth + 2u);
    char *p = w->buf + used;
    p[0] = ','; /* the '{' lands on it when no separator is due */
    p += !first;
    *p++ = '{';
    memcpy(p, head, hn);
    if (vn - 1u < 3u) { /* an id of 1 to 3 bytes, the usual one, without the longer tests */
        p[hn] = val[0];
        p[hn + vn / 2u] = val[vn / 2u];
        p[hn + vn - 1u] = val[vn - 1u];
    } else {
        fw_copy_short(p + hn, val, vn);
    }
    memcpy(p + hn + vn, tail, tn);
    return true;
}

/* Closes every level above depth when all of them are objects, nothing is pending (a key
   without its value, an open string) and there are at most 8 of them with 8 bytes of room: their
   `}` in one 8-byte store, of which only the first n bytes are counted (a loop here became a
   memset call, half the cost of closing a response). false, having changed nothing, otherwise:
   the caller then closes the levels one by one. */
static inline bool fw_jw_close_objs(fw_jw_t *w, uint8_t depth)
{
    unsigned d = w->depth;
    size_t used = w->used;
    if (w->err != FW_OK || w->in_str || w->want_value || d <= depth) return false;
    unsigned n = d - depth;
    /* the levels depth + 1 .. d, every one an object */
    fw_jw_mask_t levels = (fw_jw_mask_t)((((fw_jw_mask_t)1u << n) - 1u) << (depth + 1u));
    if ((w->obj_mask & levels) != levels || n > 8u || used + 8u >= sizeof w->buf) return false;
    memcpy(w->buf + used, "}}}}}}}}", 8);
    w->used = used + n;
    w->total += n;
    w->depth = depth;
    return true;
}
#endif

#if FW_WITH_MCP
/*
 * Runs tool for an MCP tools/call on call (the tools/call request's own call: its tool and
 * args are replaced, its response collects the tool's error message and issues). Binds args
 * (an object token, or -1 when absent; doc NULL: no binding, every argument absent, as when
 * a deferred call runs again for the client's answer) and runs the handler with the result object
 * written to w bare, without envelope. Returns the tool's error; *started tells whether the result
 * object was started (it is then complete and closed in w: on FW_OK always, on an error it is the
 * handler bug of failing after fw_call_result, counted as an error).
 */
fw_err_t fw_rpc_run_tool(fw_call_t *call, const fw_tool_t *tool, const fw_json_doc_t *doc,
                         int32_t args, fw_jw_t *w, bool *started);
#endif

/* Logs a failed tool call at error level; invalid params (the client's mistake) are not
   logged. */
void fw_log_tool_failure(fw_call_t *call, fw_err_t err);

/* Raw JSON text of token tok as received (a string with its quotes and escapes). */
const char *fw_json_tok_raw(const fw_json_doc_t *doc, uint32_t tok, size_t *len);

/* ---------------------------------------------------------------- messages and layers */

/* The message being handled: dev->msg while fw_device_handle* runs. */
typedef struct fw_msg {
    void *session; /* the layer's session the message belongs to (MCP: fw_session_t) */
    fw_msg_sink_t out;
    bool framed; /* every message written to out is ended (fw_msg_sink_end), so notifications
                    may precede the response; false for fw_device_handle's plain fw_sink_t */
    bool batch;  /* a batch: nothing may be written between its responses */
    bool live;   /* a layer's handler runs and nothing of the response is written yet:
                    notifications may be written to out now */
    const fw_json_doc_t *doc;
    int32_t progress;          /* token of the running tools/call's _meta.progressToken, or -1 */
    bool asked;                /* the running call sent a request to the client (fw_call_ask) */
    fw_jw_t *ask_w;            /* the writer of that request while its params are being written */
    bool resumed;              /* a deferred call's response was written (not this message's own) */
    const fw_answer_t *answer; /* the client's answer while a deferred call runs again */
    int32_t err_code;          /* the JSON-RPC code of the error response written, or 0 */
    bool cancels;     /* the layer noted a request cancelled in this message: take_cancelled is
                         asked about every request after it (not before: nothing to take) */
    bool result_hook; /* the layer has work when a result starts (result_begins,
                         result_opened): set by the layer; the hooks are skipped while false */
#if FW_WITH_MCP
    /* MCP 2026-07-28: the request being run names that revision in params._meta (mcp_state.c) */
    bool stateless;        /* served without a session: resultType on every result */
    bool input_required;   /* its result is an InputRequiredResult (fw_call_input_begin) */
    bool cacheable;        /* its result carries ttlMs and cacheScope */
    uint8_t need_caps;     /* FW_CLIENT_* the client lacked (FW_ERR_CLIENT_CAPABILITY) */
    int32_t params;        /* the request's params token, or -1 */
    const char *method;    /* the MCP method's name */
    const char *state;     /* the verified payload of its requestState, or NULL */
    const char *requested; /* -32022: the protocol version asked for (in scratch) */
    bool ask_input;        /* fw_call_ask wrote the input request "ask" (mcp_ask.c) */
    bool task_created;     /* its result is a CreateTaskResult (mcp_tasks.c) */
#endif
#if FW_WITH_LISTEN
    const fw_session_t *owner; /* the transport's session: owns the listen streams it opens */
#endif
} fw_msg_t;

/* Ends a message written to out: tell(ctx, kind, code) when set, then end(ctx), or "\n" when
   end is NULL. */
void fw_msg_sink_end(const fw_msg_sink_t *out, fw_msg_kind_t kind, int32_t code);

/*
 * A protocol layer above JSON-RPC 2.0 (MCP is the one there is): rpc.c knows it only through
 * this table, installed in dev->layer by fw_device_init when the build has it. Every member
 * may be NULL.
 *   method_find   the layer's method named by string token tok (an opaque handle), or NULL;
 *                 tried before MCP/U's methods and the tools
 *   method_firsts the first letters of its methods' names, one bit per lowercase letter: an
 *                 unescaped name beginning with any other letter is none of them and
 *                 method_find is not asked (0: it is asked for every name)
 *   method_named  true when name is one of its methods (no tool may take the name)
 *   run           runs a method found by method_find for call (tool NULL, response in
 *                 call->priv) with params token (-1 when absent)
 *   msg_begin     a message starts being handled (dev->msg is set; session as given to
 *                 fw_device_handle_session, NULL for the device's implicit one)
 *   take_cancelled  true (and forgets it) when the request with raw id text id[0..len) was
 *                 cancelled earlier in the same message: it then gets no response
 *   answer        a response object from the client (token msg): when it answers a request
 *                 a deferred call waits for, sets *taken, runs that call again and returns its
 *                 error with r answering the waiting call; otherwise *taken stays false
 *   result_begins a handler starts its result (a request to the client still being written
 *                 is ended first)
 *   result_opened the response's result object was just opened in w: the layer may write
 *                 members every result of the request carries (MCP: resultType)
 *   error_data    writes "data": {...} of an error response for err into w when the layer has
 *                 one (true), else false
 *   observe       after every call and poll: compare the device's state with what the
 *                 layer last saw (change notifications, log)
 *   log           an entry for the firmware log (fw_log)
 */
typedef struct fw_rpc_layer {
    const void *(*method_find)(const fw_json_doc_t *doc, uint32_t tok);
    uint32_t method_firsts;
    bool (*method_named)(const char *name);
    fw_err_t (*run)(const void *method, fw_call_t *call, const fw_json_doc_t *doc, int32_t params);
    void (*msg_begin)(fw_device_t *dev, fw_msg_t *m, void *session);
    bool (*take_cancelled)(fw_device_t *dev, const char *id, size_t len);
    fw_err_t (*answer)(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t msg, fw_resp_t *r,
                       bool *taken);
    void (*result_begins)(fw_device_t *dev);
    void (*result_opened)(fw_device_t *dev, fw_jw_t *w);
    bool (*error_data)(fw_device_t *dev, fw_jw_t *w, fw_err_t err);
    void (*observe)(fw_device_t *dev);
    void (*vlog)(fw_device_t *dev, fw_log_level_t level, const char *fmt, va_list ap);
} fw_rpc_layer_t;

/* The device's layer: none in a build without MCP (the only layer there is), where the compiler
   then drops every hook's call and test. */
#if FW_WITH_MCP
#define FW_LAYER(dev) ((dev)->layer)
#else
#define FW_LAYER(dev) ((void)(dev), (const fw_rpc_layer_t *)NULL)
#endif

#if FW_WITH_MCP
/* The MCP layer (mcp.c) and the start of its state in a freshly initialised device (the
   implicit session, log and change tracking). */
extern const fw_rpc_layer_t fw_mcp_layer;
void fw_mcp_init(fw_device_t *dev);
#endif

/* Handles one whole message for the layer's session (NULL: the device's implicit one): the one
   entry behind fw_device_handle and fw_device_handle_session. framed: out ends every message
   (notifications may precede the response). Returns as fw_device_handle_session. */
bool fw_rpc_handle(fw_device_t *dev, void *session, const char *msg, size_t len, fw_msg_sink_t out,
                   bool framed);

/* As fw_rpc_handle (framed) for doc->buf/len, read already into doc (ok: the reading succeeded
   with the device's limits, FW_JSON_TOKENS_MAX tokens and FW_JSON_DEPTH_MAX): where the speed
   paths are on, doc's tokens are used instead of a second reading; otherwise, and when not ok,
   doc->buf is read again, and its error answered as fw_rpc_handle answers it. */
bool fw_rpc_handle_parsed(fw_device_t *dev, void *session, const fw_json_doc_t *doc, bool ok,
                          fw_msg_sink_t out);

/* The value tokens of object obj's members id, method and params, as the device reads a
   message's (the first of a name; -1 when absent): one pass over its keys. */
void fw_rpc_read_members(const fw_json_doc_t *doc, uint32_t obj, int32_t *id, int32_t *method,
                         int32_t *params);

/* Byte-stream entry behind fw_device_feed and fw_device_feed_session. */
void fw_rpc_feed(fw_device_t *dev, void *session, fw_framer_t *fr, const uint8_t *data, size_t len,
                 fw_sink_t out);

/* Notes that pin i's state or sampling was written, so MCP's observe compares its look (only
   such pins are compared after a call). */
static inline void fw_pin_touch(fw_device_t *d, size_t i)
{
#if FW_WITH_MCP
    d->pin_touched[i / 32u] |= (uint32_t)1u << (i % 32u);
#else
    (void)d;
    (void)i;
#endif
}

/* Pins and sampled events since the last look, for the layer (dev->layer->observe). */
void fw_layer_observe(fw_device_t *dev);

/* ---------------------------------------------------------------- listings (mcpu.c) */

/* Whether t appears in a tool listing (user-only tools only when asked for). */
bool fw_tool_listed(const fw_tool_t *t, bool with_user_tools);

/* One tool entry of a listing: MCP/U's (readOnly, destructive, polling; no inputSchema when
   the board omits schemas) or, with mcp, MCP's (inputSchema always, annotations). */
void fw_write_tool(fw_jw_t *w, const fw_board_t *b, const fw_tool_t *t, bool mcp);

/* The members of a pin registry entry (pin, name, type, description, sampling metadata);
   type is the pin's current type. */
void fw_write_pin_members(fw_jw_t *w, const fw_pin_def_t *p, uint8_t type);

/* The members of get_info's result (device, version, platform, pin_count, core_version). */
void fw_write_device_info(fw_jw_t *w, const fw_board_t *b);

/* ---------------------------------------------------------------- methods and schema */

/*
 * Core methods (not tools: not listed, but called by name like tools), e.g. get_info and
 * list_tools. They use the same descriptor type and validation as tools.
 */
extern const fw_tool_t fw_mcpu_methods[];
extern const size_t fw_mcpu_method_count;

#if FW_METHOD_INDEX
/* The hash the method index files a name under: its length and three of its bytes (names of
   methods and tools differ in one of those nearly always; a collision costs one more slot). */
static inline uint32_t fw_method_hash(const char *p, size_t n)
{
    uint32_t h = (uint32_t)n;
    if (n > 0)
        h = ((h * 33u + (uint8_t)p[0]) * 33u + (uint8_t)p[n / 2u]) * 33u + (uint8_t)p[n - 1u];
    return h ^ (h >> 7);
}

/* Files entry (1 + its index among the core methods and then the tools) under name. */
void fw_method_index_add(fw_device_t *dev, const char *name, size_t entry);
#endif

/* Fills call->args from params token (object, array by position, or -1 for absent). On failure
   returns FW_ERR_INVALID_PARAMS with the message and issues recorded in the response. */
fw_err_t fw_schema_bind(fw_call_t *call, const fw_json_doc_t *doc, int32_t params);

#if FW_WITH_TASKS
/* MCP tasks (mcp_tasks.c): steps the tasks that are due; the time the next one is. */
void fw_mcp_tasks_poll(fw_device_t *dev);
uint64_t fw_mcp_tasks_next(const fw_device_t *dev);
#endif

/* Writes the inputSchema object of tool (type object, properties, required,
   additionalProperties false) as one value. */
void fw_schema_write(fw_jw_t *w, const fw_tool_t *tool);
/* The tool's outputSchema, from tool->out (MCP; only for a tool with out_count > 0). */
void fw_schema_write_output(fw_jw_t *w, const fw_tool_t *tool);

/* ---------------------------------------------------------------- pins and sampling */

/* Resolves a pin given as number or name; index or -1. */
int fw_pin_lookup_name(const fw_device_t *dev, const char *name);

#if FW_WITH_SAMPLING
/* Checks the board's sample storage and lays the rings out; FW_ERR_NO_SPACE when the board's
   sample_store is smaller than its buffered pins need. */
fw_err_t fw_sampling_check(const fw_board_t *board);

/* Prepares the sampling state of every pin (called by fw_device_init and on reset). */
void fw_sampling_init(fw_device_t *dev, uint64_t now_ms);

/* Runs due sampling ticks up to now_ms. */
void fw_sampling_poll(fw_device_t *dev, uint64_t now_ms);
#endif

/* The decimal text of v into out (NUL-terminated, at most 20 characters); returns its length. */
size_t fw_i64_text(char out[21], int64_t v);

/* Writes an integer count of hundredths as a JSON number with exactly two decimals
   ("1.65", "-0.05"). */
void fw_jw_hundredths(fw_jw_t *w, int64_t hundredths);

/* The HAL's time as a 64-bit value for a 32-bit stored time t32 that lies at or before now. */
uint64_t fw_time_unwrap(uint64_t now, uint32_t t32);

#endif
