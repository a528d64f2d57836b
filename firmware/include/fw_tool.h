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

/* The integer of tool arguments and parameter ranges (FW_WITH_INT64: 64 bits, else 32). */
#if FW_WITH_INT64
typedef int64_t fw_int_t;
#define FW_INT_MAX INT64_MAX
#define FW_INT_MIN INT64_MIN
#define FW_INT_BITS 64
#else
typedef int32_t fw_int_t;
#define FW_INT_MAX INT32_MAX
#define FW_INT_MIN INT32_MIN
#define FW_INT_BITS 32
#endif

/* Parameter types. FW_PARAM_PIN accepts a pin number (published as "integer"; the description
   mentions names only with FW_PIN_NAMES) or a pin name and resolves it against the registry;
   FW_PARAM_BYTES is an array of integers 0..255. */
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

/* In fw_param_t.pin_types: the parameter's description says it takes a pin's name too, beside
   the published integer (MCP/U's get_pin_* take "<name>" or <gpio>). The type bits beside it
   still apply (none: any type). */
#define FW_PIN_NAMES 0x80u

#if FW_WITH_FLOAT
/*
 * A NUMBER parameter's range and default (used where has_min / has_max / has_default say), and
 * the code that binds and publishes it. The descriptor points at one (.number = FW_NUMBER(0.5,
 * 10.25, 1.5)), so floating point is linked, and doubles stored, only in a build with a tool that
 * takes a fractional number.
 */
typedef struct fw_number_ops fw_number_ops_t;
extern const fw_number_ops_t fw_number_ops;
typedef struct fw_number {
    double min, max, def;
    const fw_number_ops_t *ops;
} fw_number_t;
#define FW_NUMBER(lo, hi, dflt) (&(const fw_number_t){(lo), (hi), (dflt), &fw_number_ops})
#endif

/*
 * One parameter, declared once: the published inputSchema and the validation of every call are
 * both derived from it. Integer ranges (min/max) apply to INTEGER values and to STRING length
 * and BYTES length (min/max items); NUMBER parameters (FW_WITH_FLOAT only) have their own
 * ranges in double. enum_values (STRING only) is a NULL-terminated list.
 */
typedef struct fw_param {
    const char *name;
    uint8_t type; /* fw_param_type_t */
    bool required;
    bool has_min, has_max, has_default;
    uint8_t pin_types; /* PIN: mask of FW_PINMASK(FW_PIN_*) accepted (none = any), FW_PIN_NAMES */
    const char *description;
    fw_int_t min, max;
    fw_int_t def_int;    /* default for INTEGER, BOOLEAN (0 or 1), PIN (a number) */
    const char *def_str; /* default for STRING */
    const char *const *enum_values;
#if FW_WITH_FLOAT
    const fw_number_t *number; /* NUMBER: FW_NUMBER(min, max, default) (required) */
#endif
} fw_param_t;

/* A validated argument: what the handler reads. Strings and bytes live in the call's scratch. */
typedef struct fw_arg {
    bool present;      /* given by the caller or filled from the default */
    uint8_t pin_index; /* PIN: index in the registry */
    fw_int_t i;        /* INTEGER, BOOLEAN (0/1), PIN (pin number) */
#if FW_WITH_FLOAT
    double num; /* NUMBER (i holds it truncated) */
#endif
    const char *str;              /* STRING (NUL-terminated) */
    const uint8_t *bytes;         /* BYTES */
    size_t len;                   /* STRING / BYTES length */
    const struct fw_pin_def *pin; /* PIN: the registry entry */
} fw_arg_t;

typedef struct fw_call fw_call_t;

/* Tool flags. */
#define FW_TOOL_READ_ONLY 0x01u   /* does not change device state (readOnlyHint) */
#define FW_TOOL_DESTRUCTIVE 0x02u /* may change state irreversibly (destructiveHint) */
#define FW_TOOL_USER_ONLY 0x04u   /* hidden from listings unless the client asks for user tools */
#define FW_TOOL_MCP_RESULT                                                                         \
    0x08u /* the result object is an MCP CallToolResult (content blocks,                           \
             isError) that tools/call sends as it is, instead of wrapping                          \
             the result in a text block and structuredContent */
