/* test_mcp_notify.c: specification of device-initiated MCP notifications: sessions,
   subscriptions and notifications/resources/updated, the firmware log (fw_log,
   logging/setLevel, notifications/message, the ring's overrun notice) and fw_device_drain. */
#include "test_mcp_util.h"

#if FW_WITH_MCP

static fw_session_t a, b;

static void setup(void)
{
    mcp_setup(false);
    fw_session_init(&a, &dev);
    fw_session_init(&b, &dev);
}

/* A request in session s; returns its result (it must succeed). */
static json_t *call_in(fw_session_t *s, const char *method, const char *params)
{
    return result_in(request_in(s, method, params), method);
}

static void initialize(fw_session_t *s)
{
    call_in(s, "initialize", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}");
}

/* Drains s into out; returns how many messages were written (checked against the count). */
static size_t drain(fw_session_t *s)
{
    mcap_reset(&out);
    size_t n = fw_device_drain(&dev, s, mcap_sink(&out));
    ck_assert_uint_eq(n, out.count);
    return n;
}

static void assert_updated(unsigned k, const char *uri)
{
    json_t *n = msg_at(k);
    ck_assert_str_eq(jstr(n, "method"), "notifications/resources/updated");
    ck_assert_str_eq(jstr(n, "params.uri"), uri);
    ck_assert_ptr_null(json_object_get(n, "id"));
}

static void assert_log(unsigned k, const char *level, const char *data)
{
    json_t *n = msg_at(k);
    ck_assert_str_eq(jstr(n, "method"), "notifications/message");
    ck_assert_str_eq(jstr(n, "params.level"), level);
    ck_assert_str_eq(jstr(n, "params.logger"), "mcp-test");
    ck_assert_str_eq(jstr(n, "params.data"), data);
}

/* ---------------------------------------------------------------- subscriptions */

START_TEST(test_only_the_subscriber_is_notified)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&b, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert_uint_eq(drain(&a), 1);
    assert_updated(0, "pin://led");
    ck_assert_uint_eq(drain(&b), 0);
    ck_assert_uint_eq(drain(&a), 0); /* once */
    call_in(&a, "tools/call", "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}");
    ck_assert_uint_eq(drain(&a), 0); /* the same level again: no change */
}
END_TEST

START_TEST(test_each_session_has_its_own_subscriptions)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&b, "resources/subscribe", "{\"uri\":\"pin://fan\"}");
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    call_in(&a, "pwm_write", "{\"pin\":\"fan\",\"duty\":10}");
    ck_assert_uint_eq(drain(&a), 1);
    assert_updated(0, "pin://led");
    ck_assert_uint_eq(drain(&b), 1);
    assert_updated(0, "pin://fan");
}
END_TEST

START_TEST(test_unsubscribe_stops_updates)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&a, "resources/unsubscribe", "{\"uri\":\"pin://led\"}");
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert_uint_eq(drain(&a), 0);
}
END_TEST

/* Sampling changes a subscribed input: each new value is an update, a repeated one is not. */
START_TEST(test_sampled_pin_updates)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://sensor\"}");
    hal.pins[34].adc = 1500;
    hal.now = 100;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&a), 1);
    assert_updated(0, "pin://sensor");
    hal.now = 200;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&a), 0);
    hal.pins[34].adc = 1600;
    hal.now = 300;
    ck_assert_uint_eq(drain(&a), 0); /* not sampled yet */
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&a), 1);
}
END_TEST

/* Pins not sampled written around sampled ones, all seen in one look (observe takes the
   sampled pins apart, mcp_notify.c): each change is noted once, in pin order, and a look
   with nothing new notes nothing. */
START_TEST(test_sampled_and_written_pins_in_one_look)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://sensor\"}");
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://fan\"}");
    drain(&a);
    uint32_t before = dev.change_count;
    fw_device_pin_note_level(&dev, 0, true); /* led */
    fw_device_pin_note_duty(&dev, 3, 128);   /* fan, after the sampled pins */
    hal.pins[34].adc = 1500;
    hal.now = 100;
    fw_device_poll(&dev);
    ck_assert_uint_gt(dev.pin_changed[0], before);
    ck_assert_uint_gt(dev.pin_changed[2], dev.pin_changed[0]);
    ck_assert_uint_gt(dev.pin_changed[3], dev.pin_changed[2]);
    ck_assert_uint_eq(dev.change_count, dev.pin_changed[3]);
    ck_assert_uint_eq(drain(&a), 3);
    assert_updated(0, "pin://led");
    assert_updated(1, "pin://sensor");
    assert_updated(2, "pin://fan");
    /* written again to the same state: looked at, not changed */
    fw_device_pin_note_level(&dev, 0, true);
    fw_device_pin_note_duty(&dev, 3, 128);
    hal.now = 200;
    fw_device_poll(&dev);
    ck_assert_uint_eq(dev.change_count, dev.pin_changed[3]);
    ck_assert_uint_eq(drain(&a), 0);
    ck_assert_uint_eq(dev.pin_touched[0], 0);
}
END_TEST

