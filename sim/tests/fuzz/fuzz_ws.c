/* fuzz_ws.c: the WebSocket host (sim/host/ws.c, ws_conn.c) through libwebsockets itself:
   fragmented messages, continuation frames, control frames between fragments, UTF-8 validation
   of text messages, envelope detection, on a simulated esp32-demo board (virtual clock).

   One server lives for the whole run (a host_t with host_ws_open on 127.0.0.1:0). Each input
   opens a WebSocket connection (a fixed, valid upgrade) and is turned into client frames: one
   header byte (FIN, RSV1-3, opcode: any of them, valid or not), one length byte (255: two more
   bytes give the length), then that many payload bytes; each frame is masked as a client's
   must be. A model of RFC 6455 follows the frames: the first protocol error (an RSV bit, a
   reserved opcode, a fragmented or long control frame, a continuation without a start, a new
   message inside one), a close frame, a binary message (mcpsim refuses it: 1003) or a text
   message whose bytes stop being UTF-8 ends what it can predict. Properties:
    - no crash, no leak; everything the server sent is a well-formed server frame (unmasked;
      text, close or pong), every text frame is valid UTF-8 and one JSON text;
    - when the model's first ending is invalid UTF-8, the server closes with 1007; any other
      protocol error, a close frame or a binary message: the server sends its close frame or
      hangs up;
    - when nothing ended the connection, every whole text message that is a JSON-RPC "ping"
      or "tools/list" request (plain, or as an envelope of type "mcp") gets its response (by
      id; after a close or an error, answers still queued may be dropped, RFC 6455 5.5.1);
    - the next good request still works: a ping on the same connection when it is still usable
      (no message left open), else on a new one, is answered. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../firmware/tests/fuzz/fuzz_numbers.h"
#include "fuzz_net.h"
#include "fuzz_sim.h"
#include "host.h"
#include "log.h"
#include "ws.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif

/* Wall-clock ms an exchange may take (generous under the sanitizers). */
#define WS_WAIT_MS 5000
/* The harness's own reading of the server's bytes is left out of libFuzzer's coverage: it is
   not what is fuzzed. With the parse once per arrival (ws_wait_for), the corpus's replay takes
   16 % less CPU (docs/fuzzing.md). */
#if defined(__clang__)
#define WS_UNTRACED __attribute__((no_sanitize("coverage")))
#else
#define WS_UNTRACED
#endif
/* The input budget of the server under test (host_in_take): any message longer than this that
   arrives in more than one piece is refused with 1013, so that the refusal is fuzzed too (the
   default, 64 KiB per client, is past what an input holds). */
#define WS_IN_BUDGET 1024u
/* Quiet loop turns (the last waiting up to 1 ms) that end waiting when nothing more is
   expected. */
#define WS_QUIET_TURNS 3

/* The input sent a close frame the model saw (reset per input). */
static bool client_closed;

typedef struct ws_server {
    host_t host;
    int port;
} ws_server_t;

static ws_server_t *ws_the_server(void)
{
    static ws_server_t s;
    static bool started;
    if (started) return &s;
    host_log_set_level(HOST_LOG_ERROR);
    sim_error_t serr;
    memset(&serr, 0, sizeof serr);
    sim_board_t *b = sim_board_load(MCPSIM_SOURCE_DIR "/sim/boards/esp32-demo.json", &serr);
    FUZZ_SIM_CHECK(b != NULL, "the esp32-demo board does not load");
    sim_t *sim = sim_create(b, SIM_CLOCK_VIRTUAL, &serr);
    FUZZ_SIM_CHECK(sim != NULL, "the esp32-demo board does not boot");
    FUZZ_SIM_CHECK(host_init(&s.host, sim) == 0, "host_init failed");
    s.host.out_budget = (size_t)HOST_OUTPUT_BUDGET_MB_DEFAULT << 20;
    s.host.in_budget = WS_IN_BUDGET;
    s.host.in_share = WS_IN_BUDGET;
    host_ws_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listen.enabled = true;
    snprintf(cfg.listen.host, sizeof cfg.listen.host, "127.0.0.1");
    char url[320];
    FUZZ_SIM_CHECK(host_ws_open(&s.host, &cfg, url, sizeof url) == 0, "host_ws_open failed");
    const char *colon = strrchr(url, ':');
    FUZZ_SIM_CHECK(colon != NULL && sscanf(colon + 1, "%d", &s.port) == 1, "no port in the URL");
    started = true;
    return &s;
}

