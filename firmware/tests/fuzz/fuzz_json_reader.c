/* fuzz_json_reader.c: fuzz harness of the JSON reader: its invariants, and jansson's verdict. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json_reader_ref.c"
#include "fuzz.h"

/*
 * For every input:
 *  1. Parses with a pool that cannot run out (size + 1 tokens) at depth 16 and at a depth that
 *     cannot be reached; with a pool of 8 tokens, of 0 tokens, of exactly the tokens needed and
 *     of one fewer; and at exactly the document's depth and one less. The verdicts must be
 *     consistent: the same error at the same byte, or NOMEM/DEPTH exactly when a limit is short.
 *  2. On success, checks every token (offsets, pre-order, `next` links, children counts, keys
 *     are strings, flags) and runs every accessor: strings decoded at the exact size and one
 *     byte short, compared with fw_json_str_eq; numbers converted by fw_json_get_i64 (against
 *     strtoll) and fw_json_get_double (against glibc's correctly rounded strtod: at most one
 *     unit in the last place apart, same sign); fw_json_obj_get / fw_json_arr_get for every
 *     member and element.
 *  3. The reference reader (json_reader_ref.c, the specification the tokenizer keeps; the hosted
 *     build's tokenizer is a second implementation of it) must give the same verdict, error
 *     position and tokens, with the pool that cannot run out and at depth 16; and so must
 *     fw_json_parse_padded on a padded copy, whose pad holds bytes that would go on the text.
 *  4. Differential: jansson's json_loadb (JSON_DECODE_ANY | JSON_ALLOW_NUL |
 *     JSON_DECODE_INT_AS_REAL) must accept exactly what the unbounded parse accepts, and produce
 *     the same tree, except where jansson has limits of its own and for raw NUL bytes, which
 *     must be refused (see docs/fuzzing.md).
 */

#define SMALL_POOL 8u
#define DEPTH 16u

/* jansson refuses these for reasons that are not JSON's: no verdict to compare with. */
static bool jansson_limit(const json_error_t *err)
{
    enum json_error_code code = json_error_code(err);
    return code == json_error_stack_overflow      /* nesting beyond 2048 */
           || code == json_error_numeric_overflow /* a number beyond double (1e400) */
           || code == json_error_null_byte_in_key /* "\u0000" in an object key */
           || code == json_error_out_of_memory;
}

/* ---------------------------------------------------------------- parsing */

typedef struct parsed {
    fw_json_doc_t doc;
    fw_err_t err;
} parsed_t;

static parsed_t parse(const char *buf, size_t len, fw_json_tok_t *toks, uint32_t ntoks,
                      unsigned depth)
{
    parsed_t p;
    p.err = fw_json_parse(&p.doc, buf, len, toks, ntoks, depth);
    FUZZ_CHECK(p.doc.buf == buf && p.doc.len == len && p.doc.toks == toks,
               "fw_json_parse did not record its buffers");
    FUZZ_CHECK(p.err == FW_OK || p.doc.count == 0, "a failed parse reports tokens");
    FUZZ_CHECK(p.err != FW_OK || p.doc.count > 0, "a successful parse reports no tokens");
    FUZZ_CHECK(p.err == FW_OK || p.err == FW_ERR_JSON_INVALID || p.err == FW_ERR_JSON_NOMEM ||
                   p.err == FW_ERR_JSON_DEPTH,
               "fw_json_parse returned %d", (int)p.err);
    FUZZ_CHECK(p.doc.err_pos <= len, "err_pos %zu past the end (%zu)", p.doc.err_pos, len);
    FUZZ_CHECK(p.doc.count <= ntoks, "more tokens than the pool");
    return p;
}

static bool same_tokens(const parsed_t *a, const parsed_t *b)
{
    if (a->doc.count != b->doc.count) return false;
    for (uint32_t i = 0; i < a->doc.count; i++) {
        const fw_json_tok_t *x = &a->doc.toks[i], *y = &b->doc.toks[i];
        if (x->type != y->type || x->flags != y->flags || x->count != y->count ||
            x->start != y->start || x->end != y->end || x->next != y->next)
            return false;
    }
    return true;
}

