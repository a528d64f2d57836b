/* test_emu_avr.c: mcpsim-avr end to end: spawns it on the test firmwares of fw_test.c (built by
   CMake with avr-gcc; skipped, 77, without it) and checks the readiness lines, the pty (a 2 KB
   echo burst with nothing lost, a client reopening it), the control channel (inputs and ADC
   voltages observed by the firmware, errors), the stack figure and the exit diagnoses. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifndef EMU_HAVE_AVR_GCC
#define EMU_HAVE_AVR_GCC 0
#endif

typedef struct {
    pid_t pid;
    FILE *out;
    char err_path[64];
    char uart[256];
    char link[256];
    int control_port;
    int ctl; /* connected control socket, or -1 */
} emu_proc_t;

static const char *fw(int mode)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/fw_test%d.elf", EMU_FW_DIR, mode);
    return path;
}

/* Starts mcpsim-avr with ARGS (NULL-terminated, after the binary) and reads its readiness lines. */
static void start(emu_proc_t *p, const char *const *args)
{
    memset(p, 0, sizeof *p);
    p->ctl = -1;
    snprintf(p->err_path, sizeof p->err_path, "/tmp/test_emu_avr.%d.XXXXXX", (int)getpid());
    int efd = mkstemp(p->err_path);
    ck_assert_int_ge(efd, 0);
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    const char *argv[16] = {MCPSIM_AVR_BIN};
    int n = 1;
    for (int i = 0; args[i]; i++) argv[n++] = args[i];
    argv[n] = NULL;
    p->pid = fork();
    ck_assert_int_ge(p->pid, 0);
    if (p->pid == 0) {
        dup2(pipefd[1], 1);
        dup2(efd, 2);
        close(pipefd[0]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    close(efd);
    p->out = fdopen(pipefd[0], "r");
    char line[256];
    int i = 0;
    while (fgets(line, sizeof line, p->out)) {
        line[strcspn(line, "\n")] = 0;
        if (i == 0) ck_assert_msg(!strncmp(line, "uart: /dev/pts/", 15), "first line: '%s'", line);
        if (!strncmp(line, "uart: ", 6)) snprintf(p->uart, sizeof p->uart, "%s", line + 6);
        else if (!strncmp(line, "uart-link: ", 11)) snprintf(p->link, sizeof p->link, "%s", line + 11);
        else if (!strncmp(line, "control: 127.0.0.1:", 19)) p->control_port = atoi(line + 19);
        else if (!strcmp(line, "ready")) return;
        else ck_abort_msg("unexpected readiness line '%s'", line);
        i++;
    }
    ck_abort_msg("mcpsim-avr ended before 'ready'");
}

static char *read_file(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    return buf;
}

/* Waits (up to 10 s) for the process to end; returns its exit status, its stderr in *err. */
static int wait_end(emu_proc_t *p, char **err)
{
    int status = 0;
    for (int i = 0; i < 1000; i++) {
        pid_t r = waitpid(p->pid, &status, WNOHANG);
        if (r == p->pid) break;
        if (i == 999) {
            kill(p->pid, SIGKILL);
            waitpid(p->pid, &status, 0);
            ck_abort_msg("mcpsim-avr did not end");
        }
        usleep(10000);
    }
    if (p->ctl >= 0) close(p->ctl);
    fclose(p->out);
    *err = read_file(p->err_path);
    unlink(p->err_path);
    ck_assert_msg(WIFEXITED(status), "mcpsim-avr killed by a signal");
    return WEXITSTATUS(status);
}

static int stop(emu_proc_t *p, char **err)
{
    kill(p->pid, SIGTERM);
    return wait_end(p, err);
}

static int open_pty(const char *path)
{
    int fd = open(path, O_RDWR | O_NOCTTY);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    struct termios t;
    ck_assert_int_eq(tcgetattr(fd, &t), 0);
    cfmakeraw(&t);
    ck_assert_int_eq(tcsetattr(fd, TCSANOW, &t), 0);
    return fd;
}

/* Reads exactly N bytes within MS milliseconds; returns how many came. */
static size_t read_n(int fd, unsigned char *buf, size_t n, int ms)
{
    size_t got = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (got < n) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) break;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, (int)left) <= 0) continue;
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

