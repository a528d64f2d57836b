/* apps.h: the application tools defined in apps/, which apps.c's catalog enables by name. */
#ifndef APPS_H
#define APPS_H

#include "fw_tool.h"

/* demo.c: the esp32-demo's capacitive touch pad on GPIO4. */
extern const fw_tool_t fw_app_read_touch, fw_app_calibrate_touch;

#endif
