/* test_util.h: shared helpers of the core's Check tests: a growing capture sink and a main(). */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fw_json.h"

/* Collects everything written to a sink; reset with cap_reset. */
typedef struct cap {
    char buf[1 << 17];
    size_t len;
    unsigned writes;
} cap_t;

static inline void cap_write(void *ctx, const char *data, size_t len)
{
    cap_t *c = ctx;
    ck_assert_uint_le(c->len + len, sizeof c->buf - 1);
    memcpy(c->buf + c->len, data, len);
    c->len += len;
    c->buf[c->len] = 0;
    c->writes++;
}

static inline fw_sink_t cap_sink(cap_t *c)
{
    fw_sink_t s = {cap_write, c};
    return s;
}

static inline void cap_reset(cap_t *c)
{
    c->len = 0;
    c->buf[0] = 0;
    c->writes = 0;
}

/* Each test program defines one suite factory and uses this main. */
#define TEST_MAIN(suite_fn)                                                                        \
    int main(void)                                                                                 \
    {                                                                                              \
        SRunner *sr = srunner_create(suite_fn());                                                  \
        srunner_run_all(sr, CK_NORMAL);                                                            \
        int failed = srunner_ntests_failed(sr);                                                    \
        srunner_free(sr);                                                                          \
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;                                          \
    }

#endif
