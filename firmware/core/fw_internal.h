/* fw_internal.h: contracts between the modules of the core (not part of the public API). */
#ifndef FW_INTERNAL_H
#define FW_INTERNAL_H

#include <stdarg.h>

#include "fw_device.h"


/* Assertion of the core's own invariants (never for outside input). A port may define
   FW_ASSERT_FAIL. By default gcc/clang trap (a HardFault on Cortex-M that the debugger or the
   watchdog catches; SIGILL in the simulator and the tests, so nothing spins until a timeout);
   other compilers stop in an endless loop the debugger can find. */
#ifndef FW_ASSERT_FAIL
#if defined(__GNUC__)
#define FW_ASSERT_FAIL() __builtin_trap()
#else
#define FW_ASSERT_FAIL()                                                                           \
    do {                                                                                           \
        for (;;) {                                                                                 \
        }                                                                                          \
    } while (0)
#endif
#endif
#define FW_ASSERT(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            FW_ASSERT_FAIL();                                                                      \
        }                                                                                          \
    } while (0)

/* ---------------------------------------------------------------- framing (framing.c) */

typedef enum fw_frame_event {
    FW_FRAME_NONE = 0, /* all input consumed, no complete line */
    FW_FRAME_LINE,     /* fr->line[0..fr->len) is a complete non-empty line (NUL-terminated) */
    FW_FRAME_OVERFLOW  /* a line exceeded FW_LINE_MAX; its bytes are being dropped */
} fw_frame_event_t;

/*
 * Consumes bytes from data[0..len) until an event or the end; returns how many were consumed
 * and sets *ev. Call again with the rest after handling FW_FRAME_LINE / FW_FRAME_OVERFLOW.
 * CR before LF is dropped; empty (or CR-only) lines are skipped; OVERFLOW is reported once per
 * overlong line, when its (FW_LINE_MAX+1)-th byte arrives.
 */
size_t fw_framer_push(fw_framer_t *fr, const uint8_t *data, size_t len, fw_frame_event_t *ev);

/* ---------------------------------------------------------------- formatting (fmt.c) */

/* Writes the formatted text (the fw_call_errorf format subset) into out, always NUL-terminated,
   truncated to cap-1 bytes. Returns the length written. */
size_t fw_vfmt(char *out, size_t cap, const char *fmt, va_list ap);
size_t fw_fmt(char *out, size_t cap, const char *fmt, ...);

/* ---------------------------------------------------------------- responses (rpc.c) */

typedef struct fw_issue {
    char path[32];
    char message[96];
} fw_issue_t;

/* State of the response to one request; fw_call_t.priv points at it. */
typedef struct fw_resp {
    fw_jw_t *w;     /* the message writer (shared by a whole batch) */
    const char *id; /* raw JSON text of the id; NULL for a notification */
    size_t id_len;
    bool *batch_open; /* non-NULL inside a batch: whether "[" has been written */
    bool result_started;
    fw_err_t err;
    char message[FW_ERRMSG_MAX];
    fw_issue_t issues[FW_ISSUES_MAX];
    uint8_t issue_count;
    uint8_t issues_dropped;
    fw_jw_t *tool_w;   /* non-NULL while a tool runs inside MCP tools/call: its result
                          object goes here, bare (fw_rpc_run_tool) */
    bool tool_started; /* the tool started its result in tool_w */
    bool deferred;     /* the response waits for the client's answer (fw_call_ask):
                          nothing is written for this request now */
} fw_resp_t;

/* Starts the response's result object (once: the envelope, "result" and "{") and returns the
   message writer, even while a nested tool's result goes to tool_w. */
fw_jw_t *fw_resp_result(fw_resp_t *r);

/* Closes whatever w has open down to depth (a handler may leave a key, string or container). */
void fw_jw_close_to(fw_jw_t *w, uint8_t depth);

