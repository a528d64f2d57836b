/* mqtt.c: the device's MQTT link (--mqtt): libmosquitto driven from the host's libuv loop
   (its socket in a uv_poll, loop_read/write/misc), seed 003's hello and envelopes. */
#include "mqtt.h"

#include <errno.h>
#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "envelope.h"
#include "log.h"

/* The device's transport hello (seed 003), as on WebSocket but naming this transport. */
static const char hello[] =
    "{\"type\":\"hello\",\"version\":1,\"features\":{\"mcp\":true},\"transport\":\"mqtt\"}";

/*
 * States: waiting (the retry timer runs) -> connecting (a socket, no CONNACK yet) -> connected
 * (CONNACK accepted: subscribed, hello published) -> the socket lost (on_disconnect) -> waiting,
 * until stopped. libmosquitto never runs a thread here: its socket sits in a uv_poll (readable,
 * and writable while it has output queued), a one-second timer runs its keepalive; all of it
 * on the loop thread, so the device is called from there like from any other transport.
 *
 * Nesting: libmosquitto holds its own mutexes while it runs a callback, and a watcher runs
 * inside a call into the device. The two never nest: the callbacks only take note (the
 * CONNACK, a copy of each message, in `inbox`), which is served once libmosquitto has returned;
 * what the device writes goes to `outbox` and is published once the device call has returned
 * (flush).
 */
typedef struct mqtt_msg {
    struct mqtt_msg *next;
    size_t len;
    char text[]; /* not NUL-terminated */
} mqtt_msg_t;

typedef struct mqtt_queue {
    mqtt_msg_t *head, *tail;
} mqtt_queue_t;
struct host_mqtt {
    host_t *owner, *h; /* the loop's host, and the device served (the same for one device) */
    struct mosquitto *mosq;
    char *url, *publish, *subscribe, *client_id; /* templated for device n (malloc'd) */
    char host[256];
    uint16_t port;
    uv_poll_t *poll; /* on the socket, or NULL (a new one per socket: libuv wants that) */
    int poll_fd, poll_events;
    uv_timer_t tick;  /* keepalive: mosquitto_loop_misc every second */
    uv_timer_t retry; /* the next attempt */
    uint32_t delay_ms;
    unsigned attempt; /* attempts since the last connection */
    bool connected;   /* CONNACK accepted */
    bool greet;       /* connected, the session and the hello not yet done (after_io) */
    bool stopping, watching;
    mqtt_queue_t inbox;   /* messages received during libmosquitto's callbacks, not yet served */
    mqtt_queue_t outbox;  /* messages the device wrote, not yet published */
    uv_async_t wake;      /* a watcher ran: drain the session and publish, on the loop */
    fw_session_t session; /* a fresh MCP session per connection */
    char *session_id;     /* JSON text of the last envelope's session_id (malloc'd), or NULL */
    host_buf_t out;       /* the message being written by the device */
    bool out_wrap;
    host_link_stats_t stats;
    uint64_t start_ns;
};

static void lib_init(void)
{
    mosquitto_lib_init();
}

/* ---------------------------------------------------------------- the URL */

int host_mqtt_url_parse(const char *url, char *host, size_t host_cap, uint16_t *port, char *err,
                        size_t err_cap)
{
    char h[256];
    unsigned long p = 1883;
    if (strncasecmp(url, "mqtts://", 8) == 0) {
        snprintf(err, err_cap,
                 "--mqtt '%s': mqtts:// (TLS) is not supported; use mqtt://, or reach a TLS "
                 "broker through a local proxy",
                 url);
        return -1;
    }
    const char *a = strncasecmp(url, "mqtt://", 7) == 0 ? url + 7 : NULL;
    size_t n = a ? strcspn(a, ":/") : 0;
    bool ok = a && n > 0 && n < sizeof h;
    if (ok) {
        memcpy(h, a, n);
        h[n] = 0;
        const char *rest = a + n;
        if (*rest == ':') {
            char *end = NULL;
            p = strtoul(rest + 1, &end, 10);
            ok = end != rest + 1 && p >= 1 && p <= 65535;
            rest = end ? end : rest;
        }
        ok = ok && (*rest == 0 || strcmp(rest, "/") == 0);
    }
    if (!ok) {
        snprintf(err, err_cap, "--mqtt '%s': expected mqtt://HOST[:PORT] (a port 1-65535)", url);
        return -1;
    }
    if (host) snprintf(host, host_cap, "%s", h);
    if (port) *port = (uint16_t)p;
    return 0;
}

