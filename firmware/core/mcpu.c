/* mcpu.c: the MCP/U core methods get_info and list_tools (device facts, tools, pin registry). */
#include <string.h>

#include "fw_internal.h"
#include "fw_sampling.h"

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

void fw_write_device_info(fw_jw_t *w, const fw_board_t *b)
{
    fw_jw_kv_str(w, "device", or_empty(b->device));
    fw_jw_kv_str(w, "version", or_empty(b->version));
    fw_jw_kv_str(w, "platform", or_empty(b->platform));
    fw_jw_kv_i64(w, "pin_count", b->pin_count);
    fw_jw_kv_str(w, "core_version", FW_S(FW_CORE_VERSION));
}

static fw_err_t get_info(fw_call_t *call)
{
    fw_write_device_info(fw_call_result(call), call->dev->board);
    return FW_OK;
}

/* ---------------------------------------------------------------- list_tools */

bool fw_tool_listed(const fw_tool_t *t, bool with_user_tools)
{
    uint8_t flags = fw_rd8(&t->flags);
    return with_user_tools || !(flags & FW_TOOL_USER_ONLY);
}

/* MCP/U's flags: readOnly and destructive only when set, and the polling suggestion. */
static void write_mcpu_flags(fw_jw_t *w, const fw_tool_t *t)
{
    if (t->flags & FW_TOOL_READ_ONLY) fw_jw_kv_bool(w, "readOnly", true);
    if (t->flags & FW_TOOL_DESTRUCTIVE) fw_jw_kv_bool(w, "destructive", true);
    if (t->poll_ms > 0) {
        fw_jw_key(w, "polling");
        fw_jw_obj_begin(w);
        fw_jw_kv_bool(w, "enabled", true);
        fw_jw_kv_i64(w, "interval_ms", t->poll_ms);
        fw_jw_obj_end(w);
    }
}

#if FW_WITH_MCP
/* MCP's annotations, both always written: MCP presumes a tool that is not read-only to be
   destructive unless destructiveHint says false. */
static void write_annotations(fw_jw_t *w, const fw_tool_t *t)
{
    fw_jw_key(w, "annotations");
    fw_jw_obj_begin(w);
    fw_jw_kv_bool(w, "readOnlyHint", (t->flags & FW_TOOL_READ_ONLY) != 0);
    fw_jw_kv_bool(w, "destructiveHint", (t->flags & FW_TOOL_DESTRUCTIVE) != 0);
    fw_jw_obj_end(w);
#if FW_WITH_TASKS
    if (t->flags & (FW_TOOL_TASK_OPTIONAL | FW_TOOL_TASK_REQUIRED)) {
        fw_jw_key(w, "execution");
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "taskSupport",
                     (t->flags & FW_TOOL_TASK_REQUIRED) ? "required" : "optional");
        fw_jw_obj_end(w);
    }
#endif
}
#endif

/* MCP requires inputSchema, so a board's omit_schemas applies to MCP/U only. */
void fw_write_tool(fw_jw_t *w, const fw_board_t *b, const fw_tool_t *rom_tool, bool mcp)
{
    FW_ROM_LOAD(fw_tool_t, t, rom_tool);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "name", t->name);
    fw_jw_kv_str(w, "description", or_empty(t->description));
    if (mcp || !b->omit_schemas) {
        fw_jw_key(w, "inputSchema");
#if FW_WITH_MCP
        if (mcp && (t->flags & FW_TOOL_SCHEMA_JSON) && t->user != NULL)
            fw_jw_raw(w, t->user, fw_strlen(t->user));
        else
#endif
            fw_schema_write(w, t);
    }
#if FW_WITH_MCP
    if (mcp) {
        if (t->out_count > 0 && t->out != NULL) {
            fw_jw_key(w, "outputSchema");
            fw_schema_write_output(w, t);
        }
        write_annotations(w, t);
        fw_jw_obj_end(w);
        return;
    }
#endif
    write_mcpu_flags(w, t);
    fw_jw_obj_end(w);
}

static void write_tools(fw_jw_t *w, const fw_device_t *dev, bool with_user_tools)
{
    fw_jw_key(w, "tools");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < dev->tool_count; i++)
        if (fw_tool_listed(dev->tools[i], with_user_tools))
            fw_write_tool(w, dev->board, dev->tools[i], false);
    fw_jw_arr_end(w);
}

