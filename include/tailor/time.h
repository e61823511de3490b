/* Simulated time is int64 picoseconds (DESIGN.md: one byte at 400 Gb/s is
 * 20 ps); sizes are bytes, rates bits per second. Converters keep units explicit. */
#ifndef TAILOR_TIME_H
#define TAILOR_TIME_H

#include <stdint.h>
#include <time.h>

#define TL_PS_PER_NS INT64_C(1000)
#define TL_PS_PER_US INT64_C(1000000)
#define TL_PS_PER_MS INT64_C(1000000000)
#define TL_PS_PER_S INT64_C(1000000000000)

/* The latest flow start tailor accepts, about 26.7 days: a quarter of the
 * int64 picosecond range, so that a run's horizon (the last start plus the
 * flows' completion times and timers) still fits. Generators and flow-file
 * readers check every start against it. */
#define TL_START_MAX_PS (INT64_MAX / 4)

static inline int64_t tl_ps_from_ns(double ns) { return (int64_t)(ns * 1e3 + (ns >= 0 ? 0.5 : -0.5)); }
static inline double tl_ps_to_s(int64_t ps) { return (double)ps * 1e-12; }

/* Serialization time of bytes at rate_bps, rounded to the nearest picosecond.
 * Exact for rates that divide 8e12 (every standard Ethernet speed). */
static inline int64_t tl_tx_time_ps(uint64_t bytes, uint64_t rate_bps)
{
    /* Packets take the 64-bit division (the same result: 2e6 bytes x 8e12 +
     * rate / 2 stays below 2^64 for rates up to 1e18); a 128-bit one is a
     * library call, and per packet it was 2.7% of a Parsimon run. */
    if (bytes <= 2000000u && rate_bps <= 1000000000000000000u)
        return (int64_t)((bytes * 8u * 1000000000000u + rate_bps / 2) / rate_bps);
    return (int64_t)(((__uint128_t)bytes * 8u * 1000000000000u + rate_bps / 2) / rate_bps);
}

/* Monotonic wall-clock seconds, for reporting how long a run took (never
 * part of a result). */
static inline double tl_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds the calling thread has used (per-thread profiles). */
static inline double tl_thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
