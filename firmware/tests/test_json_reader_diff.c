/*
 * test_json_reader_diff.c: the JSON reader (json_reader.c) against its reference
 * (json_reader_ref.c, the reader before the jsmn-style tokenizer), built both ways: with the
 * speed paths as the library has them and, compiled a second time here, without them
 * (FW_SPEED_PATHS 0, as where constant data is in flash). On every input the three must agree:
 * the verdict, the error position, and on success every token.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* json_reader.c once more, without its speed paths and under other names. */
#define FW_SPEED_PATHS 0
#define fw_json_parse slow_json_parse
#define fw_json_parse_padded slow_json_parse_padded
#define fw_json_obj_get slow_json_obj_get
#define fw_json_arr_get slow_json_arr_get
#define fw_json_str_eq slow_json_str_eq
#define fw_json_str_decode slow_json_str_decode
#define fw_json_get_i64 slow_json_get_i64
#define fw_json_get_i32 slow_json_get_i32
#define fw_json_get_double slow_json_get_double
#include "json_reader.c"
#undef fw_json_parse
#undef fw_json_parse_padded
#undef fw_json_obj_get
#undef fw_json_arr_get
#undef fw_json_str_eq
#undef fw_json_str_decode
#undef fw_json_get_i64
#undef fw_json_get_i32
#undef fw_json_get_double

/* The library's reader (fw_json.h was read above under the other names). */
fw_err_t fw_json_parse(fw_json_doc_t *doc, const char *buf, size_t len, fw_json_tok_t *toks,
                       uint32_t ntoks, unsigned max_depth);
fw_err_t fw_json_parse_padded(fw_json_doc_t *doc, const char *buf, size_t len,
                              fw_json_tok_t *toks, uint32_t ntoks, unsigned max_depth);
bool fw_json_str_eq(const fw_json_doc_t *doc, uint32_t tok, const char *s);
int32_t fw_json_str_decode(const fw_json_doc_t *doc, uint32_t tok, char *out, size_t cap);

#include "json_reader_ref.c"
#include "test_util.h"

#ifndef JSON_TEST_SUITE_DIR
#define JSON_TEST_SUITE_DIR "firmware/tests/data/JSONTestSuite/test_parsing"
#endif

#define POOL_MAX 4096u

static fw_json_tok_t ref_toks[POOL_MAX], fast_toks[POOL_MAX], slow_toks[POOL_MAX],
    padded_toks[POOL_MAX];
static unsigned long parses; /* comparisons made, so a test can show it ran them */

static void same_doc(const char *who, const fw_json_doc_t *d, fw_err_t e, const fw_json_doc_t *r,
                     fw_err_t re, const char *what, uint32_t ntoks, unsigned depth)
{
    ck_assert_msg(e == re && d->err_pos == r->err_pos && d->count == r->count,
                  "%s on %s (pool %u, depth %u): %d at %zu with %u tokens, reference %d at %zu "
                  "with %u",
                  who, what, ntoks, depth, (int)e, d->err_pos, d->count, (int)re, r->err_pos,
                  r->count);
    for (uint32_t i = 0; i < r->count; i++) {
        const fw_json_tok_t *a = &d->toks[i], *b = &r->toks[i];
        ck_assert_msg(a->type == b->type && a->flags == b->flags && a->count == b->count &&
                          a->next == b->next && a->start == b->start && a->end == b->end,
                      "%s on %s: token %u differs from the reference", who, what, i);
    }
}

/* What the pad after a padded text's NUL holds: bytes that would go on a string, a number, a
   literal or a member if the reader took any of them for the text's. */
static const char pad_bytes[FW_JSON_PAD - 1] = "\"1e:,}]\"true\"0.";

/* Parses text[0..len) from an exact-size heap copy (ASan sees any read past it) with the three
   readers, and from a padded copy (its NUL, then FW_JSON_PAD - 1 more bytes, then the end of
   the allocation) with the padded one, and checks they agree. */
