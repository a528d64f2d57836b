/* control.c: the control channel: JSON-RPC 2.0 over jansson with the sim.* methods that move
   the simulated world (inputs, waveforms, clock, I2C models, faults) and read it back. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_codes.h"
#include "fw_sampling.h"
#include "sim_internal.h"

#define ADVANCE_MS_MAX 1e12
#define FAULT_US_MAX 60000000LL

typedef struct rpc_err {
    int code;
    char message[400];
    char path[200]; /* the offending field ("params.pin"), or "" */
} rpc_err_t;

/* A method: params is always an object (absent params read as {}). NULL result = error. */
typedef json_t *(*method_fn)(sim_t *sim, const json_t *params, rpc_err_t *err);

/* ---------------------------------------------------------------- errors */

static json_t *rpc_fail(rpc_err_t *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records an error response and returns NULL (a method's failed result). */
static json_t *rpc_fail(rpc_err_t *err, int code, const char *path, const char *fmt, ...)
{
    err->code = code;
    sim_cfg_printf(err->path, sizeof err->path, "%s", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return NULL;
}

/* FW_RPC_INVALID_PARAMS from a configuration error whose path is relative to params. */
static json_t *bad_params(rpc_err_t *err, const sim_cfg_err_t *e)
{
    char path[sizeof err->path];
    sim_cfg_path_key(path, sizeof path, "params", e->path);
    err->code = FW_RPC_INVALID_PARAMS;
    sim_cfg_printf(err->path, sizeof err->path, "%s", path);
    if (e->file[0])
        sim_cfg_printf(err->message, sizeof err->message, "%s:%d:%d: %s", e->file, e->line,
                       e->column, e->msg);
    else
        sim_cfg_printf(err->message, sizeof err->message, "%s: %s", path, e->msg);
    return NULL;
}

/* ---------------------------------------------------------------- parameters */

/* The pin named by member `key`: a number or a name. */
static sim_pin_t *param_pin(sim_t *sim, const json_t *params, const char *key, sim_cfg_err_t *e)
{
    const json_t *v = json_object_get(params, key);
    sim_pin_t *p = NULL;
    if (v == NULL) {
        sim_cfg_fail(e, "", "missing required key \"%s\"", key);
    } else if (json_is_integer(v)) {
        json_int_t n = json_integer_value(v);
        p = n >= 0 && n <= UINT16_MAX ? sim_pin_by_number(sim, (uint16_t)n) : NULL;
        if (p == NULL) sim_cfg_fail(e, key, "no pin %lld on this board", (long long)n);
    } else if (json_is_string(v)) {
        p = sim_pin_by_name(sim, json_string_value(v));
        if (p == NULL)
            sim_cfg_fail(e, key, "no pin named \"%s\" on this board", json_string_value(v));
    } else {
        sim_cfg_fail(e, key, "must be a pin number or name, not %s", sim_cfg_kind(v));
    }
    return p;
}

static const char *pin_label(const sim_pin_t *p)
{
    return p->cfg->in_registry ? p->cfg->name : "channel";
}

/* The pin must be an analog input that no wire drives. */
static bool analog_target(const sim_pin_t *p, sim_cfg_err_t *e)
{
    if (p->cfg->type != FW_PIN_ADC_INPUT)
        return sim_cfg_fail(e, "pin",
                            "pin %u (%s) is %s; waveforms drive adc_input pins and "
                            "channels",
                            (unsigned)p->cfg->number, pin_label(p), sim_type_phrase(p->cfg->type));
    if (p->wire_from >= 0)
        return sim_cfg_fail(e, "pin", "pin %u (%s) is driven by a wire", (unsigned)p->cfg->number,
                            pin_label(p));
    return true;
}

static bool level_param(const json_t *params, int *level, sim_cfg_err_t *e)
{
    const json_t *v = json_object_get(params, "level");
    if (v == NULL) return sim_cfg_fail(e, "", "missing required key \"level\"");
    if (json_is_null(v))
        *level = -1;
    else if (json_is_boolean(v))
        *level = json_is_true(v);
    else if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
        *level = (int)json_integer_value(v);
    else
        return sim_cfg_fail(e, "level", "must be true, false, 0, 1 or null (floating)");
    return true;
}

/* ---------------------------------------------------------------- pins */

static json_t *m_set_input(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"pin", "level", NULL};
    sim_cfg_err_t e;
    int level = 0;
    sim_pin_t *p = NULL;
    if (!sim_cfg_keys(params, keys, &e) || !(p = param_pin(sim, params, "pin", &e)) ||
        !level_param(params, &level, &e))
        return bad_params(err, &e);
    uint8_t type = p->cfg->type;
    if (type != FW_PIN_DIGITAL_INPUT && type != FW_PIN_DIGITAL_OUTPUT)
        sim_cfg_fail(&e, "pin", "pin %u (%s) is %s; set_input drives digital inputs",
                     (unsigned)p->cfg->number, pin_label(p), sim_type_phrase(type));
    else if (p->mode == HAL_PIN_OUTPUT)
        sim_cfg_fail(&e, "pin", "pin %u (%s) is an output the firmware drives",
                     (unsigned)p->cfg->number, pin_label(p));
    else if (p->wire_from >= 0)
        sim_cfg_fail(&e, "pin", "pin %u (%s) is driven by a wire from pin %u",
                     (unsigned)p->cfg->number, pin_label(p),
                     (unsigned)sim->pins[p->wire_from].cfg->number);
    else {
        p->ext_level = level;
        return sim_pin_json(sim, p);
    }
    return bad_params(err, &e);
}

static json_t *m_set_waveform(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"pin", "waveform", "unit", NULL};
    static const char *const units[] = {"volts", "counts", NULL};
    sim_cfg_err_t e;
    sim_pin_t *p = NULL;
    int unit = 0;
    if (!sim_cfg_keys(params, keys, &e) || !(p = param_pin(sim, params, "pin", &e)) ||
        !analog_target(p, &e) || !sim_cfg_enum(params, "unit", units, p->unit, &unit, &e))
        return bad_params(err, &e);
    const json_t *spec = json_object_get(params, "waveform");
    if (spec == NULL) {
        sim_cfg_fail(&e, "", "missing required key \"waveform\"");
        return bad_params(err, &e);
    }
    sim_waveform_t *wf = sim_waveform_parse(spec, sim->board->dir, &e);
    if (wf == NULL) {
        sim_cfg_prefix(&e, "waveform");
        return bad_params(err, &e);
    }
    sim_pin_set_waveform(p, wf, (sim_unit_t)unit);
    return sim_pin_json(sim, p);
}

static json_t *m_set_analog(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"pin", "volts", "raw", NULL};
    sim_cfg_err_t e;
    sim_pin_t *p = NULL;
    double v = 0;
    if (!sim_cfg_keys(params, keys, &e) || !(p = param_pin(sim, params, "pin", &e)) ||
        !analog_target(p, &e))
        return bad_params(err, &e);
    bool raw = json_object_get(params, "raw") != NULL;
    if (raw && json_object_get(params, "volts")) {
        sim_cfg_fail(&e, "raw", "give volts or raw, not both");
        return bad_params(err, &e);
    }
    double max = raw ? (double)((1ul << sim->board->fw.adc_bits) - 1u) : 1e3;
    if (!sim_cfg_number(params, raw ? "raw" : "volts", true, 0, raw ? 0 : -max, max, &v, &e))
        return bad_params(err, &e);
    sim_waveform_t *wf = sim_waveform_constant(v);
    if (wf == NULL) return rpc_fail(err, FW_RPC_INTERNAL_ERROR, "", "out of memory");
    sim_pin_set_waveform(p, wf, raw ? SIM_UNIT_COUNTS : SIM_UNIT_VOLTS);
    return sim_pin_json(sim, p);
}

