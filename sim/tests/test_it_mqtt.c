/* test_it_mqtt.c: the voice-assistant board over MQTT through a real mosquitto broker: hello,
   initialize, tools/list pages and withUserTools, self.* calls, envelopes with the request's
   session_id, the codec model on the control channel, reconnection after the broker restarts. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "it_util.h"
#include "mqtt_peer.h"

static mqtt_broker_t broker;
static it_proc_t proc;
static mqtt_peer_t *backend;
static it_conn_t *control;

static void start(void)
{
    char url[64];
    mqtt_broker_start(&broker, 0);
    backend = mqtt_peer_open(broker.port, "voice/+/out");
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d", broker.port);
    const char *args[] = {"--board",          "voice-assistant", "--mqtt",      url,
                          "--mqtt-publish",   "voice/{n}/out",   "--control",   "0",
                          "--mqtt-subscribe", "voice/{n}/in",    "--log-level", "debug",
                          "--mqtt-client-id", "kitchen-{n}",     NULL};
    ck_assert_msg(it_start(&proc, args), "mcpsim did not start (exit %d)", proc.status);
    control = it_tcp_connect(proc.control_port);
}

static void stop(void)
{
    it_conn_close(control);
    ck_assert_int_eq(it_stop(&proc, SIGTERM, NULL), 0);
    mqtt_peer_close(backend);
    mqtt_broker_stop(&broker);
}

/* The next message on the device's topic; asserts it comes. */
static json_t *next(void)
{
    char topic[128];
    json_t *m = mqtt_peer_recv(backend, IT_TIMEOUT, topic, sizeof topic);
    ck_assert_msg(m != NULL, "nothing from the device on voice/1/out");
    ck_assert_str_eq(topic, "voice/1/out");
    return m;
}

static void expect_hello(void)
{
    json_t *hello = next();
    ck_assert_str_eq(json_string_value(json_object_get(hello, "type")), "hello");
    ck_assert(json_is_true(json_object_get(json_object_get(hello, "features"), "mcp")));
    ck_assert_str_eq(json_string_value(json_object_get(hello, "transport")), "mqtt");
    json_decref(hello);
}

/* Sends payload in an envelope with session_id sid; returns the answer's payload (the
   envelope asserted: type mcp, the same session_id, the same id). Caller frees the envelope
   through *env. */
static json_t *call(const char *sid, int id, const char *method, const char *params, json_t **env)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"session_id\":\"%s\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\",\"id\":%d,"
             "\"method\":\"%s\",\"params\":%s}}",
             sid, id, method, params ? params : "{}");
    mqtt_peer_send(backend, "voice/1/in", text);
    *env = next();
    ck_assert_str_eq(json_string_value(json_object_get(*env, "type")), "mcp");
    ck_assert_str_eq(json_string_value(json_object_get(*env, "session_id")), sid);
    json_t *payload = json_object_get(*env, "payload");
    ck_assert_int_eq(json_integer_value(json_object_get(payload, "id")), id);
    return payload;
}

static json_t *result_of(json_t *payload)
{
    json_t *r = json_object_get(payload, "result");
    ck_assert_msg(json_is_object(r), "no result: %s", json_dumps(payload, 0));
    return r;
}

/* Every tool name of tools/list (all pages), with or without the user-only ones; pages
   counts the requests. */
static json_t *list_all(bool with_user, int *pages)
{
    json_t *names = json_array();
    char cursor[64] = "";
    *pages = 0;
    do {
        char params[160];
        json_t *env;
        snprintf(params, sizeof params, "{\"cursor\":\"%s\",\"withUserTools\":%s}", cursor,
                 with_user ? "true" : "false");
        json_t *r = result_of(call("list", 10 + *pages, "tools/list", params, &env));
        size_t i;
        json_t *t;
        json_array_foreach(json_object_get(r, "tools"), i, t)
            json_array_append(names, json_object_get(t, "name"));
        const char *nc = json_string_value(json_object_get(r, "nextCursor"));
        snprintf(cursor, sizeof cursor, "%s", nc ? nc : "");
        json_decref(env);
        (*pages)++;
    } while (cursor[0] && *pages < 20);
    return names;
}

static bool has(json_t *names, const char *name)
{
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n) if (strcmp(json_string_value(n), name) == 0) return true;
    return false;
}

/* The text of a CallToolResult's first content block (isError asserted false). */
static const char *text_of(json_t *payload)
{
    json_t *r = result_of(payload);
    ck_assert(json_is_false(json_object_get(r, "isError")));
    json_t *block = json_array_get(json_object_get(r, "content"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(block, "type")), "text");
    return json_string_value(json_object_get(block, "text"));
}

