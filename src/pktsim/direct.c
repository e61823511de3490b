/* Parsimon's shortcuts for its link-level simulations (docs/parsimon.md):
 * control packets as timed deliveries (tl_pktsim_set_direct_acks), and
 * direct ports, whose data is timed as a FIFO would send it instead of
 * queued (tl_pktsim_set_direct_port, _watched, _through). A direct port is
 * a port implementation (port.impl) chosen before the run; the core loop
 * only sees the EV_DELIVER events they schedule and a watched port's
 * EV_DIRECT_SETTLE. */
#include <math.h>
#include <stdlib.h>

#include "pktsim_int.h"

/* Bytes still to leave direct port q at time at: its FIFO's backlog. */
static inline uint64_t backlog_at(const port *q, int64_t at)
{
    if (q->busy_until_ps <= at)
        return 0;
    return (uint64_t)((double)(q->busy_until_ps - at) * (double)q->rate_bps / 8e12);
}

/* Whether the watched direct ports of q's switch, now that q holds backlog
 * bytes at time at, hold more than the PFC threshold of ingress channel in
 * (or more than the buffer): where queues would have paused it or dropped
 * (tl_pktsim_set_direct_port_watched). The sum kept is each port's backlog
 * when it last took a packet, which only drains meanwhile, so it bounds
 * what they hold from above; only past the threshold is it worked out
 * again, from the other ports' backlogs at time at, which count the packet
 * on their wire as a queue's would not: the run stops a little early
 * rather than late. */
static int watch_pauses(tl_pktsim *s, port *q, const port *in, int64_t at, uint64_t backlog)
{
    uint64_t *held = &s->sw_watch[q->sw];
    *held = *held - q->watch_bytes + backlog;
    q->watch_bytes = backlog;
    if (!swmem_would_pause(s, in, q->sw, *held))
        return 0;
    uint64_t exact = 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *r = &s->ports[c];
        if (r->fifo && r->sw == q->sw) {
            if (r != q)
                r->watch_bytes = backlog_at(r, at);
            exact += r->watch_bytes;
        }
    }
    *held = exact;
    if (!swmem_would_pause(s, in, q->sw, exact))
        return 0;
    tl_err_set(&s->sticky, TL_EPAUSE,
               "direct port %u: its switch would pause channel %u at %.3f us (%llu bytes held)",
               (unsigned)(q - s->ports), (unsigned)(in - s->ports), (double)at * 1e-6,
               (unsigned long long)exact);
    return 1;
}

/* Puts bytes arriving at time at on direct port q's FIFO; returns when they
 * start (they end at q->busy_until_ps). */
static int64_t fifo_send(tl_pktsim *s, port *q, uint32_t bytes, int64_t at)
{
    int64_t start = at > q->busy_until_ps ? at : q->busy_until_ps;
    q->busy_until_ps = start + port_tx_time_memo(q, bytes);
    q->bytes_tx += bytes;
    q->pkts_tx++;
    s->st.n_link_hops++;
    return start;
}

/* Hands the packet of entry x to its destination, marked by q's dequeue
 * policy against the behind bytes that came after it by its start. */
static void fifo_release(tl_pktsim *s, port *q, const dfifo_ent *x, uint64_t behind)
{
    if (q->qp->on_dequeue(q->qp_state, behind, x->bytes, x->start_ps, &s->rng))
        port_mark(s, q, P(s, x->pkt));
    ep_deliver(s, x->pkt, x->end_ps + q->prop_ps);
}

/* Releases q's pending packets that start before t. Every packet that came
 * since a pending one did so by its start (else it was released then), so
 * the bytes that came after it are those it leaves behind. A packet that
 * comes at the very time another starts is not behind it: pktsim's queue
 * takes the transmit-done first (armed a packet earlier, where the ring
 * schedules a back-to-back arrival only when the one before it lands). */
static void fifo_settle(tl_pktsim *s, port *q, int64_t t)
{
    dfifo *f = q->fifo;
    while (f->n_pending) {
        const dfifo_ent *x = &f->e[(f->head + f->n - f->n_pending) & (f->cap - 1)];
        if (x->start_ps >= t)
            return;
        f->n_pending--;
        fifo_release(s, q, x, f->cum_bytes - x->cum_bytes);
    }
}

/* A pending packet's start has come: the packets that come to q by then
 * have (they cross at their start on the link, before they come). */
void direct_on_settle(tl_pktsim *s, port *q, int64_t now)
{
    dfifo *f = q->fifo;
    f->is_settle_armed = 0;
    fifo_settle(s, q, now + 1);
    if (f->n_pending) {
        f->is_settle_armed = 1;
        push(s, f->e[(f->head + f->n - f->n_pending) & (f->cap - 1)].start_ps,
             (uint32_t)(q - s->ports), EV_DIRECT_SETTLE, 0);
    }
}

