/* stdio_transport.c: the MCP stdio transport: newline-delimited JSON-RPC on stdin and stdout, one
   session, the end of stdin ending the process once every reply is written. */
#include "stdio_transport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"

/* Reading stdin pauses while more reply bytes than this wait for the client to read them. */
#define STDIO_OUT_HIGH (1u << 20)

/* One libuv stream over an inherited descriptor; a regular file (or /dev/null) cannot be polled,
   so it is read with uv_fs_read and written with plain blocking writes instead. */
typedef union stdio_handle {
    uv_handle_t handle;
    uv_stream_t stream;
    uv_pipe_t pipe;
    uv_tty_t tty;
    uv_tcp_t tcp;
} stdio_handle_t;

struct host_stdio {
    host_t *host;
    stdio_handle_t in, out;
    bool in_stream, out_stream; /* false: a file, handled without a libuv stream */
    uv_fs_t read_req;           /* file input: the read in flight */
    bool read_pending;
    char file_buf[64 * 1024];
    fw_framer_t framer;
    fw_session_t session;
    host_tap_src_t tap;
    host_buf_t pending;  /* output of the current call, handed to uv_write when it returns */
    size_t inflight;     /* bytes with uv_write */
    bool mid_line;       /* the last byte read was not a newline */
    bool in_done;        /* stdin ended: stop once the output is written */
    bool reading_paused; /* too much output waits */
    bool closing;        /* host_stdio_close ran */
    bool stop_requested; /* host_stop was asked for */
    unsigned refs;       /* open handles, writes in flight and the file read */
};

typedef struct stdio_write {
    uv_write_t req;
    host_stdio_t *s;
    size_t len;
    char data[];
} stdio_write_t;

static void unref(host_stdio_t *s)
{
    if (--s->refs > 0) return;
    host_buf_free(&s->pending);
    host_tap_src_free(&s->tap);
    free(s);
}

/* stdin ended or stdout went away: once nothing is in flight, the process ends (host_stop). */
static void maybe_finish(host_stdio_t *s)
{
    if (!s->in_done || s->inflight > 0 || s->pending.len > 0 || s->stop_requested) return;
    if (host_device_pending(s->host, s) > 0) return; /* a bridged call still waits: its answer */
    s->stop_requested = true;
    host_log(HOST_LOG_INFO, "stdio: stdin closed, shutting down");
    if (!s->closing) host_stop(s->host);
}

static void start_reading(host_stdio_t *s);

static void on_written(uv_write_t *req, int status)
{
    stdio_write_t *w = req->data;
    host_stdio_t *s = w->s;
    s->inflight -= w->len;
    if (status < 0 && !s->closing) {
        host_log(HOST_LOG_WARN, "stdio: write to stdout failed: %s", uv_strerror(status));
        s->in_done = true; /* the client is gone: nothing more can be answered */
    }
    free(w);
    if (s->reading_paused && s->inflight < STDIO_OUT_HIGH / 4 && !s->in_done && !s->closing) {
        s->reading_paused = false;
        start_reading(s);
    }
    if (!s->closing) maybe_finish(s);
    unref(s);
}

/* Blocking write of a file's share (stdout redirected to a file: it never blocks for long). */
static void write_file(host_stdio_t *s)
{
    size_t done = 0;
    while (done < s->pending.len) {
        ssize_t n = write(STDOUT_FILENO, s->pending.data + done, s->pending.len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            host_log(HOST_LOG_WARN, "stdio: write to stdout failed: %s", strerror(errno));
            s->in_done = true;
            break;
        }
        done += (size_t)n;
    }
    host_buf_consume(&s->pending, s->pending.len);
}

/* Hands what the last call produced to stdout. */
static void flush(host_stdio_t *s)
{
    if (s->pending.len == 0 || s->closing) return;
    if (!s->out_stream) {
        write_file(s);
        return;
    }
    stdio_write_t *w = malloc(sizeof *w + s->pending.len);
    if (!w) abort();
    w->s = s;
    w->len = s->pending.len;
    memcpy(w->data, s->pending.data, w->len);
    w->req.data = w;
    host_buf_consume(&s->pending, s->pending.len);
    uv_buf_t b = uv_buf_init(w->data, (unsigned)w->len);
    int rc = uv_write(&w->req, &s->out.stream, &b, 1, on_written);
    if (rc < 0) {
        host_log(HOST_LOG_WARN, "stdio: write to stdout failed: %s", uv_strerror(rc));
        free(w);
        s->in_done = true;
        return;
    }
    s->refs++;
    s->inflight += w->len;
}

static void sink_write(void *ctx, const char *data, size_t len)
{
    host_stdio_t *s = ctx;
    host_buf_append(&s->pending, data, len);
}

static void deliver_late(void *ctx, const char *msg, size_t len);

static void feed(host_stdio_t *s, const char *data, size_t len)
{
    host_device_feed_late(s->host, &s->tap, &s->session, &s->framer, (const uint8_t *)data, len,
                          (fw_sink_t){sink_write, s}, (host_late_t){deliver_late, s, "stdio"});
    s->mid_line = data[len - 1] != '\n';
    flush(s);
    if (s->inflight >= STDIO_OUT_HIGH && s->in_stream && !s->reading_paused && !s->in_done) {
        s->reading_paused = true; /* the client is not reading its answers: wait for it */
        uv_read_stop(&s->in.stream);
    }
}

/* A bridged request's answer, after the call (loop thread, after the call). */
static void deliver_late(void *ctx, const char *msg, size_t len)
{
    host_stdio_t *s = ctx;
    if (s->closing) return;
    host_buf_append(&s->pending, msg, len);
    host_buf_append(&s->pending, "\n", 1);
    flush(s);
    maybe_finish(s);
}

