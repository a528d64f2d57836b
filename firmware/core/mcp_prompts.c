/* mcp_prompts.c: the device's MCP prompts (diagnose_pin, board_overview), their text built
   from the registry and the pins' current state, and the application's (fw_device_add_prompt):
   prompts/list and prompts/get. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

static const char *type_of(const fw_device_t *dev, size_t i)
{
    return or_empty(fw_pin_type_name((fw_pin_type_t)dev->pins[i].type));
}

/* Starts the result: description, then messages: [ (the caller writes the messages). */
static fw_jw_t *begin_messages(fw_mcp_req_t *q)
{
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "messages");
    fw_jw_arr_begin(w);
    return w;
}

/* Opens a user message whose content is text: the caller writes the string's chunks. */
static void begin_text_message(fw_jw_t *w)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "role", "user");
    fw_jw_key(w, "content");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
}

static void end_text_message(fw_jw_t *w)
{
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

/* ---------------------------------------------------------------- diagnose_pin */

/* Whether tool takes pin i in its current type through a pin parameter. */
static bool tool_takes_pin(const fw_device_t *dev, const fw_tool_t *t, size_t i)
{
    for (size_t p = 0; p < t->param_count; p++) {
        const fw_param_t *param = &t->params[p];
        if (param->type != FW_PARAM_PIN) continue;
        if (param->pin_types == 0 || (param->pin_types & FW_PINMASK(dev->pins[i].type)))
            return true;
    }
    return false;
}

static void chunk_pin_tools(fw_jw_t *w, const fw_device_t *dev, size_t i)
{
    unsigned n = 0;
    for (size_t k = 0; k < dev->tool_count; k++) {
        const fw_tool_t *t = dev->tools[k];
        if (!fw_tool_listed(t, false) || !tool_takes_pin(dev, t, i)) continue;
        fw_mcp_chunkf(w, "%s%s", n++ ? ", " : "", t->name);
    }
    if (n == 0) fw_mcp_chunk(w, "none");
}

static void chunk_diagnosis(fw_jw_t *w, const fw_device_t *dev, size_t i,
                            const fw_mcp_reading_t *rd)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_mcp_chunkf(w, "Diagnose pin %u (%s) of the device %s: a %s", (unsigned)def->number,
                  def->name, or_empty(dev->board->device), type_of(dev, i));
    if (def->description != NULL && def->description[0] != 0)
        fw_mcp_chunkf(w, " described as \"%s\"", def->description);
    if (fw_pin_sampled(def))
        fw_mcp_chunkf(w, ", sampled every %u ms", (unsigned)def->sample_interval_ms);
    fw_mcp_chunkf(w, ". Its state, read just now, is attached as pin://%s", def->name);
    if (rd->err != FW_OK) fw_mcp_chunkf(w, " (reading it failed: %s)", fw_err_str(rd->err));
    fw_mcp_chunk(w, ". Tools that take this pin: ");
    chunk_pin_tools(w, dev, i);
    fw_mcp_chunk(w, ". Check whether the pin behaves as its description says, explain what you "
                    "find, and suggest next steps. Ask before changing any output.");
}

/* The pin's resource, embedded in a second message. */
static void write_embedded_pin(fw_jw_t *w, const fw_device_t *dev, size_t i,
                               const fw_mcp_reading_t *rd)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "role", "user");
    fw_jw_key(w, "content");
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "resource");
    fw_jw_key(w, "resource");
    fw_jw_obj_begin(w);
    fw_jw_key(w, "uri");
    fw_mcp_write_pin_uri(w, &dev->board->pins[i]);
    fw_jw_kv_str(w, "mimeType", "application/json");
    fw_jw_key(w, "text");
    fw_mcp_write_pin_text(w, dev, i, rd);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

static fw_err_t diagnose_pin(fw_mcp_req_t *q, int32_t args)
{
    char name[32];
    fw_mcp_reading_t rd;
    fw_err_t err = fw_mcp_string(q, args, "pin", "arguments.pin", true, name, sizeof name);
    if (err != FW_OK) return err;
    int i = fw_pin_lookup_name(q->dev, name);
    if (i < 0)
        return fw_call_param_error(q->call, "arguments.pin", "no pin named '%s' on this board",
                                   name);
    fw_mcp_read_pin(q->dev, (size_t)i, &rd); /* a failed read is part of the diagnosis */
    fw_jw_t *w = begin_messages(q);
    begin_text_message(w);
    chunk_diagnosis(w, q->dev, (size_t)i, &rd);
    end_text_message(w);
    write_embedded_pin(w, q->dev, (size_t)i, &rd);
    fw_jw_arr_end(w);
    fw_jw_key(w, "description");
    fw_jw_str_begin(w);
    fw_mcp_chunkf(w, "Diagnose pin %u (%s)", (unsigned)q->dev->board->pins[i].number,
                  q->dev->board->pins[i].name);
    fw_jw_str_end(w);
    return FW_OK;
}

