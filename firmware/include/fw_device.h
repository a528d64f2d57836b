/* fw_device.h: the device instance API: board description, pin registry, framing, requests,
   MCP sessions and the firmware log. */
#ifndef FW_DEVICE_H
#define FW_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_config.h"
#include "fw_err.h"
#include "fw_hal.h"
#include "fw_json.h"
#include "fw_tool.h"
#include "fw_task.h"

/* ---------------------------------------------------------------- board */

typedef enum fw_pin_type {
    FW_PIN_DIGITAL_OUTPUT = 0,
    FW_PIN_DIGITAL_INPUT,
    FW_PIN_PWM_OUTPUT,
    FW_PIN_ADC_INPUT,
    FW_PIN_TYPE_COUNT
} fw_pin_type_t;

/* Wire name of a pin type ("digital_output", ...); NULL for an invalid value. */
const char *fw_pin_type_name(fw_pin_type_t type);

/*
 * One pin of the registry. Sampling (inputs only) is on when sample_interval_ms > 0; samples go
 * to a ring of buffer_size (<= FW_SAMPLE_BUF_MAX) when `buffer`, into running statistics when
 * `summary`, and threshold crossings / edges become events when `events`. For ADC pins an event
 * fires when the raw value rises to >= threshold_high, and re-arms (and fires "below") when it
 * falls to <= threshold_low (hysteresis); digital inputs raise an event on every edge.
 */
typedef struct fw_pin_def {
    uint16_t number;
    uint8_t type; /* fw_pin_type_t */
    const char *name;
    const char *description;
    uint32_t sample_interval_ms;
    uint16_t buffer_size;
    bool summary, buffer, events;
    int32_t threshold_high, threshold_low;
} fw_pin_def_t;

typedef enum fw_adc_report { FW_ADC_REPORT_VOLTS = 0, FW_ADC_REPORT_MV } fw_adc_report_t;

/* One compact slot of a pin's sample ring (storage the board supplies; read samples through
   fw_sampling_sample). The time is the low 32 bits of the HAL's ms, the seq is derived. */
typedef struct fw_sample_slot {
    uint16_t value; /* raw ADC count or 0/1 */
    uint16_t t_lo;  /* t_ms & 0xffff */
    uint16_t t_hi;  /* (t_ms >> 16) & 0xffff */
} fw_sample_slot_t;

/*
 * A board is data: the port hands it to the core at start (a const table on a microcontroller,
 * generated from the board's JSON file; the parsed board file in the simulator). It must outlive
 * the device. The core registers, in this order: the tool sets (the built-ins the board wants,
 * builtins/fw_builtins.h), the tools of each chip's driver, the application tools.
 */
typedef struct fw_board {
    const char *device;   /* device name reported by get_info */
    const char *version;  /* firmware version */
    const char *platform; /* e.g. "arduino", "esp-idf", "sim" */
    const fw_pin_def_t *pins;
    uint8_t pin_count;
    uint8_t adc_bits;            /* ADC resolution, e.g. 12 or 10 */
    uint16_t adc_ref_mv;         /* full-scale reference in millivolts */
    uint8_t adc_report;          /* fw_adc_report_t */
    bool omit_schemas;           /* list_tools omits inputSchema (as MCP/U's AVR build) */
    uint8_t i2c_bus_count;       /* 0 = no I2C */
    const struct fw_chip *chips; /* I2C chips, each bound to its driver (fw_driver.h) */
    uint8_t chip_count;
    const fw_toolset_t *const *toolsets; /* NULL-terminated, or NULL */
    const fw_tool_t *const *app_tools;   /* application tools; NULL-terminated, or NULL */
    /* Sample rings of the buffered pins, one after another in registry order, each
       buffer_size slots: at least the sum of their buffer_size (NULL/0 when none buffers). */
    fw_sample_slot_t *sample_store;
    uint16_t sample_store_len;
} fw_board_t;

/* Slots of sample_store a board needs: the sum of buffer_size over its sampled, buffered pins. */
size_t fw_board_sample_slots(const fw_board_t *board);

/* ---------------------------------------------------------------- runtime state */

/* One sample as read back (fw_sampling_sample). */
typedef struct fw_sample {
    uint32_t seq;   /* per pin, starts at 1, never reused */
    uint32_t value; /* raw ADC count or 0/1 */
    uint64_t t_ms;
} fw_sample_t;

