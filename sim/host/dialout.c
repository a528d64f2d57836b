/* dialout.c: {n} templates for the identities of a fleet's devices. */
#include "dialout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

char *host_template(const char *text, unsigned n)
{
    if (!text) return NULL;
    char num[16];
    int numlen = snprintf(num, sizeof num, "%u", n);
    host_buf_t b = {0};
    for (const char *p = text;;) {
        const char *hit = strstr(p, "{n}");
        size_t chunk = hit ? (size_t)(hit - p) : strlen(p);
        host_buf_append(&b, p, chunk);
        if (!hit) break;
        host_buf_append(&b, num, (size_t)numlen);
        p = hit + 3;
    }
    host_buf_append(&b, "", 1);
    return b.data;
}
