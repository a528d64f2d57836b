/* board.c: board files: loading and validating them, locating every error at file:line:column,
   and the firmware's view of the board (fw_board_t). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h" /* fw_app_tool_find: app_tools names become the tools they name */
#include "fw_builtins.h"
#include "sim_internal.h"

/*
 * Loading is two steps: jansson parses the text (its errors carry line and column), then the
 * loader walks the tree and records the first problem as a JSON path ("pins[1].type") and a
 * message. Only then is the path turned into a position, by tokenising the same text with the
 * firmware's JSON reader (tokens carry byte offsets) and walking the path through the tokens.
 */

typedef struct loader {
    sim_board_t *b;
    sim_cfg_err_t e;
    uint32_t adc_max; /* largest raw ADC count */
} loader_t;

static const char *const pin_type_names[] = {"digital_output", "digital_input", "pwm_output",
                                             "adc_input", NULL};
static const char *const pull_names[] = {"none", "up", "down", NULL};
static const char *const unit_names[] = {"volts", "counts", NULL};
static const char *const report_names[] = {"volts", "mv", NULL};

/* Prefixes the recorded error's path when ok is false; returns ok. */
static bool under(loader_t *L, const char *prefix, bool ok)
{
    if (!ok && L->e.file[0] == 0) sim_cfg_prefix(&L->e, prefix);
    return ok;
}

static bool is_input(uint8_t type)
{
    return type == FW_PIN_DIGITAL_INPUT || type == FW_PIN_ADC_INPUT;
}

static bool is_output(uint8_t type)
{
    return type == FW_PIN_DIGITAL_OUTPUT || type == FW_PIN_PWM_OUTPUT;
}

static const char *hw_label(const sim_pin_cfg_t *p)
{
    return p->in_registry ? p->name : "channel";
}

/* ---------------------------------------------------------------- identity and ADC */

static bool load_identity(loader_t *L, const json_t *r)
{
    fw_board_t *fw = &L->b->fw;
    long long hz = 0;
    bool ok = sim_cfg_string(r, "device", true, NULL, &fw->device, &L->e) &&
              sim_cfg_string(r, "version", false, "1.0.0", &fw->version, &L->e) &&
              sim_cfg_string(r, "platform", false, "sim", &fw->platform, &L->e) &&
              sim_cfg_bool(r, "omit_schemas", false, &fw->omit_schemas, &L->e) &&
              sim_cfg_int(r, "pwm_default_hz", false, SIM_PWM_DEFAULT_HZ, 1, 40000000, &hz, &L->e);
    if (ok && fw->device[0] == 0) return sim_cfg_fail(&L->e, "device", "must not be empty");
    L->b->pwm_default_hz = (uint32_t)hz;
    return ok;
}

/* "uart": what a host sees when it opens the board's serial port (the pty). */
static bool load_uart(loader_t *L, const json_t *uart)
{
    static const char *const keys[] = {"reset_on_open", "boot_banner", NULL};
    if (uart == NULL) return true;
    bool ok = sim_cfg_object(uart, "", &L->e) && sim_cfg_keys(uart, keys, &L->e) &&
              sim_cfg_bool(uart, "reset_on_open", false, &L->b->uart_reset_on_open, &L->e) &&
              sim_cfg_string(uart, "boot_banner", false, NULL, &L->b->uart_banner, &L->e);
    if (ok && L->b->uart_banner != NULL && strpbrk(L->b->uart_banner, "\r\n") != NULL)
        return sim_cfg_fail(&L->e, "boot_banner", "must be one line (no CR or LF)");
    return ok;
}

/* "chip": the facts the HAL's device_info reports (system_info), e.g. an ESP32's. */
static bool load_chip(loader_t *L, const json_t *chip)
{
    static const char *const keys[] = {"model", "cpu_mhz", "ram_bytes", "flash_bytes", NULL};
    long long mhz = 0, ram = 0, flash = 0;
    if (chip == NULL) return true;
    bool ok = sim_cfg_object(chip, "", &L->e) && sim_cfg_keys(chip, keys, &L->e) &&
              sim_cfg_string(chip, "model", false, NULL, &L->b->chip_model, &L->e) &&
              sim_cfg_int(chip, "cpu_mhz", false, 0, 0, 100000, &mhz, &L->e) &&
              sim_cfg_int(chip, "ram_bytes", false, 0, 0, UINT32_MAX, &ram, &L->e) &&
              sim_cfg_int(chip, "flash_bytes", false, 0, 0, UINT32_MAX, &flash, &L->e);
    L->b->chip_mhz = (uint32_t)mhz;
    L->b->chip_ram = (uint32_t)ram;
    L->b->chip_flash = (uint32_t)flash;
    return ok;
}

