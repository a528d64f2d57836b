/* mcp_ask.c: requests from the device to the MCP client (sampling, elicitation, roots) and the
   tools/call whose response waits for the answer. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/*
 * A single-core device cannot block a tool until the client has answered, so a tool that asks
 * the client is run twice: the first run writes the request (fw_call_ask) and its response is
 * deferred; the session records which tool waits, for which call id, and the id of the
 * request. When a later message of the session carries the client's response to that id, the
 * tool runs again and its result is written as the response of the waiting call: over a byte
 * stream a line after the client's one, over HTTP a message for the session's stream. One
 * request per session is outstanding at a time; initialize and notifications/cancelled of the
 * waiting call end the wait, and a late answer is then ignored.
 */

/* The client capability a request method needs (FW_CLIENT_*), or 0. */
static uint8_t capability_of(const char *method, const char **name)
{
    static const struct {
        const char *prefix;
        uint8_t bit;
    } caps[] = {{"sampling/", FW_CLIENT_SAMPLING},
                {"elicitation/", FW_CLIENT_ELICITATION},
                {"roots/", FW_CLIENT_ROOTS}};
    for (size_t i = 0; i < FW_ARRAY_LEN(caps); i++) {
        size_t n = strlen(caps[i].prefix);
        if (strncmp(method, caps[i].prefix, n) != 0) continue;
        *name = caps[i].prefix;
        return caps[i].bit;
    }
    return 0;
}

/* Why the call cannot ask now (the error worded), or FW_OK. */
static fw_err_t check_ask(fw_call_t *call, const fw_msg_t *m, const char *method)
{
    const fw_resp_t *r = call->priv;
    const char *cap = "";
    if (m == NULL || m->asked || r->result_started || r->tool_started)
        return fw_call_errorf(call, FW_ERR_ARG, "%s",
                              "fw_call_ask: one request per run, before the result");
    if (!m->live)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s",
                              "this call cannot send requests to the client: only an MCP "
                              "tools/call request outside a batch, on a transport that frames "
                              "messages, can");
    const fw_session_t *s = m->session;
    uint8_t need = capability_of(method, &cap);
    if (need != 0 && !(s->client_caps & need))
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED,
                              "the client did not declare the capability %s requests need", cap);
    if (s->ask_tool != NULL)
        return fw_call_errorf(call, FW_ERR_NO_SPACE,
                              "the session already waits for the client's answer to request %u",
                              (unsigned)s->ask_id);
    if (r->id_len > FW_MCP_ID_MAX)
        return fw_call_errorf(call, FW_ERR_NO_SPACE,
                              "the request id is longer than %u bytes (FW_MCP_ID_MAX): the "
                              "call cannot wait",
                              (unsigned)FW_MCP_ID_MAX);
    return FW_OK;
}

/*
 * In a request of MCP 2026-07-28 the device sends no request of its own: the ask becomes an
 * input-required result with the one input request "ask" and the request state "ask"; the
 * client sends the tools/call again with the answer in inputResponses.ask, and the handler runs
 * again with fw_call_answer giving it (its arguments bound this time: they came again).
 */
static fw_err_t ask_stateless(fw_call_t *call, fw_msg_t *m, const char *method, fw_jw_t **params)
{
    const char *cap = "";
    uint8_t need = capability_of(method, &cap);
    const fw_resp_t *r = call->priv;
    if (m->asked || r->result_started || r->tool_started)
        return fw_call_errorf(call, FW_ERR_ARG, "%s",
                              "fw_call_ask: one request per run, before the result");
    if (need != 0 && !fw_call_client_has(call, need)) return fw_call_need_client(call, need);
    fw_jw_t *w = fw_call_input_begin(call);
    if (w == NULL)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s",
                              "the device cannot issue request states (no entropy in its HAL)");
    m->ask_input = true;
    fw_jw_key(w, "ask");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "method", method);
    fw_jw_key(w, "params");
    fw_jw_obj_begin(w);
    *params = w;
    return FW_OK;
}

/* After a stateless handler that asked: its input-required result gets the state "ask". */
void fw_mcp_ask_input_end(fw_call_t *call)
{
    fw_msg_t *m = call->dev->msg;
    if (m == NULL || !m->ask_input) return;
    m->ask_input = false;
    fw_call_input_end(call, "ask");
}

fw_err_t fw_call_ask(fw_call_t *call, const char *method, fw_jw_t **params)
{
    fw_msg_t *m = call->dev->msg;
    const fw_resp_t *r = call->priv;
    *params = NULL;
    if (m != NULL && m->stateless) return ask_stateless(call, m, method, params);
    fw_err_t err = check_ask(call, m, method);
    if (err != FW_OK) return err;
    fw_session_t *s = m->session;
    if (++s->ask_id == 0) s->ask_id = 1;
    s->ask_tool = call->tool;
    memmove(s->ask_call, r->id, r->id_len); /* asking again: r->id is s->ask_call itself */
    s->ask_call_len = (uint8_t)r->id_len;
    m->asked = true;
    m->live = false; /* nothing may come between the request's members */
    m->ask_w = r->w;
    m->result_hook = true; /* the request is ended when the result starts */
    fw_jw_obj_begin(r->w);
    fw_jw_kv_str(r->w, "jsonrpc", "2.0");
    fw_jw_key(r->w, "id");
    fw_jw_u64(r->w, s->ask_id);
    fw_jw_kv_str(r->w, "method", method);
    fw_jw_key(r->w, "params");
    fw_jw_obj_begin(r->w);
    *params = r->w;
    return FW_OK;
}

void fw_mcp_ask_end(fw_device_t *dev)
{
    fw_msg_t *m = dev->msg;
    if (m == NULL || m->ask_w == NULL) return;
    fw_jw_t *w = m->ask_w;
    m->ask_w = NULL;
    fw_jw_close_to(w, 0);
    fw_jw_flush(w);
    fw_msg_sink_end(&m->out, FW_MSG_REQUEST, 0);
    fw_jw_init(w, w->sink); /* the response is a document of its own */
}

const fw_answer_t *fw_call_answer(const fw_call_t *call)
{
    const fw_msg_t *m = call->dev->msg;
    return m != NULL ? m->answer : NULL;
}

/* Whether token id is the number n (as the device wrote it: plain decimal digits). */
static bool id_is(const fw_json_doc_t *doc, int32_t id, uint32_t n)
{
    char text[12];
    size_t len, want = fw_fmt(text, sizeof text, "%u", (unsigned)n);
    if (id < 0 || doc->toks[id].type != FW_JSON_NUMBER) return false;
    const char *raw = fw_json_tok_raw(doc, (uint32_t)id, &len);
    return len == want && memcmp(raw, text, len) == 0;
}

fw_err_t fw_mcp_answer(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t msg, fw_resp_t *r,
                       bool *taken)
{
    fw_session_t *s = dev->msg->session;
    const fw_tool_t *tool = s->ask_tool;
    *taken = false;
    if (tool == NULL || !id_is(doc, fw_json_obj_get(doc, msg, "id"), s->ask_id)) return FW_OK;
    s->ask_tool = NULL;
    /* the device was initialised again since (without that tool): the answer is moot */
    if (fw_device_find_tool(dev, tool->name) != tool) return FW_OK;
    fw_call_t call;
    memset(&call, 0, sizeof call);
    call.dev = dev;
    call.tool = tool;
    call.priv = r;
    r->id = s->ask_call; /* fw_call_ask only ever copies the same id over it */
    r->id_len = s->ask_call_len;
    *taken = true;
    return fw_mcp_resume(&call, doc, msg);
}

#endif
