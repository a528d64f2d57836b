/* scenario.c: scenario files (format version 1): loading, validation, the scenario library. */
#define _DEFAULT_SOURCE
#include "scenario.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jpos.h"
#include "match.h"
#include "vars.h"

/* ---------------------------------------------------------------- levels */

static const char *const level_names[CONF_LEVELS] = {"must", "should", "extension"};

const char *conf_level_name(conf_level_t l)
{
    return (unsigned)l < CONF_LEVELS ? level_names[l] : "?";
}

bool conf_level_fails_run(conf_level_t level, bool strict)
{
    return level != CONF_LEVEL_SHOULD || strict;
}

int conf_level_parse(const char *s)
{
    for (int i = 0; s && i < CONF_LEVELS; i++)
        if (strcmp(level_names[i], s) == 0) return i;
    return -1;
}

/* ---------------------------------------------------------------- library */

void conf_library_init(conf_library_t *lib)
{
    memset(lib, 0, sizeof *lib);
}

conf_scenario_t *conf_scenario_new(void)
{
    conf_scenario_t *sc = conf_xcalloc(1, sizeof *sc);
    sc->tags = json_array();
    sc->requires = json_object();
    sc->steps = json_array();
    sc->timeout_ms = CONF_DEFAULT_TIMEOUT_MS;
    return sc;
}

void conf_scenario_free(conf_scenario_t *sc)
{
    if (!sc) return;
    free(sc->name);
    free(sc->description);
    free(sc->source);
    free(sc->file);
    json_decref(sc->tags);
    json_decref(sc->requires);
    json_decref(sc->steps);
    json_decref(sc->control_methods);
    free(sc);
}

void conf_library_add(conf_library_t *lib, conf_scenario_t *sc)
{
    if (lib->count == lib->cap) {
        lib->cap = lib->cap ? lib->cap * 2 : 64;
        lib->items = conf_xrealloc(lib->items, lib->cap * sizeof *lib->items);
    }
    lib->items[lib->count++] = sc;
}

void conf_library_free(conf_library_t *lib)
{
    for (size_t i = 0; i < lib->count; i++) conf_scenario_free(lib->items[i]);
    free(lib->items);
    memset(lib, 0, sizeof *lib);
}

static const conf_scenario_t *library_find(const conf_library_t *lib, const char *name)
{
    for (size_t i = 0; i < lib->count; i++)
        if (strcmp(lib->items[i]->name, name) == 0) return lib->items[i];
    return NULL;
}

/* ---------------------------------------------------------------- validation context */

typedef struct vctx {
    const char *file, *text;
    size_t len;
    conf_path_t path;
    char *err;
    size_t cap;
    bool uses_control, uses_raw, uses_http;
    json_t *ctl_methods; /* the control methods the scenario calls (distinct, in order) */
} vctx_t;

/* Writes "FILE:LINE:COL: message (at PATH)" for the current path; at_key points at the key of
   the last member rather than its value. Always returns false. */
static bool refuse(vctx_t *c, bool at_key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool refuse(vctx_t *c, bool at_key, const char *fmt, ...)
{
    int line, col;
    char msg[512], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    conf_jpos_locate(c->text, c->len, &c->path, at_key, &line, &col);
    conf_path_format(&c->path, NULL, where, sizeof where);
    if (where[0])
        snprintf(c->err, c->cap, "%s:%d:%d: %s (at %s)", c->file, line, col, msg, where);
    else
        snprintf(c->err, c->cap, "%s:%d:%d: %s", c->file, line, col, msg);
    return false;
}

/* Refuses any member of obj whose key is not in allowed (NULL-terminated). */
static bool only_keys(vctx_t *c, const json_t *obj, const char *const *allowed, const char *what)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i] && !ok; i++) ok = strcmp(allowed[i], key) == 0;
        if (ok) continue;
        char list[512] = "";
        size_t n = 0;
        for (size_t i = 0; allowed[i]; i++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
        conf_path_push_key(&c->path, key);
        return refuse(c, true, "unknown key \"%s\" in %s (known keys: %s)", key, what, list);
    }
    return true;
}