static bool load_adc(loader_t *L, const json_t *adc)
{
    static const char *const keys[] = {"bits", "ref_mv", "report", NULL};
    long long bits = 12, ref = 3300;
    int report = 0;
    if (adc != NULL && !(sim_cfg_object(adc, "", &L->e) && sim_cfg_keys(adc, keys, &L->e) &&
                         sim_cfg_int(adc, "bits", false, 12, 1, 16, &bits, &L->e) &&
                         sim_cfg_int(adc, "ref_mv", false, 3300, 1, 65535, &ref, &L->e) &&
                         sim_cfg_enum(adc, "report", report_names, 0, &report, &L->e)))
        return false;
    L->b->fw.adc_bits = (uint8_t)bits;
    L->b->fw.adc_ref_mv = (uint16_t)ref;
    L->b->fw.adc_report = (uint8_t)(report == 0 ? FW_ADC_REPORT_VOLTS : FW_ADC_REPORT_MV);
    L->adc_max = (uint32_t)((1ul << bits) - 1u);
    return true;
}

/* ---------------------------------------------------------------- pins */

static bool load_sampling(loader_t *L, const json_t *s, fw_pin_def_t *def)
{
#if !FW_WITH_SAMPLING
    (void)s;
    (void)def;
    return sim_cfg_fail(&L->e, "",
                        "this simulator is built with the " FW_PROFILE_NAME
                        " profile, which has no sampling (FW_WITH_SAMPLING 0): "
                        "remove \"sampling\" or use a full build");
#endif
    static const char *const keys[] = {"interval_ms", "buffer_size", "summary",
                                       "buffer",      "events",      NULL};
    long long interval = 0, size = 0;
    if (!sim_cfg_object(s, "", &L->e) || !sim_cfg_keys(s, keys, &L->e) ||
        !sim_cfg_int(s, "interval_ms", true, 0, 1, UINT32_MAX, &interval, &L->e) ||
        !sim_cfg_int(s, "buffer_size", false, 0, 1, 65535, &size, &L->e) ||
        !sim_cfg_bool(s, "summary", false, &def->summary, &L->e) ||
        !sim_cfg_bool(s, "buffer", size > 0, &def->buffer, &L->e) ||
        !sim_cfg_bool(s, "events", false, &def->events, &L->e))
        return false;
    if (size > FW_SAMPLE_BUF_MAX)
        return sim_cfg_fail(&L->e, "buffer_size",
                            "%lld exceeds the firmware's ring of %d "
                            "samples (FW_SAMPLE_BUF_MAX)",
                            size, FW_SAMPLE_BUF_MAX);
    if (def->buffer && size == 0)
        return sim_cfg_fail(&L->e, "", "missing required key \"buffer_size\" (buffer is true)");
    def->sample_interval_ms = (uint32_t)interval;
    def->buffer_size = (uint16_t)size;
    return true;
}

static bool load_thresholds(loader_t *L, const json_t *t, fw_pin_def_t *def)
{
    static const char *const keys[] = {"high", "low", NULL};
    long long high = 0, low = 0;
    if (!sim_cfg_object(t, "", &L->e) || !sim_cfg_keys(t, keys, &L->e) ||
        !sim_cfg_int(t, "high", true, 0, 0, L->adc_max, &high, &L->e) ||
        !sim_cfg_int(t, "low", true, 0, 0, L->adc_max, &low, &L->e))
        return false;
    if (low > high)
        return sim_cfg_fail(&L->e, "low", "%lld is above high (%lld): the event re-arms at low",
                            low, high);
    def->threshold_high = (int32_t)high;
    def->threshold_low = (int32_t)low;
    return true;
}

/* level: true/false, 0/1, or null (floating). */
static bool load_level(loader_t *L, const json_t *pin, sim_pin_cfg_t *hw)
{
    const json_t *v = json_object_get(pin, "level");
    hw->level = -1;
    if (v == NULL || json_is_null(v)) return true;
    if (json_is_boolean(v))
        hw->level = json_is_true(v);
    else if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))
        hw->level = (int)json_integer_value(v);
    else
        return sim_cfg_fail(&L->e, "level", "must be true, false, 0, 1 or null (floating)");
    return true;
}

/* A member allowed only on some pin types. */
static bool only_on(loader_t *L, const json_t *pin, const char *key, bool allowed,
                    const char *which, uint8_t type)
{
    if (allowed || json_object_get(pin, key) == NULL) return true;
    return sim_cfg_fail(&L->e, key, "%s is for %s pins, not %s", key, which, sim_type_phrase(type));
}

