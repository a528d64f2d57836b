/* i2c_bus.h: the simulated I2C controllers: device models found by address, bus timing, and
   injected faults in front of the models. */
#ifndef SIM_I2C_BUS_H
#define SIM_I2C_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/devices.h"
#include "faults.h"

/* Bit time at 100 kHz standard mode. */
#define SIM_I2C_BIT_US 10u

/* A model attached to a bus; it answers addr .. addr + span - 1. */
typedef struct sim_i2c_dev {
    const sim_model_ops_t *ops;
    void *model;
    uint8_t bus, addr, span;
    char *name; /* from the board ("" when none) */
} sim_i2c_dev_t;

typedef struct sim_i2c sim_i2c_t;

/* The board's buses (numbered 0 .. bus_count-1). faults is consulted on every transfer and
   must outlive the bus. NULL when out of memory. */
sim_i2c_t *sim_i2c_create(unsigned bus_count, const sim_faults_t *faults);

/* Destroys the bus and every attached model. */
void sim_i2c_destroy(sim_i2c_t *i2c);

unsigned sim_i2c_bus_count(const sim_i2c_t *i2c);

/* Attaches a created model (the bus takes ownership, also on failure). False when out of
   memory or its addresses overlap another device's on that bus. */
bool sim_i2c_attach(sim_i2c_t *i2c, const sim_model_ops_t *ops, void *model, uint8_t bus,
                    uint8_t addr, const char *name);

size_t sim_i2c_device_count(const sim_i2c_t *i2c);
sim_i2c_dev_t *sim_i2c_device(sim_i2c_t *i2c, size_t index);

/* The device answering addr on bus, or NULL. */
sim_i2c_dev_t *sim_i2c_find(sim_i2c_t *i2c, uint8_t bus, uint8_t addr);

/* Bus time of a transfer that completes: START, address + tx bytes (when tx_len > 0 or it is
   a probe), a repeated START, address + rx bytes (when rx_len > 0), STOP; 9 bits per byte. */
uint64_t sim_i2c_duration_us(size_t tx_len, size_t rx_len);

/*
 * One transaction (the HAL's i2c_transfer) starting at now_us. Faults first (stuck bus:
 * FW_ERR_I2C_BUS, NACK fault: FW_ERR_I2C_NACK), then the model at addr (none: NACK). *elapsed_us
 * is the bus time taken (a refused address ends the transfer after the address byte) plus any
 * injected latency; the caller moves its clock by it. FW_ERR_ARG for a bus that does not exist.
 */
fw_err_t sim_i2c_transfer(sim_i2c_t *i2c, uint8_t bus, uint8_t addr, const uint8_t *tx,
                          size_t tx_len, uint8_t *rx, size_t rx_len, uint64_t now_us,
                          uint64_t *elapsed_us);

/* Earliest model event (UINT64_MAX if none), and running the events due at now_us. */
uint64_t sim_i2c_next_event_us(const sim_i2c_t *i2c);
void sim_i2c_run_due(sim_i2c_t *i2c, uint64_t now_us);

#endif
