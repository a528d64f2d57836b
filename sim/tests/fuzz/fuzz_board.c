/* fuzz_board.c: the board-file loader (sim_board_load_text) on any text; a board it accepts is
   booted (sim_create) and destroyed. Properties: no crash; a refusal has a message with a
   position. Relative backing files resolve against the working directory: the corpus names
   none (a fuzzer that invents one writes a file there, which is harmless). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <string.h>

#include "fuzz_sim.h"
#include "sim.h"

int fuzz_sim_board(const uint8_t *data, size_t size)
{
    if (size > 65536) return 0;
    if (memmem(data, size, "backing_file", 12)) return 0; /* no files written by the fuzzer */
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *b = sim_board_load_text("fuzz.json", (const char *)data, size, &err);
    if (!b) {
        char msg[1024];
        sim_error_format(&err, msg, sizeof msg);
        FUZZ_SIM_CHECK(msg[0] != 0, "a board refused without a message");
        return 0;
    }
    sim_t *sim = sim_create(b, SIM_CLOCK_VIRTUAL, &err);
    if (sim) sim_destroy(sim);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_board(data, size);
}
#endif
