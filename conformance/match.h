/* match.h: matching a received JSON value against a scenario's expected template. */
#ifndef CONF_MATCH_H
#define CONF_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "jpos.h"
#include "util.h"

/*
 * A template matches by subset by default: every member of an expected object must be present
 * and match (extra members are fine), arrays match element by element with equal length, and
 * scalars must be equal (1 equals 1.0). An object with a "$match" member is a matcher instead:
 *   {"$match":"subset","value":T}          the default, spelled out
 *   {"$match":"exact","value":V}           deep equality, no extra members anywhere
 *   {"$match":"type","type":"integer"}     or a list of types; null boolean integer number
 *                                          string array object
 *   {"$match":"regex","pattern":"^a+$"}    POSIX extended regex search in a string
 *   {"$match":"range","min":0,"max":4095}  a number within [min, max]; either may be left out
 *   {"$match":"approximate","value":1.65,"tolerance":0.05}   |actual - value| <= tolerance
 *   {"$match":"length","value":3} / {"$match":"length","min":1,"max":8}
 *                                          characters of a string, items of an array or members
 *                                          of an object
 *   {"$match":"contains","value":T}        an array with an element matching T, or a string
 *                                          containing the string T
 *   {"$match":"absent"}                    (as an object member) the member must not be there
 *   {"$match":"any"}                       any value, but present
 *   {"$match":"all","of":[T1,T2]}          every template matches
 *   {"$match":"one_of","of":[T1,T2]}       at least one template matches
 */

/* True if actual matches expected. Otherwise appends "at PATH: reason" to why (if not NULL),
   where PATH starts with root (e.g. "$"). actual NULL means "missing". */
bool conf_match(const json_t *expected, const json_t *actual, const char *root, conf_buf_t *why);

/* True if v is a matcher object (has a "$match" member). */
bool conf_is_matcher(const json_t *v);

/*
 * Checks the matchers inside a template as a scenario file is loaded: known names, no unknown
 * members, parameters of the right type, regexes that compile. Parameters may be "${...}"
 * strings, checked only once substituted. On error returns false, leaves the offending member's
 * path in p (pushed onto what p held) and a message in err.
 */
bool conf_match_validate(const json_t *tmpl, conf_path_t *p, char *err, size_t cap);

#endif
