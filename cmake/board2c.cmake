# board2c.cmake: a board file (sim/boards/*.json, docs/board-format.md) as C: a source that defines
# `const fw_board_t fw_board_<stem>` and a header that declares it. A script, so that it runs in
# every build tree, the cross build included (no host program is built there):
#
#   cmake -DBOARD_JSON=<board.json> -DOUT_C=<board_x.c> -DOUT_H=<board_x.h> -P cmake/board2c.cmake
#
# <stem> is the file name without .json, '-' made '_'. cmake/boards.cmake runs it at build time.
# The generator reads the firmware's part of the file (device, version, platform, adc,
# omit_schemas, pins, i2c buses and devices, app_tools) and ignores what only the simulator uses
# (description, pwm_default_hz, channels, wires, waveforms, levels, pulls, units, device names,
# model settings other than a driver's configuration). A chip's model names its firmware driver:
# fw_driver_<model> declared in firmware/drivers/<model>.h. Errors name the file and the field and
# stop the build; the limits of the build it is compiled for (FW_PINS_MAX ...) are checked by the
# compiler (_Static_assert, #error) in the generated source.
cmake_minimum_required(VERSION 3.25)

get_filename_component(_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(_drivers_dir "${_root}/firmware/drivers")
set(_apps_h "${_root}/firmware/apps/apps.h")
# Device models of the simulator (sim/devices/) that no firmware driver serves: the generator
# skips them as the simulator's loader does (their sim_model_ops_t has driver NULL).
set(_sim_only_models regmap es8311)

foreach(_var BOARD_JSON OUT_C OUT_H)
    if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
        message(FATAL_ERROR " board2c: -D${_var}=... is required "
                            "(cmake -DBOARD_JSON=b.json -DOUT_C=b.c -DOUT_H=b.h -P board2c.cmake)")
    endif()
endforeach()

# The board file as messages and comments name it: relative to the project when inside it.
get_filename_component(_abs "${BOARD_JSON}" ABSOLUTE)
file(RELATIVE_PATH _rel "${_root}" "${_abs}")
if(_rel MATCHES "^\\.\\./" OR IS_ABSOLUTE "${_rel}")
    set(_file "${BOARD_JSON}")
else()
    set(_file "${_rel}")
endif()

# ---------------------------------------------------------------- errors and JSON access

# _fail(<path> <message part>...): stops with "<file>: <path>: <message>" (the leading space keeps
# CMake from re-wrapping it).
function(_fail path)
    set(msg "")
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE 1 ${last})
        string(APPEND msg "${ARGV${i}}")
    endforeach()
    if(path STREQUAL "")
        message(FATAL_ERROR " ${_file}: ${msg}")
    endif()
    message(FATAL_ERROR " ${_file}: ${path}: ${msg}")
endfunction()

# _kind_phrase(<out> <type>): "a string", ... for a JSON type, or for a kind wanted (INTEGER,
# WANT_BOOLEAN).
function(_kind_phrase out type)
    set(STRING "a string")
    set(NUMBER "a number")
    set(INTEGER "an integer")
    set(BOOLEAN "a boolean")
    set(WANT_BOOLEAN "true or false")
    set(NULL "null")
    set(OBJECT "an object")
    set(ARRAY "an array")
    set(${out} "${${type}}" PARENT_SCOPE)
endfunction()

# _join(<out> <prefix> <key>): the path of member key under prefix ("pins[1]" "type" ->
# "pins[1].type").
function(_join out prefix key)
    if(prefix STREQUAL "")
        set(${out} "${key}" PARENT_SCOPE)
    else()
        set(${out} "${prefix}.${key}" PARENT_SCOPE)
    endif()
endfunction()

# _member(<out> <json> <key> <kind> <path> <required>): member key of the object json, which must
# be of kind (STRING NUMBER INTEGER BOOLEAN OBJECT ARRAY; INTEGER is checked by _int). Sets <out>
# and <out>_FOUND (FALSE: absent).
function(_member out json key kind path required)
    _join(where "${path}" "${key}")
    string(JSON type ERROR_VARIABLE err TYPE "${json}" "${key}")
    if(err)
        if(required)
            _fail("${path}" "missing required key \"${key}\"")
        endif()
        set(${out} "" PARENT_SCOPE)
        set(${out}_FOUND FALSE PARENT_SCOPE)
        return()
    endif()
    set(json_kind "${kind}")
    if(kind STREQUAL "INTEGER")
        set(json_kind NUMBER)
    elseif(kind STREQUAL "BOOLEAN")
        set(kind WANT_BOOLEAN)
    endif()
    if(NOT type STREQUAL json_kind)
        _kind_phrase(want "${kind}")
        _kind_phrase(got "${type}")
        _fail("${where}" "must be ${want}, not ${got}")
    endif()
    string(JSON value GET "${json}" "${key}")
    set(${out} "${value}" PARENT_SCOPE)
    set(${out}_FOUND TRUE PARENT_SCOPE)
