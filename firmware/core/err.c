/* err.c: the one table of core errors: each value's English name and its JSON-RPC code. */
#include "fw_internal.h"

typedef struct err_entry {
    int8_t err;       /* fw_err_t */
    int16_t rpc_code; /* FW_RPC_* */
} err_entry_t;

/*
 * Protocol errors use the JSON-RPC 2.0 codes: an overlong line is answered like unparsable
 * input (-32700); errors of our own C API and pools are internal (-32603). Hardware errors get
 * one code each in FW_RPC_HW_FIRST .. FW_RPC_HW_LAST (fw_codes.h). Entry i's English name is
 * the i-th NUL-terminated text of err_texts. Both stay in flash (FW_ROM).
 */
static const err_entry_t err_table[] FW_ROM = {
    {FW_OK, 0},
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

static const char err_texts[] FW_ROM = "ok"
                                       "\0"
                                       "invalid JSON"
                                       "\0"
                                       "message has too many JSON tokens"
                                       "\0"
                                       "JSON nested too deeply"
                                       "\0"
                                       "line too long"
                                       "\0"
                                       "invalid JSON-RPC request"
                                       "\0"
                                       "method not found"
                                       "\0"
                                       "invalid params"
                                       "\0"
                                       "internal error"
                                       "\0"
                                       "batch too large"
                                       "\0"
                                       "no space left in a fixed pool"
                                       "\0"
                                       "already exists"
                                       "\0"
                                       "invalid argument"
                                       "\0"
#if FW_WITH_MCP
                                       "resource not found"
                                       "\0"
                                       "missing required client capability"
                                       "\0"
                                       "unsupported protocol version"
                                       "\0"
#endif
                                       "hardware failure"
                                       "\0"
                                       "not supported by this port or build"
                                       "\0"
#if FW_WITH_I2C
                                       "i2c device did not acknowledge"
                                       "\0"
                                       "i2c bus error"
                                       "\0"
                                       "i2c transfer timed out"
                                       "\0"
#endif
                                       "adc conversion failed"
                                       "\0"
                                       "hardware operation timed out"
                                       "\0"
                                       "device returned implausible data"
                                       "\0";

/* Index of err in err_table, or -1. */
static int find(fw_err_t err)
{
    for (size_t i = 0; i < FW_ARRAY_LEN(err_table); i++) {
        FW_ROM_LOAD(err_entry_t, e, &err_table[i]);
        if (e->err == err) {
            return (int)i;
        }
    }
    return -1;
}

const char *fw_err_str(fw_err_t err)
{
    int i = find(err);
    if (i < 0) {
        return FW_S("unknown error");
    }
    const char *s = err_texts;
    while (i-- > 0) {
        s += fw_strlen(s) + 1;
    }
    return s;
}

/* 0 for FW_OK; a value outside the enum is reported as an internal error. */
int fw_err_rpc_code(fw_err_t err)
{
    int i = find(err);
    if (i < 0) {
        return FW_RPC_INTERNAL_ERROR;
    }
    FW_ROM_LOAD(err_entry_t, e, &err_table[i]);
    return e->rpc_code;
}
