/* Approximate throughput (topology-throughput.txt §II-A) by Garg-Konemann's
 * maximum concurrent flow (FOCS'98, notes A3) with Karakostas' grouping of
 * commodities by source (SODA'02): one shortest-path tree per source per step
 * routes all of that source's remaining demands. Instead of running the fixed
 * phase count of the analysis, every phase yields certified bounds and the
 * loop stops once upper / lower <= 1 + eps:
 *   lower: the flow routed so far (k phases route k x demand) divided by its
 *          congestion max_a flow(a) / cap(a) is feasible;
 *   upper: for any arc lengths l >= 0 (LP duality),
 *          OPT <= sum_a cap(a) l(a) / sum_j d_j dist_l(s_j, t_j).
 * Costs O(phases x steps x Dijkstra); a binary heap Dijkstra stops once the
 * source's pending sinks are settled. */
#include "tailor/throughput.h"

#include <float.h>
#include <stdio.h>

#include "throughput/throughput_int.h"

/* ---------------------------------------------------------------- state */

typedef struct heap_ent {
    double key;
    uint32_t node;
} heap_ent;

typedef struct gk {
    const tl_tput_net *net;
    const tl_tput_dem *dm;
    double step_eps; /* length update l *= 1 + step_eps f / cap */
    double *len;     /* (n_arcs) dual lengths, renormalized now and then */
    double *flow;    /* (n_arcs) total routed, scaled-demand units */
    double *snap[2]; /* (n_arcs) flow at phases snap_k[]: windows for the lower bound */
    uint64_t snap_k[2];
    double *ds;        /* (n_pairs) demand scaled so the optimum is <= 1 */
    double *rem;       /* (n_pairs) demand left to route in this phase */
    double *arc_load;  /* (n_arcs) load of the current tree, zero between steps */
    uint32_t *touched; /* (n_arcs) arcs with load in the current step */
    uint32_t *dag;     /* (n_arcs) scratch: DAG in-arcs of one node */
    double slack;
    /* Dijkstra, all (n) */
    double *dist, *acc;
    uint32_t *pred, *pos, *seen, *want, *order;
    uint32_t stamp, want_stamp, n_order;
    heap_ent *heap;
    uint32_t heap_n;
    uint64_t n_dijkstra;
} gk;

static void gk_fini(gk *s)
{
    free(s->len), free(s->flow), free(s->snap[0]), free(s->snap[1]);
    free(s->ds), free(s->rem), free(s->arc_load), free(s->touched), free(s->dag);
    free(s->dist), free(s->acc), free(s->pred), free(s->pos), free(s->seen), free(s->want);
    free(s->order), free(s->heap);
}

static int gk_init(gk *s, const tl_tput_net *net, const tl_tput_dem *dm, tl_err *err)
{
    memset(s, 0, sizeof *s);
    s->net = net;
    s->dm = dm;
    size_t na = net->n_arcs ? net->n_arcs : 1, n = net->n, np = dm->n_pairs;
    s->len = malloc(na * sizeof *s->len);
    s->flow = calloc(na, sizeof *s->flow);
    s->snap[0] = calloc(na, sizeof *s->snap[0]);
    s->snap[1] = calloc(na, sizeof *s->snap[1]);
    s->ds = malloc(np * sizeof *s->ds);
    s->rem = malloc(np * sizeof *s->rem);
    s->arc_load = calloc(na, sizeof *s->arc_load);
    s->touched = malloc(na * sizeof *s->touched);
    s->dag = malloc(na * sizeof *s->dag);
    s->dist = malloc(n * sizeof *s->dist);
    s->acc = malloc(n * sizeof *s->acc);
    s->pred = malloc(n * sizeof *s->pred);
    s->pos = malloc(n * sizeof *s->pos);
    s->seen = calloc(n, sizeof *s->seen);
    s->want = calloc(n, sizeof *s->want);
    s->order = malloc(n * sizeof *s->order);
    s->heap = malloc(n * sizeof *s->heap);
    if (!s->len || !s->flow || !s->snap[0] || !s->snap[1] || !s->ds || !s->rem ||
        !s->arc_load || !s->touched || !s->dag || !s->dist || !s->acc || !s->pred || !s->pos || !s->seen ||
        !s->want || !s->order || !s->heap) {
        gk_fini(s);
        return tl_err_nomem(err);
    }
    return 0;
}

