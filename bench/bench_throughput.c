/* Throughput benchmark figures (issue "throughput"), through the public API:
 *   bench_throughput exact [budget_s]   Jellyfish (degree 8, 4 servers per switch) of growing
 *                                        size under longest matching, exact LP, until one
 *                                        solve passes the budget (default 60 s): the largest
 *                                        instance solved and its LP size
 *   bench_throughput approx             2,000-switch Jellyfish, degree 24, 12 servers per
 *                                        switch, longest matching, eps 0.02 (goal < 60 s):
 *                                        time and certified gap, plus the TM's own time
 * The topo-bench sweep is timed by `tailor topo-bench` itself.
 * Prints figures; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/throughput.h"
#include "tailor/topo.h"

static int make(const char *spec, tl_tgraph *g, tl_tm *tm, double *tm_s)
{
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = tl_topo_from_spec(spec, 1, &err);
    if (!t || tl_tgraph_from_topo(g, t, 0, &err)) {
        fprintf(stderr, "bench_throughput: %s: %s\n", spec, err.msg);
        return 1;
    }
    tl_topo_destroy(t);
    double t0 = bench_now_s();
    if (tl_tm_longest_matching(g, tm, &err)) {
        fprintf(stderr, "bench_throughput: %s\n", err.msg);
        return 1;
    }
    *tm_s = bench_now_s() - t0;
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
        static const unsigned sizes[] = {25, 50, 75, 100, 150, 200, 300, 400, 600, 800};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            char spec[128];
            snprintf(spec, sizeof spec, "jellyfish:switches=%u,degree=8,servers=4", sizes[i]);
            tl_tgraph g;
            tl_tm tm;
            double tm_s;
            if (make(spec, &g, &tm, &tm_s))
                return 1;
            tl_tput r;
            if (tl_throughput_exact(&g, &tm, &r, &err)) {
                fprintf(stderr, "bench_throughput: %s\n", err.msg);
                return 1;
            }
            snprintf(scen, sizeof scen, "jellyfish_%usw_d8_s4_LM", sizes[i]);
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
    const char *spec = "jellyfish:switches=2000,degree=24,servers=12";
    snprintf(scen, sizeof scen, "jellyfish_2000sw_d24_s12_LM_eps0.02");
    tl_tgraph g;
    tl_tm tm;
    double tm_s;
    if (make(spec, &g, &tm, &tm_s))
        return 1;
    bench_print("throughput.longest_matching_tm.seconds", tm_s, "s", scen, 1);
    tl_tput r;
    if (tl_throughput_approx(&g, &tm, 0.02, &r, &err)) {
        fprintf(stderr, "bench_throughput: %s\n", err.msg);
        return 1;
    }
    bench_print("throughput.approx.seconds", r.seconds, "s", scen, 1);
    bench_print("throughput.approx.lower", r.lower, "", scen, 1);
    bench_print("throughput.approx.upper", r.upper, "", scen, 1);
    bench_print("throughput.approx.gap_pct", (r.upper / r.lower - 1) * 100, "%", scen, 1);
    bench_print("throughput.approx.iterations", (double)r.iterations, "", scen, 1);
    bench_print("throughput.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, 1);
    tl_tm_fini(&tm);
    tl_tgraph_fini(&g);
    return 0;
}
