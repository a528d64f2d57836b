/* bench_ws_echo.c: tools/bench-net's WebSocket baseline: a bare libwebsockets server (its own
   poll loop, one thread) that sends every text message straight back. Prints "tcp: HOST:PORT",
   "ready". */
#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct echo {
    unsigned char buf[LWS_PRE + 4096];
    size_t len;
} echo_t;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    echo_t *e = user;
    switch (reason) {
    case LWS_CALLBACK_RECEIVE:
        if (len > sizeof e->buf - LWS_PRE) return -1;
        memcpy(e->buf + LWS_PRE, in, len);
        e->len = len;
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (e->len > 0 &&
            lws_write(wsi, e->buf + LWS_PRE, e->len, LWS_WRITE_TEXT) < (int)e->len)
            return -1;
        e->len = 0;
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"mcp", callback, sizeof(echo_t), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

int main(int argc, char **argv)
{
    int port = argc > 1 ? atoi(argv[1]) : 0;
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port; /* 0: the system picks one */
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    struct lws_context *ctx = lws_create_context(&info);
    if (ctx == NULL) {
        fprintf(stderr, "ws_echo: cannot create the context\n");
        return 1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(ctx, "default");
    printf("tcp: 127.0.0.1:%d\nready\n", vh != NULL ? lws_get_vhost_listen_port(vh) : port);
    fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    while (!stop && lws_service(ctx, 0) >= 0) {
    }
    lws_context_destroy(ctx);
    return 0;
}
