/* sim.c: the sim[:BOARD] target: spawns mcpsim (virtual clock, control channel), talks TCP, pty,
   HTTP, WebSocket or MQTT (through a mosquitto broker it spawns too). */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "target.h"

#define DEFAULT_BOARD "esp32-demo"
#define READY_TIMEOUT_MS 10000
#define EXIT_WAIT_MS 2000

typedef struct sim_impl {
    conf_child_t child;   /* the simulator: stdout = its readiness lines, stderr = its log */
    conf_target_t inner;  /* the tcp or serial target that carries the messages */
    conf_child_t broker;  /* transport=mqtt: the mosquitto the simulator and the runner meet at */
    char broker_conf[64]; /* its configuration file, removed at close */
    char tmpdir[64];      /* tmpdir=1, pty_link=1: a directory of ours, removed at close */
    char link[96];        /* pty_link=1: the --pty-link path (in tmpdir) */
} sim_impl_t;

/* The options that start mcpsim with more flags (docs/conformance.md, "Targets"). */
#define LIST_MAX 8
typedef struct sim_flags {
    bool fixtures;                 /* fixtures=1: --conformance-fixtures */
    char auth[128];                /* auth=TOKEN: --auth-token TOKEN */
    char hosts[256], origins[256]; /* allow_host=A,B / allow_origin=A,B: comma-separated */
    const char *host[LIST_MAX], *origin[LIST_MAX];
    size_t nhost, norigin;
    bool tmpdir;   /* tmpdir=1: mcpsim runs a copy of the board file in a temporary directory */
    bool pty_link; /* pty_link=1 (serial): --pty-link DIR/uart, opened through the link */
} sim_flags_t;

/* Splits a comma-separated option value in place; false when it has more than LIST_MAX items or
   an empty one. */
static bool split_list(char *s, const char **item, size_t *n)
{
    *n = 0;
    if (!*s) return true;
    for (char *p = s;; p++) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        if (!*p || *n == LIST_MAX) return false;
        item[(*n)++] = p;
        if (!comma) return true;
        p = comma;
    }
}

static int parse_flags(const char *query, sim_flags_t *f, char *err, size_t ecap)
{
    char v[8] = "";
    memset(f, 0, sizeof *f);
    conf_query_get(query, "fixtures", v, sizeof v);
    f->fixtures = strcmp(v, "1") == 0;
    v[0] = 0;
    conf_query_get(query, "tmpdir", v, sizeof v);
    f->tmpdir = strcmp(v, "1") == 0;
    v[0] = 0;
    conf_query_get(query, "pty_link", v, sizeof v);
    f->pty_link = strcmp(v, "1") == 0;
    if (conf_query_get(query, "auth", f->auth, sizeof f->auth) && !f->auth[0]) {
        snprintf(err, ecap, "sim target: auth= needs a token");
        return CONF_EXIT_USAGE;
    }
    conf_query_get(query, "allow_host", f->hosts, sizeof f->hosts);
    conf_query_get(query, "allow_origin", f->origins, sizeof f->origins);
    if (!split_list(f->hosts, f->host, &f->nhost) ||
        !split_list(f->origins, f->origin, &f->norigin)) {
        snprintf(err, ecap,
                 "sim target: allow_host= and allow_origin= take 1 to %d "
                 "comma-separated values, none empty",
                 LIST_MAX);
        return CONF_EXIT_USAGE;
    }
    return CONF_EXIT_OK;
}

