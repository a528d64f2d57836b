/* mcpd.c: the tool vocabulary of mcpd (seed 002) for an ESP32 board: GPIO, 12-bit ADC, LEDC PWM,
   a servo, a NeoPixel strip, a DHT22, I2C, system_info, and firmware_update as an MCP task. */
#include <string.h>

#include "apps.h"
#include "fw_device.h"
#include "fw_driver.h"
#include "fw_task.h"

#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT

/*
 * The hardware, as a product's board header would name it: the strip and the sensor are found
 * by their registry names. LEDC: 16 channels clocked at 80 MHz, so frequency * 2^resolution
 * must not exceed 80 MHz. The servo runs at 50 Hz with 16-bit duty, on LEDC channel 8 (mcpd's
 * ServoTool default base channel).
 */
#define STRIP_PIN "neopixel"
#define DHT_PIN "dht"
#define LEDC_CHANNELS 16
#define LEDC_CLOCK_HZ 80000000ull
#define SERVO_HZ 50u
#define SERVO_BITS 16u
#define SERVO_PERIOD_US 20000u

/* ---------------------------------------------------------------- helpers */

/* The registry index of the pin named name, or -1 when the board has none. */
static int pin_named(const fw_device_t *dev, const char *name)
{
    const fw_board_t *b = fw_device_board(dev);
    for (size_t i = 0; i < b->pin_count; i++) {
        const char *p = b->pins[i].name, *q = name;
        while (*p && *p == *q) p++, q++;
        if (*p == 0 && *q == 0) return (int)i;
    }
    return -1;
}

static fw_err_t need_pin(fw_call_t *call, const char *name, uint16_t *number)
{
    int i = pin_named(call->dev, name);
    if (i < 0)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "this board has no pin named %s", name);
    *number = fw_device_board(call->dev)->pins[i].number;
    return FW_OK;
}

static fw_err_t pin_failed(fw_call_t *call, const fw_arg_t *pin, fw_err_t err)
{
    return fw_call_errorf(call, err, "%s on pin %u failed: %s", call->tool->name, (unsigned)pin->i,
                          fw_err_str(err));
}

static fw_int_t arg_i(const fw_call_t *call, const char *name)
{
    return (fw_call_arg)(call, name)->i;
}

/* ---------------------------------------------------------------- GPIO */

static const char *const mode_names[] = {"INPUT", "INPUT_PULLUP", "INPUT_PULLDOWN", "OUTPUT", NULL};

static fw_err_t pin_mode_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    const char *mode = fw_call_arg(call, "mode")->str;
    unsigned m = 0;
    while (mode_names[m] != NULL && strcmp(mode_names[m], mode) != 0) m++;
    fw_err_t err = fw_hal_gpio_mode(call->dev, pin->pin->number, (hal_pin_mode_t)m);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_device_pin_note_mode(call->dev, pin->pin_index, (hal_pin_mode_t)m);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_str(w, "mode", mode_names[m]);
    return FW_OK;
}

static fw_err_t digital_write_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    bool level = arg_i(call, "value") != 0;
    fw_err_t err = fw_hal_gpio_write(call->dev, pin->pin->number, level);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_device_pin_note_level(call->dev, pin->pin_index, level);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "value", level);
    return FW_OK;
}

static fw_err_t digital_read_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    bool level = false;
    fw_err_t err = fw_hal_gpio_read(call->dev, pin->pin->number, &level);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_device_pin_note_level(call->dev, pin->pin_index, level);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "value", level);
    return FW_OK;
}

static fw_err_t analog_read_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    uint16_t raw = 0;
    fw_err_t err = fw_hal_adc_read(call->dev, pin->pin->number, &raw);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "value", raw);
    fw_jw_kv_i64(w, "millivolts", fw_adc_to_mv(fw_device_board(call->dev), raw));
    return FW_OK;
}

/* ---------------------------------------------------------------- PWM and servo */

