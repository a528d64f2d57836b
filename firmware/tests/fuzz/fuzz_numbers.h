/* fuzz_numbers.h: JSON texts with numbers jansson cannot hold, made loadable for the oracles of
   the device harnesses (fuzz_common.c) and the WebSocket harness (sim/tests/fuzz/fuzz_ws.c). */
#ifndef FUZZ_NUMBERS_H
#define FUZZ_NUMBERS_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * A device echoes a request's id byte for byte, and JSON allows numbers jansson cannot hold
 * (1e400, or integers beyond 64 bits): such numbers are blanked to "0" and spaces, keeping every
 * offset, before jansson reads the text again. The numbers are found by a lexical scan (strings
 * skipped with their escapes), not by the core's reader: a reply may be longer than FW_MSG_MAX,
 * the most the reader takes (a batch of list_tools answers runs to tens of kilobytes).
 */
static inline bool fuzz_beyond_jansson(const char *num, bool integer)
{
    errno = 0;
    if (integer) {
        (void)strtoll(num, NULL, 10);
        return errno == ERANGE;
    }
    double v = strtod(num, NULL);
    return v - v != 0.0; /* overflow to inf; underflow jansson accepts */
}

static inline bool fuzz_number_byte(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* A NUL-terminated copy of text[0..len) with those numbers blanked (malloc'd; NULL: no memory). */
static inline char *fuzz_blank_huge_numbers(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, text, len);
    copy[len] = 0;
    size_t i = 0;
    while (i < len) {
        char c = copy[i];
        if (c == '"') { /* skip the string */
            for (i++; i < len && copy[i] != '"'; i++) {
                if (copy[i] == '\\') i++;
            }
            i++;
            continue;
        }
        if (c != '-' && !(c >= '0' && c <= '9')) {
            i++;
            continue;
        }
        size_t start = i;
        bool integer = true;
        while (i < len && fuzz_number_byte(copy[i])) {
            if (copy[i] == '.' || copy[i] == 'e' || copy[i] == 'E') integer = false;
            i++;
        }
        size_t n = i - start;
        char *num = malloc(n + 1);
        if (num == NULL) {
            free(copy);
            return NULL;
        }
        memcpy(num, copy + start, n);
        num[n] = 0;
        if (fuzz_beyond_jansson(num, integer)) {
            copy[start] = '0';
            memset(copy + start + 1, ' ', n - 1);
        }
        free(num);
    }
    return copy;
}

/* json_loadb, and when a number was beyond jansson, again with such numbers blanked. */
static inline json_t *fuzz_json_loadb(const char *text, size_t len, size_t flags,
                                      json_error_t *err)
{
    json_t *doc = json_loadb(text, len, flags, err);
    if (doc == NULL && json_error_code(err) == json_error_numeric_overflow) {
        char *blanked = fuzz_blank_huge_numbers(text, len);
        if (blanked == NULL) abort();
        doc = json_loadb(blanked, len, flags, err);
        free(blanked);
    }
    return doc;
}

#endif
