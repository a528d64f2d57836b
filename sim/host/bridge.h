/* bridge.h: --device: real MCP/U devices (serial or TCP) served as one MCP server on every host
   transport, in the place of the simulated device. */
#ifndef HOST_BRIDGE_H
#define HOST_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"
#include "host.h"

/* Page size of the bridge's tools/list. */
#define HOST_BRIDGE_PAGE 8u
/* Defaults of a device URL's parameters (serial:PATH?baud=N&settle_ms=N&timeout_ms=N). */
#define HOST_BRIDGE_BAUD 115200u
#define HOST_BRIDGE_SETTLE_MS 600u /* after DTR reset, as MCP/U's client waits for an ESP32 */
#define HOST_BRIDGE_TIMEOUT_MS 5000u
/* Reconnection backoff after an unplug: first delay, doubling up to the cap. */
#define HOST_BRIDGE_RETRY_MS 200u
#define HOST_BRIDGE_RETRY_MAX_MS 5000u

/* A parsed device URL. */
typedef struct host_device_url {
    bool serial; /* serial:PATH, else tcp:HOST:PORT */
    char path[512];
    char host[256];
    char port[8];
    unsigned baud, settle_ms, timeout_ms;
    bool wait; /* wait=1: absent at startup is not an error; retried until it answers */
} host_device_url_t;

/* Parses "serial:PATH[?baud=N][&settle_ms=N][&timeout_ms=N][&wait=1]" or
   "tcp:HOST:PORT[?timeout_ms=N][&wait=1]" (settle_ms defaults to 600 on serial, 0 on TCP).
   0, or -1 with a message in err. */
int host_device_url_parse(const char *text, host_device_url_t *u, char *err, size_t cap);

/*
 * Opens every device and discovers it (get_info, list_tools), running the loop until each has
 * answered (or failed): a serial port is set raw at its baud, reset by pulsing DTR and given
 * settle_ms to boot, and lines that are not JSON (boot noise) are skipped. Each device tool
 * becomes an MCP tool (the device's inputSchema, or one inferred from the pin registry when the
 * device omits it); with several devices every name is prefixed "<device>__". A device with
 * wait=1 that is not there yet is waited for (retried with backoff; its tools appear with
 * notifications/tools/list_changed). Sets h->bridge (host_close frees it, even after a failure);
 * 0, or -1 after logging when a device cannot be reached or discovered.
 */
int host_bridge_open(host_t *h, const char *const *urls, size_t count);

/*
 * On the loop thread (every transport's call goes through the host's device helpers): the bridge
 * answers MCP itself (initialize, ping, tools/list from its cache, resources/list and read) and
 * queues what needs a device (tools/call; other methods forwarded as MCP/U: one device as named,
 * several "DEV__method") for its line, one request in flight per line. The device's line is
 * read and written on the loop thread: nothing here waits for it. A queued request's answer is
 * written later through late (HOST_DEFERRED), when the device answers or timeout_ms passes; a
 * device error or a lost link is an isError tool result. The bridge keeps its per-session state
 * in the transport's fw_session_t (initialize_seen, initialized, version, and change_cursor as
 * the tool-list generation the session was told of), which the core never sees while it serves.
 */
void host_bridge_feed(host_bridge_t *b, fw_session_t *session, fw_framer_t *fr, const uint8_t *data,
                      size_t len, fw_sink_t out, host_late_t late);
host_answer_t host_bridge_handle(host_bridge_t *b, fw_session_t *session, const char *msg,
                                 size_t len, fw_msg_sink_t out, host_late_t late);

/* Loop thread, after a device call: writes the late answers that are due (host_late_t). */
void host_bridge_deliver(host_bridge_t *b);

/* Loop thread: late answers still due to ctx; host_bridge_forget drops them. */
size_t host_bridge_pending(host_bridge_t *b, const void *ctx);
void host_bridge_forget(host_bridge_t *b, const void *ctx);

/* Loop thread: notifications/tools/list_changed for an initialized session whose tool list
   changed since it was told (a device came back). Returns how many messages were written. */
size_t host_bridge_drain(host_bridge_t *b, fw_session_t *session, fw_msg_sink_t out);

/* Loop thread: answers every waiting request with an error, stops reconnecting
   and closes the device links (host_stop). */
void host_bridge_stop(host_bridge_t *b);

/* After the loop closed the handles: frees everything (NULL is fine). */
void host_bridge_free(host_bridge_t *b);

#endif
