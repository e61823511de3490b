/* Bounds and cuts (topology-throughput.txt §II-B, §III-B): the volumetric
 * upper bound, bisection bandwidth and sparsest cut. Both cut problems are
 * NP-hard: up to TL_CUT_BRUTE_MAX nodes every subset is tried (a Gray-code walk
 * that flips one node per step, O(2^(n-1) x degree)); above, heuristics as in
 * the paper: spectral (Fiedler vector by power iteration) sweeps, subsets of
 * one or two nodes, BFS-grown regions, then local moves (Kernighan-Lin swaps
 * for the balanced bisection). A heuristic value is the value of a real cut,
 * so it is an upper bound on the true minimum. */
#include "tailor/throughput.h"

#include <stdio.h>

#include "tailor/rng.h"
#include "throughput/throughput_int.h"

/* 25 covers the paper's K5 x K5 flattened butterfly (2^24 subsets, ~0.2 s). */
#define TL_CUT_BRUTE_MAX 25u

/* ---------------------------------------------------------------- volumetric bound */

double tl_tput_upper_bound_paths(const tl_tgraph *g, const tl_tm *tm, const uint16_t *dist)
{
    if (!g || !tm || !dist || (g->n_edges && !g->cap) || (tm->n && (!tm->src || !tm->dst ||
                                                                    !tm->demand)))
        return NAN;
    double cap = 0, work = 0;
    for (uint32_t e = 0; e < g->n_edges; e++)
        cap += 2 * g->cap[e]; /* both directions */
    for (size_t j = 0; j < tm->n; j++) {
        uint32_t s = tm->src[j], t = tm->dst[j];
        if (s >= g->n_nodes || t >= g->n_nodes || !(tm->demand[j] >= 0))
            return NAN;
        if (tm->demand[j] == 0)
            continue;
        uint16_t h = dist[(size_t)s * g->n_nodes + t];
        if (h == UINT16_MAX)
            return 0; /* an unroutable demand */
        work += tm->demand[j] * h;
    }
    return work > 0 ? cap / work : INFINITY;
}

void tl_cut_fini(tl_cut *c)
{
    if (!c)
        return;
    free(c->side);
    memset(c, 0, sizeof *c);
}

/* ---------------------------------------------------------------- shared views */

/* Undirected neighbour lists: capacity and demand (both directions summed)
 * between v and each node it shares an edge or a commodity with. */
typedef struct nbr {
    uint32_t u;
    double w, d;
} nbr;

typedef struct cutg {
    uint32_t n;
    uint32_t *off; /* (n + 1) */
    nbr *nb;       /* (off[n]) */
    double *wdeg;  /* (n) capacity at v */
    double *ddeg;  /* (n) demand in and out of v */
} cutg;

static void cutg_fini(cutg *c)
{
    free(c->off), free(c->nb), free(c->wdeg), free(c->ddeg);
    memset(c, 0, sizeof *c);
}

static int nbr_cmp(const void *a, const void *b)
{
    const nbr *x = a, *y = b;
    return x->u < y->u ? -1 : x->u > y->u;
}