static bool is_var_ref(const json_t *v)
{
    return json_is_string(v) && strncmp(json_string_value(v), "${", 2) == 0;
}

/* Member key of obj: required or optional; checked with fn (which sees the path at the value). */
typedef bool (*check_fn)(vctx_t *c, const json_t *v);

static bool member(vctx_t *c, const json_t *obj, const char *key, bool required, check_fn fn)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) return required ? refuse(c, false, "missing required key \"%s\"", key) : true;
    conf_path_push_key(&c->path, key);
    bool ok = fn(c, v);
    if (ok) conf_path_pop(&c->path);
    return ok;
}

static bool is_name(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/-", *s))
            return false;
    return true;
}

static bool is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", *s))
            return false;
    return true;
}

/* ---------------------------------------------------------------- value checks */

static bool v_string(vctx_t *c, const json_t *v)
{
    return json_is_string(v) || refuse(c, false, "must be a string");
}

static bool v_text(vctx_t *c, const json_t *v)
{
    return (json_is_string(v) && json_string_length(v) > 0) ||
           refuse(c, false, "must be a non-empty string");
}

static bool v_name(vctx_t *c, const json_t *v)
{
    return (json_is_string(v) && is_name(json_string_value(v))) ||
           refuse(c, false, "must be a name: letters, digits and _ . : / - (no spaces)");
}

static bool v_ident(vctx_t *c, const json_t *v)
{
    return (json_is_string(v) && is_ident(json_string_value(v))) ||
           refuse(c, false, "must be a variable name ([A-Za-z_][A-Za-z0-9_]*)");
}

static bool v_bool(vctx_t *c, const json_t *v)
{
    return json_is_boolean(v) || refuse(c, false, "must be true or false");
}

static bool v_format(vctx_t *c, const json_t *v)
{
    if (!json_is_integer(v)) return refuse(c, false, "must be the integer %d", CONF_FORMAT_VERSION);
    if (json_integer_value(v) != CONF_FORMAT_VERSION)
        return refuse(c, false, "unsupported format version %lld (this runner reads %d)",
                      (long long)json_integer_value(v), CONF_FORMAT_VERSION);
    return true;
}

static bool v_positive(vctx_t *c, const json_t *v)
{
    return (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= 3600000) ||
           refuse(c, false, "must be an integer from 1 to 3600000 (milliseconds)");
}

static bool v_count(vctx_t *c, const json_t *v)
{
    return is_var_ref(v) ||
           (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 1000000) ||
           refuse(c, false, "must be an integer from 0 to 1000000 or a \"${...}\" reference");
}

static bool v_string_list_of(vctx_t *c, const json_t *v, const char *const *allowed)
{
    if (!json_is_array(v)) return refuse(c, false, "must be a list of strings");
    for (size_t i = 0; i < json_array_size(v); i++) {
        const json_t *e = json_array_get(v, i);
        conf_path_push_index(&c->path, i);
        if (!json_is_string(e) || json_string_length(e) == 0)
            return refuse(c, false, "must be a non-empty string");
        bool ok = !allowed;
        for (size_t k = 0; allowed && allowed[k] && !ok; k++)
            ok = strcmp(allowed[k], json_string_value(e)) == 0;
        if (!ok) return refuse(c, false, "unknown value \"%s\"", json_string_value(e));
        conf_path_pop(&c->path);
    }
    return true;
}

static bool v_strings(vctx_t *c, const json_t *v)
{
    return v_string_list_of(c, v, NULL);
}

static const char *const pin_types[] = {"digital_output", "digital_input", "pwm_output",
                                        "adc_input", NULL};
static const char *const transports[] = {"stream", "tcp", "serial", "http", "ws", "mqtt", NULL};
static const char *const protocols[] = {"mcpu", "mcp", NULL};

static bool v_level(vctx_t *c, const json_t *v)
{
    return conf_level_parse(json_string_value(v)) >= 0 ||
           refuse(c, false, "must be \"must\", \"should\" or \"extension\"");
}

