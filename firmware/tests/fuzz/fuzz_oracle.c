/* fuzz_oracle.c: what JSON-RPC 2.0 says the device must answer to a message, for the harnesses. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#if FUZZ_DEVICE

/*
 * The oracle reads the message with the core's JSON reader at the device's own limits (pool of
 * FW_JSON_TOKENS_MAX, depth FW_JSON_DEPTH_MAX): fuzz_json_reader checks that reader against
 * jansson and its own invariants, and using it here means duplicate keys (the first one counts),
 * numbers beyond double and "\u0000" in keys need no exceptions. From there the rules are
 * JSON-RPC 2.0's, plus the core's documented choices:
 *  - a message the reader refuses gets one error response with id null: -32700 when the JSON is
 *    invalid, -32600 when the reader's token pool or depth ran out first;
 *  - a batch (array) of 0 or more than FW_BATCH_MAX members gets one error with id null
 *    (-32600); otherwise one response per member that wants one, in the members' order, and
 *    nothing at all when none does;
 *  - a member that is not an object gets an error (-32600) with id null;
 *  - an object without "method" but with "result" or "error" is a response: no answer;
 *  - an object whose envelope is invalid ("jsonrpc" not "2.0", "method" not a string, "params"
 *    neither an object nor an array, "id" neither a string, a number nor null) gets an error
 *    (-32600), with or without an id;
 *  - an object without "id" and with a valid envelope is a notification: no answer;
 *  - any response carries the request's id when that is a string or a number, else null;
 *  - an unknown method gets -32601; a tool called with arguments its published inputSchema
 *    refuses, MCP/U-style or through MCP's tools/call, gets -32602 (see method_code);
 *  - in a batch, a request named by an earlier notifications/cancelled gets no response.
 */

typedef struct oracle {
    fw_json_doc_t doc;
    fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    fw_err_t verdict;
} oracle_t;

/* What one request wants back: nothing, or a response whose id is token id_tok (-1: null),
   which is an error with that code when code is not 0. */
typedef struct expect {
    bool answer;
    int32_t id_tok;
    int code;
} expect_t;

static void oracle_read(oracle_t *o, const char *msg, size_t len)
{
    o->verdict = fw_json_parse(&o->doc, msg, len, o->toks, FW_JSON_TOKENS_MAX, FW_JSON_DEPTH_MAX);
}

static uint8_t tok_type(const fw_json_doc_t *doc, int32_t tok)
{
    return doc->toks[tok].type;
}

static bool valid_envelope(const fw_json_doc_t *doc, uint32_t req)
{
    int32_t version = fw_json_obj_get(doc, req, "jsonrpc");
    int32_t method = fw_json_obj_get(doc, req, "method");
    int32_t params = fw_json_obj_get(doc, req, "params");
    return version >= 0 && fw_json_str_eq(doc, (uint32_t)version, "2.0") && method >= 0 &&
           tok_type(doc, method) == FW_JSON_STRING &&
           (params < 0 || tok_type(doc, params) == FW_JSON_OBJECT ||
            tok_type(doc, params) == FW_JSON_ARRAY);
}

/* ---------------------------------------------------------------- published schemas */

/*
 * The inputSchema every tool publishes in list_tools (read once from a rig) must not promise
 * more than the tool accepts: arguments the schema refuses must be refused with -32602. (The
 * converse does not hold: a pin must also be of the right type, an offset inside the chip.)
 * Pin parameters ("GPIO pin number"), which also resolve a pin name beyond the published
 * integer, are not judged.
 */
static json_t *published_tools(void)
{
    static json_t *tools;
    static fuzz_rig_t rig;
    static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\",\"params\":{"
                              "\"with_user_tools\":true}}";
    if (tools != NULL) return tools;
    fuzz_buf_t out = {NULL, 0, 0};
    fuzz_rig_init(&rig, false);
    FUZZ_CHECK(fw_device_handle(&rig.dev, req, sizeof req - 1, (fw_sink_t){fuzz_buf_write, &out}),
               "list_tools did not answer");
    json_t *reply = fuzz_check_reply(out.data, out.len, "list_tools");
    tools = json_incref(json_object_get(json_object_get(reply, "result"), "tools"));
    FUZZ_CHECK(json_is_array(tools) && json_array_size(tools) == fw_device_tool_count(&rig.dev),
               "list_tools does not list every tool");
    json_decref(reply);
    fuzz_buf_free(&out);
    return tools;
}

