/* fuzz_common.c: what the fuzz harnesses share: failure report, the device rig, reply checks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "at24c.h"
#include "fuzz.h"
#include "fuzz_numbers.h"
#include "fw_builtins.h"
#include "tmp102.h"

const char *fuzz_input_name;

_Noreturn void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("fuzz: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (fuzz_input_name != NULL) fprintf(stderr, " [%s]", fuzz_input_name);
    fputc('\n', stderr);
    abort();
}

char *fuzz_exact_copy(const uint8_t *data, size_t size)
{
    char *p = malloc(size > 0 ? size : 1);
    FUZZ_CHECK(p != NULL, "out of memory");
    if (size > 0) memcpy(p, data, size);
    return p;
}

void fuzz_buf_write(void *ctx, const char *data, size_t len)
{
    fuzz_buf_t *b = ctx;
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1) cap *= 2;
        b->data = realloc(b->data, cap);
        FUZZ_CHECK(b->data != NULL, "out of memory");
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = 0;
}

void fuzz_buf_free(fuzz_buf_t *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

#if FUZZ_DEVICE

/* ---------------------------------------------------------------- the board */

#define PIN_LED 2
#define PIN_BUTTON 4
#define PIN_SENSOR 34
#define PIN_VBAT 35
#define PIN_DOOR 19
#define PIN_FAN 18

static const fw_pin_def_t fuzz_pins[] = {
    {.number = PIN_LED, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "LED"},
    {.number = PIN_BUTTON,
     .type = FW_PIN_DIGITAL_INPUT,
     .name = "button",
     .description = "Button",
     .sample_interval_ms = 50,
     .buffer_size = 8,
     .summary = true,
     .buffer = true,
     .events = true},
    {.number = PIN_SENSOR,
     .type = FW_PIN_ADC_INPUT,
     .name = "sensor",
     .description = "Sensor",
     .sample_interval_ms = 100,
     .buffer_size = 16,
     .summary = true,
     .buffer = true,
     .events = true,
     .threshold_high = 3000,
     .threshold_low = 1000},
    {.number = PIN_VBAT, .type = FW_PIN_ADC_INPUT, .name = "vbat", .description = "Battery"},
    {.number = PIN_DOOR, .type = FW_PIN_DIGITAL_INPUT, .name = "door"},
    {.number = PIN_FAN, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Fan"},
};

static const fw_at24c_config_t fuzz_24c32 = {.size_bytes = 4096, .page_bytes = 32};
static const fw_chip_t fuzz_chips[] = {
    {.driver = &fw_driver_tmp102, .bus = 0, .addr = 0x48},
    {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &fuzz_24c32},
};

static const fw_tool_t *const fuzz_apps[] = {&fw_app_read_touch, &fw_app_calibrate_touch, NULL};

/* Every rig gets its own copy of the board with its own sample store (fuzz_rig_init). */
#define FUZZ_BOARD_COMMON                                                                          \
    .device = FUZZ_BOARD_DEVICE, .version = "1.2.3", .platform = "fuzz", .pins = fuzz_pins,        \
    .pin_count = sizeof fuzz_pins / sizeof fuzz_pins[0], .adc_bits = 12, .adc_ref_mv = 3300,       \
    .i2c_bus_count = 2, .chips = fuzz_chips,                                                       \
    .chip_count = sizeof fuzz_chips / sizeof fuzz_chips[0], .toolsets = fw_builtins_i2c,           \
    .app_tools = fuzz_apps

static const fw_board_t fuzz_board = {FUZZ_BOARD_COMMON, .adc_report = FW_ADC_REPORT_VOLTS};
static const fw_board_t fuzz_board_alt = {FUZZ_BOARD_COMMON, .adc_report = FW_ADC_REPORT_MV,
                                          .omit_schemas = true};

/* ---------------------------------------------------------------- the HAL */

static const fw_err_t fail_kinds[] = {FW_ERR_HW,          FW_ERR_I2C_NACK,   FW_ERR_I2C_BUS,
                                      FW_ERR_I2C_TIMEOUT, FW_ERR_ADC,        FW_ERR_TIMEOUT,
                                      FW_ERR_UNSUPPORTED, FW_ERR_DEVICE_DATA};

/* FW_OK, or the error this hardware call fails with in failing mode. */
static fw_err_t injected(fuzz_rig_t *rig)
{
    if (!rig->failing) return FW_OK;
    unsigned k = rig->hal_calls++;
    if (!((rig->fail_pattern >> (k % 64u)) & 1u)) return FW_OK;
    return fail_kinds[(k / 64u + k) % (sizeof fail_kinds / sizeof fail_kinds[0])];
}

static uint64_t rig_now(void *ctx)
{
    return mock_hal_api.now_ms(&((fuzz_rig_t *)ctx)->mock);
}

static fw_err_t rig_gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.gpio_mode(&((fuzz_rig_t *)ctx)->mock, pin, mode);
}

static fw_err_t rig_gpio_write(void *ctx, uint16_t pin, bool level)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.gpio_write(&((fuzz_rig_t *)ctx)->mock, pin, level);
}

