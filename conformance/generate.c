/* generate.c: the checks generated from what discovery found (run like any scenario). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discovery.h"
#include "fw_codes.h"
#include "match.h"

static const char *const schema_types[] = {"integer", "number", "boolean", "string",
                                           "array",   "object", NULL};

#define SRC_ERRORS "mcpu protocol: error codes"
#define SRC_NOTIFY "jsonrpc-2.0 §4.1"

static conf_scenario_t *gen_new(const char *name, const char *description, const char *source,
                                conf_level_t level, json_t *steps)
{
    conf_scenario_t *sc = conf_scenario_new();
    sc->name = conf_asprintf("generated/%s", name);
    sc->description = conf_strdup(description);
    sc->source = conf_strdup(source);
    sc->level = level;
    sc->file = conf_strdup("(generated)");
    sc->generated = true;
    json_array_append_new(sc->tags, json_string("generated"));
    json_decref(sc->steps);
    sc->steps = steps;
    return sc;
}

/* A step sending method with params and expecting error code (a new reference). */
static json_t *error_step(const char *method, json_t *params, int code)
{
    return json_pack("{s:{s:s, s:o}, s:{s:{s:i}}}", "send", "method", method, "params", params,
                     "expect", "error", "code", code);
}

/* ---------------------------------------------------------------- values from a schema */

/* A value the schema accepts, as far as it says (for filling the other required parameters). */
static json_t *plausible(const json_t *prop)
{
    const char *type = json_string_value(json_object_get(prop, "type"));
    const json_t *min = json_object_get(prop, "minimum");
    const json_t *en = json_object_get(prop, "enum");
    if (!type) return json_null();
    if (json_is_array(en) && json_array_size(en)) return json_deep_copy(json_array_get(en, 0));
    if (strcmp(type, "integer") == 0)
        return json_integer(min ? (json_int_t)json_number_value(min) : 0);
    if (strcmp(type, "number") == 0) return json_real(min ? json_number_value(min) : 0.0);
    if (strcmp(type, "boolean") == 0) return json_false();
    if (strcmp(type, "string") == 0) return json_string("");
    if (strcmp(type, "array") == 0) return json_pack("[i]", 0);
    return json_object();
}

/* A value of another type than the schema's. */
static json_t *wrong_type(const char *type)
{
    if (strcmp(type, "integer") == 0 || strcmp(type, "number") == 0) return json_true();
    if (strcmp(type, "boolean") == 0) return json_string("yes");
    if (strcmp(type, "string") == 0) return json_integer(12345);
    if (strcmp(type, "array") == 0) return json_string("not-an-array");
    return json_integer(7);
}

/* A value of the right type outside the schema's range, or NULL if it sets none. */
static json_t *out_of_range(const json_t *prop)
{
    const char *type = json_string_value(json_object_get(prop, "type"));
    const json_t *max = json_object_get(prop, "maximum"), *min = json_object_get(prop, "minimum");
    const json_t *en = json_object_get(prop, "enum");
    if (!type) return NULL;
    if (strcmp(type, "integer") == 0 && json_is_number(max) && json_number_value(max) < 9e15)
        return json_integer((json_int_t)json_number_value(max) + 1);
    if (strcmp(type, "integer") == 0 && json_is_number(min) && json_number_value(min) > -9e15)
        return json_integer((json_int_t)json_number_value(min) - 1);
    if (strcmp(type, "number") == 0 && json_is_number(max))
        return json_real(json_number_value(max) + 1.0);
    if (strcmp(type, "number") == 0 && json_is_number(min))
        return json_real(json_number_value(min) - 1.0);
    if (strcmp(type, "string") == 0 && json_is_array(en))
        return json_string("not-one-of-the-enum-values");
    const json_t *items = json_object_get(prop, "items");
    const json_t *imax = json_object_get(items, "maximum");
    if (strcmp(type, "array") == 0 && json_is_number(imax))
        return json_pack("[I]", (json_int_t)json_number_value(imax) + 1);
    return NULL;
}

