/* bench_http_load.c: Streamable HTTP load generator: K keep-alive connections, each with its own
   MCP session, POSTing one request at a time for S seconds; prints req/s and p50/p99 latency.

   Usage: http_load PORT CONNECTIONS SECONDS [BODY]
   BODY defaults to a tools/call of gpio_read on pin 2 (esp32-demo). Every answer must be 200
   without "error" or "isError":true, else the run fails (exit 1). With $HTTP_LOAD_PID (the
   server's process id) it also prints the server's CPU time per request over the measured
   window, a figure other load on the machine skews less than req/s. Not a test: a benchmark. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define INIT                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"     \
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"http_load\",\"version\":\"1\"}}}"
#define INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
#define CALL                                                                                       \
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"gpio_read\","   \
    "\"arguments\":{\"pin\":2}}}"

typedef struct conn {
    int fd;
    char session[64];
    int stage; /* 0 initialize, 1 initialized, 2 calls */
    char in[65536];
    size_t in_len;
    uint64_t sent_us;
} conn_t;

static int port;
static const char *body = CALL;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void die(const char *what)
{
    fprintf(stderr, "http_load: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

static void send_post(conn_t *c, const char *json)
{
    char req[8192];
    int n = snprintf(req, sizeof req,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\n%s%s%sContent-Length: %zu\r\n"
                     "\r\n%s",
                     port, c->session[0] ? "Mcp-Session-Id: " : "", c->session,
                     c->session[0] ? "\r\n" : "", strlen(json), json);
    for (int off = 0; off < n;) {
        ssize_t w = write(c->fd, req + off, (size_t)(n - off));
        if (w < 0 && errno == EAGAIN) {
            struct pollfd p = {c->fd, POLLOUT, 0};
            poll(&p, 1, 1000);
            continue;
        }
        if (w <= 0) die("write");
        off += (int)w;
    }
    c->sent_us = now_us();
}

/* A whole answer in c->in: its status, and its body in *b (length *blen); 0 if incomplete. */
static int parse(conn_t *c, const char **b, size_t *blen, size_t *total)
{
    c->in[c->in_len] = 0;
    char *end = strstr(c->in, "\r\n\r\n");
    if (!end) return 0;
    size_t head = (size_t)(end - c->in) + 4;
    const char *cl = strcasestr(c->in, "\r\nContent-Length:");
    if (!cl || cl > end) die("an answer without Content-Length");
    size_t len = strtoul(cl + 17, NULL, 10);
    if (c->in_len < head + len) return 0;
    const char *sid = strcasestr(c->in, "\r\nMcp-Session-Id:");
    if (sid && sid < end) {
        sid += 17;
        while (*sid == ' ') sid++;
        snprintf(c->session, sizeof c->session, "%.*s", (int)strcspn(sid, "\r\n"), sid);
    }
    *b = c->in + head;
    *blen = len;
    *total = head + len;
    return atoi(c->in + 9);
}

/* utime + stime of process pid in clock ticks (0 when unknown). */
static unsigned long long cpu_ticks(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold spaces */
    unsigned long long ut = 0, st = 0;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
        return ut + st;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: http_load PORT CONNECTIONS SECONDS [BODY]\n");
        return 2;
    }
    port = atoi(argv[1]);
    int nconn = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (argc > 4) body = argv[4];
    conn_t *conns = calloc((size_t)nconn, sizeof *conns);
    struct pollfd *pfd = calloc((size_t)nconn, sizeof *pfd);
    size_t lat_cap = 1 << 20, nlat = 0;
    uint32_t *lat = malloc(lat_cap * sizeof *lat);
    if (!conns || !pfd || !lat) die("malloc");
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    for (int i = 0; i < nconn; i++) {
        conn_t *c = &conns[i];
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) die("connect");
        send_post(c, INIT);
        pfd[i] = (struct pollfd){c->fd, POLLIN, 0};
    }
    uint64_t start = 0, stop = 0, done = 0;
    int server = getenv("HTTP_LOAD_PID") ? atoi(getenv("HTTP_LOAD_PID")) : 0;
    unsigned long long cpu0 = 0, cpu1 = 0;
    uint64_t t0 = now_us();
    for (;;) {
        uint64_t t = now_us();
        if (!start && t - t0 > 500000u) { /* half a second of warm-up */
            start = t;
            nlat = 0;
            done = 0;
            if (server) cpu0 = cpu_ticks(server);
        }
        if (start && t - start >= (uint64_t)(seconds * 1e6)) {
            stop = t;
            if (server) cpu1 = cpu_ticks(server);
            break;
        }
        if (poll(pfd, (nfds_t)nconn, 1000) < 0) die("poll");
        for (int i = 0; i < nconn; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            conn_t *c = &conns[i];
            ssize_t r = read(c->fd, c->in + c->in_len, sizeof c->in - 1 - c->in_len);
            if (r <= 0) die("the server closed a connection");
            c->in_len += (size_t)r;
            const char *b;
            size_t blen, total;
            int status = parse(c, &b, &blen, &total);
            if (status == 0) continue;
            bool ok = c->stage == 1 ? status == 202
                                    : status == 200 && !memmem(b, blen, "\"error\"", 7) &&
                                          !memmem(b, blen, "\"isError\":true", 14);
            if (!ok) {
                fprintf(stderr, "http_load: status %d: %.*s\n", status, (int)blen, b);
                return 1;
            }
            memmove(c->in, c->in + total, c->in_len - total);
            c->in_len -= total;
            if (c->stage == 2) {
                done++;
                if (start && nlat < lat_cap) lat[nlat++] = (uint32_t)(now_us() - c->sent_us);
            } else {
                c->stage++;
            }
            send_post(c, c->stage == 1 ? INITIALIZED : body);
        }
    }
    double secs = (double)(stop - start) / 1e6;
    qsort(lat, nlat, sizeof *lat, cmp_u32);
    printf("connections %d: %.0f req/s, p50 %.3f ms, p99 %.3f ms", nconn, (double)done / secs,
           nlat ? lat[nlat / 2] / 1000.0 : 0.0, nlat ? lat[nlat * 99 / 100] / 1000.0 : 0.0);
    if (server && done)
        printf(", server CPU %.1f us/request",
               (double)(cpu1 - cpu0) * 1e6 / (double)sysconf(_SC_CLK_TCK) / (double)done);
    printf(" (%llu requests in %.1f s)\n", (unsigned long long)done, secs);
    return 0;
}