/* Same verdict (and tokens on success) as `ref`. */
static void check_same(const parsed_t *p, const parsed_t *ref, const char *what)
{
    FUZZ_CHECK(p->err == ref->err, "%s: verdict %d, reference %d", what, (int)p->err,
               (int)ref->err);
    if (p->err != FW_OK) {
        FUZZ_CHECK(p->doc.err_pos == ref->doc.err_pos, "%s: err_pos %zu, reference %zu", what,
                   p->doc.err_pos, ref->doc.err_pos);
    } else {
        FUZZ_CHECK(same_tokens(p, ref), "%s: tokens differ from the reference", what);
    }
}

/* Nesting depth as max_depth counts it: 1 for a scalar or a flat container. */
static unsigned doc_depth(const fw_json_doc_t *doc)
{
    uint32_t *open_next = malloc(doc->count * sizeof *open_next);
    unsigned depth = 0, max = 1;
    FUZZ_CHECK(open_next != NULL, "out of memory");
    for (uint32_t i = 0; i < doc->count; i++) {
        while (depth > 0 && open_next[depth - 1] <= i) depth--;
        const fw_json_tok_t *t = &doc->toks[i];
        if (t->type == FW_JSON_ARRAY || t->type == FW_JSON_OBJECT) {
            open_next[depth++] = t->next;
            if (depth > max) max = depth;
        }
    }
    free(open_next);
    return max;
}

/* ---------------------------------------------------------------- token invariants */

static bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void check_scalar(const fw_json_doc_t *doc, uint32_t i)
{
    static const char *const literals[] = {"null", "false", "true"};
    const fw_json_tok_t *t = &doc->toks[i];
    const char *s = doc->buf + t->start;
    size_t n = t->end - t->start;
    FUZZ_CHECK(t->count == 0 && t->next == i + 1, "token %u: a scalar with children", i);
    if (t->type == FW_JSON_STRING) {
        FUZZ_CHECK(t->start > 0 && doc->buf[t->start - 1] == '"' && t->end < doc->len &&
                       doc->buf[t->end] == '"',
                   "token %u: string not between quotes", i);
        bool escaped = memchr(s, '\\', n) != NULL;
        FUZZ_CHECK(t->flags == (escaped ? FW_JSON_F_ESCAPED : 0), "token %u: string flags", i);
    } else if (t->type == FW_JSON_NUMBER) {
        bool integer =
            memchr(s, '.', n) == NULL && memchr(s, 'e', n) == NULL && memchr(s, 'E', n) == NULL;
        uint8_t want = (uint8_t)((integer ? FW_JSON_F_INTEGER : 0) |
                                 (n > 0 && s[0] == '-' ? FW_JSON_F_NEGATIVE : 0));
        FUZZ_CHECK(n > 0 && t->flags == want, "token %u: number flags", i);
    } else {
        const char *lit = literals[t->type];
        FUZZ_CHECK(n == strlen(lit) && memcmp(s, lit, n) == 0 && t->flags == 0,
                   "token %u: literal text", i);
    }
}

/* The children of container i, followed through `next`, end exactly at i's own `next`. */
static void check_container(const fw_json_doc_t *doc, uint32_t i)
{
    const fw_json_tok_t *t = &doc->toks[i];
    bool obj = t->type == FW_JSON_OBJECT;
    uint32_t n = (uint32_t)t->count * (obj ? 2u : 1u);
    uint32_t e = i + 1;
    FUZZ_CHECK(t->flags == 0 && t->end - t->start >= 2, "token %u: container shape", i);
    FUZZ_CHECK(doc->buf[t->start] == (obj ? '{' : '[') && doc->buf[t->end - 1] == (obj ? '}' : ']'),
               "token %u: container not between its brackets", i);
    for (uint32_t k = 0; k < n; k++) {
        FUZZ_CHECK(e < t->next, "token %u: child %u beyond the subtree", i, k);
        FUZZ_CHECK(doc->toks[e].start > t->start && doc->toks[e].end < t->end,
                   "token %u: child %u outside the container's bytes", i, k);
        FUZZ_CHECK(!obj || k % 2 || doc->toks[e].type == FW_JSON_STRING,
                   "token %u: key %u is not a string", i, k / 2);
        e = doc->toks[e].next;
    }
    FUZZ_CHECK(e == t->next, "token %u: children end at %u, next is %u", i, e, t->next);
}

