/* Phantom queues (HULL, NSDI'12; Uno, uno.txt §4.1.3): a virtual byte counter
 * per port that every data packet joining the port adds to and that drains at
 * a fraction of the line rate; packets are ECN-marked on the counter, not on
 * the physical queue. Draining slower than the link makes the counter signal
 * congestion while the physical queue is still empty, and its size may match
 * an inter-DC BDP that no physical buffer holds.
 *
 * The drain is computed from the time elapsed since the last packet, so a
 * phantom queue costs no events (Uno's artifact drains by a timer every
 * 350 ns per port). Marking is judged as a packet leaves, as the artifact's
 * CompositeQueue does, linearly from kmin to kmax of the counter's size and
 * always above kmax. */
#include <math.h>

#include "../qpolicy.h"

enum { DRAIN_FRAC, SIZE_BYTES, KMIN_FRAC, KMAX_FRAC, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [DRAIN_FRAC] = {"phantom.drain_frac", TL_UNIT_FRAC, 0.9, 0.01, 1, 0, TL_DIR_UP_THROUGHPUT,
                    "Drain rate of a phantom queue as a fraction of its port's line rate "
                    "(uno.txt §5.1 and Table 2: 0.9; the artifact's runs 1/1.05)."},
    [SIZE_BYTES] = {"phantom.size_bytes", TL_UNIT_BYTES, 0, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
                    "Capacity of a phantom queue; 0 = the network's largest BDP (the inter-DC "
                    "BDP of a two_dc topology, as the artifact passes -phantom_size)."},
    [KMIN_FRAC] = {"phantom.kmin_frac", TL_UNIT_FRAC, 0.02, 0, 1, 0, TL_DIR_UP_THROUGHPUT,
                   "Marking starts above this fraction of the phantom queue's size (the artifact's "
                   "2%, 448 KB of 22.4 MB; uno.txt gives RED's 25% for physical queues only)."},
    [KMAX_FRAC] = {"phantom.kmax_frac", TL_UNIT_FRAC, 0.6, 0, 1, 0, TL_DIR_UP_THROUGHPUT,
                   "Every packet is marked above this fraction of the size; the probability "
                   "rises linearly from kmin (the artifact's 60%)."},
};

typedef struct phantom {
    double bytes;         /* the counter, as of last_ps */
    double drain_per_ps;  /* bytes */
    double cap, kmin, kmax;
    int64_t last_ps;
} phantom;

static void configure(void *vst, const tl_qpolicy_port *port, const tl_params *p)
{
    phantom *st = vst;
    const double *k = tl_params_table(p, knobs);
    st->drain_per_ps = k[DRAIN_FRAC] * (double)port->rate_bps / 8e12;
    st->cap = k[SIZE_BYTES] ? k[SIZE_BYTES] : (double)port->fabric->bdp_bytes;
    st->kmin = k[KMIN_FRAC] * st->cap;
    st->kmax = k[KMAX_FRAC] > k[KMIN_FRAC] ? k[KMAX_FRAC] * st->cap : st->kmin;
}

/* The counter drained up to now. */
static void drain(phantom *st, int64_t now)
{
    st->bytes -= st->drain_per_ps * (double)(now - st->last_ps);
    if (st->bytes < 0)
        st->bytes = 0;
    st->last_ps = now;
}

static int on_enqueue(void *vst, uint64_t q, uint32_t bytes, int64_t now, tl_rng *r)
{
    phantom *st = vst;
    drain(st, now);
    st->bytes = fmin(st->cap, st->bytes + bytes);
    return 0;
}

/* The random draw is taken only between kmin and kmax, as red.c. */
static int on_dequeue(void *vst, uint64_t q, uint32_t bytes, int64_t now, tl_rng *r)
{
    phantom *st = vst;
    drain(st, now);
    if (st->bytes <= st->kmin)
        return 0;
    if (st->bytes > st->kmax)
        return 1;
    return tl_rng_uniform(r) < (st->bytes - st->kmin) / (st->kmax - st->kmin);
}

const tl_qpolicy_ops tl_qpolicy_phantom = {
    .name = "phantom",
    .doc = "Phantom queue (uno.txt §4.1.3): a counter grown by every data packet and drained "
           "at phantom.drain_frac of the line rate, marking ECN linearly between "
           "phantom.kmin_frac and kmax_frac of phantom.size_bytes; the physical queue is not "
           "judged.",
    .state_bytes = sizeof(phantom),
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .configure = configure,
    .on_enqueue = on_enqueue,
    .on_dequeue = on_dequeue,
};
