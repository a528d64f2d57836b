/* hal_lm3s6965.c: the HAL on a Stellaris LM3S6965 (the lm3s6965evb board, real or in QEMU). */
#include <stddef.h>
#include <stdint.h>

#include "hal_lm3s6965.h"
#include "lm3s6965.h"

/*
 * What this HAL does, and what it answers FW_ERR_UNSUPPORTED for (README.md has the why):
 * - clock: the PLL from the 8 MHz crystal, 50 MHz; SysTick from the processor clock, 1 kHz.
 * - GPIO: ports A..G through their clock gate (RCGC2), GPIODIR, GPIODEN, GPIOPUR/GPIOPDR and the
 *   masked GPIODATA window; pins that carry the UART (PA0/PA1) or JTAG (PB7, PC0..PC3) and pins
 *   the 100-pin package does not have are refused with FW_ERR_HW.
 * - PWM, ADC, I2C: NULL in the table, so the core answers FW_ERR_UNSUPPORTED. QEMU has no PWM
 *   module; its ADC returns an arbitrary 0x200 + noise whatever the input, and only on a timer
 *   trigger; its I2C master is modelled but nothing sits on this board's bus.
 * - device_info: "LM3S6965", 50 MHz, RAM and flash sizes read from DC0, the MAC in USER0/USER1.
 * - reset: SYSRESETREQ in AIRCR (QEMU resets the whole machine, as the chip does).
 */

/* ---------------------------------------------------------------- clock and tick */

#ifndef LM3S_TICK_MS
#define LM3S_TICK_MS 1u
#endif

/* A short busy wait (some microseconds), for oscillators and clock gates to settle. */
static void spin(uint32_t n)
{
    for (volatile uint32_t i = 0; i < n; i++) {
    }
}

/* The data sheet's sequence (section 6.3, "Initialization and Configuration"): run from the
   oscillator with the PLL bypassed, start the main oscillator and the PLL for the 8 MHz
   crystal, set the divider, wait for the PLL to lock, then switch over. */
static void clock_init(void)
{
    uint32_t rcc = SYSCTL_RCC;
    rcc |= RCC_BYPASS;
    rcc &= ~RCC_USESYSDIV;
    SYSCTL_RCC = rcc;

    rcc &= ~RCC_MOSCDIS; /* main oscillator on */
    SYSCTL_RCC = rcc;
    spin(10000);

    SYSCTL_MISC = SYSCTL_RIS_PLLLRIS; /* clear a stale lock flag */
    rcc &= ~(RCC_XTAL_MASK | RCC_OSCSRC_MASK | RCC_PWRDN | RCC_OEN);
    rcc |= RCC_XTAL_8MHZ | RCC_OSCSRC_MAIN;
    SYSCTL_RCC = rcc;

    rcc &= ~RCC_SYSDIV_MASK;
    rcc |= RCC_SYSDIV(4) | RCC_USESYSDIV;
    SYSCTL_RCC = rcc;

    /* The PLL locks within 0.5 ms; give up after far longer (the chip then keeps running from
       the crystal, and the tick runs slow: nothing better can be done without a clock). */
    for (uint32_t i = 0; i < 1000000u && (SYSCTL_RIS & SYSCTL_RIS_PLLLRIS) == 0; i++) {
    }
    rcc &= ~RCC_BYPASS;
    SYSCTL_RCC = rcc;
}

void hal_lm3s6965_gpio_clock(unsigned port)
{
    uint32_t bit = 1u << port;
    if ((SYSCTL_RCGC2 & bit) == 0) {
        SYSCTL_RCGC2 |= bit;
        (void)SYSCTL_RCGC2; /* the data sheet wants 3 clocks before the port is touched */
        spin(4);
    }
}

/* Two hex digits of b into out[0..1]. */
static void hex2(char *out, uint32_t b)
{
    static const char digits[] = "0123456789abcdef";
    out[0] = digits[(b >> 4) & 0xF];
    out[1] = digits[b & 0xF];
}

void hal_lm3s6965_init(hal_lm3s6965_t *hal)
{
    hal->tick_ms = 0;
    hal->last_tick = 0;
    hal->tick_high = 0;

    clock_init();

    /* The MAC address the factory programs into USER0/USER1 (QEMU: the NIC's, by default
       52:54:00:12:34:56); erased registers (all ones) mean none. */
    uint32_t u0 = SYSCTL_USER0, u1 = SYSCTL_USER1;
    hal->mac[0] = 0;
    if (u0 != 0xFFFFFFFFu && u1 != 0xFFFFFFFFu) {
        const uint32_t bytes[6] = {u0 & 0xFF, (u0 >> 8) & 0xFF, (u0 >> 16) & 0xFF,
                                   u1 & 0xFF, (u1 >> 8) & 0xFF, (u1 >> 16) & 0xFF};
        for (size_t i = 0; i < 6; i++) {
            hex2(&hal->mac[i * 3], bytes[i]);
            hal->mac[i * 3 + 2] = i < 5 ? ':' : 0;
        }
    }

    /* SysTick from the processor clock: reload = 50 MHz / 1 kHz - 1. */
    SYST_RVR = LM3S_SYSCLK_HZ / 1000u * LM3S_TICK_MS - 1u;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
}

void hal_lm3s6965_tick(hal_lm3s6965_t *hal)
{
    hal->tick_ms += LM3S_TICK_MS;
}

