/* ECMP next-hop tables and per-flow path selection (see tailor/routing.h).
 *
 * Layout: every host maps to a destination key: its single neighbour switch
 * when it has one link, else the host itself. For each key, dist[key][node] is
 * the BFS hop count from the key's root over non-failed links, expanding only
 * switches (and the root). For every switch u, nh[key][u] lists the channels
 * u->v with dist[v] == dist[u] - 1 (v a switch or the root). A path toward a
 * single-homed host ends with the host's own link from its switch. */
#include "tailor/routing.h"
#include "tailor/memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/rng.h"

struct tl_routes {
    const tl_topo *topo; /* borrowed */
    uint8_t *down;       /* (n_links) extra failed links of this route set, or NULL */
    uint64_t seed;
    uint32_t n_nodes, n_keys, n_switches;
    uint32_t *key_of_host_node; /* (n_nodes) key of a host node, UINT32_MAX for switches */
    uint32_t *key_root;         /* (n_keys) */
    uint32_t *switch_idx;       /* (n_nodes) index among switches, UINT32_MAX for hosts */
    uint16_t *dist;             /* (n_keys, n_nodes) UINT16_MAX = unreachable */
    uint64_t *nh_off;           /* (n_keys * n_switches + 1) */
    uint32_t *nh_chan;          /* next-hop channels */
};

#define UNREACH UINT16_MAX

static void free_tables(tl_routes *r)
{
    free(r->key_of_host_node);
    free(r->key_root);
    free(r->switch_idx);
    free(r->dist);
    free(r->nh_off);
    free(r->nh_chan);
    r->key_of_host_node = r->key_root = r->switch_idx = r->nh_chan = NULL;
    r->dist = NULL;
    r->nh_off = NULL;
}

void tl_routes_destroy(tl_routes *r)
{
    if (!r)
        return;
    free_tables(r);
    free(r->down);
    free(r);
}

/* A channel routes may use: its link is neither failed in the topology nor
 * in this route set's own mask. */
static int chan_ok(const tl_routes *r, uint32_t c)
{
    uint32_t l = tl_chan_link(c);
    return !tl_topo_link(r->topo, l)->is_failed && !(r->down && r->down[l]);
}

/* BFS from root over non-failed links; hosts other than the root are reached
 * but not expanded (they never forward). */
static void bfs(const tl_routes *r, uint32_t root, uint16_t *dist, uint32_t *queue)
{
    const tl_topo *t = r->topo;
    uint32_t n = tl_topo_n_nodes(t), head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        dist[i] = UNREACH;
    dist[root] = 0;
    queue[tail++] = root;
    while (head < tail) {
        uint32_t u = queue[head++];
        if (u != root && tl_topo_node(t, u)->kind == TL_NODE_HOST)
            continue;
        uint32_t deg;
        const uint32_t *out = tl_topo_out_chans(t, u, &deg);
        for (uint32_t k = 0; k < deg; k++) {
            if (!chan_ok(r, out[k]))
                continue;
            uint32_t v = tl_topo_chan_to(t, out[k]);
            if (dist[v] == UNREACH && dist[u] + 1 < UNREACH) {
                dist[v] = (uint16_t)(dist[u] + 1);
                queue[tail++] = v;
            }
        }
    }
}

/* Channels from switch u that step toward key (dist decreases by one and the
 * next node may forward or is the root). Writes them if out != NULL. */
static uint32_t step_chans(const tl_routes *r, uint32_t key, uint32_t u, uint32_t *out)
{
    const tl_topo *t = r->topo;
    const uint16_t *d = r->dist + (size_t)key * r->n_nodes;
    uint32_t root = r->key_root[key], cnt = 0, deg;
    if (d[u] == UNREACH || d[u] == 0)
        return 0;
    const uint32_t *oc = tl_topo_out_chans(t, u, &deg);
    for (uint32_t k = 0; k < deg; k++) {
        if (!chan_ok(r, oc[k]))
            continue;
        uint32_t v = tl_topo_chan_to(t, oc[k]);
        if (d[v] + 1 != d[u])
            continue;
        if (v != root && tl_topo_node(t, v)->kind == TL_NODE_HOST)
            continue;
        if (out)
            out[cnt] = oc[k];
        cnt++;
    }
    return cnt;
}

