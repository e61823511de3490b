/* pktsim's event loop, ports, hosts and transport (docs/pktsim.md).
 * Per packet and hop the engine normally schedules one event: the packet's
 * arrival at the far end of the link (a link keeps its in-flight packets in a
 * ring and only the head is in the heap, as htsim's pipes do). A port
 * schedules a transmit-done event only while packets wait behind the one on
 * the wire, so an uncongested hop costs one event. */
#include "pktsim_int.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/time.h"

/* ---- small helpers ---- */

static inline int64_t tx_time(const port *p, uint32_t bytes)
{
    return p->ps_per_byte ? (int64_t)(bytes * p->ps_per_byte) : tl_tx_time_ps(bytes, p->rate_bps);
}

/* tx_time for a packet about to be sent: a port whose rate does not divide
 * 8e12 (Parsimon's residual rates) needs a division, so it remembers the
 * last size it timed, which is nearly always a full packet's. */
static inline int64_t tx_time_memo(port *p, uint32_t bytes)
{
    if (p->ps_per_byte)
        return (int64_t)(bytes * p->ps_per_byte);
    if (bytes != p->memo_bytes) {
        p->memo_bytes = bytes;
        p->memo_ps = tl_tx_time_ps(bytes, p->rate_bps);
    }
    return p->memo_ps;
}

static inline pkt *P(tl_pktsim *s, uint32_t i) { return tl_pool_at(&s->pkts, i); }

/* Returns a packet, and its INT block if it has one, to their pools. */
static void free_pkt(tl_pktsim *s, uint32_t i)
{
    uint32_t b = P(s, i)->int_idx;
    if (b != NONE)
        tl_pool_put(&s->ints, b);
    tl_pool_put(&s->pkts, i);
}

static inline uint32_t pkt_chan(const tl_pktsim *s, const pkt *k, unsigned hop)
{
    /* Data follows its path; ACKs and NACKs retrace it backwards. */
    return k->kind == PK_DATA ? s->path[k->path_off + hop]
                              : s->path[k->path_off + k->hops - 1 - hop] ^ 1u;
}

static inline void q_account(port *p, int64_t now)
{
    p->q_area += (double)p->q_bytes * (double)(now - p->q_changed_ps);
    p->q_changed_ps = now;
}

/* cold: off the hot path, so the callers' inlining is what it was */
static int __attribute__((cold, noinline)) fail_nomem(tl_pktsim *s)
{
    return tl_err_nomem(&s->sticky);
}

/* Schedules an event. The heap grows by doubling (amortized, and only while
 * the event population still rises); when it cannot, the simulation fails
 * (sticky) and the run loop stops after the current event. Returns the
 * event's seq, 0 on failure. */
static inline uint64_t push(tl_pktsim *s, int64_t t_ps, uint32_t target, uint16_t kind,
                            uint16_t aux)
{
    uint64_t seq = tl_heap_push(&s->heap, t_ps, target, kind, aux);
    if (__builtin_expect(seq == 0, 0))
        fail_nomem(s);
    return seq;
}

/* The simulation's error, copied into err; returns its code. */
static int sticky_err(const tl_pktsim *s, tl_err *err)
{
    if (err)
        *err = s->sticky;
    return s->sticky.code;
}

/* ---- transmission ---- */

static void deliver(tl_pktsim *s, uint32_t i, int64_t now);

static inline void mark(tl_pktsim *s, port *p, pkt *k);

/* Whether a switch whose shared buffer holds used bytes takes a packet of
 * bytes into a port queue of q_bytes: it must fit the buffer and, without
 * PFC, the port's dynamic threshold (dt_alpha times the free buffer). With
 * PFC the threshold does not apply: pauses keep the buffer from filling,
 * and only a full buffer drops. */
static inline int admits(const tl_pktsim *s, uint64_t used, uint64_t q_bytes, uint32_t bytes,
                         int is_pfc)
{
    if (used + bytes > s->buffer_bytes)
        return 0;
    return is_pfc || (double)(q_bytes + bytes) <= s->dt_alpha * (double)(s->buffer_bytes - used);
}

/* Data packet i reaches, at time at, the switch whose direct port q
 * (tl_pktsim_set_direct_port) leads to its destination: q's FIFO, computed
 * at once, times its delivery there. Only the packet's own flow sees that
 * (future) time, and packets come to q in the order of their times. The
 * FIFO's backlog is known too, so q marks as its queue policy would: the
 * bytes still ahead of the packet stand for the queue it would leave behind
 * (dequeue marking; later packets are not known yet), with the packet itself
 * for the queue it joins (enqueue marking). */
static void cross_direct(tl_pktsim *s, port *q, uint32_t i, int64_t at)
{
    pkt *k = P(s, i);
    uint32_t bytes = k->wire_bytes;
    if (q->busy_until_ps > at) {
        uint64_t ahead = (uint64_t)((double)(q->busy_until_ps - at) * (double)q->rate_bps / 8e12);
        /* Admission as enqueue's, as if q had the switch's buffer to itself.
         * Without a bound a FIFO fed faster than it drains grows without
         * end, and once its delay passes the RTO the senders' go-back-N
         * resends feed it faster still (docs/pktsim.md). PFC would pause
         * instead of dropping, which a direct port cannot: the caller keeps
         * direct ports to lossy fabrics (tl_pktsim_set_direct_port). */
        if (!admits(s, ahead, ahead, bytes, 0)) {
            q->drops++;
            s->st.n_drops++;
            free_pkt(s, i);
            return;
        }
        if (s->qp->on_enqueue(q->qp_state, ahead + bytes, bytes, at, &s->rng) ||
            s->qp->on_dequeue(q->qp_state, ahead, bytes, at, &s->rng))
            mark(s, q, k);
    }
    int64_t start = at > q->busy_until_ps ? at : q->busy_until_ps;
    q->busy_until_ps = start + tx_time_memo(q, bytes);
    q->bytes_tx += bytes;
    q->pkts_tx++;
    s->st.n_link_hops++;
    deliver(s, i, q->busy_until_ps + q->prop_ps);
}

static inline void arm_txdone(tl_pktsim *s, port *p, int64_t at)
{
    /* Armed for later (a paced flow's next send) and now needed sooner
     * (another flow's packet went out and ends first): the earlier event
     * supersedes it; on_txdone works out the next time again. */
    if (!p->is_txdone_armed || at < p->txdone_ps) {
        p->is_txdone_armed = 1;
        p->txdone_ps = at;
        p->txdone_seq = push(s, at, (uint32_t)(p - s->ports), EV_TX_DONE, 0);
    }
}

