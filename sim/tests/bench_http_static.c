/* bench_http_static.c: tools/bench-net's HTTP baseline: libmicrohttpd answering every POST with
   one fixed JSON-RPC response (the upload is read and dropped; every answer carries an
   Mcp-Session-Id; a notification gets 202 and no body), one epoll thread, as mcpsim's host runs it. Prints "tcp: HOST:PORT", "ready". */
#define _GNU_SOURCE /* memmem */
#include <stdbool.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
    unsigned port = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)port, NULL, NULL, answer, NULL,
        MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "http_static: cannot listen on port %u\n", port);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("tcp: 127.0.0.1:%u\nready\n", info != NULL ? info->port : port);
    fflush(stdout);
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
