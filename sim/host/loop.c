/* loop.c: the host's event loop: signals, the real-time clock timer and the device's entry
   points (every transport, libmicrohttpd's included, runs on this one loop thread). */
#include "host.h"

#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "dashboard.h"
#include "fleet.h"
#include "http.h"
#include "log.h"
#include "mqtt.h"
#include "net.h"
#include "pty.h"
#include "stdio_transport.h"
#include "transports.h"
#include "ws.h"

/* Longest real-time sleep: the clock is re-synced at least this often even when idle. */
#define CLOCK_MAX_SLEEP_MS 1000u

uint64_t host_wall_us(const host_t *h)
{
    return (uv_hrtime() - h->start_ns) / 1000u;
}

/* Real-time mode: runs everything due up to now. The sim's next event, looked at after the
   last call (clock_next), spares the sim looking again when it is not due yet: every way into
   the device here ends with clock_next, and what changes the device otherwise (a session's
   release, a drain) can only take events away. */
static void clock_sync(host_t *h)
{
    if (h->clock != SIM_CLOCK_REALTIME) return;
    if (h->next_known)
        sim_sync_wall_known(h->sim, host_wall_us(h), h->next_us);
    else
        sim_sync_wall(h->sim, host_wall_us(h));
    h->next_known = false; /* the call that follows may move events */
}

/* Next sim event (UINT64_MAX in virtual mode: nothing to wake for). */
static uint64_t clock_next(host_t *h)
{
    if (h->clock != SIM_CLOCK_REALTIME) return UINT64_MAX;
    h->next_us = sim_next_event_us(h->sim);
    h->next_known = true;
    return h->next_us;
}

/* After every call into the device; force: every session may have something (a control
   message, a re-arm after a change made outside a call). */
static void tell_watchers(host_t *h, bool force)
{
    bool all = fw_device_pending(sim_device(h->sim), &h->pending_mark); /* keeps the mark */
    all = all || force || h->bridge != NULL; /* a bridged device's record is not the sim's */
    for (size_t i = 0; i < h->watcher_count; i++) h->watchers[i].fn(h->watchers[i].ctx, all);
}

int host_device_watch(host_t *h, host_watch_fn fn, void *ctx)
{
    int rc = -1;
    if (h->watcher_count < HOST_WATCHERS_MAX) {
        h->watchers[h->watcher_count].fn = fn;
        h->watchers[h->watcher_count].ctx = ctx;
        h->watcher_count++;
        rc = 0;
    }
    return rc;
}

void host_device_unwatch(host_t *h, host_watch_fn fn, void *ctx)
{
    for (size_t i = 0; i < h->watcher_count; i++) {
        if (h->watchers[i].fn != fn || h->watchers[i].ctx != ctx) continue;
        memmove(&h->watchers[i], &h->watchers[i + 1],
                (h->watcher_count - i - 1) * sizeof h->watchers[0]);
        h->watcher_count--;
        break;
    }
}

static void on_clock(uv_timer_t *t);

/* The device calls: the firmware on the sim, or the bridge. */
static void device_feed(host_t *h, fw_session_t *session, fw_framer_t *fr, const uint8_t *data,
                        size_t len, fw_sink_t out, host_late_t late)
{
    if (h->bridge)
        host_bridge_feed(h->bridge, session, fr, data, len, out, late);
    else
        fw_device_feed_session(sim_device(h->sim), session, fr, data, len, out);
}

static host_answer_t device_handle(host_t *h, fw_session_t *session, const char *msg, size_t len,
                                   const fw_envelope_t *env, fw_msg_sink_t out, host_late_t late)
{
    if (h->bridge) return host_bridge_handle(h->bridge, session, msg, len, out, late);
    fw_device_t *dev = sim_device(h->sim);
    bool answered = env ? fw_device_handle_envelope(dev, session, env, out)
                        : fw_device_handle_session(dev, session, msg, len, out);
    return answered ? HOST_ANSWERED : HOST_SILENT;
}

