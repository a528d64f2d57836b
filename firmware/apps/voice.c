/* voice.c: the voice-assistant board's self.* tools (seed 003): speaker volume on an ES8311
   codec over I2C, screen brightness on a PWM backlight, battery and charger, system info. */
#include "apps.h"
#include "fw_device.h"
#include "fw_driver.h"

#if FW_WITH_MCP && FW_WITH_I2C

/*
 * The hardware, as a product's board header would name it. The codec's DAC volume register
 * (0x32) holds 0.5 dB steps from -95.5 dB (0x00) to 0 dB (0xBF); the tools' 0..100 maps onto
 * 0..0xBF linearly and back (voice_volume_to_reg / voice_reg_to_volume round trip exactly).
 * The battery is read through a 1:2 divider on an ADC pin (3.3 V empty .. 4.2 V full); the
 * charger's status line reads high while charging. The backlight is a PWM pin, duty 0..255.
 */
typedef struct voice_hw {
    uint8_t codec_bus, codec_addr;
    const char *backlight, *battery, *charging; /* pin names in the board's registry */
    uint16_t screen_width, screen_height;
} voice_hw_t;

static const voice_hw_t voice_hw = {0, 0x18, "backlight", "battery", "charging", 240, 240};

#define CODEC_REG_DAC_VOLUME 0x32u
#define CODEC_REG_CHIP_ID1 0xFDu
#define CODEC_VOLUME_REG_MAX 0xBFu /* 0 dB */
#define BATTERY_EMPTY_MV 3300u
#define BATTERY_FULL_MV 4200u
#define BACKLIGHT_HZ 25000u

uint8_t voice_volume_to_reg(unsigned volume)
{
    return (uint8_t)((volume * CODEC_VOLUME_REG_MAX + 50u) / 100u);
}

unsigned voice_reg_to_volume(uint8_t reg)
{
    unsigned r = reg > CODEC_VOLUME_REG_MAX ? CODEC_VOLUME_REG_MAX : reg;
    return (r * 100u + CODEC_VOLUME_REG_MAX / 2u) / CODEC_VOLUME_REG_MAX;
}

/* The registry index of the pin named name, or -1 when the board has none. */
static int pin_named(const fw_device_t *dev, const char *name)
{
    const fw_board_t *b = fw_device_board(dev);
    for (size_t i = 0; i < b->pin_count; i++) {
        const char *p = b->pins[i].name, *q = name;
        while (*p && *p == *q) p++, q++;
        if (*p == 0 && *q == 0) return (int)i;
    }
    return -1;
}

static fw_err_t need_pin(fw_call_t *call, const char *name, int *index)
{
    *index = pin_named(call->dev, name);
    if (*index >= 0) return FW_OK;
    return fw_call_errorf(call, FW_ERR_UNSUPPORTED, "this board has no pin named %s", name);
}

static fw_err_t codec_read(fw_call_t *call, const voice_hw_t *hw, uint8_t reg, uint8_t *value)
{
    return fw_i2c_call_xfer(call, "audio codec", hw->codec_bus, hw->codec_addr, &reg, 1, value, 1);
}

/* The seed's answer to a setter: one text block "true", isError false. */
static fw_err_t answer_text(fw_call_t *call, const char *text)
{
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_kv_str(w, "text", text);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "isError", false);
    return FW_OK;
}

/* ---------------------------------------------------------------- self.get_device_status */

typedef struct status {
    uint8_t volume_reg;
    uint8_t duty;
    uint32_t battery_mv;
    bool charging;
} status_t;

