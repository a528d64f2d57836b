/* at24c.c: driver for AT24C-family I2C EEPROMs (24C01 .. 24CM02): eeprom_read, eeprom_write. */
#include <string.h>

#include "at24c.h"
#include "fw_device.h"

#if FW_WITH_I2C

/*
 * Addressing (Microchip AT24C01..AT24CM02 datasheets): the memory offset is split between the
 * word address bytes sent after the device address and "block" bits that replace the low bits
 * of the device address:
 *   128..256 bytes     (24C01/02)    1 word-address byte
 *   512..2048 bytes    (24C04/08/16) 1 word-address byte, offset bits 8..10 in the device address
 *   4 KiB..64 KiB      (24C32..512)  2 word-address bytes
 *   128..256 KiB       (24CM01/02)   2 word-address bytes, offset bits 16..17 in the device address
 * A page write wraps inside its page on the chip, so writes are split at page boundaries; reads
 * are split only where the device address changes (a block boundary).
 */
#define CHIP_SIZE_MIN 128u
#define CHIP_SIZE_MAX 262144u
/* Write cycle: tWR is 5 ms on AT24C parts (10 ms on some second sources). Polling stops after
   this much HAL time or after POLL_MAX probes, whichever comes first, so a clock that does not
   move while the handler runs (a virtual clock) cannot hang the call. */
#define WRITE_CYCLE_MS 10u
#define POLL_MAX 1000u

typedef struct geometry {
    uint8_t addr_bytes; /* word-address bytes: 1 or 2 */
    uint32_t span;      /* bytes one device address reaches: 256 or 65536 */
    uint32_t size;
    uint16_t page; /* write page size */
} geometry_t;

static bool power_of_two(uint32_t v)
{
    return v != 0 && (v & (v - 1u)) == 0;
}

/* The page size of the family member of that capacity, for boards that leave page_bytes 0. */
static uint16_t default_page(uint32_t size)
{
    if (size <= 256u) return 8;
    if (size <= 2048u) return 16;
    if (size <= 8192u) return 32;
    if (size <= 32768u) return 64;
    return size <= 65536u ? 128 : 256;
}

typedef enum geo_problem { GEO_OK = 0, GEO_SIZE, GEO_PAGE, GEO_BLOCK } geo_problem_t;

/* The chip's geometry from its configuration, and what is impossible about it. */
static geo_problem_t geometry_check(const fw_chip_t *d, geometry_t *g)
{
    static const fw_at24c_config_t fallback = {4096, 32};
    const fw_at24c_config_t *cfg = d->config != NULL ? d->config : &fallback;
    g->size = cfg->size_bytes;
    g->addr_bytes = g->size <= 2048u ? 1 : 2;
    g->span = g->addr_bytes == 1 ? 256u : 65536u;
    g->page = cfg->page_bytes ? cfg->page_bytes : default_page(g->size);
    uint32_t blocks = g->size > g->span ? g->size / g->span : 1u;
    if (!power_of_two(g->size) || g->size < CHIP_SIZE_MIN || g->size > CHIP_SIZE_MAX)
        return GEO_SIZE;
    if (!power_of_two(g->page) || g->page > 256u || g->page > g->size) return GEO_PAGE;
    return (d->addr & (blocks - 1u)) != 0 ? GEO_BLOCK : GEO_OK;
}

/* A board declaring an impossible chip is a configuration error of ours: FW_ERR_ARG (the device
   refuses to start with it, so this is a second line of defence). */
static fw_err_t geometry_of(fw_call_t *call, const fw_chip_t *d, geometry_t *g)
{
    switch (geometry_check(d, g)) {
    case GEO_SIZE:
        return fw_call_errorf(call, FW_ERR_ARG,
                              "board declares eeprom 0x%x with size %u: not a "
                              "power of two in 128..262144",
                              (unsigned)d->addr, (unsigned)g->size);
    case GEO_PAGE:
        return fw_call_errorf(call, FW_ERR_ARG, "board declares eeprom 0x%x with page size %u",
                              (unsigned)d->addr, (unsigned)g->page);
    case GEO_BLOCK:
        return fw_call_errorf(call, FW_ERR_ARG,
                              "eeprom 0x%x: a %u-byte chip needs the low "
                              "address bits free for block select",
                              (unsigned)d->addr, (unsigned)g->size);
    default:
        return FW_OK;
    }
}

/* At start: a chip whose configuration cannot be right stops the device from starting. */
static fw_err_t at24c_probe(fw_device_t *dev, const fw_chip_t *chip)
{
    geometry_t g;
    (void)dev;
    return geometry_check(chip, &g) == GEO_OK ? FW_OK : FW_ERR_ARG;
}

static uint8_t device_addr(const fw_chip_t *d, const geometry_t *g, uint32_t offset)
{
    return (uint8_t)(d->addr | (offset / g->span));
}