static bool v_pin_types(vctx_t *c, const json_t *v)
{
    return v_string_list_of(c, v, pin_types);
}

static bool v_transport(vctx_t *c, const json_t *v)
{
    if (json_is_string(v)) {
        json_t *one = json_pack("[O]", v);
        bool ok = v_string_list_of(c, one, transports);
        json_decref(one);
        return ok;
    }
    return v_string_list_of(c, v, transports);
}

static bool v_protocol(vctx_t *c, const json_t *v)
{
    for (size_t i = 0; json_is_string(v) && protocols[i]; i++)
        if (strcmp(protocols[i], json_string_value(v)) == 0) return true;
    return refuse(c, false, "must be \"mcpu\" or \"mcp\"");
}

/* An MCP revision: a date, YYYY-MM-DD. */
static bool v_revision(vctx_t *c, const json_t *v)
{
    const char *s = json_string_value(v);
    bool ok = s && strlen(s) == 10;
    for (size_t i = 0; ok && i < 10; i++)
        ok = (i == 4 || i == 7) ? s[i] == '-' : (s[i] >= '0' && s[i] <= '9');
    return ok || refuse(c, false, "must be an MCP revision such as \"2026-07-28\"");
}

static bool v_vars(vctx_t *c, const json_t *v)
{
    if (!v_strings(c, v)) return false;
    for (size_t i = 0; i < json_array_size(v); i++) {
        conf_path_push_index(&c->path, i);
        if (!conf_path_valid(json_string_value(json_array_get(v, i))))
            return refuse(c, false, "must be a variable reference such as \"pin.adc_input\"");
        conf_path_pop(&c->path);
    }
    return true;
}

static bool v_requires(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"protocol", "transport", "pins",         "tools",
                                       "control",  "vars",      "capabilities", "revision",
                                       NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object");
    return only_keys(c, v, keys, "requires") && member(c, v, "protocol", false, v_protocol) &&
           member(c, v, "transport", false, v_transport) &&
           member(c, v, "pins", false, v_pin_types) && member(c, v, "tools", false, v_strings) &&
           member(c, v, "control", false, v_bool) && member(c, v, "vars", false, v_vars) &&
           member(c, v, "capabilities", false, v_strings) &&
           member(c, v, "revision", false, v_revision);
}

static bool v_template(vctx_t *c, const json_t *v)
{
    char msg[256];
    size_t depth = c->path.n;
    if (conf_match_validate(v, &c->path, msg, sizeof msg)) return true;
    bool at_key = c->path.n > depth && c->path.seg[c->path.n - 1].key != NULL;
    return refuse(c, at_key, "%s", msg);
}

static bool v_ms(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"ms", NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"ms\": N}");
    return only_keys(c, v, keys, "a duration") && member(c, v, "ms", true, v_count);
}

static bool v_silence(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"ms", "allow", NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"ms\": N, \"allow\": T}");
    return only_keys(c, v, keys, "expect_silence") && member(c, v, "ms", true, v_count) &&
           member(c, v, "allow", false, v_template);
}

static bool v_capture(vctx_t *c, const json_t *v)
{
    if (!json_is_object(v))
        return refuse(c, false, "must be an object {\"variable\": \"path.in.message\"}");
    const char *key;
    const json_t *path;
    json_object_foreach((json_t *)v, key, path)
    {
        conf_path_push_key(&c->path, key);
        if (!is_ident(key)) return refuse(c, true, "\"%s\" is not a variable name", key);
        if (!json_is_string(path) || !conf_path_valid(json_string_value(path)))
            return refuse(c, false,
                          "must be a path into the message such as "
                          "\"result.samples[0].seq\"");
        conf_path_pop(&c->path);
    }
    return true;
}

static bool v_id(vctx_t *c, const json_t *v)
{
    return json_is_integer(v) || json_is_string(v) || json_is_null(v) || json_is_real(v) ||
           refuse(c, false, "must be a number, a string or null");
}