static bool load_analog(loader_t *L, const json_t *pin, sim_pin_cfg_t *hw)
{
    int unit = 0;
    if (!sim_cfg_enum(pin, "unit", unit_names, 0, &unit, &L->e)) return false;
    hw->unit = (uint8_t)unit;
    const json_t *wf = json_object_get(pin, "waveform");
    if (wf == NULL) return true;
    hw->waveform = sim_waveform_parse(wf, L->b->dir, &L->e);
    return under(L, "waveform", hw->waveform != NULL);
}

static bool pin_type_rules(loader_t *L, const json_t *pin, uint8_t type)
{
    bool din = type == FW_PIN_DIGITAL_INPUT, adc = type == FW_PIN_ADC_INPUT;
    return only_on(L, pin, "sampling", is_input(type), "input", type) &&
           only_on(L, pin, "thresholds", adc, "adc_input", type) &&
           only_on(L, pin, "waveform", adc, "adc_input", type) &&
           only_on(L, pin, "unit", adc, "adc_input", type) &&
           only_on(L, pin, "level", din, "digital_input", type) &&
           only_on(L, pin, "pull", din, "digital_input", type);
}

static bool pin_unique(loader_t *L, size_t i)
{
    const fw_pin_def_t *pins = L->b->pins;
    for (size_t j = 0; j < i; j++) {
        if (pins[j].number == pins[i].number)
            return sim_cfg_fail(&L->e, "pin", "pin %u is already declared by pins[%zu] (%s)",
                                (unsigned)pins[i].number, j, pins[j].name);
        if (strcmp(pins[j].name, pins[i].name) == 0)
            return sim_cfg_fail(&L->e, "name",
                                "name \"%s\" is already used by pins[%zu] (pin "
                                "%u)",
                                pins[i].name, j, (unsigned)pins[j].number);
    }
    return true;
}

static bool pin_events_rule(loader_t *L, const json_t *pin, const fw_pin_def_t *def)
{
    if (def->type != FW_PIN_ADC_INPUT || !def->events || json_object_get(pin, "thresholds"))
        return true;
    return sim_cfg_fail(&L->e, "sampling.events",
                        "events on an adc_input need thresholds "
                        "{\"high\", \"low\"} (raw counts)");
}

static bool load_pin(loader_t *L, const json_t *pin, size_t i)
{
    static const char *const keys[] = {"pin",      "name",       "type",  "description",
                                       "sampling", "thresholds", "level", "pull",
                                       "waveform", "unit",       NULL};
    fw_pin_def_t *def = &L->b->pins[i];
    sim_pin_cfg_t *hw = &L->b->hw[i];
    long long number = 0;
    int type = 0, pull = 0;
    if (!sim_cfg_object(pin, "", &L->e) || !sim_cfg_keys(pin, keys, &L->e) ||
        !sim_cfg_int(pin, "pin", true, 0, 0, 65535, &number, &L->e) ||
        !sim_cfg_string(pin, "name", true, NULL, &def->name, &L->e) ||
        !sim_cfg_enum(pin, "type", pin_type_names, -1, &type, &L->e) ||
        !sim_cfg_string(pin, "description", false, "", &def->description, &L->e))
        return false;
    if (def->name[0] == 0) return sim_cfg_fail(&L->e, "name", "must not be empty");
    def->number = (uint16_t)number;
    def->type = (uint8_t)type;
    *hw = (sim_pin_cfg_t){def->number, def->type, true, def->name, -1, 0, 0, NULL};
    const json_t *s = json_object_get(pin, "sampling"), *t = json_object_get(pin, "thresholds");
    bool ok = pin_unique(L, i) && pin_type_rules(L, pin, def->type) &&
              (s == NULL || under(L, "sampling", load_sampling(L, s, def))) &&
              (t == NULL || under(L, "thresholds", load_thresholds(L, t, def))) &&
              pin_events_rule(L, pin, def) && load_level(L, pin, hw) &&
              sim_cfg_enum(pin, "pull", pull_names, 0, &pull, &L->e) &&
              (def->type != FW_PIN_ADC_INPUT || load_analog(L, pin, hw));
    hw->pull = (uint8_t)pull;
    return ok;
}

/* ---------------------------------------------------------------- channels */

static const sim_pin_cfg_t *hw_find(const sim_board_t *b, uint16_t number, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (b->hw[i].number == number) return &b->hw[i];
    return NULL;
}

