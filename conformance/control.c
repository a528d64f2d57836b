/* control.c: a client of the simulator's control channel (sim.* JSON-RPC, one per line). */
#include "control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "util.h"

struct conf_control {
    conf_stream_t s;
    json_int_t next_id;
};

conf_control_t *conf_control_open(const char *addr, char *err, size_t cap)
{
    char host[256];
    int port;
    if (strncmp(addr, "tcp:", 4) == 0) addr += 4;
    if (!conf_split_hostport(addr, host, sizeof host, &port)) {
        snprintf(err, cap, "control channel \"%s\": expected tcp:HOST:PORT", addr);
        return NULL;
    }
    int fd = conf_tcp_connect(host, port, 3000, err, cap);
    if (fd < 0) return NULL;
    conf_control_t *c = conf_xcalloc(1, sizeof *c);
    conf_stream_init(&c->s, fd);
    c->next_id = 1;
    return c;
}

void conf_control_close(conf_control_t *c)
{
    if (!c) return;
    conf_stream_close(&c->s);
    free(c);
}

int conf_control_call(conf_control_t *c, const char *method, const json_t *params, int timeout_ms,
                      json_t **response, char *err, size_t cap)
{
    json_int_t id = c->next_id++;
    json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params) json_object_set(req, "params", (json_t *)params);
    char *text = conf_json_text(req);
    json_decref(req);
    size_t len = strlen(text);
    text = conf_xrealloc(text, len + 2);
    text[len] = '\n';
    int64_t deadline = conf_now_ms() + timeout_ms;
    int rc = conf_stream_write(&c->s, text, len + 1, deadline, err, cap);
    free(text);
    if (rc != 0) return -1;
    for (;;) {
        char *line;
        size_t n;
        rc = conf_stream_read_line(&c->s, deadline, &line, &n, err, cap);
        if (rc == 0)
            snprintf(err, cap, "control channel: no reply to %s within %d ms", method, timeout_ms);
        if (rc != 1) return -1;
        json_t *msg = json_loadb(line, n, 0, NULL);
        free(line);
        const json_t *rid = json_object_get(msg, "id");
        if (json_is_integer(rid) && json_integer_value(rid) == id) {
            *response = msg;
            return 0;
        }
        json_decref(msg); /* a stale reply to a call that timed out */
    }
}
