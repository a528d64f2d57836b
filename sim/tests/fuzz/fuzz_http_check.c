/* fuzz_http_check.c: the HTTP transport's header checks (http_check.c) on any header values.
   The input is up to five values separated by newlines: Host, Origin, Accept, Content-Type,
   Authorization. Properties: no crash; a bearer value built from the token is accepted. */
#include <string.h>

#include "fuzz_sim.h"
#include "http_check.h"

int fuzz_sim_http_check(const uint8_t *data, size_t size)
{
    char *text = fuzz_sim_text(data, size);
    const char *field[5] = {"", "", "", "", ""};
    char *p = text;
    for (int i = 0; i < 5 && p; i++) {
        field[i] = p;
        p = strchr(p, '\n');
        if (p) *p++ = 0;
    }
    static const char *const allow[] = {"dev.lan", "box:7002", "*.example"};
    (void)host_http_host_allowed(field[0], allow, 3);
    (void)host_http_host_allowed(field[0], NULL, 0);
    (void)host_http_origin_allowed(field[1], allow, 3);
    (void)host_http_accepts(field[2], "text/event-stream");
    (void)host_http_accepts(field[2], "application/json");
    (void)host_http_is_json(field[3]);
    (void)host_http_bearer_ok(field[4], "s3cret");
    if (field[4][0]) { /* the value as a token: "Bearer <it>" must pass unless it has spaces */
        size_t n = strlen(field[4]);
        char *auth = malloc(n + 8);
        if (!auth) abort();
        memcpy(auth, "Bearer ", 7);
        memcpy(auth + 7, field[4], n + 1);
        bool plain = field[4][0] != ' ' && field[4][n - 1] != ' ' && field[4][n - 1] != '\t';
        FUZZ_SIM_CHECK(!plain || host_http_bearer_ok(auth, field[4]),
                       "a bearer value made of the token itself was refused");
        free(auth);
    }
    free(text);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_http_check(data, size);
}
#endif
