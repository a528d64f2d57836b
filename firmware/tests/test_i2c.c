/* test_i2c.c: the I2C tools, the TMP102 and AT24C drivers, over JSON-RPC on mock I2C devices. */
#include "test_harness.h"

#if FW_WITH_I2C && FW_WITH_SAMPLING

static mock_i2c_dev_t *tmp;    /* TMP102 at 0x48 */
static mock_i2c_dev_t *eeprom; /* 24C32 at 0x50 */

/*
 * A HAL around the mock for acknowledge polling and failure injection: after every write
 * transaction the addressed chip NACKs `busy_probes` address probes (its write cycle), each
 * probe moves the clock by `ms_per_probe`, and the `fail_at`-th data transfer fails with
 * `fail_err`.
 */
static struct script {
    unsigned busy_probes, nacks_left, probes, transfers, fail_at;
    fw_err_t fail_err;
    uint64_t ms_per_probe;
} script;

static fw_err_t scripted_transfer(void *ctx, uint8_t bus, uint8_t addr, const uint8_t *tx,
                                  size_t tx_len, uint8_t *rx, size_t rx_len)
{
    if (tx_len == 0 && rx_len == 0) {
        script.probes++;
        mock.now += script.ms_per_probe;
        if (script.nacks_left > 0) {
            script.nacks_left--;
            return FW_ERR_I2C_NACK;
        }
        return mock_hal_api.i2c_transfer(ctx, bus, addr, tx, tx_len, rx, rx_len);
    }
    if (++script.transfers == script.fail_at) return script.fail_err;
    fw_err_t err = mock_hal_api.i2c_transfer(ctx, bus, addr, tx, tx_len, rx, rx_len);
    if (err == FW_OK && rx_len == 0) script.nacks_left = script.busy_probes;
    return err;
}

static hal_api_t scripted_api;

/* The mock is a flat memory behind a one-byte pointer, so the TMP102's 16-bit registers overlap:
   temperature = mem[0..1], configuration = mem[1..2]. Only the configuration's second byte
   (mem[2]: CR1 CR0 AL EM 0 0 0 0) matters to the driver; 0xA0 is its power-up value. */
static void set_tmp102(uint8_t msb, uint8_t lsb, bool extended)
{
    tmp->mem[0] = msb;
    tmp->mem[1] = lsb;
    tmp->mem[2] = extended ? 0xB0 : 0xA0;
}

static void start(const fw_board_t *b)
{
    scripted_api = mock_hal_api;
    scripted_api.i2c_transfer = scripted_transfer;
    harness_start(b, &scripted_api);
}

static void setup(void)
{
    harness_reset();
    memset(&script, 0, sizeof script);
    tmp = mock_hal_add_i2c(&mock, 0, 0x48, 1, 4, 0);
    eeprom = mock_hal_add_i2c(&mock, 0, 0x50, 2, 4096, 32); /* the mock keeps 1024 of them */
    set_tmp102(0x19, 0x00, false);                          /* 25 °C */
    start(test_board_greenhouse_min());
}

/* The call succeeds with exactly want_json (single quotes for double ones). */
static void expect(const char *method, const char *params, const char *want_json)
{
    json_t *result = ok(method, params);
    char text[512];
    ck_assert_uint_lt(strlen(want_json), sizeof text);
    strcpy(text, want_json);
    for (char *p = text; *p; p++)
        if (*p == '\'') *p = '"';
    json_error_t jerr;
    json_t *want = json_loads(text, 0, &jerr);
    ck_assert_msg(want != NULL, "bad expectation %s", want_json);
    ck_assert_msg(json_equal(result, want), "got %s, want %s", out.buf, want_json);
    json_decref(want);
}

/* The error message of a failing call, after checking its code. */
static const char *fails(const char *method, const char *params, int code)
{
    json_t *error = rpc_error(method, params, code);
    return json_string_value(json_object_get(error, "message"));
}

