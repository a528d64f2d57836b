# port.cmake: the LM3S6965 port (QEMU's lm3s6965evb machine, or the real EVB), included by
# firmware/CMakeLists.txt's cross section. It adds bin/fw_lm3s6965.elf to a Cortex-M3 build of
# the full and mcpu-min profiles (build-arm/full, build-arm/mcpu-min in `make cross`; the
# mcpu-min image is for tools/cm3-cycles), and nothing to any other build.
#
# Available from the includer: fwcore (built with LTO on Cortex-M), fw_small_libc (the template
# port's compact string functions, a stateless library), _fw_stack_flags, mcpsim_board().
if(NOT CMAKE_SYSTEM_PROCESSOR STREQUAL "cortex-m3" OR NOT MCPSIM_PROFILE MATCHES "^(full|mcpu-min)$")
    return()
endif()
if(NOT TARGET fw_small_libc OR NOT COMMAND mcpsim_board)
    message(WARNING "port/lm3s6965: no fw_small_libc or mcpsim_board(); fw_lm3s6965 not built")
    return()
endif()

set(_lm3s ${CMAKE_CURRENT_LIST_DIR})
add_executable(fw_lm3s6965
    ${_lm3s}/main.c ${_lm3s}/hal_lm3s6965.c ${_lm3s}/startup_lm3s6965.c)
set_target_properties(fw_lm3s6965 PROPERTIES SUFFIX ".elf" LINK_DEPENDS ${_lm3s}/lm3s6965.ld)
target_include_directories(fw_lm3s6965 PRIVATE ${_lm3s})
target_link_libraries(fw_lm3s6965 PRIVATE fwcore fw_small_libc)
# Link-time optimisation as fw_template (fwcore's objects carry LTO bytecode). The one LTO
# partition's stack usage and call graph go to lm3s6965-lto/ (fw_lm3s6965.elf.ltrans0.*),
# not beside the image: tools/cross-size-check reads every bin/*.ltrans*.ci as fw_template's.
set(_lm3s_lto ${CMAKE_BINARY_DIR}/lm3s6965-lto)
file(MAKE_DIRECTORY ${_lm3s_lto})
target_compile_options(fw_lm3s6965 PRIVATE -flto ${_fw_stack_flags})
target_link_options(fw_lm3s6965 PRIVATE
    -flto -flto-partition=one ${_fw_stack_flags} -save-temps=obj -dumpdir ${_lm3s_lto}/
    -T${_lm3s}/lm3s6965.ld -nostartfiles -Wl,--print-memory-usage
    -Wl,-Map=${CMAKE_BINARY_DIR}/bin/fw_lm3s6965.map)
set(_lm3s_board ${CMAKE_SOURCE_DIR}/sim/boards/lm3s6965evb.json)
if(MCPSIM_PROFILE STREQUAL "mcpu-min")
    # mcpu-min has no sampling: the same board with its pins' sampling removed, under the same
    # name (the generated symbol is fw_board_<file stem>).
    file(READ ${_lm3s_board} _json)
    string(JSON _npins LENGTH "${_json}" pins)
    math(EXPR _last "${_npins} - 1")
    foreach(_i RANGE ${_last})
        string(JSON _json REMOVE "${_json}" pins ${_i} sampling)
    endforeach()
    set(_lm3s_board ${CMAKE_BINARY_DIR}/board-min/lm3s6965evb.json)
    file(WRITE ${_lm3s_board} "${_json}")
endif()
mcpsim_board(fw_lm3s6965 ${_lm3s_board})
