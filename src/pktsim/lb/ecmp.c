/* Per-flow ECMP: every packet of a subflow takes the subflow's hashed path
 * (subflow 0: the flow's own hash; subflow j: the hash salted with j). */
#include "../lb.h"

static void init(void *st, uint32_t sub, const tl_params *p, int64_t base_rtt, int64_t now, tl_rng *r)
{
    *(uint64_t *)st = sub;
}

static uint64_t entropy(void *st, uint64_t seq, int64_t now, tl_rng *r, uint8_t *tag)
{
    return *(uint64_t *)st;
}

const tl_lb_ops tl_lb_ecmp = {
    .name = "ecmp",
    .doc = "Per-flow ECMP: a subflow keeps one hashed path.",
    .state_bytes = sizeof(uint64_t),
    .init = init,
    .entropy = entropy,
};