/* An invalid-params failure whose first issue is at `path`; returns the wording the error's
   message gives it ("invalid params: <path>: <text>"), of which the issue's message is the
   start (cut to FW_ISSUE_TEXT_MAX - 1 bytes). */
static const char *bad_param(const char *method, const char *params, const char *path)
{
    const char *message = fails(method, params, FW_RPC_INVALID_PARAMS);
    json_t *issue = json_array_get(
        json_object_get(json_object_get(json_object_get(reply, "error"), "data"), "issues"), 0);
    ck_assert_msg(issue != NULL, "no issues in %s", out.buf);
    ck_assert_str_eq(json_string_value(json_object_get(issue, "path")), path);
    char head[96];
    snprintf(head, sizeof head, "invalid params: %s: ", path);
    ck_assert_msg(strncmp(message, head, strlen(head)) == 0, "%s", message);
    const char *text = message + strlen(head);
    const char *issue_text = json_string_value(json_object_get(issue, "message"));
    ck_assert_uint_le(strlen(issue_text), FW_ISSUE_TEXT_MAX - 1);
    ck_assert_msg(strncmp(text, issue_text, strlen(issue_text)) == 0, "'%s' vs '%s'", text,
                  issue_text);
    return text;
}

static void assert_contains(const char *text, const char *part)
{
    ck_assert_msg(text != NULL && strstr(text, part) != NULL, "'%s' lacks '%s'",
                  text ? text : "(null)", part);
}

static void fill(mock_i2c_dev_t *d, uint8_t v)
{
    memset(d->mem, v, sizeof d->mem);
}

/* ---------------------------------------------------------------- i2c_scan */

START_TEST(test_scan_lists_acknowledging_addresses)
{
    expect("i2c_scan", NULL, "{'bus':0,'devices':[72,80],'hex':['0x48','0x50']}");
    /* one zero-length probe each: no data moved, the register pointer untouched */
    ck_assert_uint_eq(tmp->transfers, 1);
    ck_assert_uint_eq(script.probes, 0x77 - 0x08 + 1);
    ck_assert_uint_eq(script.transfers, 0);
}
END_TEST

START_TEST(test_scan_of_an_empty_bus)
{
    tmp->present = false;
    eeprom->present = false;
    expect("i2c_scan", "{'bus':0}", "{'bus':0,'devices':[],'hex':[]}");
}
END_TEST

START_TEST(test_scan_refuses_a_bus_the_board_lacks)
{
    assert_contains(bad_param("i2c_scan", "{'bus':1}", "bus"), "1 i2c bus");
    bad_param("i2c_scan", "{'bus':-1}", "bus");
}
END_TEST

START_TEST(test_scan_stops_at_a_stuck_bus)
{
    eeprom->fail = FW_ERR_I2C_BUS;
    const char *msg = fails("i2c_scan", NULL, FW_RPC_I2C_BUS);
    assert_contains(msg, "bus 0 is stuck");
    assert_contains(msg, "0x50");
    ck_assert_uint_eq(script.probes, 0x50 - 0x08 + 1); /* nothing after the failure */
}
END_TEST

/* ---------------------------------------------------------------- i2c_read / i2c_write */

START_TEST(test_read_a_register_with_repeated_start)
{
    tmp->mem[3] = 0x4B;
    expect("i2c_read", "{'address':72,'register':0,'count':2}",
           "{'bus':0,'address':72,'register':0,'bytes':[25,0]}");
    expect("i2c_read", "{'address':72,'register':3}",
           "{'bus':0,'address':72,'register':3,'bytes':[75]}");
}
END_TEST

START_TEST(test_read_without_register_continues_at_the_pointer)
{
    expect("i2c_write", "{'address':72,'bytes':[2]}", "{'bus':0,'address':72,'written':1}");
    tmp->mem[2] = 0x11;
    tmp->mem[3] = 0x22;
    expect("i2c_read", "{'address':72,'count':2}", "{'bus':0,'address':72,'bytes':[17,34]}");
}
END_TEST