static json_t *m_get_pin(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"pin", NULL};
    sim_cfg_err_t e;
    sim_pin_t *p = NULL;
    if (!sim_cfg_keys(params, keys, &e) || !(p = param_pin(sim, params, "pin", &e)))
        return bad_params(err, &e);
    return sim_pin_json(sim, p);
}

static json_t *pins_json(const sim_t *sim)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sim->pin_count; i++)
        json_array_append_new(a, sim_pin_json(sim, &sim->pins[i]));
    return a;
}

/* For methods without parameters: false (with err set) when some are given. */
static bool no_params(const json_t *params, rpc_err_t *err)
{
    void *first = json_object_iter((json_t *)params);
    if (first == NULL) return true;
    sim_cfg_err_t e;
    const char *key = json_object_iter_key(first);
    sim_cfg_fail(&e, key, "unknown key \"%s\" (this method takes no parameters)", key);
    bad_params(err, &e);
    return false;
}

static json_t *time_json(const sim_t *sim)
{
    return json_pack("{s:I, s:I}", "now_ms", (json_int_t)(sim->now_us / 1000u), "now_us",
                     (json_int_t)sim->now_us);
}

static json_t *m_read_outputs(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    if (!no_params(params, err)) return NULL;
    json_t *o = time_json(sim);
    json_object_set_new(o, "pins", pins_json(sim));
    return o;
}

