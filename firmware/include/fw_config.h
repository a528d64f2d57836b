/* fw_config.h: the build profile, its feature switches and every compile-time limit of the
   firmware core; a board may override any of them. */
#ifndef FW_CONFIG_H
#define FW_CONFIG_H

/* A board build may put its overrides in a header named by FW_CONFIG_BOARD_HEADER. */
#ifdef FW_CONFIG_BOARD_HEADER
#include FW_CONFIG_BOARD_HEADER
#endif

/* ---------------------------------------------------------------- constant data in flash */

/*
 * On a part whose flash is not in the data address space (an AVR: avr-gcc copies every const
 * object into RAM at start unless told otherwise), the port names a header in FW_ROM_HEADER
 * that defines, for the core:
 *   FW_ROM        the storage attribute of a const object that stays in flash;
 *   FW_ROM_STR    the attribute of a const char array holding one string (no NUL inside)
 *                 that stays in flash: the port may store equal strings once (FW_ROM if not
 *                 defined);
 *   FW_S("text")  a string literal that stays in flash (usable inside functions only);
 *   fw_rd8(p)     one byte of a const object, wherever it lives (flash or RAM: a pointer the
 *                 core reads may point to either, so both kinds keep the plain C types);
 *   FW_ROM_SPLIT  1.
 * Everywhere else (the host, Cortex-M) they are the identity, and the core's code is plain C.
 * The core reads strings and descriptor tables through fw_rd8 and the helpers built on it
 * (fw_internal.h); FW_ROM_LOAD gives a descriptor's copy in RAM where flash is separate.
 */
#ifdef FW_ROM_HEADER
#include FW_ROM_HEADER
#endif
#ifndef FW_ROM_SPLIT
#define FW_ROM_SPLIT 0
#define FW_ROM
#define FW_S(s) (s)
#define fw_rd8(p) (*(const unsigned char *)(p))
#endif
#ifndef FW_ROM_STR
#define FW_ROM_STR FW_ROM
#endif

/* FW_SPEED_PATHS: the request path's fast paths that cost flash (framing and the writer's escape
   scan a word at a time, the writer's one-copy runs, the reader's raw string comparison;
   docs/performance.md). On by default; off where constant data is in flash (an AVR: flash is
   what is scarcest there). The behaviour is the same either way. */
/* Level 2 adds the paths that cost more flash again (session 6, issue 13: the writer's short
   strings and keys checked as they are copied, the envelope's constant head, names compared on
   the raw bytes, the envelope's keys by length, 32-bit number printing): by default where the
   build is hosted (the simulator, the tests, the benchmark), where flash costs nothing; a
   freestanding part without separate constant data gets level 1 (its flash budgets do not
   leave room for level 2: see docs/performance.md). */
#ifndef FW_SPEED_PATHS
#if FW_ROM_SPLIT
#define FW_SPEED_PATHS 0
#elif __STDC_HOSTED__
#define FW_SPEED_PATHS 2
#else
#define FW_SPEED_PATHS 1
#endif
#endif

/* FW_METHOD_INDEX: MCP/U's methods and the tools are found by a hash of the name (a table of
   FW_METHOD_SLOTS entries in the device, filled as tools are added) instead of by comparing the
   name with every entry. Where speed is asked for most (level 2) and names are in plain memory;
   the table costs 2 bytes of RAM per slot. */
#ifndef FW_METHOD_INDEX
#define FW_METHOD_INDEX (FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT)
#endif

/* FW_FAST_LIBC: the C library's memchr is faster than a word-at-a-time loop of the core's own
   (a hosted build's library is vectorized; a freestanding port's small libc goes byte by byte).
   Where it is, framing finds a line's LF with it. */
#ifndef FW_FAST_LIBC
#define FW_FAST_LIBC (__STDC_HOSTED__ && FW_SPEED_PATHS)
#endif

/* ---------------------------------------------------------------- profiles */

/*
 * One switch picks a profile (-DFW_PROFILE=FW_PROFILE_MCPU_MIN, or CMake -DMCPSIM_PROFILE=
 * mcpu-min); the profile gives every feature switch and limit below its default, and any of them
 * may still be overridden one by one.
 *   FW_PROFILE_FULL      what the simulator runs: MCP and MCP/U, sampling, I2C, floating point.
 *   FW_PROFILE_MCPU_MIN  MCP/U over a byte stream on a 2 KB part: get_info, list_tools with full
 *                        input schemas, gpio/pwm/adc tools; no MCP, no sampling, no I2C, no
 *                        floating point, small pools.
 */
#define FW_PROFILE_FULL 1
#define FW_PROFILE_MCPU_MIN 2
#ifndef FW_PROFILE
#define FW_PROFILE FW_PROFILE_FULL
#endif
#if FW_PROFILE != FW_PROFILE_FULL && FW_PROFILE != FW_PROFILE_MCPU_MIN
#error "FW_PROFILE must be FW_PROFILE_FULL or FW_PROFILE_MCPU_MIN"
#endif
#define FW_MIN (FW_PROFILE == FW_PROFILE_MCPU_MIN)

