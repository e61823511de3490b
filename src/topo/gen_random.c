/* Random graphs of topology-throughput.txt: Jellyfish (Singla et al., NSDI'12), the
 * paper's benchmark, and the same-equipment random graph of §IV against which every other
 * family's throughput is normalised ("relative throughput"). Both come from one engine:
 * random pairing of ports and edge-swap repair, as topobench builds them
 * (../shared/notes/topobench_paraleon.md A1), then 10 edge switches per link so the
 * result is close to uniform among the graphs with these degrees, driven by tl_rng
 * streams.
 *
 * Why not igraph's degree-sequence games: the installed igraph (0.10, built with
 * IGRAPH_THREAD_SAFE 0) draws from one process-wide RNG and aborts on errors by default,
 * which breaks DESIGN.md's "no global mutable state" and per-seed determinism under
 * threads; its streams may also change between igraph versions. Nor does it pair links
 * of different rates separately, which the same-equipment graph of a heterogeneous
 * topology needs. */
#include "topo_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/memlimit.h"
#include "tailor/rng.h"

#define DEFAULT_BPS 10000000000ull
#define DELAY_PS 1000000 /* 1 us */

/* Draws with a disconnected result are rejected (keeping the pairing's distribution
 * conditioned on connectivity) this many times before connecting swaps take over; sparse
 * sequences (degree 2: unions of cycles) are rarely connected by chance. */
#define REJECT_DRAWS 8
#define MAX_DRAWS 32
#define SWAP_TRIES_PER_EDGE 32
#define MIX_SWAPS_PER_EDGE 10

static int fail_code(const tl_err *err) { return err && err->code ? err->code : TL_ENOMEM; }

/* ------------------------------------------------------------ the multigraph */

/* Invariants between operations:
 *   1. edge e joins eu[e] and ev[e] and keeps its class: class c owns the slots
 *      [cls_off[c], cls_off[c+1]), and swaps only exchange endpoints inside a class, so
 *      every node keeps its number of ports of each class;
 *   2. the table holds, for every unordered pair {u, v}, the number of edges joining them
 *      (pairs whose count fell to 0 stay as tombstones until the next rebuild). */
typedef struct rgraph {
    uint32_t n_nodes, n_edges, n_classes;
    const uint32_t *cls_off; /* (n_classes + 1), borrowed from the caller */
    uint32_t *eu, *ev;       /* (n_edges) */
    uint64_t *keys;          /* (cap) pair key + 1; 0 = empty slot */
    uint32_t *counts;        /* (cap) */
    uint32_t cap, used;      /* cap a power of two; used = occupied slots */
    /* scratch for components and bridges */
    uint32_t *adj_off, *adj;                   /* (n_nodes + 1), (2 n_edges) CSR of edge ids */
    uint32_t *comp, *disc, *low, *stack, *pos; /* (n_nodes) */
    uint32_t *par_edge;                        /* (n_nodes) DFS tree edge into a node */
    uint8_t *is_bridge;                        /* (n_edges) */
} rgraph;

static uint64_t pair_key(uint32_t u, uint32_t v)
{
    return u < v ? ((uint64_t)u << 32 | v) : ((uint64_t)v << 32 | u);
}

static uint32_t slot_of(const rgraph *g, uint64_t key)
{
    uint32_t mask = g->cap - 1, i = (uint32_t)tl_mix64(key) & mask;
    while (g->keys[i] && g->keys[i] != key + 1)
        i = (i + 1) & mask;
    return i;
}

static uint32_t pair_count(const rgraph *g, uint32_t u, uint32_t v)
{
    uint32_t i = slot_of(g, pair_key(u, v));
    return g->keys[i] ? g->counts[i] : 0;
}

/* Rebuilds the table from the edges, with room for at least 4 new pairs per edge. */
static int table_rebuild(rgraph *g, tl_err *err)
{
    uint32_t cap = 64;
    while (cap < 4ull * g->n_edges + 64)
        cap *= 2;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *counts = calloc(cap, sizeof *counts);
    if (!keys || !counts) {
        free(keys);
        free(counts);
        return tl_err_nomem(err);
    }
    free(g->keys);
    free(g->counts);
    g->keys = keys;
    g->counts = counts;
    g->cap = cap;
    g->used = 0;
    for (uint32_t e = 0; e < g->n_edges; e++) {
        uint64_t key = pair_key(g->eu[e], g->ev[e]);
        uint32_t i = slot_of(g, key);
        if (!g->keys[i]) {
            g->keys[i] = key + 1;
            g->used++;
        }
        g->counts[i]++;
    }
    return 0;
}

/* Needs a free slot; callers keep used below cap/2 (table_reserve). */
static void pair_add(rgraph *g, uint32_t u, uint32_t v, int delta)
{
    uint64_t key = pair_key(u, v);
    uint32_t i = slot_of(g, key);
    if (!g->keys[i]) {
        g->keys[i] = key + 1;
        g->used++;
    }
    g->counts[i] = (uint32_t)((int64_t)g->counts[i] + delta);
}

