/* sim.c: the simulated device: virtual pins and wires, PWM, ADC, the I2C HAL, the clock with
   its event loop, and firmware reset. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "apps.h" /* fw_app_task_tool_find: app tools that run as MCP tasks */
#include "fixtures.h"
#include "sim_internal.h"

/*
 * Time is kept in microseconds; the HAL reports now_us / 1000. Discrete events, as Zephyr's
 * native_sim: the next event is the earlier of the firmware's next deadline and the device
 * models' own events; running up to a target time jumps from event to event, polls the
 * firmware at each instant and finally sets the clock to the target. I2C transfers and injected
 * latencies move the clock by the time they take, in both clock modes, so code that waits on
 * the bus (EEPROM acknowledge polling) ends on the virtual clock too.
 *
 * A pin's level, in order of precedence: an output drives its own level (a PWM output reads
 * high at duty >= 128); an input wired to a pin in output mode reads that pin; an input the
 * outside drives (board "level", sim.set_input) reads that level; otherwise it reads its pull
 * (the firmware's INPUT_PULLUP/PULLDOWN, else the board's "pull"), and low when floating.
 */

static const char *const mode_names[] = {"input", "input_pullup", "input_pulldown", "output"};
static const char *const unit_names[] = {"volts", "counts"};

const char *sim_type_phrase(uint8_t type)
{
    static const char *const phrases[FW_PIN_TYPE_COUNT] = {"a digital_output", "a digital_input",
                                                           "a pwm_output", "an adc_input"};
    return type < FW_PIN_TYPE_COUNT ? phrases[type] : "an unknown type";
}

const char *sim_mode_name(uint8_t mode)
{
    return mode <= HAL_PIN_OUTPUT ? mode_names[mode] : "?";
}

const char *sim_unit_name(uint8_t unit)
{
    return unit <= SIM_UNIT_COUNTS ? unit_names[unit] : "?";
}

/* ---------------------------------------------------------------- pins */

sim_pin_t *sim_pin_by_number(sim_t *sim, uint16_t number)
{
    for (size_t i = 0; i < sim->pin_count; i++)
        if (sim->pins[i].cfg->number == number) return &sim->pins[i];
    return NULL;
}

sim_pin_t *sim_pin_by_name(sim_t *sim, const char *s)
{
    for (size_t i = 0; i < sim->pin_count; i++)
        if (sim->pins[i].cfg->in_registry && strcmp(sim->pins[i].cfg->name, s) == 0)
            return &sim->pins[i];
    char *end = NULL;
    unsigned long n = strtoul(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != 0 || n > UINT16_MAX) return NULL;
    return sim_pin_by_number(sim, (uint16_t)n);
}

static double ref_volts(const sim_t *sim)
{
    return sim->board->fw.adc_ref_mv / 1000.0;
}

static uint32_t adc_max(const sim_t *sim)
{
    return (uint32_t)((1ul << sim->board->fw.adc_bits) - 1u);
}

/* The pin driving p through a wire, when it is in output mode. */
static const sim_pin_t *wire_driver(const sim_t *sim, const sim_pin_t *p)
{
    if (p->wire_from < 0) return NULL;
    const sim_pin_t *src = &sim->pins[p->wire_from];
    return src->mode == HAL_PIN_OUTPUT ? src : NULL;
}

static bool driven_level(const sim_pin_t *p)
{
    return p->pwm_on ? p->duty >= 128 : p->out_level;
}

static bool pull_level(const sim_pin_t *p)
{
    if (p->mode == HAL_PIN_INPUT_PULLUP) return true;
    if (p->mode == HAL_PIN_INPUT_PULLDOWN) return false;
    return p->cfg->pull == SIM_PULL_UP;
}

bool sim_pin_level(const sim_t *sim, const sim_pin_t *p)
{
    if (p->mode == HAL_PIN_OUTPUT) return driven_level(p);
    const sim_pin_t *src = wire_driver(sim, p);
    if (src) return driven_level(src);
    if (p->cfg->type == FW_PIN_ADC_INPUT) return sim_pin_volts(sim, p) >= ref_volts(sim) / 2;
    if (p->ext_level >= 0) return p->ext_level != 0;
    return pull_level(p);
}

