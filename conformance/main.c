/* main.c: the conformance runner's command line: load, discover, run, report, exit code. */
#define _DEFAULT_SOURCE
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "causes.h"
#include "discovery.h"
#include "jobs.h"
#include "probe.h"
#include "reporter.h"
#include "runner.h"
#include "scenario.h"
#include "stream.h"
#include "target.h"

#ifndef CONF_SCENARIOS_DIR
#define CONF_SCENARIOS_DIR "scenarios"
#endif
#ifndef CONF_MCPSIM_DEFAULT
#define CONF_MCPSIM_DEFAULT ""
#endif
#define CONF_VERSION "0.2.0"

typedef struct options {
    const char *target, *control, *mcpsim, *filter, *tags, *junit, *json, *xfail_file, *profile;
    const char *mcp_revision;
    const char *scenario_paths[32];
    size_t n_paths;
    bool list, tap, verbose, no_generated, strict;
    long repeat, jobs;
    double timeout_scale;
} options_t;

static void usage(FILE *out)
{
    fputs(
        "Usage: conformance [--target SPEC] [--control tcp:HOST:PORT] [--scenarios PATH]...\n"
        "                   [--filter PATTERN] [--tags LIST] [--list] [--repeat N]\n"
        "                   [--junit FILE] [--tap] [--json FILE] [--expected-failures FILE]\n"
        "                   [--no-generated] [--timeout-scale X] [--jobs N] [--mcpsim PATH] [-v]\n"
        "                   [--profile mcpu|mcp|mcpsim] [--mcp-revision LIST] [--strict]\n"
        "                   [--version]\n"
        "\n"
        "Replays the JSON scenarios (scenarios/README.md) against a device, after discovering it\n"
        "(get_info, list_tools) and adding the checks generated from what it declares.\n"
        "\n"
        "  --target SPEC        sim[:BOARD][?transport=tcp|serial]  spawn mcpsim (default\n"
        "                         sim:esp32-demo; $MCPSIM or --mcpsim names the executable)\n"
        "                       tcp:HOST:PORT                      a device on TCP\n"
        "                       serial:/dev/ttyUSB0[?baud=115200&dtr=1&boot_ms=600]\n"
        "                                                          a device on a serial port\n"
        "                         (serial: is optional: any path, e.g. /tmp/ttyMCP, is a port)\n"
        "                       http://HOST:PORT/mcp, ws://HOST:PORT/PATH[?envelope=1]\n"
        "                                                          MCP over HTTP, WebSocket\n"
        "                       qemu:FILE.elf[?machine=lm3s6965evb&boot_ms=300]\n"
        "                                                          any Cortex-M firmware ELF\n"
        "                                                          under QEMU, over its UART\n"
        "                       avr:FILE.elf[?mcu=atmega328p&freq=16000000&boot_ms=300]\n"
        "                                                          any AVR firmware ELF under\n"
        "                                                          mcpsim-avr ($MCPSIM_AVR), over\n"
        "                                                          USART0 (inputs and ADC through\n"
        "                                                          its control channel)\n"
        "  --control tcp:H:P    drive an already-running simulator's control channel\n"
        "  --scenarios PATH     a scenario file or directory (repeatable; default the library)\n"
        "  --filter PATTERN     only scenarios whose name contains PATTERN (or matches it as a\n"
        "                       glob when it has * ? [)\n"
        "  --tags LIST          only scenarios with one of these tags; -TAG excludes\n"
        "                       (e.g. --tags gpio,adc   --tags -generated)\n"
        "  --list               list the scenarios that would run, and exit\n"
        "  --repeat N           run the selection N times\n"
        "  --junit FILE         also write a JUnit XML report\n"
        "  --tap                write TAP version 13 on stdout instead of the console report\n"
        "  --json FILE          also write a JSON report with per-step timings\n"
        "  --expected-failures FILE\n"
        "                       scenario names (or globs) known to fail, one per line; a listed\n"
        "                       scenario that passes is reported stale and fails the run\n"
        "  --no-generated       skip the checks generated from discovery\n"
        "  --timeout-scale X    multiply every timeout (slow serial links)\n"
        "  --jobs N             sim targets: spread the scenarios over N simulators run in\n"
        "                       parallel (reports stay in library order)\n"
        "  --profile P          what the device is held to: mcpu (the MCP/U documents and\n"
        "                       JSON-RPC 2.0), mcp, or mcpsim (also mcpsim's extensions);\n"
        "                       default chosen from discovery\n"
        "  --mcp-revision LIST  the MCP revisions an MCP device is held to, comma-separated\n"
        "                       (e.g. 2025-11-25,2026-07-28); default what it speaks: the\n"
        "                       version initialize negotiates, and 2026-07-28 when\n"
        "                       server/discover lists it\n"
        "  --strict             should-level failures fail the run too\n"
        "  -v, --verbose        transcripts of passing scenarios too\n"
        "  --version            print the runner's version\n"
        "\n",
        out);
    fputs(
        "Every check has a level: must (fails the run), should (fails it with --strict) and\n"
        "extension (runs when the device advertises it or under --profile mcpsim; fails the\n"
        "run when it ran and failed).\n"
        "\n"
        "Exit status: 0 passed, 1 a must/extension check failed (should with --strict),\n"
        "2 usage or scenario-file error, or no scenario selected,\n"
        "3 device unreachable (the device did not start, did not answer discovery, closed the\n"
        "connection, or stayed silent for 3 failing scenarios in a row). Reports (--junit, --json)\n"
        "are written whatever the exit status. NO_COLOR turns colours off.\n",
        out);
}

