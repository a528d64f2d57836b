/* main.c: the ATmega328P port's main loop: USART0 bytes into one device instance, replies back
   on the same line, one JSON-RPC message per line (MCP/U). */
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"
#include "hal_atmega328p.h"

#if !defined(FW_PORT_BOARD_HEADER) || !defined(FW_PORT_BOARD)
#error "FW_PORT_BOARD_HEADER and FW_PORT_BOARD name the board (port.cmake)"
#endif
#include FW_PORT_BOARD_HEADER

/* simavr's description of the chip, in the .mmcu section it reads from the ELF (the layout of
   simavr's avr_mcu_section.h: a tag, a length, the value). The section is linked far outside
   flash and is not part of the image (port.cmake). */
struct mmcu_string {
    uint8_t tag, len;
    char text[64];
} __attribute__((__packed__));
struct mmcu_long {
    uint8_t tag, len;
    uint32_t value;
} __attribute__((__packed__));
#define MMCU __attribute__((section(".mmcu"), used))
const struct mmcu_string fw_mmcu_name MMCU = {1 /* NAME */, 64, "atmega328p"};
const struct mmcu_long fw_mmcu_frequency MMCU = {2 /* FREQUENCY */, 4, HAL_AVR_F_CPU};

/* The device instance, the HAL's context and the line being received: the firmware's state,
   static (the stack has a few hundred bytes). */
static fw_device_t device;
static hal_atmega328p_t hal;
static fw_framer_t uart_framer;

static void uart_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) hal_atmega328p_uart_put((uint8_t)data[i]);
}

int main(void)
{
    hal_atmega328p_init(&hal);
    if (fw_device_init(&device, &FW_PORT_BOARD, &hal_atmega328p_api, &hal) != FW_OK) {
        for (;;) {
        }
    }
    fw_framer_init(&uart_framer);
    const fw_sink_t out = {uart_write, NULL};
    for (;;) {
        uint8_t rx[8];
        uint8_t n = hal_atmega328p_uart_read(rx, sizeof rx);
        if (n > 0) {
            fw_device_feed(&device, &uart_framer, rx, n, out);
            continue;
        }
        hal_atmega328p_idle();
    }
}
