/* libc_small.c: the string functions the core uses, written for size (a port's libc choice). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * newlib-nano's ARMv7-M versions are tuned for speed (strcmp alone is 442 bytes of assembly);
 * the core calls these on short strings (names, keys), where a byte loop is as fast as it
 * needs to be. Each is the C standard's behaviour, nothing more.
 */

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n-- > 0) *d++ = *s++;
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (d < s) {
        while (n-- > 0) *d++ = *s++;
    } else {
        while (n-- > 0) d[n] = s[n];
    }
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    unsigned char *d = dst;
    while (n-- > 0) *d++ = (unsigned char)c;
    return dst;
}

void *memchr(const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    for (; n > 0; n--, p++)
        if (*p == (unsigned char)c) return (void *)(uintptr_t)p;
    return NULL;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *p = a, *q = b;
    for (; n > 0; n--, p++, q++)
        if (*p != *q) return *p - *q;
    return 0;
}

int strcmp(const char *a, const char *b)
{
    while (*a != 0 && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
    for (; n > 0; n--, a++, b++) {
        if (*a != *b) return (unsigned char)*a - (unsigned char)*b;
        if (*a == 0) return 0;
    }
    return 0;
}

size_t strlen(const char *s)
{
    const char *p = s;
    while (*p != 0) p++;
    return (size_t)(p - s);
}

char *strchr(const char *s, int c)
{
    for (;; s++) {
        if (*s == (char)c) return (char *)(uintptr_t)s;
        if (*s == 0) return NULL;
    }
}
