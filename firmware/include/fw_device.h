/* fw_device.h: the device instance API: board description, pin registry, framing, requests. */
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
    uint8_t type;          /* fw_pin_type_t */
    const char *name;
    const char *description;
    uint32_t sample_interval_ms;
    uint16_t buffer_size;
    bool summary, buffer, events;
    int32_t threshold_high, threshold_low;
} fw_pin_def_t;

typedef enum fw_adc_report { FW_ADC_REPORT_VOLTS = 0, FW_ADC_REPORT_MV } fw_adc_report_t;

/* An I2C chip the board carries, bound to a driver in firmware/drivers by name. */
typedef struct fw_i2c_dev_def {
    const char *driver;   /* "tmp102", "at24c" */
    uint8_t bus;
    uint8_t addr;         /* 7-bit */
    uint32_t size_bytes;  /* at24c: capacity (e.g. 256 for 24C02, 32768 for 24C256) */
    uint16_t page_bytes;  /* at24c: write page (8, 16, 32, 64) */
} fw_i2c_dev_def_t;

/*
 * A board is data: the port hands it to the core at start (a const table on a microcontroller,
 * the parsed board file in the simulator). It must outlive the device.
 */
typedef struct fw_board {
    const char *device;      /* device name reported by get_info */
    const char *version;     /* firmware version */
    const char *platform;    /* e.g. "arduino", "esp-idf", "sim" */
    const fw_pin_def_t *pins;
    uint8_t pin_count;
    uint8_t adc_bits;        /* ADC resolution, e.g. 12 or 10 */
    uint16_t adc_ref_mv;     /* full-scale reference in millivolts */
    uint8_t adc_report;      /* fw_adc_report_t */
    bool omit_schemas;       /* list_tools omits inputSchema (as MCP/U's AVR build) */
    uint8_t i2c_bus_count;   /* 0 = no I2C tools */
    const fw_i2c_dev_def_t *i2c_devices;
    uint8_t i2c_device_count;
    const char *const *app_tools; /* application tools enabled by name; NULL-terminated or NULL */
} fw_board_t;

/* ---------------------------------------------------------------- runtime state */

typedef struct fw_sample {
    uint32_t seq;   /* per pin, starts at 1, never reused */
    uint32_t value; /* raw ADC count or 0/1 */
    uint64_t t_ms;
} fw_sample_t;

typedef struct fw_pin_state {
    uint8_t mode;           /* hal_pin_mode_t as last set */
    uint8_t type;           /* current type (pin_mode may switch between digital in/out) */
    bool have_level;        /* last written/read level known */
    bool level;
    uint8_t duty;
    uint64_t next_sample_ms;
    uint32_t next_seq;      /* seq the next sample gets */
    uint16_t ring_head;     /* index where the next sample is stored */
    uint16_t ring_count;
    fw_sample_t ring[FW_SAMPLE_BUF_MAX];
    uint64_t sum;           /* summary over all samples since start/reset */
    uint32_t count;
    uint32_t min, max, latest;
    bool above;             /* threshold state (ADC) or last level (digital) */
    bool primed;            /* first sample taken (edge detection needs a previous one) */
    uint32_t missed;        /* sampling ticks skipped because poll came late */
    uint32_t read_errors;   /* HAL errors while sampling */
} fw_pin_state_t;

typedef struct fw_event {
    uint32_t seq;       /* device-wide, starts at 1 */
    uint8_t pin_index;
    uint8_t kind;       /* fw_event_kind_t */
    uint32_t value;
    uint64_t t_ms;
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
typedef struct fw_framer {
    char line[FW_LINE_MAX + 1];
    size_t len;
    bool discarding; /* inside an overlong line, dropping bytes until the newline */
    bool ready;      /* line holds the line last reported; the next push starts afresh */
} fw_framer_t;

/*
 * The device instance. The caller owns it (static, stack or embedded in a larger struct); its
 * members are the core's private state: read them only through the functions below.
 */
typedef struct fw_device {
    const fw_board_t *board;
    const hal_api_t *hal;
    void *hal_ctx;
    const fw_tool_t *tools[FW_TOOLS_MAX];
    uint8_t tool_count;
    fw_pin_state_t pins[FW_PINS_MAX];
    fw_event_t events[FW_EVENT_QUEUE_MAX];
    uint16_t ev_head, ev_count;
    uint32_t ev_next_seq;
    fw_counters_t counters;
    uint64_t boot_ms;
    fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    uint8_t scratch[FW_SCRATCH_SIZE];
    size_t scratch_used;
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
 * msg is not modified and need not be NUL-terminated.
 */
bool fw_device_handle(fw_device_t *dev, const char *msg, size_t len, fw_sink_t out);

/*
 * Byte-stream entry (UART, TCP): feeds data into the connection's framer; every complete line is
 * handled and its reply written to out followed by "\n". Partial lines wait for more bytes.
 * An overlong line gets one -32700 error and framing resumes after its newline.
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

/* Framing: resets a framer to the empty state. */
void fw_framer_init(fw_framer_t *fr);

/* Firmware version string of the core itself. */
#define FW_CORE_VERSION "0.1.0"

#endif
