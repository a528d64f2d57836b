/* err.c: the one table of core errors: each value's English name and its JSON-RPC code. */
#include "fw_internal.h"

typedef struct err_entry {
    fw_err_t err;
    int rpc_code;
    const char *str;
} err_entry_t;

/*
 * Protocol errors use the JSON-RPC 2.0 codes: an overlong line is answered like unparsable
 * input (-32700); errors of our own C API and pools are internal (-32603). Hardware errors get
 * one code each in FW_RPC_HW_FIRST .. FW_RPC_HW_LAST (fw_codes.h).
 */
static const err_entry_t err_table[] = {
    {FW_OK, 0, "ok"},
    {FW_ERR_JSON_INVALID, FW_RPC_PARSE_ERROR, "invalid JSON"},
    {FW_ERR_JSON_NOMEM, FW_RPC_INVALID_REQUEST, "message has too many JSON tokens"},
    {FW_ERR_JSON_DEPTH, FW_RPC_INVALID_REQUEST, "JSON nested too deeply"},
    {FW_ERR_LINE_TOO_LONG, FW_RPC_PARSE_ERROR, "line too long"},
    {FW_ERR_INVALID_REQUEST, FW_RPC_INVALID_REQUEST, "invalid JSON-RPC request"},
    {FW_ERR_METHOD_NOT_FOUND, FW_RPC_METHOD_NOT_FOUND, "method not found"},
    {FW_ERR_INVALID_PARAMS, FW_RPC_INVALID_PARAMS, "invalid params"},
    {FW_ERR_INTERNAL, FW_RPC_INTERNAL_ERROR, "internal error"},
    {FW_ERR_BATCH_TOO_LARGE, FW_RPC_INVALID_REQUEST, "batch too large"},
    {FW_ERR_NO_SPACE, FW_RPC_INTERNAL_ERROR, "no space left in a fixed pool"},
    {FW_ERR_EXISTS, FW_RPC_INTERNAL_ERROR, "already exists"},
    {FW_ERR_ARG, FW_RPC_INTERNAL_ERROR, "invalid argument"},
#if FW_WITH_MCP
    {FW_ERR_RESOURCE_NOT_FOUND, FW_RPC_RESOURCE_NOT_FOUND, "resource not found"},
#endif
    {FW_ERR_HW, FW_RPC_HW_FAILURE, "hardware failure"},
    {FW_ERR_UNSUPPORTED, FW_RPC_UNSUPPORTED, "not supported by this port or build"},
#if FW_WITH_I2C
    {FW_ERR_I2C_NACK, FW_RPC_I2C_NACK, "i2c device did not acknowledge"},
    {FW_ERR_I2C_BUS, FW_RPC_I2C_BUS, "i2c bus error"},
    {FW_ERR_I2C_TIMEOUT, FW_RPC_I2C_TIMEOUT, "i2c transfer timed out"},
#endif
    {FW_ERR_ADC, FW_RPC_ADC, "adc conversion failed"},
    {FW_ERR_TIMEOUT, FW_RPC_HW_TIMEOUT, "hardware operation timed out"},
    {FW_ERR_DEVICE_DATA, FW_RPC_DEVICE_DATA, "device returned implausible data"},
};

static const err_entry_t *find(fw_err_t err)
{
    for (size_t i = 0; i < FW_ARRAY_LEN(err_table); i++) {
        if (err_table[i].err == err) {
            return &err_table[i];
        }
    }
    return NULL;
}

const char *fw_err_str(fw_err_t err)
{
    const err_entry_t *e = find(err);
    return e != NULL ? e->str : "unknown error";
}

/* 0 for FW_OK; a value outside the enum is reported as an internal error. */
int fw_err_rpc_code(fw_err_t err)
{
    const err_entry_t *e = find(err);
    return e != NULL ? e->rpc_code : FW_RPC_INTERNAL_ERROR;
}
