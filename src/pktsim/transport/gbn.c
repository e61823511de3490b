/* Go-back-N over one path (the transport of the ns-3 HPCC fork that
 * Parsimon's and m3's ground truth runs): the sender sends in order up to
 * its CC's window and pacing rate; the receiver acknowledges in-order data
 * (coalesced every nic.ack_every_pkts packets, at once for a mark or the
 * last byte), sends one NACK per gap and drops what follows it; a NACK or a
 * timeout (nic.rto_ps, nic.rto_lossless_ps with PFC) sends again from the
 * first unacknowledged byte. A receiver that needs CNPs (the CNP service)
 * sends one per marked packet, at most one per dcqcn.min_time_between_cnps. */
#include "../transport.h"
#include "tailor/time.h"

typedef struct gbn {
    /* sender */
    uint64_t snd_nxt, snd_una;
    int64_t next_send_ps, rto_deadline_ps;
    uint8_t is_rto_armed;
    /* receiver */
    uint16_t unacked_pkts; /* in-order packets not yet acknowledged (coalescing) */
    uint64_t rcv_nxt, nacked_at;
    int64_t last_cnp_ps; /* when it last sent a CNP */
} gbn;

static int open(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err)
{
    gbn *g = tp_state(s, c);
    g->last_cnp_ps = INT64_MIN / 2;
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

/* The next data packet: in order from snd_nxt, within the window (a window
 * below one packet never stalls an empty pipe) and the pacing rate. */
static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    gbn *g = tp_state(s, c);
    uint64_t size = tp_flow(s, c)->size_bytes;
    if (g->snd_nxt >= size) { /* everything sent: leave until a loss */
        *wake = TL_PULL_IDLE;
        return TL_NO_PKT;
    }
    tl_subflow *sf = tp_sub(s, c, 0);
    if (g->snd_nxt - g->snd_una >= sf->io.cwnd_bytes && g->snd_nxt != g->snd_una) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    if (g->next_send_ps > now) {
        *wake = g->next_send_ps;
        return TL_NO_PKT;
    }
    uint64_t left = size - g->snd_nxt;
    uint32_t mss = tp_mss(s);
    uint32_t payload = left < mss ? (uint32_t)left : mss;
    uint32_t i = tp_new_data(s, c, 0, g->snd_nxt, payload, now);
    if (i == TL_NO_PKT) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    tl_pktsim_stats *st = tp_stats(s);
    if (g->snd_nxt + payload > sf->io.snd_nxt) { /* beyond the highest sent: new data */
        st->bytes_sent += g->snd_nxt + payload - sf->io.snd_nxt;
        if (g->snd_nxt < sf->io.snd_nxt) /* a packet straddling the highest byte sent */
            st->bytes_retx += sf->io.snd_nxt - g->snd_nxt;
    } else {
        st->n_retx_pkts++;
        st->bytes_retx += payload;
    }
    int was_idle = g->snd_una >= g->snd_nxt; /* nothing in flight before this packet */
    g->snd_nxt += payload;
    if (g->snd_nxt > sf->io.snd_nxt)
        sf->io.snd_nxt = g->snd_nxt;
    if (sf->io.rate_bps && sf->io.rate_bps < sf->io.line_bps)
        g->next_send_ps = now + tl_tx_time_ps(tp_pkt(s, i)->wire_bytes, sf->io.rate_bps);
    if (!g->is_rto_armed) {
        g->is_rto_armed = 1;
        g->rto_deadline_ps = now + tp_rto_ps(s);
        tp_timer(s, c, g->rto_deadline_ps);
    } else if (was_idle) {
        /* The timer still runs from the last ACK, which acknowledged all: the
         * RTO counts from this packet, not from that ACK (the pending event
         * finds the later deadline and sleeps again). */
        g->rto_deadline_ps = now + tp_rto_ps(s);
    }
    return i;
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow;
    gbn *g = tp_state(s, c);
    uint64_t size = tp_flow(s, c)->size_bytes;
    pkt d = *k; /* k is not used below: sending may move the packet pool */
    uint32_t int_idx = k->int_idx; /* handed to the ACK, if one is sent */
    k->int_idx = TL_NO_PKT;
    tl_pktsim_stats *st = tp_stats(s);
    /* DCQCN's notification point: a CNP for a marked packet, at most one per
     * flow per min_time_between_cnps. */
    if (d.is_ce && tp_has_service(s, TL_SVC_CNP) && now - g->last_cnp_ps >= tp_cnp_interval_ps(s)) {
        g->last_cnp_ps = now;
        st->n_cnps++;
        tp_send_ctrl(s, c, &d, PK_CNP, g->rcv_nxt, 0, TL_NO_PKT, now);
    }
    if (d.seq == g->rcv_nxt) {
        g->rcv_nxt += d.payload_bytes;
        st->bytes_delivered += d.payload_bytes;
        if (g->rcv_nxt == size)
            tp_rx_done(s, c, now);
        /* Coalesced ACKs: every ack_every_pkts packets, but at once for a mark
         * (the sender's alpha must see it) and for the last byte. */
        if (++g->unacked_pkts >= tp_ack_every(s) || d.is_ce || g->rcv_nxt == size) {
            g->unacked_pkts = 0;
            tp_send_ctrl(s, c, &d, PK_ACK, g->rcv_nxt, d.is_ce, int_idx, now);
            int_idx = TL_NO_PKT;
        }
    } else if (d.seq > g->rcv_nxt) {
        /* A gap: a loss upstream. Go-back-N: one NACK per gap, later packets dropped. */
        if (g->nacked_at != g->rcv_nxt + 1) {
            g->nacked_at = g->rcv_nxt + 1;
            tp_send_ctrl(s, c, &d, PK_NACK, g->rcv_nxt, d.is_ce, TL_NO_PKT, now);
        }
    } else {
        tp_send_ctrl(s, c, &d, PK_ACK, g->rcv_nxt, d.is_ce, int_idx, now); /* duplicate */
        int_idx = TL_NO_PKT;
    }
    if (int_idx != TL_NO_PKT)
        tp_free_int(s, int_idx);
    tp_free(s, i);
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow;
    gbn *g = tp_state(s, c);
    tl_subflow *sf = tp_sub(s, c, 0);
    uint64_t size = tp_flow(s, c)->size_bytes;
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, 0, now);
        return;
    }
    tp_lb_ack(s, c, k, now);
    if (k->seq > g->snd_una) {
        tl_ack_info a = {.ack_seq = k->seq,
                         .newly_acked = k->seq - g->snd_una,
                         .is_ece = k->is_ece,
                         .rtt_ps = now - k->sent_ps,
                         .sub = 0,
                         .is_nack = k->kind == PK_NACK};
        tp_int_records(s, k, &a);
        g->snd_una = k->seq;
        if (g->snd_nxt < g->snd_una)
            g->snd_nxt = g->snd_una;
        sf->io.snd_una = g->snd_una;
        g->rto_deadline_ps = now + tp_rto_ps(s);
        tp_cc_ack(s, c, 0, &a, now);
    }
    if (k->kind == PK_NACK && k->seq >= g->snd_una && k->seq < g->snd_nxt) {
        g->snd_nxt = k->seq; /* go back N */
        tp_cc_loss(s, c, 0, now);
    }
    tp_free(s, i);
    if (g->snd_una >= size) {
        g->is_rto_armed = 0; /* the pending RTO event finds the flow done */
        tp_tx_done(s, c);
        return;
    }
    if (g->snd_nxt < size)
        tp_ready(s, c);
    tp_kick(s, c, now);
}

