/* test_it_tcp.c: integration: the device's TCP transport, many clients, framing, slow readers and
   per-connection MCP sessions with pushed notifications. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fw_codes.h"
#include "it_util.h"
#include "test_util.h"

static it_proc_t proc;

static void start(void)
{
    it_start_board(&proc, "esp32-demo");
}

static void stop(void)
{
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}

static json_int_t reply_id(const char *line)
{
    json_t *r = json_loads(line, 0, NULL);
    ck_assert_msg(r != NULL, "not JSON: %s", line);
    json_int_t id = json_integer_value(json_object_get(r, "id"));
    json_decref(r);
    return id;
}

static void expect_reply_id(it_conn_t *c, json_int_t id)
{
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_msg(line != NULL, "no reply with id %lld", (long long)id);
    ck_assert_int_eq(reply_id(line), id);
    free(line);
}

START_TEST(two_clients_share_the_device_and_get_their_own_replies)
{
    start();
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(a, 1, "gpio_write", "{\"pin\":2,\"value\":true}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    r = it_call(b, 1, "gpio_read", "{\"pin\":2}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value"))); /* one device */
    json_decref(r);

    /* Interleaved: each reply comes back on the connection that asked, in order. */
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"get_info\"}\n");
    it_send(b, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"list_tools\"}\n");
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}\n");
    it_send(b, "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"get_info\"}\n");
    expect_reply_id(b, 20);
    expect_reply_id(a, 10);
    expect_reply_id(a, 11);
    expect_reply_id(b, 21);
    it_conn_close(a);
    it_conn_close(b);
    stop();
}
END_TEST

START_TEST(a_request_split_across_writes_is_one_request)
{
    start();
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    it_send(c, "{\"jsonrpc\":\"2.0\",");
    usleep(50 * 1000);
    it_send(c, "\"id\":7,\"method\":\"get_");
    usleep(50 * 1000);
    it_send(c, "info\"}");
    usleep(50 * 1000);
    it_send(c, "\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"get_info\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"get_info\"}\n");
    expect_reply_id(c, 7);
    expect_reply_id(c, 8);
    expect_reply_id(c, 9);
    it_conn_close(c);
    stop();
}
END_TEST

START_TEST(a_garbage_line_gets_a_parse_error_and_the_next_request_works)
{
    start();
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    json_t *r = it_rpc(c, "this is not json {");
    ck_assert_int_eq(it_error_code(r), FW_RPC_PARSE_ERROR);
    ck_assert(json_is_null(json_object_get(r, "id")));
    json_decref(r);
    r = it_call(c, 2, "get_info", NULL);
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "device")), "esp32-demo");
    json_decref(r);
    it_conn_close(c);
    stop();
}
END_TEST

START_TEST(control_methods_are_not_reachable_over_the_device_transport)
{
    start();
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(c, 3, "sim.advance", "{\"ms\":1000}");
    ck_assert_int_eq(it_error_code(r), FW_RPC_METHOD_NOT_FOUND);
    json_decref(r);
    it_conn_close(c);
    stop();
}
END_TEST

/* A client that shuts down its sending side gets every reply before the server closes (that
   replies still queued in the server are flushed first is shown on the control channel, whose
   larger queue limit allows more than the kernel's socket buffers hold). */
START_TEST(a_client_that_stops_sending_still_gets_its_replies)
{
    enum { N = 100 }; /* about 600 KB of list_tools replies */
    start();
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    char req[96];
    for (int i = 1; i <= N; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"list_tools\"}\n", i);
        it_send(c, req);
    }
    shutdown(c->fd, SHUT_WR); /* as `nc -N` or socat do at the end of their input */
    usleep(200 * 1000);       /* the server sees the end while its replies are queued */
    for (int i = 1; i <= N; i++) expect_reply_id(c, i);
    ck_assert(it_wait_closed(c, IT_TIMEOUT));
    it_conn_close(c);
    stop();
}
END_TEST

START_TEST(clients_come_and_go)
{
    start();
    for (int i = 0; i < 50; i++) {
        it_conn_t *c = it_tcp_connect(proc.tcp_port);
        if (i % 2)
            it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"}\n{\"jsonrpc\"");
        it_conn_close(c); /* mid-reply and mid-request: the server must cope */
    }
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(c, 5, "get_info", NULL);
    it_result(r);
    json_decref(r);
    it_conn_close(c);
    stop();
}
END_TEST

