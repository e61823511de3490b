/* Building a flowsim: whole-network mode (flows on their ECMP channels) and
 * m3's path-level mode (one path, foreground and background flows with
 * private access links). Both end in the same link/flow arrays. */
#include "flowsim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/time.h"

void tl_flowsim_destroy(tl_flowsim *s)
{
    if (!s)
        return;
    if (s->lf)
        for (uint32_t l = 0; l < s->n_links; l++)
            free(s->lf[l].v);
    void *ptrs[] = {s->cap_bps, s->lf, s->start_ps, s->wire_bits, s->latency_ps, s->flow_cap,
                    s->path_off, s->hops, s->path, s->pos, s->res, s->rate, s->new_rate,
                    s->rem_bits, s->t_last, s->ev_seq, s->ev_at_ps, s->due_ps, s->is_active, s->link_stamp,
                    s->n_unfrozen, s->rem_cap, s->ub_sum, s->flow_stamp, s->frozen_stamp, s->comp_links,
                    s->comp_flows, s->capped, s->sh};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        free(ptrs[i]);
    tl_heap_fini(&s->heap);
    free(s);
}

/* Allocates everything sized by links, flows and total hops. */
static tl_flowsim *alloc_sim(uint32_t n_links, size_t n_flows, size_t total_hops, tl_err *err)
{
    tl_flowsim *s = calloc(1, sizeof *s);
    if (!s) {
        tl_err_nomem(err);
        return NULL;
    }
    s->n_links = n_links;
    s->n_flows = n_flows;
    size_t nf = n_flows ? n_flows : 1, nl = n_links ? n_links : 1, nh = total_hops ? total_hops : 1;
    /* Zeroed: what is read before it is first written (membership, cap
     * sums, stamps, event ids, rates); the rest is written by the builders
     * or by refill before use (zeroing it all was a quarter of the
     * instructions of building a path's flowsim in m3). */
    s->cap_bps = calloc(nl, sizeof *s->cap_bps);
    s->lf = calloc(nl, sizeof *s->lf);
    s->start_ps = malloc(nf * sizeof *s->start_ps);
    s->wire_bits = malloc(nf * sizeof *s->wire_bits);
    s->latency_ps = malloc(nf * sizeof *s->latency_ps);
    s->flow_cap = malloc(nf * sizeof *s->flow_cap);
    s->path_off = malloc(nf * sizeof *s->path_off);
    s->hops = malloc(nf * sizeof *s->hops);
    s->path = malloc(nh * sizeof *s->path);
    s->pos = malloc(nh * sizeof *s->pos);
    s->res = malloc(nf * sizeof *s->res);
    s->rate = calloc(nf, sizeof *s->rate);
    s->new_rate = malloc(nf * sizeof *s->new_rate);
    s->rem_bits = malloc(nf * sizeof *s->rem_bits);
    s->t_last = malloc(nf * sizeof *s->t_last);
    s->ev_seq = calloc(nf, sizeof *s->ev_seq);
    s->ev_at_ps = malloc(nf * sizeof *s->ev_at_ps);
    s->due_ps = malloc(nf * sizeof *s->due_ps);
    s->is_active = calloc(nf, sizeof *s->is_active);
    s->link_stamp = calloc(nl, sizeof *s->link_stamp);
    /* (freeze updates these on every link of a flow, inside the refilled
     * component or not) */
    s->n_unfrozen = calloc(nl, sizeof *s->n_unfrozen);
    s->rem_cap = calloc(nl, sizeof *s->rem_cap);
    s->ub_sum = calloc(nl, sizeof *s->ub_sum);
    s->flow_stamp = calloc(nf, sizeof *s->flow_stamp);
    s->frozen_stamp = calloc(nf, sizeof *s->frozen_stamp);
    s->comp_links = malloc(nl * sizeof *s->comp_links);
    s->comp_flows = malloc(nf * sizeof *s->comp_flows);
    s->capped = malloc(nf * sizeof *s->capped);
    /* Each freeze pushes at most one share per hop; a refill pushes at most
     * links + hops entries. */
    s->sh_cap = nl + nh + 1;
    s->sh = malloc(s->sh_cap * sizeof *s->sh);
    if (!s->cap_bps || !s->lf || !s->start_ps || !s->wire_bits || !s->latency_ps || !s->flow_cap ||
        !s->path_off || !s->hops || !s->path || !s->pos || !s->res || !s->rate || !s->new_rate ||
        !s->rem_bits || !s->t_last || !s->ev_seq || !s->ev_at_ps || !s->due_ps ||
        !s->is_active || !s->link_stamp ||
        !s->n_unfrozen || !s->rem_cap || !s->ub_sum || !s->flow_stamp || !s->frozen_stamp ||
        !s->comp_links || !s->comp_flows || !s->capped || !s->sh ||
        tl_heap_init(&s->heap, 1024, err) != 0) {
        tl_err_nomem(err);
        tl_flowsim_destroy(s);
        return NULL;
    }
    return s;
}

