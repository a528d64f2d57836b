/* framing.c: splits a byte stream into newline-delimited lines of at most FW_LINE_MAX bytes. */
#include "fw_internal.h"
#include "framing_fast.h"

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
#if FW_LINE_PAD > 1
    memset(fr->line, 0, sizeof fr->line); /* the pad is read (never used) past a line's NUL */
#else
    fr->line[0] = '\0';
#endif
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

#if FW_SPEED_PATHS >= 2
/* From data[i] on, byte run by byte run, with the line so far in fr (have bytes, not ready). */
FW_COLD_L2 size_t fw_framer_push_from(fw_framer_t *fr, const uint8_t *data, size_t len, size_t i,
                                      size_t have, fw_frame_event_t *ev)
{
    fr->len = have;
    fr->ready = false;
    *ev = FW_FRAME_NONE;
    return push_runs(fr, data, len, i, ev);
}

/* A line (end bytes, its CR dropped) that is empty or starts with a CR: skipped when it is
   only CRs (then the bytes after its LF, from data[i], are pushed), else reported. */
FW_COLD_L2 size_t fw_framer_line_or_blank(fw_framer_t *fr, const uint8_t *data, size_t len,
                                          size_t i, size_t end, fw_frame_event_t *ev)
{
    fr->len = end;
    if (only_crs(fr)) return fw_framer_push_from(fr, data, len, i, 0, ev);
    fr->line[end] = '\0';
    fr->ready = true;
    *ev = FW_FRAME_LINE;
    return i;
}

/* The usual read's path is framer_push (framing_fast.h), inlined into the byte-stream feed
   too. */
size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev)
{
    return framer_push(fr, data, len, ev);
}
#else
size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev)
{
    if (fr->ready) {
        fr->ready = false;
        fr->len = 0;
    }
    *ev = FW_FRAME_NONE;
    return push_runs(fr, data, len, 0, ev);
}
#endif
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
