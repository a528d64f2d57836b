/* ws_conn.c: one WebSocket connection serving MCP: whole messages in, the 003 envelope
   detected per message, replies and notifications out as one text frame each. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "envelope.h"
#include "log.h"
#include "ws_internal.h"

static const char headroom[LWS_PRE];

/* ---------------------------------------------------------------- output */

static void free_frames(ws_conn_t *c)
{
    host_out_sent(c->ws->h, c->queued);
    while (c->head) {
        ws_frame_t *f = c->head;
        c->head = f->next;
        free(f->buf);
        free(f);
    }
    c->tail = NULL;
    c->queued = 0;
}

/* A client that does not read: it is dropped, never waited for. */
static void kill_slow(ws_conn_t *c)
{
    host_t *h = c->ws->h;
    if (h->out_total > h->out_budget)
        host_log(HOST_LOG_WARN,
                 "%s: %s does not read its messages (%zu bytes queued, over twice its share of "
                 "%zu while all clients hold %zu of the %zu-byte output budget): disconnected",
                 c->label, c->peer, c->queued, host_out_share(h), h->out_total, h->out_budget);
    else
        host_log(HOST_LOG_WARN,
                 "%s: %s does not read its messages (over %u bytes queued): disconnected", c->label,
                 c->peer, HOST_WS_OUT_MAX);
    c->dead = true;
    free_frames(c);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* A write lws refused: the connection goes (its close is lws's). */
static void write_failed(ws_conn_t *c)
{
    host_log(HOST_LOG_DEBUG, "%s: %s: write failed", c->label, c->peer);
    c->dead = true;
    free_frames(c);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Takes the message in c->out (headroom included) as the next frame. direct: when nothing
   waits before it, it is written at once (one send, no writable round trip, c->out kept for
   the next message); lws keeps what the socket did not take and sends it first. */
static void enqueue(ws_conn_t *c, bool direct)
{
    size_t len = c->out.len - LWS_PRE;
    host_t *h = c->ws->h;
    if (c->queued + len > HOST_WS_OUT_MAX || host_out_over_hard(h, c->queued + len)) {
        host_buf_free(&c->out);
        kill_slow(c);
        return;
    }
    if (direct && !c->head && c->open && c->wsi && !lws_partial_buffered(c->wsi)) {
        int n = lws_write(c->wsi, (unsigned char *)c->out.data + LWS_PRE, len, LWS_WRITE_TEXT);
        c->out.len = 0;
        if (n < 0 || (size_t)n < len) write_failed(c);
        return;
    }
    ws_frame_t *f = malloc(sizeof *f);
    if (!f) abort();
    f->next = NULL;
    f->buf = c->out.data;
    f->len = len;
    memset(&c->out, 0, sizeof c->out); /* the frame owns the bytes now */
    if (c->tail)
        c->tail->next = f;
    else
        c->head = f;
    c->tail = f;
    c->queued += len;
    host_out_queued(h, len);
    lws_callback_on_writable(c->wsi);
    if (!c->paused && c->queued >= host_out_share(h)) { /* back-pressure: no more requests */
        c->paused = true;
        lws_rx_flow_control(c->wsi, 0);
    }
}

/* Starts a message in c->out: headroom, then the envelope's head when wrapping. */
static void begin_message(ws_conn_t *c)
{
    host_buf_append(&c->out, headroom, sizeof headroom);
    if (c->out_wrap) host_env_head(&c->out, c->session_id);
}

static void out_write(void *ctx, const char *data, size_t len)
{
    ws_conn_t *c = ctx;
    if (c->dead || c->failing) return;
    if (c->out.len == 0) begin_message(c);
    host_buf_append(&c->out, data, len);
}

/* The end of one JSON-RPC message: it becomes one frame. */
static void out_end(void *ctx)
{
    ws_conn_t *c = ctx;
    if (c->dead || c->failing) return;
    if (c->out.len == 0) begin_message(c);
    if (c->out_wrap) host_buf_append(&c->out, "}", 1);
    enqueue(c, c->out_direct);
    c->msgs_out++;
}

static fw_msg_sink_t conn_sink(ws_conn_t *c, bool wrap)
{
    c->out_wrap = wrap;
    c->out_direct = true;
    c->out.len = 0;
    return (fw_msg_sink_t){out_write, c, out_end, NULL};
}

void ws_conn_send(ws_conn_t *c, const char *text, size_t len)
{
    fw_msg_sink_t out = conn_sink(c, false);
    c->out_direct = false; /* the host's own (a hello when the link opens): the writable way */
    out.write(c, text, len);
    out.end(c);
}

void ws_conn_drain(ws_conn_t *c, host_t *h)
{
    /* a connection of another device (a fleet's) is drained by that device's watcher */
    if (!c->dead && c->h == h) host_device_drain(h, &c->session, conn_sink(c, c->envelope));
}

/* lws_write's opcode for a close frame: 4 in libwebsockets' ABI (lws-write.h leaves it out of
   the enum: "handled by lws_close_reason()") */
#define WS_WRITE_CLOSE ((enum lws_write_protocol)4)

/*
 * The close frame of a connection its input failed, once everything queued before it is out
 * (the writable callback; lws_close_reason + -1 from there ended the connection without the
 * frame). Written here, then the connection stays, unread, for up to 5 s so that the client
 * reads the frame before the socket goes (closed at once with its input unread, the system
 * resets the connection and the client may lose the frame).
 */
static int fail_now(ws_conn_t *c)
{
    unsigned char frame[LWS_PRE + 125];
    size_t n = strlen(c->fail_reason);
    if (n > 123) n = 123;
    frame[LWS_PRE] = (unsigned char)(c->fail_code >> 8);
    frame[LWS_PRE + 1] = (unsigned char)c->fail_code;
    memcpy(frame + LWS_PRE + 2, c->fail_reason, n);
    host_log(HOST_LOG_DEBUG, "%s: %s: sending the close frame (%u)", c->label, c->peer,
             (unsigned)c->fail_code);
    c->close_sent = true;
    if (lws_write(c->wsi, frame + LWS_PRE, n + 2, WS_WRITE_CLOSE) < 0) return -1;
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_CLOSE_ACK, 5);
    return 0;
}

/* Writes queued frames while the socket takes them whole (lws_partial_buffered: it kept part
   of the last one), so a backlog costs one writable round trip per socket buffer, not one per
   frame.
   A connection its input failed sends its close frame once they are all out. */
int ws_conn_writable(ws_conn_t *c)
{
    if (c->dead) return -1;
    if (!c->head) {
        if (!c->failing || c->close_sent) return 0;
        if (!lws_partial_buffered(c->wsi)) return fail_now(c);
        lws_callback_on_writable(c->wsi); /* after lws sent what it holds */
        return 0;
    }
    do {
        ws_frame_t *f = c->head;
        int n = lws_write(c->wsi, (unsigned char *)f->buf + LWS_PRE, f->len, LWS_WRITE_TEXT);
        if (n < 0 || (size_t)n < f->len) {
            host_log(HOST_LOG_DEBUG, "%s: %s: write failed", c->label, c->peer);
            return -1;
        }
        c->head = f->next;
        if (!c->head) c->tail = NULL;
        c->queued -= f->len;
        host_out_sent(c->ws->h, f->len);
        free(f->buf);
        free(f);
    } while (c->head && !lws_partial_buffered(c->wsi));
    if (c->head || c->failing) lws_callback_on_writable(c->wsi);
    if (c->paused && !c->failing && c->queued <= host_out_share(c->ws->h) / 2) {
        c->paused = false;
        lws_rx_flow_control(c->wsi, 1);
    }
    return 0;
}

/* ---------------------------------------------------------------- messages in */

/* A bridged request's answer, after the call: one frame, in the request's form (loop thread,
   after the call). */
static void late_frame(ws_conn_t *c, const char *msg, size_t len, bool wrap)
{
    if (!c->open || c->dead) return;
    fw_msg_sink_t out = conn_sink(c, wrap);
    out.write(c, msg, len);
    out.end(c);
}

static void late_plain(void *ctx, const char *msg, size_t len)
{
    late_frame(ctx, msg, len, false);
}

static void late_wrapped(void *ctx, const char *msg, size_t len)
{
    late_frame(ctx, msg, len, true);
}

static void call_device(ws_conn_t *c, const char *msg, size_t len, bool wrap)
{
    /* the dial-out link's label is "connect" (its log prefix); the message log says dial-out */
    const char *transport = strcmp(c->label, "ws") == 0 ? "ws" : "dial-out";
    host_late_t late = {wrap ? late_wrapped : late_plain, c, transport};
    c->msgs_in++;
    ws_conn_t *outer = c->ws->calling;
    c->ws->calling = c; /* the watcher told "not all" drains this one */
    host_device_session_late(c->h, transport, &c->session, msg, len, NULL, conn_sink(c, wrap),
                             late);
    c->ws->calling = outer;
}

/* Takes the envelope's session_id (echoed in every wrapped message until the next one). */
static void take_session_id(ws_conn_t *c, host_env_t *env)
{
    free(c->session_id);
    c->session_id = env->session_id;
    env->session_id = NULL;
}

/* An envelope of type "mcp": its payload is the message; the answers are wrapped alike. */
static void handle_mcp_envelope(ws_conn_t *c, host_env_t *env)
{
    take_session_id(c, env);
    c->envelope = true;
    if (!env->payload) {
        host_log(HOST_LOG_DEBUG, "%s: %s: envelope of type mcp without an object payload", c->label,
                 c->peer);
        char bad[200];
        size_t n = host_env_bad_payload(bad, sizeof bad);
        fw_msg_sink_t out = conn_sink(c, true);
        out.write(c, bad, n);
        out.end(c);
        return;
    }
    call_device(c, env->payload, env->payload_len, true);
}

/*
 * One whole message. An object with a string "type" and no "jsonrpc" is an envelope; anything
 * else (including text that is not JSON) goes to the core as plain JSON-RPC. Another envelope
 * type (hello, listen, abort...) is nothing for MCP; a hello may assign the session_id the
 * device is to use.
 */
static void handle_message(ws_conn_t *c, const char *msg, size_t len)
{
    host_env_t env;
    host_env_parse(msg, len, &env);
    if (env.kind == HOST_ENV_PLAIN) {
        c->envelope = false;
        call_device(c, msg, len, false);
    } else if (env.kind == HOST_ENV_MCP) {
        handle_mcp_envelope(c, &env);
    } else {
        bool assigns = env.session_id != NULL;
        if (assigns) take_session_id(c, &env);
        host_log(HOST_LOG_DEBUG, "%s: %s: envelope of type \"%s\" ignored%s", c->label, c->peer,
                 env.type, assigns ? " (its session_id is used from now on)" : "");
    }
    host_env_free(&env);
}

/*
 * UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF) of a text message,
 * checked here across its fragments rather than by libwebsockets: 4.1.6's check
 * (LWS_SERVER_OPTION_VALIDATE_UTF8) lets a message that ends inside a sequence through when its
 * last fragment is empty, and runs the payload of a ping or pong that arrives between two
 * fragments through the text's check, so a correct client's binary pong closed the connection
 * with 1007 (both found by sim/tests/fuzz/fuzz_ws.c). False at the first byte that cannot
 * continue valid UTF-8.
 */
static bool utf8_feed(ws_conn_t *c, const unsigned char *p, size_t n)
{
    unsigned need = c->utf8_need, lo = c->utf8_lo, hi = c->utf8_hi;
    for (size_t i = 0; i < n; i++) {
        unsigned b = p[i];
        if (need > 0) {
            if (b < lo || b > hi) return false;
            need--;
            lo = 0x80;
            hi = 0xBF;
        } else if (b >= 0x80) {
            lo = 0x80;
            hi = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                need = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                need = 2;
                if (b == 0xE0) lo = 0xA0; /* overlong */
                if (b == 0xED) hi = 0x9F; /* surrogates */
            } else if (b >= 0xF0 && b <= 0xF4) {
                need = 3;
                if (b == 0xF0) lo = 0x90; /* overlong */
                if (b == 0xF4) hi = 0x8F; /* past U+10FFFF */
            } else {
                return false;
            }
        }
    }
    c->utf8_need = (uint8_t)need;
    c->utf8_lo = (uint8_t)lo;
    c->utf8_hi = (uint8_t)hi;
    return true;
}

/*
 * Fails the connection with code and a reason the peer can read (a static string): no more
 * input is taken, the answers already queued go out, then the close frame, which mcpsim writes
 * itself from the writable callback (ws_conn_writable, fail_now). Handing the close to
 * libwebsockets at once (lws_close_reason and -1 from the receive callback) lost the frame:
 * a paused client that then sent invalid UTF-8 got 191 of its 200 answers and a bare hang-up
 * (test_it_ws invalid_utf8_held_behind_back_pressure_still_closes_with_1007), and, with nothing
 * held back by lws, a client whose input went on after the invalid message got an end of
 * stream after its answers and no close frame, now and then, when the machine was busy
 * (fuzz_ws, corpus/ws/regress-1007-lost-when-handed-to-lws; under `taskset` on a core shared
 * with a fuzzer it came back within 3,000 runs of that input, and not in 7,500 with this path).
 */
static int refuse(ws_conn_t *c, enum lws_close_status code, const char *reason)
{
    host_log(HOST_LOG_WARN, "%s: %s: %s: closing (%d)", c->label, c->peer, reason, (int)code);
    c->failing = true;
    c->fail_code = (uint16_t)code;
    c->fail_reason = reason;
    host_in_release(c->ws->h, c->in.len);
    host_buf_free(&c->in); /* its room too: a refused client keeps nothing */
    /* what follows should not be parsed (a protocol error there would end the connection
       first, without this close frame): lws is asked to hold the rest of its read (4.1.6 may
       still parse what it had read: a gap written down in docs/transports.md) */
    if (!c->paused) lws_rx_flow_control(c->wsi, 0);
    c->paused = true;
    lws_callback_on_writable(c->wsi);
    /* a client that does not read them is not kept waiting for: gone after 10 s */
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, 10);
    return 0;
}

