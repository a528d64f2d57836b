/* at24c.h: the AT24C-family I2C EEPROM driver (tools eeprom_read, eeprom_write) and the
   per-chip configuration a board gives it (fw_chip_t.config). */
#ifndef FW_DRIVER_AT24C_H
#define FW_DRIVER_AT24C_H

#include <stdint.h>

#include "fw_driver.h"

typedef struct fw_at24c_config {
    uint32_t size_bytes; /* capacity: 128 .. 262144, a power of two (256 for a 24C02) */
    uint16_t page_bytes; /* write page (8 .. 256); 0: the family member's usual page */
} fw_at24c_config_t;

/* A chip whose config is NULL is taken as a 24C32 (4096 bytes, 32-byte pages). */
extern const fw_driver_t fw_driver_at24c;

#endif
