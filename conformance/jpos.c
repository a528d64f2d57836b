/* jpos.c: JSON paths and their line:column in the source text (a small re-scan of valid JSON). */
#include "jpos.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

void conf_path_push_key(conf_path_t *p, const char *key)
{
    if (p->n < CONF_PATH_MAX) p->seg[p->n].key = key;
    p->n++;
}

void conf_path_push_index(conf_path_t *p, size_t index)
{
    if (p->n < CONF_PATH_MAX) {
        p->seg[p->n].key = NULL;
        p->seg[p->n].index = index;
    }
    p->n++;
}

void conf_path_pop(conf_path_t *p)
{
    if (p->n > 0) p->n--;
}

void conf_path_format(const conf_path_t *p, const char *prefix, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "%s", prefix ? prefix : "");
    for (size_t i = 0; i < p->n && i < CONF_PATH_MAX && len < cap; i++) {
        const conf_path_seg_t *s = &p->seg[i];
        if (s->key)
            len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "." : "", s->key);
        else
            len += (size_t)snprintf(out + len, cap - len, "[%zu]", s->index);
    }
}

/* ---------------------------------------------------------------- scanning */

typedef struct scan {
    const char *t;
    size_t len, pos;
} scan_t;

static void skip_ws(scan_t *s)
{
    while (s->pos < s->len && strchr(" \t\r\n", s->t[s->pos]) && s->t[s->pos]) s->pos++;
}

/* At a '"': moves past the closing quote. */
static void skip_string(scan_t *s)
{
    s->pos++;
    while (s->pos < s->len && s->t[s->pos] != '"') s->pos += s->t[s->pos] == '\\' ? 2 : 1;
    s->pos++;
}

static void skip_value(scan_t *s)
{
    skip_ws(s);
    if (s->pos >= s->len) return;
    char c = s->t[s->pos];
    if (c == '"') {
        skip_string(s);
    } else if (c == '{' || c == '[') {
        int depth = 0;
        while (s->pos < s->len) {
            c = s->t[s->pos];
            if (c == '"') {
                skip_string(s);
                continue;
            }
            if (c == '{' || c == '[') depth++;
            if (c == '}' || c == ']') depth--;
            s->pos++;
            if (depth == 0) break;
        }
    } else {
        while (s->pos < s->len && !strchr(",}] \t\r\n", s->t[s->pos])) s->pos++;
    }
}

/* Does the string token at s->pos decode to key? (jansson decodes the escapes.) */
static bool key_equals(const scan_t *s, const char *key)
{
    scan_t e = *s;
    skip_string(&e);
    json_t *v = json_loadb(s->t + s->pos, e.pos - s->pos, JSON_DECODE_ANY, NULL);
    bool eq = v && json_is_string(v) && strcmp(json_string_value(v), key) == 0;
    json_decref(v);
    return eq;
}

/* In an object at s->pos ('{'): moves to the key of member `key`; false if there is none. */
static bool find_member(scan_t *s, const char *key)
{
    s->pos++;
    for (;;) {
        skip_ws(s);
        if (s->pos >= s->len || s->t[s->pos] != '"') return false;
        if (key_equals(s, key)) return true;
        skip_string(s);
        skip_ws(s);
        s->pos++; /* ':' */
        skip_value(s);
        skip_ws(s);
        if (s->pos >= s->len || s->t[s->pos] != ',') return false;
        s->pos++;
    }
}

/* In an array at s->pos ('['): moves to element index; false if there is none. */
static bool find_element(scan_t *s, size_t index)
{
    s->pos++;
    for (size_t i = 0;; i++) {
        skip_ws(s);
        if (s->pos >= s->len || s->t[s->pos] == ']') return false;
        if (i == index) return true;
        skip_value(s);
        skip_ws(s);
        if (s->pos >= s->len || s->t[s->pos] != ',') return false;
        s->pos++;
    }
}

/* From a member's key to its value. */
static void key_to_value(scan_t *s)
{
    skip_string(s);
    skip_ws(s);
    s->pos++; /* ':' */
    skip_ws(s);
}

void conf_jpos_line_col(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)text[i] & 0xC0u) != 0x80u) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

bool conf_jpos_locate(const char *text, size_t len, const conf_path_t *path, bool want_key,
                      int *line, int *col)
{
    scan_t s = {text, len, 0};
    size_t found_at;
    bool found = true;
    size_t n = path->n < CONF_PATH_MAX ? path->n : CONF_PATH_MAX;
    skip_ws(&s);
    found_at = s.pos;
    for (size_t i = 0; i < n && found; i++) {
        const conf_path_seg_t *seg = &path->seg[i];
        scan_t probe = s;
        if (seg->key)
            found = probe.pos < len && text[probe.pos] == '{' && find_member(&probe, seg->key);
        else
            found = probe.pos < len && text[probe.pos] == '[' && find_element(&probe, seg->index);
        if (!found) break;
        s = probe;
        if (seg->key && !(want_key && i + 1 == n)) key_to_value(&s);
        found_at = s.pos;
    }
    conf_jpos_line_col(text, found_at, line, col);
    return found;
}
