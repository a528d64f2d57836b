/* child.c: helper processes of the runner (the simulator, an emulator): start, readiness lines,
   how they ended, stop. */
#define _POSIX_C_SOURCE 200809L
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stream.h"
#include "util.h"

int conf_child_start(conf_child_t *c, const char *const *argv, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->out_fd = -1;
    int pipe_fd[2];
    snprintf(c->log_path, sizeof c->log_path, "/tmp/conformance-child-XXXXXX");
    int log_fd = mkstemp(c->log_path);
    if (log_fd < 0 || pipe(pipe_fd) != 0) {
        snprintf(err, cap, "cannot prepare to start %s: %s", argv[0], strerror(errno));
        if (log_fd >= 0) {
            close(log_fd);
            unlink(c->log_path);
        }
        c->log_path[0] = 0;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a runner killed mid-run takes its child along */
        dup2(pipe_fd[1], STDOUT_FILENO);
        dup2(log_fd, STDERR_FILENO);
        int null_fd = open("/dev/null", O_RDONLY);
        if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipe_fd[1]);
    close(log_fd);
    if (pid < 0) {
        snprintf(err, cap, "cannot start %s: %s", argv[0], strerror(errno));
        close(pipe_fd[0]);
        unlink(c->log_path);
        c->log_path[0] = 0;
        return -1;
    }
    c->pid = pid;
    c->out_fd = pipe_fd[0];
    return 0;
}

bool conf_child_ended(conf_child_t *c)
{
    if (c->ended) return true;
    if (c->pid <= 0) return false;
    int status;
    if (waitpid(c->pid, &status, WNOHANG) != c->pid) return false;
    c->status = status;
    c->ended = true;
    c->pid = 0;
    return true;
}

void conf_child_describe(const conf_child_t *c, char *out, size_t cap)
{
    if (!c->ended)
        snprintf(out, cap, "is still running");
    else if (WIFEXITED(c->status))
        snprintf(out, cap, "exited with status %d", WEXITSTATUS(c->status));
    else if (WIFSIGNALED(c->status))
        snprintf(out, cap, "was killed by signal %d (%s)", WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    else
        snprintf(out, cap, "ended (wait status 0x%x)", (unsigned)c->status);
}

void conf_child_log_tail(const conf_child_t *c, char *out, size_t cap)
{
    out[0] = 0;
    if (!c->log_path[0] || cap < 2) return;
    char err[128];
    size_t len;
    char *text = conf_read_file(c->log_path, &len, err, sizeof err);
    if (!text) return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
    const char *start = len > cap - 1 ? text + len - (cap - 1) : text;
    conf_copy(out, cap, start);
    free(text);
}

/* Stores line in the slot of the first prefix it starts with. */
static void take_line(const char *line, const char *const *want, char **values, size_t cap)
{
    for (size_t i = 0; want[i]; i++) {
        size_t n = strlen(want[i]);
        if (strncmp(line, want[i], n) == 0) {
            conf_copy(values[i], cap, line + n);
            return;
        }
    }
}

static bool all_found(const char *const *want, char **values)
{
    for (size_t i = 0; want[i]; i++)
        if (!values[i][0]) return false;
    return true;
}

/* Why waiting failed: the child's end and its log, or the timeout. */
static void wait_failed(conf_child_t *c, int timeout_ms, const char *what, char *err, size_t ecap)
{
    char how[96], tail[600];
    conf_sleep_ms(20); /* let a dying child finish its last words */
    bool ended = conf_child_ended(c);
    conf_child_describe(c, how, sizeof how);
    conf_child_log_tail(c, tail, sizeof tail);
    if (ended)
        snprintf(err, ecap, "it %s before %s%s%s", how, what, tail[0] ? "; its log ends:\n" : "",
                 tail);
    else
        snprintf(err, ecap, "no %s within %d ms%s%s", what, timeout_ms,
                 tail[0] ? "; its log ends:\n" : "", tail);
}

int conf_child_wait_lines(conf_child_t *c, bool from_log, const char *const *want, char **values,
                          size_t cap, const char *stop, int timeout_ms, char *err, size_t ecap)
{
    char what[96];
    snprintf(what, sizeof what, "\"%s\" line", stop ? stop : want[0]);
    int64_t deadline = conf_now_ms() + timeout_ms;
    if (!from_log) {
        conf_stream_t s;
        conf_stream_init(&s, c->out_fd);
        int rc = -1;
        for (;;) {
            char *line, why[128];
            size_t len;
            int got = conf_stream_read_line(&s, deadline, &line, &len, why, sizeof why);
            if (got != 1) break;
            take_line(line, want, values, cap);
            bool done = stop ? strcmp(line, stop) == 0 : all_found(want, values);
            free(line);
            if (done) {
                rc = 0;
                break;
            }
        }
        s.fd = -1; /* the pipe stays open: the child must never see EPIPE */
        conf_stream_close(&s);
        if (rc != 0) wait_failed(c, timeout_ms, what, err, ecap);
        return rc;
    }
    /* The log is a file the child appends to: read what is new every few ms. */
    conf_lines_t lines = {0};
    size_t done_bytes = 0;
    int rc = -1;
    while (rc != 0 && conf_now_ms() < deadline && !conf_child_ended(c)) {
        size_t len;
        char why[128];
        char *text = conf_read_file(c->log_path, &len, why, sizeof why);
        if (text && len > done_bytes) {
            conf_lines_push(&lines, text + done_bytes, len - done_bytes);
            done_bytes = len;
        }
        free(text);
        char *line;
        size_t ll;
        while (rc != 0 && (line = conf_lines_pop(&lines, &ll))) {
            take_line(line, want, values, cap);
            if (stop ? strcmp(line, stop) == 0 : all_found(want, values)) rc = 0;
            free(line);
        }
        if (rc != 0) conf_sleep_ms(10);
    }
    conf_lines_free(&lines);
    if (rc != 0) wait_failed(c, timeout_ms, what, err, ecap);
    return rc;
}

void conf_child_stop(conf_child_t *c, int wait_ms)
{
    if (c->pid > 0 && !c->ended) {
        kill(c->pid, SIGTERM);
        int64_t deadline = conf_now_ms() + wait_ms;
        while (!conf_child_ended(c)) {
            if (conf_now_ms() > deadline) {
                kill(c->pid, SIGKILL);
                int status;
                if (waitpid(c->pid, &status, 0) == c->pid) c->status = status;
                c->ended = true;
                c->pid = 0;
                break;
            }
            conf_sleep_ms(2);
        }
    }
    if (c->out_fd >= 0) close(c->out_fd);
    c->out_fd = -1;
    if (c->log_path[0]) unlink(c->log_path);
    c->log_path[0] = 0;
}
