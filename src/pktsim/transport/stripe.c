/* Static striping over two subflows: a flow's bytes are cut in two halves
 * (at a packet boundary), each sent by its own subflow with its own
 * congestion control, load-balancer entropy (so its own ECMP path) and
 * go-back-N recovery; the flow completes when the receiver holds both
 * halves. The simplest multipath transport (MPTCP without coupling), and
 * the proof that a transport with several subflows plugs in as one file. */
#include "../transport.h"
#include "tailor/time.h"

#define N_SUB 2

typedef struct half {
    uint64_t lo, hi; /* its bytes [lo, hi) */
    /* sender */
    uint64_t snd_nxt, snd_una;
    int64_t next_send_ps, rto_deadline_ps;
    uint8_t is_rto_armed;
    /* receiver */
    uint64_t rcv_nxt, nacked_at;
} half;

typedef struct stripe {
    half h[N_SUB];
    int64_t timer_ps; /* the transport timer pending, 0 = none */
    int64_t last_cnp_ps; /* receiver: when it last sent a CNP (the CNP service) */
    uint8_t cursor;   /* the subflow asked first next time */
    uint8_t n_rx_done;
} stripe;

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
    st->h[0] = (half){.lo = 0, .hi = cut};
    st->h[1] = (half){.lo = cut, .hi = size};
    for (int j = 0; j < N_SUB; j++) {
        half *h = &st->h[j];
        h->snd_nxt = h->snd_una = h->rcv_nxt = h->lo;
        tl_subflow *sf = tp_sub(s, c, (uint32_t)j);
        sf->io.snd_nxt = sf->io.snd_una = h->lo;
        if (h->lo == h->hi)
            st->n_rx_done++; /* an empty half (a one-packet flow) */
    }
    if (st->n_rx_done == N_SUB) /* a flow of no bytes */
        tp_rx_done(s, c, now);
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

/* Subflow j's next packet, or TL_NO_PKT with *wake as for pull. */
static uint32_t pull_half(tl_pktsim *s, uint32_t c, stripe *st, uint32_t j, int64_t now,
                          int64_t *wake)
{
    half *h = &st->h[j];
    tl_subflow *sf = tp_sub(s, c, j);
    if (h->snd_nxt >= h->hi) {
        *wake = TL_PULL_IDLE;
        return TL_NO_PKT;
    }
    if (h->snd_nxt - h->snd_una >= sf->io.cwnd_bytes && h->snd_nxt != h->snd_una) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    if (h->next_send_ps > now) {
        *wake = h->next_send_ps;
        return TL_NO_PKT;
    }
    uint64_t left = h->hi - h->snd_nxt;
    uint32_t payload = left < tp_mss(s) ? (uint32_t)left : tp_mss(s);
    uint32_t i = tp_new_data(s, c, j, h->snd_nxt, payload, now);
    if (i == TL_NO_PKT) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    tl_pktsim_stats *stats = tp_stats(s);
    if (h->snd_nxt + payload > sf->io.snd_nxt)
        stats->bytes_sent += h->snd_nxt + payload - sf->io.snd_nxt;
    else {
        stats->n_retx_pkts++;
        stats->bytes_retx += payload;
    }
    int was_idle = h->snd_una >= h->snd_nxt;
    h->snd_nxt += payload;
    if (h->snd_nxt > sf->io.snd_nxt)
        sf->io.snd_nxt = h->snd_nxt;
    if (sf->io.rate_bps && sf->io.rate_bps < sf->io.line_bps)
        h->next_send_ps = now + tl_tx_time_ps(tp_pkt(s, i)->wire_bytes, sf->io.rate_bps);
    if (!h->is_rto_armed || was_idle) {
        h->is_rto_armed = 1;
        h->rto_deadline_ps = now + tp_rto_ps(s);
        arm(s, c, st, h->rto_deadline_ps);
    }
    return i;
}

