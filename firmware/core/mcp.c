/* mcp.c: MCP methods: the method table, lifecycle (initialize, ping), logging/setLevel,
   cancellation, and the readers of MCP params. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/*
 * MCP methods read their params leniently: members they do not know are ignored (a client may
 * send fields of a newer revision), while a member they use must have the right type. Requests
 * before initialize are served too (MCP/U clients never initialize); such a session is taken
 * to speak the newest version and gets no log messages until it asks with logging/setLevel.
 */

static const char *const versions[FW_MCP_VERSION_COUNT] = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                           "2025-11-25"};

unsigned fw_mcp_version_of(const fw_session_t *s)
{
    if (s->version == 0 || s->version > FW_MCP_VERSION_COUNT) return FW_MCP_VERSION_COUNT - 1u;
    return s->version - 1u;
}

const char *fw_session_protocol_version(const fw_session_t *session)
{
    return versions[fw_mcp_version_of(session)];
}

bool fw_mcp_version_supported(const char *version, size_t len)
{
    for (size_t i = 0; version != NULL && i < FW_MCP_VERSION_COUNT; i++)
        if (strlen(versions[i]) == len && memcmp(versions[i], version, len) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- params */

int32_t fw_mcp_member(const fw_mcp_req_t *q, int32_t obj, const char *key)
{
    return obj < 0 ? -1 : fw_json_obj_get(q->doc, (uint32_t)obj, key);
}

/* The member's token when present with type `type` (-1 when absent); an issue otherwise. At
   level 2 key NULL says obj is the member's token already (fw_mcp_string_tok, _object_tok). */
static fw_err_t member_of_type(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path,
                               bool required, uint8_t type, int32_t *tok)
{
    static const char *const wanted[] = {"null",     "a boolean", "a boolean", "a number",
                                         "a string", "an array",  "an object"};
#if FW_SPEED_PATHS >= 2
    *tok = key != NULL ? fw_mcp_member(q, obj, key) : obj;
#else
    *tok = fw_mcp_member(q, obj, key);
#endif
    if (*tok < 0 && required)
        return fw_call_param_error(q->call, path, "%s", "required parameter missing");
    if (*tok < 0) return FW_OK;
    uint8_t got = q->doc->toks[*tok].type;
    bool boolean = type == FW_JSON_TRUE || type == FW_JSON_FALSE;
    if (got == type || (boolean && (got == FW_JSON_TRUE || got == FW_JSON_FALSE))) return FW_OK;
    return fw_call_param_error(q->call, path, "must be %s", wanted[type]);
}

fw_err_t fw_mcp_string(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path,
                       bool required, char *out, size_t cap)
{
    int32_t tok;
    out[0] = 0;
    fw_err_t err = member_of_type(q, obj, key, path, required, FW_JSON_STRING, &tok);
    if (err != FW_OK || tok < 0) return err;
    int32_t len = fw_json_str_decode(q->doc, (uint32_t)tok, out, cap);
    if (len < 0) {
        out[0] = 0;
        return fw_call_param_error(q->call, path, "is longer than %u bytes", (unsigned)cap - 1u);
    }
    if (memchr(out, 0, (size_t)len) != NULL) {
        out[0] = 0;
        return fw_call_param_error(q->call, path, "%s", "must not contain NUL characters");
    }
    return FW_OK;
}

fw_err_t fw_mcp_object(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path,
                       bool required, int32_t *out)
{
    return member_of_type(q, obj, key, path, required, FW_JSON_OBJECT, out);
}

#if FW_SPEED_PATHS >= 2
fw_err_t fw_mcp_string_tok(fw_mcp_req_t *q, int32_t tok, const char *path, bool required, char *out,
                           size_t cap)
{
    return fw_mcp_string(q, tok, NULL, path, required, out, cap);
}

fw_err_t fw_mcp_object_tok(fw_mcp_req_t *q, int32_t tok, const char *path, bool required,
                           int32_t *out)
{
    return fw_mcp_object(q, tok, NULL, path, required, out);
}
#endif

fw_err_t fw_mcp_bool(fw_mcp_req_t *q, int32_t obj, const char *key, const char *path, bool *out)
{
    int32_t tok;
    fw_err_t err = member_of_type(q, obj, key, path, false, FW_JSON_TRUE, &tok);
    if (err == FW_OK && tok >= 0) *out = q->doc->toks[tok].type == FW_JSON_TRUE;
    return err;
}

void fw_mcp_chunk(fw_jw_t *w, const char *s)
{
    fw_jw_str_chunk(w, s, strlen(s));
}

void fw_mcp_chunkf(fw_jw_t *w, const char *fmt, ...)
{
    char text[96];
    va_list ap;
    va_start(ap, fmt);
    size_t n = fw_vfmt(text, sizeof text, fmt, ap);
    va_end(ap);
    fw_jw_str_chunk(w, text, n);
}

/* ---------------------------------------------------------------- initialize */

/* The version to answer: the client's when spoken here, else the newest. */
static fw_err_t negotiate(fw_mcp_req_t *q, unsigned *version)
{
    int32_t tok;
    fw_err_t err = member_of_type(q, q->params, "protocolVersion", "protocolVersion", false,
                                  FW_JSON_STRING, &tok);
    *version = FW_MCP_VERSION_COUNT - 1u;
    for (unsigned i = 0; err == FW_OK && tok >= 0 && i < FW_MCP_VERSION_COUNT; i++)
        if (fw_json_str_eq(q->doc, (uint32_t)tok, versions[i])) *version = i;
    return err;
}

uint8_t fw_mcp_client_caps(const fw_mcp_req_t *q, int32_t caps)
{
    uint8_t bits = 0;
    if (fw_mcp_member(q, caps, "sampling") >= 0) bits |= FW_CLIENT_SAMPLING;
    if (fw_mcp_member(q, caps, "elicitation") >= 0) bits |= FW_CLIENT_ELICITATION;
    if (fw_mcp_member(q, caps, "roots") >= 0) bits |= FW_CLIENT_ROOTS;
#if FW_WITH_TASKS
    if (fw_mcp_member(q, fw_mcp_member(q, caps, "extensions"), FW_MCP_TASKS_EXTENSION) >= 0)
        bits |= FW_CLIENT_TASKS;
#endif
    return bits;
}

static void empty_obj(fw_jw_t *w, const char *key)
{
    (fw_jw_key)(w, key);
    fw_jw_obj_begin(w);
    fw_jw_obj_end(w);
}

static void list_changed(fw_jw_t *w, const char *key, bool subscribe, bool changes)
{
    (fw_jw_key)(w, key);
    fw_jw_obj_begin(w);
    if (subscribe) fw_jw_kv_bool(w, "subscribe", true);
    fw_jw_kv_bool(w, "listChanged", changes);
    fw_jw_obj_end(w);
}

/* stateless: resources/subscribe is gone, subscriptions/listen delivers resource updates and
   list changes (the lists grow when the application adds to them); version is the newest. */
static void write_capabilities(fw_jw_t *w, unsigned version, bool stateless)
{
    bool listen = stateless && FW_WITH_LISTEN;
    fw_jw_key(w, "capabilities");
    fw_jw_obj_begin(w);
    list_changed(w, "tools", false, listen);
    list_changed(w, "resources", !stateless || listen, listen);
    list_changed(w, "prompts", false, listen);
    empty_obj(w, "logging");
    if (version >= FW_MCP_V2025_03_26) empty_obj(w, "completions");
#if FW_WITH_TASKS_2025
    if (!stateless && version == FW_MCP_V2025_11_25) { /* 2025-11-25's tasks (mcp_tasks.c) */
        (fw_jw_key)(w, "tasks");
        fw_jw_obj_begin(w);
        empty_obj(w, "list");
        empty_obj(w, "cancel");
        (fw_jw_key)(w, "requests");
        fw_jw_obj_begin(w);
        (fw_jw_key)(w, "tools");
        fw_jw_obj_begin(w);
        empty_obj(w, "call");
        fw_jw_obj_end(w);
        fw_jw_obj_end(w);
        fw_jw_obj_end(w);
    }
#endif
#if FW_WITH_TASKS
    if (stateless) { /* the tasks extension of 2026-07-28 (mcp_tasks.c) */
        fw_jw_key(w, "extensions");
        fw_jw_obj_begin(w);
        empty_obj(w, FW_MCP_TASKS_EXTENSION);
        fw_jw_obj_end(w);
    }
#endif
    fw_jw_obj_end(w);
}

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

static void write_server_info(fw_jw_t *w, const fw_device_t *dev)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "name", or_empty(dev->board->device));
    fw_jw_kv_str(w, "version", or_empty(dev->board->version));
    fw_jw_obj_end(w);
}

