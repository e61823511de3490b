/* Throughput internals shared by the solvers and the cuts (tailor/throughput.h):
 * a validated arc view of a tl_tgraph and a TM grouped by source, the form both
 * the source-aggregated LP and Karakostas' grouping of Garg-Konemann consume.
 * Small enough to live here as static inline functions; tgraph.c may own them later. */
#ifndef TAILOR_THROUGHPUT_INT_H
#define TAILOR_THROUGHPUT_INT_H

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/throughput.h"
#include "tailor/time.h"

/* Directed arcs of a tgraph: edge e of positive capacity gives two arcs,
 * eu->ev and ev->eu, each with capacity cap[e], numbered by tail. Edges of
 * capacity 0 carry nothing and get no arcs. */
typedef struct tl_tput_net {
    uint32_t n, n_arcs;
    uint32_t *tail, *head;       /* (n_arcs) */
    uint32_t *edge;              /* (n_arcs) the tgraph edge an arc comes from */
    double *cap;                 /* (n_arcs) capacity units of the tgraph */
    uint32_t *out_off, *out_arc; /* (n + 1), (n_arcs): arcs leaving node v are
                                    out_arc[out_off[v] .. out_off[v + 1]) */
    uint32_t *in_off, *in_arc;   /* (n + 1), (n_arcs): arcs entering node v */
} tl_tput_net;

/* A TM grouped by source node, duplicate (src, dst) pairs summed and zero
 * demands dropped: sinks of src[i] are dst[off[i] .. off[i + 1]). */
typedef struct tl_tput_dem {
    uint32_t n_src;
    uint32_t *src; /* (n_src) ascending node ids */
    uint32_t *off; /* (n_src + 1) */
    uint32_t *dst; /* (n_pairs) ascending within a source */
    double *d;     /* (n_pairs) > 0, units of one server's rate */
    size_t n_pairs;
    double total; /* sum of d */
} tl_tput_dem;

static inline void tl_tput_net_fini(tl_tput_net *net)
{
    free(net->tail);
    free(net->head);
    free(net->edge);
    free(net->cap);
    free(net->out_off);
    free(net->out_arc);
    free(net->in_off);
    free(net->in_arc);
    memset(net, 0, sizeof *net);
}

/* Checks g (node ids in range, no self-loops, finite capacities >= 0) and
 * builds its arcs. Errors: TL_EINVAL naming the edge at fault. */
