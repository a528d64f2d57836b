/* causes.c: root-cause grouping of failures (one defect, one entry, the scenarios it broke). */
#include "causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last line of the transcript starting with dir ("-> " or "<- ") that parses as a JSON
   object (a new reference), or NULL. */
static json_t *last_json(const char *transcript, const char *dir)
{
    json_t *found = NULL;
    size_t dl = strlen(dir);
    for (const char *p = transcript; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > dl && strncmp(p, dir, dl) == 0) {
            json_t *j = json_loadb(p + dl, n - dl, 0, NULL);
            if (json_is_object(j)) {
                json_decref(found);
                found = j;
            } else {
                json_decref(j);
            }
        }
        p += n + (p[n] == '\n');
    }
    return found;
}

/* True when any sent line of the transcript is a request without an id (a notification). */
static bool sent_notification(const char *transcript)
{
    for (const char *p = transcript; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > 3 && strncmp(p, "-> ", 3) == 0) {
            json_t *j = json_loadb(p + 3, n - 3, 0, NULL);
            bool notif = json_is_object(j) && json_object_get(j, "method") &&
                         !json_object_get(j, "id");
            json_decref(j);
            if (notif) return true;
        }
        p += n + (p[n] == '\n');
    }
    return false;
}

static const char *id_kind(const json_t *id)
{
    return json_is_string(id) ? "string" : json_is_integer(id) ? "integer" : "other";
}

/* "id null", "id 0", "id \"x\"": a short text of an id. */
static void id_text(const json_t *id, char *out, size_t cap)
{
    if (!id) {
        snprintf(out, cap, "no id");
        return;
    }
    char *t = json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(out, cap, "id %.40s", t ? t : "?");
    free(t);
}

/* A response that came back under another id than the request's (the message arrived, the
   runner kept waiting). */
static bool other_id(const json_t *sent, const json_t *got, char *out, size_t cap)
{
    const json_t *sid = json_object_get(sent, "id");
    if (!sid || !json_is_object(got) || json_object_get(got, "method")) return false;
    const json_t *gid = json_object_get(got, "id");
    if (gid && json_equal((json_t *)sid, (json_t *)gid)) return false;
    char t[64];
    id_text(gid, t, sizeof t);
    snprintf(out, cap, "%s ids are not echoed: the response carries %s instead of the request's",
             id_kind(sid), t);
    return true;
}

/* The text after the "step N (...): " prefix(es) of a failure message. */
static const char *strip_step(const char *msg)
{
    while (strncmp(msg, "step ", 5) == 0) {
        const char *q = strstr(msg, "): ");
        if (!q) break;
        msg = q + 3;
    }
    return msg;
}

/* The JSON text that follows marker in msg, parsed (a new reference), or NULL. */
static json_t *json_after(const char *msg, const char *marker)
{
    const char *p = strstr(msg, marker);
    if (!p) return NULL;
    p += strlen(marker);
    return json_loadb(p, strcspn(p, "\n"), JSON_DISABLE_EOF_CHECK, NULL);
}

/* A message's kind for a cause: "error -32601", "a result", "a message". */
static void kind_text(const json_t *m, char *out, size_t cap)
{
    const json_t *code = json_object_get(json_object_get(m, "error"), "code");
    if (code)
        snprintf(out, cap, "error %lld", (long long)json_integer_value(code));
    else if (json_object_get(m, "result"))
        snprintf(out, cap, "a result");
    else
        snprintf(out, cap, "a message");
}

void conf_cause_of(const conf_result_t *r, char *out, size_t cap)
{
    const char *msg = r->message ? strip_step(r->message) : "";
    json_t *sent = last_json(r->transcript, "-> ");
    json_t *got = NULL;
    bool done = false;
    if (strstr(msg, "nothing within") && (got = json_after(msg, "first: ")) != NULL)
        done = other_id(sent, got, out, cap);
    else if (strstr(msg, "nothing within") && strstr(msg, "nothing arrived"))
        done = snprintf(out, cap, "no answer at all to a request") > 0;
    if (!done && strncmp(msg, "at $.id: expected \"", 19) == 0) {
        const char *g = strstr(msg, ", got ");
        done = snprintf(out, cap,
                        "string ids are not echoed: the response carries id %.40s instead of the "
                        "request's",
                        g ? g + 6 : "?") > 0;
    }
    if (!done && strstr(msg, "expected silence") &&
        ((got = json_after(msg, "received: ")) || (got = json_after(msg, "already arrived: ")))) {
        char k[48];
        kind_text(got, k, sizeof k);
        if (sent_notification(r->transcript) && json_object_get(got, "id") &&
            json_is_null(json_object_get(got, "id")))
            snprintf(out, cap, "notifications are answered (replies with id null)");
        else
            snprintf(out, cap, "a message arrived where none was due (%s)", k);
        done = true;
    }
    if (!done && (strncmp(msg, "at $.jsonrpc: expected \"2.0\"", 28) == 0 ||
                  strstr(msg, "lacks \"jsonrpc\": \"2.0\"")))
        done = snprintf(out, cap, "the response lacks \"jsonrpc\": \"2.0\"") > 0;
    if (!done) {
        /* the reason itself, without the parts that vary from scenario to scenario */
        size_t n = strcspn(msg, "\n");
        const char *paren = strstr(msg, " (");
        if (paren && (size_t)(paren - msg) < n && strstr(msg, "nothing within")) n = (size_t)(paren - msg);
        snprintf(out, cap, "%.*s", (int)(n < 300 ? n : 300), msg);
    }
    json_decref(sent);
    json_decref(got);
}

static int level_rank(conf_level_t l)
{
    return l == CONF_LEVEL_MUST ? 0 : l == CONF_LEVEL_EXTENSION ? 1 : 2;
}

json_t *conf_causes_group(const conf_result_t *all, size_t n)
{
    json_t *groups = json_array();
    for (size_t i = 0; i < n; i++) {
        const conf_result_t *r = &all[i];
        if (r->status != CONF_FAIL) continue;
        char cause[512];
        conf_cause_of(r, cause, sizeof cause);
        conf_level_t lvl = r->sc ? r->sc->level : CONF_LEVEL_MUST;
        json_t *g = NULL;
        size_t k;
        json_t *e;
        json_array_foreach(groups, k, e)
        {
            if (strcmp(json_string_value(json_object_get(e, "cause")), cause) == 0) g = e;
        }
        if (!g) {
            g = json_pack("{s:s, s:s, s:i, s:[]}", "cause", cause, "level", conf_level_name(lvl),
                          "count", 0, "scenarios");
            json_array_append_new(groups, g);
        }
        int have = conf_level_parse(json_string_value(json_object_get(g, "level")));
        if (level_rank(lvl) < level_rank((conf_level_t)have))
            json_object_set_new(g, "level", json_string(conf_level_name(lvl)));
        json_array_append_new(json_object_get(g, "scenarios"), json_string(r->name));
        json_object_set_new(g, "count",
                            json_integer((json_int_t)json_array_size(json_object_get(g, "scenarios"))));
    }
    return groups;
}