static bool v_params(vctx_t *c, const json_t *v)
{
    return json_is_object(v) || json_is_array(v) || is_var_ref(v) ||
           refuse(c, false, "must be an object, an array or a \"${...}\" reference");
}

static bool v_send(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"method", "params", NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"method\", \"params\"}");
    return only_keys(c, v, keys, "send") && member(c, v, "method", true, v_text) &&
           member(c, v, "params", false, v_params);
}

static bool v_any(vctx_t *c, const json_t *v)
{
    (void)c;
    (void)v;
    return true;
}

static bool v_http_headers(vctx_t *c, const json_t *v)
{
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"Name\": value | null}");
    const char *k;
    const json_t *h;
    json_object_foreach((json_t *)v, k, h)
    {
        if (!json_is_string(h) && !json_is_null(h)) {
            conf_path_push_key(&c->path, k);
            return refuse(c, false, "a header value is a string, or null to leave it out");
        }
    }
    return true;
}

static bool v_raw(vctx_t *c, const json_t *v)
{
    c->uses_raw = true;
    if (json_is_string(v)) return true;
    if (!json_is_array(v) || json_array_size(v) == 0)
        return refuse(c, false,
                      "must be a string, or a non-empty list of strings (sent as "
                      "separate writes)");
    return v_strings(c, v);
}

/* An http step's path: "/" followed by URL path characters. */
static bool v_http_path(vctx_t *c, const json_t *v)
{
    const char *s = json_string_value(v);
    return (s && s[0] == '/' && strcspn(s, " \t\r\n?#") == strlen(s)) ||
           refuse(c, false, "must be a path starting with \"/\" (no blanks, query or fragment)");
}

/* An http step's body_pad: blanks after the body (at most 4 MiB). */
static bool v_http_pad(vctx_t *c, const json_t *v)
{
    return (json_is_integer(v) && json_integer_value(v) >= 0 &&
            json_integer_value(v) <= 4194304) ||
           refuse(c, false, "must be an integer from 0 to 4194304 (blanks after the body)");
}

static bool v_http(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"method", "headers", "body",     "body_text",
                                       "session", "path",    "body_pad", NULL};
    c->uses_http = true;
    if (!json_is_object(v))
        return refuse(c, false,
                      "must be an object {\"method\", \"headers\", \"body\" | \"body_text\", "
                      "\"session\", \"path\", \"body_pad\"}");
    if (json_object_get(v, "body") && json_object_get(v, "body_text"))
        return refuse(c, false, "has both \"body\" and \"body_text\"");
    return only_keys(c, v, keys, "http") && member(c, v, "method", false, v_text) &&
           member(c, v, "headers", false, v_http_headers) && member(c, v, "body", false, v_any) &&
           member(c, v, "body_text", false, v_text) && member(c, v, "session", false, v_bool) &&
           member(c, v, "path", false, v_http_path) && member(c, v, "body_pad", false, v_http_pad);
}

static bool v_control(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"method", "params", NULL};
    c->uses_control = true;
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"method\", \"params\"}");
    const char *method = json_string_value(json_object_get(v, "method"));
    if (method && c->ctl_methods) {
        bool known = false;
        size_t i;
        const json_t *m;
        json_array_foreach(c->ctl_methods, i, m) known = known || strcmp(json_string_value(m), method) == 0;
        if (!known) json_array_append_new(c->ctl_methods, json_string(method));
    }
    return only_keys(c, v, keys, "control") && member(c, v, "method", true, v_text) &&
           member(c, v, "params", false, v_params);
}

static bool v_set(vctx_t *c, const json_t *v)
{
    if (!json_is_object(v) || json_object_size(v) == 0)
        return refuse(c, false, "must be an object {\"variable\": value}");
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        conf_path_push_key(&c->path, key);
        if (!is_ident(key)) return refuse(c, true, "\"%s\" is not a variable name", key);
        conf_path_pop(&c->path);
    }
    return true;
}

