/* Spatial patterns: who sends to whom (parsimon.txt §5.1 matrices; uniform,
 * permutation, incast, all-to-all; uno.txt §5.1 intra/inter-DC mix). */
#include "workload_int.h"

#include <stdlib.h>
#include <string.h>

void spatial_fini(spatial_sampler *s)
{
    if (!s)
        return;
    free(s->cum);
    free(s->cell_src);
    free(s->cell_dst);
    free(s->perm);
    free(s->senders);
    if (s->dc_hosts)
        for (uint32_t d = 0; d < s->n_dcs; d++)
            free(s->dc_hosts[d]);
    free(s->dc_hosts);
    free(s->dc_n);
    memset(s, 0, sizeof *s);
}

static void shuffle_u32(uint32_t *a, uint32_t n, tl_rng *r)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)tl_rng_below(r, i);
        uint32_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static int init_matrix(spatial_sampler *s, const tl_matrix *m, const tl_topo *t, tl_rng *r,
                       tl_err *err)
{
    uint32_t t_pods = tl_topo_n_pods(t);
    if (m->n_pods > t_pods)
        return tl_err_set(err, TL_EINVAL,
                          "matrix '%s' has %u pods but the topology has only %u: the matrix is "
                          "larger than the topology",
                          m->name, m->n_pods, t_pods);
    uint32_t *map = malloc((size_t)m->n_racks * sizeof *map); /* matrix rack -> topology rack */
    if (!map)
        return tl_err_nomem(err);
    for (uint32_t p = 0; p < m->n_pods; p++) {
        uint32_t n_tr, need = 0;
        const uint32_t *tr = tl_topo_pod_racks(t, p, &n_tr);
        for (uint32_t k = 0; k < m->n_racks; k++)
            need += m->pod_of[k] == p;
        if (need > n_tr) {
            free(map);
            return tl_err_set(err, TL_EINVAL,
                              "matrix '%s' pod %u has %u racks but topology pod %u has only %u: "
                              "the matrix is larger than the topology",
                              m->name, p, need, p, n_tr);
        }
        uint32_t *order = malloc(((size_t)n_tr + 1) * sizeof *order);
        if (!order) {
            free(map);
            return tl_err_nomem(err);
        }
        memcpy(order, tr, (size_t)n_tr * sizeof *order);
        shuffle_u32(order, n_tr, r);
        uint32_t next = 0;
        for (uint32_t k = 0; k < m->n_racks; k++)
            if (m->pod_of[k] == p)
                map[k] = order[next++];
        free(order);
    }
    size_t n = (size_t)m->n_racks * m->n_racks, cells = 0;
    for (size_t i = 0; i < n; i++)
        cells += m->w[i] > 0;
    s->cum = malloc((cells + 1) * sizeof *s->cum);
    s->cell_src = malloc((cells + 1) * sizeof *s->cell_src);
    s->cell_dst = malloc((cells + 1) * sizeof *s->cell_dst);
    if (!s->cum || !s->cell_src || !s->cell_dst) {
        free(map);
        return tl_err_nomem(err);
    }
    double acc = 0;
    for (uint32_t a = 0; a < m->n_racks; a++)
        for (uint32_t b = 0; b < m->n_racks; b++) {
            double w = m->w[(size_t)a * m->n_racks + b];
            if (!(w > 0))
                continue;
            uint32_t na;
            tl_topo_rack_hosts(t, map[a], &na);
            if (a == b && na < 2)
                continue; /* intra-rack traffic needs two hosts */
            acc += w;
            s->cum[s->n_cells] = acc;
            s->cell_src[s->n_cells] = map[a];
            s->cell_dst[s->n_cells] = map[b];
            s->n_cells++;
        }
    free(map);
    if (s->n_cells == 0)
        return tl_err_set(err, TL_EINVAL, "matrix '%s' has no traffic between usable racks",
                          m->name);
    return 0;
}

