/* main.c: the LM3S6965 port's main loop: UART0 bytes into one device instance, replies back. */
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"
#include "hal_lm3s6965.h"
#include "lm3s6965.h"

/* The board, generated from sim/boards/lm3s6965evb.json by the build (port.cmake). */
#include "board_lm3s6965evb.h"

/*
 * The port owns the device instance, its HAL context, the UART's framer and its receive ring:
 * static, as they live as long as the firmware and are too big for the stack.
 */
static fw_device_t device;
static hal_lm3s6965_t hal;
static fw_framer_t uart_framer;

/*
 * UART0's receive ring. The interrupt drains the 16-byte hardware FIFO into it at rx_head; the
 * main loop takes from rx_tail. Replies are written by polling the transmit FIFO, and receiving
 * goes on in the interrupt meanwhile: while a reply of N bytes goes out at 115200 baud, at most
 * N bytes can come in (the line runs at the same rate both ways). The ring holds the longest
 * reply this build writes (list_tools: 6.4 KB with this board's tools, tools/list 5.9 KB) with
 * room to spare, so a host that pipelines requests while a reply is being written loses
 * nothing. One slot stays free to tell full from empty. Overridable: -DLM3S_RX_RING=N (a power
 * of two).
 */
#ifndef LM3S_RX_RING
#define LM3S_RX_RING 16384u
#endif
#if (LM3S_RX_RING & (LM3S_RX_RING - 1u)) != 0 || LM3S_RX_RING > 32768u
#error "LM3S_RX_RING must be a power of two, at most 32768"
#endif
static volatile uint8_t rx_ring[LM3S_RX_RING];
static volatile uint16_t rx_head, rx_tail;

/* Bytes lost, for a debugger to read: the ring was full (rx_dropped) or the hardware FIFO
   overran before the interrupt ran (rx_overruns). */
static volatile uint32_t rx_dropped, rx_overruns;

/* The 1 kHz tick (CMSIS vector name: replaces the startup file's weak default). */
void SysTick_Handler(void);
void SysTick_Handler(void)
{
    hal_lm3s6965_tick(&hal);
}

/* UART0's interrupt (receive at 8 bytes in the FIFO, receive timeout for fewer, overrun):
   clears them, then drains the FIFO into the ring. A byte arriving after the clear raises the
   interrupt again. */
void UART0_Handler(void);
void UART0_Handler(void)
{
    UART0_ICR = UART_INT_RX | UART_INT_RT | UART_INT_OE;
    uint16_t head = rx_head;
    while ((UART0_FR & UART_FR_RXFE) == 0) {
        uint32_t data = UART0_DR;
        if ((data & UART_DR_OE) != 0) rx_overruns++;
        uint16_t next = (uint16_t)((head + 1u) & (LM3S_RX_RING - 1u));
        if (next == rx_tail) {
            rx_dropped++; /* full: the byte is lost, as an overrun loses it */
            continue;
        }
        rx_ring[head] = (uint8_t)data;
        head = next;
    }
    __asm__ volatile("" ::: "memory"); /* the bytes are stored before the head moves */
    rx_head = head;
}

/* UART0 at 115200 8N1 on PA0/PA1, FIFOs on, receive interrupts enabled in the NVIC. */
static void uart_init(void)
{
    SYSCTL_RCGC1 |= SYSCTL_RCGC1_UART0;
    hal_lm3s6965_gpio_clock(0);
    GPIO_AFSEL(GPIO_PORTA_BASE) |= 0x03u;
    GPIO_DEN(GPIO_PORTA_BASE) |= 0x03u;

    UART0_CTL = 0;
    /* 50 MHz / (16 * 115200) = 27.127: IBRD 27, FBRD round(0.127 * 64) = 8 (115207 baud). */
    UART0_IBRD = 27;
    UART0_FBRD = 8;
    UART0_LCRH = UART_LCRH_WLEN_8 | UART_LCRH_FEN;
    UART0_IFLS = UART_IFLS_RX4_8;
    UART0_RSR = 0;
    UART0_ICR = 0x7FFu;
    UART0_IM = UART_INT_RX | UART_INT_RT | UART_INT_OE;
    UART0_CTL = UART_CTL_UARTEN | UART_CTL_TXE | UART_CTL_RXE;
    NVIC_ISER0 = 1u << UART0_IRQ;
}

/* Copies up to cap received bytes into buf without blocking and returns how many. */
static size_t uart_read(uint8_t *buf, size_t cap)
{
    size_t n = 0;
    uint16_t tail = rx_tail, head = rx_head;
    __asm__ volatile("" ::: "memory"); /* read the head before the bytes it covers */
    while (n < cap && tail != head) {
        buf[n++] = rx_ring[tail];
        tail = (uint16_t)((tail + 1u) & (LM3S_RX_RING - 1u));
    }
    rx_tail = tail;
    return n;
}

/* The replies' sink: each byte waits for room in the transmit FIFO. */
static void uart_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        while ((UART0_FR & UART_FR_TXFF) != 0) {
        }
        UART0_DR = (uint8_t)data[i];
    }
}

int main(void)
{
    hal_lm3s6965_init(&hal);
    uart_init();
    if (fw_device_init(&device, &fw_board_lm3s6965evb, &hal_lm3s6965_api, &hal) != FW_OK) {
        /* The board does not fit this build's limits (fw_config.h): nothing can be served. */
        for (;;) {
        }
    }
    fw_framer_init(&uart_framer);
    const fw_sink_t out = {uart_write, NULL};
    /* MCP notifications of the UART's session, one per line; none unless its client asked. */
    const fw_msg_sink_t notifications = {uart_write, NULL, NULL, NULL};
    for (;;) {
        uint8_t rx[64];
        size_t n = uart_read(rx, sizeof rx);
        if (n > 0) fw_device_feed(&device, &uart_framer, rx, n, out);
        fw_device_poll(&device);
        fw_device_drain(&device, NULL, notifications);
        /* Sleep until an interrupt (a received byte, or the next millisecond's tick), unless
           bytes are waiting. Interrupts are masked around the test so that one arriving between
           it and the WFI still wakes it (WFI wakes on a pending interrupt even while masked). */
        __asm__ volatile("cpsid i" ::: "memory");
        if (rx_head == rx_tail) __asm__ volatile("wfi");
        __asm__ volatile("cpsie i" ::: "memory");
    }
}
