/* bridge.c: --device: real MCP/U devices (serial or TCP) served as one MCP server on every host
   transport: discovery, tool conversion, forwarding, reconnection. */
#include "bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "log.h"

#define DISCOVER_TIMEOUT_MS 2000u
#define DISCOVER_TRIES 3
#define CONNECT_TIMEOUT_MS 3000

/* One device behind the bridge: its link, what discovery found, its reconnection state. */
typedef struct bridge_dev {
    host_bridge_t *b;
    const char *url_text;
    host_device_url_t url;
    char name[64];   /* from get_info, made safe for tool names; unique among the devices */
    int fd;          /* -1 once the link is closed */
    bool up;         /* fd works; false from the moment a read or write failed */
    uv_poll_t *poll; /* between calls: notices an unplug, drops unsolicited lines; one per link,
                        freed by its close callback */
    uv_timer_t retry;
    bool retry_init, retry_active;
    unsigned backoff_ms;
    host_buf_t in; /* bytes read and not yet a whole line */
    json_t *info;  /* get_info's result */
    json_t *tools; /* list_tools' tools (the device's own objects) */
    json_t *pins;  /* list_tools' pins, or [] */
    uint64_t next_id;
} bridge_dev_t;

struct host_bridge {
    host_t *h;
    bridge_dev_t devs[HOST_DEVICES_MAX];
    size_t count;
    bool prefixed;  /* several devices: DEV__tool */
    uint32_t epoch; /* tool-list generation, bumped when a device comes back */
    bool stopping;
    bool watching;
};

/* ---------------------------------------------------------------- URLs */

static int parse_query(const char *q, host_device_url_t *u, char *err, size_t cap)
{
    while (q && *q) {
        size_t len = strcspn(q, "&");
        char key[32];
        const char *eq = memchr(q, '=', len);
        unsigned long v = 0;
        char *end = NULL;
        if (eq && (size_t)(eq - q) < sizeof key) {
            snprintf(key, sizeof key, "%.*s", (int)(eq - q), q);
            v = strtoul(eq + 1, &end, 10);
        }
        if (!eq || !end || end != q + len || end == eq + 1 || v > 10000000ul) {
            snprintf(err, cap, "'%.*s': expected NAME=NUMBER (baud, settle_ms, timeout_ms)",
                     (int)len, q);
            return -1;
        }
        if (strcmp(key, "baud") == 0 && u->serial)
            u->baud = (unsigned)v;
        else if (strcmp(key, "settle_ms") == 0)
            u->settle_ms = (unsigned)v;
        else if (strcmp(key, "timeout_ms") == 0 && v > 0)
            u->timeout_ms = (unsigned)v;
        else {
            snprintf(err, cap, "'%.*s': unknown or invalid parameter", (int)len, q);
            return -1;
        }
        q += len + (q[len] == '&');
    }
    return 0;
}

int host_device_url_parse(const char *text, host_device_url_t *u, char *err, size_t cap)
{
    memset(u, 0, sizeof *u);
    u->baud = HOST_BRIDGE_BAUD;
    u->timeout_ms = HOST_BRIDGE_TIMEOUT_MS;
    const char *q = strchr(text, '?');
    size_t body = q ? (size_t)(q - text) : strlen(text);
    if (strncmp(text, "serial:", 7) == 0 && body > 7 && body - 7 < sizeof u->path) {
        u->serial = true;
        u->settle_ms = HOST_BRIDGE_SETTLE_MS;
        snprintf(u->path, sizeof u->path, "%.*s", (int)(body - 7), text + 7);
    } else if (strncmp(text, "tcp:", 4) == 0) {
        const char *hp = text + 4, *colon = memchr(hp, ':', body - 4);
        const char *last = colon;
        while (last && memchr(last + 1, ':', (size_t)(text + body - last - 1)))
            last = memchr(last + 1, ':', (size_t)(text + body - last - 1));
        size_t hl = last ? (size_t)(last - hp) : 0,
               pl = last ? (size_t)(text + body - last - 1) : 0;
        if (hl >= 2 && hp[0] == '[' && hp[hl - 1] == ']') hp++, hl -= 2;
        if (!last || hl == 0 || hl >= sizeof u->host || pl == 0 || pl >= sizeof u->port ||
            strspn(last + 1, "0123456789") < pl) {
            snprintf(err, cap, "--device '%s': expected tcp:HOST:PORT", text);
            return -1;
        }
        snprintf(u->host, sizeof u->host, "%.*s", (int)hl, hp);
        snprintf(u->port, sizeof u->port, "%.*s", (int)pl, last + 1);
    } else {
        snprintf(err, cap, "--device '%s': expected serial:PATH[?baud=N] or tcp:HOST:PORT", text);
        return -1;
    }
    return q ? parse_query(q + 1, u, err, cap) : 0;
}

