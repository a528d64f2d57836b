/* runner.c: running scenarios against a target: the session, requirements, steps, results. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "stream.h"

#define RESYNC_TIMEOUT_MS 1000
#define CONTROL_TIMEOUT_MS 5000
#define RAW_CHUNK_GAP_MS 2

/* "scenario_dir": the absolute directory of the scenario's file, so a scenario can name a data
   file beside it (a CSV waveform for the simulator's control channel). Generated checks have
   no file and get ".". */
static void set_scenario_dir(conf_vars_t *vars, const char *file)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    char *dir = slash ? conf_strndup(file, (size_t)(slash - file)) : conf_strdup(".");
    char *abs = realpath(dir[0] ? dir : "/", NULL);
    conf_vars_set(vars, "scenario_dir", json_string(abs ? abs : dir));
    free(abs);
    free(dir);
}

const char *conf_status_name(conf_status_t s)
{
    static const char *const names[] = {"pass", "fail", "skip", "xfail", "stale"};
    return s <= CONF_STALE ? names[s] : "?";
}

void conf_result_free(conf_result_t *r)
{
    free(r->name);
    free(r->message);
    free(r->expected);
    free(r->actual);
    free(r->transcript);
    json_decref(r->steps);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- session */

void conf_run_init(conf_run_ctx_t *ctx, conf_target_t *target, conf_control_t *control)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->target = target;
    ctx->control = control;
    ctx->next_id = 1;
    ctx->timeout_scale = 1.0;
    conf_copy(ctx->protocol, sizeof ctx->protocol, "mcpu");
    conf_copy(ctx->profile, sizeof ctx->profile, "mcpu");
    conf_vars_init(&ctx->globals, NULL);
}

bool conf_choose_profile(conf_run_ctx_t *ctx, const char *given, char *err, size_t cap)
{
    if (given) {
        if (strcmp(given, "mcpu") != 0 && strcmp(given, "mcp") != 0 &&
            strcmp(given, "mcpsim") != 0) {
            snprintf(err, cap, "unknown profile '%s' (mcpu, mcp or mcpsim)", given);
            return false;
        }
        conf_copy(ctx->profile, sizeof ctx->profile, given);
        return true;
    }
    const char *p = ctx->mcp ? "mcp" : json_object_get(ctx->info, "core_version") ? "mcpsim" : "mcpu";
    conf_copy(ctx->profile, sizeof ctx->profile, p);
    return true;
}

void conf_run_lost(conf_run_ctx_t *ctx, const char *why)
{
    if (ctx->lost) return;
    ctx->lost = true;
    char diag[900] = "";
    if (ctx->target->ops->diagnose) ctx->target->ops->diagnose(ctx->target, diag, sizeof diag);
    if (diag[0] && !strstr(why, diag))
        snprintf(ctx->lost_why, sizeof ctx->lost_why, "%s; %s", why, diag);
    else
        snprintf(ctx->lost_why, sizeof ctx->lost_why, "%s", why);
}

void conf_run_after_scenario(conf_run_ctx_t *ctx, bool failed, uint64_t before_msgs,
                             uint64_t before_bytes)
{
    if (ctx->lost) return;
    const conf_stream_t *rx = ctx->target->rx;
    bool silent = ctx->received == before_msgs && (!rx || rx->rx_bytes == before_bytes);
    if (!silent) {
        ctx->silent_failures = 0;
        return;
    }
    if (!failed || ++ctx->silent_failures < CONF_SILENT_LIMIT) return;
    char why[160];
    snprintf(why, sizeof why,
             "the device stopped answering: not one byte arrived during the last %d scenarios, "
             "which all failed waiting for it (a hung or crashed firmware)",
             CONF_SILENT_LIMIT);
    conf_run_lost(ctx, why);
}

static void msg_free(conf_msg_t *m)
{
    json_decref(m->json);
    free(m->raw);
    m->json = NULL;
    m->raw = NULL;
}

static void queue_clear(conf_run_ctx_t *ctx)
{
    for (size_t i = 0; i < ctx->qlen; i++) msg_free(&ctx->queue[i]);
    ctx->qlen = 0;
}

void conf_run_free(conf_run_ctx_t *ctx)
{
    queue_clear(ctx);
    free(ctx->queue);
    json_decref(ctx->info);
    json_decref(ctx->manifest);
    conf_vars_free(&ctx->globals);
}

static void note(conf_run_ctx_t *ctx, const char *dir, const char *text)
{
    if (ctx->transcript) conf_buf_addf(ctx->transcript, "%s %s\n", dir, text);
}

