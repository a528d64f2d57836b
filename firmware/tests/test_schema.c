/* test_schema.c: specification of parameter validation and the published inputSchema (schema.c). */
#include <jansson.h>
#include <stdio.h>

#include "fw_device.h"
#include "fw_internal.h" /* white-box: fw_schema_bind and the response state it fills */
#include "mock_hal.h"
#include "test_boards.h"
#include "test_util.h"

/* The full specification needs NUMBER and BYTES parameters, 64-bit integers and room for tools
   of five parameters; a build without them (mcpu-min) runs the compact one further down. */
#define SCHEMA_FULL                                                                                \
    (FW_WITH_FLOAT && FW_WITH_PARAM_BYTES && FW_WITH_INT64 && FW_PARAMS_MAX >= 5 &&                \
     FW_TOOLS_MAX >= 16)

/* ---------------------------------------------------------------- fixture */

static const fw_pin_def_t pins[] = {
    {.number = 2, .type = FW_PIN_DIGITAL_OUTPUT, .name = "led", .description = "LED"},
    {.number = 4, .type = FW_PIN_DIGITAL_INPUT, .name = "button", .description = "Button"},
    {.number = 18, .type = FW_PIN_PWM_OUTPUT, .name = "fan", .description = "Fan"},
    {.number = 34, .type = FW_PIN_ADC_INPUT, .name = "sensor", .description = "Sensor"},
    {.number = 7, .type = FW_PIN_DIGITAL_OUTPUT, .name = "5", .description = "named like a number"},
};

static const fw_board_t board = TEST_MOCK_BOARD("schema-test", "1.0.0", pins);

static fw_device_t dev;
static mock_hal_t hal;
static cap_t out;

/* What the last handler saw. */
static fw_arg_t seen[FW_PARAMS_MAX];
static unsigned calls;

static fw_err_t capture(fw_call_t *call)
{
    memcpy(seen, call->args, sizeof seen);
    calls++;
    fw_call_result(call);
    return FW_OK;
}

static const char *const units[] = {"C", "F", NULL};

#if SCHEMA_FULL
static const fw_param_t nums_params[] = {
    {.name = "i",
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = -5,
     .max = 255,
     .description = "an integer"},
    {.name = "n",
     .type = FW_PARAM_NUMBER,
     .has_min = true,
     .has_max = true,
     .number = FW_NUMBER(0.5, 10.25, 0),
     .description = "a number"},
    {.name = "big", .type = FW_PARAM_INTEGER},
    {.name = "d", .type = FW_PARAM_INTEGER, .has_default = true, .def_int = 42},
    {.name = "x", .type = FW_PARAM_NUMBER, .has_default = true, .number = FW_NUMBER(0, 0, 1.5)},
};

static const fw_param_t strs_params[] = {
    {.name = "s",
     .type = FW_PARAM_STRING,
     .has_min = true,
     .has_max = true,
     .min = 2,
     .max = 5,
     .description = "a short string"},
    {.name = "unit",
     .type = FW_PARAM_STRING,
     .enum_values = units,
     .has_default = true,
     .def_str = "C"},
    {.name = "b", .type = FW_PARAM_BOOLEAN, .has_default = true, .def_int = 1},
    {.name = "free", .type = FW_PARAM_STRING},
};

static const fw_param_t pins_params[] = {
    {.name = "out",
     .type = FW_PARAM_PIN,
     .pin_types = FW_PINMASK(FW_PIN_DIGITAL_OUTPUT),
     .description = "an output"},
    {.name = "any", .type = FW_PARAM_PIN},
    {.name = "in",
     .type = FW_PARAM_PIN,
     .has_default = true,
     .def_int = 34,
     .pin_types = FW_PINMASK(FW_PIN_DIGITAL_INPUT) | FW_PINMASK(FW_PIN_ADC_INPUT)},
};

static const fw_param_t bytes_params[] = {
    {.name = "data",
     .type = FW_PARAM_BYTES,
     .has_min = true,
     .has_max = true,
     .min = 1,
     .max = 4,
     .description = "bytes"},
    {.name = "more", .type = FW_PARAM_BYTES},
    {.name = "label", .type = FW_PARAM_STRING},
};

#if FW_WITH_INT64
/* Integer ranges are integers: limits past 2^53 (where a double skips odd numbers) hold exactly. */
static const fw_param_t wide_params[] = {
    {.name = "w",
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 9007199254740993,
     .max = 9007199254740995,
     .has_default = false},
};
static const fw_tool_t wide_tool = {.name = "wide",
                                    .description = "a range past 2^53",
                                    .params = wide_params,
                                    .param_count = 1,
                                    .handler = capture};
#endif

static const fw_param_t pos_params[] = {
    {.name = "a", .type = FW_PARAM_INTEGER, .required = true},
    {.name = "b", .type = FW_PARAM_STRING},
};

static const fw_param_t baddef_params[] = {
    {.name = "p", .type = FW_PARAM_PIN, .has_default = true, .def_int = 99},
};

/* Registered only where used: its default call is refused, as it must be. */
static const fw_tool_t baddef_tool = {.name = "baddef",
                                      .description = "a default pin the board lacks",
                                      .params = baddef_params,
                                      .param_count = 1,
                                      .handler = capture};

static const fw_tool_t tools[] = {
    {.name = "nums",
     .description = "numbers",
     .params = nums_params,
     .param_count = FW_ARRAY_LEN(nums_params),
     .handler = capture},
    {.name = "strs",
     .description = "strings",
     .params = strs_params,
     .param_count = FW_ARRAY_LEN(strs_params),
     .handler = capture},
    {.name = "pins",
     .description = "pins",
     .params = pins_params,
     .param_count = FW_ARRAY_LEN(pins_params),
     .handler = capture},
    {.name = "bytes",
     .description = "bytes",
     .params = bytes_params,
     .param_count = FW_ARRAY_LEN(bytes_params),
     .handler = capture},
    {.name = "pos",
     .description = "positional",
     .params = pos_params,
     .param_count = FW_ARRAY_LEN(pos_params),
     .handler = capture},
    {.name = "none", .description = "no parameters", .handler = capture},
};

#else

/* The compact tools: at most three parameters each (FW_PARAMS_MAX), no NUMBER or BYTES. */
static const fw_param_t nums_params[] = {
    {.name = "i",
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = -5,
     .max = 255,
     .description = "an integer"},
    {.name = "big", .type = FW_PARAM_INTEGER},
    {.name = "d", .type = FW_PARAM_INTEGER, .has_default = true, .def_int = 42},
};

static const fw_param_t strs_params[] = {
    {.name = "s", .type = FW_PARAM_STRING, .has_min = true, .has_max = true, .min = 2, .max = 5},
    {.name = "unit",
     .type = FW_PARAM_STRING,
     .enum_values = units,
     .has_default = true,
     .def_str = "C"},
    {.name = "b", .type = FW_PARAM_BOOLEAN, .has_default = true, .def_int = 1},
};

