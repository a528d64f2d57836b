/* host.h: the event loop that owns one simulated device, its clock and its transports. */
#ifndef HOST_H
#define HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "sim.h"
#include "tap.h"

typedef struct host_pty host_pty_t;
typedef struct host_server host_server_t;
typedef struct host_ws host_ws_t;
typedef struct host_http host_http_t;
typedef struct host_dashboard host_dashboard_t;
typedef struct host_stdio host_stdio_t;
typedef struct host_bridge host_bridge_t;
typedef struct host_mqtt host_mqtt_t;
typedef struct host_fleet host_fleet_t;

/* Hears after every call into the device (see host_device_watch); all: whether every session
   may have notifications, or only the one whose message the call handled. */
typedef void (*host_watch_fn)(void *ctx, bool all);

/* Most watchers one host keeps (the transports that push notifications). */
#define HOST_WATCHERS_MAX 8

/*
 * One simulator process: one loop thread, one device, no other threads. Every transport (the
 * HTTP server and the dashboard included: libmicrohttpd is driven from the loop, mhd_uv.h) calls
 * the device on the loop thread through the host_device_* helpers below, which also keep the
 * real-time clock in step and tell the watchers.
 */
typedef struct host {
    uv_loop_t loop;
    sim_t *sim;
    sim_clock_mode_t clock;
    uint64_t start_ns;      /* uv_hrtime() when simulated time was 0 */
    uv_timer_t clock_timer; /* real-time mode: wakes at the sim's next event */
    uint64_t next_us;       /* the sim's next event when last looked at (clock_next) */
    bool next_known;        /* next_us holds: nothing moved the sim's events since */
    uv_timer_t trim_timer;  /* gives freed memory back (malloc_trim) shortly after frees */
    uv_signal_t sig_int, sig_term;
    host_pty_t *pty;
    host_server_t *tcp;
    host_server_t *control;
    host_ws_t *ws;     /* WebSocket server and dial-out link (ws.h); freed by host_close */
    host_http_t *http; /* Streamable HTTP server (http.h); closed by host_stop */
    host_dashboard_t *dashboard; /* --dashboard (dashboard.h); as http */
    host_stdio_t *stdio;         /* --stdio (stdio_transport.h) */
    /* --device (bridge.h): real MCP/U devices served instead of the sim's firmware. Every call
       into "the device" below then goes to the bridge; sim stays as an idle placeholder that
       owns the sessions' initial state and the clock. */
    host_bridge_t *bridge;
    host_mqtt_t *mqtt;   /* --mqtt (mqtt.h): the device's MQTT link; stopped by host_stop */
    host_fleet_t *fleet; /* --fleet (fleet.h): the other devices on this loop; as mqtt */
    struct {
        host_watch_fn fn;
        void *ctx;
    } watchers[HOST_WATCHERS_MAX];
    size_t watcher_count;
    uint32_t pending_mark; /* fw_device_pending's mark: the device's record at the last tell */
    host_tap_t tap;        /* the message log (tap.h): records only while someone listens */
    /* The output budget (host_out_*): unsent replies of every TCP and WebSocket client. */
    size_t out_budget;     /* bytes all clients may hold together (--output-budget) */
    size_t out_total;      /* bytes they hold now */
    size_t out_high;       /* the most held since memory was last given back (malloc_trim) */
    unsigned out_conns;    /* clients counted */
    /* The input budget (host_in_*): messages still arriving (WebSocket fragments, HTTP
       bodies). */
    size_t in_budget; /* bytes all clients' unfinished messages may hold together */
    size_t in_share;  /* bytes any client may hold whatever the others do (HOST_IN_SHARE_MIN) */
    size_t in_total;  /* bytes they hold now */
    size_t in_high;   /* the most held since memory was last given back */
    bool stopping;
} host_t;

/* Sets up the loop, the signal handlers and the clock for sim (ownership passes to h).
   Returns 0, or a negative libuv error. */
int host_init(host_t *h, sim_t *sim);