/* ---------------------------------------------------------------- output */

static void queue_push(mqtt_queue_t *q, const char *text, size_t len)
{
    mqtt_msg_t *e = malloc(sizeof *e + len);
    if (!e) abort();
    e->next = NULL;
    e->len = len;
    memcpy(e->text, text, len);
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
}

static mqtt_msg_t *queue_pop(mqtt_queue_t *q)
{
    mqtt_msg_t *e = q->head;
    if (e && !(q->head = e->next)) q->tail = NULL;
    return e;
}

static void queue_clear(mqtt_queue_t *q)
{
    for (mqtt_msg_t *e; (e = queue_pop(q));) free(e);
}

static void out_write(void *ctx, const char *data, size_t len)
{
    host_mqtt_t *m = ctx;
    if (m->out.len == 0 && m->out_wrap) host_env_head(&m->out, m->session_id);
    host_buf_append(&m->out, data, len);
}

/* One whole message: to the outbox (published by flush, once the device call returned). */
static void out_end(void *ctx)
{
    host_mqtt_t *m = ctx;
    if (m->out.len == 0 && m->out_wrap) host_env_head(&m->out, m->session_id);
    if (m->out_wrap) host_buf_append(&m->out, "}", 1);
    if (m->connected) queue_push(&m->outbox, m->out.data, m->out.len);
    m->out.len = 0;
}

/* Loop thread, outside a device call and libmosquitto's callbacks: publishes the outbox on
   the device's topic (QoS 0, as the device's own are). */
static void flush(host_mqtt_t *m)
{
    for (mqtt_msg_t *e; (e = queue_pop(&m->outbox)); free(e)) {
        int rc = m->connected && !m->stopping
                     ? mosquitto_publish(m->mosq, NULL, m->publish, (int)e->len, e->text, 0, false)
                     : MOSQ_ERR_NO_CONN;
        if (rc == MOSQ_ERR_SUCCESS)
            m->stats.msgs_out++;
        else
            host_log(HOST_LOG_DEBUG, "mqtt: %s: message dropped: %s", m->client_id,
                     mosquitto_strerror(rc));
    }
}

static fw_msg_sink_t sink(host_mqtt_t *m, bool wrap)
{
    m->out_wrap = wrap;
    m->out.len = 0;
    return (fw_msg_sink_t){out_write, m, out_end, NULL};
}

/* The device's watcher, after every call into it: the session's notifications are drained and
   published from the loop (on_wake, an uv_async to itself), outside that call. */
static void on_device(void *ctx, bool all)
{
    (void)all; /* one session, drained on every tell (a drain skipped while not writable is
                  retried on the next) */
    host_mqtt_t *m = ctx;
    if (m->connected && !m->stopping) uv_async_send(&m->wake);
}

static void watch_socket(host_mqtt_t *m);

static void on_wake(uv_async_t *a)
{
    host_mqtt_t *m = a->data;
    if (!m->connected || m->stopping) return;
    host_device_drain(m->h, &m->session, sink(m, true));
    flush(m);
    watch_socket(m);
}

/* ---------------------------------------------------------------- the socket on the loop */

static void schedule_retry(host_mqtt_t *m, const char *why);
static void after_io(host_mqtt_t *m);

static void free_poll(uv_handle_t *handle)
{
    free(handle);
}

