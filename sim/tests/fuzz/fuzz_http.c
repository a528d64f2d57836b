/* fuzz_http.c: the Streamable HTTP transport through libmicrohttpd itself: request line,
   headers, body, chunked encoding, the session, Host, Origin and token checks and the MCP
   handler of sim/host/http.c, on a simulated esp32-demo board (virtual clock).

   Two servers live for the whole run, each a host_t with its own loop and host_http_open on
   127.0.0.1:0: one without authentication, one with --auth-token FUZZ_TOKEN. Input byte 0
   picks the server (bit 0) and how the rest is written (bits 1-3: in 1 to 8 pieces, with the
   loop run between them, so libmicrohttpd parses partial requests). The rest is sent as is over
   a new TCP connection, with "@SID@" replaced by the id of a live session of that server (so
   inputs reach the session paths); the loop runs until the server closed the connection or
   has been quiet, then the client resets it (it never half-closes: see exchange). Properties:
    - no crash, no leak; the server ends every exchange in time (no response still coming
      after ANSWER_WAIT_MS);
    - everything the server sent is a sequence of well-formed HTTP/1.x responses: a status
      line with a code 100-599, "Name: value" header lines, and a body framed by Content-Length,
      by a chunked encoding that ends with its zero-size chunk, or by the close (the last may be
      cut short when the client hung up on an open stream);
    - a request the input sends complete (a plain request line and plain header lines, a body
      of its Content-Length, no Transfer-Encoding or Expect) is answered;
    - the next good request still works: after every input, on the harness's own keep-alive
      connection (a new one when the server closed it), initialize (POST) gets 200 with a
      JSON-RPC result and a new Mcp-Session-Id, and DELETE of the previous live session gets
      200 or 404 (the input may have ended it). The new session is the next input's @SID@. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, strcasestr */
#endif
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz_net.h"
#include "fuzz_sim.h"
#include "host.h"
#include "http.h"
#include "log.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif

#define FUZZ_TOKEN "fuzz-token-0123456789"
#define SID_MARK "@SID@"
/* The most an exchange may take (wall-clock ms, generous under the sanitizers): a server still
   sending after it is stuck. */
#define ANSWER_WAIT_MS 5000
/* Turns of the loop without a byte from the server that end an exchange (the last waits up to
   1 ms): libmicrohttpd answers within the turn that reads the request. */
#define QUIET_TURNS 3

typedef struct http_server {
    host_t host;
    int port;
    int good_fd;   /* the keep-alive connection of the good requests, -1: none yet */
    char sid[128]; /* a live session, "" before the first */
} http_server_t;

static http_server_t servers[2];

/* ---------------------------------------------------------------- set-up */

static void start(http_server_t *s, bool token)
{
    static const char *const plain[] = {"mcpsim",      "--board", "esp32-demo", "--http",
                                        "127.0.0.1:0", "--clock", "virtual",    NULL};
    static const char *const authed[] = {"mcpsim",      "--board", "esp32-demo", "--http",
                                         "127.0.0.1:0", "--clock", "virtual",    "--auth-token",
                                         FUZZ_TOKEN,    NULL};
    const char *const *argv = token ? authed : plain;
    int argc = 0;
    while (argv[argc]) argc++;
    host_options_t o;
    char err[512];
    FUZZ_SIM_CHECK(host_cli_parse(argc, (char *const *)argv, &o, err, sizeof err) == 0,
                   "the harness's command line is refused");
    sim_error_t serr;
    memset(&serr, 0, sizeof serr);
    sim_board_t *b = sim_board_load(MCPSIM_SOURCE_DIR "/sim/boards/esp32-demo.json", &serr);
    FUZZ_SIM_CHECK(b != NULL, "the esp32-demo board does not load");
    sim_t *sim = sim_create(b, SIM_CLOCK_VIRTUAL, &serr);
    FUZZ_SIM_CHECK(sim != NULL, "the esp32-demo board does not boot");
    FUZZ_SIM_CHECK(host_init(&s->host, sim) == 0, "host_init failed");
    s->host.out_budget = (size_t)o.output_budget_mb << 20;
    char url[320];
    s->host.http = host_http_open(&s->host, &o, url, sizeof url);
    FUZZ_SIM_CHECK(s->host.http != NULL, "host_http_open failed");
    const char *colon = strrchr(url, ':');
    FUZZ_SIM_CHECK(colon != NULL && sscanf(colon + 1, "%d", &s->port) == 1, "no port in the URL");
    s->good_fd = -1;
}