/* ---------------------------------------------------------------- board_overview */

static void chunk_pins(fw_jw_t *w, const fw_device_t *dev)
{
    for (size_t i = 0; i < dev->board->pin_count; i++) {
        const fw_pin_def_t *def = &dev->board->pins[i];
        fw_mcp_chunkf(w, "\n- %s: pin %u, %s", def->name, (unsigned)def->number, type_of(dev, i));
        if (fw_pin_sampled(def))
            fw_mcp_chunkf(w, ", sampled every %u ms", (unsigned)def->sample_interval_ms);
        if (def->description != NULL && def->description[0] != 0)
            fw_mcp_chunkf(w, " (%s)", def->description);
    }
}

static const char *effect_of(const fw_tool_t *t)
{
    if (t->flags & FW_TOOL_READ_ONLY) return "read-only";
    return (t->flags & FW_TOOL_DESTRUCTIVE) ? "destructive" : "changes device state";
}

static void chunk_tools(fw_jw_t *w, const fw_device_t *dev)
{
    for (size_t k = 0; k < dev->tool_count; k++)
        if (fw_tool_listed(dev->tools[k], false))
            fw_mcp_chunkf(w, "\n- %s (%s)", dev->tools[k]->name, effect_of(dev->tools[k]));
}

static unsigned listed_tools(const fw_device_t *dev)
{
    unsigned n = 0;
    for (size_t k = 0; k < dev->tool_count; k++) n += fw_tool_listed(dev->tools[k], false);
    return n;
}

static fw_err_t board_overview(fw_mcp_req_t *q, int32_t args)
{
    const fw_board_t *b = q->dev->board;
    (void)args;
    fw_jw_t *w = begin_messages(q);
    begin_text_message(w);
    fw_mcp_chunkf(w, "The device %s %s (%s, firmware core %s) has %u pins:", or_empty(b->device),
                  or_empty(b->version), or_empty(b->platform), FW_CORE_VERSION,
                  (unsigned)b->pin_count);
    chunk_pins(w, q->dev);
    fw_mcp_chunkf(w, "\nand %u tools:", listed_tools(q->dev));
    chunk_tools(w, q->dev);
    fw_mcp_chunk(w, "\nGive an overview of what this device can sense and control, and suggest "
                    "how to monitor and operate it safely with these tools and the pin://<name> "
                    "resources.");
    end_text_message(w);
    fw_jw_arr_end(w);
    fw_jw_key(w, "description");
    fw_jw_str_begin(w);
    fw_mcp_chunkf(w, "Overview of %s", or_empty(b->device));
    fw_jw_str_end(w);
    return FW_OK;
}

/* ---------------------------------------------------------------- the prompt table */

static const fw_mcp_prompt_arg_t diagnose_args[] = {
    {"pin", "Name (or number) of the pin to diagnose", true, true},
};

static const fw_mcp_prompt_t prompts[] = {
    {"diagnose_pin", "Diagnose a pin",
     "Check one pin: its registry entry and current state, and the tools that act on it",
     diagnose_args, FW_ARRAY_LEN(diagnose_args), diagnose_pin},
    {"board_overview", "Board overview",
     "What this device's pins and tools are and how to use them", NULL, 0, board_overview},
};

const fw_mcp_prompt_t *fw_mcp_prompt_find(const char *name)
{
    for (size_t i = 0; i < FW_ARRAY_LEN(prompts); i++)
        if (strcmp(prompts[i].name, name) == 0) return &prompts[i];
    return NULL;
}

/* ---------------------------------------------------------------- the application's */

const fw_prompt_t *fw_mcp_extra_prompt_find(const fw_device_t *dev, const char *name)
{
    for (size_t k = 0; k < dev->prompt_count; k++)
        if (strcmp(dev->prompts[k]->name, name) == 0) return dev->prompts[k];
    return NULL;
}

static bool prompt_valid(const fw_prompt_t *p)
{
    if (p->name == NULL || p->name[0] == 0 || strlen(p->name) >= FW_MCP_PROMPT_NAME_MAX ||
        p->get == NULL || p->arg_count > FW_PARAMS_MAX)
        return false;
    if (p->arg_count > 0 && p->args == NULL) return false;
    for (size_t i = 0; i < p->arg_count; i++) {
        if (p->args[i].name == NULL || p->args[i].name[0] == 0) return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->args[j].name, p->args[i].name) == 0) return false;
    }
    return true;
}

fw_err_t fw_device_add_prompt(fw_device_t *dev, const fw_prompt_t *prompt)
{
    if (dev == NULL || prompt == NULL || !prompt_valid(prompt)) return FW_ERR_ARG;
    if (fw_mcp_prompt_find(prompt->name) != NULL ||
        fw_mcp_extra_prompt_find(dev, prompt->name) != NULL)
        return FW_ERR_EXISTS;
    if (dev->prompt_count >= FW_EXTRA_PROMPTS_MAX) return FW_ERR_NO_SPACE;
    dev->prompts[dev->prompt_count++] = prompt;
#if FW_WITH_LISTEN
    dev->list_gen[FW_LIST_PROMPTS]++; /* listen streams that follow the list hear of it */
#endif
    return FW_OK;
}

