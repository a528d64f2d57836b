/* waveform.h: signals as functions of simulated time (ADC inputs in volts, sensors in °C), and
   ADC quantisation. */
#ifndef SIM_WAVEFORM_H
#define SIM_WAVEFORM_H

#include <jansson.h>
#include <stdint.h>

#include "cfg.h"

typedef struct sim_waveform sim_waveform_t;

/*
 * Parses a waveform spec (format in docs/board-format.md): a number (a constant) or an object
 * {"type": "constant"|"sine"|"square"|"triangle"|"sawtooth"|"noise"|"points"|"csv", ...}.
 * CSV files are read now, relative to base_dir. NULL on error with e set (paths relative to the
 * spec; a CSV error sets e->file/line/column).
 */
sim_waveform_t *sim_waveform_parse(const json_t *spec, const char *base_dir, sim_cfg_err_t *e);

/* A constant waveform (NULL only when out of memory). */
sim_waveform_t *sim_waveform_constant(double value);

/* An independent copy (NULL when out of memory). */
sim_waveform_t *sim_waveform_copy(const sim_waveform_t *wf);

void sim_waveform_free(sim_waveform_t *wf);

/* The value at simulated time t_us. Pure: the same waveform and time give the same value. */
double sim_waveform_value(const sim_waveform_t *wf, uint64_t t_us);

/* The spec the waveform was made from, as JSON (new reference). */
json_t *sim_waveform_json(const sim_waveform_t *wf);

/* ADC conversion: round(volts / ref_volts * (2^bits - 1)), clamped to 0 .. 2^bits - 1. */
uint32_t sim_adc_quantise(double volts, double ref_volts, unsigned bits);

#endif
