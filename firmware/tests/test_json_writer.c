/* test_json_writer.c: specification of the streaming JSON writer (json_writer.c). */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fw_internal.h" /* fw_jw_close_to and fw_jw_open2_raw */
#include "fw_json.h"
#include "test_util.h"

static cap_t cap;
static fw_jw_t w;

static void start(void)
{
    cap_reset(&cap);
    fw_jw_init(&w, cap_sink(&cap));
}

/* Flushes, checks the writer's error and that total counts exactly the bytes delivered. */
static const char *finish_err(fw_err_t want)
{
    ck_assert_int_eq(fw_jw_flush(&w), want);
    ck_assert_uint_eq(w.total, cap.len);
    return cap.buf;
}

static const char *finish(void)
{
    return finish_err(FW_OK);
}

/* Parses text with jansson (big integers as reals); NULL when it is not valid JSON. */
static json_t *parse(const char *text, size_t len)
{
    json_error_t jerr;
    return json_loadb(text, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &jerr);
}

/* ---------------------------------------------------------------- literal-key members */

/* One document written with the FW_JW_KV_* macros (literal keys, pasted at compile time at
   FW_SPEED_PATHS 2) or with fw_jw_kv_*; pad bytes of padding first, so the members meet every
   fill level of the writer's buffer (the one-copy path and the flushing one). */
static void write_members(bool literal, size_t pad)
{
    static char padding[FW_JW_BUF_SIZE + 64];
    memset(padding, 'x', sizeof padding);
    padding[pad] = 0;
    start();
    fw_jw_obj_begin(&w);
    if (literal) {
        FW_JW_KV_I64(&w, "pin", 13);
        FW_JW_KV_STR(&w, "name", padding);
        FW_JW_KV_BOOL(&w, "value", true);
        FW_JW_KV_BOOL(&w, "off", false);
        FW_JW_KV_I64(&w, "min", INT64_MIN);
        FW_JW_KV_STR(&w, "esc", "a\"b\n");
        fw_jw_key(&w, "inner");
        fw_jw_obj_begin(&w);
        FW_JW_KV_I64(&w, "duty", -7);
    } else {
        fw_jw_kv_i64(&w, "pin", 13);
        fw_jw_kv_str(&w, "name", padding);
        fw_jw_kv_bool(&w, "value", true);
        fw_jw_kv_bool(&w, "off", false);
        fw_jw_kv_i64(&w, "min", INT64_MIN);
        fw_jw_kv_str(&w, "esc", "a\"b\n");
        fw_jw_key(&w, "inner");
        fw_jw_obj_begin(&w);
        fw_jw_kv_i64(&w, "duty", -7);
    }
    fw_jw_obj_end(&w);
    fw_jw_obj_end(&w);
}

START_TEST(test_literal_key_members_match_kv)
{
    static char want[sizeof cap.buf];
    for (size_t pad = 0; pad < FW_JW_BUF_SIZE + 40; pad++) {
        write_members(false, pad);
        const char *text = finish();
        memcpy(want, text, cap.len + 1);
        write_members(true, pad);
        ck_assert_str_eq(finish(), want);
    }
    ck_assert_ptr_nonnull(strstr(want, "\"min\":-9223372036854775808,\"esc\":\"a\\\"b\\n\""));
}
END_TEST

START_TEST(test_literal_key_member_misuse)
{
    start();
    fw_jw_arr_begin(&w);
    FW_JW_KV_I64(&w, "a", 1); /* a key in an array */
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "k");
    FW_JW_KV_BOOL(&w, "b", true); /* a key where k's value is due */
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    start();
    fw_jw_obj_begin(&w);
    FW_JW_KV_STR(&w, "s", NULL);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
}
END_TEST

/*
 * Twin writers: w takes the path under test (FW_JW_KV_*, fw_jw_close_to, fw_jw_open2_raw), ref
 * the plain calls that write the same thing. After each step they must agree on every byte, the
 * sink's writes (a fast path must never flush where the plain one does not), the error and the
 * writer's state.
 */
static cap_t ref_cap;
static fw_jw_t ref;

static void start_twins(void)
{
    start();
    cap_reset(&ref_cap);
    fw_jw_init(&ref, cap_sink(&ref_cap));
}

static void check_twins(void)
{
    ck_assert_uint_eq(w.used, ref.used);
    ck_assert_uint_eq(w.total, ref.total);
    ck_assert_uint_eq(w.depth, ref.depth);
    ck_assert_uint_eq(w.obj_mask, ref.obj_mask);
    ck_assert_uint_eq(w.first_mask, ref.first_mask);
    ck_assert_int_eq(w.want_value, ref.want_value);
    ck_assert_int_eq(w.in_str, ref.in_str);
    ck_assert_int_eq(w.err, ref.err);
    ck_assert_int_eq(fw_jw_flush(&w), fw_jw_flush(&ref));
    ck_assert_uint_eq(cap.len, ref_cap.len);
    ck_assert_mem_eq(cap.buf, ref_cap.buf, cap.len);
    ck_assert_uint_eq(cap.writes, ref_cap.writes);
}

/* What fw_jw_close_to does when not every level is an object with nothing pending: the general
   path of rpc.c, one level at a time until depth or an error. */
static void close_one_by_one(fw_jw_t *x, uint8_t depth)
{
    if (x->in_str) fw_jw_str_end(x);
    if (x->want_value) fw_jw_null(x);
    while (x->depth > depth && x->err == FW_OK) {
        if ((x->obj_mask >> x->depth) & 1u)
            fw_jw_obj_end(x);
        else
            fw_jw_arr_end(x);
    }
}

/* Strings for the one-pass copy: plain, bytes at or below '\\' that need no escape, an escape
   first, inside or last, UTF-8, and longer than any buffer (the copy meets the room's end). */
static const char *const member_strs[] = {
    "",
    "led",
    "LED_1 (A) #2",
    "\"q",
    "a\\b",
    "tab\t",
    "nl\n",
    "\x01",
    "\x1f",
    "]^_`",
    "\xe2\x82\xac\xf0\x9f\x98\x80",
    ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"),
    ("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")};
/* Integers around the two-digit copy's edges, and the general ones. */
static const int64_t member_ints[] = {0,    1,  9,  10,  42,  99,         100,       128,
                                      4095, -1, -9, -10, -99, 4294967295, INT64_MAX, INT64_MIN};

/* Member i of kind (0 string, 1 integer, 2 boolean, 4 a key by FW_JW_KEY and then the value i;
   3: a string that is NULL) through the literal-key macro when literal, else through fw_jw_kv_*
   (fw_jw_key); with general, the plain literal-key functions instead of fw_jw_kv_* (on misuse
   those write nothing of the member, where fw_jw_kv_* writes the value after the refused key;
   fw_jw_key_raw for the key). */
