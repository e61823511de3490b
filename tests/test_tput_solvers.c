/* Throughput solvers, bounds and cuts (topology-throughput.txt): the exact LP
 * against closed forms on symmetric graphs, the approximation against the LP,
 * the paper's flattened-butterfly example (throughput below the sparsest cut),
 * Theorem 2, brute-force and heuristic cuts against hand values, bad input.
 * Graphs and TMs are built here by hand, so these tests depend on no generator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/rng.h"
#include "tailor/throughput.h"
#include "testutil.h"

/* ---------------------------------------------------------------- builders */

/* Every node gets `servers` servers; edges are added with add_edge. */
static void tg_init(tl_tgraph *g, uint32_t n, uint32_t max_edges, uint32_t servers)
{
    memset(g, 0, sizeof *g);
    g->n_nodes = n;
    g->servers = malloc(n * sizeof *g->servers);
    g->eu = malloc((max_edges + 1) * sizeof *g->eu);
    g->ev = malloc((max_edges + 1) * sizeof *g->ev);
    g->cap = malloc((max_edges + 1) * sizeof *g->cap);
    assert_non_null(g->servers);
    assert_non_null(g->eu);
    assert_non_null(g->ev);
    assert_non_null(g->cap);
    for (uint32_t v = 0; v < n; v++)
        g->servers[v] = servers;
    g->ref_bps = 100e9;
}

static void add_edge(tl_tgraph *g, uint32_t u, uint32_t v, double cap)
{
    g->eu[g->n_edges] = u;
    g->ev[g->n_edges] = v;
    g->cap[g->n_edges] = cap;
    g->n_edges++;
}

static void tg_free(tl_tgraph *g)
{
    free(g->servers), free(g->eu), free(g->ev), free(g->cap);
    memset(g, 0, sizeof *g);
}

static void make_ring(tl_tgraph *g, uint32_t n, uint32_t servers)
{
    tg_init(g, n, n, servers);
    for (uint32_t v = 0; v < n; v++)
        add_edge(g, v, (v + 1) % n, 1);
}

static void make_complete(tl_tgraph *g, uint32_t n, uint32_t servers)
{
    tg_init(g, n, n * (n - 1) / 2, servers);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t v = u + 1; v < n; v++)
            add_edge(g, u, v, 1);
}

static void make_hypercube(tl_tgraph *g, uint32_t dim, uint32_t servers)
{
    uint32_t n = 1u << dim;
    tg_init(g, n, n * dim / 2, servers);
    for (uint32_t v = 0; v < n; v++)
        for (uint32_t b = 0; b < dim; b++)
            if (!(v >> b & 1))
                add_edge(g, v, v | 1u << b, 1);
}

/* K_k x K_k (Hamming graph H(2, k)): node r * k + c joins every node sharing
 * its row r or its column c. k = 5 is the paper's 5-ary flattened butterfly
 * (§III-B, "25 switches and 125 servers" with 5 servers per switch). */
static void make_hamming2(tl_tgraph *g, uint32_t k, uint32_t servers)
{
    uint32_t n = k * k;
    tg_init(g, n, n * (k - 1), servers);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (a / k == b / k || a % k == b % k)
                add_edge(g, a, b, 1);
}

/* A random d-regular simple graph by random pairing of ports, restarting on
 * a dead end (fine for the small sizes used here). */
static void make_random_regular(tl_tgraph *g, uint32_t n, uint32_t d, uint32_t servers,
                                uint64_t seed)
{
    tl_rng r;
    tl_rng_init(&r, seed, "test-rrg", n);
    uint32_t *ports = malloc(n * d * sizeof *ports);
    uint8_t *adj = malloc((size_t)n * n);
    assert_non_null(ports);
    assert_non_null(adj);
    tg_init(g, n, n * d / 2, servers);
    for (int attempt = 0;; attempt++) {
        assert_true(attempt < 1000);
        memset(adj, 0, (size_t)n * n);
        g->n_edges = 0;
        uint32_t np = 0;
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t k = 0; k < d; k++)
                ports[np++] = v;
        int stuck = 0;
        while (np > 0 && stuck < 200) {
            uint32_t i = (uint32_t)tl_rng_below(&r, np), j = (uint32_t)tl_rng_below(&r, np);
            uint32_t u = ports[i], v = ports[j];
            if (u == v || adj[(size_t)u * n + v]) {
                stuck++;
                continue;
            }
            stuck = 0;
            adj[(size_t)u * n + v] = adj[(size_t)v * n + u] = 1;
            add_edge(g, u, v, 1);
            if (i < j) {
                uint32_t t = i;
                i = j, j = t;
            }
            ports[i] = ports[--np];
            ports[j] = ports[--np];
        }
        if (np == 0)
            break;
    }
    free(ports);
    free(adj);
}

static void tm_init(tl_tm *tm, size_t max)
{
    memset(tm, 0, sizeof *tm);
    tm->src = malloc((max + 1) * sizeof *tm->src);
    tm->dst = malloc((max + 1) * sizeof *tm->dst);
    tm->demand = malloc((max + 1) * sizeof *tm->demand);
    assert_non_null(tm->src);
    assert_non_null(tm->dst);
    assert_non_null(tm->demand);
}

static void tm_add(tl_tm *tm, uint32_t s, uint32_t t, double d)
{
    tm->src[tm->n] = s, tm->dst[tm->n] = t, tm->demand[tm->n] = d;
    tm->n++;
}

