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
    s.step_eps = eps;
    s.slack = 0;

    double lower = 0, upper = upper0;
    uint64_t k = 0;
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