/* A usage error in mcpsim's style: what is wrong, then where to look. */
static void usage_error(const char *what)
{
    fprintf(stderr, "conformance: error: %s\nTry 'conformance --help'.\n", what);
}

static int parse_args(int argc, char **argv, options_t *o)
{
    static const struct option longs[] = {{"target", required_argument, 0, 't'},
                                          {"control", required_argument, 0, 'c'},
                                          {"scenarios", required_argument, 0, 's'},
                                          {"filter", required_argument, 0, 'f'},
                                          {"tags", required_argument, 0, 'g'},
                                          {"list", no_argument, 0, 'l'},
                                          {"repeat", required_argument, 0, 'r'},
                                          {"junit", required_argument, 0, 'j'},
                                          {"tap", no_argument, 0, 'T'},
                                          {"json", required_argument, 0, 'J'},
                                          {"expected-failures", required_argument, 0, 'x'},
                                          {"no-generated", no_argument, 0, 'n'},
                                          {"timeout-scale", required_argument, 0, 'S'},
                                          {"mcpsim", required_argument, 0, 'm'},
                                          {"jobs", required_argument, 0, 'N'},
                                          {"verbose", no_argument, 0, 'v'},
                                          {"help", no_argument, 0, 'h'},
                                          {"profile", required_argument, 0, 'P'},
                                          {"strict", no_argument, 0, 'X'},
                                          {"mcp-revision", required_argument, 0, 'R'},
                                          {"version", no_argument, 0, 'V'},
                                          {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->target = "sim:esp32-demo";
    o->repeat = 1;
    o->jobs = 1;
    o->timeout_scale = 1.0;
    int c;
    char *end;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":vh", longs, NULL)) != -1) {
        switch (c) {
        case 't':
            o->target = optarg;
            break;
        case 'c':
            o->control = optarg;
            break;
        case 's':
            if (o->n_paths == sizeof o->scenario_paths / sizeof o->scenario_paths[0]) {
                usage_error("at most 32 --scenarios paths");
                return -1;
            }
            o->scenario_paths[o->n_paths++] = optarg;
            break;
        case 'f':
            o->filter = optarg;
            break;
        case 'g':
            o->tags = optarg;
            break;
        case 'l':
            o->list = true;
            break;
        case 'r':
            o->repeat = strtol(optarg, &end, 10);
            if (*end || o->repeat < 1 || o->repeat > 100000) {
                usage_error("--repeat needs a count from 1 to 100000");
                return -1;
            }
            break;
        case 'j':
            o->junit = optarg;
            break;
        case 'T':
            o->tap = true;
            break;
        case 'J':
            o->json = optarg;
            break;
        case 'x':
            o->xfail_file = optarg;
            break;
        case 'n':
            o->no_generated = true;
            break;
        case 'S':
            o->timeout_scale = strtod(optarg, &end);
            if (*end || o->timeout_scale <= 0 || o->timeout_scale > 1000) {
                usage_error("--timeout-scale needs a number > 0 (and at most 1000)");
                return -1;
            }
            break;
        case 'm':
            o->mcpsim = optarg;
            break;
        case 'N':
            o->jobs = strtol(optarg, &end, 10);
            if (*end || o->jobs < 1 || o->jobs > 64) {
                usage_error("--jobs needs a count from 1 to 64");
                return -1;
            }
            break;
        case 'v':
            o->verbose = true;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        case 'V':
            printf("conformance %s (scenario format %d)\n", CONF_VERSION, CONF_FORMAT_VERSION);
            exit(0);
        case 'P':
            if (strcmp(optarg, "mcpu") && strcmp(optarg, "mcp") && strcmp(optarg, "mcpsim")) {
                char m[160];
                snprintf(m, sizeof m, "unknown profile '%.60s': --profile mcpu|mcp|mcpsim", optarg);
                usage_error(m);
                return -1;
            }
            o->profile = optarg;
            break;
        case 'X':
            o->strict = true;
            break;
        case 'R': {
            /* revisions are dates: YYYY-MM-DD, comma-separated */
            bool ok = optarg[0] != 0 && strlen(optarg) < 90;
            for (const char *p = optarg; ok && *p;) {
                size_t len = strcspn(p, ",");
                ok = len == 10;
                for (size_t i = 0; ok && i < 10; i++)
                    ok = (i == 4 || i == 7) ? p[i] == '-' : (p[i] >= '0' && p[i] <= '9');
                p += len;
                if (*p == ',') p++;
            }
            if (!ok) {
                char m[200];
                snprintf(m, sizeof m,
                         "--mcp-revision '%.60s': a comma-separated list of MCP revisions such as "
                         "2025-11-25,2026-07-28",
                         optarg);
                usage_error(m);
                return -1;
            }
            o->mcp_revision = optarg;
            break;
        }
        case ':': {
            char m[160];
            snprintf(m, sizeof m, "%.60s needs a value", argv[optind - 1]);
            usage_error(m);
            return -1;
        }
        default: {
            char m[160];
            if (optopt)
                snprintf(m, sizeof m, "unknown option '-%c'", optopt);
            else
                snprintf(m, sizeof m, "unknown option '%.60s'", argv[optind - 1]);
            usage_error(m);
            return -1;
        }
        }
    }
    if (optind < argc) {
        char m[160];
        snprintf(m, sizeof m, "unexpected argument '%.60s'", argv[optind]);
        usage_error(m);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- selection */

static bool name_matches(const char *pattern, const char *name)
{
    if (strpbrk(pattern, "*?[")) return fnmatch(pattern, name, 0) == 0;
    return strstr(name, pattern) != NULL;
}

static bool has_tag(const conf_scenario_t *sc, const char *tag, size_t len)
{
    size_t i;
    const json_t *t;
    json_array_foreach(sc->tags, i, t)
    {
        if (json_string_length(t) == len && strncmp(json_string_value(t), tag, len) == 0)
            return true;
    }
    return false;
}

static bool tags_select(const char *list, const conf_scenario_t *sc)
{
    bool any_positive = false, matched = false;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        bool neg = *p == '-';
        if (n > (size_t)neg) {
            if (neg && has_tag(sc, p + 1, n - 1)) return false;
            if (!neg) {
                any_positive = true;
                matched = matched || has_tag(sc, p, n);
            }
        }
        p += n + (p[n] == ',');
    }
    return !any_positive || matched;
}

