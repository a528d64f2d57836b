/* test_json_reader.c: the specification of the JSON reader (json_reader.c) as Check tests. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_json.h"
#include "test_util.h"

#ifndef JSON_TEST_SUITE_DIR
#define JSON_TEST_SUITE_DIR "firmware/tests/data/JSONTestSuite/test_parsing"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CORPUS_TOKENS (1u << 16)
#define CORPUS_DEPTH 1024u

static fw_json_tok_t toks[256];

/* ---------------------------------------------------------------- helpers */

/* A copy of text[0..len) in a heap block of exactly len bytes (no NUL after it), so that ASan
   reports any read past the end. */
static char *exact_copy(const char *text, size_t len)
{
    char *p = malloc(len);
    ck_assert(p != NULL || len == 0);
    if (len > 0) {
        memcpy(p, text, len);
    }
    return p;
}

/* Parses text[0..len) from an exact-size heap copy, returned in *copy for the caller to free. */
static fw_err_t parse_n(fw_json_doc_t *doc, char **copy, const char *text, size_t len,
                        fw_json_tok_t *pool, uint32_t n, unsigned depth)
{
    *copy = exact_copy(text, len);
    return fw_json_parse(doc, *copy, len, pool, n, depth);
}

static fw_err_t parse_str(fw_json_doc_t *doc, char **copy, const char *text)
{
    return parse_n(doc, copy, text, strlen(text), toks, 256, 16);
}

/* Checks the invariants of an accepted document: a container's children (keys and values
   alternating in objects) are reached by following `next` exactly `count` (x2) times and end at
   the container's own `next`; offsets lie in the buffer. Also decodes every string and converts
   every number so ASan/UBSan see the accessors run on the whole corpus. */
static void check_tree(const fw_json_doc_t *doc)
{
    static char out[1 << 16];
    ck_assert_uint_gt(doc->count, 0);
    ck_assert_uint_eq(doc->toks[0].next, doc->count);
    for (uint32_t i = 0; i < doc->count; i++) {
        const fw_json_tok_t *t = &doc->toks[i];
        ck_assert_uint_gt(t->next, i);
        ck_assert_uint_le(t->next, doc->count);
        ck_assert_uint_le(t->start, t->end);
        ck_assert_uint_le(t->end, doc->len);
        if (t->type == FW_JSON_ARRAY || t->type == FW_JSON_OBJECT) {
            uint32_t j = i + 1;
            for (uint32_t k = 0; k < t->count; k++) {
                if (t->type == FW_JSON_OBJECT) {
                    ck_assert_uint_eq(doc->toks[j].type, FW_JSON_STRING);
                    ck_assert_uint_eq(doc->toks[j].next, j + 1);
                    j++;
                }
                if (k < 64) { /* arr_get walks from the start: keep this linear */
                    ck_assert_int_eq(fw_json_arr_get(doc, i, k),
                                     t->type == FW_JSON_ARRAY ? (int32_t)j : -1);
                }
                j = doc->toks[j].next;
            }
            ck_assert_uint_eq(j, t->next);
            ck_assert_int_eq(fw_json_obj_get(doc, i, "\x01 never a key"), -1);
        } else {
            ck_assert_uint_eq(t->next, i + 1);
            ck_assert_uint_eq(t->count, 0);
        }
        if (t->type == FW_JSON_STRING) {
            int32_t n = fw_json_str_decode(doc, i, out, sizeof out);
            ck_assert_int_ge(n, 0);
            ck_assert_int_le(n, (int32_t)(t->end - t->start));
        }
        if (t->type == FW_JSON_NUMBER) {
            int64_t v;
#if FW_WITH_FLOAT
            double d;
            ck_assert_int_eq(fw_json_get_double(doc, i, &d), FW_OK);
#endif
            fw_err_t e = fw_json_get_i64(doc, i, &v);
            ck_assert(e == FW_OK || e == FW_ERR_ARG || e == FW_ERR_NO_SPACE);
            ck_assert_int_eq(e == FW_ERR_ARG, (t->flags & FW_JSON_F_INTEGER) == 0);
        }
    }
}

/* The longest message the reader indexes: token offsets (fw_json_off_t) must hold its length
   plus one, and FW_MSG_MAX bounds it. */
#define OFF_MAX ((uint64_t)(fw_json_off_t)-1)
#define MSG_LONGEST                                                                                \
    ((size_t)((uint64_t)FW_MSG_MAX < OFF_MAX - 1u ? (uint64_t)FW_MSG_MAX : OFF_MAX - 1u))
/* Token indexes are 16 bits: one parse uses at most 65534 tokens, however large the pool. */
#define TOKS_LIMIT 65534u

/* ---------------------------------------------------------------- JSONTestSuite corpus */

typedef struct corpus_result {
    unsigned files;
    unsigned failures;
} corpus_result_t;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n); /* exact size: no NUL terminator to lean on */
    ck_assert(buf != NULL || n == 0);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Parses every file whose name starts with prefix; want is 'y' (accept), 'n' (reject) or 'i'
   (either, printed). */
