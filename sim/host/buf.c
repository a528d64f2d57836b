/* buf.c: a growable byte buffer for output queues and line accumulation in the host. */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow(host_buf_t *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        fputs("mcpsim: error: out of memory\n", stderr);
        abort();
    }
    b->data = p;
    b->cap = cap;
}

void host_buf_append(host_buf_t *b, const void *data, size_t n)
{
    if (n == 0) return;
    if (b->len + n > b->cap) grow(b, b->len + n);
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

void host_buf_consume(host_buf_t *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void host_buf_swap(host_buf_t *a, host_buf_t *b)
{
    host_buf_t t = *a;
    *a = *b;
    *b = t;
}

void host_buf_free(host_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}
