/* test_devices.c: the I2C device models at register level (TMP102, AT24C, regmap) and the bus
   in front of them (timing, address decoding, faults). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp for the backing files' temp directory */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "at24c.h"
#include "i2c_bus.h"
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

static void *create(const sim_model_ops_t *ops, const char *cfg_json, const char *dir)
{
    json_error_t je;
    json_t *cfg = json_loads(cfg_json, 0, &je);
    ck_assert_msg(cfg != NULL, "bad test JSON: %s", je.text);
    sim_cfg_err_t e;
    void *m = ops->create(cfg, dir, &e);
    json_decref(cfg);
    ck_assert_msg(m != NULL, "%s: %s", e.path, e.msg);
    return m;
}

/* "path: message" of a refused configuration. */
static const char *create_error(const sim_model_ops_t *ops, const char *cfg_json)
{
    static char text[600];
    json_t *cfg = json_loads(cfg_json, 0, NULL);
    ck_assert_ptr_nonnull(cfg);
    sim_cfg_err_t e;
    void *m = ops->create(cfg, ".", &e);
    json_decref(cfg);
    ck_assert_msg(m == NULL, "%s was accepted", cfg_json);
    snprintf(text, sizeof text, "%s: %s", e.path, e.msg);
    return text;
}

/* One transfer at time t_us (START) to address offset 0. */
static fw_err_t xfer_at(const sim_model_ops_t *ops, void *m, uint8_t offset, const uint8_t *tx,
                        size_t tx_len, uint8_t *rx, size_t rx_len, uint64_t t_us)
{
    sim_xfer_t x = {
        offset, tx, tx_len, rx, rx_len, t_us, t_us + sim_i2c_duration_us(tx_len, rx_len)};
    return ops->transfer(m, &x);
}

/* Reads a 16-bit register through the pointer, as the firmware driver does. */
static unsigned read_reg16(void *m, uint8_t reg, uint64_t t_us)
{
    uint8_t rx[2] = {0};
    ck_assert_int_eq(xfer_at(&sim_model_tmp102, m, 0, &reg, 1, rx, 2, t_us), FW_OK);
    return (unsigned)(rx[0] << 8 | rx[1]);
}

static void write_reg16(void *m, uint8_t reg, unsigned v)
{
    uint8_t tx[3] = {reg, (uint8_t)(v >> 8), (uint8_t)v};
    ck_assert_int_eq(xfer_at(&sim_model_tmp102, m, 0, tx, 3, NULL, 0, 0), FW_OK);
}

static json_t *get_state(const sim_model_ops_t *ops, void *m, const char *params, uint64_t t)
{
    json_t *p = json_loads(params, 0, NULL);
    sim_cfg_err_t e;
    json_t *s = ops->get(m, p, t, &e);
    json_decref(p);
    ck_assert_msg(s != NULL, "%s: %s", e.path, e.msg);
    return s;
}

static bool set_state(const sim_model_ops_t *ops, void *m, const char *params, sim_cfg_err_t *e)
{
    json_t *p = json_loads(params, 0, NULL);
    ck_assert_ptr_nonnull(p);
    bool ok = ops->set(m, p, 0, e);
    json_decref(p);
    return ok;
}

/* ---------------------------------------------------------------- TMP102 */