/* Asks the subflows in turn, starting from the cursor. */
static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    stripe *st = tp_state(s, c);
    int64_t best = TL_PULL_IDLE;
    for (uint32_t n = 0; n < N_SUB; n++) {
        uint32_t j = (st->cursor + n) % N_SUB;
        int64_t w;
        uint32_t i = pull_half(s, c, st, j, now, &w);
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
    pkt d = *tp_pkt(s, i);
    uint32_t c = d.flow;
    stripe *st = tp_state(s, c);
    half *h = &st->h[d.sub];
    uint32_t int_idx = tp_pkt(s, i)->int_idx;
    tp_pkt(s, i)->int_idx = TL_NO_PKT;
    if (d.is_ce && tp_has_service(s, TL_SVC_CNP) && now - st->last_cnp_ps >= tp_cnp_interval_ps(s)) {
        st->last_cnp_ps = now;
        tp_stats(s)->n_cnps++;
        tp_send_ctrl(s, c, &d, PK_CNP, h->rcv_nxt, 0, TL_NO_PKT, now);
    }
    if (d.seq == h->rcv_nxt) {
        h->rcv_nxt += d.payload_bytes;
        tp_stats(s)->bytes_delivered += d.payload_bytes;
        if (h->rcv_nxt == h->hi && ++st->n_rx_done == N_SUB)
            tp_rx_done(s, c, now);
        tp_send_ctrl(s, c, &d, PK_ACK, h->rcv_nxt, d.is_ce, int_idx, now);
        int_idx = TL_NO_PKT;
    } else if (d.seq > h->rcv_nxt) {
        if (h->nacked_at != h->rcv_nxt + 1) {
            h->nacked_at = h->rcv_nxt + 1;
            tp_send_ctrl(s, c, &d, PK_NACK, h->rcv_nxt, d.is_ce, TL_NO_PKT, now);
        }
    } else {
        tp_send_ctrl(s, c, &d, PK_ACK, h->rcv_nxt, d.is_ce, int_idx, now);
        int_idx = TL_NO_PKT;
    }
    if (int_idx != TL_NO_PKT)
        tp_free_int(s, int_idx);
    tp_free(s, i);
}

static int all_acked(const stripe *st)
{
    for (int j = 0; j < N_SUB; j++)
        if (st->h[j].snd_una < st->h[j].hi)
            return 0;
    return 1;
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow, j = k->sub;
    stripe *st = tp_state(s, c);
    half *h = &st->h[j];
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, j, now);
        return;
    }
    tp_lb_ack(s, c, k, now);
    if (k->seq > h->snd_una) {
        tl_ack_info a = {.ack_seq = k->seq,
                         .newly_acked = k->seq - h->snd_una,
                         .is_ece = k->is_ece,
                         .rtt_ps = now - k->sent_ps,
                         .sub = j,
                         .is_nack = k->kind == PK_NACK};
        tp_int_records(s, k, &a);
        h->snd_una = k->seq;
        if (h->snd_nxt < h->snd_una)
            h->snd_nxt = h->snd_una;
        tp_sub(s, c, j)->io.snd_una = h->snd_una;
        h->rto_deadline_ps = now + tp_rto_ps(s);
        tp_cc_ack(s, c, j, &a, now);
    }
    if (k->kind == PK_NACK && k->seq >= h->snd_una && k->seq < h->snd_nxt) {
        h->snd_nxt = k->seq;
        tp_cc_loss(s, c, j, now);
    }
    tp_free(s, i);
    if (h->snd_una >= h->hi)
        h->is_rto_armed = 0;
    if (all_acked(st)) {
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
        half *h = &st->h[j];
        if (!h->is_rto_armed)
            continue;
        if (now >= h->rto_deadline_ps) {
            if (h->snd_una >= h->snd_nxt) {
                h->is_rto_armed = 0;
                continue;
            }
            tp_stats(s)->n_timeouts++;
            h->snd_nxt = h->snd_una;
            tp_cc_loss(s, c, j, now);
            h->rto_deadline_ps = now + tp_rto_ps(s);
            is_loss = 1;
        }
        arm(s, c, st, h->rto_deadline_ps);
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
