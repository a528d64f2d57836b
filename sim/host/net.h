/* net.h: TCP listeners and their connections: byte input to a handler, a bounded write queue. */
#ifndef HOST_NET_H
#define HOST_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cli.h"
#include "fw_json.h"
#include "host.h"

typedef struct host_conn host_conn_t;

/* What a listener does with its connections; every callback runs on the loop thread. */
typedef struct host_server_ops {
    /* A client connected; returns its per-connection state (passed back below). */
    void *(*open)(host_conn_t *conn);
    /* Bytes arrived. Replies go through host_conn_write; they are flushed when this returns. */
    void (*data)(host_conn_t *conn, void *state, const char *data, size_t len);
    /* The connection is gone; free state. */
    void (*close)(host_conn_t *conn, void *state);
    /* Optional: true while answers are still due to the connection (written later with
       host_conn_write and host_conn_flush): a client that ended its input is not closed yet. */
    bool (*busy)(host_conn_t *conn, void *state);
    /* Counted in the host's output budget (host_out_*): input is handed to data() a line at a
       time while the client holds less than its share, and waits unread beyond it. */
    bool budgeted;
} host_server_ops_t;

/*
 * Listens on ep. name labels the log lines ("tcp", "control"). A connection whose unsent output
 * exceeds out_max bytes (a client that does not read) is disconnected with a warning, so it can
 * never hold up the others. On success returns the server and writes the bound address
 * ("127.0.0.1:7000", "[::1]:7000"; the real port when ep->port is 0) to addr; NULL after logging
 * the reason.
 */
struct addrinfo;
/* The first passive (bindable) TCP address of ep, from getaddrinfo (caller frees it with
   freeaddrinfo); NULL with the reason in err. */
struct addrinfo *host_resolve_passive(const host_endpoint_t *ep, char *err, size_t cap);

host_server_t *host_server_open(host_t *h, const char *name, const host_endpoint_t *ep,
                                const host_server_ops_t *ops, size_t out_max, char *addr,
                                size_t addr_cap);

/* Closes the listener and every connection; memory is released by the loop's close callbacks. */
void host_server_close(host_server_t *srv);

host_t *host_conn_host(const host_conn_t *conn);

host_t *host_server_host(const host_server_t *srv);

/* Peer address as text, for log lines. */
const char *host_conn_peer(const host_conn_t *conn);

/* Queues bytes for the client (ignored once the connection is closing or over its limit). */
void host_conn_write(host_conn_t *conn, const char *data, size_t len);

/* Loop thread, outside a data callback (output pushed to other connections, such as device
   notifications): starts writing what conn has queued, or disconnects it with a warning when
   its queue went over the limit. */
void host_conn_flush(host_conn_t *conn);

/* True once conn is being closed (its output is dropped). */
bool host_conn_closing(const host_conn_t *conn);

/* Calls fn for every connection of srv with its state (from ops->open), on the loop thread. */
void host_server_each(host_server_t *srv, void (*fn)(host_conn_t *conn, void *state, void *arg),
                      void *arg);

/* The connection whose input srv's ops->data handles now (its call into the device runs), with
   its state in *state; NULL outside ops->data. A watcher told "not all" drains just this one. */
host_conn_t *host_server_current(const host_server_t *srv, void **state);

/* A sink writing to conn (for fw_device_feed). */
fw_sink_t host_conn_sink(host_conn_t *conn);

#endif
