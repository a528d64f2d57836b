/* tmp102.c: model of the TI TMP102 temperature sensor (datasheet SBOS397) whose temperature
   follows a waveform in °C. */
#include <math.h>
#include <stdlib.h>

#include "../waveform.h"
#include "devices.h"
#include "tmp102.h"

/*
 * Registers (16 bits, MSB first) behind a pointer register: the first byte of a write selects
 * one (P1..P0; the other bits are ignored), the next two bytes are stored into it, and reads
 * return it from the pointer onwards (repeating its two bytes).
 *   0x00 temperature: 12-bit (13-bit with EM) left-justified two's complement, 0.0625 °C/LSB;
 *        in extended mode D0 reads 1. Read-only.
 *   0x01 configuration: byte 1 = OS R1 R0 F1 F0 POL TM SD, byte 2 = CR1 CR0 AL EM 0 0 0 0.
 *        Power-on 0x60A0. R1/R0 read 1 1, AL is computed, OS reads 0.
 *   0x02 T_LOW (75 °C) and 0x03 T_HIGH (80 °C), in the temperature register's format.
 * The temperature is the waveform's value at the START of the read (conversions are treated as
 * continuous). AL follows comparator mode without the fault queue: active when the temperature
 * is >= T_HIGH, inactive again below T_LOW, evaluated at every transfer; POL inverts it.
 * Shutdown/one-shot are stored but not modelled.
 */
#define REG_TEMP 0u
#define REG_CONFIG 1u
#define REG_TLOW 2u
#define REG_THIGH 3u
#define CONFIG_RESET 0x60A0u
#define CONFIG_WRITABLE 0x1FD0u /* F1 F0 POL TM SD | CR1 CR0 EM */
#define CONFIG_EM 0x0010u
#define CONFIG_AL 0x0020u
#define CONFIG_POL 0x0400u
#define CONFIG_R1R0 0x6000u
#define TLOW_RESET 0x4B00u
#define THIGH_RESET 0x5000u

typedef struct tmp102 {
    sim_waveform_t *wf;
    char *base_dir; /* for CSV waveforms given later through the control channel */
    uint8_t pointer;
    uint16_t config; /* writable bits only */
    uint16_t t_low, t_high;
    bool alert; /* comparator state */
} tmp102_t;

static bool extended(const tmp102_t *t)
{
    return (t->config & CONFIG_EM) != 0;
}

/* Celsius into the temperature register format, saturating at the format's range. */
static uint16_t encode(double c, bool em)
{
    long counts = lround(c * 16.0);
    long lo = em ? -4096 : -2048, hi = em ? 4095 : 2047;
    counts = counts < lo ? lo : counts > hi ? hi : counts;
    if (em) return (uint16_t)((((unsigned long)counts & 0x1FFFu) << 3) | 1u);
    return (uint16_t)(((unsigned long)counts & 0x0FFFu) << 4);
}

/* Register format back to a signed count of 0.0625 °C. */
static long decode(uint16_t reg, bool em)
{
    long field = em ? (reg >> 3) : (reg >> 4);
    long sign = em ? 0x1000 : 0x800;
    return (field & sign) ? field - 2 * sign : field;
}

static double temperature(const tmp102_t *t, uint64_t now_us)
{
    return sim_waveform_value(t->wf, now_us);
}

static void update_alert(tmp102_t *t, uint64_t now_us)
{
    long counts = decode(encode(temperature(t, now_us), extended(t)), extended(t));
    if (counts >= decode(t->t_high, extended(t)))
        t->alert = true;
    else if (counts < decode(t->t_low, extended(t)))
        t->alert = false;
}

static uint16_t reg_value(const tmp102_t *t, unsigned reg, uint64_t now_us)
{
    switch (reg) {
    case REG_TEMP:
        return encode(temperature(t, now_us), extended(t));
    case REG_CONFIG: {
        bool al = t->alert != ((t->config & CONFIG_POL) == 0); /* POL = 0: AL reads 0 on alert */
        return (uint16_t)(CONFIG_R1R0 | t->config | (al ? CONFIG_AL : 0u));
    }
    case REG_TLOW:
        return t->t_low;
    default:
        return t->t_high;
    }
}

static uint16_t limit_mask(const tmp102_t *t)
{
    return extended(t) ? 0xFFF8u : 0xFFF0u;
}

static void reg_write(tmp102_t *t, unsigned reg, uint16_t v)
{
    if (reg == REG_CONFIG)
        t->config = v & CONFIG_WRITABLE;
    else if (reg == REG_TLOW)
        t->t_low = v & limit_mask(t);
    else if (reg == REG_THIGH)
        t->t_high = v & limit_mask(t);
}

