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
};

const fw_tool_t *fw_app_tool_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < FW_ARRAY_LEN(catalog); i++)
        if (strcmp(catalog[i]->name, name) == 0) return catalog[i];
    return NULL;
}