static http_server_t *server(bool token)
{
    static bool started;
    if (!started) {
        host_log_set_level(HOST_LOG_ERROR); /* refusals are the normal case here */
        start(&servers[0], false);
        start(&servers[1], true);
        started = true;
    }
    return &servers[token ? 1 : 0];
}

/* ---------------------------------------------------------------- the client */

static size_t count_complete(const fuzz_net_rx_t *r);

/*
 * Writes data in pieces (the loop running in between) and runs the loop until the server
 * closed, until `want` (> 0) whole responses came, or (want 0) until it has been quiet for
 * QUIET_TURNS turns; then resets the connection (SO_LINGER 0) and lets the server see it, unless
 * keep is given: its connection (a new one when *keep < 0) is used and, still open, kept in
 * *keep. What the server sent is in r (NUL-terminated). True when the server closed.
 *
 * The client never half-closes: when a request and the FIN arrive in one read, libmicrohttpd
 * (0.9.75, epoll, edge-triggered) answers and then never notices the FIN, so the connection
 * stays until its timeout (docs/fuzzing.md); a reset is always noticed.
 */
static bool exchange(http_server_t *s, const char *data, size_t len, unsigned pieces,
                     fuzz_net_rx_t *r, size_t want, int *keep)
{
    int fd = keep && *keep >= 0 ? *keep : fuzz_net_connect(s->port);
    size_t off = 0;
    bool closed = false;
    for (unsigned i = 0; i < pieces && !closed; i++) {
        size_t end = i + 1 == pieces ? len : len * (i + 1) / pieces;
        while (off < end && !closed) {
            ssize_t n = send(fd, data + off, end - off, MSG_NOSIGNAL);
            if (n > 0) {
                off += (size_t)n;
            } else if (n < 0 && (errno == EAGAIN || errno == EINTR || errno == ENOTCONN)) {
                fuzz_net_turn(&s->host.loop, fd, 10);
                closed = fuzz_net_drain(fd, r);
            } else {
                closed = true; /* the server closed early (a refusal): the rest is not sent */
            }
        }
        fuzz_net_turn(&s->host.loop, fd, 0);
        closed = closed || fuzz_net_drain(fd, r);
    }
    uint64_t deadline = fuzz_net_ms_now() + ANSWER_WAIT_MS;
    unsigned quiet = 0;
    while (!closed && (want > 0 ? count_complete(r) < want : quiet < QUIET_TURNS)) {
        if (fuzz_net_ms_now() >= deadline) {
            fprintf(stderr, "fuzz: no end after %d ms (%zu bytes came): %.300s\n", ANSWER_WAIT_MS,
                    r->len, r->data ? (const char *)r->data : "");
            abort();
        }
        size_t before = r->len;
        /* the server answers within the turn that reads the request: quiet turns need not
           sleep, but the last waits a little for anything still on its way */
        fuzz_net_turn(&s->host.loop, fd, want > 0 ? 2 : quiet + 1 < QUIET_TURNS ? 0 : 1);
        closed = fuzz_net_drain(fd, r);
        quiet = r->len == before ? quiet + 1 : 0;
    }
    if (keep && !closed) { /* kept for the next good requests */
        *keep = fd;
        return closed;
    }
    if (keep) *keep = -1;
    struct linger lg = {1, 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
    for (int i = 0; i < 4; i++)
        fuzz_net_turn(&s->host.loop, -1, 0); /* the server sees the reset, closes its end */
    return closed;
}

/* ---------------------------------------------------------------- the response oracle */

typedef struct response {
    unsigned status;
    const char *head; /* header lines, "\r\n" separated */
    size_t head_len;
    const char *body;
    size_t body_len;
    bool framed; /* the body's end is known (a length, chunks, none): not "to the close" */
} response_t;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of header name in head[0..len), or NULL (the pointer is into head, ended by CR). */
static const char *header_in(const char *head, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = head; p < head + len;) {
        const char *eol = memmem(p, (size_t)(head + len - p), "\r\n", 2);
        if (!eol) eol = head + len;
        if ((size_t)(eol - p) > n && strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1;
            while (v < eol && (*v == ' ' || *v == '\t')) v++;
            return v;
        }
        p = eol + 2;
    }
    return NULL;
}

/*
 * Parses one response at *p (up to end); false when what is there is not a well-formed one
 * (what: why). A body without a length runs to the end; so does a HEAD answer's length when
 * head_sent (then only the headers are judged).
 */
