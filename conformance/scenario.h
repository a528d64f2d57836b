/* scenario.h: scenario files (format version 1): loading, validation, the scenario library. */
#ifndef CONF_SCENARIO_H
#define CONF_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "util.h"

#define CONF_FORMAT_VERSION 1
#define CONF_DEFAULT_TIMEOUT_MS 2000

/* How binding the rule a scenario checks is (RFC 2119 words of its source; an extension is a
   feature of mcpsim's own that no reference document asks for). */
typedef enum conf_level {
    CONF_LEVEL_MUST = 0, /* a failure fails the run */
    CONF_LEVEL_SHOULD,   /* a failure fails the run only with --strict */
    CONF_LEVEL_EXTENSION /* runs only when the device advertises it or with --profile mcpsim */
} conf_level_t;

#define CONF_LEVELS 3
const char *conf_level_name(conf_level_t l);
/* Whether a failure at this level fails the run (should: only when strict). */
bool conf_level_fails_run(conf_level_t level, bool strict);
/* "must", "should", "extension" -> 0..2, or -1. */
int conf_level_parse(const char *s);

struct conf_session;
struct conf_run_ctx;

/*
 * One scenario, validated. steps is the file's JSON (kept: the runner interprets it step by
 * step); tags and requires already include what the enclosing suite declares.
 * A generated scenario may instead carry a C check (check != NULL, steps empty).
 */
typedef struct conf_scenario {
    char *name; /* full name: "suite/name" inside a suite */
    char *description;
    char *source;       /* the rule's origin: "jsonrpc-2.0 §5.1", "mcpu protocol: adc_read" */
    conf_level_t level; /* must, should or extension */
    char *file;        /* file it came from ("(generated)" for generated checks) */
    int line, col;     /* where it starts in the file */
    json_t *tags;      /* array of strings */
    json_t *requires;  /* object: protocol, transport, pins, tools, control, vars */
    json_t *steps;     /* array of steps */
    int timeout_ms;    /* default timeout of a step */
    bool needs_stream; /* has send_raw steps */
    bool needs_http;   /* has http steps (raw HTTP exchanges) */
    bool needs_control;
    json_t *control_methods; /* array of the control methods its steps call, or NULL */
    bool generated;
    /* Generated checks written in C: returns true on pass, else appends the reason to why. */
    bool (*check)(struct conf_run_ctx *ctx, const struct conf_scenario *sc, conf_buf_t *why);
} conf_scenario_t;

typedef struct conf_library {
    conf_scenario_t **items;
    size_t count, cap;
} conf_library_t;

void conf_library_init(conf_library_t *lib);
void conf_library_free(conf_library_t *lib);
/* Takes ownership of sc. */
void conf_library_add(conf_library_t *lib, conf_scenario_t *sc);
conf_scenario_t *conf_scenario_new(void);
void conf_scenario_free(conf_scenario_t *sc);

/*
 * Loads one file's text (one scenario, or a suite of them) into lib. Returns 0, or -1 with
 * "FILE:LINE:COLUMN: what is wrong" in err (nothing of the file is added then). Unknown keys,
 * wrong types, bad matchers, duplicate keys and names already in lib are refused.
 */
int conf_load_text(conf_library_t *lib, const char *file, const char *text, size_t len, char *err,
                   size_t cap);
int conf_load_file(conf_library_t *lib, const char *path, char *err, size_t cap);

/* Loads a file, or every *.json below a directory (sorted, recursively; *.schema.json files are
   not scenarios). Every refusal is
   appended to errors as a line; returns the number of files refused. */
int conf_load_path(conf_library_t *lib, const char *path, conf_buf_t *errors);

#endif
