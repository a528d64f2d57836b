/* test_device.c: specification of the device instance (device.c) and the MCP/U methods (mcpu.c). */
#include <jansson.h>
#include <stdio.h>

#include "fw_device.h"
#include "fw_driver.h"
#include "fw_sampling.h"
#include "mock_hal.h"
#include "test_boards.h"
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

static const fw_pin_def_t pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "Onboard LED"},
    {.number = 4,
     .type = FW_PIN_DIGITAL_INPUT,
     .name = "button",
     .description = "Button",
#if FW_WITH_SAMPLING
     .sample_interval_ms = 50,
     .summary = true,
     .events = true
#endif
    },
    {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Fan"},
    {.number = 34,
     .type = FW_PIN_ADC_INPUT,
     .name = "sensor",
     .description = "Light sensor",
#if FW_WITH_SAMPLING
     .sample_interval_ms = 100,
     .buffer_size = 20,
     .summary = true,
     .buffer = true,
     .events = true,
#endif
     .threshold_high = 3000,
     .threshold_low = 1000},
    {.number = 35, .type = FW_PIN_ADC_INPUT, .name = "spare", .description = "Not sampled"},
};

#if FW_WITH_SAMPLING
static fw_sample_slot_t store[20]; /* the sensor's ring */
static const fw_board_t board = TEST_MOCK_BOARD_STORE("dev-test", "2.3.4", pins, store, 20);
#else
static const fw_board_t board = TEST_MOCK_BOARD("dev-test", "2.3.4", pins);
#endif

static fw_device_t dev;
static mock_hal_t hal;
static cap_t out;

static fw_err_t nop(fw_call_t *call)
{
    (void)call;
    return FW_OK;
}

static void setup(void)
{
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
}

static json_t *request(fw_device_t *d, const char *msg)
{
    json_error_t e;
    cap_reset(&out);
    ck_assert(fw_device_handle(d, msg, strlen(msg), cap_sink(&out)));
    json_t *j = json_loads(out.buf, 0, &e);
    ck_assert_msg(j != NULL, "%s: %s", e.text, out.buf);
    ck_assert_msg(json_object_get(j, "result") != NULL, "%s", out.buf);
    return j;
}

#define GET_INFO "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\"}"
#define LIST_TOOLS "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"}"
#define LIST_ALL                                                                                   \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\",\"params\":{\"with_user_tools\":"     \
    "true}}"

static json_t *tool_named(json_t *list, const char *name)
{
    json_t *tl = json_object_get(json_object_get(list, "result"), "tools");
    for (size_t i = 0; i < json_array_size(tl); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(tl, i), "name")), name) == 0)
            return json_array_get(tl, i);
    return NULL;
}

static void check_keys(json_t *obj, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n] != NULL; n++)
        ck_assert_msg(json_object_get(obj, keys[n]) != NULL, "%s", keys[n]);
    ck_assert_uint_eq(json_object_size(obj), n);
}

/* ---------------------------------------------------------------- init */

START_TEST(test_init_sets_pins)
{
    mock_hal_init(&hal);
    hal.pins[34].mode = HAL_PIN_INPUT_PULLUP; /* ADC and PWM pins are left as they are */
    hal.pins[18].mode = HAL_PIN_INPUT_PULLDOWN;
    hal.pins[4].mode = HAL_PIN_OUTPUT;
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
    ck_assert_int_eq(hal.pins[2].mode, HAL_PIN_OUTPUT);
    ck_assert_int_eq(hal.pins[4].mode, HAL_PIN_INPUT);
    ck_assert_int_eq(hal.pins[34].mode, HAL_PIN_INPUT_PULLUP);
    ck_assert_int_eq(hal.pins[18].mode, HAL_PIN_INPUT_PULLDOWN);
    for (size_t i = 0; i < FW_ARRAY_LEN(pins); i++)
        ck_assert_uint_eq(fw_device_pin_state(&dev, (uint8_t)i)->type, pins[i].type);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 0)->mode, HAL_PIN_OUTPUT);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 1)->mode, HAL_PIN_INPUT);
    ck_assert(!fw_device_pin_state(&dev, 0)->have_level); /* nothing driven or read yet */
}
END_TEST

START_TEST(test_init_registers_builtins)
{
    /* fw_builtins: every built-in of the build; in mcpu-min MCP/U's own tool set only */
    static const char *const present[] = {
        "gpio_write",
        "gpio_read",
        "pwm_write",
        "adc_read",
#if !FW_MIN
        "pin_mode",
        "system_info",
#endif
#if FW_WITH_SAMPLING
        "get_pin_summary",
        "get_pin_buffer",
        "get_pin_events"
#endif
    };
    for (size_t i = 0; i < FW_ARRAY_LEN(present); i++)
        ck_assert_msg(fw_device_find_tool(&dev, present[i]) != NULL, "%s", present[i]);
    ck_assert_uint_eq(fw_device_tool_count(&dev), FW_ARRAY_LEN(present));
    ck_assert_ptr_null(fw_device_find_tool(&dev, "i2c_scan")); /* no bus, no I2C tools */
    ck_assert_ptr_null(fw_device_find_tool(&dev, "read_temperature"));
    ck_assert_ptr_null(fw_device_find_tool(&dev, "get_info")); /* a core method, not a tool */
    ck_assert_ptr_null(fw_device_find_tool(&dev, "gpio"));
    ck_assert_str_eq(fw_device_find_tool(&dev, "adc_read")->name, "adc_read");
}
END_TEST