static const fw_param_t pins_params[] = {
    {.name = "out", .type = FW_PARAM_PIN, .pin_types = FW_PINMASK(FW_PIN_DIGITAL_OUTPUT)},
    {.name = "any", .type = FW_PARAM_PIN},
    {.name = "in",
     .type = FW_PARAM_PIN,
     .has_default = true,
     .def_int = 34,
     .pin_types = FW_PINMASK(FW_PIN_DIGITAL_INPUT) | FW_PINMASK(FW_PIN_ADC_INPUT)},
};

/* Four tools beside the board's four built-ins: FW_TOOLS_MAX (8) exactly. */
static const fw_tool_t tools[] = {
    {.name = "nums",
     .description = "numbers",
     .params = nums_params,
     .param_count = FW_ARRAY_LEN(nums_params),
     .handler = capture},
    {.name = "strs",
     .description = "strings",
     .params = strs_params,
     .param_count = FW_ARRAY_LEN(strs_params),
     .handler = capture},
    {.name = "pins",
     .description = "pins",
     .params = pins_params,
     .param_count = FW_ARRAY_LEN(pins_params),
     .handler = capture},
    {.name = "none", .description = "no parameters", .handler = capture},
};
#endif

static void setup(void)
{
    mock_hal_init(&hal);
    ck_assert_int_eq(fw_device_init(&dev, &board, &mock_hal_api, &hal), FW_OK);
    for (size_t i = 0; i < FW_ARRAY_LEN(tools); i++)
        ck_assert_int_eq(fw_device_add_tool(&dev, &tools[i]), FW_OK);
    memset(seen, 0, sizeof seen);
    calls = 0;
}

/* Calls tool with the params text ("" for none); returns the response. */
static const char *call(const char *tool, const char *params)
{
    static char msg[2048];
    snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"%s%s}", tool,
             params[0] ? ",\"params\":" : "", params);
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, msg, strlen(msg), cap_sink(&out)));
    return out.buf;
}

static void accepts(const char *tool, const char *params)
{
    unsigned before = calls;
    const char *text = call(tool, params);
    ck_assert_msg(calls == before + 1, "%s %s refused: %s", tool, params, text);
}

/* Refused with -32602; the first issue has this path and message, and the error message is
   "invalid params: <path>: <message>" (plus " (and N more)" when more issues follow). A build
   with small buffers cuts both at their limits (FW_ISSUE_TEXT_MAX, FW_ERRMSG_MAX). */
static void refuses(const char *tool, const char *params, const char *path, const char *message)
{
    unsigned before = calls;
    json_error_t e;
    const char *text = call(tool, params);
    ck_assert_uint_eq(calls, before);
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "%s", text);
    json_t *err = json_object_get(j, "error");
    ck_assert_int_eq(json_integer_value(json_object_get(err, "code")), FW_RPC_INVALID_PARAMS);
    json_t *is = json_array_get(json_object_get(json_object_get(err, "data"), "issues"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(is, "path")), path);
    char want[256];
    snprintf(want, sizeof want, "%.*s", FW_ISSUE_TEXT_MAX - 1, message);
    ck_assert_str_eq(json_string_value(json_object_get(is, "message")), want);
    snprintf(want, sizeof want, "invalid params: %s: %s", path, message);
    if (strlen(want) > FW_ERRMSG_MAX - 1) want[FW_ERRMSG_MAX - 1] = 0;
    const char *got = json_string_value(json_object_get(err, "message"));
    ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "%s", got);
    json_decref(j);
}

#if SCHEMA_FULL

/* ---------------------------------------------------------------- integers and numbers */

START_TEST(test_integer)
{
    accepts("nums", "{\"i\":2}");
    ck_assert(seen[0].present);
    ck_assert_int_eq(seen[0].i, 2);
    accepts("nums", "{\"i\":-5}");
    accepts("nums", "{\"i\":255}");
    accepts("nums", "{\"i\":-0}");
    refuses("nums", "{\"i\":256}", "i", "must be <= 255");
    refuses("nums", "{\"i\":-6}", "i", "must be >= -5");
    refuses("nums", "{\"i\":2.0}", "i", "must be an integer (got 2.0)");
    refuses("nums", "{\"i\":1e2}", "i", "must be an integer (got 1e2)");
    refuses("nums", "{\"i\":\"2\"}", "i", "must be an integer (got string)");
    refuses("nums", "{\"i\":true}", "i", "must be an integer (got boolean)");
    refuses("nums", "{\"i\":null}", "i", "must be an integer (got null)");
    refuses("nums", "{\"i\":[1]}", "i", "must be an integer (got array)");
    refuses("nums", "{\"i\":{}}", "i", "must be an integer (got object)");
}
END_TEST

START_TEST(test_integer_int64_edges)
{
    accepts("nums", "{\"i\":0,\"big\":9223372036854775807}");
    ck_assert_int_eq(seen[2].i, INT64_MAX);
    accepts("nums", "{\"i\":0,\"big\":-9223372036854775808}");
    ck_assert_int_eq(seen[2].i, INT64_MIN);
    refuses("nums", "{\"i\":0,\"big\":9223372036854775808}", "big",
            "9223372036854775808 does not fit a 64-bit integer");
    refuses("nums", "{\"i\":0,\"big\":-9223372036854775809}", "big",
            "-9223372036854775809 does not fit a 64-bit integer");
    /* far beyond the range limit too: overflow is caught, not wrapped into range */
    refuses("nums", "{\"i\":18446744073709551617}", "i",
            "18446744073709551617 does not fit a 64-bit integer");
}
END_TEST

#if FW_WITH_INT64
START_TEST(test_integer_range_past_2_pow_53_is_exact)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &wide_tool), FW_OK);
    accepts("wide", "{\"w\":9007199254740993}");
    ck_assert_int_eq(seen[0].i, 9007199254740993);
    accepts("wide", "{\"w\":9007199254740995}");
    refuses("wide", "{\"w\":9007199254740992}", "w", "must be >= 9007199254740993");
    refuses("wide", "{\"w\":9007199254740996}", "w", "must be <= 9007199254740995");
    cap_reset(&out);
    static const char list[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\"}";
    ck_assert(fw_device_handle(&dev, list, strlen(list), cap_sink(&out)));
    ck_assert_ptr_nonnull(
        strstr(out.buf, "\"minimum\":9007199254740993,\"maximum\":9007199254740995"));
}
END_TEST
#endif

START_TEST(test_number)
{
    accepts("nums", "{\"i\":0,\"n\":0.5}");
    ck_assert(seen[1].num == 0.5);
    accepts("nums", "{\"i\":0,\"n\":10.25}");
    accepts("nums", "{\"i\":0,\"n\":3}"); /* an integer is a number */
    ck_assert(seen[1].num == 3.0);
    accepts("nums", "{\"i\":0,\"n\":2.5e0}");
    ck_assert(seen[1].num == 2.5);
    ck_assert_int_eq(seen[1].i, 2); /* i holds a NUMBER truncated */
    refuses("nums", "{\"i\":0,\"n\":10.26}", "n", "must be <= 10.25");
    refuses("nums", "{\"i\":0,\"n\":0.49}", "n", "must be >= 0.5");
    refuses("nums", "{\"i\":0,\"n\":1e400}", "n", "1e400 is out of range");
    refuses("nums", "{\"i\":0,\"n\":\"1\"}", "n", "must be a number (got string)");
}
END_TEST

