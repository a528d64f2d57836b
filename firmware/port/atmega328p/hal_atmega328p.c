/* hal_atmega328p.c: the HAL of an Arduino-Uno-class ATmega328P at 16 MHz (see README.md).
   Pins are Arduino numbers: D0..D7 = PD0..PD7, D8..D13 = PB0..PB5, A0..A5 = 14..19 = PC0..PC5. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>

#include "hal_atmega328p.h"

/* ---------------------------------------------------------------- interrupt state */

/* Milliseconds, counted by Timer0's compare interrupt. */
static volatile uint32_t tick_ms;

/* USART0's receive ring: the RX-complete interrupt appends at rx_head, the main loop takes from
   rx_tail. The transmitter polls, so reception goes on while a response is written: the ring
   holds what a client sends meanwhile. 128 bytes take the further requests of a client that
   writes three short ones at once (as the conformance library's framing scenario does) while
   the first one's answer goes out; a client that waits for each response never fills it. */
#define RX_RING 128u
static volatile uint8_t rx_ring[RX_RING];
static volatile uint8_t rx_head, rx_tail;

ISR(TIMER0_COMPA_vect)
{
    tick_ms++;
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1u) & (RX_RING - 1u));
    if (next == rx_tail) return; /* full: the byte is lost, as an overrun would lose it */
    rx_ring[rx_head] = byte;
    rx_head = next;
}

uint8_t hal_atmega328p_uart_read(uint8_t *buf, uint8_t cap)
{
    uint8_t n = 0;
    uint8_t tail = rx_tail;
    while (n < cap && tail != rx_head) {
        buf[n++] = rx_ring[tail];
        tail = (uint8_t)((tail + 1u) & (RX_RING - 1u));
    }
    rx_tail = tail;
    return n;
}

void hal_atmega328p_uart_put(uint8_t byte)
{
    loop_until_bit_is_set(UCSR0A, UDRE0);
    UDR0 = byte;
}

void hal_atmega328p_idle(void)
{
    cli();
    if (rx_head == rx_tail) {
        sleep_enable();
        sei(); /* the instruction after sei runs before any interrupt: no wake-up is missed */
        sleep_cpu();
        sleep_disable();
    }
    sei();
}

/* ---------------------------------------------------------------- init */

void hal_atmega328p_init(hal_atmega328p_t *hal)
{
    MCUSR = 0; /* a watchdog reset leaves the watchdog running: stop it first */
    wdt_disable();
    hal->last_tick = 0;
    hal->tick_high = 0;

    /* Timer0: fast PWM with TOP = OCR0A = 249 at clk/64: a 1 kHz period, whose compare-A
       interrupt is the 1 ms tick; OC0B (D5) can give PWM at that rate, OC0A (D6) cannot. */
    TCCR0A = _BV(WGM01) | _BV(WGM00);
    TCCR0B = _BV(WGM02) | _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    /* Timers 1 and 2: phase-correct PWM with TOP 255 at clk/64, 490 Hz (the Uno's analogWrite;
       Timer1 with ICR1 as TOP, which pwm_write changes for another frequency on D9/D10);
       outputs connected only while a pin does PWM. */
    TCCR1A = _BV(WGM11);
    ICR1 = 255;
    TCCR1B = _BV(WGM13) | _BV(CS11) | _BV(CS10);
    TCCR2A = _BV(WGM20);
    TCCR2B = _BV(CS22);
    /* ADC: AVcc reference, clk/128 (125 kHz). */
    ADMUX = _BV(REFS0);
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0);
    /* USART0: 115200 8N1, double speed (UBRR 16: 2.1% error), receive interrupt. */
    UCSR0A = _BV(U2X0);
    UBRR0 = 16;
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
}

/* ---------------------------------------------------------------- time */

static uint64_t now_ms(void *ctx)
{
    hal_atmega328p_t *hal = ctx;
    uint32_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        t = tick_ms;
    } /* four bytes: not atomic by themselves */
    if (t < hal->last_tick) hal->tick_high++;
    hal->last_tick = t;
    return ((uint64_t)hal->tick_high << 32) | t;
}

/* ---------------------------------------------------------------- GPIO */

/* The port of a pin: its DDR, PORT and PIN registers are at pin_reg - 1, pin_reg, pin_reg - 2
   in data space (PINx, DDRx, PORTx are consecutive). NULL for no such pin; D0 and D1 are the
   serial line and are refused. */
