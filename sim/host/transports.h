/* transports.h: the listeners of one simulator: the device's TCP transport and the control channel.
 */
#ifndef HOST_TRANSPORTS_H
#define HOST_TRANSPORTS_H

#include <stddef.h>

#include "cli.h"
#include "host.h"

/* Unsent reply bytes a TCP client may let pile up before it is disconnected. */
#define HOST_TCP_OUT_MAX (1u << 20)

/* Longest control-channel line, and unsent control output allowed per client. */
#define HOST_CONTROL_LINE_MAX (1u << 20)
#define HOST_CONTROL_OUT_MAX (16u << 20)

/*
 * The device's TCP transport: newline-delimited JSON-RPC as MCP/U's TCP transport, each client
 * with its own framer and MCP session, every request handled by the one firmware instance.
 * After every call into the device (any transport, the clock, the control channel) each client
 * gets its session's pending notifications as lines (nothing for a client that never sent
 * initialize). NULL after logging.
 */
host_server_t *host_tcp_open(host_t *h, const host_endpoint_t *ep, char *addr, size_t cap);

/* Stops the notification push and closes the listener and its clients (host_server_close). */
void host_tcp_close(host_server_t *srv);

/* The control channel: each line goes to sim_control_handle, its response comes back followed
   by "\n". A separate listener: the device's transports never reach it. NULL after logging. */
host_server_t *host_control_open(host_t *h, const host_endpoint_t *ep, char *addr, size_t cap);

#endif
