/* adc.c: the built-in adc_read tool. */
#include "builtins_internal.h"
#include "fw_builtins.h"
#include "fw_device.h"

static fw_err_t adc_read_fn(fw_call_t *call)
{
    const fw_arg_t *pin = &call->args[0]; /* adc_read_params[0] */
    uint16_t raw = 0;
    fw_err_t err = fw_hal_adc_read(call->dev, pin->pin->number, &raw);
    if (err != FW_OK) return fw_builtin_pin_failed(call, pin->pin, err);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    FW_JW_KV_I64(w, "value", raw);
    fw_adc_write_scaled(w, fw_device_board(call->dev), raw);
    return FW_OK;
}

/* Names in flash where constant data stays there (FW_ROM). */
static const char s_pin[] FW_ROM_STR = "pin";
static const char s_adc_read[] FW_ROM_STR = "adc_read";
static const char s_adc[] FW_ROM_STR = "adc";

static const fw_param_t adc_read_params[] FW_ROM = {
    {.name = s_pin,
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("The analog input to read"),
     .pin_types = FW_PINMASK(FW_PIN_ADC_INPUT)},
};

static const fw_tool_t adc_tools[] FW_ROM = {
    {.name = s_adc_read,
     .description =
         FW_DESC("Take one analog reading of an adc_input pin. Returns the raw count (0 to "
                 "2^bits-1 of the board's ADC) and the voltage: \"volts\" (2 decimals) or "
                 "\"mv\" (millivolts), as the board reports."),
     .params = adc_read_params,
     .param_count = FW_ARRAY_LEN(adc_read_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = adc_read_fn},
};

const fw_toolset_t fw_builtin_adc = {s_adc, adc_tools, FW_ARRAY_LEN(adc_tools)};
