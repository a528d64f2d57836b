/* fuzz_device_feed.c: fuzz harness of the byte-stream path (framing + whole device) on the rig. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#if FUZZ_DEVICE

/*
 * The input is a byte stream as a UART would deliver it. It is fed in two pieces, split at
 * data[0] * size / 255 (the first byte is fed too, so corpus files stay plain request lines),
 * with 300 ms of sampling in between; then "\n" ends whatever line the input left open, and a
 * get_info request with id "sentinel" follows. Every line the device writes must pass
 * fuzz_check_message (a response, or an MCP notification before one), and the responses must be
 * exactly those a reference framer predicts, in order:
 *  - the stream is cut at each LF; a segment of more than FW_LINE_MAX bytes (not counting a
 *    final CR) is overlong and gets one -32700 error with id null;
 *  - otherwise one final CR is dropped; a line of CRs only (or empty) is skipped;
 *  - any other line is a message, answered as fuzz_check_answer says;
 *  - the last reply is the sentinel's get_info result.
 */

static const char feed_sentinel[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"method\":\"get_info\"}\n";

typedef struct feed_out {
    fuzz_buf_t line; /* the reply line being written */
    json_t *replies; /* every complete reply line, parsed, in order */
} feed_out_t;

/* The sink: collects bytes up to each "\n" and checks the line. */
static void feed_write(void *ctx, const char *data, size_t len)
{
    feed_out_t *o = ctx;
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl != NULL ? (size_t)(nl - data) : len;
        if (n > 0) fuzz_buf_write(&o->line, data, n);
        if (nl == NULL) return;
        FUZZ_CHECK(o->line.len > 0, "feed: an empty reply line");
        json_array_append_new(o->replies, fuzz_check_message(o->line.data, o->line.len, "feed"));
        o->line.len = 0;
        data += n + 1;
        len -= n + 1;
    }
}

/* Skips the notifications the device may send before a response (MCP log messages and
   progress while a tools/call runs). */
static void skip_notifications(const json_t *replies, size_t *k)
{
    while (*k < json_array_size(replies) && fuzz_is_notification(json_array_get(replies, *k)))
        (*k)++;
}

/* The next reply, or a failure when there is none. */
static const json_t *next_reply(const json_t *replies, size_t *k, const char *why)
{
    skip_notifications(replies, k);
    FUZZ_CHECK(*k < json_array_size(replies), "feed: no reply for %s", why);
    return json_array_get(replies, (*k)++);
}

/* One LF-terminated segment of the stream, as the framer must treat it. */
static void check_segment(const char *s, size_t n, const json_t *replies, size_t *k)
{
    size_t len = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
    if (n > FW_LINE_MAX && !(n == FW_LINE_MAX + 1 && len == FW_LINE_MAX)) {
        fuzz_check_message_error(next_reply(replies, k, "an overlong line"), FW_RPC_PARSE_ERROR,
                                 "feed: overlong line");
        return;
    }
    size_t crs = 0;
    while (crs < len && s[crs] == '\r') crs++;
    if (crs == len) return; /* empty or CRs only: skipped */
    const json_t *reply = NULL;
    if (fuzz_wants_reply(s, len)) reply = next_reply(replies, k, "a line");
    fuzz_check_answer(s, len, reply, "feed");
}

/* Walks stream[0..size) (which ends with LF) segment by segment against the replies. */
static void check_stream(const char *stream, size_t size, const json_t *replies)
{
    size_t k = 0;
    for (size_t start = 0; start < size;) {
        const char *lf = memchr(stream + start, '\n', size - start);
        FUZZ_CHECK(lf != NULL, "feed: the reference stream does not end with LF");
        size_t n = (size_t)(lf - (stream + start));
        check_segment(stream + start, n, replies, &k);
        start += n + 1;
    }
    skip_notifications(replies, &k);
    FUZZ_CHECK(k == json_array_size(replies), "feed: %zu replies, %zu predicted",
               json_array_size(replies), k);
}

static fuzz_rig_t feed_rig; /* fw_device_t is large: not on the stack */

int fuzz_device_feed(const uint8_t *data, size_t size)
{
    /* The whole stream the device sees: the input, "\n" and the sentinel. */
    size_t total = size + 1 + sizeof feed_sentinel - 1;
    char *stream = malloc(total);
    FUZZ_CHECK(stream != NULL, "out of memory");
    memcpy(stream, data, size);
    stream[size] = '\n';
    memcpy(stream + size + 1, feed_sentinel, sizeof feed_sentinel - 1);
    uint8_t *in = (uint8_t *)fuzz_exact_copy(data, size);
    static fuzz_buf_t line; /* kept between runs: no growing it again each time */
    line.len = 0;
    feed_out_t out = {line, json_array()};
    fw_sink_t sink = {feed_write, &out};
    size_t split = size > 0 ? (size_t)data[0] * size / 255u : 0;

    fuzz_rig_reset(&feed_rig, false);
    fw_device_feed(&feed_rig.dev, &feed_rig.framer, in, split, sink);
    fuzz_rig_advance(&feed_rig, 300);
    fw_device_feed(&feed_rig.dev, &feed_rig.framer, in + split, size - split, sink);
    fw_device_feed(&feed_rig.dev, &feed_rig.framer, (const uint8_t *)"\n", 1, sink);
    size_t before = json_array_size(out.replies);
    fw_device_feed(&feed_rig.dev, &feed_rig.framer, (const uint8_t *)feed_sentinel,
                   sizeof feed_sentinel - 1, sink);
    FUZZ_CHECK(out.line.len == 0, "feed: a reply without its newline");
    FUZZ_CHECK(json_array_size(out.replies) == before + 1, "feed: the sentinel got %zu lines",
               json_array_size(out.replies) - before);
    check_stream(stream, total, out.replies);
    const json_t *last = json_array_get(out.replies, json_array_size(out.replies) - 1);
    const json_t *device = json_object_get(json_object_get(last, "result"), "device");
    FUZZ_CHECK(json_is_string(device) && strcmp(json_string_value(device), FUZZ_BOARD_DEVICE) == 0,
               "feed: the sentinel's get_info has no device name");

    json_decref(out.replies);
    line = out.line;
    free(in);
    free(stream);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_device_feed(data, size);
}
#endif

#endif /* FUZZ_DEVICE */