/* The built-ins are tool sets a board lists: none listed, none registered. */
START_TEST(test_init_registers_only_the_listed_toolsets)
{
    fw_board_t b = board;
    b.toolsets = NULL;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(fw_device_tool_count(&dev), 0);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "gpio_write"));
    static const fw_toolset_t *const gpio_only[] = {&fw_builtin_gpio, NULL};
    b.toolsets = gpio_only;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(fw_device_tool_count(&dev), fw_builtin_gpio.count);
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "gpio_read"));
    ck_assert_ptr_null(fw_device_find_tool(&dev, "pin_mode")); /* a set of its own */
    ck_assert_ptr_null(fw_device_find_tool(&dev, "adc_read"));
    ck_assert_ptr_null(fw_device_find_tool(&dev, "system_info"));
    /* a set listed twice registers a tool name twice: refused */
    static const fw_toolset_t *const twice[] = {&fw_builtin_gpio, &fw_builtin_gpio, NULL};
    b.toolsets = twice;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_ERR_EXISTS);
    /* in registration order: the sets, as listed */
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
    ck_assert_str_eq(fw_device_tool_at(&dev, 0)->name, fw_builtin_gpio.tools[0].name);
    ck_assert_ptr_null(fw_device_tool_at(&dev, fw_device_tool_count(&dev)));
}
END_TEST

#if FW_WITH_I2C
static const fw_at24c_config_t c24c02 = {.size_bytes = 256, .page_bytes = 8};
static const fw_chip_t two_sensors[] = {
    {.driver = &fw_driver_tmp102, .bus = 0, .addr = 0x48},
    {.driver = &fw_driver_tmp102, .bus = 0, .addr = 0x49},
    {.driver = &fw_driver_at24c, .bus = 1, .addr = 0x50, .config = &c24c02},
};

START_TEST(test_init_i2c_drivers_once)
{
    fw_board_t b = board;
    b.i2c_bus_count = 2;
    b.chips = two_sensors;
    b.chip_count = 3;
    b.toolsets = fw_builtins_i2c;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "i2c_scan"));
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "read_temperature"));
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "eeprom_read"));
    unsigned n = 0;
    for (size_t i = 0; i < fw_device_tool_count(&dev); i++)
        n += strcmp(fw_device_tool_at(&dev, i)->name, "read_temperature") == 0;
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(fw_device_i2c_buses(&dev), 2);
    ck_assert_ptr_eq(fw_device_chip(&dev, &fw_driver_tmp102, -1), &two_sensors[0]);
    ck_assert_ptr_eq(fw_device_chip(&dev, &fw_driver_tmp102, 0x49), &two_sensors[1]);
    ck_assert_ptr_null(fw_device_chip(&dev, &fw_driver_tmp102, 0x50));
    ck_assert_ptr_eq(fw_device_chip(&dev, &fw_driver_at24c, -1), &two_sensors[2]);
    static const fw_driver_t absent = {.name = "bme280"};
    ck_assert_ptr_null(fw_device_chip(&dev, &absent, -1));
    /* the drivers' tools come with the chips, the i2c_* tools with the tool set */
    b.toolsets = fw_builtins;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "i2c_scan"));
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "read_temperature"));
}
END_TEST
#endif

START_TEST(test_init_app_tools)
{
    ck_assert_int_eq(fw_device_init(&dev, test_board_esp32_demo(), &mock_hal_api, &hal), FW_OK);
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "read_touch"));
    ck_assert_ptr_nonnull(fw_device_find_tool(&dev, "calibrate_touch"));
}
END_TEST

/* ---------------------------------------------------------------- board refusals */

typedef struct bad_board {
    const char *what;
    fw_pin_def_t pin;  /* replaces pins[1] (the button) when name is set */
    uint8_t pin_count; /* replaces the pin count when non-zero */
    const fw_chip_t *chips;
    uint8_t chip_count, i2c_buses;
    const fw_tool_t *const *apps;
    int store_len; /* replaces the sample store's length when >= 0 */
    fw_err_t want;
} bad_board_t;

static fw_err_t nop_probe(fw_device_t *d, const fw_chip_t *c)
{
    (void)d, (void)c;
    return FW_OK;
}
static const fw_driver_t nameless = {.name = NULL, .probe = nop_probe};
static const fw_driver_t empty_name = {.name = "", .probe = nop_probe};
static const fw_driver_t tools_missing = {.name = "ghost", .tools = NULL, .tool_count = 2};
static const fw_driver_t plain = {.name = "plain"};
static const fw_chip_t null_driver[] = {{.driver = NULL, .bus = 0, .addr = 0x76}};
static const fw_chip_t nameless_driver[] = {{.driver = &nameless, .bus = 0, .addr = 0x76}};
static const fw_chip_t empty_driver_name[] = {{.driver = &empty_name, .bus = 0, .addr = 0x76}};
static const fw_chip_t driver_without_tools[] = {
    {.driver = &tools_missing, .bus = 0, .addr = 0x76}};
static const fw_chip_t bad_bus[] = {{.driver = &plain, .bus = 1, .addr = 0x48}};
static const fw_chip_t bad_addr[] = {{.driver = &plain, .bus = 0, .addr = 0x80}};
static const fw_chip_t same_addr[] = {{.driver = &plain, .bus = 0, .addr = 0x48},
                                      {.driver = &plain, .bus = 0, .addr = 0x48}};
static const fw_chip_t many[FW_I2C_DEVICES_MAX + 1] = {{.driver = &plain, .bus = 0, .addr = 0x48}};
static const fw_tool_t handlerless = {.name = "make_coffee", .description = "no handler"};
static const fw_tool_t second_gpio = {.name = "gpio_write", .handler = nop};
static const fw_tool_t *const broken_app[] = {&handlerless, NULL};
static const fw_tool_t *const clashing_app[] = {&second_gpio, NULL};

#define PIN_OK                                                                                     \
    {                                                                                              \
        .name = NULL                                                                               \
    }
/* What a board with a sampled pin gets: its flaw's error, or in a build without sampling the
   refusal of sampling itself. */