static fw_err_t pwm_write_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    fw_int_t duty = arg_i(call, "duty"), freq = arg_i(call, "frequency");
    fw_int_t bits = arg_i(call, "resolution"), channel = arg_i(call, "channel");
    if ((uint64_t)freq << bits > LEDC_CLOCK_HZ)
        return fw_call_param_error(call, "frequency",
                                   "%u Hz at %u bits exceeds the 80 MHz LEDC clock", (unsigned)freq,
                                   (unsigned)bits);
    if (duty > ((fw_int_t)1 << bits))
        return fw_call_param_error(call, "duty", "must be at most %u at %u bits of resolution",
                                   (unsigned)(1u << bits), (unsigned)bits);
    fw_err_t err = fw_hal_pwm_write_res(call->dev, pin->pin->number, (uint32_t)duty, (uint8_t)bits,
                                        (uint32_t)freq);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_device_pin_note_duty(call->dev, pin->pin_index,
                            (uint8_t)((duty * 255 + ((fw_int_t)1 << (bits - 1))) >> bits));
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "channel", channel);
    fw_jw_kv_i64(w, "duty", duty);
    fw_jw_kv_i64(w, "frequency", freq);
    fw_jw_kv_i64(w, "resolution", bits);
    return FW_OK;
}

/* Stopping a PWM or servo signal leaves the pin driven low. */
static fw_err_t stop_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    fw_err_t err = fw_hal_gpio_write(call->dev, pin->pin->number, false);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_device_pin_note_level(call->dev, pin->pin_index, false);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_bool(w, "stopped", true);
    return FW_OK;
}

static fw_err_t servo_write_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    fw_int_t angle = arg_i(call, "angle"), lo = arg_i(call, "minUs"), hi = arg_i(call, "maxUs");
    if (lo >= hi)
        return fw_call_param_error(call, "maxUs", "must be greater than minUs (%u)", (unsigned)lo);
    uint32_t pulse = (uint32_t)(lo + ((hi - lo) * angle + 90) / 180);
    uint32_t duty = (uint32_t)(((uint64_t)pulse << SERVO_BITS) / SERVO_PERIOD_US);
    fw_err_t err = fw_hal_pwm_write_res(call->dev, pin->pin->number, duty, SERVO_BITS, SERVO_HZ);
    if (err != FW_OK) return pin_failed(call, pin, err);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "angle", angle);
    fw_jw_kv_i64(w, "pulseUs", pulse);
    return FW_OK;
}

/* ---------------------------------------------------------------- NeoPixel strip */

/* One strip operation on the board's strip pin; *count its length. */
static fw_err_t strip_op(fw_call_t *call, hal_strip_op_t op, uint16_t *count)
{
    uint16_t pin;
    fw_err_t err = need_pin(call, STRIP_PIN, &pin);
    if (err != FW_OK) return err;
    err = fw_hal_strip(call->dev, pin, &op, count);
    if (err == FW_ERR_ARG)
        return fw_call_param_error(call, "index", "must be less than the strip's %u pixels",
                                   (unsigned)*count);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "the NeoPixel strip on pin %u: %s", (unsigned)pin,
                              fw_err_str(err));
    return FW_OK;
}

static hal_strip_op_t colour_op(const fw_call_t *call, uint8_t kind)
{
    return (hal_strip_op_t){
        kind, (uint8_t)arg_i(call, "r"), (uint8_t)arg_i(call, "g"), (uint8_t)arg_i(call, "b"), 0,
        0};
}

static fw_err_t strip_show(fw_call_t *call, uint16_t *count)
{
    return strip_op(call, (hal_strip_op_t){HAL_STRIP_SHOW, 0, 0, 0, 0, 0}, count);
}

static void write_rgb(fw_jw_t *w, const hal_strip_op_t *op)
{
    fw_jw_kv_i64(w, "r", op->r);
    fw_jw_kv_i64(w, "g", op->g);
    fw_jw_kv_i64(w, "b", op->b);
}

