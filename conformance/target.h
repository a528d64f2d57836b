/* target.h: what the runner talks to: one small interface, one file per kind in targets/. */
#ifndef CONF_TARGET_H
#define CONF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Exit codes the runner uses (the contract). */
enum { CONF_EXIT_OK = 0, CONF_EXIT_FAILED = 1, CONF_EXIT_USAGE = 2, CONF_EXIT_UNREACHABLE = 3 };

typedef struct conf_target_opts {
    const char *mcpsim; /* simulator executable for sim targets */
    bool verbose;
} conf_target_opts_t;

typedef struct conf_target conf_target_t;

/*
 * A kind of target. Messages are whole JSON texts: send() frames them as the transport does
 * (a newline on streams, a POST body on HTTP), receive() returns one whole message as text.
 * send_raw() writes bytes as they are; it is NULL for transports that are not byte streams.
 * open() returns CONF_EXIT_OK, CONF_EXIT_USAGE (bad spec) or CONF_EXIT_UNREACHABLE, with err.
 * send() returns 0, -1 when the connection is lost, or -2 when the message was refused but the
 * connection stands (an HTTP error status).
 * receive() returns 1 with *msg (malloc'd), 0 at the deadline (a conf_now_ms time), -1 when the
 * connection is lost.
 */
typedef struct conf_target_ops {
    const char *scheme; /* "sim", "tcp", "serial", "http", "ws" */
    int (*open)(conf_target_t *t, const char *spec, char *err, size_t cap);
    int (*send)(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap);
    int (*send_raw)(conf_target_t *t, const void *bytes, size_t len, char *err, size_t cap);
    int (*receive)(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                   size_t cap);
    void (*close)(conf_target_t *t);
    /* HTTP targets only (NULL elsewhere): one raw HTTP exchange for `http` steps.
       req {method, headers, body | body_text, session}; *resp {status, headers, body, text,
       messages}. 0, or -1 with err when there was no HTTP answer at all. */
    int (*http)(conf_target_t *t, const json_t *req, json_t **resp, char *err, size_t cap);
    /* Targets that run the device in a process of their own (sim, qemu, avr; NULL elsewhere):
       what became of it, for a diagnosis when the device goes silent ("the emulator exited with
       status 4; its log ends: ..."); "" when it is running normally. */
    void (*diagnose)(conf_target_t *t, char *out, size_t cap);
} conf_target_ops_t;

struct conf_target {
    const conf_target_ops_t *ops;
    const conf_target_opts_t *opts;
    void *impl;
    char spec[512];     /* as given on the command line */
    char transport[16]; /* "tcp", "serial", "http", "ws": what requires.transport matches */
    bool stream;        /* a byte stream: send_raw works */
    bool mcp;           /* a byte stream that speaks MCP (its spec's mcp=1), not MCP/U */
    bool virtual_clock; /* time moves only through the control channel (sim.advance) */
    char control[160];  /* control channel "HOST:PORT" the target brings, or "" */
    /* The control methods that channel has, space-separated ("sim.set_input sim.get_pin"), or
       "" for every method of the simulator's (docs/control-channel.md). */
    char control_methods[256];
    const struct conf_stream *rx; /* the byte stream's receive statistics, or NULL */
    conf_buf_t notes; /* remarks for the report (boot noise before the first JSON line) */
    /* What the target started the device with, for scenarios as the variable "target" (e.g.
       {"auth_token": "...", "allow_host": [...]}); NULL when it says nothing. Freed at close. */
    json_t *vars;
    /* HTTP and WebSocket: a bearer token sent as "Authorization: Bearer TOKEN" on every request
       (an http step's own Authorization header, or null, replaces it); "" for none. */
    char auth_token[128];
};

extern const conf_target_ops_t conf_target_tcp;
extern const conf_target_ops_t conf_target_serial;
extern const conf_target_ops_t conf_target_sim;
extern const conf_target_ops_t conf_target_http;
extern const conf_target_ops_t conf_target_qemu;
extern const conf_target_ops_t conf_target_avr;
extern const conf_target_ops_t conf_target_ws;
extern const conf_target_ops_t conf_target_mqtt;

/* An mqtt target: runs its client until the device's hello arrives (true) or the deadline
   passes (a conf_now_ms time). The sim target waits so for a simulator it just started. */
bool conf_mqtt_wait_hello(conf_target_t *t, int64_t deadline);

/*
 * Opens a target from its spec: "sim[:BOARD][?transport=tcp|serial|http|ws|mqtt]",
 * "tcp:HOST:PORT", "http://HOST:PORT/PATH", "ws://HOST:PORT/PATH[?envelope=1]",
 * "mqtt://HOST:PORT?to=TOPIC&from=TOPIC",
 * "serial:/dev/ttyUSB0[?baud=115200&dtr=1&boot_ms=600]" (a bare /dev/... path is serial too).
 * A byte stream's spec may add mcp=1 (sim:BOARD?transport=tcp&mcp=1): the runner speaks MCP
 * on it (initialize, the mcp scenarios) instead of MCP/U. Returns NULL with *rc (CONF_EXIT_USAGE or CONF_EXIT_UNREACHABLE) and err.
 */
conf_target_t *conf_target_open(const char *spec, const conf_target_opts_t *opts, int *rc,
                                char *err, size_t cap);
void conf_target_close(conf_target_t *t);

/* Value of key in a "?a=1&b=2" query (copied to out), or false. */
bool conf_query_get(const char *query, const char *key, char *out, size_t cap);

#endif
