/* builtins.c: the standard lists of built-in tool sets a board names in fw_board_t.toolsets. */
#include <stddef.h>

#include "builtins_internal.h"
#include "fw_builtins.h"

/* The order is the order tools are listed in. The sampled-pin tools come with sampling;
   pin_mode and system_info are left to boards that ask for them in the mcpu-min profile, where
   every byte of flash counts (MCP/U defines neither). */
#if FW_WITH_SAMPLING
#define PINS_SET &fw_builtin_pins,
#else
#define PINS_SET
#endif
#if FW_MIN
#define PIN_MODE_SET
#define SYSTEM_SET
#else
#define PIN_MODE_SET &fw_builtin_pin_mode,
#define SYSTEM_SET &fw_builtin_system,
#endif

const fw_toolset_t *const fw_builtins[] = {&fw_builtin_gpio, PIN_MODE_SET &fw_builtin_pwm,
                                           &fw_builtin_adc, PINS_SET SYSTEM_SET NULL};

#if FW_WITH_I2C
const fw_toolset_t *const fw_builtins_i2c[] = {&fw_builtin_gpio, PIN_MODE_SET &fw_builtin_pwm,
                                               &fw_builtin_adc, PINS_SET SYSTEM_SET &fw_builtin_i2c,
                                               NULL};
#endif

/* "gpio_write on pin 13 (led) failed: hardware error": one formatter for every pin tool. */
fw_err_t fw_builtin_pin_failed(fw_call_t *call, const fw_pin_def_t *def, fw_err_t err)
{
    return fw_call_errorf(call, err, FW_S("%s on pin %u (%s) failed: %s"), call->tool->name,
                          (unsigned)def->number, def->name ? def->name : "", fw_err_str(err));
}