/* A flow can never go faster than its slowest link: fold that into its cap
 * (the "upper bound" that decides which links couple flows, flowsim.c). */
static void finish_caps(tl_flowsim *s)
{
    for (size_t f = 0; f < s->n_flows; f++)
        for (uint32_t k = 0; k < s->hops[f]; k++) {
            double c = s->cap_bps[s->path[s->path_off[f] + k]];
            if (c < s->flow_cap[f])
                s->flow_cap[f] = c;
        }
}

/* Wire bytes, latency and ideal of a flow of size_bytes over hops with the
 * given rates and delays (the ideal FCT formula of docs/results.md split into
 * the bottleneck's transfer of every wire byte and the rest). */
static void flow_terms(tl_flowsim *s, size_t f, const uint64_t *rate, const int64_t *delay,
                       int hops, uint64_t size_bytes, uint32_t mtu, uint32_t hdr)
{
    uint64_t n_pkts = size_bytes / mtu + (size_bytes % mtu != 0);
    uint64_t wire = size_bytes + n_pkts * hdr;
    uint64_t first = (size_bytes < mtu ? size_bytes : mtu) + hdr;
    uint64_t b = UINT64_MAX;
    int64_t lat = 0;
    for (int i = 0; i < hops; i++) {
        lat += delay[i] + tl_tx_time_ps(first, rate[i]);
        if (rate[i] < b)
            b = rate[i];
    }
    s->wire_bits[f] = (double)wire * 8;
    s->latency_ps[f] = lat - tl_tx_time_ps(first, b);
    s->res[f].ideal_ps = tl_ideal_fct_links_ps(rate, delay, hops, size_bytes, mtu, hdr);
    s->res[f].fct_ps = -1;
}

int tl_flowsim_knob_is_read(const char *name)
{
    return !strcmp(name, "nic.mtu_bytes") || !strcmp(name, "nic.header_bytes");
}

tl_flowsim *tl_flowsim_create(const tl_topo *t, const tl_routes *r, const tl_flows *fs,
                              const tl_params *p, tl_err *err)
{
    uint32_t mtu = (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES);
    uint32_t hdr = (uint32_t)tl_knob(p, TL_K_NIC_HEADER_BYTES);
    uint32_t n_links = 2 * tl_topo_n_links(t);
    tl_flowsim *s = alloc_sim(n_links, fs->n, fs->n * (size_t)8, err);
    if (!s)
        return NULL;
    for (uint32_t c = 0; c < n_links; c++)
        s->cap_bps[c] = (double)tl_topo_link(t, tl_chan_link(c))->rate_bps;
    size_t used = 0, cap = fs->n * (size_t)8;
    for (size_t i = 0; i < fs->n; i++) {
        const tl_flow *fw = &fs->v[i];
        if (i && fw->start_ps < fs->v[i - 1].start_ps) {
            tl_err_set(err, TL_EINVAL, "flows must be sorted by start time (flow %zu)", i);
            goto fail;
        }
        if (used + TL_MAX_HOPS > cap) {
            cap *= 2;
            uint32_t *np = realloc(s->path, cap * sizeof *np), *pp = realloc(s->pos, cap * sizeof *pp);
            if (np)
                s->path = np;
            if (pp)
                s->pos = pp;
            if (!np || !pp) {
                tl_err_nomem(err);
                goto fail;
            }
        }
        int h = tl_routes_path(r, fw->id, fw->src, fw->dst, s->path + used, TL_MAX_HOPS, err);
        if (h < 0)
            goto fail;
        uint64_t rate[TL_MAX_HOPS];
        int64_t delay[TL_MAX_HOPS];
        for (int k = 0; k < h; k++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(s->path[used + k]));
            rate[k] = l->rate_bps;
            delay[k] = l->delay_ps;
        }
        s->start_ps[i] = fw->start_ps;
        s->flow_cap[i] = INFINITY; /* host links are real links here */
        s->path_off[i] = (uint32_t)used;
        s->hops[i] = (uint8_t)h;
        flow_terms(s, i, rate, delay, h, fw->size_bytes, mtu, hdr);
        used += (size_t)h;
    }
    if (used + 1 > s->sh_cap - n_links) { /* shares: one per hop plus one per link */
        share_ent *sh = realloc(s->sh, (n_links + used + 1) * sizeof *sh);
        if (!sh) {
            tl_err_nomem(err);
            goto fail;
        }
        s->sh = sh;
        s->sh_cap = n_links + used + 1;
    }
    finish_caps(s);
    return s;