static fw_err_t neopixel_set_fn(fw_call_t *call)
{
    hal_strip_op_t op = colour_op(call, HAL_STRIP_SET);
    op.index = (uint16_t)arg_i(call, "index");
    bool show = arg_i(call, "show") != 0;
    uint16_t count = 0;
    fw_err_t err = strip_op(call, op, &count);
    if (err == FW_OK && show) err = strip_show(call, &count);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "index", op.index);
    write_rgb(w, &op);
    fw_jw_kv_bool(w, "shown", show);
    return FW_OK;
}

static fw_err_t fill(fw_call_t *call, hal_strip_op_t op)
{
    uint16_t count = 0;
    fw_err_t err = strip_op(call, op, &count);
    if (err == FW_OK) err = strip_show(call, &count);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "count", count);
    write_rgb(w, &op);
    return FW_OK;
}

static fw_err_t neopixel_fill_fn(fw_call_t *call)
{
    return fill(call, colour_op(call, HAL_STRIP_FILL));
}

static fw_err_t neopixel_clear_fn(fw_call_t *call)
{
    return fill(call, (hal_strip_op_t){HAL_STRIP_FILL, 0, 0, 0, 0, 0});
}

static fw_err_t neopixel_brightness_fn(fw_call_t *call)
{
    hal_strip_op_t op = {HAL_STRIP_BRIGHTNESS, 0, 0, 0, (uint8_t)arg_i(call, "brightness"), 0};
    uint16_t count = 0;
    fw_err_t err = strip_op(call, op, &count);
    if (err == FW_OK) err = strip_show(call, &count);
    if (err != FW_OK) return err;
    fw_jw_kv_i64(fw_call_result(call), "brightness", op.level);
    return FW_OK;
}

/* ---------------------------------------------------------------- DHT22 */

/* Humidity in tenths of a percent and temperature in tenths of a degree Celsius from a DHT22
   frame; false when its checksum does not match. */
bool mcpd_dht_decode(const uint8_t f[5], int *humidity_x10, int *temp_x10)
{
    if ((uint8_t)(f[0] + f[1] + f[2] + f[3]) != f[4]) return false;
    *humidity_x10 = (f[0] << 8) | f[1];
    int t = ((f[2] & 0x7f) << 8) | f[3];
    *temp_x10 = (f[2] & 0x80) ? -t : t;
    return true;
}

static fw_err_t dht_read_fn(fw_call_t *call)
{
    uint16_t pin;
    uint8_t f[5];
    int hum, temp;
    fw_err_t err = need_pin(call, DHT_PIN, &pin);
    if (err != FW_OK) return err;
    err = fw_hal_dht_frame(call->dev, pin, f);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "the DHT22 on pin %u did not answer: %s", (unsigned)pin,
                              fw_err_str(err));
    if (!mcpd_dht_decode(f, &hum, &temp))
        return fw_call_errorf(call, FW_ERR_HW, "the DHT22 on pin %u sent a bad checksum",
                              (unsigned)pin);
    bool fahrenheit = arg_i(call, "fahrenheit") != 0;
    double t = temp / 10.0;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "temperature");
    fw_jw_double(w, fahrenheit ? t * 9.0 / 5.0 + 32.0 : t);
    fw_jw_key(w, "humidity");
    fw_jw_double(w, hum / 10.0);
    fw_jw_kv_str(w, "unit", fahrenheit ? "F" : "C");
    return FW_OK;
}

/* ---------------------------------------------------------------- I2C */

/* Probes 0x08..0x77 with a zero-length write: an ACK is a device, a NACK none; any other error
   (a stuck bus) fails the scan. Progress every 16 addresses. */
