/* bench_http_static.c: tools/bench-net's HTTP baseline: libmicrohttpd answering every POST with
   one fixed JSON-RPC response (the upload is read and dropped; every answer carries an
   Mcp-Session-Id; a notification gets 202 and no body). Prints "tcp: HOST:PORT", "ready".

   Usage: http_static [--loop] [--conn-memory KIB] [PORT]. By default libmicrohttpd runs on its
   own epoll thread, the fastest way to serve with it, with its own memory per connection (32
   KiB). --loop drives it from a libuv loop exactly as mcpsim's host does (mhd_uv.c: the
   daemon's epoll fd watched inside the loop's, suspend and resume allowed) with mcpsim's default
   memory per connection (16 KiB): the floor of mcpsim's one-loop design, where a request costs
   one more epoll_wait and the loop's turn. --conn-memory sets the memory per connection
   (libmicrohttpd clears it for every request, which costs in proportion), so that the two ways
   of running can be compared alone. */
#ifndef _GNU_SOURCE /* memmem (the host library defines it for its users) */
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "cli.h"
#include "mhd_uv.h"

static const char reply[] = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\","
                            "\"text\":\"{\\\"pin\\\":2,\\\"name\\\":\\\"led\\\",\\\"value\\\":true}\"}],"
                            "\"isError\":false}}";

static char notification; /* *state of a request whose body is a notification */

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)cls, (void)url, (void)method, (void)version;
    if (*state == NULL) { /* the headers: the body follows */
        *state = conn;
        return MHD_YES;
    }
    if (*upload_size != 0) {
        /* a notification (a small body, one piece) is answered 202 without a body */
        if (memmem(upload, *upload_size, "\"notifications/", 15) != NULL) *state = &notification;
        *upload_size = 0;
        return MHD_YES;
    }
    bool note = *state == &notification;
    struct MHD_Response *r =
        note ? MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT)
             : MHD_create_response_from_buffer(sizeof reply - 1, (void *)reply,
                                               MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
    enum MHD_Result ret = MHD_queue_response(conn, note ? MHD_HTTP_ACCEPTED : MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static void unref_signal(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (h->type == UV_SIGNAL) {
        uv_unref(h);
        h->data = NULL; /* stopped: a later signal does nothing more */
    }
}

static void close_signal(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (h->type == UV_SIGNAL && !uv_is_closing(h)) uv_close(h, NULL);
}

/* --loop: the first signal stops the daemon; the signal handlers stay (unreferenced) until the
   loop has closed the daemon's handles, so further signals are caught too, and uv_run returns. */
static void on_signal(uv_signal_t *s, int signum)
{
    (void)signum;
    host_mhd_t *m = s->data;
    if (m == NULL) return;
    uv_walk(s->loop, unref_signal, NULL);
    host_mhd_stop(m); /* stops the daemon too */
}

int main(int argc, char **argv)
{
    bool loop = false;
    size_t kib = 0; /* 0: the default of the way of running (mcpsim's with --loop) */
    for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
        if (strcmp(argv[1], "--loop") == 0) {
            loop = true;
        } else if (strcmp(argv[1], "--conn-memory") == 0 && argc > 2 && atoi(argv[2]) > 0) {
            kib = (size_t)atoi(argv[2]);
            argc--, argv++;
        } else {
            fprintf(stderr, "usage: http_static [--loop] [--conn-memory KIB] [PORT]\n");
            return 2;
        }
    }
    if (kib == 0 && loop) kib = HOST_HTTP_CONN_MEMORY_KIB_DEFAULT;
    unsigned port = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}; /* as the others */
    /* the memory per connection only when set: else libmicrohttpd's own default */
    struct MHD_OptionItem opts[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &at},
        {MHD_OPTION_CONNECTION_LIMIT, 1024, NULL},
        {kib ? MHD_OPTION_CONNECTION_MEMORY_LIMIT : MHD_OPTION_END, (intptr_t)(kib << 10), NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_Daemon *d = MHD_start_daemon(
        loop ? HOST_MHD_FLAGS : MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)port,
        NULL, NULL, answer, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "http_static: cannot listen on port %u\n", port);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("tcp: 127.0.0.1:%u\nready\n", info != NULL ? info->port : port);
    fflush(stdout);
    if (loop) { /* until SIGINT or SIGTERM, as below */
        uv_loop_t l;
        uv_loop_init(&l);
        host_mhd_t *m = host_mhd_start(&l, d, "http_static");
        if (m == NULL) return 1;
        uv_signal_t sig_int, sig_term;
        uv_signal_init(&l, &sig_int);
        uv_signal_init(&l, &sig_term);
        sig_int.data = sig_term.data = m;
        uv_signal_start(&sig_int, on_signal, SIGINT);
        uv_signal_start(&sig_term, on_signal, SIGTERM);
        uv_run(&l, UV_RUN_DEFAULT);
        uv_walk(&l, close_signal, NULL);
        uv_run(&l, UV_RUN_DEFAULT);
        uv_loop_close(&l);
        return 0;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sig;
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    return 0;
}