/* Appends x to f's ring (doubled when full); 0, or the failure. */
static int fifo_push(tl_pktsim *s, dfifo *f, dfifo_ent x)
{
    if (f->n == f->cap) {
        uint32_t ncap = f->cap ? 2 * f->cap : 16;
        dfifo_ent *e = malloc(ncap * sizeof *e);
        if (!e)
            return pktsim_fail_nomem(s);
        for (uint32_t j = 0; j < f->n; j++)
            e[j] = f->e[(f->head + j) & (f->cap - 1)];
        free(f->e);
        f->e = e;
        f->head = 0;
        f->cap = ncap;
    }
    f->e[(f->head + f->n++) & (f->cap - 1)] = x;
    return 0;
}

/* Data packet i comes, at time at, to watched direct port q: timed as a
 * FIFO and marked as the queue would mark it. Packets come in the order of
 * their times, at or before now (through: when they start on the link). */
static void watched_cross(tl_pktsim *s, port *q, uint32_t i, int64_t at)
{
    dfifo *f = q->fifo;
    pkt *k = P(s, i);
    uint32_t bytes = k->wire_bytes;
    fifo_settle(s, q, at + 1); /* those that start by at */
    while (f->n > f->n_pending && f->e[f->head].end_ps <= at) { /* gone */
        f->head = (f->head + 1) & (f->cap - 1);
        f->n--;
    }
    /* Waiting at at: all but the head, which is on the wire. */
    uint64_t waiting = f->n ? f->cum_bytes - f->e[f->head].cum_bytes : 0;
    if (watch_pauses(s, q, &s->ports[k->in_chan], at, waiting + bytes))
        return; /* the run stops; the caller runs again with queues */
    if (q->qp->on_enqueue(q->qp_state, waiting + bytes, bytes, at, &s->rng))
        port_mark(s, q, k);
    int64_t start = fifo_send(s, q, bytes, at);
    f->cum_bytes += bytes;
    dfifo_ent x = {start, q->busy_until_ps, f->cum_bytes, i, bytes};
    if (fifo_push(s, f, x))
        return;
    if (start == at) { /* sent at once: nothing behind it yet */
        fifo_release(s, q, &x, 0);
        return;
    }
    f->n_pending++;
    if (!f->is_settle_armed) {
        f->is_settle_armed = 1;
        push(s, start, (uint32_t)(q - s->ports), EV_DIRECT_SETTLE, 0);
    }
}

/* Data packet i reaches, at time at, the switch whose direct port q leads
 * to its destination: q's FIFO, computed at once, times its delivery there.
 * Only the packet's own flow sees that (future) time, and packets come to q
 * in the order of their times. The FIFO's backlog is known too, so q marks
 * as its queue policy would: the bytes still ahead of the packet stand for
 * the queue it would leave behind (dequeue marking; later packets are not
 * known yet), with the packet itself for the queue it joins (enqueue
 * marking). A watched port (PFC) keeps its packets and marks exactly. */
void direct_cross(tl_pktsim *s, port *q, uint32_t i, int64_t at)
{
    if (q->fifo) {
        watched_cross(s, q, i, at);
        return;
    }
    pkt *k = P(s, i);
    uint32_t bytes = k->wire_bytes;
    if (q->busy_until_ps > at) {
        uint64_t ahead = backlog_at(q, at);
        /* Admission as enqueue's, as if q had the switch's buffer to itself.
         * Without a bound a FIFO fed faster than it drains grows without
         * end, and once its delay passes the RTO the senders' go-back-N
         * resends feed it faster still (docs/pktsim.md). PFC would pause
         * instead of dropping, which a direct port cannot: with PFC the
         * ports that could queue are watched (above). */
        if (!swmem_admits(s, ahead, ahead, bytes, 0)) {
            q->drops++;
            s->st.n_drops++;
            ep_lose_pkt(s, i);
            return;
        }
        if (q->qp->on_enqueue(q->qp_state, ahead + bytes, bytes, at, &s->rng) ||
            q->qp->on_dequeue(q->qp_state, ahead, bytes, at, &s->rng))
            port_mark(s, q, k);
    }
    fifo_send(s, q, bytes, at);
    ep_deliver(s, i, q->busy_until_ps + q->prop_ps);
}

/* Data packet i started on through channel p and ends its transmission at
 * end: no arrival event at the far end. */
void direct_through(tl_pktsim *s, port *p, uint32_t i, int64_t end)
{
    pkt *k = P(s, i);
    s->st.n_link_hops++;
    if (s->node_sw[p->to] == NONE) {
        ep_deliver(s, i, end + p->prop_ps);
    } else {
        k->hop++;
        k->in_chan = (uint32_t)(p - s->ports);
        direct_cross(s, &s->ports[pkt_chan(s, k, k->hop)], i, end + p->prop_ps);
    }
}

/* Control packet i reaches its sender without queueing: the reverse path's
 * serialization and propagation, the same for every control packet of the
 * subflow on one path, so worked out once per path (at Parsimon's residual
 * link rates it is a division per hop: 6% of a link simulation). */
