/* mcp_stateless.c: MCP 2026-07-28, the stateless revision: per-request _meta, resultType and
   caching hints, input-required results with a MAC'd request state (SipHash-2-4). */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/*
 * A request whose params._meta names protocol version 2026-07-28 is served without a session:
 * everything the stateful revisions negotiated once (capabilities, log level) comes with the
 * request, so the core runs it in a session made afresh (on the stack) for the one request,
 * and the transport's own session (if any) is left alone. The methods the revision removed are
 * not found; every result carries resultType, and the cacheable ones ttlMs and cacheScope. A
 * handler that needs the client answers with an InputRequiredResult; what it must remember
 * goes to the client as the requestState, under a SipHash-2-4 MAC whose key the device draws
 * from the HAL's entropy once per boot, so it verifies a state it never stored.
 */

static const char meta_version[] = "io.modelcontextprotocol/protocolVersion";
static const char meta_caps[] = "io.modelcontextprotocol/clientCapabilities";
static const char meta_level[] = "io.modelcontextprotocol/logLevel";

/* ---------------------------------------------------------------- SipHash-2-4 */

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64u - b));
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8u; i++) v |= (uint64_t)p[i] << (8u * i);
    return v;
}

static void sip_rounds(fw_sip_t *s, unsigned n)
{
    while (n-- > 0) {
        s->v[0] += s->v[1];
        s->v[1] = rotl(s->v[1], 13) ^ s->v[0];
        s->v[0] = rotl(s->v[0], 32);
        s->v[2] += s->v[3];
        s->v[3] = rotl(s->v[3], 16) ^ s->v[2];
        s->v[0] += s->v[3];
        s->v[3] = rotl(s->v[3], 21) ^ s->v[0];
        s->v[2] += s->v[1];
        s->v[1] = rotl(s->v[1], 17) ^ s->v[2];
        s->v[2] = rotl(s->v[2], 32);
    }
}

static void sip_block(fw_sip_t *s, uint64_t m)
{
    s->v[3] ^= m;
    sip_rounds(s, 2);
    s->v[0] ^= m;
}

void fw_sip_init(fw_sip_t *s, const uint8_t key[16])
{
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    s->v[0] = 0x736f6d6570736575ull ^ k0;
    s->v[1] = 0x646f72616e646f6dull ^ k1;
    s->v[2] = 0x6c7967656e657261ull ^ k0;
    s->v[3] = 0x7465646279746573ull ^ k1;
    s->len = 0;
}

void fw_sip_update(fw_sip_t *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        s->buf[s->len++ & 7u] = p[i];
        if ((s->len & 7u) == 0) sip_block(s, le64(s->buf));
    }
}

uint64_t fw_sip_final(fw_sip_t *s)
{
    uint64_t b = (uint64_t)(s->len & 0xffu) << 56;
    for (unsigned i = 0; i < (s->len & 7u); i++) b |= (uint64_t)s->buf[i] << (8u * i);
    sip_block(s, b);
    s->v[2] ^= 0xffu;
    sip_rounds(s, 4);
    return s->v[0] ^ s->v[1] ^ s->v[2] ^ s->v[3];
}

/* ---------------------------------------------------------------- request state */

/* The per-boot key, drawn on first use; false when the port has no entropy. */
static bool state_key(fw_device_t *dev)
{
    if (dev->state_key_ready) return true;
    if (dev->hal->entropy == NULL ||
        dev->hal->entropy(dev->hal_ctx, dev->state_key, sizeof dev->state_key) != FW_OK)
        return false;
    dev->state_key_ready = true;
    return true;
}

/* The MAC binds the payload to the method and the name (tool, prompt or URI) it was issued
   for, so a state cannot be replayed to another request. */
static uint64_t state_mac(fw_device_t *dev, const fw_mcp_req_t *q, const char *payload, size_t len)
{
    fw_sip_t s;
    size_t n;
    fw_sip_init(&s, dev->state_key);
    const char *raw;
    fw_sip_update(&s, q->msg->method, strlen(q->msg->method) + 1u);
    int32_t name = fw_mcp_member(q, q->params, "name");
    if (name < 0) name = fw_mcp_member(q, q->params, "uri");
    if (name >= 0 && q->doc->toks[name].type == FW_JSON_STRING) {
        raw = fw_json_tok_raw(q->doc, (uint32_t)name, &n);
        fw_sip_update(&s, raw, n);
    }
    fw_sip_update(&s, "", 1);
    fw_sip_update(&s, payload, len);
    return fw_sip_final(&s);
}

