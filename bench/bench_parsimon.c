/* Parsimon speed and memory (issue "parsimon"), through the public API, one
 * configuration per invocation so peak memory is that configuration's:
 *   bench_parsimon [SCEN [ENGINE [threads]]]   (default: default parsimon)
 * SCEN:   default  the default scenario (32-rack fabric 2:1, matrix B, WebServer,
 *                  sigma 2, 50% max load, dctcp-rate, 200,000 flows)
 *         2m       the same with 2,000,000 flows
 *         6144     the 6,144-host fabric at 2:1 (full matrix B, 1 s of arrivals),
 *                  examples/fabric-6144.json
 * ENGINE: pktsim | parsimon | parsimon-cluster
 * threads: 0 = all cores (default); pktsim always runs on one.
 * Goals: Parsimon <= 1/2 of pktsim's wall time without clustering and <= 1/8
 * with it. Prints figures; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/parsimon.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"

int main(int argc, char **argv)
{
    tl_alloc_tune(); /* as the CLI does */
    /* no arguments (make bench): Parsimon on the default scenario */
    const char *which = argc > 1 ? argv[1] : "default";
    const char *engine = argc > 2 ? argv[2] : "parsimon";
    if (strcmp(engine, "pktsim") && strcmp(engine, "parsimon") &&
        strcmp(engine, "parsimon-cluster")) {
        fprintf(stderr, "usage: bench_parsimon [default|2m|6144 [pktsim|parsimon|parsimon-cluster "
                        "[threads]]]\n");
        return 2;
    }
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    char scen[96];
    tl_world w;
    double t_world;
    if (bench_engine_world(which, threads, &w, scen, sizeof scen, &t_world))
        return 1;
    tl_err err;
    tl_err_clear(&err);
    char name[96];
    int used = threads;
    double t0 = bench_now_s();
    if (strcmp(engine, "pktsim") == 0) {
        used = 1;
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                        w.sc.seed, &err);
        if (!s || tl_pktsim_run(s, 0, NULL, &err)) {
            fprintf(stderr, "bench_parsimon: %s\n", err.msg);
            return 1;
        }
        tl_pktsim_destroy(s);
    } else {
        tl_parsimon_opts o;
        tl_parsimon_opts_default(&o);
        o.is_cluster = strcmp(engine, "parsimon-cluster") == 0;
        o.n_threads = threads;
        tl_parsimon *s = tl_parsimon_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                            w.sc.seed, &o, &err);
        if (!s || tl_parsimon_run(s, NULL, &err)) {
            fprintf(stderr, "bench_parsimon: %s\n", err.msg);
            return 1;
        }
        tl_parsimon_stats st;
        tl_parsimon_get_stats(s, &st);
        snprintf(name, sizeof name, "%s.links_simulated", engine);
        bench_print(name, st.n_simulated, "links", scen, used);
        snprintf(name, sizeof name, "%s.links_pruned", engine);
        bench_print(name, st.n_pruned, "links", scen, used);
        snprintf(name, sizeof name, "%s.slowest_link_s", engine);
        bench_print(name, st.max_link_s, "s", scen, used);
        snprintf(name, sizeof name, "%s.link_hops", engine);
        bench_print(name, (double)st.n_link_hops, "hops", scen, used);
        tl_parsimon_destroy(s);
    }
    double wall = bench_now_s() - t0;
    bench_print("workload.flows", (double)w.flows.n, "flows", scen, used);
    bench_print("workload.build_s", t_world, "s", scen, used);
    snprintf(name, sizeof name, "%s.wall_s", engine);
    bench_print(name, wall, "s", scen, used);
    snprintf(name, sizeof name, "%s.peak_rss_mib", engine);
    bench_print(name, bench_peak_rss_mib(), "MiB", scen, used);
    tl_world_fini(&w);
    return 0;
}