/* What the flags tell scenarios, as the variable "target" (NULL when nothing was asked). */
static json_t *flag_vars(const sim_flags_t *f, const char *tmpdir, const char *link)
{
    json_t *o = json_object();
    if (f->auth[0]) { /* and a wrong token of the same length (its last character changed) */
        char other[sizeof f->auth];
        conf_copy(other, sizeof other, f->auth);
        char *last = other + strlen(other) - 1;
        *last = *last == 'x' ? 'y' : 'x';
        json_object_set_new(o, "auth_token", json_string(f->auth));
        json_object_set_new(o, "auth_token_other", json_string(other));
    }
    json_t *h = json_array(), *g = json_array();
    for (size_t i = 0; i < f->nhost; i++) json_array_append_new(h, json_string(f->host[i]));
    for (size_t i = 0; i < f->norigin; i++) json_array_append_new(g, json_string(f->origin[i]));
    if (f->nhost) json_object_set(o, "allow_host", h);
    if (f->norigin) json_object_set(o, "allow_origin", g);
    json_decref(h);
    json_decref(g);
    if (f->tmpdir && tmpdir[0]) json_object_set_new(o, "board_dir", json_string(tmpdir));
    if (link[0]) json_object_set_new(o, "uart_link", json_string(link));
    if (f->fixtures) json_object_set_new(o, "fixtures", json_true());
    if (json_object_size(o) == 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The directory of tmpdir=1 and pty_link=1 (made once). */
static int make_tmpdir(sim_impl_t *s, char *err, size_t ecap)
{
    if (s->tmpdir[0]) return CONF_EXIT_OK;
    snprintf(s->tmpdir, sizeof s->tmpdir, "/tmp/conformance-board-XXXXXX");
    if (!mkdtemp(s->tmpdir)) {
        snprintf(err, ecap, "sim target: cannot make a directory under /tmp");
        s->tmpdir[0] = 0;
        return CONF_EXIT_UNREACHABLE;
    }
    return CONF_EXIT_OK;
}

/* tmpdir=1: copies the board file BOARD into a new directory under /tmp (so that a backing_file
   relative to it is made there, never in the source tree) and points board at the copy. */
static int copy_board(sim_impl_t *s, char *board, size_t cap, char *err, size_t ecap)
{
    if (!strchr(board, '/') && !strstr(board, ".json")) {
        snprintf(err, ecap, "sim target: tmpdir=1 needs a board file (not the name %s)", board);
        return CONF_EXIT_USAGE;
    }
    if (make_tmpdir(s, err, ecap) != CONF_EXIT_OK) return CONF_EXIT_UNREACHABLE;
    const char *base = strrchr(board, '/');
    char copy[512];
    snprintf(copy, sizeof copy, "%s/%s", s->tmpdir, base ? base + 1 : board);
    FILE *in = fopen(board, "rb"), *out = in ? fopen(copy, "wb") : NULL;
    char buf[4096];
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = false;
    if (!ok || strlen(copy) >= cap) {
        snprintf(err, ecap, "sim target: tmpdir=1: cannot copy %s to %s", board, copy);
        return CONF_EXIT_UNREACHABLE;
    }
    conf_copy(board, cap, copy);
    return CONF_EXIT_OK;
}

/* Removes the tmpdir=1 directory and what mcpsim left in it (the board's copy, backing files). */
static void remove_tmpdir(sim_impl_t *s)
{
    if (!s->tmpdir[0]) return;
    DIR *d = opendir(s->tmpdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", s->tmpdir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(s->tmpdir);
    s->tmpdir[0] = 0;
}

/* The topics of transport=mqtt (device 1 of mcpsim's {n} templates). */
#define MQTT_TO "conformance/{n}/in"
#define MQTT_FROM "conformance/{n}/out"

/* Parses "BOARD[?transport=tcp|serial|http|ws|mqtt][&envelope=1][&fixtures=1][&auth=TOKEN]
   [&allow_host=H,...][&allow_origin=O,...][&tmpdir=1][&pty_link=1]" into board and transport
   (BOARD: a board name or a board file). */
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
        strcmp(transport, "http") != 0 && strcmp(transport, "ws") != 0 &&
        strcmp(transport, "mqtt") != 0) {
        snprintf(err, ecap, "sim target: transport=%s (tcp, serial, http, ws or mqtt)", transport);
        return CONF_EXIT_USAGE;
    }
    return CONF_EXIT_OK;
}

/* ---------------------------------------------------------------- transport=mqtt's broker */

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

static bool accepts(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* Starts mosquitto ($MOSQUITTO, /usr/sbin/mosquitto or PATH's) on a free loopback port and waits
   until it listens; the port, or -1 with err. */
static int start_broker(sim_impl_t *s, char *err, size_t ecap)
{
    const char *env = getenv("MOSQUITTO");
    const char *exe = env && *env                                ? env
                      : access("/usr/sbin/mosquitto", X_OK) == 0 ? "/usr/sbin/mosquitto"
                                                                 : "mosquitto";
    int port = free_port();
    snprintf(s->broker_conf, sizeof s->broker_conf, "/tmp/conformance-mosquitto-XXXXXX");
    int fd = mkstemp(s->broker_conf);
    if (port < 0 || fd < 0) {
        snprintf(err, ecap, "sim target: transport=mqtt: no port or file for the broker");
        if (fd >= 0) close(fd);
        return -1;
    }
    dprintf(fd, "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n", port);
    close(fd);
    const char *argv[] = {exe, "-c", s->broker_conf, NULL};
    char why[512];
    if (conf_child_start(&s->broker, argv, why, sizeof why) != 0) {
        snprintf(err, ecap, "sim target: transport=mqtt needs a mosquitto broker: %s", why);
        return -1;
    }
    for (int64_t deadline = conf_now_ms() + READY_TIMEOUT_MS; !accepts(port);) {
        if (conf_child_ended(&s->broker) || conf_now_ms() > deadline) {
            snprintf(err, ecap, "sim target: the broker %s did not listen on port %d", exe, port);
            return -1;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return port;
}

static int start(conf_target_t *t, sim_impl_t *s, const char *board, const char *transport,
                 const sim_flags_t *f, char *tcp, char *uart, size_t cap, char *err, size_t ecap)
{
    const char *exe = t->opts && t->opts->mcpsim ? t->opts->mcpsim : "mcpsim";
    bool serial = strcmp(transport, "serial") == 0, mqtt = strcmp(transport, "mqtt") == 0;
    char flag[24];
    snprintf(flag, sizeof flag, "--%s", serial ? (s->link[0] ? "pty-link" : "pty") : transport);
    const char *argv[24 + 4 * LIST_MAX] = {
        exe, "--board", board, "--clock", "virtual", "--control", "0", "--log-level", "warn", flag};
    size_t n = 10;
    if (mqtt) { /* tcp holds the broker's URL */
        const char *more[] = {tcp, "--mqtt-publish", MQTT_FROM, "--mqtt-subscribe", MQTT_TO};
        for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) argv[n++] = more[i];
    } else if (!serial) {
        argv[n++] = "0";
    } else if (s->link[0]) {
        argv[n++] = s->link;
    }
    if (f->fixtures) argv[n++] = "--conformance-fixtures"; /* sim/fixtures.c: tools, resources */
    if (f->auth[0]) {
        argv[n++] = "--auth-token";
        argv[n++] = f->auth;
    }
    for (size_t i = 0; i < f->nhost; i++) {
        argv[n++] = "--allow-host";
        argv[n++] = f->host[i];
    }
    for (size_t i = 0; i < f->norigin; i++) {
        argv[n++] = "--allow-origin";
        argv[n++] = f->origin[i];
    }
    argv[n] = NULL;
    char why[1024];
    if (conf_child_start(&s->child, argv, why, sizeof why) != 0) {
        snprintf(err, ecap, "%s", why);
        return CONF_EXIT_UNREACHABLE;
    }
    /* "tcp: ", "http: URL" and "ws: URL" all name the endpoint of the transport asked for. */
    char http[160] = "", ws[160] = "", mq[160] = "";
    const char *want[] = {"tcp: ", "http: ", "ws: ", "control: ", "uart: ", "mqtt: ", NULL};
    char *values[] = {tcp, http, ws, t->control, uart, mq};
    if (conf_child_wait_lines(&s->child, false, want, values, cap, "ready", READY_TIMEOUT_MS, why,
                              sizeof why) != 0) {
        snprintf(err, ecap, "simulator %s --board %s did not start: %s", exe, board, why);
        return CONF_EXIT_UNREACHABLE;
    }
    if (!tcp[0]) conf_copy(tcp, cap, http[0] ? http : ws);
    if (s->link[0]) conf_copy(uart, cap, s->link); /* the serial target opens the link */
    return CONF_EXIT_OK;
}

static const conf_target_ops_t *inner_kind(const char *transport)
{
    if (strcmp(transport, "serial") == 0) return &conf_target_serial;
    if (strcmp(transport, "http") == 0) return &conf_target_http;
    if (strcmp(transport, "ws") == 0) return &conf_target_ws;
    if (strcmp(transport, "mqtt") == 0) return &conf_target_mqtt;
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
    else if (strcmp(transport, "ws") == 0) {
        char frag[16] = "";
        bool e = conf_query_get(strchr(spec, '?'), "envelope", env, sizeof env);
        bool f = conf_query_get(strchr(spec, '?'), "fragment", frag, sizeof frag);
        snprintf(out, cap, "%s%s%s%s%s%s", colon + 1, e || f ? "?" : "", e ? "envelope=" : "",
                 e ? env : "", f ? (e ? "&fragment=" : "fragment=") : "", f ? frag : "");
    } else
        snprintf(out, cap, "%s", colon + 1);
}

typedef struct sim_state {
    sim_impl_t s;
} sim_state_t;

/* transport=mqtt: the broker first, the runner's subscription next, then the simulator, whose
   hello tells that it has subscribed too. */
static int open_mqtt(conf_target_t *t, sim_state_t *st, const char *board, const sim_flags_t *f,
                     char *err, size_t cap)
{
    char url[64], inner[200], tcp[160], uart[160] = "";
    int port = start_broker(&st->s, err, cap);
    if (port < 0) return CONF_EXIT_UNREACHABLE;
    snprintf(inner, sizeof inner, "//127.0.0.1:%d?to=conformance/1/in&from=conformance/1/out",
             port);
    st->s.inner.opts = t->opts;
    int rc = conf_target_mqtt.open(&st->s.inner, inner, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    st->s.inner.ops = &conf_target_mqtt;
    snprintf(url, sizeof url, "mqtt://127.0.0.1:%d", port);
    conf_copy(tcp, sizeof tcp, url);
    rc = start(t, &st->s, board, "mqtt", f, tcp, uart, sizeof tcp, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    if (!conf_mqtt_wait_hello(&st->s.inner, conf_now_ms() + READY_TIMEOUT_MS)) {
        snprintf(err, cap, "simulator --board %s: no hello on conformance/1/out through %s", board,
                 url);
        return CONF_EXIT_UNREACHABLE;
    }
    return CONF_EXIT_OK;
}

static int sim_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    char board[256], tcp[160] = "", uart[160] = "", inner[200], transport[16];
    int rc = parse_spec(spec, board, sizeof board, transport, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    sim_flags_t f;
    rc = parse_flags(strchr(spec, '?'), &f, err, cap);
    if (rc != CONF_EXIT_OK) return rc;
    sim_state_t *st = conf_xcalloc(1, sizeof *st);
    t->impl = st;
    if (f.tmpdir) rc = copy_board(&st->s, board, sizeof board, err, cap);
    if (rc == CONF_EXIT_OK && f.pty_link) {
        if (strcmp(transport, "serial") != 0) {
            snprintf(err, cap, "sim target: pty_link=1 needs transport=serial");
            rc = CONF_EXIT_USAGE;
        } else if ((rc = make_tmpdir(&st->s, err, cap)) == CONF_EXIT_OK) {
            snprintf(st->s.link, sizeof st->s.link, "%s/uart", st->s.tmpdir);
        }
    }
    if (rc != CONF_EXIT_OK) {
        t->ops->close(t);
        return rc;
    }
    t->vars = flag_vars(&f, st->s.tmpdir, st->s.link);
    conf_copy(st->s.inner.auth_token, sizeof st->s.inner.auth_token, f.auth);
    if (strcmp(transport, "mqtt") == 0) {
        rc = open_mqtt(t, st, board, &f, err, cap);
        if (rc != CONF_EXIT_OK) {
            t->ops->close(t);
            return rc == CONF_EXIT_USAGE ? CONF_EXIT_UNREACHABLE : rc;
        }
        conf_copy(t->transport, sizeof t->transport, st->s.inner.transport);
        t->virtual_clock = true;
        return CONF_EXIT_OK;
    }
    rc = start(t, &st->s, board, transport, &f, tcp, uart, sizeof tcp, err, cap);
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
    if (st->s.broker.pid) conf_child_stop(&st->s.broker, EXIT_WAIT_MS);
    if (st->s.broker_conf[0]) unlink(st->s.broker_conf);
    remove_tmpdir(&st->s);
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
