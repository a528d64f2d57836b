/* sim.c: the sim[:BOARD] target: spawns mcpsim (virtual clock, control channel), talks TCP, pty,
   HTTP or WebSocket. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "target.h"

#define DEFAULT_BOARD "esp32-demo"
#define READY_TIMEOUT_MS 10000
#define EXIT_WAIT_MS 2000

typedef struct sim_impl {
    conf_child_t child;  /* the simulator: stdout = its readiness lines, stderr = its log */
    conf_target_t inner; /* the tcp or serial target that carries the messages */
} sim_impl_t;

/* Parses "BOARD[?transport=tcp|serial|http|ws][&envelope=1][&fixtures=1]" into board and
   transport (BOARD: a board name or a board file). */
static int parse_spec(const char *spec, char *board, size_t cap, char *transport, char *err,
                      size_t ecap)
{
    size_t n = strcspn(spec, "?");
    conf_copy(transport, 16, "tcp");
    conf_copy(board, cap, DEFAULT_BOARD);
    if (n > 0 && n < cap) {
        memcpy(board, spec, n);
        board[n] = 0;
    }
    conf_query_get(spec + n, "transport", transport, 16);
    if (strcmp(transport, "tcp") != 0 && strcmp(transport, "serial") != 0 &&
        strcmp(transport, "http") != 0 && strcmp(transport, "ws") != 0) {
        snprintf(err, ecap, "sim target: transport=%s (tcp, serial, http or ws)", transport);
        return CONF_EXIT_USAGE;
    }
    return CONF_EXIT_OK;
}

static int start(conf_target_t *t, sim_impl_t *s, const char *board, const char *transport,
                 bool fixtures, char *tcp, char *uart, size_t cap, char *err, size_t ecap)
{
    const char *exe = t->opts && t->opts->mcpsim ? t->opts->mcpsim : "mcpsim";
    bool serial = strcmp(transport, "serial") == 0;
    char flag[24];
    snprintf(flag, sizeof flag, "--%s", serial ? "pty" : transport);
    const char *argv[13] = {exe, "--board", board, "--clock", "virtual", "--control", "0",
                            "--log-level", "warn", flag};
    size_t n = 10;
    if (!serial) argv[n++] = "0";
    if (fixtures) argv[n++] = "--conformance-fixtures"; /* sim/fixtures.c: tools, resources */
    argv[n] = NULL;
    char why[1024];
    if (conf_child_start(&s->child, argv, why, sizeof why) != 0) {
        snprintf(err, ecap, "%s", why);
        return CONF_EXIT_UNREACHABLE;
    }
    /* "tcp: ", "http: URL" and "ws: URL" all name the endpoint of the transport asked for. */
    char http[160] = "", ws[160] = "";
    const char *want[] = {"tcp: ", "http: ", "ws: ", "control: ", "uart: ", NULL};
    char *values[] = {tcp, http, ws, t->control, uart};
    if (conf_child_wait_lines(&s->child, false, want, values, cap, "ready", READY_TIMEOUT_MS, why,
                              sizeof why) != 0) {
        snprintf(err, ecap, "simulator %s --board %s did not start: %s", exe, board, why);
        return CONF_EXIT_UNREACHABLE;
    }
    if (!tcp[0]) conf_copy(tcp, cap, http[0] ? http : ws);
    return CONF_EXIT_OK;
}

static const conf_target_ops_t *inner_kind(const char *transport)
{
    if (strcmp(transport, "serial") == 0) return &conf_target_serial;
    if (strcmp(transport, "http") == 0) return &conf_target_http;
    if (strcmp(transport, "ws") == 0) return &conf_target_ws;
    return &conf_target_tcp;
}

/* The inner target's spec: the address mcpsim announced (a URL's part after "SCHEME:"), with the
   sim spec's envelope option passed on to ws. */
static void inner_spec(const char *transport, const char *spec, const char *endpoint,
                       const char *uart, char *out, size_t cap)
{
    char env[8];
    const char *colon = strchr(endpoint, ':');
    if (strcmp(transport, "serial") == 0)
        snprintf(out, cap, "%s", uart);
    else if (strcmp(transport, "tcp") == 0 || !colon)
        snprintf(out, cap, "%s", endpoint);
    else if (strcmp(transport, "ws") == 0 &&
             conf_query_get(strchr(spec, '?'), "envelope", env, sizeof env))
        snprintf(out, cap, "%s?envelope=%s", colon + 1, env);
    else
        snprintf(out, cap, "%s", colon + 1);
}

