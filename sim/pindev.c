/* pindev.c: the board's pin devices: a servo (its angle from its pin's PWM pulse), a WS2812
   strip (the driver's buffer and what was last shown), a DHT22 (readings from waveforms). */
#include "pindev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "waveform.h"

typedef enum kind { SERVO = 0, NEOPIXEL, DHT22 } kind_t;
static const char *const kind_names[] = {"servo", "neopixel", "dht22", NULL};

#define STRIP_MAX 1024

typedef struct pindev {
    uint8_t kind;
    uint16_t pin;
    char *name;
    long long min_us, max_us; /* servo: pulse at 0 and 180 degrees */
    uint16_t count;           /* strip */
    uint8_t (*buf)[3], (*shown)[3];
    uint8_t brightness;
    uint32_t shows;
    sim_waveform_t *temp, *hum; /* dht22: degrees C, percent */
    bool fail;                  /* dht22: does not answer */
    uint32_t reads;
} pindev_t;

struct sim_pindevs {
    pindev_t *dev;
    size_t count;
};

/* ---------------------------------------------------------------- building */

static bool waveform_member(const json_t *o, const char *key, double def, const char *base_dir,
                            sim_waveform_t **out, sim_cfg_err_t *e)
{
    const json_t *spec = json_object_get(o, key);
    sim_waveform_t *wf =
        spec != NULL ? sim_waveform_parse(spec, base_dir, e) : sim_waveform_constant(def);
    if (wf == NULL && spec != NULL) sim_cfg_prefix(e, key);
    if (wf == NULL) return spec == NULL ? sim_cfg_fail(e, key, "out of memory") : false;
    sim_waveform_free(*out);
    *out = wf;
    return true;
}

static bool build(pindev_t *p, const json_t *o, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"model", "pin",         "name",     "min_us",      "max_us",
                                       "count", "temperature", "humidity", "description", NULL};
    int kind;
    long long pin, count;
    const char *name;
    if (!sim_cfg_object(o, "", e) || !sim_cfg_keys(o, keys, e) ||
        !sim_cfg_enum(o, "model", kind_names, -1, &kind, e) ||
        !sim_cfg_int(o, "pin", true, 0, 0, 65535, &pin, e) ||
        !sim_cfg_string(o, "name", false, kind_names[kind], &name, e))
        return false;
    p->kind = (uint8_t)kind;
    p->pin = (uint16_t)pin;
    p->name = sim_cfg_strdup(name);
    if (kind == SERVO)
        return sim_cfg_int(o, "min_us", false, 544, 100, 5000, &p->min_us, e) &&
               sim_cfg_int(o, "max_us", false, 2400, 100, 5000, &p->max_us, e) &&
               (p->min_us < p->max_us || sim_cfg_fail(e, "max_us", "must exceed min_us"));
    if (kind == NEOPIXEL) {
        if (!sim_cfg_int(o, "count", false, 16, 1, STRIP_MAX, &count, e)) return false;
        p->count = (uint16_t)count;
        p->brightness = 255;
        p->buf = calloc(count, sizeof *p->buf);
        p->shown = calloc(count, sizeof *p->shown);
        return (p->buf && p->shown) || sim_cfg_fail(e, "", "out of memory");
    }
    return waveform_member(o, "temperature", 22.0, base_dir, &p->temp, e) &&
           waveform_member(o, "humidity", 45.0, base_dir, &p->hum, e);
}

sim_pindevs_t *sim_pindevs_create(const json_t *arr, const char *base_dir, sim_cfg_err_t *e)
{
    sim_pindevs_t *d = calloc(1, sizeof *d);
    if (d == NULL || (arr != NULL && !json_is_array(arr))) {
        sim_cfg_fail(e, "", d ? "must be an array" : "out of memory");
        sim_pindevs_destroy(d);
        return NULL;
    }
    size_t n = arr != NULL ? json_array_size(arr) : 0;
    d->dev = calloc(n + 1, sizeof *d->dev);
    if (d->dev == NULL) {
        sim_pindevs_destroy(d);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        char at[24];
        pindev_t *p = &d->dev[d->count++];
        bool ok = build(p, json_array_get(arr, i), base_dir, e);
        for (size_t j = 0; ok && j + 1 < d->count; j++) {
            if (d->dev[j].pin == p->pin)
                ok = sim_cfg_fail(e, "pin", "pin %u already has the %s", (unsigned)p->pin,
                                  d->dev[j].name);
            else if (strcmp(d->dev[j].name, p->name) == 0)
                ok = sim_cfg_fail(e, "name", "\"%s\" is already a device's name", p->name);
        }
        if (!ok) {
            sim_cfg_path_index(at, sizeof at, "", i);
            sim_cfg_prefix(e, at);
            sim_pindevs_destroy(d);
            return NULL;
        }
    }
    return d;
}

