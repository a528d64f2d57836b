/* emu_uart.c: the chip's USART0 on a pseudo-terminal. Host bytes wait in a queue until simavr's
   UART says its receiver FIFO has room (XON/XOFF irqs), so none is lost to an overrun the host
   caused; chip bytes go to the pty master. We keep the slave open ourselves, so a client may
   close and reopen the pty without the master seeing a hangup. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <avr_uart.h>
#include <sim_irq.h>

#include "emu.h"

static void on_poll(uv_poll_t *h, int status, int events);

static void update_events(emu_t *e)
{
    int ev = 0;
    if (e->rx_len < EMU_RXQ_SIZE) ev |= UV_READABLE;
    if (e->tx_len > 0) ev |= UV_WRITABLE;
    if (ev == e->pty_events) return;
    e->pty_events = ev;
    if (ev)
        uv_poll_start(&e->pty_poll, ev, on_poll);
    else
        uv_poll_stop(&e->pty_poll);
}

static void flush_tx(emu_t *e)
{
    while (e->tx_len > 0) {
        ssize_t n = write(e->master, e->txq, e->tx_len);
        if (n < 0) {
            if (errno == EINTR) continue;
            break; /* EAGAIN: the slave's input buffer is full (nobody reads); poll for room */
        }
        memmove(e->txq, e->txq + n, e->tx_len - (size_t)n);
        e->tx_len -= (size_t)n;
    }
}

/*
 * Pushes queued host bytes into the chip while its receiver accepts them. simavr drops a byte
 * pushed into a full input FIFO, and its XOFF irq only notifies when its value changes, so a
 * second burst after the first XON could overrun it: the FIFO itself is asked before every
 * byte, and the run loop calls this again while bytes wait (the XON irq is only a hint).
 */
/* simavr's uart_fifo_isfull, whose definition its header leaves to the UART module. */
static bool fifo_full(const avr_uart_t *u)
{
    return ((u->input.write + 1u) & (uart_fifo_fifo_size - 1u)) == u->input.read;
}

void emu_uart_feed(emu_t *e)
{
    if (!e->avr) return;
    avr_irq_t *in = avr_io_getirq(e->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_uart_t *u = e->uart0;
    if (u) e->rx_xoff = fifo_full(u);
    while (!e->rx_xoff && e->rx_len > 0) {
        uint8_t b = e->rxq[e->rx_head];
        e->rx_head = (e->rx_head + 1) % EMU_RXQ_SIZE;
        e->rx_len--;
        e->rx_bytes++;
        avr_raise_irq(in, b); /* may call on_xoff, which stops the loop */
        if (u && fifo_full(u)) e->rx_xoff = true;
    }
}

/*
 * Once per slice of chip time (the run loop): what must not wait for an event that may not
 * come. Output still queued is written (a pty that was full is polled for room, but a write
 * that could go now should not wait for the next byte); host bytes waiting for room in the FIFO
 * are fed (and the pty read again if that made room); and a byte left in simavr's FIFO that no
 * receive-complete flag has announced while the FIFO did not move for two slices in a row gets
 * its flag raised, in case simavr's receive pump (a cycle timer started only when a byte lands
 * in an empty FIFO) stopped. In a healthy run the pump keeps the FIFO moving and this never
 * fires: emu.stats counts it as uart_rx_kicks.
 */
void emu_uart_tick(emu_t *e)
{
    if (e->tx_len > 0) {
        flush_tx(e);
        update_events(e);
    }
    if (e->rx_len > 0) {
        emu_uart_feed(e);
        update_events(e); /* a queue that was full and drained here must be read again */
    }
    avr_uart_t *u = e->uart0;
    if (!u || !e->avr) return;
    bool waiting = u->input.read != u->input.write && !avr_regbit_get(e->avr, u->rxc.raised);
    bool moved = u->input.read != e->rx_fifo_read;
    e->rx_fifo_read = u->input.read;
    if (!waiting || moved) {
        e->rx_stalls = 0;
    } else if (++e->rx_stalls >= 2) {
        e->rx_stalls = 0;
        e->rx_kicks++;
        avr_raise_interrupt(e->avr, &u->rxc);
    }
}

/* The receive path's state for emu.stats: what a stalled request is waiting in. */
void emu_uart_stats(const emu_t *e, json_t *o)
{
    const avr_uart_t *u = e->uart0;
    json_object_set_new(o, "uart_rx_xoff", json_boolean(e->rx_xoff));
    json_object_set_new(o, "uart_pty_events", json_integer(e->pty_events));
    if (!u || !e->avr) return;
    unsigned fifo = (unsigned)(u->input.write - u->input.read) & (uart_fifo_fifo_size - 1u);
    json_object_set_new(o, "uart_rx_fifo", json_integer(fifo));
    json_object_set_new(o, "uart_rxc_flag", json_boolean(avr_regbit_get(e->avr, u->rxc.raised)));
    json_object_set_new(o, "uart_rxcie", json_boolean(avr_regbit_get(e->avr, u->rxc.enable)));
    json_object_set_new(o, "cpu_state", json_integer(e->avr->state));
    json_object_set_new(o, "sreg_i", json_boolean(e->avr->sreg[S_I]));
}

static void read_rx(emu_t *e)
{
    while (e->rx_len < EMU_RXQ_SIZE) {
        size_t tail = (e->rx_head + e->rx_len) % EMU_RXQ_SIZE;
        size_t room = tail >= e->rx_head ? EMU_RXQ_SIZE - tail : e->rx_head - tail;
        if (room > EMU_RXQ_SIZE - e->rx_len) room = EMU_RXQ_SIZE - e->rx_len;
        ssize_t n = read(e->master, e->rxq + tail, room);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* EAGAIN, or EIO while no client has it open (we hold the slave) */
        e->rx_len += (size_t)n;
    }
    emu_uart_feed(e);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    emu_t *e = h->data;
    if (status < 0) {
        fprintf(stderr, "mcpsim-avr: uart: poll error: %s\n", uv_strerror(status));
        return;
    }
    if (events & UV_READABLE) read_rx(e);
    if (events & UV_WRITABLE) flush_tx(e);
    update_events(e);
}

static void on_output(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    emu_t *e = param;
    e->tx_bytes++;
    if (e->tx_len >= EMU_TXQ_MAX) {
        if (e->tx_dropped++ == 0)
            fprintf(stderr, "mcpsim-avr: uart: nobody reads the pty; dropping the chip's output\n");
        return;
    }
    if (e->tx_len == e->tx_cap) {
        size_t cap = e->tx_cap ? e->tx_cap * 2 : 1024;
        char *q = realloc(e->txq, cap);
        if (!q) abort();
        e->txq = q;
        e->tx_cap = cap;
    }
    /* Written out once per slice of chip time (emu_uart_tick), in one write: about ten bytes at
       115200 baud, instead of one write per byte. */
    e->txq[e->tx_len++] = (char)value;
}

static void on_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    emu_t *e = param;
    e->rx_xoff = false;
    bool was_full = e->rx_len == EMU_RXQ_SIZE;
    emu_uart_feed(e);
    if (was_full && e->rx_len < EMU_RXQ_SIZE) update_events(e);
}

