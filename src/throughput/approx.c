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
 * bounds; Garg-Konemann takes over if that one stalls. Searches that only
 * read the lengths (dual bounds, the path engine's blocks of sources) run on
 * the caller's threads with one workspace each, and their results combine
 * in source order, so the thread count never changes a result. A time limit
 * or a stop flag ends either engine with the certified bounds reached. */
#include "tailor/throughput.h"

#include <float.h>
#include <omp.h>
#include <stdio.h>

#include "throughput/throughput_int.h"

/* ---------------------------------------------------------------- state */

typedef struct heap_ent {
    double key;
    uint32_t node;
} heap_ent;

/* One thread's shortest-path scratch (all arrays n). Marks are stamps, so a
 * search clears nothing. With use_allow set, a search only enters nodes
 * with allow[v] == allow_stamp: a source's hop ellipse (ellipse_on). */
typedef struct sp_ws {
    double *dist;
    uint32_t *pred, *done, *seen, *want, *order;
    uint32_t stamp, want_stamp, n_order;
    heap_ent *heap;
    uint32_t heap_n;
    uint32_t *allow, allow_stamp;
    int use_allow;
    /* the backward half of a bidirectional search (bidi_dist) */
    double *dist_b;
    uint32_t *seen_b, *done_b;
    heap_ent *heap_b;
    uint32_t heap_b_n;
} sp_ws;

typedef struct gk {
    const tl_tput_net *net;
    const tl_tput_dem *dm;
    const tl_tput_opts *o;
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
    double *acc;       /* (n) demand pushed back through a node */
    double *alpha_src; /* (n_src) per-source part of a dual bound */
    double slack;
    sp_ws *ws; /* (n_threads); ws[0] serves the sequential steps */
    int n_threads;
    uint16_t *hops; /* n x n hop distances, or NULL: restricts path searches */
    uint16_t *hop_slack;  /* (n_src) each single-sink source's ellipse slack in hops */
    uint32_t *ell_misses; /* (n_src) single-sink sources whose shortest path left the ellipse */
    /* progress and stopping */
    double t0, last_report, scale;
    int stopped; /* TL_TPUT_TIME_LIMIT or TL_TPUT_INTERRUPTED */
    uint64_t iterations;
    const char *method;
} gk;

static void ws_fini(sp_ws *w)
{
    free(w->dist), free(w->pred), free(w->done), free(w->seen), free(w->want);
    free(w->order), free(w->heap), free(w->allow);
    free(w->dist_b), free(w->seen_b), free(w->done_b), free(w->heap_b);
}

static int ws_init(sp_ws *w, uint32_t n, uint32_t n_arcs)
{
    memset(w, 0, sizeof *w);
    w->dist = malloc((size_t)n * sizeof *w->dist);
    w->pred = malloc((size_t)n * sizeof *w->pred);
    w->done = calloc(n, sizeof *w->done);
    w->seen = calloc(n, sizeof *w->seen);
    w->want = calloc(n, sizeof *w->want);
    w->order = malloc((size_t)n * sizeof *w->order);
    w->allow = calloc(n, sizeof *w->allow);
    w->heap = malloc(((size_t)n + n_arcs) * sizeof *w->heap); /* pushes <= 1 + improvements */
    w->dist_b = malloc((size_t)n * sizeof *w->dist_b);
    w->seen_b = calloc(n, sizeof *w->seen_b);
    w->done_b = calloc(n, sizeof *w->done_b);
    w->heap_b = malloc(((size_t)n + n_arcs) * sizeof *w->heap_b);
    return w->dist && w->pred && w->done && w->seen && w->want && w->order && w->allow && w->heap &&
           w->dist_b && w->seen_b && w->done_b && w->heap_b;
}

static void gk_fini(gk *s)
{
    free(s->len), free(s->flow), free(s->snap[0]), free(s->snap[1]);
    free(s->ds), free(s->rem), free(s->arc_load), free(s->touched), free(s->dag), free(s->acc);
    free(s->alpha_src), free(s->hops), free(s->ell_misses), free(s->hop_slack);
    if (s->ws)
        for (int t = 0; t < s->n_threads; t++)
            ws_fini(&s->ws[t]);
    free(s->ws);
}

static int gk_init(gk *s, const tl_tput_net *net, const tl_tput_dem *dm, const tl_tput_opts *o,
                   tl_err *err)
{
    memset(s, 0, sizeof *s);
    s->net = net;
    s->dm = dm;
    s->o = o;
    s->n_threads = o->n_threads > 0 ? o->n_threads : omp_get_max_threads();
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
    s->acc = malloc(n * sizeof *s->acc);
    s->alpha_src = malloc(((size_t)dm->n_src + 1) * sizeof *s->alpha_src);
    s->ell_misses = calloc((size_t)dm->n_src + 1, sizeof *s->ell_misses);
    s->hop_slack = malloc(((size_t)dm->n_src + 1) * sizeof *s->hop_slack);
    s->ws = calloc((size_t)s->n_threads, sizeof *s->ws);
    int ok = s->len && s->flow && s->snap[0] && s->snap[1] && s->ds && s->rem && s->arc_load &&
             s->touched && s->dag && s->acc && s->alpha_src && s->ell_misses && s->hop_slack &&
             s->ws;
    for (int t = 0; ok && t < s->n_threads; t++)
        ok = ws_init(&s->ws[t], net->n, net->n_arcs);
    if (!ok) {
        gk_fini(s);
        return tl_err_nomem(err);
    }
    return 0;
}

/* ---------------------------------------------------------------- stopping */

/* 1 when the caller's time limit has passed or its stop flag is set; reports
 * progress (bounds in throughput units) about every progress_s seconds. */
static int gk_should_stop(gk *s, double lower, double upper)
{
    const tl_tput_opts *o = s->o;
    double now = tl_wall_s();
    if (o->progress && now - s->last_report >= (o->progress_s > 0 ? o->progress_s : 5)) {
        s->last_report = now;
        tl_tput p;
        memset(&p, 0, sizeof p);
        p.lower = p.throughput = lower * s->scale;
        p.upper = fmax(upper, lower) * s->scale;
        p.seconds = now - s->t0;
        p.iterations = s->iterations;
        snprintf(p.method, sizeof p.method, "%s", s->method);
        o->progress(o->progress_ctx, &p);
    }
    if (o->stop && *o->stop)
        s->stopped = TL_TPUT_INTERRUPTED;
    else if (o->time_limit_s > 0 && now - s->t0 >= o->time_limit_s)
        s->stopped = TL_TPUT_TIME_LIMIT;
    return s->stopped != 0;
}

/* Path searches stay inside the hop ellipse hops(s, v) + hops(v, t) <=
 * hops(s, t) + slack of a source's sink (the union over its sinks if it has
 * several): on expanders one ellipse leaves a few hundred of 10,000 nodes.
 * Each source's slack starts at PR_HOP_SLACK and widens by one whenever a
 * dual bound (which searches the whole graph, so the bounds stay certified)
 * finds its shortest path under the current lengths outside the ellipse and
 * shorter than any inside it by more than PR_ELLIPSE_MISS: then the ellipse
 * would keep its flow from the optimum (seen on random graphs with servers
 * on a few switches). The slack is per source: one slack for all widened at
 * every bound on 10,000 switches, where some commodity always misses, and a
 * sweep took 15 s instead of 2.6 s. */
#define PR_HOP_SLACK 1u
#define PR_ELLIPSE_MISS 1e-3

/* Whether node v lies in the hop ellipse of a source and sink whose rows
 * of the hop table are hs and ht, at limit hops(s, t) + slack. */
static inline int in_ellipse(const uint16_t *hs, const uint16_t *ht, uint32_t v, uint32_t lim)
{
    return (uint32_t)hs[v] + ht[v] <= lim;
}

/* Restricts w's next searches from source i to its hop ellipse, the union
 * of its sinks' ellipses if it has several, marked by a scan of their rows
 * of the hop table (n per sink: little beside a search). */
static void ellipse_on(const gk *s, sp_ws *w, uint32_t i)
{
    const tl_tput_dem *dm = s->dm;
    uint32_t n = s->net->n, src = dm->src[i];
    const uint16_t *hs = s->hops + (size_t)src * n;
    if (++w->allow_stamp == 0) {
        memset(w->allow, 0, n * sizeof *w->allow);
        w->allow_stamp = 1;
    }
    for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
        uint32_t t = dm->dst[j], lim = (uint32_t)hs[t] + s->hop_slack[i];
        const uint16_t *ht = s->hops + (size_t)t * n;
        for (uint32_t v = 0; v < n; v++)
            if (in_ellipse(hs, ht, v, lim))
                w->allow[v] = w->allow_stamp;
    }
    w->use_allow = 1;
}

