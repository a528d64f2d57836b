/* fw_rom_avr.c: fw_rd8 for the AVR (fw_rom_avr.h): one byte from flash or RAM by address. */
#include "fw_rom_avr.h"

__attribute__((noinline)) uint8_t fw_rd8(const void *p)
{
    return (uintptr_t)p > RAMEND ? pgm_read_byte(p) : *(const uint8_t *)p;
}
