/* fw_err.h: the one error enum of the firmware core and its mapping to JSON-RPC codes. */
#ifndef FW_ERR_H
#define FW_ERR_H

#include "fw_codes.h"

typedef enum fw_err {
    FW_OK = 0, /* success */
    /* JSON reader */
    FW_ERR_JSON_INVALID = -1, /* input is not RFC 8259 JSON */
    FW_ERR_JSON_NOMEM = -2,   /* more tokens than the pool holds, or a message over FW_MSG_MAX */
    FW_ERR_JSON_DEPTH = -3,   /* nesting deeper than the parse's max_depth */
    /* JSON-RPC envelope and dispatch */
    FW_ERR_LINE_TOO_LONG = -10,      /* a stream line exceeded FW_LINE_MAX */
    FW_ERR_INVALID_REQUEST = -11,    /* envelope is not a valid JSON-RPC 2.0 request */
    FW_ERR_METHOD_NOT_FOUND = -12,   /* no method or tool of that name */
    FW_ERR_INVALID_PARAMS = -13,     /* arguments fail the tool's parameter descriptor */
    FW_ERR_INTERNAL = -14,           /* the core could not complete a valid request */
    FW_ERR_BATCH_TOO_LARGE = -15,    /* more than FW_BATCH_MAX requests in a batch */
    FW_ERR_NO_SPACE = -16,           /* a fixed pool (tools, scratch, events) is full */
    FW_ERR_EXISTS = -17,             /* a tool or pin of that name is already registered */
    FW_ERR_ARG = -18,                /* a caller of the C API broke a documented precondition */
    FW_ERR_RESOURCE_NOT_FOUND = -19, /* an MCP resource URI names nothing on this device */
    FW_ERR_CLIENT_CAPABILITY = -20,  /* MCP: the request needs a capability the client lacks */
    FW_ERR_PROTOCOL_VERSION = -21,   /* MCP: _meta names a protocol version not spoken here */
    /* Hardware, reported as JSON-RPC FW_RPC_HW_FIRST .. FW_RPC_HW_LAST */
    FW_ERR_HW = -30,          /* the HAL reported an unspecified hardware failure */
    FW_ERR_UNSUPPORTED = -31, /* the port does not implement this HAL function, or the build
                                 left the feature out (fw_config.h) */
    FW_ERR_I2C_NACK = -32,    /* an I2C device did not acknowledge its address or data */
    FW_ERR_I2C_BUS = -33,     /* the I2C bus is stuck or lost arbitration */
    FW_ERR_I2C_TIMEOUT = -34, /* an I2C transfer did not finish in time */
    FW_ERR_ADC = -35,         /* an ADC conversion failed */
    FW_ERR_TIMEOUT = -36,     /* a hardware operation did not finish in time */
    FW_ERR_DEVICE_DATA = -37  /* a device answered with data that cannot be right */
} fw_err_t;

/* Short English name of an error ("i2c device did not acknowledge"); never NULL. */
const char *fw_err_str(fw_err_t err);

/* The JSON-RPC error code (FW_RPC_*) reported for err; the ONE mapping. */
int fw_err_rpc_code(fw_err_t err);

#endif
