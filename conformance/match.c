/* match.c: matching a received JSON value against a scenario's expected template. */
#include "match.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

typedef struct mpath {
    char buf[512];
    size_t len;
} mpath_t;

static size_t mpath_key(mpath_t *p, const char *key)
{
    size_t old = p->len;
    int n = snprintf(p->buf + p->len, sizeof p->buf - p->len, ".%s", key);
    if (n > 0) p->len += (size_t)n < sizeof p->buf - p->len ? (size_t)n : 0;
    return old;
}

static size_t mpath_index(mpath_t *p, size_t i)
{
    size_t old = p->len;
    int n = snprintf(p->buf + p->len, sizeof p->buf - p->len, "[%zu]", i);
    if (n > 0) p->len += (size_t)n < sizeof p->buf - p->len ? (size_t)n : 0;
    return old;
}

static void mpath_restore(mpath_t *p, size_t len)
{
    p->len = len;
    p->buf[len] = 0;
}

/* A value for a message: compact JSON, cut at 160 characters. */
static void add_value(conf_buf_t *b, const json_t *v)
{
    if (!b) return;
    if (!v) {
        conf_buf_adds(b, "nothing (missing)");
        return;
    }
    char *s = conf_json_text(v);
    size_t n = strlen(s);
    if (n > 160) {
        conf_buf_add(b, s, 157);
        conf_buf_adds(b, "...");
    } else {
        conf_buf_add(b, s, n);
    }
    free(s);
}

static bool fail(conf_buf_t *why, const mpath_t *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(conf_buf_t *why, const mpath_t *p, const char *fmt, ...)
{
    if (!why) return false;
    va_list ap;
    conf_buf_addf(why, "at %s: ", p->buf);
    va_start(ap, fmt);
    conf_buf_vaddf(why, fmt, ap);
    va_end(ap);
    return false;
}

/* "expected E, got A" */
static bool fail_values(conf_buf_t *why, const mpath_t *p, const char *what, const json_t *e,
                        const json_t *a)
{
    if (!why) return false;
    conf_buf_addf(why, "at %s: expected %s", p->buf, what);
    if (e) add_value(why, e);
    conf_buf_adds(why, ", got ");
    add_value(why, a);
    return false;
}

static bool is_number(const json_t *v)
{
    return json_is_integer(v) || json_is_real(v);
}

static bool numbers_equal(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b))
        return json_integer_value(a) == json_integer_value(b);
    return json_number_value(a) == json_number_value(b);
}

bool conf_is_matcher(const json_t *v)
{
    return json_is_object(v) && json_object_get(v, "$match") != NULL;
}

static bool is_absent(const json_t *v)
{
    const json_t *m = json_is_object(v) ? json_object_get(v, "$match") : NULL;
    return json_is_string(m) && strcmp(json_string_value(m), "absent") == 0;
}

static bool match_at(const json_t *e, const json_t *a, mpath_t *p, conf_buf_t *why);

/* ---------------------------------------------------------------- structural matching */

static bool subset_object(const json_t *e, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    if (!json_is_object(a)) return fail_values(why, p, "an object", NULL, a);
    const char *key;
    const json_t *ev;
    json_object_foreach((json_t *)e, key, ev)
    {
        const json_t *av = json_object_get(a, key);
        size_t mark = mpath_key(p, key);
        bool ok;
        if (is_absent(ev))
            ok = av == NULL || fail_values(why, p, "no such member", NULL, av);
        else if (!av && !conf_is_matcher(ev))
            ok = fail_values(why, p, "", ev, NULL);
        else
            ok = match_at(ev, av, p, why);
        mpath_restore(p, mark);
        if (!ok) return false;
    }
    return true;
}

static bool match_array(const json_t *e, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    if (!json_is_array(a)) return fail_values(why, p, "an array", NULL, a);
    if (json_array_size(a) != json_array_size(e))
        return fail(why, p, "expected an array of %zu items, got %zu: ", json_array_size(e),
                    json_array_size(a)) ||
               (add_value(why, a), false);
    for (size_t i = 0; i < json_array_size(e); i++) {
        size_t mark = mpath_index(p, i);
        bool ok = match_at(json_array_get(e, i), json_array_get(a, i), p, why);
        mpath_restore(p, mark);
        if (!ok) return false;
    }
    return true;
}