static inline int tl_tput_net_build(tl_tput_net *net, const tl_tgraph *g, tl_err *err)
{
    memset(net, 0, sizeof *net);
    if (!g || g->n_nodes == 0)
        return tl_err_set(err, TL_EINVAL, "throughput graph has no nodes");
    if (g->n_edges && (!g->eu || !g->ev || !g->cap))
        return tl_err_set(err, TL_EINVAL, "throughput graph has %u edges but no edge arrays",
                          g->n_edges);
    if (g->n_edges > (UINT32_MAX - 1) / 2)
        return tl_err_set(err, TL_ERANGE, "throughput graph has too many edges (%u)", g->n_edges);
    uint32_t n = g->n_nodes, n_arcs = 0;
    for (uint32_t e = 0; e < g->n_edges; e++) {
        if (g->eu[e] >= n || g->ev[e] >= n)
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "graph.edges", "edge %u joins nodes %u "
                             "and %u, expected ids below %u", e, g->eu[e], g->ev[e], n);
        if (g->eu[e] == g->ev[e])
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "graph.edges",
                             "edge %u joins node %u to itself", e, g->eu[e]);
        if (!isfinite(g->cap[e]) || g->cap[e] < 0)
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "graph.cap",
                             "edge %u: expected a finite capacity >= 0, found %g", e, g->cap[e]);
        if (g->cap[e] > 0)
            n_arcs += 2;
    }
    net->n = n;
    net->n_arcs = n_arcs;
    size_t na = n_arcs ? n_arcs : 1;
    net->tail = malloc(na * sizeof *net->tail);
    net->head = malloc(na * sizeof *net->head);
    net->edge = malloc(na * sizeof *net->edge);
    net->cap = malloc(na * sizeof *net->cap);
    net->out_arc = malloc(na * sizeof *net->out_arc);
    net->in_arc = malloc(na * sizeof *net->in_arc);
    net->out_off = calloc((size_t)n + 1, sizeof *net->out_off);
    net->in_off = calloc((size_t)n + 1, sizeof *net->in_off);
    if (!net->tail || !net->head || !net->edge || !net->cap || !net->out_arc || !net->in_arc ||
        !net->out_off || !net->in_off) {
        tl_tput_net_fini(net);
        return tl_err_nomem(err);
    }
    /* Arcs are numbered in order of their tail (out_arc is the identity), so
     * a node's out-arcs are contiguous in every per-arc array: Dijkstra's
     * inner loop then reads memory in order. */
    for (uint32_t e = 0; e < g->n_edges; e++)
        if (g->cap[e] > 0) {
            net->out_off[g->eu[e] + 1]++, net->out_off[g->ev[e] + 1]++;
            net->in_off[g->eu[e] + 1]++, net->in_off[g->ev[e] + 1]++;
        }
    for (uint32_t v = 0; v < n; v++) {
        net->out_off[v + 1] += net->out_off[v];
        net->in_off[v + 1] += net->in_off[v];
    }
    /* Fill by counting up from the offsets, then shift back: avoids a cursor array. */
    for (uint32_t e = 0; e < g->n_edges; e++) {
        if (!(g->cap[e] > 0))
            continue;
        for (int dir = 0; dir < 2; dir++) {
            uint32_t u = dir ? g->ev[e] : g->eu[e], v = dir ? g->eu[e] : g->ev[e];
            uint32_t a = net->out_off[u]++;
            net->tail[a] = u, net->head[a] = v, net->edge[a] = e, net->cap[a] = g->cap[e];
        }
    }
    for (uint32_t v = n; v > 0; v--)
        net->out_off[v] = net->out_off[v - 1];
    net->out_off[0] = 0;
    for (uint32_t a = 0; a < n_arcs; a++) {
        net->out_arc[a] = a;
        net->in_arc[net->in_off[net->head[a]]++] = a;
    }
    for (uint32_t v = n; v > 0; v--)
        net->in_off[v] = net->in_off[v - 1];
    net->out_off[0] = net->in_off[0] = 0;
    return 0;
}

/* Connected components over the arcs (undirected, since arcs come in pairs):
 * comp[v] in 0 .. returned count - 1; 0 on allocation failure. */
static inline uint32_t tl_tput_components(const tl_tput_net *net, uint32_t *comp)
{
    uint32_t *queue = malloc((size_t)net->n * sizeof *queue);
    if (!queue)
        return 0;
    for (uint32_t v = 0; v < net->n; v++)
        comp[v] = UINT32_MAX;
    uint32_t n_comp = 0;
    for (uint32_t r = 0; r < net->n; r++) {
        if (comp[r] != UINT32_MAX)
            continue;
        uint32_t qh = 0, qt = 0;
        queue[qt++] = r;
        comp[r] = n_comp;
        while (qh < qt) {
            uint32_t v = queue[qh++];
            for (uint32_t i = net->out_off[v]; i < net->out_off[v + 1]; i++) {
                uint32_t w = net->head[net->out_arc[i]];
                if (comp[w] == UINT32_MAX) {
                    comp[w] = n_comp;
                    queue[qt++] = w;
                }
            }
        }
        n_comp++;
    }
    free(queue);
    return n_comp;
}

static inline void tl_tput_dem_fini(tl_tput_dem *dm)
{
    free(dm->src);
    free(dm->off);
    free(dm->dst);
    free(dm->d);
    memset(dm, 0, sizeof *dm);
}

typedef struct tl_tput_pair {
    uint32_t s, t;
    double d;
} tl_tput_pair;