static corpus_result_t run_corpus(const char *prefix, char want)
{
    corpus_result_t r = {0, 0};
    fw_json_tok_t *pool = malloc(sizeof(fw_json_tok_t) * CORPUS_TOKENS);
    ck_assert(pool != NULL);
    struct dirent **names;
    int n = scandir(JSON_TEST_SUITE_DIR, &names, NULL, alphasort);
    ck_assert_msg(n >= 0, "JSONTestSuite corpus not found at %s", JSON_TEST_SUITE_DIR);
    for (int f = 0; f < n; f++) {
        const struct dirent *de = names[f];
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0) {
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", JSON_TEST_SUITE_DIR, de->d_name);
        size_t len;
        char *buf = read_file(path, &len);
        fw_json_doc_t doc;
        fw_err_t err = fw_json_parse(&doc, buf, len, pool, CORPUS_TOKENS, CORPUS_DEPTH);
        r.files++;
        if (err == FW_OK) {
            check_tree(&doc);
        } else if (len > MSG_LONGEST) {
            /* longer than any message the reader indexes: a capacity error at byte 0 */
            ck_assert_int_eq(err, FW_ERR_JSON_NOMEM);
            ck_assert_uint_eq(doc.err_pos, 0);
        } else {
            ck_assert(err == FW_ERR_JSON_INVALID || err == FW_ERR_JSON_DEPTH);
            ck_assert_uint_le(doc.err_pos, len);
        }
        if ((want == 'y' && err != FW_OK) || (want == 'n' && err == FW_OK)) {
            fprintf(stderr, "FAIL %s: err %d at %zu\n", de->d_name, err, doc.err_pos);
            r.failures++;
        }
        if (want == 'i') {
            printf("%-50s %s", de->d_name, err == FW_OK ? "accepted" : "rejected");
            if (err != FW_OK) {
                printf(" (%s at %zu)",
                       err == FW_ERR_JSON_DEPTH   ? "depth"
                       : err == FW_ERR_JSON_NOMEM ? "too long"
                                                  : "invalid",
                       doc.err_pos);
            }
            printf("\n");
        }
        free(buf);
    }
    for (int f = 0; f < n; f++) {
        free(names[f]);
    }
    free(names);
    free(pool);
    return r;
}

START_TEST(corpus_y_files_all_accepted)
{
    corpus_result_t r = run_corpus("y_", 'y');
    ck_assert_uint_eq(r.files, 95);
    ck_assert_uint_eq(r.failures, 0);
}
END_TEST

START_TEST(corpus_n_files_all_rejected)
{
    corpus_result_t r = run_corpus("n_", 'n');
    ck_assert_uint_eq(r.files, 188);
    ck_assert_uint_eq(r.failures, 0);
}
END_TEST

START_TEST(corpus_i_files_parse_without_crash)
{
    corpus_result_t r = run_corpus("i_", 'i');
    ck_assert_uint_eq(r.files, 35);
}
END_TEST

/* ---------------------------------------------------------------- tokens */

START_TEST(nested_document_token_layout)
{
    /* offsets:  0 '{', 2 'a', 6 '[', 7 '1', 11 'x', 17 '{', 19 'b', 23 null, 32 'c', 36 true */
    static const char text[] = "{\"a\": [1, \"x\\n\", {\"b\": null}], \"c\": true}";
    static const struct {
        uint8_t type, flags;
        uint16_t count;
        uint32_t start, end, next;
    } want[] = {
        {FW_JSON_OBJECT, 0, 2, 0, 41, 10},
        {FW_JSON_STRING, 0, 0, 2, 3, 2},
        {FW_JSON_ARRAY, 0, 3, 6, 29, 8},
        {FW_JSON_NUMBER, FW_JSON_F_INTEGER, 0, 7, 8, 4},
        {FW_JSON_STRING, FW_JSON_F_ESCAPED, 0, 11, 14, 5},
        {FW_JSON_OBJECT, 0, 1, 17, 28, 8},
        {FW_JSON_STRING, 0, 0, 19, 20, 7},
        {FW_JSON_NULL, 0, 0, 23, 27, 8},
        {FW_JSON_STRING, 0, 0, 32, 33, 9},
        {FW_JSON_TRUE, 0, 0, 36, 40, 10},
    };
    fw_json_doc_t doc;
    char *buf;
    ck_assert_uint_eq(sizeof text - 1, 41);
    ck_assert_int_eq(parse_str(&doc, &buf, text), FW_OK);
    ck_assert_uint_eq(doc.count, 10);
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        const fw_json_tok_t *t = &doc.toks[i];
        ck_assert_msg(t->type == want[i].type && t->flags == want[i].flags &&
                          t->count == want[i].count && t->start == want[i].start &&
                          t->end == want[i].end && t->next == want[i].next,
                      "token %zu: type %u flags %u count %u [%u,%u) next %u", i, t->type, t->flags,
                      t->count, t->start, t->end, t->next);
    }
    check_tree(&doc);
    free(buf);
}
END_TEST

