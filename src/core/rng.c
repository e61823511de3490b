/* Stream derivation and the GSL adapter for tl_rng (xoshiro256**, Blackman &
 * Vigna 2018). Seeding through splitmix64 avoids the all-zero state. */
#include "tailor/rng.h"

#include <string.h>

uint64_t tl_hash_str(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

void tl_rng_init(tl_rng *r, uint64_t seed, const char *purpose, uint64_t index)
{
    uint64_t x = tl_mix64(seed ^ UINT64_C(0x9e3779b97f4a7c15));
    x = tl_mix64(x ^ tl_hash_str(purpose));
    x = tl_mix64(x ^ (index * UINT64_C(0xd1b54a32d192ed03)));
    for (int i = 0; i < 4; i++) {
        x += UINT64_C(0x9e3779b97f4a7c15);
        r->s[i] = tl_mix64(x);
    }
}

/* GSL calls these through gsl_rng_type; state points at the caller's tl_rng. */
static void gsl_set(void *state, unsigned long seed) { tl_rng_init(state, seed, "gsl", 0); }
static unsigned long gsl_get(void *state) { return (unsigned long)(tl_rng_u64(state) >> 32); }
static double gsl_get_double(void *state) { return tl_rng_uniform(state); }

static const gsl_rng_type tl_gsl_type = {
    .name = "tailor-xoshiro256ss",
    .max = UINT32_MAX,
    .min = 0,
    .size = sizeof(tl_rng),
    .set = gsl_set,
    .get = gsl_get,
    .get_double = gsl_get_double,
};

void tl_rng_gsl(gsl_rng *g, tl_rng *r)
{
    g->type = &tl_gsl_type;
    g->state = r;
}
