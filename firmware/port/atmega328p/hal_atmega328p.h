/* hal_atmega328p.h: the ATmega328P port's HAL (Arduino Uno pin numbering; see README.md). */
#ifndef HAL_ATMEGA328P_H
#define HAL_ATMEGA328P_H

#include <stdint.h>

#include "fw_hal.h"

#define HAL_AVR_F_CPU 16000000UL

/* The port's context (hal_api_t's ctx): now_ms's extension of the 32-bit tick. The tick itself
   and the receive ring are the interrupts' state, in hal_atmega328p.c. */
typedef struct hal_atmega328p {
    uint32_t last_tick;
    uint32_t tick_high; /* wraps of the 32-bit tick seen (the upper 32 bits of now_ms) */
} hal_atmega328p_t;

extern const hal_api_t hal_atmega328p_api;

/* Clocks, the 1 ms tick (Timer0), the PWM timers (1, 2), the ADC and USART0 at 115200 baud;
   interrupts enabled. */
void hal_atmega328p_init(hal_atmega328p_t *hal);

/* USART0: the bytes received so far (at most cap, without blocking), and one byte sent
   (polling the data register: the receive interrupt keeps filling the ring meanwhile). */
uint8_t hal_atmega328p_uart_read(uint8_t *buf, uint8_t cap);
void hal_atmega328p_uart_put(uint8_t byte);

/* Sleeps (idle mode) until an interrupt when no received byte is waiting. */
void hal_atmega328p_idle(void);

#endif
