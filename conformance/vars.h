/* vars.h: scenario variables, "${name.path}" substitution and paths into JSON values. */
#ifndef CONF_VARS_H
#define CONF_VARS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/*
 * Variables live in scopes: a scenario's scope (captures, set, loop variables) sees the run's
 * scope (what discovery found) through parent. Names are [A-Za-z_][A-Za-z0-9_]*.
 */
typedef struct conf_vars {
    json_t *obj;
    const struct conf_vars *parent;
} conf_vars_t;

void conf_vars_init(conf_vars_t *v, const conf_vars_t *parent);
void conf_vars_free(conf_vars_t *v);
/* Sets name in this scope; value is stolen (json_decref'd by the scope). */
void conf_vars_set(conf_vars_t *v, const char *name, json_t *value);

/*
 * A reference is a variable name followed by a path: "pin.adc_input.pin", "tools[0].name".
 * Returns the value (borrowed) or NULL when the variable or a step of its path does not exist.
 */
const json_t *conf_vars_get(const conf_vars_t *v, const char *ref);

/* The value at a path ("result.samples[0].seq"; "" is root itself) inside root, or NULL. */
const json_t *conf_json_at(const json_t *root, const char *path);

/* True if path is well-formed: keys separated by '.', indices as [N]. */
bool conf_path_valid(const char *path);

/*
 * Returns a deep copy of tmpl with every "${ref}" in its strings replaced: a string that is
 * exactly "${ref}" becomes the referenced value itself (any type); "${ref+N}" / "${ref-N}" add
 * an integer to an integer variable; inside longer text the value is written as text (strings
 * as they are, other values as compact JSON). "$${" stands for a literal "${".
 * NULL on error (unknown variable, bad expression) with a message in err.
 */
json_t *conf_vars_subst(const conf_vars_t *v, const json_t *tmpl, char *err, size_t cap);

#endif