START_TEST(tmp102_temperature_register_12_bit)
{
    static const struct {
        double celsius;
        unsigned reg;
    } cases[] = {
        {25.0, 0x1900},   {0.0625, 0x0010}, {0.0, 0x0000},      {-0.0625, 0xFFF0},
        {-25.0, 0xE700},  {-55.0, 0xC900},  {127.9375, 0x7FF0}, {150.0, 0x7FF0}, /* saturates */
        {-128.0, 0x8000}, {22.53, 0x1680}, /* rounded to the nearest 1/16 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cfg[80];
        snprintf(cfg, sizeof cfg, "{\"temperature_c\": %g}", cases[i].celsius);
        void *m = create(&sim_model_tmp102, cfg, ".");
        ck_assert_msg(read_reg16(m, 0x00, 0) == cases[i].reg, "%g C read 0x%04x, expected 0x%04x",
                      cases[i].celsius, read_reg16(m, 0x00, 0), cases[i].reg);
        sim_model_tmp102.destroy(m);
    }
}
END_TEST

START_TEST(tmp102_extended_mode_is_13_bit)
{
    void *m = create(&sim_model_tmp102, "{\"temperature_c\": 150, \"extended\": true}", ".");
    ck_assert_uint_eq(read_reg16(m, 0x01, 0), 0x60B0);            /* EM set */
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), (2400u << 3) | 1u); /* 0x4B01: D0 flags EM */
    sim_model_tmp102.destroy(m);
    m = create(&sim_model_tmp102, "{\"temperature_c\": -40}", ".");
    write_reg16(m, 0x01, 0x60B0); /* the driver's way: set EM in the configuration */
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), ((0x2000u - 640u) << 3) | 1u);
    write_reg16(m, 0x01, 0x60A0);
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), (0x1000u - 640u) << 4);
    sim_model_tmp102.destroy(m);
}
END_TEST

START_TEST(tmp102_config_and_limit_registers)
{
    void *m = create(&sim_model_tmp102, "{\"temperature_c\": 20}", ".");
    ck_assert_uint_eq(read_reg16(m, 0x01, 0), 0x60A0); /* power-on value, AL = 1 (no alert) */
    ck_assert_uint_eq(read_reg16(m, 0x02, 0), 0x4B00); /* T_LOW 75 C */
    ck_assert_uint_eq(read_reg16(m, 0x03, 0), 0x5000); /* T_HIGH 80 C */
    write_reg16(m, 0x01, 0xFFFF); /* OS reads 0, R1 R0 read 1 1, the low nibble 0; POL = 1 */
    ck_assert_uint_eq(read_reg16(m, 0x01, 0), 0x7FD0); /* inverts AL: no alert reads 0 */
    write_reg16(m, 0x01, 0x60A0);
    write_reg16(m, 0x03, 0x1234); /* 12-bit: low nibble reads 0 */
    ck_assert_uint_eq(read_reg16(m, 0x03, 0), 0x1230);
    write_reg16(m, 0x00, 0x7FF0); /* the temperature is read-only */
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), 0x1400);
    /* comparator: 20 C >= T_HIGH (18.1875 C) raises the alert, AL reads 0 with POL = 0 */
    ck_assert_uint_eq(read_reg16(m, 0x01, 0), 0x6080);
    write_reg16(m, 0x03, 0x1900); /* T_HIGH 25 C: still above T_LOW? */
    write_reg16(m, 0x02, 0x1500); /* T_LOW 21 C: 20 C is below, clears */
    ck_assert_uint_eq(read_reg16(m, 0x01, 0), 0x60A0);
    /* the pointer stays: a read without a pointer write reads the last register */
    uint8_t rx[4];
    ck_assert_int_eq(xfer_at(&sim_model_tmp102, m, 0, NULL, 0, rx, 4, 0), FW_OK);
    ck_assert_uint_eq(rx[0], 0x60);
    ck_assert_uint_eq(rx[2], 0x60); /* further bytes repeat the register */
    sim_model_tmp102.destroy(m);
}
END_TEST

START_TEST(tmp102_follows_its_waveform)
{
    void *m = create(&sim_model_tmp102,
                     "{\"waveform\": {\"type\": \"points\", \"points\": "
                     "[[0, 20], [1000, 30]]}}",
                     ".");
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), 20u * 16u << 4);
    ck_assert_uint_eq(read_reg16(m, 0x00, 500000), 25u * 16u << 4);
    ck_assert_uint_eq(read_reg16(m, 0x00, 2000000), 30u * 16u << 4);
    json_t *s = get_state(&sim_model_tmp102, m, "{}", 250000);
    ck_assert_double_eq_tol(json_real_value(json_object_get(s, "temperature_c")), 22.5, 1e-9);
    json_decref(s);
    sim_cfg_err_t e;
    ck_assert(set_state(&sim_model_tmp102, m, "{\"temperature_c\": -10.5}", &e));
    ck_assert_uint_eq(read_reg16(m, 0x00, 0), (0x1000u - 168u) << 4);
    ck_assert(!set_state(&sim_model_tmp102, m, "{\"celsius\": 3}", &e));
    ck_assert_str_eq(e.msg, "unknown key \"celsius\" (allowed: temperature_c, waveform, extended)");
    ck_assert(!set_state(&sim_model_tmp102, m, "{\"waveform\": {\"type\": \"sine\"}}", &e));
    ck_assert_str_eq(e.path, "waveform");
    sim_model_tmp102.destroy(m);
}
END_TEST