#define SAMPLED(err) (FW_WITH_SAMPLING ? (err) : FW_ERR_UNSUPPORTED)
static const bad_board_t bad_boards[] = {
    {"duplicate number", {.number = 2, .name = "button2"}, 0, NULL, 0, 0, NULL, -1, FW_ERR_ARG},
    {"duplicate name", {.number = 5, .name = "led"}, 0, NULL, 0, 0, NULL, -1, FW_ERR_ARG},
    {"empty name", {.number = 5, .name = ""}, 0, NULL, 0, 0, NULL, -1, FW_ERR_ARG},
    {"invalid type",
     {.number = 5, .name = "x", .type = FW_PIN_TYPE_COUNT},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     FW_ERR_ARG},
    {"buffer of 0",
     {.number = 5, .name = "x", .type = FW_PIN_ADC_INPUT, .sample_interval_ms = 10, .buffer = true},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     SAMPLED(FW_ERR_ARG)},
    {"buffer of 0, not sampled",
     {.number = 5, .name = "x", .type = FW_PIN_ADC_INPUT, .buffer = true},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     FW_ERR_ARG},
    {"buffer too big",
     {.number = 5,
      .name = "x",
      .type = FW_PIN_ADC_INPUT,
      .sample_interval_ms = 10,
      .buffer = true,
      .buffer_size = FW_SAMPLE_BUF_MAX + 1},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     SAMPLED(FW_ERR_NO_SPACE)},
    {"thresholds inverted",
     {.number = 5,
      .name = "x",
      .type = FW_PIN_ADC_INPUT,
      .sample_interval_ms = 10,
      .events = true,
      .threshold_high = 100,
      .threshold_low = 200},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     SAMPLED(FW_ERR_ARG)},
    {"too many pins", PIN_OK, FW_PINS_MAX + 1, NULL, 0, 0, NULL, -1, FW_ERR_NO_SPACE},
#if FW_WITH_SAMPLING
    {"sample store one slot short", PIN_OK, 0, NULL, 0, 0, NULL, 19, FW_ERR_NO_SPACE},
    {"no sample store", PIN_OK, 0, NULL, 0, 0, NULL, 0, FW_ERR_NO_SPACE},
#endif
    {"a second buffered pin without room",
     {.number = 5,
      .name = "x",
      .type = FW_PIN_DIGITAL_INPUT,
      .sample_interval_ms = 10,
      .buffer = true,
      .buffer_size = 1},
     0,
     NULL,
     0,
     0,
     NULL,
     -1,
     SAMPLED(FW_ERR_NO_SPACE)},
    {"no driver", PIN_OK, 0, null_driver, 1, 1, NULL, -1, FW_ERR_ARG},
    {"driver without name", PIN_OK, 0, nameless_driver, 1, 1, NULL, -1, FW_ERR_ARG},
    {"driver with an empty name", PIN_OK, 0, empty_driver_name, 1, 1, NULL, -1, FW_ERR_ARG},
    {"driver tools missing", PIN_OK, 0, driver_without_tools, 1, 1, NULL, -1, FW_ERR_ARG},
    {"bus out of range", PIN_OK, 0, bad_bus, 1, 1, NULL, -1, FW_ERR_ARG},
    {"chips without a bus", PIN_OK, 0, bad_bus, 1, 0, NULL, -1, FW_ERR_ARG},
    {"8-bit address", PIN_OK, 0, bad_addr, 1, 1, NULL, -1, FW_ERR_ARG},
    {"two chips at one address", PIN_OK, 0, same_addr, 2, 1, NULL, -1, FW_ERR_ARG},
    {"too many chips", PIN_OK, 0, many, FW_I2C_DEVICES_MAX + 1, 1, NULL, -1, FW_ERR_NO_SPACE},
    {"app tool without handler", PIN_OK, 0, NULL, 0, 0, broken_app, -1, FW_ERR_ARG},
    {"app tool named as a built-in", PIN_OK, 0, NULL, 0, 0, clashing_app, -1, FW_ERR_EXISTS},
};

START_TEST(test_board_refused)
{
    static fw_pin_def_t p[FW_PINS_MAX + 1];
    const bad_board_t *c = &bad_boards[_i];
    memset(p, 0, sizeof p);
    memcpy(p, pins, sizeof pins);
    for (size_t i = FW_ARRAY_LEN(pins); i < FW_ARRAY_LEN(p); i++) {
        static char names[FW_PINS_MAX + 1][8];
        snprintf(names[i], sizeof names[i], "p%zu", i);
        p[i] = (fw_pin_def_t){.number = (uint16_t)(40 + i), .name = names[i]};
    }
    if (c->pin.name != NULL) p[1] = c->pin;
    fw_board_t b = board;
    b.pins = p;
    if (c->pin_count) b.pin_count = c->pin_count;
    b.chips = c->chips;
    b.chip_count = c->chip_count;
    b.i2c_bus_count = c->i2c_buses;
    b.app_tools = c->apps;
    if (c->store_len >= 0) b.sample_store_len = (uint16_t)c->store_len;
#if !FW_WITH_I2C
    /* a build without I2C refuses every board with chips or buses, for that reason */
    if (c->chip_count > 0 || c->i2c_buses > 0) {
        ck_assert_msg(fw_device_init(&dev, &b, &mock_hal_api, &hal) == FW_ERR_UNSUPPORTED, "%s",
                      c->what);
        return;
    }
#endif
    ck_assert_msg(fw_device_init(&dev, &b, &mock_hal_api, &hal) == c->want, "%s", c->what);
    /* the same board with the flaw removed is fine: the refusal was for that flaw */
    if (c->pin.name != NULL) p[1] = pins[1];
    b.pin_count = board.pin_count;
    b.chip_count = 0;
    b.i2c_bus_count = 0;
    b.app_tools = NULL;
    b.sample_store_len = board.sample_store_len;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
}
END_TEST

START_TEST(test_board_null_name_and_args)
{
    fw_pin_def_t p[2] = {pins[0], {.number = 9, .name = NULL}};
    fw_board_t b = board;
    b.pins = p;
    b.pin_count = 2;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_ERR_ARG);
    b.pins = NULL;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_ERR_ARG);
    ck_assert_int_eq(fw_device_init(&dev, NULL, &mock_hal_api, &hal), FW_ERR_ARG);
    ck_assert_int_eq(fw_device_init(&dev, &board, NULL, &hal), FW_ERR_ARG);
    ck_assert_int_eq(fw_device_init(NULL, &board, &mock_hal_api, &hal), FW_ERR_ARG);
    b.pins = NULL; /* no pins at all is a (dull) valid board */
    b.pin_count = 0;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
}
END_TEST

