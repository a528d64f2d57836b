/* reporter.h: how results are reported: one small interface, one file per format in reporters/. */
#ifndef CONF_REPORTER_H
#define CONF_REPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "runner.h"

typedef struct conf_report_info {
    const char *target;    /* the target spec */
    const char *device;    /* "esp32-demo 1.0.0" or "" */
    const char *transport; /* "tcp", "serial" */
    size_t total;          /* scenarios that will be reported */
    const char *profile;   /* "mcpu", "mcp", "mcpsim" (what the device is held to), or "" */
    bool strict;           /* --strict: should-level failures fail the run too */
} conf_report_info_t;

typedef struct conf_summary {
    size_t total, passed, failed, skipped, xfailed, stale;
    size_t passed_level[CONF_LEVELS], failed_level[CONF_LEVELS]; /* by conf_level_t */
    double ms;
    const char *notes; /* remarks from the target (boot noise), may be "" */
    bool strict;       /* should-level failures count (--strict) */
    bool failing;      /* the run fails: a must or extension failure (should with --strict),
                          or a stale expected failure */
    /* Failures grouped by cause (causes.h): [{cause, level, count, scenarios}], or NULL. */
    const json_t *causes;
} conf_summary_t;


typedef struct conf_reporter conf_reporter_t;

/* begin before the first result; result after each scenario (index from 1); end with every
   result of the run (for the formats written as a whole). Any member may be NULL. */
typedef struct conf_reporter_ops {
    void (*begin)(conf_reporter_t *r, const conf_report_info_t *info);
    void (*result)(conf_reporter_t *r, const conf_result_t *res, size_t index, size_t total);
    void (*end)(conf_reporter_t *r, const conf_result_t *all, size_t n, const conf_summary_t *s);
} conf_reporter_ops_t;

struct conf_reporter {
    const conf_reporter_ops_t *ops;
    FILE *out;    /* where it writes (stdout, or the file it was given) */
    bool color;   /* console: ANSI colours */
    bool verbose; /* console: transcripts of passing scenarios too */
    const conf_report_info_t *info;
};

extern const conf_reporter_ops_t conf_reporter_console;
extern const conf_reporter_ops_t conf_reporter_tap;
extern const conf_reporter_ops_t conf_reporter_junit;
extern const conf_reporter_ops_t conf_reporter_json;

/* Writes s XML-escaped (attribute-safe); bytes that XML 1.0 forbids or that are not UTF-8 are
   replaced by '?'. */
void conf_xml_escape(FILE *out, const char *s);

#endif