START_TEST(tmp102_bad_configuration)
{
    ck_assert_str_eq(create_error(&sim_model_tmp102, "{\"temperature_c\": 1, \"waveform\": 2}"),
                     "waveform: give temperature_c or waveform, not both");
    ck_assert_str_eq(create_error(&sim_model_tmp102, "{\"temp\": 1}"),
                     "temp: unknown key \"temp\" (allowed: model, address, bus, name, "
                     "temperature_c, waveform, extended)");
    ck_assert_str_eq(create_error(&sim_model_tmp102, "{\"extended\": 1}"),
                     "extended: must be true or false, not an integer");
}
END_TEST

/* ---------------------------------------------------------------- AT24C */

static void ee_write(void *m, uint8_t offset, const uint8_t *tx, size_t n, uint64_t t)
{
    ck_assert_int_eq(xfer_at(&sim_model_at24c, m, offset, tx, n, NULL, 0, t), FW_OK);
}

static void ee_read(void *m, uint8_t offset, const uint8_t *addr, size_t alen, uint8_t *rx,
                    size_t n, uint64_t t)
{
    ck_assert_int_eq(xfer_at(&sim_model_at24c, m, offset, addr, alen, rx, n, t), FW_OK);
}

START_TEST(at24c_random_and_sequential_read)
{
    void *m = create(&sim_model_at24c, "{\"size\": 256}", ".");
    const uint8_t w[] = {0x05, 0xA1, 0xA2, 0xA3};
    ee_write(m, 0, w, sizeof w, 0);
    uint8_t rx[5] = {0}, a = 0x04;
    ee_read(m, 0, &a, 1, rx, 5, 10000);
    ck_assert_mem_eq(rx, ((uint8_t[]){0xFF, 0xA1, 0xA2, 0xA3, 0xFF}), 5);
    a = 0xFE; /* sequential read wraps at the end of memory */
    const uint8_t w2[] = {0x00, 0x11};
    ee_write(m, 0, w2, 2, 20000);
    ee_read(m, 0, &a, 1, rx, 4, 30000);
    ck_assert_mem_eq(rx, ((uint8_t[]){0xFF, 0xFF, 0x11, 0xFF}), 4);
    ee_read(m, 0, NULL, 0, rx, 1, 30500); /* current address read: the pointer moved on */
    ck_assert_uint_eq(rx[0], 0xFF);
    sim_model_at24c.destroy(m);
}
END_TEST

START_TEST(at24c_page_write_wraps_inside_the_page)
{
    void *m = create(&sim_model_at24c, "{\"size\": 256, \"fill\": 0}", ".");
    const uint8_t w[] = {0x0E, 1, 2, 3, 4}; /* page 8: offsets 14, 15, then 8, 9 */
    ee_write(m, 0, w, sizeof w, 0);
    uint8_t rx[10], a = 0x08;
    ee_read(m, 0, &a, 1, rx, 8, 10000);
    ck_assert_mem_eq(rx, ((uint8_t[]){3, 4, 0, 0, 0, 0, 1, 2}), 8);
    sim_model_at24c.destroy(m);
    /* 2-byte addressing, page 32 */
    m = create(&sim_model_at24c, "{\"size\": 4096, \"page\": 32, \"fill\": 0}", ".");
    uint8_t w2[2 + 34] = {0x01, 0x3E};
    for (int i = 0; i < 34; i++) w2[2 + i] = (uint8_t)(0x40 + i);
    ee_write(m, 0, w2, sizeof w2, 0); /* 34 bytes from 0x13E: 0x13E, 0x13F, 0x120 .. 0x13F */
    uint8_t a2[2] = {0x01, 0x1F};
    uint8_t big[34];
    ee_read(m, 0, a2, 2, big, 34, 10000);
    ck_assert_uint_eq(big[0], 0);        /* 0x11F: the page before is untouched */
    ck_assert_uint_eq(big[1], 0x40 + 2); /* 0x120: the third byte, after the wrap */
    ck_assert_uint_eq(big[30], 0x40 + 31);
    ck_assert_uint_eq(big[31], 0x40 + 32); /* 0x13E: the 33rd byte overwrote the 1st */
    ck_assert_uint_eq(big[32], 0x40 + 33);
    ck_assert_uint_eq(big[33], 0); /* 0x140: the next page is untouched */
    sim_model_at24c.destroy(m);
}
END_TEST

