/* The throughput graph of a topology (topology-throughput.txt §II-A): the
 * nodes that route, their servers, and edge capacities in units of a
 * reference rate. Server access links are not capacity-limited. */
#include "tailor/throughput.h"
#include "tailor/memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_tgraph_fini(tl_tgraph *g)
{
    if (!g)
        return;
    free(g->servers);
    free(g->eu);
    free(g->ev);
    free(g->cap);
    memset(g, 0, sizeof *g);
}

uint32_t tl_tgraph_n_servers(const tl_tgraph *g)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        s += g->servers[i];
    return s;
}

static int cmp_rate(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The most common rate among links between routing nodes (ties: the
 * larger), by sorting the rates: O(links log links). (Counting each link's
 * rate over all links took 12 s at 5,000 switches of degree 24.) */
static int common_rate(const tl_topo *t, const int64_t *node_of, double *out, tl_err *err)
{
    uint32_t nl = tl_topo_n_links(t), n = 0;
    uint64_t *r = malloc(((size_t)nl + 1) * sizeof *r);
    if (!r)
        return tl_err_nomem(err);
    for (uint32_t i = 0; i < nl; i++) {
        const tl_link *l = tl_topo_link(t, i);
        if (node_of[l->a] >= 0 && node_of[l->b] >= 0)
            r[n++] = l->rate_bps;
    }
    qsort(r, n, sizeof *r, cmp_rate);
    uint32_t best_n = 0;
    double best = 0;
    for (uint32_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && r[j] == r[i]; j++)
            ;
        if (j - i >= best_n) /* ascending: on a tie the later, larger rate wins */
            best_n = j - i, best = (double)r[i];
    }
    free(r);
    *out = best;
    return 0;
}

static int is_connected(const tl_tgraph *g)
{
    uint32_t n = g->n_nodes;
    uint32_t *off = calloc((size_t)n + 1, sizeof *off), *adj = malloc((2 * (size_t)g->n_edges + 1) * sizeof *adj);
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    uint8_t *seen = calloc((size_t)n + 1, 1);
    int ok = -1;
    if (off && adj && queue && seen) {
        for (uint32_t e = 0; e < g->n_edges; e++) {
            off[g->eu[e] + 1]++;
            off[g->ev[e] + 1]++;
        }
        for (uint32_t i = 0; i < n; i++)
            off[i + 1] += off[i];
        uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
        if (fill) {
            memcpy(fill, off, (size_t)n * sizeof *fill);
            for (uint32_t e = 0; e < g->n_edges; e++) {
                adj[fill[g->eu[e]]++] = g->ev[e];
                adj[fill[g->ev[e]]++] = g->eu[e];
            }
            free(fill);
            uint32_t head = 0, tail = 0;
            queue[tail++] = 0;
            seen[0] = 1;
            while (head < tail) {
                uint32_t u = queue[head++];
                for (uint32_t k = off[u]; k < off[u + 1]; k++)
                    if (!seen[adj[k]]) {
                        seen[adj[k]] = 1;
                        queue[tail++] = adj[k];
                    }
            }
            ok = tail == n;
        }
    }
    free(off);
    free(adj);
    free(queue);
    free(seen);
    return ok;
}

