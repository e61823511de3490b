/* Fat-tree and leaf-spine generators. The k-ary fat tree is Al-Fares et al.'s
 * (SIGCOMM'08), the intra-DC topology of Uno's evaluation (uno.txt §5.1: k=8, 100 Gb/s,
 * 1 us links); leaf-spine is the two-tier Clos of PARALEON's setup (paraleon.txt §5).
 * tl_topo_add_fattree is shared with the two-data-center generator (gen_misc.c). */
#include "topo_int.h"
#include "tailor/memlimit.h"

#include <stdio.h>

/* Defaults for a rate or delay given as 0: Uno's fat tree (htsim -linkspeed 100000
 * -hop_latency 1000). */
#define DEFAULT_BPS 100000000000ull
#define DEFAULT_DELAY_PS 1000000

/* Returns its error code, so callers can write `return fail_code(err)` after a
 * builder call that already filled err. */
static int fail_code(const tl_err *err) { return err && err->code ? err->code : TL_ENOMEM; }

/* Node ids inside one fat tree, relative to its first node, with h = k/2:
 *   host i of edge e of pod p     (p*h + e)*hosts_per_edge + i
 *   edge switch e of pod p        n_hosts + p*h + e
 *   aggregation switch a of pod p n_hosts + k*h + p*h + a
 *   core switch j of group g      n_hosts + 2*k*h + g*h + j
 * Core g*h+j links to aggregation switch g of every pod (Al-Fares §3.3: the k/2
 * up-ports of aggregation switch g reach cores g*h .. g*h+h-1).
 * Links: host links in host order, then edge-aggregation (pod, edge, agg), then
 * aggregation-core (group, member, pod). */
int tl_topo_add_fattree(tl_topo *t, const tl_fattree_params *p, int pod_base, int rack_base, int dc,
                        uint32_t *first_core_id, tl_err *err)
{
    uint32_t k = p->k, hpe = p->hosts_per_edge;
    if (k < 2 || k % 2 != 0)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "k", "expected an even number >= 2, found %u",
                         k);
    int rc = tl_topo_require_count("hosts_per_edge", hpe, err);
    if (rc || (rc = tl_topo_require_delay("delay_ps", p->delay_ps, err)))
        return rc;
    uint32_t h = k / 2;
    uint64_t n_edges = (uint64_t)k * h, n_cores = (uint64_t)h * h;
    uint64_t n_hosts = tl_sat_mul(n_edges, hpe);
    uint64_t n_nodes = tl_sat_add(tl_sat_add(n_hosts, tl_sat_mul(2, n_edges)), n_cores);
    /* h*h edge-aggregation links in each of k pods, and k links per core */
    uint64_t n_links = tl_sat_add(n_hosts, tl_sat_mul(tl_sat_mul(2, k), n_cores));
    if ((rc = tl_topo_check_count(tl_sat_add(n_nodes, t->n_nodes), tl_sat_add(n_links, t->n_links),
                                  err)))
        return rc;

    uint32_t base = t->n_nodes;
    uint32_t edge0 = base + (uint32_t)n_hosts;
    uint32_t agg0 = edge0 + (uint32_t)n_edges;
    uint32_t core0 = agg0 + (uint32_t)n_edges;
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t e = 0; e < h; e++)
            for (uint32_t i = 0; i < hpe; i++)
                if (tl_topo_add_node(t, TL_NODE_HOST, 0, pod_base + (int)pod,
                                     rack_base + (int)(pod * h + e), dc, err) < 0)
                    return fail_code(err);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t e = 0; e < h; e++)
            if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, pod_base + (int)pod,
                                 rack_base + (int)(pod * h + e), dc, err) < 0)
                return fail_code(err);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t a = 0; a < h; a++)
            if (tl_topo_add_node(t, TL_NODE_SWITCH, 2, pod_base + (int)pod, -1, dc, err) < 0)
                return fail_code(err);
    for (uint64_t c = 0; c < n_cores; c++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 3, -1, -1, dc, err) < 0)
            return fail_code(err);

    for (uint32_t e = 0; e < n_edges; e++)
        for (uint32_t i = 0; i < hpe; i++)
            if (tl_topo_add_link(t, base + e * hpe + i, edge0 + e, p->host_bps, p->delay_ps, err) <
                0)
                return fail_code(err);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t e = 0; e < h; e++)
            for (uint32_t a = 0; a < h; a++)
                if (tl_topo_add_link(t, edge0 + pod * h + e, agg0 + pod * h + a, p->fabric_bps,
                                     p->delay_ps, err) < 0)
                    return fail_code(err);
    for (uint32_t g = 0; g < h; g++)
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t pod = 0; pod < k; pod++)
                if (tl_topo_add_link(t, agg0 + pod * h + g, core0 + g * h + j, p->fabric_bps,
                                     p->delay_ps, err) < 0)
                    return fail_code(err);
    if (first_core_id)
        *first_core_id = core0;
    return 0;
}