static void put_member_case(fw_jw_t *to, bool literal, unsigned kind, size_t i, bool general)
{
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
    if (!literal && general) {
        if (kind == 0)
            fw_jw_member_str(to, FW_JW_MEMBER_("name"), member_strs[i]);
        else if (kind == 1)
            fw_jw_member_i64(to, FW_JW_MEMBER_("pin"), member_ints[i]);
        else if (kind == 2)
            fw_jw_member_bool(to, FW_JW_MEMBER_("value"), (i & 1u) != 0);
        else if (kind == 4)
            fw_jw_key_raw(to, FW_JW_MEMBER_("key"));
        else
            fw_jw_member_str(to, FW_JW_MEMBER_("name"), NULL);
        if (kind == 4) fw_jw_i64(to, (int64_t)i);
        return;
    }
#else
    (void)general;
#endif
    switch (kind) {
    case 0:
        if (literal)
            FW_JW_KV_STR(to, "name", member_strs[i]);
        else
            fw_jw_kv_str(to, "name", member_strs[i]);
        break;
    case 1:
        if (literal)
            FW_JW_KV_I64(to, "pin", member_ints[i]);
        else
            fw_jw_kv_i64(to, "pin", member_ints[i]);
        break;
    case 2:
        if (literal)
            FW_JW_KV_BOOL(to, "value", (i & 1u) != 0);
        else
            fw_jw_kv_bool(to, "value", (i & 1u) != 0);
        break;
    case 4: /* a key alone, then its value */
        if (literal)
            FW_JW_KEY(to, "key");
        else
            fw_jw_key(to, "key");
        fw_jw_i64(to, (int64_t)i);
        break;
    default:
        if (literal)
            FW_JW_KV_STR(to, "name", NULL);
        else
            fw_jw_kv_str(to, "name", NULL);
        break;
    }
}

static size_t member_cases(unsigned kind)
{
    return kind == 0 ? FW_ARRAY_LEN(member_strs) : kind == 1 ? FW_ARRAY_LEN(member_ints) : 2u;
}

/* Every kind and value at every fill level of the buffer, as an object's first member (no
   separator) and as a later one, followed by a member the plain way (its separator follows from
   the state the fast path left). */
START_TEST(test_literal_key_members_every_offset)
{
    static char pad[FW_JW_BUF_SIZE + 16];
    for (size_t off = 0; off < FW_JW_BUF_SIZE + 12; off++) {
        memset(pad, 'p', off);
        pad[off] = 0;
        for (unsigned kind = 0; kind < 5; kind++) {
            if (kind == 3) continue; /* (NULL: a misuse) */
            for (size_t i = 0; i < member_cases(kind); i++) {
                for (unsigned later = 0; later < 2; later++) {
                    start_twins();
                    fw_jw_t *ws[2] = {&w, &ref};
                    for (unsigned t = 0; t < 2; t++) {
                        if (later) {
                            fw_jw_obj_begin(ws[t]);
                            fw_jw_kv_str(ws[t], "pad", pad);
                        } else {
                            fw_jw_arr_begin(ws[t]);
                            fw_jw_str(ws[t], pad);
                            fw_jw_obj_begin(ws[t]);
                        }
                        put_member_case(ws[t], t == 0, kind, i, false);
                    }
                    ck_assert_int_eq(w.err, FW_OK);
                    check_twins();
                    for (unsigned t = 0; t < 2; t++) {
                        fw_jw_kv_bool(ws[t], "next", true);
                        fw_jw_obj_end(ws[t]);
                        if (!later) fw_jw_arr_end(ws[t]);
                    }
                    check_twins();
                }
            }
        }
    }
}
END_TEST

/* Where no key may come (the top level, an array, a key's value due, a streamed string open) or
   the string is NULL, the literal-key members set err and write what their general path writes
   (nothing); after an error, members are still written. */
START_TEST(test_literal_key_member_misuse_matches_general)
{
    for (unsigned where = 0; where < 6; where++) {
        for (unsigned kind = 0; kind < 5; kind++) {
            start_twins();
            fw_jw_t *ws[2] = {&w, &ref};
            for (unsigned t = 0; t < 2; t++) {
                fw_jw_t *x = ws[t];
                if (where == 1) fw_jw_arr_begin(x);
                if (where >= 2) fw_jw_obj_begin(x);
                if (where == 3 || where == 4) fw_jw_key(x, "k");
                if (where == 4) fw_jw_str_begin(x);
                if (where == 5) fw_jw_arr_end(x); /* err set, the object still open */
                put_member_case(x, t == 0, kind, 1, true);
                put_member_case(x, t == 0, kind, 2, true);
            }
            /* 2: a member where one may come; 5: after an error */
            ck_assert_int_eq(w.err, where == 2 && kind != 3 ? FW_OK : FW_ERR_ARG);
            check_twins();
        }
    }
}
END_TEST

/* fw_jw_close_to (rpc.c) against closing one level at a time: objects only (one store of up to
   8 '}', or one by one past 8 levels or near the buffer's end), an array among them, a key
   whose value is due, a streamed string open, an error set; at every fill level. */
START_TEST(test_close_to_matches_one_by_one)
{
    static char pad[FW_JW_BUF_SIZE + 16];
    for (size_t off = 0; off < FW_JW_BUF_SIZE + 12; off++) {
        memset(pad, 'p', off);
        pad[off] = 0;
        for (unsigned levels = 1; levels < FW_JW_DEPTH_MAX; levels++) {
            for (unsigned var = 0; var < 5; var++) {
                unsigned base = var == 4 ? levels / 2u : 0u;
                start_twins();
                fw_jw_t *ws[2] = {&w, &ref};
                for (unsigned t = 0; t < 2; t++) {
                    fw_jw_t *x = ws[t];
                    fw_jw_obj_begin(x);
                    fw_jw_kv_str(x, "pad", pad);
                    for (unsigned d = 1; d < levels; d++) {
                        fw_jw_key(x, "o");
                        if (var == 1 && d == levels / 2u) {
                            fw_jw_arr_begin(x);
                            fw_jw_obj_begin(x);
                            d++;
                            continue;
                        }
                        fw_jw_obj_begin(x);
                    }
                    if (var == 2) fw_jw_key(x, "k");
                    if (var == 3) fw_jw_arr_end(x); /* a misuse: err set, nothing closed */
                }
                fw_jw_close_to(&w, (uint8_t)base);
                close_one_by_one(&ref, (uint8_t)base);
                check_twins();
            }
        }
    }
}
END_TEST

/* fw_jw_open2_raw against the calls it stands for: ids of every length class of its copy, as the
   top-level value, as an array's first and later element; where it declines (a second
   top-level value, inside an object, nested too deep, the room short) nothing has changed. */
