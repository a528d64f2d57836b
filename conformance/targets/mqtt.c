/* mqtt.c: the mqtt://HOST:PORT?to=TOPIC&from=TOPIC target: MCP in seed 003's envelope through
   an MQTT broker (libmosquitto), the device subscribed to `to` and publishing on `from`. */
#define _POSIX_C_SOURCE 200809L
#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

#define CONNECT_TIMEOUT_MS 3000
#define KEEPALIVE_S 60

typedef struct mqtt_impl {
    struct mosquitto *mosq;
    char to[256], from[256]; /* the device's subscribed and published topics */
    char session_id[48];
    bool connected, subscribed, lost;
    unsigned hellos; /* the device's hellos seen (not handed to the scenarios) */
    char **queue;    /* whole messages received, unwrapped */
    size_t qhead, qlen, qcap;
} mqtt_impl_t;

static void lib_init(void)
{
    mosquitto_lib_init();
}

static void push(mqtt_impl_t *m, char *msg)
{
    if (m->qlen == m->qcap) {
        m->qcap = m->qcap ? m->qcap * 2 : 16;
        m->queue = conf_xrealloc(m->queue, m->qcap * sizeof *m->queue);
    }
    m->queue[m->qlen++] = msg;
}

static void on_connect(struct mosquitto *mosq, void *ctx, int rc)
{
    (void)mosq;
    ((mqtt_impl_t *)ctx)->connected = rc == 0;
}

static void on_subscribe(struct mosquitto *mosq, void *ctx, int mid, int n, const int *qos)
{
    (void)mosq, (void)mid, (void)n, (void)qos;
    ((mqtt_impl_t *)ctx)->subscribed = true;
}

static void on_disconnect(struct mosquitto *mosq, void *ctx, int rc)
{
    (void)mosq, (void)rc;
    ((mqtt_impl_t *)ctx)->lost = true;
}

/* Our own envelopes give their payload; the device's hello is counted, not delivered; anything
   else (a plain answer to a plain message) is delivered as it is. */
static void on_message(struct mosquitto *mosq, void *ctx, const struct mosquitto_message *mm)
{
    mqtt_impl_t *m = ctx;
    (void)mosq;
    const char *text = mm->payload ? mm->payload : "";
    size_t len = mm->payloadlen > 0 ? (size_t)mm->payloadlen : 0;
    char *msg = conf_strndup(text, len);
    json_t *j = json_loadb(text, len, 0, NULL);
    const char *type = json_string_value(json_object_get(j, "type"));
    const char *sid = json_string_value(json_object_get(j, "session_id"));
    const json_t *payload = json_object_get(j, "payload");
    if (type && strcmp(type, "hello") == 0 && !json_object_get(j, "jsonrpc")) {
        m->hellos++;
        free(msg);
        msg = NULL;
    } else if (sid && strcmp(sid, m->session_id) == 0 && payload) {
        free(msg);
        msg = conf_json_text(payload);
    }
    json_decref(j);
    if (msg) push(m, msg);
}

/* Runs the client until done(m) or the deadline; true when done. */
static bool service_until(mqtt_impl_t *m, bool (*done)(const mqtt_impl_t *), int64_t deadline)
{
    while (!done(m) && !m->lost) {
        int64_t left = deadline - conf_now_ms();
        if (left <= 0) break;
        int rc = mosquitto_loop(m->mosq, left < 50 ? (int)left : 50, 1);
        if (rc != MOSQ_ERR_SUCCESS && rc != MOSQ_ERR_NO_CONN) m->lost = true;
    }
    return done(m);
}

static bool is_subscribed(const mqtt_impl_t *m)
{
    return m->subscribed;
}

static bool is_connected(const mqtt_impl_t *m)
{
    return m->connected;
}

static bool has_message(const mqtt_impl_t *m)
{
    return m->qhead < m->qlen;
}

static bool has_hello(const mqtt_impl_t *m)
{
    return m->hellos > 0;
}

/* "//HOST:PORT?to=TOPIC&from=TOPIC" */
static int parse(const char *spec, char *host, size_t cap, int *port, mqtt_impl_t *m)
{
    if (strncmp(spec, "//", 2) != 0) return -1;
    const char *h = spec + 2, *colon = strchr(h, ':'), *q = strchr(h, '?');
    if (!colon || (q && colon > q) || (size_t)(colon - h) >= cap || colon == h) return -1;
    memcpy(host, h, (size_t)(colon - h));
    host[colon - h] = 0;
    char *end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (p < 1 || p > 65535 || (*end && *end != '?' && *end != '/')) return -1;
    *port = (int)p;
    if (!conf_query_get(q, "to", m->to, sizeof m->to) ||
        !conf_query_get(q, "from", m->from, sizeof m->from) || !m->to[0] || !m->from[0])
        return -1;
    return 0;
}