/* A short text naming the device and its pins, and where to start. */
static void write_instructions(fw_jw_t *w, const fw_device_t *dev)
{
    const fw_board_t *b = dev->board;
    fw_jw_key(w, "instructions");
    fw_jw_str_begin(w);
    fw_mcp_chunkf(w, "%s %s (%s) is a microcontroller board", or_empty(b->device),
                  or_empty(b->version), or_empty(b->platform));
    fw_mcp_chunkf(w, " with %u pins:", (unsigned)b->pin_count);
    for (size_t i = 0; i < b->pin_count; i++)
        fw_mcp_chunkf(w, "%s %s (pin %u, %s)", i ? "," : "", b->pins[i].name,
                      (unsigned)b->pins[i].number,
                      or_empty(fw_pin_type_name((fw_pin_type_t)dev->pins[i].type)));
    fw_mcp_chunk(w, ". Its tools drive and read this hardware; the resource pin://<name> shows a "
                    "pin's current state and can be subscribed to for changes. The prompts "
                    "board_overview and diagnose_pin are good places to start.");
    fw_jw_str_end(w);
}

/* (Re)starts the session: a client that initializes again starts afresh. */
static fw_err_t initialize(fw_mcp_req_t *q)
{
    unsigned version;
    int32_t caps;
    fw_err_t err = negotiate(q, &version);
    if (err == FW_OK)
        err = fw_mcp_object(q, q->params, "capabilities", "capabilities", false, &caps);
    if (err != FW_OK) return err;
    fw_session_t *s = q->session;
    fw_session_init(s, q->dev);
    s->initialize_seen = true;
    s->version = (uint8_t)(version + 1u);
    s->client_caps = fw_mcp_client_caps(q, caps);
    s->logging = true;
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_kv_str(w, "protocolVersion", versions[version]);
    write_capabilities(w, version, false);
    fw_jw_key(w, "serverInfo");
    write_server_info(w, q->dev);
    write_instructions(w, q->dev);
    return FW_OK;
}

