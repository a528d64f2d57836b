/* test_stream.c: line reassembly is independent of chunking; TCP and host:port parsing. */
#define _DEFAULT_SOURCE
#include <sys/socket.h>
#include <unistd.h>

#include "ctest_util.h"
#include "stream.h"
#include "util.h"

static const char *const msgs = "{\"id\":1}\n{\"id\":2}\r\n\n{\"id\":3}\n";

/* Pushes msgs in chunks of size n and collects the lines popped, joined by '|'. */
static void reassemble(size_t n, char *out, size_t cap)
{
    conf_lines_t l = {0};
    conf_buf_t got = {0};
    size_t len = strlen(msgs);
    for (size_t i = 0; i < len; i += n) {
        conf_lines_push(&l, msgs + i, len - i < n ? len - i : n);
        char *line;
        size_t ll;
        while ((line = conf_lines_pop(&l, &ll)) != NULL) {
            ck_assert_uint_eq(ll, strlen(line));
            conf_buf_addf(&got, "%s|", line);
            free(line);
        }
    }
    conf_copy(out, cap, conf_buf_str(&got));
    conf_buf_free(&got);
    conf_lines_free(&l);
}

START_TEST(any_chunking_gives_the_same_lines)
{
    char first[256], other[256];
    reassemble(strlen(msgs), first, sizeof first);
    ck_assert_str_eq(first, "{\"id\":1}|{\"id\":2}|{\"id\":3}|");
    for (size_t n = 1; n < strlen(msgs); n++) {
        reassemble(n, other, sizeof other);
        ck_assert_msg(strcmp(first, other) == 0, "chunks of %zu: %s", n, other);
    }
}
END_TEST

START_TEST(partial_line_waits)
{
    conf_lines_t l = {0};
    conf_lines_push(&l, "{\"a\":", 5);
    ck_assert_ptr_null(conf_lines_pop(&l, NULL));
    conf_lines_push(&l, "1}", 2);
    ck_assert_ptr_null(conf_lines_pop(&l, NULL));
    conf_lines_push(&l, "\n", 1);
    char *line = conf_lines_pop(&l, NULL);
    ck_assert_str_eq(line, "{\"a\":1}");
    free(line);
    ck_assert_ptr_null(conf_lines_pop(&l, NULL));
    conf_lines_free(&l);
}
END_TEST

START_TEST(stream_reads_with_deadline)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    conf_stream_t s;
    conf_stream_init(&s, sv[0]);
    char *line, err[128];
    size_t len;
    int64_t t0 = conf_now_ms();
    ck_assert_int_eq(conf_stream_read_line(&s, t0 + 30, &line, &len, err, sizeof err), 0);
    ck_assert_int_ge(conf_now_ms() - t0, 25);
    ck_assert_int_eq(write(sv[1], "one\ntw", 6), 6);
    ck_assert_int_eq(conf_stream_read_line(&s, conf_now_ms() + 500, &line, &len, err, sizeof err),
                     1);
    ck_assert_str_eq(line, "one");
    free(line);
    ck_assert_int_eq(conf_stream_read_line(&s, conf_now_ms() + 20, &line, &len, err, sizeof err),
                     0);
    ck_assert_int_eq(write(sv[1], "o\n", 2), 2);
    ck_assert_int_eq(conf_stream_read_line(&s, conf_now_ms() + 500, &line, &len, err, sizeof err),
                     1);
    ck_assert_str_eq(line, "two");
    free(line);
    ck_assert_int_eq(conf_stream_write(&s, "x\n", 2, conf_now_ms() + 500, err, sizeof err), 0);
    char back[4] = {0};
    ck_assert_int_eq(read(sv[1], back, 2), 2);
    ck_assert_str_eq(back, "x\n");
    close(sv[1]);
    ck_assert_int_eq(conf_stream_read_line(&s, conf_now_ms() + 500, &line, &len, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "the device closed the connection");
    conf_stream_close(&s);
}
END_TEST

START_TEST(host_port_parsing)
{
    char host[64];
    int port;
    ck_assert(conf_split_hostport("127.0.0.1:7000", host, sizeof host, &port));
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_int_eq(port, 7000);
    ck_assert(conf_split_hostport("[::1]:80", host, sizeof host, &port));
    ck_assert_str_eq(host, "::1");
    ck_assert(!conf_split_hostport("localhost", host, sizeof host, &port));
    ck_assert(!conf_split_hostport(":80", host, sizeof host, &port));
    ck_assert(!conf_split_hostport("h:0", host, sizeof host, &port));
    ck_assert(!conf_split_hostport("h:70000", host, sizeof host, &port));
    ck_assert(!conf_split_hostport("h:12x", host, sizeof host, &port));
}
END_TEST

START_TEST(tcp_connect_refused_is_reported)
{
    char err[256];
    ck_assert_int_eq(conf_tcp_connect("127.0.0.1", 1, 500, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cannot connect to 127.0.0.1:1") != NULL, "%s", err);
}
END_TEST

static Suite *stream_suite(void)
{
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_add_test(tc, any_chunking_gives_the_same_lines);
    tcase_add_test(tc, partial_line_waits);
    tcase_add_test(tc, stream_reads_with_deadline);
    tcase_add_test(tc, host_port_parsing);
    tcase_add_test(tc, tcp_connect_refused_is_reported);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(stream_suite)
