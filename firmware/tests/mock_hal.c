/* mock_hal.c: a scriptable HAL for the core's unit tests. */
#include "mock_hal.h"

#include <string.h>

static mock_pin_t *pin_of(void *ctx, uint16_t pin)
{
    mock_hal_t *m = ctx;
    return pin < MOCK_PINS ? &m->pins[pin] : NULL;
}

static uint64_t now_ms(void *ctx)
{
    return ((mock_hal_t *)ctx)->now;
}

static fw_err_t gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    mock_pin_t *p = pin_of(ctx, pin);
    if (!p) return FW_ERR_HW;
    if (((mock_hal_t *)ctx)->gpio_fail != FW_OK) return ((mock_hal_t *)ctx)->gpio_fail;
    p->mode = mode;
    if (mode == HAL_PIN_INPUT_PULLUP) p->level = true;
    if (mode == HAL_PIN_INPUT_PULLDOWN) p->level = false;
    return FW_OK;
}

static fw_err_t gpio_write(void *ctx, uint16_t pin, bool level)
{
    mock_pin_t *p = pin_of(ctx, pin);
    if (!p) return FW_ERR_HW;
    if (((mock_hal_t *)ctx)->gpio_fail != FW_OK) return ((mock_hal_t *)ctx)->gpio_fail;
    p->level = level;
    p->writes++;
    return FW_OK;
}

static fw_err_t gpio_read(void *ctx, uint16_t pin, bool *level)
{
    mock_pin_t *p = pin_of(ctx, pin);
    if (!p) return FW_ERR_HW;
    if (((mock_hal_t *)ctx)->gpio_fail != FW_OK) return ((mock_hal_t *)ctx)->gpio_fail;
    *level = p->level;
    p->reads++;
    return FW_OK;
}

static fw_err_t pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    mock_pin_t *p = pin_of(ctx, pin);
    if (!p) return FW_ERR_HW;
    p->duty = duty;
    p->freq_hz = freq_hz;
    p->writes++;
    return FW_OK;
}

static fw_err_t adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    mock_pin_t *p = pin_of(ctx, pin);
    if (!p) return FW_ERR_HW;
    p->adc_reads++;
    if (p->adc_fail != FW_OK) return p->adc_fail;
    *raw = p->adc;
    return FW_OK;
}

static mock_i2c_dev_t *i2c_find(mock_hal_t *m, uint8_t bus, uint8_t addr)
{
    for (size_t i = 0; i < MOCK_I2C_DEVS; i++)
        if (m->i2c[i].present && m->i2c[i].bus == bus && m->i2c[i].addr == addr) return &m->i2c[i];
    return NULL;
}

static void i2c_store(mock_i2c_dev_t *d, uint8_t byte)
{
    uint32_t size = d->size ? d->size : 1;
    if (d->page_bytes) {
        uint32_t page = d->ptr - d->ptr % d->page_bytes;
        d->mem[d->ptr % size] = byte;
        d->ptr = page + (d->ptr + 1 - page) % d->page_bytes;
    } else {
        d->mem[d->ptr % size] = byte;
        d->ptr = (d->ptr + 1) % size;
    }
}

static fw_err_t i2c_transfer(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx, size_t tx_len,
                             uint8_t *rx, size_t rx_len)
{
    mock_i2c_dev_t *d = i2c_find(ctx, bus, addr);
    if (!d) return FW_ERR_I2C_NACK;
    d->transfers++;
    if (d->fail != FW_OK) return d->fail;
    uint32_t size = d->size ? d->size : 1;
    size_t i = 0;
    if (tx_len >= d->addr_bytes) {
        d->ptr = 0;
        for (; i < d->addr_bytes; i++) d->ptr = (d->ptr << 8) | tx[i];
        d->ptr %= size;
    }
    for (; i < tx_len; i++) i2c_store(d, tx[i]);
    for (size_t j = 0; j < rx_len; j++) {
        rx[j] = d->mem[d->ptr % size];
        d->ptr = (d->ptr + 1) % size;
    }
    return FW_OK;
}

static fw_err_t device_info(void *ctx, hal_device_info_t *info)
{
    (void)ctx;
    info->chip = "mock";
    info->unique_id = "00:11:22:33:44:55";
    info->cpu_mhz = 240;
    info->ram_bytes = 327680;
    info->flash_bytes = 4194304;
    return FW_OK;
}

static void reset(void *ctx)
{
    ((mock_hal_t *)ctx)->resets++;
}

/* Not random: a counter, so that a test sees a key change between boots (entropy_calls). */
static fw_err_t entropy(void *ctx, uint8_t *out, size_t len)
{
    mock_hal_t *m = ctx;
    m->entropy_calls++;
    for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(m->entropy_calls * 31u + i);
    return FW_OK;
}

const hal_api_t mock_hal_api = {
    .now_ms = now_ms,
    .gpio_mode = gpio_mode,
    .gpio_write = gpio_write,
    .gpio_read = gpio_read,
    .pwm_write = pwm_write,
    .adc_read = adc_read,
    .i2c_transfer = i2c_transfer,
    .device_info = device_info,
    .reset = reset,
    .entropy = entropy,
};

void mock_hal_init(mock_hal_t *m)
{
    memset(m, 0, sizeof *m);
}

mock_i2c_dev_t *mock_hal_add_i2c(mock_hal_t *m, uint8_t bus, uint8_t addr, uint8_t addr_bytes,
                                 uint32_t size, uint16_t page_bytes)
{
    for (size_t i = 0; i < MOCK_I2C_DEVS; i++) {
        mock_i2c_dev_t *d = &m->i2c[i];
        if (d->present) continue;
        memset(d, 0, sizeof *d);
        d->present = true;
        d->bus = bus;
        d->addr = addr;
        d->addr_bytes = addr_bytes;
        d->size = size > MOCK_I2C_MEM ? MOCK_I2C_MEM : size;
        d->page_bytes = page_bytes;
        return d;
    }
    return NULL;
}
