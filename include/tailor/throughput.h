/* Topology throughput (topology-throughput.txt, Jyothi et al. SC'16): the
 * largest t such that t x TM is routable (max concurrent flow), for traffic
 * matrices in the hose model (each server sends and receives at most 1),
 * exactly by LP (GLPK or COIN-OR CLP) or by a (1+eps)-approximation with
 * certified lower and upper bounds; relative throughput against
 * same-equipment random graphs;
 * bounds and cuts. docs/throughput.md. */
#ifndef TAILOR_THROUGHPUT_H
#define TAILOR_THROUGHPUT_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/topo.h"

/* ---- the throughput graph ---- */

/* Nodes that route (switches, and the servers of server-centric topologies
 * such as BCube and DCell) joined by undirected edges of capacity cap in each
 * direction, in units of the reference rate. servers[i] counts the servers
 * whose traffic enters and leaves at node i (their access links are not
 * capacity-limited, paper §II-A). */
typedef struct tl_tgraph {
    uint32_t n_nodes, n_edges;
    uint32_t *servers; /* (n_nodes) */
    uint32_t *eu, *ev; /* (n_edges) endpoints */
    double *cap;       /* (n_edges) per direction */
    double ref_bps;    /* the rate that counts as capacity 1 */
} tl_tgraph;

/* From a topology: switches are nodes; a single-homed host adds one server to
 * its switch and its link is dropped; a host with several links (BCube, DCell)
 * is a node of its own with one server. ref_bps 0 picks the most common
 * switch-to-switch rate, so uniform networks have capacity 1. Errors: a
 * disconnected graph, no servers. */
int tl_tgraph_from_topo(tl_tgraph *g, const tl_topo *t, double ref_bps, tl_err *err);
void tl_tgraph_fini(tl_tgraph *g);
uint32_t tl_tgraph_n_servers(const tl_tgraph *g);
/* Hop distances between all node pairs (n_nodes^2 uint16, row-major); caller frees. */
uint16_t *tl_tgraph_distances(const tl_tgraph *g, tl_err *err);

/* ---- traffic matrices (node level, hose-normalized at server level) ---- */

typedef struct tl_tm {
    size_t n;          /* commodities */
    uint32_t *src, *dst; /* (n) nodes, src != dst */
    double *demand;    /* (n) > 0, in units of one server's rate */
} tl_tm;

void tl_tm_fini(tl_tm *tm);
/* Every server sends 1/(S-1) to every other server (pairs on the same node
 * need no network and are left out). */
int tl_tm_all_to_all(const tl_tgraph *g, tl_tm *tm, tl_err *err);
/* A random perfect matching of servers (a permutation without fixed points),
 * k servers per node taking part (0 = all). */
int tl_tm_random_matching(const tl_tgraph *g, uint32_t k, uint64_t seed, tl_tm *tm, tl_err *err);
/* Longest matching: the node-level assignment pi maximizing the sum of
 * servers x hop distance, each node's servers sending to pi(node)'s. Exact:
 * a perfect matching among each node's farthest nodes when one exists (then
 * optimal by the row-maxima bound), else an auction with epsilon scaling on
 * the integer weights. Among optimal assignments, the one found is
 * deterministic but unspecified; write the TM out (tl_tm_save) to keep it. */
int tl_tm_longest_matching(const tl_tgraph *g, tl_tm *tm, tl_err *err);
/* Kodialam et al.'s TM: each node's servers send to the node farthest from it
 * by hop count, the demand spread evenly over equally far nodes. */
int tl_tm_kodialam(const tl_tgraph *g, tl_tm *tm, tl_err *err);
/* The paper's non-uniform TM (§IV-A2): the longest matching with a random
 * fraction frac of its server flows weighted 10, hose-normalized. */
int tl_tm_skewed(const tl_tgraph *g, double frac, uint64_t seed, tl_tm *tm, tl_err *err);
/* Text file "src dst demand" per line ('#' comments), node ids of g.
 * Errors name the line: unknown node, negative demand, src == dst. With g
 * NULL, only the file is checked (before a topology is built): node ids
 * are not, and demands are left as written. */
int tl_tm_load(const tl_tgraph *g, const char *path, tl_tm *tm, tl_err *err);
int tl_tm_save(const tl_tm *tm, const char *path, tl_err *err);
/* Scales demands so that the busiest server sends or receives exactly 1 (hose).
 * Returns 0, or TL_ENOMEM with tm unchanged. */
int tl_tm_hose_normalize(const tl_tgraph *g, tl_tm *tm, tl_err *err);

typedef enum {
    TL_TM_ALL_TO_ALL = 0,
    TL_TM_RANDOM_MATCHING,  /* param: servers per node taking part (0 = all) */
    TL_TM_LONGEST_MATCHING,
    TL_TM_KODIALAM,
    TL_TM_SKEWED,           /* param: fraction of flows weighted 10 */
} tl_tm_kind;
extern const char *const tl_tm_kind_names[]; /* "all-to-all", ..., NULL-terminated */
/* One of the generators above by kind. */
int tl_tm_make(const tl_tgraph *g, tl_tm_kind kind, double param, uint64_t seed, tl_tm *tm,
               tl_err *err);

/* ---- throughput ---- */