START_TEST(test_open2_raw_matches_calls)
{
    static const char head[] = "\"jsonrpc\":\"2.0\",\"id\":";
    static const char tail[] = ",\"result\":{";
    static const char *const ids[] = {"1",
                                      "12",
                                      "123",
                                      "1234",
                                      "\"abcdefg\"",
                                      "\"abcdefghijklmn\"",
                                      "\"abcdefghijklmnopqrstuvwxyz\""};
    static char pad[FW_JW_BUF_SIZE + 16];
    for (size_t off = 0; off < FW_JW_BUF_SIZE + 12; off++) {
        memset(pad, 'p', off);
        pad[off] = 0;
        for (size_t i = 0; i < FW_ARRAY_LEN(ids); i++) {
            for (unsigned where = 0; where < 5; where++) {
                start_twins();
                fw_jw_t *ws[2] = {&w, &ref};
                for (unsigned t = 0; t < 2; t++) {
                    fw_jw_t *x = ws[t];
                    if (where == 0) {
                        fw_jw_arr_begin(x);
                        fw_jw_obj_begin(x); /* leaves the "no element" bit of its level set */
                        fw_jw_obj_end(x);
                        fw_jw_str(x, pad);
                    } else if (where == 1) {
                        fw_jw_arr_begin(x);
                    } else if (where == 2) {
                        fw_jw_str(x, pad); /* a whole document already: no second value */
                    } else if (where == 3) {
                        fw_jw_obj_begin(x);
                        fw_jw_key(x, "k");
                    } else {
                        for (unsigned d = 0; d + 1u < FW_JW_DEPTH_MAX; d++) fw_jw_arr_begin(x);
                    }
                }
                uint8_t depth = w.depth;
                fw_jw_t before = w;
                size_t n = strlen(ids[i]);
                if (!fw_jw_open2_raw(&w, head, sizeof head - 1, ids[i], n, tail, sizeof tail - 1)) {
                    ck_assert_mem_eq(&w, &before, sizeof w);
                    ck_assert(where >= 2 || off + n + 40 >= FW_JW_BUF_SIZE);
                    fw_jw_obj_begin_raw(&w, head, sizeof head - 1);
                    fw_jw_raw(&w, ids[i], n);
                    fw_jw_key_raw(&w, tail + 1, sizeof tail - 3);
                    fw_jw_obj_begin(&w);
                }
                fw_jw_obj_begin_raw(&ref, head, sizeof head - 1);
                fw_jw_raw(&ref, ids[i], n);
                fw_jw_key_raw(&ref, tail + 1, sizeof tail - 3);
                fw_jw_obj_begin(&ref);
                check_twins();
                for (unsigned t = 0; t < 2; t++) fw_jw_kv_bool(ws[t], "ok", true);
                fw_jw_close_to(&w, depth);
                close_one_by_one(&ref, depth);
                check_twins();
            }
        }
    }
}
END_TEST

/* ---------------------------------------------------------------- structure */

START_TEST(test_nested_document)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_kv_str(&w, "jsonrpc", "2.0");
    fw_jw_kv_i64(&w, "id", 7);
    fw_jw_key(&w, "result");
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "list");
    fw_jw_arr_begin(&w);
    fw_jw_bool(&w, true);
    fw_jw_bool(&w, false);
    fw_jw_null(&w);
    fw_jw_obj_begin(&w);
    fw_jw_kv_bool(&w, "ok", true);
    fw_jw_obj_end(&w);
    fw_jw_arr_begin(&w);
    fw_jw_arr_end(&w);
    fw_jw_obj_begin(&w);
    fw_jw_obj_end(&w);
    fw_jw_arr_end(&w);
    fw_jw_key(&w, "raw");
    fw_jw_raw(&w, "{\"x\":[1,2]}", 11);
    fw_jw_key(&w, "u");
    fw_jw_u64(&w, 42);
    fw_jw_obj_end(&w);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish(),
                     "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"list\":[true,false,null,"
                     "{\"ok\":true},[],{}],\"raw\":{\"x\":[1,2]},\"u\":42}}");
    ck_assert_uint_eq(w.depth, 0);
}
END_TEST

START_TEST(test_commas)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_arr_begin(&w);
    fw_jw_i64(&w, 1);
    fw_jw_arr_end(&w);
    fw_jw_arr_begin(&w);
    fw_jw_arr_end(&w);
    fw_jw_arr_begin(&w);
    fw_jw_i64(&w, 2);
    fw_jw_i64(&w, 3);
    fw_jw_arr_end(&w);
    fw_jw_str(&w, "");
    fw_jw_obj_begin(&w);
    fw_jw_kv_i64(&w, "a", 1);
    fw_jw_key(&w, "b");
    fw_jw_arr_begin(&w);
    fw_jw_arr_end(&w);
    fw_jw_kv_i64(&w, "c", 2);
    fw_jw_obj_end(&w);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[[1],[],[2,3],\"\",{\"a\":1,\"b\":[],\"c\":2}]");
}
END_TEST

START_TEST(test_scalar_document)
{
    start();
    fw_jw_str(&w, "alone");
    ck_assert_str_eq(finish(), "\"alone\"");
}
END_TEST

START_TEST(test_depth_max_reached_exactly)
{
    start();
    for (int i = 0; i < FW_JW_DEPTH_MAX; i++) {
        fw_jw_arr_begin(&w);
    }
    for (int i = 0; i < FW_JW_DEPTH_MAX; i++) {
        fw_jw_arr_end(&w);
    }
    const char *out = finish();
    ck_assert_uint_eq(strlen(out), 2 * FW_JW_DEPTH_MAX);
    ck_assert_int_eq(out[FW_JW_DEPTH_MAX - 1], '[');
    ck_assert_int_eq(out[FW_JW_DEPTH_MAX], ']');
}
END_TEST

/* ---------------------------------------------------------------- strings */

START_TEST(test_escape_control_chars)
{
    static const char *const want[32] = {
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
        "\\b",     "\\t",     "\\n",     "\\u000b", "\\f",     "\\r",     "\\u000e", "\\u000f",
        "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
        "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f"};
    for (int c = 0; c < 32; c++) {
        char in[3] = {'a', (char)c, 'z'};
        char expect[16];
        snprintf(expect, sizeof expect, "\"a%sz\"", want[c]);
        start();
        fw_jw_strn(&w, in, sizeof in);
        ck_assert_str_eq(finish(), expect);
    }
}
END_TEST

START_TEST(test_escape_quote_backslash_and_passthrough)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_str(&w, "say \"hi\" \\o/");
    fw_jw_str(&w, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    fw_jw_str(&w, "del\x7f slash/");
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[\"say \\\"hi\\\" \\\\o/\",\"caf\xc3\xa9 \xe2\x82\xac "
                               "\xf0\x9f\x98\x80\",\"del\x7f slash/\"]");
}
END_TEST

START_TEST(test_escape_keys)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_kv_str(&w, "a\"b\n", "v");
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish(), "{\"a\\\"b\\n\":\"v\"}");
}
END_TEST

