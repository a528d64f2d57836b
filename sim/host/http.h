/* http.h: MCP's Streamable HTTP transport (libmicrohttpd): POST, GET and DELETE on /mcp. */
#ifndef HOST_HTTP_H
#define HOST_HTTP_H

#include <stddef.h>

#include "cli.h"
#include "host.h"

/* Largest POST body; a larger one gets 413. */
#define HOST_HTTP_BODY_MAX (1u << 20)

/*
 * Starts the HTTP server on o->http (its own threads: one per connection) with the limits and
 * checks of o (sessions, idle time, allowed hosts and origins, bearer token). On success writes
 * the endpoint's URL ("http://127.0.0.1:7002/mcp", the real port when it was 0) to url and
 * returns the server; NULL after logging the reason. Loop thread, before host_run.
 */
host_http_t *host_http_open(host_t *h, const host_options_t *o, char *url, size_t cap);

/* Loop thread (host_stop): ends every session and stream, waits for the server's threads,
   frees the server. */
void host_http_close(host_http_t *http);

#endif