static bool match_scalar(const json_t *e, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    bool ok;
    if (!a)
        ok = false;
    else if (is_number(e))
        ok = is_number(a) && numbers_equal(e, a);
    else if (json_is_string(e))
        ok = json_is_string(a) && json_string_length(a) == json_string_length(e) &&
             memcmp(json_string_value(a), json_string_value(e), json_string_length(e)) == 0;
    else
        ok = json_typeof(e) == json_typeof(a);
    return ok || fail_values(why, p, "", e, a);
}

/* Deep equality with numeric comparison of numbers; no extra members. */
static bool exact_equal(const json_t *e, const json_t *a)
{
    if (is_number(e)) return is_number(a) && numbers_equal(e, a);
    if (!a || json_typeof(e) != json_typeof(a)) return false;
    if (json_is_array(e)) {
        if (json_array_size(e) != json_array_size(a)) return false;
        for (size_t i = 0; i < json_array_size(e); i++)
            if (!exact_equal(json_array_get(e, i), json_array_get(a, i))) return false;
        return true;
    }
    if (json_is_object(e)) {
        if (json_object_size(e) != json_object_size(a)) return false;
        const char *key;
        const json_t *ev;
        json_object_foreach((json_t *)e, key,
                            ev) if (!exact_equal(ev, json_object_get(a, key))) return false;
        return true;
    }
    return json_equal((json_t *)e, (json_t *)a);
}

/* ---------------------------------------------------------------- matchers */

static bool type_is(const json_t *a, const char *t)
{
    if (strcmp(t, "number") == 0) return is_number(a);
    return strcmp(conf_json_type_name(a), t) == 0;
}

static bool m_type(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    const json_t *t = json_object_get(m, "type");
    if (json_is_string(t)) {
        if (type_is(a, json_string_value(t))) return true;
        return fail(why, p, "expected a value of type %s, got %s ", json_string_value(t),
                    conf_json_type_name(a)) ||
               (add_value(why, a), false);
    }
    size_t i;
    const json_t *one;
    json_array_foreach(t, i, one) if (type_is(a, json_string_value(one))) return true;
    char *types = conf_json_text(t);
    fail(why, p, "expected a value of one of the types %s, got %s ", types, conf_json_type_name(a));
    free(types);
    add_value(why, a);
    return false;
}

static bool m_regex(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    const char *pattern = json_string_value(json_object_get(m, "pattern"));
    regex_t re;
    if (!json_is_string(a)) {
        fail(why, p, "expected a string matching /%s/, got ", pattern ? pattern : "");
        add_value(why, a);
        return false;
    }
    if (!pattern || regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return fail(why, p, "invalid regular expression /%s/", pattern ? pattern : "");
    bool ok = regexec(&re, json_string_value(a), 0, NULL, 0) == 0;
    regfree(&re);
    if (ok) return true;
    fail(why, p, "expected a string matching /%s/, got ", pattern);
    add_value(why, a);
    return false;
}

static void add_bound(conf_buf_t *b, const json_t *v, const char *none)
{
    if (v)
        add_value(b, v);
    else
        conf_buf_adds(b, none);
}

static bool m_range(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    const json_t *lo = json_object_get(m, "min"), *hi = json_object_get(m, "max");
    bool ok = is_number(a) && (!lo || json_number_value(a) >= json_number_value(lo)) &&
              (!hi || json_number_value(a) <= json_number_value(hi));
    if (json_is_integer(a) && json_is_integer(lo))
        ok = ok && json_integer_value(a) >= json_integer_value(lo);
    if (json_is_integer(a) && json_is_integer(hi))
        ok = ok && json_integer_value(a) <= json_integer_value(hi);
    if (ok || !why) return ok;
    conf_buf_addf(why, "at %s: expected a number in [", p->buf);
    add_bound(why, lo, "-inf");
    conf_buf_adds(why, ", ");
    add_bound(why, hi, "+inf");
    conf_buf_adds(why, "], got ");
    add_value(why, a);
    return false;
}

static bool m_approximate(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    double want = json_number_value(json_object_get(m, "value"));
    double tol = json_number_value(json_object_get(m, "tolerance"));
    /* a hair of slack so that 1.66 is within 0.01 of 1.65 despite binary fractions */
    double slack = 1e-9 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
    if (is_number(a) && fabs(json_number_value(a) - want) <= tol + slack) return true;
    if (!why) return false;
    conf_buf_addf(why, "at %s: expected %.15g +/- %.15g, got ", p->buf, want, tol);
    add_value(why, a);
    return false;
}

static size_t utf8_len(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) chars += ((unsigned char)s[i] & 0xC0u) != 0x80u;
    return chars;
}

