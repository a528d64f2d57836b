/* test_board.c: board files: the shipped boards load and boot, the C generated from each
   (cmake/board2c.cmake) is the board the loader makes of it, and every bad file is refused
   with its exact file:line:column. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp for a board with a CSV waveform */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "apps.h"
#include "at24c.h"
#include "fw_builtins.h"
#include "mcpsim_boards.h"
#include "sim_internal.h"
#include "tmp102.h"
#include "test_util.h"

#ifndef MCPSIM_SOURCE_DIR
#define MCPSIM_SOURCE_DIR "."
#endif
#define BOARD_DIR MCPSIM_SOURCE_DIR "/sim/boards/"

static sim_board_t *load_file(const char *path)
{
    sim_error_t err;
    sim_board_t *b = sim_board_load(path, &err);
    char text[600];
    sim_error_format(&err, text, sizeof text);
    ck_assert_msg(b != NULL, "%s", text);
    return b;
}

static sim_board_t *load_shipped(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s.json", BOARD_DIR, name);
    return load_file(path);
}

/* The formatted error of a refused board text, loaded under the name "bad.json". */
static const char *load_error(const char *text)
{
    static char out[700];
    sim_error_t err;
    sim_board_t *b = sim_board_load_text("bad.json", text, strlen(text), &err);
    ck_assert_msg(b == NULL, "accepted: %s", text);
    sim_error_format(&err, out, sizeof out);
    return out;
}

/* ---------------------------------------------------------------- shipped boards */

/* Every board file of sim/boards/, as cmake/board2c.cmake generated it (mcpsim_boards.h). */
static size_t generated_count(void)
{
    size_t n = 0;
    while (mcpsim_boards[n].json != NULL) n++;
    return n;
}

START_TEST(shipped_boards_load_and_boot)
{
    const char *path = mcpsim_boards[_i].json;
    sim_board_t *b = load_file(path);
    sim_error_t err;
    sim_t *sim = sim_create(b, SIM_CLOCK_VIRTUAL, &err);
    ck_assert_msg(sim != NULL, "%s: %s", path, err.text);
    ck_assert(sim_advance(sim, 10u * 1000u * 1000u));
    sim_destroy(sim);
}
END_TEST

/* The build generated C for every board file there is (the glob of sim/CMakeLists.txt). */
START_TEST(every_board_file_is_generated)
{
    DIR *dir = opendir(BOARD_DIR);
    ck_assert_ptr_nonnull(dir);
    size_t files = 0;
    for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir)) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
        files++;
        bool found = false;
        for (size_t i = 0; mcpsim_boards[i].json != NULL && !found; i++) {
            const char *slash = strrchr(mcpsim_boards[i].json, '/');
            found = strcmp(slash ? slash + 1 : mcpsim_boards[i].json, e->d_name) == 0;
        }
        ck_assert_msg(found, "sim/boards/%s has no generated board (rerun cmake)", e->d_name);
    }
    closedir(dir);
    ck_assert_uint_eq(files, generated_count());
}
END_TEST

static void same_str(const char *a, const char *b, const char *what)
{
    ck_assert_msg((a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0),
                  "%s: loaded \"%s\", generated \"%s\"", what, a ? a : "(null)", b ? b : "(null)");
}

