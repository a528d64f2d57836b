/* ina219_model.c: the INA219 power monitor as a simulated I2C device: the registers the driver
   reads, moved by the board file and the control channel (sim.i2c.set). */
#include <math.h>
#include <stdlib.h>

#include "devices/devices.h"
#include "ina219.h"

#define POWER_ON_CONFIG 0x399Fu /* SBOS448: configuration register reset value */

/* The world around the chip: the bus voltage and the current through the shunt. The chip
   answers what it would measure; registers 0x00 (configuration) and 0x05 (calibration) are
   written by the bus, 0x01..0x04 are computed and read only. */
typedef struct ina219_model {
    double bus_volts;
    double current_ma;
    uint16_t shunt_milliohm;
    uint16_t config, calibration;
    uint8_t pointer;
} ina219_model_t;

static uint16_t shunt_reg(const ina219_model_t *m)
{
    double uv = m->current_ma * m->shunt_milliohm; /* mA * mOhm = uV */
    double counts = round(uv / 10.0);
    counts = counts > 32767 ? 32767 : counts < -32768 ? -32768 : counts;
    return (uint16_t)(int16_t)counts;
}

static uint16_t bus_reg(const ina219_model_t *m)
{
    double counts = round(m->bus_volts * 1000.0 / 4.0);
    counts = counts > 8191 ? 8191 : counts < 0 ? 0 : counts;
    return (uint16_t)(((uint16_t)counts << 3) | 0x2u); /* CNVR: a conversion is ready */
}

static uint16_t reg_value(const ina219_model_t *m, uint8_t reg)
{
    switch (reg) {
    case 0x00: return m->config;
    case 0x01: return shunt_reg(m);
    case 0x02: return bus_reg(m);
    case 0x05: return m->calibration;
    default: return 0; /* power and current stay 0 until calibrated, as on the chip */
    }
}

static fw_err_t ina219_transfer(void *model, const sim_xfer_t *x)
{
    ina219_model_t *m = model;
    if (x->tx_len >= 1) {
        if (x->tx[0] > 0x05) return FW_ERR_I2C_NACK;
        m->pointer = x->tx[0];
    }
    if (x->tx_len >= 3) {
        uint16_t v = (uint16_t)(x->tx[1] << 8 | x->tx[2]);
        if (m->pointer == 0x00) m->config = v & 0x8000u ? POWER_ON_CONFIG : v; /* RST bit */
        if (m->pointer == 0x05) m->calibration = v & 0xFFFEu;
    }
    uint16_t v = reg_value(m, m->pointer);
    for (size_t i = 0; i < x->rx_len; i++) x->rx[i] = (uint8_t)(i % 2 == 0 ? v >> 8 : v);
    return FW_OK;
}

/* bus_volts and current_ma, from a board-file device object or from sim.i2c.set's params. */
static bool set_values(ina219_model_t *m, const json_t *cfg, sim_cfg_err_t *e)
{
    return sim_cfg_number(cfg, "bus_volts", false, m->bus_volts, 0.0, 32.0, &m->bus_volts, e) &&
           sim_cfg_number(cfg, "current_ma", false, m->current_ma, -3200.0, 3200.0,
                          &m->current_ma, e);
}

static void *ina219_create(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {SIM_MODEL_COMMON_KEYS, "bus_volts", "current_ma",
                                       "shunt_milliohm", NULL};
    (void)base_dir;
    ina219_model_t *m = calloc(1, sizeof *m);
    long long shunt = 0;
    if (m == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    *m = (ina219_model_t){.bus_volts = 12.0, .config = POWER_ON_CONFIG};
    if (sim_cfg_keys(cfg, keys, e) && set_values(m, cfg, e) &&
        sim_cfg_int(cfg, "shunt_milliohm", false, 100, 1, 65535, &shunt, e)) {
        m->shunt_milliohm = (uint16_t)shunt;
        return m;
    }
    free(m);
    return NULL;
}

static void ina219_destroy(void *model)
{
    free(model);
}

static json_t *ina219_get(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {NULL};
    const ina219_model_t *m = model;
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e)) return NULL;
    return json_pack("{s:f, s:f, s:i, s:i, s:i}", "bus_volts", m->bus_volts, "current_ma",
                     m->current_ma, "shunt_milliohm", m->shunt_milliohm, "config", m->config,
                     "calibration", m->calibration);
}

static bool ina219_set(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"bus_volts", "current_ma", NULL};
    ina219_model_t next = *(ina219_model_t *)model; /* all or nothing */
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e) || !set_values(&next, params, e)) return false;
    *(ina219_model_t *)model = next;
    return true;
}

static uint8_t ina219_span(const void *model)
{
    (void)model;
    return 1;
}

static void ina219_fw_config(const void *model, void *config)
{
    const ina219_model_t *m = model;
    *(ina219_config_t *)config = (ina219_config_t){.shunt_milliohm = m->shunt_milliohm};
}

const sim_model_ops_t sim_model_ina219 = {
    .name = "ina219",
    .driver = &fw_driver_ina219,
    .config_size = sizeof(ina219_config_t),
    .create = ina219_create,
    .destroy = ina219_destroy,
    .address_span = ina219_span,
    .transfer = ina219_transfer,
    .get = ina219_get,
    .set = ina219_set,
    .fw_config = ina219_fw_config,
};
