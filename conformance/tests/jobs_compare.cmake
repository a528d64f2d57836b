# jobs_compare.cmake: runs the library on sim:greenhouse with --jobs 1 and --jobs 2 and checks
# that both pass and report the same summary and the same scenarios, statuses and order (TAP).
foreach(_j 1 2)
    execute_process(COMMAND ${CONF} --target sim:greenhouse --mcpsim ${MCPSIM} --strict
                            --scenarios ${SCENARIOS} --jobs ${_j} --tap
                    OUTPUT_VARIABLE _tap${_j} RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "--jobs ${_j} exited ${_rc}:\n${_tap${_j}}")
    endif()
    execute_process(COMMAND ${CONF} --target sim:greenhouse --mcpsim ${MCPSIM} --strict
                            --scenarios ${SCENARIOS} --jobs ${_j}
                    OUTPUT_VARIABLE _con RESULT_VARIABLE _rc)
    string(REGEX MATCH "[0-9]+ scenarios: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped"
           _sum${_j} "${_con}")
    if(NOT _rc EQUAL 0 OR _sum${_j} STREQUAL "")
        message(FATAL_ERROR "--jobs ${_j} exited ${_rc}:\n${_con}")
    endif()
    # Only the ok/not ok/skip lines: their order and outcome, not timings.
    string(REGEX MATCHALL "(not )?ok [0-9]+ - [^\n#]*(# [A-Z]+)?" _lines${_j} "${_tap${_j}}")
    message(STATUS "--jobs ${_j}: ${_sum${_j}}")
endforeach()
if(NOT _sum1 STREQUAL _sum2)
    message(FATAL_ERROR "summaries differ: '${_sum1}' vs '${_sum2}'")
endif()
if(NOT _lines1 STREQUAL _lines2)
    message(FATAL_ERROR "TAP results differ between --jobs 1 and --jobs 2")
endif()
list(LENGTH _lines1 _n)
if(_n LESS 100)
    message(FATAL_ERROR "only ${_n} TAP result lines")
endif()
