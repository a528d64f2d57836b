/* mcp_notify.c: device-initiated MCP notifications: the firmware log ring, pin change
   tracking, sessions and fw_device_drain. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/*
 * A pull design without heap: the device records what happened with sequence numbers (a ring
 * of log entries, a change count stamped on each pin that changed) and every session keeps its
 * own cursors, so any number of sessions share one record. Counters may wrap: they are compared
 * in serial-number order (RFC 1982). A cursor ahead of the device (the device was initialised
 * again under a living session) is pulled back to the present.
 */

_Static_assert(FW_PINS_MAX < 32, "subscriptions are a uint32_t with a bit for device://info");
_Static_assert(FW_LOG_RING >= 1 && FW_LOG_RING <= 0xffff, "log slots are counted in uint16_t");
_Static_assert(FW_LOG_DEFAULT_LEVEL >= 0 && FW_LOG_DEFAULT_LEVEL < FW_LOG_LEVEL_COUNT,
               "FW_LOG_DEFAULT_LEVEL must be a fw_log_level_t");

static const char *const level_names[FW_LOG_LEVEL_COUNT] = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

const char *fw_log_level_name(fw_log_level_t level)
{
    return (unsigned)level < FW_LOG_LEVEL_COUNT ? level_names[level] : NULL;
}

static bool seq_before(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

void fw_session_init(fw_session_t *session, const fw_device_t *dev)
{
    memset(session, 0, sizeof *session);
    session->log_level = FW_LOG_DEFAULT_LEVEL;
    session->change_cursor = dev->change_count;
    session->log_cursor = dev->log_next;
    session->boot_cursor = 0; /* the start's entries are seqs 0 .. boot_log_end - 1 */
}

/* ---------------------------------------------------------------- writing notifications */

void fw_mcp_notify_begin(fw_jw_t *w, const fw_msg_sink_t *out, const char *method)
{
    fw_jw_init(w, (fw_sink_t){out->write, out->ctx});
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "jsonrpc", "2.0");
    fw_jw_kv_str(w, "method", method);
    fw_jw_key(w, "params");
    fw_jw_obj_begin(w);
}

void fw_mcp_notify_end(fw_jw_t *w, const fw_msg_sink_t *out)
{
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    fw_jw_flush(w);
    fw_msg_sink_end(out, FW_MSG_NOTIFICATION, 0);
}

/* Ends a notification for session s: a listener's carries its subscription id in _meta. */
static void notify_end(fw_jw_t *w, const fw_msg_sink_t *out, const fw_session_t *s)
{
#if FW_WITH_LISTEN
    if (s != NULL && s->sub_id != NULL) {
        fw_jw_key(w, "_meta");
        fw_jw_obj_begin(w);
        fw_jw_key(w, "io.modelcontextprotocol/subscriptionId");
        fw_jw_raw(w, s->sub_id, s->sub_id_len);
        fw_jw_obj_end(w);
    }
#else
    (void)s;
#endif
    fw_mcp_notify_end(w, out);
}

static void send_message(const fw_device_t *dev, const fw_session_t *s, const fw_msg_sink_t *out,
                         uint8_t level, const char *text)
{
    const char *logger = dev->board->device;
    fw_jw_t w;
    fw_mcp_notify_begin(&w, out, "notifications/message");
    fw_jw_kv_str(&w, "level", level_names[level]);
    fw_jw_kv_str(&w, "logger", logger != NULL && logger[0] != 0 ? logger : "firmware");
    fw_jw_kv_str(&w, "data", text);
    notify_end(&w, out, s);
}

/* The update of pin def's resource, or (def NULL) of the resource at uri. */
static void send_updated(const fw_pin_def_t *def, const char *uri, const fw_session_t *s,
                         const fw_msg_sink_t *out)
{
    fw_jw_t w;
    fw_mcp_notify_begin(&w, out, "notifications/resources/updated");
    fw_jw_key(&w, "uri");
    if (def != NULL) {
        fw_mcp_write_pin_uri(&w, def);
    } else {
        fw_jw_str(&w, uri);
    }
    notify_end(&w, out, s);
}

