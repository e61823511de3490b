/* Workload generation at paper scale (issue: foundation): 16M flows for the
 * 6,144-host fabric at 2:1, full matrix B, WebServer sizes, sigma 2, 50% max
 * link load, generated in memory through the public API; then written as CSV.
 * Goals: <= 10 s and <= 2 GiB. Prints figures; never passes or fails.
 * usage: bench_workload [n_flows] [repeats] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "benchutil.h"
#include "tailor/routing.h"
#include "tailor/spec.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

static const char *scenario_json(unsigned long n_flows, char *buf, size_t n)
{
    snprintf(buf, n,
             "{\"seed\": 1, \"topology\": {\"type\": \"fabric\", \"pods\": 8, \"racks_per_pod\": 48,"
             " \"hosts_per_rack\": 16, \"planes\": 4, \"oversubscription\": 2},"
             " \"workload\": {\"flows\": %lu, \"classes\": [{\"name\": \"web\", \"sizes\": {\"cdf\":"
             " \"webserver\"}, \"spatial\": {\"type\": \"matrix\", \"matrix\": \"b-full\"},"
             " \"arrival\": {\"process\": \"lognormal\", \"sigma\": 2}, \"load\":"
             " {\"max_link_load\": 0.5}}]}}",
             n_flows);
    return buf;
}

int main(int argc, char **argv)
{
    unsigned long n_flows = argc > 1 ? strtoul(argv[1], NULL, 10) : 16000000ul;
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
    char json[2048], scen[64];
    snprintf(scen, sizeof scen, "fabric6144_2to1_Bfull_webserver_%luflows", n_flows);
    tl_err err;
    tl_err_clear(&err);
    tl_scenario sc;
    if (tl_scenario_parse(&sc, scenario_json(n_flows, json, sizeof json), "bench", NULL, &err)) {
        fprintf(stderr, "bench_workload: %s\n", err.msg);
        return 1;
    }
    double t0 = bench_now_s();
    tl_topo *t = tl_scenario_build_topo(&sc, &err);
    tl_routes *r = t ? tl_routes_create(t, sc.seed, &err) : NULL;
    if (!r) {
        fprintf(stderr, "bench_workload: %s\n", err.msg);
        return 1;
    }
    bench_print("workload.topo_routes_s", bench_now_s() - t0, "s", scen, 2);

    int thread_counts[] = {1, 2};
    for (int k = 0; k < 2; k++) {
        int th = thread_counts[k];
        double times[16];
        tl_flows f;
        /* Warm-up at a tenth of the size (page faults, data files). */
        sc.workload.n_flows = n_flows / 10 + 1;
        if (tl_workload_generate(&sc.workload, t, r, sc.seed, th, &f, NULL, &err)) {
            fprintf(stderr, "bench_workload: %s\n", err.msg);
            return 1;
        }
        tl_flows_fini(&f);
        sc.workload.n_flows = n_flows;
        for (int i = 0; i < repeats && i < 16; i++) {
            double s = bench_now_s();
            if (tl_workload_generate(&sc.workload, t, r, sc.seed, th, &f, NULL, &err)) {
                fprintf(stderr, "bench_workload: %s\n", err.msg);
                return 1;
            }
            times[i] = bench_now_s() - s;
            if (k == 1 && i == repeats - 1) {
                char path[256];
                snprintf(path, sizeof path, "/tmp/tailor-bench-%ld.csv", (long)getpid());
                double w = bench_now_s();
                if (tl_flows_save_csv(&f, path, &err)) {
                    fprintf(stderr, "bench_workload: %s\n", err.msg);
                    return 1;
                }
                bench_print("workload.write_csv_s", bench_now_s() - w, "s", scen, 1);
                unlink(path);
            }
            tl_flows_fini(&f);
        }
        double spread, med = bench_median(times, (size_t)repeats, &spread);
        bench_print("workload.generate_s", med, "s", scen, th);
        bench_print("workload.generate_spread_s", spread, "s", scen, th);
        bench_print("workload.flows_per_s", (double)n_flows / med, "flows/s", scen, th);
    }
    bench_print("workload.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, 2);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
    tl_scenario_fini(&sc);
    return 0;
}
