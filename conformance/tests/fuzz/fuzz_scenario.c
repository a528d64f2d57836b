/* fuzz_scenario.c: the conformance runner's scenario loader (conf_load_text) on any text.
   Properties: no crash, no sanitizer report; a refusal names FILE:LINE:COLUMN (it starts with
   the file name) and nothing of a refused file stays in the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int fuzz_scenario(const unsigned char *data, size_t size);

int fuzz_scenario(const unsigned char *data, size_t size)
{
    if (size > 65536) return 0;
    conf_library_t lib;
    conf_library_init(&lib);
    char err[1024] = "";
    int rc = conf_load_text(&lib, "fuzz.json", (const char *)data, size, err, sizeof err);
    if (rc != 0 && (strncmp(err, "fuzz.json:", 10) != 0 || lib.count != 0)) {
        fprintf(stderr, "fuzz: a refusal without its position, or a half-loaded file: %s\n", err);
        abort();
    }
    conf_library_free(&lib);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    return fuzz_scenario(data, size);
}
#endif
