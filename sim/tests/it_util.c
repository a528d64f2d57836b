/* it_util.c: integration-test helpers: run build/bin/mcpsim, talk to it over TCP and its pty. */
#include "it_util.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

double it_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int remaining_ms(double deadline)
{
    double left = deadline - it_now();
    return left <= 0 ? 0 : (int)(left * 1000.0) + 1;
}

const char *it_bin(void)
{
    const char *env = getenv("MCPSIM_BIN");
    return env && *env ? env : MCPSIM_BIN;
}

static void copy_value(char *dst, size_t cap, const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) == 0 && line[n] == ':' && line[n + 1] == ' ')
        snprintf(dst, cap, "%s", line + n + 2);
}

static int port_of(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    return colon ? atoi(colon + 1) : 0;
}

static void parse_ready_line(it_proc_t *p, const char *line)
{
    copy_value(p->uart, sizeof p->uart, line, "uart");
    copy_value(p->uart_link, sizeof p->uart_link, line, "uart-link");
    copy_value(p->tcp, sizeof p->tcp, line, "tcp");
    copy_value(p->control, sizeof p->control, line, "control");
    copy_value(p->http, sizeof p->http, line, "http");
    copy_value(p->dashboard, sizeof p->dashboard, line, "dashboard");
}

static void child_exec(const it_proc_t *p, int out_w, const char *const *args)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a failed test must not leave a simulator behind */
    signal(SIGPIPE, SIG_DFL);
    int err = open(p->err_path, O_WRONLY | O_APPEND);
    dup2(out_w, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    const char *bin = it_bin();
    const char *argv[32] = {bin};
    for (int i = 0; args[i] && i < 30; i++) argv[i + 1] = args[i];
    execv(bin, (char *const *)argv);
    _exit(127);
}

/* Reads stdout until "ready" (true) or end of file (false). */
static bool read_ready(it_proc_t *p)
{
    char buf[4096];
    size_t len = 0;
    double deadline = it_now() + IT_TIMEOUT;
    for (;;) {
        char *nl;
        while ((nl = memchr(buf, '\n', len)) != NULL) {
            *nl = 0;
            if (strcmp(buf, "ready") == 0) return true;
            parse_ready_line(p, buf);
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len);
        }
        struct pollfd pfd = {p->out_fd, POLLIN, 0};
        ck_assert_msg(poll(&pfd, 1, remaining_ms(deadline)) == 1, "mcpsim: no 'ready' in time");
        ssize_t n = read(p->out_fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) return false;
        len += (size_t)n;
    }
}

bool it_start(it_proc_t *p, const char *const *args)
{
    memset(p, 0, sizeof *p);
    signal(SIGPIPE, SIG_IGN); /* a write to a closed connection fails the test, not kills it */
    snprintf(p->err_path, sizeof p->err_path, "/tmp/mcpsim-it-XXXXXX");
    int fd = mkstemp(p->err_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    int out[2];
    ck_assert_int_eq(pipe(out), 0);
    p->pid = fork();
    ck_assert_int_ge(p->pid, 0);
    if (p->pid == 0) {
        close(out[0]);
        child_exec(p, out[1], args);
    }
    close(out[1]);
    p->out_fd = out[0];
    if (read_ready(p)) {
        p->tcp_port = port_of(p->tcp);
        p->control_port = port_of(p->control);
        return true;
    }
    it_wait_exit(p);
    return false;
}

void it_start_board(it_proc_t *p, const char *board)
{
    /* the pty keeps its line buffer empty on open, without the boot some boards do then */
    const char *args[] = {"--board",   board,  "--pty",    "--pty-reset-on-open",
                          "off",       "--tcp", "0",       "--control",
                          "0",         "--clock", "virtual", "--log-level",
                          "debug",     NULL};
    ck_assert_msg(it_start(p, args), "mcpsim --board %s did not start (exit %d)", board, p->status);
    ck_assert_str_ne(p->uart, "");
    ck_assert_int_gt(p->tcp_port, 0);
    ck_assert_int_gt(p->control_port, 0);
}

static int decode_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int it_wait_exit(it_proc_t *p)
{
    if (p->exited) return p->status;
    double deadline = it_now() + IT_TIMEOUT;
    int status = 0;
    pid_t r;
    while ((r = waitpid(p->pid, &status, WNOHANG)) == 0 && it_now() < deadline) usleep(1000);
    if (r == 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &status, 0);
        ck_abort_msg("mcpsim did not exit within %.0f s", IT_TIMEOUT);
    }
    p->exited = true;
    p->status = decode_status(status);
    if (p->out_fd >= 0) close(p->out_fd);
    p->out_fd = -1;
    return p->status;
}

