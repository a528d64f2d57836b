/* fuzz_backing.c: the AT24C model's backing-file loader. The first input byte picks the chip
   size (128 << (b % 12) bytes), the rest is the file's content: it is written to a temporary
   file, the model loads it and is read back over the backend face. Properties: no crash; a file
   larger than the chip is refused; an accepted file's bytes are the chip's first bytes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, mkdtemp */
#endif
#include <string.h>
#include <unistd.h>

#include "devices/devices.h"
#include "fuzz_sim.h"

static const char *dir(void)
{
    static char path[64];
    if (!path[0]) {
        /* tmpfs when there is one: the model fdatasyncs every write, which on a disk costs
           milliseconds and held the harness to about 100 executions a second */
        snprintf(path, sizeof path, "%s/mcpsim-fuzz-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        FUZZ_SIM_CHECK(mkdtemp(path) != NULL, "no temporary directory");
    }
    return path;
}

int fuzz_sim_backing(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 300000) return 0;
    uint32_t chip = 128u << (data[0] % 12u);
    char file[128];
    snprintf(file, sizeof file, "%s/ee.bin", dir());
    FILE *f = fopen(file, "wb");
    FUZZ_SIM_CHECK(f != NULL, "cannot write the backing file");
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    char cfg_text[96];
    snprintf(cfg_text, sizeof cfg_text, "{\"size\": %u, \"backing_file\": \"ee.bin\"}",
             (unsigned)chip);
    json_t *cfg = json_loads(cfg_text, 0, NULL);
    sim_cfg_err_t e;
    void *m = sim_model_at24c.create(cfg, dir(), &e);
    json_decref(cfg);
    if (size - 1 > chip) {
        FUZZ_SIM_CHECK(m == NULL, "a backing file larger than the chip was accepted");
    } else {
        FUZZ_SIM_CHECK(m != NULL, "a backing file that fits was refused");
        json_t *params = json_pack("{s:i, s:i}", "offset", 0, "count", (int)(size - 1));
        json_t *st = sim_model_at24c.get(m, params, 0, &e);
        json_decref(params);
        FUZZ_SIM_CHECK(st != NULL, "the chip's state cannot be read");
        char *hex = sim_cfg_hex(data + 1, size - 1);
        FUZZ_SIM_CHECK(strcmp(json_string_value(json_object_get(st, "bytes")), hex ? hex : "") == 0,
                       "the chip does not hold the backing file's bytes");
        free(hex);
        json_decref(st);
        sim_model_at24c.destroy(m);
    }
    unlink(file);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_backing(data, size);
}
#endif
