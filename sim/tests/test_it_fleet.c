/* test_it_fleet.c: --fleet: many voice-assistant devices in one process, each dialling out with
   its own identity (WebSocket Device-Id and path, MQTT client id and topics), each its own
   firmware and sessions, and the summary line at exit. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "it_util.h"
#include "mqtt_peer.h"
#include "ws_peer.h"

#define DEVICES 50

static it_proc_t proc;

/* A listening socket on 127.0.0.1 with room for a fleet's connections; its port in *port. */
static int listen_wide(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(fd, 512), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* The value of header name in an HTTP request head ("" when absent). */
static void header(const char *req, const char *name, char *out, size_t cap)
{
    out[0] = 0;
    for (const char *p = strstr(req, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
        size_t n = strlen(name);
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':') {
            const char *v = p + 3 + n + strspn(p + 3 + n, " ");
            snprintf(out, cap, "%.*s", (int)strcspn(v, "\r\n"), v);
            return;
        }
    }
}

/* Sends SIGTERM, and returns the summary line's JSON ("fleet: {...}" on stdout). */
static json_t *stop_with_summary(void)
{
    char buf[8192];
    size_t len = 0;
    kill(proc.pid, SIGTERM);
    double deadline = it_now() + IT_TIMEOUT;
    while (len + 1 < sizeof buf && it_now() < deadline) {
        struct pollfd pfd = {proc.out_fd, POLLIN, 0};
        if (poll(&pfd, 1, 100) != 1) continue;
        ssize_t n = read(proc.out_fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    buf[len] = 0;
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
    const char *line = strstr(buf, "fleet: {");
    ck_assert_msg(line != NULL, "no summary line on stdout: %s", buf);
    json_t *j = json_loads(line + 7, JSON_DISABLE_EOF_CHECK, NULL);
    ck_assert_ptr_nonnull(j);
    return j;
}

static json_t *envelope_call(const char *sid, int id, const char *method, const char *params)
{
    char *text = NULL;
    ck_assert_int_gt(asprintf(&text,
                              "{\"session_id\":\"%s\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":"
                              "\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}}",
                              sid, id, method, params),
                     0);
    json_t *j = json_string(text);
    free(text);
    return j;
}

static long speaker_volume(json_t *payload)
{
    json_t *block =
        json_array_get(json_object_get(json_object_get(payload, "result"), "content"), 0);
    json_t *status = json_loads(json_string_value(json_object_get(block, "text")), 0, NULL);
    ck_assert_ptr_nonnull(status);
    long v = (long)json_integer_value(
        json_object_get(json_object_get(status, "audio_speaker"), "volume"));
    json_decref(status);
    return v;
}

START_TEST(a_websocket_fleet_dials_out_with_distinct_identities)
{
    int port;
    int lfd = listen_wide(&port);
    char url[80];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d/device/{n}", port);
    const char *args[] = {"--board",
                          "voice-assistant",
                          "--fleet",
                          "50",
                          "--fleet-stagger",
                          "1",
                          "--connect",
                          url,
                          "--connect-header",
                          "X-Unit: unit-{n}",
                          "--clock",
                          "virtual",
                          NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    ws_peer_t *peers[DEVICES + 1] = {0};
    for (int i = 0; i < DEVICES; i++) {
        char req[4096], id[64], unit[64], path[64];
        ws_peer_t *p = ws_peer_accept(lfd, IT_TIMEOUT, 101, req, sizeof req);
        ck_assert_msg(p != NULL, "only %d of %d devices connected", i, DEVICES);
        header(req, "Device-Id", id, sizeof id);
        header(req, "X-Unit", unit, sizeof unit);
        int n = 0;
        ck_assert_int_eq(sscanf(id, "mcpsim-%d", &n), 1);
        ck_assert_int_ge(n, 1);
        ck_assert_int_le(n, DEVICES);
        ck_assert_msg(peers[n] == NULL, "Device-Id %s connected twice", id);
        snprintf(path, sizeof path, "GET /device/%d HTTP/1.1", n);
        ck_assert_msg(strncmp(req, path, strlen(path)) == 0, "device %d asked for %.40s", n, req);
        snprintf(path, sizeof path, "unit-%d", n);
        ck_assert_str_eq(unit, path);
        json_t *hello = ws_peer_recv_json(p, IT_TIMEOUT);
        ck_assert_str_eq(json_string_value(json_object_get(hello, "type")), "hello");
        ck_assert(json_is_true(json_object_get(json_object_get(hello, "features"), "mcp")));
        json_decref(hello);
        peers[n] = p;
    }
    /* each device its own firmware: volumes set apart stay apart */
    for (int n = 1; n <= DEVICES; n += 7) {
        char sid[16], params[128];
        snprintf(sid, sizeof sid, "s-%d", n);
        snprintf(params, sizeof params,
                 "{\"name\":\"self.audio_speaker.set_volume\",\"arguments\":{\"volume\":%d}}", n);
        json_t *calls[3] = {
            envelope_call(sid, 1, "initialize", "{\"capabilities\":{}}"),
            envelope_call(sid, 2, "tools/call", params),
            envelope_call(sid, 3, "tools/call", "{\"name\":\"self.get_device_status\"}")};
        for (int k = 0; k < 3; k++) {
            ws_peer_send_text(peers[n], json_string_value(calls[k]));
            json_t *env = ws_peer_recv_json(peers[n], IT_TIMEOUT);
            ck_assert_str_eq(json_string_value(json_object_get(env, "session_id")), sid);
            json_t *payload = json_object_get(env, "payload");
            ck_assert_int_eq(json_integer_value(json_object_get(payload, "id")), k + 1);
            if (k == 2) ck_assert_int_eq(speaker_volume(payload), n);
            json_decref(env);
            json_decref(calls[k]);
        }
    }
    json_t *sum = stop_with_summary();
    json_t *ws = json_object_get(sum, "websocket");
    ck_assert_int_eq(json_integer_value(json_object_get(sum, "devices")), DEVICES);
    ck_assert_int_eq(json_integer_value(json_object_get(ws, "ever_connected")), DEVICES);
    ck_assert_int_eq(json_integer_value(json_object_get(ws, "connected")), DEVICES);
    ck_assert_int_eq(json_integer_value(json_object_get(ws, "failed_attempts")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(ws, "messages_in")), 3 * 8);
    ck_assert_int_eq(json_integer_value(json_object_get(ws, "messages_out")), DEVICES + 3 * 8);
    json_decref(sum);
    for (int n = 1; n <= DEVICES; n++) ws_peer_close(peers[n]);
    close(lfd);
}
END_TEST

START_TEST(an_mqtt_fleet_has_its_own_client_ids_and_topics)
{
    if (!mqtt_broker_bin()) {
        printf("SKIP an_mqtt_fleet_has_its_own_client_ids_and_topics: no mosquitto installed\n");
        return;
    }
    mqtt_broker_t broker;
    mqtt_broker_start(&broker, 0);
    mqtt_peer_t *backend = mqtt_peer_open(broker.port, "fleet/+/out");
    char url[64];
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d", broker.port);
    const char *args[] = {"--board",
                          "voice-assistant",
                          "--fleet",
                          "50",
                          "--fleet-stagger",
                          "1",
                          "--mqtt",
                          url,
                          "--mqtt-publish",
                          "fleet/{n}/out",
                          "--mqtt-subscribe",
                          "fleet/{n}/in",
                          "--mqtt-client-id",
                          "speaker-{n}",
                          NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    bool seen[DEVICES + 1] = {false};
    for (int i = 0; i < DEVICES; i++) {
        char topic[128];
        json_t *hello = mqtt_peer_recv(backend, IT_TIMEOUT, topic, sizeof topic);
        ck_assert_msg(hello != NULL, "only %d of %d hellos", i, DEVICES);
        int n = 0;
        ck_assert_int_eq(sscanf(topic, "fleet/%d/out", &n), 1);
        ck_assert_msg(n >= 1 && n <= DEVICES && !seen[n], "hello on %s", topic);
        seen[n] = true;
        ck_assert_str_eq(json_string_value(json_object_get(hello, "type")), "hello");
        json_decref(hello);
    }
    for (int n = 1; n <= DEVICES; n++) {
        char topic[64], sid[16];
        snprintf(topic, sizeof topic, "fleet/%d/in", n);
        snprintf(sid, sizeof sid, "m-%d", n);
        json_t *call = envelope_call(sid, n, "initialize", "{\"capabilities\":{}}");
        mqtt_peer_send(backend, topic, json_string_value(call));
        json_decref(call);
    }
    bool answered[DEVICES + 1] = {false};
    for (int i = 0; i < DEVICES; i++) {
        char topic[128], want[16];
        json_t *env = mqtt_peer_recv(backend, IT_TIMEOUT, topic, sizeof topic);
        ck_assert_msg(env != NULL, "only %d of %d answers", i, DEVICES);
        int n = 0;
        ck_assert_int_eq(sscanf(topic, "fleet/%d/out", &n), 1);
        snprintf(want, sizeof want, "m-%d", n);
        ck_assert_str_eq(json_string_value(json_object_get(env, "session_id")), want);
        json_t *payload = json_object_get(env, "payload");
        ck_assert_int_eq(json_integer_value(json_object_get(payload, "id")), n);
        ck_assert(json_is_object(json_object_get(payload, "result")));
        ck_assert(!answered[n]);
        answered[n] = true;
        json_decref(env);
    }
    json_t *sum = stop_with_summary();
    json_t *mq = json_object_get(sum, "mqtt");
    ck_assert_int_eq(json_integer_value(json_object_get(mq, "ever_connected")), DEVICES);
    ck_assert_int_eq(json_integer_value(json_object_get(mq, "messages_in")), DEVICES);
    ck_assert_int_eq(json_integer_value(json_object_get(mq, "messages_out")), 2 * DEVICES);
    json_decref(sum);
    mqtt_peer_close(backend);
    mqtt_broker_stop(&broker);
}
END_TEST

START_TEST(a_fleet_without_a_link_is_a_usage_error)
{
    const char *alone[] = {"--board", "voice-assistant", "--fleet", "3", "--tcp", "0", NULL};
    const char *zero[] = {"--board",   "voice-assistant",   "--fleet", "0",
                          "--connect", "ws://127.0.0.1:1/", NULL};
    const char *id[] = {"--board", "voice-assistant", "--tcp", "0", "--device-id", "x", NULL};
    const char *const *cases[] = {alone, zero, id};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert(!it_start(&proc, cases[i]));
        ck_assert_int_eq(proc.status, 2);
    }
}
END_TEST

static Suite *it_fleet_suite(void)
{
    Suite *s = suite_create("it_fleet");
    TCase *tc = tcase_create("fleet");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_websocket_fleet_dials_out_with_distinct_identities);
    tcase_add_test(tc, an_mqtt_fleet_has_its_own_client_ids_and_topics);
    tcase_add_test(tc, a_fleet_without_a_link_is_a_usage_error);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(it_fleet_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