static bool selected(const options_t *o, const conf_scenario_t *sc)
{
    return (!o->filter || name_matches(o->filter, sc->name)) &&
           (!o->tags || tags_select(o->tags, sc));
}

/* ---------------------------------------------------------------- expected failures */

static json_t *load_xfail(const char *path)
{
    char err[512];
    char *text = conf_read_file(path, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "conformance: %s\n", err);
        return NULL;
    }
    json_t *list = json_array();
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        line += strspn(line, " \t");
        size_t n = strcspn(line, " \t#\r");
        if (n > 0) json_array_append_new(list, json_stringn(line, n));
    }
    free(text);
    return list;
}

static bool xfail_listed(const json_t *list, const char *name)
{
    size_t i;
    const json_t *p;
    json_array_foreach(list, i, p)
    {
        if (fnmatch(json_string_value(p), name, 0) == 0) return true;
    }
    return false;
}

/* ---------------------------------------------------------------- setup */

static const char *default_mcpsim(const options_t *o, char *buf, size_t cap)
{
    const char *env = getenv("MCPSIM");
    if (o->mcpsim) return o->mcpsim;
    if (env && *env) return env;
    if (CONF_MCPSIM_DEFAULT[0] && access(CONF_MCPSIM_DEFAULT, X_OK) == 0)
        return CONF_MCPSIM_DEFAULT;
    const char *beside = conf_beside_exe("mcpsim", X_OK, buf, cap);
    return beside ? beside : "mcpsim";
}