/* ---------------------------------------------------------------- clock */

static const char *mode_name(const sim_t *sim)
{
    return sim->mode == SIM_CLOCK_VIRTUAL ? "virtual" : "realtime";
}

static json_t *m_time(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    if (!no_params(params, err)) return NULL;
    json_t *o = time_json(sim);
    json_object_set_new(o, "mode", json_string(mode_name(sim)));
    uint64_t next = sim_next_event_us(sim);
    json_object_set_new(o, "next_event_us",
                        next == UINT64_MAX ? json_null() : json_integer((json_int_t)next));
    return o;
}

static json_t *m_advance(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"ms", NULL};
    sim_cfg_err_t e;
    double ms = 0;
    if (!sim_cfg_keys(params, keys, &e) ||
        !sim_cfg_number(params, "ms", true, 0, 0, ADVANCE_MS_MAX, &ms, &e))
        return bad_params(err, &e);
    if (!sim_advance(sim, (uint64_t)(ms * 1000.0 + 0.5)))
        return rpc_fail(err, FW_RPC_SIM_STATE, "",
                        "sim.advance needs the virtual clock (start mcpsim "
                        "with --clock virtual); this sim runs in real time");
    return time_json(sim);
}

static json_t *m_reset(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    if (!no_params(params, err)) return NULL;
    sim_reset(sim);
    json_t *o = time_json(sim);
    json_object_set_new(o, "resets", json_integer(sim->resets));
    return o;
}

/* ---------------------------------------------------------------- I2C */

static json_t *addresses_json(sim_t *sim)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sim_i2c_device_count(sim->i2c); i++) {
        char text[16];
        const sim_i2c_dev_t *d = sim_i2c_device(sim->i2c, i);
        snprintf(text, sizeof text, "0x%02x/%u", (unsigned)d->addr, (unsigned)d->bus);
        json_array_append_new(a, json_string(text));
    }
    return a;
}

/* The device named by params.address / params.bus. */
static sim_i2c_dev_t *param_device(sim_t *sim, const json_t *params, sim_cfg_err_t *e)
{
    const json_t *v = json_object_get(params, "address");
    int addr = 0;
    long long bus = 0;
    if (v == NULL) {
        sim_cfg_fail(e, "", "missing required key \"address\"");
        return NULL;
    }
    if (!sim_cfg_i2c_addr(v, "address", &addr, e) ||
        !sim_cfg_int(params, "bus", false, 0, 0, 255, &bus, e))
        return NULL;
    sim_i2c_dev_t *d = sim_i2c_find(sim->i2c, (uint8_t)bus, (uint8_t)addr);
    if (d != NULL) return d;
    json_t *list = addresses_json(sim);
    char *text = json_dumps(list, JSON_COMPACT);
    sim_cfg_fail(e, "address", "no device at 0x%02x on bus %lld (devices at address/bus: %s)",
                 (unsigned)addr, bus, text ? text : "?");
    free(text);
    json_decref(list);
    return NULL;
}

/* params without the addressing members: what the model's own face reads. */
static json_t *model_params(const json_t *params)
{
    json_t *p = json_copy((json_t *)params);
    json_object_del(p, "address");
    json_object_del(p, "bus");
    return p;
}

static json_t *device_head(const sim_i2c_dev_t *d)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:i}", "model", d->ops->name, "name", d->name, "bus",
                     d->bus, "address", d->addr, "addresses", d->span);
}

static json_t *device_state(sim_t *sim, sim_i2c_dev_t *d, const json_t *mp, rpc_err_t *err)
{
    sim_cfg_err_t e;
    json_t *state = d->ops->get(d->model, mp, sim->now_us, &e);
    if (state == NULL) return bad_params(err, &e);
    json_t *o = device_head(d);
    json_object_update(o, state);
    json_decref(state);
    return o;
}

