/* m3 speed and memory (issue "m3"), through the public API, one
 * configuration per invocation so peak memory is that configuration's:
 *   bench_m3 [SCEN [ENGINE [threads]]]
 * SCEN:   default (the default) | 2m | 6144 (bench_engine_world)
 * ENGINE: m3 (with data/models/m3.model; default) | m3-flowsim (no model)
 * threads: 0 = all cores (default).
 * Goals (issue "m3"): 2M flows on the 32-rack fabric <= 15 s on 2 cores,
 * the 6,144-host fabric <= 120 s, inference per path <= 2 ms. Prints
 * figures; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/m3.h"
#include "tailor/world.h"

int main(int argc, char **argv)
{
    tl_alloc_tune(); /* as the CLI does */
    /* no arguments (make bench): the default scenario */
    const char *which = argc > 1 ? argv[1] : "default";
    const char *engine = argc > 2 ? argv[2] : "m3";
    int threads = argc > 3 ? atoi(argv[3]) : 0;
    char scen[96];
    tl_world w;
    double t_world;
    if (bench_engine_world(which, threads, &w, scen, sizeof scen, &t_world))
        return 1;
    tl_err err;
    tl_err_clear(&err);
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.is_no_model = strcmp(engine, "m3-flowsim") == 0;
    o.n_threads = threads;
    double t0 = bench_now_s();
    tl_m3 *m = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, w.sc.seed, &o,
                            &err);
    if (!m || tl_m3_run(m, NULL, &err)) {
        fprintf(stderr, "bench_m3: %s\n", err.msg);
        return 1;
    }
    double wall = bench_now_s() - t0;
    tl_m3_stats st;
    tl_m3_get_stats(m, &st);
    char name[96];
#define FIG(what, v, unit)                                                                         \
    snprintf(name, sizeof name, "%s." what, engine), bench_print(name, v, unit, scen, threads)
    FIG("paths_distinct", st.n_paths_unique, "paths");
    FIG("path_flows_mean", st.n_paths_unique ? (double)st.n_path_flows / st.n_paths_unique : 0,
        "flows");
    FIG("decompose_s", st.decompose_s, "s");
    FIG("features_s", st.features_s, "s");
    FIG("model_ms_per_path", st.n_paths_unique ? st.predict_s * 1e3 / st.n_paths_unique : 0,
        "ms");
    FIG("aggregate_s", st.aggregate_s, "s");
    bench_print("workload.flows", (double)w.flows.n, "flows", scen, threads);
    bench_print("workload.build_s", t_world, "s", scen, threads);
    FIG("wall_s", wall, "s");
    FIG("peak_rss_mib", bench_peak_rss_mib(), "MiB");
#undef FIG
    tl_m3_destroy(m);
    tl_world_fini(&w);
    return 0;
}
