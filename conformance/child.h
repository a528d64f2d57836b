/* child.h: a helper process the runner starts (the simulator, an emulator): spawn it with its
   stdout on a pipe and its stderr in a log file, read its readiness lines, tell how it ended. */
#ifndef CONF_CHILD_H
#define CONF_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct conf_child {
    pid_t pid;         /* 0 when none runs */
    int out_fd;        /* its stdout (kept open so it never sees EPIPE), or -1 */
    char log_path[64]; /* its stderr, a temporary file, or "" */
    int status;        /* waitpid status once it ended (ended true) */
    bool ended;
} conf_child_t;

/* Starts argv[0] (PATH searched) with stdout on a pipe, stderr in a log file and stdin from
   /dev/null; it gets SIGTERM when the runner dies. 0, or -1 with err. */
int conf_child_start(conf_child_t *c, const char *const *argv, char *err, size_t cap);

/*
 * Reads the child's stdout lines until a stop line: `want` is a NULL-terminated list of
 * prefixes ("uart: ", "control: ", "ready", ...), each line starting with one of them is stored
 * (the rest of the line) in the matching slot of `values` (cap bytes each); reading stops at the
 * line equal to `stop`, or, when stop is NULL, as soon as every prefix has a value. With
 * from_log, the child's log (stderr) is read instead of stdout (QEMU prints its pty there).
 * 0, or -1 with err (deadline passed, or the child ended: err then says how).
 */
int conf_child_wait_lines(conf_child_t *c, bool from_log, const char *const *want, char **values,
                          size_t cap, const char *stop, int timeout_ms, char *err, size_t ecap);

/* True when the child has ended (reaps it; c->status then holds how). */
bool conf_child_ended(conf_child_t *c);

/* "exited with status 4" / "was killed by signal 11 (Segmentation fault)". */
void conf_child_describe(const conf_child_t *c, char *out, size_t cap);

/* The last cap-1 bytes of its log ("" when there is none). */
void conf_child_log_tail(const conf_child_t *c, char *out, size_t cap);

/* SIGTERM, then SIGKILL after wait_ms; closes the pipe and removes the log. */
void conf_child_stop(conf_child_t *c, int wait_ms);

#endif
