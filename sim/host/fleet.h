/* fleet.h: --fleet N: N simulated devices of one board in one process, on one loop, each
   dialling out (WebSocket --connect, MQTT --mqtt) with its own identity. */
#ifndef HOST_FLEET_H
#define HOST_FLEET_H

#include <stdint.h>

#include "cli.h"
#include "host.h"

/*
 * Adds devices 2..o->fleet to h (device 1 is h itself, whose links main opened): each its own
 * board instance, firmware, clock and sessions (host_init_device), its links started
 * (o->fleet_stagger_ms * (n - 1)) ms after start_ns, through h's one libwebsockets context
 * and h's loop. Logs the count connected as it changes, and once when all are. Sets h->fleet.
 * 0, or -1 after logging (a board that cannot be loaded again, a link that cannot start).
 */
int host_fleet_open(host_t *h, const host_options_t *o, uint64_t start_ns);

/* Loop thread (host_stop): prints the summary line, then stops every device's links and
   clocks. */
void host_fleet_stop(host_fleet_t *f);

/* After the loop ran the close callbacks (host_close): frees the devices. NULL is a no-op. */
void host_fleet_free(host_fleet_t *f);

#endif
