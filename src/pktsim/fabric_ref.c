/* The fabric-wide references some congestion controls size themselves by,
 * computed the way the ns-3 HPCC fork's third.cc does (maxRtt, maxBdp): for
 * every pair of hosts, the round trip of the shortest-hop path is twice its
 * propagation delay plus one MTU payload's serialization at every hop, and
 * its BDP is that round trip times the path's slowest link; the references
 * are the largest over all pairs (and, for Uno's epochs and K, over the pairs
 * within one data center). HPCC's T and dctcp-rate's window are these
 * (docs/congestion-control.md), so flows on short and long paths share one T.
 *
 * Hop distances are measured by a BFS over switches (hosts are never
 * transit, as in routing), once per switch that single-homed hosts hang
 * off, with their host links added at both ends, and once per multi-homed
 * host from all its switches at once. A destination counts through those of
 * its switches at the fewest hops; among the shortest-hop paths the slowest
 * one counts, which is what ECMP may pick. */
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

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

typedef struct attach {
    uint32_t host, sw;
    int64_t cost;  /* the host link's hop_ps */
    uint64_t rate; /* the host link's rate */
} attach;

static int by_host(const void *a, const void *b)
{
    const attach *x = a, *y = b;
    return x->host != y->host ? (x->host < y->host ? -1 : 1) : (x->sw > y->sw) - (x->sw < y->sw);
}

typedef struct bfs {
    uint32_t *dist, *queue;
    int64_t *cost;  /* the largest over shortest-hop paths */
    uint64_t *rate; /* that path's slowest link */
} bfs;

/* From the n attachments at, each a start at distance 0 (with its host
 * link's cost and rate when with_link). */
static void run_bfs(const tl_topo *t, uint32_t mtu, const attach *at, size_t n, int with_link,
                    bfs *b)
{
    uint32_t n_nodes = tl_topo_n_nodes(t), head = 0, tail = 0;
    for (uint32_t v = 0; v < n_nodes; v++)
        b->dist[v] = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = at[i].sw;
        int64_t c = with_link ? at[i].cost : 0;
        uint64_t r = with_link ? at[i].rate : UINT64_MAX;
        if (b->dist[s] == UINT32_MAX)
            b->queue[tail++] = s, b->cost[s] = c, b->rate[s] = r;
        else if (c > b->cost[s])
            b->cost[s] = c, b->rate[s] = r;
        b->dist[s] = 0;
    }
    while (head < tail) {
        uint32_t u = b->queue[head++], nc;
        const uint32_t *ch = tl_topo_out_chans(t, u, &nc);
        for (uint32_t k = 0; k < nc; k++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(ch[k]));
            uint32_t v = tl_topo_chan_to(t, ch[k]);
            if (l->is_failed || tl_topo_node(t, v)->kind != TL_NODE_SWITCH)
                continue;
            int64_t cv = b->cost[u] + hop_ps(l, mtu);
            uint64_t rv = min_u64(b->rate[u], l->rate_bps);
            if (b->dist[v] == UINT32_MAX) {
                b->dist[v] = b->dist[u] + 1, b->cost[v] = cv, b->rate[v] = rv;
                b->queue[tail++] = v;
            } else if (b->dist[v] == b->dist[u] + 1 && cv > b->cost[v]) {
                b->cost[v] = cv, b->rate[v] = rv;
            }
        }
    }
}

/* Every destination host but skip (UINT32_MAX: none) from a source of cost
 * src_cost and rate src_rate in data center src_dc, into o (and into o's
 * intra-DC references when the destination is in src_dc too). by_h:
 * attachments sorted by host. */