START_TEST(top_level_scalars_and_whitespace)
{
    fw_json_doc_t doc;
    char *buf;
    ck_assert_int_eq(parse_str(&doc, &buf, " \t\r\n-12.5e3 \n"), FW_OK);
    ck_assert_uint_eq(doc.count, 1);
    ck_assert_uint_eq(toks[0].type, FW_JSON_NUMBER);
    ck_assert_uint_eq(toks[0].flags, FW_JSON_F_NEGATIVE);
    ck_assert_uint_eq(toks[0].start, 4);
    ck_assert_uint_eq(toks[0].end, 11);
    free(buf);

    static const struct {
        const char *text;
        uint8_t type, flags;
    } cases[] = {
        {"0", FW_JSON_NUMBER, FW_JSON_F_INTEGER},
        {"-0", FW_JSON_NUMBER, FW_JSON_F_INTEGER | FW_JSON_F_NEGATIVE},
        {"1.5", FW_JSON_NUMBER, 0},
        {"1e2", FW_JSON_NUMBER, 0},
        {"-1E-2", FW_JSON_NUMBER, FW_JSON_F_NEGATIVE},
        {"20E+02", FW_JSON_NUMBER, 0},
        {"true", FW_JSON_TRUE, 0},
        {"false", FW_JSON_FALSE, 0},
        {"null", FW_JSON_NULL, 0},
        {"\"\"", FW_JSON_STRING, 0},
        {"\"\\/\"", FW_JSON_STRING, FW_JSON_F_ESCAPED},
        {"\"\x7f \xEF\xBF\xBF\xF4\x8F\xBF\xBF\"", FW_JSON_STRING, 0}, /* DEL, U+FFFF, U+10FFFF */
        {"[]", FW_JSON_ARRAY, 0},
        {"{}", FW_JSON_OBJECT, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        ck_assert_msg(parse_str(&doc, &buf, cases[i].text) == FW_OK, "%s", cases[i].text);
        ck_assert_uint_eq(doc.count, 1);
        ck_assert_uint_eq(toks[0].type, cases[i].type);
        ck_assert_uint_eq(toks[0].flags, cases[i].flags);
        ck_assert_uint_eq(toks[0].count, 0);
        ck_assert_uint_eq(toks[0].next, 1);
        free(buf);
    }
}
END_TEST

/* ---------------------------------------------------------------- lookups */

START_TEST(obj_get_compares_unescaped_keys_first_wins)
{
    fw_json_doc_t doc;
    char *buf;
    ck_assert_int_eq(parse_str(&doc, &buf,
                               "{\"x\": {\"abc\": 3, \"y\": [7]}, \"a\\u0062c\": 1, \"abc\": 2,"
                               " \"q\\\"\": 4, \"\": 5, \"y\": 6}"),
                     FW_OK);
    int64_t v;
    int32_t t = fw_json_obj_get(&doc, 0, "abc");
    ck_assert_int_ge(t, 0);
    ck_assert_int_eq(fw_json_get_i64(&doc, (uint32_t)t, &v), FW_OK);
    ck_assert_int_eq(v, 1); /* the escaped spelling comes first; the nested one is skipped */
    t = fw_json_obj_get(&doc, 0, "y");
    ck_assert_int_eq(fw_json_get_i64(&doc, (uint32_t)t, &v), FW_OK);
    ck_assert_int_eq(v, 6); /* not the nested "y" */
    t = fw_json_obj_get(&doc, 0, "q\"");
    ck_assert_int_eq(fw_json_get_i64(&doc, (uint32_t)t, &v), FW_OK);
    ck_assert_int_eq(v, 4);
    t = fw_json_obj_get(&doc, 0, "");
    ck_assert_int_eq(fw_json_get_i64(&doc, (uint32_t)t, &v), FW_OK);
    ck_assert_int_eq(v, 5);
    int32_t x = fw_json_obj_get(&doc, 0, "x");
    ck_assert_int_eq(x, 2);
    t = fw_json_obj_get(&doc, (uint32_t)x, "abc");
    ck_assert_int_eq(fw_json_get_i64(&doc, (uint32_t)t, &v), FW_OK);
    ck_assert_int_eq(v, 3);
    ck_assert_int_eq(fw_json_obj_get(&doc, 0, "ab"), -1);
    ck_assert_int_eq(fw_json_obj_get(&doc, 0, "abcd"), -1);
    ck_assert_int_eq(fw_json_obj_get(&doc, 0, "missing"), -1);
    ck_assert_int_eq(fw_json_obj_get(&doc, 0, NULL), -1);
    ck_assert_int_eq(fw_json_obj_get(&doc, 1, "abc"), -1); /* a key, not an object */
    ck_assert_int_eq(fw_json_obj_get(&doc, doc.count, "abc"), -1);
    free(buf);
}
END_TEST

START_TEST(arr_get_skips_subtrees)
{
    fw_json_doc_t doc;
    char *buf;
    ck_assert_int_eq(parse_str(&doc, &buf, "[10, [20, 21], {\"k\": [1]}, 30, []]"), FW_OK);
    int64_t v;
    ck_assert_int_eq(toks[0].count, 5);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 0), 1);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 1), 2);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 2), 5);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 3), 9);
    ck_assert_int_eq(fw_json_get_i64(&doc, 9, &v), FW_OK);
    ck_assert_int_eq(v, 30);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 4), 10);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, 5), -1);
    ck_assert_int_eq(fw_json_arr_get(&doc, 10, 0), -1); /* empty */
    ck_assert_int_eq(fw_json_arr_get(&doc, 2, 1), 4);
    ck_assert_int_eq(fw_json_arr_get(&doc, 5, 0), -1); /* an object */
    ck_assert_int_eq(fw_json_arr_get(&doc, 99, 0), -1);
    free(buf);
}
END_TEST

/* ---------------------------------------------------------------- strings */

