/* test_mcp_util.h: shared helpers of the MCP tests: a message capture split at each end(),
   a test board, and JSON access through jansson. */
#ifndef TEST_MCP_UTIL_H
#define TEST_MCP_UTIL_H

#include <jansson.h>
#include <stdio.h>

#include "at24c.h"
#include "fw_builtins.h"
#include "fw_device.h"
#include "mock_hal.h"
#include "test_util.h"

/* ---------------------------------------------------------------- message capture */

/* Everything written to a fw_msg_sink_t, with the offset where each message ended. */
typedef struct mcap {
    char buf[1 << 17];
    size_t len;
    size_t ends[256];
    unsigned count;
} mcap_t;

static inline void mcap_write(void *ctx, const char *data, size_t len)
{
    mcap_t *m = ctx;
    ck_assert_uint_le(m->len + len, sizeof m->buf - 1);
    memcpy(m->buf + m->len, data, len);
    m->len += len;
    m->buf[m->len] = 0;
}

static inline void mcap_end(void *ctx)
{
    mcap_t *m = ctx;
    ck_assert_uint_lt(m->count, sizeof m->ends / sizeof m->ends[0]);
    ck_assert_msg(m->count == 0 || m->ends[m->count - 1] < m->len, "an empty message was ended");
    m->ends[m->count++] = m->len;
}

static inline fw_msg_sink_t mcap_sink(mcap_t *m)
{
    fw_msg_sink_t s = {mcap_write, m, mcap_end, NULL};
    return s;
}

static inline void mcap_reset(mcap_t *m)
{
    m->len = 0;
    m->buf[0] = 0;
    m->count = 0;
}

/* Message k (0 = first) parsed; every byte written must belong to an ended message. */
static inline json_t *mcap_json(const mcap_t *m, unsigned k)
{
    ck_assert_msg(k < m->count, "message %u of %u wanted: %s", k, m->count, m->buf);
    ck_assert_msg(m->ends[m->count - 1] == m->len, "bytes after the last end(): %s", m->buf);
    size_t start = k == 0 ? 0 : m->ends[k - 1];
    json_error_t e;
    json_t *j = json_loadb(m->buf + start, m->ends[k] - start, 0, &e);
    ck_assert_msg(j != NULL, "message %u is not JSON (%s): %.*s", k, e.text,
                  (int)(m->ends[k] - start), m->buf + start);
    return j;
}

/* The raw text of message k. */
static inline const char *mcap_text(const mcap_t *m, unsigned k, size_t *len)
{
    size_t start = k == 0 ? 0 : m->ends[k - 1];
    *len = m->ends[k] - start;
    return m->buf + start;
}

/* ---------------------------------------------------------------- JSON access */

/* The value at a path of object keys separated by '.', array indices as numbers ("a.0.b"). */
static inline json_t *jpath(json_t *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *part = strtok(buf, "."); part != NULL && j != NULL; part = strtok(NULL, ".")) {
        if (json_is_array(j)) {
            j = json_array_get(j, (size_t)strtoul(part, NULL, 10));
        } else {
            j = json_object_get(j, part);
        }
    }
    return j;
}

static inline const char *jstr(json_t *j, const char *path)
{
    json_t *v = jpath(j, path);
    ck_assert_msg(json_is_string(v), "%s is not a string", path);
    return json_string_value(v);
}

static inline json_int_t jint(json_t *j, const char *path)
{
    json_t *v = jpath(j, path);
    ck_assert_msg(json_is_integer(v), "%s is not an integer", path);
    return json_integer_value(v);
}

static inline json_t *jparse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "not JSON (%s): %s", e.text, text);
    return j;
}

#if FW_WITH_MCP
/* ---------------------------------------------------------------- a test board */

/* led: digital output 2; button: digital input 4 (sampled, edges); sensor: ADC 34 (sampled,
   thresholds 3000/1000); fan: PWM 5; one I2C bus with an at24c (24C32) at 0x50. */
static const fw_pin_def_t mcp_test_pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "Status LED"},
    {.number = 4,
     .type = FW_PIN_DIGITAL_INPUT,
     .name = "button",
     .description = "Push button",
     .sample_interval_ms = 10,
     .summary = true,
     .events = true},
    {.number = 34,
     .type = FW_PIN_ADC_INPUT,
     .name = "sensor",
     .description = "Light sensor",
     .sample_interval_ms = 100,
     .buffer_size = 8,
     .summary = true,
     .buffer = true,
     .events = true,
     .threshold_high = 3000,
     .threshold_low = 1000},
    {.number = 5, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Fan"},
};

