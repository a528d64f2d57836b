/* pins.c: the built-in tools over sampled pins: get_pin_summary, get_pin_buffer, get_pin_events. */
#include "fw_builtins.h"
#include "fw_device.h"
#include "fw_sampling.h"

#if FW_WITH_SAMPLING

/* The pin parameter of MCP/U's get_pin_*: any registered pin, by number or by name. */
#define ANY_PIN_BY_NAME                                                                            \
    (FW_PINMASK(FW_PIN_DIGITAL_OUTPUT) | FW_PINMASK(FW_PIN_DIGITAL_INPUT) |                        \
     FW_PINMASK(FW_PIN_PWM_OUTPUT) | FW_PINMASK(FW_PIN_ADC_INPUT) | FW_PIN_NAMES)

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

/* MCP/U's members {pin (number), name, latest, min, max, avg, samples}; ours beside them:
   count (= samples), the latest voltage of an ADC pin, missed, read_errors. */
static fw_err_t get_pin_summary_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    if (!pin->pin->summary || !fw_pin_sampled(pin->pin))
        return no_capability(call, pin->pin, "summary");
    const fw_pin_sampling_t *st = fw_sampling_state(call->dev, pin->pin_index);
    fw_jw_t *w = fw_call_result(call);
    fw_write_pin_id(w, pin->pin);
    kv_u64(w, "samples", st->count);
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

/* The samples after since, oldest first, at most limit of them: as MCP/U's bare values, or
   as our {seq, t, value} objects. Returns the seq of the last one (since when none). */
static uint32_t write_samples(fw_jw_t *w, const fw_device_t *dev, uint8_t pin_index,
                              uint32_t since, uint32_t limit, bool objects)
{
    const fw_pin_sampling_t *st = fw_sampling_state(dev, pin_index);
    uint32_t last = since, returned = 0;
    fw_sample_t s;
    fw_jw_arr_begin(w);
    for (uint16_t k = 0; k < st->ring_count && returned < limit; k++) {
        fw_sampling_sample(dev, pin_index, k, &s);
        if (s.seq <= since) continue;
        if (objects)
            write_sample(w, &s);
        else
            fw_jw_u64(w, s.value);
        last = s.seq;
        returned++;
    }
    fw_jw_arr_end(w);
    return last;
}

/*
 * MCP/U's answer {pin: the pin's name, count: samples buffered, values: [oldest first]}, or
 * {pin, buffer_available: false, reason} for a pin without a ring; ours beside it: number,
 * samples [{seq, t, value}] (the same samples as values), next_since, oldest_seq, latest_seq,
 * gap and more. Ring seqs are contiguous, so everything about `since` follows from the oldest
 * seq kept: samples after since that are older than it were overwritten unread (the gap).
 */
static fw_err_t get_pin_buffer_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    const fw_arg_t *since_arg = fw_call_arg(call, "since");
    const fw_arg_t *limit_arg = fw_call_arg(call, "limit");
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_str(w, "pin", pin->pin->name);
    kv_u64(w, "number", pin->pin->number);
    if (!pin->pin->buffer || pin->pin->buffer_size == 0 || !fw_pin_sampled(pin->pin)) {
        fw_jw_kv_bool(w, "buffer_available", false);
        fw_jw_kv_str(w, "reason", FW_S("This pin has no sample buffer (list_tools pins[]: "
                                       "capabilities.buffer). Use get_pin_summary instead."));
        return FW_OK;
    }
    uint32_t since = since_arg->present ? (uint32_t)since_arg->i : 0u;
    uint32_t limit = limit_arg->present ? (uint32_t)limit_arg->i : FW_SAMPLE_BUF_MAX;
    const fw_pin_sampling_t *st = fw_sampling_state(call->dev, pin->pin_index);
    fw_sample_t s;
    bool have_oldest = fw_sampling_sample(call->dev, pin->pin_index, 0, &s);
    uint32_t oldest_seq = have_oldest ? s.seq : 0u;
    kv_u64(w, "count", st->ring_count);
    fw_jw_key(w, "values");
    write_samples(w, call->dev, pin->pin_index, since, limit, false);
    fw_jw_key(w, "samples");
    uint32_t next_since = write_samples(w, call->dev, pin->pin_index, since, limit, true);
    kv_u64(w, "next_since", next_since);
    kv_u64(w, "oldest_seq", oldest_seq);
    kv_u64(w, "latest_seq", st->next_seq - 1u);
    kv_u64(w, "gap", have_oldest && since + 1u < oldest_seq ? oldest_seq - 1u - since : 0u);
    fw_jw_kv_bool(w, "more", next_since < st->next_seq - 1u);
    return FW_OK;
}