static bool parse_response(const char **p, const char *end, bool head_sent, response_t *out,
                           const char **what)
{
    const char *s = *p;
    if (end - s < 12 || strncmp(s, "HTTP/1.", 7) != 0 || (s[7] != '0' && s[7] != '1') ||
        s[8] != ' ' || !is_digit(s[9]) || !is_digit(s[10]) || !is_digit(s[11])) {
        *what = "a status line";
        return false;
    }
    out->status = (unsigned)((s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0'));
    if (out->status < 100 || out->status > 599) {
        *what = "a status code";
        return false;
    }
    const char *eol = memmem(s, (size_t)(end - s), "\r\n", 2);
    if (!eol) {
        *what = "the status line's end";
        return false;
    }
    const char *hend = memmem(s, (size_t)(end - s), "\r\n\r\n", 4);
    if (!hend) {
        *what = "the end of the headers";
        return false;
    }
    out->head = eol + 2;
    out->head_len = hend > eol ? (size_t)(hend - (eol + 2)) : 0;
    for (const char *l = out->head; l < hend;) {
        const char *le = memmem(l, (size_t)(hend + 2 - l), "\r\n", 2);
        const char *colon = memchr(l, ':', (size_t)(le - l));
        if (!colon || colon == l) {
            *what = "a header line";
            return false;
        }
        l = le + 2;
    }
    const char *b = hend + 4;
    const char *te = header_in(out->head, out->head_len, "Transfer-Encoding");
    const char *cl = header_in(out->head, out->head_len, "Content-Length");
    out->body = b;
    out->framed = true;
    if (out->status < 200 || out->status == 204 || out->status == 304 || head_sent) {
        out->body_len = 0;
        *p = head_sent && !cl && !te ? end : b;
        out->framed = !(head_sent && !cl && !te);
        return true;
    }
    if (te && strncasecmp(te, "chunked", 7) == 0) {
        const char *q = b;
        for (;;) {
            char *num_end;
            errno = 0;
            unsigned long n = strtoul(q, &num_end, 16);
            if (num_end == q || errno) {
                *what = memmem(q, (size_t)(end - q), "\r\n", 2) ? "a chunk size" : "a whole chunk";
                return false;
            }
            const char *ce = memmem(num_end, (size_t)(end - num_end), "\r\n", 2);
            if (!ce || n > (unsigned long)(end - (ce + 2))) {
                *what = "a whole chunk";
                return false;
            }
            q = ce + 2 + n;
            if (n == 0) {
                /* optional trailers, then the empty line */
                while (q < end && strncmp(q, "\r\n", 2) != 0) {
                    const char *te2 = memmem(q, (size_t)(end - q), "\r\n", 2);
                    if (!te2) break;
                    q = te2 + 2;
                }
                if (end - q < 2 || strncmp(q, "\r\n", 2) != 0) {
                    *what = "the end of the chunked body";
                    return false;
                }
                out->body_len = (size_t)(q - b);
                *p = q + 2;
                return true;
            }
            if (end - q < 2) {
                *what = "a whole chunk";
                return false;
            }
            if (strncmp(q, "\r\n", 2) != 0) {
                *what = "a chunk's CRLF";
                return false;
            }
            q += 2;
        }
    }
    if (cl) {
        char *num_end;
        unsigned long long n = strtoull(cl, &num_end, 10);
        if (num_end == cl || n > (unsigned long long)(end - b)) {
            *what = "a body of its Content-Length";
            return false;
        }
        out->body_len = (size_t)n;
        *p = b + n;
        return true;
    }
    out->body_len = (size_t)(end - b); /* to the close: an event stream, HTTP/1.0 */
    out->framed = false;
    *p = end;
    return true;
}

/* At p: libmicrohttpd's own refusal (a 4xx or 5xx with its HTML page: "Request malformed",
   "Request content too large"...) with its header block sent twice, then the page. It closes
   the connection after it. */
static bool mhd_doubled_error(const char *p, const char *end)
{
    if (end - p < 13 || strncmp(p, "HTTP/1.1 ", 9) != 0 || (p[9] != '4' && p[9] != '5'))
        return false;
    const char *h1 = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
    if (!h1) return false;
    size_t block = (size_t)(h1 + 4 - p);
    const char *page = h1 + 4 + block;
    return (size_t)(end - (h1 + 4)) >= block + 19 && memcmp(h1 + 4, p, block) == 0 &&
           strncmp(page, "<html><head><title>", 19) == 0;
}

/* Whether a parse failure (what) only says that the data ended early. */
static bool cut_short(const char *what, const char *at, const char *end)
{
    static const char *const partial[] = {"the end of the headers", "a whole chunk",
                                          "a body of its Content-Length",
                                          "the end of the chunked body", "the status line's end"};
    for (size_t i = 0; i < sizeof partial / sizeof partial[0]; i++)
        if (strcmp(what, partial[i]) == 0) return true;
    if (strcmp(what, "a status line") == 0)
        return end - at < 12 && strncmp(at, "HTTP/1.1 200", (size_t)(end - at)) <= 0;
    return false;
}

/* Whether a response may follow at p: the end, or the start of a status line. */
static bool next_ok(const char *p, const char *end)
{
    size_t n = (size_t)(end - p) < 7 ? (size_t)(end - p) : 7;
    return strncmp(p, "HTTP/1.", n) == 0;
}

/* Every byte in r is a well-formed response (when the client cut the connection, the last may
   be cut short); returns how many whole ones there were. With head_sent (a HEAD request may be
   among those sent) a response may also be a HEAD answer: headers only. */
static size_t check_responses(const fuzz_net_rx_t *r, bool head_sent, bool server_closed)
{
    const char *p = (const char *)r->data, *end = p + r->len;
    size_t n = 0;
    while (r->len > 0 && p < end) {
        response_t resp;
        const char *what = "";
        const char *at = p;
        if (mhd_doubled_error(at, end)) {
            /* libmicrohttpd 0.9.75 sends the header block of its own refusals (400 for two
               Content-Length headers, one not a number; 413 for a length past 64 bits) twice,
               then its page: not judged further, it is the last (docs/fuzzing.md) */
            n++;
            break;
        }
        bool ok = parse_response(&p, end, false, &resp, &what) && next_ok(p, end);
        if (!ok && head_sent) {
            p = at;
            ok = parse_response(&p, end, true, &resp, &what) && next_ok(p, end);
        }
        if (!ok) {
            if (!server_closed && cut_short(what, at, end)) break;
            fprintf(stderr, "fuzz: response %zu: not well-formed (%s): %.300s\n", n + 1, what, at);
            abort();
        }
        n++;
    }
    return n;
}

/* How many whole responses r holds (one with a body to the close is not whole yet). */
static size_t count_complete(const fuzz_net_rx_t *r)
{
    const char *p = (const char *)r->data, *end = p + r->len;
    size_t n = 0;
    while (r->len > 0 && p < end) {
        response_t resp;
        const char *what;
        if (!parse_response(&p, end, false, &resp, &what) || !resp.framed) break;
        n++;
    }
    return n;
}

/* ---------------------------------------------------------------- the request side */

static bool tchar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_';
}

/*
 * Whether data[0..len) begins with a request sent whole and plainly: "METHOD /target
 * HTTP/1.x", header lines "Name: value" of printable characters, the empty line, no
 * Transfer-Encoding or Expect, and as much body as one Content-Length says.
 */
static bool complete_request(const char *d, size_t len)
{
    const char *end = d + len;
    const char *eol = memmem(d, len, "\r\n", 2);
    if (!eol) return false;
    const char *sp = memchr(d, ' ', (size_t)(eol - d));
    if (!sp || sp == d) return false;
    for (const char *c = d; c < sp; c++)
        if (*c < 'A' || *c > 'Z') return false;
    const char *t = sp + 1;
    const char *sp2 = memchr(t, ' ', (size_t)(eol - t));
    if (!sp2 || *t != '/' || eol - sp2 != 9 || strncmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
        (sp2[8] != '0' && sp2[8] != '1'))
        return false;
    for (const char *c = t; c < sp2; c++)
        if (*c <= ' ' || *c >= 127) return false;
    const char *l = eol + 2;
    unsigned long long body = 0;
    int lengths = 0;
    for (;;) {
        const char *le = memmem(l, (size_t)(end - l), "\r\n", 2);
        if (!le) return false;
        if (le == l) {
            l += 2;
            break;
        }
        const char *c = l;
        while (c < le && tchar(*c)) c++;
        if (c == l || c + 1 >= le || c[0] != ':' || c[1] != ' ') return false;
        for (const char *v = c + 2; v < le; v++)
            if (*v < ' ' || *v >= 127) return false;
        size_t nlen = (size_t)(c - l);
        if ((nlen == 17 && strncasecmp(l, "Transfer-Encoding", 17) == 0) ||
            (nlen == 6 && strncasecmp(l, "Expect", 6) == 0))
            return false;
        if (nlen == 14 && strncasecmp(l, "Content-Length", 14) == 0) {
            const char *v = c + 2;
            if (v == le || le - v > 9) return false;
            for (const char *q = v; q < le; q++)
                if (!is_digit(*q)) return false;
            body = strtoull(v, NULL, 10);
            lengths++;
        }
        l = le + 2;
    }
    return lengths <= 1 && body <= (unsigned long long)(end - l);
}

/* data with every SID_MARK replaced by sid (malloc'd; *out_len its length). */
static char *substitute(const uint8_t *data, size_t len, const char *sid, size_t *out_len)
{
    size_t sl = strlen(sid), ml = strlen(SID_MARK), n = 0;
    for (const uint8_t *p = data; (p = memmem(p, len - (size_t)(p - data), SID_MARK, ml));)
        n++, p += ml;
    char *out = malloc(len + n * sl + 1);
    FUZZ_SIM_CHECK(out != NULL, "out of memory");
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (len - i >= ml && memcmp(data + i, SID_MARK, ml) == 0) {
            memcpy(out + o, sid, sl);
            o += sl;
            i += ml;
        } else {
            out[o++] = (char)data[i++];
        }
    }
    out[o] = 0;
    *out_len = o;
    return out;
}

