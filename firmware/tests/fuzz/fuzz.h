/* fuzz.h: the fuzz harnesses of the firmware core and what they share (docs/fuzzing.md). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "fw_device.h"
#include "mock_hal.h"

/*
 * A harness takes any bytes, drives the core with them and checks what the core answers. It
 * returns 0; a broken property calls fuzz_fail(), which aborts, so libFuzzer records a crash and
 * the replay test (test_fuzz_replay.c) fails. The same functions are linked into both.
 */
int fuzz_json_reader(const uint8_t *data, size_t size);
int fuzz_device_feed(const uint8_t *data, size_t size);
int fuzz_device_handle(const uint8_t *data, size_t size);

/* Name of the input being run, printed by fuzz_fail (the replay test sets it; may be NULL). */
extern const char *fuzz_input_name;

/* Prints "fuzz: <message> [input]" to stderr and aborts. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fuzz_fail(__VA_ARGS__);                                                                \
        }                                                                                          \
    } while (0)

/* The device harnesses (feed, handle, the oracle) need what the fuzz board and the oracle use:
   sampling, I2C chips, MCP and floating point. A build without them (mcpu-min) has the JSON
   reader's harness only. */
#define FUZZ_DEVICE (FW_WITH_MCP && FW_WITH_SAMPLING && FW_WITH_I2C && FW_WITH_FLOAT)

/* ---------------------------------------------------------------- the device rig */

/*
 * A device on the mock HAL with the fuzz board: led (2, digital out), button (4, sampled digital
 * in with events), sensor (34, sampled ADC with buffer, summary and threshold events), vbat (35,
 * unsampled ADC), door (19, unsampled digital in), fan (18, PWM); two I2C buses with a TMP102 at
 * 0x48 and a 24C32 EEPROM at 0x50 on bus 0 (mock_hal I2C devices); the esp32-demo touch tools.
 * When `failing`, the HAL functions that touch hardware fail with errors picked from
 * fail_pattern (one error kind per call), so the tools' error paths run too.
 */
/* Sample slots the fuzz board's buffered pins need (button 8, sensor 16). */
#define FUZZ_SAMPLE_SLOTS 24

typedef struct fuzz_rig {
    mock_hal_t mock;
    fw_board_t board;                            /* the fuzz board, with this rig's rings */
    fw_sample_slot_t samples[FUZZ_SAMPLE_SLOTS]; /* so that rigs alive together never share */
    fw_device_t dev;
    fw_framer_t framer;
    bool failing;
    uint64_t fail_pattern; /* bit k (mod 64): HAL call k fails */
    unsigned hal_calls;
} fuzz_rig_t;

/* Sets the rig up on the fuzz board (alt: the variant with millivolt ADC reports and no
   schemas in list_tools) and takes a few samples so the pin tools have data. */
void fuzz_rig_init(fuzz_rig_t *rig, bool alt);

/*
 * Puts the rig in exactly the state fuzz_rig_init(rig, alt) leaves, without its cost (device
 * init, tool registration, a second of sampling): the first call for a rig and variant runs
 * fuzz_rig_init and keeps a byte copy of the result, later calls copy it back. This is exact
 * because the rig holds all the state the device and the mock HAL have (the firmware has no
 * mutable globals and no heap) and its pointers point into the rig itself (HAL context, board,
 * sample store), which is why a snapshot is only restored into the rig it was taken from.
 */
void fuzz_rig_reset(fuzz_rig_t *rig, bool alt);

/* Moves the mock clock by ms in sampling steps, changing the sensor and button on the way, and
   runs the due sampling (so events and gaps appear). */
void fuzz_rig_advance(fuzz_rig_t *rig, uint64_t ms);

/* The name get_info reports for the fuzz board. */
#define FUZZ_BOARD_DEVICE "fuzz-board"

/* ---------------------------------------------------------------- replies */

/*
 * Checks one reply text of the device (a line without its "\n", or a whole HTTP/WS reply): valid
 * JSON with no duplicate keys, a JSON-RPC 2.0 response object or a non-empty array of at most
 * FW_BATCH_MAX of them; each has exactly the members jsonrpc ("2.0"), id (string, number or
 * null) and one of result (an object) or error ({code: an integer of the JSON-RPC ranges,
 * message: a non-empty string, optionally data}). Fails the run otherwise. Returns the parsed
 * reply (the caller json_decref()s it) for further checks.
 */
json_t *fuzz_check_reply(const char *text, size_t len, const char *what);

/* As fuzz_check_reply, but a notification of the device (a "notifications/..." method with
   params, no id), as MCP sends before a response, passes too. */
json_t *fuzz_check_message(const char *text, size_t len, const char *what);

/* True for a message that is a notification (has a method), not a reply. */
bool fuzz_is_notification(const json_t *msg);

/* ---------------------------------------------------------------- the JSON-RPC oracle */

/* Whether the device must answer message msg[0..len) at all (rules in fuzz_oracle.c). */
bool fuzz_wants_reply(const char *msg, size_t len);

/* Checks that reply (from fuzz_check_reply; NULL when there was none) is the answer JSON-RPC 2.0
   prescribes for msg[0..len): its presence, shape (one response or a batch), ids and the codes
   of the message-level errors. */
void fuzz_check_answer(const char *msg, size_t len, const json_t *reply, const char *what);

/* Checks that reply is one error response with id null and the given code. */
void fuzz_check_message_error(const json_t *reply, int code, const char *what);

/* A growing byte buffer used as a sink. */
typedef struct fuzz_buf {
    char *data;
    size_t len, cap;
} fuzz_buf_t;

void fuzz_buf_write(void *ctx, const char *data, size_t len);
void fuzz_buf_free(fuzz_buf_t *b);

/* A heap copy of data[0..size) of exactly size bytes (ASan sees any read past the end). */
char *fuzz_exact_copy(const uint8_t *data, size_t size);

#endif
