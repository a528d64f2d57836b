/* json_writer.c: the streaming JSON writer: commas, nesting, escaping and numbers, no printf. */
#include <string.h>

#include "fw_internal.h"

/*
 * Levels: level 0 is the top of the document (it takes exactly one value), level d >= 1 is the
 * d-th open container. Bit d of first_mask says level d has no element yet, bit d of obj_mask
 * that it is an object. A sink whose write is NULL discards the bytes (total still counts them).
 */
_Static_assert(FW_JW_DEPTH_MAX >= 1 && FW_JW_DEPTH_MAX <= 31, "depth bits must fit uint32_t");
_Static_assert(FW_JW_DEPTH_MAX < sizeof(fw_jw_mask_t) * 8, "depth bits must fit fw_jw_mask_t");
_Static_assert(FW_JW_BUF_SIZE >= 1, "the writer needs a buffer");

/* Longest number text: sign, 20 integer digits, point, 14 fraction digits, "e-308". */
#define NUM_MAX 48

static void set_err(fw_jw_t *w, fw_err_t err)
{
    if (w->err == FW_OK) {
        w->err = err;
    }
}

static void flush_buf(fw_jw_t *w)
{
    if (w->used > 0 && w->sink.write != NULL) {
        w->sink.write(w->sink.ctx, w->buf, w->used);
    }
    w->used = 0;
}

/* Appends bytes (in flash or RAM: fw_rom_copy), handing the buffer to the sink each time it
   fills (so used < sizeof buf between calls). A run that fits the room left is one copy. */
static void put(fw_jw_t *w, const char *s, size_t n)
{
    w->total += n;
#if FW_SPEED_PATHS
    if (n < sizeof w->buf - w->used) {
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
        fw_copy_short(w->buf + w->used, s, n);
#else
        fw_rom_copy(w->buf + w->used, s, n);
#endif
        w->used += n;
        return;
    }
#endif
    while (n > 0) {
        size_t room = sizeof w->buf - w->used;
        size_t k = n < room ? n : room;
        fw_rom_copy(w->buf + w->used, s, k);
        w->used += k;
        s += k;
        n -= k;
        if (w->used == sizeof w->buf) {
            flush_buf(w);
        }
    }
}

/* inline where speed is asked for (FW_SPEED_PATHS), a call where flash is scarcest */
#if FW_SPEED_PATHS
#define PUT_CH_INLINE inline
#else
#define PUT_CH_INLINE
#endif
static PUT_CH_INLINE void put_ch(fw_jw_t *w, char c)
{
#if FW_SPEED_PATHS
    w->total++;
    w->buf[w->used++] = c;
    if (w->used == sizeof w->buf) {
        flush_buf(w);
    }
#else
    put(w, &c, 1);
#endif
}

/* Whether byte c needs an escape inside a JSON string. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* Level 2 escapes a string's contents straight into the buffer (put_escaped below). */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT && FW_JW_BUF_SIZE >= 64 && defined(__BYTE_ORDER__) &&     \
    defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ESCAPE_IN_BUFFER 1
#else
#define ESCAPE_IN_BUFFER 0
#endif

#if !ESCAPE_IN_BUFFER
static void put_escape(fw_jw_t *w, unsigned char c);
#endif

#if FW_SPEED_PATHS == 1
/* A NUL-terminated text (a key: short) escaped and quoted, followed by suffix (0: none), in one
   pass that copies byte by byte into the buffer: no length scan, no copy call per piece. */
static void put_quoted_cstr(fw_jw_t *w, const char *s, char suffix)
{
    put_ch(w, '"');
    for (unsigned char c; (c = fw_rd8(s)) != 0; s++) {
        if (needs_escape(c)) {
            put_escape(w, c);
        } else {
            put_ch(w, (char)c);
        }
    }
    put_ch(w, '"');
    if (suffix != 0) {
        put_ch(w, suffix);
    }
}
#endif

#if !ESCAPE_IN_BUFFER
/* The escape of byte c (< 0x20, '"' or '\\'), RFC 8259 section 7. */
static void put_escape(fw_jw_t *w, unsigned char c)
{
    static const char hex[] FW_ROM_STR = "0123456789abcdef";
    char e[6] = {'\\', 'u', '0', '0', (char)fw_rd8(&hex[c >> 4]), (char)fw_rd8(&hex[c & 0xf])};
    switch (c) {
    case '"':
        put(w, FW_S("\\\""), 2);
        return;
    case '\\':
        put(w, FW_S("\\\\"), 2);
        return;
    case '\n':
        put(w, FW_S("\\n"), 2);
        return;
    case '\r':
        put(w, FW_S("\\r"), 2);
        return;
    case '\t':
        put(w, FW_S("\\t"), 2);
        return;
    case '\b':
        put(w, FW_S("\\b"), 2);
        return;
    case '\f':
        put(w, FW_S("\\f"), 2);
        return;
    default:
        put(w, e, sizeof e);
        return;
    }
}
#endif