static bool v_assert(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"value", "matches", NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"value\", \"matches\"}");
    return only_keys(c, v, keys, "assert") && member(c, v, "value", true, v_any) &&
           member(c, v, "matches", true, v_template);
}

static bool v_steps(vctx_t *c, const json_t *v);

static bool v_repeat(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"count", "as", "steps", NULL};
    if (!json_is_object(v)) return refuse(c, false, "must be an object {\"count\", \"steps\"}");
    return only_keys(c, v, keys, "repeat") && member(c, v, "count", true, v_count) &&
           member(c, v, "as", false, v_ident) && member(c, v, "steps", true, v_steps);
}

static bool v_ref(vctx_t *c, const json_t *v)
{
    return (json_is_string(v) && conf_path_valid(json_string_value(v))) ||
           refuse(c, false, "must name a list variable such as \"tools\" or \"pins\"");
}

static bool v_for_each(vctx_t *c, const json_t *v)
{
    static const char *const keys[] = {"in", "as", "where", "steps", NULL};
    if (!json_is_object(v))
        return refuse(c, false, "must be an object {\"in\", \"as\", \"steps\"}");
    return only_keys(c, v, keys, "for_each") && member(c, v, "in", true, v_ref) &&
           member(c, v, "as", true, v_ident) && member(c, v, "where", false, v_template) &&
           member(c, v, "steps", true, v_steps);
}

/* ---------------------------------------------------------------- steps */

enum { K_ID = 1, K_NOTIF = 2, K_EXPECT = 4, K_CAPTURE = 8, K_TIMEOUT = 16 };

typedef struct action {
    const char *name;
    check_fn check;
    unsigned extra; /* K_* keys allowed beside the action (comment always is) */
} action_t;

static const action_t actions[] = {
    {"send", v_send, K_ID | K_NOTIF | K_EXPECT | K_CAPTURE | K_TIMEOUT},
    {"send_json", v_any, K_EXPECT | K_CAPTURE | K_TIMEOUT},
    {"send_raw", v_raw, K_EXPECT | K_CAPTURE | K_TIMEOUT},
    {"http", v_http, K_EXPECT | K_CAPTURE | K_TIMEOUT},
    {"expect_notification", v_template, K_CAPTURE | K_TIMEOUT},
    {"expect_silence", v_silence, 0},
    {"control", v_control, K_EXPECT | K_CAPTURE | K_TIMEOUT},
    {"wait", v_ms, 0},
    {"repeat", v_repeat, 0},
    {"for_each", v_for_each, 0},
    {"set", v_set, 0},
    {"assert", v_assert, 0},
};

static const struct {
    const char *key;
    unsigned bit;
    check_fn check;
} extras[] = {
    {"id", K_ID, v_id},
    {"notification", K_NOTIF, v_bool},
    {"expect", K_EXPECT, v_template},
    {"capture", K_CAPTURE, v_capture},
    {"timeout_ms", K_TIMEOUT, v_positive},
};

#define N_ACTIONS (sizeof actions / sizeof actions[0])
#define N_EXTRAS (sizeof extras / sizeof extras[0])

/* The one action key of a step, or NULL if it has none; *bad (after refusing) if several. */
static const action_t *step_action(vctx_t *c, const json_t *step, bool *bad)
{
    *bad = false;
    const action_t *found = NULL;
    for (size_t i = 0; i < N_ACTIONS; i++) {
        if (!json_object_get(step, actions[i].name)) continue;
        if (found) {
            conf_path_push_key(&c->path, actions[i].name);
            refuse(c, true, "a step has one action; this one has both \"%s\" and \"%s\"",
                   found->name, actions[i].name);
            *bad = true;
            return NULL;
        }
        found = &actions[i];
    }
    return found;
}

/* The keys a step may hold beside its action, as a NULL-terminated list. */
static void allowed_keys(const action_t *a, const char **out)
{
    size_t n = 0;
    if (a) out[n++] = a->name;
    out[n++] = "comment";
    for (size_t i = 0; i < N_EXTRAS; i++)
        if (a ? (a->extra & extras[i].bit) : (extras[i].bit & (K_EXPECT | K_CAPTURE | K_TIMEOUT)))
            out[n++] = extras[i].key;
    out[n] = NULL;
}

