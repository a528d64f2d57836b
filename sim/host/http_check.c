/* http_check.c: the header checks of the HTTP transport: Host and Origin (DNS rebinding),
   Accept, Content-Type and bearer tokens. */
#include "http_check.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

/* The names a local client reaches us by: anything else may be a rebound DNS name. */
static const char *const loopback_names[] = {"localhost", "127.0.0.1", "[::1]"};

static bool is_loopback_name(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof loopback_names / sizeof loopback_names[0]; i++)
        if (strlen(loopback_names[i]) == len && strncasecmp(loopback_names[i], name, len) == 0)
            return true;
    return false;
}

static bool all_digits(const char *s, size_t len)
{
    if (len == 0 || len > 5) return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

/*
 * Length of the name part of "name[:port]" or "[v6][:port]" (brackets included), or 0 when the
 * value is malformed: empty name, a port that is not a number, a bare IPv6 address.
 */
static size_t name_len(const char *v)
{
    size_t n = strlen(v);
    const char *end;
    if (v[0] == '[') {
        const char *close = strchr(v, ']');
        if (!close || close == v + 1) return 0;
        end = close + 1;
    } else {
        end = strchr(v, ':');
        if (!end) end = v + n;
        if (end == v) return 0;
    }
    if (*end == 0) return (size_t)(end - v);
    if (*end != ':' || !all_digits(end + 1, strlen(end + 1))) return 0;
    return (size_t)(end - v);
}

static bool host_entry_matches(const char *host, size_t host_name_len, const char *entry)
{
    if (strcmp(entry, "*") == 0) return true;
    size_t entry_name = name_len(entry);
    if (entry_name == 0) return false;
    if (entry[entry_name] != 0) return strcasecmp(entry, host) == 0; /* the entry has a port */
    return entry_name == host_name_len && strncasecmp(entry, host, host_name_len) == 0;
}

bool host_http_host_allowed(const char *host, const char *const *allow, size_t n)
{
    if (!host) return false;
    size_t len = name_len(host);
    if (len == 0) return false;
    if (is_loopback_name(host, len)) return true;
    for (size_t i = 0; i < n; i++)
        if (host_entry_matches(host, len, allow[i])) return true;
    return false;
}

/* "http://localhost:3000" and the like: a local scheme://name[:port] without path. */
static bool is_loopback_origin(const char *origin)
{
    const char *rest;
    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    else
        return false;
    size_t len = name_len(rest);
    return len > 0 && is_loopback_name(rest, len);
}

static bool origin_equal(const char *origin, const char *entry)
{
    size_t a = strlen(origin), b = strlen(entry);
    if (a > 0 && origin[a - 1] == '/') a--;
    if (b > 0 && entry[b - 1] == '/') b--;
    return a == b && strncasecmp(origin, entry, a) == 0;
}

bool host_http_origin_allowed(const char *origin, const char *const *allow, size_t n)
{
    if (!origin) return false;
    if (is_loopback_origin(origin)) return true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(allow[i], "*") == 0 || origin_equal(origin, allow[i])) return true;
    return false;
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s;
}

static const char *trim_end(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
    return end;
}

/* q of a media range's parameters (";q=0.5;level=1"): 1 when absent, 0 for q=0, 0.0, 0.000. */
static bool q_positive(const char *params, const char *end)
{
    for (const char *p = params; p < end;) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;
        const char *s = skip_space(p, stop);
        if (stop - s >= 2 && (s[0] == 'q' || s[0] == 'Q') && s[1] == '=') {
            for (s += 2; s < stop; s++)
                if (*s >= '1' && *s <= '9') return true;
            return false;
        }
        p = semi ? semi + 1 : end;
    }
    return true;
}

/* Specificity of a media range for type ("a/b", len bytes, its "/" at major): 3 exact, 2 "a/"
   wildcard, 1 full wildcard, 0 no match. */
static int range_match(const char *range, size_t len, const char *type, size_t type_len,
                       size_t major)
{
    if (len == type_len && strncasecmp(range, type, len) == 0) return 3;
    if (len == major + 2 && strncasecmp(range, type, major + 1) == 0 && range[len - 1] == '*')
        return 2;
    if (len == 3 && memcmp(range, "*/*", 3) == 0) return 1;
    return 0;
}

void host_http_accepts_each(const char *accept, const char *const *types, size_t n, bool *ok)
{
    int best[HOST_HTTP_ACCEPT_TYPES_MAX] = {0};
    bool best_ok[HOST_HTTP_ACCEPT_TYPES_MAX] = {false};
    if (n > HOST_HTTP_ACCEPT_TYPES_MAX) n = HOST_HTTP_ACCEPT_TYPES_MAX;
    for (size_t i = 0; i < n; i++) ok[i] = false;
    if (!accept) return;
    size_t type_len[HOST_HTTP_ACCEPT_TYPES_MAX], major[HOST_HTTP_ACCEPT_TYPES_MAX];
    for (size_t i = 0; i < n; i++) {
        const char *slash = strchr(types[i], '/');
        type_len[i] = strlen(types[i]);
        major[i] = slash ? (size_t)(slash - types[i]) : type_len[i]; /* no '/': matches nothing */
    }
    const char *end = accept + strlen(accept);
    for (const char *p = accept; p < end;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        const char *semi = memchr(p, ';', (size_t)(stop - p));
        const char *s = skip_space(p, stop);
        const char *e = trim_end(s, semi ? semi : stop);
        for (size_t i = 0; i < n; i++) {
            if (major[i] == type_len[i]) continue;
            int m = range_match(s, (size_t)(e - s), types[i], type_len[i], major[i]);
            if (m > best[i]) {
                best[i] = m;
                best_ok[i] = semi ? q_positive(semi + 1, stop) : true;
            }
        }
        p = comma ? comma + 1 : end;
    }
    for (size_t i = 0; i < n; i++) ok[i] = best[i] > 0 && best_ok[i];
}

bool host_http_accepts(const char *accept, const char *type)
{
    bool ok;
    host_http_accepts_each(accept, &type, 1, &ok);
    return ok;
}

bool host_http_is_json(const char *content_type)
{
    if (!content_type) return false;
    const char *end = content_type + strcspn(content_type, ";");
    const char *s = skip_space(content_type, end);
    const char *e = trim_end(s, end);
    return e - s == 16 && strncasecmp(s, "application/json", 16) == 0;
}

bool host_http_bearer_ok(const char *authorization, const char *token)
{
    if (!authorization || !token || strncasecmp(authorization, "Bearer ", 7) != 0) return false;
    const char *given = authorization + 7;
    while (*given == ' ') given++;
    size_t glen = strlen(given), tlen = strlen(token);
    while (glen > 0 && (given[glen - 1] == ' ' || given[glen - 1] == '\t')) glen--;
    if (tlen == 0) return false;
    /* Every byte of the token is compared, whatever the given length (a shorter value reads
       as zeros past its end; a length mismatch is one more difference, not an early return),
       so the time depends on the configured token's length only. */
    size_t diff = glen ^ tlen;
    for (size_t i = 0; i < tlen; i++) {
        size_t in = (size_t)(i < glen); /* 1 while inside the given value */
        unsigned char g = (unsigned char)given[i * in];
        diff |= (size_t)((unsigned char)(g * in) ^ (unsigned char)token[i]);
    }
    return diff == 0;
}
