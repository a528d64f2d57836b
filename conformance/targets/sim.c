/* sim.c: the sim[:BOARD] target: spawns mcpsim (virtual clock, control channel), talks TCP, pty,
   HTTP or WebSocket. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stream.h"
#include "target.h"

#define DEFAULT_BOARD "esp32-demo"
#define READY_TIMEOUT_MS 10000
#define EXIT_WAIT_MS 2000

typedef struct sim_impl {
    pid_t pid;
    char log_path[64];   /* the simulator's stderr, shown when it fails to start */
    conf_target_t inner; /* the tcp or serial target that carries the messages */
} sim_impl_t;

/* The tail of the simulator's log, for error messages. */
static void log_tail(const sim_impl_t *s, char *out, size_t cap)
{
    char err[128];
    size_t len;
    char *text = conf_read_file(s->log_path, &len, err, sizeof err);
    out[0] = 0;
    if (!text) return;
    const char *start = len > cap - 1 ? text + len - (cap - 1) : text;
    conf_copy(out, cap, start);
    free(text);
}

static pid_t spawn(const char *const *argv, int out_fd, int log_fd)
{
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a runner killed mid-run takes its simulator along */
    dup2(out_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    execvp(argv[0], (char *const *)argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Reads the readiness lines ("tcp: ...", "http: URL", "ws: URL", "control: ...", "uart: ...",
   "ready"); tcp receives whichever of tcp, http and ws was asked for. */
static int read_ready(int fd, char *tcp, char *control, char *uart, size_t cap, char *err,
                      size_t ecap)
{
    conf_stream_t s;
    conf_stream_init(&s, fd);
    int64_t deadline = conf_now_ms() + READY_TIMEOUT_MS;
    int rc = -1;
    for (;;) {
        char *line;
        size_t len;
        int got = conf_stream_read_line(&s, deadline, &line, &len, err, ecap);
        if (got != 1) {
            if (got == 0) snprintf(err, ecap, "no \"ready\" within %d ms", READY_TIMEOUT_MS);
            break;
        }
        if (strncmp(line, "tcp: ", 5) == 0) conf_copy(tcp, cap, line + 5);
        if (strncmp(line, "http: ", 6) == 0) conf_copy(tcp, cap, line + 6);
        if (strncmp(line, "ws: ", 4) == 0) conf_copy(tcp, cap, line + 4);
        if (strncmp(line, "control: ", 9) == 0) conf_copy(control, cap, line + 9);
        if (strncmp(line, "uart: ", 6) == 0) conf_copy(uart, cap, line + 6);
        bool ready = strcmp(line, "ready") == 0;
        free(line);
        if (ready) {
            rc = 0;
            break;
        }
    }
    s.fd = -1; /* the caller keeps the pipe open so the simulator never sees EPIPE */
    conf_stream_close(&s);
    return rc;
}

static void stop(sim_impl_t *s)
{
    if (s->pid <= 0) return;
    kill(s->pid, SIGTERM);
    int64_t deadline = conf_now_ms() + EXIT_WAIT_MS;
    while (waitpid(s->pid, NULL, WNOHANG) == 0) {
        if (conf_now_ms() > deadline) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, NULL, 0);
            break;
        }
        conf_sleep_ms(2);
    }
    s->pid = 0;
}

/* Parses "BOARD[?transport=tcp|serial|http|ws][&envelope=1]" into board and transport. */
static int parse_spec(const char *spec, char *board, size_t cap, char *transport, char *err,
                      size_t ecap)
{
    size_t n = strcspn(spec, "?");
    conf_copy(transport, 16, "tcp");
    conf_copy(board, cap, DEFAULT_BOARD);
    if (n > 0 && n < cap) {
        memcpy(board, spec, n);
        board[n] = 0;
    }
    conf_query_get(spec + n, "transport", transport, 16);
    if (strcmp(transport, "tcp") != 0 && strcmp(transport, "serial") != 0 &&
        strcmp(transport, "http") != 0 && strcmp(transport, "ws") != 0) {
        snprintf(err, ecap, "sim target: transport=%s (tcp, serial, http or ws)", transport);
        return CONF_EXIT_USAGE;
    }
    return CONF_EXIT_OK;
}

static int start(conf_target_t *t, sim_impl_t *s, const char *board, const char *transport,
                 int *out_fd, char *tcp, char *uart, size_t cap, char *err, size_t ecap)
{
    const char *exe = t->opts && t->opts->mcpsim ? t->opts->mcpsim : "mcpsim";
    bool serial = strcmp(transport, "serial") == 0;
    char flag[24];
    snprintf(flag, sizeof flag, "--%s", serial ? "pty" : transport);
    const char *argv[] = {exe, "--board",     board,  "--clock", "virtual",           "--control",
                          "0", "--log-level", "warn", flag,      serial ? NULL : "0", NULL};
    int pipe_fd[2];
    snprintf(s->log_path, sizeof s->log_path, "/tmp/conformance-mcpsim-XXXXXX");
    int log_fd = mkstemp(s->log_path);
    if (log_fd < 0 || pipe(pipe_fd) != 0) {
        snprintf(err, ecap, "cannot prepare to start %s: %s", exe, strerror(errno));
        if (log_fd >= 0) close(log_fd);
        return CONF_EXIT_UNREACHABLE;
    }
    s->pid = spawn(argv, pipe_fd[1], log_fd);
    close(pipe_fd[1]);
    close(log_fd);
    *out_fd = pipe_fd[0];
    char why[256];
    if (s->pid < 0 || read_ready(pipe_fd[0], tcp, t->control, uart, cap, why, sizeof why) != 0) {
        char tail[512];
        conf_sleep_ms(20);
        log_tail(s, tail, sizeof tail);
        snprintf(err, ecap, "simulator %s --board %s did not start: %s%s%s", exe, board, why,
                 tail[0] ? "\n" : "", tail);
        return CONF_EXIT_UNREACHABLE;
    }
    return CONF_EXIT_OK;
}

static const conf_target_ops_t *inner_kind(const char *transport)
{
    if (strcmp(transport, "serial") == 0) return &conf_target_serial;
    if (strcmp(transport, "http") == 0) return &conf_target_http;
    if (strcmp(transport, "ws") == 0) return &conf_target_ws;
    return &conf_target_tcp;
}

/* The inner target's spec: the address mcpsim announced (a URL's part after "SCHEME:"), with the
   sim spec's envelope option passed on to ws. */
static void inner_spec(const char *transport, const char *spec, const char *endpoint,
                       const char *uart, char *out, size_t cap)
{
    char env[8];
    const char *colon = strchr(endpoint, ':');
    if (strcmp(transport, "serial") == 0)
        snprintf(out, cap, "%s", uart);
    else if (strcmp(transport, "tcp") == 0 || !colon)
        snprintf(out, cap, "%s", endpoint);
    else if (strcmp(transport, "ws") == 0 &&
             conf_query_get(strchr(spec, '?'), "envelope", env, sizeof env))
        snprintf(out, cap, "%s?envelope=%s", colon + 1, env);
    else
        snprintf(out, cap, "%s", colon + 1);
}

typedef struct sim_state {
    sim_impl_t s;
    int out_fd; /* the simulator's stdout, kept open */
} sim_state_t;

static int sim_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char board[256], tcp[160] = "", uart[160] = "", inner[200], transport[16];
    int rc = parse_spec(spec, board, sizeof board, transport, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    sim_state_t *st = conf_xcalloc(1, sizeof *st);
    st->out_fd = -1;
    t->impl = st;
    rc = start(t, &st->s, board, transport, &st->out_fd, tcp, uart, sizeof tcp, err, cap);
    if (rc == CONF_EXIT_OK) {
        const conf_target_ops_t *ops = inner_kind(transport);
        inner_spec(transport, spec, tcp, uart, inner, sizeof inner);
        st->s.inner.ops = ops;
        st->s.inner.opts = t->opts;
        rc = ops->open(&st->s.inner, inner, err, cap);
        if (rc == CONF_EXIT_OK)
            st->s.inner.ops = ops;
        else
            st->s.inner.ops = NULL;
    }
    if (rc != CONF_EXIT_OK) {
        t->ops->close(t);
        return rc == CONF_EXIT_USAGE ? CONF_EXIT_UNREACHABLE : rc;
    }
    conf_copy(t->transport, sizeof t->transport, st->s.inner.transport);
    t->stream = st->s.inner.stream;
    t->virtual_clock = true;
    return CONF_EXIT_OK;
}

static int sim_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    return st->s.inner.ops->send(&st->s.inner, msg, len, err, cap);
}