static void drop_poll(host_mqtt_t *m)
{
    if (!m->poll) return;
    uv_close((uv_handle_t *)m->poll, free_poll);
    m->poll = NULL;
    m->poll_fd = -1;
    m->poll_events = 0;
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    host_mqtt_t *m = p->data;
    if (status < 0) events = UV_READABLE | UV_WRITABLE; /* libmosquitto finds the error */
    int rc = MOSQ_ERR_SUCCESS;
    if (events & UV_READABLE) rc = mosquitto_loop_read(m->mosq, 1);
    if (rc == MOSQ_ERR_SUCCESS && (events & UV_WRITABLE) && mosquitto_socket(m->mosq) >= 0)
        rc = mosquitto_loop_write(m->mosq, 1);
    if (rc != MOSQ_ERR_SUCCESS)
        host_log(HOST_LOG_DEBUG, "mqtt: %s: %s", m->client_id, mosquitto_strerror(rc));
    after_io(m);
}

/* Follows libmosquitto's socket: a poll on it (writable too while output waits), none once it
   is closed, and the next attempt scheduled then. */
static void watch_socket(host_mqtt_t *m)
{
    if (m->stopping) return;
    int fd = mosquitto_socket(m->mosq);
    if (fd != m->poll_fd) drop_poll(m);
    if (fd < 0) {
        schedule_retry(m, "the connection is closed");
        return;
    }
    if (!m->poll) {
        m->poll = malloc(sizeof *m->poll);
        if (!m->poll) abort();
        if (uv_poll_init(&m->owner->loop, m->poll, fd) != 0) {
            free(m->poll);
            m->poll = NULL;
            mosquitto_disconnect(m->mosq);
            schedule_retry(m, "its socket cannot be watched");
            return;
        }
        m->poll->data = m;
        m->poll_fd = fd;
    }
    int events = UV_READABLE | (mosquitto_want_write(m->mosq) ? UV_WRITABLE : 0);
    if (events != m->poll_events) {
        uv_poll_start(m->poll, events, on_poll);
        m->poll_events = events;
    }
}

static void on_tick(uv_timer_t *t)
{
    host_mqtt_t *m = t->data;
    if (mosquitto_socket(m->mosq) < 0) return;
    mosquitto_loop_misc(m->mosq);
    after_io(m);
}

/* ---------------------------------------------------------------- attempts and backoff */

static void attempt(host_mqtt_t *m);

static void on_retry(uv_timer_t *t)
{
    attempt(t->data);
}

static void schedule_retry(host_mqtt_t *m, const char *why)
{
    if (m->stopping || uv_is_active((uv_handle_t *)&m->retry)) return;
    host_log(m->owner == m->h ? HOST_LOG_INFO : HOST_LOG_DEBUG,
             "mqtt: %s: %s; next attempt in %.1f s", m->url, why, m->delay_ms / 1000.0);
    uv_timer_start(&m->retry, on_retry, m->delay_ms, 0);
    m->delay_ms =
        m->delay_ms * 2 > HOST_MQTT_RETRY_MAX_MS ? HOST_MQTT_RETRY_MAX_MS : m->delay_ms * 2;
}

