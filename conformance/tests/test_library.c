/* test_library.c: the shipped scenario library loads cleanly and every scenario says what it
 * checks. */
#include "ctest_util.h"
#include "scenario.h"

START_TEST(library_loads)
{
    conf_library_t lib;
    conf_buf_t errors = {0};
    conf_library_init(&lib);
    int bad = conf_load_path(&lib, CONF_TEST_SCENARIOS_DIR, &errors);
    ck_assert_msg(bad == 0, "%s", conf_buf_str(&errors));
    ck_assert_uint_ge(lib.count, 60);
    const char *dirs[] = {"jsonrpc/", "mcpu/", "hil/"};
    size_t per_dir[3] = {0, 0, 0};
    for (size_t i = 0; i < lib.count; i++) {
        const conf_scenario_t *sc = lib.items[i];
        ck_assert_msg(strlen(sc->description) >= 20, "%s: description too short", sc->name);
        for (size_t d = 0; d < 3; d++)
            per_dir[d] += strncmp(sc->name, dirs[d], strlen(dirs[d])) == 0;
        if (strncmp(sc->name, "hil/", 4) == 0)
            ck_assert_msg(sc->needs_control, "%s: hil scenarios require control", sc->name);
    }
    for (size_t d = 0; d < 3; d++)
        ck_assert_msg(per_dir[d] >= 10, "%s has %zu", dirs[d], per_dir[d]);
    conf_buf_free(&errors);
    conf_library_free(&lib);
}
END_TEST

static Suite *library_suite(void)
{
    Suite *s = suite_create("library");
    TCase *tc = tcase_create("library");
    tcase_add_test(tc, library_loads);
    suite_add_tcase(s, tc);
    return s;
}

CTEST_MAIN(library_suite)