static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    emu_t *e = param;
    e->rx_xoff = true;
}

static int make_raw(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    cfmakeraw(&t);
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSANOW, &t);
}

static int make_link(const char *target, const char *link_path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", link_path, (long)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    unlink(tmp);
    if (symlink(target, tmp) != 0) return -1;
    if (rename(tmp, link_path) != 0) {
        int err = errno;
        unlink(tmp);
        errno = err;
        return -1;
    }
    return 0;
}

/* Creates the pty (and the link); returns 0, or -1 after printing why. */
int emu_uart_open(emu_t *e)
{
    e->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (e->master < 0 || grantpt(e->master) != 0 || unlockpt(e->master) != 0 ||
        ptsname_r(e->master, e->pty_path, sizeof e->pty_path) != 0) {
        fprintf(stderr, "mcpsim-avr: cannot create a pseudo-terminal: %s\n", strerror(errno));
        return -1;
    }
    e->slave = open(e->pty_path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (e->slave < 0 || make_raw(e->slave) != 0) {
        fprintf(stderr, "mcpsim-avr: cannot open %s: %s\n", e->pty_path, strerror(errno));
        return -1;
    }
    int fl = fcntl(e->master, F_GETFL);
    if (fl < 0 || fcntl(e->master, F_SETFL, fl | O_NONBLOCK) != 0) {
        fprintf(stderr, "mcpsim-avr: pty: %s\n", strerror(errno));
        return -1;
    }
    if (e->opts.pty_link && make_link(e->pty_path, e->opts.pty_link) != 0) {
        fprintf(stderr, "mcpsim-avr: cannot create the link %s -> %s: %s\n", e->opts.pty_link,
                e->pty_path, strerror(errno));
        return -1;
    }
    uv_poll_init(&e->loop, &e->pty_poll, e->master);
    e->pty_poll.data = e;
    e->pty_events = UV_READABLE;
    uv_poll_start(&e->pty_poll, UV_READABLE, on_poll);
    return 0;
}

/* Connects the chip's UART0 irqs (after avr_init) and turns off simavr's own console echo and
   its sleep while the firmware polls an empty receiver (we pace time ourselves). */
void emu_uart_attach(emu_t *e)
{
    uint32_t flags = 0;
    if (avr_ioctl(e->avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags) == 0) {
        flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
        avr_ioctl(e->avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    }
    avr_irq_t *out = avr_io_getirq(e->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT);
    avr_irq_t *xon = avr_io_getirq(e->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON);
    avr_irq_t *xoff = avr_io_getirq(e->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF);
    if (!out || !xon || !xoff) {
        fprintf(stderr, "mcpsim-avr: warning: %s has no USART0; the pty stays silent\n",
                e->avr->mmcu);
        e->rx_xoff = true;
        return;
    }
    avr_irq_register_notify(out, on_output, e);
    avr_irq_register_notify(xon, on_xon, e);
    avr_irq_register_notify(xoff, on_xoff, e);
    /* USART0's module (its input FIFO), found among the chip's io modules by kind and name. */
    for (avr_io_t *io = e->avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "uart") == 0 && ((avr_uart_t *)io)->name == '0')
            e->uart0 = io;
}

/* Flushes what the pty takes now, then closes it: a client sees EOF/hangup. */
void emu_uart_close(emu_t *e)
{
    if (e->master >= 0) flush_tx(e);
    if (e->opts.pty_link) {
        char target[sizeof e->pty_path];
        ssize_t n = readlink(e->opts.pty_link, target, sizeof target - 1);
        if (n >= 0) {
            target[n] = 0;
            if (strcmp(target, e->pty_path) == 0) unlink(e->opts.pty_link);
        }
    }
    if (e->slave >= 0) close(e->slave);
    if (e->master >= 0) close(e->master);
    e->slave = e->master = -1;
    free(e->txq);
    e->txq = NULL;
    e->tx_len = e->tx_cap = 0;
}
