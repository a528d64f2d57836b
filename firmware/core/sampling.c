/* sampling.c: periodic sampling of input pins into rings, summaries and the event queue. */
#include "fw_internal.h"

/*
 * Timing: a sampled pin has ticks at init + n * interval. Poll takes ONE sample per call for a pin
 * whose tick is due, stamped with the latest due tick; ticks skipped because poll came late are
 * counted in `missed` and the next deadline keeps the phase. A failed HAL read counts in
 * read_errors and stores nothing, so sample seqs stay contiguous (a gap in seq is always an
 * overwrite, never a failure). The event queue is a ring whose oldest event is at ev_head; an
 * event that finds it full still consumes its seq, so a gap in event seqs shows a drop.
 */

static size_t pin_count(const fw_device_t *dev)
{
    return dev->board->pin_count < FW_PINS_MAX ? dev->board->pin_count : FW_PINS_MAX;
}

bool fw_pin_sampled(const fw_pin_def_t *def)
{
    return def->sample_interval_ms > 0 &&
           (def->type == FW_PIN_DIGITAL_INPUT || def->type == FW_PIN_ADC_INPUT);
}

/* Slots of the pin's ring actually used: 0 when buffering is off. */
static uint16_t ring_cap(const fw_pin_def_t *def)
{
    if (!def->buffer) return 0;
    return def->buffer_size < FW_SAMPLE_BUF_MAX ? def->buffer_size : FW_SAMPLE_BUF_MAX;
}

void fw_sampling_init(fw_device_t *dev, uint64_t now_ms)
{
    for (size_t i = 0; i < pin_count(dev); i++) {
        const fw_pin_def_t *def = &dev->board->pins[i];
        fw_pin_state_t *st = &dev->pins[i];
        st->next_sample_ms = fw_pin_sampled(def) ? now_ms + def->sample_interval_ms : UINT64_MAX;
        st->next_seq = 1;
        st->ring_head = 0;
        st->ring_count = 0;
        st->sum = 0;
        st->count = 0;
        st->min = st->max = st->latest = 0;
        st->above = false;
        st->primed = false;
        st->missed = 0;
        st->read_errors = 0;
    }
    dev->ev_head = 0;
    dev->ev_count = 0;
    dev->ev_next_seq = 1;
}

/* ---------------------------------------------------------------- one sample */

static fw_err_t read_value(const fw_device_t *dev, const fw_pin_def_t *def, uint32_t *value)
{
    if (def->type == FW_PIN_ADC_INPUT) {
        uint16_t raw = 0;
        fw_err_t err = fw_hal_adc_read(dev, def->number, &raw);
        *value = raw;
        return err;
    }
    bool level = false;
    fw_err_t err = fw_hal_gpio_read(dev, def->number, &level);
    *value = level ? 1u : 0u;
    return err;
}

static void ring_put(fw_pin_state_t *st, uint16_t cap, const fw_sample_t *s)
{
    if (cap == 0) return;
    st->ring[st->ring_head] = *s;
    st->ring_head = (uint16_t)((st->ring_head + 1u) % cap);
    if (st->ring_count < cap) st->ring_count++;
}

static void summary_add(fw_pin_state_t *st, uint32_t value)
{
    if (st->count == 0 || value < st->min) st->min = value;
    if (st->count == 0 || value > st->max) st->max = value;
    st->latest = value;
    st->sum += value;
    st->count++;
}

static void event_push(fw_device_t *dev, size_t pin_index, fw_event_kind_t kind, uint32_t value,
                       uint64_t t_ms)
{
    uint32_t seq = dev->ev_next_seq++;
    if (dev->ev_count >= FW_EVENT_QUEUE_MAX) {
        dev->counters.events_dropped++;
        return;
    }
    fw_event_t *e = &dev->events[(dev->ev_head + dev->ev_count) % FW_EVENT_QUEUE_MAX];
    e->seq = seq;
    e->pin_index = (uint8_t)pin_index;
    e->kind = (uint8_t)kind;
    e->value = value;
    e->t_ms = t_ms;
    dev->ev_count++;
}

/* Level after this sample: digital = the level itself; ADC = hysteresis between the thresholds
   (in between keeps the previous state, which is "below" before the first sample). */
static bool next_level(const fw_pin_def_t *def, bool above, uint32_t value)
{
    if (def->type != FW_PIN_ADC_INPUT) return value != 0;
    if ((int64_t)value >= (int64_t)def->threshold_high) return true;
    if ((int64_t)value <= (int64_t)def->threshold_low) return false;
    return above;
}