START_TEST(test_write_sends_all_bytes_in_one_transaction)
{
    expect("i2c_write", "{'address':72,'bytes':[1,96,160]}", "{'bus':0,'address':72,'written':3}");
    ck_assert_uint_eq(tmp->mem[1], 96);
    ck_assert_uint_eq(tmp->mem[2], 160);
    ck_assert_uint_eq(script.transfers, 1);
}
END_TEST

START_TEST(test_nack_is_reported_with_address_and_bus)
{
    ck_assert_str_eq(fails("i2c_read", "{'address':73}", FW_RPC_I2C_NACK),
                     "no acknowledge from i2c device 0x49 on bus 0");
    ck_assert_str_eq(fails("i2c_write", "{'address':9,'bytes':[0]}", FW_RPC_I2C_NACK),
                     "no acknowledge from i2c device 0x09 on bus 0");
}
END_TEST

START_TEST(test_bus_errors_and_timeouts_are_distinct)
{
    tmp->fail = FW_ERR_I2C_BUS;
    assert_contains(fails("i2c_read", "{'address':72}", FW_RPC_I2C_BUS),
                    "stuck or lost arbitration");
    tmp->fail = FW_ERR_I2C_TIMEOUT;
    assert_contains(fails("i2c_write", "{'address':72,'bytes':[0]}", FW_RPC_I2C_TIMEOUT),
                    "timed out");
    tmp->fail = FW_ERR_HW;
    assert_contains(fails("i2c_read", "{'address':72}", FW_RPC_HW_FAILURE), "hardware failure");
}
END_TEST

START_TEST(test_read_and_write_arguments_are_validated)
{
    bad_param("i2c_read", "{}", "address");
    bad_param("i2c_read", "{'address':7}", "address");
    bad_param("i2c_read", "{'address':120}", "address");
    bad_param("i2c_read", "{'address':72,'count':0}", "count");
    bad_param("i2c_read", "{'address':72,'count':33}", "count");
    bad_param("i2c_read", "{'address':72,'register':256}", "register");
    bad_param("i2c_write", "{'address':72,'bytes':[]}", "bytes");
    bad_param("i2c_write", "{'address':72,'bytes':[1,256]}", "bytes[1]");
    bad_param("i2c_write",
              "{'address':72,'bytes':"
              "[0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2]}",
              "bytes");
    json_t *r = ok("i2c_read", "{'address':72,'register':0,'count':32}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "bytes")), 32);
}
END_TEST

/* ---------------------------------------------------------------- tmp102 */

START_TEST(test_temperature_in_normal_mode)
{
    expect("read_temperature", NULL,
           "{'address':72,'bus':0,'unit':'C','temperature':25,'celsius':25,'fahrenheit':77,"
           "'raw':400,'extended':false}");
    set_tmp102(0x00, 0x10, false); /* one LSB */
    expect("read_temperature", "{'unit':'F'}",
           "{'address':72,'bus':0,'unit':'F','temperature':32.1125,'celsius':0.0625,"
           "'fahrenheit':32.1125,'raw':1,'extended':false}");
}
END_TEST

START_TEST(test_negative_temperatures)
{
    set_tmp102(0xE7, 0x00, false); /* 0xE70 = -25 °C (SBOS397 table 5) */
    expect("read_temperature", NULL,
           "{'address':72,'bus':0,'unit':'C','temperature':-25,'celsius':-25,'fahrenheit':-13,"
           "'raw':-400,'extended':false}");
    set_tmp102(0xFF, 0xC0, false); /* 0xFFC = -0.25 °C */
    json_t *r = ok("read_temperature", NULL);
    ck_assert_double_eq(json_real_value(json_object_get(r, "celsius")), -0.25);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "raw")), -4);
    set_tmp102(0xC9, 0x00, false); /* 0xC90 = -55 °C, the bottom of the range */
    ck_assert_int_eq(json_integer_value(json_object_get(ok("read_temperature", NULL), "raw")),
                     -880);
}
END_TEST

