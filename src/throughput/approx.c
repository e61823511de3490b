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
 * source's pending sinks are settled. TMs with few sinks per source
 * (matchings) go to the path-potential engine below instead, with the same
 * bounds; Garg-Konemann takes over if that one stalls. */
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
    uint32_t *pred, *done, *seen, *want, *order;
    uint32_t stamp, want_stamp, n_order;
    heap_ent *heap;
    uint32_t heap_n;
    uint64_t n_dijkstra;
} gk;

static void gk_fini(gk *s)
{
    free(s->len), free(s->flow), free(s->snap[0]), free(s->snap[1]);
    free(s->ds), free(s->rem), free(s->arc_load), free(s->touched), free(s->dag);
    free(s->dist), free(s->acc), free(s->pred), free(s->done), free(s->seen), free(s->want);
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
    s->done = calloc(n, sizeof *s->done);
    s->seen = calloc(n, sizeof *s->seen);
    s->want = calloc(n, sizeof *s->want);
    s->order = malloc(n * sizeof *s->order);
    s->heap = malloc((n + na) * sizeof *s->heap); /* pushes <= 1 + improvements */
    if (!s->len || !s->flow || !s->snap[0] || !s->snap[1] || !s->ds || !s->rem ||
        !s->arc_load || !s->touched || !s->dag || !s->dist || !s->acc || !s->pred || !s->done || !s->seen ||
        !s->want || !s->order || !s->heap) {
        gk_fini(s);
        return tl_err_nomem(err);
    }
    return 0;
}

/* ---------------------------------------------------------------- Dijkstra */

/* Lazy deletion: a node is pushed again when its distance drops and stale
 * entries are skipped at pop; no position index to keep up to date, which
 * measured faster than decrease-key on these graphs. */
static inline void heap_push(gk *s, double key, uint32_t node)
{
    uint32_t i = s->heap_n++;
    heap_ent e = {key, node};
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (s->heap[p].key <= key)
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
}

static inline heap_ent heap_pop(gk *s)
{
    heap_ent top = s->heap[0];
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
        i = c;
    }
    if (n > 0)
        s->heap[i] = e;
    return top;
}

/* Shortest paths from src under len until n_want nodes marked want_stamp are
 * settled (done[v] == stamp). Fills dist/pred of reached nodes and order
 * (settling order). */