/* The voltage at an analog input: from its wire's driver, else from its waveform (a waveform in
   counts gives the voltage that converts to that count). */
double sim_pin_volts(const sim_t *sim, const sim_pin_t *p)
{
    const sim_pin_t *src = wire_driver(sim, p);
    if (src && src->pwm_on) return src->duty / 255.0 * ref_volts(sim);
    if (src) return src->out_level ? ref_volts(sim) : 0.0;
    if (p->waveform == NULL) return 0.0;
    double v = sim_waveform_value(p->waveform, sim->now_us);
    return p->unit == SIM_UNIT_COUNTS ? v / adc_max(sim) * ref_volts(sim) : v;
}

uint32_t sim_pin_raw(const sim_t *sim, const sim_pin_t *p)
{
    if (p->unit == SIM_UNIT_COUNTS && p->waveform && !wire_driver(sim, p)) {
        double v = sim_waveform_value(p->waveform, sim->now_us);
        return v <= 0 ? 0u : v >= adc_max(sim) ? adc_max(sim) : (uint32_t)(v + 0.5);
    }
    return sim_adc_quantise(sim_pin_volts(sim, p), ref_volts(sim), sim->board->fw.adc_bits);
}

void sim_pin_set_waveform(sim_pin_t *p, sim_waveform_t *wf, sim_unit_t unit)
{
    sim_waveform_free(p->waveform);
    p->waveform = wf;
    p->unit = (uint8_t)unit;
}

static json_t *level_or_null(int v)
{
    return v < 0 ? json_null() : json_boolean(v != 0);
}

json_t *sim_pin_json(const sim_t *sim, const sim_pin_t *p)
{
    const sim_pin_cfg_t *c = p->cfg;
    json_t *o = json_pack("{s:i, s:o, s:s, s:b, s:s, s:b, s:b, s:i, s:I}", "pin", c->number, "name",
                          c->in_registry ? json_string(c->name) : json_null(), "type",
                          fw_pin_type_name((fw_pin_type_t)c->type), "registry", c->in_registry,
                          "mode", sim_mode_name(p->mode), "level", sim_pin_level(sim, p), "pwm",
                          p->pwm_on, "duty", p->duty, "frequency_hz", (json_int_t)p->freq_hz);
    json_object_set_new(o, "external", level_or_null(p->ext_level));
    json_object_set_new(o, "wire_from",
                        p->wire_from < 0 ? json_null()
                                         : json_integer(sim->pins[p->wire_from].cfg->number));
    if (c->type == FW_PIN_DIGITAL_INPUT)
        json_object_set_new(o, "pull",
                            json_string(c->pull == SIM_PULL_UP     ? "up"
                                        : c->pull == SIM_PULL_DOWN ? "down"
                                                                   : "none"));
    if (c->type != FW_PIN_ADC_INPUT) return o;
    json_object_set_new(o, "volts", json_real(sim_pin_volts(sim, p)));
    json_object_set_new(o, "raw", json_integer(sim_pin_raw(sim, p)));
    json_object_set_new(o, "unit", json_string(sim_unit_name(p->unit)));
    json_object_set_new(o, "waveform", p->waveform ? sim_waveform_json(p->waveform) : json_null());
    return o;
}

/* ---------------------------------------------------------------- the HAL */

static uint64_t hal_now_ms(void *ctx)
{
    return ((sim_t *)ctx)->now_us / 1000u;
}

static fw_err_t hal_gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    sim_pin_t *p = sim_pin_by_number(ctx, pin);
    if (p == NULL) return FW_ERR_ARG;
    if ((unsigned)mode > HAL_PIN_OUTPUT) return FW_ERR_ARG;
    p->mode = (uint8_t)mode;
    return FW_OK;
}

/* Writing a level ends PWM on the pin, as digitalWrite after analogWrite does. */
static fw_err_t hal_gpio_write(void *ctx, uint16_t pin, bool level)
{
    sim_pin_t *p = sim_pin_by_number(ctx, pin);
    if (p == NULL) return FW_ERR_ARG;
    p->out_level = level;
    p->pwm_on = false;
    p->duty = 0;
    p->freq_hz = 0;
    p->writes++;
    return FW_OK;
}