/* The required parameters filled with plausible values, except skip. */
static json_t *fill_required(const json_t *schema, const char *skip)
{
    json_t *params = json_object();
    const json_t *props = json_object_get(schema, "properties");
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(schema, "required"), i, r)
    {
        const char *name = json_string_value(r);
        if (!name || (skip && strcmp(name, skip) == 0)) continue;
        json_object_set_new(params, name, plausible(json_object_get(props, name)));
    }
    return params;
}

/* ---------------------------------------------------------------- per tool */

static void gen_tool(const json_t *tool, conf_library_t *lib)
{
    const char *name = json_string_value(json_object_get(tool, "name"));
    const json_t *schema = json_object_get(tool, "inputSchema");
    const json_t *props = json_object_get(schema, "properties");
    const json_t *required = json_object_get(schema, "required");
    bool read_only = json_is_true(json_object_get(tool, "readOnly"));
    char sname[256], desc[512];
    if (!name) return;
    /* a tool that must run as a task (MCP 2025-11-25 execution.taskSupport "required") refuses a
       plain call whatever its arguments (-32601, or -32021 where tasks are not negotiated) */
    const char *support =
        json_string_value(json_object_get(json_object_get(tool, "execution"), "taskSupport"));
    if (support != NULL && strcmp(support, "required") == 0) return;
    if (json_array_size(required) > 0) {
        snprintf(sname, sizeof sname, "%s/missing-required", name);
        snprintf(desc, sizeof desc,
                 "Calling %s without its required parameters is answered "
                 "with %d Invalid params (MCP/U error codes).",
                 name, FW_RPC_INVALID_PARAMS);
        conf_library_add(
            lib, gen_new(sname, desc, SRC_ERRORS, CONF_LEVEL_MUST,
                         json_pack("[o]", error_step(name, json_object(), FW_RPC_INVALID_PARAMS))));
    } else if (read_only && json_is_array(required)) {
        snprintf(sname, sizeof sname, "%s/callable", name);
        snprintf(desc, sizeof desc,
                 "%s is listed by list_tools, its schema requires no parameter "
                 "and is read-only: calling it returns a result.",
                 name);
        json_t *steps = json_pack("[{s:{s:s, s:{}}, s:{s:{s:s}}}]", "send", "method", name,
                                  "params", "expect", "result", "$match", "any");
        conf_library_add(lib, gen_new(sname, desc, "mcpsim extension: readOnly tools",
                                      CONF_LEVEL_SHOULD, steps));
    }
    if (json_array_size(required) > 0 || (read_only && json_is_array(required))) {
        snprintf(sname, sizeof sname, "%s/notification-silent", name);
        snprintf(desc, sizeof desc,
                 "A notification (no id) calling %s gets no response, not "
                 "even an error (JSON-RPC 2.0 section 4.1).",
                 name);
        json_t *steps = json_pack("[{s:{s:s, s:{}}, s:b}, {s:{s:s}}, {s:{s:i}}]", "send", "method",
                                  name, "params", "notification", 1, "send", "method", "get_info",
                                  "expect_silence", "ms", 0);
        conf_library_add(lib, gen_new(sname, desc, SRC_NOTIFY, CONF_LEVEL_MUST, steps));
    }
    const char *pname;
    const json_t *prop;
    json_object_foreach((json_t *)props, pname, prop)
    {
        const char *type = json_string_value(json_object_get(prop, "type"));
        if (!type) continue;
        json_t *params = fill_required(schema, pname);
        json_object_set_new(params, pname, wrong_type(type));
        snprintf(sname, sizeof sname, "%s/wrong-type/%s", name, pname);
        snprintf(desc, sizeof desc,
                 "%s with parameter %s of another type than its schema's "
                 "\"%s\" is answered with %d Invalid params.",
                 name, pname, type, FW_RPC_INVALID_PARAMS);
        conf_library_add(
            lib, gen_new(sname, desc, SRC_ERRORS, CONF_LEVEL_MUST,
                         json_pack("[o]", error_step(name, params, FW_RPC_INVALID_PARAMS))));
        json_t *bad = out_of_range(prop);
        if (!bad) continue;
        params = fill_required(schema, pname);
        json_object_set_new(params, pname, bad);
        snprintf(sname, sizeof sname, "%s/out-of-range/%s", name, pname);
        snprintf(desc, sizeof desc,
                 "%s with parameter %s outside the range or choices its "
                 "schema declares is answered with %d Invalid params (MCP/U names -32602 only "
                 "for missing or wrong-typed parameters: a recommendation).",
                 name, pname, FW_RPC_INVALID_PARAMS);
        conf_library_add(
            lib, gen_new(sname, desc, "mcpu protocol: error codes; the tool's inputSchema",
                         CONF_LEVEL_SHOULD,
                         json_pack("[o]", error_step(name, params, FW_RPC_INVALID_PARAMS))));
    }
}

