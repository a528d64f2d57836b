/* mcp_resources.c: MCP resources: device://info and pin://<name> (list, templates, read,
   subscribe, unsubscribe). */
#include <string.h>

#include "mcp_internal.h"

/*
 * device://info is get_info's result; pin://<name> is a pin's registry entry (as list_tools
 * shows it) with its value read through the HAL at that moment and, for a sampled pin, its
 * summary. Pins are named by their registry name only, so each resource has one URI and the
 * updates of a subscription name the URI that was subscribed.
 */

#define DEVICE_URI "device://info"
#define PIN_SCHEME "pin://"
#define URI_MAX 96
#define JSON_MIME "application/json"

int fw_mcp_resource_find(const fw_device_t *dev, const char *uri)
{
    if (strcmp(uri, DEVICE_URI) == 0) return FW_PINS_MAX;
    if (strncmp(uri, PIN_SCHEME, sizeof PIN_SCHEME - 1u) != 0) return -1;
    const char *name = uri + sizeof PIN_SCHEME - 1u;
    for (int i = 0; i < dev->board->pin_count; i++)
        if (strcmp(dev->board->pins[i].name, name) == 0) return i;
    return -1;
}

void fw_mcp_write_pin_uri(fw_jw_t *w, const fw_pin_def_t *def)
{
    fw_jw_str_begin(w);
    fw_mcp_chunk(w, PIN_SCHEME);
    fw_mcp_chunk(w, def->name);
    fw_jw_str_end(w);
}

static const char *type_of(const fw_device_t *dev, size_t i)
{
    const char *name = fw_pin_type_name((fw_pin_type_t)dev->pins[i].type);
    return name != NULL ? name : "";
}

/* ---------------------------------------------------------------- reading a pin */

static bool is_digital(uint8_t type)
{
    return type == FW_PIN_DIGITAL_OUTPUT || type == FW_PIN_DIGITAL_INPUT;
}

fw_err_t fw_mcp_read_pin(fw_device_t *dev, size_t i, fw_mcp_reading_t *rd)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_pin_state_t *st = &dev->pins[i];
    memset(rd, 0, sizeof *rd);
    if (is_digital(st->type)) {
        rd->err = fw_hal_gpio_read(dev, def->number, &rd->level);
        if (rd->err == FW_OK) {
            st->have_level = true;
            st->level = rd->level;
        }
    } else if (st->type == FW_PIN_ADC_INPUT) {
        rd->err = fw_hal_adc_read(dev, def->number, &rd->raw);
    }
    return rd->err;
}

static void write_value(fw_jw_t *w, const fw_device_t *dev, size_t i, const fw_mcp_reading_t *rd)
{
    const fw_pin_state_t *st = &dev->pins[i];
    if (rd->err != FW_OK) {
        fw_jw_key(w, "value");
        fw_jw_null(w);
        fw_jw_kv_str(w, "error", fw_err_str(rd->err));
    } else if (is_digital(st->type)) {
        fw_jw_kv_bool(w, "value", rd->level);
    } else if (st->type == FW_PIN_ADC_INPUT) {
        fw_jw_kv_i64(w, "value", rd->raw);
        fw_adc_write_scaled(w, dev->board, rd->raw);
    } else {
        fw_jw_kv_i64(w, "duty", st->duty);
    }
}

static void write_summary(fw_jw_t *w, const fw_device_t *dev, size_t i)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    const fw_pin_state_t *st = &dev->pins[i];
    fw_jw_key(w, "summary");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "count", st->count);
    fw_write_pin_stats(w, dev, def, st);
    fw_jw_obj_end(w);
}

void fw_mcp_write_pin_text(fw_jw_t *w, const fw_device_t *dev, size_t i, const fw_mcp_reading_t *rd)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_jw_t inner;
    fw_jw_str_begin(w);
    fw_jw_init(&inner, fw_jw_string_sink(w));
    fw_jw_obj_begin(&inner);
    fw_write_pin_members(&inner, def, dev->pins[i].type);
    write_value(&inner, dev, i, rd);
    if (fw_pin_sampled(def)) write_summary(&inner, dev, i);
    fw_jw_obj_end(&inner);
    fw_jw_flush(&inner);
    fw_jw_str_end(w);
}

static void write_device_text(fw_jw_t *w, const fw_device_t *dev)
{
    fw_jw_t inner;
    fw_jw_str_begin(w);
    fw_jw_init(&inner, fw_jw_string_sink(w));
    fw_jw_obj_begin(&inner);
    fw_write_device_info(&inner, dev->board);
    fw_jw_obj_end(&inner);
    fw_jw_flush(&inner);
    fw_jw_str_end(w);
}

/* ---------------------------------------------------------------- methods */