static const json_t *schema_of(const fw_json_doc_t *doc, int32_t method)
{
    size_t i;
    json_t *tool;
    json_array_foreach(published_tools(), i, tool)
    {
        const char *name = json_string_value(json_object_get(tool, "name"));
        if (name != NULL && fw_json_str_eq(doc, (uint32_t)method, name))
            return json_object_get(tool, "inputSchema");
    }
    return NULL;
}

static bool is_pin_param(const json_t *prop)
{
    const char *d = json_string_value(json_object_get(prop, "description"));
    return d != NULL && (strstr(d, "GPIO pin number") != NULL || strstr(d, "pin name") != NULL);
}

/* Value of number token tok, as the schema's bounds are compared. */
static double tok_number(const fw_json_doc_t *doc, int32_t tok)
{
    double v = 0;
    (void)fw_json_get_double(doc, (uint32_t)tok, &v);
    return v;
}

/* JSON Schema's integer: a number without a fractional part (1.0 is one). Values beyond a
   double's range are not judged here (the bounds still are). */
static bool integral(double v)
{
    return isinf(v) || v == floor(v);
}

static bool out_of_bounds(const json_t *prop, const char *lo, const char *hi, double v)
{
    const json_t *min = json_object_get(prop, lo), *max = json_object_get(prop, hi);
    return (min != NULL && v < json_number_value(min)) ||
           (max != NULL && v > json_number_value(max));
}

static size_t code_points(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += ((unsigned char)s[i] & 0xC0u) != 0x80u;
    return k;
}

static bool string_refused(const json_t *prop, const fw_json_doc_t *doc, int32_t tok)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    char *s = malloc(t->end - t->start + 1);
    FUZZ_CHECK(s != NULL, "out of memory");
    int32_t n = fw_json_str_decode(doc, (uint32_t)tok, s, t->end - t->start + 1);
    bool refused = out_of_bounds(prop, "minLength", "maxLength",
                                 (double)code_points(s, (size_t)(n > 0 ? n : 0)));
    const json_t *values = json_object_get(prop, "enum");
    if (values != NULL) {
        bool listed = false;
        size_t i;
        json_t *v;
        json_array_foreach(values, i, v)
        {
            listed = listed || (json_string_length(v) == (size_t)n &&
                                memcmp(json_string_value(v), s, (size_t)n) == 0);
        }
        refused = refused || !listed;
    }
    free(s);
    return refused;
}

static bool bytes_refused(const json_t *prop, const fw_json_doc_t *doc, int32_t tok)
{
    const json_t *items = json_object_get(prop, "items");
    const fw_json_tok_t *t = &doc->toks[tok];
    if (out_of_bounds(prop, "minItems", "maxItems", t->count)) return true;
    for (uint32_t i = 0, e = (uint32_t)tok + 1; i < t->count; i++, e = doc->toks[e].next) {
        const fw_json_tok_t *x = &doc->toks[e];
        if (x->type != FW_JSON_NUMBER || !integral(tok_number(doc, (int32_t)e))) return true;
        if (out_of_bounds(items, "minimum", "maximum", tok_number(doc, (int32_t)e))) return true;
    }
    return false;
}

/* Whether the published property refuses the value token tok. */
static bool value_refused(const json_t *prop, const fw_json_doc_t *doc, int32_t tok)
{
    const char *type = json_string_value(json_object_get(prop, "type"));
    const fw_json_tok_t *t = &doc->toks[tok];
    if (type == NULL || is_pin_param(prop)) return false;
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) {
        if (t->type != FW_JSON_NUMBER) return true;
        if (type[0] == 'i' && !integral(tok_number(doc, tok))) return true;
        return out_of_bounds(prop, "minimum", "maximum", tok_number(doc, tok));
    }
    if (strcmp(type, "boolean") == 0) return t->type != FW_JSON_TRUE && t->type != FW_JSON_FALSE;
    if (strcmp(type, "string") == 0)
        return t->type != FW_JSON_STRING || string_refused(prop, doc, tok);
    if (strcmp(type, "array") == 0)
        return t->type != FW_JSON_ARRAY || bytes_refused(prop, doc, tok);
    return false;
}

/* Whether the schema refuses params (an object token, or -1 for none). Duplicate keys are left
   alone: JSON Schema does not say which one counts. */
