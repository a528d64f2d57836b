/* emu_pins.c: the chip's pins seen from outside, numbered the Arduino way for the ATmega328P
   family (D0..D7 = PD0..PD7, D8..D13 = PB0..PB5, A0..A5 = 14..19 = PC0..PC5 = ADC0..ADC5):
   levels and direction from the port registers, PWM from the timers' registers, inputs driven
   through simavr's ioport irqs and ADC voltages through its ADC irqs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <avr_adc.h>
#include <avr_ioport.h>
#include <sim_io.h>

#include "emu.h"

/* Data-space addresses of the ATmega48/88/168/328(P). */
enum {
    PINB = 0x23, PINC = 0x26, PIND = 0x29, /* DDRx = PINx + 1, PORTx = PINx + 2 */
    TCCR0A = 0x44, TCCR0B = 0x45, OCR0A = 0x47, OCR0B = 0x48,
    ADMUX = 0x7C,
    TCCR1A = 0x80, TCCR1B = 0x81, ICR1L = 0x86, OCR1AL = 0x88, OCR1BL = 0x8A,
    TCCR2A = 0xB0, TCCR2B = 0xB1, OCR2A = 0xB3, OCR2B = 0xB4,
    UCSR0B = 0xC1
};

typedef struct {
    char port;
    uint8_t bit;
    uint8_t pin_reg;
} pin_loc_t;

static pin_loc_t loc(int pin)
{
    if (pin < 8) return (pin_loc_t){'D', (uint8_t)pin, PIND};
    if (pin < 14) return (pin_loc_t){'B', (uint8_t)(pin - 8), PINB};
    return (pin_loc_t){'C', (uint8_t)(pin - 14), PINC};
}

static const char *const family[] = {"atmega328p", "atmega328", "atmega168p", "atmega168",
                                     "atmega168pa", "atmega88p", "atmega88", "atmega48p",
                                     "atmega48", NULL};

void emu_pins_init(emu_t *e)
{
    e->pins_known = false;
    for (int i = 0; family[i]; i++)
        if (!strcmp(e->avr->mmcu, family[i])) e->pins_known = true;
    for (int i = 0; i < 8; i++) e->analog_mv[i] = -1;
}

static bool bit(const emu_t *e, uint16_t addr, uint8_t b)
{
    return (e->avr->data[addr] >> b) & 1;
}

/* Floating inputs follow their pull-up: high with PORTx set, else low. */
void emu_pins_refresh(emu_t *e)
{
    if (!e->pins_known) return;
    for (int p = 0; p < EMU_MAX_PINS; p++) {
        if (e->ext[p] != EXT_FLOAT) continue;
        pin_loc_t l = loc(p);
        if (bit(e, l.pin_reg + 1, l.bit)) continue; /* an output */
        bool want = bit(e, l.pin_reg + 2, l.bit);
        if (bit(e, l.pin_reg, l.bit) != want)
            avr_raise_irq(avr_io_getirq(e->avr, AVR_IOCTL_IOPORT_GETIRQ(l.port), l.bit), want);
    }
}

int emu_pin_parse(emu_t *e, json_t *pin, const char **err)
{
    if (!e->pins_known) {
        *err = "params.pin: pin numbers are only known for the ATmega328P family";
        return -1;
    }
    if (!pin) {
        *err = "params.pin: missing";
        return -1;
    }
    json_int_t n;
    if (json_is_integer(pin)) {
        n = json_integer_value(pin);
    } else if (json_is_string(pin)) {
        const char *s = json_string_value(pin);
        char *end;
        int base = 0;
        if ((s[0] == 'D' || s[0] == 'd') && s[1]) s++;
        else if ((s[0] == 'A' || s[0] == 'a') && s[1]) s++, base = 14;
        n = strtol(s, &end, 10);
        if (*s < '0' || *s > '9' || *end || n > 99) {
            *err = "params.pin: not a pin (an integer 0..19, \"D0\".. \"D13\" or \"A0\"..\"A5\")";
            return -1;
        }
        if (base && n > 5) {
            *err = "params.pin: no such analog pin (A0..A5)";
            return -1;
        }
        n += base;
    } else {
        *err = "params.pin: must be an integer 0..19 (or \"D13\", \"A0\")";
        return -1;
    }
    if (n < 0 || n >= EMU_MAX_PINS) {
        *err = "params.pin: no such pin (0..13 = D0..D13, 14..19 = A0..A5)";
        return -1;
    }
    return (int)n;
}

