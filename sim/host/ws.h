/* ws.h: MCP over WebSocket (libwebsockets on the host's loop): the /mcp server and the dial-out
   link to a backend. */
#ifndef HOST_WS_H
#define HOST_WS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "dialout.h"
#include "host.h"

/* Longest incoming message (a longer one closes the connection with 1009). */
#define HOST_WS_MSG_MAX (1u << 20)

/* Unsent output a connection may let pile up before it is closed (a client that does not read). */
#define HOST_WS_OUT_MAX (1u << 20)

/* Dial-out reconnection: the first retry waits HOST_WS_RETRY_MIN_MS, each failure doubles the
   wait up to HOST_WS_RETRY_MAX_MS; an established connection starts the series again. */
#define HOST_WS_RETRY_MIN_MS 500u
#define HOST_WS_RETRY_MAX_MS 30000u

/* What the command line asks of WebSocket; the strings point into argv and must outlive the
   transport. */
typedef struct host_ws_config {
    host_endpoint_t listen;     /* --ws; listen.enabled false: no server */
    const char *connect;        /* --connect URL (checked by host_ws_url_parse), or NULL */
    const char *const *headers; /* --connect-header "Name: value", header_count of them */
    size_t header_count;
    const char *const *allow_origins; /* --allow-origin values ("*": any) */
    size_t allow_origin_count;
    const char *const *allow_hosts; /* --allow-host values ("*": any) */
    size_t allow_host_count;
    const char *auth_token; /* --auth-token: upgrades need "Authorization: Bearer T" */
    /* Dial-out identity: the Device-Id header ({n}: the device's number in a fleet, 1 for a
       single device; NULL: none sent). --connect and --connect-header values are templated
       the same way. */
    const char *device_id;
    uint64_t fleet_start_ns; /* uv_hrtime() connection times are counted from (0: each link's
                                own start) */
} host_ws_config_t;

/* A dial-out URL taken apart: ws://HOST[:PORT][/PATH]. */
typedef struct host_ws_url {
    char host[256];  /* without the brackets of an IPv6 address */
    uint16_t port;   /* 80 when the URL names none */
    char path[1024]; /* "/" when the URL names none; includes any query */
} host_ws_url_t;

/* Parses a --connect URL. Returns 0, or -1 with a message in err (wss:// is refused: TLS is not
   supported). */
int host_ws_url_parse(const char *url, host_ws_url_t *out, char *err, size_t cap);

/* Checks a --connect-header value ("Name: value", no CR or LF). 0, or -1 with err set. */
int host_ws_header_check(const char *header, char *err, size_t cap);

/*
 * Starts WebSocket on h's loop as cfg says (sets h->ws): the /mcp listener, whose URL
 * ("ws://127.0.0.1:PORT/mcp") goes to url, and/or the dial-out link, which connects in the
 * background (its state is logged). Returns 0, or -1 after logging why.
 */
int host_ws_open(host_t *h, const host_ws_config_t *cfg, char *url, size_t cap);

/*
 * Fleets (fleet.h): device dev, number n, dials out on ws's --connect too, sharing ws's
 * libwebsockets context; its first attempt starts after delay_ms. The link is ws's (stopped and
 * freed with it). NULL after logging (a URL that the template made invalid).
 */
struct ws_link *host_ws_dial(host_ws_t *ws, host_t *dev, unsigned n, uint32_t delay_ms);

/* The first device's --connect link (ws's own), or NULL. */
struct ws_link *host_ws_first_link(host_ws_t *ws);

/* A link's counters now (the open connection's messages included), written to *now. */
const host_link_stats_t *host_ws_link_stats(const struct ws_link *link, host_link_stats_t *now);

/* Loop thread (host_stop): closes every connection, the listener and the link. */
void host_ws_stop(host_ws_t *ws);

/* After the loop ran its close callbacks (host_close): frees what is left. NULL is a no-op. */
void host_ws_free(host_ws_t *ws);

#endif
