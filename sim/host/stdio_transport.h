/* stdio_transport.h: the MCP stdio transport: newline-delimited JSON-RPC on stdin and stdout, one
 * session. */
#ifndef HOST_STDIO_TRANSPORT_H
#define HOST_STDIO_TRANSPORT_H

#include "host.h"

typedef struct host_stdio host_stdio_t;

/*
 * Serves the device on the process's stdin (fd 0) and stdout (fd 1), as the MCP stdio transport
 * specifies: each line read is one JSON-RPC message (MCP or MCP/U), each message written is one
 * line, and nothing else is ever written to stdout (the caller sends readiness lines and logs to
 * stderr). One session for the process's lifetime; its notifications are pushed after every call
 * into the device. stdin may be a pipe, a socket, a terminal or a file. When stdin ends (EOF, or
 * a read error), a last line without its newline is handled too, every reply is written, and then
 * host_stop() ends the process cleanly; when stdout is gone (the client closed it) the same.
 * NULL after logging why.
 */
host_stdio_t *host_stdio_open(host_t *h);

/* Stops serving and closes both descriptors; memory goes in the close callbacks. */
void host_stdio_close(host_stdio_t *s);

#endif