static volatile uint8_t *port_of(uint16_t pin, uint8_t *mask)
{
    if (pin < 2u || pin > 19u) return NULL;
    if (pin < 8u) {
        *mask = (uint8_t)(1u << pin);
        return &PORTD;
    }
    if (pin < 14u) {
        *mask = (uint8_t)(1u << (pin - 8u));
        return &PORTB;
    }
    *mask = (uint8_t)(1u << (pin - 14u));
    return &PORTC;
}
#define DDR_OF(port) (*((port)-1))
#define PIN_OF(port) (*((port)-2))

/* The timer compare output of a PWM pin: the data-space addresses of its control register and
   compare register (the low byte: Timer1's high byte stays 0, 8-bit PWM) and its COMx1 bit.
   D6 has none: its OC0A is Timer0's TOP. */
typedef struct pwm_out {
    uint8_t pin, tccr, ocr, com;
} pwm_out_t;

static const pwm_out_t pwm_outs[] PROGMEM = {
    {3, _SFR_MEM_ADDR(TCCR2A), _SFR_MEM_ADDR(OCR2B), _BV(COM2B1)},
    {5, _SFR_MEM_ADDR(TCCR0A), _SFR_MEM_ADDR(OCR0B), _BV(COM0B1)},
    {9, _SFR_MEM_ADDR(TCCR1A), _SFR_MEM_ADDR(OCR1AL), _BV(COM1A1)},
    {10, _SFR_MEM_ADDR(TCCR1A), _SFR_MEM_ADDR(OCR1BL), _BV(COM1B1)},
    {11, _SFR_MEM_ADDR(TCCR2A), _SFR_MEM_ADDR(OCR2A), _BV(COM2A1)},
};

static bool pwm_of(uint16_t pin, pwm_out_t *o)
{
    for (uint8_t i = 0; i < sizeof pwm_outs / sizeof pwm_outs[0]; i++) {
        memcpy_P(o, &pwm_outs[i], sizeof *o);
        if (o->pin == pin) return true;
    }
    return false;
}
#define REG(addr) (*(volatile uint8_t *)(uint16_t)(addr))

/* A digital write or mode change ends PWM on the pin, as digitalWrite does. */
static void pwm_off(uint16_t pin)
{
    pwm_out_t o;
    if (pwm_of(pin, &o)) REG(o.tccr) &= (uint8_t)~o.com;
}

static fw_err_t gpio_mode(void *ctx, uint16_t pin, hal_pin_mode_t mode)
{
    uint8_t m;
    volatile uint8_t *port = port_of(pin, &m);
    (void)ctx;
    if (port == NULL) return FW_ERR_HW;
    if (mode == HAL_PIN_INPUT_PULLDOWN) return FW_ERR_UNSUPPORTED; /* pull-ups only */
    pwm_off(pin);
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (mode == HAL_PIN_OUTPUT) {
            DDR_OF(port) |= m;
        } else {
            DDR_OF(port) &= (uint8_t)~m;
            if (mode == HAL_PIN_INPUT_PULLUP)
                *port |= m;
            else
                *port &= (uint8_t)~m;
        }
    }
    return FW_OK;
}

static fw_err_t gpio_write(void *ctx, uint16_t pin, bool level)
{
    uint8_t m;
    volatile uint8_t *port = port_of(pin, &m);
    (void)ctx;
    if (port == NULL) return FW_ERR_HW;
    pwm_off(pin);
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (level)
            *port |= m;
        else
            *port &= (uint8_t)~m;
    }
    return FW_OK;
}

static fw_err_t gpio_read(void *ctx, uint16_t pin, bool *level)
{
    uint8_t m;
    volatile uint8_t *port = port_of(pin, &m);
    (void)ctx;
    if (port == NULL) return FW_ERR_HW;
    *level = (PIN_OF(port) & m) != 0;
    return FW_OK;
}

/* ---------------------------------------------------------------- PWM and ADC */

/* Timer1 (D9 = OC1A, D10 = OC1B, one frequency for both) runs phase-correct PWM with ICR1 as
   TOP (mode 10): f = F_CPU / (2 N TOP). t1_top is its TOP; t1_duty each output's duty, so that
   a new TOP keeps both duties (OCR1x = duty * TOP / 255). */
static uint16_t t1_top;
static uint8_t t1_duty[2];

static void t1_set_ocr(uint8_t ch)
{
    uint16_t v = (uint16_t)((uint32_t)t1_duty[ch] * t1_top / 255u);
    if (ch)
        OCR1B = v;
    else
        OCR1A = v;
}

/* Timer1 at freq_hz. 0 and 490 are its default, the Uno's analogWrite rate: clk/64, TOP 255
   (490.2 Hz, OCR1x = duty). Else the smallest prescaler N (1, 8, 64, 256) whose TOP =
   F_CPU / (2 N f) (truncated) fits 16 bits; a TOP below 255 (above 31372 Hz) would lose duty
   steps: FW_ERR_UNSUPPORTED. No interrupt touches Timer1 or its 16-bit TEMP register. */