/* ---------------------------------------------------------------- the link */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000u, (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static speed_t baud_const(unsigned baud)
{
    switch (baud) {
    case 9600:
        return B9600;
    case 19200:
        return B19200;
    case 38400:
        return B38400;
    case 57600:
        return B57600;
    case 230400:
        return B230400;
    case 460800:
        return B460800;
    case 921600:
        return B921600;
    default:
        return B115200;
    }
}

/* A serial port, raw at its baud, reset by a DTR pulse (as a USB-serial board's auto-reset
   wiring wants; a port without modem lines ignores it), then given settle_ms to boot. */
static int open_serial(const host_device_url_t *u, char *err, size_t cap)
{
    int fd = open(u->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap, "%s: %s", u->path, strerror(errno));
        return -1;
    }
    struct termios t;
    if (tcgetattr(fd, &t) == 0) {
        cfmakeraw(&t);
        cfsetispeed(&t, baud_const(u->baud));
        cfsetospeed(&t, baud_const(u->baud));
        t.c_cflag |= CLOCAL | CREAD;
        tcsetattr(fd, TCSANOW, &t);
    }
    int dtr = TIOCM_DTR;
    if (ioctl(fd, TIOCMBIC, &dtr) == 0) {
        sleep_ms(100);
        ioctl(fd, TIOCMBIS, &dtr);
    }
    if (u->settle_ms) sleep_ms(u->settle_ms);
    tcflush(fd, TCIFLUSH); /* what the boot printed so far */
    return fd;
}

static int open_tcp(const host_device_url_t *u, char *err, size_t cap)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(u->host, u->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, cap, "%s:%s: %s", u->host, u->port, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            int soerr = ETIMEDOUT;
            socklen_t sl = sizeof soerr;
            if (poll(&p, 1, CONNECT_TIMEOUT_MS) == 1)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            errno = soerr;
        } else if (errno != 0 && errno != EISCONN) {
            /* connect failed at once; errno says why */
        }
        if (errno != 0 && errno != EISCONN && errno != EINPROGRESS) {
            snprintf(err, cap, "%s:%s: %s", u->host, u->port, strerror(errno));
            close(fd);
            fd = -1;
        }
        errno = 0;
    }
    freeaddrinfo(res);
    return fd;
}

static void free_handle(uv_handle_t *handle)
{
    free(handle);
}

/* Loop thread: closes the link's poll handle and its descriptor. */
static void link_close(bridge_dev_t *d)
{
    if (d->poll) uv_close((uv_handle_t *)d->poll, free_handle);
    d->poll = NULL;
    if (d->fd >= 0) close(d->fd);
    d->fd = -1;
    d->up = false;
    d->in.len = 0;
}

static void schedule_retry(bridge_dev_t *d);

/* The link failed (unplugged, reset, closed). On the loop thread it is closed and reconnection
   starts; another thread (libuv handles are the loop's) leaves both to the watcher. */
static void link_down(bridge_dev_t *d, const char *why)
{
    if (d->up) host_log(HOST_LOG_WARN, "device %s: link lost (%s); reconnecting", d->name, why);
    d->up = false;
    if (!host_on_loop_thread(d->b->h)) return;
    link_close(d);
    schedule_retry(d);
}

static int write_all(bridge_dev_t *d, const char *data, size_t len, uint64_t deadline)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(d->fd, data + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            uint64_t now = now_ms();
            struct pollfd p = {d->fd, POLLOUT, 0};
            if (now >= deadline || poll(&p, 1, (int)(deadline - now)) <= 0) return -1;
            continue;
        }
        link_down(d, n < 0 ? strerror(errno) : "write failed");
        return -2;
    }
    return 0;
}

/* Takes the next whole line out of d->in into a malloc'd string, or NULL. */
static char *take_line(bridge_dev_t *d)
{
    char *nl = d->in.len ? memchr(d->in.data, '\n', d->in.len) : NULL;
    if (!nl) return NULL;
    size_t n = (size_t)(nl - d->in.data);
    char *line = malloc(n + 1);
    if (!line) abort();
    memcpy(line, d->in.data, n);
    line[n] = 0;
    if (n && line[n - 1] == '\r') line[n - 1] = 0;
    host_buf_consume(&d->in, n + 1);
    return line;
}

