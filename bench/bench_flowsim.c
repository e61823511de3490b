/* flowsim speed (issue "flowsim"), through the public API, fixed seed:
 *   bench_flowsim path [flows]     6-hop parking lot, 4 hosts per switch, WebServer sizes,
 *                                  sigma 2, 60% max load: path-level mode on the first 1M flows
 *                                  that run along the path (S0 towards S6, each with private
 *                                  access links), and whole-network mode on every flow
 *                                  generated to get them (about 2.3M, both directions)
 *   bench_flowsim fabric [flows]   32-rack fabric at 2:1, matrix B, WebServer, sigma 2, 50%
 *                                  max load (2M flows)
 * Goals: 1M flows on the path < 1 s; 2M fabric flows < 30 s. Prints flows/s
 * and the work per event (links and flows refilled). Never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/flowsim.h"
#include "tailor/spec.h"

static int report(const char *mode, tl_flowsim *s, double wall, size_t n, const char *scen)
{
    tl_flowsim_stats st;
    tl_flowsim_get_stats(s, &st);
    char name[64];
    snprintf(name, sizeof name, "flowsim.%s.wall_s", mode);
    bench_print(name, wall, "s", scen, 1);
    snprintf(name, sizeof name, "flowsim.%s.flows_per_s", mode);
    bench_print(name, (double)n / wall, "flows/s", scen, 1);
    snprintf(name, sizeof name, "flowsim.%s.links_refilled_per_event", mode);
    bench_print(name, (double)st.links_refilled / (double)st.n_events, "links", scen, 1);
    snprintf(name, sizeof name, "flowsim.%s.flows_refilled_per_event", mode);
    bench_print(name, (double)st.flows_refilled / (double)st.n_events, "flows", scen, 1);
    snprintf(name, sizeof name, "flowsim.%s.max_active_flows", mode);
    bench_print(name, (double)st.max_active_flows, "flows", scen, 1);
    return 0;
}

int main(int argc, char **argv)
{
    tl_alloc_tune(); /* as the CLI does */
    const char *which = argc > 1 ? argv[1] : "path";
    int is_path = strcmp(which, "path") == 0;
    unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : (is_path ? 1000000 : 2000000);
    unsigned long n_path = n;
    char json[2048], scen[96];
    if (is_path) {
        n = n_path * 24 / 10; /* 43% of uniform pairs run along the path */
        snprintf(json, sizeof json,
                 "{\"seed\": 1, \"topology\": {\"type\": \"parking_lot\", \"hops\": 6, "
                 "\"hosts_per_switch\": 4}, \"workload\": {\"flows\": %lu, \"classes\": "
                 "[{\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": {\"type\": \"uniform\"}, "
                 "\"arrival\": {\"process\": \"lognormal\", \"sigma\": 2}, \"load\": "
                 "{\"max_link_load\": 0.6}}]}}",
                 n);
        snprintf(scen, sizeof scen, "parking6_webserver_s2_60pct_%lupathflows", n_path);
    } else {
        snprintf(json, sizeof json,
                 "{\"seed\": 1, \"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": "
                 "16, \"hosts_per_rack\": 8, \"planes\": 2, \"oversubscription\": 2}, "
                 "\"workload\": {\"flows\": %lu, \"classes\": [{\"sizes\": {\"cdf\": "
                 "\"webserver\"}, \"spatial\": {\"type\": \"matrix\", \"matrix\": \"B\"}, "
                 "\"arrival\": {\"process\": \"lognormal\", \"sigma\": 2}, \"load\": "
                 "{\"max_link_load\": 0.5}}]}}",
                 n);
        snprintf(scen, sizeof scen, "fabric32_2to1_B_webserver_s2_50pct_%luflows", n);
    }
    tl_err err;
    tl_err_clear(&err);
    tl_scenario sc;
    tl_topo *t = NULL;
    tl_routes *r = NULL;
    tl_flows f;
    if (tl_scenario_parse(&sc, json, "bench", NULL, &err) ||
        !(t = tl_scenario_build_topo(&sc, &err)) || !(r = tl_routes_create(t, sc.seed, &err)) ||
        tl_workload_generate(&sc.workload, t, r, sc.seed, 0, &f, NULL, &err)) {
        fprintf(stderr, "bench_flowsim: %s\n", err.msg);
        return 1;
    }
    double t0 = bench_now_s();
    tl_flowsim *s = tl_flowsim_create(t, r, &f, &sc.params, &err);
    if (!s || tl_flowsim_run(s, NULL, &err)) {
        fprintf(stderr, "bench_flowsim: %s\n", err.msg);
        return 1;
    }
    report("network", s, bench_now_s() - t0, f.n, scen);
    tl_flowsim_destroy(s);
    if (is_path) {
        /* The same flows in path-level mode: the chain is the path (switches
         * are nodes 28..34), every flow attached through private host links. */
        tl_fs_link links[6];
        uint32_t base = tl_topo_n_hosts(t);
        for (int k = 0; k < 6; k++)
            for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
                const tl_link *L = tl_topo_link(t, l);
                if (L->a == base + (uint32_t)k && L->b == base + (uint32_t)k + 1)
                    links[k] = (tl_fs_link){L->rate_bps, L->delay_ps};
            }
        const tl_link *host = tl_topo_link(t, 0);
        tl_fs_path_flow *pf = malloc(f.n * sizeof *pf);
        size_t m = 0;
        for (size_t i = 0; i < f.n && m < n_path; i++) {
            uint32_t a = f.v[i].src / 4, b = f.v[i].dst / 4; /* 4 hosts per switch */
            if (a >= b)
                continue; /* the other direction, or the same switch: off this path */
            pf[m++] = (tl_fs_path_flow){.size_bytes = f.v[i].size_bytes,
                                        .start_ps = f.v[i].start_ps,
                                        .first = (uint16_t)a,
                                        .last = (uint16_t)(b - 1),
                                        .src = {host->rate_bps, host->delay_ps},
                                        .dst = {host->rate_bps, host->delay_ps}};
        }
        t0 = bench_now_s();
        s = tl_flowsim_create_path(links, 6, pf, m, &sc.params, &err);
        if (!s || tl_flowsim_run(s, NULL, &err)) {
            fprintf(stderr, "bench_flowsim: %s\n", err.msg);
            return 1;
        }
        report("path", s, bench_now_s() - t0, m, scen);
        tl_flowsim_destroy(s);
        free(pf);
    }
    bench_print("flowsim.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, 1);
    tl_flows_fini(&f);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
    tl_scenario_fini(&sc);
    return 0;
}