/* ---------------------------------------------------------------- raw heads and keys */

START_TEST(test_obj_begin_raw_and_key_raw)
{
    start();
    fw_jw_arr_begin(&w);
    for (int i = 0; i < 2; i++) {
        fw_jw_obj_begin_raw(&w, "\"jsonrpc\":\"2.0\",\"id\":", 21);
        fw_jw_i64(&w, 7 + i);
        fw_jw_key_raw(&w, "\"result\":", 9);
        fw_jw_obj_begin(&w);
        fw_jw_kv_i64(&w, "a", 1);
        fw_jw_obj_end(&w);
        fw_jw_kv_bool(&w, "b", true); /* a member after a raw key gets its comma */
        fw_jw_obj_end(&w);
    }
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"a\":1},\"b\":true},"
                               "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"a\":1},\"b\":true}]");
}
END_TEST

START_TEST(test_raw_misuse)
{
    start(); /* a raw key where a value is due */
    fw_jw_obj_begin_raw(&w, "\"id\":", 5);
    fw_jw_key_raw(&w, "\"x\":", 4);
    ck_assert_int_eq(fw_jw_flush(&w), FW_ERR_ARG);
    start(); /* a raw key in an array */
    fw_jw_arr_begin(&w);
    fw_jw_key_raw(&w, "\"x\":", 4);
    ck_assert_int_eq(fw_jw_flush(&w), FW_ERR_ARG);
    start(); /* a second document value: refused, nothing written */
    fw_jw_null(&w);
    fw_jw_obj_begin_raw(&w, "\"id\":", 5);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "null");
}
END_TEST

/* Keys and short strings (escaped or not) at every offset of the writer's buffer: the copies
   that check as they go must give what the byte-at-a-time path gives, across a flush too. */
START_TEST(test_keys_and_strings_at_every_offset)
{
    static const char *const keys[] = {"k", "value", "inputSchema", "a\"b", "tab\there", ""};
    static const char *const keys_json[] = {"k",      "value",      "inputSchema",
                                            "a\\\"b", "tab\\there", ""};
    char pad[FW_JW_BUF_SIZE + 8], want[4 * FW_JW_BUF_SIZE];
    for (size_t off = 0; off < FW_JW_BUF_SIZE + 4; off++) {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            memset(pad, 'p', off);
            pad[off] = 0;
            start();
            fw_jw_obj_begin(&w);
            fw_jw_kv_str(&w, "pad", pad);
            fw_jw_kv_str(&w, keys[k], keys[k]);
            fw_jw_obj_end(&w);
            snprintf(want, sizeof want, "{\"pad\":\"%s\",\"%s\":\"%s\"}", pad, keys_json[k],
                     keys_json[k]);
            ck_assert_str_eq(finish(), want);
        }
    }
}
END_TEST

START_TEST(test_strn_embedded_nul)
{
    start();
    fw_jw_strn(&w, "a\0b", 3);
    ck_assert_str_eq(finish(), "\"a\\u0000b\"");
}
END_TEST

START_TEST(test_all_bytes_parse_back)
{
    /* Every ASCII byte 1..127 is either escaped or passed through so that the result parses
       back to the same string. */
    char in[128];
    for (int i = 0; i < 127; i++) {
        in[i] = (char)(i + 1);
    }
    in[127] = 0;
    start();
    fw_jw_str(&w, in);
    const char *out = finish();
    json_t *j = parse(out, strlen(out));
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(j), in);
    json_decref(j);
}
END_TEST

/* ---------------------------------------------------------------- integers */

START_TEST(test_integers)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_i64(&w, 0);
    fw_jw_i64(&w, -1);
    fw_jw_i64(&w, 1234567890);
    fw_jw_i64(&w, INT64_MAX);
    fw_jw_i64(&w, INT64_MIN);
    fw_jw_u64(&w, 0);
    fw_jw_u64(&w, UINT64_MAX);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[0,-1,1234567890,9223372036854775807,-9223372036854775808,0,"
                               "18446744073709551615]");
}
END_TEST

/* fw_jw_i64 writes v as printf does. */
static void check_i64_as_printf(int64_t v)
{
    char want[32];
    snprintf(want, sizeof want, "%lld", (long long)v);
    start();
    fw_jw_i64(&w, v);
    ck_assert_str_eq(finish(), want);
}

/* Every digit count on both sides of each power of ten and of 2^32, either sign: the same
   text as printf's. */
START_TEST(test_integer_digit_counts)
{
    int64_t p = 1;
    for (int k = 0; k <= 18; k++, p = k <= 18 ? p * 10 : p) { /* 10^0 .. 10^18 */
        const int64_t vals[] = {p - 1, p, p + 1, -(p - 1), -p, -(p + 1)};
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) check_i64_as_printf(vals[i]);
    }
    const int64_t edges[] = {4294967295LL,  4294967296LL, -4294967295LL,
                             -4294967296LL, 2147483647LL, -2147483648LL};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) check_i64_as_printf(edges[i]);
}
END_TEST

/* ---------------------------------------------------------------- decimals from integers */

typedef struct dec_case {
    int64_t scaled;
    unsigned decimals;
    bool trim;
    const char *want;
} dec_case_t;

static const dec_case_t decimal_cases[] = {
    {165, 2, false, "1.65"},
    {165, 2, true, "1.65"},
    {-5000, 4, true, "-0.5"},
    {-5000, 4, false, "-0.5000"},
    {-5, 2, false, "-0.05"},
    {-5, 2, true, "-0.05"},
    {-100, 2, true, "-1"}, /* trimmed to an integer: no bare point, the sign kept */
    {-2500, 4, true, "-0.25"},
    {625, 4, true, "0.0625"},
    {1200, 2, true, "12"},
    {1050, 3, true, "1.05"},
    {10, 1, true, "1"},
    {5, 1, false, "0.5"},
    {0, 2, false, "0.00"},
    {0, 2, true, "0"},
    {0, 0, false, "0"},
    {42, 0, false, "42"},
    {42, 0, true, "42"},
    {-42, 0, false, "-42"},
    {1, 9, false, "0.000000001"},
    {-1, 9, true, "-0.000000001"},
    {-3300000, 6, true, "-3.3"},
    {INT64_MAX, 0, false, "9223372036854775807"},
    {INT64_MAX, 9, false, "9223372036.854775807"},
    {INT64_MIN, 9, false, "-9223372036.854775808"},
    {INT64_MIN, 0, true, "-9223372036854775808"},
};

START_TEST(test_decimal_table)
{
    const dec_case_t *c = &decimal_cases[_i];
    start();
    fw_jw_decimal(&w, c->scaled, c->decimals, c->trim);
    ck_assert_msg(strcmp(finish(), c->want) == 0, "decimal(%lld, %u, %d) gave %s, want %s",
                  (long long)c->scaled, c->decimals, (int)c->trim, cap.buf, c->want);
    json_t *j = parse(cap.buf, cap.len); /* always a JSON number */
    ck_assert_msg(json_is_number(j), "%s", cap.buf);
    json_decref(j);
}
END_TEST

