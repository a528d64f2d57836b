/* test_harness.h: the JSON-RPC fixture shared by the tool tests: one device on the mock HAL,
   requests written with single quotes, the last parsed reply freed at teardown. */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <jansson.h>
#include <stdio.h>

#include "fw_device.h"
#include "fw_driver.h"
#include "fw_sampling.h"
#include "mock_hal.h"
#include "test_boards.h"
#include "test_util.h"

/* The one device of a test program (each test_*.c is its own program). */
static mock_hal_t mock;
static fw_device_t dev;
static cap_t out;
static json_t *reply; /* the last reply, freed by the next call or by harness_teardown */

/* Pins several tests share: an ESP32-like ADC sensor with events, a buffered button (without
   their sampling in a build that has none). */
#if FW_WITH_SAMPLING
#define TEST_PIN_SENSOR                                                                            \
    {                                                                                              \
        .number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .sample_interval_ms = 500,       \
        .buffer_size = 20, .summary = true, .buffer = true, .events = true,                        \
        .threshold_high = 3000, .threshold_low = 1000                                              \
    }
#define TEST_PIN_BUTTON                                                                            \
    {                                                                                              \
        .number = 4, .type = FW_PIN_DIGITAL_INPUT, .name = "button", .sample_interval_ms = 100,    \
        .buffer_size = 8, .summary = true, .buffer = true, .events = true                          \
    }
#else
#define TEST_PIN_SENSOR                                                                            \
    {                                                                                              \
        .number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor"                                   \
    }
#define TEST_PIN_BUTTON                                                                            \
    {                                                                                              \
        .number = 4, .type = FW_PIN_DIGITAL_INPUT, .name = "button"                                \
    }
#endif

static inline void harness_reset(void)
{
    mock_hal_init(&mock);
    reply = NULL;
}

static inline void harness_start(const fw_board_t *b, const hal_api_t *api)
{
    ck_assert_int_eq(fw_device_init(&dev, b, api, &mock), FW_OK);
}

static inline void harness_teardown(void)
{
    json_decref(reply);
    reply = NULL;
}

/* Parses what out holds as the new reply. */
static inline json_t *harness_parse(void)
{
    json_decref(reply);
    json_error_t jerr;
    reply = json_loads(out.buf, 0, &jerr);
    ck_assert_msg(reply != NULL, "reply is not JSON: %s", out.buf);
    return reply;
}

/* Sends one message that must be answered; returns the parsed reply. */
static inline json_t *rpc_send(const char *req, size_t len)
{
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, req, len, cap_sink(&out)));
    return harness_parse();
}

/* Sends {"jsonrpc":"2.0","id":1,"method":method,"params":params}; params is written with
   single quotes for readability (NULL: no params). Returns the parsed reply. */
static inline json_t *rpc(const char *method, const char *params)
{
    char req[512];
    int n = snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"%s%s}",
                     method, params ? ",\"params\":" : "", params ? params : "");
    ck_assert_int_lt(n, (int)sizeof req);
    for (char *p = req; *p; p++)
        if (*p == '\'') *p = '"';
    rpc_send(req, (size_t)n);
    ck_assert_int_eq(json_integer_value(json_object_get(reply, "id")), 1);
    return reply;
}

/* The result of a call that must succeed. */
static inline json_t *ok(const char *method, const char *params)
{
    json_t *result = json_object_get(rpc(method, params), "result");
    ck_assert_msg(json_is_object(result), "%s failed: %s", method, out.buf);
    return result;
}

/* The error object of a call that must fail, after checking its code. */
static inline json_t *rpc_error(const char *method, const char *params, int code)
{
    json_t *error = json_object_get(rpc(method, params), "error");
    ck_assert_msg(json_is_object(error), "%s did not fail: %s", method, out.buf);
    ck_assert_int_eq(json_integer_value(json_object_get(error, "code")), code);
    return error;
}

static inline json_int_t int_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_integer(v), "%s is not an integer in %s", key, out.buf);
    return json_integer_value(v);
}

static inline bool bool_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_boolean(v), "%s is not a boolean in %s", key, out.buf);
    return json_is_true(v);
}

static inline const char *str_at(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_string(v), "%s is not a string in %s", key, out.buf);
    return json_string_value(v);
}

#endif