static bool schema_refuses(const json_t *schema, const fw_json_doc_t *doc, int32_t params)
{
    const json_t *props = json_object_get(schema, "properties");
    size_t i;
    json_t *req;
    json_array_foreach(json_object_get(schema, "required"), i, req)
    {
        if (params < 0 || fw_json_obj_get(doc, (uint32_t)params, json_string_value(req)) < 0)
            return true;
    }
    if (params < 0) return false;
    bool closed = json_is_false(json_object_get(schema, "additionalProperties"));
    uint32_t key = (uint32_t)params + 1;
    for (uint32_t m = 0; m < doc->toks[params].count; m++, key = doc->toks[key + 1].next) {
        if (fw_json_str_eq(doc, key, "_meta")) continue;
        const char *name;
        json_t *prop;
        bool known = false, refused = false;
        json_object_foreach((json_t *)props, name, prop)
        {
            if (!fw_json_str_eq(doc, key, name)) continue;
            known = true;
            refused = fw_json_obj_get(doc, (uint32_t)params, name) == (int32_t)key + 1 &&
                      value_refused(prop, doc, (int32_t)key + 1);
        }
        if (refused || (!known && closed)) return true;
    }
    return false;
}

/* ---------------------------------------------------------------- methods */

/* The MCP methods (their params must be an object) and the MCP/U core methods. */
static const char *const mcp_methods[] = {"initialize",
                                          "ping",
                                          "notifications/initialized",
                                          "notifications/cancelled",
                                          "logging/setLevel",
                                          "tools/list",
                                          "tools/call",
                                          "resources/list",
                                          "resources/templates/list",
                                          "resources/read",
                                          "resources/subscribe",
                                          "resources/unsubscribe",
                                          "prompts/list",
                                          "prompts/get",
                                          "completion/complete",
                                          NULL};
static const char *const mcpu_methods[] = {"get_info", "list_tools", NULL};

static bool named(const fw_json_doc_t *doc, int32_t tok, const char *const *names)
{
    for (size_t i = 0; names[i] != NULL; i++)
        if (fw_json_str_eq(doc, (uint32_t)tok, names[i])) return true;
    return false;
}

/* MCP tools/call: -32602 for params that are not {name: a known tool, arguments: an object
   its schema accepts}; 0 when the call may run. */
static int tools_call_code(const fw_json_doc_t *doc, int32_t params)
{
    int32_t name = params >= 0 ? fw_json_obj_get(doc, (uint32_t)params, "name") : -1;
    int32_t args = params >= 0 ? fw_json_obj_get(doc, (uint32_t)params, "arguments") : -1;
    if (name < 0 || tok_type(doc, name) != FW_JSON_STRING) return -32602;
    if (args >= 0 && tok_type(doc, args) != FW_JSON_OBJECT) return -32602;
    const json_t *schema = schema_of(doc, name);
    if (schema == NULL || schema_refuses(schema, doc, args)) return -32602;
    return 0;
}

/*
 * The error a request with a valid envelope must get, as far as the oracle can tell: -32601
 * for an unknown method; -32602 for MCP params that are not an object, for a tools/call the
 * published schemas refuse, and for a tool called by name (MCP/U) with an object of params its
 * schema refuses. 0: a result, or an error of the method or tool that the oracle cannot tell.
 */
static int method_code(const fw_json_doc_t *doc, uint32_t req)
{
    int32_t method = fw_json_obj_get(doc, req, "method");
    int32_t params = fw_json_obj_get(doc, req, "params");
    bool object = params < 0 || tok_type(doc, params) == FW_JSON_OBJECT;
    if (named(doc, method, mcp_methods)) {
        if (!object) return -32602;
        return fw_json_str_eq(doc, (uint32_t)method, "tools/call") ? tools_call_code(doc, params)
                                                                   : 0;
    }
    if (named(doc, method, mcpu_methods)) return 0;
    const json_t *schema = schema_of(doc, method);
    if (schema == NULL) return -32601;
    return object && schema_refuses(schema, doc, params) ? -32602 : 0;
}

static bool valid_id(const fw_json_doc_t *doc, int32_t id)
{
    uint8_t type = tok_type(doc, id);
    return type == FW_JSON_STRING || type == FW_JSON_NUMBER || type == FW_JSON_NULL;
}