/*
 * Runs tool for an MCP tools/call on call (the tools/call request's own call: its tool and
 * args are replaced, its response collects the tool's error message and issues). Binds args
 * (an object token, or -1 when absent; doc NULL: no binding, every argument absent, as when
 * a deferred call runs again for the client's answer) and runs the handler with the result object
 * written to w bare, without envelope. Returns the tool's error; *started tells whether the result
 * object was started (it is then complete and closed in w: on FW_OK always, on an error it is the
 * handler bug of failing after fw_call_result, counted as an error).
 */
fw_err_t fw_rpc_run_tool(fw_call_t *call, const fw_tool_t *tool, const fw_json_doc_t *doc,
                         int32_t args, fw_jw_t *w, bool *started);

/* Logs a failed tool call at error level; invalid params (the client's mistake) are not
   logged. */
void fw_log_tool_failure(fw_call_t *call, fw_err_t err);

/* Raw JSON text of token tok as received (a string with its quotes and escapes). */
const char *fw_json_tok_raw(const fw_json_doc_t *doc, uint32_t tok, size_t *len);

/* ---------------------------------------------------------------- messages and MCP */

/* The message being handled: dev->msg while fw_device_handle* runs. */
typedef struct fw_msg {
    fw_session_t *session;
    fw_msg_sink_t out;
    bool framed; /* every message written to out is ended (fw_msg_sink_end), so notifications
                    may precede the response; false for fw_device_handle's plain fw_sink_t */
    bool batch;  /* a batch: nothing may be written between its responses */
    bool live;   /* an MCP tools/call handler runs and nothing of the response is written
                    yet: notifications may be written to out now */
    const fw_json_doc_t *doc;
    int32_t progress; /* token of the running tools/call's _meta.progressToken, or -1 */
    bool asked;       /* the running tools/call sent a request to the client (fw_call_ask) */
    fw_jw_t *ask_w;   /* the writer of that request while its params are being written */
    bool resumed;     /* a deferred tools/call's response was written (not this message's own) */
    const fw_answer_t *answer; /* the client's answer while a deferred tools/call runs again */
} fw_msg_t;

/* Ends a message written to out: end(ctx), or "\n" when end is NULL. */
void fw_msg_sink_end(const fw_msg_sink_t *out);

/* MCP methods (mcp.c): they read their params leniently (members of newer protocol revisions
   are ignored) instead of through a parameter descriptor. */
typedef struct fw_mcp_method fw_mcp_method_t;

/* The MCP method named by string token tok, or NULL. */
const fw_mcp_method_t *fw_mcp_method_find(const fw_json_doc_t *doc, uint32_t tok);

/* True when name is an MCP method (no tool may take it). */
bool fw_mcp_method_named(const char *name);

/* Runs MCP method m for call (tool NULL, response in call->priv) with params token (-1 when
   absent) in the session of dev->msg. */
fw_err_t fw_mcp_run(const fw_mcp_method_t *m, fw_call_t *call, const fw_json_doc_t *doc,
                    int32_t params);

/* True (and forgets it) when the request with raw id text id[0..len) was cancelled by a
   notifications/cancelled earlier in the message being handled. */
bool fw_mcp_take_cancelled(fw_device_t *dev, const char *id, size_t len);

/* Ends the request fw_call_ask began writing to the message's output, if it is still open
   (after the handler returned, or when it starts its result anyway). */
void fw_mcp_ask_end(fw_device_t *dev);

/*
 * A response from the client (object token msg of doc). When it answers the request a deferred
 * tools/call of the message's session waits for, sets *taken, runs that tool again with the
 * answer, r answering the waiting call (r->id: the session's copy of its id, stable while the
 * message is handled), and returns the tool's error for fw_resp finishing; otherwise *taken is
 * false and the response is ignored.
 */
fw_err_t fw_mcp_answer(fw_device_t *dev, const fw_json_doc_t *doc, uint32_t msg, fw_resp_t *r,
                       bool *taken);