static bool m_length(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    json_int_t n;
    if (json_is_string(a))
        n = (json_int_t)utf8_len(json_string_value(a), json_string_length(a));
    else if (json_is_array(a))
        n = (json_int_t)json_array_size(a);
    else if (json_is_object(a))
        n = (json_int_t)json_object_size(a);
    else
        return fail_values(why, p, "a string, array or object", NULL, a);
    const json_t *exact = json_object_get(m, "value");
    const json_t *lo = json_object_get(m, "min"), *hi = json_object_get(m, "max");
    if (exact && n == json_integer_value(exact)) return true;
    if (!exact && (!lo || n >= json_integer_value(lo)) && (!hi || n <= json_integer_value(hi)))
        return true;
    if (!why) return false;
    if (exact) {
        conf_buf_addf(why, "at %s: expected length %lld, got %lld: ", p->buf,
                      (long long)json_integer_value(exact), (long long)n);
    } else {
        conf_buf_addf(why, "at %s: expected length in [", p->buf);
        add_bound(why, lo, "0");
        conf_buf_adds(why, ", ");
        add_bound(why, hi, "+inf");
        conf_buf_addf(why, "], got %lld: ", (long long)n);
    }
    add_value(why, a);
    return false;
}

static bool m_contains(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    const json_t *want = json_object_get(m, "value");
    if (json_is_string(a) && json_is_string(want)) {
        if (strstr(json_string_value(a), json_string_value(want))) return true;
        return fail_values(why, p, "a string containing ", want, a);
    }
    if (!json_is_array(a)) return fail_values(why, p, "an array containing ", want, a);
    for (size_t i = 0; i < json_array_size(a); i++) {
        size_t mark = mpath_index(p, i);
        bool ok = match_at(want, json_array_get(a, i), p, NULL);
        mpath_restore(p, mark);
        if (ok) return true;
    }
    return fail_values(why, p, "an array with an element matching ", want, a);
}

static bool m_all(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    size_t i;
    const json_t *one;
    json_array_foreach(json_object_get(m, "of"), i,
                       one) if (!match_at(one, a, p, why)) return false;
    return true;
}

/* one_of / anyOf: also for a missing member (a NULL), so that {"$match": "absent"} can be one of
   the alternatives. */
static bool m_one_of(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    size_t i;
    const json_t *one, *of = json_object_get(m, "of");
    json_array_foreach(of, i, one) if ((a || conf_is_matcher(one)) && match_at(one, a, p, NULL)) return true;
    return fail_values(why, p, "one of ", of, a);
}

static bool m_subset(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    return match_at(json_object_get(m, "value"), a, p, why);
}

static bool m_exact(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    const json_t *want = json_object_get(m, "value");
    return exact_equal(want, a) || fail_values(why, p, "exactly ", want, a);
}

static bool m_absent(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    (void)m;
    return a == NULL || fail_values(why, p, "nothing (absent)", NULL, a);
}

static bool m_any(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    (void)m;
    return a != NULL || fail(why, p, "expected a value, got nothing (missing)");
}

/* ---------------------------------------------------------------- the matcher table */

typedef bool (*matcher_fn)(const json_t *m, const json_t *a, mpath_t *p, conf_buf_t *why);

