/* emu.c: the qemu:FILE.elf and avr:FILE.elf targets: any firmware binary, run in an emulator
   (QEMU's Cortex-M machines, or mcpsim-avr on libsimavr) and tested over its emulated UART
   exactly as serial: tests a board on a cable. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "target.h"

#define READY_TIMEOUT_MS 10000
#define EXIT_WAIT_MS 2000
/* Time the firmware gets between the emulator's start and the first request: its startup code
   and UART set-up (bytes sent before the UART is enabled would be lost, as on a real chip). */
#define DEFAULT_BOOT_MS 300

/* ELF machine numbers of e_machine. */
#define ELF_MACHINE_ARM 40
#define ELF_MACHINE_AVR 83

typedef struct emu {
    conf_child_t child;  /* the emulator */
    conf_target_t inner; /* the serial target on its UART's pty */
    const char *name;    /* "QEMU" or "mcpsim-avr", for messages */
} emu_t;

/*
 * Checks that path is an ELF file for `machine` (so that a wrong file gets a clear usage error
 * instead of an emulator's cryptic one): 0, or -1 with err naming the file and the cause.
 */
static int check_elf(const char *path, int machine, const char *arch, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    unsigned char h[20];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h || memcmp(h, "\177ELF", 4) != 0) {
        snprintf(err, cap, "%s: not an ELF file (a firmware binary as the linker writes it, "
                           "not a .hex or .bin)", path);
        return -1;
    }
    /* e_machine is at offset 18, in the file's byte order (e_ident[5]: 1 little, 2 big). */
    int m = h[5] == 2 ? (h[18] << 8 | h[19]) : (h[19] << 8 | h[18]);
    if (m != machine) {
        snprintf(err, cap, "%s: an ELF for machine %d, not %s (%d)", path, m, arch, machine);
        return -1;
    }
    return 0;
}

static bool query_number(const char *query, const char *key, long max, long *out, char *err,
                         size_t cap)
{
    char text[32];
    if (!conf_query_get(query, key, text, sizeof text)) return true;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != 0 || end == text || v < 0 || v > max) {
        snprintf(err, cap, "%s=%s is not a number in 0..%ld", key, text, max);
        return false;
    }
    *out = v;
    return true;
}

/* A query value that becomes a command-line argument: letters, digits and -_./ only. */
static bool query_word(const char *query, const char *key, char *out, size_t cap, char *err,
                       size_t ecap)
{
    if (!conf_query_get(query, key, out, cap)) return true;
    if (!out[0] || strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") !=
                       strlen(out)) {
        snprintf(err, ecap, "%s=%s: expected a name", key, out);
        return false;
    }
    return true;
}

/* The file part of "FILE[?query]" into path; the query starts at *query. */
static int split_spec(const char *kind, const char *spec, char *path, size_t cap,
                      const char **query, char *err, size_t ecap)
{
    size_t n = strcspn(spec, "?");
    if (n == 0 || n >= cap) {
        snprintf(err, ecap, "%s target: expected %s:FILE.elf[?...]", kind, kind);
        return CONF_EXIT_USAGE;
    }
    memcpy(path, spec, n);
    path[n] = 0;
    *query = spec + n;
    return CONF_EXIT_OK;
}

/* The emulator is up and its UART is at uart: open the serial target on it. */
static int attach(conf_target_t *t, emu_t *e, const char *uart, long boot_ms, char *err,
                  size_t cap)
{
    char inner[300];
    snprintf(inner, sizeof inner, "%s?boot_ms=%ld", uart, boot_ms);
    e->inner.opts = t->opts;
    int rc = conf_target_serial.open(&e->inner, inner, err, cap);
    if (rc != CONF_EXIT_OK) return CONF_EXIT_UNREACHABLE;
    e->inner.ops = &conf_target_serial;
    conf_copy(t->transport, sizeof t->transport, "serial");
    t->stream = true;
    t->rx = e->inner.rx;
    return CONF_EXIT_OK;
}

static void emu_close(conf_target_t *t)
{
    emu_t *e = t->impl;
    if (!e) return;
    if (e->inner.ops) e->inner.ops->close(&e->inner);
    conf_buf_free(&e->inner.notes);
    conf_child_stop(&e->child, EXIT_WAIT_MS);
    free(e);
    t->impl = NULL;
}