static fw_err_t i2c_scan_fn(fw_call_t *call)
{
    uint8_t found[112];
    size_t n = 0;
    for (uint8_t a = 0x08; a < 0x78; a++) {
        fw_err_t err = fw_i2c_transfer(call->dev, 0, a, NULL, 0, NULL, 0);
        if (err == FW_OK)
            found[n++] = a;
        else if (err != FW_ERR_I2C_NACK)
            return fw_i2c_call_error(call, err, "i2c device", 0, a);
        if ((a - 0x07u) % 16u == 0) fw_call_progress(call, a - 0x07u, 112u, NULL);
    }
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "devices");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) fw_jw_i64(w, found[i]);
    fw_jw_arr_end(w);
    fw_jw_kv_i64(w, "count", (int64_t)n);
    return FW_OK;
}

static fw_err_t i2c_read_fn(fw_call_t *call)
{
    uint8_t addr = (uint8_t)arg_i(call, "address"), rx[32];
    size_t count = (size_t)arg_i(call, "count");
    fw_err_t err = fw_i2c_call_xfer(call, "i2c device", 0, addr, NULL, 0, rx, count);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "address", addr);
    fw_jw_key(w, "bytes");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < count; i++) fw_jw_i64(w, rx[i]);
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t i2c_write_fn(fw_call_t *call)
{
    uint8_t addr = (uint8_t)arg_i(call, "address");
    const fw_arg_t *bytes = fw_call_arg(call, "bytes");
    fw_err_t err = fw_i2c_call_xfer(call, "i2c device", 0, addr, bytes->bytes, bytes->len, NULL, 0);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "address", addr);
    fw_jw_kv_i64(w, "written", (int64_t)bytes->len);
    return FW_OK;
}

/* ---------------------------------------------------------------- system_info */

/* mcpd's fields. The heap is the chip's RAM less the device instance (the firmware allocates
   nothing else); the simulator has no radio, so ip is "" and rssi 0. */
static fw_err_t system_info_fn(fw_call_t *call)
{
    hal_device_info_t info = {0};
    if (fw_hal_device_info(call->dev, &info) != FW_OK) info = (hal_device_info_t){0};
    uint32_t heap = info.ram_bytes, used = (uint32_t)sizeof(fw_device_t);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "freeHeap", heap > used ? heap - used : 0);
    fw_jw_kv_i64(w, "heapSize", heap);
    fw_jw_key(w, "uptimeMs");
    fw_jw_u64(w, fw_device_uptime_ms(call->dev));
    fw_jw_kv_str(w, "chipModel", info.chip != NULL ? info.chip : "");
    fw_jw_kv_i64(w, "cpuFreqMHz", info.cpu_mhz);
    fw_jw_kv_i64(w, "flashSize", info.flash_bytes);
    fw_jw_kv_str(w, "ip", "");
    fw_jw_kv_str(w, "mac", info.unique_id != NULL ? info.unique_id : "");
    fw_jw_kv_i64(w, "rssi", 0);
    return FW_OK;
}

/* ---------------------------------------------------------------- firmware_update (a task) */

/*
 * An OTA update as the device would run it: the image is fetched in 64 KiB chunks, one per
 * 250 ms of device time (a 1 MiB image: 16 steps, 4 s), then verified. The task's status
 * message tells the progress; the URL must be http(s).
 */
#define OTA_IMAGE_BYTES (1024u * 1024u)
#define OTA_CHUNK_BYTES (64u * 1024u)
#define OTA_STEP_MS 250u

static bool starts_with(const char *s, const char *prefix)
{
    while (*prefix && *s == *prefix) s++, prefix++;
    return *prefix == 0;
}

/* Appends s, or v in decimal, to the step's text (truncated at its capacity). */
static void put(fw_task_step_t *t, size_t *n, const char *s)
{
    while (*s && *n + 1 < t->text_cap) t->text[(*n)++] = *s++;
    t->text[*n] = 0;
}

static void put_u(fw_task_step_t *t, size_t *n, uint32_t v)
{
    char d[11];
    size_t k = sizeof d - 1;
    d[k] = 0;
    do d[--k] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    put(t, n, d + k);
}