static json_t *ctl(emu_proc_t *p, const char *line)
{
    if (p->ctl < 0) {
        p->ctl = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->control_port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        ck_assert_int_eq(connect(p->ctl, (struct sockaddr *)&a, sizeof a), 0);
    }
    ck_assert_int_eq(write(p->ctl, line, strlen(line)), (ssize_t)strlen(line));
    ck_assert_int_eq(write(p->ctl, "\n", 1), 1);
    char buf[16384];
    size_t n = 0;
    while (n < sizeof buf - 1) {
        struct pollfd pfd = {p->ctl, POLLIN, 0};
        ck_assert_msg(poll(&pfd, 1, 5000) == 1, "no control reply to %s", line);
        ssize_t r = read(p->ctl, buf + n, 1);
        ck_assert_int_eq(r, 1);
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = 0;
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    ck_assert_msg(j != NULL, "control reply not JSON: %s", buf);
    return j;
}

static json_int_t err_code(json_t *r)
{
    return json_integer_value(json_object_get(json_object_get(r, "error"), "code"));
}

static json_t *result(json_t *r)
{
    json_t *res = json_object_get(r, "result");
    ck_assert_msg(res != NULL, "no result: %s", json_dumps(r, JSON_COMPACT));
    return res;
}

/* Polls sim.get_pin until FIELD of the pin equals WANT (integer/boolean), up to 1 s. */
static json_int_t pin_field(emu_proc_t *p, int pin, const char *field, json_int_t want)
{
    json_int_t v = -1;
    for (int i = 0; i < 100; i++) {
        char line[160];
        snprintf(line, sizeof line,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.get_pin\",\"params\":{\"pin\":%d}}",
                 pin);
        json_t *r = ctl(p, line);
        json_t *f = json_object_get(result(r), field);
        v = json_is_boolean(f) ? json_is_true(f) : json_is_integer(f) ? json_integer_value(f) : -1;
        json_decref(r);
        if (v == want) break;
        usleep(10000);
    }
    return v;
}

START_TEST(readiness_lines_and_link)
{
    char link[256];
    snprintf(link, sizeof link, "/tmp/test_emu_avr_link.%d", (int)getpid());
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", "--pty-link", link, "--control", "0", fw(0), NULL});
    ck_assert_str_eq(p.link, link);
    ck_assert_int_gt(p.control_port, 0);
    char target[128];
    ssize_t n = readlink(link, target, sizeof target - 1);
    ck_assert_int_gt(n, 0);
    target[n] = 0;
    ck_assert_str_eq(target, p.uart);
    char *err;
    ck_assert_int_eq(stop(&p, &err), 0);
    ck_assert_msg(access(link, F_OK) != 0, "the link outlived mcpsim-avr");
}
END_TEST

START_TEST(echo_burst_and_reopen)
{
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", fw(0), NULL});
    int fd = open_pty(p.uart);
    static unsigned char out[2048], in[2048];
    for (size_t i = 0; i < sizeof out; i++) out[i] = (unsigned char)(i * 7 + 3);
    usleep(50000); /* past "boot\n" */
    tcflush(fd, TCIFLUSH);
    ck_assert_int_eq(write(fd, out, sizeof out), (ssize_t)sizeof out);
    size_t got = read_n(fd, in, sizeof in, 5000);
    ck_assert_uint_eq(got, sizeof in);
    ck_assert_msg(memcmp(in, out, sizeof out) == 0, "the echo differs");
    /* a client closing and reopening the pty */
    close(fd);
    usleep(20000);
    fd = open_pty(p.uart);
    ck_assert_int_eq(write(fd, "again", 5), 5);
    ck_assert_uint_eq(read_n(fd, in, 5, 2000), 5);
    ck_assert(memcmp(in, "again", 5) == 0);
    close(fd);
    char *err;
    ck_assert_int_eq(stop(&p, &err), 0);
}
END_TEST

START_TEST(inputs_seen_by_firmware)
{
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", "--control", "0", fw(0), NULL});
    /* D2 has its pull-up on, floating: high; the firmware mirrors it on D13 */
    ck_assert_int_eq(pin_field(&p, 13, "level", 1), 1);
    json_t *r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"sim.set_input\","
                        "\"params\":{\"pin\":2,\"level\":false}}");
    ck_assert(json_is_false(json_object_get(result(r), "external")));
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 13, "level", 0), 0);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sim.set_input\","
                "\"params\":{\"pin\":\"D2\",\"level\":1}}");
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 13, "level", 1), 1);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"sim.set_input\","
                "\"params\":{\"pin\":2,\"level\":false}}");
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 13, "level", 0), 0);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"sim.set_input\","
                "\"params\":{\"pin\":2,\"level\":null}}");
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 13, "level", 1), 1); /* back to its pull-up */
    /* D13 is an output: refused */
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"sim.set_input\","
                "\"params\":{\"pin\":13,\"level\":true}}");
    ck_assert_int_eq(err_code(r), -32602);
    json_decref(r);
    /* A0 at 2.5 V of 5 V: the firmware writes ADC >> 2 to OCR2A (PWM on D11) */
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sim.set_analog\","
                "\"params\":{\"pin\":14,\"volts\":2.5}}");
    ck_assert_int_eq(json_integer_value(json_object_get(result(r), "raw")), 511);
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 11, "duty", 127), 127);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"sim.set_analog\","
                "\"params\":{\"pin\":\"A0\",\"raw\":1023}}");
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 11, "duty", 255), 255);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"sim.set_analog\","
                "\"params\":{\"pin\":14,\"raw\":40}}");
    json_decref(r);
    ck_assert_int_eq(pin_field(&p, 11, "duty", 10), 10);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"sim.read_outputs\"}");
    json_t *pins = json_object_get(result(r), "pins");
    ck_assert_uint_eq(json_array_size(pins), 20);
    json_t *d11 = json_array_get(pins, 11);
    ck_assert(json_is_true(json_object_get(d11, "pwm")));
    ck_assert_str_eq(json_string_value(json_object_get(d11, "mode")), "output");
    /* 16 MHz / 64 / 256 */
    ck_assert(json_real_value(json_object_get(d11, "frequency_hz")) > 976 &&
              json_real_value(json_object_get(d11, "frequency_hz")) < 977);
    json_decref(r);
    char *err;
    ck_assert_int_eq(stop(&p, &err), 0);
}
END_TEST