static void agree(const char *text, size_t len, uint32_t ntoks, unsigned depth, const char *what)
{
    char *buf = malloc(len > 0 ? len : 1);
    ck_assert(buf != NULL);
    memcpy(buf, text, len);
    if (ntoks > POOL_MAX) {
        ntoks = POOL_MAX;
    }
    fw_json_doc_t r, fast, slow;
    fw_err_t re = ref_json_parse(&r, buf, len, ref_toks, ntoks, depth);
    fw_err_t fe = fw_json_parse(&fast, buf, len, fast_toks, ntoks, depth);
    fw_err_t se = slow_json_parse(&slow, buf, len, slow_toks, ntoks, depth);
    same_doc("reader", &fast, fe, &r, re, what, ntoks, depth);
    same_doc("reader without speed paths", &slow, se, &r, re, what, ntoks, depth);
    char *pbuf = malloc(len + FW_JSON_PAD);
    ck_assert(pbuf != NULL);
    memcpy(pbuf, text, len);
    pbuf[len] = '\0';
    memcpy(pbuf + len + 1, pad_bytes, sizeof pad_bytes);
    fw_json_doc_t padded;
    fw_err_t pe = fw_json_parse_padded(&padded, pbuf, len, padded_toks, ntoks, depth);
    padded.buf = r.buf; /* (only the tokens are compared) */
    same_doc("padded reader", &padded, pe, &r, re, what, ntoks, depth);
    parses++;
    free(pbuf);
    free(buf);
}

/* Every pool size and depth that matters to small documents, and an ample one of each. */
static void agree_all_limits(const char *text, size_t len, const char *what)
{
    static const uint32_t pools[] = {0, 1, 2, 3, 5, 8, 13, 24, POOL_MAX};
    static const unsigned depths[] = {0, 1, 2, 3, 6, 16, 1024};
    for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++) {
        for (size_t j = 0; j < sizeof depths / sizeof depths[0]; j++) {
            agree(text, len, pools[i], depths[j], what);
        }
    }
}

/* ---------------------------------------------------------------- corpora */

static char *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert(buf != NULL);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Calls fn on every regular file of dir; returns how many. */
static unsigned each_file(const char *dir,
                          void (*fn)(const char *text, size_t len, const char *name))
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    ck_assert_msg(n >= 0, "corpus not found at %s", dir);
    unsigned files = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char path[4096];
            size_t len;
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            char *text = read_whole(path, &len);
            fn(text, len, names[i]->d_name);
            free(text);
            files++;
        }
        free(names[i]);
    }
    free(names);
    return files;
}

/* The fuzz corpus of the reader: fuzz/corpus/json_reader beside this file. */
static const char *fuzz_corpus_dir(void)
{
    static char dir[4096];
    const char *slash = strrchr(__FILE__, '/');
    snprintf(dir, sizeof dir, "%.*s/fuzz/corpus/json_reader", slash ? (int)(slash - __FILE__) : 1,
             slash ? __FILE__ : ".");
    return dir;
}

START_TEST(same_as_reference_on_json_test_suite)
{
    parses = 0;
    unsigned files = each_file(JSON_TEST_SUITE_DIR, agree_all_limits);
    ck_assert_uint_gt(files, 300);
    ck_assert_uint_ge(parses, files * 63ul);
}
END_TEST

START_TEST(same_as_reference_on_fuzz_corpus)
{
    parses = 0;
    unsigned files = each_file(fuzz_corpus_dir(), agree_all_limits);
    ck_assert_uint_gt(files, 100);
}
END_TEST