int it_stop(it_proc_t *p, int sig, double *seconds)
{
    double t0 = it_now();
    if (!p->exited) kill(p->pid, sig);
    int code = it_wait_exit(p);
    if (seconds) *seconds = it_now() - t0;
    unlink(p->err_path);
    return code;
}

double it_cpu_seconds(const it_proc_t *p)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)p->pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* Fields 14 and 15 (utime, stime) count after the ")" that closes field 2, the name. */
    const char *s = strrchr(buf, ')');
    ck_assert_ptr_nonnull(s);
    unsigned long utime = 0, stime = 0;
    ck_assert_int_eq(
        sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime), 2);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

char *it_stderr(const it_proc_t *p)
{
    FILE *f = fopen(p->err_path, "r");
    ck_assert_ptr_nonnull(f);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

/* ---------------------------------------------------------------- connections */

static it_conn_t *conn_new(int fd)
{
    it_conn_t *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->fd = fd;
    c->wfd = -1;
    return c;
}

/* Polls the stderr file for "ready" (true) or the child's exit (false). */
static bool read_ready_file(it_proc_t *p)
{
    double deadline = it_now() + IT_TIMEOUT;
    while (it_now() < deadline) {
        char *err = it_stderr(p);
        bool ready = strstr(err, "\nready\n") || strncmp(err, "ready\n", 6) == 0;
        if (ready) {
            for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
                parse_ready_line(p, line);
        }
        free(err);
        if (ready) return true;
        if (waitpid(p->pid, NULL, WNOHANG | WNOWAIT) == p->pid) return false;
        usleep(5000);
    }
    ck_abort_msg("mcpsim --stdio: no 'ready' on stderr in time");
    return false;
}

it_conn_t *it_start_stdio(it_proc_t *p, const char *const *args)
{
    memset(p, 0, sizeof *p);
    signal(SIGPIPE, SIG_IGN);
    snprintf(p->err_path, sizeof p->err_path, "/tmp/mcpsim-it-XXXXXX");
    int fd = mkstemp(p->err_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    int in[2], out[2];
    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    p->pid = fork();
    ck_assert_int_ge(p->pid, 0);
    if (p->pid == 0) {
        dup2(in[0], STDIN_FILENO);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        child_exec(p, out[1], args);
    }
    close(in[0]);
    close(out[1]);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    p->out_fd = -1; /* the connection owns the child's stdout */
    it_conn_t *c = conn_new(out[0]);
    c->wfd = in[1];
    if (read_ready_file(p)) {
        p->tcp_port = port_of(p->tcp);
        p->control_port = port_of(p->control);
        return c;
    }
    it_conn_close(c);
    it_wait_exit(p);
    return NULL;
}

void it_close_input(it_conn_t *c)
{
    if (c->wfd >= 0) close(c->wfd);
    c->wfd = -2; /* closed: it_send fails */
}

it_conn_t *it_tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to port %d: %s", port,
                  strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return conn_new(fd);
}

static int serial_open(const char *path);

it_conn_t *it_serial_open(const char *path)
{
    int fd = serial_open(path);
    tcflush(fd, TCIOFLUSH);
    return conn_new(fd);
}

it_conn_t *it_serial_open_keep(const char *path)
{
    return conn_new(serial_open(path));
}

static int serial_open(const char *path)
{
    int fd = open(path, O_RDWR | O_NOCTTY);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    struct termios t;
    ck_assert_int_eq(tcgetattr(fd, &t), 0);
    cfmakeraw(&t);
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    ck_assert_int_eq(tcsetattr(fd, TCSANOW, &t), 0);
    return fd;
}

void it_conn_close(it_conn_t *c)
{
    if (!c) return;
    if (c->wfd >= 0) close(c->wfd);
    close(c->fd);
    free(c);
}

void it_send(it_conn_t *c, const char *text)
{
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ck_assert_msg(c->wfd != -2, "it_send after it_close_input");
        ssize_t n = write(c->wfd >= 0 ? c->wfd : c->fd, text + done, len - done);
        ck_assert_msg(n > 0 || errno == EINTR, "write: %s", strerror(errno));
        if (n > 0) done += (size_t)n;
    }
}