START_TEST(test_extended_mode_is_read_from_the_configuration)
{
    /* 13-bit 0x0960 = 150 °C, left-justified with D0 = 1 */
    set_tmp102(0x4B, 0x01, true);
    expect("read_temperature", NULL,
           "{'address':72,'bus':0,'unit':'C','temperature':150,'celsius':150,'fahrenheit':302,"
           "'raw':2400,'extended':true}");
    /* the same first byte in 12-bit mode is 0x4B0 = 75 °C */
    set_tmp102(0x4B, 0x00, false);
    ck_assert_int_eq(json_integer_value(json_object_get(ok("read_temperature", NULL), "raw")),
                     1200);
    /* 13-bit 0x1E70 = -25 °C */
    set_tmp102(0xF3, 0x81, true);
    ck_assert_int_eq(json_integer_value(json_object_get(ok("read_temperature", NULL), "raw")),
                     -400);
}
END_TEST

START_TEST(test_implausible_temperatures_are_device_data_errors)
{
    set_tmp102(0x50, 0x01, true); /* 13-bit 0x0A00 = 160 °C */
    assert_contains(fails("read_temperature", NULL, FW_RPC_DEVICE_DATA),
                    "outside the sensor's -55..150");
    set_tmp102(0xC4, 0x00, false); /* 12-bit 0xC40 = -60 °C */
    assert_contains(fails("read_temperature", NULL, FW_RPC_DEVICE_DATA), "about -60 °C");
    set_tmp102(0x19, 0x08, false); /* a bit that always reads 0 in 12-bit mode */
    assert_contains(fails("read_temperature", NULL, FW_RPC_DEVICE_DATA), "bits set");
    set_tmp102(0x19, 0x04, true); /* D2 reads 0 in 13-bit mode too */
    fails("read_temperature", NULL, FW_RPC_DEVICE_DATA);
}
END_TEST

START_TEST(test_tmp102_bus_failures)
{
    tmp->present = false;
    ck_assert_str_eq(fails("read_temperature", NULL, FW_RPC_I2C_NACK),
                     "no acknowledge from tmp102 0x48 on bus 0");
    tmp->present = true;
    tmp->fail = FW_ERR_I2C_BUS;
    assert_contains(fails("read_temperature", NULL, FW_RPC_I2C_BUS), "tmp102 0x48");
    tmp->fail = FW_ERR_I2C_TIMEOUT;
    fails("read_temperature", NULL, FW_RPC_I2C_TIMEOUT);
}
END_TEST

START_TEST(test_tmp102_arguments)
{
    assert_contains(bad_param("read_temperature", "{'address':73}", "address"),
                    "no tmp102 at 0x49");
    bad_param("read_temperature", "{'unit':'K'}", "unit");
    expect("read_temperature", "{'address':72,'unit':'C'}",
           "{'address':72,'bus':0,'unit':'C','temperature':25,'celsius':25,'fahrenheit':77,"
           "'raw':400,'extended':false}");
    ck_assert(fw_device_find_tool(&dev, "read_temperature")->flags & FW_TOOL_READ_ONLY);
}
END_TEST

/* ---------------------------------------------------------------- at24c: 24C32 */

START_TEST(test_eeprom_write_splits_at_page_boundaries)
{
    fill(eeprom, 0xEE);
    /* 28..35 crosses the 32-byte page boundary at 32: two page writes, each ack-polled */
    expect("eeprom_write", "{'offset':28,'bytes':[1,2,3,4,5,6,7,8]}",
           "{'device':80,'bus':0,'offset':28,'written':8,'pages':2}");
    const uint8_t want[] = {0xEE, 1, 2, 3, 4, 5, 6, 7, 8, 0xEE};
    ck_assert_mem_eq(eeprom->mem + 27, want, sizeof want);
    ck_assert_uint_eq(eeprom->mem[0], 0xEE); /* an unsplit write would have wrapped to 0..3 */
    ck_assert_uint_eq(script.transfers, 2);
    ck_assert_uint_eq(script.probes, 2);
}
END_TEST