/* Puts packet i on the wire of port p at now (the port is idle). */
static void start_tx(tl_pktsim *s, port *p, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    int64_t end = now + tx_time_memo(p, k->wire_bytes);
    p->busy_until_ps = end;
    p->bytes_tx += k->wire_bytes;
    p->pkts_tx++;
    if (k->int_idx != NONE && p->sw != NONE && k->kind == PK_DATA) {
        int_block *b = tl_pool_at(&s->ints, k->int_idx);
        if (b->n < TL_MAX_INT_HOPS)
            b->hop[b->n++] = (tl_int_hop){.qlen_bytes = p->q_bytes,
                                          .tx_bytes = p->bytes_tx,
                                          .ts_ps = now,
                                          .rate_bps = p->rate_bps};
    }
    if (p->is_through && k->kind == PK_DATA && s->is_direct_ctrl) {
        /* tl_pktsim_set_direct_through: no arrival event at the far end */
        s->st.n_link_hops++;
        if (s->node_sw[p->to] == NONE) {
            deliver(s, i, end + p->prop_ps);
        } else {
            k->hop++;
            k->in_chan = (uint32_t)(p - s->ports);
            cross_direct(s, &s->ports[pkt_chan(s, k, k->hop)], i, end + p->prop_ps);
        }
        return;
    }
    if (p->ring_n == p->ring_cap) { /* grow the ring (rare: only while in-flight rises) */
        uint32_t ncap = p->ring_cap * 2;
        uint32_t *rp = malloc(ncap * sizeof *rp);
        int64_t *ra = malloc(ncap * sizeof *ra);
        if (!rp || !ra) {
            free(rp);
            free(ra);
            fail_nomem(s);
            return;
        }
        for (uint32_t j = 0; j < p->ring_n; j++) {
            rp[j] = p->ring_pkt[(p->ring_head + j) & (p->ring_cap - 1)];
            ra[j] = p->ring_arr_ps[(p->ring_head + j) & (p->ring_cap - 1)];
        }
        free(p->ring_pkt);
        free(p->ring_arr_ps);
        p->ring_pkt = rp;
        p->ring_arr_ps = ra;
        p->ring_head = 0;
        p->ring_cap = ncap;
    }
    uint32_t slot = (p->ring_head + p->ring_n) & (p->ring_cap - 1);
    p->ring_pkt[slot] = i;
    p->ring_arr_ps[slot] = end + p->prop_ps;
    if (p->ring_n++ > 0)
        return;
    if (p->is_host && p->prop_ps == 0 && !p->is_txdone_armed) {
        /* A NIC on a link without delay: the packet arrives as it finishes,
         * on the NIC's own transmit-done event at that time, which the NIC
         * arms anyway whenever it has more to send (on_txdone delivers the
         * arrival first, as the arrival event would have come first). One
         * event per packet fewer; Parsimon's link simulations give their
         * sources such links. With an event already armed for later (a
         * paced flow's next send), the arrival keeps its own event. */
        arm_txdone(s, p, end);
        return;
    }
    push(s, end + p->prop_ps, (uint32_t)(p - s->ports), EV_ARRIVE, 0);
}

static inline void mark(tl_pktsim *s, port *p, pkt *k)
{
    k->is_ce = 1;
    p->marks++;
    s->st.n_marks++;
}

/* PFC: a PAUSE (is_pause) or RESUME for port up reaches it one link delay later. */
static void send_pfc(tl_pktsim *s, port *up, int is_pause, int64_t now)
{
    up->is_pause_sent = (uint8_t)is_pause;
    push(s, now + up->prop_ps, (uint32_t)(up - s->ports), EV_PFC, (uint16_t)is_pause);
}

/* The shared buffer switch sw has left (0 when full). */
static inline uint64_t sw_free_bytes(const tl_pktsim *s, uint32_t sw)
{
    uint64_t used = s->sw_used[sw];
    return s->buffer_bytes - (used < s->buffer_bytes ? used : s->buffer_bytes);
}

/* ns-3's HPCC fork resumes a dynamically paused ingress 3 KB below the
 * threshold (SwitchMmu resume_offset). */
#define PFC_RESUME_OFFSET 3000

/* The PAUSE threshold of ingress channel in at switch sw: fixed
 * (pfc_xoff_bytes), or with switch.pfc_shift the switch's free buffer
 * / 2^shift, as the HPCC fork's SwitchMmu::GetPfcThreshold. Its headroom
 * (hdrm_cap) lies outside that buffer; its 4 KB per-queue reserve is not
 * modelled. */
static inline uint64_t pfc_threshold(const tl_pktsim *s, const port *in, uint32_t sw)
{
    return s->is_pfc_dynamic ? sw_free_bytes(s, sw) >> in->pfc_shift : s->pfc_xoff_bytes;
}

static inline int pfc_should_resume(const tl_pktsim *s, const port *in, uint32_t sw)
{
    if (in->hdrm_bytes)
        return 0;
    if (!s->is_pfc_dynamic)
        return in->ingress_bytes < s->pfc_xon_bytes;
    return in->ingress_bytes == 0 || in->ingress_bytes + PFC_RESUME_OFFSET <= pfc_threshold(s, in, sw);
}

/* Frees the switch buffer that packet k held at port p. With PFC its
 * ingress channel's headroom drains first, as in the HPCC fork's SwitchMmu
 * (whichever of its packets leaves), then the shared buffer; the ingress
 * may then resume. */
static void release_buffer(tl_pktsim *s, const port *p, const pkt *k, int64_t now)
{
    if (p->sw == NONE)
        return;
    uint64_t b = k->wire_bytes;
    if (!s->is_pfc) {
        s->sw_used[p->sw] -= b;
        return;
    }
    port *in = &s->ports[k->in_chan];
    uint64_t h = in->hdrm_bytes < b ? in->hdrm_bytes : b;
    in->hdrm_bytes -= h;
    in->ingress_bytes -= b - h;
    s->sw_used[p->sw] -= b - h;
    if (in->is_pause_sent && pfc_should_resume(s, in, p->sw))
        send_pfc(s, in, 0, now);
}

static uint32_t dequeue(tl_pktsim *s, port *p, int64_t now)
{
    for (int c = 0; c < 2; c++) {
        uint32_t i = p->q_head[c];
        if (i == NONE || (c == 1 && p->is_paused))
            continue;
        pkt *k = P(s, i);
        p->q_head[c] = k->next;
        if (p->q_head[c] == NONE)
            p->q_tail[c] = NONE;
        q_account(p, now);
        p->q_bytes -= k->wire_bytes;
        release_buffer(s, p, k, now);
        if (k->kind == PK_DATA &&
            s->qp->on_dequeue(p->qp_state, p->q_bytes, k->wire_bytes, now, &s->rng))
            mark(s, p, k);
        return i;
    }
    return NONE;
}

static void nic_kick(tl_pktsim *s, port *p, int64_t now);

/* Queues packet i at port p (admission by the shared buffer's dynamic
 * threshold at switches; hosts never drop). */
static void enqueue(tl_pktsim *s, port *p, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    if (p->is_failed) {
        p->drops++;
        s->st.n_fail_drops++;
        free_pkt(s, i);
        return;
    }
    if (p->sw != NONE) {
        /* With PFC, what the full shared buffer cannot take goes to the
         * ingress channel's headroom, kept for the bytes still arriving
         * after a PAUSE; headroom in use pauses too (SwitchMmu). */
        port *in = s->is_pfc ? &s->ports[k->in_chan] : NULL;
        if (admits(s, s->sw_used[p->sw], p->q_bytes, k->wire_bytes, s->is_pfc)) {
            s->sw_used[p->sw] += k->wire_bytes;
            if (in) {
                in->ingress_bytes += k->wire_bytes;
                if (in->ingress_bytes > in->max_ingress_bytes)
                    in->max_ingress_bytes = in->ingress_bytes;
            }
        } else if (in && in->hdrm_bytes + k->wire_bytes <= in->hdrm_cap) {
            in->hdrm_bytes += k->wire_bytes;
            s->st.n_headroom_pkts++;
        } else {
            p->drops++;
            s->st.n_drops++;
            free_pkt(s, i);
            return;
        }
        if (in && !in->is_pause_sent &&
            (in->hdrm_bytes || in->ingress_bytes > pfc_threshold(s, in, p->sw)))
            send_pfc(s, in, 1, now);
    }
    if (k->kind == PK_DATA &&
        s->qp->on_enqueue(p->qp_state, p->q_bytes + k->wire_bytes, k->wire_bytes, now, &s->rng))
        mark(s, p, k);
    int c = k->kind == PK_DATA ? 1 : 0;
    k->next = NONE;
    if (p->q_tail[c] == NONE)
        p->q_head[c] = i;
    else
        P(s, p->q_tail[c])->next = i;
    p->q_tail[c] = i;
    q_account(p, now);
    p->q_bytes += k->wire_bytes;
    if (p->q_bytes > p->max_q_bytes)
        p->max_q_bytes = p->q_bytes;
    if (p->busy_until_ps > now) {
        arm_txdone(s, p, p->busy_until_ps);
    } else if (p->is_host) {
        nic_kick(s, p, now);
    } else {
        uint32_t j = dequeue(s, p, now);
        if (j == NONE) /* only paused data is waiting */
            return;
        start_tx(s, p, j, now);
        if (p->q_head[0] != NONE || p->q_head[1] != NONE)
            arm_txdone(s, p, p->busy_until_ps);
    }
}