static void queue_push(conf_run_ctx_t *ctx, conf_msg_t m)
{
    if (ctx->qlen == ctx->qcap) {
        ctx->qcap = ctx->qcap ? ctx->qcap * 2 : 16;
        ctx->queue = conf_xrealloc(ctx->queue, ctx->qcap * sizeof *ctx->queue);
    }
    ctx->queue[ctx->qlen++] = m;
}

static conf_msg_t queue_take(conf_run_ctx_t *ctx, size_t i)
{
    conf_msg_t m = ctx->queue[i];
    memmove(ctx->queue + i, ctx->queue + i + 1, (ctx->qlen - i - 1) * sizeof *ctx->queue);
    ctx->qlen--;
    return m;
}

/* One message from the wire: 1, 0 at the deadline, -1 when the connection is lost. */
static int receive(conf_run_ctx_t *ctx, int64_t deadline, conf_msg_t *out, char *err, size_t cap)
{
    char *raw;
    size_t len;
    if (ctx->lost) {
        snprintf(err, cap, "the device was lost earlier: %s", ctx->lost_why);
        return -1;
    }
    int rc = ctx->target->ops->receive(ctx->target, deadline, &raw, &len, err, cap);
    if (rc < 0) conf_run_lost(ctx, err);
    if (rc != 1) return rc;
    ctx->received++;
    note(ctx, "<-", raw);
    out->raw = raw;
    out->json = json_loadb(raw, len, JSON_DECODE_ANY, NULL);
    return 1;
}

static int send_text(conf_run_ctx_t *ctx, const char *text, char *err, size_t cap)
{
    note(ctx, "->", text);
    if (ctx->lost) {
        snprintf(err, cap, "the device was lost earlier: %s", ctx->lost_why);
        return -1;
    }
    int rc = ctx->target->ops->send(ctx->target, text, strlen(text), err, cap);
    if (rc == -1) conf_run_lost(ctx, err); /* -2: refused (an HTTP error status), still connected */
    return rc == 0 ? 0 : -1;
}

static bool ids_equal(const json_t *a, const json_t *b)
{
    if (!a || !b) return false;
    if (json_is_integer(a) && json_is_integer(b))
        return json_integer_value(a) == json_integer_value(b);
    if (json_is_number(a) && json_is_number(b))
        return json_typeof(a) == json_typeof(b) && json_number_value(a) == json_number_value(b);
    return json_equal((json_t *)a, (json_t *)b);
}

static bool is_response_to(const conf_msg_t *m, const json_t *id)
{
    return json_is_object(m->json) && ids_equal(json_object_get(m->json, "id"), id) &&
           !json_object_get(m->json, "method");
}

static bool is_notification(const conf_msg_t *m)
{
    return json_is_object(m->json) && json_object_get(m->json, "method") &&
           !json_object_get(m->json, "id");
}

/* What arrived but was not claimed, for a timeout message. */
static void describe_queue(const conf_run_ctx_t *ctx, char *out, size_t cap)
{
    if (ctx->qlen == 0) {
        conf_copy(out, cap, "nothing arrived");
        return;
    }
    snprintf(out, cap, "%zu other message(s) arrived, first: %.300s", ctx->qlen, ctx->queue[0].raw);
}

typedef bool (*msg_pred)(const conf_msg_t *m, const json_t *arg);

static bool pred_response(const conf_msg_t *m, const json_t *id)
{
    return is_response_to(m, id);
}

static bool pred_notification(const conf_msg_t *m, const json_t *arg)
{
    (void)arg;
    return is_notification(m);
}

static bool pred_any(const conf_msg_t *m, const json_t *arg)
{
    (void)m;
    (void)arg;
    return true;
}

/* The first message (queued or arriving before deadline) that pred accepts; others queue up.
   Returns 1, 0 on timeout, -1 on a lost connection. */
static int await(conf_run_ctx_t *ctx, msg_pred pred, const json_t *arg, int64_t deadline,
                 conf_msg_t *out, char *err, size_t cap)
{
    for (size_t i = 0; i < ctx->qlen; i++) {
        if (pred(&ctx->queue[i], arg)) {
            *out = queue_take(ctx, i);
            return 1;
        }
    }
    for (;;) {
        conf_msg_t m = {NULL, NULL};
        int rc = receive(ctx, deadline, &m, err, cap);
        if (rc != 1) return rc;
        if (pred(&m, arg)) {
            *out = m;
            return 1;
        }
        queue_push(ctx, m);
    }
}