static void tm_free(tl_tm *tm)
{
    free(tm->src), free(tm->dst), free(tm->demand);
    memset(tm, 0, sizeof *tm);
}

/* All-to-all in the header's normalization: each of the S servers sends
 * 1/(S-1) to every other server, so node u sends s_u s_v / (S-1) to node v
 * (pairs on one node need no network). */
static void tm_all_to_all(const tl_tgraph *g, tl_tm *tm)
{
    uint32_t n = g->n_nodes;
    double S = 0;
    for (uint32_t v = 0; v < n; v++)
        S += g->servers[v];
    tm_init(tm, (size_t)n * n);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t v = 0; v < n; v++)
            if (u != v && g->servers[u] && g->servers[v])
                tm_add(tm, u, v, g->servers[u] * (double)g->servers[v] / (S - 1));
}

/* Node permutation pi (no fixed points): node v's servers all send to pi(v)'s
 * (hose: each server sends 1 and receives 1 when server counts are equal). */
static void tm_permutation(const tl_tgraph *g, const uint32_t *pi, tl_tm *tm)
{
    tm_init(tm, g->n_nodes);
    for (uint32_t v = 0; v < g->n_nodes; v++)
        tm_add(tm, v, pi[v], g->servers[v]);
}

/* A random derangement of the nodes. */
static void random_derangement(uint32_t n, uint64_t seed, uint32_t *pi)
{
    tl_rng r;
    tl_rng_init(&r, seed, "test-perm", n);
    for (;;) {
        for (uint32_t v = 0; v < n; v++)
            pi[v] = v;
        for (uint32_t v = n - 1; v > 0; v--) {
            uint32_t j = (uint32_t)tl_rng_below(&r, v + 1), t = pi[v];
            pi[v] = pi[j], pi[j] = t;
        }
        uint32_t fixed = 0;
        for (uint32_t v = 0; v < n; v++)
            fixed += pi[v] == v;
        if (!fixed)
            return;
    }
}

/* A random hose TM: every server sends to 3 random servers elsewhere with
 * random weights, then demands are scaled so that no node's servers send or
 * receive more than their count (each server at most 1). */
static void tm_random_hose(const tl_tgraph *g, uint64_t seed, tl_tm *tm)
{
    uint32_t n = g->n_nodes;
    tl_rng r;
    tl_rng_init(&r, seed, "test-hose", n);
    tm_init(tm, 3 * (size_t)n);
    double *out = calloc(n, sizeof *out), *in = calloc(n, sizeof *in);
    assert_non_null(out);
    assert_non_null(in);
    for (uint32_t u = 0; u < n; u++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = (uint32_t)tl_rng_below(&r, n - 1);
            v += v >= u;
            double d = 0.1 + tl_rng_uniform(&r);
            tm_add(tm, u, v, d);
            out[u] += d, in[v] += d;
        }
    double worst = 0;
    for (uint32_t v = 0; v < n; v++)
        worst = fmax(worst, fmax(out[v], in[v]) / g->servers[v]);
    for (size_t j = 0; j < tm->n; j++)
        tm->demand[j] /= worst;
    free(out), free(in);
}

/* Hop distances by BFS from every node (n^2, UINT16_MAX when unreachable),
 * the layout of tl_tgraph_distances. */
static uint16_t *bfs_distances(const tl_tgraph *g)
{
    uint32_t n = g->n_nodes;
    uint16_t *d = malloc((size_t)n * n * sizeof *d);
    uint32_t *q = malloc(n * sizeof *q);
    assert_non_null(d);
    assert_non_null(q);
    for (uint32_t s = 0; s < n; s++) {
        uint16_t *row = d + (size_t)s * n;
        for (uint32_t v = 0; v < n; v++)
            row[v] = UINT16_MAX;
        uint32_t qh = 0, qt = 0;
        q[qt++] = s;
        row[s] = 0;
        while (qh < qt) {
            uint32_t v = q[qh++];
            for (uint32_t e = 0; e < g->n_edges; e++) {
                uint32_t w = g->eu[e] == v ? g->ev[e] : g->ev[e] == v ? g->eu[e] : UINT32_MAX;
                if (w != UINT32_MAX && row[w] == UINT16_MAX) {
                    row[w] = (uint16_t)(row[v] + 1);
                    q[qt++] = w;
                }
            }
        }
    }
    free(q);
    return d;
}

/* The reference optimum: GLPK's LP (CLP's solvers are checked against it). */
static double exact(const char *name, const tl_tgraph *g, const tl_tm *tm)
{
    tl_tput o;
    tl_err err = {0};
    int rc = tl_throughput_exact_with(g, tm, TL_LP_GLPK, &o, &err);
    if (rc != 0)
        fprintf(stderr, "[%s] exact: %s\n", name, err.msg);
    assert_int_equal(rc, 0);
    assert_string_equal(o.method, "exact-lp (glpk)");
    assert_true(o.lower == o.throughput && o.upper == o.throughput);
    assert_true(o.lp_rows > 0 && o.lp_cols > 0);
    return o.throughput;
}

static void check_close(const char *name, double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) {
        fprintf(stderr, "[%s] got %.9f, want %.9f (rel tol %g)\n", name, got, want, rel);
        fail();
    }
}

/* ---------------------------------------------------------------- closed forms */

typedef enum { G_RING, G_COMPLETE, G_HYPERCUBE, G_HAMMING2 } gkind;