void fw_mcp_write_versions(fw_jw_t *w)
{
    fw_jw_arr_begin(w);
    fw_jw_str(w, FW_MCP_STATELESS_VERSION);
    for (unsigned i = FW_MCP_VERSION_COUNT; i-- > 0;) fw_jw_str(w, versions[i]);
    fw_jw_arr_end(w);
}

/* server/discover (2026-07-28): what initialize told, for any request to ask. */
static fw_err_t discover(fw_mcp_req_t *q)
{
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "supportedVersions");
    fw_mcp_write_versions(w);
    write_capabilities(w, FW_MCP_VERSION_COUNT - 1u, q->msg->stateless);
    write_instructions(w, q->dev);
    fw_jw_key(w, "_meta");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "io.modelcontextprotocol/serverInfo");
    write_server_info(w, q->dev);
    fw_jw_obj_end(w);
    return FW_OK;
}

/* ---------------------------------------------------------------- small methods */

static fw_err_t ping(fw_mcp_req_t *q)
{
    fw_call_result(q->call);
    return FW_OK;
}

static fw_err_t initialized(fw_mcp_req_t *q)
{
    q->session->initialized = true;
    return FW_OK;
}

static fw_err_t set_level(fw_mcp_req_t *q)
{
    char level[16];
    fw_err_t err = fw_mcp_string(q, q->params, "level", "level", true, level, sizeof level);
    if (err != FW_OK) return err;
    for (unsigned i = 0; i < FW_LOG_LEVEL_COUNT; i++) {
        if (strcmp(level, fw_log_level_name((fw_log_level_t)i)) != 0) continue;
        q->session->logging = true;
        q->session->log_level = (uint8_t)i;
        fw_call_result(q->call);
        return FW_OK;
    }
    return fw_call_param_error(q->call, "level", "%s",
                               "must be one of debug, info, notice, warning, error, critical, "
                               "alert, emergency");
}

