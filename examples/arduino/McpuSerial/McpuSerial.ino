// McpuSerial: an MCP/U device on the board's USB serial port (115200 8N1), one JSON-RPC message
// per line, served by the mcpsim core. The board (pins, ADC profile, tools) is C generated from
// mcpsim's board files: uno-min on an AVR (the mcpu-min profile), esp32-demo on an ESP32.
//   {"jsonrpc":"2.0","id":1,"method":"get_info"}
//   {"jsonrpc":"2.0","id":2,"method":"gpio_write","params":{"pin":"led","value":true}}
#include <mcpsim_arduino.h>

#if defined(ARDUINO_ARCH_AVR)
extern "C" const struct fw_board fw_board_uno_min;
#define SKETCH_BOARD fw_board_uno_min
#else
extern "C" const struct fw_board fw_board_esp32_demo;
#define SKETCH_BOARD fw_board_esp32_demo
#endif

static void serial_write(const char *data, size_t len)
{
    Serial.write(reinterpret_cast<const uint8_t *>(data), len);
}

void setup()
{
    Serial.begin(115200);
    if (mcpsim_begin(&SKETCH_BOARD, serial_write) != 0) {
        pinMode(LED_BUILTIN, OUTPUT);
        for (;;) { // the core refused the board: blink
            digitalWrite(LED_BUILTIN, !digitalRead(LED_BUILTIN));
            delay(100);
        }
    }
}

void loop()
{
    uint8_t buf[16];
    size_t n = 0;
    while (n < sizeof buf && Serial.available() > 0) buf[n++] = (uint8_t)Serial.read();
    if (n > 0) mcpsim_feed(buf, n);
    mcpsim_poll();
}