START_TEST(str_decode_every_escape_and_surrogate_pair)
{
    static const char want[] =
        "\"\\/\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\xF4\x8F\xBF\xBF";
    fw_json_doc_t doc;
    char *buf;
    char out[64];
    ck_assert_int_eq(
        parse_str(
            &doc, &buf,
            "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\\uD834\\uDD1E\\udbff\\udfff\","
            " \"h\xC3\xA9llo \xF0\x9F\x98\x80\", \"nul\\u0000\"]"),
        FW_OK);
    ck_assert_int_eq(fw_json_str_decode(&doc, 1, out, sizeof out), (int32_t)strlen(want));
    ck_assert_mem_eq(out, want, sizeof want); /* including the NUL */
    ck_assert(fw_json_str_eq(&doc, 1, want));
    ck_assert(!fw_json_str_eq(&doc, 1, "\"\\/"));
    char longer[64];
    snprintf(longer, sizeof longer, "%sx", want);
    ck_assert(!fw_json_str_eq(&doc, 1, longer));

    ck_assert_int_eq(fw_json_str_decode(&doc, 2, out, sizeof out), 11);
    ck_assert_str_eq(out, "h\xC3\xA9llo \xF0\x9F\x98\x80");
    ck_assert(fw_json_str_eq(&doc, 2, "h\xC3\xA9llo \xF0\x9F\x98\x80"));
    ck_assert(!fw_json_str_eq(&doc, 2, "h\xC3\xA9llo"));

    ck_assert_int_eq(fw_json_str_decode(&doc, 3, out, sizeof out), 4);
    ck_assert_mem_eq(out, "nul\0", 5);
    ck_assert(!fw_json_str_eq(&doc, 3, "nul")); /* a decoded NUL never matches */

    ck_assert(!fw_json_str_eq(&doc, 0, "")); /* not a string */
    ck_assert(!fw_json_str_eq(&doc, 1, NULL));
    ck_assert_int_eq(fw_json_str_decode(&doc, 0, out, sizeof out), FW_ERR_ARG);
    ck_assert_int_eq(fw_json_str_decode(&doc, 4, out, sizeof out), FW_ERR_ARG);
    free(buf);
}
END_TEST

START_TEST(str_decode_reports_no_space)
{
    fw_json_doc_t doc;
    char *buf;
    char out[8];
    ck_assert_int_eq(parse_str(&doc, &buf, "[\"abc\", \"\\u20AC\", \"\"]"), FW_OK);
    memset(out, 'z', sizeof out);
    ck_assert_int_eq(fw_json_str_decode(&doc, 1, out, 3), FW_ERR_NO_SPACE);
    ck_assert_int_eq(out[0], '\0');
    ck_assert_int_eq(out[3], 'z'); /* nothing past cap */
    ck_assert_int_eq(fw_json_str_decode(&doc, 1, out, 4), 3);
    ck_assert_str_eq(out, "abc");
    ck_assert_int_eq(fw_json_str_decode(&doc, 2, out, 3), FW_ERR_NO_SPACE);
    ck_assert_int_eq(fw_json_str_decode(&doc, 2, out, 4), 3);
    ck_assert_str_eq(out, "\xE2\x82\xAC");
    ck_assert_int_eq(fw_json_str_decode(&doc, 3, out, 0), FW_ERR_NO_SPACE);
    ck_assert_int_eq(fw_json_str_decode(&doc, 3, out, 1), 0);
    ck_assert_str_eq(out, "");
    free(buf);
}
END_TEST

/* ---------------------------------------------------------------- numbers */