/* ---------------------------------------------------------------- the manifest */

static bool in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; s && list[i]; i++)
        if (strcmp(list[i], s) == 0) return true;
    return false;
}

static bool bad(conf_buf_t *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool bad(conf_buf_t *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conf_buf_vaddf(why, fmt, ap);
    va_end(ap);
    return false;
}

static bool check_schema(const char *tool, const json_t *schema, conf_buf_t *why)
{
    if (!schema) return true; /* AVR builds omit schemas (seed 001) */
    const json_t *type = json_object_get(schema, "type");
    const json_t *props = json_object_get(schema, "properties");
    if (!json_is_object(schema) || !json_is_string(type) ||
        strcmp(json_string_value(type), "object") != 0)
        return bad(why, "tool %s: inputSchema must be a JSON Schema of type \"object\"", tool);
    if (props && !json_is_object(props))
        return bad(why, "tool %s: inputSchema.properties must be an object", tool);
    const char *pname;
    const json_t *prop;
    json_object_foreach((json_t *)props, pname, prop)
    {
        const char *t = json_string_value(json_object_get(prop, "type"));
        /* a reference (JSON Schema 2020-12 $ref into $defs) names its type where it points */
        if (!t && json_is_string(json_object_get(prop, "$ref"))) continue;
        if (!in_list(t, schema_types))
            return bad(why,
                       "tool %s: parameter %s has type %s, which a client cannot map "
                       "(integer number boolean string array object)",
                       tool, pname, t ? t : "(none)");
    }
    const json_t *req = json_object_get(schema, "required");
    size_t i;
    const json_t *r;
    if (req && !json_is_array(req))
        return bad(why, "tool %s: inputSchema.required must be an array", tool);
    json_array_foreach(req, i, r)
    {
        if (!json_is_string(r) || !json_object_get(props, json_string_value(r)))
            return bad(why, "tool %s: required parameter %s is not among its properties", tool,
                       json_is_string(r) ? json_string_value(r) : "(not a string)");
    }
    return true;
}

static bool check_tools(const json_t *tools, conf_buf_t *why)
{
    if (!json_is_array(tools)) return bad(why, "list_tools: \"tools\" must be an array");
    for (size_t i = 0; i < json_array_size(tools); i++) {
        const json_t *t = json_array_get(tools, i);
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!name || !name[0]) return bad(why, "tools[%zu] has no name", i);
        if (!json_is_string(json_object_get(t, "description")))
            return bad(why, "tool %s has no description string", name);
        for (size_t k = 0; k < i; k++)
            if (strcmp(name,
                       json_string_value(json_object_get(json_array_get(tools, k), "name"))) == 0)
                return bad(why, "tool name %s is listed twice", name);
        if (!check_schema(name, json_object_get(t, "inputSchema"), why)) return false;
        const json_t *poll = json_object_get(t, "polling");
        if (poll && (!json_is_true(json_object_get(poll, "enabled")) ||
                     !json_is_integer(json_object_get(poll, "interval_ms")) ||
                     json_integer_value(json_object_get(poll, "interval_ms")) <= 0))
            return bad(why, "tool %s: polling must be {\"enabled\": true, \"interval_ms\": N>0}",
                       name);
    }
    return true;
}