static void write_pin_resource(fw_jw_t *w, const fw_device_t *dev, size_t i)
{
    const fw_pin_def_t *def = &dev->board->pins[i];
    fw_jw_obj_begin(w);
    fw_jw_key(w, "uri");
    fw_mcp_write_pin_uri(w, def);
    fw_jw_kv_str(w, "name", def->name);
    fw_jw_key(w, "description");
    fw_jw_str_begin(w);
    if (def->description != NULL && def->description[0] != 0)
        fw_mcp_chunkf(w, "%s: ", def->description);
    fw_mcp_chunkf(w, "%s on pin %u", type_of(dev, i), (unsigned)def->number);
    if (fw_pin_sampled(def))
        fw_mcp_chunkf(w, ", sampled every %u ms", (unsigned)def->sample_interval_ms);
    fw_jw_str_end(w);
    fw_jw_kv_str(w, "mimeType", JSON_MIME);
    fw_jw_obj_end(w);
}

/* Every resource fits one page: the cursor is accepted and ignored. */
fw_err_t fw_mcp_resources_list(fw_mcp_req_t *q)
{
    const fw_device_t *dev = q->dev;
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "resources");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", DEVICE_URI);
    fw_jw_kv_str(w, "name", "device");
    fw_jw_kv_str(w, "description", "Device name, firmware version, platform and pin count");
    fw_jw_kv_str(w, "mimeType", JSON_MIME);
    fw_jw_obj_end(w);
    for (size_t i = 0; i < dev->board->pin_count; i++) write_pin_resource(w, dev, i);
    fw_jw_arr_end(w);
    return FW_OK;
}

fw_err_t fw_mcp_resources_templates(fw_mcp_req_t *q)
{
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "resourceTemplates");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uriTemplate", FW_MCP_PIN_TEMPLATE);
    fw_jw_kv_str(w, "name", "pin");
    fw_jw_kv_str(w, "description",
                 "A pin of the registry by name: its type, current value and sampling summary");
    fw_jw_kv_str(w, "mimeType", JSON_MIME);
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

/* The resource named by params.uri: its index (as fw_mcp_resource_find), or an error. */
static fw_err_t find_uri(fw_mcp_req_t *q, char *uri, int *idx)
{
    fw_err_t err = fw_mcp_string(q, q->params, "uri", "uri", true, uri, URI_MAX);
    if (err != FW_OK) return err;
    *idx = fw_mcp_resource_find(q->dev, uri);
    if (*idx < 0)
        return fw_call_errorf(q->call, FW_ERR_RESOURCE_NOT_FOUND, "Resource not found: %s", uri);
    return FW_OK;
}

/* A pin that cannot be read is a hardware error of the request, as in the pin's tools. */
fw_err_t fw_mcp_resources_read(fw_mcp_req_t *q)
{
    char uri[URI_MAX];
    int idx;
    fw_mcp_reading_t rd = {FW_OK, false, 0};
    fw_err_t err = find_uri(q, uri, &idx);
    if (err != FW_OK) return err;
    if (idx < FW_PINS_MAX && fw_mcp_read_pin(q->dev, (size_t)idx, &rd) != FW_OK) {
        const fw_pin_def_t *def = &q->dev->board->pins[idx];
        return fw_call_errorf(q->call, rd.err, "reading pin %u (%s) failed: %s",
                              (unsigned)def->number, def->name, fw_err_str(rd.err));
    }
    fw_jw_t *w = fw_call_result(q->call);
    fw_jw_key(w, "contents");
    fw_jw_arr_begin(w);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "uri", uri);
    fw_jw_kv_str(w, "mimeType", JSON_MIME);
    fw_jw_key(w, "text");
    if (idx == FW_PINS_MAX) {
        write_device_text(w, q->dev);
    } else {
        fw_mcp_write_pin_text(w, q->dev, (size_t)idx, &rd);
    }
    fw_jw_obj_end(w);
    fw_jw_arr_end(w);
    return FW_OK;
}

static fw_err_t subscription(fw_mcp_req_t *q, bool on)
{
    char uri[URI_MAX];
    int idx;
    fw_err_t err = find_uri(q, uri, &idx);
    if (err != FW_OK) return err;
    uint32_t bit = idx == FW_PINS_MAX ? FW_SUB_DEVICE : 1u << idx;
    if (on) {
        q->session->subscriptions |= bit;
    } else {
        q->session->subscriptions &= ~bit;
    }
    fw_call_result(q->call);
    return FW_OK;
}

fw_err_t fw_mcp_resources_subscribe(fw_mcp_req_t *q)
{
    return subscription(q, true);
}

fw_err_t fw_mcp_resources_unsubscribe(fw_mcp_req_t *q)
{
    return subscription(q, false);
}
