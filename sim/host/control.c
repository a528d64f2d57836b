/* control.c: the control channel listener: one sim.* JSON-RPC message per line, one reply line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fw_codes.h"
#include "log.h"
#include "net.h"
#include "transports.h"

typedef struct ctl_conn {
    host_buf_t line; /* bytes of the line being received */
    bool discarding; /* inside an overlong line: drop bytes up to its newline */
} ctl_conn_t;

static void *ctl_open(host_conn_t *conn)
{
    (void)conn;
    ctl_conn_t *cc = calloc(1, sizeof *cc);
    if (!cc) abort();
    return cc;
}

static void ctl_close(host_conn_t *conn, void *state)
{
    ctl_conn_t *cc = state;
    (void)conn;
    host_buf_free(&cc->line);
    free(cc);
}

static bool is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
    return true;
}

static void handle_line(host_conn_t *conn, const char *line, size_t len)
{
    if (len > 0 && line[len - 1] == '\r') len--;
    if (is_blank(line, len)) return;
    char *resp = host_device_control(host_conn_host(conn), line, len);
    if (!resp) return;
    host_conn_write(conn, resp, strlen(resp));
    host_conn_write(conn, "\n", 1);
    free(resp);
}

static void overlong(host_conn_t *conn)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":"
             "\"control line longer than %u bytes\"}}\n",
             FW_RPC_INVALID_REQUEST, HOST_CONTROL_LINE_MAX);
    host_log(HOST_LOG_WARN, "control: %s sent a line longer than %u bytes", host_conn_peer(conn),
             HOST_CONTROL_LINE_MAX);
    host_conn_write(conn, msg, strlen(msg));
}

/* Splits input into lines; a line arriving whole in one read is handled without copying. */
static void ctl_data(host_conn_t *conn, void *state, const char *data, size_t len)
{
    ctl_conn_t *cc = state;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        if (!cc->discarding && cc->line.len + n > HOST_CONTROL_LINE_MAX) {
            overlong(conn);
            cc->discarding = true;
            cc->line.len = 0;
        }
        if (nl && cc->discarding) {
            cc->discarding = false;
        } else if (nl && cc->line.len == 0) {
            handle_line(conn, data, n);
        } else if (!cc->discarding) {
            host_buf_append(&cc->line, data, n);
            if (nl) {
                handle_line(conn, cc->line.data, cc->line.len);
                cc->line.len = 0;
            }
        }
        if (!nl) break;
        data += n + 1;
        len -= n + 1;
    }
}

static const host_server_ops_t ctl_ops = {ctl_open, ctl_data, ctl_close, NULL, false};

host_server_t *host_control_open(host_t *h, const host_endpoint_t *ep, char *addr, size_t cap)
{
    return host_server_open(h, "control", ep, &ctl_ops, HOST_CONTROL_OUT_MAX, addr, cap);
}
