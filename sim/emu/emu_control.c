/* emu_control.c: mcpsim-avr's control channel: JSON-RPC 2.0 over TCP, one message per line, the
   subset of mcpsim's sim.* methods an emulated chip can answer (docs/emulators.md) plus
   emu.stats. Error codes and messages follow docs/control-channel.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"

#define CTL_LINE_MAX 65536

enum { PARSE_ERROR = -32700, INVALID_REQUEST = -32600, NO_METHOD = -32601, BAD_PARAMS = -32602 };

typedef struct ctl_conn {
    uv_tcp_t tcp;
    emu_t *e;
    char *line;
    size_t len, cap;
    bool discarding;
} ctl_conn_t;

static json_t *error_obj(json_t *id, int code, const char *msg, const char *path)
{
    json_t *err = json_pack("{s:i,s:s}", "code", code, "message", msg);
    if (path) json_object_set_new(err, "data", json_pack("{s:s}", "path", path));
    return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", err);
}

static json_t *param_error(json_t *id, const char *msg)
{
    /* messages start with the path: "params.pin: ..." */
    char path[64];
    size_t n = strcspn(msg, ":");
    snprintf(path, sizeof path, "%.*s", (int)n, msg);
    return error_obj(id, BAD_PARAMS, msg, path);
}

static bool only_keys(json_t *params, const char *const *keys, const char **bad)
{
    const char *k;
    json_t *v;
    json_object_foreach(params, k, v)
    {
        bool ok = false;
        for (int i = 0; keys[i]; i++) ok = ok || !strcmp(k, keys[i]);
        if (!ok) {
            *bad = k;
            return false;
        }
    }
    return true;
}

static json_t *call(emu_t *e, const char *method, json_t *params, json_t *id)
{
    static const char *const k_none[] = {NULL};
    static const char *const k_pin[] = {"pin", NULL};
    static const char *const k_input[] = {"pin", "level", NULL};
    static const char *const k_analog[] = {"pin", "volts", "raw", NULL};
    const char *const *keys;
    if (!strcmp(method, "sim.set_input")) keys = k_input;
    else if (!strcmp(method, "sim.set_analog")) keys = k_analog;
    else if (!strcmp(method, "sim.get_pin")) keys = k_pin;
    else if (!strcmp(method, "sim.read_outputs") || !strcmp(method, "sim.time") ||
             !strcmp(method, "emu.stats"))
        keys = k_none;
    else {
        char msg[256];
        if (!strncmp(method, "sim.", 4))
            snprintf(msg, sizeof msg,
                     "Method not found: \"%.64s\": mcpsim-avr emulates a chip and does not model "
                     "this (it answers sim.set_input, sim.set_analog, sim.get_pin, "
                     "sim.read_outputs, sim.time and emu.stats)",
                     method);
        else
            snprintf(msg, sizeof msg, "Method not found: \"%.64s\"", method);
        return error_obj(id, NO_METHOD, msg, NULL);
    }
    const char *bad = NULL;
    if (!only_keys(params, keys, &bad)) {
        char msg[160], path[96];
        snprintf(msg, sizeof msg, "params.%.64s: unknown parameter", bad);
        snprintf(path, sizeof path, "params.%.64s", bad);
        return error_obj(id, BAD_PARAMS, msg, path);
    }
    const char *err = NULL;
    json_t *result = NULL;
    if (keys == k_none) {
        if (!strcmp(method, "emu.stats")) {
            result = emu_stats_json(e);
        } else if (!strcmp(method, "sim.time")) {
            uint64_t us = emu_now_us(e);
            result = json_pack("{s:I,s:I,s:s,s:n,s:I}", "now_ms", (json_int_t)(us / 1000),
                               "now_us", (json_int_t)us, "mode",
                               e->opts.realtime ? "realtime" : "unthrottled", "next_event_us",
                               "cycles", (json_int_t)e->avr->cycle);
        } else {
            if (!e->pins_known)
                return param_error(id, "params: pin numbers are only known for the ATmega328P "
                                       "family");
            result = emu_read_outputs(e);
        }
        return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);
    }
    int pin = emu_pin_parse(e, json_object_get(params, "pin"), &err);
    if (pin < 0) return param_error(id, err);
    if (keys == k_input &&
        emu_pin_set_input(e, pin, json_object_get(params, "level"), &err) != 0)
        return param_error(id, err);
    if (keys == k_analog && emu_pin_set_analog(e, pin, json_object_get(params, "volts"),
                                               json_object_get(params, "raw"), &err) != 0)
        return param_error(id, err);
    return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", emu_pin_json(e, pin));
}

