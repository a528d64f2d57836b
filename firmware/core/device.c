/* device.c: the device instance: board validation, tools, pin registry, scratch, HAL access. */
#include <stdint.h>
#include <string.h>

#include "fw_driver.h"
#include "fw_internal.h"
#include "fw_sampling.h"

/* ---------------------------------------------------------------- pin registry */

static const char pin_type_names[FW_PIN_TYPE_COUNT][15] FW_ROM = {"digital_output", "digital_input",
                                                                  "pwm_output", "adc_input"};

const char *fw_pin_type_name(fw_pin_type_t type)
{
    return (unsigned)type < FW_PIN_TYPE_COUNT ? pin_type_names[type] : NULL;
}

int fw_device_pin_index(const fw_device_t *dev, uint16_t number)
{
    for (int i = 0; i < dev->board->pin_count; i++)
        if (dev->board->pins[i].number == number) return i;
    return -1;
}

/* A name made only of decimal digits (up to 5) is also tried as a pin number. */
int fw_pin_lookup_name(const fw_device_t *dev, const char *name)
{
    for (int i = 0; i < dev->board->pin_count; i++)
        if (fw_streq(dev->board->pins[i].name, name)) return i;
    uint32_t number = 0;
    size_t n = 0;
    for (; n < 5 && name[n] >= '0' && name[n] <= '9'; n++)
        number = number * 10 + (uint32_t)(name[n] - '0');
    if (n == 0 || name[n] != 0 || number > UINT16_MAX) return -1;
    return fw_device_pin_index(dev, (uint16_t)number);
}

const fw_chip_t *fw_device_chip(const fw_device_t *dev, const fw_driver_t *driver, int addr)
{
    const fw_board_t *b = dev->board;
    for (size_t i = 0; i < b->chip_count; i++) {
        const fw_chip_t *c = &b->chips[i];
        if (c->driver == driver && (addr < 0 || addr == c->addr)) return c;
    }
    return NULL;
}

uint8_t fw_device_i2c_buses(const fw_device_t *dev)
{
    return dev->board->i2c_bus_count;
}

/* ---------------------------------------------------------------- board validation */

static bool nonempty(const char *s)
{
    return s != NULL && fw_rd8(s) != 0;
}

static fw_err_t check_pin(const fw_pin_def_t *p)
{
    if (!nonempty(p->name) || p->type >= FW_PIN_TYPE_COUNT) return FW_ERR_ARG;
#if !FW_WITH_SAMPLING
    /* a board that samples needs a build with sampling: refused, not silently ignored */
    if (p->sample_interval_ms > 0) return FW_ERR_UNSUPPORTED;
#endif
    /* ADC events re-arm below threshold_low: a low above high could never fire twice */
    if (p->type == FW_PIN_ADC_INPUT && p->events && p->threshold_low > p->threshold_high)
        return FW_ERR_ARG;
    if (!p->buffer) return FW_OK;
    if (p->buffer_size == 0) return FW_ERR_ARG;
    return p->buffer_size > FW_SAMPLE_BUF_MAX ? FW_ERR_NO_SPACE : FW_OK;
}

static fw_err_t check_pins(const fw_board_t *b)
{
    if (b->pin_count > FW_PINS_MAX) return FW_ERR_NO_SPACE;
    if (b->pin_count > 0 && b->pins == NULL) return FW_ERR_ARG;
    for (size_t i = 0; i < b->pin_count; i++) {
        fw_err_t err = check_pin(&b->pins[i]);
        if (err != FW_OK) return err;
        for (size_t j = 0; j < i; j++)
            if (b->pins[j].number == b->pins[i].number ||
                fw_streq(b->pins[j].name, b->pins[i].name))
                return FW_ERR_ARG;
    }
    return FW_OK;
}

static fw_err_t check_chip(const fw_board_t *b, size_t i)
{
    const fw_chip_t *c = &b->chips[i];
    if (c->driver == NULL || !nonempty(c->driver->name) || c->bus >= b->i2c_bus_count ||
        c->addr > 0x7f)
        return FW_ERR_ARG;
    if (c->driver->tool_count > 0 && c->driver->tools == NULL) return FW_ERR_ARG;
    for (size_t j = 0; j < i; j++)
        if (b->chips[j].bus == c->bus && b->chips[j].addr == c->addr) return FW_ERR_ARG;
    return FW_OK;
}