/* ---------------------------------------------------------------- made inputs */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* Pieces the mutations insert: structure, escapes good and bad, UTF-8 good and bad. */
static const char *const pieces[] = {
    "\"",
    "\\",
    "\\u",
    "\\uD800",
    "\\uDC00",
    "\\uD83D\\uDE00",
    "\\u00e9",
    "\\uZZ",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "\t",
    "\r",
    "0",
    "-",
    ".",
    "e",
    "E+",
    "1",
    "9",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    "\xc3\xa9",
    "\xe0\xa0\x80",
    "\xe0\x9f\xbf",
    "\xed\xa0\x80",
    "\xed\x9f\xbf",
    "\xf0\x90\x80\x80",
    "\xf4\x8f\xbf\xbf",
    "\xf4\x90\x80\x80",
    "\xf0\x8f\xbf\xbf",
    "\x80",
    "\xc0\xaf",
    "\xc1\xbf",
    "\xc2",
    "\x01",
    "\x1f",
    "\x7f",
    "a",
    "\"key\":",
    "\\n",
    "\\x",
    "\\/",
    "01",
    "-0.5e-3",
    "1E",
    "\xff",
    "\"jsonrpc\":\"2.0\",",
};
#define PIECES (sizeof pieces / sizeof pieces[0])

START_TEST(same_as_reference_on_mutations)
{
    parses = 0;
    static const char *const seeds[] = {
        ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"gpio_write\","
         "\"params\":{\"pin\":40,\"value\":true}}"),
        "[1, -2.5e+3, \"a\\u00e9\\uD83D\\uDE00\", {\"k\": [null, false, {}]}, []]",
        "{\"\xc3\xa9t\xc3\xa9\" : \"\\\"quoted\\\" \\\\ \\/ \\b\\f\\n\\r\\t\", \"n\": 0}",
        "  \"a string long enough to be read a machine word at a time, twice over\"  ",
    };
    static char m[1024];
    for (unsigned it = 0; it < 20000; it++) {
        size_t n;
        if (it % 2 == 0) {
            const char *seed = seeds[rnd(sizeof seeds / sizeof seeds[0])];
            n = strlen(seed);
            memcpy(m, seed, n);
            for (unsigned k = 1 + rnd(4); k > 0 && n > 0; k--) {
                size_t at = rnd((uint32_t)n);
                const char *piece = pieces[rnd(PIECES)];
                size_t pl = strlen(piece);
                switch (rnd(4)) {
                case 0:
                    m[at] = (char)rnd(256);
                    break;
                case 1:
                    n = at;
                    break;
                case 2:
                    if (n + pl < sizeof m) {
                        memmove(m + at + pl, m + at, n - at);
                        memcpy(m + at, piece, pl);
                        n += pl;
                    }
                    break;
                default:
                    memmove(m + at, m + at + 1, n - at - 1);
                    n--;
                    break;
                }
            }
        } else {
            n = 0;
            for (unsigned k = 1 + rnd(12); k > 0; k--) {
                const char *piece = pieces[rnd(PIECES)];
                memcpy(m + n, piece, strlen(piece));
                n += strlen(piece);
            }
        }
        agree(m, n, 1 + rnd(40), 1 + rnd(5), "a mutation");
        agree(m, n, POOL_MAX, 1024, "a mutation");
    }
    ck_assert_uint_eq(parses, 40000);
}
END_TEST

/*
 * Strings are read a word at a time: every byte value at every offset of strings of every
 * length up to three words, with the string's end at every distance from the buffer's end, and
 * multi-byte sequences and escapes at every offset.
 */
