/* i2c_bus.c: the simulated I2C controllers: address decoding, bus timing and fault injection. */
#include "i2c_bus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"

struct sim_i2c {
    unsigned bus_count;
    const sim_faults_t *faults;
    sim_i2c_dev_t *devs;
    size_t count;
};

static const sim_model_ops_t *const models[] = {&sim_model_tmp102, &sim_model_at24c,
                                                &sim_model_regmap, &sim_model_es8311};

/* A product's models (sim_register_models), looked up before mcpsim's. */
static const sim_model_ops_t *const *registered;

void sim_register_models(const sim_model_ops_t *const *list)
{
    registered = list;
}

const sim_model_ops_t *sim_model_find(const char *name)
{
    for (size_t i = 0; name != NULL && registered != NULL && registered[i] != NULL; i++)
        if (strcmp(registered[i]->name, name) == 0) return registered[i];
    for (size_t i = 0; name != NULL && i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i]->name, name) == 0) return models[i];
    return NULL;
}

const char *sim_model_names(void)
{
    static char names[512];
    size_t len = 0;
    names[0] = 0;
    for (size_t i = 0; registered != NULL && registered[i] != NULL; i++) {
        int n = snprintf(names + len, sizeof names - len, "%s, ", registered[i]->name);
        if (n < 0 || (size_t)n >= sizeof names - len) break;
        len += (size_t)n;
    }
    snprintf(names + len, sizeof names - len, "%s", "tmp102, at24c, regmap, es8311");
    return names;
}

sim_i2c_t *sim_i2c_create(unsigned bus_count, const sim_faults_t *faults)
{
    sim_i2c_t *i2c = calloc(1, sizeof *i2c);
    if (i2c == NULL) return NULL;
    i2c->bus_count = bus_count;
    i2c->faults = faults;
    return i2c;
}

void sim_i2c_destroy(sim_i2c_t *i2c)
{
    if (i2c == NULL) return;
    for (size_t i = 0; i < i2c->count; i++) {
        i2c->devs[i].ops->destroy(i2c->devs[i].model);
        free(i2c->devs[i].name);
    }
    free(i2c->devs);
    free(i2c);
}

unsigned sim_i2c_bus_count(const sim_i2c_t *i2c)
{
    return i2c->bus_count;
}

static bool answers(const sim_i2c_dev_t *d, uint8_t bus, uint8_t addr)
{
    return d->bus == bus && addr >= d->addr && addr < d->addr + d->span;
}

sim_i2c_dev_t *sim_i2c_find(sim_i2c_t *i2c, uint8_t bus, uint8_t addr)
{
    for (size_t i = 0; i < i2c->count; i++)
        if (answers(&i2c->devs[i], bus, addr)) return &i2c->devs[i];
    return NULL;
}

bool sim_i2c_attach(sim_i2c_t *i2c, const sim_model_ops_t *ops, void *model, uint8_t bus,
                    uint8_t addr, const char *name)
{
    uint8_t span = ops->address_span(model);
    bool clash = bus >= i2c->bus_count;
    for (uint8_t a = 0; a < span; a++) clash = clash || sim_i2c_find(i2c, bus, addr + a);
    sim_i2c_dev_t *devs = clash ? NULL : realloc(i2c->devs, (i2c->count + 1) * sizeof *devs);
    char *copy = devs ? sim_cfg_strdup(name) : NULL;
    if (copy == NULL) {
        if (devs) i2c->devs = devs;
        ops->destroy(model);
        return false;
    }
    i2c->devs = devs;
    i2c->devs[i2c->count++] = (sim_i2c_dev_t){ops, model, bus, addr, span, copy};
    return true;
}

size_t sim_i2c_device_count(const sim_i2c_t *i2c)
{
    return i2c->count;
}

sim_i2c_dev_t *sim_i2c_device(sim_i2c_t *i2c, size_t index)
{
    return index < i2c->count ? &i2c->devs[index] : NULL;
}

uint64_t sim_i2c_duration_us(size_t tx_len, size_t rx_len)
{
    uint64_t bits = 2; /* START and STOP */
    if (tx_len > 0 || rx_len == 0) bits += 9u * (1u + (uint64_t)tx_len);
    if (rx_len > 0) bits += 9u * (1u + (uint64_t)rx_len) + (tx_len > 0 ? 1u : 0u);
    return bits * SIM_I2C_BIT_US;
}

/* START, the address byte and STOP: what a refused transfer costs. */
#define ADDRESS_ONLY_US (11u * SIM_I2C_BIT_US)

fw_err_t sim_i2c_transfer(sim_i2c_t *i2c, uint8_t bus, uint8_t addr, const uint8_t *tx,
                          size_t tx_len, uint8_t *rx, size_t rx_len, uint64_t now_us,
                          uint64_t *elapsed_us)
{
    *elapsed_us = 0;
    if (bus >= i2c->bus_count) return FW_ERR_ARG;
    uint64_t latency = 0;
    fw_err_t err = sim_faults_i2c(i2c->faults, bus, addr, &latency);
    sim_i2c_dev_t *d = err == FW_OK ? sim_i2c_find(i2c, bus, addr) : NULL;
    if (err == FW_OK && d == NULL) err = FW_ERR_I2C_NACK;
    uint64_t start = now_us + latency;
    if (err == FW_OK) {
        sim_xfer_t x = {(uint8_t)(addr - d->addr),
                        tx,
                        tx_len,
                        rx,
                        rx_len,
                        start,
                        start + sim_i2c_duration_us(tx_len, rx_len)};
        err = d->ops->transfer(d->model, &x);
    }
    *elapsed_us = latency + (err == FW_OK ? sim_i2c_duration_us(tx_len, rx_len) : ADDRESS_ONLY_US);
    if (err != FW_OK && rx_len > 0) memset(rx, 0xFF, rx_len); /* nobody drives SDA */
    return err;
}

uint64_t sim_i2c_next_event_us(const sim_i2c_t *i2c)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < i2c->count; i++) {
        const sim_i2c_dev_t *d = &i2c->devs[i];
        uint64_t t = d->ops->next_event_us ? d->ops->next_event_us(d->model) : UINT64_MAX;
        next = t < next ? t : next;
    }
    return next;
}

void sim_i2c_run_due(sim_i2c_t *i2c, uint64_t now_us)
{
    for (size_t i = 0; i < i2c->count; i++) {
        sim_i2c_dev_t *d = &i2c->devs[i];
        if (d->ops->run && d->ops->next_event_us(d->model) <= now_us) d->ops->run(d->model, now_us);
    }
}