/* Reads what is there; 0, or -2 when the link is gone. */
static int read_some(bridge_dev_t *d)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(d->fd, buf, sizeof buf);
        if (n > 0) {
            host_buf_append(&d->in, buf, (size_t)n);
            if (d->in.len > (1u << 20)) d->in.len = 0; /* a device that never ends a line */
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return 0;
        link_down(d, n == 0 ? "end of file" : strerror(errno));
        return -2;
    }
}

/* A response line of request id, parsed; other lines (boot noise, notifications, the late
   answer of a request that timed out) are dropped. */
static json_t *match_line(bridge_dev_t *d, const char *line, uint64_t id)
{
    json_t *doc = json_loads(line, 0, NULL);
    json_t *jid = json_object_get(doc, "id");
    if (json_is_integer(jid) && (uint64_t)json_integer_value(jid) == id &&
        (json_object_get(doc, "result") || json_object_get(doc, "error")))
        return doc;
    if (line[0]) host_log(HOST_LOG_DEBUG, "device %s: ignored line: %.120s", d->name, line);
    json_decref(doc);
    return NULL;
}

/*
 * One MCP/U request on the line (params borrowed, may be NULL). Returns 0 with the response
 * object (result or error) in *reply, -1 when timeout_ms passed, -2 when the link is down.
 */
static int link_request(bridge_dev_t *d, const char *method, json_t *params, unsigned timeout_ms,
                        json_t **reply)
{
    if (!d->up) return -2;
    uint64_t id = ++d->next_id;
    json_t *req =
        json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method", method);
    if (params) json_object_set(req, "params", params);
    char *text = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    uint64_t deadline = now_ms() + timeout_ms;
    size_t tl = strlen(text);
    text[tl] = '\n'; /* json_dumps' NUL: the line's end */
    int rc = write_all(d, text, tl + 1, deadline);
    free(text);
    if (rc != 0) return rc;
    for (;;) {
        char *line;
        while ((line = take_line(d))) {
            *reply = match_line(d, line, id);
            free(line);
            if (*reply) return 0;
        }
        uint64_t now = now_ms();
        if (now >= deadline) return -1;
        struct pollfd p = {d->fd, POLLIN, 0};
        int n = poll(&p, 1, (int)(deadline - now));
        if (n < 0 && errno != EINTR) return -1;
        if (n > 0 && read_some(d) != 0) return -2;
    }
}

/* ---------------------------------------------------------------- discovery */

/* The schema of a pin parameter: the registry's pins of the types the tool works on. */
static json_t *pin_schema(const json_t *pins, const char *const *types)
{
    json_t *nums = json_array();
    host_buf_t desc = {0};
    host_buf_append(&desc, "pin number", 10);
    size_t i;
    json_t *pin;
    json_array_foreach(pins, i, pin)
    {
        const char *type = json_string_value(json_object_get(pin, "type"));
        json_t *num = json_object_get(pin, "pin");
        bool ok = false;
        for (size_t k = 0; type && types[k]; k++) ok |= strcmp(type, types[k]) == 0;
        if (!ok || !json_is_integer(num)) continue;
        char part[160];
        const char *name = json_string_value(json_object_get(pin, "name"));
        int n = snprintf(part, sizeof part, "%s %" JSON_INTEGER_FORMAT "%s%s%s",
                         json_array_size(nums) ? "," : ":", json_integer_value(num),
                         name ? " (" : "", name ? name : "", name ? ")" : "");
        host_buf_append(&desc, part, n > 0 ? (size_t)n : 0);
        json_array_append(nums, num);
    }
    json_t *s = json_pack("{s:s, s:s%}", "type", "integer", "description", desc.data, desc.len);
    host_buf_free(&desc);
    if (json_array_size(nums)) json_object_set(s, "enum", nums);
    json_decref(nums);
    return s;
}

/* For a device that omits schemas (MCP/U on AVR): MCP/U's built-ins from the pin registry;
   any other tool takes any object. */
