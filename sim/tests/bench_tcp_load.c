/* bench_tcp_load.c: TCP load generator for newline-delimited JSON-RPC: K connections,
   request/response or pipelined, a fixed request mix; prints req/s and p50/p99 latency. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* The default mix: the esp32-demo board's cheap and common calls (every one must succeed). */
static const char *const default_mix[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"gpio_write\",\"params\":{\"pin\":2,\"value\":true}}"
    "\n",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"gpio_read\",\"params\":{\"pin\":2}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"adc_read\",\"params\":{\"pin\":34}}\n",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"pwm_write\",\"params\":{\"pin\":18,\"duty\":128}}"
    "\n",
};

typedef struct load load_t;

typedef struct load_conn {
    uv_tcp_t tcp;
    uv_connect_t creq;
    load_t *L;
    uint64_t *sent; /* send times of the requests in flight, a ring of depth entries */
    unsigned head, inflight;
    unsigned next_req; /* index into the mix */
    char *line;        /* the unfinished reply line */
    size_t line_len, line_cap;
} load_conn_t;

struct load {
    uv_loop_t *loop;
    struct sockaddr_in addr;
    const char *label;
    unsigned nconn, depth;
    double warmup, duration;
    char **mix;
    size_t nmix;
    load_conn_t *conns;
    unsigned connected;
    uv_timer_t timer;
    int phase; /* 0 warm-up, 1 measuring, 2 stopping */
    uint64_t t_start, t_end;
    uint64_t done, errors, bytes_in;
    uint32_t *lat; /* microseconds, one per reply while measuring */
    size_t nlat, lat_cap;
};

typedef struct load_write {
    uv_write_t req;
    size_t len;
    char data[];
} load_write_t;

static char readbuf[64 * 1024];

static void die(const char *what, int rc)
{
    fprintf(stderr, "tcp_load: %s: %s\n", what, uv_strerror(rc));
    exit(1);
}

static void on_written(uv_write_t *req, int status)
{
    if (status < 0 && status != UV_ECANCELED) die("write", status);
    free(req);
}

/* Sends the next n requests of the mix in one write. */
static void send_requests(load_conn_t *c, unsigned n)
{
    load_t *L = c->L;
    size_t len = 0;
    unsigned k = c->next_req;
    for (unsigned i = 0; i < n; i++, k = (k + 1) % (unsigned)L->nmix) len += strlen(L->mix[k]);
    load_write_t *w = malloc(sizeof *w + len);
    w->len = 0;
    uint64_t now = uv_hrtime();
    for (unsigned i = 0; i < n; i++) {
        size_t l = strlen(L->mix[c->next_req]);
        memcpy(w->data + w->len, L->mix[c->next_req], l);
        w->len += l;
        c->next_req = (c->next_req + 1) % (unsigned)L->nmix;
        c->sent[(c->head + c->inflight) % L->depth] = now;
        c->inflight++;
    }
    uv_buf_t b = uv_buf_init(w->data, (unsigned)w->len);
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written);
    if (rc != 0) die("write", rc);
}

static void on_reply(load_conn_t *c, const char *line, size_t len)
{
    load_t *L = c->L;
    uint64_t sent = c->sent[c->head];
    c->head = (c->head + 1) % L->depth;
    c->inflight--;
    if (L->phase != 1) return;
    L->done++;
    L->bytes_in += len + 1;
    if (memmem(line, len, "\"error\"", 7)) L->errors++;
    if (L->nlat == L->lat_cap) {
        L->lat_cap = L->lat_cap ? L->lat_cap * 2 : 65536;
        L->lat = realloc(L->lat, L->lat_cap * sizeof *L->lat);
    }
    L->lat[L->nlat++] = (uint32_t)((uv_hrtime() - sent) / 1000u);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    *buf = uv_buf_init(readbuf, sizeof readbuf);
}

static void append_line(load_conn_t *c, const char *p, size_t n)
{
    if (c->line_len + n > c->line_cap) {
        c->line_cap = (c->line_len + n) * 2;
        c->line = realloc(c->line, c->line_cap);
    }
    memcpy(c->line + c->line_len, p, n);
    c->line_len += n;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    load_conn_t *c = s->data;
    if (nread < 0) {
        if (c->L->phase != 2) die("the server closed a connection", (int)nread);
        return;
    }
    unsigned replies = 0;
    const char *p = buf->base, *end = buf->base + nread;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            append_line(c, p, (size_t)(end - p));
            break;
        }
        if (c->line_len) {
            append_line(c, p, (size_t)(nl - p));
            on_reply(c, c->line, c->line_len);
            c->line_len = 0;
        } else {
            on_reply(c, p, (size_t)(nl - p));
        }
        replies++;
        p = nl + 1;
    }
    if (replies && c->L->phase != 2) send_requests(c, replies); /* keep depth requests in flight */
}

static void close_all(load_t *L)
{
    for (unsigned i = 0; i < L->nconn; i++) uv_close((uv_handle_t *)&L->conns[i].tcp, NULL);
    uv_close((uv_handle_t *)&L->timer, NULL);
}