static void collect(const tl_topo *t, const attach *by_h, size_t n, const bfs *b, uint32_t skip,
                    int64_t src_cost, uint64_t src_rate, int32_t src_dc, tl_fabric_ref *o)
{
    for (size_t a0 = 0; a0 < n;) {
        size_t a1 = a0;
        uint32_t best = UINT32_MAX;
        for (; a1 < n && by_h[a1].host == by_h[a0].host; a1++)
            best = b->dist[by_h[a1].sw] < best ? b->dist[by_h[a1].sw] : best;
        for (size_t j = a0; j < a1 && by_h[a0].host != skip && best != UINT32_MAX; j++) {
            const attach *d = &by_h[j];
            if (b->dist[d->sw] != best)
                continue;
            int64_t rtt = src_cost + b->cost[d->sw] + d->cost;
            uint64_t rate = min_u64(min_u64(src_rate, d->rate), b->rate[d->sw]);
            /* exact: 26 us at 10 Gb/s is 32,500 B, not 32,499 */
            uint64_t bdp = (uint64_t)((unsigned __int128)rtt * rate / 8000000000000ull);
            o->rtt_ps = rtt > o->rtt_ps ? rtt : o->rtt_ps;
            o->bdp_bytes = bdp > o->bdp_bytes ? bdp : o->bdp_bytes;
            if (tl_topo_node(t, d->host)->dc == src_dc) {
                o->intra_rtt_ps = rtt > o->intra_rtt_ps ? rtt : o->intra_rtt_ps;
                o->intra_bdp_bytes = bdp > o->intra_bdp_bytes ? bdp : o->intra_bdp_bytes;
            }
        }
        a0 = a1;
    }
}

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
    uint32_t *n_of = calloc((size_t)n_nodes + 1, sizeof *n_of); /* attachments per host */
    bfs b = {malloc((size_t)n_nodes * sizeof *b.dist), malloc((size_t)n_nodes * sizeof *b.queue),
             malloc((size_t)n_nodes * sizeof *b.cost), malloc((size_t)n_nodes * sizeof *b.rate)};
    int rc = !att || !n_of || !b.dist || !b.queue || !b.cost || !b.rate ? tl_err_nomem(err) : 0;
    n_att = 0;
    for (uint32_t i = 0; i < n_hosts && !rc; i++) {
        uint32_t nc;
        const uint32_t *ch = tl_topo_out_chans(t, hosts[i], &nc);
        for (uint32_t c = 0; c < nc; c++) {
            const tl_link *l = tl_topo_link(t, tl_chan_link(ch[c]));
            uint32_t to = tl_topo_chan_to(t, ch[c]);
            if (l->is_failed || tl_topo_node(t, to)->kind != TL_NODE_SWITCH)
                continue;
            o->nic_bps = l->rate_bps > o->nic_bps ? l->rate_bps : o->nic_bps;
            att[n_att++] = (attach){hosts[i], to, hop_ps(l, mtu_bytes), l->rate_bps};
            n_of[hosts[i]]++;
        }
    }
    if (!rc)
        qsort(att, n_att, sizeof *att, by_host);
    /* single-homed hosts: one BFS per switch, their host links added after.
     * Per switch, in one pass: its costliest host link, and whether another
     * host has as costly a link (the two make a pair). */
    uint32_t *worst = rc ? NULL : malloc(((size_t)n_nodes + 1) * sizeof *worst);
    uint8_t *is_twin = rc ? NULL : calloc((size_t)n_nodes + 1, 1);
    rc = rc ? rc : !worst || !is_twin ? tl_err_nomem(err) : 0;
    for (uint32_t v = 0; v < n_nodes && !rc; v++)
        worst[v] = UINT32_MAX;
    for (size_t i = 0; i < n_att && !rc; i++) {
        const attach *a = &att[i];
        uint32_t *w = &worst[a->sw];
        if (n_of[a->host] != 1)
            continue;
        if (*w == UINT32_MAX || a->cost > att[*w].cost)
            *w = (uint32_t)i, is_twin[a->sw] = 0;
        else if (a->cost == att[*w].cost)
            is_twin[a->sw] = 1;
    }
    for (uint32_t v = 0; v < n_nodes && !rc; v++) {
        if (worst[v] == UINT32_MAX)
            continue;
        const attach *a = &att[worst[v]];
        run_bfs(t, mtu_bytes, a, 1, 0, &b);
        collect(t, att, n_att, &b, is_twin[v] ? UINT32_MAX : a->host, a->cost, a->rate,
                tl_topo_node(t, a->host)->dc, o);
    }
    /* multi-homed hosts: one BFS each, from all their switches */
    for (size_t i = 0; i < n_att && !rc;) {
        size_t k = n_of[att[i].host];
        if (k > 1) {
            run_bfs(t, mtu_bytes, &att[i], k, 1, &b);
            collect(t, att, n_att, &b, att[i].host, 0, UINT64_MAX, tl_topo_node(t, att[i].host)->dc,
                    o);
        }
        i += k;
    }
    free(att), free(n_of), free(worst), free(is_twin), free(b.dist), free(b.queue), free(b.cost), free(b.rate);
    return rc;
}
