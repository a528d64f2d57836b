/* at24c.c: model of AT24C-family I2C EEPROMs (24C01 .. 24CM02) with page writes, the write
   cycle, and an optional backing file that keeps the content across runs. */
#define _POSIX_C_SOURCE 200809L /* pwrite, fdatasync */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "at24c.h"
#include "devices.h"

/*
 * Addressing (Microchip AT24C datasheets), as the firmware driver expects it:
 *   128..256 bytes     1 word-address byte
 *   512..2048 bytes    1 word-address byte; offset bits 8..10 are block-select bits in the
 *                      device address, so the chip answers 2..8 consecutive addresses
 *   4 KiB..64 KiB      2 word-address bytes (MSB first)
 *   128..256 KiB       2 word-address bytes; offset bits 16..17 in the device address
 * A write of the word address alone sets the address pointer (the "dummy write" before a random
 * read). A write with data is a page write: bytes land from the address onwards, wrapping inside
 * the page as the chip's page buffer does, and are committed at STOP; the chip then runs its
 * internal write cycle and acknowledges nothing (not even its address) for write_cycle_ms. A
 * read returns bytes from the pointer and wraps at the end of memory. Data bytes followed by a
 * repeated start (no STOP) are discarded, as on the chip.
 */
#define SIZE_MIN 128u
#define SIZE_MAX_BYTES 262144u

typedef struct at24c {
    uint32_t size;
    uint16_t page;
    uint16_t page_given; /* the board file's "page", 0 when absent (the driver's default) */
    uint8_t addr_bytes;
    uint32_t span;  /* bytes one device address reaches: 256 or 65536 */
    uint8_t blocks; /* device addresses answered */
    uint8_t fill;
    uint32_t write_cycle_us;
    uint8_t *mem;
    uint32_t ptr;        /* the chip's address pointer */
    uint64_t busy_until; /* end of the running write cycle */
    uint32_t page_writes, nacks;
    char *backing;      /* resolved backing file path, or NULL */
    char *backing_name; /* as the board gave it */
    int fd;             /* the backing file, open for the model's lifetime; -1 without one */
    uint32_t write_errors;
    char backing_err[200];
} at24c_t;

static bool power_of_two(uint32_t v)
{
    return v != 0 && (v & (v - 1u)) == 0;
}

static uint16_t default_page(uint32_t size)
{
    if (size <= 256u) return 8;
    if (size <= 2048u) return 16;
    if (size <= 8192u) return 32;
    if (size <= 32768u) return 64;
    return size <= 65536u ? 128 : 256;
}

/* ---------------------------------------------------------------- backing file */

/*
 * Durability policy: the backing file is opened (created if missing) when the board is loaded
 * and stays open. Every change reaches it with pwrite + fdatasync before the change is
 * acknowledged: a page write at its STOP, before the transfer returns FW_OK (so before the
 * driver's acknowledge polling, and the tool's "written", can see it), a control-channel write
 * before its reply. A write that fails is logged, kept in backing_error, and the page write is
 * answered with FW_ERR_HW: the tool reports an I2C hardware failure instead of "written".
 */

/* Writes mem[off .. off+n) to the file and syncs it; false with backing_err set on failure. */
static bool persist(at24c_t *m, uint32_t off, uint32_t n)
{
    if (m->fd < 0) return true;
    const uint8_t *p = m->mem + off;
    size_t left = n;
    off_t pos = off;
    while (left > 0) {
        ssize_t w = pwrite(m->fd, p, left, pos);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) goto fail;
        p += w;
        pos += w;
        left -= (size_t)w;
    }
    if (fdatasync(m->fd) != 0) goto fail;
    m->backing_err[0] = 0;
    return true;
fail:
    m->write_errors++;
    snprintf(m->backing_err, sizeof m->backing_err, "cannot write %s: %s", m->backing,
             errno ? strerror(errno) : "short write");
    /* the model has no logger of its own: one line in the host's log format */
    char line[256];
    snprintf(line, sizeof line, "mcpsim: error: at24c: %s (the write is refused)\n",
             m->backing_err);
    fputs(line, stderr);
    return false;
}

/* Opens the backing file for reading and writing, creating it (and refusing a path that cannot
   be written, at start-up), loads it, and writes the whole chip when the file is shorter (a new
   file: the blank chip), so that later page writes never leave holes. A file larger than the
   chip is refused. */
