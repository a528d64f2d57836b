/* test_jobs.c: --jobs: results merged back in library order whatever order workers finish in. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "ctest_util.h"
#include "jobs.h"

/* What emit saw, in the order it saw it. */
typedef struct seen {
    size_t index[64];
    char *name[64];
    conf_status_t status[64];
    char *message[64];
    size_t n;
} seen_t;

static void collect(void *ud, conf_result_t *r, size_t index)
{
    seen_t *s = ud;
    s->index[s->n] = index;
    s->name[s->n] = r->name ? conf_strdup(r->name) : NULL;
    s->message[s->n] = r->message ? conf_strdup(r->message) : NULL;
    s->status[s->n] = r->status;
    s->n++;
    conf_result_free(r);
}

static void seen_free(seen_t *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->name[i]);
        free(s->message[i]);
    }
}

static conf_result_t named(const char *name)
{
    conf_result_t r;
    memset(&r, 0, sizeof r);
    r.name = conf_strdup(name);
    r.steps = json_array();
    return r;
}

START_TEST(merge_emits_in_index_order)
{
    seen_t s = {0};
    conf_merge_t m;
    conf_merge_init(&m, 4, collect, &s);
    const size_t order[] = {2, 3, 0, 1};
    const size_t emitted_after[] = {0, 0, 1, 4}; /* emits so far after each put */
    for (size_t k = 0; k < 4; k++) {
        char name[8];
        snprintf(name, sizeof name, "s%zu", order[k]);
        conf_result_t r = named(name);
        ck_assert_int_eq(conf_merge_put(&m, order[k], &r), 0);
        ck_assert_uint_eq(s.n, emitted_after[k]);
    }
    for (size_t i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%zu", i);
        ck_assert_uint_eq(s.index[i], i);
        ck_assert_str_eq(s.name[i], name);
    }
    conf_merge_free(&m);
    seen_free(&s);
}
END_TEST

START_TEST(merge_refuses_duplicates_and_out_of_range)
{
    seen_t s = {0};
    conf_merge_t m;
    conf_merge_init(&m, 3, collect, &s);
    conf_result_t r = named("a");
    ck_assert_int_eq(conf_merge_put(&m, 1, &r), 0);
    r = named("dup");
    ck_assert_int_eq(conf_merge_put(&m, 1, &r), -1);
    r = named("far");
    ck_assert_int_eq(conf_merge_put(&m, 3, &r), -1);
    r = named("b");
    ck_assert_int_eq(conf_merge_put(&m, 0, &r), 0);
    ck_assert_uint_eq(s.n, 2);
    r = named("again");
    ck_assert_int_eq(conf_merge_put(&m, 0, &r), -1); /* already emitted */
    ck_assert_uint_eq(s.n, 2);
    conf_merge_free(&m); /* index 2 never came: nothing leaks */
    seen_free(&s);
}
END_TEST

START_TEST(result_json_round_trip)
{
    conf_result_t r = named("mcp/tools-list");
    r.status = CONF_FAIL;
    r.message = conf_strdup("step 2: expected 1");
    r.expected = conf_strdup("{\n  \"a\": 1\n}");
    r.transcript = conf_strdup("-> {}\n<- {}\n");
    r.ms = 1.5;
    json_array_append_new(r.steps, json_pack("{s:s,s:b}", "step", "1", "ok", 1));
    json_t *j = conf_result_to_json(&r);
    conf_result_t back;
    ck_assert_int_eq(conf_result_from_json(j, &back), 0);
    ck_assert_str_eq(back.name, r.name);
    ck_assert_int_eq(back.status, CONF_FAIL);
    ck_assert_str_eq(back.message, r.message);
    ck_assert_str_eq(back.expected, r.expected);
    ck_assert_ptr_null(back.actual);
    ck_assert_str_eq(back.transcript, r.transcript);
    ck_assert_double_eq_tol(back.ms, 1.5, 1e-9);
    ck_assert(json_equal(back.steps, r.steps));
    ck_assert_ptr_null(back.sc);
    json_decref(j);
    conf_result_free(&back);
    conf_result_free(&r);
    j = json_pack("{s:i}", "status", 99);
    ck_assert_int_eq(conf_result_from_json(j, &back), -1);
    json_decref(j);
}
END_TEST

/* Fake workers: index i takes longer the smaller i is, so results arrive roughly backwards. */
typedef struct fake {
    size_t total;
    bool fail_setup, lose;
} fake_t;

static int fake_setup(void *ud, char *err, size_t cap)
{
    const fake_t *f = ud;
    if (f->fail_setup) snprintf(err, cap, "no simulator");
    return f->fail_setup ? -1 : 0;
}

static void fake_run(void *ud, size_t index, conf_result_t *r)
{
    const fake_t *f = ud;
    usleep((useconds_t)((f->total - index) * 3000));
    char name[16];
    snprintf(name, sizeof name, "s%zu", index);
    *r = named(name);
    r->status = index % 3 == 0 ? CONF_SKIP : CONF_PASS;
}

static bool fake_lost(void *ud)
{
    return ((const fake_t *)ud)->lose;
}

static void fake_teardown(void *ud)
{
    (void)ud;
}

static const conf_jobs_ops_t fake_ops = {fake_setup, fake_run, fake_lost, fake_teardown};

START_TEST(workers_results_merge_in_order)
{
    for (size_t njobs = 1; njobs <= 4; njobs++) {
        fake_t f = {10, false, false};
        seen_t s = {0};
        conf_merge_t m;
        conf_merge_init(&m, f.total, collect, &s);
        ck_assert(!conf_jobs_run(njobs, f.total, &fake_ops, &f, &m));
        ck_assert_uint_eq(s.n, f.total);
        for (size_t i = 0; i < f.total; i++) {
            char name[16];
            snprintf(name, sizeof name, "s%zu", i);
            ck_assert_uint_eq(s.index[i], i);
            ck_assert_str_eq(s.name[i], name);
            ck_assert_int_eq(s.status[i], i % 3 == 0 ? CONF_SKIP : CONF_PASS);
        }
        conf_merge_free(&m);
        seen_free(&s);
    }
}
END_TEST

START_TEST(worker_that_cannot_start_fails_its_scenarios)
{
    fake_t f = {5, true, false};
    seen_t s = {0};
    conf_merge_t m;
    conf_merge_init(&m, f.total, collect, &s);
    conf_jobs_run(2, f.total, &fake_ops, &f, &m);
    ck_assert_uint_eq(s.n, 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(s.index[i], i);
        ck_assert_int_eq(s.status[i], CONF_FAIL);
        ck_assert_ptr_nonnull(strstr(s.message[i], "no simulator"));
    }
    conf_merge_free(&m);
    seen_free(&s);
}
END_TEST

START_TEST(lost_connection_is_reported)
{
    fake_t f = {4, false, true};
    seen_t s = {0};
    conf_merge_t m;
    conf_merge_init(&m, f.total, collect, &s);
    ck_assert(conf_jobs_run(2, f.total, &fake_ops, &f, &m));
    ck_assert_uint_eq(s.n, 4);
    conf_merge_free(&m);
    seen_free(&s);
}
END_TEST

static Suite *jobs_suite(void)
{
    Suite *s = suite_create("jobs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, merge_emits_in_index_order);
    tcase_add_test(tc, merge_refuses_duplicates_and_out_of_range);
    tcase_add_test(tc, result_json_round_trip);
    tcase_add_test(tc, workers_results_merge_in_order);
    tcase_add_test(tc, worker_that_cannot_start_fails_its_scenarios);
    tcase_add_test(tc, lost_connection_is_reported);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(jobs_suite)
