/* builtins_internal.h: what the built-in tools (firmware/builtins/) share. */
#ifndef FW_BUILTINS_INTERNAL_H
#define FW_BUILTINS_INTERNAL_H

#include "fw_device.h"
#include "fw_tool.h"

/* The tool's hardware failure on pin def as the call's error: "<tool> on pin <number>
   (<name>) failed: <error>"; returns err. */
fw_err_t fw_builtin_pin_failed(fw_call_t *call, const fw_pin_def_t *def, fw_err_t err);

#endif