static void check_tokens(const fw_json_doc_t *doc)
{
    const fw_json_tok_t *top = &doc->toks[0];
    FUZZ_CHECK(top->next == doc->count, "the top token does not span the document");
    for (uint32_t i = 0; i < doc->count; i++) {
        const fw_json_tok_t *t = &doc->toks[i];
        FUZZ_CHECK(t->type <= FW_JSON_OBJECT, "token %u: type %u", i, t->type);
        FUZZ_CHECK(t->start <= t->end && t->end <= doc->len, "token %u: offsets", i);
        FUZZ_CHECK(t->next > i && t->next <= doc->count, "token %u: next %u", i, t->next);
        FUZZ_CHECK(i == 0 || t->start > doc->toks[i - 1].start, "token %u: not in pre-order", i);
        if (t->type == FW_JSON_ARRAY || t->type == FW_JSON_OBJECT) {
            check_container(doc, i);
        } else {
            check_scalar(doc, i);
        }
    }
    size_t quote = top->type == FW_JSON_STRING ? 1 : 0;
    for (size_t b = 0; b < top->start - quote; b++)
        FUZZ_CHECK(is_ws((uint8_t)doc->buf[b]), "non-space byte %zu before the value", b);
    for (size_t b = top->end + quote; b < doc->len; b++)
        FUZZ_CHECK(is_ws((uint8_t)doc->buf[b]), "non-space byte %zu after the value", b);
}

/* ---------------------------------------------------------------- accessors */

/* RFC 3629 UTF-8 (NUL bytes allowed: "\u0000" decodes to one). */
static bool valid_utf8(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        unsigned more;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c < 0x80)
            more = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            more = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (n - i <= more) return false;
        for (unsigned k = 1; k <= more; k++, lo = 0x80, hi = 0xBF)
            if (s[i + k] < lo || s[i + k] > hi) return false;
        i += more + 1;
    }
    return true;
}

/* Decoded string token i in a heap buffer of its raw length + 1 (the decoded text is never
   longer); *len is its length. The caller frees it. */
static char *decode(const fw_json_doc_t *doc, uint32_t i, size_t *len)
{
    const fw_json_tok_t *t = &doc->toks[i];
    size_t raw = t->end - t->start;
    char *out = malloc(raw + 1);
    FUZZ_CHECK(out != NULL, "out of memory");
    int32_t n = fw_json_str_decode(doc, i, out, raw + 1);
    FUZZ_CHECK(n >= 0 && (size_t)n <= raw, "token %u: decode returned %d (raw %zu)", i, (int)n,
               raw);
    FUZZ_CHECK(out[n] == 0, "token %u: decoded text not NUL-terminated", i);
    *len = (size_t)n;
    return out;
}

static void check_string(const fw_json_doc_t *doc, uint32_t i)
{
    const fw_json_tok_t *t = &doc->toks[i];
    size_t n;
    char *s = decode(doc, i, &n);
    char *small = malloc(n + 1);
    FUZZ_CHECK(small != NULL, "out of memory");
    FUZZ_CHECK(fw_json_str_decode(doc, i, small, n) == FW_ERR_NO_SPACE,
               "token %u: decode into %zu bytes for %zu + NUL did not fail", i, n, n);
    FUZZ_CHECK(n == 0 || small[0] == 0, "token %u: a failed decode left text", i);
    FUZZ_CHECK(fw_json_str_decode(doc, i, NULL, 0) == FW_ERR_NO_SPACE,
               "token %u: decode into nothing did not fail", i);
    FUZZ_CHECK(valid_utf8((const uint8_t *)s, n), "token %u: decoded text is not UTF-8", i);
    if (!(t->flags & FW_JSON_F_ESCAPED))
        FUZZ_CHECK(n == (size_t)(t->end - t->start) && memcmp(s, doc->buf + t->start, n) == 0,
                   "token %u: unescaped string changed by decoding", i);
    if (memchr(s, 0, n) == NULL) {
        FUZZ_CHECK(fw_json_str_eq(doc, i, s), "token %u: str_eq(decoded) is false", i);
        memcpy(small, s, n + 1);
        if (n > 0) {
            small[n - 1] = 0;
            FUZZ_CHECK(!fw_json_str_eq(doc, i, small), "token %u: str_eq(prefix) is true", i);
        }
    } else {
        FUZZ_CHECK(!fw_json_str_eq(doc, i, s), "token %u: str_eq matched across a NUL", i);
    }
    free(small);
    free(s);
}