static expect_t expect_one(const fw_json_doc_t *doc, uint32_t req)
{
    expect_t e = {true, -1, -32600};
    if (doc->toks[req].type != FW_JSON_OBJECT) return e; /* invalid request, id null */
    int32_t id = fw_json_obj_get(doc, req, "id");
    bool method = fw_json_obj_get(doc, req, "method") >= 0;
    if (!method &&
        (fw_json_obj_get(doc, req, "result") >= 0 || fw_json_obj_get(doc, req, "error") >= 0)) {
        e.answer = false; /* a response to us */
        return e;
    }
    if (id >= 0 && valid_id(doc, id) && tok_type(doc, id) != FW_JSON_NULL) e.id_tok = id;
    if (valid_envelope(doc, req) && (id < 0 || valid_id(doc, id))) {
        e.answer = id >= 0; /* without an id: a notification */
        e.code = method_code(doc, req);
    }
    return e;
}

static bool batch_size_ok(const fw_json_doc_t *doc)
{
    return doc->toks[0].count > 0 && doc->toks[0].count <= FW_BATCH_MAX;
}

/*
 * MCP's notifications/cancelled inside a batch: the core remembers the last requestId (a string
 * or a number of 1..FW_MCP_ID_MAX raw bytes) until a later member with exactly that raw id
 * comes, which is then skipped without a response. raw/len: the remembered id (len 0: none).
 */
typedef struct cancel {
    const char *raw;
    size_t len;
} cancel_t;

static const char *raw_of(const fw_json_doc_t *doc, int32_t tok, size_t *len)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    size_t quote = t->type == FW_JSON_STRING ? 1 : 0;
    *len = t->end - t->start + 2 * quote;
    return doc->buf + t->start - quote;
}

/* Applies a remembered cancellation to member req's expectation e, then notes the member's own
   cancellation, if it is one that runs. */
static void apply_cancel(const fw_json_doc_t *doc, uint32_t req, expect_t *e, cancel_t *c)
{
    if (doc->toks[req].type != FW_JSON_OBJECT || !valid_envelope(doc, req)) return;
    int32_t id = fw_json_obj_get(doc, req, "id");
    if (id >= 0 && !valid_id(doc, id)) return;
    size_t n;
    const char *raw = id >= 0 ? raw_of(doc, id, &n) : NULL;
    if (raw != NULL && c->len > 0 && n == c->len && memcmp(raw, c->raw, n) == 0) {
        e->answer = false; /* skipped: it does not run either */
        c->len = 0;
        return;
    }
    int32_t method = fw_json_obj_get(doc, req, "method");
    int32_t params = fw_json_obj_get(doc, req, "params");
    if (!fw_json_str_eq(doc, (uint32_t)method, "notifications/cancelled") || params < 0 ||
        tok_type(doc, params) != FW_JSON_OBJECT)
        return;
    int32_t rid = fw_json_obj_get(doc, (uint32_t)params, "requestId");
    if (rid < 0 || (tok_type(doc, rid) != FW_JSON_STRING && tok_type(doc, rid) != FW_JSON_NUMBER))
        return;
    raw = raw_of(doc, rid, &n);
    if (n > 0 && n <= FW_MCP_ID_MAX) {
        c->raw = raw;
        c->len = n;
    }
}

bool fuzz_wants_reply(const char *msg, size_t len)
{
    static oracle_t o; /* large; the harnesses are single-threaded */
    oracle_read(&o, msg, len);
    if (o.verdict != FW_OK) return true;
    if (o.doc.toks[0].type != FW_JSON_ARRAY) return expect_one(&o.doc, 0).answer;
    if (!batch_size_ok(&o.doc)) return true;
    bool any = false;
    cancel_t c = {NULL, 0};
    for (uint32_t i = 0, e = 1; i < o.doc.toks[0].count; i++, e = o.doc.toks[e].next) {
        expect_t x = expect_one(&o.doc, e);
        apply_cancel(&o.doc, e, &x, &c);
        any = any || x.answer;
    }
    return any;
}

/* ---------------------------------------------------------------- checking a reply */

/* The number text of token tok in a NUL-terminated buffer (cut at 63 bytes). */
static const char *num_text(const fw_json_doc_t *doc, int32_t tok, char out[64])
{
    size_t n = doc->toks[tok].end - doc->toks[tok].start;
    n = n < 63 ? n : 63;
    memcpy(out, doc->buf + doc->toks[tok].start, n);
    out[n] = 0;
    return out;
}

