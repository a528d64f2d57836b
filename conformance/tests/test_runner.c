/* test_runner.c: the runner against a scripted in-process device: matching responses by id,
   queued notifications, silence, timeouts, captures, loops, requirements and failure reports. */
#include <jansson.h>

#include "ctest_util.h"
#include "discovery.h"
#include "fw_codes.h"
#include "runner.h"
#include "stream.h"

/* ---------------------------------------------------------------- the fake device */

typedef struct fake {
    conf_lines_t out; /* what the device has sent, not yet received */
    json_t *held;     /* a "late" response, delivered after the next one */
} fake_t;

static void emit(fake_t *f, json_t *msg)
{
    char *text = conf_json_text(msg);
    conf_lines_push(&f->out, text, strlen(text));
    conf_lines_push(&f->out, "\n", 1);
    free(text);
    json_decref(msg);
}

static json_t *manifest(void)
{
    return json_pack("{s:s, s:s, s:[{s:s, s:s, s:b, s:{s:s, s:{}, s:[]}}, {s:s, s:s, s:{s:s, "
                     "s:{s:{s:s}}, s:[s]}}], s:[{s:i, s:s, s:s, s:s}, {s:i, s:s, s:s, s:s}], "
                     "s:{s:b, s:b}}",
                     "device", "fake", "version", "9.9", "tools", "name", "status", "description",
                     "d", "readOnly", 1, "inputSchema", "type", "object", "properties", "required",
                     "name", "gpio_write", "description", "d", "inputSchema", "type", "object",
                     "properties", "pin", "type", "integer", "required", "pin", "pins", "pin", 2,
                     "name", "led", "type", "digital_output", "description", "", "pin", 34, "name",
                     "sensor", "type", "adc_input", "description", "", "capabilities", "batch", 0,
                     "sampling", 1);
}

static json_t *answer(const char *method, const json_t *params)
{
    if (strcmp(method, "get_info") == 0)
        return json_pack("{s:s, s:s, s:s, s:i}", "device", "fake", "version", "9.9", "platform",
                         "test", "pin_count", 2);
    if (strcmp(method, "list_tools") == 0) return manifest();
    return json_pack("{s:s, s:O}", "echo", method, "params", params ? params : json_null());
}

static int fake_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    fake_t *f = t->impl;
    json_t *req = json_loadb(msg, len, 0, NULL);
    const char *method = json_string_value(json_object_get(req, "method"));
    json_t *id = json_object_get(req, "id");
    if (!method) {
        json_decref(req);
        return 0;
    }
    if (!id) {
        if (strcmp(method, "chatty") == 0) /* a device that wrongly answers notifications */
            emit(f, json_pack("{s:s, s:n, s:{}}", "jsonrpc", "2.0", "id", "result"));
        json_decref(req);
        return 0;
    }
    json_t *resp;
    if (strcmp(method, "fail") == 0)
        resp = json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id, "error", "code",
                         FW_RPC_METHOD_NOT_FOUND, "message", "method 'fail' not found");
    else
        resp = json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
                         answer(method, json_object_get(req, "params")));
    if (strcmp(method, "notify_first") == 0)
        emit(f, json_pack("{s:s, s:s, s:{s:i}}", "jsonrpc", "2.0", "method", "event", "params", "n",
                          1));
    if (strcmp(method, "silent") == 0) {
        json_decref(resp);
    } else if (strcmp(method, "late") == 0) {
        f->held = resp;
    } else {
        emit(f, resp);
        if (f->held) emit(f, f->held);
        f->held = NULL;
    }
    json_decref(req);
    return 0;
}

static int fake_send_raw(conf_target_t *t, const void *b, size_t len, char *err, size_t cap)
{
    (void)b;
    (void)len;
    (void)err;
    (void)cap;
    emit(t->impl, json_pack("{s:s, s:n, s:{s:i}}", "jsonrpc", "2.0", "id", "error", "code",
                            FW_RPC_PARSE_ERROR));
    return 0;
}

static int fake_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                        size_t cap)
{
    (void)err;
    (void)cap;
    fake_t *f = t->impl;
    *msg = conf_lines_pop(&f->out, len);
    if (*msg) return 1;
    int64_t left = deadline - conf_now_ms();
    conf_sleep_ms(left > 0 ? left : 0);
    return 0;
}

