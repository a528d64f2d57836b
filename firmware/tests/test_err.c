/* test_err.c: specification of the error table (err.c): names and JSON-RPC codes. */
#include "fw_err.h"
#include "test_util.h"

typedef struct err_case {
    fw_err_t err;
    int code;
} err_case_t;

/* Every value of fw_err_t (keep in step with fw_err.h) and the code it must map to. */
static const err_case_t cases[] = {
    {FW_ERR_JSON_INVALID, -32700},
    {FW_ERR_JSON_NOMEM, -32600},
    {FW_ERR_JSON_DEPTH, -32600},
    {FW_ERR_LINE_TOO_LONG, -32700},
    {FW_ERR_INVALID_REQUEST, -32600},
    {FW_ERR_METHOD_NOT_FOUND, -32601},
    {FW_ERR_INVALID_PARAMS, -32602},
    {FW_ERR_INTERNAL, -32603},
    {FW_ERR_BATCH_TOO_LARGE, -32600},
    {FW_ERR_NO_SPACE, -32603},
    {FW_ERR_EXISTS, -32603},
    {FW_ERR_ARG, -32603},
    {FW_ERR_RESOURCE_NOT_FOUND, -32002},
    {FW_ERR_HW, -32000},
    {FW_ERR_UNSUPPORTED, -32001},
    {FW_ERR_I2C_NACK, -32002},
    {FW_ERR_I2C_BUS, -32003},
    {FW_ERR_I2C_TIMEOUT, -32004},
    {FW_ERR_ADC, -32005},
    {FW_ERR_TIMEOUT, -32006},
    {FW_ERR_DEVICE_DATA, -32007},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static bool is_hardware(fw_err_t e)
{
    return e <= FW_ERR_HW;
}

START_TEST(test_code_of_each_error)
{
    ck_assert_int_eq(fw_err_rpc_code(cases[_i].err), cases[_i].code);
}
END_TEST

START_TEST(test_codes_in_documented_ranges)
{
    int code = fw_err_rpc_code(cases[_i].err);
    if (is_hardware(cases[_i].err)) {
        /* server errors: -32000..-32099, one distinct code per hardware error */
        ck_assert_int_le(code, -32000);
        ck_assert_int_ge(code, -32099);
        for (int j = 0; j < NCASES; j++) {
            if (j != _i && is_hardware(cases[j].err)) {
                ck_assert_int_ne(code, fw_err_rpc_code(cases[j].err));
            }
        }
    } else if (cases[_i].err == FW_ERR_RESOURCE_NOT_FOUND) {
        ck_assert_int_eq(code, -32002); /* fixed by the MCP specification */
    } else {
        ck_assert(code == -32700 || (code <= -32600 && code >= -32603));
    }
}
END_TEST

START_TEST(test_each_error_has_its_own_name)
{
    const char *s = fw_err_str(cases[_i].err);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_gt(strlen(s), 0);
    ck_assert_str_ne(s, "unknown error");
    ck_assert_str_ne(s, fw_err_str(FW_OK));
    for (int j = 0; j < NCASES; j++) {
        if (j != _i) {
            ck_assert_str_ne(s, fw_err_str(cases[j].err));
        }
    }
}
END_TEST

START_TEST(test_ok)
{
    ck_assert_int_eq(fw_err_rpc_code(FW_OK), 0);
    ck_assert_str_ne(fw_err_str(FW_OK), "unknown error");
}
END_TEST

START_TEST(test_unknown_values)
{
    static const int unknown[] = {1, -4, -9, -20, -29, -38, -1000, 12345};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        fw_err_t e = (fw_err_t)unknown[i];
        ck_assert_str_eq(fw_err_str(e), "unknown error");
        ck_assert_int_eq(fw_err_rpc_code(e), -32603);
    }
}
END_TEST

START_TEST(test_example_wording)
{
    ck_assert_str_eq(fw_err_str(FW_ERR_I2C_NACK), "i2c device did not acknowledge");
}
END_TEST

Suite *err_suite(void);

Suite *err_suite(void)
{
    Suite *s = suite_create("err");
    TCase *t = tcase_create("table");
    tcase_add_loop_test(t, test_code_of_each_error, 0, NCASES);
    tcase_add_loop_test(t, test_codes_in_documented_ranges, 0, NCASES);
    tcase_add_loop_test(t, test_each_error_has_its_own_name, 0, NCASES);
    tcase_add_test(t, test_ok);
    tcase_add_test(t, test_unknown_values);
    tcase_add_test(t, test_example_wording);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(err_suite)
