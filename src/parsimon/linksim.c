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

/* Builds the link-level topology (the link at its rate, or fat_factor times
 * it with is_fat), runs pktsim on the link's flows and writes each flow's FCT
 * in excess of its ideal FCT there. */
static int run_once(const lsim *ls, int is_fat, int64_t *excess, ps_link_out *out, tl_err *err)
{
    const ps_env *env = ls->env;
    const tl_topo *t = env->t;
    const ps_decomp *d = env->d;
    uint32_t chan = ls->chan, n = ls->n;
    int kind = ls->kind, is_ctx = ls->shared != NULL;
    tl_flows lf;
    tl_flows_init(&lf);
    tl_topo *lt = NULL;
    tl_routes *lr = NULL;
    tl_pktsim *sim = NULL;
    int rc = 0;
    if (!(lf.v = malloc(((size_t)n + 1) * sizeof *lf.v))) {
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
    /* sources -> u: the source's NIC rate (residual context: the least
     * context rate on the way to u), its propagation delay to u */
    for (uint32_t k = 0; k < n_src && kind != 0; k++) {
        const uint32_t *p = d->path + d->path_off[ls->src.first[k]];
        int64_t delay = 0;
        double rate = (double)tl_topo_link(t, tl_chan_link(p[0]))->rate_bps;
        for (const uint32_t *q = p; *q != chan; q++) {
            delay += tl_topo_link(t, tl_chan_link(*q))->delay_ps;
            rate = fmin(rate, context_rate(ls, *q));
        }
        if (tl_topo_add_link(lt, k, id_u, (uint64_t)llround(rate), delay, err) < 0)
            goto fail;
    }
    /* At most the ACK share of a full reverse link: 60 / 1048 of it for
     * full packets, but more for tiny ones (60 B of ACK per 49 B packet), so
     * the link keeps at least half its rate. */
    double rate = (double)lk->rate_bps - ps_ack_rate_bps(d, t, chan, env->header);
    rate = fmax(rate, 0.5 * (double)lk->rate_bps);
    if (is_fat)
        rate = env->o->fat_factor * (double)lk->rate_bps;
    if (tl_topo_add_link(lt, id_u, id_v, (uint64_t)llround(rate), lk->delay_ps, err) < 0)
        goto fail;
    /* v -> destinations: fat (residual context: the least context rate from
     * v), with the propagation delay from v */
    for (uint32_t k = 0; k < n_dst; k++) {
        const uint32_t *p = d->path + d->path_off[ls->dst.first[k]];
        const uint32_t *end = d->path + d->path_off[ls->dst.first[k] + 1];
        while (*p != chan)
            p++;
        int64_t delay = 0;
        double slow = INFINITY, ctx = INFINITY;
        for (p++; p < end; p++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(*p));
            delay += l->delay_ps;
            slow = fmin(slow, (double)l->rate_bps);
            ctx = fmin(ctx, context_rate(ls, *p));
        }
        double r = is_ctx ? ctx : fmin(env->o->fat_factor * slow, 1e18);
        if (tl_topo_add_link(lt, id_v, id_d0 + k, (uint64_t)llround(r), delay, err) < 0)
            goto fail;
    }
    if ((rc = tl_topo_finish(lt, err)))
        goto done;

    for (uint32_t i = 0; i < n; i++) {
        lf.v[i] = env->f->v[ls->fl[i]];
        lf.v[i].src = kind == 0 ? id_u : ls->lsrc[i];
        lf.v[i].dst = kind == 2 ? id_v : id_d0 + ls->ldst[i];
        lf.v[i].class_idx = 0;
    }
    lf.n = lf.cap = n;
    uint64_t seed = tl_mix64(env->seed ^ tl_mix64((uint64_t)chan + 1));
    if (!(lr = tl_routes_create(lt, seed, err)) ||
        !(sim = tl_pktsim_create(lt, lr, &lf, env->p, env->cc, seed, err))) {
        rc = err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    tl_pktsim_set_direct_acks(sim, env->o->is_direct_acks);
    /* v -> destinations: links id_d0 - 1 + k (after the n_src source links in
     * B and C, the u -> v link, and none before the fat links in A). A
     * context link queues, but as a FIFO that marks by its backlog, which a
     * direct port computes without events. */
    for (uint32_t k = 0; k < n_dst && env->o->is_direct_data; k++)
        if ((rc = tl_pktsim_set_direct_port(sim, 2 * ((kind == 0 ? 0 : n_src) + 1 + k), err)))
            goto done;
    /* the link itself (link n_src in B and C, 0 in A): every flow reaches v
     * over it, and past v only direct ports follow */
    if (env->o->is_direct_data &&
        (rc = tl_pktsim_set_direct_through(sim, 2 * (kind == 0 ? 0 : n_src), err)))
        goto done;
    if ((rc = tl_pktsim_run(sim, 0, NULL, err)))
        goto done;
    const tl_flow_result *res = tl_pktsim_results(sim);
    for (uint32_t i = 0; i < n; i++) {
        if (res[i].fct_ps < 0) {
            rc = tl_err_set(err, TL_EINVAL, "link %u: flow %llu did not finish in its link-level "
                            "simulation", chan, (unsigned long long)lf.v[i].id);
            goto done;
        }
        excess[i] = res[i].fct_ps - res[i].ideal_ps;
    }
    tl_pktsim_stats st;
    tl_pktsim_get_stats(sim, &st);
    out->n_link_hops += st.n_link_hops;
    out->n_drops += st.n_drops;
    out->n_timeouts += st.n_timeouts;
    goto done;
fail:
    rc = err && err->code ? err->code : TL_ENOMEM;
done:
    tl_pktsim_destroy(sim);
    tl_routes_destroy(lr);
    tl_topo_destroy(lt);
    free(lf.v); /* not tl_flows_fini: lf owns no class names */
    return rc;
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
    int is_ctx = env->o->is_residual && kind != 0;
    if (is_ctx)
        ls.shared = calloc((size_t)d->n_chans + 1, sizeof *ls.shared);
    int64_t *ex = malloc(((size_t)n + 1) * sizeof *ex);
    int64_t *ex_fat = is_ctx ? malloc(((size_t)n + 1) * sizeof *ex_fat) : NULL;
    uint64_t *size = malloc(((size_t)n + 1) * sizeof *size);
    double *pnd = malloc(((size_t)n + 1) * sizeof *pnd);
    int rc = 0;
    if (!ls.lsrc || !ls.ldst || !ls.src.idx || !ls.src.first || !ls.dst.idx || !ls.dst.first ||
        !ex || !size || !pnd || (is_ctx && (!ls.shared || !ex_fat))) {
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
    if ((rc = run_once(&ls, 0, ex, out, err)) || (is_ctx && (rc = run_once(&ls, 1, ex_fat, out, err))))
        goto done;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t sz = f->v[ls.fl[i]].size_bytes;
        int64_t delay = is_ctx ? ex[i] - ex_fat[i] : ex[i];
        size[i] = sz;
        pnd[i] = delay > 0 ? (double)delay / (double)ps_packets(sz, env->mtu) : 0;
    }
    rc = ps_edist_build(e, size, pnd, n, env->o->bucket_min, env->o->bucket_ratio, err);
done:
    free(ls.lsrc), free(ls.ldst), free(ls.src.idx), free(ls.src.first), free(ls.dst.idx);
    free(ls.dst.first), free(ls.shared), free(ex), free(ex_fat), free(size), free(pnd);
    out->wall_s = tl_wall_s() - t0;
    return rc;
}
