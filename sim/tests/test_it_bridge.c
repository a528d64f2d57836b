/* test_it_bridge.c: integration: --device, the bridge that serves real MCP/U devices to MCP
   clients: simulators on ptys as the "real" devices (unplugged and replugged, two boards behind one
   bridge) and a scripted TCP device (boot noise, no schemas, slow answers, a mid-call unplug). */
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/bridge.h"
#include "it_util.h"
#include "test_util.h"

#define INIT                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"     \
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"

static void initialize(it_conn_t *c)
{
    json_t *r = it_rpc(c, INIT);
    json_t *res = it_result(r);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(res, "serverInfo"), "name")),
                     "mcpsim-bridge");
    ck_assert(json_is_true(json_object_get(
        json_object_get(json_object_get(res, "capabilities"), "tools"), "listChanged")));
    json_decref(r);
    it_send(c, INITIALIZED);
}

/* tools/call name with args (JSON text); the reply (caller frees). */
static json_t *call_tool(it_conn_t *c, int id, const char *name, const char *args)
{
    char req[512];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":%s}}\n",
             id, name, args);
    json_t *r = it_rpc(c, req);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "id")), id);
    return r;
}

static bool is_error_result(json_t *r)
{
    return json_is_true(json_object_get(it_result(r), "isError"));
}

static const char *result_text(json_t *r)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(it_result(r), "content"), 0), "text"));
}

/* Every tools/list page; the tools (caller frees). */
static json_t *all_tools(it_conn_t *c, size_t *pages)
{
    json_t *tools = json_array();
    char cursor[64] = "";
    *pages = 0;
    do {
        char req[256];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/list\"%s%s%s}\n", 500 + *pages,
                 cursor[0] ? ",\"params\":{\"cursor\":\"" : "", cursor, cursor[0] ? "\"}" : "");
        json_t *r = it_rpc(c, req);
        json_array_extend(tools, json_object_get(it_result(r), "tools"));
        const char *next = json_string_value(json_object_get(it_result(r), "nextCursor"));
        snprintf(cursor, sizeof cursor, "%s", next ? next : "");
        json_decref(r);
        (*pages)++;
    } while (cursor[0] && *pages < 30);
    return tools;
}

static json_t *tool_named(json_t *tools, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(
        tools, i, t) if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0) return t;
    return NULL;
}

/* Reads lines until one contains needle (skipping others); true if seen within timeout_s. */
static bool wait_line(it_conn_t *c, const char *needle, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    while (it_now() < deadline) {
        char *line = it_read_line(c, deadline - it_now());
        if (!line) return false;
        bool hit = strstr(line, needle) != NULL;
        free(line);
        if (hit) return true;
    }
    return false;
}

/* A simulator with its UART behind link (the bridge's "real" device). */
static void start_device(it_proc_t *p, const char *board, const char *link)
{
    const char *args[] = {"--board", board, "--pty-link", link, NULL};
    ck_assert_msg(it_start(p, args), "device %s did not start", board);
}

static it_conn_t *start_bridge(it_proc_t *p, const char *const *devices)
{
    const char *args[16];
    size_t n = 0;
    for (size_t i = 0; devices[i]; i++) {
        args[n++] = "--device";
        args[n++] = devices[i];
    }
    args[n++] = "--stdio";
    args[n++] = "--log-level";
    args[n++] = "debug";
    args[n] = NULL;
    it_conn_t *c = it_start_stdio(p, args);
    ck_assert_msg(c != NULL, "the bridge did not start (exit %d)", p->status);
    return c;
}

static void finish(it_proc_t *bridge, it_conn_t *c)
{
    it_close_input(c);
    ck_assert_int_eq(it_wait_exit(bridge), 0);
    it_conn_close(c);
    unlink(bridge->err_path);
}

/* ---------------------------------------------------------------- simulators as devices */