static json_t *infer_schema(const char *tool, const json_t *pins)
{
    static const char *const out[] = {"digital_output", NULL};
    static const char *const io[] = {"digital_output", "digital_input", NULL};
    static const char *const pwm[] = {"pwm_output", NULL};
    static const char *const adc[] = {"adc_input", NULL};
    const char *const *types = strcmp(tool, "gpio_write") == 0  ? out
                               : strcmp(tool, "gpio_read") == 0 ? io
                               : strcmp(tool, "pwm_write") == 0 ? pwm
                               : strcmp(tool, "adc_read") == 0  ? adc
                                                                : NULL;
    if (!types) return json_pack("{s:s}", "type", "object");
    json_t *props = json_pack("{s:o}", "pin", pin_schema(pins, types));
    json_t *req = json_pack("[s]", "pin");
    if (types == out) {
        json_object_set_new(
            props, "value",
            json_pack("{s:s, s:s}", "type", "boolean", "description", "true = HIGH, false = LOW"));
        json_array_append_new(req, json_string("value"));
    } else if (types == pwm) {
        json_object_set_new(props, "duty",
                            json_pack("{s:s, s:i, s:i, s:s}", "type", "integer", "minimum", 0,
                                      "maximum", 255, "description", "duty cycle 0-255"));
        json_array_append_new(req, json_string("duty"));
    }
    return json_pack("{s:s, s:o, s:o}", "type", "object", "properties", props, "required", req);
}

static void safe_name(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; in && *in && n + 1 < cap; in++)
        out[n++] = (char)((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
                                  (*in >= '0' && *in <= '9') || *in == '-' || *in == '_'
                              ? *in
                              : '_');
    if (n == 0) n = (size_t)snprintf(out, cap, "device");
    out[n] = 0;
}

/* get_info (retried: a board that just reset may lose the first request), then list_tools.
   0, or -1 after logging. */
static int discover(bridge_dev_t *d)
{
    json_t *info = NULL, *list = NULL;
    for (int i = 0; i < DISCOVER_TRIES && !info && d->up; i++) {
        json_t *r = NULL;
        if (link_request(d, "get_info", NULL, DISCOVER_TIMEOUT_MS, &r) == 0) {
            info = json_incref(json_object_get(r, "result"));
            if (!info) host_log(HOST_LOG_WARN, "device %s: get_info failed", d->url_text);
            json_decref(r);
            if (!info) break;
        }
    }
    if (info && link_request(d, "list_tools", NULL, DISCOVER_TIMEOUT_MS, &list) == 0 &&
        json_is_array(json_object_get(json_object_get(list, "result"), "tools"))) {
        json_t *res = json_object_get(list, "result");
        json_decref(d->info);
        json_decref(d->tools);
        json_decref(d->pins);
        d->info = info;
        d->tools = json_incref(json_object_get(res, "tools"));
        d->pins = json_is_array(json_object_get(res, "pins"))
                      ? json_incref(json_object_get(res, "pins"))
                      : json_array();
        json_decref(list);
        return 0;
    }
    host_log(HOST_LOG_ERROR, "device %s: %s did not answer", d->url_text,
             info ? "list_tools" : "get_info");
    json_decref(info);
    json_decref(list);
    return -1;
}

static void on_poll(uv_poll_t *p, int status, int events);

/* Opens the link, discovers the device and starts watching the line. 0, or -1 after logging. */
static int connect_dev(bridge_dev_t *d, host_log_level_t level)
{
    char err[600];
    d->fd =
        d->url.serial ? open_serial(&d->url, err, sizeof err) : open_tcp(&d->url, err, sizeof err);
    if (d->fd < 0) {
        host_log(level, "device %s: cannot open: %s", d->url_text, err);
        return -1;
    }
    d->in.len = 0;
    d->up = true;
    if (discover(d) != 0) {
        link_close(d);
        return -1;
    }
    d->poll = malloc(sizeof *d->poll);
    if (!d->poll) abort();
    uv_poll_init(&d->b->h->loop, d->poll, d->fd);
    d->poll->data = d;
    uv_poll_start(d->poll, UV_READABLE | UV_DISCONNECT, on_poll);
    return 0;
}

/* ---------------------------------------------------------------- reconnection */

/* Between calls: drops unsolicited lines, notices an unplug. Loop thread. */
static void on_poll(uv_poll_t *p, int status, int events)
{
    bridge_dev_t *d = p->data;
    (void)events;
    host_device_lock(d->b->h);
    if (p == d->poll && !d->up) {
        link_down(d, "lost during a call on another thread"); /* closes it here, on the loop */
    } else if (p == d->poll) {
        if (status < 0 || read_some(d) != 0) {
            link_down(d, status < 0 ? uv_strerror(status) : "read failed");
        } else {
            char *line;
            while ((line = take_line(d))) {
                if (line[0])
                    host_log(HOST_LOG_DEBUG, "device %s: unsolicited: %.120s", d->name, line);
                free(line);
            }
        }
    }
    host_device_unlock(d->b->h);
}

static bool same_tools(const json_t *a, const json_t *b)
{
    return a && b && json_equal((json_t *)a, (json_t *)b);
}