START_TEST(test_defaults_filled)
{
    accepts("nums", "{\"i\":1}");
    ck_assert(!seen[1].present); /* optional without default: absent */
    ck_assert(!seen[2].present);
    ck_assert(seen[3].present);
    ck_assert_int_eq(seen[3].i, 42);
    ck_assert(seen[4].present);
    ck_assert(seen[4].num == 1.5);
    ck_assert_int_eq(seen[4].i, 1);
    accepts("strs", "");
    ck_assert(!seen[0].present);
    ck_assert(seen[1].present);
    ck_assert_str_eq(seen[1].str, "C");
    ck_assert_uint_eq(seen[1].len, 1);
    ck_assert(seen[2].present);
    ck_assert_int_eq(seen[2].i, 1);
    accepts("pins", "{}");
    ck_assert(seen[2].present);
    ck_assert_int_eq(seen[2].i, 34);
    ck_assert_uint_eq(seen[2].pin_index, 3);
    ck_assert_ptr_eq(seen[2].pin, &pins[3]);
    /* a given value replaces the default */
    accepts("nums", "{\"i\":1,\"d\":7}");
    ck_assert_int_eq(seen[3].i, 7);
}
END_TEST

START_TEST(test_default_pin_missing_from_board)
{
    ck_assert_int_eq(fw_device_add_tool(&dev, &baddef_tool), FW_OK);
    refuses("baddef", "", "p", "default pin 99 is not on this board");
    accepts("baddef", "{\"p\":2}");
}
END_TEST

/* ---------------------------------------------------------------- booleans and strings */

START_TEST(test_boolean)
{
    accepts("strs", "{\"b\":false}");
    ck_assert(seen[2].present);
    ck_assert_int_eq(seen[2].i, 0);
    accepts("strs", "{\"b\":true}");
    ck_assert_int_eq(seen[2].i, 1);
    refuses("strs", "{\"b\":1}", "b", "must be true or false (got number)");
    refuses("strs", "{\"b\":\"true\"}", "b", "must be true or false (got string)");
    refuses("strs", "{\"b\":null}", "b", "must be true or false (got null)");
}
END_TEST

START_TEST(test_string)
{
    accepts("strs", "{\"s\":\"ab\"}");
    ck_assert_str_eq(seen[0].str, "ab");
    ck_assert_uint_eq(seen[0].len, 2);
    accepts("strs", "{\"s\":\"a\\\"b\\n\"}"); /* decoded: a"b<LF> */
    ck_assert_str_eq(seen[0].str, "a\"b\n");
    ck_assert_uint_eq(seen[0].len, 4);
    accepts("strs", "{\"s\":\"\xc3\xa9\xc3\xa9\"}"); /* 2 characters, 4 bytes */
    ck_assert_uint_eq(seen[0].len, 4);
    accepts("strs", "{\"s\":\"\\ud83d\\ude00!\"}"); /* 2 characters (a surrogate pair + !) */
    ck_assert_str_eq(seen[0].str, "\xf0\x9f\x98\x80!");
    refuses("strs", "{\"s\":\"a\"}", "s", "must have at least 2 characters");
    refuses("strs", "{\"s\":\"abcdef\"}", "s", "must have at most 5 characters");
    refuses("strs", "{\"s\":5}", "s", "must be a string (got number)");
    refuses("strs", "{\"s\":\"a\\u0000b\"}", "s", "must not contain NUL characters");
    accepts("strs", "{\"free\":\"\"}");
    ck_assert_str_eq(seen[3].str, "");
}
END_TEST

START_TEST(test_string_scratch_limit)
{
    char params[FW_SCRATCH_SIZE + 32];
    int n = snprintf(params, sizeof params, "{\"free\":\"");
    memset(params + n, 'a', FW_SCRATCH_SIZE);
    snprintf(params + n + FW_SCRATCH_SIZE, sizeof params - (size_t)n - FW_SCRATCH_SIZE, "\"}");
    char want[96];
    snprintf(want, sizeof want,
             "is too long for the argument buffer (FW_SCRATCH_SIZE %d bytes "
             "per call)",
             FW_SCRATCH_SIZE);
    refuses("strs", params, "free", want);
    params[n + FW_SCRATCH_SIZE - 1] = 0; /* one byte shorter: fits with its NUL */
    strcat(params, "\"}");
    accepts("strs", params);
    ck_assert_uint_eq(seen[3].len, FW_SCRATCH_SIZE - 1);
}
END_TEST

START_TEST(test_enum)
{
    accepts("strs", "{\"unit\":\"F\"}");
    ck_assert_str_eq(seen[1].str, "F");
    refuses("strs", "{\"unit\":\"K\"}", "unit", "must be one of: C, F");
    refuses("strs", "{\"unit\":\"c\"}", "unit", "must be one of: C, F");
}
END_TEST

/* ---------------------------------------------------------------- pins */

START_TEST(test_pin_by_number_and_name)
{
    accepts("pins", "{\"out\":2}");
    ck_assert_int_eq(seen[0].i, 2);
    ck_assert_uint_eq(seen[0].pin_index, 0);
    ck_assert_ptr_eq(seen[0].pin, &pins[0]);
    accepts("pins", "{\"out\":\"led\"}");
    ck_assert_int_eq(seen[0].i, 2);
    accepts("pins", "{\"any\":\"fan\"}");
    ck_assert_int_eq(seen[1].i, 18);
    ck_assert_uint_eq(seen[1].pin_index, 2);
    accepts("pins", "{\"any\":\"18\"}"); /* digits name a pin number */
    ck_assert_int_eq(seen[1].i, 18);
    accepts("pins", "{\"any\":\"5\"}"); /* ... unless a pin has that name */
    ck_assert_int_eq(seen[1].i, 7);
    accepts("pins", "{\"in\":\"button\"}");
    ck_assert_int_eq(seen[2].i, 4);
}
END_TEST

START_TEST(test_pin_refusals)
{
    refuses("pins", "{\"any\":99}", "any", "no pin 99 on this board");
    refuses("pins", "{\"any\":-1}", "any", "no pin -1 on this board");
    refuses("pins", "{\"any\":65538}", "any", "no pin 65538 on this board");
    refuses("pins", "{\"any\":\"nope\"}", "any", "no pin named 'nope' on this board");
    refuses("pins", "{\"any\":\"\"}", "any", "no pin named '' on this board");
    refuses("pins", "{\"any\":2.0}", "any", "must be a pin number or name (got 2.0)");
    refuses("pins", "{\"any\":true}", "any", "must be a pin number or name (got boolean)");
    refuses("pins", "{\"out\":34}", "out",
            "pin 34 (sensor) is adc_input; this tool needs digital_output");
    refuses("pins", "{\"out\":\"button\"}", "out",
            "pin 4 (button) is digital_input; this tool needs digital_output");
    refuses("pins", "{\"in\":2}", "in",
            "pin 2 (led) is digital_output; this tool needs digital_input or adc_input");
}
END_TEST

