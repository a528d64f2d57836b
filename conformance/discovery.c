/* discovery.c: learning the device before the scenarios: get_info, list_tools, variables. */
#include "discovery.h"

#include <stdio.h>
#include <string.h>

#define DISCOVERY_TIMEOUT_MS 3000

static const char *const pin_types[] = {"digital_output", "digital_input", "pwm_output",
                                        "adc_input", NULL};

/* The result of method, or NULL with err (no answer, or an error answer). */
static json_t *call(conf_run_ctx_t *ctx, const char *method, char *err, size_t cap)
{
    json_t *resp = conf_request(ctx, method, NULL, DISCOVERY_TIMEOUT_MS, err, cap);
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

static json_t *tools_where(const json_t *tools, const char *key)
{
    json_t *out = json_array();
    size_t i;
    json_t *t;
    json_array_foreach(tools, i, t)
    {
        const json_t *v = json_object_get(t, key);
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

int conf_discover(conf_run_ctx_t *ctx, char *err, size_t cap)
{
    ctx->info = call(ctx, "get_info", err, cap);
    if (!ctx->info) return -1;
    ctx->manifest = call(ctx, "list_tools", err, cap);
    if (!ctx->manifest) return -1;
    set_vars(ctx);
    bench_vars(ctx);
    return 0;
}
