/* Deterministic random streams. Every stream is derived from (scenario seed,
 * purpose, index) (DESIGN.md "Deterministic"), so results do not depend on how
 * work is split among threads. The generator is xoshiro256** held by value:
 * millions of streams (one per flow in Parsimon's aggregation) cost no malloc,
 * which gsl_rng_alloc would. Distributions come from GSL through tl_rng_gsl(). */
#ifndef TAILOR_RNG_H
#define TAILOR_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

typedef struct tl_rng {
    uint64_t s[4];
} tl_rng;

/* Seeds r from (seed, purpose, index); purpose is a short constant string
 * naming the use ("sizes", "arrivals", ...). Distinct triples give independent
 * streams (splitmix64 over a hash of the triple). */
void tl_rng_init(tl_rng *r, uint64_t seed, const char *purpose, uint64_t index);

static inline uint64_t tl_rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* Next 64 uniform bits. */
static inline uint64_t tl_rng_u64(tl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = tl_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = tl_rng_rotl(s[3], 45);
    return out;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double tl_rng_uniform(tl_rng *r) { return (double)(tl_rng_u64(r) >> 11) * 0x1.0p-53; }

/* Uniform double in (0, 1): never 0, for logs. */
static inline double tl_rng_uniform_pos(tl_rng *r)
{
    return ((double)(tl_rng_u64(r) >> 11) + 0.5) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t tl_rng_below(tl_rng *r, uint64_t n)
{
    return (uint64_t)(((__uint128_t)tl_rng_u64(r) * n) >> 64);
}

/* A gsl_rng view of r for GSL's distribution samplers (gsl_ran_*). g is the
 * caller's storage; it borrows r, so r must outlive every use of g. */
void tl_rng_gsl(gsl_rng *g, tl_rng *r);

/* 64-bit mixing function (splitmix64 finalizer): a good hash of one word. */
static inline uint64_t tl_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

/* FNV-1a hash of a string (purpose names, scenario hashing). */
uint64_t tl_hash_str(const char *s);

#endif
