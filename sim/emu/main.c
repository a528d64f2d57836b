/* main.c: mcpsim-avr: runs any AVR firmware ELF under libsimavr, paced to the wall clock, its
   UART0 on a pty, an optional control channel; reports the chip's stack high-water, and why it
   ended when it crashes, stops or is reset by its watchdog. */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sim_io.h>

#include "emu.h"

static emu_t *g_emu; /* simavr's logger and io callbacks carry no context of ours */

/* What simavr's logger told us that its state does not: an invalid opcode only logs. */
static char g_crash_msg[256];

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mcpsim-avr [--mcu NAME] [--freq HZ] [--pty-link PATH] [--control [HOST:]PORT]\n"
            "                  [--no-realtime] [--quiet] FILE.elf\n"
            "Runs an AVR firmware ELF under simavr, its UART0 on a pseudo-terminal.\n"
            "  --mcu NAME        the chip (default: the ELF's .mmcu section, else atmega328p)\n"
            "  --freq HZ         the clock (default: the ELF's .mmcu section, else 16000000)\n"
            "  --pty-link PATH   a symlink to the pty\n"
            "  --control [HOST:]PORT  the control channel (JSON-RPC over TCP; HOST 127.0.0.1)\n"
            "  --no-realtime     run as fast as the host can (default: in step with the clock)\n"
            "  --quiet           no informational logs on stderr\n"
            "Exit: 0 signal, 1 start-up error, 2 usage, 4 crashed, 5 stopped, 6 watchdog reset.\n");
}

static void emu_logger(avr_t *avr, const int level, const char *fmt, va_list ap)
{
    (void)avr;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (strstr(msg, "Invalid Opcode")) {
        /* "CORE: *** 0144: Invalid Opcode SP=08fa O=0001" (with colour codes) */
        const char *p = strstr(msg, "*** ");
        unsigned pc = 0, sp = 0, op = 0;
        if (!g_crash_msg[0] && p && sscanf(p, "*** %x: Invalid Opcode SP=%x O=%x", &pc, &sp, &op) == 3)
            snprintf(g_crash_msg, sizeof g_crash_msg,
                     "invalid instruction 0x%04x at PC 0x%04x; SP 0x%04x", op, pc, sp);
        else if (!g_crash_msg[0])
            snprintf(g_crash_msg, sizeof g_crash_msg, "invalid instruction");
        return; /* reported by check_end */
    }
    if (g_emu && g_emu->opts.quiet && level > LOG_ERROR) return;
    fprintf(stderr, "simavr: %s", msg);
    size_t n = strlen(msg);
    if (n == 0 || msg[n - 1] != '\n') fputc('\n', stderr);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t emu_now_us(const emu_t *e)
{
    return (uint64_t)((double)e->avr->cycle * 1e6 / (double)e->avr->frequency);
}

uint16_t emu_sp(const emu_t *e)
{
    return (uint16_t)(e->avr->data[R_SPL] | (e->avr->data[R_SPH] << 8));
}

json_t *emu_stats_json(const emu_t *e)
{
    const avr_t *a = e->avr;
    json_t *o = json_object();
    json_object_set_new(o, "mcu", json_string(a->mmcu));
    json_object_set_new(o, "frequency_hz", json_integer(a->frequency));
    json_object_set_new(o, "cycles", json_integer((json_int_t)a->cycle));
    json_object_set_new(o, "now_ms", json_real((double)a->cycle * 1e3 / a->frequency));
    json_object_set_new(o, "realtime", json_boolean(e->opts.realtime));
    json_object_set_new(o, "ramend", json_integer(a->ramend));
    if (e->sp_min != 0xffff) {
        json_object_set_new(o, "sp_min", json_integer(e->sp_min));
        json_object_set_new(o, "stack_high_water", json_integer(a->ramend - e->sp_min));
    } else {
        json_object_set_new(o, "sp_min", json_null());
        json_object_set_new(o, "stack_high_water", json_null());
    }
    json_object_set_new(o, "static_ram", json_integer(e->static_bytes));
    json_object_set_new(o, "static_end", e->static_end ? json_integer(e->static_end) : json_null());
    json_object_set_new(o, "uart_rx_bytes", json_integer((json_int_t)e->rx_bytes));
    json_object_set_new(o, "uart_tx_bytes", json_integer((json_int_t)e->tx_bytes));
    json_object_set_new(o, "uart_tx_dropped", json_integer((json_int_t)e->tx_dropped));
    json_object_set_new(o, "uart_rx_kicks", json_integer((json_int_t)e->rx_kicks));
    json_object_set_new(o, "uart_rx_queued", json_integer((json_int_t)e->rx_len));
    json_object_set_new(o, "uart_tx_queued", json_integer((json_int_t)e->tx_len));
    emu_uart_stats(e, o);
    return o;
}

/* ------------------------------------------------------------------------- the ELF */

/* Checks that FILE is readable and an AVR ELF before simavr (which says little) reads it. */
static int check_elf(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mcpsim-avr: %s: %s\n", path, strerror(errno));
        return -1;
    }
    Elf32_Ehdr h;
    size_t n = fread(&h, 1, sizeof h, f);
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "mcpsim-avr: %s: read error\n", path);
        return -1;
    }
    if (n < EI_NIDENT || memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) {
        fprintf(stderr, "mcpsim-avr: %s: not an ELF file\n", path);
        return -1;
    }
    if (n < sizeof h || h.e_ident[EI_CLASS] != ELFCLASS32 || h.e_ident[EI_DATA] != ELFDATA2LSB) {
        fprintf(stderr, "mcpsim-avr: %s: not a 32-bit little-endian ELF (not an AVR firmware)\n",
                path);
        return -1;
    }
    if (h.e_machine != EM_AVR) {
        fprintf(stderr, "mcpsim-avr: %s: an ELF for machine %u, not AVR (%u)\n", path,
                (unsigned)h.e_machine, (unsigned)EM_AVR);
        return -1;
    }
    return 0;
}

