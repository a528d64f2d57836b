/* util.h: the runner's small helpers: clocks, growing text buffers, files, JSON text. */
#ifndef CONF_UTIL_H
#define CONF_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Monotonic time in milliseconds (integer for deadlines, double for measurements). */
int64_t conf_now_ms(void);
double conf_now_msf(void);
void conf_sleep_ms(int64_t ms);

/* A growing NUL-terminated text buffer; a zeroed struct is an empty buffer. Aborts on OOM. */
typedef struct conf_buf {
    char *p;
    size_t len, cap;
} conf_buf_t;

void conf_buf_add(conf_buf_t *b, const char *data, size_t len);
void conf_buf_adds(conf_buf_t *b, const char *s);
void conf_buf_addf(conf_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void conf_buf_vaddf(conf_buf_t *b, const char *fmt, va_list ap);
/* The text so far ("" for an empty buffer); stays owned by b. */
const char *conf_buf_str(const conf_buf_t *b);
/* Hands the text to the caller (malloc'd, never NULL) and empties b. */
char *conf_buf_take(conf_buf_t *b);
void conf_buf_free(conf_buf_t *b);

char *conf_strdup(const char *s);
/* Whether `word` is one of the words of `list` (separated by spaces or commas). */
bool conf_word_in(const char *list, const char *word);
char *conf_strndup(const char *s, size_t n);
char *conf_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *conf_xmalloc(size_t n);
void *conf_xcalloc(size_t n, size_t size);
void *conf_xrealloc(void *p, size_t n);

/* Whole file into memory (NUL-terminated); NULL with a message in err. */
char *conf_read_file(const char *path, size_t *len, char *err, size_t cap);

/* The path `rel` relative to the directory of the running executable (e.g. "mcpsim" beside the
   runner, "../share/mcpsim/scenarios" of an installed one) in buf, when it exists with `mode`
   (access(2): X_OK, R_OK); else NULL. */
const char *conf_beside_exe(const char *rel, int mode, char *buf, size_t cap);

/* Compact JSON text of any value (malloc'd); numbers with up to 15 significant digits. */
char *conf_json_text(const json_t *v);
/* Indented JSON text (malloc'd), for failure reports. */
char *conf_json_pretty(const json_t *v);
/* Name of a JSON type ("object", "integer", ...). */
const char *conf_json_type_name(const json_t *v);

/* A JSON string of s with every byte that is not valid UTF-8 replaced by U+FFFD (device output
   may hold anything); never NULL. */
json_t *conf_json_string_lossy(const char *s);

/* Copies s into out[cap] (always NUL-terminated, cut if needed). */
void conf_copy(char *out, size_t cap, const char *s);

#endif