static void make(tl_tgraph *g, gkind kind, uint32_t p, uint32_t servers)
{
    switch (kind) {
    case G_RING: make_ring(g, p, servers); break;
    case G_COMPLETE: make_complete(g, p, servers); break;
    case G_HYPERCUBE: make_hypercube(g, p, servers); break;
    case G_HAMMING2: make_hamming2(g, p, servers); break;
    }
}

/* All-to-all throughput by hand. Every graph here is arc-transitive, so
 * splitting each commodity evenly over all its shortest paths loads every
 * arc equally: the volumetric bound (§II-B) is met, and
 *   t = (directed capacity) / sum_{u != v} d(u,v) dist(u,v),  d = s^2 / (S-1).
 * With one server per node (S = n, d = 1/(n-1)):
 *   K_n:  n(n-1) arcs, every distance 1:             t = n(n-1) / (n / (n-1) x (n-1)) = n - 1.
 *   C_n, n = 2m even: 2n arcs; distances from a node sum to m^2:
 *                                                    t = 2n (n-1) / (n m^2) = 2(n-1)/m^2.
 *   C_n, n = 2m+1 odd: distances sum to m(m+1):      t = 2(n-1) / (m(m+1)) = 4/(m+1).
 *   Q_d, n = 2^d: n d arcs; distances sum to d 2^(d-1):
 *                                                    t = n d (n-1) / (n d 2^(d-1)) = 2(n-1)/n.
 * K5 x K5 with 5 servers per node (S = 125, d = 25/124): 200 arcs; from a
 * node 8 nodes at distance 1 and 16 at 2 (sum 40):
 *                                                    t = 200 / (25 x 40 x 25/124) = 124/125.
 * The cut argument agrees for the ring: halves of C_6 are joined by 2 arcs
 * each way and exchange 3 x 3 / 5 per direction, 2 / (9/5) = 10/9. */