/* The bridge's late answers that became due during a call. */
static void deliver_late(host_t *h)
{
    if (h->bridge) host_bridge_deliver(h->bridge);
}

size_t host_device_pending(host_t *h, const void *ctx)
{
    if (!h->bridge) return 0;
    size_t n = host_bridge_pending(h->bridge, ctx);
    return n;
}

void host_device_forget(host_t *h, const void *ctx)
{
    if (!h->bridge) return;
    host_bridge_forget(h->bridge, ctx);
}

void host_device_release(host_t *h, const fw_session_t *session)
{
    if (h->bridge) return; /* the bridge's sessions open no listen stream in the sim */
    fw_device_session_release(sim_device(h->sim), session);
}

size_t host_device_drain(host_t *h, fw_session_t *session, fw_msg_sink_t out)
{
    if (h->bridge) return host_bridge_drain(h->bridge, session, out);
    return fw_device_drain(sim_device(h->sim), session, out);
}

/* Re-arms the timer for next_us (sim time = wall time in real-time mode), capped. */
static void clock_arm(host_t *h, uint64_t next_us)
{
    if (h->clock != SIM_CLOCK_REALTIME || h->stopping) return;
    uint64_t now = host_wall_us(h);
    uint64_t ms = CLOCK_MAX_SLEEP_MS;
    if (next_us <= now)
        ms = 0;
    else if (next_us != UINT64_MAX && (next_us - now + 999u) / 1000u < ms)
        ms = (next_us - now + 999u) / 1000u; /* round up: waking early would only spin */
    /* Armed already, due no later than ms from now and at most an eighth of ms earlier: it
       stays (it wakes a little early at worst, and on_clock arms it again), instead of a clock
       read and a move in the timer heap after every call into the device. The loop's time is
       never ahead of now, so the due time measured from it is never short of the real one. */
    if (uv_is_active((uv_handle_t *)&h->clock_timer)) {
        uint64_t due = uv_timer_get_due_in(&h->clock_timer);
        if (due <= ms && ms - due <= ms / 8u) return;
    }
    uv_update_time(h->clock_timer.loop); /* a fleet's device: its owner's loop */
    uv_timer_start(&h->clock_timer, on_clock, ms, 0);
}

static void on_clock(uv_timer_t *t)
{
    host_t *h = t->data;
    clock_sync(h);
    tell_watchers(h, false);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
}

void host_device_feed(host_t *h, host_tap_src_t *src, fw_framer_t *fr, const uint8_t *data,
                      size_t len, fw_sink_t out)
{
    host_device_feed_session(h, src, NULL, fr, data, len, out);
}

/* ---------------------------------------------------------------- the message tap */

/* A tapped call's output: the transport's own sink, and the tap that reads along. */
typedef struct tap_out {
    host_tap_call_t call;
    fw_sink_t sink;
    fw_msg_sink_t msg_sink;
} tap_out_t;

static void tap_write(void *ctx, const char *data, size_t len)
{
    tap_out_t *t = ctx;
    t->sink.write(t->sink.ctx, data, len);
    host_tap_call_out(&t->call, data, len);
}

static void tap_msg_write(void *ctx, const char *data, size_t len)
{
    tap_out_t *t = ctx;
    t->msg_sink.write(t->msg_sink.ctx, data, len);
    host_tap_call_out(&t->call, data, len);
}

static void tap_msg_tell(void *ctx, fw_msg_kind_t kind, int32_t code)
{
    tap_out_t *t = ctx;
    t->msg_sink.tell(t->msg_sink.ctx, kind, code);
}

static void tap_msg_end(void *ctx)
{
    tap_out_t *t = ctx;
    t->msg_sink.end(t->msg_sink.ctx);
    host_tap_call_out_end(&t->call);
}

