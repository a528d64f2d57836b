/* tcp.c: the tcp:HOST:PORT target: newline-delimited JSON-RPC over a TCP connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "target.h"

#define CONNECT_TIMEOUT_MS 3000
#define WRITE_TIMEOUT_MS 2000

static int tcp_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char host[256];
    int port;
    if (!conf_split_hostport(spec, host, sizeof host, &port)) {
        snprintf(err, cap, "tcp target \"%s\": expected tcp:HOST:PORT", spec);
        return CONF_EXIT_USAGE;
    }
    int fd = conf_tcp_connect(host, port, CONNECT_TIMEOUT_MS, err, cap);
    if (fd < 0) return CONF_EXIT_UNREACHABLE;
    conf_stream_t *s = conf_xcalloc(1, sizeof *s);
    conf_stream_init(s, fd);
    t->impl = s;
    t->stream = true;
    t->rx = s;
    conf_copy(t->transport, sizeof t->transport, "tcp");
    return CONF_EXIT_OK;
}

static int tcp_send_raw(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap)
{
    return conf_stream_write(t->impl, bytes, len, conf_now_ms() + WRITE_TIMEOUT_MS, err, cap);
}

/* One message is one line: the text and its newline go out in one write. */
static int tcp_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    char *line = conf_xmalloc(len + 1);
    memcpy(line, msg, len);
    line[len] = '\n';
    int rc = tcp_send_raw(t, line, len + 1, err, cap);
    free(line);
    return rc;
}

static int tcp_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                       size_t cap)
{
    return conf_stream_read_line(t->impl, deadline, msg, len, err, cap);
}

static void tcp_close(conf_target_t *t)
{
    if (!t->impl) return;
    conf_stream_close(t->impl);
    free(t->impl);
    t->impl = NULL;
}

const conf_target_ops_t conf_target_tcp = {"tcp",       tcp_open,  tcp_send, tcp_send_raw,
                                           tcp_receive, tcp_close, NULL,     NULL};
