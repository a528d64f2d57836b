/* test_host_http_check.c: the HTTP transport's header checks: Host and Origin against DNS
   rebinding, Accept, Content-Type and bearer tokens. */
#include <check.h>
#include <stdio.h>

#include "http_check.h"
#include "test_util.h"

static const char *const none[] = {NULL};

START_TEST(host_allows_the_loopback_names_with_any_port)
{
    ck_assert(host_http_host_allowed("localhost", none, 0));
    ck_assert(host_http_host_allowed("localhost:7002", none, 0));
    ck_assert(host_http_host_allowed("LocalHost:80", none, 0));
    ck_assert(host_http_host_allowed("127.0.0.1:7002", none, 0));
    ck_assert(host_http_host_allowed("127.0.0.1", none, 0));
    ck_assert(host_http_host_allowed("[::1]:7002", none, 0));
    ck_assert(host_http_host_allowed("[::1]", none, 0));
}
END_TEST

START_TEST(host_refuses_other_names_and_malformed_values)
{
    ck_assert(!host_http_host_allowed("evil.com", none, 0));
    ck_assert(!host_http_host_allowed("evil.com:7002", none, 0));
    ck_assert(!host_http_host_allowed("localhost.evil.com", none, 0));
    ck_assert(!host_http_host_allowed("127.0.0.2:80", none, 0));
    ck_assert(!host_http_host_allowed("[::2]:80", none, 0));
    ck_assert(!host_http_host_allowed("localhost:", none, 0));    /* empty port */
    ck_assert(!host_http_host_allowed("localhost:80x", none, 0)); /* not a number */
    ck_assert(!host_http_host_allowed(":80", none, 0));           /* no name */
    ck_assert(!host_http_host_allowed("::1", none, 0));           /* IPv6 needs brackets */
    ck_assert(!host_http_host_allowed("", none, 0));
    ck_assert(!host_http_host_allowed(NULL, none, 0));
}
END_TEST

START_TEST(allow_host_entries_match_the_name_or_the_whole_value)
{
    const char *const allow[] = {"mybox.lan", "dev.lan:7002"};
    ck_assert(host_http_host_allowed("mybox.lan", allow, 2));
    ck_assert(host_http_host_allowed("MyBox.lan:1234", allow, 2)); /* name only: any port */
    ck_assert(host_http_host_allowed("dev.lan:7002", allow, 2));
    ck_assert(!host_http_host_allowed("dev.lan:7003", allow, 2)); /* with port: exactly that */
    ck_assert(!host_http_host_allowed("dev.lan", allow, 2));
    ck_assert(!host_http_host_allowed("evil.com", allow, 2));
    const char *const any[] = {"*"};
    ck_assert(host_http_host_allowed("evil.com:9", any, 1));
    ck_assert(!host_http_host_allowed("evil.com:x", any, 1)); /* still malformed */
}
END_TEST

START_TEST(origin_allows_local_http_and_https_only)
{
    ck_assert(host_http_origin_allowed("http://localhost", none, 0));
    ck_assert(host_http_origin_allowed("http://localhost:6274", none, 0));
    ck_assert(host_http_origin_allowed("https://127.0.0.1:3000", none, 0));
    ck_assert(host_http_origin_allowed("http://[::1]:8080", none, 0));
    ck_assert(host_http_origin_allowed("HTTP://LOCALHOST", none, 0));
    ck_assert(!host_http_origin_allowed("http://evil.com", none, 0));
    ck_assert(!host_http_origin_allowed("http://localhost.evil.com", none, 0));
    ck_assert(!host_http_origin_allowed("ftp://localhost", none, 0));
    ck_assert(!host_http_origin_allowed("null", none, 0));
    ck_assert(!host_http_origin_allowed("http://localhost:abc", none, 0));
    ck_assert(!host_http_origin_allowed(NULL, none, 0));
}
END_TEST

START_TEST(allow_origin_entries_match_exactly_or_everything)
{
    const char *const allow[] = {"https://app.example.com/"};
    ck_assert(host_http_origin_allowed("https://app.example.com", allow, 1));
    ck_assert(host_http_origin_allowed("https://APP.example.com/", allow, 1));
    ck_assert(!host_http_origin_allowed("http://app.example.com", allow, 1));
    ck_assert(!host_http_origin_allowed("https://app.example.com:444", allow, 1));
    const char *const any[] = {"*"};
    ck_assert(host_http_origin_allowed("http://evil.com", any, 1));
    ck_assert(host_http_origin_allowed("null", any, 1));
}
END_TEST