static fw_err_t hal_gpio_read(void *ctx, uint16_t pin, bool *level)
{
    sim_pin_t *p = sim_pin_by_number(ctx, pin);
    if (p == NULL) return FW_ERR_ARG;
    *level = sim_pin_level(ctx, p);
    p->reads++;
    return FW_OK;
}

/* PWM drives the pin as an output; only output-capable pins of the board can do it. */
static fw_err_t hal_pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    sim_t *sim = ctx;
    sim_pin_t *p = sim_pin_by_number(sim, pin);
    if (p == NULL) return FW_ERR_ARG;
    if (p->cfg->type != FW_PIN_PWM_OUTPUT && p->cfg->type != FW_PIN_DIGITAL_OUTPUT)
        return FW_ERR_UNSUPPORTED;
    p->mode = HAL_PIN_OUTPUT;
    p->pwm_on = true;
    p->duty = duty;
    p->duty_res = duty;
    p->bits = 8;
    p->freq_hz = freq_hz ? freq_hz : sim->board->pwm_default_hz;
    p->writes++;
    return FW_OK;
}

/* As hal_pwm_write with LEDC's resolution; the 8-bit duty the rest of the sim reads is the
   same fraction. */
static fw_err_t hal_pwm_write_res(void *ctx, uint16_t pin, uint32_t duty, uint8_t bits,
                                  uint32_t freq_hz)
{
    uint64_t d8 = ((uint64_t)duty * 255u + (1ull << bits) / 2u) >> bits;
    fw_err_t err = hal_pwm_write(ctx, pin, (uint8_t)(d8 > 255u ? 255u : d8), freq_hz);
    if (err != FW_OK) return err;
    sim_pin_t *p = sim_pin_by_number(ctx, pin);
    p->duty_res = duty;
    p->bits = bits;
    return FW_OK;
}

sim_pwm_view_t sim_pin_pwm_view(void *ctx, uint16_t pin)
{
    const sim_pin_t *p = sim_pin_by_number(ctx, pin);
    if (p == NULL) return (sim_pwm_view_t){0, 0, 0, 0};
    return (sim_pwm_view_t){p->pwm_on, p->duty_res, p->bits, p->freq_hz};
}

static fw_err_t hal_strip(void *ctx, uint16_t pin, const hal_strip_op_t *op, uint16_t *count)
{
    return sim_pindevs_strip(((sim_t *)ctx)->pindevs, pin, op, count);
}

/* A DHT22 answers a start signal with 40 bits in about 4 ms of the bus. */
static fw_err_t hal_dht_frame(void *ctx, uint16_t pin, uint8_t frame[5])
{
    sim_t *sim = ctx;
    fw_err_t err = sim_pindevs_dht(sim->pindevs, pin, sim->now_us, frame);
    if (err != FW_ERR_UNSUPPORTED) sim->now_us += 4000u;
    return err;
}

static fw_err_t hal_adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    sim_t *sim = ctx;
    sim_pin_t *p = sim_pin_by_number(sim, pin);
    if (p == NULL) return FW_ERR_ARG;
    if (p->cfg->type != FW_PIN_ADC_INPUT) return FW_ERR_UNSUPPORTED;
    uint64_t extra = 0;
    fw_err_t err = sim_faults_adc(&sim->faults, pin, &extra);
    sim->now_us += extra;
    p->adc_reads++;
    if (err != FW_OK) return err;
    *raw = (uint16_t)sim_pin_raw(sim, p);
    return FW_OK;
}

static fw_err_t hal_i2c_transfer(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx,
                                 size_t tx_len, uint8_t *rx, size_t rx_len)
{
    sim_t *sim = ctx;
    uint64_t elapsed = 0;
    fw_err_t err =
        sim_i2c_transfer(sim->i2c, bus, addr, tx, tx_len, rx, rx_len, sim->now_us, &elapsed);
    sim->now_us += elapsed;
    return err;
}

static fw_err_t hal_device_info(void *ctx, hal_device_info_t *info)
{
    sim_t *sim = ctx;
    const sim_board_t *b = sim->board;
    *info = (hal_device_info_t){b->chip_model ? b->chip_model : "mcpsim", sim->unique_id,
                                b->chip_mhz, b->chip_ram, b->chip_flash};
    return FW_OK;
}