static fw_err_t read_status(fw_call_t *call, const voice_hw_t *hw, status_t *s)
{
    int bl, bat, chg;
    uint16_t raw = 0;
    fw_err_t err = codec_read(call, hw, CODEC_REG_DAC_VOLUME, &s->volume_reg);
    if (err == FW_OK) err = need_pin(call, hw->backlight, &bl);
    if (err == FW_OK) err = need_pin(call, hw->battery, &bat);
    if (err == FW_OK) err = need_pin(call, hw->charging, &chg);
    if (err != FW_OK) return err;
    const fw_board_t *b = fw_device_board(call->dev);
    s->duty = fw_device_pin_state(call->dev, (uint8_t)bl)->duty;
    err = fw_hal_adc_read(call->dev, b->pins[bat].number, &raw);
    if (err == FW_OK) err = fw_hal_gpio_read(call->dev, b->pins[chg].number, &s->charging);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "reading the battery failed: %s", fw_err_str(err));
    s->battery_mv = 2u * fw_adc_to_mv(b, raw);
    return FW_OK;
}

static unsigned battery_level(uint32_t mv)
{
    if (mv <= BATTERY_EMPTY_MV) return 0;
    if (mv >= BATTERY_FULL_MV) return 100;
    return (unsigned)((mv - BATTERY_EMPTY_MV) * 100u / (BATTERY_FULL_MV - BATTERY_EMPTY_MV));
}

/* The status document, streamed into the text block's string. */
static void write_status(fw_jw_t *w, const status_t *s)
{
    fw_jw_obj_begin(w);
    fw_jw_key(w, "audio_speaker");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "volume", voice_reg_to_volume(s->volume_reg));
    fw_jw_obj_end(w);
    fw_jw_key(w, "screen");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "brightness", (s->duty * 100u + 127u) / 255u);
    fw_jw_obj_end(w);
    fw_jw_key(w, "battery");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "level", battery_level(s->battery_mv));
    fw_jw_kv_bool(w, "charging", s->charging);
    fw_jw_obj_end(w);
    fw_jw_obj_end(w);
}

static fw_err_t get_device_status_fn(fw_call_t *call)
{
    status_t s;
    fw_err_t err = read_status(call, call->tool->user, &s);
    if (err != FW_OK) return err;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_key(w, "content");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", "text");
    fw_jw_key(w, "text");
    fw_jw_str_begin(w);
    fw_jw_t inner;
    fw_jw_init(&inner, fw_jw_string_sink(w));
    write_status(&inner, &s);
    fw_jw_flush(&inner);
    fw_jw_str_end(w);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "isError", false);
    return FW_OK;
}

/* ---------------------------------------------------------------- setters */

static fw_err_t set_volume_fn(fw_call_t *call)
{
    const voice_hw_t *hw = call->tool->user;
    unsigned volume = (unsigned)fw_call_arg(call, "volume")->i;
    uint8_t tx[2] = {CODEC_REG_DAC_VOLUME, voice_volume_to_reg(volume)};
    fw_err_t err =
        fw_i2c_call_xfer(call, "audio codec", hw->codec_bus, hw->codec_addr, tx, 2, NULL, 0);
    return err != FW_OK ? err : answer_text(call, "true");
}

static fw_err_t set_brightness_fn(fw_call_t *call)
{
    const voice_hw_t *hw = call->tool->user;
    unsigned brightness = (unsigned)fw_call_arg(call, "brightness")->i;
    uint8_t duty = (uint8_t)((brightness * 255u + 50u) / 100u);
    int bl;
    fw_err_t err = need_pin(call, hw->backlight, &bl);
    if (err != FW_OK) return err;
    err = fw_hal_pwm_write(call->dev, fw_device_board(call->dev)->pins[bl].number, duty,
                           BACKLIGHT_HZ);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "setting the backlight failed: %s", fw_err_str(err));
    fw_device_pin_note_duty(call->dev, (uint8_t)bl, duty);
    return answer_text(call, "true");
}

/* ---------------------------------------------------------------- user-only tools */

