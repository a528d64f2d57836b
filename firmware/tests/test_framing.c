/* test_framing.c: specification of the newline framer (framing.c). */
#include "fw_internal.h"
#include "test_util.h"

/* One framer event as a test sees it: a line (its bytes) or an overflow. */
typedef struct rec {
    fw_frame_event_t ev;
    size_t len;
    char data[FW_LINE_MAX + 1];
} rec_t;

#define RECS_MAX 16

typedef struct recs {
    rec_t r[RECS_MAX];
    unsigned n;
} recs_t;

static fw_framer_t fr;
static recs_t got, ref;
static uint8_t input[16 * FW_LINE_MAX];
static size_t input_len;

/* Feeds one chunk, recording every event and checking the push contract on the way. */
static void feed(recs_t *out, const uint8_t *d, size_t n)
{
    while (n > 0) {
        fw_frame_event_t ev = (fw_frame_event_t)-1;
        size_t k = fw_framer_push(&fr, d, n, &ev);
        ck_assert_uint_ge(k, 1);
        ck_assert_uint_le(k, n);
        if (ev == FW_FRAME_NONE) {
            ck_assert_uint_eq(k, n); /* NONE means all input consumed */
        } else {
            ck_assert_uint_lt(out->n, RECS_MAX);
            rec_t *r = &out->r[out->n++];
            r->ev = ev;
            r->len = 0;
            if (ev == FW_FRAME_LINE) {
                ck_assert_uint_gt(fr.len, 0);
                ck_assert_uint_le(fr.len, FW_LINE_MAX);
                ck_assert_int_eq(fr.line[fr.len], '\0');
                r->len = fr.len;
                memcpy(r->data, fr.line, fr.len);
            } else {
                ck_assert_int_eq(ev, FW_FRAME_OVERFLOW);
            }
        }
        d += k;
        n -= k;
    }
}

static void recs_reset(recs_t *r)
{
    r->n = 0;
}

static void input_reset(void)
{
    input_len = 0;
}

static void input_add(const void *p, size_t n)
{
    ck_assert_uint_le(input_len + n, sizeof input);
    memcpy(input + input_len, p, n);
    input_len += n;
}

static void input_str(const char *s)
{
    input_add(s, strlen(s));
}

static void input_fill(char c, size_t n)
{
    ck_assert_uint_le(input_len + n, sizeof input);
    memset(input + input_len, c, n);
    input_len += n;
}

/* Expected events, written as a test reads them: "L" lines given by bytes, "O" overflows. */
static void expect_line(recs_t *r, const void *p, size_t n)
{
    rec_t *x = &r->r[r->n++];
    x->ev = FW_FRAME_LINE;
    x->len = n;
    memcpy(x->data, p, n);
}

static void expect_str(recs_t *r, const char *s)
{
    expect_line(r, s, strlen(s));
}

static void expect_overflow(recs_t *r)
{
    rec_t *x = &r->r[r->n++];
    x->ev = FW_FRAME_OVERFLOW;
    x->len = 0;
}

static void assert_same(const recs_t *a, const recs_t *b, const char *how)
{
    ck_assert_msg(a->n == b->n, "%s: %u events, want %u", how, a->n, b->n);
    for (unsigned i = 0; i < a->n; i++) {
        ck_assert_msg(a->r[i].ev == b->r[i].ev, "%s: event %u differs", how, i);
        ck_assert_msg(a->r[i].len == b->r[i].len, "%s: line %u has %zu bytes, want %zu", how, i,
                      a->r[i].len, b->r[i].len);
        ck_assert_msg(memcmp(a->r[i].data, b->r[i].data, a->r[i].len) == 0,
                      "%s: line %u bytes differ", how, i);
    }
}

/* The input, whole, split in two at every boundary, and byte by byte, gives exactly `ref`,
   and leaves the framer empty (every test input ends with a newline). */
