/* RED-like ECN marking on the instantaneous queue (DCTCP's step at K when
 * kmin = kmax, DCQCN's Kmin/Kmax/Pmax congestion point, paraleon.txt §II),
 * judged at dequeue (ns-3 HPCC, Minim) or at enqueue. Thresholds are set per
 * Gb/s of the port's rate, as parsimon-eval does. */
#include "ecn.h"
#include "../qpolicy.h"

typedef struct red {
    uint64_t kmin_bytes, kmax_bytes;
    double pmax;
    int is_on_dequeue;
} red;

static void configure(void *vst, const tl_qpolicy_port *port, const tl_params *p)
{
    red *st = vst;
    double gbps = (double)port->rate_bps / 1e9;
    st->kmin_bytes = (uint64_t)(tl_knob(p, TL_K_SW_KMIN_BYTES_PER_GBPS) * gbps);
    st->kmax_bytes = (uint64_t)(tl_knob(p, TL_K_SW_KMAX_BYTES_PER_GBPS) * gbps);
    st->pmax = tl_knob(p, TL_K_SW_PMAX);
    st->is_on_dequeue = tl_knob(p, TL_K_SW_MARK_ON_DEQUEUE) != 0;
}

/* The random draw is taken only between kmin and kmax, so step marking uses
 * no randomness and does not perturb other streams. */
static int decide(const red *st, uint64_t q, tl_rng *r)
{
    if (q <= st->kmin_bytes)
        return 0;
    double u = q > st->kmax_bytes ? 0 : tl_rng_uniform(r);
    return tl_ecn_should_mark(q, st->kmin_bytes, st->kmax_bytes, st->pmax, u);
}

static int on_enqueue(void *vst, uint64_t q, uint32_t bytes, int64_t now, tl_rng *r)
{
    const red *st = vst;
    return st->is_on_dequeue ? 0 : decide(st, q, r);
}

static int on_dequeue(void *vst, uint64_t q, uint32_t bytes, int64_t now, tl_rng *r)
{
    const red *st = vst;
    return st->is_on_dequeue ? decide(st, q, r) : 0;
}

const tl_qpolicy_ops tl_qpolicy_red = {
    .name = "red",
    .doc = "ECN marking on the instantaneous queue: a step at K when switch.kmin = kmax, else "
           "RED between kmin and kmax up to pmax; at enqueue or (switch.mark_on_dequeue) dequeue.",
    .state_bytes = sizeof(red),
    .configure = configure,
    .on_enqueue = on_enqueue,
    .on_dequeue = on_dequeue,
};
