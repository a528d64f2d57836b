/* fw_driver.h: the driver API: chips a board carries, their drivers and tools, and the I2C call
   helpers a driver's tools use. Everything a chip author needs; no core-private header. */
#ifndef FW_DRIVER_H
#define FW_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_config.h"
#include "fw_err.h"
#include "fw_tool.h"

struct fw_device;
struct fw_chip;

/*
 * A driver is a descriptor, defined by the chip's own source file and referenced by the boards
 * that carry the chip (the core lists none). Its tools are registered once per device, however
 * many of its chips the board carries; a tool finds the chip a call means with fw_device_chip.
 * probe (may be NULL) checks one chip's configuration when the device starts: the opaque
 * `config` of fw_chip_t is the driver's own struct (e.g. fw_at24c_config_t), the HAL is usable.
 * It returns FW_OK, FW_ERR_ARG for a configuration the driver cannot serve (the device does not
 * start), or a hardware error (the chip is absent: logged, the device starts anyway).
 */
typedef struct fw_driver {
    const char *name; /* the chip family, e.g. "tmp102"; also the board file's "model" */
    const fw_tool_t *tools;
    uint8_t tool_count;
    fw_err_t (*probe)(struct fw_device *dev, const struct fw_chip *chip);
} fw_driver_t;

/* A chip on one of the board's I2C buses, bound to its driver. */
typedef struct fw_chip {
    const fw_driver_t *driver;
    uint8_t bus;
    uint8_t addr;       /* 7-bit */
    const void *config; /* the driver's per-chip configuration, or NULL for its defaults */
} fw_chip_t;

/* The board's first chip driven by `driver`, or the one at addr when addr >= 0; NULL when none
   matches. */
const fw_chip_t *fw_device_chip(const struct fw_device *dev, const fw_driver_t *driver, int addr);

/* Number of I2C buses the board has (0: none). */
uint8_t fw_device_i2c_buses(const struct fw_device *dev);

/* ---------------------------------------------------------------- I2C for tool calls */

/*
 * One I2C transaction on bus `bus` with 7-bit address addr (see hal_api_t.i2c_transfer): writes
 * tx_len bytes, then reads rx_len after a repeated start; both 0 is an address probe.
 * FW_ERR_UNSUPPORTED when the port has no I2C.
 */
fw_err_t fw_i2c_transfer(const struct fw_device *dev, uint8_t bus, uint8_t addr, const uint8_t *tx,
                         size_t tx_len, uint8_t *rx, size_t rx_len);

/* Words a tool call's error message for an I2C failure, naming `what` ("i2c device",
   "tmp102", "eeprom"), the address and the bus ("no acknowledge from tmp102 0x48 on bus 0"),
   and returns err. */
fw_err_t fw_i2c_call_error(fw_call_t *call, fw_err_t err, const char *what, uint8_t bus,
                           uint8_t addr);

/* fw_i2c_transfer for a tool call; a failure is worded by fw_i2c_call_error. */
fw_err_t fw_i2c_call_xfer(fw_call_t *call, const char *what, uint8_t bus, uint8_t addr,
                          const uint8_t *tx, size_t tx_len, uint8_t *rx, size_t rx_len);

#endif
