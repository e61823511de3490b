/* A port: the egress queue pair of a directed channel and the link itself
 * (docs/pktsim.md). Per packet and hop the port normally schedules one
 * event: the packet's arrival at the far end of the link (a link keeps its
 * in-flight packets in a ring and only the head is in the heap, as htsim's
 * pipes do). A port schedules a transmit-done event only while packets wait
 * behind the one on the wire, so an uncongested hop costs one event. */
#include <stdlib.h>

#include "pktsim_int.h"
#include "tailor/time.h"

/* Doubles port p's ring (rare: only while its in-flight count rises). */
static int ring_grow(tl_pktsim *s, port *p)
{
    uint32_t ncap = p->ring_cap * 2;
    uint32_t *rp = malloc(ncap * sizeof *rp);
    int64_t *ra = malloc(ncap * sizeof *ra);
    if (!rp || !ra) {
        free(rp);
        free(ra);
        return pktsim_fail_nomem(s);
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
    return 0;
}

/* Puts packet i on the wire of port p at now (the port is idle). */
void port_start_tx(tl_pktsim *s, port *p, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    int64_t end = now + port_tx_time_memo(p, k->wire_bytes);
    p->busy_until_ps = end;
    p->bytes_tx += k->wire_bytes;
    p->pkts_tx++;
    if (__builtin_expect(s->waits != NULL, 0) && k->kind == PK_DATA && !p->is_host)
        waits_started(s, k, i, now);
    if (k->int_idx != NONE && p->sw != NONE && k->kind == PK_DATA) { /* the INT service */
        int_block *b = tl_pool_at(&s->ints, k->int_idx);
        if (b->n < TL_MAX_INT_HOPS)
            b->hop[b->n++] = (tl_int_hop){.qlen_bytes = p->q_bytes,
                                          .tx_bytes = p->bytes_tx,
                                          .ts_ps = now,
                                          .rate_bps = p->rate_bps};
    }
    if (p->is_through && k->kind == PK_DATA && s->is_direct_ctrl) {
        direct_through(s, p, i, end);
        return;
    }
    if (p->ring_n == p->ring_cap && ring_grow(s, p))
        return;
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
        port_arm_txdone(s, p, end);
        return;
    }
    push(s, end + p->prop_ps, (uint32_t)(p - s->ports), EV_ARRIVE, 0);
}

uint32_t port_dequeue(tl_pktsim *s, port *p, int64_t now)
{
    for (int c = 0; c < 2; c++) {
        uint32_t i = p->q_head[c];
        if (i == NONE || (c == 1 && p->is_paused))
            continue;
        pkt *k = P(s, i);
        p->q_head[c] = k->next;
        if (p->q_head[c] == NONE)
            p->q_tail[c] = NONE;
        port_q_account(p, now);
        p->q_bytes -= k->wire_bytes;
        swmem_release(s, p, k, now);
        if (k->kind == PK_DATA && p->qp->on_dequeue(p->qp_state, p->q_bytes, k->wire_bytes, now, &s->rng))
            port_mark(s, p, k);
        return i;
    }
    return NONE;
}

/* Queues packet i at port p (admission by the switch memory; hosts never
 * drop), then sends it at once if the port is idle. */
void port_enqueue(tl_pktsim *s, port *p, uint32_t i, int64_t now)
{
    pkt *k = P(s, i);
    if (p->is_failed) {
        p->drops++;
        s->st.n_fail_drops++;
        ep_lose_pkt(s, i);
        return;
    }
    if (__builtin_expect(p->loss != NULL, 0) && loss_drops(s, p, k)) {
        p->drops++;
        s->st.n_loss_drops++;
        ep_lose_pkt(s, i);
        return;
    }
    if (p->sw != NONE && !swmem_take(s, p, k, now)) {
        p->drops++;
        s->st.n_drops++;
        ep_lose_pkt(s, i);
        return;
    }
    if (__builtin_expect(p->tap != NULL, 0))
        tap_packet(s, p, k, now);
    if (__builtin_expect(s->waits != NULL, 0) && k->kind == PK_DATA)
        waits_enqueued(s, p, k, i, now);
    if (k->kind == PK_DATA &&
        p->qp->on_enqueue(p->qp_state, p->q_bytes + k->wire_bytes, k->wire_bytes, now, &s->rng))
        port_mark(s, p, k);
    int c = k->kind == PK_DATA ? 1 : 0;
    k->next = NONE;
    if (p->q_tail[c] == NONE)
        p->q_head[c] = i;
    else
        P(s, p->q_tail[c])->next = i;
    p->q_tail[c] = i;
    port_q_account(p, now);
    p->q_bytes += k->wire_bytes;
    if (p->q_bytes > p->max_q_bytes)
        p->max_q_bytes = p->q_bytes;
    if (p->busy_until_ps > now) {
        port_arm_txdone(s, p, p->busy_until_ps);
    } else if (p->is_host) {
        nic_kick(s, p, now);
    } else {
        uint32_t j = port_dequeue(s, p, now);
        if (j == NONE) /* only paused data is waiting */
            return;
        port_start_tx(s, p, j, now);
        if (p->q_head[0] != NONE || p->q_head[1] != NONE)
            port_arm_txdone(s, p, p->busy_until_ps);
    }
}

