/* regmap.c: a generic register-map I2C device declared entirely in the board file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"

/*
 * `size` registers of `width` bytes (1 or 2, big-endian) behind a one-byte register pointer, as
 * most sensors have it: the first written byte sets the pointer (a pointer >= size is not
 * acknowledged), further written bytes fill registers from there (width bytes each; a
 * trailing partial register is dropped), and reads return registers from the pointer, each
 * access moving the pointer on by one register (wrapping after the last). Registers listed as
 * read_only ignore bus writes; the backend face may change any register.
 */
typedef struct regmap {
    uint16_t size;
    uint8_t width;
    uint8_t pointer;
    uint32_t regs[256];
    bool read_only[256];
} regmap_t;

static uint32_t reg_max(const regmap_t *m)
{
    return m->width == 1 ? 0xFFu : 0xFFFFu;
}

static fw_err_t regmap_transfer(void *model, const sim_xfer_t *x)
{
    regmap_t *m = model;
    if (x->tx_len >= 1) {
        if (x->tx[0] >= m->size) return FW_ERR_I2C_NACK;
        m->pointer = x->tx[0];
    }
    for (size_t i = 1; i + m->width <= x->tx_len; i += m->width) {
        uint32_t v = m->width == 1 ? x->tx[i] : (uint32_t)(x->tx[i] << 8 | x->tx[i + 1]);
        if (!m->read_only[m->pointer]) m->regs[m->pointer] = v;
        m->pointer = (uint8_t)((m->pointer + 1u) % m->size);
    }
    for (size_t i = 0; i < x->rx_len; i++) {
        uint32_t v = m->regs[m->pointer];
        size_t byte = i % m->width;
        x->rx[i] = (uint8_t)(m->width == 2 && byte == 0 ? v >> 8 : v);
        if (byte == m->width - 1u || i + 1 == x->rx_len)
            m->pointer = (uint8_t)((m->pointer + 1u) % m->size);
    }
    return FW_OK;
}

/* ---------------------------------------------------------------- configuration */

/* A register number written as "0x1a" or "26" (object keys) or an integer (read_only). */
static bool reg_number(const regmap_t *m, const json_t *v, const char *text, const char *path,
                       unsigned *out, sim_cfg_err_t *e)
{
    long long n = -1;
    if (v != NULL && json_is_integer(v)) {
        n = json_integer_value(v);
    } else if (text != NULL) {
        char *end = NULL;
        bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
        n = strtoll(hex ? text + 2 : text, &end, hex ? 16 : 10);
        if (end == text || *end != 0 || (hex && end == text + 2)) n = -1;
    }
    if (n < 0 || n >= m->size)
        return sim_cfg_fail(e, path, "not a register number 0..%u (use 26 or \"0x1a\")",
                            (unsigned)m->size - 1u);
    *out = (unsigned)n;
    return true;
}

/* Sets registers from an object {"0x00": value, ...}; path names it in errors. */
static bool set_registers(regmap_t *m, const json_t *regs, const char *path, sim_cfg_err_t *e)
{
    if (!sim_cfg_object(regs, path, e)) return false;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)regs, key, v)
    {
        char p[160];
        sim_cfg_path_key(p, sizeof p, path, key);
        unsigned r = 0;
        if (!reg_number(m, NULL, key, p, &r, e)) {
            e->at_key = true;
            return false;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > (json_int_t)reg_max(m))
            return sim_cfg_fail(e, p, "must be an integer 0..%u (width %u)", (unsigned)reg_max(m),
                                (unsigned)m->width);
        m->regs[r] = (uint32_t)json_integer_value(v);
    }
    return true;
}

static bool set_read_only(regmap_t *m, const json_t *list, sim_cfg_err_t *e)
{
    if (list == NULL) return true;
    if (!json_is_array(list))
        return sim_cfg_fail(e, "read_only", "must be an array of register numbers");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *v = json_array_get(list, i);
        char p[64];
        sim_cfg_path_index(p, sizeof p, "read_only", i);
        unsigned r = 0;
        if (!reg_number(m, v, json_is_string(v) ? json_string_value(v) : NULL, p, &r, e))
            return false;
        m->read_only[r] = true;
    }
    return true;
}

static void *regmap_create(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {SIM_MODEL_COMMON_KEYS, "size",      "width",
                                       "registers",           "read_only", NULL};
    (void)base_dir;
    regmap_t *m = calloc(1, sizeof *m);
    long long size = 0, width = 0;
    if (m == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    const json_t *regs = json_object_get(cfg, "registers");
    bool ok = sim_cfg_keys(cfg, keys, e) &&
              sim_cfg_int(cfg, "size", false, 256, 1, 256, &size, e) &&
              sim_cfg_int(cfg, "width", false, 1, 1, 2, &width, e);
    m->size = (uint16_t)size;
    m->width = (uint8_t)width;
    ok = ok && (regs == NULL || set_registers(m, regs, "registers", e)) &&
         set_read_only(m, json_object_get(cfg, "read_only"), e);
    if (ok) return m;
    free(m);
    return NULL;
}

static void regmap_destroy(void *model)
{
    free(model);
}

/* ---------------------------------------------------------------- backend face */

static json_t *regmap_get(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {NULL};
    regmap_t *m = model;
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e)) return NULL;
    json_t *regs = json_object(), *ro = json_array();
    for (unsigned r = 0; r < m->size; r++) {
        char key[8];
        snprintf(key, sizeof key, "0x%02x", r);
        json_object_set_new(regs, key, json_integer(m->regs[r]));
        if (m->read_only[r]) json_array_append_new(ro, json_string(key));
    }
    return json_pack("{s:i, s:i, s:i, s:o, s:o}", "size", m->size, "width", m->width, "pointer",
                     m->pointer, "registers", regs, "read_only", ro);
}

static bool regmap_set(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"registers", NULL};
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e)) return false;
    const json_t *regs = json_object_get(params, "registers");
    if (regs == NULL) return sim_cfg_fail(e, "", "missing required key \"registers\"");
    regmap_t next = *(regmap_t *)model; /* all or nothing */
    if (!set_registers(&next, regs, "registers", e)) return false;
    *(regmap_t *)model = next;
    return true;
}

static uint8_t regmap_span(const void *model)
{
    (void)model;
    return 1;
}

const sim_model_ops_t sim_model_regmap = {
    .name = "regmap",
    .driver = NULL,
    .create = regmap_create,
    .destroy = regmap_destroy,
    .address_span = regmap_span,
    .transfer = regmap_transfer,
    .get = regmap_get,
    .set = regmap_set,
};