static void hex64(char out[17], uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < 16u; i++) out[i] = digits[(v >> (60u - 4u * i)) & 15u];
    out[16] = 0;
}

/* Verifies params.requestState ("<payload>.<mac>") into state (FW_MCP_STATE_MAX bytes); sets
   q->msg->state when there is one. Not inlined: its buffer stays off the handler's stack. */
FW_NOINLINE static fw_err_t verify_state(fw_mcp_req_t *q, char *state)
{
    fw_device_t *dev = q->dev;
    char text[FW_MCP_STATE_MAX + 17];
    q->msg->state = NULL;
    if (fw_mcp_member(q, q->params, "requestState") < 0) return FW_OK;
    fw_err_t err = fw_mcp_string(q, q->params, "requestState", "requestState", false, text,
                                 sizeof text);
    if (err != FW_OK) return err;
    size_t len = strlen(text);
    char mac[17];
    if (len < 17 || text[len - 17] != '.' || !state_key(dev))
        return fw_call_param_error(q->call, "requestState", "%s",
                                   "is not a request state this device issued");
    hex64(mac, state_mac(dev, q, text, len - 17));
    uint8_t diff = 0; /* compared in constant time */
    for (unsigned i = 0; i < 16u; i++) diff |= (uint8_t)(mac[i] ^ text[len - 16 + i]);
    if (diff != 0)
        return fw_call_param_error(q->call, "requestState", "%s",
                                   "failed its integrity check (tampered, or issued before the "
                                   "device restarted)");
    memcpy(state, text, len - 17);
    state[len - 17] = 0;
    q->msg->state = state;
    return FW_OK;
}

/* params.inputResponses: an object of objects when present. */
static fw_err_t check_input_responses(fw_mcp_req_t *q)
{
    int32_t ir;
    fw_err_t err = fw_mcp_object(q, q->params, "inputResponses", "inputResponses", false, &ir);
    if (err != FW_OK || ir < 0) return err;
    const fw_json_tok_t *toks = q->doc->toks;
    uint32_t key = (uint32_t)ir + 1u;
    for (uint16_t i = 0; i < toks[ir].count; i++) {
        uint32_t value = key + 1u;
        if (toks[value].type != FW_JSON_OBJECT) {
            char name[40], path[56];
            fw_tok_name(q->doc, key, name, sizeof name);
            fw_fmt(path, sizeof path, "inputResponses.%s", name);
            return fw_call_param_error(q->call, path, "%s",
                                       "must be an object (the client's result for that "
                                       "input request)");
        }
        key = toks[value].next;
    }
    return FW_OK;
}

/* ---------------------------------------------------------------- the request's _meta */

int32_t fw_mcp_meta_version(const fw_mcp_req_t *q)
{
    int32_t meta = fw_mcp_meta(q);
    if (meta < 0 || q->doc->toks[meta].type != FW_JSON_OBJECT) return -1;
    int32_t v = fw_mcp_member(q, meta, meta_version);
    if (v < 0) return -1;
    if (q->doc->toks[v].type == FW_JSON_STRING) {
        size_t len;
        const char *raw = fw_json_tok_raw(q->doc, (uint32_t)v, &len);
        if (fw_mcp_version_supported(raw + 1, len - 2)) return -1; /* a stateful revision's */
    }
    return v;
}

static fw_err_t read_level(fw_mcp_req_t *q, int32_t meta, fw_session_t *s)
{
    char level[16];
    fw_err_t err = fw_mcp_string(q, meta, meta_level, "_meta/logLevel", false, level,
                                 sizeof level);
    if (err != FW_OK || level[0] == 0) return err;
    for (unsigned i = 0; i < FW_LOG_LEVEL_COUNT; i++) {
        if (strcmp(level, fw_log_level_name((fw_log_level_t)i)) != 0) continue;
        s->logging = true;
        s->log_level = (uint8_t)i;
        return FW_OK;
    }
    return fw_call_param_error(q->call, "_meta/logLevel", "%s",
                               "must be one of debug, info, notice, warning, error, critical, "
                               "alert, emergency");
}

