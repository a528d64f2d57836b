/* sim_internal.h: what board.c, sim.c and control.c share about boards and the running sim
   (not for sim/host: it uses sim.h). */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <jansson.h>

#include "cfg.h"
#include "devices/devices.h"
#include "faults.h"
#include "i2c_bus.h"
#include "pindev.h"
#include "sim.h"
#include "waveform.h"

/* The default PWM frequency when the firmware passes 0 (ESP32 analogWrite: 5 kHz). */
#define SIM_PWM_DEFAULT_HZ 5000u

typedef enum sim_pull { SIM_PULL_NONE = 0, SIM_PULL_UP, SIM_PULL_DOWN } sim_pull_t;

/* How an analog source's waveform values are read: volts (scaled by the ADC profile) or raw
   ADC counts (e.g. a touch channel). */
typedef enum sim_unit { SIM_UNIT_VOLTS = 0, SIM_UNIT_COUNTS } sim_unit_t;

/* One pin of the simulated hardware: a registry pin, or an extra analog channel. */
typedef struct sim_pin_cfg {
    uint16_t number;
    uint8_t type; /* fw_pin_type_t; channels are FW_PIN_ADC_INPUT */
    bool in_registry;
    const char *name;         /* registry name; "" for a channel */
    int level;                /* digital input: level the outside drives, -1 floating */
    uint8_t pull;             /* sim_pull_t: the board's pull resistor */
    uint8_t unit;             /* sim_unit_t of the waveform */
    sim_waveform_t *waveform; /* analog input: NULL reads 0 */
} sim_pin_cfg_t;

typedef struct sim_wire {
    uint16_t from, to; /* pin numbers */
} sim_wire_t;

typedef struct sim_i2c_cfg {
    const sim_model_ops_t *ops;
    const json_t *cfg; /* the device's object (owned by the board's root) */
    uint8_t bus, addr, span;
    const char *name;
} sim_i2c_cfg_t;

/* A loaded board file. fw is what the firmware sees: the same fw_board_t as the C that
   cmake/board2c.cmake generates from the file (sim/tests/test_board.c compares them). */
struct sim_board {
    char *path;    /* as given (error messages) */
    char *dir;     /* its directory: relative file names resolve against it */
    json_t *root;  /* the parsed file; strings of fw point into it */
    fw_board_t fw; /* fw.sample_store is the board's (calloc'd, freed with it) */
    fw_pin_def_t pins[FW_PINS_MAX];
    sim_pin_cfg_t *hw; /* registry pins (in order), then channels */
    size_t hw_count, hw_cap;
    sim_wire_t *wires;
    size_t wire_count;
    sim_i2c_cfg_t *i2c;
    size_t i2c_count;
    fw_chip_t chips[FW_I2C_DEVICES_MAX];   /* the devices with a firmware driver, in file order */
    void *chip_config[FW_I2C_DEVICES_MAX]; /* chips[i].config (malloc'd), or NULL */
    const fw_tool_t **app_tools;           /* NULL-terminated */
    uint32_t pwm_default_hz;
    bool uart_reset_on_open; /* "uart": {"reset_on_open"} */
    const char *uart_banner; /* "uart": {"boot_banner"}, or NULL */
    const char *chip_model;  /* "chip": what device_info reports (NULL: "mcpsim", zeros) */
    uint32_t chip_mhz, chip_ram, chip_flash;
};

/* Runtime state of one pin. */
typedef struct sim_pin {
    const sim_pin_cfg_t *cfg;
    uint8_t mode;   /* hal_pin_mode_t as the firmware set it (INPUT at reset) */
    bool out_level; /* level written by gpio_write */
    int ext_level;  /* level the outside drives (sim.set_input), -1 floating */
    bool pwm_on;
    uint8_t duty;
    uint32_t duty_res; /* duty of 2^bits as last written (8-bit pwm_write: duty, 8) */
    uint8_t bits;
    uint32_t freq_hz;
    sim_waveform_t *waveform; /* owned copy; replaced by sim.set_waveform */
    uint8_t unit;             /* sim_unit_t of waveform */
    int wire_from;            /* index in sim->pins of the pin wired to this input, or -1 */
    uint32_t writes, reads, adc_reads;
} sim_pin_t;

struct sim {
    sim_board_t *board;
    sim_clock_mode_t mode;
    uint64_t now_us;
    bool reset_pending; /* the firmware asked the HAL for a reset */
    uint32_t resets;
    sim_pin_t *pins; /* one per board->hw entry, same order */
    size_t pin_count;
    sim_i2c_t *i2c;
    sim_pindevs_t *pindevs; /* the board's "pin_devices" */
    sim_faults_t faults;
    char unique_id[80];
    bool fixtures; /* the conformance fixtures are added at every boot (sim_enable_fixtures) */
    fw_device_t dev;
};

/* The pin (registry or channel) with that number, or NULL. */
sim_pin_t *sim_pin_by_number(sim_t *sim, uint16_t number);

/* The pin named (or numbered, for a string of digits) s, or NULL. */
sim_pin_t *sim_pin_by_name(sim_t *sim, const char *s);

/* The level the pin reads right now (outputs: the level they drive). */
bool sim_pin_level(const sim_t *sim, const sim_pin_t *p);

/* The voltage at an analog input right now, and its ADC count. */
double sim_pin_volts(const sim_t *sim, const sim_pin_t *p);
uint32_t sim_pin_raw(const sim_t *sim, const sim_pin_t *p);

/* The pin's state as a JSON object (new reference). */
json_t *sim_pin_json(const sim_t *sim, const sim_pin_t *p);

/* Replaces an analog pin's waveform (takes ownership). */
void sim_pin_set_waveform(sim_pin_t *p, sim_waveform_t *wf, sim_unit_t unit);

/* A pin type with its article for messages: "a digital_output", "an adc_input". */
const char *sim_type_phrase(uint8_t type);

/* Name of a HAL mode, a unit. */
const char *sim_mode_name(uint8_t mode);
const char *sim_unit_name(uint8_t unit);

/* What a servo on pin sees (sim_pindevs_get's view; ctx is the sim). */
sim_pwm_view_t sim_pin_pwm_view(void *ctx, uint16_t pin);

/* Creates the board's device models and attaches them to i2c (sim_create). False with err
   set when a model cannot be made (e.g. its backing file became unreadable since loading). */
bool sim_board_make_models(const sim_board_t *board, sim_i2c_t *i2c, sim_error_t *err);

#endif