static void on_retry(uv_timer_t *t)
{
    bridge_dev_t *d = t->data;
    host_bridge_t *b = d->b;
    d->retry_active = false;
    if (b->stopping) return;
    host_device_lock(b->h);
    json_t *before = json_incref(d->tools);
    int rc = connect_dev(d, HOST_LOG_DEBUG); /* blocks the loop for the discovery */
    if (rc == 0) {
        b->epoch++; /* every initialized session is told, even when the list looks the same:
                       the device may have been reflashed with same-named tools */
        host_log(HOST_LOG_INFO, "device %s: back (%s), %zu tools%s", d->name, d->url_text,
                 json_array_size(d->tools), same_tools(before, d->tools) ? "" : ", changed");
        d->backoff_ms = 0;
    }
    json_decref(before);
    host_device_unlock(b->h);
    if (rc == 0)
        host_clock_rearm(b->h); /* tells the watchers: transports drain list_changed */
    else
        schedule_retry(d);
}

/* Loop thread. */
static void schedule_retry(bridge_dev_t *d)
{
    if (d->b->stopping || d->retry_active || d->up) return;
    link_close(d);
    d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : HOST_BRIDGE_RETRY_MS;
    if (d->backoff_ms > HOST_BRIDGE_RETRY_MAX_MS) d->backoff_ms = HOST_BRIDGE_RETRY_MAX_MS;
    uv_timer_start(&d->retry, on_retry, d->backoff_ms, 0);
    d->retry_active = true;
}

/* The watcher: a link lost on another thread (an HTTP request) starts its retry here. */
static void on_device(void *ctx)
{
    host_bridge_t *b = ctx;
    if (!host_on_loop_thread(b->h)) return;
    for (size_t i = 0; i < b->count; i++) schedule_retry(&b->devs[i]);
}

/* ---------------------------------------------------------------- answers */

static void send_msg(json_t *msg, fw_msg_sink_t out)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    out.write(out.ctx, text, strlen(text));
    if (out.end)
        out.end(out.ctx);
    else
        out.write(out.ctx, "\n", 1);
    free(text);
}

static void send_result(const json_t *id, json_t *result, fw_msg_sink_t out)
{
    send_msg(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result), out);
}

static void send_error(const json_t *id, int code, const char *message, fw_msg_sink_t out)
{
    json_t *jid = id ? json_incref((json_t *)id) : json_null();
    send_msg(json_pack("{s:s, s:o, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", jid, "error", "code",
                       code, "message", message),
             out);
}

/* The tool of an MCP name: its device and the device's own tool object. */
static bridge_dev_t *find_tool(host_bridge_t *b, const char *name, json_t **tool)
{
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        const char *rest = name;
        size_t nl = strlen(d->name);
        if (b->prefixed) {
            if (strncmp(name, d->name, nl) != 0 || strncmp(name + nl, "__", 2) != 0) continue;
            rest = name + nl + 2;
        }
        size_t k;
        json_t *t;
        json_array_foreach(d->tools, k, t)
        {
            const char *tn = json_string_value(json_object_get(t, "name"));
            if (tn && strcmp(tn, rest) == 0) {
                *tool = t;
                return d;
            }
        }
    }
    return NULL;
}

static json_t *mcp_tool(host_bridge_t *b, bridge_dev_t *d, json_t *t)
{
    const char *tn = json_string_value(json_object_get(t, "name"));
    char name[192];
    snprintf(name, sizeof name, "%s%s%s", b->prefixed ? d->name : "", b->prefixed ? "__" : "", tn);
    json_t *schema = json_object_get(t, "inputSchema");
    schema = json_is_object(schema) ? json_deep_copy(schema) : infer_schema(tn, d->pins);
    if (!json_object_get(schema, "type"))
        json_object_set_new(schema, "type", json_string("object"));
    const char *desc = json_string_value(json_object_get(t, "description"));
    json_t *out = json_pack("{s:s, s:o}", "name", name, "inputSchema", schema);
    if (desc) json_object_set_new(out, "description", json_string(desc));
    return out;
}