json_t *conf_request(conf_run_ctx_t *ctx, const char *method, const json_t *params, int timeout_ms,
                     char *err, size_t cap)
{
    json_t *id = json_integer(ctx->next_id++);
    json_t *req = json_pack("{s:s, s:O, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
    if (params) json_object_set(req, "params", (json_t *)params);
    char *text = conf_json_text(req);
    json_decref(req);
    int rc = send_text(ctx, text, err, cap);
    free(text);
    conf_msg_t m = {NULL, NULL};
    if (rc == 0) {
        rc = await(ctx, pred_response, id,
                   conf_now_ms() + (int64_t)(timeout_ms * ctx->timeout_scale), &m, err, cap);
        if (rc == 0)
            snprintf(err, cap, "no response to %s within %d ms", method,
                     (int)(timeout_ms * ctx->timeout_scale));
    }
    json_decref(id);
    json_t *res = rc == 1 ? json_incref(m.json) : NULL;
    msg_free(&m);
    return res;
}

int conf_notify(conf_run_ctx_t *ctx, const char *method, char *err, size_t cap)
{
    json_t *req = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
    char *text = conf_json_text(req);
    json_decref(req);
    int rc = send_text(ctx, text, err, cap);
    free(text);
    return rc;
}

/* Drops whatever an earlier scenario left in flight: one request answered marks the point. */
static void resync(conf_run_ctx_t *ctx)
{
    char err[256];
    conf_buf_t *saved = ctx->transcript;
    ctx->transcript = NULL;
    queue_clear(ctx);
    json_t *r =
        conf_request(ctx, ctx->mcp ? "ping" : "get_info", NULL, RESYNC_TIMEOUT_MS, err, sizeof err);
    json_decref(r);
    queue_clear(ctx);
    ctx->transcript = saved;
}

/* ---------------------------------------------------------------- requirements */

static bool has_tool(const conf_run_ctx_t *ctx, const char *name)
{
    const json_t *tools = json_object_get(ctx->manifest, "tools");
    size_t i;
    const json_t *t;
    json_array_foreach(tools, i, t)
    {
        const char *n = json_string_value(json_object_get(t, "name"));
        if (n && strcmp(n, name) == 0) return true;
    }
    return false;
}

static char *unmet_transport(const conf_run_ctx_t *ctx, const json_t *want)
{
    json_t *list = json_is_string(want) ? json_pack("[O]", want) : json_incref((json_t *)want);
    bool ok = false;
    size_t i;
    const json_t *t;
    json_array_foreach(list, i, t)
    {
        const char *name = json_string_value(t);
        if ((strcmp(name, "stream") == 0 && ctx->target->stream) ||
            strcmp(name, ctx->target->transport) == 0)
            ok = true;
    }
    char *why = NULL;
    if (!ok) {
        char *text = conf_json_text(list);
        why = conf_asprintf("needs transport %s (the target is %s)", text, ctx->target->transport);
        free(text);
    }
    json_decref(list);
    return why;
}

/* An extension runs when asked for (--profile mcpsim) or advertised: its requires names the
   tools or capabilities that stand for it (checked for presence below). */
static char *unmet_extension(const conf_run_ctx_t *ctx, const conf_scenario_t *sc)
{
    if (sc->level != CONF_LEVEL_EXTENSION || strcmp(ctx->profile, "mcpsim") == 0) return NULL;
    const json_t *req = sc->requires;
    if (json_array_size(json_object_get(req, "tools")) > 0 ||
        json_array_size(json_object_get(req, "capabilities")) > 0)
        return NULL;
    return conf_asprintf("an extension (%s) the device does not advertise, under profile %s "
                         "(--profile mcpsim runs it)",
                         sc->source ? sc->source : "", ctx->profile);
}

char *conf_requirements_unmet(const conf_run_ctx_t *ctx, const conf_scenario_t *sc)
{
    const json_t *req = sc->requires;
    char *ext = unmet_extension(ctx, sc);
    if (ext) return ext;
    const char *proto = json_string_value(json_object_get(req, "protocol"));
    if (proto && strcmp(proto, ctx->protocol) != 0)
        return conf_asprintf("needs protocol %s (the device speaks %s)", proto, ctx->protocol);
    const char *rev = json_string_value(json_object_get(req, "revision"));
    if (rev && !conf_word_in(ctx->revisions, rev))
        return conf_asprintf("needs MCP revision %s (the device is held to %s; --mcp-revision "
                             "%s holds it to that one)",
                             rev, ctx->revisions[0] ? ctx->revisions : "none", rev);
    const json_t *transport = json_object_get(req, "transport");
    if (transport) {
        char *why = unmet_transport(ctx, transport);
        if (why) return why;
    }
    if (sc->needs_stream && !ctx->target->stream)
        return conf_asprintf("sends raw bytes: needs a byte-stream transport (the target is %s)",
                             ctx->target->transport);
    if (sc->needs_http && !ctx->target->ops->http)
        return conf_asprintf("makes raw HTTP exchanges: needs an HTTP target (the target is %s)",
                             ctx->target->transport);
    if (sc->needs_http && strcmp(ctx->target->transport, "http") != 0)
        return conf_asprintf("makes raw HTTP exchanges: needs an HTTP target (the target is %s)",
                             ctx->target->transport);
    if (sc->needs_control && !ctx->control)
        return conf_strdup("needs the control channel (a sim target, or --control tcp:HOST:PORT)");
    const char *have = ctx->target->control_methods;
    if (sc->needs_control && have[0]) {
        size_t k;
        const json_t *m;
        json_array_foreach(sc->control_methods, k, m)
        {
            const char *name = json_string_value(m);
            size_t nl = strlen(name);
            bool found = false;
            for (const char *p = have; *p && !found; p += strcspn(p, " "), p += *p == ' ')
                found = strncmp(p, name, nl) == 0 && (p[nl] == ' ' || p[nl] == 0);
            if (!found)
                return conf_asprintf("needs control method %s (this target's control channel "
                                     "does not model it)",
                                     name);
        }
    }
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(req, "pins"), i, v)
    {
        char ref[64];
        snprintf(ref, sizeof ref, "pin.%s", json_string_value(v));
        if (!conf_vars_get(&ctx->globals, ref))
            return conf_asprintf("needs a %s pin (the device has none)", json_string_value(v));
    }
    json_array_foreach(json_object_get(req, "tools"), i, v)
    {
        if (!has_tool(ctx, json_string_value(v)))
            return conf_asprintf("needs tool %s (the device does not list it)",
                                 json_string_value(v));
    }
    json_array_foreach(json_object_get(req, "vars"), i, v)
    {
        if (!conf_vars_get(&ctx->globals, json_string_value(v)))
            return conf_asprintf("needs %s (not found on this device)", json_string_value(v));
    }
    const json_t *caps = json_object_get(ctx->manifest, "capabilities");
    json_array_foreach(json_object_get(req, "capabilities"), i, v)
    {
        const json_t *cap = json_object_get(caps, json_string_value(v));
        if (!json_is_true(cap))
            return conf_asprintf("needs capability %s (list_tools %s)", json_string_value(v),
                                 cap != NULL ? "declares it false" : "does not declare it");
    }
    return NULL;
}

