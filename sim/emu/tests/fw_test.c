/* fw_test.c: the AVR test firmware of mcpsim-avr's tests (ATmega328P, 16 MHz, polled, no
 * interrupts). Variants by -DFW_MODE:
 *   0 (default) echo: every byte received on USART0 is sent back; meanwhile PD2 (D2) is mirrored
 *     onto PB5 (D13), and ADC0 (A0) is converted continuously against AVCC with the top 8 bits
 *     of each result written to OCR2A (fast PWM on PB3, D11). At boot, a 200-byte stack buffer is
 *     filled once (so the stack high-water is at least that) and "boot\n" is sent.
 *   1 crash, invalid opcode: sends "boot\n", then executes a reserved opcode.
 *   2 crash, jump off the end: sends "boot\n", then calls an address past the end of the code.
 *   3 stop: sends "boot\n", then sleeps with interrupts disabled.
 *   4 watchdog: sends "boot\n", enables the watchdog (15 ms, reset mode) and never resets it.
 */
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <stdint.h>

#include "avr_mcu_section.h"
AVR_MCU(16000000, "atmega328p");
AVR_MCU_VOLTAGES(5000, 5000, 5000);

#ifndef FW_MODE
#define FW_MODE 0
#endif

static void tx(uint8_t c)
{
    while (!(UCSR0A & (1 << UDRE0))) {
    }
    UDR0 = c;
}

static void puts_(const char *s)
{
    while (*s) tx((uint8_t)*s++);
}

/* Uses 200 bytes of stack once; the sum keeps the compiler from dropping the buffer. */
static uint8_t __attribute__((noinline)) deep(uint8_t seed)
{
    volatile uint8_t buf[200];
    uint8_t sum = 0;
    for (uint8_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(seed + i);
    for (uint8_t i = 0; i < sizeof buf; i++) sum = (uint8_t)(sum + buf[i]);
    return sum;
}

int main(void)
{
    /* 115200 8N1 with U2X: UBRR = 16 at 16 MHz. */
    UCSR0A = 1 << U2X0;
    UBRR0H = 0;
    UBRR0L = 16;
    UCSR0B = (1 << RXEN0) | (1 << TXEN0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    volatile uint8_t sink = deep(3);
    (void)sink;
    puts_("boot\n");
#if FW_MODE == 1
    __asm__ volatile(".word 0x0001"); /* 0000 0000 0000 0001: no AVR instruction */
#elif FW_MODE == 2
    ((void (*)(void))0x3f00)(); /* word address 0x3f00 = byte 0x7e00: far past the code */
#elif FW_MODE == 3
    cli();
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
    sleep_enable();
    sleep_cpu();
#elif FW_MODE == 4
    wdt_enable(WDTO_15MS);
    for (;;) {
    }
#endif
    DDRB = (1 << PB5) | (1 << PB3);
    DDRD &= (uint8_t) ~(1 << PD2);
    PORTD |= (1 << PD2); /* pull-up on D2 */
    /* Timer 2: fast PWM, non-inverting on OC2A, clk/64. */
    TCCR2A = (1 << COM2A1) | (1 << WGM21) | (1 << WGM20);
    TCCR2B = (1 << CS22);
    OCR2A = 0;
    /* ADC0 against AVCC, clk/128, first conversion started. */
    ADMUX = (1 << REFS0);
    ADCSRA = (1 << ADEN) | (1 << ADSC) | 7;
    for (;;) {
        if (UCSR0A & (1 << RXC0)) tx(UDR0);
        if (PIND & (1 << PD2))
            PORTB |= (1 << PB5);
        else
            PORTB &= (uint8_t) ~(1 << PB5);
        if (!(ADCSRA & (1 << ADSC))) {
            uint16_t v = ADC;
            OCR2A = (uint8_t)(v >> 2);
            ADCSRA |= (1 << ADSC);
        }
    }
}