START_TEST(test_decimal_in_a_document)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "volts");
    fw_jw_decimal(&w, 165, 2, false);
    fw_jw_key(&w, "list");
    fw_jw_arr_begin(&w);
    fw_jw_decimal(&w, -1, 1, true);
    fw_jw_decimal(&w, 30, 1, true);
    fw_jw_arr_end(&w);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish(), "{\"volts\":1.65,\"list\":[-0.1,3]}");
}
END_TEST

/* More than 9 decimals is a caller's mistake: err is set and nothing is written. */
START_TEST(test_misuse_decimal_decimals)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_decimal(&w, 15, 10, false);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    fw_jw_decimal(&w, 15, 1, false);
    fw_jw_decimal(&w, 15, 9, true);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[1.5,0.000000015]");
    start();
    fw_jw_decimal(&w, 1, 99, true);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "");
}
END_TEST

#if FW_WITH_FLOAT
/* ---------------------------------------------------------------- fixed and double */

typedef struct num_case {
    double v;
    unsigned decimals;
    const char *want;
} num_case_t;

static const num_case_t fixed_cases[] = {
    {0.0, 2, "0.00"},
    {-0.0, 2, "0.00"},
    {1.65, 2, "1.65"},
    {3.3 / 4095 * 2048, 2, "1.65"},
    {3.3 / 4095 * 2048, 4, "1.6504"},
    {0.005, 2, "0.01"},
    {-0.005, 2, "-0.01"},
    {999.995, 2, "1000.00"},
    {1.005, 2, "1.01"},
    {1.645, 2, "1.65"},
    {2.675, 2, "2.68"},
    {0.125, 2, "0.13"},
    {-1.5, 2, "-1.50"},
    {-1.5, 0, "-2"},
    {2.5, 0, "3"},
    {0.4999, 0, "0"},
    {-0.001, 2, "0.00"},
    {-0.004999, 2, "0.00"},
    {1.0000000000000002, 2, "1.00"},
    {12.3456, 9, "12.345600000"},
    {0.1, 9, "0.100000000"},
    {5e-10, 9, "0.000000001"},
    {123456789.123456789, 3, "123456789.123"},
    {1e18, 2, "1000000000000000000.00"},
    {9.9999999999e18, 0, "9999999999900000256"},
    {1e19, 2, "1e19"},
    {1e20, 2, "1e20"},
    {-2.5e21, 1, "-2.5e21"},
    {42.0, 0, "42"},
};

START_TEST(test_fixed_table)
{
    const num_case_t *c = &fixed_cases[_i];
    start();
    fw_jw_fixed(&w, c->v, c->decimals);
    ck_assert_msg(strcmp(finish(), c->want) == 0, "fixed(%.17g, %u) gave %s, want %s", c->v,
                  c->decimals, cap.buf, c->want);
}
END_TEST

START_TEST(test_fixed_non_finite_is_null)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_fixed(&w, NAN, 2);
    fw_jw_fixed(&w, INFINITY, 2);
    fw_jw_fixed(&w, -INFINITY, 0);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[null,null,null]");
}
END_TEST

static const num_case_t double_cases[] = {
    {0.0, 0, "0"},
    {-0.0, 0, "0"},
    {3.0, 0, "3"},
    {-3.0, 0, "-3"},
    {1.65, 0, "1.65"},
    {-0.5, 0, "-0.5"},
    {3.3 / 4095 * 2048, 0, "1.65040293"},
    {0.1 + 0.2, 0, "0.3"},
    {0.005, 0, "0.005"},
    {999.995, 0, "999.995"},
    {-1.5, 0, "-1.5"},
    {1234567.1, 0, "1234567.1"},
    {0.000012345678912, 0, "0.0000123456789"},
    {0.00001, 0, "0.00001"},
    {4294967296.0, 0, "4294967296"},
    {123456789012345.6, 0, "123456789012346"},
    {1e15, 0, "1e15"},
    {1e20, 0, "1e20"},
    {1.5e20, 0, "1.5e20"},
    {-1.5e-7, 0, "-1.5e-7"},
    {9.9999999999e-6, 0, "1e-5"},
    {1.7976931348623157e308, 0, "1.79769313e308"},
    {5e-324, 0, "4.94065646e-324"},
};

START_TEST(test_double_table)
{
    const num_case_t *c = &double_cases[_i];
    start();
    fw_jw_double(&w, c->v);
    ck_assert_msg(strcmp(finish(), c->want) == 0, "double(%.17g) gave %s, want %s", c->v, cap.buf,
                  c->want);
}
END_TEST

START_TEST(test_double_non_finite_is_null)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_double(&w, NAN);
    fw_jw_double(&w, INFINITY);
    fw_jw_double(&w, -INFINITY);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[null,null,null]");
}
END_TEST

/* Deterministic doubles spread over the whole exponent range, both signs. */
static double sample_double(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    double mant = (double)(*state >> 11) / 9007199254740992.0; /* [0, 1) */
    int exp10 = (int)((*state >> 3) % 601) - 300;
    double v = (1.0 + 9.0 * mant) * pow(10.0, exp10);
    return (*state & 1u) ? -v : v;
}

START_TEST(test_double_round_trips_within_9_digits)
{
    uint64_t state = 12345;
    for (int i = 0; i < 20000; i++) {
        double v = sample_double(&state);
        if (!isfinite(v) || v == 0.0) {
            continue;
        }
        start();
        fw_jw_double(&w, v);
        const char *out = finish();
        json_t *j = parse(out, strlen(out));
        ck_assert_msg(j != NULL && json_is_number(j), "double(%.17g) gave invalid %s", v, out);
        double back = json_number_value(j);
        json_decref(j);
        ck_assert_msg(fabs(back - v) <= 6e-9 * fabs(v), "double(%.17g) gave %s", v, out);
    }
}
END_TEST

START_TEST(test_fixed_round_trips_within_half_unit)
{
    uint64_t state = 777;
    for (int i = 0; i < 20000; i++) {
        double v = fmod(sample_double(&state), 1e6);
        unsigned d = (unsigned)(i % 10);
        start();
        fw_jw_fixed(&w, v, d);
        const char *out = finish();
        const char *dot = strchr(out, '.');
        ck_assert_uint_eq(dot == NULL ? 0 : strlen(dot + 1), d);
        json_t *j = parse(out, strlen(out));
        ck_assert_msg(j != NULL && json_is_number(j), "fixed(%.17g, %u) gave %s", v, d, out);
        double back = json_number_value(j);
        json_decref(j);
        ck_assert_msg(fabs(back - v) <= 0.5 * pow(10.0, -(double)d) * (1 + 1e-9) + 1e-9,
                      "fixed(%.17g, %u) gave %s", v, d, out);
    }
}
END_TEST