START_TEST(test_init_hal_errors)
{
    mock_hal_init(&hal);
    hal.gpio_fail = FW_ERR_HW;
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_ERR_HW);
    hal_api_t no_gpio = mock_hal_api;
    no_gpio.gpio_mode = NULL;
    hal.gpio_fail = FW_OK;
    ck_assert_int_eq(fw_device_init(&dev, &board, &no_gpio, &hal), FW_ERR_UNSUPPORTED);
    /* a board without digital pins needs no gpio_mode */
    fw_board_t b = board;
    b.pins = &pins[3];
    b.pin_count = 2;
    ck_assert_int_eq(fw_device_init(&dev, &b, &no_gpio, &hal), FW_OK);
}
END_TEST

/* ---------------------------------------------------------------- add_tool */

static const fw_param_t one_param[] = {{.name = "a", .type = FW_PARAM_INTEGER}};
static const fw_param_t dup_params[] = {{.name = "a", .type = FW_PARAM_INTEGER},
                                        {.name = "a", .type = FW_PARAM_STRING}};
static const fw_param_t bad_type[] = {{.name = "a", .type = 99}};
static const fw_param_t unnamed[] = {{.name = "", .type = FW_PARAM_INTEGER}};
static const fw_param_t nine[FW_PARAMS_MAX + 1] = {{.name = "a"}};

START_TEST(test_add_tool_refusals)
{
    const fw_tool_t ok = {.name = "mine", .handler = nop, .params = one_param, .param_count = 1};
    fw_tool_t t;
    ck_assert_int_eq(fw_device_add_tool(&dev, NULL), FW_ERR_ARG);
    t = ok, t.name = NULL;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.name = "";
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.handler = NULL;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.params = nine, t.param_count = FW_PARAMS_MAX + 1;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.params = NULL;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.params = dup_params, t.param_count = 2;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.params = bad_type;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    t = ok, t.params = unnamed;
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_ARG);
    /* a parameter type the build left out; a NUMBER reaches its code through its descriptor */
#if FW_WITH_FLOAT
    static const fw_number_t unit_range = {0, 1, 0, &fw_number_ops};
    static const fw_param_t number[] = {
        {.name = "x", .type = FW_PARAM_NUMBER, .number = &unit_range}};
    static const fw_param_t number_without_ops[] = {{.name = "x", .type = FW_PARAM_NUMBER}};
    static const fw_tool_t no_ops = {
        .name = "no_ops", .handler = nop, .params = number_without_ops, .param_count = 1};
    ck_assert_int_eq(fw_device_add_tool(&dev, &no_ops), FW_ERR_ARG);
#else
    static const fw_param_t number[] = {{.name = "x", .type = FW_PARAM_NUMBER}};
#endif
    static const fw_param_t bytes[] = {{.name = "b", .type = FW_PARAM_BYTES}};
    static const fw_tool_t with_number = {
        .name = "with_number", .handler = nop, .params = number, .param_count = 1};
    static const fw_tool_t with_bytes = {
        .name = "with_bytes", .handler = nop, .params = bytes, .param_count = 1};
    ck_assert_int_eq(fw_device_add_tool(&dev, &with_number), FW_WITH_FLOAT ? FW_OK : FW_ERR_ARG);
    ck_assert_int_eq(fw_device_add_tool(&dev, &with_bytes),
                     FW_WITH_PARAM_BYTES ? FW_OK : FW_ERR_ARG);
    t = ok, t.name = "gpio_write";
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_EXISTS);
    t = ok, t.name = "get_info";
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_EXISTS);
    t = ok, t.name = "list_tools";
    ck_assert_int_eq(fw_device_add_tool(&dev, &t), FW_ERR_EXISTS);
    size_t before = fw_device_tool_count(&dev);
    ck_assert_int_eq(fw_device_add_tool(&dev, &ok), FW_OK);
    ck_assert_uint_eq(fw_device_tool_count(&dev), before + 1);
    ck_assert_ptr_eq(fw_device_tool_at(&dev, before), &ok);
    ck_assert_int_eq(fw_device_add_tool(&dev, &ok), FW_ERR_EXISTS);
    ck_assert_ptr_eq(fw_device_find_tool(&dev, "mine"), &ok);
}
END_TEST

START_TEST(test_add_tool_pool_full)
{
    static fw_tool_t extra[FW_TOOLS_MAX];
    static char names[FW_TOOLS_MAX][8];
    size_t room = FW_TOOLS_MAX - fw_device_tool_count(&dev);
    for (size_t i = 0; i <= room; i++) {
        snprintf(names[i], sizeof names[i], "x%zu", i);
        extra[i] = (fw_tool_t){.name = names[i], .handler = nop};
        ck_assert_int_eq(fw_device_add_tool(&dev, &extra[i]), i < room ? FW_OK : FW_ERR_NO_SPACE);
    }
    ck_assert_uint_eq(fw_device_tool_count(&dev), FW_TOOLS_MAX);
    ck_assert_ptr_null(fw_device_find_tool(&dev, names[room]));
}
END_TEST

/* ---------------------------------------------------------------- instances */

