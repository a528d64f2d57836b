# install.cmake: `cmake --install` of mcpsim and its CMake package (find_package(mcpsim)), and the
# same targets and functions for a project that adds this repository with add_subdirectory or
# FetchContent. Included at the end of the top-level CMakeLists.txt. Layout under the prefix
# (docs/packaging.md):
#
#   include/mcpsim/             the core's public headers, the drivers' and apps.h
#   include/mcpsim/sim/         the simulator's public headers (sim.h, cfg.h, devices/, host/)
#   lib/libfwcore.a             the core in this build's profile; lib/libfwcore_<other>.a the other
#   lib/libsimcore.a, libmcpsim_host.a, libmcpsim_main.a   the simulator as libraries
#   bin/mcpsim, bin/conformance (bin/mcpsim-avr when libsimavr was found)
#   lib/cmake/mcpsim/           mcpsimConfig.cmake, the exported targets, mcpsim-functions.cmake
#   share/mcpsim/scenarios/     the scenario library        share/mcpsim/boards/   the boards
#   share/mcpsim/firmware/      the core's sources (a cross build compiles them itself)
#   share/mcpsim/cmake/         boards.cmake, board2c.cmake and the toolchain files
#   share/mcpsim/tools/         junit-summary
#
# Every target is also reachable as mcpsim::<name> inside a build tree, so a consumer's CMake
# reads the same whether it uses the installed package or the source tree.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MCPSIM_PACKAGE_VERSION 0.1.0) # FW_CORE_VERSION of firmware/include/fw_device.h
set(MCPSIM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mcpsim")
set(MCPSIM_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/mcpsim")
set(MCPSIM_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/mcpsim")
set(_mi_root "${CMAKE_CURRENT_LIST_DIR}/..")
get_filename_component(_mi_root "${_mi_root}" ABSOLUTE)

if(NOT TARGET fwcore)
    return() # firmware/ has no sources yet: nothing to install
endif()

# A target's public include directories as the build tree has them, plus where they are installed.
function(_mcpsim_relocate_includes target install_dir)
    get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
    set(out "")
    foreach(d IN LISTS dirs)
        if(d MATCHES "^\\$<")
            list(APPEND out "${d}")
        else()
            list(APPEND out "$<BUILD_INTERFACE:${d}>")
        endif()
    endforeach()
    list(APPEND out "$<INSTALL_INTERFACE:${install_dir}>")
    set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${out}")
endfunction()

# ---------------------------------------------------------------- the core, per profile

# The profile travels with the library: a consumer compiles the headers with the same FW_PROFILE
# (fw_config.h sizes the structures by it). The build tree sets it directory-wide already.
set_property(TARGET fwcore APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
             ${MCPSIM_FW_DEFINES} ${MCPSIM_FW_SWITCHES})
_mcpsim_relocate_includes(fwcore "${MCPSIM_INSTALL_INCLUDEDIR}")
string(REPLACE "-" "_" _mi_profile_id "${MCPSIM_PROFILE}")
set(_mi_core_targets fwcore)

# The other profile's core, from the same sources, so one install carries both. Off in the
# sanitizer, coverage and cross builds (nothing installs from them).
set(_mi_all_default ON)
if(CMAKE_CROSSCOMPILING OR MCPSIM_SANITIZE OR MCPSIM_TSAN OR MCPSIM_COVERAGE)
    set(_mi_all_default OFF)
endif()
option(MCPSIM_INSTALL_ALL_PROFILES "Also build the core library of the other profile" ${_mi_all_default})
if(MCPSIM_INSTALL_ALL_PROFILES)
    get_target_property(_mi_sources fwcore SOURCES)
    set(MCPSIM_OTHER_PROFILES full mcpu-min)
    list(REMOVE_ITEM MCPSIM_OTHER_PROFILES "${MCPSIM_PROFILE}")
    add_subdirectory("${CMAKE_CURRENT_LIST_DIR}/fwcore-profiles" "${CMAKE_BINARY_DIR}/fwcore-profiles")
    foreach(_p IN LISTS MCPSIM_OTHER_PROFILES)
        string(REPLACE "-" "_" _id "${_p}")
        list(APPEND _mi_core_targets fwcore_${_id})
    endforeach()
endif()

# ---------------------------------------------------------------- the simulator as libraries

set(_mi_sim_targets "")
if(TARGET simcore AND TARGET mcpsim_host)
    _mcpsim_relocate_includes(simcore "${MCPSIM_INSTALL_INCLUDEDIR}/sim")
    _mcpsim_relocate_includes(mcpsim_host "${MCPSIM_INSTALL_INCLUDEDIR}/sim/host")
    # MCPSIM_SOURCE_DIR names this source tree: only the build tree's own code may rely on it.
    get_target_property(_defs simcore INTERFACE_COMPILE_DEFINITIONS)
    list(TRANSFORM _defs REPLACE "^(MCPSIM_SOURCE_DIR=.*)$" "$<BUILD_INTERFACE:\\1>")
    set_property(TARGET simcore PROPERTY INTERFACE_COMPILE_DEFINITIONS "${_defs}")

    # mcpsim's main() as a library whose entry point is mcpsim_host_main(): a product's simulator
    # (mcpsim_add_simulator) wraps it to add its own board directories to the lookup.
    add_library(mcpsim_main STATIC "${_mi_root}/sim/host/main.c")
    target_compile_definitions(mcpsim_main PRIVATE main=mcpsim_host_main)
    target_compile_options(mcpsim_main PRIVATE -Wno-missing-prototypes)
    target_link_libraries(mcpsim_main PUBLIC mcpsim_host)
    set(_mi_sim_targets simcore mcpsim_host mcpsim_main)
endif()

set(_mi_programs "")
foreach(_t mcpsim conformance mcpsim-avr)
    if(TARGET ${_t})
        list(APPEND _mi_programs ${_t})
    endif()
endforeach()

# The build tree's names for a consumer that added this repository as a subdirectory.
foreach(_t IN LISTS _mi_core_targets _mi_sim_targets)
    add_library(mcpsim::${_t} ALIAS ${_t})
endforeach()
foreach(_t IN LISTS _mi_programs)
    add_executable(mcpsim::${_t} ALIAS ${_t})
endforeach()
if(NOT TARGET mcpsim::fwcore_${_mi_profile_id})
    add_library(mcpsim::fwcore_${_mi_profile_id} ALIAS fwcore)
endif()

# ---------------------------------------------------------------- install rules

install(TARGETS ${_mi_core_targets} ${_mi_sim_targets} ${_mi_programs}
        EXPORT mcpsimTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT mcpsim
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT mcpsim)

file(GLOB _mi_fw_headers "${_mi_root}/firmware/include/*.h" "${_mi_root}/firmware/drivers/*.h"
                         "${_mi_root}/firmware/apps/apps.h")
install(FILES ${_mi_fw_headers} DESTINATION "${MCPSIM_INSTALL_INCLUDEDIR}" COMPONENT mcpsim)
if(_mi_sim_targets)
    install(FILES "${_mi_root}/sim/sim.h" "${_mi_root}/sim/cfg.h"
            DESTINATION "${MCPSIM_INSTALL_INCLUDEDIR}/sim" COMPONENT mcpsim)
    install(FILES "${_mi_root}/sim/devices/devices.h"
            DESTINATION "${MCPSIM_INSTALL_INCLUDEDIR}/sim/devices" COMPONENT mcpsim)
    file(GLOB _mi_host_headers "${_mi_root}/sim/host/*.h")
    install(FILES ${_mi_host_headers}
            DESTINATION "${MCPSIM_INSTALL_INCLUDEDIR}/sim/host" COMPONENT mcpsim)
endif()

# Data: the scenario library, the boards (with their CSV waveforms), the core's sources for cross
# builds and firmware packaging, the board generator and toolchain files, the summary script.
install(DIRECTORY "${_mi_root}/scenarios/" DESTINATION "${MCPSIM_INSTALL_DATADIR}/scenarios"
        COMPONENT mcpsim)
install(DIRECTORY "${_mi_root}/sim/boards/" DESTINATION "${MCPSIM_INSTALL_DATADIR}/boards"
        COMPONENT mcpsim)
foreach(_d include core builtins drivers apps port/template)
    install(DIRECTORY "${_mi_root}/firmware/${_d}/" DESTINATION "${MCPSIM_INSTALL_DATADIR}/firmware/${_d}"
            COMPONENT mcpsim FILES_MATCHING PATTERN "*.c" PATTERN "*.h" PATTERN "*.ld")
endforeach()
file(GLOB _mi_cmake_data "${_mi_root}/cmake/boards.cmake" "${_mi_root}/cmake/board2c.cmake"
                         "${_mi_root}/cmake/arm-none-eabi.cmake" "${_mi_root}/cmake/avr.cmake")
install(FILES ${_mi_cmake_data} DESTINATION "${MCPSIM_INSTALL_DATADIR}/cmake" COMPONENT mcpsim)
install(PROGRAMS "${_mi_root}/tools/junit-summary" DESTINATION "${MCPSIM_INSTALL_DATADIR}/tools"
        COMPONENT mcpsim)

# The package: targets as mcpsim::<name>, the functions, the paths.
install(EXPORT mcpsimTargets NAMESPACE mcpsim:: DESTINATION "${MCPSIM_INSTALL_CMAKEDIR}"
        COMPONENT mcpsim)
set(MCPSIM_PACKAGE_PROFILE "${MCPSIM_PROFILE}")
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/mcpsimConfig.cmake.in"
    "${CMAKE_BINARY_DIR}/cmake/mcpsimConfig.cmake"
    INSTALL_DESTINATION "${MCPSIM_INSTALL_CMAKEDIR}"
    PATH_VARS MCPSIM_INSTALL_DATADIR MCPSIM_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/cmake/mcpsimConfigVersion.cmake"
    VERSION ${MCPSIM_PACKAGE_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/cmake/mcpsimConfig.cmake"
              "${CMAKE_BINARY_DIR}/cmake/mcpsimConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/mcpsim-functions.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/mcpsim-sim-main.c.in"
              "${CMAKE_CURRENT_LIST_DIR}/mcpsim-check-board.cmake"
        DESTINATION "${MCPSIM_INSTALL_CMAKEDIR}" COMPONENT mcpsim)

# ---------------------------------------------------------------- the same, from the source tree

# A consumer that adds this repository (add_subdirectory, FetchContent) gets the functions and
# these paths; global properties, because the subdirectory's variables do not reach its parent.
set_property(GLOBAL PROPERTY MCPSIM_SCENARIOS_DIR "${_mi_root}/scenarios")
set_property(GLOBAL PROPERTY MCPSIM_BOARDS_DIR "${_mi_root}/sim/boards")
set_property(GLOBAL PROPERTY MCPSIM_FIRMWARE_SOURCE_DIR "${_mi_root}/firmware")
set_property(GLOBAL PROPERTY MCPSIM_PROFILE "${MCPSIM_PROFILE}")
include("${CMAKE_CURRENT_LIST_DIR}/mcpsim-functions.cmake")