#endif

/* ---------------------------------------------------------------- misuse */

START_TEST(test_misuse_value_without_key)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_i64(&w, 1);
    fw_jw_kv_i64(&w, "a", 2);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "{\"a\":2}");
}
END_TEST

START_TEST(test_misuse_key_in_array)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_key(&w, "k");
    fw_jw_i64(&w, 1);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[1]");
}
END_TEST

START_TEST(test_misuse_key_twice)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "a");
    fw_jw_key(&w, "b");
    fw_jw_i64(&w, 1);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "{\"a\":1}");
}
END_TEST

START_TEST(test_misuse_end_with_value_due)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "a");
    fw_jw_obj_end(&w);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    fw_jw_null(&w);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "{\"a\":null}");
}
END_TEST

START_TEST(test_misuse_mismatched_and_extra_ends)
{
    start();
    fw_jw_arr_end(&w);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    fw_jw_arr_begin(&w);
    fw_jw_obj_end(&w);
    fw_jw_arr_end(&w);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[]");
}
END_TEST

START_TEST(test_misuse_second_top_level_value)
{
    start();
    fw_jw_i64(&w, 1);
    ck_assert_int_eq(w.err, FW_OK);
    fw_jw_i64(&w, 2);
    fw_jw_obj_begin(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "1");
}
END_TEST

START_TEST(test_misuse_null_arguments)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_str(&w, NULL);
    fw_jw_strn(&w, NULL, 3);
    fw_jw_raw(&w, NULL, 2);
    fw_jw_raw(&w, "1", 0);
    fw_jw_strn(&w, NULL, 0);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[\"\"]");
}
END_TEST

#if FW_WITH_FLOAT
START_TEST(test_misuse_fixed_decimals)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_fixed(&w, 1.0, 10);
    fw_jw_fixed(&w, 1.0, 9);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[1.000000000]");
}
END_TEST
#endif

START_TEST(test_depth_overflow)
{
    start();
    for (int i = 0; i < FW_JW_DEPTH_MAX + 1; i++) {
        fw_jw_arr_begin(&w);
    }
    ck_assert_int_eq(w.err, FW_ERR_NO_SPACE);
    ck_assert_uint_eq(w.depth, FW_JW_DEPTH_MAX);
    for (int i = 0; i < FW_JW_DEPTH_MAX; i++) {
        fw_jw_arr_end(&w);
    }
    const char *out = finish_err(FW_ERR_NO_SPACE);
    ck_assert_uint_eq(strlen(out), 2 * FW_JW_DEPTH_MAX);
}
END_TEST

START_TEST(test_first_error_is_kept)
{
    start();
    for (int i = 0; i < FW_JW_DEPTH_MAX; i++) {
        fw_jw_arr_begin(&w);
    }
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "k"); /* also misuse (a key in an array), but the first error stays */
    ck_assert_int_eq(w.err, FW_ERR_NO_SPACE);
}
END_TEST

/* ---------------------------------------------------------------- buffering */

typedef struct count_sink {
    size_t bytes;
    unsigned calls;
    size_t max_chunk;
    unsigned short_calls; /* calls with fewer than FW_JW_BUF_SIZE bytes */
    uint64_t hash;
} count_sink_t;

static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)p[i]) * 1099511628211u;
    }
    return h;
}

static void count_write(void *ctx, const char *data, size_t len)
{
    count_sink_t *c = ctx;
    c->bytes += len;
    c->calls++;
    c->max_chunk = len > c->max_chunk ? len : c->max_chunk;
    c->short_calls += len < FW_JW_BUF_SIZE;
    c->hash = fnv(c->hash, data, len);
}

/* A reference escaper (RFC 8259 section 7, the writer's choices: the short escapes where JSON
   has them, \u00XX for the other control bytes, everything else as it is). */
