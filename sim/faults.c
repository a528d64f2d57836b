/* faults.c: the fault table and how its entries bend I2C transfers and ADC conversions. */
#include "faults.h"

#include <stdlib.h>
#include <string.h>

const char *const sim_fault_kind_names[] = {"i2c_nack", "i2c_bus_stuck", "adc_fail", "latency",
                                            NULL};

void sim_faults_init(sim_faults_t *f)
{
    memset(f, 0, sizeof *f);
    f->next_id = 1;
}

void sim_faults_free(sim_faults_t *f)
{
    free(f->list);
    f->list = NULL;
    f->count = f->cap = 0;
}

uint32_t sim_faults_add(sim_faults_t *f, const sim_fault_t *fault)
{
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        sim_fault_t *list = realloc(f->list, cap * sizeof *list);
        if (list == NULL) return 0;
        f->list = list;
        f->cap = cap;
    }
    f->list[f->count] = *fault;
    f->list[f->count].id = f->next_id++;
    return f->list[f->count++].id;
}

bool sim_faults_remove(sim_faults_t *f, uint32_t id)
{
    for (size_t i = 0; i < f->count; i++) {
        if (f->list[i].id != id) continue;
        memmove(&f->list[i], &f->list[i + 1], (f->count - i - 1) * sizeof f->list[0]);
        f->count--;
        return true;
    }
    return false;
}

size_t sim_faults_clear(sim_faults_t *f)
{
    size_t n = f->count;
    f->count = 0;
    return n;
}

static bool matches(int want, int have)
{
    return want < 0 || want == have;
}

static bool latency_on_i2c(const sim_fault_t *x, uint8_t bus, uint8_t addr)
{
    return x->kind == SIM_FAULT_LATENCY && x->pin < 0 && matches(x->bus, bus) &&
           matches(x->addr, addr);
}

static bool latency_on_adc(const sim_fault_t *x, uint16_t pin)
{
    return x->kind == SIM_FAULT_LATENCY && x->addr < 0 && x->bus < 0 && matches(x->pin, pin);
}

/* A stuck bus wins over a NACK: the address never gets onto the wire. */
fw_err_t sim_faults_i2c(const sim_faults_t *f, uint8_t bus, uint8_t addr, uint64_t *extra_us)
{
    fw_err_t err = FW_OK;
    *extra_us = 0;
    for (size_t i = 0; i < f->count; i++) {
        const sim_fault_t *x = &f->list[i];
        if (x->kind == SIM_FAULT_I2C_BUS_STUCK && matches(x->bus, bus)) err = FW_ERR_I2C_BUS;
        if (x->kind == SIM_FAULT_I2C_NACK && matches(x->bus, bus) && x->addr == addr &&
            err == FW_OK)
            err = FW_ERR_I2C_NACK;
        if (latency_on_i2c(x, bus, addr)) *extra_us += x->us;
    }
    return err;
}

fw_err_t sim_faults_adc(const sim_faults_t *f, uint16_t pin, uint64_t *extra_us)
{
    fw_err_t err = FW_OK;
    *extra_us = 0;
    for (size_t i = 0; i < f->count; i++) {
        const sim_fault_t *x = &f->list[i];
        if (x->kind == SIM_FAULT_ADC_FAIL && x->pin == pin) err = FW_ERR_ADC;
        if (latency_on_adc(x, pin)) *extra_us += x->us;
    }
    return err;
}

json_t *sim_fault_json(const sim_fault_t *x)
{
    json_t *o =
        json_pack("{s:I, s:s}", "id", (json_int_t)x->id, "kind", sim_fault_kind_names[x->kind]);
    if (x->bus >= 0) json_object_set_new(o, "bus", json_integer(x->bus));
    if (x->addr >= 0) json_object_set_new(o, "address", json_integer(x->addr));
    if (x->pin >= 0) json_object_set_new(o, "pin", json_integer(x->pin));
    if (x->kind == SIM_FAULT_LATENCY) json_object_set_new(o, "us", json_integer(x->us));
    return o;
}

json_t *sim_faults_json(const sim_faults_t *f)
{
    json_t *a = json_array();
    for (size_t i = 0; i < f->count; i++) json_array_append_new(a, sim_fault_json(&f->list[i]));
    return a;
}
