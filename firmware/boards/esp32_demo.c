/* esp32_demo.c: MCP/U's reference device "esp32-demo" as a const board. */
#include "boards.h"

/* As MCP/U's reference firmware registers them: get_info reports pin_count 3. */
static const fw_pin_def_t esp32_demo_pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "Onboard LED"},
    {.number = 34,
     .type = FW_PIN_ADC_INPUT,
     .name = "sensor",
     .description = "Analog Sensor",
     .sample_interval_ms = 500,
     .buffer_size = 20,
     .summary = true,
     .buffer = true,
     .events = false},
    {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "led_pwm", .description = "PWM LED"},
};

static const char *const esp32_demo_apps[] = {"read_touch", "calibrate_touch", NULL};

const fw_board_t fw_board_esp32_demo = {
    .device = "esp32-demo",
    .version = "1.0.0",
    .platform = "arduino",
    .pins = esp32_demo_pins,
    .pin_count = sizeof esp32_demo_pins / sizeof esp32_demo_pins[0],
    .adc_bits = 12,
    .adc_ref_mv = 3300,
    .adc_report = FW_ADC_REPORT_VOLTS,
    .app_tools = esp32_demo_apps,
};
