/* http_check.h: the header checks of the HTTP transport: Host and Origin (DNS rebinding),
   Accept, Content-Type and bearer tokens. Pure functions of the header values. */
#ifndef HOST_HTTP_CHECK_H
#define HOST_HTTP_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A Host header value ("localhost:7002", "[::1]:80", "127.0.0.1") is allowed when its name is
 * localhost, 127.0.0.1 or [::1] (any port, case-insensitive), or when it matches an entry of
 * allow[0..n): "*" allows every host, an entry with a port ("dev.lan:7002") must equal the whole
 * value, an entry without one ("dev.lan") its name part. A malformed value (empty name, a port
 * that is not a number) is never allowed.
 */
bool host_http_host_allowed(const char *host, const char *const *allow, size_t n);

/*
 * An Origin header value is allowed when it is http:// or https:// followed by localhost,
 * 127.0.0.1 or [::1] and an optional :PORT, or when it equals an entry of allow[0..n)
 * (case-insensitive, a trailing "/" ignored); "*" allows every origin, "null" included.
 */
bool host_http_origin_allowed(const char *origin, const char *const *allow, size_t n);

/*
 * True when an Accept header value accepts media type `type` ("text/event-stream"): the most
 * specific media range matching it (the exact type, then its type with a wildcard subtype, then
 * the full wildcard) has a q above 0.
 * A NULL or empty header accepts nothing (MCP clients must list what they take).
 */
bool host_http_accepts(const char *accept, const char *type);

/* host_http_accepts for each of types[0..n) (n at most HOST_HTTP_ACCEPT_TYPES_MAX) in one
   reading of the header: ok[i] is host_http_accepts(accept, types[i]). */
#define HOST_HTTP_ACCEPT_TYPES_MAX 4
void host_http_accepts_each(const char *accept, const char *const *types, size_t n, bool *ok);

/* True when a Content-Type value is application/json (parameters such as charset ignored). */
bool host_http_is_json(const char *content_type);

/* True when an Authorization value is "Bearer <token>" for exactly this token (compared in
   time independent of where the values differ). */
bool host_http_bearer_ok(const char *authorization, const char *token);

#endif