/* Lifts ellipse_on's restriction. */
static void ellipse_off(sp_ws *w)
{
    w->use_allow = 0;
}

/* ---------------------------------------------------------------- Dijkstra */

/* Lazy deletion: a node is pushed again when its distance drops and stale
 * entries are skipped at pop; no position index to keep up to date, which
 * measured faster than decrease-key on these graphs. */
static inline void heap_push(heap_ent *heap, uint32_t *count, double key, uint32_t node)
{
    uint32_t i = (*count)++;
    heap_ent e = {key, node};
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (heap[p].key <= key)
            break;
        heap[i] = heap[p];
        i = p;
    }
    heap[i] = e;
}

static inline heap_ent heap_pop(heap_ent *heap, uint32_t *count)
{
    heap_ent top = heap[0];
    heap_ent e = heap[--*count];
    uint32_t i = 0, n = *count;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap[c + 1].key < heap[c].key)
            c++;
        if (e.key <= heap[c].key)
            break;
        heap[i] = heap[c];
        i = c;
    }
    if (n > 0)
        heap[i] = e;
    return top;
}

/* Shortest paths from src under len until n_want nodes marked want_stamp are
 * settled (done[v] == stamp). Fills dist/pred of reached nodes and order
 * (settling order). With w->use_allow set, only nodes inside the hop ellipse are
 * entered. */
static void dijkstra(const tl_tput_net *net, const double *len, sp_ws *w, uint32_t src,
                     uint32_t n_want)
{
    if (++w->stamp == 0) { /* wrapped: clear so no stale stamp matches */
        memset(w->seen, 0, net->n * sizeof *w->seen);
        memset(w->done, 0, net->n * sizeof *w->done);
        memset(w->seen_b, 0, net->n * sizeof *w->seen_b);
        memset(w->done_b, 0, net->n * sizeof *w->done_b);
        w->stamp = 1;
    }
    uint32_t stamp = w->stamp;
    w->heap_n = 0;
    w->n_order = 0;
    w->seen[src] = stamp;
    w->dist[src] = 0;
    w->pred[src] = UINT32_MAX;
    heap_push(w->heap, &w->heap_n, 0, src);
    while (w->heap_n) {
        heap_ent e = heap_pop(w->heap, &w->heap_n);
        uint32_t v = e.node;
        if (w->done[v] == stamp || e.key > w->dist[v])
            continue;
        w->done[v] = stamp;
        w->order[w->n_order++] = v;
        if (w->want[v] == w->want_stamp && --n_want == 0)
            break;
        double dv = e.key;
        for (uint32_t a = net->out_off[v]; a < net->out_off[v + 1]; a++) { /* out_arc[a] == a */
            uint32_t x = net->head[a];
            if (w->use_allow && w->allow[x] != w->allow_stamp)
                continue;
            double nd = dv + len[a];
            if (w->seen[x] != stamp) {
                w->seen[x] = stamp;
                w->dist[x] = nd;
                w->pred[x] = a;
                heap_push(w->heap, &w->heap_n, nd, x);
            } else if (nd < w->dist[x] && w->done[x] != stamp) {
                w->dist[x] = nd;
                w->pred[x] = a;
                heap_push(w->heap, &w->heap_n, nd, x);
            }
        }
    }
}

