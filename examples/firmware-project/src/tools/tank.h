/* tank.h: the tank monitor's application tools; a board enables them by name (app_tools). */
#ifndef TANK_TOOLS_H
#define TANK_TOOLS_H

#include "fw_tool.h"

/* tank_level: the water level from the pressure sensor on an ADC pin, in percent. */
extern const fw_tool_t fw_app_tank_level;

#endif
