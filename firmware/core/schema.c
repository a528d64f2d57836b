/* schema.c: parameter descriptors -> argument validation (bind) and the published inputSchema. */
#include <stdint.h>
#include <string.h>

#include "fw_internal.h"

_Static_assert(FW_PARAMS_MAX <= 32, "bind tracks seen parameters in a uint32_t");

#define XSTR(x) #x
#define STR(x) XSTR(x)

#if FW_WITH_FLOAT
/* Below 2^53 every integral double is exact, so it is written and compared as an integer. */
#define EXACT_INT_LIMIT 9007199254740992.0

static bool is_integral(double v)
{
    return v > -EXACT_INT_LIMIT && v < EXACT_INT_LIMIT && v == (double)(int64_t)v;
}

static bool is_finite(double v)
{
    return v == v && v - v == 0.0;
}

/* The one way a NUMBER limit or default is written, in schemas and in messages alike. */
static void write_num(fw_jw_t *w, double v)
{
    if (is_integral(v)) {
        fw_jw_i64(w, (int64_t)v);
    } else {
        fw_jw_double(w, v);
    }
}
#endif

/* The integer reader of the build's argument width. */
#if FW_WITH_INT64
#define get_int fw_json_get_i64
#else
#define get_int fw_json_get_i32
#endif

static const char *int_text(char out[21], fw_int_t v)
{
    fw_i64_text(out, v);
    return out;
}

#if FW_WITH_FLOAT
typedef struct text_buf {
    char *p;
    size_t cap, len;
} text_buf_t;

static void text_write(void *ctx, const char *data, size_t len)
{
    text_buf_t *t = ctx;
    size_t room = t->cap - 1 - t->len;
    size_t n = len < room ? len : room;
    memcpy(t->p + t->len, data, n);
    t->len += n;
    t->p[t->len] = 0;
}

/* A number as message text ("255", "0.5"); out holds at least 24 bytes. */
static const char *num_text(char *out, size_t cap, double v)
{
    text_buf_t t = {out, cap, 0};
    fw_jw_t w;
    out[0] = 0;
    fw_jw_init(&w, (fw_sink_t){text_write, &t});
    write_num(&w, v);
    fw_jw_flush(&w);
    return out;
}
#endif

/* The raw text of a token, cut to fit out (for "got 2.5" in messages). */
static const char *tok_text(char *out, size_t cap, const fw_json_doc_t *doc, uint32_t tok)
{
    const fw_json_tok_t *t = &doc->toks[tok];
    size_t n = t->end - t->start;
    n = n < cap - 1 ? n : cap - 1;
    memcpy(out, doc->buf + t->start, n);
    out[n] = 0;
    return out;
}

/* ---------------------------------------------------------------- binding one value */

typedef struct bind_ctx {
    fw_call_t *call;
    const fw_json_doc_t *doc;
    const fw_param_t *param;
    fw_arg_t *arg;
    uint32_t tok;
} bind_ctx_t;

static fw_err_t issue(const bind_ctx_t *b, const char *fmt, const char *a)
{
    return fw_call_param_error(b->call, b->param->name, fmt, a);
}

static fw_err_t wrong_type(const bind_ctx_t *b, const char *want)
{
    const char *got = fw_json_type_name(b->doc->toks[b->tok].type);
    return fw_call_param_error(b->call, b->param->name, FW_S("must be %s (got %s)"), want, got);
}

/* min/max of INTEGER values and of STRING/BYTES lengths. */
static fw_err_t check_range(const bind_ctx_t *b, fw_int_t v, const char *unit)
{
    const fw_param_t *p = b->param;
    char num[21];
    bool low = p->has_min && v < p->min;
    if (!low && !(p->has_max && v > p->max)) return FW_OK;
    const char *fmt = low ? (unit ? FW_S("must have at least %s %s") : FW_S("must be >= %s"))
                          : (unit ? FW_S("must have at most %s %s") : FW_S("must be <= %s"));
    return fw_call_param_error(b->call, p->name, fmt, int_text(num, low ? p->min : p->max), unit);
}

#if FW_WITH_FLOAT
/* The range of NUMBER values. */
static fw_err_t check_num_range(const bind_ctx_t *b, double v)
{
    const fw_param_t *p = b->param;
    char num[32];
    if (p->has_min && v < p->number->min)
        return fw_call_param_error(b->call, p->name, FW_S("must be >= %s"),
                                   num_text(num, sizeof num, p->number->min));
    if (p->has_max && v > p->number->max)
        return fw_call_param_error(b->call, p->name, FW_S("must be <= %s"),
                                   num_text(num, sizeof num, p->number->max));
    return FW_OK;
}
#endif