/* ---------------------------------------------------------------- Dijkstra */

static inline void heap_up(gk *s, uint32_t i)
{
    heap_ent e = s->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (s->heap[p].key <= e.key)
            break;
        s->heap[i] = s->heap[p];
        s->pos[s->heap[i].node] = i;
        i = p;
    }
    s->heap[i] = e;
    s->pos[e.node] = i;
}

static inline uint32_t heap_pop(gk *s)
{
    uint32_t top = s->heap[0].node;
    heap_ent e = s->heap[--s->heap_n];
    uint32_t i = 0, n = s->heap_n;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && s->heap[c + 1].key < s->heap[c].key)
            c++;
        if (e.key <= s->heap[c].key)
            break;
        s->heap[i] = s->heap[c];
        s->pos[s->heap[i].node] = i;
        i = c;
    }
    if (n > 0) {
        s->heap[i] = e;
        s->pos[e.node] = i;
    }
    s->pos[top] = UINT32_MAX; /* settled */
    return top;
}

/* Shortest paths from src under len until n_want nodes marked want_stamp are
 * settled. Fills dist/pred of settled nodes and order (settling order). */
static void dijkstra(gk *s, uint32_t src, uint32_t n_want)
{
    const tl_tput_net *net = s->net;
    const double *len = s->len;
    s->n_dijkstra++;
    if (++s->stamp == 0) { /* wrapped: clear so no stale stamp matches */
        memset(s->seen, 0, net->n * sizeof *s->seen);
        s->stamp = 1;
    }
    uint32_t stamp = s->stamp;
    s->heap_n = 0;
    s->n_order = 0;
    s->seen[src] = stamp;
    s->dist[src] = 0;
    s->pred[src] = UINT32_MAX;
    s->heap[s->heap_n++] = (heap_ent){0, src};
    s->pos[src] = 0;
    while (s->heap_n) {
        uint32_t v = heap_pop(s);
        s->order[s->n_order++] = v;
        if (s->want[v] == s->want_stamp && --n_want == 0)
            break;
        double dv = s->dist[v];
        for (uint32_t i = net->out_off[v]; i < net->out_off[v + 1]; i++) {
            uint32_t a = net->out_arc[i], w = net->head[a];
            double nd = dv + len[a];
            if (s->seen[w] != stamp) {
                s->seen[w] = stamp;
                s->dist[w] = nd;
                s->pred[w] = a;
                s->heap[s->heap_n] = (heap_ent){nd, w};
                heap_up(s, s->heap_n++);
            } else if (s->pos[w] != UINT32_MAX && nd < s->dist[w]) {
                s->dist[w] = nd;
                s->pred[w] = a;
                s->heap[s->pos[w]].key = nd;
                heap_up(s, s->pos[w]);
            }
        }
    }
}

/* Marks the sinks of source i (pairs off[i]..off[i+1]) that still have
 * demand; returns how many. */
static uint32_t mark_sinks(gk *s, uint32_t i, const double *rem)
{
    const tl_tput_dem *dm = s->dm;
    if (++s->want_stamp == 0) {
        memset(s->want, 0, s->net->n * sizeof *s->want);
        s->want_stamp = 1;
    }
    uint32_t k = 0;
    for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
        if (!rem || rem[j] > 0) {
            s->want[dm->dst[j]] = s->want_stamp;
            k++;
        }
    return k;
}

/* ---------------------------------------------------------------- routing */

/* Routes source i's remaining demands in steps, each along one shortest-path
 * tree, scaled so no arc of the tree gets more than its capacity in the step
 * (Garg-Konemann's chunk). Adds sum_j rem_j dist(t_j) at the first step to
 * *alpha_first (a lower estimate of this source's part of the dual
 * denominator, see gk_bounds). */
