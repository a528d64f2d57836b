/* dialout.h: what the links a device dials out on (WebSocket --connect, MQTT --mqtt) share:
   the device's identity in a fleet ({n} templates) and the counters a fleet sums up. */
#ifndef HOST_DIALOUT_H
#define HOST_DIALOUT_H

#include <stdbool.h>
#include <stddef.h>

/* One link's counters (loop thread only). */
typedef struct host_link_stats {
    unsigned long attempts;    /* connection attempts started */
    unsigned long established; /* attempts that connected (and sent their hello) */
    unsigned long failures;    /* attempts that failed before connecting */
    unsigned long drops;       /* connections lost after they were established */
    unsigned long msgs_in;     /* messages handed to the device */
    unsigned long msgs_out;    /* messages sent (hello, answers, notifications) */
    bool connected;            /* connected now */
    double first_connect_s;    /* seconds from the process's fleet start to the first
                                  connection; -1 until then */
} host_link_stats_t;

/*
 * text with every "{n}" replaced by n (malloc'd; NULL in: NULL out). A fleet's device n
 * (1..N) gets its own URL, Device-Id, client id and topics this way.
 */
char *host_template(const char *text, unsigned n);

#endif