START_TEST(i64_limits_exact)
{
    static const struct {
        const char *text;
        fw_err_t err;
        int64_t value;
    } cases[] = {
        {"9223372036854775807", FW_OK, INT64_MAX},
        {"-9223372036854775808", FW_OK, INT64_MIN},
        {"9223372036854775808", FW_ERR_NO_SPACE, 0},
        {"-9223372036854775809", FW_ERR_NO_SPACE, 0},
        {"92233720368547758070", FW_ERR_NO_SPACE, 0},
        {"100000000000000000000000000000", FW_ERR_NO_SPACE, 0},
        {"0", FW_OK, 0},
        {"-0", FW_OK, 0},
        {"-1", FW_OK, -1},
        {"1234567890", FW_OK, 1234567890},
        {"1.0", FW_ERR_ARG, 0},
        {"1e2", FW_ERR_ARG, 0},
        {"\"1\"", FW_ERR_ARG, 0},
        {"true", FW_ERR_ARG, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fw_json_doc_t doc;
        char *buf;
        int64_t v = 42;
        ck_assert_int_eq(parse_str(&doc, &buf, cases[i].text), FW_OK);
        fw_err_t err = fw_json_get_i64(&doc, 0, &v);
        ck_assert_msg(err == cases[i].err, "%s: err %d", cases[i].text, err);
        ck_assert_int_eq(v, cases[i].err == FW_OK ? cases[i].value : 42);
        free(buf);
    }
}
END_TEST

/* The 32-bit reader (what a build without FW_WITH_INT64 binds arguments with). */
START_TEST(i32_limits_exact)
{
    static const struct {
        const char *text;
        fw_err_t err;
        int32_t value;
    } cases[] = {
        {"0", FW_OK, 0},
        {"-0", FW_OK, 0},
        {"2147483647", FW_OK, INT32_MAX},
        {"-2147483648", FW_OK, INT32_MIN},
        {"2147483648", FW_ERR_NO_SPACE, 0},
        {"-2147483649", FW_ERR_NO_SPACE, 0},
        {"21474836470", FW_ERR_NO_SPACE, 0},
        {"99999999999999999999", FW_ERR_NO_SPACE, 0},
        {"1.0", FW_ERR_ARG, 0},
        {"1e2", FW_ERR_ARG, 0},
        {"\"1\"", FW_ERR_ARG, 0},
        {"null", FW_ERR_ARG, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fw_json_doc_t doc;
        char *buf;
        int32_t v = 42;
        ck_assert_int_eq(parse_str(&doc, &buf, cases[i].text), FW_OK);
        fw_err_t err = fw_json_get_i32(&doc, 0, &v);
        ck_assert_msg(err == cases[i].err, "%s: err %d", cases[i].text, err);
        ck_assert_int_eq(v, cases[i].err == FW_OK ? cases[i].value : 42);
        free(buf);
    }
}
END_TEST

#if FW_WITH_FLOAT
static int64_t ordered_bits(double d)
{
    int64_t b;
    memcpy(&b, &d, sizeof b);
    return b < 0 ? INT64_MIN - b : b;
}

/* Asserts that the reader's value of text is within one ulp of strtod's; returns whether it is
   the same (correctly rounded) value. */
static bool assert_double_close(const char *text)
{
    fw_json_doc_t doc;
    char *buf;
    double got;
    ck_assert_msg(parse_str(&doc, &buf, text) == FW_OK, "%s", text);
    ck_assert_int_eq(fw_json_get_double(&doc, 0, &got), FW_OK);
    double want = strtod(text, NULL);
    int64_t diff = ordered_bits(got) - ordered_bits(want);
    ck_assert_msg(diff >= -1 && diff <= 1, "%s: got %.17g want %.17g (%lld ulp)", text, got, want,
                  (long long)diff);
    ck_assert_msg(signbit(got) == signbit(want), "%s: sign", text);
    free(buf);
    return diff == 0;
}

START_TEST(double_conversion_within_one_ulp)
{
    /* clang-format off */
    static const char *const cases[] = {
        "0.1", "1.65", "3.3", "-2.5e-3", "1e308", "1e-320", "0", "-0", "-0.0e5", "1", "100",
        "123.456", "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324",
        "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308",
        "9007199254740993", "123456789012345678901234567890", "0.000000000000000000000000001234",
        "3.141592653589793238462643383279502884197", "1e23", "8.98846567431158e307",
        "5e-324", "1e-400", "-1e-400", "6.02214076e23", "1.602176634e-19", "4294967295.5",
        "0.30000000000000004", "18446744073709551615", "18446744073709551616e-20",
        "3e-324", "2e-324", "2.5e-324", "9007199254740993", "9007199254740995",
        "1.0000000000000002220446049250313080847263336181640625",
        "1.00000000000000011102230246251565404236316680908203125",
    };
    /* clang-format on */
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        assert_double_close(cases[i]);
    }
    /* Everyday values, subnormal rounding and ties (half to even) come out correctly rounded. */
    static const char *const exact[] = {
        "0.1",
        "1.65",
        "3.3",
        "-2.5e-3",
        "1e308",
        "3e-324",
        "2e-324",
        "9007199254740993",
        "9007199254740995",
        "1.00000000000000011102230246251565404236316680908203125",
    };
    for (size_t i = 0; i < ARRAY_LEN(exact); i++) {
        ck_assert_msg(assert_double_close(exact[i]), "%s is not correctly rounded", exact[i]);
    }
    /* A sweep over the whole exponent range through the slow path. */
    static const char *const mantissas[] = {
        "1",
        "1.5",
        "7.0000000000000001",
        "9.999999999999999",
        "2.718281828459045",
        "1.2345678901234567890123",
    };
    char text[64];
    unsigned total = 0;
    unsigned rounded = 0;
    for (int e = -345; e <= 310; e++) {
        for (size_t m = 0; m < ARRAY_LEN(mantissas); m++) {
            snprintf(text, sizeof text, "%se%d", mantissas[m], e);
            rounded += assert_double_close(text) ? 1 : 0;
            total++;
        }
    }
    printf("double sweep: %u of %u correctly rounded\n", rounded, total);
    ck_assert_uint_ge(rounded * 100u, total * 99u);
}
END_TEST

START_TEST(double_extremes_give_inf_or_zero)
{
    static const struct {
        const char *text;
        double want;
    } cases[] = {
        {"1e400", INFINITY},
        {"-1e400", -INFINITY},
        {"1e99999999999999999999999999999999", INFINITY},
        {"-0.0000001e99999999999999999999999999", -INFINITY},
        {"1e-99999999999999999999999999999999", 0.0},
        {"123456789e-99999999999999999999", 0.0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fw_json_doc_t doc;
        char *buf;
        double got;
        ck_assert_int_eq(parse_str(&doc, &buf, cases[i].text), FW_OK);
        ck_assert_int_eq(fw_json_get_double(&doc, 0, &got), FW_OK);
        ck_assert_msg(got == cases[i].want, "%s: %g", cases[i].text, got);
        free(buf);
    }
    fw_json_doc_t doc;
    char *buf;
    double d;
    ck_assert_int_eq(parse_str(&doc, &buf, "[\"1\"]"), FW_OK);
    ck_assert_int_eq(fw_json_get_double(&doc, 1, &d), FW_ERR_ARG);
    ck_assert_int_eq(fw_json_get_double(&doc, 0, &d), FW_ERR_ARG);
    ck_assert_int_eq(fw_json_get_double(&doc, 2, &d), FW_ERR_ARG);
    free(buf);
}
END_TEST
#endif

/* ---------------------------------------------------------------- limits */

/* "[[...]]" nested n deep, or n openers only. */
static char *nested(size_t n, bool closed, size_t *len)
{
    *len = closed ? 2 * n : n;
    char *p = malloc(*len);
    ck_assert(p != NULL);
    memset(p, '[', n);
    if (closed) {
        memset(p + n, ']', n);
    }
    return p;
}

START_TEST(depth_limit_is_exact)
{
    fw_json_doc_t doc;
    size_t len;
    for (unsigned max = 1; max <= 20; max++) {
        char *p = nested(max, true, &len);
        ck_assert_int_eq(fw_json_parse(&doc, p, len, toks, 256, max), FW_OK);
        ck_assert_uint_eq(doc.count, max);
        free(p);
        p = nested(max + 1, true, &len);
        ck_assert_int_eq(fw_json_parse(&doc, p, len, toks, 256, max), FW_ERR_JSON_DEPTH);
        ck_assert_uint_eq(doc.err_pos, max); /* the opener one too deep */
        free(p);
    }
    char *buf;
    ck_assert_int_eq(parse_n(&doc, &buf, "{\"a\":[{\"b\":1}]}", 15, toks, 256, 3), FW_OK);
    free(buf);
    ck_assert_int_eq(parse_n(&doc, &buf, "{\"a\":[{\"b\":[]}]}", 16, toks, 256, 3),
                     FW_ERR_JSON_DEPTH);
    ck_assert_uint_eq(doc.err_pos, 11);
    free(buf);
    /* 1 admits a scalar or a flat container; 0 admits nothing. */
    ck_assert_int_eq(parse_n(&doc, &buf, "[1,\"a\"]", 7, toks, 256, 1), FW_OK);
    free(buf);
    ck_assert_int_eq(parse_n(&doc, &buf, "7", 1, toks, 256, 1), FW_OK);
    free(buf);
    ck_assert_int_eq(parse_n(&doc, &buf, "7", 1, toks, 256, 0), FW_ERR_JSON_DEPTH);
    free(buf);
}
END_TEST

START_TEST(deep_nesting_uses_no_stack)
{
    /* As deep as the longest message and the token limit allow, with a depth limit as large: the
       parser keeps its stack of open containers in the tokens, not on the C stack. */
    size_t levels = MSG_LONGEST / 2 < TOKS_LIMIT ? MSG_LONGEST / 2 : TOKS_LIMIT;
    ck_assert_uint_ge(levels, 30000);
    fw_json_tok_t *pool = malloc(sizeof(fw_json_tok_t) * 100000);
    ck_assert(pool != NULL);
    fw_json_doc_t doc;
    size_t len;
    char *p = nested(levels, true, &len);
    ck_assert_int_eq(fw_json_parse(&doc, p, len, pool, 100000, 100000), FW_OK);
    ck_assert_uint_eq(doc.count, levels);
    ck_assert_uint_eq(pool[0].next, levels);
    ck_assert_uint_eq(pool[levels - 1].end, levels + 1);
    ck_assert_int_eq(fw_json_parse(&doc, p, len - 1, pool, 100000, 100000), FW_ERR_JSON_INVALID);
    ck_assert_uint_eq(doc.err_pos, len - 1);
    free(p);
    /* one level more is a capacity error: the message is too long, or needs a token too many */
    p = nested(levels + 1, true, &len);
    ck_assert_int_eq(fw_json_parse(&doc, p, len, pool, 100000, 100000), FW_ERR_JSON_NOMEM);
    ck_assert_uint_eq(doc.err_pos, len > MSG_LONGEST ? 0 : TOKS_LIMIT);
    free(p);
    free(pool);
}
END_TEST

START_TEST(nomem_exactly_at_pool_size)
{
    /* 10 tokens: {, a, [, 1, 2, {, b, null, c, d */
    static const char text[] = "{\"a\":[1,2,{\"b\":null}],\"c\":\"d\"}";
    fw_json_doc_t doc;
    char *buf = exact_copy(text, sizeof text - 1);
    ck_assert_int_eq(fw_json_parse(&doc, buf, sizeof text - 1, toks, 10, 16), FW_OK);
    ck_assert_uint_eq(doc.count, 10);
    ck_assert_int_eq(fw_json_parse(&doc, buf, sizeof text - 1, toks, 9, 16), FW_ERR_JSON_NOMEM);
    ck_assert_uint_eq(doc.err_pos, 26); /* the value "d" */
    ck_assert_uint_eq(doc.count, 0);
    for (uint32_t n = 0; n < 10; n++) {
        ck_assert_int_eq(fw_json_parse(&doc, buf, sizeof text - 1, toks, n, 16), FW_ERR_JSON_NOMEM);
    }
    ck_assert_uint_eq(doc.err_pos, 26);
    ck_assert_int_eq(fw_json_parse(&doc, buf, sizeof text - 1, toks, 0, 16), FW_ERR_JSON_NOMEM);
    ck_assert_uint_eq(doc.err_pos, 0);
    free(buf);
}
END_TEST

/* "[0,0,...]" of n elements: 2n + 1 bytes, n + 1 tokens. */
static char *zeros(size_t n, size_t *len)
{
    *len = 2 * n + 1;
    char *p = malloc(*len);
    ck_assert(p != NULL);
    p[0] = '[';
    for (size_t i = 0; i < n; i++) {
        p[1 + 2 * i] = '0';
        p[2 + 2 * i] = i + 1 < n ? ',' : ']';
    }
    return p;
}

START_TEST(message_length_limit)
{
    /* MSG_LONGEST bytes are indexed; one more is refused before a byte is read. */
    fw_json_tok_t *pool = malloc(sizeof(fw_json_tok_t) * 70000);
    ck_assert(pool != NULL);
    fw_json_doc_t doc;
    size_t len;
    char *p = zeros((MSG_LONGEST - 1) / 2, &len);
    char *q = malloc(MSG_LONGEST + 1);
    ck_assert(q != NULL);
    memcpy(q, p, len);
    memset(q + len, ' ', MSG_LONGEST + 1 - len); /* trailing whitespace up to the limit */
    ck_assert_int_eq(fw_json_parse(&doc, q, MSG_LONGEST, pool, 70000, 4), FW_OK);
    ck_assert_uint_eq(pool[0].count, (MSG_LONGEST - 1) / 2);
    ck_assert_uint_eq(pool[0].end, len);
    ck_assert_int_eq(fw_json_parse(&doc, q, MSG_LONGEST + 1, pool, 70000, 4), FW_ERR_JSON_NOMEM);
    ck_assert_uint_eq(doc.err_pos, 0);
    ck_assert_uint_eq(doc.count, 0);
    free(q);
    free(p);
    free(pool);
}
END_TEST

#if FW_MSG_MAX > 65535u
START_TEST(container_count_limit)
{
    /* A pool larger than the token limit does not raise it: a container holds at most 65533
       elements (65534 tokens with its own), so its 16-bit count cannot overflow. */
    fw_json_tok_t *pool = malloc(sizeof(fw_json_tok_t) * 70000);
    ck_assert(pool != NULL);
    size_t len;
    char *p = zeros(TOKS_LIMIT, &len); /* one token too many */
    fw_json_doc_t doc;
    ck_assert_int_eq(fw_json_parse(&doc, p, len, pool, 70000, 4), FW_ERR_JSON_NOMEM);
    ck_assert_uint_eq(doc.err_pos, len - 2); /* the last element */
    p[len - 3] = ']';
    ck_assert_int_eq(fw_json_parse(&doc, p, len - 2, pool, 70000, 4), FW_OK);
    ck_assert_uint_eq(pool[0].count, TOKS_LIMIT - 1);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, TOKS_LIMIT - 2), TOKS_LIMIT - 1);
    ck_assert_int_eq(fw_json_arr_get(&doc, 0, TOKS_LIMIT - 1), -1);
    free(p);
    free(pool);
}
END_TEST
#endif