static void dijkstra(gk *s, uint32_t src, uint32_t n_want)
{
    const tl_tput_net *net = s->net;
    const double *len = s->len;
    s->n_dijkstra++;
    if (++s->stamp == 0) { /* wrapped: clear so no stale stamp matches */
        memset(s->seen, 0, net->n * sizeof *s->seen);
        memset(s->done, 0, net->n * sizeof *s->done);
        s->stamp = 1;
    }
    uint32_t stamp = s->stamp;
    s->heap_n = 0;
    s->n_order = 0;
    s->seen[src] = stamp;
    s->dist[src] = 0;
    s->pred[src] = UINT32_MAX;
    heap_push(s, 0, src);
    while (s->heap_n) {
        heap_ent e = heap_pop(s);
        uint32_t v = e.node;
        if (s->done[v] == stamp || e.key > s->dist[v])
            continue;
        s->done[v] = stamp;
        s->order[s->n_order++] = v;
        if (s->want[v] == s->want_stamp && --n_want == 0)
            break;
        double dv = e.key;
        for (uint32_t a = net->out_off[v]; a < net->out_off[v + 1]; a++) { /* out_arc[a] == a */
            uint32_t w = net->head[a];
            double nd = dv + len[a];
            if (s->seen[w] != stamp) {
                s->seen[w] = stamp;
                s->dist[w] = nd;
                s->pred[w] = a;
                heap_push(s, nd, w);
            } else if (nd < s->dist[w] && s->done[w] != stamp) {
                s->dist[w] = nd;
                s->pred[w] = a;
                heap_push(s, nd, w);
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
                if (s->done[u] != stamp)
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

/* For TMs with few sinks per source (matchings: longest, random, skewed) the
 * phases above converge slowly: every chunk puts a whole capacity unit on one
 * path, and the average of k phases is only O(1/k) from balanced. There the
 * solver instead keeps each commodity's flow on a set of paths and descends
 * the exponential potential Phi = sum_a exp(alpha x_a / cap_a) of
 * Shahrokhi-Matula and Leighton et al. (the smooth stand-in for the maximum
 * congestion that Garg-Konemann's lengths also are), with Bertsekas-Gafni
 * path moves: a commodity shifts flow from its longer paths to its shortest
 * under the lengths l_a = exp(alpha x_a / cap_a) / cap_a, each shift an exact
 * line search on Phi. Shortest paths come from the same per-source Dijkstra
 * (Karakostas' grouping), in Gauss-Seidel order: a source sees the lengths its
 * predecessors left. alpha starts low (smooth, fast) and doubles when the
 * flow has settled for it, as the potential's optimum approaches the true
 * minimum congestion only as alpha grows. Bounds, in congestion units
 * lambda = 1 / throughput:
 *   lower (feasible): the maximum congestion of the current flow;
 *   upper: the dual bound of the header comment with l frozen, one Dijkstra
 *          per source, every few sweeps. */

/* Knobs, tuned on random regular graphs under longest matchings. */
typedef struct pr_opts {
    double alpha0;    /* first alpha, in units of 1 / congestion */
    double slack;     /* sampled paths: reduced cost per arc <= slack x dist / hops */
    double tol;       /* inner passes stop when the soft-max falls by less (relative) */
    double raise;     /* double alpha when (avg - dual) < raise x (max - avg) congestion */
    double stall;     /* ... or when the max congestion fell by less (relative) */
    double near;      /* bound every dual_every sweeps once upper < lower (1 + near eps) */
    int n_sample0;    /* paths per commodity at the start (ties under hop lengths) */
    int n_sample;     /* paths offered per commodity per sweep */
    int inner;        /* most path-only passes per sweep */
    int dual_every;   /* sweeps between dual bounds when near */
    int far_every;    /* sweeps between dual bounds otherwise */
} pr_opts;

static const pr_opts pr_defaults = {
    .alpha0 = 20, .slack = 0.05, .tol = 1e-6, .raise = 0.5, .stall = 0.02, .near = 3,
    .n_sample0 = 64, .n_sample = 4, .inner = 60, .dual_every = 3, .far_every = 10,
};

/* Beyond this, exp(alpha x) resolves congestion differences below ~1e-5. */
#define PR_MAX_ALPHA 1e5
/* Longest run of sweeps before handing over to Garg-Konemann's phases: on
 * small degenerate instances (a permutation on K5xK5) the potential's bounds
 * can stall just above 1 + eps, where the phases still converge. */
#define PR_MAX_SWEEPS 2000u

/* Paths a commodity keeps, empty ones included, before dropping empty ones. */
#define PR_KEEP 24u

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
    gk *s;       /* shortest-path workspace; s->len[a] = w[a] / cap[a] */
    pr_com *com; /* (n_pairs) */
    double *x;   /* (n_arcs) flow */
    double *w;   /* (n_arcs) exp(alpha (x / cap - uref)) */
    double alpha, uref;
    int need_rebase;
    uint32_t *sminus, *splus; /* (n_arcs) scratch of one shift */
} pr;

static void pr_fini(pr *r)
{
    if (r->com)
        for (size_t j = 0; j < r->s->dm->n_pairs; j++)
            free(r->com[j].p), free(r->com[j].arcs);
    free(r->com), free(r->x), free(r->w), free(r->sminus), free(r->splus);
}

/* Exponents are taken relative to the largest congestion at the last rebase
 * and clamped, so w never overflows; one past 300 asks for a rebase. */
static inline double pr_weight(pr *r, uint32_t a, double x)
{
    double e = r->alpha * (x / r->s->net->cap[a] - r->uref);
    if (e > 300) {
        r->need_rebase = 1;
        e = fmin(e, 700);
    }
    return exp(e);
}

static void pr_rebase(pr *r)
{
    const tl_tput_net *net = r->s->net;
    double mx = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        mx = fmax(mx, r->x[a] / net->cap[a]);
    r->uref = mx;
    r->need_rebase = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++) {
        r->w[a] = pr_weight(r, a, r->x[a]);
        r->s->len[a] = r->w[a] / net->cap[a];
    }
}

static inline void pr_move(pr *r, uint32_t a, double dx)
{
    r->x[a] = fmax(0, r->x[a] + dx);
    r->w[a] = pr_weight(r, a, r->x[a]);
    r->s->len[a] = r->w[a] / r->s->net->cap[a];
}

/* The soft-max the potential stands for: uref + ln(sum w) / alpha >= max u. */
static double pr_smax(const pr *r)
{
    double sw = 0;
    for (uint32_t a = 0; a < r->s->net->n_arcs; a++)
        sw += r->w[a];
    return r->uref + log(sw) / r->alpha;
}

/* Adds the path in s->touched[0..n) to commodity j unless it is there
 * already. Returns 0 or TL_ENOMEM. */
static int pr_add_path(pr *r, size_t j, uint32_t n, tl_err *err)
{
    gk *s = r->s;
    pr_com *c = &r->com[j];
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

/* Offers commodity j up to k paths to t from the settled part of the last
 * Dijkstra: the tree path, then walks back over in-arcs whose reduced cost
 * is at most slack x dist(t) / (the tree path's hops), so a sampled path is
 * about within 1 + slack of the shortest; a different in-arc per sample,
 * chosen by a hash of (sample, node) so runs are deterministic. */
static int pr_add_paths(pr *r, size_t j, uint32_t t, int k, double slack, tl_err *err)
{
    gk *s = r->s;
    const tl_tput_net *net = s->net;
    uint32_t hops = 0;
    for (uint32_t v = t; s->pred[v] != UINT32_MAX; v = net->tail[s->pred[v]])
        hops++;
    double room = hops ? slack * s->dist[t] / hops : 0;
    for (int q = 0; q < k; q++) {
        uint32_t n = 0;
        for (uint32_t v = t; s->pred[v] != UINT32_MAX;) {
            uint32_t pick = s->pred[v];
            if (q > 0) {
                uint64_t h = ((uint64_t)q << 32 | v) * 0x9E3779B97F4A7C15ull;
                h ^= h >> 29;
                h *= 0xBF58476D1CE4E5B9ull;
                uint32_t cnt = 0, want = (uint32_t)(h >> 32);
                for (int pass = 0; pass < 2 && (pass == 0 || cnt > 1); pass++)
                    for (uint32_t i = net->in_off[v], nth = 0; i < net->in_off[v + 1]; i++) {
                        uint32_t a = net->in_arc[i], u = net->tail[a];
                        if (s->done[u] != s->stamp ||
                            s->dist[u] >= s->dist[v] || s->dist[u] + s->len[a] - s->dist[v] > room)
                            continue;
                        if (pass == 0)
                            cnt++;
                        else if (nth++ == want % cnt)
                            pick = a;
                    }
            }
            s->touched[n++] = pick;
            v = net->tail[pick];
        }
        int rc = pr_add_path(r, j, n, err);
        if (rc)
            return rc;
    }
    return 0;
}

static inline int path_has(const uint32_t *arcs, uint32_t n, uint32_t a)
{
    for (uint32_t i = 0; i < n; i++)
        if (arcs[i] == a)
            return 1;
    return 0;
}

/* Phi'(step) (up to the factor alpha) when step moves from arcs sminus to
 * arcs splus, and Phi'' in the same units in *curv. w_a exp(+-alpha step /
 * cap_a) is the weight after the move: one exp per distinct capacity. */
static double pr_slope(const pr *r, uint32_t nm, uint32_t np, double step, double *curv)
{
    const double *cap = r->s->net->cap;
    double d1 = 0, d2 = 0, last_c = -1, f = 1;
    for (uint32_t q = 0; q < nm; q++) {
        uint32_t a = r->sminus[q];
        if (cap[a] != last_c)
            last_c = cap[a], f = exp(-r->alpha * step / cap[a]);
        double e = r->w[a] * f / cap[a];
        d1 -= e, d2 += e / cap[a];
    }
    last_c = -1;
    for (uint32_t q = 0; q < np; q++) {
        uint32_t a = r->splus[q];
        if (cap[a] != last_c)
            last_c = cap[a], f = exp(fmin(r->alpha * step / cap[a], 300));
        double e = r->w[a] * f / cap[a];
        d1 += e, d2 += e / cap[a];
    }
    *curv = r->alpha * d2;
    return d1;
}

/* The step in [0, fmax] minimizing Phi along the move: Phi' = 0 by Newton
 * on the convex Phi, kept inside a bisection bracket. */
static double line_search(const pr *r, uint32_t nm, uint32_t np, double fmax)
{
    double curv, c2, d1 = pr_slope(r, nm, np, 0, &curv);
    if (d1 >= 0)
        return 0;
    if (pr_slope(r, nm, np, fmax, &c2) <= 0)
        return fmax;
    double lo = 0, hi = fmax, x = 0;
    for (int it = 0; it < 40; it++) {
        double nx = curv > 0 ? x - d1 / curv : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (fabs(nx - x) <= 1e-10 * fmax)
            return nx;
        x = nx;
        d1 = pr_slope(r, nm, np, x, &curv);
        if (d1 < 0)
            lo = x;
        else
            hi = x;
    }
    return x;
}

/* Moves commodity j's flow from its longer paths to its shortest (current
 * lengths), each move minimizing Phi exactly; empty paths are dropped once
 * the set outgrows PR_KEEP. */
static void pr_equalize_one(pr *r, size_t j)
{
    const double *cap = r->s->net->cap;
    pr_com *c = &r->com[j];
    if (c->n_p < 2)
        return;
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
        uint32_t na = c->p[i].n, nm = 0, np = 0;
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
        if (c->p[i].f < 1e-12 * c->p[best].f)
            c->p[best].f += c->p[i].f, c->p[i].f = 0;
    }
    if (c->n_p <= PR_KEEP)
        return;
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

/* Development hook: called after every dual bound; does nothing here. */
static inline void pr_trace(const pr *r, uint64_t k, double lower, double upper,
                            double lam_avg, double lam_d, double scale)
{
    (void)r, (void)k, (void)lower, (void)upper, (void)lam_avg, (void)lam_d, (void)scale;
}

/* Runs until upper <= lower (1 + eps) or max_sweeps; lower and upper are in
 * scaled throughput units (1 / congestion) and only improve. */
static int pr_run(gk *s, double eps, const pr_opts *o, uint64_t max_sweeps, double scale,
                  double *lower, double *upper, uint64_t *sweeps, tl_err *err)
{
    const tl_tput_net *net = s->net;
    const tl_tput_dem *dm = s->dm;
    size_t na = net->n_arcs ? net->n_arcs : 1;
    pr r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.com = calloc(dm->n_pairs, sizeof *r.com);
    r.x = calloc(na, sizeof *r.x);
    r.w = malloc(na * sizeof *r.w);
    r.sminus = malloc(na * sizeof *r.sminus);
    r.splus = malloc(na * sizeof *r.splus);
    if (!r.com || !r.x || !r.w || !r.sminus || !r.splus) {
        pr_fini(&r);
        return tl_err_nomem(err);
    }
    /* Start: lengths 1 / cap, a few shortest paths per commodity sharing its
     * demand evenly. */
    r.alpha = 0;
    pr_rebase(&r);
    int rc = 0;
    for (uint32_t i = 0; i < dm->n_src && !rc; i++) {
        dijkstra(s, dm->src[i], mark_sinks(s, i, NULL));
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1] && !rc; j++)
            rc = pr_add_paths(&r, j, dm->dst[j], o->n_sample0, 1e-9, err);
    }
    for (size_t j = 0; j < dm->n_pairs && !rc; j++) {
        pr_com *c = &r.com[j];
        for (uint32_t i = 0; i < c->n_p; i++) {
            c->p[i].f = s->ds[j] / c->n_p;
            for (uint32_t q = 0; q < c->p[i].n; q++)
                r.x[c->arcs[c->p[i].off + q]] += c->p[i].f;
        }
    }
    r.alpha = o->alpha0;
    pr_rebase(&r);
    uint64_t k = 0;
    double last_lam_p = INFINITY;
    while (!rc && k < max_sweeps) {
        for (uint32_t i = 0; i < dm->n_src && !rc; i++) {
            dijkstra(s, dm->src[i], mark_sinks(s, i, NULL));
            for (uint32_t j = dm->off[i]; j < dm->off[i + 1] && !rc; j++)
                rc = pr_add_paths(&r, j, dm->dst[j], o->n_sample, o->slack, err);
            for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
                pr_equalize_one(&r, j);
            if (r.need_rebase)
                pr_rebase(&r);
        }
        if (rc)
            break;
        /* Path-only passes are ~50x cheaper than a Dijkstra sweep. */
        double before = pr_smax(&r);
        for (int it = 0; it < o->inner; it++) {
            for (size_t j = 0; j < dm->n_pairs; j++)
                pr_equalize_one(&r, j);
            pr_rebase(&r);
            double now = pr_smax(&r);
            if (before - now < o->tol * now)
                break;
            before = now;
        }
        k++;
        *lower = fmax(*lower, 1 / r.uref);
        if (*upper <= *lower * (1 + eps))
            break;
        int near = *upper <= *lower * (1 + o->near * eps);
        if (!(near && k % (uint64_t)o->dual_every == 0) && k % (uint64_t)o->far_every != 0)
            continue;
        double sw = 0, swu = 0;
        for (uint32_t a = 0; a < net->n_arcs; a++)
            sw += r.w[a], swu += r.w[a] * r.x[a] / net->cap[a];
        double up = dual_upper(s); /* lengths w / cap, frozen */
        *upper = fmin(*upper, up);
        double lam_avg = swu / sw, lam_d = 1 / up, lam_p = r.uref;
        pr_trace(&r, k, *lower, *upper, lam_avg, lam_d, scale);
        if (*upper <= *lower * (1 + eps))
            break;
        int stalled = lam_p > last_lam_p * (1 - o->stall);
        last_lam_p = lam_p;
        if ((lam_avg - lam_d < o->raise * (lam_p - lam_avg) || stalled) && r.alpha < PR_MAX_ALPHA) {
            r.alpha *= 2;
            last_lam_p = INFINITY;
            pr_rebase(&r);
        }
    }
    *sweeps = k;
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
    double t0 = tl_wall_s();
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
    s.step_eps = eps;
    s.slack = 0;

    double lower = 0, upper = upper0;
    uint64_t k = 0, k_pr = 0; /* Garg-Konemann phases, path-potential sweeps */
    /* Few sinks per source: path rerouting (see its section). */
    if (dm.n_pairs <= 4 * (size_t)dm.n_src) {
        snprintf(out->method, sizeof out->method, "path-potential");
        rc = pr_run(&s, eps, &pr_defaults, PR_MAX_SWEEPS, scale, &lower, &upper, &k_pr, err);
        if (rc || upper <= lower * (1 + eps))
            goto finish;
        /* Stalled: the phases below start afresh; the certified bounds carry over. */
        snprintf(out->method, sizeof out->method, "path-potential+garg-konemann");
        for (uint32_t a = 0; a < net.n_arcs; a++)
            s.len[a] = 1.0 / net.cap[a];
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
        if (upper <= lower * (1 + eps))
            break;
    }
finish:
    out->lower = out->throughput = lower * scale;
    out->upper = upper * scale;
    out->iterations = k_pr + k;
    if (!rc && !(upper <= lower * (1 + eps)))
        rc = tl_err_set(err, TL_ERANGE, "%s stopped after %llu iterations at a certified ratio "
                        "%.4f, above 1 + eps = %.4f", out->method, (unsigned long long)(k_pr + k),
                        upper / lower, 1 + eps);
    gk_fini(&s);
    tl_tput_dem_fini(&dm);
    tl_tput_net_fini(&net);
    out->seconds = tl_wall_s() - t0;
    return rc;
}