static void route_source(gk *s, uint32_t i, double *alpha_first)
{
    const tl_tput_net *net = s->net;
    const tl_tput_dem *dm = s->dm;
    uint32_t j0 = dm->off[i], j1 = dm->off[i + 1], src = dm->src[i];
    for (uint32_t j = j0; j < j1; j++)
        s->rem[j] = s->ds[j];
    for (int first = 1;; first = 0) {
        uint32_t n_want = mark_sinks(s, i, s->rem);
        if (n_want == 0)
            break;
        dijkstra(s, src, n_want);
        for (uint32_t k = 0; k < s->n_order; k++)
            s->acc[s->order[k]] = 0;
        for (uint32_t j = j0; j < j1; j++)
            if (s->rem[j] > 0) {
                s->acc[dm->dst[j]] += s->rem[j];
                if (first)
                    *alpha_first += s->ds[j] * s->dist[dm->dst[j]];
            }
        /* Loads by pushing each node's demand back over its DAG in-arcs in
         * reverse settling order (decreasing distance). */
        uint32_t n_touched = 0;
        double sigma = 1.0;
        const uint32_t stamp = s->stamp;
        for (uint32_t k = s->n_order; k-- > 1;) {
            uint32_t v = s->order[k];
            double x = s->acc[v];
            if (x <= 0)
                continue;
            double dv = s->dist[v], wsum = 0;
            uint32_t n_in = 0;
            for (uint32_t q = net->in_off[v]; q < net->in_off[v + 1]; q++) {
                uint32_t a = net->in_arc[q], u = net->tail[a];
                if (s->seen[u] != stamp || s->pos[u] != UINT32_MAX)
                    continue;
                double r = s->dist[u] + s->len[a] - dv;
                if (r > s->slack * s->len[a] && a != s->pred[v])
                    continue;
                s->dag[n_in++] = a;
                wsum += net->cap[a];
            }
            for (uint32_t q = 0; q < n_in; q++) {
                uint32_t a = s->dag[q];
                double y = x * net->cap[a] / wsum;
                if (s->arc_load[a] == 0)
                    s->touched[n_touched++] = a;
                s->arc_load[a] += y;
                s->acc[net->tail[a]] += y;
            }
        }
        for (uint32_t k = 0; k < n_touched; k++) {
            uint32_t a = s->touched[k];
            if (s->arc_load[a] * sigma > net->cap[a])
                sigma = net->cap[a] / s->arc_load[a];
        }
        for (uint32_t k = 0; k < n_touched; k++) {
            uint32_t a = s->touched[k];
            double f = sigma * s->arc_load[a];
            s->arc_load[a] = 0;
            s->flow[a] += f;
            s->len[a] *= 1.0 + s->step_eps * f / net->cap[a];
        }
        if (sigma >= 1.0)
            break;
        for (uint32_t j = j0; j < j1; j++)
            s->rem[j] *= 1.0 - sigma;
    }
    for (uint32_t j = j0; j < j1; j++)
        s->rem[j] = 0;
}

/* ---------------------------------------------------------------- bounds */

/* Throughput (scaled-demand units) of the flow routed in phases
 * (k_from, k_to]: those phases routed (k_to - k_from) x demand, feasible once
 * divided by their congestion. */
static double window_lower(const gk *s, const double *flow_from, uint64_t k_from, uint64_t k_to)
{
    if (k_to <= k_from)
        return 0;
    double cong = 0;
    for (uint32_t a = 0; a < s->net->n_arcs; a++) {
        double f = s->flow[a] - (flow_from ? flow_from[a] : 0);
        cong = fmax(cong, f / s->net->cap[a]);
    }
    return cong > 0 ? (double)(k_to - k_from) / cong : 0;
}

/* The dual bound with the current lengths: one Dijkstra per source. */
static double dual_upper(gk *s)
{
    const tl_tput_dem *dm = s->dm;
    double alpha = 0, D = 0;
    for (uint32_t a = 0; a < s->net->n_arcs; a++)
        D += s->net->cap[a] * s->len[a];
    for (uint32_t i = 0; i < dm->n_src; i++) {
        dijkstra(s, dm->src[i], mark_sinks(s, i, NULL));
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
            alpha += s->ds[j] * s->dist[dm->dst[j]];
    }
    return alpha > 0 ? D / alpha : INFINITY;
}

/* Keeps lengths far from overflow; the dual ratio is scale-free. */
static void renormalize(gk *s)
{
    double mx = 0;
    for (uint32_t a = 0; a < s->net->n_arcs; a++)
        mx = fmax(mx, s->len[a]);
    if (mx < 1e100)
        return;
    for (uint32_t a = 0; a < s->net->n_arcs; a++)
        s->len[a] = fmax(s->len[a] / mx, DBL_MIN);
}

/* ---------------------------------------------------------------- driver */

