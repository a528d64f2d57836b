/* http_session.c: the HTTP transport's MCP sessions: ids, the table and its limits, each
   session's queue of server-initiated messages and its GET event stream. */
#include "http_session.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "log.h"
#include "mono.h"

/*
 * Two kinds of stream: a session's GET stream sends the session's queue; a call stream answers
 * a POST whose tools/call waits for the client's answer (the core asked the client: sampling,
 * elicitation) and sends its own queue: the request, then what host_session_deliver routes to
 * it, up to the call's response.
 */
struct host_stream {
    host_sessions_t *t;
    host_session_t *s;
    int fd;              /* the connection's socket, or -1 */
    bool call;           /* a call stream */
    bool done;           /* call stream: its response is queued, or the call waits no more */
    host_buf_t own;      /* call stream: its events */
    const char *comment; /* an SSE comment being sent (the greeting, a keep-alive) */
    size_t comment_len;
    uint64_t next_ping_ms;
    void (*wake)(void *ctx); /* it has something to send again (host_stream_on_wake) */
    void *wake_ctx;
};

static const char greeting[] = ": mcpsim event stream\n\n";
static const char keepalive[] = ": keep-alive\n\n";

void host_session_tag(const host_session_t *s, char out[16])
{
    snprintf(out, 16, "%.8s...", s->id);
}

/* ---------------------------------------------------------------- sessions */

static void wake_stream(host_stream_t *st)
{
    if (st && st->wake) st->wake(st->wake_ctx);
}

/* s's queue grew, its call stream has more, or it ended: its streams may send again. */
static void wake_session(host_session_t *s)
{
    wake_stream(s->get);
    wake_stream(s->call);
}

/* Fills buf with n random bytes from the OS; false (logged) when it gives none. */
static bool random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(p + got, n - got, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            host_log(HOST_LOG_ERROR, "http: getrandom failed: %s", strerror(errno));
            return false;
        }
        got += (size_t)k;
    }
    return true;
}

host_session_t *host_session_new(void)
{
    unsigned char raw[HOST_HTTP_SESSION_ID_LEN / 2];
    if (!random_bytes(raw, sizeof raw)) return NULL;
    host_session_t *s = calloc(1, sizeof *s);
    if (!s) abort();
    for (size_t i = 0; i < sizeof raw; i++) snprintf(s->id + 2 * i, 3, "%02x", raw[i]);
    s->refs = 1;
    s->last_ms = host_mono_ms();
    return s;
}

static void session_free(host_session_t *s)
{
    host_buf_free(&s->queue);
    free(s);
}

/* Returns true when the caller must free s (its last reference went). */
static bool unref(host_session_t *s)
{
    return --s->refs == 0;
}

/* ---------------------------------------------------------------- the index by id */

_Static_assert(HOST_HTTP_SESSION_ID_LEN % sizeof(uint64_t) == 0, "an id is whole words");

/* The bucket of an id of HOST_HTTP_SESSION_ID_LEN characters: its words mixed with the
   table's key by multiplication, the top bits of the last product. */
static size_t bucket_of(const host_sessions_t *t, const char *id)
{
    uint64_t h = t->hash_key;
    for (size_t i = 0; i < HOST_HTTP_SESSION_ID_LEN; i += sizeof h) {
        uint64_t w;
        memcpy(&w, id + i, sizeof w);
        h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
    }
    return (size_t)(h >> (64u - t->bucket_bits));
}

static void index_add(host_sessions_t *t, host_session_t *s)
{
    host_session_t **head = &t->bucket[bucket_of(t, s->id)];
    s->same_bucket = *head;
    *head = s;
}

static void index_remove(host_sessions_t *t, host_session_t *s)
{
    for (host_session_t **p = &t->bucket[bucket_of(t, s->id)]; *p; p = &(*p)->same_bucket) {
        if (*p != s) continue;
        *p = s->same_bucket;
        break;
    }
    s->same_bucket = NULL;
}

/* takes s out of the table (the last listed session takes its place) and wakes its stream. */
static void unlist(host_sessions_t *t, host_session_t *s)
{
    if (s->slot < t->count && t->slots[s->slot] == s) {
        host_session_t *last = t->slots[--t->count];
        t->slots[s->slot] = last;
        last->slot = s->slot;
        t->slots[t->count] = NULL;
        index_remove(t, s);
    }
    s->listed = false;
    if (t->on_unlist) t->on_unlist(t->on_unlist_ctx, &s->fw);
    wake_session(s);
}

/* ends sessions with no request, no stream and no activity for idle_ms. The table is walked
   only once the earliest a listed session may expire (reap_ms) has come: a session's last_ms
   only ever grows, so reap_ms stays a lower bound until the next walk computes it again (and
   a session listed later lowers it, host_sessions_publish). */
