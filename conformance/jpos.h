/* jpos.h: JSON paths (scenarios[2].steps[0].sned) and their line:column in the source text. */
#ifndef CONF_JPOS_H
#define CONF_JPOS_H

#include <stdbool.h>
#include <stddef.h>

#define CONF_PATH_MAX 64

/* One step of a path: an object member (key != NULL) or an array element (index). */
typedef struct conf_path_seg {
    const char *key; /* borrowed: must outlive the path's use */
    size_t index;
} conf_path_seg_t;

typedef struct conf_path {
    conf_path_seg_t seg[CONF_PATH_MAX];
    size_t n;
} conf_path_t;

void conf_path_push_key(conf_path_t *p, const char *key);
void conf_path_push_index(conf_path_t *p, size_t index);
void conf_path_pop(conf_path_t *p);
/* "scenarios[2].steps[0].sned" ("" for the root); prefix (may be NULL) is put in front. */
void conf_path_format(const conf_path_t *p, const char *prefix, char *out, size_t cap);

/*
 * Finds the 1-based line and column of what path names in text, a valid JSON text (jansson
 * gives positions only for syntax errors, so the text is scanned again): the member's key when
 * want_key and the path ends in a key, else the value. Returns false when the path is not in the
 * text; line and column then name the deepest part of it that is (the root at worst).
 * Columns count characters (UTF-8 code points), as editors do.
 */
bool conf_jpos_locate(const char *text, size_t len, const conf_path_t *path, bool want_key,
                      int *line, int *col);

/* Line and column of byte offset off in text. */
void conf_jpos_line_col(const char *text, size_t off, int *line, int *col);

#endif