/* ---------------------------------------------------------------- steps */

typedef struct exec {
    conf_run_ctx_t *ctx;
    const conf_scenario_t *sc;
    conf_vars_t vars;
    conf_result_t *r;
    conf_buf_t why; /* the failure, once there is one */
} exec_t;

static bool run_steps(exec_t *x, const json_t *steps, const char *prefix);

static bool step_fail(exec_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool step_fail(exec_t *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conf_buf_vaddf(&x->why, fmt, ap);
    va_end(ap);
    return false;
}

static int step_timeout(const exec_t *x, const json_t *step)
{
    const json_t *t = json_object_get(step, "timeout_ms");
    double ms = t ? (double)json_integer_value(t) : x->sc->timeout_ms;
    return (int)(ms * x->ctx->timeout_scale);
}

static json_t *subst(exec_t *x, const json_t *tmpl)
{
    char err[512];
    json_t *v = conf_vars_subst(&x->vars, tmpl, err, sizeof err);
    if (!v) step_fail(x, "%s", err);
    return v;
}

/* Matches msg against the step's "expect" (if any) and stores its captures. */
static bool check_and_capture(exec_t *x, const json_t *step, const json_t *msg)
{
    const json_t *tmpl = json_object_get(step, "expect");
    if (tmpl) {
        json_t *want = subst(x, tmpl);
        if (!want) return false;
        bool ok = conf_match(want, msg, "$", &x->why);
        if (!ok) {
            x->r->expected = conf_json_pretty(want);
            x->r->actual = conf_json_pretty(msg);
        }
        json_decref(want);
        if (!ok) return false;
    }
    const char *name;
    const json_t *path;
    json_object_foreach((json_t *)json_object_get(step, "capture"), name, path)
    {
        const json_t *v = conf_json_at(msg, json_string_value(path));
        if (!v) {
            x->r->actual = conf_json_pretty(msg);
            return step_fail(x, "capture %s: nothing at %s in the message", name,
                             json_string_value(path));
        }
        conf_vars_set(&x->vars, name, json_deep_copy(v));
    }
    return true;
}

/* JSON-RPC 2.0 response envelope: "jsonrpc":"2.0", the id, exactly one of result and error. */
static bool check_envelope(exec_t *x, const json_t *msg)
{
    if (!json_is_object(msg)) return step_fail(x, "the response is not a JSON object");
    const json_t *v = json_object_get(msg, "jsonrpc");
    if (!json_is_string(v) || strcmp(json_string_value(v), "2.0") != 0)
        return step_fail(x, "the response lacks \"jsonrpc\": \"2.0\"");
    bool has_result = json_object_get(msg, "result") != NULL;
    bool has_error = json_object_get(msg, "error") != NULL;
    if (has_result == has_error)
        return step_fail(x,
                         "a response holds exactly one of \"result\" and \"error\" (this has "
                         "%s)",
                         has_result ? "both" : "neither");
    return true;
}

static bool wait_for(exec_t *x, msg_pred pred, const json_t *arg, int timeout, const char *what,
                     conf_msg_t *m)
{
    char err[512];
    int rc = await(x->ctx, pred, arg, conf_now_ms() + timeout, m, err, sizeof err);
    if (rc == 1) {
        if (m->json) return true;
        return step_fail(x, "%s: received a line that is not JSON: %.300s", what, m->raw);
    }
    if (rc < 0) return step_fail(x, "%s: %s", what, err);
    describe_queue(x->ctx, err, sizeof err);
    return step_fail(x, "%s: nothing within %d ms (%s)", what, timeout, err);
}

static bool do_send(exec_t *x, const json_t *step)
{
    const json_t *send = json_object_get(step, "send");
    bool notification = json_is_true(json_object_get(step, "notification"));
    json_t *body = subst(x, send);
    if (!body) return false;
    json_t *req = json_pack("{s:s}", "jsonrpc", "2.0");
    json_t *id = NULL;
    if (!notification) {
        const json_t *given = json_object_get(step, "id");
        id = given ? subst(x, given) : json_integer(x->ctx->next_id++);
        if (!id) return json_decref(body), json_decref(req), false;
        json_object_set(req, "id", id);
    }
    json_object_update(req, body);
    json_decref(body);
    char *text = conf_json_text(req), err[512];
    json_decref(req);
    int rc = send_text(x->ctx, text, err, sizeof err);
    free(text);
    bool ok = rc == 0 || step_fail(x, "send: %s", err);
    if (ok && !notification) {
        conf_msg_t m = {NULL, NULL};
        ok = wait_for(x, pred_response, id, step_timeout(x, step), "response", &m) &&
             check_envelope(x, m.json) && check_and_capture(x, step, m.json);
        if (!ok && m.json && !x->r->actual) x->r->actual = conf_json_pretty(m.json);
        msg_free(&m);
    }
    json_decref(id);
    return ok;
}

static bool do_send_json(exec_t *x, const json_t *step)
{
    json_t *body = subst(x, json_object_get(step, "send_json"));
    if (!body) return false;
    char *text = conf_json_text(body), err[512];
    int rc = send_text(x->ctx, text, err, sizeof err);
    free(text);
    bool ok = rc == 0 || step_fail(x, "send_json: %s", err);
    if (ok && json_object_get(step, "expect")) {
        const json_t *id = json_is_object(body) ? json_object_get(body, "id") : NULL;
        /* an expect that allows another id than the one sent (an invalid request may be
           answered with id null) takes the next message instead */
        const json_t *want_id = json_object_get(json_object_get(step, "expect"), "id");
        if (id && want_id && !json_equal((json_t *)want_id, (json_t *)id)) id = NULL;
        conf_msg_t m = {NULL, NULL};
        ok = wait_for(x, id ? pred_response : pred_any, id, step_timeout(x, step),
                      id ? "response" : "reply", &m) &&
             check_and_capture(x, step, m.json);
        msg_free(&m);
    }
    json_decref(body);
    return ok;
}

static bool send_raw_chunk(exec_t *x, const json_t *chunk)
{
    char err[512];
    json_t *s = subst(x, chunk);
    if (!s) return false;
    note(x->ctx, "->", json_string_value(s));
    int rc = x->ctx->target->ops->send_raw(x->ctx->target, json_string_value(s),
                                           json_string_length(s), err, sizeof err);
    json_decref(s);
    if (rc != 0) conf_run_lost(x->ctx, err);
    return rc == 0 || step_fail(x, "send_raw: %s", err);
}

static bool do_send_raw(exec_t *x, const json_t *step)
{
    const json_t *raw = json_object_get(step, "send_raw");
    x->ctx->dirty = true;
    if (json_is_string(raw)) {
        if (!send_raw_chunk(x, raw)) return false;
    } else {
        for (size_t i = 0; i < json_array_size(raw); i++) {
            if (i) conf_sleep_ms(RAW_CHUNK_GAP_MS);
            if (!send_raw_chunk(x, json_array_get(raw, i))) return false;
        }
    }
    if (!json_object_get(step, "expect")) return true;
    conf_msg_t m = {NULL, NULL};
    bool ok = wait_for(x, pred_any, NULL, step_timeout(x, step), "reply", &m) &&
              check_and_capture(x, step, m.json);
    msg_free(&m);
    return ok;
}

static bool do_expect(exec_t *x, const json_t *step, bool notification)
{
    conf_msg_t m = {NULL, NULL};
    const json_t *tmpl = json_object_get(step, notification ? "expect_notification" : "expect");
    bool ok = wait_for(x, notification ? pred_notification : pred_any, NULL, step_timeout(x, step),
                       notification ? "notification" : "message", &m);
    if (ok && notification) {
        json_t *want = subst(x, tmpl);
        ok = want && conf_match(want, m.json, "$", &x->why);
        if (!ok && want) {
            x->r->expected = conf_json_pretty(want);
            x->r->actual = conf_json_pretty(m.json);
        }
        json_decref(want);
    }
    if (ok) {
        json_t *plain = json_deep_copy(step);
        json_object_del(plain, "expect_notification");
        if (notification) json_object_del(plain, "expect");
        ok = check_and_capture(x, plain, m.json);
        json_decref(plain);
    }
    msg_free(&m);
    return ok;
}

/* expect_silence: nothing may arrive within ms, except messages matching "allow" (a reply the
   rule permits, e.g. -32600 to a response object), which are taken and dropped. */
static bool do_silence(exec_t *x, const json_t *step)
{
    const json_t *spec = json_object_get(step, "expect_silence");
    json_t *ms = subst(x, json_object_get(spec, "ms"));
    if (!ms) return false;
    if (!json_is_integer(ms))
        return json_decref(ms), step_fail(x, "expect_silence: ms must be "
                                             "an integer");
    int64_t deadline = conf_now_ms() + json_integer_value(ms);
    long long wait = (long long)json_integer_value(ms);
    json_decref(ms);
    json_t *allow = NULL;
    if (json_object_get(spec, "allow") && !(allow = subst(x, json_object_get(spec, "allow"))))
        return false;
    bool ok = true;
    for (size_t i = 0; allow && i < x->ctx->qlen;) {
        if (x->ctx->queue[i].json && conf_match(allow, x->ctx->queue[i].json, "$", NULL)) {
            conf_msg_t m = queue_take(x->ctx, i);
            msg_free(&m);
        } else {
            i++;
        }
    }
    if (x->ctx->qlen > 0)
        ok = step_fail(x, "expected silence, but a message had already arrived: %.300s",
                       x->ctx->queue[0].raw);
    while (ok) {
        conf_msg_t m = {NULL, NULL};
        char err[512];
        int rc = receive(x->ctx, deadline, &m, err, sizeof err);
        if (rc == 0) break;
        if (rc < 0) {
            ok = step_fail(x, "expect_silence: %s", err);
            break;
        }
        if (allow && m.json && conf_match(allow, m.json, "$", NULL)) {
            msg_free(&m);
            continue;
        }
        ok = step_fail(x, "expected silence for %lld ms, but received: %.300s", wait, m.raw);
        queue_push(x->ctx, m);
    }
    json_decref(allow);
    return ok;
}

/* Calls the control channel; *resp is the whole response. */
static bool control_call(exec_t *x, const char *method, const json_t *params, json_t **resp)
{
    char err[512];
    char *text = conf_json_text(params);
    if (x->ctx->transcript) conf_buf_addf(x->ctx->transcript, "ctl-> %s %s\n", method, text);
    free(text);
    if (conf_control_call(x->ctx->control, method, params,
                          (int)(CONTROL_TIMEOUT_MS * x->ctx->timeout_scale), resp, err,
                          sizeof err) != 0)
        return step_fail(x, "control %s: %s", method, err);
    text = conf_json_text(*resp);
    note(x->ctx, "ctl<-", text);
    free(text);
    return true;
}

static bool do_control(exec_t *x, const json_t *step)
{
    json_t *c = subst(x, json_object_get(step, "control"));
    if (!c) return false;
    json_t *resp = NULL;
    const char *method = json_string_value(json_object_get(c, "method"));
    bool ok = control_call(x, method, json_object_get(c, "params"), &resp);
    if (ok && !json_object_get(step, "expect") && !json_object_get(resp, "result")) {
        char *text = conf_json_text(json_object_get(resp, "error"));
        ok = step_fail(x, "control %s failed: %s", method, text);
        free(text);
    }
    ok = ok && check_and_capture(x, step, resp);
    json_decref(resp);
    json_decref(c);
    return ok;
}

/* Advances the virtual clock when there is one; sleeps otherwise. */
static bool do_wait(exec_t *x, const json_t *step)
{
    json_t *ms = subst(x, json_object_get(json_object_get(step, "wait"), "ms"));
    if (!ms) return false;
    if (!json_is_integer(ms) || json_integer_value(ms) < 0)
        return json_decref(ms), step_fail(x, "wait: ms must be an integer >= 0");
    json_int_t n = json_integer_value(ms);
    bool ok = true;
    if (x->ctx->control) {
        json_t *params = json_pack("{s:I}", "ms", n), *resp = NULL;
        ok = control_call(x, "sim.advance", params, &resp);
        bool advanced = ok && json_object_get(resp, "result");
        json_decref(params);
        json_decref(resp);
        if (ok && !advanced) conf_sleep_ms(n); /* a real-time simulator */
    } else {
        note(x->ctx, "  ", "(sleeping)");
        conf_sleep_ms(n);
    }
    json_decref(ms);
    return ok;
}

static bool do_set(exec_t *x, const json_t *step)
{
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(step, "set"), name, v)
    {
        json_t *val = subst(x, v);
        if (!val) return false;
        conf_vars_set(&x->vars, name, val);
    }
    return true;
}

