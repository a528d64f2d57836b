/* dashboard.h: the browser dashboard (--dashboard): a live view and control surface of the board.
 */
#ifndef HOST_DASHBOARD_H
#define HOST_DASHBOARD_H

#include <stddef.h>

#include "cli.h"
#include "host.h"

/* Largest control POST body; a larger one gets 413. */
#define HOST_DASHBOARD_BODY_MAX (64u << 10)

/* Shortest time between two state events of one stream (changes in between are coalesced into
   the next one, so a change is on the wire at most this long plus a snapshot's time later). */
#define HOST_DASHBOARD_MIN_INTERVAL_MS 50u

/*
 * Starts the dashboard's HTTP server on o->dashboard (libmicrohttpd, its own threads, as --http)
 * with the Host/Origin checks and the bearer token of o. It serves:
 *   GET  /            the page (embedded in the binary; it loads nothing else)
 *   GET  /events      text/event-stream: "event: snapshot" with the sim.snapshot response, at
 *                     once and after every change of the board (coalesced, see above)
 *   GET  /api/snapshot  the sim.snapshot response (JSON)
 *   POST /api/control   one control-channel message (JSON-RPC sim.*): its response, as the
 *                     control channel would answer it
 * With a token, requests carry "Authorization: Bearer TOKEN" or "?token=TOKEN" (a browser's
 * EventSource cannot send headers). On success writes the page's URL ("http://127.0.0.1:7004/")
 * to url and returns the server; NULL after logging the reason. Loop thread, before host_run.
 */
host_dashboard_t *host_dashboard_open(host_t *h, const host_options_t *o, char *url, size_t cap);

/* Loop thread (host_stop): ends every stream, waits for the server's threads, frees it. */
void host_dashboard_close(host_dashboard_t *d);

#endif