/* What the core knows of a pin. Tools change it only through fw_device_pin_note_*. */
typedef struct fw_pin_state {
    uint8_t mode;    /* hal_pin_mode_t as last set */
    uint8_t type;    /* current type (pin_mode may switch between digital in/out) */
    bool have_level; /* last written/read level known */
    bool level;
    uint8_t duty;
} fw_pin_state_t;

#if FW_WITH_SAMPLING
/* Sampling state of one pin (sampled inputs only use it). */
typedef struct fw_pin_sampling {
    uint64_t next_sample_ms;
    uint64_t sum;      /* summary over all samples since start/reset */
    uint32_t next_seq; /* seq the next sample gets */
    uint32_t count;
    uint32_t missed;           /* sampling ticks skipped because poll came late */
    uint32_t read_errors;      /* HAL errors while sampling */
    uint16_t min, max, latest; /* samples are 16-bit: a raw ADC count or 0/1 */
    uint16_t ring_first;       /* the pin's first slot in the board's sample_store */
    uint16_t ring_head;        /* index (within the ring) where the next sample is stored */
    uint16_t ring_count;
    bool above;  /* threshold state (ADC) or last level (digital) */
    bool primed; /* first sample taken (edge detection needs a previous one) */
} fw_pin_sampling_t;
#endif

/* A threshold crossing or edge seen by sampling. */
typedef struct fw_event {
    uint32_t seq;  /* device-wide, starts at 1 */
    uint32_t t_ms; /* low 32 bits of the HAL's ms (fw_event_time gives all 64) */
    uint16_t value;
    uint8_t pin_index;
    uint8_t kind; /* fw_event_kind_t */
} fw_event_t;

typedef enum fw_event_kind {
    FW_EVENT_RISING = 0, /* digital: low->high; ADC: rose to >= threshold_high */
    FW_EVENT_FALLING     /* digital: high->low; ADC: fell to <= threshold_low */
} fw_event_kind_t;

typedef struct fw_counters {
    uint32_t requests;      /* requests and notifications handled (batch members counted) */
    uint32_t errors;        /* error responses sent */
    uint32_t parse_errors;  /* -32700 sent */
    uint32_t notifications; /* messages without id handled */
    uint32_t overlong_lines;
    uint32_t events_dropped;
} fw_counters_t;

/* A byte-stream connection's framing state; the transport owns one per connection. */
/* A line ends with a NUL; a hosted build (FW_SPEED_PATHS 2) keeps FW_JSON_PAD bytes from it
   readable, for fw_json_parse_padded. */
#if FW_SPEED_PATHS >= 2
#define FW_LINE_PAD FW_JSON_PAD
#else
#define FW_LINE_PAD 1u
#endif
typedef struct fw_framer {
    char line[FW_LINE_MAX + FW_LINE_PAD];
    size_t len;
    bool discarding; /* inside an overlong line, dropping bytes until the newline */
    bool ready;      /* line holds the line last reported; the next push starts afresh */
} fw_framer_t;

/* ---------------------------------------------------------------- MCP sessions and the log */

/* Severity of a firmware log entry: the levels of MCP's logging/setLevel (RFC 5424), least
   severe first. */
typedef enum fw_log_level {
    FW_LOG_DEBUG = 0,
    FW_LOG_INFO,
    FW_LOG_NOTICE,
    FW_LOG_WARNING,
    FW_LOG_ERROR,
    FW_LOG_CRITICAL,
    FW_LOG_ALERT,
    FW_LOG_EMERGENCY,
    FW_LOG_LEVEL_COUNT
} fw_log_level_t;

/* One entry of the device's log ring. */
typedef struct fw_log_entry {
    uint8_t level; /* fw_log_level_t */
    char text[FW_LOG_TEXT_MAX];
} fw_log_entry_t;

/* Client capabilities an MCP session announced in initialize (fw_session_t.client_caps). */
#define FW_CLIENT_SAMPLING 0x01u
#define FW_CLIENT_ELICITATION 0x02u
#define FW_CLIENT_ROOTS 0x04u
#define FW_CLIENT_TASKS 0x08u /* extensions["io.modelcontextprotocol/tasks"] (2026-07-28) */

/* Subscription bit of device://info in fw_session_t.subscriptions (bit i < FW_PINS_MAX is the
   resource of pin i of the registry; bit FW_PINS_MAX + 1 + k the application resource k). */
#define FW_SUB_DEVICE (1u << FW_PINS_MAX)

