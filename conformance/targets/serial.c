/* serial.c: the serial:/dev/TTY target: raw 8N1, optional DTR reset and boot wait, boot noise. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "stream.h"
#include "target.h"

#define WRITE_TIMEOUT_MS 3000
#define DTR_PULSE_MS 100
#define ESP32_BOOT_MS 600

typedef struct serial {
    conf_stream_t s;
    bool seen_json; /* a JSON line arrived: what came before it was boot noise */
    unsigned noise_lines;
} serial_t;

static bool query_int(const char *query, const char *key, int *out, char *err, size_t cap)
{
    char text[32];
    if (!conf_query_get(query, key, text, sizeof text)) return true;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != 0 || end == text || v < 0 || v > 10000000) {
        snprintf(err, cap, "serial target: %s=%s is not a number", key, text);
        return false;
    }
    *out = (int)v;
    return true;
}

/*
 * Opening a USB serial port raises DTR, which resets ESP32-style boards: unless told otherwise
 * (boot_ms=0), the runner gives a real port 600 ms to boot; a pseudo-terminal (/dev/pts/N, the
 * simulator's UART) needs none. dtr=1 pulses DTR first for boards that need an explicit reset.
 */
static int serial_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char path[256];
    size_t n = strcspn(spec, "?");
    const char *query = spec + n;
    int baud = 115200, dtr = 0;
    if (n == 0 || n >= sizeof path) {
        snprintf(err, cap, "serial target: expected serial:/dev/TTY[?baud=115200]");
        return CONF_EXIT_USAGE;
    }
    memcpy(path, spec, n);
    path[n] = 0;
    /* a link such as mcpsim --pty-link /tmp/ttyMCP is a pseudo-terminal too */
    char real[PATH_MAX];
    const char *dev = realpath(path, real) ? real : path;
    int boot_ms = strncmp(dev, "/dev/pts/", 9) == 0 ? 0 : ESP32_BOOT_MS;
    if (!query_int(query, "baud", &baud, err, cap) || !query_int(query, "dtr", &dtr, err, cap) ||
        !query_int(query, "boot_ms", &boot_ms, err, cap))
        return CONF_EXIT_USAGE;
    int fd = conf_serial_open(path, baud, err, cap);
    if (fd < 0) return strstr(err, "baud") ? CONF_EXIT_USAGE : CONF_EXIT_UNREACHABLE;
    if (dtr && conf_serial_pulse_dtr(fd, DTR_PULSE_MS, err, cap) != 0) {
        close(fd);
        return CONF_EXIT_UNREACHABLE;
    }
    if (dtr && boot_ms == 0) boot_ms = ESP32_BOOT_MS;
    serial_t *sp = conf_xcalloc(1, sizeof *sp);
    conf_stream_init(&sp->s, fd);
    t->impl = sp;
    t->stream = true;
    t->rx = &sp->s;
    conf_copy(t->transport, sizeof t->transport, "serial");
    conf_sleep_ms(boot_ms);
    return CONF_EXIT_OK;
}

static int serial_send_raw(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap)
{
    serial_t *sp = t->impl;
    return conf_stream_write(&sp->s, bytes, len, conf_now_ms() + WRITE_TIMEOUT_MS, err, cap);
}

static int serial_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    char *line = conf_xmalloc(len + 1);
    memcpy(line, msg, len);
    line[len] = '\n';
    int rc = serial_send_raw(t, line, len + 1, err, cap);
    free(line);
    return rc;
}

static bool is_json_message(const char *line, size_t len)
{
    json_t *v = json_loadb(line, len, 0, NULL);
    bool ok = v != NULL;
    json_decref(v);
    return ok;
}

/* Lines before the first JSON line are boot noise: noted for the report, not returned. */
static int serial_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                          size_t cap)
{
    serial_t *sp = t->impl;
    for (;;) {
        int rc = conf_stream_read_line(&sp->s, deadline, msg, len, err, cap);
        if (rc != 1 || sp->seen_json) return rc;
        if (is_json_message(*msg, *len)) {
            sp->seen_json = true;
            return 1;
        }
        if (sp->noise_lines++ < 20) conf_buf_addf(&t->notes, "boot noise: %.200s\n", *msg);
        free(*msg);
        *msg = NULL;
    }
}

static void serial_close(conf_target_t *t)
{
    serial_t *sp = t->impl;
    if (!sp) return;
    conf_stream_close(&sp->s);
    free(sp);
    t->impl = NULL;
}

const conf_target_ops_t conf_target_serial = {
    "serial", serial_open, serial_send, serial_send_raw, serial_receive, serial_close, NULL, NULL};
