/* mcpsim_arduino.h: the mcpsim core on an Arduino board: one device, its HAL on the Arduino API
   (pinMode, digitalWrite/Read, analogWrite/Read, millis), bytes in and replies out through
   functions the sketch gives. C linkage, and no core type in it, so a sketch (C++) includes
   only this. */
#ifndef MCPSIM_ARDUINO_H
#define MCPSIM_ARDUINO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct fw_board; /* a board: fw_board_t, generated from its JSON file (board2c) */

/* Where the replies go (Serial.write in the example). */
typedef void (*mcpsim_write_fn)(const char *data, size_t len);

/* Starts the device on board; 0 on success, the core's negative error otherwise. */
int mcpsim_begin(const struct fw_board *board, mcpsim_write_fn write);

/* Bytes received (one JSON-RPC message per line); complete lines are answered at once. */
void mcpsim_feed(const uint8_t *data, size_t len);

/* Runs due sampling; call it from loop(). */
void mcpsim_poll(void);

#ifdef __cplusplus
}
#endif

#endif