static int build(tl_routes *r, tl_err *err)
{
    const tl_topo *t = r->topo;
    uint32_t n = tl_topo_n_nodes(t), n_hosts = tl_topo_n_hosts(t);
    const uint32_t *hosts = tl_topo_hosts(t);
    free_tables(r);
    r->n_nodes = n;
    /* At most one key per host (usually one per ToR): a distance per (key,
     * node) and a next-hop offset per (key, switch) dominate. */
    char what[128];
    snprintf(what, sizeof what, "the routing tables of a topology of %u nodes (%u hosts)", n,
             n_hosts);
    double keys = n_hosts, n_sw = (double)n - n_hosts;
    if (tl_mem_check(keys * n * 2.0 + keys * n_sw * 12.0, what, err))
        return err ? err->code : TL_ERANGE;
    r->key_of_host_node = malloc((size_t)n * sizeof(uint32_t));
    r->switch_idx = malloc((size_t)n * sizeof(uint32_t));
    uint32_t *root_key = malloc((size_t)n * sizeof(uint32_t)); /* node -> key rooted there */
    r->key_root = malloc(((size_t)n_hosts + 1) * sizeof(uint32_t));
    if (!r->key_of_host_node || !r->switch_idx || !root_key || !r->key_root) {
        free(root_key);
        return tl_err_nomem(err);
    }
    r->n_switches = 0;
    for (uint32_t i = 0; i < n; i++) {
        r->key_of_host_node[i] = UINT32_MAX;
        root_key[i] = UINT32_MAX;
        r->switch_idx[i] = tl_topo_node(t, i)->kind == TL_NODE_SWITCH ? r->n_switches++ : UINT32_MAX;
    }
    r->n_keys = 0;
    for (uint32_t h = 0; h < n_hosts; h++) {
        uint32_t deg;
        const uint32_t *oc = tl_topo_out_chans(t, hosts[h], &deg);
        uint32_t root = hosts[h];
        if (deg == 1) {
            uint32_t sw = tl_topo_chan_to(t, oc[0]);
            if (tl_topo_node(t, sw)->kind == TL_NODE_SWITCH)
                root = sw;
        }
        if (root_key[root] == UINT32_MAX) {
            root_key[root] = r->n_keys;
            r->key_root[r->n_keys++] = root;
        }
        r->key_of_host_node[hosts[h]] = root_key[root];
    }
    free(root_key);

    size_t n_dist = (size_t)r->n_keys * n;
    r->dist = malloc(n_dist * sizeof(uint16_t));
    r->nh_off = malloc(((size_t)r->n_keys * r->n_switches + 1) * sizeof(uint64_t));
    if (!r->dist || !r->nh_off)
        return tl_err_nomem(err);

    /* Threads only pay off past a few hundred BFS roots; below that (Parsimon's
     * link-level topologies, built by the thousand inside its own parallel
     * loop) forking a team costs more than the work. */
    int is_big = (uint64_t)r->n_keys * n > 100000;
    int failed = 0;
#pragma omp parallel if (is_big)
    {
        uint32_t *queue = malloc((size_t)n * sizeof(uint32_t));
        if (!queue) {
#pragma omp atomic write
            failed = 1;
        } else {
#pragma omp for schedule(dynamic, 16)
            for (uint32_t k = 0; k < r->n_keys; k++)
                bfs(r, r->key_root[k], r->dist + (size_t)k * n, queue);
        }
        free(queue);
    }
    if (failed)
        return tl_err_nomem(err);

    /* Two passes: count per (key, switch), then fill. Counting is parallel per
     * key; offsets are a sequential prefix sum, so the layout is deterministic. */
    uint64_t total = 0;
    for (uint32_t k = 0; k < r->n_keys; k++)
        for (uint32_t u = 0; u < n; u++) {
            uint32_t s = r->switch_idx[u];
            if (s == UINT32_MAX)
                continue;
            r->nh_off[(size_t)k * r->n_switches + s] = total;
            total += step_chans(r, k, u, NULL);
        }
    r->nh_off[(size_t)r->n_keys * r->n_switches] = total;
    r->nh_chan = malloc((total + 1) * sizeof(uint32_t));
    if (!r->nh_chan)
        return tl_err_nomem(err);
#pragma omp parallel for schedule(dynamic, 16) if (is_big)
    for (uint32_t k = 0; k < r->n_keys; k++)
        for (uint32_t u = 0; u < n; u++) {
            uint32_t s = r->switch_idx[u];
            if (s != UINT32_MAX)
                step_chans(r, k, u, r->nh_chan + r->nh_off[(size_t)k * r->n_switches + s]);
        }
    return 0;
}

