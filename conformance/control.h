/* control.h: a client of the simulator's control channel (sim.* JSON-RPC, one per line). */
#ifndef CONF_CONTROL_H
#define CONF_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

typedef struct conf_control conf_control_t;

/* Connects to "HOST:PORT" (a leading "tcp:" is accepted); NULL with err. */
conf_control_t *conf_control_open(const char *addr, char *err, size_t cap);
void conf_control_close(conf_control_t *c);

/*
 * Calls method with params (may be NULL; not stolen) and waits up to timeout_ms for the reply.
 * Returns 0 with *response (the whole JSON-RPC response, result or error; caller decrefs), or
 * -1 with err when the channel fails or stays silent.
 */
int conf_control_call(conf_control_t *c, const char *method, const json_t *params, int timeout_ms,
                      json_t **response, char *err, size_t cap);

#endif
