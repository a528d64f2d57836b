/* cli.c: mcpsim's command line: options, [HOST:]PORT endpoints and board name lookup. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"

#ifndef MCPSIM_BOARDS_DIR
#define MCPSIM_BOARDS_DIR "/usr/share/mcpsim/boards"
#endif
#define SYSTEM_BOARDS_DIR "/usr/share/mcpsim/boards"

typedef enum opt_id {
    OPT_BOARD,
    OPT_PTY,
    OPT_PTY_LINK,
    OPT_TCP,
    OPT_CONTROL,
    OPT_CLOCK,
    OPT_LOG_LEVEL,
    OPT_HELP,
    OPT_VERSION
} opt_id_t;

typedef struct opt {
    const char *name;
    const char *arg; /* what the value looks like, NULL for a flag without value */
    opt_id_t id;
} opt_t;

static const opt_t opts[] = {
    {"--board", "NAME|FILE", OPT_BOARD},
    {"--pty", NULL, OPT_PTY},
    {"--pty-link", "PATH", OPT_PTY_LINK},
    {"--tcp", "[HOST:]PORT", OPT_TCP},
    {"--control", "[HOST:]PORT", OPT_CONTROL},
    {"--clock", "realtime|virtual", OPT_CLOCK},
    {"--log-level", "error|warn|info|debug", OPT_LOG_LEVEL},
    {"--help", NULL, OPT_HELP},
    {"-h", NULL, OPT_HELP},
    {"--version", NULL, OPT_VERSION},
};

static const opt_t *find_opt(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (strlen(opts[i].name) == len && memcmp(opts[i].name, name, len) == 0) return &opts[i];
    return NULL;
}

static int parse_port(const char *s, uint16_t *port)
{
    if (*s == 0 || strlen(s) > 5) return -1;
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v > 65535) return -1;
    *port = (uint16_t)v;
    return 0;
}

int host_endpoint_parse(const char *text, host_endpoint_t *ep, char *err, size_t cap)
{
    const char *port = text;
    size_t host_len = 0;
    const char *host = "127.0.0.1";
    if (text[0] == '[') { /* [IPv6]:PORT */
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':') {
            snprintf(err, cap, "'%s': expected [IPv6-ADDRESS]:PORT", text);
            return -1;
        }
        host = text + 1;
        host_len = (size_t)(close - host);
        port = close + 2;
    } else {
        const char *colon = strrchr(text, ':');
        if (colon) {
            host = text;
            host_len = (size_t)(colon - text);
            port = colon + 1;
        } else {
            host_len = strlen(host);
        }
    }
    if (host_len == 0 || host_len >= sizeof ep->host) {
        snprintf(err, cap, "'%s': the host part is %s", text, host_len ? "too long" : "empty");
        return -1;
    }
    if (parse_port(port, &ep->port) != 0) {
        snprintf(err, cap, "'%s': the port must be a number from 0 to 65535", text);
        return -1;
    }
    memcpy(ep->host, host, host_len);
    ep->host[host_len] = 0;
    ep->enabled = true;
    return 0;
}

static int apply(host_options_t *o, const opt_t *op, const char *val, char *err, size_t cap)
{
    switch (op->id) {
    case OPT_BOARD:
        o->board = val;
        return 0;
    case OPT_PTY:
        o->pty = true;
        return 0;
    case OPT_PTY_LINK:
        o->pty_link = val;
        o->pty = true;
        return 0;
    case OPT_TCP:
        return host_endpoint_parse(val, &o->tcp, err, cap);
    case OPT_CONTROL:
        return host_endpoint_parse(val, &o->control, err, cap);
    case OPT_HELP:
        o->help = true;
        return 0;
    case OPT_VERSION:
        o->version = true;
        return 0;
    case OPT_CLOCK:
        if (strcmp(val, "realtime") == 0)
            o->clock = SIM_CLOCK_REALTIME;
        else if (strcmp(val, "virtual") == 0)
            o->clock = SIM_CLOCK_VIRTUAL;
        else
            break;
        return 0;
    case OPT_LOG_LEVEL:
        o->log_level = host_log_parse_level(val);
        if (o->log_level >= 0) return 0;
        break;
    }
    snprintf(err, cap, "%s '%s': expected %s", op->name, val, op->arg);
    return -1;
}

