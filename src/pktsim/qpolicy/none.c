/* No ECN marking: plain drop-tail (the shared buffer still drops). For
 * ports whose transport does not read ECN, e.g. the fabric around WAN
 * links that Uno's phantom queues mark. */
#include "../qpolicy.h"

static void configure(void *st, const tl_qpolicy_port *port, const tl_params *p) {}

static int never(void *st, uint64_t q, uint32_t bytes, int64_t now, tl_rng *r) { return 0; }

const tl_qpolicy_ops tl_qpolicy_none = {
    .name = "none",
    .doc = "No ECN marking (drop-tail only).",
    .state_bytes = 0,
    .configure = configure,
    .on_enqueue = never,
    .on_dequeue = never,
};
