/* mcpsim_arduino.c: the HAL of the mcpsim core on the Arduino API, and the one device instance.
   Compiled only by an Arduino build (ARDUINO defined); empty elsewhere (ESP-IDF without it). */
#include "mcpsim_arduino.h"

typedef int mcpsim_arduino_unit_not_empty_t; /* ISO C wants something in every unit */

#ifdef ARDUINO
#include <Arduino.h>

#include "fw_device.h"

static fw_device_t device;
static fw_framer_t framer;
static mcpsim_write_fn writer;
static uint32_t last_ms, wraps; /* millis() is 32-bit: extended to 64 */

static uint64_t now_ms(void *ctx)
{
    uint32_t now = millis();
    (void)ctx;
    if (now < last_ms) wraps++;
    last_ms = now;
    return ((uint64_t)wraps << 32) | now;
}

static fw_err_t gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    (void)ctx;
    switch (mode) {
    case HAL_PIN_OUTPUT: pinMode(pin, OUTPUT); return FW_OK;
    case HAL_PIN_INPUT_PULLUP: pinMode(pin, INPUT_PULLUP); return FW_OK;
    case HAL_PIN_INPUT: pinMode(pin, INPUT); return FW_OK;
    default: return FW_ERR_UNSUPPORTED; /* the AVR has no pull-downs */
    }
}

static fw_err_t gpio_write(void *ctx, uint16_t pin, bool level)
{
    (void)ctx;
    digitalWrite(pin, level ? HIGH : LOW);
    return FW_OK;
}

static fw_err_t gpio_read(void *ctx, uint16_t pin, bool *level)
{
    (void)ctx;
    *level = digitalRead(pin) == HIGH;
    return FW_OK;
}

/* analogWrite's frequency is the timer's: only "the default" is served. */
static fw_err_t pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    (void)ctx;
    if (freq_hz != 0) return FW_ERR_UNSUPPORTED;
    analogWrite(pin, duty);
    return FW_OK;
}

static fw_err_t adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    (void)ctx;
    *raw = (uint16_t)analogRead(pin);
    return FW_OK;
}

static fw_err_t device_info(void *ctx, hal_device_info_t *info)
{
    (void)ctx;
#if defined(ARDUINO_ARCH_AVR)
    info->chip = "ATmega328P";
    info->ram_bytes = 2048;
    info->flash_bytes = 32768;
#else
    info->chip = "arduino";
#endif
    info->unique_id = "";
    info->cpu_mhz = (uint32_t)(F_CPU / 1000000UL);
    return FW_OK;
}

/* No I2C here: Wire is C++ (a port that needs chips adds i2c_transfer in a .cpp of its own). */
static const hal_api_t arduino_hal = {
    .now_ms = now_ms,
    .gpio_mode = gpio_mode,
    .gpio_write = gpio_write,
    .gpio_read = gpio_read,
    .pwm_write = pwm_write,
    .adc_read = adc_read,
    .device_info = device_info,
};

static void sink_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    writer(data, len);
}

int mcpsim_begin(const struct fw_board *board, mcpsim_write_fn write)
{
    writer = write;
    fw_framer_init(&framer);
    return fw_device_init(&device, board, &arduino_hal, NULL);
}

void mcpsim_feed(const uint8_t *data, size_t len)
{
    const fw_sink_t out = {sink_write, NULL};
    fw_device_feed(&device, &framer, data, len, out);
}

void mcpsim_poll(void)
{
    fw_device_poll(&device);
}
#endif
