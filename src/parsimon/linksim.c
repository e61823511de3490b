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

int ps_linksim(const ps_env *env, uint32_t chan, ps_edist *e, ps_link_out *out, tl_err *err)
{
    double t0 = tl_wall_s();
    const tl_topo *t = env->t;
    const ps_decomp *d = env->d;
    const tl_flows *f = env->f;
    uint32_t a = d->chan_off[chan], n = d->chan_off[chan + 1] - a;
    const uint32_t *fl = d->chan_flows + a;
    uint32_t u = tl_topo_chan_from(t, chan), v = tl_topo_chan_to(t, chan);
    int kind = tl_topo_node(t, u)->kind == TL_NODE_HOST   ? 0
               : tl_topo_node(t, v)->kind == TL_NODE_HOST ? 2
                                                          : 1;
    memset(out, 0, sizeof *out);
    out->kind = kind;

    side src = {0}, dst = {0};
    uint32_t *lsrc = malloc(((size_t)n + 1) * sizeof *lsrc); /* (n) local source host */
    uint32_t *ldst = malloc(((size_t)n + 1) * sizeof *ldst);
    size_t nn = (size_t)tl_topo_n_nodes(t) + 1;
    src.idx = calloc(nn, sizeof *src.idx);
    src.first = malloc(((size_t)n + 1) * sizeof *src.first);
    dst.idx = calloc(nn, sizeof *dst.idx);
    dst.first = malloc(((size_t)n + 1) * sizeof *dst.first);
    tl_flows lf;
    tl_flows_init(&lf);
    lf.v = malloc(((size_t)n + 1) * sizeof *lf.v);
    uint64_t *size = malloc(((size_t)n + 1) * sizeof *size);
    double *pnd = malloc(((size_t)n + 1) * sizeof *pnd);
    tl_topo *lt = NULL;
    tl_routes *lr = NULL;
    tl_pktsim *sim = NULL;
    int rc = 0;
    if (!lsrc || !ldst || !src.idx || !src.first || !dst.idx || !dst.first || !lf.v || !size ||
        !pnd) {
        rc = tl_err_nomem(err);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        const tl_flow *x = &f->v[fl[i]];
        lsrc[i] = kind == 0 ? 0 : side_find_or_add(&src, x->src, fl[i]);
        ldst[i] = kind == 2 ? 0 : side_find_or_add(&dst, x->dst, fl[i]);
    }
    /* Node ids: sources (case A: u itself), u (B, C), v (A, B: a switch;
     * C: the destination host), destinations (A, B). */
    if (!(lt = tl_topo_create(err))) {
        rc = err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    uint32_t n_src = kind == 0 ? 1 : src.n, n_dst = kind == 2 ? 0 : dst.n;
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
    /* sources -> u: the source's NIC rate, its propagation delay to u */
    for (uint32_t k = 0; k < n_src && kind != 0; k++) {
        uint32_t i = src.first[k];
        const uint32_t *p = d->path + d->path_off[i];
        int64_t delay = 0;
        for (const uint32_t *q = p; *q != chan; q++)
            delay += tl_topo_link(t, tl_chan_link(*q))->delay_ps;
        if (tl_topo_add_link(lt, k, id_u, tl_topo_link(t, tl_chan_link(p[0]))->rate_bps, delay,
                             err) < 0)
            goto fail;
    }
    /* At most the ACK share of a full reverse link: 60 / 1048 of it for
     * full packets, but more for tiny ones (60 B of ACK per 49 B packet), so
     * the link keeps at least half its rate. */
    double rate = (double)lk->rate_bps - ps_ack_rate_bps(d, t, chan, env->header);
    rate = fmax(rate, 0.5 * (double)lk->rate_bps);
    if (tl_topo_add_link(lt, id_u, id_v, (uint64_t)llround(rate), lk->delay_ps, err) < 0)
        goto fail;
    /* v -> destinations: fat, with the propagation delay from v */
    for (uint32_t k = 0; k < n_dst; k++) {
        uint32_t i = dst.first[k];
        const uint32_t *p = d->path + d->path_off[i], *end = d->path + d->path_off[i + 1];
        while (*p != chan)
            p++;
        int64_t delay = 0;
        uint64_t slow = UINT64_MAX;
        for (p++; p < end; p++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(*p));
            delay += l->delay_ps;
            slow = l->rate_bps < slow ? l->rate_bps : slow;
        }
        double fat = env->o->fat_factor * (double)slow;
        if (tl_topo_add_link(lt, id_v, id_d0 + k, (uint64_t)fmin(fat, 1e18), delay, err) < 0)
            goto fail;
    }
    if ((rc = tl_topo_finish(lt, err)))
        goto done;

    for (uint32_t i = 0; i < n; i++) {
        lf.v[i] = f->v[fl[i]];
        lf.v[i].src = kind == 0 ? id_u : lsrc[i];
        lf.v[i].dst = kind == 2 ? id_v : id_d0 + ldst[i];
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
     * B and C, the u -> v link, and none before the fat links in A) */
    for (uint32_t k = 0; k < n_dst && env->o->is_direct_data; k++)
        if ((rc = tl_pktsim_set_direct_port(sim, 2 * ((kind == 0 ? 0 : n_src) + 1 + k), err)))
            goto done;
    /* the link itself (link n_src in B and C, 0 in A): every flow reaches v
     * over it, and past v only fat links follow */
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
        uint64_t pk = ps_packets(lf.v[i].size_bytes, env->mtu);
        int64_t delay = res[i].fct_ps - res[i].ideal_ps;
        size[i] = lf.v[i].size_bytes;
        pnd[i] = delay > 0 ? (double)delay / (double)pk : 0;
    }
    tl_pktsim_stats st;
    tl_pktsim_get_stats(sim, &st);
    out->n_link_hops = st.n_link_hops;
    out->n_drops = st.n_drops;
    out->n_timeouts = st.n_timeouts;
    rc = ps_edist_build(e, size, pnd, n, env->o->bucket_min, env->o->bucket_ratio, err);
    goto done;
fail:
    rc = err && err->code ? err->code : TL_ENOMEM;
done:
    tl_pktsim_destroy(sim);
    tl_routes_destroy(lr);
    tl_topo_destroy(lt);
    free(lf.v); /* not tl_flows_fini: lf owns no class names */
    free(lsrc), free(ldst), free(src.idx), free(src.first), free(dst.idx), free(dst.first);
    free(size), free(pnd);
    out->wall_s = tl_wall_s() - t0;
    return rc;
}