/* Distance in units in the last place (ordinals of the bit patterns; +0 and -0 coincide). */
#if FW_WITH_FLOAT
static uint64_t ulps(double a, double b)
{
    int64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    uint64_t mx = (uint64_t)x & INT64_MAX, my = (uint64_t)y & INT64_MAX;
    if ((x < 0) != (y < 0)) return mx + my;
    return mx > my ? mx - my : my - mx;
}
#endif

static void check_number(const fw_json_doc_t *doc, uint32_t i)
{
    const fw_json_tok_t *t = &doc->toks[i];
    size_t n = t->end - t->start;
    char *text = malloc(n + 1);
    FUZZ_CHECK(text != NULL, "out of memory");
    memcpy(text, doc->buf + t->start, n);
    text[n] = 0;
#if FW_WITH_FLOAT
    double v = NAN, ref = strtod(text, NULL);
    FUZZ_CHECK(fw_json_get_double(doc, i, &v) == FW_OK, "token %u: get_double failed", i);
    FUZZ_CHECK(!isnan(v) && signbit(v) == signbit(ref) && ulps(v, ref) <= 1,
               "token %u: get_double(%s) = %.17g, strtod says %.17g (%llu ulp)", i, text, v, ref,
               (unsigned long long)ulps(v, ref));
#endif
    int32_t i32 = 0;
    fw_err_t err32 = fw_json_get_i32(doc, i, &i32);
    int64_t iv = 0;
    fw_err_t err = fw_json_get_i64(doc, i, &iv);
    if (t->flags & FW_JSON_F_INTEGER) {
        errno = 0;
        long long want = strtoll(text, NULL, 10);
        fw_err_t want_err = errno == ERANGE ? FW_ERR_NO_SPACE : FW_OK;
        FUZZ_CHECK(err == want_err && (err != FW_OK || iv == want),
                   "token %u: get_i64(%s) = %d / %lld, strtoll says %lld", i, text, (int)err,
                   (long long)iv, want);
        bool fits32 = err == FW_OK && iv >= INT32_MIN && iv <= INT32_MAX;
        FUZZ_CHECK(err32 == (fits32 ? FW_OK : FW_ERR_NO_SPACE) && (!fits32 || i32 == iv),
                   "token %u: get_i32(%s) = %d / %ld", i, text, (int)err32, (long)i32);
    } else {
        FUZZ_CHECK(err == FW_ERR_ARG && err32 == FW_ERR_ARG,
                   "token %u: get_i64/get_i32 of a non-integer %s gave %d/%d", i, text, (int)err,
                   (int)err32);
    }
    free(text);
}

/* fw_json_obj_get finds every member's key, at its first occurrence. */
static void check_object(const fw_json_doc_t *doc, uint32_t obj)
{
    uint32_t m = doc->toks[obj].count;
    uint32_t key = obj + 1;
    for (uint32_t k = 0; k < m; k++, key = doc->toks[key + 1].next) {
        size_t n;
        char *s = decode(doc, key, &n);
        if (memchr(s, 0, n) == NULL) {
            int32_t v = fw_json_obj_get(doc, obj, s);
            FUZZ_CHECK(v > (int32_t)obj && (uint32_t)v <= key + 1,
                       "object %u: obj_get of member %u's key gave %d", obj, k, (int)v);
            FUZZ_CHECK(fw_json_str_eq(doc, (uint32_t)v - 1, s),
                       "object %u: obj_get(%s) found a value of another key", obj, s);
            for (uint32_t e = obj + 1; m <= 64 && e + 1 < (uint32_t)v; e = doc->toks[e + 1].next)
                FUZZ_CHECK(!fw_json_str_eq(doc, e, s), "object %u: obj_get(%s) is not the first",
                           obj, s);
        }
        free(s);
    }
    FUZZ_CHECK(fw_json_obj_get(doc, obj, NULL) == -1, "object %u: obj_get(NULL)", obj);
}