START_TEST(at24c_block_select_in_the_device_address)
{
    void *m = create(&sim_model_at24c, "{\"size\": 1024}", ".");
    ck_assert_uint_eq(sim_model_at24c.address_span(m), 4);
    const uint8_t w[] = {0x10, 0x5A};
    ee_write(m, 2, w, 2, 0); /* device address base + 2: block 2 */
    json_t *s = get_state(&sim_model_at24c, m, "{\"offset\": 528, \"count\": 2}", 0);
    ck_assert_str_eq(json_string_value(json_object_get(s, "bytes")), "5aff");
    json_decref(s);
    uint8_t rx, a = 0x10;
    ee_read(m, 0, &a, 1, &rx, 1, 10000); /* block 0 is another byte */
    ck_assert_uint_eq(rx, 0xFF);
    ee_read(m, 2, &a, 1, &rx, 1, 10100);
    ck_assert_uint_eq(rx, 0x5A);
    ck_assert_ptr_eq(sim_model_at24c.driver, &fw_driver_at24c);
    ck_assert_uint_eq(sim_model_at24c.config_size, sizeof(fw_at24c_config_t));
    fw_at24c_config_t config = {0, 1};
    sim_model_at24c.fw_config(m, &config);
    ck_assert_uint_eq(config.size_bytes, 1024);
    ck_assert_uint_eq(config.page_bytes, 0); /* no "page": the driver's family default (16) */
    sim_model_at24c.destroy(m);
    m = create(&sim_model_at24c, "{\"size\": 1024, \"page\": 8}", ".");
    sim_model_at24c.fw_config(m, &config);
    ck_assert_uint_eq(config.page_bytes, 8);
    sim_model_at24c.destroy(m);
}
END_TEST

START_TEST(at24c_nacks_during_the_write_cycle)
{
    void *m = create(&sim_model_at24c, "{\"size\": 256}", ".");
    const uint8_t w[] = {0x00, 0x42};
    sim_xfer_t x = {0, w, 2, NULL, 0, 1000, 1000 + sim_i2c_duration_us(2, 0)};
    ck_assert_int_eq(sim_model_at24c.transfer(m, &x), FW_OK);
    uint64_t done = x.end_us + 5000; /* 5 ms after the STOP */
    ck_assert_int_eq(xfer_at(&sim_model_at24c, m, 0, NULL, 0, NULL, 0, done - 1), FW_ERR_I2C_NACK);
    uint8_t rx, a = 0;
    ck_assert_int_eq(xfer_at(&sim_model_at24c, m, 0, &a, 1, &rx, 1, x.end_us), FW_ERR_I2C_NACK);
    ck_assert_int_eq(xfer_at(&sim_model_at24c, m, 0, NULL, 0, NULL, 0, done), FW_OK);
    ee_read(m, 0, &a, 1, &rx, 1, done);
    ck_assert_uint_eq(rx, 0x42);
    json_t *s = get_state(&sim_model_at24c, m, "{\"count\": 0}", done);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "nacks")), 2);
    json_decref(s);
    sim_model_at24c.destroy(m);
}
END_TEST

static char tmpdir[64];

static char *tmp_path(const char *name)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

