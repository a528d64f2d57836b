# mcpsim-functions.cmake: what a firmware project calls to build its own simulator, to run the
# conformance suite against it in CTest, and to compile the core for its own target. Loaded by
# find_package(mcpsim) and by this repository's build (so add_subdirectory/FetchContent get it).
#
#   mcpsim_add_simulator(<name> SOURCES <file>...
#                        [APP_TOOLS <symbol>...] [MODELS <symbol>...] [BOARDS <board.json>...]
#                        [INCLUDE_DIRECTORIES <dir>...] [LINK_LIBRARIES <lib>...])
#       An executable <name>: mcpsim (every transport, the control channel, the dashboard) with
#       the product's code linked in. APP_TOOLS are `const fw_tool_t` symbols a board enables
#       by their tool name (app_tools); MODELS are `const sim_model_ops_t` symbols (I2C device
#       models, whose .driver is the product's fw_driver_t) a board names in i2c.devices[].model.
#       Both are found before mcpsim's own. The directories of BOARDS come before mcpsim's boards
#       in the --board NAME lookup, and each board is loaded once after the link: a board the
#       simulator refuses fails the build with file:line:column.
#
#   mcpsim_add_conformance_test(<name> SIMULATOR <target> BOARD <board.json>
#                               [TRANSPORT tcp|serial] [SCENARIOS <file-or-dir>...]
#                               [NO_LIBRARY] [EXPECTED_FAILURES <file>] [ARGS <arg>...])
#       A CTest test: the conformance runner against <target> on BOARD (virtual clock, control
#       channel), with mcpsim's scenario library (unless NO_LIBRARY) and SCENARIOS; JUnit report
#       in ${CMAKE_CURRENT_BINARY_DIR}/<name>.xml.
#
#   mcpsim_core_library(<name> [PROFILE full|mcpu-min] [DEFINITIONS <FW_...=v>...])
#       A static library of the core compiled from its sources with the project's own compiler
#       (a microcontroller build). Public include directories: the core's headers, drivers, apps.

include_guard(GLOBAL)
# A cache entry: the functions run in the scope of whoever calls them (a parent project, too).
set(_MCPSIM_FUNCTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "mcpsim-functions.cmake's directory")