/* ---------------------------------------------------------------- the log */

static const fw_log_entry_t *log_entry(const fw_device_t *dev, uint32_t seq)
{
    uint32_t back = dev->log_next - seq; /* 1 for the newest entry */
    return &dev->log[(dev->log_head + FW_LOG_RING - back) % FW_LOG_RING];
}

/* Log messages for s: a notice of entries lost to the ring, then each entry at its level. */
static size_t drain_log(const fw_device_t *dev, fw_session_t *s, const fw_msg_sink_t *out)
{
    uint32_t oldest = dev->log_next - dev->log_count;
    size_t sent = 0;
    if (seq_before(dev->log_next, s->log_cursor) || !s->logging) s->log_cursor = dev->log_next;
    if (seq_before(s->log_cursor, oldest)) {
        char text[FW_LOG_TEXT_MAX];
        fw_fmt(text, sizeof text,
               "%u log messages were lost: the log ring (FW_LOG_RING %u) overran before they "
               "were sent",
               (unsigned)(oldest - s->log_cursor), (unsigned)FW_LOG_RING);
        s->log_cursor = oldest;
        if (s->log_level <= FW_LOG_WARNING) {
            send_message(dev, s, out, FW_LOG_WARNING, text);
            sent++;
        }
    }
    for (; s->logging && seq_before(s->boot_cursor, dev->boot_log_end); s->boot_cursor++) {
        if (seq_before(s->boot_cursor, oldest) || !seq_before(s->boot_cursor, s->log_cursor))
            continue; /* overwritten since, or the regular cursor sends it */
        const fw_log_entry_t *e = log_entry(dev, s->boot_cursor);
        if (e->level < s->log_level) continue;
        send_message(dev, s, out, e->level, e->text);
        sent++;
    }
    for (; s->log_cursor != dev->log_next; s->log_cursor++) {
        const fw_log_entry_t *e = log_entry(dev, s->log_cursor);
        if (e->level < s->log_level) continue;
        send_message(dev, s, out, e->level, e->text);
        sent++;
    }
    return sent;
}

void fw_mcp_vlog(fw_device_t *dev, fw_log_level_t level, const char *fmt, va_list ap)
{
    fw_log_entry_t *e = &dev->log[dev->log_head];
    e->level = (uint8_t)((unsigned)level < FW_LOG_LEVEL_COUNT ? level : FW_LOG_EMERGENCY);
    fw_vfmt(e->text, sizeof e->text, fmt, ap);
    dev->log_head = (uint16_t)((dev->log_head + 1u) % FW_LOG_RING);
    dev->log_next++;
    if (dev->log_count < FW_LOG_RING) dev->log_count++;
    if (dev->msg != NULL && dev->msg->live) drain_log(dev, dev->msg->session, &dev->msg->out);
}

/* ---------------------------------------------------------------- observing the pins */

/* What a pin resource shows that can change: the latest sample, the type, the PWM duty and
   the known digital level. */
#if FW_SPEED_PATHS >= 2 && defined(__GNUC__)
#define OBSERVE_FAST 1
#define OBSERVE_APART __attribute__((noinline)) /* apart from fw_mcp_observe's usual path */
#else
#define OBSERVE_FAST 0
#define OBSERVE_APART
#endif

/* The part of a pin's look that is its state alone (no sample). */
static inline uint64_t state_look(const fw_pin_state_t *st)
{
    uint64_t level = st->have_level ? (2u | (st->level ? 1u : 0u)) : 0u;
    return (uint64_t)st->type << 16 | (uint64_t)st->duty << 8 | level;
}

static inline uint64_t pin_look(const fw_device_t *dev, size_t i)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    uint64_t look = state_look(&dev->pins[i]);
#if FW_SPEED_PATHS >= 2 /* most pins are not sampled: no call to find that out */
    if (def->sample_interval_ms == 0) return look;
#endif
    if (!fw_pin_sampled(def)) return look;
    const fw_pin_sampling_t *sm = fw_sampling_state(dev, (uint8_t)i);
    uint64_t sample = sm != NULL && sm->count > 0 ? sm->latest : 0u;
    return sample << 32 | look;
}