/* Bytes of s[0..n) before the first that needs an escape (n when none). In RAM a word at a
   time: a byte below 0x20 borrows in v - 0x20 per byte, a quote or backslash is a zero byte of
   v ^ its repeated code (the first flagged byte is exact; the word is then searched bytewise). */
#if FW_SPEED_PATHS && !FW_ROM_SPLIT
/* The top bit of each byte of word v that needs an escape, exact up to the first (plain_run's
   and put_escaped's word test). */
static inline size_t escape_bytes(size_t v)
{
    const size_t ones = (size_t)-1 / 0xFFu;
    size_t q = v ^ (ones * (size_t)'"');
    size_t b = v ^ (ones * (size_t)'\\');
    return (((v - ones * 0x20u) & ~v) | ((q - ones) & ~q) | ((b - ones) & ~b)) & (ones << 7);
}
#endif

static size_t plain_run(const char *s, size_t n)
{
    size_t i = 0;
#if FW_SPEED_PATHS && !FW_ROM_SPLIT
    for (; i + sizeof(size_t) <= n; i += sizeof(size_t)) {
        size_t v;
        memcpy(&v, s + i, sizeof v);
        if (escape_bytes(v) != 0) {
            break;
        }
    }
#endif
    while (i < n && !needs_escape(fw_rd8(s + i))) {
        i++;
    }
    return i;
}

