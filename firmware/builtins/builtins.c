/* builtins.c: the standard lists of built-in tool sets a board names in fw_board_t.toolsets. */
#include <stddef.h>

#include "fw_builtins.h"

#if FW_WITH_SAMPLING
#define PINS_SET &fw_builtin_pins,
#else
#define PINS_SET
#endif

const fw_toolset_t *const fw_builtins[] = {
    &fw_builtin_gpio, &fw_builtin_pwm, &fw_builtin_adc, PINS_SET & fw_builtin_system, NULL};

#if FW_WITH_I2C
const fw_toolset_t *const fw_builtins_i2c[] = {&fw_builtin_gpio, &fw_builtin_pwm, &fw_builtin_adc,
                                               PINS_SET & fw_builtin_system, &fw_builtin_i2c,
                                               NULL};
#endif