/* Compares pin i's look with the last one; a change is counted and stamped on the pin. */
static inline void observe_pin(fw_device_t *dev, size_t i, uint64_t look)
{
    if (look == dev->pin_look[i]) return;
    dev->pin_look[i] = look;
    dev->pin_changed[i] = ++dev->change_count;
}

#if !OBSERVE_FAST
/* Only the pins written since the last look (fw_pin_touch) can look different: those are
   compared, in pin order as before. */
static void observe_pins(fw_device_t *dev)
{
    for (size_t k = 0; k < FW_ARRAY_LEN(dev->pin_touched); k++) {
        uint32_t bits = dev->pin_touched[k];
        dev->pin_touched[k] = 0;
        for (size_t i = k * 32u; bits != 0; i++, bits >>= 1) {
            if (!(bits & 1u) || i >= dev->board->pin_count) continue;
            observe_pin(dev, i, pin_look(dev, i));
        }
    }
}
#endif

static void log_event(fw_device_t *dev, const fw_event_t *e)
{
    const fw_pin_def_t *def = &dev->board->pins[e->pin_index];
    bool rising = e->kind == FW_EVENT_RISING;
    if (def->type != FW_PIN_ADC_INPUT) {
        fw_log(dev, FW_LOG_NOTICE, "pin %s (%u): %s edge", def->name, (unsigned)def->number,
               rising ? "rising" : "falling");
        return;
    }
    fw_log(dev, FW_LOG_NOTICE, "pin %s (%u): %s threshold %d (value %u)", def->name,
           (unsigned)def->number, rising ? "reached the high" : "fell to the low",
           (int)(rising ? def->threshold_high : def->threshold_low), (unsigned)e->value);
}

/* Events still queued that were not logged yet (a client may take events off the queue
   before they are observed: those are not logged). */
OBSERVE_APART static void observe_events(fw_device_t *dev)
{
    for (uint16_t k = 0; k < dev->ev_count; k++) {
        const fw_event_t *e = fw_event_at(dev, k);
        if (seq_before(dev->ev_logged, e->seq)) log_event(dev, e);
    }
    dev->ev_logged = dev->ev_next_seq - 1u;
    if (dev->counters.events_dropped == dev->drops_logged) return;
    dev->drops_logged = dev->counters.events_dropped;
    fw_log(dev, FW_LOG_WARNING,
           "event queue full (FW_EVENT_QUEUE_MAX %u); events dropped since "
           "boot: %u",
           (unsigned)FW_EVENT_QUEUE_MAX, (unsigned)dev->drops_logged);
}

#if OBSERVE_FAST
/* The rest of fw_mcp_observe from a sampled pin on: the pins of bits (word k's, which is
   cleared already) and of the words after it, then the events. Apart, so that the usual look
   (no sampled pin touched, nothing queued) makes no call and saves no register. */
OBSERVE_APART static void observe_rest(fw_device_t *dev, size_t k, uint32_t bits)
{
    size_t count = dev->board->pin_count;
    for (;;) {
        while (bits != 0) {
            size_t i = k * 32u + (size_t)__builtin_ctz(bits);
            if (i >= count) break;
            bits &= bits - 1u;
            observe_pin(dev, i, pin_look(dev, i));
        }
        if (++k >= FW_ARRAY_LEN(dev->pin_touched)) break;
        bits = dev->pin_touched[k];
        dev->pin_touched[k] = 0;
    }
    observe_events(dev);
}

/* As observe_pins then observe_events, with each set bit found at once (lowest first, so in
   pin order still) rather than by one shift per pin below it, and the usual case of the
   events (nothing queued, nothing newly dropped) tested first. */
