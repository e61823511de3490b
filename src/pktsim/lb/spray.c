/* Oblivious packet spraying: every data packet draws a fresh entropy, so
 * packets of one flow spread over all ECMP paths (the spraying Uno's
 * load balancer starts from, uno.txt §4.3). */
#include "../lb.h"

static uint64_t entropy(void *st, uint64_t seq, int64_t now, tl_rng *r, uint8_t *tag)
{
    return tl_rng_u64(r) | 1;
}

const tl_lb_ops tl_lb_spray = {
    .name = "spray",
    .doc = "Packet spraying: a random ECMP path for every data packet.",
    .state_bytes = 0,
    .entropy = entropy,
};