#if FW_WITH_SAMPLING
/* Sampling metadata of an input pin with an interval (MCP/U's capabilities and sampling). */
static void write_sampling(fw_jw_t *w, const fw_pin_def_t *p)
{
    fw_jw_key(w, "capabilities");
    fw_jw_obj_begin(w);
    fw_jw_kv_bool(w, "summary", p->summary);
    fw_jw_kv_bool(w, "buffer", p->buffer);
    fw_jw_kv_bool(w, "events", p->events);
    fw_jw_obj_end(w);
    fw_jw_key(w, "sampling");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "interval_ms", p->sample_interval_ms);
    fw_jw_kv_i64(w, "buffer_size", p->buffer_size);
    fw_jw_obj_end(w);
    if (p->events && p->type == FW_PIN_ADC_INPUT) {
        fw_jw_key(w, "thresholds");
        fw_jw_obj_begin(w);
        fw_jw_kv_i64(w, "high", p->threshold_high);
        fw_jw_kv_i64(w, "low", p->threshold_low);
        fw_jw_obj_end(w);
    }
}
#endif

/* type is the pin's current type (pin_mode may have switched a digital pin's direction). */
void fw_write_pin_members(fw_jw_t *w, const fw_pin_def_t *p, uint8_t type)
{
    fw_jw_kv_i64(w, "pin", p->number);
    fw_jw_kv_str(w, "name", p->name);
    fw_jw_kv_str(w, "type", or_empty(fw_pin_type_name((fw_pin_type_t)type)));
    fw_jw_kv_str(w, "description", or_empty(p->description));
#if FW_WITH_SAMPLING
    if (fw_pin_sampled(p)) write_sampling(w, p);
#endif
}

static void write_pin(fw_jw_t *w, const fw_pin_def_t *p, uint8_t type)
{
    fw_jw_obj_begin(w);
    fw_write_pin_members(w, p, type);
    fw_jw_obj_end(w);
}

static void write_pins(fw_jw_t *w, const fw_device_t *dev)
{
    fw_jw_key(w, "pins");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < dev->board->pin_count; i++)
        write_pin(w, &dev->board->pins[i], dev->pins[i].type);
    fw_jw_arr_end(w);
}

static void write_capabilities(fw_jw_t *w)
{
    fw_jw_key(w, "capabilities");
    fw_jw_obj_begin(w);
    fw_jw_kv_bool(w, "sampling", FW_WITH_SAMPLING != 0);
    fw_jw_kv_bool(w, "events", FW_WITH_SAMPLING != 0);
    fw_jw_kv_bool(w, "batch", FW_WITH_BATCH != 0);
    fw_jw_obj_end(w);
    fw_jw_key(w, "limits");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "line_max", FW_LINE_MAX);
    fw_jw_kv_i64(w, "batch_max", FW_WITH_BATCH ? FW_BATCH_MAX : 1);
    fw_jw_obj_end(w);
}

/* Streams the whole manifest through the writer: nothing is assembled in memory. */
static fw_err_t list_tools(fw_call_t *call)
{
    const fw_device_t *dev = call->dev;
    bool with_user_tools = fw_call_arg(call, "with_user_tools")->i != 0;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_str(w, "device", or_empty(dev->board->device));
    fw_jw_kv_str(w, "version", or_empty(dev->board->version));
    write_tools(w, dev, with_user_tools);
    write_pins(w, dev);
    write_capabilities(w);
    return FW_OK;
}

/* ---------------------------------------------------------------- the method table */

/* Names in flash where constant data stays there (FW_ROM). */
static const char s_with_user_tools[] FW_ROM_STR = "with_user_tools";
static const char s_get_info[] FW_ROM_STR = "get_info";
static const char s_list_tools[] FW_ROM_STR = "list_tools";

static const fw_param_t list_tools_params[] FW_ROM = {
    {.name = s_with_user_tools,
     .type = FW_PARAM_BOOLEAN,
     .has_default = true,
     .def_int = 0,
     .description = FW_DESC("also list tools meant for the device's user only")},
};

const fw_tool_t fw_mcpu_methods[] FW_ROM = {
    {.name = s_get_info,
     .description = FW_DESC("Device name, firmware version, platform and pin count"),
     .flags = FW_TOOL_READ_ONLY,
     .handler = get_info},
    {.name = s_list_tools,
     .description = FW_DESC("Tools with their input schemas, and the pin registry"),
     .params = list_tools_params,
     .param_count = FW_ARRAY_LEN(list_tools_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = list_tools},
};

const size_t fw_mcpu_method_count = FW_ARRAY_LEN(fw_mcpu_methods);
