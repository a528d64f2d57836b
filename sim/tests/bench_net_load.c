/* bench_net_load.c: HTTP and WebSocket load generator for tools/bench-net: K connections, each a
   thread doing request/response; prints req/s and p50/p99 latency in bench_tcp_load's format.
   Usage: net_load -m http|ws|idle [-c CONNS] [-t SECONDS] [-w WARMUP] [-l LABEL] [-s SESSIONS]
                   HOST:PORT
   http: initialize (its Mcp-Session-Id), notifications/initialized, then POSTs of a tools/call
   of gpio_write to /mcp on a keep-alive connection; each connection's session is ended (DELETE)
   after the run, and -s first opens SESSIONS more on a connection of their own (closed then),
   left idle through the run and ended after it (the idle sessions of an HTTP run); ws: a WebSocket on
   /mcp, then text frames of MCP/U's gpio_write; idle: CONNS connections that send nothing, held
   for SECONDS (the idle clients of a TCP run). A reply with "error" counts as an error; the run
   fails on any. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RBUF (64 * 1024)

static const char call_http[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                                "{\"name\":\"gpio_write\",\"arguments\":{\"pin\":2,\"value\":true}}}";
static const char init_http[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"net_load\",\"version\":\"1\"}}}";
static const char inited_http[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
static const char call_ws[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"gpio_write\",\"params\":"
                              "{\"pin\":2,\"value\":true}}";

typedef struct conn {
    pthread_t th;
    int fd;
    char rbuf[RBUF];
    size_t rlen;
    char session[80];
    uint32_t *lat;
    size_t nlat, cap;
    uint64_t done, errors, bytes;
} conn_t;

static struct sockaddr_in addr;
static int ws_mode;
static char hostport[64];
static atomic_int phase; /* 0 warm-up, 1 measuring, 2 stop */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Reads more into c->rbuf; -1 on close or error. */
static int fill(conn_t *c)
{
    if (c->rlen == RBUF) return -1;
    ssize_t k = recv(c->fd, c->rbuf + c->rlen, RBUF - c->rlen, 0);
    if (k <= 0) return -1;
    c->rlen += (size_t)k;
    return 0;
}

static void consume(conn_t *c, size_t n)
{
    memmove(c->rbuf, c->rbuf + n, c->rlen - n);
    c->rlen -= n;
}

/* One HTTP response: its body into body (NUL-terminated, cut at cap); the status, or -1.
   Content-Length and chunked bodies both. */
static int http_response(conn_t *c, char *body, size_t cap)
{
    char *end;
    while ((end = memmem(c->rbuf, c->rlen, "\r\n\r\n", 4)) == NULL)
        if (fill(c) < 0) return -1;
    size_t hlen = (size_t)(end - c->rbuf) + 4;
    int status = atoi(c->rbuf + 9);
    c->rbuf[hlen - 1] = 0;
    const char *cl = strcasestr(c->rbuf, "\r\ncontent-length:");
    const char *sid = strcasestr(c->rbuf, "\r\nmcp-session-id:");
    if (sid != NULL) sscanf(sid + 17, " %79[0-9a-zA-Z-]", c->session);
    int chunked = strcasestr(c->rbuf, "\r\ntransfer-encoding: chunked") != NULL;
    size_t n = cl != NULL ? strtoul(cl + 17, NULL, 10) : 0; /* before the headers go */
    consume(c, hlen);
    size_t blen = 0;
    if (!chunked) {
        while (c->rlen < n)
            if (fill(c) < 0) return -1;
        blen = n < cap - 1 ? n : cap - 1;
        memcpy(body, c->rbuf, blen);
        consume(c, n);
    } else {
        for (;;) {
            char *eol;
            while ((eol = memmem(c->rbuf, c->rlen, "\r\n", 2)) == NULL)
                if (fill(c) < 0) return -1;
            n = strtoul(c->rbuf, NULL, 16);
            size_t line = (size_t)(eol - c->rbuf) + 2;
            while (c->rlen < line + n + 2)
                if (fill(c) < 0) return -1;
            size_t k = n < cap - 1 - blen ? n : cap - 1 - blen;
            memcpy(body + blen, c->rbuf + line, k);
            blen += k;
            consume(c, line + n + 2);
            if (n == 0) break;
        }
    }
    body[blen] = 0;
    c->bytes += blen;
    return status;
}

static int http_post(conn_t *c, const char *json, char *body, size_t cap)
{
    char req[2048];
    int n = snprintf(req, sizeof req,
                     "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\n%s%s%s"
                     "Content-Length: %zu\r\n\r\n%s",
                     hostport, c->session[0] ? "Mcp-Session-Id: " : "", c->session,
                     c->session[0] ? "\r\n" : "", strlen(json), json);
    if (send_all(c->fd, req, (size_t)n) < 0) return -1;
    return http_response(c, body, cap);
}