START_TEST(test_pin_long_name_cut)
{
    char params[256];
    char name[120];
    memset(name, 'q', sizeof name - 1);
    name[sizeof name - 1] = 0;
    snprintf(params, sizeof params, "{\"any\":\"%s\"}", name);
    const char *text = call("pins", params);
    json_t *j = json_loads(text, 0, NULL);
    json_t *is = json_array_get(
        json_object_get(json_object_get(json_object_get(j, "error"), "data"), "issues"), 0);
    const char *m = json_string_value(json_object_get(is, "message"));
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_lt(strlen(m), 80); /* names the pin, lists nothing long */
    ck_assert(strncmp(m, "no pin named 'qqq", 17) == 0);
    json_decref(j);
}
END_TEST

START_TEST(test_pin_type_follows_runtime_type)
{
    /* the check uses the pin's current type, which pin_mode may switch */
    fw_device_pin_note_mode(&dev, 1, HAL_PIN_OUTPUT);
    accepts("pins", "{\"out\":4}");
    ck_assert_int_eq(seen[0].i, 4);
}
END_TEST

/* ---------------------------------------------------------------- bytes */

START_TEST(test_bytes)
{
    accepts("bytes", "{\"data\":[0,1,255]}");
    ck_assert_uint_eq(seen[0].len, 3);
    ck_assert_uint_eq(seen[0].bytes[0], 0);
    ck_assert_uint_eq(seen[0].bytes[1], 1);
    ck_assert_uint_eq(seen[0].bytes[2], 255);
    accepts("bytes", "{\"more\":[]}");
    ck_assert(seen[1].present);
    ck_assert_uint_eq(seen[1].len, 0);
    refuses("bytes", "{\"data\":[]}", "data", "must have at least 1 items");
    refuses("bytes", "{\"data\":[1,2,3,4,5]}", "data", "must have at most 4 items");
    refuses("bytes", "{\"data\":[1,256]}", "data[1]", "must be an integer 0..255");
    refuses("bytes", "{\"data\":[-1]}", "data[0]", "must be an integer 0..255");
    refuses("bytes", "{\"data\":[1.5]}", "data[0]", "must be an integer 0..255");
    refuses("bytes", "{\"data\":[1,\"2\"]}", "data[1]", "must be an integer 0..255");
    refuses("bytes", "{\"data\":\"ab\"}", "data", "must be an array of bytes (got string)");
}
END_TEST

START_TEST(test_bytes_scratch_limit)
{
    static char params[4 * FW_SCRATCH_SIZE];
    size_t n = (size_t)snprintf(params, sizeof params, "{\"more\":[");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(params + n, sizeof params - n, "%s7", i ? "," : "");
    snprintf(params + n, sizeof params - n, "]}");
    accepts("bytes", params);
    ck_assert_uint_eq(seen[1].len, 100);
    ck_assert_uint_eq(seen[1].bytes[99], 7);
    ck_assert_uint_eq((uintptr_t)seen[1].bytes % 8, 0); /* scratch is 8-aligned */
    /* a long string first leaves too little scratch for the bytes */
    n = (size_t)snprintf(params, sizeof params, "{\"label\":\"");
    memset(params + n, 'l', FW_SCRATCH_SIZE - 40);
    n += FW_SCRATCH_SIZE - 40;
    n += (size_t)snprintf(params + n, sizeof params - n, "\",\"more\":[");
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(params + n, sizeof params - n, "%s1", i ? "," : "");
    snprintf(params + n, sizeof params - n, "]}");
    char want[96];
    snprintf(want, sizeof want,
             "is too long for the argument buffer (FW_SCRATCH_SIZE %d bytes "
             "per call)",
             FW_SCRATCH_SIZE);
    refuses("bytes", params, "more", want);
}
END_TEST

/* ---------------------------------------------------------------- binding */

START_TEST(test_required_missing)
{
    refuses("nums", "", "i", "required parameter missing");
    refuses("nums", "{}", "i", "required parameter missing");
    refuses("nums", "[]", "i", "required parameter missing");
    refuses("pos", "{\"b\":\"x\"}", "a", "required parameter missing");
}
END_TEST

START_TEST(test_unknown_and_meta)
{
    refuses("nums", "{\"i\":1,\"zzz\":2}", "zzz", "unknown parameter");
    refuses("none", "{\"I\":1}", "I", "unknown parameter");
    accepts("nums", "{\"i\":1,\"_meta\":{\"progressToken\":5}}");
    accepts("none", "{\"_meta\":null}");
    accepts("none", "{}");
    accepts("none", "[]");
}
END_TEST

START_TEST(test_unknown_long_name_cut)
{
    char params[256], name[100];
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = 0;
    snprintf(params, sizeof params, "{\"%s\":1}", name);
    const char *text = call("none", params);
    json_t *j = json_loads(text, 0, NULL);
    json_t *is = json_array_get(
        json_object_get(json_object_get(json_object_get(j, "error"), "data"), "issues"), 0);
    const char *path = json_string_value(json_object_get(is, "path"));
    ck_assert_uint_lt(strlen(path), FW_ISSUE_PATH_MAX);
    ck_assert_ptr_nonnull(strstr(path, "kkk..."));
    json_decref(j);
}
END_TEST

START_TEST(test_duplicate_member)
{
    refuses("nums", "{\"i\":1,\"i\":2}", "i", "given more than once");
}
END_TEST

START_TEST(test_positional)
{
    accepts("pos", "[3,\"x\"]");
    ck_assert_int_eq(seen[0].i, 3);
    ck_assert_str_eq(seen[1].str, "x");
    accepts("pos", "[4]");
    ck_assert(!seen[1].present);
    refuses("pos", "[1,\"x\",3]", "params", "takes at most 2 parameters (got 3)");
    refuses("pos", "[\"x\"]", "a", "must be an integer (got string)");
    refuses("none", "[1]", "params", "takes at most 0 parameters (got 1)");
}
END_TEST

START_TEST(test_issues_collected)
{
    const char *text =
        call("nums", "{\"n\":\"x\",\"big\":1.5,\"d\":true,\"q\":1,\"r\":2,\"x\":null}");
    json_t *j = json_loads(text, 0, NULL);
    json_t *err = json_object_get(j, "error");
    json_t *issues = json_object_get(json_object_get(err, "data"), "issues");
    ck_assert_uint_eq(json_array_size(issues), FW_ISSUES_MAX);
    static const char *const paths[] = {"n", "big", "d", "q"};
    for (size_t i = 0; i < FW_ISSUES_MAX && i < 4; i++)
        ck_assert_str_eq(json_string_value(json_object_get(json_array_get(issues, i), "path")),
                         paths[i]);
    /* seven issues in all: four listed, the other three (r, x, the missing i) only counted */
    ck_assert_str_eq(json_string_value(json_object_get(err, "message")),
                     "invalid params: n: must be a number (got string) (and 6 more)");
    json_decref(j);
}
END_TEST

#else /* !SCHEMA_FULL */

/* ---------------------------------------------------------------- compact validation */