static int init_dcs(spatial_sampler *s, const tl_topo *t, tl_err *err)
{
    s->n_dcs = tl_topo_n_dcs(t);
    s->dc_hosts = calloc(s->n_dcs, sizeof *s->dc_hosts);
    s->dc_n = calloc(s->n_dcs, sizeof *s->dc_n);
    if (!s->dc_hosts || !s->dc_n)
        return tl_err_nomem(err);
    for (uint32_t d = 0; d < s->n_dcs; d++) {
        s->dc_hosts[d] = malloc((size_t)s->n_hosts * sizeof **s->dc_hosts);
        if (!s->dc_hosts[d])
            return tl_err_nomem(err);
    }
    for (uint32_t i = 0; i < s->n_hosts; i++) {
        uint32_t d = (uint32_t)tl_topo_node(t, s->hosts[i])->dc;
        s->dc_hosts[d][s->dc_n[d]++] = s->hosts[i];
    }
    for (uint32_t d = 0; d < s->n_dcs; d++)
        if (s->dc_n[d] < 2)
            return tl_err_set(err, TL_EINVAL, "data center %u has fewer than 2 hosts", d);
    if (s->n_dcs < 2 && s->intra_frac < 1)
        return tl_err_set(err, TL_EINVAL,
                          "an intra/inter-DC mix with intra fraction %g needs a topology with "
                          "several data centers; this one has 1",
                          s->intra_frac);
    return 0;
}

int spatial_init(spatial_sampler *s, const tl_spatial_spec *spec, const tl_topo *t, uint64_t seed,
                 uint64_t stream, tl_err *err)
{
    memset(s, 0, sizeof *s);
    s->kind = spec->kind;
    s->topo = t;
    s->hosts = tl_topo_hosts(t);
    s->n_hosts = tl_topo_n_hosts(t);
    s->intra_frac = spec->intra_frac;
    if (s->n_hosts < 2)
        return tl_err_set(err, TL_EINVAL, "the topology needs at least 2 hosts for traffic");
    tl_rng r;
    tl_rng_init(&r, seed, "spatial", stream);
    int rc = 0;
    switch (spec->kind) {
    case TL_SPATIAL_UNIFORM:
    case TL_SPATIAL_ALL_TO_ALL:
        break;
    case TL_SPATIAL_MATRIX:
        rc = init_matrix(s, &spec->matrix, t, &r, err);
        break;
    case TL_SPATIAL_PERMUTATION: {
        /* Sattolo's shuffle yields one cycle through all hosts: a derangement. */
        s->perm = malloc((size_t)s->n_hosts * sizeof *s->perm);
        if (!s->perm)
            return tl_err_nomem(err);
        for (uint32_t i = 0; i < s->n_hosts; i++)
            s->perm[i] = i;
        for (uint32_t i = s->n_hosts - 1; i > 0; i--) {
            uint32_t j = (uint32_t)tl_rng_below(&r, i);
            uint32_t tmp = s->perm[i];
            s->perm[i] = s->perm[j];
            s->perm[j] = tmp;
        }
        break;
    }
    case TL_SPATIAL_INCAST: {
        uint32_t dst_idx = UINT32_MAX;
        if (spec->incast_dst >= 0) {
            for (uint32_t i = 0; i < s->n_hosts; i++)
                if (s->hosts[i] == (uint64_t)spec->incast_dst)
                    dst_idx = i;
            if (dst_idx == UINT32_MAX)
                return tl_err_set(err, TL_ERANGE, "incast destination %lld is not a host",
                                  (long long)spec->incast_dst);
        } else {
            dst_idx = (uint32_t)tl_rng_below(&r, s->n_hosts);
        }
        if (spec->n_senders < 1 || spec->n_senders > s->n_hosts - 1)
            return tl_err_set(err, TL_ERANGE, "incast needs 1..%u senders, found %u",
                              s->n_hosts - 1, spec->n_senders);
        uint32_t *idx = malloc((size_t)s->n_hosts * sizeof *idx);
        s->senders = malloc((size_t)spec->n_senders * sizeof *s->senders);
        if (!idx || !s->senders) {
            free(idx);
            return tl_err_nomem(err);
        }
        uint32_t m = 0;
        for (uint32_t i = 0; i < s->n_hosts; i++)
            if (i != dst_idx)
                idx[m++] = i;
        for (uint32_t i = 0; i < spec->n_senders; i++) { /* partial Fisher-Yates */
            uint32_t j = i + (uint32_t)tl_rng_below(&r, m - i);
            uint32_t tmp = idx[i];
            idx[i] = idx[j];
            idx[j] = tmp;
            s->senders[i] = s->hosts[idx[i]];
        }
        free(idx);
        s->n_senders = spec->n_senders;
        s->incast_dst = s->hosts[dst_idx];
        break;
    }
    case TL_SPATIAL_DC_MIX:
        rc = init_dcs(s, t, err);
        break;
    }
    if (rc)
        spatial_fini(s);
    return rc;
}