endfunction()

# _int(<out> <json> <key> <path> <required> <default> <min> <max>)
function(_int out json key path required def min max)
    _member(v "${json}" "${key}" INTEGER "${path}" ${required})
    _join(where "${path}" "${key}")
    if(NOT v_FOUND)
        set(v "${def}")
    elseif(NOT v MATCHES "^-?[0-9]+$")
        _fail("${where}" "must be an integer, not ${v}")
    elseif(v LESS min OR v GREATER max)
        _fail("${where}" "${v} is out of range ${min}..${max}")
    endif()
    set(${out} "${v}" PARENT_SCOPE)
endfunction()

# _bool(<out> <json> <key> <path> <default>): "true" or "false".
function(_bool out json key path def)
    _member(v "${json}" "${key}" BOOLEAN "${path}" FALSE)
    if(NOT v_FOUND)
        set(${out} "${def}" PARENT_SCOPE)
    elseif(v)
        set(${out} "true" PARENT_SCOPE)
    else()
        set(${out} "false" PARENT_SCOPE)
    endif()
endfunction()

# _str(<out> <json> <key> <path> <required> <default>)
function(_str out json key path required def)
    _member(v "${json}" "${key}" STRING "${path}" ${required})
    if(NOT v_FOUND)
        set(v "${def}")
    endif()
    set(${out} "${v}" PARENT_SCOPE)
endfunction()

# _enum(<out> <json> <key> <path> <required> <default> <name>...): the index of the value in
# the names.
function(_enum out json key path required def)
    set(names ${ARGN})
    _member(v "${json}" "${key}" STRING "${path}" ${required})
    if(NOT v_FOUND)
        set(${out} "${def}" PARENT_SCOPE)
        return()
    endif()
    list(FIND names "${v}" index)
    if(index LESS 0)
        list(JOIN names ", " expected)
        _join(where "${path}" "${key}")
        _fail("${where}" "unknown value \"${v}\" (expected one of: ${expected})")
    endif()
    set(${out} "${index}" PARENT_SCOPE)
endfunction()

# _object(<json> <path>): fails unless json is an object.
function(_object json path)
    string(JSON type ERROR_VARIABLE err TYPE "{\"v\": ${json}}" v)
    if(NOT type STREQUAL "OBJECT")
        _kind_phrase(got "${type}")
        _fail("${path}" "must be an object, not ${got}")
    endif()
endfunction()

# _length(<out> <json> <key> <path>): length of the array member key (0 when absent).
function(_length out json key path)
    _member(a "${json}" "${key}" ARRAY "${path}" FALSE)
    set(n 0)
    if(a_FOUND)
        string(JSON n LENGTH "${json}" "${key}")
    endif()
    set(${out} "${n}" PARENT_SCOPE)
endfunction()

# _hex2(<out> <value>): "0x05", "0x48".
function(_hex2 out v)
    math(EXPR h "${v}" OUTPUT_FORMAT HEXADECIMAL)
    string(REGEX REPLACE "^0x(.)$" "0x0\\1" h "${h}")
    set(${out} "${h}" PARENT_SCOPE)
endfunction()

function(_power_of_two out v)
    math(EXPR rest "${v} & (${v} - 1)")
    if(v GREATER 0 AND rest EQUAL 0)
        set(${out} TRUE PARENT_SCOPE)
    else()
        set(${out} FALSE PARENT_SCOPE)
    endif()
endfunction()

# ---------------------------------------------------------------- C text

