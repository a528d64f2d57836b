/* test_it_stdio.c: integration: --stdio, MCP's stdio transport (stdin/stdout, one session), alone
   and beside TCP; only protocol lines on stdout; the end of stdin ends the process. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "it_util.h"
#include "test_util.h"

#define INIT                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"     \
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"

/* Every line the child writes to stdout until it closes it; each must be a JSON-RPC object. */
static json_t *read_all(it_conn_t *c)
{
    json_t *all = json_array();
    char *line;
    while ((line = it_read_line(c, IT_TIMEOUT)) != NULL) {
        json_error_t e;
        json_t *doc = json_loads(line, 0, &e);
        ck_assert_msg(json_is_object(doc), "not a JSON-RPC message on stdout: '%s'", line);
        ck_assert_str_eq(json_string_value(json_object_get(doc, "jsonrpc")), "2.0");
        json_array_append_new(all, doc);
        free(line);
    }
    return all;
}

static json_t *by_id(json_t *all, int id)
{
    size_t i;
    json_t *m;
    json_array_foreach(all, i, m) if (json_integer_value(json_object_get(m, "id")) == id) return m;
    ck_abort_msg("no response with id %d", id);
    return NULL;
}

static void initialize(it_conn_t *c)
{
    json_t *r = it_rpc(c, INIT);
    json_t *res = it_result(r);
    ck_assert_str_eq(json_string_value(json_object_get(res, "protocolVersion")), "2025-06-18");
    ck_assert_ptr_nonnull(json_object_get(json_object_get(res, "capabilities"), "tools"));
    json_decref(r);
    it_send(c, INITIALIZED);
}

START_TEST(stdio_serves_an_mcp_session_and_exits_when_stdin_closes)
{
    it_proc_t p;
    const char *args[] = {"--board", "esp32-demo", "--stdio", NULL};
    it_conn_t *c = it_start_stdio(&p, args);
    ck_assert_ptr_nonnull(c);
    char *err = it_stderr(&p);
    ck_assert_msg(strstr(err, "stdio: stdin/stdout\nready\n"), "readiness on stderr: %s", err);
    free(err);
    initialize(c);
    /* every page of tools/list, then calls, a resource, ping, a bad line and MCP/U */
    size_t tools = 0, pages = 0;
    char cursor[64] = "";
    do {
        char req[256];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/list\"%s%s%s}\n", 100 + pages,
                 cursor[0] ? ",\"params\":{\"cursor\":\"" : "", cursor, cursor[0] ? "\"}" : "");
        json_t *r = it_rpc(c, req);
        json_t *res = it_result(r);
        tools += json_array_size(json_object_get(res, "tools"));
        const char *next = json_string_value(json_object_get(res, "nextCursor"));
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        json_decref(r);
        pages++;
    } while (cursor[0] && pages < 20);
    ck_assert_uint_ge(tools, 8);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"gpio_write\",\"arguments\":{\"pin\":\"led\",\"value\":true}}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}\n"
               "this is not json\n"
               "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_info\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}");
    it_close_input(c); /* the last line has no newline: still answered */
    json_t *all = read_all(c);
    json_t *call = it_result(by_id(all, 2));
    ck_assert(!json_is_true(json_object_get(call, "isError")));
    ck_assert(json_is_true(json_object_get(json_object_get(call, "structuredContent"), "value")));
    ck_assert_uint_gt(json_array_size(json_object_get(it_result(by_id(all, 3)), "resources")), 0);
    ck_assert_int_eq(json_object_size(it_result(by_id(all, 4))), 0);
    ck_assert_str_eq(json_string_value(json_object_get(it_result(by_id(all, 5)), "device")),
                     "esp32-demo");
    ck_assert(json_is_true(json_object_get(it_result(by_id(all, 6)), "value")));
    size_t i, parse_errors = 0;
    json_t *m;
    json_array_foreach(all, i, m) parse_errors +=
        json_integer_value(json_object_get(json_object_get(m, "error"), "code")) == -32700;
    ck_assert_uint_eq(parse_errors, 1);
    json_decref(all);
    ck_assert_int_eq(it_wait_exit(&p), 0); /* by itself, after the answers */
    it_conn_close(c);
    unlink(p.err_path);
}
END_TEST

