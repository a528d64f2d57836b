/*
 * json_reader_ref.c: the reference the JSON reader is tested against (test_json_reader_diff.c):
 * the reader as it was before the jsmn-style tokenizer (a state machine of one small function per
 * lexical element, session 5), kept unchanged but for its names (ref_ and REF_) so both live
 * in one test program. Its verdicts, error positions and tokens are the specification the
 * tokenizer keeps: the tests compare the two on every input they make.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fw_json.h"

#define REF_NO_PARENT UINT16_MAX
/* Most tokens one parse uses: token indexes (next) are 16-bit and REF_NO_PARENT is reserved. */
#define REF_TOKS_LIMIT (UINT16_MAX - 1u)
/* Offsets are fw_json_off_t: a message must end below its largest value. */
#define REF_OFF_LIMIT ((uint64_t)(fw_json_off_t)-1)

/*
 * Parser states (the whole grammar; there is no recursion):
 *   REF_ST_VALUE       a value is due (top level, after ':' or after ',' in an array)
 *   REF_ST_ELEM_FIRST  just after '[': a value or ']'
 *   REF_ST_KEY         a key string is due (after ',' in an object)
 *   REF_ST_KEY_FIRST   just after '{': a key string or '}'
 *   REF_ST_COLON       after a key: ':'
 *   REF_ST_AFTER       a value is complete: ',' or the closer of the open container, or the end
 *                  of the input when no container is open
 */
typedef enum ref_parse_state {
    REF_ST_VALUE,
    REF_ST_ELEM_FIRST,
    REF_ST_KEY,
    REF_ST_KEY_FIRST,
    REF_ST_COLON,
    REF_ST_AFTER
} ref_parse_state_t;

/*
 * Open containers form a chain through the tokens themselves: while a container is open its
 * `next` field holds the index of its enclosing container (REF_NO_PARENT at top level); closing it
 * pops the chain and stores the real `next`. So the only bound on nesting is max_depth.
 */
typedef struct ref_parser {
    const uint8_t *s;
    fw_json_off_t len; /* below REF_OFF_LIMIT (fw_json_parse): every pos fits */
    fw_json_off_t pos;
    fw_json_tok_t *toks;
    uint16_t cap; /* at most REF_TOKS_LIMIT */
    uint16_t used;
    uint16_t parent; /* innermost open container, or REF_NO_PARENT */
    unsigned depth;  /* open containers */
    unsigned max_depth;
} ref_parser_t;

/* ---------------------------------------------------------------- lexical helpers */

static int ref_peek(const ref_parser_t *ps)
{
    return ps->pos < ps->len ? ps->s[ps->pos] : -1;
}