/*
 * The output budget, loop thread only. Every TCP and WebSocket client counts itself
 * (host_out_conn) and the bytes it queues and sends (host_out_queued, host_out_sent). A
 * client's share is the budget divided among the clients (at least HOST_OUT_SHARE_MIN): over its
 * share it stops being read until it has sent half of it (back-pressure); host_out_over_hard
 * says when it must go: the total is over the budget and the client holds over twice its share.
 * Memory freed after a peak, or by a client leaving, goes back to the system (malloc_trim, at
 * most once per 100 ms).
 */
#define HOST_OUT_SHARE_MIN (64u << 10)
#define HOST_OUT_BUDGET_DEFAULT (32u << 20)
void host_out_conn(host_t *h, int delta);
void host_out_queued(host_t *h, size_t n);
void host_out_sent(host_t *h, size_t n);
size_t host_out_share(const host_t *h);
bool host_out_over_hard(const host_t *h, size_t held);

/*
 * The input budget, loop thread only: what clients' unfinished messages hold (a WebSocket
 * message reassembled from its fragments, an HTTP request body). Every client may always hold
 * HOST_IN_SHARE_MIN; past that, all together hold at most the budget (--input-budget): a
 * message that would go over it is refused (WebSocket close 1013, HTTP 503 with Retry-After).
 * Without it, 300 WebSocket clients each sending 1 MB of a message they never finish held
 * 297 MB (and HTTP bodies alike). host_in_take counts n more bytes for a client holding
 * `held` already, or returns false; host_in_release gives them back. (h->in_share is
 * HOST_IN_SHARE_MIN; the WebSocket fuzz harness makes it small to reach the refusals.)
 */
#define HOST_IN_SHARE_MIN (64u << 10)
#define HOST_IN_BUDGET_DEFAULT (32u << 20)
bool host_in_take(host_t *h, size_t held, size_t n);
void host_in_release(host_t *h, size_t n);

/* Refusals of a listener counted between its warnings, at most one warning a second. */
typedef struct host_refusals {
    unsigned count;   /* since the last warning */
    uint64_t last_ms; /* loop time of that warning (0: none yet) */
} host_refusals_t;

/* Counts one refusal; returns how many the warning due now reports, 0 while none is due. */
unsigned host_refusal(host_t *h, host_refusals_t *r);

/* Runs the loop until host_stop (SIGINT/SIGTERM). */
void host_run(host_t *h);

/* Starts a clean shutdown from the loop thread: closes every transport and handle. */
void host_stop(host_t *h);

/* After host_run returned (or when startup failed): closes what is left, frees the sim. */
void host_close(host_t *h);

/*
 * The message tap: every entry point below that carries MCP messages names its transport
 * ("tcp", "pty", "http", "ws", "dial-out"; a byte stream through its host_tap_src_t, which also
 * holds a line's start until its end arrives). While a listener is on (host_tap_listen: the
 * dashboard's event streams) each JSON-RPC message in and out is logged in h->tap; otherwise
 * the tap costs one atomic load per call.
 */

/* Loop thread: feeds a byte stream to the device (real-time clock synced first); replies go
   to out during the call. */
void host_device_feed(host_t *h, host_tap_src_t *src, fw_framer_t *fr, const uint8_t *data,
                      size_t len, fw_sink_t out);

/* Loop thread: as host_device_feed, in session (fw_device_feed_session; NULL: the device's
   implicit one): every message written (responses and notifications before them) is a line. */
void host_device_feed_session(host_t *h, host_tap_src_t *src, fw_session_t *session,
                              fw_framer_t *fr, const uint8_t *data, size_t len, fw_sink_t out);

/* Loop thread: one control-channel message; the malloc'd response or NULL (notification). */
char *host_device_control(host_t *h, const char *msg, size_t len);

/* Loop thread: one whole MCP message for session (fw_device_handle_session: every message
   written to out is ended with out.end), the real-time clock synced first. True if a response
   was written. */
bool host_device_session(host_t *h, const char *transport, fw_session_t *session, const char *msg,
                         size_t len, fw_msg_sink_t out);