static int sim_send_raw(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    if (!st->s.inner.ops->send_raw) {
        snprintf(err, cap, "send_raw needs a byte-stream transport (this is %s)", t->transport);
        return -1;
    }
    return st->s.inner.ops->send_raw(&st->s.inner, bytes, len, err, cap);
}

static int sim_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                       size_t cap)
{
    sim_state_t *st = t->impl;
    int rc = st->s.inner.ops->receive(&st->s.inner, deadline, msg, len, err, cap);
    if (st->s.inner.notes.len) {
        conf_buf_add(&t->notes, st->s.inner.notes.p, st->s.inner.notes.len);
        st->s.inner.notes.len = 0;
    }
    return rc;
}

static void sim_close(conf_target_t *t)
{
    sim_state_t *st = t->impl;
    if (!st) return;
    if (st->s.inner.ops) st->s.inner.ops->close(&st->s.inner);
    conf_buf_free(&st->s.inner.notes);
    stop(&st->s);
    if (st->out_fd >= 0) close(st->out_fd);
    if (st->s.log_path[0]) unlink(st->s.log_path);
    free(st);
    t->impl = NULL;
}

static int sim_http(conf_target_t *t, const json_t *req, json_t **resp, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    if (!st->s.inner.ops->http) {
        snprintf(err, cap, "raw HTTP exchanges need an HTTP target (this is %s)", t->transport);
        return -1;
    }
    return st->s.inner.ops->http(&st->s.inner, req, resp, err, cap);
}

const conf_target_ops_t conf_target_sim = {"sim",       sim_open,  sim_send, sim_send_raw,
                                           sim_receive, sim_close, sim_http};