FW_NOINLINE static fw_err_t bind_integer(const bind_ctx_t *b)
{
    const fw_json_tok_t *t = &b->doc->toks[b->tok];
    char text[24];
    if (t->type != FW_JSON_NUMBER) return wrong_type(b, FW_S("an integer"));
    if (!(t->flags & FW_JSON_F_INTEGER))
        return issue(b, FW_S("must be an integer (got %s)"),
                     tok_text(text, sizeof text, b->doc, b->tok));
    if (get_int(b->doc, b->tok, &b->arg->i) != FW_OK)
        return issue(b, FW_S("%s does not fit a " STR(FW_INT_BITS) "-bit integer"),
                     tok_text(text, sizeof text, b->doc, b->tok));
    return check_range(b, b->arg->i, NULL);
}

#if FW_WITH_FLOAT
static fw_err_t bind_number(const bind_ctx_t *b)
{
    char text[24];
    if (b->doc->toks[b->tok].type != FW_JSON_NUMBER) return wrong_type(b, FW_S("a number"));
    if (fw_json_get_double(b->doc, b->tok, &b->arg->num) != FW_OK || !is_finite(b->arg->num))
        return issue(b, FW_S("%s is out of range"), tok_text(text, sizeof text, b->doc, b->tok));
    double v = b->arg->num;
    b->arg->i = v > -9.2e18 && v < 9.2e18 ? (fw_int_t)v : 0;
    return check_num_range(b, v);
}

static void number_default(fw_arg_t *a, const fw_param_t *p)
{
    a->num = p->number->def;
    a->i = p->number->def > -9.2e18 && p->number->def < 9.2e18 ? (fw_int_t)p->number->def : 0;
}

static void number_ranges(fw_jw_t *w, const fw_param_t *p)
{
    if (p->has_min) {
        fw_jw_key(w, "minimum");
        write_num(w, p->number->min);
    }
    if (p->has_max) {
        fw_jw_key(w, "maximum");
        write_num(w, p->number->max);
    }
}

static void number_default_write(fw_jw_t *w, const fw_param_t *p)
{
    write_num(w, p->number->def);
}

/* Reached only through the descriptors of NUMBER parameters: a build whose tools take none
   links no floating point at all. */
struct fw_number_ops {
    fw_err_t (*bind)(const bind_ctx_t *b);
    void (*fill_default)(fw_arg_t *a, const fw_param_t *p);
    void (*write_ranges)(fw_jw_t *w, const fw_param_t *p);
    void (*write_default)(fw_jw_t *w, const fw_param_t *p);
};

const fw_number_ops_t fw_number_ops = {
    .bind = bind_number,
    .fill_default = number_default,
    .write_ranges = number_ranges,
    .write_default = number_default_write,
};
#endif

FW_NOINLINE static fw_err_t bind_boolean(const bind_ctx_t *b)
{
    uint8_t type = b->doc->toks[b->tok].type;
    if (type != FW_JSON_TRUE && type != FW_JSON_FALSE) return wrong_type(b, FW_S("true or false"));
    b->arg->i = type == FW_JSON_TRUE;
    return FW_OK;
}

/* Decodes a string token into the call's scratch; NULL (with an issue) if it does not fit. */
static char *decode_to_scratch(const bind_ctx_t *b, size_t *len)
{
    const fw_json_tok_t *t = &b->doc->toks[b->tok];
    size_t raw = t->end - t->start; /* the decoded text is never longer */
    char *s = fw_scratch_alloc(b->call->dev, raw + 1);
    int32_t n = s ? fw_json_str_decode(b->doc, b->tok, s, raw + 1) : FW_ERR_NO_SPACE;
    if (n < 0) {
        fw_call_param_error(b->call, b->param->name,
                            FW_S("is too long for the argument buffer (FW_SCRATCH_SIZE %u bytes "
                                 "per call)"),
                            (unsigned)FW_SCRATCH_SIZE);
        return NULL;
    }
    *len = (size_t)n;
    return s;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) chars += ((unsigned char)s[i] & 0xC0u) != 0x80u;
    return chars;
}

/* "a, b, c" into out (cut when long). */
static const char *enum_list(char *out, size_t cap, const char *const *values)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; values[i] != NULL; i++)
        len += fw_fmt(out + len, cap - len, i ? FW_S(", %s") : FW_S("%s"), values[i]);
    return out;
}

static fw_err_t check_enum(const bind_ctx_t *b, const char *s)
{
    const char *const *values = b->param->enum_values;
    if (values == NULL) return FW_OK;
    for (size_t i = 0; values[i] != NULL; i++)
        if (fw_streq(values[i], s)) return FW_OK;
    char list[80];
    return issue(b, FW_S("must be one of: %s"), enum_list(list, sizeof list, values));
}

FW_NOINLINE static fw_err_t bind_string(const bind_ctx_t *b)
{
    if (b->doc->toks[b->tok].type != FW_JSON_STRING) return wrong_type(b, FW_S("a string"));
    size_t len;
    char *s = decode_to_scratch(b, &len);
    if (s == NULL) return FW_ERR_INVALID_PARAMS;
    if (memchr(s, 0, len) != NULL)
        return issue(b, FW_S("%s"), FW_S("must not contain NUL characters"));
    fw_err_t err = check_range(b, (fw_int_t)utf8_chars(s, len), FW_S("characters"));
    if (err == FW_OK) err = check_enum(b, s);
    b->arg->str = s;
    b->arg->len = len;
    return err;
}