/* PWM of the timer output on PIN, when its timer drives it: fills the JSON, returns true. */
static bool pwm_info(emu_t *e, int pin, json_t *o)
{
    const uint8_t *d = e->avr->data;
    uint8_t tccra, tccrb, shift, timer;
    uint16_t ocr;
    switch (pin) {
    case 6: timer = 0, tccra = d[TCCR0A], tccrb = d[TCCR0B], shift = 6, ocr = d[OCR0A]; break;
    case 5: timer = 0, tccra = d[TCCR0A], tccrb = d[TCCR0B], shift = 4, ocr = d[OCR0B]; break;
    case 9: timer = 1, tccra = d[TCCR1A], tccrb = d[TCCR1B], shift = 6,
            ocr = (uint16_t)(d[OCR1AL] | d[OCR1AL + 1] << 8); break;
    case 10: timer = 1, tccra = d[TCCR1A], tccrb = d[TCCR1B], shift = 4,
             ocr = (uint16_t)(d[OCR1BL] | d[OCR1BL + 1] << 8); break;
    case 11: timer = 2, tccra = d[TCCR2A], tccrb = d[TCCR2B], shift = 6, ocr = d[OCR2A]; break;
    case 3: timer = 2, tccra = d[TCCR2A], tccrb = d[TCCR2B], shift = 4, ocr = d[OCR2B]; break;
    default: return false;
    }
    unsigned com = (tccra >> shift) & 3, cs = tccrb & 7;
    unsigned top = 0;
    bool fast = false, pwm = false;
    if (timer == 1) {
        unsigned wgm = (tccra & 3) | ((tccrb >> 3) & 3) << 2;
        unsigned icr = d[ICR1L] | d[ICR1L + 1] << 8, ocra = d[OCR1AL] | d[OCR1AL + 1] << 8;
        static const unsigned tops[16] = {0, 0xff, 0x1ff, 0x3ff, 0, 0xff, 0x1ff, 0x3ff,
                                          1,  2,    1,     2,     0, 0,    1,     2};
        pwm = wgm != 0 && wgm != 4 && wgm != 12 && wgm != 13;
        fast = wgm == 5 || wgm == 6 || wgm == 7 || wgm == 14 || wgm == 15;
        top = tops[wgm] == 1 ? icr : tops[wgm] == 2 ? ocra : tops[wgm];
    } else {
        unsigned wgm = (tccra & 3) | ((tccrb >> 3) & 1) << 2;
        pwm = wgm == 1 || wgm == 3 || wgm == 5 || wgm == 7;
        fast = wgm == 3 || wgm == 7;
        top = wgm >= 5 ? (timer == 0 ? d[OCR0A] : d[OCR2A]) : 0xff;
    }
    static const unsigned pre01[8] = {0, 1, 8, 64, 256, 1024, 0, 0};
    static const unsigned pre2[8] = {0, 1, 8, 32, 64, 128, 256, 1024};
    unsigned n = timer == 2 ? pre2[cs] : pre01[cs];
    if (!pwm || com < 2 || n == 0 || top == 0) return false;
    double duty = ocr >= top ? 1.0 : (double)ocr / (fast ? top + 1.0 : (double)top);
    if (com == 3) duty = 1.0 - duty;
    double f = (double)e->avr->frequency / n / (fast ? top + 1.0 : 2.0 * top);
    json_object_set_new(o, "pwm", json_true());
    /* duty on pwm_write's 0..255 scale (what the simulator's sim.get_pin reports), the
       compare register's raw value beside it */
    json_object_set_new(o, "duty", json_integer(lround(duty * 255)));
    json_object_set_new(o, "ocr", json_integer(ocr));
    json_object_set_new(o, "top", json_integer(top));
    json_object_set_new(o, "duty_cycle", json_real(round(duty * 10000) / 10000));
    json_object_set_new(o, "frequency_hz", json_real(round(f * 100) / 100));
    json_object_set_new(o, "timer", json_integer(timer));
    return true;
}

static unsigned vref_mv(const emu_t *e)
{
    switch (e->avr->data[ADMUX] >> 6) {
    case 0: return e->avr->aref;
    case 3: return 1100;
    default: return e->avr->avcc;
    }
}