START_TEST(accept_needs_a_matching_range_with_positive_q)
{
    const char *both = "application/json, text/event-stream";
    ck_assert(host_http_accepts(both, "application/json"));
    ck_assert(host_http_accepts(both, "text/event-stream"));
    ck_assert(!host_http_accepts("application/json", "text/event-stream"));
    ck_assert(host_http_accepts("TEXT/Event-Stream;q=0.5", "text/event-stream"));
    ck_assert(host_http_accepts("*/*", "text/event-stream"));
    ck_assert(host_http_accepts("text/*", "text/event-stream"));
    ck_assert(!host_http_accepts("text/*", "application/json"));
    ck_assert(!host_http_accepts("text/event-stream;q=0", "text/event-stream"));
    ck_assert(!host_http_accepts("text/event-stream; q=0.000", "text/event-stream"));
    ck_assert(host_http_accepts("text/event-stream; q=0.001", "text/event-stream"));
    /* The most specific range decides: a refusal of the exact type beats a wildcard. */
    ck_assert(!host_http_accepts("*/*, text/event-stream;q=0", "text/event-stream"));
    ck_assert(host_http_accepts("*/*;q=0, text/event-stream", "text/event-stream"));
    ck_assert(!host_http_accepts("application/jsonx", "application/json"));
    ck_assert(!host_http_accepts("", "application/json"));
    ck_assert(!host_http_accepts(NULL, "application/json"));
}
END_TEST

START_TEST(accepts_each_reads_the_header_once_with_the_same_verdicts)
{
    static const char *const values[] = {
        "application/json, text/event-stream",
        "application/json",
        "TEXT/Event-Stream;q=0.5",
        "*/*",
        "text/*",
        "text/event-stream;q=0, application/json",
        "*/*, text/event-stream;q=0",
        "*/*;q=0, text/event-stream, application/*",
        "application/*;q=0, application/json;q=0.1, text/*;q=0.000",
        " application/json ; q=1 ,text/event-stream;level=1;q=0.9",
        "application/jsonx, text/event-streamy",
        "",
        ",,;",
        NULL,
    };
    static const char *const types[] = {"application/json", "text/event-stream", "text/plain",
                                        "nonsense"};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
        bool ok[4] = {true, true, true, true};
        host_http_accepts_each(values[v], types, 4, ok);
        for (size_t i = 0; i < 4; i++)
            ck_assert_msg(ok[i] == host_http_accepts(values[v], types[i]), "'%s' for %s",
                          values[v] ? values[v] : "(null)", types[i]);
    }
    bool two[2];
    host_http_accepts_each("application/json, text/event-stream", types, 2, two);
    ck_assert(two[0] && two[1]);
    host_http_accepts_each("application/json", types, 2, two);
    ck_assert(two[0] && !two[1]);
}
END_TEST

START_TEST(content_type_is_application_json_with_any_parameters)
{
    ck_assert(host_http_is_json("application/json"));
    ck_assert(host_http_is_json("application/json; charset=utf-8"));
    ck_assert(host_http_is_json(" Application/JSON ;charset=UTF-8"));
    ck_assert(!host_http_is_json("text/plain"));
    ck_assert(!host_http_is_json("application/json-seq"));
    ck_assert(!host_http_is_json("application/x-www-form-urlencoded"));
    ck_assert(!host_http_is_json(""));
    ck_assert(!host_http_is_json(NULL));
}
END_TEST

START_TEST(bearer_token_must_match_exactly)
{
    ck_assert(host_http_bearer_ok("Bearer s3cret", "s3cret"));
    ck_assert(host_http_bearer_ok("bearer  s3cret ", "s3cret"));
    ck_assert(!host_http_bearer_ok("Bearer s3cre", "s3cret"));
    ck_assert(!host_http_bearer_ok("Bearer s3cretX", "s3cret"));
    ck_assert(!host_http_bearer_ok("Bearer S3cret", "s3cret"));
    ck_assert(!host_http_bearer_ok("Basic czNjcmV0", "s3cret"));
    ck_assert(!host_http_bearer_ok("Bearer ", "s3cret"));
    ck_assert(!host_http_bearer_ok("s3cret", "s3cret"));
    ck_assert(!host_http_bearer_ok(NULL, "s3cret"));
    /* a given value longer or shorter than the token is compared over the token's length (no
       early return on the length), and still refused */
    ck_assert(!host_http_bearer_ok("Bearer s", "s3cret"));
    ck_assert(!host_http_bearer_ok("Bearer s3cret s3cret", "s3cret"));
    /* a long token (1,100 characters) */
    static char token[1101], auth[1200];
    for (size_t i = 0; i < 1100; i++) token[i] = (char)('a' + i % 26);
    snprintf(auth, sizeof auth, "Bearer %s", token);
    ck_assert(host_http_bearer_ok(auth, token));
    auth[7 + 1099] = '!';
    ck_assert(!host_http_bearer_ok(auth, token));
}
END_TEST

static Suite *http_check_suite(void)
{
    Suite *s = suite_create("host_http_check");
    TCase *tc = tcase_create("checks");
    tcase_add_test(tc, host_allows_the_loopback_names_with_any_port);
    tcase_add_test(tc, host_refuses_other_names_and_malformed_values);
    tcase_add_test(tc, allow_host_entries_match_the_name_or_the_whole_value);
    tcase_add_test(tc, origin_allows_local_http_and_https_only);
    tcase_add_test(tc, allow_origin_entries_match_exactly_or_everything);
    tcase_add_test(tc, accept_needs_a_matching_range_with_positive_q);
    tcase_add_test(tc, accepts_each_reads_the_header_once_with_the_same_verdicts);
    tcase_add_test(tc, content_type_is_application_json_with_any_parameters);
    tcase_add_test(tc, bearer_token_must_match_exactly);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(http_check_suite)