/* "digital_output or pwm_output" for a pin type mask. */
static const char *mask_text(char *out, size_t cap, uint8_t mask)
{
    size_t len = 0;
    out[0] = 0;
    for (unsigned t = 0; t < FW_PIN_TYPE_COUNT; t++)
        if (mask & FW_PINMASK(t))
            len += fw_fmt(out + len, cap - len, len ? FW_S(" or %s") : FW_S("%s"),
                          fw_pin_type_name((fw_pin_type_t)t));
    return out;
}

/* The pin at registry index idx, if the parameter accepts its current type. */
FW_NOINLINE static fw_err_t bind_pin_index(const bind_ctx_t *b, int idx)
{
    const fw_device_t *dev = b->call->dev;
    const fw_pin_def_t *def = &dev->board->pins[idx];
    uint8_t type = dev->pins[idx].type;
    uint8_t mask = b->param->pin_types & (uint8_t)~FW_PIN_NAMES;
    if (mask != 0 && !(mask & FW_PINMASK(type))) {
        /* the message is cut at FW_ISSUE_TEXT_MAX anyway: what comes before the types is at
           least 40 characters ("pin 2 (a) is adc_input; this tool needs "), so with 56 no
           more than 15 of them are ever shown, and 23 are kept */
        char need[FW_ISSUE_TEXT_MAX < 64 ? 24 : 64];
        return fw_call_param_error(
            b->call, b->param->name, FW_S("pin %u (%s) is %s; this tool needs %s"),
            (unsigned)def->number, def->name, fw_pin_type_name((fw_pin_type_t)type),
            mask_text(need, sizeof need, mask));
    }
    b->arg->i = def->number;
    b->arg->pin = def;
    b->arg->pin_index = (uint8_t)idx;
    return FW_OK;
}

static fw_err_t bind_pin_number(const bind_ctx_t *b, fw_int_t number)
{
    int idx = number >= 0 && number <= UINT16_MAX
                  ? fw_device_pin_index(b->call->dev, (uint16_t)number)
                  : -1;
    if (idx < 0) {
        char text[24];
        return issue(b, FW_S("no pin %s on this board"),
                     tok_text(text, sizeof text, b->doc, b->tok));
    }
    return bind_pin_index(b, idx);
}

FW_NOINLINE static fw_err_t bind_pin(const bind_ctx_t *b)
{
    const fw_json_tok_t *t = &b->doc->toks[b->tok];
    fw_int_t number;
    if (t->type == FW_JSON_NUMBER && get_int(b->doc, b->tok, &number) == FW_OK)
        return bind_pin_number(b, number);
    if (t->type == FW_JSON_NUMBER) {
        char text[24];
        return issue(b, FW_S("must be a pin number or name (got %s)"),
                     tok_text(text, sizeof text, b->doc, b->tok));
    }
    if (t->type != FW_JSON_STRING) return wrong_type(b, FW_S("a pin number or name"));
    size_t len;
    char *name = decode_to_scratch(b, &len);
    if (name == NULL) return FW_ERR_INVALID_PARAMS;
    int idx = memchr(name, 0, len) ? -1 : fw_pin_lookup_name(b->call->dev, name);
    if (idx < 0) {
        char shown[24];
        fw_fmt(shown, sizeof shown, FW_S("%s"), name);
        return issue(b, FW_S("no pin named '%s' on this board"), shown);
    }
    return bind_pin_index(b, idx);
}

#if FW_WITH_PARAM_BYTES
static fw_err_t bind_byte_items(const bind_ctx_t *b, uint8_t *out)
{
    uint32_t e = b->tok + 1;
    for (uint32_t i = 0; i < b->doc->toks[b->tok].count; i++, e = b->doc->toks[e].next) {
        const fw_json_tok_t *t = &b->doc->toks[e];
        fw_int_t v = -1;
        if (t->type == FW_JSON_NUMBER) (void)get_int(b->doc, e, &v);
        if (v < 0 || v > 255) {
            char path[sizeof((fw_issue_t *)0)->path];
            fw_fmt(path, sizeof path, FW_S("%s[%u]"), b->param->name, (unsigned)i);
            return fw_call_param_error(b->call, path, FW_S("must be an integer 0..255"));
        }
        out[i] = (uint8_t)v;
    }
    return FW_OK;
}