START_TEST(test_two_devices_independent)
{
    static fw_device_t d2;
    static mock_hal_t h2;
    static const fw_tool_t only_d2 = {.name = "only_d2", .handler = nop};
    mock_hal_init(&h2);
#if FW_WITH_I2C && FW_WITH_SAMPLING
    const fw_board_t *other = test_board_greenhouse_min();
    const char *other_tool = "i2c_scan";
#else
    const fw_board_t *other = test_board_esp32_demo();
    const char *other_tool = "read_touch";
#endif
    ck_assert_int_eq(fw_device_init(&d2, other, &mock_hal_api, &h2), FW_OK);
    ck_assert_int_eq(fw_device_add_tool(&d2, &only_d2), FW_OK);
    ck_assert_ptr_null(fw_device_find_tool(&dev, "only_d2"));
    ck_assert_ptr_null(fw_device_find_tool(&dev, other_tool));
    ck_assert_ptr_nonnull(fw_device_find_tool(&d2, other_tool));

    static const char w[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"gpio_write\",\"params\":{"
                            "\"pin\":2,\"value\":true}}";
    json_decref(request(&dev, w));
    ck_assert(hal.pins[2].level);
    ck_assert(!h2.pins[2].level);
    ck_assert_uint_eq(fw_device_counters(&dev)->requests, 1);
    ck_assert_uint_eq(fw_device_counters(&d2)->requests, 0);

    json_t *a = request(&dev, GET_INFO);
    json_t *b = request(&d2, GET_INFO);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(a, "result"), "device")),
                     "dev-test");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(b, "result"), "device")),
                     other->device);
    json_decref(a);
    json_decref(b);
    ck_assert_ptr_ne(fw_device_counters(&dev), fw_device_counters(&d2));
}
END_TEST

/* ---------------------------------------------------------------- get_info / list_tools */

START_TEST(test_get_info_shape)
{
    json_t *j = request(&dev, GET_INFO);
    json_t *r = json_object_get(j, "result");
    check_keys(r, (const char *const[]){"device", "version", "platform", "pin_count",
                                        "core_version", NULL});
    ck_assert_str_eq(json_string_value(json_object_get(r, "device")), "dev-test");
    ck_assert_str_eq(json_string_value(json_object_get(r, "version")), "2.3.4");
    ck_assert_str_eq(json_string_value(json_object_get(r, "platform")), "mock");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "pin_count")), 5);
    ck_assert_str_eq(json_string_value(json_object_get(r, "core_version")), FW_CORE_VERSION);
    json_decref(j);
}
END_TEST

START_TEST(test_list_tools_shape)
{
    json_t *j = request(&dev, LIST_TOOLS);
    json_t *r = json_object_get(j, "result");
    check_keys(r, (const char *const[]){"device", "version", "tools", "pins", "capabilities",
                                        "limits", NULL});
    ck_assert_str_eq(json_string_value(json_object_get(r, "device")), "dev-test");
    ck_assert_str_eq(json_string_value(json_object_get(r, "version")), "2.3.4");
    json_t *caps = json_object_get(r, "capabilities");
    check_keys(caps, (const char *const[]){"sampling", "events", "batch", NULL});
    ck_assert(json_is_true(json_object_get(caps, "batch")) == (FW_WITH_BATCH != 0));
    ck_assert(json_is_true(json_object_get(caps, "sampling")) == (FW_WITH_SAMPLING != 0));
    ck_assert(json_is_true(json_object_get(caps, "events")) == (FW_WITH_SAMPLING != 0));
    json_t *lim = json_object_get(r, "limits");
    check_keys(lim, (const char *const[]){"line_max", "batch_max", NULL});
    ck_assert_int_eq(json_integer_value(json_object_get(lim, "line_max")), FW_LINE_MAX);
    ck_assert_int_eq(json_integer_value(json_object_get(lim, "batch_max")),
                     FW_WITH_BATCH ? FW_BATCH_MAX : 1);
    json_t *tools = json_object_get(r, "tools");
    ck_assert_uint_eq(json_array_size(tools), fw_device_tool_count(&dev));
    for (size_t i = 0; i < json_array_size(tools); i++) {
        json_t *t = json_array_get(tools, i);
        const fw_tool_t *reg = fw_device_tool_at(&dev, i);
        ck_assert_str_eq(json_string_value(json_object_get(t, "name")), reg->name);
        ck_assert(json_is_string(json_object_get(t, "description")));
        ck_assert(json_is_object(json_object_get(t, "inputSchema")));
        ck_assert_ptr_null(json_object_get(t, "polling"));
        json_t *ro = json_object_get(t, "readOnly"), *de = json_object_get(t, "destructive");
        ck_assert(ro == NULL || json_is_true(ro)); /* present only when set */
        ck_assert(de == NULL || json_is_true(de));
        ck_assert_int_eq(ro != NULL, (reg->flags & FW_TOOL_READ_ONLY) != 0);
        ck_assert_int_eq(de != NULL, (reg->flags & FW_TOOL_DESTRUCTIVE) != 0);
    }
    ck_assert_ptr_null(tool_named(j, "get_info"));
    ck_assert_ptr_null(tool_named(j, "list_tools"));
    json_decref(j);
}
END_TEST

START_TEST(test_list_tools_pins)
{
    json_t *j = request(&dev, LIST_TOOLS);
    json_t *ps = json_object_get(json_object_get(j, "result"), "pins");
    ck_assert_uint_eq(json_array_size(ps), 5);
    json_t *led = json_array_get(ps, 0);
    check_keys(led, (const char *const[]){"pin", "name", "type", "description", NULL});
    ck_assert_int_eq(json_integer_value(json_object_get(led, "pin")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(led, "name")), "led");
    ck_assert_str_eq(json_string_value(json_object_get(led, "type")), "digital_output");
    ck_assert_str_eq(json_string_value(json_object_get(led, "description")), "Onboard LED");

#if FW_WITH_SAMPLING
    json_t *button = json_array_get(ps, 1); /* a sampled digital input: no thresholds */
    check_keys(button, (const char *const[]){"pin", "name", "type", "description", "capabilities",
                                             "sampling", NULL});
    json_t *caps = json_object_get(button, "capabilities");
    check_keys(caps, (const char *const[]){"summary", "buffer", "events", NULL});
    ck_assert(json_is_true(json_object_get(caps, "summary")));
    ck_assert(json_is_false(json_object_get(caps, "buffer")));
    ck_assert(json_is_true(json_object_get(caps, "events")));
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(button, "sampling"), "interval_ms")),
        50);

    json_t *sensor = json_array_get(ps, 3);
    check_keys(sensor, (const char *const[]){"pin", "name", "type", "description", "capabilities",
                                             "sampling", "thresholds", NULL});
    ck_assert_str_eq(json_string_value(json_object_get(sensor, "type")), "adc_input");
    json_t *s = json_object_get(sensor, "sampling");
    check_keys(s, (const char *const[]){"interval_ms", "buffer_size", NULL});
    ck_assert_int_eq(json_integer_value(json_object_get(s, "interval_ms")), 100);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "buffer_size")), 20);
    json_t *th = json_object_get(sensor, "thresholds");
    check_keys(th, (const char *const[]){"high", "low", NULL});
    ck_assert_int_eq(json_integer_value(json_object_get(th, "high")), 3000);
    ck_assert_int_eq(json_integer_value(json_object_get(th, "low")), 1000);
