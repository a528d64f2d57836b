/* devices.h: the I2C device model interface (a bus face and a backend face) and the models. */
#ifndef SIM_DEVICES_H
#define SIM_DEVICES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../cfg.h"
#include "fw_device.h"
#include "fw_driver.h"

/* Keys every device object of a board file may carry besides its model's own. */
#define SIM_MODEL_COMMON_KEYS "model", "address", "bus", "name"

/*
 * One I2C transaction as the model sees it: a write of tx (may be empty), then, if rx_len > 0,
 * a repeated start and a read of rx_len bytes. `offset` is the called address minus the
 * device's base address (block-select bits for multi-address chips). start_us is the time of
 * the START condition, end_us that of the STOP.
 */
typedef struct sim_xfer {
    uint8_t offset;
    const uint8_t *tx;
    size_t tx_len;
    uint8_t *rx;
    size_t rx_len;
    uint64_t start_us, end_us;
} sim_xfer_t;

/*
 * A device model. create() validates the device's board-file object (errors with paths
 * relative to it) and builds the model; base_dir resolves relative file names. A model that
 * stands for a chip the firmware drives names the driver (fw_chip_t.driver); when the driver
 * takes a per-chip configuration, fw_config writes it (config_size bytes, the driver's own
 * struct) as the model was configured from the same board-file object. The bus face is
 * transfer(): FW_OK or FW_ERR_I2C_NACK, as the chip would answer. The backend face is get()
 * and set() for the control channel: get returns the state as a new JSON object (params may
 * select a part), set changes it from params (keys as documented in docs/control-channel.md).
 * next_event_us()/run() (optional) expose the model's own timed events to the sim's clock.
 */
typedef struct sim_model_ops {
    const char *name;          /* the board file's "model" value */
    const fw_driver_t *driver; /* the firmware driver of the chip, or NULL (simulator only) */
    size_t config_size;        /* bytes of the driver's configuration; 0: fw_chip_t.config NULL */
    void *(*create)(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e);
    void (*destroy)(void *model);
    uint8_t (*address_span)(const void *model); /* consecutive addresses answered from base */
    fw_err_t (*transfer)(void *model, const sim_xfer_t *x);
    json_t *(*get)(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e);
    bool (*set)(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e);
    uint64_t (*next_event_us)(const void *model);       /* UINT64_MAX when none */
    void (*run)(void *model, uint64_t now_us);          /* runs events due at now_us */
    void (*fw_config)(const void *model, void *config); /* fills config_size bytes */
} sim_model_ops_t;

extern const sim_model_ops_t sim_model_tmp102, sim_model_at24c, sim_model_regmap;
/* es8311.c: the voice-assistant board's audio codec (reached by its app tools over I2C). */
extern const sim_model_ops_t sim_model_es8311;

/* The model of that name (a product's registered models first, then mcpsim's), or NULL. */
const sim_model_ops_t *sim_model_find(const char *name);

/* "tmp102, at24c, regmap, es8311" and the registered ones (for messages). */
const char *sim_model_names(void);

/*
 * A product's own I2C device models, for its own simulator (mcpsim_add_simulator): board files
 * may then name them in "i2c" like mcpsim's. models is NULL-terminated and must outlive the
 * process; call before any board is loaded. A later call replaces the earlier list.
 */
void sim_register_models(const sim_model_ops_t *const *models);

#endif
