/* test_fuzz_scenario.c: the scenario loader's fuzz corpus (tests/fuzz/corpus/scenario) replayed
   through its harness, built without libFuzzer (tools/fuzz-sim scenario builds it with it). */
#include <dirent.h>

#include "ctest_util.h"
#include "fuzz/fuzz_scenario.c"

#ifndef CONF_FUZZ_CORPUS
#define CONF_FUZZ_CORPUS CONF_TEST_SCENARIOS_DIR "/../conformance/tests/fuzz/corpus/scenario"
#endif

START_TEST(the_corpus_replays_through_the_harness)
{
    DIR *d = opendir(CONF_FUZZ_CORPUS);
    ck_assert_msg(d != NULL, "no corpus at %s", CONF_FUZZ_CORPUS);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", CONF_FUZZ_CORPUS, e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        unsigned char *data = malloc(len > 0 ? (size_t)len : 1);
        ck_assert_uint_eq(fread(data, 1, (size_t)len, f), (size_t)len);
        fclose(f);
        ck_assert_int_eq(fuzz_scenario(data, (size_t)len), 0);
        free(data);
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 8);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fuzz_scenario");
    TCase *tc = tcase_create("corpus");
    tcase_add_test(tc, the_corpus_replays_through_the_harness);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(suite)