#else
    /* without sampling no pin has capabilities, sampling or thresholds */
    for (size_t i = 1; i < 4; i += 2)
        check_keys(json_array_get(ps, i),
                   (const char *const[]){"pin", "name", "type", "description", NULL});
#endif

    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ps, 2), "type")),
                     "pwm_output");
    check_keys(json_array_get(ps, 4), (const char *const[]){"pin", "name", "type", "description",
                                                            NULL}); /* ADC, not sampled */
    json_decref(j);

    /* as pin_mode does it: the current type is listed */
    fw_device_pin_note_mode(&dev, 0, HAL_PIN_INPUT);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 0)->type, FW_PIN_DIGITAL_INPUT);
    j = request(&dev, LIST_TOOLS);
    ps = json_object_get(json_object_get(j, "result"), "pins");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(ps, 0), "type")),
                     "digital_input");
    json_decref(j);
}
END_TEST

static const fw_tool_t flagged[] = {
    {.name = "polled", .description = "polled", .poll_ms = 2000, .handler = nop},
    {.name = "hidden", .description = "for the user", .flags = FW_TOOL_USER_ONLY, .handler = nop},
    {.name = "wipe", .description = "destroys", .flags = FW_TOOL_DESTRUCTIVE, .handler = nop},
};

START_TEST(test_list_tools_flags_and_polling)
{
    for (size_t i = 0; i < FW_ARRAY_LEN(flagged); i++)
        ck_assert_int_eq(fw_device_add_tool(&dev, &flagged[i]), FW_OK);
    json_t *j = request(&dev, LIST_TOOLS);
    json_t *p = tool_named(j, "polled");
    check_keys(p, (const char *const[]){"name", "description", "inputSchema", "polling", NULL});
    json_t *pol = json_object_get(p, "polling");
    check_keys(pol, (const char *const[]){"enabled", "interval_ms", NULL});
    ck_assert(json_is_true(json_object_get(pol, "enabled")));
    ck_assert_int_eq(json_integer_value(json_object_get(pol, "interval_ms")), 2000);
    check_keys(tool_named(j, "wipe"),
               (const char *const[]){"name", "description", "inputSchema", "destructive", NULL});
    ck_assert_ptr_null(tool_named(j, "hidden")); /* user-only: hidden by default */
    json_decref(j);

    j = request(&dev, LIST_ALL);
    ck_assert_ptr_nonnull(tool_named(j, "hidden"));
    json_decref(j);
    j = request(&dev, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\","
                      "\"params\":{\"with_user_tools\":false}}");
    ck_assert_ptr_null(tool_named(j, "hidden"));
    json_decref(j);
    /* hidden from the listing, yet callable by name */
    json_decref(request(&dev, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hidden\"}"));
}
END_TEST

START_TEST(test_list_tools_user_only_app)
{
    ck_assert_int_eq(fw_device_init(&dev, test_board_esp32_demo(), &mock_hal_api, &hal), FW_OK);
    json_t *j = request(&dev, LIST_TOOLS);
    ck_assert_ptr_null(tool_named(j, "calibrate_touch"));
    json_t *touch = tool_named(j, "read_touch");
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(touch, "polling"), "interval_ms")),
        2000);
    json_decref(j);
    j = request(&dev, LIST_ALL);
    ck_assert_ptr_nonnull(tool_named(j, "calibrate_touch"));
    json_decref(j);
}
END_TEST

START_TEST(test_list_tools_omit_schemas)
{
    fw_board_t b = board;
    b.omit_schemas = true;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    json_t *j = request(&dev, LIST_ALL);
    json_t *tools = json_object_get(json_object_get(j, "result"), "tools");
    ck_assert_uint_gt(json_array_size(tools), 0);
    for (size_t i = 0; i < json_array_size(tools); i++) {
        json_t *t = json_array_get(tools, i);
        ck_assert_ptr_null(json_object_get(t, "inputSchema"));
        ck_assert_ptr_nonnull(json_object_get(t, "name"));
        ck_assert_ptr_nonnull(json_object_get(t, "description"));
    }
    json_decref(j);
    /* the descriptors still validate calls */
    cap_reset(&out);
    static const char bad[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"gpio_write\",\"params\":{\"pin\":2}}";
    fw_device_handle(&dev, bad, strlen(bad), cap_sink(&out));
    ck_assert_ptr_nonnull(strstr(out.buf, "-32602"));
}
END_TEST

START_TEST(test_list_tools_params_validated)
{
    static const char bad[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\","
                              "\"params\":{\"with_user_tools\":1}}";
    cap_reset(&out);
    fw_device_handle(&dev, bad, strlen(bad), cap_sink(&out));
    ck_assert_ptr_nonnull(strstr(out.buf, "\"code\":-32602"));
    static const char extra[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"get_info\",\"params\":{\"x\":1}}";
    cap_reset(&out);
    fw_device_handle(&dev, extra, strlen(extra), cap_sink(&out));
    ck_assert_ptr_nonnull(strstr(out.buf, "unknown parameter"));
}
END_TEST

/* ---------------------------------------------------------------- time and sampling */

START_TEST(test_next_deadline_and_poll)
{
#if !FW_WITH_SAMPLING
    ck_assert_uint_eq(fw_device_next_deadline(&dev), UINT64_MAX); /* nothing is ever sampled */
    hal.now = 1000;
    fw_device_poll(&dev);
    ck_assert_uint_eq(hal.pins[34].adc_reads + hal.pins[4].reads, 0);
    return;
#endif
    /* sampled pins: button every 50 ms, sensor every 100 ms, from init at t = 0 */
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 50);
    hal.now = 50;
    fw_device_poll(&dev);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 100);
    hal.now = 100;
    fw_device_poll(&dev);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), 150);