static fw_err_t rig_gpio_read(void *ctx, uint16_t pin, bool *level)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.gpio_read(&((fuzz_rig_t *)ctx)->mock, pin, level);
}

static fw_err_t rig_pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.pwm_write(&((fuzz_rig_t *)ctx)->mock, pin, duty, freq_hz);
}

static fw_err_t rig_adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.adc_read(&((fuzz_rig_t *)ctx)->mock, pin, raw);
}

static fw_err_t rig_i2c(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
                        uint8_t *rx, size_t rx_len)
{
    fw_err_t err = injected(ctx);
    return err ? err
               : mock_hal_api.i2c_transfer(&((fuzz_rig_t *)ctx)->mock, bus, addr, tx, tx_len, rx,
                                           rx_len);
}

static fw_err_t rig_device_info(void *ctx, hal_device_info_t *info)
{
    fw_err_t err = injected(ctx);
    return err ? err : mock_hal_api.device_info(&((fuzz_rig_t *)ctx)->mock, info);
}

static void rig_reset(void *ctx)
{
    mock_hal_api.reset(&((fuzz_rig_t *)ctx)->mock);
}

static const hal_api_t rig_api = {
    .now_ms = rig_now,
    .gpio_mode = rig_gpio_mode,
    .gpio_write = rig_gpio_write,
    .gpio_read = rig_gpio_read,
    .pwm_write = rig_pwm_write,
    .adc_read = rig_adc_read,
    .i2c_transfer = rig_i2c,
    .device_info = rig_device_info,
    .reset = rig_reset,
};

/* ---------------------------------------------------------------- the rig */

void fuzz_rig_advance(fuzz_rig_t *rig, uint64_t ms)
{
    /* A slow triangle on the sensor (crossing both thresholds) and a button toggling. */
    static const uint16_t wave[] = {500, 1500, 2500, 3500, 4000, 2000, 900, 300};
    for (uint64_t step = 0; step < ms; step += 50) {
        rig->mock.now += 50;
        unsigned phase = (unsigned)(rig->mock.now / 150u) % 8u;
        rig->mock.pins[PIN_SENSOR].adc = wave[phase];
        rig->mock.pins[PIN_VBAT].adc = (uint16_t)(3000 + phase);
        rig->mock.pins[PIN_BUTTON].level = (rig->mock.now / 200u) % 2u == 1u;
        rig->mock.pins[PIN_DOOR].level = phase > 3;
        fw_device_poll(&rig->dev);
    }
}

void fuzz_rig_init(fuzz_rig_t *rig, bool alt)
{
    mock_hal_init(&rig->mock);
    rig->failing = false;
    rig->fail_pattern = 0;
    rig->hal_calls = 0;
    rig->mock.now = 1000;
    mock_i2c_dev_t *tmp = mock_hal_add_i2c(&rig->mock, 0, 0x48, 1, 4, 0);
    mock_i2c_dev_t *rom = mock_hal_add_i2c(&rig->mock, 0, 0x50, 2, 4096, 32);
    FUZZ_CHECK(tmp != NULL && rom != NULL, "mock I2C devices");
    tmp->mem[0] = 0x19; /* 25 °C; configuration 0x60A0 (12-bit mode) */
    tmp->mem[1] = 0x00;
    tmp->mem[2] = 0xA0;
    for (size_t i = 0; i < MOCK_I2C_MEM; i++) rom->mem[i] = (uint8_t)(i * 7u);
    rig->mock.pins[4].adc = 70; /* the touch pad, untouched */
    rig->board = alt ? fuzz_board_alt : fuzz_board;
    rig->board.sample_store = rig->samples;
    rig->board.sample_store_len = FUZZ_SAMPLE_SLOTS;
    FUZZ_CHECK(fw_board_sample_slots(&rig->board) == FUZZ_SAMPLE_SLOTS, "FUZZ_SAMPLE_SLOTS");
    fw_err_t err = fw_device_init(&rig->dev, &rig->board, &rig_api, rig);
    FUZZ_CHECK(err == FW_OK, "fw_device_init of the fuzz board failed: %d", (int)err);
    fw_framer_init(&rig->framer);
    fuzz_rig_advance(rig, 1000);
}

/* Snapshots of fuzz_rig_init's result, per rig and variant (the rigs are static objects, so a
   handful is enough). */
#define FUZZ_RIG_SNAPSHOTS 4

typedef struct rig_snapshot {
    const fuzz_rig_t *rig;
    bool alt;
    fuzz_rig_t state;
} rig_snapshot_t;

void fuzz_rig_reset(fuzz_rig_t *rig, bool alt)
{
    static rig_snapshot_t snaps[FUZZ_RIG_SNAPSHOTS]; /* fuzz_rig_t is large: not on the stack */
    static size_t count;
    for (size_t i = 0; i < count; i++) {
        if (snaps[i].rig == rig && snaps[i].alt == alt) {
            memcpy(rig, &snaps[i].state, sizeof *rig);
            return;
        }
    }
    FUZZ_CHECK(count < FUZZ_RIG_SNAPSHOTS, "more than %d rig snapshots", FUZZ_RIG_SNAPSHOTS);
    fuzz_rig_init(rig, alt);
    snaps[count].rig = rig;
    snaps[count].alt = alt;
    memcpy(&snaps[count].state, rig, sizeof *rig);
    count++;
}

