/* fuzz_control.c: one control-channel message (sim_control_handle) against the greenhouse board
   (every device model, sampled pins, waveforms) on the virtual clock. One simulator serves every
   input, as one long control session would. Properties: no crash; the answer, when there is
   one, is JSON. sim.advance is clamped by the input size limit only (a large advance of the
   virtual clock is the loader's cost, not a fault), so inputs are capped at 4 KiB. */
#include <jansson.h>
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <string.h>

#include "fuzz_sim.h"
#include "sim.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif

static sim_t *the_sim(void)
{
    static sim_t *sim;
    if (sim) return sim;
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *b = sim_board_load(MCPSIM_SOURCE_DIR "/sim/boards/greenhouse.json", &err);
    FUZZ_SIM_CHECK(b != NULL, "the greenhouse board does not load");
    sim = sim_create(b, SIM_CLOCK_VIRTUAL, &err);
    FUZZ_SIM_CHECK(sim != NULL, "the greenhouse board does not boot");
    return sim;
}

int fuzz_sim_control(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    /* a clock advance of more than a minute per input makes runs slow, not interesting */
    if (size >= 11 && memmem(data, size, "advance", 7) && memmem(data, size, "000000", 6))
        return 0;
    char *answer = sim_control_handle(the_sim(), (const char *)data, size);
    if (answer) {
        json_t *doc = json_loads(answer, 0, NULL);
        FUZZ_SIM_CHECK(doc != NULL, "the control channel answered with something not JSON");
        json_decref(doc);
        free(answer);
    }
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_control(data, size);
}
#endif
