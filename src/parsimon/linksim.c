/* Link-level simulation (parsimon.txt §3.2, Fig. 4). The directed link u->v
 * and its flows become a small topology:
 *   A, first hop (u is a host): u's NIC is the link; v feeds one fat link per
 *      destination;
 *   B, switch to switch: one host per source, linked to u at that source's
 *      NIC rate with the propagation delay from the source to u (the first
 *      hops are not inflated); u->v is the link; v feeds one fat link per
 *      destination;
 *   C, last hop (v is a host): sources as in B; u->v is the link.
 * A fat link is fat_factor times the slowest link from v to that destination
 * and carries the propagation delay from v to it, so every flow keeps its
 * original round-trip propagation. The link itself runs at its rate minus the
 * rate of the ACKs that the reverse link's flows send across it (those ACKs
 * are not simulated here; §3.2's correction, 60 B per 1000 B of payload).
 *
 * Residual context (tl_parsimon_opts.is_residual, tailor's addition, cases B
 * and C; docs/parsimon.md): the links around the link carry the rest of the
 * network's traffic, which slows and smooths the link's flows before and
 * after it. A source's link then runs at the least residual rate of the
 * channels from the source to u, and (case B) a destination's link at the
 * least residual rate of the channels from v to it, queueing and marking
 * like that destination's real last hop would; a channel's residual rate is
 * its rate less the offered load of its flows that do not cross the link.
 * The link's delay for a flow is then what the link adds to it: its excess
 * over the ideal FCT with the link at its rate, less its excess in a second
 * run where the link is fat_factor times faster.
 *
 * ECN in case A: the link is a host NIC, and pktsim marks at switch egress
 * only, so first-hop simulations never mark (as the paper's implementation,
 * whose first-hop bottleneck is 100x too fast to queue): the NIC's round-robin
 * over its flows is the only queue. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"
#include "tailor/time.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"

/* A context link keeps at least this share of its rate, so a channel whose
 * other flows' offered load reaches its rate still carries the link's flows
 * (offered load over a short arrival span can exceed the rate). */
#define RESIDUAL_FLOOR 0.1

/* Local hosts for the distinct original hosts of one side, in first-seen
 * order. idx (n_nodes of t, zeroed) holds local index + 1 per original host. */
typedef struct side {
    uint32_t *idx;   /* (n_nodes of t) */
    uint32_t *first; /* (n) the first flow (index into f) seen with each local host */
    uint32_t n;
    uint64_t *bps;   /* (n) the rate of each local host's link (side_links) */
    int64_t *delay;  /* (n) and its propagation delay */
} side;

static uint32_t side_find_or_add(side *s, uint32_t host, uint32_t flow)
{
    if (!s->idx[host]) {
        s->first[s->n] = flow;
        s->idx[host] = ++s->n;
    }
    return s->idx[host] - 1;
}

/* One link simulation's fixed inputs, shared by its runs. */
typedef struct lsim {
    const ps_env *env;
    uint32_t chan, n;
    int kind;
    const uint32_t *fl;   /* (n) flow indices into env->f */
    side src, dst;
    uint32_t *lsrc, *ldst; /* (n) local source / destination of each flow */
    uint64_t *shared;      /* (n_chans) with is_residual: bytes of the link's flows per channel */
    int64_t lead_ps;       /* propagation moved from every source's link onto the link (side_links) */
    int is_share;          /* a last hop with tl_parsimon_opts.is_share_sources */
    ps_share sh;           /* and what it adds (sharing.c) */
} lsim;

/* Channel c's rate less the offered load (payload bytes over the arrival
 * span, as ps_load) of its flows that are not the link's, at least
 * RESIDUAL_FLOOR of it; c's full rate without the residual context. */
static double context_rate(const lsim *ls, uint32_t c)
{
    const ps_decomp *d = ls->env->d;
    double rate = (double)tl_topo_link(ls->env->t, tl_chan_link(c))->rate_bps;
    if (!ls->shared)
        return rate;
    double span_s = (double)(d->last_ps[c] - d->first_ps[c]) * 1e-12;
    uint64_t other = d->bytes[c] - ls->shared[c];
    double load = span_s > 0 ? (double)other * 8 / span_s : 0;
    return fmax(rate - load, RESIDUAL_FLOOR * rate);
}

/* The links of the sources to u and (case B) of v to the destinations:
 *   source k: its NIC's rate (residual context: the least context rate of the
 *     channels from the source to u, the NIC's left out where its sharing is
 *     simulated, is_share), with the propagation delay to u;
 *   destination k: fat (residual context: the least context rate of the
 *     channels from v to it), with the propagation delay from v. */
