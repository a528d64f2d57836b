/* i2c.c: the built-in raw I2C tools (i2c_scan, i2c_read, i2c_write) and their error wording. */
#include "fw_builtins.h"
#include "fw_device.h"
#include "fw_driver.h"

#if FW_WITH_I2C

/* The 7-bit addresses outside 0x08..0x77 are reserved by the I2C specification (general call,
   CBUS, 10-bit prefixes, ...); neither scanned nor accepted. */
#define ADDR_FIRST 0x08u
#define ADDR_LAST 0x77u

static const char hex_digits[] = "0123456789abcdef";

/* The bus argument, refused when the board has fewer buses. */
static fw_err_t bus_arg(fw_call_t *call, uint8_t *bus)
{
    int64_t b = fw_call_arg(call, "bus")->i;
    unsigned count = fw_device_i2c_buses(call->dev);
    if (b < 0 || b >= (int64_t)count)
        return fw_call_param_error(call, "bus",
                                   "bus %d does not exist: the board has %u i2c "
                                   "bus(es), numbered from 0",
                                   (int)b, count);
    *bus = (uint8_t)b;
    return FW_OK;
}

static void write_hex_addr(fw_jw_t *w, unsigned addr)
{
    char text[5] = {'0', 'x', hex_digits[(addr >> 4) & 15u], hex_digits[addr & 15u], 0};
    fw_jw_str(w, text);
}

static void write_bytes(fw_jw_t *w, const char *key, const uint8_t *bytes, size_t n)
{
    (fw_jw_key)(w, key);
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < n; i++) fw_jw_i64(w, bytes[i]);
    fw_jw_arr_end(w);
}

/* Addresses probed between two progress reports of a scan. */
#define SCAN_PROGRESS_STEP 16u

/* Probes every address with a zero-length write: an ACK means present, a NACK absent. Any
   other error (a stuck bus) ends the scan, since later answers could not be trusted. */
static fw_err_t i2c_scan_fn(fw_call_t *call)
{
    uint8_t bus = 0;
    uint8_t found[(ADDR_LAST + 8u) / 8u] = {0};
    const unsigned total = ADDR_LAST - ADDR_FIRST + 1u;
    fw_err_t err = bus_arg(call, &bus);
    for (unsigned a = ADDR_FIRST; err == FW_OK && a <= ADDR_LAST; a++) {
        fw_err_t probe = fw_i2c_transfer(call->dev, bus, (uint8_t)a, NULL, 0, NULL, 0);
        if (probe == FW_OK)
            found[a / 8u] |= (uint8_t)(1u << (a % 8u));
        else if (probe != FW_ERR_I2C_NACK)
            err = fw_i2c_call_error(call, probe, "i2c device", bus, (uint8_t)a);
        unsigned done = a - ADDR_FIRST + 1u;
        if (err == FW_OK && (done % SCAN_PROGRESS_STEP == 0 || done == total))
            fw_call_progress(call, done, total, NULL);
    }
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "bus", bus);
    for (int pass = 0; pass < 2; pass++) {
        fw_jw_key(w, pass == 0 ? "devices" : "hex");
        fw_jw_arr_begin(w);
        for (unsigned a = ADDR_FIRST; a <= ADDR_LAST; a++) {
            if (!(found[a / 8u] & (1u << (a % 8u)))) continue;
            if (pass == 0)
                fw_jw_i64(w, a);
            else
                write_hex_addr(w, a);
        }
        fw_jw_arr_end(w);
    }
    return FW_OK;
}

/* Reads count bytes; with `register`, writes that byte first and reads after a repeated start
   (the usual register-pointer protocol), otherwise reads from the device's current position. */
static fw_err_t i2c_read_fn(fw_call_t *call)
{
    uint8_t bus = 0;
    fw_err_t err = bus_arg(call, &bus);
    if (err != FW_OK) return err;
    uint8_t addr = (uint8_t)fw_call_arg(call, "address")->i;
    size_t count = (size_t)fw_call_arg(call, "count")->i;
    const fw_arg_t *reg = fw_call_arg(call, "register");
    uint8_t reg_byte = (uint8_t)reg->i;
    uint8_t rx[FW_I2C_XFER_MAX];
    err = fw_i2c_call_xfer(call, "i2c device", bus, addr, reg->present ? &reg_byte : NULL,
                           reg->present ? 1u : 0u, rx, count);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "bus", bus);
    fw_jw_kv_i64(w, "address", addr);
    if (reg->present) fw_jw_kv_i64(w, "register", reg_byte);
    write_bytes(w, "bytes", rx, count);
    return FW_OK;
}