static void tools_list(host_bridge_t *b, const json_t *id, const json_t *params, fw_msg_sink_t out)
{
    size_t start = 0, index = 0;
    json_t *cursor = json_object_get(params, "cursor");
    if (cursor) {
        const char *c = json_string_value(cursor);
        char *end = NULL;
        start = c ? strtoul(c, &end, 10) : 0;
        if (!c || !*c || *end) {
            send_error(id, -32602, "tools/list: invalid cursor", out);
            return;
        }
    }
    json_t *tools = json_array();
    bool more = false;
    for (size_t i = 0; i < b->count; i++) {
        size_t k;
        json_t *t;
        json_array_foreach(b->devs[i].tools, k, t)
        {
            if (!json_is_string(json_object_get(t, "name"))) continue;
            if (index >= start && json_array_size(tools) < HOST_BRIDGE_PAGE)
                json_array_append_new(tools, mcp_tool(b, &b->devs[i], t));
            else if (index >= start)
                more = true;
            index++;
        }
    }
    json_t *res = json_pack("{s:o}", "tools", tools);
    if (more) {
        char next[32];
        snprintf(next, sizeof next, "%zu", start + HOST_BRIDGE_PAGE);
        json_object_set_new(res, "nextCursor", json_string(next));
    }
    send_result(id, res, out);
}

static json_t *text_result(const char *text, bool is_error)
{
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text, "isError",
                     is_error);
}

/* tools/call: forwarded; what the device says, or why it said nothing, as the tool's result. */
static void tools_call(host_bridge_t *b, const json_t *id, const json_t *params, fw_msg_sink_t out)
{
    const char *name = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments");
    json_t *tool = NULL;
    bridge_dev_t *d = name ? find_tool(b, name, &tool) : NULL;
    if (!d || (args && !json_is_object(args))) {
        char msg[256];
        if (!name)
            snprintf(msg, sizeof msg, "tools/call: params.name (a string) is missing");
        else if (!d)
            snprintf(msg, sizeof msg, "unknown tool: %.200s", name);
        else
            snprintf(msg, sizeof msg, "tools/call %.200s: arguments must be an object", name);
        send_error(id, -32602, msg, out);
        return;
    }
    json_t *own = args ? json_incref(args) : json_object();
    json_t *reply = NULL;
    char msg[512];
    int rc = link_request(d, json_string_value(json_object_get(tool, "name")), own,
                          d->url.timeout_ms, &reply);
    json_decref(own);
    if (rc == -2) {
        snprintf(msg, sizeof msg,
                 "device %s is disconnected (unplugged or reset); the bridge is "
                 "reconnecting, try again",
                 d->name);
        send_result(id, text_result(msg, true), out);
        return;
    }
    if (rc == -1) {
        snprintf(msg, sizeof msg, "device %s did not answer %s within %u ms", d->name, name,
                 d->url.timeout_ms);
        send_result(id, text_result(msg, true), out);
        return;
    }
    json_t *err = json_object_get(reply, "error"), *result = json_object_get(reply, "result");
    if (err) {
        char *data = json_dumps(json_object_get(err, "data"), JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(msg, sizeof msg, "device error %" JSON_INTEGER_FORMAT ": %s%s%s",
                 json_integer_value(json_object_get(err, "code")),
                 json_string_value(json_object_get(err, "message"))
                     ? json_string_value(json_object_get(err, "message"))
                     : "(no message)",
                 data ? " " : "", data ? data : "");
        free(data);
        send_result(id, text_result(msg, true), out);
    } else {
        char *text = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY);
        json_t *res = text_result(text ? text : "null", false);
        free(text);
        if (json_is_object(result)) json_object_set(res, "structuredContent", result);
        send_result(id, res, out);
    }
    json_decref(reply);
}

static void resources(host_bridge_t *b, const json_t *id, bool read, const json_t *params,
                      fw_msg_sink_t out)
{
    const char *want = read ? json_string_value(json_object_get(params, "uri")) : NULL;
    json_t *list = json_array();
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        char uri[128];
        snprintf(uri, sizeof uri, "device://%s/info", d->name);
        if (!read) {
            json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "uri", uri, "name",
                                                  d->name, "description",
                                                  "get_info, the pin registry and the link state",
                                                  "mimeType", "application/json"));
        } else if (want && strcmp(want, uri) == 0) {
            json_t *doc = json_pack("{s:O, s:O, s:s, s:b}", "info", d->info, "pins", d->pins, "url",
                                    d->url_text, "connected", d->up);
            char *text = json_dumps(doc, JSON_COMPACT);
            json_decref(doc);
            json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "uri", uri, "mimeType",
                                                  "application/json", "text", text));
            free(text);
        }
    }
    if (read && json_array_size(list) == 0) {
        json_decref(list);
        send_error(id, -32002, "resource not found", out);
        return;
    }
    send_result(id, json_pack("{s:o}", read ? "contents" : "resources", list), out);
}

static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