static void check_number_id(const fw_json_doc_t *doc, int32_t tok, const json_t *id,
                            const char *what)
{
    char text[64];
    const fw_json_tok_t *t = &doc->toks[tok];
    num_text(doc, tok, text);
    if (t->end - t->start >= 63) return; /* too long to compare here */
    errno = 0;
    if (t->flags & FW_JSON_F_INTEGER) {
        long long want = strtoll(text, NULL, 10);
        if (errno == ERANGE) return; /* fuzz_check_reply blanked it */
        FUZZ_CHECK(json_is_integer(id) && json_integer_value(id) == want,
                   "%s: the response's id is not the request's %s", what, text);
    } else {
        double want = strtod(text, NULL);
        if (isinf(want)) return; /* fuzz_check_reply blanked it */
        FUZZ_CHECK(json_is_real(id) && json_real_value(id) == want,
                   "%s: the response's id is not the request's %s", what, text);
    }
}

static void check_id(const json_t *r, const fw_json_doc_t *doc, int32_t tok, const char *what)
{
    const json_t *id = json_object_get(r, "id");
    if (tok < 0 || tok_type(doc, tok) == FW_JSON_NULL) {
        FUZZ_CHECK(json_is_null(id), "%s: the response's id is not null", what);
    } else if (tok_type(doc, tok) == FW_JSON_NUMBER) {
        check_number_id(doc, tok, id, what);
    } else {
        const fw_json_tok_t *t = &doc->toks[tok];
        char *s = malloc(t->end - t->start + 1);
        FUZZ_CHECK(s != NULL, "out of memory");
        int32_t n = fw_json_str_decode(doc, (uint32_t)tok, s, t->end - t->start + 1);
        FUZZ_CHECK(json_is_string(id) && n >= 0 && json_string_length(id) == (size_t)n &&
                       memcmp(json_string_value(id), s, (size_t)n) == 0,
                   "%s: the response's id is not the request's string", what);
        free(s);
    }
}

static void check_code(const json_t *r, json_int_t code, const char *what)
{
    const json_t *c = json_object_get(json_object_get(r, "error"), "code");
    FUZZ_CHECK(json_is_integer(c) && json_integer_value(c) == code, "%s: the error code is not %d",
               what, (int)code);
}

void fuzz_check_message_error(const json_t *reply, int code, const char *what)
{
    FUZZ_CHECK(reply != NULL && json_is_object(reply) && json_object_get(reply, "error"),
               "%s: not one error response about the whole message", what);
    FUZZ_CHECK(json_is_null(json_object_get(reply, "id")), "%s: the error's id is not null", what);
    check_code(reply, code, what);
}

static void check_batch(const fw_json_doc_t *doc, const json_t *reply, const char *what)
{
    size_t n = doc->toks[0].count, k = 0;
    if (!batch_size_ok(doc)) {
        fuzz_check_message_error(reply, -32600, what);
        return;
    }
    cancel_t c = {NULL, 0};
    for (uint32_t i = 0, e = 1; i < n; i++, e = doc->toks[e].next) {
        expect_t x = expect_one(doc, e);
        apply_cancel(doc, e, &x, &c);
        if (!x.answer) continue;
        FUZZ_CHECK(json_is_array(reply) && k < json_array_size(reply),
                   "%s: batch member %u got no response", what, i);
        const json_t *r = json_array_get(reply, k++);
        check_id(r, doc, x.id_tok, what);
        if (x.code != 0) check_code(r, x.code, what);
    }
    FUZZ_CHECK(k == 0 ? reply == NULL : json_array_size(reply) == k,
               "%s: %zu responses wanted, got another number", what, k);
}

void fuzz_check_answer(const char *msg, size_t len, const json_t *reply, const char *what)
{
    static oracle_t o; /* large; the harnesses are single-threaded */
    oracle_read(&o, msg, len);
    if (o.verdict != FW_OK) {
        fuzz_check_message_error(reply, o.verdict == FW_ERR_JSON_INVALID ? -32700 : -32600, what);
    } else if (o.doc.toks[0].type == FW_JSON_ARRAY) {
        check_batch(&o.doc, reply, what);
    } else {
        expect_t e = expect_one(&o.doc, 0);
        FUZZ_CHECK(e.answer == (reply != NULL), "%s: %s", what,
                   e.answer ? "no reply to a request" : "a reply to nothing");
        if (reply != NULL) {
            FUZZ_CHECK(json_is_object(reply), "%s: a batch reply to a single request", what);
            check_id(reply, &o.doc, e.id_tok, what);
            if (e.code != 0) check_code(reply, e.code, what);
        }
    }
}

#endif /* FUZZ_DEVICE */