static fw_err_t i2c_write_fn(fw_call_t *call)
{
    uint8_t bus = 0;
    fw_err_t err = bus_arg(call, &bus);
    if (err != FW_OK) return err;
    uint8_t addr = (uint8_t)fw_call_arg(call, "address")->i;
    const fw_arg_t *bytes = fw_call_arg(call, "bytes");
    err = fw_i2c_call_xfer(call, "i2c device", bus, addr, bytes->bytes, bytes->len, NULL, 0);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "bus", bus);
    fw_jw_kv_i64(w, "address", addr);
    fw_jw_kv_i64(w, "written", (int64_t)bytes->len);
    return FW_OK;
}

#define BUS_PARAM                                                                                  \
    {                                                                                              \
        .name = "bus", .type = FW_PARAM_INTEGER, .has_min = true, .has_max = true, .min = 0,       \
        .max = 255, .has_default = true, .def_int = 0,                                             \
        .description = FW_DESC("I2C bus number, 0 .. the board's bus count - 1 (default 0)")       \
    }

#define ADDRESS_PARAM                                                                              \
    {                                                                                              \
        .name = "address", .type = FW_PARAM_INTEGER, .required = true, .has_min = true,            \
        .has_max = true, .min = ADDR_FIRST, .max = ADDR_LAST,                                      \
        .description = FW_DESC("7-bit I2C device address, 8..119 (0x08..0x77), e.g. 72 for 0x48")  \
    }

static const fw_param_t scan_params[] = {BUS_PARAM};

static const fw_param_t read_params[] = {
    ADDRESS_PARAM,
    {.name = "count",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = FW_I2C_XFER_MAX,
     .has_default = true,
     .def_int = 1,
     .description = FW_DESC("Number of bytes to read (default 1)")},
    {.name = "register",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 0,
     .max = 255,
     .description =
         FW_DESC("Register to read from: written first, then read after a repeated start. "
                 "Omit to read from the device's current position.")},
    BUS_PARAM,
};

static const fw_param_t write_params[] = {
    ADDRESS_PARAM,
    {.name = "bytes",
     .type = FW_PARAM_BYTES,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = FW_I2C_XFER_MAX,
     .description =
         FW_DESC("Bytes to write in one transaction (integers 0..255); for a register write "
                 "the register number comes first")},
    BUS_PARAM,
};

static const fw_tool_t i2c_tools[] = {
    {.name = "i2c_scan",
     .description = FW_DESC("Scan an I2C bus: probe every address 0x08..0x77 and list those that "
                            "acknowledge, as numbers (devices) and as hex text (hex)."),
     .params = scan_params,
     .param_count = FW_ARRAY_LEN(scan_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = i2c_scan_fn},
    {.name = "i2c_read",
     .description =
         FW_DESC("Read bytes from an I2C device, optionally from a register (written first, "
                 "then read after a repeated start)."),
     /* not read-only: writing the register pointer, and reading FIFOs or clear-on-read status
        registers, change the device's state */
     .params = read_params,
     .param_count = FW_ARRAY_LEN(read_params),
     .handler = i2c_read_fn},
    {.name = "i2c_write",
     .description =
         FW_DESC("Write bytes to an I2C device in one transaction. Returns how many were "
                 "written; fails if the device does not acknowledge."),
     /* destructive: raw bytes can reprogram a chip or overwrite an EEPROM for good */
     .params = write_params,
     .param_count = FW_ARRAY_LEN(write_params),
     .flags = FW_TOOL_DESTRUCTIVE,
     .handler = i2c_write_fn},
};

const fw_toolset_t fw_builtin_i2c = {"i2c", i2c_tools, FW_ARRAY_LEN(i2c_tools)};

#endif