static bool do_assert(exec_t *x, const json_t *step)
{
    const json_t *a = json_object_get(step, "assert");
    json_t *value = subst(x, json_object_get(a, "value"));
    if (!value) return false;
    json_t *want = subst(x, json_object_get(a, "matches"));
    bool ok = want && conf_match(want, value, "$", &x->why);
    if (!ok && want) {
        x->r->expected = conf_json_pretty(want);
        x->r->actual = conf_json_pretty(value);
    }
    json_decref(want);
    json_decref(value);
    return ok;
}

static bool do_repeat(exec_t *x, const json_t *step, const char *label)
{
    const json_t *rep = json_object_get(step, "repeat");
    json_t *count = subst(x, json_object_get(rep, "count"));
    if (!count) return false;
    if (!json_is_integer(count) || json_integer_value(count) < 0)
        return json_decref(count), step_fail(x, "repeat: count must be an integer >= 0");
    json_int_t n = json_integer_value(count);
    json_decref(count);
    const char *as = json_string_value(json_object_get(rep, "as"));
    for (json_int_t i = 0; i < n; i++) {
        char *prefix = conf_asprintf("%s[%lld]", label, (long long)i);
        if (as) conf_vars_set(&x->vars, as, json_integer(i));
        bool ok = run_steps(x, json_object_get(rep, "steps"), prefix);
        free(prefix);
        if (!ok) return false;
    }
    return true;
}