/* ---- hosts: the NIC serves ACKs first, then its flows round-robin ---- */

static void rr_remove(tl_pktsim *s, port *p, uint32_t fi)
{
    flow_rt *f = &s->fl[fi];
    if (!f->is_in_rr)
        return;
    f->is_in_rr = 0;
    if (f->rr_next == fi) {
        p->rr_head = NONE;
        return;
    }
    s->fl[f->rr_prev].rr_next = f->rr_next;
    s->fl[f->rr_next].rr_prev = f->rr_prev;
    if (p->rr_head == fi)
        p->rr_head = f->rr_next;
}

static void rr_add(tl_pktsim *s, port *p, uint32_t fi)
{
    flow_rt *f = &s->fl[fi];
    if (f->is_in_rr)
        return;
    f->is_in_rr = 1;
    if (p->rr_head == NONE) {
        f->rr_next = f->rr_prev = fi;
        p->rr_head = fi;
        return;
    }
    uint32_t h = p->rr_head, t = s->fl[h].rr_prev; /* insert before the cursor: served last */
    f->rr_next = h;
    f->rr_prev = t;
    s->fl[t].rr_next = fi;
    s->fl[h].rr_prev = fi;
}

static int switch_path(tl_pktsim *s, uint32_t fi, uint64_t entropy);

static uint32_t make_data(tl_pktsim *s, uint32_t fi, int64_t now)
{
    flow_rt *f = &s->fl[fi];
    uint64_t e = s->lb->entropy(s->lb_state + (size_t)fi * s->lb->state_bytes, f->snd_nxt, &s->rng);
    if (e != f->entropy && switch_path(s, fi, e) != 0)
        return NONE;
    uint32_t i = tl_pool_get(&s->pkts);
    if (i == TL_POOL_NONE) {
        fail_nomem(s);
        return NONE;
    }
    pkt *k = P(s, i);
    uint64_t left = f->size_bytes - f->snd_nxt;
    k->payload_bytes = left < s->mtu_bytes ? (uint32_t)left : s->mtu_bytes;
    k->wire_bytes = k->payload_bytes + s->header_bytes;
    k->seq = f->snd_nxt;
    k->sent_ps = now;
    k->flow = fi;
    k->path_off = f->path_off;
    k->hops = f->hops;
    k->kind = PK_DATA;
    k->int_idx = NONE;
    if (s->cc->uses_int) {
        uint32_t b = tl_pool_get(&s->ints);
        if (b == TL_POOL_NONE) {
            tl_pool_put(&s->pkts, i);
            fail_nomem(s);
            return NONE;
        }
        ((int_block *)tl_pool_at(&s->ints, b))->n = 0;
        P(s, i)->int_idx = b; /* tl_pool_get on ints did not move pkts */
    }
    k->hop = 0;
    k->is_ce = k->is_ece = 0;
    k->next = NONE;
    if (f->snd_nxt + k->payload_bytes > f->io.snd_nxt) { /* beyond the highest sent: new data */
        s->st.bytes_sent += f->snd_nxt + k->payload_bytes - f->io.snd_nxt;
        if (f->snd_nxt < f->io.snd_nxt) /* a packet straddling the highest byte sent */
            s->st.bytes_retx += f->io.snd_nxt - f->snd_nxt;
    } else {
        s->st.n_retx_pkts++;
        s->st.bytes_retx += k->payload_bytes;
    }
    int was_idle = f->snd_una >= f->snd_nxt; /* nothing in flight before this packet */
    f->snd_nxt += k->payload_bytes;
    if (f->snd_nxt > f->io.snd_nxt)
        f->io.snd_nxt = f->snd_nxt;
    s->st.n_data_pkts++;
    if (f->io.rate_bps && f->io.rate_bps < f->io.line_bps)
        f->next_send_ps = now + tl_tx_time_ps(k->wire_bytes, f->io.rate_bps);
    if (!f->is_rto_armed) {
        f->is_rto_armed = 1;
        f->rto_deadline_ps = now + s->rto_ps;
        push(s, f->rto_deadline_ps, fi, EV_RTO, 0);
    } else if (was_idle) {
        /* The timer still runs from the last ACK, which acknowledged all: the
         * RTO counts from this packet, not from that ACK (the pending event
         * finds the later deadline and sleeps again). */
        f->rto_deadline_ps = now + s->rto_ps;
    }
    return i;
}

static void nic_kick(tl_pktsim *s, port *p, int64_t now)
{
    if (p->busy_until_ps > now) {
        if (p->q_head[0] != NONE || p->rr_head != NONE)
            arm_txdone(s, p, p->busy_until_ps);
        return;
    }
    uint32_t i = dequeue(s, p, now);
    if (i == NONE && p->rr_head != NONE && !p->is_paused) {
        int64_t wake = INT64_MAX;
        /* One lap of the ring: it ends back at the first flow that stayed in
         * it (the head itself may leave, so the head cannot mark the lap). */
        uint32_t fi = p->rr_head, lap = NONE;
        while (p->rr_head != NONE && fi != lap) {
            flow_rt *f = &s->fl[fi];
            uint32_t nx = f->rr_next;
            if (f->snd_nxt >= f->size_bytes) { /* everything sent: leave until a loss */
                rr_remove(s, p, fi);
                fi = nx;
                continue;
            }
            if (lap == NONE)
                lap = fi;
            if (f->snd_nxt - f->snd_una < f->io.cwnd_bytes ||
                f->snd_nxt == f->snd_una) { /* a window below one packet never stalls */
                if (f->next_send_ps <= now) {
                    i = make_data(s, fi, now);
                    p->rr_head = s->fl[fi].is_in_rr ? s->fl[fi].rr_next : p->rr_head;
                    break;
                }
                if (f->next_send_ps < wake)
                    wake = f->next_send_ps;
            }
            fi = nx;
        }
        if (i == NONE && wake != INT64_MAX)
            arm_txdone(s, p, wake);
    }
    if (i == NONE)
        return;
    start_tx(s, p, i, now);
    if (p->q_head[0] != NONE || p->rr_head != NONE)
        arm_txdone(s, p, p->busy_until_ps);
}

/* ---- transport endpoints ---- */

/* An ACK or NACK echoing a data packet's send time and mark. Takes values, not
 * the data packet: tl_pool_get may move the pool. */
