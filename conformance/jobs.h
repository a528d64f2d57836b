/* jobs.h: --jobs N: scenarios spread over forked workers, results merged back in library order. */
#ifndef CONF_JOBS_H
#define CONF_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "runner.h"

/* Collects results that arrive in any order and hands them on strictly by index: emit(ud, r,
   index) is called for index 0, 1, 2, ... as soon as every earlier index has been emitted. The
   merge owns a result from put() until emit(), which takes it over. */
typedef void (*conf_merge_emit_fn)(void *ud, conf_result_t *r, size_t index);

typedef struct conf_merge {
    conf_result_t *slots;
    bool *have;
    size_t total, next;
    conf_merge_emit_fn emit;
    void *ud;
} conf_merge_t;

void conf_merge_init(conf_merge_t *m, size_t total, conf_merge_emit_fn emit, void *ud);
/* Takes *r (an index out of range or already given is refused: -1, and *r is freed). */
int conf_merge_put(conf_merge_t *m, size_t index, conf_result_t *r);
/* Frees results still waiting for an earlier index. */
void conf_merge_free(conf_merge_t *m);

/* A result as JSON (what a worker sends its parent) and back; from_json leaves r->sc NULL and
   returns -1 for a malformed object. */
json_t *conf_result_to_json(const conf_result_t *r);
int conf_result_from_json(const json_t *j, conf_result_t *r);

/* What each worker does, in its own process: setup() once (open its own target, discover),
   run() for every index it is given, teardown() at the end; lost() tells whether its connection
   dropped. */
typedef struct conf_jobs_ops {
    int (*setup)(void *ud, char *err, size_t cap);
    void (*run)(void *ud, size_t index, conf_result_t *r);
    bool (*lost)(void *ud);
    void (*teardown)(void *ud);
} conf_jobs_ops_t;

/* Runs indexes 0..total-1 on njobs forked workers (worker w takes w, w+njobs, ...) and puts each
   result into m (its sc left NULL for the caller's emit to fill). An index a worker never
   reported (setup failed, it crashed) becomes a failure saying why. Returns true when some
   worker lost its connection. */
bool conf_jobs_run(size_t njobs, size_t total, const conf_jobs_ops_t *ops, void *ud,
                   conf_merge_t *m);

#endif