void sim_pindevs_destroy(sim_pindevs_t *d)
{
    if (d == NULL) return;
    for (size_t i = 0; d->dev != NULL && i < d->count; i++) {
        pindev_t *p = &d->dev[i];
        free(p->name);
        free(p->buf);
        free(p->shown);
        sim_waveform_free(p->temp);
        sim_waveform_free(p->hum);
    }
    free(d->dev);
    free(d);
}

static pindev_t *on_pin(sim_pindevs_t *d, uint16_t pin, uint8_t kind)
{
    for (size_t i = 0; d != NULL && i < d->count; i++)
        if (d->dev[i].pin == pin && d->dev[i].kind == kind) return &d->dev[i];
    return NULL;
}

static pindev_t *named(sim_pindevs_t *d, const char *name, sim_cfg_err_t *e)
{
    for (size_t i = 0; d != NULL && name != NULL && i < d->count; i++)
        if (strcmp(d->dev[i].name, name) == 0) return &d->dev[i];
    sim_cfg_fail(e, "name", "no pin device named \"%s\" on this board", name ? name : "");
    return NULL;
}

/* ---------------------------------------------------------------- the HAL's face */

fw_err_t sim_pindevs_strip(sim_pindevs_t *d, uint16_t pin, const hal_strip_op_t *op,
                           uint16_t *count)
{
    pindev_t *p = on_pin(d, pin, NEOPIXEL);
    if (p == NULL) return FW_ERR_UNSUPPORTED;
    *count = p->count;
    switch (op->kind) {
    case HAL_STRIP_SET:
        if (op->index >= p->count) return FW_ERR_ARG;
        p->buf[op->index][0] = op->r, p->buf[op->index][1] = op->g, p->buf[op->index][2] = op->b;
        return FW_OK;
    case HAL_STRIP_FILL:
        for (size_t i = 0; i < p->count; i++)
            p->buf[i][0] = op->r, p->buf[i][1] = op->g, p->buf[i][2] = op->b;
        return FW_OK;
    case HAL_STRIP_BRIGHTNESS:
        p->brightness = op->level;
        return FW_OK;
    case HAL_STRIP_SHOW:
        for (size_t i = 0; i < p->count; i++)
            for (int c = 0; c < 3; c++)
                p->shown[i][c] = (uint8_t)((p->buf[i][c] * (p->brightness + 1u)) >> 8);
        p->shows++;
        return FW_OK;
    default:
        return FW_ERR_ARG;
    }
}

/* The DHT22 frame: humidity and |temperature| in tenths, big-endian, the sign in bit 15 of
   the temperature, then the low byte of the sum of the four. */
fw_err_t sim_pindevs_dht(sim_pindevs_t *d, uint16_t pin, uint64_t now_us, uint8_t f[5])
{
    pindev_t *p = on_pin(d, pin, DHT22);
    if (p == NULL) return FW_ERR_UNSUPPORTED;
    p->reads++;
    if (p->fail) return FW_ERR_TIMEOUT;
    double h = sim_waveform_value(p->hum, now_us), t = sim_waveform_value(p->temp, now_us);
    h = h < 0 ? 0 : h > 100 ? 100 : h;
    t = t < -40 ? -40 : t > 80 ? 80 : t;
    unsigned hx = (unsigned)lround(h * 10), tx = (unsigned)lround(fabs(t) * 10);
    f[0] = (uint8_t)(hx >> 8), f[1] = (uint8_t)hx;
    f[2] = (uint8_t)((tx >> 8) | (t < 0 && tx > 0 ? 0x80u : 0u)), f[3] = (uint8_t)tx;
    f[4] = (uint8_t)(f[0] + f[1] + f[2] + f[3]);
    return FW_OK;
}

/* ---------------------------------------------------------------- the control channel */

static json_t *pixels_json(uint8_t (*px)[3], size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("[i,i,i]", px[i][0], px[i][1], px[i][2]));
    return a;
}

/* A servo follows pulses of 1/freq period: the angle is where its pulse width falls between
   min_us and max_us (clamped); no PWM, or a frequency outside 40..400 Hz: detached. */
