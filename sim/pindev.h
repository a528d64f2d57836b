/* pindev.h: devices on a pin rather than a bus (the board file's "pin_devices"): a hobby servo
   reading its pin's PWM, a WS2812 (NeoPixel) strip, a DHT22 whose readings follow waveforms. */
#ifndef SIM_PINDEV_H
#define SIM_PINDEV_H

#include <jansson.h>
#include <stdint.h>

#include "cfg.h"
#include "fw_hal.h"

typedef struct sim_pindevs sim_pindevs_t;

/* What a servo needs of its pin: whether PWM runs, its duty of 2^bits and its frequency. */
typedef struct sim_pwm_view {
    int pwm_on;
    uint32_t duty;
    uint8_t bits;
    uint32_t freq_hz;
} sim_pwm_view_t;

/* Builds the devices of the board's "pin_devices" array (NULL: none). Errors name the path
   relative to the array ("[1].count"). NULL with e set on error. */
sim_pindevs_t *sim_pindevs_create(const json_t *arr, const char *base_dir, sim_cfg_err_t *e);
void sim_pindevs_destroy(sim_pindevs_t *d);

/* The HAL's strip and dht_frame for the device on pin (FW_ERR_UNSUPPORTED: none there). */
fw_err_t sim_pindevs_strip(sim_pindevs_t *d, uint16_t pin, const hal_strip_op_t *op,
                           uint16_t *count);
fw_err_t sim_pindevs_dht(sim_pindevs_t *d, uint16_t pin, uint64_t now_us, uint8_t frame[5]);

/* The control channel: the state of the device named name (a new object; NULL with e set when
   there is none), and changes to it from params. pwm views the device's pin (servo). */
json_t *sim_pindevs_get(sim_pindevs_t *d, const char *name, uint64_t now_us,
                        sim_pwm_view_t (*pwm)(void *ctx, uint16_t pin), void *ctx,
                        sim_cfg_err_t *e);
bool sim_pindevs_set(sim_pindevs_t *d, const char *name, const json_t *params, const char *base_dir,
                     sim_cfg_err_t *e);

/* The devices' names, as a new array (sim.snapshot, messages). */
json_t *sim_pindevs_names(const sim_pindevs_t *d);

#endif