void fw_mcp_observe(fw_device_t *dev)
{
    size_t count = dev->board->pin_count;
    for (size_t k = 0; k < FW_ARRAY_LEN(dev->pin_touched); k++) {
        uint32_t bits = dev->pin_touched[k];
        if (bits == 0) continue;
        dev->pin_touched[k] = 0;
        do {
            size_t i = k * 32u + (size_t)__builtin_ctz(bits);
            if (i >= count) break; /* the bits above it are past the last pin too */
            const fw_pin_def_t *def = &dev->board->pins[i];
            if (def->sample_interval_ms != 0) {
                observe_rest(dev, k, bits);
                return;
            }
            bits &= bits - 1u;
            observe_pin(dev, i, state_look(&dev->pins[i]));
        } while (bits != 0);
    }
    if (dev->ev_count == 0 && dev->counters.events_dropped == dev->drops_logged)
        dev->ev_logged = dev->ev_next_seq - 1u;
    else
        observe_events(dev);
}
#else
void fw_mcp_observe(fw_device_t *dev)
{
    observe_pins(dev);
    observe_events(dev);
}
#endif

void fw_mcp_init(fw_device_t *dev)
{
    for (size_t i = 0; i < dev->board->pin_count; i++) dev->pin_look[i] = pin_look(dev, i);
    memset(dev->pin_touched, 0, sizeof dev->pin_touched);
    dev->ev_logged = dev->ev_next_seq - 1u;
    dev->drops_logged = dev->counters.events_dropped;
    fw_session_init(&dev->session, dev);
#if FW_WITH_LISTEN
    for (size_t k = 0; k < FW_MAX_LISTENERS; k++) dev->listeners[k].open = false;
    dev->listen_top = 0;
#endif
}

/* ---------------------------------------------------------------- drain */

/* device://info shows only constant facts, so a subscription to it never fires; the
   application's fixed resources fire when it calls fw_device_resource_changed. */
static size_t drain_updates(const fw_device_t *dev, fw_session_t *s, const fw_msg_sink_t *out)
{
    size_t sent = 0;
    if (seq_before(dev->change_count, s->change_cursor)) s->change_cursor = dev->change_count;
    if (s->subscriptions == 0 || s->change_cursor == dev->change_count) { /* most drains */
        s->change_cursor = dev->change_count;
        return 0;
    }
    for (size_t i = 0; i < dev->board->pin_count; i++) {
        if (!(s->subscriptions & (1u << i)) || !seq_before(s->change_cursor, dev->pin_changed[i]))
            continue;
        send_updated(&dev->board->pins[i], NULL, s, out);
        sent++;
    }
    for (size_t k = 0; k < dev->resource_count; k++) {
        if (!(s->subscriptions & (1u << (FW_PINS_MAX + 1u + k))) ||
            !seq_before(s->change_cursor, dev->resource_changed[k]))
            continue;
        send_updated(NULL, dev->resources[k]->uri, s, out);
        sent++;
    }
    s->change_cursor = dev->change_count;
    return sent;
}

#if FW_WITH_LISTEN
static const char *const list_methods[FW_LIST_COUNT] = {"notifications/tools/list_changed",
                                                        "notifications/resources/list_changed",
                                                        "notifications/prompts/list_changed"};

/* A listener's list_changed notifications: one per list it follows that changed since. */
static size_t drain_lists(const fw_device_t *dev, fw_listener_t *l, const fw_msg_sink_t *out)
{
    size_t sent = 0;
    for (unsigned k = 0; k < FW_LIST_COUNT; k++) {
        if (!(l->lists & (1u << k)) || l->list_seen[k] == dev->list_gen[k]) continue;
        l->list_seen[k] = dev->list_gen[k];
        fw_jw_t w;
        fw_mcp_notify_begin(&w, out, list_methods[k]);
        notify_end(&w, out, &l->session);
        sent++;
    }
    return sent;
}

static size_t drain_listener(fw_device_t *dev, fw_listener_t *l, const fw_msg_sink_t *out)
{
    size_t sent = drain_lists(dev, l, out);
    sent += drain_updates(dev, &l->session, out);
    return sent + drain_log(dev, &l->session, out);
}
#endif

