/* mono.h: the host's monotonic clock in milliseconds, for timeouts, deadlines and keep-alives. */
#ifndef MCPSIM_HOST_MONO_H
#define MCPSIM_HOST_MONO_H

#include <stdint.h>
#include <time.h>

/* Milliseconds of the coarse monotonic clock where the system has one: a tick of the kernel's,
   a few ms at most, is precise enough for idle timeouts, deadlines of seconds and keep-alives,
   and it is read without the hardware clock (it is read on every HTTP request). */
static inline uint64_t host_mono_ms(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#endif