#if FW_WITH_SAMPLING
    ck_assert_uint_eq(fw_sampling_state(&dev, 3)->count, 1); /* the sensor was sampled once */
#endif

    fw_board_t b = board;
    b.pins = pins;
    b.pin_count = 1; /* the LED only: nothing sampled */
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), UINT64_MAX);
}
END_TEST

START_TEST(test_boot_time_from_hal)
{
    mock_hal_init(&hal);
    hal.now = 5000;
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
    ck_assert_uint_eq(fw_device_uptime_ms(&dev), 0);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), FW_WITH_SAMPLING ? 5050 : UINT64_MAX);
    hal.now = 5123;
    ck_assert_uint_eq(fw_device_uptime_ms(&dev), 123);
    hal.now = 4000; /* a clock that went back gives 0, not a huge uptime */
    ck_assert_uint_eq(fw_device_uptime_ms(&dev), 0);
}
END_TEST

/* ---------------------------------------------------------------- helpers */

/* A tool that names the pin its PIN argument resolved to: the registry's lookup by name. */
static fw_err_t which_pin(fw_call_t *call)
{
    fw_jw_kv_i64(fw_call_result(call), "index", fw_call_arg(call, "pin")->pin_index);
    return FW_OK;
}
static const fw_param_t which_params[] = {{.name = "pin", .type = FW_PARAM_PIN, .required = true}};
static const fw_tool_t which_tool = {
    .name = "which_pin", .params = which_params, .param_count = 1, .handler = which_pin};

/* Index of the pin `name` names (as a string argument), or -1 when the call is refused. */
static int lookup_name(const char *name)
{
    char msg[160];
    snprintf(msg, sizeof msg,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"which_pin\",\"params\":{\"pin\":\"%s\"}}",
             name);
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, msg, strlen(msg), cap_sink(&out)));
    json_t *j = json_loads(out.buf, 0, NULL);
    ck_assert_ptr_nonnull(j);
    json_t *r = json_object_get(j, "result");
    int idx = r != NULL ? (int)json_integer_value(json_object_get(r, "index")) : -1;
    if (r == NULL)
        ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "error"), "code")),
                         FW_RPC_INVALID_PARAMS);
    json_decref(j);
    return idx;
}

START_TEST(test_pin_registry_lookups)
{
    ck_assert_int_eq(fw_device_pin_index(&dev, 2), 0);
    ck_assert_int_eq(fw_device_pin_index(&dev, 35), 4);
    ck_assert_int_eq(fw_device_pin_index(&dev, 3), -1);
    ck_assert_int_eq(fw_device_add_tool(&dev, &which_tool), FW_OK);
    ck_assert_int_eq(lookup_name("sensor"), 3);
    ck_assert_int_eq(lookup_name("34"), 3); /* digits name a pin number */
    ck_assert_int_eq(lookup_name("034"), 3);
    ck_assert_int_eq(lookup_name("99"), -1);
    ck_assert_int_eq(lookup_name("3 4"), -1);
    ck_assert_int_eq(lookup_name("Sensor"), -1);
    ck_assert_int_eq(lookup_name(""), -1);
    ck_assert_int_eq(lookup_name("99999999"), -1);
    ck_assert_ptr_eq(fw_device_board(&dev), &board);
    ck_assert_str_eq(fw_pin_type_name(FW_PIN_DIGITAL_OUTPUT), "digital_output");
    ck_assert_str_eq(fw_pin_type_name(FW_PIN_DIGITAL_INPUT), "digital_input");
    ck_assert_str_eq(fw_pin_type_name(FW_PIN_PWM_OUTPUT), "pwm_output");
    ck_assert_str_eq(fw_pin_type_name(FW_PIN_ADC_INPUT), "adc_input");
    ck_assert_ptr_null(fw_pin_type_name(FW_PIN_TYPE_COUNT));
}
END_TEST

/* What a tool tells the core about its pins is what the core shows. */
START_TEST(test_pin_notes)
{
    fw_device_pin_note_level(&dev, 0, true);
    ck_assert(fw_device_pin_state(&dev, 0)->have_level);
    ck_assert(fw_device_pin_state(&dev, 0)->level);
    fw_device_pin_note_duty(&dev, 2, 128);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 2)->duty, 128);
    fw_device_pin_note_mode(&dev, 0, HAL_PIN_INPUT_PULLUP); /* forgets the level */
    ck_assert_uint_eq(fw_device_pin_state(&dev, 0)->mode, HAL_PIN_INPUT_PULLUP);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 0)->type, FW_PIN_DIGITAL_INPUT);
    ck_assert(!fw_device_pin_state(&dev, 0)->have_level);
    fw_device_pin_note_mode(&dev, 0, HAL_PIN_OUTPUT);
    ck_assert_uint_eq(fw_device_pin_state(&dev, 0)->type, FW_PIN_DIGITAL_OUTPUT);
}
END_TEST