START_TEST(at24c_backing_file_survives_restarts)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpsim-ee-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    const char *cfg = "{\"size\": 256, \"backing_file\": \"ee.bin\"}";
    void *m = create(&sim_model_at24c, cfg, tmpdir);
    ck_assert_int_eq(file_size(tmp_path("ee.bin")), 256); /* created at load: the blank chip */
    const uint8_t w[] = {0x10, 7, 8, 9};
    ee_write(m, 0, w, sizeof w, 0);
    /* on disk when the transfer returned, before the write cycle ends */
    FILE *f = fopen(tmp_path("ee.bin"), "rb");
    uint8_t disk[256];
    ck_assert_uint_eq(fread(disk, 1, sizeof disk, f), 256);
    fclose(f);
    ck_assert_int_eq(disk[0x10], 7);
    ck_assert_int_eq(disk[0x12], 9);
    ck_assert_int_eq(disk[0x13], 0xFF);
    const uint8_t w2[] = {0x20, 1};
    ee_write(m, 0, w2, 2, 100000);
    sim_model_at24c.destroy(m);

    m = create(&sim_model_at24c, cfg, tmpdir);
    json_t *s = get_state(&sim_model_at24c, m,
                          "{\"offset\": 16, \"count\": 17, "
                          "\"encoding\": \"array\"}",
                          0);
    json_t *bytes = json_object_get(s, "bytes");
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 0)), 7);
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 2)), 9);
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 3)), 0xFF);
    ck_assert_int_eq(json_integer_value(json_array_get(bytes, 16)), 1);
    ck_assert_str_eq(json_string_value(json_object_get(s, "backing_file")), "ee.bin");
    json_decref(s);
    sim_cfg_err_t e; /* backend writes are saved at once */
    ck_assert(set_state(&sim_model_at24c, m, "{\"offset\": 255, \"bytes\": \"ab\"}", &e));
    f = fopen(tmp_path("ee.bin"), "rb");
    fseek(f, 255, SEEK_SET);
    ck_assert_int_eq(fgetc(f), 0xAB);
    fclose(f);
    sim_model_at24c.destroy(m);

    /* a file larger than the chip is refused */
    const char *small = "{\"size\": 128, \"backing_file\": \"ee.bin\"}";
    json_t *j = json_loads(small, 0, NULL);
    ck_assert_ptr_null(sim_model_at24c.create(j, tmpdir, &e));
    json_decref(j);
    ck_assert_str_eq(e.path, "backing_file");
    ck_assert_msg(strstr(e.msg, "holds more than the chip's 128 bytes") != NULL, "%s", e.msg);
    remove(tmp_path("ee.bin"));
    remove(tmpdir);
}
END_TEST

/* A backing path that cannot be written is refused at load; a write the file refuses later is
   a hardware fault the driver sees (and the state names it). */
START_TEST(at24c_backing_file_errors)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpsim-ee-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    json_t *j = json_loads("{\"size\": 256, \"backing_file\": \"missing-dir/ee.bin\"}", 0, NULL);
    sim_cfg_err_t e;
    ck_assert_ptr_null(sim_model_at24c.create(j, tmpdir, &e));
    json_decref(j);
    ck_assert_str_eq(e.path, "backing_file");
    ck_assert_msg(strstr(e.msg, "missing-dir/ee.bin for writing: No such file or directory"),
                  "%s", e.msg);

    void *m = create(&sim_model_at24c, "{\"size\": 256, \"backing_file\": \"ee.bin\"}", tmpdir);
    signal(SIGXFSZ, SIG_IGN); /* the test runs in its own process (Check forks) */
    struct rlimit old, rl = {16, 16};
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    rl.rlim_max = old.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0); /* writes past byte 16 now fail */
    const uint8_t ok[] = {0x00, 1, 2};
    uint8_t tx_bad[] = {0x40, 3};
    /* no assertion until the limit is back: Check itself writes files */
    fw_err_t first = sim_model_at24c.transfer(m, &(sim_xfer_t){0, ok, 3, NULL, 0, 0, 100});
    fw_err_t second = sim_model_at24c.transfer(m, &(sim_xfer_t){0, tx_bad, 2, NULL, 0, 100000, 100100});
    int restored = setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_int_eq(restored, 0);
    ck_assert_int_eq(first, FW_OK);
    ck_assert_int_eq(second, FW_ERR_HW);
    json_t *s = get_state(&sim_model_at24c, m, "{\"count\": 0}", 200000);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "write_errors")), 1);
    ck_assert_msg(strstr(json_string_value(json_object_get(s, "backing_error")), "cannot write"),
                  "backing_error");
    json_decref(s);
    sim_model_at24c.destroy(m);
    remove(tmp_path("ee.bin"));
    remove(tmpdir);
}
END_TEST