static const fw_at24c_config_t mcp_test_eeprom = {.size_bytes = 4096, .page_bytes = 32};
static const fw_chip_t mcp_test_chips[] = {
    {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &mcp_test_eeprom},
};
static fw_sample_slot_t mcp_test_store[8]; /* the sensor's ring */

static const fw_board_t mcp_test_board = {
    .device = "mcp-test",
    .version = "2.3.4",
    .platform = "mock",
    .pins = mcp_test_pins,
    .pin_count = sizeof mcp_test_pins / sizeof mcp_test_pins[0],
    .adc_bits = 12,
    .adc_ref_mv = 3300,
    .i2c_bus_count = 1,
    .chips = mcp_test_chips,
    .chip_count = 1,
    .toolsets = fw_builtins_i2c,
    .sample_store = mcp_test_store,
    .sample_store_len = 8,
};

#endif

/* ---------------------------------------------------------------- the session fixture */

/* The one device of an MCP test program (each test_*.c is its own program), the messages of
   the last exchange, and the parsed replies, freed at teardown. */
static fw_device_t dev;
static mock_hal_t hal;
static mcap_t out;
static fw_session_t sess; /* the session request() speaks in */
static bool answered;     /* what the last send_in() returned */
static json_t *owned[128];
static unsigned owned_count;
static unsigned one_reply; /* set to 1: request() checks that exactly one message came back */

static inline json_t *own(json_t *j)
{
    ck_assert_uint_lt(owned_count, sizeof owned / sizeof owned[0]);
    owned[owned_count++] = j;
    return j;
}

#if FW_WITH_MCP
/* Starts the device on mcp_test_board; with_eeprom: its at24c answers (returned), else NULL. */
static inline mock_i2c_dev_t *mcp_setup(bool with_eeprom)
{
    mock_hal_init(&hal);
    mock_i2c_dev_t *eeprom = with_eeprom ? mock_hal_add_i2c(&hal, 0, 0x50, 2, 4096, 32) : NULL;
    ck_assert_int_eq(fw_device_init(&dev, &mcp_test_board, &mock_hal_api, &hal), FW_OK);
    mcap_reset(&out);
    owned_count = 0;
    one_reply = 0;
    return eeprom;
}

#endif

static inline void mcp_teardown(void)
{
    for (unsigned i = 0; i < owned_count; i++) json_decref(owned[i]);
    owned_count = 0;
}

/* Sends msg in session s; the messages written are in out. */
static inline void send_in(fw_session_t *s, const char *msg)
{
    mcap_reset(&out);
    answered = fw_device_handle_session(&dev, s, msg, strlen(msg), mcap_sink(&out));
}

/* Message k of the last exchange, parsed. */
static inline json_t *msg_at(unsigned k)
{
    return own(mcap_json(&out, k));
}

/* A request with id 1 in session s (params: JSON text or NULL); returns the response, the last
   message. */
static inline json_t *request_in(fw_session_t *s, const char *method, const char *params)
{
    char msg[4096];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"%s%s}", method,
             params ? ",\"params\":" : "", params ? params : "");
    send_in(s, msg);
    ck_assert_msg(answered, "no response to %s", msg);
    if (one_reply) ck_assert_uint_eq(out.count, 1);
    return msg_at(out.count - 1);
}

static inline json_t *request(const char *method, const char *params)
{
    return request_in(&sess, method, params);
}

/* The result of a response, which must be a success. */
static inline json_t *result_in(json_t *r, const char *method)
{
    json_t *result = json_object_get(r, "result");
    ck_assert_msg(json_is_object(result), "%s failed: %s", method, out.buf);
    return result;
}

static inline json_t *result_of(const char *method, const char *params)
{
    return result_in(request(method, params), method);
}

/* The error of a failing request, with its code checked. */
static inline json_t *error_of(const char *method, const char *params, int code)
{
    json_t *err = json_object_get(request(method, params), "error");
    ck_assert_msg(json_is_object(err), "%s did not fail: %s", method, out.buf);
    ck_assert_int_eq(jint(err, "code"), code);
    return err;
}

#endif