static void check_all_splits(void)
{
    fw_framer_init(&fr);
    recs_reset(&got);
    feed(&got, input, input_len);
    assert_same(&got, &ref, "whole");

    for (size_t s = 0; s <= input_len; s++) {
        fw_framer_init(&fr);
        recs_reset(&got);
        feed(&got, input, s);
        feed(&got, input + s, input_len - s);
        assert_same(&got, &ref, "split");
    }

    fw_framer_init(&fr);
    recs_reset(&got);
    for (size_t i = 0; i < input_len; i++) {
        feed(&got, input + i, 1);
    }
    assert_same(&got, &ref, "bytewise");
}

static void setup(void)
{
    input_reset();
    recs_reset(&ref);
}

START_TEST(test_simple_lines)
{
    input_str("{\"a\":1}\nbb\nc\n");
    expect_str(&ref, "{\"a\":1}");
    expect_str(&ref, "bb");
    expect_str(&ref, "c");
    check_all_splits();
}
END_TEST

START_TEST(test_partial_line_waits)
{
    fw_frame_event_t ev;
    fw_framer_init(&fr);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"abc", 3, &ev), 3);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"", 0, &ev), 0);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"d\nef", 4, &ev), 2);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "abcd");
    ck_assert_uint_eq(fr.len, 4);
    /* the rest starts a new line: the reported one is gone at the next push */
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"ef", 2, &ev), 2);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"\n", 1, &ev), 1);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "ef");
}
END_TEST

START_TEST(test_crlf)
{
    input_str("one\r\ntwo\r\n\r\nthree\n");
    expect_str(&ref, "one");
    expect_str(&ref, "two");
    expect_str(&ref, "three");
    check_all_splits();
}
END_TEST

START_TEST(test_lone_cr_kept)
{
    input_str("a\rb\n\rlead\ntrail\r\r\nx\r\r\r\n");
    expect_str(&ref, "a\rb");
    expect_str(&ref, "\rlead");
    expect_str(&ref, "trail\r"); /* only the CR right before LF is dropped */
    expect_str(&ref, "x\r\r");
    check_all_splits();
}
END_TEST

START_TEST(test_empty_and_cr_only_lines_skipped)
{
    input_str("\n\n\r\n\r\r\n\r\r\r\na\n\n\r\nb\n");
    expect_str(&ref, "a");
    expect_str(&ref, "b");
    check_all_splits();
}
END_TEST

START_TEST(test_garbage_bytes_form_lines)
{
    static const uint8_t garbage[] = {0x00, 0x01, 0xff, 0xfe, '{', 0x00, 0x7f, 0x80, '\r', 0x1b};
    input_add(garbage, sizeof garbage);
    input_str("\n");
    input_add("\0", 1);
    input_str("\n");
    expect_line(&ref, garbage, sizeof garbage);
    expect_line(&ref, "\0", 1);
    check_all_splits();
}
END_TEST

START_TEST(test_line_of_exactly_max)
{
    input_fill('a', FW_LINE_MAX);
    input_str("\n");
    input_fill('b', FW_LINE_MAX);
    input_str("\r\n");
    input_str("ok\n");
    recs_reset(&ref);
    char max[FW_LINE_MAX];
    memset(max, 'a', sizeof max);
    expect_line(&ref, max, sizeof max);
    memset(max, 'b', sizeof max);
    expect_line(&ref, max, sizeof max);
    expect_str(&ref, "ok");
    check_all_splits();
}
END_TEST

START_TEST(test_max_plus_one_overflows_once)
{
    input_fill('a', FW_LINE_MAX + 1);
    input_str("\nnext\n");
    expect_overflow(&ref);
    expect_str(&ref, "next");
    check_all_splits();
}
END_TEST

START_TEST(test_overflow_reported_at_byte_max_plus_one)
{
    fw_frame_event_t ev;
    input_fill('a', FW_LINE_MAX + 5);
    fw_framer_init(&fr);
    ck_assert_uint_eq(fw_framer_push(&fr, input, input_len, &ev), FW_LINE_MAX + 1);
    ck_assert_int_eq(ev, FW_FRAME_OVERFLOW);
    /* the rest of the line is dropped silently, even across pushes without a newline */
    ck_assert_uint_eq(fw_framer_push(&fr, input, 4, &ev), 4);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, input, input_len, &ev), input_len);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"zz\nok\n", 6, &ev), 6);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "ok");
}
END_TEST