START_TEST(at24c_backend_face)
{
    void *m = create(&sim_model_at24c, "{\"size\": 512}", ".");
    sim_cfg_err_t e;
    ck_assert(set_state(&sim_model_at24c, m, "{\"offset\": 510, \"bytes\": [1, 2]}", &e));
    ck_assert(!set_state(&sim_model_at24c, m, "{\"offset\": 511, \"bytes\": [1, 2]}", &e));
    ck_assert_str_eq(e.msg, "2 bytes from offset 511 run past the end of the 512-byte chip");
    ck_assert(!set_state(&sim_model_at24c, m, "{\"bytes\": \"0g\", \"offset\": 0}", &e));
    ck_assert_str_eq(e.msg, "character 1 ('g') is not a hex digit");
    ck_assert(!set_state(&sim_model_at24c, m, "{}", &e));
    ck_assert_str_eq(e.msg, "give bytes (with offset) or fill");
    ck_assert(set_state(&sim_model_at24c, m, "{\"fill\": 0}", &e));
    json_t *s = get_state(&sim_model_at24c, m, "{\"offset\": 508}", 0);
    ck_assert_str_eq(json_string_value(json_object_get(s, "bytes")), "00000000");
    ck_assert_int_eq(json_integer_value(json_object_get(s, "size")), 512);
    ck_assert_int_eq(json_integer_value(json_object_get(s, "page")), 16);
    json_decref(s);
    sim_model_at24c.destroy(m);
}
END_TEST

START_TEST(at24c_bad_configuration)
{
    ck_assert_str_eq(create_error(&sim_model_at24c, "{\"size\": 1000}"),
                     "size: 1000 is not a power of two (AT24C sizes are 128 .. 262144 bytes)");
    ck_assert_str_eq(create_error(&sim_model_at24c, "{\"size\": 64}"),
                     "size: 64 is out of range 128..262144");
    ck_assert_str_eq(create_error(&sim_model_at24c, "{\"size\": 4096, \"page\": 48}"),
                     "page: 48 is not a power of two of at most the chip size");
    ck_assert_str_eq(create_error(&sim_model_at24c, "{\"page\": 8}"),
                     ": missing required key \"size\"");
}
END_TEST

/* ---------------------------------------------------------------- regmap */

START_TEST(regmap_pointer_autoincrement_and_read_only)
{
    void *m = create(&sim_model_regmap,
                     "{\"size\": 4, \"registers\": {\"0x00\": 18, \"2\": 7}, "
                     "\"read_only\": [\"0x00\"]}",
                     ".");
    uint8_t rx[5], p = 0;
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, &p, 1, rx, 5, 0), FW_OK);
    ck_assert_mem_eq(rx, ((uint8_t[]){18, 0, 7, 0, 18}), 5); /* wraps after the last */
    const uint8_t w[] = {0x00, 99, 5, 6};
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, w, sizeof w, NULL, 0, 0), FW_OK);
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, &p, 1, rx, 3, 0), FW_OK);
    ck_assert_mem_eq(rx, ((uint8_t[]){18, 5, 6}), 3); /* register 0 ignored the write */
    p = 4;
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, &p, 1, rx, 1, 0), FW_ERR_I2C_NACK);
    sim_cfg_err_t e; /* the backend may change a read-only register */
    ck_assert(set_state(&sim_model_regmap, m, "{\"registers\": {\"0x00\": 1}}", &e));
    json_t *s = get_state(&sim_model_regmap, m, "{}", 0);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(s, "registers"), "0x00")),
                     1);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(s, "read_only"), 0)), "0x00");
    json_decref(s);
    ck_assert(!set_state(&sim_model_regmap, m, "{\"registers\": {\"0x01\": 2, \"0x09\": 1}}", &e));
    ck_assert_str_eq(e.path, "registers.0x09");
    ck_assert(e.at_key);
    s = get_state(&sim_model_regmap, m, "{}", 0); /* all or nothing */
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(s, "registers"), "0x01")),
                     5);
    json_decref(s);
    sim_model_regmap.destroy(m);
}
END_TEST