START_TEST(control_errors)
{
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", "--control", "127.0.0.1:0", fw(0), NULL});
    json_t *r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
    ck_assert_int_eq(err_code(r), -32700);
    json_decref(r);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"sim.advance\",\"params\":{\"ms\":5}}");
    ck_assert_int_eq(err_code(r), -32601);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(json_object_get(r, "error"),
                                                                   "message")),
                                 "does not model"));
    json_decref(r);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sim.get_pin\",\"params\":{\"pin\":99}}");
    ck_assert_int_eq(err_code(r), -32602);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(json_object_get(r, "error"), "data"), "path")),
                     "params.pin");
    json_decref(r);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"sim.set_analog\","
                "\"params\":{\"pin\":14,\"volts\":9}}");
    ck_assert_int_eq(err_code(r), -32602);
    json_decref(r);
    r = ctl(&p, "{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"sim.time\"}");
    ck_assert_int_eq(err_code(r), -32600);
    json_decref(r);
    /* the next good line works; time runs with the wall clock */
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"sim.time\"}");
    json_int_t t1 = json_integer_value(json_object_get(result(r), "now_ms"));
    json_decref(r);
    usleep(300000);
    r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sim.time\"}");
    json_int_t t2 = json_integer_value(json_object_get(result(r), "now_ms"));
    json_decref(r);
    /* Paced to the wall clock: never ahead of it (300 ms, plus the two exchanges); behind it
       only when the host cannot keep up (a loaded machine), and then still moving. */
    ck_assert_msg(t2 - t1 >= 60 && t2 - t1 <= 450, "300 ms of wall time gave %lld ms",
                  (long long)(t2 - t1));
    char *err;
    ck_assert_int_eq(stop(&p, &err), 0);
}
END_TEST

