/* tmp102.c: driver for the TI TMP102 temperature sensor (datasheet SBOS397): read_temperature. */
#include "fw_device.h"
#include "tmp102.h"

#if FW_WITH_I2C

/* Pointer register values (SBOS397 table "Pointer Addresses"). */
#define REG_TEMPERATURE 0x00u
#define REG_CONFIG 0x01u
/* Configuration register, second byte: CR1 CR0 AL EM 0 0 0 0; EM selects the 13-bit format. */
#define CONFIG_EM 0x10u
/* Temperature register, second byte: bits D2..D1 always read 0, and in normal (12-bit) mode
   D3..D0 too (in extended mode D0 reads 1, not checked). A set zero bit means the answer is not
   a TMP102 conversion result of the configured format. */
#define TEMP_ZERO_BITS_NORMAL 0x0Fu
#define TEMP_ZERO_BITS_EXTENDED 0x06u
/* The span of SBOS397's data-format tables (-55..150 °C); a working sensor reports nothing
   outside it, so such a value is a bus or device fault rather than a temperature. */
#define RANGE_MIN_C (-55)
#define RANGE_MAX_C 150

typedef struct reading {
    int32_t raw;   /* signed count of 0.0625 °C steps */
    bool extended; /* 13-bit format (EM = 1) */
} reading_t;

/* Reads a 16-bit register (MSB first) through the pointer register. */
static fw_err_t read_reg(fw_call_t *call, const fw_chip_t *d, uint8_t reg, uint8_t out[2])
{
    return fw_i2c_call_xfer(call, "tmp102", d->bus, d->addr, &reg, 1, out, 2);
}

/* The format (12- or 13-bit, left-justified two's complement) is taken from the configuration
   register's EM bit, as the datasheet describes; the register's fixed zero bits are checked. */
static fw_err_t read_raw(fw_call_t *call, const fw_chip_t *d, reading_t *r)
{
    uint8_t cfg[2], t[2];
    fw_err_t err = read_reg(call, d, REG_CONFIG, cfg);
    if (err == FW_OK) err = read_reg(call, d, REG_TEMPERATURE, t);
    if (err != FW_OK) return err;
    r->extended = (cfg[1] & CONFIG_EM) != 0;
    uint8_t zero_bits = r->extended ? TEMP_ZERO_BITS_EXTENDED : TEMP_ZERO_BITS_NORMAL;
    if (t[1] & zero_bits)
        return fw_call_errorf(call, FW_ERR_DEVICE_DATA,
                              "tmp102 0x%x: temperature register low byte 0x%x has bits set that "
                              "read 0 in %s mode",
                              (unsigned)d->addr, (unsigned)t[1], r->extended ? "13-bit" : "12-bit");
    uint32_t word = ((uint32_t)t[0] << 8) | t[1];
    unsigned bits = r->extended ? 13u : 12u;
    uint32_t field = word >> (16u - bits);
    uint32_t sign = 1u << (bits - 1u);
    r->raw = (field & sign) ? (int32_t)field - (int32_t)(sign << 1) : (int32_t)field;
    return FW_OK;
}

static const fw_chip_t *find_sensor(fw_call_t *call)
{
    const fw_arg_t *addr = fw_call_arg(call, "address");
    return fw_device_chip(call->dev, &fw_driver_tmp102, addr->present ? (int)addr->i : -1);
}

static fw_err_t no_sensor(fw_call_t *call)
{
    const fw_arg_t *addr = fw_call_arg(call, "address");
    if (!addr->present)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "this board declares no tmp102");
    const fw_chip_t *first = fw_device_chip(call->dev, &fw_driver_tmp102, -1);
    return fw_call_param_error(call, "address",
                               "no tmp102 at 0x%x on this board (the first is at "
                               "0x%x)",
                               (unsigned)addr->i, first ? (unsigned)first->addr : 0u);
}

static fw_err_t read_temperature_fn(fw_call_t *call)
{
    const fw_chip_t *d = find_sensor(call);
    if (d == NULL) return no_sensor(call);
    reading_t r = {0, false};
    fw_err_t err = read_raw(call, d, &r);
    if (err != FW_OK) return err;
    if (r.raw < RANGE_MIN_C * 16 || r.raw > RANGE_MAX_C * 16)
        return fw_call_errorf(call, FW_ERR_DEVICE_DATA,
                              "tmp102 0x%x reported about %d °C (raw %d), outside the sensor's "
                              "%d..%d °C range",
                              (unsigned)d->addr, (int)(r.raw / 16), (int)r.raw, RANGE_MIN_C,
                              RANGE_MAX_C);
    /* In ten-thousandths, exactly: 0.0625 °C per count, and F = C * 1.8 + 32. */
    int64_t celsius = (int64_t)r.raw * 625;
    int64_t fahrenheit = (int64_t)r.raw * 1125 + 320000;
    bool want_f = fw_call_arg(call, "unit")->str[0] == 'F';
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "address", d->addr);
    fw_jw_kv_i64(w, "bus", d->bus);
    fw_jw_kv_str(w, "unit", want_f ? "F" : "C");
    fw_jw_key(w, "temperature");
    fw_jw_decimal(w, want_f ? fahrenheit : celsius, 4, true);
    fw_jw_key(w, "celsius");
    fw_jw_decimal(w, celsius, 4, true);
    fw_jw_key(w, "fahrenheit");
    fw_jw_decimal(w, fahrenheit, 4, true);
    fw_jw_kv_i64(w, "raw", r.raw);
    fw_jw_kv_bool(w, "extended", r.extended);
    return FW_OK;
}

static const char *const unit_names[] = {"C", "F", NULL};

static const fw_param_t read_temperature_params[] = {
    {.name = "address",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 0x08,
     .max = 0x77,
     .description = FW_DESC("I2C address of the TMP102 (72..75 = 0x48..0x4B); default: the board's "
                            "first TMP102")},
    {.name = "unit",
     .type = FW_PARAM_STRING,
     .has_default = true,
     .def_str = "C",
     .enum_values = unit_names,
     .description =
         FW_DESC("Unit of \"temperature\": \"C\" (default) or \"F\"; celsius and fahrenheit "
                 "are always both returned")},
};

static const fw_tool_t tmp102_tools[] = {
    {.name = "read_temperature",
     .description =
         FW_DESC("Read a TMP102 temperature sensor (0.0625 °C resolution, -55..150 °C). "
                 "Returns temperature (in unit), celsius, fahrenheit, raw (signed count of "
                 "0.0625 °C) and extended (13-bit mode)."),
     .params = read_temperature_params,
     .param_count = FW_ARRAY_LEN(read_temperature_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = read_temperature_fn},
};

const fw_driver_t fw_driver_tmp102 = {
    .name = "tmp102", .tools = tmp102_tools, .tool_count = FW_ARRAY_LEN(tmp102_tools)};

#endif