static inline int tl_tput_pair_cmp(const void *a, const void *b)
{
    const tl_tput_pair *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Checks tm against a graph of n nodes (ids in range, src != dst, finite
 * demands >= 0, at least one positive) and groups it by source.
 * Errors: TL_EINVAL naming the commodity. */
static inline int tl_tput_dem_build(tl_tput_dem *dm, uint32_t n, const tl_tm *tm, tl_err *err)
{
    memset(dm, 0, sizeof *dm);
    if (!tm || (tm->n && (!tm->src || !tm->dst || !tm->demand)))
        return tl_err_set(err, TL_EINVAL, "traffic matrix has no commodity arrays");
    size_t n_pos = 0;
    for (size_t i = 0; i < tm->n; i++) {
        if (tm->src[i] >= n || tm->dst[i] >= n)
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "tm.src/dst", "commodity %zu: %u -> %u, "
                             "expected node ids below %u", i, tm->src[i], tm->dst[i], n);
        if (tm->src[i] == tm->dst[i])
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "tm.src/dst",
                             "commodity %zu: source and destination are both node %u", i,
                             tm->src[i]);
        if (!isfinite(tm->demand[i]) || tm->demand[i] < 0)
            return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "tm.demand",
                             "commodity %zu (%u -> %u): expected a finite demand >= 0, found %g",
                             i, tm->src[i], tm->dst[i], tm->demand[i]);
        n_pos += tm->demand[i] > 0;
    }
    if (n_pos == 0)
        return tl_err_set(err, TL_EINVAL, "traffic matrix has no positive demand");
    tl_tput_pair *p = malloc(n_pos * sizeof *p);
    if (!p)
        return tl_err_nomem(err);
    size_t k = 0;
    for (size_t i = 0; i < tm->n; i++)
        if (tm->demand[i] > 0)
            p[k++] = (tl_tput_pair){tm->src[i], tm->dst[i], tm->demand[i]};
    qsort(p, n_pos, sizeof *p, tl_tput_pair_cmp);
    size_t n_pairs = 0;
    uint32_t n_src = 0;
    for (size_t i = 0; i < n_pos; i++) {
        if (n_pairs && p[n_pairs - 1].s == p[i].s && p[n_pairs - 1].t == p[i].t) {
            p[n_pairs - 1].d += p[i].d;
            continue;
        }
        n_src += !n_pairs || p[n_pairs - 1].s != p[i].s;
        p[n_pairs++] = p[i];
    }
    dm->src = malloc(n_src * sizeof *dm->src);
    dm->off = malloc(((size_t)n_src + 1) * sizeof *dm->off);
    dm->dst = malloc(n_pairs * sizeof *dm->dst);
    dm->d = malloc(n_pairs * sizeof *dm->d);
    if (!dm->src || !dm->off || !dm->dst || !dm->d) {
        free(p);
        tl_tput_dem_fini(dm);
        return tl_err_nomem(err);
    }
    uint32_t si = 0;
    for (size_t i = 0; i < n_pairs; i++) {
        if (i == 0 || p[i - 1].s != p[i].s) {
            dm->src[si] = p[i].s;
            dm->off[si++] = (uint32_t)i;
        }
        dm->dst[i] = p[i].t;
        dm->d[i] = p[i].d;
        dm->total += p[i].d;
    }
    dm->off[n_src] = (uint32_t)n_pairs;
    dm->n_src = n_src;
    dm->n_pairs = n_pairs;
    free(p);
    return 0;
}

/* The common front of both solvers: validated arcs and grouped demands, the
 * graph connected (DESIGN: a disconnected network is bad input, and a
 * commodity across components has throughput 0). */
static __attribute__((unused)) int tl_tput_prepare(const tl_tgraph *g, const tl_tm *tm,
                                                   tl_tput_net *net, tl_tput_dem *dm, tl_err *err)
{
    memset(dm, 0, sizeof *dm);
    int rc = tl_tput_net_build(net, g, err);
    if (rc != 0)
        return rc;
    uint32_t *comp = NULL;
    rc = tl_tput_dem_build(dm, net->n, tm, err);
    if (rc != 0)
        goto fail;
    if (dm->n_pairs > UINT32_MAX) {
        rc = tl_err_set(err, TL_ERANGE, "traffic matrix has %zu distinct pairs, at most %u "
                        "supported", dm->n_pairs, UINT32_MAX);
        goto fail;
    }
    comp = malloc((size_t)net->n * sizeof *comp);
    uint32_t n_comp = comp ? tl_tput_components(net, comp) : 0;
    if (n_comp == 0) {
        rc = tl_err_nomem(err);
        goto fail;
    }
    if (n_comp > 1) {
        for (uint32_t i = 0; i < dm->n_src; i++)
            for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
                if (comp[dm->src[i]] != comp[dm->dst[j]]) {
                    rc = tl_err_at(err, TL_EINVAL, NULL, 0, 0, "tm", "demand %u -> %u crosses "
                                   "disconnected parts of the graph (its throughput is 0)",
                                   dm->src[i], dm->dst[j]);
                    goto fail;
                }
        uint32_t v = 1;
        while (comp[v] == 0)
            v++;
        rc = tl_err_at(err, TL_EINVAL, NULL, 0, 0, "graph", "graph is disconnected: node %u is "
                       "not reachable from node 0 (%u components)", v, n_comp);
        goto fail;
    }
    free(comp);
    return 0;
fail:
    free(comp);
    tl_tput_dem_fini(dm);
    tl_tput_net_fini(net);
    return rc;
}

