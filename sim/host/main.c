/* main.c: mcpsim's entry point: command line, board, endpoints, readiness lines, event loop. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "bridge.h"
#include "buf.h"
#include "cli.h"
#include "dashboard.h"
#include "fleet.h"
#include "host.h"
#include "http.h"
#include "log.h"
#include "mqtt.h"
#include "pty.h"
#include "stdio_transport.h"
#include "transports.h"
#include "ws.h"

/* Every connection costs a descriptor: the soft open-files limit goes up to the hard one, so
   that many clients (and the HTTP connection limit derived from it) fit. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max) return;
    rlim_t was = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        host_log(HOST_LOG_WARN, "cannot raise the open-files limit from %llu: %s",
                 (unsigned long long)was, strerror(errno));
    else
        host_log(HOST_LOG_DEBUG, "open-files limit raised from %llu to %llu",
                 (unsigned long long)was, (unsigned long long)rl.rlim_cur);
}

/* Loads the board named on the command line and boots the firmware on it; NULL after logging. */
static sim_t *create_sim(const host_options_t *o)
{
    char path[4096], msg[1024];
    if (host_board_path(o->board, path, sizeof path, msg, sizeof msg) != 0) {
        host_log(HOST_LOG_ERROR, "%s", msg);
        return NULL;
    }
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *board = sim_board_load(path, &err);
    sim_t *sim = board ? sim_create(board, o->clock, &err) : NULL;
    fw_err_t fixtures = sim && o->conformance_fixtures ? sim_enable_fixtures(sim) : FW_OK;
    if (fixtures != FW_OK) {
        host_log(HOST_LOG_ERROR, "--conformance-fixtures: cannot add them to this board: %s",
                 fw_err_str(fixtures));
        sim_destroy(sim);
        return NULL;
    }
    if (!sim) {
        sim_error_format(&err, msg, sizeof msg);
        host_log(HOST_LOG_ERROR, "%s", msg);
        return NULL;
    }
    host_log(HOST_LOG_INFO, "board %s (%s), %s clock", o->board, path,
             o->clock == SIM_CLOCK_VIRTUAL ? "virtual" : "real-time");
    return sim;
}

/* --device: the host's sim slot gets an empty board, never called while the bridge serves (it
   answers every request itself); it keeps the host's one shape: a clock, fw_session_init. */
static sim_t *create_placeholder(void)
{
    static const char text[] = "{\"device\": \"bridge\", \"platform\": \"bridge\"}";
    sim_error_t err;
    memset(&err, 0, sizeof err);
    sim_board_t *board = sim_board_load_text("bridge", text, sizeof text - 1, &err);
    sim_t *sim = board ? sim_create(board, SIM_CLOCK_VIRTUAL, &err) : NULL;
    if (!sim) {
        char msg[512];
        sim_error_format(&err, msg, sizeof msg);
        host_log(HOST_LOG_ERROR, "bridge: %s", msg);
    }
    return sim;
}

static void add_line(host_buf_t *lines, const char *key, const char *value)
{
    host_buf_append(lines, key, strlen(key));
    host_buf_append(lines, ": ", 2);
    host_buf_append(lines, value, strlen(value));
    host_buf_append(lines, "\n", 1);
}

/* "127.0.0.1:7000" -> "127.0.0.1 7000", "[::1]:7000" -> "::1 7000" (as nc wants them). */
static void nc_args(const char *addr, char *out, size_t cap)
{
    const char *colon = strrchr(addr, ':');
    size_t host_len = (size_t)(colon - addr);
    if (addr[0] == '[') {
        addr++;
        host_len -= 2;
    }
    snprintf(out, cap, "%.*s %s", (int)host_len, addr, colon + 1);
}

/* Tells a human where to connect (stderr; stdout carries the machine-readable lines). */
static void log_connect(const char *uart, const char *tcp, const char *control)
{
    char line[512] = "", nc[128];
    if (uart) snprintf(line, sizeof line, "screen %s 115200", uart);
    if (tcp) {
        size_t n = strlen(line);
        nc_args(tcp, nc, sizeof nc);
        snprintf(line + n, sizeof line - n, "%snc %s", n ? " | " : "", nc);
    }
    if (line[0]) host_log(HOST_LOG_INFO, "connect: %s", line);
    if (control) {
        nc_args(control, nc, sizeof nc);
        host_log(HOST_LOG_INFO, "control channel: nc %s (sim.* JSON-RPC, one per line)", nc);
    }
}

/* WebSocket's share of the command line. */
static host_ws_config_t ws_config(const host_options_t *o, uint64_t start_ns)
{
    host_ws_config_t c;
    memset(&c, 0, sizeof c);
    c.device_id = o->device_id ? o->device_id : o->fleet > 1 ? "mcpsim-{n}" : NULL;
    c.fleet_start_ns = start_ns;
    c.listen = o->ws;
    c.connect = o->connect;
    c.headers = o->connect_headers;
    c.header_count = o->connect_header_count;
    c.allow_origins = o->allow_origins; /* the upgrade is checked as HTTP's requests are */
    c.allow_origin_count = o->allow_origin_count;
    c.allow_hosts = o->allow_hosts;
    c.allow_host_count = o->allow_host_count;
    c.auth_token = o->auth_token;
    return c;
}

