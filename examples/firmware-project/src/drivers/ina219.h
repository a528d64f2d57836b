/* ina219.h: driver for the TI INA219 current and power monitor (datasheet SBOS448): read_power. */
#ifndef TANK_INA219_H
#define TANK_INA219_H

#include <stdint.h>

#include "fw_driver.h"

/* Per chip, from the board: the shunt resistor the INA219 measures across, in milliohms. */
typedef struct ina219_config {
    uint16_t shunt_milliohm;
} ina219_config_t;

extern const fw_driver_t fw_driver_ina219;

#endif