static bool v_step(vctx_t *c, const json_t *step)
{
    if (!json_is_object(step)) return refuse(c, false, "a step must be an object");
    bool bad;
    const action_t *a = step_action(c, step, &bad);
    if (bad) return false;
    if (!a && json_object_get(step, "expect") == NULL) {
        static const char *const names[] = {
            "send",           "send_json", "send_raw", "http",   "expect",   "expect_notification",
            "expect_silence", "control",   "wait",     "repeat", "for_each", "set",
            "assert",         NULL};
        if (!only_keys(c, step, names, "a step")) return false;
        return refuse(c, false,
                      "a step needs an action: send, send_json, send_raw, http, expect, "
                      "expect_notification, expect_silence, control, wait, repeat, "
                      "for_each, set or assert");
    }
    const char *allowed[N_EXTRAS + 3];
    allowed_keys(a, allowed);
    char what[64];
    snprintf(what, sizeof what, "a %s step", a ? a->name : "expect");
    if (!only_keys(c, step, allowed, what)) return false;
    if (a && !member(c, step, a->name, true, a->check)) return false;
    for (size_t i = 0; i < N_EXTRAS; i++)
        if (!member(c, step, extras[i].key, false, extras[i].check)) return false;
    if (!member(c, step, "comment", false, v_string)) return false;
    if (json_is_true(json_object_get(step, "notification")) && json_object_get(step, "expect")) {
        conf_path_push_key(&c->path, "expect");
        return refuse(c, true,
                      "a notification gets no response: drop \"expect\" or "
                      "\"notification\"");
    }
    if (json_object_get(step, "id") && json_is_true(json_object_get(step, "notification"))) {
        conf_path_push_key(&c->path, "id");
        return refuse(c, true, "a notification has no id");
    }
    return true;
}

static bool v_steps(vctx_t *c, const json_t *v)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return refuse(c, false, "must be a non-empty list of steps");
    for (size_t i = 0; i < json_array_size(v); i++) {
        conf_path_push_index(&c->path, i);
        if (!v_step(c, json_array_get(v, i))) return false;
        conf_path_pop(&c->path);
    }
    return true;
}

/* ---------------------------------------------------------------- scenarios and suites */

/* Union of two string lists (a first), a new array. */
static json_t *union_lists(const json_t *a, const json_t *b)
{
    json_t *out = json_array();
    const json_t *lists[2] = {a, b};
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < json_array_size(lists[l]); i++) {
            const json_t *e = json_array_get(lists[l], i);
            bool dup = false;
            for (size_t k = 0; k < json_array_size(out) && !dup; k++)
                dup = json_equal(json_array_get(out, k), (json_t *)e);
            if (!dup) json_array_append(out, (json_t *)e);
        }
    }
    return out;
}

/* The suite's requires with the scenario's on top: lists are joined, other keys replaced. */
static json_t *merge_requires(const json_t *suite, const json_t *own)
{
    json_t *out = suite ? json_deep_copy(suite) : json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)own, key, v)
    {
        json_t *mine = json_object_get(out, key);
        if (json_is_array(v) && json_is_array(mine))
            json_object_set_new(out, key, union_lists(mine, v));
        else
            json_object_set(out, key, v);
    }
    return out;
}

typedef struct suite_info {
    const char *name; /* NULL for a file holding one scenario */
    const json_t *tags, *requires, *timeout, *source, *level;
} suite_info_t;