/* Changes are observed after each call, so one undone within a batch still reaches
   subscribers. */
START_TEST(test_change_undone_in_a_batch_is_seen)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    const char *batch =
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"gpio_write\",\"params\":{\"pin\":2,"
        "\"value\":true}},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"gpio_write\","
        "\"params\":{\"pin\":2,\"value\":false}}]";
    mcap_reset(&out);
    fw_device_handle_session(&dev, &b, batch, strlen(batch), mcap_sink(&out));
    ck_assert_uint_eq(drain(&a), 1);
}
END_TEST

START_TEST(test_pin_mode_change_is_an_update)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&a, "pin_mode", "{\"pin\":\"led\",\"mode\":\"input\"}");
    ck_assert_uint_eq(drain(&a), 1);
}
END_TEST

/* Reading a pin's resource learns its level (a state change like any other): observe, which
   compares only the pins written since its last look, sees it. */
START_TEST(test_resource_read_learns_a_level)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&b, "resources/read", "{\"uri\":\"pin://led\"}");
    ck_assert_uint_eq(drain(&a), 1);
    assert_updated(0, "pin://led");
    call_in(&b, "resources/read", "{\"uri\":\"pin://led\"}");
    ck_assert_uint_eq(drain(&a), 0); /* the same level again */
}
END_TEST

/* device://info shows constant facts: subscribing is accepted and never fires. */
START_TEST(test_device_subscription_never_fires)
{
    call_in(&a, "resources/subscribe", "{\"uri\":\"device://info\"}");
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert_uint_eq(drain(&a), 0);
}
END_TEST

