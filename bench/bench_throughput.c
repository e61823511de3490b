/* Throughput benchmark figures (issue "throughput"), through the public API:
 *   bench_throughput exact [budget_s [glpk|clp-dual|clp-barrier]]
 *                                        Jellyfish (degree 8, 4 servers per switch) of growing
 *                                        size under longest matching, exact LP with the given
 *                                        solver (default GLPK), until one solve passes the
 *                                        budget (default 60 s): the largest instance solved
 *                                        and its LP size
 *   bench_throughput approx [N [longest|random [LIMIT_S]]]
 *                                        N-switch Jellyfish (default 2,000), degree 24, 12
 *                                        servers per switch, longest (default) or random
 *                                        matching, eps 0.02, all cores, stopped after LIMIT_S
 *                                        (default 600): graph, TM and solve times, certified
 *                                        bounds and gap, peak memory (one case per process:
 *                                        bench/throughput_scale.sh runs the table)
 * The topo-bench sweep is timed by `tailor topo-bench` itself.
 * Prints figures; never passes or fails. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/throughput.h"
#include "tailor/topo.h"

static int make(const char *spec, int random, tl_tgraph *g, tl_tm *tm, double *graph_s,
                double *tm_s)
{
    tl_err err;
    tl_err_clear(&err);
    double t0 = bench_now_s();
    tl_topo *t = tl_topo_from_spec(spec, 1, &err);
    if (!t || tl_tgraph_from_topo(g, t, 0, &err)) {
        fprintf(stderr, "bench_throughput: %s: %s\n", spec, err.msg);
        return 1;
    }
    tl_topo_destroy(t);
    double t1 = bench_now_s();
    if (random ? tl_tm_random_matching(g, 0, 1, tm, &err) : tl_tm_longest_matching(g, tm, &err)) {
        fprintf(stderr, "bench_throughput: %s\n", err.msg);
        return 1;
    }
    *graph_s = t1 - t0;
    *tm_s = bench_now_s() - t1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "approx";
    char scen[160];
    tl_err err;
    tl_err_clear(&err);
    if (strcmp(which, "exact") == 0) {
        double budget = argc > 2 ? atof(argv[2]) : 60;
        tl_lp_solver solver = TL_LP_GLPK;
        for (int i = 0; argc > 3 && tl_lp_solver_names[i]; i++)
            if (strcmp(argv[3], tl_lp_solver_names[i]) == 0)
                solver = (tl_lp_solver)i;
        static const unsigned sizes[] = {25, 50, 75, 100, 150, 200, 300, 400, 600, 800};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char spec[128];
            snprintf(spec, sizeof spec, "jellyfish:switches=%u,degree=8,servers=4", sizes[i]);
            tl_tgraph g;
            tl_tm tm;
            double graph_s, tm_s;
            if (make(spec, 0, &g, &tm, &graph_s, &tm_s))
                return 1;
            tl_tput r;
            if (tl_throughput_exact_with(&g, &tm, solver, &r, &err)) {
                fprintf(stderr, "bench_throughput: %s\n", err.msg);
                return 1;
            }
            snprintf(scen, sizeof scen, "jellyfish_%usw_d8_s4_LM_%s", sizes[i],
                     tl_lp_solver_names[solver]);
            bench_print("throughput.exact.seconds", r.seconds, "s", scen, 1);
            bench_print("throughput.exact.lp_rows", (double)r.lp_rows, "rows", scen, 1);
            bench_print("throughput.exact.lp_cols", (double)r.lp_cols, "cols", scen, 1);
            bench_print("throughput.exact.value", r.throughput, "", scen, 1);
            bench_print("throughput.exact.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, 1);
            tl_tm_fini(&tm);
            tl_tgraph_fini(&g);
            if (r.seconds > budget)
                break;
        }
        return 0;
    }
    unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 2000;
    int random = argc > 3 && strcmp(argv[3], "random") == 0;
    double limit = argc > 4 ? atof(argv[4]) : 600;
    char spec[128];
    snprintf(spec, sizeof spec, "jellyfish:switches=%u,degree=24,servers=12", n);
    snprintf(scen, sizeof scen, "jellyfish_%usw_d24_s12_%s_eps0.02", n, random ? "RM" : "LM");
    tl_tgraph g;
    tl_tm tm;
    double graph_s, tm_s;
    if (make(spec, random, &g, &tm, &graph_s, &tm_s))
        return 1;
    int nt = omp_get_max_threads(); /* the solve's searches use every core */
    bench_print("throughput.graph.seconds", graph_s, "s", scen, nt);
    bench_print("throughput.tm.seconds", tm_s, "s", scen, nt);
    tl_tput r;
    tl_tput_opts o = {.eps = 0.02, .time_limit_s = limit};
    if (tl_throughput_approx_opts(&g, &tm, &o, &r, &err)) {
        fprintf(stderr, "bench_throughput: %s\n", err.msg);
        return 1;
    }
    bench_print("throughput.approx.seconds", r.seconds, "s", scen, nt);
    bench_print("throughput.approx.lower", r.lower, "", scen, nt);
    bench_print("throughput.approx.upper", r.upper, "", scen, nt);
    bench_print("throughput.approx.gap_pct", (r.upper / r.lower - 1) * 100, "%", scen, nt);
    bench_print("throughput.approx.reached_eps", r.stopped ? 0 : 1, "", scen, nt);
    bench_print("throughput.approx.iterations", (double)r.iterations, "", scen, nt);
    bench_print("throughput.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, nt);
    tl_tm_fini(&tm);
    tl_tgraph_fini(&g);
    return 0;
}
