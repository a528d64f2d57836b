/* hal_lm3s6965.h: the LM3S6965 port's HAL state and entry points (see hal_lm3s6965.c). */
#ifndef HAL_LM3S6965_H
#define HAL_LM3S6965_H

#include <stdint.h>

#include "fw_hal.h"

/* Board pin numbers: port * 8 + bit, ports A..G = 0..6 (PF0 = 40, PF1 = 41, PE0 = 32). */
#define HAL_LM3S_PIN(port, bit) ((uint16_t)((port) * 8u + (bit)))

/* The port's context (hal_api_t's ctx): all its mutable state, owned by main.c. */
typedef struct hal_lm3s6965 {
    volatile uint32_t tick_ms; /* counted up by SysTick_Handler, 1 kHz */
    uint32_t last_tick;        /* now_ms's view of tick_ms, to notice its wrap */
    uint64_t tick_high;        /* the upper 32 bits now_ms adds */
    char mac[18];              /* "52:54:00:12:34:56" from USER0/USER1, device_info's unique_id */
} hal_lm3s6965_t;

extern const hal_api_t hal_lm3s6965_api;

/* Runs the chip at 50 MHz from the PLL, starts the 1 kHz SysTick and fills the context. The
   UART is main.c's (it owns the receive ring). */
void hal_lm3s6965_init(hal_lm3s6965_t *hal);

/* The 1 kHz SysTick interrupt's work (SysTick_Handler calls it). */
void hal_lm3s6965_tick(hal_lm3s6965_t *hal);

/* Enables the clock of GPIO port `port` (0..6) and waits until it runs. */
void hal_lm3s6965_gpio_clock(unsigned port);

#endif