static bool load_channel(loader_t *L, const json_t *ch, size_t k)
{
    static const char *const keys[] = {"pin", "waveform", "unit", "description", NULL};
    sim_board_t *b = L->b;
    size_t i = b->fw.pin_count + k;
    long long number = 0;
    const char *desc = NULL;
    if (!sim_cfg_object(ch, "", &L->e) || !sim_cfg_keys(ch, keys, &L->e) ||
        !sim_cfg_int(ch, "pin", true, 0, 0, 65535, &number, &L->e) ||
        !sim_cfg_string(ch, "description", false, "", &desc, &L->e))
        return false;
    const sim_pin_cfg_t *dup = hw_find(b, (uint16_t)number, i);
    if (dup != NULL)
        return sim_cfg_fail(&L->e, "pin",
                            "pin %lld is already declared (%s); channels are "
                            "analog inputs outside the pin registry",
                            number, hw_label(dup));
    b->hw[i] = (sim_pin_cfg_t){(uint16_t)number, FW_PIN_ADC_INPUT, false, "", -1, 0, 0, NULL};
    return load_analog(L, ch, &b->hw[i]);
}

/* ---------------------------------------------------------------- wires */

/* A wire end: a pin number or a registry name. */
static bool wire_end(loader_t *L, const json_t *w, const char *key, sim_pin_cfg_t **out)
{
    sim_board_t *b = L->b;
    const json_t *v = json_object_get(w, key);
    if (v == NULL) return sim_cfg_fail(&L->e, "", "missing required key \"%s\"", key);
    for (size_t i = 0; i < b->hw_count; i++) {
        sim_pin_cfg_t *p = &b->hw[i];
        if ((json_is_integer(v) && json_integer_value(v) == p->number) ||
            (json_is_string(v) && p->in_registry && strcmp(json_string_value(v), p->name) == 0)) {
            *out = p;
            return true;
        }
    }
    if (json_is_integer(v))
        return sim_cfg_fail(&L->e, key, "no pin %lld on this board",
                            (long long)json_integer_value(v));
    if (json_is_string(v))
        return sim_cfg_fail(&L->e, key, "no pin named \"%s\" on this board", json_string_value(v));
    return sim_cfg_fail(&L->e, key, "must be a pin number or name, not %s", sim_cfg_kind(v));
}

static bool wire_rules(loader_t *L, size_t k, const sim_pin_cfg_t *from, const sim_pin_cfg_t *to)
{
    if (!is_output(from->type))
        return sim_cfg_fail(&L->e, "from",
                            "pin %u (%s) is %s; a wire starts at a "
                            "digital_output or pwm_output",
                            (unsigned)from->number, hw_label(from), sim_type_phrase(from->type));
    if (!is_input(to->type))
        return sim_cfg_fail(&L->e, "to",
                            "pin %u (%s) is %s; a wire ends at a digital_input "
                            "or adc_input",
                            (unsigned)to->number, hw_label(to), sim_type_phrase(to->type));
    for (size_t j = 0; j < k; j++)
        if (L->b->wires[j].to == to->number)
            return sim_cfg_fail(&L->e, "to", "pin %u (%s) is already driven by wires[%zu]",
                                (unsigned)to->number, hw_label(to), j);
    if (to->waveform != NULL)
        return sim_cfg_fail(&L->e, "to",
                            "pin %u (%s) has a waveform; a wired input is driven "
                            "by its wire",
                            (unsigned)to->number, hw_label(to));
    return true;
}

static bool load_wire(loader_t *L, const json_t *w, size_t k)
{
    static const char *const keys[] = {"from", "to", NULL};
    sim_pin_cfg_t *from = NULL, *to = NULL;
    if (!sim_cfg_object(w, "", &L->e) || !sim_cfg_keys(w, keys, &L->e) ||
        !wire_end(L, w, "from", &from) || !wire_end(L, w, "to", &to) || !wire_rules(L, k, from, to))
        return false;
    L->b->wires[k] = (sim_wire_t){from->number, to->number};
    return true;
}

/* ---------------------------------------------------------------- I2C */

static bool device_address(loader_t *L, const json_t *d, sim_i2c_cfg_t *c)
{
    const json_t *v = json_object_get(d, "address");
    int addr = 0;
    if (v == NULL) return sim_cfg_fail(&L->e, "", "missing required key \"address\"");
    if (!sim_cfg_i2c_addr(v, "address", &addr, &L->e)) return false;
    c->addr = (uint8_t)addr;
    if (c->span > 1 && addr % c->span != 0)
        return sim_cfg_fail(&L->e, "address",
                            "0x%02x: this %s answers %u addresses (block "
                            "select), so its address must be a multiple of %u",
                            addr, c->ops->name, (unsigned)c->span, (unsigned)c->span);
    if (addr + c->span - 1 > 0x77)
        return sim_cfg_fail(&L->e, "address",
                            "0x%02x: this %s answers 0x%02x..0x%02x, past "
                            "0x77",
                            addr, c->ops->name, addr, addr + c->span - 1);
    return true;
}

