/* system.c: the built-in system_info tool: identity, uptime, chip facts, pool sizes, counters. */
#include "fw_builtins.h"
#include "fw_device.h"
#include "fw_sampling.h"

/* Chip facts from the port, all zero/NULL when it has no device_info or it fails. */
static hal_device_info_t chip_info(const fw_device_t *dev)
{
    hal_device_info_t info = {0};
    if (fw_hal_device_info(dev, &info) != FW_OK) {
        hal_device_info_t none = {0};
        return none;
    }
    return info;
}

/* A board's text member, "" when the board leaves it out (as get_info writes it). */
static void kv_board_str(fw_jw_t *w, const char *key, const char *s)
{
    (fw_jw_kv_str)(w, key, s != NULL ? s : "");
}

/* Members the port does not know (0, "" or NULL) are left out. */
static void write_chip(fw_jw_t *w, hal_device_info_t info)
{
    if (info.chip != NULL && fw_rd8(info.chip) != 0) fw_jw_kv_str(w, "chip", info.chip);
    if (info.cpu_mhz) fw_jw_kv_i64(w, "cpu_mhz", info.cpu_mhz);
    if (info.ram_bytes) fw_jw_kv_i64(w, "ram_bytes", info.ram_bytes);
    if (info.flash_bytes) fw_jw_kv_i64(w, "flash_bytes", info.flash_bytes);
    if (info.unique_id != NULL && fw_rd8(info.unique_id) != 0)
        fw_jw_kv_str(w, "unique_id", info.unique_id);
}

/* The fixed pools a port sized at build time, and how full the ones that fill up are. */
static void write_memory(fw_jw_t *w, const fw_device_t *dev)
{
    fw_jw_key(w, "memory");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "device_instance_bytes", (int64_t)sizeof(fw_device_t));
    fw_jw_kv_i64(w, "line_max", FW_LINE_MAX);
    fw_jw_kv_i64(w, "json_tokens", FW_JSON_TOKENS_MAX);
    fw_jw_kv_i64(w, "tools_max", FW_TOOLS_MAX);
    fw_jw_kv_i64(w, "tools_used", (int64_t)fw_device_tool_count(dev));
    fw_jw_kv_i64(w, "pins_max", FW_PINS_MAX);
    fw_jw_kv_i64(w, "pins_used", fw_device_board(dev)->pin_count);
#if FW_WITH_SAMPLING
    fw_jw_kv_i64(w, "event_queue", FW_EVENT_QUEUE_MAX);
    fw_jw_kv_i64(w, "events_queued", fw_event_count(dev));
#endif
    fw_jw_kv_i64(w, "scratch_bytes", FW_SCRATCH_SIZE);
    fw_jw_obj_end(w);
}

static void write_counters(fw_jw_t *w, const fw_counters_t *c)
{
    fw_jw_key(w, "counters");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "requests", c->requests);
    fw_jw_kv_i64(w, "errors", c->errors);
    fw_jw_kv_i64(w, "parse_errors", c->parse_errors);
    fw_jw_kv_i64(w, "notifications", c->notifications);
    fw_jw_kv_i64(w, "overlong_lines", c->overlong_lines);
    fw_jw_kv_i64(w, "events_dropped", c->events_dropped);
    fw_jw_obj_end(w);
}

static fw_err_t system_info_fn(fw_call_t *call)
{
    const fw_device_t *dev = call->dev;
    const fw_board_t *b = fw_device_board(dev);
    hal_device_info_t info = chip_info(dev);
    fw_jw_t *w = fw_call_result(call);
    kv_board_str(w, "device", b->device);
    kv_board_str(w, "version", b->version);
    kv_board_str(w, "platform", b->platform);
    fw_jw_kv_str(w, "core_version", FW_CORE_VERSION);
    fw_jw_kv_str(w, "profile", FW_PROFILE_NAME);
    fw_jw_key(w, "uptime_ms");
    fw_jw_u64(w, fw_device_uptime_ms(dev));
    write_chip(w, info);
    write_memory(w, dev);
    write_counters(w, fw_device_counters(dev));
    return FW_OK;
}

static const fw_tool_t system_tools[] = {
    {.name = "system_info",
     .description =
         FW_DESC("Device identity and health: name, firmware and core versions, uptime, chip "
                 "facts the port knows (chip, cpu_mhz, ram_bytes, flash_bytes, unique_id), the "
                 "fixed memory pools and their use, and request/error counters since boot."),
     .flags = FW_TOOL_READ_ONLY,
     .handler = system_info_fn},
};

const fw_toolset_t fw_builtin_system = {"system", system_tools, FW_ARRAY_LEN(system_tools)};
