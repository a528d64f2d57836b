/* tap.h: the message tap: a bounded log of the JSON-RPC messages every transport exchanges with
   the device (transport, direction, method, id, latency), recorded only while someone listens. */
#ifndef HOST_TAP_H
#define HOST_TAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Entries the ring keeps (the oldest are overwritten). */
#define HOST_TAP_RING 256u
/* Longest message the tap parses; a longer one is counted as skipped, not logged. */
#define HOST_TAP_MSG_MAX (64u << 10)
/* Most messages logged per direction in one call into the device (the rest: skipped). */
#define HOST_TAP_PER_CALL 32u
/* Once HOST_TAP_RING entries were recorded in a window of HOST_TAP_WINDOW_MS, further calls
   into the device in that window are not logged (throttled): a stream sends at most every 50 ms
   and the ring holds 256, so a flood would only overwrite entries no browser sees; the cap
   bounds what the log costs under load (a call admitted just before adds its own entries). */
#define HOST_TAP_WINDOW_MS 50u
/* Longest method name and raw id text kept (longer ones are cut, "…" is not added). */
#define HOST_TAP_METHOD_MAX 48u
#define HOST_TAP_ID_MAX 40u

/* One message as the log shows it. */
typedef struct host_tap_entry {
    uint64_t seq;                     /* 1, 2, ...: the n-th message recorded */
    uint64_t wall_us;                 /* host_wall_us() when it was recorded */
    const char *transport;            /* a static name: "tcp", "pty", "http", "ws", "dial-out" */
    bool out;                         /* written by the device (else: handed to it) */
    char method[HOST_TAP_METHOD_MAX]; /* request or notification; "" for a response */
    char id[HOST_TAP_ID_MAX];         /* raw JSON text of the id; "" without one */
    int64_t latency_us; /* a response to a request of the same call: see host_tap_call_t; else -1 */
} host_tap_entry_t;

typedef void (*host_tap_fn)(void *ctx);

typedef struct host_tap {
    atomic_uint listeners; /* 0: nothing is recorded (the only cost: one atomic load per call) */
    atomic_uint_fast64_t window;    /* the current HOST_TAP_WINDOW_MS window (monotonic clock) */
    atomic_uint window_entries;     /* entries recorded in it */
    atomic_uint_fast64_t throttled; /* calls not logged: the window's entries were full */
    pthread_mutex_t mu;             /* guards everything below */
    host_tap_entry_t ring[HOST_TAP_RING];
    uint64_t next_seq;  /* seq of the next entry; ring[(seq - 1) % HOST_TAP_RING] holds seq */
    uint64_t skipped;   /* messages not logged: over HOST_TAP_MSG_MAX or HOST_TAP_PER_CALL */
    host_tap_fn notify; /* told (without any lock held) after entries were added */
    void *notify_ctx;
} host_tap_t;

/* A byte-stream transport's line assembly, one per connection (host_device_feed_session): the
   part of a line that arrived without its newline, kept only while the tap records. */
typedef struct host_tap_src {
    const char *transport; /* a static name */
    host_buf_t part;
    bool overlong; /* the line being assembled passed HOST_TAP_MSG_MAX */
} host_tap_src_t;

void host_tap_init(host_tap_t *t);
void host_tap_destroy(host_tap_t *t);

static inline bool host_tap_on(host_tap_t *t)
{
    return atomic_load_explicit(&t->listeners, memory_order_relaxed) != 0;
}

/* Any thread: a listener starts or stops (recording runs while at least one listens). */
void host_tap_listen(host_tap_t *t, bool on);

/* While host_tap_on: whether this call is logged (false: the current window recorded
   HOST_TAP_RING entries already; counted as throttled). Any thread. */
bool host_tap_admit(host_tap_t *t);

/* Sets (fn non-NULL) or clears who is told of new entries. */
void host_tap_set_notify(host_tap_t *t, host_tap_fn fn, void *ctx);

/* Copies up to cap entries with seq >= from (the oldest still held when from is older) into
   out; *next is the seq to ask for next time, *skipped the tap's skipped count. Returns n. */
size_t host_tap_read(host_tap_t *t, uint64_t from, host_tap_entry_t *out, size_t cap,
                     uint64_t *next, uint64_t *skipped);

/* One entry as a JSON object (malloc'd, compact): {"seq","time_us","transport","dir","method",
   "id","latency_us"} with null for a missing method, id or latency. */
char *host_tap_entry_json(const host_tap_entry_t *e);

void host_tap_src_init(host_tap_src_t *s, const char *transport);
void host_tap_src_free(host_tap_src_t *s);

/*
 * One call into the device, tapped (only while host_tap_on). Latency: the time from the start
 * of the call (the host handing the device the bytes or message that completed the request)
 * to the end of the response's last byte written by the device, for a response whose id is
 * that of a request handed over in the same call (a request and its response pass through the
 * same call on every transport; the device answers requests one after the other, so in a
 * pipelined chunk later responses include the time of earlier requests).
 */
typedef struct host_tap_call {
    host_tap_t *tap;
    const char *transport;
    uint64_t t0_ns, base_wall_us, base_ns;
    char in_ids[HOST_TAP_PER_CALL][HOST_TAP_ID_MAX];
    size_t in_id_count;
    host_tap_entry_t entries[2 * HOST_TAP_PER_CALL];
    size_t count, in_count, out_count;
    uint64_t skipped;
    host_buf_t cur; /* the outgoing message being written */
    bool cur_over;
    bool lines; /* outgoing messages end with "\n" (else host_tap_call_out_end ends them) */
} host_tap_call_t;

/* Starts a call: wall_us is host_wall_us() now; lines: outgoing messages end with "\n". */
void host_tap_call_begin(host_tap_call_t *c, host_tap_t *t, const char *transport, uint64_t wall_us,
                         bool lines);
/* Incoming bytes of a stream (split into lines with src's leftover) or one whole message. */
void host_tap_call_in_bytes(host_tap_call_t *c, host_tap_src_t *src, const uint8_t *data,
                            size_t len);
void host_tap_call_in_msg(host_tap_call_t *c, const char *msg, size_t len);
/* Outgoing bytes as the device writes them; _end: a whole message was written. */
void host_tap_call_out(host_tap_call_t *c, const char *data, size_t len);
void host_tap_call_out_end(host_tap_call_t *c);
/* Adds the call's entries to the ring and tells the notify callback. No lock held. */
void host_tap_call_finish(host_tap_call_t *c);

#endif
