# avr.cmake: toolchain for the AVR build of the firmware's mcpu-min profile (Debian gcc-avr,
# binutils-avr, avr-libc). Use: cmake -DCMAKE_TOOLCHAIN_FILE=<this> -DMCPSIM_PROFILE=mcpu-min.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR avr)

set(CMAKE_C_COMPILER avr-gcc)
set(CMAKE_AR avr-ar CACHE FILEPATH "archiver")
set(CMAKE_RANLIB avr-ranlib CACHE FILEPATH "ranlib")
set(CMAKE_OBJCOPY avr-objcopy CACHE FILEPATH "objcopy")
set(CMAKE_SIZE avr-size CACHE FILEPATH "size")

# The part: an ATmega328P (Arduino Uno), 32 KiB flash and 2 KiB SRAM.
set(MCPSIM_AVR_MCU atmega328p CACHE STRING "avr-gcc -mmcu= of the AVR build")

# No OS to run test programs on: compiler checks build a static library instead of linking.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Code size (each measured on fw_atmega328p.elf, tools/avr-size-check): -mcall-prologues saves
# and restores registers through shared routines (about 1.9 KB less flash); -mrelax lets the
# linker shorten calls and jumps (about 0.5 KB); -fshort-enums makes fw_err_t and the other
# enums one byte (about 0.4 KB; the whole image is built with it); -mstrict-X and
# -fno-inline-small-functions -fno-tree-loop-optimize -fno-move-loop-invariants together about
# 0.5 KB more.
set(MCPSIM_AVR_SIZE_FLAGS "-mcall-prologues -mrelax -fshort-enums -mstrict-X -fno-inline-small-functions -fno-tree-loop-optimize -fno-move-loop-invariants")
set(CMAKE_C_FLAGS_INIT
    "-mmcu=${MCPSIM_AVR_MCU} -ffreestanding -ffunction-sections -fdata-sections ${MCPSIM_AVR_SIZE_FLAGS}")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os")
set(CMAKE_C_FLAGS_RELEASE_INIT "-Os")
set(CMAKE_C_FLAGS_DEBUG_INIT "-Og -g")
# avr-libc's startup (vector table, .data copy, .bss clear) and memcpy & co.
# The size flags again at the link: link-time optimisation compiles the image there.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-mmcu=${MCPSIM_AVR_MCU} ${MCPSIM_AVR_SIZE_FLAGS} -Wl,--gc-sections")

# Look for programs on the host, for headers and libraries only in the target's sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
