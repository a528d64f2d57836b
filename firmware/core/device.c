/* device.c: the device instance: board validation, tools, pin registry, scratch, HAL access. */
#include <stdint.h>
#include <string.h>

#include "fw_internal.h"

/* ---------------------------------------------------------------- pin registry */

static const char *const pin_type_names[FW_PIN_TYPE_COUNT] = {"digital_output", "digital_input",
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
        if (strcmp(dev->board->pins[i].name, name) == 0) return i;
    uint32_t number = 0;
    size_t n = 0;
    for (; n < 5 && name[n] >= '0' && name[n] <= '9'; n++)
        number = number * 10 + (uint32_t)(name[n] - '0');
    if (n == 0 || name[n] != 0 || number > UINT16_MAX) return -1;
    return fw_device_pin_index(dev, (uint16_t)number);
}

const fw_i2c_dev_def_t *fw_board_i2c_find(const fw_board_t *board, const char *driver, int addr)
{
    for (size_t i = 0; i < board->i2c_device_count; i++) {
        const fw_i2c_dev_def_t *d = &board->i2c_devices[i];
        if (strcmp(d->driver, driver) == 0 && (addr < 0 || addr == d->addr)) return d;
    }
    return NULL;
}

/* ---------------------------------------------------------------- board validation */

static bool nonempty(const char *s)
{
    return s != NULL && s[0] != 0;
}

static fw_err_t check_pin(const fw_pin_def_t *p)
{
    if (!nonempty(p->name) || p->type >= FW_PIN_TYPE_COUNT) return FW_ERR_ARG;
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
                strcmp(b->pins[j].name, b->pins[i].name) == 0)
                return FW_ERR_ARG;
    }
    return FW_OK;
}

static const fw_toolset_t *const drivers[] = {&fw_driver_tmp102, &fw_driver_at24c};

static const fw_toolset_t *driver_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < FW_ARRAY_LEN(drivers); i++)
        if (strcmp(drivers[i]->name, name) == 0) return drivers[i];
    return NULL;
}

static fw_err_t check_i2c(const fw_board_t *b)
{
    if (b->i2c_device_count > FW_I2C_DEVICES_MAX) return FW_ERR_NO_SPACE;
    if (b->i2c_device_count > 0 && b->i2c_devices == NULL) return FW_ERR_ARG;
    for (size_t i = 0; i < b->i2c_device_count; i++) {
        const fw_i2c_dev_def_t *d = &b->i2c_devices[i];
        if (driver_find(d->driver) == NULL || d->bus >= b->i2c_bus_count || d->addr > 0x7f)
            return FW_ERR_ARG;
        for (size_t j = 0; j < i; j++)
            if (b->i2c_devices[j].bus == d->bus && b->i2c_devices[j].addr == d->addr)
                return FW_ERR_ARG;
    }
    return FW_OK;
}

static fw_err_t check_apps(const fw_board_t *b)
{
    for (size_t i = 0; b->app_tools != NULL && b->app_tools[i] != NULL; i++)
        if (fw_app_tool_find(b->app_tools[i]) == NULL) return FW_ERR_ARG;
    return FW_OK;
}

static fw_err_t check_board(const fw_board_t *b)
{
    fw_err_t err = check_pins(b);
    if (err == FW_OK) err = check_i2c(b);
    if (err == FW_OK) err = check_apps(b);
    return err;
}

/* ---------------------------------------------------------------- tool registry */

static bool is_core_method(const char *name)
{
    for (size_t i = 0; i < fw_mcpu_method_count; i++)
        if (strcmp(fw_mcpu_methods[i].name, name) == 0) return true;
    return fw_mcp_method_named(name);
}

static bool params_valid(const fw_tool_t *tool)
{
    if (tool->param_count > FW_PARAMS_MAX) return false;
    if (tool->param_count > 0 && tool->params == NULL) return false;
    for (size_t i = 0; i < tool->param_count; i++) {
        const fw_param_t *p = &tool->params[i];
        if (!nonempty(p->name) || p->type > FW_PARAM_BYTES) return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(tool->params[j].name, p->name) == 0) return false;
    }
    return true;
}

