/* ina219.c: driver for the TI INA219 current and power monitor (datasheet SBOS448): read_power
   reads the bus and shunt voltage registers and derives the current from the board's shunt. */
#include "fw_device.h"
#include "ina219.h"

/* Register addresses (SBOS448, "Register Set"). */
#define REG_SHUNT_VOLTAGE 0x01u /* signed, 10 uV per count */
#define REG_BUS_VOLTAGE 0x02u   /* bits 15..3: 4 mV per count; bit 1 CNVR, bit 0 OVF; bit 2 is 0 */
#define BUS_RESERVED_BIT 0x0004u
#define BUS_OVF 0x0001u

static fw_err_t read_reg(fw_call_t *call, const fw_chip_t *chip, uint8_t reg, uint16_t *out)
{
    uint8_t b[2];
    fw_err_t err = fw_i2c_call_xfer(call, "ina219", chip->bus, chip->addr, &reg, 1, b, 2);
    if (err == FW_OK) *out = (uint16_t)((b[0] << 8) | b[1]);
    return err;
}

static fw_err_t read_power_fn(fw_call_t *call)
{
    const fw_arg_t *addr = fw_call_arg(call, "address");
    const fw_chip_t *chip =
        fw_device_chip(call->dev, &fw_driver_ina219, addr->present ? (int)addr->i : -1);
    if (chip == NULL && !addr->present)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "this board declares no ina219");
    if (chip == NULL)
        return fw_call_param_error(call, "address", "no ina219 at 0x%x on this board",
                                   (unsigned)addr->i);
    uint16_t shunt = 0, bus = 0;
    fw_err_t err = read_reg(call, chip, REG_SHUNT_VOLTAGE, &shunt);
    if (err == FW_OK) err = read_reg(call, chip, REG_BUS_VOLTAGE, &bus);
    if (err != FW_OK) return err;
    if (bus & BUS_RESERVED_BIT)
        return fw_call_errorf(call, FW_ERR_DEVICE_DATA,
                              "ina219 0x%x: bus voltage register 0x%x has bit 2 set (reads 0)",
                              (unsigned)chip->addr, (unsigned)bus);
    const ina219_config_t *cfg = chip->config;
    int32_t shunt_uv = (int32_t)(int16_t)shunt * 10;
    int32_t bus_mv = (int32_t)(bus >> 3) * 4;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "address", chip->addr);
    fw_jw_kv_i64(w, "bus_mv", bus_mv);
    fw_jw_kv_i64(w, "shunt_uv", shunt_uv);
    /* uV / mOhm = mA; milliwatts from the bus voltage and that current. */
    int32_t current_ma = shunt_uv / (int32_t)cfg->shunt_milliohm;
    fw_jw_kv_i64(w, "current_ma", current_ma);
    fw_jw_kv_i64(w, "power_mw", (int64_t)bus_mv * current_ma / 1000);
    fw_jw_kv_bool(w, "overflow", (bus & BUS_OVF) != 0);
    return FW_OK;
}

static const fw_param_t read_power_params[] = {
    {.name = "address",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 0x40,
     .max = 0x4F,
     .description = FW_DESC("I2C address of the INA219 (0x40..0x4F); default: the first one")},
};

static const fw_tool_t ina219_tools[] = {
    {.name = "read_power",
     .description = FW_DESC("Read an INA219 power monitor: bus voltage (mV), shunt voltage (uV), "
                            "current (mA, from the board's shunt resistor) and power (mW)"),
     .params = read_power_params,
     .param_count = FW_ARRAY_LEN(read_power_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = read_power_fn},
};

/* A board must say which shunt it has: without it the current means nothing. */
static fw_err_t probe(fw_device_t *dev, const fw_chip_t *chip)
{
    const ina219_config_t *cfg = chip->config;
    (void)dev;
    return cfg != NULL && cfg->shunt_milliohm > 0 ? FW_OK : FW_ERR_ARG;
}

const fw_driver_t fw_driver_ina219 = {.name = "ina219",
                                      .tools = ina219_tools,
                                      .tool_count = FW_ARRAY_LEN(ina219_tools),
                                      .probe = probe};
