/* cfg.h: reading JSON configuration (board files, control-channel params) with errors that name
   the offending value by its JSON path. */
#ifndef SIM_CFG_H
#define SIM_CFG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * A configuration error. `path` is the JSON path of the offending value relative to the object
 * being read ("" = that object itself), e.g. "sampling.buffer_size" or "points[3]"; callers
 * that read nested objects prefix it (sim_cfg_prefix) until it is relative to the document.
 * When the error lies in another file (a CSV waveform), `file` is set and line/column locate it.
 */
typedef struct sim_cfg_err {
    char path[192];
    bool at_key; /* the error is about the member's key (an unknown key), not its value */
    char msg[256];
    char file[256];
    int line, column;
} sim_cfg_err_t;

/* Records an error at path (printf format) and returns false, so readers can `return fail(..)`. */
bool sim_cfg_fail(sim_cfg_err_t *e, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf that may truncate (messages are bounded on purpose). */
void sim_cfg_printf(char *out, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Makes e->path relative to the parent: "pins[1]" + "type" -> "pins[1].type". */
void sim_cfg_prefix(sim_cfg_err_t *e, const char *prefix);

/* Joins a path and a member key or an array index into out. */
void sim_cfg_path_key(char *out, size_t cap, const char *path, const char *key);
void sim_cfg_path_index(char *out, size_t cap, const char *path, size_t index);

/* "a string", "an integer", ... for messages. */
const char *sim_cfg_kind(const json_t *v);

/* Refuses members of obj not in the NULL-terminated list, naming the allowed keys. */
bool sim_cfg_keys(const json_t *obj, const char *const *allowed, sim_cfg_err_t *e);

/* obj must be an object (path names it in the error). */
bool sim_cfg_object(const json_t *obj, const char *path, sim_cfg_err_t *e);

/*
 * Typed members of obj. An absent member gives the default (true), unless required (false with
 * "missing required key"). Integers must be JSON integers; numbers may be either. Ranges are
 * inclusive and named in the error.
 */
bool sim_cfg_int(const json_t *obj, const char *key, bool required, long long def, long long min,
                 long long max, long long *out, sim_cfg_err_t *e);
bool sim_cfg_number(const json_t *obj, const char *key, bool required, double def, double min,
                    double max, double *out, sim_cfg_err_t *e);
bool sim_cfg_bool(const json_t *obj, const char *key, bool def, bool *out, sim_cfg_err_t *e);
bool sim_cfg_string(const json_t *obj, const char *key, bool required, const char *def,
                    const char **out, sim_cfg_err_t *e);
/* A string member that must be one of names (NULL-terminated); *out is its index. def < 0
   makes the member required. */
bool sim_cfg_enum(const json_t *obj, const char *key, const char *const *names, int def, int *out,
                  sim_cfg_err_t *e);

/* A 7-bit I2C address: an integer or a "0x48" string, within 0x08..0x77. */
bool sim_cfg_i2c_addr(const json_t *v, const char *path, int *out, sim_cfg_err_t *e);

/* Bytes given as a hex string ("a0ff..", spaces allowed) or an array of integers 0..255.
   Returns a malloc'd buffer (caller frees) and its length, or NULL with e set. */
unsigned char *sim_cfg_bytes(const json_t *v, const char *path, size_t *len, sim_cfg_err_t *e);

/* Lower-case hex text of n bytes (malloc'd, caller frees). */
char *sim_cfg_hex(const unsigned char *bytes, size_t n);

/* A malloc'd copy of s (NULL gives ""); NULL when out of memory. */
char *sim_cfg_strdup(const char *s);

/* Concatenates dir and a relative path ("dir/rel"); an absolute rel or an empty dir gives rel.
   malloc'd, caller frees. */
char *sim_cfg_join_path(const char *dir, const char *rel);

#endif