/* ---------------------------------------------------------------- the client */

static void ws_send_all(ws_server_t *s, int fd, const uint8_t *d, size_t len, fuzz_net_rx_t *r)
{
    size_t off = 0;
    while (off < len && !r->closed) {
        ssize_t n = send(fd, d + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR || errno == ENOTCONN)) {
            fuzz_net_turn(&s->host.loop, fd, 10);
            (void)fuzz_net_drain(fd, r);
        } else {
            return; /* the server closed: the rest is not sent */
        }
    }
}

static const char ws_upgrade[] =
    "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n";

/* A new WebSocket connection, upgraded; r is left holding what followed the 101's headers. */
static int ws_connect(ws_server_t *s, fuzz_net_rx_t *r)
{
    int fd = fuzz_net_connect(s->port);
    ws_send_all(s, fd, (const uint8_t *)ws_upgrade, sizeof ws_upgrade - 1, r);
    uint64_t deadline = fuzz_net_ms_now() + WS_WAIT_MS;
    const uint8_t *end = NULL;
    while (!(end = r->len ? memmem(r->data, r->len, "\r\n\r\n", 4) : NULL)) {
        FUZZ_SIM_CHECK(!r->closed && fuzz_net_ms_now() < deadline, "the upgrade got no answer");
        fuzz_net_turn(&s->host.loop, fd, 2);
        (void)fuzz_net_drain(fd, r);
    }
    FUZZ_SIM_CHECK(r->len >= 12 && memcmp(r->data, "HTTP/1.1 101", 12) == 0,
                   "the upgrade was refused");
    size_t head = (size_t)(end + 4 - r->data);
    memmove(r->data, r->data + head, r->len - head);
    r->len -= head;
    return fd;
}

/* Appends one masked client frame to out. */
static void ws_put_frame(fuzz_net_rx_t *out, uint8_t b0, const uint8_t *payload, size_t len)
{
    static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
    size_t need = out->len + 14 + len;
    if (need > out->cap) {
        out->cap = need * 2;
        out->data = realloc(out->data, out->cap);
        FUZZ_SIM_CHECK(out->data != NULL, "out of memory");
    }
    uint8_t *p = out->data + out->len;
    *p++ = b0;
    if (len < 126) {
        *p++ = (uint8_t)(0x80 | len);
    } else {
        *p++ = 0x80 | 126;
        *p++ = (uint8_t)(len >> 8);
        *p++ = (uint8_t)len;
    }
    memcpy(p, key, 4);
    p += 4;
    for (size_t i = 0; i < len; i++) *p++ = payload[i] ^ key[i % 4];
    out->len = (size_t)(p - out->data);
}

/* ---------------------------------------------------------------- UTF-8, streaming */

typedef struct ws_utf8 {
    unsigned need;  /* continuation bytes still due */
    uint8_t lo, hi; /* the range of the next continuation byte */
} ws_utf8_t;

/* False at the first byte that makes the text invalid UTF-8 (RFC 3629's table: no overlong
   forms, no surrogates, nothing past U+10FFFF); u->need > 0 at the end: a sequence cut short. */
