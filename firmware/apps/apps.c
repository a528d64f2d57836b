/* apps.c: the catalog of application tools a board can enable by name (fw_app_tool_find). */
#include <string.h>

#include "apps.h"

/* Every application tool, once; a board's app_tools names pick from it. */
static const fw_tool_t *const catalog[] = {
    &fw_app_read_touch,
    &fw_app_calibrate_touch,
#if FW_WITH_MCP && FW_WITH_I2C
    &fw_app_self_get_device_status,
    &fw_app_self_audio_speaker_set_volume,
    &fw_app_self_screen_set_brightness,
    &fw_app_self_get_system_info,
    &fw_app_self_screen_get_info,
#endif
#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT
    &fw_app_pin_mode,
    &fw_app_digital_read,
    &fw_app_digital_write,
    &fw_app_analog_read,
    &fw_app_pwm_write,
    &fw_app_pwm_stop,
    &fw_app_servo_write,
    &fw_app_servo_detach,
    &fw_app_neopixel_set,
    &fw_app_neopixel_fill,
    &fw_app_neopixel_clear,
    &fw_app_neopixel_brightness,
    &fw_app_dht_read,
    &fw_app_i2c_scan,
    &fw_app_i2c_read,
    &fw_app_i2c_write,
    &fw_app_system_info,
#if FW_WITH_TASKS
    &fw_app_firmware_update,
#endif
#endif
};

const fw_task_tool_t *fw_app_task_tool_find(const fw_tool_t *tool)
{
#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT && FW_WITH_TASKS
    if (tool == &fw_app_firmware_update) return &fw_app_firmware_update_task;
#endif
    (void)tool;
    return NULL;
}

const fw_tool_t *fw_app_tool_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < FW_ARRAY_LEN(catalog); i++)
        if (strcmp(catalog[i]->name, name) == 0) return catalog[i];
    return NULL;
}
