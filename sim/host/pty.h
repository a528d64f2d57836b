/* pty.h: the device's UART as a pseudo-terminal (raw, 115200), optionally behind a symlink. */
#ifndef HOST_PTY_H
#define HOST_PTY_H

#include "host.h"

/*
 * Opens a pty and serves the device on it: bytes a client writes to the slave are fed to the
 * device with the pty's framer; replies are written to the master, queued while the client is
 * not reading (never dropped; input is paused while the queue is long). The simulator holds the
 * slave open itself, so clients may open, close and reopen it at will. With link_path, a symlink
 * to the slave is created (replacing any file there atomically) and removed at close.
 *
 * A client opening the slave finds it as a USB-serial board's port: the line framer starts empty
 * (a half line the previous client left is discarded) and replies nobody read are dropped. With
 * reset_on_open (--pty-reset-on-open; a board file's uart.reset_on_open) the open also reboots
 * the device, as DTR resets a real board, and the board's uart.boot_banner line (if any) is the
 * first thing the client reads.
 *
 * The pty has one MCP session, kept across clients unless an open reboots the device: a later
 * client inherits what an earlier one negotiated (initialize, subscriptions, log level); a
 * client that wants a clean state sends initialize again. After
 * every call into the device the session's pending notifications are queued as lines (none for
 * a client that never initialized: MCP/U sees no extra output); while the queue is long they wait.
 * NULL after logging why.
 */
host_pty_t *host_pty_open(host_t *h, const char *link_path, bool reset_on_open);

/* The slave's path ("/dev/pts/3"). */
const char *host_pty_path(const host_pty_t *p);

/* Stops serving, removes the symlink and closes the fds; memory goes in the close callback. */
void host_pty_close(host_pty_t *p);

#endif