static fw_err_t bind_bytes(const bind_ctx_t *b)
{
    const fw_json_tok_t *t = &b->doc->toks[b->tok];
    if (t->type != FW_JSON_ARRAY) return wrong_type(b, FW_S("an array of bytes"));
    fw_err_t err = check_range(b, (fw_int_t)t->count, FW_S("items"));
    if (err != FW_OK) return err;
    uint8_t *out = fw_scratch_alloc(b->call->dev, t->count);
    if (out == NULL)
        return fw_call_param_error(b->call, b->param->name,
                                   FW_S("is too long for the argument buffer (FW_SCRATCH_SIZE "
                                        "%u bytes per call)"),
                                   (unsigned)FW_SCRATCH_SIZE);
    err = bind_byte_items(b, out);
    b->arg->bytes = out;
    b->arg->len = t->count;
    return err;
}
#endif

static fw_err_t bind_value(fw_call_t *call, const fw_json_doc_t *doc, size_t idx, uint32_t tok)
{
    bind_ctx_t b = {call, doc, &call->tool->params[idx], &call->args[idx], tok};
    fw_err_t err;
    switch (b.param->type) {
    case FW_PARAM_INTEGER:
        err = bind_integer(&b);
        break;
#if FW_WITH_FLOAT
    case FW_PARAM_NUMBER:
        err = b.param->number->ops->bind(&b);
        break;
#endif
    case FW_PARAM_BOOLEAN:
        err = bind_boolean(&b);
        break;
    case FW_PARAM_STRING:
        err = bind_string(&b);
        break;
    case FW_PARAM_PIN:
        err = bind_pin(&b);
        break;
#if FW_WITH_PARAM_BYTES
    case FW_PARAM_BYTES:
        err = bind_bytes(&b);
        break;
#endif
    default: /* fw_device_add_tool refused every other type */
        FW_ASSERT(false);
        err = FW_ERR_INTERNAL;
        break;
    }
    b.arg->present = err == FW_OK;
    return err;
}

/* ---------------------------------------------------------------- binding the params */

typedef struct bind_state {
    fw_call_t *call;
    const fw_json_doc_t *doc;
    uint32_t seen; /* bit i: parameter i was given (valid or not) */
    bool failed;
} bind_state_t;

static void note(bind_state_t *s, fw_err_t err)
{
    s->failed = s->failed || err != FW_OK;
}

static int param_index(const bind_state_t *s, uint32_t key, uint32_t m)
{
    const fw_tool_t *tool = s->call->tool;
#if FW_SPEED_PATHS >= 2
    /* members mostly come in the schema's order: the m-th parameter is tried first */
    if (m > 0 && m < tool->param_count && fw_tok_is(s->doc, key, tool->params[m].name))
        return (int)m; /* (the 0th is the loop's first try) */
#else
    (void)m;
#endif
    for (int i = 0; i < tool->param_count; i++)
        if (fw_tok_is(s->doc, key, tool->params[i].name)) return i;
    return -1;
}

static void unknown_member(bind_state_t *s, uint32_t key)
{
    char path[sizeof((fw_issue_t *)0)->path];
    if (fw_json_str_eq(s->doc, key, "_meta")) return; /* MCP request metadata, not an argument */
    note(s, fw_call_param_error(s->call, fw_tok_name(s->doc, key, path, sizeof path),
                                FW_S("unknown parameter")));
}

#if FW_SPEED_PATHS >= 2
_Static_assert(FW_JSON_TRUE == FW_JSON_FALSE + 1, "quick_value: true is false + 1");

/* quick_value is inlined where it runs for every member (bind_object_quick), so that the loop
   keeps its locals in registers and saves none for a call; the ways out of that loop are calls
   of their own, so that it carries neither their locals nor their register saves. The branch
   hints lay the usual case out straight (and keep the compiler from treating its stores as a
   cold path's, a byte-wise rep stos instead of a few wide stores). */
#if defined(__GNUC__)
#define QUICK_INLINE inline __attribute__((always_inline))
#define QUICK_OUT __attribute__((noinline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define QUICK_INLINE inline
#define QUICK_OUT
#define UNLIKELY(x) (x)
#endif

/*
 * The usual arguments bound in place, without the general path's context and calls: a boolean,
 * an integer of up to 9 digits within its range, a pin given by a number of up to 4 digits that
 * is on the board with a type the parameter takes. The whole argument is written, so that a
 * slot nobody cleared reads as the general path leaves it (present, the value, every other
 * field zero). false, with *a untouched, for anything else: another type, or a value with
 * something to report; bind_value then binds it.
 */