WS_UNTRACED static bool ws_utf8_feed(ws_utf8_t *u, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (u->need) {
            if (c < u->lo || c > u->hi) return false;
            u->need--;
            u->lo = 0x80, u->hi = 0xBF;
            continue;
        }
        u->lo = 0x80, u->hi = 0xBF;
        if (c < 0x80) continue;
        if (c >= 0xC2 && c <= 0xDF) {
            u->need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            u->need = 2;
            if (c == 0xE0) u->lo = 0xA0;
            if (c == 0xED) u->hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            u->need = 3;
            if (c == 0xF0) u->lo = 0x90;
            if (c == 0xF4) u->hi = 0x8F;
        } else {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- the server's frames */

typedef struct out_frames {
    bool echo_ok;      /* the client sent a close: the server's may echo its payload as is */
    json_t *texts;     /* every text message, parsed */
    int close_code;    /* -1: no close frame; 0: one without a code */
    bool saw_sentinel; /* a response with id "sentinel" */
    /* where the parse stands: the server's bytes only grow, so each frame is read once */
    size_t at;    /* the first byte of the first frame not read yet */
    uint8_t *msg; /* a fragmented text message so far */
    size_t msg_len;
    bool in_text;
} out_frames_t;

static void frames_init(out_frames_t *o)
{
    *o = (out_frames_t){client_closed, json_array(), -1, false, 0, NULL, 0, false};
}

static void frames_free(out_frames_t *o)
{
    json_decref(o->texts);
    free(o->msg);
}

/* Parses the server's bytes that came since the last call with o (all but a cut-short last
   frame when the server did not close): the same as parsing them all from the start. */
WS_UNTRACED static void parse_server(const fuzz_net_rx_t *r, out_frames_t *o)
{
    size_t i = o->at;
    uint8_t *msg = o->msg;
    size_t msg_len = o->msg_len;
    bool in_text = o->in_text;
    while (i < r->len) {
        if (r->len - i < 2) break;
        uint8_t b0 = r->data[i], b1 = r->data[i + 1];
        size_t hl = 2;
        uint64_t len = b1 & 0x7Fu;
        FUZZ_SIM_CHECK(!(b1 & 0x80), "the server masked a frame");
        FUZZ_SIM_CHECK(!(b0 & 0x70), "the server set an RSV bit");
        if (len == 126) {
            if (r->len - i < 4) break;
            len = (uint64_t)r->data[i + 2] << 8 | r->data[i + 3];
            hl = 4;
        } else if (len == 127) {
            if (r->len - i < 10) break;
            len = 0;
            for (int k = 0; k < 8; k++) len = len << 8 | r->data[i + 2 + k];
            hl = 10;
        }
        if (r->len - i - hl < len) break;
        const uint8_t *pl = r->data + i + hl;
        unsigned op = b0 & 0x0Fu;
        bool fin = b0 & 0x80;
        FUZZ_SIM_CHECK(op == 0 || op == 1 || op == 8 || op == 9 || op == 10,
                       "the server sent a frame of a reserved or binary opcode");
        if (op >= 8) {
            FUZZ_SIM_CHECK(fin && len <= 125, "the server sent a fragmented or long control frame");
            if (op == 8) {
                o->close_code = len >= 2 ? (int)(pl[0] << 8 | pl[1]) : 0;
                ws_utf8_t u = {0};
                /* (libwebsockets echoes a client's close payload as it came) */
                FUZZ_SIM_CHECK(o->echo_ok || len != 1,
                               "the server's close frame has a 1-byte payload");
                FUZZ_SIM_CHECK(o->echo_ok || len < 2 ||
                                   (ws_utf8_feed(&u, pl + 2, len - 2) && u.need == 0),
                               "the server's close reason is not UTF-8");
            }
        } else {
            FUZZ_SIM_CHECK(op == 0 ? in_text : !in_text, "the server's fragments are out of order");
            in_text = !fin;
            msg = realloc(msg, msg_len + len + 1);
            FUZZ_SIM_CHECK(msg != NULL, "out of memory");
            memcpy(msg + msg_len, pl, len);
            msg_len += len;
            if (fin) {
                ws_utf8_t u = {0};
                FUZZ_SIM_CHECK(ws_utf8_feed(&u, msg, msg_len) && u.need == 0,
                               "the server sent a text message that is not UTF-8");
                json_error_t jerr; /* an id echoed as sent may be a number jansson cannot hold */
                json_t *doc = fuzz_json_loadb((const char *)msg, msg_len, 0, &jerr);
                if (!doc) {
                    fprintf(stderr, "fuzz: the server sent a text message that is not JSON: %.*s\n",
                            (int)(msg_len > 300 ? 300 : msg_len), msg);
                    abort();
                }
                json_t *inner = json_object_get(doc, "payload");
                const json_t *id = json_object_get(json_is_object(inner) ? inner : doc, "id");
                if (json_is_string(id) && strcmp(json_string_value(id), "sentinel") == 0)
                    o->saw_sentinel = true;
                json_array_append_new(o->texts, doc);
                msg_len = 0;
            }
        }
        i += hl + (size_t)len;
    }
    o->at = i;
    o->msg = msg;
    o->msg_len = msg_len;
    o->in_text = in_text;
}

/* Whether a response to the request with this id (JSON) is among the texts. */
WS_UNTRACED static bool ws_answered(const json_t *texts, const json_t *id)
{
    size_t k;
    json_t *t;
    json_array_foreach(texts, k, t)
    {
        json_t *inner = json_object_get(t, "payload");
        const json_t *m = json_is_object(inner) ? inner : t;
        if (json_equal(json_object_get(m, "id"), (json_t *)id) &&
            (json_object_get(m, "result") || json_object_get(m, "error")))
            return true;
    }
    return false;
}

/* ---------------------------------------------------------------- the model */

typedef enum ending {
    END_NONE,     /* nothing ended the connection */
    END_PROTOCOL, /* a protocol error, a close frame, a binary message */
    END_UTF8,     /* a text message stopped being UTF-8 */
} ending_t;

typedef struct model {
    ending_t end;
    bool over_budget; /* before any ending, a text message grew past WS_IN_BUDGET: the server
                         may have refused it (1013), as when it came in pieces */
    bool in_msg;      /* a text message is open */
    ws_utf8_t u;      /* its UTF-8 so far */
    uint8_t *text;    /* its bytes */
    size_t text_len;
    json_t *expect; /* ids of the ping and tools/list requests that must be answered */
} model_t;

/* A whole text message: when it is a ping or tools/list request, its id is expected back. */
static void model_message(model_t *m)
{
    json_t *doc = json_loadb((const char *)m->text, m->text_len, 0, NULL);
    json_t *msg = doc;
    const json_t *type = json_object_get(doc, "type");
    if (json_is_string(type) && !json_object_get(doc, "jsonrpc")) {
        msg = strcmp(json_string_value(type), "mcp") == 0 ? json_object_get(doc, "payload") : NULL;
    }
    const json_t *v = json_object_get(msg, "jsonrpc");
    const json_t *method = json_object_get(msg, "method");
    const json_t *id = json_object_get(msg, "id");
    if (json_is_object(msg) && json_is_string(v) && strcmp(json_string_value(v), "2.0") == 0 &&
        json_is_string(method) &&
        (strcmp(json_string_value(method), "ping") == 0 ||
         strcmp(json_string_value(method), "tools/list") == 0) &&
        (json_is_string(id) || json_is_integer(id)))
        json_array_append(m->expect, (json_t *)id);
    json_decref(doc);
}

/* One client frame through the model. */
static void model_frame(model_t *m, uint8_t b0, const uint8_t *p, size_t len)
{
    if (m->end != END_NONE) return;
    unsigned op = b0 & 0x0Fu;
    bool fin = b0 & 0x80;
    if ((b0 & 0x70) || (op > 2 && op < 8) || op > 10) {
        m->end = END_PROTOCOL;
        return;
    }
    if (op >= 8) {
        if (op == 8) client_closed = true;
        if (!fin || len > 125 || op == 8) m->end = END_PROTOCOL;
        return;
    }
    if (op == 0 ? !m->in_msg : m->in_msg) {
        m->end = END_PROTOCOL;
        return;
    }
    if (op == 2) {
        m->end = END_PROTOCOL; /* binary: refused with 1003 */
        return;
    }
    if (op == 1) {
        m->in_msg = true;
        memset(&m->u, 0, sizeof m->u);
        m->text_len = 0;
    }
    /* (before the UTF-8 check: the server may refuse the bytes before it reaches a bad one) */
    if (m->text_len + len > WS_IN_BUDGET) m->over_budget = true;
    if (!ws_utf8_feed(&m->u, p, len) || (fin && m->u.need)) {
        m->end = END_UTF8;
        return;
    }
    m->text = realloc(m->text, m->text_len + len + 1);
    FUZZ_SIM_CHECK(m->text != NULL, "out of memory");
    memcpy(m->text + m->text_len, p, len);
    m->text_len += len;
    if (fin) {
        m->in_msg = false;
        model_message(m);
    }
}

/* ---------------------------------------------------------------- the harness */

static const char sentinel_msg[] = "{\"jsonrpc\":\"2.0\",\"id\":\"sentinel\",\"method\":\"ping\"}";

/* Runs the loop until the sentinel's answer or the close came (sentinel_sent), or until the
   server closed (expect_close), or until it has been quiet. */
/* Waits for what is expected; o (from frames_init) holds what the server sent so far. */
static void ws_wait_for(ws_server_t *s, int fd, fuzz_net_rx_t *r, out_frames_t *o,
                        bool sentinel_sent, bool expect_close)
{
    uint64_t deadline = fuzz_net_ms_now() + WS_WAIT_MS;
    unsigned quiet = 0;
    size_t seen = SIZE_MAX; /* how many bytes were parsed last */
    for (;;) {
        (void)fuzz_net_drain(fd, r);
        if (r->closed) return;
        if (r->len != seen) { /* parsed once per arrival, not once per turn */
            seen = r->len;
            parse_server(r, o);
            if (o->close_code >= 0) { /* the server's close is answered, as a client must: then
                                        it hangs up */
                fuzz_net_rx_t f = {0};
                uint8_t code[2] = {(uint8_t)(o->close_code >> 8), (uint8_t)o->close_code};
                ws_put_frame(&f, 0x88, code, o->close_code > 0 ? 2 : 0);
                ws_send_all(s, fd, f.data, f.len, r);
                free(f.data);
                /* a close frame ends it: libwebsockets may wait for the client's close (RFC
                   6455 5.5.1) behind frames it no longer parses, up to its close-ack timeout */
                return;
            }
            if (sentinel_sent && o->saw_sentinel) return;
        }
        if (!sentinel_sent && !expect_close && quiet >= WS_QUIET_TURNS) return;
        if (fuzz_net_ms_now() >= deadline) {
            parse_server(r, o);
            fprintf(stderr, "fuzz: %zu bytes, %zu texts, close code %d\n", r->len,
                    json_array_size(o->texts), o->close_code);
            fprintf(stderr, "fuzz: %s after %d ms\n",
                    sentinel_sent  ? "no answer to the ping"
                    : expect_close ? "the server did not close the connection"
                                   : "the server kept sending",
                    WS_WAIT_MS);
            abort();
        }
        size_t before = r->len;
        fuzz_net_turn(&s->host.loop, fd,
                      sentinel_sent || expect_close ? 2
                      : quiet + 1 < WS_QUIET_TURNS  ? 0
                                                    : 1);
        (void)fuzz_net_drain(fd, r);
        quiet = r->len == before ? quiet + 1 : 0;
    }
}

static void ws_hang_up(ws_server_t *s, int fd)
{
    struct linger lg = {1, 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
    for (int i = 0; i < 4; i++) fuzz_net_turn(&s->host.loop, -1, 0);
}

/* A ping on a new connection is answered. */
static void ws_check_fresh(ws_server_t *s)
{
    client_closed = false;
    fuzz_net_rx_t r = {0};
    int fd = ws_connect(s, &r);
    fuzz_net_rx_t f = {0};
    ws_put_frame(&f, 0x81, (const uint8_t *)sentinel_msg, sizeof sentinel_msg - 1);
    ws_send_all(s, fd, f.data, f.len, &r);
    out_frames_t o;
    frames_init(&o);
    ws_wait_for(s, fd, &r, &o, true, false);
    parse_server(&r, &o);
    FUZZ_SIM_CHECK(o.saw_sentinel, "a ping on a new connection was not answered");
    frames_free(&o);
    ws_hang_up(s, fd);
    free(f.data);
    free(r.data);
}

int fuzz_sim_ws(const uint8_t *data, size_t size)
{
    if (size > 16384) return 0;
    ws_server_t *s = ws_the_server();
    fuzz_net_rx_t r = {0}, frames = {0};
    model_t m = {END_NONE, false, false, {0}, NULL, 0, json_array()};
    client_closed = false;
    for (size_t i = 0; i + 1 < size;) {
        uint8_t b0 = data[i++];
        size_t len = data[i++];
        if (len == 255 && i + 2 <= size) {
            len = (size_t)data[i] << 8 | data[i + 1];
            i += 2;
        }
        if (len > size - i) len = size - i;
        ws_put_frame(&frames, b0, data + i, len);
        model_frame(&m, b0, data + i, len);
        i += len;
    }
    int fd = ws_connect(s, &r);
    ws_send_all(s, fd, frames.data, frames.len, &r);
    bool usable = m.end == END_NONE && !m.in_msg;
    if (usable) {
        fuzz_net_rx_t f = {0};
        ws_put_frame(&f, 0x81, (const uint8_t *)sentinel_msg, sizeof sentinel_msg - 1);
        ws_send_all(s, fd, f.data, f.len, &r);
        free(f.data);
    }
    out_frames_t o;
    frames_init(&o);
    ws_wait_for(s, fd, &r, &o, usable, m.end != END_NONE);
    parse_server(&r, &o);
    /* a message past the input budget may have been refused: the connection ended there (a
       1013 can also be the echo of the client's own close frame) */
    bool refused = o.close_code == 1013 && m.over_budget;
    if (o.close_code == 1013 && !m.over_budget && !client_closed) {
        fprintf(stderr,
                "fuzz: closed with 1013 (input budget) though no message went past %u "
                "bytes\n",
                WS_IN_BUDGET);
        abort();
    }
    if (m.end == END_UTF8 && !refused && o.close_code != 1007) {
        fprintf(stderr,
                "fuzz: invalid UTF-8 in a text message: closed with %d, not 1007 (%zu bytes "
                "received, %s)\n",
                o.close_code, r.len,
                r.reset    ? "then a reset"
                : r.closed ? "then end of stream"
                           : "open");
        abort();
    }
    if (m.end != END_NONE)
        FUZZ_SIM_CHECK(r.closed || o.close_code >= 0, "the server did not close the connection");
    size_t k;
    json_t *id;
    /* once the connection ends, answers still queued may be dropped (RFC 6455 5.5.1): the
       requests must be answered when nothing ended it */
    if (m.end == END_NONE && !refused) json_array_foreach(m.expect, k, id)
        {
            if (!ws_answered(o.texts, id)) {
                char *t = json_dumps(id, JSON_ENCODE_ANY);
                fprintf(stderr, "fuzz: the request with id %s got no response\n", t ? t : "?");
                abort();
            }
        }
    if (usable && !refused)
        FUZZ_SIM_CHECK(o.saw_sentinel, "the ping after the input was not answered");
    frames_free(&o);
    ws_hang_up(s, fd);
    if (!usable || refused) ws_check_fresh(s);
    json_decref(m.expect);
    free(m.text);
    free(frames.data);
    free(r.data);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_ws(data, size);
}
#endif
