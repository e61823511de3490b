/* Path decomposition and sampling (m3.txt §3.2): flows grouped by their
 * recorded path, k paths drawn in proportion to their foreground flows, and
 * each drawn path's workload in path coordinates — foreground flows, and
 * background flows cut into one segment per contiguous stretch they share
 * with the path, each with its own access capacity and delay. */
#include <stdlib.h>
#include <string.h>

#include "m3/m3_int.h"
#include "tailor/rng.h"

void m3_paths_fini(m3_paths *g)
{
    tl_flow_paths_fini(&g->fp);
    free(g->rep), free(g->n_fg), free(g->rec);
    memset(g, 0, sizeof *g);
}

static uint64_t hash_path(const uint32_t *c, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t k = 0; k < n; k++)
        h = tl_mix64(h ^ c[k]);
    return h;
}

int m3_paths_build(m3_paths *g, const tl_routes *r, const tl_flows *f, uint32_t mtu_bytes,
                   tl_err *err)
{
    memset(g, 0, sizeof *g);
    int rc = tl_fabric_ref_of(tl_routes_topo(r), mtu_bytes, &g->fabric, err);
    rc = rc ? rc : tl_flow_paths_build(&g->fp, r, f, err);
    if (rc)
        return rc;
    size_t n = f->n, cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    /* open addressing: slot -> path id + 1 */
    uint32_t *slot = calloc(cap, sizeof *slot);
    uint64_t *slot_hash = malloc(cap * sizeof *slot_hash);
    g->rep = malloc((n + 1) * sizeof *g->rep);
    g->n_fg = malloc((n + 1) * sizeof *g->n_fg);
    g->rec = aligned_alloc(64, ((n + 2) / 2) * 2 * sizeof *g->rec);
    if (!slot || !slot_hash || !g->rep || !g->n_fg || !g->rec) {
        free(slot), free(slot_hash);
        m3_paths_fini(g);
        return tl_err_nomem(err);
    }
    const tl_flow_paths *fp = &g->fp;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *c = fp->path + fp->path_off[i];
        uint32_t len = fp->path_off[i + 1] - fp->path_off[i];
        uint64_t h = hash_path(c, len);
        size_t s = (size_t)h & (cap - 1);
        for (;; s = (s + 1) & (cap - 1)) {
            if (!slot[s]) { /* a new path, in first-flow order: ids are deterministic */
                slot[s] = g->n_paths + 1;
                slot_hash[s] = h;
                g->rep[g->n_paths] = (uint32_t)i;
                g->n_fg[g->n_paths] = 0;
                g->n_paths++;
                break;
            }
            if (slot_hash[s] != h)
                continue;
            uint32_t o = g->rep[slot[s] - 1];
            uint32_t olen = fp->path_off[o + 1] - fp->path_off[o];
            if (olen == len && !memcmp(fp->path + fp->path_off[o], c, len * sizeof *c))
                break;
        }
        g->n_fg[slot[s] - 1]++;
        g->rec[i] = (m3_flowrec){f->v[i].size_bytes, f->v[i].start_ps, slot[s] - 1,
                                 fp->path_off[i], len, 0};
    }
    free(slot), free(slot_hash);
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int m3_paths_sample(const m3_paths *g, uint32_t k, uint64_t seed, uint32_t **ids,
                    uint32_t **draws, uint32_t *n_unique, tl_err *err)
{
    *ids = *draws = NULL;
    *n_unique = 0;
    if (!g->fp.n_flows)
        return 0;
    uint32_t *pick = malloc(((size_t)k + 1) * sizeof *pick);
    if (!pick)
        return tl_err_nomem(err);
    /* A uniformly drawn flow's path is a path drawn in proportion to its
     * foreground flows. */
    tl_rng r;
    tl_rng_init(&r, seed, "m3-paths", 0);
    for (uint32_t d = 0; d < k; d++)
        pick[d] = g->rec[tl_rng_below(&r, g->fp.n_flows)].path_of;
    qsort(pick, k, sizeof *pick, cmp_u32);
    uint32_t *cnt = malloc(((size_t)k + 1) * sizeof *cnt);
    if (!cnt) {
        free(pick);
        return tl_err_nomem(err);
    }
    uint32_t u = 0;
    for (uint32_t d = 0; d < k; d++) {
        if (u && pick[u - 1] == pick[d]) {
            cnt[u - 1]++;
            continue;
        }
        pick[u] = pick[d];
        cnt[u++] = 1;
    }
    *ids = pick, *draws = cnt, *n_unique = u;
    return 0;
}

/* How many flows ahead of the merge their records are fetched. */
#define PREFETCH 16

/* Adds flow i's stretches along path P to w; at[c] is channel c's
 * position on P plus one (0: not on P). */
