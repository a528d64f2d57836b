/* fleet.c: --fleet N: devices 2..N beside the host's own device 1, their dial-out links, the
   progress log and the summary at exit. */
#include "fleet.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mqtt.h"
#include "ws.h"

/* One device: device 1 is the host itself (dev == fleet->h), the others live in devs[]. */
typedef struct fleet_dev {
    host_t *dev;
    struct ws_link *link; /* its --connect link, or NULL */
    host_mqtt_t *mqtt;    /* its --mqtt link, or NULL */
} fleet_dev_t;

struct host_fleet {
    host_t *h;
    unsigned count;   /* devices, the host's own included */
    host_t *devs;     /* devices 2..count (count - 1 of them) */
    fleet_dev_t *all; /* every device, [0] the host's */
    bool ws, mqtt;    /* which links the devices have */
    uv_timer_t progress;
    unsigned last_ws, last_mqtt; /* connected counts last logged */
    bool all_ws, all_mqtt;       /* "all connected" logged */
    FILE *summary_out;
    bool stopping;
};

/* ---------------------------------------------------------------- counting */

typedef struct totals {
    unsigned connected, ever; /* devices connected now, and devices that connected once */
    unsigned long attempts, failures, drops, msgs_in, msgs_out;
    double last_first_s; /* the latest first connection (s from the start) */
} totals_t;

static void add(totals_t *t, const host_link_stats_t *s)
{
    t->connected += s->connected;
    t->ever += s->established > 0;
    t->attempts += s->attempts;
    t->failures += s->failures;
    t->drops += s->drops;
    t->msgs_in += s->msgs_in;
    t->msgs_out += s->msgs_out;
    if (s->first_connect_s > t->last_first_s) t->last_first_s = s->first_connect_s;
}

static totals_t count(const host_fleet_t *f, bool mqtt)
{
    totals_t t;
    memset(&t, 0, sizeof t);
    for (unsigned i = 0; i < f->count; i++) {
        host_link_stats_t now;
        if (mqtt && f->all[i].mqtt) add(&t, host_mqtt_stats(f->all[i].mqtt));
        if (!mqtt && f->all[i].link) add(&t, host_ws_link_stats(f->all[i].link, &now));
    }
    return t;
}

static void log_progress(host_fleet_t *f, const char *name, bool mqtt, unsigned *last, bool *all)
{
    totals_t t = count(f, mqtt);
    if (t.connected != *last)
        host_log(HOST_LOG_INFO, "fleet: %s: %u of %u devices connected", name, t.connected,
                 f->count);
    *last = t.connected;
    if (!*all && t.ever == f->count) {
        *all = true;
        host_log(HOST_LOG_INFO,
                 "fleet: %s: all %u devices connected, the last %.3f s after the "
                 "start",
                 name, f->count, t.last_first_s);
    }
}

static void on_progress(uv_timer_t *timer)
{
    host_fleet_t *f = timer->data;
    if (f->ws) log_progress(f, "websocket", false, &f->last_ws, &f->all_ws);
    if (f->mqtt) log_progress(f, "mqtt", true, &f->last_mqtt, &f->all_mqtt);
}

static json_t *totals_json(const totals_t *t)
{
    return json_pack("{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:f}", "connected", (int)t->connected,
                     "ever_connected", (int)t->ever, "attempts", (json_int_t)t->attempts,
                     "failed_attempts", (json_int_t)t->failures, "drops", (json_int_t)t->drops,
                     "messages_in", (json_int_t)t->msgs_in, "messages_out", (json_int_t)t->msgs_out,
                     "last_first_connect_s", t->last_first_s);
}

/* One line: fleet: {"devices": N, "websocket": {...}, "mqtt": {...}}. */
static void print_summary(const host_fleet_t *f)
{
    json_t *o = json_pack("{s:i}", "devices", (int)f->count);
    totals_t ws = count(f, false), mq = count(f, true);
    if (f->ws) json_object_set_new(o, "websocket", totals_json(&ws));
    if (f->mqtt) json_object_set_new(o, "mqtt", totals_json(&mq));
    char *text = json_dumps(o, JSON_COMPACT);
    fprintf(f->summary_out, "fleet: %s\n", text);
    fflush(f->summary_out);
    if (f->ws)
        host_log(HOST_LOG_INFO,
                 "fleet: websocket: %u of %u devices connected (%u ever), %lu failed attempts, "
                 "%lu connections lost, %lu messages in, %lu out",
                 ws.connected, f->count, ws.ever, ws.failures, ws.drops, ws.msgs_in, ws.msgs_out);
    if (f->mqtt)
        host_log(HOST_LOG_INFO,
                 "fleet: mqtt: %u of %u devices connected (%u ever), %lu failed attempts, %lu "
                 "connections lost, %lu messages in, %lu out",
                 mq.connected, f->count, mq.ever, mq.failures, mq.drops, mq.msgs_in, mq.msgs_out);
    free(text);
    json_decref(o);
}