/* Writes the word address of offset (MSB first) into out; returns its length. */
static size_t word_addr(const geometry_t *g, uint32_t offset, uint8_t *out)
{
    uint32_t word = offset % g->span;
    if (g->addr_bytes == 1) {
        out[0] = (uint8_t)word;
        return 1;
    }
    out[0] = (uint8_t)(word >> 8);
    out[1] = (uint8_t)word;
    return 2;
}

static fw_err_t find_eeprom(fw_call_t *call, const fw_chip_t **out)
{
    const fw_arg_t *dev = fw_call_arg(call, "device");
    *out = fw_device_chip(call->dev, &fw_driver_at24c, dev->present ? (int)dev->i : -1);
    if (*out != NULL) return FW_OK;
    if (!dev->present)
        return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "this board declares no eeprom");
    return fw_call_param_error(call, "device",
                               "no at24c eeprom at i2c address 0x%x on this "
                               "board",
                               (unsigned)dev->i);
}

/* Checks [offset, offset + n) against the chip; `what` names the parameter holding n. */
static fw_err_t check_range(fw_call_t *call, const geometry_t *g, uint32_t offset, size_t n,
                            const char *what)
{
    if (offset >= g->size)
        return fw_call_param_error(call, "offset",
                                   "offset %u is past the end of the %u-byte "
                                   "eeprom (last offset %u)",
                                   (unsigned)offset, (unsigned)g->size, (unsigned)(g->size - 1u));
    if (n > g->size - offset)
        return fw_call_param_error(call, what,
                                   "%u bytes from offset %u run past the end of the "
                                   "%u-byte eeprom (at most %u from there)",
                                   (unsigned)n, (unsigned)offset, (unsigned)g->size,
                                   (unsigned)(g->size - offset));
    return FW_OK;
}

/* Acknowledge polling: the chip ignores its address until the internal write cycle ends. A
   device that acknowledges at once (no write cycle to wait for) is ready. */
static fw_err_t ack_poll(fw_call_t *call, const fw_chip_t *d, uint8_t addr)
{
    uint64_t start = fw_hal_now(call->dev);
    for (unsigned polls = 1; polls <= POLL_MAX; polls++) {
        fw_err_t err = fw_i2c_transfer(call->dev, d->bus, addr, NULL, 0, NULL, 0);
        if (err == FW_OK) return FW_OK;
        if (err != FW_ERR_I2C_NACK) return fw_i2c_call_error(call, err, "eeprom", d->bus, addr);
        if (fw_hal_now(call->dev) - start > WRITE_CYCLE_MS) break;
    }
    return fw_call_errorf(call, FW_ERR_TIMEOUT,
                          "eeprom 0x%x on bus %u still busy after a page "
                          "write (no acknowledge within %u ms or %u polls)",
                          (unsigned)addr, (unsigned)d->bus, WRITE_CYCLE_MS, POLL_MAX);
}

typedef struct span_args {
    const fw_chip_t *def;
    geometry_t geo;
    uint32_t offset;
} span_args_t;

/* Resolves the device, its geometry and the offset, and checks n bytes fit from there. */
static fw_err_t prepare(fw_call_t *call, size_t n, const char *n_param, span_args_t *s)
{
    fw_err_t err = find_eeprom(call, &s->def);
    if (err == FW_OK) err = geometry_of(call, s->def, &s->geo);
    if (err != FW_OK) return err;
    s->offset = (uint32_t)fw_call_arg(call, "offset")->i;
    return check_range(call, &s->geo, s->offset, n, n_param);
}

static void write_header(fw_jw_t *w, const span_args_t *s)
{
    fw_jw_kv_i64(w, "device", s->def->addr);
    fw_jw_kv_i64(w, "bus", s->def->bus);
    fw_jw_kv_i64(w, "offset", s->offset);
}

static fw_err_t eeprom_read_fn(fw_call_t *call)
{
    size_t count = (size_t)fw_call_arg(call, "count")->i;
    span_args_t s;
    fw_err_t err = prepare(call, count, "count", &s);
    uint8_t data[FW_I2C_XFER_MAX];
    for (size_t done = 0; err == FW_OK && done < count;) {
        uint32_t pos = s.offset + (uint32_t)done;
        size_t chunk = s.geo.span - pos % s.geo.span;
        if (chunk > count - done) chunk = count - done;
        uint8_t wa[2];
        size_t wa_len = word_addr(&s.geo, pos, wa);
        err = fw_i2c_call_xfer(call, "eeprom", s.def->bus, device_addr(s.def, &s.geo, pos), wa,
                               wa_len, data + done, chunk);
        done += chunk;
    }
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    write_header(w, &s);
    fw_jw_key(w, "bytes");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < count; i++) fw_jw_i64(w, data[i]);
    fw_jw_arr_end(w);
    return FW_OK;
}