static void check_array(const fw_json_doc_t *doc, uint32_t arr)
{
    uint32_t m = doc->toks[arr].count;
    uint32_t e = arr + 1;
    for (uint32_t k = 0; k < m; k++, e = doc->toks[e].next)
        if (m <= 256 || k < 4 || k + 4 > m)
            FUZZ_CHECK(fw_json_arr_get(doc, arr, k) == (int32_t)e,
                       "array %u: arr_get(%u) is not element %u", arr, k, e);
    FUZZ_CHECK(fw_json_arr_get(doc, arr, m) == -1, "array %u: arr_get(count) found one", arr);
}

/* Every accessor on every token, including the ones of the wrong type (must refuse). */
static void check_accessors(const fw_json_doc_t *doc)
{
    for (uint32_t i = 0; i < doc->count; i++) {
        uint8_t type = doc->toks[i].type;
        int64_t iv;
        int32_t i32;
        char c[4];
        if (type != FW_JSON_NUMBER) {
            FUZZ_CHECK(fw_json_get_i64(doc, i, &iv) == FW_ERR_ARG &&
                           fw_json_get_i32(doc, i, &i32) == FW_ERR_ARG,
                       "token %u: a number accessor took a non-number", i);
#if FW_WITH_FLOAT
            double dv;
            FUZZ_CHECK(fw_json_get_double(doc, i, &dv) == FW_ERR_ARG,
                       "token %u: get_double took a non-number", i);
#endif
        }
        if (type != FW_JSON_STRING) {
            FUZZ_CHECK(fw_json_str_decode(doc, i, c, sizeof c) == FW_ERR_ARG &&
                           !fw_json_str_eq(doc, i, ""),
                       "token %u: a string accessor took a non-string", i);
        }
        if (type != FW_JSON_OBJECT)
            FUZZ_CHECK(fw_json_obj_get(doc, i, "") == -1, "token %u: obj_get on a non-object", i);
        if (type != FW_JSON_ARRAY)
            FUZZ_CHECK(fw_json_arr_get(doc, i, 0) == -1, "token %u: arr_get on a non-array", i);
        if (type == FW_JSON_STRING) check_string(doc, i);
        if (type == FW_JSON_NUMBER) check_number(doc, i);
        if (type == FW_JSON_OBJECT) check_object(doc, i);
        if (type == FW_JSON_ARRAY) check_array(doc, i);
    }
    FUZZ_CHECK(fw_json_arr_get(doc, doc->count, 0) == -1 &&
                   fw_json_obj_get(doc, doc->count, "") == -1 &&
                   !fw_json_str_eq(doc, doc->count, ""),
               "an accessor took a token index past the document");
}

/* ---------------------------------------------------------------- jansson */

static void compare(const fw_json_doc_t *doc, uint32_t i, const json_t *j);

static void compare_object(const fw_json_doc_t *doc, uint32_t obj, const json_t *j)
{
    uint32_t m = doc->toks[obj].count;
    char **keys = calloc(m + 1u, sizeof *keys);
    size_t *lens = calloc(m + 1u, sizeof *lens);
    uint32_t *vals = calloc(m + 1u, sizeof *vals);
    FUZZ_CHECK(keys != NULL && lens != NULL && vals != NULL, "out of memory");
    uint32_t key = obj + 1;
    for (uint32_t k = 0; k < m; k++, key = doc->toks[key + 1].next) {
        keys[k] = decode(doc, key, &lens[k]);
        vals[k] = key + 1;
    }
    size_t distinct = 0;
    for (uint32_t k = 0; k < m; k++) {
        bool dup_before = false, dup_after = false;
        for (uint32_t o = 0; o < m; o++) {
            bool same = o != k && lens[o] == lens[k] && memcmp(keys[o], keys[k], lens[k]) == 0;
            dup_before = dup_before || (same && o < k);
            dup_after = dup_after || (same && o > k);
        }
        distinct += !dup_before;
        const json_t *v = json_object_getn(j, keys[k], lens[k]);
        FUZZ_CHECK(v != NULL, "object %u: jansson lacks member %u", obj, k);
        if (!dup_after) compare(doc, vals[k], v); /* jansson keeps the last duplicate */
    }
    FUZZ_CHECK(json_object_size(j) == distinct, "object %u: %zu distinct keys, jansson %zu", obj,
               distinct, json_object_size(j));
    for (uint32_t k = 0; k < m; k++) free(keys[k]);
    free(keys);
    free(lens);
    free(vals);
}