START_TEST(test_max_plus_cr_variants)
{
    /* MAX bytes, then a CR that is not the CR of a CRLF: the line is overlong. */
    input_fill('a', FW_LINE_MAX);
    input_str("\rx\n");
    input_fill('b', FW_LINE_MAX);
    input_str("\r\r\n");
    input_fill('c', FW_LINE_MAX);
    input_str("x\r\n");
    input_str("fine\n");
    expect_overflow(&ref);
    expect_overflow(&ref);
    expect_overflow(&ref);
    expect_str(&ref, "fine");
    check_all_splits();
}
END_TEST

START_TEST(test_long_overflow_then_valid_line)
{
    input_fill('x', 10 * FW_LINE_MAX);
    input_str("\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}\n");
    expect_overflow(&ref);
    expect_str(&ref, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}");
    check_all_splits();
}
END_TEST

START_TEST(test_two_overlong_lines)
{
    input_str("a\n");
    input_fill('x', 2 * FW_LINE_MAX);
    input_str("\n");
    input_fill('y', FW_LINE_MAX + 1);
    input_str("\nb\n");
    expect_str(&ref, "a");
    expect_overflow(&ref);
    expect_overflow(&ref);
    expect_str(&ref, "b");
    check_all_splits();
}
END_TEST

START_TEST(test_init_resets)
{
    fw_frame_event_t ev;
    fw_framer_init(&fr);
    input_fill('x', FW_LINE_MAX + 1);
    fw_framer_push(&fr, input, input_len, &ev);
    ck_assert_int_eq(ev, FW_FRAME_OVERFLOW);
    fw_framer_init(&fr); /* a reset connection: not discarding any more */
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"hi\n", 3, &ev), 3);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "hi");

    fw_framer_push(&fr, (const uint8_t *)"partial", 7, &ev);
    fw_framer_init(&fr);
    fw_framer_push(&fr, (const uint8_t *)"new\n", 4, &ev);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "new");
}
END_TEST

/*
 * The same inputs through a model of the framer written from its specification, one byte at a
 * time, against the framer fed in reads of every size from 1 to 70 and of pseudo-random sizes.
 * The inputs are made of lines whose lengths sit at and around the run sizes of the framer's
 * copying (8, 16, 32 bytes) and its limit, of letters and CRs (CRLF ends, CR-only and empty
 * lines, a line starting with a CR, a CR held at the limit).
 */
typedef struct model {
    char line[FW_LINE_MAX + 2];
    size_t len;
    bool discarding;
} model_t;

static void model_byte(model_t *m, uint8_t b, recs_t *out)
{
    if (b == '\n') {
        size_t n = m->len;
        bool blank = true;
        if (!m->discarding) {
            if (n > 0 && m->line[n - 1] == '\r') n--;
            for (size_t i = 0; i < n; i++) blank = blank && m->line[i] == '\r';
            if (!blank) expect_line(out, m->line, n);
        }
        m->len = 0;
        m->discarding = false;
        return;
    }
    if (m->discarding) return;
    if (m->len < FW_LINE_MAX || (m->len == FW_LINE_MAX && b == '\r')) {
        m->line[m->len++] = (char)b;
        return;
    }
    m->len = 0;
    m->discarding = true;
    expect_overflow(out);
}

static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void feed_in_reads(size_t step)
{
    fw_framer_init(&fr);
    recs_reset(&got);
    for (size_t i = 0; i < input_len;) {
        size_t k = step != 0 ? step : 1u + rng() % 48u;
        if (k > input_len - i) k = input_len - i;
        feed(&got, input + i, k);
        i += k;
    }
}