static void initialize(host_bridge_t *b, fw_session_t *s, const json_t *id, const json_t *params,
                       fw_msg_sink_t out)
{
    const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
    size_t v = 0;
    for (size_t i = 0; asked && i < sizeof versions / sizeof versions[0]; i++)
        if (strcmp(asked, versions[i]) == 0) v = i;
    s->initialize_seen = true;
    s->initialized = false;
    s->version = (uint8_t)(v + 1);
    s->change_cursor = b->epoch;
    char instr[256];
    snprintf(instr, sizeof instr,
             "A bridge to %zu real MCP/U device%s: each tool runs on the "
             "hardware.%s",
             b->count, b->count > 1 ? "s" : "", b->prefixed ? " Tool names are DEVICE__TOOL." : "");
    send_result(id,
                json_pack("{s:s, s:{s:{s:b}, s:{}}, s:{s:s, s:s}, s:s}", "protocolVersion",
                          versions[v], "capabilities", "tools", "listChanged", 1, "resources",
                          "serverInfo", "name", "mcpsim-bridge", "version", MCPSIM_VERSION,
                          "instructions", instr),
                out);
}

/* A method that is not MCP: MCP/U forwarded to the device (DEV__method with several). */
static void passthrough(host_bridge_t *b, const json_t *id, const char *method, json_t *params,
                        fw_msg_sink_t out)
{
    bridge_dev_t *d = b->count == 1 && !b->prefixed ? &b->devs[0] : NULL;
    const char *m = method;
    for (size_t i = 0; !d && i < b->count; i++) {
        size_t nl = strlen(b->devs[i].name);
        if (strncmp(method, b->devs[i].name, nl) == 0 && strncmp(method + nl, "__", 2) == 0)
            d = &b->devs[i], m = method + nl + 2;
    }
    if (!d) {
        send_error(id, -32601, "method not found (several devices: call DEVICE__METHOD)", out);
        return;
    }
    json_t *reply = NULL;
    int rc = link_request(d, m, params, d->url.timeout_ms, &reply);
    if (rc != 0) {
        if (id) send_error(id, -32000, rc == -2 ? "device disconnected" : "device timed out", out);
        return;
    }
    if (id) {
        json_object_set(reply, "id", (json_t *)id);
        send_msg(reply, out);
    } else {
        json_decref(reply);
    }
}

/* One parsed message. True if a response was written. */
static bool handle_doc(host_bridge_t *b, fw_session_t *s, json_t *doc, fw_msg_sink_t out)
{
    json_t *id = json_object_get(doc, "id");
    json_t *method = json_object_get(doc, "method");
    json_t *params = json_object_get(doc, "params");
    bool valid_id = !id || json_is_string(id) || json_is_integer(id);
    if (!json_is_object(doc) || !json_is_string(method) ||
        !json_is_string(json_object_get(doc, "jsonrpc")) ||
        strcmp(json_string_value(json_object_get(doc, "jsonrpc")), "2.0") != 0 || !valid_id ||
        (params && !json_is_object(params) && !json_is_array(params))) {
        if (json_is_object(doc) && !method &&
            (json_object_get(doc, "result") || json_object_get(doc, "error")))
            return false; /* a client's response: nothing asked it anything */
        send_error(valid_id ? id : NULL, -32600, "invalid request", out);
        return true;
    }
    const char *m = json_string_value(method);
    if (!id) { /* a notification */
        if (strcmp(m, "notifications/initialized") == 0) s->initialized = true;
        return false;
    }
    if (strcmp(m, "initialize") == 0)
        initialize(b, s, id, params, out);
    else if (strcmp(m, "ping") == 0)
        send_result(id, json_object(), out);
    else if (strcmp(m, "tools/list") == 0)
        tools_list(b, id, params, out);
    else if (strcmp(m, "tools/call") == 0)
        tools_call(b, id, params, out);
    else if (strcmp(m, "resources/list") == 0 || strcmp(m, "resources/read") == 0)
        resources(b, id, m[10] == 'r', params, out);
    else if (strcmp(m, "resources/templates/list") == 0)
        send_result(id, json_pack("{s:[]}", "resourceTemplates"), out);
    else if (strchr(m, '/'))
        send_error(id, -32601, "method not found", out);
    else
        passthrough(b, id, m, params, out);
    return true;
}

bool host_bridge_handle(host_bridge_t *b, fw_session_t *session, const char *msg, size_t len,
                        fw_msg_sink_t out)
{
    json_error_t e;
    json_t *doc = json_loadb(msg, len, 0, &e);
    if (!doc) {
        char text[256];
        snprintf(text, sizeof text, "parse error: %s", e.text);
        send_error(NULL, -32700, text, out);
        return true;
    }
    if (json_is_array(doc)) {
        json_decref(doc);
        send_error(NULL, -32600, "batches are not supported", out);
        return true;
    }
    bool answered = handle_doc(b, session, doc, out);
    json_decref(doc);
    return answered;
}