/* MCP state of a freshly initialised device: the implicit session, log and change tracking
   (called at the end of fw_device_init). */
void fw_mcp_init(fw_device_t *dev);

/* Compares every pin's observable state (level, duty, type, latest sample) with what was last
   seen and counts the changes for resource updates; logs new sampling events and drops.
   Called after each tool call, each poll and each drain. */
void fw_mcp_observe(fw_device_t *dev);

/* ---------------------------------------------------------------- listings (mcpu.c) */

/* Whether t appears in a tool listing (user-only tools only when asked for). */
bool fw_tool_listed(const fw_tool_t *t, bool with_user_tools);

/* One tool entry of a listing: MCP/U's (readOnly, destructive, polling; no inputSchema when
   the board omits schemas) or, with mcp, MCP's (inputSchema always, annotations). */
void fw_write_tool(fw_jw_t *w, const fw_board_t *b, const fw_tool_t *t, bool mcp);

/* The members of a pin registry entry (pin, name, type, description, sampling metadata);
   type is the pin's current type. */
void fw_write_pin_members(fw_jw_t *w, const fw_pin_def_t *p, uint8_t type);

/* The members of get_info's result (device, version, platform, pin_count, core_version). */
void fw_write_device_info(fw_jw_t *w, const fw_board_t *b);

/* ---------------------------------------------------------------- methods and schema */

/*
 * Core methods (not tools: not listed, but called by name like tools), e.g. get_info and
 * list_tools. They use the same descriptor type and validation as tools.
 */
extern const fw_tool_t fw_mcpu_methods[];
extern const size_t fw_mcpu_method_count;

/* Fills call->args from params token (object, array by position, or -1 for absent). On failure
   returns FW_ERR_INVALID_PARAMS with the message and issues recorded in the response. */
fw_err_t fw_schema_bind(fw_call_t *call, const fw_json_doc_t *doc, int32_t params);

/* Writes the inputSchema object of tool (type object, properties, required,
   additionalProperties false) as one value. */
void fw_schema_write(fw_jw_t *w, const fw_tool_t *tool);

/* Reserves n bytes of the device's per-call scratch (reset for every request); NULL if full. */
void *fw_scratch_alloc(fw_device_t *dev, size_t n);

/* ---------------------------------------------------------------- pins and sampling */

/* Resolves a pin given as number or name; index or -1. */
int fw_pin_lookup_name(const fw_device_t *dev, const char *name);

/* Prepares the sampling state of every pin (called by fw_device_init and on reset). */
void fw_sampling_init(fw_device_t *dev, uint64_t now_ms);

/* Runs due sampling ticks up to now_ms. */
void fw_sampling_poll(fw_device_t *dev, uint64_t now_ms);

/* ADC raw value as millivolts per the board's ADC profile, truncated as MCP/U's integer
   arithmetic does (512 of 1023 at 3300 mV is 1651, as in the protocol's example). */
uint32_t fw_adc_to_mv(const fw_board_t *board, uint32_t raw);

/* Writes the ADC reading members the board's profile asks for: "volts": 1.65 or "mv": 1651. */
void fw_adc_write_scaled(fw_jw_t *w, const fw_board_t *board, uint32_t raw);

/* As fw_adc_write_scaled with the member names given (e.g. "latest_volts", "latest_mv"). */
void fw_adc_write_scaled_as(fw_jw_t *w, const fw_board_t *board, uint32_t raw,
                            const char *volts_key, const char *mv_key);

/* True when def is sampled: a digital or ADC input with sample_interval_ms > 0. Pins that are
   not sampled have next_sample_ms == UINT64_MAX after fw_sampling_init. */
bool fw_pin_sampled(const fw_pin_def_t *def);

/* Sample k (0 = oldest) of the ring of pin pin_index; NULL when k >= its ring_count. Sample seqs
   in the ring are contiguous (failed reads get no seq). */
