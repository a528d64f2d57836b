/* cli.h: mcpsim's command line: options, [HOST:]PORT endpoints and board name lookup. */
#ifndef HOST_CLI_H
#define HOST_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

#define MCPSIM_VERSION "0.1.0"

/* A TCP endpoint from the command line; host is a name or numeric address, never empty. */
typedef struct host_endpoint {
    bool enabled;
    char host[256];
    uint16_t port; /* 0: the OS picks a free port */
} host_endpoint_t;

typedef struct host_options {
    const char *board; /* --board as given: a NAME or a FILE path (points into argv) */
    bool pty;
    const char *pty_link; /* --pty-link PATH or NULL (implies pty) */
    host_endpoint_t tcp;
    host_endpoint_t control;
    sim_clock_mode_t clock;
    int log_level; /* host_log_level_t */
    bool help, version;
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

/* Writes the --help text. */
void host_cli_usage(FILE *f);

#endif