/* Parameter kinds checked at load. */
enum { P_ANY = 1, P_NUM = 2, P_INT = 4, P_STR = 8, P_TYPES = 16, P_TEMPLATES = 32, P_TMPL = 64 };

typedef struct param_spec {
    const char *key;
    unsigned kind;
    bool required;
} param_spec_t;

typedef struct matcher_def {
    const char *name;
    matcher_fn fn;
    param_spec_t params[3];
} matcher_def_t;

static const matcher_def_t matchers[] = {
    {"subset", m_subset, {{"value", P_TMPL, true}}},
    {"exact", m_exact, {{"value", P_ANY, true}}},
    {"type", m_type, {{"type", P_TYPES, true}}},
    {"regex", m_regex, {{"pattern", P_STR, true}}},
    {"range", m_range, {{"min", P_NUM, false}, {"max", P_NUM, false}}},
    {"approximate", m_approximate, {{"value", P_NUM, true}, {"tolerance", P_NUM, true}}},
    {"length", m_length, {{"value", P_INT, false}, {"min", P_INT, false}, {"max", P_INT, false}}},
    {"contains", m_contains, {{"value", P_TMPL, true}}},
    {"absent", m_absent, {{NULL, 0, false}}},
    {"any", m_any, {{NULL, 0, false}}},
    {"all", m_all, {{"of", P_TEMPLATES, true}}},
    {"one_of", m_one_of, {{"of", P_TEMPLATES, true}}},
    {"anyOf", m_one_of, {{"of", P_TEMPLATES, true}}}, /* the same: where a spec allows several */
};

static const matcher_def_t *find_matcher(const char *name)
{
    for (size_t i = 0; i < sizeof matchers / sizeof matchers[0]; i++)
        if (strcmp(matchers[i].name, name) == 0) return &matchers[i];
    return NULL;
}

static bool match_at(const json_t *e, const json_t *a, mpath_t *p, conf_buf_t *why)
{
    if (conf_is_matcher(e)) {
        const matcher_def_t *d = find_matcher(json_string_value(json_object_get(e, "$match")));
        if (!d) return fail(why, p, "unknown matcher");
        if (!a && d->fn != m_absent && d->fn != m_any && d->fn != m_one_of)
            return fail(why, p, "expected a value (%s matcher), got nothing (missing)", d->name);
        return d->fn(e, a, p, why);
    }
    if (json_is_object(e)) return a ? subset_object(e, a, p, why) : fail_values(why, p, "", e, a);
    if (json_is_array(e)) return a ? match_array(e, a, p, why) : fail_values(why, p, "", e, a);
    return match_scalar(e, a, p, why);
}

bool conf_match(const json_t *expected, const json_t *actual, const char *root, conf_buf_t *why)
{
    mpath_t p;
    conf_copy(p.buf, sizeof p.buf, root ? root : "$");
    p.len = strlen(p.buf);
    return match_at(expected, actual, &p, why);
}

/* ---------------------------------------------------------------- validation at load */

static bool is_var_ref(const json_t *v)
{
    return json_is_string(v) && strstr(json_string_value(v), "${") != NULL;
}

static const char *const type_names[] = {"null",   "boolean", "integer", "number",
                                         "string", "array",   "object",  NULL};

static bool known_type(const json_t *v)
{
    for (size_t i = 0; json_is_string(v) && type_names[i]; i++)
        if (strcmp(type_names[i], json_string_value(v)) == 0) return true;
    return false;
}