static conf_scenario_t *v_scenario(vctx_t *c, const json_t *obj, const suite_info_t *suite,
                                   const conf_library_t *lib, const conf_library_t *pending)
{
    static const char *const in_suite[] = {"name",       "description", "tags",  "requires",
                                           "timeout_ms", "source",      "level", "steps",
                                           NULL};
    static const char *const alone[] = {"format",     "name",   "description", "tags", "requires",
                                        "timeout_ms", "source", "level",       "steps", NULL};
    if (!json_is_object(obj)) return refuse(c, false, "a scenario must be an object"), NULL;
    c->uses_control = c->uses_raw = c->uses_http = false;
    json_decref(c->ctl_methods);
    c->ctl_methods = json_array();
    if (!only_keys(c, obj, suite->name ? in_suite : alone, "a scenario") ||
        !member(c, obj, "name", true, v_name) || !member(c, obj, "description", true, v_text) ||
        !member(c, obj, "tags", false, v_strings) ||
        !member(c, obj, "requires", false, v_requires) ||
        !member(c, obj, "timeout_ms", false, v_positive) ||
        !member(c, obj, "source", false, v_text) || !member(c, obj, "level", false, v_level) ||
        !member(c, obj, "steps", true, v_steps))
        return NULL;
    const json_t *source = json_object_get(obj, "source"), *level = json_object_get(obj, "level");
    if (!source) source = suite->source;
    if (!level) level = suite->level;
    if (!source || !level) {
        refuse(c, false,
               "scenario \"%s\" does not say %s: give \"source\" (the rule it checks, e.g. "
               "\"jsonrpc-2.0 §5\") and \"level\" (must, should or extension) to it or its "
               "suite",
               json_string_value(json_object_get(obj, "name")),
               !source && !level ? "its source and level" : !source ? "its source" : "its level");
        return NULL;
    }
    conf_scenario_t *sc = conf_scenario_new();
    sc->source = conf_strdup(json_string_value(source));
    sc->level = (conf_level_t)conf_level_parse(json_string_value(level));
    const char *own = json_string_value(json_object_get(obj, "name"));
    sc->name = suite->name ? conf_asprintf("%s/%s", suite->name, own) : conf_strdup(own);
    sc->description = conf_strdup(json_string_value(json_object_get(obj, "description")));
    sc->file = conf_strdup(c->file);
    conf_jpos_locate(c->text, c->len, &c->path, false, &sc->line, &sc->col);
    json_decref(sc->tags);
    sc->tags = union_lists(suite->tags, json_object_get(obj, "tags"));
    json_decref(sc->requires);
    sc->requires = merge_requires(suite->requires, json_object_get(obj, "requires"));
    json_decref(sc->steps);
    sc->steps = json_deep_copy(json_object_get(obj, "steps"));
    const json_t *t = json_object_get(obj, "timeout_ms");
    if (!t) t = suite->timeout;
    if (t) sc->timeout_ms = (int)json_integer_value(t);
    sc->needs_stream = c->uses_raw;
    sc->needs_http = c->uses_http;
    sc->needs_control = json_is_true(json_object_get(sc->requires, "control"));
    sc->control_methods = json_incref(c->ctl_methods);
    if (c->uses_control && !sc->needs_control) {
        conf_path_push_key(&c->path, "steps");
        refuse(c, true,
               "scenario \"%s\" has control steps but does not require the control "
               "channel: add \"control\": true to its \"requires\"",
               sc->name);
        return conf_scenario_free(sc), NULL;
    }
    const conf_scenario_t *dup = library_find(lib, sc->name);
    if (!dup) dup = library_find(pending, sc->name);
    if (dup) {
        conf_path_push_key(&c->path, "name");
        refuse(c, false, "scenario name \"%s\" is already used (%s:%d:%d)", sc->name, dup->file,
               dup->line, dup->col);
        return conf_scenario_free(sc), NULL;
    }
    return sc;
}