/* A byte stream's call, tapped: the lines in, the lines out (fw_sink_t: "\n"-delimited). */
static void feed_tapped(host_t *h, host_tap_src_t *src, fw_session_t *session, fw_framer_t *fr,
                        const uint8_t *data, size_t len, fw_sink_t out, host_late_t late)
{
    tap_out_t *t = malloc(sizeof *t);
    if (!t) abort();
    t->sink = out;
    host_tap_call_begin(&t->call, &h->tap, src->transport, host_wall_us(h), true);
    host_tap_call_in_bytes(&t->call, src, data, len);
    clock_sync(h);
    device_feed(h, session, fr, data, len, (fw_sink_t){tap_write, t}, late);
    tell_watchers(h, false);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
    host_tap_call_finish(&t->call);
    free(t);
    deliver_late(h);
}

/* A whole message's call, tapped. */
static host_answer_t session_tapped(host_t *h, const char *transport, fw_session_t *session,
                                    const char *msg, size_t len, const fw_envelope_t *env,
                                    fw_msg_sink_t out, host_late_t late)
{
    tap_out_t *t = malloc(sizeof *t);
    if (!t) abort();
    t->msg_sink = out;
    host_tap_call_begin(&t->call, &h->tap, transport, host_wall_us(h), out.end == NULL);
    host_tap_call_in_msg(&t->call, msg, len);
    fw_msg_sink_t tap = {tap_msg_write, t, out.end ? tap_msg_end : NULL,
                         out.tell ? tap_msg_tell : NULL};
    clock_sync(h);
    host_answer_t answered = device_handle(h, session, msg, len, env, tap, late);
    tell_watchers(h, false);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
    host_tap_call_finish(&t->call);
    free(t);
    deliver_late(h);
    return answered;
}

void host_device_feed_late(host_t *h, host_tap_src_t *src, fw_session_t *session, fw_framer_t *fr,
                           const uint8_t *data, size_t len, fw_sink_t out, host_late_t late)
{
    if (host_tap_on(&h->tap) && host_tap_admit(&h->tap)) {
        feed_tapped(h, src, session, fr, data, len, out, late);
        return;
    }
    clock_sync(h);
    device_feed(h, session, fr, data, len, out, late);
    tell_watchers(h, false);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
    deliver_late(h);
}

void host_device_feed_session(host_t *h, host_tap_src_t *src, fw_session_t *session,
                              fw_framer_t *fr, const uint8_t *data, size_t len, fw_sink_t out)
{
    host_device_feed_late(h, src, session, fr, data, len, out, (host_late_t){0});
}

char *host_device_control(host_t *h, const char *msg, size_t len)
{
    clock_sync(h);
    char *resp = sim_control_handle(h->sim, msg, len);
    tell_watchers(h, true);
    uint64_t next = clock_next(h);
    clock_arm(h, next); /* a control call may have changed the next event (a new waveform) */
    return resp;
}

host_answer_t host_device_session_late(host_t *h, const char *transport, fw_session_t *session,
                                       const char *msg, size_t len, const fw_envelope_t *env,
                                       fw_msg_sink_t out, host_late_t late)
{
    if (host_tap_on(&h->tap) && host_tap_admit(&h->tap))
        return session_tapped(h, transport, session, msg, len, env, out, late);
    clock_sync(h);
    host_answer_t answered = device_handle(h, session, msg, len, env, out, late);
    tell_watchers(h, false);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
    deliver_late(h);
    return answered;
}

bool host_device_session(host_t *h, const char *transport, fw_session_t *session, const char *msg,
                         size_t len, fw_msg_sink_t out)
{
    return host_device_session_late(h, transport, session, msg, len, NULL, out, (host_late_t){0}) ==
           HOST_ANSWERED;
}

void host_clock_rearm(host_t *h)
{
    tell_watchers(h, true);
    uint64_t next = clock_next(h);
    clock_arm(h, next);
}

/* ---------------------------------------------------------------- the output and input budgets */