#if ESCAPE_IN_BUFFER
/* The second byte of the escape of c below 0x60 ('u': \u00XX; 0: c is plain). */
static const char escape_second[0x60] = {
    ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r', ['"'] = '"', ['\\'] = '\\',
    [0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u', [0x06] = 'u',
    [0x07] = 'u', [0x0B] = 'u', [0x0E] = 'u', [0x0F] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u',
    [0x13] = 'u', [0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u', [0x19] = 'u',
    [0x1A] = 'u', [0x1B] = 'u', [0x1C] = 'u', [0x1D] = 'u', [0x1E] = 'u', [0x1F] = 'u',
};

/* Counts the bytes stored straight into the buffer up to d. */
static inline void stored_to(fw_jw_t *w, char *d)
{
    w->total += (size_t)(d - w->buf) - w->used;
    w->used = (size_t)(d - w->buf);
}

/*
 * String contents without quotes, escaped straight into the buffer (level 2): the run before
 * the first byte to escape is put as it is; from there eight bytes at a time are stored as
 * they are, and where one of them needs an escape (found as plain_run finds it) only the bytes
 * before it count, the escape following them. Within 16 bytes of the buffer's end a unit
 * (eight plain bytes, or up to seven and an escape) is made aside and put, so the buffer
 * still fills exactly and goes to the sink where the general path sends it. A
 * quoted text in a text (a tool's JSON result in its content) costs a few instructions a byte,
 * not a call per quote.
 */
static void put_escaped(fw_jw_t *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = plain_run(s, n);
    put(w, s, run); /* a text with nothing to escape is one copy, as before */
    if (run == n) return;
    s += run;
    n -= run;
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *const end = p + n;
    char *d = w->buf + w->used;
    char *const lim = w->buf + sizeof w->buf - 16;
    char aside[16];
    while (p < end) {
        char *o = d < lim ? d : aside;
        size_t u; /* bytes of the unit */
        size_t k = 0; /* plain bytes before the one to escape */
        if ((size_t)(end - p) >= sizeof(size_t)) {
            size_t v;
            memcpy(&v, p, sizeof v);
            memcpy(o, &v, sizeof v); /* (bytes past the plain ones are written over) */
            size_t m = escape_bytes(v);
            if (m == 0) {
                p += sizeof v;
                u = sizeof v;
                goto unit_made;
            }
            k = (size_t)__builtin_ctzll((unsigned long long)m) / 8u;
        } else {
            while (p + k < end && !needs_escape(p[k])) {
                o[k] = (char)p[k];
                k++;
            }
            if (p + k == end) {
                p += k;
                u = k;
                goto unit_made;
            }
        }
        p += k;
        unsigned c = *p++;
        o[k] = '\\';
        o[k + 1] = escape_second[c];
        u = k + 2;
        if (o[k + 1] == 'u') {
            o[k + 2] = '0';
            o[k + 3] = '0';
            o[k + 4] = hex[c >> 4];
            o[k + 5] = hex[c & 15u];
            u = k + 6;
        }
    unit_made:
        if (o == d) {
            d += u;
            continue;
        }
        stored_to(w, d); /* what went straight in so far */
        put(w, aside, u);
        d = w->buf + w->used;
    }
    stored_to(w, d);
}

/* Exact byte masks of word v (the top bit of each byte that is so, and of no other: no borrow
   or carry runs between bytes, as it may in escape_bytes after the first): bytes below 0x20,
   and quotes or backslashes. */
static inline size_t control_bytes(size_t v)
{
    const size_t ones = (size_t)-1 / 0xFFu;
    return ~(((v & ones * 0x7Fu) + ones * 0x60u) | v) & (ones << 7);
}

static inline size_t quote_bytes(size_t v)
{
    const size_t ones = (size_t)-1 / 0xFFu, low7 = ones * 0x7Fu;
    size_t q = v ^ (ones * (size_t)'"'), b = v ^ (ones * (size_t)'\\');
    return ~(((q & low7) + low7) | q | low7) | ~(((b & low7) + low7) | b | low7);
}

/*
 * put_escaped's output for a JSON text (fw_jw_str_json): its quotes come every few bytes, where
 * put_escaped's word scan would end a unit at each. A word at a time while its escapes fit the
 * room with a word to spare (twice its bytes, stored as words whose bytes past the end are
 * written over): the word is stored, and at each quote or backslash the word's rest is stored
 * again after the backslash put before it. A word with a control byte (none in a text a
 * writer made) and the last bytes go byte by byte; a control byte, and each byte within 2 of
 * the buffer's end, go to put_escaped, so the buffer fills exactly where it sends it.
 */
static void put_escaped_bytes(fw_jw_t *w, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *const end = p + n;
    while (p < end) {
        char *d = w->buf + w->used, *const lim = w->buf + sizeof w->buf - 2;
        size_t v;
        for (; end - p >= (ptrdiff_t)sizeof v && lim - d >= (ptrdiff_t)(3 * sizeof v - 2);
             p += sizeof v) {
            memcpy(&v, p, sizeof v);
            if (control_bytes(v) != 0) break;
            size_t m = quote_bytes(v);
            if (m == 0) {
                memcpy(d, &v, sizeof v);
                d += sizeof v;
                continue;
            }
            /* the word and a word of zeros: its rest from any byte is one load */
            unsigned char word[2 * sizeof v] = {0};
            memcpy(word, &v, sizeof v);
            size_t at = 0; /* bytes of the word stored */
            for (; m != 0; m &= m - 1) {
                size_t k = (size_t)__builtin_ctzll((unsigned long long)m) / 8u;
                memcpy(d, word + at, sizeof v);
                d += k - at;
                d[0] = '\\';
                d[1] = (char)word[k];
                d += 2;
                at = k + 1u;
            }
            memcpy(d, word + at, sizeof v);
            d += sizeof v - at;
        }
        for (; p < end && d < lim; p++) {
            unsigned c = *p;
            if (c <= '\\') { /* (above it no byte needs a test: most are letters) */
                if (c < 0x20) break;
                if (c == '"' || c == '\\') *d++ = '\\';
            }
            *d++ = (char)c;
        }
        stored_to(w, d);
        if (p < end) put_escaped(w, (const char *)p++, 1);
    }
}

#else
/* String contents without quotes; bytes >= 0x80 pass through (the caller gives UTF-8). Each
   plain run is found, then copied in one piece. */
static void put_escaped(fw_jw_t *w, const char *s, size_t n)
{
    for (;;) {
        size_t k = plain_run(s, n);
        put(w, s, k);
        if (k == n) {
            return;
        }
        put_escape(w, fw_rd8(s + k));
        s += k + 1;
        n -= k + 1;
    }
}
#endif

/* "s" (escaped) followed by suffix (0: none). Where speed is asked for, a text with nothing to
   escape that fits the buffer's room is one copy between its quotes, the writer's members
   updated once (a byte at a time through w would reload them after every store). */
static void put_quoted(fw_jw_t *w, const char *s, size_t n, char suffix)
{
#if FW_SPEED_PATHS >= 2
    size_t need = n + 3u; /* quotes and suffix (written even when 0: the room is there) */
    if (n <= 16u && need < sizeof w->buf - w->used) { /* short: checked as it is copied */
        char *p = w->buf + w->used;
        size_t i = 0;
        for (; i < n; i++) {
            unsigned char c = fw_rd8(s + i);
            if (needs_escape(c)) break;
            p[i + 1] = (char)c;
        }
        if (i == n) {
            p[0] = '"';
            p[n + 1] = '"';
            p[n + 2] = suffix;
            need -= suffix == 0;
            w->used += need;
            w->total += need;
            return;
        }
    } else if (need < sizeof w->buf - w->used && plain_run(s, n) == n) {
        char *p = w->buf + w->used;
        p[0] = '"';
        fw_rom_copy(p + 1, s, n);
        p[n + 1] = '"';
        p[n + 2] = suffix;
        need -= suffix == 0;
        w->used += need;
        w->total += need;
        return;
    }
#endif
    put_ch(w, '"');
    put_escaped(w, s, n);
    put_ch(w, '"');
    if (suffix != 0) {
        put_ch(w, suffix);
    }
}

static bool misuse(fw_jw_t *w)
{
    set_err(w, FW_ERR_ARG);
    return false;
}

static bool in_object(const fw_jw_t *w)
{
    return (w->obj_mask >> w->depth) & 1u;
}

/* The structure checks run for every value and key: inlined into their callers where the build
   has flash to spare (FW_SPEED_PATHS 2). */
#if FW_SPEED_PATHS >= 2
#define HOT_INLINE inline __attribute__((always_inline))
#else
#define HOT_INLINE
#endif

/* Writes the separator a new element at the current level needs; false when none may come. */
static HOT_INLINE bool next_element(fw_jw_t *w)
{
    fw_jw_mask_t bit = (fw_jw_mask_t)(1u << w->depth);
    if (!(w->first_mask & bit)) {
        if (w->depth == 0) {
            return misuse(w); /* a document holds one value */
        }
        put_ch(w, ',');
    }
    w->first_mask &= (fw_jw_mask_t)~bit;
    return true;
}

/* Checks that a value may come here and writes what precedes it. */
static HOT_INLINE bool begin_value(fw_jw_t *w)
{
    if (w->in_str) {
        return misuse(w);
    }
    if (in_object(w)) {
        if (!w->want_value) {
            return misuse(w); /* a key is due */
        }
        w->want_value = false;
        return true;
    }
    return next_element(w);
}

static void open_container(fw_jw_t *w, bool object)
{
    if (w->depth >= FW_JW_DEPTH_MAX) {
        set_err(w, FW_ERR_NO_SPACE);
        return;
    }
    if (!begin_value(w)) {
        return;
    }
    w->depth++;
    fw_jw_mask_t bit = (fw_jw_mask_t)(1u << w->depth);
    w->first_mask |= bit;
    w->obj_mask = (fw_jw_mask_t)(object ? (w->obj_mask | bit) : (w->obj_mask & ~bit));
    put_ch(w, object ? '{' : '[');
}

static void close_container(fw_jw_t *w, bool object)
{
    if (w->in_str || w->depth == 0 || in_object(w) != object || w->want_value) {
        misuse(w);
        return;
    }
    w->depth--;
    put_ch(w, object ? '}' : ']');
}

/* Every member but the buffer, whose bytes are never read before they are written. */
void fw_jw_init(fw_jw_t *w, fw_sink_t sink)
{
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
    fw_jw_init_at_(w, sink);
#else
    w->sink = sink;
    memset(&w->used, 0, sizeof *w - offsetof(fw_jw_t, used));
    w->first_mask = 1u;
    w->err = FW_OK;
#endif
}

void fw_jw_obj_begin(fw_jw_t *w)
{
    open_container(w, true);
}

void fw_jw_obj_end(fw_jw_t *w)
{
    close_container(w, true);
}

void fw_jw_arr_begin(fw_jw_t *w)
{
    open_container(w, false);
}

void fw_jw_arr_end(fw_jw_t *w)
{
    close_container(w, false);
}

void(fw_jw_key)(fw_jw_t *w, const char *key)
{
    if (key == NULL || w->in_str || !in_object(w) || w->want_value) {
        misuse(w);
        return;
    }
    next_element(w);
    w->want_value = true;
#if FW_SPEED_PATHS >= 2
    /* A key without escapes that fits the room: copied as its end is found, one pass. */
    if (sizeof w->buf - w->used > 3u) {
        char *start = w->buf + w->used, *p = start + 1, *end = w->buf + sizeof w->buf - 3;
        const char *k = key;
        for (; p < end; p++, k++) {
            unsigned char c = fw_rd8(k);
            /* most key bytes are lowercase letters, above every byte that needs a test (the
               NUL that ends the key among them) */
            if (c <= '\\' && needs_escape(c)) break;
            *p = (char)c;
        }
        if (fw_rd8(k) == 0) {
            start[0] = '"';
            p[0] = '"';
            p[1] = ':';
            size_t n = (size_t)(p + 2 - start);
            w->used += n;
            w->total += n;
            return;
        }
    }
    put_quoted(w, key, fw_strlen(key), ':');
#elif FW_SPEED_PATHS
    put_quoted_cstr(w, key, ':');
#else
    put_quoted(w, key, fw_strlen(key), ':');
#endif
}

void fw_jw_key_raw(fw_jw_t *w, const char *text, size_t n)
{
    if (w->in_str || !in_object(w) || w->want_value) {
        misuse(w);
        return;
    }
    next_element(w);
    put(w, text, n);
    w->want_value = true;
}

void fw_jw_obj_begin_raw(fw_jw_t *w, const char *text, size_t n)
{
    uint8_t depth = w->depth;
    open_container(w, true);
    if (w->depth == depth) {
        return; /* refused (misuse or too deep) */
    }
    put(w, text, n);
    w->first_mask &= (fw_jw_mask_t) ~(1u << w->depth);
    w->want_value = true;
}

/* s may be NULL when n is 0. */
void fw_jw_strn(fw_jw_t *w, const char *s, size_t n)
{
    if (s == NULL) {
        if (n > 0) {
            misuse(w);
            return;
        }
        s = "";
    }
    if (begin_value(w)) {
        put_quoted(w, s, n, 0);
    }
}

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
void fw_jw_str_json(fw_jw_t *w, const char *json, size_t n)
{
#if ESCAPE_IN_BUFFER
    if (json == NULL || n == 0) { /* (not a JSON text: as fw_jw_strn has it) */
        fw_jw_strn(w, json, n);
        return;
    }
    if (begin_value(w)) {
        put_ch(w, '"');
        put_escaped_bytes(w, json, n);
        put_ch(w, '"');
    }
#else
    fw_jw_strn(w, json, n);
#endif
}
#endif

void fw_jw_str(fw_jw_t *w, const char *s)
{
    if (s == NULL) {
        misuse(w);
        return;
    }
    fw_jw_strn(w, s, fw_strlen(s));
}

void fw_jw_str_begin(fw_jw_t *w)
{
    if (begin_value(w)) {
        put_ch(w, '"');
        w->in_str = true;
    }
}

void fw_jw_str_chunk(fw_jw_t *w, const char *s, size_t n)
{
    if (!w->in_str || (s == NULL && n > 0)) {
        misuse(w);
        return;
    }
    if (n > 0) {
        put_escaped(w, s, n);
    }
}

void fw_jw_str_end(fw_jw_t *w)
{
    if (!w->in_str) {
        misuse(w);
        return;
    }
    put_ch(w, '"');
    w->in_str = false;
}

static void string_sink_write(void *ctx, const char *data, size_t len)
{
    fw_jw_str_chunk(ctx, data, len);
}

fw_sink_t fw_jw_string_sink(fw_jw_t *w)
{
    fw_sink_t s = {string_sink_write, w};
    return s;
}

/* ---------------------------------------------------------------- numbers */

/* 8- and 16-bit parts print digits by bytes (u64_digits); the rest divide by 10 like this. */
#define DIGITS_BY_BYTES (UINTPTR_MAX <= 0xffffu)

#if FW_WITH_FLOAT || !DIGITS_BY_BYTES
/*
 * v / 10 with *rem = v % 10, by shifts and adds (Hacker's Delight's divu10 carried to 64 bits):
 * the estimate is floor(v / 10) or one less, fixed by one correction step (checked against the
 * division over 2*10^8 values). A 64-bit division would link libgcc's __udivmoddi4, 700 bytes
 * of flash on a Cortex-M3 and more on an AVR, for nothing but printing numbers.
 */
static uint64_t divu10(uint64_t v, unsigned *rem)
{
    uint64_t q = (v >> 1) + (v >> 2);
    q += q >> 4;
    q += q >> 8;
    q += q >> 16;
    q += q >> 32;
    q >>= 3;
    uint64_t r = v - ((q << 3) + (q << 1));
    if (r > 9u) {
        q++;
        r -= 10u;
    }
    *rem = (unsigned)r;
    return q;
}
#endif

/*
 * Decimal digits of v written backwards ending at end; returns the first digit. On an 8- or
 * 16-bit part each digit is the remainder of a long division of v's eight bytes by 10, most
 * significant byte first: every step divides a number below 2560, so no 64-bit arithmetic is
 * linked (libgcc's 64-bit shifts and adds of divu10 cost 600 bytes of flash on an AVR).
 */
static char *u64_digits(char *end, uint64_t v)
{
#if DIGITS_BY_BYTES
    uint8_t b[8];
    for (unsigned i = 8; i-- > 0;) {
        b[i] = (uint8_t)v;
        v >>= 8;
    }
    bool more;
    do {
        unsigned rem = 0;
        more = false;
        for (unsigned i = 0; i < 8; i++) {
            unsigned x = (rem << 8) | b[i];
            b[i] = (uint8_t)(x / 10u);
            rem = x % 10u;
            more |= b[i] != 0;
        }
        *--end = (char)('0' + rem);
    } while (more);
#else
#if FW_SPEED_PATHS >= 2
    if (v <= UINT32_MAX) { /* ids, pins, codes: a 32-bit division by 10 is a multiply */
        uint32_t x = (uint32_t)v;
        do {
            *--end = (char)('0' + x % 10u);
            x /= 10u;
        } while (x != 0);
        return end;
    }
#endif
    do {
        unsigned digit;
        v = divu10(v, &digit);
        *--end = (char)('0' + digit);
    } while (v != 0);
#endif
    return end;
}

#if FW_WITH_FLOAT
/* Appends the digits of v at p; returns the new end. */
static char *append_u64(char *p, uint64_t v)
{
    char tmp[20];
    char *first = u64_digits(tmp + sizeof tmp, v);
    size_t n = (size_t)(tmp + sizeof tmp - first);
    memcpy(p, first, n);
    return p + n;
}
#endif

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* "00" to "99": numbers are printed two digits at a time (here and inline in fw_json.h). */
const char fw_jw_digit_pairs_[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";
#endif

size_t fw_i64_text(char out[21], int64_t v)
{
    char tmp[20];
    uint64_t mag = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
#if FW_SPEED_PATHS >= 2
    if (mag <= UINT32_MAX) { /* ids, pins, codes: digits counted, then written in place */
        uint32_t x = (uint32_t)mag;
        size_t sign = v < 0 ? 1u : 0u;
        size_t digits = x < 10u           ? 1u
                        : x < 100u        ? 2u
                        : x < 1000u       ? 3u
                        : x < 10000u      ? 4u
                        : x < 100000u     ? 5u
                        : x < 1000000u    ? 6u
                        : x < 10000000u   ? 7u
                        : x < 100000000u  ? 8u
                        : x < 1000000000u ? 9u
                                          : 10u;
        char *e = out + sign + digits;
        out[0] = '-';
        *e = '\0';
#if !FW_ROM_SPLIT
        /* two digits per division, copied from fw_jw_digit_pairs_ */
        for (; x >= 100u; x /= 100u) {
            e -= 2;
            memcpy(e, fw_jw_digit_pairs_ + 2u * (x % 100u), 2);
        }
        if (x >= 10u) {
            memcpy(e - 2, fw_jw_digit_pairs_ + 2u * x, 2);
        } else {
            e[-1] = (char)('0' + x);
        }
#else
        do {
            *--e = (char)('0' + x % 10u);
            x /= 10u;
        } while (x != 0);
#endif
        return sign + digits;
    }
#endif
    char *first = u64_digits(tmp + sizeof tmp, mag);
    size_t n = (size_t)(tmp + sizeof tmp - first), sign = v < 0 ? 1u : 0u;
    out[0] = '-';
    memcpy(out + sign, first, n);
    out[sign + n] = 0;
    return sign + n;
}

void fw_jw_u64(fw_jw_t *w, uint64_t v)
{
    char tmp[20];
    char *first = u64_digits(tmp + sizeof tmp, v);
    if (begin_value(w)) {
        put(w, first, (size_t)(tmp + sizeof tmp - first));
    }
}

void fw_jw_i64(fw_jw_t *w, int64_t v)
{
    char text[21];
    size_t n = fw_i64_text(text, v);
    if (begin_value(w)) {
        put(w, text, n);
    }
}

#if FW_WITH_FLOAT
/* Fixed notation of a rounded value into p: [-]int[.frac], frac zero-padded to d digits. */
static char *append_fixed(char *p, bool neg, uint64_t ip, uint64_t fp, unsigned d)
{
    if (neg && (ip != 0 || fp != 0)) {
        *p++ = '-'; /* a value that rounds to zero has no sign */
    }
    p = append_u64(p, ip);
    if (d > 0) {
        *p++ = '.';
        for (unsigned k = d; k > 0; k--) {
            unsigned digit;
            fp = divu10(fp, &digit);
            p[k - 1] = (char)('0' + digit);
        }
        p += d;
    }
    return p;
}
#endif

/* Drops trailing fraction zeros (and a bare point) of the number text [start, p). */
static char *trim_fraction(char *start, char *p)
{
    if (memchr(start, '.', (size_t)(p - start)) == NULL) {
        return p;
    }
    while (p[-1] == '0') {
        p--;
    }
    if (p[-1] == '.') {
        p--;
    }
    return p;
}

#if FW_WITH_FLOAT

static const double pow10_exact[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6, 1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14};
#define FRAC_DIGITS_MAX 14u

/* Below this magnitude fixed notation has an exact integer part in a uint64_t. */
#define FIXED_LIMIT 1e19

static bool is_finite(double v)
{
    return v == v && v - v == 0.0; /* false for NaN and +-inf */
}

/*
 * Rounds a (finite, 0 <= a < FIXED_LIMIT) half away from zero to d (<= FRAC_DIGITS_MAX)
 * decimals: *ip gets the integer part, *fp the d fraction digits as an integer.
 * A double seldom holds a decimal half exactly (1.645 is 1.64499999999999990...), so a value
 * within 2^-50 (relative; a few units in the last place) below a half counts as that half: it
 * is the decimal the caller wrote or computed. The split into integer and fraction keeps the
 * scaled fraction exact. The tolerance is capped at a quarter of the last digit: it reaches
 * that only when a has more digits than a double holds (about 16), where the last one is noise.
 */
static void round_fixed(double a, unsigned d, uint64_t *ip, uint64_t *fp)
{
    double scale = pow10_exact[d];
    uint64_t i = (uint64_t)a;
    double frac = (a - (double)i) * scale; /* a - trunc(a) is exact */
    double eps = a * scale * 0x1p-50;
    if (eps > 0.25) {
        eps = 0.25;
    }
    uint64_t f = (uint64_t)(frac + 0.5 + eps);
    if ((double)f >= scale) {
        f = 0;
        i++;
    }
    *ip = i;
    *fp = f;
}

static const double pow10_bin[] = {1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256};

/* m in [1, 10) and e with a = m * 10^e, for finite a > 0; within a few ulp. */
static double normalize(double a, int *e)
{
    *e = 0;
    for (int i = (int)FW_ARRAY_LEN(pow10_bin) - 1; i >= 0; i--) {
        if (a >= pow10_bin[i]) {
            a /= pow10_bin[i];
            *e += 1 << i;
        }
    }
    for (int i = (int)FW_ARRAY_LEN(pow10_bin) - 1; i >= 0; i--) {
        if (a * pow10_bin[i] < 10.0) {
            a *= pow10_bin[i];
            *e -= 1 << i;
        }
    }
    return a;
}

/* Exponent notation with up to 9 significant digits: 1e20, -1.5e-7. a = |v| > 0 finite. */
static char *append_exp(char *p, bool neg, double a)
{
    int e;
    uint64_t ip, fp;
    double m = normalize(a, &e);
    round_fixed(m, 8, &ip, &fp);
    if (ip >= 10) { /* 9.999999999 rounded up */
        ip = 1;
        fp = 0;
        e++;
    }
    char *start = p;
    p = trim_fraction(start, append_fixed(p, neg, ip, fp, 8));
    *p++ = 'e';
    if (e < 0) {
        *p++ = '-';
        e = -e;
    }
    return append_u64(p, (uint64_t)e);
}

/* Digits after the point fw_jw_double uses for a in [1e-5, 1e15): 9 significant fraction
   digits for a < 1, otherwise at most 9 and at most 15 significant digits in all. */
static unsigned double_decimals(double a)
{
    if (a < 1.0) {
        unsigned zeros = 0;
        for (double t = a * 10.0; t < 1.0 && zeros < 5u; t *= 10.0) {
            zeros++;
        }
        return zeros + 9u;
    }
    unsigned int_digits = 1;
    for (double t = 10.0; t <= a && int_digits < 15u; t *= 10.0) {
        int_digits++;
    }
    return int_digits >= 6u ? 15u - int_digits : 9u;
}

/* Number text of v as fw_jw_double writes it; returns the end. v finite. */
static char *append_double(char *p, double v)
{
    bool neg = v < 0;
    double a = neg ? -v : v;
    if (a == 0.0) {
        *p++ = '0';
        return p;
    }
    if (a >= 1e15 || a < 1e-5) {
        return append_exp(p, neg, a);
    }
    unsigned d = double_decimals(a);
    uint64_t ip, fp;
    round_fixed(a, d, &ip, &fp);
    char *start = p;
    return trim_fraction(start, append_fixed(p, neg, ip, fp, d));
}

/*
 * Plain notation for 1e-5 <= |v| < 1e15: up to 9 fraction digits (9 significant ones below 1)
 * and at most 15 significant digits, trailing zeros trimmed: 3, 1.65, 0.0000123456789.
 * Exponent notation with up to 9 significant digits outside that range: 1e20, -1.5e-7.
 * -0 prints as 0, NaN and inf as null.
 */
void fw_jw_double(fw_jw_t *w, double v)
{
    char num[NUM_MAX];
    if (!begin_value(w)) {
        return;
    }
    if (!is_finite(v)) {
        put(w, FW_S("null"), 4);
        return;
    }
    put(w, num, (size_t)(append_double(num, v) - num));
}

/* Magnitudes of FIXED_LIMIT and more (where a uint64_t cannot hold the integer part) are
   written as fw_jw_double writes them, in exponent notation. */
void fw_jw_fixed(fw_jw_t *w, double v, unsigned decimals)
{
    char num[NUM_MAX];
    if (decimals > 9u) {
        misuse(w);
        return;
    }
    if (!begin_value(w)) {
        return;
    }
    if (!is_finite(v)) {
        put(w, FW_S("null"), 4);
        return;
    }
    bool neg = v < 0;
    double a = neg ? -v : v;
    char *end;
    if (a >= FIXED_LIMIT) {
        end = append_exp(num, neg, a);
    } else {
        uint64_t ip, fp;
        round_fixed(a, decimals, &ip, &fp);
        end = append_fixed(num, neg, ip, fp, decimals);
    }
    put(w, num, (size_t)(end - num));
}

#endif

/* The digits of |scaled| with the point set `decimals` digits from the right (zeros padded
   in front as needed): text only, no arithmetic on the value. */
void fw_jw_decimal(fw_jw_t *w, int64_t scaled, unsigned decimals, bool trim)
{
    char num[NUM_MAX], digits[20];
    if (decimals > 9u) {
        misuse(w);
        return;
    }
    if (!begin_value(w)) return;
    uint64_t mag = scaled < 0 ? 0u - (uint64_t)scaled : (uint64_t)scaled;
    char *first = u64_digits(digits + sizeof digits, mag);
    size_t n = (size_t)(digits + sizeof digits - first);
    char *p = num;
    if (mag != 0 && scaled < 0) *p++ = '-';
    if (n > decimals) {
        memcpy(p, first, n - decimals);
        p += n - decimals;
        first += n - decimals;
        n = decimals;
    } else {
        *p++ = '0';
    }
    if (decimals > 0) {
        *p++ = '.';
        for (size_t z = n; z < decimals; z++) *p++ = '0';
        memcpy(p, first, n);
        p += n;
    }
    if (trim) p = trim_fraction(num, p);
    put(w, num, (size_t)(p - num));
}

void fw_jw_hundredths(fw_jw_t *w, int64_t hundredths)
{
    fw_jw_decimal(w, hundredths, 2, false);
}

/* ---------------------------------------------------------------- literals and shorthands */

void fw_jw_bool(fw_jw_t *w, bool v)
{
    if (begin_value(w)) {
        put(w, v ? FW_S("true") : FW_S("false"), v ? 4u : 5u);
    }
}

void fw_jw_null(fw_jw_t *w)
{
    if (begin_value(w)) {
        put(w, FW_S("null"), 4);
    }
}

void fw_jw_raw(fw_jw_t *w, const char *json, size_t n)
{
    if (json == NULL || n == 0) {
        misuse(w);
        return;
    }
    if (begin_value(w)) {
        put(w, json, n);
    }
}

void(fw_jw_kv_str)(fw_jw_t *w, const char *key, const char *s)
{
    (fw_jw_key)(w, key);
    fw_jw_str(w, s);
}

void(fw_jw_kv_i64)(fw_jw_t *w, const char *key, int64_t v)
{
    (fw_jw_key)(w, key);
    fw_jw_i64(w, v);
}

void(fw_jw_kv_bool)(fw_jw_t *w, const char *key, bool v)
{
    (fw_jw_key)(w, key);
    fw_jw_bool(w, v);
}

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* The general paths of FW_JW_KV_* (fw_json.h's inline ones write the usual member). */

/* The separator and member ("\"key\":", n bytes) then value (vn bytes, NULL: none) as one copy
   when they fit the room; false (nothing written) when a key may not come here. */
static HOT_INLINE bool put_member(fw_jw_t *w, const char *member, size_t n, const char *value,
                                  size_t vn)
{
    if (w->in_str || !in_object(w) || w->want_value) return misuse(w);
    fw_jw_mask_t bit = (fw_jw_mask_t)(1u << w->depth);
    size_t comma = (w->first_mask & bit) ? 0u : 1u;
    size_t need = comma + n + vn;
    if (need < sizeof w->buf - w->used) {
        char *p = w->buf + w->used;
        p[0] = ',';
        fw_copy_short(p + comma, member, n);
        fw_copy_short(p + comma + n, value, vn);
        w->first_mask &= (fw_jw_mask_t)~bit;
        w->used += need;
        w->total += need;
        return true;
    }
    next_element(w);
    put(w, member, n);
    if (vn > 0) put(w, value, vn);
    return true;
}

void fw_jw_member_i64(fw_jw_t *w, const char *member, size_t n, int64_t v)
{
    char text[21];
    put_member(w, member, n, text, fw_i64_text(text, v));
}

void fw_jw_member_bool(fw_jw_t *w, const char *member, size_t n, bool v)
{
    put_member(w, member, n, v ? "true" : "false", v ? 4u : 5u);
}

void fw_jw_member_str(fw_jw_t *w, const char *member, size_t n, const char *s)
{
    if (s == NULL) {
        misuse(w);
        return;
    }
    if (put_member(w, member, n, NULL, 0)) put_quoted(w, s, fw_strlen(s), 0);
}
#endif

fw_err_t fw_jw_flush(fw_jw_t *w)
{
    flush_buf(w);
    return w->err;
}