static uint32_t pick_other(const uint32_t *hosts, uint32_t n, uint32_t avoid_node, tl_rng *r)
{
    for (;;) {
        uint32_t h = hosts[tl_rng_below(r, n)];
        if (h != avoid_node)
            return h;
    }
}

void spatial_pair(const spatial_sampler *s, tl_rng *r, uint64_t seq, uint32_t *src, uint32_t *dst)
{
    uint32_t n = s->n_hosts;
    switch (s->kind) {
    case TL_SPATIAL_UNIFORM: {
        uint32_t a = (uint32_t)tl_rng_below(r, n);
        uint32_t b = (uint32_t)tl_rng_below(r, n - 1);
        *src = s->hosts[a];
        *dst = s->hosts[b >= a ? b + 1 : b];
        return;
    }
    case TL_SPATIAL_MATRIX: {
        double u = tl_rng_uniform(r) * s->cum[s->n_cells - 1];
        size_t lo = 0, hi = s->n_cells - 1; /* first cell with cum > u */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s->cum[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        uint32_t na, nb;
        const uint32_t *ha = tl_topo_rack_hosts(s->topo, s->cell_src[lo], &na);
        const uint32_t *hb = tl_topo_rack_hosts(s->topo, s->cell_dst[lo], &nb);
        *src = ha[tl_rng_below(r, na)];
        *dst = pick_other(hb, nb, *src, r);
        return;
    }
    case TL_SPATIAL_PERMUTATION: {
        uint32_t i = (uint32_t)(seq % n);
        *src = s->hosts[i];
        *dst = s->hosts[s->perm[i]];
        return;
    }
    case TL_SPATIAL_INCAST:
        *src = s->senders[seq % s->n_senders];
        *dst = s->incast_dst;
        return;
    case TL_SPATIAL_ALL_TO_ALL: {
        uint64_t p = seq % ((uint64_t)n * (n - 1));
        uint32_t a = (uint32_t)(p / (n - 1)), b = (uint32_t)(p % (n - 1));
        *src = s->hosts[a];
        *dst = s->hosts[b >= a ? b + 1 : b];
        return;
    }
    case TL_SPATIAL_DC_MIX: {
        *src = s->hosts[tl_rng_below(r, n)];
        uint32_t d = (uint32_t)tl_topo_node(s->topo, *src)->dc;
        if (s->n_dcs < 2 || tl_rng_uniform(r) < s->intra_frac) {
            *dst = pick_other(s->dc_hosts[d], s->dc_n[d], *src, r);
        } else {
            uint32_t o = (uint32_t)tl_rng_below(r, s->n_dcs - 1);
            if (o >= d)
                o++;
            *dst = s->dc_hosts[o][tl_rng_below(r, s->dc_n[o])];
        }
        return;
    }
    }
}