/* The profile's name as get_info/system_info report it. */
#if FW_MIN
#define FW_PROFILE_NAME "mcpu-min"
#else
#define FW_PROFILE_NAME "full"
#endif

/* MCP (initialize, tools, resources, prompts, sessions, notifications, the log). Off: the
   MCP modules are not linked and their public functions answer "unsupported". */
#ifndef FW_WITH_MCP
#define FW_WITH_MCP (!FW_MIN)
#endif

/* Floating point: NUMBER parameters and fractional JSON numbers as double. Off: no double in the
   core (no soft-float library on an FPU-less part); every decimal is printed from integers. */
#ifndef FW_WITH_FLOAT
#define FW_WITH_FLOAT (!FW_MIN)
#endif

/* 64-bit tool arguments and parameter ranges (fw_int_t). Off: 32-bit, as an 8-bit or 32-bit
   part computes fastest and smallest (no 64-bit helpers on the argument paths). */
#ifndef FW_WITH_INT64
#define FW_WITH_INT64 (!FW_MIN)
#endif

/* Tool and parameter descriptions in listings (off: descriptors keep NULL and listings write
   "", schemas keep types, ranges, enums, defaults and required). Off in mcpu-min: about 1.3 KB
   of flash. */
#ifndef FW_WITH_DESCRIPTIONS
#define FW_WITH_DESCRIPTIONS (!FW_MIN)
#endif

/* FW_PARAM_BYTES parameters (arrays of 0..255: the I2C tools use them). Off: a tool that
   declares one is refused by fw_device_add_tool. */
#ifndef FW_WITH_PARAM_BYTES
#define FW_WITH_PARAM_BYTES (!FW_MIN)
#endif
#if FW_WITH_I2C && !FW_WITH_PARAM_BYTES
#error "FW_WITH_I2C needs FW_WITH_PARAM_BYTES (i2c_write takes bytes)"
#endif

/* JSON-RPC batches (an array of requests in one message). Off: an array is answered with one
   -32600 and list_tools reports capabilities.batch false. */
#ifndef FW_WITH_BATCH
#define FW_WITH_BATCH (!FW_MIN)
#endif

/* Periodic sampling of input pins: rings, summaries, events, the pin buffer tools. */
#ifndef FW_WITH_SAMPLING
#define FW_WITH_SAMPLING (!FW_MIN)
#endif

/* I2C: the i2c_* tools, the I2C call helpers and the board's I2C chips (drivers). */
#ifndef FW_WITH_I2C
#define FW_WITH_I2C (!FW_MIN)
#endif

#if FW_WITH_MCP && !FW_WITH_SAMPLING
#error "FW_WITH_MCP needs FW_WITH_SAMPLING (pin resources carry the sampling summary)"
#endif

/* A description in a descriptor: FW_DESC("...") is NULL when descriptions are off. */
#if FW_WITH_DESCRIPTIONS
#define FW_DESC(text) (text)
#else
#define FW_DESC(text) ((const char *)0)
#endif

/* ---------------------------------------------------------------- limits */

/* Longest request line (without its newline) a byte-stream transport accepts. */
#ifndef FW_LINE_MAX
#define FW_LINE_MAX (FW_MIN ? 200 : 1024)
#endif

/* Largest whole message (fw_device_handle) the JSON reader indexes, plus one: up to 65535,
   tokens keep 16-bit offsets (10 bytes a token instead of 16). A longer message is refused
   with -32600 naming this limit. */
#ifndef FW_MSG_MAX
#define FW_MSG_MAX 65535u
#endif

/* JSON tokens available to parse one message (a batch shares one pool). */
#ifndef FW_JSON_TOKENS_MAX
#define FW_JSON_TOKENS_MAX (FW_MIN ? 24 : 192)
#endif

/* Deepest nesting of arrays/objects the reader accepts. */
#ifndef FW_JSON_DEPTH_MAX
#define FW_JSON_DEPTH_MAX (FW_MIN ? 6 : 16)
#endif

/* Bytes the JSON writer buffers before handing them to its sink. */
#ifndef FW_JW_BUF_SIZE
#define FW_JW_BUF_SIZE (FW_MIN ? 16 : 128)
#endif

/* Deepest nesting the JSON writer tracks (envelope + result structure). */
#ifndef FW_JW_DEPTH_MAX
#define FW_JW_DEPTH_MAX (FW_MIN ? 8 : 16)
#endif

/* Pins in the registry of one device. */
#ifndef FW_PINS_MAX
#define FW_PINS_MAX (FW_MIN ? 8 : 16)
#endif

/* Tools registered on one device (built-in, driver and application tools together). */
#ifndef FW_TOOLS_MAX
#define FW_TOOLS_MAX (FW_MIN ? 8 : 40)
#endif