static json_t *servo_json(const pindev_t *p, sim_pwm_view_t v)
{
    json_t *o = json_pack("{s:I, s:I}", "min_us", p->min_us, "max_us", p->max_us);
    bool driven = v.pwm_on && v.freq_hz >= 40 && v.freq_hz <= 400 && v.bits > 0;
    json_object_set_new(o, "attached", json_boolean(driven));
    if (!driven) {
        json_object_set_new(o, "pulse_us", json_null());
        json_object_set_new(o, "angle", json_null());
        return o;
    }
    double pulse = (double)v.duty / (double)(1ul << v.bits) * 1e6 / v.freq_hz;
    double angle = (pulse - (double)p->min_us) * 180.0 / (double)(p->max_us - p->min_us);
    angle = angle < 0 ? 0 : angle > 180 ? 180 : angle;
    json_object_set_new(o, "pulse_us", json_real(round(pulse * 10) / 10));
    json_object_set_new(o, "angle", json_real(round(angle * 10) / 10));
    return o;
}

json_t *sim_pindevs_get(sim_pindevs_t *d, const char *name, uint64_t now_us,
                        sim_pwm_view_t (*pwm)(void *ctx, uint16_t pin), void *ctx, sim_cfg_err_t *e)
{
    pindev_t *p = named(d, name, e);
    if (p == NULL) return NULL;
    json_t *o;
    if (p->kind == SERVO) {
        o = servo_json(p, pwm(ctx, p->pin));
    } else if (p->kind == NEOPIXEL) {
        o = json_pack("{s:i, s:i, s:i, s:o, s:o}", "count", p->count, "brightness", p->brightness,
                      "shows", p->shows, "pixels", pixels_json(p->shown, p->count), "buffer",
                      pixels_json(p->buf, p->count));
    } else {
        o = json_pack("{s:f, s:f, s:b, s:i, s:o, s:o}", "temperature",
                      sim_waveform_value(p->temp, now_us), "humidity",
                      sim_waveform_value(p->hum, now_us), "fail", p->fail, "reads", p->reads,
                      "temperature_waveform", sim_waveform_json(p->temp), "humidity_waveform",
                      sim_waveform_json(p->hum));
    }
    json_object_set_new(o, "name", json_string(p->name));
    json_object_set_new(o, "model", json_string(kind_names[p->kind]));
    json_object_set_new(o, "pin", json_integer(p->pin));
    return o;
}

static bool set_pixels(pindev_t *p, const json_t *a, sim_cfg_err_t *e)
{
    if (!json_is_array(a) || json_array_size(a) > p->count)
        return sim_cfg_fail(e, "pixels", "must be an array of at most %u [r, g, b]",
                            (unsigned)p->count);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *px = json_array_get(a, i);
        for (size_t c = 0; c < 3; c++) {
            const json_t *v = json_is_array(px) ? json_array_get(px, c) : NULL;
            if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255) {
                char at[32];
                sim_cfg_printf(at, sizeof at, "pixels[%zu]", i);
                return sim_cfg_fail(e, at, "must be [r, g, b] of integers 0..255");
            }
            p->buf[i][c] = p->shown[i][c] = (uint8_t)json_integer_value(v);
        }
    }
    return true;
}

bool sim_pindevs_set(sim_pindevs_t *d, const char *name, const json_t *params, const char *base_dir,
                     sim_cfg_err_t *e)
{
    pindev_t *p = named(d, name, e);
    if (p == NULL) return false;
    if (p->kind == SERVO) {
        static const char *const keys[] = {"name", "min_us", "max_us", NULL};
        long long lo, hi;
        if (!sim_cfg_keys(params, keys, e) ||
            !sim_cfg_int(params, "min_us", false, p->min_us, 100, 5000, &lo, e) ||
            !sim_cfg_int(params, "max_us", false, p->max_us, 100, 5000, &hi, e))
            return false;
        if (lo >= hi) return sim_cfg_fail(e, "max_us", "must exceed min_us");
        p->min_us = lo, p->max_us = hi;
        return true;
    }
    if (p->kind == NEOPIXEL) {
        static const char *const keys[] = {"name", "pixels", NULL};
        const json_t *a = json_object_get(params, "pixels");
        return sim_cfg_keys(params, keys, e) && (a == NULL || set_pixels(p, a, e));
    }
    static const char *const keys[] = {"name", "temperature", "humidity", "fail", NULL};
    bool fail = p->fail;
    if (!sim_cfg_keys(params, keys, e) || !sim_cfg_bool(params, "fail", p->fail, &fail, e))
        return false;
    if (json_object_get(params, "temperature") &&
        !waveform_member(params, "temperature", 0, base_dir, &p->temp, e))
        return false;
    if (json_object_get(params, "humidity") &&
        !waveform_member(params, "humidity", 0, base_dir, &p->hum, e))
        return false;
    p->fail = fail;
    return true;
}

json_t *sim_pindevs_names(const sim_pindevs_t *d)
{
    json_t *a = json_array();
    for (size_t i = 0; d != NULL && i < d->count; i++)
        json_array_append_new(a, json_string(d->dev[i].name));
    return a;
}
