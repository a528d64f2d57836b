/* json_reader.c: the zero-allocation, fully validating RFC 8259 JSON reader and its accessors. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fw_json.h"

#define NO_PARENT UINT16_MAX
/* Most tokens one parse uses: token indexes (next) are 16-bit and NO_PARENT is reserved. So a
   container's count (at most the tokens after it) never overflows its 16 bits either. */
#define TOKS_LIMIT (UINT16_MAX - 1u)
/* Offsets are fw_json_off_t: a message must end below its largest value. */
#define OFF_LIMIT ((uint64_t)(fw_json_off_t)-1)

/* What the innermost open container is: the tokenizer's context, kept in a local. */
#define CTX_TOP 0u
#define CTX_ARRAY 1u
#define CTX_OBJECT 2u

/*
 * Strings are scanned a machine word at a time where the word can be read in one load and its
 * first special byte found by counting trailing zeros (a little-endian target with the speed
 * paths): a word of plain ASCII (no quote, backslash, control byte or byte >= 0x80) is skipped
 * whole; anything else is looked at byte by byte.
 */
#if FW_SPEED_PATHS && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&               \
    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) && (defined(__GNUC__) || defined(__clang__))
#define STR_WORDS 1
typedef unsigned long word_t;
#define ONES ((word_t)-1 / 0xFFu)
/* An unaligned load of a word (or the four bytes of a literal): the builtin, so a freestanding
   build (-fno-builtin) makes it one load too instead of a call to the port's byte-wise memcpy. */
#define LOAD_WORD(dst, src, n) __builtin_memcpy((dst), (src), (n))
/* A byte's top bit is set for a byte < 0x20, '"', '\\' or >= 0x80; a borrow only runs upward
   from a byte that is set, so the lowest one set is exact. */
#define SPECIAL_BYTES(w)                                                                           \
    ((((w)-ONES * 0x20u) | (((w) ^ (ONES * '"')) - ONES) | (((w) ^ (ONES * '\\')) - ONES) | (w)) & \
     (ONES * 0x80u))
#else
#define STR_WORDS 0
#endif

/* The hosted build has a tokenizer of its own, arranged for speed (after fw_json_parse). */
#define FAST_TOKENIZER (FW_SPEED_PATHS >= 2 && STR_WORDS && !FW_ROM_SPLIT)

