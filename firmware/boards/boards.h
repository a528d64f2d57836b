/* boards.h: the boards compiled into the firmware as const data (a port picks one at start). */
#ifndef BOARDS_H
#define BOARDS_H

#include "fw_device.h"

/* The MCP/U reference device: LED on 2, analog sensor on 34, PWM LED on 18, touch pad T0. */
extern const fw_board_t fw_board_esp32_demo;

/* A minimal greenhouse controller with an I2C bus: TMP102 at 0x48, 24C32 EEPROM at 0x50. */
extern const fw_board_t fw_board_greenhouse_min;

#endif