#if FW_WITH_LISTEN
/* A cancellation from owner's client naming one of its open listen streams closes it. */
static bool cancel_listener(fw_device_t *dev, const fw_session_t *owner, const char *raw,
                            size_t len)
{
    for (int k = 0; k < FW_MAX_LISTENERS; k++) {
        const fw_listener_t *l = &dev->listeners[k];
        if (!l->open || l->owner != owner || l->id_len != len || memcmp(l->id, raw, len) != 0)
            continue;
        fw_device_listen_close(dev, k);
        return true;
    }
    return false;
}

/* The SubscriptionFilter's list flags: "toolsListChanged" is FW_LIST_TOOLS' (and so on). */
static const char *const list_flags[FW_LIST_COUNT] = {"toolsListChanged", "resourcesListChanged",
                                                      "promptsListChanged"};

/* Checks the filter f: its list flags booleans, resourceSubscriptions an array of strings. */
static fw_err_t check_filter(fw_mcp_req_t *q, int32_t f, int32_t subs)
{
    for (unsigned k = 0; k < FW_LIST_COUNT; k++) {
        int32_t b = fw_mcp_member(q, f, list_flags[k]);
        if (b >= 0 && q->doc->toks[b].type != FW_JSON_TRUE && q->doc->toks[b].type != FW_JSON_FALSE)
            return fw_call_param_error(q->call, list_flags[k], "%s", "must be a boolean");
    }
    for (uint32_t i = 0; subs >= 0; i++) {
        int32_t u = fw_json_arr_get(q->doc, (uint32_t)subs, i);
        if (u < 0) break;
        if (q->doc->toks[u].type != FW_JSON_STRING)
            return fw_call_param_error(q->call, "notifications/resourceSubscriptions", "%s",
                                       "must be an array of resource URIs (strings)");
    }
    return FW_OK;
}

/* Writes the acknowledged filter: the list flags asked for (all honoured: the lists change when
   the application adds to them), the subscribed URIs the device knows. */
static void ack_filter(fw_mcp_req_t *q, fw_jw_t *w, fw_listener_t *l, int32_t f, int32_t subs)
{
    fw_jw_key(w, "notifications");
    fw_jw_obj_begin(w);
    for (unsigned k = 0; k < FW_LIST_COUNT; k++) {
        int32_t b = fw_mcp_member(q, f, list_flags[k]);
        if (b < 0 || q->doc->toks[b].type != FW_JSON_TRUE) continue;
        l->lists |= (uint8_t)(1u << k);
        l->list_seen[k] = q->dev->list_gen[k];
        fw_jw_kv_bool(w, list_flags[k], true);
    }
    if (subs >= 0) {
        fw_jw_key(w, "resourceSubscriptions");
        fw_jw_arr_begin(w);
        char uri[96];
        for (uint32_t i = 0;; i++) {
            int32_t u = fw_json_arr_get(q->doc, (uint32_t)subs, i);
            if (u < 0) break;
            if (fw_json_str_decode(q->doc, (uint32_t)u, uri, sizeof uri) < 0) continue;
            int idx = fw_mcp_resource_find(q->dev, uri);
            if (idx < 0) continue; /* unknown: not honoured, so not acknowledged */
            l->session.subscriptions |= 1u << idx;
            fw_jw_str(w, uri);
        }
        fw_jw_arr_end(w);
    }
    fw_jw_obj_end(w);
}

