/* bench_echo_server.c: the benchmark's baseline: a bare libuv server that echoes every line. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* A connection keeps the unfinished tail of its input; complete lines go straight back. */
typedef struct echo_conn {
    uv_tcp_t tcp;
    char *tail;
    size_t tail_len;
} echo_conn_t;

typedef struct echo_write {
    uv_write_t req;
    char data[];
} echo_write_t;

static uv_loop_t *loop;
static uv_tcp_t server;
static uv_signal_t sig_int, sig_term;
static char readbuf[64 * 1024];

static void on_closed(uv_handle_t *h)
{
    echo_conn_t *c = h->data;
    free(c->tail);
    free(c);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    *buf = uv_buf_init(readbuf, sizeof readbuf);
}

/* Sends tail + data[0..n) back and keeps the bytes after the last newline as the new tail. */
static void echo_lines(echo_conn_t *c, const char *data, size_t n)
{
    const char *last = NULL;
    for (const char *p = data + n; p > data; p--)
        if (p[-1] == '\n') {
            last = p;
            break;
        }
    size_t lines = last ? (size_t)(last - data) : 0;
    if (lines) {
        echo_write_t *w = malloc(sizeof *w + c->tail_len + lines);
        memcpy(w->data, c->tail, c->tail_len);
        memcpy(w->data + c->tail_len, data, lines);
        uv_buf_t b = uv_buf_init(w->data, (unsigned)(c->tail_len + lines));
        if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) free(w);
        c->tail_len = 0;
    }
    c->tail = realloc(c->tail, c->tail_len + (n - lines) + 1);
    memcpy(c->tail + c->tail_len, data + lines, n - lines);
    c->tail_len += n - lines;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    echo_conn_t *c = s->data;
    if (nread > 0)
        echo_lines(c, buf->base, (size_t)nread);
    else if (nread < 0 && !uv_is_closing((uv_handle_t *)s))
        uv_close((uv_handle_t *)s, on_closed);
}

static void on_connection(uv_stream_t *srv, int status)
{
    if (status < 0) return;
    echo_conn_t *c = calloc(1, sizeof *c);
    uv_tcp_init(loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(srv, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, h->type == UV_TCP && h != (uv_handle_t *)&server ? on_closed : NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    uv_walk(s->loop, close_any, NULL);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = argc > 1 ? atoi(argv[1]) : 0;
    if (argc > 2) host = argv[2];
    if (argc > 3 || (argc > 1 && strcmp(argv[1], "--help") == 0)) {
        fprintf(stderr, "usage: echo_server [PORT [HOST]]  (default: 0 = any free port, "
                        "127.0.0.1)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    loop = uv_default_loop();
    struct sockaddr_in addr;
    if (uv_ip4_addr(host, port, &addr) != 0) {
        fprintf(stderr, "echo_server: bad address %s\n", host);
        return 2;
    }
    uv_tcp_init(loop, &server);
    int rc = uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&server, 128, on_connection);
    if (rc != 0) {
        fprintf(stderr, "echo_server: cannot listen: %s\n", uv_strerror(rc));
        return 1;
    }
    int len = sizeof addr;
    uv_tcp_getsockname(&server, (struct sockaddr *)&addr, &len);
    char ip[64];
    uv_ip4_name(&addr, ip, sizeof ip);
    printf("tcp: %s:%d\nready\n", ip, ntohs(addr.sin_port));
    fflush(stdout);
    uv_signal_init(loop, &sig_int);
    uv_signal_init(loop, &sig_term);
    uv_signal_start(&sig_int, on_signal, SIGINT);
    uv_signal_start(&sig_term, on_signal, SIGTERM);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    return 0;
}