/* A new session is not told about what happened before it. */
START_TEST(test_new_session_starts_at_present)
{
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    fw_log(&dev, FW_LOG_ERROR, "before");
    fw_session_t c;
    fw_session_init(&c, &dev);
    initialize(&c);
    call_in(&c, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    ck_assert_uint_eq(drain(&c), 0);
}
END_TEST

/* ---------------------------------------------------------------- the log */

START_TEST(test_no_log_without_asking)
{
    fw_log(&dev, FW_LOG_EMERGENCY, "quiet");
    ck_assert_uint_eq(drain(&a), 0); /* MCP/U clients never initialize: no unsolicited lines */
    ck_assert_uint_eq(drain(NULL), 0);
}
END_TEST

START_TEST(test_initialize_turns_on_info)
{
    initialize(&a);
    fw_log(&dev, FW_LOG_DEBUG, "hidden");
    fw_log(&dev, FW_LOG_INFO, "shown %u", 1u);
    fw_log(&dev, FW_LOG_CRITICAL, "pin %s", "x");
    ck_assert_uint_eq(drain(&a), 2);
    assert_log(0, "info", "shown 1");
    assert_log(1, "critical", "pin x");
    ck_assert_uint_eq(drain(&a), 0);
}
END_TEST

START_TEST(test_set_level_filters)
{
    call_in(&a, "logging/setLevel", "{\"level\":\"warning\"}");
    call_in(&b, "logging/setLevel", "{\"level\":\"debug\"}");
    for (unsigned lv = 0; lv < FW_LOG_LEVEL_COUNT; lv++)
        fw_log(&dev, (fw_log_level_t)lv, "%s", fw_log_level_name((fw_log_level_t)lv));
    ck_assert_uint_eq(drain(&a), 5);
    assert_log(0, "warning", "warning");
    assert_log(4, "emergency", "emergency");
    ck_assert_uint_eq(drain(&b), FW_LOG_LEVEL_COUNT);
    assert_log(0, "debug", "debug");
}
END_TEST

static const char *const bad_levels[] = {"{\"level\":\"verbose\"}", "{\"level\":\"WARNING\"}",
                                         "{\"level\":3}", "{}",
                                         "{\"level\":\"warningwarningwarning\"}"};

START_TEST(test_set_level_rejects)
{
    char m[128];
    snprintf(m, sizeof m,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":%s}",
             bad_levels[_i]);
    mcap_reset(&out);
    ck_assert(fw_device_handle_session(&dev, &a, m, strlen(m), mcap_sink(&out)));
    json_t *e = json_object_get(msg_at(0), "error");
    ck_assert_int_eq(jint(e, "code"), FW_RPC_INVALID_PARAMS);
    ck_assert_str_eq(jstr(e, "data.issues.0.path"), "level");
    ck_assert(!a.logging);
}
END_TEST

/* When the ring overran a session's cursor, it is told how many entries it lost. */
START_TEST(test_ring_overrun_notice)
{
    call_in(&a, "logging/setLevel", "{\"level\":\"debug\"}");
    call_in(&b, "logging/setLevel", "{\"level\":\"error\"}");
    for (unsigned i = 0; i < FW_LOG_RING + 3; i++) fw_log(&dev, FW_LOG_ERROR, "entry %u", i);
    ck_assert_uint_eq(drain(&a), 1 + FW_LOG_RING);
    char want[128]; /* the whole notice, which must fit FW_LOG_TEXT_MAX */
    snprintf(
        want, sizeof want,
        "3 log messages were lost: the log ring (FW_LOG_RING %u) overran before they were sent",
        (unsigned)FW_LOG_RING);
    assert_log(0, "warning", want);
    assert_log(1, "error", "entry 3");
    snprintf(want, sizeof want, "entry %u", FW_LOG_RING + 2u);
    assert_log(FW_LOG_RING, "error", want);
    ck_assert_uint_eq(drain(&b), FW_LOG_RING); /* the notice is a warning: below b's level */
}
END_TEST

START_TEST(test_log_text_is_cut)
{
    char longtext[300];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = 0;
    initialize(&a);
    fw_log(&dev, FW_LOG_INFO, "%s", longtext);
    ck_assert_uint_eq(drain(&a), 1);
    ck_assert_uint_eq(strlen(jstr(msg_at(0), "params.data")), FW_LOG_TEXT_MAX - 1);
}
END_TEST

/* The core's own entries: a threshold crossing, a full event queue, an overlong line, a failed
   MCP/U tool call. */
START_TEST(test_core_log_entries)
{
    initialize(&a);
    hal.pins[34].adc = 100;
    hal.now = 100;
    fw_device_poll(&dev);
    hal.pins[34].adc = 3500;
    hal.now = 200;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&a), 1);
    assert_log(0, "notice", "pin sensor (34): reached the high threshold 3000 (value 3500)");
    hal.pins[34].adc = 900;
    hal.now = 300;
    fw_device_poll(&dev);
    ck_assert_uint_eq(drain(&a), 1);
    assert_log(0, "notice", "pin sensor (34): fell to the low threshold 1000 (value 900)");
    fw_framer_t fr;
    fw_framer_init(&fr);
    static uint8_t line[FW_LINE_MAX + 2];
    static cap_t sink;
    memset(line, 'x', sizeof line);
    line[sizeof line - 1] = '\n';
    fw_device_feed(&dev, &fr, line, sizeof line, cap_sink(&sink));
    ck_assert_uint_eq(drain(&a), 1);
    ck_assert_str_eq(jstr(msg_at(0), "params.level"), "warning");
    const char *fail =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"i2c_read\",\"params\":{\"address\":72}}";
    fw_device_handle(&dev, fail, strlen(fail), cap_sink(&sink));
    ck_assert_uint_eq(drain(&a), 1);
    assert_log(0, "error", "tool i2c_read failed: no acknowledge from i2c device 0x48 on bus 0");
}
END_TEST

START_TEST(test_button_edges_and_queue_overflow_logged)
{
    call_in(&a, "logging/setLevel", "{\"level\":\"notice\"}");
    hal.now = 10;
    fw_device_poll(&dev); /* first sample: state only */
    for (unsigned i = 1; i <= FW_EVENT_QUEUE_MAX + 2; i++) {
        hal.pins[4].level = i % 2 != 0;
        hal.now = 10 + 10u * i;
        fw_device_poll(&dev);
    }
    size_t n = drain(&a);
    /* the ring keeps the last FW_LOG_RING entries: edges, then a warning per dropped event */
    ck_assert_uint_eq(n, 1 + FW_LOG_RING);
    assert_log(FW_LOG_RING - 1, "warning",
               "event queue full (FW_EVENT_QUEUE_MAX 32); events dropped since boot: 1");
    assert_log(FW_LOG_RING, "warning",
               "event queue full (FW_EVENT_QUEUE_MAX 32); events dropped since boot: 2");
    assert_log(FW_LOG_RING - 2, "notice", "pin button (4): falling edge");
    assert_log(FW_LOG_RING - 3, "notice", "pin button (4): rising edge");
}
END_TEST