static fw_err_t get_system_info_fn(fw_call_t *call)
{
    const voice_hw_t *hw = call->tool->user;
    hal_device_info_t info;
    uint8_t chip_id = 0;
    fw_err_t err = fw_hal_device_info(call->dev, &info);
    if (err != FW_OK)
        return fw_call_errorf(call, err, "reading the device info failed: %s", fw_err_str(err));
    err = codec_read(call, hw, CODEC_REG_CHIP_ID1, &chip_id);
    if (err != FW_OK) return err;
    const fw_board_t *b = fw_device_board(call->dev);
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_str(w, "board", b->device);
    fw_jw_kv_str(w, "firmware_version", b->version);
    fw_jw_kv_str(w, "chip", info.chip);
    fw_jw_kv_str(w, "mac", info.unique_id);
    fw_jw_kv_i64(w, "uptime_ms", (int64_t)fw_hal_now(call->dev));
    fw_jw_kv_i64(w, "codec_chip_id", chip_id);
    return FW_OK;
}

static fw_err_t screen_get_info_fn(fw_call_t *call)
{
    const voice_hw_t *hw = call->tool->user;
    fw_jw_t *w = fw_call_result(call);
    fw_jw_kv_i64(w, "width", hw->screen_width);
    fw_jw_kv_i64(w, "height", hw->screen_height);
    fw_jw_kv_bool(w, "monochrome", false);
    return FW_OK;
}

/* ---------------------------------------------------------------- descriptors */

static const fw_param_t volume_params[] = {
    {.name = "volume",
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 0,
     .max = 100,
     .description = FW_DESC("Speaker volume, 0 (silent) to 100 (loudest)")},
};

static const fw_param_t brightness_params[] = {
    {.name = "brightness",
     .type = FW_PARAM_INTEGER,
     .required = true,
     .has_min = true,
     .has_max = true,
     .min = 0,
     .max = 100,
     .description = FW_DESC("Backlight brightness in percent, 0 (off) to 100")},
};

const fw_tool_t fw_app_self_get_device_status = {
    .name = "self.get_device_status",
    .description = FW_DESC("The device's live state as JSON text: speaker volume, screen "
                           "brightness, battery level and charging. Read it before changing "
                           "any of them, or to answer questions about them."),
    .flags = FW_TOOL_READ_ONLY | FW_TOOL_MCP_RESULT,
    .handler = get_device_status_fn,
    .user = &voice_hw,
};

const fw_tool_t fw_app_self_audio_speaker_set_volume = {
    .name = "self.audio_speaker.set_volume",
    .description = FW_DESC("Set the speaker volume. Check the current volume with "
                           "self.get_device_status first when the change is relative."),
    .params = volume_params,
    .param_count = FW_ARRAY_LEN(volume_params),
    .flags = FW_TOOL_MCP_RESULT,
    .handler = set_volume_fn,
    .user = &voice_hw,
};

const fw_tool_t fw_app_self_screen_set_brightness = {
    .name = "self.screen.set_brightness",
    .description = FW_DESC("Set the screen's backlight brightness."),
    .params = brightness_params,
    .param_count = FW_ARRAY_LEN(brightness_params),
    .flags = FW_TOOL_MCP_RESULT,
    .handler = set_brightness_fn,
    .user = &voice_hw,
};

const fw_tool_t fw_app_self_get_system_info = {
    .name = "self.get_system_info",
    .description = FW_DESC("Board, firmware version, platform, uptime and the audio codec's "
                           "chip id (for the companion app, not the model)."),
    .flags = FW_TOOL_READ_ONLY | FW_TOOL_USER_ONLY,
    .handler = get_system_info_fn,
    .user = &voice_hw,
};

const fw_tool_t fw_app_self_screen_get_info = {
    .name = "self.screen.get_info",
    .description = FW_DESC("The screen's size in pixels and whether it is monochrome."),
    .flags = FW_TOOL_READ_ONLY | FW_TOOL_USER_ONLY,
    .handler = screen_get_info_fn,
    .user = &voice_hw,
};

#endif