START_TEST(test_integer)
{
    accepts("nums", "{\"i\":2}");
    ck_assert(seen[0].present);
    ck_assert_int_eq(seen[0].i, 2);
    accepts("nums", "{\"i\":-5}");
    accepts("nums", "{\"i\":255}");
    refuses("nums", "{\"i\":256}", "i", "must be <= 255");
    refuses("nums", "{\"i\":-6}", "i", "must be >= -5");
    refuses("nums", "{\"i\":2.0}", "i", "must be an integer (got 2.0)");
    refuses("nums", "{\"i\":\"2\"}", "i", "must be an integer (got string)");
    refuses("nums", "{\"i\":null}", "i", "must be an integer (got null)");
}
END_TEST

/* Arguments are 32-bit integers in a build without FW_WITH_INT64. */
START_TEST(test_integer_int32_edges)
{
    ck_assert_uint_eq(sizeof(fw_int_t), 4);
    accepts("nums", "{\"i\":0,\"big\":2147483647}");
    ck_assert_int_eq(seen[1].i, INT32_MAX);
    accepts("nums", "{\"i\":0,\"big\":-2147483648}");
    ck_assert_int_eq(seen[1].i, INT32_MIN);
    refuses("nums", "{\"i\":0,\"big\":2147483648}", "big",
            "2147483648 does not fit a 32-bit integer");
    refuses("nums", "{\"i\":0,\"big\":-2147483649}", "big",
            "-2147483649 does not fit a 32-bit integer");
    refuses("nums", "{\"i\":4294967298}", "i", "4294967298 does not fit a 32-bit integer");
}
END_TEST

START_TEST(test_defaults_filled)
{
    accepts("nums", "{\"i\":1}");
    ck_assert(!seen[1].present);
    ck_assert(seen[2].present);
    ck_assert_int_eq(seen[2].i, 42);
    accepts("strs", "");
    ck_assert(!seen[0].present);
    ck_assert_str_eq(seen[1].str, "C");
    ck_assert_int_eq(seen[2].i, 1);
    accepts("pins", "{}");
    ck_assert(seen[2].present);
    ck_assert_int_eq(seen[2].i, 34);
    ck_assert_ptr_eq(seen[2].pin, &pins[3]);
}
END_TEST

START_TEST(test_strings_enums_and_booleans)
{
    accepts("strs", "{\"s\":\"a\\\"b\\n\"}");
    ck_assert_str_eq(seen[0].str, "a\"b\n");
    refuses("strs", "{\"s\":\"a\"}", "s", "must have at least 2 characters");
    refuses("strs", "{\"s\":\"abcdef\"}", "s", "must have at most 5 characters");
    refuses("strs", "{\"unit\":\"K\"}", "unit", "must be one of: C, F");
    refuses("strs", "{\"b\":1}", "b", "must be true or false (got number)");
    accepts("strs", "{\"b\":false}");
    ck_assert_int_eq(seen[2].i, 0);
}
END_TEST

START_TEST(test_string_scratch_limit)
{
    char params[FW_SCRATCH_SIZE + 32];
    int n = snprintf(params, sizeof params, "{\"unit\":\"");
    memset(params + n, 'a', FW_SCRATCH_SIZE);
    snprintf(params + n + FW_SCRATCH_SIZE, sizeof params - (size_t)n - FW_SCRATCH_SIZE, "\"}");
    char want[96];
    snprintf(want, sizeof want,
             "is too long for the argument buffer (FW_SCRATCH_SIZE %d bytes "
             "per call)",
             FW_SCRATCH_SIZE);
    refuses("strs", params, "unit", want);
}
END_TEST

START_TEST(test_pins)
{
    accepts("pins", "{\"out\":\"led\",\"any\":\"18\"}");
    ck_assert_int_eq(seen[0].i, 2);
    ck_assert_int_eq(seen[1].i, 18);
    accepts("pins", "{\"any\":\"5\"}"); /* a pin named like a number */
    ck_assert_int_eq(seen[1].i, 7);
    refuses("pins", "{\"any\":99}", "any", "no pin 99 on this board");
    refuses("pins", "{\"in\":2}", "in",
            "pin 2 (led) is digital_output; this tool needs digital_input or adc_input");
    fw_device_pin_note_mode(&dev, 1, HAL_PIN_OUTPUT);
    accepts("pins", "{\"out\":4}");
}
END_TEST

START_TEST(test_binding)
{
    refuses("nums", "", "i", "required parameter missing");
    refuses("nums", "{\"i\":1,\"zzz\":2}", "zzz", "unknown parameter");
    refuses("nums", "{\"i\":1,\"i\":2}", "i", "given more than once");
    accepts("nums", "[3,4]");
    ck_assert_int_eq(seen[1].i, 4);
    refuses("nums", "[1,2,3,4]", "params", "takes at most 3 parameters (got 4)");
    refuses("none", "[1]", "params", "takes at most 0 parameters (got 1)");
}
END_TEST

/* One issue is listed (FW_ISSUES_MAX); the message counts the others. */
START_TEST(test_issues_collected)
{
    ck_assert_int_eq(FW_ISSUES_MAX, 1);
    const char *text = call("nums", "{\"big\":1.5,\"d\":true,\"q\":1}");
    json_t *j = json_loads(text, 0, NULL);
    json_t *err = json_object_get(j, "error");
    json_t *issues = json_object_get(json_object_get(err, "data"), "issues");
    ck_assert_uint_eq(json_array_size(issues), 1);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(issues, 0), "path")), "big");
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(err, "message")), "(and 3 more)"));
    json_decref(j);
}
END_TEST

#endif /* SCHEMA_FULL */

/* Binding through fw_schema_bind directly: the response state collects the issues. */
START_TEST(test_bind_direct)
{
    fw_json_doc_t doc;
    fw_json_tok_t toks[16];
    const char *text = "{\"i\":7}";
    ck_assert_int_eq(fw_json_parse(&doc, text, strlen(text), toks, 16, 4), FW_OK);
    fw_resp_t r;
    memset(&r, 0, sizeof r);
    fw_call_t c = {.dev = &dev, .tool = &tools[0], .priv = &r};
    ck_assert_int_eq(fw_schema_bind(&c, &doc, 0), FW_OK);
    ck_assert_int_eq(fw_call_arg(&c, "i")->i, 7);
    ck_assert_int_eq(fw_call_arg(&c, "d")->i, 42);
    ck_assert_ptr_null(fw_call_arg(&c, "nope"));
    ck_assert_uint_eq(r.issue_count, 0);
    ck_assert_int_eq(fw_schema_bind(&c, &doc, -1), FW_ERR_INVALID_PARAMS);
    ck_assert_uint_eq(r.issue_count, 1);
    ck_assert_str_eq(r.issues[0].path, "i");
    ck_assert_str_eq(r.message, "invalid params: i: required parameter missing");
}
END_TEST

/* Binds params (JSON text) for tool into a call whose arguments hold stale bytes (as a call
   slot can from the call before), as fw_schema_bind does for a request. */
static fw_err_t bind_stale(fw_call_t *c, fw_resp_t *r, const fw_tool_t *tool, const char *params)
{
    static fw_json_tok_t toks[32];
    static fw_json_doc_t doc;
    ck_assert_int_eq(fw_json_parse(&doc, params, strlen(params), toks, 32, 4), FW_OK);
    memset(r, 0, sizeof *r);
    memset(c, 0, sizeof *c);
    memset(c->args, 0xA5, sizeof c->args);
    c->dev = &dev;
    c->tool = tool;
    c->priv = r;
    return fw_schema_bind(c, &doc, 0);
}