/* The end of static RAM: __heap_start or __bss_end when the ELF has them, else the start of
   SRAM plus .data and .bss. */
static void find_static_ram(emu_t *e)
{
    e->static_bytes = e->fw.datasize + e->fw.bsssize;
    uint16_t ramstart = (uint16_t)(e->avr->ioend + 1);
    e->static_end = (uint16_t)(ramstart + e->static_bytes);
#if ELF_SYMBOLS
    for (uint32_t i = 0; e->fw.symbol && i < e->fw.symbolcount; i++) {
        const avr_symbol_t *s = e->fw.symbol[i];
        if (s && (!strcmp(s->symbol, "__heap_start") || !strcmp(s->symbol, "__bss_end"))) {
            uint16_t end = (uint16_t)(s->addr & 0xffff);
            if (end >= ramstart && end <= e->avr->ramend + 1) {
                e->static_end = end;
                e->static_bytes = (uint32_t)(end - ramstart);
            }
            break;
        }
    }
#endif
}

/* ------------------------------------------------------------------------- resets */

typedef struct {
    avr_io_t io;
    emu_t *e;
} reset_hook_t;

static void on_reset(avr_io_t *io)
{
    reset_hook_t *h = (reset_hook_t *)io;
    h->e->resets++;
}

static reset_hook_t g_reset_hook = {.io = {.kind = "mcpsim-avr", .reset = on_reset}};

/* simavr's default sleep usleep()s; we pace time ourselves. */
static void no_sleep(avr_t *avr, avr_cycle_count_t how_long)
{
    (void)avr;
    (void)how_long;
}

/* ------------------------------------------------------------------------- the loop */

static void on_signal(uv_signal_t *h, int signum)
{
    emu_t *e = h->data;
    if (!e->opts.quiet)
        fprintf(stderr, "mcpsim-avr: %s, stopping\n", signum == SIGINT ? "SIGINT" : "SIGTERM");
    e->quit = true;
}

static void on_pace(uv_timer_t *t)
{
    (void)t; /* only wakes uv_run */
}

static void print_time(const emu_t *e, char *buf, size_t cap)
{
    snprintf(buf, cap, "cycle %" PRIu64 ", %.3f ms", (uint64_t)e->avr->cycle,
             (double)e->avr->cycle * 1e3 / e->avr->frequency);
}

