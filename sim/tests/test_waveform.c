/* test_waveform.c: every waveform kind at known instants, ADC quantisation, seeded noise, CSV
   playback and its located errors. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp for the CSV files' temp directory */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"
#include "waveform.h"

#define MS 1000u /* microseconds per millisecond */

static sim_waveform_t *parse_text(const char *json, sim_cfg_err_t *e)
{
    json_error_t je;
    json_t *spec = json_loads(json, JSON_DECODE_ANY, &je);
    ck_assert_msg(spec != NULL, "bad test JSON: %s", je.text);
    sim_waveform_t *wf = sim_waveform_parse(spec, ".", e);
    json_decref(spec);
    return wf;
}

static sim_waveform_t *parse_ok(const char *json)
{
    sim_cfg_err_t e;
    sim_waveform_t *wf = parse_text(json, &e);
    ck_assert_msg(wf != NULL, "%s: %s: %s", json, e.path, e.msg);
    return wf;
}

/* "path: message" of a refused spec. */
static const char *parse_error(const char *json)
{
    static char text[600];
    sim_cfg_err_t e;
    sim_waveform_t *wf = parse_text(json, &e);
    ck_assert_msg(wf == NULL, "%s was accepted", json);
    snprintf(text, sizeof text, "%s: %s", e.path, e.msg);
    return text;
}

#define ck_value(wf, t_us, expect)                                                                 \
    ck_assert_double_eq_tol(sim_waveform_value(wf, t_us), expect, 1e-9)

START_TEST(constant_is_constant)
{
    sim_waveform_t *wf = parse_ok("{\"type\": \"constant\", \"value\": 1.25}");
    ck_value(wf, 0, 1.25);
    ck_value(wf, 123456789u, 1.25);
    sim_waveform_free(wf);
    wf = parse_ok("2.5"); /* a bare number is a constant */
    ck_value(wf, 77, 2.5);
    sim_waveform_free(wf);
}
END_TEST

START_TEST(sine_at_quarter_periods)
{
    sim_waveform_t *wf = parse_ok("{\"type\": \"sine\", \"offset\": 1.65, \"amplitude\": 1, "
                                  "\"period_ms\": 1000}");
    ck_value(wf, 0, 1.65);
    ck_value(wf, 250 * MS, 2.65);
    ck_value(wf, 500 * MS, 1.65);
    ck_value(wf, 750 * MS, 0.65);
    ck_value(wf, 1250 * MS, 2.65); /* periodic */
    sim_waveform_free(wf);
    wf = parse_ok("{\"type\": \"sine\", \"amplitude\": 2, \"period_ms\": 1000, \"phase_deg\": 90}");
    ck_value(wf, 0, 2.0); /* offset defaults to 0; a quarter-turn phase starts at the top */
    ck_value(wf, 500 * MS, -2.0);
    sim_waveform_free(wf);
}
END_TEST

START_TEST(square_follows_duty)
{
    sim_waveform_t *wf = parse_ok("{\"type\": \"square\", \"low\": 0, \"high\": 3.3, "
                                  "\"period_ms\": 100, \"duty\": 0.25}");
    ck_value(wf, 0, 3.3);
    ck_value(wf, 24999, 3.3);
    ck_value(wf, 25 * MS, 0.0);
    ck_value(wf, 99 * MS, 0.0);
    ck_value(wf, 100 * MS, 3.3);
    sim_waveform_free(wf);
    wf = parse_ok("{\"type\": \"square\", \"low\": 1, \"high\": 2, \"period_ms\": 10}");
    ck_value(wf, 4999, 2.0); /* duty defaults to one half */
    ck_value(wf, 5000, 1.0);
    sim_waveform_free(wf);
}
END_TEST

START_TEST(triangle_and_sawtooth)
{
    sim_waveform_t *tri = parse_ok("{\"type\": \"triangle\", \"low\": 1, \"high\": 3, "
                                   "\"period_ms\": 1000}");
    ck_value(tri, 0, 1.0);
    ck_value(tri, 250 * MS, 2.0);
    ck_value(tri, 500 * MS, 3.0);
    ck_value(tri, 750 * MS, 2.0);
    ck_value(tri, 1000 * MS, 1.0);
    sim_waveform_free(tri);
    sim_waveform_t *saw = parse_ok("{\"type\": \"sawtooth\", \"low\": -1, \"high\": 1, "
                                   "\"period_ms\": 200}");
    ck_value(saw, 0, -1.0);
    ck_value(saw, 100 * MS, 0.0);
    ck_value(saw, 150 * MS, 0.5);
    ck_value(saw, 200 * MS, -1.0);
    sim_waveform_free(saw);
}
END_TEST