START_TEST(string_scan_every_byte_at_every_offset)
{
    parses = 0;
    char text[64];
    for (size_t len = 0; len <= 24; len++) {
        for (size_t at = 0; at < len; at++) {
            for (unsigned b = 0; b < 256; b++) {
                text[0] = '"';
                memset(text + 1, 'a', len);
                text[1 + at] = (char)b;
                text[1 + len] = '"';
                /* after the string: nothing, or whitespace so the end lies further away */
                size_t tail = (b + at) % 9;
                memset(text + 2 + len, ' ', tail);
                agree(text, 2 + len + tail, 4, 2, "a string with one byte changed");
            }
        }
    }
    static const char *const seqs[] = {
        "\xc3\xa9",
        "\xe2\x82\xac",
        "\xf0\x9f\x98\x80",
        "\xf4\x8f\xbf\xbf",
        "\xc0\x80",
        "\xe0\x80\x80",
        "\xed\xa0\x80",
        "\xf4\x90\x80\x80",
        "\xf5\x80\x80\x80",
        "\xe2\x82",
        "\\\"",
        "\\\\",
        "\\u0041",
        "\\uD83D\\uDE00",
        "\\uDE00",
        "\\uD83D\\u0041",
        "\\uD83D",
        "\\q",
        "\\u00G1",
    };
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        size_t sl = strlen(seqs[i]);
        for (size_t at = 0; at <= 20; at++) {
            for (size_t after = 0; after <= 9; after++) {
                size_t n = 0;
                text[n++] = '[';
                text[n++] = '"';
                memset(text + n, 'x', at);
                n += at;
                memcpy(text + n, seqs[i], sl);
                n += sl;
                memset(text + n, 'y', after);
                n += after;
                text[n++] = '"';
                text[n++] = ']';
                agree(text, n, 4, 2, seqs[i]);
                agree(text, n - 1, 4, 2, seqs[i]); /* and the text cut before its end */
                agree(text, n - 2, 4, 2, seqs[i]);
            }
        }
    }
}
END_TEST

/* fw_json_str_eq, both ways, on every string of the accepted files: equal to the decoded text
   exactly, never to it one character short or long. */
static void str_eq_agrees(const char *text, size_t len, const char *name)
{
    static char out[1 << 16];
    static char other[(1 << 16) + 2];
    fw_json_doc_t fast, slow;
    if (fw_json_parse(&fast, text, len, fast_toks, POOL_MAX, 1024) != FW_OK) {
        return;
    }
    ck_assert_int_eq(slow_json_parse(&slow, text, len, slow_toks, POOL_MAX, 1024), FW_OK);
    for (uint32_t i = 0; i < fast.count; i++) {
        if (fast_toks[i].type != FW_JSON_STRING) {
            continue;
        }
        int32_t n = fw_json_str_decode(&fast, i, out, sizeof out);
        ck_assert_int_ge(n, 0);
        bool plain = strlen(out) == (size_t)n; /* no decoded NUL */
        ck_assert_msg(fw_json_str_eq(&fast, i, out) == plain, "%s: token %u", name, i);
        ck_assert_msg(slow_json_str_eq(&slow, i, out) == plain, "%s: token %u", name, i);
        memcpy(other, out, (size_t)n + 1);
        strcat(other, "z");
        ck_assert(!fw_json_str_eq(&fast, i, other));
        ck_assert(!slow_json_str_eq(&slow, i, other));
        if (n > 0 && plain) {
            other[n - 1] = '\0';
            ck_assert(!fw_json_str_eq(&fast, i, other));
            ck_assert(!slow_json_str_eq(&slow, i, other));
        }
        parses++;
    }
}

START_TEST(str_eq_agrees_with_decoding)
{
    parses = 0;
    each_file(JSON_TEST_SUITE_DIR, str_eq_agrees);
    ck_assert_uint_ge(parses, 70); /* strings compared */
    each_file(fuzz_corpus_dir(), str_eq_agrees);
    ck_assert_uint_ge(parses, 500);
}
END_TEST

static Suite *json_reader_diff_suite(void)
{
    Suite *s = suite_create("json_reader_diff");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, same_as_reference_on_json_test_suite);
    tcase_add_test(tc, same_as_reference_on_fuzz_corpus);
    tcase_add_test(tc, same_as_reference_on_mutations);
    tcase_add_test(tc, string_scan_every_byte_at_every_offset);
    tcase_add_test(tc, str_eq_agrees_with_decoding);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(json_reader_diff_suite)
