/* The simulation: create and destroy, the event loop, run-time control,
 * knob changes, link failures, monitors and statistics (docs/pktsim.md).
 * The loop only dispatches: ports (port.c), the switch memory (swmem.c),
 * endpoints and their transports (endpoint.c, transport/) do the work. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim_int.h"

int pktsim_fail_nomem(tl_pktsim *s) { return tl_err_nomem(&s->sticky); }

/* The simulation's error, copied into err; returns its code. */
int sticky_err(const tl_pktsim *s, tl_err *err)
{
    if (err)
        *err = s->sticky;
    return s->sticky.code;
}

/* A link goes down: both directions lose their packets, and every
 * unfinished connection moves to paths that avoid all links failed so far. */
static int on_link_fail(tl_pktsim *s, uint32_t link, int64_t now)
{
    if (s->link_down[link])
        return 0;
    s->link_down[link] = 1;
    port_kill(s, &s->ports[2 * link], now);
    port_kill(s, &s->ports[2 * link + 1], now);
    return route_on_link_fail(s, link, now);
}

static void on_control(tl_pktsim *s, uint32_t id, int64_t now)
{
    int rc = s->control[id].fn(s->control[id].ctx, s, now);
    if (rc) {
        tl_err_set(&s->sticky, rc < 0 ? rc : TL_EINVAL,
                   "the run-time control stopped the run (code %d)", rc);
        return;
    }
    if (s->st.n_flows_done + s->n_unreachable < s->flows->n)
        push(s, now + s->control[id].interval_ps, id, EV_CONTROL, 0);
}