/* Marks the sinks of source i (pairs off[i]..off[i+1]) that still have
 * demand; returns how many. */
static uint32_t mark_sinks(sp_ws *w, const tl_tput_dem *dm, uint32_t n, uint32_t i,
                           const double *rem)
{
    if (++w->want_stamp == 0) {
        memset(w->want, 0, n * sizeof *w->want);
        w->want_stamp = 1;
    }
    uint32_t k = 0;
    for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
        if (!rem || rem[j] > 0) {
            w->want[dm->dst[j]] = w->want_stamp;
            k++;
        }
    return k;
}

/* The exact distance from src to t under len: bidirectional Dijkstra, the
 * side with the smaller heap top advancing, until the tops' sum reaches the
 * best src-t length seen (mu, updated whenever a relaxed node has been
 * reached from the other side). Each side explores about half the distance,
 * a small ball on an expander where a one-sided search settles most nodes. */
static double bidi_dist(const tl_tput_net *net, const double *len, sp_ws *w, uint32_t src,
                        uint32_t t)
{
    ellipse_off(w);
    if (++w->stamp == 0) {
        memset(w->seen, 0, net->n * sizeof *w->seen);
        memset(w->done, 0, net->n * sizeof *w->done);
        memset(w->seen_b, 0, net->n * sizeof *w->seen_b);
        memset(w->done_b, 0, net->n * sizeof *w->done_b);
        w->stamp = 1;
    }
    const uint32_t stamp = w->stamp;
    double mu = INFINITY;
    w->heap_n = w->heap_b_n = 0;
    w->seen[src] = stamp, w->dist[src] = 0;
    w->seen_b[t] = stamp, w->dist_b[t] = 0;
    heap_push(w->heap, &w->heap_n, 0, src);
    heap_push(w->heap_b, &w->heap_b_n, 0, t);
    while (w->heap_n && w->heap_b_n) {
        double kf = w->heap[0].key, kb = w->heap_b[0].key;
        if (kf + kb >= mu)
            break;
        if (kf <= kb) {
            heap_ent e = heap_pop(w->heap, &w->heap_n);
            uint32_t u = e.node;
            if (w->done[u] == stamp || e.key > w->dist[u])
                continue;
            w->done[u] = stamp;
            for (uint32_t a = net->out_off[u]; a < net->out_off[u + 1]; a++) {
                uint32_t v = net->head[a];
                double nd = e.key + len[a];
                if (w->seen[v] != stamp || (nd < w->dist[v] && w->done[v] != stamp)) {
                    w->seen[v] = stamp, w->dist[v] = nd;
                    heap_push(w->heap, &w->heap_n, nd, v);
                }
                if (w->seen_b[v] == stamp && nd + w->dist_b[v] < mu)
                    mu = nd + w->dist_b[v];
            }
        } else {
            heap_ent e = heap_pop(w->heap_b, &w->heap_b_n);
            uint32_t v = e.node;
            if (w->done_b[v] == stamp || e.key > w->dist_b[v])
                continue;
            w->done_b[v] = stamp;
            for (uint32_t q = net->in_off[v]; q < net->in_off[v + 1]; q++) {
                uint32_t a = net->in_arc[q], u = net->tail[a];
                double nd = e.key + len[a];
                if (w->seen_b[u] != stamp || (nd < w->dist_b[u] && w->done_b[u] != stamp)) {
                    w->seen_b[u] = stamp, w->dist_b[u] = nd;
                    heap_push(w->heap_b, &w->heap_b_n, nd, u);
                }
                if (w->seen[u] == stamp && nd + w->dist[u] < mu)
                    mu = nd + w->dist[u];
            }
        }
    }
    return mu;
}

/* Whether every sink's path in w's last search tree from source i lies in
 * that sink's hop ellipse: then the ellipse search (which allows at least
 * that) finds the same distances, and the check below needs no second
 * search. Costs a walk of each path (most paths of a random matching stay
 * inside; the second search spans the union of 12 ellipses). */
static int tree_in_ellipse(const gk *s, const sp_ws *w, uint32_t i)
{
    const tl_tput_dem *dm = s->dm;
    uint32_t n = s->net->n;
    const uint16_t *hs = s->hops + (size_t)dm->src[i] * n;
    for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++) {
        uint32_t t = dm->dst[j], lim = (uint32_t)hs[t] + s->hop_slack[i];
        const uint16_t *ht = s->hops + (size_t)t * n;
        for (uint32_t v = t; w->pred[v] != UINT32_MAX; v = s->net->tail[w->pred[v]])
            if (!in_ellipse(hs, ht, v, lim))
                return 0;
    }
    return 1;
}

/* Exact shortest paths from source i to all its sinks (no hop ellipse) with
 * workspace w: sum_j d_j dist(t_j); bidirectional for a single sink. With a
 * hop table, also whether the ellipse search still finds every sink's
 * shortest path (s->ell_misses[i]). */
