/* tap.c: the message tap (tap.h): splits what passes through a call into the device into
   JSON-RPC messages, reads their method and id with jansson, and keeps the last ones in a ring. */
#include "tap.h"

#include <jansson.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void host_tap_init(host_tap_t *t)
{
    /* Everything but the ring, which is written before it is read (the entries below next_seq):
       a fleet's devices (zeroed by calloc, their taps never listened to) keep its pages
       untouched, and out of their resident memory. */
    memset(t, 0, offsetof(host_tap_t, ring));
    t->skipped = 0;
    t->notify = NULL;
    t->notify_ctx = NULL;
    atomic_init(&t->listeners, 0u);
    atomic_init(&t->window, 0u);
    atomic_init(&t->window_entries, 0u);
    atomic_init(&t->throttled, 0u);
    pthread_mutex_init(&t->mu, NULL);
    t->next_seq = 1;
}

void host_tap_destroy(host_tap_t *t)
{
    pthread_mutex_destroy(&t->mu);
}

void host_tap_listen(host_tap_t *t, bool on)
{
    if (on)
        atomic_fetch_add(&t->listeners, 1u);
    else
        atomic_fetch_sub(&t->listeners, 1u);
}

bool host_tap_admit(host_tap_t *t)
{
    uint64_t w = mono_ns() / (HOST_TAP_WINDOW_MS * 1000000u);
    if (atomic_load_explicit(&t->window, memory_order_relaxed) != w) {
        /* two threads may both start the window: a few more entries get in, never fewer */
        atomic_store_explicit(&t->window, w, memory_order_relaxed);
        atomic_store_explicit(&t->window_entries, 0u, memory_order_relaxed);
    }
    if (atomic_load_explicit(&t->window_entries, memory_order_relaxed) < HOST_TAP_RING) return true;
    atomic_fetch_add_explicit(&t->throttled, 1u, memory_order_relaxed);
    return false;
}

void host_tap_set_notify(host_tap_t *t, host_tap_fn fn, void *ctx)
{
    pthread_mutex_lock(&t->mu);
    t->notify = fn;
    t->notify_ctx = ctx;
    pthread_mutex_unlock(&t->mu);
}

size_t host_tap_read(host_tap_t *t, uint64_t from, host_tap_entry_t *out, size_t cap,
                     uint64_t *next, uint64_t *skipped)
{
    pthread_mutex_lock(&t->mu);
    uint64_t oldest = t->next_seq > HOST_TAP_RING ? t->next_seq - HOST_TAP_RING : 1;
    if (from < oldest) from = oldest;
    size_t n = 0;
    for (uint64_t s = from; s < t->next_seq && n < cap; s++)
        out[n++] = t->ring[(s - 1) % HOST_TAP_RING];
    *next = from + n;
    if (skipped) *skipped = t->skipped;
    pthread_mutex_unlock(&t->mu);
    return n;
}

char *host_tap_entry_json(const host_tap_entry_t *e)
{
    json_t *o =
        json_pack("{s:I,s:I,s:s,s:s}", "seq", (json_int_t)e->seq, "time_us", (json_int_t)e->wall_us,
                  "transport", e->transport, "dir", e->out ? "out" : "in");
    json_object_set_new(o, "method", e->method[0] ? json_string(e->method) : json_null());
    json_object_set_new(o, "id", e->id[0] ? json_string(e->id) : json_null());
    json_object_set_new(o, "latency_us",
                        e->latency_us >= 0 ? json_integer(e->latency_us) : json_null());
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

void host_tap_src_init(host_tap_src_t *s, const char *transport)
{
    memset(s, 0, sizeof *s);
    s->transport = transport;
}

void host_tap_src_free(host_tap_src_t *s)
{
    host_buf_free(&s->part);
}

/* ---------------------------------------------------------------- one call */

void host_tap_call_begin(host_tap_call_t *c, host_tap_t *t, const char *transport, uint64_t wall_us,
                         bool lines)
{
    c->tap = t;
    c->transport = transport;
    c->t0_ns = c->base_ns = mono_ns();
    c->base_wall_us = wall_us;
    c->in_id_count = c->count = c->in_count = c->out_count = 0;
    c->skipped = 0;
    c->cur = (host_buf_t){0};
    c->cur_over = false;
    c->lines = lines;
}

/* Copies a string, cut to fit cap (a cut never splits a UTF-8 sequence). */
static void copy_cut(char *dst, size_t cap, const char *src, size_t len)
{
    if (len >= cap) {
        len = cap - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0u) == 0x80u) len--;
    }
    memcpy(dst, src, len);
    dst[len] = 0;
}