static void on_trim(uv_timer_t *t)
{
    host_t *h = t->data;
    malloc_trim(0);
    h->out_high = h->out_total;
    h->in_high = h->in_total;
}

/* The freed heap goes back to the system shortly, once for many frees close together (300
   clients leaving at once cost one malloc_trim, not 300). */
static void mem_release_soon(host_t *h)
{
    if (h->stopping || uv_is_active((uv_handle_t *)&h->trim_timer)) return;
    uv_timer_start(&h->trim_timer, on_trim, 100, 0);
}

/* A client leaving frees its state and its queues, whatever they held: given back soon. */
void host_out_conn(host_t *h, int delta)
{
    h->out_conns = (unsigned)((int)h->out_conns + delta);
    if (delta < 0) mem_release_soon(h);
}

void host_out_queued(host_t *h, size_t n)
{
    h->out_total += n;
    if (h->out_total > h->out_high) h->out_high = h->out_total;
}

/* Past a high mark of a few MB, once three quarters of it are gone, the freed heap goes back. */
static void release_after_peak(host_t *h, size_t total, size_t high)
{
    if (high >= (4u << 20) && total <= high / 4) mem_release_soon(h);
}

void host_out_sent(host_t *h, size_t n)
{
    h->out_total -= n < h->out_total ? n : h->out_total;
    release_after_peak(h, h->out_total, h->out_high);
}

size_t host_out_share(const host_t *h)
{
    size_t share = h->out_budget / (h->out_conns ? h->out_conns : 1u);
    return share < HOST_OUT_SHARE_MIN ? HOST_OUT_SHARE_MIN : share;
}

bool host_out_over_hard(const host_t *h, size_t held)
{
    return h->out_total > h->out_budget && held > 2 * host_out_share(h);
}

bool host_in_take(host_t *h, size_t held, size_t n)
{
    if (held + n > h->in_share && h->in_total + n > h->in_budget) return false;
    h->in_total += n;
    if (h->in_total > h->in_high) h->in_high = h->in_total;
    return true;
}

void host_in_release(host_t *h, size_t n)
{
    h->in_total -= n < h->in_total ? n : h->in_total;
    release_after_peak(h, h->in_total, h->in_high);
}

unsigned host_refusal(host_t *h, host_refusals_t *r)
{
    r->count++;
    uint64_t now = uv_now(&h->loop);
    if (r->last_ms != 0 && now - r->last_ms < 1000) return 0;
    unsigned n = r->count;
    r->count = 0;
    r->last_ms = now;
    return n;
}

static void on_signal(uv_signal_t *s, int signum)
{
    host_log(HOST_LOG_INFO, "%s received, shutting down", signum == SIGINT ? "SIGINT" : "SIGTERM");
    host_stop(s->data);
}

int host_init(host_t *h, sim_t *sim)
{
    memset(h, 0, sizeof *h);
    h->sim = sim;
    h->clock = sim_clock_mode(sim);
    h->out_budget = HOST_OUT_BUDGET_DEFAULT;
    h->in_budget = HOST_IN_BUDGET_DEFAULT;
    h->in_share = HOST_IN_SHARE_MIN;
    host_tap_init(&h->tap);
    int rc = uv_loop_init(&h->loop);
    if (rc != 0) {
        sim_destroy(sim);
        h->sim = NULL;
        return rc;
    }
    /* A client that vanishes must cost a failed write, not the process. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);

    uv_timer_init(&h->loop, &h->clock_timer);
    h->clock_timer.data = h;
    uv_timer_init(&h->loop, &h->trim_timer);
    h->trim_timer.data = h;
    uv_signal_init(&h->loop, &h->sig_int);
    uv_signal_init(&h->loop, &h->sig_term);
    h->sig_int.data = h->sig_term.data = h;
    if ((rc = uv_signal_start(&h->sig_int, on_signal, SIGINT)) != 0 ||
        (rc = uv_signal_start(&h->sig_term, on_signal, SIGTERM)) != 0)
        return rc;
    h->start_ns = uv_hrtime();
    clock_arm(h, 0); /* runs whatever is due at time 0, then follows the sim's events */
    return 0;
}

