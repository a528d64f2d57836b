/* buf.h: a growable byte buffer for output queues and line accumulation in the host. */
#ifndef HOST_BUF_H
#define HOST_BUF_H

#include <stddef.h>

typedef struct host_buf {
    char *data; /* heap, owned; NULL while empty and never grown */
    size_t len;
    size_t cap;
} host_buf_t;

/* Appends n bytes, growing the buffer (out of memory is fatal: the process aborts). */
void host_buf_append(host_buf_t *b, const void *data, size_t n);

/* Drops the first n bytes (n <= len). */
void host_buf_consume(host_buf_t *b, size_t n);

/* Exchanges the contents of two buffers (a write queue's pending and in-flight halves). */
void host_buf_swap(host_buf_t *a, host_buf_t *b);

/* Releases the memory; the buffer is empty and reusable afterwards. */
void host_buf_free(host_buf_t *b);

#endif
