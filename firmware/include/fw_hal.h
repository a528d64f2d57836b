/* fw_hal.h: the hardware abstraction contract, the core's only way out to hardware. */
#ifndef FW_HAL_H
#define FW_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_err.h"

/* Electrical mode of a GPIO. */
typedef enum hal_pin_mode {
    HAL_PIN_INPUT = 0,
    HAL_PIN_INPUT_PULLUP,
    HAL_PIN_INPUT_PULLDOWN,
    HAL_PIN_OUTPUT
} hal_pin_mode_t;

/* Facts about the chip, filled by hal_api_t.device_info. Strings are owned by the port. */
typedef struct hal_device_info {
    const char *chip;      /* e.g. "ESP32-D0WD", "ATmega328P", "sim" */
    const char *unique_id; /* serial number / MAC as text, or "" */
    uint32_t cpu_mhz;      /* 0 when unknown */
    uint32_t ram_bytes;    /* total RAM, 0 when unknown */
    uint32_t flash_bytes;  /* total flash, 0 when unknown */
} hal_device_info_t;

/* One operation on an addressable LED strip (WS2812 "NeoPixel"), as ESP-IDF's led_strip driver
   does it: the driver keeps the pixel buffer and the global brightness; show sends the buffer,
   scaled by the brightness, to the strip. */
typedef enum hal_strip_kind {
    HAL_STRIP_SET = 0,    /* pixel index = r, g, b */
    HAL_STRIP_FILL,       /* every pixel = r, g, b */
    HAL_STRIP_BRIGHTNESS, /* global brightness = level (0..255) */
    HAL_STRIP_SHOW        /* send the buffer */
} hal_strip_kind_t;

typedef struct hal_strip_op {
    uint8_t kind; /* hal_strip_kind_t */
    uint8_t r, g, b, level;
    uint16_t index;
} hal_strip_op_t;

/*
 * A port provides one const hal_api_t and a context pointer; every function gets that pointer
 * first. Every function returning fw_err_t returns FW_OK or a negative FW_ERR_* (hardware errors:
 * FW_ERR_HW, FW_ERR_I2C_*, FW_ERR_ADC, FW_ERR_TIMEOUT). A member may be NULL when the hardware
 * lacks the feature; the core then answers FW_ERR_UNSUPPORTED. Pins are the board's pin numbers.
 */
typedef struct hal_api {
    /* Milliseconds since boot, monotonic, never wrapping (a 32-bit tick is extended by the port).
     */
    uint64_t (*now_ms)(void *ctx);
    fw_err_t (*gpio_mode)(void *ctx, uint16_t pin, hal_pin_mode_t mode);
    fw_err_t (*gpio_write)(void *ctx, uint16_t pin, bool level);
    /* Reads the level at the pin (for an output, the level it drives). */
    fw_err_t (*gpio_read)(void *ctx, uint16_t pin, bool *level);
    /* duty is 0..255 (8-bit, as analogWrite); freq_hz 0 means the port's default. */
    fw_err_t (*pwm_write)(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz);
    /* One conversion; *raw is in 0 .. 2^bits-1 of the board's ADC profile. */
    fw_err_t (*adc_read)(void *ctx, uint16_t pin, uint16_t *raw);
    /*
     * One I2C transaction on bus `bus` with 7-bit address `addr`: writes tx_len bytes (may be 0),
     * then, if rx_len > 0, a repeated start and reads rx_len bytes into rx. tx_len == 0 and
     * rx_len == 0 is an address probe. FW_ERR_I2C_NACK when the device does not acknowledge.
     */
    fw_err_t (*i2c_transfer)(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
                             uint8_t *rx, size_t rx_len);
    fw_err_t (*device_info)(void *ctx, hal_device_info_t *info);
    /* Reboots the chip (on the simulator: re-initialises the firmware). May not return. */
    void (*reset)(void *ctx);
    /* Fills out with len unpredictable bytes (a hardware RNG, e.g. esp_fill_random). MCP
       2026-07-28 keys the integrity of its input-required request states with them, once per
       boot; NULL: such states cannot be issued. */
    fw_err_t (*entropy)(void *ctx, uint8_t *out, size_t len);
    /* PWM with duty of 2^bits (1..20; ESP32 LEDC's resolution), for what 8 bits cannot say (a
       servo's pulse). NULL: the core scales duty to 8 bits for pwm_write. */
    fw_err_t (*pwm_write_res)(void *ctx, uint16_t pin, uint32_t duty, uint8_t bits,
                              uint32_t freq_hz);
    /* The LED strip on pin (see hal_strip_op_t); *count is set to its pixel count. FW_ERR_ARG
       for an index past the strip; FW_ERR_UNSUPPORTED when no strip is on the pin. */
    fw_err_t (*strip)(void *ctx, uint16_t pin, const hal_strip_op_t *op, uint16_t *count);
    /* One reading of a DHT11/DHT22-protocol sensor on pin: its 40-bit frame as sent (humidity
       and temperature, 16 bits each, big-endian, then the checksum byte). FW_ERR_TIMEOUT when
       the sensor does not answer. */
    fw_err_t (*dht_frame)(void *ctx, uint16_t pin, uint8_t frame[5]);
} hal_api_t;

#endif
