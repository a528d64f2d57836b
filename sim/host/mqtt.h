/* mqtt.h: MCP over MQTT (seed 003): the device connects to a broker with libmosquitto on the
   host's libuv loop, publishes its hello, and serves envelopes received on its topic. */
#ifndef HOST_MQTT_H
#define HOST_MQTT_H

#include <stddef.h>
#include <stdint.h>

#include "dialout.h"
#include "host.h"

/* Reconnection, as the WebSocket dial-out: the first retry after HOST_MQTT_RETRY_MIN_MS, each
   failure doubling the wait up to HOST_MQTT_RETRY_MAX_MS; a connection resets the series. */
#define HOST_MQTT_RETRY_MIN_MS 500u
#define HOST_MQTT_RETRY_MAX_MS 30000u

/* MQTT keepalive (seconds) the device asks the broker for. */
#define HOST_MQTT_KEEPALIVE_S 60

/* Longest message the device takes (a longer one is answered with an error). */
#define HOST_MQTT_MSG_MAX (1u << 20)

/* What the command line asks of MQTT; every string may hold {n} (the device's number in a
   fleet, 1 for a single device). The strings must outlive the link. */
typedef struct host_mqtt_config {
    const char *url;         /* --mqtt mqtt://HOST[:PORT] (port 1883 when none) */
    const char *publish;     /* --mqtt-publish: where the device's messages go */
    const char *subscribe;   /* --mqtt-subscribe: where the backend's messages come from */
    const char *client_id;   /* --mqtt-client-id, or NULL: "mcpsim-{n}" */
    uint64_t fleet_start_ns; /* uv_hrtime() connection times are counted from (0: now) */
} host_mqtt_config_t;

/* Checks an --mqtt URL: mqtt://HOST[:PORT] (no path; mqtts:// is refused: no TLS). 0, or -1
   with a message in err. host/port may be NULL. */
int host_mqtt_url_parse(const char *url, char *host, size_t host_cap, uint16_t *port, char *err,
                        size_t err_cap);

/*
 * Starts device dev's MQTT link on owner's loop (dev == owner for a single device), as device
 * number n, its first attempt after delay_ms. Connects in the background (states logged) and
 * reconnects with backoff until host_mqtt_stop. NULL after logging why (a bad URL or topic).
 */
host_mqtt_t *host_mqtt_open(host_t *owner, host_t *dev, const host_mqtt_config_t *cfg, unsigned n,
                            uint32_t delay_ms);

/* Loop thread: disconnects (an MQTT DISCONNECT when connected) and closes its handles. */
void host_mqtt_stop(host_mqtt_t *m);

/* After the loop ran the close callbacks: frees the link. NULL is a no-op. */
void host_mqtt_free(host_mqtt_t *m);

/* The link's counters. */
const host_link_stats_t *host_mqtt_stats(const host_mqtt_t *m);

#endif
