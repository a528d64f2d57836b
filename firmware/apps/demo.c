/* demo.c: the esp32-demo's application tools: read_touch and calibrate_touch on the GPIO4 pad. */
#include "apps.h"
#include "fw_device.h"

/*
 * The ESP32's capacitive touch pad T0 is GPIO4. The port samples it through the HAL's adc_read
 * on pin 4 (it is a touch channel, not a pin of the registry). As with Arduino's touchRead(),
 * the count is high when the pad is left alone and drops when a finger touches it.
 */
typedef struct touch_pad {
    uint16_t pin;
    const char *resource; /* the name MCP/U's client stores the polled readings under */
} touch_pad_t;

static const touch_pad_t gpio4_pad = {4, "touch_gpio4"};

/* Default touched/untouched boundary: typical untouched counts are 60..80, touched 10..20. */
#define TOUCH_THRESHOLD_DEFAULT 40
#define CALIBRATE_SAMPLES_MAX 32

static fw_err_t touch_sample(fw_call_t *call, uint16_t *raw)
{
    const touch_pad_t *pad = call->tool->user;
    fw_err_t err = fw_hal_adc_read(call->dev, pad->pin, raw);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "reading the touch pad on GPIO%u failed: %s",
                              (unsigned)pad->pin, fw_err_str(err));
    return FW_OK;
}

/* MCP/U's polled-tool answer {type: "buffer", resource, values: [readings]} (its client's
   poller stores values under resource), with ours beside it: pin, value, touched, threshold. */
static fw_err_t read_touch_fn(fw_call_t *call)
{
    const touch_pad_t *pad = call->tool->user;
    int64_t threshold = fw_call_arg(call, "threshold")->i;
    uint16_t raw = 0;
    fw_err_t err = touch_sample(call, &raw);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_str(w, "type", "buffer");
    fw_jw_kv_str(w, "resource", pad->resource);
    fw_jw_key(w, "values");
    fw_jw_arr_begin(w);
    fw_jw_i64(w, raw);
    fw_jw_arr_end(w);
    fw_jw_kv_i64(w, "pin", pad->pin);
    fw_jw_kv_i64(w, "value", raw);
    fw_jw_kv_bool(w, "touched", raw < threshold);
    fw_jw_kv_i64(w, "threshold", threshold);
    return FW_OK;
}

/* Averages `samples` reads of the untouched pad and suggests two thirds of it as threshold. */
static fw_err_t calibrate_touch_fn(fw_call_t *call)
{
    const touch_pad_t *pad = call->tool->user;
    unsigned samples = (unsigned)fw_call_arg(call, "samples")->i;
    uint32_t sum = 0;
    uint16_t lo = UINT16_MAX, hi = 0;
    for (unsigned i = 0; i < samples; i++) {
        uint16_t raw = 0;
        fw_err_t err = touch_sample(call, &raw);
        if (err != FW_OK) return err;
        sum += raw;
        lo = raw < lo ? raw : lo;
        hi = raw > hi ? raw : hi;
    }
    uint32_t baseline = (sum + samples / 2u) / samples;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pad->pin);
    fw_jw_kv_i64(w, "samples", samples);
    fw_jw_kv_i64(w, "baseline", baseline);
    fw_jw_kv_i64(w, "min", lo);
    fw_jw_kv_i64(w, "max", hi);
    fw_jw_kv_i64(w, "suggested_threshold", (baseline * 2u + 1u) / 3u);
    return FW_OK;
}

static const fw_param_t read_touch_params[] = {
    {.name = "threshold",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 0,
     .max = UINT16_MAX,
     .has_default = true,
     .def_int = TOUCH_THRESHOLD_DEFAULT,
     .description = FW_DESC("A reading below this counts as touched (default 40; calibrate_touch "
                            "suggests one for this pad)")},
};

static const fw_param_t calibrate_touch_params[] = {
    {.name = "samples",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = CALIBRATE_SAMPLES_MAX,
     .has_default = true,
     .def_int = 8,
     .description = FW_DESC("Reads to average (default 8)")},
};

/* Polled every 2 s, as the MCP/U esp32-demo announces it. */
const fw_tool_t fw_app_read_touch = {
    .name = "read_touch",
    .description = FW_DESC("Read capacitive touch sensor buffer on GPIO4"),
    .params = read_touch_params,
    .param_count = FW_ARRAY_LEN(read_touch_params),
    .flags = FW_TOOL_READ_ONLY,
    .poll_ms = 2000,
    .handler = read_touch_fn,
    .user = &gpio4_pad,
};

/* For the person at the device, not the model: the pad must be left untouched while it runs. */
const fw_tool_t fw_app_calibrate_touch = {
    .name = "calibrate_touch",
    .description =
        FW_DESC("Measure the untouched baseline of the GPIO4 touch pad (average, min and max "
                "of `samples` reads) and suggest a read_touch threshold of two thirds of it. "
                "Keep fingers off the pad while it runs."),
    .params = calibrate_touch_params,
    .param_count = FW_ARRAY_LEN(calibrate_touch_params),
    .flags = FW_TOOL_READ_ONLY | FW_TOOL_USER_ONLY,
    .handler = calibrate_touch_fn,
    .user = &gpio4_pad,
};