tl_routes *tl_routes_create(const tl_topo *t, uint64_t seed, tl_err *err)
{
    return tl_routes_create_masked(t, seed, NULL, err);
}

tl_routes *tl_routes_create_masked(const tl_topo *t, uint64_t seed, const uint8_t *link_down,
                                   tl_err *err)
{
    tl_routes *r = calloc(1, sizeof *r);
    if (!r) {
        tl_err_nomem(err);
        return NULL;
    }
    r->topo = t;
    r->seed = seed;
    if (link_down) {
        r->down = malloc(tl_topo_n_links(t) + 1);
        if (!r->down) {
            tl_err_nomem(err);
            free(r);
            return NULL;
        }
        memcpy(r->down, link_down, tl_topo_n_links(t));
    }
    if (build(r, err) != 0) {
        tl_routes_destroy(r);
        return NULL;
    }
    return r;
}

int tl_routes_rebuild(tl_routes *r, tl_err *err) { return build(r, err); }

const tl_topo *tl_routes_topo(const tl_routes *r) { return r->topo; }

/* The host's own link from its switch, when the key root is that switch. */
static uint32_t last_hop_chan(const tl_routes *r, uint32_t sw, uint32_t dst)
{
    uint32_t deg;
    const uint32_t *oc = tl_topo_out_chans(r->topo, dst, &deg);
    for (uint32_t i = 0; i < deg; i++)
        if (tl_topo_chan_to(r->topo, oc[i]) == sw && chan_ok(r, oc[i]))
            return oc[i] ^ 1u;
    return UINT32_MAX;
}

uint32_t tl_routes_dist(const tl_routes *r, uint32_t node, uint32_t dst)
{
    uint32_t key = r->key_of_host_node[dst];
    if (key == UINT32_MAX)
        return UINT32_MAX;
    if (node == dst)
        return 0;
    uint32_t root = r->key_root[key];
    uint32_t extra = root == dst ? 0 : 1; /* the last link, switch -> host */
    if (extra && last_hop_chan(r, root, dst) == UINT32_MAX)
        return UINT32_MAX;
    const uint16_t *d = r->dist + (size_t)key * r->n_nodes;
    if (tl_topo_node(r->topo, node)->kind == TL_NODE_HOST) {
        uint32_t deg, best = UINT32_MAX;
        const uint32_t *oc = tl_topo_out_chans(r->topo, node, &deg);
        for (uint32_t i = 0; i < deg; i++) {
            uint32_t v = tl_topo_chan_to(r->topo, oc[i]);
            if (chan_ok(r, oc[i]) && d[v] != UNREACH && d[v] + 1u < best &&
                (v == root || tl_topo_node(r->topo, v)->kind == TL_NODE_SWITCH))
                best = d[v] + 1u;
        }
        return best == UINT32_MAX ? best : best + extra;
    }
    return d[node] == UNREACH ? UINT32_MAX : d[node] + extra;
}