static void compare(const fw_json_doc_t *doc, uint32_t i, const json_t *j)
{
    const fw_json_tok_t *t = &doc->toks[i];
    switch (t->type) {
    case FW_JSON_NULL:
        FUZZ_CHECK(json_is_null(j), "token %u: jansson type", i);
        break;
    case FW_JSON_FALSE:
        FUZZ_CHECK(json_is_false(j), "token %u: jansson type", i);
        break;
    case FW_JSON_TRUE:
        FUZZ_CHECK(json_is_true(j), "token %u: jansson type", i);
        break;
    case FW_JSON_NUMBER: {
        FUZZ_CHECK(json_is_real(j), "token %u: jansson type", i);
#if FW_WITH_FLOAT
        double v = 0;
        (void)fw_json_get_double(doc, i, &v);
        FUZZ_CHECK(ulps(v, json_real_value(j)) <= 1, "token %u: %.17g, jansson %.17g", i, v,
                   json_real_value(j));
#endif
        break;
    }
    case FW_JSON_STRING: {
        size_t n;
        char *s = decode(doc, i, &n);
        FUZZ_CHECK(json_is_string(j) && json_string_length(j) == n &&
                       memcmp(json_string_value(j), s, n) == 0,
                   "token %u: string differs from jansson's", i);
        free(s);
        break;
    }
    case FW_JSON_ARRAY: {
        FUZZ_CHECK(json_is_array(j) && json_array_size(j) == t->count,
                   "token %u: array differs from jansson's", i);
        uint32_t e = i + 1;
        for (size_t k = 0; k < t->count; k++, e = doc->toks[e].next)
            compare(doc, e, json_array_get(j, k));
        break;
    }
    default:
        FUZZ_CHECK(json_is_object(j), "token %u: jansson type", i);
        compare_object(doc, i, j);
        break;
    }
}

static void differential(const char *buf, size_t size, const parsed_t *deep)
{
    json_error_t jerr;
    if (memchr(buf, 0, size) != NULL) {
        /* A NUL byte is never valid JSON; jansson takes one after the value for the end. */
        FUZZ_CHECK(deep->err != FW_OK, "accepted a raw NUL byte");
        return;
    }
    json_t *j =
        json_loadb(buf, size, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &jerr);
    if ((j == NULL && jansson_limit(&jerr)) || deep->err == FW_ERR_JSON_NOMEM) {
        json_decref(j);
        return;
    }
    if (j == NULL) {
        FUZZ_CHECK(deep->err != FW_OK, "accepted; jansson: %s (byte %d)", jerr.text, jerr.position);
        return;
    }
    FUZZ_CHECK(deep->err == FW_OK, "rejected (%d at byte %zu); jansson accepts", (int)deep->err,
               deep->doc.err_pos);
    compare(&deep->doc, 0, j);
    json_decref(j);
}

/* ---------------------------------------------------------------- the harness */

/* The limits: a pool of exactly the tokens needed works and one fewer is NOMEM; exactly the
   document's depth works and one less is DEPTH; small pools fail only with NOMEM. */
static void check_limits(const char *buf, size_t size, const parsed_t *deep, const parsed_t *at16,
                         fw_json_tok_t *pool)
{
    fw_json_tok_t small[SMALL_POOL];
    parsed_t p = parse(buf, size, small, SMALL_POOL, DEPTH);
    if (!(p.err == FW_ERR_JSON_NOMEM && (at16->err != FW_OK || at16->doc.count > SMALL_POOL)))
        check_same(&p, at16, "pool of 8");
    p = parse(buf, size, NULL, 0, DEPTH);
    FUZZ_CHECK(p.err == FW_ERR_JSON_NOMEM || (p.err == at16->err && at16->err != FW_OK),
               "pool of 0: verdict %d", (int)p.err);
    if (deep->err != FW_OK) return;
    uint32_t count = deep->doc.count;
    unsigned depth = doc_depth(&deep->doc);
    p = parse(buf, size, pool, count, depth);
    check_same(&p, deep, "exact pool and depth");
    p = parse(buf, size, pool, count - 1, depth);
    FUZZ_CHECK(p.err == FW_ERR_JSON_NOMEM, "pool one short: verdict %d", (int)p.err);
    p = parse(buf, size, pool, count, depth - 1);
    FUZZ_CHECK(p.err == FW_ERR_JSON_DEPTH, "depth %u - 1: verdict %d", depth, (int)p.err);
}

