/* The fabric-wide references some congestion controls size themselves by,
 * computed the way the ns-3 HPCC fork's third.cc does (maxRtt, maxBdp): for
 * every pair of hosts, the round trip of the shortest-hop path is twice its
 * propagation delay plus one MTU payload's serialization at every hop, and
 * its BDP is that round trip times the path's slowest link; the references
 * are the largest over all pairs. HPCC's T and dctcp-rate's window are these
 * (docs/congestion-control.md), so flows on short and long paths share one T.
 *
 * Pairs are not enumerated: hop distances are measured once from every
 * switch a host hangs off (a BFS over switches, hosts are never transit),
 * and the host links at both ends are added to the switch-to-switch part.
 * Among the shortest-hop paths between two switches the slowest one counts,
 * which is what ECMP may pick. */
#include <stdlib.h>
#include <string.h>

#include "tailor/pktsim.h"

uint64_t tl_pktsim_buffer_bytes(const tl_params *p, uint64_t nic_bps)
{
    uint64_t b = (uint64_t)tl_knob(p, TL_K_SW_BUFFER_BYTES);
    if (b)
        return b;
    uint64_t mib = (uint64_t)((double)nic_bps * 16 / 50e9);
    return (mib ? mib : 1) << 20;
}

/* The part of one hop that enters the reference round trip (ps). */
static int64_t hop_ps(const tl_link *l, uint32_t mtu_bytes)
{
    return 2 * l->delay_ps + (int64_t)((double)mtu_bytes * 8e12 / (double)l->rate_bps);
}

typedef struct attach {
    uint32_t sw;    /* the switch */
    int64_t cost;   /* the host link's hop_ps */
    uint64_t rate;  /* the host link's rate */
    uint32_t host;
} attach;

static int by_switch(const void *a, const void *b)
{
    const attach *x = a, *y = b;
    return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* Keeps the pair (rtt, rate) if it is the largest round trip or BDP so far. */
static void consider(tl_fabric_ref *o, int64_t rtt, uint64_t rate)
{
    if (rtt > o->rtt_ps)
        o->rtt_ps = rtt;
    uint64_t bdp = (uint64_t)((double)rtt * 1e-12 * (double)rate / 8);
    if (bdp > o->bdp_bytes)
        o->bdp_bytes = bdp;
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

int tl_fabric_ref_of(const tl_topo *t, uint32_t mtu_bytes, tl_fabric_ref *o, tl_err *err)
{
    memset(o, 0, sizeof *o);
    uint32_t n_nodes = tl_topo_n_nodes(t), n_hosts = tl_topo_n_hosts(t);
    const uint32_t *hosts = tl_topo_hosts(t);
    size_t n_att = 0;
    for (uint32_t i = 0; i < n_hosts; i++) {
        uint32_t nc;
        tl_topo_out_chans(t, hosts[i], &nc);
        n_att += nc;
    }
    attach *att = malloc((n_att ? n_att : 1) * sizeof *att);
    uint32_t *dist = malloc((size_t)n_nodes * sizeof *dist);
    int64_t *cost = malloc((size_t)n_nodes * sizeof *cost);
    uint64_t *rate = malloc((size_t)n_nodes * sizeof *rate);
    uint32_t *queue = malloc((size_t)n_nodes * sizeof *queue);
    if (!att || !dist || !cost || !rate || !queue) {
        free(att), free(dist), free(cost), free(rate), free(queue);
        return tl_err_nomem(err);
    }
    n_att = 0;
    for (uint32_t i = 0; i < n_hosts; i++) {
        uint32_t nc;
        const uint32_t *ch = tl_topo_out_chans(t, hosts[i], &nc);
        for (uint32_t c = 0; c < nc; c++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(ch[c]));
            uint32_t to = tl_topo_chan_to(t, ch[c]);
            if (l->is_failed || tl_topo_node(t, to)->kind != TL_NODE_SWITCH)
                continue;
            if (l->rate_bps > o->nic_bps)
                o->nic_bps = l->rate_bps;
            att[n_att++] = (attach){to, hop_ps(l, mtu_bytes), l->rate_bps, hosts[i]};
        }
    }
    qsort(att, n_att, sizeof *att, by_switch);
    for (size_t a0 = 0; a0 < n_att;) {
        size_t a1 = a0;
        while (a1 < n_att && att[a1].sw == att[a0].sw)
            a1++;
        /* BFS from this switch: hop distance, and over the shortest-hop
         * paths the largest cost with its path's slowest link */
        for (uint32_t v = 0; v < n_nodes; v++)
            dist[v] = UINT32_MAX;
        uint32_t head = 0, tail = 0, s = att[a0].sw;
        dist[s] = 0, cost[s] = 0, rate[s] = UINT64_MAX;
        queue[tail++] = s;
        while (head < tail) {
            uint32_t u = queue[head++], nc;
            const uint32_t *ch = tl_topo_out_chans(t, u, &nc);
            for (uint32_t c = 0; c < nc; c++) {
                const tl_link *l = tl_topo_link(t, tl_chan_link(ch[c]));
                uint32_t v = tl_topo_chan_to(t, ch[c]);
                if (l->is_failed || tl_topo_node(t, v)->kind != TL_NODE_SWITCH)
                    continue;
                int64_t cv = cost[u] + hop_ps(l, mtu_bytes);
                uint64_t rv = min_u64(rate[u], l->rate_bps);
                if (dist[v] == UINT32_MAX) {
                    dist[v] = dist[u] + 1, cost[v] = cv, rate[v] = rv;
                    queue[tail++] = v;
                } else if (dist[v] == dist[u] + 1 && cv > cost[v]) {
                    cost[v] = cv, rate[v] = rv;
                }
            }
        }
        /* every source host at this switch to every reachable destination
         * host; sources with the same host link count once (a host is no
         * pair with itself, unless another host has the same link) */
        for (size_t i = a0; i < a1; i++) {
            const attach *src = &att[i];
            int is_twin = 0, is_seen = 0;
            for (size_t k = a0; k < a1; k++)
                if (k != i && att[k].cost == src->cost && att[k].rate == src->rate)
                    is_twin = 1, is_seen |= k < i;
            if (is_seen)
                continue;
            for (size_t j = 0; j < n_att; j++) {
                const attach *dst = &att[j];
                if ((dst->host == src->host && !is_twin) || dist[dst->sw] == UINT32_MAX)
                    continue;
                int64_t rtt = src->cost + cost[dst->sw] + dst->cost;
                consider(o, rtt, min_u64(min_u64(src->rate, dst->rate), rate[dst->sw]));
            }
        }
        a0 = a1;
    }
    free(att), free(dist), free(cost), free(rate), free(queue);
    return 0;
}
