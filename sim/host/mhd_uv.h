/* mhd_uv.h: a libmicrohttpd daemon driven from the host's libuv loop (no threads of its own),
   and parked connections: suspended until their answer or their stream has something to send. */
#ifndef HOST_MHD_UV_H
#define HOST_MHD_UV_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

/*
 * The daemon runs in libmicrohttpd's external-polling mode with its own epoll set
 * (host_mhd_flags): a uv_poll watches that set's fd, and a uv_timer follows
 * MHD_get_timeout64; both call MHD_run. Every libmicrohttpd callback therefore runs on the loop
 * thread, and must never block: a request or a stream with nothing to send yet parks its
 * connection (MHD_suspend_connection) and is resumed (host_mhd_unpark) when it has.
 */
typedef struct host_mhd host_mhd_t;

/* The flags a daemon driven by host_mhd_start is started with (plus the caller's own). */
#define HOST_MHD_FLAGS (MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG)

/* Loop thread: drives daemon d (started with HOST_MHD_FLAGS) from loop. NULL when libmicrohttpd
   gives no epoll fd. */
host_mhd_t *host_mhd_start(uv_loop_t *loop, struct MHD_Daemon *d, const char *name);

/* Runs the daemon soon (on the next loop iteration): after something resumed a connection. */
void host_mhd_kick(host_mhd_t *m);

/* Loop thread: resumes every parked connection, stops the daemon (its connections close, their
   responses' free callbacks run now) and frees m once libuv has closed its handles. */
void host_mhd_stop(host_mhd_t *m);

/*
 * A connection that may wait: a POST whose device answers later, an event stream with nothing
 * to send. Parking suspends the connection; it is resumed by host_mhd_unpark, when the timeout
 * given to host_mhd_park passes, or (watch_fd >= 0) when the client hangs up, and then
 * libmicrohttpd calls the request's handler or the response's content reader again. A content
 * reader parks and returns 0 in the same call: it never busy-waits.
 */
typedef struct host_mhd_park host_mhd_park_t;

/* A park for connection c (fd: its socket, watched for the client's hang-up while parked; -1:
   not watched). Freed by host_mhd_park_free. */
host_mhd_park_t *host_mhd_park_new(host_mhd_t *m, struct MHD_Connection *c, int fd);

/* Suspends the connection until unparked, or for at most timeout_ms (0: no timeout). */
void host_mhd_park(host_mhd_park_t *p, uint64_t timeout_ms);

/* Resumes the connection if it is parked (else nothing). */
void host_mhd_unpark(host_mhd_park_t *p);

/* True once the client closed its end while the connection was parked. */
bool host_mhd_park_hung_up(const host_mhd_park_t *p);

/* The response using the park is going away (never while parked): frees it. */
void host_mhd_park_free(host_mhd_park_t *p);

#endif