/* ---------------------------------------------------------------- the good request */

static const char init_body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}";

/* initialize, then DELETE of the previous session, on the keep-alive connection of the good
   requests; keeps the new session. */
static void check_good_request(http_server_t *s, bool token)
{
    char req[2048];
    const char *auth = token ? "Authorization: Bearer " FUZZ_TOKEN "\r\n" : "";
    int n = snprintf(req, sizeof req,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\n\r\n%s",
                     auth, sizeof init_body - 1, init_body);
    if (s->sid[0])
        n += snprintf(req + n, sizeof req - (size_t)n,
                      "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n%sMcp-Session-Id: %s\r\n\r\n",
                      auth, s->sid);
    fuzz_net_rx_t r = {0};
    bool closed = exchange(s, req, (size_t)n, 1, &r, s->sid[0] ? 2 : 1, &s->good_fd);
    size_t count = check_responses(&r, false, closed);
    FUZZ_SIM_CHECK(count == (s->sid[0] ? 2u : 1u), "the good requests were not all answered");
    const char *p = (const char *)r.data;
    response_t init;
    const char *what;
    (void)parse_response(&p, (const char *)r.data + r.len, false, &init, &what);
    if (init.status != 200) {
        fprintf(stderr, "fuzz: initialize after the input: %.400s\n", (const char *)r.data);
        abort();
    }
    json_t *doc = json_loadb(init.body, init.body_len, 0, NULL);
    FUZZ_SIM_CHECK(doc != NULL && json_object_get(doc, "result") != NULL,
                   "initialize after the input: no JSON-RPC result");
    json_decref(doc);
    const char *sid = header_in(init.head, init.head_len, "Mcp-Session-Id");
    FUZZ_SIM_CHECK(sid != NULL, "initialize after the input: no Mcp-Session-Id");
    size_t sl = strcspn(sid, "\r");
    FUZZ_SIM_CHECK(sl > 0 && sl < sizeof s->sid, "initialize after the input: a bad session id");
    if (s->sid[0]) {
        response_t del;
        (void)parse_response(&p, (const char *)r.data + r.len, false, &del, &what);
        FUZZ_SIM_CHECK(del.status == 200 || del.status == 204 || del.status == 404,
                       "DELETE of the previous session: neither ended nor unknown");
    }
    memcpy(s->sid, sid, sl);
    s->sid[sl] = 0;
    free(r.data);
}

/* ---------------------------------------------------------------- the harness */

int fuzz_sim_http(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 16384) return 0;
    bool token = data[0] & 1u;
    unsigned pieces = 1u + ((data[0] >> 1) & 7u);
    http_server_t *s = server(token);
    if (!s->sid[0]) check_good_request(s, token);
    size_t len;
    char *req = substitute(data + 1, size - 1, s->sid, &len);
    fuzz_net_rx_t r = {0};
    bool closed = exchange(s, req, len, pieces, &r, 0, NULL);
    /* a request may start anywhere, right after a body too (its last bytes need not be a
       line's end): any "HEAD " may be one */
    bool head_sent = memmem(req, len, "HEAD ", 5) != NULL;
    (void)check_responses(&r, head_sent, closed);
    if (complete_request(req, len) && r.len == 0) {
        fprintf(stderr, "fuzz: a complete request got no response: %.300s\n", req);
        abort();
    }
    free(r.data);
    free(req);
    check_good_request(s, token);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_sim_http(data, size);
}
#endif