/* The default library: the build's source tree, or, for an installed runner whose source tree
   is gone, PREFIX/share/mcpsim/scenarios beside PREFIX/bin/conformance. */
static const char *default_scenarios(char *buf, size_t cap)
{
    if (access(CONF_SCENARIOS_DIR, R_OK) == 0) return CONF_SCENARIOS_DIR;
    const char *installed = conf_beside_exe("../share/mcpsim/scenarios", R_OK, buf, cap);
    return installed ? installed : CONF_SCENARIOS_DIR;
}

static int load_library(const options_t *o, conf_library_t *lib)
{
    conf_buf_t errors = {0};
    int bad = 0;
    char dir[PATH_MAX];
    const char *env = getenv("CONFORMANCE_SCENARIOS");
    if (o->n_paths == 0)
        bad = conf_load_path(lib, env && *env ? env : default_scenarios(dir, sizeof dir), &errors);
    for (size_t i = 0; i < o->n_paths; i++)
        bad += conf_load_path(lib, o->scenario_paths[i], &errors);
    if (bad) fprintf(stderr, "%s%d scenario file(s) refused\n", conf_buf_str(&errors), bad);
    conf_buf_free(&errors);
    return bad ? -1 : 0;
}

static int list_scenarios(const options_t *o, const conf_library_t *lib)
{
    size_t n = 0;
    for (size_t i = 0; i < lib->count; i++) {
        const conf_scenario_t *sc = lib->items[i];
        if (!selected(o, sc)) continue;
        char *tags = conf_json_text(sc->tags);
        printf("%-56s %-9s %s\n    %s\n    source: %s\n", sc->name, conf_level_name(sc->level),
               tags, sc->description, sc->source);
        free(tags);
        n++;
    }
    printf("%zu scenarios (plus the checks generated at run time from the device's manifest)\n", n);
    if (n == 0 && o->no_generated) {
        fprintf(stderr, "conformance: no scenario selected (check --filter and --tags)\n");
        return CONF_EXIT_USAGE;
    }
    return CONF_EXIT_OK;
}

/* Whether the run fails, from its counts (the exit status's rule). */
static bool run_failing(const conf_summary_t *s, bool strict)
{
    size_t bad = s->stale;
    for (int l = 0; l < CONF_LEVELS; l++)
        if (conf_level_fails_run((conf_level_t)l, strict)) bad += s->failed_level[l];
    return bad > 0;
}

/* ---------------------------------------------------------------- the run */

typedef struct run {
    const options_t *o;
    conf_reporter_t reps[4];
    size_t n_reps;
    FILE *files[2];
    conf_result_t *results;
    size_t n_results;
    conf_summary_t sum;
    json_t *xfail;
} run_t;

static void add_reporter(run_t *r, const conf_reporter_ops_t *ops, FILE *out, bool color)
{
    conf_reporter_t *rep = &r->reps[r->n_reps++];
    rep->ops = ops;
    rep->out = out;
    rep->color = color;
    rep->verbose = r->o->verbose;
}

static int open_reporters(run_t *r)
{
    const char *nc = getenv("NO_COLOR");
    bool color = isatty(STDOUT_FILENO) && !(nc && *nc);
    add_reporter(r, r->o->tap ? &conf_reporter_tap : &conf_reporter_console, stdout, color);
    const char *paths[2] = {r->o->junit, r->o->json};
    const conf_reporter_ops_t *ops[2] = {&conf_reporter_junit, &conf_reporter_json};
    for (size_t i = 0; i < 2; i++) {
        if (!paths[i]) continue;
        r->files[i] = fopen(paths[i], "w");
        if (!r->files[i]) {
            fprintf(stderr, "conformance: cannot write %s\n", paths[i]);
            return -1;
        }
        add_reporter(r, ops[i], r->files[i], false);
    }
    return 0;
}

