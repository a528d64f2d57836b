/* test_host_dialout.c: the pieces of the dial-out links that need no network: {n} templates,
   --mqtt URLs, the 003 envelope's recognition and head, and the command line's dial-out flags. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dialout.h"
#include "envelope.h"
#include "mqtt.h"
#include "test_util.h"

START_TEST(templates_number_every_placeholder)
{
    char *s = host_template("dev/{n}/in-{n}", 42);
    ck_assert_str_eq(s, "dev/42/in-42");
    free(s);
    s = host_template("no placeholder", 7);
    ck_assert_str_eq(s, "no placeholder");
    free(s);
    s = host_template("{n", 3); /* not a placeholder */
    ck_assert_str_eq(s, "{n");
    free(s);
    ck_assert_ptr_null(host_template(NULL, 1));
}
END_TEST

START_TEST(mqtt_urls_are_checked)
{
    char host[64], err[256];
    uint16_t port = 0;
    ck_assert_int_eq(
        host_mqtt_url_parse("mqtt://broker.lan", host, sizeof host, &port, err, sizeof err), 0);
    ck_assert_str_eq(host, "broker.lan");
    ck_assert_uint_eq(port, 1883);
    ck_assert_int_eq(
        host_mqtt_url_parse("MQTT://127.0.0.1:18830/", host, sizeof host, &port, err, sizeof err),
        0);
    ck_assert_uint_eq(port, 18830);
    const char *bad[] = {"mqtt://",        "mqtt://h:0",   "mqtt://h:65536", "mqtt://h:x",
                         "mqtt://h/topic", "tcp://h:1883", "h:1883",         "mqtt://:1883"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(host_mqtt_url_parse(bad[i], NULL, 0, NULL, err, sizeof err) == -1, "%s",
                      bad[i]);
        ck_assert_msg(strstr(err, "expected mqtt://HOST[:PORT]") != NULL, "%s: %s", bad[i], err);
    }
    ck_assert_int_eq(host_mqtt_url_parse("mqtts://h:8883", NULL, 0, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "TLS"));
}
END_TEST

START_TEST(envelopes_are_told_from_plain_messages)
{
    const char *mcp = "{\"session_id\":\"s-1\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\","
                      "\"id\":1.50,\"method\":\"ping\"}}";
    host_env_t env;
    host_env_parse(mcp, strlen(mcp), &env);
    ck_assert_int_eq(env.kind, HOST_ENV_MCP);
    ck_assert_str_eq(env.session_id, "\"s-1\"");
    /* the payload byte for byte: the id's 1.50 as sent */
    ck_assert_int_eq(env.payload_len,
                     strlen("{\"jsonrpc\":\"2.0\",\"id\":1.50,\"method\":\"ping\"}"));
    ck_assert(strncmp(env.payload, "{\"jsonrpc\":\"2.0\",\"id\":1.50", 26) == 0);
    host_env_free(&env);

    const char *plain = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"type\":\"x\"}";
    host_env_parse(plain, strlen(plain), &env);
    ck_assert_int_eq(env.kind, HOST_ENV_PLAIN);
    ck_assert_ptr_eq(env.payload, plain);
    host_env_free(&env);

    host_env_parse("not json", 8, &env);
    ck_assert_int_eq(env.kind, HOST_ENV_PLAIN);
    host_env_free(&env);

    const char *nopayload = "{\"type\":\"mcp\",\"payload\":[1]}";
    host_env_parse(nopayload, strlen(nopayload), &env);
    ck_assert_int_eq(env.kind, HOST_ENV_MCP);
    ck_assert_ptr_null(env.payload);
    ck_assert_ptr_null(env.session_id);
    host_env_free(&env);

    const char *hello = "{\"type\":\"hello\",\"session_id\":7}";
    host_env_parse(hello, strlen(hello), &env);
    ck_assert_int_eq(env.kind, HOST_ENV_OTHER);
    ck_assert_str_eq(env.type, "hello");
    ck_assert_str_eq(env.session_id, "7");
    host_env_free(&env);

    const char *listen = "{\"type\":\"listen\",\"session_id\":\"x\"}";
    host_env_parse(listen, strlen(listen), &env);
    ck_assert_int_eq(env.kind, HOST_ENV_OTHER);
    ck_assert_ptr_null(env.session_id); /* only a hello assigns one */
    host_env_free(&env);
}
END_TEST