START_TEST(test_eeprom_page_counts)
{
    json_t *r = ok("eeprom_write", "{'offset':64,'bytes':[0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,"
                                   "9,0,1,2,3,4,5,6,7,8,9,0,1]}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "pages")), 1); /* exactly one page */
    r = ok("eeprom_write", "{'offset':65,'bytes':[0,1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8,9,0,1,2,"
                           "3,4,5,6,7,8,9,0,1]}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "pages")), 2);
    ck_assert_uint_eq(eeprom->mem[96], 1); /* the last byte went to the next page */
}
END_TEST

START_TEST(test_eeprom_read_crosses_pages)
{
    for (unsigned i = 0; i < 64; i++) eeprom->mem[i] = (uint8_t)i;
    expect("eeprom_read", "{'offset':30,'count':4}",
           "{'device':80,'bus':0,'offset':30,'bytes':[30,31,32,33]}");
    expect("eeprom_read", "{'offset':5}", "{'device':80,'bus':0,'offset':5,'bytes':[5]}");
    ck_assert_uint_eq(script.transfers, 2);
}
END_TEST

START_TEST(test_eeprom_refuses_to_go_past_the_end)
{
    assert_contains(bad_param("eeprom_read", "{'offset':4090,'count':7}", "count"),
                    "4096-byte eeprom (at most 6 from there)");
    assert_contains(bad_param("eeprom_read", "{'offset':4096}", "offset"), "last offset 4095");
    bad_param("eeprom_write", "{'offset':4095,'bytes':[1,2]}", "bytes");
    json_t *r = ok("eeprom_read", "{'offset':4090,'count':6}");
    ck_assert_uint_eq(json_array_size(json_object_get(r, "bytes")), 6);
    ck_assert_uint_eq(script.transfers, 1); /* only the valid read reached the bus */
}
END_TEST

START_TEST(test_eeprom_device_parameter)
{
    assert_contains(bad_param("eeprom_read", "{'offset':0,'device':81}", "device"),
                    "no at24c eeprom at i2c address 0x51");
    eeprom->mem[0] = 42;
    expect("eeprom_read", "{'offset':0,'device':80}",
           "{'device':80,'bus':0,'offset':0,'bytes':[42]}");
    ck_assert(fw_device_find_tool(&dev, "eeprom_write")->flags & FW_TOOL_DESTRUCTIVE);
    ck_assert(fw_device_find_tool(&dev, "eeprom_read")->flags & FW_TOOL_READ_ONLY);
}
END_TEST

START_TEST(test_eeprom_ack_polls_until_the_write_cycle_ends)
{
    script.busy_probes = 3;
    expect("eeprom_write", "{'offset':30,'bytes':[1,2,3,4]}",
           "{'device':80,'bus':0,'offset':30,'written':4,'pages':2}");
    ck_assert_uint_eq(script.probes, 2 * (3 + 1)); /* three NACKs, then the ACK, per page */
    /* the next command finds the chip ready */
    expect("eeprom_read", "{'offset':30,'count':4}",
           "{'device':80,'bus':0,'offset':30,'bytes':[1,2,3,4]}");
}
END_TEST

START_TEST(test_eeprom_ack_polling_is_bounded_by_count_on_a_frozen_clock)
{
    script.busy_probes = 100000;
    script.ms_per_probe = 0;
    assert_contains(fails("eeprom_write", "{'offset':30,'bytes':[1,2,3,4]}", FW_RPC_HW_TIMEOUT),
                    "eeprom 0x50 on bus 0 still busy");
    ck_assert_uint_eq(script.probes, 1000);
    ck_assert_uint_eq(script.transfers, 1); /* the second page was not attempted */
}
END_TEST

START_TEST(test_eeprom_ack_polling_is_bounded_by_time)
{
    script.busy_probes = 100000;
    script.ms_per_probe = 1;
    fails("eeprom_write", "{'offset':0,'bytes':[1]}", FW_RPC_HW_TIMEOUT);
    ck_assert_uint_ge(script.probes, 10);
    ck_assert_uint_le(script.probes, 12);
}
END_TEST

START_TEST(test_eeprom_failure_after_a_page_says_what_was_written)
{
    script.fail_at = 2;
    script.fail_err = FW_ERR_I2C_BUS;
    assert_contains(
        fails("eeprom_write", "{'offset':28,'bytes':[1,2,3,4,5,6,7,8]}", FW_RPC_I2C_BUS),
        "after 4 of 8 bytes were written");
    ck_assert_uint_eq(eeprom->mem[31], 4);
    eeprom->present = false;
    ck_assert_str_eq(fails("eeprom_read", "{'offset':0}", FW_RPC_I2C_NACK),
                     "no acknowledge from eeprom 0x50 on bus 0");
}
END_TEST

/* A chip without configuration is the driver's default part, a 24C32: 4096 bytes in 32-byte
   pages behind two address bytes. */
START_TEST(test_eeprom_without_config_is_a_24c32)
{
    static const fw_chip_t plain[] = {{.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50}};
    static const fw_board_t b = {.device = "plain",
                                 .version = "1",
                                 .platform = "test",
                                 .i2c_bus_count = 1,
                                 .chips = plain,
                                 .chip_count = 1,
                                 .toolsets = fw_builtins_i2c};
    start(&b);
    fill(eeprom, 0xEE);
    expect("eeprom_write", "{'offset':30,'bytes':[1,2,3,4]}",
           "{'device':80,'bus':0,'offset':30,'written':4,'pages':2}");
    const uint8_t want[] = {0xEE, 1, 2, 3, 4, 0xEE};
    ck_assert_mem_eq(eeprom->mem + 29, want, sizeof want);
    assert_contains(bad_param("eeprom_read", "{'offset':4096}", "offset"), "last offset 4095");
    ok("eeprom_read", "{'offset':4095}");
}
END_TEST

/* ---------------------------------------------------------------- at24c: block select */

/* A 24C04 (512 bytes: device addresses 0x50 and 0x51, default 16-byte page), a 24C02 at 0x57
   (256 bytes, 8-byte page) and a second TMP102 on a second bus. */
static const fw_at24c_config_t c24c04 = {.size_bytes = 512};
static const fw_at24c_config_t c24c02 = {.size_bytes = 256};
static const fw_chip_t blocks_chips[] = {
    {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &c24c04},
    {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x57, .config = &c24c02},
    {.driver = &fw_driver_tmp102, .bus = 1, .addr = 0x49},
};
static const fw_board_t blocks_board = {.device = "blocks",
                                        .version = "1",
                                        .platform = "test",
                                        .i2c_bus_count = 2,
                                        .chips = blocks_chips,
                                        .chip_count = FW_ARRAY_LEN(blocks_chips),
                                        .toolsets = fw_builtins_i2c};

static mock_i2c_dev_t *block0, *block1, *small;

static void setup_blocks(void)
{
    harness_reset();
    memset(&script, 0, sizeof script);
    block0 = mock_hal_add_i2c(&mock, 0, 0x50, 1, 256, 16);
    block1 = mock_hal_add_i2c(&mock, 0, 0x51, 1, 256, 16);
    small = mock_hal_add_i2c(&mock, 0, 0x57, 1, 256, 8);
    tmp = mock_hal_add_i2c(&mock, 1, 0x49, 1, 4, 0);
    set_tmp102(0x0C, 0x80, false); /* 0x0C8 = 12.5 °C */
    start(&blocks_board);
}

START_TEST(test_block_select_addresses_the_upper_half)
{
    fill(block0, 0xEE);
    fill(block1, 0xEE);
    expect("eeprom_write", "{'offset':252,'bytes':[1,2,3,4,5,6,7,8]}",
           "{'device':80,'bus':0,'offset':252,'written':8,'pages':2}");
    const uint8_t low[] = {1, 2, 3, 4}, high[] = {5, 6, 7, 8};
    ck_assert_mem_eq(block0->mem + 252, low, 4);
    ck_assert_mem_eq(block1->mem, high, 4); /* offset 256 is word 0 of device 0x51 */
    ck_assert_uint_eq(block0->mem[0], 0xEE);
    expect("eeprom_read", "{'offset':254,'count':4}",
           "{'device':80,'bus':0,'offset':254,'bytes':[3,4,5,6]}");
    expect("eeprom_read", "{'offset':511}", "{'device':80,'bus':0,'offset':511,'bytes':[238]}");
    bad_param("eeprom_read", "{'offset':511,'count':2}", "count");
}
END_TEST

START_TEST(test_default_page_sizes_by_capacity)
{
    /* 24C04: 16-byte pages */
    json_t *r = ok("eeprom_write", "{'offset':14,'bytes':[1,2,3,4]}");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "pages")), 2);
    ck_assert_uint_eq(block0->mem[17], 4);
    /* 24C02: 8-byte pages, one address byte, no block bits */
    expect("eeprom_write", "{'offset':6,'bytes':[9,9,9],'device':87}",
           "{'device':87,'bus':0,'offset':6,'written':3,'pages':2}");
    ck_assert_uint_eq(small->mem[8], 9);
    bad_param("eeprom_read", "{'offset':256,'device':87}", "offset");
    /* 0x51 is the 24C04's upper half, not a chip of its own */
    bad_param("eeprom_read", "{'offset':0,'device':81}", "device");
}
END_TEST