static fw_task_rc_t firmware_update_step(fw_task_step_t *t)
{
    char url[FW_TASK_ARGS_MAX] = "";
    size_t n = 0;
    int32_t u = t->args >= 0 ? fw_json_obj_get(t->args_doc, (uint32_t)t->args, "url") : -1;
    if (u >= 0) fw_json_str_decode(t->args_doc, (uint32_t)u, url, sizeof url);
    if (!starts_with(url, "http://") && !starts_with(url, "https://")) {
        put(t, &n, "OTA refused: the url must be http:// or https://");
        return FW_TASK_TOOL_ERROR;
    }
    uint32_t done = t->state * OTA_CHUNK_BYTES;
    if (done >= OTA_IMAGE_BYTES) {
        put(t, &n, "updated: ");
        put_u(t, &n, OTA_IMAGE_BYTES);
        put(t, &n, " bytes written and verified");
        return FW_TASK_DONE;
    }
    t->state++;
    put(t, &n, "downloading: ");
    put_u(t, &n, done * 100u / OTA_IMAGE_BYTES);
    put(t, &n, "% (");
    put_u(t, &n, done / 1024u);
    put(t, &n, " of ");
    put_u(t, &n, OTA_IMAGE_BYTES / 1024u);
    put(t, &n, " KiB)");
    t->progress = done / 1024u; /* KiB: notifications/progress for a progressToken */
    t->total = OTA_IMAGE_BYTES / 1024u;
    t->wake_ms = OTA_STEP_MS;
    return FW_TASK_WORKING;
}

/* Never runs: the tool requires a task (the core refuses a plain call first). */
static fw_err_t firmware_update_fn(fw_call_t *call)
{
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s",
                          "firmware_update runs only as a task (params.task)");
}

/* ---------------------------------------------------------------- descriptors */

#define PIN_PARAM(desc)                                                                            \
    {                                                                                              \
        .name = "pin", .type = FW_PARAM_PIN, .required = true, .description = FW_DESC(desc)        \
    }
#define INT_PARAM(nm, req, lo, hi, dflt, desc)                                                     \
    {                                                                                              \
        .name = nm, .type = FW_PARAM_INTEGER, .required = req, .has_min = true, .has_max = true,   \
        .has_default = !(req), .min = lo, .max = hi, .def_int = dflt, .description = FW_DESC(desc) \
    }
#define OUT_INT(nm, lo, hi)                                                                        \
    {                                                                                              \
        .name = nm, .type = FW_PARAM_INTEGER, .required = true, .has_min = true, .has_max = true,  \
        .min = lo, .max = hi                                                                       \
    }
#define OUT_STR(nm)                                                                                \
    {                                                                                              \
        .name = nm, .type = FW_PARAM_STRING, .required = true                                      \
    }

static const fw_param_t pin_only[] = {PIN_PARAM("GPIO number")};
static const fw_param_t pin_mode_params[] = {
    PIN_PARAM("GPIO number"),
    {.name = "mode",
     .type = FW_PARAM_STRING,
     .required = true,
     .enum_values = mode_names,
     .description = FW_DESC("Pin mode")},
};
static const fw_param_t digital_write_params[] = {
    PIN_PARAM("GPIO number"), INT_PARAM("value", true, 0, 1, 0, "0 (LOW) or 1 (HIGH)")};
static const fw_param_t pwm_params[] = {
    PIN_PARAM("GPIO number"),
    INT_PARAM("duty", true, 0, 65536, 0, "Duty cycle, 0 .. 2^resolution"),
    INT_PARAM("frequency", false, 1, 40000000, 5000, "PWM frequency in Hz"),
    INT_PARAM("resolution", false, 1, 16, 8, "Duty resolution in bits"),
    INT_PARAM("channel", false, 0, LEDC_CHANNELS - 1, 0, "LEDC channel"),
};
static const fw_param_t servo_params[] = {
    PIN_PARAM("GPIO number of the servo's signal"),
    INT_PARAM("angle", true, 0, 180, 0, "Angle in degrees"),
    INT_PARAM("minUs", false, 100, 5000, 544, "Pulse width at 0 degrees, in microseconds"),
    INT_PARAM("maxUs", false, 100, 5000, 2400, "Pulse width at 180 degrees, in microseconds"),
};
#define RGB_PARAMS                                                                                 \
    INT_PARAM("r", true, 0, 255, 0, "Red"), INT_PARAM("g", true, 0, 255, 0, "Green"),              \
        INT_PARAM("b", true, 0, 255, 0, "Blue")
