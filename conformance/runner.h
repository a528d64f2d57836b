/* runner.h: running scenarios against a target: the session, requirements, steps, results. */
#ifndef CONF_RUNNER_H
#define CONF_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "control.h"
#include "scenario.h"
#include "target.h"
#include "vars.h"

typedef enum conf_status {
    CONF_PASS = 0,
    CONF_FAIL,  /* a step did not do what the scenario says */
    CONF_SKIP,  /* the device lacks what the scenario requires */
    CONF_XFAIL, /* failed, and listed in --expected-failures */
    CONF_STALE  /* passed, but listed in --expected-failures: fails the run */
} conf_status_t;

const char *conf_status_name(conf_status_t s);

typedef struct conf_result {
    char *name; /* scenario name, "#k" appended for --repeat runs after the first */
    const conf_scenario_t *sc;
    conf_status_t status;
    char *message;           /* why it failed or was skipped (NULL when it passed) */
    char *expected, *actual; /* pretty JSON of the failing comparison, or NULL */
    char *transcript;        /* "-> sent" / "<- received" / "ctl-> ..." lines */
    double ms;
    json_t *steps; /* [{"step":"2","action":"send","detail":"gpio_read","ms":0.3,
                      "ok":true}] */
} conf_result_t;

void conf_result_free(conf_result_t *r);

/* A received message: its text and, if it parsed, its JSON. */
typedef struct conf_msg {
    json_t *json;
    char *raw;
} conf_msg_t;

/* One run against one device: the connection, what discovery found, messages not yet claimed. */
typedef struct conf_run_ctx {
    conf_target_t *target;
    conf_control_t *control; /* NULL without a control channel */
    conf_vars_t globals;     /* discovery's variables */
    json_t *info, *manifest; /* get_info and list_tools results */
    char protocol[8];        /* "mcpu" or "mcp": what discovery spoke */
    char profile[8];         /* "mcpu", "mcp" or "mcpsim": what the device is held to */
    /* The MCP revisions the device is held to, space-separated: what discovery found it to
       speak (the version initialize negotiated, and 2026-07-28 when server/discover answers
       for it), or --mcp-revision's list. Scenarios whose requires names a revision run only
       when it is here. */
    char revisions[96];
    const char *revisions_given; /* --mcp-revision, or NULL */
    bool mcp;                /* MCP (initialize, tools/list) rather than MCP/U */
    json_int_t next_id;
    conf_msg_t *queue;
    size_t qlen, qcap;
    double timeout_scale;
    bool lost;              /* the connection dropped: later scenarios fail at once */
    char lost_why[1024];    /* why (the first loss's account, with the target's diagnosis) */
    uint64_t received;      /* messages received so far */
    unsigned silent_failures; /* failed scenarios in a row during which nothing arrived */
    bool dirty;             /* the last scenario may have left replies in flight */
    conf_buf_t *transcript; /* the current scenario's, or NULL */
} conf_run_ctx_t;

void conf_run_init(conf_run_ctx_t *ctx, conf_target_t *target, conf_control_t *control);

/* Marks the device lost (later scenarios fail at once) and keeps why, adding the target's own
   diagnosis (an emulator or simulator that ended) when it has one. */
void conf_run_lost(conf_run_ctx_t *ctx, const char *why);

/* Scenarios that fail in a row with not one byte from the device before the runner gives the
   device up as silent (a hung chip, a crashed firmware that keeps its port open). */
#define CONF_SILENT_LIMIT 3

/* After each scenario: counts the failures during which the device sent nothing at all, and at
   CONF_SILENT_LIMIT in a row marks it lost ("stopped answering"). before_msgs / before_bytes
   are ctx->received and the stream's byte count from before the scenario. */
void conf_run_after_scenario(conf_run_ctx_t *ctx, bool failed, uint64_t before_msgs,
                             uint64_t before_bytes);
void conf_run_free(conf_run_ctx_t *ctx);

/* Sets ctx->profile: given (from --profile) when not NULL, else chosen from discovery: "mcp"
   on an MCP device, "mcpsim" when get_info carries mcpsim's "core_version", else "mcpu".
   Returns false (with err) for an unknown profile name. */
bool conf_choose_profile(conf_run_ctx_t *ctx, const char *given, char *err, size_t cap);

/* Why sc cannot run on this device (malloc'd), or NULL when it can. An extension scenario runs
   under the mcpsim profile, or when the device advertises it (the tools or capabilities its
   requires names, all present); otherwise it is skipped with the reason. */
char *conf_requirements_unmet(const conf_run_ctx_t *ctx, const conf_scenario_t *sc);

/* Runs one scenario (or reports it skipped) into *r. */
void conf_run_scenario(conf_run_ctx_t *ctx, const conf_scenario_t *sc, conf_result_t *r);

/* Low-level exchange, also used by discovery: sends a request and waits for its response
   (timeout in ms). Returns the response (caller decrefs) or NULL with err. */
json_t *conf_request(conf_run_ctx_t *ctx, const char *method, const json_t *params, int timeout_ms,
                     char *err, size_t cap);

/* Sends a notification (no params, no answer expected): 0 or -1 with err. */
int conf_notify(conf_run_ctx_t *ctx, const char *method, char *err, size_t cap);

#endif
