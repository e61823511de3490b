/* Per-flow ECMP: every packet of a flow takes the flow's hashed path. */
#include "../lb.h"

static uint64_t entropy(void *st, uint64_t seq, tl_rng *r) { return 0; }

const tl_lb_ops tl_lb_ecmp = {
    .name = "ecmp",
    .state_bytes = 0,
    .entropy = entropy,
};