static QUICK_INLINE bool quick_value(const fw_call_t *call, const char *buf, const fw_param_t *p,
                                     fw_arg_t *a, const fw_json_tok_t *t)
{
    uint8_t ptype = p->type, ttype = t->type;
    if (ptype == FW_PARAM_BOOLEAN) {
        if (UNLIKELY(ttype != FW_JSON_TRUE && ttype != FW_JSON_FALSE)) return false;
        *a = (fw_arg_t){.present = true, .i = ttype - FW_JSON_FALSE}; /* 0 or 1 */
        return true;
    }
    if (UNLIKELY(ttype != FW_JSON_NUMBER || (t->flags & FW_JSON_F_INTEGER) == 0)) return false;
    const char *d = buf + t->start, *e = buf + t->end;
    if (ptype == FW_PARAM_PIN) {
        /* a pin number has no sign, so its first byte is a digit */
        if (UNLIKELY((t->flags & FW_JSON_F_NEGATIVE) != 0 || e - d > 4)) return false;
        uint32_t v = (uint8_t)*d - (uint32_t)'0';
        while (++d < e) v = v * 10u + ((uint8_t)*d - (uint32_t)'0');
        /* fw_device_pin_index's search (the first pin of that number), here so that no call
           is made: a call would cost the loop around this its registers */
        const fw_device_t *dev = call->dev;
        const fw_board_t *board = dev->board;
        const fw_pin_def_t *pins = board->pins;
        size_t pin = 0, pin_count = board->pin_count;
        for (;; pin++) {
            if (UNLIKELY(pin == pin_count)) return false;
            if (pins[pin].number == v) break;
        }
        unsigned mask = p->pin_types & (uint8_t)~FW_PIN_NAMES; /* none: any type */
        if (UNLIKELY(mask != 0 && ((mask >> dev->pins[pin].type) & 1u) == 0)) return false;
        *a = (fw_arg_t){.present = true, .pin_index = (uint8_t)pin, .i = v, .pin = &pins[pin]};
        return true;
    }
    if (UNLIKELY(ptype != FW_PARAM_INTEGER)) return false;
    bool neg = (t->flags & FW_JSON_F_NEGATIVE) != 0;
    d += neg;
    if (UNLIKELY(e - d > 9)) return false;
    int32_t v = 0;
    for (; d < e; d++) v = v * 10 + (*d - '0');
    if (neg) v = -v;
    if (UNLIKELY((p->has_min && v < p->min) || (p->has_max && v > p->max))) return false;
    *a = (fw_arg_t){.present = true, .i = v};
    return true;
}

static bool bind_quick(fw_call_t *call, const fw_json_doc_t *doc, size_t idx, uint32_t tok)
{
    return quick_value(call, doc->buf, &call->tool->params[idx], &call->args[idx], &doc->toks[tok]);
}
#endif

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/* The members of obj from the m-th on (key: its key token): bind_object_quick hands the rest of
   an object over to it. (Where it has no quick path, the one function of before, unchanged.) */
static void bind_object_from(bind_state_t *s, uint32_t obj, uint32_t m, uint32_t key)
#else
static void bind_object(bind_state_t *s, uint32_t obj)
#endif
{
    const fw_json_tok_t *toks = s->doc->toks;
#if !(FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT)
    uint32_t key = obj + 1, m = 0;
#endif
    for (; m < toks[obj].count; m++, key = toks[key + 1].next) {
        int i = param_index(s, key, m);
        if (i < 0) {
            unknown_member(s, key);
        } else if (s->seen & (1u << i)) {
            note(s, fw_call_param_error(s->call, s->call->tool->params[i].name,
                                        FW_S("given more than once")));
        } else {
            s->seen |= 1u << i;
#if FW_SPEED_PATHS >= 2
            if (bind_quick(s->call, s->doc, (size_t)i, key + 1)) continue;
#endif
            note(s, bind_value(s->call, s->doc, (size_t)i, key + 1));
        }
    }
}
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
#define bind_object(s, obj) bind_object_from((s), (obj), 0, (obj) + 1u)
#endif

static void bind_array(bind_state_t *s, uint32_t arr)
{
    const fw_json_tok_t *toks = s->doc->toks;
    const fw_tool_t *tool = s->call->tool;
    uint32_t e = arr + 1;
    if (toks[arr].count > tool->param_count) {
        note(s, fw_call_param_error(s->call, FW_S("params"),
                                    FW_S("takes at most %u parameters (got %u)"),
                                    (unsigned)tool->param_count, (unsigned)toks[arr].count));
    }
    for (uint32_t i = 0; i < toks[arr].count && i < tool->param_count; i++, e = toks[e].next) {
        s->seen |= 1u << i;
        note(s, bind_value(s->call, s->doc, i, e));
    }
}

static fw_err_t fill_default(fw_call_t *call, size_t idx)
{
    const fw_param_t *p = &call->tool->params[idx];
    fw_arg_t *a = &call->args[idx];
    a->i = p->def_int;
#if FW_WITH_FLOAT
    if (p->type == FW_PARAM_NUMBER) p->number->ops->fill_default(a, p);
#endif
    if (p->type == FW_PARAM_STRING) {
        a->str = p->def_str ? p->def_str : "";
        a->len = strlen(a->str);
    }
    if (p->type == FW_PARAM_PIN) {
        int pin = p->def_int >= 0 && p->def_int <= UINT16_MAX
                      ? fw_device_pin_index(call->dev, (uint16_t)p->def_int)
                      : -1;
        if (pin < 0)
            return fw_call_param_error(call, p->name, FW_S("default pin %d is not on this board"),
                                       (int)p->def_int);
        bind_ctx_t b = {call, NULL, p, a, 0};
        fw_err_t err = bind_pin_index(&b, pin);
        if (err != FW_OK) return err;
    }
    a->present = true;
    return FW_OK;
}

