/* cfg.c: typed, range-checked reading of JSON configuration with path-named errors. */
#include "cfg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sim_cfg_fail(sim_cfg_err_t *e, const char *path, const char *fmt, ...)
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return false;
}

void sim_cfg_printf(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, cap, fmt, ap);
    va_end(ap);
}

/* Appends s to out (length *len, capacity cap), cutting it to fit: a path only words messages. */
static void append(char *out, size_t cap, size_t *len, const char *s)
{
    while (*s && *len + 1 < cap) out[(*len)++] = *s++;
    out[*len] = 0;
}

void sim_cfg_path_key(char *out, size_t cap, const char *path, const char *key)
{
    size_t len = 0;
    if (cap == 0) return;
    out[0] = 0;
    if (path != NULL && path[0] != 0) {
        append(out, cap, &len, path);
        if (key[0] != 0 && key[0] != '[') append(out, cap, &len, ".");
    }
    append(out, cap, &len, key);
}

void sim_cfg_path_index(char *out, size_t cap, const char *path, size_t index)
{
    if (snprintf(out, cap, "%s[%zu]", path ? path : "", index) >= (int)cap && cap > 0)
        out[cap - 1] = 0; /* cut, as sim_cfg_path_key does */
}

void sim_cfg_prefix(sim_cfg_err_t *e, const char *prefix)
{
    char joined[sizeof e->path];
    sim_cfg_path_key(joined, sizeof joined, prefix, e->path);
    memcpy(e->path, joined, sizeof joined);
}

const char *sim_cfg_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

static bool in_list(const char *key, const char *const *names)
{
    for (size_t i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], key) == 0) return true;
    return false;
}

/* "a, b, c" into out. */
static void list_names(char *out, size_t cap, const char *const *names)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; names[i] != NULL && used < cap; i++) {
        int n = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", names[i]);
        if (n < 0) break;
        used += (size_t)n;
    }
}

bool sim_cfg_keys(const json_t *obj, const char *const *allowed, sim_cfg_err_t *e)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value)
    {
        (void)value;
        if (in_list(key, allowed)) continue;
        char names[200];
        list_names(names, sizeof names, allowed);
        sim_cfg_fail(e, key, "unknown key \"%s\" (allowed: %s)", key, names);
        e->at_key = true;
        return false;
    }
    return true;
}

bool sim_cfg_object(const json_t *obj, const char *path, sim_cfg_err_t *e)
{
    if (json_is_object(obj)) return true;
    return sim_cfg_fail(e, path, "must be an object, not %s", sim_cfg_kind(obj));
}

/* The member, or NULL when absent (an error when required). */
static bool member(const json_t *obj, const char *key, bool required, json_t **out,
                   sim_cfg_err_t *e)
{
    *out = json_object_get(obj, key);
    if (*out == NULL && required) return sim_cfg_fail(e, "", "missing required key \"%s\"", key);
    return true;
}

bool sim_cfg_int(const json_t *obj, const char *key, bool required, long long def, long long min,
                 long long max, long long *out, sim_cfg_err_t *e)
{
    json_t *v;
    if (!member(obj, key, required, &v, e)) return false;
    if (v == NULL) {
        *out = def;
        return true;
    }
    if (!json_is_integer(v))
        return sim_cfg_fail(e, key, "must be an integer, not %s", sim_cfg_kind(v));
    long long x = json_integer_value(v);
    if (x < min || x > max)
        return sim_cfg_fail(e, key, "%lld is out of range %lld..%lld", x, min, max);
    *out = x;
    return true;
}

bool sim_cfg_number(const json_t *obj, const char *key, bool required, double def, double min,
                    double max, double *out, sim_cfg_err_t *e)
{
    json_t *v;
    if (!member(obj, key, required, &v, e)) return false;
    if (v == NULL) {
        *out = def;
        return true;
    }
    if (!json_is_number(v))
        return sim_cfg_fail(e, key, "must be a number, not %s", sim_cfg_kind(v));
    double x = json_number_value(v);
    if (!isfinite(x) || x < min || x > max)
        return sim_cfg_fail(e, key, "%g is out of range %g..%g", x, min, max);
    *out = x;
    return true;
}

bool sim_cfg_bool(const json_t *obj, const char *key, bool def, bool *out, sim_cfg_err_t *e)
{
    json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        *out = def;
        return true;
    }
    if (!json_is_boolean(v))
        return sim_cfg_fail(e, key, "must be true or false, not %s", sim_cfg_kind(v));
    *out = json_is_true(v);
    return true;
}