static const fw_param_t neopixel_set_params[] = {
    INT_PARAM("index", true, 0, 1023, 0, "Pixel index"),
    RGB_PARAMS,
    {.name = "show",
     .type = FW_PARAM_BOOLEAN,
     .has_default = true,
     .def_int = 1,
     .description = FW_DESC("Send the pixels to the strip now")},
};
static const fw_param_t rgb_params[] = {RGB_PARAMS};
static const fw_param_t brightness_params[] = {
    INT_PARAM("brightness", true, 0, 255, 0, "Global brightness")};
static const fw_param_t dht_params[] = {
    {.name = "fahrenheit",
     .type = FW_PARAM_BOOLEAN,
     .has_default = true,
     .def_int = 0,
     .description = FW_DESC("Temperature in Fahrenheit instead of Celsius")},
};
static const fw_param_t i2c_read_params[] = {
    INT_PARAM("address", true, 0, 127, 0, "7-bit device address"),
    INT_PARAM("count", false, 1, 32, 1, "Bytes to read"),
};
static const fw_param_t i2c_write_params[] = {
    INT_PARAM("address", true, 0, 127, 0, "7-bit device address"),
    {.name = "bytes",
     .type = FW_PARAM_BYTES,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = 32,
     .description = FW_DESC("Bytes to write")},
};
static const fw_param_t ota_params[] = {
    {.name = "url",
     .type = FW_PARAM_STRING,
     .required = true,
     .has_max = true,
     .max = FW_TASK_ARGS_MAX - 11, /* kept in the task slot as {"url":"..."} */
     .description = FW_DESC("http:// or https:// URL of the firmware image")},
};

/* Output schemas. */
static const fw_param_t level_out[] = {OUT_INT("pin", 0, 65535), OUT_INT("value", 0, 1)};
static const fw_param_t analog_out[] = {OUT_INT("pin", 0, 65535), OUT_INT("value", 0, 4095),
                                        OUT_INT("millivolts", 0, 65535)};
static const char *const units[] = {"C", "F", NULL};
static const fw_param_t dht_out[] = {
    {.name = "temperature",
     .type = FW_PARAM_NUMBER,
     .required = true,
     .number = FW_NUMBER(-40, 176, 0)},
    {.name = "humidity",
     .type = FW_PARAM_NUMBER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .number = FW_NUMBER(0, 100, 0)},
    {.name = "unit", .type = FW_PARAM_STRING, .required = true, .enum_values = units},
};
static const fw_param_t system_out[] = {
    OUT_INT("freeHeap", 0, FW_INT_MAX),
    OUT_INT("heapSize", 0, FW_INT_MAX),
    OUT_INT("uptimeMs", 0, FW_INT_MAX),
    OUT_STR("chipModel"),
    OUT_INT("cpuFreqMHz", 0, 1000),
    OUT_INT("flashSize", 0, FW_INT_MAX),
    OUT_STR("ip"),
    OUT_STR("mac"),
    OUT_INT("rssi", -127, 0),
};
static const fw_param_t servo_out[] = {OUT_INT("pin", 0, 65535), OUT_INT("angle", 0, 180),
                                       OUT_INT("pulseUs", 100, 5000)};