/* Builds the merged lists from g's edges and, when dm is given, its demands. */
static int cutg_build(cutg *c, const tl_tgraph *g, const tl_tput_dem *dm, tl_err *err)
{
    memset(c, 0, sizeof *c);
    uint32_t n = g->n_nodes;
    size_t n_entries = 2 * (size_t)g->n_edges + (dm ? 2 * dm->n_pairs : 0);
    c->n = n;
    c->off = calloc((size_t)n + 1, sizeof *c->off);
    c->nb = malloc((n_entries ? n_entries : 1) * sizeof *c->nb);
    c->wdeg = calloc(n, sizeof *c->wdeg);
    c->ddeg = calloc(n, sizeof *c->ddeg);
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!c->off || !c->nb || !c->wdeg || !c->ddeg || !fill) {
        free(fill);
        cutg_fini(c);
        return tl_err_nomem(err);
    }
    for (uint32_t e = 0; e < g->n_edges; e++)
        c->off[g->eu[e] + 1]++, c->off[g->ev[e] + 1]++;
    if (dm)
        for (uint32_t i = 0; i < dm->n_src; i++)
            for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
                c->off[dm->src[i] + 1]++, c->off[dm->dst[j] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        c->off[v + 1] += c->off[v];
    memcpy(fill, c->off, ((size_t)n + 1) * sizeof *fill);
    for (uint32_t e = 0; e < g->n_edges; e++) {
        uint32_t u = g->eu[e], v = g->ev[e];
        double w = g->cap[e];
        c->nb[fill[u]++] = (nbr){v, w, 0};
        c->nb[fill[v]++] = (nbr){u, w, 0};
        c->wdeg[u] += w, c->wdeg[v] += w;
    }
    if (dm)
        for (uint32_t i = 0; i < dm->n_src; i++)
            for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
                uint32_t s = dm->src[i], t = dm->dst[j];
                double d = dm->d[j];
                c->nb[fill[s]++] = (nbr){t, 0, d};
                c->nb[fill[t]++] = (nbr){s, 0, d};
                c->ddeg[s] += d, c->ddeg[t] += d;
            }
    free(fill);
    /* Merge entries of the same neighbour so a pair is one entry. */
    uint32_t w_at = 0;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t b = c->off[v], e = c->off[v + 1];
        qsort(c->nb + b, e - b, sizeof *c->nb, nbr_cmp);
        c->off[v] = w_at;
        for (uint32_t k = b; k < e; k++) {
            if (w_at > c->off[v] && c->nb[w_at - 1].u == c->nb[k].u) {
                c->nb[w_at - 1].w += c->nb[k].w;
                c->nb[w_at - 1].d += c->nb[k].d;
            } else {
                c->nb[w_at++] = c->nb[k];
            }
        }
    }
    c->off[n] = w_at;
    return 0;
}

/* Capacity (one direction) and demand (both directions) across side. */
static void cut_eval(const cutg *c, const uint8_t *side, double *cap, double *dem)
{
    double w = 0, d = 0;
    for (uint32_t v = 0; v < c->n; v++)
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++)
            if (c->nb[k].u > v && side[c->nb[k].u] != side[v])
                w += c->nb[k].w, d += c->nb[k].d;
    *cap = w, *dem = d;
}

static int alloc_side(tl_cut *out, uint32_t n, tl_err *err)
{
    out->side = calloc(n, 1);
    return out->side ? 0 : tl_err_nomem(err);
}

/* ---------------------------------------------------------------- brute force */

/* Every split with node n-1 on side 0 (a split and its mirror are the same
 * cut), visited in Gray-code order so each step flips one node and updates the
 * sums along that node's list. mode 0: bisection (fewest servers apart, then
 * least capacity); mode 1: sparsest (least 2 cap / demand). Writes the best
 * side into best_side. Sums drift by rounding over 2^24 steps; the caller
 * re-evaluates the winner from scratch. */
static void brute_force(const cutg *c, const uint32_t *servers, int mode, uint8_t *best_side)
{
    uint32_t n = c->n, n_free = n - 1;
    uint32_t side = 0, best = 0;
    double w = 0, d = 0, best_val = INFINITY;
    int64_t s_one = 0, s_all = 0, best_imb = INT64_MAX;
    if (servers)
        for (uint32_t v = 0; v < n; v++)
            s_all += servers[v];
    for (uint64_t i = 1; i < (UINT64_C(1) << n_free); i++) {
        uint32_t v = (uint32_t)__builtin_ctzll(i);
        uint32_t bit = (side >> v) & 1u;
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
            const nbr *e = &c->nb[k];
            if (((side >> e->u) & 1u) == bit)
                w += e->w, d += e->d; /* was inside with v, now across */
            else
                w -= e->w, d -= e->d;
        }
        side ^= 1u << v;
        if (mode == 0) {
            s_one += bit ? -(int64_t)servers[v] : (int64_t)servers[v];
            int64_t imb = s_all - 2 * s_one;
            imb = imb < 0 ? -imb : imb;
            if (imb < best_imb || (imb == best_imb && w < best_val)) {
                best_imb = imb, best_val = w, best = side;
            }
        } else if (d > 1e-12 * c->n) {
            double r = w / d;
            if (r < best_val)
                best_val = r, best = side;
        }
    }
    for (uint32_t v = 0; v < n; v++)
        best_side[v] = (best >> v) & 1u;
}

