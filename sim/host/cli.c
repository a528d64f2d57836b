/* cli.c: mcpsim's command line: options, [HOST:]PORT endpoints and board name lookup. */
#include "cli.h"

#include "fw_config.h" /* the profile: which transports have a protocol to serve */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "mqtt.h"
#include "ws.h"

#ifndef MCPSIM_BOARDS_DIR
#define MCPSIM_BOARDS_DIR "/usr/share/mcpsim/boards"
#endif
#define SYSTEM_BOARDS_DIR "/usr/share/mcpsim/boards"

typedef enum opt_id {
    OPT_BOARD,
    OPT_PTY,
    OPT_STDIO,
    OPT_DEVICE,
    OPT_LIST_BOARDS,
    OPT_PTY_LINK,
    OPT_PTY_RESET_ON_OPEN,
    OPT_TCP,
    OPT_CONTROL,
    OPT_WS,
    OPT_CONNECT,
    OPT_CONNECT_HEADER,
    OPT_HTTP,
    OPT_DASHBOARD,
    OPT_HTTP_IDLE_TIMEOUT,
    OPT_HTTP_MAX_SESSIONS,
    OPT_HTTP_SESSIONS_PER_CLIENT,
    OPT_HTTP_PER_ADDRESS,
    OPT_HTTP_CONN_MEMORY,
    OPT_OUTPUT_BUDGET,
    OPT_INPUT_BUDGET,
    OPT_ALLOW_HOST,
    OPT_ALLOW_ORIGIN,
    OPT_AUTH_TOKEN,
    OPT_CLOCK,
    OPT_LOG_LEVEL,
    OPT_CONFORMANCE_FIXTURES,
    OPT_MQTT,
    OPT_MQTT_PUBLISH,
    OPT_MQTT_SUBSCRIBE,
    OPT_MQTT_CLIENT_ID,
    OPT_DEVICE_ID,
    OPT_FLEET,
    OPT_FLEET_STAGGER,
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
    {"--stdio", NULL, OPT_STDIO},
    {"--device", "serial:PATH[?baud=N]|tcp:HOST:PORT", OPT_DEVICE},
    {"--list-boards", NULL, OPT_LIST_BOARDS},
    {"--pty-link", "PATH", OPT_PTY_LINK},
    {"--pty-reset-on-open", "on|off", OPT_PTY_RESET_ON_OPEN},
    {"--tcp", "[HOST:]PORT", OPT_TCP},
    {"--control", "[HOST:]PORT", OPT_CONTROL},
    {"--ws", "[HOST:]PORT", OPT_WS},
    {"--connect", "ws://HOST[:PORT][/PATH]", OPT_CONNECT},
    {"--connect-header", "'Name: value'", OPT_CONNECT_HEADER},
    {"--http", "[HOST:]PORT", OPT_HTTP},
    {"--dashboard", "[HOST:]PORT", OPT_DASHBOARD},
    {"--http-idle-timeout", "SECONDS (1 to 86400)", OPT_HTTP_IDLE_TIMEOUT},
    {"--http-max-sessions", "N (1 to 1024)", OPT_HTTP_MAX_SESSIONS},
    {"--http-sessions-per-client", "N (1 to 1024)", OPT_HTTP_SESSIONS_PER_CLIENT},
    {"--http-per-address", "N (1 to 65535)", OPT_HTTP_PER_ADDRESS},
    {"--http-conn-memory", "KIB (4 to 1024)", OPT_HTTP_CONN_MEMORY},
    {"--output-budget", "MB (1 to 4096)", OPT_OUTPUT_BUDGET},
    {"--input-budget", "MB (1 to 4096)", OPT_INPUT_BUDGET},
    {"--allow-host", "HOST[:PORT]|*", OPT_ALLOW_HOST},
    {"--allow-origin", "SCHEME://HOST[:PORT]|*", OPT_ALLOW_ORIGIN},
    {"--auth-token", "TOKEN", OPT_AUTH_TOKEN},
    {"--clock", "realtime|virtual", OPT_CLOCK},
    {"--log-level", "error|warn|info|debug", OPT_LOG_LEVEL},
    {"--conformance-fixtures", NULL, OPT_CONFORMANCE_FIXTURES},
    {"--mqtt", "mqtt://HOST[:PORT]", OPT_MQTT},
    {"--mqtt-publish", "TOPIC", OPT_MQTT_PUBLISH},
    {"--mqtt-subscribe", "TOPIC", OPT_MQTT_SUBSCRIBE},
    {"--mqtt-client-id", "ID", OPT_MQTT_CLIENT_ID},
    {"--device-id", "ID", OPT_DEVICE_ID},
    {"--fleet", "N (1 to 100000)", OPT_FLEET},
    {"--fleet-stagger", "MS (0 to 60000)", OPT_FLEET_STAGGER},
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

static int parse_connect(host_options_t *o, const char *val, char *err, size_t cap)
{
    host_ws_url_t url;
    o->connect = val;
    return host_ws_url_parse(val, &url, err, cap);
}

static int add_connect_header(host_options_t *o, const char *val, char *err, size_t cap)
{
    if (o->connect_header_count == HOST_CONNECT_HEADERS_MAX) {
        snprintf(err, cap, "at most %u --connect-header flags", HOST_CONNECT_HEADERS_MAX);
        return -1;
    }
    o->connect_headers[o->connect_header_count++] = val;
    return host_ws_header_check(val, err, cap);
}

/* A whole decimal number in [min, max]; 0, or -1 with the flag's usage in err. */
static int parse_uint(const opt_t *op, const char *val, unsigned min, unsigned max, unsigned *out,
                      char *err, size_t cap)
{
    char *end = NULL;
    unsigned long v = (*val >= '0' && *val <= '9') ? strtoul(val, &end, 10) : 0;
    if (!end || *end != 0 || v < min || v > max) {
        snprintf(err, cap, "%s '%s': expected %s", op->name, val, op->arg);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* Appends val to one of the repeatable --allow-* lists. */
static int add_allowed(const opt_t *op, const char *val, const char **list, size_t *count,
                       char *err, size_t cap)
{
    if (*val == 0 || *count == HOST_ALLOW_MAX) {
        snprintf(err, cap, "%s: %s", op->name,
                 *val ? "too many (at most 16)" : "the value must not be empty");
        return -1;
    }
    list[(*count)++] = val;
    return 0;
}

/* The options of the HTTP transport (--http and the flags of its checks and limits). */
static int apply_http(host_options_t *o, const opt_t *op, const char *val, char *err, size_t cap)
{
    switch (op->id) {
    case OPT_HTTP:
        return host_endpoint_parse(val, &o->http, err, cap);
    case OPT_HTTP_IDLE_TIMEOUT:
        return parse_uint(op, val, 1, 86400, &o->http_idle_timeout_s, err, cap);
    case OPT_HTTP_MAX_SESSIONS:
        return parse_uint(op, val, 1, 1024, &o->http_max_sessions, err, cap);
    case OPT_HTTP_SESSIONS_PER_CLIENT:
        return parse_uint(op, val, 1, 1024, &o->http_sessions_per_client, err, cap);
    case OPT_HTTP_PER_ADDRESS:
        return parse_uint(op, val, 1, 65535, &o->http_per_address, err, cap);
    case OPT_HTTP_CONN_MEMORY:
        return parse_uint(op, val, 4, 1024, &o->http_conn_memory_kib, err, cap);
    case OPT_ALLOW_HOST:
        return add_allowed(op, val, o->allow_hosts, &o->allow_host_count, err, cap);
    case OPT_ALLOW_ORIGIN:
        return add_allowed(op, val, o->allow_origins, &o->allow_origin_count, err, cap);
    default: /* OPT_AUTH_TOKEN */
        if (*val == 0) {
            snprintf(err, cap, "--auth-token: the token must not be empty");
            return -1;
        }
        o->auth_token = val;
        return 0;
    }
}

/* The dial-out identities and fleets (--mqtt*, --device-id, --fleet*). */
static int apply_dialout(host_options_t *o, const opt_t *op, const char *val, char *err, size_t cap)
{
    const char **slot = op->id == OPT_MQTT_PUBLISH     ? &o->mqtt_publish
                        : op->id == OPT_MQTT_SUBSCRIBE ? &o->mqtt_subscribe
                        : op->id == OPT_MQTT_CLIENT_ID ? &o->mqtt_client_id
                        : op->id == OPT_DEVICE_ID      ? &o->device_id
                                                       : NULL;
    switch (op->id) {
    case OPT_MQTT:
        o->mqtt = val;
        return host_mqtt_url_parse(val, NULL, 0, NULL, err, cap);
    case OPT_FLEET:
        return parse_uint(op, val, 1, 100000, &o->fleet, err, cap);
    case OPT_FLEET_STAGGER:
        return parse_uint(op, val, 0, 60000, &o->fleet_stagger_ms, err, cap);
    default:
        if (*val == 0) {
            snprintf(err, cap, "%s: the value must not be empty", op->name);
            return -1;
        }
        *slot = val;
        return 0;
    }
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
    case OPT_STDIO:
        o->stdio = true;
        return 0;
    case OPT_DEVICE:
        if (o->device_count == HOST_DEVICES_MAX) {
            snprintf(err, cap, "--device: at most %u devices", HOST_DEVICES_MAX);
            return -1;
        }
        if (strncmp(val, "serial:", 7) != 0 && strncmp(val, "tcp:", 4) != 0) break;
        o->devices[o->device_count++] = val;
        return 0;
    case OPT_LIST_BOARDS:
        o->list_boards = true;
        return 0;
    case OPT_PTY_LINK:
        o->pty_link = val;
        o->pty = true;
        return 0;
    case OPT_PTY_RESET_ON_OPEN:
        if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0) break;
        o->pty_reset_on_open = strcmp(val, "on") == 0 ? 1 : 0;
        return 0;
    case OPT_TCP:
        return host_endpoint_parse(val, &o->tcp, err, cap);
    case OPT_CONTROL:
        return host_endpoint_parse(val, &o->control, err, cap);
    case OPT_WS:
        return host_endpoint_parse(val, &o->ws, err, cap);
    case OPT_DASHBOARD:
        return host_endpoint_parse(val, &o->dashboard, err, cap);
    case OPT_CONNECT:
        return parse_connect(o, val, err, cap);
    case OPT_OUTPUT_BUDGET:
        return parse_uint(op, val, 1, 4096, &o->output_budget_mb, err, cap);
    case OPT_INPUT_BUDGET:
        return parse_uint(op, val, 1, 4096, &o->input_budget_mb, err, cap);
    case OPT_CONNECT_HEADER:
        return add_connect_header(o, val, err, cap);
    case OPT_HTTP:
    case OPT_HTTP_IDLE_TIMEOUT:
    case OPT_HTTP_MAX_SESSIONS:
    case OPT_HTTP_SESSIONS_PER_CLIENT:
    case OPT_HTTP_PER_ADDRESS:
    case OPT_HTTP_CONN_MEMORY:
    case OPT_ALLOW_HOST:
    case OPT_ALLOW_ORIGIN:
    case OPT_AUTH_TOKEN:
        return apply_http(o, op, val, err, cap);
    case OPT_CONFORMANCE_FIXTURES:
        o->conformance_fixtures = true;
        return 0;
    case OPT_MQTT:
    case OPT_MQTT_PUBLISH:
    case OPT_MQTT_SUBSCRIBE:
    case OPT_MQTT_CLIENT_ID:
    case OPT_DEVICE_ID:
    case OPT_FLEET:
    case OPT_FLEET_STAGGER:
        return apply_dialout(o, op, val, err, cap);
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

/* Edit distance (insertions, deletions, substitutions), for "did you mean". */
static size_t levenshtein(const char *a, const char *b)
{
    size_t lb = strlen(b);
    size_t row[64];
    if (lb >= sizeof row / sizeof row[0]) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *host_cli_nearest(const char *word, const char *const *names)
{
    const char *best = NULL;
    size_t best_d = 3, wl = strlen(word);
    for (size_t i = 0; names[i]; i++) {
        size_t d = levenshtein(word, names[i]);
        if (wl >= 3 && strncmp(names[i], word, wl) == 0 && d > 0) d = 1; /* a prefix of it */
        if (d < best_d) best_d = d, best = names[i];
    }
    return best;
}

static void unknown_option(const char *a, size_t len, char *err, size_t cap)
{
    char word[64];
    const char *names[sizeof opts / sizeof opts[0] + 1];
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) names[i] = opts[i].name;
    names[sizeof opts / sizeof opts[0]] = NULL;
    snprintf(word, sizeof word, "%.*s", (int)len, a);
    const char *near = host_cli_nearest(word, names);
    if (near)
        snprintf(err, cap, "unknown option '%s' (did you mean %s?)", word, near);
    else
        snprintf(err, cap, "unknown option '%s'", word);
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
            unknown_option(a, len, err, cap);
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

/* The flags that only mean something together (--mqtt and its topics, --fleet and a link). */
static int check_dialout(const host_options_t *o, char *err, size_t cap)
{
    const char *need = NULL;
    if (o->mqtt && (!o->mqtt_publish || !o->mqtt_subscribe))
        need = "--mqtt needs --mqtt-publish TOPIC and --mqtt-subscribe TOPIC";
    else if (!o->mqtt && (o->mqtt_publish || o->mqtt_subscribe || o->mqtt_client_id))
        need = "--mqtt-publish, --mqtt-subscribe and --mqtt-client-id need --mqtt "
               "mqtt://HOST[:PORT]";
    else if (o->device_id && !o->connect)
        need = "--device-id names the device on --connect's upgrade: it needs --connect URL";
    else if (o->fleet > 1 && !o->connect && !o->mqtt)
        need = "--fleet N runs devices that dial out: it needs --connect URL and/or --mqtt URL";
    else if (o->fleet > 1 && o->device_count > 0)
        need = "--fleet simulates devices: it needs --board, not --device";
    if (!need) return 0;
    snprintf(err, cap, "%s", need);
    return -1;
}

int host_cli_parse(int argc, char *const argv[], host_options_t *o, char *err, size_t cap)
{
    memset(o, 0, sizeof *o);
    o->clock = SIM_CLOCK_REALTIME;
    o->log_level = HOST_LOG_INFO;
    o->http_idle_timeout_s = HOST_HTTP_IDLE_TIMEOUT_DEFAULT;
    o->http_max_sessions = HOST_HTTP_MAX_SESSIONS_DEFAULT;
    o->http_conn_memory_kib = HOST_HTTP_CONN_MEMORY_KIB_DEFAULT;
    o->pty_reset_on_open = -1;
    o->output_budget_mb = HOST_OUTPUT_BUDGET_MB_DEFAULT;
    o->input_budget_mb = HOST_INPUT_BUDGET_MB_DEFAULT;
    o->fleet = 1;
    o->fleet_stagger_ms = HOST_FLEET_STAGGER_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const opt_t *op;
        const char *val;
        if (next_opt(argc, argv, &i, &op, &val, err, cap) != 0) return -1;
        if (apply(o, op, val, err, cap) != 0) return -1;
    }
    if (o->help || o->version || o->list_boards) return 0;
    const char *token = getenv("MCPSIM_AUTH_TOKEN");
    if (!o->auth_token && token) {
        if (*token == 0) { /* set but empty: a mistake, never "no authentication" */
            snprintf(err, cap, "MCPSIM_AUTH_TOKEN: the token must not be empty (unset it to "
                               "serve without authentication)");
            return -1;
        }
        o->auth_token = token;
    }
    if (o->device_count > 0 && o->board) {
        snprintf(err, cap,
                 "--board and --device exclude each other: a simulated board or real "
                 "devices, not both");
        return -1;
    }
    if (!o->board && o->device_count == 0) {
        snprintf(err, cap,
                 "--board NAME|FILE is required (e.g. --board esp32-demo), or --device "
                 "URL to serve a real device");
        return -1;
    }
    if (o->device_count > 0 && (o->control.enabled || o->dashboard.enabled || o->pty ||
                                o->conformance_fixtures || o->connect || o->mqtt)) {
        snprintf(err, cap,
                 "--device serves a real device over --stdio, --tcp, --http and --ws; "
                 "--pty, --connect, --mqtt, --control, --dashboard and --conformance-fixtures "
                 "need a simulated --board");
        return -1;
    }
    if (check_dialout(o, err, cap) != 0) return -1;
    if (!o->stdio && !o->pty && !o->tcp.enabled && !o->control.enabled && !o->ws.enabled &&
        !o->connect && !o->mqtt && !o->http.enabled && !o->dashboard.enabled) {
        snprintf(
            err, cap,
            "nothing to serve: give --stdio, --pty, --tcp [HOST:]PORT, --http [HOST:]PORT, --ws "
            "[HOST:]PORT, --connect URL, --dashboard [HOST:]PORT and/or --control [HOST:]PORT");
        return -1;
    }
#if !FW_WITH_MCP
    /* HTTP and WebSocket serve MCP: a build without it would answer every request -32601 */
    if (o->http.enabled || o->ws.enabled || o->connect || o->mqtt) {
        snprintf(err, cap,
                 "--http, --ws, --connect and --mqtt serve MCP, which this simulator's firmware "
                 "profile "
                 "(" FW_PROFILE_NAME ") leaves out: use --tcp or --pty (MCP/U), or a full build");
        return -1;
    }
#endif
    if (o->connect_header_count > 0 && !o->connect) {
        snprintf(err, cap, "--connect-header needs --connect ws://HOST[:PORT][/PATH]");
        return -1;
    }
    if (o->pty_reset_on_open >= 0 && !o->pty) {
        snprintf(err, cap, "--pty-reset-on-open needs --pty or --pty-link PATH");
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

/* The boards of an installed mcpsim: PREFIX/share/mcpsim/boards beside PREFIX/bin/mcpsim (the
   build's own MCPSIM_BOARDS_DIR names the source tree, which an installed copy may not have). */
static bool installed_boards_dir(char *out, size_t cap)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return false;
    *slash = 0;
    int k = snprintf(out, cap, "%s/../share/mcpsim/boards", exe);
    struct stat st;
    return k > 0 && (size_t)k < cap && stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Calls fn(name, dir, ctx) for every NAME.json of every board directory, in lookup order. */
static void each_board(void (*fn)(const char *name, const char *dir, void *ctx), void *ctx)
{
    char dirs[8][1024];
    size_t n = 0;
    const char *env = getenv("MCPSIM_BOARDS");
    for (const char *p = env; p && *p && n < 6;) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len < sizeof dirs[0])
            snprintf(dirs[n++], sizeof dirs[0], "%.*s", (int)len, p);
        p += len + (p[len] == ':');
    }
    snprintf(dirs[n++], sizeof dirs[0], "%s", MCPSIM_BOARDS_DIR);
    if (installed_boards_dir(dirs[n], sizeof dirs[0])) n++;
    if (strcmp(MCPSIM_BOARDS_DIR, SYSTEM_BOARDS_DIR) != 0)
        snprintf(dirs[n++], sizeof dirs[0], "%s", SYSTEM_BOARDS_DIR);
    for (size_t i = 0; i < n; i++) {
        struct dirent **list = NULL;
        int count = scandir(dirs[i], &list, NULL, alphasort);
        for (int k = 0; k < count; k++) {
            char name[256];
            size_t len = strlen(list[k]->d_name);
            if (len > 5 && len < sizeof name && strcmp(list[k]->d_name + len - 5, ".json") == 0) {
                snprintf(name, sizeof name, "%.*s", (int)(len - 5), list[k]->d_name);
                fn(name, dirs[i], ctx);
            }
            free(list[k]);
        }
        free(list);
    }
}

typedef struct board_names {
    char *names[129]; /* NULL-terminated */
    const char *dirs[128];
    char dir_store[128][1024];
    size_t count;
} board_names_t;

static void collect_board(const char *name, const char *dir, void *ctx)
{
    board_names_t *b = ctx;
    for (size_t i = 0; i < b->count; i++)
        if (strcmp(b->names[i], name) == 0) return; /* an earlier directory wins */
    if (b->count == sizeof b->dirs / sizeof b->dirs[0]) return;
    b->names[b->count] = strdup(name);
    snprintf(b->dir_store[b->count], sizeof b->dir_store[0], "%s", dir);
    b->dirs[b->count] = b->dir_store[b->count];
    b->count++;
}

/* The board name nearest to arg (malloc'd), or NULL. */
static const char *nearest_board(const char *arg)
{
    board_names_t *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    each_board(collect_board, b);
    b->names[b->count] = NULL;
    const char *near = host_cli_nearest(arg, (const char *const *)b->names);
    char *out = near ? strdup(near) : NULL;
    for (size_t i = 0; i < b->count; i++) free(b->names[i]);
    free(b);
    return out;
}

size_t host_cli_list_boards(FILE *f)
{
    board_names_t *b = calloc(1, sizeof *b);
    if (!b) return 0;
    each_board(collect_board, b);
    for (size_t i = 0; i < b->count; i++) {
        fprintf(f, "%-20s %s/%s.json\n", b->names[i], b->dirs[i], b->names[i]);
        free(b->names[i]);
    }
    size_t n = b->count;
    free(b);
    return n;
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
    char installed[1024];
    if (installed_boards_dir(installed, sizeof installed) &&
        try_dir(installed, strlen(installed), arg, out, cap, searched, sizeof searched))
        return 0;
    if (strcmp(MCPSIM_BOARDS_DIR, SYSTEM_BOARDS_DIR) != 0 &&
        try_dir(SYSTEM_BOARDS_DIR, strlen(SYSTEM_BOARDS_DIR), arg, out, cap, searched,
                sizeof searched))
        return 0;
    const char *near = nearest_board(arg);
    snprintf(err, ecap, "board '%s' not found: no %s.json in %s%s%s%s", arg, arg, searched,
             near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    free((void *)near);
    return -1;
}

void host_cli_usage(FILE *f)
{
    fputs(
        "Usage: mcpsim --board NAME|FILE [--stdio] [--pty] [--pty-link PATH] [--tcp [HOST:]PORT]\n"
        "              [--http [HOST:]PORT [--http-idle-timeout SEC] [--http-max-sessions N]\n"
        "               [--http-sessions-per-client N] [--http-per-address N]\n"
        "               [--http-conn-memory KIB]\n"
        "               [--allow-host H]... [--allow-origin O]... [--auth-token TOKEN]]\n"
        "              [--ws [HOST:]PORT] [--connect URL [--connect-header 'Name: value']...]\n"
        "              [--mqtt URL --mqtt-publish TOPIC --mqtt-subscribe TOPIC]\n"
        "              [--fleet N [--fleet-stagger MS]] [--device-id ID]\n"
        "              [--control [HOST:]PORT] [--dashboard [HOST:]PORT]\n"
        "              [--clock realtime|virtual] [--output-budget MB] [--input-budget MB]\n"
        "              [--log-level error|warn|info|debug] [--help] [--version]\n"
        "       mcpsim --device URL [--device URL]... [--stdio] [--tcp ..] [--http ..] [--ws ..]\n"
        "       mcpsim --list-boards\n"
        "\n"
        "Runs the firmware core on a simulated board and serves it like the real device; with\n"
        "--device, serves real MCP/U devices to MCP clients instead (a bridge).\n"
        "\n"
        "  --board NAME|FILE   Board to simulate (required). A NAME is looked up as NAME.json in\n"
        "                      $MCPSIM_BOARDS (colon-separated directories), then\n"
        "                      " MCPSIM_BOARDS_DIR ",\n"
        "                      then " SYSTEM_BOARDS_DIR "; a FILE (contains '/' or ends in\n"
        "                      .json) is used as is.  e.g. --board esp32-demo\n"
        "                                              --board ./boards/mine.json\n"
        "  --stdio             Serve MCP (and MCP/U) on stdin/stdout, one message per line, as\n"
        "                      MCP clients launch servers; readiness lines and logs go to\n"
        "                      stderr, and mcpsim exits 0 once stdin ends.  e.g. --stdio\n"
        "  --pty               Serve the device's UART on a pseudo-terminal (raw, 115200 baud).\n"
        "                      Clients may open, close and reopen it.  e.g. --pty\n"
        "  --pty-link PATH     Also keep a symlink PATH to the pty (implies --pty; replaced\n"
        "                      atomically, removed at exit).  e.g. --pty-link /tmp/mcpsim-uart\n"
        "  --pty-reset-on-open on|off\n"
        "                      A client opening the pty reboots the device, which prints its\n"
        "                      boot banner, as DTR resets a USB-serial board (default: the\n"
        "                      board file's uart.reset_on_open: on for uno and esp32-demo).\n"
        "                      Every open starts with an empty line buffer either way.\n"
        "                      e.g. --pty --pty-reset-on-open off\n"
        "  --tcp [HOST:]PORT   Serve newline-delimited JSON-RPC over TCP, many clients at once.\n"
        "                      HOST defaults to 127.0.0.1; PORT 0 picks a free port.\n"
        "                      e.g. --tcp 7000   --tcp 0.0.0.0:7000   --tcp [::1]:7000\n",
        f);
    /* In pieces: C99 compilers need only take string literals of 4095 bytes. */
    fputs("  --http [HOST:]PORT  Serve MCP over Streamable HTTP at http://HOST:PORT/mcp (POST,\n"
          "                      GET event stream, DELETE), many sessions on the one device.\n"
          "                      e.g. --http 7002   --http 0\n"
          "  --http-idle-timeout SEC\n"
          "                      An HTTP session without requests for SEC seconds ends (default\n"
          "                      1800).  e.g. --http-idle-timeout 600\n"
          "  --http-max-sessions N\n"
          "                      Most HTTP sessions at once (default 32); beyond, initialize\n"
          "                      gets 503 unless an idle session (no request in flight, no\n"
          "                      open stream) can be ended: the least recently used one is.\n"
          "                      e.g. --http-max-sessions 4\n"
          "  --http-sessions-per-client N\n"
          "                      Most HTTP sessions of one client address (default: half of\n"
          "                      --http-max-sessions); its least recently used idle one ends\n"
          "                      for a new one.  e.g. --http-sessions-per-client 8\n"
          "  --http-per-address N\n"
          "                      Most HTTP connections from one address (default: 3/4 of the\n"
          "                      connection limit, which is half the open-files limit, at most\n"
          "                      2048).  e.g. --http-per-address 64\n"
          "  --http-conn-memory KIB\n"
          "                      Memory of each HTTP connection for its request's line and\n"
          "                      headers (default 16, libmicrohttpd's own default being 32): a\n"
          "                      request head larger than about this less 600 bytes gets 431.\n"
          "                      It is cleared for every request, so more costs CPU time.\n"
          "                      e.g. --http-conn-memory 64\n"
          "  --output-budget MB  Unsent replies all TCP and WebSocket clients may hold together\n"
          "                      (default 32): a client over its share is not read until it\n"
          "                      reads; over twice its share, it is disconnected.\n"
          "                      e.g. --output-budget 64\n"
          "  --input-budget MB   Unfinished messages (WebSocket fragments, HTTP bodies) all\n"
          "                      clients may hold together (default 32; each may always hold\n"
          "                      64 KiB): a message that would go over it is refused\n"
          "                      (WebSocket close 1013, HTTP 503).  e.g. --input-budget 64\n"
          "  --allow-host H      Also accept HTTP requests whose Host header is H (a name, or\n"
          "                      name:port; * for any); only localhost, 127.0.0.1 and [::1] by\n"
          "                      default (DNS rebinding protection). Repeatable.\n"
          "                      e.g. --http 0.0.0.0:7002 --allow-host mybox.lan\n"
          "  --allow-origin O    Also accept requests from browser Origin O (* for any); only\n"
          "                      http(s)://localhost, 127.0.0.1 and [::1] by default. Repeatable.\n"
          "                      e.g. --allow-origin https://app.example.com\n"
          "  --auth-token TOKEN  Require 'Authorization: Bearer TOKEN' on every HTTP request (401\n"
          "                      otherwise); $MCPSIM_AUTH_TOKEN sets it too (keeps it off ps).\n"
          "  --ws [HOST:]PORT    Serve MCP over WebSocket at ws://HOST:PORT/mcp: one JSON-RPC\n"
          "                      message per text frame, notifications pushed, the\n"
          "                      {session_id, type: \"mcp\", payload} envelope understood.\n"
          "                      e.g. --ws 7003   --ws 0\n"
          "  --connect URL       Dial out to a backend at ws://HOST[:PORT][/PATH]: send a hello,\n"
          "                      serve MCP envelopes, reconnect with backoff (0.5 s doubling to\n"
          "                      30 s).  e.g. --connect ws://127.0.0.1:8000/xiaozhi/v1/\n"
          "  --connect-header 'Name: value'\n"
          "                      An extra header of the dial-out upgrade request (repeatable).\n"
          "                      e.g. --connect-header 'Authorization: Bearer t0k3n'\n"
          "  --device-id ID      Send 'Device-Id: ID' on the dial-out upgrade (a fleet's devices\n"
          "                      send mcpsim-{n} unless given).\n"
          "                      e.g. --device-id aa:bb:cc:00:00:{n}\n",
          f);
    fputs("  --mqtt mqtt://HOST[:PORT]\n"
          "                      Connect to an MQTT broker (port 1883 by default): publish the\n"
          "                      hello, serve MCP envelopes arriving on --mqtt-subscribe, publish\n"
          "                      answers and notifications on --mqtt-publish; reconnect with\n"
          "                      backoff (0.5 s doubling to 30 s).\n"
          "                      e.g. --mqtt mqtt://127.0.0.1:1883\n"
          "  --mqtt-publish TOPIC, --mqtt-subscribe TOPIC\n"
          "                      The device's topics (both required with --mqtt).\n"
          "                      e.g. --mqtt-publish dev/{n}/out --mqtt-subscribe dev/{n}/in\n"
          "  --mqtt-client-id ID The MQTT client id (default mcpsim-{n}).\n"
          "  --fleet N           Run N devices of the board in this process, each with its own\n"
          "                      firmware, pins, clock and sessions, each dialling out on\n"
          "                      --connect and/or --mqtt; {n} (1..N) in URLs, topics, ids and\n"
          "                      --connect-header values makes each one distinct. Device 1 also\n"
          "                      serves the other transports. A summary line at exit.\n"
          "                      e.g. --fleet 1000 --connect ws://127.0.0.1:9000/\n"
          "  --fleet-stagger MS  Start device k's first connection (k-1)*MS ms after the first\n"
          "                      (default 5).  e.g. --fleet-stagger 0\n",
          f);
    fputs(
        "  --control [HOST:]PORT\n"
        "                      Control channel: JSON-RPC sim.* methods, one per line, on its own\n"
        "                      listener (set inputs, advance the clock, inject faults).\n"
        "                      e.g. --control 7001\n"
        "  --dashboard [HOST:]PORT\n"
        "                      Serve a live view of the board at http://HOST:PORT/ (pins, PWM,\n"
        "                      ADC plots, I2C chips, faults, clock; inputs settable) with the\n"
        "                      Host/Origin checks and --auth-token of --http.\n"
        "                      e.g. --dashboard 7004\n"
        "  --clock realtime|virtual\n"
        "                      realtime (default): simulated time follows the wall clock.\n"
        "                      virtual: time moves only when sim.advance says so (repeatable).\n"
        "                      e.g. --clock virtual\n"
        "  --log-level error|warn|info|debug\n"
        "                      Verbosity of the stderr log (default info).  e.g. --log-level "
        "debug\n"
        "  --conformance-fixtures\n"
        "                      Add the test tools, resources and prompts the official MCP\n"
        "                      conformance suite expects (test_simple_text, test://static-text,\n"
        "                      test_simple_prompt, ...; see docs/mcp.md).\n"
        "  --device URL        Bridge a real MCP/U device instead of simulating one: URL is\n"
        "                      serial:PATH[?baud=N] (default 115200) or tcp:HOST:PORT. Its\n"
        "                      tools become MCP tools on every transport; repeat for several\n"
        "                      devices (tools named DEVICE__TOOL).  e.g. --device\n"
        "                      serial:/dev/ttyUSB0 --stdio\n"
        "  --list-boards       Print the boards --board finds, and exit.\n"
        "  -h, --help          Print this text and exit.\n"
        "  --version           Print the version and exit.\n"
        "\n"
        "Startup prints one line per endpoint on stdout, then \"ready\":\n"
        "  uart: /dev/pts/3\n"
        "  uart-link: /tmp/mcpsim-uart      (with --pty-link)\n"
        "  tcp: 127.0.0.1:7000\n"
        "  http: http://127.0.0.1:7002/mcp   (with --http)\n"
        "  ws: ws://127.0.0.1:7003/mcp       (with --ws)\n"
        "  connect: ws://127.0.0.1:8000/x    (with --connect; connects in the background)\n"
        "  mqtt: mqtt://127.0.0.1:1883       (with --mqtt; as --connect)\n"
        "  fleet: 1000                       (with --fleet)\n"
        "  control: 127.0.0.1:7001\n"
        "  dashboard: http://127.0.0.1:7004/ (with --dashboard)\n"
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
