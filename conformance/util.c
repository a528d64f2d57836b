/* util.c: the runner's small helpers: clocks, growing text buffers, files, JSON text. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t conf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double conf_now_msf(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

void conf_sleep_ms(int64_t ms)
{
    if (ms <= 0) return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void *conf_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("conformance: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *conf_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fputs("conformance: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *conf_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("conformance: out of memory\n", stderr);
        abort();
    }
    return q;
}

static void buf_reserve(conf_buf_t *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->p = conf_xrealloc(b->p, cap);
    b->cap = cap;
}

void conf_buf_add(conf_buf_t *b, const char *data, size_t len)
{
    buf_reserve(b, len);
    if (len) memcpy(b->p + b->len, data, len);
    b->len += len;
    b->p[b->len] = 0;
}

void conf_buf_adds(conf_buf_t *b, const char *s)
{
    conf_buf_add(b, s, strlen(s));
}

void conf_buf_vaddf(conf_buf_t *b, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void conf_buf_addf(conf_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conf_buf_vaddf(b, fmt, ap);
    va_end(ap);
}

const char *conf_buf_str(const conf_buf_t *b)
{
    return b->p ? b->p : "";
}

char *conf_buf_take(conf_buf_t *b)
{
    char *s = b->p ? b->p : conf_strdup("");
    b->p = NULL;
    b->len = b->cap = 0;
    return s;
}

void conf_buf_free(conf_buf_t *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

bool conf_word_in(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, " ,");
        if (len == n && strncmp(p, word, n) == 0) return true;
        p += len;
        p += strspn(p, " ,");
    }
    return false;
}

char *conf_strdup(const char *s)
{
    return conf_strndup(s, strlen(s));
}

char *conf_strndup(const char *s, size_t n)
{
    char *p = conf_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *conf_asprintf(const char *fmt, ...)
{
    conf_buf_t b = {0};
    va_list ap;
    va_start(ap, fmt);
    conf_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    return conf_buf_take(&b);
}

char *conf_read_file(const char *path, size_t *len, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    conf_buf_t b = {0};
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) conf_buf_add(&b, chunk, n);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        snprintf(err, cap, "%s: read error", path);
        conf_buf_free(&b);
        return NULL;
    }
    if (len) *len = b.len;
    return conf_buf_take(&b);
}

char *conf_json_text(const json_t *v)
{
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
    return s ? s : conf_strdup(v ? "?" : "(nothing)");
}

char *conf_json_pretty(const json_t *v)
{
    char *s = v ? json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
    return s ? s : conf_strdup(v ? "?" : "(nothing)");
}

const char *conf_json_type_name(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    default:
        return "null";
    }
}

void conf_copy(char *out, size_t cap, const char *s)
{
    if (cap == 0) return;
    size_t n = strlen(s);
    if (n >= cap) n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_valid(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    size_t n = s[0] >= 0xC2 && s[0] <= 0xDF   ? 2
               : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

json_t *conf_json_string_lossy(const char *s)
{
    json_t *v = json_string(s);
    if (v) return v;
    conf_buf_t b = {0};
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_valid(p);
        if (n)
            conf_buf_add(&b, (const char *)p, n);
        else
            conf_buf_adds(&b, "\xef\xbf\xbd");
        p += n ? n : 1;
    }
    v = json_string(conf_buf_str(&b));
    conf_buf_free(&b);
    return v ? v : json_string("?");
}

const char *conf_beside_exe(const char *rel, int mode, char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return NULL;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (!slash || (size_t)(slash - buf) + 1 + strlen(rel) + 1 > cap) return NULL;
    strcpy(slash + 1, rel);
    return access(buf, mode) == 0 ? buf : NULL;
}
