/* mcp_complete.c: MCP completion/complete: pin names for the pin://{name} template and for
   the prompt arguments that take a pin. */
#include <string.h>

#include "mcp_internal.h"

/* MCP caps a completion at 100 values; a registry never has that many pins. */
#define COMPLETION_MAX 100
_Static_assert(FW_PINS_MAX <= COMPLETION_MAX, "every pin name fits one completion");

/* Whether argument arg of the reference ref completes to pin names. */
static fw_err_t ref_wants_pins(fw_mcp_req_t *q, int32_t ref, const char *arg, bool *pins)
{
    char type[16], target[64];
    fw_err_t err = fw_mcp_string(q, ref, "type", "ref.type", true, type, sizeof type);
    if (err != FW_OK) return err;
    *pins = false;
    if (strcmp(type, "ref/resource") == 0) {
        err = fw_mcp_string(q, ref, "uri", "ref.uri", true, target, sizeof target);
        *pins =
            strcmp(target, FW_MCP_PIN_TEMPLATE) == 0 && strcmp(arg, FW_MCP_PIN_TEMPLATE_VAR) == 0;
        return err;
    }
    if (strcmp(type, "ref/prompt") != 0)
        return fw_call_param_error(q->call, "ref.type", "%s",
                                   "must be \"ref/prompt\" or \"ref/resource\"");
    err = fw_mcp_string(q, ref, "name", "ref.name", true, target, sizeof target);
    if (err != FW_OK) return err;
    const fw_mcp_prompt_t *p = fw_mcp_prompt_find(target);
    if (p == NULL)
        return fw_call_param_error(q->call, "ref.name", "unknown prompt '%s' (see prompts/list)",
                                   target);
    for (size_t i = 0; i < p->arg_count; i++)
        if (strcmp(p->args[i].name, arg) == 0) *pins = p->args[i].pin;
    return FW_OK;
}

/* An argument without completions (or an unknown one) gets an empty list. */
fw_err_t fw_mcp_complete(fw_mcp_req_t *q)
{
    int32_t ref, arg;
    char name[32], prefix[64];
    bool pins = false;
    fw_err_t err = fw_mcp_object(q, q->params, "ref", "ref", true, &ref);
    if (err == FW_OK) err = fw_mcp_object(q, q->params, "argument", "argument", true, &arg);
    if (err == FW_OK) err = fw_mcp_string(q, arg, "name", "argument.name", true, name, sizeof name);
    if (err == FW_OK)
        err = fw_mcp_string(q, arg, "value", "argument.value", false, prefix, sizeof prefix);
    if (err == FW_OK) err = ref_wants_pins(q, ref, name, &pins);
    if (err != FW_OK) return err;
    const fw_board_t *b = q->dev->board;
    size_t len = strlen(prefix);
    unsigned total = 0;
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "completion");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "values");
    fw_jw_arr_begin(w);
    for (size_t i = 0; pins && i < b->pin_count; i++) {
        if (strncmp(b->pins[i].name, prefix, len) != 0) continue;
        fw_jw_str(w, b->pins[i].name);
        total++;
    }
    fw_jw_arr_end(w);
    fw_jw_kv_i64(w, "total", total);
    fw_jw_kv_bool(w, "hasMore", false);
    fw_jw_obj_end(w);
    return FW_OK;
}