static void send_ctrl(tl_pktsim *s, uint32_t fi, int kind, int64_t echo_sent_ps, int is_ce,
                      uint32_t path_off, uint8_t hops, uint32_t int_idx, int64_t now)
{
    flow_rt *f = &s->fl[fi];
    uint32_t i = tl_pool_get(&s->pkts);
    if (i == TL_POOL_NONE) {
        fail_nomem(s);
        return;
    }
    pkt *k = P(s, i);
    k->seq = f->rcv_nxt;
    k->sent_ps = echo_sent_ps;
    k->flow = fi;
    k->kind = (uint8_t)kind;
    k->hop = 0;
    k->is_ce = 0;
    k->is_ece = (uint8_t)is_ce;
    k->wire_bytes = s->ack_bytes;
    k->payload_bytes = 0;
    k->path_off = path_off;
    k->hops = hops;
    k->int_idx = int_idx;
    s->st.n_ack_pkts++;
    if (s->is_direct_ctrl) {
        /* No queueing: the reverse path's serialization and propagation,
         * the same for every control packet of the flow on one path, so
         * worked out once per path (at Parsimon's residual link rates it
         * is a division per hop: 6% of a link simulation). */
        if (f->ctrl_path_off != path_off + 1 || f->ctrl_bytes != k->wire_bytes) {
            int64_t d = 0;
            for (unsigned h = 0; h < hops; h++) {
                const port *q = &s->ports[pkt_chan(s, k, h)];
                d += tx_time(q, k->wire_bytes) + q->prop_ps;
            }
            f->ctrl_delay_ps = d;
            f->ctrl_path_off = path_off + 1;
            f->ctrl_bytes = k->wire_bytes;
        }
        push(s, now + f->ctrl_delay_ps, i, EV_CTRL_DIRECT, 0);
        return;
    }
    enqueue(s, &s->ports[pkt_chan(s, k, 0)], i, now);
}

static void on_data(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    uint32_t fi = k->flow;
    flow_rt *f = &s->fl[fi];
    int64_t sent_ps = k->sent_ps;
    int is_ce = k->is_ce;
    uint32_t po = k->path_off;
    uint8_t ph = k->hops;
    uint32_t int_idx = k->int_idx; /* handed to the ACK, if one is sent */
    uint64_t seq = k->seq;
    uint32_t payload = k->payload_bytes;
    k->int_idx = NONE; /* k is not used below: sending may move the packet pool */
    /* DCQCN's notification point: a CNP for a marked packet, at most one per
     * flow per min_time_between_cnps. */
    if (is_ce && s->cc->uses_cnp && now - f->last_cnp_ps >= s->cnp_interval_ps) {
        f->last_cnp_ps = now;
        s->st.n_cnps++;
        send_ctrl(s, fi, PK_CNP, sent_ps, 0, po, ph, NONE, now);
    }
    if (seq == f->rcv_nxt) {
        f->rcv_nxt += payload;
        s->st.bytes_delivered += payload;
        if (f->rcv_nxt == f->size_bytes && !f->is_rx_done) {
            f->is_rx_done = 1;
            s->st.n_flows_active--;
            s->res[fi].fct_ps = now - f->start_ps;
            s->st.n_flows_done++;
        }
        /* Coalesced ACKs: every ack_every_pkts packets, but at once for a mark
         * (the sender's alpha must see it) and for the last byte. */
        if (++f->unacked_pkts >= s->ack_every_pkts || is_ce || f->rcv_nxt == f->size_bytes) {
            f->unacked_pkts = 0;
            send_ctrl(s, fi, PK_ACK, sent_ps, is_ce, po, ph, int_idx, now);
            int_idx = NONE;
        }
    } else if (seq > f->rcv_nxt) {
        /* A gap: a loss upstream. Go-back-N: one NACK per gap, later packets dropped. */
        if (f->nacked_at != f->rcv_nxt + 1) {
            f->nacked_at = f->rcv_nxt + 1;
            send_ctrl(s, fi, PK_NACK, sent_ps, is_ce, po, ph, NONE, now);
        }
    } else {
        send_ctrl(s, fi, PK_ACK, sent_ps, is_ce, po, ph, int_idx, now); /* duplicate */
        int_idx = NONE;
    }
    if (int_idx != NONE)
        tl_pool_put(&s->ints, int_idx);
    free_pkt(s, i);
}

static inline void *cc_st(tl_pktsim *s, uint32_t fi)
{
    return s->cc_state + (size_t)fi * s->cc->state_bytes;
}

/* After any CC callback: if the CC armed its timer earlier than the event
 * already in the heap, push one (a later or cleared time is handled lazily
 * when the pending event fires). */
static void cc_sync_timer(tl_pktsim *s, uint32_t fi, int64_t now)
{
    flow_rt *f = &s->fl[fi];
    int64_t at = f->io.timer_at_ps;
    if (at <= 0)
        return;
    if (at < now)
        at = now;
    if (f->cc_timer_pending_ps == 0 || at < f->cc_timer_pending_ps) {
        f->cc_timer_pending_ps = at;
        push(s, at, fi, EV_CC_TIMER, 0);
    }
}

static void cc_loss(tl_pktsim *s, uint32_t fi)
{
    flow_rt *f = &s->fl[fi];
    if (s->cc->on_loss) {
        s->cc->on_loss(cc_st(s, fi), &f->io);
        cc_sync_timer(s, fi, f->io.now_ps);
    }
}

static void on_cc_timer(tl_pktsim *s, uint32_t fi, int64_t now)
{
    flow_rt *f = &s->fl[fi];
    if (f->cc_timer_pending_ps != now)
        return; /* superseded by an earlier event that already ran */
    f->cc_timer_pending_ps = 0;
    if (f->is_tx_done || f->is_unreachable)
        return;
    if (f->io.timer_at_ps > 0 && f->io.timer_at_ps <= now) {
        f->io.timer_at_ps = 0;
        f->io.now_ps = now;
        s->cc->on_timer(cc_st(s, fi), &f->io);
        port *nic = &s->ports[f->nic_port];
        if (f->snd_nxt < f->size_bytes) {
            rr_add(s, nic, fi);
            nic_kick(s, nic, now);
        }
    }
    cc_sync_timer(s, fi, now);
}

static void on_cnp(tl_pktsim *s, uint32_t i, int64_t now)
{
    uint32_t fi = P(s, i)->flow;
    flow_rt *f = &s->fl[fi];
    free_pkt(s, i);
    if (f->is_tx_done || !s->cc->on_cnp)
        return;
    f->io.now_ps = now;
    s->cc->on_cnp(cc_st(s, fi), &f->io);
    cc_sync_timer(s, fi, now);
}

static void on_ack(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    uint32_t fi = k->flow;
    flow_rt *f = &s->fl[fi];
    port *nic = &s->ports[f->nic_port];
    if (k->seq > f->snd_una) {
        tl_ack_info a = {.ack_seq = k->seq,
                         .newly_acked = k->seq - f->snd_una,
                         .is_ece = k->is_ece,
                         .rtt_ps = now - k->sent_ps};
        if (k->int_idx != NONE) {
            const int_block *b = tl_pool_at(&s->ints, k->int_idx);
            a.hops = b->hop;
            a.n_hops = (int)b->n;
        }
        f->snd_una = k->seq;
        if (f->snd_nxt < f->snd_una)
            f->snd_nxt = f->snd_una;
        f->io.snd_una = f->snd_una;
        f->io.now_ps = now;
        f->rto_deadline_ps = now + s->rto_ps;
        s->st.n_rtt_samples++;
        s->st.rtt_sum_ps += (double)a.rtt_ps;
        if ((double)a.rtt_ps > s->st.rtt_max_ps)
            s->st.rtt_max_ps = (double)a.rtt_ps;
        s->cc->on_ack(cc_st(s, fi), &f->io, &a);
        cc_sync_timer(s, fi, now);
    }
    if (k->kind == PK_NACK && k->seq >= f->snd_una && k->seq < f->snd_nxt) {
        f->snd_nxt = k->seq; /* go back N */
        f->io.now_ps = now;
        cc_loss(s, fi);
    }
    free_pkt(s, i);
    if (f->snd_una >= f->size_bytes) {
        f->is_tx_done = 1;
        f->is_rto_armed = 0; /* the pending RTO event finds the flow done */
        rr_remove(s, nic, fi);
        return;
    }
    if (f->snd_nxt < f->size_bytes)
        rr_add(s, nic, fi);
    nic_kick(s, nic, now);
}