/* Starts argv, waits for the lines in want (stop: the line that ends the wait, or NULL for
   "every prefix seen"), then attaches to the UART found in values[uart_slot]. */
static int launch(conf_target_t *t, emu_t *e, const char *const *argv, const char *const *want,
                  char **values, size_t vcap, const char *stop, size_t uart_slot, long boot_ms,
                  char *err, size_t cap)
{
    char why[1024];
    if (conf_child_start(&e->child, argv, why, sizeof why) != 0) {
        snprintf(err, cap, "%s", why);
        return CONF_EXIT_UNREACHABLE;
    }
    if (conf_child_wait_lines(&e->child, false, want, values, vcap, stop, READY_TIMEOUT_MS, why,
                              sizeof why) != 0) {
        snprintf(err, cap, "%s (%s) did not start: %s", e->name, argv[0], why);
        return CONF_EXIT_UNREACHABLE;
    }
    char *uart = values[uart_slot];
    uart[strcspn(uart, " ")] = 0; /* QEMU: "/dev/pts/3 (label serial0)" */
    if (strncmp(uart, "/dev/", 5) != 0) {
        snprintf(err, cap, "%s announced no usable UART (\"%s\")", e->name, uart);
        return CONF_EXIT_UNREACHABLE;
    }
    return attach(t, e, uart, boot_ms, err, cap);
}

/* ---------------------------------------------------------------- qemu:FILE.elf */

/*
 * qemu:FILE.elf[?machine=lm3s6965evb][&qemu=qemu-system-arm][&boot_ms=300]: QEMU with the ELF
 * as its kernel, the machine's first UART on a pty (QEMU prints "char device redirected to
 * /dev/pts/N (label serial0)"), no display, no monitor, no reboot (a reset request ends QEMU,
 * which the runner reports, instead of looping).
 */
static int qemu_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char path[256], machine[64] = "lm3s6965evb", exe[128] = "qemu-system-arm";
    const char *query;
    long boot_ms = DEFAULT_BOOT_MS;
    int rc = split_spec("qemu", spec, path, sizeof path, &query, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    char why[512] = "";
    if (!query_word(query, "machine", machine, sizeof machine, why, sizeof why) ||
        !query_word(query, "qemu", exe, sizeof exe, why, sizeof why) ||
        !query_number(query, "boot_ms", 60000, &boot_ms, why, sizeof why) ||
        check_elf(path, ELF_MACHINE_ARM, "ARM", why, sizeof why) != 0) {
        snprintf(err, cap, "qemu target: %s", why);
        return CONF_EXIT_USAGE;
    }
    emu_t *e = conf_xcalloc(1, sizeof *e);
    e->name = "QEMU";
    t->impl = e;
    const char *argv[] = {exe,     "-M",          machine, "-display", "none", "-monitor",
                          "none",  "-serial",     "pty",   "-kernel",  path,   "-no-reboot",
                          NULL};
    char uart[200] = "";
    const char *want[] = {"char device redirected to ", NULL};
    char *values[] = {uart};
    rc = launch(t, e, argv, want, values, sizeof uart, NULL, 0, boot_ms, err, cap);
    if (rc != CONF_EXIT_OK) emu_close(t);
    return rc;
}

/* ---------------------------------------------------------------- avr:FILE.elf */

/* mcpsim-avr: $MCPSIM_AVR, the build's (CONF_MCPSIM_AVR_DEFAULT), next to this runner, or PATH. */
static const char *avr_emulator(char *buf, size_t cap)
{
    const char *env = getenv("MCPSIM_AVR");
    if (env && *env) return env;
#ifdef CONF_MCPSIM_AVR_DEFAULT
    if (CONF_MCPSIM_AVR_DEFAULT[0] && access(CONF_MCPSIM_AVR_DEFAULT, X_OK) == 0)
        return CONF_MCPSIM_AVR_DEFAULT;
#endif
    const char *beside = conf_beside_exe("mcpsim-avr", X_OK, buf, cap);
    return beside ? beside : "mcpsim-avr";
}

/*
 * avr:FILE.elf[?mcu=atmega328p][&freq=16000000][&boot_ms=300]: mcpsim-avr (sim/emu/) runs the
 * ELF on libsimavr in real time with USART0 on a pty and a control channel for the chip's input
 * pins and ADC (a subset of the simulator's: the scenarios that need another method are
 * skipped). Without mcu/freq, the ELF's .mmcu section or the emulator's defaults decide.
 */