/* The head of port p's ring reaches the far end: a switch forwards it, a
 * host takes it. */
void port_on_arrive(tl_pktsim *s, port *p, int64_t now)
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
        if (next->impl == PORT_DIRECT && k->kind == PK_DATA && s->is_direct_ctrl) {
            direct_cross(s, next, i, now);
            return;
        }
        port_enqueue(s, next, i, now);
    } else {
        ep_deliver(s, i, now);
    }
}

void port_on_txdone(tl_pktsim *s, port *p, int64_t now)
{
    p->is_txdone_armed = 0;
    if (p->is_host) {
        if (p->ring_n && p->prop_ps == 0 && p->ring_arr_ps[p->ring_head] <= now)
            port_on_arrive(s, p, now);
        nic_kick(s, p, now);
        return;
    }
    if (p->busy_until_ps > now) {
        port_arm_txdone(s, p, p->busy_until_ps);
        return;
    }
    uint32_t i = port_dequeue(s, p, now);
    if (i == NONE)
        return;
    port_start_tx(s, p, i, now);
    if (p->q_head[0] != NONE || p->q_head[1] != NONE)
        port_arm_txdone(s, p, p->busy_until_ps);
}

/* Drops every packet queued at or travelling on port p and marks it down. */
void port_kill(tl_pktsim *s, port *p, int64_t now)
{
    p->is_failed = 1;
    uint32_t i;
    while ((i = port_dequeue(s, p, now)) != NONE) {
        p->drops++;
        s->st.n_fail_drops++;
        ep_lose_pkt(s, i);
    }
    for (int c = 0; c < 2; c++) /* paused data that dequeue left */
        while ((i = p->q_head[c]) != NONE) {
            p->q_head[c] = P(s, i)->next;
            p->q_bytes -= P(s, i)->wire_bytes;
            swmem_release(s, p, P(s, i), now);
            s->st.n_fail_drops++;
            ep_lose_pkt(s, i);
        }
    p->q_tail[0] = p->q_tail[1] = NONE;
    for (; p->ring_n; p->ring_n--, p->ring_head = (p->ring_head + 1) & (p->ring_cap - 1)) {
        s->st.n_fail_drops++;
        ep_lose_pkt(s, p->ring_pkt[p->ring_head]);
    }
}

/* The class of channel c: a host's NIC, a link between data centers, or a
 * switch port inside one. */
static uint8_t port_class(const tl_topo *t, uint32_t from, uint32_t to)
{
    const tl_node *a = tl_topo_node(t, from), *b = tl_topo_node(t, to);
    if (a->kind != TL_NODE_SWITCH)
        return TL_PORT_HOST;
    return a->dc != b->dc ? TL_PORT_WAN : TL_PORT_DC;
}

int ports_build(tl_pktsim *s, tl_err *err)
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
    if (!s->sw_used || !s->ports)
        return tl_err_nomem(err);
    size_t qp_bytes = 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *p = &s->ports[c];
        p->from = tl_topo_chan_from(t, c);
        p->to = tl_topo_chan_to(t, c);
        p->pclass = port_class(t, p->from, p->to);
        p->qp = s->qp_class[p->pclass];
        qp_bytes += (p->qp->state_bytes + 15) & ~(size_t)15;
    }
    s->qp_states = calloc(qp_bytes ? qp_bytes : 1, 1);
    if (!s->qp_states)
        return tl_err_nomem(err);
    qp_bytes = 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        port *p = &s->ports[c];
        const tl_link *l = tl_topo_link(t, tl_chan_link(c));
        p->sw = s->node_sw[p->from];
        p->is_host = p->sw == NONE;
        p->rate_bps = l->rate_bps;
        p->ps_per_byte = 8000000000000ull % l->rate_bps == 0 ? 8000000000000ull / l->rate_bps : 0;
        p->prop_ps = l->delay_ps;
        p->qp_state = s->qp_states + qp_bytes;
        qp_bytes += (p->qp->state_bytes + 15) & ~(size_t)15;
        p->q_head[0] = p->q_head[1] = p->q_tail[0] = p->q_tail[1] = NONE;
        p->rr_head = NONE;
        p->pfc_as = c;
        p->pfc_next = NONE;
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

void ports_free(tl_pktsim *s)
{
    if (s->ports)
        for (uint32_t c = 0; c < s->n_ports; c++) {
            free(s->ports[c].ring_pkt);
            free(s->ports[c].ring_arr_ps);
            if (s->ports[c].fifo)
                free(s->ports[c].fifo->e);
            free(s->ports[c].fifo);
            tl_tap_link *l = s->ports[c].tap;
            while (l) {
                tl_tap_link *nx = l->next;
                free(l);
                l = nx;
            }
        }
    free(s->ports);
    free(s->sw_used);
    free(s->sw_watch);
    free(s->node_sw);
    free(s->qp_states);
}