static fw_err_t check_i2c(const fw_board_t *b)
{
#if !FW_WITH_I2C
    if (b->i2c_bus_count > 0 || b->chip_count > 0) return FW_ERR_UNSUPPORTED;
#endif
    if (b->chip_count > FW_I2C_DEVICES_MAX) return FW_ERR_NO_SPACE;
    if (b->chip_count > 0 && b->chips == NULL) return FW_ERR_ARG;
    for (size_t i = 0; i < b->chip_count; i++) {
        fw_err_t err = check_chip(b, i);
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

static fw_err_t check_board(const fw_board_t *b)
{
    fw_err_t err = check_pins(b);
    if (err == FW_OK) err = check_i2c(b);
#if FW_WITH_SAMPLING
    if (err == FW_OK) err = fw_sampling_check(b);
#endif
    return err;
}

/* ---------------------------------------------------------------- tool registry */

#if FW_ROM_SPLIT
const char *fw_tool_name(const fw_tool_t *t)
{
    const char *name;
    fw_rom_copy(&name, &t->name, sizeof name);
    return name;
}

const fw_tool_t *fw_tool_load(fw_device_t *dev, const fw_tool_t *t)
{
    fw_rom_copy(&dev->tool_ram, t, sizeof dev->tool_ram);
    size_t n = dev->tool_ram.param_count;
    if (n > FW_PARAMS_MAX) n = FW_PARAMS_MAX; /* refused by params_valid */
    if (dev->tool_ram.params != NULL) {
        fw_rom_copy(dev->param_ram, dev->tool_ram.params, n * sizeof dev->param_ram[0]);
        dev->tool_ram.params = dev->param_ram;
    }
    return &dev->tool_ram;
}
#endif

static bool is_core_method(const fw_device_t *dev, const char *name)
{
    for (size_t i = 0; i < fw_mcpu_method_count; i++)
        if (fw_streq(fw_tool_name(&fw_mcpu_methods[i]), name)) return true;
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    return layer != NULL && layer->method_named != NULL && layer->method_named(name);
}

static bool params_valid(const fw_tool_t *tool)
{
    if (tool->param_count > FW_PARAMS_MAX) return false;
    if (tool->param_count > 0 && tool->params == NULL) return false;
    for (size_t i = 0; i < tool->param_count; i++) {
        const fw_param_t *p = &tool->params[i];
        if (!nonempty(p->name) || p->type > FW_PARAM_BYTES) return false;
            /* types a build left out (fw_config.h) */
#if FW_WITH_FLOAT
        if (p->type == FW_PARAM_NUMBER && (p->number == NULL || p->number->ops == NULL))
            return false;
#else
        if (p->type == FW_PARAM_NUMBER) return false;
#endif
        if (!FW_WITH_PARAM_BYTES && p->type == FW_PARAM_BYTES) return false;
        for (size_t j = 0; j < i; j++)
            if (fw_streq(tool->params[j].name, p->name)) return false;
    }
    return true;
}

fw_err_t fw_device_add_tool(fw_device_t *dev, const fw_tool_t *rom_tool)
{
    if (dev == NULL || rom_tool == NULL) return FW_ERR_ARG;
    const fw_tool_t *tool = fw_tool_load(dev, rom_tool); /* the descriptor, readable */
    if (!nonempty(tool->name) || tool->handler == NULL || !params_valid(tool)) return FW_ERR_ARG;
    if (fw_device_find_tool(dev, tool->name) != NULL || is_core_method(dev, tool->name))
        return FW_ERR_EXISTS;
    if (dev->tool_count >= FW_TOOLS_MAX) return FW_ERR_NO_SPACE;
    dev->tools[dev->tool_count++] = rom_tool;
#if FW_METHOD_INDEX
    fw_method_index_add(dev, tool->name, fw_mcpu_method_count + dev->tool_count);
#endif
#if FW_WITH_LISTEN
    dev->list_gen[FW_LIST_TOOLS]++; /* listen streams that follow the list hear of it */
#endif
    return FW_OK;
}

const fw_tool_t *fw_device_find_tool(const fw_device_t *dev, const char *name)
{
    for (size_t i = 0; i < dev->tool_count; i++)
        if (fw_streq(fw_tool_name(dev->tools[i]), name)) return dev->tools[i];
    return NULL;
}

/* False for a tool with FW_TOOL_IF_EVENT_PIN on a board where no sampled pin raises events. */
static bool wanted(const fw_board_t *b, const fw_tool_t *rom_tool)
{
#if FW_WITH_SAMPLING
    if (!(fw_rd8(&rom_tool->flags) & FW_TOOL_IF_EVENT_PIN)) return true;
    for (size_t i = 0; i < b->pin_count; i++)
        if (b->pins[i].events && fw_pin_sampled(&b->pins[i])) return true;
    return false;
#else
    (void)b, (void)rom_tool;
    return true;
#endif
}

static fw_err_t add_toolset(fw_device_t *dev, const fw_toolset_t *set)
{
    for (size_t i = 0; i < set->count; i++) {
        if (!wanted(dev->board, &set->tools[i])) continue;
        fw_err_t err = fw_device_add_tool(dev, &set->tools[i]);
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

static fw_err_t add_toolsets(fw_device_t *dev)
{
    const fw_toolset_t *const *sets = dev->board->toolsets;
    fw_err_t err = FW_OK;
    for (size_t i = 0; err == FW_OK && sets != NULL && sets[i] != NULL; i++)
        err = add_toolset(dev, sets[i]);
    return err;
}

/* A driver's tools are registered once, however many of its chips the board carries. */
static fw_err_t add_drivers(fw_device_t *dev)
{
    const fw_board_t *b = dev->board;
    for (size_t i = 0; i < b->chip_count; i++) {
        const fw_driver_t *d = b->chips[i].driver;
        bool seen = false;
        for (size_t j = 0; j < i; j++) seen = seen || b->chips[j].driver == d;
        for (size_t t = 0; !seen && t < d->tool_count; t++) {
            fw_err_t err = fw_device_add_tool(dev, &d->tools[t]);
            if (err != FW_OK) return err;
        }
    }
    return FW_OK;
}

static fw_err_t add_apps(fw_device_t *dev)
{
    const fw_tool_t *const *apps = dev->board->app_tools;
    for (size_t i = 0; apps != NULL && apps[i] != NULL; i++) {
        fw_err_t err = fw_device_add_tool(dev, apps[i]);
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

/* Each chip's driver checks its configuration: a configuration it cannot serve stops the
   start; a chip that does not answer is logged and its tools will report the failure. */
static fw_err_t probe_chips(fw_device_t *dev)
{
#if !FW_WITH_I2C
    (void)dev; /* a board with chips was refused by check_i2c */
    return FW_OK;
#else
    const fw_board_t *b = dev->board;
    for (size_t i = 0; i < b->chip_count; i++) {
        const fw_chip_t *c = &b->chips[i];
        fw_err_t err = c->driver->probe != NULL ? c->driver->probe(dev, c) : FW_OK;
        if (err == FW_ERR_ARG) return err;
        if (err != FW_OK)
            fw_log(dev, FW_LOG_WARNING, "%s at 0x%x on bus %u: %s", c->driver->name,
                   (unsigned)c->addr, (unsigned)c->bus, fw_err_str(err));
    }
    return FW_OK;
#endif
}

/* ---------------------------------------------------------------- init */

/* Digital pins get their electrical mode; ADC and PWM pins are left to their tools. */
static fw_err_t init_pins(fw_device_t *dev)
{
    for (size_t i = 0; i < dev->board->pin_count; i++) {
        const fw_pin_def_t *p = &dev->board->pins[i];
        fw_pin_state_t *s = &dev->pins[i];
        s->type = p->type;
        if (p->type != FW_PIN_DIGITAL_OUTPUT && p->type != FW_PIN_DIGITAL_INPUT) continue;
        s->mode = p->type == FW_PIN_DIGITAL_OUTPUT ? HAL_PIN_OUTPUT : HAL_PIN_INPUT;
        fw_err_t err = fw_hal_gpio_mode(dev, p->number, (hal_pin_mode_t)s->mode);
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

fw_err_t fw_device_init(fw_device_t *dev, const fw_board_t *board, const hal_api_t *hal,
                        void *hal_ctx)
{
    if (dev == NULL || board == NULL || hal == NULL) return FW_ERR_ARG;
    memset(dev, 0, sizeof *dev);
    fw_err_t err = check_board(board);
    if (err != FW_OK) return err;
    dev->board = board;
    dev->hal = hal;
    dev->hal_ctx = hal_ctx;
#if FW_WITH_MCP
    dev->layer = &fw_mcp_layer;
#endif
#if FW_METHOD_INDEX
    for (size_t i = 0; i < fw_mcpu_method_count; i++)
        fw_method_index_add(dev, fw_mcpu_methods[i].name, i + 1u);
#endif
    err = add_toolsets(dev);
    if (err == FW_OK) err = add_drivers(dev);
    if (err == FW_OK) err = add_apps(dev);
    if (err == FW_OK) err = init_pins(dev);
    if (err != FW_OK) return err;
    dev->boot_ms = fw_hal_now(dev);
#if FW_WITH_SAMPLING
    fw_sampling_init(dev, dev->boot_ms);
#endif
#if FW_WITH_MCP
    fw_mcp_init(dev);
#endif
    err = probe_chips(dev);
#if FW_WITH_MCP
    dev->boot_log_end = dev->log_next;            /* what the start logged reaches every session */
    dev->session.boot_cursor = dev->boot_log_end; /* the implicit one saw it as it happened */
#endif
    return err;
}

/* ---------------------------------------------------------------- runtime */

void fw_layer_observe(fw_device_t *dev)
{
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    if (layer != NULL && layer->observe != NULL) layer->observe(dev);
}

void fw_device_poll(fw_device_t *dev)
{
#if FW_WITH_SAMPLING
    fw_sampling_poll(dev, fw_hal_now(dev));
#endif
#if FW_WITH_TASKS
    fw_mcp_tasks_poll(dev);
#endif
    fw_layer_observe(dev);
}

uint64_t fw_device_next_deadline(const fw_device_t *dev)
{
    uint64_t next = UINT64_MAX;
#if FW_WITH_SAMPLING
    for (size_t k = 0; k < dev->sampled; k++) /* the sampled pins' slots */
        if (dev->sampling[k].next_sample_ms < next) next = dev->sampling[k].next_sample_ms;
#else
    (void)dev;
#endif
#if FW_WITH_TASKS
    uint64_t task = fw_mcp_tasks_next(dev);
    if (task < next) next = task;
#endif
    return next;
}

size_t fw_board_sample_slots(const fw_board_t *board)
{
    size_t n = 0;
    for (size_t i = 0; i < board->pin_count; i++) {
        const fw_pin_def_t *p = &board->pins[i];
        bool input = p->type == FW_PIN_DIGITAL_INPUT || p->type == FW_PIN_ADC_INPUT;
        if (input && p->sample_interval_ms > 0 && p->buffer) n += p->buffer_size;
    }
    return n;
}

const fw_board_t *fw_device_board(const fw_device_t *dev)
{
    return dev->board;
}

uint64_t fw_device_uptime_ms(const fw_device_t *dev)
{
    uint64_t now = fw_hal_now(dev);
    return now >= dev->boot_ms ? now - dev->boot_ms : 0;
}

size_t fw_device_tool_count(const fw_device_t *dev)
{
    return dev->tool_count;
}

const fw_tool_t *fw_device_tool_at(const fw_device_t *dev, size_t i)
{
    return i < dev->tool_count ? dev->tools[i] : NULL;
}

/* ---------------------------------------------------------------- pin state for tools */

const fw_pin_state_t *fw_device_pin_state(const fw_device_t *dev, uint8_t index)
{
    FW_ASSERT(index < dev->board->pin_count);
    return &dev->pins[index];
}

void fw_device_pin_note_level(fw_device_t *dev, uint8_t index, bool level)
{
    FW_ASSERT(index < dev->board->pin_count);
    dev->pins[index].have_level = true;
    dev->pins[index].level = level;
    fw_pin_touch(dev, index);
}

void fw_device_pin_note_duty(fw_device_t *dev, uint8_t index, uint8_t duty)
{
    FW_ASSERT(index < dev->board->pin_count);
    dev->pins[index].duty = duty;
    fw_pin_touch(dev, index);
}

void fw_device_pin_note_mode(fw_device_t *dev, uint8_t index, hal_pin_mode_t mode)
{
    FW_ASSERT(index < dev->board->pin_count);
    fw_pin_state_t *st = &dev->pins[index];
    st->mode = (uint8_t)mode;
    st->type = mode == HAL_PIN_OUTPUT ? FW_PIN_DIGITAL_OUTPUT : FW_PIN_DIGITAL_INPUT;
    st->have_level = false;
    fw_pin_touch(dev, index);
}

const fw_counters_t *fw_device_counters(const fw_device_t *dev)
{
    return &dev->counters;
}

/* Aligned to 8 in memory (not only within the array), so any scalar type may live there. */
void *fw_scratch_alloc(fw_device_t *dev, size_t n)
{
    size_t pad = (size_t)(-(uintptr_t)(dev->scratch + dev->scratch_used) & 7u);
    size_t start = dev->scratch_used + pad;
    if (start > FW_SCRATCH_SIZE || n > FW_SCRATCH_SIZE - start) return NULL;
    dev->scratch_used = start + n;
    return dev->scratch + start;
}

/* ---------------------------------------------------------------- HAL */

uint64_t fw_hal_now(const fw_device_t *dev)
{
    return dev->hal->now_ms ? dev->hal->now_ms(dev->hal_ctx) : 0;
}

fw_err_t fw_hal_gpio_mode(const fw_device_t *dev, uint16_t pin, hal_pin_mode_t mode)
{
    return dev->hal->gpio_mode ? dev->hal->gpio_mode(dev->hal_ctx, pin, mode) : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_gpio_write(const fw_device_t *dev, uint16_t pin, bool level)
{
    return dev->hal->gpio_write ? dev->hal->gpio_write(dev->hal_ctx, pin, level)
                                : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_gpio_read(const fw_device_t *dev, uint16_t pin, bool *level)
{
    return dev->hal->gpio_read ? dev->hal->gpio_read(dev->hal_ctx, pin, level) : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_pwm_write(const fw_device_t *dev, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    return dev->hal->pwm_write ? dev->hal->pwm_write(dev->hal_ctx, pin, duty, freq_hz)
                               : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_adc_read(const fw_device_t *dev, uint16_t pin, uint16_t *raw)
{
    return dev->hal->adc_read ? dev->hal->adc_read(dev->hal_ctx, pin, raw) : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_device_info(const fw_device_t *dev, hal_device_info_t *info)
{
    return dev->hal->device_info ? dev->hal->device_info(dev->hal_ctx, info) : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_pwm_write_res(const fw_device_t *dev, uint16_t pin, uint32_t duty, uint8_t bits,
                              uint32_t freq_hz)
{
    if (bits < 1 || bits > 20 || duty > (1ul << bits)) return FW_ERR_ARG;
    if (dev->hal->pwm_write_res)
        return dev->hal->pwm_write_res(dev->hal_ctx, pin, duty, bits, freq_hz);
    uint32_t d8 = (uint32_t)(((uint64_t)duty * 255u + (1ul << bits) / 2u) >> bits);
    return fw_hal_pwm_write(dev, pin, (uint8_t)(d8 > 255u ? 255u : d8), freq_hz);
}

fw_err_t fw_hal_strip(const fw_device_t *dev, uint16_t pin, const hal_strip_op_t *op,
                      uint16_t *count)
{
    return dev->hal->strip ? dev->hal->strip(dev->hal_ctx, pin, op, count) : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_hal_dht_frame(const fw_device_t *dev, uint16_t pin, uint8_t frame[5])
{
    return dev->hal->dht_frame ? dev->hal->dht_frame(dev->hal_ctx, pin, frame) : FW_ERR_UNSUPPORTED;
}

/* ---------------------------------------------------------------- writers for tools */

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* The two members one by one. Apart from fw_write_pin_id (never inline) so that its usual
   path saves no register for this one. */
#if defined(__GNUC__)
#define PIN_ID_APART __attribute__((noinline))
#else
#define PIN_ID_APART
#endif
PIN_ID_APART static void write_pin_id_apart(fw_jw_t *w, uint16_t number, const char *name)
{
    FW_JW_KV_I64(w, "pin", number);
    FW_JW_KV_STR(w, "name", name);
}

/*
 * Both members in one run where the usual case allows (a pin number below 100, a name with
 * nothing to escape, all of it fitting the room): the writer's state is tested and updated
 * once, not once a member. The bytes and the counts are what the two FW_JW_KV_* would give
 * (fw_json.h, whose rules this follows); in any other case those two write them, from the
 * start, as nothing was counted yet.
 */
void fw_write_pin_id(fw_jw_t *w, const fw_pin_def_t *def)
{
    const char *s = def->name ? def->name : "";
    unsigned number = def->number, depth = w->depth;
    size_t used = w->used;
    if (!(w->in_str || w->want_value) && number < 100u && ((w->obj_mask >> depth) & 1u)) {
        /* [,]"pin":N,"name":" before the name's first byte */
        size_t head = (((w->first_mask >> depth) & 1u) ^ 1u) + 6u + (2u - (number < 10u)) + 9u;
        if (used + head + 1u < sizeof w->buf) { /* with an empty name and its closing quote */
            char *q = w->buf + used + head;
            size_t i = fw_jw_copy_plain_(q, s, (size_t)(w->buf + sizeof w->buf - 2u - q));
            if (s[i] == '\0') {
                /* the rest read again, not kept through the copy (a register each): the
                   bytes stored were the room's, none of these */
                fw_jw_mask_t first = w->first_mask;
                depth = w->depth;
                number = def->number;
                size_t comma = ((first >> depth) & 1u) ^ 1u, one = number < 10u;
                char *p = w->buf + w->used;
                size_t need = (size_t)(q - p) + i + 1u;
                w->first_mask = (fw_jw_mask_t)(first & ~(1u << depth));
                w->used += need;
                p[0] = ','; /* the member's first byte lands on it when no separator is due */
                w->total += need;
                memcpy(p + comma, "\"pin\":", 6);
                /* a number below 10 is the second byte of its pair: the first byte of what
                   follows lands on the other */
                memcpy(p + comma + 6u, fw_jw_digit_pairs_ + 2u * number + one, 2);
                memcpy(q - 9u, ",\"name\":\"", 9);
                q[i] = '"';
                return;
            }
        }
    }
    write_pin_id_apart(w, def->number, s);
}
#else
void fw_write_pin_id(fw_jw_t *w, const fw_pin_def_t *def)
{
    FW_JW_KV_I64(w, "pin", def->number);
    FW_JW_KV_STR(w, "name", def->name ? def->name : "");
}
#endif

/* 2^bits - 1, or 0 for a board without a usable ADC profile. */
static uint32_t adc_full_scale(const fw_board_t *board)
{
    if (board->adc_bits == 0 || board->adc_bits > 16) return 0;
    return ((uint32_t)1 << board->adc_bits) - 1u;
}

uint32_t fw_adc_to_mv(const fw_board_t *board, uint32_t raw)
{
    uint32_t full = adc_full_scale(board);
    if (full == 0) return 0;
    /* raw and ref are below 2^16: the product fits 32 bits (no 64-bit division) */
    return (uint32_t)(uint16_t)raw * (uint32_t)board->adc_ref_mv / full;
}

/* Volts with two decimals from the truncated millivolts, rounded half up: the same text as
   rounding the exact quotient, since truncating below the thousandths cannot move a value
   across a half-hundredth. */
void fw_adc_write_scaled_as(fw_jw_t *w, const fw_board_t *board, uint32_t raw,
                            const char *volts_key, const char *mv_key)
{
    uint32_t mv = fw_adc_to_mv(board, raw);
    if (board->adc_report == FW_ADC_REPORT_MV) {
        (fw_jw_kv_i64)(w, mv_key, mv);
        return;
    }
    (fw_jw_key)(w, volts_key);
    fw_jw_hundredths(w, (int64_t)((mv + 5u) / 10u));
}

void fw_adc_write_scaled(fw_jw_t *w, const fw_board_t *board, uint32_t raw)
{
    fw_adc_write_scaled_as(w, board, raw, FW_S("volts"), FW_S("mv"));
}

/* t32 is taken as the latest time at or before now with those low 32 bits. */
uint64_t fw_time_unwrap(uint64_t now, uint32_t t32)
{
    uint32_t back = (uint32_t)now - t32;
    return now >= back ? now - back : t32;
}

/* ---------------------------------------------------------------- the log */

#if FW_WITH_MCP
/* The log belongs to the layer that can deliver it (MCP's notifications/message). */
void fw_log(fw_device_t *dev, fw_log_level_t level, const char *fmt, ...)
{
    const fw_rpc_layer_t *layer = FW_LAYER(dev);
    if (layer == NULL || layer->vlog == NULL) return;
    va_list ap;
    va_start(ap, fmt);
    layer->vlog(dev, level, fmt, ap);
    va_end(ap);
}
#endif