static json_t *m_i2c_get(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    sim_cfg_err_t e;
    sim_i2c_dev_t *d = param_device(sim, params, &e);
    if (d == NULL) return bad_params(err, &e);
    json_t *mp = model_params(params);
    json_t *o = device_state(sim, d, mp, err);
    json_decref(mp);
    return o;
}

static json_t *m_i2c_set(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    sim_cfg_err_t e;
    sim_i2c_dev_t *d = param_device(sim, params, &e);
    if (d == NULL) return bad_params(err, &e);
    json_t *mp = model_params(params);
    bool ok = d->ops->set(d->model, mp, sim->now_us, &e);
    json_decref(mp);
    if (!ok) return bad_params(err, &e);
    json_t *none = json_object();
    json_t *o = device_state(sim, d, none, err);
    json_decref(none);
    return o;
}

/* ---------------------------------------------------------------- pin devices */

static json_t *m_pin_device_get(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"name", NULL};
    sim_cfg_err_t e = {0};
    const char *name = NULL;
    if (!sim_cfg_keys(params, keys, &e) || !sim_cfg_string(params, "name", true, NULL, &name, &e))
        return bad_params(err, &e);
    json_t *o = sim_pindevs_get(sim->pindevs, name, sim->now_us, sim_pin_pwm_view, sim, &e);
    return o != NULL ? o : bad_params(err, &e);
}

static json_t *m_pin_device_set(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    sim_cfg_err_t e = {0};
    const char *name = NULL;
    if (!sim_cfg_string(params, "name", true, NULL, &name, &e) ||
        !sim_pindevs_set(sim->pindevs, name, params, sim->board->dir, &e))
        return bad_params(err, &e);
    json_t *o = sim_pindevs_get(sim->pindevs, name, sim->now_us, sim_pin_pwm_view, sim, &e);
    return o != NULL ? o : bad_params(err, &e);
}

/* ---------------------------------------------------------------- faults */

/* The targets a fault kind takes: required (R), optional (O) or refused (-). */
typedef struct fault_rule {
    char address, bus, pin, us;
} fault_rule_t;

static const fault_rule_t fault_rules[SIM_FAULT_KIND_COUNT] = {
    [SIM_FAULT_I2C_NACK] = {'R', 'O', '-', '-'},
    [SIM_FAULT_I2C_BUS_STUCK] = {'-', 'O', '-', '-'},
    [SIM_FAULT_ADC_FAIL] = {'-', '-', 'R', '-'},
    [SIM_FAULT_LATENCY] = {'O', 'O', 'O', 'R'},
};

static bool fault_member(const json_t *params, const char *key, char rule, sim_cfg_err_t *e)
{
    bool has = json_object_get(params, key) != NULL;
    if (rule == 'R' && !has) return sim_cfg_fail(e, "", "missing required key \"%s\"", key);
    if (rule == '-' && has)
        return sim_cfg_fail(e, key, "\"%s\" does not apply to this kind of fault", key);
    return true;
}

static bool fault_targets(sim_t *sim, const json_t *params, sim_fault_t *f, sim_cfg_err_t *e)
{
    const fault_rule_t *r = &fault_rules[f->kind];
    long long bus = -1, us = 0;
    bool stuck = f->kind == SIM_FAULT_I2C_BUS_STUCK;
    if (!fault_member(params, "address", r->address, e) ||
        !fault_member(params, "bus", r->bus, e) || !fault_member(params, "pin", r->pin, e) ||
        !fault_member(params, "us", r->us, e) ||
        !sim_cfg_int(params, "bus", false, stuck ? 0 : -1, 0, 255, &bus, e) ||
        !sim_cfg_int(params, "us", false, 0, 1, FAULT_US_MAX, &us, e))
        return false;
    const json_t *addr = json_object_get(params, "address");
    if (addr && !sim_cfg_i2c_addr(addr, "address", &f->addr, e)) return false;
    if (bus >= (long long)sim_i2c_bus_count(sim->i2c))
        return sim_cfg_fail(e, "bus", "bus %lld does not exist: the board has %u i2c bus(es)", bus,
                            sim_i2c_bus_count(sim->i2c));
    if (json_object_get(params, "pin")) {
        sim_pin_t *p = param_pin(sim, params, "pin", e);
        if (p == NULL) return false;
        if (p->cfg->type != FW_PIN_ADC_INPUT)
            return sim_cfg_fail(e, "pin", "pin %u (%s) is not an adc_input",
                                (unsigned)p->cfg->number, pin_label(p));
        f->pin = p->cfg->number;
    }
    if (f->pin >= 0 && (f->addr >= 0 || bus >= 0))
        return sim_cfg_fail(e, "pin", "a latency fault targets a pin or I2C, not both");
    f->bus = (int)bus;
    f->us = (uint32_t)us;
    return true;
}