/* ---------------------------------------------------------------- reply checks */

/* The codes a device sends: JSON-RPC's own, MCP's resource-not-found and the hardware range
   (never a transport's codes, which only the hosts in sim/host send). */
static bool valid_code(json_int_t code)
{
    return code == FW_RPC_PARSE_ERROR || code == FW_RPC_INVALID_REQUEST ||
           code == FW_RPC_METHOD_NOT_FOUND || code == FW_RPC_INVALID_PARAMS ||
           code == FW_RPC_INTERNAL_ERROR || code == FW_RPC_RESOURCE_NOT_FOUND ||
           (code >= FW_RPC_HW_FIRST && code <= FW_RPC_HW_LAST);
}

static void check_error(const json_t *error, const char *what)
{
    FUZZ_CHECK(json_is_object(error), "%s: error is not an object", what);
    const json_t *code = json_object_get(error, "code");
    const json_t *message = json_object_get(error, "message");
    size_t n = 2 + (json_object_get(error, "data") != NULL);
    FUZZ_CHECK(json_is_integer(code) && valid_code(json_integer_value(code)),
               "%s: error.code is not a JSON-RPC error code", what);
    FUZZ_CHECK(json_is_string(message) && json_string_length(message) > 0,
               "%s: error.message is not a non-empty string", what);
    FUZZ_CHECK(json_object_size(error) == n, "%s: error has unexpected members", what);
}

static void check_response(const json_t *r, const char *what)
{
    FUZZ_CHECK(json_is_object(r), "%s: a response is not an object", what);
    const json_t *version = json_object_get(r, "jsonrpc");
    const json_t *id = json_object_get(r, "id");
    const json_t *result = json_object_get(r, "result");
    const json_t *error = json_object_get(r, "error");
    FUZZ_CHECK(json_is_string(version) && strcmp(json_string_value(version), "2.0") == 0,
               "%s: jsonrpc is not \"2.0\"", what);
    FUZZ_CHECK(id != NULL && (json_is_string(id) || json_is_number(id) || json_is_null(id)),
               "%s: id missing or not a string, number or null", what);
    FUZZ_CHECK((result != NULL) != (error != NULL), "%s: not exactly one of result and error",
               what);
    FUZZ_CHECK(json_object_size(r) == 3, "%s: the response has unexpected members", what);
    if (result != NULL) {
        FUZZ_CHECK(json_is_object(result), "%s: result is not an object", what);
    } else {
        check_error(error, what);
    }
}

static json_t *load_message(const char *text, size_t len, const char *what)
{
    const size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;
    json_error_t err;
    json_t *msg = fuzz_json_loadb(text, len, flags, &err); /* numbers jansson cannot hold */
    if (msg == NULL) {
        fuzz_fail("%s: not valid JSON (%s at byte %d): %.*s", what, err.text, err.position,
                  (int)(len > 400 ? 400 : len), text);
    }
    return msg;
}

static void check_reply_shape(const json_t *reply, const char *what)
{
    if (json_is_array(reply)) {
        size_t n = json_array_size(reply);
        FUZZ_CHECK(n >= 1 && n <= FW_BATCH_MAX, "%s: batch reply with %zu responses", what, n);
        for (size_t i = 0; i < n; i++) check_response(json_array_get(reply, i), what);
    } else {
        check_response(reply, what);
    }
}

json_t *fuzz_check_reply(const char *text, size_t len, const char *what)
{
    json_t *reply = load_message(text, len, what);
    check_reply_shape(reply, what);
    return reply;
}

bool fuzz_is_notification(const json_t *msg)
{
    return json_is_object(msg) && json_object_get(msg, "method") != NULL;
}

/* A notification of the device: jsonrpc "2.0", a method "notifications/...", params an object
   (or absent), nothing else. */
static void check_notification(const json_t *n, const char *what)
{
    const json_t *version = json_object_get(n, "jsonrpc");
    const json_t *method = json_object_get(n, "method");
    const json_t *params = json_object_get(n, "params");
    FUZZ_CHECK(json_is_string(version) && strcmp(json_string_value(version), "2.0") == 0,
               "%s: a notification's jsonrpc is not \"2.0\"", what);
    FUZZ_CHECK(json_is_string(method) &&
                   strncmp(json_string_value(method), "notifications/", 14) == 0,
               "%s: a notification's method is not notifications/...", what);
    FUZZ_CHECK(params == NULL || json_is_object(params), "%s: a notification's params", what);
    FUZZ_CHECK(json_object_size(n) == 2u + (params != NULL),
               "%s: a notification has unexpected members", what);
}

json_t *fuzz_check_message(const char *text, size_t len, const char *what)
{
    json_t *msg = load_message(text, len, what);
    if (fuzz_is_notification(msg)) {
        check_notification(msg, what);
    } else {
        check_reply_shape(msg, what);
    }
    return msg;
}

#endif /* FUZZ_DEVICE */