/* ---------------------------------------------------------------- spectral */

/* Fiedler vector of the capacity-weighted Laplacian L by power iteration on
 * sigma I - L (sigma = 2 x max weighted degree, so that matrix is PSD and the
 * Fiedler vector is its top eigenvector once constants are projected out).
 * The start vector is a fixed pseudo-random one: results are deterministic.
 * Converges slowly on expanders (lambda2 ~ lambda3), where any vector of the
 * low eigenspace serves a sweep about as well. */
static int fiedler(const cutg *c, double *x, tl_err *err)
{
    uint32_t n = c->n;
    double *y = malloc((size_t)n * sizeof *y);
    if (!y)
        return tl_err_nomem(err);
    double sigma = 0;
    for (uint32_t v = 0; v < n; v++)
        sigma = fmax(sigma, 2 * c->wdeg[v]);
    tl_rng r;
    tl_rng_init(&r, 1, "fiedler", n);
    for (uint32_t v = 0; v < n; v++)
        x[v] = tl_rng_uniform(&r) - 0.5;
    double rq_prev = -1;
    for (int it = 0; it < 3000; it++) {
        double mean = 0, norm = 0;
        for (uint32_t v = 0; v < n; v++)
            mean += x[v];
        mean /= n;
        for (uint32_t v = 0; v < n; v++)
            x[v] -= mean, norm += x[v] * x[v];
        norm = sqrt(norm);
        if (!(norm > 0))
            break;
        for (uint32_t v = 0; v < n; v++)
            x[v] /= norm;
        double rq = 0;
        for (uint32_t v = 0; v < n; v++) {
            double lx = c->wdeg[v] * x[v];
            for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++)
                lx -= c->nb[k].w * x[c->nb[k].u];
            y[v] = sigma * x[v] - lx;
            rq += x[v] * y[v];
        }
        memcpy(x, y, (size_t)n * sizeof *x);
        if (fabs(rq - rq_prev) <= 1e-12 * sigma && it > 20)
            break;
        rq_prev = rq;
    }
    free(y);
    return 0;
}

typedef struct keyed {
    double key;
    uint32_t v;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Nodes in ascending order of x. */
static int order_by(const double *x, uint32_t n, uint32_t *order, tl_err *err)
{
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k)
        return tl_err_nomem(err);
    for (uint32_t v = 0; v < n; v++)
        k[v] = (keyed){x[v], v};
    qsort(k, n, sizeof *k, keyed_cmp);
    for (uint32_t v = 0; v < n; v++)
        order[v] = k[v].v;
    free(k);
    return 0;
}

/* BFS order from root over edges (nodes in other components follow in id order). */
static void bfs_order(const cutg *c, uint32_t root, uint32_t *order, uint8_t *mark)
{
    uint32_t n = c->n, qh = 0, qt = 0;
    memset(mark, 0, n);
    for (uint32_t r = root, done = 0; !done;) {
        order[qt++] = r;
        mark[r] = 1;
        while (qh < qt) {
            uint32_t v = order[qh++];
            for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++)
                if (c->nb[k].w > 0 && !mark[c->nb[k].u]) {
                    mark[c->nb[k].u] = 1;
                    order[qt++] = c->nb[k].u;
                }
        }
        done = 1;
        for (uint32_t v = 0; v < n; v++)
            if (!mark[v]) {
                r = v, done = 0;
                break;
            }
    }
}

/* Region grown from root by maximum adjacency: next comes the outside node
 * with the most capacity into the region (ties to the earliest reached), which
 * grows subcubes in hypercubes and rows in Hamming graphs, where plain BFS
 * grows balls. heap is scratch of 2 x (entries of c) + n. */
typedef struct grow_ent {
    double key;
    uint32_t seq, v;
} grow_ent;

static int grow_before(const grow_ent *a, const grow_ent *b)
{
    return a->key > b->key || (a->key == b->key && a->seq < b->seq);
}