static bool v_suite(vctx_t *c, const json_t *root, const conf_library_t *lib, conf_library_t *out)
{
    static const char *const keys[] = {"format",     "suite",  "description", "tags",      "requires",
                                       "timeout_ms", "source", "level",       "scenarios", NULL};
    if (!only_keys(c, root, keys, "a suite") || !member(c, root, "format", true, v_format) ||
        !member(c, root, "source", false, v_text) || !member(c, root, "level", false, v_level) ||
        !member(c, root, "suite", true, v_name) || !member(c, root, "description", false, v_text) ||
        !member(c, root, "tags", false, v_strings) ||
        !member(c, root, "requires", false, v_requires) ||
        !member(c, root, "timeout_ms", false, v_positive))
        return false;
    const json_t *list = json_object_get(root, "scenarios");
    conf_path_push_key(&c->path, "scenarios");
    if (!json_is_array(list) || json_array_size(list) == 0)
        return refuse(c, false, "must be a non-empty list of scenarios");
    suite_info_t s = {json_string_value(json_object_get(root, "suite")),
                      json_object_get(root, "tags"), json_object_get(root, "requires"),
                      json_object_get(root, "timeout_ms"), json_object_get(root, "source"),
                      json_object_get(root, "level")};
    for (size_t i = 0; i < json_array_size(list); i++) {
        conf_path_push_index(&c->path, i);
        conf_scenario_t *sc = v_scenario(c, json_array_get(list, i), &s, lib, out);
        if (!sc) return false;
        conf_library_add(out, sc);
        conf_path_pop(&c->path);
    }
    return true;
}

static bool v_root(vctx_t *c, const json_t *root, const conf_library_t *lib, conf_library_t *out)
{
    if (!json_is_object(root))
        return refuse(c, false,
                      "a scenario file holds an object: one scenario (with \"steps\") "
                      "or a suite (with \"scenarios\")");
    if (json_object_get(root, "scenarios") || json_object_get(root, "suite"))
        return v_suite(c, root, lib, out);
    if (!member(c, root, "format", true, v_format)) return false;
    suite_info_t none = {NULL, NULL, NULL, NULL, NULL, NULL};
    conf_scenario_t *sc = v_scenario(c, root, &none, lib, out);
    if (!sc) return false;
    conf_library_add(out, sc);
    return true;
}

/* ---------------------------------------------------------------- loading */

int conf_load_text(conf_library_t *lib, const char *file, const char *text, size_t len, char *err,
                   size_t cap)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!root) {
        snprintf(err, cap, "%s:%d:%d: %s", file, je.line, je.column, je.text);
        return -1;
    }
    vctx_t c;
    memset(&c, 0, sizeof c);
    c.file = file;
    c.text = text;
    c.len = len;
    c.err = err;
    c.cap = cap;
    err[0] = 0;
    conf_library_t added;
    conf_library_init(&added);
    bool ok = v_root(&c, root, lib, &added);
    json_decref(c.ctl_methods);
    json_decref(root);
    for (size_t i = 0; i < added.count; i++) {
        if (ok)
            conf_library_add(lib, added.items[i]);
        else
            conf_scenario_free(added.items[i]);
    }
    free(added.items);
    return ok ? 0 : -1;
}

int conf_load_file(conf_library_t *lib, const char *path, char *err, size_t cap)
{
    size_t len;
    char *text = conf_read_file(path, &len, err, cap);
    if (!text) return -1;
    int rc = conf_load_text(lib, path, text, len, err, cap);
    free(text);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int conf_load_path(conf_library_t *lib, const char *path, conf_buf_t *errors)
{
    struct stat st;
    char err[1024];
    if (stat(path, &st) != 0) {
        conf_buf_addf(errors, "%s: no such file or directory\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (conf_load_file(lib, path, err, sizeof err) == 0) return 0;
        conf_buf_addf(errors, "%s\n", err);
        return 1;
    }
    DIR *d = opendir(path);
    if (!d) {
        conf_buf_addf(errors, "%s: cannot open directory\n", path);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        names = conf_xrealloc(names, (n + 1) * sizeof *names);
        names[n++] = conf_asprintf("%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n > 0) qsort(names, n, sizeof *names, name_cmp); /* qsort(NULL, 0) is undefined */
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat sub;
        bool scenario_file = ends_with(names[i], ".json") && !ends_with(names[i], ".schema.json");
        if (stat(names[i], &sub) == 0 && (S_ISDIR(sub.st_mode) || scenario_file))
            bad += conf_load_path(lib, names[i], errors);
        free(names[i]);
    }
    free(names);
    return bad;
}