static bool do_for_each(exec_t *x, const json_t *step, const char *label)
{
    const json_t *fe = json_object_get(step, "for_each");
    const char *in = json_string_value(json_object_get(fe, "in"));
    const char *as = json_string_value(json_object_get(fe, "as"));
    const json_t *list = conf_vars_get(&x->vars, in);
    if (!json_is_array(list) && !json_is_object(list))
        return step_fail(x, "for_each: \"%s\" is %s, not a list or an object", in,
                         list ? conf_json_type_name(list) : "not defined");
    json_t *items = json_array(); /* a copy: the body may rebind what list points into */
    if (json_is_array(list)) {
        json_array_extend(items, (json_t *)list);
    } else {
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)list, key, val)
            json_array_append_new(items, json_pack("{s:s, s:O}", "key", key, "value", val));
    }
    json_t *where = NULL;
    if (json_object_get(fe, "where") && !(where = subst(x, json_object_get(fe, "where")))) {
        json_decref(items);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < json_array_size(items); i++) {
        const json_t *item = json_array_get(items, i);
        if (where && !conf_match(where, item, "$", NULL)) continue;
        char *prefix = conf_asprintf("%s[%zu]", label, i);
        conf_vars_set(&x->vars, as, json_deep_copy(item));
        ok = run_steps(x, json_object_get(fe, "steps"), prefix);
        free(prefix);
    }
    json_decref(where);
    json_decref(items);
    return ok;
}

