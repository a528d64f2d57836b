# embed.cmake: turns the dashboard page into C (cmake -DIN=page.html -DOUT=page.c -P embed.cmake):
# host_dashboard_page[] (the bytes, NUL-terminated) and host_dashboard_page_len.
file(READ ${IN} _hex HEX)
string(LENGTH "${_hex}" _n)
math(EXPR _len "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
file(WRITE ${OUT}
"/* Generated from sim/host/dashboard/index.html by embed.cmake: do not edit. */\n"
"#include <stddef.h>\n"
"extern const unsigned char host_dashboard_page[];\n"
"extern const size_t host_dashboard_page_len;\n"
"const unsigned char host_dashboard_page[] = {${_bytes}0x00};\n"
"const size_t host_dashboard_page_len = ${_len};\n")
