/* waveform.c: constant, periodic, seeded-noise, piecewise-linear and CSV waveforms; ADC
   quantisation. */
#include "waveform.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define VALUE_MAX 1e9
#define PERIOD_MS_MAX 1e12

typedef enum wf_kind {
    WF_CONSTANT = 0,
    WF_SINE,
    WF_SQUARE,
    WF_TRIANGLE,
    WF_SAWTOOTH,
    WF_NOISE,
    WF_POINTS,
    WF_CSV
} wf_kind_t;

static const char *const kind_names[] = {"constant", "sine",   "square", "triangle", "sawtooth",
                                         "noise",    "points", "csv",    NULL};

struct sim_waveform {
    wf_kind_t kind;
    double value;                        /* constant */
    double offset, amplitude, phase_rad; /* sine */
    double low, high, duty;              /* square, triangle, sawtooth */
    double period_us;                    /* periodic kinds */
    double mean, stddev;                 /* noise */
    uint64_t seed;
    double *pt_us, *pt_v; /* points, csv: times (us, non-decreasing) and values */
    size_t n;
    bool repeat; /* points, csv: the table repeats every last time */
    json_t *spec;
};

/* ---------------------------------------------------------------- evaluation */

/* splitmix64's finaliser: a well-mixed 64-bit hash (no state: noise is a function of time). */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* A uniform double in (0, 1) from 53 hash bits. */
static double unit_open(uint64_t h)
{
    return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal deviate for (seed, t) by Box-Muller. */
static double gauss(uint64_t seed, uint64_t t_us)
{
    uint64_t h1 = mix(seed ^ mix(t_us));
    uint64_t h2 = mix(h1);
    return sqrt(-2.0 * log(unit_open(h1))) * cos(2.0 * PI * unit_open(h2));
}

/* Position in the period, 0 <= p < 1. */
static double phase_of(const sim_waveform_t *wf, uint64_t t_us)
{
    return fmod((double)t_us, wf->period_us) / wf->period_us;
}

static double triangle(const sim_waveform_t *wf, double p)
{
    double span = wf->high - wf->low;
    return p < 0.5 ? wf->low + span * 2.0 * p : wf->high - span * (2.0 * p - 1.0);
}

/* Last index i with pt_us[i] <= t (caller ensures pt_us[0] <= t). */
static size_t point_at(const sim_waveform_t *wf, double t)
{
    size_t lo = 0, hi = wf->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (wf->pt_us[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static double points_value(const sim_waveform_t *wf, uint64_t t_us)
{
    double t = (double)t_us, last = wf->pt_us[wf->n - 1];
    if (wf->repeat && last > 0) t = fmod(t, last);
    if (t <= wf->pt_us[0]) return wf->pt_v[0];
    if (t >= last) return wf->pt_v[wf->n - 1];
    size_t i = point_at(wf, t);
    double t0 = wf->pt_us[i], t1 = wf->pt_us[i + 1];
    return wf->pt_v[i] + (wf->pt_v[i + 1] - wf->pt_v[i]) * (t - t0) / (t1 - t0);
}

double sim_waveform_value(const sim_waveform_t *wf, uint64_t t_us)
{
    switch (wf->kind) {
    case WF_CONSTANT:
        return wf->value;
    case WF_SINE:
        return wf->offset + wf->amplitude * sin(2.0 * PI * phase_of(wf, t_us) + wf->phase_rad);
    case WF_SQUARE:
        return phase_of(wf, t_us) < wf->duty ? wf->high : wf->low;
    case WF_TRIANGLE:
        return triangle(wf, phase_of(wf, t_us));
    case WF_SAWTOOTH:
        return wf->low + (wf->high - wf->low) * phase_of(wf, t_us);
    case WF_NOISE:
        return wf->mean + wf->stddev * gauss(wf->seed, t_us);
    case WF_POINTS:
    case WF_CSV:
        return points_value(wf, t_us);
    }
    return 0.0;
}

uint32_t sim_adc_quantise(double volts, double ref_volts, unsigned bits)
{
    uint32_t max = (uint32_t)((1ul << bits) - 1u);
    if (!(volts > 0) || !(ref_volts > 0)) return 0; /* also NaN */
    double x = volts / ref_volts * max;
    return x >= max ? max : (uint32_t)lround(x);
}

/* ---------------------------------------------------------------- construction */

static sim_waveform_t *wf_new(wf_kind_t kind, const json_t *spec)
{
    sim_waveform_t *wf = calloc(1, sizeof *wf);
    if (wf == NULL) return NULL;
    wf->kind = kind;
    wf->spec = json_deep_copy(spec);
    return wf;
}

void sim_waveform_free(sim_waveform_t *wf)
{
    if (wf == NULL) return;
    free(wf->pt_us);
    free(wf->pt_v);
    json_decref(wf->spec);
    free(wf);
}

sim_waveform_t *sim_waveform_copy(const sim_waveform_t *wf)
{
    sim_waveform_t *c = malloc(sizeof *c);
    if (c == NULL) return NULL;
    *c = *wf;
    c->spec = json_deep_copy(wf->spec);
    c->pt_us = wf->n ? malloc(wf->n * sizeof *c->pt_us) : NULL;
    c->pt_v = wf->n ? malloc(wf->n * sizeof *c->pt_v) : NULL;
    if (wf->n && (!c->pt_us || !c->pt_v)) {
        sim_waveform_free(c);
        return NULL;
    }
    if (wf->n) {
        memcpy(c->pt_us, wf->pt_us, wf->n * sizeof *c->pt_us);
        memcpy(c->pt_v, wf->pt_v, wf->n * sizeof *c->pt_v);
    }
    return c;
}

sim_waveform_t *sim_waveform_constant(double value)
{
    json_t *spec = json_pack("{s:s, s:f}", "type", "constant", "value", value);
    sim_waveform_t *wf = wf_new(WF_CONSTANT, spec);
    json_decref(spec);
    if (wf) wf->value = value;
    return wf;
}

json_t *sim_waveform_json(const sim_waveform_t *wf)
{
    return json_deep_copy(wf->spec);
}

static bool value_of(const json_t *o, const char *key, bool required, double def, double *out,
                     sim_cfg_err_t *e)
{
    return sim_cfg_number(o, key, required, def, -VALUE_MAX, VALUE_MAX, out, e);
}

static bool period_of(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    double ms = 0;
    if (!sim_cfg_number(o, "period_ms", true, 0, 0.001, PERIOD_MS_MAX, &ms, e)) return false;
    wf->period_us = ms * 1000.0;
    return true;
}

static bool low_high(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    return value_of(o, "low", true, 0, &wf->low, e) && value_of(o, "high", true, 0, &wf->high, e);
}

static bool parse_sine(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type",      "offset",    "amplitude",
                                       "period_ms", "phase_deg", NULL};
    double deg = 0;
    bool ok = sim_cfg_keys(o, keys, e) && value_of(o, "offset", false, 0, &wf->offset, e) &&
              value_of(o, "amplitude", true, 0, &wf->amplitude, e) && period_of(o, wf, e) &&
              sim_cfg_number(o, "phase_deg", false, 0, -360, 360, &deg, e);
    wf->phase_rad = deg * PI / 180.0;
    return ok;
}

static bool parse_square(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type", "low", "high", "period_ms", "duty", NULL};
    return sim_cfg_keys(o, keys, e) && low_high(o, wf, e) && period_of(o, wf, e) &&
           sim_cfg_number(o, "duty", false, 0.5, 0, 1, &wf->duty, e);
}

static bool parse_ramp(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type", "low", "high", "period_ms", NULL};
    return sim_cfg_keys(o, keys, e) && low_high(o, wf, e) && period_of(o, wf, e);
}

static bool parse_noise(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type", "mean", "stddev", "seed", NULL};
    long long seed = 0;
    bool ok = sim_cfg_keys(o, keys, e) && value_of(o, "mean", false, 0, &wf->mean, e) &&
              sim_cfg_number(o, "stddev", true, 0, 0, VALUE_MAX, &wf->stddev, e) &&
              sim_cfg_int(o, "seed", false, 1, 0, 9007199254740991LL, &seed, e);
    wf->seed = (uint64_t)seed;
    return ok;
}

/* Appends one point; times must not go backwards. */
static bool add_point(sim_waveform_t *wf, double t_ms, double v)
{
    if (wf->n % 64 == 0) {
        double *t = realloc(wf->pt_us, (wf->n + 64) * sizeof *t);
        if (t) wf->pt_us = t;
        double *vv = realloc(wf->pt_v, (wf->n + 64) * sizeof *vv);
        if (vv) wf->pt_v = vv;
        if (!t || !vv) return false;
    }
    wf->pt_us[wf->n] = t_ms * 1000.0;
    wf->pt_v[wf->n] = v;
    wf->n++;
    return true;
}

static bool parse_point(const json_t *p, const char *path, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_number(json_array_get(p, 0)) ||
        !json_is_number(json_array_get(p, 1)))
        return sim_cfg_fail(e, path, "must be a pair [t_ms, value] of numbers");
    double t = json_number_value(json_array_get(p, 0));
    double v = json_number_value(json_array_get(p, 1));
    if (!isfinite(t) || t < 0 || t > PERIOD_MS_MAX)
        return sim_cfg_fail(e, path, "time %g ms is out of range 0..%g", t, PERIOD_MS_MAX);
    if (!isfinite(v) || fabs(v) > VALUE_MAX)
        return sim_cfg_fail(e, path, "value %g is out of range", v);
    if (wf->n > 0 && t * 1000.0 < wf->pt_us[wf->n - 1])
        return sim_cfg_fail(e, path, "time %g ms is before the previous point's %g ms", t,
                            wf->pt_us[wf->n - 1] / 1000.0);
    return add_point(wf, t, v) || sim_cfg_fail(e, path, "out of memory");
}

/* With repeat, the table's period is its last time, which must then be positive. */
static bool check_repeat(sim_waveform_t *wf, const char *path, sim_cfg_err_t *e)
{
    if (wf->repeat && wf->pt_us[wf->n - 1] <= 0)
        return sim_cfg_fail(e, path, "repeat needs a last time > 0 (it is the period)");
    return true;
}

static bool parse_points(const json_t *o, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type", "points", "repeat", NULL};
    if (!sim_cfg_keys(o, keys, e) || !sim_cfg_bool(o, "repeat", false, &wf->repeat, e))
        return false;
    const json_t *pts = json_object_get(o, "points");
    if (pts == NULL) return sim_cfg_fail(e, "", "missing required key \"points\"");
    if (!json_is_array(pts) || json_array_size(pts) == 0)
        return sim_cfg_fail(e, "points", "must be a non-empty array of [t_ms, value] pairs");
    for (size_t i = 0; i < json_array_size(pts); i++) {
        char path[64];
        sim_cfg_path_index(path, sizeof path, "points", i);
        if (!parse_point(json_array_get(pts, i), path, wf, e)) return false;
    }
    return check_repeat(wf, "points", e);
}

/* ---------------------------------------------------------------- CSV */

typedef struct csv_ctx {
    const char *file; /* as shown in errors */
    int line;         /* 1-based line being read */
    bool started;     /* a header or a row has been seen: a later text line is an error */
    sim_waveform_t *wf;
    sim_cfg_err_t *e;
} csv_ctx_t;

static bool csv_fail(csv_ctx_t *c, int column, const char *fmt, const char *what)
{
    sim_cfg_fail(c->e, "file", fmt, what);
    snprintf(c->e->file, sizeof c->e->file, "%s", c->file);
    c->e->line = c->line;
    c->e->column = column;
    return false;
}

/* Trims [*s, *end) of blanks. */
static void trim(const char **s, const char **end)
{
    while (*s < *end && (**s == ' ' || **s == '\t')) (*s)++;
    while (*end > *s && ((*end)[-1] == ' ' || (*end)[-1] == '\t' || (*end)[-1] == '\r')) (*end)--;
}

/* A field that must be a whole finite number. */
static bool field_number(const char *s, const char *end, double *out)
{
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *stop = NULL;
    errno = 0;
    *out = strtod(buf, &stop);
    return *stop == 0 && errno == 0 && isfinite(*out);
}

/* The field [s, end) as text for a message (at most 40 bytes). */
static const char *field_text(const char *s, const char *end, char *buf, size_t cap)
{
    size_t n = (size_t)(end - s) < cap - 1 ? (size_t)(end - s) : cap - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

/* One non-blank, non-comment line [s, end) of the file ("time_ms,value"); line_start gives
   columns. The first such line may be a header (its time field is not a number). */
static bool csv_row(csv_ctx_t *c, const char *line_start, const char *s, const char *end)
{
    char text[41];
    const char *comma = memchr(s, ',', (size_t)(end - s));
    if (comma == NULL || memchr(comma + 1, ',', (size_t)(end - comma - 1)) != NULL)
        return csv_fail(c, (int)(s - line_start) + 1, "expected 2 fields: time_ms,value%s", "");
    const char *t0 = s, *t1 = comma, *v0 = comma + 1, *v1 = end;
    trim(&t0, &t1);
    trim(&v0, &v1);
    double t = 0, v = 0;
    bool header = !c->started;
    c->started = true;
    if (!field_number(t0, t1, &t)) {
        if (header) return true;
        return csv_fail(c, (int)(t0 - line_start) + 1, "time \"%s\" is not a number",
                        field_text(t0, t1, text, sizeof text));
    }
    if (!field_number(v0, v1, &v))
        return csv_fail(c, (int)(v0 - line_start) + 1, "value \"%s\" is not a number",
                        field_text(v0, v1, text, sizeof text));
    if (t < 0 || t > PERIOD_MS_MAX || fabs(v) > VALUE_MAX)
        return csv_fail(c, (int)(t0 - line_start) + 1,
                        "row out of range (time 0..1e12 ms, "
                        "|value| <= 1e9)%s",
                        "");
    if (c->wf->n > 0 && t * 1000.0 < c->wf->pt_us[c->wf->n - 1])
        return csv_fail(c, (int)(t0 - line_start) + 1, "time %s ms is before the previous row's",
                        field_text(t0, t1, text, sizeof text));
    return add_point(c->wf, t, v) || csv_fail(c, 1, "out of memory%s", "");
}

static bool csv_parse(csv_ctx_t *c, const char *text, size_t len)
{
    const char *p = text, *stop = text + len;
    for (c->line = 1; p < stop; c->line++) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        const char *end = nl ? nl : stop, *s = p, *e = end;
        trim(&s, &e);
        if (s < e && *s != '#' && !csv_row(c, p, s, e)) return false;
        p = nl ? nl + 1 : stop;
    }
    if (c->wf->n == 0) {
        c->line = 0;
        return csv_fail(c, 0, "no data rows (expected lines of time_ms,value)%s", "");
    }
    return true;
}

/* Reads a whole file into a malloc'd buffer; NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *buf = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (used == cap) {
            char *nb = realloc(buf, cap ? cap * 2 : 4096);
            if (nb == NULL) break;
            buf = nb;
            cap = cap ? cap * 2 : 4096;
        }
        size_t n = fread(buf + used, 1, cap - used, f);
        used += n;
        if (n == 0) break;
    }
    bool bad = ferror(f) || buf == NULL;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = used;
    return buf;
}

static bool parse_csv(const json_t *o, const char *base_dir, sim_waveform_t *wf, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"type", "file", "repeat", NULL};
    const char *file = NULL;
    if (!sim_cfg_keys(o, keys, e) || !sim_cfg_string(o, "file", true, NULL, &file, e) ||
        !sim_cfg_bool(o, "repeat", false, &wf->repeat, e))
        return false;
    char *path = sim_cfg_join_path(base_dir, file);
    size_t len = 0;
    char *text = path ? read_file(path, &len) : NULL;
    bool ok = text != NULL;
    if (!ok) sim_cfg_fail(e, "file", "cannot read %s: %s", path ? path : file, strerror(errno));
    csv_ctx_t c = {path, 0, false, wf, e};
    ok = ok && csv_parse(&c, text, len) && check_repeat(wf, "file", e);
    free(text);
    free(path);
    return ok;
}

/* ---------------------------------------------------------------- parse */

static bool parse_kind(const json_t *o, wf_kind_t kind, const char *base_dir, sim_waveform_t *wf,
                       sim_cfg_err_t *e)
{
    static const char *const const_keys[] = {"type", "value", NULL};
    switch (kind) {
    case WF_CONSTANT:
        return sim_cfg_keys(o, const_keys, e) && value_of(o, "value", true, 0, &wf->value, e);
    case WF_SINE:
        return parse_sine(o, wf, e);
    case WF_SQUARE:
        return parse_square(o, wf, e);
    case WF_TRIANGLE:
    case WF_SAWTOOTH:
        return parse_ramp(o, wf, e);
    case WF_NOISE:
        return parse_noise(o, wf, e);
    case WF_POINTS:
        return parse_points(o, wf, e);
    case WF_CSV:
        return parse_csv(o, base_dir, wf, e);
    }
    return false;
}

sim_waveform_t *sim_waveform_parse(const json_t *spec, const char *base_dir, sim_cfg_err_t *e)
{
    if (json_is_number(spec)) {
        double v = json_number_value(spec);
        if (!isfinite(v) || fabs(v) > VALUE_MAX) {
            sim_cfg_fail(e, "", "constant %g is out of range", v);
            return NULL;
        }
        return sim_waveform_constant(v);
    }
    int kind = 0;
    if (!json_is_object(spec)) {
        sim_cfg_fail(e, "", "must be a number or an object with a \"type\", not %s",
                     sim_cfg_kind(spec));
        return NULL;
    }
    if (!sim_cfg_enum(spec, "type", kind_names, -1, &kind, e)) return NULL;
    sim_waveform_t *wf = wf_new((wf_kind_t)kind, spec);
    if (wf == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    if (parse_kind(spec, (wf_kind_t)kind, base_dir, wf, e)) return wf;
    sim_waveform_free(wf);
    return NULL;
}
