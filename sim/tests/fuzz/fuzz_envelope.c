/* fuzz_envelope.c: the WebSocket host's message classification (envelope.c): every text
   message a WebSocket client or the dial-out backend sends goes through host_env_parse first.
   Properties: no crash; an MCP envelope's payload, when found, lies inside the message. */
#include "envelope.h"
#include "fuzz_sim.h"

int fuzz_sim_envelope(const uint8_t *data, size_t size)
{
    char *text = fuzz_sim_text(data, size);
    host_env_t env;
    host_env_parse(text, size, &env);
    if (env.kind == HOST_ENV_MCP && env.payload)
        FUZZ_SIM_CHECK(env.payload >= text && env.payload + env.payload_len <= text + size,
                       "the payload is not inside the message");
    host_env_free(&env);
    free(text);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_envelope(data, size);
}
#endif