/* ---- the exact LP's shape, shared by its solvers (lp_exact.c, lp_clp.c) ---- */

/* Rows (conservation per source and node, capacity per arc), columns (a flow
 * per source and arc, and t) and nonzeros of the source-aggregated LP; 1
 * when any overflows or reaches INT_MAX (both solvers index with int). */
static inline int tl_tput_lp_size(const tl_tput_net *net, const tl_tput_dem *dm, size_t *rows,
                                  size_t *cols, size_t *nnz)
{
    size_t r, c, z, t;
    int over = __builtin_mul_overflow((size_t)dm->n_src, (size_t)net->n, &r) ||
               __builtin_add_overflow(r, (size_t)net->n_arcs, &r) ||
               __builtin_mul_overflow((size_t)dm->n_src, (size_t)net->n_arcs, &c) ||
               __builtin_add_overflow(c, (size_t)1, &c) ||
               __builtin_mul_overflow(c - 1, (size_t)3, &z) ||
               __builtin_add_overflow((size_t)dm->n_src, dm->n_pairs, &t) ||
               __builtin_add_overflow(z, t, &z);
    if (over || r >= INT_MAX || c >= INT_MAX || z >= INT_MAX - 1)
        return 1;
    *rows = r, *cols = c, *nnz = z;
    return 0;
}

/* The largest demand and capacity: the LPs divide by them so that the
 * solvers' tolerances mean the same whatever the units (t is scaled back). */
static inline void tl_tput_lp_scales(const tl_tput_net *net, const tl_tput_dem *dm, double *d_max,
                                     double *c_max)
{
    *d_max = *c_max = 0;
    for (size_t j = 0; j < dm->n_pairs; j++)
        *d_max = fmax(*d_max, dm->d[j]);
    for (uint32_t a = 0; a < net->n_arcs; a++)
        *c_max = fmax(*c_max, net->cap[a]);
}

/* An exact solve's result: the optimum in scaled units, back to units of one
 * server's rate, with the LP's size. */
static inline void tl_tput_lp_result(tl_tput *out, double scaled_t, double d_max, double c_max,
                                     size_t rows, size_t cols, uint64_t iterations)
{
    out->throughput = out->lower = out->upper = scaled_t * c_max / d_max;
    out->lp_rows = rows;
    out->lp_cols = cols;
    out->iterations = iterations;
}

/* ---- maximum-weight assignment (assign.c) ---- */

/* Writes row i of an n x n matrix of integer weights >= 0 into w[0..n). */
typedef void (*tl_assign_row_fn)(void *ctx, uint32_t i, int32_t *w);
/* assign[i] receives row i's column in an assignment of maximum total
 * weight. tl_assign_max first looks for a perfect matching among the rows'
 * maxima (optimal by the row-maxima bound), then runs the auction. The auction (epsilon scaling) is exact for integer weights and
 * costs O(n) per bid; the Hungarian method, O(n^3), is the tests' reference.
 * Both return 0 or TL_ENOMEM. */
/* The exact LP solved by COIN-OR CLP (lp_clp.c) on a prepared net and
 * demands; tl_throughput_exact_with names the method and times it. */
int tl_lp_clp_solve(const tl_tput_net *net, const tl_tput_dem *dm, tl_lp_solver solver,
                    tl_tput *out, tl_err *err);
int tl_assign_max(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign, tl_err *err);
int tl_assign_auction(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign, tl_err *err);
int tl_assign_hungarian(uint32_t n, tl_assign_row_fn row, void *ctx, uint32_t *assign,
                        tl_err *err);

#endif