/* ---------------------------------------------------------------- errors */

START_TEST(err_pos_points_at_the_problem)
{
    static const struct {
        const char *text;
        size_t len;
        size_t pos;
    } cases[] = {
#define C(s, pos) {s, sizeof s - 1, pos}
        C("", 0),
        C("   ", 3),
        C("[1,]", 3),
        C("[,1]", 1),
        C("{\"a\" 1}", 5),
        C("{\"a\":1,}", 7),
        C("{1:2}", 1),
        C("[1 2]", 3),
        C("[1}", 2),
        C("]", 0),
        C("1 2", 2),
        C("\"ab", 3),
        C("tru", 3),
        C("trUe", 2),
        C("nulll", 4),
        C("01", 1),
        C("-", 1),
        C("-a", 1),
        C("1.", 2),
        C("1.e5", 2),
        C("1e+", 3),
        C(".5", 0),
        C("+1", 0),
        C("\"a\x01\"", 2),
        C("\"\\x\"", 2),
        C("\"\\u12G4\"", 5),
        C("\"\\uD800\"", 7),
        C("\"\\uDC00\"", 1),
        C("\"\\uD800\\u0041\"", 7),
        C("\"\\uD800\\n\"", 8),
        C("\"\xC0\x80\"", 1),
        C("\"\xE0\x80\x80\"", 2),
        C("\"\xED\xA0\x80\"", 2),
        C("\"\xF4\x90\x80\x80\"", 2),
        C("\"\xF5\x80\x80\x80\"", 1),
        C("\"\xE2\x82\"", 3),
        C("\"\x80\"", 1),
        C("nul\0", 3),
        C("1\0", 1),
        C("\"a\0b\"", 2),
        C("\xEF\xBB\xBF{}", 0),
        C("\f1", 0),
        C("{\"a\":1}}", 7),
#undef C
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        fw_json_doc_t doc;
        char *buf;
        fw_err_t err = parse_n(&doc, &buf, cases[i].text, cases[i].len, toks, 256, 16);
        ck_assert_msg(err == FW_ERR_JSON_INVALID && doc.err_pos == cases[i].pos,
                      "case %zu: err %d at %zu, want %zu", i, err, doc.err_pos, cases[i].pos);
        ck_assert_uint_eq(doc.count, 0);
        free(buf);
    }
}
END_TEST