/* ---------------------------------------------------------------- sinks and the old API */

static cap_t stream;

/* With no end hook, every message is a line. */
START_TEST(test_drain_without_end_writes_lines)
{
    call_in(&a, "logging/setLevel", "{\"level\":\"info\"}");
    fw_log(&dev, FW_LOG_INFO, "one");
    fw_log(&dev, FW_LOG_INFO, "two");
    cap_reset(&stream);
    fw_msg_sink_t lines = {cap_write, &stream, NULL, NULL};
    ck_assert_uint_eq(fw_device_drain(&dev, &a, lines), 2);
    char *nl = strchr(stream.buf, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_uint_eq(stream.buf[stream.len - 1], '\n');
    *nl = 0;
    json_t *first = own(jparse(stream.buf));
    ck_assert_str_eq(jstr(first, "params.data"), "one");
}
END_TEST

/* The old entry points serve the device's implicit session: MCP over a plain pty. */
START_TEST(test_implicit_session)
{
    fw_framer_t fr;
    fw_framer_init(&fr);
    const char *req =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{"
        "\"uri\":\"pin://led\"}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"gpio_write\",\"params\":{\"pin\":2,"
        "\"value\":true}}\n";
    cap_reset(&stream);
    fw_device_feed(&dev, &fr, (const uint8_t *)req, strlen(req), cap_sink(&stream));
    ck_assert_ptr_nonnull(strstr(stream.buf, "\"protocolVersion\"")); /* initialized */
    ck_assert_uint_eq(drain(NULL), 1);
    assert_updated(0, "pin://led");
    ck_assert_uint_eq(drain(&a), 0);
    /* fw_device_handle uses the same implicit session */
    static cap_t plain;
    const char *unsub =
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/unsubscribe\",\"params\":"
        "{\"uri\":\"pin://led\"}}";
    fw_device_handle(&dev, unsub, strlen(unsub), cap_sink(&plain));
    ck_assert_ptr_nonnull(strstr(plain.buf, "\"result\""));
    static const char off[] = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"gpio_write\",\"params\":{"
                              "\"pin\":2,\"value\":false}}";
    fw_device_handle(&dev, off, strlen(off), cap_sink(&plain));
    ck_assert_uint_eq(drain(NULL), 0); /* no longer subscribed */
}
END_TEST

/* A session that outlives a re-initialised device (a reset) catches up with the present. */
START_TEST(test_session_survives_device_reinit)
{
    initialize(&a);
    for (unsigned i = 0; i < 5; i++) fw_log(&dev, FW_LOG_INFO, "old %u", i);
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert_uint_eq(drain(&a), 6);
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(drain(&a), 0);
    fw_log(&dev, FW_LOG_INFO, "new");
    call_in(&a, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert_uint_eq(drain(&a), 2);
    assert_updated(0, "pin://led");
    assert_log(1, "info", "new");
}
END_TEST

START_TEST(test_level_names)
{
    static const char *const names[] = {"debug", "info",     "notice", "warning",
                                        "error", "critical", "alert",  "emergency"};
    for (unsigned i = 0; i < FW_LOG_LEVEL_COUNT; i++)
        ck_assert_str_eq(fw_log_level_name((fw_log_level_t)i), names[i]);
    ck_assert_ptr_null(fw_log_level_name(FW_LOG_LEVEL_COUNT));
}
END_TEST

/* ---------------------------------------------------------------- fw_device_pending */

static fw_err_t noop_fn(fw_call_t *call)
{
    (void)call;
    return FW_OK;
}

/* What a host with many sessions asks after each call: whether any session may have something
   new (then it drains them all) or only the caller (then it drains that one). */
START_TEST(test_pending_follows_the_record)
{
    static const fw_tool_t noop = {.name = "noop", .description = "n", .handler = noop_fn};
    uint32_t mark = 0;
    (void)fw_device_pending(&dev, &mark); /* the first look takes the mark */
    ck_assert(!fw_device_pending(&dev, &mark));
    initialize(&a);
    call_in(&a, "resources/subscribe", "{\"uri\":\"pin://led\"}");
    ck_assert(!fw_device_pending(&dev, &mark)); /* a subscription alone: nothing to send */
    call_in(&b, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert(fw_device_pending(&dev, &mark));  /* a pin changed */
    ck_assert(!fw_device_pending(&dev, &mark)); /* told once */
    ck_assert_uint_eq(drain(&a), 1);
    assert_updated(0, "pin://led");
    call_in(&b, "gpio_write", "{\"pin\":\"led\",\"value\":true}");
    ck_assert(!fw_device_pending(&dev, &mark)); /* the same level: no change, nothing to send */
    ck_assert_uint_eq(drain(&a), 0);
    fw_log(&dev, FW_LOG_WARNING, "%s", "hot");
    ck_assert(fw_device_pending(&dev, &mark)); /* a log entry */
    ck_assert(!fw_device_pending(&dev, &mark));
    ck_assert_uint_eq(fw_device_add_tool(&dev, &noop), FW_OK);
    ck_assert(fw_device_pending(&dev, &mark)); /* a list changed (listen streams follow it) */
    ck_assert(!fw_device_pending(&dev, &mark));
    /* a sampled input changed (no request: the device's poll): seen by the look itself */
    hal.pins[34].adc = 1500;
    hal.now = 100;
    fw_device_poll(&dev);
    ck_assert(fw_device_pending(&dev, &mark));
    ck_assert(!fw_device_pending(&dev, &mark));
    /* the device started again under the living mark: told, the counters began anew */
    hal.now = 200;
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    ck_assert(fw_device_pending(&dev, &mark));
}
END_TEST

Suite *mcp_notify_suite(void);

Suite *mcp_notify_suite(void)
{
    Suite *s = suite_create("mcp_notify");
    TCase *t = tcase_create("subscriptions");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_only_the_subscriber_is_notified);
    tcase_add_test(t, test_each_session_has_its_own_subscriptions);
    tcase_add_test(t, test_unsubscribe_stops_updates);
    tcase_add_test(t, test_sampled_pin_updates);
    tcase_add_test(t, test_sampled_and_written_pins_in_one_look);
    tcase_add_test(t, test_change_undone_in_a_batch_is_seen);
    tcase_add_test(t, test_pin_mode_change_is_an_update);
    tcase_add_test(t, test_resource_read_learns_a_level);
    tcase_add_test(t, test_device_subscription_never_fires);
    tcase_add_test(t, test_new_session_starts_at_present);
    suite_add_tcase(s, t);

    t = tcase_create("log");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_no_log_without_asking);
    tcase_add_test(t, test_initialize_turns_on_info);
    tcase_add_test(t, test_set_level_filters);
    tcase_add_loop_test(t, test_set_level_rejects, 0, sizeof bad_levels / sizeof bad_levels[0]);
    tcase_add_test(t, test_ring_overrun_notice);
    tcase_add_test(t, test_log_text_is_cut);
    tcase_add_test(t, test_core_log_entries);
    tcase_add_test(t, test_button_edges_and_queue_overflow_logged);
    tcase_add_test(t, test_level_names);
    suite_add_tcase(s, t);

    t = tcase_create("sinks");
    tcase_add_checked_fixture(t, setup, mcp_teardown);
    tcase_add_test(t, test_drain_without_end_writes_lines);
    tcase_add_test(t, test_implicit_session);
    tcase_add_test(t, test_session_survives_device_reinit);
    tcase_add_test(t, test_pending_follows_the_record);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_MCP) */

/* A build without MCP: no log, nothing queued for a session, no protocol version. */
START_TEST(test_feature_is_off)
{
    static const fw_board_t b = {.device = "no-mcp", .version = "1", .platform = "mock"};
    ck_assert(!FW_WITH_MCP);
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    fw_session_t s;
    memset(&s, 0xA5, sizeof s);
    fw_session_init(&s, &dev);
    ck_assert(!s.initialize_seen);
    ck_assert_uint_eq(s.subscriptions, 0);
    ck_assert_str_eq(fw_session_protocol_version(&s), "");
    ck_assert_ptr_null(fw_log_level_name(FW_LOG_WARNING));
    mcap_reset(&out);
    ck_assert_uint_eq(fw_device_drain(&dev, &s, mcap_sink(&out)), 0);
    ck_assert_uint_eq(fw_device_drain(&dev, NULL, mcap_sink(&out)), 0);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

Suite *mcp_notify_suite(void);

Suite *mcp_notify_suite(void)
{
    Suite *s = suite_create("mcp_notify");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(mcp_notify_suite)