json_t *emu_pin_json(emu_t *e, int pin)
{
    pin_loc_t l = loc(pin);
    char name[8], port[8];
    snprintf(name, sizeof name, pin >= 14 ? "A%d" : "D%d", pin >= 14 ? pin - 14 : pin);
    snprintf(port, sizeof port, "P%c%u", l.port, l.bit);
    bool out = bit(e, l.pin_reg + 1, l.bit), portbit = bit(e, l.pin_reg + 2, l.bit);
    bool level = out ? portbit : bit(e, l.pin_reg, l.bit);
    json_t *o = json_object();
    json_object_set_new(o, "pin", json_integer(pin));
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "port", json_string(port));
    json_object_set_new(o, "mode",
                        json_string(out ? "output" : portbit ? "input_pullup" : "input"));
    json_object_set_new(o, "level", json_boolean(level));
    json_object_set_new(o, "external", e->ext[pin] == EXT_FLOAT ? json_null()
                                                                : json_boolean(e->ext[pin] == EXT_HIGH));
    if (!(out && pwm_info(e, pin, o))) {
        /* a plain level, as the simulator's sim.get_pin reports it */
        json_object_set_new(o, "pwm", json_false());
        json_object_set_new(o, "duty", json_integer(0));
        json_object_set_new(o, "frequency_hz", json_integer(0));
    }
    if (pin >= 14) {
        int ch = pin - 14;
        unsigned ref = vref_mv(e);
        json_object_set_new(o, "analog", json_true());
        json_object_set_new(o, "vref", json_real(ref / 1000.0));
        if (e->analog_mv[ch] >= 0) {
            json_object_set_new(o, "volts", json_real(e->analog_mv[ch] / 1000.0));
            unsigned raw = ref ? (unsigned)((uint32_t)e->analog_mv[ch] * 0x3ffu / ref) : 0;
            json_object_set_new(o, "raw", json_integer(raw > 1023 ? 1023 : raw));
        } else {
            json_object_set_new(o, "volts", json_null());
            json_object_set_new(o, "raw", json_null());
        }
    }
    return o;
}

int emu_pin_set_input(emu_t *e, int pin, json_t *level, const char **err)
{
    emu_ext_t ext;
    if (json_is_null(level)) ext = EXT_FLOAT;
    else if (json_is_true(level)) ext = EXT_HIGH;
    else if (json_is_false(level)) ext = EXT_LOW;
    else if (json_is_integer(level) && json_integer_value(level) == 1) ext = EXT_HIGH;
    else if (json_is_integer(level) && json_integer_value(level) == 0) ext = EXT_LOW;
    else {
        *err = level ? "params.level: must be true, false, 0, 1 or null" : "params.level: missing";
        return -1;
    }
    pin_loc_t l = loc(pin);
    if (bit(e, l.pin_reg + 1, l.bit)) {
        *err = "params.pin: the firmware drives this pin as an output";
        return -1;
    }
    if (pin <= 1 && (e->avr->data[UCSR0B] & (pin == 0 ? 0x10 : 0x08))) {
        *err = "params.pin: USART0 uses this pin (use the pty)";
        return -1;
    }
    e->ext[pin] = ext;
    if (ext == EXT_FLOAT)
        emu_pins_refresh(e);
    else
        avr_raise_irq(avr_io_getirq(e->avr, AVR_IOCTL_IOPORT_GETIRQ(l.port), l.bit),
                      ext == EXT_HIGH);
    return 0;
}

int emu_pin_set_analog(emu_t *e, int pin, json_t *volts, json_t *raw, const char **err)
{
    if (pin < 14) {
        *err = "params.pin: not an analog pin (A0..A5 = 14..19)";
        return -1;
    }
    if ((volts != NULL) == (raw != NULL)) {
        *err = "params: give exactly one of volts and raw";
        return -1;
    }
    double vcc = e->avr->vcc / 1000.0, mv;
    unsigned ref = vref_mv(e);
    if (volts) {
        if (!json_is_number(volts)) {
            *err = "params.volts: must be a number";
            return -1;
        }
        double v = json_number_value(volts);
        if (!(v >= 0 && v <= vcc)) {
            *err = "params.volts: out of range 0..VCC";
            return -1;
        }
        mv = round(v * 1000);
    } else {
        if (!json_is_integer(raw) || json_integer_value(raw) < 0 || json_integer_value(raw) > 1023) {
            *err = "params.raw: must be an integer 0..1023";
            return -1;
        }
        /* simavr converts millivolts as mv * 1023 / vref: the smallest mv giving this raw. */
        mv = ceil((double)json_integer_value(raw) * ref / 1023.0);
    }
    int ch = pin - 14;
    e->analog_mv[ch] = mv;
    avr_raise_irq(avr_io_getirq(e->avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0 + ch), (uint32_t)mv);
    return 0;
}

json_t *emu_read_outputs(emu_t *e)
{
    json_t *o = json_object();
    uint64_t us = emu_now_us(e);
    json_object_set_new(o, "now_ms", json_integer((json_int_t)(us / 1000)));
    json_object_set_new(o, "now_us", json_integer((json_int_t)us));
    json_t *pins = json_array();
    for (int p = 0; p < EMU_MAX_PINS; p++) json_array_append_new(pins, emu_pin_json(e, p));
    json_object_set_new(o, "pins", pins);
    return o;
}