static bool load(at24c_t *m, sim_cfg_err_t *e)
{
    m->fd = open(m->backing, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m->fd < 0)
        return sim_cfg_fail(e, "backing_file", "cannot open %s for writing: %s", m->backing,
                            strerror(errno));
    struct stat st;
    if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return sim_cfg_fail(e, "backing_file", "%s is not a regular file", m->backing);
    if ((uint64_t)st.st_size > m->size)
        return sim_cfg_fail(e, "backing_file", "%s holds more than the chip's %u bytes", m->backing,
                            (unsigned)m->size);
    size_t have = 0;
    while (have < (size_t)st.st_size) {
        ssize_t r = pread(m->fd, m->mem + have, (size_t)st.st_size - have, (off_t)have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return sim_cfg_fail(e, "backing_file", "cannot read %s", m->backing);
        have += (size_t)r;
    }
    if (have < m->size && !persist(m, 0, m->size))
        return sim_cfg_fail(e, "backing_file", "%s", m->backing_err);
    return true;
}

/* ---------------------------------------------------------------- bus face */

/* The word address in tx (addr_bytes long) combined with the block bits of the called address. */
static uint32_t full_address(const at24c_t *m, const sim_xfer_t *x)
{
    uint32_t word = m->addr_bytes == 1 ? x->tx[0] : (uint32_t)(x->tx[0] << 8 | x->tx[1]);
    return ((uint32_t)x->offset * m->span + word) & (m->size - 1u);
}

/* The page write lands at STOP; false when the backing file refused it. */
static bool page_write(at24c_t *m, const sim_xfer_t *x)
{
    const uint8_t *data = x->tx + m->addr_bytes;
    size_t n = x->tx_len - m->addr_bytes;
    uint32_t base = m->ptr - m->ptr % m->page, col = m->ptr % m->page;
    for (size_t i = 0; i < n; i++) m->mem[base + (col + i) % m->page] = data[i];
    m->ptr = base + (uint32_t)((col + n) % m->page);
    m->busy_until = x->end_us + m->write_cycle_us;
    m->page_writes++;
    if (n >= m->page) return persist(m, base, m->page);
    bool ok = true; /* only the bytes written, perhaps in two runs when they wrap */
    uint32_t first = (uint32_t)(m->page - col < n ? m->page - col : n);
    ok = persist(m, base + col, first);
    if (ok && first < n) ok = persist(m, base, (uint32_t)(n - first));
    return ok;
}

static fw_err_t at24c_transfer(void *model, const sim_xfer_t *x)
{
    at24c_t *m = model;
    if (x->start_us < m->busy_until) {
        m->nacks++;
        return FW_ERR_I2C_NACK;
    }
    if (x->tx_len >= m->addr_bytes) {
        m->ptr = full_address(m, x);
        if (x->tx_len > m->addr_bytes && x->rx_len == 0 && !page_write(m, x)) return FW_ERR_HW;
    }
    for (size_t i = 0; i < x->rx_len; i++) {
        x->rx[i] = m->mem[m->ptr];
        m->ptr = (m->ptr + 1u) % m->size;
    }
    return FW_OK;
}

/* ---------------------------------------------------------------- configuration */

static bool geometry(at24c_t *m, const json_t *cfg, sim_cfg_err_t *e)
{
    long long size = 0, page = 0, fill = 0;
    double cycle_ms = 0;
    if (!sim_cfg_int(cfg, "size", true, 0, SIZE_MIN, SIZE_MAX_BYTES, &size, e)) return false;
    if (!power_of_two((uint32_t)size))
        return sim_cfg_fail(e, "size",
                            "%lld is not a power of two (AT24C sizes are 128 .. "
                            "262144 bytes)",
                            size);
    if (!sim_cfg_int(cfg, "page", false, default_page((uint32_t)size), 8, 256, &page, e))
        return false;
    if (!power_of_two((uint32_t)page) || page > size)
        return sim_cfg_fail(e, "page", "%lld is not a power of two of at most the chip size", page);
    if (!sim_cfg_int(cfg, "fill", false, 0xFF, 0, 255, &fill, e) ||
        !sim_cfg_number(cfg, "write_cycle_ms", false, 5, 0, 100, &cycle_ms, e))
        return false;
    m->size = (uint32_t)size;
    m->page = (uint16_t)page;
    m->page_given = json_object_get(cfg, "page") != NULL ? (uint16_t)page : 0;
    m->fill = (uint8_t)fill;
    m->write_cycle_us = (uint32_t)(cycle_ms * 1000.0 + 0.5);
    m->addr_bytes = m->size <= 2048u ? 1 : 2;
    m->span = m->addr_bytes == 1 ? 256u : 65536u;
    m->blocks = (uint8_t)(m->size > m->span ? m->size / m->span : 1u);
    return true;
}

static void at24c_destroy(void *model)
{
    at24c_t *m = model;
    if (m == NULL) return;
    if (m->fd >= 0) close(m->fd);
    free(m->mem);
    free(m->backing);
    free(m->backing_name);
    free(m);
}

static bool backing(at24c_t *m, const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    const char *name = NULL;
    if (!sim_cfg_string(cfg, "backing_file", false, NULL, &name, e)) return false;
    if (name == NULL) return true;
    if (name[0] == 0) return sim_cfg_fail(e, "backing_file", "must not be empty");
    m->backing_name = sim_cfg_strdup(name);
    m->backing = sim_cfg_join_path(base_dir, name);
    if (m->backing == NULL || m->backing_name == NULL)
        return sim_cfg_fail(e, "backing_file", "out of memory");
    return load(m, e);
}

static void *at24c_create(const json_t *cfg, const char *base_dir, sim_cfg_err_t *e)
{
    static const char *const keys[] = {SIM_MODEL_COMMON_KEYS, "size",         "page", "fill",
                                       "write_cycle_ms",      "backing_file", NULL};
    at24c_t *m = calloc(1, sizeof *m);
    if (m == NULL) {
        sim_cfg_fail(e, "", "out of memory");
        return NULL;
    }
    m->fd = -1;
    if (!sim_cfg_keys(cfg, keys, e) || !geometry(m, cfg, e)) {
        free(m);
        return NULL;
    }
    m->mem = malloc(m->size);
    if (m->mem == NULL) {
        free(m);
        sim_cfg_fail(e, "size", "out of memory");
        return NULL;
    }
    memset(m->mem, m->fill, m->size);
    if (backing(m, cfg, base_dir, e)) return m;
    at24c_destroy(m);
    return NULL;
}

/* ---------------------------------------------------------------- backend face */

static const char *const encodings[] = {"hex", "array", NULL};

static json_t *bytes_json(const uint8_t *p, size_t n, bool hex)
{
    if (hex) {
        char *text = sim_cfg_hex(p, n);
        json_t *s = json_string(text ? text : "");
        free(text);
        return s;
    }
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_integer(p[i]));
    return a;
}