START_TEST(test_second_bus_and_second_sensor)
{
    expect("i2c_scan", "{'bus':1}", "{'bus':1,'devices':[73],'hex':['0x49']}");
    expect("i2c_scan", NULL, "{'bus':0,'devices':[80,81,87],'hex':['0x50','0x51','0x57']}");
    json_t *r = ok("read_temperature", NULL);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "address")), 73);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "bus")), 1);
    ck_assert_double_eq(json_real_value(json_object_get(r, "celsius")), 12.5);
}
END_TEST

/* A board whose EEPROM cannot exist is our configuration error: the driver's probe refuses it
   and the device does not start (it used to start and fail every eeprom call with -32603). */
START_TEST(test_impossible_eeprom_declarations)
{
    static const fw_at24c_config_t c512 = {.size_bytes = 512}, c300 = {.size_bytes = 300},
                                   big_page = {.size_bytes = 4096, .page_bytes = 512},
                                   odd_page = {.size_bytes = 4096, .page_bytes = 24},
                                   huge = {.size_bytes = 524288};
    static const fw_chip_t misaligned[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x51, .config = &c512}};
    static const fw_chip_t odd_size[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &c300}};
    static const fw_chip_t page_too_big[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &big_page}};
    static const fw_chip_t page_not_power[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &odd_page}};
    static const fw_chip_t too_large[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &huge}};
    static const fw_chip_t aligned[] = {
        {.driver = &fw_driver_at24c, .bus = 0, .addr = 0x50, .config = &c512}};
    const fw_chip_t *const bad[] = {misaligned, odd_size, page_too_big, page_not_power, too_large};
    fw_board_t b = {.device = "bad",
                    .version = "1",
                    .platform = "test",
                    .i2c_bus_count = 1,
                    .chip_count = 1,
                    .toolsets = fw_builtins_i2c};
    scripted_api = mock_hal_api;
    scripted_api.i2c_transfer = scripted_transfer;
    for (size_t i = 0; i < FW_ARRAY_LEN(bad); i++) {
        b.chips = bad[i];
        ck_assert_msg(fw_device_init(&dev, &b, &scripted_api, &mock) == FW_ERR_ARG, "chip %zu", i);
    }
    ck_assert_uint_eq(script.transfers + script.probes, 0); /* refused before any bus traffic */
    b.chips = aligned;                                      /* a 24C04 at an even address is fine */
    start(&b);
    ok("eeprom_read", "{'offset':0}");
}
END_TEST