START_TEST(bridge_serves_a_pty_device_with_inferred_schemas)
{
    char link[64], url[96];
    snprintf(link, sizeof link, "/tmp/mcpsim-br-%d-uno", (int)getpid());
    snprintf(url, sizeof url, "serial:%s?settle_ms=0", link);
    it_proc_t dev, br;
    start_device(&dev, "uno", link); /* uno omits schemas, as MCP/U on AVR */
    const char *devices[] = {url, NULL};
    it_conn_t *c = start_bridge(&br, devices);
    initialize(c);
    size_t pages;
    json_t *tools = all_tools(c, &pages);
    /* every page full but the last (the uno's tools may fill exactly one) */
    ck_assert_uint_ge(json_array_size(tools), 5);
    ck_assert_uint_eq(pages, (json_array_size(tools) + HOST_BRIDGE_PAGE - 1) / HOST_BRIDGE_PAGE);
    json_t *gw = tool_named(tools, "gpio_write");
    ck_assert_ptr_nonnull(gw);
    json_t *pin =
        json_object_get(json_object_get(json_object_get(gw, "inputSchema"), "properties"), "pin");
    ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(pin, "enum"), 0)), 13);
    ck_assert_msg(strstr(json_string_value(json_object_get(pin, "description")), "13 (led)"),
                  "pin description from the registry");
    json_decref(tools);
    json_t *r = call_tool(c, 10, "gpio_write", "{\"pin\":13,\"value\":true}");
    ck_assert(!is_error_result(r));
    ck_assert(
        json_is_true(json_object_get(json_object_get(it_result(r), "structuredContent"), "value")));
    json_decref(r);
    r = call_tool(c, 11, "gpio_write", "{\"pin\":99,\"value\":true}");
    ck_assert(is_error_result(r));
    ck_assert_msg(strstr(result_text(r), "-32602"), "%s", result_text(r));
    json_decref(r);
    r = call_tool(c, 12, "no_such_tool", "{}");
    ck_assert_int_eq(it_error_code(r), -32602);
    json_decref(r);
    /* MCP/U straight through, and the device's own view of the write */
    r = it_call(c, 13, "gpio_read", "{\"pin\":13}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    r = it_rpc(c,
               "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"resources/read\",\"params\":{\"uri\":"
               "\"device://uno/info\"}}\n");
    ck_assert_msg(strstr(json_string_value(json_object_get(
                             json_array_get(json_object_get(it_result(r), "contents"), 0), "text")),
                         "\"connected\":true"),
                  "resource");
    json_decref(r);
    r = it_rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"ping\"}\n");
    it_result(r);
    json_decref(r);
    r = it_rpc(c, "{not json\n");
    ck_assert_int_eq(it_error_code(r), -32700);
    json_decref(r);
    finish(&br, c);
    ck_assert_int_eq(it_stop(&dev, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(bridge_survives_unplug_and_replug)
{
    char link[64], url[96];
    snprintf(link, sizeof link, "/tmp/mcpsim-br-%d-replug", (int)getpid());
    snprintf(url, sizeof url, "serial:%s?settle_ms=0", link);
    it_proc_t dev, br;
    start_device(&dev, "esp32-demo", link);
    const char *devices[] = {url, NULL};
    it_conn_t *c = start_bridge(&br, devices);
    initialize(c);
    json_t *r = call_tool(c, 10, "gpio_write", "{\"pin\":2,\"value\":true}");
    ck_assert(!is_error_result(r));
    json_decref(r);

    ck_assert_int_eq(it_stop(&dev, SIGKILL, NULL), 128 + SIGKILL); /* the cable is pulled */
    r = call_tool(c, 11, "gpio_read", "{\"pin\":2}");
    ck_assert(is_error_result(r));
    ck_assert_msg(strstr(result_text(r), "disconnected"), "%s", result_text(r));
    json_decref(r);
    r = it_rpc(c, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}\n"); /* the bridge lives */
    it_result(r);
    json_decref(r);

    start_device(&dev, "esp32-demo", link); /* plugged in again: a new pty behind the link */
    ck_assert_msg(wait_line(c, "notifications/tools/list_changed", IT_TIMEOUT),
                  "no list_changed after the replug");
    r = call_tool(c, 13, "gpio_read", "{\"pin\":2}"); /* a fresh device: the LED is off */
    ck_assert(!is_error_result(r));
    ck_assert(json_is_false(
        json_object_get(json_object_get(it_result(r), "structuredContent"), "value")));
    json_decref(r);
    char *err = it_stderr(&br);
    ck_assert_msg(strstr(err, "link lost") && strstr(err, "back"), "%s", err);
    free(err);
    finish(&br, c);
    ck_assert_int_eq(it_stop(&dev, SIGTERM, NULL), 0);
    unlink(link);
}
END_TEST

START_TEST(bridge_two_boards_prefixed)
{
    char link_a[64], link_b[64], url_a[96], url_b[96];
    snprintf(link_a, sizeof link_a, "/tmp/mcpsim-br-%d-a", (int)getpid());
    snprintf(link_b, sizeof link_b, "/tmp/mcpsim-br-%d-b", (int)getpid());
    snprintf(url_a, sizeof url_a, "serial:%s?settle_ms=0", link_a);
    snprintf(url_b, sizeof url_b, "serial:%s?settle_ms=0&baud=115200", link_b);
    it_proc_t a, b, br;
    start_device(&a, "esp32-demo", link_a);
    start_device(&b, "uno", link_b);
    const char *devices[] = {url_a, url_b, NULL};
    it_conn_t *c = start_bridge(&br, devices);
    initialize(c);
    size_t pages;
    json_t *tools = all_tools(c, &pages);
    ck_assert_uint_gt(pages, 1); /* two devices' tools take more than one page */
    ck_assert_uint_eq(pages, (json_array_size(tools) + HOST_BRIDGE_PAGE - 1) / HOST_BRIDGE_PAGE);
    ck_assert_ptr_nonnull(tool_named(tools, "esp32-demo__gpio_write"));
    ck_assert_ptr_nonnull(tool_named(tools, "esp32-demo__read_touch"));
    ck_assert_ptr_nonnull(tool_named(tools, "uno__gpio_write"));
    ck_assert_ptr_null(tool_named(tools, "gpio_write"));
    json_decref(tools);
    json_t *r = call_tool(c, 10, "uno__gpio_write", "{\"pin\":13,\"value\":true}");
    ck_assert(!is_error_result(r));
    json_decref(r);
    r = call_tool(c, 11, "esp32-demo__adc_read", "{\"pin\":34}");
    ck_assert(!is_error_result(r));
    ck_assert(json_is_number(
        json_object_get(json_object_get(it_result(r), "structuredContent"), "volts")));
    json_decref(r);
    r = it_call(c, 12, "uno__get_info", NULL); /* MCP/U, prefixed */
    ck_assert_str_eq(json_string_value(json_object_get(it_result(r), "device")), "uno");
    json_decref(r);
    r = it_call(c, 13, "get_info", NULL); /* which one? */
    ck_assert_int_eq(it_error_code(r), -32601);
    json_decref(r);
    /* the write went to the uno only (the bridge owns both lines: asked through it) */
    r = it_call(c, 14, "uno__gpio_read", "{\"pin\":13}");
    ck_assert(json_is_true(json_object_get(it_result(r), "value")));
    json_decref(r);
    r = call_tool(c, 15, "esp32-demo__gpio_read", "{\"pin\":2}");
    ck_assert(json_is_false(
        json_object_get(json_object_get(it_result(r), "structuredContent"), "value")));
    json_decref(r);
    finish(&br, c);
    ck_assert_int_eq(it_stop(&a, SIGTERM, NULL), 0);
    ck_assert_int_eq(it_stop(&b, SIGTERM, NULL), 0);
}
END_TEST

START_TEST(bridge_refuses_what_it_cannot_serve)
{
    it_proc_t p;
    const char *unreachable[] = {"--device", "tcp:127.0.0.1:1", "--stdio", NULL};
    ck_assert(!it_start(&p, unreachable));
    ck_assert_int_eq(p.status, 1);
    char *err = it_stderr(&p);
    ck_assert_msg(strstr(err, "cannot open"), "%s", err);
    free(err);
    unlink(p.err_path);
    const char *missing[] = {"--device", "serial:/nonexistent/tty", "--tcp", "0", NULL};
    ck_assert(!it_start(&p, missing));
    ck_assert_int_eq(p.status, 1);
    unlink(p.err_path);
    const char *bad[] = {"--device", "usb:1", "--stdio", NULL};
    ck_assert(!it_start(&p, bad));
    ck_assert_int_eq(p.status, 2);
    unlink(p.err_path);
    const char *both[] = {"--board", "uno", "--device", "tcp:127.0.0.1:1", "--stdio", NULL};
    ck_assert(!it_start(&p, both));
    ck_assert_int_eq(p.status, 2);
    unlink(p.err_path);
}
END_TEST

/* ---------------------------------------------------------------- a scripted device over TCP */

/* The device: boot noise first, no schemas, "slow" answers after params.ms, "vanish" drops the
   connection mid-call (and the next connection is accepted: replugged). overlaps counts requests
   that arrived while another was unanswered: the bridge must never let that happen. */
typedef struct fake {
    int listener, port;
    pthread_t thread;
    atomic_int overlaps, connections, requests;
    atomic_bool stop;
} fake_t;

static void fake_send(int fd, const char *text)
{
    ssize_t n = write(fd, text, strlen(text));
    (void)n;
}

static void fake_answer(fake_t *f, int fd, json_t *req)
{
    const char *m = json_string_value(json_object_get(req, "method"));
    json_int_t id = json_integer_value(json_object_get(req, "id"));
    json_t *params = json_object_get(req, "params");
    json_t *res = NULL, *err = NULL;
    atomic_fetch_add(&f->requests, 1);
    if (strcmp(m, "get_info") == 0) {
        res = json_pack("{s:s, s:s, s:s, s:i}", "device", "scripted", "version", "0.9", "platform",
                        "arduino-avr", "pin_count", 2);
    } else if (strcmp(m, "list_tools") == 0) {
        res = json_pack("{s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s, s:{s:s, s:{s:{s:s}}}}, {s:s}],"
                        " s:[{s:i, s:s, s:s}, {s:i, s:s, s:s}]}",
                        "tools", "name", "gpio_write", "description", "Write a pin", "name",
                        "adc_read", "description", "Read the ADC", "name", "slow", "description",
                        "Answers after ms", "inputSchema", "type", "object", "properties", "ms",
                        "type", "integer", "name", "vanish", "pins", "pin", 13, "name", "led",
                        "type", "digital_output", "pin", 14, "name", "sensor", "type", "adc_input");
    } else if (strcmp(m, "gpio_write") == 0) {
        json_int_t pin = json_integer_value(json_object_get(params, "pin"));
        if (pin == 13)
            res = json_pack("{s:I, s:s, s:O}", "pin", pin, "name", "led", "value",
                            json_object_get(params, "value"));
        else
            err = json_pack("{s:i, s:s}", "code", -32602, "message", "Bad params");
    } else if (strcmp(m, "slow") == 0) {
        int ms = (int)json_integer_value(json_object_get(params, "ms"));
        usleep((useconds_t)ms * 1000u);
        int pending = 0;
        ioctl(fd, FIONREAD, &pending);
        if (pending > 0) atomic_fetch_add(&f->overlaps, 1);
        res = json_pack("{s:i}", "slept", ms);
    } else if (strcmp(m, "vanish") == 0) {
        shutdown(fd, SHUT_RDWR);
        return;
    } else {
        err = json_pack("{s:i, s:s}", "code", -32601, "message", "Method not found");
    }
    json_t *reply = json_pack("{s:s, s:I}", "jsonrpc", "2.0", "id", id);
    json_object_set_new(reply, res ? "result" : "error", res ? res : err);
    char *text = json_dumps(reply, JSON_COMPACT);
    json_decref(reply);
    fake_send(fd, text);
    fake_send(fd, "\n");
    free(text);
}

static void fake_serve(fake_t *f, int fd)
{
    fake_send(fd,
              "\r\nets Jan  8 2013,rst cause:2, boot mode:(3,6)\r\nload 0x4010f000, len 3460\r\n"
              "{\"half\": \n"); /* boot noise, even a broken JSON line */
    char buf[8192];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
        char *nl;
        while ((nl = memchr(buf, '\n', len))) {
            *nl = 0;
            json_t *req = json_loads(buf, 0, NULL);
            if (req) fake_answer(f, fd, req);
            json_decref(req);
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len);
        }
    }
    close(fd);
}

