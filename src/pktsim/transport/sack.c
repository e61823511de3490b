/* Selective repeat over one subflow, as htsim's window transports (Uno's
 * artifact: LcpSrc/UecSrc; ../shared/notes/htsim.md): the receiver
 * acknowledges every data packet, naming that packet (and its cumulative
 * point), so a loss costs only the lost packet and reordering by per-packet
 * spraying costs nothing. The sender keeps the CC's window of bytes in
 * flight (sent, neither acknowledged nor declared lost) and resends a packet
 * that has gone unacknowledged for one RTO, nic.rto_ps plus the path's base
 * RTT, from that packet's last sending (htsim scans per-packet timeouts;
 * here one timer follows the oldest sending). No NACKs: without packet
 * trimming a receiver cannot tell a loss from reordering.
 *
 * Per connection it holds rings the size of its window, grown on demand
 * and freed when the sender or receiver is done (close frees what is left). */
#include <stdlib.h>
#include <string.h>

#include "sr_core.h"
#include "gbn_core.h" /* gbn_cnp: DCQCN's notification point, shared */

/* A growable ring of per-packet slots indexed by packet number. */
typedef struct slots {
    int64_t *sent_ps; /* sender: the packet's last sending; receiver: unused */
    uint8_t *flag;    /* sender: acknowledged; receiver: received */
    uint32_t cap;     /* power of two, 0 = none */
} slots;

typedef struct sent_rec {
    uint32_t p;
    int64_t at;
} sent_rec;

typedef struct sack {
    /* sender: packets [una, nxt) sent at least once; lost ones wait in retx */
    uint32_t n_pkts, una, nxt;
    uint64_t in_flight; /* payload bytes */
    slots tx;
    sent_rec *fifo;     /* every sending in time order, for the timer */
    uint32_t fifo_head, fifo_n, fifo_cap;
    uint32_t *retx;     /* lost packets to send again, FIFO */
    uint32_t retx_head, retx_n, retx_cap;
    int64_t last_send_ps, rto_ps, timer_at_ps;
    uint32_t last_wire;
    /* receiver: packets below rcv are all in; slots from rcv */
    uint32_t rcv, rcv_count;
    slots rx;
    int64_t last_cnp_ps;
} sack;

static uint32_t payload_of(tl_pktsim *s, uint32_t c, uint32_t p)
{
    uint64_t size = tp_flow(s, c)->size_bytes, mss = tp_mss(s), lo = (uint64_t)p * mss;
    return (uint32_t)(size - lo < mss ? size - lo : mss);
}

/* Makes room for packet p in a ring based at base (p - base < 2^31). */
static int slots_fit(slots *r, uint32_t base, uint32_t p, int with_times)
{
    uint32_t need = p - base + 1;
    if (need <= r->cap)
        return 0;
    uint32_t cap = r->cap ? r->cap : 64;
    while (cap < need)
        cap *= 2;
    uint8_t *flag = calloc(cap, 1);
    int64_t *sent = with_times ? malloc((size_t)cap * sizeof *sent) : NULL;
    if (!flag || (with_times && !sent)) {
        free(flag);
        free(sent);
        return -1;
    }
    for (uint32_t q = base; q - base < r->cap; q++) {
        flag[q & (cap - 1)] = r->flag[q & (r->cap - 1)];
        if (with_times)
            sent[q & (cap - 1)] = r->sent_ps[q & (r->cap - 1)];
    }
    free(r->flag);
    free(r->sent_ps);
    r->flag = flag, r->sent_ps = sent, r->cap = cap;
    return 0;
}

static void slots_free(slots *r)
{
    free(r->flag);
    free(r->sent_ps);
    memset(r, 0, sizeof *r);
}

static void close_tx(sack *t)
{
    slots_free(&t->tx);
    free(t->fifo);
    free(t->retx);
    t->fifo = NULL, t->retx = NULL;
    t->fifo_n = t->fifo_cap = t->retx_n = t->retx_cap = 0;
}

static void close_conn(tl_pktsim *s, uint32_t c)
{
    sack *t = tp_state(s, c);
    close_tx(t);
    slots_free(&t->rx);
}

static int open(tl_pktsim *s, uint32_t c, int64_t now, tl_err *err)
{
    sack *t = tp_state(s, c);
    uint64_t size = tp_flow(s, c)->size_bytes, mss = tp_mss(s);
    if ((size + mss - 1) / mss > UINT32_MAX / 2)
        return tl_err_set(err, TL_ERANGE,
                          "flow %llu: %llu bytes are more than 2^31 packets for transport sack",
                          (unsigned long long)tp_flow(s, c)->id, (unsigned long long)size);
    t->n_pkts = (uint32_t)((size + mss - 1) / mss);
    t->rto_ps = tp_rto_ps(s) + tp_sub(s, c, 0)->io.base_rtt_ps +
                (tp_crosses_dcs(s, c) ? tp_wan_rto_extra_ps(s) : 0);
    tp_sub(s, c, 0)->io.rto_ps = t->rto_ps;
    t->last_cnp_ps = INT64_MIN / 2;
    tp_ready(s, c);
    tp_kick(s, c, now);
    return 0;
}