static void reap(host_sessions_t *t)
{
    uint64_t now = host_mono_ms();
    if (now < t->reap_ms) return;
    uint64_t next = UINT64_MAX;
    for (unsigned i = t->count; i-- > 0;) { /* downwards: unlist moves the last one to i */
        host_session_t *s = t->slots[i];
        if (s->streaming || s->refs > 1 || now - s->last_ms < t->idle_ms) {
            if (s->last_ms + t->idle_ms < next) next = s->last_ms + t->idle_ms;
            continue;
        }
        char tag[16];
        host_session_tag(s, tag);
        host_log(HOST_LOG_INFO, "http: session %s expired: idle for %.1f s (--http-idle-timeout)",
                 tag, (double)(now - s->last_ms) / 1000.0);
        unlist(t, s);
        if (unref(s)) session_free(s);
    }
    t->reap_ms = next;
}

void host_sessions_init(host_sessions_t *t, unsigned max, uint64_t idle_ms)
{
    memset(t, 0, sizeof *t);
    t->max = max;
    t->per_client = max / 2 ? max / 2 : 1;
    t->idle_ms = idle_ms;
    t->slots = calloc(max ? max : 1, sizeof *t->slots);
    t->bucket_bits = 1;
    while ((1u << t->bucket_bits) < 2u * max) t->bucket_bits++;
    t->bucket = calloc((size_t)1 << t->bucket_bits, sizeof *t->bucket);
    if (!t->slots || !t->bucket) abort();
    (void)random_bytes(&t->hash_key, sizeof t->hash_key); /* (a zero key still works) */
}

void host_sessions_stop(host_sessions_t *t)
{
    t->stopping = true;
    while (t->count > 0) {
        host_session_t *s = t->slots[t->count - 1];
        unlist(t, s);
        if (unref(s)) session_free(s);
    }
}

void host_sessions_destroy(host_sessions_t *t)
{
    host_sessions_stop(t);
    free(t->slots);
    t->slots = NULL;
    free(t->bucket);
    t->bucket = NULL;
    host_buf_free(&t->msg);
}

bool host_sessions_reserve(host_sessions_t *t)
{
    reap(t);
    bool ok = !t->stopping && t->count + t->reserved < t->max;
    if (ok) t->reserved++;
    return ok;
}

/* the least recently used idle listed session (of owner, unless NULL). */
static host_session_t *lru_idle(host_sessions_t *t, const char *owner)
{
    host_session_t *best = NULL;
    for (unsigned i = 0; i < t->count; i++) {
        host_session_t *s = t->slots[i];
        if (s->streaming || s->refs > 1 || s->call) continue;
        if (owner && strcmp(s->owner, owner) != 0) continue;
        if (!best || s->last_use < best->last_use) best = s;
    }
    return best;
}

static void evict(host_sessions_t *t, host_session_t *s, const char *why)
{
    char tag[16];
    host_session_tag(s, tag);
    host_log(HOST_LOG_INFO, "http: session %s of %s ended: the least recently used idle one %s",
             tag, s->owner[0] ? s->owner : "(unknown)", why);
    unlist(t, s);
    if (unref(s)) session_free(s);
}

host_reserve_t host_sessions_reserve_for(host_sessions_t *t, const char *owner)
{
    host_reserve_t rc = HOST_RESERVED;
    reap(t);
    unsigned mine = 0;
    for (unsigned i = 0; owner && i < t->count; i++)
        if (strcmp(t->slots[i]->owner, owner) == 0) mine++;
    if (t->stopping) {
        rc = HOST_RESERVE_FULL;
    } else if (owner && t->per_client && mine >= t->per_client) {
        host_session_t *s = lru_idle(t, owner);
        if (s)
            evict(t, s, "of a client at its --http-sessions-per-client");
        else
            rc = HOST_RESERVE_CLIENT_CAP;
    }
    if (rc == HOST_RESERVED && t->count + t->reserved >= t->max) {
        host_session_t *s = lru_idle(t, NULL);
        if (s && t->count > 0)
            evict(t, s, "at --http-max-sessions");
        else
            rc = HOST_RESERVE_FULL;
    }
    if (rc == HOST_RESERVED && t->count + t->reserved >= t->max) rc = HOST_RESERVE_FULL;
    if (rc == HOST_RESERVED) t->reserved++;
    return rc;
}

void host_sessions_unreserve(host_sessions_t *t)
{
    t->reserved--;
}

unsigned host_sessions_publish(host_sessions_t *t, host_session_t *s)
{
    t->reserved--;
    if (!t->stopping && t->count < t->max) {
        s->slot = t->count;
        t->slots[t->count++] = s;
        index_add(t, s);
        s->listed = true;
        s->refs++;
        s->last_ms = host_mono_ms();
        s->last_use = ++t->uses;
        if (s->last_ms + t->idle_ms < t->reap_ms) t->reap_ms = s->last_ms + t->idle_ms;
    }
    unsigned count = t->count;
    return count;
}