static bool check_pins(const json_t *pins, conf_buf_t *why)
{
    static const char *const types[] = {"digital_output", "digital_input", "pwm_output",
                                        "adc_input", NULL};
    if (!json_is_array(pins)) return bad(why, "list_tools: \"pins\" must be an array");
    for (size_t i = 0; i < json_array_size(pins); i++) {
        const json_t *p = json_array_get(pins, i);
        const json_t *num = json_object_get(p, "pin");
        const char *name = json_string_value(json_object_get(p, "name"));
        const char *type = json_string_value(json_object_get(p, "type"));
        if (!json_is_integer(num) || json_integer_value(num) < 0)
            return bad(why, "pins[%zu]: \"pin\" must be an integer >= 0", i);
        if (!name || !name[0]) return bad(why, "pins[%zu]: \"name\" must be a non-empty string", i);
        if (!in_list(type, types))
            return bad(why,
                       "pin %s: type %s is not one of digital_output digital_input "
                       "pwm_output adc_input",
                       name, type ? type : "(none)");
        for (size_t k = 0; k < i; k++) {
            const json_t *q = json_array_get(pins, k);
            if (json_integer_value(json_object_get(q, "pin")) == json_integer_value(num))
                return bad(why, "pin number %lld is listed twice",
                           (long long)json_integer_value(num));
            if (strcmp(json_string_value(json_object_get(q, "name")), name) == 0)
                return bad(why, "pin name %s is listed twice", name);
        }
    }
    return true;
}

static bool check_manifest(conf_run_ctx_t *ctx, const conf_scenario_t *sc, conf_buf_t *why)
{
    (void)sc;
    const json_t *info = ctx->info;
    if (!json_is_string(json_object_get(info, "device")) ||
        !json_is_string(json_object_get(info, "version")))
        return bad(why, "get_info must return \"device\" and \"version\" strings");
    const json_t *count = json_object_get(info, "pin_count");
    if (count && (!json_is_integer(count) || json_integer_value(count) < 0))
        return bad(why, "get_info: pin_count must be an integer >= 0");
    return check_tools(json_object_get(ctx->manifest, "tools"), why) &&
           check_pins(json_object_get(ctx->manifest, "pins"), why);
}

/* ---------------------------------------------------------------- protocol-wide */

static void gen_protocol(conf_library_t *lib)
{
    char desc[256];
    snprintf(desc, sizeof desc,
             "An unknown method is answered with %d Method not found, with the request's id.",
             FW_RPC_METHOD_NOT_FOUND);
    conf_library_add(lib,
                     gen_new("jsonrpc/unknown-method", desc, "jsonrpc-2.0 §5.1; " SRC_ERRORS,
                             CONF_LEVEL_MUST,
                             json_pack("[o]", error_step("conformance_no_such_method",
                                                         json_object(), FW_RPC_METHOD_NOT_FOUND))));
    snprintf(desc, sizeof desc,
             "A line that is not JSON is answered with %d Parse error (id null), and the device "
             "keeps answering the next request.",
             FW_RPC_PARSE_ERROR);
    conf_scenario_t *sc = gen_new("jsonrpc/garbage-then-answers", desc,
                                  "jsonrpc-2.0 §5, §5.1; " SRC_ERRORS, CONF_LEVEL_MUST,
                                  json_pack("[{s:s, s:{s:n, s:{s:i}}}, {s:{s:s}, s:{s:{s:s}}}]",
                                            "send_raw", "this is not json {]\n", "expect", "id",
                                            "error", "code", FW_RPC_PARSE_ERROR, "send", "method",
                                            "get_info", "expect", "result", "$match", "any"));
    sc->needs_stream = true;
    conf_library_add(lib, sc);
    const char *ids[] = {"\"conformance-\\u00e9\\u2713 id\"",
                         "\"\"",
                         "9007199254740993",
                         "9223372036854775807",
                         "-1",
                         "0"};
    const char *names[] = {"string", "empty-string", "2^53+1", "int64-max", "negative", "zero"};
    /* Beyond 2^53 a JSON number is no longer interoperable (RFC 8259 §6): echoing it exactly
       is good practice, not a rule. */
    const conf_level_t levels[] = {CONF_LEVEL_MUST,   CONF_LEVEL_MUST, CONF_LEVEL_SHOULD,
                                   CONF_LEVEL_SHOULD, CONF_LEVEL_MUST, CONF_LEVEL_MUST};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        json_t *id = json_loads(ids[i], JSON_DECODE_ANY, NULL);
        char name[128];
        snprintf(name, sizeof name, "jsonrpc/id-echoed/%s", names[i]);
        snprintf(desc, sizeof desc, "The response carries the request's id exactly: %s.", ids[i]);
        json_t *steps =
            json_pack("[{s:{s:s}, s:O, s:{s:{s:s, s:O}}}]", "send", "method", "get_info", "id", id,
                      "expect", "id", "$match", "exact", "value", id);
        json_decref(id);
        conf_library_add(lib, gen_new(name, desc,
                                      levels[i] == CONF_LEVEL_MUST ? "jsonrpc-2.0 §4, §5"
                                                                   : "jsonrpc-2.0 §5; rfc 8259 §6",
                                      levels[i], steps));
    }
}