static void fill_missing(bind_state_t *s)
{
    const fw_tool_t *tool = s->call->tool;
    for (size_t i = 0; i < tool->param_count; i++) {
        const fw_param_t *p = &tool->params[i];
        if (s->seen & (1u << i)) continue;
        if (p->required)
            note(s, fw_call_param_error(s->call, p->name, FW_S("required parameter missing")));
        else if (p->has_default)
            note(s, fill_default(s->call, i));
    }
}

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
/*
 * The usual params: an object whose members name the tool's parameters in their order, each
 * with a value quick_value takes, so nothing is reported. Such a call is bound member by
 * member with one name compared each, every argument written whole (no clearing of all of them
 * first), and the parameters after the last member filled as fill_missing would. At the first
 * member that is not like that, the general path takes over where this one stopped.
 */

/* Whether key k is the parameter name s, its raw bytes compared in place. false where it is
   not sure (an escaped key: the general path decodes it) as well as where it differs. p holds
   no NUL (a raw JSON string has no control byte), so s's bytes are read only while they match:
   nothing past its NUL. */
static QUICK_INLINE bool quick_key_is(const char *buf, const fw_json_tok_t *k, const char *s)
{
    if (k->flags & FW_JSON_F_ESCAPED) return false;
    const char *p = buf + k->start;
    unsigned n = (unsigned)(k->end - k->start);
    /* the usual lengths compared byte by byte without a count; each test is reached only after
       the bytes before it matched, none of them 0. (Tested one after another: a jump table
       costs more than the two or three tests that find them.) */
#define B(i) (s[i] == p[i])
    if (n == 3) return B(0) && B(1) && B(2) && s[3] == '\0';
    if (n == 4) return B(0) && B(1) && B(2) && B(3) && s[4] == '\0';
    if (n == 5) return B(0) && B(1) && B(2) && B(3) && B(4) && s[5] == '\0';
#undef B
    if (n == 0) return false; /* no parameter has an empty name */
    unsigned i = 0;
    do {
        if (s[i] != p[i]) return false;
    } while (++i < n);
    return s[n] == '\0';
}

/* The general path from member m (key: its key token) on, members 0..m-1 bound in place by
   bind_object_quick; bad_value: member m names parameter m and its value is not one
   quick_value takes. The state is that of bind_object after those members: seen holds them,
   nothing failed, the other arguments cleared. */
QUICK_OUT static fw_err_t bind_object_rest(fw_call_t *call, const fw_json_doc_t *doc, uint32_t obj,
                                           uint32_t m, uint32_t key, bool bad_value)
{
    bind_state_t s = {call, doc, (uint32_t)(((uint64_t)1u << m) - 1u), false};
    memset(&call->args[m], 0, (call->tool->param_count - m) * sizeof call->args[0]);
    if (bad_value) { /* what bind_object does with it, the name being known */
        s.seen |= 1u << m;
        note(&s, bind_value(call, doc, m, key + 1));
        key = doc->toks[key + 1].next;
        m++;
    }
    bind_object_from(&s, obj, m, key);
    fill_missing(&s);
    return s.failed ? FW_ERR_INVALID_PARAMS : FW_OK;
}

/* The n parameters from p on, not given (their arguments from a on), as fill_missing leaves
   them: false, where that is not simple (a missing required one is an issue; a default of
   another type than integer or boolean), to leave them all to it. */
static QUICK_INLINE bool quick_missing(const fw_param_t *p, fw_arg_t *a, uint32_t n)
{
    for (; n > 0; n--, p++, a++) {
        if (p->required) return false;
        if (!p->has_default) {
            *a = (fw_arg_t){.present = false};
        } else if (p->type == FW_PARAM_INTEGER || p->type == FW_PARAM_BOOLEAN) {
            *a = (fw_arg_t){.present = true, .i = p->def_int};
        } else {
            return false;
        }
    }
    return true;
}

/* Where bind_object_quick stops: its way into bind_object_rest, out of line, with the indices
   of the object, the member (p's) and its key worked out here rather than kept in the loop. */
QUICK_OUT static fw_err_t quick_stop(fw_call_t *call, const fw_json_doc_t *doc,
                                     const fw_json_tok_t *obj, const fw_param_t *p,
                                     const fw_json_tok_t *key, bool bad_value)
{
    return bind_object_rest(call, doc, (uint32_t)(obj - doc->toks),
                            (uint32_t)(p - call->tool->params), (uint32_t)(key - doc->toks),
                            bad_value);
}

