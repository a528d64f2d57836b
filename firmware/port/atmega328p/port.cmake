# port.cmake: the ATmega328P port (Arduino Uno class; simavr, or a real Uno), included by
# firmware/CMakeLists.txt's cross section. It adds bin/fw_atmega328p.elf to an AVR build of the
# mcpu-min profile (tools/avr-size-check's build), and nothing to any other build.
#
# Available from the includer: fwcore (LTO objects on AVR), fw_template, fw_board (the board
# library, generated from MCPSIM_CROSS_BOARD: uno-min in mcpu-min), _fw_stack_flags.
if(NOT CMAKE_SYSTEM_PROCESSOR STREQUAL "avr" OR NOT MCPSIM_PROFILE STREQUAL "mcpu-min")
    return()
endif()
if(NOT TARGET fw_board OR NOT TARGET fwcore)
    message(WARNING "port/atmega328p: no fw_board or fwcore target; fw_atmega328p not built")
    return()
endif()

set(_m328 ${CMAKE_CURRENT_LIST_DIR})

# The core's constant data in flash (fw_rom_avr.h through fw_config.h's FW_ROM_HEADER): for
# every user of the core in this build, the template's stub included, which then links with
# this port's script too (its flash data must lie above RAM as well).
target_compile_definitions(fwcore PUBLIC FW_ROM_HEADER="fw_rom_avr.h")
target_include_directories(fwcore PUBLIC ${_m328})
target_sources(fwcore PRIVATE ${_m328}/fw_rom_avr.c)
if(TARGET fw_size_probe) # sizeof() as this build lays the types out
    target_compile_definitions(fw_size_probe PRIVATE FW_ROM_HEADER="fw_rom_avr.h")
    target_include_directories(fw_size_probe PRIVATE ${_m328})
endif()
if(TARGET fw_template)
    target_link_options(fw_template PRIVATE -T${_m328}/atmega328p.ld)
endif()

get_filename_component(_m328_stem ${MCPSIM_CROSS_BOARD} NAME_WE)
string(REPLACE "-" "_" _m328_stem ${_m328_stem})

add_executable(fw_atmega328p ${_m328}/main.c ${_m328}/hal_atmega328p.c)
set_target_properties(fw_atmega328p PROPERTIES SUFFIX ".elf" LINK_DEPENDS ${_m328}/atmega328p.ld)
target_include_directories(fw_atmega328p PRIVATE ${_m328})
target_link_libraries(fw_atmega328p PRIVATE fw_board fwcore)
target_compile_definitions(fw_atmega328p PRIVATE F_CPU=16000000UL
    FW_PORT_BOARD=fw_board_${_m328_stem} FW_PORT_BOARD_HEADER="board_${_m328_stem}.h")
# LTO over the core, the board and the port in one partition, whose stack usage lands beside
# the image (fw_atmega328p.elf.ltrans0.ltrans.su, -save-temps=obj). The .mmcu section (simavr's
# chip description) is linked far outside flash: simavr reads it, no programmer loads it, and
# tools/avr-size-check counts .text and .data only; --undefined keeps it from --gc-sections.
target_compile_options(fw_atmega328p PRIVATE -flto ${_fw_stack_flags})
target_link_options(fw_atmega328p PRIVATE
    -flto -flto-partition=one ${_fw_stack_flags} -save-temps=obj
    -T${_m328}/atmega328p.ld -Wl,--section-start=.mmcu=0x910000
    -Wl,--undefined=fw_mmcu_name -Wl,--undefined=fw_mmcu_frequency
    -Wl,-Map=${CMAKE_BINARY_DIR}/bin/fw_atmega328p.map)