tl_topo *tl_topo_fattree(const tl_fattree_params *p, tl_err *err)
{
    tl_fattree_params q = *p;
    if (q.hosts_per_edge == 0)
        q.hosts_per_edge = q.k / 2;
    if (q.host_bps == 0)
        q.host_bps = DEFAULT_BPS;
    if (q.fabric_bps == 0)
        q.fabric_bps = DEFAULT_BPS;
    if (q.delay_ps == 0)
        q.delay_ps = DEFAULT_DELAY_PS;
    /* k^2/2 edge switches with their hosts, k^2 aggregation and core
     * switches, k^3/2 fabric links: sized before anything is built. */
    double k = q.k, hosts = k * k / 2 * q.hosts_per_edge, links = hosts + k * k * k / 2;
    char what[96];
    snprintf(what, sizeof what, "a fat tree with k=%u (%.3g hosts, %.3g links)", q.k, hosts, links);
    if (tl_mem_check((hosts + 1.25 * k * k) * 4 * sizeof(tl_node) + links * 4 * sizeof(tl_link),
                     what, err))
        return NULL;
    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    if (tl_topo_add_fattree(t, &q, 0, 0, 0, NULL, err) || tl_topo_finish(t, err)) {
        tl_topo_destroy(t);
        return NULL;
    }
    return t;
}

/* Node order: hosts (leaf-major), leaves, spines. Leaf l is rack l; hosts and
 * leaves are pod 0, spines have no pod. Links: host links, then leaf-major
 * leaf-spine links. */
tl_topo *tl_topo_leafspine(const tl_leafspine_params *p, tl_err *err)
{
    if (tl_topo_require_count("leaves", p->leaves, err) ||
        tl_topo_require_count("spines", p->spines, err) ||
        tl_topo_require_count("hosts_per_leaf", p->hosts_per_leaf, err) ||
        tl_topo_require_delay("delay_ps", p->delay_ps, err))
        return NULL;
    uint64_t host_bps = p->host_bps ? p->host_bps : DEFAULT_BPS;
    uint64_t fabric_bps = p->fabric_bps ? p->fabric_bps : DEFAULT_BPS;
    int64_t delay_ps = p->delay_ps ? p->delay_ps : DEFAULT_DELAY_PS;
    uint64_t n_hosts = tl_sat_mul(p->leaves, p->hosts_per_leaf);
    uint64_t n_nodes = tl_sat_add(n_hosts, (uint64_t)p->leaves + p->spines);
    uint64_t n_links = tl_sat_add(n_hosts, tl_sat_mul(p->leaves, p->spines));
    if (tl_topo_check_count(n_nodes, n_links, err))
        return NULL;

    tl_topo *t = tl_topo_create(err);
    if (!t)
        return NULL;
    uint32_t leaf0 = (uint32_t)n_hosts, spine0 = leaf0 + p->leaves;
    for (uint32_t l = 0; l < p->leaves; l++)
        for (uint32_t i = 0; i < p->hosts_per_leaf; i++)
            if (tl_topo_add_node(t, TL_NODE_HOST, 0, 0, (int)l, 0, err) < 0)
                goto fail;
    for (uint32_t l = 0; l < p->leaves; l++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, 0, (int)l, 0, err) < 0)
            goto fail;
    for (uint32_t s = 0; s < p->spines; s++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 2, -1, -1, 0, err) < 0)
            goto fail;
    for (uint32_t l = 0; l < p->leaves; l++)
        for (uint32_t i = 0; i < p->hosts_per_leaf; i++)
            if (tl_topo_add_link(t, l * p->hosts_per_leaf + i, leaf0 + l, host_bps, delay_ps, err) <
                0)
                goto fail;
    for (uint32_t l = 0; l < p->leaves; l++)
        for (uint32_t s = 0; s < p->spines; s++)
            if (tl_topo_add_link(t, leaf0 + l, spine0 + s, fabric_bps, delay_ps, err) < 0)
                goto fail;
    if (tl_topo_finish(t, err))
        goto fail;
    return t;
fail:
    tl_topo_destroy(t);
    return NULL;
}