static size_t ref_escape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                      : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                      : c == '\f' ? "\\f" : NULL;
        if (e != NULL) {
            memcpy(out + o, e, 2);
            o += 2;
        } else if (c < 0x20) {
            o += (size_t)sprintf(out + o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    return o;
}

/* Texts with bytes to escape (a JSON result quoted in a text, every control byte, escapes
   spread over a long text, UTF-8), each after a pad of every length the buffer has, written by
   fw_jw_strn and by fw_jw_str_json: the output is the reference's, and every write to the sink
   but the last is a whole buffer (the level-2 escaping straight into the buffer, a word or a
   byte at a time, must flush where the general path does). */
START_TEST(test_escaped_texts_at_every_offset)
{
    static char texts[4][700];
    static size_t lens[4];
    const char *json = "{\"pin\":2,\"name\":\"led\",\"value\":true,\"note\":\"a\\\\b\"}";
    lens[0] = strlen(json);
    memcpy(texts[0], json, lens[0]);
    for (int c = 0; c < 128; c++) texts[1][c] = (char)c;
    lens[1] = 128;
    for (size_t i = 0; i < 640; i++) texts[2][i] = "abcdefghij\"klmnopqrstuvwxyz\n0123456789\\"[i % 39];
    lens[2] = 640;
    const char *utf8 = "caf\xc3\xa9 \"\xe2\x82\xac\" \xf0\x9f\x98\x80\x01\x1f";
    lens[3] = strlen(utf8);
    memcpy(texts[3], utf8, lens[3]);
    static char want[4000], esc[4000];
    char pad[FW_JW_BUF_SIZE + 8];
    for (size_t t = 0; t < 8; t++) {
        bool as_json = t >= 4;
        size_t en = ref_escape(texts[t % 4], lens[t % 4], esc);
        for (size_t off = 0; off < FW_JW_BUF_SIZE + 4; off++) {
            memset(pad, 'p', off);
            pad[off] = 0;
            count_sink_t cs = {0, 0, 0, 0, 14695981039346656037u};
            fw_jw_init(&w, (fw_sink_t){count_write, &cs});
            fw_jw_arr_begin(&w);
            fw_jw_str(&w, pad);
            if (as_json)
                fw_jw_str_json(&w, texts[t % 4], lens[t % 4]);
            else
                fw_jw_strn(&w, texts[t % 4], lens[t % 4]);
            fw_jw_arr_end(&w);
            ck_assert_int_eq(fw_jw_flush(&w), FW_OK);
            size_t wn = (size_t)sprintf(want, "[\"%s\",\"", pad);
            memcpy(want + wn, esc, en);
            wn += en;
            memcpy(want + wn, "\"]", 2);
            wn += 2;
            ck_assert_uint_eq(w.total, wn);
            ck_assert_uint_eq(cs.bytes, wn);
            ck_assert_msg(cs.hash == fnv(14695981039346656037u, want, wn),
                          "text %zu (%s) after a pad of %zu: not the reference's bytes", t % 4,
                          as_json ? "fw_jw_str_json" : "fw_jw_strn", off);
            ck_assert_uint_le(cs.short_calls, 1);
            ck_assert_uint_eq(cs.calls, (wn + FW_JW_BUF_SIZE - 1) / FW_JW_BUF_SIZE);
        }
    }
}
END_TEST

START_TEST(test_megabyte_document_bounded_buffer)
{
    count_sink_t cs = {0, 0, 0, 0, 14695981039346656037u};
    fw_sink_t sink = {count_write, &cs};
    fw_jw_init(&w, sink);
    size_t cap_exp = 1u << 21;
    char *expect = malloc(cap_exp);
    ck_assert_ptr_nonnull(expect);
    size_t elen = 0;
    fw_jw_arr_begin(&w);
    expect[elen++] = '[';
    for (int i = 0; elen < (1u << 20); i++) {
        char item[64];
        if (i > 0) {
            expect[elen++] = ',';
        }
        int n = snprintf(item, sizeof item, "{\"i\":%d,\"s\":\"line\\n%d\"}", i, i);
        memcpy(expect + elen, item, (size_t)n);
        elen += (size_t)n;
        snprintf(item, sizeof item, "line\n%d", i);
        fw_jw_obj_begin(&w);
        fw_jw_kv_i64(&w, "i", i);
        fw_jw_kv_str(&w, "s", item);
        fw_jw_obj_end(&w);
        ck_assert_uint_le(w.used, FW_JW_BUF_SIZE);
    }
    fw_jw_arr_end(&w);
    expect[elen++] = ']';
    ck_assert_uint_eq(w.total, elen);
    ck_assert_int_eq(fw_jw_flush(&w), FW_OK);
    ck_assert_uint_eq(cs.bytes, elen);
    ck_assert_uint_le(cs.max_chunk, FW_JW_BUF_SIZE);
    ck_assert_uint_le(cs.short_calls, 1); /* only the final flush may be short */
    ck_assert_uint_eq(cs.calls, (elen + FW_JW_BUF_SIZE - 1) / FW_JW_BUF_SIZE);
    ck_assert_uint_eq(cs.hash, fnv(14695981039346656037u, expect, elen));
    json_t *j = parse(expect, elen);
    ck_assert_ptr_nonnull(j);
    json_decref(j);
    free(expect);
}
END_TEST

START_TEST(test_total_counts_buffered_bytes)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_str(&w, "ab");
    ck_assert_uint_eq(w.total, 5);
    ck_assert_uint_eq(cap.len, 0); /* nothing reaches the sink before a flush or a full buffer */
    ck_assert_int_eq(fw_jw_flush(&w), FW_OK);
    ck_assert_uint_eq(cap.len, 5);
    ck_assert_int_eq(fw_jw_flush(&w), FW_OK); /* an empty flush writes nothing */
    ck_assert_uint_eq(cap.writes, 1);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish(), "[\"ab\"]");
}
END_TEST

START_TEST(test_null_sink_discards)
{
    fw_sink_t none = {NULL, NULL};
    fw_jw_init(&w, none);
    fw_jw_arr_begin(&w);
    for (int i = 0; i < 100; i++) {
        fw_jw_str(&w, "0123456789");
    }
    fw_jw_arr_end(&w);
    ck_assert_int_eq(fw_jw_flush(&w), FW_OK);
    ck_assert_uint_eq(w.total, 2 + 100 * 12 + 99);
}
END_TEST

/* ---------------------------------------------------------------- streamed strings */

START_TEST(test_str_chunks)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "text");
    fw_jw_str_begin(&w);
    fw_jw_str_chunk(&w, "a\"", 2);
    fw_jw_str_chunk(&w, "", 0);
    fw_jw_str_chunk(&w, "\n\xc3", 2);
    fw_jw_str_chunk(&w, "\xa9", 1); /* UTF-8 split across chunks passes through */
    fw_jw_str_end(&w);
    fw_jw_kv_i64(&w, "n", 1);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish(), "{\"text\":\"a\\\"\\n\xc3\xa9\",\"n\":1}");
}
END_TEST

/* fw_jw_str_json where fw_jw_strn writes "" or refuses: the same bytes and error (NULL and an
   empty text, NULL with a length, a value where a key is due, inside an open string). */
START_TEST(test_str_json_edges_match_strn)
{
    static const struct {
        const char *s;
        size_t n;
        int where; /* 0 in an array, 1 in an object (a key is due), 2 in an open string */
    } cases[] = {{NULL, 0, 0}, {"", 0, 0}, {NULL, 3, 0}, {"{}", 2, 1}, {"{}", 2, 2}};
    for (size_t i = 0; i < FW_ARRAY_LEN(cases); i++) {
        char got[64], want[64];
        fw_err_t errs[2];
        for (int as_json = 0; as_json < 2; as_json++) {
            start();
            if (cases[i].where == 1) fw_jw_obj_begin(&w);
            if (cases[i].where != 1) fw_jw_arr_begin(&w);
            if (cases[i].where == 2) fw_jw_str_begin(&w);
            if (as_json)
                fw_jw_str_json(&w, cases[i].s, cases[i].n);
            else
                fw_jw_strn(&w, cases[i].s, cases[i].n);
            errs[as_json] = fw_jw_flush(&w);
            ck_assert_uint_eq(w.total, cap.len);
            snprintf(as_json ? got : want, sizeof got, "%s", cap.buf);
        }
        ck_assert_int_eq(errs[1], errs[0]);
        ck_assert_str_eq(got, want);
    }
}
END_TEST

START_TEST(test_str_misuse)
{
    start();
    fw_jw_arr_begin(&w);
    fw_jw_str_chunk(&w, "x", 1); /* no string open */
    fw_jw_str_end(&w);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    fw_jw_str_begin(&w);
    fw_jw_i64(&w, 5);    /* not while a string is open */
    fw_jw_arr_end(&w);   /* nor this */
    fw_jw_str_begin(&w); /* nor a second string */
    fw_jw_str_chunk(&w, "y", 1);
    fw_jw_str_end(&w);
    fw_jw_arr_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "[\"y\"]");
}
END_TEST

START_TEST(test_str_begin_needs_key_in_object)
{
    start();
    fw_jw_obj_begin(&w);
    fw_jw_str_begin(&w);
    ck_assert_int_eq(w.err, FW_ERR_ARG);
    ck_assert(!w.in_str);
    fw_jw_obj_end(&w);
    ck_assert_str_eq(finish_err(FW_ERR_ARG), "{}");
}
END_TEST

