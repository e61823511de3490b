/* Endpoints (docs/pktsim.md): the services the engine offers a transport
 * (transport.h) — packets, control packets back along a path, the
 * congestion control and load balancer of each subflow, the NIC's ring,
 * timers, completion — and the dispatch of packets that reach a host. */
#include <string.h>

#include "pktsim_int.h"

void ep_free_pkt(tl_pktsim *s, uint32_t i)
{
    uint32_t b = P(s, i)->int_idx;
    if (b != NONE)
        tl_pool_put(&s->ints, b);
    tl_pool_put(&s->pkts, i);
}

void ep_lose_pkt(tl_pktsim *s, uint32_t i)
{
    if (P(s, i)->kind == PK_DATA)
        s->st.bytes_lost += P(s, i)->payload_bytes;
    ep_free_pkt(s, i);
}

/* A packet at the host where its path ends. */
void ep_deliver(tl_pktsim *s, uint32_t i, int64_t now)
{
    if (P(s, i)->kind == PK_DATA) {
        s->st.bytes_arrived += P(s, i)->payload_bytes;
        s->tp->on_data(s, i, now);
    }
    else
        s->tp->on_ctrl(s, i, now);
}

/* ---- services ---- */

void *tp_state(tl_pktsim *s, uint32_t c) { return s->tp_state + (size_t)c * s->tp->state_bytes; }
tl_subflow *tp_sub(tl_pktsim *s, uint32_t c, uint32_t j) { return &s->sub[(size_t)c * s->tp->n_subflows + j]; }
const tl_flow *tp_flow(const tl_pktsim *s, uint32_t c) { return &s->flows->v[c]; }
pkt *tp_pkt(const tl_pktsim *s, uint32_t i) { return P(s, i); }
uint32_t tp_mss(const tl_pktsim *s) { return s->mtu_bytes; }
const tl_params *tp_params(const tl_pktsim *s) { return &s->params; }
tl_pktsim_stats *tp_stats(tl_pktsim *s) { return &s->st; }
int64_t tp_rto_ps(const tl_pktsim *s) { return s->rto_ps; }
int64_t tp_wan_rto_extra_ps(const tl_pktsim *s) { return s->wan_rto_extra_ps; }
int tp_crosses_dcs(const tl_pktsim *s, uint32_t c)
{
    const tl_flow *f = tp_flow(s, c);
    return tl_topo_node(s->topo, f->src)->dc != tl_topo_node(s->topo, f->dst)->dc;
}
uint32_t tp_ack_every(const tl_pktsim *s) { return s->ack_every_pkts; }
int64_t tp_cnp_interval_ps(const tl_pktsim *s) { return s->cnp_interval_ps; }
int tp_has_service(const tl_pktsim *s, unsigned svc) { return (s->services & svc) != 0; }
void tp_fail_nomem(tl_pktsim *s) { pktsim_fail_nomem(s); }
void tp_free(tl_pktsim *s, uint32_t i) { ep_free_pkt(s, i); }
void tp_free_int(tl_pktsim *s, uint32_t b) { tl_pool_put(&s->ints, b); }

void tp_int_records(const tl_pktsim *s, const pkt *k, tl_ack_info *a)
{
    if (k->int_idx == NONE)
        return;
    const int_block *b = tl_pool_at(&s->ints, k->int_idx);
    a->hops = b->hop;
    a->n_hops = (int)b->n;
}

static inline uint32_t sub_index(const tl_pktsim *s, uint32_t c, uint32_t j)
{
    return c * s->tp->n_subflows + j;
}

static inline void *cc_st(tl_pktsim *s, uint32_t g)
{
    return s->cc_state + (size_t)g * s->cc->state_bytes;
}

/* After any CC callback: if the CC armed its timer earlier than the event
 * already in the heap, push one (a later or cleared time is handled lazily
 * when the pending event fires). */
static void cc_sync_timer(tl_pktsim *s, uint32_t g, int64_t now)
{
    tl_subflow *sf = &s->sub[g];
    int64_t at = sf->io.timer_at_ps;
    if (at <= 0)
        return;
    if (at < now)
        at = now;
    if (sf->cc_timer_pending_ps == 0 || at < sf->cc_timer_pending_ps) {
        sf->cc_timer_pending_ps = at;
        push(s, at, g, EV_CC_TIMER, 0);
    }
}

