/* fake_device.c: a tiny Cortex-M3 firmware for QEMU's lm3s6965evb that misbehaves on purpose,
 * to test how the runner's qemu: target diagnoses a broken device (tests/emulated_failures.sh).
 * Not built from the core: it answers discovery (get_info, list_tools) with fixed lines over
 * UART0 by polling, then, by FAKE_MODE:
 *   1 silent  never sends a byte (a firmware whose UART is not set up);
 *   2 hang    answers discovery, then stops answering (stuck in a loop, interrupts off);
 *   3 crash   answers discovery, then executes an undefined instruction with a HardFault vector
 *             that faults again: the core locks up and QEMU ends with a fatal error.
 */
#include <stdint.h>

#ifndef FAKE_MODE
#error "FAKE_MODE selects the misbehaviour (1 silent, 2 hang, 3 crash)"
#endif

#define UART0_DR (*(volatile uint32_t *)0x4000C000u)
#define UART0_FR (*(volatile uint32_t *)0x4000C018u)
#define FR_RXFE 0x10u
#define FR_TXFF 0x20u

extern uint32_t _stack_top;
void reset_handler(void);
int main(void);

void reset_handler(void)
{
    main();
    for (;;) {
    }
}

/* The vector table: the initial stack and reset; every fault vector points at an address with
   no code (0xFFFFFFF1 is outside every region), so a fault faults again and the core locks up. */
__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)&_stack_top, (uintptr_t)reset_handler, 0xFFFFFFF1u, 0xFFFFFFF1u,
    0xFFFFFFF1u,            0xFFFFFFF1u,              0xFFFFFFF1u,
};

static void put(const char *s)
{
    for (; *s; s++) {
        while (UART0_FR & FR_TXFF) {
        }
        UART0_DR = (uint32_t)(unsigned char)*s;
    }
}

static char get(void)
{
    while (UART0_FR & FR_RXFE) {
    }
    return (char)(UART0_DR & 0xffu);
}

/* Does line contain word? */
static int has(const char *line, const char *word)
{
    for (; *line; line++) {
        const char *a = line, *b = word;
        while (*a && *b && *a == *b) a++, b++;
        if (!*b) return 1;
    }
    return 0;
}

/* Copies the digits of "id":N into out (at most 15). */
static void id_of(const char *line, char *out)
{
    out[0] = '0', out[1] = 0;
    for (; *line; line++) {
        if (line[0] == '"' && line[1] == 'i' && line[2] == 'd' && line[3] == '"' && line[4] == ':') {
            const char *p = line + 5;
            int n = 0;
            while (*p >= '0' && *p <= '9' && n < 15) out[n++] = *p++;
            if (n) out[n] = 0;
            return;
        }
    }
}

int main(void)
{
    char line[256], id[16];
    unsigned answered = 0;
    if (FAKE_MODE == 1)
        for (;;) {
        }
    for (;;) {
        unsigned n = 0;
        for (char c; (c = get()) != '\n';)
            if (n < sizeof line - 1) line[n++] = c;
        line[n] = 0;
        if (answered >= 2) {
            if (FAKE_MODE == 2) {
                __asm__ volatile("cpsid i");
                for (;;) {
                }
            }
            __asm__ volatile(".short 0xde00"); /* udf #0: an undefined instruction */
        }
        id_of(line, id);
        put("{\"jsonrpc\":\"2.0\",\"id\":");
        put(id);
        if (has(line, "\"get_info\""))
            put(",\"result\":{\"device\":\"fake\",\"version\":\"0\",\"pins\":[]}}\n");
        else if (has(line, "\"list_tools\""))
            put(",\"result\":{\"tools\":[]}}\n");
        else
            put(",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n");
        answered++;
    }
}