/* One request object: the reply, or NULL for a notification. */
static json_t *handle_one(emu_t *e, json_t *req)
{
    if (!json_is_object(req))
        return error_obj(NULL, INVALID_REQUEST, "Invalid Request: not an object", NULL);
    json_t *id = json_object_get(req, "id");
    bool has_id = id != NULL;
    if (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id))
        return error_obj(NULL, INVALID_REQUEST,
                         "Invalid Request: id must be an integer, a string or null", NULL);
    json_t *ver = json_object_get(req, "jsonrpc");
    if (!json_is_string(ver) || strcmp(json_string_value(ver), "2.0") != 0)
        return error_obj(id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"", NULL);
    json_t *method = json_object_get(req, "method");
    if (!json_is_string(method))
        return error_obj(id, INVALID_REQUEST, "Invalid Request: method must be a string", NULL);
    const char *k;
    json_t *v;
    json_object_foreach(req, k, v)
    {
        if (strcmp(k, "jsonrpc") && strcmp(k, "id") && strcmp(k, "method") && strcmp(k, "params")) {
            char msg[128];
            snprintf(msg, sizeof msg, "Invalid Request: unknown member \"%.64s\"", k);
            return error_obj(id, INVALID_REQUEST, msg, NULL);
        }
    }
    json_t *params = json_object_get(req, "params");
    json_t *empty = NULL;
    if (!params || json_is_null(params)) params = empty = json_object();
    json_t *resp;
    if (!json_is_object(params))
        resp = error_obj(id, BAD_PARAMS, "params: must be an object (named parameters)", "params");
    else
        resp = call(e, json_string_value(method), params, id ? id : json_null());
    json_decref(empty);
    if (!has_id) {
        json_decref(resp);
        return NULL;
    }
    return resp;
}

char *emu_control_handle(emu_t *e, const char *line, size_t len)
{
    json_error_t jerr;
    json_t *msg = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
    json_t *resp;
    if (!msg) {
        char m[300];
        snprintf(m, sizeof m, "Parse error: %s (line %d, column %d)", jerr.text, jerr.line,
                 jerr.column);
        resp = error_obj(NULL, PARSE_ERROR, m, NULL);
    } else if (json_is_array(msg)) {
        if (json_array_size(msg) == 0) {
            resp = error_obj(NULL, INVALID_REQUEST, "Invalid Request: empty batch", NULL);
        } else {
            resp = json_array();
            size_t i;
            json_t *req;
            json_array_foreach(msg, i, req)
            {
                json_t *r = handle_one(e, req);
                if (r) json_array_append_new(resp, r);
            }
            if (json_array_size(resp) == 0) {
                json_decref(resp);
                resp = NULL;
            }
        }
    } else {
        resp = handle_one(e, msg);
    }
    json_decref(msg);
    if (!resp) return NULL;
    char *s = json_dumps(resp, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(resp);
    return s;
}

/* ------------------------------------------------------------------------- TCP */

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w->data);
    free(w);
}

static void send_line(ctl_conn_t *c, char *text)
{
    size_t n = strlen(text);
    char *buf = malloc(n + 1);
    uv_write_t *w = malloc(sizeof *w);
    if (!buf || !w) abort();
    memcpy(buf, text, n);
    buf[n] = '\n';
    w->data = buf;
    uv_buf_t b = uv_buf_init(buf, (unsigned)(n + 1));
    if (uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
        free(buf);
        free(w);
    }
}

static void handle_line(ctl_conn_t *c, const char *line, size_t len)
{
    if (len > 0 && line[len - 1] == '\r') len--;
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (i == len) return;
    char *resp = emu_control_handle(c->e, line, len);
    if (resp) {
        send_line(c, resp);
        free(resp);
    }
}

