/* mock_hal.h: a scriptable HAL for the core's unit tests (and the base of the template port). */
#ifndef MOCK_HAL_H
#define MOCK_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_hal.h"

#define MOCK_PINS 64
#define MOCK_I2C_DEVS 4
#define MOCK_I2C_MEM 1024

/* A memory-like I2C device: the first addr_bytes written set the pointer, further written bytes
   are stored (wrapping inside a page of page_bytes when page_bytes > 0), reads return bytes from
   the pointer onwards. Covers register-mapped sensors (TMP102) and EEPROMs (AT24C). */
typedef struct mock_i2c_dev {
    bool present;
    uint8_t bus, addr;
    uint8_t addr_bytes; /* 1 or 2 */
    uint32_t size;      /* bytes of mem used (<= MOCK_I2C_MEM) */
    uint16_t page_bytes;
    uint32_t ptr;
    uint8_t mem[MOCK_I2C_MEM];
    fw_err_t fail; /* when not FW_OK, every transfer fails with it */
    unsigned transfers;
} mock_i2c_dev_t;

typedef struct mock_pin {
    hal_pin_mode_t mode;
    bool level;
    uint8_t duty;
    uint32_t freq_hz;
    uint16_t adc;
    fw_err_t adc_fail; /* when not FW_OK, adc_read fails with it */
    unsigned writes, reads, adc_reads;
} mock_pin_t;

typedef struct mock_hal {
    uint64_t now;
    unsigned entropy_calls; /* key draws (MCP request states) */
    mock_pin_t pins[MOCK_PINS];
    mock_i2c_dev_t i2c[MOCK_I2C_DEVS];
    fw_err_t gpio_fail; /* when not FW_OK, gpio functions fail with it */
    unsigned resets;
} mock_hal_t;

extern const hal_api_t mock_hal_api;

/* Zeroes m (time 0, all pins input low, no I2C devices). */
void mock_hal_init(mock_hal_t *m);

/* Adds an I2C device and returns it (NULL when all slots are used). */
mock_i2c_dev_t *mock_hal_add_i2c(mock_hal_t *m, uint8_t bus, uint8_t addr, uint8_t addr_bytes,
                                 uint32_t size, uint16_t page_bytes);

#endif
