/* pktsim speed (issues "pktsim" and "rdma-cc"): wall time, events/s and
 * link-hops/s through the public API, median of several repeats after a warm-up.
 *   bench_pktsim perm [repeats] [cc]     128-host k=8 fat tree, 100 Gb/s, 1 us, MTU 4096,
 *                                        one permutation of 2 MB flows (default cc dctcp)
 *   bench_pktsim default [flows] [cc]    32-rack fabric 2:1, matrix B, WebServer, sigma 2,
 *                                        50% max load (default cc dctcp-rate; 200k flows)
 *   bench_pktsim compare [flows]         both scenarios with every CC, then a side-by-side
 *                                        table of link-hops/s and slowdown p50/p99 per bucket
 *   bench_pktsim fingerprint             per-flow FCTs and counters of runs the CLI cannot
 *                                        make (a link failing mid-run, a knob changed by the
 *                                        run-time control), as text for bench/identity.sh
 * Prints figures; never passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/cc.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"
#include "tailor/world.h"

typedef tl_world world;

static int world_make(world *w, const char *json)
{
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(w, json, 0, &err)) {
        fprintf(stderr, "bench_pktsim: %s %s\n", err.path, err.msg);
        return 1;
    }
    return 0;
}

/* One run; returns wall seconds and fills st. */
static double run_once(world *w, tl_pktsim_stats *st)
{
    tl_err err;
    tl_err_clear(&err);
    double t0 = bench_now_s();
    tl_pktsim *s = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed, &err);
    if (!s || tl_pktsim_run(s, 0, NULL, &err)) {
        fprintf(stderr, "bench_pktsim: %s\n", err.msg);
        exit(1);
    }
    double el = bench_now_s() - t0;
    tl_pktsim_get_stats(s, st);
    tl_pktsim_destroy(s);
    return el;
}

static void scenario(const char *which, unsigned long n, const char *cc, char *json, size_t jn,
                     char *scen, size_t sn)
{
    if (strcmp(which, "perm") == 0) {
        snprintf(json, jn,
                 "{\"seed\": 1, \"topology\": {\"type\": \"fat_tree\", \"k\": 8, \"host_link_bps\": "
                 "\"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}, "
                 "\"workload\": {\"flows\": 128, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
                 "\"mean_bytes\": 2000000}, \"spatial\": {\"type\": \"permutation\"}, \"arrival\": "
                 "{\"process\": \"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\", \"nic\": "
                 "{\"mtu_bytes\": 4096}}}",
                 cc);
        snprintf(scen, sn, "ft8_perm_2MB_mtu4096_%s", cc);
    } else {
        snprintf(json, jn,
                 "{\"seed\": 1, \"topology\": {\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": "
                 "16, \"hosts_per_rack\": 8, \"planes\": 2, \"oversubscription\": 2}, \"workload\": "
                 "{\"flows\": %lu, \"classes\": [{\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": "
                 "{\"type\": \"matrix\", \"matrix\": \"B\"}, \"arrival\": {\"process\": "
                 "\"lognormal\", \"sigma\": 2}, \"load\": {\"max_link_load\": 0.5}}]}, "
                 "\"transport\": {\"cc\": \"%s\"}}",
                 n, cc);
        snprintf(scen, sn, "fabric32_2to1_B_webserver_%luflows_%s", n, cc);
    }
}

typedef struct row {
    double hops_per_s;
    tl_slowdown_stats all[TL_N_BUCKETS];
} row;

/* Runs one scenario with one CC, prints its figure lines, fills r. */
static int bench_one(const char *which, unsigned long n, const char *cc, int repeats, row *r)
{
    char json[2048], scen[128];
    scenario(which, n, cc, json, sizeof json, scen, sizeof scen);
    world w;
    if (world_make(&w, json))
        return 1;
    tl_pktsim_stats st;
    if (strcmp(which, "perm") == 0)
        run_once(&w, &st); /* warm-up */
    double times[32];
    if (repeats > 32)
        repeats = 32;
    for (int i = 0; i < repeats; i++)
        times[i] = run_once(&w, &st);
    double spread, med = bench_median(times, (size_t)repeats, &spread);
    bench_print("pktsim.wall_s", med, "s", scen, 1);
    bench_print("pktsim.wall_spread_s", spread, "s", scen, 1);
    bench_print("pktsim.events_per_s", (double)st.n_events / med, "events/s", scen, 1);
    bench_print("pktsim.link_hops_per_s", (double)st.n_link_hops / med, "hops/s", scen, 1);
    bench_print("pktsim.events_per_link_hop", (double)st.n_events / (double)st.n_link_hops,
                "events", scen, 1);
    bench_print("pktsim.max_pending_events", (double)st.max_pending_events, "events", scen, 1);
    bench_print("pktsim.simulated_s", (double)st.now_ps * 1e-12, "s", scen, 1);
    bench_print("pktsim.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, 1);
    r->hops_per_s = (double)st.n_link_hops / med;
    /* One more run for the slowdowns (results are identical across runs). */
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, w.sc.seed, &err);
    tl_summary sum;
    if (!s || tl_pktsim_run(s, 0, NULL, &err) ||
        tl_summary_build(&sum, "pktsim", &w.flows, tl_pktsim_results(s), &err)) {
        fprintf(stderr, "bench_pktsim: %s\n", err.msg);
        return 1;
    }
    memcpy(r->all, sum.all, sizeof r->all);
    tl_summary_fini(&sum);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
    return 0;
}

