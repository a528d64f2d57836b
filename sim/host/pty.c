/* pty.c: the device's UART as a pseudo-terminal (raw, 115200), optionally behind a symlink, with
   one MCP session and the push of its device notifications; a client opening it finds it as a
   USB-serial board's port: nothing left of the previous client, and optionally a fresh boot. */
#include "pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <termios.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"

/* Input is paused while more than HIGH reply bytes wait, and resumed below LOW: a client that
   stops reading slows the device down, like a UART with flow control, instead of losing bytes. */
#define PTY_OUT_HIGH (64u * 1024u)
#define PTY_OUT_LOW (16u * 1024u)

struct host_pty {
    host_t *host;
    int master;
    int slave; /* kept open so the master never sees a hang-up between clients */
    char path[64];
    char *link_path; /* owned; NULL without --pty-link */
    uv_poll_t poll;
    int events; /* UV_READABLE / UV_WRITABLE currently polled */
    fw_framer_t framer;
    fw_session_t session; /* one for the pty's lifetime: a reopening client cannot be told */
    host_buf_t out;       /* replies and notifications not yet accepted by the master */
    host_tap_src_t tap;   /* the message log's line assembly */
    int notify;           /* inotify on the slave: tells when a client opens it */
    uv_poll_t notify_poll;
    int open_handles;     /* uv handles not yet closed (memory goes with the last) */
    bool reset_on_open;   /* a client's open reboots the device (DTR on a USB-serial board) */
    const char *banner;   /* the line the device prints when it boots, or NULL */
};

static void on_poll(uv_poll_t *poll, int status, int events);

static void update_events(host_pty_t *p)
{
    bool reading = p->events & UV_READABLE;
    if (reading && p->out.len >= PTY_OUT_HIGH)
        reading = false;
    else if (!reading && p->out.len <= PTY_OUT_LOW)
        reading = true;
    int want = (reading ? UV_READABLE : 0) | (p->out.len > 0 ? UV_WRITABLE : 0);
    if (want != p->events) {
        p->events = want;
        uv_poll_start(&p->poll, want, on_poll);
    }
}

/* Writes as much of the queue as the master takes now. */
static void flush_out(host_pty_t *p)
{
    size_t done = 0;
    while (done < p->out.len) {
        ssize_t n = write(p->master, p->out.data + done, p->out.len - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n < 0 && errno != EAGAIN)
                host_log(HOST_LOG_DEBUG, "uart: write to pty master failed: %s", strerror(errno));
            break;
        }
    }
    host_buf_consume(&p->out, done);
}

static void sink_write(void *ctx, const char *data, size_t len)
{
    host_pty_t *p = ctx;
    host_buf_append(&p->out, data, len);
}

/* A bridged request's answer, after the call: one line (loop thread, after the call). */
static void pty_late(void *ctx, const char *msg, size_t len)
{
    host_pty_t *p = ctx;
    if (p->master < 0) return;
    host_buf_append(&p->out, msg, len);
    host_buf_append(&p->out, "\n", 1);
    flush_out(p);
    update_events(p);
}

/*
 * A client opened the slave. A USB-serial port starts empty: the framer drops a half line the
 * previous client left, and replies it never read are dropped too (queued here, or waiting in
 * the slave's input). With reset_on_open the device reboots as DTR resets a real board, and its
 * boot banner is the first line the new client reads.
 */
static void client_opened(host_pty_t *p)
{
    fw_framer_init(&p->framer);
    host_tap_src_free(&p->tap);
    host_tap_src_init(&p->tap, "pty");
    host_buf_consume(&p->out, p->out.len);
    tcflush(p->slave, TCIFLUSH);
    host_device_release(p->host, &p->session); /* the previous client's listen streams */
    if (p->reset_on_open && !p->host->bridge) {
        sim_reset(p->host->sim);
        fw_session_init(&p->session, sim_device(p->host->sim));
        host_clock_rearm(p->host);
        host_log(HOST_LOG_INFO, "uart: opened: the device was reset");
    }
    if (p->reset_on_open && p->banner) {
        host_buf_append(&p->out, p->banner, strlen(p->banner));
        host_buf_append(&p->out, "\r\n", 2);
    }
}

/* Reads the inotify events waiting; true when a client opened the slave since the last call. */
static bool opened_since(host_pty_t *p)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool opened = false;
    ssize_t n;
    while (p->notify >= 0 && (n = read(p->notify, buf, sizeof buf)) > 0) {
        for (char *at = buf; at < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)at;
            opened = opened || (ev->mask & IN_OPEN);
            at += sizeof *ev + ev->len;
        }
    }
    return opened;
}

static void on_notify(uv_poll_t *poll, int status, int events)
{
    host_pty_t *p = poll->data;
    (void)events;
    if (status < 0 || !opened_since(p)) return;
    client_opened(p);
    flush_out(p);
    update_events(p);
}

static void read_input(host_pty_t *p)
{
    uint8_t buf[4096];
    /* the open that came before these bytes is seen first, so they start the new client's line */
    if (opened_since(p)) client_opened(p);
    ssize_t n = read(p->master, buf, sizeof buf);
    if (n > 0) {
        fw_sink_t sink = {sink_write, p};
        host_device_feed_late(p->host, &p->tap, &p->session, &p->framer, buf, (size_t)n, sink,
                              (host_late_t){pty_late, p, "pty"});
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        host_log(HOST_LOG_DEBUG, "uart: read from pty master failed: %s", strerror(errno));
    }
}

static void on_poll(uv_poll_t *poll, int status, int events)
{
    host_pty_t *p = poll->data;
    if (status < 0) {
        host_log(HOST_LOG_WARN, "uart: poll failed: %s", uv_strerror(status));
        return;
    }
    if (events & UV_READABLE) read_input(p);
    flush_out(p);
    update_events(p);
}