static json_t *device_status(void)
{
    json_t *env;
    json_t *status = json_loads(
        text_of(call("s-7", 40, "tools/call", "{\"name\":\"self.get_device_status\"}", &env)), 0,
        NULL);
    ck_assert_ptr_nonnull(status);
    json_decref(env);
    return status;
}

START_TEST(hello_initialize_list_and_call_over_mqtt)
{
    start();
    expect_hello();
    json_t *env;
    json_t *r = result_of(call("s-7", 1, "initialize", "{\"capabilities\":{}}", &env));
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")),
                     "voice-assistant");
    ck_assert(json_is_object(json_object_get(json_object_get(r, "capabilities"), "tools")));
    json_decref(env);

    int pages = 0, user_pages = 0;
    json_t *plain = list_all(false, &pages), *all = list_all(true, &user_pages);
    ck_assert(has(plain, "self.get_device_status"));
    ck_assert(has(plain, "self.audio_speaker.set_volume"));
    ck_assert(has(plain, "self.screen.set_brightness"));
    ck_assert(!has(plain, "self.get_system_info"));
    ck_assert(!has(plain, "self.screen.get_info"));
    ck_assert(has(all, "self.get_system_info"));
    ck_assert(has(all, "self.screen.get_info"));
    ck_assert_int_eq(json_array_size(all), json_array_size(plain) + 2);
    /* a cursor starts a page where it says: the registry index, as decimal text */
    r = result_of(
        call("list", 30, "tools/list", "{\"cursor\":\"1\",\"withUserTools\":true}", &env));
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(json_object_get(r, "tools"), 0), "name")),
        json_string_value(json_array_get(all, 1)));
    json_decref(env);
    json_t *bad = call("list", 31, "tools/list", "{\"cursor\":\"zz\"}", &env);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(bad, "error"), "code")),
                     -32602);
    json_decref(env);
    json_decref(plain);
    json_decref(all);
    stop();
}
END_TEST

START_TEST(self_tools_move_the_codec_and_the_backlight)
{
    start();
    expect_hello();
    json_t *env;
    call("s-9", 1, "initialize", "{\"capabilities\":{}}", &env);
    json_decref(env);
    json_t *status = device_status();
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(status, "audio_speaker"), "volume")),
        70); /* the board's dac_volume 134 */
    json_decref(status);

    ck_assert_str_eq(text_of(call("s-9", 2, "tools/call",
                                  "{\"name\":\"self.audio_speaker.set_volume\","
                                  "\"arguments\":{\"volume\":40}}",
                                  &env)),
                     "true");
    json_decref(env);
    ck_assert_str_eq(text_of(call("s-9", 3, "tools/call",
                                  "{\"name\":\"self.screen.set_brightness\","
                                  "\"arguments\":{\"brightness\":60}}",
                                  &env)),
                     "true");
    json_decref(env);
    /* the codec model saw the register write: 40 % of 0xBF */
    json_t *codec = it_call(control, 1, "sim.i2c.get", "{\"address\":24}");
    ck_assert_int_eq(json_integer_value(json_object_get(it_result(codec), "dac_volume")), 76);
    json_decref(codec);
    json_t *pin = it_call(control, 2, "sim.get_pin", "{\"pin\":\"backlight\"}");
    ck_assert_int_eq(json_integer_value(json_object_get(it_result(pin), "duty")), 153);
    json_decref(pin);
    /* the volume buttons (the control channel) move it the other way */
    json_decref(it_call(control, 3, "sim.i2c.set", "{\"address\":24,\"dac_volume\":191}"));
    json_decref(it_call(control, 4, "sim.set_input", "{\"pin\":\"charging\",\"level\":true}"));
    status = device_status();
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(status, "audio_speaker"), "volume")),
        100);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(status, "screen"), "brightness")), 60);
    ck_assert(json_is_true(json_object_get(json_object_get(status, "battery"), "charging")));
    json_decref(status);

    /* errors as JSON-RPC errors, in the envelope */
    json_t *p = call("s-9", 5, "tools/call", "{\"name\":\"self.non_existent_tool\"}", &env);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "error"), "code")),
                     -32602);
    json_decref(env);
    p = call("s-9", 6, "tools/call",
             "{\"name\":\"self.audio_speaker.set_volume\",\"arguments\":{\"volume\":101}}", &env);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(p, "error"), "code")),
                     -32602);
    json_decref(env);
    /* a user-only tool can be called (it is only hidden from listings) */
    p = call("s-9", 7, "tools/call", "{\"name\":\"self.get_system_info\"}", &env);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(result_of(p), "structuredContent"), "codec_chip_id")),
                     0x83);
    json_decref(env);
    stop();
}
END_TEST

