/* fw_rom_avr.h: where the core's constant data lives on an AVR (fw_config.h includes this header
   when the build defines FW_ROM_HEADER to name it; see README.md). avr-gcc keeps every const
   object in RAM (.data) unless it is marked PROGMEM, and reads flash only with LPM. Here:
     FW_ROM          marks a const object to stay in flash;
     FW_S("text")    a string literal that stays in flash (PSTR);
     fw_rd8(p)       reads one byte of an object in either space.
   Both kinds of pointer are plain 16-bit `const char *` / `const void *`: this port's linker
   script (atmega328p.ld) places all flash data after the code, above the top of RAM (RAMEND,
   0x8ff), and asserts it, so an address above RAMEND is flash and one at or below is RAM. */
#ifndef FW_ROM_AVR_H
#define FW_ROM_AVR_H

#include <avr/io.h>
#include <avr/pgmspace.h>
#include <stdint.h>

#define FW_ROM PROGMEM
/* FW_ROM_STR and FW_S: strings in flash like PROGMEM and PSTR, but in a section the linker
   merges (flags "aMS", entry size 1): the same text used in many places, or the tail of a
   longer one, is stored once. GCC writes the section's name after `.section` and its own flags
   after it; the `;` starts an assembler comment on the AVR, so the flags written here are the
   ones the assembler sees. Only for single strings: the linker splits the section at each NUL
   (an array with NULs inside, like "a\0b", stays FW_ROM). */
#define FW_ROM_STR __attribute__((section(".progmem.fwstr,\"aMS\",@progbits,1;")))
#define FW_S(s) \
    (__extension__({ \
        static const char fw_s_[] FW_ROM_STR = (s); \
        &fw_s_[0]; \
    }))
#define FW_ROM_SPLIT 1 /* constant data and RAM are separate spaces: readers use fw_rd8 */

/* Out of line (fw_rom_avr.c): a call is 2 bytes where the test and both loads are 14. */
uint8_t fw_rd8(const void *p);

#endif
