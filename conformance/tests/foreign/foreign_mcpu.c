/* foreign_mcpu.c: a deliberately small, deliberately imperfect MCP/U firmware for the ATmega328P
 * (Arduino Uno pins), written the way a hobbyist sketch would be: avr-libc only, a polled USART at
 * 115200 8N1, a fixed line buffer and strstr() instead of a JSON parser. It is NOT built from the
 * mcpsim core; it exists so the conformance runner has a third-party device to judge.
 *
 * It answers get_info, list_tools, gpio_write (pin 13, the LED) and gpio_read (13, and 2: a
 * button with its pull-up), and breaks these MUST rules (DEVIATIONS.md has the sources; the
 * first four on purpose, the last two because strstr() is not a JSON parser, as in many sketches):
 *
 *   D1  The id is echoed only when it is an integer that fits 32 bits: a string id is answered
 *       with "id":null, a larger integer with 2147483647. JSON-RPC 2.0 section 5 (Response
 *       object, id): it MUST be the same as the request's id.
 *   D2  An unknown method is answered with -32600 (Invalid Request) instead of -32601.
 *       JSON-RPC 2.0 section 5.1 and the MCP/U protocol's Error Codes table: -32601 is
 *       "Method not found" (the method does not exist).
 *   D3  The Request object is not validated: "jsonrpc" is never checked (a request without it,
 *       or with "1.0", is served) and params that are not an object or array are ignored.
 *       JSON-RPC 2.0 section 4: jsonrpc MUST be exactly "2.0", params MUST be a structured
 *       value; a request that is not a valid Request object gets -32600 (section 5.1).
 *   D4  A line longer than the 96-byte buffer is cut: its first 96 bytes are handled as one message
 *       and the rest as another, so one valid request gets two responses, both -32700 (Parse error)
 *       with id null. JSON-RPC 2.0 section 4 (the Server MUST reply with a Response: one per
 *       Request), section 5 (id MUST equal the request's id) and section 5.1 (-32700 is for
 *       invalid JSON; this request was valid); MCP/U framing: one message per line.
 *   D5  Notifications (requests without an id) are answered, with "id":null. JSON-RPC 2.0 section
 *       4.1: the Server MUST NOT reply to a Notification.
 *   D6  JSON is not validated: a line with a trailing comma is served, one with single quotes gets
 *       -32600, and valid JSON that is not an object gets -32700. JSON-RPC 2.0 section 5.1:
 *       -32700 is for invalid JSON, -32600 for valid JSON that is not a valid Request.
 */
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_MMCU_SECTION
#include "avr_mcu_section.h"
AVR_MCU(16000000, "atmega328p");
#endif

#define LINE_MAX 96

static char line[LINE_MAX + 1];
static uint8_t len;

