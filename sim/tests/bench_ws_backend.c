/* bench_ws_backend.c: a WebSocket backend for tools/bench-fleet (libwebsockets server, one
   thread): accepts N devices, checks each one's Device-Id and hello, then sends every device an
   initialize and a self.get_device_status call in seed 003's envelope and counts the answers.

     ws_backend PORT N [TIMEOUT_S]

   Prints "listening" once it listens, then one JSON line when done (or at the timeout):
   {"devices", "distinct_ids", "hellos_span_s", "first_hello_s", "calls", "calls_s", "problems"}
   (times from the start of the process), and keeps the connections until its stdin ends. Exit
   status 0 when every device connected with a distinct Device-Id and answered both calls. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <libwebsockets.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ID_MAX 64

typedef struct dev {
    struct lws *wsi;
    char id[ID_MAX];
    bool hello;
    int sent, answered; /* calls sent and answered */
} dev_t_;

static struct {
    dev_t_ *devs;
    int n, connected, hellos, answers, problems;
    double start, first_hello, last_hello, calls_start, calls_end;
    bool calling;
    char first_problem[256];
} B;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void problem(const char *what, const char *detail)
{
    if (B.problems++ == 0)
        snprintf(B.first_problem, sizeof B.first_problem, "%s: %.200s", what, detail);
}

static const char *calls[2] = {
    "\"method\":\"initialize\",\"params\":{\"capabilities\":{}}",
    "\"method\":\"tools/call\",\"params\":{\"name\":\"self.get_device_status\"}",
};

static int send_call(dev_t_ *d)
{
    unsigned char buf[LWS_PRE + 512];
    int n = snprintf((char *)buf + LWS_PRE, sizeof buf - LWS_PRE,
                     "{\"session_id\":\"b-%s\",\"type\":\"mcp\",\"payload\":{\"jsonrpc\":\"2.0\","
                     "\"id\":%d,%s}}",
                     d->id, d->sent + 1, calls[d->sent]);
    d->sent++;
    return lws_write(d->wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_TEXT) < n ? -1 : 0;
}

static void start_calls(void)
{
    B.calling = true;
    B.calls_start = now_s();
    for (int i = 0; i < B.n; i++)
        if (B.devs[i].wsi) lws_callback_on_writable(B.devs[i].wsi);
}

static void on_text(dev_t_ *d, const char *text, size_t len)
{
    json_t *j = json_loadb(text, len, 0, NULL);
    if (!d->hello) {
        const char *type = json_string_value(json_object_get(j, "type"));
        if (!type || strcmp(type, "hello") != 0 ||
            !json_is_true(json_object_get(json_object_get(j, "features"), "mcp")))
            problem("not a hello", text);
        d->hello = true;
        double t = now_s() - B.start;
        if (B.hellos++ == 0) B.first_hello = t;
        B.last_hello = t;
        if (B.hellos == B.n) start_calls();
    } else {
        char sid[ID_MAX + 4];
        snprintf(sid, sizeof sid, "b-%s", d->id);
        json_t *p = json_object_get(j, "payload");
        const char *got = json_string_value(json_object_get(j, "session_id"));
        if (!got || strcmp(got, sid) != 0 || !json_object_get(p, "result") ||
            json_integer_value(json_object_get(p, "id")) != d->answered + 1)
            problem("a wrong answer", text);
        d->answered++;
        if (++B.answers == 2 * B.n) B.calls_end = now_s();
        if (d->sent < 2) lws_callback_on_writable(d->wsi);
    }
    json_decref(j);
}

static int cb(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    dev_t_ **slot = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        if (B.connected >= B.n) return -1;
        dev_t_ *d = &B.devs[B.connected++];
        *slot = d;
        d->wsi = wsi;
        if (lws_hdr_custom_copy(wsi, d->id, sizeof d->id, "device-id:", 10) <= 0)
            problem("no Device-Id", "");
        for (int i = 0; i < B.connected - 1; i++)
            if (strcmp(B.devs[i].id, d->id) == 0) problem("a Device-Id twice", d->id);
        return 0;
    }
    case LWS_CALLBACK_RECEIVE:
        if (*slot) on_text(*slot, in, len);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (*slot && B.calling && (*slot)->sent == (*slot)->answered && (*slot)->sent < 2)
            return send_call(*slot);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (*slot) (*slot)->wsi = NULL;
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {{"device", cb, sizeof(dev_t_ *), 4096, 0, NULL, 0},
                                                 {NULL, NULL, 0, 0, 0, NULL, 0}};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ws_backend PORT N [TIMEOUT_S]\n");
        return 2;
    }
    B.start = now_s();
    B.n = atoi(argv[2]);
    double timeout = argc > 3 ? atof(argv[3]) : 300;
    B.devs = calloc((size_t)B.n, sizeof *B.devs);
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = atoi(argv[1]);
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    info.listen_accept_role = NULL;
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx) {
        fprintf(stderr, "ws_backend: cannot listen on 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    printf("listening\n");
    fflush(stdout);
    while (B.answers < 2 * B.n && now_s() - B.start < timeout) lws_service(ctx, 0);
    int distinct = 0;
    for (int i = 0; i < B.connected; i++) distinct += B.devs[i].id[0] != 0;
    json_t *out =
        json_pack("{s:i, s:i, s:f, s:f, s:i, s:f, s:[]}", "devices", B.hellos, "distinct_ids",
                  B.problems ? 0 : distinct, "first_hello_s", B.first_hello, "hellos_span_s",
                  B.last_hello - B.first_hello, "calls", B.answers, "calls_s",
                  B.calls_end ? B.calls_end - B.calls_start : -1.0, "problems");
    if (B.problems)
        json_array_append_new(json_object_get(out, "problems"), json_string(B.first_problem));
    char *text = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(6));
    printf("%s\n", text);
    free(text);
    json_decref(out);
    fflush(stdout);
    /* the devices stay connected until whoever started us closes our stdin (after it has read
       the fleet's own summary) */
    char c;
    while (fread(&c, 1, 1, stdin) == 1) continue;
    fflush(stdout);
    lws_context_destroy(ctx);
    free(B.devs);
    return B.answers == 2 * B.n && !B.problems ? 0 : 1;
}
