/* causes.h: root-cause grouping: failures that share a cause are reported once, with the list
   of the scenarios they affected ("string ids are not echoed ...: 9 scenarios"). */
#ifndef CONF_CAUSES_H
#define CONF_CAUSES_H

#include <stddef.h>

#include <jansson.h>

#include "runner.h"

/*
 * The cause of a failure, in words that do not depend on the scenario: the step label and
 * values that differ from scenario to scenario are dropped, and the usual symptoms of one
 * defect are named alike (a response that came back under another id, a notification that was
 * answered). Written to out.
 */
void conf_cause_of(const conf_result_t *r, char *out, size_t cap);

/*
 * Groups the failed results (CONF_FAIL) of a run by cause, in order of first appearance:
 * [{"cause": "...", "level": "must", "count": N, "scenarios": ["name", ...]}]. The level is the
 * strongest among the group's scenarios (must before extension before should).
 */
json_t *conf_causes_group(const conf_result_t *all, size_t n);

#endif
