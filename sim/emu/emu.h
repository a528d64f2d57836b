/* emu.h: mcpsim-avr, an AVR firmware ELF under libsimavr: its UART0 on a pty, a control channel,
   real-time pacing and the chip's stack high-water. Shared between the emulator's files. */
#ifndef EMU_H
#define EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include <sim_avr.h>
#include <sim_elf.h>

/* Exit statuses (docs/emulators.md). */
enum {
    EMU_EXIT_OK = 0,      /* SIGTERM/SIGINT, or --help */
    EMU_EXIT_ERROR = 1,   /* could not start: unreadable ELF, no pty, port in use, ... */
    EMU_EXIT_USAGE = 2,   /* bad command line */
    EMU_EXIT_CRASHED = 4, /* the chip crashed: bad opcode, PC outside the code, ... */
    EMU_EXIT_STOPPED = 5, /* the chip stopped: sleep with interrupts disabled */
    EMU_EXIT_WATCHDOG = 6 /* the watchdog reset the chip */
};

typedef struct emu_opts {
    const char *elf;
    const char *mcu;      /* NULL: the ELF's .mmcu, else atmega328p */
    uint32_t freq;        /* 0: the ELF's .mmcu, else 16 MHz */
    const char *pty_link; /* NULL: none */
    const char *control;  /* NULL: none; "[HOST:]PORT" */
    bool realtime;
    bool quiet;
} emu_opts_t;

/* Per-pin state that the outside drives (sim.set_input). */
typedef enum { EXT_FLOAT = 0, EXT_LOW, EXT_HIGH } emu_ext_t;

#define EMU_RXQ_SIZE 4096
#define EMU_TXQ_MAX (64 * 1024)
#define EMU_MAX_PINS 20

typedef struct emu {
    emu_opts_t opts;
    avr_t *avr;
    elf_firmware_t fw;
    uv_loop_t loop;

    /* stack */
    uint16_t sp_min;
    uint16_t static_end;   /* first data address after .data/.bss (0: unknown) */
    uint32_t static_bytes; /* .data + .bss */

    /* UART0 <-> pty */
    int master, slave;
    char pty_path[64];
    uv_poll_t pty_poll;
    int pty_events;
    uint8_t rxq[EMU_RXQ_SIZE]; /* host -> chip, waiting for the receiver */
    size_t rx_head, rx_len;
    bool rx_xoff;      /* simavr's UART said its input FIFO is full */
    void *uart0;       /* simavr's avr_uart_t of USART0 (its input FIFO), or NULL */
    unsigned rx_stalls; /* slices in a row with a byte in simavr's FIFO, no RXC flag, no progress */
    unsigned rx_fifo_read; /* simavr's FIFO read index at the last slice */
    uint64_t rx_kicks;  /* receive-complete flags raised for a stalled FIFO (emu_uart_tick) */
    char *txq;         /* chip -> host, waiting for the pty */
    size_t tx_len, tx_cap;
    uint64_t tx_dropped;
    uint64_t rx_bytes, tx_bytes;

    /* pins (ATmega328P numbering) */
    emu_ext_t ext[EMU_MAX_PINS];
    double analog_mv[8]; /* last set millivolts per ADC channel, <0: never set */
    bool pins_known;     /* the chip has the 328P's ports */

    /* control channel */
    uv_tcp_t ctl_server;
    bool ctl_open;
    char ctl_addr[80];

    /* run state */
    uv_signal_t sig_int, sig_term;
    uv_timer_t pace;
    bool quit;
    bool off_code;    /* the PC left the code */
    uint32_t off_code_pc;
    int resets; /* avr_reset calls after start (watchdog) */
    uint64_t wall_base_ns; /* wall clock at cycle 0 (moved forward when the host falls behind) */
} emu_t;

/* emu_uart.c */
int emu_uart_open(emu_t *e);
void emu_uart_attach(emu_t *e);
void emu_uart_feed(emu_t *e);
void emu_uart_tick(emu_t *e);
void emu_uart_stats(const emu_t *e, json_t *o);
void emu_uart_close(emu_t *e);

/* emu_pins.c */
void emu_pins_init(emu_t *e);
void emu_pins_refresh(emu_t *e);
/* Resolves params.pin into 0..19; on failure sets *err (a static message). */
int emu_pin_parse(emu_t *e, json_t *pin, const char **err);
/* Each returns NULL and sets *err, with *code, on a bad parameter. */
json_t *emu_pin_json(emu_t *e, int pin);
int emu_pin_set_input(emu_t *e, int pin, json_t *level, const char **err);
int emu_pin_set_analog(emu_t *e, int pin, json_t *volts, json_t *raw, const char **err);
json_t *emu_read_outputs(emu_t *e);

/* emu_control.c */
int emu_control_open(emu_t *e, const char *spec);
void emu_control_close(emu_t *e);
/* Handles one line; returns the reply (to free) or NULL for none. Exposed for the tests. */
char *emu_control_handle(emu_t *e, const char *line, size_t len);

/* main.c */
uint64_t emu_now_us(const emu_t *e);
json_t *emu_stats_json(const emu_t *e);
uint16_t emu_sp(const emu_t *e);

#endif