static void grow_order(const cutg *c, uint32_t root, uint32_t *order, uint8_t *mark,
                       double *key, grow_ent *heap)
{
    uint32_t n = c->n, qn = 0, hn = 0, seq = 0;
    memset(mark, 0, n);
    for (uint32_t v = 0; v < n; v++)
        key[v] = 0;
    for (uint32_t next_root = 0; qn < n;) {
        if (hn == 0) {
            if (mark[root])
                while (mark[next_root])
                    next_root++;
            heap[hn++] = (grow_ent){0, seq++, mark[root] ? next_root : root};
        }
        grow_ent top = heap[0];
        grow_ent last = heap[--hn];
        for (uint32_t i = 0;;) { /* sift last down from the root */
            uint32_t ch = 2 * i + 1;
            if (ch >= hn) {
                heap[i] = last;
                break;
            }
            if (ch + 1 < hn && grow_before(&heap[ch + 1], &heap[ch]))
                ch++;
            if (!grow_before(&heap[ch], &last)) {
                heap[i] = last;
                break;
            }
            heap[i] = heap[ch];
            i = ch;
        }
        uint32_t v = top.v;
        if (mark[v] || top.key != key[v])
            continue; /* stale */
        mark[v] = 1;
        order[qn++] = v;
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
            uint32_t u = c->nb[k].u;
            if (mark[u] || c->nb[k].w <= 0)
                continue;
            key[u] += c->nb[k].w;
            grow_ent e = {key[u], seq++, u};
            uint32_t i = hn++;
            while (i > 0 && grow_before(&e, &heap[(i - 1) / 2])) {
                heap[i] = heap[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            heap[i] = e;
        }
    }
}

/* ---------------------------------------------------------------- sparsest cut */

/* Best prefix of order as side 1: returns its ratio and its length in *best_len. */
static double sweep(const cutg *c, const uint32_t *order, uint8_t *in, uint32_t *best_len)
{
    uint32_t n = c->n;
    memset(in, 0, n);
    double w = 0, d = 0, best = INFINITY;
    *best_len = 0;
    for (uint32_t i = 0; i + 1 < n; i++) {
        uint32_t v = order[i];
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
            const nbr *e = &c->nb[k];
            if (in[e->u])
                w -= e->w, d -= e->d;
            else
                w += e->w, d += e->d;
        }
        in[v] = 1;
        if (d > 1e-12 * c->n && w / d < best)
            best = w / d, *best_len = i + 1;
    }
    return best;
}

typedef struct cand {
    double ratio;
    const char *method;
} cand;

/* Single-node moves while one lowers cap / demand (gains kept per node, a
 * move updates its neighbours): a local optimum around the best heuristic cut. */
static int local_moves(const cutg *c, uint8_t *side, double *ratio, tl_err *err)
{
    uint32_t n = c->n;
    double *gw = malloc((size_t)n * sizeof *gw), *gd = malloc((size_t)n * sizeof *gd);
    if (!gw || !gd) {
        free(gw), free(gd);
        return tl_err_nomem(err);
    }
    double w, d;
    cut_eval(c, side, &w, &d);
    /* g*(v): change in the sums if v switches sides. */
    for (uint32_t v = 0; v < n; v++) {
        gw[v] = gd[v] = 0;
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
            double sgn = side[c->nb[k].u] == side[v] ? 1 : -1;
            gw[v] += sgn * c->nb[k].w, gd[v] += sgn * c->nb[k].d;
        }
    }
    uint32_t n1 = 0;
    for (uint32_t v = 0; v < n; v++)
        n1 += side[v];
    for (uint32_t moves = 0; moves < n; moves++) {
        double best = w / d;
        uint32_t bv = UINT32_MAX;
        for (uint32_t v = 0; v < n; v++) {
            double nd = d + gd[v];
            if (nd <= 1e-12 * n || (side[v] ? n1 == 1 : n1 == n - 1))
                continue;
            double r = (w + gw[v]) / nd;
            if (r < best * (1 - 1e-12))
                best = r, bv = v;
        }
        if (bv == UINT32_MAX)
            break;
        w += gw[bv], d += gd[bv];
        n1 += side[bv] ? -1u : 1u;
        side[bv] ^= 1;
        gw[bv] = -gw[bv], gd[bv] = -gd[bv];
        for (uint32_t k = c->off[bv]; k < c->off[bv + 1]; k++) {
            uint32_t u = c->nb[k].u;
            double sgn = side[u] == side[bv] ? 2 : -2; /* u's edge to bv flipped */
            gw[u] += sgn * c->nb[k].w, gd[u] += sgn * c->nb[k].d;
        }
    }
    free(gw), free(gd);
    cut_eval(c, side, &w, &d);
    *ratio = w / d;
    return 0;
}