START_TEST(regmap_16_bit_registers)
{
    void *m = create(&sim_model_regmap, "{\"width\": 2, \"registers\": {\"0x10\": 4660}}", ".");
    uint8_t rx[4], p = 0x10;
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, &p, 1, rx, 4, 0), FW_OK);
    ck_assert_mem_eq(rx, ((uint8_t[]){0x12, 0x34, 0, 0}), 4);
    const uint8_t w[] = {0x11, 0xAB, 0xCD, 0xEF}; /* the trailing half register is dropped */
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, w, sizeof w, NULL, 0, 0), FW_OK);
    p = 0x11;
    ck_assert_int_eq(xfer_at(&sim_model_regmap, m, 0, &p, 1, rx, 4, 0), FW_OK);
    ck_assert_mem_eq(rx, ((uint8_t[]){0xAB, 0xCD, 0, 0}), 4);
    sim_model_regmap.destroy(m);
    ck_assert_str_eq(create_error(&sim_model_regmap, "{\"registers\": {\"0x01\": 256}}"),
                     "registers.0x01: must be an integer 0..255 (width 1)");
    ck_assert_str_eq(create_error(&sim_model_regmap, "{\"read_only\": [\"r1\"]}"),
                     "read_only[0]: not a register number 0..255 (use 26 or \"0x1a\")");
}
END_TEST

/* ---------------------------------------------------------------- the bus */

static sim_faults_t faults;

static sim_i2c_t *bus_with_devices(void)
{
    sim_faults_init(&faults);
    sim_i2c_t *i2c = sim_i2c_create(2, &faults);
    ck_assert(sim_i2c_attach(i2c, &sim_model_tmp102,
                             create(&sim_model_tmp102, "{\"temperature_c\": 25}", "."), 0, 0x48,
                             "air"));
    ck_assert(sim_i2c_attach(i2c, &sim_model_at24c,
                             create(&sim_model_at24c, "{\"size\": 512}", "."), 0, 0x50, ""));
    return i2c;
}

START_TEST(bus_timing_at_100_khz)
{
    ck_assert_uint_eq(sim_i2c_duration_us(0, 0), 110); /* START, address, STOP */
    ck_assert_uint_eq(sim_i2c_duration_us(2, 0), 290); /* + 2 data bytes */
    ck_assert_uint_eq(sim_i2c_duration_us(1, 2), 480); /* + repeated START, address, 2 */
    ck_assert_uint_eq(sim_i2c_duration_us(0, 2), 290); /* read only */
    sim_i2c_t *i2c = bus_with_devices();
    uint64_t took = 0;
    uint8_t rx[2], reg = 0;
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x48, &reg, 1, rx, 2, 0, &took), FW_OK);
    ck_assert_uint_eq(took, 480);
    ck_assert_uint_eq(rx[0], 0x19);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x49, &reg, 1, rx, 2, 0, &took), FW_ERR_I2C_NACK);
    ck_assert_uint_eq(took, 110); /* the transfer ends at the unacknowledged address */
    ck_assert_uint_eq(rx[0], 0xFF);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x51, NULL, 0, NULL, 0, 0, &took),
                     FW_OK); /* block 1 */
    ck_assert_int_eq(sim_i2c_transfer(i2c, 1, 0x48, NULL, 0, NULL, 0, 0, &took), FW_ERR_I2C_NACK);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 2, 0x48, NULL, 0, NULL, 0, 0, &took), FW_ERR_ARG);
    ck_assert(!sim_i2c_attach(i2c, &sim_model_regmap, create(&sim_model_regmap, "{}", "."), 0, 0x51,
                              "")); /* 0x51 belongs to the 512-byte EEPROM */
    ck_assert_uint_eq(sim_i2c_device_count(i2c), 2);
    ck_assert_str_eq(sim_i2c_find(i2c, 0, 0x48)->name, "air");
    sim_i2c_destroy(i2c);
    sim_faults_free(&faults);
}
END_TEST