fw_err_t fw_device_add_tool(fw_device_t *dev, const fw_tool_t *tool)
{
    if (dev == NULL || tool == NULL || !nonempty(tool->name) || tool->handler == NULL ||
        !params_valid(tool))
        return FW_ERR_ARG;
    if (fw_device_find_tool(dev, tool->name) != NULL || is_core_method(tool->name))
        return FW_ERR_EXISTS;
    if (dev->tool_count >= FW_TOOLS_MAX) return FW_ERR_NO_SPACE;
    dev->tools[dev->tool_count++] = tool;
    return FW_OK;
}

const fw_tool_t *fw_device_find_tool(const fw_device_t *dev, const char *name)
{
    for (size_t i = 0; i < dev->tool_count; i++)
        if (strcmp(dev->tools[i]->name, name) == 0) return dev->tools[i];
    return NULL;
}

static fw_err_t add_toolset(fw_device_t *dev, const fw_toolset_t *set)
{
    for (size_t i = 0; i < set->count; i++) {
        fw_err_t err = fw_device_add_tool(dev, &set->tools[i]);
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

/* Every board gets these; fw_builtin_i2c joins them when the board has a bus. */
static const fw_toolset_t *const builtin_sets[] = {
    &fw_builtin_gpio, &fw_builtin_pwm, &fw_builtin_adc, &fw_builtin_pins, &fw_builtin_system};

static fw_err_t add_builtins(fw_device_t *dev)
{
    fw_err_t err = FW_OK;
    for (size_t i = 0; err == FW_OK && i < FW_ARRAY_LEN(builtin_sets); i++)
        err = add_toolset(dev, builtin_sets[i]);
    if (err == FW_OK && dev->board->i2c_bus_count > 0) err = add_toolset(dev, &fw_builtin_i2c);
    return err;
}

/* A driver's tools are registered once, however many of its chips the board carries. */
static fw_err_t add_drivers(fw_device_t *dev)
{
    const fw_board_t *b = dev->board;
    for (size_t i = 0; i < b->i2c_device_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(b->i2c_devices[j].driver, b->i2c_devices[i].driver) == 0;
        fw_err_t err = seen ? FW_OK : add_toolset(dev, driver_find(b->i2c_devices[i].driver));
        if (err != FW_OK) return err;
    }
    return FW_OK;
}

static fw_err_t add_apps(fw_device_t *dev)
{
    const char *const *names = dev->board->app_tools;
    for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
        fw_err_t err = fw_device_add_tool(dev, fw_app_tool_find(names[i]));
        if (err != FW_OK) return err;
    }
    return FW_OK;
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
    err = add_builtins(dev);
    if (err == FW_OK) err = add_drivers(dev);
    if (err == FW_OK) err = add_apps(dev);
    if (err == FW_OK) err = init_pins(dev);
    if (err != FW_OK) return err;
    dev->boot_ms = fw_hal_now(dev);
    fw_sampling_init(dev, dev->boot_ms);
    fw_mcp_init(dev);
    return FW_OK;
}

/* ---------------------------------------------------------------- runtime */

void fw_device_poll(fw_device_t *dev)
{
    fw_sampling_poll(dev, fw_hal_now(dev));
    fw_mcp_observe(dev);
}

uint64_t fw_device_next_deadline(const fw_device_t *dev)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < dev->board->pin_count; i++)
        if (fw_pin_sampled(&dev->board->pins[i]) && dev->pins[i].next_sample_ms < next)
            next = dev->pins[i].next_sample_ms;
    return next;
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

fw_err_t fw_hal_i2c(const fw_device_t *dev, uint8_t bus, uint8_t addr, const uint8_t *tx,
                    size_t tx_len, uint8_t *rx, size_t rx_len)
{
    return dev->hal->i2c_transfer
               ? dev->hal->i2c_transfer(dev->hal_ctx, bus, addr, tx, tx_len, rx, rx_len)
               : FW_ERR_UNSUPPORTED;
}
