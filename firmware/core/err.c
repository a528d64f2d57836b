/* err.c: the one table of core errors: each value's English name and its JSON-RPC code. */
#include "fw_internal.h"

#define RPC_PARSE_ERROR (-32700)
#define RPC_INVALID_REQUEST (-32600)
#define RPC_METHOD_NOT_FOUND (-32601)
#define RPC_INVALID_PARAMS (-32602)
#define RPC_INTERNAL_ERROR (-32603)
/* MCP's code for resources/read of an unknown URI (a server error code, like the hardware's). */
#define RPC_RESOURCE_NOT_FOUND (-32002)

typedef struct err_entry {
    fw_err_t err;
    int rpc_code;
    const char *str;
} err_entry_t;

/*
 * Protocol errors use the JSON-RPC 2.0 codes: an overlong line is answered like unparsable
 * input (-32700); errors of our own C API and pools are internal (-32603). Hardware errors get
 * one server-error code each, counting down from -32000.
 */
static const err_entry_t err_table[] = {
    {FW_OK, 0, "ok"},
    {FW_ERR_JSON_INVALID, RPC_PARSE_ERROR, "invalid JSON"},
    {FW_ERR_JSON_NOMEM, RPC_INVALID_REQUEST, "message has too many JSON tokens"},
    {FW_ERR_JSON_DEPTH, RPC_INVALID_REQUEST, "JSON nested too deeply"},
    {FW_ERR_LINE_TOO_LONG, RPC_PARSE_ERROR, "line too long"},
    {FW_ERR_INVALID_REQUEST, RPC_INVALID_REQUEST, "invalid JSON-RPC request"},
    {FW_ERR_METHOD_NOT_FOUND, RPC_METHOD_NOT_FOUND, "method not found"},
    {FW_ERR_INVALID_PARAMS, RPC_INVALID_PARAMS, "invalid params"},
    {FW_ERR_INTERNAL, RPC_INTERNAL_ERROR, "internal error"},
    {FW_ERR_BATCH_TOO_LARGE, RPC_INVALID_REQUEST, "batch too large"},
    {FW_ERR_NO_SPACE, RPC_INTERNAL_ERROR, "no space left in a fixed pool"},
    {FW_ERR_EXISTS, RPC_INTERNAL_ERROR, "already exists"},
    {FW_ERR_ARG, RPC_INTERNAL_ERROR, "invalid argument"},
    {FW_ERR_RESOURCE_NOT_FOUND, RPC_RESOURCE_NOT_FOUND, "resource not found"},
    {FW_ERR_HW, -32000, "hardware failure"},
    {FW_ERR_UNSUPPORTED, -32001, "not supported by this port"},
    {FW_ERR_I2C_NACK, -32002, "i2c device did not acknowledge"},
    {FW_ERR_I2C_BUS, -32003, "i2c bus error"},
    {FW_ERR_I2C_TIMEOUT, -32004, "i2c transfer timed out"},
    {FW_ERR_ADC, -32005, "adc conversion failed"},
    {FW_ERR_TIMEOUT, -32006, "hardware operation timed out"},
    {FW_ERR_DEVICE_DATA, -32007, "device returned implausible data"},
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
    return e != NULL ? e->rpc_code : RPC_INTERNAL_ERROR;
}