/* One JSON-RPC object (a message, or an element of a batch). */
static void add_object(host_tap_call_t *c, json_t *o, bool out)
{
    size_t *n = out ? &c->out_count : &c->in_count;
    if (!json_is_object(o)) return;
    if (*n >= HOST_TAP_PER_CALL) {
        c->skipped++;
        return;
    }
    (*n)++;
    uint64_t now = mono_ns();
    host_tap_entry_t *e = &c->entries[c->count++];
    memset(e, 0, sizeof *e);
    e->wall_us = c->base_wall_us + (now - c->base_ns) / 1000u;
    e->transport = c->transport;
    e->out = out;
    e->latency_us = -1;
    json_t *method = json_object_get(o, "method");
    if (json_is_string(method))
        copy_cut(e->method, sizeof e->method, json_string_value(method),
                 json_string_length(method));
    json_t *id = json_object_get(o, "id");
    if (id) {
        char *text = json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY);
        if (text) copy_cut(e->id, sizeof e->id, text, strlen(text));
        free(text);
    }
    if (!e->id[0]) return;
    if (!out && e->method[0] && c->in_id_count < HOST_TAP_PER_CALL) {
        memcpy(c->in_ids[c->in_id_count++], e->id, sizeof e->id); /* a request */
    } else if (out && !e->method[0]) { /* a response: to a request of this call? */
        for (size_t i = 0; i < c->in_id_count; i++)
            if (strcmp(c->in_ids[i], e->id) == 0) {
                e->latency_us = (int64_t)((now - c->t0_ns) / 1000u);
                break;
            }
    }
}

/* One whole message (an object or a batch); text that is not JSON is not logged. */
static void add_message(host_tap_call_t *c, const char *msg, size_t len, bool out)
{
    if (len > HOST_TAP_MSG_MAX) {
        c->skipped++;
        return;
    }
    json_t *doc = json_loadb(msg, len, 0, NULL);
    if (!doc)
        return; /* blank, a fragment (the tap came on mid-line) or invalid: the device's
                   error response, if any, is logged */
    if (json_is_array(doc)) {
        size_t i;
        json_t *el;
        json_array_foreach(doc, i, el) add_object(c, el, out);
    } else {
        add_object(c, doc, out);
    }
    json_decref(doc);
}

void host_tap_call_in_msg(host_tap_call_t *c, const char *msg, size_t len)
{
    add_message(c, msg, len, false);
}

void host_tap_call_in_bytes(host_tap_call_t *c, host_tap_src_t *src, const uint8_t *data,
                            size_t len)
{
    const char *p = (const char *)data, *end = p + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        if (!src->overlong) {
            if (src->part.len + n > HOST_TAP_MSG_MAX) {
                src->overlong = true;
                host_buf_free(&src->part);
            } else if (!nl || src->part.len > 0) {
                host_buf_append(&src->part, p, n);
            }
        }
        if (!nl) break;
        if (src->overlong)
            c->skipped++;
        else if (src->part.len > 0)
            add_message(c, src->part.data, src->part.len, false);
        else
            add_message(c, p, n, false); /* the whole line is in this chunk: no copy */
        src->part.len = 0;
        src->overlong = false;
        p = nl + 1;
    }
    if (src->part.len == 0 && src->part.cap > 4096u) host_buf_free(&src->part);
}

void host_tap_call_out(host_tap_call_t *c, const char *data, size_t len)
{
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = c->lines ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t n = (size_t)((nl ? nl : end) - p);
        if (!c->cur_over) {
            if (c->cur.len + n > HOST_TAP_MSG_MAX) {
                c->cur_over = true;
                host_buf_free(&c->cur);
            } else {
                host_buf_append(&c->cur, p, n);
            }
        }
        if (!nl) break;
        host_tap_call_out_end(c);
        p = nl + 1;
    }
}

void host_tap_call_out_end(host_tap_call_t *c)
{
    if (c->cur_over)
        c->skipped++;
    else if (c->cur.len > 0)
        add_message(c, c->cur.data, c->cur.len, true);
    c->cur.len = 0;
    c->cur_over = false;
}

void host_tap_call_finish(host_tap_call_t *c)
{
    host_buf_free(&c->cur);
    if (c->count == 0 && c->skipped == 0) return;
    host_tap_t *t = c->tap;
    atomic_fetch_add_explicit(&t->window_entries, (unsigned)c->count, memory_order_relaxed);
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < c->count; i++) {
        c->entries[i].seq = t->next_seq;
        t->ring[(t->next_seq - 1) % HOST_TAP_RING] = c->entries[i];
        t->next_seq++;
    }
    t->skipped += c->skipped;
    host_tap_fn fn = t->notify;
    void *ctx = t->notify_ctx;
    pthread_mutex_unlock(&t->mu);
    if (fn) fn(ctx);
}
