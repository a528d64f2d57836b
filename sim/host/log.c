/* log.c: the simulator's stderr log: one "mcpsim: <level>: message" line per call. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

/* Written once at startup, before any other thread exists; read-only afterwards. */
static host_log_level_t max_level = HOST_LOG_INFO;

int host_log_parse_level(const char *name)
{
    for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
        if (strcmp(name, level_names[i]) == 0) return i;
    return -1;
}

void host_log_set_level(host_log_level_t level)
{
    max_level = level;
}

bool host_log_enabled(host_log_level_t level)
{
    return level <= max_level;
}

void host_log(host_log_level_t level, const char *fmt, ...)
{
    if (!host_log_enabled(level)) return;
    /* One buffer and one fputs, so lines of concurrent writers never interleave. */
    char line[1024];
    int n = snprintf(line, sizeof line, "mcpsim: %s: ", level_names[level]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
}
