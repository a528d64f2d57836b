/* gpio.c: the built-in digital pin tools: gpio_write and gpio_read, and pin_mode. */
#include <string.h>

#include "builtins_internal.h"
#include "fw_builtins.h"
#include "fw_device.h"

#define DIGITAL_PINS (FW_PINMASK(FW_PIN_DIGITAL_OUTPUT) | FW_PINMASK(FW_PIN_DIGITAL_INPUT))

/* Names in flash where constant data stays there (FW_ROM). */
static const char s_pin[] FW_ROM_STR = "pin";
static const char s_value[] FW_ROM_STR = "value";
static const char s_mode[] FW_ROM_STR = "mode";
static const char s_gpio_write[] FW_ROM_STR = "gpio_write";
static const char s_gpio_read[] FW_ROM_STR = "gpio_read";
static const char s_pin_mode[] FW_ROM_STR = "pin_mode";
static const char s_gpio[] FW_ROM_STR = "gpio";

static const char *const mode_names[] = {"input", "input_pullup", "input_pulldown", "output", NULL};
/* hal_pin_mode_t of each entry of mode_names. */
static const uint8_t mode_values[] = {HAL_PIN_INPUT, HAL_PIN_INPUT_PULLUP, HAL_PIN_INPUT_PULLDOWN,
                                      HAL_PIN_OUTPUT};

/* What gpio_write and gpio_read answer once the HAL has written or read level (err). In
   each of the two where the speed allows, so that a call has one entry and one exit (one set
   of registers saved) rather than two. */
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
#define LEVEL_RESULT_INLINE __attribute__((always_inline)) inline
#else
#define LEVEL_RESULT_INLINE
#endif
static LEVEL_RESULT_INLINE fw_err_t level_result(fw_call_t *call, const fw_arg_t *pin, bool level,
                                                 fw_err_t err)
{
    if (err != FW_OK) return fw_builtin_pin_failed(call, pin->pin, err);
    fw_device_pin_note_level(call->dev, pin->pin_index, level);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    FW_JW_KV_BOOL(w, "value", level);
    return FW_OK;
}

/* The arguments by their index in the tool's params (gpio_write_params, gpio_read_params):
   no name lookup per call. */
static fw_err_t gpio_write_fn(fw_call_t *call)
{
    const fw_arg_t *pin = &call->args[0];
    bool level = call->args[1].i != 0;
    return level_result(call, pin, level, fw_hal_gpio_write(call->dev, pin->pin->number, level));
}

static fw_err_t gpio_read_fn(fw_call_t *call)
{
    const fw_arg_t *pin = &call->args[0];
    bool level = false;
    fw_err_t err = fw_hal_gpio_read(call->dev, pin->pin->number, &level);
    return level_result(call, pin, level, err);
}

static size_t mode_index(const char *name)
{
    size_t i = 0;
    while (mode_names[i] && strcmp(mode_names[i], name) != 0) i++;
    return i;
}

static fw_err_t pin_mode_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    size_t m = mode_index(fw_call_arg(call, "mode")->str);
    if (m >= FW_ARRAY_LEN(mode_values)) /* the schema's enum already refused it */
        return fw_call_param_error(call, FW_S("mode"), FW_S("unknown mode"));
    hal_pin_mode_t mode = (hal_pin_mode_t)mode_values[m];
    fw_err_t err = fw_hal_gpio_mode(call->dev, pin->pin->number, mode);
    if (err != FW_OK) return fw_builtin_pin_failed(call, pin->pin, err);
    fw_device_pin_note_mode(call->dev, pin->pin_index, mode);
    const fw_pin_state_t *st = fw_device_pin_state(call->dev, pin->pin_index);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    fw_jw_kv_str(w, "mode", mode_names[m]);
    fw_jw_kv_str(w, "type", fw_pin_type_name((fw_pin_type_t)st->type));
    return FW_OK;
}

static const fw_param_t gpio_write_params[] FW_ROM = {
    {.name = s_pin,
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("The digital output to drive"),
     .pin_types = FW_PINMASK(FW_PIN_DIGITAL_OUTPUT)},
    {.name = s_value,
     .type = FW_PARAM_BOOLEAN,
     .required = true,
     .description = FW_DESC("true = HIGH, false = LOW")},
};

static const fw_param_t gpio_read_params[] FW_ROM = {
    {.name = s_pin,
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("The digital pin to read"),
     .pin_types = DIGITAL_PINS},
};

static const fw_param_t pin_mode_params[] FW_ROM = {
    {.name = s_pin,
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("The digital pin to reconfigure"),
     .pin_types = DIGITAL_PINS},
    {.name = s_mode,
     .type = FW_PARAM_STRING,
     .required = true,
     .description = FW_DESC("\"output\", or \"input\" / \"input_pullup\" / \"input_pulldown\" (no, "
                            "pull-up or pull-down resistor)"),
     .enum_values = mode_names},
};

static const fw_tool_t gpio_tools[] FW_ROM = {
    {.name = s_gpio_write,
     .description =
         FW_DESC("Drive a digital output pin HIGH (value true) or LOW (value false). The pin "
                 "must be a digital_output; pin_mode can turn a digital input into one."),
     .params = gpio_write_params,
     .param_count = FW_ARRAY_LEN(gpio_write_params),
     .handler = gpio_write_fn},
    {.name = s_gpio_read,
     .description =
         FW_DESC("Read the logic level of a digital pin: the level at an input, or the level "
                 "an output drives. value true = HIGH, false = LOW."),
     .params = gpio_read_params,
     .param_count = FW_ARRAY_LEN(gpio_read_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = gpio_read_fn},
};

const fw_toolset_t fw_builtin_gpio = {s_gpio, gpio_tools, FW_ARRAY_LEN(gpio_tools)};

/* pin_mode is a set of its own: MCP/U's tool set has no run-time reconfiguration, and the
   mcpu-min profile leaves it out of its standard list. */
static const fw_tool_t pin_mode_tools[] FW_ROM = {
    {.name = s_pin_mode,
     .description =
         FW_DESC("Reconfigure a digital pin at run time: mode \"output\" makes it a "
                 "digital_output (for gpio_write); \"input\", \"input_pullup\" or "
                 "\"input_pulldown\" make it a digital_input. Returns the pin's new type."),
     .params = pin_mode_params,
     .param_count = FW_ARRAY_LEN(pin_mode_params),
     .handler = pin_mode_fn},
};

const fw_toolset_t fw_builtin_pin_mode = {s_pin_mode, pin_mode_tools, FW_ARRAY_LEN(pin_mode_tools)};
