/* test_voice.c: the voice-assistant's self.* tools (apps/voice.c) on the generated board, with
   the codec as a mock I2C register file: volume mapping, the seed's result shapes, failures. */
#include "apps.h"
#include "test_harness.h"

#if FW_WITH_MCP && FW_WITH_I2C
#include "board_voice_assistant.h"

#define CODEC_ADDR 0x18
#define REG_VOLUME 0x32
#define BATTERY_PIN 1
#define CHARGING_PIN 38

static mock_i2c_dev_t *codec;

static void setup(void)
{
    harness_reset();
    codec = mock_hal_add_i2c(&mock, 0, CODEC_ADDR, 1, 256, 0);
    codec->mem[0xFD] = 0x83;
    harness_start(&fw_board_voice_assistant, &mock_hal_api);
}

/* The text of the seed's result {content: [{type: text, text}], isError: false}. */
static const char *text_result(json_t *result)
{
    ck_assert(json_is_false(json_object_get(result, "isError")));
    json_t *block = json_array_get(json_object_get(result, "content"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(block, "type")), "text");
    return json_string_value(json_object_get(block, "text"));
}

START_TEST(volume_maps_onto_the_dac_register_and_back_exactly)
{
    for (unsigned v = 0; v <= 100; v++) {
        uint8_t reg = voice_volume_to_reg(v);
        ck_assert_uint_le(reg, 0xBF);
        ck_assert_uint_eq(voice_reg_to_volume(reg), v);
    }
    ck_assert_uint_eq(voice_volume_to_reg(100), 0xBF); /* 0 dB */
    ck_assert_uint_eq(voice_volume_to_reg(0), 0);
    ck_assert_uint_eq(voice_reg_to_volume(0xFF), 100); /* above 0 dB reads as full */
}
END_TEST

START_TEST(set_volume_writes_the_codec_and_answers_true)
{
    ck_assert_str_eq(text_result(ok("self.audio_speaker.set_volume", "{'volume':40}")), "true");
    ck_assert_uint_eq(codec->mem[REG_VOLUME], voice_volume_to_reg(40));
    rpc_error("self.audio_speaker.set_volume", "{'volume':101}", -32602);
    rpc_error("self.audio_speaker.set_volume", "{}", -32602);
    ck_assert_uint_eq(codec->mem[REG_VOLUME], voice_volume_to_reg(40));
}
END_TEST

START_TEST(set_brightness_drives_the_backlight_pwm)
{
    ck_assert_str_eq(text_result(ok("self.screen.set_brightness", "{'brightness':60}")), "true");
    ck_assert_uint_eq(mock.pins[42].duty, 153);
    ck_assert_uint_gt(mock.pins[42].freq_hz, 0);
}
END_TEST

START_TEST(device_status_reads_codec_backlight_battery_and_charger)
{
    codec->mem[REG_VOLUME] = 96;       /* 50 % */
    mock.pins[BATTERY_PIN].adc = 2420; /* 1.95 V at the divider: 3.9 V, two thirds full */
    mock.pins[CHARGING_PIN].level = true;
    ok("self.screen.set_brightness", "{'brightness':30}");
    json_t *status = json_loads(text_result(ok("self.get_device_status", NULL)), 0, NULL);
    ck_assert_ptr_nonnull(status);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(status, "audio_speaker"), "volume")),
        50);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(status, "screen"), "brightness")), 30);
    json_t *battery = json_object_get(status, "battery");
    ck_assert_int_eq(json_integer_value(json_object_get(battery, "level")), 66);
    ck_assert(json_is_true(json_object_get(battery, "charging")));
    json_decref(status);
}
END_TEST

START_TEST(a_codec_that_does_not_answer_is_an_error_naming_it)
{
    codec->fail = FW_ERR_I2C_NACK;
    json_t *err = json_object_get(rpc("self.audio_speaker.set_volume", "{'volume':10}"), "error");
    ck_assert_msg(json_is_object(err), "no error: %s", out.buf);
    ck_assert_msg(strstr(json_string_value(json_object_get(err, "message")), "audio codec"), "%s",
                  out.buf);
    err = json_object_get(rpc("self.get_device_status", NULL), "error");
    ck_assert_msg(json_is_object(err), "no error: %s", out.buf);
}
END_TEST

START_TEST(user_only_tools_are_hidden_from_plain_listings)
{
    const fw_tool_t *info = fw_device_find_tool(&dev, "self.get_system_info");
    ck_assert_ptr_nonnull(info);
    ck_assert(info->flags & FW_TOOL_USER_ONLY);
    ck_assert(!(fw_device_find_tool(&dev, "self.get_device_status")->flags & FW_TOOL_USER_ONLY));
    json_t *r = ok("self.get_system_info", NULL);
    ck_assert_int_eq(int_at(r, "codec_chip_id"), 0x83);
    ck_assert_str_eq(json_string_value(json_object_get(r, "board")), "voice-assistant");
    r = ok("self.screen.get_info", NULL);
    ck_assert_int_eq(int_at(r, "width"), 240);
}
END_TEST

static Suite *voice_suite(void)
{
    Suite *s = suite_create("voice");
    TCase *tc = tcase_create("voice");
    tcase_add_checked_fixture(tc, setup, harness_teardown);
    tcase_add_test(tc, volume_maps_onto_the_dac_register_and_back_exactly);
    tcase_add_test(tc, set_volume_writes_the_codec_and_answers_true);
    tcase_add_test(tc, set_brightness_drives_the_backlight_pwm);
    tcase_add_test(tc, device_status_reads_codec_backlight_battery_and_charger);
    tcase_add_test(tc, a_codec_that_does_not_answer_is_an_error_naming_it);
    tcase_add_test(tc, user_only_tools_are_hidden_from_plain_listings);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(voice_suite)
#else
int main(void)
{
    return 0; /* the voice-assistant needs MCP and I2C: not in this profile */
}
#endif