static void same_pins(const fw_board_t *f, const fw_board_t *g, const char *path)
{
    ck_assert_msg(f->pin_count == g->pin_count, "%s: pin_count %u vs %u", path, f->pin_count,
                  g->pin_count);
    ck_assert_msg((f->pins == NULL) == (g->pins == NULL), "%s: pins", path);
    for (size_t i = 0; i < f->pin_count; i++) {
        const fw_pin_def_t *p = &f->pins[i], *q = &g->pins[i];
        char what[600];
        snprintf(what, sizeof what, "%s: pins[%zu]", path, i);
        ck_assert_msg(p->number == q->number, "%s.pin", what);
        ck_assert_msg(p->type == q->type, "%s.type", what);
        same_str(p->name, q->name, what);
        same_str(p->description, q->description, what);
        ck_assert_msg(p->sample_interval_ms == q->sample_interval_ms, "%s: interval_ms", what);
        ck_assert_msg(p->buffer_size == q->buffer_size, "%s: buffer_size", what);
        ck_assert_msg(p->summary == q->summary, "%s: summary", what);
        ck_assert_msg(p->buffer == q->buffer, "%s: buffer", what);
        ck_assert_msg(p->events == q->events, "%s: events", what);
        ck_assert_msg(p->threshold_high == q->threshold_high, "%s: thresholds.high", what);
        ck_assert_msg(p->threshold_low == q->threshold_low, "%s: thresholds.low", what);
    }
}

static void same_chips(const fw_board_t *f, const fw_board_t *g, const char *path)
{
    ck_assert_msg(f->i2c_bus_count == g->i2c_bus_count, "%s: i2c_bus_count", path);
    ck_assert_msg(f->chip_count == g->chip_count, "%s: chip_count %u vs %u", path, f->chip_count,
                  g->chip_count);
    ck_assert_msg((f->chips == NULL) == (g->chips == NULL), "%s: chips", path);
    for (size_t i = 0; i < f->chip_count; i++) {
        const fw_chip_t *c = &f->chips[i], *d = &g->chips[i];
        ck_assert_msg(c->driver == d->driver, "%s: chips[%zu].driver %s vs %s", path, i,
                      c->driver->name, d->driver->name);
        ck_assert_msg(c->bus == d->bus && c->addr == d->addr,
                      "%s: chips[%zu] at %u:0x%02x vs %u:0x%02x", path, i, c->bus, c->addr, d->bus,
                      d->addr);
        ck_assert_msg((c->config == NULL) == (d->config == NULL), "%s: chips[%zu].config", path, i);
        if (strcmp(c->driver->name, "at24c") == 0) { /* by name: a build without I2C has none */
            const fw_at24c_config_t *x = c->config, *y = d->config;
            ck_assert_msg(x->size_bytes == y->size_bytes && x->page_bytes == y->page_bytes,
                          "%s: chips[%zu] at24c %u/%u vs %u/%u", path, i, (unsigned)x->size_bytes,
                          (unsigned)x->page_bytes, (unsigned)y->size_bytes,
                          (unsigned)y->page_bytes);
        } else {
            ck_assert_msg(c->config == NULL, "%s: chips[%zu] (%s): a config not compared", path, i,
                          c->driver->name);
        }
    }
}

static void same_apps(const fw_board_t *f, const fw_board_t *g, const char *path)
{
    ck_assert_msg((f->app_tools == NULL) == (g->app_tools == NULL), "%s: app_tools", path);
    for (size_t i = 0; f->app_tools != NULL; i++) {
        ck_assert_msg(f->app_tools[i] == g->app_tools[i], "%s: app_tools[%zu]", path, i);
        if (f->app_tools[i] == NULL) break;
    }
}

/* One truth: the C a port compiles (generated by cmake/board2c.cmake from a board file) and the
   simulator's loader give the firmware the same board, field by field. */