/* Called from inside a request: re-initialising the device there would pull the core's state
   from under the handler, so the reset happens at the next sim_sync_wall/sim_advance (a real
   chip also finishes its instruction before the reset takes). */
static void hal_reset(void *ctx)
{
    ((sim_t *)ctx)->reset_pending = true;
}

/* The host's random bytes (a chip's hardware RNG): they key MCP's request states. */
static fw_err_t hal_entropy(void *ctx, uint8_t *out, size_t len)
{
    (void)ctx;
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom(out + got, len - got, 0);
        if (n <= 0) return FW_ERR_HW;
        got += (size_t)n;
    }
    return FW_OK;
}

static const hal_api_t sim_hal = {
    .now_ms = hal_now_ms,
    .gpio_mode = hal_gpio_mode,
    .gpio_write = hal_gpio_write,
    .gpio_read = hal_gpio_read,
    .pwm_write = hal_pwm_write,
    .adc_read = hal_adc_read,
    .i2c_transfer = hal_i2c_transfer,
    .device_info = hal_device_info,
    .reset = hal_reset,
    .entropy = hal_entropy,
    .pwm_write_res = hal_pwm_write_res,
    .strip = hal_strip,
    .dht_frame = hal_dht_frame,
};

/* ---------------------------------------------------------------- reset and the clock */

/* Outputs return to their reset state (inputs, low, no PWM); what the outside world drives and
   the device models keep theirs. */
static fw_err_t boot(sim_t *sim)
{
    for (size_t i = 0; i < sim->pin_count; i++) {
        sim_pin_t *p = &sim->pins[i];
        p->mode = HAL_PIN_INPUT;
        p->out_level = false;
        p->pwm_on = false;
        p->duty = 0;
        p->freq_hz = 0;
    }
    sim->reset_pending = false;
    fw_err_t err = fw_device_init(&sim->dev, &sim->board->fw, &sim_hal, sim);
    /* the board's application tools that run as MCP tasks get their steps */
    const fw_tool_t *const *apps = sim->board->fw.app_tools;
    for (size_t i = 0; err == FW_OK && apps != NULL && apps[i] != NULL; i++) {
        const fw_task_tool_t *tt = fw_app_task_tool_find(apps[i]);
        if (tt != NULL) err = fw_device_add_task_tool(&sim->dev, tt);
    }
    if (err == FW_OK && sim->fixtures) err = sim_fixtures_add(&sim->dev);
    return err;
}

void sim_reset(sim_t *sim)
{
    fw_err_t err = boot(sim);
    assert(err == FW_OK); /* the same board booted in sim_create */
    (void)err;
    sim->resets++;
}

uint64_t sim_next_event_us(const sim_t *sim)
{
    if (sim->reset_pending) return sim->now_us;
    uint64_t ms = fw_device_next_deadline(&sim->dev);
    uint64_t fw = ms >= UINT64_MAX / 1000u ? UINT64_MAX : ms * 1000u;
    uint64_t models = sim_i2c_next_event_us(sim->i2c);
    return fw < models ? fw : models;
}

/* Runs every event due up to target, each at its own instant, then sets the clock to target
   (or leaves it later, when the events themselves took bus time past it). */
static void run_until(sim_t *sim, uint64_t target)
{
    for (;;) {
        if (sim->reset_pending) sim_reset(sim);
        uint64_t next = sim_next_event_us(sim);
        if (next > target) break;
        if (next > sim->now_us) sim->now_us = next;
        uint64_t at = sim->now_us;
        sim_i2c_run_due(sim->i2c, at);
        fw_device_poll(&sim->dev);
        /* A firmware whose deadline does not move past the instant it was polled at would
           spin here; it is polled again at the next call instead. */
        if (!sim->reset_pending && sim_next_event_us(sim) <= at) break;
    }
    if (target > sim->now_us) sim->now_us = target;
}

void sim_sync_wall(sim_t *sim, uint64_t wall_us)
{
    bool realtime = sim->mode == SIM_CLOCK_REALTIME && wall_us > sim->now_us;
    run_until(sim, realtime ? wall_us : sim->now_us);
}