static bool device_unique(loader_t *L, size_t k)
{
    const sim_i2c_cfg_t *c = &L->b->i2c[k];
    for (size_t j = 0; j < k; j++) {
        const sim_i2c_cfg_t *o = &L->b->i2c[j];
        if (o->bus != c->bus || c->addr >= o->addr + o->span || o->addr >= c->addr + c->span)
            continue;
        char range[24];
        if (o->span == 1)
            snprintf(range, sizeof range, "0x%02x", (unsigned)o->addr);
        else
            snprintf(range, sizeof range, "0x%02x..0x%02x", (unsigned)o->addr,
                     (unsigned)(o->addr + o->span - 1));
        return sim_cfg_fail(&L->e, "address",
                            "0x%02x on bus %u is already used by "
                            "i2c.devices[%zu] (%s at %s)",
                            (unsigned)c->addr, (unsigned)c->bus, j, o->ops->name, range);
    }
    return true;
}

/* The model checks its own keys: it is created once here and dropped. A chip's driver
   configuration is taken from it, into storage the board owns. */
static bool device_model(loader_t *L, const json_t *d, sim_i2c_cfg_t *c, fw_chip_t *chip)
{
    void *m = c->ops->create(d, L->b->dir, &L->e);
    if (m == NULL) return false;
    c->span = c->ops->address_span(m);
    bool configured = chip == NULL || c->ops->config_size == 0;
    if (!configured) {
        void *config = calloc(1, c->ops->config_size);
        if (config != NULL) c->ops->fw_config(m, config);
        L->b->chip_config[chip - L->b->chips] = config;
        chip->config = config;
        configured = config != NULL;
    }
    c->ops->destroy(m);
    return configured || sim_cfg_fail(&L->e, "", "out of memory");
}

/* The chip the firmware sees, for a device whose model has a driver (*chip NULL: none). */
static bool device_chip(loader_t *L, sim_i2c_cfg_t *c, fw_chip_t **chip)
{
    fw_board_t *fw = &L->b->fw;
    *chip = NULL;
    if (c->ops->driver == NULL) return true;
    if (fw->chip_count >= FW_I2C_DEVICES_MAX)
        return sim_cfg_fail(&L->e, "model",
                            "more than %d devices with a firmware driver "
                            "(FW_I2C_DEVICES_MAX)",
                            FW_I2C_DEVICES_MAX);
    *chip = &L->b->chips[fw->chip_count++];
    (*chip)->driver = c->ops->driver;
    return true;
}

static bool load_device(loader_t *L, const json_t *d, size_t k)
{
    sim_i2c_cfg_t *c = &L->b->i2c[k];
    const char *model = NULL;
    long long bus = 0;
    unsigned buses = L->b->fw.i2c_bus_count;
    fw_chip_t *chip = NULL;
    if (!sim_cfg_object(d, "", &L->e) || !sim_cfg_string(d, "model", true, NULL, &model, &L->e) ||
        !sim_cfg_string(d, "name", false, "", &c->name, &L->e) ||
        !sim_cfg_int(d, "bus", false, 0, 0, 255, &bus, &L->e))
        return false;
    c->ops = sim_model_find(model);
    c->cfg = d;
    if (c->ops == NULL)
        return sim_cfg_fail(&L->e, "model", "unknown model \"%s\" (expected one of: %s)", model,
                            sim_model_names());
    if (bus >= buses)
        return sim_cfg_fail(&L->e, "bus",
                            "bus %lld does not exist: the board has %u i2c bus(es) "
                            "(i2c.buses)",
                            bus, buses);
    c->bus = (uint8_t)bus;
    if (!device_chip(L, c, &chip) || !device_model(L, d, c, chip) || !device_address(L, d, c) ||
        !device_unique(L, k))
        return false;
    if (chip != NULL) {
        chip->bus = c->bus;
        chip->addr = c->addr;
    }
    return true;
}

/* ---------------------------------------------------------------- arrays */

typedef bool (*item_fn)(loader_t *L, const json_t *item, size_t index);

/* Runs fn on every element of the array member `key` (absent: none), prefixing errors with
   "key[i]". At most max elements. */
static bool each(loader_t *L, const json_t *obj, const char *key, size_t max, item_fn fn)
{
    const json_t *a = json_object_get(obj, key);
    if (a == NULL) return true;
    if (!json_is_array(a))
        return sim_cfg_fail(&L->e, key, "must be an array, not %s", sim_cfg_kind(a));
    for (size_t i = 0; i < json_array_size(a); i++) {
        char path[64];
        sim_cfg_path_index(path, sizeof path, key, i);
        if (i >= max) return sim_cfg_fail(&L->e, path, "too many entries (at most %zu)", max);
        if (!under(L, path, fn(L, json_array_get(a, i), i))) return false;
    }
    return true;
}

static size_t array_len(const json_t *obj, const char *key)
{
    return json_array_size(json_object_get(obj, key)); /* 0 when absent or not an array */
}