/* The watcher: after every call into the device (loop thread). While the queue is above PTY_OUT_HIGH nothing is
   drained: the session's cursors wait (updates coalesce, the log ring reports what it lost),
   so a subscribed client that went away cannot make the queue grow without bound. */
static void on_device(void *ctx, bool all)
{
    (void)all; /* one session, drained on every tell: a drain skipped while the output is full
                  is retried on the next */
    host_pty_t *p = ctx;
    if (p->out.len >= PTY_OUT_HIGH) return;
    fw_msg_sink_t out = {sink_write, p, NULL, NULL}; /* end NULL: newline-delimited */
    if (host_device_drain(p->host, &p->session, out) == 0) return;
    flush_out(p);
    update_events(p);
}

/* The slave as a serial port at 115200, raw: no echo, no line editing, no CR/LF mapping. */
static int make_raw(int fd)
{
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    cfmakeraw(&t);
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    return tcsetattr(fd, TCSANOW, &t);
}

static int open_pair(host_pty_t *p)
{
    p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->master < 0) return -1;
    if (grantpt(p->master) != 0 || unlockpt(p->master) != 0 ||
        ptsname_r(p->master, p->path, sizeof p->path) != 0)
        return -1;
    p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (p->slave < 0 || make_raw(p->slave) != 0) return -1;
    int fl = fcntl(p->master, F_GETFL);
    return fl < 0 ? -1 : fcntl(p->master, F_SETFL, fl | O_NONBLOCK);
}

/* Points link_path at the slave: a temporary symlink renamed over the old one, so a client
   looking at the path never finds it missing or half-made. */
static int make_link(host_pty_t *p, const char *link_path)
{
    size_t n = strlen(link_path) + 32;
    char *tmp = malloc(n);
    p->link_path = strdup(link_path);
    if (!tmp || !p->link_path) {
        free(tmp);
        return -1;
    }
    snprintf(tmp, n, "%s.tmp.%ld", link_path, (long)getpid());
    unlink(tmp);
    int rc = symlink(p->path, tmp);
    if (rc == 0 && (rc = rename(tmp, link_path)) != 0) unlink(tmp);
    free(tmp);
    if (rc != 0) {
        free(p->link_path);
        p->link_path = NULL;
    }
    return rc;
}

/* Removes the link only while it still points at our slave (another instance may own it now). */
static void remove_link(host_pty_t *p)
{
    if (!p->link_path) return;
    char target[sizeof p->path];
    ssize_t n = readlink(p->link_path, target, sizeof target - 1);
    if (n >= 0) {
        target[n] = 0;
        if (strcmp(target, p->path) == 0) unlink(p->link_path);
    }
    free(p->link_path);
    p->link_path = NULL;
}

static void close_fds(host_pty_t *p)
{
    if (p->slave >= 0) close(p->slave);
    if (p->master >= 0) close(p->master);
    p->slave = p->master = -1;
}

/* Watches the slave for opens; our own open of it came before, so every event is a client's. */
static int watch_opens(host_pty_t *p)
{
    p->notify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (p->notify < 0 || inotify_add_watch(p->notify, p->path, IN_OPEN) < 0) return -1;
    uv_poll_init(&p->host->loop, &p->notify_poll, p->notify);
    p->notify_poll.data = p;
    p->open_handles++;
    return uv_poll_start(&p->notify_poll, UV_READABLE, on_notify);
}

host_pty_t *host_pty_open(host_t *h, const char *link_path, bool reset_on_open)
{
    host_pty_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->host = h;
    p->master = p->slave = p->notify = -1;
    p->reset_on_open = reset_on_open;
    p->banner = sim_uart_boot_banner(h->sim);
    fw_framer_init(&p->framer);
    host_tap_src_init(&p->tap, "pty");
    if (open_pair(p) != 0) {
        host_log(HOST_LOG_ERROR, "uart: cannot create a pseudo-terminal: %s", strerror(errno));
        close_fds(p);
        free(p);
        return NULL;
    }
    if (link_path && make_link(p, link_path) != 0) {
        host_log(HOST_LOG_ERROR, "uart: cannot create symlink %s -> %s: %s", link_path, p->path,
                 strerror(errno));
        close_fds(p);
        free(p);
        return NULL;
    }
    fw_session_init(&p->session, sim_device(h->sim));
    uv_poll_init(&h->loop, &p->poll, p->master);
    p->poll.data = p;
    p->open_handles = 1;
    p->events = UV_READABLE;
    uv_poll_start(&p->poll, p->events, on_poll);
    if (watch_opens(p) != 0) {
        host_log(HOST_LOG_ERROR, "uart: cannot watch %s for clients opening it: %s", p->path,
                 strerror(errno));
        host_pty_close(p);
        return NULL;
    }
    if (host_device_watch(h, on_device, p) != 0) {
        host_log(HOST_LOG_ERROR, "uart: too many notification watchers");
        host_pty_close(p);
        return NULL;
    }
    return p;
}

const char *host_pty_path(const host_pty_t *p)
{
    return p->path;
}

static void on_closed(uv_handle_t *handle)
{
    host_pty_t *p = handle->data;
    if (--p->open_handles > 0) return;
    if (p->notify >= 0) close(p->notify);
    close_fds(p);
    host_buf_free(&p->out);
    host_tap_src_free(&p->tap);
    free(p);
}

void host_pty_close(host_pty_t *p)
{
    host_device_unwatch(p->host, on_device, p);
    host_device_forget(p->host, p);
    remove_link(p);
    if (p->open_handles > 1) uv_close((uv_handle_t *)&p->notify_poll, on_closed);
    uv_close((uv_handle_t *)&p->poll, on_closed);
}
