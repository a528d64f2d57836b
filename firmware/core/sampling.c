/* sampling.c: periodic sampling of input pins into rings, summaries and the event queue, and
   the readers of what it collected. */
#include <string.h>

#include "fw_internal.h"
#include "fw_sampling.h"

#if FW_WITH_SAMPLING

/*
 * Timing: a sampled pin has ticks at init + n * interval. Poll takes ONE sample per call for a pin
 * whose tick is due, stamped with the latest due tick; ticks skipped because poll came late are
 * counted in `missed` and the next deadline keeps the phase. A failed HAL read counts in
 * read_errors and stores nothing, so sample seqs stay contiguous (a gap in seq is always an
 * overwrite, never a failure) and a ring slot need not store its seq: slot k of a ring holding
 * count samples has seq next_seq - count + k. The event queue is a ring whose oldest event is at
 * ev_head; an event that finds it full still consumes its seq, so a gap in event seqs shows a
 * drop. Times are stored as their low 32 bits and placed next to the clock when read (a sample
 * older than 49 days is long overwritten).
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

/* Slots of the pin's ring: 0 when it does not buffer. */
static uint16_t ring_cap(const fw_pin_def_t *def)
{
    return def->buffer && fw_pin_sampled(def) ? def->buffer_size : 0u;
}

/* The sampling state of pin i, which must be sampled. */
static fw_pin_sampling_t *state_of(fw_device_t *dev, size_t i)
{
    FW_ASSERT(dev->sampling_of[i] < FW_SAMPLED_PINS_MAX);
    return &dev->sampling[dev->sampling_of[i]];
}

fw_err_t fw_sampling_check(const fw_board_t *board)
{
    size_t sampled = 0;
    for (size_t i = 0; i < board->pin_count; i++) sampled += fw_pin_sampled(&board->pins[i]);
    if (sampled > FW_SAMPLED_PINS_MAX) return FW_ERR_NO_SPACE;
    size_t need = fw_board_sample_slots(board);
    if (need > board->sample_store_len) return FW_ERR_NO_SPACE;
    return need > 0 && board->sample_store == NULL ? FW_ERR_ARG : FW_OK;
}

void fw_sampling_init(fw_device_t *dev, uint64_t now_ms)
{
    uint16_t first = 0;
    uint8_t slot = 0;
    memset(dev->sampling_of, 0xff, sizeof dev->sampling_of);
    for (size_t i = 0; i < pin_count(dev); i++) {
        const fw_pin_def_t *def = &dev->board->pins[i];
        if (!fw_pin_sampled(def)) continue;
        dev->sampling_of[i] = slot; /* fw_sampling_check bounded the count */
        fw_pin_sampling_t *st = &dev->sampling[slot++];
        memset(st, 0, sizeof *st);
        st->next_sample_ms = now_ms + def->sample_interval_ms;
        st->next_seq = 1;
        st->ring_first = first;
        first = (uint16_t)(first + ring_cap(def));
    }
    dev->sampled = slot;
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

static void ring_put(fw_device_t *dev, size_t i, uint32_t value, uint64_t t_ms)
{
    fw_pin_sampling_t *st = state_of(dev, i);
    uint16_t cap = ring_cap(&dev->board->pins[i]);
    if (cap == 0) return;
    fw_sample_slot_t *slot = &dev->board->sample_store[st->ring_first + st->ring_head];
    slot->value = (uint16_t)value;
    slot->t_lo = (uint16_t)t_ms;
    slot->t_hi = (uint16_t)(t_ms >> 16);
    st->ring_head = (uint16_t)((st->ring_head + 1u) % cap);
    if (st->ring_count < cap) st->ring_count++;
}

static void summary_add(fw_pin_sampling_t *st, uint16_t value)
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
    e->value = (uint16_t)value;
    e->t_ms = (uint32_t)t_ms;
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
    fw_pin_sampling_t *st = state_of(dev, i);
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
    fw_pin_sampling_t *st = state_of(dev, i);
    uint32_t value = 0;
    if (read_value(dev, def, &value) != FW_OK) {
        st->read_errors++;
        return;
    }
    if (def->type == FW_PIN_DIGITAL_INPUT) fw_device_pin_note_level(dev, (uint8_t)i, value != 0);
    st->next_seq++;
    ring_put(dev, i, value, t_ms);
    summary_add(st, (uint16_t)value); /* read_value gives 16 bits (an ADC count, 0/1) */
    fw_pin_touch(dev, i);
    track_level(dev, i, value, t_ms);
}