static bool pin_item(loader_t *L, const json_t *item, size_t i)
{
    if (!load_pin(L, item, i)) return false;
    L->b->fw.pin_count = (uint8_t)(i + 1);
    return true;
}

static bool channel_item(loader_t *L, const json_t *item, size_t i)
{
    return load_channel(L, item, i);
}

static bool wire_item(loader_t *L, const json_t *item, size_t i)
{
    if (!load_wire(L, item, i)) return false;
    L->b->wire_count = i + 1;
    return true;
}

static bool device_item(loader_t *L, const json_t *item, size_t i)
{
    if (!load_device(L, item, i)) return false;
    L->b->i2c_count = i + 1;
    return true;
}

/* A product's application tools (sim_register_app_tools), looked up before mcpsim's. */
static const fw_tool_t *const *registered_tools;

void sim_register_app_tools(const fw_tool_t *const *tools)
{
    registered_tools = tools;
}

static const fw_tool_t *app_tool_find(const char *name)
{
    for (size_t i = 0; registered_tools != NULL && registered_tools[i] != NULL; i++)
        if (strcmp(registered_tools[i]->name, name) == 0) return registered_tools[i];
    return fw_app_tool_find(name);
}

static bool app_item(loader_t *L, const json_t *item, size_t i)
{
    if (!json_is_string(item))
        return sim_cfg_fail(&L->e, "", "must be a string, not %s", sim_cfg_kind(item));
    const char *name = json_string_value(item);
    const fw_tool_t *tool = app_tool_find(name);
    if (tool == NULL) return sim_cfg_fail(&L->e, "", "unknown application tool \"%s\"", name);
    for (size_t j = 0; j < i; j++)
        if (L->b->app_tools[j] == tool)
            return sim_cfg_fail(&L->e, "", "\"%s\" is already listed (app_tools[%zu])", name, j);
    L->b->app_tools[i] = tool;
    return true;
}

static bool load_i2c(loader_t *L, const json_t *i2c)
{
    static const char *const keys[] = {"buses", "devices", NULL};
    long long buses = 0;
    if (i2c == NULL) return true;
#if !FW_WITH_I2C
    (void)keys;
    (void)buses;
    return sim_cfg_fail(&L->e, "",
                        "this simulator is built with the " FW_PROFILE_NAME
                        " profile, which has no I2C (FW_WITH_I2C 0): remove \"i2c\" "
                        "or use a full build");
#endif
    if (!sim_cfg_object(i2c, "", &L->e) || !sim_cfg_keys(i2c, keys, &L->e) ||
        !sim_cfg_int(i2c, "buses", false, array_len(i2c, "devices") > 0, 0, 8, &buses, &L->e))
        return false;
    L->b->fw.i2c_bus_count = (uint8_t)buses;
    L->b->i2c = calloc(array_len(i2c, "devices") + 1, sizeof *L->b->i2c);
    if (L->b->i2c == NULL) return sim_cfg_fail(&L->e, "devices", "out of memory");
    return each(L, i2c, "devices", 255, device_item);
}

/* ---------------------------------------------------------------- the firmware's view */

/* The built-in tool sets, as a generated board names them: with the I2C tools when the board
   has a bus. */
static const fw_toolset_t *const *board_toolsets(const fw_board_t *fw, const json_t *root)
{
    if (json_is_false(json_object_get(root, "builtins"))) return NULL; /* app tools only */
#if FW_WITH_I2C
    if (fw->i2c_bus_count > 0) return fw_builtins_i2c;
#endif
    (void)fw;
    return fw_builtins;
}

/* Storage for the sample rings of the buffered pins (a generated board's static array). */
static bool sample_store(loader_t *L)
{
    fw_board_t *fw = &L->b->fw;
    size_t slots = fw_board_sample_slots(fw);
    if (slots > UINT16_MAX)
        return sim_cfg_fail(&L->e, "pins", "the sample rings need %zu slots, more than %u", slots,
                            (unsigned)UINT16_MAX);
    fw->sample_store_len = (uint16_t)slots;
    if (slots == 0) return true;
    fw->sample_store = calloc(slots, sizeof *fw->sample_store);
    return fw->sample_store != NULL || sim_cfg_fail(&L->e, "pins", "out of memory");
}

/* ---------------------------------------------------------------- the whole file */

static bool allocate(loader_t *L, const json_t *r)
{
    sim_board_t *b = L->b;
    size_t pins = array_len(r, "pins"), channels = array_len(r, "channels");
    b->hw_cap = pins + channels + 1;
    b->hw = calloc(b->hw_cap, sizeof *b->hw);
    b->wires = calloc(array_len(r, "wires") + 1, sizeof *b->wires);
    b->app_tools = calloc(array_len(r, "app_tools") + 1, sizeof *b->app_tools);
    if (!b->hw || !b->wires || !b->app_tools) return sim_cfg_fail(&L->e, "", "out of memory");
    return true;
}