#define FW_TOOL_TASK_OPTIONAL 0x10u /* MCP tasks: may run as a task (fw_task.h) */
#define FW_TOOL_TASK_REQUIRED 0x20u /* MCP tasks: runs only as a task (-32021 otherwise) */
#define FW_TOOL_SCHEMA_JSON                                                                        \
    0x40u /* user is the MCP inputSchema as JSON text, listed as it is (keywords the parameter   \
             descriptors cannot express); arguments are then not bound */

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
    uint8_t flags;     /* FW_TOOL_* */
    uint8_t out_count; /* MCP: members of out (0: the tool publishes no outputSchema) */
    uint32_t poll_ms; /* suggested polling interval; 0 = not polled */
    fw_tool_fn handler;
    const void *user; /* handler's own constant data (e.g. a driver's configuration) */
#if FW_WITH_MCP
    /* MCP outputSchema: the members of the result object, declared with the same descriptors
       as the parameters (required: always present; ranges and enums are published). tools/list
       publishes it as the tool's outputSchema; the result the handler writes is then the
       call's structuredContent (and, as JSON text, its text block). */
    const fw_param_t *out;
#endif
} fw_tool_t;

/* A named set of tools defined together (the gpio built-ins, a driver's tools, ...). A board
   lists the sets it wants (fw_board_t.toolsets). */
typedef struct fw_toolset {
    const char *name;
    const fw_tool_t *tools;
    uint8_t count;
} fw_toolset_t;

/* Number of elements of an array. */
#define FW_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What a handler sees. */
struct fw_call {
    struct fw_device *dev;
    const fw_tool_t *tool;
    fw_arg_t args[FW_PARAMS_MAX]; /* in the order of tool->params */
    void *priv;                   /* the core's response state; not for handlers */
};

/* Argument by parameter name (NULL if the tool declares no such parameter). Where constant
   data stays in flash (FW_ROM_SPLIT), a literal name stays there too (the function reads
   either space); another name is passed to the function itself: (fw_call_arg)(call, name). */
const fw_arg_t *fw_call_arg(const fw_call_t *call, const char *name);
#if FW_ROM_SPLIT
#define fw_call_arg(call, name) (fw_call_arg)((call), FW_S(name))
#endif

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

/* ---------------------------------------------------------------- asking the MCP client */

/*
 * Sends a request to the MCP client of this tools/call (e.g. "sampling/createMessage",
 * "elicitation/create") and defers the call's response until the client answers. On FW_OK,
 * *params is the writer of the request's params object: write its members, then return FW_OK
 * without calling fw_call_result(). When the client's response arrives (a later message of the
 * same session), the core runs the handler again: fw_call_answer() gives the response there,
 * the arguments are not bound (the message that carried them is gone) and the handler writes
 * its result as usual, fails, or asks again. Fails, with the message worded and nothing sent:
 * FW_ERR_UNSUPPORTED when the client did not declare the capability the method needs
 * (sampling/, elicitation/, roots/) or the call cannot carry a request (not an MCP tools/call
 * request, inside a batch, an output that does not frame messages), FW_ERR_NO_SPACE when the
 * session already waits for an answer (one at a time) or the call's id is longer than
 * FW_MCP_ID_MAX, FW_ERR_ARG when called twice or after fw_call_result().
 */
fw_err_t fw_call_ask(fw_call_t *call, const char *method, fw_jw_t **params);

/* The client's response to fw_call_ask, as the handler sees it when run again. */
typedef struct fw_answer {
    const fw_json_doc_t *doc; /* the message that carried it (valid during the handler) */
    int32_t result;           /* token of the response's result, or -1 */
    int32_t error;            /* token of its error object, or -1 */
} fw_answer_t;

/* The answer the handler is run again for, or NULL on a call's first run. */
const fw_answer_t *fw_call_answer(const fw_call_t *call);

/* ---------------------------------------------------------------- MCP 2026-07-28 */

