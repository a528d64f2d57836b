/* bench_http_static.c: the baseline of tools/bench-http: libmicrohttpd answering every POST with
   a fixed JSON-RPC result (202 for a notification), no MCP behind it, in the same mode as
   mcpsim's (external polling, one thread: here libmicrohttpd's own polling thread).

   Usage: http_static   (prints "ready PORT", serves until killed) */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char result[] =
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"false\"}],"
    "\"structuredContent\":{\"pin\":2,\"value\":false},\"isError\":false}}";

typedef struct req {
    size_t len;
    char head[64]; /* the start of the body: enough to see a notification */
} req_t;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)url;
    (void)method;
    (void)version;
    req_t *r = *con_cls;
    if (!r) {
        *con_cls = calloc(1, sizeof *r);
        return *con_cls ? MHD_YES : MHD_NO;
    }
    if (*upload_size > 0) {
        size_t room = sizeof r->head - 1 - r->len;
        size_t n = *upload_size < room ? *upload_size : room;
        memcpy(r->head + r->len, upload, n);
        r->len += n;
        *upload_size = 0;
        return MHD_YES;
    }
    int notification = strstr(r->head, "notifications/") != NULL;
    struct MHD_Response *resp =
        notification ? MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT)
                     : MHD_create_response_from_buffer(sizeof result - 1, (void *)result,
                                                       MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
    enum MHD_Result rc = MHD_queue_response(c, notification ? 202 : 200, resp);
    MHD_destroy_response(resp);
    return rc;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

int main(void)
{
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "http_static: cannot start libmicrohttpd\n");
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("ready %u\n", info ? (unsigned)info->port : 0u);
    fflush(stdout);
    for (;;) pause();
}