/* One page write of data[0..n) at pos (n never crosses a page), then waits for the cycle. */
static fw_err_t write_page(fw_call_t *call, const span_args_t *s, uint32_t pos, const uint8_t *data,
                           size_t n)
{
    uint8_t tx[2 + FW_I2C_XFER_MAX];
    size_t wa_len = word_addr(&s->geo, pos, tx);
    memcpy(tx + wa_len, data, n);
    uint8_t addr = device_addr(s->def, &s->geo, pos);
    fw_err_t err = fw_i2c_call_xfer(call, "eeprom", s->def->bus, addr, tx, wa_len + n, NULL, 0);
    return err == FW_OK ? ack_poll(call, s->def, addr) : err;
}

static fw_err_t eeprom_write_fn(fw_call_t *call)
{
    const fw_arg_t *bytes = fw_call_arg(call, "bytes");
    span_args_t s;
    fw_err_t err = prepare(call, bytes->len, "bytes", &s);
    size_t done = 0;
    unsigned pages = 0;
    while (err == FW_OK && done < bytes->len) {
        uint32_t pos = s.offset + (uint32_t)done;
        size_t chunk = s.geo.page - pos % s.geo.page;
        if (chunk > bytes->len - done) chunk = bytes->len - done;
        err = write_page(call, &s, pos, bytes->bytes + done, chunk);
        if (err == FW_OK) {
            done += chunk;
            pages++;
            fw_call_progress(call, (uint32_t)done, (uint32_t)bytes->len, NULL);
        }
    }
    if (err != FW_OK && done > 0)
        return fw_call_errorf(call, err,
                              "eeprom 0x%x: %s after %u of %u bytes were written (%u "
                              "page writes)",
                              (unsigned)s.def->addr, fw_err_str(err), (unsigned)done,
                              (unsigned)bytes->len, pages);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    write_header(w, &s);
    fw_jw_kv_i64(w, "written", (int64_t)done);
    fw_jw_kv_i64(w, "pages", pages);
    return FW_OK;
}

#define DEVICE_PARAM                                                                               \
    {                                                                                              \
        .name = "device", .type = FW_PARAM_INTEGER, .has_min = true, .has_max = true, .min = 0x08, \
        .max = 0x77,                                                                               \
        .description = FW_DESC("I2C address of the EEPROM as the board declares it (e.g. 80 = "    \
                               "0x50); default: the board's first EEPROM")                         \
    }

#define OFFSET_PARAM                                                                               \
    {                                                                                              \
        .name = "offset", .type = FW_PARAM_INTEGER, .required = true, .has_min = true,             \
        .has_max = true, .min = 0, .max = CHIP_SIZE_MAX - 1u,                                      \
        .description = FW_DESC("Memory offset (byte position inside the EEPROM), 0 .. size - 1")   \
    }

static const fw_param_t read_params[] = {
    OFFSET_PARAM,
    {.name = "count",
     .type = FW_PARAM_INTEGER,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = FW_I2C_XFER_MAX,
     .has_default = true,
     .def_int = 1,
     .description = FW_DESC("Bytes to read from offset (default 1); may cross pages, not the end")},
    DEVICE_PARAM,
};

static const fw_param_t write_params[] = {
    OFFSET_PARAM,
    {.name = "bytes",
     .type = FW_PARAM_BYTES,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = FW_I2C_XFER_MAX,
     .description =
         FW_DESC("Bytes to store from offset (integers 0..255); may cross pages, not the end")},
    DEVICE_PARAM,
};

static const fw_tool_t at24c_tools[] = {
    {.name = "eeprom_read",
     .description =
         FW_DESC("Read bytes from an AT24C I2C EEPROM starting at a memory offset. `offset` "
                 "is the position in memory, `device` the chip's I2C address."),
     .params = read_params,
     .param_count = FW_ARRAY_LEN(read_params),
     .flags = FW_TOOL_READ_ONLY,
     .handler = eeprom_read_fn},
    {.name = "eeprom_write",
     .description =
         FW_DESC("Store bytes in an AT24C I2C EEPROM from a memory offset, page by page, "
                 "waiting out each write cycle. `offset` is the position in memory, `device` "
                 "the chip's I2C address. Returns written bytes and page writes used."),
     .params = write_params,
     .param_count = FW_ARRAY_LEN(write_params),
     .flags = FW_TOOL_DESTRUCTIVE,
     .handler = eeprom_write_fn},
};

const fw_driver_t fw_driver_at24c = {.name = "at24c",
                                     .tools = at24c_tools,
                                     .tool_count = FW_ARRAY_LEN(at24c_tools),
                                     .probe = at24c_probe};

#endif
