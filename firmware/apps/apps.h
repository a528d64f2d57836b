/* apps.h: the application tools defined in apps/; a board enables them by name (the board
   file's app_tools) or by pointer (fw_board_t.app_tools: &fw_app_<name>). */
#ifndef APPS_H
#define APPS_H

#include "fw_tool.h"

/* demo.c: the esp32-demo's capacitive touch pad on GPIO4. */
extern const fw_tool_t fw_app_read_touch, fw_app_calibrate_touch;

/* The application tool named name (the catalog of every tool above), or NULL. */
const fw_tool_t *fw_app_tool_find(const char *name);

#endif