static int table_reserve(rgraph *g, tl_err *err)
{
    return g->used + 2 > g->cap / 2 ? table_rebuild(g, err) : 0;
}

/* Badness of a pair holding `count` edges: parallel copies beyond the first cost 1 each, a
 * self-loop 2, so trading a self-loop for a parallel link is progress. */
static uint32_t pair_badness(uint64_t key, uint32_t count)
{
    if ((uint32_t)(key >> 32) == (uint32_t)key)
        return 2 * count;
    return count > 1 ? count - 1 : 0;
}

static int edge_is_bad(const rgraph *g, uint32_t e)
{
    return g->eu[e] == g->ev[e] || pair_count(g, g->eu[e], g->ev[e]) > 1;
}

/* Replaces e = (u,v) and f = (x,y) by (u,x) and (v,y) (f reversed when is_flip) if that
 * creates no self-loop and does not raise the total badness (sideways moves let the
 * repair walk across plateaus). Returns 1 when swapped, 0 when refused, or a negative
 * TL_E* code. */
static int try_swap(rgraph *g, uint32_t e, uint32_t f, int is_flip, tl_err *err)
{
    uint32_t u = g->eu[e], v = g->ev[e], x = g->eu[f], y = g->ev[f];
    if (is_flip) {
        uint32_t tmp = x;
        x = y;
        y = tmp;
    }
    if (e == f || u == x || v == y)
        return 0;
    uint64_t keys[4] = {pair_key(u, v), pair_key(x, y), pair_key(u, x), pair_key(v, y)};
    int deltas[4] = {-1, -1, 1, 1};
    uint64_t uniq[4];
    int dsum[4], n_uniq = 0;
    for (int i = 0; i < 4; i++) {
        int j = 0;
        while (j < n_uniq && uniq[j] != keys[i])
            j++;
        if (j == n_uniq) {
            uniq[n_uniq] = keys[i];
            dsum[n_uniq++] = 0;
        }
        dsum[j] += deltas[i];
    }
    int64_t before = 0, after = 0;
    for (int j = 0; j < n_uniq; j++) {
        uint32_t i = slot_of(g, uniq[j]);
        uint32_t c = g->keys[i] ? g->counts[i] : 0;
        before += pair_badness(uniq[j], c);
        after += pair_badness(uniq[j], (uint32_t)((int64_t)c + dsum[j]));
    }
    if (after > before)
        return 0;
    int rc = table_reserve(g, err);
    if (rc)
        return rc;
    pair_add(g, u, v, -1);
    pair_add(g, x, y, -1);
    pair_add(g, u, x, 1);
    pair_add(g, v, y, 1);
    g->eu[e] = u;
    g->ev[e] = x;
    g->eu[f] = v;
    g->ev[f] = y;
    return 1;
}

/* Swaps bad edges (self-loops, parallel copies) with random partners of their class until
 * none is left or *budget tries are spent. */
static int repair(rgraph *g, tl_rng *r, uint64_t *budget, tl_err *err)
{
    for (;;) {
        uint32_t n_bad = 0;
        for (uint32_t c = 0; c < g->n_classes; c++) {
            uint32_t first = g->cls_off[c], n_c = g->cls_off[c + 1] - first;
            for (uint32_t e = first; e < first + n_c; e++) {
                if (!edge_is_bad(g, e))
                    continue;
                n_bad++;
                for (int t = 0; t < SWAP_TRIES_PER_EDGE && *budget; t++, (*budget)--) {
                    uint32_t f = first + (uint32_t)tl_rng_below(r, n_c);
                    int rc = try_swap(g, e, f, (int)(tl_rng_u64(r) >> 63), err);
                    if (rc < 0)
                        return rc;
                    if (rc)
                        break;
                }
            }
        }
        if (n_bad == 0 || *budget == 0)
            return 0;
    }
}

/* Edge-switching Markov chain (Taylor 1981; the "switch" or "rewire" chain of Milo et al.
 * and igraph_rewire): n_steps times, two uniform edges of one class exchange endpoints
 * unless that adds a self-loop or parallel link. The proposal is symmetric, so on simple
 * graphs the chain's stationary law is uniform over the graphs with these per-class
 * degrees; the repair that precedes it is not uniform (on 6 switches of degree 3, repair
 * alone draws K3,3 about 11% of the time instead of 10/70 = 14%). */
