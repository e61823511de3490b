/* Go-back-N over one subflow, shared by the transports built from it (gbn.c:
 * one subflow carries the flow; stripe.c: two subflows carry a half each).
 * A subflow carries the bytes [lo, hi) of its flow: its sender sends them in
 * order within the CC's window and pacing rate and goes back to the first
 * unacknowledged byte on a NACK or timeout; its receiver acknowledges
 * in-order data (coalesced every nic.ack_every_pkts packets, at once for a
 * mark or the range's last byte), sends one NACK per gap and drops what
 * follows it. Static inline: each transport is one object, and these run
 * per packet. */
#ifndef TAILOR_PKTSIM_GBN_CORE_H
#define TAILOR_PKTSIM_GBN_CORE_H

#include "../transport.h"
#include "tailor/time.h"

typedef struct gbn_sub {
    uint64_t lo, hi; /* its bytes */
    /* sender */
    uint64_t snd_nxt, snd_una;
    /* The pacer: the last packet's start and wire size. The next may start
     * one serialization of it at the CC's current rate later, so a rate
     * change moves a pending send (as the ns-3 HPCC fork's ChangeRate moves
     * m_nextAvail): a flow cut to 1 Mb/s and raised again does not wait out
     * the 8 ms gap its last packet set. */
    int64_t last_send_ps, rto_deadline_ps;
    uint32_t last_wire;
    uint8_t is_rto_armed;
    /* receiver */
    uint16_t unacked_pkts; /* in-order packets not yet acknowledged (coalescing) */
    uint64_t rcv_nxt, nacked_at;
} gbn_sub;

static inline void gbn_sub_init(tl_pktsim *s, uint32_t c, uint32_t j, gbn_sub *g, uint64_t lo,
                                uint64_t hi)
{
    *g = (gbn_sub){.lo = lo, .hi = hi, .snd_nxt = lo, .snd_una = lo, .rcv_nxt = lo};
    tl_subflow *sf = tp_sub(s, c, j);
    sf->io.snd_nxt = sf->io.snd_una = lo;
}

/* Subflow j's next data packet, or TL_NO_PKT with *wake as pull's (a window
 * below one packet never stalls an empty pipe). *arm_at receives the RTO
 * deadline when the timer was off and must be armed, else 0. */
