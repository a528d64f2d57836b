/* mcp_resources.c: MCP resources: device://info, pin://<name> and the application's
   (fw_device_add_resource): list, templates, read, subscribe, unsubscribe. */
#include <string.h>

#include "mcp_internal.h"

#if FW_WITH_MCP

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

/* Index of the application's resource k (fw_mcp_resource_find) and its subscription bit. */
#define EXTRA_BASE (FW_PINS_MAX + 1)
_Static_assert(EXTRA_BASE + FW_EXTRA_RESOURCES_MAX <= 32,
               "subscriptions are a uint32_t with a bit for every resource");

/* ---------------------------------------------------------------- the application's */

static bool nonempty(const char *s)
{
    return s != NULL && s[0] != 0;
}

static bool is_template(const char *uri)
{
    return strchr(uri, '{') != NULL;
}

/* Exactly one {variable}: non-empty, without '/', no other brace anywhere. */
static bool template_valid(const char *uri)
{
    const char *open = strchr(uri, '{');
    const char *close = strchr(open, '}');
    if (close == NULL || close == open + 1 || strchr(open + 1, '{') != NULL) return false;
    if (strchr(close + 1, '}') != NULL || memchr(uri, '}', (size_t)(open - uri)) != NULL)
        return false;
    return memchr(open, '/', (size_t)(close - open)) == NULL;
}

/* Whether uri matches template t: the text around the variable, which stands for a
   non-empty segment without '/'. */
static bool template_match(const char *t, const char *uri)
{
    const char *open = strchr(t, '{');
    const char *suffix = strchr(open, '}') + 1;
    size_t pre = (size_t)(open - t), suf = strlen(suffix), len = strlen(uri);
    if (len <= pre + suf || strncmp(uri, t, pre) != 0 || strcmp(uri + len - suf, suffix) != 0)
        return false;
    return memchr(uri + pre, '/', len - pre - suf) == NULL;
}

/* A fixed URI is found before the templates that might match it too. */
static int extra_find(const fw_device_t *dev, const char *uri)
{
    for (int k = 0; k < dev->resource_count; k++)
        if (!is_template(dev->resources[k]->uri) && strcmp(dev->resources[k]->uri, uri) == 0)
            return EXTRA_BASE + k;
    for (int k = 0; k < dev->resource_count; k++)
        if (is_template(dev->resources[k]->uri) && template_match(dev->resources[k]->uri, uri))
            return EXTRA_BASE + k;
    return -1;
}

fw_err_t fw_device_add_resource(fw_device_t *dev, const fw_resource_t *res)
{
    if (dev == NULL || res == NULL || !nonempty(res->uri) || !nonempty(res->name) ||
        res->read == NULL || strlen(res->uri) >= URI_MAX)
        return FW_ERR_ARG;
    if (is_template(res->uri) ? !template_valid(res->uri) : strchr(res->uri, '}') != NULL)
        return FW_ERR_ARG;
    if (strcmp(res->uri, DEVICE_URI) == 0 || strncmp(res->uri, PIN_SCHEME, 6) == 0)
        return FW_ERR_EXISTS;
    for (size_t k = 0; k < dev->resource_count; k++)
        if (strcmp(dev->resources[k]->uri, res->uri) == 0) return FW_ERR_EXISTS;
    if (dev->resource_count >= FW_EXTRA_RESOURCES_MAX) return FW_ERR_NO_SPACE;
    dev->resource_changed[dev->resource_count] = dev->change_count;
    dev->resources[dev->resource_count++] = res;
#if FW_WITH_LISTEN
    dev->list_gen[FW_LIST_RESOURCES]++; /* listen streams that follow the list hear of it */
#endif
    return FW_OK;
}

fw_err_t fw_device_resource_changed(fw_device_t *dev, const char *uri)
{
    for (size_t k = 0; uri != NULL && k < dev->resource_count; k++) {
        if (is_template(dev->resources[k]->uri) || strcmp(dev->resources[k]->uri, uri) != 0)
            continue;
        dev->resource_changed[k] = ++dev->change_count;
        return FW_OK;
    }
    return FW_ERR_RESOURCE_NOT_FOUND;
}

static void write_extra(fw_jw_t *w, const fw_resource_t *res)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, is_template(res->uri) ? "uriTemplate" : "uri", res->uri);
    fw_jw_kv_str(w, "name", res->name);
    if (res->description != NULL) fw_jw_kv_str(w, "description", res->description);
    if (res->mime_type != NULL) fw_jw_kv_str(w, "mimeType", res->mime_type);
    fw_jw_obj_end(w);
}

/* Writes the application's fixed resources (templates false) or templates (true). */
static void write_extras(fw_jw_t *w, const fw_device_t *dev, bool templates)
{
    for (size_t k = 0; k < dev->resource_count; k++)
        if (is_template(dev->resources[k]->uri) == templates) write_extra(w, dev->resources[k]);
}

/* ---------------------------------------------------------------- the device's */

int fw_mcp_resource_find(const fw_device_t *dev, const char *uri)
{
    if (strcmp(uri, DEVICE_URI) == 0) return FW_PINS_MAX;
    if (strncmp(uri, PIN_SCHEME, sizeof PIN_SCHEME - 1u) != 0) return extra_find(dev, uri);
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
            fw_pin_touch(dev, i);
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
    fw_jw_key(w, "summary");
    fw_jw_obj_begin(w);
    fw_jw_kv_i64(w, "count", fw_sampling_state(dev, (uint8_t)i)->count);
    fw_sampling_write_stats(w, dev, (uint8_t)i);
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
    write_extras(w, dev, false);
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
    write_extras(w, q->dev, true);
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
    if (idx >= EXTRA_BASE) {
        const fw_resource_t *res = q->dev->resources[idx - EXTRA_BASE];
        return res->read(q->call, res, uri);
    }
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
    uint32_t bit = 1u << idx; /* FW_SUB_DEVICE for device://info */
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

#endif
