/* discovery.c: learning the device before the scenarios: get_info, list_tools, variables. */
#include "discovery.h"

#include <stdio.h>
#include <string.h>

#define DISCOVERY_TIMEOUT_MS 3000
#define CONF_MCP_VERSION "2025-06-18"
/* The stateless revision, asked for with server/discover */
#define CONF_MCP_STATELESS_VERSION "2026-07-28"

static const char *const pin_types[] = {"digital_output", "digital_input", "pwm_output",
                                        "adc_input", NULL};

/* The result of method, or NULL with err (no answer, or an error answer). */
static json_t *call_with(conf_run_ctx_t *ctx, const char *method, const json_t *params,
                         int timeout_ms, char *err, size_t cap)
{
    json_t *resp = conf_request(ctx, method, params, timeout_ms, err, cap);
    if (!resp) return NULL;
    json_t *result = json_object_get(resp, "result");
    if (!json_is_object(result)) {
        char *text = conf_json_text(resp);
        snprintf(err, cap, "%s did not return a result object: %.300s", method, text);
        free(text);
        json_decref(resp);
        return NULL;
    }
    json_incref(result);
    json_decref(resp);
    return result;
}

static json_t *call(conf_run_ctx_t *ctx, const char *method, char *err, size_t cap)
{
    return call_with(ctx, method, NULL, DISCOVERY_TIMEOUT_MS, err, cap);
}

/* MCP tools carry readOnlyHint in annotations; MCP/U tools readOnly at the top. */
static json_t *tools_where(const json_t *tools, const char *key)
{
    json_t *out = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        const json_t *v = json_object_get(t, key);
        if (!v && strcmp(key, "readOnly") == 0)
            v = json_object_get(json_object_get(t, "annotations"), "readOnlyHint");
        if (json_is_true(v) || json_is_object(v)) json_array_append(out, t);
    }
    return out;
}

static void pin_vars(conf_run_ctx_t *ctx, const json_t *pins)
{
    json_t *first = json_object(), *of = json_object();
    json_int_t max_pin = -1;
    for (size_t k = 0; pin_types[k]; k++) json_object_set_new(of, pin_types[k], json_array());
    size_t i;
    json_t *p;
    json_array_foreach(pins, i, p)
    {
        const char *type = json_string_value(json_object_get(p, "type"));
        json_int_t n = json_integer_value(json_object_get(p, "pin"));
        if (n > max_pin) max_pin = n;
        if (type && json_object_get(of, type)) json_array_append(json_object_get(of, type), p);
        if (type && !json_object_get(first, type)) json_object_set(first, type, p);
        const json_t *caps = json_object_get(p, "capabilities");
        if (json_object_get(p, "sampling") && !json_object_get(first, "sampled"))
            json_object_set(first, "sampled", p);
        const char *cap_names[] = {"buffer", "summary", "events"};
        for (size_t c = 0; c < 3; c++)
            if (json_is_true(json_object_get(caps, cap_names[c])) &&
                !json_object_get(first, cap_names[c]))
                json_object_set(first, cap_names[c], p);
    }
    conf_vars_set(&ctx->globals, "pin", first);
    conf_vars_set(&ctx->globals, "pins_of", of);
    conf_vars_set(&ctx->globals, "unused_pin", json_integer(max_pin + 1));
}

static void set_vars(conf_run_ctx_t *ctx)
{
    conf_vars_t *g = &ctx->globals;
    const json_t *tools = json_object_get(ctx->manifest, "tools");
    const json_t *pins = json_object_get(ctx->manifest, "pins");
    conf_vars_set(g, "info", json_deep_copy(ctx->info));
    conf_vars_set(g, "manifest", json_deep_copy(ctx->manifest));
    conf_vars_set(g, "device", json_deep_copy(json_object_get(ctx->info, "device")));
    conf_vars_set(g, "protocol", json_string(ctx->protocol));
    conf_vars_set(g, "transport", json_string(ctx->target->transport));
    if (ctx->target->vars) conf_vars_set(g, "target", json_deep_copy(ctx->target->vars));
    conf_vars_set(g, "tools", json_is_array(tools) ? json_deep_copy(tools) : json_array());
    conf_vars_set(g, "pins", json_is_array(pins) ? json_deep_copy(pins) : json_array());
    json_t *names = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t) json_array_append(names, json_object_get(t, "name"));
    conf_vars_set(g, "tool_names", names);
    conf_vars_set(g, "read_only_tools", tools_where(tools, "readOnly"));
    conf_vars_set(g, "polled_tools", tools_where(tools, "polling"));
    pin_vars(ctx, pins);
}

/* With a control channel, the bench's own description (wires, I2C devices) as "bench". */
static void bench_vars(conf_run_ctx_t *ctx)
{
    json_t *resp = NULL;
    char err[256];
    if (!ctx->control || conf_control_call(ctx->control, "sim.snapshot", NULL, DISCOVERY_TIMEOUT_MS,
                                           &resp, err, sizeof err) != 0)
        return;
    json_t *result = json_object_get(resp, "result");
    if (json_is_object(result)) conf_vars_set(&ctx->globals, "bench", json_incref(result));
    json_decref(resp);
}

