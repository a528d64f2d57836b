/* json.c: the JSON report (--json FILE): every scenario with its steps and their timings. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "reporter.h"

static json_t *str_or_null(const char *s)
{
    return s ? conf_json_string_lossy(s) : json_null();
}

static json_t *result_json(const conf_result_t *r)
{
    json_t *o = json_pack("{s:o, s:s, s:f}", "name", conf_json_string_lossy(r->name), "status",
                          conf_status_name(r->status), "duration_ms", r->ms);
    if (r->sc) {
        json_object_set_new(o, "description", json_string(r->sc->description));
        json_object_set_new(o, "file", json_string(r->sc->file));
        json_object_set_new(o, "line", json_integer(r->sc->line));
        json_object_set(o, "tags", r->sc->tags);
        json_object_set_new(o, "level", json_string(conf_level_name(r->sc->level)));
        json_object_set_new(o, "source", conf_json_string_lossy(r->sc->source ? r->sc->source : ""));
    }
    json_object_set_new(o, "message", str_or_null(r->message));
    json_object_set_new(o, "expected", str_or_null(r->expected));
    json_object_set_new(o, "actual", str_or_null(r->actual));
    if (r->status != CONF_PASS && r->status != CONF_SKIP)
        json_object_set_new(o, "transcript", str_or_null(r->transcript));
    json_object_set_new(o, "steps", r->steps ? json_incref(r->steps) : json_array());
    return o;
}

static void js_end(conf_reporter_t *r, const conf_result_t *all, size_t n, const conf_summary_t *s)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(list, result_json(&all[i]));
    json_t *doc =
        json_pack("{s:i, s:s, s:s, s:s, s:s, s:f, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:s, s:o}",
                  "format", 1, "target", r->info ? r->info->target : "", "device",
                  r->info ? r->info->device : "", "transport", r->info ? r->info->transport : "",
                  "finished", stamp, "duration_ms", s->ms, "summary", "total", (json_int_t)s->total,
                  "passed", (json_int_t)s->passed, "failed", (json_int_t)s->failed, "skipped",
                  (json_int_t)s->skipped, "expected_failures", (json_int_t)s->xfailed, "stale",
                  (json_int_t)s->stale, "notes", s->notes ? s->notes : "", "scenarios", list);
    json_t *by = json_object();
    for (int l = 0; l < CONF_LEVELS; l++)
        json_object_set_new(by, conf_level_name((conf_level_t)l),
                            json_pack("{s:I, s:I}", "passed", (json_int_t)s->passed_level[l],
                                      "failed", (json_int_t)s->failed_level[l]));
    json_t *sum = json_object_get(doc, "summary");
    json_object_set_new(sum, "by_level", by);
    json_object_set_new(sum, "failing", json_boolean(s->failing));
    json_object_set_new(doc, "profile", json_string(r->info && r->info->profile ? r->info->profile : ""));
    json_object_set_new(doc, "strict", json_boolean(s->strict));
    json_object_set_new(doc, "causes", s->causes ? json_deep_copy(s->causes) : json_array());
    json_dumpf(doc, r->out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    fputc('\n', r->out);
    json_decref(doc);
}

const conf_reporter_ops_t conf_reporter_json = {NULL, NULL, js_end};