/* obj: the params object's token. */
static fw_err_t bind_object_quick(fw_call_t *call, const fw_json_doc_t *doc,
                                  const fw_json_tok_t *obj)
{
    const fw_tool_t *tool = call->tool;
    const fw_param_t *p = tool->params;
    fw_arg_t *a = call->args;
    const fw_json_tok_t *toks = doc->toks, *k = obj + 1;
    uint32_t count = obj->count;
    /* more members than parameters: some are unknown or given twice, all of it to report */
    if (UNLIKELY(count > tool->param_count)) return quick_stop(call, doc, obj, p, k, false);
    uint32_t missing = tool->param_count - count;
    for (; count > 0; count--, p++, a++) {
        if (UNLIKELY(!quick_key_is(doc->buf, k, p->name)))
            return quick_stop(call, doc, obj, p, k, false);
        if (UNLIKELY(!quick_value(call, doc->buf, p, a, k + 1)))
            return quick_stop(call, doc, obj, p, k, true);
        k = &toks[k[1].next];
    }
    /* every member bound: the parameters not given are filled in place where that is simple */
    if (UNLIKELY(!quick_missing(p, a, missing))) return quick_stop(call, doc, obj, p, k, false);
    return FW_OK;
}
#endif

/* The general path; at speed level 2 the way for params other than an object and, from
   bind_object_quick, for an object's members after the first it could not bind. */
#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
QUICK_OUT static fw_err_t bind_params(fw_call_t *call, const fw_json_doc_t *doc, int32_t params)
#else
fw_err_t fw_schema_bind(fw_call_t *call, const fw_json_doc_t *doc, int32_t params)
#endif
{
    bind_state_t s = {call, doc, 0, false};
    /* only the tool's own arguments are ever read (fw_call_arg, handlers by index) */
    memset(call->args, 0, call->tool->param_count * sizeof call->args[0]);
    if (params >= 0 && doc->toks[params].type == FW_JSON_OBJECT) {
        bind_object(&s, (uint32_t)params);
    } else if (params >= 0 && doc->toks[params].type == FW_JSON_ARRAY) {
        bind_array(&s, (uint32_t)params);
    } else if (params >= 0) {
        note(&s, fw_call_param_error(call, FW_S("params"), FW_S("must be an object or an array")));
    }
    fill_missing(&s);
    return s.failed ? FW_ERR_INVALID_PARAMS : FW_OK;
}

#if FW_SPEED_PATHS >= 2 && !FW_ROM_SPLIT
fw_err_t fw_schema_bind(fw_call_t *call, const fw_json_doc_t *doc, int32_t params)
{
    if (params >= 0 && doc->toks[params].type == FW_JSON_OBJECT)
        return bind_object_quick(call, doc, &doc->toks[params]);
    /* no params (the usual call of a tool without parameters): every parameter missing */
    if (params < 0 && quick_missing(call->tool->params, call->args, call->tool->param_count))
        return FW_OK;
    return bind_params(call, doc, params);
}
#endif

/* ---------------------------------------------------------------- publishing */

static const char *schema_type(uint8_t type)
{
    static const char names[][8] FW_ROM = {"integer", "number",  "boolean",
                                           "string",  "integer", "array"};
    return type < FW_ARRAY_LEN(names) ? names[type] : FW_S("null");
}

static void kv_int(fw_jw_t *w, const char *key, fw_int_t v)
{
    (fw_jw_key)(w, key);
    fw_jw_i64(w, v);
}

static void chunk(fw_jw_t *w, const char *s)
{
    fw_jw_str_chunk(w, s, fw_strlen(s));
}

/* A PIN's description says which pin types it takes (the text mask_text gives; streamed where
   RAM is scarcest, without the buffer on the listing's stack), and that a name works too where
   it does (FW_PIN_NAMES: the schema's one type stays the integer every client maps). */
static void write_pin_description(fw_jw_t *w, const fw_param_t *p)
{
    uint8_t types = p->pin_types & (uint8_t)(FW_PINMASK(FW_PIN_TYPE_COUNT) - 1u);
    fw_jw_key(w, "description");
    fw_jw_str_begin(w);
    if (p->description != NULL) {
        chunk(w, p->description);
        chunk(w, FW_S(" "));
    }
#if FW_WITH_SAMPLING /* FW_PIN_NAMES: the get_pin_* tools, which come with sampling */
    if (p->pin_types & FW_PIN_NAMES)
        chunk(w, FW_S("(GPIO pin number, or a pin name from the pin registry"));
    else
#endif
        chunk(w, FW_S("(GPIO pin number"));
    if (types != 0 && types != FW_PINMASK(FW_PIN_TYPE_COUNT) - 1u) { /* not every type */
        chunk(w, FW_S("; pin type "));
#if FW_ROM_SPLIT
        bool first = true;
        for (unsigned t = 0; t < FW_PIN_TYPE_COUNT; t++) {
            if (!(p->pin_types & FW_PINMASK(t))) continue;
            if (!first) chunk(w, FW_S(" or "));
            chunk(w, fw_pin_type_name((fw_pin_type_t)t));
            first = false;
        }
#else
        char names[64];
        chunk(w, mask_text(names, sizeof names, types));
#endif
    }
    chunk(w, FW_S(")"));
    fw_jw_str_end(w);
}