typedef struct tl_tput {
    double throughput; /* exact: the LP optimum; approx: the certified lower bound */
    double lower, upper; /* certified bounds (equal for the exact method) */
    /* "exact-lp", "garg-konemann", "path-potential", "path-potential+garg-konemann" */
    char method[32];
    double seconds;
    uint64_t iterations;
    size_t lp_rows, lp_cols; /* exact method: the LP's size */
    int stopped;             /* approx: 0, or why it stopped before 1 + eps (TL_TPUT_*) */
} tl_tput;

enum { TL_TPUT_TIME_LIMIT = 1, TL_TPUT_INTERRUPTED = 2 };

/* Options of the approximation. */
typedef struct tl_tput_opts {
    double eps;          /* stop once upper / lower <= 1 + eps */
    int n_threads;       /* 0: all cores; the result does not depend on it */
    double time_limit_s; /* > 0: stop after this long with the bounds reached */
    /* Stops with the bounds reached once *stop is nonzero (a signal handler's flag). */
    const volatile int *stop;
    /* Called about every progress_s seconds (default 5) with the bounds so far. */
    void (*progress)(void *ctx, const tl_tput *now);
    void *progress_ctx;
    double progress_s;
} tl_tput_opts;

/* The exact LP's solvers: GLPK's primal simplex, or COIN-OR CLP's dual
 * simplex or barrier (then crossover). */
typedef enum { TL_LP_GLPK = 0, TL_LP_CLP_DUAL, TL_LP_CLP_BARRIER } tl_lp_solver;
#define TL_LP_DEFAULT TL_LP_CLP_BARRIER
/* Exact: source-aggregated arc-flow LP (variables = sources x directed
 * edges, never pruned), solved with TL_LP_DEFAULT. */
int tl_throughput_exact(const tl_tgraph *g, const tl_tm *tm, tl_tput *out, tl_err *err);
/* The same LP with a chosen solver. */
extern const char *const tl_lp_solver_names[]; /* "glpk", "clp-dual", "clp-barrier", NULL */
int tl_throughput_exact_with(const tl_tgraph *g, const tl_tm *tm, tl_lp_solver solver,
                             tl_tput *out, tl_err *err);
/* Garg-Konemann with Karakostas' grouping of commodities by source: stops
 * when upper / lower <= 1 + eps. */
int tl_throughput_approx(const tl_tgraph *g, const tl_tm *tm, double eps, tl_tput *out,
                         tl_err *err);
/* The same with options. A stop (time limit, flag) returns 0 with
 * out->stopped set and the certified bounds reached, gap above eps. */
int tl_throughput_approx_opts(const tl_tgraph *g, const tl_tm *tm, const tl_tput_opts *o,
                              tl_tput *out, tl_err *err);

/* Relative throughput (paper §IV): the topology's throughput over the mean
 * of n_instances same-equipment random graphs' (tl_topo_same_equipment, or
 * tl_topo_same_equipment_spread when spread is nonzero; seeds from seed), each under a TM of the same kind made for it, with a 95%
 * confidence interval (Student t over the instances). */
typedef struct tl_rel_tput {
    double tput;               /* the topology's */
    double random_mean, random_ci95; /* the random graphs': mean and CI half-width */
    double relative, relative_ci95;
    uint32_t n_instances;
} tl_rel_tput;
int tl_relative_throughput(const tl_topo *t, tl_tm_kind kind, double param, int use_exact,
                           double eps, int spread, uint32_t n_instances, uint64_t seed,
                           tl_rel_tput *out, tl_err *err);
/* Its parts, for running the instances apart (topo-bench's fan-out):
 * instance 0 is t itself, instance i >= 1 the i-th random graph; combine
 * then gives tl_relative_throughput's result, bit for bit, from instance
 * 0's throughput and the random ones' x[0..n_instances) in order. */
int tl_relative_instance(const tl_topo *t, tl_tm_kind kind, double param, int use_exact,
                         double eps, int spread, uint32_t i, uint64_t seed, double *out,
                         tl_err *err);
void tl_relative_combine(double tput, const double *x, uint32_t n_instances, tl_rel_tput *out);

/* ---- bounds and cuts ---- */

/* The volumetric upper bound (paper §II-B): total capacity / sum over
 * commodities of demand x shortest-path length. */
double tl_tput_upper_bound_paths(const tl_tgraph *g, const tl_tm *tm, const uint16_t *dist);

typedef struct tl_cut {
    double value;       /* bisection: capacity across; sparsest: capacity / demand across */
    char method[48];    /* "brute force", "fiedler sweep", ... */
    uint8_t *side;      /* (n_nodes) 0/1, owned; may be NULL */
} tl_cut;
void tl_cut_fini(tl_cut *c);
/* Minimum capacity across a balanced split of the servers. Brute force up to
 * 24 nodes; above, spectral partition plus Kernighan-Lin refinement. */
int tl_bisection_bandwidth(const tl_tgraph *g, tl_cut *out, tl_err *err);
/* min over cuts of capacity across / demand across (tm's demand). Brute force
 * up to 24 nodes; above, the best of eigenvector sweeps and small-subset
 * heuristics (an upper bound on the true sparsest cut). */
int tl_sparsest_cut(const tl_tgraph *g, const tl_tm *tm, tl_cut *out, tl_err *err);

#endif