/* ---------------------------------------------------------------- MCP */

/* Rewrites MCP/U calls in generated steps for an MCP device: a tool method becomes tools/call
   {name, arguments}, get_info becomes ping. Protocol-level methods stay as they are. */
static void mcpify_steps(json_t *steps)
{
    size_t i;
    json_t *step;
    json_array_foreach(steps, i, step)
    {
        json_t *send = json_object_get(step, "send");
        const char *m = json_string_value(json_object_get(send, "method"));
        if (!m || strcmp(m, "conformance_no_such_method") == 0) continue;
        if (strcmp(m, "get_info") == 0) {
            json_object_set_new(send, "method", json_string("ping"));
            json_object_del(send, "params");
            continue;
        }
        json_t *args = json_object_get(send, "params");
        json_t *params =
            json_pack("{s:s, s:O}", "name", m, "arguments", args ? args : json_object());
        if (!args) json_decref(json_object_get(params, "arguments"));
        json_object_set_new(send, "method", json_string("tools/call"));
        json_object_set_new(send, "params", params);
        /* MCP lets a server report invalid arguments either way: a JSON-RPC -32602, or a tool
           result with isError (2025-06-18 server/tools, error handling). */
        json_t *exp = json_object_get(step, "expect");
        json_t *code = json_object_get(json_object_get(exp, "error"), "code");
        if (json_integer_value(code) == FW_RPC_INVALID_PARAMS)
            json_object_set_new(step, "expect",
                                json_pack("{s:s, s:[O, {s:{s:b}}]}", "$match", "anyOf", "of", exp,
                                          "result", "isError", 1));
    }
}

static void gen_mcp(conf_library_t *lib)
{
    char desc[256];
    snprintf(desc, sizeof desc,
             "tools/call of a tool the server does not list is a JSON-RPC error %d Invalid params "
             "(MCP: unknown tools are protocol errors).",
             FW_RPC_INVALID_PARAMS);
    json_t *params = json_pack("{s:s, s:{}}", "name", "conformance_no_such_tool", "arguments");
    conf_library_add(
        lib, gen_new("mcp/unknown-tool", desc, "mcp 2025-06-18 server/tools (error handling)",
                     CONF_LEVEL_MUST,
                     json_pack("[o]", error_step("tools/call", params, FW_RPC_INVALID_PARAMS))));
}

/* ---------------------------------------------------------------- sampling counts */

/*
 * Counts that must be exact however long the device runs: 65,537 sampling intervals of the first
 * pin that keeps a summary move its count, and the latest_seq of its buffer when it has one, by
 * exactly 65,537 (a 16-bit counter would wrap). Virtual time only: the step is a sim.advance
 * call, so a target whose control channel does not model it skips the check.
 */
#define SAMPLING_LAPS 65537