static void *fake_main(void *arg)
{
    fake_t *f = arg;
    while (!atomic_load(&f->stop)) {
        struct pollfd p = {f->listener, POLLIN, 0};
        if (poll(&p, 1, 100) != 1) continue;
        int fd = accept(f->listener, NULL, NULL);
        if (fd < 0) continue;
        atomic_fetch_add(&f->connections, 1);
        fake_serve(f, fd);
    }
    return NULL;
}

/* A scripted device on port (0: any free one). */
static void fake_start_on(fake_t *f, int port)
{
    memset(f, 0, sizeof *f);
    f->listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(f->listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(f->listener, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(f->listener, 4), 0);
    socklen_t al = sizeof a;
    getsockname(f->listener, (struct sockaddr *)&a, &al);
    f->port = ntohs(a.sin_port);
    pthread_create(&f->thread, NULL, fake_main, f);
}

static void fake_start(fake_t *f)
{
    fake_start_on(f, 0);
}

static void fake_stop(fake_t *f)
{
    atomic_store(&f->stop, true);
    pthread_join(f->thread, NULL);
    close(f->listener);
}

START_TEST(bridge_scripted_device_noise_slow_answers_and_timeouts)
{
    fake_t f;
    fake_start(&f);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d?timeout_ms=1500", f.port);
    it_proc_t br;
    const char *devices[] = {url, NULL};
    it_conn_t *c = start_bridge(&br, devices);
    initialize(c);
    size_t pages;
    json_t *tools = all_tools(c, &pages);
    json_t *adc = tool_named(tools, "adc_read");
    ck_assert_ptr_nonnull(adc);
    json_t *pin =
        json_object_get(json_object_get(json_object_get(adc, "inputSchema"), "properties"), "pin");
    ck_assert_int_eq(json_array_size(json_object_get(pin, "enum")), 1); /* sensor, inferred */
    ck_assert_ptr_nonnull(tool_named(tools, "slow"));
    json_decref(tools);
    json_t *r = call_tool(c, 10, "slow", "{\"ms\":500}");
    ck_assert(!is_error_result(r));
    json_decref(r);
    double t0 = it_now();
    r = call_tool(c, 11, "slow", "{\"ms\":2500}"); /* beyond timeout_ms */
    ck_assert(is_error_result(r));
    ck_assert_msg(strstr(result_text(r), "did not answer"), "%s", result_text(r));
    ck_assert(it_now() - t0 < 2.4);
    json_decref(r);
    r = call_tool(c, 12, "gpio_write", "{\"pin\":13,\"value\":true}"); /* the late answer dropped */
    ck_assert(!is_error_result(r));
    ck_assert(
        json_is_true(json_object_get(json_object_get(it_result(r), "structuredContent"), "value")));
    json_decref(r);
    r = call_tool(c, 13, "gpio_write", "{\"pin\":7,\"value\":true}");
    ck_assert(is_error_result(r));
    ck_assert_msg(strstr(result_text(r), "Bad params"), "%s", result_text(r));
    json_decref(r);
    finish(&br, c);
    fake_stop(&f);
}
END_TEST

/* Two clients at once, each calling the slow tool: one request at a time on the device's line. */
START_TEST(bridge_serialises_concurrent_clients)
{
    fake_t f;
    fake_start(&f);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d", f.port);
    const char *args[] = {"--device", url, "--tcp", "0", NULL};
    it_proc_t br;
    ck_assert(it_start(&br, args));
    it_conn_t *a = it_tcp_connect(br.tcp_port), *b = it_tcp_connect(br.tcp_port);
    const char *call =
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"slow\",\"arguments\":{\"ms\":400}}}\n";
    double t0 = it_now();
    it_send(a, call);
    it_send(b, call);
    it_send(a, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"slow\",\"params\":{\"ms\":400}}\n");
    char *la = it_read_line(a, IT_TIMEOUT), *lb = it_read_line(b, IT_TIMEOUT);
    char *la2 = it_read_line(a, IT_TIMEOUT);
    ck_assert_msg(la && strstr(la, "\"slept\":400"), "%s", la ? la : "(nothing)");
    ck_assert_msg(lb && strstr(lb, "\"slept\":400"), "%s", lb ? lb : "(nothing)");
    ck_assert_msg(la2 && strstr(la2, "\"id\":8,\"result\":{\"slept\":400}"), "%s",
                  la2 ? la2 : "(nothing)"); /* MCP/U passed through */
    ck_assert(it_now() - t0 >= 1.2);
    ck_assert_int_eq(atomic_load(&f.overlaps), 0);
    free(la);
    free(lb);
    free(la2);
    it_conn_close(a);
    it_conn_close(b);
    ck_assert_int_eq(it_stop(&br, SIGTERM, NULL), 0);
    fake_stop(&f);
}
END_TEST

START_TEST(bridge_device_unplugged_mid_call)
{
    fake_t f;
    fake_start(&f);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d", f.port);
    it_proc_t br;
    const char *devices[] = {url, NULL};
    it_conn_t *c = start_bridge(&br, devices);
    initialize(c);
    json_t *r = call_tool(c, 10, "vanish", "{}");
    ck_assert(is_error_result(r));
    ck_assert_msg(strstr(result_text(r), "disconnected"), "%s", result_text(r));
    json_decref(r);
    ck_assert_msg(wait_line(c, "notifications/tools/list_changed", IT_TIMEOUT),
                  "no list_changed after the reconnection");
    ck_assert_int_ge(atomic_load(&f.connections), 2);
    r = call_tool(c, 11, "slow", "{\"ms\":10}");
    ck_assert(!is_error_result(r));
    json_decref(r);
    finish(&br, c);
    fake_stop(&f);
}
END_TEST

/* ---------------------------------------------------------------- nothing waits for a device */

/* One HTTP POST of body to url ("http://127.0.0.1:PORT/mcp") on its own connection; the whole
   response (headers and body; caller frees). session: the Mcp-Session-Id to send, or NULL. */
static char *http_post(const char *url, const char *session, const char *body, double timeout_s)
{
    int port = 0;
    ck_assert_int_eq(sscanf(url, "http://127.0.0.1:%d/", &port), 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    char head[512];
    int n = snprintf(head, sizeof head,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: "
                     "2025-06-18\r\n%s%s%sConnection: close\r\nContent-Length: %zu\r\n\r\n",
                     port, session ? "Mcp-Session-Id: " : "", session ? session : "",
                     session ? "\r\n" : "", strlen(body));
    fake_send(fd, head);
    (void)n;
    fake_send(fd, body);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    double deadline = it_now() + timeout_s;
    while (len + 1 < cap && it_now() < deadline) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)((deadline - it_now()) * 1000) + 1) != 1) continue;
        ssize_t got = read(fd, out + len, cap - 1 - len);
        if (got <= 0) break;
        len += (size_t)got;
    }
    close(fd);
    return out;
}