static bool verr(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool verr(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return false;
}

static bool check_types_param(const json_t *v, conf_path_t *p, char *err, size_t cap)
{
    if (json_is_string(v))
        return known_type(v) ||
               verr(err, cap,
                    "unknown type \"%s\" (one of null boolean integer number string "
                    "array object)",
                    json_string_value(v));
    if (!json_is_array(v) || json_array_size(v) == 0)
        return verr(err, cap, "\"type\" must be a type name or a non-empty list of them");
    for (size_t i = 0; i < json_array_size(v); i++) {
        conf_path_push_index(p, i);
        if (!known_type(json_array_get(v, i)))
            return verr(err, cap,
                        "unknown type (one of null boolean integer number string array "
                        "object)");
        conf_path_pop(p);
    }
    return true;
}

static bool check_param(const param_spec_t *ps, const json_t *v, conf_path_t *p, char *err,
                        size_t cap)
{
    if (ps->kind & (P_NUM | P_INT) && is_var_ref(v)) return true;
    switch (ps->kind) {
    case P_NUM:
        return is_number(v) || verr(err, cap, "\"%s\" must be a number", ps->key);
    case P_INT:
        return (json_is_integer(v) && json_integer_value(v) >= 0) ||
               verr(err, cap, "\"%s\" must be an integer >= 0", ps->key);
    case P_STR: {
        if (!json_is_string(v)) return verr(err, cap, "\"%s\" must be a string", ps->key);
        regex_t re;
        if (is_var_ref(v)) return true;
        int rc = regcomp(&re, json_string_value(v), REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &re, msg, sizeof msg);
            return verr(err, cap, "invalid regular expression: %s", msg);
        }
        regfree(&re);
        return true;
    }
    case P_TYPES:
        return check_types_param(v, p, err, cap);
    case P_TEMPLATES:
        if (!json_is_array(v) || json_array_size(v) == 0)
            return verr(err, cap, "\"%s\" must be a non-empty list of templates", ps->key);
        for (size_t i = 0; i < json_array_size(v); i++) {
            conf_path_push_index(p, i);
            if (!conf_match_validate(json_array_get(v, i), p, err, cap)) return false;
            conf_path_pop(p);
        }
        return true;
    case P_TMPL:
        return conf_match_validate(v, p, err, cap);
    default:
        return true;
    }
}

static bool validate_matcher(const json_t *m, conf_path_t *p, char *err, size_t cap)
{
    const json_t *name = json_object_get(m, "$match");
    conf_path_push_key(p, "$match");
    if (!json_is_string(name)) return verr(err, cap, "\"$match\" must be a matcher name");
    const matcher_def_t *d = find_matcher(json_string_value(name));
    if (!d)
        return verr(err, cap,
                    "unknown matcher \"%s\" (subset exact type regex range approximate "
                    "length contains absent any all one_of anyOf)",
                    json_string_value(name));
    conf_path_pop(p);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)m, key, v)
    {
        if (strcmp(key, "$match") == 0) continue;
        const param_spec_t *ps = NULL;
        for (size_t i = 0; i < 3 && d->params[i].key; i++)
            if (strcmp(d->params[i].key, key) == 0) ps = &d->params[i];
        conf_path_push_key(p, key);
        if (!ps) return verr(err, cap, "unknown key \"%s\" in the %s matcher", key, d->name);
        if (!check_param(ps, v, p, err, cap)) return false;
        conf_path_pop(p);
    }
    for (size_t i = 0; i < 3 && d->params[i].key; i++)
        if (d->params[i].required && !json_object_get(m, d->params[i].key))
            return verr(err, cap, "the %s matcher needs \"%s\"", d->name, d->params[i].key);
    if (d->fn == m_range && !json_object_get(m, "min") && !json_object_get(m, "max"))
        return verr(err, cap, "the range matcher needs \"min\", \"max\" or both");
    if (d->fn == m_length && !json_object_get(m, "value") && !json_object_get(m, "min") &&
        !json_object_get(m, "max"))
        return verr(err, cap, "the length matcher needs \"value\", or \"min\" and/or \"max\"");
    return true;
}

bool conf_match_validate(const json_t *tmpl, conf_path_t *p, char *err, size_t cap)
{
    if (conf_is_matcher(tmpl)) return validate_matcher(tmpl, p, err, cap);
    if (json_is_object(tmpl)) {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)tmpl, key, v)
        {
            conf_path_push_key(p, key);
            if (!conf_match_validate(v, p, err, cap)) return false;
            conf_path_pop(p);
        }
    } else if (json_is_array(tmpl)) {
        for (size_t i = 0; i < json_array_size(tmpl); i++) {
            conf_path_push_index(p, i);
            if (!conf_match_validate(json_array_get(tmpl, i), p, err, cap)) return false;
            conf_path_pop(p);
        }
    }
    return true;
}