START_TEST(noise_is_a_function_of_seed_and_time)
{
    sim_waveform_t *a =
        parse_ok("{\"type\": \"noise\", \"mean\": 2, \"stddev\": 0.5, \"seed\": 7}");
    sim_waveform_t *b =
        parse_ok("{\"type\": \"noise\", \"mean\": 2, \"stddev\": 0.5, \"seed\": 7}");
    sim_waveform_t *c =
        parse_ok("{\"type\": \"noise\", \"mean\": 2, \"stddev\": 0.5, \"seed\": 8}");
    double sum = 0, sq = 0;
    unsigned differ = 0;
    const unsigned n = 20000;
    for (unsigned i = 0; i < n; i++) {
        double va = sim_waveform_value(a, i * 1000u);
        ck_assert(va == sim_waveform_value(b, i * 1000u)); /* same seed, same time */
        ck_assert(va == sim_waveform_value(a, i * 1000u)); /* no hidden state */
        differ += va != sim_waveform_value(c, i * 1000u);
        sum += va;
        sq += (va - 2) * (va - 2);
    }
    ck_assert_uint_gt(differ, n - 10);
    ck_assert_double_eq_tol(sum / n, 2.0, 0.02);
    ck_assert_double_eq_tol(sqrt(sq / n), 0.5, 0.02);
    ck_assert(sim_waveform_value(a, 1000) != sim_waveform_value(a, 2000));
    sim_waveform_free(a);
    sim_waveform_free(b);
    sim_waveform_free(c);
}
END_TEST

START_TEST(points_interpolate_hold_and_repeat)
{
    sim_waveform_t *wf = parse_ok("{\"type\": \"points\", \"points\": [[100, 1], [200, 3], "
                                  "[200, 5], [400, 1]]}");
    ck_value(wf, 0, 1.0);        /* before the first point: its value */
    ck_value(wf, 150 * MS, 2.0); /* linear between points */
    ck_value(wf, 199 * MS, 2.98);
    ck_value(wf, 200 * MS, 5.0); /* two points at one time: a step */
    ck_value(wf, 300 * MS, 3.0);
    ck_value(wf, 900 * MS, 1.0); /* after the last point: its value */
    sim_waveform_free(wf);
    wf = parse_ok("{\"type\": \"points\", \"repeat\": true, \"points\": [[0, 0], [100, 10]]}");
    ck_value(wf, 50 * MS, 5.0);
    ck_value(wf, 150 * MS, 5.0); /* the table repeats every last time */
    ck_value(wf, 1025 * MS, 2.5);
    sim_waveform_free(wf);
}
END_TEST

START_TEST(quantisation_rounds_and_clamps)
{
    ck_assert_uint_eq(sim_adc_quantise(1.65, 3.3, 12), 2048); /* 2047.5 rounds up */
    ck_assert_uint_eq(sim_adc_quantise(0.0, 3.3, 12), 0);
    ck_assert_uint_eq(sim_adc_quantise(-0.2, 3.3, 12), 0);
    ck_assert_uint_eq(sim_adc_quantise(3.3, 3.3, 12), 4095);
    ck_assert_uint_eq(sim_adc_quantise(5.0, 3.3, 12), 4095);
    ck_assert_uint_eq(sim_adc_quantise(2.5, 5.0, 10), 512); /* 511.5 */
    ck_assert_uint_eq(sim_adc_quantise(1.0, 5.0, 10), 205); /* 204.6 */
    ck_assert_uint_eq(sim_adc_quantise(NAN, 3.3, 12), 0);
}
END_TEST

START_TEST(spec_is_returned_as_given)
{
    sim_waveform_t *wf = parse_ok("{\"type\": \"sine\", \"amplitude\": 1, \"period_ms\": 5}");
    json_t *spec = sim_waveform_json(wf);
    ck_assert_str_eq(json_string_value(json_object_get(spec, "type")), "sine");
    ck_assert_int_eq(json_integer_value(json_object_get(spec, "period_ms")), 5);
    json_decref(spec);
    sim_waveform_t *copy = sim_waveform_copy(wf);
    sim_waveform_free(wf);
    ck_value(copy, 1250, 1.0);
    sim_waveform_free(copy);
}
END_TEST

START_TEST(bad_specs_name_the_field)
{
    ck_assert_str_eq(parse_error("{\"type\": \"sin\"}"),
                     "type: unknown value \"sin\" (expected one of: constant, sine, square, "
                     "triangle, sawtooth, noise, points, csv)");
    ck_assert_str_eq(parse_error("{\"type\": \"sine\", \"amplitude\": 1}"),
                     ": missing required key \"period_ms\"");
    ck_assert_str_eq(parse_error("{\"type\": \"sine\", \"amplitude\": 1, \"period_ms\": 0}"),
                     "period_ms: 0 is out of range 0.001..1e+12");
    ck_assert_str_eq(parse_error("{\"type\": \"square\", \"low\": 0, \"high\": 1, "
                                 "\"period_ms\": 5, \"duty\": 1.5}"),
                     "duty: 1.5 is out of range 0..1");
    ck_assert_str_eq(parse_error("{\"type\": \"constant\", \"value\": 1, \"unit\": \"V\"}"),
                     "unit: unknown key \"unit\" (allowed: type, value)");
    ck_assert_str_eq(parse_error("{\"type\": \"points\", \"points\": [[0, 1], [5, 2], [3, 1]]}"),
                     "points[2]: time 3 ms is before the previous point's 5 ms");
    ck_assert_str_eq(parse_error("{\"type\": \"points\", \"points\": [[0, 1], [5]]}"),
                     "points[1]: must be a pair [t_ms, value] of numbers");
    ck_assert_str_eq(parse_error("{\"type\": \"points\", \"repeat\": true, \"points\": [[0, 1]]}"),
                     "points: repeat needs a last time > 0 (it is the period)");
    ck_assert_str_eq(parse_error("\"sine\""),
                     ": must be a number or an object with a \"type\", not a string");
    ck_assert_str_eq(parse_error("{\"type\": \"noise\", \"stddev\": -1}"),
                     "stddev: -1 is out of range 0..1e+09");
}
END_TEST