static Suite *i2c_suite(void)
{
    Suite *s = suite_create("i2c");
    TCase *t = tcase_create("raw");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_scan_lists_acknowledging_addresses);
    tcase_add_test(t, test_scan_of_an_empty_bus);
    tcase_add_test(t, test_scan_refuses_a_bus_the_board_lacks);
    tcase_add_test(t, test_scan_stops_at_a_stuck_bus);
    tcase_add_test(t, test_read_a_register_with_repeated_start);
    tcase_add_test(t, test_read_without_register_continues_at_the_pointer);
    tcase_add_test(t, test_write_sends_all_bytes_in_one_transaction);
    tcase_add_test(t, test_nack_is_reported_with_address_and_bus);
    tcase_add_test(t, test_bus_errors_and_timeouts_are_distinct);
    tcase_add_test(t, test_read_and_write_arguments_are_validated);
    suite_add_tcase(s, t);

    t = tcase_create("tmp102");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_temperature_in_normal_mode);
    tcase_add_test(t, test_negative_temperatures);
    tcase_add_test(t, test_extended_mode_is_read_from_the_configuration);
    tcase_add_test(t, test_implausible_temperatures_are_device_data_errors);
    tcase_add_test(t, test_tmp102_bus_failures);
    tcase_add_test(t, test_tmp102_arguments);
    suite_add_tcase(s, t);

    t = tcase_create("at24c");
    tcase_add_checked_fixture(t, setup, harness_teardown);
    tcase_add_test(t, test_eeprom_write_splits_at_page_boundaries);
    tcase_add_test(t, test_eeprom_page_counts);
    tcase_add_test(t, test_eeprom_read_crosses_pages);
    tcase_add_test(t, test_eeprom_refuses_to_go_past_the_end);
    tcase_add_test(t, test_eeprom_device_parameter);
    tcase_add_test(t, test_eeprom_ack_polls_until_the_write_cycle_ends);
    tcase_add_test(t, test_eeprom_ack_polling_is_bounded_by_count_on_a_frozen_clock);
    tcase_add_test(t, test_eeprom_ack_polling_is_bounded_by_time);
    tcase_add_test(t, test_eeprom_failure_after_a_page_says_what_was_written);
    tcase_add_test(t, test_eeprom_without_config_is_a_24c32);
    suite_add_tcase(s, t);

    t = tcase_create("at24c_blocks");
    tcase_add_checked_fixture(t, setup_blocks, harness_teardown);
    tcase_add_test(t, test_block_select_addresses_the_upper_half);
    tcase_add_test(t, test_default_page_sizes_by_capacity);
    tcase_add_test(t, test_second_bus_and_second_sensor);
    tcase_add_test(t, test_impossible_eeprom_declarations);
    suite_add_tcase(s, t);
    return s;
}