/* Compares two ids in time independent of where they differ. */
static bool id_equal(const char *a, const char *b)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < HOST_HTTP_SESSION_ID_LEN; i++) diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

host_session_t *host_sessions_find(host_sessions_t *t, const char *id)
{
    if (!id || strlen(id) != HOST_HTTP_SESSION_ID_LEN) return NULL;
    host_session_t *found = NULL;
    reap(t);
    for (host_session_t *s = t->bucket[bucket_of(t, id)]; s && !found; s = s->same_bucket)
        if (id_equal(s->id, id)) found = s;
    if (found) {
        found->refs++;
        found->last_ms = host_mono_ms();
        found->last_use = ++t->uses;
    }
    return found;
}

void host_session_release(host_sessions_t *t, host_session_t *s)
{
    s->last_ms = host_mono_ms();
    s->last_use = ++t->uses;
    bool last = unref(s);
    if (last) session_free(s);
}

bool host_sessions_end(host_sessions_t *t, host_session_t *s)
{
    bool was = s->listed;
    if (was) unlist(t, s);
    bool last = was && unref(s); /* the table's reference; the caller still holds one */
    if (last) session_free(s);
    return was;
}

/* ---------------------------------------------------------------- server-initiated messages */

void host_sse_event(host_buf_t *out, const char *json, size_t len)
{
    host_buf_append(out, "event: message\ndata: ", 21);
    size_t start = 0; /* JSON has line breaks between tokens only: each starts a data line */
    for (size_t i = 0; i <= len; i++) {
        if (i < len && json[i] != '\n' && json[i] != '\r') continue;
        host_buf_append(out, json + start, i - start);
        if (i < len && json[i] == '\n') host_buf_append(out, "\ndata: ", 7);
        start = i + 1;
    }
    host_buf_append(out, "\n\n", 2);
}

/* appends one SSE event (a "data:" line per line of json) and wakes the stream. */
static void queue_event(host_session_t *s, const char *json, size_t len)
{
    if (s->queue.len + len + 32 > HOST_HTTP_QUEUE_MAX) {
        if (s->dropped++ == 0) {
            char tag[16];
            host_session_tag(s, tag);
            host_log(HOST_LOG_WARN,
                     "http: session %s: over %u bytes of notifications wait for its GET stream "
                     "(open one: GET /mcp); dropping new ones",
                     tag, HOST_HTTP_QUEUE_MAX);
        }
        return;
    }
    host_sse_event(&s->queue, json, len);
    wake_session(s);
}

void host_session_push(host_sessions_t *t, host_session_t *s, const char *json, size_t len)
{
    (void)t;
    queue_event(s, json, len);
}

static void end_call(host_session_t *s);

typedef struct drain_ctx {
    host_sessions_t *t;
    host_session_t *s;
    bool response; /* the message being drained is a response (drain_tell) */
} drain_ctx_t;

static void drain_write(void *ctx, const char *data, size_t len)
{
    drain_ctx_t *d = ctx;
    host_buf_append(&d->t->msg, data, len);
}

/* What the device says the drained message is: a response is one it held, such as a 2025-11-25
   tasks/result answered when its task ended. */
static void drain_tell(void *ctx, fw_msg_kind_t kind, int32_t code)
{
    drain_ctx_t *d = ctx;
    (void)code;
    d->response = kind == FW_MSG_RESULT || kind == FW_MSG_ERROR;
}

/* A held request's response goes to the POST stream waiting for it, which ends after it; the
   rest (and a response with no such stream) to the GET stream's queue. */
static void drain_end(void *ctx)
{
    drain_ctx_t *d = ctx;
    host_session_t *s = d->s;
    if (s->call && d->response) { /* the response the POST's stream waits for: it ends after it */
        host_sse_event(&s->call->own, d->t->msg.data, d->t->msg.len);
        end_call(s);
    } else {
        queue_event(s, d->t->msg.data, d->t->msg.len);
    }
    d->response = false;
    d->t->msg.len = 0;
}

static size_t device_drain(void *dev, fw_session_t *session, fw_msg_sink_t out)
{
    return fw_device_drain(dev, session, out);
}

void host_sessions_drain(host_sessions_t *t, fw_device_t *dev)
{
    host_sessions_drain_with(t, device_drain, dev);
}

static void drain_session(host_sessions_t *t, host_session_t *s, host_drain_fn drain, void *ctx)
{
    drain_ctx_t d = {t, s, false};
    t->msg.len = 0;
    drain(ctx, &s->fw, (fw_msg_sink_t){drain_write, &d, drain_end, drain_tell});
}