const uint32_t *tl_routes_next(const tl_routes *r, uint32_t node, uint32_t dst, uint32_t *buf,
                               uint32_t buf_cap, uint32_t *n)
{
    *n = 0;
    uint32_t key = r->key_of_host_node[dst];
    if (key == UINT32_MAX || node == dst)
        return buf;
    uint32_t root = r->key_root[key];
    const tl_topo *t = r->topo;
    if (node == root) { /* the switch the destination hangs off */
        uint32_t c = last_hop_chan(r, node, dst);
        if (c != UINT32_MAX && buf_cap > 0) {
            buf[0] = c;
            *n = 1;
        }
        return buf;
    }
    if (tl_topo_node(t, node)->kind == TL_NODE_HOST) {
        /* A source host: its links whose far end is closest to the key. */
        uint32_t deg, best = UINT32_MAX;
        const uint16_t *d = r->dist + (size_t)key * r->n_nodes;
        const uint32_t *oc = tl_topo_out_chans(t, node, &deg);
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t i = 0; i < deg; i++) {
                uint32_t v = tl_topo_chan_to(t, oc[i]);
                if (!chan_ok(r, oc[i]) || d[v] == UNREACH ||
                    (v != root && tl_topo_node(t, v)->kind == TL_NODE_HOST))
                    continue;
                if (pass == 0 && d[v] < best)
                    best = d[v];
                else if (pass == 1 && d[v] == best && *n < buf_cap)
                    buf[(*n)++] = oc[i];
            }
        return buf;
    }
    size_t at = (size_t)key * r->n_switches + r->switch_idx[node];
    *n = (uint32_t)(r->nh_off[at + 1] - r->nh_off[at]);
    return r->nh_chan + r->nh_off[at];
}

int tl_routes_path(const tl_routes *r, uint64_t flow_id, uint32_t src, uint32_t dst,
                   uint32_t *chans, int max, tl_err *err)
{
    const tl_topo *t = r->topo;
    uint32_t nn = tl_topo_n_nodes(t);
    if (src >= nn || dst >= nn || tl_topo_node(t, src)->kind != TL_NODE_HOST ||
        tl_topo_node(t, dst)->kind != TL_NODE_HOST)
        return tl_err_set(err, TL_EINVAL, "flow %llu: endpoints %u -> %u must be hosts",
                          (unsigned long long)flow_id, src, dst);
    if (src == dst)
        return tl_err_set(err, TL_EINVAL, "flow %llu: source and destination are both host %u",
                          (unsigned long long)flow_id, src);
    uint32_t buf[256];
    uint64_t fh = tl_mix64(flow_id ^ tl_mix64(r->seed + UINT64_C(0x632be59bd9b4e019)));
    uint32_t u = src;
    int hops = 0;
    while (u != dst) {
        uint32_t n;
        const uint32_t *nh = tl_routes_next(r, u, dst, buf, 256, &n);
        if (n == 0) {
            int has_failed = 0;
            for (uint32_t l = 0; l < tl_topo_n_links(t) && !has_failed; l++)
                has_failed = tl_topo_link(t, l)->is_failed;
            return tl_err_set(err, TL_EINVAL, "no route from host %u to host %u: %s", src, dst,
                              has_failed ? "failed links disconnect them"
                                         : "the topology does not connect them");
        }
        if (hops >= max)
            return tl_err_set(err, TL_EINVAL, "flow %llu: path longer than %d hops",
                              (unsigned long long)flow_id, max);
        /* An independent draw per node: the node id is mixed into the flow's hash. */
        uint64_t h = tl_mix64(fh ^ ((uint64_t)u * UINT64_C(0x9e3779b97f4a7c15)));
        uint32_t c = nh[n == 1 ? 0 : (uint32_t)(((__uint128_t)h * n) >> 64)];
        chans[hops++] = c;
        u = tl_topo_chan_to(t, c);
    }
    return hops;
}