/* End of input: a last message without its newline still counts (the spec asks for the newline,
   but dropping a client's final request silently would help nobody). */
static void input_ended(host_stdio_t *s)
{
    if (s->in_done) return;
    if (s->mid_line) feed(s, "\n", 1);
    s->in_done = true;
    if (s->in_stream) uv_read_stop(&s->in.stream);
    maybe_finish(s);
}

static void alloc_cb(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    host_stdio_t *s = handle->data;
    *buf = uv_buf_init(s->file_buf, sizeof s->file_buf);
}

static void on_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *buf)
{
    host_stdio_t *s = stream->data;
    if (n > 0) {
        feed(s, buf->base, (size_t)n);
    } else if (n < 0) {
        if (n != UV_EOF)
            host_log(HOST_LOG_WARN, "stdio: read from stdin failed: %s", uv_strerror((int)n));
        input_ended(s);
    }
}

static void on_file_read(uv_fs_t *req)
{
    host_stdio_t *s = req->data;
    ssize_t n = req->result;
    uv_fs_req_cleanup(req);
    s->read_pending = false;
    if (!s->closing) {
        if (n > 0) {
            feed(s, s->file_buf, (size_t)n);
            if (!s->in_done && !s->reading_paused) start_reading(s);
        } else {
            if (n < 0)
                host_log(HOST_LOG_WARN, "stdio: read from stdin failed: %s", uv_strerror((int)n));
            input_ended(s);
        }
    }
    unref(s);
}

static void start_reading(host_stdio_t *s)
{
    if (s->in_stream) {
        uv_read_start(&s->in.stream, alloc_cb, on_read);
        return;
    }
    if (s->read_pending) return;
    s->read_req.data = s;
    uv_buf_t b = uv_buf_init(s->file_buf, sizeof s->file_buf);
    int rc = uv_fs_read(&s->host->loop, &s->read_req, STDIN_FILENO, &b, 1, -1, on_file_read);
    if (rc < 0) {
        host_log(HOST_LOG_WARN, "stdio: read from stdin failed: %s", uv_strerror(rc));
        input_ended(s);
        return;
    }
    s->read_pending = true;
    s->refs++;
}

/* Wraps fd in the libuv stream its kind needs; false for a file (handled without one). */
static int open_handle(host_t *h, int fd, stdio_handle_t *hd, bool readable, bool *is_stream)
{
    int rc = 0;
    *is_stream = true;
    switch (uv_guess_handle(fd)) {
    case UV_TTY:
        rc = uv_tty_init(&h->loop, &hd->tty, fd, readable);
        break;
    case UV_NAMED_PIPE:
        if ((rc = uv_pipe_init(&h->loop, &hd->pipe, 0)) == 0) rc = uv_pipe_open(&hd->pipe, fd);
        break;
    case UV_TCP:
        if ((rc = uv_tcp_init(&h->loop, &hd->tcp)) == 0) rc = uv_tcp_open(&hd->tcp, fd);
        break;
    case UV_FILE:
        *is_stream = false;
        return 0;
    default:
        return UV_EBADF; /* closed, or a UDP socket */
    }
    return rc;
}

/* The watcher: pushes the session's notifications (loop thread). Nothing once the output is backed up or stdin has ended. */
static void on_device(void *ctx, bool all)
{
    (void)all; /* one session, drained on every tell: a drain skipped while the output is full
                  is retried on the next */
    host_stdio_t *s = ctx;
    if (s->closing || s->inflight >= STDIO_OUT_HIGH) return;
    if (host_device_drain(s->host, &s->session, (fw_msg_sink_t){sink_write, s, NULL, NULL}) > 0)
        flush(s);
}

static void on_closed(uv_handle_t *handle)
{
    unref(handle->data);
}

host_stdio_t *host_stdio_open(host_t *h)
{
    host_stdio_t *s = calloc(1, sizeof *s);
    if (!s) abort();
    s->host = h;
    s->refs = 1; /* host_stdio_close's */
    fw_framer_init(&s->framer);
    host_tap_src_init(&s->tap, "stdio");
    fw_session_init(&s->session, sim_device(h->sim));
    int rc = open_handle(h, STDIN_FILENO, &s->in, true, &s->in_stream);
    if (rc == 0 && s->in_stream) s->refs++, s->in.handle.data = s;
    int rc2 = rc == 0 ? open_handle(h, STDOUT_FILENO, &s->out, false, &s->out_stream) : 0;
    if (rc == 0 && rc2 == 0 && s->out_stream) s->refs++, s->out.handle.data = s;
    if (rc != 0 || rc2 != 0) {
        host_log(HOST_LOG_ERROR, "--stdio: cannot use %s: %s", rc ? "stdin" : "stdout",
                 uv_strerror(rc ? rc : rc2));
        host_stdio_close(s);
        return NULL;
    }
    if (host_device_watch(h, on_device, s) != 0) {
        host_log(HOST_LOG_ERROR, "stdio: too many notification watchers");
        host_stdio_close(s);
        return NULL;
    }
    start_reading(s);
    return s;
}

void host_stdio_close(host_stdio_t *s)
{
    if (s->closing) return;
    s->closing = true;
    host_device_unwatch(s->host, on_device, s);
    host_device_forget(s->host, s);
    if (s->read_pending) uv_cancel((uv_req_t *)&s->read_req);
    if (s->in_stream && s->in.handle.data) uv_close(&s->in.handle, on_closed);
    if (s->out_stream && s->out.handle.data) uv_close(&s->out.handle, on_closed);
    unref(s);
}