static void tx(char c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

static void print(const char *s)
{
    while (*s) tx(*s++);
}

static void print_P(const char *s)
{
    char c;
    while ((c = (char)pgm_read_byte(s++))) tx(c);
}

static void print_int(long v)
{
    char buf[12];
    ltoa(v, buf, 10);
    print(buf);
}

/* Finds "key" and returns what follows its colon (spaces skipped), or NULL. */
static const char *field(const char *key)
{
    char pat[12];
    pat[0] = '"';
    strcpy(pat + 1, key);
    strcat(pat, "\"");
    const char *p = strstr(line, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

static uint8_t id_is_int;
static long id_val;

static void begin(void)
{
    print("{\"jsonrpc\":\"2.0\",\"id\":");
    if (id_is_int)
        print_int(id_val);
    else
        print("null"); /* D1: a string id is not echoed */
}

static void error(int code, const char *msg)
{
    begin();
    print(",\"error\":{\"code\":");
    print_int(code);
    print(",\"message\":\"");
    print(msg);
    print("\"}}\n");
}

static const char INFO[] PROGMEM =
    "\"device\":\"hobby-uno\",\"version\":\"0.3.0\"";
static const char TOOLS[] PROGMEM =
    ",\"platform\":\"avr\",\"pin_count\":2";
static const char LIST[] PROGMEM =
    ",\"tools\":[{\"name\":\"gpio_write\",\"description\":\"Write HIGH or LOW to the LED\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"pin\":{\"type\":\"integer\"},"
    "\"value\":{\"type\":\"boolean\"}},\"required\":[\"pin\",\"value\"]}},"
    "{\"name\":\"gpio_read\",\"description\":\"Read a digital pin\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"pin\":{\"type\":\"integer\"}},"
    "\"required\":[\"pin\"]}}],"
    "\"pins\":[{\"pin\":13,\"name\":\"led\",\"type\":\"digital_output\",\"description\":\"LED\"},"
    "{\"pin\":2,\"name\":\"button\",\"type\":\"digital_input\",\"description\":\"Button\"}]";

static void pin_result(int pin, uint8_t value)
{
    begin();
    print(",\"result\":{\"pin\":");
    print_int(pin);
    print(pin == 13 ? ",\"name\":\"led\",\"value\":" : ",\"name\":\"button\",\"value\":");
    print(value ? "true}}\n" : "false}}\n");
}

static void handle(void)
{
    char *s = line;
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (!*s) return;
    uint8_t n = (uint8_t)strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r')) s[--n] = 0;
    id_is_int = 0;
    if (s[0] != '{' || s[n - 1] != '}') {
        error(-32700, "Parse error");
        return;
    }
    const char *id = field("id");
    if (id && ((*id >= '0' && *id <= '9') || *id == '-')) {
        id_is_int = 1;
        id_val = strtol(id, NULL, 10);
    }
    /* D3: "jsonrpc" is never looked at */
    const char *m = field("method");
    if (!m || *m != '"') {
        error(-32600, "Invalid request");
        return;
    }
    m++;
    if (!strncmp(m, "get_info\"", 9)) {
        begin();
        print(",\"result\":{");
        print_P(INFO);
        print_P(TOOLS);
        print("}}\n");
    } else if (!strncmp(m, "list_tools\"", 11)) {
        begin();
        print(",\"result\":{");
        print_P(INFO);
        print_P(LIST);
        print("}}\n");
    } else if (!strncmp(m, "gpio_write\"", 11) || !strncmp(m, "gpio_read\"", 10)) {
        uint8_t write = m[5] == 'w';
        const char *p = field("pin");
        if (!p || *p < '0' || *p > '9') {
            error(-32602, "Bad params: pin");
            return;
        }
        int pin = atoi(p);
        if (write) {
            const char *v = field("value");
            if (pin != 13 || !v || (*v != 't' && *v != 'f')) {
                error(-32602, "Bad params");
                return;
            }
            if (*v == 't')
                PORTB |= (1 << PB5);
            else
                PORTB &= (uint8_t) ~(1 << PB5);
            pin_result(13, *v == 't');
        } else if (pin == 13) {
            pin_result(13, (PORTB >> PB5) & 1);
        } else if (pin == 2) {
            pin_result(2, (PIND >> PD2) & 1);
        } else {
            error(-32602, "Bad params: no such pin");
        }
    } else {
        error(-32600, "Unknown method"); /* D2: should be -32601 */
    }
}

int main(void)
{
    UCSR0A = 1 << U2X0;
    UBRR0H = 0;
    UBRR0L = 16; /* 115200 at 16 MHz with U2X */
    UCSR0B = (1 << RXEN0) | (1 << TXEN0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    DDRB |= (1 << PB5);
    PORTD |= (1 << PD2);
    for (;;) {
        if (!(UCSR0A & (1 << RXC0))) continue;
        char c = (char)UDR0;
        if (c == '\n') {
            line[len] = 0;
            handle();
            len = 0;
        } else if (len < LINE_MAX) {
            line[len++] = c;
        } else {
            /* D4: the buffer is full: handle what we have, start a new "line" with the rest */
            line[len] = 0;
            handle();
            len = 0;
            line[len++] = c;
        }
    }
}
