/* cli.h: mcpsim's command line: options, [HOST:]PORT endpoints and board name lookup. */
#ifndef HOST_CLI_H
#define HOST_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

#define MCPSIM_VERSION "0.1.0"

/* Most --connect-header flags. */
#define HOST_CONNECT_HEADERS_MAX 16

/* --fleet-stagger's default: ms between the first connections of a fleet's devices. */
#define HOST_FLEET_STAGGER_DEFAULT 5u

/* Most --device flags (devices behind one bridge). */
#define HOST_DEVICES_MAX 8

/* Most --allow-host and --allow-origin flags (each). */
#define HOST_ALLOW_MAX 16

/* Defaults of the HTTP transport's limits (--http-idle-timeout, --http-max-sessions). */
#define HOST_HTTP_IDLE_TIMEOUT_DEFAULT 1800u
#define HOST_HTTP_MAX_SESSIONS_DEFAULT 32u
/* Default of --http-conn-memory: KiB libmicrohttpd holds per connection for a request's head
   (and clears for every request); 16 takes heads of up to about 15.4 KiB, as Node.js's 16 KiB
   limit on headers, which the MCP SDK's own servers have. */
#define HOST_HTTP_CONN_MEMORY_KIB_DEFAULT 16u
/* Default of --output-budget (MB of unsent replies of all TCP and WebSocket clients). */
#define HOST_OUTPUT_BUDGET_MB_DEFAULT 32u
/* Default of --input-budget (MB of unfinished WebSocket messages and HTTP bodies). */
#define HOST_INPUT_BUDGET_MB_DEFAULT 32u

/* A TCP endpoint from the command line; host is a name or numeric address, never empty. */
typedef struct host_endpoint {
    bool enabled;
    char host[256];
    uint16_t port; /* 0: the OS picks a free port */
} host_endpoint_t;

typedef struct host_options {
    const char *board; /* --board as given: a NAME or a FILE path (points into argv) */
    bool pty;
    bool stdio; /* --stdio: MCP and MCP/U on stdin/stdout; readiness lines go to stderr */
    const char *devices[HOST_DEVICES_MAX]; /* --device URL: bridge real devices (no --board) */
    size_t device_count;
    const char *pty_link; /* --pty-link PATH or NULL (implies pty) */
    int pty_reset_on_open; /* --pty-reset-on-open: 1 on, 0 off, -1 the board file's choice */
    host_endpoint_t tcp;
    host_endpoint_t control;
    host_endpoint_t ws;  /* --ws: MCP over WebSocket at /mcp */
    const char *connect; /* --connect ws://HOST:PORT/PATH: dial out to a backend, or NULL */
    const char *connect_headers[HOST_CONNECT_HEADERS_MAX]; /* --connect-header "Name: value" */
    size_t connect_header_count;
    const char *device_id;      /* --device-id: the Device-Id header of --connect, or NULL */
    const char *mqtt;           /* --mqtt mqtt://HOST[:PORT], or NULL */
    const char *mqtt_publish;   /* --mqtt-publish TOPIC */
    const char *mqtt_subscribe; /* --mqtt-subscribe TOPIC */
    const char *mqtt_client_id; /* --mqtt-client-id ID, or NULL (mcpsim-{n}) */
    unsigned fleet;             /* --fleet N: devices in this process (1 without it) */
    unsigned fleet_stagger_ms;  /* --fleet-stagger MS */
    host_endpoint_t http;                    /* --http: MCP Streamable HTTP at /mcp */
    host_endpoint_t dashboard;               /* --dashboard: the browser dashboard at / */
    unsigned http_idle_timeout_s;            /* --http-idle-timeout SEC: an idle session ends */
    unsigned http_max_sessions;              /* --http-max-sessions N */
    unsigned http_sessions_per_client;       /* --http-sessions-per-client N (0: half the max) */
    unsigned http_per_address;               /* --http-per-address N (0: http_guard's default) */
    unsigned http_conn_memory_kib;           /* --http-conn-memory KIB */
    unsigned output_budget_mb;               /* --output-budget MB: TCP and WS unsent output */
    unsigned input_budget_mb;                /* --input-budget MB: unfinished WS and HTTP input */
    const char *allow_hosts[HOST_ALLOW_MAX]; /* --allow-host H: Host headers besides localhost */
    size_t allow_host_count;
    const char *allow_origins[HOST_ALLOW_MAX]; /* --allow-origin O: Origins besides localhost */
    size_t allow_origin_count;
    const char *auth_token; /* --auth-token or $MCPSIM_AUTH_TOKEN (bearer), or NULL */
    sim_clock_mode_t clock;
    int log_level;             /* host_log_level_t */
    bool conformance_fixtures; /* --conformance-fixtures: the MCP suite's test tools */
    bool help, version, list_boards;
} host_options_t;

/*
 * Parses argv (argv[0] is the program). Accepts "--flag value" and "--flag=value". Returns 0,
 * or -1 for a usage error with a one-line message in err. With --help or --version set, the
 * other checks (such as a missing --board) are skipped.
 */
int host_cli_parse(int argc, char *const argv[], host_options_t *o, char *err, size_t cap);

/* Parses "PORT", "HOST:PORT" or "[IPv6]:PORT"; HOST defaults to 127.0.0.1. 0 or -1 (err set). */
int host_endpoint_parse(const char *text, host_endpoint_t *ep, char *err, size_t cap);

/*
 * Resolves --board: a value containing '/' or ending in ".json" is a file path used as is;
 * otherwise NAME.json is looked up in $MCPSIM_BOARDS (colon-separated directories), then in
 * MCPSIM_BOARDS_DIR (compiled in), then in /usr/share/mcpsim/boards. Returns 0 with the path in
 * out, or -1 with a message naming every directory searched.
 */
int host_board_path(const char *arg, char *out, size_t cap, char *err, size_t ecap);

/* Writes the name of every board host_board_path finds (one per line, each name once, the
   first directory that has it winning) to f, with the directory; returns how many. */
size_t host_cli_list_boards(FILE *f);

/* The known name nearest to word (edit distance at most 2, or a prefix of it), or NULL: the
   "did you mean" of an unknown option. names is NULL-terminated. */
const char *host_cli_nearest(const char *word, const char *const *names);

/* Writes the --help text. */
void host_cli_usage(FILE *f);

#endif