/* ---------------------------------------------------------------- life */

/* Device n (2..count): the board again, its firmware booted, on h's loop. */
static int add_device(host_fleet_t *f, const host_options_t *o, const char *path, unsigned n)
{
    char msg[1024];
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *board = sim_board_load(path, &err);
    sim_t *sim = board ? sim_create(board, o->clock, &err) : NULL;
    if (!sim) {
        sim_error_format(&err, msg, sizeof msg);
        host_log(HOST_LOG_ERROR, "fleet: device %u: %s", n, msg);
        return -1;
    }
    host_t *dev = &f->devs[n - 2];
    host_init_device(dev, sim, f->h);
    f->all[n - 1].dev = dev;
    return 0;
}

/* Device n's links, started after its stagger. */
static int dial(host_fleet_t *f, const host_options_t *o, unsigned n, uint64_t start_ns)
{
    fleet_dev_t *d = &f->all[n - 1];
    uint32_t delay = o->fleet_stagger_ms * (n - 1);
    if (f->ws && !(d->link = host_ws_dial(f->h->ws, d->dev, n, delay))) return -1;
    if (f->mqtt) {
        host_mqtt_config_t mc = {o->mqtt, o->mqtt_publish, o->mqtt_subscribe, o->mqtt_client_id,
                                 start_ns};
        if (!(d->mqtt = host_mqtt_open(f->h, d->dev, &mc, n, delay))) return -1;
    }
    return 0;
}

int host_fleet_open(host_t *h, const host_options_t *o, uint64_t start_ns)
{
    char path[4096], msg[1024];
    if (host_board_path(o->board, path, sizeof path, msg, sizeof msg) != 0) {
        host_log(HOST_LOG_ERROR, "%s", msg);
        return -1;
    }
    host_fleet_t *f = calloc(1, sizeof *f);
    if (!f) abort();
    h->fleet = f; /* from here on host_stop/host_close take it down, whatever fails */
    f->h = h;
    f->count = o->fleet;
    f->ws = o->connect != NULL;
    f->mqtt = o->mqtt != NULL;
    f->summary_out = o->stdio ? stderr : stdout;
    f->devs = calloc(f->count - 1 + 1, sizeof *f->devs);
    f->all = calloc(f->count, sizeof *f->all);
    if (!f->devs || !f->all) abort();
    f->all[0] = (fleet_dev_t){h, host_ws_first_link(h->ws), h->mqtt};
    uv_timer_init(&h->loop, &f->progress);
    f->progress.data = f;
    uv_timer_start(&f->progress, on_progress, 1000, 1000);
    for (unsigned n = 2; n <= f->count; n++)
        if (add_device(f, o, path, n) != 0 || dial(f, o, n, start_ns) != 0) return -1;
    host_log(HOST_LOG_INFO, "fleet: %u devices of %s, dialling out %u ms apart", f->count, o->board,
             o->fleet_stagger_ms);
    return 0;
}

void host_fleet_stop(host_fleet_t *f)
{
    if (f->stopping) return;
    f->stopping = true;
    print_summary(f);
    uv_close((uv_handle_t *)&f->progress, NULL);
    for (unsigned i = 1; i < f->count; i++) {
        if (f->all[i].mqtt) host_mqtt_stop(f->all[i].mqtt);
        if (f->all[i].dev) host_stop_device(f->all[i].dev);
    }
}

void host_fleet_free(host_fleet_t *f)
{
    if (!f) return;
    for (unsigned i = 1; i < f->count; i++) {
        host_mqtt_free(f->all[i].mqtt);
        if (f->all[i].dev) host_free_device(f->all[i].dev);
    }
    free(f->all);
    free(f->devs);
    free(f);
}