uint32_t tp_new_data(tl_pktsim *s, uint32_t c, uint32_t j, uint64_t seq, uint32_t payload,
                     int64_t now)
{
    uint32_t g = sub_index(s, c, j);
    tl_subflow *sf = &s->sub[g];
    uint8_t tag = 0;
    uint64_t e = s->lb->entropy(s->lb_state + (size_t)g * s->lb->state_bytes, seq, now, &s->rng,
                                &tag);
    if (e != sf->entropy) {
        uint32_t off;
        int h = route_path(s, c, e, &off, &s->sticky);
        if (h < 0)
            return NONE;
        sf->path_off = off;
        sf->hops = (uint8_t)h;
        sf->entropy = e;
    }
    uint32_t i = tl_pool_get(&s->pkts);
    if (i == TL_POOL_NONE) {
        pktsim_fail_nomem(s);
        return NONE;
    }
    pkt *k = P(s, i);
    k->payload_bytes = payload;
    k->wire_bytes = payload + s->header_bytes;
    k->seq = seq;
    k->sent_ps = now;
    k->entropy = e;
    k->flow = c;
    k->path_off = sf->path_off;
    k->hops = sf->hops;
    k->kind = PK_DATA;
    k->int_idx = NONE;
    k->block = 0;
    k->sub = (uint8_t)j;
    k->flags = 0;
    k->lb_tag = tag;
    if (s->services & TL_SVC_INT) {
        uint32_t b = tl_pool_get(&s->ints);
        if (b == TL_POOL_NONE) {
            tl_pool_put(&s->pkts, i);
            pktsim_fail_nomem(s);
            return NONE;
        }
        ((int_block *)tl_pool_at(&s->ints, b))->n = 0;
        P(s, i)->int_idx = b; /* tl_pool_get on ints did not move pkts */
    }
    k->hop = 0;
    k->is_ce = k->is_ece = 0;
    k->next = NONE;
    s->st.n_data_pkts++;
    return i;
}

void tp_send_ctrl(tl_pktsim *s, uint32_t c, const pkt *data, int kind, uint64_t seq, int is_ece,
                  uint32_t int_idx, int64_t now)
{
    /* values, not the data packet: tl_pool_get may move the pool */
    int64_t echo_ps = data->sent_ps;
    uint64_t e = data->entropy;
    uint32_t path_off = data->path_off, block = data->block;
    uint8_t hops = data->hops, sub = data->sub, tag = data->lb_tag;
    uint32_t i = tl_pool_get(&s->pkts);
    if (i == TL_POOL_NONE) {
        pktsim_fail_nomem(s);
        return;
    }
    pkt *k = P(s, i);
    k->seq = seq;
    k->sent_ps = echo_ps;
    k->entropy = e;
    k->flow = c;
    k->kind = (uint8_t)kind;
    k->hop = 0;
    k->is_ce = 0;
    k->is_ece = (uint8_t)is_ece;
    k->wire_bytes = s->ack_bytes;
    k->payload_bytes = 0;
    k->path_off = path_off;
    k->hops = hops;
    k->int_idx = int_idx;
    k->block = block;
    k->sub = sub;
    k->flags = 0;
    k->lb_tag = tag;
    s->st.n_ack_pkts++;
    if (s->is_direct_ctrl) {
        direct_send_ctrl(s, i, now);
        return;
    }
    port_enqueue(s, &s->ports[pkt_chan(s, k, 0)], i, now);
}

void tp_cc_ack(tl_pktsim *s, uint32_t c, uint32_t j, const tl_ack_info *a, int64_t now)
{
    uint32_t g = sub_index(s, c, j);
    tl_subflow *sf = &s->sub[g];
    sf->io.now_ps = now;
    s->st.n_rtt_samples++;
    s->st.rtt_sum_ps += (double)a->rtt_ps;
    if ((double)a->rtt_ps > s->st.rtt_max_ps)
        s->st.rtt_max_ps = (double)a->rtt_ps;
    if (s->rtt_obs)
        s->rtt_obs(s->rtt_obs_ctx, c, a->rtt_ps, now);
    s->cc->on_ack(cc_st(s, g), &sf->io, a);
    cc_sync_timer(s, g, now);
}

void tp_lb_ack(tl_pktsim *s, uint32_t c, const pkt *ctrl, int64_t now)
{
    if (!s->lb->on_ack)
        return;
    uint32_t g = sub_index(s, c, ctrl->sub);
    s->lb->on_ack(s->lb_state + (size_t)g * s->lb->state_bytes, ctrl->entropy, ctrl->lb_tag,
                  ctrl->is_ece, ctrl->kind == PK_NACK, now - ctrl->sent_ps, now);
}

void tp_lb_loss(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now)
{
    if (!s->lb->on_loss)
        return;
    uint32_t g = sub_index(s, c, j);
    s->lb->on_loss(s->lb_state + (size_t)g * s->lb->state_bytes, now, s->sub[g].io.rto_ps, &s->rng);
}

void tp_cc_loss(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now)
{
    uint32_t g = sub_index(s, c, j);
    tl_subflow *sf = &s->sub[g];
    sf->io.now_ps = now;
    if (s->cc->on_loss) {
        s->cc->on_loss(cc_st(s, g), &sf->io);
        cc_sync_timer(s, g, now);
    }
}

void tp_cc_cnp(tl_pktsim *s, uint32_t c, uint32_t j, int64_t now)
{
    if (!s->cc->on_cnp)
        return;
    uint32_t g = sub_index(s, c, j);
    tl_subflow *sf = &s->sub[g];
    sf->io.now_ps = now;
    s->cc->on_cnp(cc_st(s, g), &sf->io);
    cc_sync_timer(s, g, now);
}