/* 1013 Try Again Later (IANA's WebSocket close code registry; not in lws's enum) */
#define WS_CLOSE_TRY_AGAIN_LATER ((enum lws_close_status)1013)

int ws_conn_receive(ws_conn_t *c, const char *data, size_t len)
{
    if (c->dead || c->failing) return 0;
    if (lws_frame_is_binary(c->wsi))
        return refuse(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                      "binary frames are not accepted: send JSON-RPC as text");
    if (c->in.len + len > HOST_WS_MSG_MAX)
        return refuse(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message longer than 1048576 bytes");
    bool final = lws_is_final_fragment(c->wsi);
    if (!utf8_feed(c, (const unsigned char *)data, len) || (final && c->utf8_need > 0))
        return refuse(c, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "text is not valid UTF-8");
    if (final && c->in.len == 0) { /* the usual case: a whole message in one piece */
        handle_message(c, data, len);
        return 0;
    }
    if (!host_in_take(c->ws->h, c->in.len, len))
        return refuse(c, WS_CLOSE_TRY_AGAIN_LATER,
                      "message refused for now: the server holds too much unfinished input "
                      "(input budget)");
    host_buf_append(&c->in, data, len);
    if (final) {
        handle_message(c, c->in.data, c->in.len);
        host_in_release(c->ws->h, c->in.len);
        if (c->in.cap > c->ws->h->in_share)
            host_buf_free(&c->in); /* the room of a long message is not kept, uncounted */
        else
            c->in.len = 0;
    }
    return 0;
}

/* ---------------------------------------------------------------- life */

/* "127.0.0.1:51234" or "[::1]:51234" (an IPv4-mapped address shown as IPv4). */
static void peer_name(struct lws *wsi, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    snprintf(out, cap, "?");
    if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&ss, &sl) != 0) return;
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        snprintf(out, cap, "%s:%u", ip, (unsigned)ntohs(a->sin_port));
        return;
    }
    const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&ss;
    port = ntohs(a6->sin6_port);
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
        inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], ip, sizeof ip);
        snprintf(out, cap, "%s:%u", ip, port);
    } else {
        inet_ntop(AF_INET6, &a6->sin6_addr, ip, sizeof ip);
        snprintf(out, cap, "[%s]:%u", ip, port);
    }
}

