/* Packet-level truth of one path workload (the engine's path_pktsim
 * ablation, and the training samples' labels): pktsim on the path's parking
 * lot, with M3_SIDE_HOSTS hosts beside each switch where background segments
 * join and leave. */
#include <math.h>
#include <stdlib.h>

#include "m3/m3_int.h"
#include "tailor/pktsim.h"
#include "tailor/quantile.h"
#include "tailor/rng.h"

/* Node ids: 0 the foreground source host, 1..h-1 the switches, h the
 * foreground destination host, then M3_SIDE_HOSTS hosts beside each switch. */
static uint32_t side_host(int h, int sw, uint16_t key)
{
    return (uint32_t)(h + 1 + (sw - 1) * M3_SIDE_HOSTS + key);
}

/* A segment's side host: its key, or for a fabric path (no keys) one of the
 * M3_SIDE_HOSTS drawn from its index (its real host is not on the path). */
static uint16_t side_key(const uint16_t *keys, size_t i, int is_dst)
{
    return keys ? keys[i]
                : (uint16_t)(tl_mix64(2 * (uint64_t)i + (uint64_t)is_dst) % M3_SIDE_HOSTS);
}

static tl_topo *build_topo(const m3_pathwl *w, tl_err *err)
{
    int h = w->n_links;
    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    for (int v = 0; v <= h; v++)
        if (tl_topo_add_node(t, v == 0 || v == h ? TL_NODE_HOST : TL_NODE_SWITCH,
                             v == 0 || v == h ? 0 : TL_TIER_AUTO, -1, -1, 0, err) < 0)
            goto fail;
    for (int k = 0; k < (h - 1) * M3_SIDE_HOSTS; k++)
        if (tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, err) < 0)
            goto fail;
    for (int l = 0; l < h; l++)
        if (tl_topo_add_link(t, (uint32_t)l, (uint32_t)l + 1, w->link[l].rate_bps,
                             w->link[l].delay_ps, err) < 0)
            goto fail;
    for (int sw = 1; sw < h; sw++)
        for (uint16_t k = 0; k < M3_SIDE_HOSTS; k++)
            if (tl_topo_add_link(t, side_host(h, sw, k), (uint32_t)sw, M3_SIDE_BPS,
                                 M3_SIDE_DELAY_PS, err) < 0)
                goto fail;
    if (tl_topo_finish(t, err))
        goto fail;
    return t;
fail:
    tl_topo_destroy(t);
    return NULL;
}

int m3_path_pktsim(const m3_pathwl *w, const tl_params *p, const char *cc, uint64_t seed,
                   double truth[M3_N_OUT][M3_N_Q], uint32_t n_out[M3_N_OUT], double *fg_sd,
                   tl_err *err)
{
    int h = w->n_links;
    tl_flows f;
    tl_flows_init(&f);
    tl_topo *t = build_topo(w, err);
    tl_routes *r = NULL;
    tl_pktsim *sim = NULL;
    double *sd = malloc((w->n_flows + 1) * sizeof *sd);
    int rc = 0;
    if (!t || !sd || (rc = tl_flows_add_class(&f, "synthetic", err)) ||
        (rc = tl_flows_reserve(&f, w->n_flows, err))) {
        rc = rc ? rc : err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < w->n_flows; i++) {
        const tl_fs_path_flow *pf = &w->flow[i];
        int a = pf->first, b = pf->last + 1;
        f.v[i] = (tl_flow){.id = i,
                           .size_bytes = pf->size_bytes,
                           .start_ps = pf->start_ps,
                           .src = a == 0 ? 0 : side_host(h, a, side_key(w->src_key, i, 0)),
                           .dst = b == h ? (uint32_t)h
                                         : side_host(h, b, side_key(w->dst_key, i, 1))};
    }
    f.n = w->n_flows;
    if (!(r = tl_routes_create(t, seed, err)) ||
        !(sim = tl_pktsim_create_opts(
              t, r, &f, p,
              &(tl_pktsim_opts){.cc = cc, .fabric = w->fabric.rtt_ps ? &w->fabric : NULL}, seed,
              err))) {
        rc = err && err->code ? err->code : TL_ENOMEM;
        goto done;
    }
    if ((rc = tl_pktsim_run(sim, 0, NULL, err)))
        goto done;
    const tl_flow_result *res = tl_pktsim_results(sim);
    for (size_t i = 0, k = 0; fg_sd && i < w->n_flows; i++)
        if (w->is_fg[i])
            fg_sd[k++] = res[i].fct_ps < 0 ? NAN : tl_slowdown(res[i].fct_ps, res[i].ideal_ps);
    for (int b = 0; b < M3_N_OUT; b++) {
        size_t m = 0;
        for (size_t i = 0; i < w->n_flows; i++) {
            if (!w->is_fg[i] || tl_bucket_of(w->flow[i].size_bytes) != b)
                continue;
            if (res[i].fct_ps < 0) {
                rc = tl_err_set(err, TL_EINVAL, "path pktsim: foreground flow %zu did not finish",
                                i);
                goto done;
            }
            sd[m++] = tl_slowdown(res[i].fct_ps, res[i].ideal_ps);
        }
        n_out[b] = (uint32_t)m;
        tl_quantiles(sd, m, m3_q, truth[b], M3_N_Q, NULL); /* NaN when m == 0 */
    }
done:
    tl_pktsim_destroy(sim);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
    tl_flows_fini(&f);
    free(sd);
    return rc;
}