/* MCP: initialize (the version this runner knows best), notifications/initialized, and every
   page of tools/list. The device's pins come from MCP/U's list_tools when it also answers that
   (mcpsim does), else there are none. */
static int discover_mcp(conf_run_ctx_t *ctx, char *err, size_t cap)
{
    json_t *params =
        json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", CONF_MCP_VERSION, "capabilities",
                  "clientInfo", "name", "mcpsim-conformance", "version", "1");
    json_t *init = call_with(ctx, "initialize", params, DISCOVERY_TIMEOUT_MS, err, cap);
    json_decref(params);
    if (!init) return -1;
    ctx->mcp = true;
    conf_copy(ctx->protocol, sizeof ctx->protocol, "mcp");
    char note[256];
    if (conf_notify(ctx, "notifications/initialized", note, sizeof note) != 0) {
        snprintf(err, cap, "notifications/initialized: %s", note);
        json_decref(init);
        return -1;
    }
    json_t *tools = json_array(), *cursor = NULL;
    for (int page = 0; page < 1000; page++) {
        json_t *p = cursor ? json_pack("{s:O}", "cursor", cursor) : json_object();
        json_t *res = call_with(ctx, "tools/list", p, DISCOVERY_TIMEOUT_MS, err, cap);
        json_decref(p);
        json_decref(cursor);
        cursor = NULL;
        if (!res) {
            json_decref(tools);
            json_decref(init);
            return -1;
        }
        json_array_extend(tools, json_object_get(res, "tools"));
        cursor = json_incref(json_object_get(res, "nextCursor"));
        json_decref(res);
        if (!json_is_string(cursor)) break;
    }
    json_decref(cursor);
    const json_t *server = json_object_get(init, "serverInfo");
    ctx->info = json_pack("{s:O?, s:O?}", "device", json_object_get(server, "name"), "version",
                          json_object_get(server, "version"));
    /* an MCP/U manifest beside it gives the pins (a short wait: most MCP servers lack it) */
    json_t *mcpu = call_with(ctx, "list_tools", NULL, 1000, note, sizeof note);
    json_t *pins = json_object_get(mcpu, "pins");
    ctx->manifest = json_pack("{s:o, s:o}", "tools", tools, "pins",
                              json_is_array(pins) ? json_incref(pins) : json_array());
    json_decref(mcpu);
    set_vars(ctx);
    conf_vars_set(&ctx->globals, "initialize", init);
    conf_vars_set(&ctx->globals, "mcp_version",
                  json_deep_copy(json_object_get(init, "protocolVersion")));
    /* The revisions it speaks: the one initialize negotiated, and MCP 2026-07-28 (stateless)
       when server/discover, asked in that revision's way, lists it among supportedVersions. */
    const char *negotiated = json_string_value(json_object_get(init, "protocolVersion"));
    snprintf(ctx->revisions, sizeof ctx->revisions, "%s", negotiated ? negotiated : "");
    json_t *dp = json_pack("{s:{s:s, s:{}, s:{s:s, s:s}}}", "_meta",
                           "io.modelcontextprotocol/protocolVersion", CONF_MCP_STATELESS_VERSION,
                           "io.modelcontextprotocol/clientCapabilities",
                           "io.modelcontextprotocol/clientInfo", "name", "mcpsim-conformance",
                           "version", "1");
    json_t *disc = call_with(ctx, "server/discover", dp, 1000, note, sizeof note);
    json_decref(dp);
    size_t k;
    json_t *v;
    json_array_foreach(json_object_get(disc, "supportedVersions"), k, v)
    {
        if (json_is_string(v) && strcmp(json_string_value(v), CONF_MCP_STATELESS_VERSION) == 0 &&
            !conf_word_in(ctx->revisions, CONF_MCP_STATELESS_VERSION)) {
            size_t used = strlen(ctx->revisions);
            snprintf(ctx->revisions + used, sizeof ctx->revisions - used, "%s%s",
                     used ? " " : "", CONF_MCP_STATELESS_VERSION);
        }
    }
    json_decref(disc);
    if (ctx->revisions_given)
        snprintf(ctx->revisions, sizeof ctx->revisions, "%s", ctx->revisions_given);
    conf_vars_set(&ctx->globals, "mcp_revisions", json_string(ctx->revisions));
    bench_vars(ctx);
    return 0;
}

int conf_discover(conf_run_ctx_t *ctx, char *err, size_t cap)
{
    /* message transports carry MCP (MQTT: seed 003's envelope); byte streams MCP/U, or MCP
       when their spec says mcp=1 */
    if (strcmp(ctx->target->transport, "http") == 0 || strcmp(ctx->target->transport, "ws") == 0 ||
        strcmp(ctx->target->transport, "mqtt") == 0 || ctx->target->mcp)
        return discover_mcp(ctx, err, cap);
    ctx->info = call(ctx, "get_info", err, cap);
    if (!ctx->info) return -1;
    ctx->manifest = call(ctx, "list_tools", err, cap);
    if (!ctx->manifest) return -1;
    set_vars(ctx);
    bench_vars(ctx);
    return 0;
}
