/* apps.h: the application tools defined in apps/; a board enables them by name (the board
   file's app_tools) or by pointer (fw_board_t.app_tools: &fw_app_<name>). */
#ifndef APPS_H
#define APPS_H

#include "fw_tool.h"

/* demo.c: the esp32-demo's capacitive touch pad on GPIO4. */
extern const fw_tool_t fw_app_read_touch, fw_app_calibrate_touch;

#if FW_WITH_MCP && FW_WITH_I2C
/* voice.c: the voice-assistant board's self.* tools (seed 003); the last two are user-only. */
extern const fw_tool_t fw_app_self_get_device_status, fw_app_self_audio_speaker_set_volume,
    fw_app_self_screen_set_brightness, fw_app_self_get_system_info, fw_app_self_screen_get_info;

/* The codec's DAC volume register for a volume 0..100, and back (exact round trip). */
uint8_t voice_volume_to_reg(unsigned volume);
unsigned voice_reg_to_volume(uint8_t reg);
#endif

/* The application tool named name (the catalog of every tool above), or NULL. */
const fw_tool_t *fw_app_tool_find(const char *name);

#endif