static fw_err_t t1_rate(uint32_t freq_hz)
{
    uint8_t cs = 3; /* CS11 | CS10: clk/64 */
    uint32_t top = 255;
    if (freq_hz != 0 && freq_hz != 490u) {
        uint32_t clk = HAL_AVR_F_CPU / 2u;
        cs = 1; /* clk/1; then 8, 64, 256: F_CPU / 2 / 256 / 1 Hz fits 16 bits */
        while ((top = clk / freq_hz) > 0xffffu) {
            clk >>= cs < 3 ? 3 : 2;
            cs++;
        }
        if (top < 255u) return FW_ERR_UNSUPPORTED;
    }
    TCCR1B = 0; /* stopped while TOP and the compare values change */
    TCNT1 = 0;
    ICR1 = (uint16_t)top;
    t1_top = (uint16_t)top;
    t1_set_ocr(0);
    t1_set_ocr(1);
    TCCR1B = (uint8_t)(_BV(WGM13) | cs);
    return FW_OK;
}

/* duty 0 and 255 drive the pin low and high (no glitch of the timer's minimum pulse); others
   connect the compare output. D9 and D10 take a frequency (Timer1's, shared: t1_rate; 0 is
   its default 490 Hz); the other pins run at fixed rates (D3, D11 490 Hz, D5 1 kHz): another
   frequency there is FW_ERR_UNSUPPORTED. */
static fw_err_t pwm_write(void *ctx, uint16_t pin, uint8_t duty, uint32_t freq_hz)
{
    pwm_out_t o;
    uint8_t m;
    volatile uint8_t *port = port_of(pin, &m);
    if (port == NULL || !pwm_of(pin, &o)) return FW_ERR_UNSUPPORTED;
    bool t1 = o.tccr == _SFR_MEM_ADDR(TCCR1A);
    if (t1) {
        fw_err_t err = t1_rate(freq_hz);
        if (err != FW_OK) return err;
        t1_duty[pin - 9u] = duty;
        t1_set_ocr((uint8_t)(pin - 9u));
    } else if (freq_hz != 0 && freq_hz != (pin == 5 ? 1000u : 490u)) {
        return FW_ERR_UNSUPPORTED;
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        DDR_OF(port) |= m;
    }
    if (duty == 0 || duty == 255) return gpio_write(ctx, pin, duty == 255);
    /* Timer0 counts to 249: scale the duty to its period; Timer1's is set by t1_rate. */
    if (!t1) REG(o.ocr) = pin == 5 ? (uint8_t)(((uint16_t)duty * 250u) >> 8) : duty;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        REG(o.tccr) |= o.com;
    }
    return FW_OK;
}

static fw_err_t adc_read(void *ctx, uint16_t pin, uint16_t *raw)
{
    (void)ctx;
    if (pin < 14u || pin > 19u) return FW_ERR_UNSUPPORTED;
    ADMUX = (uint8_t)(_BV(REFS0) | (pin - 14u));
    ADCSRA |= _BV(ADSC);
    /* A conversion takes 13 ADC clocks, 104 us; give up after about 2 ms. */
    for (uint16_t n = 0; ADCSRA & _BV(ADSC); n++)
        if (n == 0xffffu) return FW_ERR_TIMEOUT;
    *raw = ADC;
    return FW_OK;
}

/* ---------------------------------------------------------------- the chip */

static const char chip_name[] PROGMEM = "ATmega328P";

static fw_err_t device_info(void *ctx, hal_device_info_t *info)
{
    (void)ctx;
    info->chip = chip_name;
    info->unique_id = chip_name + sizeof chip_name - 1; /* "" */
    info->cpu_mhz = HAL_AVR_F_CPU / 1000000UL;
    info->ram_bytes = RAMEND - RAMSTART + 1;
    info->flash_bytes = FLASHEND + 1UL;
    return FW_OK;
}

/* The watchdog's shortest timeout resets the chip; the loop waits for it. */
static void reset(void *ctx)
{
    (void)ctx;
    cli();
    wdt_enable(WDTO_15MS);
    for (;;) {
    }
}

const hal_api_t hal_atmega328p_api = {
    .now_ms = now_ms,
    .gpio_mode = gpio_mode,
    .gpio_write = gpio_write,
    .gpio_read = gpio_read,
    .pwm_write = pwm_write,
    .adc_read = adc_read,
    .i2c_transfer = NULL,
    .device_info = device_info,
    .reset = reset,
};
