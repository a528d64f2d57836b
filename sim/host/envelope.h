/* envelope.h: seed 003's transport envelope {session_id, type:"mcp", payload}, shared by every
   message transport that carries it (WebSocket connections and dial-out, MQTT). */
#ifndef HOST_ENVELOPE_H
#define HOST_ENVELOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* What one incoming message is. */
typedef enum host_env_kind {
    HOST_ENV_PLAIN = 0, /* not an envelope: plain JSON-RPC (or not JSON; the core answers) */
    HOST_ENV_MCP,       /* type "mcp": payload holds the JSON-RPC message */
    HOST_ENV_OTHER      /* another type (hello, listen, abort ...): nothing for MCP */
} host_env_kind_t;

typedef struct host_env {
    host_env_kind_t kind;
    /* MCP: the payload's JSON text, byte for byte as sent (NULL when the payload is missing or
       not an object); PLAIN: the whole message. Points into the parsed message. */
    const char *payload;
    size_t payload_len;
    /* The envelope's session_id as JSON text (quotes included for a string; malloc'd), or NULL
       when it has none. For OTHER, set only by a hello (which assigns the session). */
    char *session_id;
    char type[32]; /* OTHER: the type ("(long)" when longer) */
} host_env_t;

/*
 * Sorts one whole message: an object with a string "type" and no "jsonrpc" is an envelope;
 * anything else is plain. The core's own JSON reader does the work, so ids and numbers of the
 * payload reach the core exactly as sent. Free with host_env_free.
 */
void host_env_parse(const char *msg, size_t len, host_env_t *out);

void host_env_free(host_env_t *env);

/* Appends the head of a wrapped message up to the payload: {"session_id":S,"type":"mcp",
   "payload": (session_id: JSON text, NULL: left out). The caller appends the payload and "}". */
void host_env_head(host_buf_t *out, const char *session_id);

/* Writes the JSON-RPC error (no envelope) for an "mcp" envelope without an object payload to
   buf (200 bytes suffice); returns its length. */
size_t host_env_bad_payload(char *buf, size_t cap);

#endif