START_TEST(generated_board_matches_the_loaded_one)
{
    const char *path = mcpsim_boards[_i].json;
    const fw_board_t *g = mcpsim_boards[_i].board;
    sim_board_t *sb = load_file(path);
    const fw_board_t *f = sim_board_fw(sb);
    same_str(f->device, g->device, path);
    same_str(f->version, g->version, path);
    same_str(f->platform, g->platform, path);
    same_pins(f, g, path);
    ck_assert_msg(f->adc_bits == g->adc_bits, "%s: adc.bits", path);
    ck_assert_msg(f->adc_ref_mv == g->adc_ref_mv, "%s: adc.ref_mv", path);
    ck_assert_msg(f->adc_report == g->adc_report, "%s: adc.report", path);
    ck_assert_msg(f->omit_schemas == g->omit_schemas, "%s: omit_schemas", path);
    same_chips(f, g, path);
    ck_assert_msg(f->toolsets == g->toolsets, "%s: toolsets", path);
    /* the built-ins, or ("builtins": false) the board's application tools only */
    ck_assert_msg(g->toolsets != NULL || g->app_tools != NULL, "%s: a board without tools", path);
    same_apps(f, g, path);
    ck_assert_msg(f->sample_store_len == g->sample_store_len, "%s: sample_store_len %u vs %u", path,
                  f->sample_store_len, g->sample_store_len);
    ck_assert_uint_eq(g->sample_store_len, fw_board_sample_slots(g));
    ck_assert(g->sample_store_len == 0 ? g->sample_store == NULL : g->sample_store != NULL);
    ck_assert(f->sample_store_len == 0 ? f->sample_store == NULL : f->sample_store != NULL);
    sim_board_free(sb);
}
END_TEST

START_TEST(uno_is_an_avr_profile)
{
    sim_board_t *b = load_shipped("uno");
    const fw_board_t *f = sim_board_fw(b);
    ck_assert_str_eq(f->platform, "arduino-avr");
    ck_assert_uint_eq(f->adc_bits, 10);
    ck_assert_uint_eq(f->adc_ref_mv, 5000);
    ck_assert_uint_eq(f->adc_report, FW_ADC_REPORT_MV);
    ck_assert(f->omit_schemas);
    ck_assert_uint_eq(f->pin_count, 3);
    ck_assert_uint_eq(f->pins[2].number, 14);
    ck_assert_uint_eq(f->pins[2].sample_interval_ms, 1000);
    ck_assert_uint_eq(f->pins[2].buffer_size, 8);
    ck_assert_uint_eq(b->hw[1].pull, SIM_PULL_UP);
    ck_assert_int_eq(b->hw[1].level, -1); /* floating: the pull-up decides */
    sim_board_free(b);
}
END_TEST

/* The MCP/U-only profile (mcpu-min) has no sampling: its Uno samples nothing. */
START_TEST(uno_min_samples_nothing)
{
    sim_board_t *b = load_shipped("uno-min");
    const fw_board_t *f = sim_board_fw(b);
    for (size_t i = 0; i < f->pin_count; i++) ck_assert_uint_eq(f->pins[i].sample_interval_ms, 0);
    ck_assert_uint_eq(f->sample_store_len, 0);
    ck_assert_uint_eq(f->i2c_bus_count, 0);
    ck_assert_uint_eq(b->pwm_default_hz, 490);
    sim_board_free(b);
}
END_TEST

START_TEST(esp32_demo_enables_its_app_tools)
{
    sim_board_t *b = load_shipped("esp32-demo");
    const fw_board_t *f = sim_board_fw(b);
    ck_assert_ptr_nonnull(f->app_tools);
    ck_assert_ptr_eq(f->app_tools[0], &fw_app_read_touch);
    ck_assert_ptr_eq(f->app_tools[1], &fw_app_calibrate_touch);
    ck_assert_ptr_null(f->app_tools[2]);
    ck_assert_uint_eq(f->sample_store_len, 20);
    sim_board_free(b);
}
END_TEST

#if FW_WITH_I2C
START_TEST(greenhouse_has_i2c_chips_and_a_wire)
{
    sim_board_t *b = load_shipped("greenhouse");
    const fw_board_t *f = sim_board_fw(b);
    ck_assert_str_eq(f->platform, "esp-idf");
    ck_assert_uint_eq(f->i2c_bus_count, 1);
    ck_assert_ptr_eq(f->toolsets, fw_builtins_i2c);
    ck_assert_uint_eq(f->chip_count, 2);
    ck_assert_ptr_eq(f->chips[0].driver, &fw_driver_tmp102);
    ck_assert_uint_eq(f->chips[0].addr, 0x48);
    ck_assert_ptr_null(f->chips[0].config);
    ck_assert_ptr_eq(f->chips[1].driver, &fw_driver_at24c);
    ck_assert_uint_eq(f->chips[1].addr, 0x50);
    const fw_at24c_config_t *eeprom = f->chips[1].config;
    ck_assert_uint_eq(eeprom->size_bytes, 4096);
    ck_assert_uint_eq(eeprom->page_bytes, 32);
    ck_assert_uint_eq(f->sample_store_len, 32 + 16); /* soil's ring, then button's */
    ck_assert_uint_eq(b->wire_count, 1);
    ck_assert_uint_eq(b->wires[0].from, 25);
    ck_assert_uint_eq(b->wires[0].to, 26);
    ck_assert(f->pins[0].events);
    ck_assert_int_eq(f->pins[0].threshold_high, 2500);
    sim_board_free(b);
}
END_TEST
#endif