static double source_alpha(const gk *s, sp_ws *w, uint32_t i, const double *d)
{
    const tl_tput_dem *dm = s->dm;
    uint32_t n = s->net->n, j0 = dm->off[i], j1 = dm->off[i + 1];
    double a = 0;
    if (j1 - j0 == 1) {
        double exact = bidi_dist(s->net, s->len, w, dm->src[i], dm->dst[j0]);
        w->dist_b[dm->dst[j0]] = exact; /* kept for the check below */
        a = d[j0] * exact;
    } else {
        ellipse_off(w);
        dijkstra(s->net, s->len, w, dm->src[i], mark_sinks(w, dm, n, i, NULL));
        for (uint32_t j = j0; j < j1; j++) {
            a += d[j] * w->dist[dm->dst[j]];
            w->dist_b[dm->dst[j]] = w->dist[dm->dst[j]]; /* kept for the check below */
        }
    }
    s->ell_misses[i] = 0;
    /* The ellipse's best, to see whether it still holds the shortest paths;
     * not needed when the exact tree's paths lie in it (bidi_dist keeps no
     * tree, so single sinks always search). */
    if (s->hops && !(j1 - j0 > 1 && tree_in_ellipse(s, w, i))) {
        ellipse_on(s, w, i);
        dijkstra(s->net, s->len, w, dm->src[i], mark_sinks(w, dm, n, i, NULL));
        for (uint32_t j = j0; j < j1; j++)
            if (w->dist_b[dm->dst[j]] < w->dist[dm->dst[j]] * (1 - PR_ELLIPSE_MISS))
                s->ell_misses[i] = 1;
        ellipse_off(w);
    }
    return a;
}

/* sum_j d_j dist_len(s_j, t_j) over all commodities: one search per source,
 * in parallel, summed in source order so the thread count changes nothing. */