START_TEST(every_control_character_in_a_string_is_rejected)
{
    for (unsigned c = 0; c < 0x20; c++) {
        char text[4] = {'"', (char)c, '"', 0};
        fw_json_doc_t doc;
        char *buf;
        ck_assert_int_eq(parse_n(&doc, &buf, text, 3, toks, 256, 16), FW_ERR_JSON_INVALID);
        ck_assert_uint_eq(doc.err_pos, 1);
        free(buf);
    }
}
END_TEST

START_TEST(every_truncation_is_rejected_without_overread)
{
    static const char text[] =
        "{\"jsonrpc\":\"2.0\",\"id\":-17,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"gpio_write\",\"arguments\":{\"pin\":13,\"v\":[true,false,null,-1.5e-3,0,\"\\u00e9\\ud83d"
        "\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"],\"o\":{}}}}";
    size_t full = sizeof text - 1;
    fw_json_doc_t doc;
    char *buf;
    ck_assert_int_eq(parse_n(&doc, &buf, text, full, toks, 256, 16), FW_OK);
    check_tree(&doc);
    free(buf);
    for (size_t len = 0; len < full; len++) {
        fw_err_t err = parse_n(&doc, &buf, text, len, toks, 256, 16);
        ck_assert_msg(err == FW_ERR_JSON_INVALID, "prefix %zu: err %d", len, err);
        ck_assert_uint_le(doc.err_pos, len);
        free(buf);
    }
    /* Scalars ending exactly at the buffer end. */
    static const char *const ok[] = {"12", "-0.5e+7", "true", "null", "\"\xF0\x9F\x98\x80\""};
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        ck_assert_int_eq(parse_n(&doc, &buf, ok[i], strlen(ok[i]), toks, 256, 16), FW_OK);
        check_tree(&doc);
        free(buf);
    }
}
END_TEST