/* "pin_devices" are checked by building them (the sim builds its own at start). */
static bool pin_devices(loader_t *L, const json_t *r)
{
    sim_pindevs_t *d = sim_pindevs_create(json_object_get(r, "pin_devices"), L->b->dir, &L->e);
    if (d == NULL) {
        sim_cfg_prefix(&L->e, "pin_devices");
        return false;
    }
    sim_pindevs_destroy(d);
    return true;
}

static bool load_all(loader_t *L)
{
    static const char *const keys[] = {
        "device",         "version",  "platform",    "description", "adc", "omit_schemas",
        "pwm_default_hz", "pins",     "channels",    "wires",       "i2c", "app_tools",
        "uart",           "builtins", "pin_devices", "chip",        NULL};
    const json_t *r = L->b->root;
    sim_board_t *b = L->b;
    const json_t *builtins = json_object_get(r, "builtins");
    if (builtins != NULL && !json_is_boolean(builtins))
        return sim_cfg_fail(&L->e, "builtins", "must be true or false");
    if (!sim_cfg_object(r, "", &L->e) || !sim_cfg_keys(r, keys, &L->e) || !allocate(L, r) ||
        !load_identity(L, r) || !under(L, "adc", load_adc(L, json_object_get(r, "adc"))) ||
        !under(L, "uart", load_uart(L, json_object_get(r, "uart"))) ||
        !under(L, "chip", load_chip(L, json_object_get(r, "chip"))) ||
        !each(L, r, "pins", FW_PINS_MAX, pin_item))
        return false;
    b->hw_count = b->fw.pin_count;
    if (!each(L, r, "channels", 256, channel_item)) return false;
    b->hw_count += array_len(r, "channels");
    bool ok = each(L, r, "wires", 256, wire_item) && pin_devices(L, r) &&
              under(L, "i2c", load_i2c(L, json_object_get(r, "i2c"))) &&
              each(L, r, "app_tools", 64, app_item);
    b->fw.pins = b->fw.pin_count > 0 ? b->pins : NULL;
    b->fw.chips = b->fw.chip_count > 0 ? b->chips : NULL;
    b->fw.toolsets = board_toolsets(&b->fw, r);
    b->fw.app_tools = b->app_tools[0] ? b->app_tools : NULL;
    return ok && sample_store(L);
}

/* ---------------------------------------------------------------- locating errors */

/* Token of the value at path (or of its key when at_key), walking as far as the path exists. */
static int32_t walk(const fw_json_doc_t *doc, const char *path, bool at_key)
{
    int32_t tok = 0, key = -1;
    const char *p = path;
    bool complete = true;
    while (*p && complete) {
        int32_t next = -1;
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            char *end = NULL;
            unsigned long i = strtoul(p + 1, &end, 10);
            next = fw_json_arr_get(doc, (uint32_t)tok, (uint32_t)i);
            p = *end == ']' ? end + 1 : end;
            key = -1;
        } else {
            char name[160];
            size_t n = strcspn(p, ".[");
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            next = fw_json_obj_get(doc, (uint32_t)tok, name);
            p += n;
            key = next - 1; /* an object's key token precedes its value */
        }
        complete = next >= 0;
        if (complete) tok = next;
    }
    return at_key && complete && key >= 0 ? key : tok;
}

/* Byte offset of the value at path in text; false when the firmware's reader cannot follow. */
static bool offset_of(const char *text, size_t len, const char *path, bool at_key, size_t *off)
{
    uint32_t ntoks = len + 2 < UINT32_MAX ? (uint32_t)(len + 2) : UINT32_MAX;
    fw_json_tok_t *toks = malloc((size_t)ntoks * sizeof *toks);
    fw_json_doc_t doc;
    bool ok = toks != NULL && fw_json_parse(&doc, text, len, toks, ntoks, 256) == FW_OK;
    if (ok) {
        const fw_json_tok_t *t = &toks[walk(&doc, path, at_key)];
        *off = t->type == FW_JSON_STRING ? t->start - 1u : t->start; /* at the opening quote */
    }
    free(toks);
    return ok;
}