/* ---------------------------------------------------------------- bad files */

typedef struct bad_case {
    const char *text;
    const char *error;
} bad_case_t;

static const bad_case_t bad[] = {
    /* syntax, found by jansson */
    {"{\"device\": \"x\",\n \"pins\": [}", "bad.json:2:11: unexpected token near '}'"},
    {"{\"device\": \"x\", \"device\": \"y\"}",
     "bad.json:1:24: duplicate object key near '\"device\"'"},
    {"[1, 2]", "bad.json:1:1: must be an object, not an array"},
    /* top level */
    {"{\"pins\": []}", "bad.json:1:1: missing required key \"device\""},
    {"{\"device\": \"x\", \"pinz\": []}",
     "bad.json:1:17: pinz: unknown key \"pinz\" (allowed: device, version, platform, "
     "description, adc, omit_schemas, pwm_default_hz, pins, channels, wires, i2c, app_tools, "
     "uart, builtins, pin_devices, chip)"},
    /* uart */
    {"{\"device\": \"x\", \"uart\": {\"reset\": true}}",
     "bad.json:1:26: uart.reset: unknown key \"reset\" (allowed: reset_on_open, boot_banner)"},
    {"{\"device\": \"x\", \"uart\": {\"boot_banner\": \"a\\nb\"}}",
     "bad.json:1:41: uart.boot_banner: must be one line (no CR or LF)"},
    {"{\"device\": \"x\", \"uart\": {\"reset_on_open\": 1}}",
     "bad.json:1:43: uart.reset_on_open: must be true or false, not an integer"},
    {"{\"device\": \"x\",\n  \"adc\": {\"bits\": 24}}",
     "bad.json:2:19: adc.bits: 24 is out of range 1..16"},
    /* pins */
    {"{\"device\": \"x\", \"pins\": [\n"
     "  {\"pin\": 2, \"name\": \"led\", \"type\": \"digital_output\"},\n"
     "  {\"pin\": 3, \"name\": \"b\", \"type\": \"digital_ouput\"}]}",
     "bad.json:3:35: pins[1].type: unknown value \"digital_ouput\" (expected one of: "
     "digital_output, digital_input, pwm_output, adc_input)"},
    {"{\"device\": \"x\", \"pins\": [\n"
     "  {\"pin\": 2, \"name\": \"a\", \"type\": \"digital_output\"},\n"
     "  {\"pin\": 2, \"name\": \"b\", \"type\": \"digital_input\"}]}",
     "bad.json:3:11: pins[1].pin: pin 2 is already declared by pins[0] (a)"},
    {"{\"device\": \"x\", \"pins\": [\n"
     "  {\"pin\": 2, \"name\": \"a\", \"type\": \"digital_output\"},\n"
     "  {\"pin\": 3, \"name\": \"a\", \"type\": \"digital_input\"}]}",
     "bad.json:3:22: pins[1].name: name \"a\" is already used by pins[0] (pin 2)"},
    {"{\"device\": \"é\", \"pins\": [{\"pin\": \"2\"}]}",
     "bad.json:1:34: pins[0].pin: must be an integer, not a string"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 2, \"name\": \"led\", \"type\": \"digital_output\", "
     "\"smapling\": {}}]}",
     "bad.json:1:78: pins[0].smapling: unknown key \"smapling\" (allowed: pin, name, type, "
     "description, sampling, thresholds, level, pull, waveform, unit)"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 2, \"name\": \"led\", \"type\": "
     "\"digital_output\",\n"
     "  \"sampling\": {\"interval_ms\": 100}}]}",
     "bad.json:2:15: pins[0].sampling: sampling is for input pins, not a digital_output"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"sampling\": {\"interval_ms\": 100, \"buffer_size\": 100}}]}",
     "bad.json:2:51: pins[0].sampling.buffer_size: 100 exceeds the firmware's ring of 64 "
     "samples (FW_SAMPLE_BUF_MAX)"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"sampling\": {\"interval_ms\": 10, \"buffer\": true}}]}",
     "bad.json:2:15: pins[0].sampling: missing required key \"buffer_size\" (buffer is true)"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 5, \"name\": \"b\", \"type\": \"digital_input\",\n"
     "  \"waveform\": 1.0}]}",
     "bad.json:2:15: pins[0].waveform: waveform is for adc_input pins, not a digital_input"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"thresholds\": {\"high\": 100, \"low\": 200}}]}",
     "bad.json:2:38: pins[0].thresholds.low: 200 is above high (100): the event re-arms at low"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"sampling\": {\"interval_ms\": 10, \"events\": true}}]}",
     "bad.json:2:45: pins[0].sampling.events: events on an adc_input need thresholds "
     "{\"high\", \"low\"} (raw counts)"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"waveform\": {\"type\": \"sine\", \"amplitude\": 1}}]}",
     "bad.json:2:15: pins[0].waveform: missing required key \"period_ms\""},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", \"type\": \"adc_input\",\n"
     "  \"waveform\": {\"type\": \"square\", \"low\": 0, \"high\": 1, \"period_ms\": -5}}]}",
     "bad.json:2:68: pins[0].waveform.period_ms: -5 is out of range 0.001..1e+12"},
    /* channels and wires */
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 2, \"name\": \"led\", \"type\": "
     "\"digital_output\"}],\n"
     "  \"channels\": [{\"pin\": 2}]}",
     "bad.json:2:24: channels[0].pin: pin 2 is already declared (led); channels are analog "
     "inputs outside the pin registry"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 5, \"name\": \"b\", \"type\": \"digital_input\"},\n"
     "  {\"pin\": 6, \"name\": \"c\", \"type\": \"digital_input\"}],\n"
     "  \"wires\": [{\"from\": 5, \"to\": \"c\"}]}",
     "bad.json:3:22: wires[0].from: pin 5 (b) is a digital_input; a wire starts at a "
     "digital_output or pwm_output"},
    {"{\"device\": \"x\", \"pins\": [{\"pin\": 5, \"name\": \"b\", \"type\": \"digital_output\"},\n"
     "  {\"pin\": 6, \"name\": \"c\", \"type\": \"pwm_output\"}],\n"
     "  \"wires\": [{\"from\": \"b\", \"to\": 6}]}",
     "bad.json:3:33: wires[0].to: pin 6 (c) is a pwm_output; a wire ends at a digital_input or "
     "adc_input"},
    {"{\"device\": \"x\", \"wires\": [{\"from\": 7, \"to\": 8}]}",
     "bad.json:1:36: wires[0].from: no pin 7 on this board"},
    /* I2C */
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [{\"model\": \"tmp102\", \"address\": 5}]}}",
     "bad.json:1:68: i2c.devices[0].address: address 0x05 is outside 0x08..0x77 (the 7-bit "
     "addresses I2C does not reserve)"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"at24c\", \"address\": \"0x50\", \"size\": 512},\n"
     "  {\"model\": \"regmap\", \"address\": 81}]}}",
     "bad.json:3:34: i2c.devices[1].address: 0x51 on bus 0 is already used by i2c.devices[0] "
     "(at24c at 0x50..0x51)"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"at24c\", \"address\": \"0x50\", \"size\": 1000}]}}",
     "bad.json:2:49: i2c.devices[0].size: 1000 is not a power of two (AT24C sizes are 128 .. "
     "262144 bytes)"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"at24c\", \"address\": \"0x50\", \"size\": 4096, \"page\": 48}]}}",
     "bad.json:2:63: i2c.devices[0].page: 48 is not a power of two of at most the chip size"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"at24c\", \"address\": \"0x51\", \"size\": 512}]}}",
     "bad.json:2:33: i2c.devices[0].address: 0x51: this at24c answers 2 addresses (block "
     "select), so its address must be a multiple of 2"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [{\"model\": \"bmp280\", \"address\": "
     "\"0x76\"}]}}",
     "bad.json:1:47: i2c.devices[0].model: unknown model \"bmp280\" (expected one of: tmp102, "
     "at24c, regmap, es8311)"},
    {"{\"device\": \"x\", \"i2c\": {\"buses\": 1, \"devices\": [\n"
     "  {\"model\": \"tmp102\", \"address\": 72, \"bus\": 1}]}}",
     "bad.json:2:45: i2c.devices[0].bus: bus 1 does not exist: the board has 1 i2c bus(es) "
     "(i2c.buses)"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"tmp102\", \"address\": 72, \"temperature\": 20}]}}",
     "bad.json:2:38: i2c.devices[0].temperature: unknown key \"temperature\" (allowed: model, "
     "address, bus, name, temperature_c, waveform, extended)"},
    {"{\"device\": \"x\", \"i2c\": {\"devices\": [\n"
     "  {\"model\": \"tmp102\", \"address\": 72}, {\"model\": \"tmp102\", \"address\": 73},\n"
     "  {\"model\": \"tmp102\", \"address\": 74}, {\"model\": \"tmp102\", \"address\": 75},\n"
     "  {\"model\": \"at24c\", \"address\": 80, \"size\": 256}]}}",
     "bad.json:4:13: i2c.devices[4].model: more than 4 devices with a firmware driver "
     "(FW_I2C_DEVICES_MAX)"},
    /* application tools */
    {"{\"device\": \"x\", \"app_tools\": [\"read_tuch\"]}",
     "bad.json:1:31: app_tools[0]: unknown application tool \"read_tuch\""},
};

START_TEST(bad_board_is_refused_at_its_position)
{
    ck_assert_str_eq(load_error(bad[_i].text), bad[_i].error);
}
END_TEST

/* A product's own application tool, registered as a product's simulator does. */
static fw_err_t product_tool_fn(fw_call_t *call)
{
    (void)call;
    return FW_OK;
}

static const fw_tool_t product_tool = {.name = "product_tool",
                                       .description = "a product's own tool",
                                       .handler = product_tool_fn};

START_TEST(registered_app_tools_are_found)
{
    static const char text[] = "{\"device\": \"x\", \"pins\": [], "
                               "\"app_tools\": [\"product_tool\", \"read_touch\"]}";
    /* Unknown until registered, */
    ck_assert_ptr_nonnull(strstr(load_error(text), "unknown application tool \"product_tool\""));
    /* then found before mcpsim's own catalog, which stays reachable. */
    static const fw_tool_t *const tools[] = {&product_tool, NULL};
    sim_register_app_tools(tools);
    sim_error_t err;
    sim_board_t *b = sim_board_load_text("product.json", text, strlen(text), &err);
    sim_register_app_tools(NULL);
    ck_assert_ptr_nonnull(b);
    const fw_board_t *f = sim_board_fw(b);
    ck_assert_ptr_eq(f->app_tools[0], &product_tool);
    ck_assert_ptr_eq(f->app_tools[1], &fw_app_read_touch);
    sim_board_free(b);
}
END_TEST

START_TEST(too_many_pins)
{
    char text[4096] = "{\"device\": \"x\", \"pins\": [";
    for (int i = 0; i <= FW_PINS_MAX; i++) {
        char pin[96];
        snprintf(pin, sizeof pin,
                 "%s\n{\"pin\": %d, \"name\": \"p%d\", \"type\": \"digital_input\"}", i ? "," : "",
                 i, i);
        strcat(text, pin);
    }
    strcat(text, "]}");
    ck_assert_str_eq(load_error(text), "bad.json:18:1: pins[16]: too many entries (at most 16)");
}
END_TEST

START_TEST(missing_file_names_it)
{
    sim_error_t err;
    ck_assert_ptr_null(sim_board_load("/nonexistent/board.json", &err));
    char text[600];
    sim_error_format(&err, text, sizeof text);
    ck_assert_str_eq(text, "/nonexistent/board.json: No such file or directory");
}
END_TEST

/* A CSV waveform is read relative to the board file; its errors name the CSV file and line. */
START_TEST(csv_waveform_errors_name_the_csv)
{
    char dir[64] = "/tmp/mcpsim-board-XXXXXX", path[128], csv[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/b.json", dir);
    snprintf(csv, sizeof csv, "%s/soil.csv", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"device\": \"x\", \"pins\": [{\"pin\": 36, \"name\": \"soil\", \"type\": "
          "\"adc_input\", \"waveform\": {\"type\": \"csv\", \"file\": \"soil.csv\"}}]}",
          f);
    fclose(f);
    f = fopen(csv, "w");
    fputs("t,v\n0,1.5\n10,wet\n", f);
    fclose(f);
    sim_error_t err;
    char text[700], expect[300];
    ck_assert_ptr_null(sim_board_load(path, &err));
    sim_error_format(&err, text, sizeof text);
    snprintf(expect, sizeof expect, "%s:3:4: value \"wet\" is not a number", csv);
    ck_assert_str_eq(text, expect);
    f = fopen(csv, "w");
    fputs("t,v\n0,1.5\n10,2.5\n", f);
    fclose(f);
    sim_board_t *b = sim_board_load(path, &err);
    ck_assert_ptr_nonnull(b);
    ck_assert_double_eq_tol(sim_waveform_value(b->hw[0].waveform, 5000), 2.0, 1e-9);
    sim_board_free(b);
    remove(csv);
    ck_assert_ptr_null(sim_board_load(path, &err)); /* the CSV is gone */
    sim_error_format(&err, text, sizeof text);
    ck_assert_msg(strstr(text, "b.json:1:111: pins[0].waveform.file: cannot read") != NULL, "%s",
                  text);
    remove(path);
    remove(dir);
}
END_TEST

START_TEST(defaults_and_firmware_view)
{
    const char *text = "{\"device\": \"mini\", \"pins\": [{\"pin\": 2, \"name\": \"led\", "
                       "\"type\": \"digital_output\"}]}";
    sim_error_t err;
    sim_board_t *b = sim_board_load_text("sub/dir/mini.json", text, strlen(text), &err);
    ck_assert_ptr_nonnull(b);
    const fw_board_t *f = sim_board_fw(b);
    ck_assert_str_eq(f->version, "1.0.0");
    ck_assert_str_eq(f->platform, "sim");
    ck_assert_uint_eq(f->adc_bits, 12);
    ck_assert_uint_eq(f->adc_ref_mv, 3300);
    ck_assert_uint_eq(f->adc_report, FW_ADC_REPORT_VOLTS);
    ck_assert_uint_eq(f->i2c_bus_count, 0);
    ck_assert_ptr_null(f->chips);
    ck_assert_ptr_eq(f->toolsets, fw_builtins);
    ck_assert_ptr_null(f->app_tools);
    ck_assert_uint_eq(f->sample_store_len, 0);
    ck_assert_ptr_null(f->sample_store);
    ck_assert_str_eq(f->pins[0].description, "");
    ck_assert_str_eq(b->dir, "sub/dir");
    sim_board_free(b);
}
END_TEST

/* What the loader cannot see, fw_device_init still refuses, and sim_create says so. */
START_TEST(firmware_refusal_is_reported)
{
    const char *text = "{\"device\": \"x\", \"pins\": [{\"pin\": 2, \"name\": \"led\", "
                       "\"type\": \"digital_output\"}]}";
    sim_error_t err;
    sim_board_t *b = sim_board_load_text("x.json", text, strlen(text), &err);
    ck_assert_ptr_nonnull(b);
    b->pins[0].type = FW_PIN_TYPE_COUNT;                        /* a board the core cannot accept */
    ck_assert_ptr_null(sim_create(b, SIM_CLOCK_VIRTUAL, &err)); /* and b is freed */
    char out[600];
    sim_error_format(&err, out, sizeof out);
    ck_assert_str_eq(out, "x.json: the firmware refused this board: fw_device_init failed: "
                          "invalid argument");
}
END_TEST

#if FW_MIN
/* A simulator built with the mcpu-min profile names what a board wants that the build left out,
   at the key that wants it. */
START_TEST(min_profile_refuses_sampling_and_i2c)
{
    char out[600];
    sim_error_t err;
    const char *sampled = "{\"device\": \"x\", \"pins\": [{\"pin\": 34, \"name\": \"s\", "
                          "\"type\": \"adc_input\", \"sampling\": {\"interval_ms\": 100}}]}";
    ck_assert_ptr_null(sim_board_load_text("x.json", sampled, strlen(sampled), &err));
    sim_error_format(&err, out, sizeof out);
    ck_assert_msg(strstr(out, "pins[0].sampling") && strstr(out, "FW_WITH_SAMPLING 0"), "%s", out);
    const char *i2c = "{\"device\": \"x\", \"pins\": [], \"i2c\": {\"buses\": 1}}";
    ck_assert_ptr_null(sim_board_load_text("x.json", i2c, strlen(i2c), &err));
    sim_error_format(&err, out, sizeof out);
    ck_assert_msg(strstr(out, "i2c") && strstr(out, "FW_WITH_I2C 0"), "%s", out);
}
END_TEST
#endif

/* The mcpu-min profile generates and loads only the boards it can run (uno-min): the tests of
   the other shipped boards and of board-file errors belong to the full profile. */
static Suite *board_suite(void)
{
    Suite *s = suite_create("board");
    TCase *ok = tcase_create("shipped");
    tcase_add_loop_test(ok, shipped_boards_load_and_boot, 0, (int)generated_count());
    tcase_add_loop_test(ok, generated_board_matches_the_loaded_one, 0, (int)generated_count());
    tcase_add_test(ok, uno_min_samples_nothing);
    tcase_add_test(ok, registered_app_tools_are_found);
#if !FW_MIN
    tcase_add_test(ok, every_board_file_is_generated);
    tcase_add_test(ok, uno_is_an_avr_profile);
    tcase_add_test(ok, esp32_demo_enables_its_app_tools);
    tcase_add_test(ok, greenhouse_has_i2c_chips_and_a_wire);
    tcase_add_test(ok, defaults_and_firmware_view);
#endif
    suite_add_tcase(s, ok);
    TCase *err = tcase_create("errors");
#if FW_MIN
    tcase_add_test(err, min_profile_refuses_sampling_and_i2c);
    /* compiled in every profile, registered in full only */
    (void)every_board_file_is_generated, (void)uno_is_an_avr_profile;
    (void)esp32_demo_enables_its_app_tools, (void)defaults_and_firmware_view;
    (void)bad_board_is_refused_at_its_position, (void)too_many_pins;
    (void)csv_waveform_errors_name_the_csv;
#else
    tcase_add_loop_test(err, bad_board_is_refused_at_its_position, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(err, too_many_pins);
    tcase_add_test(err, csv_waveform_errors_name_the_csv);
#endif
    tcase_add_test(err, missing_file_names_it);
    tcase_add_test(err, firmware_refusal_is_reported);
    suite_add_tcase(s, err);
    return s;
}

TEST_MAIN(board_suite)
