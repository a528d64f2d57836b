/* test_it_dashboard.c: integration: the browser dashboard (mcpsim --dashboard): the page, its
   event stream following the device, control requests, and the checks of --http. */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "it_util.h"
#include "test_util.h"

static it_proc_t proc;
static int dash_port;

static void start_with(const char *extra_flag, const char *extra_value)
{
    const char *args[] = {"--board",  "uno",       "--tcp",   "0",           "--dashboard",
                          "0",        "--clock",   "virtual", "--log-level", "warn",
                          extra_flag, extra_value, NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    ck_assert_msg(strncmp(proc.dashboard, "http://127.0.0.1:", 17) == 0, "dashboard line: '%s'",
                  proc.dashboard);
    dash_port = atoi(proc.dashboard + 17);
    ck_assert_int_gt(dash_port, 0);
}

static void setup(void)
{
    start_with(NULL, NULL);
}

static void teardown(void)
{
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
}

/* ---------------------------------------------------------------- a bare HTTP/1.0 client */

/* Sends a whole request (HTTP/1.0: the answer ends with the connection, never chunked). */
static it_conn_t *send_request(const char *request)
{
    it_conn_t *c = it_tcp_connect(dash_port);
    it_send(c, request);
    return c;
}

/* The whole answer to request (malloc'd), read until the server closes. */
static char *http(const char *request)
{
    it_conn_t *c = send_request(request);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    double deadline = it_now() + IT_TIMEOUT;
    for (;;) {
        struct pollfd pfd = {c->fd, POLLIN, 0};
        ck_assert_msg(poll(&pfd, 1, 100) >= 0 && it_now() < deadline, "no complete answer");
        if (!(pfd.revents & (POLLIN | POLLHUP))) continue;
        if (len + 4096 > cap) ck_assert_ptr_nonnull(out = realloc(out, cap *= 2));
        ssize_t n = read(c->fd, out + len, cap - len - 1);
        if (n <= 0) break;
        len += (size_t)n;
    }
    out[len] = 0;
    it_conn_close(c);
    return out;
}

static int status_of(const char *answer)
{
    ck_assert_msg(strncmp(answer, "HTTP/1.", 7) == 0, "not HTTP: %.80s", answer);
    return atoi(answer + 9);
}

static const char *body_of(const char *answer)
{
    const char *b = strstr(answer, "\r\n\r\n");
    ck_assert_ptr_nonnull(b);
    return b + 4;
}

/* A POST of a control message to /api/control; the whole answer. */
static char *control(const char *msg, const char *extra_headers)
{
    char req[2048];
    snprintf(req, sizeof req,
             "POST /api/control HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "%sContent-Length: %zu\r\n\r\n%s",
             extra_headers ? extra_headers : "", strlen(msg), msg);
    return http(req);
}

/* The next "data:" line of an event stream as JSON (the sim.snapshot response's result). */
static json_t *next_snapshot(it_conn_t *c, double timeout_s, json_t **doc)
{
    double deadline = it_now() + timeout_s;
    for (;;) {
        double left = deadline - it_now();
        char *line = left > 0 ? it_read_line(c, left) : NULL;
        if (!line) return NULL;
        if (strncmp(line, "data: ", 6) == 0) {
            *doc = json_loads(line + 6, 0, NULL);
            free(line);
            ck_assert_ptr_nonnull(*doc);
            return json_object_get(*doc, "result");
        }
        free(line);
    }
}

static json_t *pin_of(json_t *snapshot, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(snapshot, "pins"), i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "name")), name) == 0) return p;
    }
    ck_abort_msg("no pin %s in the snapshot", name);
    return NULL;
}

/* ---------------------------------------------------------------- tests */

