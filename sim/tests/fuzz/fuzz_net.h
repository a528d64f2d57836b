/* fuzz_net.h: the client side shared by the harnesses that talk to a real listener of the
   host in the same process (fuzz_http.c through libmicrohttpd, fuzz_ws.c through
   libwebsockets): a loopback connection, one turn of the host's loop, and reading what the
   server sent without blocking. */
#ifndef FUZZ_NET_H
#define FUZZ_NET_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <uv.h>

#include "fuzz_sim.h"

/* What a connection received (NUL-terminated after each read), and whether the server closed
   it (EOF or a reset, e.g. closed with unread input). */
typedef struct fuzz_net_rx {
    uint8_t *data;
    size_t len, cap;
    bool closed;
    bool reset; /* closed by a reset (ECONNRESET), not an end of stream */
} fuzz_net_rx_t;

static inline uint64_t fuzz_net_ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A non-blocking connection to 127.0.0.1:port (possibly still in progress). */
static inline int fuzz_net_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    FUZZ_SIM_CHECK(fd >= 0, "socket failed");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    FUZZ_SIM_CHECK(rc == 0 || errno == EINPROGRESS, "connect failed");
    return fd;
}

/* Runs the host's loop once, after waiting up to wait_ms for it or for the client's socket fd
   (-1: none). */
static inline void fuzz_net_turn(uv_loop_t *loop, int fd, int wait_ms)
{
    int t = uv_backend_timeout(loop);
    if (t < 0 || t > wait_ms) t = wait_ms;
    struct pollfd p[2] = {{uv_backend_fd(loop), POLLIN, 0}, {fd, POLLIN, 0}};
    if (t > 0) (void)poll(p, fd >= 0 ? 2 : 1, t);
    uv_run(loop, UV_RUN_NOWAIT);
}

/* Reads what is there; returns r->closed. */
static inline bool fuzz_net_drain(int fd, fuzz_net_rx_t *r)
{
    while (!r->closed) {
        if (r->cap - r->len < 4096) {
            r->cap = r->cap ? r->cap * 2 : 16384;
            r->data = realloc(r->data, r->cap + 1);
            FUZZ_SIM_CHECK(r->data != NULL, "out of memory");
        }
        ssize_t n = recv(fd, r->data + r->len, r->cap - r->len, 0);
        if (n > 0) {
            r->len += (size_t)n;
            r->data[r->len] = 0;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            r->closed = true;
            r->reset = n < 0 && errno == ECONNRESET;
        }
    }
    return r->closed;
}

#endif
