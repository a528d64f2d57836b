/* fw_codes.h: the one table of JSON-RPC error codes on the wire, shared by every component. */
#ifndef FW_CODES_H
#define FW_CODES_H

/*
 * JSON-RPC error codes on the wire. Each code means one thing: the JSON-RPC 2.0 codes, MCP's
 * codes, the transports' codes, the hardware's codes and the simulator control channel's codes
 * are disjoint, so a client can tell from the code alone who refused and why. This header is
 * constants only (no types, no functions, no includes): the conformance runner, which never
 * links the firmware, includes it as the protocol's code table; nothing else of firmware/.
 */
/* JSON-RPC 2.0 */
#define FW_RPC_PARSE_ERROR (-32700)      /* the text is not JSON */
#define FW_RPC_INVALID_REQUEST (-32600)  /* the JSON is not a valid request object */
#define FW_RPC_METHOD_NOT_FOUND (-32601) /* no method or tool of that name */
#define FW_RPC_INVALID_PARAMS (-32602)   /* params fail the method's or tool's schema */
#define FW_RPC_INTERNAL_ERROR (-32603)   /* the server could not complete a valid request */
/* Transports (the simulator's HTTP and WebSocket hosts): the request never reached the device */
#define FW_RPC_TRANSPORT_ERROR (-32000)   /* refused by the transport (header, size, method) */
#define FW_RPC_SESSION_NOT_FOUND (-32001) /* Mcp-Session-Id names no live session */
/* MCP */
#define FW_RPC_RESOURCE_NOT_FOUND (-32002) /* resources/read of a URI the server does not have */
/* MCP 2026-07-28 (stateless requests) */
#define FW_RPC_HEADER_MISMATCH (-32020)     /* an HTTP header disagrees with the body */
#define FW_RPC_MISSING_CLIENT_CAP (-32021)  /* the request needs a client capability not declared */
#define FW_RPC_UNSUPPORTED_VERSION (-32022) /* _meta names a protocol version not spoken here */
/* Hardware (the device's own errors): -32010 .. -32019 */
#define FW_RPC_HW_FAILURE (-32010)         /* the HAL reported an unspecified hardware failure */
#define FW_RPC_UNSUPPORTED (-32011)        /* the port or the build lacks this function */
#define FW_RPC_I2C_NACK (-32012)           /* an I2C device did not acknowledge */
#define FW_RPC_I2C_BUS (-32013)            /* the I2C bus is stuck or lost arbitration */
#define FW_RPC_I2C_TIMEOUT (-32014)        /* an I2C transfer did not finish in time */
#define FW_RPC_ADC (-32015)                /* an ADC conversion failed */
#define FW_RPC_HW_TIMEOUT (-32016)         /* a hardware operation did not finish in time */
#define FW_RPC_DEVICE_DATA (-32017)        /* a device answered with data that cannot be right */
#define FW_RPC_HW_FIRST FW_RPC_DEVICE_DATA /* the hardware range, lowest code */
#define FW_RPC_HW_LAST FW_RPC_HW_FAILURE   /* the hardware range, highest code */
/* The simulator's control channel (sim.*): -32050 .. -32059 */
#define FW_RPC_SIM_STATE (-32050) /* the simulation cannot do that now (no such model, ...) */

#endif