static void record(run_t *r, conf_result_t *res)
{
    if (r->xfail && res->sc && xfail_listed(r->xfail, res->sc->name)) {
        if (res->status == CONF_FAIL)
            res->status = CONF_XFAIL;
        else if (res->status == CONF_PASS)
            res->status = CONF_STALE;
        if (res->status == CONF_STALE && !res->message)
            res->message = conf_strdup("listed in --expected-failures but passed: remove it "
                                       "from the list");
    }
    conf_level_t lvl = res->sc ? res->sc->level : CONF_LEVEL_MUST;
    switch (res->status) {
    case CONF_PASS:
        r->sum.passed++;
        r->sum.passed_level[lvl]++;
        break;
    case CONF_FAIL:
        r->sum.failed++;
        r->sum.failed_level[lvl]++;
        break;
    case CONF_SKIP:
        r->sum.skipped++;
        break;
    case CONF_XFAIL:
        r->sum.xfailed++;
        break;
    case CONF_STALE:
        r->sum.stale++;
        break;
    }
    r->results[r->n_results++] = *res;
}

/* Result i of the run is repeat i / n of sel[i % n]; repeats after the first are named "#k". */
static void run_index(conf_run_ctx_t *ctx, const conf_scenario_t **sel, size_t n, size_t i,
                      conf_result_t *res)
{
    const conf_stream_t *rx = ctx->target->rx;
    uint64_t msgs = ctx->received, bytes = rx ? rx->rx_bytes : 0;
    conf_run_scenario(ctx, sel[i % n], res);
    conf_run_after_scenario(ctx, res->status == CONF_FAIL, msgs, bytes);
    if (i >= n) {
        char *name = conf_asprintf("%s#%zu", res->name, i / n + 1);
        free(res->name);
        res->name = name;
    }
}

static void report_result(run_t *r, conf_result_t *res, size_t total)
{
    record(r, res);
    for (size_t j = 0; j < r->n_reps; j++)
        if (r->reps[j].ops->result)
            r->reps[j].ops->result(&r->reps[j], &r->results[r->n_results - 1], r->n_results, total);
}

/* --jobs: what the parent hands its workers, and what each worker opens for itself. */
typedef struct jobs_ctx {
    run_t *r;
    const conf_target_opts_t *topts;
    const conf_scenario_t **sel;
    size_t n, total;
    conf_target_t *t;
    conf_control_t *ctl;
    conf_run_ctx_t ctx;
} jobs_ctx_t;

static int job_setup(void *ud, char *err, size_t cap)
{
    jobs_ctx_t *j = ud;
    int rc;
    j->t = conf_target_open(j->r->o->target, j->topts, &rc, err, cap);
    if (!j->t) return -1;
    if (j->t->control[0] && !(j->ctl = conf_control_open(j->t->control, err, cap))) return -1;
    conf_run_init(&j->ctx, j->t, j->ctl);
    j->ctx.timeout_scale = j->r->o->timeout_scale;
    j->ctx.revisions_given = j->r->o->mcp_revision;
    if (conf_discover(&j->ctx, err, cap) != 0) return -1;
    return conf_choose_profile(&j->ctx, j->r->o->profile, err, cap) ? 0 : -1;
}

static void job_run(void *ud, size_t index, conf_result_t *res)
{
    jobs_ctx_t *j = ud;
    run_index(&j->ctx, j->sel, j->n, index, res);
}

static bool job_lost(void *ud)
{
    return ((jobs_ctx_t *)ud)->ctx.lost;
}

static void job_teardown(void *ud)
{
    jobs_ctx_t *j = ud;
    conf_run_free(&j->ctx);
    conf_control_close(j->ctl);
    conf_target_close(j->t);
}

static void job_emit(void *ud, conf_result_t *res, size_t index)
{
    jobs_ctx_t *j = ud;
    res->sc = j->sel[index % j->n];
    if (!res->name) res->name = conf_strdup(res->sc->name);
    report_result(j->r, res, j->total);
}