static void gen_sampling(const conf_run_ctx_t *ctx, conf_library_t *lib)
{
    size_t i;
    const json_t *pin;
    json_array_foreach(json_object_get(ctx->manifest, "pins"), i, pin)
    {
        const json_t *caps = json_object_get(pin, "capabilities");
        const json_t *sampling = json_object_get(pin, "sampling");
        json_int_t interval = json_integer_value(json_object_get(sampling, "interval_ms"));
        const char *name = json_string_value(json_object_get(pin, "name"));
        const json_t *number = json_object_get(pin, "pin");
        if (!json_is_true(json_object_get(caps, "summary")) || interval <= 0 || !name ||
            !json_is_integer(number))
            continue;
        bool buffer = json_is_true(json_object_get(caps, "buffer"));
        json_t *steps = json_array();
        json_array_append_new(steps, json_pack("{s:{s:s, s:{s:O}}, s:{s:s}}", "send", "method",
                                               "get_pin_summary", "params", "pin", number,
                                               "capture", "before", "result.count"));
        if (buffer)
            json_array_append_new(steps,
                                  json_pack("{s:{s:s, s:{s:O, s:i}}, s:{s:s}}", "send", "method",
                                            "get_pin_buffer", "params", "pin", number, "limit", 1,
                                            "capture", "seq", "result.latest_seq"));
        json_array_append_new(steps, json_pack("{s:{s:s, s:{s:I}}}", "control", "method",
                                               "sim.advance", "params", "ms",
                                               (json_int_t)(interval * SAMPLING_LAPS)));
        char want[64];
        snprintf(want, sizeof want, "${before+%d}", SAMPLING_LAPS);
        json_array_append_new(steps, json_pack("{s:{s:s, s:{s:O}}, s:{s:{s:s}}}", "send",
                                               "method", "get_pin_summary", "params", "pin",
                                               number, "expect", "result", "count", want));
        if (buffer) {
            snprintf(want, sizeof want, "${seq+%d}", SAMPLING_LAPS);
            json_array_append_new(steps,
                                  json_pack("{s:{s:s, s:{s:O, s:i}}, s:{s:{s:s}}}", "send",
                                            "method", "get_pin_buffer", "params", "pin", number,
                                            "limit", 1, "expect", "result", "latest_seq", want));
        }
        char sname[160], desc[320];
        snprintf(sname, sizeof sname, "sampling/count-past-65535/%s", name);
        snprintf(desc, sizeof desc,
                 "After %d sampling intervals of %lld ms, the summary's count of pin %s has grown "
                 "by exactly %d%s (no 16-bit wrap).",
                 SAMPLING_LAPS, (long long)interval, name, SAMPLING_LAPS,
                 buffer ? ", and so has its buffer's latest_seq" : "");
        conf_scenario_t *sc = gen_new(sname, desc, "mcpsim extension: sampling (get_pin_summary "
                                      "count, get_pin_buffer latest_seq)",
                                      CONF_LEVEL_EXTENSION, steps);
        json_object_set_new(sc->requires, "control", json_true());
        json_object_set_new(sc->requires, "tools",
                            buffer ? json_pack("[s, s]", "get_pin_summary", "get_pin_buffer")
                                   : json_pack("[s]", "get_pin_summary"));
        sc->needs_control = true;
        json_decref(sc->control_methods);
        sc->control_methods = json_pack("[s]", "sim.advance");
        json_array_append_new(sc->tags, json_string("sampling"));
        conf_library_add(lib, sc);
        return; /* one pin is enough; each lap of virtual time costs the simulator work */
    }
}

void conf_generate(const conf_run_ctx_t *ctx, conf_library_t *lib)
{
    size_t first = lib->count;
    conf_generate_mcpu(ctx, lib);
    if (!ctx->mcp) {
        gen_sampling(ctx, lib);
        return;
    }
    for (size_t k = first; k < lib->count; k++) {
        conf_scenario_t *sc = lib->items[k];
        mcpify_steps(sc->steps);
        json_object_set_new(sc->requires, "protocol", json_string("mcp"));
        if (strcmp(sc->source, SRC_ERRORS) == 0) {
            free(sc->source);
            sc->source = conf_strdup("mcp 2025-06-18 server/tools (error handling)");
        }
    }
    gen_mcp(lib);
}

void conf_generate_mcpu(const conf_run_ctx_t *ctx, conf_library_t *lib)
{
    conf_scenario_t *m = gen_new("manifest/valid",
                                 "get_info and list_tools describe the device consistently: tools "
                                 "with unique names, descriptions and JSON Schemas whose types a "
                                 "client can map; pins with unique numbers and names and known "
                                 "types.",
                                 "mcpu discovery: get_info, list_tools", CONF_LEVEL_MUST,
                                 json_array());
    m->check = check_manifest;
    conf_library_add(lib, m);
    gen_protocol(lib);
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(ctx->manifest, "tools"), i, t) gen_tool(t, lib);
}
