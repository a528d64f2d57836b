/* test_fmt.c: specification of the error-message formatter (fmt.c). */
#include <limits.h>

#include "fw_internal.h"
#include "test_util.h"

static char out[64];

START_TEST(test_plain_text)
{
    ck_assert_uint_eq(fw_fmt(out, sizeof out, "no conversions"), 14);
    ck_assert_str_eq(out, "no conversions");
    ck_assert_uint_eq(fw_fmt(out, sizeof out, ""), 0);
    ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_strings)
{
    ck_assert_uint_eq(fw_fmt(out, sizeof out, "pin '%s' is %s", "led", "an output"), 22);
    ck_assert_str_eq(out, "pin 'led' is an output");
    fw_fmt(out, sizeof out, "[%s]", (const char *)NULL);
    ck_assert_str_eq(out, "[(null)]");
    fw_fmt(out, sizeof out, "[%s]", "");
    ck_assert_str_eq(out, "[]");
}
END_TEST

START_TEST(test_signed)
{
    fw_fmt(out, sizeof out, "%d %d %d %d %d", 0, 7, -7, INT_MAX, INT_MIN);
    ck_assert_str_eq(out, "0 7 -7 2147483647 -2147483648");
}
END_TEST

START_TEST(test_unsigned)
{
    fw_fmt(out, sizeof out, "%u %u %u", 0u, 255u, UINT_MAX);
    ck_assert_str_eq(out, "0 255 4294967295");
}
END_TEST

START_TEST(test_hex)
{
    fw_fmt(out, sizeof out, "0x%x 0x%x 0x%x 0x%x", 0x48u, 0x7u, 0u, 0xabu);
    ck_assert_str_eq(out, "0x48 0x07 0x00 0xab");
    fw_fmt(out, sizeof out, "%x %x", 0x1234u, 0xdeadbeefu);
    ck_assert_str_eq(out, "1234 deadbeef");
}
END_TEST

START_TEST(test_percent_and_unknown)
{
    fw_fmt(out, sizeof out, "100%% %q %d", 5);
    ck_assert_str_eq(out, "100% %q 5"); /* unknown conversions take no argument */
    fw_fmt(out, sizeof out, "end %");
    ck_assert_str_eq(out, "end %");
}
END_TEST

START_TEST(test_mixed_message)
{
    fw_fmt(out, sizeof out, "tmp102 at 0x%x did not acknowledge (%d tries, %u ms)", 0x48u, 3, 25u);
    ck_assert_str_eq(out, "tmp102 at 0x48 did not acknowledge (3 tries, 25 ms)");
}
END_TEST

START_TEST(test_truncation)
{
    char small[8];
    memset(small, 'X', sizeof small);
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "abcdefghij"), 7);
    ck_assert_str_eq(small, "abcdefg");
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "n=%d", -1234567), 7);
    ck_assert_str_eq(small, "n=-1234");
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "%s%s", "abcd", "efgh"), 7);
    ck_assert_str_eq(small, "abcdefg");
    ck_assert_uint_eq(fw_fmt(small, 1, "abc"), 0);
    ck_assert_str_eq(small, "");
}
END_TEST

START_TEST(test_truncation_keeps_bytes_beyond_cap)
{
    char buf[16];
    memset(buf, 'X', sizeof buf);
    fw_fmt(buf, 4, "%s %d", "long string", 99);
    ck_assert_str_eq(buf, "lon");
    for (size_t i = 4; i < sizeof buf; i++) {
        ck_assert_int_eq(buf[i], 'X');
    }
}
END_TEST

START_TEST(test_zero_capacity)
{
    char c = 'X';
    ck_assert_uint_eq(fw_fmt(&c, 0, "abc"), 0);
    ck_assert_int_eq(c, 'X');
    ck_assert_uint_eq(fw_fmt(NULL, 0, "abc"), 0);
}
END_TEST

START_TEST(test_truncation_does_not_split_utf8)
{
    char small[6];
    /* "ab" + euro sign (3 bytes) + "c": at cap 6 only 5 bytes fit; the euro sign fits whole. */
    ck_assert_uint_eq(fw_fmt(small, sizeof small,
                             "ab\xe2\x82\xac"
                             "c"),
                      5);
    ck_assert_str_eq(small, "ab\xe2\x82\xac");
    /* "abc" + euro: 5 bytes fit, but the euro sign would be cut after 2 of 3: dropped whole. */
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "abc%s", "\xe2\x82\xac"), 3);
    ck_assert_str_eq(small, "abc");
    /* a 4-byte character cut after 1 byte */
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "abcd\xf0\x9f\x98\x80"), 4);
    ck_assert_str_eq(small, "abcd");
    /* a 2-byte character that fits exactly stays */
    ck_assert_uint_eq(fw_fmt(small, sizeof small, "abc\xc3\xa9xyz"), 5);
    ck_assert_str_eq(small, "abc\xc3\xa9");
}
END_TEST

static size_t call_vfmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = fw_vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

START_TEST(test_vfmt)
{
    ck_assert_uint_eq(call_vfmt(out, sizeof out, "%s=%u", "n", 5u), 3);
    ck_assert_str_eq(out, "n=5");
}
END_TEST

Suite *fmt_suite(void);

Suite *fmt_suite(void)
{
    Suite *s = suite_create("fmt");
    TCase *t = tcase_create("fmt");
    tcase_add_test(t, test_plain_text);
    tcase_add_test(t, test_strings);
    tcase_add_test(t, test_signed);
    tcase_add_test(t, test_unsigned);
    tcase_add_test(t, test_hex);
    tcase_add_test(t, test_percent_and_unknown);
    tcase_add_test(t, test_mixed_message);
    tcase_add_test(t, test_truncation);
    tcase_add_test(t, test_truncation_keeps_bytes_beyond_cap);
    tcase_add_test(t, test_zero_capacity);
    tcase_add_test(t, test_truncation_does_not_split_utf8);
    tcase_add_test(t, test_vfmt);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(fmt_suite)