static void attempt(host_mqtt_t *m)
{
    m->attempt++;
    m->stats.attempts++;
    host_log(m->owner == m->h ? HOST_LOG_INFO : HOST_LOG_DEBUG,
             "mqtt: %s: connecting as %s (attempt %u)", m->url, m->client_id, m->attempt);
    int rc = m->stats.attempts == 1
                 ? mosquitto_connect_async(m->mosq, m->host, m->port, HOST_MQTT_KEEPALIVE_S)
                 : mosquitto_reconnect_async(m->mosq);
    if (rc != MOSQ_ERR_SUCCESS) {
        char why[200];
        m->stats.failures++;
        snprintf(why, sizeof why, "cannot connect: %s",
                 rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
        schedule_retry(m, why);
        return;
    }
    watch_socket(m);
}

/* ---------------------------------------------------------------- libmosquitto's callbacks */

static void on_connect(struct mosquitto *mosq, void *ctx, int rc)
{
    host_mqtt_t *m = ctx;
    if (rc != 0) {
        host_log(HOST_LOG_WARN, "mqtt: %s: the broker refused %s: %s", m->url, m->client_id,
                 mosquitto_connack_string(rc));
        mosquitto_disconnect(mosq); /* on_disconnect counts the failure and schedules */
        return;
    }
    m->connected = true;
    m->greet = true; /* the session and the hello: after_io, outside this callback */
    m->attempt = 0;
    m->delay_ms = HOST_MQTT_RETRY_MIN_MS;
    free(m->session_id);
    m->session_id = NULL;
    queue_clear(&m->inbox);
    queue_clear(&m->outbox);
    rc = mosquitto_subscribe(mosq, NULL, m->subscribe, 0);
    if (rc != MOSQ_ERR_SUCCESS)
        host_log(HOST_LOG_WARN, "mqtt: %s: cannot subscribe to %s: %s", m->url, m->subscribe,
                 mosquitto_strerror(rc));
    if (m->stats.established++ == 0) m->stats.first_connect_s = (uv_hrtime() - m->start_ns) / 1e9;
    m->stats.connected = true;
    host_log(m->owner == m->h ? HOST_LOG_INFO : HOST_LOG_DEBUG,
             "mqtt: %s: connected as %s; subscribed to %s; hello published on %s", m->url,
             m->client_id, m->subscribe, m->publish);
}

static void on_disconnect(struct mosquitto *mosq, void *ctx, int rc)
{
    host_mqtt_t *m = ctx;
    (void)mosq;
    bool was = m->connected;
    m->connected = false;
    if (m->stopping) return; /* our own DISCONNECT: the counters keep the state at the stop */
    if (was)
        m->stats.drops++;
    else
        m->stats.failures++;
    m->stats.connected = false;
    char why[160];
    snprintf(why, sizeof why, "%s (%s)", was ? "the connection was lost" : "cannot connect",
             rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
    schedule_retry(m, why);
}

/* Remembers the envelope's session_id: the answers echo it. */
static void take_session_id(host_mqtt_t *m, host_env_t *env)
{
    free(m->session_id);
    m->session_id = env->session_id;
    env->session_id = NULL;
}

static void serve(host_mqtt_t *m, const char *msg, size_t len)
{
    host_env_t env;
    host_env_parse(msg, len, &env);
    bool wrap = env.kind == HOST_ENV_MCP;
    if (env.kind == HOST_ENV_OTHER) {
        if (env.session_id) take_session_id(m, &env);
        host_log(HOST_LOG_DEBUG, "mqtt: %s: envelope of type \"%s\" ignored", m->client_id,
                 env.type);
    } else if (wrap && !env.payload) {
        char bad[200];
        size_t n = host_env_bad_payload(bad, sizeof bad);
        take_session_id(m, &env);
        fw_msg_sink_t out = sink(m, true);
        out.write(m, bad, n);
        out.end(m);
    } else {
        if (wrap) take_session_id(m, &env);
        m->stats.msgs_in++;
        host_device_session(m->h, "mqtt", &m->session, env.payload, env.payload_len, sink(m, wrap));
    }
    host_env_free(&env);
}

static void on_message(struct mosquitto *mosq, void *ctx, const struct mosquitto_message *msg)
{
    host_mqtt_t *m = ctx;
    (void)mosq;
    if (!m->connected || m->stopping || msg->payloadlen <= 0) return;
    if ((size_t)msg->payloadlen > HOST_MQTT_MSG_MAX) {
        host_log(HOST_LOG_WARN, "mqtt: %s: a message of %d bytes on %s ignored (at most %u)",
                 m->client_id, msg->payloadlen, msg->topic, HOST_MQTT_MSG_MAX);
        return;
    }
    queue_push(&m->inbox, msg->payload, (size_t)msg->payloadlen); /* served by after_io */
}

/* After libmosquitto returned (loop thread): a new connection's session and
   hello, the messages received, what the device wrote; then the socket's poll follows. */
static void after_io(host_mqtt_t *m)
{
    if (m->greet && m->connected) {
        m->greet = false;
        host_device_release(m->h, &m->session); /* the lost connection's listen streams */
        fw_session_init(&m->session, sim_device(m->h->sim));
        fw_msg_sink_t out = sink(m, false);
        out.write(m, hello, sizeof hello - 1);
        out.end(m);
    }
    for (mqtt_msg_t *e; (e = queue_pop(&m->inbox)); free(e))
        if (m->connected && !m->stopping) serve(m, e->text, e->len);
    flush(m);
    watch_socket(m);
}

/* ---------------------------------------------------------------- life */

static int check_topics(const host_mqtt_t *m)
{
    if (mosquitto_pub_topic_check(m->publish) != MOSQ_ERR_SUCCESS) {
        host_log(HOST_LOG_ERROR, "--mqtt-publish '%s': not a topic to publish to (no + or #)",
                 m->publish);
        return -1;
    }
    if (mosquitto_sub_topic_check(m->subscribe) != MOSQ_ERR_SUCCESS) {
        host_log(HOST_LOG_ERROR, "--mqtt-subscribe '%s': not a valid topic filter", m->subscribe);
        return -1;
    }
    return 0;
}

host_mqtt_t *host_mqtt_open(host_t *owner, host_t *dev, const host_mqtt_config_t *cfg, unsigned n,
                            uint32_t delay_ms)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    char err[300];
    pthread_once(&once, lib_init);
    host_mqtt_t *m = calloc(1, sizeof *m);
    if (!m) abort();
    m->owner = owner;
    m->h = dev;
    m->poll_fd = -1;
    m->url = host_template(cfg->url, n);
    m->publish = host_template(cfg->publish, n);
    m->subscribe = host_template(cfg->subscribe, n);
    m->client_id = host_template(cfg->client_id ? cfg->client_id : "mcpsim-{n}", n);
    m->delay_ms = HOST_MQTT_RETRY_MIN_MS;
    m->start_ns = cfg->fleet_start_ns ? cfg->fleet_start_ns : uv_hrtime();
    m->stats.first_connect_s = -1;
    if (host_mqtt_url_parse(m->url, m->host, sizeof m->host, &m->port, err, sizeof err) != 0) {
        host_log(HOST_LOG_ERROR, "%s", err);
        host_mqtt_free(m);
        return NULL;
    }
    if (check_topics(m) != 0) {
        host_mqtt_free(m);
        return NULL;
    }
    if (!(m->mosq = mosquitto_new(m->client_id, true, m))) {
        host_log(HOST_LOG_ERROR, "mqtt: cannot create a client '%s'", m->client_id);
        host_mqtt_free(m);
        return NULL;
    }
    mosquitto_connect_callback_set(m->mosq, on_connect);
    mosquitto_disconnect_callback_set(m->mosq, on_disconnect);
    mosquitto_message_callback_set(m->mosq, on_message);
    mosquitto_int_option(m->mosq, MOSQ_OPT_TCP_NODELAY, 1);
    uv_timer_init(&owner->loop, &m->tick);
    uv_timer_init(&owner->loop, &m->retry);
    uv_async_init(&owner->loop, &m->wake, on_wake);
    m->tick.data = m->retry.data = m->wake.data = m;
    uv_timer_start(&m->tick, on_tick, 1000, 1000);
    m->watching = host_device_watch(dev, on_device, m) == 0;
    if (delay_ms == 0)
        attempt(m);
    else
        uv_timer_start(&m->retry, on_retry, delay_ms, 0);
    return m;
}

void host_mqtt_stop(host_mqtt_t *m)
{
    if (m->stopping) return;
    m->stopping = true;
    if (m->connected) mosquitto_disconnect(m->mosq); /* written at once: not in a callback */
    m->connected = false;
    if (m->watching) host_device_unwatch(m->h, on_device, m);
    m->watching = false;
    drop_poll(m);
    uv_close((uv_handle_t *)&m->tick, NULL);
    uv_close((uv_handle_t *)&m->retry, NULL);
    uv_close((uv_handle_t *)&m->wake, NULL);
}

void host_mqtt_free(host_mqtt_t *m)
{
    if (!m) return;
    if (m->mosq) mosquitto_destroy(m->mosq);
    free(m->url);
    free(m->publish);
    free(m->subscribe);
    free(m->client_id);
    free(m->session_id);
    host_buf_free(&m->out);
    queue_clear(&m->inbox);
    queue_clear(&m->outbox);
    free(m);
}

const host_link_stats_t *host_mqtt_stats(const host_mqtt_t *m)
{
    return &m->stats;
}