/*
 * Registers fn(ctx, all) to run after every call into the device: a request on any transport,
 * a clock poll, a control message. It runs on the loop thread right after the call, so a
 * transport that pushes notifications can drain its sessions (fw_device_drain) at once. all is
 * true when any session may have something new (fw_device_pending: a pin or resource changed,
 * a log entry, a list change, a task's progress or held answer; a control message, a clock
 * re-arm or a bridged device: always): the transport drains every session. When false, only
 * the session whose message the call handled may have something (its own request turned on
 * logging, say): a transport drains just its client whose call it was, if the call was its
 * own, so a request costs the same with 1 or 1,000 clients connected. A transport whose drain
 * may skip a session (one that is not writable now) drains it on every tell, all or not.
 * Loop thread; at most HOST_WATCHERS_MAX. Returns 0, or -1 when full.
 */
int host_device_watch(host_t *h, host_watch_fn fn, void *ctx);

/* Loop thread: removes a watcher host_device_watch registered (the same fn and ctx). */
void host_device_unwatch(host_t *h, host_watch_fn fn, void *ctx);

/* Loop thread: re-arms the real-time clock timer for the sim's next event and tells the
   watchers, after something changed the device outside a host_device_* call (a reset, a
   bridged device's new tools). */
void host_clock_rearm(host_t *h);

/* Loop thread: session's client went away (its connection closed, another
   client opened the pty): the MCP 2026-07-28 listen streams it opened close, their slots are
   free again, and an MCP 2025-11-25 tasks/result it waits on is dropped
   (fw_device_session_release). */
void host_device_release(host_t *h, const fw_session_t *session);

/* Loop thread: writes session's pending notifications to out (fw_device_drain, or the bridge's
   own when bridging); returns how many. Transports call it from their watchers. */
size_t host_device_drain(host_t *h, fw_session_t *session, fw_msg_sink_t out);

/*
 * Late answers. With --device the bridge cannot answer a request that needs the device during
 * the call: the request queues for the device's line, and its answer comes when the device
 * answers or its timeout passes, through the late writer the transport gave with the call. fn
 * gets one whole JSON-RPC message (no newline), on the loop thread, after the call that made
 * it due, and may call back into the host. transport names it in the message log. A NULL fn: the request is
 * refused at once with an error instead.
 */
typedef struct host_late {
    void (*fn)(void *ctx, const char *msg, size_t len);
    void *ctx;
    const char *transport;
} host_late_t;

/* What a call did with its message. */
typedef enum host_answer { HOST_SILENT, HOST_ANSWERED, HOST_DEFERRED } host_answer_t;

/* Loop thread: host_device_feed_session, with late for the answers that come later. */
void host_device_feed_late(host_t *h, host_tap_src_t *src, fw_session_t *session, fw_framer_t *fr,
                           const uint8_t *data, size_t len, fw_sink_t out, host_late_t late);

/* host_device_session, with late for an answer that comes later (HOST_DEFERRED); env (or
   NULL): msg as fw_envelope_read read it, so the simulated device does not read it again. */
host_answer_t host_device_session_late(host_t *h, const char *transport, fw_session_t *session,
                                       const char *msg, size_t len, const fw_envelope_t *env,
                                       fw_msg_sink_t out, host_late_t late);

/* Loop thread: how many late answers are still due to ctx (a transport that
   saw its input end waits for them before it closes). */
size_t host_device_pending(host_t *h, const void *ctx);

/* Loop thread: ctx is going away; the answers still due to it are dropped. */
void host_device_forget(host_t *h, const void *ctx);

/*
 * A second device on owner's loop (a fleet's, fleet.h): h gets sim (ownership passes), its own
 * tap and sessions, and a clock timer on owner's loop; it has no loop, signals or
 * transports of its own (h->loop is unused). Every host_device_* call above works on it, on
 * owner's loop thread. host_stop_device closes its timer (loop thread); once the loop ran the
 * close callbacks, host_free_device frees the sim.
 */
void host_init_device(host_t *h, sim_t *sim, host_t *owner); /* h: zeroed memory (calloc) */
void host_stop_device(host_t *h);
void host_free_device(host_t *h);

/* Microseconds of wall clock since simulated time 0. */
uint64_t host_wall_us(const host_t *h);

#endif