/* A client that sends without ever reading is cut off; the others are served all along. */
START_TEST(a_client_that_does_not_read_is_disconnected_and_others_go_on)
{
    start();
    it_conn_t *hog = it_tcp_connect(proc.tcp_port);
    it_conn_t *good = it_tcp_connect(proc.tcp_port);
    int small = 4096;
    setsockopt(hog->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    fcntl(hog->fd, F_SETFL, fcntl(hog->fd, F_GETFL) | O_NONBLOCK);
    static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"}\n";
    bool cut = false;
    double deadline = it_now() + 4 * IT_TIMEOUT;
    for (int i = 0; !cut && it_now() < deadline; i++) {
        ssize_t n = send(hog->fd, req, sizeof req - 1, MSG_NOSIGNAL);
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
            cut = true;
        else if (n < 0)
            usleep(1000); /* our own send buffer is full: the server is behind, let it run */
        if (i % 500 == 0) {
            json_t *r = it_call(good, i, "get_info", NULL);
            it_result(r);
            json_decref(r);
        }
    }
    ck_assert_msg(cut, "the non-reading client was never disconnected");
    json_t *r = it_call(good, 1, "get_info", NULL);
    it_result(r);
    json_decref(r);
    char *log = it_stderr(&proc);
    ck_assert_msg(strstr(log, "does not read its replies") != NULL, "no warning in: %s", log);
    free(log);
    it_conn_close(hog);
    it_conn_close(good);
    stop();
}
END_TEST

/* Whether the server has closed c (its end of input, or a reset), without waiting. */
static bool closed_by_server(it_conn_t *c)
{
    char b;
    ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* A listener serves at most half the open-files limit at once, as HTTP does: past it a
   connection is closed as it comes, with a warning, and the others go on; one leaving makes
   room. The limit here: 100 descriptors (set before mcpsim starts, which raises its soft limit
   to the hard one), so 50 connections. */
START_TEST(connections_past_the_listener_limit_are_closed_with_a_warning)
{
    struct rlimit rl = {100, 100};
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    const char *args[] = {"--board", "esp32-demo", "--tcp",       "0",     "--clock",
                          "virtual", "--log-level", "debug", NULL};
    ck_assert(it_start(&proc, args));
    enum { N = 60, LIMIT = 50 };
    it_conn_t *c[N];
    for (int i = 0; i < N; i++) c[i] = it_tcp_connect(proc.tcp_port);
    double deadline = it_now() + IT_TIMEOUT;
    int closed = 0;
    while (it_now() < deadline) { /* until the server has seen them all */
        closed = 0;
        for (int i = 0; i < N; i++) closed += closed_by_server(c[i]);
        if (closed >= N - LIMIT) break;
        usleep(20000);
    }
    usleep(200000); /* and no more than those */
    closed = 0;
    for (int i = 0; i < N; i++) closed += closed_by_server(c[i]);
    ck_assert_int_eq(closed, N - LIMIT);
    for (int i = 0; i < LIMIT; i++) ck_assert_msg(!closed_by_server(c[i]), "connection %d", i);
    json_t *r = it_call(c[LIMIT - 1], 1, "get_info", NULL); /* the served ones go on */
    it_result(r);
    json_decref(r);
    char *log = it_stderr(&proc);
    ck_assert_msg(strstr(log, "past the limit of 50 open at once") != NULL, "%s", log);
    free(log);
    it_conn_close(c[0]); /* one leaves: room for one more */
    it_conn_t *late = NULL;
    for (int attempt = 0; attempt < 50 && !late; attempt++) {
        usleep(100000);
        late = it_tcp_connect(proc.tcp_port);
        usleep(100000);
        if (closed_by_server(late)) {
            it_conn_close(late);
            late = NULL;
        }
    }
    ck_assert_ptr_nonnull(late);
    r = it_call(late, 2, "get_info", NULL);
    it_result(r);
    json_decref(r);
    it_conn_close(late);
    for (int i = 1; i < N; i++) it_conn_close(c[i]);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}
END_TEST

/* With a small output budget a client that does not read is not read either (back-pressure)
   instead of being cut: its requests wait, the others go on, and once it reads it gets an
   answer to every request it sent. */
START_TEST(a_client_over_its_output_share_is_not_read_until_it_reads)
{
    const char *args[] = {"--board",     "esp32-demo", "--tcp",           "0", "--clock",
                          "virtual",     "--log-level", "debug", "--output-budget", "1", NULL};
    ck_assert(it_start(&proc, args));
    it_conn_t *hog = it_tcp_connect(proc.tcp_port);
    it_conn_t *good = it_tcp_connect(proc.tcp_port);
    /* (no tiny SO_RCVBUF here: set after the connection, it starves the transfer later) */
    fcntl(hog->fd, F_SETFL, fcntl(hog->fd, F_GETFL) | O_NONBLOCK);
    static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"}\n";
    const size_t line = sizeof req - 1;
    size_t bytes = 0; /* sent so far: whole lines, and maybe the start of one */
    double blocked_since = 0, deadline = it_now() + 4 * IT_TIMEOUT;
    bool cut = false;
    while (it_now() < deadline) { /* until the hog's sending has been blocked for 2 s */
        ssize_t n = send(hog->fd, req + bytes % line, line - bytes % line, MSG_NOSIGNAL);
        if (n > 0) {
            bytes += (size_t)n;
            blocked_since = 0;
            continue;
        }
        if (errno == EPIPE || errno == ECONNRESET) {
            cut = true;
            break;
        }
        if (blocked_since == 0) blocked_since = it_now();
        if (it_now() - blocked_since > 2.0) break;
        usleep(2000);
    }
    ck_assert_msg(!cut, "the client over its share was disconnected, not held back");
    long sent = (long)(bytes / line); /* a line cut short is never answered */
    ck_assert_int_gt(sent, 100);
    json_t *r = it_call(good, 1, "get_info", NULL); /* the other client goes on */
    it_result(r);
    json_decref(r);
    char *log = it_stderr(&proc);
    ck_assert_msg(strstr(log, "not read until it reads") != NULL, "no back-pressure in: %s", log);
    free(log);
    /* now it reads: every request it sent is answered */
    fcntl(hog->fd, F_SETFL, fcntl(hog->fd, F_GETFL) & ~O_NONBLOCK);
    long answered = 0;
    for (char *l; answered < sent && (l = it_read_line(hog, IT_TIMEOUT)) != NULL; free(l))
        answered++;
    ck_assert_int_eq(answered, sent);
    it_conn_close(hog);
    it_conn_close(good);
    stop();
}
END_TEST

/* Requests with long answers are handled a turn at a time per client (net.c): two clients
   that pipeline 300 list_tools each at once, and a third that asks in between, all get every
   answer, each client's in the order it asked. */
START_TEST(pipelined_long_answers_come_whole_and_in_order_turn_by_turn)
{
    start();
    enum { N = 300 };
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    size_t cap = N * 64, used = 0;
    char *batch = malloc(cap);
    ck_assert_ptr_nonnull(batch);
    for (int i = 1; i <= N; i++)
        used += (size_t)snprintf(batch + used, cap - used,
                                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"list_tools\"}\n", i);
    it_send(a, batch);
    it_send(b, batch);
    free(batch);
    json_t *r = it_call(c, 7, "get_info", NULL);
    it_result(r);
    json_decref(r);
    for (int i = 1; i <= N; i++) {
        expect_reply_id(a, i);
        expect_reply_id(b, i);
    }
    it_conn_close(a);
    it_conn_close(b);
    it_conn_close(c);
    stop();
}
END_TEST

/* ---------------------------------------------------------------- MCP sessions and pushes */

static const char initialize[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}\n";

static json_t *read_json(it_conn_t *c)
{
    char *line = it_read_line(c, IT_TIMEOUT);
    ck_assert_msg(line != NULL, "no line within %.0f s", IT_TIMEOUT);
    json_t *m = json_loads(line, 0, NULL);
    ck_assert_msg(m != NULL, "not JSON: %s", line);
    free(line);
    return m;
}

static const char *method_of(json_t *m)
{
    const char *s = json_string_value(json_object_get(m, "method"));
    return s ? s : "";
}

/* The response with id, skipping the notifications an MCP session may get before it (log
   messages); anything else first fails. */
static json_t *response_to(it_conn_t *c, json_int_t id)
{
    for (;;) {
        json_t *m = read_json(c);
        if (json_object_get(m, "id")) {
            ck_assert_int_eq(json_integer_value(json_object_get(m, "id")), id);
            return m;
        }
        ck_assert_msg(strcmp(method_of(m), "notifications/resources/updated") != 0,
                      "resources/updated where the response to %lld was expected", (long long)id);
        json_decref(m);
    }
}

/* The next notification named method, skipping other notifications (never a response). */
static json_t *next_notification(it_conn_t *c, const char *method)
{
    for (;;) {
        json_t *m = read_json(c);
        ck_assert_msg(!json_object_get(m, "id"), "a response where %s was expected", method);
        if (strcmp(method_of(m), method) == 0) return m;
        json_decref(m);
    }
}

static const char *updated_uri(json_t *n)
{
    const char *s = json_string_value(json_object_get(json_object_get(n, "params"), "uri"));
    return s ? s : "";
}

/* initialize + notifications/initialized, then resources/subscribe uri (when not NULL). */
static void mcp_open(it_conn_t *c, const char *uri)
{
    it_send(c, initialize);
    json_t *r = response_to(c, 1);
    it_result(r);
    json_decref(r);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    if (!uri) return;
    char req[160];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
             "\"params\":{\"uri\":\"%s\"}}\n",
             uri);
    it_send(c, req);
    r = response_to(c, 2);
    it_result(r);
    json_decref(r);
}

static void advance(int ms)
{
    char params[40];
    snprintf(params, sizeof params, "{\"ms\":%d}", ms);
    it_conn_t *ctl = it_tcp_connect(proc.control_port);
    json_t *r = it_call(ctl, 1, "sim.advance", params);
    it_result(r);
    json_decref(r);
    it_conn_close(ctl);
}

/* The issue-3 promise: a subscribed MCP client on TCP hears of the change the control channel
   made; an MCP/U client on the same port gets nothing extra, and an MCP client that did not
   subscribe gets no resources/updated (sessions are per connection). */
START_TEST(a_tcp_subscriber_is_told_and_other_clients_get_nothing_extra)
{
    start();
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    it_conn_t *c = it_tcp_connect(proc.tcp_port);
    mcp_open(a, "pin://sensor");
    mcp_open(c, NULL);
    json_t *r = it_call(b, 1, "get_info", NULL);
    it_result(r);
    json_decref(r);

    advance(5000);

    json_t *n = next_notification(a, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://sensor");
    json_decref(n);
    /* MCP/U: the very next line is the answer to its next request. */
    it_send(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_info\"}\n");
    expect_reply_id(b, 2);
    /* The unsubscribed MCP session: its ping answer comes with no resources/updated before it. */
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
    json_decref(response_to(c, 3));
    /* A keeps hearing (a second change); B still gets nothing extra. */
    advance(5000);
    n = next_notification(a, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://sensor");
    json_decref(n);
    it_send(b, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"get_info\"}\n");
    expect_reply_id(b, 3);
    it_conn_close(a);
    it_conn_close(b);
    it_conn_close(c);
    stop();
}
END_TEST

START_TEST(an_unsubscribed_tcp_client_is_no_longer_told)
{
    start();
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    mcp_open(a, "pin://sensor");
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\","
               "\"params\":{\"uri\":\"pin://sensor\"}}\n");
    json_t *r = response_to(a, 3);
    it_result(r);
    json_decref(r);
    advance(5000);
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n");
    json_decref(response_to(a, 4)); /* fails on a resources/updated before it */
    it_conn_close(a);
    stop();
}
END_TEST

/* A change one TCP client makes is pushed at once to another TCP client that subscribed, without
   that one sending anything. */
START_TEST(a_change_made_by_one_tcp_client_is_pushed_to_another)
{
    start();
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    mcp_open(a, "pin://led");
    json_t *r = it_call(b, 1, "gpio_write", "{\"pin\":2,\"value\":true}");
    it_result(r);
    json_decref(r);
    json_t *n = next_notification(a, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://led");
    json_decref(n);
    it_conn_close(a);
    it_conn_close(b);
    stop();
}
END_TEST

/* The pty has its own session: a subscriber there is told of a change made over TCP, and the
   TCP client (MCP/U) gets nothing extra. */
START_TEST(a_pty_subscriber_is_told_of_a_change_made_over_tcp)
{
    start();
    it_conn_t *u = it_serial_open(proc.uart);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    mcp_open(u, "pin://led");
    json_t *r = it_call(b, 1, "gpio_write", "{\"pin\":2,\"value\":true}");
    it_result(r);
    json_decref(r);
    json_t *n = next_notification(u, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://led");
    json_decref(n);
    it_send(b, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_info\"}\n");
    expect_reply_id(b, 2);
    it_conn_close(u);
    it_conn_close(b);
    stop();
}
END_TEST

/* With many clients connected the host drains only what may have changed (fw_device_pending):
   a change still reaches the subscriber among them, the others get nothing extra, and a write
   that changes nothing tells nobody. */
START_TEST(among_many_clients_a_change_reaches_the_subscriber_only)
{
    enum { IDLE = 40, QUIET = 4 };
    start();
    it_conn_t *idle[IDLE], *quiet[QUIET];
    for (int i = 0; i < IDLE; i++) idle[i] = it_tcp_connect(proc.tcp_port);
    it_conn_t *a = it_tcp_connect(proc.tcp_port);
    it_conn_t *b = it_tcp_connect(proc.tcp_port);
    mcp_open(a, "pin://led");
    for (int i = 0; i < QUIET; i++) {
        quiet[i] = it_tcp_connect(proc.tcp_port);
        mcp_open(quiet[i], NULL);
    }
    json_t *r = it_call(b, 1, "gpio_write", "{\"pin\":2,\"value\":true}");
    it_result(r);
    json_decref(r);
    json_t *n = next_notification(a, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://led");
    json_decref(n);
    /* the same level again: nothing changed, A's ping answer comes with nothing before it */
    r = it_call(b, 2, "gpio_write", "{\"pin\":2,\"value\":true}");
    it_result(r);
    json_decref(r);
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
    json_decref(response_to(a, 3));
    /* the unsubscribed sessions heard nothing (response_to fails on a resources/updated) */
    for (int i = 0; i < QUIET; i++) {
        it_send(quiet[i], "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n");
        json_decref(response_to(quiet[i], 4));
        it_conn_close(quiet[i]);
    }
    /* A's own change, in its own call: the response, then the update */
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":false}}}\n");
    json_decref(response_to(a, 5));
    n = next_notification(a, "notifications/resources/updated");
    ck_assert_str_eq(updated_uri(n), "pin://led");
    json_decref(n);
    for (int i = 0; i < IDLE; i++) it_conn_close(idle[i]);
    it_conn_close(a);
    it_conn_close(b);
    stop();
}
END_TEST

static Suite *it_tcp_suite(void)
{
    Suite *s = suite_create("it_tcp");
    TCase *tc = tcase_create("tcp");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, two_clients_share_the_device_and_get_their_own_replies);
    tcase_add_test(tc, a_request_split_across_writes_is_one_request);
    tcase_add_test(tc, a_garbage_line_gets_a_parse_error_and_the_next_request_works);
    tcase_add_test(tc, control_methods_are_not_reachable_over_the_device_transport);
    tcase_add_test(tc, a_client_that_stops_sending_still_gets_its_replies);
    tcase_add_test(tc, clients_come_and_go);
    tcase_add_test(tc, a_client_that_does_not_read_is_disconnected_and_others_go_on);
    tcase_add_test(tc, a_client_over_its_output_share_is_not_read_until_it_reads);
    tcase_add_test(tc, connections_past_the_listener_limit_are_closed_with_a_warning);
    tcase_add_test(tc, pipelined_long_answers_come_whole_and_in_order_turn_by_turn);
    tcase_add_test(tc, a_tcp_subscriber_is_told_and_other_clients_get_nothing_extra);
    tcase_add_test(tc, an_unsubscribed_tcp_client_is_no_longer_told);
    tcase_add_test(tc, a_change_made_by_one_tcp_client_is_pushed_to_another);
    tcase_add_test(tc, a_pty_subscriber_is_told_of_a_change_made_over_tcp);
    tcase_add_test(tc, among_many_clients_a_change_reaches_the_subscriber_only);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_tcp_suite)