/* ---------------------------------------------------------------- lexical helpers */

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_ws(uint8_t c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static int hex_value(int c)
{
    if (is_digit(c)) {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* The hex digits (at most 4) at p, their value in *v: 4 is a whole \u escape. */
static unsigned hex4(const uint8_t *p, const uint8_t *end, unsigned *v)
{
    unsigned n = 0;
    *v = 0;
    for (; n < 4 && p + n < end; n++) {
        int d = hex_value(p[n]);
        if (d < 0) {
            break;
        }
        *v = (*v << 4) | (unsigned)d;
    }
    return n;
}

/*
 * The rarer things in a string, with p at the byte: a backslash escape (a \u high surrogate must
 * be followed by an escaped low surrogate, a low surrogate may not stand alone, so decoding
 * always gives UTF-8), a UTF-8 sequence per RFC 3629 (no overlongs, no surrogates, nothing above
 * U+10FFFF), or a control byte (refused). Returns the position after it, or with *bad set the
 * offending byte's (the escape's backslash for a surrogate out of place).
 */
static const uint8_t *string_special(const uint8_t *p, const uint8_t *end, bool *bad)
{
    uint8_t c = *p;
    *bad = true;
    if (c == '\\') {
        const uint8_t *esc = p;
        unsigned cp;
        unsigned n;
        if (++p == end) {
            return p;
        }
        switch (*p) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            *bad = false;
            return p + 1;
        case 'u':
            break;
        default:
            return p;
        }
        p++;
        if ((n = hex4(p, end, &cp)) < 4) {
            return p + n;
        }
        p += 4;
        if (cp >= 0xDC00u && cp <= 0xDFFFu) {
            return esc;
        }
        if (cp >= 0xD800u && cp <= 0xDBFFu) {
            esc = p;
            if (p == end || *p != '\\') {
                return p;
            }
            if (++p == end || *p != 'u') {
                return p;
            }
            p++;
            if ((n = hex4(p, end, &cp)) < 4) {
                return p + n;
            }
            p += 4;
            if (cp < 0xDC00u || cp > 0xDFFFu) {
                return esc;
            }
        }
        *bad = false;
        return p;
    }
    uint8_t lo = 0x80;
    uint8_t hi = 0xBF;
    unsigned n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return p; /* a control byte, a continuation byte, an overlong or too large lead */
    }
    p++;
    for (; n > 0; n--, p++) {
        if (p == end || *p < lo || *p > hi) {
            return p;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    *bad = false;
    return p;
}

/* The fraction and exponent of a number, p at its '.', 'e' or 'E':
   (\.[0-9]+)?([eE][+-]?[0-9]+)?. Returns the end, or with *bad set the offending byte. */
static const uint8_t *number_tail(const uint8_t *p, const uint8_t *end, bool *bad)
{
    *bad = true;
    if (*p == '.') {
        if (++p == end || !is_digit(*p)) {
            return p;
        }
        while (++p != end && is_digit(*p)) {
        }
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
        if (++p != end && (*p == '+' || *p == '-')) {
            p++;
        }
        if (p == end || !is_digit(*p)) {
            return p;
        }
        while (++p != end && is_digit(*p)) {
        }
    }
    *bad = false;
    return p;
}

/* Spellings of the literals, indexed by fw_json_type_t. */
static const char literals[][6] FW_ROM = {"null", "false", "true"};

/* ---------------------------------------------------------------- the tokenizer */

#define OFF(q) ((fw_json_off_t)((q)-s))
/* `closer` at top level: no byte equals it. */
#define CLOSER_TOP 0x100u
/* The closing byte of a container type: ']' (0x5D) for ARRAY (5), '}' (0x7D) for OBJECT (6). */
#define CLOSER_OF(type) (']' | (((unsigned)(type)&2u) << 4))
_Static_assert(FW_JSON_ARRAY == 5 && FW_JSON_OBJECT == 6, "CLOSER_OF's arithmetic");

/*
 * One loop over the bytes with its state in locals (jsmn-style): the labels are the grammar's
 * states (a value due, a key due, the ':' after a key, what follows a complete value) and each
 * dispatches on the byte it stands at, whitespace being one more case of that dispatch; there is
 * no recursion and no call per token. The innermost open container is described by locals too:
 * its index (parent), its closing byte and its count so far.
 *
 * Open containers form a chain through the tokens themselves: while a container is open its
 * `next` field holds the index of its enclosing container (NO_PARENT at top level) and its
 * `count` field the enclosing container's count when it was opened; closing it pops the chain
 * and stores the real `next` and `count`. So the only bound on nesting is max_depth.
 *
 * On failure doc->err_pos is the offending byte (len when the text ends early), the opener of a
 * container past max_depth, or the first byte of a token with no room left in the pool.
 */
#if !FAST_TOKENIZER
fw_err_t fw_json_parse(fw_json_doc_t *doc, const char *buf, size_t len, fw_json_tok_t *toks,
                       uint32_t ntoks, unsigned max_depth)
{
    doc->buf = buf;
    doc->len = len;
    doc->toks = toks;
    doc->ntoks = ntoks;
    doc->count = 0;
    doc->err_pos = 0;
    /* offsets must fit fw_json_off_t (with room for the end) and FW_MSG_MAX; the test is
       left out where size_t cannot exceed them (an AVR's 16-bit size_t) */
#if SIZE_MAX >= 65535u
    if ((uint64_t)len >= OFF_LIMIT || (uint64_t)len >= FW_MSG_MAX) {
        return FW_ERR_JSON_NOMEM;
    }
#endif
    /* an empty text may come as NULL (an empty HTTP body): no arithmetic on a null pointer */
    if (buf == NULL) {
        buf = "";
        len = 0;
    }
    const uint8_t *const s = (const uint8_t *)buf;
    const uint8_t *const end = s + len;
    const uint8_t *p = s;
    const uint16_t cap = toks == NULL ? 0 : (uint16_t)(ntoks > TOKS_LIMIT ? TOKS_LIMIT : ntoks);
    uint16_t used = 0;
    uint16_t parent = NO_PARENT;  /* the innermost open container */
    uint16_t count = 0;           /* its elements (array) or members (object) so far */
    unsigned closer = CLOSER_TOP; /* its closing byte */
    unsigned depth_left = max_depth;
    bool is_key = false;
    bool bad;
    fw_json_tok_t *t;
    uint8_t type;
    uint8_t flags;
    uint8_t c;
    fw_err_t err = FW_ERR_JSON_INVALID;

    if (max_depth == 0) {
        err = FW_ERR_JSON_DEPTH;
        goto fail;
    }

value: /* a value is due */
    if (p == end) {
        goto fail;
    }
    c = *p;
#if FW_SPEED_PATHS
    if (c == '"') { /* the usual value first */
        if (closer == ']') {
            count++;
        }
        goto str_tok;
    }
#endif
    switch (c) {
#if !FW_SPEED_PATHS
    case '"':
        type = FW_JSON_STRING;
        break;
#endif
    case '{':
        type = FW_JSON_OBJECT;
        break;
    case '[':
        type = FW_JSON_ARRAY;
        break;
    case 'n':
        type = FW_JSON_NULL;
        break;
    case 'f':
        type = FW_JSON_FALSE;
        break;
    case 't':
        type = FW_JSON_TRUE;
        break;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        type = FW_JSON_NUMBER;
        break;
    default:
        if (!is_ws(c)) {
            goto fail;
        }
        p++;
        goto value;
    }
    if (type >= FW_JSON_ARRAY && depth_left == 0) {
        err = FW_ERR_JSON_DEPTH;
        goto fail;
    }
    if (closer == ']') {
        count++; /* below used <= TOKS_LIMIT: no overflow */
    }
#if !FW_SPEED_PATHS
new_tok:
#endif
    /* a token of `type` starts at p */
    if (used == cap) {
        err = FW_ERR_JSON_NOMEM;
        goto fail;
    }
    t = &toks[used++];
    t->type = type;
    t->flags = 0;
    t->count = 0;
    t->next = used;
    t->start = OFF(p);
#if !FW_SPEED_PATHS
    if (type == FW_JSON_STRING) {
        goto string;
    }
#endif
    if (type >= FW_JSON_ARRAY) { /* a container opens */
        t->count = count;        /* the enclosing container's, back when this one closes */
        t->next = parent;
        parent = (uint16_t)(used - 1u);
        count = 0;
        depth_left--;
        closer = CLOSER_OF(type);
        for (p++;; p++) { /* the first element or member, or the closer */
            if (p == end) {
                goto fail;
            }
            if (*p == closer) {
                goto close;
            }
            if (!is_ws(*p)) {
                break;
            }
        }
        if (type == FW_JSON_ARRAY) {
            goto value;
        }
        goto key;
    }
    if (type == FW_JSON_NUMBER) {
        flags = FW_JSON_F_INTEGER;
        if (c == '-') {
            flags |= FW_JSON_F_NEGATIVE;
            if (++p == end) {
                goto fail;
            }
            c = *p;
        }
        if (c == '0') {
            p++;
        } else if ((uint8_t)(c - '1') < 9u) {
            while (++p != end && (uint8_t)(*p - '0') < 10u) {
            }
        } else {
            goto fail;
        }
        if (p != end && (*p == '.' || *p == 'e' || *p == 'E')) {
            flags = (uint8_t)(flags & ~FW_JSON_F_INTEGER);
            p = number_tail(p, end, &bad);
            if (bad) {
                goto fail;
            }
        }
        t->flags = flags;
    } else { /* null, false, true */
        const char *lit = literals[type];
#if STR_WORDS && !FW_ROM_SPLIT
        if (end - p >= 4) { /* the first four bytes in one comparison */
            uint32_t w;
            uint32_t l;
            LOAD_WORD(&w, p, sizeof w);
            LOAD_WORD(&l, lit, sizeof l);
            if (w == l) {
                p += 4;
                lit += 4;
            }
        }
#endif
        for (; (c = (uint8_t)fw_rd8(lit)) != '\0'; lit++, p++) {
            if (p == end || *p != c) {
                goto fail;
            }
        }
    }
    t->end = OFF(p);
    goto after;

key: /* a key is due */
    if (p == end) {
        goto fail;
    }
    c = *p;
    if (c == '"') {
        count++;
        is_key = true;
        goto str_tok;
    }
    if (!is_ws(c)) {
        goto fail; /* keys are strings */
    }
    p++;
    goto key;

str_tok: /* a string (a value, or a key when is_key) starts at p */
#if FW_SPEED_PATHS
    /* its own copy of the token's making: no test of the type on the way */
    if (used == cap) {
        err = FW_ERR_JSON_NOMEM;
        goto fail;
    }
    t = &toks[used++];
    t->type = FW_JSON_STRING;
    t->flags = 0;
    t->count = 0;
    t->next = used;
#else
    type = FW_JSON_STRING;
    goto new_tok;
string:
#endif
    t->start = OFF(++p);
    for (;;) {
#if STR_WORDS
        while ((size_t)(end - p) >= sizeof(word_t)) {
            word_t w;
            LOAD_WORD(&w, p, sizeof w);
            word_t m = SPECIAL_BYTES(w);
            if (m != 0) {
                p += (unsigned)__builtin_ctzl(m) / 8u;
                break;
            }
            p += sizeof w;
        }
#endif
        if (p == end) {
            goto fail;
        }
        c = *p;
        if (c == '"') {
            break;
        }
        if ((uint8_t)(c - 0x20u) < 0x60u && c != '\\') {
            p++;
            continue;
        }
        if (c == '\\') {
            t->flags = FW_JSON_F_ESCAPED;
        }
        p = string_special(p, end, &bad);
        if (bad) {
            goto fail;
        }
    }
    t->end = OFF(p);
    p++; /* closing quote */
    if (is_key) {
        is_key = false;
        for (;; p++) { /* the ':' after a key */
            if (p == end) {
                goto fail;
            }
            if (*p == ':') {
                p++;
                goto value;
            }
            if (!is_ws(*p)) {
                goto fail;
            }
        }
    }

after: /* a value is complete: ',' or the closer of the open container, or the end */
    if (p == end) {
        if (closer == CLOSER_TOP) {
            doc->count = used;
            return FW_OK;
        }
        goto fail;
    }
    c = *p;
    if (c == ',' && closer != CLOSER_TOP) {
        p++;
        if (closer == ']') {
            goto value;
        }
        goto key;
    }
    if (c == closer) {
        goto close;
    }
    if (!is_ws(c)) {
        goto fail; /* (at top level: something after the value) */
    }
    p++;
    goto after;

close: /* p at the closer of the innermost open container */
    t = &toks[parent];
    parent = t->next;
    t->next = used;
    t->end = OFF(++p);
    {
        uint16_t outer = t->count;
        t->count = count;
        count = outer;
    }
    depth_left++;
    closer = parent == NO_PARENT ? CLOSER_TOP : CLOSER_OF(toks[parent].type);
    goto after;

fail:
    doc->err_pos = (size_t)(p - s);
    return err;
}

#else /* FAST_TOKENIZER */

/* Branch hints: the compiler lays out the usual case straight and spends its registers there. */
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * The hosted tokenizer scans a string a run of bytes at a time: RUN_BYTES of them in one load,
 * their special bytes (< 0x20, '"', '\\', >= 0x80) as a mask of which the lowest set bit marks
 * the first (run_first). With SSE2 (every x86-64) a run is 16 bytes compared as a vector, the
 * mask one bit per byte: most keys and short values end within one, and the comparison needs
 * no general register for its constants. Elsewhere a run is a word (SPECIAL_BYTES, one bit per
 * byte, its top one).
 */
#if defined(__SSE2__)
typedef char run_char_t __attribute__((vector_size(16))); /* what pmovmskb takes (signed on x86) */
typedef unsigned run_mask_t; /* (16 bits: a 32-bit count of its zeros needs no widening) */
#define RUN_BYTES 16u
#define RUN_BITS 1u /* mask bits per byte */

/* The comparisons' three constants, made once per parse and hidden from the compiler by an
   empty asm: it would otherwise load them again for every run, and turn the comparison with
   0x21 around into another and a negation (one pcmpgtb as written). */
typedef struct run_consts {
    run_char_t two, x21, backslash;
} run_consts_t;
#define RUN_CONSTS(k)                                                                              \
    run_char_t k##_two = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};                         \
    run_char_t k##_x21 = {0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21,                          \
                          0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21, 0x21};                         \
    run_char_t k##_bs = {'\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\',                          \
                         '\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\'};                         \
    __asm__("" : "+x"(k##_two), "+x"(k##_x21), "+x"(k##_bs));                                      \
    const run_consts_t k = {k##_two, k##_x21, k##_bs}

static inline run_mask_t run_mask(const uint8_t *p, const run_consts_t *k)
{
    run_char_t v;
    __builtin_memcpy(&v, p, sizeof v);
    /* As signed bytes, v ^ 2 is below 0x21 for the bytes below 0x20 (it only swaps pairs of
       them), for those >= 0x80 (negative) and for '"' (0x22 -> 0x20), and for no other: one
       comparison for three kinds, then one for '\\'. */
    run_char_t sp = (run_char_t)(k->x21 > (v ^ k->two)) | (run_char_t)(v == k->backslash);
    return (run_mask_t)(unsigned)__builtin_ia32_pmovmskb128(sp);
}
#define run_first(m) ((unsigned)__builtin_ctz(m))
#else
typedef word_t run_mask_t;
#define RUN_BYTES ((unsigned)sizeof(word_t))
#define RUN_BITS 8u

typedef int run_consts_t; /* (none) */
#define RUN_CONSTS(k) const run_consts_t k = 0

static inline run_mask_t run_mask(const uint8_t *p, const run_consts_t *k)
{
    (void)k;
    word_t w;
    LOAD_WORD(&w, p, sizeof w);
    return SPECIAL_BYTES(w);
}
#define run_first(m) ((unsigned)__builtin_ctzl(m) / 8u)
#endif

/* The special bytes of a string from offset i on, as far as one run reaches: the run at i, or
   past rlast (the last offset a run can be read at) the text's last run shifted to begin at i,
   so a string near the end is no slower; 0 when none is within reach (i at the end, or a text
   shorter than a run). */
static inline run_mask_t run_at(const uint8_t *s, size_t i, size_t len, ptrdiff_t rlast,
                                bool padded, const run_consts_t *k)
{
    if (padded || LIKELY((ptrdiff_t)i <= rlast)) {
        return run_mask(s + i, k);
    }
    if (rlast >= 0 && i < len) {
        return run_mask(s + rlast, k) >> ((i - (size_t)rlast) * RUN_BITS);
    }
    return 0;
}

/*
 * The hosted build's tokenizer (FW_SPEED_PATHS 2): the grammar, checks, tokens and error
 * positions of the one above, arranged for fewer instructions per token where flash costs
 * nothing:
 *  - the position is an offset (i), not a pointer, so a token's start and end are stored as
 *    they are; tn points at the token being made, and used counts tokens at full width (no
 *    16-bit register to widen at each use);
 *  - each kind of value has its own path from its first byte to its end, its token's type a
 *    constant (type, flags and count then make one store), and a key has its own copy of the
 *    string's first run;
 *  - each step tries its usual case first, with no loop: a string whose closing quote is in its
 *    first run, the ':' right after a key, a key right after ',' or '{', a literal spelt right;
 *    the loops for the rest (whitespace, longer strings, escapes, UTF-8) come after, out of the
 *    usual case's way;
 *  - a container counts the values it holds, in arrays and objects alike (an object holds one
 *    per member), so counting needs no test of the container's kind;
 *  - a number's next byte is tested only for what would continue it ('.', 'e', 'E').
 * flatten inlines the helpers it calls: with no call left in it, the compiler has every
 * register for the tokenizer's state (a call would take the caller-saved ones).
 */
/* A string token opens with i at its opening quote (a value's and a key's path each have a copy,
   the usual case of each laid out straight): the token's head, i then at its first byte. */
#define STRING_TOKEN_OPEN()                                                                        \
    do {                                                                                           \
        if (UNLIKELY(tn == tcap)) {                                                                \
            goto nomem;                                                                            \
        }                                                                                          \
        tn->type = FW_JSON_STRING;                                                                 \
        tn->flags = 0;                                                                             \
        tn->count = 0;                                                                             \
        tn->next = (uint16_t)++used;                                                               \
        tn->start = (fw_json_off_t)++i;                                                            \
    } while (0)
/* Whether the string's first special byte is within one run and is its closing quote (i then
   at it): the usual short string, no loop. */
#define STRING_ENDS_IN_RUN()                                                                       \
    LIKELY((m = run_at(s, i, len, rlast, padded, &runk)) != 0 && s[i += run_first(m)] == '"')

__attribute__((always_inline)) static inline fw_err_t
tokenize(fw_json_doc_t *doc, const char *buf, size_t len, fw_json_tok_t *toks, uint32_t ntoks,
         unsigned max_depth, const bool padded)
{
    doc->buf = buf;
    doc->len = len;
    doc->toks = toks;
    doc->ntoks = ntoks;
    doc->count = 0;
    doc->err_pos = 0;
    if ((uint64_t)len >= OFF_LIMIT || (uint64_t)len >= FW_MSG_MAX) {
        return FW_ERR_JSON_NOMEM;
    }
    if (buf == NULL) { /* (an empty text, padded) */
        static const char no_text[FW_JSON_PAD] = {0};
        buf = no_text;
        len = 0;
    }
    const uint8_t *const s = (const uint8_t *)buf;
    /* the last offset a whole run of a string's bytes can be read at (negative: none can) */
    const ptrdiff_t rlast = (ptrdiff_t)len - (ptrdiff_t)RUN_BYTES;
    size_t i = 0;
    fw_json_tok_t *tn = toks; /* the token being made, or the next free one */
    fw_json_tok_t *const tcap =
        toks == NULL ? NULL : toks + (ntoks > TOKS_LIMIT ? TOKS_LIMIT : ntoks);
    unsigned used = 0;            /* tokens begun */
    unsigned parent = NO_PARENT;  /* the innermost open container */
    unsigned count = 0;           /* the values it holds so far */
    unsigned closer = CLOSER_TOP; /* its closing byte */
    /* (volatile: one home in memory, read and written only where a container opens or closes;
       as a register the compiler split it between two stack slots and copied it at every key) */
    volatile unsigned depth_left = max_depth;
    bool is_key = false; /* the string in the longer scan is a key */
    fw_json_tok_t *t;
    run_mask_t m;
    uint8_t type;
    size_t n;
    uint8_t c;
    bool bad;
    fw_err_t err = FW_ERR_JSON_INVALID;
    RUN_CONSTS(runk);

    if (max_depth == 0) {
        err = FW_ERR_JSON_DEPTH;
        goto fail;
    }

value: /* a value is due (padded: the NUL at the end is none, and fails there) */
    if (!padded && UNLIKELY(i == len)) {
        goto fail;
    }
    c = s[i];
    if (c == '"') {
        count++;
        STRING_TOKEN_OPEN();
        if (STRING_ENDS_IN_RUN()) {
            goto value_str_end;
        }
        is_key = false;
        goto str_scan;
    value_str_end: /* i at the closing quote */
        tn++->end = (fw_json_off_t)i++;
        goto after;
    }
    if (LIKELY((uint8_t)(c - '0') < 10u)) {
        count++;
        if (UNLIKELY(tn == tcap)) {
            goto nomem;
        }
        tn->type = FW_JSON_NUMBER;
        tn->flags = FW_JSON_F_INTEGER; /* until a fraction or exponent turns up */
        tn->count = 0;
        tn->next = (uint16_t)++used;
        tn->start = (fw_json_off_t)i;
    int_part: /* c, at i, is the first digit of a number's integer part */
        if (c != '0' && padded) {
            while ((uint8_t)(s[++i] - '0') < 10u) { /* (the NUL at the end is no digit) */
            }
        } else if (c != '0') {
            while (++i != len && (uint8_t)(s[i] - '0') < 10u) {
            }
        } else {
            i++;
        }
        /* (',', '}' and whitespace are outside '.'..'e': one test for them) */
        if ((padded || i != len) && (uint8_t)(s[i] - '.') <= 'e' - '.' &&
            (s[i] == '.' || s[i] == 'e' || s[i] == 'E')) {
            tn->flags = (uint8_t)(tn->flags & ~FW_JSON_F_INTEGER);
            i = (size_t)(number_tail(s + i, s + len, &bad) - s);
            if (bad) {
                goto fail;
            }
        }
        tn++->end = (fw_json_off_t)i;
        goto after;
    }
    if (LIKELY(c == '{')) {
        if (UNLIKELY(depth_left == 0)) {
            err = FW_ERR_JSON_DEPTH;
            goto fail;
        }
        count++;
        if (UNLIKELY(tn == tcap)) {
            goto nomem;
        }
        tn->type = FW_JSON_OBJECT;
        tn->flags = 0;
        tn->count = (uint16_t)count; /* the enclosing container's, back when this one closes */
        tn->next = (uint16_t)parent;
        tn->start = (fw_json_off_t)i;
        tn++;
        parent = used++;
        count = 0;
        depth_left--;
        closer = '}';
        if (LIKELY((++i != len || padded) && s[i] == '"')) {
            goto key_str;
        }
        while (i != len && is_ws(s[i])) { /* the first key, or the closer */
            i++;
        }
        if (i == len) {
            goto fail;
        }
        if (s[i] == '"') {
            goto key_str;
        }
        if (s[i] == '}') {
            goto close;
        }
        goto fail;
    }
    /* the literals: n is the length of a right spelling at i (its first byte is c), 0 if not */
    if (c == 't') {
        type = FW_JSON_TRUE;
        n = (padded || len - i >= 4) && __builtin_memcmp(s + i, "true", 4) == 0 ? 4 : 0;
        goto literal;
    }
    if (c == 'f') {
        type = FW_JSON_FALSE;
        n = (padded || len - i >= 5) && __builtin_memcmp(s + i + 1, "alse", 4) == 0 ? 5 : 0;
        goto literal;
    }
    if (c == 'n') {
        type = FW_JSON_NULL;
        n = (padded || len - i >= 4) && __builtin_memcmp(s + i, "null", 4) == 0 ? 4 : 0;
        goto literal;
    }
    if (c == '[') {
        if (UNLIKELY(depth_left == 0)) {
            err = FW_ERR_JSON_DEPTH;
            goto fail;
        }
        count++;
        if (UNLIKELY(tn == tcap)) {
            goto nomem;
        }
        tn->type = FW_JSON_ARRAY;
        tn->flags = 0;
        tn->count = (uint16_t)count;
        tn->next = (uint16_t)parent;
        tn->start = (fw_json_off_t)i;
        tn++;
        parent = used++;
        count = 0;
        depth_left--;
        closer = ']';
        for (i++;; i++) { /* the first element, or the closer */
            if (i == len) {
                goto fail;
            }
            if (s[i] == ']') {
                goto close;
            }
            if (!is_ws(s[i])) {
                goto value;
            }
        }
    }
    if (c == '-') {
        count++;
        if (UNLIKELY(tn == tcap)) {
            goto nomem;
        }
        tn->type = FW_JSON_NUMBER;
        tn->flags = FW_JSON_F_INTEGER | FW_JSON_F_NEGATIVE;
        tn->count = 0;
        tn->next = (uint16_t)++used;
        tn->start = (fw_json_off_t)i;
        if (++i == len) {
            goto fail;
        }
        c = s[i];
        if ((uint8_t)(c - '0') < 10u) {
            goto int_part;
        }
        goto fail;
    }
    if (!is_ws(c)) {
        goto fail;
    }
    i++;
    goto value;

literal: /* i at null, false or true (type), spelt right when n is its length */
    count++;
    if (UNLIKELY(tn == tcap)) {
        goto nomem;
    }
    tn->type = type;
    tn->flags = 0;
    tn->count = 0;
    tn->next = (uint16_t)++used;
    tn->start = (fw_json_off_t)i;
    if (UNLIKELY(n == 0)) { /* the first byte that differs, or the end */
        for (const char *lit = literals[type]; *lit != '\0'; lit++, i++) {
            if (i == len || s[i] != (uint8_t)*lit) {
                goto fail;
            }
        }
    }
    i += n;
    tn++->end = (fw_json_off_t)i;
    goto after;

key: /* a key is due after ',' (its quote did not come at once) */
    while (i != len && is_ws(s[i])) {
        i++;
    }
    if (i == len || s[i] != '"') {
        goto fail; /* keys are strings */
    }
key_str: /* i at a key's opening quote */
    STRING_TOKEN_OPEN();
    if (STRING_ENDS_IN_RUN()) {
        goto key_end;
    }
    is_key = true;
    goto str_scan;
key_end: /* i at the closing quote */
    tn++->end = (fw_json_off_t)i++;
    if (LIKELY((padded || i != len) && s[i] == ':')) {
        i++;
        goto value;
    }
    while (i != len && is_ws(s[i])) { /* the ':' after a key */
        i++;
    }
    if (i == len || s[i] != ':') {
        goto fail;
    }
    i++;
    goto value;

after: /* a value is complete: ',' or the closer of the open container, or the end */
    if (!padded && UNLIKELY(i == len)) {
    end:
        if (closer == CLOSER_TOP) {
            doc->count = used;
            return FW_OK;
        }
        goto fail;
    }
    c = s[i];
    if (c == ',') {
        /* (an object's closer is the only one with 0x20: '}' is 0x7D, ']' 0x5D, the top's
           0x100; tested so, the compiler does not learn it is '}' and store it again on the
           key's path, which the first key after '{' shares) */
        if (LIKELY(closer & 0x20u)) {
            if (LIKELY((++i != len || padded) && s[i] == '"')) {
                goto key_str;
            }
            goto key;
        }
        if (closer == ']') {
            i++;
            goto value;
        }
        goto fail; /* (at top level) */
    }
    if (LIKELY(c == closer)) {
        goto close;
    }
    if (!is_ws(c)) {
        if (padded && i == len) {
            goto end; /* the NUL after the text */
        }
        goto fail; /* (at top level: something after the value) */
    }
    i++;
    goto after;

close: /* i at the closer of the innermost open container */
    /* (through doc's copy of toks: no register is kept for toks) */
    t = &doc->toks[parent];
    parent = t->next;
    t->next = (uint16_t)used;
    t->end = (fw_json_off_t)++i;
    {
        unsigned outer = t->count;
        t->count = (uint16_t)count;
        count = outer;
    }
    depth_left++;
    closer = parent == NO_PARENT ? CLOSER_TOP : CLOSER_OF(doc->toks[parent].type);
    goto after;

str_scan: /* the rest of string tn (a key when is_key) from i, in it */
    for (;;) {
        m = run_at(s, i, len, rlast, padded, &runk);
        if (m != 0) { /* (padded: the NUL at the end is one; string_special fails there) */
            i += run_first(m);
            c = s[i];
        } else if (padded || (ptrdiff_t)i <= rlast) { /* a run of plain bytes */
            i += RUN_BYTES;
            continue;
        } else if (rlast >= 0 || i == len) { /* no closing quote */
            i = len;
            goto fail;
        } else { /* a text shorter than a run: byte by byte */
            c = s[i];
            if ((uint8_t)(c - 0x20u) < 0x60u && c != '"' && c != '\\') {
                i++;
                continue;
            }
        }
        if (c == '"') {
            break;
        }
        if (c == '\\') {
            tn->flags = FW_JSON_F_ESCAPED;
        }
        i = (size_t)(string_special(s + i, s + len, &bad) - s);
        if (bad) {
            goto fail;
        }
    }
    if (is_key) {
        goto key_end;
    }
    goto value_str_end;

nomem:
    err = FW_ERR_JSON_NOMEM;
fail:
    doc->err_pos = i;
    return err;
}

__attribute__((flatten)) fw_err_t fw_json_parse(fw_json_doc_t *doc, const char *buf, size_t len,
                                                fw_json_tok_t *toks, uint32_t ntoks,
                                                unsigned max_depth)
{
    return tokenize(doc, buf, len, toks, ntoks, max_depth, false);
}

/* The padded text's copy: its end found at the NUL where a value would go on, so the usual case
   of each step has no comparison with len (and the string runs none with rlast). */
__attribute__((flatten)) fw_err_t fw_json_parse_padded(fw_json_doc_t *doc, const char *buf,
                                                       size_t len, fw_json_tok_t *toks,
                                                       uint32_t ntoks, unsigned max_depth)
{
    return tokenize(doc, buf, len, toks, ntoks, max_depth, true);
}

#endif /* FAST_TOKENIZER */

#if !FAST_TOKENIZER
fw_err_t fw_json_parse_padded(fw_json_doc_t *doc, const char *buf, size_t len,
                              fw_json_tok_t *toks, uint32_t ntoks, unsigned max_depth)
{
    return fw_json_parse(doc, buf, len, toks, ntoks, max_depth);
}
#endif

/* ---------------------------------------------------------------- accessors */

static const fw_json_tok_t *tok_of(const fw_json_doc_t *doc, uint32_t tok, fw_json_type_t type)
{
    if (doc == NULL || tok >= doc->count || doc->toks[tok].type != type) {
        return NULL;
    }
    return &doc->toks[tok];
}

#if FW_SPEED_PATHS
/* Whether the raw bytes [p, e) of an unescaped string are s (NUL-terminated): a string's byte
   is never NUL, so s's NUL ends a match. */
static inline bool raw_eq(const char *p, const char *e, const char *s)
{
    const uint8_t *want = (const uint8_t *)s;
    for (; p != e; p++, want++) {
        if (fw_rd8(want) != (uint8_t)*p) {
            return false;
        }
    }
    return fw_rd8(want) == '\0';
}
#endif

int32_t(fw_json_obj_get)(const fw_json_doc_t *doc, uint32_t obj, const char *key)
{
    const fw_json_tok_t *t = tok_of(doc, obj, FW_JSON_OBJECT);
    if (t == NULL || key == NULL) {
        return -1;
    }
    uint16_t k = (uint16_t)(obj + 1); /* token indexes are 16-bit (next) */
    for (uint16_t i = 0; i < t->count; i++) {
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
        /* a plain key is compared here, without a call (most differ in their first byte) */
        const fw_json_tok_t *kt = &doc->toks[k];
        bool eq = (kt->flags & FW_JSON_F_ESCAPED) == 0
                      ? raw_eq(doc->buf + kt->start, doc->buf + kt->end, key)
                      : (fw_json_str_eq)(doc, k, key);
#else
        bool eq = (fw_json_str_eq)(doc, k, key);
#endif
        if (eq) {
            return (int32_t)(k + 1);
        }
        k = doc->toks[k + 1].next;
    }
    return -1;
}

int32_t fw_json_arr_get(const fw_json_doc_t *doc, uint32_t arr, uint32_t i)
{
    const fw_json_tok_t *t = tok_of(doc, arr, FW_JSON_ARRAY);
    if (t == NULL || i >= t->count) {
        return -1;
    }
    uint32_t e = arr + 1;
    while (i-- > 0) {
        e = doc->toks[e].next;
    }
    return (int32_t)e;
}

static unsigned hex4_at(const uint8_t *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        v = (v << 4) | (unsigned)hex_value(p[i]);
    }
    return v;
}

static unsigned utf8_encode(uint32_t cp, uint8_t u[4])
{
    if (cp < 0x80u) {
        u[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800u) {
        u[0] = (uint8_t)(0xC0u | (cp >> 6));
        u[1] = (uint8_t)(0x80u | (cp & 0x3Fu));
        return 2;
    }
    if (cp < 0x10000u) {
        u[0] = (uint8_t)(0xE0u | (cp >> 12));
        u[1] = (uint8_t)(0x80u | ((cp >> 6) & 0x3Fu));
        u[2] = (uint8_t)(0x80u | (cp & 0x3Fu));
        return 3;
    }
    u[0] = (uint8_t)(0xF0u | (cp >> 18));
    u[1] = (uint8_t)(0x80u | ((cp >> 12) & 0x3Fu));
    u[2] = (uint8_t)(0x80u | ((cp >> 6) & 0x3Fu));
    u[3] = (uint8_t)(0x80u | (cp & 0x3Fu));
    return 4;
}

/* The byte a one-character escape stands for ('"', '\\' and '/' stand for themselves). */
static uint8_t unescape_simple(uint8_t c)
{
    switch (c) {
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return c;
    }
}

/* Decodes the character at s[*pos] of a string the parser validated into u; returns its length
   in bytes and advances *pos past it. */
static unsigned decode_char(const uint8_t *s, fw_json_off_t *pos, uint8_t u[4])
{
    uint8_t c = s[*pos];
    if (c != '\\') {
        u[0] = c;
        (*pos)++;
        return 1;
    }
    c = s[*pos + 1];
    *pos += 2;
    if (c != 'u') {
        u[0] = unescape_simple(c);
        return 1;
    }
    uint32_t cp = hex4_at(s + *pos);
    *pos += 4;
    if (cp >= 0xD800u && cp <= 0xDBFFu) {
        uint32_t lo = hex4_at(s + *pos + 2);
        *pos += 6;
        cp = 0x10000u + ((cp - 0xD800u) << 10) + (lo - 0xDC00u);
    }
    return utf8_encode(cp, u);
}

/* fw_json_str_eq for any string: each character decoded (a plain byte is taken as it is). */
#if FW_SPEED_PATHS && (defined(__GNUC__) || defined(__clang__))
__attribute__((noinline)) /* keeps the plain strings' path free of its registers */
#endif
static bool
str_eq_decoded(const uint8_t *buf, const fw_json_tok_t *t, const uint8_t *want)
{
    size_t j = 0;
    fw_json_off_t pos = t->start;
    while (pos < t->end) {
        uint8_t u[4];
        unsigned n = decode_char(buf, &pos, u);
        for (unsigned k = 0; k < n; k++, j++) {
            uint8_t c = fw_rd8(want + j);
            if (c != u[k] || c == '\0') { /* a decoded \u0000 never matches */
                return false;
            }
        }
    }
    return fw_rd8(want + j) == '\0';
}

bool(fw_json_str_eq)(const fw_json_doc_t *doc, uint32_t tok, const char *s)
{
    const fw_json_tok_t *t = tok_of(doc, tok, FW_JSON_STRING);
    if (t == NULL || s == NULL) {
        return false;
    }
    const uint8_t *buf = (const uint8_t *)doc->buf;
#if FW_SPEED_PATHS
    if ((t->flags & FW_JSON_F_ESCAPED) == 0) {
        return raw_eq(doc->buf + t->start, doc->buf + t->end, s);
    }
#endif
    return str_eq_decoded(buf, t, (const uint8_t *)s);
}

int32_t fw_json_str_decode(const fw_json_doc_t *doc, uint32_t tok, char *out, size_t cap)
{
    const fw_json_tok_t *t = tok_of(doc, tok, FW_JSON_STRING);
    if (t == NULL || (out == NULL && cap > 0)) {
        return FW_ERR_ARG;
    }
    const uint8_t *buf = (const uint8_t *)doc->buf;
    size_t n = 0;
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
    /* a string without escapes is its raw bytes (a tool's name, a cursor): one copy */
    if ((t->flags & FW_JSON_F_ESCAPED) == 0) {
        n = (size_t)(t->end - t->start);
        if (n >= cap || n > (size_t)INT32_MAX) {
            if (cap > 0) {
                out[0] = '\0';
            }
            return FW_ERR_NO_SPACE;
        }
        memcpy(out, buf + t->start, n);
        out[n] = '\0';
        return (int32_t)n;
    }
#endif
    fw_json_off_t pos = t->start;
    while (pos < t->end) {
        uint8_t u[4];
        unsigned k = decode_char(buf, &pos, u);
        if (n + k >= cap || n + k > (size_t)INT32_MAX) {
            if (cap > 0) {
                out[0] = '\0';
            }
            return FW_ERR_NO_SPACE;
        }
        memcpy(out + n, u, k);
        n += k;
    }
    if (cap == 0) {
        return FW_ERR_NO_SPACE;
    }
    out[n] = '\0';
    return (int32_t)n;
}

/* ---------------------------------------------------------------- numbers */

fw_err_t fw_json_get_i64(const fw_json_doc_t *doc, uint32_t tok, int64_t *out)
{
    const fw_json_tok_t *t = tok_of(doc, tok, FW_JSON_NUMBER);
    if (t == NULL || out == NULL || (t->flags & FW_JSON_F_INTEGER) == 0) {
        return FW_ERR_ARG;
    }
    bool neg = (t->flags & FW_JSON_F_NEGATIVE) != 0;
    /* The magnitude may reach 2^63 - 1, or 2^63 when negative: mag * 10 + d must stay within
       (cutoff * 10 + last); no 64-bit division, which a Cortex-M does in software. */
    const uint64_t cutoff = (uint64_t)INT64_MAX / 10u;
    const uint64_t last = neg ? 8u : 7u;
    uint64_t mag = 0;
    for (fw_json_off_t i = (fw_json_off_t)(t->start + (neg ? 1u : 0u)); i < t->end; i++) {
        uint64_t d = (uint64_t)(doc->buf[i] - '0');
        if (mag > cutoff || (mag == cutoff && d > last)) {
            return FW_ERR_NO_SPACE;
        }
        mag = mag * 10u + d;
    }
    if (!neg) {
        *out = (int64_t)mag;
    } else {
        *out = mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
    }
    return FW_OK;
}

/* As fw_json_get_i64 in 32 bits (a build without 64-bit arithmetic on its hot paths). */
fw_err_t fw_json_get_i32(const fw_json_doc_t *doc, uint32_t tok, int32_t *out)
{
    const fw_json_tok_t *t = tok_of(doc, tok, FW_JSON_NUMBER);
    if (t == NULL || out == NULL || (t->flags & FW_JSON_F_INTEGER) == 0) {
        return FW_ERR_ARG;
    }
    bool neg = (t->flags & FW_JSON_F_NEGATIVE) != 0;
    const uint32_t cutoff = (uint32_t)INT32_MAX / 10u;
    const uint32_t last = neg ? 8u : 7u;
    uint32_t mag = 0;
    for (fw_json_off_t i = (fw_json_off_t)(t->start + (neg ? 1u : 0u)); i < t->end; i++) {
        uint32_t d = (uint32_t)(doc->buf[i] - '0');
        if (mag > cutoff || (mag == cutoff && d > last)) {
            return FW_ERR_NO_SPACE;
        }
        mag = mag * 10u + d;
    }
    if (!neg) {
        *out = (int32_t)mag;
    } else {
        *out = mag > (uint32_t)INT32_MAX ? INT32_MIN : -(int32_t)mag;
    }
    return FW_OK;
}

#if FW_WITH_FLOAT

/* A decimal number as w * 10^e10 (w holds up to 19 significant digits, the rest truncated). */
typedef struct decimal {
    uint64_t w;
    int64_t e10;
    bool neg;
} decimal_t;

/* Exponents beyond this are clamped while reading (anything past +-343 is inf or 0 anyway). */
#define EXP_CAP 100000

static void read_decimal(const uint8_t *p, const uint8_t *end, decimal_t *d)
{
    unsigned nsig = 0;
    bool frac = false;
    d->w = 0;
    d->e10 = 0;
    d->neg = p < end && *p == '-';
    p += d->neg ? 1 : 0;
    for (; p < end && (is_digit(*p) || *p == '.'); p++) {
        if (*p == '.') {
            frac = true;
        } else if (d->w == 0 && *p == '0') {
            d->e10 -= frac ? 1 : 0; /* leading zero */
        } else if (nsig < 19) {
            d->w = d->w * 10u + (uint64_t)(*p - '0');
            nsig++;
            d->e10 -= frac ? 1 : 0;
        } else {
            d->e10 += frac ? 0 : 1; /* dropped integer digit */
        }
    }
    if (p == end) {
        return;
    }
    p++; /* 'e' or 'E' */
    bool eneg = *p == '-';
    p += (*p == '-' || *p == '+') ? 1 : 0;
    int64_t e = 0;
    for (; p < end; p++) {
        if (e < EXP_CAP) {
            e = e * 10 + (*p - '0');
        }
    }
    d->e10 += eneg ? -e : e;
}

/* A 64-bit mantissa (top bit set) and binary exponent: m * 2^e. */
typedef struct bin_pow {
    uint64_t m;
    int32_t e;
} bin_pow_t;

/* 10^(2^i) and 10^-(2^i), i = 0..8, rounded to 64 bits. */
static const bin_pow_t pow10_pos[9] = {
    {UINT64_C(0xA000000000000000), -60}, {UINT64_C(0xC800000000000000), -57},
    {UINT64_C(0x9C40000000000000), -50}, {UINT64_C(0xBEBC200000000000), -37},
    {UINT64_C(0x8E1BC9BF04000000), -10}, {UINT64_C(0x9DC5ADA82B70B59E), 43},
    {UINT64_C(0xC2781F49FFCFA6D5), 149}, {UINT64_C(0x93BA47C980E98CE0), 362},
    {UINT64_C(0xAA7EEBFB9DF9DE8E), 787},
};
static const bin_pow_t pow10_neg[9] = {
    {UINT64_C(0xCCCCCCCCCCCCCCCD), -67},  {UINT64_C(0xA3D70A3D70A3D70A), -70},
    {UINT64_C(0xD1B71758E219652C), -77},  {UINT64_C(0xABCC77118461CEFD), -90},
    {UINT64_C(0xE69594BEC44DE15B), -117}, {UINT64_C(0xCFB11EAD453994BA), -170},
    {UINT64_C(0xA87FEA27A539E9A5), -276}, {UINT64_C(0xDDD0467C64BCE4A1), -489},
    {UINT64_C(0xC0314325637A193A), -914},
};

/* Exact powers of ten for the fast path (all representable in a double). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* High 64 bits of a * b; the low 64 in *lo (no 128-bit type on 32-bit MCUs). */
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo)
{
    uint64_t a0 = a & 0xFFFFFFFFu;
    uint64_t a1 = a >> 32;
    uint64_t b0 = b & 0xFFFFFFFFu;
    uint64_t b1 = b >> 32;
    uint64_t p00 = a0 * b0;
    uint64_t p01 = a0 * b1;
    uint64_t p10 = a1 * b0;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* v *= p, keeping v normalized and rounded to nearest. */
static void mul_pow(bin_pow_t *v, const bin_pow_t *p)
{
    uint64_t lo;
    uint64_t hi = mul_64x64(v->m, p->m, &lo);
    int32_t e = v->e + p->e + 64;
    if ((hi >> 63) == 0) {
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        e--;
    }
    if ((lo >> 63) != 0) {
        hi++;
        if (hi == 0) {
            hi = UINT64_C(1) << 63;
            e++;
        }
    }
    v->m = hi;
    v->e = e;
}

/* m >> shift (1..64) rounded half to even. */
static uint64_t shift_round(uint64_t m, unsigned shift)
{
    uint64_t q = shift >= 64 ? 0 : m >> shift;
    uint64_t rem = shift >= 64 ? m : m & ((UINT64_C(1) << shift) - 1u);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1u) != 0)) {
        q++;
    }
    return q;
}