/* Which of argv[*i] is: the option, and its value from "=value" or the next argument. */
static int next_opt(int argc, char *const argv[], int *i, const opt_t **op, const char **val,
                    char *err, size_t cap)
{
    const char *a = argv[*i];
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    *op = a[0] == '-' ? find_opt(a, len) : NULL;
    if (!*op) {
        if (a[0] == '-')
            snprintf(err, cap, "unknown option '%.*s'", (int)len, a);
        else
            snprintf(err, cap, "unexpected argument '%s'", a);
        return -1;
    }
    *val = NULL;
    if (!(*op)->arg) {
        if (eq) {
            snprintf(err, cap, "%s takes no value", (*op)->name);
            return -1;
        }
        return 0;
    }
    if (eq) {
        *val = eq + 1;
    } else if (*i + 1 < argc) {
        *val = argv[++*i];
    } else {
        snprintf(err, cap, "%s needs a value: %s %s", (*op)->name, (*op)->name, (*op)->arg);
        return -1;
    }
    return 0;
}

int host_cli_parse(int argc, char *const argv[], host_options_t *o, char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->clock = SIM_CLOCK_REALTIME;
    o->log_level = HOST_LOG_INFO;
    for (int i = 1; i < argc; i++) {
        const opt_t *op;
        const char *val;
        if (next_opt(argc, argv, &i, &op, &val, err, cap) != 0) return -1;
        if (apply(o, op, val, err, cap) != 0) return -1;
    }
    if (o->help || o->version) return 0;
    if (!o->board) {
        snprintf(err, cap, "--board NAME|FILE is required (e.g. --board esp32-demo)");
        return -1;
    }
    if (!o->pty && !o->tcp.enabled && !o->control.enabled) {
        snprintf(err, cap,
                 "nothing to serve: give --pty, --tcp [HOST:]PORT and/or --control "
                 "[HOST:]PORT");
        return -1;
    }
    if (o->tcp.enabled && o->control.enabled && o->tcp.port != 0 &&
        o->tcp.port == o->control.port && strcmp(o->tcp.host, o->control.host) == 0) {
        snprintf(err, cap, "--tcp and --control cannot share %s:%u", o->tcp.host,
                 (unsigned)o->tcp.port);
        return -1;
    }
    return 0;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_path(const char *arg)
{
    size_t n = strlen(arg);
    return strchr(arg, '/') || (n >= 5 && strcmp(arg + n - 5, ".json") == 0);
}

/* Tries dir/NAME.json; appends dir to the searched list either way. */
static bool try_dir(const char *dir, size_t dir_len, const char *name, char *out, size_t cap,
                    char *searched, size_t scap)
{
    size_t used = strlen(searched);
    snprintf(searched + used, scap - used, "%s%.*s", used ? ", " : "", (int)dir_len, dir);
    if (dir_len == 0) return false;
    int n = snprintf(out, cap, "%.*s/%s.json", (int)dir_len, dir, name);
    return n > 0 && (size_t)n < cap && is_file(out);
}

int host_board_path(const char *arg, char *out, size_t cap, char *err, size_t ecap)
{
    if (is_path(arg)) {
        snprintf(out, cap, "%s", arg);
        return 0;
    }
    char searched[1024] = "";
    const char *env = getenv("MCPSIM_BOARDS");
    for (const char *p = env; p && *p;) {
        size_t len = strcspn(p, ":");
        if (try_dir(p, len, arg, out, cap, searched, sizeof searched)) return 0;
        p += len + (p[len] == ':');
    }
    if (try_dir(MCPSIM_BOARDS_DIR, strlen(MCPSIM_BOARDS_DIR), arg, out, cap, searched,
                sizeof searched))
        return 0;
    if (strcmp(MCPSIM_BOARDS_DIR, SYSTEM_BOARDS_DIR) != 0 &&
        try_dir(SYSTEM_BOARDS_DIR, strlen(SYSTEM_BOARDS_DIR), arg, out, cap, searched,
                sizeof searched))
        return 0;
    snprintf(err, ecap, "board '%s' not found: no %s.json in %s", arg, arg, searched);
    return -1;
}

void host_cli_usage(FILE *f)
{
    fputs(
        "Usage: mcpsim --board NAME|FILE [--pty] [--pty-link PATH] [--tcp [HOST:]PORT]\n"
        "              [--control [HOST:]PORT] [--clock realtime|virtual]\n"
        "              [--log-level error|warn|info|debug] [--help] [--version]\n"
        "\n"
        "Runs the firmware core on a simulated board and serves it like the real device.\n"
        "\n"
        "  --board NAME|FILE   Board to simulate (required). A NAME is looked up as NAME.json in\n"
        "                      $MCPSIM_BOARDS (colon-separated directories), then\n"
        "                      " MCPSIM_BOARDS_DIR ",\n"
        "                      then " SYSTEM_BOARDS_DIR "; a FILE (contains '/' or ends in\n"
        "                      .json) is used as is.  e.g. --board esp32-demo\n"
        "                                              --board ./boards/mine.json\n"
        "  --pty               Serve the device's UART on a pseudo-terminal (raw, 115200 baud).\n"
        "                      Clients may open, close and reopen it.  e.g. --pty\n"
        "  --pty-link PATH     Also keep a symlink PATH to the pty (implies --pty; replaced\n"
        "                      atomically, removed at exit).  e.g. --pty-link /tmp/mcpsim-uart\n"
        "  --tcp [HOST:]PORT   Serve newline-delimited JSON-RPC over TCP, many clients at once.\n"
        "                      HOST defaults to 127.0.0.1; PORT 0 picks a free port.\n"
        "                      e.g. --tcp 7000   --tcp 0.0.0.0:7000   --tcp [::1]:7000\n"
        "  --control [HOST:]PORT\n"
        "                      Control channel: JSON-RPC sim.* methods, one per line, on its own\n"
        "                      listener (set inputs, advance the clock, inject faults).\n"
        "                      e.g. --control 7001\n"
        "  --clock realtime|virtual\n"
        "                      realtime (default): simulated time follows the wall clock.\n"
        "                      virtual: time moves only when sim.advance says so (repeatable).\n"
        "                      e.g. --clock virtual\n"
        "  --log-level error|warn|info|debug\n"
        "                      Verbosity of the stderr log (default info).  e.g. --log-level "
        "debug\n"
        "  -h, --help          Print this text and exit.\n"
        "  --version           Print the version and exit.\n"
        "\n"
        "Startup prints one line per endpoint on stdout, then \"ready\":\n"
        "  uart: /dev/pts/3\n"
        "  uart-link: /tmp/mcpsim-uart      (with --pty-link)\n"
        "  tcp: 127.0.0.1:7000\n"
        "  control: 127.0.0.1:7001\n"
        "  ready\n"
        "Logs go to stderr as \"mcpsim: <level>: message\". SIGINT or SIGTERM shut down cleanly.\n"
        "Exit status: 0 after a signal, 1 when an endpoint cannot be opened, 2 for usage and\n"
        "board file errors (reported as file:line:column: what is wrong).\n"
        "\n"
        "Example:\n"
        "  mcpsim --board esp32-demo --pty --tcp 7000 --control 7001 --clock virtual\n"
        "  screen /dev/pts/3 115200                       (the UART; or picocom, pyserial)\n"
        "  echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}' |\n"
        "      socat - TCP:127.0.0.1:7000                 (the device over TCP)\n"
        "  echo "
        "'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sim.advance\",\"params\":{\"ms\":5000}}'"
        " |\n"
        "      socat - TCP:127.0.0.1:7001                 (the control channel)\n",
        f);
}