static int mix(rgraph *g, tl_rng *r, uint64_t n_steps, tl_err *err)
{
    for (uint64_t i = 0; i < n_steps; i++) {
        uint32_t e = (uint32_t)tl_rng_below(r, g->n_edges), c = 0, hi = g->n_classes - 1;
        while (c < hi) { /* the last class starting at or before e */
            uint32_t mid = (c + hi + 1) / 2;
            if (g->cls_off[mid] <= e)
                c = mid;
            else
                hi = mid - 1;
        }
        uint32_t first = g->cls_off[c];
        uint32_t f = first + (uint32_t)tl_rng_below(r, g->cls_off[c + 1] - first);
        int rc = try_swap(g, e, f, (int)(tl_rng_u64(r) >> 63), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Components (comp[], numbered by first node) and bridges (is_bridge[]) by one iterative
 * Tarjan DFS; edges are told apart by id, so a parallel copy is never a bridge. Returns
 * the number of components. */
static uint32_t components_and_bridges(rgraph *g)
{
    uint32_t n = g->n_nodes;
    memset(g->adj_off, 0, ((size_t)n + 1) * sizeof *g->adj_off);
    for (uint32_t e = 0; e < g->n_edges; e++) {
        g->adj_off[g->eu[e] + 1]++;
        g->adj_off[g->ev[e] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        g->adj_off[i + 1] += g->adj_off[i];
    memcpy(g->pos, g->adj_off, (size_t)n * sizeof *g->pos);
    for (uint32_t e = 0; e < g->n_edges; e++) {
        g->adj[g->pos[g->eu[e]]++] = e;
        g->adj[g->pos[g->ev[e]]++] = e;
    }
    memset(g->is_bridge, 0, g->n_edges);
    for (uint32_t i = 0; i < n; i++)
        g->comp[i] = UINT32_MAX;
    uint32_t n_comp = 0, clock = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (g->comp[root] != UINT32_MAX)
            continue;
        uint32_t depth = 0;
        g->stack[depth++] = root;
        g->comp[root] = n_comp;
        g->disc[root] = g->low[root] = clock++;
        g->pos[root] = g->adj_off[root];
        g->par_edge[root] = UINT32_MAX;
        while (depth) {
            uint32_t u = g->stack[depth - 1];
            if (g->pos[u] < g->adj_off[u + 1]) {
                uint32_t e = g->adj[g->pos[u]++];
                if (e == g->par_edge[u])
                    continue;
                uint32_t w = g->eu[e] == u ? g->ev[e] : g->eu[e];
                if (g->comp[w] == UINT32_MAX) {
                    g->comp[w] = n_comp;
                    g->disc[w] = g->low[w] = clock++;
                    g->pos[w] = g->adj_off[w];
                    g->par_edge[w] = e;
                    g->stack[depth++] = w;
                } else if (g->disc[w] < g->low[u]) {
                    g->low[u] = g->disc[w];
                }
            } else {
                depth--;
                uint32_t e = g->par_edge[u];
                if (e != UINT32_MAX) {
                    uint32_t parent = g->eu[e] == u ? g->ev[e] : g->eu[e];
                    if (g->low[u] < g->low[parent])
                        g->low[parent] = g->low[u];
                    if (g->low[u] > g->disc[parent])
                        g->is_bridge[e] = 1;
                }
            }
        }
        n_comp++;
    }
    return n_comp;
}

/* 1 when class c has edges in two components (comp[] is current). */
static int class_is_split(const rgraph *g, uint32_t c)
{
    uint32_t first = g->cls_off[c], last = g->cls_off[c + 1];
    for (uint32_t e = first + 1; e < last; e++)
        if (g->comp[g->eu[e]] != g->comp[g->eu[first]])
            return 1;
    return 0;
}

/* Joins components: a non-bridge edge (u,v) of component A and an edge (x,y) of the same
 * class in another component B become (u,x) and (v,y). A stays connected without (u,v),
 * and both halves of B (if (x,y) was a bridge) attach to it, so the component count
 * falls by one; the new pairs cross components, so no self-loop or parallel link appears.
 * Returns 1 when connected, 0 when no such pair of edges exists, or a negative TL_E*
 * code. */
static int connect(rgraph *g, tl_rng *r, tl_err *err)
{
    /* each round removes a component */
    for (uint32_t round = 0; round < g->n_nodes; round++) {
        if (components_and_bridges(g) == 1)
            return 1;
        uint64_t n_cand = 0;
        for (uint32_t c = 0; c < g->n_classes; c++)
            if (class_is_split(g, c))
                for (uint32_t e = g->cls_off[c]; e < g->cls_off[c + 1]; e++)
                    n_cand += !g->is_bridge[e];
        if (n_cand == 0)
            return 0;
        uint64_t k = tl_rng_below(r, n_cand); /* the k-th candidate in slot order */
        uint32_t e = UINT32_MAX, cls = 0;
        for (uint32_t c = 0; c < g->n_classes && e == UINT32_MAX; c++)
            if (class_is_split(g, c))
                for (uint32_t i = g->cls_off[c]; i < g->cls_off[c + 1]; i++)
                    if (!g->is_bridge[i] && k-- == 0) {
                        e = i;
                        cls = c;
                        break;
                    }
        uint32_t first = g->cls_off[cls], last = g->cls_off[cls + 1], ce = g->comp[g->eu[e]];
        uint64_t n_other = 0;
        for (uint32_t i = first; i < last; i++)
            n_other += g->comp[g->eu[i]] != ce;
        uint64_t j = tl_rng_below(r, n_other);
        uint32_t f = first;
        while (g->comp[g->eu[f]] == ce || j-- > 0)
            f++;
        int rc = try_swap(g, e, f, (int)(tl_rng_u64(r) >> 63), err);
        if (rc < 0)
            return rc;
    }
    return components_and_bridges(g) == 1;
}

static int cmp_desc_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* Erdos-Gallai: 1 when deg (n entries, sorted in place descending) is the degree sequence
 * of a simple graph. For every k: sum_{i<k} d_i <= k(k-1) + sum_{i>=k} min(d_i, k),
 * evaluated in O(n) after the sort. */
static int is_graphical(uint32_t *deg, uint32_t n)
{
    qsort(deg, n, sizeof *deg, cmp_desc_u32);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += deg[i];
    if (total % 2)
        return 0;
    uint64_t p_k = 0, p_p = total; /* prefix sums up to k and up to p */
    uint32_t p = n;                /* nodes [0, p) have degree >= k */
    for (uint64_t k = 1; k <= n; k++) {
        p_k += deg[k - 1];
        while (p > 0 && deg[p - 1] < k)
            p_p -= deg[--p];
        uint64_t rhs = k * (k - 1) + (p > k ? (p - k) * k + (total - p_p) : total - p_k);
        if (p_k > rhs)
            return 0;
    }
    return 1;
}

static void rgraph_free(rgraph *g)
{
    free(g->eu);
    free(g->ev);
    free(g->keys);
    free(g->counts);
    free(g->adj_off);
    free(g->adj);
    free(g->comp);
    free(g->disc);
    free(g->low);
    free(g->stack);
    free(g->pos);
    free(g->par_edge);
    free(g->is_bridge);
}

/* Draws a connected loopless multigraph on n_nodes nodes in which node v has, in every
 * class c, as many ports as it appears among stubs[2*cls_off[c] .. 2*cls_off[c+1]).
 * Draw i pairs the shuffled stubs of each class with the stream (seed, purpose, i) and
 * repairs; see REJECT_DRAWS. Parallel links are refused unless unavoidable: when the total
 * degree sequence or one class's sequence fails Erdos-Gallai (then the repair only keeps
 * their number from growing), or when MAX_DRAWS/2 draws found no simple graph (possible
 * only with several classes, whose per-class and total tests are necessary, not
 * sufficient). The caller has checked that every node has a port and that there are at
 * least n_nodes - 1 edges. On success g->eu/ev hold the edges; the caller frees g with
 * rgraph_free either way. Cost: O(m) per draw plus O(n + m) per component joined. */
static int rgraph_draw(rgraph *g, uint32_t n_nodes, uint32_t n_classes, const uint32_t *cls_off,
                       const uint32_t *stubs, uint64_t seed, const char *purpose, tl_err *err)
{
    memset(g, 0, sizeof *g);
    g->n_nodes = n_nodes;
    g->n_classes = n_classes;
    g->cls_off = cls_off;
    uint32_t m = g->n_edges = cls_off[n_classes];
    size_t nn = (size_t)n_nodes + 1, mm = (size_t)m + 1;
    /* about 64 bytes a link (ends, adjacency, stubs, pair table) and 32 a node */
    char what[96];
    snprintf(what, sizeof what, "a random graph of %u switch links", m);
    if (tl_mem_check(64.0 * (double)mm + 32.0 * (double)nn, what, err))
        return err ? err->code : TL_ERANGE;
    g->eu = malloc(mm * sizeof *g->eu);
    g->ev = malloc(mm * sizeof *g->ev);
    g->adj_off = malloc(nn * sizeof *g->adj_off);
    g->adj = malloc(2 * mm * sizeof *g->adj);
    g->comp = malloc(nn * sizeof *g->comp);
    g->disc = malloc(nn * sizeof *g->disc);
    g->low = malloc(nn * sizeof *g->low);
    g->stack = malloc(nn * sizeof *g->stack);
    g->pos = malloc(nn * sizeof *g->pos);
    g->par_edge = malloc(nn * sizeof *g->par_edge);
    g->is_bridge = malloc(mm);
    uint32_t *work = malloc(2 * mm * sizeof *work); /* (2m) shuffled stubs */
    uint32_t *deg = calloc(nn, sizeof *deg);        /* (n) total degree */
    int rc = 0;
    if (!g->eu || !g->ev || !g->adj_off || !g->adj || !g->comp || !g->disc || !g->low ||
        !g->stack || !g->pos || !g->par_edge || !g->is_bridge || !work || !deg) {
        rc = tl_err_nomem(err);
        goto done;
    }
    int is_simple_possible = 1;
    for (uint32_t c = 0; c < n_classes && is_simple_possible; c++) {
        /* the class's own degree sequence: its sorted stubs, run-length counted */
        size_t n_s = 2 * (size_t)(cls_off[c + 1] - cls_off[c]), n_d = 0;
        memcpy(work, stubs + 2 * (size_t)cls_off[c], n_s * sizeof *work);
        qsort(work, n_s, sizeof *work, cmp_desc_u32);
        for (size_t i = 0; i < n_s; i++) {
            if (i == 0 || work[i] != work[i - 1])
                deg[n_d++] = 0;
            deg[n_d - 1]++;
        }
        is_simple_possible = is_graphical(deg, (uint32_t)n_d);
    }
    memset(deg, 0, nn * sizeof *deg);
    for (size_t i = 0; i < 2 * (size_t)m; i++)
        deg[stubs[i]]++;
    is_simple_possible = is_simple_possible && is_graphical(deg, n_nodes);
    for (uint32_t draw = 0; draw < MAX_DRAWS; draw++) {
        if (draw == MAX_DRAWS / 2)
            is_simple_possible = 0; /* Erdos-Gallai passed but no draw was simple */
        tl_rng r;
        tl_rng_init(&r, seed, purpose, draw);
        memcpy(work, stubs, 2 * (size_t)m * sizeof *work);
        for (uint32_t c = 0; c < n_classes; c++) {
            uint32_t *s = work + 2 * (size_t)cls_off[c];
            uint64_t n_s = 2 * (uint64_t)(cls_off[c + 1] - cls_off[c]);
            for (uint64_t i = n_s; i > 1; i--) { /* Fisher-Yates */
                uint64_t j = tl_rng_below(&r, i);
                uint32_t tmp = s[i - 1];
                s[i - 1] = s[j];
                s[j] = tmp;
            }
        }
        for (uint32_t e = 0; e < m; e++) {
            g->eu[e] = work[2 * (size_t)e];
            g->ev[e] = work[2 * (size_t)e + 1];
        }
        if ((rc = table_rebuild(g, err)))
            goto done;
        uint64_t budget = 64 * (uint64_t)m + 4096;
        if ((rc = repair(g, &r, &budget, err)))
            goto done;
        int has_loop = 0, has_parallel = 0;
        for (uint32_t e = 0; e < m; e++) {
            has_loop |= g->eu[e] == g->ev[e];
            has_parallel |= pair_count(g, g->eu[e], g->ev[e]) > 1;
        }
        if (has_loop || (has_parallel && is_simple_possible))
            continue;
        if ((rc = mix(g, &r, MIX_SWAPS_PER_EDGE * (uint64_t)m, err)))
            goto done;
        if (draw + 1 < REJECT_DRAWS && components_and_bridges(g) > 1)
            continue;
        int got = connect(g, &r, err);
        if (got < 0) {
            rc = got;
            goto done;
        }
        if (got)
            goto done;
    }
    rc = tl_err_set(err, TL_EINVAL,
                    "no %s random graph found in %d draws: the degree sequence (%u nodes, %u "
                    "links in %u rate classes) may have no such realization",
                    is_simple_possible ? "simple connected" : "connected loopless", MAX_DRAWS,
                    n_nodes, m, n_classes);
done:
    free(work);
    free(deg);
    return rc;
}

/* ------------------------------------------------------------- topology output */

typedef struct edge_rec {
    uint32_t cls, lo, hi;
} edge_rec;

static int cmp_edge(const void *a, const void *b)
{
    const edge_rec *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Adds g's edges between switches sw0 + u and sw0 + v in a canonical order (class, then
 * endpoints), so equal graphs give equal link lists. */
static int add_graph_links(tl_topo *t, const rgraph *g, uint32_t sw0, const uint64_t *cls_bps,
                           const int64_t *cls_delay_ps, tl_err *err)
{
    edge_rec *recs = malloc(((size_t)g->n_edges + 1) * sizeof *recs);
    if (!recs)
        return tl_err_nomem(err);
    for (uint32_t c = 0; c < g->n_classes; c++)
        for (uint32_t e = g->cls_off[c]; e < g->cls_off[c + 1]; e++) {
            uint32_t u = g->eu[e], v = g->ev[e];
            recs[e] = (edge_rec){c, u < v ? u : v, u < v ? v : u};
        }
    qsort(recs, g->n_edges, sizeof *recs, cmp_edge);
    int rc = 0;
    for (uint32_t e = 0; e < g->n_edges && !rc; e++)
        if (tl_topo_add_link(t, sw0 + recs[e].lo, sw0 + recs[e].hi, cls_bps[recs[e].cls],
                             cls_delay_ps[recs[e].cls], err) < 0)
            rc = fail_code(err);
    free(recs);
    return rc;
}

/* ------------------------------------------------------------------ Jellyfish */

tl_topo *tl_topo_jellyfish(uint32_t n_switches, uint32_t degree, uint32_t servers_per_switch,
                           uint64_t seed, uint64_t link_bps, tl_err *err)
{
    if (n_switches < 2)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "n_switches", "expected >= 2, found %u",
                         n_switches),
               NULL;
    if (degree < 1 || degree >= n_switches)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "degree",
                         "expected 1..%u (n_switches - 1) for a simple graph, found %u",
                         n_switches - 1, degree),
               NULL;
    if (degree == 1 && n_switches > 2)
        return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "degree",
                         "degree 1 connects only 2 switches, found n_switches = %u", n_switches),
               NULL;
    if ((uint64_t)n_switches * degree % 2)
        return tl_err_at(err, TL_EINVAL, NULL, 0, 0, "degree",
                         "expected n_switches * degree even, found %u * %u", n_switches, degree),
               NULL;
    if (tl_topo_require_count("servers_per_switch", servers_per_switch, err))
        return NULL;
    uint64_t n_hosts = tl_sat_mul(n_switches, servers_per_switch);
    uint64_t n_edges = (uint64_t)n_switches * degree / 2;
    if (tl_topo_check_count(tl_sat_add(n_hosts, n_switches), tl_sat_add(n_hosts, n_edges), err))
        return NULL;
    uint64_t rate = link_bps ? link_bps : DEFAULT_BPS;
    int64_t delay = DELAY_PS;

    uint32_t cls_off[2] = {0, (uint32_t)n_edges};
    uint32_t *stubs = malloc((2 * n_edges + 1) * sizeof *stubs); /* (2m) node of each port */
    rgraph g;
    memset(&g, 0, sizeof g);
    tl_topo *t = NULL;
    int rc = stubs ? 0 : tl_err_nomem(err);
    if (!rc) {
        for (uint64_t i = 0; i < 2 * n_edges; i++)
            stubs[i] = (uint32_t)(i / degree);
        rc = rgraph_draw(&g, n_switches, 1, cls_off, stubs, seed, "jellyfish", err);
    }
    if (!rc && !(t = tl_topo_create(err)))
        rc = fail_code(err);
    uint32_t sw0 = (uint32_t)n_hosts;
    for (uint32_t s = 0; s < n_switches && !rc; s++)
        for (uint32_t i = 0; i < servers_per_switch && !rc; i++)
            if (tl_topo_add_node(t, TL_NODE_HOST, 0, 0, (int)s, 0, err) < 0)
                rc = fail_code(err);
    for (uint32_t s = 0; s < n_switches && !rc; s++)
        if (tl_topo_add_node(t, TL_NODE_SWITCH, 1, 0, (int)s, 0, err) < 0)
            rc = fail_code(err);
    for (uint32_t h = 0; h < n_hosts && !rc; h++)
        if (tl_topo_add_link(t, h, sw0 + h / servers_per_switch, rate, delay, err) < 0)
            rc = fail_code(err);
    if (!rc)
        rc = add_graph_links(t, &g, sw0, &rate, &delay, err);
    if (!rc)
        rc = tl_topo_finish(t, err);
    free(stubs);
    rgraph_free(&g);
    if (rc) {
        tl_topo_destroy(t);
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------ same equipment */

typedef struct link_rec {
    uint64_t rate_bps;
    int64_t delay_ps;
    uint32_t a, b; /* graph nodes */
    uint32_t idx;  /* t's link id: keeps the stub order a function of t */
} link_rec;

static int cmp_link_class(const void *a, const void *b)
{
    const link_rec *x = a, *y = b;
    if (x->rate_bps != y->rate_bps)
        return x->rate_bps < y->rate_bps ? -1 : 1;
    return (x->delay_ps > y->delay_ps) - (x->delay_ps < y->delay_ps);
}

static int cmp_link_rec(const void *a, const void *b)
{
    int c = cmp_link_class(a, b);
    const link_rec *x = a, *y = b;
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* A server of the result: the graph node it hangs off and its link. */
typedef struct server_rec {
    uint32_t gnode;
    uint64_t rate_bps;
    int64_t delay_ps;
} server_rec;

/* Spread mode: moves the servers hanging off t's switches so each switch gets
 * its share of them in proportion to its ports (switch links + servers),
 * largest remainders first, ties to the lower graph node, and rewrites the stubs
 * so each switch keeps its port count. Multi-homed hosts (server-centric
 * nodes) keep their server and links. The total number of stubs is unchanged
 * (every server taken from a port gives a port back). Needs one link class. */
static int spread_servers(const tl_topo *t, const uint32_t *gnode, uint32_t n_g,
                          server_rec *servers, uint32_t n_srv, uint32_t n_gl, uint32_t *stubs,
                          tl_err *err)
{
    uint32_t n_in = tl_topo_n_nodes(t);
    uint32_t *ports = calloc((size_t)n_g + 1, sizeof *ports);
    uint32_t *quota = calloc((size_t)n_g + 1, sizeof *quota);
    double *frac = malloc(((size_t)n_g + 1) * sizeof *frac);
    uint8_t *is_sw = calloc((size_t)n_g + 1, 1);
    int rc = 0;
    if (!ports || !quota || !frac || !is_sw) {
        rc = tl_err_nomem(err);
        goto done;
    }
    for (uint32_t v = 0; v < n_in; v++)
        if (gnode[v] != UINT32_MAX && tl_topo_node(t, v)->kind == TL_NODE_SWITCH)
            is_sw[gnode[v]] = 1;
    for (size_t i = 0; i < 2 * (size_t)n_gl; i++)
        ports[stubs[i]]++;
    uint64_t total = 0, moving = 0;
    for (uint32_t s = 0; s < n_srv; s++)
        if (is_sw[servers[s].gnode])
            ports[servers[s].gnode]++, moving++;
    for (uint32_t v = 0; v < n_g; v++)
        if (is_sw[v])
            total += ports[v];
    uint64_t given = 0;
    for (uint32_t v = 0; v < n_g; v++) {
        if (!is_sw[v])
            continue;
        double share = (double)moving * ports[v] / (double)total;
        quota[v] = (uint32_t)share;
        frac[v] = share - quota[v];
        given += quota[v];
    }
    for (; given < moving; given++) { /* largest remainder, lowest node on ties */
        uint32_t best = UINT32_MAX;
        for (uint32_t v = 0; v < n_g; v++)
            if (is_sw[v] && (best == UINT32_MAX || frac[v] > frac[best]))
                best = v;
        quota[best]++;
        frac[best] = -1;
    }
    for (uint32_t s = 0, v = 0; s < n_srv; s++) {
        if (!is_sw[servers[s].gnode])
            continue;
        while (!is_sw[v] || quota[v] == 0)
            v++;
        servers[s].gnode = v;
        quota[v]--;
        ports[v]--; /* now the switch's network degree */
    }
    size_t k = 0;
    for (uint32_t v = 0; v < n_g; v++) {
        if (ports[v] == 0) {
            rc = tl_err_set(err, TL_EINVAL,
                            "spreading servers leaves a switch with no switch link");
            goto done;
        }
        for (uint32_t i = 0; i < ports[v]; i++)
            stubs[k++] = v;
    }
done:
    free(ports);
    free(quota);
    free(frac);
    free(is_sw);
    return rc;
}

/* Graph nodes are t's switches and multi-homed hosts, numbered in t's id order; every
 * other host is a server of its one neighbour. Link classes are the distinct (rate, delay)
 * pairs of links between graph nodes, ordered by rate then delay; the stubs of each class
 * list its links' endpoints in t's link order. */
static tl_topo *same_equipment(const tl_topo *t, uint64_t seed, int spread, tl_err *err)
{
    uint32_t n_in = tl_topo_n_nodes(t), n_links_in = tl_topo_n_links(t);
    uint32_t *gnode = malloc(((size_t)n_in + 1) * sizeof *gnode); /* (n_in) or UINT32_MAX */
    link_rec *glinks = malloc(((size_t)n_links_in + 1) * sizeof *glinks);
    server_rec *servers = malloc(((size_t)n_in + 1) * sizeof *servers);
    server_rec *sorted = malloc(((size_t)n_in + 1) * sizeof *sorted);
    uint32_t *stubs = malloc((2 * (size_t)n_links_in + 1) * sizeof *stubs);
    uint32_t *cls_off = malloc(((size_t)n_links_in + 2) * sizeof *cls_off);
    uint64_t *cls_bps = malloc(((size_t)n_links_in + 1) * sizeof *cls_bps);
    int64_t *cls_delay = malloc(((size_t)n_links_in + 1) * sizeof *cls_delay);
    uint32_t *srv_off = calloc((size_t)n_in + 2, sizeof *srv_off); /* CSR servers per gnode */
    rgraph g;
    memset(&g, 0, sizeof g);
    tl_topo *out = NULL;
    int rc = 0;
    if (!gnode || !glinks || !servers || !sorted || !stubs || !cls_off || !cls_bps || !cls_delay ||
        !srv_off) {
        rc = tl_err_nomem(err);
        goto done;
    }

    uint32_t n_g = 0, n_srv = 0, n_gl = 0;
    for (uint32_t v = 0; v < n_in; v++) {
        uint32_t deg;
        tl_topo_out_chans(t, v, &deg);
        gnode[v] = tl_topo_node(t, v)->kind == TL_NODE_SWITCH || deg >= 2 ? n_g++ : UINT32_MAX;
    }
    for (uint32_t v = 0; v < n_in; v++) {
        uint32_t deg;
        const uint32_t *ch = tl_topo_out_chans(t, v, &deg);
        if (tl_topo_node(t, v)->kind != TL_NODE_HOST)
            continue;
        const tl_link *first = tl_topo_link(t, tl_chan_link(ch[0]));
        uint32_t peer = tl_topo_chan_to(t, ch[0]);
        if (gnode[v] == UINT32_MAX && gnode[peer] == UINT32_MAX) {
            rc = tl_err_set(err, TL_EINVAL,
                            "hosts %u and %u are linked only to each other: no switch to keep", v,
                            peer);
            goto done;
        }
        /* single-homed: a server of its neighbour; multi-homed: a switch with a server */
        servers[n_srv++] = (server_rec){gnode[v] == UINT32_MAX ? gnode[peer] : gnode[v],
                                        first->rate_bps, first->delay_ps};
    }
    for (uint32_t l = 0; l < n_links_in; l++) {
        const tl_link *lk = tl_topo_link(t, l);
        if (gnode[lk->a] != UINT32_MAX && gnode[lk->b] != UINT32_MAX)
            glinks[n_gl++] = (link_rec){lk->rate_bps, lk->delay_ps, gnode[lk->a], gnode[lk->b], l};
    }
    if (n_g >= 2 && n_gl + 1 < n_g) {
        rc = tl_err_set(err, TL_EINVAL,
                        "%u switches cannot be connected by %u switch-to-switch links", n_g, n_gl);
        goto done;
    }
    if (n_g >= 2) {
        uint32_t *gdeg = srv_off; /* borrowed as a degree count, reset below */
        for (uint32_t l = 0; l < n_gl; l++) {
            gdeg[glinks[l].a]++;
            gdeg[glinks[l].b]++;
        }
        for (uint32_t v = 0; v < n_in; v++)
            if (gnode[v] != UINT32_MAX && gdeg[gnode[v]] == 0) {
                rc = tl_err_set(err, TL_EINVAL,
                                "node %u has no link to another switch: no connected random "
                                "graph keeps its equipment",
                                v);
                goto done;
            }
        memset(srv_off, 0, ((size_t)n_in + 2) * sizeof *srv_off);
    }

    qsort(glinks, n_gl, sizeof *glinks, cmp_link_rec);
    uint32_t n_cls = 0;
    for (uint32_t l = 0; l < n_gl; l++)
        if (l == 0 || cmp_link_class(&glinks[l - 1], &glinks[l]) != 0) {
            cls_off[n_cls] = l;
            cls_bps[n_cls] = glinks[l].rate_bps;
            cls_delay[n_cls++] = glinks[l].delay_ps;
        }
    cls_off[n_cls] = n_gl;
    for (uint32_t l = 0; l < n_gl; l++) {
        stubs[2 * (size_t)l] = glinks[l].a;
        stubs[2 * (size_t)l + 1] = glinks[l].b;
    }
    if (spread && n_cls > 1) {
        rc = tl_err_set(err, TL_EINVAL, "spreading servers needs switch-to-switch links of one "
                        "rate and delay; found %u kinds", n_cls);
        goto done;
    }
    if (spread && (rc = spread_servers(t, gnode, n_g, servers, n_srv, n_gl, stubs, err)))
        goto done;
    if (n_gl && (rc = rgraph_draw(&g, n_g, n_cls, cls_off, stubs, seed,
                                  spread ? "same_equipment_spread" : "same_equipment", err)))
        goto done;

    /* servers grouped by graph node, in t's host order within a node */
    for (uint32_t s = 0; s < n_srv; s++)
        srv_off[servers[s].gnode + 1]++;
    for (uint32_t v = 0; v < n_g; v++)
        srv_off[v + 1] += srv_off[v];
    for (uint32_t s = 0; s < n_srv; s++)
        sorted[srv_off[servers[s].gnode]++] = servers[s];

    if (!(out = tl_topo_create(err))) {
        rc = fail_code(err);
        goto done;
    }
    for (uint32_t s = 0; s < n_srv && !rc; s++)
        if (tl_topo_add_node(out, TL_NODE_HOST, 0, -1, -1, 0, err) < 0)
            rc = fail_code(err);
    for (uint32_t v = 0; v < n_g && !rc; v++)
        if (tl_topo_add_node(out, TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, err) < 0)
            rc = fail_code(err);
    for (uint32_t s = 0; s < n_srv && !rc; s++)
        if (tl_topo_add_link(out, s, n_srv + sorted[s].gnode, sorted[s].rate_bps,
                             sorted[s].delay_ps, err) < 0)
            rc = fail_code(err);
    if (!rc && n_gl)
        rc = add_graph_links(out, &g, n_srv, cls_bps, cls_delay, err);
    if (!rc)
        rc = tl_topo_finish(out, err);
done:
    free(gnode);
    free(glinks);
    free(servers);
    free(sorted);
    free(stubs);
    free(cls_off);
    free(cls_bps);
    free(cls_delay);
    free(srv_off);
    rgraph_free(&g);
    if (rc) {
        tl_topo_destroy(out);
        return NULL;
    }
    return out;
}

tl_topo *tl_topo_same_equipment(const tl_topo *t, uint64_t seed, tl_err *err)
{
    return same_equipment(t, seed, 0, err);
}

tl_topo *tl_topo_same_equipment_spread(const tl_topo *t, uint64_t seed, tl_err *err)
{
    return same_equipment(t, seed, 1, err);
}
