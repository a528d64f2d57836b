/* junit.c: the JUnit XML report (--junit FILE), as GitHub Actions and other CI read it. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "reporter.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s)
{
    size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (s[0] >= 0xF5) n = 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return n;
}

void conf_xml_escape(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (p && *p) {
        unsigned char c = *p;
        size_t n = 1;
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\n')
            fputs("&#10;", out);
        else if (c == '\t')
            fputs("&#9;", out);
        else if (c < 0x20)
            fputc('?', out);
        else if (c < 0x80)
            fputc(c, out);
        else if ((n = utf8_seq(p)) > 0)
            fwrite(p, 1, n, out);
        else {
            fputc('?', out);
            n = 1;
        }
        p += n;
    }
}

/* "conformance.must.mcpu" for a must-level "mcpu/gpio/write-read": the level, then the first
   part of the name group the cases. */
static void classname(FILE *out, const conf_result_t *r)
{
    size_t n = strcspn(r->name, "/");
    fprintf(out, "conformance.%s.", conf_level_name(r->sc ? r->sc->level : CONF_LEVEL_MUST));
    fprintf(out, "%.*s", (int)n, r->name);
}

/* A failure that does not fail the run (a should-level one without --strict). */
static bool uncounted(const conf_result_t *r, bool strict)
{
    return r->status == CONF_FAIL && r->sc && !conf_level_fails_run(r->sc->level, strict);
}

static void testcase(FILE *out, const conf_result_t *r, bool strict)
{
    fputs("    <testcase classname=\"", out);
    classname(out, r);
    fputs("\" name=\"", out);
    conf_xml_escape(out, r->name);
    fprintf(out, "\" time=\"%.6f\"", r->ms / 1000.0);
    if (r->sc && r->sc->file[0] != '(') {
        fputs(" file=\"", out);
        conf_xml_escape(out, r->sc->file);
        fprintf(out, "\" line=\"%d\"", r->sc->line);
    }
    fputs(">\n", out);
    if (uncounted(r, strict)) {
        fputs("      <skipped message=\"should-level failure, not counted without --strict: ", out);
        conf_xml_escape(out, r->message);
        fputs("\"/>\n", out);
    } else if (r->status == CONF_SKIP || r->status == CONF_XFAIL) {
        fputs("      <skipped message=\"", out);
        conf_xml_escape(out, r->status == CONF_XFAIL ? "expected failure" : r->message);
        fputs("\"/>\n", out);
    } else if (r->status == CONF_FAIL || r->status == CONF_STALE) {
        const char *msg =
            r->status == CONF_STALE ? "listed in --expected-failures but passed" : r->message;
        fputs("      <failure message=\"", out);
        conf_xml_escape(out, msg);
        fputs("\" type=\"ConformanceFailure\">", out);
        conf_xml_escape(out, msg);
        if (r->expected) {
            fputs("&#10;expected:&#10;", out);
            conf_xml_escape(out, r->expected);
        }
        if (r->actual) {
            fputs("&#10;actual:&#10;", out);
            conf_xml_escape(out, r->actual);
        }
        fputs("</failure>\n", out);
    }
    if (r->transcript && r->transcript[0] && r->status != CONF_PASS) {
        fputs("      <system-out>", out);
        conf_xml_escape(out, r->transcript);
        fputs("</system-out>\n", out);
    }
    fputs("    </testcase>\n", out);
}

static void j_end(conf_reporter_t *r, const conf_result_t *all, size_t n, const conf_summary_t *s)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    size_t failures = s->failed + s->stale, skipped = s->skipped + s->xfailed;
    for (size_t i = 0; i < n; i++)
        if (uncounted(&all[i], s->strict)) failures--, skipped++;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", r->out);
    fprintf(r->out,
            "<testsuites name=\"conformance\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
            n, failures, skipped, s->ms / 1000.0);
    fputs("  <testsuite name=\"", r->out);
    conf_xml_escape(r->out, r->info ? r->info->target : "conformance");
    fprintf(r->out,
            "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
            "time=\"%.3f\" timestamp=\"%s\" hostname=\"localhost\">\n",
            n, failures, skipped, s->ms / 1000.0, stamp);
    if (r->info) {
        fputs("    <properties>\n      <property name=\"device\" value=\"", r->out);
        conf_xml_escape(r->out, r->info->device);
        fputs("\"/>\n      <property name=\"transport\" value=\"", r->out);
        conf_xml_escape(r->out, r->info->transport);
        fputs("\"/>\n      <property name=\"profile\" value=\"", r->out);
        conf_xml_escape(r->out, r->info->profile ? r->info->profile : "");
        fputs("\"/>\n", r->out);
        size_t k;
        const json_t *g;
        json_array_foreach(s->causes, k, g)
        {
            fputs("      <property name=\"cause\" value=\"", r->out);
            char *v = conf_asprintf("[%s] %s: %lld scenario(s)",
                                    json_string_value(json_object_get(g, "level")),
                                    json_string_value(json_object_get(g, "cause")),
                                    (long long)json_integer_value(json_object_get(g, "count")));
            conf_xml_escape(r->out, v);
            free(v);
            fputs("\"/>\n", r->out);
        }
        fputs("    </properties>\n", r->out);
    }
    for (size_t i = 0; i < n; i++) testcase(r->out, &all[i], s->strict);
    if (s->notes && s->notes[0]) {
        fputs("    <system-out>", r->out);
        conf_xml_escape(r->out, s->notes);
        fputs("</system-out>\n", r->out);
    }
    fputs("  </testsuite>\n</testsuites>\n", r->out);
}

const conf_reporter_ops_t conf_reporter_junit = {NULL, NULL, j_end};