/* Runs the selection; true when a connection was lost. */
static bool run_all(run_t *r, conf_run_ctx_t *ctx, const conf_target_opts_t *topts,
                    const conf_scenario_t **sel, size_t n)
{
    size_t total = n * (size_t)r->o->repeat;
    bool lost = false;
    r->results = conf_xcalloc(total + 1, sizeof *r->results);
    double t0 = conf_now_msf();
    size_t njobs = (size_t)r->o->jobs < total ? (size_t)r->o->jobs : total;
    if (njobs > 1) {
        static const conf_jobs_ops_t ops = {job_setup, job_run, job_lost, job_teardown};
        jobs_ctx_t j;
        memset(&j, 0, sizeof j);
        j.r = r;
        j.topts = topts;
        j.sel = sel;
        j.n = n;
        j.total = total;
        conf_merge_t m;
        conf_merge_init(&m, total, job_emit, &j);
        lost = conf_jobs_run(njobs, total, &ops, &j, &m);
        conf_merge_free(&m);
    } else {
        for (size_t i = 0; i < total; i++) {
            conf_result_t res;
            run_index(ctx, sel, n, i, &res);
            report_result(r, &res, total);
        }
        lost = ctx->lost;
    }
    r->sum.total = r->n_results;
    r->sum.ms = conf_now_msf() - t0;
    return lost;
}

/*
 * A run that could not begin (the target did not open, or did not answer discovery): says why
 * on stderr and, so that CI always has a report, writes the reports with one failing case,
 * "discovery", carrying the same text. Returns rc.
 */
static int report_not_started(const options_t *o, const char *transport, const char *why, int rc)
{
    fprintf(stderr, "conformance: %s\n", why);
    run_t r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.results = conf_xcalloc(1, sizeof *r.results);
    if (open_reporters(&r) == 0) {
        conf_report_info_t info = {o->target, "", transport, 1, o->profile ? o->profile : "",
                                   o->strict};
        conf_result_t res;
        memset(&res, 0, sizeof res);
        res.name = conf_strdup("discovery");
        res.status = CONF_FAIL;
        res.message = conf_strdup(why);
        for (size_t j = 0; j < r.n_reps; j++) {
            r.reps[j].info = &info;
            if (r.reps[j].ops->begin) r.reps[j].ops->begin(&r.reps[j], &info);
        }
        report_result(&r, &res, 1);
        r.sum.total = r.n_results;
        r.sum.notes = "";
        r.sum.strict = o->strict;
        r.sum.failing = true;
        for (size_t j = 0; j < r.n_reps; j++)
            if (r.reps[j].ops->end) r.reps[j].ops->end(&r.reps[j], r.results, r.n_results, &r.sum);
    }
    for (size_t i = 0; i < 2; i++)
        if (r.files[i]) fclose(r.files[i]);
    for (size_t i = 0; i < r.n_results; i++) conf_result_free(&r.results[i]);
    free(r.results);
    return rc;
}