START_TEST(bus_faults_are_injected_and_cleared)
{
    sim_i2c_t *i2c = bus_with_devices();
    uint64_t took = 0;
    sim_fault_t nack = {0, SIM_FAULT_I2C_NACK, -1, 0x48, -1, 0};
    uint32_t id = sim_faults_add(&faults, &nack);
    ck_assert_uint_eq(id, 1);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x48, NULL, 0, NULL, 0, 0, &took), FW_ERR_I2C_NACK);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x50, NULL, 0, NULL, 0, 0, &took), FW_OK);
    sim_fault_t lat = {0, SIM_FAULT_LATENCY, -1, -1, -1, 2500};
    ck_assert_uint_eq(sim_faults_add(&faults, &lat), 2);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x50, NULL, 0, NULL, 0, 0, &took), FW_OK);
    ck_assert_uint_eq(took, 2610);
    sim_fault_t stuck = {0, SIM_FAULT_I2C_BUS_STUCK, 0, -1, -1, 0};
    ck_assert_uint_eq(sim_faults_add(&faults, &stuck), 3);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x50, NULL, 0, NULL, 0, 0, &took), FW_ERR_I2C_BUS);
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x48, NULL, 0, NULL, 0, 0, &took), FW_ERR_I2C_BUS);
    uint64_t extra = 0;
    ck_assert_int_eq(sim_faults_adc(&faults, 34, &extra), FW_OK);
    ck_assert_uint_eq(extra, 2500); /* a latency without target slows ADC reads too */
    ck_assert(sim_faults_remove(&faults, 3));
    ck_assert(!sim_faults_remove(&faults, 3));
    ck_assert(sim_faults_remove(&faults, 1));
    ck_assert_int_eq(sim_i2c_transfer(i2c, 0, 0x48, NULL, 0, NULL, 0, 0, &took), FW_OK);
    json_t *list = sim_faults_json(&faults);
    ck_assert_uint_eq(json_array_size(list), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "kind")),
                     "latency");
    json_decref(list);
    ck_assert_uint_eq(sim_faults_clear(&faults), 1);
    sim_fault_t adc = {0, SIM_FAULT_ADC_FAIL, -1, -1, 34, 0};
    ck_assert_uint_eq(sim_faults_add(&faults, &adc), 4); /* ids are never reused */
    ck_assert_int_eq(sim_faults_adc(&faults, 34, &extra), FW_ERR_ADC);
    ck_assert_int_eq(sim_faults_adc(&faults, 35, &extra), FW_OK);
    sim_i2c_destroy(i2c);
    sim_faults_free(&faults);
}
END_TEST

static Suite *devices_suite(void)
{
    Suite *s = suite_create("devices");
    TCase *tmp = tcase_create("tmp102");
    tcase_add_test(tmp, tmp102_temperature_register_12_bit);
    tcase_add_test(tmp, tmp102_extended_mode_is_13_bit);
    tcase_add_test(tmp, tmp102_config_and_limit_registers);
    tcase_add_test(tmp, tmp102_follows_its_waveform);
    tcase_add_test(tmp, tmp102_bad_configuration);
    suite_add_tcase(s, tmp);
    TCase *ee = tcase_create("at24c");
    tcase_add_test(ee, at24c_random_and_sequential_read);
    tcase_add_test(ee, at24c_page_write_wraps_inside_the_page);
    tcase_add_test(ee, at24c_block_select_in_the_device_address);
    tcase_add_test(ee, at24c_nacks_during_the_write_cycle);
    tcase_add_test(ee, at24c_backing_file_survives_restarts);
    tcase_add_test(ee, at24c_backing_file_errors);
    tcase_add_test(ee, at24c_backend_face);
    tcase_add_test(ee, at24c_bad_configuration);
    suite_add_tcase(s, ee);
    TCase *rm = tcase_create("regmap");
    tcase_add_test(rm, regmap_pointer_autoincrement_and_read_only);
    tcase_add_test(rm, regmap_16_bit_registers);
    suite_add_tcase(s, rm);
    TCase *bus = tcase_create("bus");
    tcase_add_test(bus, bus_timing_at_100_khz);
    tcase_add_test(bus, bus_faults_are_injected_and_cleared);
    suite_add_tcase(s, bus);
    return s;
}

TEST_MAIN(devices_suite)
