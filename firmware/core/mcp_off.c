/* mcp_off.c: the MCP part of the public API in a build without MCP (FW_WITH_MCP 0): sessions
   are plain connections, nothing is queued for them, and what only MCP can do is refused. */
#include <string.h>

#include "fw_internal.h"

#if !FW_WITH_MCP

bool fw_device_handle_session(fw_device_t *dev, fw_session_t *session, const char *msg, size_t len,
                              fw_msg_sink_t out)
{
    (void)session;
    return fw_rpc_handle(dev, NULL, msg, len, out, true);
}

void fw_device_feed_session(fw_device_t *dev, fw_session_t *session, fw_framer_t *fr,
                            const uint8_t *data, size_t len, fw_sink_t out)
{
    (void)session;
    fw_rpc_feed(dev, NULL, fr, data, len, out);
}

bool fw_device_session_waits(const fw_device_t *dev, const fw_session_t *session)
{
    (void)dev;
    (void)session;
    return false;
}

void fw_device_session_release(fw_device_t *dev, const fw_session_t *session)
{
    (void)dev;
    (void)session;
}

size_t fw_device_drain(fw_device_t *dev, fw_session_t *session, fw_msg_sink_t out)
{
    (void)dev;
    (void)session;
    (void)out;
    return 0;
}

bool fw_device_pending(fw_device_t *dev, uint32_t *mark)
{
    (void)dev;
    (void)mark;
    return false;
}

void fw_session_init(fw_session_t *session, const fw_device_t *dev)
{
    (void)dev;
    memset(session, 0, sizeof *session);
}

const char *fw_session_protocol_version(const fw_session_t *session)
{
    (void)session;
    return "";
}

bool fw_mcp_version_supported(const char *version, size_t len)
{
    (void)version;
    (void)len;
    return false;
}

const char *fw_log_level_name(fw_log_level_t level)
{
    (void)level;
    return NULL;
}

fw_err_t fw_device_add_resource(fw_device_t *dev, const struct fw_resource *res)
{
    (void)dev;
    (void)res;
    return FW_ERR_UNSUPPORTED;
}

fw_err_t fw_device_add_prompt(fw_device_t *dev, const struct fw_prompt *prompt)
{
    (void)dev;
    (void)prompt;
    return FW_ERR_UNSUPPORTED;
}

fw_err_t fw_device_resource_changed(fw_device_t *dev, const char *uri)
{
    (void)dev;
    (void)uri;
    return FW_ERR_UNSUPPORTED;
}

void fw_call_progress(fw_call_t *call, uint32_t done, uint32_t total, const char *message)
{
    (void)call;
    (void)done;
    (void)total;
    (void)message;
}

fw_err_t fw_call_ask(fw_call_t *call, const char *method, fw_jw_t **params)
{
    (void)params;
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s needs a build with MCP (FW_WITH_MCP)",
                          method);
}

const fw_answer_t *fw_call_answer(const fw_call_t *call)
{
    (void)call;
    return NULL;
}

bool fw_call_stateless(const fw_call_t *call)
{
    (void)call;
    return false;
}

fw_jw_t *fw_call_input_begin(fw_call_t *call)
{
    (void)call;
    return NULL;
}

fw_err_t fw_call_input_end(fw_call_t *call, const char *state)
{
    (void)call;
    (void)state;
    return FW_ERR_UNSUPPORTED;
}

int32_t fw_call_input_response(const fw_call_t *call, const char *key)
{
    (void)call;
    (void)key;
    return -1;
}

const fw_json_doc_t *fw_call_doc(const fw_call_t *call)
{
    (void)call;
    return NULL;
}

const char *fw_call_request_state(const fw_call_t *call)
{
    (void)call;
    return NULL;
}

bool fw_call_client_has(const fw_call_t *call, uint8_t caps)
{
    (void)call;
    (void)caps;
    return false;
}

fw_err_t fw_call_need_client(fw_call_t *call, uint8_t caps)
{
    (void)caps;
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "%s",
                          "client capabilities need a build with MCP (FW_WITH_MCP)");
}

#endif