/* stdio and TCP at once on the one device: a write over TCP is seen over stdio, and the stdio
   session, subscribed to the pin's resource, is told of it. */
START_TEST(stdio_works_beside_tcp)
{
    it_proc_t p;
    const char *args[] = {"--board", "esp32-demo", "--stdio", "--tcp", "0", NULL};
    it_conn_t *c = it_start_stdio(&p, args);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_gt(p.tcp_port, 0);
    initialize(c);
    json_t *r = it_rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                          "\"params\":{\"uri\":\"pin://led\"}}\n");
    it_result(r);
    json_decref(r);
    it_conn_t *t = it_tcp_connect(p.tcp_port);
    json_decref(it_call(t, 1, "gpio_write", "{\"pin\":\"led\",\"value\":true}"));
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_ptr_nonnull(line);
    ck_assert_msg(strstr(line, "notifications/resources/updated") && strstr(line, "pin://led"),
                  "%s", line);
    free(line);
    r = it_rpc(c,
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}\n");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    it_close_input(c);
    ck_assert_int_eq(it_wait_exit(&p), 0); /* stdin's end ends the TCP side too */
    ck_assert(it_wait_closed(t, IT_TIMEOUT));
    it_conn_close(t);
    it_conn_close(c);
    unlink(p.err_path);
}
END_TEST

/* stdin a file, stdout a file: the process answers everything and exits 0. */
START_TEST(stdio_reads_a_file_and_writes_a_file)
{
    char in_path[] = "/tmp/mcpsim-stdin-XXXXXX", out_path[] = "/tmp/mcpsim-stdout-XXXXXX";
    int in = mkstemp(in_path), out = mkstemp(out_path);
    ck_assert(in >= 0 && out >= 0);
    const char *text = INIT INITIALIZED "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    ck_assert_int_eq(write(in, text, strlen(text)), (ssize_t)strlen(text));
    lseek(in, 0, SEEK_SET);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in, 0);
        dup2(out, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execl(it_bin(), it_bin(), "--board", "uno", "--stdio", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    double deadline = it_now() + IT_TIMEOUT;
    while (waitpid(pid, &status, WNOHANG) == 0 && it_now() < deadline) usleep(2000);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char buf[8192] = "";
    ssize_t n = pread(out, buf, sizeof buf - 1, 0);
    ck_assert_int_gt(n, 0);
    ck_assert_msg(strstr(buf, "\"id\":1,\"result\"") && strstr(buf, "{\"jsonrpc\":\"2.0\",\"id\":2,"
                                                                    "\"result\":{}}\n"),
                  "%s", buf);
    ck_assert_msg(!strstr(buf, "ready"), "readiness on stdout: %s", buf);
    close(in);
    close(out);
    unlink(in_path);
    unlink(out_path);
}
END_TEST

/* SIGTERM still ends a --stdio process cleanly while stdin stays open. */
START_TEST(stdio_stops_on_sigterm)
{
    it_proc_t p;
    const char *args[] = {"--board", "uno", "--stdio", NULL};
    it_conn_t *c = it_start_stdio(&p, args);
    ck_assert_ptr_nonnull(c);
    initialize(c);
    ck_assert_int_eq(it_stop(&p, SIGTERM, NULL), 0);
    it_conn_close(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("it_stdio");
    TCase *tc = tcase_create("stdio");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stdio_serves_an_mcp_session_and_exits_when_stdin_closes);
    tcase_add_test(tc, stdio_works_beside_tcp);
    tcase_add_test(tc, stdio_reads_a_file_and_writes_a_file);
    tcase_add_test(tc, stdio_stops_on_sigterm);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(suite)