static void write_extra_prompt(fw_jw_t *w, const fw_prompt_t *p)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "name", p->name);
    if (p->title != NULL) fw_jw_kv_str(w, "title", p->title);
    if (p->description != NULL) fw_jw_kv_str(w, "description", p->description);
    fw_jw_key(w, "arguments");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < p->arg_count; i++) {
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "name", p->args[i].name);
        if (p->args[i].description != NULL) fw_jw_kv_str(w, "description", p->args[i].description);
        fw_jw_kv_bool(w, "required", p->args[i].required);
        fw_jw_obj_end(w);
    }
    fw_jw_arr_end(w);
    fw_jw_obj_end(w);
}

/* Decodes string token tok into the call's scratch; NULL (an issue recorded) when it is not a
   string, holds NUL or does not fit. */
static const char *decode_arg(fw_mcp_req_t *q, int32_t tok, const char *path)
{
    const fw_json_tok_t *t = &q->doc->toks[tok];
    if (t->type != FW_JSON_STRING) {
        fw_call_param_error(q->call, path, "%s", "must be a string");
        return NULL;
    }
    size_t cap = (size_t)(t->end - t->start) + 1u; /* escapes only shrink */
    char *out = fw_scratch_alloc(q->dev, cap);
    int32_t len = out != NULL ? fw_json_str_decode(q->doc, (uint32_t)tok, out, cap) : -1;
    if (len < 0) {
        fw_call_param_error(q->call, path, "is longer than the %u bytes the device can hold",
                            (unsigned)FW_SCRATCH_SIZE);
        return NULL;
    }
    if (memchr(out, 0, (size_t)len) != NULL) {
        fw_call_param_error(q->call, path, "%s", "must not contain NUL characters");
        return NULL;
    }
    return out;
}

/* Checks and decodes the arguments (object token args, or -1), then runs the prompt. */
static fw_err_t get_extra(fw_mcp_req_t *q, const fw_prompt_t *p, int32_t args)
{
    const char *argv[FW_PARAMS_MAX];
    bool bad = false;
    for (size_t i = 0; i < p->arg_count; i++) {
        char path[32];
        int32_t tok = fw_mcp_member(q, args, p->args[i].name);
        fw_fmt(path, sizeof path, "arguments.%s", p->args[i].name);
        argv[i] = tok >= 0 ? decode_arg(q, tok, path) : NULL;
        if (tok < 0 && p->args[i].required)
            fw_call_param_error(q->call, path, "%s", "required argument missing");
        bad = bad || (argv[i] == NULL && (tok >= 0 || p->args[i].required));
    }
    if (bad) return FW_ERR_INVALID_PARAMS;
    return p->get(q->call, p, argv);
}

static void write_prompt(fw_jw_t *w, const fw_mcp_prompt_t *p)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "name", p->name);
    fw_jw_kv_str(w, "title", p->title);
    fw_jw_kv_str(w, "description", p->description);
    fw_jw_key(w, "arguments");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < p->arg_count; i++) {
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "name", p->args[i].name);
        fw_jw_kv_str(w, "description", p->args[i].description);
        fw_jw_kv_bool(w, "required", p->args[i].required);
        fw_jw_obj_end(w);
    }
    fw_jw_arr_end(w);
    fw_jw_obj_end(w);
}

fw_err_t fw_mcp_prompts_list(fw_mcp_req_t *q)
{
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "prompts");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < FW_ARRAY_LEN(prompts); i++) write_prompt(w, &prompts[i]);
    for (size_t k = 0; k < q->dev->prompt_count; k++) write_extra_prompt(w, q->dev->prompts[k]);
    fw_jw_arr_end(w);
    return FW_OK;
}

fw_err_t fw_mcp_prompts_get(fw_mcp_req_t *q)
{
    char name[FW_MCP_PROMPT_NAME_MAX];
    int32_t args;
    fw_err_t err = fw_mcp_string(q, q->params, "name", "name", true, name, sizeof name);
    if (err == FW_OK) err = fw_mcp_object(q, q->params, "arguments", "arguments", false, &args);
    if (err != FW_OK) return err;
    const fw_mcp_prompt_t *p = fw_mcp_prompt_find(name);
    const fw_prompt_t *extra = fw_mcp_extra_prompt_find(q->dev, name);
    if (p != NULL) return p->get(q, args);
    if (extra != NULL) return get_extra(q, extra, args);
    return fw_call_param_error(q->call, "name", "unknown prompt '%s' (see prompts/list)", name);
}

#endif