static int add_segments(m3_pathwl *w, const tl_topo *t, const m3_paths *g, size_t i,
                        uint32_t pid, const uint8_t *at, tl_err *err)
{
    const m3_flowrec *fr = &g->rec[i];
    const uint32_t *c = g->fp.path + fr->path_off;
    int h = (int)fr->hops;
    int pos[TL_MAX_HOPS];
    for (int k = 0; k < h; k++)
        pos[k] = (int)at[c[k]] - 1;
    int is_fg = fr->path_of == pid;
    for (int k = 0; k < h;) {
        if (pos[k] < 0) {
            k++;
            continue;
        }
        int e = k; /* the stretch k..e follows the path link by link */
        while (e + 1 < h && pos[e + 1] == pos[e] + 1)
            e++;
        tl_fs_path_flow pf = {.size_bytes = fr->size_bytes,
                              .start_ps = fr->start_ps,
                              .first = (uint16_t)pos[k],
                              .last = (uint16_t)pos[e]};
        /* Access links: the flow's own hops before and after the stretch,
         * as one hop of their slowest rate and summed delay. */
        for (int side = 0; side < 2 && !is_fg; side++) {
            int a = side ? e + 1 : 0, b = side ? h : k;
            if (a >= b)
                continue;
            uint64_t rate = UINT64_MAX;
            int64_t delay = 0;
            for (int q = a; q < b; q++) {
                const tl_link *l = tl_topo_link(t, tl_chan_link(c[q]));
                rate = l->rate_bps < rate ? l->rate_bps : rate;
                delay += l->delay_ps;
            }
            *(side ? &pf.dst : &pf.src) = (tl_fs_link){rate, delay};
        }
        int rc = m3_pathwl_add(w, &pf, is_fg, 0, 0, err);
        if (rc)
            return rc;
        k = e + 1;
    }
    return 0;
}

int m3_paths_workload(const m3_paths *g, const tl_topo *t, uint32_t pid, m3_pathwl *w,
                      tl_err *err)
{
    const tl_flow_paths *fp = &g->fp;
    uint32_t o = g->rep[pid];
    const uint32_t *pc = fp->path + fp->path_off[o];
    int np = (int)(fp->path_off[o + 1] - fp->path_off[o]);
    /* A flow's stretches cover disjoint channels of the path, so the
     * channels' flow counts bound the segments: one allocation, no growth. */
    size_t most = 0;
    for (int q = 0; q < np; q++)
        most += fp->chan_off[pc[q] + 1] - fp->chan_off[pc[q]];
    int rc = m3_pathwl_init(w, np, 0, err);
    w->fabric = g->fabric;
    rc = rc ? rc : m3_pathwl_reserve(w, most, err);
    /* where each channel sits on the path: a lookup per hop of a flow
     * instead of a scan of the path (a third of the build's instructions) */
    uint8_t *pos_of = rc ? NULL : calloc(2 * (size_t)tl_topo_n_links(t), 1);
    if (!rc && !pos_of)
        rc = tl_err_nomem(err);
    if (rc) {
        m3_pathwl_fini(w);
        return rc;
    }
    for (int q = 0; q < np; q++)
        pos_of[pc[q]] = (uint8_t)(q + 1);
    for (int q = 0; q < np; q++) {
        const tl_link *l = tl_topo_link(t, tl_chan_link(pc[q]));
        w->link[q] = (tl_fs_link){l->rate_bps, l->delay_ps};
    }
    /* The path's flows: a merge of its channels' flow lists, each in flow
     * (start) order, so each flow comes once, the flows and their paths are
     * read in memory order, and the workload is built in start order. */
    uint32_t at[TL_MAX_HOPS], end[TL_MAX_HOPS];
    for (int q = 0; q < np; q++)
        at[q] = fp->chan_off[pc[q]], end[q] = fp->chan_off[pc[q] + 1];
    for (;;) {
        uint32_t i = UINT32_MAX;
        for (int q = 0; q < np; q++)
            if (at[q] < end[q] && fp->chan_flows[at[q]] < i)
                i = fp->chan_flows[at[q]];
        if (i == UINT32_MAX || rc)
            break;
        for (int q = 0; q < np; q++) {
            at[q] += at[q] < end[q] && fp->chan_flows[at[q]] == i;
            /* The flows are a sparse subset of all flows: each record and
             * path is a cache miss unless asked for ahead (measured: 85% of
             * the workload build, the build a third of a 2M-flow run). */
            if (at[q] + PREFETCH < end[q]) {
                __builtin_prefetch(&g->rec[fp->chan_flows[at[q] + PREFETCH]]);
                /* its path once the record is in (fetched PREFETCH / 2 ago) */
                uint32_t ahead = fp->chan_flows[at[q] + PREFETCH / 2];
                __builtin_prefetch(&fp->path[g->rec[ahead].path_off]);
            }
        }
        rc = add_segments(w, t, g, i, pid, pos_of, err);
    }
    free(pos_of);
    rc = rc ? rc : m3_pathwl_sort(w, err);
    if (rc)
        m3_pathwl_fini(w);
    return rc;
}