static bool ref_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int ref_hex_value(int c)
{
    if (ref_is_digit(c)) {
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

static void ref_skip_ws(ref_parser_t *ps)
{
    while (ps->pos < ps->len) {
        uint8_t c = ps->s[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            return;
        }
        ps->pos++;
    }
}

static void ref_skip_digits(ref_parser_t *ps)
{
    while (ref_is_digit(ref_peek(ps))) {
        ps->pos++;
    }
}

/* Consumes byte c or fails with pos at the offending byte (len when truncated). */
static fw_err_t ref_expect_byte(ref_parser_t *ps, uint8_t c)
{
    if (ref_peek(ps) != c) {
        return FW_ERR_JSON_INVALID;
    }
    ps->pos++;
    return FW_OK;
}

/* ---------------------------------------------------------------- strings */

/* Four hex digits of a \u escape into *cp. */
static fw_err_t ref_scan_hex4(ref_parser_t *ps, uint16_t *cp)
{
    uint16_t v = 0;
    for (int i = 0; i < 4; i++) {
        int d = ref_hex_value(ref_peek(ps));
        if (d < 0) {
            return FW_ERR_JSON_INVALID;
        }
        v = (uint16_t)((v << 4) | (unsigned)d);
        ps->pos++;
    }
    *cp = v;
    return FW_OK;
}

/* The rest of a \u escape (pos after "\u"); a high surrogate must be followed by an escaped
   low surrogate and a low surrogate may not stand alone, so decoding always gives UTF-8. */
static fw_err_t ref_scan_unicode_escape(ref_parser_t *ps)
{
    fw_json_off_t esc = ps->pos - 2;
    uint16_t cp;
    uint16_t lo;
    fw_err_t err = ref_scan_hex4(ps, &cp);
    if (err != FW_OK) {
        return err;
    }
    if (cp >= 0xDC00u && cp <= 0xDFFFu) {
        ps->pos = esc;
        return FW_ERR_JSON_INVALID;
    }
    if (cp < 0xD800u || cp > 0xDBFFu) {
        return FW_OK;
    }
    esc = ps->pos;
    if ((err = ref_expect_byte(ps, '\\')) != FW_OK || (err = ref_expect_byte(ps, 'u')) != FW_OK ||
        (err = ref_scan_hex4(ps, &lo)) != FW_OK) {
        return err;
    }
    if (lo < 0xDC00u || lo > 0xDFFFu) {
        ps->pos = esc;
        return FW_ERR_JSON_INVALID;
    }
    return FW_OK;
}

/* One escape sequence; pos at the backslash. */
static fw_err_t ref_scan_escape(ref_parser_t *ps)
{
    ps->pos++;
    int c = ref_peek(ps);
    switch (c) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        ps->pos++;
        return FW_OK;
    case 'u':
        ps->pos++;
        return ref_scan_unicode_escape(ps);
    default:
        return FW_ERR_JSON_INVALID;
    }
}

/* One UTF-8 sequence per RFC 3629 (no overlongs, no surrogates, nothing above U+10FFFF); pos
   at its lead byte (>= 0x80). */
static fw_err_t ref_scan_utf8(ref_parser_t *ps)
{
    uint8_t c = ps->s[ps->pos];
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
        return FW_ERR_JSON_INVALID;
    }
    ps->pos++;
    for (unsigned i = 0; i < n; i++) {
        int b = ref_peek(ps);
        if (b < lo || b > hi) {
            return FW_ERR_JSON_INVALID;
        }
        lo = 0x80;
        hi = 0xBF;
        ps->pos++;
    }
    return FW_OK;
}

/* String body; pos after the opening quote, on success at the closing quote. */
static fw_err_t ref_scan_string(ref_parser_t *ps, uint8_t *flags)
{
    for (;;) {
        fw_err_t err = FW_OK;
        if (ps->pos >= ps->len) {
            return FW_ERR_JSON_INVALID;
        }
        uint8_t c = ps->s[ps->pos];
        if (c == '"') {
            return FW_OK;
        }
        if (c >= 0x20 && c < 0x80 && c != '\\') {
            ps->pos++;
            continue;
        }
        if (c == '\\') {
            *flags |= FW_JSON_F_ESCAPED;
            err = ref_scan_escape(ps);
        } else if (c < 0x20) {
            err = FW_ERR_JSON_INVALID;
        } else {
            err = ref_scan_utf8(ps);
        }
        if (err != FW_OK) {
            return err;
        }
    }
}

/* ---------------------------------------------------------------- numbers and ref_literals */

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static fw_err_t ref_scan_number(ref_parser_t *ps, uint8_t *flags)
{
    uint8_t f = FW_JSON_F_INTEGER;
    if (ref_peek(ps) == '-') {
        f |= FW_JSON_F_NEGATIVE;
        ps->pos++;
    }
    int c = ref_peek(ps);
    if (c == '0') {
        ps->pos++;
    } else if (c >= '1' && c <= '9') {
        ref_skip_digits(ps);
    } else {
        return FW_ERR_JSON_INVALID;
    }
    if (ref_peek(ps) == '.') {
        f &= (uint8_t)~FW_JSON_F_INTEGER;
        ps->pos++;
        if (!ref_is_digit(ref_peek(ps))) {
            return FW_ERR_JSON_INVALID;
        }
        ref_skip_digits(ps);
    }
    c = ref_peek(ps);
    if (c == 'e' || c == 'E') {
        f &= (uint8_t)~FW_JSON_F_INTEGER;
        ps->pos++;
        c = ref_peek(ps);
        if (c == '+' || c == '-') {
            ps->pos++;
        }
        if (!ref_is_digit(ref_peek(ps))) {
            return FW_ERR_JSON_INVALID;
        }
        ref_skip_digits(ps);
    }
    *flags = f;
    return FW_OK;
}