static void fake_close(conf_target_t *t)
{
    (void)t;
}

static const conf_target_ops_t fake_ops = {"fake",       NULL,       fake_send, fake_send_raw,
                                           fake_receive, fake_close, NULL,        NULL};

/* ---------------------------------------------------------------- fixture */

static fake_t dev;
static conf_target_t target;
static conf_run_ctx_t ctx;
static conf_library_t lib;
static conf_result_t res;

static void setup(void)
{
    memset(&dev, 0, sizeof dev);
    memset(&target, 0, sizeof target);
    target.ops = &fake_ops;
    target.impl = &dev;
    target.stream = true;
    conf_copy(target.transport, sizeof target.transport, "tcp");
    conf_run_init(&ctx, &target, NULL);
    char err[256];
    ck_assert_int_eq(conf_discover(&ctx, err, sizeof err), 0);
    conf_library_init(&lib);
    memset(&res, 0, sizeof res);
}

static void teardown(void)
{
    conf_result_free(&res);
    conf_library_free(&lib);
    conf_run_free(&ctx);
    conf_lines_free(&dev.out);
    json_decref(dev.held);
}

/* Loads one scenario from text (steps only) and runs it into res. */
static void run(const char *requires, const char *steps)
{
    char text[4096], err[512];
    snprintf(text, sizeof text,
             "{\"format\":1,\"name\":\"t%zu\",\"description\":\"d\",\"timeout_ms\":100,"
             "\"source\":\"test\",\"level\":\"must\","
             "\"requires\":%s,\"steps\":%s}",
             lib.count, requires ? requires : "{}", steps);
    ck_assert_msg(conf_load_text(&lib, "t.json", text, strlen(text), err, sizeof err) == 0, "%s",
                  err);
    conf_result_free(&res);
    conf_run_scenario(&ctx, lib.items[lib.count - 1], &res);
}

#define ASSERT_PASS() ck_assert_msg(res.status == CONF_PASS, "failed: %s", res.message)
#define ASSERT_FAIL_WITH(text)                                                                     \
    do {                                                                                           \
        ck_assert_int_eq(res.status, CONF_FAIL);                                                   \
        ck_assert_str_eq(res.message, text);                                                       \
    } while (0)

/* ---------------------------------------------------------------- tests */

START_TEST(discovery_variables)
{
    ck_assert_str_eq(json_string_value(conf_vars_get(&ctx.globals, "device")), "fake");
    ck_assert_int_eq(json_integer_value(conf_vars_get(&ctx.globals, "pin.adc_input.pin")), 34);
    ck_assert_int_eq(json_integer_value(conf_vars_get(&ctx.globals, "unused_pin")), 35);
    ck_assert_str_eq(json_string_value(conf_vars_get(&ctx.globals, "read_only_tools[0].name")),
                     "status");
    ck_assert_str_eq(json_string_value(conf_vars_get(&ctx.globals, "tool_names[1]")), "gpio_write");
    ck_assert_ptr_null(conf_vars_get(&ctx.globals, "pin.digital_input"));
}
END_TEST

START_TEST(send_expect_capture)
{
    run(NULL, "[{\"send\":{\"method\":\"m\",\"params\":{\"pin\":\"${pin.adc_input.pin}\"}},"
              "\"expect\":{\"result\":{\"echo\":\"m\",\"params\":{\"pin\":34}}},"
              "\"capture\":{\"p\":\"result.params.pin\"}},"
              "{\"send\":{\"method\":\"n\",\"params\":{\"v\":\"${p+1}\"}},"
              "\"expect\":{\"result\":{\"params\":{\"v\":35}}}}]");
    ASSERT_PASS();
    ck_assert_uint_eq(json_array_size(res.steps), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(res.steps, 0), "detail")),
                     "m");
}
END_TEST