/* Returns the exit status when the chip ended, -1 while it runs. */
static int check_end(emu_t *e)
{
    avr_t *a = e->avr;
    char t[96];
    print_time(e, t, sizeof t);
    if (e->resets > 0) {
        bool wd = a->reset_flags.wdrf.reg && avr_regbit_get(a, a->reset_flags.wdrf);
        fprintf(stderr, "mcpsim-avr: the chip was reset%s (PC now 0x%04x, %s)\n",
                wd ? " by its watchdog" : " (not by a power-on)", (unsigned)a->pc, t);
        return EMU_EXIT_WATCHDOG;
    }
    if (e->off_code) {
        fprintf(stderr,
                "mcpsim-avr: the chip crashed: it jumped outside its code: PC 0x%04x, the code "
                "ends at 0x%04x; SP 0x%04x (%s)\n",
                (unsigned)e->off_code_pc, (unsigned)a->codeend, emu_sp(e), t);
        return EMU_EXIT_CRASHED;
    }
    if (g_crash_msg[0]) {
        fprintf(stderr, "mcpsim-avr: the chip crashed: %s (%s)\n", g_crash_msg, t);
        return EMU_EXIT_CRASHED;
    }
    if (a->state == cpu_Crashed) {
        const char *why = "simavr stopped it";
        char buf[160];
        if (a->pc >= a->codeend) {
            snprintf(buf, sizeof buf, "PC 0x%04x is outside the code (0x0000..0x%04x)",
                     (unsigned)a->pc, (unsigned)a->codeend);
            why = buf;
        } else if (emu_sp(e) > a->ramend) {
            snprintf(buf, sizeof buf, "SP 0x%04x is above RAMEND 0x%04x", emu_sp(e), a->ramend);
            why = buf;
        } else if (a->pc == 0) {
            why = "the PC came back to address 0 without a reset (a jump to 0: a null function "
                  "pointer, a software reset, or execution wrapped around the end of the flash)";
        }
        fprintf(stderr, "mcpsim-avr: the chip crashed: %s; PC 0x%04x, SP 0x%04x (%s)\n", why,
                (unsigned)a->pc, emu_sp(e), t);
        return EMU_EXIT_CRASHED;
    }
    if (a->state == cpu_Done) {
        fprintf(stderr,
                "mcpsim-avr: the chip stopped: it went to sleep with interrupts disabled; "
                "PC 0x%04x (%s)\n",
                (unsigned)a->pc, t);
        return EMU_EXIT_STOPPED;
    }
    return -1;
}

static int run(emu_t *e)
{
    avr_t *a = e->avr;
    avr_cycle_count_t slice = a->frequency / 1000; /* 1 ms of chip time between host looks */
    if (slice < 1000) slice = 1000;
    e->wall_base_ns = mono_ns();
    for (;;) {
        avr_cycle_count_t end = a->cycle + slice;
        while (a->cycle < end) {
            int state = avr_run(a);
            if (a->pc >= a->codeend && a->codeend && !e->off_code) {
                e->off_code = true;
                e->off_code_pc = a->pc;
                break;
            }
            uint16_t sp = emu_sp(e);
            if (sp < e->sp_min && sp > a->ioend) e->sp_min = sp;
            if (state == cpu_Done || state == cpu_Crashed || g_crash_msg[0] || e->resets) break;
        }
        int rc = check_end(e);
        if (rc >= 0) return rc;
        emu_pins_refresh(e);
        emu_uart_tick(e);
        if (e->quit) return EMU_EXIT_OK;
        if (!e->opts.realtime) {
            uv_run(&e->loop, UV_RUN_NOWAIT);
            if (e->quit) return EMU_EXIT_OK;
            continue;
        }
        uint64_t sim_ns = (uint64_t)((double)a->cycle * 1e9 / a->frequency);
        uint64_t wall_ns = mono_ns() - e->wall_base_ns;
        if (wall_ns > sim_ns + 200000000u) {
            /* The host fell behind (stopped, overloaded): slip rather than race to catch up. */
            e->wall_base_ns += wall_ns - sim_ns - 200000000u;
        }
        if (sim_ns > wall_ns + 1000000u) {
            /* The timer repeats: libuv runs due timers before it polls, and a one-shot timer
               that is already due when uv_run starts (time passes between here and there on a
               loaded host) fires there, leaving nothing to bound the poll: UV_RUN_ONCE then
               waited for the host's next bytes (the stall of docs/emulators.md). A repeating
               timer stays pending, so the poll waits at most one more millisecond. */
            uv_update_time(&e->loop); /* the timer counts from the loop's cached time */
            uv_timer_start(&e->pace, on_pace, (sim_ns - wall_ns) / 1000000u, 1);
            uv_run(&e->loop, UV_RUN_ONCE);
            uv_timer_stop(&e->pace);
        } else {
            uv_run(&e->loop, UV_RUN_NOWAIT);
        }
        if (e->quit) return EMU_EXIT_OK;
    }
}

