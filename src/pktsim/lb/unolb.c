/* UnoLB (uno.txt §4.2, Algorithm 2): a flow's packets go round-robin over S
 * slots, each with its own entropy (so its own ECMP path); every packet
 * carries its slot as the LB tag and its ACK or NACK names it back. On a
 * loss (a NACK for a block, a timeout), every slot that has had no ACK for
 * stale_rtt base RTTs and was not moved in the last hold_rtt base RTTs takes
 * the entropy of a slot that has (the paper: "randomly selecting a subflow
 * that has recently received ACKs"; when none has, one of those ACKed
 * last), or a fresh random one with unolb.copy_good 0 (what Uno's artifact
 * runs; a fresh draw may land on the failed path again). The slots live in one tailor subflow: Uno runs one
 * congestion window per flow, not one per path. */
#include "../lb.h"

#define UNOLB_MAX_SLOTS 16

enum { SUBFLOWS, STALE_RTT, HOLD_RTT, COPY_GOOD, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [SUBFLOWS] = {"unolb.subflows", TL_UNIT_NONE, 10, 1, UNOLB_MAX_SLOTS, 1, TL_DIR_NEUTRAL,
                  "Paths (entropies) a flow's packets rotate over (Uno's artifact: 10, one per "
                  "packet of an (8,2) block)."},
    [STALE_RTT] = {"unolb.stale_rtt", TL_UNIT_NONE, 0.5, 0, 100, 0, TL_DIR_NEUTRAL,
                   "A slot with no ACK for this many base RTTs is moved on a loss (the "
                   "artifact's 0.5)."},
    [HOLD_RTT] = {"unolb.hold_rtt", TL_UNIT_NONE, 1, 0, 100, 0, TL_DIR_NEUTRAL,
                  "A slot moved less than this many base RTTs ago stays (Algorithm 2: 1)."},
    [COPY_GOOD] = {"unolb.copy_good", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                   "1: a moved slot copies the entropy of a slot ACKed within unolb.stale_rtt (the "
                   "paper); 0: it draws a fresh random entropy (the artifact's code)."},
};

typedef struct unolb {
    uint64_t entropy[UNOLB_MAX_SLOTS];
    int64_t last_ack[UNOLB_MAX_SLOTS], last_move[UNOLB_MAX_SLOTS];
    uint32_t n, next;
    int64_t stale_ps, hold_ps;
    int is_copy_good;
} unolb;

static void init(void *vst, uint32_t sub, const tl_params *p, int64_t base_rtt, int64_t now,
                 tl_rng *r)
{
    unolb *st = vst;
    const double *k = tl_params_table(p, knobs);
    st->n = (uint32_t)k[SUBFLOWS];
    st->stale_ps = (int64_t)(k[STALE_RTT] * (double)base_rtt);
    st->hold_ps = (int64_t)(k[HOLD_RTT] * (double)base_rtt);
    st->is_copy_good = k[COPY_GOOD] != 0;
    for (uint32_t i = 0; i < st->n; i++) {
        st->entropy[i] = tl_rng_u64(r) | 1; /* never 0, the flow's own hash */
        st->last_ack[i] = st->last_move[i] = now;
    }
}

static uint64_t entropy(void *vst, uint64_t seq, int64_t now, tl_rng *r, uint8_t *tag)
{
    unolb *st = vst;
    uint32_t i = st->next;
    st->next = i + 1 == st->n ? 0 : i + 1;
    *tag = (uint8_t)i;
    return st->entropy[i];
}

static void on_ack(void *vst, uint64_t e, uint8_t tag, int is_ece, int is_nack, int64_t rtt,
                   int64_t now)
{
    unolb *st = vst;
    if (tag < st->n && !is_nack)
        st->last_ack[tag] = now; /* the slot delivers, whatever entropy the packet had */
}

static void on_loss(void *vst, int64_t now, int64_t rto, tl_rng *r)
{
    unolb *st = vst;
    uint32_t good[UNOLB_MAX_SLOTS], n_good = 0;
    int64_t newest = INT64_MIN;
    for (uint32_t i = 0; i < st->n; i++)
        if (st->last_ack[i] > newest)
            newest = st->last_ack[i];
    /* the slots ACKed recently; if none is (the flow has sent all it had),
     * the ones ACKed last: the best evidence of a path that delivers */
    for (uint32_t i = 0; i < st->n; i++)
        if (now - st->last_ack[i] <= st->stale_ps || st->last_ack[i] == newest)
            good[n_good++] = i;
    for (uint32_t i = 0; i < st->n; i++) {
        if (now - st->last_move[i] <= st->hold_ps || now - st->last_ack[i] <= st->stale_ps)
            continue;
        st->entropy[i] = st->is_copy_good ? st->entropy[good[tl_rng_below(r, n_good)]]
                                          : tl_rng_u64(r) | 1;
        st->last_move[i] = now;
    }
}

const tl_lb_ops tl_lb_unolb = {
    .name = "unolb",
    .doc = "UnoLB: packets round-robin over unolb.subflows paths; on a loss, paths without recent "
           "ACKs move to one that has them.",
    .state_bytes = sizeof(unolb),
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .init = init,
    .entropy = entropy,
    .on_ack = on_ack,
    .on_loss = on_loss,
};
