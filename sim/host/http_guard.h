/* http_guard.h: the HTTP server's defence against slow and silent clients: deadlines for a
   request's header and body, the connection limits, and a log of what was refused. */
#ifndef HOST_HTTP_GUARD_H
#define HOST_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdbool.h>

#include "host.h"

/* A connection must send a whole request header within this long of connecting (or of its
   previous request ending, plus the idle timeout), and a POST its whole body within
   HOST_HTTP_BODY_S of its header; past that it is closed. */
#define HOST_HTTP_HEADER_S 10u
#define HOST_HTTP_BODY_S 30u

/* Most HTTP connections at once, whatever the open-files limit allows. */
#define HOST_HTTP_CONN_CAP 2048u

typedef struct http_guard http_guard_t;

/*
 * Loop thread: a guard for one libmicrohttpd daemon. conn_max is the connection limit (see
 * http_guard_conn_limit), per_address the cap for one client address (0: conn_max * 3 / 4),
 * idle_s the daemon's idle timeout. A timer on h's loop closes connections past their deadline
 * and logs, at most once a second, how many connections were closed or refused.
 */
http_guard_t *http_guard_open(host_t *h, unsigned conn_max, unsigned per_address,
                              unsigned idle_s);

/* Loop thread, after MHD_stop_daemon: stops the timer and frees the guard. */
void http_guard_close(http_guard_t *g);

/* The connection limit the open-files limit allows: half of RLIMIT_NOFILE's soft limit (the
   rest for the other transports, files and libmicrohttpd's own), at most HOST_HTTP_CONN_CAP. */
unsigned http_guard_conn_limit(void);

/* The per-address cap in force. */
unsigned http_guard_per_address(const http_guard_t *g);

/* MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the guard): tracks each connection. */
void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);

/* Inside a libmicrohttpd callback of connection c (loop thread). */
void http_guard_headers_done(struct MHD_Connection *c, bool body_follows); /* request line and
                                                                  headers are in */
void http_guard_body_done(struct MHD_Connection *c);    /* the POST body is complete */
void http_guard_request_done(struct MHD_Connection *c); /* the answer was sent */

/* libmicrohttpd's log line msg (loop thread); true when it was a refused connection (counted and
   summarised by the guard instead of logged one by one). */
bool http_guard_log(http_guard_t *g, const char *msg);

#endif
