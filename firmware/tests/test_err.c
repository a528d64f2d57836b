/* test_err.c: specification of the error table (err.c): names and JSON-RPC codes. */
#include "fw_err.h"
#include "test_util.h"

typedef struct err_case {
    fw_err_t err;
    int code;
} err_case_t;

/* Every value of fw_err_t (keep in step with fw_err.h) and the code it must map to; the table
   follows the build's features (no MCP, no resource errors; no I2C, no bus errors). */
static const err_case_t cases[] = {
    {FW_ERR_JSON_INVALID, FW_RPC_PARSE_ERROR},
    {FW_ERR_JSON_NOMEM, FW_RPC_INVALID_REQUEST},
    {FW_ERR_JSON_DEPTH, FW_RPC_INVALID_REQUEST},
    {FW_ERR_LINE_TOO_LONG, FW_RPC_PARSE_ERROR},
    {FW_ERR_INVALID_REQUEST, FW_RPC_INVALID_REQUEST},
    {FW_ERR_METHOD_NOT_FOUND, FW_RPC_METHOD_NOT_FOUND},
    {FW_ERR_INVALID_PARAMS, FW_RPC_INVALID_PARAMS},
    {FW_ERR_INTERNAL, FW_RPC_INTERNAL_ERROR},
    {FW_ERR_BATCH_TOO_LARGE, FW_RPC_INVALID_REQUEST},
    {FW_ERR_NO_SPACE, FW_RPC_INTERNAL_ERROR},
    {FW_ERR_EXISTS, FW_RPC_INTERNAL_ERROR},
    {FW_ERR_ARG, FW_RPC_INTERNAL_ERROR},
#if FW_WITH_MCP
    {FW_ERR_RESOURCE_NOT_FOUND, FW_RPC_RESOURCE_NOT_FOUND},
    {FW_ERR_CLIENT_CAPABILITY, FW_RPC_MISSING_CLIENT_CAP},
    {FW_ERR_PROTOCOL_VERSION, FW_RPC_UNSUPPORTED_VERSION},
#endif
    {FW_ERR_HW, FW_RPC_HW_FAILURE},
    {FW_ERR_UNSUPPORTED, FW_RPC_UNSUPPORTED},
#if FW_WITH_I2C
    {FW_ERR_I2C_NACK, FW_RPC_I2C_NACK},
    {FW_ERR_I2C_BUS, FW_RPC_I2C_BUS},
    {FW_ERR_I2C_TIMEOUT, FW_RPC_I2C_TIMEOUT},
#endif
    {FW_ERR_ADC, FW_RPC_ADC},
    {FW_ERR_TIMEOUT, FW_RPC_HW_TIMEOUT},
    {FW_ERR_DEVICE_DATA, FW_RPC_DEVICE_DATA},
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
        /* the hardware range (-32010..-32029, apart from the transports' and MCP's codes),
           one distinct code per hardware error */
        ck_assert_int_le(code, FW_RPC_HW_LAST);
        ck_assert_int_ge(code, FW_RPC_HW_FIRST);
        ck_assert_int_le(code, -32010);
        ck_assert_int_ge(code, -32029);
        for (int j = 0; j < NCASES; j++) {
            if (j != _i && is_hardware(cases[j].err)) {
                ck_assert_int_ne(code, fw_err_rpc_code(cases[j].err));
            }
        }
    } else if (cases[_i].err == FW_ERR_RESOURCE_NOT_FOUND) {
        ck_assert_int_eq(code, FW_RPC_RESOURCE_NOT_FOUND); /* fixed by the MCP specification */
    } else if (cases[_i].err == FW_ERR_CLIENT_CAPABILITY ||
               cases[_i].err == FW_ERR_PROTOCOL_VERSION) {
        ck_assert_int_eq(code, cases[_i].code); /* fixed by MCP 2026-07-28 */
    } else {
        ck_assert(code == FW_RPC_PARSE_ERROR ||
                  (code <= FW_RPC_INVALID_REQUEST && code >= FW_RPC_INTERNAL_ERROR));
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
    static const int unknown[] = {1, -4, -9, -22, -29, -38, -1000, 12345};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        fw_err_t e = (fw_err_t)unknown[i];
        ck_assert_str_eq(fw_err_str(e), "unknown error");
        ck_assert_int_eq(fw_err_rpc_code(e), FW_RPC_INTERNAL_ERROR);
    }
}
END_TEST

/* The codes on the wire are protocol: the constants must keep their published values. */
START_TEST(test_wire_values_of_the_codes)
{
    ck_assert_int_eq(FW_RPC_PARSE_ERROR, -32700);
    ck_assert_int_eq(FW_RPC_INVALID_REQUEST, -32600);
    ck_assert_int_eq(FW_RPC_METHOD_NOT_FOUND, -32601);
    ck_assert_int_eq(FW_RPC_INVALID_PARAMS, -32602);
    ck_assert_int_eq(FW_RPC_INTERNAL_ERROR, -32603);
    ck_assert_int_eq(FW_RPC_RESOURCE_NOT_FOUND, -32002);
    ck_assert_int_eq(FW_RPC_HEADER_MISMATCH, -32020);
    ck_assert_int_eq(FW_RPC_MISSING_CLIENT_CAP, -32021);
    ck_assert_int_eq(FW_RPC_UNSUPPORTED_VERSION, -32022);
    ck_assert_int_eq(FW_RPC_HW_FAILURE, -32010);
    ck_assert_int_eq(FW_RPC_UNSUPPORTED, -32011);
    ck_assert_int_eq(FW_RPC_I2C_NACK, -32012);
    ck_assert_int_eq(FW_RPC_I2C_BUS, -32013);
    ck_assert_int_eq(FW_RPC_I2C_TIMEOUT, -32014);
    ck_assert_int_eq(FW_RPC_ADC, -32015);
    ck_assert_int_eq(FW_RPC_HW_TIMEOUT, -32016);
    ck_assert_int_eq(FW_RPC_DEVICE_DATA, -32017);
    ck_assert_int_eq(FW_RPC_HW_FIRST, -32017);
    ck_assert_int_eq(FW_RPC_HW_LAST, -32010);
}
END_TEST

START_TEST(test_example_wording)
{
    ck_assert_str_eq(fw_err_str(FW_ERR_ADC), "adc conversion failed");
#if FW_WITH_I2C
    ck_assert_str_eq(fw_err_str(FW_ERR_I2C_NACK), "i2c device did not acknowledge");
#endif
}
END_TEST

/* Errors of a feature the build left out are not in its table: unknown, reported as internal. */
START_TEST(test_errors_of_features_left_out)
{
    static const struct {
        fw_err_t err;
        bool present;
    } features[] = {
        {FW_ERR_RESOURCE_NOT_FOUND, FW_WITH_MCP},
        {FW_ERR_I2C_NACK, FW_WITH_I2C},
        {FW_ERR_I2C_BUS, FW_WITH_I2C},
        {FW_ERR_I2C_TIMEOUT, FW_WITH_I2C},
    };
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++) {
        bool known = strcmp(fw_err_str(features[i].err), "unknown error") != 0;
        ck_assert_int_eq(known, features[i].present);
        if (!features[i].present)
            ck_assert_int_eq(fw_err_rpc_code(features[i].err), FW_RPC_INTERNAL_ERROR);
    }
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
    tcase_add_test(t, test_wire_values_of_the_codes);
    tcase_add_test(t, test_example_wording);
    tcase_add_test(t, test_errors_of_features_left_out);
    suite_add_tcase(s, t);
    return s;
}

TEST_MAIN(err_suite)