START_TEST(test_scratch)
{
    /* a fresh device has its whole scratch */
    uint8_t *a = fw_scratch_alloc(&dev, 3);
    uint8_t *b = fw_scratch_alloc(&dev, 5);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)a % 8, 0);
    ck_assert_uint_eq((uintptr_t)b % 8, 0);
    ck_assert_ptr_eq(b, a + 8);
    ck_assert_ptr_null(fw_scratch_alloc(&dev, FW_SCRATCH_SIZE));
    /* the largest block still granted is all that is left, right after b */
    size_t rest = FW_SCRATCH_SIZE;
    uint8_t *c = NULL;
    while (rest > 0 && (c = fw_scratch_alloc(&dev, rest)) == NULL) rest--;
    ck_assert_ptr_eq(c, b + 8);
    ck_assert_uint_le(rest, FW_SCRATCH_SIZE - 16);
    ck_assert_uint_ge(rest, FW_SCRATCH_SIZE - 16 - 7); /* less at most the first alignment */
    ck_assert_ptr_null(fw_scratch_alloc(&dev, 1));
    ck_assert_ptr_null(fw_scratch_alloc(&dev, SIZE_MAX)); /* no overflow in the arithmetic */
    setup(); /* a new start (and every request) begins with an empty scratch */
    ck_assert_ptr_nonnull(fw_scratch_alloc(&dev, FW_SCRATCH_SIZE - 8));
}
END_TEST

START_TEST(test_hal_wrappers)
{
    hal.now = 77;
    ck_assert_uint_eq(fw_hal_now(&dev), 77);
    bool level = false;
    uint16_t raw = 0;
    hal.pins[34].adc = 1234;
    ck_assert_int_eq(fw_hal_adc_read(&dev, 34, &raw), FW_OK);
    ck_assert_uint_eq(raw, 1234);
    ck_assert_int_eq(fw_hal_gpio_write(&dev, 2, true), FW_OK);
    ck_assert_int_eq(fw_hal_gpio_read(&dev, 2, &level), FW_OK);
    ck_assert(level);
    ck_assert_int_eq(fw_hal_pwm_write(&dev, 18, 9, 100), FW_OK);
    ck_assert_uint_eq(hal.pins[18].duty, 9);
    hal_device_info_t info;
    ck_assert_int_eq(fw_hal_device_info(&dev, &info), FW_OK);
    ck_assert_str_eq(info.chip, "mock");
#if FW_WITH_I2C
    ck_assert_int_eq(fw_i2c_transfer(&dev, 0, 0x48, NULL, 0, NULL, 0), FW_ERR_I2C_NACK);
#endif
    /* a port that implements nothing: every wrapper says so (a board without pins needs no
       HAL function to start) */
    static const hal_api_t empty;
    static const fw_board_t bare = {.device = "bare", .version = "0", .platform = "none"};
    ck_assert_int_eq(fw_device_init(&dev, &bare, &empty, &hal), FW_OK);
    ck_assert_uint_eq(fw_hal_now(&dev), 0);
    ck_assert_int_eq(fw_hal_gpio_mode(&dev, 2, HAL_PIN_OUTPUT), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_hal_gpio_write(&dev, 2, true), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_hal_gpio_read(&dev, 2, &level), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_hal_pwm_write(&dev, 18, 1, 0), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_hal_adc_read(&dev, 34, &raw), FW_ERR_UNSUPPORTED);
    ck_assert_int_eq(fw_hal_device_info(&dev, &info), FW_ERR_UNSUPPORTED);
#if FW_WITH_I2C
    ck_assert_int_eq(fw_i2c_transfer(&dev, 0, 0x48, NULL, 0, NULL, 0), FW_ERR_UNSUPPORTED);
#endif
    /* a HAL without a clock still initialises (time stands at 0) */
    ck_assert_int_eq(
        fw_device_init(&dev, &board, &(hal_api_t){.gpio_mode = mock_hal_api.gpio_mode}, &hal),
        FW_OK);
    ck_assert_uint_eq(fw_device_next_deadline(&dev), FW_WITH_SAMPLING ? 50 : UINT64_MAX);
}
END_TEST

/* ---------------------------------------------------------------- suite */

static Suite *device_suite(void)
{
    Suite *s = suite_create("device");
    TCase *i = tcase_create("init");
    tcase_add_checked_fixture(i, setup, NULL);
    tcase_add_test(i, test_init_sets_pins);
    tcase_add_test(i, test_init_registers_builtins);
    tcase_add_test(i, test_init_registers_only_the_listed_toolsets);
#if FW_WITH_I2C
    tcase_add_test(i, test_init_i2c_drivers_once);
#endif
    tcase_add_test(i, test_init_app_tools);
    tcase_add_loop_test(i, test_board_refused, 0, (int)FW_ARRAY_LEN(bad_boards));
    tcase_add_test(i, test_board_null_name_and_args);
    tcase_add_test(i, test_init_hal_errors);
    tcase_add_test(i, test_add_tool_refusals);
    tcase_add_test(i, test_add_tool_pool_full);
    tcase_add_test(i, test_two_devices_independent);
    suite_add_tcase(s, i);

    TCase *m = tcase_create("methods");
    tcase_add_checked_fixture(m, setup, NULL);
    tcase_add_test(m, test_get_info_shape);
    tcase_add_test(m, test_list_tools_shape);
    tcase_add_test(m, test_list_tools_pins);
    tcase_add_test(m, test_list_tools_flags_and_polling);
    tcase_add_test(m, test_list_tools_user_only_app);
    tcase_add_test(m, test_list_tools_omit_schemas);
    tcase_add_test(m, test_list_tools_params_validated);
    suite_add_tcase(s, m);

    TCase *h = tcase_create("helpers");
    tcase_add_checked_fixture(h, setup, NULL);
    tcase_add_test(h, test_next_deadline_and_poll);
    tcase_add_test(h, test_boot_time_from_hal);
    tcase_add_test(h, test_pin_registry_lookups);
    tcase_add_test(h, test_pin_notes);
    tcase_add_test(h, test_scratch);
    tcase_add_test(h, test_hal_wrappers);
    suite_add_tcase(s, h);
    return s;
}

TEST_MAIN(device_suite)
