/* test_fuzz_replay.c: the fuzz corpora (and JSONTestSuite) replayed through the fuzz harnesses. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/*
 * The harnesses are compiled into this test as one unit, so the test glob builds it from this
 * file alone (with fwcore, the mock HAL, Check and jansson); libFuzzer builds (tools/fuzz) compile
 * the same files with FUZZ_LIBFUZZER. A harness that finds a broken property aborts: Check
 * reports the signal and the harness has printed the property and the input file.
 */
#include "fuzz/fuzz_common.c"
#include "fuzz/fuzz_device_feed.c"
#include "fuzz/fuzz_device_handle.c"
#include "fuzz/fuzz_json_reader.c"
#include "fuzz/fuzz_oracle.c"

/* Where the corpora are: $FUZZ_CORPUS_DIR, the compile-time FUZZ_CORPUS_DIR (relative to the
   working directory), or fuzz/corpus beside this source file. */
#ifndef FUZZ_CORPUS_DIR
#define FUZZ_CORPUS_DIR "firmware/tests/fuzz/corpus"
#endif

#ifndef JSON_TEST_SUITE_DIR
#define JSON_TEST_SUITE_DIR "firmware/tests/data/JSONTestSuite/test_parsing"
#endif

/* Fewest files a harness's corpus may hold: fewer means the corpus went missing. */
#define CORPUS_MIN_FILES 20

typedef int (*harness_fn)(const uint8_t *data, size_t size);

typedef struct harness {
    const char *name;
    harness_fn fn;
} harness_t;

static const harness_t harnesses[] = {
    {"json_reader", fuzz_json_reader},
#if FUZZ_DEVICE
    {"device_feed", fuzz_device_feed},
    {"device_handle", fuzz_device_handle},
#endif
};

#define HARNESS_COUNT (sizeof harnesses / sizeof harnesses[0])

static char corpus_root[4096];

static bool is_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d != NULL) closedir(d);
    return d != NULL;
}

static const char *find_corpus_root(void)
{
    const char *env = getenv("FUZZ_CORPUS_DIR");
    if (env != NULL && env[0] != 0) return env;
    if (is_dir(FUZZ_CORPUS_DIR)) return FUZZ_CORPUS_DIR;
    const char *slash = strrchr(__FILE__, '/');
    int dir_len = slash != NULL ? (int)(slash - __FILE__) : 1;
    snprintf(corpus_root, sizeof corpus_root, "%.*s/fuzz/corpus", dir_len,
             slash != NULL ? __FILE__ : ".");
    return corpus_root;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files in dir, sorted (the caller frees the list and its names). */
static char **list_files(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open corpus directory %s", dir);
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        ck_assert(names != NULL);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 0) qsort(names, n, sizeof *names, by_name);
    *count = n;
    return names;
}

/* The file's bytes in a heap block of exactly its size (ASan sees any read past the end). */
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    uint8_t *data = malloc(len > 0 ? (size_t)len : 1);
    ck_assert(data != NULL);
    ck_assert_uint_eq(fread(data, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *size = (size_t)len;
    return data;
}

/* Runs every file of dir through fn; returns how many there were. */
static size_t replay_dir(const char *dir, harness_fn fn)
{
    size_t count;
    char **names = list_files(dir, &count);
    for (size_t i = 0; i < count; i++) {
        char path[4096];
        size_t size;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        uint8_t *data = read_file(path, &size);
        fuzz_input_name = path;
        ck_assert_msg(fn(data, size) == 0, "%s returned non-zero", path);
        fuzz_input_name = NULL;
        free(data);
        free(names[i]);
    }
    free(names);
    return count;
}

static const char *corpus_of(size_t h, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", find_corpus_root(), harnesses[h].name);
    return out;
}

/* Each harness on its own corpus: every file returns 0 and the corpus is not empty. */
START_TEST(replay_own_corpus)
{
    char dir[4096];
    size_t n = replay_dir(corpus_of((size_t)_i, dir, sizeof dir), harnesses[_i].fn);
    ck_assert_msg(n >= CORPUS_MIN_FILES, "%s holds %zu files (expected at least %d)", dir, n,
                  CORPUS_MIN_FILES);
}
END_TEST

/* Each harness on the other harnesses' corpora (all three, also where a build has only the
   reader's harness): every harness must take any input. */
START_TEST(replay_other_corpora)
{
    char dir[4096];
    static const char *const corpora[] = {"json_reader", "device_feed", "device_handle"};
    for (size_t h = 0; h < FW_ARRAY_LEN(corpora); h++) {
        if (strcmp(corpora[h], harnesses[_i].name) == 0) continue;
        snprintf(dir, sizeof dir, "%s/%s", find_corpus_root(), corpora[h]);
        replay_dir(dir, harnesses[_i].fn);
    }
}
END_TEST

/* The vendored JSONTestSuite through the reader's harness (its differential against jansson
   included) and through the whole-message path. */
START_TEST(replay_json_test_suite)
{
    ck_assert_uint_gt(replay_dir(JSON_TEST_SUITE_DIR, fuzz_json_reader), 300);
#if FUZZ_DEVICE
    replay_dir(JSON_TEST_SUITE_DIR, fuzz_device_handle);
#endif
}
END_TEST

/* Inputs at the edges that a corpus might lose in a merge. */
START_TEST(replay_edge_inputs)
{
    static const char *const inputs[] = {"", "\n", "\r\n", "{", "[", "\"", "0", "-", "[]", "{}"};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        for (size_t h = 0; h < HARNESS_COUNT; h++)
            ck_assert_int_eq(harnesses[h].fn((const uint8_t *)inputs[i], strlen(inputs[i])), 0);
}
END_TEST

static Suite *fuzz_replay_suite(void)
{
    Suite *s = suite_create("fuzz_replay");
    TCase *tc = tcase_create("corpora");
    tcase_set_timeout(tc, 120); /* ASan: ~6 s; a hang (a core assertion spins) fails */
    tcase_add_loop_test(tc, replay_own_corpus, 0, (int)HARNESS_COUNT);
    tcase_add_loop_test(tc, replay_other_corpora, 0, (int)HARNESS_COUNT);
    tcase_add_test(tc, replay_json_test_suite);
    tcase_add_test(tc, replay_edge_inputs);
    suite_add_tcase(s, tc);
    return s;
}

TEST_MAIN(fuzz_replay_suite)