/* Milliseconds since boot, never wrapping: the 32-bit tick extended with a wrap count (called
   from the main loop only, at least once per 49 days). */
static uint64_t now_ms(void *ctx)
{
    hal_lm3s6965_t *hal = ctx;
    uint32_t t = hal->tick_ms; /* one 32-bit load: atomic against the interrupt */
    if (t < hal->last_tick) hal->tick_high += (uint64_t)1 << 32;
    hal->last_tick = t;
    return hal->tick_high | t;
}

/* ---------------------------------------------------------------- GPIO */

static const uint32_t port_base[7] = {GPIO_PORTA_BASE, GPIO_PORTB_BASE, GPIO_PORTC_BASE,
                                      GPIO_PORTD_BASE, GPIO_PORTE_BASE, GPIO_PORTF_BASE,
                                      GPIO_PORTG_BASE};

/* The bits of each port a tool may drive: those the 100-pin LQFP has (PE0..3, PF0..3, PG0..1),
   less PA0/PA1 (UART0, the MCP/U link) and PB7, PC0..PC3 (JTAG). */
static const uint8_t port_usable[7] = {0xFC, 0x7F, 0xF0, 0xFF, 0x0F, 0x0F, 0x03};

/* The EVB's navigation switches (PE0..PE3) and select switch (PF1) short to ground with no
   resistor on the board: as input they need the chip's weak pull-up, which is what StellarisWare
   configures for them, so plain `input` keeps it there. */
static const uint8_t port_board_pullup[7] = {0, 0, 0, 0, 0x0F, 0x02, 0};

static bool pin_lookup(uint16_t pin, unsigned *port, uint32_t *mask)
{
    unsigned p = pin / 8u;
    if (p >= 7) return false;
    uint32_t m = 1u << (pin % 8u);
    if ((port_usable[p] & m) == 0) return false;
    *port = p;
    *mask = m;
    return true;
}

static fw_err_t gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    unsigned port;
    uint32_t m;
    (void)ctx;
    if (!pin_lookup(pin, &port, &m)) return FW_ERR_HW;
    uint32_t base = port_base[port];
    hal_lm3s6965_gpio_clock(port);
    GPIO_AFSEL(base) &= ~m;
    bool up = mode == HAL_PIN_INPUT_PULLUP ||
              (mode == HAL_PIN_INPUT && (port_board_pullup[port] & m) != 0);
    bool down = mode == HAL_PIN_INPUT_PULLDOWN;
    /* Setting a bit in one of PUR/PDR clears it in the other; write the one that is set last. */
    if (up) {
        GPIO_PDR(base) &= ~m;
        GPIO_PUR(base) |= m;
    } else if (down) {
        GPIO_PUR(base) &= ~m;
        GPIO_PDR(base) |= m;
    } else {
        GPIO_PUR(base) &= ~m;
        GPIO_PDR(base) &= ~m;
    }
    if (mode == HAL_PIN_OUTPUT) {
        GPIO_DIR(base) |= m;
    } else {
        GPIO_DIR(base) &= ~m;
    }
    GPIO_DEN(base) |= m;
    return FW_OK;
}

static fw_err_t gpio_write(void *ctx, uint16_t pin, bool level)
{
    unsigned port;
    uint32_t m;
    (void)ctx;
    if (!pin_lookup(pin, &port, &m)) return FW_ERR_HW;
    GPIO_DATA(port_base[port], m) = level ? 0xFFu : 0u;
    return FW_OK;
}

/* GPIODATA reads the pin for an input and the driven level for an output. */
static fw_err_t gpio_read(void *ctx, uint16_t pin, bool *level)
{
    unsigned port;
    uint32_t m;
    (void)ctx;
    if (!pin_lookup(pin, &port, &m)) return FW_ERR_HW;
    *level = GPIO_DATA(port_base[port], m) != 0;
    return FW_OK;
}

/* ---------------------------------------------------------------- chip facts and reset */

static fw_err_t device_info(void *ctx, hal_device_info_t *info)
{
    hal_lm3s6965_t *hal = ctx;
    uint32_t dc0 = SYSCTL_DC0;
    info->chip = "LM3S6965";
    info->unique_id = hal->mac;
    info->cpu_mhz = LM3S_SYSCLK_HZ / 1000000u;
    info->ram_bytes = ((dc0 >> 16) + 1u) * 256u;         /* 0xFF: 64 KB */
    info->flash_bytes = ((dc0 & 0xFFFFu) + 1u) * 2048u;  /* 0x7F: 256 KB */
    return FW_OK;
}

/* Waits (bounded) until the UART has sent its last byte, so that an answer written before the
   reset is not cut, then requests the reset and waits for it. */
static void reset(void *ctx)
{
    (void)ctx;
    for (uint32_t i = 0; i < 1000000u && (UART0_FR & UART_FR_BUSY) != 0; i++) {
    }
    __asm__ volatile("dsb" ::: "memory");
    SCB_AIRCR = SCB_AIRCR_SYSRESETREQ;
    __asm__ volatile("dsb" ::: "memory");
    for (;;) {
    }
}

const hal_api_t hal_lm3s6965_api = {
    .now_ms = now_ms,
    .gpio_mode = gpio_mode,
    .gpio_write = gpio_write,
    .gpio_read = gpio_read,
    .pwm_write = NULL,
    .adc_read = NULL,
    .i2c_transfer = NULL,
    .device_info = device_info,
    .reset = reset,
};
