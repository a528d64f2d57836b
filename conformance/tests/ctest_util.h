/* ctest_util.h: shared helpers of the runner's Check tests (a main per test program). */
#ifndef CTEST_UTIL_H
#define CTEST_UTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* Each test program defines one suite factory and uses this main. */
#define CTEST_MAIN(suite_fn)                                                                       \
    int main(void)                                                                                 \
    {                                                                                              \
        SRunner *sr = srunner_create(suite_fn());                                                  \
        srunner_run_all(sr, CK_NORMAL);                                                            \
        int failed = srunner_ntests_failed(sr);                                                    \
        srunner_free(sr);                                                                          \
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;                                          \
    }

#endif