/* Device-initiated: a subscribed pin that changes (the charger, sampled by the firmware every
   500 ms) is pushed as notifications/resources/updated in an envelope with the session's id. */
START_TEST(a_subscribed_change_is_pushed_in_an_envelope)
{
    start();
    expect_hello();
    json_t *env;
    call("s-n", 1, "initialize",
         "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
         "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}",
         &env);
    json_decref(env);
    result_of(call("s-n", 2, "resources/subscribe", "{\"uri\":\"pin://charging\"}", &env));
    json_decref(env);
    json_decref(it_call(control, 1, "sim.set_input", "{\"pin\":\"charging\",\"level\":true}"));
    json_t *note = next();
    ck_assert_str_eq(json_string_value(json_object_get(note, "type")), "mcp");
    ck_assert_str_eq(json_string_value(json_object_get(note, "session_id")), "s-n");
    json_t *payload = json_object_get(note, "payload");
    ck_assert_str_eq(json_string_value(json_object_get(payload, "method")),
                     "notifications/resources/updated");
    ck_assert(json_object_get(payload, "id") == NULL);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(payload, "params"), "uri")),
                     "pin://charging");
    json_decref(note);
    stop();
}
END_TEST

START_TEST(the_device_reconnects_when_the_broker_comes_back)
{
    start();
    expect_hello();
    int port = broker.port;
    mqtt_peer_close(backend);
    mqtt_broker_stop(&broker);
    usleep(300000);
    mqtt_broker_start(&broker, port);
    backend = mqtt_peer_open(broker.port, "voice/+/out");
    expect_hello(); /* within the backoff (0.5 s, 1 s, 2 s ...) */
    json_t *env;
    json_t *r = result_of(call("again", 1, "initialize", "{\"capabilities\":{}}", &env));
    ck_assert(json_is_object(json_object_get(r, "serverInfo")));
    json_decref(env);
    char *log = it_stderr(&proc);
    ck_assert_msg(strstr(log, "next attempt in") != NULL, "no backoff logged: %s", log);
    free(log);
    stop();
}
END_TEST

START_TEST(bad_mqtt_flags_are_usage_errors)
{
    const char *no_topics[] = {"--board", "voice-assistant", "--mqtt", "mqtt://127.0.0.1:1", NULL};
    const char *tls[] = {"--board",
                         "voice-assistant",
                         "--mqtt",
                         "mqtts://127.0.0.1:8883",
                         "--mqtt-publish",
                         "a",
                         "--mqtt-subscribe",
                         "b",
                         NULL};
    const char *bad_topic[] = {"--board",
                               "voice-assistant",
                               "--mqtt",
                               "mqtt://127.0.0.1:1",
                               "--mqtt-publish",
                               "a/+",
                               "--mqtt-subscribe",
                               "b",
                               NULL};
    const char *lonely[] = {"--board", "voice-assistant", "--tcp", "0", "--mqtt-publish", "a",
                            NULL};
    const char *const *cases[] = {no_topics, tls, lonely};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert(!it_start(&proc, cases[i]));
        ck_assert_int_eq(proc.status, 2);
    }
    /* a topic with a wildcard cannot be published to: the link is refused at start */
    ck_assert(!it_start(&proc, bad_topic));
    ck_assert_int_eq(proc.status, 1);
}
END_TEST

static Suite *it_mqtt_suite(void)
{
    Suite *s = suite_create("it_mqtt");
    TCase *tc = tcase_create("mqtt");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hello_initialize_list_and_call_over_mqtt);
    tcase_add_test(tc, self_tools_move_the_codec_and_the_backlight);
    tcase_add_test(tc, a_subscribed_change_is_pushed_in_an_envelope);
    tcase_add_test(tc, the_device_reconnects_when_the_broker_comes_back);
    tcase_add_test(tc, bad_mqtt_flags_are_usage_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!mqtt_broker_bin()) {
        printf("SKIP: no mosquitto broker installed (tools/bootstrap installs Debian's "
               "mosquitto; or set $MOSQUITTO)\n");
        return MQTT_SKIP;
    }
    SRunner *sr = srunner_create(it_mqtt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