/*
 * subscriptions/listen (2026-07-28): takes a listener slot owned by the transport's session,
 * acknowledges what of the filter the device honours and writes no response: the stream stays
 * open until the client cancels it or goes away. Log messages follow the request's _meta
 * logLevel, as in any stateless request.
 */
static fw_err_t sub_listen(fw_mcp_req_t *q)
{
    fw_device_t *dev = q->dev;
    fw_resp_t *r = q->call->priv;
    if (!q->msg->stateless)
        return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND,
                              "method 'subscriptions/listen' not found: it is MCP %s's "
                              "(a session has the GET stream and resources/subscribe)",
                              FW_MCP_STATELESS_VERSION);
    int32_t f = fw_mcp_member(q, q->params, "notifications");
    if (f < 0 || q->doc->toks[f].type != FW_JSON_OBJECT)
        return fw_call_param_error(q->call, "notifications", "%s",
                                   "must be an object (the SubscriptionFilter)");
    int32_t subs = fw_mcp_member(q, f, "resourceSubscriptions");
    if (subs >= 0 && q->doc->toks[subs].type != FW_JSON_ARRAY)
        return fw_call_param_error(q->call, "notifications/resourceSubscriptions", "%s",
                                   "must be an array of resource URIs");
    fw_err_t err = check_filter(q, f, subs);
    if (err != FW_OK || r->id == NULL) return err; /* a notification opens nothing */
    if (r->id_len > FW_MCP_ID_MAX)
        return fw_call_param_error(q->call, "id", "is longer than %u bytes (FW_MCP_ID_MAX)",
                                   (unsigned)FW_MCP_ID_MAX);
    int slot = -1;
    for (int k = 0; k < FW_MAX_LISTENERS && slot < 0; k++)
        if (!dev->listeners[k].open) slot = k;
    if (slot < 0) /* as the SDKs answer it */
        return fw_call_errorf(q->call, FW_ERR_INTERNAL,
                              "Subscription limit reached: all %u listen slots are taken "
                              "(FW_MAX_LISTENERS)",
                              (unsigned)FW_MAX_LISTENERS);
    fw_listener_t *l = &dev->listeners[slot];
    if (slot >= dev->listen_top) dev->listen_top = (uint8_t)(slot + 1);
    fw_session_init(&l->session, dev);
    l->session.initialize_seen = true;
    l->session.initialized = true;
    l->session.version = FW_MCP_VERSION_COUNT;
    l->session.logging = q->session->logging;
    l->session.log_level = q->session->log_level;
    memcpy(l->id, r->id, r->id_len);
    l->id_len = (uint8_t)r->id_len;
    l->lists = 0;
    l->owner = q->msg->owner;
    l->session.sub_id = l->id;
    l->session.sub_id_len = l->id_len;
    fw_jw_t w;
    fw_mcp_notify_begin(&w, &q->msg->out, "notifications/subscriptions/acknowledged");
    ack_filter(q, &w, l, f, subs);
    fw_jw_key(&w, "_meta");
    fw_jw_obj_begin(&w);
    fw_jw_key(&w, "io.modelcontextprotocol/subscriptionId");
    fw_jw_raw(&w, l->id, l->id_len);
    fw_jw_obj_end(&w);
    fw_mcp_notify_end(&w, &q->msg->out);
    l->open = true;
    r->deferred = true; /* no response while the stream is open */
    return FW_OK;
}
#endif

/*
 * A single-core device runs one request at a time, to its end: by the time a cancellation is
 * read, the request it names has finished, unless it comes later in the same batch or is a
 * tools/call waiting for the client's answer (mcp_ask.c), which then never answers. So the id
 * is remembered for the rest of the message only and that request is skipped without a
 * response; any other cancellation is ignored, as MCP allows.
 */