/* Heuristics for n > TL_CUT_BRUTE_MAX: Fiedler sweep, single nodes and
 * adjacent or communicating pairs, BFS regions from every node (a sample of
 * seeds when that would pass ~4e8 steps), then local moves on the best. */
static int sparsest_heuristic(const cutg *c, tl_cut *out, tl_err *err)
{
    uint32_t n = c->n;
    uint32_t *order = malloc((size_t)n * sizeof *order);
    double *x = malloc((size_t)n * sizeof *x);
    uint8_t *in = malloc(n);
    int rc = !order || !x || !in ? tl_err_nomem(err) : 0;
    double best = INFINITY;
    const char *method = "none";
    if (rc)
        goto done;
#define TAKE_PREFIX(len, name)                                                                     \
    do {                                                                                           \
        memset(out->side, 0, n);                                                                   \
        for (uint32_t i_ = 0; i_ < (len); i_++)                                                    \
            out->side[order[i_]] = 1;                                                              \
        method = (name);                                                                           \
    } while (0)
    rc = fiedler(c, x, err);
    if (!rc)
        rc = order_by(x, n, order, err);
    if (rc)
        goto done;
    uint32_t len;
    double r = sweep(c, order, in, &len);
    if (r < best) {
        best = r;
        TAKE_PREFIX(len, "fiedler sweep");
    }
    /* Singles and pairs: a pair joined by neither an edge nor a commodity is
     * never better than its better single (mediant inequality). */
    for (uint32_t v = 0; v < n; v++) {
        if (c->ddeg[v] > 0 && c->wdeg[v] / c->ddeg[v] < best) {
            best = c->wdeg[v] / c->ddeg[v];
            memset(out->side, 0, n);
            out->side[v] = 1;
            method = "single node";
        }
        for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
            uint32_t u = c->nb[k].u;
            if (u <= v)
                continue;
            double w = c->wdeg[v] + c->wdeg[u] - 2 * c->nb[k].w;
            double d = c->ddeg[v] + c->ddeg[u] - 2 * c->nb[k].d;
            if (d > 1e-12 * n && w / d < best) {
                best = w / d;
                memset(out->side, 0, n);
                out->side[v] = out->side[u] = 1;
                method = "node pair";
            }
        }
    }
    /* Grown regions from every node, or from evenly spaced seeds when that
     * would pass ~2e8 steps. */
    size_t step = ((size_t)n + c->off[n]) * 8;
    uint32_t n_seeds = n;
    if ((double)step * n > 2e8)
        n_seeds = (uint32_t)fmax(1, 2e8 / (double)step);
    double *key = malloc((size_t)n * sizeof *key);
    grow_ent *heap = malloc(((size_t)n + c->off[n] + 1) * sizeof *heap);
    if (!key || !heap) {
        free(key), free(heap);
        rc = tl_err_nomem(err);
        goto done;
    }
    for (uint32_t sd = 0; sd < n_seeds; sd++) {
        uint32_t root = (uint32_t)((uint64_t)sd * n / n_seeds);
        grow_order(c, root, order, in, key, heap);
        r = sweep(c, order, in, &len);
        if (r < best) {
            best = r;
            TAKE_PREFIX(len, "grown region");
        }
    }
    free(key), free(heap);
#undef TAKE_PREFIX
    if (isfinite(best) && n <= 20000) {
        double r2 = INFINITY;
        rc = local_moves(c, out->side, &r2, err);
        if (!rc && r2 < best * (1 - 1e-9)) {
            snprintf(out->method, sizeof out->method, "%s + local moves", method);
            method = NULL;
        }
    }
    if (method)
        snprintf(out->method, sizeof out->method, "%s", method);
done:
    free(order), free(x), free(in);
    return rc;
}

