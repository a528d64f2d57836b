# mcpsim-check-board.cmake: loads a board file in a product's simulator and fails the build when
# the simulator refuses it (run by mcpsim_add_simulator after each link):
#   cmake -DSIM=<simulator> -DBOARD=<board.json> -P mcpsim-check-board.cmake
# The simulator serves MCP over stdio, reads end-of-file at once and exits 0 when the board
# loaded; a refused board exits non-zero with "file:line:column: what is wrong".
execute_process(COMMAND "${SIM}" --board "${BOARD}" --stdio --log-level error
                INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 20)
if(NOT rc EQUAL 0)
    # Indented lines: CMake prints them as they are instead of re-wrapping them.
    string(STRIP "${err}" err)
    string(REPLACE "\n" "\n  " err "  ${err}")
    message(FATAL_ERROR " ${BOARD}: refused by ${SIM} (exit ${rc}):\n${err}")
endif()