static json_t *m_fault_inject(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"kind", "address", "bus", "pin", "us", NULL};
    sim_cfg_err_t e;
    int kind = 0;
    sim_fault_t f = {0, SIM_FAULT_I2C_NACK, -1, -1, -1, 0};
    if (!sim_cfg_keys(params, keys, &e) ||
        !sim_cfg_enum(params, "kind", sim_fault_kind_names, -1, &kind, &e))
        return bad_params(err, &e);
    f.kind = (sim_fault_kind_t)kind;
    if (!fault_targets(sim, params, &f, &e)) return bad_params(err, &e);
    f.id = sim_faults_add(&sim->faults, &f);
    if (f.id == 0) return rpc_fail(err, FW_RPC_INTERNAL_ERROR, "", "out of memory");
    return json_pack("{s:I, s:o}", "id", (json_int_t)f.id, "fault", sim_fault_json(&f));
}

static json_t *m_fault_clear(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    static const char *const keys[] = {"id", "all", NULL};
    sim_cfg_err_t e;
    long long id = 0;
    bool all = false;
    if (!sim_cfg_keys(params, keys, &e) || !sim_cfg_bool(params, "all", false, &all, &e) ||
        !sim_cfg_int(params, "id", false, 0, 1, UINT32_MAX, &id, &e))
        return bad_params(err, &e);
    if (all == (id != 0)) {
        sim_cfg_fail(&e, "", "give either \"id\" (one fault) or \"all\": true");
        return bad_params(err, &e);
    }
    if (all) return json_pack("{s:I}", "cleared", (json_int_t)sim_faults_clear(&sim->faults));
    if (!sim_faults_remove(&sim->faults, (uint32_t)id)) {
        sim_cfg_fail(&e, "id", "no active fault with id %lld (see sim.faults)", id);
        return bad_params(err, &e);
    }
    return json_pack("{s:i}", "cleared", 1);
}

static json_t *m_faults(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    if (!no_params(params, err)) return NULL;
    return json_pack("{s:o}", "faults", sim_faults_json(&sim->faults));
}

/* ---------------------------------------------------------------- snapshot */

static json_t *wires_json(const sim_t *sim)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sim->board->wire_count; i++)
        json_array_append_new(a, json_pack("{s:i, s:i}", "from", sim->board->wires[i].from, "to",
                                           sim->board->wires[i].to));
    return a;
}

static json_t *devices_json(sim_t *sim, rpc_err_t *err)
{
    json_t *a = json_array(), *none = json_object();
    for (size_t i = 0; i < sim_i2c_device_count(sim->i2c); i++) {
        json_t *d = device_state(sim, sim_i2c_device(sim->i2c, i), none, err);
        if (d) json_array_append_new(a, d);
    }
    json_decref(none);
    return a;
}

static json_t *counters_json(const sim_t *sim)
{
    const fw_counters_t *c = fw_device_counters(&sim->dev);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "requests", (json_int_t)c->requests,
                     "errors", (json_int_t)c->errors, "parse_errors", (json_int_t)c->parse_errors,
                     "notifications", (json_int_t)c->notifications, "overlong_lines",
                     (json_int_t)c->overlong_lines, "events_dropped",
                     (json_int_t)c->events_dropped);
}

/* The last samples the firmware took of each pin that buffers them, as the firmware holds them
   (its ring, read through fw_sampling.h): {"34": [[seq, t_ms, raw], ...]}, oldest first, at most
   SNAPSHOT_SAMPLES a pin. */
#define SNAPSHOT_SAMPLES 32