/* The timer follows the oldest sending still in the FIFO. */
static void arm(tl_pktsim *s, uint32_t c, sack *t)
{
    if (!t->fifo_n)
        return;
    int64_t at = t->fifo[t->fifo_head & (t->fifo_cap - 1)].at + t->rto_ps;
    if (!t->timer_at_ps || at < t->timer_at_ps) {
        t->timer_at_ps = at;
        tp_timer(s, c, at);
    }
}

static uint32_t pull(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    sack *t = tp_state(s, c);
    tl_subflow *sf = tp_sub(s, c, 0);
    int is_retx = t->retx_n > 0;
    if (!is_retx && t->nxt >= t->n_pkts) {
        *wake = TL_PULL_IDLE;
        return TL_NO_PKT;
    }
    uint32_t p = is_retx ? t->retx[t->retx_head & (t->retx_cap - 1)] : t->nxt;
    uint32_t payload = payload_of(s, c, p);
    if (!sr_may_send(sf, t->in_flight, payload, t->last_wire, t->last_send_ps, now, wake))
        return TL_NO_PKT;
    sent_rec rec = {p, now};
    if ((!is_retx && slots_fit(&t->tx, t->una, p, 1)) ||
        fifo_push((void **)&t->fifo, &t->fifo_head, &t->fifo_n, &t->fifo_cap, sizeof rec, &rec)) {
        tp_fail_nomem(s); /* the run stops with TL_ENOMEM */
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    uint32_t i = tp_new_data(s, c, 0, (uint64_t)p * tp_mss(s), payload, now);
    if (i == TL_NO_PKT) { /* the simulation failed */
        *wake = TL_PULL_BLOCKED;
        return TL_NO_PKT;
    }
    tp_pkt(s, i)->block = p;
    tl_pktsim_stats *st = tp_stats(s);
    if (is_retx) {
        t->retx_head++, t->retx_n--;
        st->n_retx_pkts++;
        st->bytes_retx += payload;
    } else {
        t->tx.flag[p & (t->tx.cap - 1)] = 0;
        t->nxt++;
        st->bytes_sent += payload;
        uint64_t hi = (uint64_t)t->nxt * tp_mss(s);
        sf->io.snd_nxt = hi < tp_flow(s, c)->size_bytes ? hi : tp_flow(s, c)->size_bytes;
    }
    t->tx.sent_ps[p & (t->tx.cap - 1)] = now;
    t->in_flight += payload;
    sf->io.inflight_bytes = t->in_flight;
    t->last_send_ps = now;
    t->last_wire = tp_pkt(s, i)->wire_bytes;
    arm(s, c, t);
    return i;
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt d = *tp_pkt(s, i); /* a copy: sending may move the packet pool */
    uint32_t c = d.flow;
    sack *t = tp_state(s, c);
    tp_pkt(s, i)->int_idx = TL_NO_PKT; /* handed to the ACK */
    uint32_t p = d.block;
    gbn_cnp(s, c, &t->last_cnp_ps, &d, 0, now);
    if (p >= t->rcv && slots_fit(&t->rx, t->rcv, p, 0)) {
        tp_fail_nomem(s);
        if (d.int_idx != TL_NO_PKT)
            tp_free_int(s, d.int_idx);
        tp_free(s, i);
        return;
    }
    int is_new = p >= t->rcv && !t->rx.flag[p & (t->rx.cap - 1)];
    if (is_new) {
        t->rx.flag[p & (t->rx.cap - 1)] = 1;
        t->rcv_count++;
        tp_stats(s)->bytes_delivered += d.payload_bytes;
        while (t->rcv < t->n_pkts && t->rx.flag[t->rcv & (t->rx.cap - 1)])
            t->rx.flag[t->rcv++ & (t->rx.cap - 1)] = 0;
    }
    /* every packet is acknowledged: seq the cumulative point, block the packet */
    uint64_t cum = (uint64_t)t->rcv * tp_mss(s);
    uint64_t size = tp_flow(s, c)->size_bytes;
    tp_send_ctrl(s, c, &d, PK_ACK, cum < size ? cum : size, d.is_ce, d.int_idx, now);
    tp_free(s, i);
    if (is_new && t->rcv_count == t->n_pkts) {
        slots_free(&t->rx);
        tp_rx_done(s, c, now);
    }
}

/* Slides una over acknowledged packets. */
static void advance(sack *t)
{
    while (t->una < t->nxt && t->tx.flag[t->una & (t->tx.cap - 1)])
        t->una++;
}

static void on_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = tp_pkt(s, i);
    uint32_t c = k->flow;
    sack *t = tp_state(s, c);
    if (k->kind == PK_CNP) {
        tp_free(s, i);
        if (!tp_is_tx_done(s, c))
            tp_cc_cnp(s, c, 0, now);
        return;
    }
    tp_lb_ack(s, c, k, now);
    uint32_t p = k->block;
    if (tp_is_tx_done(s, c) || p < t->una || p >= t->nxt || t->tx.flag[p & (t->tx.cap - 1)]) {
        tp_free(s, i); /* a duplicate: its packet was acknowledged already */
        return;
    }
    uint32_t payload = payload_of(s, c, p);
    t->tx.flag[p & (t->tx.cap - 1)] = 1;
    /* A packet declared lost (sent_ps -1) was taken out of flight then; it
     * stays in retx and is skipped when its turn comes. */
    if (t->tx.sent_ps[p & (t->tx.cap - 1)] >= 0)
        t->in_flight -= t->in_flight >= payload ? payload : t->in_flight;
    advance(t);
    tl_subflow *sf = tp_sub(s, c, 0);
    sf->io.inflight_bytes = t->in_flight;
    uint64_t una = (uint64_t)t->una * tp_mss(s);
    sf->io.snd_una = una < tp_flow(s, c)->size_bytes ? una : tp_flow(s, c)->size_bytes;
    tl_ack_info a = {.ack_seq = k->seq,
                     .newly_acked = payload,
                     .is_ece = k->is_ece,
                     .rtt_ps = now - k->sent_ps,
                     .sub = 0};
    tp_int_records(s, k, &a);
    tp_free(s, i);
    tp_cc_ack(s, c, 0, &a, now);
    if (t->una >= t->n_pkts) {
        close_tx(t);
        tp_tx_done(s, c);
        return;
    }
    tp_ready(s, c);
    tp_kick(s, c, now);
}