START_TEST(stack_figure)
{
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", "--control", "0", fw(0), NULL});
    usleep(50000);
    json_t *r = ctl(&p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"emu.stats\"}");
    json_t *s = result(r);
    json_int_t hw = json_integer_value(json_object_get(s, "stack_high_water"));
    /* deep() holds a 200-byte buffer plus its frame and saved registers */
    ck_assert_msg(hw >= 200 && hw < 260, "stack high-water %lld", (long long)hw);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "ramend")), 0x8ff);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "sp_min")), 0x8ff - hw);
    json_decref(r);
    char *err;
    ck_assert_int_eq(stop(&p, &err), 0);
    char want[96];
    snprintf(want, sizeof want, "stack high-water %lld bytes (SP min 0x%04llx, RAMEND 0x08ff)",
             (long long)hw, (long long)(0x8ff - hw));
    ck_assert_msg(strstr(err, want), "stderr lacks '%s': %s", want, err);
}
END_TEST

static void expect_end(int mode, int status, const char *what)
{
    emu_proc_t p;
    start(&p, (const char *[]){"--quiet", fw(mode), NULL});
    /* The chip may end before the client opens its pty (a crash at the first instruction on a
       busy machine): then the pty is gone, which is the end a client must see as well. */
    int fd = open(p.uart, O_RDWR | O_NOCTTY);
    ck_assert_msg(fd >= 0 || errno == ENOENT || errno == EIO, "open %s: %s", p.uart,
                  strerror(errno));
    char *err;
    ck_assert_int_eq(wait_end(&p, &err), status);
    ck_assert_msg(strstr(err, what), "stderr lacks '%s': %s", what, err);
    ck_assert_ptr_nonnull(strstr(err, "stack high-water"));
    if (fd >= 0) {
        /* the pty is closed: the client sees a hangup */
        struct pollfd pfd = {fd, POLLIN, 0};
        ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
        ck_assert(pfd.revents & (POLLHUP | POLLERR | POLLIN));
        close(fd);
    }
}

START_TEST(crash_invalid_opcode)
{
    expect_end(1, 4, "the chip crashed: invalid instruction 0x0001 at PC 0x");
}
END_TEST

START_TEST(crash_off_the_end)
{
    expect_end(2, 4, "the chip crashed: it jumped outside its code: PC 0x7e00");
}
END_TEST

START_TEST(stopped)
{
    expect_end(3, 5, "the chip stopped: it went to sleep with interrupts disabled");
}
END_TEST

START_TEST(watchdog)
{
    expect_end(4, 6, "the chip was reset by its watchdog");
}
END_TEST

START_TEST(bad_files)
{
    emu_proc_t p = {0};
    const char *cases[][3] = {{"/nonexistent/x.elf", "No such file", NULL},
                              {"/bin/sh", "not a 32-bit little-endian ELF", NULL}};
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            freopen("/tmp/test_emu_avr.err", "w", stderr);
            execl(MCPSIM_AVR_BIN, MCPSIM_AVR_BIN, cases[i][0], (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
        ck_assert_int_eq(WEXITSTATUS(st), 1);
        ck_assert_msg(strstr(read_file("/tmp/test_emu_avr.err"), cases[i][1]), "%s",
                      read_file("/tmp/test_emu_avr.err"));
    }
    pid_t pid = fork();
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        execl(MCPSIM_AVR_BIN, MCPSIM_AVR_BIN, "--freq", "fast", fw(0), (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    (void)p;
    unlink("/tmp/test_emu_avr.err");
}
END_TEST

int main(void)
{
    if (!EMU_HAVE_AVR_GCC) {
        puts("test_emu_avr: skipped: no avr-gcc to build the test firmware");
        return 77;
    }
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("emu_avr");
    TCase *tc = tcase_create("emu");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, readiness_lines_and_link);
    tcase_add_test(tc, echo_burst_and_reopen);
    tcase_add_test(tc, inputs_seen_by_firmware);
    tcase_add_test(tc, control_errors);
    tcase_add_test(tc, stack_figure);
    tcase_add_test(tc, crash_invalid_opcode);
    tcase_add_test(tc, crash_off_the_end);
    tcase_add_test(tc, stopped);
    tcase_add_test(tc, watchdog);
    tcase_add_test(tc, bad_files);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
