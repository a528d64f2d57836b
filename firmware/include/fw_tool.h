/* fw_tool.h: tool and parameter descriptors, and the call context a tool handler works with. */
#ifndef FW_TOOL_H
#define FW_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_config.h"
#include "fw_err.h"
#include "fw_json.h"

struct fw_device;
struct fw_pin_def;

/* Parameter types. FW_PARAM_PIN accepts a pin number or a pin name and resolves it against the
   registry (published as "integer"); FW_PARAM_BYTES is an array of integers 0..255. */
typedef enum fw_param_type {
    FW_PARAM_INTEGER = 0,
    FW_PARAM_NUMBER,
    FW_PARAM_BOOLEAN,
    FW_PARAM_STRING,
    FW_PARAM_PIN,
    FW_PARAM_BYTES
} fw_param_type_t;

/* Pin type bits, for FW_PARAM_PIN's accepted types (fw_param_t.pin_types). */
#define FW_PINMASK(type) (1u << (type))

/*
 * One parameter, declared once: the published inputSchema and the validation of every call are
 * both derived from it. Ranges apply to INTEGER/NUMBER values, to STRING length and to BYTES
 * length (min/max items). enum_values (STRING only) is a NULL-terminated list.
 */
typedef struct fw_param {
    const char *name;
    uint8_t type;         /* fw_param_type_t */
    bool required;
    bool has_min, has_max, has_default;
    const char *description;
    double min, max;
    double def_num;         /* default for INTEGER/NUMBER/BOOLEAN (0 or 1)/PIN (a number) */
    const char *def_str;    /* default for STRING */
    const char *const *enum_values;
    uint8_t pin_types;      /* PIN: mask of FW_PINMASK(FW_PIN_*) accepted; 0 = any */
} fw_param_t;

/* A validated argument: what the handler reads. Strings and bytes live in the call's scratch. */
typedef struct fw_arg {
    bool present;          /* given by the caller or filled from the default */
    int64_t i;             /* INTEGER, BOOLEAN (0/1), PIN (pin number) */
    double num;            /* NUMBER (and INTEGER as double) */
    const char *str;       /* STRING (NUL-terminated) */
    const uint8_t *bytes;  /* BYTES */
    size_t len;            /* STRING / BYTES length */
    const struct fw_pin_def *pin; /* PIN: the registry entry */
    uint8_t pin_index;     /* PIN: index in the registry */
} fw_arg_t;

typedef struct fw_call fw_call_t;

/* Tool flags. */
#define FW_TOOL_READ_ONLY 0x01u   /* does not change device state (readOnlyHint) */
#define FW_TOOL_DESTRUCTIVE 0x02u /* may change state irreversibly (destructiveHint) */
#define FW_TOOL_USER_ONLY 0x04u   /* hidden from listings unless the client asks for user tools */
#define FW_TOOL_MCP_RESULT 0x08u  /* the result object is an MCP CallToolResult (content blocks,
                                     isError) that tools/call sends as it is, instead of wrapping
                                     the result in a text block and structuredContent */

/*
 * A handler does its hardware work first, then calls fw_call_result() and writes the members of
 * the result object into the writer it returns (the core closes the object). On failure it
 * returns an error BEFORE calling fw_call_result(), optionally after fw_call_errorf() to word the
 * message; calling fw_call_result() and then failing is a bug (reported as -32603).
 */
typedef fw_err_t (*fw_tool_fn)(fw_call_t *call);

typedef struct fw_tool {
    const char *name;
    const char *description;
    const fw_param_t *params;
    uint8_t param_count;
    uint8_t flags;          /* FW_TOOL_* */
    uint32_t poll_ms;       /* suggested polling interval; 0 = not polled */
    fw_tool_fn handler;
    const void *user;       /* handler's own constant data (e.g. a driver's configuration) */
} fw_tool_t;

/* What a handler sees. */
struct fw_call {
    struct fw_device *dev;
    const fw_tool_t *tool;
    fw_arg_t args[FW_PARAMS_MAX]; /* in the order of tool->params */
    void *priv;                   /* the core's response state; not for handlers */
};

/* Argument by parameter name (NULL if the tool declares no such parameter). */
const fw_arg_t *fw_call_arg(const fw_call_t *call, const char *name);

/* Starts the result object and returns the writer to fill it with members. */
fw_jw_t *fw_call_result(fw_call_t *call);

/*
 * Words the error message of a failing call; the format knows %s (string), %d (int),
 * %u (unsigned), %x (two hex digits of an unsigned) and %%. Returns err so a handler can write
 * `return fw_call_errorf(call, FW_ERR_I2C_NACK, "tmp102 at 0x%x did not acknowledge", a);`.
 */
fw_err_t fw_call_errorf(fw_call_t *call, fw_err_t err, const char *fmt, ...);

/* As fw_call_errorf for invalid parameters: adds {path, message} to data.issues too. */
fw_err_t fw_call_param_error(fw_call_t *call, const char *path, const char *fmt, ...);

/*
 * Reports the progress of a long call: done of total units (total 0: unknown), with an optional
 * message. Sent at once as MCP notifications/progress when the call is an MCP tools/call that
 * carried _meta.progressToken, outside a batch, on a transport that frames messages; otherwise
 * it does nothing. Call it before fw_call_result(), with done increasing.
 */
void fw_call_progress(fw_call_t *call, uint32_t done, uint32_t total, const char *message);

#endif