size_t fw_device_drain(fw_device_t *dev, fw_session_t *session, fw_msg_sink_t out)
{
    fw_session_t *s = session != NULL ? session : &dev->session;
    fw_mcp_observe(dev);
    size_t sent = drain_updates(dev, s, &out);
    sent += drain_log(dev, s, &out);
#if FW_WITH_LISTEN
    for (int k = 0; k < dev->listen_top; k++) /* the listen streams of s's client */
        if (dev->listeners[k].open && dev->listeners[k].owner == s)
            sent += drain_listener(dev, &dev->listeners[k], &out);
#endif
#if FW_WITH_TASKS_2025
    sent += fw_mcp_tasks_drain(dev, s, &out); /* task progress, held tasks/result answers */
#endif
    return sent;
}

/* The record's state in one word: every counter a drain compares a cursor with. The
   counters only grow between two inits; after an init (a reset) they start again: the time of
   the start and the mixing make an equal word by chance unlikely. */
static uint32_t record_mark(const fw_device_t *dev)
{
    uint32_t m = (uint32_t)dev->boot_ms;
    m = m * 0x9e3779b1u + dev->change_count;
    m = m * 0x9e3779b1u + dev->log_next;
    m = m * 0x9e3779b1u + dev->boot_log_end;
    for (unsigned k = 0; k < FW_LIST_COUNT; k++) m = m * 0x9e3779b1u + dev->list_gen[k];
    return m;
}

bool fw_device_pending(fw_device_t *dev, uint32_t *mark)
{
    fw_mcp_observe(dev);
    uint32_t m = record_mark(dev);
    bool pending = m != *mark;
    *mark = m;
#if FW_WITH_TASKS_2025
    /* a task's progress due or a tasks/result held: drained (and cleared) per session */
    for (size_t i = 0; i < dev->task_top && !pending; i++)
        pending =
            dev->tasks[i].id != 0 && (dev->tasks[i].progress_due || dev->tasks[i].waiter != NULL);
#endif
    return pending;
}

bool fw_device_session_waits(const fw_device_t *dev, const fw_session_t *session)
{
    const fw_session_t *s = session != NULL ? session : &dev->session;
    if (s->ask_tool != NULL) return true;
#if FW_WITH_TASKS_2025
    for (size_t i = 0; i < dev->task_top; i++)
        if (dev->tasks[i].id != 0 && dev->tasks[i].waiter == s) return true;
#endif
    return false;
}

void fw_device_session_release(fw_device_t *dev, const fw_session_t *session)
{
    const fw_session_t *s = session != NULL ? session : &dev->session;
    fw_device_listen_release(dev, s);
#if FW_WITH_TASKS_2025
    fw_mcp_tasks_release(dev, s);
#endif
}

/* ---------------------------------------------------------------- subscriptions/listen */

#if FW_WITH_LISTEN
int fw_device_listen_take(fw_device_t *dev, const fw_session_t *owner)
{
    const fw_session_t *s = owner != NULL ? owner : &dev->session;
    for (int k = 0; k < FW_MAX_LISTENERS; k++) {
        fw_listener_t *l = &dev->listeners[k];
        if (!l->open || l->owner != s) continue;
        l->owner = NULL; /* the caller's from now on: drained and closed by its index */
        return k;
    }
    return -1;
}

void fw_device_listen_release(fw_device_t *dev, const fw_session_t *owner)
{
    const fw_session_t *s = owner != NULL ? owner : &dev->session;
    for (int k = 0; k < FW_MAX_LISTENERS; k++)
        if (dev->listeners[k].owner == s) fw_device_listen_close(dev, k);
}

bool fw_device_listen_open(const fw_device_t *dev, int slot)
{
    return slot >= 0 && slot < FW_MAX_LISTENERS && dev->listeners[slot].open;
}

size_t fw_device_listen_drain(fw_device_t *dev, int slot, fw_msg_sink_t out)
{
    if (!fw_device_listen_open(dev, slot)) return 0;
    fw_mcp_observe(dev);
    return drain_listener(dev, &dev->listeners[slot], &out);
}

void fw_device_listen_close(fw_device_t *dev, int slot)
{
    if (!fw_device_listen_open(dev, slot)) return;
    dev->listeners[slot].open = false;
    dev->listeners[slot].owner = NULL;
}
#endif

#endif