/* Writes a tool-result-like document with awkward strings to inner. */
static void write_inner(fw_jw_t *in, int items)
{
    fw_jw_obj_begin(in);
    fw_jw_kv_str(in, "quote", "she said \"hi\"\\");
    fw_jw_kv_str(in, "ctl", "tab\tnl\ncr\r\x01");
    fw_jw_kv_str(in, "utf8", "\xe2\x82\xac \xf0\x9f\x98\x80");
    fw_jw_key(in, "volts");
    fw_jw_decimal(in, 165, 2, false);
    fw_jw_key(in, "items");
    fw_jw_arr_begin(in);
    for (int i = 0; i < items; i++) {
        fw_jw_obj_begin(in);
        fw_jw_kv_i64(in, "i", i);
        fw_jw_kv_str(in, "s", "\"x\"");
        fw_jw_obj_end(in);
    }
    fw_jw_arr_end(in);
    fw_jw_obj_end(in);
}

static void check_string_sink_round_trip(int items)
{
    static cap_t direct;
    fw_jw_t in;

    cap_reset(&direct);
    fw_jw_init(&in, cap_sink(&direct));
    write_inner(&in, items);
    ck_assert_int_eq(fw_jw_flush(&in), FW_OK);

    start();
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "content");
    fw_jw_arr_begin(&w);
    fw_jw_obj_begin(&w);
    fw_jw_kv_str(&w, "type", "text");
    fw_jw_key(&w, "text");
    fw_jw_str_begin(&w);
    fw_jw_init(&in, fw_jw_string_sink(&w));
    write_inner(&in, items);
    ck_assert_int_eq(fw_jw_flush(&in), FW_OK);
    ck_assert_uint_eq(in.total, direct.len);
    fw_jw_str_end(&w);
    fw_jw_obj_end(&w);
    fw_jw_arr_end(&w);
    fw_jw_obj_end(&w);
    const char *out = finish();

    json_t *outer = parse(out, cap.len);
    ck_assert_ptr_nonnull(outer);
    json_t *text = json_object_get(json_array_get(json_object_get(outer, "content"), 0), "text");
    ck_assert(json_is_string(text));
    ck_assert_uint_eq(json_string_length(text), direct.len);
    ck_assert_mem_eq(json_string_value(text), direct.buf, direct.len);
    json_t *inner = parse(json_string_value(text), json_string_length(text));
    ck_assert_ptr_nonnull(inner);
    ck_assert_str_eq(json_string_value(json_object_get(inner, "quote")), "she said \"hi\"\\");
    ck_assert_str_eq(json_string_value(json_object_get(inner, "ctl")), "tab\tnl\ncr\r\x01");
    ck_assert_uint_eq(json_array_size(json_object_get(inner, "items")), (size_t)items);
    json_decref(inner);
    json_decref(outer);
}

START_TEST(test_string_sink_round_trip_small)
{
    check_string_sink_round_trip(1);
}
END_TEST

START_TEST(test_string_sink_round_trip_many_chunks)
{
    check_string_sink_round_trip(500); /* inner document of many buffers */
    ck_assert_uint_gt(cap.writes, 50);
}
END_TEST

Suite *json_writer_suite(void);

Suite *json_writer_suite(void)
{
    Suite *s = suite_create("json_writer");
    TCase *t = tcase_create("structure");
    tcase_add_test(t, test_nested_document);
    tcase_add_test(t, test_commas);
    tcase_add_test(t, test_integer_digit_counts);
    tcase_add_test(t, test_scalar_document);
    tcase_add_test(t, test_depth_max_reached_exactly);
    suite_add_tcase(s, t);

    t = tcase_create("strings");
    tcase_add_test(t, test_escape_control_chars);
    tcase_add_test(t, test_escape_quote_backslash_and_passthrough);
    tcase_add_test(t, test_escape_keys);
    tcase_add_test(t, test_obj_begin_raw_and_key_raw);
    tcase_add_test(t, test_raw_misuse);
    tcase_add_test(t, test_keys_and_strings_at_every_offset);
    tcase_add_test(t, test_strn_embedded_nul);
    tcase_add_test(t, test_all_bytes_parse_back);
    suite_add_tcase(s, t);

    t = tcase_create("numbers");
    tcase_set_timeout(t, 30);
    tcase_add_test(t, test_integers);
    tcase_add_loop_test(t, test_decimal_table, 0,
                        (int)(sizeof decimal_cases / sizeof *decimal_cases));
    tcase_add_test(t, test_decimal_in_a_document);
#if FW_WITH_FLOAT
    tcase_add_loop_test(t, test_fixed_table, 0, (int)(sizeof fixed_cases / sizeof *fixed_cases));
    tcase_add_test(t, test_fixed_non_finite_is_null);
    tcase_add_loop_test(t, test_double_table, 0, (int)(sizeof double_cases / sizeof *double_cases));
    tcase_add_test(t, test_double_non_finite_is_null);
    tcase_add_test(t, test_double_round_trips_within_9_digits);
    tcase_add_test(t, test_fixed_round_trips_within_half_unit);
#endif
    suite_add_tcase(s, t);

    t = tcase_create("misuse");
    tcase_add_test(t, test_misuse_value_without_key);
    tcase_add_test(t, test_literal_key_members_match_kv);
    tcase_add_test(t, test_literal_key_member_misuse);
    tcase_add_test(t, test_literal_key_member_misuse_matches_general);
    tcase_add_test(t, test_misuse_key_in_array);
    tcase_add_test(t, test_misuse_key_twice);
    tcase_add_test(t, test_misuse_end_with_value_due);
    tcase_add_test(t, test_misuse_mismatched_and_extra_ends);
    tcase_add_test(t, test_misuse_second_top_level_value);
    tcase_add_test(t, test_misuse_null_arguments);
    tcase_add_test(t, test_misuse_decimal_decimals);
#if FW_WITH_FLOAT
    tcase_add_test(t, test_misuse_fixed_decimals);
#endif
    tcase_add_test(t, test_depth_overflow);
    tcase_add_test(t, test_first_error_is_kept);
    suite_add_tcase(s, t);

    t = tcase_create("fast_paths");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_literal_key_members_every_offset);
    tcase_add_test(t, test_close_to_matches_one_by_one);
    tcase_add_test(t, test_open2_raw_matches_calls);
    suite_add_tcase(s, t);

    t = tcase_create("buffering");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_megabyte_document_bounded_buffer);
    tcase_add_test(t, test_escaped_texts_at_every_offset);
    tcase_add_test(t, test_total_counts_buffered_bytes);
    tcase_add_test(t, test_null_sink_discards);
    suite_add_tcase(s, t);

    t = tcase_create("streamed_strings");
    tcase_add_test(t, test_str_chunks);
    tcase_add_test(t, test_str_json_edges_match_strn);
    tcase_add_test(t, test_str_misuse);
    tcase_add_test(t, test_str_begin_needs_key_in_object);
    tcase_add_test(t, test_string_sink_round_trip_small);
    tcase_add_test(t, test_string_sink_round_trip_many_chunks);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(json_writer_suite)