static int mqtt_open(conf_target_t *t, const char *spec, char *err, size_t cap)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    char host[256];
    int port = 0;
    pthread_once(&once, lib_init);
    mqtt_impl_t *m = conf_xcalloc(1, sizeof *m);
    t->impl = m;
    conf_copy(t->transport, sizeof t->transport, "mqtt");
    if (parse(spec, host, sizeof host, &port, m) != 0) {
        snprintf(err, cap, "mqtt target \"mqtt:%s\": expected mqtt://HOST:PORT?to=TOPIC&from=TOPIC",
                 spec);
        t->ops->close(t);
        return CONF_EXIT_USAGE;
    }
    snprintf(m->session_id, sizeof m->session_id, "conformance-%ld", (long)getpid());
    char id[64];
    snprintf(id, sizeof id, "conformance-%ld", (long)getpid());
    m->mosq = mosquitto_new(id, true, m);
    if (!m->mosq) abort();
    mosquitto_connect_callback_set(m->mosq, on_connect);
    mosquitto_subscribe_callback_set(m->mosq, on_subscribe);
    mosquitto_disconnect_callback_set(m->mosq, on_disconnect);
    mosquitto_message_callback_set(m->mosq, on_message);
    int64_t deadline = conf_now_ms() + CONNECT_TIMEOUT_MS;
    int rc = mosquitto_connect(m->mosq, host, port, KEEPALIVE_S);
    if (rc == MOSQ_ERR_SUCCESS && service_until(m, is_connected, deadline) &&
        mosquitto_subscribe(m->mosq, NULL, m->from, 0) == MOSQ_ERR_SUCCESS &&
        service_until(m, is_subscribed, deadline))
        return CONF_EXIT_OK;
    snprintf(err, cap, "mqtt://%s:%d: %s", host, port,
             rc != MOSQ_ERR_SUCCESS ? mosquitto_strerror(rc)
                                    : "the broker did not accept the connection or subscription");
    t->ops->close(t);
    return CONF_EXIT_UNREACHABLE;
}

bool conf_mqtt_wait_hello(conf_target_t *t, int64_t deadline)
{
    mqtt_impl_t *m = t->impl;
    return service_until(m, has_hello, deadline);
}

/* A JSON-RPC message goes out wrapped; an envelope the scenario wrote itself (an object with
   "type" and no "jsonrpc") and text that is not JSON go out as they are. */
static char *wrap(const mqtt_impl_t *m, const char *msg, size_t len)
{
    json_t *j = json_loadb(msg, len, JSON_DECODE_ANY, NULL);
    bool own = json_is_object(j) && json_object_get(j, "type") && !json_object_get(j, "jsonrpc");
    if (!j || own) {
        json_decref(j);
        return conf_strndup(msg, len);
    }
    json_t *env =
        json_pack("{s:s, s:s, s:o}", "session_id", m->session_id, "type", "mcp", "payload", j);
    char *text = conf_json_text(env);
    json_decref(env);
    return text;
}

static int mqtt_send(conf_target_t *t, const char *msg, size_t len, char *err, size_t cap)
{
    mqtt_impl_t *m = t->impl;
    if (m->lost) {
        snprintf(err, cap, "the connection to the broker was lost");
        return -1;
    }
    char *text = wrap(m, msg, len);
    int rc = mosquitto_publish(m->mosq, NULL, m->to, (int)strlen(text), text, 0, false);
    free(text);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_write(m->mosq, 1);
    if (rc != MOSQ_ERR_SUCCESS) {
        snprintf(err, cap, "MQTT publish on %s: %s", m->to, mosquitto_strerror(rc));
        return -1;
    }
    return 0;
}

static int mqtt_receive(conf_target_t *t, int64_t deadline, char **msg, size_t *len, char *err,
                        size_t cap)
{
    mqtt_impl_t *m = t->impl;
    service_until(m, has_message, deadline);
    if (m->qhead < m->qlen) {
        *msg = m->queue[m->qhead++];
        *len = strlen(*msg);
        if (m->qhead == m->qlen) m->qhead = m->qlen = 0;
        return 1;
    }
    if (m->lost) {
        snprintf(err, cap, "the connection to the broker was lost");
        return -1;
    }
    return 0;
}

static void mqtt_close(conf_target_t *t)
{
    mqtt_impl_t *m = t->impl;
    if (!m) return;
    if (m->mosq) {
        if (m->connected && !m->lost) mosquitto_disconnect(m->mosq);
        mosquitto_destroy(m->mosq);
    }
    for (size_t i = m->qhead; i < m->qlen; i++) free(m->queue[i]);
    free(m->queue);
    free(m);
    t->impl = NULL;
}

const conf_target_ops_t conf_target_mqtt = {"mqtt",       mqtt_open,  mqtt_send, NULL,
                                            mqtt_receive, mqtt_close, NULL,      NULL};