START_TEST(mismatch_is_reported_with_diff_and_transcript)
{
    run(NULL, "[{\"send\":{\"method\":\"m\"}},{\"send\":{\"method\":\"m\"},\"comment\":\"why\","
              "\"expect\":{\"result\":{\"echo\":\"x\"}}}]");
    ck_assert_int_eq(res.status, CONF_FAIL);
    ck_assert_str_eq(res.message,
                     "step 2 (send m: why): at $.result.echo: expected \"x\", got \"m\"");
    ck_assert_ptr_nonnull(strstr(res.expected, "\"echo\": \"x\""));
    ck_assert_ptr_nonnull(strstr(res.actual, "\"echo\": \"m\""));
    ck_assert_ptr_nonnull(strstr(res.transcript, "-> {\"jsonrpc\":\"2.0\""));
    ck_assert_ptr_nonnull(strstr(res.transcript, "<- {\"jsonrpc\":\"2.0\""));
}
END_TEST

START_TEST(responses_matched_by_id_whatever_the_order)
{
    run(NULL, "[{\"send_json\":{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"late\"}},"
              "{\"send\":{\"method\":\"now\"},\"expect\":{\"result\":{\"echo\":\"now\"}}},"
              "{\"expect\":{\"id\":\"a\",\"result\":{\"echo\":\"late\"}}}]");
    ASSERT_PASS();
}
END_TEST

START_TEST(notifications_wait_in_the_queue)
{
    run(NULL, "[{\"send\":{\"method\":\"notify_first\"},\"expect\":{\"result\":{}}},"
              "{\"expect_notification\":{\"method\":\"event\",\"params\":{\"n\":1}},"
              "\"capture\":{\"n\":\"params.n\"}},"
              "{\"assert\":{\"value\":\"${n}\",\"matches\":1}}]");
    ASSERT_PASS();
}
END_TEST

START_TEST(timeout_names_what_arrived)
{
    run(NULL, "[{\"send\":{\"method\":\"silent\"},\"timeout_ms\":30}]");
    ck_assert_int_eq(res.status, CONF_FAIL);
    ck_assert_str_eq(res.message, "step 1 (send silent): response: nothing within 30 ms "
                                  "(nothing arrived)");
}
END_TEST

START_TEST(silence_catches_answered_notifications)
{
    run(NULL, "[{\"send\":{\"method\":\"chatty\"},\"notification\":true},"
              "{\"send\":{\"method\":\"m\"},\"expect\":{\"result\":{}}},"
              "{\"expect_silence\":{\"ms\":0}}]");
    ck_assert_int_eq(res.status, CONF_FAIL);
    ck_assert_str_eq(res.message,
                     "step 3 (expect_silence): expected silence, but a message had "
                     "already arrived: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}");
    run(NULL, "[{\"send\":{\"method\":\"quiet\"},\"notification\":true},"
              "{\"send\":{\"method\":\"m\"},\"expect\":{\"result\":{}}},"
              "{\"expect_silence\":{\"ms\":10}}]");
    ASSERT_PASS();
}
END_TEST

START_TEST(envelope_checked_on_every_response)
{
    run(NULL, "[{\"send\":{\"method\":\"fail\"}}]");
    ASSERT_PASS(); /* an error response is a valid response */
    run(NULL, "[{\"send\":{\"method\":\"fail\"},\"expect\":{\"result\":{}}}]");
    ASSERT_FAIL_WITH("step 1 (send fail): at $.result: expected {}, got nothing (missing)");
}
END_TEST

START_TEST(loops_label_their_steps)
{
    run(NULL, "[{\"repeat\":{\"count\":3,\"as\":\"i\",\"steps\":[{\"send\":{\"method\":\"m\","
              "\"params\":{\"i\":\"${i}\"}},\"expect\":{\"result\":{\"params\":{\"i\":"
              "{\"$match\":\"range\",\"max\":1}}}}}]}}]");
    ck_assert_int_eq(res.status, CONF_FAIL);
    ck_assert_str_eq(res.message, "step 1[2].1 (send m): at $.result.params.i: expected a number "
                                  "in [-inf, 1], got 2");
    run(NULL, "[{\"for_each\":{\"in\":\"pins\",\"as\":\"p\",\"where\":{\"type\":\"adc_input\"},"
              "\"steps\":[{\"set\":{\"seen\":\"${p.name}\"}}]}},"
              "{\"assert\":{\"value\":\"${seen}\",\"matches\":\"sensor\"}}]");
    ASSERT_PASS();
    run(NULL, "[{\"for_each\":{\"in\":\"device\",\"as\":\"p\",\"steps\":[{\"set\":{\"a\":1}}]}}]");
    ASSERT_FAIL_WITH("step 1 (for_each): for_each: \"device\" is string, not a list or an object");
}
END_TEST