/* ------------------------------------------------------------------------- start and end */

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0 || v > 1000000000ull || s[0] == '-') return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_args(int argc, char **argv, emu_opts_t *o)
{
    static const struct option longs[] = {
        {"mcu", required_argument, NULL, 'm'},   {"freq", required_argument, NULL, 'f'},
        {"pty-link", required_argument, NULL, 'l'}, {"control", required_argument, NULL, 'c'},
        {"no-realtime", no_argument, NULL, 'n'}, {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    o->realtime = true;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
        switch (c) {
        case 'm': o->mcu = optarg; break;
        case 'f':
            if (parse_u32(optarg, &o->freq) != 0) {
                fprintf(stderr, "mcpsim-avr: --freq: '%s' is not a frequency in Hz (1..1e9)\n",
                        optarg);
                return EMU_EXIT_USAGE;
            }
            break;
        case 'l': o->pty_link = optarg; break;
        case 'c': o->control = optarg; break;
        case 'n': o->realtime = false; break;
        case 'q': o->quiet = true; break;
        case 'h': usage(stdout); return EMU_EXIT_OK;
        default:
            if (optopt)
                fprintf(stderr, "mcpsim-avr: option -%c needs a value or is unknown\n", optopt);
            else
                fprintf(stderr, "mcpsim-avr: unknown option or missing value: %s\n",
                        argv[optind - 1]);
            usage(stderr);
            return EMU_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "mcpsim-avr: %s\n",
                optind == argc ? "no firmware file given" : "more than one firmware file given");
        usage(stderr);
        return EMU_EXIT_USAGE;
    }
    o->elf = argv[optind];
    return -1;
}

static int setup(emu_t *e)
{
    if (check_elf(e->opts.elf) != 0) return EMU_EXIT_ERROR;
    if (elf_read_firmware(e->opts.elf, &e->fw) != 0) {
        fprintf(stderr, "mcpsim-avr: %s: simavr cannot load this ELF\n", e->opts.elf);
        return EMU_EXIT_ERROR;
    }
    if (e->fw.flashsize == 0) {
        fprintf(stderr, "mcpsim-avr: %s: no code (.text) in this ELF\n", e->opts.elf);
        return EMU_EXIT_ERROR;
    }
    char mcu[sizeof e->fw.mmcu];
    snprintf(mcu, sizeof mcu, "%s",
             e->opts.mcu ? e->opts.mcu : e->fw.mmcu[0] ? e->fw.mmcu : "atmega328p");
    uint32_t freq = e->opts.freq ? e->opts.freq : e->fw.frequency ? e->fw.frequency : 16000000u;
    snprintf(e->fw.mmcu, sizeof e->fw.mmcu, "%s", mcu);
    e->fw.frequency = freq;
    if (!e->fw.vcc) e->fw.vcc = 5000;
    if (!e->fw.avcc) e->fw.avcc = e->fw.vcc;
    if (!e->fw.aref) e->fw.aref = e->fw.vcc;
    e->avr = avr_make_mcu_by_name(mcu);
    if (!e->avr) {
        fprintf(stderr, "mcpsim-avr: unknown mcu '%s' (simavr has no core by that name)%s\n", mcu,
                e->opts.mcu ? "" : " named by the ELF's .mmcu section");
        return EMU_EXIT_ERROR;
    }
    avr_init(e->avr);
    e->avr->log = e->opts.quiet ? LOG_ERROR : LOG_WARNING;
    if (e->fw.flashsize > e->avr->flashend + 1u) {
        fprintf(stderr, "mcpsim-avr: %s: %u bytes of code do not fit the %u bytes of flash of %s\n",
                e->opts.elf, e->fw.flashsize, e->avr->flashend + 1u, mcu);
        return EMU_EXIT_ERROR;
    }
    avr_load_firmware(e->avr, &e->fw);
    e->avr->frequency = freq;
    e->avr->sleep = no_sleep;
    e->sp_min = 0xffff;
    find_static_ram(e);
    g_reset_hook.e = e;
    avr_register_io(e->avr, &g_reset_hook.io);
    emu_uart_attach(e);
    emu_pins_init(e);
    return -1;
}

static void print_stack(const emu_t *e)
{
    const avr_t *a = e->avr;
    if (e->sp_min == 0xffff)
        fprintf(stderr,
                "mcpsim-avr: stack high-water unknown (the chip never ran); RAMEND 0x%04x; "
                "static RAM %u bytes\n",
                a->ramend, e->static_bytes);
    else
        fprintf(stderr,
                "mcpsim-avr: stack high-water %u bytes (SP min 0x%04x, RAMEND 0x%04x); static RAM "
                "%u bytes\n",
                a->ramend - e->sp_min, e->sp_min, a->ramend, e->static_bytes);
}

static void close_cb(uv_handle_t *h)
{
    (void)h;
}

static void shutdown_all(emu_t *e)
{
    emu_control_close(e);
    if (e->master >= 0) uv_close((uv_handle_t *)&e->pty_poll, close_cb);
    uv_close((uv_handle_t *)&e->sig_int, close_cb);
    uv_close((uv_handle_t *)&e->sig_term, close_cb);
    uv_close((uv_handle_t *)&e->pace, close_cb);
    uv_run(&e->loop, UV_RUN_DEFAULT);
    emu_uart_close(e);
    uv_loop_close(&e->loop);
}

int main(int argc, char **argv)
{
    static emu_t emu;
    emu_t *e = &emu;
    e->master = e->slave = -1;
    g_emu = e;
    int rc = parse_args(argc, argv, &e->opts);
    if (rc >= 0) return rc;
    signal(SIGPIPE, SIG_IGN);
    avr_global_logger_set(emu_logger);
    setvbuf(stderr, NULL, _IOLBF, 0);

    rc = setup(e);
    if (rc >= 0) return rc;
    uv_loop_init(&e->loop);
    uv_timer_init(&e->loop, &e->pace);
    uv_signal_init(&e->loop, &e->sig_int);
    uv_signal_init(&e->loop, &e->sig_term);
    e->sig_int.data = e->sig_term.data = e;
    uv_signal_start(&e->sig_int, on_signal, SIGINT);
    uv_signal_start(&e->sig_term, on_signal, SIGTERM);
    if (emu_uart_open(e) != 0 || (e->opts.control && emu_control_open(e, e->opts.control) != 0)) {
        shutdown_all(e);
        return EMU_EXIT_ERROR;
    }
    printf("uart: %s\n", e->pty_path);
    if (e->opts.pty_link) printf("uart-link: %s\n", e->opts.pty_link);
    if (e->ctl_open) printf("control: %s\n", e->ctl_addr);
    printf("ready\n");
    fflush(stdout);
    if (!e->opts.quiet)
        fprintf(stderr, "mcpsim-avr: %s on %s at %u Hz%s, UART0 on %s\n", e->opts.elf,
                e->avr->mmcu, e->avr->frequency, e->opts.realtime ? "" : " (not real time)",
                e->pty_path);

    uint64_t t0 = mono_ns();
    rc = run(e);
    double wall_s = (double)(mono_ns() - t0) / 1e9;
    if (!e->opts.quiet && wall_s > 0)
        fprintf(stderr, "mcpsim-avr: %.3f s simulated in %.3f s of wall time (%.2fx real time)\n",
                (double)e->avr->cycle / e->avr->frequency, wall_s,
                (double)e->avr->cycle / e->avr->frequency / wall_s);
    print_stack(e);
    shutdown_all(e);
    return rc;
}