/* Demand scale: the volumetric bound (§II-B) with hop distances, so that the
 * scaled optimum is at most 1 and a phase routes at least the optimum's
 * congestion (the analysis needs OPT = O(1) to bound the phase count). */
static double volumetric_scale(gk *s)
{
    const tl_tput_net *net = s->net;
    const tl_tput_dem *dm = s->dm;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        s->len[a] = 1.0;
    double cap = 0, work = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        cap += net->cap[a];
    for (uint32_t i = 0; i < dm->n_src; i++) {
        dijkstra(s, dm->src[i], mark_sinks(s, i, NULL));
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
            work += dm->d[j] * s->dist[dm->dst[j]];
    }
    return cap / work;
}

/* ---------------------------------------------------------------- path rerouting */

typedef struct pr_path {
    uint32_t off, n; /* arcs[off .. off + n) of its commodity */
    double f;        /* flow, scaled-demand units */
} pr_path;

typedef struct pr_com {
    pr_path *p;
    uint32_t n_p, cap_p;
    uint32_t *arcs;
    uint32_t n_arcs, cap_arcs;
} pr_com;

typedef struct pr {
    gk *s;        /* shortest-path workspace; s->len holds frozen lengths */
    pr_com *com;  /* (n_pairs) */
    double *x;    /* (n_arcs) flow */
    double *w;    /* (n_arcs) exp(alpha (x / cap - uref)) */
    double alpha, uref, trust;
    uint32_t *sminus, *splus; /* (n_arcs) scratch of one shift */
} pr;

static void pr_fini(pr *r)
{
    if (r->com)
        for (size_t j = 0; j < r->s->dm->n_pairs; j++)
            free(r->com[j].p), free(r->com[j].arcs);
    free(r->com), free(r->x), free(r->w), free(r->sminus), free(r->splus);
}

static void pr_rebase(pr *r)
{
    const tl_tput_net *net = r->s->net;
    double mx = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        mx = fmax(mx, r->x[a] / net->cap[a]);
    r->uref = mx;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        r->w[a] = exp(r->alpha * (r->x[a] / net->cap[a] - mx));
}

static inline void pr_move(pr *r, uint32_t a, double dx)
{
    double c = r->s->net->cap[a];
    r->x[a] = fmax(0, r->x[a] + dx);
    r->w[a] = exp(r->alpha * (r->x[a] / c - r->uref));
}

/* Adds the path ending at t in the current shortest-path tree to commodity j
 * unless it is there already. Returns 0 or TL_ENOMEM. */
static int pr_add_tree_path(pr *r, size_t j, uint32_t t, tl_err *err)
{
    gk *s = r->s;
    pr_com *c = &r->com[j];
    uint32_t n = 0;
    for (uint32_t v = t; s->pred[v] != UINT32_MAX; v = s->net->tail[s->pred[v]])
        s->touched[n++] = s->pred[v];
    for (uint32_t i = 0; i < c->n_p; i++)
        if (c->p[i].n == n && !memcmp(c->arcs + c->p[i].off, s->touched, n * sizeof(uint32_t)))
            return 0;
    if (c->n_p == c->cap_p) {
        uint32_t cap = c->cap_p ? 2 * c->cap_p : 4;
        pr_path *p = realloc(c->p, cap * sizeof *p);
        if (!p)
            return tl_err_nomem(err);
        c->p = p, c->cap_p = cap;
    }
    if (c->n_arcs + n > c->cap_arcs) {
        uint32_t cap = c->cap_arcs ? 2 * c->cap_arcs : 16;
        while (cap < c->n_arcs + n)
            cap *= 2;
        uint32_t *a = realloc(c->arcs, cap * sizeof *a);
        if (!a)
            return tl_err_nomem(err);
        c->arcs = a, c->cap_arcs = cap;
    }
    memcpy(c->arcs + c->n_arcs, s->touched, n * sizeof(uint32_t));
    c->p[c->n_p++] = (pr_path){c->n_arcs, n, 0};
    c->n_arcs += n;
    return 0;
}

/* Dual bound with lengths w / cap frozen, and each commodity's shortest path
 * added to its set. Returns the bound (scaled units) in *upper. */
