/* stream.h: byte streams for the runner: line reassembly, fd reads with deadlines, TCP, serial. */
#ifndef CONF_STREAM_H
#define CONF_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Line reassembly: bytes go in as they were read, whole lines come out, whatever the chunking
 * (several messages in one read, one message split over many). A trailing "\r" is dropped and
 * empty lines are skipped, so CRLF devices and stray newlines read the same.
 */
typedef struct conf_lines {
    char *buf;
    size_t len, cap;
} conf_lines_t;

void conf_lines_push(conf_lines_t *l, const char *data, size_t len);
/* Next complete line (malloc'd, NUL-terminated, *len without the newline) or NULL. */
char *conf_lines_pop(conf_lines_t *l, size_t *len);
void conf_lines_free(conf_lines_t *l);

/* A connected file descriptor with its reassembly buffer. */
typedef struct conf_stream {
    int fd;
    conf_lines_t in;
    uint64_t rx_bytes;         /* every byte read so far */
    unsigned char rx_first[48]; /* the first of them, for diagnoses */
    size_t rx_first_len;
} conf_stream_t;

/* What has arrived on s, for a diagnosis: "not a single byte arrived" or "57 bytes arrived;
   the first: \"...\"" (non-printable bytes escaped). */
void conf_stream_describe_rx(const conf_stream_t *s, char *out, size_t cap);

void conf_stream_init(conf_stream_t *s, int fd);
/* Closes the fd and frees the buffer. */
void conf_stream_close(conf_stream_t *s);
/* Writes all of data (waiting up to deadline, a conf_now_ms time). 0 or -1 with err. */
int conf_stream_write(conf_stream_t *s, const void *data, size_t len, int64_t deadline, char *err,
                      size_t cap);
/* Reads until a whole line is there or deadline passes: 1 with *line (malloc'd), 0 on timeout,
   -1 when the peer closed or on error (err says which). */
int conf_stream_read_line(conf_stream_t *s, int64_t deadline, char **line, size_t *len, char *err,
                          size_t cap);

/* "HOST:PORT" or "[V6]:PORT" -> host and port; false if malformed. */
bool conf_split_hostport(const char *spec, char *host, size_t cap, int *port);
/* Connects (TCP_NODELAY) within timeout_ms; fd or -1 with err. */
int conf_tcp_connect(const char *host, int port, int timeout_ms, char *err, size_t cap);

/* Opens a serial device raw 8N1 at baud (no flow control, non-blocking); fd or -1 with err. */
int conf_serial_open(const char *path, int baud, char *err, size_t cap);
/* Drops DTR for ms then raises it again (resets ESP32-style boards); 0 or -1 with err. */
int conf_serial_pulse_dtr(int fd, int ms, char *err, size_t cap);

#endif