static int ws_open(conn_t *c)
{
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /mcp HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: mcp\r\n\r\n",
                     hostport);
    if (send_all(c->fd, req, (size_t)n) < 0) return -1;
    char *end;
    while ((end = memmem(c->rbuf, c->rlen, "\r\n\r\n", 4)) == NULL)
        if (fill(c) < 0) return -1;
    int status = atoi(c->rbuf + 9);
    consume(c, (size_t)(end - c->rbuf) + 4);
    return status == 101 ? 0 : -1;
}

static int ws_send(conn_t *c, const char *json)
{
    size_t n = strlen(json);
    unsigned char f[1024];
    size_t h = 0;
    f[h++] = 0x81;
    if (n < 126) {
        f[h++] = (unsigned char)(0x80 | n);
    } else {
        f[h++] = 0x80 | 126;
        f[h++] = (unsigned char)(n >> 8);
        f[h++] = (unsigned char)n;
    }
    static const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    memcpy(f + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < n && h < sizeof f; i++) f[h++] = (unsigned char)json[i] ^ mask[i & 3];
    return send_all(c->fd, (const char *)f, h);
}

/* One text message (a data frame, unfragmented) into body; -1 on error. */
static int ws_recv(conn_t *c, char *body, size_t cap)
{
    for (;;) {
        while (c->rlen < 2)
            if (fill(c) < 0) return -1;
        const unsigned char *p = (const unsigned char *)c->rbuf;
        size_t len = p[1] & 0x7f, h = 2;
        if (len == 126) {
            while (c->rlen < 4)
                if (fill(c) < 0) return -1;
            len = (size_t)p[2] << 8 | p[3];
            h = 4;
        } else if (len == 127) {
            while (c->rlen < 10)
                if (fill(c) < 0) return -1;
            len = 0;
            for (int i = 2; i < 10; i++) len = len << 8 | p[i];
            h = 10;
        }
        while (c->rlen < h + len)
            if (fill(c) < 0) return -1;
        int opcode = c->rbuf[0] & 0x0f;
        size_t k = len < cap - 1 ? len : cap - 1;
        memcpy(body, c->rbuf + h, k);
        body[k] = 0;
        consume(c, h + len);
        if (opcode == 1 || opcode == 2) {
            c->bytes += len;
            return 0;
        }
        if (opcode == 8) return -1;
    }
}

/* Connects c (TCP_NODELAY); -1 on failure (said). */
static int dial(conn_t *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
        perror("net_load: connect");
        return -1;
    }
    return 0;
}

/* Opens n sessions (initialize, notifications/initialized) on a connection of their own,
   closed then (the sessions outlive it), their ids into ids; -1 on failure. */
static int open_sessions(char (*ids)[80], unsigned n)
{
    static conn_t c;
    static char body[RBUF];
    int rc = dial(&c);
    for (unsigned i = 0; i < n && rc == 0; i++) {
        c.session[0] = 0;
        if (http_post(&c, init_http, body, sizeof body) != 200 || !c.session[0] ||
            http_post(&c, inited_http, body, sizeof body) / 100 != 2)
            rc = -1;
        memcpy(ids[i], c.session, sizeof ids[i]);
    }
    close(c.fd);
    return rc;
}

/* Ends the sessions ids[0..n) (DELETE /mcp, each on a connection of its own: mcpsim answers a
   DELETE at once and libmicrohttpd then closes the connection); -1 unless each was ended. */
static int end_sessions(char (*ids)[80], unsigned n)
{
    static conn_t c;
    static char body[RBUF];
    for (unsigned i = 0; i < n; i++) {
        if (!ids[i][0]) continue;
        char req[256];
        int k = snprintf(req, sizeof req,
                         "DELETE /mcp HTTP/1.1\r\nHost: %s\r\nMcp-Session-Id: %s\r\n\r\n",
                         hostport, ids[i]);
        c.rlen = 0;
        int status = dial(&c) < 0 || send_all(c.fd, req, (size_t)k) < 0
                         ? -1
                         : http_response(&c, body, sizeof body);
        close(c.fd);
        if (status / 100 != 2) return -1;
    }
    return 0;
}