START_TEST(the_page_is_served_and_names_no_external_resource)
{
    char *a = http("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 200);
    ck_assert_msg(strcasestr(a, "Content-Type: text/html"), "%.300s", a);
    ck_assert_msg(strcasestr(a, "Content-Security-Policy: default-src 'none'"), "%.600s", a);
    const char *body = body_of(a);
    ck_assert_ptr_nonnull(strstr(body, "<!doctype html>"));
    ck_assert_ptr_nonnull(strstr(body, "data-pin"));
    /* no absolute URL at all: every resource is the page's own (relative "events", "api/...") */
    ck_assert_msg(!strcasestr(body, "http://") && !strcasestr(body, "https://") &&
                      !strstr(body, "//cdn") && !strcasestr(body, "src=\"//"),
                  "the page names an external resource");
    ck_assert_msg(!strcasestr(body, "<script src") && !strcasestr(body, "<link "),
                  "the page loads a separate file");
    free(a);
}
END_TEST

START_TEST(the_event_stream_follows_a_gpio_write_over_tcp)
{
    it_conn_t *sse = send_request("GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    json_t *doc = NULL;
    json_t *s = next_snapshot(sse, IT_TIMEOUT, &doc);
    ck_assert_msg(s != NULL, "no first snapshot");
    ck_assert_str_eq(json_string_value(json_object_get(s, "device")), "uno");
    ck_assert(json_is_false(json_object_get(pin_of(s, "led"), "level")));
    json_decref(doc);

    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    double t0 = it_now();
    json_decref(it_call(tcp, 1, "gpio_write", "{\"pin\":\"led\",\"value\":true}"));
    bool seen = false;
    while (!seen && (s = next_snapshot(sse, 1.0 - (it_now() - t0), &doc)) != NULL) {
        seen = json_is_true(json_object_get(pin_of(s, "led"), "level"));
        json_decref(doc);
    }
    double took = it_now() - t0;
    ck_assert_msg(seen, "no snapshot with led true within 1 s");
    fprintf(stderr, "dashboard: gpio_write led true -> event with led true in %.1f ms\n",
            took * 1000);
    it_conn_close(tcp);
    it_conn_close(sse);
}
END_TEST

START_TEST(a_control_request_is_seen_by_gpio_read_over_tcp)
{
    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(tcp, 1, "gpio_read", "{\"pin\":\"button\"}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value"))); /* pull-up */
    json_decref(r);
    char *a = control("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sim.set_input\","
                      "\"params\":{\"pin\":\"button\",\"level\":false}}",
                      "Origin: http://127.0.0.1\r\n");
    ck_assert_int_eq(status_of(a), 200);
    json_t *doc = json_loads(body_of(a), 0, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "id")), 7);
    ck_assert(json_is_false(json_object_get(json_object_get(doc, "result"), "level")));
    json_decref(doc);
    free(a);
    r = it_call(tcp, 2, "gpio_read", "{\"pin\":\"button\"}");
    ck_assert(json_is_false(json_object_get(it_result(r), "value")));
    json_decref(r);
    it_conn_close(tcp);
}
END_TEST

START_TEST(control_errors_come_back_as_the_control_channel_gives_them)
{
    char *a = control("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.set_input\","
                      "\"params\":{\"pin\":\"led\",\"level\":true}}",
                      NULL);
    ck_assert_int_eq(status_of(a), 200);
    ck_assert_msg(strstr(body_of(a), "\"code\":-32602"), "%s", body_of(a));
    free(a);
    a = control("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"sim.advance\",\"params\":{\"ms\":250}}",
                NULL);
    ck_assert_msg(strstr(body_of(a), "\"now_ms\":250"), "%s", body_of(a));
    free(a);
    a = control("{\"jsonrpc\":\"2.0\",\"method\":\"sim.advance\",\"params\":{\"ms\":1}}", NULL);
    ck_assert_int_eq(status_of(a), 204); /* a notification: no answer */
    free(a);
}
END_TEST