START_TEST(test_reads_of_any_size_match_model)
{
    static const size_t lens[] = {0,  1,  2,  7,  8,  9,  15, 16, 17, 23, 31, 32, 33,
                                  47, 48, 63, 64, 65, 70, 95, 96, 97, FW_LINE_MAX - 33,
                                  FW_LINE_MAX - 1, FW_LINE_MAX, FW_LINE_MAX + 1};
    rng_state = 7;
    for (int round = 0; round < 400; round++) {
        input_reset();
        recs_reset(&ref);
        unsigned lines = 1u + rng() % 10u;
        for (unsigned l = 0; l < lines; l++) {
            size_t n = lens[rng() % (sizeof lens / sizeof lens[0])];
            if (n > 200 && rng() % 4u != 0) n = 40; /* long lines in some rounds only */
            unsigned kind = rng() % 8u;
            for (size_t i = 0; i < n; i++) {
                char c = (char)('a' + rng() % 26u);
                if (kind == 0 || (kind == 1 && i == 0) || rng() % 16u == 0) c = '\r';
                input_add(&c, 1);
            }
            if (kind == 2) input_str("\r");
            if (kind == 3 && n == FW_LINE_MAX) input_str("\r\r");
            input_str("\n");
        }
        model_t m = {.len = 0, .discarding = false};
        for (size_t i = 0; i < input_len; i++) model_byte(&m, input[i], &ref);
        ck_assert_uint_le(ref.n, RECS_MAX);
        for (size_t step = 1; step <= 70; step++) {
            feed_in_reads(step);
            assert_same(&got, &ref, "reads of one size");
        }
        feed_in_reads(FW_LINE_MAX);
        assert_same(&got, &ref, "reads of FW_LINE_MAX");
        feed_in_reads(input_len);
        assert_same(&got, &ref, "whole");
        for (int r = 0; r < 8; r++) {
            feed_in_reads(0);
            assert_same(&got, &ref, "reads of random sizes");
        }
    }
}
END_TEST

/* A line held over several reads, then ended by a read that holds its LF and more lines: the
   line continues where the last read left it, and the line reported before is dropped. */
START_TEST(test_line_across_reads_then_many)
{
    fw_frame_event_t ev;
    fw_framer_init(&fr);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"0123456789abcdefghij", 20, &ev), 20);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"KLMNOPQRSTUVWXYZ!", 17, &ev), 17);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"?\r\nsecond\n\r\nthird", 17, &ev), 3);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "0123456789abcdefghijKLMNOPQRSTUVWXYZ!?");
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"second\n\r\nthird", 14, &ev), 7);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "second");
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"\r\nthird", 7, &ev), 7);
    ck_assert_int_eq(ev, FW_FRAME_NONE);
    ck_assert_uint_eq(fw_framer_push(&fr, (const uint8_t *)"\n", 1, &ev), 1);
    ck_assert_int_eq(ev, FW_FRAME_LINE);
    ck_assert_str_eq(fr.line, "third");
}
END_TEST

Suite *framing_suite(void);

Suite *framing_suite(void)
{
    Suite *s = suite_create("framing");
    TCase *t = tcase_create("framing");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_add_test(t, test_simple_lines);
    tcase_add_test(t, test_partial_line_waits);
    tcase_add_test(t, test_crlf);
    tcase_add_test(t, test_lone_cr_kept);
    tcase_add_test(t, test_empty_and_cr_only_lines_skipped);
    tcase_add_test(t, test_garbage_bytes_form_lines);
    tcase_add_test(t, test_line_of_exactly_max);
    tcase_add_test(t, test_max_plus_one_overflows_once);
    tcase_add_test(t, test_overflow_reported_at_byte_max_plus_one);
    tcase_add_test(t, test_max_plus_cr_variants);
    tcase_add_test(t, test_long_overflow_then_valid_line);
    tcase_add_test(t, test_two_overlong_lines);
    tcase_add_test(t, test_init_resets);
    tcase_add_test(t, test_reads_of_any_size_match_model);
    tcase_add_test(t, test_line_across_reads_then_many);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(framing_suite)