static void side_links(lsim *ls)
{
    const ps_env *env = ls->env;
    const tl_topo *t = env->t;
    const ps_decomp *d = env->d;
    for (uint32_t k = 0; k < ls->src.n && ls->kind != 0; k++) {
        const uint32_t *p = d->path + d->path_off[ls->src.first[k]];
        int64_t delay = 0;
        double rate = (double)tl_topo_link(t, tl_chan_link(p[0]))->rate_bps;
        for (const uint32_t *q = p; *q != ls->chan; q++) {
            delay += tl_topo_link(t, tl_chan_link(*q))->delay_ps;
            if (!(ls->is_share && q == p))
                rate = fmin(rate, context_rate(ls, *q));
        }
        ls->src.bps[k] = (uint64_t)llround(rate);
        ls->src.delay[k] = delay;
    }
    /* The sources' shortest propagation moves onto the link: every arrival
     * at u comes that much earlier, which changes nothing at u and nothing
     * downstream, and a source's link without delay saves pktsim one event
     * per packet (its arrival rides on the NIC's transmit-done event). */
    ls->lead_ps = 0;
    if (ls->kind != 0 && ls->src.n) {
        ls->lead_ps = ls->src.delay[0];
        for (uint32_t k = 1; k < ls->src.n; k++)
            ls->lead_ps = ls->src.delay[k] < ls->lead_ps ? ls->src.delay[k] : ls->lead_ps;
        for (uint32_t k = 0; k < ls->src.n; k++)
            ls->src.delay[k] -= ls->lead_ps;
    }
    for (uint32_t k = 0; k < ls->dst.n && ls->kind != 2; k++) {
        const uint32_t *p = d->path + d->path_off[ls->dst.first[k]];
        const uint32_t *end = d->path + d->path_off[ls->dst.first[k] + 1];
        while (*p != ls->chan)
            p++;
        int64_t delay = 0;
        double slow = INFINITY, ctx = INFINITY;
        for (p++; p < end; p++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(*p));
            delay += l->delay_ps;
            slow = fmin(slow, (double)l->rate_bps);
            ctx = fmin(ctx, context_rate(ls, *p));
        }
        double r = ls->shared ? ctx : fmin(env->o->fat_factor * slow, 1e18);
        ls->dst.bps[k] = (uint64_t)llround(r);
        ls->dst.delay[k] = delay;
    }
}

/* A flow of the link by its start in its source's clock. */
typedef struct flow_at {
    int64_t start_ps;
    uint32_t i;
} flow_at;