# _c_escape(<out> <text> <path>): text for the inside of a C string literal (UTF-8 bytes are
# kept; every '?' is escaped, so no "??x" becomes a trigraph). path names the field in errors.
function(_c_escape out text path)
    string(ASCII 1 2 3 4 5 6 7 8 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 127
           ctrl)
    if(text MATCHES "[${ctrl}]")
        _fail("${path}" "control characters other than \\n, \\r and \\t cannot be generated")
    endif()
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(REPLACE "?" "\\?" text "${text}")
    string(REPLACE "\n" "\\n" text "${text}")
    string(REPLACE "\r" "\\r" text "${text}")
    string(REPLACE "\t" "\\t" text "${text}")
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

# _c_string(<out> <text> <path>): text as a C string literal.
function(_c_string out text path)
    _c_escape(text "${text}" "${path}")
    set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

# _rom_string(<out> <text> <path>): the name of a `static const char str_N[] FW_ROM_STR`
# holding text (appended to _strings_c): the board's texts stay in flash where the port keeps
# constant data there (fw_config.h's FW_ROM_STR: a port may store equal strings once; the core
# reads them in either space). _c_escape refuses control characters, so no NUL is inside.
set(_strings_c "")
set(_string_n 0)
macro(_rom_string out text path)
    _c_string(_rom_lit "${text}" "${path}")
    string(APPEND _strings_c "static const char str_${_string_n}[] FW_ROM_STR = ${_rom_lit};\n")
    set(${out} "str_${_string_n}")
    math(EXPR _string_n "${_string_n} + 1")
endmacro()

# ---------------------------------------------------------------- the board file

_c_escape(_file_c "${_file}" "") # for messages in the generated C

if(NOT EXISTS "${_abs}")
    _fail("" "no such file")
endif()
file(READ "${_abs}" _json)
string(JSON _n ERROR_VARIABLE _err LENGTH "${_json}")
if(_err)
    # jsoncpp: "... * Line 2, Column 11\n  Missing ',' or '}' in object declaration\n"
    if(_err MATCHES "Line ([0-9]+), Column ([0-9]+)[\r\n]+[ \t]*([^\r\n]*)")
        message(FATAL_ERROR
                " ${_file}:${CMAKE_MATCH_1}:${CMAKE_MATCH_2}: ${CMAKE_MATCH_3} (invalid JSON)")
    endif()
    string(STRIP "${_err}" _err)
    _fail("" "${_err}")
endif()
_object("${_json}" "")