int tl_sparsest_cut(const tl_tgraph *g, const tl_tm *tm, tl_cut *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    tl_tput_net net;
    tl_tput_dem dm;
    cutg c;
    memset(&c, 0, sizeof c);
    memset(&dm, 0, sizeof dm);
    int rc = tl_tput_net_build(&net, g, err);
    if (rc)
        return rc;
    rc = tl_tput_dem_build(&dm, net.n, tm, err);
    if (!rc && net.n < 2)
        rc = tl_err_set(err, TL_EINVAL, "a cut needs at least 2 nodes, the graph has %u", net.n);
    if (!rc)
        rc = cutg_build(&c, g, &dm, err);
    if (!rc)
        rc = alloc_side(out, net.n, err);
    if (rc)
        goto done;
    if (net.n <= TL_CUT_BRUTE_MAX) {
        brute_force(&c, NULL, 1, out->side);
        snprintf(out->method, sizeof out->method, "brute force");
    } else {
        rc = sparsest_heuristic(&c, out, err);
        if (rc)
            goto done;
    }
    double w, d;
    cut_eval(&c, out->side, &w, &d);
    /* Capacity both ways over demand both ways (each direction's capacity is w). */
    out->value = d > 0 ? 2 * w / d : INFINITY;
done:
    cutg_fini(&c);
    tl_tput_dem_fini(&dm);
    tl_tput_net_fini(&net);
    if (rc)
        tl_cut_fini(out);
    return rc;
}

/* ---------------------------------------------------------------- bisection */

/* The fewest servers that can lie between the sides: S - 2 x (the largest
 * subset sum of server counts <= S / 2), by a bitset subset-sum over counts
 * divided by their gcd. Sets *target to that subset sum. */
static int min_imbalance(const uint32_t *servers, uint32_t n, uint64_t *target, tl_err *err)
{
    uint64_t s_all = 0, gcd = 0;
    for (uint32_t v = 0; v < n; v++) {
        s_all += servers[v];
        for (uint64_t a = servers[v], b; a; a = b)
            b = gcd % a, gcd = a; /* gcd(gcd, a) */
    }
    if (!gcd) {
        *target = 0;
        return 0;
    }
    uint64_t half = s_all / 2 / gcd, words = half / 64 + 1;
    uint64_t *bits = calloc(words, sizeof *bits);
    if (!bits)
        return tl_err_nomem(err);
    bits[0] = 1;
    for (uint32_t v = 0; v < n; v++) {
        uint64_t sh = servers[v] / gcd;
        if (!sh || sh > half)
            continue;
        uint64_t ws = sh / 64, bs = sh % 64;
        for (uint64_t i = words; i-- > ws;) {
            uint64_t x = bits[i - ws] << bs;
            if (bs && i > ws)
                x |= bits[i - ws - 1] >> (64 - bs);
            bits[i] |= x;
        }
    }
    uint64_t best = 0;
    for (uint64_t s = half + 1; s-- > 0;)
        if (bits[s / 64] >> (s % 64) & 1) {
            best = s;
            break;
        }
    free(bits);
    *target = best * gcd;
    return 0;
}

/* Side 1 := a subset of exactly target servers, preferring nodes early in
 * order: greedy, then (if greedy misses) a subset-sum table over suffixes of
 * order when it fits in 64 MB. Returns 0 and leaves the greedy split (off
 * target) otherwise; the caller reports the imbalance it reached. */
