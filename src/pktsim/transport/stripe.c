/* Static striping over two subflows: a flow's bytes are cut in two halves
 * (at a packet boundary), each sent by its own subflow with its own
 * congestion control, load-balancer entropy (so its own ECMP path) and
 * go-back-N recovery (gbn_core.h); the flow completes when the receiver
 * holds both halves. The simplest multipath transport (MPTCP without
 * coupling), and the proof that a transport with several subflows plugs in
 * as one file. */
#include "gbn_core.h"

#define N_SUB 2

typedef struct stripe {
    gbn_sub h[N_SUB];
    int64_t timer_ps;    /* the transport timer pending, 0 = none */
    int64_t last_cnp_ps; /* receiver: when it last sent a CNP (the CNP service) */
    uint8_t cursor;      /* the subflow asked first next time */
    uint8_t n_rx_done;
} stripe;

/* One transport timer serves both subflows' RTOs: pushed only when it must
 * fire earlier than the one pending. */
static void arm(tl_pktsim *s, uint32_t c, stripe *st, int64_t at)
{
    if (st->timer_ps == 0 || at < st->timer_ps) {
        st->timer_ps = at;
        tp_timer(s, c, at);
    }
}

static int open(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err)
{
    stripe *st = tp_state(s, c);
    uint64_t size = tp_flow(s, c)->size_bytes, mss = tp_mss(s);
    uint64_t cut = (size / mss + 1) / 2 * mss; /* half the packets, rounded up */
    if (cut > size)
        cut = size;
    st->last_cnp_ps = INT64_MIN / 2;
    gbn_sub_init(s, c, 0, &st->h[0], 0, cut);
    gbn_sub_init(s, c, 1, &st->h[1], cut, size);
    for (int j = 0; j < N_SUB; j++)
        if (st->h[j].lo == st->h[j].hi)
            st->n_rx_done++; /* an empty half (a one-packet flow) */
    if (st->n_rx_done == N_SUB) /* a flow of no bytes */
        tp_rx_done(s, c, now);
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

/* Asks the subflows in turn, starting from the cursor. */
static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    stripe *st = tp_state(s, c);
    int64_t best = TL_PULL_IDLE;
    for (uint32_t n = 0; n < N_SUB; n++) {
        uint32_t j = (st->cursor + n) % N_SUB;
        int64_t w, arm_at;
        uint32_t i = gbn_pull(s, c, j, &st->h[j], now, &w, &arm_at);
        if (arm_at)
            arm(s, c, st, arm_at);
        if (i != TL_NO_PKT) {
            st->cursor = (uint8_t)((j + 1) % N_SUB);
            return i;
        }
        /* the nearest wake; blocked beats idle (stay in the ring) */
        if (w == TL_PULL_BLOCKED)
            best = best == TL_PULL_IDLE ? TL_PULL_BLOCKED : best;
        else if (w != TL_PULL_IDLE && (best == TL_PULL_IDLE || best == TL_PULL_BLOCKED || w < best))
            best = w;
    }
    *wake = best;
    return TL_NO_PKT;
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt d = *tp_pkt(s, i); /* a copy: sending may move the packet pool */
    uint32_t c = d.flow;
    stripe *st = tp_state(s, c);
    gbn_sub *h = &st->h[d.sub];
    tp_pkt(s, i)->int_idx = TL_NO_PKT;
    gbn_cnp(s, c, &st->last_cnp_ps, &d, h->rcv_nxt, now);
    if (gbn_recv(s, c, h, &d, d.int_idx, now) && ++st->n_rx_done == N_SUB)
        tp_rx_done(s, c, now);
    tp_free(s, i);
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow, j = k->sub;
    stripe *st = tp_state(s, c);
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, j, now);
        return;
    }
    gbn_on_ack(s, c, j, &st->h[j], k, now);
    tp_free(s, i);
    if (st->h[0].snd_una >= st->h[0].hi && st->h[1].snd_una >= st->h[1].hi) {
        tp_tx_done(s, c);
        return;
    }
    tp_ready(s, c);
    tp_kick(s, c, now);
}

/* The transport timer: each subflow whose deadline passed with data in
 * flight times out; the timer re-arms for the nearest deadline left. */
static void on_timer(tl_pktsim *s, uint32_t c, int64_t now)
{
    stripe *st = tp_state(s, c);
    if (st->timer_ps != now)
        return; /* superseded by an earlier event */
    st->timer_ps = 0;
    if (tp_is_tx_done(s, c))
        return;
    int is_loss = 0;
    for (uint32_t j = 0; j < N_SUB; j++) {
        int r = gbn_rto(s, c, j, &st->h[j], now);
        if (r != GBN_RTO_OFF)
            arm(s, c, st, st->h[j].rto_deadline_ps);
        is_loss |= r == GBN_RTO_FIRED;
    }
    if (is_loss) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

static void on_cc_change(tl_pktsim *s, uint32_t c, int64_t now)
{
    tp_ready(s, c);
    tp_kick(s, c, now);
}

const tl_transport_ops tl_transport_stripe = {
    .name = "stripe",
    .doc = "Static striping: each flow's bytes in two halves, each sent by its own subflow (own "
           "CC, entropy, path) with go-back-N; done when both halves arrive.",
    .state_bytes = sizeof(stripe),
    .n_subflows = N_SUB,
    .open = open,
    .pull = pull,
    .on_data = on_data,
    .on_ctrl = on_ctrl,
    .on_timer = on_timer,
    .on_cc_change = on_cc_change,
};
