/* discovery.h: learning the device before the scenarios, and the checks generated from it. */
#ifndef CONF_DISCOVERY_H
#define CONF_DISCOVERY_H

#include <stddef.h>

#include "runner.h"
#include "scenario.h"

/*
 * Asks the device get_info and list_tools, keeps both in ctx and offers what they say as
 * variables (documented in scenarios/README.md): info, manifest, device, tools, tool_names,
 * read_only_tools, polled_tools, pins, pin.<type>, pins_of.<type>, pin.sampled, pin.buffer,
 * pin.summary, pin.events, unused_pin, protocol, transport.
 * Returns 0, or -1 with err when the device does not answer.
 */
int conf_discover(conf_run_ctx_t *ctx, char *err, size_t cap);

/* Adds the checks generated for the discovered device (names "generated/..."): the manifest's
   validity, and per tool missing/wrong-typed/out-of-range parameters, calls, notifications;
   unknown methods, garbage, and ids echoed exactly. */
void conf_generate(const conf_run_ctx_t *ctx, conf_library_t *lib);
/* The MCP/U form of those checks (conf_generate rewrites them for an MCP device). */
void conf_generate_mcpu(const conf_run_ctx_t *ctx, conf_library_t *lib);

#endif