void host_sessions_drain_with(host_sessions_t *t, host_drain_fn drain, void *ctx)
{
    reap(t);
    for (unsigned i = 0; i < t->count; i++) drain_session(t, t->slots[i], drain, ctx);
}

void host_session_drain_with(host_sessions_t *t, host_session_t *s, host_drain_fn drain, void *ctx)
{
    if (s->listed) drain_session(t, s, drain, ctx);
}

/* ---------------------------------------------------------------- streams */

static host_stream_t *stream_new(host_sessions_t *t, host_session_t *s, int fd)
{
    host_stream_t *st = calloc(1, sizeof *st);
    if (!st) abort();
    st->t = t;
    st->s = s;
    st->fd = fd;
    st->next_ping_ms = host_mono_ms() + HOST_HTTP_KEEPALIVE_MS;
    return st;
}

host_stream_t *host_stream_open(host_sessions_t *t, host_session_t *s, int fd)
{
    if (s->streaming) return NULL;
    s->streaming = true;
    s->refs++;
    host_stream_t *st = stream_new(t, s, fd);
    s->get = st;
    st->comment = greeting;
    st->comment_len = sizeof greeting - 1;
    return st;
}

/* The call stream of s sends what it holds, then ends. */
static void end_call(host_session_t *s)
{
    host_stream_t *call = s->call;
    if (!call) return;
    call->done = true;
    s->call = NULL;
    wake_stream(call);
}

host_stream_t *host_call_stream_open(host_sessions_t *t, host_session_t *s, int fd,
                                     const char *events, size_t len)
{
    host_stream_t *st = stream_new(t, s, fd);
    st->call = true;
    host_buf_append(&st->own, events, len);
    end_call(s);
    s->call = st;
    s->refs++;
    return st;
}

void host_session_deliver(host_sessions_t *t, host_session_t *s, const char *json, size_t len,
                          bool final)
{
    (void)t;
    if (s->call) {
        host_sse_event(&s->call->own, json, len);
        wake_session(s);
        if (final) end_call(s);
    } else {
        queue_event(s, json, len);
    }
}

bool host_session_has_call(host_sessions_t *t, host_session_t *s)
{
    (void)t;
    return s->call != NULL;
}

void host_session_end_call(host_sessions_t *t, host_session_t *s)
{
    (void)t;
    end_call(s);
}

static size_t take(char *buf, size_t max, const char *src, size_t len)
{
    size_t n = len < max ? len : max;
    memcpy(buf, src, n);
    return n;
}

/* True when the client closed its end (never blocks; pipelined bytes are not a hang-up). */
static bool hung_up(const host_stream_t *st)
{
    struct pollfd p = {st->fd, POLLRDHUP, 0};
    return st->fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

ssize_t host_stream_read(host_stream_t *st, char *buf, size_t max)
{
    host_sessions_t *t = st->t;
    host_session_t *s = st->s;
    ssize_t n = -1;
    for (;;) {
        if (st->comment_len > 0) {
            size_t k = take(buf, max, st->comment, st->comment_len);
            st->comment += k;
            st->comment_len -= k;
            n = (ssize_t)k;
            break;
        }
        host_buf_t *q = st->call ? &st->own : &s->queue;
        if (q->len > 0) {
            size_t k = take(buf, max, q->data, q->len);
            host_buf_consume(q, k);
            if (!st->call && q->len == 0) s->dropped = 0;
            n = (ssize_t)k;
            break;
        }
        if (st->done || !s->listed || t->stopping || hung_up(st)) break;
        if (host_mono_ms() >= st->next_ping_ms) {
            st->comment = keepalive;
            st->comment_len = sizeof keepalive - 1;
            st->next_ping_ms = host_mono_ms() + HOST_HTTP_KEEPALIVE_MS;
            continue;
        }
        n = 0; /* nothing now: the caller waits for the wake, or host_stream_wait_ms */
        break;
    }
    return n;
}

uint64_t host_stream_wait_ms(const host_stream_t *st)
{
    uint64_t now = host_mono_ms();
    return st->next_ping_ms > now ? st->next_ping_ms - now : 1;
}

void host_stream_on_wake(host_stream_t *st, void (*fn)(void *ctx), void *ctx)
{
    st->wake = fn;
    st->wake_ctx = ctx;
}

void host_stream_close(host_stream_t *st)
{
    host_sessions_t *t = st->t;
    host_session_t *s = st->s;
    if (!st->call) {
        s->streaming = false;
        s->get = NULL;
    } else if (s->call == st)
        s->call = NULL;
    host_session_release(t, s);
    host_buf_free(&st->own);
    free(st);
}