/* 1-based line and column (in characters, as jansson counts them) of byte offset off. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            (*line)++;
            *col = 1;
        } else if ((c & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

static void locate(const loader_t *L, const char *text, size_t len, sim_error_t *err)
{
    const sim_cfg_err_t *e = &L->e;
    memset(err, 0, sizeof *err);
    if (e->file[0] != 0) {
        snprintf(err->file, sizeof err->file, "%s", e->file);
        err->line = e->line;
        err->column = e->column;
        snprintf(err->text, sizeof err->text, "%s", e->msg);
        return;
    }
    snprintf(err->file, sizeof err->file, "%s", L->b->path);
    size_t off = 0;
    if (offset_of(text, len, e->path, e->at_key, &off))
        line_col(text, off, &err->line, &err->column);
    if (e->path[0])
        sim_cfg_printf(err->text, sizeof err->text, "%s: %s", e->path, e->msg);
    else
        snprintf(err->text, sizeof err->text, "%s", e->msg);
}

/* ---------------------------------------------------------------- API */

void sim_error_format(const sim_error_t *err, char *out, size_t cap)
{
    if (cap == 0) return;
    if (err->line > 0)
        snprintf(out, cap, "%s:%d:%d: %s", err->file, err->line, err->column, err->text);
    else if (err->file[0])
        snprintf(out, cap, "%s: %s", err->file, err->text);
    else
        snprintf(out, cap, "%s", err->text);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return sim_cfg_strdup(".");
    if (slash == path) return sim_cfg_strdup("/");
    char *dir = sim_cfg_strdup(path);
    if (dir) dir[slash - path] = 0;
    return dir;
}

void sim_board_free(sim_board_t *b)
{
    if (b == NULL) return;
    for (size_t i = 0; b->hw && i < b->hw_cap; i++) sim_waveform_free(b->hw[i].waveform);
    free(b->hw);
    free(b->wires);
    free(b->i2c);
    for (size_t i = 0; i < FW_I2C_DEVICES_MAX; i++) free(b->chip_config[i]);
    free(b->app_tools);
    free(b->fw.sample_store);
    json_decref(b->root);
    free(b->path);
    free(b->dir);
    free(b);
}

static void set_error(sim_error_t *err, const char *file, int line, int col, const char *text)
{
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", file);
    err->line = line > 0 ? line : 0;
    err->column = line > 0 && col > 0 ? col : 0;
    snprintf(err->text, sizeof err->text, "%s", text);
}

sim_board_t *sim_board_load_text(const char *name, const char *text, size_t len, sim_error_t *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        set_error(err, name, je.line, je.column, je.text);
        return NULL;
    }
    sim_board_t *b = calloc(1, sizeof *b);
    if (b != NULL) {
        b->root = root;
        b->path = sim_cfg_strdup(name);
        b->dir = dir_of(name);
    }
    if (b == NULL || b->path == NULL || b->dir == NULL) {
        if (b == NULL) json_decref(root);
        sim_board_free(b);
        set_error(err, name, 0, 0, "out of memory");
        return NULL;
    }
    loader_t L = {.b = b};
    if (load_all(&L)) return b;
    locate(&L, text, len, err);
    sim_board_free(b);
    return NULL;
}

sim_board_t *sim_board_load(const char *path, sim_error_t *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        set_error(err, path, 0, 0, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    size_t len = 0;
    for (;;) {
        char *nt = realloc(text, len + 65536);
        if (nt == NULL) break;
        text = nt;
        size_t n = fread(text + len, 1, 65536, f);
        len += n;
        if (n < 65536) break;
    }
    bool bad = ferror(f) || text == NULL;
    fclose(f);
    sim_board_t *b = NULL;
    if (bad)
        set_error(err, path, 0, 0, "cannot read the file");
    else
        b = sim_board_load_text(path, text, len, err);
    free(text);
    return b;
}

const fw_board_t *sim_board_fw(const sim_board_t *board)
{
    return &board->fw;
}

bool sim_uart_reset_on_open(const sim_t *sim)
{
    return sim->board->uart_reset_on_open;
}

const char *sim_uart_boot_banner(const sim_t *sim)
{
    return sim->board->uart_banner;
}

bool sim_board_make_models(const sim_board_t *b, sim_i2c_t *i2c, sim_error_t *err)
{
    for (size_t k = 0; k < b->i2c_count; k++) {
        const sim_i2c_cfg_t *c = &b->i2c[k];
        sim_cfg_err_t e;
        void *m = c->ops->create(c->cfg, b->dir, &e);
        char text[sizeof err->text];
        if (m == NULL) {
            sim_cfg_printf(text, sizeof text, "i2c.devices[%zu].%s: %s", k, e.path, e.msg);
            set_error(err, b->path, 0, 0, text);
            return false;
        }
        if (!sim_i2c_attach(i2c, c->ops, m, c->bus, c->addr, c->name)) {
            snprintf(text, sizeof text, "i2c.devices[%zu]: cannot attach (out of memory)", k);
            set_error(err, b->path, 0, 0, text);
            return false;
        }
    }
    return true;
}
