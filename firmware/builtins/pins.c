/* pins.c: the built-in tools over sampled pins: get_pin_summary, get_pin_buffer, get_pin_events. */
#include "fw_builtins.h"
#include "fw_device.h"
#include "fw_sampling.h"

#if FW_WITH_SAMPLING

/* Sequence numbers are 32-bit; a 32-bit argument reaches half of them. */
#define SEQ_MAX_I (FW_INT_MAX < 4294967295 ? FW_INT_MAX : 4294967295)

/* The -32602 answer for a pin that lacks a sampling capability. */
static fw_err_t no_capability(fw_call_t *call, const fw_pin_def_t *def, const char *what)
{
    return fw_call_param_error(call, "pin",
                               "pin %u (%s) has no %s capability (see list_tools pins[])",
                               (unsigned)def->number, def->name ? def->name : "", what);
}

static void kv_u64(fw_jw_t *w, const char *key, uint64_t v)
{
    (fw_jw_key)(w, key);
    fw_jw_u64(w, v);
}

/* ---------------------------------------------------------------- get_pin_summary */

static fw_err_t get_pin_summary_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    if (!pin->pin->summary || !fw_pin_sampled(pin->pin))
        return no_capability(call, pin->pin, "summary");
    const fw_pin_sampling_t *st = fw_sampling_state(call->dev, pin->pin_index);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    kv_u64(w, "count", st->count);
    fw_sampling_write_stats(w, call->dev, pin->pin_index);
    kv_u64(w, "missed", st->missed);
    kv_u64(w, "read_errors", st->read_errors);
    return FW_OK;
}

/* ---------------------------------------------------------------- get_pin_buffer */

static void write_sample(fw_jw_t *w, const fw_sample_t *s)
{
    fw_jw_obj_begin(w);
    kv_u64(w, "seq", s->seq);
    kv_u64(w, "t", s->t_ms);
    kv_u64(w, "value", s->value);
    fw_jw_obj_end(w);
}

/*
 * Ring seqs are contiguous, so everything about `since` follows from the oldest seq kept:
 * samples after since that are older than it were overwritten unread (the gap).
 */
static fw_err_t get_pin_buffer_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    const fw_arg_t *since_arg = fw_call_arg(call, "since");
    const fw_arg_t *limit_arg = fw_call_arg(call, "limit");
    if (!pin->pin->buffer || pin->pin->buffer_size == 0 || !fw_pin_sampled(pin->pin))
        return no_capability(call, pin->pin, "buffer");
    uint32_t since = since_arg->present ? (uint32_t)since_arg->i : 0u;
    uint32_t limit = limit_arg->present ? (uint32_t)limit_arg->i : FW_SAMPLE_BUF_MAX;
    const fw_pin_sampling_t *st = fw_sampling_state(call->dev, pin->pin_index);
    fw_sample_t s;
    bool have_oldest = fw_sampling_sample(call->dev, pin->pin_index, 0, &s);
    uint32_t oldest_seq = have_oldest ? s.seq : 0u;
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    fw_jw_key(w, "samples");
    fw_jw_arr_begin(w);
    uint32_t next_since = since, returned = 0;
    bool more = false;
    for (uint16_t k = 0; k < st->ring_count; k++) {
        fw_sampling_sample(call->dev, pin->pin_index, k, &s);
        if (s.seq <= since) continue;
        if (returned == limit) {
            more = true;
            break;
        }
        write_sample(w, &s);
        next_since = s.seq;
        returned++;
    }
    fw_jw_arr_end(w);
    kv_u64(w, "next_since", next_since);
    kv_u64(w, "oldest_seq", oldest_seq);
    kv_u64(w, "latest_seq", st->next_seq - 1u);
    kv_u64(w, "gap", have_oldest && since + 1u < oldest_seq ? oldest_seq - 1u - since : 0u);
    fw_jw_kv_bool(w, "more", more);
    return FW_OK;
}

/* ---------------------------------------------------------------- get_pin_events */

static bool event_of(const fw_event_t *e, int filter)
{
    return filter < 0 || e->pin_index == filter;
}

static void write_event(fw_jw_t *w, const fw_device_t *dev, const fw_event_t *e)
{
    fw_jw_obj_begin(w);
    kv_u64(w, "seq", e->seq);
    kv_u64(w, "t", fw_event_time(dev, e));
    fw_write_pin_id(w, &fw_device_board(dev)->pins[e->pin_index]);
    fw_jw_kv_str(w, "kind", e->kind == FW_EVENT_RISING ? "rising" : "falling");
    kv_u64(w, "value", e->value);
    fw_jw_obj_end(w);
}