void direct_send_ctrl(tl_pktsim *s, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    tl_subflow *sf = &s->sub[(size_t)k->flow * s->tp->n_subflows + k->sub];
    if (sf->ctrl_path_off != k->path_off + 1 || sf->ctrl_bytes != k->wire_bytes) {
        int64_t d = 0;
        for (unsigned h = 0; h < k->hops; h++) {
            const port *q = &s->ports[pkt_chan(s, k, h)];
            d += tx_time(q, k->wire_bytes) + q->prop_ps;
        }
        sf->ctrl_delay_ps = d;
        sf->ctrl_path_off = k->path_off + 1;
        sf->ctrl_bytes = k->wire_bytes;
    }
    k->hop = (uint8_t)(k->hops - 1);
    push(s, now + sf->ctrl_delay_ps, i, EV_DELIVER, 0);
}

void tl_pktsim_set_direct_acks(tl_pktsim *s, int is_on) { s->is_direct_ctrl = is_on != 0; }

/* The summed rates of the distinct channels by which flows reach channel
 * chan. */
static double in_rate_bps(const tl_pktsim *s, uint32_t chan)
{
    double sum = 0;
    uint8_t *seen = calloc(s->n_ports, 1);
    if (!seen)
        return INFINITY; /* refuse rather than guess */
    const uint32_t n_sub = s->tp->n_subflows;
    for (size_t i = 0; i < s->flows->n * n_sub; i++) {
        const tl_subflow *f = &s->sub[i];
        for (unsigned h = 1; h < f->hops; h++) {
            uint32_t in = s->path[f->path_off + h - 1];
            if (s->path[f->path_off + h] == chan && !seen[in]) {
                seen[in] = 1;
                sum += (double)s->ports[in].rate_bps;
            }
        }
    }
    free(seen);
    return sum;
}

/* What every direct port needs: a switch-to-host channel, and no INT
 * record wanted of it under PFC (a direct port records none). */
static int direct_port_kind(const tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (chan >= s->n_ports || s->node_sw[s->ports[chan].from] == NONE ||
        s->node_sw[s->ports[chan].to] != NONE)
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u is not a switch-to-host link",
                          chan);
    if (s->is_pfc && (s->services & TL_SVC_INT))
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u: not with PFC and INT (a "
                          "direct port records no INT)", chan);
    return 0;
}

int tl_pktsim_can_direct_port(const tl_pktsim *s, uint32_t chan, tl_err *err)
{
    int rc = direct_port_kind(s, chan, err);
    if (rc)
        return rc;
    /* With PFC a direct port is exact only where it could never pause its
     * upstream: the channels its flows come in by are together no faster
     * than it (so it holds about a packet, far below any PFC threshold, and
     * marks nothing). */
    if (s->is_pfc && in_rate_bps(s, chan) > (double)s->ports[chan].rate_bps)
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u: not with PFC where its "
                          "flows come in faster than it sends (it could queue, and a direct "
                          "port cannot pause its upstream)", chan);
    return 0;
}

int tl_pktsim_set_direct_port(tl_pktsim *s, uint32_t chan, tl_err *err)
{
    int rc = tl_pktsim_can_direct_port(s, chan, err);
    if (!rc)
        s->ports[chan].impl = PORT_DIRECT;
    return rc;
}

int tl_pktsim_set_direct_port_watched(tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (!s->is_pfc)
        return tl_pktsim_set_direct_port(s, chan, err);
    int rc = direct_port_kind(s, chan, err);
    if (rc)
        return rc;
    if (!s->sw_watch && !(s->sw_watch = calloc(tl_topo_n_nodes(s->topo), sizeof *s->sw_watch)))
        return tl_err_nomem(err);
    port *q = &s->ports[chan];
    if (!q->fifo && !(q->fifo = calloc(1, sizeof *q->fifo)))
        return tl_err_nomem(err);
    q->impl = PORT_DIRECT;
    return 0;
}

int tl_pktsim_set_direct_through(tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (chan >= s->n_ports)
        return tl_err_set(err, TL_EINVAL, "direct through: no channel %u", chan);
    uint32_t v = s->ports[chan].to;
    const uint32_t n_sub = s->tp->n_subflows;
    for (size_t i = 0; i < s->flows->n * n_sub; i++) {
        const tl_subflow *f = &s->sub[i];
        for (unsigned h = 0; h < f->hops; h++) {
            uint32_t c = s->path[f->path_off + h];
            if (s->ports[c].to == v && c != chan)
                return tl_err_set(err, TL_EINVAL, "direct through: flow %zu reaches node %u over "
                                  "channel %u, not only over channel %u", i / n_sub, v, c, chan);
            if (c == chan && h + 1 < f->hops &&
                s->ports[s->path[f->path_off + h + 1]].impl != PORT_DIRECT)
                return tl_err_set(err, TL_EINVAL, "direct through: flow %zu leaves node %u over "
                                  "channel %u, which is not a direct port", i / n_sub, v,
                                  s->path[f->path_off + h + 1]);
        }
    }
    s->ports[chan].is_through = 1;
    return 0;
}