/*
 * The MCP state of one client session. The transport owns one per session (an HTTP session, a
 * WebSocket connection, a dial-out link), initialises it with fw_session_init and passes it to
 * fw_device_handle_session and fw_device_drain; fw_device_handle/feed use one implicit session
 * inside the device. Members are the core's: read them, do not write them.
 */
typedef struct fw_session {
    bool initialize_seen;   /* initialize answered: version and capabilities negotiated */
    bool initialized;       /* notifications/initialized received */
    uint8_t version;        /* negotiated protocol version: index + 1 (0: none, newest assumed) */
    bool logging;           /* log messages are sent (after initialize or logging/setLevel) */
    uint8_t log_level;      /* fw_log_level_t: the least severe level sent */
    uint8_t client_caps;    /* FW_CLIENT_* */
    uint32_t subscriptions; /* bit i: pin i's resource; FW_SUB_DEVICE: device://info */
    uint32_t change_cursor; /* pin changes up to this device change count were reported */
    uint32_t log_cursor;    /* seq of the next log entry this session has not seen */
    uint32_t boot_cursor;   /* seq of the next entry of the device's start still to send */
    uint8_t cancelled_len;  /* > 0: raw id of a request the running message cancelled */
    char cancelled[FW_MCP_ID_MAX];
    /* A tools/call whose response waits for the client's answer (fw_call_ask) */
    const fw_tool_t *ask_tool; /* the tool to run again; NULL: no call waits */
    uint32_t ask_id;           /* id of the last request sent to the client */
    uint8_t ask_call_len;      /* raw JSON id of the waiting tools/call */
    char ask_call[FW_MCP_ID_MAX];
#if FW_WITH_LISTEN
    const char *sub_id; /* a listener's session: raw JSON id its notifications carry in
                           _meta["io.modelcontextprotocol/subscriptionId"]; NULL otherwise */
    uint8_t sub_id_len;
#endif
} fw_session_t;

#if FW_WITH_LISTEN
/* The device's lists a listen stream can follow (notifications/<list>/list_changed). */
#define FW_LIST_TOOLS 0u
#define FW_LIST_RESOURCES 1u
#define FW_LIST_PROMPTS 2u
#define FW_LIST_COUNT 3u

/* An MCP 2026-07-28 subscriptions/listen stream (mcp_notify.c): what it asked for lives in its
   session (subscriptions, logging and log_level from _meta.logLevel), the cursors too. */
typedef struct fw_listener {
    bool open;
    uint8_t id_len;
    uint8_t lists;                      /* bit FW_LIST_*: its list_changed was asked for */
    char id[FW_MCP_ID_MAX];             /* raw JSON id of the subscriptions/listen request */
    uint16_t list_seen[FW_LIST_COUNT];  /* dev->list_gen when it last reported each list */
    const fw_session_t *owner; /* the transport's session the request came in (its client's
                                  connection); NULL once taken (fw_device_listen_take) */
    fw_session_t session;
} fw_listener_t;
#endif

/* What one message the device writes is (fw_msg_sink_t.tell). */
typedef enum fw_msg_kind {
    FW_MSG_RESULT = 0,   /* a response carrying a result */
    FW_MSG_ERROR,        /* a response carrying an error (code: its JSON-RPC error code) */
    FW_MSG_BATCH,        /* the array of a batch's responses */
    FW_MSG_NOTIFICATION, /* a notification to the client */
    FW_MSG_REQUEST       /* a request to the client (fw_call_ask: sampling, elicitation) */
} fw_msg_kind_t;

/*
 * Output that carries whole messages (a response and the notifications around it): write as in
 * fw_sink_t, then end(ctx) after each complete JSON-RPC message, so the transport can frame it
 * (an SSE event, a WebSocket frame). With end NULL every message is followed by "\n" instead
 * (newline-delimited JSON, for byte streams). tell, when not NULL, says what each message is
 * (code: the error code of an FW_MSG_ERROR, else 0), once per message, just before its end, so
 * a transport that must route or classify messages (HTTP) never parses them again. A separate
 * type from fw_sink_t so that existing two-member fw_sink_t initialisers stay warning-free.
 */