static fw_err_t ref_scan_literal(ref_parser_t *ps, const char *lit)
{
    for (; fw_rd8(lit) != '\0'; lit++) {
        fw_err_t err = ref_expect_byte(ps, fw_rd8(lit));
        if (err != FW_OK) {
            return err;
        }
    }
    return FW_OK;
}

/* ---------------------------------------------------------------- tokens and structure */

/* Appends a token at pos; `member` counts it as an element (array) or member (object key) of
   the open container. */
static fw_err_t ref_new_tok(ref_parser_t *ps, fw_json_type_t type, bool member, fw_json_tok_t **out)
{
    if (member) {
        fw_json_tok_t *p = &ps->toks[ps->parent];
        if (p->count == UINT16_MAX) {
            return FW_ERR_JSON_NOMEM;
        }
        p->count++;
    }
    if (ps->used == ps->cap) {
        return FW_ERR_JSON_NOMEM;
    }
    fw_json_tok_t *t = &ps->toks[ps->used];
    t->type = (uint8_t)type;
    t->flags = 0;
    t->count = 0;
    t->start = (fw_json_off_t)ps->pos;
    t->end = (fw_json_off_t)ps->pos;
    ps->used++;
    t->next = (uint16_t)ps->used;
    *out = t;
    return FW_OK;
}

static fw_err_t ref_parse_string(ref_parser_t *ps, bool member)
{
    fw_json_tok_t *t;
    fw_err_t err = ref_new_tok(ps, FW_JSON_STRING, member, &t);
    if (err != FW_OK) {
        return err;
    }
    uint8_t flags = 0;
    ps->pos++;
    t->start = (fw_json_off_t)ps->pos;
    err = ref_scan_string(ps, &flags);
    if (err != FW_OK) {
        return err;
    }
    t->flags = flags;
    t->end = (fw_json_off_t)ps->pos;
    ps->pos++; /* closing quote */
    return FW_OK;
}

static fw_err_t ref_open_container(ref_parser_t *ps, fw_json_type_t type, bool member)
{
    fw_json_tok_t *t;
    if (ps->depth >= ps->max_depth) {
        return FW_ERR_JSON_DEPTH;
    }
    fw_err_t err = ref_new_tok(ps, type, member, &t);
    if (err != FW_OK) {
        return err;
    }
    t->next = (uint16_t)ps->parent;
    ps->parent = (uint16_t)(ps->used - 1u);
    ps->depth++;
    ps->pos++;
    return FW_OK;
}

/* pos at the closer of the innermost open container. */
static void ref_close_container(ref_parser_t *ps)
{
    fw_json_tok_t *t = &ps->toks[ps->parent];
    ps->parent = t->next;
    t->next = (uint16_t)ps->used;
    ps->pos++;
    t->end = (fw_json_off_t)ps->pos;
    ps->depth--;
}

/* Spellings of the ref_literals, indexed by fw_json_type_t. */
static const char ref_literals[][6] FW_ROM = {"null", "false", "true"};

/* A scalar: number or literal. */
static fw_err_t ref_parse_scalar(ref_parser_t *ps, bool member)
{
    int c = ref_peek(ps);
    fw_json_type_t type;
    if (c == 'n') {
        type = FW_JSON_NULL;
    } else if (c == 'f') {
        type = FW_JSON_FALSE;
    } else if (c == 't') {
        type = FW_JSON_TRUE;
    } else if (c == '-' || ref_is_digit(c)) {
        type = FW_JSON_NUMBER;
    } else {
        return FW_ERR_JSON_INVALID;
    }
    fw_json_tok_t *t;
    fw_err_t err = ref_new_tok(ps, type, member, &t);
    if (err != FW_OK) {
        return err;
    }
    uint8_t flags = 0;
    err = type == FW_JSON_NUMBER ? ref_scan_number(ps, &flags)
                                 : ref_scan_literal(ps, ref_literals[type]);
    t->flags = flags;
    t->end = (fw_json_off_t)ps->pos;
    return err;
}

