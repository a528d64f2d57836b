/* es8311.c: the ES8311 mono audio codec's control port (I2C), as the voice-assistant board's
   speaker: its DAC volume and mute, and its chip id. */
#include <stdlib.h>
#include <string.h>

#include "devices.h"

/*
 * Register level, after Everest's ES8311 datasheet: a one-byte register pointer written first,
 * further written bytes fill registers from it, reads return registers from it, the pointer
 * moving on by one after each byte. 0x32 is the DAC volume (0x00 = -95.5 dB, 0.5 dB a step,
 * 0xBF = 0 dB, 0xFF = +32 dB; power-on 0x00); 0x31 bits 6:5 mute the DAC (both set: muted);
 * 0xFD/0xFE read the chip id 0x83 0x11, 0xFF the version. The chip id registers ignore writes.
 * Nothing is modelled of the audio path itself: the backend face shows what the firmware set.
 */
#define REG_DAC_MUTE 0x31u
#define REG_DAC_VOLUME 0x32u
#define DAC_MUTE_BITS 0x60u

typedef struct es8311 {
    uint8_t pointer;
    uint8_t regs[256];
    uint32_t volume_writes; /* bus writes that reached the volume register */
} es8311_t;

static bool read_only(unsigned reg)
{
    return reg >= 0xFDu;
}

static fw_err_t es8311_transfer(void *model, const sim_xfer_t *x)
{
    es8311_t *m = model;
    if (x->tx_len >= 1) m->pointer = x->tx[0];
    for (size_t i = 1; i < x->tx_len; i++) {
        if (!read_only(m->pointer)) m->regs[m->pointer] = x->tx[i];
        if (m->pointer == REG_DAC_VOLUME) m->volume_writes++;
        m->pointer++;
    }
    for (size_t i = 0; i < x->rx_len; i++) x->rx[i] = m->regs[m->pointer++];
    return FW_OK;
}

static void power_on(es8311_t *m)
{
    memset(m->regs, 0, sizeof m->regs);
    m->regs[0xFD] = 0x83;
    m->regs[0xFE] = 0x11;
    m->regs[0xFF] = 0x00;
}

/* ---------------------------------------------------------------- configuration and backend */

/* Keys both the board file and sim.i2c.set take. */
static bool apply(es8311_t *m, const json_t *cfg, bool defaults, sim_cfg_err_t *e)
{
    long long vol = m->regs[REG_DAC_VOLUME];
    bool muted = (m->regs[REG_DAC_MUTE] & DAC_MUTE_BITS) == DAC_MUTE_BITS;
    if (!sim_cfg_int(cfg, "dac_volume", false, defaults ? 0 : vol, 0, 255, &vol, e) ||
        !sim_cfg_bool(cfg, "muted", defaults ? false : muted, &muted, e))
        return false;
    m->regs[REG_DAC_VOLUME] = (uint8_t)vol;
    m->regs[REG_DAC_MUTE] =
        (uint8_t)((m->regs[REG_DAC_MUTE] & ~DAC_MUTE_BITS) | (muted ? DAC_MUTE_BITS : 0u));
    return true;
}

static void *es8311_create(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {SIM_MODEL_COMMON_KEYS, "dac_volume", "muted", NULL};
    (void)base_dir;
    es8311_t *m = calloc(1, sizeof *m);
    if (m == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    power_on(m);
    if (sim_cfg_keys(cfg, keys, e) && apply(m, cfg, true, e)) return m;
    free(m);
    return NULL;
}

static void es8311_destroy(void *model)
{
    free(model);
}

static json_t *es8311_get(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {NULL};
    const es8311_t *m = model;
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e)) return NULL;
    uint8_t vol = m->regs[REG_DAC_VOLUME];
    return json_pack("{s:i, s:f, s:b, s:i, s:i}", "dac_volume", vol, "dac_volume_db",
                     vol * 0.5 - 95.5, "muted",
                     (m->regs[REG_DAC_MUTE] & DAC_MUTE_BITS) == DAC_MUTE_BITS, "volume_writes",
                     (int)m->volume_writes, "chip_id", m->regs[0xFD] << 8 | m->regs[0xFE]);
}

static bool es8311_set(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"dac_volume", "muted", NULL};
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e)) return false;
    if (json_object_size(params) == 0)
        return sim_cfg_fail(e, "", "nothing to set: give \"dac_volume\" (0..255) or \"muted\"");
    es8311_t next = *(es8311_t *)model; /* all or nothing */
    if (!apply(&next, params, false, e)) return false;
    *(es8311_t *)model = next;
    return true;
}

static uint8_t es8311_span(const void *model)
{
    (void)model;
    return 1;
}

const sim_model_ops_t sim_model_es8311 = {
    .name = "es8311",
    .driver = NULL,
    .create = es8311_create,
    .destroy = es8311_destroy,
    .address_span = es8311_span,
    .transfer = es8311_transfer,
    .get = es8311_get,
    .set = es8311_set,
};
