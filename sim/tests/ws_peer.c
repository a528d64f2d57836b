/* ws_peer.c: a small synchronous WebSocket peer for the integration tests: a client of mcpsim's
   /mcp, and the local backend its dial-out link connects to (RFC 6455, every wait bounded). */
#include "ws_peer.h"

#include <check.h>
#include <errno.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "it_util.h"

/* RFC 6455 4.2.2: the key's answer is base64(SHA-1(key + this GUID)). */
static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
static const char client_key[] = "dGhlIHNhbXBsZSBub25jZQ==";

static int remaining_ms(double deadline)
{
    double left = deadline - it_now();
    return left <= 0 ? 0 : (int)(left * 1000.0) + 1;
}

static ws_peer_t *peer_new(int fd, bool client)
{
    ws_peer_t *p = calloc(1, sizeof *p);
    ck_assert_ptr_nonnull(p);
    p->fd = fd;
    p->client = client;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return p;
}

void ws_peer_close(ws_peer_t *p)
{
    if (!p) return;
    close(p->fd);
    free(p->buf);
    free(p);
}

/* Reads until at least need bytes are buffered; false on timeout or end of stream. */
static bool fill(ws_peer_t *p, size_t need, double deadline)
{
    while (p->len < need) {
        if (p->cap < need || p->cap - p->len < 4096) {
            p->cap = (need > p->cap * 2 ? need : p->cap * 2) + 65536;
            p->buf = realloc(p->buf, p->cap);
            ck_assert_ptr_nonnull(p->buf);
        }
        struct pollfd pfd = {p->fd, POLLIN, 0};
        if (poll(&pfd, 1, remaining_ms(deadline)) != 1) return false;
        ssize_t n = read(p->fd, p->buf + p->len, p->cap - p->len);
        if (n <= 0) return false;
        p->len += (size_t)n;
    }
    return true;
}

static void consume(ws_peer_t *p, size_t n)
{
    memmove(p->buf, p->buf + n, p->len - n);
    p->len -= n;
}

static void send_all(int fd, const void *data, size_t len)
{
    const char *s = data;
    while (len > 0) {
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
        ck_assert_msg(n > 0 || errno == EINTR, "send: %s", strerror(errno));
        if (n > 0) {
            s += n;
            len -= (size_t)n;
        }
    }
}

/* Reads an HTTP head (up to the empty line) into out; its length, or 0 on timeout. */
static size_t read_head(ws_peer_t *p, char *out, size_t cap, double deadline)
{
    for (size_t need = 1;; need = p->len + 1) {
        char *end = p->len ? memmem(p->buf, p->len, "\r\n\r\n", 4) : NULL;
        if (end) {
            size_t n = (size_t)(end - (char *)p->buf) + 4;
            size_t copy = n < cap ? n : cap - 1;
            memcpy(out, p->buf, copy);
            out[copy] = 0;
            consume(p, n);
            return n;
        }
        if (!fill(p, need, deadline)) return 0;
    }
}

/* ---------------------------------------------------------------- client */

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect to %d: %s", port,
                  strerror(errno));
    return fd;
}

int ws_peer_connect(int port, const char *path, const char *host, const char *const *headers,
                    ws_peer_t **out, char *response, size_t cap)
{
    char req[4096], head[4096], host_buf[64];
    if (!host) {
        snprintf(host_buf, sizeof host_buf, "127.0.0.1:%d", port);
        host = host_buf;
    }
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n",
                     path, host, client_key);
    for (size_t i = 0; headers && headers[i]; i++)
        n += snprintf(req + n, sizeof req - (size_t)n, "%s\r\n", headers[i]);
    n += snprintf(req + n, sizeof req - (size_t)n, "\r\n");
    ck_assert_int_lt(n, (int)sizeof req);
    ws_peer_t *p = peer_new(tcp_connect(port), true);
    send_all(p->fd, req, (size_t)n);
    ck_assert_msg(read_head(p, head, sizeof head, it_now() + IT_TIMEOUT) > 0,
                  "no answer to the upgrade of %s", path);
    if (response) snprintf(response, cap, "%s", head);
    int status = 0;
    ck_assert_int_eq(sscanf(head, "HTTP/1.%*d %d", &status), 1);
    if (status == 101) {
        *out = p;
    } else {
        *out = NULL;
        ws_peer_close(p);
    }
    return status;
}

