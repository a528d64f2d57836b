/* fw_sampling.h: reading what periodic sampling collected (FW_WITH_SAMPLING builds): sample
   rings, per-pin statistics and the event queue. */
#ifndef FW_SAMPLING_H
#define FW_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"

#if FW_WITH_SAMPLING

/* A tool flag (fw_tool_t.flags, beside FW_TOOL_*): a board's tool sets register the tool only
   when a sampled pin of the board has the events capability (MCP/U lists get_pin_events only
   then). */
#define FW_TOOL_IF_EVENT_PIN 0x80u

/* True when def is sampled: a digital or ADC input with sample_interval_ms > 0. */
bool fw_pin_sampled(const fw_pin_def_t *def);

/* The sampling state of pin pin_index (statistics, counters, ring fill). */
const fw_pin_sampling_t *fw_sampling_state(const fw_device_t *dev, uint8_t pin_index);

/* Sample k (0 = oldest) of pin pin_index's ring into *out; false when k >= its fill. Seqs in
   the ring are contiguous (failed reads get no seq). */
bool fw_sampling_sample(const fw_device_t *dev, uint8_t pin_index, uint16_t k, fw_sample_t *out);

/* Writes a sampled pin's statistics members (min, max, avg with two decimals, latest; null
   before the first sample; ADC pins also the latest voltage as the board reports it). */
void fw_sampling_write_stats(fw_jw_t *w, const fw_device_t *dev, uint8_t pin_index);

/* Events queued, and event k (0 = oldest; NULL when k >= the count). */
uint16_t fw_event_count(const fw_device_t *dev);
const fw_event_t *fw_event_at(const fw_device_t *dev, uint16_t k);

/* The full HAL time of an event (its stored 32 bits placed next to the device's clock). */
uint64_t fw_event_time(const fw_device_t *dev, const fw_event_t *e);

/* Removes the queued events with seq > after_seq of pin pin_index (-1: of every pin), keeping
   the order of the rest. Returns how many were removed. */
uint16_t fw_events_remove(fw_device_t *dev, int pin_index, uint32_t after_seq);

#endif

#endif
