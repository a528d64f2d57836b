/* http_session.h: the HTTP transport's MCP sessions: ids, the table and its limits, each
   session's queue of server-initiated messages and its GET event stream. */
#ifndef HOST_HTTP_SESSION_H
#define HOST_HTTP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "fw_device.h"

/* Bytes of server-initiated events a session may hold for a GET stream not open (or not read)
   yet; later messages are dropped with a warning until the queue empties. */
#define HOST_HTTP_QUEUE_MAX (256u << 10)

/* An open GET stream with nothing to say sends an SSE comment this often (proxies and clients
   keep the connection; a vanished client is noticed). */
#define HOST_HTTP_KEEPALIVE_MS 15000u

/* How soon at the latest an open GET stream notices that its client went away, so that the
   session may open another: host_stream_read checks the socket, and a parked stream is resumed
   by the loop as soon as the socket reports the hang-up (mhd_uv.h). */
#define HOST_HTTP_HANGUP_MS 250u

/* Length of a session id: 128 random bits as lowercase hex. */
#define HOST_HTTP_SESSION_ID_LEN 32u

/*
 * One MCP session of the HTTP transport. Everything here, the table and the streams run on the
 * host's loop thread (libmicrohttpd is driven from it, mhd_uv.h): no locks. A stream that has
 * nothing to send returns 0 from host_stream_read and is woken (host_stream_on_wake) when it has.
 */
typedef struct host_session {
    char id[HOST_HTTP_SESSION_ID_LEN + 1];
    fw_session_t fw;
    unsigned refs;            /* the table's (while listed), each request, the stream */
    bool listed;              /* in the table; false before publishing and once ended */
    bool streaming;           /* its GET stream is open */
    struct host_stream *get;  /* that stream, or NULL */
    struct host_stream *call; /* the stream of a POST whose call waits for an answer, or NULL */
    uint64_t last_ms;         /* monotonic ms of its last request or stream end */
    char owner[64];           /* the client address that created it ("" when unknown) */
    uint64_t last_use;        /* the table's use count at its last activity (LRU order) */
    host_buf_t queue;         /* SSE events waiting for the GET stream */
    size_t dropped;           /* messages dropped since the queue was last emptied */
    unsigned slot;            /* its place in the table's slots while listed */
    struct host_session *same_bucket; /* the next listed session of its id's bucket */
} host_session_t;

/* The sessions of one HTTP server. */
typedef struct host_sessions {
    host_session_t **slots; /* the listed sessions in slots[0..count), in no order (room for max):
                               a walk costs what is listed, not max */
    /* the listed sessions by id: bucket[i] chains those whose id hashes to i (same_bucket), so
       that finding one costs the same with 1 session listed or 1,000 */
    host_session_t **bucket;
    unsigned bucket_bits; /* 2^bucket_bits buckets, at least twice max */
    uint64_t hash_key;    /* random: which ids share a bucket is not known outside */
    unsigned max;
    unsigned count;    /* listed sessions */
    unsigned reserved; /* initializes in flight that may become sessions */
    unsigned per_client; /* most listed sessions of one owner (host_sessions_reserve_for) */
    uint64_t uses;       /* activity counter: orders sessions by their last use */
    uint64_t idle_ms;  /* a session without request or stream for this long ends */
    uint64_t reap_ms;  /* no listed session expires before this (mono ms; 0: walk the table) */
    bool stopping;
    host_buf_t msg; /* the message being drained */
    /* told when a session leaves the table (ended, expired, evicted, stopping): what the device
       keeps for it goes (a held tasks/result: host_device_release) */
    void (*on_unlist)(void *ctx, const fw_session_t *fw);
    void *on_unlist_ctx;
} host_sessions_t;

typedef struct host_stream host_stream_t;

void host_sessions_init(host_sessions_t *t, unsigned max, uint64_t idle_ms);

/* Ends every session and wakes every stream (they end); later requests find no session. */
void host_sessions_stop(host_sessions_t *t);

/* Frees what is left, once no stream uses the table any more. */
void host_sessions_destroy(host_sessions_t *t);

/* Claims a place for a session an initialize may create (expired sessions are ended first).
   False when max sessions are listed or being created. */
bool host_sessions_reserve(host_sessions_t *t);

/*
 * As host_sessions_reserve for a client at address owner, with two policies instead of a plain
 * refusal: an owner that already has t->per_client listed sessions loses its least recently
 * used idle one (no request in flight, no stream, no waiting call), and a full table loses its
 * least recently used idle session of any owner. Each eviction is logged. Returns
 * HOST_RESERVED, or why not: HOST_RESERVE_FULL (every session is busy) or
 * HOST_RESERVE_CLIENT_CAP (every session of this owner is busy).
 */
