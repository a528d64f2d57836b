/* framing.c: splits a byte stream into newline-delimited lines of at most FW_LINE_MAX bytes. */
#include "fw_internal.h"

/*
 * States: collecting (len bytes of a line so far), discarding (inside an overlong line until its
 * LF) and ready (line holds the line just reported; the next push drops it). A CR that arrives
 * as byte FW_LINE_MAX+1 is held in line[FW_LINE_MAX] until the next byte shows whether it is the
 * CR of a CRLF; only then is the line known to be overlong, so OVERFLOW for such a line comes
 * one byte later than for other bytes.
 */

void fw_framer_init(fw_framer_t *fr)
{
    fr->len = 0;
    fr->line[0] = '\0';
    fr->discarding = false;
    fr->ready = false;
}

static bool only_crs(const fw_framer_t *fr)
{
    for (size_t i = 0; i < fr->len; i++) {
        if (fr->line[i] != '\r') {
            return false;
        }
    }
    return true;
}

static fw_frame_event_t end_line(fw_framer_t *fr)
{
    if (fr->discarding) {
        fr->discarding = false;
        fr->len = 0;
        return FW_FRAME_NONE;
    }
    if (fr->len > 0 && fr->line[fr->len - 1] == '\r') {
        fr->len--;
    }
    if (only_crs(fr)) { /* also the empty line */
        fr->len = 0;
        return FW_FRAME_NONE;
    }
    fr->line[fr->len] = '\0';
    fr->ready = true;
    return FW_FRAME_LINE;
}

static fw_frame_event_t take(fw_framer_t *fr, uint8_t b)
{
    if (b == '\n') {
        return end_line(fr);
    }
    if (fr->discarding) {
        return FW_FRAME_NONE;
    }
    if (fr->len < FW_LINE_MAX || (fr->len == FW_LINE_MAX && b == '\r')) {
        fr->line[fr->len++] = (char)b;
        return FW_FRAME_NONE;
    }
    fr->len = 0;
    fr->discarding = true;
    return FW_FRAME_OVERFLOW;
}

#if FW_SPEED_PATHS
/*
 * Bytes before the first LF of p[0..n) (n when there is none): a word at a time (a byte of
 * v is zero when (v - ones) & ~v & highs has its top bit; the first such byte is exact, the
 * word is then searched byte by byte), so a long line costs a few instructions per word.
 */
static size_t scan_lf(const uint8_t *p, size_t n)
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

/* Each run of bytes before a LF is scanned once and copied whole while the line has room;
   only the bytes at the line's limit and the LF itself go through take, one at a time. */
FW_COLD_L2 static size_t push_runs(fw_framer_t *fr, const uint8_t *data, size_t len, size_t i,
                                   fw_frame_event_t *ev)
{
    while (i < len) {
        size_t run = scan_lf(data + i, len - i);
        size_t lf = i + run < len ? 1u : 0u;
        if (fr->discarding) {
            i += run;
            run = 0;
        } else if (fr->len < FW_LINE_MAX) {
            size_t k = run < FW_LINE_MAX - fr->len ? run : FW_LINE_MAX - fr->len;
            memcpy(fr->line + fr->len, data + i, k);
            fr->len += k;
            i += k;
            run -= k;
        }
        for (run += lf; run > 0; run--) { /* the limit's bytes, then the LF */
            fw_frame_event_t e = take(fr, data[i++]);
            if (e != FW_FRAME_NONE) {
                *ev = e;
                return i;
            }
        }
    }
    return len;
}

size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev)
{
    if (fr->ready) {
        fr->ready = false;
        fr->len = 0;
    }
    *ev = FW_FRAME_NONE;
    size_t i = 0;
#if FW_SPEED_PATHS >= 2
    /* the usual read: (the rest of) a line that fits, and its LF if it came (the rest, out of
       line, so that this path saves no registers for it) */
    if (!fr->discarding && fr->len <= FW_LINE_MAX) {
        size_t run = scan_lf(data, len);
        if (run <= FW_LINE_MAX - fr->len) {
            if (run > 0) memcpy(fr->line + fr->len, data, run);
            fr->len += run;
            if (run == len) return len;
            i = run + 1;
            fw_frame_event_t e = end_line(fr);
            if (e != FW_FRAME_NONE) {
                *ev = e;
                return i;
            }
        }
    }
#endif
    return push_runs(fr, data, len, i, ev);
}
#else
/* Byte by byte (FW_SPEED_PATHS 0: the least code). */
size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev)
{
    if (fr->ready) {
        fr->ready = false;
        fr->len = 0;
    }
    *ev = FW_FRAME_NONE;
    for (size_t i = 0; i < len; i++) {
        fw_frame_event_t e = take(fr, data[i]);
        if (e != FW_FRAME_NONE) {
            *ev = e;
            return i + 1;
        }
    }
    return len;
}
#endif
