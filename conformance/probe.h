/* probe.h: the diagnosis of a device that does not answer discovery: probes and an explanation. */
#ifndef CONF_PROBE_H
#define CONF_PROBE_H

#include "target.h"

/*
 * On a byte-stream target, sends get_info as a whole line, in 1-byte and in 8-byte pieces with
 * gaps, with a string id, ended by CR LF, and after a pause (boot noise), and appends to out
 * what arrived for each ("whole line: 3 line(s) (2 before the newline, ...), first: ...") and
 * the best explanation ("the device answers before the newline: it dispatches partial reads",
 * "errors carry id 0"). scale multiplies the waits (--timeout-scale). Nothing on other targets.
 */
void conf_probe_discovery(conf_target_t *t, double scale, conf_buf_t *out);

#endif