static void on_rto(tl_pktsim *s, uint32_t fi, int64_t now)
{
    flow_rt *f = &s->fl[fi];
    if (f->is_tx_done || !f->is_rto_armed)
        return;
    if (now < f->rto_deadline_ps) { /* pushed back by ACKs since: sleep again */
        push(s, f->rto_deadline_ps, fi, EV_RTO, 0);
        return;
    }
    if (f->snd_una >= f->snd_nxt) {
        /* Nothing in flight: a paced flow between two packets (DCQCN at its
         * floor waits 8 ms for the next). Its next packet arms the timer
         * afresh; left armed, the timer counted a timeout and cut the rate
         * (cc_loss) on every idle RTO. */
        f->is_rto_armed = 0;
        return;
    }
    s->st.n_timeouts++;
    f->snd_nxt = f->snd_una;
    f->io.now_ps = now;
    cc_loss(s, fi);
    f->rto_deadline_ps = now + s->rto_ps;
    push(s, f->rto_deadline_ps, fi, EV_RTO, 0);
    port *nic = &s->ports[f->nic_port];
    rr_add(s, nic, fi);
    nic_kick(s, nic, now);
}

/* ---- events ---- */

/* A packet at the host where its path ends. */
static void deliver(tl_pktsim *s, uint32_t i, int64_t now)
{
    int kind = P(s, i)->kind;
    if (kind == PK_DATA)
        on_data(s, i, now);
    else if (kind == PK_CNP)
        on_cnp(s, i, now);
    else
        on_ack(s, i, now);
}

static void on_arrive(tl_pktsim *s, port *p, int64_t now)
{
    if (p->ring_n == 0) /* the link failed while this arrival was pending */
        return;
    uint32_t i = p->ring_pkt[p->ring_head];
    p->ring_head = (p->ring_head + 1) & (p->ring_cap - 1);
    if (--p->ring_n)
        push(s, p->ring_arr_ps[p->ring_head], (uint32_t)(p - s->ports), EV_ARRIVE, 0);
    s->st.n_link_hops++;
    pkt *k = P(s, i);
    if (s->node_sw[p->to] != NONE) {
        k->hop++;
        k->in_chan = (uint32_t)(p - s->ports);
        port *next = &s->ports[pkt_chan(s, k, k->hop)];
        if (next->is_direct && k->kind == PK_DATA && s->is_direct_ctrl) {
            cross_direct(s, next, i, now);
            return;
        }
        enqueue(s, next, i, now);
    } else {
        deliver(s, i, now);
    }
}

/* A control packet sent as a timed event (tl_pktsim_set_direct_acks) reaches
 * its sender. */
static void on_ctrl_direct(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    k->hop = (uint8_t)(k->hops - 1);
    deliver(s, i, now);
}

static void on_txdone(tl_pktsim *s, port *p, int64_t now)
{
    p->is_txdone_armed = 0;
    if (p->is_host) {
        if (p->ring_n && p->prop_ps == 0 && p->ring_arr_ps[p->ring_head] <= now)
            on_arrive(s, p, now);
        nic_kick(s, p, now);
        return;
    }
    if (p->busy_until_ps > now) {
        arm_txdone(s, p, p->busy_until_ps);
        return;
    }
    uint32_t i = dequeue(s, p, now);
    if (i == NONE)
        return;
    start_tx(s, p, i, now);
    if (p->q_head[0] != NONE || p->q_head[1] != NONE)
        arm_txdone(s, p, p->busy_until_ps);
}

static int on_link_fail(tl_pktsim *s, uint32_t link, int64_t now);

static void on_pfc(tl_pktsim *s, port *p, int is_pause, int64_t now)
{
    if (is_pause && !p->is_paused) {
        p->is_paused = 1;
        p->n_pauses++;
        p->paused_since_ps = now;
    } else if (!is_pause && p->is_paused) {
        p->is_paused = 0;
        p->paused_ps += now - p->paused_since_ps;
        if (p->is_host)
            nic_kick(s, p, now);
        else if (p->busy_until_ps <= now && !p->is_txdone_armed)
            on_txdone(s, p, now);
    }
}

static int start_flows(tl_pktsim *s, int64_t now)
{
    const tl_flows *fs = s->flows;
    while (s->next_start < fs->n && fs->v[s->next_start].start_ps <= now) {
        uint32_t fi = (uint32_t)s->next_start++;
        flow_rt *f = &s->fl[fi];
        if (f->is_unreachable)
            continue;
        f->is_started = 1;
        s->st.n_flows_active++;
        f->io.now_ps = now;
        int rc = s->cc->init(s->cc_state + (size_t)fi * s->cc->state_bytes, &f->io, &s->params,
                             &s->sticky);
        if (rc)
            return rc;
        cc_sync_timer(s, fi, now);
        port *nic = &s->ports[f->nic_port];
        rr_add(s, nic, fi);
        nic_kick(s, nic, now);
    }
    if (s->next_start < fs->n)
        push(s, fs->v[s->next_start].start_ps, 0, EV_FLOW_START, 0);
    return 0;
}

