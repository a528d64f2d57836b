/* fuzz_sim.h: the fuzz harnesses of the simulator's input paths (docs/fuzzing.md). Each takes
   any bytes and returns 0; a broken property aborts (FUZZ_SIM_CHECK), so libFuzzer records a
   crash and the replay test (sim/tests/test_host_fuzz_replay.c) fails. */
#ifndef FUZZ_SIM_H
#define FUZZ_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int fuzz_sim_http_check(const uint8_t *data, size_t size); /* Host/Origin/Accept/token checks */
int fuzz_sim_address(const uint8_t *data, size_t size);    /* [HOST:]PORT, ws:// URLs, headers */
int fuzz_sim_envelope(const uint8_t *data, size_t size);   /* the WebSocket envelope detection */
int fuzz_sim_control(const uint8_t *data, size_t size);    /* one control-channel message */
int fuzz_sim_board(const uint8_t *data, size_t size);      /* a board file */
int fuzz_sim_backing(const uint8_t *data, size_t size);    /* an AT24C backing file */
int fuzz_sim_http(const uint8_t *data, size_t size);       /* HTTP through libmicrohttpd */
int fuzz_sim_ws(const uint8_t *data, size_t size);         /* WebSocket through libwebsockets */

#define FUZZ_SIM_CHECK(cond, what)                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz: %s\n", what);                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A NUL-terminated copy of data (malloc'd). */
static inline char *fuzz_sim_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t) abort();
    for (size_t i = 0; i < size; i++) t[i] = (char)data[i];
    t[size] = 0;
    return t;
}

#endif