START_TEST(foreign_hosts_and_origins_and_other_requests_are_refused)
{
    char *a = http("GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n");
    ck_assert_int_eq(status_of(a), 403);
    free(a);
    a = http("GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n\r\n");
    ck_assert_int_eq(status_of(a), 403);
    free(a);
    a = control("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.set_input\","
                "\"params\":{\"pin\":\"button\",\"level\":false}}",
                "Origin: http://evil.example\r\n");
    ck_assert_int_eq(status_of(a), 403);
    free(a);
    a = http("POST /api/control HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
             "Content-Length: 2\r\n\r\n{}");
    ck_assert_int_eq(status_of(a), 415); /* what a cross-site form could send */
    free(a);
    a = http("GET /api/control HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 405);
    free(a);
    a = http("GET /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 404);
    free(a);
    /* the refused control request changed nothing */
    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    json_t *r = it_call(tcp, 1, "gpio_read", "{\"pin\":\"button\"}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    it_conn_close(tcp);
}
END_TEST

START_TEST(auth_token_is_required_as_header_or_query)
{
    teardown();
    start_with("--auth-token", "s3cret");
    char *a = http("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 401);
    free(a);
    a = http("GET /?token=wrong HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 401);
    free(a);
    a = http("GET /?token=s3cret HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 200);
    free(a);
    a = http(
        "GET /api/snapshot HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n\r\n");
    ck_assert_int_eq(status_of(a), 200);
    free(a);
    a = control("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.time\"}", NULL);
    ck_assert_int_eq(status_of(a), 401);
    free(a);
}
END_TEST

/* The next event of a stream: its type in type (cap bytes) and its data as JSON (NULL at the
   deadline). */
static json_t *next_event(it_conn_t *c, double timeout_s, char *type, size_t cap)
{
    double deadline = it_now() + timeout_s;
    type[0] = 0;
    for (;;) {
        double left = deadline - it_now();
        char *line = left > 0 ? it_read_line(c, left) : NULL;
        if (!line) return NULL;
        if (strncmp(line, "event: ", 7) == 0) snprintf(type, cap, "%s", line + 7);
        if (strncmp(line, "data: ", 6) == 0) {
            json_t *doc = json_loads(line + 6, 0, NULL);
            free(line);
            ck_assert_ptr_nonnull(doc);
            return doc;
        }
        free(line);
    }
}

static const char *str_of(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

START_TEST(nothing_is_logged_while_no_stream_is_open)
{
    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    json_decref(it_call(tcp, 1, "gpio_write", "{\"pin\":\"led\",\"value\":true}"));
    it_conn_close(tcp);
    char *a = http("GET /api/log HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    ck_assert_int_eq(status_of(a), 200);
    json_t *doc = json_loads(body_of(a), 0, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "listening")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "recorded")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "entries")), 0);
    json_decref(doc);
    free(a);
}
END_TEST

START_TEST(messages_on_tcp_and_the_pty_appear_as_log_events)
{
    teardown();
    start_with("--pty", NULL);
    it_conn_t *sse = send_request("GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    char type[32];
    json_t *doc = next_event(sse, IT_TIMEOUT, type, sizeof type);
    ck_assert_msg(doc && strcmp(type, "snapshot") == 0, "no first snapshot");
    json_decref(doc);

    it_conn_t *tcp = it_tcp_connect(proc.tcp_port);
    json_decref(it_call(tcp, 41, "gpio_write", "{\"pin\":\"led\",\"value\":true}"));
    it_conn_t *uart = it_serial_open(proc.uart);
    json_decref(it_call(uart, 42, "get_info", NULL));
    /* in, out for each: transport, direction, method of the request, id, latency of the answer */
    const char *want[4][4] = {{"tcp", "in", "gpio_write", "41"},
                              {"tcp", "out", "", "41"},
                              {"pty", "in", "get_info", "42"},
                              {"pty", "out", "", "42"}};
    size_t seen = 0;
    double t0 = it_now();
    while (seen < 4 && (doc = next_event(sse, 2.0 - (it_now() - t0), type, sizeof type))) {
        if (strcmp(type, "log") == 0) {
            char *text = json_dumps(doc, JSON_COMPACT);
            fprintf(stderr, "dashboard: log %s\n", text);
            free(text);
            ck_assert_str_eq(str_of(doc, "transport"), want[seen][0]);
            ck_assert_str_eq(str_of(doc, "dir"), want[seen][1]);
            ck_assert_str_eq(str_of(doc, "method"), want[seen][2]);
            ck_assert_str_eq(str_of(doc, "id"), want[seen][3]);
            json_t *lat = json_object_get(doc, "latency_us");
            if (seen % 2 == 0)
                ck_assert(json_is_null(lat)); /* a request has none */
            else
                ck_assert_msg(json_is_integer(lat) && json_integer_value(lat) >= 0 &&
                                  json_integer_value(lat) < 1000000,
                              "latency of a response");
            ck_assert_int_gt(json_integer_value(json_object_get(doc, "seq")), 0);
            seen++;
        }
        json_decref(doc);
    }
    ck_assert_msg(seen == 4, "only %zu of the 4 log events within 2 s", seen);

    char *a = http("GET /api/log HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    doc = json_loads(body_of(a), 0, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "listening")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(doc, "recorded")), 4);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "entries")), 4);
    json_decref(doc);
    free(a);
    it_conn_close(uart);
    it_conn_close(tcp);
    it_conn_close(sse);
}
END_TEST

static Suite *it_dashboard_suite(void)
{
    Suite *s = suite_create("it_dashboard");
    TCase *tc = tcase_create("dashboard");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, the_page_is_served_and_names_no_external_resource);
    tcase_add_test(tc, the_event_stream_follows_a_gpio_write_over_tcp);
    tcase_add_test(tc, a_control_request_is_seen_by_gpio_read_over_tcp);
    tcase_add_test(tc, control_errors_come_back_as_the_control_channel_gives_them);
    tcase_add_test(tc, foreign_hosts_and_origins_and_other_requests_are_refused);
    tcase_add_test(tc, auth_token_is_required_as_header_or_query);
    tcase_add_test(tc, nothing_is_logged_while_no_stream_is_open);
    tcase_add_test(tc, messages_on_tcp_and_the_pty_appear_as_log_events);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(it_dashboard_suite)
