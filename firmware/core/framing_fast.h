/* framing_fast.h: the line framer's usual path, inline (framing.c, and rpc.c's byte-stream feed
   at FW_SPEED_PATHS 2, where a read then costs no call into the framer). Core-private. */
#ifndef FRAMING_FAST_H
#define FRAMING_FAST_H

#include "fw_internal.h"

#if FW_SPEED_PATHS
/*
 * Bytes before the first LF of p[0..n) (n when there is none): a word at a time (a byte of
 * v is zero when (v - ones) & ~v & highs has its top bit; the first such byte is exact, the
 * word is then searched byte by byte), so a long line costs a few instructions per word.
 */
static inline size_t scan_lf(const uint8_t *p, size_t n)
{
#if FW_FAST_LIBC
    if (n <= 8) { /* a few bytes (a line's end, a slow link's read): cheaper than the call */
        size_t i = 0;
        while (i < n && p[i] != '\n') i++;
        return i;
    }
    const uint8_t *lf = memchr(p, '\n', n);
    return lf != NULL ? (size_t)(lf - p) : n;
#else
    size_t i = 0;
    const size_t ones = (size_t)-1 / 0xFFu;
    const size_t highs = ones << 7;
    const size_t lfs = ones * (size_t)'\n';
    for (; i + sizeof(size_t) <= n; i += sizeof(size_t)) {
        size_t v;
        memcpy(&v, p + i, sizeof v); /* one (unaligned) load where the part has it */
        v ^= lfs;
        if (((v - ones) & ~v & highs) != 0) {
            break;
        }
    }
    while (i < n && p[i] != '\n') {
        i++;
    }
    return i;
#endif
}

#if FW_SPEED_PATHS >= 2
/* (forced: the compiler would leave the copy a call where the feed inlines the push) */
#define FRAMER_INLINE static inline __attribute__((always_inline))

#if defined(__SSE2__)
typedef unsigned char lf_run_t __attribute__((vector_size(16)));
typedef char lf_run_char_t __attribute__((vector_size(16))); /* what pmovmskb takes */
typedef uint64_t lf_words_t __attribute__((vector_size(16)));

/* Bit i set where byte i of v is a LF. */
static inline unsigned lf_bits(lf_run_t v)
{
    return (unsigned)__builtin_ia32_pmovmskb128((lf_run_char_t)(v == '\n'));
}

/*
 * Copies src[0..n) to dst and returns the offset of its first LF (n when there is none); bytes
 * after that LF may be copied too, so dst must have room for all n. One pass, 32 bytes at a
 * time (two loads, two stores, one test of both compares), where memchr and then memcpy would
 * each be a call and go over the bytes again. Nothing is read past src + n: a read under 32
 * bytes is two overlapping runs of 16 (or of 8), one under 8 (a line's LF alone) goes byte by
 * byte. Only vector registers and a few scratch ones are used, so no register is saved.
 */
FRAMER_INLINE size_t copy_to_lf(char *dst, const uint8_t *src, size_t n)
{
    lf_run_t v, u;
    if (n >= 32) {
        /* the last step is moved back to end at n: it searches a few bytes again, which hold
           no LF, instead of a tail of its own */
        size_t last = n - 32;
        for (size_t i = 0;;) {
            memcpy(&v, src + i, sizeof v);
            memcpy(&u, src + i + 16, sizeof u);
            memcpy(dst + i, &v, sizeof v);
            memcpy(dst + i + 16, &u, sizeof u);
            if (__builtin_ia32_pmovmskb128((lf_run_char_t)((v == '\n') | (u == '\n'))) != 0) {
                unsigned m = lf_bits(v);
                return m != 0 ? i + (unsigned)__builtin_ctz(m)
                              : i + 16u + (unsigned)__builtin_ctz(lf_bits(u));
            }
            if (i == last) return n;
            i = last - i > 32 ? i + 32 : last;
        }
    }
    if (n >= 16) { /* the first 16 bytes and the last 16, which may overlap */
        memcpy(&v, src, sizeof v);
        memcpy(&u, src + n - 16, sizeof u);
        memcpy(dst, &v, sizeof v);
        memcpy(dst + n - 16, &u, sizeof u);
        unsigned m = lf_bits(v);
        if (m != 0) return (unsigned)__builtin_ctz(m);
        m = lf_bits(u);
        return m != 0 ? n - 16u + (unsigned)__builtin_ctz(m) : n;
    }
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
        lf_words_t w = {a, b};
        unsigned m = lf_bits((lf_run_t)w);
        if ((m & 0xFFu) != 0) return (unsigned)__builtin_ctz(m);
        return m != 0 ? n - 16u + (unsigned)__builtin_ctz(m) : n; /* bit 8 + k: byte n - 8 + k */
    }
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\n') return i;
        dst[i] = (char)src[i];
    }
    return n;
}
#else
/* Elsewhere: find the LF, then copy what comes before it. */
FRAMER_INLINE size_t copy_to_lf(char *dst, const uint8_t *src, size_t n)
{
    size_t run = scan_lf(src, n);
    memcpy(dst, src, run);
    return run;
}
#endif

/* The rest of a read, from data[i] on, byte run by byte run (the line so far: have bytes). */
size_t fw_framer_push_from(fw_framer_t *fr, const uint8_t *data, size_t len, size_t i, size_t have,
                           fw_frame_event_t *ev);
/* A line (end bytes, its CR dropped) that is empty or starts with a CR. */
size_t fw_framer_line_or_blank(fw_framer_t *fr, const uint8_t *data, size_t len, size_t i,
                               size_t end, fw_frame_event_t *ev);

/*
 * The usual read, a part of a line or a line's end, with no call and no register saved: what
 * the line has room for is copied while its first LF is looked for; with none, it all joins the
 * line; with one, the line ends there. The rest go the byte-run way, as they came: a line that
 * reaches the limit, an overlong line being dropped, a line that is empty or starts with a CR,
 * the bytes after a blank line's LF.
 */
FRAMER_INLINE size_t framer_push(fw_framer_t *fr, const uint8_t *data, size_t len,
                                 fw_frame_event_t *ev)
{
    size_t have = 0; /* a line reported last time is dropped now */
    if (!fr->ready) { /* (ready is only ever set with discarding clear) */
        have = fr->len;
        if (fr->discarding || have >= FW_LINE_MAX)
            return fw_framer_push_from(fr, data, len, 0, have, ev);
    }
    size_t room = FW_LINE_MAX - have;
    size_t n = len < room ? len : room;
    size_t run = copy_to_lf(fr->line + have, data, n);
    if (run == n) {
        if (n < len) return fw_framer_push_from(fr, data, len, 0, have, ev); /* at the limit */
        fr->len = have + len;
        fr->ready = false;
        *ev = FW_FRAME_NONE;
        return len;
    }
    size_t end = have + run;
    if (end > 0 && fr->line[end - 1] == '\r') end--; /* the CR of a CRLF */
    if (end == 0 || fr->line[0] == '\r')
        return fw_framer_line_or_blank(fr, data, len, run + 1, end, ev);
    fr->line[end] = '\0';
    fr->len = end;
    fr->ready = true;
    *ev = FW_FRAME_LINE;
    return run + 1;
}
#endif /* FW_SPEED_PATHS >= 2 */
#endif /* FW_SPEED_PATHS */
#endif
