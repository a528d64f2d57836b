/* fmt.c: a tiny, truncating formatter for error messages: %s %d %u %x %%. */
#include "fw_internal.h"

/*
 * Conversions: %s (NULL prints "(null)"), %d (int), %u (unsigned), %x (unsigned in lowercase
 * hex, at least two digits: 0x%x of 7 is "0x07"), %%. Anything else after '%' is copied as is
 * and takes no argument; a lone '%' at the end is copied.
 */

typedef struct out {
    char *buf;
    size_t cap; /* > 0 */
    size_t len; /* < cap */
    bool truncated;
} out_t;

static void emit(out_t *o, char c)
{
    if (o->len + 1 < o->cap) {
        o->buf[o->len++] = c;
    } else {
        o->truncated = true;
    }
}

/* Bytes a UTF-8 sequence starting with lead byte b has (1 for ASCII and stray bytes). */
static size_t utf8_len(unsigned char b)
{
    if (b >= 0xf0 && b < 0xf8) {
        return 4;
    }
    if (b >= 0xe0 && b < 0xf0) {
        return 3;
    }
    return (b >= 0xc0 && b < 0xe0) ? 2 : 1;
}

/* After truncation, drops a multi-byte UTF-8 character that was cut off at the end, so the
   message stays valid UTF-8 when it is put into JSON. */
static void trim_partial_utf8(out_t *o)
{
    size_t k = o->len;
    while (k > 0 && o->len - k < 3 && ((unsigned char)o->buf[k - 1] & 0xc0) == 0x80) {
        k--;
    }
    if (k > 0 && utf8_len((unsigned char)o->buf[k - 1]) > o->len - (k - 1)) {
        o->len = k - 1;
    }
}

/* s may be in flash (fw_rd8). */
static void emit_str(out_t *o, const char *s)
{
    for (char c; (c = (char)fw_rd8(s)) != '\0'; s++) {
        emit(o, c);
    }
}

/* v in base 10 or 16, at least min_digits digits. */
static void emit_uint(out_t *o, unsigned v, unsigned base, unsigned min_digits)
{
    static const char digits[] FW_ROM_STR = "0123456789abcdef";
    char tmp[sizeof(unsigned) * 8];
    unsigned n = 0;
    do {
        tmp[n++] = (char)fw_rd8(&digits[v % base]);
        v /= base;
    } while (v != 0);
    while (n < min_digits) {
        tmp[n++] = '0';
    }
    while (n > 0) {
        emit(o, tmp[--n]);
    }
}

static void emit_int(out_t *o, int v)
{
    if (v < 0) {
        emit(o, '-');
        emit_uint(o, 0u - (unsigned)v, 10, 1); /* also right for INT_MIN */
        return;
    }
    emit_uint(o, (unsigned)v, 10, 1);
}

/* Handles the conversion character c; va_list is passed by pointer so it advances. */
static void convert(out_t *o, char c, va_list *ap)
{
    const char *s;
    switch (c) {
    case 's':
        s = va_arg(*ap, const char *);
        emit_str(o, s != NULL ? s : FW_S("(null)"));
        break;
    case 'd':
        emit_int(o, va_arg(*ap, int));
        break;
    case 'u':
        emit_uint(o, va_arg(*ap, unsigned), 10, 1);
        break;
    case 'x':
        emit_uint(o, va_arg(*ap, unsigned), 16, 2);
        break;
    case '%':
        emit(o, '%');
        break;
    default:
        emit(o, '%');
        emit(o, c);
        break;
    }
}

/* fmt (and each %s argument) may be in flash: read through fw_rd8. */
size_t fw_vfmt(char *out, size_t cap, const char *fmt, va_list ap)
{
    if (out == NULL || cap == 0) {
        return 0;
    }
    out_t o = {out, cap, 0, false};
    va_list aq;
    va_copy(aq, ap);
    for (const char *p = fmt; p != NULL; p++) {
        char c = (char)fw_rd8(p);
        if (c == '\0') {
            break;
        }
        if (c != '%') {
            emit(&o, c);
        } else if ((c = (char)fw_rd8(p + 1)) == '\0') {
            emit(&o, '%');
        } else {
            p++;
            convert(&o, c, &aq);
        }
    }
    va_end(aq);
    if (o.truncated) {
        trim_partial_utf8(&o);
    }
    out[o.len] = '\0';
    return o.len;
}

#if FW_ROM_SPLIT
size_t fw_strlen(const char *s)
{
    size_t n = 0;
    while (fw_rd8(s + n) != 0) {
        n++;
    }
    return n;
}

bool fw_streq(const char *a, const char *b)
{
    for (;; a++, b++) {
        uint8_t c = fw_rd8(a);
        if (c != fw_rd8(b)) {
            return false;
        }
        if (c == 0) {
            return true;
        }
    }
}

void fw_rom_copy(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    while (n-- > 0) {
        *d++ = fw_rd8(s++);
    }
}
#endif

size_t fw_fmt(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = fw_vfmt(out, cap, fmt, ap);
    va_end(ap);
    return n;
}

const char *fw_json_type_name(uint8_t type)
{
    static const char names[][8] FW_ROM = {"null",   "boolean", "boolean", "number",
                                           "string", "array",   "object"};
    return type < FW_ARRAY_LEN(names) ? names[type] : FW_S("?");
}
