/* ws_peer.h: a small synchronous WebSocket peer for the integration tests: a client of mcpsim's
   /mcp, and the local backend its dial-out link connects to (RFC 6455, every wait bounded). */
#ifndef WS_PEER_H
#define WS_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Opcodes (RFC 6455 5.2), and what ws_peer_recv returns when nothing came. */
#define WS_OP_CONT 0x0
#define WS_OP_TEXT 0x1
#define WS_OP_BINARY 0x2
#define WS_OP_CLOSE 0x8
#define WS_OP_PING 0x9
#define WS_OP_PONG 0xa
#define WS_NOTHING (-1) /* timeout, or the connection ended without a close frame */

typedef struct ws_peer {
    int fd;
    bool client;        /* a client masks what it sends, a server does not */
    unsigned char *buf; /* received bytes not yet taken (heap) */
    size_t len, cap;
} ws_peer_t;

/*
 * Client: connects to 127.0.0.1:port and asks to upgrade path, with extra header lines
 * ("Name: value", NULL-terminated list, or NULL). host is the Host header (NULL: 127.0.0.1:port).
 * Returns the HTTP status of the answer (101 when upgraded) and the head of the answer in
 * response (if not NULL). *out is the connection when upgraded, else NULL (closed).
 */
int ws_peer_connect(int port, const char *path, const char *host, const char *const *headers,
                    ws_peer_t **out, char *response, size_t cap);

/* As ws_peer_connect for path /mcp without extra headers; asserts the upgrade (101). */
ws_peer_t *ws_peer_open(int port);

/* Server (the backend): a listening socket on 127.0.0.1, the port chosen by the OS in *port. */
int ws_peer_listen(int *port);

/*
 * Accepts one connection within timeout_s and reads its upgrade request (copied to request).
 * status 101 completes the upgrade and returns the peer; any other status is answered with a
 * short body and the connection closed (NULL returned). NULL too when nobody came in time.
 */
ws_peer_t *ws_peer_accept(int listen_fd, double timeout_s, int status, char *request, size_t cap);

/* Sends one frame (fin false: more fragments follow). */
void ws_peer_send_frame(ws_peer_t *p, int opcode, bool fin, const void *data, size_t len);

void ws_peer_send_text(ws_peer_t *p, const char *text);

/* Sends a close frame with code (and no reason). */
void ws_peer_send_close(ws_peer_t *p, int code);

/*
 * Next message within timeout_s: TEXT or BINARY (fragments joined; *data malloc'd and
 * NUL-terminated, *len its length), CLOSE (*close_code set, 1005 when the frame had none), or
 * WS_NOTHING. Pings are answered on the way.
 */
int ws_peer_recv(ws_peer_t *p, double timeout_s, char **data, size_t *len, int *close_code);

/* Next message, asserted to be a text frame holding JSON (parsed). */
json_t *ws_peer_recv_json(ws_peer_t *p, double timeout_s);

/* True when nothing arrives within timeout_s (the connection stays open and quiet). */
bool ws_peer_quiet(ws_peer_t *p, double timeout_s);

void ws_peer_close(ws_peer_t *p);

#endif