/* ---------------------------------------------------------------- get_pin_events */

static bool event_of(const fw_event_t *e, int filter)
{
    return filter < 0 || e->pin_index == filter;
}

/* MCP/U's {type, value, threshold}: rising is threshold_high, falling threshold_low; the
   threshold of an ADC pin is the one crossed, of a digital input the level reached (1 or 0).
   Ours beside them: seq, t, pin (number), name and kind (rising / falling). */
static void write_event(fw_jw_t *w, const fw_device_t *dev, const fw_event_t *e)
{
    const fw_pin_def_t *def = &fw_device_board(dev)->pins[e->pin_index];
    bool rising = e->kind == FW_EVENT_RISING;
    bool adc = def->type == FW_PIN_ADC_INPUT;
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", rising ? FW_S("threshold_high") : FW_S("threshold_low"));
    kv_u64(w, "value", e->value);
    fw_jw_kv_i64(w, "threshold", adc ? (rising ? def->threshold_high : def->threshold_low)
                                     : (rising ? 1 : 0));
    kv_u64(w, "seq", e->seq);
    kv_u64(w, "t", fw_event_time(dev, e));
    fw_write_pin_id(w, def);
    fw_jw_kv_str(w, "kind", rising ? FW_S("rising") : FW_S("falling"));
    fw_jw_obj_end(w);
}

static uint32_t pending_of(const fw_device_t *dev, int filter)
{
    uint32_t n = 0;
    for (uint16_t k = 0; k < fw_event_count(dev); k++) n += event_of(fw_event_at(dev, k), filter);
    return n;
}

/*
 * MCP/U's answer {pin: the pin's name, events: [...]} (a pin without the events capability has
 * none, as in MCP/U); without pin, the events of every pin and no pin member. Returns every
 * queued event of the filter with seq > since; clear then removes exactly those.
 */
static fw_err_t get_pin_events_fn(fw_call_t *call)
{
    const fw_arg_t *pin = fw_call_arg(call, "pin");
    const fw_arg_t *since_arg = fw_call_arg(call, "since");
    const fw_arg_t *clear_arg = fw_call_arg(call, "clear");
    int filter = pin->present ? (int)pin->pin_index : -1;
    uint32_t since = since_arg->present ? (uint32_t)since_arg->i : 0u;
    bool clear = !clear_arg->present || clear_arg->i != 0;
    fw_jw_t *w = fw_call_result(call);
    if (pin->present) fw_jw_kv_str(w, "pin", pin->pin->name);
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
     .pin_types = ANY_PIN_BY_NAME,
     .required = true,
     .description = FW_DESC("A sampled input whose capabilities include summary")},
};

static const fw_param_t buffer_params[] = {
    {.name = "pin",
     .type = FW_PARAM_PIN,
     .pin_types = ANY_PIN_BY_NAME,
     .required = true,
     .description = FW_DESC("A sampled input whose capabilities include buffer (another pin "
                            "answers buffer_available false)")},
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
     .pin_types = ANY_PIN_BY_NAME,
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
         FW_DESC("Statistics of a sampled input pin since boot: samples (also as count), min, "
                 "max, avg (2 decimals) and latest raw value (ADC pins also the latest "
                 "voltage); missed = sampling ticks skipped, read_errors = failed reads."),
     .params = summary_params,
     .param_count = FW_ARRAY_LEN(summary_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = get_pin_summary_fn},
    {.name = "get_pin_buffer",
     .description =
         FW_DESC("Recent samples of a sampled input pin, oldest first: values (raw) and "
                 "samples {seq, t (ms since boot), value}; count = samples buffered. Drain "
                 "with since = the previous next_since; gap > 0 counts samples overwritten "
                 "before they were read; more = true means limit cut the list, so call again."),
     .params = buffer_params,
     .param_count = FW_ARRAY_LEN(buffer_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = get_pin_buffer_fn},
    {.name = "get_pin_events",
     .description =
         FW_DESC("Events seen by sampling, oldest first: type threshold_high when an ADC "
                 "input reached its high threshold or a digital input went high, "
                 "threshold_low when it fell to the low one or went low. Returned events are "
                 "removed unless clear is false; dropped counts events lost to a full queue, "
                 "pending those still queued."),
     .params = events_params,
     .param_count = FW_ARRAY_LEN(events_params),
     .flags = FW_TOOL_IF_EVENT_PIN,
     .handler = get_pin_events_fn},
};

const fw_toolset_t fw_builtin_pins = {"pins", pins_tools, FW_ARRAY_LEN(pins_tools)};

#endif