static uint32_t pending_of(const fw_device_t *dev, int filter)
{
    uint32_t n = 0;
    for (uint16_t k = 0; k < fw_event_count(dev); k++) n += event_of(fw_event_at(dev, k), filter);
    return n;
}

/* Returns every queued event of the filter with seq > since; clear then removes exactly those. */
static fw_err_t get_pin_events_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    const fw_arg_t *since_arg = fw_call_arg(call, "since");
    const fw_arg_t *clear_arg = fw_call_arg(call, "clear");
    if (pin->present && (!pin->pin->events || !fw_pin_sampled(pin->pin)))
        return no_capability(call, pin->pin, "events");
    int filter = pin->present ? (int)pin->pin_index : -1;
    uint32_t since = since_arg->present ? (uint32_t)since_arg->i : 0u;
    bool clear = !clear_arg->present || clear_arg->i != 0;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "events");
    fw_jw_arr_begin(w);
    uint32_t next_since = since;
    for (uint16_t k = 0; k < fw_event_count(call->dev); k++) {
        const fw_event_t *e = fw_event_at(call->dev, k);
        if (!event_of(e, filter) || e->seq <= since) continue;
        write_event(w, call->dev, e);
        next_since = e->seq;
    }
    fw_jw_arr_end(w);
    if (clear) fw_events_remove(call->dev, filter, since);
    kv_u64(w, "next_since", next_since);
    kv_u64(w, "dropped", fw_device_counters(call->dev)->events_dropped);
    kv_u64(w, "pending", pending_of(call->dev, filter));
    return FW_OK;
}

/* ---------------------------------------------------------------- descriptors */

static const fw_param_t summary_params[] = {
    {.name = "pin",
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("A sampled input whose capabilities include summary")},
};

static const fw_param_t buffer_params[] = {
    {.name = "pin",
     .type = FW_PARAM_PIN,
     .required = true,
     .description = FW_DESC("A sampled input whose capabilities include buffer")},
    {.name = "since",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 0,
     .max = SEQ_MAX_I,
     .def_int = 0,
     .description = FW_DESC("Return only samples with seq greater than this: pass the previous "
                            "next_since (0 = all buffered)")},
    {.name = "limit",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = FW_SAMPLE_BUF_MAX,
     .description = FW_DESC("Most samples to return (default: all)")},
};

static const fw_param_t events_params[] = {
    {.name = "pin",
     .type = FW_PARAM_PIN,
     .description = FW_DESC("Only this pin's events; omit for the events of every pin")},
    {.name = "clear",
     .type = FW_PARAM_BOOLEAN,
     .has_default = true,
     .def_int = 1,
     .description = FW_DESC("Remove the returned events from the queue (default true)")},
    {.name = "since",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .has_default = true,
     .min = 0,
     .max = SEQ_MAX_I,
     .def_int = 0,
     .description = FW_DESC("Return only events with seq greater than this: pass the previous "
                            "next_since when reading with clear false")},
};

static const fw_tool_t pins_tools[] = {
    {.name = "get_pin_summary",
     .description =
         FW_DESC("Statistics of a sampled input pin since boot: count, min, max, avg (2 "
                 "decimals) and latest raw value (ADC pins also the latest voltage); missed = "
                 "sampling ticks skipped, read_errors = failed reads."),
     .params = summary_params,
     .param_count = FW_ARRAY_LEN(summary_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = get_pin_summary_fn},
    {.name = "get_pin_buffer",
     .description =
         FW_DESC("Recent samples {seq, t (ms since boot), value} of a sampled input pin, "
                 "oldest first. Drain with since = the previous next_since; gap > 0 counts "
                 "samples overwritten before they were read; more = true means limit cut the "
                 "list, so call again."),
     .params = buffer_params,
     .param_count = FW_ARRAY_LEN(buffer_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = get_pin_buffer_fn},
    {.name = "get_pin_events",
     .description =
         FW_DESC("Events seen by sampling, oldest first: edges of digital inputs, and ADC "
                 "threshold crossings (rising = reached the high threshold, falling = fell "
                 "to the low one). Returned events are removed unless clear is false; "
                 "dropped counts events lost to a full queue, pending those still queued."),
     .params = events_params,
     .param_count = FW_ARRAY_LEN(events_params),
     .handler = get_pin_events_fn},
};

const fw_toolset_t fw_builtin_pins = {"pins", pins_tools, FW_ARRAY_LEN(pins_tools)};

#endif
