/* console.c: the console report: a line per scenario, failures with their diff and transcript. */
#include <string.h>

#include "reporter.h"

static const char *colour(const conf_reporter_t *r, conf_status_t s)
{
    static const char *const codes[] = {"\033[32m", "\033[31m", "\033[33m", "\033[36m", "\033[35m"};
    return r->color ? codes[s] : "";
}

static const char *reset(const conf_reporter_t *r)
{
    return r->color ? "\033[0m" : "";
}

static const char *dim(const conf_reporter_t *r)
{
    return r->color ? "\033[2m" : "";
}

/* Writes text with every line indented. */
static void indented(FILE *out, const char *title, const char *text, const char *indent)
{
    if (!text || !text[0]) return;
    fprintf(out, "%s%s\n", indent, title);
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "%s  %.*s\n", indent, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static void c_begin(conf_reporter_t *r, const conf_report_info_t *info)
{
    fprintf(r->out, "conformance: %s (%s%s%s), %zu scenarios\n", info->target,
            info->device[0] ? info->device : "unknown device", info->transport[0] ? ", " : "",
            info->transport, info->total);
}

static void c_result(conf_reporter_t *r, const conf_result_t *res, size_t index, size_t total)
{
    static const char *const labels[] = {"PASS ", "FAIL ", "SKIP ", "XFAIL", "STALE"};
    int width = 1;
    for (size_t t = total; t >= 10; t /= 10) width++;
    static const char *const levels[] = {"must  ", "should", "ext   "};
    fprintf(r->out, "[%*zu/%zu] %s%s%s %s %-52s", width, index, total, colour(r, res->status),
            labels[res->status], reset(r), res->sc ? levels[res->sc->level] : "must  ",
            res->name);
    if (res->status == CONF_SKIP) {
        fprintf(r->out, " %s%s%s\n", dim(r), res->message ? res->message : "", reset(r));
        return;
    }
    fprintf(r->out, " %8.1f ms\n", res->ms);
    bool show = res->status == CONF_FAIL || res->status == CONF_STALE || r->verbose;
    if (!show) return;
    if (res->message) indented(r->out, "why:", res->message, "      ");
    if (res->sc) {
        fprintf(r->out, "      scenario: %s:%d:%d\n", res->sc->file, res->sc->line, res->sc->col);
        fprintf(r->out, "      rule: %s (%s)\n", res->sc->source ? res->sc->source : "",
                conf_level_name(res->sc->level));
    }
    indented(r->out, "expected:", res->expected, "      ");
    indented(r->out, "actual:", res->actual, "      ");
    indented(r->out, "transcript:", res->transcript, "      ");
}

static void c_end(conf_reporter_t *r, const conf_result_t *all, size_t n, const conf_summary_t *s)
{
    (void)all;
    (void)n;
    if (s->notes && s->notes[0]) indented(r->out, "notes:", s->notes, "");
    size_t k;
    const json_t *g;
    if (json_array_size(s->causes) > 0)
        fprintf(r->out, "failures by cause (%zu failed, %zu cause%s):\n", s->failed,
                json_array_size(s->causes), json_array_size(s->causes) == 1 ? "" : "s");
    json_array_foreach(s->causes, k, g)
    {
        const json_t *names = json_object_get(g, "scenarios");
        fprintf(r->out, "  [%s] %s: %zu scenario%s\n", json_string_value(json_object_get(g, "level")),
                json_string_value(json_object_get(g, "cause")), json_array_size(names),
                json_array_size(names) == 1 ? "" : "s");
        size_t i;
        const json_t *nm;
        json_array_foreach(names, i, nm) fprintf(r->out, "      %s\n", json_string_value(nm));
    }
    for (int l = 0; l < CONF_LEVELS; l++) {
        if (!s->passed_level[l] && !s->failed_level[l]) continue;
        fprintf(r->out, "%-9s %zu passed, %zu failed%s\n", conf_level_name((conf_level_t)l),
                s->passed_level[l], s->failed_level[l],
                s->failed_level[l] && !conf_level_fails_run((conf_level_t)l, s->strict)
                    ? " (not counted; --strict counts them)"
                    : "");
    }
    bool bad = s->failing;
    fprintf(r->out,
            "%s%zu scenarios: %zu passed, %zu failed, %zu skipped, %zu expected "
            "failures, %zu stale in %.2f s%s\n",
            bad ? colour(r, CONF_FAIL) : colour(r, CONF_PASS), s->total, s->passed, s->failed,
            s->skipped, s->xfailed, s->stale, s->ms / 1000.0, reset(r));
}

const conf_reporter_ops_t conf_reporter_console = {c_begin, c_result, c_end};