/* Prints every flow's FCT and the run's counters: bench/identity.sh hashes
 * them to check that a refactoring left results byte-identical. */
static void print_run(const char *name, const tl_pktsim *s, size_t n)
{
    const tl_flow_result *res = tl_pktsim_results(s);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    printf("%s events %llu hops %llu drops %llu faildrops %llu marks %llu timeouts %llu "
           "now %lld\n",
           name, (unsigned long long)st.n_events, (unsigned long long)st.n_link_hops,
           (unsigned long long)st.n_drops, (unsigned long long)st.n_fail_drops,
           (unsigned long long)st.n_marks, (unsigned long long)st.n_timeouts,
           (long long)st.now_ps);
    for (size_t i = 0; i < n; i++)
        printf("%zu %lld\n", i, (long long)res[i].fct_ps);
}

static int knob_flip(void *ctx, tl_pktsim *s, int64_t now_ps)
{
    int *k = ctx;
    double v = (*k)++ % 2 ? 30000 : 3000;
    tl_pktsim_set_param(s, "switch.kmin_bytes_per_gbps", v, NULL);
    tl_pktsim_set_param(s, "switch.kmax_bytes_per_gbps", v, NULL);
    return 0;
}

static int fingerprint(void)
{
    static const char *const ccs[] = {"dctcp", "dcqcn"};
    for (int c = 0; c < 2; c++) {
        char json[2048], scen[128];
        scenario("perm", 0, ccs[c], json, sizeof json, scen, sizeof scen);
        world w;
        if (world_make(&w, json))
            return 1;
        for (int mode = 0; mode < 2; mode++) {
            tl_err err;
            tl_err_clear(&err);
            tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                            w.sc.seed, &err);
            int k = 0;
            /* mode 0: the first fabric link above a ToR fails at 100 us;
             * mode 1: the marking threshold flips every 20 us */
            if (!s || (mode == 0 && tl_pktsim_fail_link(s, 200, 100 * 1000000LL, &err)) ||
                (mode == 1 && tl_pktsim_set_control(s, 20 * 1000000LL, knob_flip, &k, &err)) ||
                tl_pktsim_run(s, 0, NULL, &err)) {
                fprintf(stderr, "bench_pktsim: %s\n", err.msg);
                return 1;
            }
            char name[64];
            snprintf(name, sizeof name, "%s-%s", ccs[c], mode ? "knobs" : "linkfail");
            print_run(name, s, w.flows.n);
            tl_pktsim_destroy(s);
        }
        tl_world_fini(&w);
    }
    return 0;
}

int main(int argc, char **argv)
{
    tl_alloc_tune(); /* as the CLI does */
    const char *which = argc > 1 ? argv[1] : "perm";
    if (strcmp(which, "fingerprint") == 0)
        return fingerprint();
    if (strcmp(which, "compare") == 0) {
        const char *ccs[16]; /* every CC pktsim implements, from the registry */
        int n_cc = 0;
        for (size_t i = 0; i < tl_cc_count() && n_cc < 16; i++)
            if (tl_cc_get(i)->ops)
                ccs[n_cc++] = tl_cc_get(i)->name;
        unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
        row perm[16], def[16];
        for (int c = 0; c < n_cc; c++)
            if (bench_one("perm", 0, ccs[c], 5, &perm[c]) ||
                bench_one("default", n, ccs[c], 1, &def[c]))
                return 1;
        printf("\n%-12s %14s %14s", "cc", "perm hops/s", "dflt hops/s");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            printf(" %15s", tl_bucket_names[b]);
        printf("\n%-12s %14s %14s", "", "", "");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            printf(" %15s", "p50 / p99");
        printf("\n");
        for (int c = 0; c < n_cc; c++) {
            printf("%-12s %14.3g %14.3g", ccs[c], perm[c].hops_per_s, def[c].hops_per_s);
            for (int b = 0; b < TL_N_BUCKETS; b++)
                printf("   %5.2f / %5.2f", def[c].all[b].p[0], def[c].all[b].p[2]);
            printf("\n");
        }
        printf("(slowdowns: the default scenario with %lu flows; perm: k=8 permutation)\n", n);
        return 0;
    }
    unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 200000;
    int is_perm = strcmp(which, "perm") == 0;
    const char *cc = argc > 3 ? argv[3] : (is_perm ? "dctcp" : "dctcp-rate");
    row r;
    return bench_one(which, n, cc, is_perm ? (argc > 2 ? atoi(argv[2]) : 5) : (n > 500000 ? 1 : 3),
                     &r);
}