int tl_pktsim_run(tl_pktsim *s, int64_t until_ps, tl_progress *prog, tl_err *err)
{
    if (s->sticky.code) {
        if (err)
            *err = s->sticky;
        return s->sticky.code;
    }
    const size_t n = s->flows->n;
    tl_event e;
    uint64_t next_report = 1u << 20;
    while (s->st.n_flows_done + s->n_unreachable < n || until_ps < 0) {
        const tl_event *top = tl_heap_peek(&s->heap);
        if (!top || (until_ps > 0 && top->t_ps > until_ps))
            break;
        if (s->heap.n > s->st.max_pending_events)
            s->st.max_pending_events = s->heap.n;
        tl_heap_pop(&s->heap, &e);
        assert(e.t_ps >= s->st.now_ps);
        s->st.now_ps = e.t_ps;
        s->st.n_events++;
        switch (e.kind) {
        case EV_ARRIVE: on_arrive(s, &s->ports[e.target], e.t_ps); break;
        case EV_TX_DONE:
            if (e.seq == s->ports[e.target].txdone_seq) /* else superseded */
                on_txdone(s, &s->ports[e.target], e.t_ps);
            break;
        case EV_FLOW_START: start_flows(s, e.t_ps); break;
        case EV_RTO: on_rto(s, e.target, e.t_ps); break;
        case EV_PFC: on_pfc(s, &s->ports[e.target], e.aux, e.t_ps); break;
        case EV_LINK_FAIL: on_link_fail(s, e.target, e.t_ps); break;
        case EV_CC_TIMER: on_cc_timer(s, e.target, e.t_ps); break;
        case EV_CTRL_DIRECT: on_ctrl_direct(s, e.target, e.t_ps); break;
        case EV_CONTROL: {
            int rc = s->control(s->control_ctx, s, e.t_ps);
            if (rc) {
                tl_err_set(&s->sticky, rc < 0 ? rc : TL_EINVAL,
                           "the run-time control stopped the run (code %d)", rc);
                break;
            }
            if (s->st.n_flows_done + s->n_unreachable < n)
                push(s, e.t_ps + s->control_interval_ps, 0, EV_CONTROL, 0);
            break;
        }
        }
        if (s->sticky.code)
            break;
        if (s->st.n_events >= next_report) {
            next_report += 1u << 20;
            tl_progress_report_sim(prog, "pktsim", (double)s->st.n_flows_done, (double)n, "flows",
                                   (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
        }
    }
    if (s->sticky.code) {
        if (err)
            *err = s->sticky;
        return s->sticky.code;
    }
    for (uint32_t c = 0; c < s->n_ports; c++)
        q_account(&s->ports[c], s->st.now_ps);
    tl_progress_report_sim(prog, "pktsim", (double)s->st.n_flows_done, (double)n, "flows",
                           (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
    return 0;
}

/* ---- configuration ---- */

/* Reads every knob pktsim uses from s->params into the ports and the
 * simulation (at create, and after each run-time change). Validates the
 * combinations the registry's ranges cannot. */
static int apply_params(tl_pktsim *s, tl_err *err)
{
    const tl_params *p = &s->params;
    uint32_t mtu = (uint32_t)tl_params_get(p, "nic.mtu_bytes");
    uint32_t hdr = (uint32_t)tl_params_get(p, "nic.header_bytes");
    uint64_t buffer = (uint64_t)tl_params_get(p, "switch.buffer_bytes");
    double kmin = tl_params_get(p, "switch.kmin_bytes_per_gbps");
    double kmax = tl_params_get(p, "switch.kmax_bytes_per_gbps");
    int is_pfc = tl_params_get(p, "switch.pfc") != 0;
    uint64_t xoff = (uint64_t)tl_params_get(p, "switch.pfc_xoff_bytes");
    uint64_t xon = (uint64_t)tl_params_get(p, "switch.pfc_xon_bytes");
    if (buffer < mtu + hdr)
        return tl_err_set(err, TL_ERANGE,
                          "switch.buffer_bytes (%llu) is smaller than one packet (%u bytes)",
                          (unsigned long long)buffer, mtu + hdr);
    if (kmax < kmin)
        return tl_err_set(err, TL_ERANGE,
                          "switch.kmax_bytes_per_gbps (%g) must be >= switch.kmin_bytes_per_gbps "
                          "(%g)",
                          kmax, kmin);
    if (is_pfc && xon >= xoff)
        return tl_err_set(err, TL_ERANGE,
                          "switch.pfc_xon_bytes (%llu) must be below switch.pfc_xoff_bytes (%llu)",
                          (unsigned long long)xon, (unsigned long long)xoff);
    s->mtu_bytes = mtu;
    s->header_bytes = hdr;
    s->ack_bytes = (uint32_t)tl_params_get(p, "nic.ack_bytes");
    s->ack_every_pkts = (uint32_t)tl_params_get(p, "nic.ack_every_pkts");
    s->cnp_interval_ps = (int64_t)tl_params_get(p, "dcqcn.min_time_between_cnps_ps");
    s->buffer_bytes = buffer;
    s->dt_alpha = tl_params_get(p, "switch.dt_alpha");
    s->rto_ps = (int64_t)tl_params_get(p, is_pfc ? "nic.rto_lossless_ps" : "nic.rto_ps");
    s->is_pfc = is_pfc;
    s->pfc_xoff_bytes = xoff;
    s->pfc_xon_bytes = xon;
    /* Dynamic PFC as the HPCC fork's third.cc sets it: the shift falls by one
     * per doubling of a port's rate over the NIC rate (the slowest host link
     * here), so fast fabric ports may hold more. */
    int shift = (int)tl_params_get(p, "switch.pfc_shift");
    s->is_pfc_dynamic = shift > 0;
    uint64_t nic_bps = UINT64_MAX;
    for (uint32_t c = 0; c < s->n_ports; c++)
        if (s->ports[c].is_host && s->ports[c].rate_bps < nic_bps)
            nic_bps = s->ports[c].rate_bps;
    /* PFC headroom per ingress channel: what can still arrive once it is
     * paused. The PAUSE takes one link delay to land, during which the
     * bytes on the wire and those sent meanwhile (two delays at line rate)
     * keep coming, then the packet being sent when it lands; plus the one
     * that set it off. So a lossless fabric never drops (ns-3's third.cc
     * gives 3 link delays at line rate). */
    for (uint32_t c = 0; c < s->n_ports; c++) {
        const port *q = &s->ports[c];
        double bdp = (double)q->rate_bps * (double)q->prop_ps / 8e12;
        s->ports[c].hdrm_cap = is_pfc ? 2 * (uint64_t)ceil(bdp) + 2 * (uint64_t)(mtu + hdr) : 0;
    }
    for (uint32_t c = 0; c < s->n_ports; c++) {
        int sh = shift;
        for (uint64_t r = s->ports[c].rate_bps; r > nic_bps && sh > 0; r /= 2)
            sh--;
        s->ports[c].pfc_shift = (uint8_t)sh;
    }
    for (uint32_t c = 0; c < s->n_ports; c++)
        s->qp->configure(s->ports[c].qp_state, s->ports[c].rate_bps, p);
    return 0;
}

int tl_pktsim_set_param(tl_pktsim *s, const char *name, double value, tl_err *err)
{
    double old = tl_params_get(&s->params, name);
    int rc = tl_params_set(&s->params, name, value, err);
    if (rc)
        return rc;
    if ((rc = apply_params(s, err))) {
        tl_params_set(&s->params, name, old, NULL); /* keep the running configuration valid */
        return rc;
    }
    if (s->cc->reconfigure)
        for (size_t i = 0; i < s->flows->n; i++) {
            flow_rt *f = &s->fl[i];
            if (f->is_started && !f->is_tx_done)
            {
                s->cc->reconfigure(cc_st(s, (uint32_t)i), &f->io, &s->params);
                cc_sync_timer(s, (uint32_t)i, s->st.now_ps);
            }
        }
    return 0;
}

int tl_pktsim_set_control(tl_pktsim *s, int64_t interval_ps, tl_pktsim_control_fn fn, void *ctx,
                          tl_err *err)
{
    if (interval_ps <= 0 || !fn)
        return tl_err_set(err, TL_ERANGE, "control needs a callback and an interval > 0, found %lld ps",
                          (long long)interval_ps);
    if (s->sticky.code)
        return sticky_err(s, err);
    s->control = fn;
    s->control_ctx = ctx;
    s->control_interval_ps = interval_ps;
    if (!push(s, s->st.now_ps + interval_ps, 0, EV_CONTROL, 0))
        return sticky_err(s, err);
    return 0;
}

int tl_pktsim_fail_link(tl_pktsim *s, uint32_t link, int64_t at_ps, tl_err *err)
{
    if (link >= tl_topo_n_links(s->topo))
        return tl_err_set(err, TL_ERANGE, "link %u does not exist (there are %u links)", link,
                          tl_topo_n_links(s->topo));
    if (at_ps < s->st.now_ps)
        return tl_err_set(err, TL_ERANGE, "cannot fail link %u in the past (%lld ps < now %lld ps)",
                          link, (long long)at_ps, (long long)s->st.now_ps);
    if (s->sticky.code || !push(s, at_ps, link, EV_LINK_FAIL, 0))
        return sticky_err(s, err);
    return 0;
}

const uint32_t *tl_pktsim_flow_path(const tl_pktsim *s, size_t i, int *hops)
{
    *hops = s->fl[i].hops;
    return s->path + s->fl[i].path_off;
}

/* Room for one more path at the end of the path table. */
static int path_reserve(tl_pktsim *s)
{
    if (s->path_used + TL_MAX_HOPS <= s->path_cap)
        return 0;
    uint32_t *np = realloc(s->path, 2 * s->path_cap * sizeof *np);
    if (!np)
        return fail_nomem(s);
    s->path = np;
    s->path_cap *= 2;
    return 0;
}

/* Moves flow fi to the ECMP path of entropy e (entropy 0 is its recorded
 * path's hash). Paths are appended to the path table; packets already sent
 * keep theirs. A load balancer that changes entropy per packet would want a
 * per-flow cache of its paths instead of appending every time. */
static int switch_path(tl_pktsim *s, uint32_t fi, uint64_t e)
{
    flow_rt *f = &s->fl[fi];
    const tl_flow *fw = &s->flows->v[fi];
    if (path_reserve(s) != 0)
        return s->sticky.code;
    const tl_routes *r = s->own_routes ? s->own_routes : s->routes;
    uint64_t id = e ? fw->id ^ tl_mix64(e) : fw->id;
    int h = tl_routes_path(r, id, fw->src, fw->dst, s->path + s->path_used, TL_MAX_HOPS,
                           &s->sticky);
    if (h < 0)
        return h;
    f->path_off = (uint32_t)s->path_used;
    f->hops = (uint8_t)h;
    f->entropy = e;
    s->path_used += (size_t)h;
    return 0;
}

/* Drops every packet queued at or travelling on port p and marks it down. */
static void kill_port(tl_pktsim *s, port *p, int64_t now)
{
    p->is_failed = 1;
    uint32_t i;
    while ((i = dequeue(s, p, now)) != NONE) {
        p->drops++;
        s->st.n_fail_drops++;
        free_pkt(s, i);
    }
    for (int c = 0; c < 2; c++) /* paused data that dequeue left */
        while ((i = p->q_head[c]) != NONE) {
            p->q_head[c] = P(s, i)->next;
            p->q_bytes -= P(s, i)->wire_bytes;
            release_buffer(s, p, P(s, i), now);
            s->st.n_fail_drops++;
            free_pkt(s, i);
        }
    p->q_tail[0] = p->q_tail[1] = NONE;
    for (; p->ring_n; p->ring_n--, p->ring_head = (p->ring_head + 1) & (p->ring_cap - 1)) {
        s->st.n_fail_drops++;
        free_pkt(s, p->ring_pkt[p->ring_head]);
    }
}

/* A link goes down: both directions lose their packets, and every unfinished
 * flow moves to a path that avoids all links failed so far. */
static int on_link_fail(tl_pktsim *s, uint32_t link, int64_t now)
{
    if (s->link_down[link])
        return 0;
    s->link_down[link] = 1;
    kill_port(s, &s->ports[2 * link], now);
    kill_port(s, &s->ports[2 * link + 1], now);
    tl_routes_destroy(s->own_routes);
    s->own_routes = tl_routes_create_masked(s->topo, s->seed, s->link_down, &s->sticky);
    if (!s->own_routes)
        return s->sticky.code;
    const tl_flows *fs = s->flows;
    for (size_t i = 0; i < fs->n; i++) {
        flow_rt *f = &s->fl[i];
        if (f->is_rx_done || f->is_unreachable)
            continue;
        if (path_reserve(s) != 0)
            return s->sticky.code;
        tl_err perr;
        int h = tl_routes_path(s->own_routes, fs->v[i].id, fs->v[i].src, fs->v[i].dst,
                               s->path + s->path_used, TL_MAX_HOPS, &perr);
        port *old_nic = &s->ports[f->nic_port];
        if (h < 0) { /* cut off: it will never finish */
            f->is_unreachable = 1;
            s->n_unreachable++;
            s->st.n_flows_unreachable++;
            if (f->is_started) {
                s->st.n_flows_active--;
                rr_remove(s, old_nic, (uint32_t)i);
                f->is_tx_done = 1;
            }
            continue;
        }
        f->path_off = (uint32_t)s->path_used;
        f->hops = (uint8_t)h;
        s->path_used += (size_t)h;
        uint32_t nic = s->path[f->path_off];
        if (nic != f->nic_port) {
            int was_in = f->is_in_rr;
            rr_remove(s, old_nic, (uint32_t)i);
            f->nic_port = nic;
            if (was_in)
                rr_add(s, &s->ports[nic], (uint32_t)i);
        }
    }
    return 0;
}

/* ---- build ---- */

void tl_pktsim_destroy(tl_pktsim *s)
{
    if (!s)
        return;
    if (s->ports)
        for (uint32_t c = 0; c < s->n_ports; c++) {
            free(s->ports[c].ring_pkt);
            free(s->ports[c].ring_arr_ps);
        }
    free(s->ports);
    free(s->sw_used);
    free(s->node_sw);
    free(s->fl);
    free(s->cc_state);
    free(s->lb_state);
    free(s->qp_states);
    free(s->path);
    free(s->res);
    free(s->link_down);
    tl_routes_destroy(s->own_routes);
    tl_params_fini(&s->params);
    tl_heap_fini(&s->heap);
    tl_pool_fini(&s->pkts);
    tl_pool_fini(&s->ints);
    free(s);
}

static int build_ports(tl_pktsim *s, tl_err *err)
{
    const tl_topo *t = s->topo;
    uint32_t nn = tl_topo_n_nodes(t), n_sw = 0;
    s->node_sw = malloc((size_t)nn * sizeof *s->node_sw);
    if (!s->node_sw)
        return tl_err_nomem(err);
    for (uint32_t v = 0; v < nn; v++)
        s->node_sw[v] = tl_topo_node(t, v)->kind == TL_NODE_SWITCH ? n_sw++ : NONE;
    s->sw_used = calloc(n_sw + 1, sizeof *s->sw_used);
    s->n_ports = 2 * tl_topo_n_links(t);
    s->ports = calloc(s->n_ports, sizeof *s->ports);
    s->qp_states = calloc(s->n_ports, s->qp->state_bytes ? s->qp->state_bytes : 1);
    if (!s->sw_used || !s->ports || !s->qp_states)
        return tl_err_nomem(err);
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *p = &s->ports[c];
        const tl_link *l = tl_topo_link(t, tl_chan_link(c));
        p->from = tl_topo_chan_from(t, c);
        p->to = tl_topo_chan_to(t, c);
        p->sw = s->node_sw[p->from];
        p->is_host = p->sw == NONE;
        p->rate_bps = l->rate_bps;
        p->ps_per_byte = 8000000000000ull % l->rate_bps == 0 ? 8000000000000ull / l->rate_bps : 0;
        p->prop_ps = l->delay_ps;
        p->qp_state = s->qp_states + (size_t)c * s->qp->state_bytes;
        p->q_head[0] = p->q_head[1] = p->q_tail[0] = p->q_tail[1] = NONE;
        p->rr_head = NONE;
        /* Ring sized for a link full of minimum-size packets, rounded up to a
         * power of two so the index wraps with a mask; doubles if needed. */
        uint64_t need = (uint64_t)(l->delay_ps / (tx_time(p, s->ack_bytes) + 1)) + 4, cap = 4;
        while (cap < need && cap < (1u << 20))
            cap *= 2;
        p->ring_cap = (uint32_t)cap;
        p->ring_pkt = malloc(p->ring_cap * sizeof *p->ring_pkt);
        p->ring_arr_ps = malloc(p->ring_cap * sizeof *p->ring_arr_ps);
        if (!p->ring_pkt || !p->ring_arr_ps)
            return tl_err_nomem(err);
    }
    return 0;
}

static int build_flows(tl_pktsim *s, const tl_routes *r, tl_err *err)
{
    const tl_flows *fs = s->flows;
    size_t n = fs->n;
    s->fl = calloc(n ? n : 1, sizeof *s->fl);
    s->res = calloc(n ? n : 1, sizeof *s->res);
    s->cc_state = calloc(n ? n : 1, s->cc->state_bytes ? s->cc->state_bytes : 1);
    s->lb_state = calloc(n ? n : 1, s->lb->state_bytes ? s->lb->state_bytes : 1);
    if (!s->lb_state)
        return tl_err_nomem(err);
    s->path_cap = (n ? n : 1) * 8;
    s->path = malloc(s->path_cap * sizeof *s->path);
    if (!s->fl || !s->res || !s->cc_state || !s->path)
        return tl_err_nomem(err);
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const tl_flow *fw = &fs->v[i];
        if (i && fw->start_ps < fs->v[i - 1].start_ps)
            return tl_err_set(err, TL_EINVAL, "flows must be sorted by start time (flow %zu)", i);
        if (used + TL_MAX_HOPS > s->path_cap) {
            s->path_cap *= 2;
            uint32_t *np = realloc(s->path, s->path_cap * sizeof *np);
            if (!np)
                return tl_err_nomem(err);
            s->path = np;
        }
        int h = tl_routes_path(r, fw->id, fw->src, fw->dst, s->path + used, TL_MAX_HOPS, err);
        if (h < 0)
            return h;
        flow_rt *f = &s->fl[i];
        f->size_bytes = fw->size_bytes;
        f->start_ps = fw->start_ps;
        f->path_off = (uint32_t)used;
        f->hops = (uint8_t)h;
        f->nic_port = s->path[used];
        f->rr_next = f->rr_prev = NONE;
        f->nacked_at = 0;
        f->last_cnp_ps = INT64_MIN / 2;
        /* Unloaded round trip: propagation both ways, a full data packet and an ACK serialized at every hop. */
        int64_t rtt = 0;
        uint64_t line = s->ports[s->path[used]].rate_bps;
        for (int j = 0; j < h; j++) {
            const port *p = &s->ports[s->path[used + j]];
            rtt += 2 * p->prop_ps + tx_time(p, s->mtu_bytes + s->header_bytes) +
                   tx_time(p, s->ack_bytes);
        }
        f->io = (tl_cc_io){.cwnd_bytes = UINT64_MAX,
                           .line_bps = line,
                           .mss_bytes = s->mtu_bytes,
                           .base_rtt_ps = rtt};
        s->res[i].fct_ps = -1;
        s->res[i].ideal_ps = tl_ideal_fct_ps(s->topo, s->path + used, h, fw->size_bytes,
                                             s->mtu_bytes, s->header_bytes);
        if (s->res[i].ideal_ps > TL_START_MAX_PS) /* its run could not end in int64 ps */
            return tl_err_set(err, TL_ERANGE,
                              "flow %llu: %llu bytes take %.3g s alone on their path, past the "
                              "%.1f days tailor simulates (int64 picoseconds)",
                              (unsigned long long)fw->id, (unsigned long long)fw->size_bytes,
                              (double)s->res[i].ideal_ps * 1e-12,
                              (double)TL_START_MAX_PS * 1e-12 / 86400);
        used += (size_t)h;
    }
    s->path_used = used;
    return 0;
}

tl_pktsim *tl_pktsim_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                            const tl_params *p, const char *cc, uint64_t seed, tl_err *err)
{
    tl_pktsim *s = calloc(1, sizeof *s);
    if (!s) {
        tl_err_nomem(err);
        return NULL;
    }
    s->topo = t;
    s->routes = r;
    s->flows = f;
    s->seed = seed;
    s->cc = tl_cc_find(cc);
    s->qp = &tl_qpolicy_red;
    s->lb = &tl_lb_ecmp;
    if (!s->cc) {
        tl_err_set(err, TL_EINVAL, "pktsim does not implement congestion control '%s' yet "
                                   "(available: dctcp, dctcp-rate, dcqcn, timely, hpcc)",
                   cc);
        goto fail;
    }
    if (tl_params_copy(&s->params, p, err))
        goto fail;
    tl_rng_init(&s->rng, seed, "pktsim", 0);
    if (tl_heap_init(&s->heap, 1024, err) ||
        tl_pool_init(&s->pkts, sizeof(pkt), 4096, UINT32_MAX - 1, err) ||
        tl_pool_init(&s->ints, sizeof(int_block), s->cc->uses_int ? 4096 : 1, UINT32_MAX - 1,
                     err) ||
        /* Twice: the scalars (packet sizes size the link rings), then the
         * per-port marking thresholds once the ports exist. */
        apply_params(s, err) || build_ports(s, err) || apply_params(s, err) ||
        build_flows(s, r, err))
        goto fail;
    s->link_down = calloc(tl_topo_n_links(t) + 1, 1);
    if (!s->link_down) {
        tl_err_nomem(err);
        goto fail;
    }
    if (f->n && !push(s, f->v[0].start_ps, 0, EV_FLOW_START, 0)) {
        tl_err_nomem(err);
        goto fail;
    }
    return s;
fail:
    tl_pktsim_destroy(s);
    return NULL;
}

const tl_flow_result *tl_pktsim_results(const tl_pktsim *s) { return s->res; }

void tl_pktsim_get_stats(const tl_pktsim *s, tl_pktsim_stats *st) { *st = s->st; }

void tl_pktsim_port_stats(const tl_pktsim *s, uint32_t chan, tl_port_stats *out)
{
    const port *p = &s->ports[chan];
    out->bytes_tx = p->bytes_tx;
    out->pkts_tx = p->pkts_tx;
    out->marks = p->marks;
    out->drops = p->drops;
    out->max_queue_bytes = p->max_q_bytes;
    out->queue_bytes_now = p->q_bytes;
    out->mean_queue_bytes = s->st.now_ps > 0 ? p->q_area / (double)s->st.now_ps : 0;
    out->n_pauses = p->n_pauses;
    out->paused_ps = p->paused_ps + (p->is_paused ? s->st.now_ps - p->paused_since_ps : 0);
    out->max_ingress_bytes = p->max_ingress_bytes;
}

void tl_pktsim_set_direct_acks(tl_pktsim *s, int is_on) { s->is_direct_ctrl = is_on != 0; }

int tl_pktsim_set_direct_port(tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (chan >= s->n_ports || s->node_sw[s->ports[chan].from] == NONE ||
        s->node_sw[s->ports[chan].to] != NONE)
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u is not a switch-to-host link",
                          chan);
    if (s->is_pfc)
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u: not with PFC (a direct port "
                          "cannot pause its upstream)", chan);
    s->ports[chan].is_direct = 1;
    return 0;
}

int tl_pktsim_set_direct_through(tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (chan >= s->n_ports)
        return tl_err_set(err, TL_EINVAL, "direct through: no channel %u", chan);
    uint32_t v = s->ports[chan].to;
    for (size_t i = 0; i < s->flows->n; i++) {
        const flow_rt *f = &s->fl[i];
        for (unsigned h = 0; h < f->hops; h++) {
            uint32_t c = s->path[f->path_off + h];
            if (s->ports[c].to == v && c != chan)
                return tl_err_set(err, TL_EINVAL, "direct through: flow %zu reaches node %u over "
                                  "channel %u, not only over channel %u", i, v, c, chan);
            if (c == chan && h + 1 < f->hops && !s->ports[s->path[f->path_off + h + 1]].is_direct)
                return tl_err_set(err, TL_EINVAL, "direct through: flow %zu leaves node %u over "
                                  "channel %u, which is not a direct port", i, v,
                                  s->path[f->path_off + h + 1]);
        }
    }
    s->ports[chan].is_through = 1;
    return 0;
}