static json_t *at24c_get(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"offset", "count", "encoding", NULL};
    at24c_t *m = model;
    long long offset = 0, count = 0;
    int enc = 0;
    if (!sim_cfg_keys(params, keys, e) ||
        !sim_cfg_int(params, "offset", false, 0, 0, m->size - 1, &offset, e) ||
        !sim_cfg_int(params, "count", false, m->size - offset, 0, m->size - offset, &count, e) ||
        !sim_cfg_enum(params, "encoding", encodings, 0, &enc, e))
        return NULL;
    json_t *o = json_pack("{s:i, s:i, s:i, s:f, s:b, s:i, s:i, s:I, s:I}", "size", (int)m->size,
                          "page", m->page, "address_bytes", m->addr_bytes, "write_cycle_ms",
                          m->write_cycle_us / 1000.0, "busy", now_us < m->busy_until, "page_writes",
                          (int)m->page_writes, "nacks", (int)m->nacks, "offset", (json_int_t)offset,
                          "count", (json_int_t)count);
    json_object_set_new(o, "bytes", bytes_json(m->mem + offset, (size_t)count, enc == 0));
    if (m->backing_name) json_object_set_new(o, "backing_file", json_string(m->backing_name));
    if (m->backing_err[0]) json_object_set_new(o, "backing_error", json_string(m->backing_err));
    if (m->backing_name) json_object_set_new(o, "write_errors", json_integer(m->write_errors));
    return o;
}

/* Backend writes are instantaneous (no write cycle) and reach the file before the reply. */
static bool at24c_set(void *model, const json_t *params, uint64_t now_us, sim_cfg_err_t *e)
{
    static const char *const keys[] = {"offset", "bytes", "fill", NULL};
    at24c_t *m = model;
    long long offset = 0, fill = -1;
    (void)now_us;
    if (!sim_cfg_keys(params, keys, e) || !sim_cfg_int(params, "fill", false, -1, 0, 255, &fill, e))
        return false;
    const json_t *bytes = json_object_get(params, "bytes");
    if (bytes == NULL && fill < 0) return sim_cfg_fail(e, "", "give bytes (with offset) or fill");
    if (fill >= 0) memset(m->mem, (int)fill, m->size);
    if (bytes != NULL) {
        if (!sim_cfg_int(params, "offset", true, 0, 0, m->size - 1, &offset, e)) return false;
        size_t n = 0;
        unsigned char *data = sim_cfg_bytes(bytes, "bytes", &n, e);
        if (data == NULL) return false;
        bool fits = n <= m->size - (size_t)offset;
        if (fits) memcpy(m->mem + offset, data, n);
        free(data);
        if (!fits)
            return sim_cfg_fail(e, "bytes",
                                "%zu bytes from offset %lld run past the end of the "
                                "%u-byte chip",
                                n, offset, (unsigned)m->size);
    }
    if (!persist(m, 0, m->size)) return sim_cfg_fail(e, "backing_file", "%s", m->backing_err);
    return true;
}

static uint8_t at24c_span(const void *model)
{
    return ((const at24c_t *)model)->blocks;
}

/* The driver's configuration, as a generated board gives it: the page only when the board file
   names one (the driver's family default is the model's). */
static void at24c_fw_config(const void *model, void *config)
{
    const at24c_t *m = model;
    *(fw_at24c_config_t *)config =
        (fw_at24c_config_t){.size_bytes = m->size, .page_bytes = m->page_given};
}

const sim_model_ops_t sim_model_at24c = {
    .name = "at24c",
#if FW_WITH_I2C
    .driver = &fw_driver_at24c,
#endif
    .config_size = sizeof(fw_at24c_config_t),
    .create = at24c_create,
    .destroy = at24c_destroy,
    .address_span = at24c_span,
    .transfer = at24c_transfer,
    .get = at24c_get,
    .set = at24c_set,
    .fw_config = at24c_fw_config,
};