fw_err_t fw_mcp_stateless_run(fw_mcp_req_t *q, const fw_mcp_method_t *m, int32_t version)
{
    fw_device_t *dev = q->dev;
    fw_msg_t *msg = q->msg;
    int32_t meta = fw_mcp_member(q, q->params, "_meta"), caps;
    if (!fw_json_str_eq(q->doc, (uint32_t)version, FW_MCP_STATELESS_VERSION)) {
        char *requested = fw_scratch_alloc(dev, 40);
        if (requested == NULL) return FW_ERR_NO_SPACE;
        fw_err_t err = fw_mcp_string(q, meta, meta_version, "_meta/protocolVersion", true,
                                     requested, 40);
        if (err != FW_OK) return err;
        msg->requested = requested;
        return fw_call_errorf(q->call, FW_ERR_PROTOCOL_VERSION,
                              "unsupported protocol version '%s': this server speaks %s without "
                              "a session, and 2024-11-05 to 2025-11-25 after initialize",
                              requested, FW_MCP_STATELESS_VERSION);
    }
    caps = fw_mcp_member(q, meta, meta_caps);
    if (caps < 0 || q->doc->toks[caps].type != FW_JSON_OBJECT)
        return fw_call_param_error(q->call, "_meta", "%s %s",
                                   caps < 0 ? "needs" : "needs an object as", meta_caps);
    fw_err_t err;
    if (m->flags & FW_MCP_REMOVED)
        return fw_call_errorf(q->call, FW_ERR_METHOD_NOT_FOUND,
                              "method '%s' not found: MCP %s removed it", m->name,
                              FW_MCP_STATELESS_VERSION);
    msg->method = m->name;
    msg->params = q->params;
    fw_session_t stateless, *s = &stateless; /* for this request only */
    char state[FW_MCP_STATE_MAX];
    fw_session_init(s, dev);
    s->initialize_seen = true;
    s->initialized = true;
    s->version = FW_MCP_VERSION_COUNT; /* the newest stateful one's content rules */
    s->client_caps = fw_mcp_client_caps(q, caps);
    err = read_level(q, meta, s);
    if (err == FW_OK && (m->flags & FW_MCP_INPUT)) err = check_input_responses(q);
    if (err == FW_OK && (m->flags & FW_MCP_INPUT)) err = verify_state(q, state);
    if (err != FW_OK) return err;
    fw_session_t *saved = msg->session;
    msg->session = s;
    q->session = s;
    msg->stateless = true;
    msg->result_hook = true; /* resultType and the caching members */
    msg->cacheable = (m->flags & FW_MCP_CACHEABLE) != 0;
    /* the answer to a fw_call_ask of the previous round (state "ask", inputResponses.ask) */
    fw_answer_t answer = {q->doc, -1, -1};
    if (msg->state != NULL && strcmp(msg->state, "ask") == 0) {
        int32_t ir = fw_mcp_member(q, q->params, "inputResponses");
        answer.result = fw_mcp_member(q, ir, "ask");
        if (answer.result >= 0) msg->answer = &answer;
    }
    err = m->run(q);
    msg->answer = NULL;
    msg->session = saved;
    return err;
}

/* ---------------------------------------------------------------- hooks of the layer */

void fw_mcp_result_opened(fw_device_t *dev, fw_jw_t *w)
{
    const fw_msg_t *m = dev->msg;
    if (m == NULL || !m->stateless) return;
    fw_jw_kv_str(w, "resultType",
                 m->input_required ? "input_required" : m->task_created ? "task" : "complete");
    if (m->task_created) return;
    if (!m->cacheable || m->input_required) return;
    /* Pin states change under the client's eyes and tools may be added at run time: nothing
       the device answers stays true for a known time. */
    fw_jw_kv_i64(w, "ttlMs", 0);
    fw_jw_kv_str(w, "cacheScope", "private");
}

static void empty(fw_jw_t *w, const char *key)
{
    fw_jw_key(w, key);
    fw_jw_obj_begin(w);
    fw_jw_obj_end(w);
}

