/* Go-back-N over one path (the transport of the ns-3 HPCC fork that
 * Parsimon's and m3's ground truth runs): one subflow carries the whole
 * flow (gbn_core.h); a timeout (nic.rto_ps, nic.rto_lossless_ps with PFC)
 * or a NACK sends again from the first unacknowledged byte. A receiver that
 * needs CNPs (the CNP service) sends one per marked packet, at most one per
 * dcqcn.min_time_between_cnps. */
#include "gbn_core.h"

typedef struct gbn {
    gbn_sub g;
    int64_t last_cnp_ps; /* receiver: when it last sent a CNP */
} gbn;

static int open(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err)
{
    gbn *t = tp_state(s, c);
    gbn_sub_init(s, c, 0, &t->g, 0, tp_flow(s, c)->size_bytes);
    t->last_cnp_ps = INT64_MIN / 2;
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    gbn *t = tp_state(s, c);
    int64_t arm_at;
    uint32_t i = gbn_pull(s, c, 0, &t->g, now, wake, &arm_at);
    if (arm_at)
        tp_timer(s, c, arm_at);
    return i;
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt d = *tp_pkt(s, i); /* a copy: sending may move the packet pool */
    uint32_t c = d.flow;
    gbn *t = tp_state(s, c);
    tp_pkt(s, i)->int_idx = TL_NO_PKT; /* handed to the ACK, if one is sent */
    gbn_cnp(s, c, &t->last_cnp_ps, &d, t->g.rcv_nxt, now);
    if (gbn_recv(s, c, &t->g, &d, d.int_idx, now))
        tp_rx_done(s, c, now);
    tp_free(s, i);
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow;
    gbn *t = tp_state(s, c);
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, 0, now);
        return;
    }
    gbn_on_ack(s, c, 0, &t->g, k, now);
    tp_free(s, i);
    if (t->g.snd_una >= t->g.hi) {
        tp_tx_done(s, c);
        return;
    }
    if (t->g.snd_nxt < t->g.hi)
        tp_ready(s, c);
    tp_kick(s, c, now);
}

static void on_rto(tl_pktsim *s, uint32_t c, int64_t now)
{
    gbn *t = tp_state(s, c);
    if (tp_is_tx_done(s, c))
        return;
    int r = gbn_rto(s, c, 0, &t->g, now);
    if (r == GBN_RTO_OFF)
        return;
    tp_timer(s, c, t->g.rto_deadline_ps);
    if (r == GBN_RTO_FIRED) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

static void on_cc_change(tl_pktsim *s, uint32_t c, int64_t now)
{
    gbn *t = tp_state(s, c);
    if (t->g.snd_nxt < t->g.hi) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

const tl_transport_ops tl_transport_gbn = {
    .name = "gbn",
    .doc = "Go-back-N over one path per flow, as the ns-3 HPCC fork: in-order sending within the "
           "CC's window and pacing rate, coalesced cumulative ACKs, one NACK per gap, resend from "
           "the first unacknowledged byte on a NACK or timeout.",
    .state_bytes = sizeof(gbn),
    .n_subflows = 1,
    .open = open,
    .pull = pull,
    .on_data = on_data,
    .on_ctrl = on_ctrl,
    .on_timer = on_rto,
    .on_cc_change = on_cc_change,
};