ws_peer_t *ws_peer_open(int port)
{
    ws_peer_t *p = NULL;
    char head[4096];
    int status = ws_peer_connect(port, "/mcp", NULL, NULL, &p, head, sizeof head);
    ck_assert_msg(status == 101, "upgrade refused: %s", head);
    return p;
}

/* ---------------------------------------------------------------- server */

int ws_peer_listen(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)*port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
    ck_assert_int_eq(listen(fd, 8), 0);
    socklen_t sl = sizeof a;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* The value of header name in an HTTP head ("" when absent), case-insensitive name. */
static void header_value(const char *head, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    out[0] = 0;
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
        const char *s = line + 2;
        if (strncasecmp(s, name, n) != 0 || s[n] != ':') continue;
        s += n + 1;
        s += strspn(s, " ");
        snprintf(out, cap, "%.*s", (int)strcspn(s, "\r"), s);
        return;
    }
}

static void answer_upgrade(ws_peer_t *p, const char *request)
{
    char key[128], joined[256], answer[512];
    unsigned char sha[20];
    char accept[64];
    header_value(request, "Sec-WebSocket-Key", key, sizeof key);
    ck_assert_str_ne(key, "");
    snprintf(joined, sizeof joined, "%s%s", key, ws_guid);
    lws_SHA1((const unsigned char *)joined, strlen(joined), sha);
    ck_assert_int_gt(lws_b64_encode_string((const char *)sha, 20, accept, sizeof accept), 0);
    int n = snprintf(answer, sizeof answer,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                     accept);
    send_all(p->fd, answer, (size_t)n);
}

ws_peer_t *ws_peer_accept(int listen_fd, double timeout_s, int status, char *request, size_t cap)
{
    double deadline = it_now() + timeout_s;
    struct pollfd pfd = {listen_fd, POLLIN, 0};
    if (poll(&pfd, 1, remaining_ms(deadline)) != 1) return NULL;
    int fd = accept(listen_fd, NULL, NULL);
    ck_assert_int_ge(fd, 0);
    ws_peer_t *p = peer_new(fd, false);
    char head[4096];
    ck_assert_msg(read_head(p, head, sizeof head, it_now() + IT_TIMEOUT) > 0,
                  "no upgrade request from the connecting client");
    if (request) snprintf(request, cap, "%s", head);
    if (status == 101) {
        answer_upgrade(p, head);
        return p;
    }
    char answer[256];
    int n = snprintf(
        answer, sizeof answer,
        "HTTP/1.1 %d Refused\r\nContent-Length: 8\r\nConnection: close\r\n\r\nrefused\n", status);
    send_all(fd, answer, (size_t)n);
    ws_peer_close(p);
    return NULL;
}

/* ---------------------------------------------------------------- frames */

void ws_peer_send_frame(ws_peer_t *p, int opcode, bool fin, const void *data, size_t len)
{
    static const unsigned char mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    unsigned char head[14];
    size_t h = 0;
    head[h++] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0f));
    unsigned char m = p->client ? 0x80 : 0;
    if (len < 126) {
        head[h++] = (unsigned char)(m | len);
    } else if (len < 65536) {
        head[h++] = m | 126;
        head[h++] = (unsigned char)(len >> 8);
        head[h++] = (unsigned char)len;
    } else {
        head[h++] = m | 127;
        for (int i = 7; i >= 0; i--) head[h++] = (unsigned char)((uint64_t)len >> (8 * i));
    }
    if (p->client) {
        memcpy(head + h, mask, 4);
        h += 4;
    }
    unsigned char *frame = malloc(h + len + 1);
    ck_assert_ptr_nonnull(frame);
    memcpy(frame, head, h);
    for (size_t i = 0; i < len; i++)
        frame[h + i] = ((const unsigned char *)data)[i] ^ (p->client ? mask[i % 4] : 0);
    send_all(p->fd, frame, h + len);
    free(frame);
}