char *it_read_line(it_conn_t *c, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    for (;;) {
        char *nl = memchr(c->buf, '\n', c->len);
        if (nl) {
            size_t n = (size_t)(nl - c->buf);
            char *line = malloc(n + 1);
            memcpy(line, c->buf, n);
            line[n] = 0;
            c->len -= n + 1;
            memmove(c->buf, nl + 1, c->len);
            return line;
        }
        ck_assert_msg(c->len < sizeof c->buf, "a reply line longer than %zu bytes", sizeof c->buf);
        struct pollfd pfd = {c->fd, POLLIN, 0};
        if (poll(&pfd, 1, remaining_ms(deadline)) != 1) return NULL;
        ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
        if (n <= 0) return NULL;
        c->len += (size_t)n;
    }
}

bool it_wait_closed(it_conn_t *c, double timeout_s)
{
    double deadline = it_now() + timeout_s;
    char buf[65536];
    for (;;) {
        struct pollfd pfd = {c->fd, POLLIN, 0};
        if (poll(&pfd, 1, remaining_ms(deadline)) != 1) return false;
        ssize_t n = read(c->fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    }
}

json_t *it_rpc(it_conn_t *c, const char *request)
{
    it_send(c, request);
    it_send(c, "\n");
    json_t *reply = NULL;
    /* a board that resets when its port opens prints a boot banner first (uart.boot_banner) */
    for (int boot_lines = 0; reply == NULL; boot_lines++) {
        char *line = it_read_line(c, IT_TIMEOUT);
        ck_assert_msg(line != NULL, "no reply to %s", request);
        json_error_t err;
        reply = json_loads(line, 0, &err);
        ck_assert_msg(reply != NULL || boot_lines < 2, "reply to %s is not JSON: %s", request,
                      line);
        free(line);
    }
    return reply;
}

json_t *it_call(it_conn_t *c, int id, const char *method, const char *params_json)
{
    char req[4096];
    if (params_json)
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":%s}",
                 id, method, params_json);
    else
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\"}", id, method);
    json_t *reply = it_rpc(c, req);
    ck_assert_msg(json_integer_value(json_object_get(reply, "id")) == id,
                  "reply to id %d carries another id", id);
    return reply;
}

json_t *it_result(json_t *reply)
{
    json_t *result = json_object_get(reply, "result");
    if (!result) {
        char *text = json_dumps(reply, JSON_COMPACT);
        ck_abort_msg("expected a result, got %s", text);
    }
    return result;
}

int it_error_code(json_t *reply)
{
    json_t *error = json_object_get(reply, "error");
    if (!error) {
        char *text = json_dumps(reply, JSON_COMPACT);
        ck_abort_msg("expected an error, got %s", text);
    }
    return (int)json_integer_value(json_object_get(error, "code"));
}