typedef enum { HOST_RESERVED, HOST_RESERVE_FULL, HOST_RESERVE_CLIENT_CAP } host_reserve_t;
host_reserve_t host_sessions_reserve_for(host_sessions_t *t, const char *owner);

/* Gives back a place host_sessions_reserve claimed (the initialize failed). */
void host_sessions_unreserve(host_sessions_t *t);

/* A new session with a fresh random id, held by the caller (one reference) and not listed;
   the caller initialises fw. NULL when the OS gives no random bytes. */
host_session_t *host_session_new(void);

/* Lists s (its initialize succeeded) in the place reserved for it; the table takes a
   reference. Returns the number of listed sessions. */
unsigned host_sessions_publish(host_sessions_t *t, host_session_t *s);

/* The listed session with this id, with a reference for the caller, or NULL (unknown, ended,
   expired). Counts as activity. */
host_session_t *host_sessions_find(host_sessions_t *t, const char *id);

/* Drops the caller's reference (the last one frees s). Counts as activity. */
void host_session_release(host_sessions_t *t, host_session_t *s);

/* Unlists s (DELETE): its stream ends once its queue is sent. False if it was not listed. */
bool host_sessions_end(host_sessions_t *t, host_session_t *s);

/* Queues one JSON-RPC message (len bytes) as an SSE event for s's GET stream. */
void host_session_push(host_sessions_t *t, host_session_t *s, const char *json, size_t len);

/* Writes every listed session's pending notifications (fw_device_drain) to its queue and
   wakes its stream; ends sessions idle for too long. */
void host_sessions_drain(host_sessions_t *t, fw_device_t *dev);

/* As host_sessions_drain, with the drain of each session done by drain(ctx, ...) (the host's
   host_device_drain, which knows the bridge). */
typedef size_t (*host_drain_fn)(void *ctx, fw_session_t *session, fw_msg_sink_t out);
void host_sessions_drain_with(host_sessions_t *t, host_drain_fn drain, void *ctx);

/* As host_sessions_drain_with for s alone (nothing when s is not listed): after a call whose
   message was s's, when no other session can have anything new. */
void host_session_drain_with(host_sessions_t *t, host_session_t *s, host_drain_fn drain, void *ctx);

/* Opens s's GET stream (it takes a reference); NULL when s already has one. fd is the
   connection's socket, watched for the client's hang-up (-1: not watched). */
host_stream_t *host_stream_open(host_sessions_t *t, host_session_t *s, int fd);

/*
 * Opens a call stream: the answer to a POST whose tools/call waits for the client's answer
 * (the core asked the client: sampling/createMessage, elicitation/create). It sends events (SSE
 * bytes, copied), then the messages host_session_deliver routes to it, and ends after the
 * call's response. It takes a reference to s; a call stream s had before ends.
 */
host_stream_t *host_call_stream_open(host_sessions_t *t, host_session_t *s, int fd,
                                     const char *events, size_t len);

/*
 * Routes one message of s that answers no POST (what the client's answer to a request of the
 * device resumed): to s's call stream when one is open, which ends after it when final (the
 * waiting call's response); else to the GET stream's queue.
 */
void host_session_deliver(host_sessions_t *t, host_session_t *s, const char *json, size_t len,
                          bool final);

/* True while s has a call stream waiting for its call's response. */
bool host_session_has_call(host_sessions_t *t, host_session_t *s);

/* The call no longer waits (cancelled, initialize again): its stream ends after what it holds. */
void host_session_end_call(host_sessions_t *t, host_session_t *s);

/*
 * Never blocks. Returns the number of bytes written to buf (at most max): queued events, or a
 * keep-alive comment once HOST_HTTP_KEEPALIVE_MS passed without one; 0 when there is nothing to
 * send now (the caller waits for the stream's wake, or host_stream_wait_ms); -1 when the
 * session ended (or the server stops) and its queue is empty, when a call stream has sent its
 * call's response, or when the client hung up.
 */
ssize_t host_stream_read(host_stream_t *st, char *buf, size_t max);

/* Milliseconds until the stream's next keep-alive is due (at least 1). */
uint64_t host_stream_wait_ms(const host_stream_t *st);

/* fn(ctx) runs whenever the stream may have something to send again (an event queued, the
   session or the call ended, the table stops); NULL: nobody is told. */
void host_stream_on_wake(host_stream_t *st, void (*fn)(void *ctx), void *ctx);

/* The client went away or the stream ended (either kind): s may open another. */
void host_stream_close(host_stream_t *st);

/* Appends json (len bytes) to out as one SSE event: "event: message", then a "data:" line for
   each of its lines. */
void host_sse_event(host_buf_t *out, const char *json, size_t len);

/* Short form of an id for logs ("1a2b3c4d..."): the whole id is a credential. */
void host_session_tag(const host_session_t *s, char out[16]);

#endif
