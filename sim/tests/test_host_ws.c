/* test_host_ws.c: unit tests of the WebSocket transport's pure parts: the --connect URL and the
   --connect-header check. */
#include <check.h>
#include <string.h>

#include "test_util.h"
#include "ws.h"

static host_ws_url_t url;
static char err[512];

static void parses(const char *text, const char *host, unsigned port, const char *path)
{
    ck_assert_msg(host_ws_url_parse(text, &url, err, sizeof err) == 0, "%s: %s", text, err);
    ck_assert_str_eq(url.host, host);
    ck_assert_uint_eq(url.port, port);
    ck_assert_str_eq(url.path, path);
}

static void refused(const char *text, const char *why)
{
    err[0] = 0;
    ck_assert_msg(host_ws_url_parse(text, &url, err, sizeof err) == -1, "%s was accepted", text);
    ck_assert_msg(strstr(err, why) != NULL, "%s: '%s' lacks '%s'", text, err, why);
    ck_assert_msg(strstr(err, text) != NULL, "the message does not quote the URL: %s", err);
}

START_TEST(urls_are_taken_apart)
{
    parses("ws://127.0.0.1:8000/xiaozhi/v1/", "127.0.0.1", 8000, "/xiaozhi/v1/");
    parses("ws://backend.lan", "backend.lan", 80, "/");
    parses("ws://backend.lan:9", "backend.lan", 9, "/");
    parses("WS://Backend.lan:65535/a?b=c", "Backend.lan", 65535, "/a?b=c");
    parses("ws://h?device=1", "h", 80, "/?device=1");
    parses("ws://[::1]:7003/mcp", "::1", 7003, "/mcp");
    parses("ws://[::1]", "::1", 80, "/");
}
END_TEST

START_TEST(bad_urls_are_refused_with_the_reason)
{
    refused("wss://backend.lan/x", "wss:// (TLS) is not supported");
    refused("http://backend.lan/x", "expected ws://HOST[:PORT][/PATH]");
    refused("backend.lan:80", "expected ws://");
    refused("ws://", "expected ws://");
    refused("ws://:80/x", "expected ws://");
    refused("ws://h:0/x", "a port 1-65535");
    refused("ws://h:65536/x", "a port 1-65535");
    refused("ws://h:80x/", "expected ws://");
    refused("ws://h:/", "expected ws://");
    refused("ws://[::1/x", "expected ws://");
    refused("ws://[::1]x/", "expected ws://");
    refused("ws://h/#frag", "expected ws://");
    refused("ws://h/a b", "space or control character");
}
END_TEST

START_TEST(connect_headers_are_name_colon_value_on_one_line)
{
    ck_assert_int_eq(host_ws_header_check("Authorization: Bearer t0k", err, sizeof err), 0);
    ck_assert_int_eq(host_ws_header_check("Device-Id:02:00:00:00:00:01", err, sizeof err), 0);
    ck_assert_int_eq(host_ws_header_check("X-Empty:", err, sizeof err), 0);
    static const char *const bad[] = {"NoColon", ": value", "Bad Name: x", "A: b\r\nC: d",
                                      "A: b\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(host_ws_header_check(bad[i], err, sizeof err) == -1, "'%s' accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "expected 'Name: value' on one line"));
    }
}
END_TEST

static Suite *host_ws_suite(void)
{
    Suite *s = suite_create("host_ws");
    TCase *tc = tcase_create("url");
    tcase_add_test(tc, urls_are_taken_apart);
    tcase_add_test(tc, bad_urls_are_refused_with_the_reason);
    tcase_add_test(tc, connect_headers_are_name_colon_value_on_one_line);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(host_ws_suite)