fail:
    tl_flowsim_destroy(s);
    return NULL;
}

tl_flowsim *tl_flowsim_create_path(const tl_fs_link *links, int n_links,
                                   const tl_fs_path_flow *flows, size_t n_flows,
                                   const tl_params *p, tl_err *err)
{
    if (n_links < 1 || n_links > TL_MAX_HOPS - 2) {
        tl_err_set(err, TL_ERANGE, "a path needs 1..%d links, found %d", TL_MAX_HOPS - 2, n_links);
        return NULL;
    }
    uint32_t mtu = (uint32_t)tl_knob(p, TL_K_NIC_MTU_BYTES);
    uint32_t hdr = (uint32_t)tl_knob(p, TL_K_NIC_HEADER_BYTES);
    size_t total = 0;
    for (size_t i = 0; i < n_flows; i++) {
        const tl_fs_path_flow *pf = &flows[i];
        if (pf->first > pf->last || pf->last >= n_links || pf->size_bytes == 0 ||
            (i && pf->start_ps < flows[i - 1].start_ps)) {
            tl_err_set(err, TL_EINVAL,
                       "path flow %zu: expected 0 <= first <= last < %d, size > 0 and sorted "
                       "starts, found first %u, last %u, size %llu",
                       i, n_links, pf->first, pf->last, (unsigned long long)pf->size_bytes);
            return NULL;
        }
        total += (size_t)(pf->last - pf->first + 1);
    }
    tl_flowsim *s = alloc_sim((uint32_t)n_links, n_flows, total, err);
    if (!s)
        return NULL;
    for (int l = 0; l < n_links; l++) {
        if (links[l].rate_bps == 0) {
            tl_err_set(err, TL_ERANGE, "path link %d: rate must be > 0", l);
            tl_flowsim_destroy(s);
            return NULL;
        }
        s->cap_bps[l] = (double)links[l].rate_bps;
    }
    size_t used = 0;
    for (size_t i = 0; i < n_flows; i++) {
        const tl_fs_path_flow *pf = &flows[i];
        uint64_t rate[TL_MAX_HOPS];
        int64_t delay[TL_MAX_HOPS];
        int h = 0;
        double cap = INFINITY;
        if (pf->src.rate_bps) { /* private access links: a hop of the ideal FCT and a cap */
            rate[h] = pf->src.rate_bps;
            delay[h++] = pf->src.delay_ps;
            cap = (double)pf->src.rate_bps;
        }
        s->path_off[i] = (uint32_t)used;
        for (int l = pf->first; l <= pf->last; l++) {
            s->path[used++] = (uint32_t)l;
            rate[h] = links[l].rate_bps;
            delay[h++] = links[l].delay_ps;
        }
        if (pf->dst.rate_bps) {
            rate[h] = pf->dst.rate_bps;
            delay[h++] = pf->dst.delay_ps;
            if ((double)pf->dst.rate_bps < cap)
                cap = (double)pf->dst.rate_bps;
        }
        s->hops[i] = (uint8_t)(pf->last - pf->first + 1);
        s->start_ps[i] = pf->start_ps;
        s->flow_cap[i] = cap;
        flow_terms(s, i, rate, delay, h, pf->size_bytes, mtu, hdr);
    }
    finish_caps(s);
    return s;
}
