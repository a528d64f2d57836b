/* tmp102.h: the TI TMP102 temperature sensor driver (tool read_temperature); no configuration. */
#ifndef FW_DRIVER_TMP102_H
#define FW_DRIVER_TMP102_H

#include "fw_driver.h"

extern const fw_driver_t fw_driver_tmp102;

#endif
