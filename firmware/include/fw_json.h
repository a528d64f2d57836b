/* fw_json.h: the zero-allocation JSON reader (tokenizer) and the streaming JSON writer. */
#ifndef FW_JSON_H
#define FW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_config.h"
#include "fw_err.h"

/* ---------------------------------------------------------------- reader */

typedef enum fw_json_type {
    FW_JSON_NULL = 0,
    FW_JSON_FALSE,
    FW_JSON_TRUE,
    FW_JSON_NUMBER,
    FW_JSON_STRING,
    FW_JSON_ARRAY,
    FW_JSON_OBJECT
} fw_json_type_t;

/* Token flags. */
#define FW_JSON_F_ESCAPED 0x01u  /* string: contains backslash escapes (decode before use) */
#define FW_JSON_F_INTEGER 0x02u  /* number: no fraction and no exponent */
#define FW_JSON_F_NEGATIVE 0x04u /* number: leading minus */

/* Byte offsets into a message: 16 bits when FW_MSG_MAX allows (4 bytes less per token). */
#if FW_MSG_MAX <= 65535u
typedef uint16_t fw_json_off_t;
#else
typedef uint32_t fw_json_off_t;
#endif

/*
 * One token. Tokens are stored in document (pre-order) order. An object's children alternate
 * key (a STRING token) and value. For strings, [start, end) excludes the quotes.
 */
typedef struct fw_json_tok {
    uint8_t type;        /* fw_json_type_t */
    uint8_t flags;       /* FW_JSON_F_* */
    uint16_t count;      /* ARRAY: elements; OBJECT: members (key/value pairs); else 0 */
    uint16_t next;       /* index of the token after this one's whole subtree */
    fw_json_off_t start; /* byte offset of the first byte in the buffer */
    fw_json_off_t end;   /* byte offset one past the last byte */
} fw_json_tok_t;

/* A parsed document: the caller owns buf and toks; both must outlive it. */
typedef struct fw_json_doc {
    const char *buf;
    size_t len;
    fw_json_tok_t *toks;
    uint32_t ntoks; /* capacity of toks */
    uint32_t count; /* tokens used after a successful parse */
    size_t err_pos; /* byte offset where a failed parse stopped */
} fw_json_doc_t;

/*
 * Parses exactly one JSON text (RFC 8259: any value at top level, whitespace around it) from
 * buf[0..len) (buf may be NULL: an empty text). Validates UTF-8, escapes (including surrogate
 * pairs) and number grammar. max_depth bounds nesting (1 = a scalar or a flat array/object).
 * Returns FW_OK, or FW_ERR_JSON_INVALID / FW_ERR_JSON_NOMEM / FW_ERR_JSON_DEPTH with
 * doc->err_pos set.
 */
fw_err_t fw_json_parse(fw_json_doc_t *doc, const char *buf, size_t len, fw_json_tok_t *toks,
                       uint32_t ntoks, unsigned max_depth);

/*
 * The same parse, with the same result, error and error position, for a text the caller has
 * padded: buf[len] is '\0' and the FW_JSON_PAD bytes from buf[len] on may be read (a stream
 * framer's line buffer is kept so). A hosted build (FW_SPEED_PATHS 2) then looks for the text's
 * end at the NUL where a value, a string or a number would go on, instead of comparing its
 * position with len at every step; other builds run fw_json_parse.
 */
#define FW_JSON_PAD 16u
fw_err_t fw_json_parse_padded(fw_json_doc_t *doc, const char *buf, size_t len,
                              fw_json_tok_t *toks, uint32_t ntoks, unsigned max_depth);

/* Value token of member `key` in object token `obj`, or -1 when absent or obj not an object.
   Keys are compared after unescaping; the first occurrence wins. */
int32_t fw_json_obj_get(const fw_json_doc_t *doc, uint32_t obj, const char *key);

/* Token index of element i of array token `arr`, or -1. */
int32_t fw_json_arr_get(const fw_json_doc_t *doc, uint32_t arr, uint32_t i);