/* ---------------------------------------------------------------- CSV */

static char tmpdir[64];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcpsim-wf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void write_file(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    remove(path);
}

static sim_waveform_t *csv(const char *name, bool repeat, sim_cfg_err_t *e)
{
    json_t *spec = json_pack("{s:s, s:s, s:b}", "type", "csv", "file", name, "repeat", repeat);
    sim_waveform_t *wf = sim_waveform_parse(spec, tmpdir, e);
    json_decref(spec);
    return wf;
}

/* "file:line:column: message" of a refused CSV. */
static const char *csv_error(const char *name, const char *text)
{
    static char out[600];
    sim_cfg_err_t e;
    write_file(name, text);
    sim_waveform_t *wf = csv(name, false, &e);
    remove_file(name);
    ck_assert_msg(wf == NULL, "%s was accepted", name);
    const char *file = strrchr(e.file, '/');
    snprintf(out, sizeof out, "%s:%d:%d: %s", file ? file + 1 : e.file, e.line, e.column, e.msg);
    return out;
}

START_TEST(csv_plays_back_with_header_and_comments)
{
    make_tmpdir();
    write_file("soil.csv", "time_ms,volts\n# dry morning\n0, 1.0\n1000,2.0\r\n\n3000 ,4.0\n");
    sim_cfg_err_t e;
    sim_waveform_t *wf = csv("soil.csv", false, &e);
    ck_assert_msg(wf != NULL, "%s", e.msg);
    ck_value(wf, 0, 1.0);
    ck_value(wf, 500 * MS, 1.5);
    ck_value(wf, 2000 * MS, 3.0);
    ck_value(wf, 9000 * MS, 4.0);
    sim_waveform_free(wf);
    wf = csv("soil.csv", true, &e);
    ck_value(wf, 3500 * MS, 1.5); /* repeats every 3000 ms */
    sim_waveform_free(wf);
    remove_file("soil.csv");
    remove(tmpdir);
}
END_TEST

START_TEST(csv_errors_name_file_line_column)
{
    make_tmpdir();
    ck_assert_str_eq(csv_error("a.csv", "t,v\n0,1\n10,abc\n"),
                     "a.csv:3:4: value \"abc\" is not a number");
    ck_assert_str_eq(csv_error("b.csv", "0,1\nzero,2\n"),
                     "b.csv:2:1: time \"zero\" is not a number");
    ck_assert_str_eq(csv_error("c.csv", "0,1\n  5,2,3\n"),
                     "c.csv:2:3: expected 2 fields: time_ms,value");
    ck_assert_str_eq(csv_error("d.csv", "0,1\n50,2\n40,3\n"),
                     "d.csv:3:1: time 40 ms is before the previous row's");
    ck_assert_str_eq(csv_error("e.csv", "time,value\n# nothing\n"),
                     "e.csv:0:0: no data rows (expected lines of time_ms,value)");
    sim_cfg_err_t e;
    ck_assert_ptr_null(csv("missing.csv", false, &e));
    ck_assert_str_eq(e.path, "file");
    ck_assert_msg(strstr(e.msg, "missing.csv: No such file or directory") != NULL, "%s", e.msg);
    remove(tmpdir);
}
END_TEST

static Suite *waveform_suite(void)
{
    Suite *s = suite_create("waveform");
    TCase *tc = tcase_create("waveform");
    tcase_add_test(tc, constant_is_constant);
    tcase_add_test(tc, sine_at_quarter_periods);
    tcase_add_test(tc, square_follows_duty);
    tcase_add_test(tc, triangle_and_sawtooth);
    tcase_add_test(tc, noise_is_a_function_of_seed_and_time);
    tcase_add_test(tc, points_interpolate_hold_and_repeat);
    tcase_add_test(tc, quantisation_rounds_and_clamps);
    tcase_add_test(tc, spec_is_returned_as_given);
    tcase_add_test(tc, bad_specs_name_the_field);
    tcase_add_test(tc, csv_plays_back_with_header_and_comments);
    tcase_add_test(tc, csv_errors_name_file_line_column);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(waveform_suite)