static void on_conn_closed(uv_handle_t *h)
{
    ctl_conn_t *c = h->data;
    free(c->line);
    free(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    static char chunk[16384];
    *buf = uv_buf_init(chunk, sizeof chunk);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    ctl_conn_t *c = s->data;
    if (nread < 0) {
        uv_close((uv_handle_t *)s, on_conn_closed);
        return;
    }
    const char *p = buf->base;
    size_t left = (size_t)nread;
    while (left > 0) {
        const char *nl = memchr(p, '\n', left);
        size_t n = nl ? (size_t)(nl - p) : left;
        if (!c->discarding && c->len + n > CTL_LINE_MAX) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":"
                     "\"Invalid Request: control line longer than %d bytes\"}}",
                     INVALID_REQUEST, CTL_LINE_MAX);
            send_line(c, msg);
            c->discarding = true;
            c->len = 0;
        }
        if (c->discarding) {
            if (nl) c->discarding = false;
        } else {
            if (c->len + n > c->cap) {
                size_t cap = c->cap ? c->cap : 1024;
                while (cap < c->len + n) cap *= 2;
                char *q = realloc(c->line, cap);
                if (!q) abort();
                c->line = q;
                c->cap = cap;
            }
            memcpy(c->line + c->len, p, n);
            c->len += n;
            if (nl) {
                handle_line(c, c->line, c->len);
                c->len = 0;
            }
        }
        p += n + (nl ? 1 : 0);
        left -= n + (nl ? 1 : 0);
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    emu_t *e = server->data;
    if (status < 0) return;
    ctl_conn_t *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->e = e;
    uv_tcp_init(&e->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

int emu_control_open(emu_t *e, const char *spec)
{
    char host[64] = "127.0.0.1";
    const char *port_s = spec;
    const char *colon = strrchr(spec, ':');
    if (colon) {
        size_t n = (size_t)(colon - spec);
        if (n == 0 || n >= sizeof host) {
            fprintf(stderr, "mcpsim-avr: --control %s: bad host\n", spec);
            return -1;
        }
        memcpy(host, spec, n);
        host[n] = 0;
        port_s = colon + 1;
    }
    char *end;
    long port = strtol(port_s, &end, 10);
    if (!*port_s || *end || port < 0 || port > 65535) {
        fprintf(stderr, "mcpsim-avr: --control %s: the port must be 0..65535\n", spec);
        return -1;
    }
    struct sockaddr_storage ss;
    int rc = uv_ip4_addr(host, (int)port, (struct sockaddr_in *)&ss);
    if (rc != 0) rc = uv_ip6_addr(host, (int)port, (struct sockaddr_in6 *)&ss);
    if (rc != 0) {
        fprintf(stderr, "mcpsim-avr: --control %s: '%s' is not an IP address\n", spec, host);
        return -1;
    }
    uv_tcp_init(&e->loop, &e->ctl_server);
    e->ctl_server.data = e;
    e->ctl_open = true;
    rc = uv_tcp_bind(&e->ctl_server, (struct sockaddr *)&ss, 0);
    if (rc == 0) rc = uv_listen((uv_stream_t *)&e->ctl_server, 16, on_connection);
    if (rc != 0) {
        fprintf(stderr, "mcpsim-avr: --control %s: cannot listen: %s\n", spec, uv_strerror(rc));
        return -1;
    }
    struct sockaddr_storage bound;
    int len = sizeof bound;
    uv_tcp_getsockname(&e->ctl_server, (struct sockaddr *)&bound, &len);
    char ip[48];
    int p;
    if (bound.ss_family == AF_INET6) {
        uv_ip6_name((struct sockaddr_in6 *)&bound, ip, sizeof ip);
        p = ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
        snprintf(e->ctl_addr, sizeof e->ctl_addr, "[%s]:%d", ip, p);
    } else {
        uv_ip4_name((struct sockaddr_in *)&bound, ip, sizeof ip);
        p = ntohs(((struct sockaddr_in *)&bound)->sin_port);
        snprintf(e->ctl_addr, sizeof e->ctl_addr, "%s:%d", ip, p);
    }
    return 0;
}

static void close_walk(uv_handle_t *h, void *arg)
{
    emu_t *e = arg;
    if (h->type == UV_TCP && h != (uv_handle_t *)&e->ctl_server && !uv_is_closing(h))
        uv_close(h, on_conn_closed);
}

void emu_control_close(emu_t *e)
{
    if (!e->ctl_open) return;
    uv_walk(&e->loop, close_walk, e);
    uv_close((uv_handle_t *)&e->ctl_server, NULL);
    e->ctl_open = false;
}