get_filename_component(_name "${_abs}" NAME)
string(REGEX REPLACE "\\.json$" "" _stem "${_name}")
string(REPLACE "-" "_" _stem "${_stem}")
if(NOT _stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _fail("" "the file name gives the C name fw_board_${_stem}: use letters, digits, '-' and '_'")
endif()

# Identity and ADC
_str(_device "${_json}" device "" TRUE "")
if(_device STREQUAL "")
    _fail("device" "must not be empty")
endif()
_str(_version "${_json}" version "" FALSE "1.0.0")
_str(_platform "${_json}" platform "" FALSE "sim")
_bool(_omit_schemas "${_json}" omit_schemas "" false)
_member(_adc "${_json}" adc OBJECT "" FALSE)
set(_adc_bits 12)
set(_adc_ref 3300)
set(_adc_report 0)
if(_adc_FOUND)
    _int(_adc_bits "${_adc}" bits adc FALSE 12 1 16)
    _int(_adc_ref "${_adc}" ref_mv adc FALSE 3300 1 65535)
    _enum(_adc_report "${_adc}" report adc FALSE 0 volts mv)
endif()
set(_adc_report_c FW_ADC_REPORT_VOLTS FW_ADC_REPORT_MV)
list(GET _adc_report_c ${_adc_report} _adc_report_c)
math(EXPR _adc_max "(1 << ${_adc_bits}) - 1")

# Pins
set(_pin_types digital_output digital_input pwm_output adc_input)
set(_pin_types_c FW_PIN_DIGITAL_OUTPUT FW_PIN_DIGITAL_INPUT FW_PIN_PWM_OUTPUT FW_PIN_ADC_INPUT)
_length(_pin_count "${_json}" pins "")
if(_pin_count GREATER 255)
    _fail("pins" "${_pin_count} pins: at most 255 (fw_board_t.pin_count)")
endif()
set(_pins_c "")
set(_asserts "")
set(_numbers "")
set(_names "")
set(_slots 0)
set(_sampled "")
if(_pin_count GREATER 0)
    math(EXPR _last "${_pin_count} - 1")
    foreach(_i RANGE ${_last})
        set(_path "pins[${_i}]")
        string(JSON _pin GET "${_json}" pins ${_i})
        _object("${_pin}" "${_path}")
        _int(_number "${_pin}" pin "${_path}" TRUE 0 0 65535)
        _str(_pname "${_pin}" name "${_path}" TRUE "")
        if(_pname STREQUAL "")
            _fail("${_path}.name" "must not be empty")
        endif()
        _enum(_type "${_pin}" type "${_path}" TRUE 0 ${_pin_types})
        _str(_desc "${_pin}" description "${_path}" FALSE "")
        list(FIND _numbers "${_number}" _j)
        if(_j GREATER_EQUAL 0)
            _fail("${_path}.pin" "pin ${_number} is already declared by pins[${_j}]")
        endif()
        list(APPEND _numbers "${_number}")
        # names are compared by hash: a name may hold a ';', which a list would split
        string(SHA1 _h "${_pname}")
        list(FIND _names "${_h}" _j)
        if(_j GREATER_EQUAL 0)
            _fail("${_path}.name" "name \"${_pname}\" is already used by pins[${_j}]")
        endif()
        list(APPEND _names "${_h}")

        list(GET _pin_types ${_type} _type_name)
        list(GET _pin_types_c ${_type} _type_c)
        set(_input FALSE)
        if(_type EQUAL 1 OR _type EQUAL 3)
            set(_input TRUE)
        endif()

        # sampling
        set(_interval 0)
        set(_size 0)
        set(_summary false)
        set(_buffer false)
        set(_events false)
        _member(_s "${_pin}" sampling OBJECT "${_path}" FALSE)
        if(_s_FOUND)
            if(NOT _input)
                _fail("${_path}.sampling" "sampling is for input pins, not ${_type_name}")
            endif()
            set(_sp "${_path}.sampling")
            _int(_interval "${_s}" interval_ms "${_sp}" TRUE 0 1 4294967295)
            _int(_size "${_s}" buffer_size "${_sp}" FALSE 0 1 65535)
            _bool(_summary "${_s}" summary "${_sp}" false)
            set(_buffer_def false)
            if(_size GREATER 0)
                set(_buffer_def true)
            endif()
            _bool(_buffer "${_s}" buffer "${_sp}" ${_buffer_def})
            _bool(_events "${_s}" events "${_sp}" false)
            if(_buffer AND _size EQUAL 0)
                _fail("${_sp}" "missing required key \"buffer_size\" (buffer is true)")
            endif()
            if(_size GREATER 0)
                string(APPEND _asserts
                       "_Static_assert(${_size} <= FW_SAMPLE_BUF_MAX, \"${_file_c}: ${_sp}.buffer_size "
                       "${_size} exceeds the firmware ring of FW_SAMPLE_BUF_MAX samples\");\n")
            endif()
            if(_sampled STREQUAL "")
                _c_escape(_sampled "${_path} (${_pname})" "${_path}.name")
            endif()
            if(_buffer)
                math(EXPR _slots "${_slots} + ${_size}")
            endif()
        endif()

        # thresholds (adc_input)
        set(_high 0)
        set(_low 0)
        _member(_t "${_pin}" thresholds OBJECT "${_path}" FALSE)
        if(_t_FOUND)
            if(NOT _type EQUAL 3)
                _fail("${_path}.thresholds" "thresholds is for adc_input pins, not ${_type_name}")
            endif()
            _int(_high "${_t}" high "${_path}.thresholds" TRUE 0 0 ${_adc_max})
            _int(_low "${_t}" low "${_path}.thresholds" TRUE 0 0 ${_adc_max})
            if(_low GREATER _high)
                _fail("${_path}.thresholds.low"
                      "${_low} is above high (${_high}): the event re-arms at low")
            endif()
        elseif(_type EQUAL 3 AND _events)
            _fail("${_path}.sampling.events"
                  "events on an adc_input need thresholds {\"high\", \"low\"} (raw counts)")
        endif()

        _rom_string(_name_c "${_pname}" "${_path}.name")
        _rom_string(_desc_c "${_desc}" "${_path}.description")
        string(APPEND _pins_c
               "    {.number = ${_number},\n"
               "     .type = ${_type_c},\n"
               "     .name = ${_name_c},\n"
               "     .description = ${_desc_c},\n"
               "     .sample_interval_ms = ${_interval}u,\n"
               "     .buffer_size = ${_size},\n"
               "     .summary = ${_summary},\n"
               "     .buffer = ${_buffer},\n"
               "     .events = ${_events},\n"
               "     .threshold_high = ${_high},\n"
               "     .threshold_low = ${_low}},\n")
    endforeach()
endif()
set(_path "")
if(_slots GREATER 65535)
    _fail("pins" "the sample rings need ${_slots} slots, more than 65535 (sample_store_len)")
endif()

# I2C
set(_buses 0)
set(_chips_c "")
set(_configs_c "")
set(_chip_count 0)
set(_driver_headers "")
set(_chip_keys "")
_member(_i2c "${_json}" i2c OBJECT "" FALSE)
if(_i2c_FOUND)
    _length(_dev_count "${_i2c}" devices i2c)
    set(_buses_def 0)
    if(_dev_count GREATER 0)
        set(_buses_def 1)
    endif()
    _int(_buses "${_i2c}" buses i2c FALSE ${_buses_def} 0 8)
    file(GLOB _known RELATIVE "${_drivers_dir}" "${_drivers_dir}/*.h")
    list(TRANSFORM _known REPLACE "\\.h$" "")
    list(APPEND _known ${_sim_only_models})
    list(JOIN _known ", " _known_text)
    if(_dev_count GREATER 0)
        math(EXPR _last "${_dev_count} - 1")
        foreach(_k RANGE ${_last})
            set(_path "i2c.devices[${_k}]")
            string(JSON _dev GET "${_i2c}" devices ${_k})
            _object("${_dev}" "${_path}")
            _str(_model "${_dev}" model "${_path}" TRUE "")
            math(EXPR _bus_max "${_buses} - 1")
            _int(_bus "${_dev}" bus "${_path}" FALSE 0 0 255)
            if(_bus GREATER _bus_max)
                _fail("${_path}.bus" "bus ${_bus} does not exist: the board has ${_buses} i2c "
                                     "bus(es) (i2c.buses)")
            endif()
            # address: 72 or "0x48"
            string(JSON _atype ERROR_VARIABLE _err TYPE "${_dev}" address)
            if(_err)
                _fail("${_path}" "missing required key \"address\"")
            elseif(_atype STREQUAL "STRING")
                string(JSON _a GET "${_dev}" address)
                if(NOT _a MATCHES "^0[xX]([0-9a-fA-F]+)$")
                    _fail("${_path}.address" "\"${_a}\" is not an address (use 72 or \"0x48\")")
                endif()
                math(EXPR _addr "0x${CMAKE_MATCH_1}")
            elseif(_atype STREQUAL "NUMBER")
                _int(_addr "${_dev}" address "${_path}" TRUE 0 0 255)
            else()
                _kind_phrase(_got "${_atype}")
                _fail("${_path}.address" "must be an integer or a \"0x..\" string, not ${_got}")
            endif()
            if(_addr LESS 8 OR _addr GREATER 119)
                _hex2(_hex "${_addr}")
                _fail("${_path}.address" "address ${_hex} is outside 0x08..0x77 (the 7-bit "
                                         "addresses I2C does not reserve)")
            endif()
            list(FIND _known "${_model}" _found)
            if(_found LESS 0 OR NOT _model MATCHES "^[a-z0-9_]+$")
                _fail("${_path}.model" "unknown model \"${_model}\" (expected one of: "
                                       "${_known_text})")
            endif()
            if(NOT EXISTS "${_drivers_dir}/${_model}.h")
                continue() # a device of the simulator only: no chip for the firmware
            endif()
            if("${_bus}:${_addr}" IN_LIST _chip_keys)
                _hex2(_hex "${_addr}")
                _fail("${_path}.address" "${_hex} on bus ${_bus} is already used")
            endif()
            list(APPEND _chip_keys "${_bus}:${_addr}")
            if(NOT "${_model}.h" IN_LIST _driver_headers)
                list(APPEND _driver_headers "${_model}.h")
            endif()
            set(_config NULL)
            if(_model STREQUAL "at24c")
                _int(_size "${_dev}" size "${_path}" TRUE 0 128 262144)
                _power_of_two(_pow "${_size}")
                if(NOT _pow)
                    _fail("${_path}.size" "${_size} is not a power of two (AT24C sizes are 128 .. "
                                          "262144 bytes)")
                endif()
                _int(_page "${_dev}" page "${_path}" FALSE 0 8 256)
                _power_of_two(_pow "${_page}")
                if(_page GREATER 0 AND (NOT _pow OR _page GREATER _size))
                    _fail("${_path}.page"
                          "${_page} is not a power of two of at most the chip size")
                endif()
                string(APPEND _configs_c
                       "static const fw_at24c_config_t chip${_chip_count}_config = "
                       "{.size_bytes = ${_size}u, .page_bytes = ${_page}};\n")
                set(_config "&chip${_chip_count}_config")
            endif()
            _hex2(_addr_hex "${_addr}")
            string(APPEND _chips_c
                   "    {.driver = &fw_driver_${_model}, .bus = ${_bus}, .addr = ${_addr_hex}, "
                   ".config = ${_config}},\n")
            math(EXPR _chip_count "${_chip_count} + 1")
        endforeach()
    endif()
    set(_path "")
endif()

# Application tools: firmware/apps/apps.h declares each as fw_app_<name>.
set(_apps "")
set(_app_syms "")
_length(_app_count "${_json}" app_tools "")
if(_app_count GREATER 0)
    set(_declared "")
    if(EXISTS "${_apps_h}")
        file(READ "${_apps_h}" _apps_text)
        string(REGEX MATCHALL "extern[ \t\r\n]+const[ \t\r\n]+fw_tool_t[^;]*;" _decls
               "${_apps_text}")
        foreach(_decl IN LISTS _decls)
            string(REGEX MATCHALL "fw_app_[A-Za-z0-9_]+" _syms "${_decl}")
            list(TRANSFORM _syms REPLACE "^fw_app_" "")
            list(APPEND _declared ${_syms})
        endforeach()
    endif()
    list(JOIN _declared ", " _declared_text)
    math(EXPR _last "${_app_count} - 1")
    foreach(_k RANGE ${_last})
        set(_path "app_tools[${_k}]")
        string(JSON _type ERROR_VARIABLE _err TYPE "${_json}" app_tools ${_k})
        if(NOT _type STREQUAL "STRING")
            _kind_phrase(_got "${_type}")
            _fail("${_path}" "must be a string, not ${_got}")
        endif()
        string(JSON _app GET "${_json}" app_tools ${_k})
        # A dotted name (seed 003's "self.screen.set_brightness") is fw_app_self_screen_...
        string(REPLACE "." "_" _app_sym "${_app}")
        if(NOT _app MATCHES "^[A-Za-z0-9_.]+$" OR
           (EXISTS "${_apps_h}" AND NOT _app_sym IN_LIST _declared))
            _fail("${_path}" "unknown application tool \"${_app}\" (firmware/apps/apps.h "
                             "declares: ${_declared_text})")
        endif()
        list(FIND _apps "${_app}" _j)
        if(_j GREATER_EQUAL 0)
            _fail("${_path}" "\"${_app}\" is already listed (app_tools[${_j}])")
        endif()
        list(APPEND _apps "${_app}")
        list(APPEND _app_syms "${_app_sym}")
    endforeach()
    set(_path "")
endif()

# ---------------------------------------------------------------- the C source and header

get_filename_component(_c_name "${OUT_C}" NAME)
get_filename_component(_h_name "${OUT_H}" NAME)
set(_banner "generated from ${_file} by cmake/board2c.cmake; do not edit")
string(REPLACE "*/" "* /" _banner "${_banner}")
string(TOUPPER "MCPSIM_BOARD_${_stem}_H" _guard)
_rom_string(_device_c "${_device}" device)
_rom_string(_version_c "${_version}" version)
_rom_string(_platform_c "${_platform}" platform)
string(REPLACE "*/" "* /" _device_comment "${_device}")

string(CONCAT _h "/* ${_h_name}: ${_banner}. */\n"
       "#ifndef ${_guard}\n#define ${_guard}\n\n"
       "#include \"fw_device.h\"\n\n"
       "/* The board \"${_device_comment}\" as const data, for fw_device_init. */\n"
       "extern const fw_board_t fw_board_${_stem};\n\n"
       "#endif\n")

string(CONCAT _c "/* ${_c_name}: ${_banner}. */\n"
       "#include <stddef.h>\n\n"
       "#include \"${_h_name}\"\n"
       "#include \"fw_builtins.h\"\n"
       "#include \"fw_device.h\"\n"
       "#include \"fw_driver.h\"\n")
if(_app_count GREATER 0)
    string(APPEND _c "#include \"apps.h\"\n")
endif()
foreach(_hdr IN LISTS _driver_headers)
    string(APPEND _c "#include \"${_hdr}\"\n")
endforeach()
string(APPEND _c "\n")

# What this build must offer: checked by the compiler, against the build's own fw_config.h.
if(_buses GREATER 0)
    string(APPEND _c "#if !FW_WITH_I2C\n#error \"${_file_c}: the board has ${_buses} I2C bus(es) "
                     "(i2c.buses); this build has no I2C (FW_WITH_I2C)\"\n#endif\n")
endif()
if(NOT _sampled STREQUAL "")
    string(APPEND _c "#if !FW_WITH_SAMPLING\n#error \"${_file_c}: ${_sampled} is sampled; this build "
                     "has no sampling (FW_WITH_SAMPLING): use a board without sampling\"\n"
                     "#endif\n")
endif()
string(APPEND _c "_Static_assert(${_pin_count} <= FW_PINS_MAX, \"${_file_c}: ${_pin_count} pins, "
                 "more than FW_PINS_MAX\");\n")
if(_chip_count GREATER 0)
    string(APPEND _c "_Static_assert(${_chip_count} <= FW_I2C_DEVICES_MAX, \"${_file_c}: "
                     "${_chip_count} I2C chips with a driver, more than FW_I2C_DEVICES_MAX\");\n")
endif()
string(APPEND _c "${_asserts}\n")
string(APPEND _c "${_strings_c}\n")

set(_pins_ref "NULL")
if(_pin_count GREATER 0)
    string(APPEND _c "static const fw_pin_def_t pins[] = {\n${_pins_c}};\n\n")
    set(_pins_ref "pins")
endif()
set(_store_ref "NULL")
if(_slots GREATER 0)
    string(APPEND _c "/* The rings of the buffered pins, in registry order. */\n"
                     "static fw_sample_slot_t sample_store[${_slots}];\n\n")
    set(_store_ref "sample_store")
endif()
set(_chips_ref "NULL")
if(_chip_count GREATER 0)
    string(APPEND _c "${_configs_c}static const fw_chip_t chips[] = {\n${_chips_c}};\n\n")
    set(_chips_ref "chips")
endif()
set(_apps_ref "NULL")
if(_app_count GREATER 0)
    list(TRANSFORM _app_syms PREPEND "&fw_app_")
    list(JOIN _app_syms ", " _apps_list)
    string(APPEND _c "static const fw_tool_t *const app_tools[] = {${_apps_list}, NULL};\n\n")
    set(_apps_ref "app_tools")
endif()
set(_toolsets fw_builtins)
if(_buses GREATER 0)
    set(_toolsets fw_builtins_i2c)
endif()
# "builtins": false: the board's application tools only (a vocabulary of its own, e.g. mcpd's).
string(JSON _builtins_type ERROR_VARIABLE _err TYPE "${_json}" builtins)
if(_builtins_type STREQUAL "BOOLEAN")
    string(JSON _builtins GET "${_json}" builtins)
    if(NOT _builtins)
        set(_toolsets NULL)
    endif()
elseif(NOT _err AND NOT _builtins_type STREQUAL "")
    set(_path "builtins")
    _fail("builtins" "must be true or false")
endif()

string(APPEND _c
       "const fw_board_t fw_board_${_stem} = {\n"
       "    .device = ${_device_c},\n"
       "    .version = ${_version_c},\n"
       "    .platform = ${_platform_c},\n"
       "    .pins = ${_pins_ref},\n"
       "    .pin_count = ${_pin_count},\n"
       "    .adc_bits = ${_adc_bits},\n"
       "    .adc_ref_mv = ${_adc_ref},\n"
       "    .adc_report = ${_adc_report_c},\n"
       "    .omit_schemas = ${_omit_schemas},\n"
       "    .i2c_bus_count = ${_buses},\n"
       "    .chips = ${_chips_ref},\n"
       "    .chip_count = ${_chip_count},\n"
       "    .toolsets = ${_toolsets},\n"
       "    .app_tools = ${_apps_ref},\n"
       "    .sample_store = ${_store_ref},\n"
       "    .sample_store_len = ${_slots},\n"
       "};\n")

file(WRITE "${OUT_H}" "${_h}")
file(WRITE "${OUT_C}" "${_c}")
