# arm-none-eabi.cmake: toolchain for the Cortex-M3 cross builds of the firmware, one per profile
# (Debian gcc-arm-none-eabi + libnewlib-arm-none-eabi).
# Use: cmake -DCMAKE_TOOLCHAIN_FILE=<this> -DMCPSIM_PROFILE=full|mcpu-min (make cross does).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m3)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "archiver")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "ranlib")
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "objcopy")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "size")

# No OS to run test programs on: compiler checks build a static library instead of linking.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT
    "-mcpu=cortex-m3 -mthumb -ffreestanding -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os")
set(CMAKE_C_FLAGS_RELEASE_INIT "-Os")
set(CMAKE_C_FLAGS_DEBUG_INIT "-Og -g")
# newlib-nano for memcpy/strlen & co. and nosys stubs for the C runtime's system calls; the
# core itself must not need more than the freestanding headers (tools/cross-size-check checks).
# The template port links with its own startup and memory map (firmware/port/template/
# cortex_m3.ld, -nostartfiles): unused sections are dropped, an image too big fails to link.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections")

# Look for programs on the host, for headers and libraries only in the target's sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