static inline uint32_t gbn_pull(tl_pktsim *s, uint32_t c, uint32_t j, gbn_sub *g, int64_t now,
                                int64_t *wake, int64_t *arm_at)
{
    *arm_at = 0;
    if (g->snd_nxt >= g->hi) { /* everything sent: idle until a loss */
        *wake = TL_PULL_IDLE;
        return TL_NO_PKT;
    }
    tl_subflow *sf = tp_sub(s, c, j);
    if (g->snd_nxt - g->snd_una >= sf->io.cwnd_bytes && g->snd_nxt != g->snd_una) {
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    if (g->last_wire && sf->io.rate_bps && sf->io.rate_bps < sf->io.line_bps) {
        int64_t next = g->last_send_ps + tl_tx_time_ps(g->last_wire, sf->io.rate_bps);
        if (next > now) {
            *wake = next;
            return TL_NO_PKT;
        }
    }
    uint64_t left = g->hi - g->snd_nxt;
    uint32_t mss = tp_mss(s);
    uint32_t payload = left < mss ? (uint32_t)left : mss;
    uint32_t i = tp_new_data(s, c, j, g->snd_nxt, payload, now);
    if (i == TL_NO_PKT) { /* the simulation failed */
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
    g->last_send_ps = now;
    g->last_wire = tp_pkt(s, i)->wire_bytes;
    if (!g->is_rto_armed) {
        g->is_rto_armed = 1;
        g->rto_deadline_ps = now + tp_rto_ps(s);
        *arm_at = g->rto_deadline_ps;
    } else if (was_idle) {
        /* The timer still runs from the last ACK, which acknowledged all: the
         * RTO counts from this packet, not from that ACK (the pending event
         * finds the later deadline and sleeps again). */
        g->rto_deadline_ps = now + tp_rto_ps(s);
    }
    return i;
}

/* DCQCN's notification point, if the CC asked for CNPs: a CNP for a marked
 * packet, at most one per connection per min_time_between_cnps. */
static inline void gbn_cnp(tl_pktsim *s, uint32_t c, int64_t *last_cnp_ps, const pkt *d,
                           uint64_t rcv_nxt, int64_t now)
{
    if (d->is_ce && tp_has_service(s, TL_SVC_CNP) && now - *last_cnp_ps >= tp_cnp_interval_ps(s)) {
        *last_cnp_ps = now;
        tp_stats(s)->n_cnps++;
        tp_send_ctrl(s, c, d, PK_CNP, rcv_nxt, 0, TL_NO_PKT, now);
    }
}

/* The receiver of subflow g takes data packet d (a copy: sending may move
 * the packet pool), whose INT block int_idx goes to the ACK if one is sent
 * and is freed otherwise. Returns 1 when g's last byte just arrived. */
static inline int gbn_recv(tl_pktsim *s, uint32_t c, gbn_sub *g, const pkt *d, uint32_t int_idx,
                           int64_t now)
{
    int is_done = 0;
    if (d->seq == g->rcv_nxt) {
        g->rcv_nxt += d->payload_bytes;
        tp_stats(s)->bytes_delivered += d->payload_bytes;
        is_done = g->rcv_nxt == g->hi;
        /* Coalesced ACKs: every ack_every_pkts packets, but at once for a mark
         * (the sender's alpha must see it) and for the last byte. */
        if (++g->unacked_pkts >= tp_ack_every(s) || d->is_ce || is_done) {
            g->unacked_pkts = 0;
            tp_send_ctrl(s, c, d, PK_ACK, g->rcv_nxt, d->is_ce, int_idx, now);
            int_idx = TL_NO_PKT;
        }
    } else if (d->seq > g->rcv_nxt) {
        /* A gap: a loss upstream. Go-back-N: one NACK per gap, later packets dropped. */
        if (g->nacked_at != g->rcv_nxt + 1) {
            g->nacked_at = g->rcv_nxt + 1;
            tp_send_ctrl(s, c, d, PK_NACK, g->rcv_nxt, d->is_ce, TL_NO_PKT, now);
        }
    } else {
        tp_send_ctrl(s, c, d, PK_ACK, g->rcv_nxt, d->is_ce, int_idx, now); /* duplicate */
        int_idx = TL_NO_PKT;
    }
    if (int_idx != TL_NO_PKT)
        tp_free_int(s, int_idx);
    return is_done;
}

/* The sender of subflow j takes ACK or NACK k (not freed here): new data
 * acknowledged feeds the CC; a NACK inside what was sent goes back to it. */
static inline void gbn_on_ack(tl_pktsim *s, uint32_t c, uint32_t j, gbn_sub *g, const pkt *k,
                              int64_t now)
{
    tp_lb_ack(s, c, k, now);
    if (k->seq > g->snd_una) {
        tl_ack_info a = {.ack_seq = k->seq,
                         .newly_acked = k->seq - g->snd_una,
                         .is_ece = k->is_ece,
                         .rtt_ps = now - k->sent_ps,
                         .sub = j,
                         .is_nack = k->kind == PK_NACK};
        tp_int_records(s, k, &a);
        g->snd_una = k->seq;
        if (g->snd_nxt < g->snd_una)
            g->snd_nxt = g->snd_una;
        tp_sub(s, c, j)->io.snd_una = g->snd_una;
        g->rto_deadline_ps = now + tp_rto_ps(s);
        tp_cc_ack(s, c, j, &a, now);
    }
    if (k->kind == PK_NACK && k->seq >= g->snd_una && k->seq < g->snd_nxt) {
        g->snd_nxt = k->seq; /* go back N */
        tp_cc_loss(s, c, j, now);
        tp_lb_loss(s, c, j, now);
    }
    if (g->snd_una >= g->hi)
        g->is_rto_armed = 0; /* a pending RTO event finds it done */
}

enum { GBN_RTO_OFF, GBN_RTO_SLEEP, GBN_RTO_FIRED };

/* Subflow j's RTO deadline may have come: GBN_RTO_SLEEP if ACKs pushed it
 * back (re-arm for rto_deadline_ps), GBN_RTO_FIRED if it timed out (it goes
 * back to its first unacknowledged byte; re-arm and kick), GBN_RTO_OFF if
 * the timer is off or nothing is in flight. */
static inline int gbn_rto(tl_pktsim *s, uint32_t c, uint32_t j, gbn_sub *g, int64_t now)
{
    if (!g->is_rto_armed)
        return GBN_RTO_OFF;
    if (now < g->rto_deadline_ps)
        return GBN_RTO_SLEEP;
    if (g->snd_una >= g->snd_nxt) {
        /* Nothing in flight: a paced flow between two packets (DCQCN at its
         * floor waits 8 ms for the next). Its next packet arms the timer
         * afresh; left armed, the timer counted a timeout and cut the rate
         * (tp_cc_loss) on every idle RTO. */
        g->is_rto_armed = 0;
        return GBN_RTO_OFF;
    }
    tp_stats(s)->n_timeouts++;
    g->snd_nxt = g->snd_una;
    tp_cc_loss(s, c, j, now);
    tp_lb_loss(s, c, j, now);
    g->rto_deadline_ps = now + tp_rto_ps(s);
    return GBN_RTO_FIRED;
}

#endif