void fw_sampling_poll(fw_device_t *dev, uint64_t now_ms)
{
    for (size_t i = 0; i < pin_count(dev); i++) {
        const fw_pin_def_t *def = &dev->board->pins[i];
        if (!fw_pin_sampled(def)) continue;
        fw_pin_sampling_t *st = state_of(dev, i);
        if (now_ms < st->next_sample_ms) continue;
        uint64_t late = (now_ms - st->next_sample_ms) / def->sample_interval_ms;
        uint64_t tick = st->next_sample_ms + late * def->sample_interval_ms;
        uint64_t missed = st->missed + late;
        st->missed = missed > UINT32_MAX ? UINT32_MAX : (uint32_t)missed;
        st->next_sample_ms = tick + def->sample_interval_ms;
        take_sample(dev, i, tick);
    }
}

/* ---------------------------------------------------------------- readers */

const fw_pin_sampling_t *fw_sampling_state(const fw_device_t *dev, uint8_t pin_index)
{
    FW_ASSERT(pin_index < pin_count(dev) && dev->sampling_of[pin_index] < FW_SAMPLED_PINS_MAX);
    return &dev->sampling[dev->sampling_of[pin_index]];
}

bool fw_sampling_sample(const fw_device_t *dev, uint8_t pin_index, uint16_t k, fw_sample_t *out)
{
    if (pin_index >= pin_count(dev)) return false;
    uint16_t cap = ring_cap(&dev->board->pins[pin_index]);
    if (cap == 0) return false;
    const fw_pin_sampling_t *st = fw_sampling_state(dev, pin_index);
    if (k >= st->ring_count) return false;
    uint16_t oldest = (uint16_t)((st->ring_head + cap - st->ring_count) % cap);
    const fw_sample_slot_t *slot = &dev->board->sample_store[st->ring_first + (oldest + k) % cap];
    out->seq = st->next_seq - st->ring_count + k;
    out->value = slot->value;
    out->t_ms = fw_time_unwrap(fw_hal_now(dev), (uint32_t)slot->t_hi << 16 | slot->t_lo);
    return true;
}

/* Average in hundredths, rounded half up, computed in integers so it stays exact for any count. */
static uint64_t avg_hundredths(const fw_pin_sampling_t *st)
{
    uint64_t q = st->sum / st->count, r = st->sum % st->count;
    return q * 100u + (r * 100u + st->count / 2u) / st->count;
}

static void kv_u64(fw_jw_t *w, const char *key, uint64_t v)
{
    (fw_jw_key)(w, key);
    fw_jw_u64(w, v);
}

void fw_sampling_write_stats(fw_jw_t *w, const fw_device_t *dev, uint8_t pin_index)
{
    const fw_pin_def_t *def = &dev->board->pins[pin_index];
    const fw_pin_sampling_t *st = fw_sampling_state(dev, pin_index);
    bool adc = def->type == FW_PIN_ADC_INPUT;
    const char *vkey = "latest_volts", *mkey = "latest_mv";
    if (st->count == 0) {
        static const char *const keys[] = {"min", "max", "avg", "latest"};
        for (size_t i = 0; i < FW_ARRAY_LEN(keys); i++) {
            fw_jw_key(w, keys[i]);
            fw_jw_null(w);
        }
        if (adc) {
            fw_jw_key(w, dev->board->adc_report == FW_ADC_REPORT_MV ? mkey : vkey);
            fw_jw_null(w);
        }
        return;
    }
    kv_u64(w, "min", st->min);
    kv_u64(w, "max", st->max);
    fw_jw_key(w, "avg");
    fw_jw_hundredths(w, (int64_t)avg_hundredths(st));
    kv_u64(w, "latest", st->latest);
    if (adc) fw_adc_write_scaled_as(w, dev->board, st->latest, vkey, mkey);
}

uint16_t fw_event_count(const fw_device_t *dev)
{
    return dev->ev_count;
}

const fw_event_t *fw_event_at(const fw_device_t *dev, uint16_t k)
{
    if (k >= dev->ev_count) return NULL;
    return &dev->events[(dev->ev_head + k) % FW_EVENT_QUEUE_MAX];
}

uint64_t fw_event_time(const fw_device_t *dev, const fw_event_t *e)
{
    return fw_time_unwrap(fw_hal_now(dev), e->t_ms);
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

#endif
