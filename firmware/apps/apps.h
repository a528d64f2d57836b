/* apps.h: the application tools defined in apps/; a board enables them by name (the board
   file's app_tools) or by pointer (fw_board_t.app_tools: &fw_app_<name>). */
#ifndef APPS_H
#define APPS_H

#include "fw_task.h"
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

#if FW_WITH_MCP && FW_WITH_I2C && FW_WITH_FLOAT
/* mcpd.c: mcpd's tool vocabulary (seed 002) for the mcpd-esp32 board. */
extern const fw_tool_t fw_app_pin_mode, fw_app_digital_read, fw_app_digital_write,
    fw_app_analog_read, fw_app_pwm_write, fw_app_pwm_stop, fw_app_servo_write, fw_app_servo_detach,
    fw_app_neopixel_set, fw_app_neopixel_fill, fw_app_neopixel_clear, fw_app_neopixel_brightness,
    fw_app_dht_read, fw_app_i2c_scan, fw_app_i2c_read, fw_app_i2c_write, fw_app_system_info;

/* A DHT22 frame's humidity and temperature in tenths (% and degrees C); false on a bad
   checksum. */
bool mcpd_dht_decode(const uint8_t f[5], int *humidity_x10, int *temp_x10);
#if FW_WITH_TASKS
/* firmware_update: an OTA update that runs as an MCP task (taskSupport required). */
extern const fw_tool_t fw_app_firmware_update;
extern const fw_task_tool_t fw_app_firmware_update_task;
#endif
#endif

/* The task registration (step) of an application tool that runs as an MCP task, or NULL. A
   port registers it with fw_device_add_task_tool after fw_device_init. */
const fw_task_tool_t *fw_app_task_tool_find(const fw_tool_t *tool);

/* The application tool named name (the catalog of every tool above), or NULL. */
const fw_tool_t *fw_app_tool_find(const char *name);

#endif