function(mcpsim_add_simulator name)
    cmake_parse_arguments(PARSE_ARGV 1 A ""  ""
                          "SOURCES;APP_TOOLS;MODELS;BOARDS;INCLUDE_DIRECTORIES;LINK_LIBRARIES")
    if(A_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "mcpsim_add_simulator(${name}): unknown arguments ${A_UNPARSED_ARGUMENTS}")
    endif()
    if(NOT TARGET mcpsim::mcpsim_main)
        message(FATAL_ERROR "mcpsim_add_simulator(${name}): mcpsim was built without its simulator")
    endif()
    set(DECLARATIONS "")
    set(TOOLS "")
    set(MODELS "")
    foreach(sym IN LISTS A_APP_TOOLS)
        string(APPEND DECLARATIONS "extern const fw_tool_t ${sym};\n")
        string(APPEND TOOLS "&${sym}, ")
    endforeach()
    foreach(sym IN LISTS A_MODELS)
        string(APPEND DECLARATIONS "extern const sim_model_ops_t ${sym};\n")
        string(APPEND MODELS "&${sym}, ")
    endforeach()
    set(dirs "")
    set(boards "")
    foreach(b IN LISTS A_BOARDS)
        get_filename_component(b "${b}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
        get_filename_component(d "${b}" DIRECTORY)
        list(APPEND boards "${b}")
        if(NOT d IN_LIST dirs)
            list(APPEND dirs "${d}")
        endif()
    endforeach()
    get_property(lib_boards GLOBAL PROPERTY MCPSIM_BOARDS_DIR)
    list(APPEND dirs "${lib_boards}")
    list(JOIN dirs ":" BOARD_DIRS)
    string(REPLACE "\\" "\\\\" BOARD_DIRS "${BOARD_DIRS}")
    string(REPLACE "\"" "\\\"" BOARD_DIRS "${BOARD_DIRS}")
    set(NAME "${name}")
    set(main_c "${CMAKE_CURRENT_BINARY_DIR}/${name}_main.c")
    configure_file("${_MCPSIM_FUNCTIONS_DIR}/mcpsim-sim-main.c.in" "${main_c}" @ONLY)

    add_executable(${name} ${A_SOURCES} "${main_c}")
    target_include_directories(${name} PRIVATE ${A_INCLUDE_DIRECTORIES})
    target_link_libraries(${name} PRIVATE mcpsim::mcpsim_main mcpsim::mcpsim_host ${A_LINK_LIBRARIES})
    foreach(b IN LISTS boards)
        add_custom_command(TARGET ${name} POST_BUILD
            COMMAND "${CMAKE_COMMAND}" "-DSIM=$<TARGET_FILE:${name}>" "-DBOARD=${b}"
                    -P "${_MCPSIM_FUNCTIONS_DIR}/mcpsim-check-board.cmake"
            COMMENT "Loading ${b} in ${name}" VERBATIM)
    endforeach()
    set_property(TARGET ${name} PROPERTY MCPSIM_BOARD_FILES "${boards}")
endfunction()

function(mcpsim_add_conformance_test name)
    cmake_parse_arguments(PARSE_ARGV 1 A "NO_LIBRARY"
                          "SIMULATOR;BOARD;TRANSPORT;EXPECTED_FAILURES" "SCENARIOS;ARGS")
    if(NOT A_SIMULATOR OR NOT A_BOARD)
        message(FATAL_ERROR "mcpsim_add_conformance_test(${name}): SIMULATOR and BOARD are required")
    endif()
    if(NOT A_TRANSPORT)
        set(A_TRANSPORT tcp)
    endif()
    get_filename_component(board "${A_BOARD}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    set(args --target "sim:${board}?transport=${A_TRANSPORT}"
             --mcpsim "$<TARGET_FILE:${A_SIMULATOR}>"
             --junit "${CMAKE_CURRENT_BINARY_DIR}/${name}.xml")
    if(NOT A_NO_LIBRARY)
        get_property(lib GLOBAL PROPERTY MCPSIM_SCENARIOS_DIR)
        list(APPEND args --scenarios "${lib}")
    endif()
    foreach(s IN LISTS A_SCENARIOS)
        get_filename_component(s "${s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
        list(APPEND args --scenarios "${s}")
    endforeach()
    if(A_EXPECTED_FAILURES)
        get_filename_component(x "${A_EXPECTED_FAILURES}" ABSOLUTE
                               BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
        list(APPEND args --expected-failures "${x}")
    endif()
    add_test(NAME ${name} COMMAND "$<TARGET_FILE:mcpsim::conformance>" ${args} ${A_ARGS})
    set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS "conformance"
                         ENVIRONMENT "NO_COLOR=1")
endfunction()

function(mcpsim_core_library name)
    cmake_parse_arguments(PARSE_ARGV 1 A "" "PROFILE" "DEFINITIONS")
    if(NOT A_PROFILE)
        set(A_PROFILE mcpu-min)
    endif()
    if(NOT A_PROFILE MATCHES "^(full|mcpu-min)$")
        message(FATAL_ERROR "mcpsim_core_library(${name}): PROFILE is full or mcpu-min")
    endif()
    string(REPLACE "-" "_" id "${A_PROFILE}")
    string(TOUPPER "${id}" id)
    get_property(fw GLOBAL PROPERTY MCPSIM_FIRMWARE_SOURCE_DIR)
    file(GLOB sources "${fw}/core/*.c" "${fw}/builtins/*.c" "${fw}/drivers/*.c" "${fw}/apps/*.c")
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC "${fw}/include" "${fw}/drivers" "${fw}/apps"
                                       PRIVATE "${fw}/core")
    target_compile_definitions(${name} PUBLIC FW_PROFILE=FW_PROFILE_${id} ${A_DEFINITIONS})
    target_compile_options(${name} PRIVATE -fno-common)
    set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
endfunction()
