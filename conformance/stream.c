/* stream.c: byte streams for the runner: line reassembly, fd reads with deadlines, TCP, serial. */
#define _DEFAULT_SOURCE
#include "stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "util.h"

/* ---------------------------------------------------------------- line reassembly */

void conf_lines_push(conf_lines_t *l, const char *data, size_t len)
{
    if (l->len + len > l->cap) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap < l->len + len) cap *= 2;
        l->buf = conf_xrealloc(l->buf, cap);
        l->cap = cap;
    }
    memcpy(l->buf + l->len, data, len);
    l->len += len;
}

char *conf_lines_pop(conf_lines_t *l, size_t *len)
{
    for (;;) {
        char *nl = l->len ? memchr(l->buf, '\n', l->len) : NULL;
        if (!nl) return NULL;
        size_t n = (size_t)(nl - l->buf), used = n + 1;
        if (n > 0 && l->buf[n - 1] == '\r') n--;
        char *line = n > 0 ? conf_strndup(l->buf, n) : NULL;
        memmove(l->buf, l->buf + used, l->len - used);
        l->len -= used;
        if (line) {
            if (len) *len = n;
            return line;
        }
    }
}

void conf_lines_free(conf_lines_t *l)
{
    free(l->buf);
    memset(l, 0, sizeof *l);
}

/* ---------------------------------------------------------------- fd streams */

void conf_stream_init(conf_stream_t *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
}

void conf_stream_close(conf_stream_t *s)
{
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    conf_lines_free(&s->in);
}

static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - conf_now_ms();
        struct pollfd p = {fd, events, 0};
        int rc = poll(&p, 1, left > 0 ? (int)left : 0);
        if (rc < 0 && errno == EINTR) continue;
        return rc;
    }
}

int conf_stream_write(conf_stream_t *s, const void *data, size_t len, int64_t deadline, char *err,
                      size_t cap)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(s->fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(s->fd, POLLOUT, deadline) <= 0) {
                snprintf(err, cap, "write timed out");
                return -1;
            }
            continue;
        }
        snprintf(err, cap, "write failed: %s", n < 0 ? strerror(errno) : "nothing written");
        return -1;
    }
    return 0;
}

int conf_stream_read_line(conf_stream_t *s, int64_t deadline, char **line, size_t *len, char *err,
                          size_t cap)
{
    for (;;) {
        *line = conf_lines_pop(&s->in, len);
        if (*line) return 1;
        int rc = wait_fd(s->fd, POLLIN, deadline);
        if (rc < 0) {
            snprintf(err, cap, "poll failed: %s", strerror(errno));
            return -1;
        }
        if (rc == 0) return 0;
        char chunk[8192];
        ssize_t n = read(s->fd, chunk, sizeof chunk);
        if (n > 0) {
            size_t keep = sizeof s->rx_first - s->rx_first_len;
            if (keep > (size_t)n) keep = (size_t)n;
            memcpy(s->rx_first + s->rx_first_len, chunk, keep);
            s->rx_first_len += keep;
            s->rx_bytes += (uint64_t)n;
            conf_lines_push(&s->in, chunk, (size_t)n);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            snprintf(err, cap, "%s", n == 0 ? "the device closed the connection" : strerror(errno));
            return -1;
        }
    }
}

void conf_stream_describe_rx(const conf_stream_t *s, char *out, size_t cap)
{
    if (s->rx_bytes == 0) {
        snprintf(out, cap, "not a single byte arrived from the device");
        return;
    }
    char shown[4 * sizeof s->rx_first + 1];
    size_t k = 0;
    for (size_t i = 0; i < s->rx_first_len; i++) {
        unsigned char c = s->rx_first[i];
        if (c == '\n')
            k += (size_t)sprintf(shown + k, "\\n");
        else if (c == '\r')
            k += (size_t)sprintf(shown + k, "\\r");
        else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            k += (size_t)sprintf(shown + k, "\\x%02x", c);
        else
            shown[k++] = (char)c;
    }
    shown[k] = 0;
    snprintf(out, cap, "%llu byte%s arrived from the device; the first: \"%s\"%s",
             (unsigned long long)s->rx_bytes, s->rx_bytes == 1 ? "" : "s", shown,
             s->rx_bytes > s->rx_first_len ? "..." : "");
}

/* ---------------------------------------------------------------- TCP */

bool conf_split_hostport(const char *spec, char *host, size_t cap, int *port)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec) return false;
    const char *h = spec;
    size_t hl = (size_t)(colon - spec);
    if (h[0] == '[') {
        if (hl < 2 || h[hl - 1] != ']') return false;
        h++;
        hl -= 2;
    }
    if (hl == 0 || hl >= cap) return false;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (*end != 0 || end == colon + 1 || p <= 0 || p > 65535) return false;
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (int)p;
    return true;
}

static int connect_one(const struct addrinfo *ai, int timeout_ms, char *err, size_t cap)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
        snprintf(err, cap, "socket: %s", strerror(errno));
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc < 0 && errno == EINPROGRESS) {
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (wait_fd(fd, POLLOUT, conf_now_ms() + timeout_ms) <= 0) {
            errno = ETIMEDOUT;
        } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0) {
            rc = 0;
        } else {
            errno = soerr;
        }
    }
    if (rc < 0) {
        snprintf(err, cap, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int conf_tcp_connect(const char *host, int port, int timeout_ms, char *err, size_t cap)
{
    struct addrinfo hints, *res = NULL;
    char service[16], why[256] = "no address";
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(service, sizeof service, "%d", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0) {
        snprintf(err, cap, "cannot resolve %s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
        fd = connect_one(ai, timeout_ms, why, sizeof why);
    freeaddrinfo(res);
    if (fd < 0) snprintf(err, cap, "cannot connect to %s:%d: %s", host, port, why);
    return fd;
}

/* ---------------------------------------------------------------- serial */

static speed_t baud_constant(int baud)
{
    static const struct {
        int baud;
        speed_t c;
    } table[] = {{9600, B9600},     {19200, B19200},   {38400, B38400},   {57600, B57600},
                 {115200, B115200}, {230400, B230400}, {460800, B460800}, {921600, B921600}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].baud == baud) return table[i].c;
    return 0;
}

int conf_serial_open(const char *path, int baud, char *err, size_t cap)
{
    speed_t speed = baud_constant(baud);
    if (!speed) {
        snprintf(err, cap, "unsupported baud rate %d (9600 .. 921600)", baud);
        return -1;
    }
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct termios t;
    if (tcgetattr(fd, &t) != 0) {
        snprintf(err, cap, "%s is not a serial port: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    cfmakeraw(&t);
    t.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS | CSIZE);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    t.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    cfsetispeed(&t, speed);
    cfsetospeed(&t, speed);
    if (tcsetattr(fd, TCSANOW, &t) != 0) {
        snprintf(err, cap, "cannot configure %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int conf_serial_pulse_dtr(int fd, int ms, char *err, size_t cap)
{
    int dtr = TIOCM_DTR;
    if (ioctl(fd, TIOCMBIC, &dtr) != 0) {
        snprintf(err, cap, "cannot drop DTR: %s", strerror(errno));
        return -1;
    }
    conf_sleep_ms(ms);
    if (ioctl(fd, TIOCMBIS, &dtr) != 0) {
        snprintf(err, cap, "cannot raise DTR: %s", strerror(errno));
        return -1;
    }
    return 0;
}
