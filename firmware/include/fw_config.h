/* fw_config.h: every compile-time limit of the firmware core; a board may override any of them. */
#ifndef FW_CONFIG_H
#define FW_CONFIG_H

/* A board build may put its overrides in a header named by FW_CONFIG_BOARD_HEADER. */
#ifdef FW_CONFIG_BOARD_HEADER
#include FW_CONFIG_BOARD_HEADER
#endif

/* Longest request line (without its newline) a byte-stream transport accepts. */
#ifndef FW_LINE_MAX
#define FW_LINE_MAX 1024
#endif

/* JSON tokens available to parse one message (a batch shares one pool). */
#ifndef FW_JSON_TOKENS_MAX
#define FW_JSON_TOKENS_MAX 192
#endif

/* Deepest nesting of arrays/objects the reader accepts. */
#ifndef FW_JSON_DEPTH_MAX
#define FW_JSON_DEPTH_MAX 16
#endif

/* Bytes the JSON writer buffers before handing them to its sink. */
#ifndef FW_JW_BUF_SIZE
#define FW_JW_BUF_SIZE 128
#endif

/* Deepest nesting the JSON writer tracks (envelope + result structure). */
#ifndef FW_JW_DEPTH_MAX
#define FW_JW_DEPTH_MAX 16
#endif

/* Pins in the registry of one device. */
#ifndef FW_PINS_MAX
#define FW_PINS_MAX 16
#endif

/* Tools registered on one device (built-in, driver and application tools together). */
#ifndef FW_TOOLS_MAX
#define FW_TOOLS_MAX 40
#endif

/* Parameters one tool may declare. */
#ifndef FW_PARAMS_MAX
#define FW_PARAMS_MAX 8
#endif

/* Samples a pin's ring buffer can hold (a pin's buffer_size may be smaller). */
#ifndef FW_SAMPLE_BUF_MAX
#define FW_SAMPLE_BUF_MAX 64
#endif

/* Threshold/edge events queued across all pins before overflow is counted. */
#ifndef FW_EVENT_QUEUE_MAX
#define FW_EVENT_QUEUE_MAX 32
#endif

/* Requests in one JSON-RPC batch. */
#ifndef FW_BATCH_MAX
#define FW_BATCH_MAX 16
#endif

/* Bytes for decoded argument strings and byte arrays of one call. */
#ifndef FW_SCRATCH_SIZE
#define FW_SCRATCH_SIZE 256
#endif

/* Bytes of one error message (it names the field and the limit). */
#ifndef FW_ERRMSG_MAX
#define FW_ERRMSG_MAX 160
#endif

/* Validation issues reported in one -32602 error's data.issues. */
#ifndef FW_ISSUES_MAX
#define FW_ISSUES_MAX 4
#endif

/* I2C devices (driver instances) a board may declare. */
#ifndef FW_I2C_DEVICES_MAX
#define FW_I2C_DEVICES_MAX 4
#endif

/* Most bytes one i2c_read / i2c_write / eeprom transfer moves. */
#ifndef FW_I2C_XFER_MAX
#define FW_I2C_XFER_MAX 32
#endif

/* MCP: most tools in one tools/list page. */
#ifndef FW_MCP_PAGE_TOOLS
#define FW_MCP_PAGE_TOOLS 16
#endif

/* MCP: most bytes of one tools/list page's "tools" array (the 003 device pages at 8000); a
   single tool larger than this still gets a page of its own. */
#ifndef FW_MCP_PAGE_BYTES
#define FW_MCP_PAGE_BYTES 8000
#endif

/* MCP: bytes of a tool's JSON result kept to send it twice (as text and as structuredContent);
   a longer result is streamed once, as text only. */
#ifndef FW_MCP_RESULT_MAX
#define FW_MCP_RESULT_MAX 1024
#endif

/* MCP: longest request id (raw JSON bytes) a notifications/cancelled can name. */
#ifndef FW_MCP_ID_MAX
#define FW_MCP_ID_MAX 32
#endif

/* Firmware log (MCP notifications/message): entries the ring keeps until every session has
   been drained, and bytes of one entry's text. */
#ifndef FW_LOG_RING
#define FW_LOG_RING 8
#endif
#ifndef FW_LOG_TEXT_MAX
#define FW_LOG_TEXT_MAX 96
#endif

/* MCP: resources and prompts an application may add (fw_device_add_resource, _prompt). */
#ifndef FW_EXTRA_RESOURCES_MAX
#define FW_EXTRA_RESOURCES_MAX 8
#endif
#ifndef FW_EXTRA_PROMPTS_MAX
#define FW_EXTRA_PROMPTS_MAX 8
#endif

/* Log level (fw_log_level_t: 0 debug .. 7 emergency) an MCP session gets at initialize, until
   logging/setLevel changes it. A session that never initializes gets no log messages. */
#ifndef FW_LOG_DEFAULT_LEVEL
#define FW_LOG_DEFAULT_LEVEL 1
#endif

#endif
