/* bench_epoll_echo.c: tools/bench-net's TCP baseline: a bare epoll server (one thread) that answers each newline-delimited request with a minimal JSON-RPC
   result carrying the request's id, found in place; the replies to one read go out in one write.
   Prints "tcp: 127.0.0.1:PORT" and "ready"; a signal ends it. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define IN_MAX (64 * 1024)

typedef struct conn {
    int fd;
    char in[IN_MAX];
    size_t len;
} conn_t;

static char out[256 * 1024];

/* Appends the reply to line[0..n) at out + *o: the id's raw text (up to ',' or '}'), or null. */
static void reply(const char *line, size_t n, size_t *o)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char tail[] = ",\"result\":{}}\n";
    const char *id = memmem(line, n, "\"id\":", 5);
    const char *v = "null";
    size_t vlen = 4;
    if (id != NULL) {
        v = id + 5;
        const char *end = v;
        while (end < line + n && *end != ',' && *end != '}') end++;
        vlen = (size_t)(end - v);
    }
    if (*o + sizeof head + vlen + sizeof tail > sizeof out) return;
    memcpy(out + *o, head, sizeof head - 1);
    *o += sizeof head - 1;
    memcpy(out + *o, v, vlen);
    *o += vlen;
    memcpy(out + *o, tail, sizeof tail - 1);
    *o += sizeof tail - 1;
}

/* Reads what there is, answers every complete line; -1 when the connection is done. */
static int serve(conn_t *c)
{
    for (;;) {
        ssize_t k = read(c->fd, c->in + c->len, sizeof c->in - c->len);
        if (k == 0) return -1;
        if (k < 0) return errno == EAGAIN ? 0 : -1;
        c->len += (size_t)k;
        size_t o = 0, start = 0;
        char *nl;
        while ((nl = memchr(c->in + start, '\n', c->len - start)) != NULL) {
            reply(c->in + start, (size_t)(nl - c->in) - start, &o);
            start = (size_t)(nl - c->in) + 1;
        }
        memmove(c->in, c->in + start, c->len - start);
        c->len -= start;
        if (c->len == sizeof c->in) return -1; /* a line longer than the buffer */
        for (size_t w = 0; w < o;) {             /* blocking enough on loopback for a baseline */
            ssize_t s = write(c->fd, out + w, o - w);
            if (s < 0 && errno != EAGAIN) return -1;
            if (s > 0) w += (size_t)s;
        }
    }
}

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 0;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 1024) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
        perror("epoll_echo");
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    printf("tcp: 127.0.0.1:%u\nready\n", ntohs(a.sin_port));
    fflush(stdout);
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            conn_t *c = evs[i].data.ptr;
            if (c == NULL) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn_t *nc = calloc(1, sizeof *nc);
                    if (nc == NULL) {
                        close(fd);
                        continue;
                    }
                    nc->fd = fd;
                    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = nc};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                }
            } else if (serve(c) < 0) {
                close(c->fd);
                free(c);
            }
        }
    }
}
