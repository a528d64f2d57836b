/* test_boards.h: the boards the tests share: the shipped esp32-demo as generated from its JSON
   (sim/boards/, never written here again), the greenhouse-min test fixture (a small board with
   both I2C chips) and a mock-board shorthand. Each board is behind a function so that a test
   program that does not use one pays nothing and gets no unused-variable warning. */
#ifndef TEST_BOARDS_H
#define TEST_BOARDS_H

#include "apps.h"
#include "fw_builtins.h"
#include "fw_device.h"
#if FW_WITH_I2C
#include "at24c.h"
#include "tmp102.h"
#endif

/* A mock-platform board with a 12-bit, 3.3 V ADC over the pin table pin_defs, with every
   built-in tool set; store: its sample rings (NULL when no pin buffers). */
#define TEST_MOCK_BOARD_STORE(name, ver, pin_defs, store, store_len)                               \
    {                                                                                              \
        .device = (name), .version = (ver), .platform = "mock", .pins = (pin_defs),                \
        .pin_count = FW_ARRAY_LEN(pin_defs), .adc_bits = 12, .adc_ref_mv = 3300,                   \
        .toolsets = fw_builtins, .sample_store = (store), .sample_store_len = (store_len)          \
    }
#define TEST_MOCK_BOARD(name, ver, pin_defs) TEST_MOCK_BOARD_STORE(name, ver, pin_defs, NULL, 0)

#if FW_WITH_SAMPLING
#include "board_esp32_demo.h"

/* MCP/U's reference device as the port compiles it: generated from sim/boards/esp32-demo.json
   (LED on 2, an analog sensor on 34 sampled every 500 ms into a 20-sample ring, a PWM LED on 18,
   the touch tools of apps/demo.c; get_info reports pin_count 3). */
static inline const fw_board_t *test_board_esp32_demo(void)
{
    return &fw_board_esp32_demo;
}
#else
/* The esp32-demo's pins and tools without its sampling (the shipped board samples, which a
   build without sampling refuses): a test fixture, not the product's board. */
static inline const fw_board_t *test_board_esp32_demo(void)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "Onboard LED"},
        {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .description = "Analog Sensor"},
        {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "led_pwm", .description = "PWM LED"},
    };
    static const fw_tool_t *const apps[] = {&fw_app_read_touch, &fw_app_calibrate_touch, NULL};
    static const fw_board_t board = {
        .device = "esp32-demo",
        .version = "1.0.0",
        .platform = "arduino",
        .pins = pins,
        .pin_count = FW_ARRAY_LEN(pins),
        .adc_bits = 12,
        .adc_ref_mv = 3300,
        .adc_report = FW_ADC_REPORT_VOLTS,
        .toolsets = fw_builtins,
        .app_tools = apps,
    };
    return &board;
}
#endif

#if !(FW_WITH_I2C && FW_WITH_SAMPLING)
/* The greenhouse-min's identity and pins (soil unsampled), without its chips: what a build
   without I2C or sampling can carry of it. No tool sets. */
static inline const fw_board_t *test_board_greenhouse_min_pins(void)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2,
         .type = FW_PIN_DIGITAL_OUTPUT,
         .name = "status_led",
         .description = "Status LED"},
        {.number = 5, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Ventilation fan"},
        {.number = 36, .type = FW_PIN_ADC_INPUT, .name = "soil", .description = "Soil moisture"},
    };
    static const fw_board_t board = {
        .device = "greenhouse-min",
        .version = "1.0.0",
        .platform = "bare-metal",
        .pins = pins,
        .pin_count = FW_ARRAY_LEN(pins),
        .adc_bits = 12,
        .adc_ref_mv = 3300,
        .adc_report = FW_ADC_REPORT_VOLTS,
    };
    return &board;
}
#endif

#if FW_WITH_I2C && FW_WITH_SAMPLING
/* A minimal greenhouse controller with an I2C bus: status LED on 2, fan (PWM) on 5, a soil
   moisture ADC on 36 sampled every second into a 10-sample ring; a TMP102 at 0x48 and a 24C32
   EEPROM (4096 bytes, 32-byte pages) at 0x50 on bus 0. */
static inline const fw_board_t *test_board_greenhouse_min(void)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2,
         .type = FW_PIN_DIGITAL_OUTPUT,
         .name = "status_led",
         .description = "Status LED"},
        {.number = 5, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Ventilation fan"},
        {.number = 36,
         .type = FW_PIN_ADC_INPUT,
         .name = "soil",
         .description = "Soil moisture",
         .sample_interval_ms = 1000,
         .buffer_size = 10,
         .summary = true,
         .buffer = true},
    };
    static const fw_at24c_config_t eeprom = {.size_bytes = 4096, .page_bytes = 32};
    static const fw_chip_t chips[] = {
        {.driver = &fw_driver_tmp102, .bus = 0, .addr = 0x48},
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &eeprom},
    };
    static fw_sample_slot_t store[10];
    static const fw_board_t board = {
        .device = "greenhouse-min",
        .version = "1.0.0",
        .platform = "bare-metal",
        .pins = pins,
        .pin_count = FW_ARRAY_LEN(pins),
        .adc_bits = 12,
        .adc_ref_mv = 3300,
        .adc_report = FW_ADC_REPORT_VOLTS,
        .i2c_bus_count = 1,
        .chips = chips,
        .chip_count = FW_ARRAY_LEN(chips),
        .toolsets = fw_builtins_i2c,
        .sample_store = store,
        .sample_store_len = FW_ARRAY_LEN(store),
    };
    return &board;
}
#endif

#endif