static void on_timer(uv_timer_t *t)
{
    load_t *L = t->data;
    if (L->phase == 0) {
        L->phase = 1;
        L->t_start = uv_hrtime();
        uv_timer_start(&L->timer, on_timer, (uint64_t)(L->duration * 1000), 0);
    } else {
        L->phase = 2;
        L->t_end = uv_hrtime();
        close_all(L);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    load_conn_t *c = req->data;
    load_t *L = c->L;
    if (status < 0) die("connect", status);
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (++L->connected < L->nconn) return;
    uv_timer_start(&L->timer, on_timer, (uint64_t)(L->warmup * 1000), 0);
    for (unsigned i = 0; i < L->nconn; i++) send_requests(&L->conns[i], L->depth);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t percentile(const load_t *L, double q)
{
    if (L->nlat == 0) return 0;
    size_t i = (size_t)(q * (double)(L->nlat - 1) + 0.5);
    return L->lat[i];
}

static void report(load_t *L)
{
    double secs = (double)(L->t_end - L->t_start) / 1e9;
    qsort(L->lat, L->nlat, sizeof *L->lat, cmp_u32);
    printf("%s: conns=%u depth=%u seconds=%.2f requests=%llu errors=%llu rps=%.0f "
           "p50_us=%u p99_us=%u max_us=%u bytes_per_reply=%.0f\n",
           L->label, L->nconn, L->depth, secs, (unsigned long long)L->done,
           (unsigned long long)L->errors, (double)L->done / secs, percentile(L, 0.50),
           percentile(L, 0.99), L->nlat ? L->lat[L->nlat - 1] : 0,
           L->done ? (double)L->bytes_in / (double)L->done : 0.0);
}

static void usage(void)
{
    fputs("usage: tcp_load [options] HOST:PORT\n"
          "  -c N         connections (default 1)\n"
          "  -d N         requests in flight per connection: 1 = request/response (default),\n"
          "               more = pipelined\n"
          "  -t SECONDS   measured time (default 3)\n"
          "  -w SECONDS   warm-up before measuring (default 0.5)\n"
          "  -r LINE      a request of the mix (repeatable; default: get_info, gpio_write,\n"
          "               gpio_read, adc_read, pwm_write on the esp32-demo board)\n"
          "  -l LABEL     name printed before the results (default: tcp_load)\n"
          "Prints: LABEL: conns= depth= seconds= requests= errors= rps= p50_us= p99_us= ...\n"
          "A reply containing \"error\" counts as an error.\n",
          stderr);
    exit(2);
}

static void add_request(load_t *L, const char *line)
{
    size_t n = strlen(line);
    char *r = malloc(n + 2);
    memcpy(r, line, n);
    if (n == 0 || line[n - 1] != '\n') r[n++] = '\n';
    r[n] = 0;
    L->mix = realloc(L->mix, (L->nmix + 1) * sizeof *L->mix);
    L->mix[L->nmix++] = r;
}

static void parse_args(load_t *L, int argc, char **argv)
{
    const char *target = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            target = a;
            continue;
        }
        if (i + 1 >= argc || a[2] != 0) usage();
        const char *v = argv[++i];
        switch (a[1]) {
        case 'c':
            L->nconn = (unsigned)atoi(v);
            break;
        case 'd':
            L->depth = (unsigned)atoi(v);
            break;
        case 't':
            L->duration = atof(v);
            break;
        case 'w':
            L->warmup = atof(v);
            break;
        case 'r':
            add_request(L, v);
            break;
        case 'l':
            L->label = v;
            break;
        default:
            usage();
        }
    }
    const char *colon = target ? strrchr(target, ':') : NULL;
    if (!colon || L->nconn == 0 || L->depth == 0 || L->duration <= 0) usage();
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(colon - target), target);
    if (uv_ip4_addr(host, atoi(colon + 1), &L->addr) != 0) usage();
    if (L->nmix == 0)
        for (size_t i = 0; i < sizeof default_mix / sizeof default_mix[0]; i++)
            add_request(L, default_mix[i]);
}

int main(int argc, char **argv)
{
    static load_t L = {.label = "tcp_load", .nconn = 1, .depth = 1, .warmup = 0.5, .duration = 3.0};
    signal(SIGPIPE, SIG_IGN);
    parse_args(&L, argc, argv);
    L.loop = uv_default_loop();
    uv_timer_init(L.loop, &L.timer);
    L.timer.data = &L;
    L.conns = calloc(L.nconn, sizeof *L.conns);
    for (unsigned i = 0; i < L.nconn; i++) {
        load_conn_t *c = &L.conns[i];
        c->L = &L;
        c->sent = calloc(L.depth, sizeof *c->sent);
        uv_tcp_init(L.loop, &c->tcp);
        c->tcp.data = c;
        c->creq.data = c;
        int rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&L.addr, on_connect);
        if (rc != 0) die("connect", rc);
    }
    uv_run(L.loop, UV_RUN_DEFAULT);
    report(&L);
    for (unsigned i = 0; i < L.nconn; i++) {
        free(L.conns[i].sent);
        free(L.conns[i].line);
    }
    for (size_t i = 0; i < L.nmix; i++) free(L.mix[i]);
    free(L.mix);
    free(L.conns);
    free(L.lat);
    uv_loop_close(L.loop);
    return L.errors ? 1 : 0;
}