/* True when string token `tok` equals the NUL-terminated text s (after unescaping). */
bool fw_json_str_eq(const fw_json_doc_t *doc, uint32_t tok, const char *s);

/*
 * Decodes string token `tok` into out (NUL-terminated, UTF-8). Returns the decoded length, or
 * FW_ERR_NO_SPACE when it needs more than cap-1 bytes, FW_ERR_ARG when tok is not a string.
 */
int32_t fw_json_str_decode(const fw_json_doc_t *doc, uint32_t tok, char *out, size_t cap);

/* Integer value of number token `tok`. FW_ERR_ARG if not an integer literal (fraction or
   exponent), FW_ERR_NO_SPACE if it does not fit int64_t. */
fw_err_t fw_json_get_i64(const fw_json_doc_t *doc, uint32_t tok, int64_t *out);

/* As fw_json_get_i64 for int32_t (FW_ERR_NO_SPACE when it does not fit). */
fw_err_t fw_json_get_i32(const fw_json_doc_t *doc, uint32_t tok, int32_t *out);

#if FW_WITH_FLOAT
/* Value of any number token as a double (correct to within one unit in the last place for
   ordinary magnitudes; huge exponents give +-inf, tiny ones 0). FW_ERR_ARG if not a number. */
fw_err_t fw_json_get_double(const fw_json_doc_t *doc, uint32_t tok, double *out);
#endif

/* ---------------------------------------------------------------- writer */

