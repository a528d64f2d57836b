/* sim.h: the simulated board: board files, the simulated HAL, the clock and the control channel. */
#ifndef SIM_H
#define SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_device.h"

/* A located error: "file:line:column: text" (line/column 0 when unknown). */
typedef struct sim_error {
    char file[256];
    int line, column;
    char text[256];
} sim_error_t;

/* Formats err as "file:line:column: text" into out (always NUL-terminated). */
void sim_error_format(const sim_error_t *err, char *out, size_t cap);

/* ---------------------------------------------------------------- board files */

typedef struct sim_board sim_board_t;

/* Loads and validates a board file (JSON, format in docs/board-format.md). NULL on error with
 *err naming file, line, column and what is wrong. */
sim_board_t *sim_board_load(const char *path, sim_error_t *err);

/*
 * A product's own application tools, for its own simulator (mcpsim_add_simulator): a board
 * file's "app_tools" may then name them like the ones of firmware/apps/. tools is
 * NULL-terminated and must outlive the process; they are looked up before mcpsim's. Call before
 * any board is loaded; a later call replaces the earlier list. (Models: sim_register_models.)
 */
void sim_register_app_tools(const fw_tool_t *const *tools);

/* Same, from text already in memory (name is used as the file name in errors). */
sim_board_t *sim_board_load_text(const char *name, const char *text, size_t len, sim_error_t *err);

void sim_board_free(sim_board_t *board);

/* The firmware's view of the board (valid while the board lives; its chips' configurations,
   application tools and sample_store are the board's). The same fw_board_t as the C that
   cmake/board2c.cmake generates from the same file. */
const fw_board_t *sim_board_fw(const sim_board_t *board);

/* ---------------------------------------------------------------- the simulated device */

typedef enum sim_clock_mode { SIM_CLOCK_REALTIME = 0, SIM_CLOCK_VIRTUAL } sim_clock_mode_t;

typedef struct sim sim_t;

/* The board file's "uart": whether opening the serial port resets the board (as DTR does on a
   USB-serial board), and the line its boot prints (NULL: none). */
bool sim_uart_reset_on_open(const sim_t *sim);
const char *sim_uart_boot_banner(const sim_t *sim);

/*
 * Creates the simulated hardware for board (ownership passes to the sim) and boots the firmware
 * core on it. Time starts at 0. NULL on error with *err set. Not thread-safe: the host serialises
 * every call on one sim (one device = one single-core MCU).
 */
sim_t *sim_create(sim_board_t *board, sim_clock_mode_t mode, sim_error_t *err);
void sim_destroy(sim_t *sim);

/* The firmware instance: the host feeds it bytes or messages (fw_device_feed/fw_device_handle). */
fw_device_t *sim_device(sim_t *sim);

sim_clock_mode_t sim_clock_mode(const sim_t *sim);

/* Current simulated time in microseconds (the HAL reports it in ms). */
uint64_t sim_now_us(const sim_t *sim);

/* Real-time mode: the host reports the wall clock (us since start); the sim runs every firmware
   deadline and model event due up to it, each at its own instant. No-op backwards. */
void sim_sync_wall(sim_t *sim, uint64_t wall_us);

/* sim_sync_wall for a caller that knows the next event: next_us, what sim_next_event_us
   returned after the last thing that could move the sim's events (a call into the device, a
   control message, a poll). Before it, only the clock moves; else as sim_sync_wall. */
void sim_sync_wall_known(sim_t *sim, uint64_t wall_us, uint64_t next_us);

/* Virtual mode: moves time forward by us, running every due event at its exact instant.
   Returns false in real-time mode (time cannot be moved there). */
bool sim_advance(sim_t *sim, uint64_t us);

/* Time (us) of the next firmware deadline or model event; UINT64_MAX if none. */
uint64_t sim_next_event_us(const sim_t *sim);

/* Adds the test tools, resources and prompts of the official MCP conformance suite
   (fixtures.h) to the firmware, now and after every reset (mcpsim --conformance-fixtures).
   FW_OK, or the registration error (e.g. FW_ERR_NO_SPACE: the board leaves no room). */
fw_err_t sim_enable_fixtures(sim_t *sim);

/* Re-initialises the firmware as a DTR reset would (hardware state such as EEPROM content and
   wires stays; output pins return to reset levels). */
void sim_reset(sim_t *sim);

/* ---------------------------------------------------------------- control channel */

/*
 * Handles one control-channel message (JSON-RPC 2.0 text, sim.* methods, documented in
 * docs/control-channel.md) and returns the response text (malloc'd, no newline; caller frees),
 * or NULL when the message was a notification. Never reachable from the device's transports:
 * only the host's --control listener calls it.
 */
char *sim_control_handle(sim_t *sim, const char *msg, size_t len);

#endif