static int split_in_order(const uint32_t *servers, uint32_t n, const uint32_t *order,
                          uint64_t target, uint8_t *side, tl_err *err)
{
    uint64_t sum = 0;
    memset(side, 0, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = order[i];
        if (servers[v] && sum + servers[v] <= target)
            side[v] = 1, sum += servers[v];
    }
    /* Zero-server nodes follow their neighbours in order: put the first half
     * of them (by order) on side 1 too so the split is not lopsided in nodes. */
    uint32_t n0 = 0, k0 = 0;
    for (uint32_t v = 0; v < n; v++)
        n0 += !servers[v];
    for (uint32_t i = 0; i < n && k0 < n0 / 2; i++)
        if (!servers[order[i]])
            side[order[i]] = 1, k0++;
    if (sum == target)
        return 0;
    uint64_t cols = target + 1, words = cols / 64 + 1, cells;
    if (__builtin_mul_overflow((uint64_t)n + 1, words, &cells) || cells > (64u << 20) / 8)
        return 0;
    uint64_t *tab = calloc(cells, sizeof *tab); /* row i: sums reachable by order[i..n) */
    if (!tab)
        return tl_err_nomem(err);
    tab[(size_t)n * words] = 1;
    for (uint32_t i = n; i-- > 0;) {
        uint64_t *row = tab + (size_t)i * words, *next = row + words;
        uint64_t sh = servers[order[i]];
        memcpy(row, next, words * sizeof *row);
        if (!sh || sh > target)
            continue;
        for (uint64_t s = sh; s <= target; s++)
            if (next[(s - sh) / 64] >> ((s - sh) % 64) & 1)
                row[s / 64] |= UINT64_C(1) << (s % 64);
    }
    if (tab[target / 64] >> (target % 64) & 1) {
        uint64_t left = target;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = order[i];
            if (!servers[v])
                continue;
            const uint64_t *next = tab + (size_t)(i + 1) * words;
            int take = servers[v] <= left && (next[(left - servers[v]) / 64] >>
                                              ((left - servers[v]) % 64) & 1);
            side[v] = (uint8_t)take;
            if (take)
                left -= servers[v];
        }
    }
    free(tab);
    return 0;
}

/* Kernighan-Lin passes that keep the server balance: each step swaps the pair
 * (a on side 0, b on side 1, equal server counts) or moves the zero-server
 * node with the largest gain, locks it, and the pass keeps its best prefix.
 * Candidate pairs are the 8 best-gain nodes per side and server count, a
 * common speed-up of KL's O(n^2) pair search. */
static int kl_refine(const cutg *c, const uint32_t *servers, uint8_t *side, tl_err *err)
{
    enum { TOP = 8 };
    uint32_t n = c->n;
    double *gain = malloc((size_t)n * sizeof *gain);
    uint8_t *locked = malloc(n);
    uint32_t *moved = malloc(2 * (size_t)n * sizeof *moved);
    if (!gain || !locked || !moved) {
        free(gain), free(locked), free(moved);
        return tl_err_nomem(err);
    }
    uint32_t max_steps = n / 2 < 4000 ? n / 2 + 1 : 4000;
    for (int pass = 0; pass < 20; pass++) {
        for (uint32_t v = 0; v < n; v++) {
            gain[v] = 0;
            for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++)
                gain[v] += side[c->nb[k].u] != side[v] ? c->nb[k].w : -c->nb[k].w;
        }
        memset(locked, 0, n);
        double total = 0, best_total = 0;
        uint32_t n_moved = 0, best_moved = 0;
        for (uint32_t step = 0; step < max_steps; step++) {
            /* Best single zero-server move and best candidate pairs. */
            double best = -INFINITY;
            uint32_t ba = UINT32_MAX, bb = UINT32_MAX;
            uint32_t top[2][TOP];
            int n_top[2] = {0, 0};
            for (uint32_t v = 0; v < n; v++) {
                if (locked[v])
                    continue;
                if (!servers[v]) {
                    if (gain[v] > best)
                        best = gain[v], ba = v, bb = UINT32_MAX;
                    continue;
                }
                int s = side[v];
                if (n_top[s] < TOP)
                    top[s][n_top[s]++] = v;
                else {
                    int lo = 0;
                    for (int t = 1; t < TOP; t++)
                        if (gain[top[s][t]] < gain[top[s][lo]])
                            lo = t;
                    if (gain[v] > gain[top[s][lo]])
                        top[s][lo] = v;
                }
            }
            for (int i = 0; i < n_top[0]; i++)
                for (int j = 0; j < n_top[1]; j++) {
                    uint32_t a = top[0][i], b = top[1][j];
                    if (servers[a] != servers[b])
                        continue;
                    double wab = 0;
                    for (uint32_t k = c->off[a]; k < c->off[a + 1]; k++)
                        if (c->nb[k].u == b)
                            wab = c->nb[k].w;
                    double gsum = gain[a] + gain[b] - 2 * wab;
                    if (gsum > best)
                        best = gsum, ba = a, bb = b;
                }
            if (ba == UINT32_MAX)
                break;
            uint32_t pair[2] = {ba, bb};
            for (int p = 0; p < 2 && pair[p] != UINT32_MAX; p++) {
                uint32_t v = pair[p];
                side[v] ^= 1;
                locked[v] = 1;
                gain[v] = -gain[v];
                for (uint32_t k = c->off[v]; k < c->off[v + 1]; k++) {
                    uint32_t u = c->nb[k].u;
                    gain[u] += side[u] != side[v] ? 2 * c->nb[k].w : -2 * c->nb[k].w;
                }
                moved[n_moved++] = v;
            }
            total += best;
            if (total > best_total + 1e-12)
                best_total = total, best_moved = n_moved;
        }
        for (uint32_t i = n_moved; i-- > best_moved;)
            side[moved[i]] ^= 1;
        if (best_moved == 0)
            break;
    }
    free(gain), free(locked), free(moved);
    return 0;
}