/* IEEE 754 binary64 bits of the normalized v (inf when too large, subnormal or 0 when tiny). */
static uint64_t to_double_bits(bin_pow_t v)
{
    const uint64_t inf = UINT64_C(0x7FF0000000000000);
    int32_t exp2 = v.e + 63; /* v in [2^exp2, 2^(exp2+1)) */
    if (exp2 > 1023) {
        return inf;
    }
    if (exp2 < -1022) {
        int32_t shift = -(v.e + 1074); /* units of the smallest subnormal, 2^-1074 */
        return shift > 64 ? 0 : shift_round(v.m, (unsigned)shift); /* 2^52 is the least normal */
    }
    uint64_t mant = shift_round(v.m, 11);
    if (mant >> 53 != 0) {
        mant >>= 1;
        exp2++;
        if (exp2 > 1023) {
            return inf;
        }
    }
    return ((uint64_t)(exp2 + 1023) << 52) | (mant & ((UINT64_C(1) << 52) - 1u));
}

static double decimal_to_double(const decimal_t *d)
{
    uint64_t bits;
    double r;
    if (d->w == 0 || d->e10 < -343) {
        bits = 0; /* below half the least subnormal: w < 10^19 */
    } else if (d->e10 > 310) {
        bits = UINT64_C(0x7FF0000000000000);
    } else if (d->w <= (UINT64_C(1) << 53) && d->e10 >= -22 && d->e10 <= 22) {
        /* Both operands exact, so one correctly rounded operation. */
        r = d->e10 >= 0 ? (double)d->w * pow10_exact[d->e10] : (double)d->w / pow10_exact[-d->e10];
        return d->neg ? -r : r;
    } else {
        bin_pow_t v = {d->w, 0};
        while ((v.m >> 63) == 0) {
            v.m <<= 1;
            v.e--;
        }
        const bin_pow_t *table = d->e10 < 0 ? pow10_neg : pow10_pos;
        uint32_t k = (uint32_t)(d->e10 < 0 ? -d->e10 : d->e10);
        for (unsigned i = 0; k != 0; i++, k >>= 1) {
            if ((k & 1u) != 0) {
                mul_pow(&v, &table[i]);
            }
        }
        bits = to_double_bits(v);
    }
    if (d->neg) {
        bits |= UINT64_C(1) << 63;
    }
    memcpy(&r, &bits, sizeof r);
    return r;
}

fw_err_t fw_json_get_double(const fw_json_doc_t *doc, uint32_t tok, double *out)
{
    const fw_json_tok_t *t = tok_of(doc, tok, FW_JSON_NUMBER);
    if (t == NULL || out == NULL) {
        return FW_ERR_ARG;
    }
    const uint8_t *p = (const uint8_t *)doc->buf;
    decimal_t d;
    read_decimal(p + t->start, p + t->end, &d);
    *out = decimal_to_double(&d);
    return FW_OK;
}

#endif