static int pr_dual_sweep(pr *r, double *upper, tl_err *err)
{
    gk *s = r->s;
    const tl_tput_net *net = s->net;
    const tl_tput_dem *dm = s->dm;
    double D = 0, alpha = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++) {
        s->len[a] = r->w[a] / net->cap[a];
        D += r->w[a];
    }
    for (uint32_t i = 0; i < dm->n_src; i++) {
        dijkstra(s, dm->src[i], mark_sinks(s, i, NULL));
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
            alpha += s->ds[j] * s->dist[dm->dst[j]];
            int rc = pr_add_tree_path(r, j, dm->dst[j], err);
            if (rc)
                return rc;
        }
    }
    *upper = alpha > 0 ? D / alpha : INFINITY;
    return 0;
}

static inline int path_has(const uint32_t *arcs, uint32_t n, uint32_t a)
{
    for (uint32_t i = 0; i < n; i++)
        if (arcs[i] == a)
            return 1;
    return 0;
}

/* The flow step in [0, fmax] from path i (arcs sminus) to the best path
 * (arcs splus) minimizing the potential: F'(step) = 0 by safeguarded Newton
 * on the convex F (bisection keeps a bracket). */
static double line_search(const pr *r, uint32_t nm, uint32_t np, double fmax)
{
    const double *cap = r->s->net->cap, al = r->alpha;
    double lo = 0, hi = fmax, x = 0;
    for (int it = 0; it < 30; it++) {
        double d1 = 0, d2 = 0;
        for (uint32_t q = 0; q < nm; q++) {
            uint32_t a = r->sminus[q];
            double e = exp(al * ((r->x[a] - x) / cap[a] - r->uref)) / cap[a];
            d1 -= e, d2 += al * e / cap[a];
        }
        for (uint32_t q = 0; q < np; q++) {
            uint32_t a = r->splus[q];
            double e = exp(al * ((r->x[a] + x) / cap[a] - r->uref)) / cap[a];
            d1 += e, d2 += al * e / cap[a];
        }
        if (it == 0 && d1 >= 0)
            return 0;
        if (d1 < 0)
            lo = x;
        else
            hi = x;
        if (it == 0) {
            /* Is the whole flow worth moving? */
            double e1 = 0;
            for (uint32_t q = 0; q < nm; q++) {
                uint32_t a = r->sminus[q];
                e1 -= exp(al * ((r->x[a] - fmax) / cap[a] - r->uref)) / cap[a];
            }
            for (uint32_t q = 0; q < np; q++) {
                uint32_t a = r->splus[q];
                e1 += exp(al * ((r->x[a] + fmax) / cap[a] - r->uref)) / cap[a];
            }
            if (e1 <= 0)
                return fmax;
        }
        double nx = d2 > 0 ? x - d1 / d2 : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (fabs(nx - x) <= 1e-9 * fmax || hi - lo <= 1e-9 * fmax)
            return nx;
        x = nx;
    }
    return x;
}

/* One Gauss-Seidel pass: each commodity moves flow from its longer paths to
 * its shortest by a Newton step on the potential sum_a exp(alpha x_a / cap_a)
 * (Bertsekas-Gafni path projection), then drops paths left empty. */
static void pr_equalize(pr *r)
{
    const tl_tput_net *net = r->s->net;
    const tl_tput_dem *dm = r->s->dm;
    const double *cap = net->cap;
    for (size_t j = 0; j < dm->n_pairs; j++) {
        pr_com *c = &r->com[j];
        if (c->n_p < 2)
            continue;
        uint32_t best = 0;
        double g_best = INFINITY;
        for (uint32_t i = 0; i < c->n_p; i++) {
            double g = 0;
            const uint32_t *pa = c->arcs + c->p[i].off;
            for (uint32_t q = 0; q < c->p[i].n; q++)
                g += r->w[pa[q]] / cap[pa[q]];
            if (g < g_best)
                g_best = g, best = i;
        }
        const uint32_t *pb = c->arcs + c->p[best].off;
        uint32_t nb = c->p[best].n;
        for (uint32_t i = 0; i < c->n_p; i++) {
            if (i == best || c->p[i].f <= 0)
                continue;
            const uint32_t *pa = c->arcs + c->p[i].off;
            uint32_t na = c->p[i].n;
            /* Arcs only on path i lose flow, arcs only on the best gain it. */
            uint32_t nm = 0, np = 0;
            for (uint32_t q = 0; q < na; q++)
                if (!path_has(pb, nb, pa[q]))
                    r->sminus[nm++] = pa[q];
            for (uint32_t q = 0; q < nb; q++)
                if (!path_has(pa, na, pb[q]))
                    r->splus[np++] = pb[q];
            double step = line_search(r, nm, np, c->p[i].f);
            if (step <= 0)
                continue;
            for (uint32_t q = 0; q < nm; q++)
                pr_move(r, r->sminus[q], -step);
            for (uint32_t q = 0; q < np; q++)
                pr_move(r, r->splus[q], step);
            c->p[i].f -= step;
            c->p[best].f += step;
            if (c->p[i].f < 1e-12 * dm->d[j])
                c->p[best].f += c->p[i].f, c->p[i].f = 0;
        }
        /* Compact: keep paths with flow, and the shortest. */
        uint32_t k = 0, off = 0;
        for (uint32_t i = 0; i < c->n_p; i++) {
            if (c->p[i].f <= 0 && i != best)
                continue;
            pr_path p = c->p[i];
            memmove(c->arcs + off, c->arcs + p.off, p.n * sizeof *c->arcs);
            p.off = off;
            off += p.n;
            c->p[k++] = p;
        }
        c->n_p = k, c->n_arcs = off;
    }
}

