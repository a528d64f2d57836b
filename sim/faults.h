/* faults.h: injected hardware faults (I2C NACK, stuck bus, failed ADC read, extra latency),
   kept in one table with ids the control channel hands out. */
#ifndef SIM_FAULTS_H
#define SIM_FAULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_err.h"

typedef enum sim_fault_kind {
    SIM_FAULT_I2C_NACK = 0,  /* the device at `addr` (on `bus`, or any) stops acknowledging */
    SIM_FAULT_I2C_BUS_STUCK, /* every transfer on `bus` fails with FW_ERR_I2C_BUS */
    SIM_FAULT_ADC_FAIL,      /* conversions on `pin` fail with FW_ERR_ADC */
    SIM_FAULT_LATENCY,       /* each matching I2C transfer / ADC read takes `us` longer */
    SIM_FAULT_KIND_COUNT
} sim_fault_kind_t;

/* One fault; -1 in bus/addr/pin means "any". A latency fault with a pin applies to that pin's
   ADC reads; with an address and/or bus to the matching I2C transfers; with none to every I2C
   transfer and every ADC read. */
typedef struct sim_fault {
    uint32_t id;
    sim_fault_kind_t kind;
    int bus, addr, pin;
    uint32_t us;
} sim_fault_t;

typedef struct sim_faults {
    sim_fault_t *list;
    size_t count, cap;
    uint32_t next_id; /* ids start at 1 and are never reused within a run */
} sim_faults_t;

/* Wire names: "i2c_nack", "i2c_bus_stuck", "adc_fail", "latency". NULL-terminated list. */
extern const char *const sim_fault_kind_names[];

void sim_faults_init(sim_faults_t *f);
void sim_faults_free(sim_faults_t *f);

/* Adds a copy of fault (its id is assigned); returns the id, 0 when out of memory. */
uint32_t sim_faults_add(sim_faults_t *f, const sim_fault_t *fault);

/* Removes fault id; false when there is none. */
bool sim_faults_remove(sim_faults_t *f, uint32_t id);

/* Removes every fault; returns how many there were. */
size_t sim_faults_clear(sim_faults_t *f);

/* What the faults do to one I2C transfer: the error to fail it with (FW_OK: none) and the
   extra time it takes. */
fw_err_t sim_faults_i2c(const sim_faults_t *f, uint8_t bus, uint8_t addr, uint64_t *extra_us);

/* Same for one ADC conversion on pin. */
fw_err_t sim_faults_adc(const sim_faults_t *f, uint16_t pin, uint64_t *extra_us);

/* The table as a JSON array of {id, kind, bus?, address?, pin?, us?} (new reference). */
json_t *sim_faults_json(const sim_faults_t *f);
json_t *sim_fault_json(const sim_fault_t *fault);

#endif