static void test_a2a_closed_forms(void **state)
{
    static const struct {
        const char *name;
        gkind kind;
        uint32_t p, servers;
        double want;
    } cases[] = {
        {"K5", G_COMPLETE, 5, 1, 4.0},
        {"K8", G_COMPLETE, 8, 1, 7.0},
        {"C6", G_RING, 6, 1, 10.0 / 9},
        {"C8", G_RING, 8, 1, 14.0 / 16},
        {"C5", G_RING, 5, 1, 4.0 / 3},
        {"C7", G_RING, 7, 1, 1.0},
        {"Q3", G_HYPERCUBE, 3, 1, 7.0 / 4},
        {"Q4", G_HYPERCUBE, 4, 1, 15.0 / 8},
        {"K5xK5", G_HAMMING2, 5, 5, 124.0 / 125},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_tgraph g;
        tl_tm tm;
        make(&g, cases[c].kind, cases[c].p, cases[c].servers);
        tm_all_to_all(&g, &tm);
        check_close(cases[c].name, exact(cases[c].name, &g, &tm), cases[c].want, 1e-6);
        uint16_t *dist = bfs_distances(&g);
        check_close(cases[c].name, tl_tput_upper_bound_paths(&g, &tm, dist), cases[c].want,
                    1e-9);
        free(dist);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* Capacities and demands in other units: doubling every capacity doubles the
 * throughput, halving every demand doubles it too (t is a pure scale). */
static void test_exact_scales(void **state)
{
    tl_tgraph g;
    tl_tm tm;
    make_ring(&g, 6, 1);
    tm_all_to_all(&g, &tm);
    for (uint32_t e = 0; e < g.n_edges; e++)
        g.cap[e] = 40;
    check_close("C6 cap 40", exact("C6 cap 40", &g, &tm), 40 * 10.0 / 9, 1e-6);
    for (size_t j = 0; j < tm.n; j++)
        tm.demand[j] *= 1e-3;
    check_close("C6 cap 40 demand 1e-3", exact("C6", &g, &tm), 40e3 * 10.0 / 9, 1e-6);
    tm_free(&tm);
    tg_free(&g);
}

/* ---------------------------------------------------------------- exact vs approx */

static void test_exact_vs_approx(void **state)
{
    enum { TM_A2A, TM_PERM, TM_HOSE };
    static const struct {
        const char *name;
        int graph; /* 0..3: ring, complete, hypercube, random regular, K5xK5 */
        uint32_t p, servers;
        int tm;
        double eps;
    } cases[] = {
        {"C8 a2a", 0, 8, 1, TM_A2A, 0.02},
        {"C8 perm", 0, 8, 2, TM_PERM, 0.02},
        {"K6 a2a", 1, 6, 1, TM_A2A, 0.02},
        {"K6 perm", 1, 6, 3, TM_PERM, 0.01},
        {"Q4 a2a", 2, 4, 1, TM_A2A, 0.02},
        {"Q4 perm", 2, 4, 2, TM_PERM, 0.02},
        {"Q3 hose", 2, 3, 2, TM_HOSE, 0.05},
        {"RRG16x4 a2a", 3, 16, 2, TM_A2A, 0.02},
        {"RRG16x4 perm", 3, 16, 2, TM_PERM, 0.02},
        {"RRG24x5 hose", 3, 24, 3, TM_HOSE, 0.02},
        {"K5xK5 perm", 4, 5, 5, TM_PERM, 0.02},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_tgraph g;
        tl_tm tm;
        switch (cases[c].graph) {
        case 0: make_ring(&g, cases[c].p, cases[c].servers); break;
        case 1: make_complete(&g, cases[c].p, cases[c].servers); break;
        case 2: make_hypercube(&g, cases[c].p, cases[c].servers); break;
        case 3: make_random_regular(&g, cases[c].p, cases[c].p == 16 ? 4 : 5,
                                    cases[c].servers, 7 + c); break;
        default: make_hamming2(&g, cases[c].p, cases[c].servers); break;
        }
        if (cases[c].tm == TM_A2A) {
            tm_all_to_all(&g, &tm);
        } else if (cases[c].tm == TM_PERM) {
            uint32_t pi[64];
            random_derangement(g.n_nodes, 100 + c, pi);
            tm_permutation(&g, pi, &tm);
        } else {
            tm_random_hose(&g, 200 + c, &tm);
        }
        double t = exact(cases[c].name, &g, &tm);
        tl_tput o;
        tl_err err = {0};
        int rc = tl_throughput_approx(&g, &tm, cases[c].eps, &o, &err);
        if (rc)
            fprintf(stderr, "[%s] approx: %s\n", cases[c].name, err.msg);
        assert_int_equal(rc, 0);
        /* The bounds are certified: the LP optimum lies between them (up to
         * the LP's own tolerance), and they are within 1 + eps. */
        if (!(o.lower <= t * (1 + 1e-6) && o.upper >= t * (1 - 1e-6) &&
              o.upper <= o.lower * (1 + cases[c].eps) && o.throughput == o.lower)) {
            fprintf(stderr, "[%s] exact %.6f, approx [%.6f, %.6f]\n", cases[c].name, t,
                    o.lower, o.upper);
            fail();
        }
        assert_true(o.iterations > 0);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* CLP's dual simplex and barrier (the default solver) find GLPK's optimum on
 * the same LP: a ring, a hypercube and random regular graphs under
 * all-to-all, a permutation and a random hose TM. */
static void test_clp_equals_glpk(void **state)
{
    (void)state;
    for (int c = 0; c < 6; c++) {
        tl_tgraph g;
        tl_tm tm;
        if (c < 2)
            make_ring(&g, 9, 2);
        else if (c < 4)
            make_hypercube(&g, 4, 2);
        else
            make_random_regular(&g, 20, 4, 3, 3 + c);
        if (c % 3 == 0) {
            tm_all_to_all(&g, &tm);
        } else if (c % 3 == 1) {
            uint32_t pi[64];
            random_derangement(g.n_nodes, 50 + c, pi);
            tm_permutation(&g, pi, &tm);
        } else {
            tm_random_hose(&g, 70 + c, &tm);
        }
        double want = exact("glpk", &g, &tm);
        for (tl_lp_solver sv = TL_LP_CLP_DUAL; sv <= TL_LP_CLP_BARRIER; sv++) {
            tl_tput o;
            tl_err err = {0};
            int rc = tl_throughput_exact_with(&g, &tm, sv, &o, &err);
            if (rc)
                fail_msg("case %d, %s: %s", c, tl_lp_solver_names[sv], err.msg);
            if (!(fabs(o.throughput - want) <= 1e-6 * want) || o.lower != o.upper)
                fail_msg("case %d, %s: %.9g, GLPK %.9g", c, tl_lp_solver_names[sv], o.throughput,
                         want);
            assert_true(o.lp_rows > 0 && o.lp_cols > 0);
        }
        tl_tput d;
        assert_int_equal(tl_throughput_exact(&g, &tm, &d, NULL), 0);
        assert_string_equal(d.method, "exact-lp (clp-barrier)"); /* the default */
        assert_true(fabs(d.throughput - want) <= 1e-6 * want);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* ---------------------------------------------------------------- threads, stops, progress */

static void count_progress(void *ctx, const tl_tput *now)
{
    int *n = ctx;
    assert_true(now->lower <= now->upper && now->upper > 0);
    (*n)++;
}

/* The thread count changes nothing (searches run in fixed blocks, path-only
 * passes in colour classes of commodities with disjoint arcs); a stop
 * flag or a time limit returns certified bounds around the LP optimum with
 * the reason; progress reports bounds. Both engines: a permutation goes to
 * the path engine (with hop-ellipse searches), all-to-all to Garg-Konemann. */
static void test_threads_and_stops(void **state)
{
    (void)state;
    for (int which = 0; which < 2; which++) {
        tl_tgraph g;
        tl_tm tm;
        make_random_regular(&g, 40, 5, 2, 11);
        if (which == 0) {
            uint32_t pi[64];
            random_derangement(g.n_nodes, 5, pi);
            tm_permutation(&g, pi, &tm);
        } else {
            tm_all_to_all(&g, &tm);
        }
        double t = exact("rrg40", &g, &tm);
        tl_tput ref;
        memset(&ref, 0, sizeof ref);
        for (int nt = 1; nt <= 3; nt++) {
            tl_tput_opts o = {.eps = 0.02, .n_threads = nt};
            tl_tput r;
            assert_int_equal(tl_throughput_approx_opts(&g, &tm, &o, &r, NULL), 0);
            assert_int_equal(r.stopped, 0);
            if (nt == 1)
                ref = r;
            else if (r.lower != ref.lower || r.upper != ref.upper || r.iterations != ref.iterations)
                fail_msg("%s, %d threads: [%.17g, %.17g] in %llu, 1 thread [%.17g, %.17g] in %llu",
                         r.method, nt, r.lower, r.upper, (unsigned long long)r.iterations,
                         ref.lower, ref.upper, (unsigned long long)ref.iterations);
        }
        volatile int stop = 1;
        tl_tput_opts o = {.eps = 0.001, .n_threads = 2, .stop = &stop};
        tl_tput r;
        assert_int_equal(tl_throughput_approx_opts(&g, &tm, &o, &r, NULL), 0);
        assert_int_equal(r.stopped, TL_TPUT_INTERRUPTED);
        assert_true(r.lower <= t * (1 + 1e-6) && r.upper >= t * (1 - 1e-6));
        tl_tput_opts lim = {.eps = 0.0001, .time_limit_s = 1e-9};
        assert_int_equal(tl_throughput_approx_opts(&g, &tm, &lim, &r, NULL), 0);
        assert_int_equal(r.stopped, TL_TPUT_TIME_LIMIT);
        assert_true(r.lower <= t * (1 + 1e-6) && r.upper >= t * (1 - 1e-6) && r.upper >= r.lower);
        int n_reports = 0;
        tl_tput_opts pr = {.eps = 0.02, .progress = count_progress, .progress_ctx = &n_reports,
                           .progress_s = 1e-9};
        assert_int_equal(tl_throughput_approx_opts(&g, &tm, &pr, &r, NULL), 0);
        assert_true(n_reports > 0);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* The path engine alone (no Garg-Konemann hand-over) brackets the LP value
 * t within 1 + eps in at most max_sweeps sweeps. */
static void expect_path_engine(const tl_tgraph *g, const tl_tm *tm, double t, double eps,
                               uint64_t max_sweeps)
{
    tl_tput_opts o = {.eps = eps};
    tl_tput r;
    assert_int_equal(tl_throughput_approx_opts(g, tm, &o, &r, NULL), 0);
    if (strcmp(r.method, "path-potential") != 0 || r.iterations > max_sweeps ||
        !(r.lower <= t * (1 + 1e-6) && r.upper >= t * (1 - 1e-6)) ||
        r.upper > r.lower * (1 + eps))
        fail_msg("%s in %llu iterations: [%.6f, %.6f], LP %.6f", r.method,
                 (unsigned long long)r.iterations, r.lower, r.upper, t);
}

/* At a tight eps the path engine doubles alpha far (past 1e4), where a move's
 * exponent alpha x step / cap passes the hundreds: its line searches must
 * still see the potential exactly. When they clamped that exponent at 300,
 * moves overshot, the potential rose instead of falling, the sweeps stalled
 * and Garg-Konemann had to finish: 134,062 iterations (27 s) on this case
 * against 90 sweeps of the path engine alone. */
static void test_potential_at_high_alpha(void **state)
{
    (void)state;
    tl_tgraph g;
    tl_tm tm;
    make_random_regular(&g, 30, 5, 3, 1);
    uint32_t pi[64];
    random_derangement(g.n_nodes, 1, pi);
    tm_permutation(&g, pi, &tm);
    double t = exact("rrg30 tight", &g, &tm);
    expect_path_engine(&g, &tm, t, 0.001, 1000);
    tm_free(&tm);
    tg_free(&g);
}

/* Servers on 4 of 40 switches, each sending to the other three: sources
 * with several sinks search the union of their sinks' hop ellipses, which
 * at the first slack hold too few paths for the optimum (the flow must
 * spread over long paths through server-less switches). The path engine
 * alone must still reach eps, inside the LP's bracket: each dual bound
 * widens a source's slack when its shortest path lies outside. */
static void test_multi_sink_ellipse_widens(void **state)
{
    (void)state;
    tl_tgraph g;
    tl_tm tm;
    make_random_regular(&g, 40, 5, 0, 4);
    for (uint32_t v = 0; v < 4; v++)
        g.servers[v * 10] = 4;
    tm_init(&tm, 12);
    for (uint32_t u = 0; u < 4; u++)
        for (uint32_t v = 0; v < 4; v++)
            if (u != v)
                tm_add(&tm, u * 10, v * 10, 4.0 / 3);
    double t = exact("rrg40 few servers", &g, &tm);
    expect_path_engine(&g, &tm, t, 0.01, 2000);
    tm_free(&tm);
    tg_free(&g);
}

/* ---------------------------------------------------------------- the paper's example */

/* K5 x K5 (5-ary flattened butterfly), 5 servers per switch, with the
 * longest matching pi(r, c) = (r + 1, c + 1) mod 5: every switch sends to one
 * at distance 2, the diameter, so the matching's weight 125 x 2 is the most
 * any matching can have (it is a longest matching; the notes' networkx
 * matching is another of the tied ones, with 35/62).
 *
 * Throughput is exactly 1/2. Lower: the LP finds it. Upper, a dual: give an
 * arc that moves a coordinate by +1 (mod 5) length 2 and the other 3 arcs of
 * each coordinate length 1. A commodity needs +1 in both coordinates; each
 * costs at least 2 (one +1 arc, or two arcs summing to 1 mod 5: 3+3, 2+4), so
 * dist = 4 for every commodity and
 *   t <= sum c l / sum d dist = 25 x 2 x (2 + 1 + 1 + 1) / (25 x 5 x 4) = 1/2.
 * Sparsest cut, 3/5 by brute force: e.g. rows {0, 2} against {1, 3, 4}: 30
 * edges across (60 units of capacity both ways), rows 0 and 2 send their 50
 * to rows 1 and 3 and receive 50 from rows 4 and 1: 60 / 100. So throughput
 * (1/2) is strictly below the sparsest cut (3/5), as §III-B reports for its
 * matching (0.565 < 0.6). */
static void test_flattened_butterfly(void **state)
{
    tl_tgraph g;
    tl_tm tm;
    make_hamming2(&g, 5, 5);
    uint32_t pi[25];
    for (uint32_t v = 0; v < 25; v++)
        pi[v] = ((v / 5 + 1) % 5) * 5 + (v % 5 + 1) % 5;
    tm_permutation(&g, pi, &tm);
    double t = exact("fb", &g, &tm);
    check_close("fb throughput", t, 0.5, 1e-6);

    tl_cut cut;
    tl_err err = {0};
    assert_int_equal(tl_sparsest_cut(&g, &tm, &cut, &err), 0);
    check_close("fb sparsest", cut.value, 0.6, 1e-9);
    assert_string_equal(cut.method, "brute force");
    assert_true(t < cut.value - 0.05);
    /* The reported side is a cut of that value. */
    double across = 0, dem = 0;
    for (uint32_t e = 0; e < g.n_edges; e++)
        across += cut.side[g.eu[e]] != cut.side[g.ev[e]] ? 2 * g.cap[e] : 0;
    for (size_t j = 0; j < tm.n; j++)
        dem += cut.side[tm.src[j]] != cut.side[tm.dst[j]] ? tm.demand[j] : 0;
    check_close("fb side", across / dem, 0.6, 1e-12);
    tl_cut_fini(&cut);
    assert_null(cut.side);

    uint16_t *dist = bfs_distances(&g);
    check_close("fb volumetric", tl_tput_upper_bound_paths(&g, &tm, dist), 0.8, 1e-12);
    free(dist);

    tl_tput o;
    assert_int_equal(tl_throughput_approx(&g, &tm, 0.01, &o, &err), 0);
    assert_true(o.lower <= 0.5 * (1 + 1e-9) && o.upper >= 0.5 * (1 - 1e-9));
    tm_free(&tm);
    tg_free(&g);
}

/* ---------------------------------------------------------------- Theorem 2 */

/* Theorem 2: any hose TM gets at least half the all-to-all throughput (route
 * through a uniformly random intermediate server: two all-to-all rounds). */
static void test_theorem2(void **state)
{
    static const struct {
        const char *name;
        int graph;
        uint32_t p, servers;
    } cases[] = {
        {"C9", 0, 9, 1},   {"Q4", 2, 4, 1},         {"RRG20x3", 3, 20, 2},
        {"K6", 1, 6, 2},   {"K4xK4", 4, 4, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_tgraph g;
        switch (cases[c].graph) {
        case 0: make_ring(&g, cases[c].p, cases[c].servers); break;
        case 1: make_complete(&g, cases[c].p, cases[c].servers); break;
        case 2: make_hypercube(&g, cases[c].p, cases[c].servers); break;
        case 3: make_random_regular(&g, cases[c].p, 3, cases[c].servers, 31 + c); break;
        default: make_hamming2(&g, cases[c].p, cases[c].servers); break;
        }
        tl_tm tm;
        tm_all_to_all(&g, &tm);
        double a2a = exact(cases[c].name, &g, &tm);
        tm_free(&tm);
        for (uint64_t seed = 0; seed < 3; seed++) {
            uint32_t pi[64];
            random_derangement(g.n_nodes, seed * 17 + c, pi);
            tm_permutation(&g, pi, &tm);
            double t = exact(cases[c].name, &g, &tm);
            if (!(t >= a2a / 2 * (1 - 1e-6) && t <= a2a * (1 + 1e-6) * 2)) {
                fprintf(stderr, "[%s perm %llu] t %.6f, a2a %.6f\n", cases[c].name,
                        (unsigned long long)seed, t, a2a);
                fail();
            }
            tm_free(&tm);
            tm_random_hose(&g, seed + 50 * c, &tm);
            t = exact(cases[c].name, &g, &tm);
            if (!(t >= a2a / 2 * (1 - 1e-6))) {
                fprintf(stderr, "[%s hose %llu] t %.6f, a2a %.6f\n", cases[c].name,
                        (unsigned long long)seed, t, a2a);
                fail();
            }
            tm_free(&tm);
        }
        tg_free(&g);
    }
}

/* ---------------------------------------------------------------- cuts */

/* Hand values, one server per node unless said:
 *   C_n (n even): bisection 2 (any split into two arcs of the ring cuts 2
 *     edges); a2a sparsest cut: a k-node arc is cut by 2 edges (4 units both
 *     ways) and exchanges 2 k (n-k) / (n-1): min at k = n/2, 8(n-1)/n^2.
 *   C_5: 5 servers split 2 / 3, still 2 edges; sparsest 4 / (2 x 6 / 4) = 4/3.
 *   K_n: bisection (n/2)^2; a2a sparsest: every cut gives
 *     2 k (n-k) / (2 k (n-k) / (n-1)) = n - 1.
 *   Q_d: bisection 2^(d-1) (a dimension cut; edge-isoperimetry); a2a sparsest
 *     the same dimension cut: 2 x 2^(d-1) / (2 (n/2)^2 / (n-1)) = 2(n-1)/n.
 *   Barbell (two K_4 and one bridge): bisection 1; a2a sparsest across the
 *     bridge: 2 / (2 x 16 / 7) = 7/16. */
static void make_barbell(tl_tgraph *g, uint32_t k)
{
    tg_init(g, 2 * k, k * (k - 1) + 1, 1);
    for (uint32_t h = 0; h < 2; h++)
        for (uint32_t u = 0; u < k; u++)
            for (uint32_t v = u + 1; v < k; v++)
                add_edge(g, h * k + u, h * k + v, 1);
    add_edge(g, 0, k, 1);
}

static void test_cuts_hand_values(void **state)
{
    static const struct {
        const char *name;
        int graph; /* 0 ring, 1 complete, 2 hypercube, 3 barbell */
        uint32_t p;
        double bisection, sparsest;
        const char *method;
    } cases[] = {
        {"C6", 0, 6, 2, 8.0 * 5 / 36, "brute force"},
        {"C5", 0, 5, 2, 4.0 / 3, "brute force"},
        {"C12", 0, 12, 2, 8.0 * 11 / 144, "brute force"},
        {"K6", 1, 6, 9, 5, "brute force"},
        {"Q3", 2, 3, 4, 7.0 / 4, "brute force"},
        {"Q4", 2, 4, 8, 15.0 / 8, "brute force"},
        {"barbell4", 3, 4, 1, 7.0 / 16, "brute force"},
        /* Above the brute-force size the heuristics must still find these. */
        {"C40", 0, 40, 2, 8.0 * 39 / 1600, NULL},
        {"Q6", 2, 6, 32, 63.0 / 32, NULL},
        {"barbell15", 3, 15, 1, 2.0 / (2 * 225.0 / 29), NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_tgraph g;
        switch (cases[c].graph) {
        case 0: make_ring(&g, cases[c].p, 1); break;
        case 1: make_complete(&g, cases[c].p, 1); break;
        case 2: make_hypercube(&g, cases[c].p, 1); break;
        default: make_barbell(&g, cases[c].p); break;
        }
        tl_tm tm;
        tm_all_to_all(&g, &tm);
        tl_cut cut;
        tl_err err = {0};
        assert_int_equal(tl_bisection_bandwidth(&g, &cut, &err), 0);
        check_close(cases[c].name, cut.value, cases[c].bisection, 1e-9);
        if (cases[c].method)
            assert_string_equal(cut.method, cases[c].method);
        /* The split balances the servers as well as possible. */
        uint32_t s1 = 0;
        for (uint32_t v = 0; v < g.n_nodes; v++)
            s1 += cut.side[v] ? g.servers[v] : 0;
        assert_true(2 * s1 == g.n_nodes || 2 * s1 + 1 == g.n_nodes || 2 * s1 == g.n_nodes + 1);
        tl_cut_fini(&cut);
        assert_int_equal(tl_sparsest_cut(&g, &tm, &cut, &err), 0);
        check_close(cases[c].name, cut.value, cases[c].sparsest, 1e-9);
        if (cases[c].method)
            assert_string_equal(cut.method, cases[c].method);
        /* A cut bounds the flow from above. */
        if (g.n_nodes <= 16)
            assert_true(exact(cases[c].name, &g, &tm) <= cut.value * (1 + 1e-6));
        tl_cut_fini(&cut);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* Servers on only some nodes (a two-level tree: 4 leaves with 2 servers
 * under one root): the bisection balances servers, not nodes; the root may
 * go to either side. Cut 2 leaf links: capacity 2. */
static void test_bisection_balances_servers(void **state)
{
    tl_tgraph g;
    tg_init(&g, 5, 4, 2);
    g.servers[4] = 0;
    for (uint32_t v = 0; v < 4; v++)
        add_edge(&g, v, 4, 1);
    tl_cut cut;
    tl_err err = {0};
    assert_int_equal(tl_bisection_bandwidth(&g, &cut, &err), 0);
    check_close("star", cut.value, 2, 1e-12);
    tl_cut_fini(&cut);
    tg_free(&g);
}

/* ---------------------------------------------------------------- volumetric bound */

static void test_volumetric_bound(void **state)
{
    /* An upper bound on every instance; tight on the arc-transitive a2a cases
     * of test_a2a_closed_forms; 0 for an unreachable demand. */
    tl_tgraph g;
    make_random_regular(&g, 16, 3, 1, 5);
    uint16_t *dist = bfs_distances(&g);
    for (uint64_t seed = 0; seed < 3; seed++) {
        uint32_t pi[16];
        tl_tm tm;
        random_derangement(16, seed, pi);
        tm_permutation(&g, pi, &tm);
        double ub = tl_tput_upper_bound_paths(&g, &tm, dist);
        assert_true(exact("rrg16", &g, &tm) <= ub * (1 + 1e-6));
        tm_free(&tm);
    }
    tl_tm tm;
    tm_init(&tm, 1);
    tm_add(&tm, 0, 1, 1);
    dist[1] = UINT16_MAX;
    assert_true(tl_tput_upper_bound_paths(&g, &tm, dist) == 0);
    tm.demand[0] = -1;
    assert_true(isnan(tl_tput_upper_bound_paths(&g, &tm, dist)));
    tm_free(&tm);
    free(dist);
    tg_free(&g);
}

/* ---------------------------------------------------------------- bad input */

static void test_bad_input(void **state)
{
    enum { B_DISCONNECTED, B_CROSS, B_NEGATIVE, B_SELF_DEMAND, B_NODE_RANGE, B_SELF_LOOP,
           B_NAN_CAP, B_EMPTY_TM, B_NAN_DEMAND };
    static const struct {
        const char *name;
        int kind;
        const char *needle1, *needle2;
    } cases[] = {
        {"disconnected graph", B_DISCONNECTED, "graph: ", "disconnected"},
        {"demand across components", B_CROSS, "tm: ", "crosses disconnected"},
        {"negative demand", B_NEGATIVE, "tm.demand", "found -0.5"},
        {"src == dst", B_SELF_DEMAND, "tm.src/dst", "both node 2"},
        {"node out of range", B_NODE_RANGE, "tm.src/dst", "below 6"},
        {"self-loop edge", B_SELF_LOOP, "graph.edges", "to itself"},
        {"NaN capacity", B_NAN_CAP, "graph.cap", "finite capacity"},
        {"no positive demand", B_EMPTY_TM, "no positive demand", NULL},
        {"NaN demand", B_NAN_DEMAND, "tm.demand", "finite demand"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        /* Two triangles, joined unless the case disconnects them. */
        tl_tgraph g;
        tg_init(&g, 6, 8, 1);
        for (uint32_t h = 0; h < 2; h++)
            for (uint32_t k = 0; k < 3; k++)
                add_edge(&g, 3 * h + k, 3 * h + (k + 1) % 3, 1);
        int kind = cases[c].kind;
        if (kind != B_DISCONNECTED && kind != B_CROSS)
            add_edge(&g, 0, 3, 1);
        if (kind == B_SELF_LOOP)
            add_edge(&g, 4, 4, 1);
        if (kind == B_NAN_CAP)
            g.cap[2] = NAN;
        tl_tm tm;
        tm_init(&tm, 4);
        tm_add(&tm, 0, 1, 1);
        switch (kind) {
        case B_CROSS: tm_add(&tm, 1, 4, 0.5); break;
        case B_NEGATIVE: tm_add(&tm, 1, 2, -0.5); break;
        case B_SELF_DEMAND: tm_add(&tm, 2, 2, 1); break;
        case B_NODE_RANGE: tm_add(&tm, 1, 6, 1); break;
        case B_EMPTY_TM: tm.demand[0] = 0; break;
        case B_NAN_DEMAND: tm_add(&tm, 1, 2, NAN); break;
        default: break;
        }
        tl_tput o;
        tl_err err = {0};
        assert_int_equal(tl_throughput_exact(&g, &tm, &o, &err), TL_EINVAL);
        tu_check_err(cases[c].name, &err, TL_EINVAL, cases[c].needle1, cases[c].needle2);
        tl_err_clear(&err);
        assert_int_equal(tl_throughput_approx(&g, &tm, 0.05, &o, &err), TL_EINVAL);
        tu_check_err(cases[c].name, &err, TL_EINVAL, cases[c].needle1, cases[c].needle2);
        tm_free(&tm);
        tg_free(&g);
    }
}

/* Cuts of a disconnected graph are well defined (0 across); an accuracy out
 * of range is refused; a cut needs two nodes and, for bisection, servers. */
static void test_cut_and_eps_edges(void **state)
{
    tl_tgraph g;
    tg_init(&g, 6, 6, 1);
    for (uint32_t h = 0; h < 2; h++)
        for (uint32_t k = 0; k < 3; k++)
            add_edge(&g, 3 * h + k, 3 * h + (k + 1) % 3, 1);
    tl_tm tm;
    tm_all_to_all(&g, &tm);
    tl_cut cut;
    tl_err err = {0};
    assert_int_equal(tl_sparsest_cut(&g, &tm, &cut, &err), 0);
    assert_true(cut.value == 0);
    tl_cut_fini(&cut);
    assert_int_equal(tl_bisection_bandwidth(&g, &cut, &err), 0);
    assert_true(cut.value == 0);
    tl_cut_fini(&cut);
    tl_tput o;
    tm_free(&tm);
    tg_free(&g);

    make_ring(&g, 4, 1);
    tm_all_to_all(&g, &tm);
    static const double bad_eps[] = {0, -0.1, 1, NAN, 1e-6};
    for (size_t i = 0; i < sizeof bad_eps / sizeof *bad_eps; i++) {
        tl_err_clear(&err);
        assert_int_equal(tl_throughput_approx(&g, &tm, bad_eps[i], &o, &err), TL_ERANGE);
        tu_check_err("bad eps", &err, TL_ERANGE, "eps", "accuracy");
    }
    for (uint32_t v = 0; v < 4; v++)
        g.servers[v] = 0;
    tl_err_clear(&err);
    assert_int_equal(tl_bisection_bandwidth(&g, &cut, &err), TL_EINVAL);
    tu_check_err("no servers", &err, TL_EINVAL, "no servers", NULL);
    tm_free(&tm);
    tg_free(&g);

    tg_init(&g, 1, 0, 1);
    tm_init(&tm, 1);
    tm_add(&tm, 0, 0, 0);
    tm.n = 0;
    tl_err_clear(&err);
    assert_int_equal(tl_bisection_bandwidth(&g, &cut, &err), TL_EINVAL);
    tu_check_err("one node", &err, TL_EINVAL, "at least 2 nodes", NULL);
    tm_free(&tm);
    tg_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a2a_closed_forms),
        cmocka_unit_test(test_exact_scales),
        cmocka_unit_test(test_exact_vs_approx),
        cmocka_unit_test(test_clp_equals_glpk),
        cmocka_unit_test(test_threads_and_stops),
        cmocka_unit_test(test_potential_at_high_alpha),
        cmocka_unit_test(test_multi_sink_ellipse_widens),
        cmocka_unit_test(test_flattened_butterfly),
        cmocka_unit_test(test_theorem2),
        cmocka_unit_test(test_cuts_hand_values),
        cmocka_unit_test(test_bisection_balances_servers),
        cmocka_unit_test(test_volumetric_bound),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_cut_and_eps_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