/* Any value; sets the state that follows it. */
static fw_err_t ref_parse_value(ref_parser_t *ps, ref_parse_state_t *st)
{
    bool member = ps->parent != REF_NO_PARENT && ps->toks[ps->parent].type == FW_JSON_ARRAY;
    int c = ref_peek(ps);
    if (c == '[') {
        *st = REF_ST_ELEM_FIRST;
        return ref_open_container(ps, FW_JSON_ARRAY, member);
    }
    if (c == '{') {
        *st = REF_ST_KEY_FIRST;
        return ref_open_container(ps, FW_JSON_OBJECT, member);
    }
    *st = REF_ST_AFTER;
    return c == '"' ? ref_parse_string(ps, member) : ref_parse_scalar(ps, member);
}

/* REF_ST_AFTER: ',' or the closer of the open container. */
static fw_err_t ref_parse_after(ref_parser_t *ps, ref_parse_state_t *st)
{
    if (ps->parent == REF_NO_PARENT) {
        return FW_ERR_JSON_INVALID; /* something after the top-level value */
    }
    bool is_obj = ps->toks[ps->parent].type == FW_JSON_OBJECT;
    int c = ref_peek(ps);
    if (c == ',') {
        ps->pos++;
        *st = is_obj ? REF_ST_KEY : REF_ST_VALUE;
        return FW_OK;
    }
    if (c != (is_obj ? '}' : ']')) {
        return FW_ERR_JSON_INVALID;
    }
    ref_close_container(ps);
    return FW_OK;
}

/* One step of the state machine; pos at a non-whitespace byte. */
static fw_err_t ref_parse_step(ref_parser_t *ps, ref_parse_state_t *st)
{
    int c = ref_peek(ps);
    if ((*st == REF_ST_ELEM_FIRST && c == ']') || (*st == REF_ST_KEY_FIRST && c == '}')) {
        ref_close_container(ps);
        *st = REF_ST_AFTER;
        return FW_OK;
    }
    switch (*st) {
    case REF_ST_VALUE:
    case REF_ST_ELEM_FIRST:
        return ref_parse_value(ps, st);
    case REF_ST_KEY:
    case REF_ST_KEY_FIRST:
        if (c != '"') {
            return FW_ERR_JSON_INVALID; /* keys are strings */
        }
        *st = REF_ST_COLON;
        return ref_parse_string(ps, true);
    case REF_ST_COLON:
        *st = REF_ST_VALUE;
        return ref_expect_byte(ps, ':');
    case REF_ST_AFTER:
        return ref_parse_after(ps, st);
    }
    return FW_ERR_JSON_INVALID;
}

static fw_err_t ref_parse_document(ref_parser_t *ps)
{
    ref_parse_state_t st = REF_ST_VALUE;
    if (ps->max_depth == 0) {
        return FW_ERR_JSON_DEPTH;
    }
    for (;;) {
        ref_skip_ws(ps);
        if (ps->pos == ps->len) {
            return st == REF_ST_AFTER && ps->parent == REF_NO_PARENT ? FW_OK : FW_ERR_JSON_INVALID;
        }
        fw_err_t err = ref_parse_step(ps, &st);
        if (err != FW_OK) {
            return err;
        }
    }
}

static fw_err_t ref_json_parse(fw_json_doc_t *doc, const char *buf, size_t len, fw_json_tok_t *toks,
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
    if ((uint64_t)len >= REF_OFF_LIMIT || (uint64_t)len >= FW_MSG_MAX) {
        return FW_ERR_JSON_NOMEM;
    }
#endif
    ref_parser_t ps = {
        .s = (const uint8_t *)buf,
        .len = (fw_json_off_t)len,
        .toks = toks,
        .cap = (uint16_t)(ntoks > REF_TOKS_LIMIT ? REF_TOKS_LIMIT : ntoks),
        .parent = REF_NO_PARENT,
        .max_depth = max_depth,
    };
    if (toks == NULL) {
        ps.cap = 0;
    }
    fw_err_t err = ref_parse_document(&ps);
    if (err != FW_OK) {
        doc->err_pos = ps.pos;
        return err;
    }
    doc->count = ps.used;
    return FW_OK;
}

#undef REF_NO_PARENT
#undef REF_TOKS_LIMIT
#undef REF_OFF_LIMIT
