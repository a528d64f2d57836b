/* it_util.h: integration-test helpers: run build/bin/mcpsim, talk to it over TCP and its pty. */
#ifndef IT_UTIL_H
#define IT_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Seconds any single wait may take (generous: sanitizer builds are slow). */
#define IT_TIMEOUT 10.0

/* The binary under test: $MCPSIM_BIN when set (an installed or modified build), else the one
   this test was built with. */
const char *it_bin(void);

/* A running mcpsim: what its readiness lines said, and where its stderr goes. */
typedef struct it_conn it_conn_t;

typedef struct it_proc {
    pid_t pid;
    int out_fd;          /* its stdout (a pipe) */
    char uart[64];       /* "uart:" line, "" if none */
    char uart_link[256]; /* "uart-link:" line */
    char tcp[80];        /* "tcp:" line ("127.0.0.1:PORT") */
    char control[80];    /* "control:" line */
    char http[128];      /* "http:" line ("http://127.0.0.1:PORT/mcp") */
    char dashboard[128]; /* "dashboard:" line ("http://127.0.0.1:PORT/") */
    int tcp_port, control_port;
    char err_path[64]; /* a temporary file holding its stderr */
    bool exited;
    int status; /* exit code, or 128 + signal */
} it_proc_t;

/*
 * Starts MCPSIM_BIN with args (NULL-terminated, without argv[0]) and reads stdout until "ready".
 * Returns true once ready; false when the process exited first (p->status holds its exit code).
 */
bool it_start(it_proc_t *p, const char *const *args);

/*
 * Starts MCPSIM_BIN with args (which should include --stdio) with its stdin and stdout on pipes
 * and its stderr in p->err_path, waits for "ready" on stderr (readiness lines parsed as it_start
 * does) and returns the protocol connection: it_read_line reads the child's stdout, it_send
 * writes its stdin. NULL when the process exited before ready (p->status holds its code).
 */
it_conn_t *it_start_stdio(it_proc_t *p, const char *const *args);

/* Closes the child's stdin (an MCP client ending the session); reading still works. */
void it_close_input(it_conn_t *c);

/* Starts board with --pty --pty-reset-on-open off --tcp 0 --control 0 --clock virtual and asserts
   it became ready. */
void it_start_board(it_proc_t *p, const char *board);

/* Sends sig and waits (up to IT_TIMEOUT) for the exit; returns the exit code (128 + signal
   when killed) and the time it took in *seconds (if not NULL). Removes the stderr file. */
int it_stop(it_proc_t *p, int sig, double *seconds);

/* Waits for a process that exits by itself (start-up errors); returns its exit code. */
int it_wait_exit(it_proc_t *p);

/* CPU time (user + system, seconds) the process has used so far, from /proc. */
double it_cpu_seconds(const it_proc_t *p);

/* Everything it wrote to stderr so far (malloc'd, NUL-terminated). */
char *it_stderr(const it_proc_t *p);

/* A client connection with a line reader. */
struct it_conn {
    int fd;
    int wfd; /* where it_send writes: -1 for fd itself (a stdio child's stdin otherwise) */
    size_t len;
    char buf[1 << 16];
};

it_conn_t *it_tcp_connect(int port);

/* Opens a pty path the way a bench client opens a serial port: raw, 8N1, 115200, and discards
   whatever input was pending. */
it_conn_t *it_serial_open(const char *path);

/* The same without discarding anything: what the device writes from the open on (a boot
   banner) is read. */
it_conn_t *it_serial_open_keep(const char *path);

void it_conn_close(it_conn_t *c);

/* Writes all of text. */
void it_send(it_conn_t *c, const char *text);

/* Next line without its "\n" (malloc'd), or NULL on timeout or end of stream. */
char *it_read_line(it_conn_t *c, double timeout_s);

/* True when the peer closes the connection within timeout_s (pending lines are skipped). */
bool it_wait_closed(it_conn_t *c, double timeout_s);

/* Sends one request line and returns the parsed reply line (asserts it arrives and parses). */
json_t *it_rpc(it_conn_t *c, const char *request);

/* {"jsonrpc":"2.0","id":id,"method":method[,"params":params_json]} via it_rpc; asserts the
   reply carries the same id. */
json_t *it_call(it_conn_t *c, int id, const char *method, const char *params_json);

/* The reply's result (asserts there is one, printing the error otherwise). Borrowed. */
json_t *it_result(json_t *reply);

/* The reply's error code (asserts there is an error). */
int it_error_code(json_t *reply);

/* Seconds from a monotonic clock. */
double it_now(void);

#endif
