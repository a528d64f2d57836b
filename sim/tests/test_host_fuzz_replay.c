/* test_host_fuzz_replay.c: the simulator's fuzz corpora (sim/tests/fuzz/corpus/<harness>)
   replayed through its harnesses, built without libFuzzer (tools/fuzz-sim builds them with
   it). A harness that finds a broken property aborts: Check reports the signal, the harness has
   printed the property, and this test prints the input's name first. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_address.c"
#include "fuzz/fuzz_backing.c"
#include "fuzz/fuzz_board.c"
#include "fuzz/fuzz_control.c"
#include "fuzz/fuzz_envelope.c"
#include "fuzz/fuzz_http.c"
#include "fuzz/fuzz_http_check.c"
#include "fuzz/fuzz_ws.c"
#include "test_util.h"

/* Fewest files a corpus may hold: fewer means it went missing. */
#define CORPUS_MIN_FILES 8

typedef struct harness {
    const char *name;
    int (*fn)(const uint8_t *data, size_t size);
} harness_t;

static const harness_t harnesses[] = {
    {"http_check", fuzz_sim_http_check}, {"address", fuzz_sim_address},
    {"envelope", fuzz_sim_envelope},     {"control", fuzz_sim_control},
    {"board", fuzz_sim_board},           {"backing", fuzz_sim_backing},
    {"http", fuzz_sim_http},             {"ws", fuzz_sim_ws},
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay(const harness_t *h)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sim/tests/fuzz/corpus/%s", MCPSIM_SOURCE_DIR, h->name);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "no corpus at %s", dir);
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        ck_assert_ptr_nonnull(names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    ck_assert_msg(n >= CORPUS_MIN_FILES, "%s holds %zu files (at least %d expected)", dir, n,
                  CORPUS_MIN_FILES);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        uint8_t *data = malloc(len > 0 ? (size_t)len : 1); /* exactly its size: ASan sees more */
        ck_assert_uint_eq(fread(data, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        ck_assert_msg(h->fn(data, (size_t)len) == 0, "%s returned non-zero", path);
        free(data);
        free(names[i]);
    }
    free(names);
}

START_TEST(every_corpus_replays_through_its_harness)
{
    replay(&harnesses[_i]);
}
END_TEST

static Suite *replay_suite(void)
{
    Suite *s = suite_create("host_fuzz_replay");
    TCase *tc = tcase_create("corpora");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_corpus_replays_through_its_harness, 0,
                        (int)(sizeof harnesses / sizeof harnesses[0]));
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(replay_suite)
