/* fw_builtins.h: the built-in tool sets (firmware/builtins/) a board lists in its toolsets. */
#ifndef FW_BUILTINS_H
#define FW_BUILTINS_H

#include "fw_tool.h"

/* gpio_write, gpio_read */
extern const fw_toolset_t fw_builtin_gpio;
/* pin_mode */
extern const fw_toolset_t fw_builtin_pin_mode;
/* pwm_write */
extern const fw_toolset_t fw_builtin_pwm;
/* adc_read */
extern const fw_toolset_t fw_builtin_adc;
/* system_info */
extern const fw_toolset_t fw_builtin_system;
#if FW_WITH_SAMPLING
/* get_pin_summary, get_pin_buffer, get_pin_events */
extern const fw_toolset_t fw_builtin_pins;
#endif
#if FW_WITH_I2C
/* i2c_scan, i2c_read, i2c_write (a board with at least one I2C bus) */
extern const fw_toolset_t fw_builtin_i2c;
#endif

/* The standard lists, NULL-terminated, for fw_board_t.toolsets: every built-in this build has,
   without and with the I2C tools. In the mcpu-min profile the standard list is MCP/U's own:
   gpio, pwm and adc (pin_mode and system_info are there to be listed by a board that wants
   them). */
extern const fw_toolset_t *const fw_builtins[];
#if FW_WITH_I2C
extern const fw_toolset_t *const fw_builtins_i2c[];
#endif

#endif