typedef struct sim_state {
    sim_impl_t s;
} sim_state_t;

static int sim_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char board[256], tcp[160] = "", uart[160] = "", inner[200], transport[16];
    int rc = parse_spec(spec, board, sizeof board, transport, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    sim_state_t *st = conf_xcalloc(1, sizeof *st);
    t->impl = st;
    char fixtures[8] = "";
    conf_query_get(strchr(spec, '?'), "fixtures", fixtures, sizeof fixtures);
    rc = start(t, &st->s, board, transport, strcmp(fixtures, "1") == 0, tcp, uart, sizeof tcp, err,
               cap);
    if (rc == CONF_EXIT_OK) {
        const conf_target_ops_t *ops = inner_kind(transport);
        inner_spec(transport, spec, tcp, uart, inner, sizeof inner);
        st->s.inner.ops = ops;
        st->s.inner.opts = t->opts;
        rc = ops->open(&st->s.inner, inner, err, cap);
        if (rc == CONF_EXIT_OK)
            st->s.inner.ops = ops;
        else
            st->s.inner.ops = NULL;
    }
    if (rc != CONF_EXIT_OK) {
        t->ops->close(t);
        return rc == CONF_EXIT_USAGE ? CONF_EXIT_UNREACHABLE : rc;
    }
    conf_copy(t->transport, sizeof t->transport, st->s.inner.transport);
    t->stream = st->s.inner.stream;
    t->rx = st->s.inner.rx;
    t->virtual_clock = true;
    return CONF_EXIT_OK;
}

static int sim_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    return st->s.inner.ops->send(&st->s.inner, msg, len, err, cap);
}

static int sim_send_raw(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    if (!st->s.inner.ops->send_raw) {
        snprintf(err, cap, "send_raw needs a byte-stream transport (this is %s)", t->transport);
        return -1;
    }
    return st->s.inner.ops->send_raw(&st->s.inner, bytes, len, err, cap);
}

static int sim_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                       size_t cap)
{
    sim_state_t *st = t->impl;
    int rc = st->s.inner.ops->receive(&st->s.inner, deadline, msg, len, err, cap);
    if (st->s.inner.notes.len) {
        conf_buf_add(&t->notes, st->s.inner.notes.p, st->s.inner.notes.len);
        st->s.inner.notes.len = 0;
    }
    return rc;
}

static void sim_close(conf_target_t *t)
{
    sim_state_t *st = t->impl;
    if (!st) return;
    if (st->s.inner.ops) st->s.inner.ops->close(&st->s.inner);
    conf_buf_free(&st->s.inner.notes);
    conf_child_stop(&st->s.child, EXIT_WAIT_MS);
    free(st);
    t->impl = NULL;
}

static int sim_http(conf_target_t *t, const json_t *req, json_t **resp, char *err, size_t cap)
{
    sim_state_t *st = t->impl;
    if (!st->s.inner.ops->http) {
        snprintf(err, cap, "raw HTTP exchanges need an HTTP target (this is %s)", t->transport);
        return -1;
    }
    return st->s.inner.ops->http(&st->s.inner, req, resp, err, cap);
}

/* The simulator's end, when it has ended. */
static void sim_diagnose(conf_target_t *t, char *out, size_t cap)
{
    sim_state_t *st = t->impl;
    out[0] = 0;
    if (!st || !conf_child_ended(&st->s.child)) return;
    char how[96], tail[400];
    conf_child_describe(&st->s.child, how, sizeof how);
    conf_child_log_tail(&st->s.child, tail, sizeof tail);
    snprintf(out, cap, "the simulator %s%s%s", how, tail[0] ? "; its log ends:\n" : "", tail);
}

const conf_target_ops_t conf_target_sim = {"sim",       sim_open,  sim_send, sim_send_raw,
                                           sim_receive, sim_close, sim_http, sim_diagnose};