static int pr_run(gk *s, double eps, double *lower, double *upper, uint64_t *iters,
                  tl_err *err, double scale, double t0)
{
    const tl_tput_net *net = s->net;
    const tl_tput_dem *dm = s->dm;
    pr r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.com = calloc(dm->n_pairs, sizeof *r.com);
    r.x = calloc(net->n_arcs ? net->n_arcs : 1, sizeof *r.x);
    r.w = malloc((net->n_arcs ? net->n_arcs : 1) * sizeof *r.w);
    r.sminus = malloc((net->n_arcs ? net->n_arcs : 1) * sizeof *r.sminus);
    r.splus = malloc((net->n_arcs ? net->n_arcs : 1) * sizeof *r.splus);
    if (!r.com || !r.x || !r.w || !r.sminus || !r.splus) {
        pr_fini(&r);
        return tl_err_nomem(err);
    }
    double a0 = getenv("PR_A0") ? atof(getenv("PR_A0")) : 10;
    double growth = getenv("PR_G") ? atof(getenv("PR_G")) : 2;
    int inner = getenv("PR_K") ? atoi(getenv("PR_K")) : 5;
    r.trust = getenv("PR_T") ? atof(getenv("PR_T")) : 3;
    double amax = (getenv("PR_AMAX") ? atof(getenv("PR_AMAX")) : 4) * log((double)net->n_arcs + 1) / eps;
    r.alpha = 0;
    pr_rebase(&r); /* w = 1 */
    int rc = 0;
    double up;
    uint64_t k = 0;
    for (;;) {
        rc = pr_dual_sweep(&r, &up, err);
        if (rc)
            break;
        *upper = fmin(*upper, up);
        if (k == 0) {
            for (size_t j = 0; j < dm->n_pairs; j++) {
                r.com[j].p[0].f = s->ds[j];
                const uint32_t *pa = r.com[j].arcs;
                for (uint32_t q = 0; q < r.com[j].p[0].n; q++)
                    r.x[pa[q]] += s->ds[j];
            }
            r.alpha = a0;
        } else {
            /* Raise alpha once the flow is near the potential's optimum
             * (dual close to the soft-max average) but the soft-max itself
             * is far below the true max. */
            double sw = 0, swu = 0;
            for (uint32_t a = 0; a < net->n_arcs; a++)
                sw += r.w[a], swu += r.w[a] * r.x[a] / net->cap[a];
            double lam_avg = swu / sw, lam_d = 1 / up, lam_p = r.uref;
            if (getenv("GK_TRACE"))
                fprintf(stderr, "   lam_p %.5f lam_avg %.5f lam_d %.5f\n", lam_p, lam_avg, lam_d);
            if (lam_avg - lam_d < 0.5 * (lam_p - lam_avg))
                r.alpha = fmin(amax, r.alpha * growth);
        }
        pr_rebase(&r);
        if (k > 0 && r.uref > 0)
            *lower = fmax(*lower, 1 / r.uref);
        if (getenv("GK_TRACE"))
            fprintf(stderr, "pr %llu alpha %.1f lower %.6f upper %.6f gap %.4f t %.2f\n",
                    (unsigned long long)k, r.alpha, *lower * scale, *upper * scale, *upper / *lower,
                    tl_tput_now_s() - t0);
        if (*upper <= *lower * (1 + eps))
            break;
        for (int it = 0; it < inner; it++) {
            pr_equalize(&r);
            pr_rebase(&r);
            *lower = fmax(*lower, 1 / r.uref);
        }
        k++;
    }
    *iters = k;
    pr_fini(&r);
    return rc;
}