/* A raw HTTP exchange on the target's endpoint; the answer {status, headers, body, text,
   messages} is what expect matches and capture reads. */
static bool do_http(exec_t *x, const json_t *step)
{
    json_t *req = subst(x, json_object_get(step, "http"));
    if (!req) return false;
    char *text = conf_json_text(req), err[512];
    note(x->ctx, "http->", text);
    free(text);
    json_t *resp = NULL;
    int rc = x->ctx->target->ops->http(x->ctx->target, req, &resp, err, sizeof err);
    json_decref(req);
    if (rc != 0) return step_fail(x, "http: %s", err);
    text = conf_json_text(resp);
    note(x->ctx, "<-http", text);
    free(text);
    bool ok = check_and_capture(x, step, resp);
    if (!ok && !x->r->actual) x->r->actual = conf_json_pretty(resp);
    json_decref(resp);
    return ok;
}

static const char *const action_names[] = {"send",
                                           "send_json",
                                           "send_raw",
                                           "http",
                                           "expect_notification",
                                           "expect_silence",
                                           "control",
                                           "wait",
                                           "repeat",
                                           "for_each",
                                           "set",
                                           "assert",
                                           NULL};

static const char *action_of(const json_t *step)
{
    for (size_t i = 0; action_names[i]; i++)
        if (json_object_get(step, action_names[i])) return action_names[i];
    return "expect";
}

