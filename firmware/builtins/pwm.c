/* pwm.c: the built-in pwm_write tool. */
#include "builtins_internal.h"
#include "fw_builtins.h"
#include "fw_device.h"

static fw_err_t pwm_write_fn(fw_call_t *call)
{
    /* by index in pwm_write_params: pin, duty, frequency */
    const fw_arg_t *pin = &call->args[0];
    uint8_t duty = (uint8_t)call->args[1].i;
    const fw_arg_t *freq = &call->args[2];
    uint32_t freq_hz = freq->present ? (uint32_t)freq->i : 0u;
    fw_err_t err = fw_hal_pwm_write(call->dev, pin->pin->number, duty, freq_hz);
    if (err != FW_OK) return fw_builtin_pin_failed(call, pin->pin, err);
    fw_device_pin_note_duty(call->dev, pin->pin_index, duty);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    FW_JW_KV_I64(w, "duty", duty);
    if (freq->present) FW_JW_KV_I64(w, "frequency", freq_hz);
    return FW_OK;
}

/* Names in flash where constant data stays there (FW_ROM). */
static const char s_pin[] FW_ROM_STR = "pin";
static const char s_duty[] FW_ROM_STR = "duty";
static const char s_frequency[] FW_ROM_STR = "frequency";
static const char s_pwm_write[] FW_ROM_STR = "pwm_write";
static const char s_pwm[] FW_ROM_STR = "pwm";

static const fw_param_t pwm_write_params[] FW_ROM = {
    {.name = s_pin,
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("The PWM output to set"),
     .pin_types = FW_PINMASK(FW_PIN_PWM_OUTPUT)},
    {.name = s_duty,
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .description =
         FW_DESC("Duty cycle 0..255: 0 = always low, 128 = about half, 255 = always high"),
     .min = 0,
     .max = 255},
    {.name = s_frequency,
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .description = FW_DESC("PWM frequency in Hz; omit (or 0) for the port's default"),
     .min = 0,
     .max = 40000000},
};

static const fw_tool_t pwm_tools[] FW_ROM = {
    {.name = s_pwm_write,
     .description =
         FW_DESC("Set the PWM duty cycle (0..255) of a pwm_output pin, e.g. to dim an LED or "
                 "drive a motor; optionally set its frequency in Hz."),
     .params = pwm_write_params,
     .param_count = FW_ARRAY_LEN(pwm_write_params),
     .handler = pwm_write_fn},
};

const fw_toolset_t fw_builtin_pwm = {s_pwm, pwm_tools, FW_ARRAY_LEN(pwm_tools)};