static fw_err_t cancelled(fw_mcp_req_t *q)
{
    int32_t id = fw_mcp_member(q, q->params, "requestId");
    fw_session_t *s = q->session;
    if (id < 0) return FW_OK;
    uint8_t type = q->doc->toks[id].type;
    if (type != FW_JSON_STRING && type != FW_JSON_NUMBER) return FW_OK;
    size_t len;
    const char *raw = fw_json_tok_raw(q->doc, (uint32_t)id, &len);
#if FW_WITH_LISTEN
    if (cancel_listener(q->dev, q->msg->owner, raw, len)) return FW_OK;
#endif
    if (s->ask_tool != NULL && len == s->ask_call_len && memcmp(raw, s->ask_call, len) == 0)
        s->ask_tool = NULL; /* the call waiting for the client's answer: never answered now */
    if (len == 0 || len > sizeof s->cancelled) return FW_OK;
    memcpy(s->cancelled, raw, len);
    s->cancelled_len = (uint8_t)len;
    q->msg->cancels = true;
    return FW_OK;
}

static bool take_cancelled(fw_device_t *dev, const char *id, size_t len)
{
    fw_session_t *s = dev->msg != NULL ? dev->msg->session : NULL;
    if (s == NULL || s->cancelled_len == 0 || s->cancelled_len != len) return false;
    if (memcmp(s->cancelled, id, len) != 0) return false;
    s->cancelled_len = 0;
    return true;
}

/* ---------------------------------------------------------------- the method table */

#define REMOVED FW_MCP_REMOVED
#define CACHEABLE FW_MCP_CACHEABLE
#define INPUT FW_MCP_INPUT

/* tools/call first: most requests of a session are calls, found here with one comparison */
static const fw_mcp_method_t methods[] = {
    {"tools/call", fw_mcp_tools_call, INPUT},
    {"initialize", initialize, REMOVED},
    {"ping", ping, REMOVED},
    {"notifications/initialized", initialized, REMOVED},
    {"notifications/cancelled", cancelled, 0},
    {"logging/setLevel", set_level, REMOVED},
    {"server/discover", discover, CACHEABLE},
    {"tools/list", fw_mcp_tools_list, CACHEABLE},
    {"resources/list", fw_mcp_resources_list, CACHEABLE},
    {"resources/templates/list", fw_mcp_resources_templates, CACHEABLE},
    {"resources/read", fw_mcp_resources_read, CACHEABLE | INPUT},
    {"resources/subscribe", fw_mcp_resources_subscribe, REMOVED},
    {"resources/unsubscribe", fw_mcp_resources_unsubscribe, REMOVED},
    {"prompts/list", fw_mcp_prompts_list, CACHEABLE},
    {"prompts/get", fw_mcp_prompts_get, INPUT},
    {"completion/complete", fw_mcp_complete, 0},
#if FW_WITH_LISTEN
    {"subscriptions/listen", sub_listen, 0},
#endif
#if FW_WITH_TASKS
    {"tasks/get", fw_mcp_tasks_get, 0},
    {"tasks/update", fw_mcp_tasks_update, 0},
    {"tasks/cancel", fw_mcp_tasks_cancel, 0},
#if FW_WITH_TASKS_2025
    {"tasks/list", fw_mcp_tasks_list, REMOVED},
    {"tasks/result", fw_mcp_tasks_result, REMOVED},
#endif
#endif
};

/* The first byte of an unescaped name rules out most methods at once (MCP/U's names never
   reach the full comparison); an escaped one is compared in full. */
/* The first bytes of the names above, one bit per lowercase letter: a name starting with any
   other byte (MCP/U's gpio_write, adc_read, get_info...) is no MCP method, found without the
   loop. A method whose name starts with a letter not in it is never found: every method's
   tests would fail at once. */