/* Opens every endpoint asked for; on success prints their lines and "ready" on stdout. */
static int open_endpoints(host_t *h, const host_options_t *o)
{
    char tcp[128], control[128];
    host_buf_t lines = {0};
    int rc = -1;
    uint64_t start_ns = uv_hrtime(); /* a fleet's connection times count from here */
    if (o->device_count > 0) {
        if (host_bridge_open(h, o->devices, o->device_count) != 0) goto out;
        for (size_t i = 0; i < o->device_count; i++) add_line(&lines, "device", o->devices[i]);
    }
    if (o->stdio) {
        if (!(h->stdio = host_stdio_open(h))) goto out;
        add_line(&lines, "stdio", "stdin/stdout");
    }
    if (o->pty) {
        bool reset = o->pty_reset_on_open < 0 ? sim_uart_reset_on_open(h->sim)
                                               : o->pty_reset_on_open != 0;
        if (!(h->pty = host_pty_open(h, o->pty_link, reset))) goto out;
        add_line(&lines, "uart", host_pty_path(h->pty));
        if (o->pty_link) add_line(&lines, "uart-link", o->pty_link);
    }
    if (o->tcp.enabled) {
        if (!(h->tcp = host_tcp_open(h, &o->tcp, tcp, sizeof tcp))) goto out;
        add_line(&lines, "tcp", tcp);
    }
    if (o->http.enabled) {
        char url[320];
        if (!(h->http = host_http_open(h, o, url, sizeof url))) goto out;
        add_line(&lines, "http", url);
    }
    if (o->ws.enabled || o->connect) {
        host_ws_config_t wc = ws_config(o, start_ns);
        char url[320];
        if (host_ws_open(h, &wc, url, sizeof url) != 0) goto out;
        if (o->ws.enabled) add_line(&lines, "ws", url);
        if (o->connect) add_line(&lines, "connect", o->connect);
    }
    if (o->mqtt) {
        host_mqtt_config_t mc = {o->mqtt, o->mqtt_publish, o->mqtt_subscribe, o->mqtt_client_id,
                                 start_ns};
        if (!(h->mqtt = host_mqtt_open(h, h, &mc, 1, 0))) goto out;
        add_line(&lines, "mqtt", o->mqtt);
    }
    if (o->fleet > 1) {
        char n[16];
        if (host_fleet_open(h, o, start_ns) != 0) goto out;
        snprintf(n, sizeof n, "%u", o->fleet);
        add_line(&lines, "fleet", n);
    }
    if (o->dashboard.enabled) {
        char url[320];
        if (!(h->dashboard = host_dashboard_open(h, o, url, sizeof url))) goto out;
        add_line(&lines, "dashboard", url);
    }
    if (o->control.enabled) {
        if (!(h->control = host_control_open(h, &o->control, control, sizeof control))) goto out;
        add_line(&lines, "control", control);
    }
    host_buf_append(&lines, "ready\n", 6);
    /* With --stdio, stdout carries protocol messages only: the lines go to stderr instead. */
    FILE *ready = o->stdio ? stderr : stdout;
    fwrite(lines.data, 1, lines.len, ready);
    fflush(ready);
    log_connect(o->pty ? host_pty_path(h->pty) : NULL, o->tcp.enabled ? tcp : NULL,
                o->control.enabled ? control : NULL);
    rc = 0;
out:
    host_buf_free(&lines);
    return rc;
}

int main(int argc, char **argv)
{
    host_options_t o;
    char err[512];
    if (host_cli_parse(argc, argv, &o, err, sizeof err) != 0) {
        fprintf(stderr, "mcpsim: error: %s\nTry 'mcpsim --help'.\n", err);
        return 2;
    }
    if (o.help) {
        host_cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("mcpsim %s (firmware core %s)\n", MCPSIM_VERSION, FW_CORE_VERSION);
        return 0;
    }
    if (o.list_boards) return host_cli_list_boards(stdout) > 0 ? 0 : 1;
    host_log_set_level((host_log_level_t)o.log_level);
    raise_fd_limit();
    sim_t *sim = o.device_count > 0 ? create_placeholder() : create_sim(&o);
    if (!sim) return 2;
    host_t h;
    if (host_init(&h, sim) != 0) {
        host_log(HOST_LOG_ERROR, "cannot set up the event loop");
        host_close(&h);
        return 1;
    }
    h.out_budget = (size_t)o.output_budget_mb << 20;
    h.in_budget = (size_t)o.input_budget_mb << 20;
    int rc = open_endpoints(&h, &o);
    if (rc == 0) host_run(&h);
    host_close(&h);
    return rc == 0 ? 0 : 1;
}