int tl_tgraph_from_topo(tl_tgraph *g, const tl_topo *t, double ref_bps, tl_err *err)
{
    memset(g, 0, sizeof *g);
    uint32_t nn = tl_topo_n_nodes(t), nl = tl_topo_n_links(t);
    int64_t *node_of = malloc(((size_t)nn + 1) * sizeof *node_of);
    if (!node_of)
        return tl_err_nomem(err);
    uint32_t n = 0;
    for (uint32_t v = 0; v < nn; v++) {
        uint32_t deg;
        tl_topo_out_chans(t, v, &deg);
        int routes = tl_topo_node(t, v)->kind == TL_NODE_SWITCH || deg > 1;
        node_of[v] = routes ? (int64_t)n++ : -1;
    }
    g->n_nodes = n;
    g->servers = calloc((size_t)n + 1, sizeof *g->servers);
    g->eu = malloc(((size_t)nl + 1) * sizeof *g->eu);
    g->ev = malloc(((size_t)nl + 1) * sizeof *g->ev);
    g->cap = malloc(((size_t)nl + 1) * sizeof *g->cap);
    if (!g->servers || !g->eu || !g->ev || !g->cap) {
        free(node_of);
        tl_tgraph_fini(g);
        return tl_err_nomem(err);
    }
    for (uint32_t v = 0; v < nn; v++) {
        if (tl_topo_node(t, v)->kind != TL_NODE_HOST)
            continue;
        if (node_of[v] >= 0) { /* a server that routes: a node with one server */
            g->servers[node_of[v]]++;
        } else {
            uint32_t deg;
            const uint32_t *oc = tl_topo_out_chans(t, v, &deg);
            uint32_t sw = tl_topo_chan_to(t, oc[0]);
            if (node_of[sw] >= 0)
                g->servers[node_of[sw]]++;
        }
    }
    g->ref_bps = ref_bps;
    int rc = ref_bps > 0 ? 0 : common_rate(t, node_of, &g->ref_bps, err);
    if (rc) {
        free(node_of);
        tl_tgraph_fini(g);
        return rc;
    }
    for (uint32_t i = 0; i < nl; i++) {
        const tl_link *l = tl_topo_link(t, i);
        if (l->is_failed || node_of[l->a] < 0 || node_of[l->b] < 0)
            continue;
        g->eu[g->n_edges] = (uint32_t)node_of[l->a];
        g->ev[g->n_edges] = (uint32_t)node_of[l->b];
        g->cap[g->n_edges] = g->ref_bps > 0 ? (double)l->rate_bps / g->ref_bps : 1;
        g->n_edges++;
    }
    free(node_of);
    if (n == 0 || tl_tgraph_n_servers(g) == 0)
        rc = tl_err_set(err, TL_EINVAL, "the topology has no servers to carry traffic");
    else if (n > 1 && g->n_edges == 0)
        rc = tl_err_set(err, TL_EINVAL, "the topology's switches are not linked to each other");
    else if (n > 1) {
        int c = is_connected(g);
        if (c < 0)
            rc = tl_err_nomem(err);
        else if (!c)
            rc = tl_err_set(err, TL_EINVAL,
                            "the topology is disconnected: some servers cannot reach others");
    }
    if (rc)
        tl_tgraph_fini(g);
    return rc;
}

uint16_t *tl_tgraph_distances(const tl_tgraph *g, tl_err *err)
{
    uint32_t n = g->n_nodes;
    size_t cells;
    if (__builtin_mul_overflow((size_t)n, (size_t)n, &cells)) {
        tl_err_set(err, TL_ERANGE, "%u nodes: the distance table would not fit", n);
        return NULL;
    }
    char what[64];
    snprintf(what, sizeof what, "the distance table of %u nodes", n);
    if (tl_mem_check((double)cells * sizeof(uint16_t), what, err))
        return NULL;
    uint16_t *d = malloc(cells * sizeof *d);
    uint32_t *off = calloc((size_t)n + 1, sizeof *off), *adj = malloc((2 * (size_t)g->n_edges + 1) * sizeof *adj);
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!d || !off || !adj || !fill) {
        free(d);
        free(off);
        free(adj);
        free(fill);
        tl_err_nomem(err);
        return NULL;
    }
    for (uint32_t e = 0; e < g->n_edges; e++) {
        off[g->eu[e] + 1]++;
        off[g->ev[e] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    memcpy(fill, off, (size_t)n * sizeof *fill);
    for (uint32_t e = 0; e < g->n_edges; e++) {
        adj[fill[g->eu[e]]++] = g->ev[e];
        adj[fill[g->ev[e]]++] = g->eu[e];
    }
    free(fill);
    /* a thread without its queue leaves its rows unwritten: the table is void */
    int n_failed = 0;
#pragma omp parallel reduction(+ : n_failed)
    {
        uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
        n_failed += !queue;
#pragma omp for schedule(dynamic, 16)
        for (uint32_t s = 0; s < n; s++) {
            if (!queue)
                continue;
            uint16_t *row = d + (size_t)s * n;
            for (uint32_t i = 0; i < n; i++)
                row[i] = UINT16_MAX;
            uint32_t head = 0, tail = 0;
            queue[tail++] = s;
            row[s] = 0;
            while (head < tail) {
                uint32_t u = queue[head++];
                for (uint32_t k = off[u]; k < off[u + 1]; k++)
                    if (row[adj[k]] == UINT16_MAX) {
                        row[adj[k]] = (uint16_t)(row[u] + 1);
                        queue[tail++] = adj[k];
                    }
            }
        }
        free(queue);
    }
    free(off);
    free(adj);
    if (n_failed) {
        free(d);
        tl_err_nomem(err);
        return NULL;
    }
    return d;
}
