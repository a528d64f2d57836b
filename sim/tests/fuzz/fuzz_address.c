/* fuzz_address.c: the command line's address parsing: [HOST:]PORT endpoints (--tcp, --http,
   --ws ...), --connect URLs and --connect-header values. The input is split at its first
   newline: the first part is parsed as an endpoint and a URL, the rest as a header. Properties:
   no crash; an error leaves a message. */
#include <string.h>

#include "cli.h"
#include "fuzz_sim.h"
#include "ws.h"

int fuzz_sim_address(const uint8_t *data, size_t size)
{
    char *text = fuzz_sim_text(data, size);
    char *rest = strchr(text, '\n');
    if (rest) *rest++ = 0;
    char err[256];
    host_endpoint_t ep;
    memset(&ep, 0, sizeof ep);
    err[0] = 0;
    if (host_endpoint_parse(text, &ep, err, sizeof err) != 0)
        FUZZ_SIM_CHECK(err[0] != 0, "an endpoint refused without a message");
    host_ws_url_t url;
    err[0] = 0;
    if (host_ws_url_parse(text, &url, err, sizeof err) != 0)
        FUZZ_SIM_CHECK(err[0] != 0, "a URL refused without a message");
    if (rest) {
        err[0] = 0;
        if (host_ws_header_check(rest, err, sizeof err) != 0)
            FUZZ_SIM_CHECK(err[0] != 0, "a header refused without a message");
    }
    free(text);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_address(data, size);
}
#endif
