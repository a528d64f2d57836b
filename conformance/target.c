/* target.c: choosing a target kind from its spec, and what all kinds share. */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const conf_target_ops_t *const kinds[] = {
    &conf_target_sim,  &conf_target_tcp,  &conf_target_serial, &conf_target_http,
    &conf_target_ws,   &conf_target_qemu, &conf_target_avr,    &conf_target_mqtt};

bool conf_query_get(const char *query, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = query; p && *p;) {
        if (*p == '?' || *p == '&') p++;
        const char *end = p + strcspn(p, "&");
        if ((size_t)(end - p) > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = (size_t)(end - p) - kl - 1;
            if (n >= cap) n = cap - 1;
            memcpy(out, p + kl + 1, n);
            out[n] = 0;
            return true;
        }
        p = end;
    }
    return false;
}

/* The kind and the spec's remainder after "scheme:" ("" when there is none). */
static const conf_target_ops_t *kind_of(const char *spec, const char **rest)
{
    /* any path is a serial port: /dev/ttyUSB0, a link such as /tmp/ttyMCP, ./port */
    if (spec[0] == '/' || strncmp(spec, "./", 2) == 0 || strncmp(spec, "../", 3) == 0) {
        *rest = spec;
        return &conf_target_serial;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i]->scheme);
        if (strncmp(spec, kinds[i]->scheme, n) != 0) continue;
        if (spec[n] == ':') {
            *rest = spec + n + 1;
            return kinds[i];
        }
        if (spec[n] == 0 || spec[n] == '?') {
            *rest = spec + n;
            return kinds[i];
        }
    }
    return NULL;
}

conf_target_t *conf_target_open(const char *spec, const conf_target_opts_t *opts, int *rc,
                                char *err, size_t cap)
{
    const char *rest = NULL;
    const conf_target_ops_t *ops = kind_of(spec, &rest);
    if (!ops) {
        snprintf(err, cap,
                 "unknown target \"%s\" (sim[:BOARD], tcp:HOST:PORT, "
                 "serial:/dev/TTY[?baud=N], a path (/dev/ttyUSB0, /tmp/ttyMCP), http://HOST:PORT/PATH, "
                 "ws://HOST:PORT/PATH, mqtt://HOST:PORT?to=TOPIC&from=TOPIC, "
                 "qemu:FILE.elf[?machine=M], avr:FILE.elf[?mcu=M])",
                 spec);
        *rc = CONF_EXIT_USAGE;
        return NULL;
    }
    conf_target_t *t = conf_xcalloc(1, sizeof *t);
    t->ops = ops;
    t->opts = opts;
    conf_copy(t->spec, sizeof t->spec, spec);
    *rc = ops->open(t, rest, err, cap);
    if (*rc != CONF_EXIT_OK) {
        conf_buf_free(&t->notes);
        json_decref(t->vars);
        free(t);
        return NULL;
    }
    char v[8];
    const char *query = strchr(spec, '?');
    t->mcp = t->stream && query && conf_query_get(query, "mcp", v, sizeof v) && strcmp(v, "1") == 0;
    return t;
}

void conf_target_close(conf_target_t *t)
{
    if (!t) return;
    t->ops->close(t);
    conf_buf_free(&t->notes);
    json_decref(t->vars);
    free(t);
}