bool sim_cfg_string(const json_t *obj, const char *key, bool required, const char *def,
                    const char **out, sim_cfg_err_t *e)
{
    json_t *v;
    if (!member(obj, key, required, &v, e)) return false;
    if (v == NULL) {
        *out = def;
        return true;
    }
    if (!json_is_string(v))
        return sim_cfg_fail(e, key, "must be a string, not %s", sim_cfg_kind(v));
    *out = json_string_value(v);
    return true;
}

bool sim_cfg_enum(const json_t *obj, const char *key, const char *const *names, int def, int *out,
                  sim_cfg_err_t *e)
{
    const char *s = NULL;
    if (!sim_cfg_string(obj, key, def < 0, NULL, &s, e)) return false;
    if (s == NULL) {
        *out = def;
        return true;
    }
    for (int i = 0; names[i] != NULL; i++) {
        if (strcmp(names[i], s) != 0) continue;
        *out = i;
        return true;
    }
    char list[200];
    list_names(list, sizeof list, names);
    return sim_cfg_fail(e, key, "unknown value \"%s\" (expected one of: %s)", s, list);
}

bool sim_cfg_i2c_addr(const json_t *v, const char *path, int *out, sim_cfg_err_t *e)
{
    long long a = -1;
    if (json_is_integer(v)) {
        a = json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end = NULL;
        bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        a = hex ? strtoll(s + 2, &end, 16) : -1;
        if (!hex || end == s + 2 || *end != 0)
            return sim_cfg_fail(e, path, "\"%s\" is not an address (use 72 or \"0x48\")", s);
    } else {
        return sim_cfg_fail(e, path, "must be an integer or a \"0x..\" string, not %s",
                            sim_cfg_kind(v));
    }
    if (a < 0x08 || a > 0x77)
        return sim_cfg_fail(e, path,
                            "address 0x%02llx is outside 0x08..0x77 (the 7-bit addresses "
                            "I2C does not reserve)",
                            (unsigned long long)a & 0xffffu);
    *out = (int)a;
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static unsigned char *hex_bytes(const char *s, const char *path, size_t *len, sim_cfg_err_t *e)
{
    unsigned char *out = malloc(strlen(s) / 2 + 1);
    size_t n = 0;
    int high = -1;
    if (out == NULL) {
        sim_cfg_fail(e, path, "out of memory");
        return NULL;
    }
    for (size_t i = 0; s[i] != 0; i++) {
        if (s[i] == ' ') continue;
        int d = hex_value(s[i]);
        if (d < 0) {
            free(out);
            sim_cfg_fail(e, path, "character %zu ('%c') is not a hex digit", i, s[i]);
            return NULL;
        }
        if (high < 0)
            high = d;
        else {
            out[n++] = (unsigned char)(high << 4 | d);
            high = -1;
        }
    }
    if (high >= 0) {
        free(out);
        sim_cfg_fail(e, path, "hex text has an odd number of digits");
        return NULL;
    }
    *len = n;
    return out;
}

unsigned char *sim_cfg_bytes(const json_t *v, const char *path, size_t *len, sim_cfg_err_t *e)
{
    if (json_is_string(v)) return hex_bytes(json_string_value(v), path, len, e);
    if (!json_is_array(v)) {
        sim_cfg_fail(e, path, "must be a hex string or an array of integers 0..255, not %s",
                     sim_cfg_kind(v));
        return NULL;
    }
    size_t n = json_array_size(v);
    unsigned char *out = malloc(n + 1);
    if (out == NULL) {
        sim_cfg_fail(e, path, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *b = json_array_get(v, i);
        if (!json_is_integer(b) || json_integer_value(b) < 0 || json_integer_value(b) > 255) {
            free(out);
            char p[sizeof e->path];
            sim_cfg_path_index(p, sizeof p, path, i);
            sim_cfg_fail(e, p, "must be an integer 0..255");
            return NULL;
        }
        out[i] = (unsigned char)json_integer_value(b);
    }
    *len = n;
    return out;
}

char *sim_cfg_hex(const unsigned char *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *out = malloc(n * 2 + 1);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = 0;
    return out;
}

char *sim_cfg_join_path(const char *dir, const char *rel)
{
    bool bare = rel[0] == '/' || dir == NULL || dir[0] == 0;
    size_t n = (bare ? 0 : strlen(dir) + 1) + strlen(rel) + 1;
    char *out = malloc(n);
    if (out == NULL) return NULL;
    if (bare)
        snprintf(out, n, "%s", rel);
    else
        snprintf(out, n, "%s/%s", dir, rel);
    return out;
}

char *sim_cfg_strdup(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 1;
    char *out = malloc(n);
    if (out) memcpy(out, s ? s : "", n);
    return out;
}