void tp_rx_done(tl_pktsim *s, uint32_t c, int64_t now)
{
    conn *cn = &s->cn[c];
    if (cn->is_rx_done)
        return;
    cn->is_rx_done = 1;
    s->st.n_flows_active--;
    s->res[c].fct_ps = now - s->flows->v[c].start_ps;
    s->st.n_flows_done++;
}

void tp_tx_done(tl_pktsim *s, uint32_t c)
{
    conn *cn = &s->cn[c];
    if (cn->is_tx_done)
        return;
    cn->is_tx_done = 1;
    nic_remove(s, &s->ports[cn->nic_port], c);
    /* off the running list */
    if (cn->run_prev != NONE)
        s->cn[cn->run_prev].run_next = cn->run_next;
    else
        s->run_head = cn->run_next;
    if (cn->run_next != NONE)
        s->cn[cn->run_next].run_prev = cn->run_prev;
    else
        s->run_tail = cn->run_prev;
}

void tp_ready(tl_pktsim *s, uint32_t c) { nic_add(s, &s->ports[s->cn[c].nic_port], c); }

void tp_kick(tl_pktsim *s, uint32_t c, int64_t now) { nic_kick(s, &s->ports[s->cn[c].nic_port], now); }

void tp_timer(tl_pktsim *s, uint32_t c, int64_t at) { push(s, at, c, EV_TP_TIMER, 0); }

int tp_is_tx_done(const tl_pktsim *s, uint32_t c) { return s->cn[c].is_tx_done; }

/* ---- events ---- */

void ep_on_cc_timer(tl_pktsim *s, uint32_t g, int64_t now)
{
    tl_subflow *sf = &s->sub[g];
    uint32_t c = g / s->tp->n_subflows;
    if (sf->cc_timer_pending_ps != now)
        return; /* superseded by an earlier event that already ran */
    sf->cc_timer_pending_ps = 0;
    if (s->cn[c].is_tx_done || s->cn[c].is_unreachable)
        return;
    if (sf->io.timer_at_ps > 0 && sf->io.timer_at_ps <= now) {
        sf->io.timer_at_ps = 0;
        sf->io.now_ps = now;
        s->cc->on_timer(cc_st(s, g), &sf->io);
        s->tp->on_cc_change(s, c, now);
    }
    cc_sync_timer(s, g, now);
}

/* Starts the flows whose time has come: their subflows' load balancers and
 * CCs, then the transport. */
int ep_start_flows(tl_pktsim *s, int64_t now)
{
    const tl_flows *fs = s->flows;
    const uint32_t n_sub = s->tp->n_subflows;
    while (s->next_start < fs->n && fs->v[s->next_start].start_ps <= now) {
        uint32_t c = (uint32_t)s->next_start++;
        conn *cn = &s->cn[c];
        if (cn->is_unreachable)
            continue;
        cn->is_started = 1;
        cn->run_next = NONE;
        cn->run_prev = s->run_tail;
        if (s->run_tail != NONE)
            s->cn[s->run_tail].run_next = c;
        else
            s->run_head = c;
        s->run_tail = c;
        s->st.n_flows_active++;
        for (uint32_t j = 0; j < n_sub; j++) {
            uint32_t g = c * n_sub + j;
            tl_subflow *sf = &s->sub[g];
            sf->io.now_ps = now;
            if (s->lb->init)
                s->lb->init(s->lb_state + (size_t)g * s->lb->state_bytes, j, &s->params,
                            sf->io.base_rtt_ps, now, &s->rng);
            int rc = s->cc->init(cc_st(s, g), &sf->io, &s->params, &s->sticky);
            if (rc)
                return rc;
            cc_sync_timer(s, g, now);
        }
        int rc = s->tp->open(s, c, now, &s->sticky);
        if (rc)
            return rc;
    }
    if (s->next_start < fs->n)
        push(s, fs->v[s->next_start].start_ps, 0, EV_FLOW_START, 0);
    return 0;
}

/* A knob changed: the CC of every running subflow re-reads its knobs, if
 * the CC reads that knob. Walks the running connections only, in index
 * order (so timers pushed here keep their order). */
void ep_reconfigure(tl_pktsim *s, const char *knob)
{
    if (!s->cc->reconfigure || !tl_cc_reads_group(s->cc->desc, knob))
        return;
    const uint32_t n_sub = s->tp->n_subflows;
    for (uint32_t c = s->run_head; c != NONE; c = s->cn[c].run_next)
        for (uint32_t j = 0; j < n_sub; j++) {
            uint32_t g = c * n_sub + j;
            s->cc->reconfigure(cc_st(s, g), &s->sub[g].io, &s->params);
            cc_sync_timer(s, g, s->st.now_ps);
        }
}
