/* PLB (Protective Load Balancing, SIGCOMM'22; Uno's baseline, uno.txt
 * §5.3): a flow keeps one path until it has seen plb.rounds consecutive
 * congested rounds (a round is plb.round_rtt base RTTs; congested when more
 * than plb.congested_frac of its ACKs carry ECN), then moves to a random
 * path at its next packet. A loss (NACK or timeout) moves it at once, at
 * most once per timeout. Constants as Uno's artifact (sim/lcp.cpp). */
#include "../lb.h"

enum { FRAC, ROUNDS, ROUND_RTT, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [FRAC] = {"plb.congested_frac", TL_UNIT_FRAC, 0.25, 0, 1, 0, TL_DIR_NEUTRAL,
              "A round is congested when more than this share of its ACKs carry ECN (the Uno "
              "artifact's 0.25)."},
    [ROUNDS] = {"plb.rounds", TL_UNIT_NONE, 2, 1, 1000, 1, TL_DIR_NEUTRAL,
                "Consecutive congested rounds before the flow moves (the artifact: 2)."},
    [ROUND_RTT] = {"plb.round_rtt", TL_UNIT_NONE, 1, 0.01, 100, 0, TL_DIR_NEUTRAL,
                   "Length of a round in base RTTs (the artifact: 1)."},
};

typedef struct plb {
    uint64_t entropy;
    uint32_t acks, marked, rounds, need_rounds;
    int is_move;
    double frac;
    int64_t round_ps, round_end, hold_until, base_rtt;
} plb;

static void init(void *vst, uint32_t sub, const tl_params *p, int64_t base_rtt, int64_t now,
                 tl_rng *r)
{
    plb *st = vst;
    const double *k = tl_params_table(p, knobs);
    st->entropy = sub; /* the flow's own ECMP path first, as ecmp */
    st->frac = k[FRAC];
    st->need_rounds = (uint32_t)k[ROUNDS];
    st->round_ps = (int64_t)(k[ROUND_RTT] * (double)base_rtt);
    st->round_end = now + st->round_ps;
    st->base_rtt = base_rtt;
}

static uint64_t entropy(void *vst, uint64_t seq, int64_t now, tl_rng *r, uint8_t *tag)
{
    plb *st = vst;
    if (st->is_move) {
        st->entropy = tl_rng_u64(r) | 1;
        st->is_move = 0;
    }
    return st->entropy;
}

static void on_ack(void *vst, uint64_t e, uint8_t tag, int is_ece, int is_nack, int64_t rtt,
                   int64_t now)
{
    plb *st = vst;
    st->acks++;
    st->marked += is_ece != 0;
    if (now <= st->round_end)
        return;
    st->rounds = (double)st->marked > st->frac * (double)st->acks ? st->rounds + 1 : 0;
    st->acks = st->marked = 0;
    st->round_end = now + st->round_ps;
    if (st->rounds >= st->need_rounds) {
        st->rounds = 0;
        st->is_move = 1;
    }
}

static void on_loss(void *vst, int64_t now, int64_t rto, tl_rng *r)
{
    plb *st = vst;
    if (now < st->hold_until)
        return;
    st->hold_until = now + (rto > st->base_rtt ? rto : st->base_rtt);
    st->rounds = 0;
    st->is_move = 1;
}

const tl_lb_ops tl_lb_plb = {
    .name = "plb",
    .doc = "PLB: one path per flow, moved after plb.rounds congested rounds or a loss.",
    .state_bytes = sizeof(plb),
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .init = init,
    .entropy = entropy,
    .on_ack = on_ack,
    .on_loss = on_loss,
};