static void on_rto(tl_pktsim *s, uint32_t c, int64_t now)
{
    gbn *g = tp_state(s, c);
    if (tp_is_tx_done(s, c) || !g->is_rto_armed)
        return;
    if (now < g->rto_deadline_ps) { /* pushed back by ACKs since: sleep again */
        tp_timer(s, c, g->rto_deadline_ps);
        return;
    }
    if (g->snd_una >= g->snd_nxt) {
        /* Nothing in flight: a paced flow between two packets (DCQCN at its
         * floor waits 8 ms for the next). Its next packet arms the timer
         * afresh; left armed, the timer counted a timeout and cut the rate
         * (tp_cc_loss) on every idle RTO. */
        g->is_rto_armed = 0;
        return;
    }
    tp_stats(s)->n_timeouts++;
    g->snd_nxt = g->snd_una;
    tp_cc_loss(s, c, 0, now);
    g->rto_deadline_ps = now + tp_rto_ps(s);
    tp_timer(s, c, g->rto_deadline_ps);
    tp_ready(s, c);
    tp_kick(s, c, now);
}

static void on_cc_change(tl_pktsim *s, uint32_t c, int64_t now)
{
    gbn *g = tp_state(s, c);
    if (g->snd_nxt < tp_flow(s, c)->size_bytes) {
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