/* An argument as the binder leaves it: the value given (or none) and every other field zero,
   whichever path bound it. */
static void arg_is(const fw_arg_t *a, bool present, int64_t i, int pin_index)
{
    ck_assert_int_eq(a->present, present);
    ck_assert_int_eq(a->i, i);
    ck_assert_uint_eq(a->pin_index, pin_index < 0 ? 0 : (unsigned)pin_index);
    ck_assert_ptr_eq(a->pin, pin_index < 0 ? NULL : &pins[pin_index]);
    ck_assert_ptr_null(a->str);
    ck_assert_ptr_null(a->bytes);
    ck_assert_uint_eq(a->len, 0);
#if FW_WITH_FLOAT
    ck_assert(a->num == 0.0);
#endif
}

/* Members in the parameters' order with values bound in place, and every way out of that: out
   of order, an escaped key, a key that only starts like a name, a value to report, a member
   given twice or more than the parameters, a default that is not simple. Each binds and reports
   as the general path does, and no argument keeps a stale byte. */
START_TEST(test_bind_in_place)
{
    fw_call_t c;
    fw_resp_t r;
    const fw_tool_t *pins_tool = &tools[2], *nums_tool = &tools[0];
    ck_assert_str_eq(pins_tool->name, "pins");
    /* all given, in order */
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"out\":2,\"any\":18,\"in\":4}"), FW_OK);
    arg_is(&c.args[0], true, 2, 0);
    arg_is(&c.args[1], true, 18, 2);
    arg_is(&c.args[2], true, 4, 1);
    /* the last one's default is a pin: filled by the general path */
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"out\":2,\"any\":7}"), FW_OK);
    arg_is(&c.args[0], true, 2, 0);
    arg_is(&c.args[1], true, 7, 4);
    arg_is(&c.args[2], true, 34, 3);
    /* out of order, and an escaped key: the same arguments */
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"any\":18,\"o\\u0075t\":2}"), FW_OK);
    arg_is(&c.args[0], true, 2, 0);
    arg_is(&c.args[1], true, 18, 2);
    arg_is(&c.args[2], true, 34, 3);
    /* a pin by name after one bound in place */
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"out\":2,\"any\":\"fan\"}"), FW_OK);
    arg_is(&c.args[1], true, 18, 2);
    /* an integer without a default after the given members stays absent; a simple default is
       filled */
    ck_assert_int_eq(bind_stale(&c, &r, nums_tool, "{\"i\":-5}"), FW_OK);
    arg_is(&c.args[0], true, -5, -1);
    for (unsigned k = 1; k < nums_tool->param_count; k++) {
        const fw_param_t *p = &nums_tool->params[k];
        if (strcmp(p->name, "d") == 0) {
            arg_is(&c.args[k], true, 42, -1);
        } else if (p->type == FW_PARAM_INTEGER) {
            arg_is(&c.args[k], false, 0, -1);
        } else {
            ck_assert_int_eq(c.args[k].present, p->has_default);
        }
    }
    ck_assert_int_eq(bind_stale(&c, &r, nums_tool, "{\"i\":255}"), FW_OK);
    arg_is(&c.args[0], true, 255, -1);
    /* keys that start like a name, or that a name starts like */
    static const char *const near[] = {"{\"o\":2}",    "{\"ou\":2}",     "{\"outx\":2}",
                                       "{\"out2\":2}", "{\"anyone\":2}", "{\"outputs\":2}",
                                       "{\"\":2}"};
    for (size_t k = 0; k < FW_ARRAY_LEN(near); k++) {
        ck_assert_int_eq(bind_stale(&c, &r, pins_tool, near[k]), FW_ERR_INVALID_PARAMS);
        ck_assert_uint_eq(r.issue_count, 1);
        ck_assert_str_eq(r.issues[0].message, "unknown parameter");
        arg_is(&c.args[0], false, 0, -1);
        arg_is(&c.args[2], true, 34, 3);
    }
    /* a value to report after one bound in place: the first stays bound, the rest cleared */
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"out\":2,\"any\":99}"),
                     FW_ERR_INVALID_PARAMS);
    ck_assert_uint_eq(r.issue_count, 1);
    ck_assert_str_eq(r.issues[0].path, "any");
    ck_assert_str_eq(r.issues[0].message, "no pin 99 on this board");
    arg_is(&c.args[0], true, 2, 0);
    arg_is(&c.args[1], false, 0, -1);
    refuses("pins", "{\"out\":4}", "out",
            "pin 4 (button) is digital_input; this tool needs digital_output");
    refuses("pins", "{\"out\":-2}", "out", "no pin -2 on this board");
    refuses("pins", "{\"out\":10000}", "out", "no pin 10000 on this board");
    refuses("pins", "{\"out\":2,\"any\":2.5}", "any", "must be a pin number or name (got 2.5)");
    refuses("nums", "{\"i\":256}", "i", "must be <= 255");
    refuses("nums", "{\"i\":1234567890}", "i", "must be <= 255");
    /* given twice, and more members than parameters */
    refuses("pins", "{\"out\":2,\"out\":2}", "out", "given more than once");
    refuses("pins", "{\"out\":2,\"any\":18,\"in\":4,\"zz\":1}", "zz", "unknown parameter");
    ck_assert_int_eq(bind_stale(&c, &r, pins_tool, "{\"out\":2,\"any\":18,\"in\":4,\"in\":4}"),
                     FW_ERR_INVALID_PARAMS);
    ck_assert_uint_eq(r.issue_count, 1);
    ck_assert_str_eq(r.issues[0].message, "given more than once");
    arg_is(&c.args[2], true, 4, 1);
    /* a required parameter missing after the given ones */
    refuses("nums", "{}", "i", "required parameter missing");
}
END_TEST

/* ---------------------------------------------------------------- published schema */

static json_t *list_tools(void)
{
    static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\",\"params\":{"
                              "\"with_user_tools\":true}}";
    json_error_t e;
    cap_reset(&out);
    ck_assert(fw_device_handle(&dev, msg, strlen(msg), cap_sink(&out)));
    json_t *j = json_loads(out.buf, 0, &e);
    ck_assert_msg(j != NULL, "%s", e.text);
    return j;
}

static json_t *schema_of(json_t *list, const char *name)
{
    json_t *tl = json_object_get(json_object_get(list, "result"), "tools");
    for (size_t i = 0; i < json_array_size(tl); i++) {
        json_t *t = json_array_get(tl, i);
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return json_object_get(t, "inputSchema");
    }
    ck_abort_msg("tool %s not listed", name);
    return NULL;
}

static json_t *prop(json_t *schema, const char *name)
{
    json_t *p = json_object_get(json_object_get(schema, "properties"), name);
    ck_assert_msg(p != NULL, "no property %s", name);
    return p;
}

static void check_keys(json_t *obj, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n] != NULL; n++)
        ck_assert_msg(json_object_get(obj, keys[n]) != NULL, "%s", keys[n]);
    ck_assert_uint_eq(json_object_size(obj), n);
}

