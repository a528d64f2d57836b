/* main.c: the reference port's main loop: UART bytes into one device instance, replies back. */
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"
#include "hal_template.h"

/* The board, generated from its JSON by the build (cmake/boards.cmake), which names its header
   and its const: board_<stem>.h and fw_board_<stem>. */
#if !defined(FW_TEMPLATE_BOARD_HEADER) || !defined(FW_TEMPLATE_BOARD)
#error "FW_TEMPLATE_BOARD_HEADER and FW_TEMPLATE_BOARD name the board (firmware/CMakeLists.txt)"
#endif
#include FW_TEMPLATE_BOARD_HEADER

/*
 * The port owns the device instance, its HAL context and the UART's framer. They are static:
 * together some tens of KiB, too big for a small MCU's stack, and they live as long as the
 * firmware. This is the one place in firmware/ where such state is a global.
 */
static fw_device_t device;
static hal_template_t hal;
static fw_framer_t uart_framer;

/* The 1 kHz tick. Its name is the CMSIS vector name, so a startup file's weak default is
   replaced by this one. */
void SysTick_Handler(void);
void SysTick_Handler(void)
{
    hal_template_tick(&hal);
}

/* The UART's receive ring: its interrupt appends at rx_head, the main loop takes from rx_tail
   (at 115200 baud a byte arrives every 87 us, so an interrupt-fed ring is the robust choice).
   volatile: shared with the interrupt. One slot stays free to tell full from empty. */
#define RX_RING 64
static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head, rx_tail;

/* The UART's receive interrupt. Its name is the LM3S6965's vector name (UART0, IRQ 5), so the
   startup file's weak default is replaced by this one. A real port reads the byte from the data
   register (and clears the interrupt); the template has no UART and queues a NUL. */
void UART0_Handler(void);
void UART0_Handler(void)
{
    uint8_t byte = 0;
    uint8_t next = (uint8_t)((rx_head + 1u) % RX_RING);
    if (next == rx_tail) return; /* full: the byte is lost, as a UART overrun loses it */
    rx_ring[rx_head] = byte;
    rx_head = next;
}

/* Copies up to cap received bytes into buf without blocking and returns how many. */
static size_t uart_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap && rx_tail != rx_head) {
        buf[n++] = rx_ring[rx_tail];
        rx_tail = (uint8_t)((rx_tail + 1u) % RX_RING);
    }
    return n;
}

/* Sends one byte. A real port waits for room in the transmit FIFO and writes the data register
   (or queues the byte for DMA). */
static void uart_put(uint8_t byte)
{
    (void)byte;
}

/* The replies' sink: fw_device_feed hands over each reply in pieces, then "\n". */
static void uart_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) uart_put((uint8_t)data[i]);
}

int main(void)
{
    hal_template_init(&hal);
    if (fw_device_init(&device, &FW_TEMPLATE_BOARD, &hal_template_api, &hal) != FW_OK) {
        /* The board does not fit this build's limits (fw_config.h): nothing can be served. */
        for (;;) {
        }
    }
    fw_framer_init(&uart_framer);
    const fw_sink_t out = {uart_write, NULL};
    /* MCP notifications of the UART's session, one per line; none unless its client asked
       (initialize, logging/setLevel, resources/subscribe), so MCP/U hosts see no extra lines. */
    const fw_msg_sink_t notifications = {uart_write, NULL, NULL, NULL};
    for (;;) {
        uint8_t rx[32];
        size_t n = uart_read(rx, sizeof rx);
        if (n > 0) fw_device_feed(&device, &uart_framer, rx, n, out);
        fw_device_poll(&device);
        fw_device_drain(&device, NULL, notifications);
        /* A real port sleeps here (WFI) until a UART byte or the tick wakes it; with a
           tickless timer it would program the wake-up for fw_device_next_deadline(). */
    }
}
