/* fuzz_device_handle.c: fuzz harness of the whole-message path (HTTP/WS) of the device rig. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#if FUZZ_DEVICE

/*
 * The input is one whole message. It is handled twice:
 *  1. on the healthy rig through fw_device_handle (the plain whole-message path);
 *  2. on the variant board (millivolt reports, no schemas) with a failing HAL whose pattern is a
 *     hash of the input, through fw_device_handle_session (the MCP transports' path) in a
 *     session that has done initialize, notifications/initialized and logging/setLevel debug,
 *     with a sink that frames messages; then 500 ms of sampling and fw_device_drain.
 * Each time the message buffer must be left unmodified and:
 *  - a response is written exactly when the call says so; on path 1 it is the only output and
 *    holds no newline (the stream path adds one); on path 2 every framed message passes
 *    fuzz_check_message, only notifications precede the response and the response comes last;
 *    what fw_device_drain writes are notifications, as many as it returns;
 *  - on path 2, fw_device_handle_envelope, given the message as fw_envelope_read read it, on the
 *    same state, writes the same bytes and ends the same messages as fw_device_handle_session;
 *  - the response is the one the oracle (fuzz_oracle.c) prescribes: presence, ids, shape, the
 *    codes of refused messages, envelopes, unknown methods and arguments the schemas refuse;
 *  - afterwards, with the HAL healthy again, the device still answers get_info.
 */

static const char handle_sentinel[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"method\":\"get_info\"}";

/* Brings a session to the state of an MCP client that logs everything. */
static const char *const session_setup[] = {
    ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
     "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}"),
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"logging/"
    "setLevel\",\"params\":{\"level\":\"debug\"}}",
};

static fuzz_rig_t handle_rig; /* fw_device_t is large: not on the stack */
static fw_session_t handle_session;

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* A framing sink: bytes up to each end() are one message, checked and kept in order. */
typedef struct framed {
    fuzz_buf_t cur;
    json_t *msgs;
} framed_t;

/* While raw_on, everything the framing sinks are given, each end() as a 0x1e byte. */
static fuzz_buf_t raw_out;
static bool raw_on;

static void framed_write(void *ctx, const char *data, size_t len)
{
    fuzz_buf_write(&((framed_t *)ctx)->cur, data, len);
    if (raw_on) fuzz_buf_write(&raw_out, data, len);
}

static void framed_end(void *ctx)
{
    framed_t *f = ctx;
    if (raw_on) fuzz_buf_write(&raw_out, "\x1e", 1);
    FUZZ_CHECK(f->cur.len > 0, "session: an empty message");
    json_array_append_new(f->msgs, fuzz_check_message(f->cur.data, f->cur.len, "session"));
    f->cur.len = 0;
}

/* The framing sinks' buffer, kept between messages and runs (no growing it again each time). */
static fuzz_buf_t framed_store;

static fuzz_buf_t framed_buf(void)
{
    fuzz_buf_t b = framed_store;
    b.len = 0;
    return b;
}

static void framed_keep(const framed_t *f)
{
    framed_store = f->cur;
}

/* Path 1: fw_device_handle. Returns the parsed reply (NULL: none). */
static json_t *handle_plain(const char *msg, size_t size)
{
    static fuzz_buf_t out; /* kept between runs: no growing it again for each reply */
    out.len = 0;
    bool answered = fw_device_handle(&handle_rig.dev, msg, size, (fw_sink_t){fuzz_buf_write, &out});
    FUZZ_CHECK(answered == (out.len > 0), "handle: returned %d with %zu bytes written",
               (int)answered, out.len);
    FUZZ_CHECK(out.len == 0 || memchr(out.data, '\n', out.len) == NULL,
               "handle: a newline in the reply");
    return answered ? fuzz_check_reply(out.data, out.len, "handle") : NULL;
}

/* Path 2: fw_device_handle_session, or (via_env) fw_device_handle_envelope on the message as
   fw_envelope_read read it. Returns the response (NULL: none). */
static json_t *handle_framed_by(const char *msg, size_t size, bool via_env)
{
    framed_t f = {framed_buf(), json_array()};
    fw_msg_sink_t sink = {framed_write, &f, framed_end, NULL};
    bool answered;
    if (via_env) {
        static fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
        fw_envelope_t env;
        fw_envelope_read(&env, msg, size, toks, FW_JSON_TOKENS_MAX);
        answered = fw_device_handle_envelope(&handle_rig.dev, &handle_session, &env, sink);
    } else {
        answered = fw_device_handle_session(&handle_rig.dev, &handle_session, msg, size, sink);
    }
    size_t n = json_array_size(f.msgs);
    FUZZ_CHECK(f.cur.len == 0, "session: output not ended as a message");
    for (size_t i = 0; i + 1 < n; i++)
        FUZZ_CHECK(fuzz_is_notification(json_array_get(f.msgs, i)),
                   "session: a response before the last message");
    json_t *last = n > 0 ? json_array_get(f.msgs, n - 1) : NULL;
    bool response = last != NULL && !fuzz_is_notification(last);
    FUZZ_CHECK(answered == response, "session: returned %d, response written %d", (int)answered,
               (int)response);
    json_t *reply = response ? json_incref(last) : NULL;
    json_decref(f.msgs);
    framed_keep(&f);
    return reply;
}