typedef struct line_out {
    fw_sink_t sink;
} line_out_t;

static void line_write(void *ctx, const char *data, size_t len)
{
    line_out_t *l = ctx;
    l->sink.write(l->sink.ctx, data, len);
}

static void line_end(void *ctx)
{
    line_out_t *l = ctx;
    l->sink.write(l->sink.ctx, "\n", 1);
}

/* Lines are assembled in the transport's framer (the core's limit, FW_LINE_MAX): its buffer,
   used by the bridge alone while it serves. */
void host_bridge_feed(host_bridge_t *b, fw_session_t *session, fw_framer_t *fr, const uint8_t *data,
                      size_t len, fw_sink_t out)
{
    line_out_t l = {out};
    fw_msg_sink_t msg = {line_write, &l, line_end};
    if (fr->ready) fr->len = 0, fr->ready = false;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (fr->discarding) continue;
            if (fr->len == FW_LINE_MAX) {
                fr->discarding = true;
                send_error(NULL, -32700, "line longer than the limit (1024 bytes)", msg);
                continue;
            }
            fr->line[fr->len++] = (char)data[i];
            continue;
        }
        size_t n = fr->len;
        if (n && fr->line[n - 1] == '\r') n--;
        bool blank = strspn(fr->line, " \t\r") >= n;
        if (!fr->discarding && n > 0 && !blank) host_bridge_handle(b, session, fr->line, n, msg);
        fr->len = 0;
        fr->discarding = false;
    }
}

size_t host_bridge_drain(host_bridge_t *b, fw_session_t *session, fw_msg_sink_t out)
{
    if (!session->initialize_seen || session->change_cursor == b->epoch) return 0;
    session->change_cursor = b->epoch;
    send_msg(
        json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/tools/list_changed"),
        out);
    return 1;
}

/* ---------------------------------------------------------------- life */

int host_bridge_open(host_t *h, const char *const *urls, size_t count)
{
    host_bridge_t *b = calloc(1, sizeof *b);
    if (!b) abort();
    h->bridge = b; /* freed by host_close, after the loop closed the handles */
    b->h = h;
    b->prefixed = count > 1;
    for (size_t i = 0; i < count; i++) {
        bridge_dev_t *d = &b->devs[b->count++];
        char err[600];
        d->b = b;
        d->fd = -1;
        d->url_text = urls[i];
        uv_timer_init(&h->loop, &d->retry);
        d->retry.data = d;
        d->retry_init = true;
        if (host_device_url_parse(urls[i], &d->url, err, sizeof err) != 0) {
            host_log(HOST_LOG_ERROR, "%s", err);
            goto fail;
        }
        snprintf(d->name, sizeof d->name, "device");
        if (connect_dev(d, HOST_LOG_ERROR) != 0) goto fail;
        char name[48];
        safe_name(json_string_value(json_object_get(d->info, "device")), name, sizeof name);
        snprintf(d->name, sizeof d->name, "%s", name);
        for (size_t k = 0, n = 2; k + 1 < b->count; k++)
            if (strcmp(b->devs[k].name, d->name) == 0) {
                snprintf(d->name, sizeof d->name, "%s_%zu", name, n++);
                k = (size_t)-1; /* check again from the first */
            }
        host_log(HOST_LOG_INFO, "device %s: %s, %zu tools, %zu pins", d->name, urls[i],
                 json_array_size(d->tools), json_array_size(d->pins));
    }
    if (host_device_watch(h, on_device, b) != 0) {
        host_log(HOST_LOG_ERROR, "bridge: too many notification watchers");
        goto fail;
    }
    b->watching = true;
    return 0;
fail:
    host_bridge_stop(b);
    return -1;
}

void host_bridge_stop(host_bridge_t *b)
{
    b->stopping = true;
    if (b->watching) host_device_unwatch(b->h, on_device, b);
    b->watching = false;
    for (size_t i = 0; i < b->count; i++) {
        bridge_dev_t *d = &b->devs[i];
        link_close(d);
        if (d->retry_init) uv_close((uv_handle_t *)&d->retry, NULL);
        d->retry_init = false;
        if (d->fd >= 0) close(d->fd);
        d->fd = -1;
    }
}

void host_bridge_free(host_bridge_t *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->count; i++) {
        json_decref(b->devs[i].info);
        json_decref(b->devs[i].tools);
        json_decref(b->devs[i].pins);
        host_buf_free(&b->devs[i].in);
    }
    free(b);
}