static void write_ranges(fw_jw_t *w, const fw_param_t *p)
{
    /* The keys of each type's range, one after another; at[type] is 1 + the offset of its
       minimum's key (its maximum's follows), 0 for a type without a range. */
    static const char keys[] FW_ROM = "minimum\0maximum\0minLength\0maxLength\0minItems\0maxItems";
    static const uint8_t at[] FW_ROM = {[FW_PARAM_INTEGER] = 1,
                                        [FW_PARAM_NUMBER] = 1,
                                        [FW_PARAM_STRING] = 17,
                                        [FW_PARAM_BYTES] = 37};
    uint8_t k = p->type < FW_ARRAY_LEN(at) ? fw_rd8(&at[p->type]) : 0;
    if (k == 0) return;
#if FW_WITH_FLOAT
    if (p->type == FW_PARAM_NUMBER) {
        p->number->ops->write_ranges(w, p);
        return;
    }
#endif
    const char *min_key = keys + k - 1;
    if (p->has_min) kv_int(w, min_key, p->min);
    if (p->has_max) kv_int(w, min_key + fw_strlen(min_key) + 1, p->max);
}

static void write_default(fw_jw_t *w, const fw_param_t *p)
{
    if (!p->has_default || p->type == FW_PARAM_BYTES) return;
    fw_jw_key(w, "default");
    if (p->type == FW_PARAM_BOOLEAN) {
        fw_jw_bool(w, p->def_int != 0);
    } else if (p->type == FW_PARAM_STRING) {
        fw_jw_str(w, p->def_str ? p->def_str : "");
#if FW_WITH_FLOAT
    } else if (p->type == FW_PARAM_NUMBER) {
        p->number->ops->write_default(w, p);
#endif
    } else {
        fw_jw_i64(w, p->def_int);
    }
}

/* A PIN is published as an integer, the one type every client maps (MCP/U's converts each
   property by its single "type"), and its description promises names only with FW_PIN_NAMES
   (MCP/U's get_pin_* take "<name>" or <gpio>). The binder still resolves a name sent to any
   PIN, a leniency no published schema invites. */
static void write_property(fw_jw_t *w, const fw_param_t *p)
{
    (fw_jw_key)(w, p->name);
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", schema_type(p->type));
    if (p->type == FW_PARAM_PIN) {
        write_pin_description(w, p);
    } else if (p->description != NULL) {
        fw_jw_kv_str(w, "description", p->description);
    }
    if (FW_WITH_PARAM_BYTES && p->type == FW_PARAM_BYTES) {
        fw_jw_key(w, "items");
        fw_jw_obj_begin(w);
        fw_jw_kv_str(w, "type", FW_S("integer"));
        fw_jw_kv_i64(w, "minimum", 0);
        fw_jw_kv_i64(w, "maximum", 255);
        fw_jw_obj_end(w);
    }
    write_ranges(w, p);
    if (p->type == FW_PARAM_STRING && p->enum_values != NULL) {
        fw_jw_key(w, "enum");
        fw_jw_arr_begin(w);
        for (size_t i = 0; p->enum_values[i] != NULL; i++) fw_jw_str(w, p->enum_values[i]);
        fw_jw_arr_end(w);
    }
    write_default(w, p);
    fw_jw_obj_end(w);
}

/* An object schema of count members described by params (closed: additionalProperties false). */
static void write_object_schema(fw_jw_t *w, const fw_param_t *params, size_t count)
{
    fw_jw_obj_begin(w);
    fw_jw_kv_str(w, "type", FW_S("object"));
    fw_jw_key(w, "properties");
    fw_jw_obj_begin(w);
    for (size_t i = 0; i < count; i++) {
        FW_ROM_LOAD(fw_param_t, p, &params[i]);
        write_property(w, p);
    }
    fw_jw_obj_end(w);
    fw_jw_key(w, "required");
    fw_jw_arr_begin(w);
    for (size_t i = 0; i < count; i++) {
        FW_ROM_LOAD(fw_param_t, p, &params[i]);
        if (p->required) fw_jw_str(w, p->name);
    }
    fw_jw_arr_end(w);
    fw_jw_kv_bool(w, "additionalProperties", false);
    fw_jw_obj_end(w);
}

void fw_schema_write(fw_jw_t *w, const fw_tool_t *tool)
{
    write_object_schema(w, tool->params, tool->param_count);
}

#if FW_WITH_MCP
void fw_schema_write_output(fw_jw_t *w, const fw_tool_t *tool)
{
    write_object_schema(w, tool->out, tool->out_count);
}
#endif