void host_run(host_t *h)
{
    uv_run(&h->loop, UV_RUN_DEFAULT);
}

static void close_handle(uv_handle_t *handle)
{
    if (!uv_is_closing(handle)) uv_close(handle, NULL);
}

void host_stop(host_t *h)
{
    if (h->stopping) return;
    h->stopping = true;
    /* first: answers every request still waiting on a device (an HTTP POST parked for its
       answer resumes) */
    if (h->bridge) host_bridge_stop(h->bridge);
    if (h->http) host_http_close(h->http);
    h->http = NULL;
    if (h->dashboard) host_dashboard_close(h->dashboard);
    h->dashboard = NULL;
    close_handle((uv_handle_t *)&h->clock_timer);
    close_handle((uv_handle_t *)&h->trim_timer);
    close_handle((uv_handle_t *)&h->sig_int);
    close_handle((uv_handle_t *)&h->sig_term);
    if (h->pty) host_pty_close(h->pty);
    if (h->stdio) host_stdio_close(h->stdio);
    h->stdio = NULL;
    if (h->tcp) host_tcp_close(h->tcp);
    if (h->control) host_server_close(h->control);
    if (h->fleet) host_fleet_stop(h->fleet); /* first: its summary; before ws: its links */
    if (h->mqtt) host_mqtt_stop(h->mqtt);
    if (h->ws) host_ws_stop(h->ws);
    h->pty = NULL;
    h->tcp = h->control = NULL;
}

static void close_leftover(uv_handle_t *handle, void *arg)
{
    (void)arg;
    host_log(HOST_LOG_DEBUG, "closing leftover handle of type %s",
             uv_handle_type_name(uv_handle_get_type(handle)));
    close_handle(handle);
}

void host_close(host_t *h)
{
    if (!h->sim) return;
    host_stop(h);
    uv_run(&h->loop, UV_RUN_DEFAULT); /* lets every close callback run */
    uv_walk(&h->loop, close_leftover, NULL);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    h->watcher_count = 0;
    host_ws_free(h->ws); /* after the loop ran libwebsockets' close callbacks */
    h->ws = NULL;
    host_mqtt_free(h->mqtt);
    h->mqtt = NULL;
    host_fleet_free(h->fleet); /* after ws: the links' close callbacks reached its devices */
    h->fleet = NULL;
    host_bridge_free(h->bridge); /* after its timers and polls were closed */
    h->bridge = NULL;
    if (uv_loop_close(&h->loop) != 0)
        host_log(HOST_LOG_WARN, "event loop closed with handles still open");
    sim_destroy(h->sim);
    h->sim = NULL;
    host_tap_destroy(&h->tap);
}

/* ---------------------------------------------------------------- a fleet's devices */

void host_init_device(host_t *h, sim_t *sim, host_t *owner)
{
    /* h is zeroed memory (calloc): not written as a whole, so the pages of its tap's ring,
       never used on a fleet's device, stay out of the resident set */
    h->sim = sim;
    h->clock = sim_clock_mode(sim);
    host_tap_init(&h->tap);
    uv_timer_init(&owner->loop, &h->clock_timer);
    h->clock_timer.data = h;
    uv_timer_init(&owner->loop, &h->trim_timer);
    h->trim_timer.data = h;
    h->start_ns = owner->start_ns;
    clock_arm(h, 0);
}

void host_stop_device(host_t *h)
{
    if (h->stopping) return;
    h->stopping = true;
    close_handle((uv_handle_t *)&h->clock_timer);
    close_handle((uv_handle_t *)&h->trim_timer);
}

void host_free_device(host_t *h)
{
    if (!h->sim) return;
    sim_destroy(h->sim);
    h->sim = NULL;
    host_tap_destroy(&h->tap);
}