/* While a call waits 2 s on a slow device, every other transport and session is served at once
   from the bridge's own state (ping, tools/list, initialize), and the queued calls come after. */
START_TEST(bridge_slow_device_stalls_no_transport)
{
    fake_t f;
    fake_start(&f);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d", f.port);
    const char *args[] = {"--device", url, "--stdio", "--tcp", "0", "--http", "0", NULL};
    it_proc_t br;
    it_conn_t *c = it_start_stdio(&br, args);
    ck_assert_msg(c != NULL, "the bridge did not start (exit %d)", br.status);
    initialize(c);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"slow\",\"arguments\":{\"ms\":2000}}}\n");
    usleep(100 * 1000); /* the call is on the device's line */
    double t0 = it_now();

    it_conn_t *t = it_tcp_connect(br.tcp_port);
    double t1 = it_now();
    json_t *r = it_rpc(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    double ping_tcp = it_now() - t1;
    it_result(r);
    json_decref(r);
    t1 = it_now();
    r = it_rpc(t, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
    double list_tcp = it_now() - t1;
    ck_assert_ptr_nonnull(json_object_get(it_result(r), "tools"));
    json_decref(r);

    it_conn_t *t2 = it_tcp_connect(br.tcp_port); /* another MCP session on TCP */
    r = it_rpc(t2, INIT);
    t1 = it_now();
    r = (json_decref(r), it_rpc(t2, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n"));
    double ping_tcp2 = it_now() - t1;
    it_result(r);
    json_decref(r);

    t1 = it_now();
    char *resp = http_post(br.http, NULL, INIT, 5);
    double init_http = it_now() - t1;
    ck_assert_msg(strstr(resp, "mcpsim-bridge"), "%s", resp);
    char sid[64] = "";
    const char *h = resp;
    while (*h && strncasecmp(h, "Mcp-Session-Id: ", 16) != 0) h++;
    ck_assert_msg(*h, "%s", resp);
    sscanf(h + 16, "%63[0-9a-f]", sid);
    free(resp);
    t1 = it_now();
    resp = http_post(br.http, sid, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}", 5);
    double ping_http = it_now() - t1;
    ck_assert_msg(strstr(resp, "\"result\":{}"), "%s", resp);
    free(resp);
    double stalled = it_now() - t0;
    fprintf(stderr,
            "bridge, a device call waiting 2 s: ping tcp %.1f ms, tools/list tcp %.1f ms, ping in "
            "another tcp session %.1f ms, initialize http %.1f ms, ping http %.1f ms\n",
            ping_tcp * 1e3, list_tcp * 1e3, ping_tcp2 * 1e3, init_http * 1e3, ping_http * 1e3);
    ck_assert(ping_tcp < 0.1 && list_tcp < 0.1 && ping_tcp2 < 0.1 && init_http < 0.1 &&
              ping_http < 0.1);
    ck_assert(stalled < 1.0); /* all of it while the device still sleeps */

    /* queued behind the slow call: a TCP call, then an HTTP POST whose thread waits */
    it_send(t, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"slow\",\"arguments\":{\"ms\":10}}}\n");
    char *line = it_read_line(c, 5); /* the stdio call first */
    ck_assert_msg(line && strstr(line, "\"id\":20") && strstr(line, "\\\"slept\\\":2000"), "%s",
                  line ? line : "(nothing)");
    ck_assert(it_now() - t0 > 1.5);
    free(line);
    line = it_read_line(t, 5);
    ck_assert_msg(line && strstr(line, "\"id\":5") && strstr(line, "\\\"slept\\\":10"), "%s",
                  line ? line : "(nothing)");
    free(line);
    resp = http_post(br.http, sid,
                     "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
                     "\"slow\",\"arguments\":{\"ms\":300}}}",
                     5);
    ck_assert_msg(strstr(resp, "\"id\":6") && strstr(resp, "\\\"slept\\\":300"), "%s", resp);
    free(resp);
    ck_assert_int_eq(atomic_load(&f.overlaps), 0);
    it_conn_close(t2);
    it_conn_close(t);
    finish(&br, c);
    fake_stop(&f);
}
END_TEST

/* stdin ends while a call still waits on the device: its answer is written, then the exit. */
START_TEST(bridge_stdio_answers_before_exiting)
{
    fake_t f;
    fake_start(&f);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d", f.port);
    const char *devices[] = {url, NULL};
    it_proc_t br;
    it_conn_t *c = start_bridge(&br, devices);
    it_send(c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"slow\",\"params\":{\"ms\":300}}\n");
    it_close_input(c);
    char *line = it_read_line(c, 5);
    ck_assert_msg(line && strstr(line, "\"id\":9,\"result\":{\"slept\":300}"), "%s",
                  line ? line : "(nothing)");
    free(line);
    ck_assert_int_eq(it_wait_exit(&br), 0);
    it_conn_close(c);
    unlink(br.err_path);
    fake_stop(&f);
}
END_TEST

/* wait=1: a device that is not plugged in yet is waited for; its tools arrive with list_changed. */
START_TEST(bridge_waits_for_a_device_plugged_in_later)
{
    fake_t probe; /* a port nobody listens on, for now */
    fake_start(&probe);
    int port = probe.port;
    fake_stop(&probe);
    char url[96];
    snprintf(url, sizeof url, "tcp:127.0.0.1:%d?wait=1", port);
    const char *devices[] = {url, NULL};
    it_proc_t br;
    it_conn_t *c = start_bridge(&br, devices);
    char *err = it_stderr(&br);
    ck_assert_msg(strstr(err, "waiting for it"), "%s", err);
    free(err);
    initialize(c);
    size_t pages;
    json_t *tools = all_tools(c, &pages);
    ck_assert_uint_eq(json_array_size(tools), 0);
    json_decref(tools);
    json_t *r = call_tool(c, 10, "slow", "{\"ms\":1}");
    ck_assert_int_eq(it_error_code(r), -32602);
    json_decref(r);
    fake_t f;
    fake_start_on(&f, port); /* plugged in */
    ck_assert_msg(wait_line(c, "notifications/tools/list_changed", IT_TIMEOUT),
                  "no list_changed once the device came");
    tools = all_tools(c, &pages);
    ck_assert_ptr_nonnull(tool_named(tools, "slow"));
    json_decref(tools);
    r = call_tool(c, 11, "slow", "{\"ms\":1}");
    ck_assert(!is_error_result(r));
    json_decref(r);
    finish(&br, c);
    fake_stop(&f);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("it_bridge");
    TCase *tc = tcase_create("bridge");
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, bridge_serves_a_pty_device_with_inferred_schemas);
    tcase_add_test(tc, bridge_survives_unplug_and_replug);
    tcase_add_test(tc, bridge_two_boards_prefixed);
    tcase_add_test(tc, bridge_refuses_what_it_cannot_serve);
    tcase_add_test(tc, bridge_scripted_device_noise_slow_answers_and_timeouts);
    tcase_add_test(tc, bridge_serialises_concurrent_clients);
    tcase_add_test(tc, bridge_device_unplugged_mid_call);
    tcase_add_test(tc, bridge_slow_device_stalls_no_transport);
    tcase_add_test(tc, bridge_stdio_answers_before_exiting);
    tcase_add_test(tc, bridge_waits_for_a_device_plugged_in_later);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(suite)