static json_t *handle_framed(const char *msg, size_t size)
{
    return handle_framed_by(msg, size, false);
}

/* fw_device_drain writes only notifications, as many as it says. */
static void drain(void)
{
    framed_t f = {framed_buf(), json_array()};
    size_t n = fw_device_drain(&handle_rig.dev, &handle_session,
                               (fw_msg_sink_t){framed_write, &f, framed_end, NULL});
    FUZZ_CHECK(n == json_array_size(f.msgs) && f.cur.len == 0,
               "drain: returned %zu for %zu messages", n, json_array_size(f.msgs));
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(fuzz_is_notification(json_array_get(f.msgs, i)),
                   "drain: wrote something else than a notification");
    json_decref(f.msgs);
    framed_keep(&f);
}

static void setup_session(void)
{
    fw_session_init(&handle_session, &handle_rig.dev);
    for (size_t i = 0; i < sizeof session_setup / sizeof session_setup[0]; i++) {
        json_decref(handle_framed(session_setup[i], strlen(session_setup[i])));
        drain();
    }
    FUZZ_CHECK(handle_session.initialize_seen, "session: initialize did not take");
}

static void check_sentinel(bool framed)
{
    json_t *reply = framed ? handle_framed(handle_sentinel, sizeof handle_sentinel - 1)
                           : handle_plain(handle_sentinel, sizeof handle_sentinel - 1);
    FUZZ_CHECK(reply != NULL, "handle: no answer to get_info afterwards");
    FUZZ_CHECK(json_object_get(json_object_get(reply, "result"), "device") != NULL,
               "handle: get_info afterwards failed");
    json_decref(reply);
}

/* The framed path's starting point: the variant rig with the session set up, kept once and
   copied back before each input (the session points only at the rig's device and at constant
   tool descriptors, so a copy into the same objects is that state exactly). */
static fuzz_rig_t setup_rig;
static fw_session_t setup_sess;

static void reset_framed(void)
{
    static bool taken;
    if (!taken) {
        fuzz_rig_init(&handle_rig, true);
        setup_session();
        memcpy(&setup_rig, &handle_rig, sizeof setup_rig);
        setup_sess = handle_session;
        taken = true;
        return;
    }
    memcpy(&handle_rig, &setup_rig, sizeof handle_rig);
    handle_session = setup_sess;
}

static void run(const uint8_t *data, size_t size, bool framed)
{
    char *msg = fuzz_exact_copy(data, size);
    if (framed) {
        reset_framed();
    } else {
        fuzz_rig_reset(&handle_rig, false);
    }
    handle_rig.failing = framed;
    handle_rig.fail_pattern = fnv1a(data, size) | 1u;
    raw_on = framed;
    raw_out.len = 0;
    json_t *reply = framed ? handle_framed(msg, size) : handle_plain(msg, size);
    FUZZ_CHECK(memcmp(msg, data, size) == 0, "handle: the message buffer was modified");
    fuzz_check_answer(msg, size, reply, framed ? "session" : "handle");
    json_decref(reply);
    if (framed) { /* the same message on the same state, handed over with its envelope */
        static fuzz_buf_t by_text;
        by_text.len = 0;
        fuzz_buf_write(&by_text, raw_out.data, raw_out.len);
        reset_framed();
        handle_rig.failing = true;
        handle_rig.fail_pattern = fnv1a(data, size) | 1u;
        raw_out.len = 0;
        json_decref(handle_framed_by(msg, size, true));
        FUZZ_CHECK(raw_out.len == by_text.len &&
                       (raw_out.len == 0 || memcmp(raw_out.data, by_text.data, raw_out.len) == 0),
                   "envelope: answered otherwise than the text (%zu bytes, %zu by the text)",
                   raw_out.len, by_text.len);
    }
    raw_on = false;
    if (framed) {
        fuzz_rig_advance(&handle_rig, 500);
        drain();
    }
    handle_rig.failing = false;
    check_sentinel(framed);
    free(msg);
}

int fuzz_device_handle(const uint8_t *data, size_t size)
{
    run(data, size, false);
    run(data, size, true);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_device_handle(data, size);
}
#endif

#endif /* FUZZ_DEVICE */