static fw_err_t tmp102_transfer(void *model, const sim_xfer_t *x)
{
    tmp102_t *t = model;
    update_alert(t, x->start_us);
    if (x->tx_len >= 1) t->pointer = x->tx[0] & 3u;
    if (x->tx_len >= 3 && x->rx_len == 0)
        reg_write(t, t->pointer, (uint16_t)(x->tx[1] << 8 | x->tx[2]));
    uint16_t v = reg_value(t, t->pointer, x->start_us);
    for (size_t i = 0; i < x->rx_len; i++) x->rx[i] = (uint8_t)(i % 2 == 0 ? v >> 8 : v);
    return FW_OK;
}

/* ---------------------------------------------------------------- configuration */

static bool set_source(tmp102_t *t, const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    const json_t *wf = json_object_get(cfg, "waveform");
    const json_t *c = json_object_get(cfg, "temperature_c");
    if (wf && c) return sim_cfg_fail(e, "waveform", "give temperature_c or waveform, not both");
    sim_waveform_t *next = NULL;
    if (wf) {
        next = sim_waveform_parse(wf, base_dir, e);
        if (next == NULL) sim_cfg_prefix(e, "waveform");
    } else if (c) {
        double v = 0;
        if (!sim_cfg_number(cfg, "temperature_c", true, 0, -273.15, 1000, &v, e)) return false;
        next = sim_waveform_constant(v);
    } else {
        return true;
    }
    if (next == NULL) return false;
    sim_waveform_free(t->wf);
    t->wf = next;
    return true;
}

static bool set_extended(tmp102_t *t, const json_t *cfg, sim_cfg_err_t *e)
{
    bool em = extended(t);
    if (!sim_cfg_bool(cfg, "extended", em, &em, e)) return false;
    t->config = (uint16_t)((t->config & ~CONFIG_EM) | (em ? CONFIG_EM : 0u));
    return true;
}

static void tmp102_destroy(void *model)
{
    tmp102_t *t = model;
    if (t == NULL) return;
    sim_waveform_free(t->wf);
    free(t->base_dir);
    free(t);
}

static void *tmp102_create(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {SIM_MODEL_COMMON_KEYS, "temperature_c", "waveform",
                                       "extended", NULL};
    tmp102_t *t = calloc(1, sizeof *t);
    if (t == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    t->config = CONFIG_RESET & CONFIG_WRITABLE;
    t->t_low = TLOW_RESET;
    t->t_high = THIGH_RESET;
    t->wf = sim_waveform_constant(25.0);
    t->base_dir = sim_cfg_strdup(base_dir);
    if (t->wf && t->base_dir && sim_cfg_keys(cfg, keys, e) && set_source(t, cfg, base_dir, e) &&
        set_extended(t, cfg, e))
        return t;
    if (t->wf == NULL || t->base_dir == NULL) sim_cfg_fail(e, "", "out of memory");
    tmp102_destroy(t);
    return NULL;
}

/* ---------------------------------------------------------------- backend face */

static json_t *tmp102_get(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {NULL};
    tmp102_t *t = model;
    if (!sim_cfg_keys(params, keys, e)) return NULL;
    update_alert(t, now_us);
    json_t *regs =
        json_pack("{s:i, s:i, s:i, s:i}", "temperature", reg_value(t, REG_TEMP, now_us), "config",
                  reg_value(t, REG_CONFIG, now_us), "t_low", t->t_low, "t_high", t->t_high);
    return json_pack("{s:f, s:o, s:b, s:b, s:i, s:o}", "temperature_c", temperature(t, now_us),
                     "waveform", sim_waveform_json(t->wf), "extended", extended(t), "alert",
                     t->alert, "pointer", t->pointer, "registers", regs);
}

static bool tmp102_set(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"temperature_c", "waveform", "extended", NULL};
    tmp102_t *t = model;
    (void)now_us;
    return sim_cfg_keys(params, keys, e) && set_source(t, params, t->base_dir, e) &&
           set_extended(model, params, e);
}

static uint8_t tmp102_span(const void *model)
{
    (void)model;
    return 1;
}

const sim_model_ops_t sim_model_tmp102 = {
    .name = "tmp102",
#if FW_WITH_I2C
    .driver = &fw_driver_tmp102,
#endif
    .create = tmp102_create,
    .destroy = tmp102_destroy,
    .address_span = tmp102_span,
    .transfer = tmp102_transfer,
    .get = tmp102_get,
    .set = tmp102_set,
};