/* Drops acknowledged packets from the head of the retransmission queue. */
static void skip_acked_retx(sack *t)
{
    while (t->retx_n) {
        uint32_t p = t->retx[t->retx_head & (t->retx_cap - 1)];
        if (p >= t->una && !t->tx.flag[p & (t->tx.cap - 1)])
            return;
        t->retx_head++, t->retx_n--;
    }
}

static void on_timer(tl_pktsim *s, uint32_t c, int64_t now)
{
    sack *t = tp_state(s, c);
    if (tp_is_tx_done(s, c) || now < t->timer_at_ps)
        return; /* a timer replaced by an earlier one */
    t->timer_at_ps = 0;
    int is_loss = 0;
    while (t->fifo_n) {
        sent_rec r = t->fifo[t->fifo_head & (t->fifo_cap - 1)];
        int is_stale = r.p < t->una || t->tx.flag[r.p & (t->tx.cap - 1)] ||
                       t->tx.sent_ps[r.p & (t->tx.cap - 1)] != r.at;
        if (!is_stale && r.at + t->rto_ps > now)
            break;
        t->fifo_head++, t->fifo_n--;
        if (is_stale)
            continue;
        /* unacknowledged for one RTO since its last sending: lost */
        uint32_t payload = payload_of(s, c, r.p);
        t->in_flight -= t->in_flight >= payload ? payload : t->in_flight;
        tp_sub(s, c, 0)->io.inflight_bytes = t->in_flight;
        t->tx.sent_ps[r.p & (t->tx.cap - 1)] = -1; /* until it is sent again */
        if (fifo_push((void **)&t->retx, &t->retx_head, &t->retx_n, &t->retx_cap, sizeof r.p, &r.p)) {
            tp_fail_nomem(s);
            return;
        }
        tp_stats(s)->n_timeouts++;
        is_loss = 1;
    }
    if (is_loss) {
        tp_cc_loss(s, c, 0, now);
        tp_lb_loss(s, c, 0, now);
    }
    arm(s, c, t);
    if (is_loss) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

static uint32_t pull_live(tl_pktsim *s, uint32_t c, int64_t now, int64_t *wake)
{
    skip_acked_retx(tp_state(s, c));
    return pull(s, c, now, wake);
}

static void on_cc_change(tl_pktsim *s, uint32_t c, int64_t now)
{
    sack *t = tp_state(s, c);
    if (t->retx_n || t->nxt < t->n_pkts) {
        tp_ready(s, c);
        tp_kick(s, c, now);
    }
}

const tl_transport_ops tl_transport_sack = {
    .name = "sack",
    .doc = "Selective repeat over one path, as htsim's window transports (Uno's artifact): every "
           "data packet is acknowledged by name, the CC's window bounds the bytes in flight, and a "
           "packet unacknowledged for nic.rto_ps plus its path's base RTT since it was last sent "
           "is sent again, alone.",
    .state_bytes = sizeof(sack),
    .n_subflows = 1,
    .open = open,
    .pull = pull_live,
    .on_data = on_data,
    .on_ctrl = on_ctrl,
    .on_timer = on_timer,
    .on_cc_change = on_cc_change,
    .close = close_conn,
};