static json_t *samples_json(const sim_t *sim)
{
    json_t *o = json_object();
#if FW_WITH_SAMPLING
    const fw_board_t *fw = &sim->board->fw;
    for (uint8_t i = 0; i < fw->pin_count; i++) {
        const fw_pin_def_t *def = &fw->pins[i];
        if (!fw_pin_sampled(def) || !def->buffer) continue;
        uint16_t n = fw_sampling_state(&sim->dev, i)->ring_count;
        json_t *a = json_array();
        fw_sample_t smp;
        for (uint16_t k = n > SNAPSHOT_SAMPLES ? n - SNAPSHOT_SAMPLES : 0; k < n; k++)
            if (fw_sampling_sample(&sim->dev, i, k, &smp))
                json_array_append_new(a, json_pack("[I, I, I]", (json_int_t)smp.seq,
                                                   (json_int_t)smp.t_ms, (json_int_t)smp.value));
        char key[8];
        snprintf(key, sizeof key, "%u", (unsigned)def->number);
        json_object_set_new(o, key, a);
    }
#else
    (void)sim;
#endif
    return o;
}

static json_t *m_snapshot(sim_t *sim, const json_t *params, rpc_err_t *err)
{
    if (!no_params(params, err)) return NULL;
    const fw_board_t *fw = &sim->board->fw;
    json_t *o = time_json(sim);
    json_object_update_new(o, json_pack("{s:s, s:s, s:s, s:s, s:i}", "board", sim->board->path,
                                        "device", fw->device, "platform", fw->platform, "mode",
                                        mode_name(sim), "resets", (int)sim->resets));
    json_object_set_new(o, "pins", pins_json(sim));
    json_object_set_new(o, "samples", samples_json(sim));
    json_object_set_new(o, "wires", wires_json(sim));
    json_object_set_new(
        o, "i2c",
        json_pack("{s:i, s:o}", "buses", fw->i2c_bus_count, "devices", devices_json(sim, err)));
    json_object_set_new(o, "faults", sim_faults_json(&sim->faults));
    uint64_t deadline = fw_device_next_deadline(&sim->dev);
    json_t *fwj = json_pack("{s:o, s:b}", "counters", counters_json(sim), "reset_pending",
                            sim->reset_pending);
    json_object_set_new(fwj, "next_deadline_ms",
                        deadline == UINT64_MAX ? json_null() : json_integer((json_int_t)deadline));
    json_object_set_new(o, "firmware", fwj);
    return o;
}

/* ---------------------------------------------------------------- dispatch */

typedef struct method {
    const char *name;
    method_fn fn;
} method_t;

static const method_t methods[] = {
    {"sim.set_input", m_set_input},
    {"sim.set_waveform", m_set_waveform},
    {"sim.set_analog", m_set_analog},
    {"sim.advance", m_advance},
    {"sim.time", m_time},
    {"sim.get_pin", m_get_pin},
    {"sim.read_outputs", m_read_outputs},
    {"sim.i2c.get", m_i2c_get},
    {"sim.i2c.set", m_i2c_set},
    {"sim.pin_device.get", m_pin_device_get},
    {"sim.pin_device.set", m_pin_device_set},
    {"sim.fault.inject", m_fault_inject},
    {"sim.fault.clear", m_fault_clear},
    {"sim.faults", m_faults},
    {"sim.snapshot", m_snapshot},
    {"sim.reset", m_reset},
};

static const method_t *find_method(const char *name)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(methods[i].name, name) == 0) return &methods[i];
    return NULL;
}

static json_t *error_response(const json_t *id, const rpc_err_t *err)
{
    json_t *e = json_pack("{s:i, s:s}", "code", err->code, "message", err->message);
    if (err->path[0]) json_object_set_new(e, "data", json_pack("{s:s}", "path", err->path));
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? (json_t *)id : json_null(),
                     "error", e);
}

static bool valid_id(const json_t *id)
{
    return json_is_string(id) || json_is_number(id) || json_is_null(id);
}