/* Where written bytes go. write() may be called many times per message; it must accept all. */
typedef struct fw_sink {
    void (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
} fw_sink_t;

/*
 * Streaming writer: commas and nesting are tracked, output is buffered in FW_JW_BUF_SIZE bytes
 * and flushed to the sink, so documents of any size need bounded memory. Misuse (a value where a
 * key is due, unbalanced ends, nesting past FW_JW_DEPTH_MAX) sets err and is otherwise ignored.
 */
/* One bit per nesting level of the writer (the narrowest type that holds FW_JW_DEPTH_MAX + 1:
   an 8-bit part works on it byte by byte). */
#if FW_JW_DEPTH_MAX < 16
typedef uint16_t fw_jw_mask_t;
#else
typedef uint32_t fw_jw_mask_t;
#endif

typedef struct fw_jw {
    fw_sink_t sink;
    char buf[FW_JW_BUF_SIZE];
    size_t used;
    size_t total; /* bytes written so far (flushed + buffered) */
    uint8_t depth;
    fw_jw_mask_t obj_mask;   /* bit d: level d is an object (else array) */
    fw_jw_mask_t first_mask; /* bit d: no element written yet at level d */
    bool want_value;         /* a key was written; its value is due */
    bool in_str;             /* a streamed string (fw_jw_str_begin) is open */
    fw_err_t err;
} fw_jw_t;

void fw_jw_init(fw_jw_t *w, fw_sink_t sink);
void fw_jw_obj_begin(fw_jw_t *w);
void fw_jw_obj_end(fw_jw_t *w);
void fw_jw_arr_begin(fw_jw_t *w);
void fw_jw_arr_end(fw_jw_t *w);
void fw_jw_key(fw_jw_t *w, const char *key);
/* A key given as its JSON text with quotes and colon (`"result":`), written as it stands. */
void fw_jw_key_raw(fw_jw_t *w, const char *text, size_t n);
/* Opens an object whose first members are given as JSON text that ends with a key and its
   colon (`"jsonrpc":"2.0","id":`): the key's value is due next. One copy for a constant head. */
void fw_jw_obj_begin_raw(fw_jw_t *w, const char *text, size_t n);
void fw_jw_str(fw_jw_t *w, const char *s); /* NUL-terminated, escaped as needed */
void fw_jw_strn(fw_jw_t *w, const char *s, size_t n);
/* The same string value as fw_jw_strn, for a text that is JSON (a tool's result as the text of
   its content): where speed is asked for most, escaped for a text whose quotes come every few
   bytes (fw_jw_strn's scan for the next byte to escape would stop at each). */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
void fw_jw_str_json(fw_jw_t *w, const char *json, size_t n);
#else
#define fw_jw_str_json(w, json, n) fw_jw_strn((w), (json), (n))
#endif
void fw_jw_i64(fw_jw_t *w, int64_t v);
void fw_jw_u64(fw_jw_t *w, uint64_t v);
/* scaled / 10^decimals (decimals 0..9) in fixed notation, computed in integers: exactly
   `decimals` fraction digits, or with trim the trailing zeros (and a bare point) dropped
   (fw_jw_decimal(w, 165, 2, false) writes 1.65; (-5000, 4, true) writes -0.5). */
void fw_jw_decimal(fw_jw_t *w, int64_t scaled, unsigned decimals, bool trim);
#if FW_WITH_FLOAT
/* v with exactly `decimals` digits after the point (0..9), rounded half away from zero, no
   printf; NaN/inf are written as null (JSON has no such numbers). */
void fw_jw_fixed(fw_jw_t *w, double v, unsigned decimals);
/* v with up to 9 significant fraction digits, trailing zeros trimmed (e.g. 1.65, 3, -0.5). */
void fw_jw_double(fw_jw_t *w, double v);
#endif
void fw_jw_bool(fw_jw_t *w, bool v);
void fw_jw_null(fw_jw_t *w);
/* A value that is already valid JSON text (e.g. an id echoed byte for byte). */
void fw_jw_raw(fw_jw_t *w, const char *json, size_t n);
/* Shorthands for key + value. */
void fw_jw_kv_str(fw_jw_t *w, const char *key, const char *s);
void fw_jw_kv_i64(fw_jw_t *w, const char *key, int64_t v);
void fw_jw_kv_bool(fw_jw_t *w, const char *key, bool v);
/*
 * FW_JW_KV_I64/BOOL/STR(w, "key", v): the same member as fw_jw_kv_*, for a key that is a string
 * literal with nothing to escape (no '"', '\\' or byte below 0x20: the caller's promise); and
 * FW_JW_KEY(w, "key") the same key as fw_jw_key (its value due next). At
 * FW_SPEED_PATHS 2 (hosted builds) the quoted key and its ':' are pasted at compile time
 * (member is "\"key\":", n its length) and written where the call is, inline: the member text
 * is then constant bytes stored as immediates, with no call, no length and no copy loop. Where
 * that cannot be (a key not allowed here, the room short, a string to escape, a number of more
 * than two digits) fw_jw_member_* writes the member as fw_jw_kv_* would (fw_jw_key_raw the key).
 * Elsewhere these are fw_jw_kv_* and fw_jw_key, so the flash-tight images do not change.
 */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
#include <string.h>

void fw_jw_member_i64(fw_jw_t *w, const char *member, size_t n, int64_t v);
void fw_jw_member_bool(fw_jw_t *w, const char *member, size_t n, bool v);
void fw_jw_member_str(fw_jw_t *w, const char *member, size_t n, const char *s);
/* "00" to "99" in order, two bytes each (json_writer.c). */
extern const char fw_jw_digit_pairs_[201];

#define FW_JW_MEMBER_(key) ("\"" key "\":"), (sizeof("\"" key "\":") - 1u)
#define FW_JW_KEY(w, key) fw_jw_key_at_((w), FW_JW_MEMBER_(key))
#define FW_JW_KV_I64(w, key, v) fw_jw_kv_i64_at_((w), FW_JW_MEMBER_(key), (v))
#define FW_JW_KV_BOOL(w, key, v) fw_jw_kv_bool_at_((w), FW_JW_MEMBER_(key), (v))
#define FW_JW_KV_STR(w, key, s) fw_jw_kv_str_at_((w), FW_JW_MEMBER_(key), (s))

/* Forced inline where the compiler knows how: only at the call is the member text constant. */
#if defined(__GNUC__)
#define FW_JW_INLINE_ static inline __attribute__((always_inline))
#else
#define FW_JW_INLINE_ static inline
#endif

/* fw_jw_init (which is this at this level), inline where a writer is made for every message. */
FW_JW_INLINE_ void fw_jw_init_at_(fw_jw_t *w, fw_sink_t sink)
{
    w->sink = sink;
    memset(&w->used, 0, sizeof *w - offsetof(fw_jw_t, used));
    w->first_mask = 1u;
    w->err = FW_OK;
}

/*
 * Where a key may come and the separator, the member text and vn bytes of value fit the room:
 * writes the first two, counts all three as written and returns where the value goes. NULL,
 * having changed nothing, otherwise. The writer's members are read once, before any byte is
 * stored (a store through a char pointer may alias them, and a read after it would be a load
 * again).
 */
FW_JW_INLINE_ char *fw_jw_member_at_(fw_jw_t *w, const char *member, size_t n, size_t vn)
{
    unsigned depth = w->depth;
    fw_jw_mask_t first = w->first_mask;
    size_t used = w->used;
    if (w->in_str || w->want_value || !((w->obj_mask >> depth) & 1u)) return NULL;
    size_t comma = ((first >> depth) & 1u) ^ 1u;
    size_t need = comma + n + vn;
    if (used + need >= sizeof w->buf) return NULL; /* the sum is the new count too */
    char *p = w->buf + used;
    w->first_mask = (fw_jw_mask_t)(first & ~(1u << depth));
    w->used = used + need;
    p[0] = ','; /* the member's first byte lands on it when no separator is due */
    /* counted after a byte is stored: the compiler then adds the two counts one by one, not
       as a vector (which takes more instructions) */
    w->total += need;
    memcpy(p + comma, member, n);
    return p + comma + n;
}

/* The key where one may come and the room has it (its value is then due), else
   fw_jw_key_raw. */
FW_JW_INLINE_ void fw_jw_key_at_(fw_jw_t *w, const char *member, size_t n)
{
    if (fw_jw_member_at_(w, member, n, 0) != NULL) {
        w->want_value = true;
        return;
    }
    fw_jw_key_raw(w, member, n);
}

/* A value below 100 is its two bytes of fw_jw_digit_pairs_, one below 10 the second byte of
   its pair ("07"): the byte stored after it is not counted, and the room has it (need < room
   leaves at least one byte past the member). */
FW_JW_INLINE_ void fw_jw_kv_i64_at_(fw_jw_t *w, const char *member, size_t n, int64_t v)
{
    if ((uint64_t)v < 100u) {
        size_t x = (size_t)v, one = x < 10u;
        char *p = fw_jw_member_at_(w, member, n, 2u - one);
        if (p != NULL) {
            memcpy(p, fw_jw_digit_pairs_ + 2u * x + one, 2);
            return;
        }
    }
    fw_jw_member_i64(w, member, n, v);
}

/* "true", or "fals" and then an 'e' that only false counts (the room has it, as above). */
FW_JW_INLINE_ void fw_jw_kv_bool_at_(fw_jw_t *w, const char *member, size_t n, bool v)
{
    char *p = fw_jw_member_at_(w, member, n, v ? 4u : 5u);
    if (p == NULL) {
        fw_jw_member_bool(w, member, n, v);
        return;
    }
    memcpy(p, v ? "true" : "fals", 4);
    p[4] = 'e';
}

/*
 * The string is copied as its end is found, in one pass (no strlen first, no second copy),
 * until the first byte that needs a test: the NUL that ends it, or a byte to escape; or until
 * the room's last byte. Unless it ended there, nothing is counted (the bytes stored stay
 * uncounted) and fw_jw_member_str writes the member from its start.
 */
/* Copies s to q up to the first byte that needs a test (the NUL that ends it, a byte to
   escape) or room bytes, whichever comes first; returns how many: s[that] is NUL when s was
   copied whole. */
FW_JW_INLINE_ size_t fw_jw_copy_plain_(char *q, const char *s, size_t room)
{
    size_t i = 0;
    for (;; i++) {
        unsigned char c = (unsigned char)s[i];
        /* above '\\' no byte needs a test (most are lowercase letters) */
        if (c <= '\\' && (c < 0x20u || c == '"' || c == '\\')) break;
        if (i == room) break;
        q[i] = (char)c;
    }
    return i;
}

FW_JW_INLINE_ void fw_jw_kv_str_at_(fw_jw_t *w, const char *member, size_t n, const char *s)
{
    unsigned depth = w->depth;
    fw_jw_mask_t first = w->first_mask;
    size_t used = w->used;
    size_t comma = ((first >> depth) & 1u) ^ 1u;
    /* the member with an empty string fits: then room below does not wrap */
    if (!(w->in_str || w->want_value) && s != NULL && ((w->obj_mask >> depth) & 1u) &&
        used + comma + n + 2u < sizeof w->buf) {
        char *p = w->buf + used, *q = p + comma + n + 1u; /* q: the string's first byte */
        /* string bytes the room takes: its closing quote at buf[size - 2] leaves used < size */
        size_t i = fw_jw_copy_plain_(q, s, (size_t)(w->buf + sizeof w->buf - 2u - q));
        if (s[i] == '\0') {
            size_t need = comma + n + i + 2u;
            w->first_mask = (fw_jw_mask_t)(first & ~(1u << depth));
            w->used = used + need;
            p[0] = ',';
            w->total += need;
            memcpy(p + comma, member, n);
            q[-1] = '"';
            q[i] = '"';
            return;
        }
    }
    fw_jw_member_str(w, member, n, s);
}
#else
#define FW_JW_KEY(w, key) fw_jw_key((w), key)
#define FW_JW_KV_I64(w, key, v) fw_jw_kv_i64((w), key, (v))
#define FW_JW_KV_BOOL(w, key, v) fw_jw_kv_bool((w), key, (v))
#define FW_JW_KV_STR(w, key, s) fw_jw_kv_str((w), key, (s))
#endif
/*
 * A string value written in pieces: begin, any number of chunks (raw bytes, escaped like
 * fw_jw_strn), end. While it is open only chunk, end and flush are allowed.
 * fw_jw_string_sink(w) is a sink whose writes become chunks of w's open string, so a second
 * writer can stream a whole JSON document into one string value of w: begin, init the inner
 * writer on this sink, write and fw_jw_flush it, then end.
 */
void fw_jw_str_begin(fw_jw_t *w);
void fw_jw_str_chunk(fw_jw_t *w, const char *s, size_t n);
void fw_jw_str_end(fw_jw_t *w);
fw_sink_t fw_jw_string_sink(fw_jw_t *w);
/* Hands buffered bytes to the sink. Returns w->err. */
fw_err_t fw_jw_flush(fw_jw_t *w);

/* Where constant data stays in flash (fw_config.h's FW_ROM_SPLIT), a key given as a string
   literal stays there too (and a key or text compared with a JSON string): these macros put it
   there (FW_S) and call the function, which reads keys and values in either space. A key that is
   not a literal is passed to the function itself: (fw_jw_key)(w, key). */
#if FW_ROM_SPLIT
#define fw_json_obj_get(doc, obj, key) (fw_json_obj_get)((doc), (obj), FW_S(key))
#define fw_json_str_eq(doc, tok, s) (fw_json_str_eq)((doc), (tok), FW_S(s))
#define fw_jw_key(w, key) (fw_jw_key)((w), FW_S(key))
#define fw_jw_kv_str(w, key, s) (fw_jw_kv_str)((w), FW_S(key), (s))
#define fw_jw_kv_i64(w, key, v) (fw_jw_kv_i64)((w), FW_S(key), (v))
#define fw_jw_kv_bool(w, key, v) (fw_jw_kv_bool)((w), FW_S(key), (v))
#endif

#endif