START_TEST(byte_mutations_never_crash)
{
    /* Every single-byte substitution by a set of interesting bytes: whatever the outcome, the
       parse stays in bounds and an accepted document satisfies the tree invariants. */
    static const char text[] =
        "{\"a\":[1,-2.5e3,\"x\\u00e9\\ud83d\\ude00\xC3\xA9\"],\"b\":{\"c\":null}}";
    static const uint8_t bytes[] = {0x00, '"', '\\', '[', ']', '{',  '}',  ',',  ':',  ' ', '0',
                                    'e',  '-', '.',  'u', 'D', 0x80, 0xC3, 0xED, 0xF4, 0xFF};
    size_t len = sizeof text - 1;
    unsigned accepted = 0;
    for (size_t i = 0; i < len; i++) {
        for (size_t b = 0; b < sizeof bytes; b++) {
            char *buf = exact_copy(text, len);
            buf[i] = (char)bytes[b];
            fw_json_doc_t doc;
            fw_err_t err = fw_json_parse(&doc, buf, len, toks, 256, 16);
            if (err == FW_OK) {
                check_tree(&doc);
                accepted++;
            } else {
                ck_assert_int_eq(err, FW_ERR_JSON_INVALID);
                ck_assert_uint_le(doc.err_pos, len);
            }
            free(buf);
        }
    }
    ck_assert_uint_gt(accepted, 0);
}
END_TEST

static Suite *json_reader_suite(void)
{
    Suite *s = suite_create("json_reader");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, corpus_y_files_all_accepted);
    tcase_add_test(tc, corpus_n_files_all_rejected);
    tcase_add_test(tc, corpus_i_files_parse_without_crash);
    suite_add_tcase(s, tc);
    tc = tcase_create("tokens");
    tcase_add_test(tc, nested_document_token_layout);
    tcase_add_test(tc, top_level_scalars_and_whitespace);
    tcase_add_test(tc, obj_get_compares_unescaped_keys_first_wins);
    tcase_add_test(tc, arr_get_skips_subtrees);
    suite_add_tcase(s, tc);
    tc = tcase_create("strings");
    tcase_add_test(tc, str_decode_every_escape_and_surrogate_pair);
    tcase_add_test(tc, str_decode_reports_no_space);
    suite_add_tcase(s, tc);
    tc = tcase_create("numbers");
    tcase_add_test(tc, i64_limits_exact);
    tcase_add_test(tc, i32_limits_exact);
#if FW_WITH_FLOAT
    tcase_add_test(tc, double_conversion_within_one_ulp);
    tcase_add_test(tc, double_extremes_give_inf_or_zero);
#endif
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, depth_limit_is_exact);
    tcase_add_test(tc, deep_nesting_uses_no_stack);
    tcase_add_test(tc, nomem_exactly_at_pool_size);
    tcase_add_test(tc, message_length_limit);
#if FW_MSG_MAX > 65535u
    tcase_add_test(tc, container_count_limit);
#endif
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, err_pos_points_at_the_problem);
    tcase_add_test(tc, every_control_character_in_a_string_is_rejected);
    tcase_add_test(tc, every_truncation_is_rejected_without_overread);
    tcase_add_test(tc, byte_mutations_never_crash);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(json_reader_suite)
