/* mqtt_peer.h: the integration tests' MQTT side: a real mosquitto broker on a free loopback
   port, and a synchronous backend client (libmosquitto) that sends and receives envelopes. */
#ifndef MQTT_PEER_H
#define MQTT_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

/* The exit status ctest counts as "skipped" (SKIP_RETURN_CODE). */
#define MQTT_SKIP 77

/* The mosquitto broker binary ($MOSQUITTO, else PATH, else /usr/sbin/mosquitto), or NULL when
   none is installed. */
const char *mqtt_broker_bin(void);

typedef struct mqtt_broker {
    pid_t pid;
    int port;
    char conf[64]; /* the generated configuration file */
} mqtt_broker_t;

/* Starts mosquitto on 127.0.0.1:port (0: a free one) and waits until it accepts connections;
   asserts it does. */
void mqtt_broker_start(mqtt_broker_t *b, int port);

/* Stops it (SIGTERM, waited for) and removes its configuration. */
void mqtt_broker_stop(mqtt_broker_t *b);

typedef struct mqtt_peer mqtt_peer_t;

/* A backend connected to the broker on port, subscribed to filter (QoS 0); asserts it is. */
mqtt_peer_t *mqtt_peer_open(int port, const char *filter);

/* Publishes text on topic (QoS 0). */
void mqtt_peer_send(mqtt_peer_t *p, const char *topic, const char *text);

/* The next message within timeout_s, parsed (NULL on timeout); its topic goes to topic (a
   buffer of cap bytes) when not NULL. Asserts that what arrives is JSON. */
json_t *mqtt_peer_recv(mqtt_peer_t *p, double timeout_s, char *topic, size_t cap);

void mqtt_peer_close(mqtt_peer_t *p);

#endif