/*
 * Multi-round-trip requests of the stateless revision: a tools/call, prompts/get or
 * resources/read handler that needs the client (sampling, elicitation, roots) answers with an
 * InputRequiredResult instead of a result, and the client sends the same request again with
 * params.inputResponses (one answer per key) and the requestState it was given. The device keeps
 * nothing between the rounds: the state travels with the client, under a MAC keyed per boot
 * from the HAL's entropy, and a state that does not verify is refused (-32602) before the
 * handler runs.
 *
 * fw_call_input_begin starts the result ("resultType": "input_required", "inputRequests": {
 * open) and returns its writer: write one member per request, KEY: {"method": ..., "params":
 * {...}}. fw_call_input_end closes it and adds requestState (state: up to FW_MCP_STATE_MAX - 1
 * bytes of text the next round gets back from fw_call_request_state; NULL for none); return
 * its value. fw_call_input_begin returns NULL when the request is not a stateless one
 * (fw_call_stateless) or no state can be issued (the port has no entropy) when state is needed:
 * ask with fw_call_ask there instead.
 */
bool fw_call_stateless(const fw_call_t *call);
fw_jw_t *fw_call_input_begin(fw_call_t *call);
fw_err_t fw_call_input_end(fw_call_t *call, const char *state);

/* The client's answer under key in params.inputResponses (an object token of fw_call_doc's
   document), or -1 when there is none. */
int32_t fw_call_input_response(const fw_call_t *call, const char *key);

/* The document the request was read from (for the tokens above). */
const fw_json_doc_t *fw_call_doc(const fw_call_t *call);

/* The verified payload of the request's requestState, or NULL when it carried none. */
const char *fw_call_request_state(const fw_call_t *call);

/* Whether the client declared capabilities caps (FW_CLIENT_* of fw_device.h): in initialize,
   or in the request's _meta. */
bool fw_call_client_has(const fw_call_t *call, uint8_t caps);

/* Refuses the request because it needs client capabilities caps the client did not declare:
   -32021 with data.requiredCapabilities naming them. Return its value. */
fw_err_t fw_call_need_client(fw_call_t *call, uint8_t caps);

/* ---------------------------------------------------------------- MCP resources and prompts */

/*
 * An MCP resource an application adds (fw_device_add_resource) beside the device's own
 * (device://info, pin://<name>). uri is a fixed URI, or a template with exactly one
 * {variable} standing for one non-empty path segment without '/' ("test://item/{id}/data");
 * templates are listed by resources/templates/list, fixed URIs by resources/list. read answers
 * resources/read of a URI it matches: it calls fw_call_result() and writes the members of the
 * ReadResourceResult ("contents": [{"uri", "mimeType", "text" or "blob"}]), or fails before
 * that with fw_call_errorf (e.g. FW_ERR_RESOURCE_NOT_FOUND). fw_call_arg() is not for it.
 */
typedef struct fw_resource {
    const char *uri;
    const char *name;
    const char *description;
    const char *mime_type; /* NULL: not published */
    fw_err_t (*read)(fw_call_t *call, const struct fw_resource *res, const char *uri);
    const void *user; /* the handler's own constant data */
} fw_resource_t;

/* An argument of an application prompt. */
typedef struct fw_prompt_arg {
    const char *name;
    const char *description;
    bool required;
    const char *const *completions; /* NULL-terminated values completion/complete offers
                                       (those starting with the typed prefix); NULL: none */
} fw_prompt_arg_t;

/*
 * An MCP prompt an application adds (fw_device_add_prompt) beside the device's own. get
 * answers prompts/get: argv[i] is the value of args[i] (a decoded string) or NULL when not
 * given (the core has checked the required ones); it calls fw_call_result() and writes the
 * members of the GetPromptResult ("messages": [...], optionally "description").
 */
typedef struct fw_prompt {
    const char *name;
    const char *title; /* NULL: none */
    const char *description;
    const fw_prompt_arg_t *args;
    uint8_t arg_count; /* at most FW_PARAMS_MAX */
    fw_err_t (*get)(fw_call_t *call, const struct fw_prompt *prompt, const char *const *argv);
    const void *user;
} fw_prompt_t;

#endif