static int avr_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char path[256], mcu[32] = "", exe_buf[4096];
    const char *query;
    long freq = 0, boot_ms = DEFAULT_BOOT_MS;
    int rc = split_spec("avr", spec, path, sizeof path, &query, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    char why[512] = "";
    if (!query_word(query, "mcu", mcu, sizeof mcu, why, sizeof why) ||
        !query_number(query, "freq", 100000000, &freq, why, sizeof why) ||
        !query_number(query, "boot_ms", 60000, &boot_ms, why, sizeof why) ||
        check_elf(path, ELF_MACHINE_AVR, "AVR", why, sizeof why) != 0) {
        snprintf(err, cap, "avr target: %s", why);
        return CONF_EXIT_USAGE;
    }
    emu_t *e = conf_xcalloc(1, sizeof *e);
    e->name = "mcpsim-avr";
    t->impl = e;
    char freq_text[24];
    snprintf(freq_text, sizeof freq_text, "%ld", freq);
    const char *argv[12];
    size_t a = 0;
    argv[a++] = avr_emulator(exe_buf, sizeof exe_buf);
    if (mcu[0]) argv[a++] = "--mcu", argv[a++] = mcu;
    if (freq > 0) argv[a++] = "--freq", argv[a++] = freq_text;
    argv[a++] = "--control";
    argv[a++] = "0";
    argv[a++] = path;
    argv[a] = NULL;
    char uart[200] = "";
    const char *want[] = {"uart: ", "control: ", NULL};
    char *values[] = {uart, t->control};
    rc = launch(t, e, argv, want, values, sizeof uart, "ready", 0, boot_ms, err, cap);
    if (rc != CONF_EXIT_OK) {
        emu_close(t);
        return rc;
    }
    /* Not sim.time: the emulated chip runs in real time, and the scenarios that read the clock
       expect the exact virtual time that their wait steps advanced. */
    conf_copy(t->control_methods, sizeof t->control_methods,
              "sim.set_input sim.set_analog sim.get_pin sim.read_outputs");
    return CONF_EXIT_OK;
}

/* ---------------------------------------------------------------- shared */

static int emu_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    emu_t *e = t->impl;
    return e->inner.ops->send(&e->inner, msg, len, err, cap);
}

static int emu_send_raw(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap)
{
    emu_t *e = t->impl;
    return e->inner.ops->send_raw(&e->inner, bytes, len, err, cap);
}

static void emu_diagnose(conf_target_t *t, char *out, size_t cap)
{
    emu_t *e = t->impl;
    out[0] = 0;
    if (!e || !conf_child_ended(&e->child)) return;
    char how[96], tail[600];
    conf_child_describe(&e->child, how, sizeof how);
    conf_child_log_tail(&e->child, tail, sizeof tail);
    snprintf(out, cap, "the emulator (%s) %s%s%s", e->name, how,
             tail[0] ? "; its log ends:\n" : "", tail);
}

/* A receive that fails or times out while the emulator has ended is a lost device, with the
   emulator's own account of why (a crashed chip, a stopped CPU, QEMU's fatal error). */
static int emu_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                       size_t cap)
{
    emu_t *e = t->impl;
    int rc = e->inner.ops->receive(&e->inner, deadline, msg, len, err, cap);
    if (e->inner.notes.len) {
        conf_buf_add(&t->notes, e->inner.notes.p, e->inner.notes.len);
        e->inner.notes.len = 0;
    }
    if (rc != 1) {
        char why[900];
        /* A UART that closed is an emulator that is ending: give it a moment to finish. */
        for (int i = 0; rc < 0 && i < 50 && !conf_child_ended(&e->child); i++) conf_sleep_ms(10);
        emu_diagnose(t, why, sizeof why);
        if (why[0]) {
            snprintf(err, cap, "%s", why);
            return -1;
        }
    }
    return rc;
}

const conf_target_ops_t conf_target_qemu = {"qemu",      qemu_open, emu_send, emu_send_raw,
                                            emu_receive, emu_close, NULL,     emu_diagnose};
const conf_target_ops_t conf_target_avr = {"avr",       avr_open,  emu_send, emu_send_raw,
                                           emu_receive, emu_close, NULL,     emu_diagnose};
