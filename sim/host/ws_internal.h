/* ws_internal.h: what the WebSocket files share: ws.c (context, /mcp server, notifications),
   ws_conn.c (one connection's messages and output) and ws_dialout.c (the link to a backend). */
#ifndef HOST_WS_INTERNAL_H
#define HOST_WS_INTERNAL_H

#include <libwebsockets.h>
#include <stdbool.h>

#include "buf.h"
#include "host.h"
#include "ws.h"

typedef struct ws_link ws_link_t;

/* One message waiting to be sent: LWS_PRE bytes of headroom, then the text. */
typedef struct ws_frame {
    struct ws_frame *next;
    char *buf;  /* heap, owned */
    size_t len; /* text bytes after the headroom */
} ws_frame_t;

/*
 * One WebSocket connection serving MCP, on either side (an accepted client or the dial-out
 * link). Loop thread only. Frames are written one per writable callback; a connection whose
 * queued output passes HOST_WS_OUT_MAX is killed, never waited for.
 */
typedef struct ws_conn {
    struct ws_conn *prev, *next; /* host_ws_t.conns while open */
    host_ws_t *ws;
    host_t *h; /* the device it serves: ws->h, or a fleet's device (ws_conn_open_device) */
    struct lws *wsi;
    const char *label; /* log prefix: "ws" or "connect" */
    char peer[80];
    bool open;
    fw_session_t session;
    host_buf_t in; /* a message arriving in fragments */
    /* UTF-8 check of the text message arriving (utf8_feed): continuation bytes still due in
       the current character, and the range the next one must be in */
    uint8_t utf8_need, utf8_lo, utf8_hi;
    /* The message being written by the device: LWS_PRE bytes, the envelope's head when wrapped,
       the JSON-RPC text. */
    host_buf_t out;
    bool out_wrap;
    bool out_direct; /* may be written at once when nothing waits (enqueue) */
    ws_frame_t *head, *tail;
    size_t queued; /* text bytes in the frames */
    bool dead;     /* over its output limit: killed, output dropped */
    /* Failed by its input (refuse): no more input is taken, the answers already queued go out,
       then the close frame with fail_code and fail_reason (ws_conn_writable). */
    bool failing;
    bool close_sent; /* fail_now wrote the close frame: waiting for the client to go */
    uint16_t fail_code;
    const char *fail_reason; /* a static string */
    bool paused;   /* over its share of the output budget: not read (lws_rx_flow_control) */
    /* The form of the last message received: notifications are sent the same way. */
    bool envelope;
    char *session_id; /* JSON text of the last envelope's session_id (malloc'd), or NULL */
    unsigned long msgs_in, msgs_out; /* messages handed to the device, and sent (replies, hello) */
} ws_conn_t;

struct host_ws {
    host_t *h;
    host_ws_config_t cfg;
    void *loops[1]; /* lws's foreign loops: the host's one */
    struct lws_context *ctx;
    struct lws_vhost *server; /* the /mcp listener, or NULL */
    struct lws_vhost *client; /* the vhost of the dial-out link, or NULL */
    ws_conn_t *conns;         /* every open connection */
    ws_conn_t *calling;       /* the connection whose message the device handles now */
    ws_link_t *link;
    char bound[300]; /* the listener's host as it appears in its URL ("[::1]" for IPv6) */
    int port;
    bool stopping;
    unsigned live, limit;     /* the listener's open connections, and the most served at once */
    host_refusals_t refused; /* upgrades refused past the limit */
};

/* ---------------------------------------------------------------- ws_conn.c */

/* The connection is established: joins ws->conns with a fresh MCP session. envelope: wrap
   notifications until a message says otherwise (the dial-out link). */
void ws_conn_open(ws_conn_t *c, host_ws_t *ws, struct lws *wsi, const char *label, bool envelope);

/* As ws_conn_open, serving device h instead of ws->h (a fleet's devices share one context). */
void ws_conn_open_device(ws_conn_t *c, host_ws_t *ws, host_t *h, struct lws *wsi,
                         const char *label, bool envelope);

/* LWS_CALLBACK_(CLIENT_)RECEIVE. Returns 0, or -1 to close (the close code already set). */
int ws_conn_receive(ws_conn_t *c, const char *data, size_t len);

/* LWS_CALLBACK_(SERVER|CLIENT)_WRITEABLE: sends the next frame. 0, or -1 to close. */
int ws_conn_writable(ws_conn_t *c);

/* Queues one text frame of the host's own (the dial-out hello). */
void ws_conn_send(ws_conn_t *c, const char *text, size_t len);

/* Loop thread, from the device watcher: sends the session's pending notifications. */
void ws_conn_drain(ws_conn_t *c, host_t *h);

/* The connection is gone: leaves ws->conns, frees its buffers (the struct is the caller's). */
void ws_conn_close(ws_conn_t *c);

/* ---------------------------------------------------------------- ws_dialout.c */

/* The protocols of the dial-out vhost (a static table). */
const struct lws_protocols *ws_link_protocols(void);

/* Creates the link for ws->cfg.connect and starts its first attempt. 0, or -1 after logging. */
int ws_link_start(host_ws_t *ws);

/* Stops reconnecting (the connection itself goes with the context). */
void ws_link_stop(ws_link_t *link);

void ws_link_free(ws_link_t *link);

#endif