#define TOOL(id, nm, desc, prm, flg, fn)                                                           \
    const fw_tool_t fw_app_##id = {.name = nm,                                                     \
                                   .description = FW_DESC(desc),                                   \
                                   .params = prm,                                                  \
                                   .param_count = FW_ARRAY_LEN(prm),                               \
                                   .flags = flg,                                                   \
                                   .handler = fn}
#define TOOL_OUT(id, nm, desc, prm, flg, fn, o)                                                    \
    const fw_tool_t fw_app_##id = {.name = nm,                                                     \
                                   .description = FW_DESC(desc),                                   \
                                   .params = prm,                                                  \
                                   .param_count = FW_ARRAY_LEN(prm),                               \
                                   .flags = flg,                                                   \
                                   .handler = fn,                                                  \
                                   .out = o,                                                       \
                                   .out_count = FW_ARRAY_LEN(o)}
#define TOOL0(id, nm, desc, flg, fn, o, n)                                                         \
    const fw_tool_t fw_app_##id = {.name = nm,                                                     \
                                   .description = FW_DESC(desc),                                   \
                                   .flags = flg,                                                   \
                                   .handler = fn,                                                  \
                                   .out = o,                                                       \
                                   .out_count = n}

TOOL(pin_mode, "pin_mode", "Set GPIO pin mode", pin_mode_params, 0, pin_mode_fn);
TOOL_OUT(digital_read, "digital_read", "Read digital pin value", pin_only, FW_TOOL_READ_ONLY,
         digital_read_fn, level_out);
TOOL_OUT(digital_write, "digital_write", "Write digital pin value", digital_write_params, 0,
         digital_write_fn, level_out);
TOOL_OUT(analog_read, "analog_read", "Read analog value (0-4095)", pin_only, FW_TOOL_READ_ONLY,
         analog_read_fn, analog_out);
TOOL(pwm_write, "pwm_write", "Set PWM duty cycle", pwm_params, 0, pwm_write_fn);
TOOL(pwm_stop, "pwm_stop", "Stop PWM on a pin", pin_only, 0, stop_fn);
TOOL_OUT(servo_write, "servo_write", "Set servo angle", servo_params, 0, servo_write_fn, servo_out);
TOOL(servo_detach, "servo_detach", "Stop servo signal", pin_only, 0, stop_fn);
TOOL(neopixel_set, "neopixel_set", "Set single pixel color", neopixel_set_params, 0,
     neopixel_set_fn);
TOOL(neopixel_fill, "neopixel_fill", "Fill all pixels", rgb_params, 0, neopixel_fill_fn);
TOOL0(neopixel_clear, "neopixel_clear", "Turn off all pixels", 0, neopixel_clear_fn, NULL, 0);
TOOL(neopixel_brightness, "neopixel_brightness", "Set global brightness", brightness_params, 0,
     neopixel_brightness_fn);
TOOL_OUT(dht_read, "dht_read", "Read temperature & humidity", dht_params, FW_TOOL_READ_ONLY,
         dht_read_fn, dht_out);
TOOL0(i2c_scan, "i2c_scan", "Scan I2C bus", FW_TOOL_READ_ONLY, i2c_scan_fn, NULL, 0);
TOOL(i2c_read, "i2c_read", "Read bytes from device", i2c_read_params, 0, i2c_read_fn);
TOOL(i2c_write, "i2c_write", "Write bytes to device", i2c_write_params, 0, i2c_write_fn);
TOOL0(system_info, "system_info", "Get system information", FW_TOOL_READ_ONLY, system_info_fn,
      system_out, FW_ARRAY_LEN(system_out));
#if FW_WITH_TASKS
TOOL(firmware_update, "firmware_update",
     "Start an OTA firmware update (runs as a task: call it with params.task, then poll "
     "tasks/get)",
     ota_params, FW_TOOL_DESTRUCTIVE | FW_TOOL_TASK_REQUIRED, firmware_update_fn);

const fw_task_tool_t fw_app_firmware_update_task = {&fw_app_firmware_update, firmware_update_step,
                                                    false};
#endif

#endif