static void check_int(json_t *obj, const char *key, json_int_t v)
{
    json_t *x = json_object_get(obj, key);
    ck_assert_msg(json_is_integer(x), "%s is not an integer", key);
    ck_assert_int_eq(json_integer_value(x), v);
}

static void check_str(json_t *obj, const char *key, const char *v)
{
    ck_assert_str_eq(json_string_value(json_object_get(obj, key)), v);
}

#if SCHEMA_FULL
START_TEST(test_schema_envelope)
{
    json_t *l = list_tools();
    json_t *s = schema_of(l, "nums");
    check_keys(
        s, (const char *const[]){"type", "properties", "required", "additionalProperties", NULL});
    check_str(s, "type", "object");
    ck_assert(json_is_false(json_object_get(s, "additionalProperties")));
    json_t *req = json_object_get(s, "required");
    ck_assert_uint_eq(json_array_size(req), 1);
    ck_assert_str_eq(json_string_value(json_array_get(req, 0)), "i");
    ck_assert_uint_eq(json_object_size(json_object_get(s, "properties")), 5);
    json_t *none = schema_of(l, "none");
    ck_assert_uint_eq(json_object_size(json_object_get(none, "properties")), 0);
    ck_assert_uint_eq(json_array_size(json_object_get(none, "required")), 0);
    json_decref(l);
}
END_TEST

START_TEST(test_schema_numbers)
{
    json_t *l = list_tools();
    json_t *s = schema_of(l, "nums");
    json_t *i = prop(s, "i");
    check_keys(i, (const char *const[]){"type", "description", "minimum", "maximum", NULL});
    check_str(i, "type", "integer");
    check_str(i, "description", "an integer");
    check_int(i, "minimum", -5);
    check_int(i, "maximum", 255);
    json_t *n = prop(s, "n");
    check_str(n, "type", "number");
    ck_assert(json_is_real(json_object_get(n, "minimum")));
    ck_assert(json_real_value(json_object_get(n, "minimum")) == 0.5);
    ck_assert(json_real_value(json_object_get(n, "maximum")) == 10.25);
    check_keys(prop(s, "big"), (const char *const[]){"type", NULL});
    json_t *d = prop(s, "d");
    check_keys(d, (const char *const[]){"type", "default", NULL});
    check_int(d, "default", 42);
    ck_assert(json_real_value(json_object_get(prop(s, "x"), "default")) == 1.5);
    json_decref(l);
}
END_TEST

START_TEST(test_schema_strings)
{
    json_t *l = list_tools();
    json_t *s = schema_of(l, "strs");
    json_t *str = prop(s, "s");
    check_keys(str, (const char *const[]){"type", "description", "minLength", "maxLength", NULL});
    check_str(str, "type", "string");
    check_int(str, "minLength", 2);
    check_int(str, "maxLength", 5);
    json_t *u = prop(s, "unit");
    check_keys(u, (const char *const[]){"type", "enum", "default", NULL});
    json_t *e = json_object_get(u, "enum");
    ck_assert_uint_eq(json_array_size(e), 2);
    ck_assert_str_eq(json_string_value(json_array_get(e, 0)), "C");
    ck_assert_str_eq(json_string_value(json_array_get(e, 1)), "F");
    check_str(u, "default", "C");
    json_t *b = prop(s, "b");
    check_str(b, "type", "boolean");
    ck_assert(json_is_true(json_object_get(b, "default")));
    json_decref(l);
}
END_TEST

START_TEST(test_schema_pins_and_bytes)
{
    json_t *l = list_tools();
    json_t *s = schema_of(l, "pins");
    json_t *o = prop(s, "out");
    check_keys(o, (const char *const[]){"type", "description", NULL});
    check_str(o, "type", "integer");
    const char *desc = json_string_value(json_object_get(o, "description"));
    ck_assert(strncmp(desc, "an output ", 10) == 0);
    /* MCP/U's schema says integer, so its description claims no names (MCP's oneOf does) */
    ck_assert_ptr_null(strstr(desc, "name"));
    ck_assert_ptr_nonnull(strstr(desc, "GPIO pin number"));
    ck_assert_ptr_nonnull(strstr(desc, "digital_output"));
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(prop(s, "any"), "description")), "pin number"));
    json_t *in = prop(s, "in");
    check_int(in, "default", 34);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(in, "description")),
                                 "digital_input or adc_input"));
    json_t *b = prop(schema_of(l, "bytes"), "data");
    check_keys(b,
               (const char *const[]){"type", "description", "items", "minItems", "maxItems", NULL});
    check_str(b, "type", "array");
    check_int(b, "minItems", 1);
    check_int(b, "maxItems", 4);
    json_t *items = json_object_get(b, "items");
    check_keys(items, (const char *const[]){"type", "minimum", "maximum", NULL});
    check_str(items, "type", "integer");
    check_int(items, "minimum", 0);
    check_int(items, "maximum", 255);
    json_decref(l);
}
END_TEST

#else

START_TEST(test_schema_compact)
{
    json_t *l = list_tools();
    json_t *s = schema_of(l, "nums");
    check_keys(
        s, (const char *const[]){"type", "properties", "required", "additionalProperties", NULL});
    check_str(s, "type", "object");
    ck_assert(json_is_false(json_object_get(s, "additionalProperties")));
    json_t *i = prop(s, "i");
    check_str(i, "type", "integer");
    check_int(i, "minimum", -5);
    check_int(i, "maximum", 255);
    check_int(prop(s, "d"), "default", 42);
    json_t *str = prop(schema_of(l, "strs"), "s");
    check_int(str, "minLength", 2);
    check_int(str, "maxLength", 5);
    json_t *u = prop(schema_of(l, "strs"), "unit");
    ck_assert_uint_eq(json_array_size(json_object_get(u, "enum")), 2);
    ck_assert(json_is_true(json_object_get(prop(schema_of(l, "strs"), "b"), "default")));
    check_int(prop(schema_of(l, "pins"), "in"), "default", 34);
    json_decref(l);
}
END_TEST

#endif

/* ---------------------------------------------------------------- the property */

/*
 * For every tool a device lists (built-ins, drivers, applications and the tools above): the
 * call made of its published schema (every default as published; required parameters given the
 * smallest allowed value, the first enum value, or a pin of an accepted type) passes binding,
 * and replacing any one parameter's value with a value of the wrong JSON type fails it with
 * that parameter named.
 */

/* A pin whose current type param accepts. */
static int pin_for(const fw_device_t *d, const fw_param_t *p)
{
    const fw_board_t *b = fw_device_board(d);
    for (int i = 0; i < b->pin_count; i++)
        if (p->pin_types == 0 ||
            (p->pin_types & FW_PINMASK(fw_device_pin_state(d, (uint8_t)i)->type)))
            return b->pins[i].number;
    return -1;
}

