/* builtins.c: the standard lists of built-in tool sets a board names in fw_board_t.toolsets. */
#include <stddef.h>

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