void sim_sync_wall_known(sim_t *sim, uint64_t wall_us, uint64_t next_us)
{
    if (sim->mode == SIM_CLOCK_REALTIME && !sim->reset_pending && wall_us < next_us) {
        if (wall_us > sim->now_us) sim->now_us = wall_us; /* nothing due: run_until's end */
        return;
    }
    sim_sync_wall(sim, wall_us);
}

bool sim_advance(sim_t *sim, uint64_t us)
{
    if (sim->mode != SIM_CLOCK_VIRTUAL) return false;
    uint64_t target = sim->now_us + us < sim->now_us ? UINT64_MAX : sim->now_us + us;
    run_until(sim, target);
    return true;
}

uint64_t sim_now_us(const sim_t *sim)
{
    return sim->now_us;
}

sim_clock_mode_t sim_clock_mode(const sim_t *sim)
{
    return sim->mode;
}

fw_device_t *sim_device(sim_t *sim)
{
    return &sim->dev;
}

/* ---------------------------------------------------------------- create and destroy */

static bool make_pins(sim_t *sim)
{
    const sim_board_t *b = sim->board;
    sim->pins = calloc(b->hw_count + 1, sizeof *sim->pins);
    if (sim->pins == NULL) return false;
    sim->pin_count = b->hw_count;
    for (size_t i = 0; i < b->hw_count; i++) {
        sim_pin_t *p = &sim->pins[i];
        p->cfg = &b->hw[i];
        p->ext_level = b->hw[i].level;
        p->unit = b->hw[i].unit;
        p->wire_from = -1;
        if (b->hw[i].waveform && !(p->waveform = sim_waveform_copy(b->hw[i].waveform)))
            return false;
    }
    for (size_t w = 0; w < b->wire_count; w++) {
        sim_pin_t *to = sim_pin_by_number(sim, b->wires[w].to);
        sim_pin_t *from = sim_pin_by_number(sim, b->wires[w].from);
        to->wire_from = (int)(from - sim->pins);
    }
    return true;
}

static void fail(sim_error_t *err, const sim_board_t *b, const char *fmt, const char *what)
{
    memset(err, 0, sizeof *err);
    snprintf(err->file, sizeof err->file, "%s", b->path);
    sim_cfg_printf(err->text, sizeof err->text, fmt, what);
}

/* Takes ownership of board, also on failure. */
sim_t *sim_create(sim_board_t *board, sim_clock_mode_t mode, sim_error_t *err)
{
    sim_t *sim = calloc(1, sizeof *sim);
    if (sim == NULL) {
        fail(err, board, "out of memory%s", "");
        sim_board_free(board);
        return NULL;
    }
    sim->board = board;
    sim->mode = mode;
    sim_faults_init(&sim->faults);
    sim_cfg_printf(sim->unique_id, sizeof sim->unique_id, "sim-%s", board->fw.device);
    sim->i2c = sim_i2c_create(board->fw.i2c_bus_count, &sim->faults);
    sim_cfg_err_t pe = {0};
    if (sim->i2c != NULL)
        sim->pindevs = sim_pindevs_create(json_object_get(board->root, "pin_devices"), board->dir,
                                          &pe); /* checked when the board was loaded */
    if (sim->i2c == NULL || sim->pindevs == NULL || !make_pins(sim)) {
        fail(err, board, "out of memory%s", "");
    } else if (sim_board_make_models(board, sim->i2c, err)) {
        fw_err_t fe = boot(sim);
        if (fe == FW_OK) return sim;
        fail(err, board, "the firmware refused this board: fw_device_init failed: %s",
             fw_err_str(fe));
    }
    sim_destroy(sim);
    return NULL;
}

void sim_destroy(sim_t *sim)
{
    if (sim == NULL) return;
    sim_i2c_destroy(sim->i2c);
    sim_pindevs_destroy(sim->pindevs);
    for (size_t i = 0; sim->pins && i < sim->pin_count; i++)
        sim_waveform_free(sim->pins[i].waveform);
    free(sim->pins);
    sim_faults_free(&sim->faults);
    sim_board_free(sim->board);
    free(sim);
}