START_TEST(an_envelope_head_carries_the_session_id_as_received)
{
    host_buf_t b = {0};
    host_env_head(&b, "\"abc\"");
    host_buf_append(&b, "{}}", 4);
    ck_assert_str_eq(b.data, "{\"session_id\":\"abc\",\"type\":\"mcp\",\"payload\":{}}");
    b.len = 0;
    host_env_head(&b, NULL);
    host_buf_append(&b, "{}}", 4);
    ck_assert_str_eq(b.data, "{\"type\":\"mcp\",\"payload\":{}}");
    host_buf_free(&b);
    char bad[200];
    size_t n = host_env_bad_payload(bad, sizeof bad);
    ck_assert_uint_eq(n, strlen(bad));
    ck_assert_ptr_nonnull(strstr(bad, "-32600"));
}
END_TEST

static int parse(const char *const *args, host_options_t *o, char *err, size_t cap)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "mcpsim";
    for (; *args; args++) argv[argc++] = (char *)*args;
    return host_cli_parse(argc, argv, o, err, cap);
}

START_TEST(the_command_line_takes_mqtt_and_fleet_flags)
{
    host_options_t o;
    char err[512];
    const char *ok[] = {"--board",
                        "voice-assistant",
                        "--mqtt",
                        "mqtt://127.0.0.1",
                        "--mqtt-publish",
                        "a/{n}",
                        "--mqtt-subscribe",
                        "b/{n}",
                        "--fleet",
                        "250",
                        "--fleet-stagger",
                        "0",
                        "--mqtt-client-id",
                        "c-{n}",
                        NULL};
    ck_assert_msg(parse(ok, &o, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(o.mqtt, "mqtt://127.0.0.1");
    ck_assert_str_eq(o.mqtt_publish, "a/{n}");
    ck_assert_str_eq(o.mqtt_subscribe, "b/{n}");
    ck_assert_str_eq(o.mqtt_client_id, "c-{n}");
    ck_assert_uint_eq(o.fleet, 250);
    ck_assert_uint_eq(o.fleet_stagger_ms, 0);
    const char *plain[] = {"--board", "voice-assistant", "--tcp", "0", NULL};
    ck_assert_int_eq(parse(plain, &o, err, sizeof err), 0);
    ck_assert_uint_eq(o.fleet, 1);
    ck_assert_uint_eq(o.fleet_stagger_ms, HOST_FLEET_STAGGER_DEFAULT);
    ck_assert_ptr_null(o.mqtt);

    struct {
        const char *args[12];
        const char *error;
    } bad[] = {
        {{"--board", "b", "--mqtt", "mqtt://h", "--mqtt-publish", "a", NULL}, "--mqtt needs"},
        {{"--board", "b", "--tcp", "0", "--mqtt-subscribe", "a", NULL}, "need --mqtt"},
        {{"--board", "b", "--fleet", "2", "--tcp", "0", NULL}, "--fleet N runs devices"},
        {{"--board", "b", "--fleet", "0", "--connect", "ws://h/", NULL}, "--fleet '0'"},
        {{"--board", "b", "--fleet-stagger", "60001", "--connect", "ws://h/", NULL},
         "--fleet-stagger"},
        {{"--board", "b", "--tcp", "0", "--device-id", "x", NULL}, "it needs --connect"},
        {{"--board", "b", "--mqtt", "mqtts://h", NULL}, "TLS"},
        {{"--device", "tcp:h:1", "--mqtt", "mqtt://h", "--mqtt-publish", "a", "--mqtt-subscribe",
          "b", NULL},
         "need a simulated --board"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse(bad[i].args, &o, err, sizeof err) == -1, "case %zu accepted", i);
        ck_assert_msg(strstr(err, bad[i].error) != NULL, "case %zu: %s", i, err);
    }
}
END_TEST

static Suite *dialout_suite(void)
{
    Suite *s = suite_create("host_dialout");
    TCase *tc = tcase_create("dialout");
    tcase_add_test(tc, templates_number_every_placeholder);
    tcase_add_test(tc, mqtt_urls_are_checked);
    tcase_add_test(tc, envelopes_are_told_from_plain_messages);
    tcase_add_test(tc, an_envelope_head_carries_the_session_id_as_received);
    tcase_add_test(tc, the_command_line_takes_mqtt_and_fleet_flags);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(dialout_suite)