typedef struct fw_msg_sink {
    void (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
    void (*end)(void *ctx);
    void (*tell)(void *ctx, fw_msg_kind_t kind, int32_t code);
} fw_msg_sink_t;

/*
 * The envelope of one incoming message as the core reads it (the same JSON reader and limits
 * as fw_device_handle_session), for a transport whose rules need facts of the body before the
 * device runs it (HTTP: initialize, batches, the MCP 2026-07-28 header checks). Token indexes
 * are into doc (read them with fw_json_*), -1 when absent; everything but err and doc is unset
 * when err is not FW_OK (the device answers such a body with the error itself).
 */
typedef struct fw_envelope {
    fw_json_doc_t doc; /* tokens: the caller's */
    fw_err_t err;      /* FW_OK, or FW_ERR_JSON_INVALID / _NOMEM / _DEPTH */
    bool batch;        /* a JSON array */
    bool requests;     /* holds a request (method and id): it is answered */
    int32_t id;        /* the top-level object's members: id, method, params */
    int32_t method;
    int32_t params;
    int32_t meta;    /* params._meta */
    int32_t version; /* _meta's io.modelcontextprotocol/protocolVersion */
    int32_t caps;    /* _meta's io.modelcontextprotocol/clientCapabilities */
} fw_envelope_t;

/* Reads msg into env with toks (ntoks of them: FW_JSON_TOKENS_MAX reads what the device
   reads); returns env->err. */
fw_err_t fw_envelope_read(fw_envelope_t *env, const char *msg, size_t len, fw_json_tok_t *toks,
                          uint32_t ntoks);

struct fw_msg;
struct fw_rpc_layer;

/* ---------------------------------------------------------------- the core's response state */

/* The response to the request being handled (core-private: fw_call_t.priv points at it). It
   lives in the device, not on the stack: requests are handled one at a time. */
/* One validation issue of an invalid-params error. */
typedef struct fw_issue {
    char path[FW_ISSUE_PATH_MAX];
    char message[FW_ISSUE_TEXT_MAX];
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

struct fw_resource;
struct fw_prompt;

/*
 * The device instance. The caller owns it (static, stack or embedded in a larger struct); its
 * members are the core's private state: read them only through the functions below.
 */
#if FW_METHOD_INDEX
/* Slots of the method index: at least twice its entries (the core methods, fewer than 16, and
   the tools), so a search meets an empty slot soon. */
#define FW_METHOD_SLOTS (FW_TOOLS_MAX + 16u <= 32u ? 64u : FW_TOOLS_MAX + 16u <= 64u ? 128u : 512u)
#endif

typedef struct fw_device {
    const fw_board_t *board;
    const hal_api_t *hal;
    void *hal_ctx;
    const fw_tool_t *tools[FW_TOOLS_MAX];
    uint8_t tool_count;
#if FW_METHOD_INDEX
    /* The core methods and the tools by the hash of their names (rpc.c): 1 + the index among
       the core methods followed by the tools in the low 16 bits (0: an empty slot), the name's
       length in the high 16 (0xFFFF: that or longer). */
    uint32_t method_slot[FW_METHOD_SLOTS];
#endif
    fw_pin_state_t pins[FW_PINS_MAX];
    fw_counters_t counters;
    uint64_t boot_ms;
    fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    uint8_t scratch[FW_SCRATCH_SIZE];
    size_t scratch_used;
#if FW_WITH_MCP
    const struct fw_rpc_layer *layer; /* methods and hooks above JSON-RPC (MCP), or NULL */
#endif
    fw_resp_t resp;                   /* the response being written */
    fw_call_t call;                   /* the call being run (a tool, a method) */
#if FW_ROM_SPLIT
    /* The descriptor of the tool being run or registered, copied from flash (fw_tool_load):
       its params point at param_ram. */
    fw_tool_t tool_ram;
    fw_param_t param_ram[FW_PARAMS_MAX];
#endif
    struct fw_msg *msg; /* the message being handled; NULL between messages */
#if FW_WITH_SAMPLING
    fw_pin_sampling_t sampling[FW_SAMPLED_PINS_MAX]; /* the sampled pins' state, in order */
    uint8_t sampling_of[FW_PINS_MAX];                /* pin index -> sampling slot, or 0xff */
    uint8_t sampled;                                 /* slots of sampling[] in use */
    fw_event_t events[FW_EVENT_QUEUE_MAX];
    uint16_t ev_head, ev_count;
    uint32_t ev_next_seq;
#endif
#if FW_WITH_MCP
    /* MCP (core/mcp*.c) */
    fw_session_t session;              /* the implicit session of fw_device_handle/_feed */
    uint32_t change_count;             /* pin changes observed since init */
    uint32_t pin_changed[FW_PINS_MAX]; /* change_count at each pin's last observed change */
    uint64_t pin_look[FW_PINS_MAX];    /* each pin's observable state when last compared */
    /* bit i: pin i's state (or sampling) was written since observe last compared it */
    uint32_t pin_touched[(FW_PINS_MAX + 31) / 32];
    uint32_t ev_logged;                /* sampling events up to this seq were logged */
    uint32_t drops_logged;             /* counters.events_dropped when last logged */
    uint32_t log_next;                 /* seq the next log entry gets */
    uint32_t boot_log_end;             /* entries before this seq were logged by fw_device_init */
    uint16_t log_head;                 /* slot of the next log entry */
    uint16_t log_count;                /* entries held, <= FW_LOG_RING */
    fw_log_entry_t log[FW_LOG_RING];
    char result_buf[FW_MCP_RESULT_MAX]; /* a tools/call result, kept to send it twice */
    const struct fw_resource *resources[FW_EXTRA_RESOURCES_MAX]; /* fw_device_add_resource */
    uint32_t resource_changed[FW_EXTRA_RESOURCES_MAX]; /* change_count at the last change */
    uint8_t resource_count;
    const struct fw_prompt *prompts[FW_EXTRA_PROMPTS_MAX]; /* fw_device_add_prompt */
    uint8_t prompt_count;
    /* MCP 2026-07-28 (mcp_stateless.c); a stateless request's session and request state live
       on the stack while it runs */
    uint8_t state_key[16]; /* SipHash key of request states, from the HAL's entropy */
    bool state_key_ready;  /* state_key was drawn (once per boot) */
#endif
#if FW_WITH_LISTEN
    fw_listener_t listeners[FW_MAX_LISTENERS];
    uint8_t listen_top; /* no listener open at this index or above (raised as one opens) */
    uint16_t list_gen[FW_LIST_COUNT]; /* bumped when a list changes (fw_device_add_*) */
#endif
#if FW_WITH_TASKS
    /* MCP tasks (mcp_tasks.c) */
    fw_task_t tasks[FW_MAX_TASKS];
    /* No task is live at index task_top or above: the scans after every request stop there
       (raised as a slot is taken; lowered when the slots are advanced) */
    uint8_t task_top;
    fw_task_tool_t task_tools[FW_TASK_TOOLS_MAX]; /* fw_device_add_task_tool */
    uint8_t task_tool_count;
    uint32_t task_next_id;
#endif
} fw_device_t;

/* ---------------------------------------------------------------- API */

/*
 * Initialises dev for board on the given HAL: validates the board (unique pin numbers and names,
 * buffer sizes within limits, known drivers and application tools), sets pin modes, registers the
 * built-in tools, the tools of the board's I2C drivers and its application tools. Returns FW_OK,
 * FW_ERR_ARG for an invalid board, FW_ERR_NO_SPACE when a pool is too small, or a HAL error.
 */
fw_err_t fw_device_init(fw_device_t *dev, const fw_board_t *board, const hal_api_t *hal,
                        void *hal_ctx);

/* Adds a tool (the descriptor must outlive dev). FW_ERR_EXISTS for a duplicate name,
   FW_ERR_NO_SPACE when FW_TOOLS_MAX are registered, FW_ERR_ARG for a malformed descriptor. */
fw_err_t fw_device_add_tool(fw_device_t *dev, const fw_tool_t *tool);

/* Registered tool by name, or NULL. */
const fw_tool_t *fw_device_find_tool(const fw_device_t *dev, const char *name);

/*
 * Handles one whole message (a request, a notification, a response or a batch) of len bytes and
 * writes the reply, if any, to out as one JSON text with no trailing newline. Returns true if
 * a reply was written (false for notifications and all-notification batches).
 * msg is not modified and need not be NUL-terminated. MCP methods run in the device's implicit
 * session; as out cannot frame several messages, no notification precedes the reply (see
 * fw_device_handle_session).
 */
bool fw_device_handle(fw_device_t *dev, const char *msg, size_t len, fw_sink_t out);

/*
 * Byte-stream entry (UART, TCP): feeds data into the connection's framer; every complete line is
 * handled and its reply written to out followed by "\n". Partial lines wait for more bytes.
 * An overlong line gets one -32700 error and framing resumes after its newline. MCP methods run
 * in the device's implicit session (as fw_device_feed_session with session NULL).
 */
void fw_device_feed(fw_device_t *dev, fw_framer_t *fr, const uint8_t *data, size_t len,
                    fw_sink_t out);

/* Runs due sampling at the HAL's current time. Call it from the main loop (or at each
   deadline). */
void fw_device_poll(fw_device_t *dev);

/* Time (HAL ms) of the next sampling tick, or UINT64_MAX when nothing is sampled. */
uint64_t fw_device_next_deadline(const fw_device_t *dev);

/* Read-only view of the counters. */
const fw_counters_t *fw_device_counters(const fw_device_t *dev);

/* Index of a pin in the registry by number, or -1. */
int fw_device_pin_index(const fw_device_t *dev, uint16_t number);

/* The board the device was started with. */
const fw_board_t *fw_device_board(const fw_device_t *dev);

/* Milliseconds since boot by the HAL's clock (0 when the port has no clock). */
uint64_t fw_device_uptime_ms(const fw_device_t *dev);

/* Registered tools: count, and tool i (NULL when i >= count), in registration order. */
size_t fw_device_tool_count(const fw_device_t *dev);
const fw_tool_t *fw_device_tool_at(const fw_device_t *dev, size_t i);

/* ---------------------------------------------------------------- for tools: pins and the HAL */

/* The core's view of pin index (see fw_pin_state_t); index must be < the board's pin_count. */
const fw_pin_state_t *fw_device_pin_state(const fw_device_t *dev, uint8_t index);

/* Tell the core what a tool did to pin index, so listings, resources and change notifications
   show it: a level driven or read, a PWM duty written, an electrical mode set (a digital pin's
   type follows the mode; its known level is forgotten). */
void fw_device_pin_note_level(fw_device_t *dev, uint8_t index, bool level);
void fw_device_pin_note_duty(fw_device_t *dev, uint8_t index, uint8_t duty);
void fw_device_pin_note_mode(fw_device_t *dev, uint8_t index, hal_pin_mode_t mode);

/* Writes the "pin" and "name" members every pin tool's result starts with. */
void fw_write_pin_id(fw_jw_t *w, const fw_pin_def_t *def);

/* ADC raw value as millivolts per the board's ADC profile, truncated as MCP/U's integer
   arithmetic does (512 of 1023 at 3300 mV is 1651, as in the protocol's example). */
uint32_t fw_adc_to_mv(const fw_board_t *board, uint32_t raw);

/* Writes the ADC reading member the board's profile asks for: "volts": 1.65 (two decimals,
   rounded half up from the integer millivolts) or "mv": 1651. */
void fw_adc_write_scaled(fw_jw_t *w, const fw_board_t *board, uint32_t raw);

/* As fw_adc_write_scaled with the member names given (e.g. "latest_volts", "latest_mv"). */
void fw_adc_write_scaled_as(fw_jw_t *w, const fw_board_t *board, uint32_t raw,
                            const char *volts_key, const char *mv_key);

/* The HAL for tools: FW_ERR_UNSUPPORTED for a function the port left NULL. */
uint64_t fw_hal_now(const fw_device_t *dev);
fw_err_t fw_hal_gpio_mode(const fw_device_t *dev, uint16_t pin, hal_pin_mode_t mode);
fw_err_t fw_hal_gpio_write(const fw_device_t *dev, uint16_t pin, bool level);
fw_err_t fw_hal_gpio_read(const fw_device_t *dev, uint16_t pin, bool *level);
fw_err_t fw_hal_pwm_write(const fw_device_t *dev, uint16_t pin, uint8_t duty, uint32_t freq_hz);
fw_err_t fw_hal_adc_read(const fw_device_t *dev, uint16_t pin, uint16_t *raw);
fw_err_t fw_hal_device_info(const fw_device_t *dev, hal_device_info_t *info);
/* duty of 2^bits (bits 1..20, duty at most 2^bits: FW_ERR_ARG otherwise); a port without
   pwm_write_res gets duty scaled to 8 bits. */
fw_err_t fw_hal_pwm_write_res(const fw_device_t *dev, uint16_t pin, uint32_t duty, uint8_t bits,
                              uint32_t freq_hz);
fw_err_t fw_hal_strip(const fw_device_t *dev, uint16_t pin, const hal_strip_op_t *op,
                      uint16_t *count);
fw_err_t fw_hal_dht_frame(const fw_device_t *dev, uint16_t pin, uint8_t frame[5]);

/* Reserves n bytes of the call's scratch (FW_SCRATCH_SIZE, reset for every request), aligned
   to 8; NULL when it is full. */
void *fw_scratch_alloc(fw_device_t *dev, size_t n);

/* ---------------------------------------------------------------- MCP sessions */

/*
 * As fw_device_handle, for one MCP session (NULL: the device's implicit one). Notifications the
 * request produces while it runs (notifications/progress of a tools/call with a progressToken,
 * and the session's log messages) are written before the response, each as its own message;
 * the response is ended like them. Returns true if a response to this message was written
 * (false for notifications, responses and all-notification batches: an HTTP transport answers
 * 202). Messages written when it returns false are for the session's server-to-client channel
 * (an HTTP session's GET stream): a request to the client that a tools/call sent (fw_call_ask;
 * that call's response is then deferred, session->ask_tool is set) or, when the message was
 * the client's answer, the deferred tools/call's response.
 * session->initialize_seen tells the transport when a session was established.
 */
bool fw_device_handle_session(fw_device_t *dev, fw_session_t *session, const char *msg, size_t len,
                              fw_msg_sink_t out);

/*
 * As fw_device_handle_session for the message env was read from (fw_envelope_read, msg and len
 * unchanged since): the same answer byte for byte, without reading the message a second time
 * where the build's speed paths are on (a hosted build). env's tokens must still be valid.
 */
bool fw_device_handle_envelope(fw_device_t *dev, fw_session_t *session, const fw_envelope_t *env,
                               fw_msg_sink_t out);

/* As fw_device_feed, for one MCP session (NULL: the implicit one); every message written
   (responses and the notifications before them) is one line. */
void fw_device_feed_session(fw_device_t *dev, fw_session_t *session, fw_framer_t *fr,
                            const uint8_t *data, size_t len, fw_sink_t out);

/*
 * Writes the notifications session (NULL: the implicit one) has not yet received:
 * notifications/resources/updated for each subscribed resource whose pin changed since its
 * last drain, and notifications/message for each log entry at or above its level (preceded by
 * a warning that counts the entries lost when the ring overran); with MCP 2025-11-25 tasks,
 * notifications/progress of the tasks the session created with a progressToken, and the
 * response of a tasks/result it sent that waited for its task to end (a response, not a
 * notification: a transport with a stream per request routes it to that request's stream).
 * Call it for every session after fw_device_poll and after each message handled. Returns the
 * number of messages written.
 */
size_t fw_device_drain(fw_device_t *dev, fw_session_t *session, fw_msg_sink_t out);

/*
 * Whether fw_device_drain may write something for a session that it would not have written at
 * the caller's last look, for a reason other than the messages of that session itself: a pin
 * or resource change, a log entry, a list change, an MCP 2025-11-25 task's progress or held
 * answer (the device's record, with fw_mcp_observe's look at the pins first). *mark keeps what
 * the record showed (any value to start: the first call may say true) and is updated. O(pins +
 * tasks), independent of the number of sessions: a host with many sessions calls it after each
 * call into the device and drains every session only when it is true; when false, only the
 * session whose message the call handled may have something (its own request may have turned
 * on logging: the entries of the start), so the host drains that one. Without MCP, false.
 */
bool fw_device_pending(fw_device_t *dev, uint32_t *mark);

/*
 * MCP 2026-07-28 subscriptions/listen. A listen request (stateless) takes a free listener slot,
 * writes notifications/subscriptions/acknowledged and no response: the stream stays open. The
 * slot belongs to its owner, the session the transport handed with the request
 * (fw_device_handle_session's or fw_device_feed_session's; NULL: the implicit one), i.e. the
 * client's connection:
 *   - fw_device_drain(owner) writes, after the session's own notifications, those of the
 *     owner's open listeners (each carries the listen request's id in _meta), so a transport
 *     that drains its connection's session delivers them on that connection (stdio, TCP, pty,
 *     WebSocket, MQTT: the spec's one shared channel);
 *   - a notifications/cancelled closes a slot only when it names the listen request's id and
 *     comes in the same owner's session (two clients may use the same id);
 *   - fw_device_listen_release(owner): the owner's client went away, its slots close.
 * A transport with a stream per request (HTTP's SSE) instead calls fw_device_listen_take with
 * the request's session right after handling it: the slot that request opened, or -1. The slot
 * then has no owner (no session drains or cancels it); the transport drains it with
 * fw_device_listen_drain and closes it with fw_device_listen_close when its stream ends.
 * fw_device_listen_open is false once a slot closed (by any of these). Without listener slots
 * (no MCP, or FW_MAX_LISTENERS 0: listen_off.c) nothing opens: take is -1, open false, drain 0.
 */
int fw_device_listen_take(fw_device_t *dev, const fw_session_t *owner);
void fw_device_listen_release(fw_device_t *dev, const fw_session_t *owner);
bool fw_device_listen_open(const fw_device_t *dev, int slot);
size_t fw_device_listen_drain(fw_device_t *dev, int slot, fw_msg_sink_t out);
void fw_device_listen_close(fw_device_t *dev, int slot);

/*
 * session's client went away (its connection closed): everything the device holds for it is
 * let go: its listen streams close (fw_device_listen_release), an MCP 2025-11-25 tasks/result
 * it waits on is dropped (its task runs on, for tasks/get of another), and its tasks send no
 * more progress. Transports call it instead of fw_device_listen_release.
 */
void fw_device_session_release(fw_device_t *dev, const fw_session_t *session);

/* True while a request of session waits for its response, to be written later by
   fw_device_drain (an MCP 2025-11-25 tasks/result held until its task ends) or by the handling
   of the client's answer (a tools/call that asked the client, fw_call_ask). */
bool fw_device_session_waits(const fw_device_t *dev, const fw_session_t *session);


/* Prepares a session for dev: nothing negotiated, no subscriptions, no log messages, and
   cursors at the device's present (older log entries and changes are not sent), except the log
   entries fw_device_init wrote (a chip that did not answer its probe): every session gets those
   first, as long as the ring still holds them. */
void fw_session_init(fw_session_t *session, const fw_device_t *dev);

/* The MCP protocol version the session negotiated ("2025-06-18"), or the newest supported
   when it has not initialized. */
const char *fw_session_protocol_version(const fw_session_t *session);

/* True when the core speaks MCP protocol version `version` (len bytes, e.g. a header value). */
bool fw_mcp_version_supported(const char *version, size_t len);

/*
 * Appends an entry to the device's log (the format knows %s %d %u %x %%, as fw_call_errorf;
 * the text is cut at FW_LOG_TEXT_MAX - 1 bytes). Sessions receive it as notifications/message
 * from fw_device_drain, or at once, before the result, while an MCP tools/call of theirs runs.
 */
#if FW_WITH_MCP
void fw_log(fw_device_t *dev, fw_log_level_t level, const char *fmt, ...);
#else
/* Without MCP nothing can deliver the log: entries are dropped where they are written, and
   their texts are not linked (the format's arguments are not evaluated). */
#define fw_log(dev, level, ...) ((void)(dev), (void)(level))
#endif

/* MCP name of a level ("warning"); NULL for an invalid value. */
const char *fw_log_level_name(fw_log_level_t level);

/*
 * Adds an MCP resource (fw_tool.h; the descriptor must outlive dev, fw_device_init forgets
 * it). FW_ERR_ARG for a malformed descriptor (no uri, name or read; a template without exactly
 * one non-empty {variable}), FW_ERR_EXISTS for a URI already served (device://info, pin://...,
 * another resource's), FW_ERR_NO_SPACE when FW_EXTRA_RESOURCES_MAX are added.
 */
fw_err_t fw_device_add_resource(fw_device_t *dev, const struct fw_resource *res);

/* Adds an MCP prompt (as fw_device_add_resource). FW_ERR_ARG for a malformed descriptor,
   FW_ERR_EXISTS for a name taken (the device's own prompts included), FW_ERR_NO_SPACE when
   FW_EXTRA_PROMPTS_MAX are added. */
fw_err_t fw_device_add_prompt(fw_device_t *dev, const struct fw_prompt *prompt);

/* Registers a tool that runs as an MCP task (fw_task.h); the tool itself is added with
   fw_device_add_tool. FW_ERR_NO_SPACE beyond FW_TASK_TOOLS_MAX, FW_ERR_UNSUPPORTED without
   tasks in the build. */
fw_err_t fw_device_add_task_tool(fw_device_t *dev, const struct fw_task_tool *tt);

/* Tells subscribers that what the added fixed resource at uri shows has changed: each
   subscribed session gets notifications/resources/updated at its next drain.
   FW_ERR_RESOURCE_NOT_FOUND when no added fixed resource has that URI. */
fw_err_t fw_device_resource_changed(fw_device_t *dev, const char *uri);

/* Framing: resets a framer to the empty state. */
void fw_framer_init(fw_framer_t *fr);

/* Firmware version string of the core itself. */
#define FW_CORE_VERSION "0.1.0"

#endif
