/* hal_template.h: the reference port's HAL state and entry points (see hal_template.c). */
#ifndef HAL_TEMPLATE_H
#define HAL_TEMPLATE_H

#include <stdint.h>

#include "fw_hal.h"

/* GPIO numbers the template keeps a shadow for (0 .. HAL_TEMPLATE_PINS-1, as an ESP32's). */
#define HAL_TEMPLATE_PINS 40

/* The port's context (hal_api_t's ctx): all its mutable state, owned by main.c. */
typedef struct hal_template {
    volatile uint32_t tick_ms;        /* counted up by the 1 kHz timer interrupt */
    uint32_t last_tick;               /* now_ms's view of tick_ms, to notice its wrap */
    uint64_t tick_high;               /* the upper 32 bits now_ms adds */
    uint8_t mode[HAL_TEMPLATE_PINS];  /* hal_pin_mode_t */
    uint8_t level[HAL_TEMPLATE_PINS]; /* the level an output drives */
    uint8_t duty[HAL_TEMPLATE_PINS];
} hal_template_t;

extern const hal_api_t hal_template_api;

/* Prepares the context; a real port also starts its clocks, the 1 kHz tick and the UART. */
void hal_template_init(hal_template_t *hal);

/* The 1 kHz timer interrupt's work (call it from SysTick_Handler). */
void hal_template_tick(hal_template_t *hal);

#endif
