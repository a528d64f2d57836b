# foreign.cmake: builds conformance/tests/foreign/foreign_mcpu.c, a small third-party MCP/U
# firmware for the ATmega328P (not built from the mcpsim core; DEVIATIONS.md lists the rules it
# breaks on purpose), into ${CMAKE_BINARY_DIR}/bin/foreign_mcpu.elf, for mcpsim-avr and the
# conformance runner's avr: target. Included from conformance/CMakeLists.txt; does nothing
# without avr-gcc. The simavr .mmcu section (chip and clock) is added when simavr's
# avr_mcu_section.h is installed; it is linked far outside flash so it cannot shift .data.

find_program(AVR_GCC avr-gcc)
if(AVR_GCC)
    set(_foreign_src ${CMAKE_CURRENT_LIST_DIR}/foreign_mcpu.c)
    set(_foreign_elf ${CMAKE_BINARY_DIR}/bin/foreign_mcpu.elf)
    find_path(FOREIGN_MMCU_DIR avr_mcu_section.h PATH_SUFFIXES simavr/avr)
    set(_foreign_mmcu)
    if(FOREIGN_MMCU_DIR)
        set(_foreign_mmcu -DHAVE_MMCU_SECTION -I${FOREIGN_MMCU_DIR}
                          -Wl,--section-start=.mmcu=0x910000)
    endif()
    add_custom_command(
        OUTPUT ${_foreign_elf}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bin
        COMMAND ${AVR_GCC} -mmcu=atmega328p -DF_CPU=16000000UL -Os -std=gnu11 -Wall -Wextra
                -Werror ${_foreign_mmcu} -o ${_foreign_elf} ${_foreign_src}
        DEPENDS ${_foreign_src}
        COMMENT "avr-gcc: foreign_mcpu.elf (a third-party MCP/U firmware)")
    add_custom_target(foreign_mcpu ALL DEPENDS ${_foreign_elf})
endif()