static json_t *value_for(const fw_device_t *d, const fw_param_t *p, json_t *ps)
{
    json_t *def = json_object_get(ps, "default");
    if (def != NULL) return json_incref(def);
    const char *type = json_string_value(json_object_get(ps, "type"));
    if (p->type == FW_PARAM_PIN) return json_integer(pin_for(d, p));
    if (strcmp(type, "boolean") == 0) return json_false();
    if (strcmp(type, "string") == 0) {
        json_t *e = json_object_get(ps, "enum");
        if (e != NULL) return json_incref(json_array_get(e, 0));
        json_int_t n = json_integer_value(json_object_get(ps, "minLength"));
        char buf[64] = "";
        memset(buf, 'a', (size_t)(n > 0 ? n : 1));
        return json_string(buf);
    }
    if (strcmp(type, "array") == 0) {
        json_t *a = json_array();
        json_int_t n = json_integer_value(json_object_get(ps, "minItems"));
        for (json_int_t i = 0; i < (n > 0 ? n : 1); i++) json_array_append_new(a, json_integer(0));
        return a;
    }
    json_t *min = json_object_get(ps, "minimum");
    if (min != NULL) return json_incref(min);
    json_t *max = json_object_get(ps, "maximum");
    if (max != NULL && json_number_value(max) < 0) return json_incref(max);
    return json_integer(0);
}

static fw_err_t bind_text(fw_device_t *d, const fw_tool_t *t, const char *text, fw_resp_t *r)
{
    static fw_json_doc_t doc;
    static fw_json_tok_t toks[FW_JSON_TOKENS_MAX];
    ck_assert_int_eq(fw_json_parse(&doc, text, strlen(text), toks, FW_JSON_TOKENS_MAX, 8), FW_OK);
    memset(r, 0, sizeof *r);
    d->scratch_used = 0;
    fw_call_t c = {.dev = d, .tool = t, .priv = r};
    return fw_schema_bind(&c, &doc, 0);
}

static unsigned check_all_tools(fw_device_t *d)
{
    json_error_t e;
    static const char msg[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"list_tools\",\"params\":{"
                              "\"with_user_tools\":true}}";
    cap_reset(&out);
    ck_assert(fw_device_handle(d, msg, strlen(msg), cap_sink(&out)));
    json_t *l = json_loads(out.buf, 0, &e);
    json_t *tl = json_object_get(json_object_get(l, "result"), "tools");
    unsigned checked = 0;
    for (size_t i = 0; i < json_array_size(tl); i++) {
        json_t *tj = json_array_get(tl, i);
        const fw_tool_t *t = fw_device_find_tool(d, json_string_value(json_object_get(tj, "name")));
        ck_assert_ptr_nonnull(t);
        json_t *props = json_object_get(json_object_get(tj, "inputSchema"), "properties");
        ck_assert_uint_eq(json_object_size(props), t->param_count);
        json_t *args = json_object();
        for (size_t k = 0; k < t->param_count; k++) {
            json_t *ps = json_object_get(props, t->params[k].name);
            ck_assert_ptr_nonnull(ps);
            json_object_set_new(args, t->params[k].name, value_for(d, &t->params[k], ps));
        }
        fw_resp_t r;
        char *text = json_dumps(args, JSON_COMPACT);
        ck_assert_msg(bind_text(d, t, text, &r) == FW_OK, "%s refuses %s: %s", t->name, text,
                      r.message);
        free(text);
        for (size_t k = 0; k < t->param_count; k++) {
            json_t *bad = json_deep_copy(args);
            json_object_set_new(bad, t->params[k].name, json_object());
            text = json_dumps(bad, JSON_COMPACT);
            ck_assert_msg(bind_text(d, t, text, &r) == FW_ERR_INVALID_PARAMS, "%s accepts %s",
                          t->name, text);
            ck_assert_str_eq(r.issues[0].path, t->params[k].name);
            free(text);
            json_decref(bad);
        }
        json_decref(args);
        checked++;
    }
    json_decref(l);
    return checked;
}

START_TEST(test_property_test_board)
{
    ck_assert_uint_ge(check_all_tools(&dev), FW_ARRAY_LEN(tools));
}
END_TEST

START_TEST(test_property_shipped_boards)
{
    static fw_device_t d;
    static mock_hal_t h;
    const fw_board_t *boards[] = {
        test_board_esp32_demo(),
#if FW_WITH_I2C && FW_WITH_SAMPLING
        test_board_greenhouse_min(),
#endif
    };
    for (size_t b = 0; b < FW_ARRAY_LEN(boards); b++) {
        mock_hal_init(&h);
        ck_assert_int_eq(fw_device_init(&d, boards[b], &mock_hal_api, &h), FW_OK);
        ck_assert_uint_eq(check_all_tools(&d), fw_device_tool_count(&d));
    }
}
END_TEST

/* ---------------------------------------------------------------- suite */

static Suite *schema_suite(void)
{
    Suite *s = suite_create("schema");
    TCase *v = tcase_create("validation");
    tcase_add_checked_fixture(v, setup, NULL);
#if SCHEMA_FULL
    tcase_add_test(v, test_integer);
    tcase_add_test(v, test_integer_int64_edges);
#if FW_WITH_INT64
    tcase_add_test(v, test_integer_range_past_2_pow_53_is_exact);
#endif
    tcase_add_test(v, test_number);
    tcase_add_test(v, test_defaults_filled);
    tcase_add_test(v, test_default_pin_missing_from_board);
    tcase_add_test(v, test_boolean);
    tcase_add_test(v, test_string);
    tcase_add_test(v, test_string_scratch_limit);
    tcase_add_test(v, test_enum);
    tcase_add_test(v, test_pin_by_number_and_name);
    tcase_add_test(v, test_pin_refusals);
    tcase_add_test(v, test_pin_long_name_cut);
    tcase_add_test(v, test_pin_type_follows_runtime_type);
    tcase_add_test(v, test_bytes);
    tcase_add_test(v, test_bytes_scratch_limit);
    tcase_add_test(v, test_required_missing);
    tcase_add_test(v, test_unknown_and_meta);
    tcase_add_test(v, test_unknown_long_name_cut);
    tcase_add_test(v, test_duplicate_member);
    tcase_add_test(v, test_positional);
    tcase_add_test(v, test_issues_collected);
#else
    tcase_add_test(v, test_integer);
    tcase_add_test(v, test_integer_int32_edges);
    tcase_add_test(v, test_defaults_filled);
    tcase_add_test(v, test_strings_enums_and_booleans);
    tcase_add_test(v, test_string_scratch_limit);
    tcase_add_test(v, test_pins);
    tcase_add_test(v, test_binding);
    tcase_add_test(v, test_issues_collected);
#endif
    tcase_add_test(v, test_bind_direct);
    tcase_add_test(v, test_bind_in_place);
    suite_add_tcase(s, v);

    TCase *p = tcase_create("published");
    tcase_add_checked_fixture(p, setup, NULL);
#if SCHEMA_FULL
    tcase_add_test(p, test_schema_envelope);
    tcase_add_test(p, test_schema_numbers);
    tcase_add_test(p, test_schema_strings);
    tcase_add_test(p, test_schema_pins_and_bytes);
#else
    tcase_add_test(p, test_schema_compact);
#endif
    tcase_add_test(p, test_property_test_board);
    tcase_add_test(p, test_property_shipped_boards);
    suite_add_tcase(s, p);
    return s;
}

TEST_MAIN(schema_suite)
