/* greenhouse_min.c: a minimal greenhouse controller with an I2C bus, as a const board. */
#include "boards.h"

static const fw_pin_def_t greenhouse_pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "status_led", .description = "Status LED"},
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

static const fw_i2c_dev_def_t greenhouse_i2c[] = {
    {.driver = "tmp102", .bus = 0, .addr = 0x48},
    {.driver = "at24c", .bus = 0, .addr = 0x50, .size_bytes = 4096, .page_bytes = 32},
};

const fw_board_t fw_board_greenhouse_min = {
    .device = "greenhouse-min",
    .version = "1.0.0",
    .platform = "bare-metal",
    .pins = greenhouse_pins,
    .pin_count = sizeof greenhouse_pins / sizeof greenhouse_pins[0],
    .adc_bits = 12,
    .adc_ref_mv = 3300,
    .adc_report = FW_ADC_REPORT_VOLTS,
    .i2c_bus_count = 1,
    .i2c_devices = greenhouse_i2c,
    .i2c_device_count = sizeof greenhouse_i2c / sizeof greenhouse_i2c[0],
};