/* Parameters one tool may declare. */
#ifndef FW_PARAMS_MAX
#define FW_PARAMS_MAX (FW_MIN ? 3 : 8)
#endif

/* Pins of one board that sample (each has its sampling state in the device). */
#ifndef FW_SAMPLED_PINS_MAX
#define FW_SAMPLED_PINS_MAX 8
#endif

/* Most samples one pin's ring may hold (its buffer_size; the board supplies the storage). */
#ifndef FW_SAMPLE_BUF_MAX
#define FW_SAMPLE_BUF_MAX 64
#endif

/* Threshold/edge events queued across all pins before overflow is counted. */
#ifndef FW_EVENT_QUEUE_MAX
#define FW_EVENT_QUEUE_MAX (FW_MIN ? 4 : 32)
#endif

/* Requests in one JSON-RPC batch. */
#ifndef FW_BATCH_MAX
#define FW_BATCH_MAX (FW_MIN ? 4 : 16)
#endif

/* Bytes for decoded argument strings and byte arrays of one call. */
#ifndef FW_SCRATCH_SIZE
#define FW_SCRATCH_SIZE (FW_MIN ? 48 : 256)
#endif

/* Bytes of one error message (it names the field and the limit). */
#ifndef FW_ERRMSG_MAX
#define FW_ERRMSG_MAX (FW_MIN ? 72 : 160)
#endif

/* Validation issues reported in one -32602 error's data.issues. */
#ifndef FW_ISSUES_MAX
#define FW_ISSUES_MAX (FW_MIN ? 1 : 4)
#endif

/* Bytes of one validation issue's path ("bytes[3]") and message. */
#ifndef FW_ISSUE_PATH_MAX
#define FW_ISSUE_PATH_MAX (FW_MIN ? 16 : 32)
#endif
#ifndef FW_ISSUE_TEXT_MAX
#define FW_ISSUE_TEXT_MAX (FW_MIN ? 56 : 96)
#endif

/* I2C chips (driver instances) a board may declare. */
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

/* MCP tasks (fw_task.h): slots of running and finished tasks (0: no tasks), tools that can run
   as one, bytes of a task's arguments and of its result text, and how long a task is kept
   (ttlMs). Compiled out without MCP. A device image keeps two small slots; the simulator's host
   build raises all four (CMakeLists.txt: 8 slots, the conformance suite's tasks-* scenarios). */
#ifndef FW_MAX_TASKS
#define FW_MAX_TASKS (FW_WITH_MCP ? 2 : 0)
#endif
#if FW_MAX_TASKS > 255
#error "FW_MAX_TASKS: at most 255 (fw_device_t.task_top is a byte)"
#endif
#ifndef FW_TASK_TOOLS_MAX
#define FW_TASK_TOOLS_MAX 2
#endif
#ifndef FW_TASK_ARGS_MAX
#define FW_TASK_ARGS_MAX 48
#endif
#ifndef FW_TASK_TEXT_MAX
#define FW_TASK_TEXT_MAX 64
#endif
#ifndef FW_TASK_TTL_MS
#define FW_TASK_TTL_MS 300000u
#endif
#define FW_WITH_TASKS (FW_WITH_MCP && FW_MAX_TASKS > 0)
/* MCP 2025-11-25's tasks (params.task on tools/call, tasks/get|list|result|cancel) on the same
   slots, for sessions that negotiated that version. On in the simulator's host build
   (CMakeLists.txt); off in a device image unless the port asks (-DFW_WITH_TASKS_2025=1: about
   2.4 KB of flash on Cortex-M3, docs/mcp.md). */
#ifndef FW_WITH_TASKS_2025
#define FW_WITH_TASKS_2025 0
#endif
#if FW_WITH_TASKS_2025 && !FW_WITH_TASKS
#undef FW_WITH_TASKS_2025
#define FW_WITH_TASKS_2025 0
#endif

/* MCP 2026-07-28 subscriptions/listen: streams open at once (0: none; compiled out without
   MCP). Each slot keeps the listen request's id, its filter and cursors (fw_listener_t). */
#ifndef FW_MAX_LISTENERS
#define FW_MAX_LISTENERS (FW_WITH_MCP ? 2 : 0)
#endif
#if FW_MAX_LISTENERS > 255
#error "FW_MAX_LISTENERS: at most 255 (fw_device_t.listen_top is a byte)"
#endif
#define FW_WITH_LISTEN (FW_WITH_MCP && FW_MAX_LISTENERS > 0)

/* MCP: longest request id (raw JSON bytes) a notifications/cancelled can name. */
#ifndef FW_MCP_ID_MAX
#define FW_MCP_ID_MAX 32
#endif

/* MCP 2026-07-28: longest payload of an input-required result's requestState (the text a
   tool hands to fw_call_input_end; the core appends a 16-hex-digit MAC). */
#ifndef FW_MCP_STATE_MAX
#define FW_MCP_STATE_MAX 96
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