/* One parse uses at most this many tokens (token indexes are 16 bits): "[0,0,...]" needs
   2 * TOKS_LIMIT + 1 bytes to exceed it. */
#define TOKS_LIMIT 65534u

/* The longest message the reader indexes: below FW_MSG_MAX, and its offsets (fw_json_off_t)
   must hold the length plus one. */
static size_t longest_message(void)
{
    uint64_t off_max = (uint64_t)(fw_json_off_t)-1;
    return (size_t)(((uint64_t)FW_MSG_MAX < off_max ? (uint64_t)FW_MSG_MAX : off_max) - 1u);
}

int fuzz_json_reader(const uint8_t *data, size_t size)
{
    char *buf = fuzz_exact_copy(data, size);
    uint32_t ntoks = (uint32_t)size + 1u; /* every token takes at least one byte */
    fw_json_tok_t *pool_a = calloc(ntoks, sizeof *pool_a);
    fw_json_tok_t *pool_b = calloc(ntoks, sizeof *pool_b);
    FUZZ_CHECK(pool_a != NULL && pool_b != NULL, "out of memory");

    parsed_t deep = parse(buf, size, pool_a, ntoks, (unsigned)size + 1u);
    parsed_t at16 = parse(buf, size, pool_b, ntoks, DEPTH);
    FUZZ_CHECK(deep.err != FW_ERR_JSON_DEPTH, "unreachable depth reported");
    FUZZ_CHECK(deep.err != FW_ERR_JSON_NOMEM || size > longest_message() ||
                   size >= 2u * TOKS_LIMIT + 1u,
               "NOMEM with a pool of size + 1 tokens");
    if (deep.err == FW_OK && doc_depth(&deep.doc) > DEPTH) {
        FUZZ_CHECK(at16.err == FW_ERR_JSON_DEPTH, "depth %u accepted at 16 (%d)",
                   doc_depth(&deep.doc), (int)at16.err);
    } else if (at16.err == FW_ERR_JSON_DEPTH) {
        FUZZ_CHECK(deep.err != FW_OK && deep.doc.err_pos >= at16.doc.err_pos,
                   "DEPTH at 16 for a document that is not that deep");
    } else {
        check_same(&at16, &deep, "depth 16");
    }
    if (deep.err == FW_OK) {
        check_tokens(&deep.doc);
        check_accessors(&deep.doc);
    }
    fw_json_tok_t *pool_c = calloc(ntoks, sizeof *pool_c);
    FUZZ_CHECK(pool_c != NULL, "out of memory");
    parsed_t spec;
    spec.err = ref_json_parse(&spec.doc, buf, size, pool_c, ntoks, (unsigned)size + 1u);
    check_same(&deep, &spec, "reference reader");
    spec.err = ref_json_parse(&spec.doc, buf, size, pool_c, ntoks, DEPTH);
    check_same(&at16, &spec, "reference reader at depth 16");
    /* the padded reader on a padded copy (its NUL, then bytes that would go on the text if it
       took them for the text's, then the end of the allocation) */
    char *padded = malloc(size + FW_JSON_PAD);
    FUZZ_CHECK(padded != NULL, "out of memory");
    if (size > 0) memcpy(padded, buf, size);
    memset(padded + size, '"', FW_JSON_PAD);
    padded[size] = '\0';
    if (FW_JSON_PAD > 4) memcpy(padded + size + 1, "1e:,", 4);
    parsed_t pad;
    pad.err = fw_json_parse_padded(&pad.doc, padded, size, pool_c, ntoks, (unsigned)size + 1u);
    check_same(&pad, &deep, "padded reader");
    pad.err = fw_json_parse_padded(&pad.doc, padded, size, pool_c, ntoks, DEPTH);
    check_same(&pad, &at16, "padded reader at depth 16");
    free(padded);
    free(pool_c);
    differential(buf, size, &deep);
    check_limits(buf, size, &deep, &at16, pool_b);

    free(pool_a);
    free(pool_b);
    free(buf);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_json_reader(data, size);
}
#endif