/* A short detail for reports: the method sent or called. */
static const char *detail_of(const json_t *step, const char *action)
{
    const json_t *body = json_object_get(step, action);
    const char *m = json_string_value(json_object_get(body, "method"));
    return m ? m : "";
}

static bool run_step(exec_t *x, const json_t *step, const char *label)
{
    const char *action = action_of(step);
    double t0 = conf_now_msf();
    bool ok;
    if (strcmp(action, "send") == 0)
        ok = do_send(x, step);
    else if (strcmp(action, "send_json") == 0)
        ok = do_send_json(x, step);
    else if (strcmp(action, "send_raw") == 0)
        ok = do_send_raw(x, step);
    else if (strcmp(action, "http") == 0)
        ok = do_http(x, step);
    else if (strcmp(action, "expect_notification") == 0)
        ok = do_expect(x, step, true);
    else if (strcmp(action, "expect_silence") == 0)
        ok = do_silence(x, step);
    else if (strcmp(action, "control") == 0)
        ok = do_control(x, step);
    else if (strcmp(action, "wait") == 0)
        ok = do_wait(x, step);
    else if (strcmp(action, "repeat") == 0)
        ok = do_repeat(x, step, label);
    else if (strcmp(action, "for_each") == 0)
        ok = do_for_each(x, step, label);
    else if (strcmp(action, "set") == 0)
        ok = do_set(x, step);
    else if (strcmp(action, "assert") == 0)
        ok = do_assert(x, step);
    else
        ok = do_expect(x, step, false);
    double ms = conf_now_msf() - t0;
    json_array_append_new(x->r->steps,
                          json_pack("{s:s, s:s, s:s, s:f, s:b}", "step", label, "action", action,
                                    "detail", detail_of(step, action), "ms", ms, "ok", ok));
    return ok;
}

static bool run_steps(exec_t *x, const json_t *steps, const char *prefix)
{
    for (size_t i = 0; i < json_array_size(steps); i++) {
        const json_t *step = json_array_get(steps, i);
        char *label = conf_asprintf("%s%s%zu", prefix, prefix[0] ? "." : "", i + 1);
        size_t before = x->why.len;
        if (run_step(x, step, label)) {
            free(label);
            continue;
        }
        if (x->why.len > before && strncmp(conf_buf_str(&x->why), "step ", 5) != 0) {
            /* prefix the innermost failure with where it happened */
            char *inner = conf_buf_take(&x->why);
            const char *d = detail_of(step, action_of(step));
            const json_t *comment = json_object_get(step, "comment");
            conf_buf_addf(&x->why, "step %s (%s%s%s%s%s): %s", label, action_of(step),
                          d[0] ? " " : "", d, comment ? ": " : "",
                          comment ? json_string_value(comment) : "", inner);
            free(inner);
        }
        free(label);
        return false;
    }
    return true;
}

void conf_run_scenario(conf_run_ctx_t *ctx, const conf_scenario_t *sc, conf_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->sc = sc;
    r->name = conf_strdup(sc->name);
    r->steps = json_array();
    char *unmet = conf_requirements_unmet(ctx, sc);
    if (unmet) {
        r->status = CONF_SKIP;
        r->message = unmet;
        return;
    }
    if (ctx->dirty) resync(ctx);
    queue_clear(ctx);
    ctx->dirty = false;
    conf_buf_t transcript = {0};
    ctx->transcript = &transcript;
    exec_t x = {ctx, sc, {NULL, NULL}, r, {0}};
    conf_vars_init(&x.vars, &ctx->globals);
    set_scenario_dir(&x.vars, sc->file);
    double t0 = conf_now_msf();
    bool ok = sc->check ? sc->check(ctx, sc, &x.why) : run_steps(&x, sc->steps, "");
    r->ms = conf_now_msf() - t0;
    r->status = ok ? CONF_PASS : CONF_FAIL;
    if (!ok) {
        r->message = conf_buf_take(&x.why);
        ctx->dirty = true;
    }
    if (ctx->control && sc->needs_control) {
        json_t *all = json_pack("{s:b}", "all", 1), *resp = NULL;
        char err[256];
        if (conf_control_call(ctx->control, "sim.fault.clear", all, CONTROL_TIMEOUT_MS, &resp, err,
                              sizeof err) == 0)
            json_decref(resp);
        json_decref(all);
    }
    r->transcript = conf_buf_take(&transcript);
    ctx->transcript = NULL;
    conf_buf_free(&x.why);
    conf_vars_free(&x.vars);
}
