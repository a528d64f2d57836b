/* log.h: the simulator's stderr log ("mcpsim: <level>: message"), filtered by --log-level. */
#ifndef HOST_LOG_H
#define HOST_LOG_H

#include <stdbool.h>

typedef enum host_log_level {
    HOST_LOG_ERROR = 0,
    HOST_LOG_WARN,
    HOST_LOG_INFO,
    HOST_LOG_DEBUG
} host_log_level_t;

/* Level from its name ("error", "warn", "info", "debug"); -1 for anything else. */
int host_log_parse_level(const char *name);

/* Sets the most verbose level printed (default HOST_LOG_INFO). Call before other threads start. */
void host_log_set_level(host_log_level_t level);

bool host_log_enabled(host_log_level_t level);

/* Prints one line to stderr when level is enabled; fmt is printf-style, no trailing newline. */
void host_log(host_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