bool fw_mcp_error_data(fw_device_t *dev, fw_jw_t *w, fw_err_t err)
{
    const fw_msg_t *m = dev->msg;
    if (err == FW_ERR_CLIENT_CAPABILITY && m != NULL) {
        fw_jw_key(w, "data");
        fw_jw_obj_begin(w);
        fw_jw_key(w, "requiredCapabilities");
        fw_jw_obj_begin(w);
        if (m->need_caps & FW_CLIENT_SAMPLING) empty(w, "sampling");
        if (m->need_caps & FW_CLIENT_ELICITATION) empty(w, "elicitation");
        if (m->need_caps & FW_CLIENT_ROOTS) empty(w, "roots");
        if (m->need_caps & FW_CLIENT_TASKS) {
            fw_jw_key(w, "extensions");
            fw_jw_obj_begin(w);
            empty(w, FW_MCP_TASKS_EXTENSION);
            fw_jw_obj_end(w);
        }
        fw_jw_obj_end(w);
        fw_jw_obj_end(w);
        return true;
    }
    if (err != FW_ERR_PROTOCOL_VERSION) return false;
    fw_jw_key(w, "data");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "supported");
    fw_mcp_write_versions(w);
    fw_jw_kv_str(w, "requested", m != NULL && m->requested != NULL ? m->requested : "");
    fw_jw_obj_end(w);
    return true;
}

/* ---------------------------------------------------------------- handler API */

bool fw_call_stateless(const fw_call_t *call)
{
    const fw_msg_t *m = call->dev->msg;
    return m != NULL && m->stateless;
}

fw_jw_t *fw_call_input_begin(fw_call_t *call)
{
    fw_msg_t *m = call->dev->msg;
    const fw_resp_t *r = call->priv;
    if (m == NULL || !m->stateless || r->result_started || !state_key(call->dev)) return NULL;
    m->input_required = true;
    fw_jw_t *w = fw_resp_result(call->dev, call->priv);
    fw_jw_key(w, "inputRequests");
    fw_jw_obj_begin(w);
    return w;
}

fw_err_t fw_call_input_end(fw_call_t *call, const char *state)
{
    fw_msg_t *m = call->dev->msg;
    fw_resp_t *r = call->priv;
    if (m == NULL || !m->input_required) return FW_ERR_ARG;
    fw_jw_t *w = r->w;
    fw_jw_close_to(w, (uint8_t)((r->batch_open != NULL ? 1 : 0) + 2u));
    if (state == NULL) return FW_OK;
    size_t len = strlen(state);
    if (len >= FW_MCP_STATE_MAX) len = FW_MCP_STATE_MAX - 1u;
    fw_mcp_req_t q = {.call = call,
                      .dev = call->dev,
                      .msg = m,
                      .session = m->session,
                      .doc = m->doc,
                      .params = m->params};
    char mac[17];
    hex64(mac, state_mac(call->dev, &q, state, len));
    fw_jw_key(w, "requestState");
    fw_jw_str_begin(w);
    fw_jw_str_chunk(w, state, len);
    fw_jw_str_chunk(w, ".", 1);
    fw_jw_str_chunk(w, mac, 16);
    fw_jw_str_end(w);
    return FW_OK;
}

int32_t fw_call_input_response(const fw_call_t *call, const char *key)
{
    const fw_msg_t *m = call->dev->msg;
    if (m == NULL || !m->stateless || m->params < 0) return -1;
    int32_t ir = fw_json_obj_get(m->doc, (uint32_t)m->params, "inputResponses");
    if (ir < 0 || m->doc->toks[ir].type != FW_JSON_OBJECT) return -1;
    int32_t v = fw_json_obj_get(m->doc, (uint32_t)ir, key);
    return v >= 0 && m->doc->toks[v].type == FW_JSON_OBJECT ? v : -1;
}

const fw_json_doc_t *fw_call_doc(const fw_call_t *call)
{
    const fw_msg_t *m = call->dev->msg;
    return m != NULL ? m->doc : NULL;
}

const char *fw_call_request_state(const fw_call_t *call)
{
    const fw_msg_t *m = call->dev->msg;
    return m != NULL && m->stateless ? m->state : NULL;
}

bool fw_call_client_has(const fw_call_t *call, uint8_t caps)
{
    const fw_msg_t *m = call->dev->msg;
    const fw_session_t *s = m != NULL ? m->session : NULL;
    return s != NULL && (s->client_caps & caps) == caps;
}

fw_err_t fw_call_need_client(fw_call_t *call, uint8_t caps)
{
    fw_msg_t *m = call->dev->msg;
    if (m != NULL) m->need_caps = caps;
    return fw_call_errorf(call, FW_ERR_CLIENT_CAPABILITY, "%s",
                          "this request needs client capabilities the client did not declare "
                          "(data.requiredCapabilities names them)");
}

#endif