START_TEST(unknown_variables_fail_the_step)
{
    run(NULL, "[{\"send\":{\"method\":\"m\",\"params\":{\"x\":\"${nope.pin}\"}}}]");
    ASSERT_FAIL_WITH("step 1 (send m): unknown variable \"nope.pin\"");
}
END_TEST

START_TEST(requirements_skip_with_reasons)
{
    run("{\"tools\":[\"read_temperature\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_int_eq(res.status, CONF_SKIP);
    ck_assert_str_eq(res.message, "needs tool read_temperature (the device does not list it)");
    run("{\"pins\":[\"digital_input\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs a digital_input pin (the device has none)");
    run("{\"control\":true}", "[{\"control\":{\"method\":\"sim.reset\"}}]");
    ck_assert_str_eq(res.message, "needs the control channel (a sim target, or --control "
                                  "tcp:HOST:PORT)");
    run("{\"protocol\":\"mcp\"}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs protocol mcp (the device speaks mcpu)");
    run("{\"transport\":[\"http\",\"ws\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs transport [\"http\",\"ws\"] (the target is tcp)");
    run("{\"vars\":[\"bench.wires[0]\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs bench.wires[0] (not found on this device)");
    run("{\"capabilities\":[\"batch\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs capability batch (list_tools declares it false)");
    run("{\"capabilities\":[\"sampling\",\"events\"]}", "[{\"wait\":{\"ms\":0}}]");
    ck_assert_str_eq(res.message, "needs capability events (list_tools does not declare it)");
    run("{\"capabilities\":[\"sampling\"]}", "[{\"wait\":{\"ms\":0}}]");
    ASSERT_PASS();
    target.stream = false;
    run(NULL, "[{\"send_raw\":\"x\\n\"}]");
    ck_assert_str_eq(res.message, "sends raw bytes: needs a byte-stream transport (the target is "
                                  "tcp)");
    target.stream = true;
    run("{\"tools\":[\"gpio_write\"],\"pins\":[\"adc_input\"],\"transport\":\"stream\"}",
        "[{\"send_raw\":\"garbage\\n\",\"expect\":{\"error\":{\"code\":-32700}}}]");
    ASSERT_PASS();
}
END_TEST

START_TEST(wait_sleeps_without_control)
{
    int64_t t0 = conf_now_ms();
    run(NULL, "[{\"wait\":{\"ms\":40}}]");
    ASSERT_PASS();
    ck_assert_int_ge(conf_now_ms() - t0, 38);
}
END_TEST

START_TEST(generated_checks_pass_on_a_good_device)
{
    conf_generate(&ctx, &lib);
    ck_assert_uint_ge(lib.count, 10);
    for (size_t i = 0; i < lib.count; i++) {
        conf_result_free(&res);
        conf_run_scenario(&ctx, lib.items[i], &res);
        if (strstr(lib.items[i]->name, "missing-required") ||
            strstr(lib.items[i]->name, "wrong-type") ||
            strstr(lib.items[i]->name, "unknown-method"))
            continue; /* the fake device does not validate parameters */
        ck_assert_msg(res.status == CONF_PASS, "%s: %s", lib.items[i]->name, res.message);
    }
}
END_TEST

static Suite *runner_suite(void)
{
    Suite *s = suite_create("runner");
    TCase *tc = tcase_create("runner");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, discovery_variables);
    tcase_add_test(tc, send_expect_capture);
    tcase_add_test(tc, mismatch_is_reported_with_diff_and_transcript);
    tcase_add_test(tc, responses_matched_by_id_whatever_the_order);
    tcase_add_test(tc, notifications_wait_in_the_queue);
    tcase_add_test(tc, timeout_names_what_arrived);
    tcase_add_test(tc, silence_catches_answered_notifications);
    tcase_add_test(tc, envelope_checked_on_every_response);
    tcase_add_test(tc, loops_label_their_steps);
    tcase_add_test(tc, unknown_variables_fail_the_step);
    tcase_add_test(tc, requirements_skip_with_reasons);
    tcase_add_test(tc, wait_sleeps_without_control);
    tcase_add_test(tc, generated_checks_pass_on_a_good_device);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(runner_suite)