static int cmp_flow_at(const void *a, const void *b)
{
    const flow_at *x = a, *y = b;
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* PFC at u by the channels the sources come in by in the network (the
 * link's tl_parsimon_opts.is_pfc_by_channel): a source's link counts and
 * pauses with the first source's that reaches u over the same channel (the
 * channel before the link on its first flow's path). Each source has its
 * own link into u here, where in the network the link's flows come over the
 * one or two links before u and pause those together. */
static int pfc_by_channel(const lsim *ls, tl_pktsim *sim, tl_err *err)
{
    const ps_decomp *d = ls->env->d;
    uint32_t *lead = calloc((size_t)d->n_chans + 1, sizeof *lead); /* first source + 1 */
    if (!lead)
        return tl_err_nomem(err);
    int rc = 0;
    for (uint32_t k = 0; !rc && k < ls->src.n; k++) {
        uint32_t i = ls->src.first[k], at = d->path_off[i] + 1;
        while (at < d->path_off[i + 1] && d->path[at] != ls->chan)
            at++;
        uint32_t c = d->path[at - 1]; /* u is a switch: the link is not the first hop */
        if (lead[c])
            rc = tl_pktsim_set_pfc_ingress(sim, 2 * k, 2 * (lead[c] - 1), err);
        else
            lead[c] = k + 1;
    }
    free(lead);
    return rc;
}

/* Builds the link-level topology (the link at its rate, or fat_factor times
 * it with is_fat), runs pktsim on the link's flows (those with keep[i] set,
 * all without keep) and writes each flow's FCT in excess of its ideal FCT
 * there (0 for a flow left out) and, with end, the time it completes. With
 * is_watch, destinations' links that could queue under PFC are watched
 * direct ports (the run fails with TL_EPAUSE where they would pause). */
static int run_try(const lsim *ls, int is_fat, const uint8_t *keep, int64_t *excess,
                   int64_t *end, int is_watch, ps_link_out *out, tl_err *err)
{
    const ps_env *env = ls->env;
    const tl_topo *t = env->t;
    const ps_decomp *d = env->d;
    uint32_t chan = ls->chan, n = ls->n;
    int kind = ls->kind;
    tl_flows lf;
    tl_flows_init(&lf);
    tl_topo *lt = NULL;
    tl_routes *lr = NULL;
    tl_pktsim *sim = NULL;
    int rc = 0;
    double cpu0 = tl_thread_cpu_s();
    const ps_share *sh = &ls->sh; /* empty unless is_share */
    size_t n_all = (size_t)n + sh->n_ctx + sh->n_ack;
    flow_at *order = malloc((n_all + 1) * sizeof *order);
    uint32_t *rchan = malloc(((size_t)ls->src.n + 1) * sizeof *rchan);
    int64_t *rdelay = malloc(((size_t)ls->src.n + 1) * sizeof *rdelay);
    if (!(lf.v = malloc((n_all + 1) * sizeof *lf.v)) || !order || !rchan || !rdelay) {
        rc = tl_err_nomem(err);
        goto done;
    }
    /* Node ids: sources (case A: u itself), u (B, C), v (A, B: a switch;
     * C: the destination host), destinations (A, B). */
    if (!(lt = tl_topo_create(err))) {
        rc = err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    uint32_t n_src = kind == 0 ? 1 : ls->src.n, n_dst = kind == 2 ? 0 : ls->dst.n;
    uint32_t id_u = kind == 0 ? 0 : n_src, id_v = id_u + 1, id_d0 = id_v + 1;
    const tl_link *lk = tl_topo_link(t, tl_chan_link(chan));
    for (uint32_t k = 0; k < n_src && kind != 0; k++)
        if (tl_topo_add_node(lt, TL_NODE_HOST, 0, -1, -1, 0, err) < 0)
            goto fail;
    if (tl_topo_add_node(lt, kind == 0 ? TL_NODE_HOST : TL_NODE_SWITCH,
                         kind == 0 ? 0 : TL_TIER_AUTO, -1, -1, 0, err) < 0 ||
        tl_topo_add_node(lt, kind == 2 ? TL_NODE_HOST : TL_NODE_SWITCH,
                         kind == 2 ? 0 : TL_TIER_AUTO, -1, -1, 0, err) < 0)
        goto fail;
    for (uint32_t k = 0; k < n_dst; k++)
        if (tl_topo_add_node(lt, TL_NODE_HOST, 0, -1, -1, 0, err) < 0)
            goto fail;
    /* is_share (a last hop, no destinations): a sink past u for the sources'
     * other flows, then a host before u that sends the ACKs */
    uint32_t id_sink = id_d0, id_ack = id_d0 + 1;
    if (ls->is_share && (tl_topo_add_node(lt, TL_NODE_HOST, 0, -1, -1, 0, err) < 0 ||
                         tl_topo_add_node(lt, TL_NODE_HOST, 0, -1, -1, 0, err) < 0))
        goto fail;
    /* A source's link has no delay forward: its flows start that much late
     * instead, and its ACKs take twice it back (below). */
    for (uint32_t k = 0; k < n_src && kind != 0; k++)
        if (tl_topo_add_link(lt, k, id_u, ls->src.bps[k], 0, err) < 0)
            goto fail;
    /* At most the ACK share of a full reverse link: 60 / 1048 of it for
     * full packets, but more for tiny ones (60 B of ACK per 49 B packet), so
     * the link keeps at least half its rate. With is_share the ACKs are
     * packets instead. */
    double rate = (double)lk->rate_bps -
                  (ls->is_share ? 0 : ps_ack_rate_bps(d, t, chan, env->header));
    rate = fmax(rate, 0.5 * (double)lk->rate_bps);
    if (is_fat)
        rate = env->o->fat_factor * (double)lk->rate_bps;
    if (tl_topo_add_link(lt, id_u, id_v, (uint64_t)llround(rate), lk->delay_ps + ls->lead_ps, err) < 0)
        goto fail;
    for (uint32_t k = 0; k < n_dst; k++)
        if (tl_topo_add_link(lt, id_v, id_d0 + k, ls->dst.bps[k], ls->dst.delay[k], err) < 0)
            goto fail;
    /* the sink's link carries all the sources can send; the ACK host's is
     * a hundred times the link, so that each ACK reaches u at its time */
    uint64_t sink_bps = 0;
    for (uint32_t k = 0; k < n_src && ls->is_share; k++)
        sink_bps += ls->src.bps[k];
    if (ls->is_share &&
        (tl_topo_add_link(lt, id_u, id_sink, sink_bps, lk->delay_ps + ls->lead_ps, err) < 0 ||
         tl_topo_add_link(lt, id_ack, id_u, 100 * lk->rate_bps, 0, err) < 0))
        goto fail;
    if ((rc = tl_topo_finish(lt, err)))
        goto done;

    /* Each source's clock runs its delay to u late: its flows start that
     * much later, their packets leave its link as they reach u (an arrival
     * that rides on its NIC's transmit-done, one event fewer), and their
     * ACKs come back that much later; an FCT and its ideal both lose that
     * delay, and every time at u and past it stays (docs/parsimon.md). */
    uint32_t m = 0; /* flows simulated, by start in the sources' clocks */
    for (uint32_t i = 0; i < n; i++) {
        if (keep && !keep[i])
            continue;
        int64_t late = kind == 0 ? 0 : ls->src.delay[ls->lsrc[i]];
        order[m++] = (flow_at){env->f->v[ls->fl[i]].start_ps + late, i};
    }
    /* is_share: the sources' other flows (i = n + j) and the ACKs (i = n +
     * n_ctx + j), in the same clocks */
    for (uint32_t j = 0; j < sh->n_ctx; j++)
        order[m++] = (flow_at){sh->ctx_start[j] + ls->src.delay[sh->ctx_src[j]], n + j};
    for (uint32_t j = 0; j < sh->n_ack; j++) { /* none before the run starts */
        int64_t at = sh->ack_at[j] - ls->lead_ps;
        order[m++] = (flow_at){at > 0 ? at : 0, n + sh->n_ctx + j};
    }
    qsort(order, m, sizeof *order, cmp_flow_at);
    /* an ACK of nic.ack_bytes on the wire; one byte past the header if
     * ACKs are set smaller than headers */
    uint64_t ack_wire = (uint64_t)tl_knob(env->p, TL_K_NIC_ACK_BYTES);
    uint64_t ack_payload = ack_wire > env->header ? ack_wire - env->header : 1;
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t i = order[j].i;
        if (i >= n) {
            int is_ack = i >= n + sh->n_ctx;
            uint32_t q = is_ack ? i - n - sh->n_ctx : i - n;
            lf.v[j] = env->f->v[is_ack ? sh->ack_of[q] : sh->ctx[q]];
            lf.v[j].id = is_ack ? (1ull << 40) + q : lf.v[j].id; /* one flow per ACK */
            lf.v[j].size_bytes = is_ack ? ack_payload : sh->ctx_bytes[q];
            lf.v[j].start_ps = order[j].start_ps;
            lf.v[j].src = is_ack ? id_ack : sh->ctx_src[q];
            lf.v[j].dst = is_ack ? id_v : id_sink;
            lf.v[j].class_idx = 0;
            continue;
        }
        lf.v[j] = env->f->v[ls->fl[i]];
        lf.v[j].start_ps = order[j].start_ps;
        lf.v[j].src = kind == 0 ? id_u : ls->lsrc[i];
        lf.v[j].dst = kind == 2 ? id_v : id_d0 + ls->ldst[i];
        lf.v[j].class_idx = 0;
    }
    lf.n = lf.cap = m;
    uint64_t seed = tl_mix64(env->seed ^ tl_mix64((uint64_t)chan + 1));
    if (!(lr = tl_routes_create(lt, seed, err)) ||
        !(sim = tl_pktsim_create_opts(lt, lr, &lf, env->p,
                                      &(tl_pktsim_opts){.cc = env->cc, .fabric = &env->fabric},
                                      seed, err))) {
        rc = err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    for (uint32_t k = 0; k < n_src && kind != 0; k++) {
        rchan[k] = 2 * k + 1;
        rdelay[k] = 2 * ls->src.delay[k];
    }
    if (kind != 0 && (rc = tl_pktsim_set_ctrl_delays(sim, rchan, rdelay, n_src, err)))
        goto done;
    if (kind != 0 && env->o->is_pfc_by_channel && tl_params_get(env->p, "switch.pfc") != 0 &&
        (rc = pfc_by_channel(ls, sim, err)))
        goto done;
    tl_pktsim_set_direct_acks(sim, env->o->is_direct_acks);
    /* With PFC the link simulation times out as the network does, after
     * nic.rto_lossless_ps (67 ms): its round trips are not the network's
     * (the other hops are residual rates, a slow destination's queue pauses
     * the whole link), so the 1 ms RTO fired where the truth had no
     * timeout and fed on itself (docs/parsimon.md, "PFC"); pktsim does so
     * by itself.
     * v -> destinations: links id_d0 - 1 + k (after the n_src source links in
     * B and C, the u -> v link, and none before the fat links in A). A
     * context link queues, but as a FIFO that marks by its backlog, which a
     * direct port computes without events. With PFC that is exact only
     * where no destination's link is slower than the link (the fat links
     * of a first hop) and the CC wants no INT: fed by the link alone, such
     * a port holds about a packet, so it never pauses or marks. pktsim
     * knows that rule (tl_pktsim_can_direct_port). Elsewhere the real last
     * hop pauses v's ingress, the link, once its queue passes the PFC
     * threshold, which a direct port cannot: those ports are watched
     * (is_watch), and where they would pause, the run starts again with
     * them as queues (docs/parsimon.md, "PFC"). All or none are direct, as
     * the link's direct through needs. */
    /* the link's channel (link n_src in B and C, 0 in A), then the
     * destinations' (+ 2 k) */
    const uint32_t link_chan = 2 * (kind == 0 ? 0 : n_src), dst_chan0 = link_chan + 2;
    int is_direct = env->o->is_direct_data, is_watched = 0;
    for (uint32_t k = 0; k < n_dst && is_direct; k++)
        is_direct = !tl_pktsim_can_direct_port(sim, dst_chan0 + 2 * k, NULL);
    if (!is_direct && is_watch && env->o->is_direct_data && n_dst > 0 &&
        !tl_pktsim_set_direct_port_watched(sim, dst_chan0, NULL))
        is_direct = is_watched = 1; /* refused only for INT, the same on every port */
    /* Destinations' links that queue (with PFC) still need no arrival
     * event at the destination: only their own packets reach it. */
    for (uint32_t k = is_watched; k < n_dst && env->o->is_direct_data; k++)
        if ((rc = is_watched  ? tl_pktsim_set_direct_port_watched(sim, dst_chan0 + 2 * k, err)
                  : is_direct ? tl_pktsim_set_direct_port(sim, dst_chan0 + 2 * k, err)
                              : tl_pktsim_set_direct_through(sim, dst_chan0 + 2 * k, err)))
            goto done;
    /* the link itself (link n_src in B and C, 0 in A): every flow reaches v
     * over it, and past v (a host in C) only direct ports follow */
    if (env->o->is_direct_data && (is_direct || kind == 2) &&
        (rc = tl_pktsim_set_direct_through(sim, link_chan, err)))
        goto done;
    tl_pktsim_stats st;
    if ((rc = tl_pktsim_run(sim, 0, NULL, err))) {
        tl_pktsim_get_stats(sim, &st); /* the work of a run stopped to go again counts */
        out->n_events[is_fat] += st.n_events;
        goto done;
    }
    const tl_flow_result *res = tl_pktsim_results(sim);
    memset(excess, 0, n * sizeof *excess); /* flows left out */
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t i = order[j].i;
        if (i >= n)
            continue; /* is_share's own flows */
        if (res[j].fct_ps < 0) {
            rc = tl_err_set(err, TL_EINVAL, "link %u: flow %llu did not finish in its link-level "
                            "simulation", chan, (unsigned long long)lf.v[j].id);
            goto done;
        }
        excess[i] = res[j].fct_ps - res[j].ideal_ps;
        if (end)
            end[i] = lf.v[j].start_ps + res[j].fct_ps;
    }
    tl_pktsim_get_stats(sim, &st);
    /* The run at rate: the link's queue over the run (bench_parsimon_error),
     * and PFC: the longest any port was paused, as a share of the run: the
     * link paused by v, or a source paused by u for the queue the link
     * builds (in the network, the link before it). */
    if (!is_fat) {
        out->paused_frac = 0;
        for (uint32_t q = 0; q < 2 * tl_topo_n_links(lt); q++) {
            tl_port_stats ps;
            tl_pktsim_port_stats(sim, q, &ps);
            if (q == link_chan)
                out->queue_byte_s = ps.mean_queue_bytes * (double)st.now_ps * 1e-12;
            if (st.now_ps > 0)
                out->paused_frac =
                    fmax(out->paused_frac, (double)ps.paused_ps / (double)st.now_ps);
        }
    }
    out->n_link_hops += st.n_link_hops;
    out->n_drops += st.n_drops;
    out->n_timeouts += st.n_timeouts;
    out->n_pkts[is_fat] += st.n_data_pkts;
    out->n_events[is_fat] += st.n_events;
    goto done;
fail:
    rc = err && err->code ? err->code : TL_ENOMEM;
done:
    tl_pktsim_destroy(sim);
    tl_routes_destroy(lr);
    tl_topo_destroy(lt);
    free(lf.v); /* not tl_flows_fini: lf owns no class names */
    free(order), free(rchan), free(rdelay);
    out->cpu_s[is_fat] += tl_thread_cpu_s() - cpu0;
    return rc;
}

/* Flow i's FCT in excess of its ideal in the run with the link fat if it
 * ran alone there and its CC let it send at its line rate throughout: its
 * packets back to back through the source's link, the fat link and (case
 * B) the destination's, each a FIFO. Not zero: the ideal serializes a
 * full first packet at every hop, where the last, shorter one crosses the
 * hops after the slowest. */
static int64_t lone_excess(const lsim *ls, uint32_t i)
{
    const ps_env *env = ls->env;
    const tl_link *lk = tl_topo_link(env->t, tl_chan_link(ls->chan));
    uint64_t rate[3] = {ls->src.bps[ls->lsrc[i]],
                        (uint64_t)llround(env->o->fat_factor * (double)lk->rate_bps), 0};
    int64_t delay[3] = {ls->src.delay[ls->lsrc[i]], lk->delay_ps + ls->lead_ps, 0};
    int64_t busy[3] = {0, 0, 0};
    int hops = 2;
    if (ls->kind == 1) {
        rate[2] = ls->dst.bps[ls->ldst[i]];
        delay[2] = ls->dst.delay[ls->ldst[i]];
        hops = 3;
    }
    uint64_t size = env->f->v[ls->fl[i]].size_bytes, k = ps_packets(size, env->mtu);
    int64_t t = 0;
    for (uint64_t j = 0; j < k; j++) {
        uint64_t wire = (j + 1 < k ? env->mtu : size - (k - 1) * env->mtu) + env->header;
        t = 0; /* every packet is at the NIC from the start */
        for (int h = 0; h < hops; h++) {
            int64_t start = t > busy[h] ? t : busy[h];
            busy[h] = start + tl_tx_time_ps(wire, rate[h]);
            t = busy[h] + delay[h];
        }
    }
    return t - tl_ideal_fct_links_ps(rate, delay, hops, size, env->mtu, env->header);
}

/* A change of the link's sending rate in a sweep over its flows' first runs. */
typedef struct rate_step {
    int64_t t_ps;
    double bps; /* + at a start, - at an end */
} rate_step;

static int cmp_step(const void *a, const void *b)
{
    const rate_step *x = a, *y = b;
    if (x->t_ps != y->t_ps)
        return x->t_ps < y->t_ps ? -1 : 1;
    return (x->bps > y->bps) - (x->bps < y->bps); /* ends first */
}

/* Marks in keep the flows that run, in the first run (completing at end), at
 * a time when the sources of the link's running flows could together send
 * faster than fat_bps (the link fat). Returns -1 out of memory, else 0. */
static int mark_hot(const lsim *ls, const int64_t *end, double fat_bps, uint8_t *keep)
{
    const tl_flow *v = ls->env->f->v;
    uint32_t n = ls->n, n_hot = 0;
    rate_step *st = malloc(((size_t)2 * n + 1) * sizeof *st);
    int64_t *hot = malloc(((size_t)2 * n + 2) * sizeof *hot); /* [from, to) pairs */
    if (!st || !hot) {
        free(st), free(hot);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        double bps = ls->kind == 0 ? (double)UINT64_MAX : (double)ls->src.bps[ls->lsrc[i]];
        st[2 * i] = (rate_step){v[ls->fl[i]].start_ps, bps};
        st[2 * i + 1] = (rate_step){end[i], -bps};
    }
    qsort(st, (size_t)2 * n, sizeof *st, cmp_step);
    double sum = 0;
    for (uint32_t k = 0; k < 2 * n; k++) {
        int was = sum > fat_bps;
        sum += st[k].bps;
        if (!was && sum > fat_bps)
            hot[2 * n_hot] = st[k].t_ps;
        else if (was && !(sum > fat_bps))
            hot[2 * n_hot++ + 1] = st[k].t_ps;
    }
    /* flows by start, hot spans by time: one pass */
    for (uint32_t i = 0, h = 0; i < n; i++) {
        while (h < n_hot && hot[2 * h + 1] <= v[ls->fl[i]].start_ps)
            h++;
        for (uint32_t g = h; g < n_hot && hot[2 * g] < end[i]; g++)
            if (hot[2 * g + 1] > v[ls->fl[i]].start_ps) {
                keep[i] = 1;
                break;
            }
    }
    free(st), free(hot);
    return 0;
}

/* Marks in keep the flows the run with the link fat needs: those that run,
 * in the first run (completing at end), at the same time as another flow
 * from the same source or, in case B, to the same destination; those whose
 * destination's link is slower than their source's (alone, they queue
 * there); and those that run while the sources could overrun the fat link.
 * The others meet no other flow with the link fat (FCTs are no longer
 * there: the link only slows them in the first run) and nothing slows them,
 * so their excess there is a lone flow's (lone_excess): the fat run leaves
 * them out, a quarter of its packets on the default scenario
 * (docs/parsimon.md). Flows are sorted by start. Returns how many are
 * kept, or -1 out of memory. */
static int64_t mark_needed(const lsim *ls, const int64_t *end, double fat_bps, uint8_t *keep)
{
    const tl_flow *v = ls->env->f->v;
    uint32_t n = ls->n, ng = ls->src.n > ls->dst.n ? ls->src.n : ls->dst.n;
    int64_t *at = malloc(((size_t)ng + 1) * sizeof *at);
    if (!at)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        keep[i] = ls->kind == 1 && ls->dst.bps[ls->ldst[i]] < ls->src.bps[ls->lsrc[i]];
    if (mark_hot(ls, end, fat_bps, keep)) {
        free(at);
        return -1;
    }
    for (int is_dst = 0; is_dst < (ls->kind == 1 ? 2 : 1); is_dst++) {
        const uint32_t *g = is_dst ? ls->ldst : ls->lsrc;
        /* forward: the latest end of the group's earlier flows */
        for (uint32_t k = 0; k < ng; k++)
            at[k] = INT64_MIN;
        for (uint32_t i = 0; i < n; i++) {
            if (at[g[i]] > v[ls->fl[i]].start_ps)
                keep[i] = 1;
            if (end[i] > at[g[i]])
                at[g[i]] = end[i];
        }
        /* backward: the start of the group's next flow */
        for (uint32_t k = 0; k < ng; k++)
            at[k] = INT64_MAX;
        for (uint32_t i = n; i-- > 0;) {
            if (end[i] > at[g[i]])
                keep[i] = 1;
            at[g[i]] = v[ls->fl[i]].start_ps;
        }
    }
    free(at);
    int64_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m += keep[i];
    return m;
}

/* The link's runs: at its rate (ex, end), then, with the residual context
 * (ex_fat non-NULL), fat on the flows that can meet another there (keep),
 * the others' excess worked out. Both watched or neither (is_watch), so
 * that the link's delay is measured against a second run of its kind. */
static int run_both(const lsim *ls, int is_watch, int64_t *ex, int64_t *ex_fat, int64_t *end,
                    uint8_t *keep, ps_link_out *out, tl_err *err)
{
    const ps_env *env = ls->env;
    int rc = run_try(ls, 0, NULL, ex, end, is_watch, out, err);
    if (rc || !ex_fat)
        return rc;
    const tl_link *lk = tl_topo_link(env->t, tl_chan_link(ls->chan));
    double fat_bps = env->o->fat_factor * (double)lk->rate_bps;
    int64_t m = ls->n;
    /* the subset's test knows nothing of is_share's flows */
    if (env->o->is_fat_subset && tl_pktsim_cc_is_line_rate_start(env->cc) && !ls->is_share)
        m = mark_needed(ls, end, fat_bps, keep);
    else
        memset(keep, 1, ls->n);
    if (m < 0)
        return tl_err_nomem(err);
    if (m > 0 && (rc = run_try(ls, 1, keep, ex_fat, NULL, is_watch, out, err)))
        return rc;
    for (uint32_t i = 0; i < ls->n; i++)
        if (!keep[i])
            ex_fat[i] = lone_excess(ls, i);
    return 0;
}

int ps_linksim(const ps_env *env, uint32_t chan, ps_edist *e, ps_link_out *out, tl_err *err)
{
    double t0 = tl_wall_s();
    const tl_topo *t = env->t;
    const ps_decomp *d = env->d;
    const tl_flows *f = env->f;
    lsim ls = {.env = env, .chan = chan};
    uint32_t a = d->chan_off[chan], n = d->chan_off[chan + 1] - a;
    ls.n = n;
    ls.fl = d->chan_flows + a;
    uint32_t u = tl_topo_chan_from(t, chan), v = tl_topo_chan_to(t, chan);
    ls.kind = tl_topo_node(t, u)->kind == TL_NODE_HOST   ? 0
              : tl_topo_node(t, v)->kind == TL_NODE_HOST ? 2
                                                         : 1;
    int kind = ls.kind;
    memset(out, 0, sizeof *out);
    out->kind = kind;

    size_t nn = (size_t)tl_topo_n_nodes(t) + 1;
    ls.lsrc = malloc(((size_t)n + 1) * sizeof *ls.lsrc);
    ls.ldst = malloc(((size_t)n + 1) * sizeof *ls.ldst);
    ls.src.idx = calloc(nn, sizeof *ls.src.idx);
    ls.src.first = malloc(((size_t)n + 1) * sizeof *ls.src.first);
    ls.dst.idx = calloc(nn, sizeof *ls.dst.idx);
    ls.dst.first = malloc(((size_t)n + 1) * sizeof *ls.dst.first);
    ls.src.bps = malloc(((size_t)n + 1) * sizeof *ls.src.bps);
    ls.dst.bps = malloc(((size_t)n + 1) * sizeof *ls.dst.bps);
    ls.src.delay = malloc(((size_t)n + 1) * sizeof *ls.src.delay);
    ls.dst.delay = malloc(((size_t)n + 1) * sizeof *ls.dst.delay);
    int is_ctx = env->o->is_residual && kind != 0;
    if (is_ctx)
        ls.shared = calloc((size_t)d->n_chans + 1, sizeof *ls.shared);
    int64_t *ex = malloc(((size_t)n + 1) * sizeof *ex);
    int64_t *ex_fat = is_ctx ? malloc(((size_t)n + 1) * sizeof *ex_fat) : NULL;
    int64_t *end = is_ctx ? malloc(((size_t)n + 1) * sizeof *end) : NULL;
    uint8_t *keep = is_ctx ? malloc((size_t)n + 1) : NULL;
    uint64_t *size = malloc(((size_t)n + 1) * sizeof *size);
    double *pnd = malloc(((size_t)n + 1) * sizeof *pnd);
    int rc = 0;
    if (!ls.lsrc || !ls.ldst || !ls.src.idx || !ls.src.first || !ls.dst.idx || !ls.dst.first ||
        !ls.src.bps || !ls.dst.bps || !ls.src.delay || !ls.dst.delay ||
        !ex || !size || !pnd || (is_ctx && (!ls.shared || !ex_fat || !end || !keep))) {
        rc = tl_err_nomem(err);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        const tl_flow *x = &f->v[ls.fl[i]];
        ls.lsrc[i] = kind == 0 ? 0 : side_find_or_add(&ls.src, x->src, ls.fl[i]);
        ls.ldst[i] = kind == 2 ? 0 : side_find_or_add(&ls.dst, x->dst, ls.fl[i]);
        for (uint32_t k = d->path_off[ls.fl[i]]; is_ctx && k < d->path_off[ls.fl[i] + 1]; k++)
            ls.shared[d->path[k]] += x->size_bytes;
    }
    ls.is_share = is_ctx && kind == 2 && env->o->is_share_sources;
    side_links(&ls);
    if (ls.is_share && (rc = ps_share_collect(env, chan, ls.fl, ls.lsrc, n, ls.src.first,
                                              ls.src.n, &ls.sh, err)))
        goto done;
    /* First with the destinations' links as watched direct ports (under PFC
     * few link simulations would pause past v: none of 671 on the default
     * scenario under DCQCN, 2 at 50,000 flows), which saves the arrival at
     * v and the destination link's transmit-done per packet; if either run
     * would pause, both again with queues. */
    if ((rc = run_both(&ls, 1, ex, ex_fat, end, keep, out, err)) == TL_EPAUSE) {
        tl_err_clear(err);
        out->n_requeued = 1;
        rc = run_both(&ls, 0, ex, ex_fat, end, keep, out, err);
    }
    if (rc)
        goto done;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t sz = f->v[ls.fl[i]].size_bytes;
        int64_t delay = is_ctx ? ex[i] - ex_fat[i] : ex[i];
        size[i] = sz;
        pnd[i] = delay > 0 ? (double)delay / ps_norm(sz, env->mtu, env->o->norm_pkts) : 0;
    }
    rc = ps_edist_build(e, size, pnd, n, env->o->bucket_min, env->o->bucket_ratio, err);
done:
    free(ls.lsrc), free(ls.ldst), free(ls.src.idx), free(ls.src.first), free(ls.dst.idx);
    free(ls.dst.first), free(ls.src.bps), free(ls.dst.bps), free(ls.src.delay);
    free(ls.dst.delay), free(ls.shared), free(ex), free(ex_fat), free(end), free(keep);
    free(size), free(pnd);
    ps_share_fini(&ls.sh);
    out->wall_s = tl_wall_s() - t0;
    return rc;
}