void ws_conn_open(ws_conn_t *c, host_ws_t *ws, struct lws *wsi, const char *label, bool envelope)
{
    ws_conn_open_device(c, ws, ws->h, wsi, label, envelope);
}

void ws_conn_open_device(ws_conn_t *c, host_ws_t *ws, host_t *h, struct lws *wsi, const char *label,
                         bool envelope)
{
    memset(c, 0, sizeof *c);
    c->ws = ws;
    c->h = h;
    c->wsi = wsi;
    c->label = label;
    c->envelope = envelope;
    c->open = true;
    peer_name(wsi, c->peer, sizeof c->peer);
    fw_session_init(&c->session, sim_device(h->sim));
    c->next = ws->conns;
    if (ws->conns) ws->conns->prev = c;
    ws->conns = c;
    host_out_conn(ws->h, 1);
}

void ws_conn_close(ws_conn_t *c)
{
    if (!c->open) return;
    if (c->ws->calling == c) c->ws->calling = NULL;
    host_device_forget(c->h, c);
    host_device_release(c->h, &c->session); /* its listen streams end */
    if (c->prev)
        c->prev->next = c->next;
    else
        c->ws->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
    host_out_conn(c->ws->h, -1);
    free_frames(c);
    host_in_release(c->ws->h, c->in.len);
    host_buf_free(&c->in);
    host_buf_free(&c->out);
    free(c->session_id);
    c->session_id = NULL;
    c->wsi = NULL;
    c->open = false;
}
