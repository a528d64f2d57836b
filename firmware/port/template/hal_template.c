/* hal_template.c: the reference port: every HAL function stubbed, saying what a real one does. */
#include <string.h>

#include "hal_template.h"

/*
 * How to read this file: each function states the contract a real port fulfils (the HAL's spec
 * in code) and what the template does instead. The template touches no hardware: GPIO and PWM
 * act on a shadow in the context, the ADC answers a fixed mid-scale value, and I2C is
 * FW_ERR_UNSUPPORTED. It compiles and runs anywhere, so it is what the cross-compile links.
 */

void hal_template_init(hal_template_t *hal)
{
    memset(hal, 0, sizeof *hal);
    /* A real port: clock tree, GPIO and peripheral clocks, the 1 kHz SysTick (reload =
       core_clock / 1000 - 1, enable with interrupt), the UART at 115200 8N1. */
}

void hal_template_tick(hal_template_t *hal)
{
    hal->tick_ms++;
}

/* Milliseconds since boot, never wrapping: the 32-bit tick is extended with a wrap count. A
   real port does the same (it must be called at least once per 49 days; the main loop does). */
static uint64_t now_ms(void *ctx)
{
    hal_template_t *hal = ctx;
    uint32_t t = hal->tick_ms; /* one 32-bit load: atomic against the interrupt on a Cortex-M */
    if (t < hal->last_tick) hal->tick_high += (uint64_t)1 << 32;
    hal->last_tick = t;
    return hal->tick_high | t;
}

static bool pin_ok(uint16_t pin)
{
    return pin < HAL_TEMPLATE_PINS;
}

/* A real port sets the pin's direction and pull resistors (e.g. GPIO MODER/PUPDR, or
   pinMode()). FW_ERR_HW for a pin the chip does not have. */
static fw_err_t gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    hal_template_t *hal = ctx;
    if (!pin_ok(pin)) return FW_ERR_HW;
    hal->mode[pin] = (uint8_t)mode;
    if (mode == HAL_PIN_INPUT_PULLUP) hal->level[pin] = 1;
    if (mode == HAL_PIN_INPUT_PULLDOWN) hal->level[pin] = 0;
    return FW_OK;
}

/* A real port writes the output data register (set/reset register, digitalWrite()). */
static fw_err_t gpio_write(void *ctx, uint16_t pin, bool level)
{
    hal_template_t *hal = ctx;
    if (!pin_ok(pin)) return FW_ERR_HW;
    hal->level[pin] = level ? 1 : 0;
    return FW_OK;
}

/* A real port reads the input data register, which for an output shows the driven level. The
   template returns the shadow: what was written, or the pull's level for an input. */
static fw_err_t gpio_read(void *ctx, uint16_t pin, bool *level)
{
    hal_template_t *hal = ctx;
    if (!pin_ok(pin)) return FW_ERR_HW;
    *level = hal->level[pin] != 0;
    return FW_OK;
}

/* A real port routes the pin to a timer channel and sets its compare value to duty/255 of the
   period (freq_hz, or its default such as 5 kHz when 0), as analogWrite() does. */
static fw_err_t pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    hal_template_t *hal = ctx;
    (void)freq_hz;
    if (!pin_ok(pin)) return FW_ERR_HW;
    hal->duty[pin] = duty;
    return FW_OK;
}

/* A real port selects the pin's ADC channel, starts one conversion, waits for end of
   conversion (FW_ERR_ADC or FW_ERR_TIMEOUT if it never comes) and returns the count. The
   template answers mid-scale of a 12-bit converter (2048, 1.65 V at 3.3 V) for every pin. */
static fw_err_t adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    (void)ctx;
    if (!pin_ok(pin)) return FW_ERR_HW;
    *raw = 2048;
    return FW_OK;
}

/* A real port runs START, address+W, tx bytes, and if rx_len > 0 a repeated START, address+R,
   rx bytes (NACK on the last), STOP. An address or data NACK is FW_ERR_I2C_NACK, a stuck line or
   lost arbitration FW_ERR_I2C_BUS, no progress within a few ms FW_ERR_I2C_TIMEOUT; tx_len and
   rx_len both 0 is an address probe (START, address+W, STOP). The template has no I2C bus. */
static fw_err_t i2c_transfer(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
                             uint8_t *rx, size_t rx_len)
{
    (void)ctx, (void)bus, (void)addr, (void)tx, (void)tx_len, (void)rx, (void)rx_len;
    return FW_ERR_UNSUPPORTED;
}

/* A real port names its chip and reads its unique ID (e.g. the 96-bit UID registers or the
   eFuse MAC) into a buffer in its context; strings must stay valid while the port runs. */
static fw_err_t device_info(void *ctx, hal_device_info_t *info)
{
    (void)ctx;
    info->chip = "template";
    info->unique_id = "";
    info->cpu_mhz = 0;
    info->ram_bytes = 0;
    info->flash_bytes = 0;
    return FW_OK;
}

/* A real port requests a system reset (NVIC_SystemReset(): AIRCR = 0x05FA0004 after a DSB)
   and does not return. The template returns, as if the reset were refused. */
static void reset(void *ctx)
{
    (void)ctx;
}

const hal_api_t hal_template_api = {
    .now_ms = now_ms,
    .gpio_mode = gpio_mode,
    .gpio_write = gpio_write,
    .gpio_read = gpio_read,
    .pwm_write = pwm_write,
    .adc_read = adc_read,
    .i2c_transfer = i2c_transfer,
    .device_info = device_info,
    .reset = reset,
};