/* Checks the envelope; false with err set (FW_RPC_INVALID_REQUEST). */
static bool check_envelope(const json_t *req, rpc_err_t *err)
{
    static const char *const keys[] = {"jsonrpc", "id", "method", "params", NULL};
    sim_cfg_err_t e;
    const json_t *v = json_object_get(req, "jsonrpc");
    const json_t *m = json_object_get(req, "method");
    const json_t *id = json_object_get(req, "id");
    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
        rpc_fail(err, FW_RPC_INVALID_REQUEST, "jsonrpc",
                 "Invalid Request: jsonrpc must be \"2.0\"");
    else if (!json_is_string(m))
        rpc_fail(err, FW_RPC_INVALID_REQUEST, "method", "Invalid Request: method must be a string");
    else if (id != NULL && !valid_id(id))
        rpc_fail(err, FW_RPC_INVALID_REQUEST, "id",
                 "Invalid Request: id must be a string, a number "
                 "or null");
    else if (!sim_cfg_keys(req, keys, &e))
        rpc_fail(err, FW_RPC_INVALID_REQUEST, e.path, "Invalid Request: %s", e.msg);
    else
        return true;
    return false;
}

/* Handles one request object; NULL when no response is due (a notification). */
static json_t *handle_one(sim_t *sim, const json_t *req)
{
    rpc_err_t err = {0, "", ""};
    if (!json_is_object(req)) {
        rpc_fail(&err, FW_RPC_INVALID_REQUEST, "",
                 "Invalid Request: a request is an object, not %s", sim_cfg_kind(req));
        return error_response(NULL, &err);
    }
    const json_t *id = json_object_get(req, "id");
    bool has_id = id != NULL && valid_id(id);
    if (!check_envelope(req, &err)) return error_response(has_id ? id : NULL, &err);
    const char *name = json_string_value(json_object_get(req, "method"));
    const method_t *m = find_method(name);
    const json_t *params = json_object_get(req, "params");
    json_t *result = NULL, *empty = json_object();
    if (m == NULL)
        rpc_fail(&err, FW_RPC_METHOD_NOT_FOUND, "method",
                 "Method not found: \"%s\" (see "
                 "docs/control-channel.md for the sim.* methods)",
                 name);
    else if (params != NULL && !json_is_object(params))
        rpc_fail(&err, FW_RPC_INVALID_PARAMS, "params",
                 "params: must be an object of named "
                 "parameters, not %s",
                 sim_cfg_kind(params));
    else
        result = m->fn(sim, params ? params : empty, &err);
    json_decref(empty);
    if (!has_id) {
        json_decref(result);
        return NULL;
    }
    if (result == NULL) return error_response(id, &err);
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result);
}

/* Most messages in one control batch: a longer one is refused whole (one call must not hold
   the device for an unbounded time). */
#define CONTROL_BATCH_MAX 64u

static json_t *handle_batch(sim_t *sim, const json_t *batch)
{
    if (json_array_size(batch) == 0) {
        rpc_err_t err = {0, "", ""};
        rpc_fail(&err, FW_RPC_INVALID_REQUEST, "", "Invalid Request: empty batch");
        return error_response(NULL, &err);
    }
    if (json_array_size(batch) > CONTROL_BATCH_MAX) {
        rpc_err_t err = {0, "", ""};
        rpc_fail(&err, FW_RPC_INVALID_REQUEST, "",
                 "Invalid Request: a batch of %zu messages (at most %u): none was run",
                 json_array_size(batch), CONTROL_BATCH_MAX);
        return error_response(NULL, &err);
    }
    json_t *out = json_array();
    for (size_t i = 0; i < json_array_size(batch); i++) {
        json_t *r = handle_one(sim, json_array_get(batch, i));
        if (r) json_array_append_new(out, r);
    }
    if (json_array_size(out) > 0) return out;
    json_decref(out);
    return NULL;
}

char *sim_control_handle(sim_t *sim, const char *msg, size_t len)
{
    json_error_t je;
    json_t *req = json_loadb(msg, len, JSON_DECODE_ANY, &je), *resp = NULL;
    sim_sync_wall(sim, 0); /* a reset the firmware asked for takes effect before we look */
    if (req == NULL) {
        rpc_err_t err = {0, "", ""};
        char what[300];
        sim_cfg_printf(what, sizeof what, "%s (line %d, column %d)", je.text, je.line, je.column);
        rpc_fail(&err, FW_RPC_PARSE_ERROR, "", "Parse error: %s", what);
        resp = error_response(NULL, &err);
    } else {
        resp = json_is_array(req) ? handle_batch(sim, req) : handle_one(sim, req);
    }
    json_decref(req);
    char *text = resp ? json_dumps(resp, JSON_COMPACT | JSON_REAL_PRECISION(12)) : NULL;
    json_decref(resp);
    return text;
}