/* The first sample only sets the state; every later change of state is an event. */
static void track_level(fw_device_t *dev, size_t i, uint32_t value, uint64_t t_ms)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_pin_state_t *st = &dev->pins[i];
    bool was = st->above;
    st->above = next_level(def, was, value);
    if (!st->primed) {
        st->primed = true;
        return;
    }
    if (def->events && st->above != was)
        event_push(dev, i, st->above ? FW_EVENT_RISING : FW_EVENT_FALLING, value, t_ms);
}

static void take_sample(fw_device_t *dev, size_t i, uint64_t t_ms)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_pin_state_t *st = &dev->pins[i];
    uint32_t value = 0;
    if (read_value(dev, def, &value) != FW_OK) {
        st->read_errors++;
        return;
    }
    if (def->type == FW_PIN_DIGITAL_INPUT) {
        st->have_level = true;
        st->level = value != 0;
    }
    fw_sample_t s = {st->next_seq++, value, t_ms};
    ring_put(st, ring_cap(def), &s);
    summary_add(st, value);
    track_level(dev, i, value, t_ms);
}

void fw_sampling_poll(fw_device_t *dev, uint64_t now_ms)
{
    for (size_t i = 0; i < pin_count(dev); i++) {
        const fw_pin_def_t *def = &dev->board->pins[i];
        fw_pin_state_t *st = &dev->pins[i];
        if (!fw_pin_sampled(def) || now_ms < st->next_sample_ms) continue;
        uint64_t late = (now_ms - st->next_sample_ms) / def->sample_interval_ms;
        uint64_t tick = st->next_sample_ms + late * def->sample_interval_ms;
        uint64_t missed = st->missed + late;
        st->missed = missed > UINT32_MAX ? UINT32_MAX : (uint32_t)missed;
        st->next_sample_ms = tick + def->sample_interval_ms;
        take_sample(dev, i, tick);
    }
}

/* ---------------------------------------------------------------- readers */

const fw_sample_t *fw_sampling_sample(const fw_device_t *dev, uint8_t pin_index, uint16_t k)
{
    if (pin_index >= pin_count(dev)) return NULL;
    const fw_pin_state_t *st = &dev->pins[pin_index];
    uint16_t cap = ring_cap(&dev->board->pins[pin_index]);
    if (k >= st->ring_count || cap == 0) return NULL;
    uint16_t oldest = (uint16_t)((st->ring_head + cap - st->ring_count) % cap);
    return &st->ring[(oldest + k) % cap];
}

const fw_event_t *fw_event_at(const fw_device_t *dev, uint16_t k)
{
    if (k >= dev->ev_count) return NULL;
    return &dev->events[(dev->ev_head + k) % FW_EVENT_QUEUE_MAX];
}

static bool event_matches(const fw_event_t *e, int pin_index, uint32_t after_seq)
{
    return e->seq > after_seq && (pin_index < 0 || e->pin_index == pin_index);
}

uint16_t fw_events_remove(fw_device_t *dev, int pin_index, uint32_t after_seq)
{
    uint16_t kept = 0;
    for (uint16_t k = 0; k < dev->ev_count; k++) {
        fw_event_t e = dev->events[(dev->ev_head + k) % FW_EVENT_QUEUE_MAX];
        if (event_matches(&e, pin_index, after_seq)) continue;
        dev->events[(dev->ev_head + kept) % FW_EVENT_QUEUE_MAX] = e;
        kept++;
    }
    uint16_t removed = (uint16_t)(dev->ev_count - kept);
    dev->ev_count = kept;
    if (kept == 0) dev->ev_head = 0;
    return removed;
}

/* ---------------------------------------------------------------- ADC scaling */

/* 2^bits - 1, or 0 for a board without a usable ADC profile. */
static uint64_t adc_full_scale(const fw_board_t *board)
{
    if (board->adc_bits == 0 || board->adc_bits > 31) return 0;
    return ((uint64_t)1 << board->adc_bits) - 1u;
}

uint32_t fw_adc_to_mv(const fw_board_t *board, uint32_t raw)
{
    uint64_t full = adc_full_scale(board);
    if (full == 0) return 0;
    return (uint32_t)(((uint64_t)raw * board->adc_ref_mv) / full);
}

void fw_adc_write_scaled_as(fw_jw_t *w, const fw_board_t *board, uint32_t raw,
                            const char *volts_key, const char *mv_key)
{
    if (board->adc_report == FW_ADC_REPORT_MV) {
        fw_jw_kv_i64(w, mv_key, fw_adc_to_mv(board, raw));
        return;
    }
    uint64_t full = adc_full_scale(board);
    double volts = full ? (double)raw * board->adc_ref_mv / (double)full / 1000.0 : 0.0;
    fw_jw_key(w, volts_key);
    fw_jw_fixed(w, volts, 2);
}

void fw_adc_write_scaled(fw_jw_t *w, const fw_board_t *board, uint32_t raw)
{
    fw_adc_write_scaled_as(w, board, raw, "volts", "mv");
}