#else /* !(FW_WITH_I2C && FW_WITH_SAMPLING) */

/* A build without I2C: no i2c tools, and a board with a bus is refused. */
START_TEST(test_feature_is_off)
{
    static const fw_pin_def_t pins[] = {
        {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led"}};
    fw_board_t b = {.device = "no-i2c",
                    .version = "1",
                    .platform = "mock",
                    .pins = pins,
                    .pin_count = 1,
                    .toolsets = fw_builtins};
#if !FW_WITH_I2C
    harness_reset();
    harness_start(&b, &mock_hal_api);
    rpc_error("i2c_scan", NULL, FW_RPC_METHOD_NOT_FOUND);
    ck_assert_uint_eq(fw_device_i2c_buses(&dev), 0);
    b.i2c_bus_count = 1;
    ck_assert_int_eq(fw_device_init(&dev, &b, &mock_hal_api, &mock), FW_ERR_UNSUPPORTED);
    harness_teardown();
#else
    ck_assert(!FW_WITH_SAMPLING); /* the test boards need both */
#endif
}
END_TEST

static Suite *i2c_suite(void)
{
    Suite *s = suite_create("i2c");
    TCase *t = tcase_create("feature_off");
    tcase_add_test(t, test_feature_is_off);
    suite_add_tcase(s, t);
    return s;
}

#endif

TEST_MAIN(i2c_suite)