int tl_pktsim_run(tl_pktsim *s, int64_t until_ps, tl_progress *prog, tl_err *err)
{
    if (s->sticky.code)
        return sticky_err(s, err);
    const size_t n = s->flows->n;
    tl_event e;
    uint64_t next_report = 1u << 20;
    while (s->st.n_flows_done + s->n_unreachable < n || until_ps < 0) {
        const tl_event *top = tl_heap_peek(&s->heap), *timer = tl_heap_peek(&s->timers);
        tl_heap *from = &s->heap;
        if (timer && (!top || tl_event_before(timer, top))) {
            top = timer;
            from = &s->timers;
        }
        if (!top || (until_ps > 0 && top->t_ps > until_ps))
            break;
        if (s->heap.n + s->timers.n > s->st.max_pending_events)
            s->st.max_pending_events = s->heap.n + s->timers.n;
        tl_heap_pop(from, &e);
        assert(e.t_ps >= s->st.now_ps);
        s->st.now_ps = e.t_ps;
        s->st.n_events++;
        switch (e.kind) {
        case EV_ARRIVE: port_on_arrive(s, &s->ports[e.target], e.t_ps); break;
        case EV_TX_DONE:
            if (e.seq == s->ports[e.target].txdone_seq) /* else superseded */
                port_on_txdone(s, &s->ports[e.target], e.t_ps);
            break;
        case EV_FLOW_START: ep_start_flows(s, e.t_ps); break;
        case EV_TP_TIMER:
            if (s->tp->on_timer)
                s->tp->on_timer(s, e.target, e.t_ps);
            break;
        case EV_PFC: swmem_on_pfc(s, &s->ports[e.target], e.aux, e.t_ps); break;
        case EV_LINK_FAIL: on_link_fail(s, e.target, e.t_ps); break;
        case EV_CC_TIMER: ep_on_cc_timer(s, e.target, e.t_ps); break;
        case EV_DELIVER: ep_deliver(s, e.target, e.t_ps); break;
        case EV_TAP: taps_on_interval(s, e.target, e.t_ps); break;
        case EV_BLACKHOLE: fault_on_blackhole(s, e.target, e.t_ps); break;
        case EV_CONTROL: on_control(s, e.target, e.t_ps); break;
        case EV_DIRECT_SETTLE: direct_on_settle(s, &s->ports[e.target], e.t_ps); break;
        }
        if (s->sticky.code)
            break;
        if (s->st.n_events >= next_report) {
            next_report += 1u << 20;
            tl_progress_report_sim(prog, "pktsim", (double)s->st.n_flows_done, (double)n, "flows",
                                   (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
        }
    }
    if (s->sticky.code)
        return sticky_err(s, err);
    for (uint32_t c = 0; c < s->n_ports; c++)
        port_q_account(&s->ports[c], s->st.now_ps);
    tl_progress_report_sim(prog, "pktsim", (double)s->st.n_flows_done, (double)n, "flows",
                           (double)s->st.now_ps * 1e-12, (double)s->st.n_events);
    return 0;
}

/* ---- configuration ---- */

int tl_pktsim_check_params(const tl_params *p, tl_err *err)
{
    double kmin = tl_knob(p, TL_K_SW_KMIN_BYTES_PER_GBPS);
    double kmax = tl_knob(p, TL_K_SW_KMAX_BYTES_PER_GBPS);
    uint64_t xoff = (uint64_t)tl_knob(p, TL_K_SW_PFC_XOFF_BYTES);
    uint64_t xon = (uint64_t)tl_knob(p, TL_K_SW_PFC_XON_BYTES);
    if (kmax < kmin)
        return tl_err_set(err, TL_ERANGE,
                          "switch.kmax_bytes_per_gbps (%g) must be >= switch.kmin_bytes_per_gbps "
                          "(%g)",
                          kmax, kmin);
    if (tl_knob(p, TL_K_SW_PFC) != 0 && xon >= xoff)
        return tl_err_set(err, TL_ERANGE,
                          "switch.pfc_xon_bytes (%llu) must be below switch.pfc_xoff_bytes (%llu)",
                          (unsigned long long)xon, (unsigned long long)xoff);
    return 0;
}

/* Reads every knob pktsim uses from s->params into the ports and the
 * simulation (at create, and after each run-time change). Validates the
 * combinations the registry's ranges cannot. */
static int apply_params(tl_pktsim *s, tl_err *err)
{
    const tl_params *p = &s->params;
    uint32_t mtu = (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES);
    uint32_t hdr = (uint32_t)tl_knob(p, TL_K_NIC_HEADER_BYTES);
    uint64_t buffer = tl_pktsim_buffer_bytes(p, s->fabric.nic_bps);
    int is_pfc = tl_knob(p, TL_K_SW_PFC) != 0;
    uint64_t xoff = (uint64_t)tl_knob(p, TL_K_SW_PFC_XOFF_BYTES);
    uint64_t xon = (uint64_t)tl_knob(p, TL_K_SW_PFC_XON_BYTES);
    if (buffer < mtu + hdr)
        return tl_err_set(err, TL_ERANGE,
                          "switch.buffer_bytes (%llu) is smaller than one packet (%u bytes)",
                          (unsigned long long)buffer, mtu + hdr);
    int rc = tl_pktsim_check_params(p, err);
    if (rc)
        return rc;
    s->mtu_bytes = mtu;
    s->header_bytes = hdr;
    s->ack_bytes = (uint32_t)tl_knob(p, TL_K_NIC_ACK_BYTES);
    s->ack_every_pkts = (uint32_t)tl_knob(p, TL_K_NIC_ACK_EVERY_PKTS);
    s->cnp_interval_ps = s->cc->cnp_interval_ps ? s->cc->cnp_interval_ps(p) : 0;
    s->buffer_bytes = buffer;
    s->dt_alpha = tl_knob(p, TL_K_SW_DT_ALPHA);
    s->rto_ps = (int64_t)tl_knob(p, is_pfc ? TL_K_NIC_RTO_LOSSLESS_PS : TL_K_NIC_RTO_PS);
    s->wan_rto_extra_ps = (int64_t)tl_knob(p, TL_K_NIC_WAN_RTO_EXTRA_PS);
    s->is_pfc = is_pfc;
    s->pfc_xoff_bytes = xoff;
    s->pfc_xon_bytes = xon;
    uint64_t port_cap = (uint64_t)tl_knob(p, TL_K_SW_PORT_BUFFER_BYTES);
    uint64_t wan_cap = (uint64_t)tl_knob(p, TL_K_SW_WAN_PORT_BUFFER_BYTES);
    if (port_cap && is_pfc)
        return tl_err_set(err, TL_EINVAL,
                          "switch.port_buffer_bytes (per-port buffers) cannot be combined with "
                          "switch.pfc (PFC accounts the shared buffer); set one of them to 0");
    if ((port_cap && port_cap < mtu + hdr) || (port_cap && wan_cap && wan_cap < mtu + hdr))
        return tl_err_set(err, TL_ERANGE,
                          "switch.port_buffer_bytes and switch.wan_port_buffer_bytes must hold "
                          "one packet (%u bytes)", mtu + hdr);
    swmem_configure(s, (int)tl_knob(p, TL_K_SW_PFC_SHIFT), port_cap, wan_cap);
    for (uint32_t c = 0; c < s->n_ports; c++)
        s->ports[c].qp->configure(s->ports[c].qp_state,
                                  &(tl_qpolicy_port){s->ports[c].rate_bps, &s->fabric}, p);
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
    ep_reconfigure(s, name);
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
    if (s->n_controls == TL_PKTSIM_MAX_CONTROLS)
        return tl_err_set(err, TL_ERANGE, "at most %d run-time controls per simulation",
                          TL_PKTSIM_MAX_CONTROLS);
    int id = s->n_controls++;
    s->control[id].fn = fn;
    s->control[id].ctx = ctx;
    s->control[id].interval_ps = interval_ps;
    if (!push(s, s->st.now_ps + interval_ps, (uint32_t)id, EV_CONTROL, 0))
        return sticky_err(s, err);
    return 0;
}

void tl_pktsim_set_rtt_observer(tl_pktsim *s, tl_pktsim_rtt_fn fn, void *ctx)
{
    s->rtt_obs = fn;
    s->rtt_obs_ctx = ctx;
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
    const tl_subflow *sf = &s->sub[i * s->tp->n_subflows];
    *hops = sf->hops;
    return s->path + sf->path_off;
}

void tl_pktsim_flow_cc(const tl_pktsim *s, size_t i, uint64_t *cwnd_bytes, uint64_t *rate_bps)
{
    const tl_subflow *sf = &s->sub[i * s->tp->n_subflows];
    *cwnd_bytes = sf->io.cwnd_bytes;
    *rate_bps = sf->io.rate_bps;
}

/* ---- monitors ---- */

int tl_pktsim_add_tap(tl_pktsim *s, const char *name, const uint32_t *chans, size_t n,
                      int64_t interval_ps, tl_err *err)
{
    const tl_tap_ops *ops = tl_tap_find(name);
    if (!ops)
    {
        char known[256];
        tl_tap_names(known, sizeof known);
        return tl_err_set(err, TL_EINVAL, "no monitor '%s' (available: %s)", name, known);
    }
    if (interval_ps < 0)
        return tl_err_set(err, TL_ERANGE, "monitor '%s': interval %lld ps is negative", name,
                          (long long)interval_ps);
    for (size_t i = 0; i < n; i++)
        if (chans[i] >= s->n_ports)
            return tl_err_set(err, TL_ERANGE, "monitor '%s': no channel %u (there are %u)", name,
                              chans[i], s->n_ports);
    int id = 0;
    tl_tap **end = &s->taps;
    for (; *end; end = &(*end)->next)
        id++;
    tl_tap *t = calloc(1, sizeof *t + (ops->state_bytes ? ops->state_bytes : 1));
    if (!t)
        return tl_err_nomem(err);
    t->ops = ops;
    t->state = t + 1;
    t->interval_ps = interval_ps;
    *end = t; /* owned by the list from here, whatever fails below */
    if (ops->init) {
        tl_tap_init in = {&s->params, s->flows->n, s->n_ports, s->seed, id};
        int rc = ops->init(t->state, &in, err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < n; i++) {
        tl_tap_link *l = malloc(sizeof *l);
        if (!l)
            return tl_err_nomem(err);
        l->tap = t;
        l->next = s->ports[chans[i]].tap;
        s->ports[chans[i]].tap = l;
    }
    if (interval_ps > 0 && !push(s, s->st.now_ps + interval_ps, (uint32_t)id, EV_TAP, 0))
        return sticky_err(s, err);
    return id;
}

void *tl_pktsim_tap_state(const tl_pktsim *s, int id)
{
    tl_tap *t = s->taps;
    for (; t && id > 0; id--)
        t = t->next;
    return t && id == 0 ? t->state : NULL;
}

void tap_packet(tl_pktsim *s, port *p, pkt *k, int64_t now)
{
    uint32_t chan = (uint32_t)(p - s->ports);
    int from_host = k->hop > 0 && s->node_sw[s->ports[k->in_chan].from] == NONE;
    tl_tap_pkt v = {.chan = chan,
                    .in_chan = k->hop > 0 ? k->in_chan : NONE,
                    .flow = k->flow,
                    .sub = k->sub,
                    .wire_bytes = k->wire_bytes,
                    .payload_bytes = k->payload_bytes,
                    .seq = k->seq,
                    .kind = k->kind,
                    .is_from_host = from_host,
                    .is_ce = k->is_ce,
                    .is_marked = (k->flags & PKF_TAP_MARK) != 0};
    int mark = 0;
    for (tl_tap_link *l = p->tap; l; l = l->next)
        mark |= l->tap->ops->on_packet(l->tap->state, &v, now);
    if (mark)
        k->flags |= PKF_TAP_MARK;
}

void taps_on_interval(tl_pktsim *s, uint32_t id, int64_t now)
{
    tl_tap *t = s->taps;
    for (uint32_t i = 0; t && i < id; i++)
        t = t->next;
    if (!t)
        return;
    if (t->ops->on_interval)
        t->ops->on_interval(t->state, now);
    if (s->st.n_flows_done + s->n_unreachable < s->flows->n)
        push(s, now + t->interval_ps, id, EV_TAP, 0);
}

void taps_free(tl_pktsim *s)
{
    while (s->taps) {
        tl_tap *nx = s->taps->next;
        if (s->taps->ops->fini)
            s->taps->ops->fini(s->taps->state);
        free(s->taps);
        s->taps = nx;
    }
}

/* ---- build ---- */

void tl_pktsim_destroy(tl_pktsim *s)
{
    if (!s)
        return;
    taps_free(s);
    waits_free(s);
    loss_free(s);
    ports_free(s);
    if (s->tp && s->tp->close && s->cn)
        for (size_t c = 0; c < s->flows->n; c++)
            if (s->cn[c].is_started)
                s->tp->close(s, (uint32_t)c);
    free(s->cn);
    free(s->sub);
    free(s->cc_state);
    free(s->lb_state);
    free(s->tp_state);
    free(s->res);
    free(s->link_down);
    route_free(s);
    tl_params_fini(&s->params);
    tl_heap_fini(&s->heap);
    tl_heap_fini(&s->timers);
    tl_pool_fini(&s->pkts);
    tl_pool_fini(&s->ints);
    free(s);
}

/* Unloaded round trip of a path: propagation both ways, a full data packet
 * and an ACK serialized at every hop. */
static int64_t base_rtt(const tl_pktsim *s, uint32_t off, int h)
{
    int64_t rtt = 0;
    for (int j = 0; j < h; j++) {
        uint32_t c = s->path[off + j];
        const port *p = &s->ports[c];
        /* the reverse channel's delay: the same but where a control delay
         * was set (tl_pktsim_set_ctrl_delays) */
        rtt += p->prop_ps + s->ports[c ^ 1u].prop_ps + tx_time(p, s->mtu_bytes + s->header_bytes) +
               tx_time(p, s->ack_bytes);
    }
    return rtt;
}

int tl_pktsim_set_ctrl_delays(tl_pktsim *s, const uint32_t *chan, const int64_t *delay_ps,
                              size_t n, tl_err *err)
{
    if (s->next_start > 0)
        return tl_err_set(err, TL_EINVAL, "control delays: the run has started");
    uint8_t *is_set = calloc(s->n_ports, 1);
    if (!is_set)
        return tl_err_nomem(err);
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        if (chan[k] >= s->n_ports || delay_ps[k] < 0)
            rc = tl_err_set(err, TL_EINVAL, "control delay: no channel %u, or a negative delay",
                            chan[k]);
        else
            is_set[chan[k]] = 1;
    }
    const uint32_t n_sub = s->tp->n_subflows;
    for (size_t i = 0; i < s->flows->n * n_sub && !rc; i++) {
        const tl_subflow *f = &s->sub[i];
        for (unsigned h = 0; h < f->hops && !rc; h++)
            if (is_set[s->path[f->path_off + h]])
                rc = tl_err_set(err, TL_EINVAL, "control delay: flow %zu sends its data over "
                                "channel %u", i / n_sub, s->path[f->path_off + h]);
    }
    free(is_set);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++)
        s->ports[chan[k]].prop_ps = delay_ps[k];
    for (size_t i = 0; i < s->flows->n * n_sub; i++) /* their reverse paths may cross them */
        s->sub[i].io.base_rtt_ps = base_rtt(s, s->sub[i].path_off, s->sub[i].hops);
    return 0;
}

static int build_flows(tl_pktsim *s, tl_err *err)
{
    const tl_flows *fs = s->flows;
    size_t n = fs->n, n1 = n ? n : 1;
    const uint32_t n_sub = s->tp->n_subflows;
    s->cn = calloc(n1, sizeof *s->cn);
    s->res = calloc(n1, sizeof *s->res);
    s->sub = calloc(n1 * n_sub, sizeof *s->sub);
    s->cc_state = calloc(n1 * n_sub, s->cc->state_bytes ? s->cc->state_bytes : 1);
    s->lb_state = calloc(n1 * n_sub, s->lb->state_bytes ? s->lb->state_bytes : 1);
    s->tp_state = calloc(n1, s->tp->state_bytes ? s->tp->state_bytes : 1);
    if (!s->cn || !s->res || !s->sub || !s->cc_state || !s->lb_state || !s->tp_state)
        return tl_err_nomem(err);
    if (route_init(s, n, err))
        return err->code;
    s->run_head = s->run_tail = NONE;
    for (size_t i = 0; i < n; i++) {
        const tl_flow *fw = &fs->v[i];
        if (i && fw->start_ps < fs->v[i - 1].start_ps)
            return tl_err_set(err, TL_EINVAL, "flows must be sorted by start time (flow %zu)", i);
        conn *c = &s->cn[i];
        c->rr_next = c->rr_prev = NONE;
        c->run_next = c->run_prev = NONE;
        for (uint32_t j = 0; j < n_sub; j++) {
            tl_subflow *sf = &s->sub[i * n_sub + j];
            uint32_t off;
            int h = route_path(s, (uint32_t)i, j, &off, err);
            if (h < 0)
                return h;
            sf->entropy = j;
            sf->path_off = off;
            sf->hops = (uint8_t)h;
            sf->io = (tl_cc_io){.cwnd_bytes = UINT64_MAX,
                                .line_bps = s->ports[s->path[off]].rate_bps,
                                .mss_bytes = s->mtu_bytes,
                                .base_rtt_ps = base_rtt(s, off, h),
                                .fabric_rtt_ps = s->fabric.rtt_ps,
                                .fabric_bdp_bytes = s->fabric.bdp_bytes,
                                .intra_rtt_ps = s->fabric.intra_rtt_ps,
                                .intra_bdp_bytes = s->fabric.intra_bdp_bytes,
                                .inflight_bytes = UINT64_MAX};
        }
        const tl_subflow *sf0 = &s->sub[i * n_sub];
        c->nic_port = s->path[sf0->path_off];
        s->res[i].fct_ps = -1;
        s->res[i].ideal_ps = tl_ideal_fct_ps(s->topo, s->path + sf0->path_off, sf0->hops,
                                             fw->size_bytes, s->mtu_bytes, s->header_bytes);
        if (s->res[i].ideal_ps > TL_START_MAX_PS) /* its run could not end in int64 ps */
            return tl_err_set(err, TL_ERANGE,
                              "flow %llu: %llu bytes take %.3g s alone on their path, past the "
                              "%.1f days tailor simulates (int64 picoseconds)",
                              (unsigned long long)fw->id, (unsigned long long)fw->size_bytes,
                              (double)s->res[i].ideal_ps * 1e-12,
                              (double)TL_START_MAX_PS * 1e-12 / 86400);
    }
    return 0;
}

int tl_pktsim_has_plugin(const char *kind, const char *name, char *known, size_t n)
{
    if (strcmp(kind, "lb") == 0) {
        if (tl_lb_find(name))
            return 1;
        tl_lb_names(known, n);
    } else if (strcmp(kind, "qpolicy") == 0) {
        if (tl_qpolicy_find(name))
            return 1;
        tl_qpolicy_names(known, n);
    } else {
        if (tl_transport_find(name))
            return 1;
        tl_transport_names(known, n);
    }
    return 0;
}

/* The plug-ins o names, or an error naming what is available. */
static int find_plugins(tl_pktsim *s, const tl_pktsim_opts *o, tl_err *err)
{
    const char *cc = o && o->cc ? o->cc : TL_CC_DEFAULT;
    const tl_cc_desc *ccd = tl_cc_lookup(cc);
    const char *tp = o && o->transport           ? o->transport
                     : ccd && ccd->transport ? ccd->transport
                                             : "gbn";
    const char *lb = o && o->lb ? o->lb : "ecmp";
    char known[256];
    if (!(s->cc = tl_cc_find(cc))) {
        tl_cc_names(known, sizeof known, ", ", ", ", 1);
        return tl_err_set(err, TL_EINVAL, "pktsim does not implement congestion control '%s' yet "
                          "(available: %s)", cc, known);
    }
    if (!(s->tp = tl_transport_find(tp))) {
        tl_transport_names(known, sizeof known);
        return tl_err_set(err, TL_EINVAL, "pktsim has no transport '%s' (available: %s)", tp,
                          known);
    }
    if (!(s->lb = tl_lb_find(lb))) {
        tl_lb_names(known, sizeof known);
        return tl_err_set(err, TL_EINVAL, "pktsim has no load balancer '%s' (available: %s)", lb,
                          known);
    }
    for (int c = 0; c < TL_PORT_N_CLASSES; c++) {
        const tl_cc_desc *d = s->cc->desc;
        const char *sw = c == TL_PORT_WAN && d->wan_qpolicy ? d->wan_qpolicy : d->switch_qpolicy;
        const char *q = o && o->qpolicy[c] ? o->qpolicy[c] : c != TL_PORT_HOST && sw ? sw : "red";
        if (!(s->qp_class[c] = tl_qpolicy_find(q))) {
            tl_qpolicy_names(known, sizeof known);
            return tl_err_set(err, TL_EINVAL, "pktsim has no queue policy '%s' (available: %s)",
                              q, known);
        }
    }
    s->services = s->tp->services | (s->cc->uses_cnp ? TL_SVC_CNP : 0) |
                  (s->cc->uses_int ? TL_SVC_INT : 0);
    return 0;
}

tl_pktsim *tl_pktsim_create_opts(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                                 const tl_params *p, const tl_pktsim_opts *o, uint64_t seed,
                                 tl_err *err)
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
    if (find_plugins(s, o, err) || tl_params_copy(&s->params, p, err))
        goto fail;
    if (o && o->fabric)
        s->fabric = *o->fabric;
    else if (tl_fabric_ref_of(t, (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES), &s->fabric, err))
        goto fail;
    tl_rng_init(&s->rng, seed, "pktsim", 0);
    if (tl_heap_init(&s->heap, 1024, err) || tl_heap_init(&s->timers, 1024, err) ||
        tl_pool_init(&s->pkts, sizeof(pkt), 4096, UINT32_MAX - 1, err) ||
        tl_pool_init(&s->ints, sizeof(int_block), (s->services & TL_SVC_INT) ? 4096 : 1,
                     UINT32_MAX - 1, err) ||
        /* Twice: the scalars (packet sizes size the link rings), then the
         * per-port settings once the ports exist. */
        apply_params(s, err) || ports_build(s, err) || apply_params(s, err) || build_flows(s, err) ||
        loss_build(s, err) || fault_build(s, err))
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

tl_pktsim *tl_pktsim_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                            const tl_params *p, const char *cc, uint64_t seed, tl_err *err)
{
    tl_pktsim_opts o = {.cc = cc};
    return tl_pktsim_create_opts(t, r, f, p, &o, seed, err);
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

void tl_pktsim_run_counters(const tl_pktsim *s, tl_run_info *r)
{
    r->bytes_delivered = (int64_t)s->st.bytes_delivered;
    r->bytes_retx = (int64_t)s->st.bytes_retx;
    r->n_drops = (int64_t)(s->st.n_drops + s->st.n_fail_drops);
    r->n_timeouts = (int64_t)s->st.n_timeouts;
    r->n_pfc_pauses = tl_pktsim_paused_share(s, &r->paused_frac, &r->paused_frac_max);
}

int64_t tl_pktsim_paused_share(const tl_pktsim *s, double *mean, double *most)
{
    double sum = 0;
    int64_t n_pauses = 0;
    uint32_t busy = 0;
    *most = 0;
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(s->topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        n_pauses += (int64_t)ps.n_pauses;
        if (ps.bytes_tx == 0 || s->st.now_ps <= 0)
            continue;
        double f = (double)ps.paused_ps / (double)s->st.now_ps;
        busy++;
        sum += f;
        *most = f > *most ? f : *most;
    }
    *mean = busy ? sum / busy : 0;
    return n_pauses;
}