static double dual_alpha(gk *s, const double *d)
{
    const tl_tput_dem *dm = s->dm;
#pragma omp parallel for schedule(dynamic, 4) num_threads(s->n_threads)
    for (uint32_t i = 0; i < dm->n_src; i++)
        s->alpha_src[i] = source_alpha(s, &s->ws[omp_get_thread_num()], i, d);
    double alpha = 0;
    for (uint32_t i = 0; i < dm->n_src; i++)
        alpha += s->alpha_src[i];
    return alpha;
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
    sp_ws *w = &s->ws[0];
    ellipse_off(w);
    uint32_t j0 = dm->off[i], j1 = dm->off[i + 1], src = dm->src[i];
    for (uint32_t j = j0; j < j1; j++)
        s->rem[j] = s->ds[j];
    for (int first = 1;; first = 0) {
        uint32_t n_want = mark_sinks(w, dm, net->n, i, s->rem);
        if (n_want == 0)
            break;
        dijkstra(net, s->len, w, src, n_want);
        for (uint32_t k = 0; k < w->n_order; k++)
            s->acc[w->order[k]] = 0;
        for (uint32_t j = j0; j < j1; j++)
            if (s->rem[j] > 0) {
                s->acc[dm->dst[j]] += s->rem[j];
                if (first)
                    *alpha_first += s->ds[j] * w->dist[dm->dst[j]];
            }
        /* Loads by pushing each node's demand back over its DAG in-arcs in
         * reverse settling order (decreasing distance). */
        uint32_t n_touched = 0;
        double sigma = 1.0;
        const uint32_t stamp = w->stamp;
        for (uint32_t k = w->n_order; k-- > 1;) {
            uint32_t v = w->order[k];
            double x = s->acc[v];
            if (x <= 0)
                continue;
            double dv = w->dist[v], wsum = 0;
            uint32_t n_in = 0;
            for (uint32_t q = net->in_off[v]; q < net->in_off[v + 1]; q++) {
                uint32_t a = net->in_arc[q], u = net->tail[a];
                if (w->done[u] != stamp)
                    continue;
                double r = w->dist[u] + s->len[a] - dv;
                if (r > s->slack * s->len[a] && a != w->pred[v])
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

/* The dual bound with the current lengths. */
static double dual_upper(gk *s)
{
    double D = 0;
    for (uint32_t a = 0; a < s->net->n_arcs; a++)
        D += s->net->cap[a] * s->len[a];
    double alpha = dual_alpha(s, s->ds);
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
    for (uint32_t a = 0; a < net->n_arcs; a++)
        s->len[a] = 1.0;
    double cap = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        cap += net->cap[a];
    return cap / dual_alpha(s, s->dm->d);
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

/* Sources searched at once: their searches read the lengths as the block
 * began, in parallel, then their paths join and move flow in source order.
 * A fixed block size keeps the result independent of the thread count. */
#define PR_BLOCK 32u
/* Sources with at most this many sinks on average go to the path engine
 * (matchings: a random matching of 12 servers per switch has about 12);
 * above, each commodity's path set would cost more memory than
 * Garg-Konemann's per-source trees (all-to-all). On a 500-switch Jellyfish
 * under random matching the path engine reached eps = 0.02 in 4.5 s where
 * Garg-Konemann took 140 s. */
#define PR_MAX_SINKS 32u

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

/* Paths one search offers, before they join their commodities: path q has
 * arcs[off[q] .. off[q + 1]) and belongs to commodity com[q]. */
typedef struct pr_buf {
    uint32_t *arcs;
    size_t n_arcs, cap_arcs;
    uint32_t *off, *com; /* (cap_paths + 1), (cap_paths) */
    size_t n_paths, cap_paths;
    int nomem;
} pr_buf;

static void buf_fini(pr_buf *b)
{
    free(b->arcs), free(b->off), free(b->com);
    memset(b, 0, sizeof *b);
}

static void buf_arc(pr_buf *b, uint32_t a)
{
    if (b->n_arcs == b->cap_arcs) {
        size_t cap = b->cap_arcs ? 2 * b->cap_arcs : 256;
        uint32_t *p = realloc(b->arcs, cap * sizeof *p);
        if (!p) {
            b->nomem = 1;
            return;
        }
        b->arcs = p, b->cap_arcs = cap;
    }
    b->arcs[b->n_arcs++] = a;
}

/* Closes the path begun at the last close, for commodity j. */
static void buf_close(pr_buf *b, uint32_t j)
{
    if (b->nomem)
        return;
    if (b->n_paths + 1 >= b->cap_paths) {
        size_t cap = b->cap_paths ? 2 * b->cap_paths : 64;
        uint32_t *o = realloc(b->off, (cap + 1) * sizeof *o);
        if (o)
            b->off = o;
        uint32_t *c = realloc(b->com, cap * sizeof *c);
        if (c)
            b->com = c;
        if (!o || !c) {
            b->nomem = 1;
            return;
        }
        if (b->cap_paths == 0)
            b->off[0] = 0;
        b->cap_paths = cap;
    }
    b->com[b->n_paths++] = j;
    b->off[b->n_paths] = (uint32_t)b->n_arcs;
}

/* One move's arcs: those only on the path losing flow, those only on the
 * path gaining it. */
typedef struct pr_shift {
    uint32_t *minus, *plus; /* (n_arcs) */
} pr_shift;

typedef struct pr {
    gk *s;       /* shortest-path workspace; s->len[a] = w[a] / cap[a] */
    pr_com *com; /* (n_pairs) */
    double *x;   /* (n_arcs) flow */
    double *w;   /* (n_arcs) exp(alpha (x / cap - uref)) */
    double alpha, uref;
    double ln_phi; /* ln(sum w) at the last rebase + 1: moves only lower Phi after it */
    int need_rebase;
    pr_shift *sh; /* (n_threads) scratch of one move per thread */
    pr_buf *buf;  /* (PR_BLOCK) paths offered by a block's searches */
    /* Commodities in colour classes: no two in a class share an arc, so a
     * class moves its flows in parallel with one result whatever the thread
     * count. Class c is order[cls_off[c] .. cls_off[c + 1]). */
    uint32_t *order, *cls_off, *pend; /* (n_pairs), (n_pairs + 1), (n_pairs) */
    uint8_t *colour;                  /* (n_pairs) colour within a window of 64 */
    uint64_t *mask;                   /* (n_arcs) colours of a window on each arc */
    uint32_t n_cls;
} pr;

static void pr_fini(pr *r)
{
    if (r->com)
        for (size_t j = 0; j < r->s->dm->n_pairs; j++)
            free(r->com[j].p), free(r->com[j].arcs);
    free(r->com), free(r->x), free(r->w);
    if (r->sh)
        for (int t = 0; t < r->s->n_threads; t++)
            free(r->sh[t].minus), free(r->sh[t].plus);
    free(r->sh), free(r->order), free(r->cls_off), free(r->pend), free(r->colour), free(r->mask);
    if (r->buf)
        for (uint32_t b = 0; b < PR_BLOCK; b++)
            buf_fini(&r->buf[b]);
    free(r->buf);
}

/* Exponents are taken relative to the largest congestion at the last rebase
 * and clamped, so w never overflows; one past 300 asks for a rebase. */
static inline double pr_weight(pr *r, uint32_t a, double x)
{
    double e = r->alpha * (x / r->s->net->cap[a] - r->uref);
    if (e > 300) {
#pragma omp atomic write
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
    double sw = 0;
    for (uint32_t a = 0; a < net->n_arcs; a++)
        sw += r->w[a];
    r->ln_phi = log(sw) + 1;
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

/* Adds the path arcs[0..n) to commodity j unless it is there already.
 * Returns 0 or TL_ENOMEM. */
static int pr_add_path(pr *r, size_t j, const uint32_t *arcs, uint32_t n, tl_err *err)
{
    pr_com *c = &r->com[j];
    for (uint32_t i = 0; i < c->n_p; i++)
        if (c->p[i].n == n && !memcmp(c->arcs + c->p[i].off, arcs, n * sizeof(uint32_t)))
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
    memcpy(c->arcs + c->n_arcs, arcs, n * sizeof(uint32_t));
    c->p[c->n_p++] = (pr_path){c->n_arcs, n, 0};
    c->n_arcs += n;
    return 0;
}

/* Offers commodity j up to k paths to t from the settled part of w's last
 * search: the tree path, then walks back over in-arcs whose reduced cost
 * is at most slack x dist(t) / (the tree path's hops), so a sampled path is
 * about within 1 + slack of the shortest; a different in-arc per sample,
 * chosen by a hash of (sample, node) so runs are deterministic. Paths are
 * written from t back to the source. */
static void pr_sample(const gk *s, const sp_ws *w, uint32_t j, uint32_t t, int k, double slack,
                      pr_buf *out)
{
    const tl_tput_net *net = s->net;
    uint32_t hops = 0;
    for (uint32_t v = t; w->pred[v] != UINT32_MAX; v = net->tail[w->pred[v]])
        hops++;
    double room = hops ? slack * w->dist[t] / hops : 0;
    for (int q = 0; q < k; q++) {
        for (uint32_t v = t; w->pred[v] != UINT32_MAX;) {
            uint32_t pick = w->pred[v];
            if (q > 0) {
                uint64_t h = ((uint64_t)q << 32 | v) * 0x9E3779B97F4A7C15ull;
                h ^= h >> 29;
                h *= 0xBF58476D1CE4E5B9ull;
                uint32_t cnt = 0, want = (uint32_t)(h >> 32);
                for (int pass = 0; pass < 2 && (pass == 0 || cnt > 1); pass++)
                    for (uint32_t i = net->in_off[v], nth = 0; i < net->in_off[v + 1]; i++) {
                        uint32_t a = net->in_arc[i], u = net->tail[a];
                        if (w->done[u] != w->stamp || w->dist[u] >= w->dist[v] ||
                            w->dist[u] + s->len[a] - w->dist[v] > room)
                            continue;
                        if (pass == 0)
                            cnt++;
                        else if (nth++ == want % cnt)
                            pick = a;
                    }
            }
            buf_arc(out, pick);
            v = net->tail[pick];
        }
        buf_close(out, j);
    }
}

static inline int path_has(const uint32_t *arcs, uint32_t n, uint32_t a)
{
    for (uint32_t i = 0; i < n; i++)
        if (arcs[i] == a)
            return 1;
    return 0;
}

/* Phi'(step) (up to the factor alpha) when step moves from arcs sh->minus to
 * arcs sh->plus, and Phi'' in the same units in *curv. w_a exp(+-alpha step /
 * cap_a) is the weight after the move: one exp per distinct capacity. */
static double pr_slope(const pr *r, const pr_shift *sh, uint32_t nm, uint32_t np, double step,
                       double *curv)
{
    const double *cap = r->s->net->cap;
    double d1 = 0, d2 = 0, last_c = -1, f = 1;
    for (uint32_t q = 0; q < nm; q++) {
        uint32_t a = sh->minus[q];
        if (cap[a] != last_c)
            last_c = cap[a], f = exp(-r->alpha * step / cap[a]);
        double e = r->w[a] * f / cap[a];
        d1 -= e, d2 += e / cap[a];
    }
    last_c = -1;
    for (uint32_t q = 0; q < np; q++) {
        uint32_t a = sh->plus[q];
        if (cap[a] != last_c)
            last_c = cap[a], f = exp(fmin(r->alpha * step / cap[a], 700));
        double e = r->w[a] * f / cap[a];
        d1 += e, d2 += e / cap[a];
    }
    *curv = r->alpha * d2;
    return d1;
}

/* The step in [0, fmax] minimizing Phi along the move: Phi' = 0 by Newton
 * on the convex Phi, kept inside a bisection bracket. */
static double line_search(const pr *r, const pr_shift *sh, uint32_t nm, uint32_t np,
                          double fmax)
{
    double curv, c2, d1 = pr_slope(r, sh, nm, np, 0, &curv);
    if (d1 >= 0)
        return 0;
    if (pr_slope(r, sh, nm, np, fmax, &c2) <= 0)
        return fmax;
    double lo = 0, hi = fmax, x = 0;
    for (int it = 0; it < 40; it++) {
        double nx = curv > 0 ? x - d1 / curv : 0.5 * (lo + hi);
        if (!(nx > lo && nx < hi))
            nx = 0.5 * (lo + hi);
        if (fabs(nx - x) <= 1e-10 * fmax)
            return nx;
        x = nx;
        d1 = pr_slope(r, sh, nm, np, x, &curv);
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
static void pr_equalize_one(pr *r, size_t j, const pr_shift *sh)
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
            g += r->s->len[pa[q]];
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
                sh->minus[nm++] = pa[q];
        for (uint32_t q = 0; q < nb; q++)
            if (!path_has(pa, na, pb[q]))
                sh->plus[np++] = pb[q];
        /* No step can lift an arc's weight above Phi before it: capping the
         * step there keeps every exp below overflow, so the line search sees
         * Phi exactly (a clamped slope let high-alpha moves overshoot and
         * raise Phi, which stalled runs that doubled alpha early). */
        double fm = c->p[i].f;
        for (uint32_t q = 0; q < np; q++) {
            uint32_t a = sh->plus[q];
            /* an arc whose weight underflowed counts as exp(-600) */
            double e = fmax(r->alpha * (r->x[a] / cap[a] - r->uref), -600);
            fm = fmin(fm, cap[a] * (r->ln_phi - e) / r->alpha);
        }
        if (fm <= 0)
            continue;
        double step = line_search(r, sh, nm, np, fm);
        if (step <= 0)
            continue;
        for (uint32_t q = 0; q < nm; q++)
            pr_move(r, sh->minus[q], -step);
        for (uint32_t q = 0; q < np; q++)
            pr_move(r, sh->plus[q], step);
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

/* Greedy colouring of the commodities by the arcs of their paths, in index
 * order, 64 colours at a time: a commodity takes the lowest colour none of
 * its arcs has in this window, or waits for the next window. */
static void pr_colour(pr *r)
{
    const tl_tput_net *net = r->s->net;
    uint32_t n_pend = (uint32_t)r->s->dm->n_pairs, n_out = 0;
    for (uint32_t j = 0; j < n_pend; j++)
        r->pend[j] = j;
    r->n_cls = 0;
    r->cls_off[0] = 0;
    while (n_pend > 0) {
        memset(r->mask, 0, net->n_arcs * sizeof *r->mask);
        uint32_t cnt[64] = {0};
        for (uint32_t q = 0; q < n_pend; q++) {
            uint32_t j = r->pend[q];
            const pr_com *c = &r->com[j];
            uint64_t m = 0;
            for (uint32_t i = 0; i < c->n_arcs; i++)
                m |= r->mask[c->arcs[i]];
            if (m == UINT64_MAX) {
                r->colour[j] = UINT8_MAX; /* the next window */
                continue;
            }
            int b = __builtin_ctzll(~m);
            r->colour[j] = (uint8_t)b;
            cnt[b]++;
            for (uint32_t i = 0; i < c->n_arcs; i++)
                r->mask[c->arcs[i]] |= 1ull << b;
        }
        /* the window's classes, each in index order (a counting sort); the
         * colours used are 0 .. some b, since each took the lowest free */
        uint32_t start[64];
        for (int b = 0; b < 64 && cnt[b]; b++) {
            start[b] = n_out;
            n_out += cnt[b];
            r->cls_off[++r->n_cls] = n_out;
        }
        uint32_t n_next = 0;
        for (uint32_t q = 0; q < n_pend; q++) {
            uint32_t j = r->pend[q];
            if (r->colour[j] == UINT8_MAX)
                r->pend[n_next++] = j; /* in place: n_next <= q */
            else
                r->order[start[r->colour[j]]++] = j;
        }
        n_pend = n_next;
    }
}

/* One path-only pass: every commodity equalizes its paths, class by class;
 * a class's commodities move in parallel (their arcs are disjoint). */
static void pr_pass(pr *r)
{
#pragma omp parallel num_threads(r->s->n_threads)
    {
        const pr_shift *sh = &r->sh[omp_get_thread_num()];
        for (uint32_t c = 0; c < r->n_cls; c++) {
#pragma omp for schedule(static)
            for (uint32_t q = r->cls_off[c]; q < r->cls_off[c + 1]; q++)
                pr_equalize_one(r, r->order[q], sh);
        }
    }
}

/* Development hook: called after every dual bound; does nothing here. */
static inline void pr_trace(const pr *r, uint64_t k, double lower, double upper,
                            double lam_avg, double lam_d, double scale)
{
    (void)r, (void)k, (void)lower, (void)upper, (void)lam_avg, (void)lam_d, (void)scale;
}


/* Searches sources b0..b1 (at most PR_BLOCK) in parallel, each offering k
 * paths per commodity into r->buf. */
static int pr_search(pr *r, uint32_t b0, uint32_t b1, int k, double slack, tl_err *err)
{
    gk *s = r->s;
    const tl_tput_dem *dm = s->dm;
    uint32_t n = s->net->n;
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->n_threads)
    for (uint32_t i = b0; i < b1; i++) {
        sp_ws *w = &s->ws[omp_get_thread_num()];
        pr_buf *o = &r->buf[i - b0];
        o->n_arcs = o->n_paths = 0;
        ellipse_off(w);
        if (s->hops)
            ellipse_on(s, w, i);
        dijkstra(s->net, s->len, w, dm->src[i], mark_sinks(w, dm, n, i, NULL));
        for (uint32_t j = dm->off[i]; j < dm->off[i + 1]; j++)
            pr_sample(s, w, j, dm->dst[j], k, slack, o);
    }
    for (uint32_t i = b0; i < b1; i++)
        if (r->buf[i - b0].nomem)
            return tl_err_nomem(err);
    return 0;
}

/* The block's offered paths join their commodities, in source order. */
static int pr_join(pr *r, uint32_t b0, uint32_t b1, tl_err *err)
{
    for (uint32_t i = b0; i < b1; i++) {
        const pr_buf *o = &r->buf[i - b0];
        for (size_t q = 0; q < o->n_paths; q++) {
            int rc = pr_add_path(r, o->com[q], o->arcs + o->off[q], o->off[q + 1] - o->off[q],
                                 err);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The current flow's largest congestion (it routes every demand in full). */
static double pr_congestion(const pr *r)
{
    double mx = 0;
    for (uint32_t a = 0; a < r->s->net->n_arcs; a++)
        mx = fmax(mx, r->x[a] / r->s->net->cap[a]);
    return mx;
}

/* Runs until upper <= lower (1 + eps), max_sweeps or a stop (s->stopped);
 * lower and upper are in scaled throughput units (1 / congestion) and only
 * improve. */
static int pr_run(gk *s, double eps, const pr_opts *o, uint64_t max_sweeps, double *lower,
                  double *upper, uint64_t *sweeps, tl_err *err)
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
    r.sh = calloc((size_t)s->n_threads, sizeof *r.sh);
    r.buf = calloc(PR_BLOCK, sizeof *r.buf);
    size_t npr = dm->n_pairs ? dm->n_pairs : 1;
    r.order = malloc(npr * sizeof *r.order);
    r.cls_off = malloc((npr + 1) * sizeof *r.cls_off);
    r.pend = malloc(npr * sizeof *r.pend);
    r.colour = malloc(npr * sizeof *r.colour);
    r.mask = malloc(na * sizeof *r.mask);
    int ok = r.com && r.x && r.w && r.sh && r.buf && r.order && r.cls_off && r.pend &&
             r.colour && r.mask;
    for (int t = 0; ok && t < s->n_threads; t++) {
        r.sh[t].minus = malloc(na * sizeof *r.sh[t].minus);
        r.sh[t].plus = malloc(na * sizeof *r.sh[t].plus);
        ok = r.sh[t].minus && r.sh[t].plus;
    }
    if (!ok) {
        pr_fini(&r);
        return tl_err_nomem(err);
    }
    /* Start: lengths 1 / cap, a few shortest paths per commodity sharing its
     * demand evenly. */
    r.alpha = 0;
    pr_rebase(&r);
    int rc = 0;
    for (uint32_t b0 = 0; b0 < dm->n_src && !rc; b0 += PR_BLOCK) {
        uint32_t b1 = dm->n_src - b0 < PR_BLOCK ? dm->n_src : b0 + PR_BLOCK;
        if (!(rc = pr_search(&r, b0, b1, o->n_sample0, 1e-9, err)))
            rc = pr_join(&r, b0, b1, err);
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
        for (uint32_t b0 = 0; b0 < dm->n_src && !rc; b0 += PR_BLOCK) {
            uint32_t b1 = dm->n_src - b0 < PR_BLOCK ? dm->n_src : b0 + PR_BLOCK;
            if ((rc = pr_search(&r, b0, b1, o->n_sample, o->slack, err)) ||
                (rc = pr_join(&r, b0, b1, err)))
                break;
            for (uint32_t j = dm->off[b0]; j < dm->off[b1]; j++)
                pr_equalize_one(&r, j, &r.sh[0]);
            if (r.need_rebase)
                pr_rebase(&r);
            if (gk_should_stop(s, *lower, *upper))
                break;
        }
        if (rc || s->stopped)
            break;
        /* Path-only passes are ~50x cheaper than a search sweep. The paths
         * are fixed until the next search (passes only drop empty ones), so
         * one colouring serves them all. */
        double before = pr_smax(&r);
        pr_colour(&r);
        for (int it = 0; it < o->inner; it++) {
            pr_pass(&r);
            pr_rebase(&r);
            double now = pr_smax(&r);
            if (before - now < o->tol * now)
                break;
            before = now;
        }
        k++;
        s->iterations = k;
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
        if (s->hops)
            for (uint32_t i = 0; i < dm->n_src; i++)
                if (s->ell_misses[i] && s->hop_slack[i] < UINT16_MAX)
                    s->hop_slack[i]++;
        *upper = fmin(*upper, up);
        double lam_avg = swu / sw, lam_d = 1 / up, lam_p = r.uref;
        pr_trace(&r, k, *lower, *upper, lam_avg, lam_d, s->scale);
        if (*upper <= *lower * (1 + eps) || gk_should_stop(s, *lower, *upper))
            break;
        int stalled = lam_p > last_lam_p * (1 - o->stall);
        last_lam_p = lam_p;
        if ((lam_avg - lam_d < o->raise * (lam_p - lam_avg) || stalled) && r.alpha < PR_MAX_ALPHA) {
            r.alpha *= 2;
            last_lam_p = INFINITY;
            pr_rebase(&r);
        }
    }
    /* Stopped mid-sweep: the flow still routes every demand. */
    if (!rc && s->stopped)
        *lower = fmax(*lower, 1 / pr_congestion(&r));
    *sweeps = k;
    pr_fini(&r);
    return rc;
}

/* Longest run of phases before giving up on reaching 1 + eps. */
#define GK_MAX_PHASES 1000000u

/* Hop distances for the ellipse path searches into *hops, when the n x n
 * table fits the memory limit; NULL otherwise (searches then span the
 * graph). Returns 0, or TL_ENOMEM when the table fit the limit but could not
 * be allocated (a failed allocation fails the call, as everywhere). */
static int ellipse_table(const tl_tgraph *g, uint16_t **hops, tl_err *err)
{
    tl_err quiet;
    tl_err_clear(&quiet);
    *hops = tl_tgraph_distances(g, &quiet);
    if (!*hops && quiet.code == TL_ENOMEM)
        return tl_err_nomem(err);
    return 0;
}

int tl_throughput_approx(const tl_tgraph *g, const tl_tm *tm, double eps, tl_tput *out,
                         tl_err *err)
{
    tl_tput_opts o = {.eps = eps};
    return tl_throughput_approx_opts(g, tm, &o, out, err);
}

int tl_throughput_approx_opts(const tl_tgraph *g, const tl_tm *tm, const tl_tput_opts *o,
                              tl_tput *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->method, sizeof out->method, "garg-konemann");
    double t0 = tl_wall_s(), eps = o->eps;
    if (!(eps >= 1e-4 && eps < 1))
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "eps", "expected an accuracy in [1e-4, 1), "
                         "found %g", eps);
    tl_tput_net net;
    tl_tput_dem dm;
    int rc = tl_tput_prepare(g, tm, &net, &dm, err);
    if (rc != 0)
        return rc;
    gk s;
    rc = gk_init(&s, &net, &dm, o, err);
    if (rc != 0) {
        tl_tput_dem_fini(&dm);
        tl_tput_net_fini(&net);
        return rc;
    }
    s.t0 = s.last_report = t0;
    s.method = out->method;
    double scale = s.scale = volumetric_scale(&s);
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
    if (dm.n_pairs <= PR_MAX_SINKS * (size_t)dm.n_src) {
        snprintf(out->method, sizeof out->method, "path-potential");
        rc = ellipse_table(g, &s.hops, err);
        for (uint32_t i = 0; i < dm.n_src; i++)
            s.hop_slack[i] = PR_HOP_SLACK;
        if (!rc)
            rc = pr_run(&s, eps, &pr_defaults, PR_MAX_SWEEPS, &lower, &upper, &k_pr, err);
        free(s.hops);
        s.hops = NULL;
        if (rc || s.stopped || upper <= lower * (1 + eps))
            goto finish;
        /* Stalled: the phases below start afresh; the certified bounds carry over. */
        snprintf(out->method, sizeof out->method, "path-potential+garg-konemann");
        for (uint32_t a = 0; a < net.n_arcs; a++)
            s.len[a] = 1.0 / net.cap[a];
    }
    while (k < GK_MAX_PHASES) {
        double alpha_first = 0;
        for (uint32_t i = 0; i < dm.n_src && !gk_should_stop(&s, lower, upper); i++)
            route_source(&s, i, &alpha_first);
        if (s.stopped)
            break; /* the phase is partial: its flow only makes the lower bound cautious */
        k++;
        s.iterations = k_pr + k;
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
    /* Rounding can leave the dual a hair under the primal; both are
     * certified up to it, so report no negative gap. */
    if (upper < lower)
        upper = lower;
    out->lower = out->throughput = lower * scale;
    out->upper = upper * scale;
    out->iterations = k_pr + k;
    out->stopped = s.stopped;
    if (!rc && !s.stopped && !(upper <= lower * (1 + eps)))
        rc = tl_err_set(err, TL_ERANGE, "%s stopped after %llu iterations at a certified ratio "
                        "%.4f, above 1 + eps = %.4f", out->method, (unsigned long long)(k_pr + k),
                        upper / lower, 1 + eps);
    gk_fini(&s);
    tl_tput_dem_fini(&dm);
    tl_tput_net_fini(&net);
    out->seconds = tl_wall_s() - t0;
    return rc;
}