#define METHOD_FIRST(c) (UINT32_C(1) << ((c) - 'a'))
#define METHOD_FIRSTS                                                                              \
    (METHOD_FIRST('c') | METHOD_FIRST('i') | METHOD_FIRST('l') | METHOD_FIRST('n') |               \
     METHOD_FIRST('p') | METHOD_FIRST('r') | METHOD_FIRST('s') | METHOD_FIRST('t'))

static const void *method_find(const fw_json_doc_t *doc, uint32_t tok)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    char first = (t->flags & FW_JSON_F_ESCAPED) == 0 && t->end > t->start ? doc->buf[t->start] : 0;
    if (first != 0 && (first < 'a' || first > 'z' || !((METHOD_FIRSTS >> (first - 'a')) & 1u)))
        return NULL;
    for (size_t i = 0; i < FW_ARRAY_LEN(methods); i++)
        if ((first == 0 || methods[i].name[0] == first) && fw_tok_is(doc, tok, methods[i].name))
            return &methods[i];
    return NULL;
}

static bool method_named(const char *name)
{
    for (size_t i = 0; i < FW_ARRAY_LEN(methods); i++)
        if (strcmp(methods[i].name, name) == 0) return true;
    return false;
}

static fw_err_t mcp_run(const void *method, fw_call_t *call, const fw_json_doc_t *doc,
                        int32_t params)
{
    const fw_mcp_method_t *m = method;
    fw_msg_t *msg = call->dev->msg;
    FW_ASSERT(msg != NULL); /* set by the handle functions around every dispatch */
    fw_mcp_req_t q = {.call = call,
                      .dev = call->dev,
                      .msg = msg,
                      .session = msg->session,
                      .doc = doc,
                      .params = params};
    if (params >= 0 && doc->toks[params].type != FW_JSON_OBJECT)
        return fw_call_param_error(call, "params", "%s",
                                   "must be an object (MCP names its params)");
#if FW_SPEED_PATHS >= 2
    static const char *const meta[] = {"_meta"};
    fw_mcp_members(&q, params, meta, 1, &q.meta); /* inline: no call, no call per key */
#endif
    int32_t version = fw_mcp_meta_version(&q);
    return version >= 0 ? fw_mcp_stateless_run(&q, m, version) : m->run(&q);
}

/* ---------------------------------------------------------------- the layer */

/* A message's session: the transport's, or the device's implicit one. A request cancelled in
   an earlier message is forgotten: requests run one at a time, so a later message can only
   name one that has already finished. (It is read only under fw_msg_t.cancels, which only a
   cancellation in the same message sets: no hook clears it at the message's end.) */
static void msg_begin(fw_device_t *dev, fw_msg_t *m, void *session)
{
    fw_session_t *s = session != NULL ? session : &dev->session;
    m->session = s;
#if FW_WITH_LISTEN
    m->owner = s; /* a stateless request runs in a session of its own: this stays */
#endif
    s->cancelled_len = 0;
}

const fw_rpc_layer_t fw_mcp_layer = {
    .method_find = method_find,
    .method_firsts = METHOD_FIRSTS,
    .method_named = method_named,
    .run = mcp_run,
    .msg_begin = msg_begin,
    .take_cancelled = take_cancelled,
    .answer = fw_mcp_answer,
    .result_begins = fw_mcp_ask_end,
    .result_opened = fw_mcp_result_opened,
    .error_data = fw_mcp_error_data,
    .observe = fw_mcp_observe,
    .vlog = fw_mcp_vlog,
};

bool fw_device_handle_session(fw_device_t *dev, fw_session_t *session, const char *msg, size_t len,
                              fw_msg_sink_t out)
{
    return fw_rpc_handle(dev, session, msg, len, out, true);
}

void fw_device_feed_session(fw_device_t *dev, fw_session_t *session, fw_framer_t *fr,
                            const uint8_t *data, size_t len, fw_sink_t out)
{
    fw_rpc_feed(dev, session, fr, data, len, out);
}

#endif
