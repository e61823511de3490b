/* Parsimon's shortcuts for its link-level simulations (docs/parsimon.md):
 * control packets as timed deliveries (tl_pktsim_set_direct_acks), and
 * direct ports, whose data is timed as a FIFO would send it instead of
 * queued (tl_pktsim_set_direct_port, _through). A direct port is a port
 * implementation (port.impl) chosen before the run; the core loop only
 * sees the EV_DELIVER events they schedule. */
#include <math.h>
#include <stdlib.h>

#include "pktsim_int.h"

/* Data packet i reaches, at time at, the switch whose direct port q leads
 * to its destination: q's FIFO, computed at once, times its delivery there.
 * Only the packet's own flow sees that (future) time, and packets come to q
 * in the order of their times. The FIFO's backlog is known too, so q marks
 * as its queue policy would: the bytes still ahead of the packet stand for
 * the queue it would leave behind (dequeue marking; later packets are not
 * known yet), with the packet itself for the queue it joins (enqueue
 * marking). */
void direct_cross(tl_pktsim *s, port *q, uint32_t i, int64_t at)
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
    int64_t start = at > q->busy_until_ps ? at : q->busy_until_ps;
    q->busy_until_ps = start + port_tx_time_memo(q, bytes);
    q->bytes_tx += bytes;
    q->pkts_tx++;
    s->st.n_link_hops++;
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

int tl_pktsim_can_direct_port(const tl_pktsim *s, uint32_t chan, tl_err *err)
{
    if (chan >= s->n_ports || s->node_sw[s->ports[chan].from] == NONE ||
        s->node_sw[s->ports[chan].to] != NONE)
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u is not a switch-to-host link",
                          chan);
    /* With PFC a direct port is exact only where it could never pause its
     * upstream: the channels its flows come in by are together no faster
     * than it (so it holds about a packet, far below any PFC threshold, and
     * marks nothing), and no INT record is wanted of it. */
    if (s->is_pfc && (s->services & TL_SVC_INT))
        return tl_err_set(err, TL_EINVAL, "direct port: channel %u: not with PFC and INT (a "
                          "direct port records no INT)", chan);
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