int tl_bisection_bandwidth(const tl_tgraph *g, tl_cut *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    tl_tput_net net;
    cutg c;
    memset(&c, 0, sizeof c);
    uint32_t *order = NULL;
    double *x = NULL;
    uint8_t *side = NULL;
    int rc = tl_tput_net_build(&net, g, err);
    if (rc)
        return rc;
    if (!g->servers)
        rc = tl_err_set(err, TL_EINVAL, "throughput graph has no servers array");
    else if (net.n < 2)
        rc = tl_err_set(err, TL_EINVAL, "a cut needs at least 2 nodes, the graph has %u", net.n);
    if (!rc)
        rc = cutg_build(&c, g, NULL, err);
    if (!rc)
        rc = alloc_side(out, net.n, err);
    if (rc)
        goto done;
    uint64_t s_all = 0;
    for (uint32_t v = 0; v < net.n; v++)
        s_all += g->servers[v];
    if (!s_all) {
        rc = tl_err_set(err, TL_EINVAL, "throughput graph has no servers to balance");
        goto done;
    }
    if (net.n <= TL_CUT_BRUTE_MAX) {
        brute_force(&c, g->servers, 0, out->side);
        snprintf(out->method, sizeof out->method, "brute force");
    } else {
        uint64_t target = 0;
        rc = min_imbalance(g->servers, net.n, &target, err);
        order = malloc((size_t)net.n * sizeof *order);
        x = malloc((size_t)net.n * sizeof *x);
        side = malloc(net.n);
        if (!rc && (!order || !x || !side))
            rc = tl_err_nomem(err);
        if (!rc)
            rc = fiedler(&c, x, err);
        if (!rc)
            rc = order_by(x, net.n, order, err);
        if (!rc)
            rc = split_in_order(g->servers, net.n, order, target, out->side, err);
        if (!rc)
            rc = kl_refine(&c, g->servers, out->side, err);
        snprintf(out->method, sizeof out->method, "spectral + kernighan-lin");
        /* A second start: BFS order from the node farthest (in BFS order) from
         * node 0, which splits layered graphs (fat trees, rings) well. */
        if (!rc) {
            bfs_order(&c, 0, order, side);
            bfs_order(&c, order[net.n - 1], order, side);
            rc = split_in_order(g->servers, net.n, order, target, side, err);
        }
        if (!rc)
            rc = kl_refine(&c, g->servers, side, err);
        if (rc)
            goto done;
        double w0, w1, d;
        uint64_t s0 = 0, s1 = 0;
        cut_eval(&c, out->side, &w0, &d);
        cut_eval(&c, side, &w1, &d);
        for (uint32_t v = 0; v < net.n; v++)
            s0 += out->side[v] ? g->servers[v] : 0, s1 += side[v] ? g->servers[v] : 0;
        uint64_t i0 = s0 * 2 > s_all ? s0 * 2 - s_all : s_all - s0 * 2;
        uint64_t i1 = s1 * 2 > s_all ? s1 * 2 - s_all : s_all - s1 * 2;
        if (i1 < i0 || (i1 == i0 && w1 < w0)) {
            memcpy(out->side, side, net.n);
            snprintf(out->method, sizeof out->method, "bfs + kernighan-lin");
        }
    }
    double w, d;
    cut_eval(&c, out->side, &w, &d);
    out->value = w;
done:
    free(order), free(x), free(side);
    cutg_fini(&c);
    tl_tput_net_fini(&net);
    if (rc)
        tl_cut_fini(out);
    return rc;
}