const fw_sample_t *fw_sampling_sample(const fw_device_t *dev, uint8_t pin_index, uint16_t k);

/* Event k (0 = oldest) of the device's event queue; NULL when k >= ev_count. */
const fw_event_t *fw_event_at(const fw_device_t *dev, uint16_t k);

/* Removes the queued events with seq > after_seq of pin pin_index (-1: of every pin), keeping
   the order of the rest. Returns how many were removed. */
uint16_t fw_events_remove(fw_device_t *dev, int pin_index, uint32_t after_seq);

/* Writes the "pin" and "name" members every pin tool's result starts with (builtins/pins.c). */
void fw_write_pin_id(fw_jw_t *w, const fw_pin_def_t *def);

/* Writes a sampled pin's statistics members (min, max, avg, latest; null before the first
   sample; ADC pins also the latest voltage) as get_pin_summary does (builtins/pins.c). */
void fw_write_pin_stats(fw_jw_t *w, const fw_device_t *dev, const fw_pin_def_t *def,
                        const fw_pin_state_t *st);

/* ---------------------------------------------------------------- tool sets */

/* A named set of tools: the built-ins, one I2C driver, or one application tool set. */
typedef struct fw_toolset {
    const char *name;
    const fw_tool_t *tools;
    size_t count;
} fw_toolset_t;

/* Built-in tools every board gets (builtins/): gpio, pwm, adc, pins, system; i2c when the board
   has an I2C bus. */
extern const fw_toolset_t fw_builtin_gpio, fw_builtin_pwm, fw_builtin_adc, fw_builtin_pins,
    fw_builtin_system, fw_builtin_i2c;

/* Drivers (drivers/), found by fw_i2c_dev_def_t.driver. */
extern const fw_toolset_t fw_driver_tmp102, fw_driver_at24c;

/* Application tools (apps/), enabled by a board's app_tools names. NULL if unknown. */
const fw_tool_t *fw_app_tool_find(const char *name);

/* The board's first I2C device bound to `driver`, or the one at addr when addr >= 0; NULL when
   none matches. */
const fw_i2c_dev_def_t *fw_board_i2c_find(const fw_board_t *board, const char *driver, int addr);

/* Words a tool call's error message for an I2C failure (builtins/i2c.c), naming `what`
   ("i2c device", "tmp102", "eeprom"), the address and the bus (e.g. "no acknowledge from i2c
   device 0x48 on bus 0"), and returns err. */
fw_err_t fw_i2c_call_error(fw_call_t *call, fw_err_t err, const char *what, uint8_t bus,
                           uint8_t addr);

/* One I2C transfer (as fw_hal_i2c) for a tool call; a failure is worded by fw_i2c_call_error. */
fw_err_t fw_i2c_call_xfer(fw_call_t *call, const char *what, uint8_t bus, uint8_t addr,
                          const uint8_t *tx, size_t tx_len, uint8_t *rx, size_t rx_len);

/* The HAL, with FW_ERR_UNSUPPORTED for a function the port left NULL. */
uint64_t fw_hal_now(const fw_device_t *dev);
fw_err_t fw_hal_gpio_mode(const fw_device_t *dev, uint16_t pin, hal_pin_mode_t mode);
fw_err_t fw_hal_gpio_write(const fw_device_t *dev, uint16_t pin, bool level);
fw_err_t fw_hal_gpio_read(const fw_device_t *dev, uint16_t pin, bool *level);
fw_err_t fw_hal_pwm_write(const fw_device_t *dev, uint16_t pin, uint8_t duty, uint32_t freq_hz);
fw_err_t fw_hal_adc_read(const fw_device_t *dev, uint16_t pin, uint16_t *raw);
fw_err_t fw_hal_i2c(const fw_device_t *dev, uint8_t bus, uint8_t addr, const uint8_t *tx,
                    size_t tx_len, uint8_t *rx, size_t rx_len);

#endif
