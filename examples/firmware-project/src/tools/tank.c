/* tank.c: tank_level, the tank monitor's own tool: the level from a pressure sensor whose output
   rises linearly from empty_mv (empty tank) to full_mv (full tank), read on an ADC pin. */
#include "fw_device.h"
#include "tank.h"

static fw_err_t tank_level_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    int64_t empty_mv = fw_call_arg(call, "empty_mv")->i;
    int64_t full_mv = fw_call_arg(call, "full_mv")->i;
    if (full_mv <= empty_mv)
        return fw_call_param_error(call, "full_mv", "must be above empty_mv (%ld)", (long)empty_mv);
    uint16_t raw = 0;
    fw_err_t err = fw_hal_adc_read(call->dev, (uint16_t)pin->i, &raw);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "reading the level sensor on pin %ld failed: %s",
                              (long)pin->i, fw_err_str(err));
    const fw_board_t *b = call->dev->board;
    int64_t full_scale = ((int64_t)1 << b->adc_bits) - 1;
    int64_t mv = ((int64_t)raw * b->adc_ref_mv + full_scale / 2) / full_scale;
    int64_t percent = (mv - empty_mv) * 100 / (full_mv - empty_mv);
    percent = percent < 0 ? 0 : percent > 100 ? 100 : percent;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "pin", pin->i);
    fw_jw_kv_i64(w, "raw", raw);
    fw_jw_kv_i64(w, "mv", mv);
    fw_jw_kv_i64(w, "percent", percent);
    fw_jw_kv_bool(w, "low", percent < fw_call_arg(call, "low_percent")->i);
    return FW_OK;
}

static const fw_param_t tank_level_params[] = {
    {.name = "pin",
     .type = FW_PARAM_PIN,
     .has_default = true,
     .def_int = 34,
     .pin_types = FW_PINMASK(FW_PIN_ADC_INPUT),
     .description = FW_DESC("ADC pin of the pressure sensor (default 34)")},
    {.name = "empty_mv",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 0,
     .max = 5000,
     .def_int = 400,
     .description = FW_DESC("Sensor output with the tank empty, in mV (default 400)")},
    {.name = "full_mv",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 1,
     .max = 5000,
     .def_int = 2400,
     .description = FW_DESC("Sensor output with the tank full, in mV (default 2400)")},
    {.name = "low_percent",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 0,
     .max = 100,
     .def_int = 10,
     .description = FW_DESC("Below this level \"low\" is true (default 10)")},
};

const fw_tool_t fw_app_tank_level = {
    .name = "tank_level",
    .description = FW_DESC("Water level of the tank in percent, from the pressure sensor's "
                           "voltage between empty_mv and full_mv"),
    .params = tank_level_params,
    .param_count = FW_ARRAY_LEN(tank_level_params),
    .flags = FW_TOOL_READ_ONLY,
    .handler = tank_level_fn,
};