static int run(const options_t *o, conf_library_t *lib, json_t *xfail)
{
    char err[2048], exe[PATH_MAX];
    conf_target_opts_t topts = {default_mcpsim(o, exe, sizeof exe), o->verbose};
    int rc;
    conf_target_t *t = conf_target_open(o->target, &topts, &rc, err, sizeof err);
    if (!t) return report_not_started(o, "", err, rc);
    if (o->jobs > 1 && (t->ops != &conf_target_sim || o->control)) {
        fprintf(stderr, "conformance: --jobs works with sim targets only (each job spawns its "
                        "own simulator)\n");
        conf_target_close(t);
        return CONF_EXIT_USAGE;
    }
    const char *ctl_addr = o->control ? o->control : t->control;
    conf_control_t *ctl = ctl_addr[0] ? conf_control_open(ctl_addr, err, sizeof err) : NULL;
    if (ctl_addr[0] && !ctl) {
        char *why = conf_asprintf("control channel %s: %s", ctl_addr, err);
        rc = report_not_started(o, t->transport, why, CONF_EXIT_UNREACHABLE);
        free(why);
        conf_target_close(t);
        return rc;
    }
    conf_run_ctx_t ctx;
    conf_run_init(&ctx, t, ctl);
    ctx.timeout_scale = o->timeout_scale;
    ctx.revisions_given = o->mcp_revision;
    rc = CONF_EXIT_OK;
    if (conf_discover(&ctx, err, sizeof err) != 0) {
        char rx[400] = "", diag[900] = "";
        if (t->rx) conf_stream_describe_rx(t->rx, rx, sizeof rx);
        if (t->ops->diagnose) t->ops->diagnose(t, diag, sizeof diag);
        conf_buf_t probes = {0};
        if (!ctx.lost) conf_probe_discovery(t, o->timeout_scale, &probes);
        char *why = conf_asprintf("%s does not answer discovery: %s%s%s%s%s%s%s%s", o->target, err,
                                  rx[0] ? " (" : "", rx, rx[0] ? ")" : "", diag[0] ? "; " : "",
                                  diag, probes.len ? "; " : "", conf_buf_str(&probes));
        conf_buf_free(&probes);
        rc = report_not_started(o, t->transport, why, CONF_EXIT_UNREACHABLE);
        free(why);
    }
    if (rc == CONF_EXIT_OK && !conf_choose_profile(&ctx, o->profile, err, sizeof err)) {
        fprintf(stderr, "conformance: error: %s\n", err);
        rc = CONF_EXIT_USAGE;
    }
    conf_library_t gen;
    conf_library_init(&gen);
    if (rc == CONF_EXIT_OK && !o->no_generated) conf_generate(&ctx, &gen);
    const conf_scenario_t **sel = conf_xcalloc(lib->count + gen.count + 1, sizeof *sel);
    size_t n = 0;
    for (size_t i = 0; i < lib->count; i++)
        if (selected(o, lib->items[i])) sel[n++] = lib->items[i];
    for (size_t i = 0; i < gen.count; i++)
        if (selected(o, gen.items[i])) sel[n++] = gen.items[i];
    run_t r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.xfail = xfail;
    char device[160];
    const char *dev_name = json_string_value(json_object_get(ctx.info, "device"));
    const char *dev_version = json_string_value(json_object_get(ctx.info, "version"));
    snprintf(device, sizeof device, "%s %s", dev_name ? dev_name : "",
             dev_version ? dev_version : "");
    conf_report_info_t info = {o->target, device, t->transport, n * (size_t)o->repeat, ctx.profile,
                               o->strict};
    if (rc == CONF_EXIT_OK && n == 0) {
        fprintf(stderr,
                "conformance: error: no scenario selected (%zu in the library, %zu generated; "
                "check --filter and --tags)\n",
                lib->count, gen.count);
        rc = CONF_EXIT_USAGE;
    }
    if (rc == CONF_EXIT_OK && open_reporters(&r) != 0) rc = CONF_EXIT_USAGE;
    if (rc == CONF_EXIT_OK) {
        for (size_t j = 0; j < r.n_reps; j++) {
            r.reps[j].info = &info;
            if (r.reps[j].ops->begin) r.reps[j].ops->begin(&r.reps[j], &info);
        }
        bool lost = run_all(&r, &ctx, &topts, sel, n);
        r.sum.notes = conf_buf_str(&t->notes);
        r.sum.strict = o->strict;
        r.sum.failing = run_failing(&r.sum, o->strict);
        json_t *causes = conf_causes_group(r.results, r.n_results);
        r.sum.causes = causes;
        for (size_t j = 0; j < r.n_reps; j++)
            if (r.reps[j].ops->end) r.reps[j].ops->end(&r.reps[j], r.results, r.n_results, &r.sum);
        json_decref(causes);
        rc = lost              ? CONF_EXIT_UNREACHABLE
             : r.sum.failing ? CONF_EXIT_FAILED
                             : CONF_EXIT_OK;
        if (lost)
            fprintf(stderr, "conformance: the device was lost: %s\n",
                    ctx.lost_why[0] ? ctx.lost_why : "(a parallel job lost its connection)");
    }
    for (size_t i = 0; i < 2; i++)
        if (r.files[i]) fclose(r.files[i]);
    for (size_t i = 0; i < r.n_results; i++) conf_result_free(&r.results[i]);
    free(r.results);
    free(sel);
    conf_library_free(&gen);
    conf_run_free(&ctx);
    conf_control_close(ctl);
    conf_target_close(t);
    return rc;
}

int main(int argc, char **argv)
{
    options_t o;
    if (parse_args(argc, argv, &o) != 0) return CONF_EXIT_USAGE;
    conf_library_t lib;
    conf_library_init(&lib);
    if (load_library(&o, &lib) != 0) {
        conf_library_free(&lib);
        return CONF_EXIT_USAGE;
    }
    json_t *xfail = NULL;
    if (o.xfail_file && !(xfail = load_xfail(o.xfail_file))) {
        conf_library_free(&lib);
        return CONF_EXIT_USAGE;
    }
    int rc = CONF_EXIT_OK;
    if (o.list)
        rc = list_scenarios(&o, &lib);
    else
        rc = run(&o, &lib, xfail);
    json_decref(xfail);
    conf_library_free(&lib);
    return rc;
}