static void *run(void *arg)
{
    conn_t *c = arg;
    char body[RBUF];
    int setup = ws_mode ? ws_open(c) : -1;
    if (!ws_mode && http_post(c, init_http, body, sizeof body) == 200 && c->session[0] &&
        http_post(c, inited_http, body, sizeof body) / 100 == 2)
        setup = 0;
    if (setup < 0) {
        fprintf(stderr, "net_load: connection setup failed\n");
        c->errors++;
        return NULL;
    }
    while (atomic_load(&phase) < 2) {
        uint64_t t0 = now_ns();
        int ok = ws_mode ? (ws_send(c, call_ws) == 0 && ws_recv(c, body, sizeof body) == 0)
                         : http_post(c, call_http, body, sizeof body) == 200;
        if (!ok) { /* the end of the run shuts the socket down under a waiting reply */
            if (atomic_load(&phase) < 2) c->errors++;
            return NULL;
        }
        if (atomic_load(&phase) != 1) continue;
        if (strstr(body, "\"error\"") != NULL || strstr(body, "\"isError\":true") != NULL)
            c->errors++;
        c->done++;
        if (c->nlat == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 4096;
            c->lat = realloc(c->lat, c->cap * sizeof *c->lat);
            if (c->lat == NULL) abort();
        }
        c->lat[c->nlat++] = (uint32_t)((now_ns() - t0) / 1000u);
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    unsigned nconn = 1;
    double secs = 2, warm = 0.3;
    unsigned nidle = 0;
    const char *label = "net_load", *mode = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "m:c:t:w:l:s:")) != -1) {
        if (opt == 'm') mode = optarg;
        else if (opt == 's') nidle = (unsigned)atoi(optarg);
        else if (opt == 'c') nconn = (unsigned)atoi(optarg);
        else if (opt == 't') secs = atof(optarg);
        else if (opt == 'w') warm = atof(optarg);
        else if (opt == 'l') label = optarg;
        else return 2;
    }
    if (mode == NULL || optind != argc - 1 || nconn == 0 ||
        (strcmp(mode, "http") != 0 && strcmp(mode, "ws") != 0 && strcmp(mode, "idle") != 0) ||
        (nidle > 0 && strcmp(mode, "http") != 0)) {
        fprintf(stderr, "usage: net_load -m http|ws|idle [-c CONNS] [-t SECONDS] [-w WARMUP] "
                        "[-l LABEL] [-s SESSIONS (http)] HOST:PORT\n");
        return 2;
    }
    ws_mode = strcmp(mode, "ws") == 0;
    snprintf(hostport, sizeof hostport, "%s", argv[optind]);
    char *colon = strrchr(hostport, ':');
    if (colon == NULL) return 2;
    *colon = 0;
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, hostport, &addr.sin_addr) != 1) return 2;
    *colon = ':';
    conn_t *conns = calloc(nconn, sizeof *conns);
    char(*idle_ids)[80] = calloc(nidle ? nidle : 1, sizeof *idle_ids);
    if (conns == NULL || idle_ids == NULL) return 1;
    if (nidle > 0 && open_sessions(idle_ids, nidle) < 0) {
        fprintf(stderr, "net_load: opening %u idle sessions failed\n", nidle);
        return 1;
    }
    for (unsigned i = 0; i < nconn; i++) {
        if (dial(&conns[i]) < 0) return 1;
        if (strcmp(mode, "idle") == 0) continue;
        pthread_create(&conns[i].th, NULL, run, &conns[i]);
    }
    if (strcmp(mode, "idle") == 0) {
        printf("ready\n");
        fflush(stdout);
        sleep((unsigned)secs);
        return 0;
    }
    usleep((useconds_t)(warm * 1e6));
    atomic_store(&phase, 1);
    uint64_t t0 = now_ns();
    usleep((useconds_t)(secs * 1e6));
    atomic_store(&phase, 2);
    double measured = (double)(now_ns() - t0) / 1e9;
    uint64_t done = 0, errors = 0, bytes = 0;
    size_t nlat = 0;
    for (unsigned i = 0; i < nconn; i++) {
        shutdown(conns[i].fd, SHUT_RDWR); /* a thread blocked in recv returns */
        pthread_join(conns[i].th, NULL);
        done += conns[i].done;
        errors += conns[i].errors;
        bytes += conns[i].bytes;
        nlat += conns[i].nlat;
    }
    if (!ws_mode) { /* the run's sessions and the idle ones end: the next run finds none */
        char(*own)[80] = calloc(nconn, sizeof *own);
        if (own == NULL) return 1;
        for (unsigned i = 0; i < nconn; i++) memcpy(own[i], conns[i].session, sizeof own[i]);
        if (end_sessions(own, nconn) < 0 || end_sessions(idle_ids, nidle) < 0) {
            fprintf(stderr, "net_load: ending the sessions failed\n");
            errors++;
        }
        free(own);
    }
    uint32_t *lat = malloc((nlat ? nlat : 1) * sizeof *lat);
    size_t k = 0;
    for (unsigned i = 0; i < nconn; i++) {
        memcpy(lat + k, conns[i].lat, conns[i].nlat * sizeof *lat);
        k += conns[i].nlat;
    }
    qsort(lat, nlat, sizeof *lat, cmp_u32);
    printf("%s: conns=%u depth=1 seconds=%.2f requests=%llu errors=%llu rps=%.0f p50_us=%u "
           "p99_us=%u max_us=%u bytes_per_reply=%.0f\n",
           label, nconn, measured, (unsigned long long)done, (unsigned long long)errors,
           (double)done / measured, nlat ? lat[nlat / 2] : 0,
           nlat ? lat[(size_t)((double)(nlat - 1) * 0.99)] : 0, nlat ? lat[nlat - 1] : 0,
           done ? (double)bytes / (double)done : 0.0);
    return errors != 0 || done == 0 ? 1 : 0;
}
