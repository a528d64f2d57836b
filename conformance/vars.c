/* vars.c: scenario variables, "${name.path}" substitution and paths into JSON values. */
#include "vars.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void conf_vars_init(conf_vars_t *v, const conf_vars_t *parent)
{
    v->obj = json_object();
    v->parent = parent;
}

void conf_vars_free(conf_vars_t *v)
{
    json_decref(v->obj);
    v->obj = NULL;
}

void conf_vars_set(conf_vars_t *v, const char *name, json_t *value)
{
    json_object_set_new(v->obj, name, value ? value : json_null());
}

/* ---------------------------------------------------------------- paths */

/* Reads a key (up to '.', '[' or end) at *s into key[cap]; false if empty or too long. */
static bool read_key(const char **s, char *key, size_t cap)
{
    size_t n = strcspn(*s, ".[");
    if (n == 0 || n >= cap) return false;
    memcpy(key, *s, n);
    key[n] = 0;
    *s += n;
    return true;
}

/* Reads "[N]" at *s; false if malformed. */
static bool read_index(const char **s, size_t *index)
{
    const char *p = *s + 1;
    if (!isdigit((unsigned char)*p)) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno != 0 || *end != ']') return false;
    *index = (size_t)v;
    *s = end + 1;
    return true;
}

/* Walks path from root; when check_only, only the syntax counts (root may be NULL). */
static const json_t *walk(const json_t *root, const char *path, bool check_only, bool *ok)
{
    const char *s = path;
    const json_t *cur = root;
    char key[256];
    *ok = true;
    bool first = true;
    while (*s) {
        if (*s == '[') {
            size_t i;
            if (!read_index(&s, &i)) return (*ok = false, NULL);
            cur = check_only ? cur : json_array_get(cur, i);
        } else {
            if (!first) {
                if (*s != '.') return (*ok = false, NULL);
                s++;
            }
            if (!read_key(&s, key, sizeof key)) return (*ok = false, NULL);
            cur = check_only ? cur : json_object_get(cur, key);
        }
        first = false;
        if (!check_only && !cur) return NULL;
    }
    return cur;
}

const json_t *conf_json_at(const json_t *root, const char *path)
{
    bool ok;
    const json_t *v = walk(root, path, false, &ok);
    return ok ? v : NULL;
}

bool conf_path_valid(const char *path)
{
    bool ok;
    walk(NULL, path, true, &ok);
    return ok;
}

const json_t *conf_vars_get(const conf_vars_t *v, const char *ref)
{
    char name[128];
    size_t n = strcspn(ref, ".[");
    if (n == 0 || n >= sizeof name) return NULL;
    memcpy(name, ref, n);
    name[n] = 0;
    for (const conf_vars_t *scope = v; scope; scope = scope->parent) {
        const json_t *base = json_object_get(scope->obj, name);
        if (!base) continue;
        const char *rest = ref + n;
        if (*rest == '.') rest++;
        return conf_json_at(base, rest);
    }
    return NULL;
}

/* ---------------------------------------------------------------- substitution */

/* Evaluates the text between "${" and "}" (expr[len]); a new reference or NULL with err. */
static json_t *eval(const conf_vars_t *v, const char *expr, size_t len, char *err, size_t cap)
{
    char ref[256];
    if (len == 0 || len >= sizeof ref) {
        snprintf(err, cap, "bad variable reference \"${%.*s}\"", (int)len, expr);
        return NULL;
    }
    memcpy(ref, expr, len);
    ref[len] = 0;
    char *op = NULL; /* the '+' or '-' of a trailing "+N" / "-N", if any */
    for (char *q = ref + strlen(ref); q > ref && q[-1] >= '0' && q[-1] <= '9'; q--)
        if (q - 1 > ref && (q[-2] == '+' || q[-2] == '-')) op = q - 2;
    long long delta = 0;
    if (op) {
        char *end;
        errno = 0;
        delta = strtoll(op + 1, &end, 10);
        if (errno != 0 || *end != 0 || end == op + 1) {
            snprintf(err, cap, "bad expression \"${%s}\": expected ${name+N} or ${name-N}", ref);
            return NULL;
        }
        if (*op == '-') delta = -delta;
        *op = 0;
    }
    const json_t *val = conf_vars_get(v, ref);
    if (!val) {
        snprintf(err, cap, "unknown variable \"%s\"", ref);
        return NULL;
    }
    if (!op) return json_deep_copy(val);
    if (!json_is_integer(val)) {
        snprintf(err, cap, "\"%s\" is %s, not an integer, in \"${%.*s}\"", ref,
                 conf_json_type_name(val), (int)len, expr);
        return NULL;
    }
    return json_integer(json_integer_value(val) + delta);
}

static json_t *subst_string(const conf_vars_t *v, const json_t *str, char *err, size_t cap)
{
    const char *s = json_string_value(str);
    size_t n = json_string_length(str);
    const char *open = strstr(s, "${");
    if (!open) return json_deep_copy(str);
    const char *close = strchr(open, '}');
    if (open == s && close == s + n - 1) return eval(v, s + 2, n - 3, err, cap);
    conf_buf_t out = {0};
    for (size_t i = 0; i < n;) {
        if (s[i] == '$' && i + 2 < n && s[i + 1] == '$' && s[i + 2] == '{') {
            conf_buf_add(&out, "${", 2);
            i += 3;
        } else if (s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
            const char *end = memchr(s + i, '}', n - i);
            json_t *val = end ? eval(v, s + i + 2, (size_t)(end - s - i - 2), err, cap) : NULL;
            if (!end) snprintf(err, cap, "unterminated \"${\" in \"%s\"", s);
            if (!val) {
                conf_buf_free(&out);
                return NULL;
            }
            char *text =
                json_is_string(val) ? conf_strdup(json_string_value(val)) : conf_json_text(val);
            conf_buf_adds(&out, text);
            free(text);
            json_decref(val);
            i = (size_t)(end - s) + 1;
        } else {
            conf_buf_add(&out, s + i, 1);
            i++;
        }
    }
    json_t *res = json_stringn(conf_buf_str(&out), out.len);
    conf_buf_free(&out);
    return res;
}

json_t *conf_vars_subst(const conf_vars_t *v, const json_t *tmpl, char *err, size_t cap)
{
    if (json_is_string(tmpl)) return subst_string(v, tmpl, err, cap);
    if (json_is_array(tmpl)) {
        json_t *out = json_array();
        for (size_t i = 0; i < json_array_size(tmpl); i++) {
            json_t *e = conf_vars_subst(v, json_array_get(tmpl, i), err, cap);
            if (!e) return json_decref(out), NULL;
            json_array_append_new(out, e);
        }
        return out;
    }
    if (json_is_object(tmpl)) {
        json_t *out = json_object();
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)tmpl, key, val)
        {
            json_t *k = NULL;
            if (strstr(key, "${")) { /* keys are substituted too, as text */
                json_t *kt = json_string(key);
                k = subst_string(v, kt, err, cap);
                json_decref(kt);
                if (!k) return json_decref(out), NULL;
                if (!json_is_string(k)) {
                    char *text = conf_json_text(k);
                    json_decref(k);
                    k = json_string(text);
                    free(text);
                }
            }
            json_t *e = conf_vars_subst(v, val, err, cap);
            if (!e) return json_decref(k), json_decref(out), NULL;
            json_object_set_new(out, k ? json_string_value(k) : key, e);
            json_decref(k);
        }
        return out;
    }
    return json_deep_copy(tmpl);
}