/* Longest run of phases before giving up on reaching 1 + eps. */
#define GK_MAX_PHASES 1000000u

int tl_throughput_approx(const tl_tgraph *g, const tl_tm *tm, double eps, tl_tput *out,
                         tl_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->method, sizeof out->method, "garg-konemann");
    double t0 = tl_tput_now_s();
    if (!(eps >= 1e-4 && eps < 1))
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "eps", "expected an accuracy in [1e-4, 1), "
                         "found %g", eps);
    tl_tput_net net;
    tl_tput_dem dm;
    int rc = tl_tput_prepare(g, tm, &net, &dm, err);
    if (rc != 0)
        return rc;
    gk s;
    rc = gk_init(&s, &net, &dm, err);
    if (rc != 0) {
        tl_tput_dem_fini(&dm);
        tl_tput_net_fini(&net);
        return rc;
    }
    double scale = volumetric_scale(&s);
    double upper0 = 1.0; /* the volumetric bound itself, in scaled units */
    for (size_t j = 0; j < dm.n_pairs; j++)
        s.ds[j] = dm.d[j] * scale;
    for (uint32_t a = 0; a < net.n_arcs; a++)
        s.len[a] = 1.0 / net.cap[a];
    s.step_eps = getenv("GK_EPS") ? atof(getenv("GK_EPS")) : eps;
    s.slack = getenv("GK_SLACK") ? atof(getenv("GK_SLACK")) : 0;

    double lower = 0, upper = upper0;
    uint64_t k = 0;
    if (getenv("PR")) {
        rc = pr_run(&s, eps, &lower, &upper, &k, err, scale, t0);
        goto out;
    }
    while (k < GK_MAX_PHASES) {
        double alpha_first = 0;
        for (uint32_t i = 0; i < dm.n_src; i++)
            route_source(&s, i, &alpha_first);
        k++;
        /* The bound from first-step distances is free: lengths only grow, so
         * those distances are at most the final ones and D_end / alpha_first
         * is still an upper bound, loose by this phase's growth. */
        double D = 0;
        for (uint32_t a = 0; a < net.n_arcs; a++)
            D += net.cap[a] * s.len[a];
        upper = fmin(upper, D / alpha_first);
        upper = fmin(upper, dual_upper(&s));
        lower = fmax(lower, window_lower(&s, NULL, 0, k));
        for (int w = 0; w < 2; w++)
            lower = fmax(lower, window_lower(&s, s.snap[w], s.snap_k[w], k));
        /* Snapshots at powers of two: the window from k/2 drops the early
         * phases, whose shortest paths ignored congestion. */
        if ((k & (k - 1)) == 0) {
            int w = s.snap_k[0] <= s.snap_k[1] ? 0 : 1;
            memcpy(s.snap[w], s.flow, net.n_arcs * sizeof *s.flow);
            s.snap_k[w] = k;
        }
        renormalize(&s);
        if (getenv("GK_TRACE"))
            fprintf(stderr, "phase %llu lower %.6f upper %.6f gap %.4f dijkstra %llu t %.2f\n",
                    (unsigned long long)k, lower * scale, upper * scale, upper / lower,
                    (unsigned long long)s.n_dijkstra, tl_tput_now_s() - t0);
        if (upper <= lower * (1 + eps))
            break;
    }
out:
    out->lower = out->throughput = lower * scale;
    out->upper = upper * scale;
    out->iterations = k;
    if (!(upper <= lower * (1 + eps)))
        rc = tl_err_set(err, TL_ERANGE, "Garg-Konemann stopped after %llu phases at a certified "
                        "ratio %.4f, above 1 + eps = %.4f", (unsigned long long)k,
                        upper / lower, 1 + eps);
    gk_fini(&s);
    tl_tput_dem_fini(&dm);
    tl_tput_net_fini(&net);
    out->seconds = tl_tput_now_s() - t0;
    return rc;
}
