/* mcp_complete.c: MCP completion/complete: pin names for the pin://{name} template and for
   the prompt arguments that take a pin; the values an application prompt's argument lists. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

/* MCP caps a completion at 100 values; a registry never has that many pins. */
#define COMPLETION_MAX 100
_Static_assert(FW_PINS_MAX <= COMPLETION_MAX, "every pin name fits one completion");

/* What an argument completes to: the registry's pin names, a fixed list, or nothing. */
typedef struct source {
    bool pins;
    const char *const *values; /* NULL-terminated */
} source_t;

static fw_err_t prompt_source(fw_mcp_req_t *q, const char *name, const char *arg, source_t *src)
{
    const fw_mcp_prompt_t *p = fw_mcp_prompt_find(name);
    const fw_prompt_t *extra = fw_mcp_extra_prompt_find(q->dev, name);
    for (size_t i = 0; p != NULL && i < p->arg_count; i++)
        if (strcmp(p->args[i].name, arg) == 0) src->pins = p->args[i].pin;
    for (size_t i = 0; extra != NULL && i < extra->arg_count; i++)
        if (strcmp(extra->args[i].name, arg) == 0) src->values = extra->args[i].completions;
    if (p == NULL && extra == NULL)
        return fw_call_param_error(q->call, "ref.name", "unknown prompt '%s' (see prompts/list)",
                                   name);
    return FW_OK;
}

/* What argument arg of the reference ref completes to (the application's resource templates
   offer none). */
static fw_err_t ref_source(fw_mcp_req_t *q, int32_t ref, const char *arg, source_t *src)
{
    char type[16], target[FW_MCP_PROMPT_NAME_MAX];
    fw_err_t err = fw_mcp_string(q, ref, "type", "ref.type", true, type, sizeof type);
    if (err != FW_OK) return err;
    if (strcmp(type, "ref/resource") == 0) {
        err = fw_mcp_string(q, ref, "uri", "ref.uri", true, target, sizeof target);
        src->pins =
            strcmp(target, FW_MCP_PIN_TEMPLATE) == 0 && strcmp(arg, FW_MCP_PIN_TEMPLATE_VAR) == 0;
        return err;
    }
    if (strcmp(type, "ref/prompt") != 0)
        return fw_call_param_error(q->call, "ref.type", "%s",
                                   "must be \"ref/prompt\" or \"ref/resource\"");
    err = fw_mcp_string(q, ref, "name", "ref.name", true, target, sizeof target);
    if (err != FW_OK) return err;
    return prompt_source(q, target, arg, src);
}

/* Writes the values of src starting with prefix (len bytes), at most COMPLETION_MAX of
   them; returns how many match. */
static unsigned write_values(fw_jw_t *w, const fw_device_t *dev, const source_t *src,
                             const char *prefix, size_t len)
{
    unsigned total = 0;
    const fw_board_t *b = dev->board;
    for (size_t i = 0; src->pins && i < b->pin_count; i++) {
        if (strncmp(b->pins[i].name, prefix, len) != 0) continue;
        fw_jw_str(w, b->pins[i].name);
        total++;
    }
    for (size_t i = 0; src->values != NULL && src->values[i] != NULL; i++) {
        if (strncmp(src->values[i], prefix, len) != 0) continue;
        if (total++ < COMPLETION_MAX) fw_jw_str(w, src->values[i]);
    }
    return total;
}

/* An argument without completions (or an unknown one) gets an empty list. */
fw_err_t fw_mcp_complete(fw_mcp_req_t *q)
{
    int32_t ref, arg;
    char name[32], prefix[64];
    source_t src = {false, NULL};
    fw_err_t err = fw_mcp_object(q, q->params, "ref", "ref", true, &ref);
    if (err == FW_OK) err = fw_mcp_object(q, q->params, "argument", "argument", true, &arg);
    if (err == FW_OK) err = fw_mcp_string(q, arg, "name", "argument.name", true, name, sizeof name);
    if (err == FW_OK)
        err = fw_mcp_string(q, arg, "value", "argument.value", false, prefix, sizeof prefix);
    if (err == FW_OK) err = ref_source(q, ref, name, &src);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "completion");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "values");
    fw_jw_arr_begin(w);
    unsigned total = write_values(w, q->dev, &src, prefix, strlen(prefix));
    fw_jw_arr_end(w);
    fw_jw_kv_i64(w, "total", total);
    fw_jw_kv_bool(w, "hasMore", total > COMPLETION_MAX);
    fw_jw_obj_end(w);
    return FW_OK;
}

#endif