void ws_peer_send_text(ws_peer_t *p, const char *text)
{
    ws_peer_send_frame(p, WS_OP_TEXT, true, text, strlen(text));
}

void ws_peer_send_close(ws_peer_t *p, int code)
{
    unsigned char c[2] = {(unsigned char)(code >> 8), (unsigned char)code};
    ws_peer_send_frame(p, WS_OP_CLOSE, true, c, 2);
}

/* One frame: its opcode, fin bit and (unmasked) payload, or false on timeout. */
static bool read_frame(ws_peer_t *p, double deadline, int *op, bool *fin, unsigned char **payload,
                       size_t *plen)
{
    if (!fill(p, 2, deadline)) return false;
    size_t h = 2;
    uint64_t n = p->buf[1] & 0x7f;
    bool masked = p->buf[1] & 0x80;
    if (n >= 126) {
        size_t ext = n == 126 ? 2 : 8;
        if (!fill(p, 2 + ext, deadline)) return false;
        n = 0;
        for (size_t i = 0; i < ext; i++) n = n << 8 | p->buf[2 + i];
        h += ext;
    }
    if (masked) h += 4;
    if (!fill(p, h + (size_t)n, deadline)) return false;
    *op = p->buf[0] & 0x0f;
    *fin = p->buf[0] & 0x80;
    *plen = (size_t)n;
    *payload = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(*payload);
    for (size_t i = 0; i < n; i++)
        (*payload)[i] = p->buf[h + i] ^ (masked ? p->buf[h - 4 + i % 4] : 0);
    (*payload)[n] = 0;
    consume(p, h + (size_t)n);
    return true;
}

int ws_peer_recv(ws_peer_t *p, double timeout_s, char **data, size_t *len, int *close_code)
{
    double deadline = it_now() + timeout_s;
    char *msg = NULL;
    size_t msg_len = 0;
    int msg_op = WS_NOTHING;
    for (;;) {
        int op;
        bool fin;
        unsigned char *payload;
        size_t n;
        if (!read_frame(p, deadline, &op, &fin, &payload, &n)) {
            free(msg);
            return WS_NOTHING;
        }
        if (op == WS_OP_PING) {
            ws_peer_send_frame(p, WS_OP_PONG, true, payload, n);
        } else if (op == WS_OP_CLOSE) {
            if (close_code) *close_code = n >= 2 ? payload[0] << 8 | payload[1] : 1005;
            free(payload);
            free(msg);
            return WS_OP_CLOSE;
        } else if (op != WS_OP_PONG) {
            if (op != WS_OP_CONT) msg_op = op;
            msg = realloc(msg, msg_len + n + 1);
            ck_assert_ptr_nonnull(msg);
            memcpy(msg + msg_len, payload, n + 1);
            msg_len += n;
            if (fin) {
                free(payload);
                *data = msg;
                if (len) *len = msg_len;
                return msg_op;
            }
        }
        free(payload);
    }
}

json_t *ws_peer_recv_json(ws_peer_t *p, double timeout_s)
{
    char *data = NULL;
    int code = 0;
    int op = ws_peer_recv(p, timeout_s, &data, NULL, &code);
    ck_assert_msg(op == WS_OP_TEXT, "expected a text message, got opcode %d (close code %d)", op,
                  code);
    json_error_t err;
    json_t *j = json_loads(data, 0, &err);
    ck_assert_msg(j != NULL, "not JSON: %s", data);
    free(data);
    return j;
}

bool ws_peer_quiet(ws_peer_t *p, double timeout_s)
{
    if (p->len > 0) return false;
    struct pollfd pfd = {p->fd, POLLIN, 0};
    return poll(&pfd, 1, (int)(timeout_s * 1000)) == 0;
}
