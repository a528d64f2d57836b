/* mcp_envelope.c: the envelope of an incoming message, read by the core's own JSON reader for a
   transport that must know it before the device runs the message (fw_envelope_read). */
#include "fw_internal.h"

/* Not only with FW_WITH_MCP: a host's transports read envelopes in every profile (an MCU's
   linker drops it, as nothing there calls it). */

static bool is_request(const fw_json_doc_t *doc, uint32_t tok)
{
    if (doc->toks[tok].type != FW_JSON_OBJECT) return false;
    int32_t id, method, params;
    fw_rpc_read_members(doc, tok, &id, &method, &params);
    return method >= 0 && id >= 0;
}

/* The value of member key of token obj when obj is an object, else -1. */
static int32_t member(const fw_json_doc_t *doc, int32_t obj, const char *key)
{
    if (obj < 0 || doc->toks[obj].type != FW_JSON_OBJECT) return -1;
    return (fw_json_obj_get)(doc, (uint32_t)obj, key);
}

fw_err_t fw_envelope_read(fw_envelope_t *env, const char *msg, size_t len, fw_json_tok_t *toks,
                          uint32_t ntoks)
{
    env->batch = env->requests = false;
    env->id = env->method = env->params = env->meta = env->version = env->caps = -1;
    env->doc.buf = msg; /* (for fw_device_handle_envelope, whatever the verdict) */
    env->doc.len = len;
    /* the limits fw_rpc_handle reads a message with: the same bytes, the same verdict */
    if (ntoks > FW_JSON_TOKENS_MAX) ntoks = FW_JSON_TOKENS_MAX;
    env->err = len > FW_MSG_MAX - 1u
                   ? FW_ERR_JSON_NOMEM
                   : fw_json_parse(&env->doc, msg, len, toks, ntoks, FW_JSON_DEPTH_MAX);
    if (env->err != FW_OK) return env->err;
    const fw_json_doc_t *doc = &env->doc;
    if (doc->toks[0].type == FW_JSON_ARRAY) {
        env->batch = true;
        for (uint32_t i = 0; i < doc->toks[0].count && !env->requests; i++) {
            int32_t el = fw_json_arr_get(doc, 0, i);
            env->requests = el >= 0 && is_request(doc, (uint32_t)el);
        }
        return FW_OK;
    }
    if (doc->toks[0].type != FW_JSON_OBJECT) return FW_OK;
    fw_rpc_read_members(doc, 0, &env->id, &env->method, &env->params);
    env->requests = env->method >= 0 && env->id >= 0;
    env->meta = member(doc, env->params, FW_S("_meta"));
    env->version = member(doc, env->meta, FW_S("io.modelcontextprotocol/protocolVersion"));
    env->caps = member(doc, env->meta, FW_S("io.modelcontextprotocol/clientCapabilities"));
    return FW_OK;
}

bool fw_device_handle_envelope(fw_device_t *dev, fw_session_t *session, const fw_envelope_t *env,
                               fw_msg_sink_t out)
{
#if FW_WITH_MCP
    void *layer_session = session;
#else
    void *layer_session = NULL; /* (sessions are plain connections: fw_device_handle_session) */
    (void)session;
#endif
    /* a reading with fewer tokens than the device's may have failed where the device's would
       not: only a success is taken as it is */
    return fw_rpc_handle_parsed(dev, layer_session, &env->doc, env->err == FW_OK, out);
}
