/* Where Parsimon's error comes from (issue "estimator-fidelity",
 * docs/accuracy.md):
 *   bench_parsimon_error [default | SCENARIO.json] [NORM ...]
 * runs pktsim with its queue waits recorded (tl_pktsim_record_waits) and
 * Parsimon without clustering on the same scenario, and splits Parsimon's
 * error per size bucket into two parts:
 *   - the link model: Parsimon's estimate against the estimate it would make
 *     if its link simulations had measured the delays pktsim's flows saw on
 *     each link (tl_parsimon_estimate_from). A flow's delay on a switch port
 *     is its latest data packet's wait there; what it lost at its source
 *     (its NIC shared, its congestion control holding it back) is its FCT
 *     in excess of its ideal less those waits, put on its first hop.
 *   - the aggregation: that oracle estimate against the truth. The oracle
 *     sums each hop's delay drawn independently from the link's own size
 *     bucket, where pktsim's delays are one flow's, correlated along its
 *     path; with exact per-link delays, what is left is Parsimon's
 *     independence and bucketing.
 * Then, per hop kind and size bucket, the mean and p99 of a flow's delay on
 * a hop, pktsim's waits against Parsimon's draws; and per kind of switch
 * port, the queue Parsimon's link simulations held over their runs against
 * pktsim's ports (tl_parsimon_job.queue_byte_s). Each NORM (default 0) is
 * a Parsimon run with tl_parsimon_opts.norm_pkts at that value, against the
 * one pktsim run (the scenario's "share_sources" key is kept; its other
 * engine keys are not read); each prints a line "csv,SCENARIO,NORM" with Parsimon's
 * p99 then p99.9 errors (%) per bucket and over all flows. With TRUTH_OUT
 * set, pktsim's summary.json (with its run record) goes to that path, for
 * `tailor compare` against other engines' runs of the scenario later.
 * Prints figures; never passes or fails. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/fileio.h"
#include "tailor/parsimon.h"
#include "tailor/pktsim.h"
#include "tailor/quantile.h"
#include "tailor/result.h"
#include "tailor/world.h"

#define STRIDE 16 /* hops kept per flow: fabrics have at most 6 */

enum { HK_SOURCE, HK_UP, HK_DOWN, HK_LAST, HK_N };
static const char *const hk_names[HK_N] = {"source (host to switch)", "switch up",
                                           "switch down", "last hop (to host)"};

/* The kind of hop k of a path of hops channels. */
static int hop_kind(const tl_topo *t, const uint32_t *path, int hops, int k)
{
    if (tl_topo_node(t, tl_topo_chan_from(t, path[k]))->kind != TL_NODE_SWITCH)
        return HK_SOURCE;
    if (tl_topo_node(t, tl_topo_chan_to(t, path[k]))->kind != TL_NODE_SWITCH)
        return HK_LAST;
    return 2 * k < hops ? HK_UP : HK_DOWN;
}

/* Slowdown p99 and p99.9 of bucket b (TL_N_BUCKETS - 1: all) of results r. */
static void slowdown_pcts(const tl_flows *f, const tl_flow_result *r, int b, double *p99,
                          double *p999)
{
    double *v = malloc((f->n + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < f->n; i++)
        if (r[i].fct_ps >= 0 && r[i].ideal_ps > 0 &&
            (b == TL_N_BUCKETS - 1 || tl_bucket_of(f->v[i].size_bytes) == b))
            v[n++] = (double)r[i].fct_ps / (double)r[i].ideal_ps;
    qsort(v, n, sizeof *v, tl_cmp_double);
    *p99 = n ? tl_quantile_sorted(v, n, 0.99) : NAN;
    *p999 = n ? tl_quantile_sorted(v, n, 0.999) : NAN;
    free(v);
}

static double err_pct(double est, double ref) { return 100.0 * (est - ref) / ref; }

/* Mean and p99 (ns) of n delays in ps (sorted in place). */
static void delay_stats(double *v, size_t n, double *mean, double *p99)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    qsort(v, n, sizeof *v, tl_cmp_double);
    *mean = n ? sum / (double)n * 1e-3 : NAN;
    *p99 = n ? tl_quantile_sorted(v, n, 0.99) * 1e-3 : NAN;
}

/* Each kind of simulated switch port's queue, integrated over the run, in
 * Parsimon's link simulations over pktsim's ports: how much queue the link
 * model builds (docs/accuracy.md, "Where Parsimon's error comes from"). */
static void queue_table(const tl_world *w, const tl_pktsim *ps, const tl_parsimon *pa)
{
    enum { K_FIRST, K_MIDDLE, K_LAST, K_N };
    static const char *const names[K_N] = {"first hop (host to switch)", "switch to switch",
                                           "last hop (to host)"};
    tl_pktsim_stats st;
    tl_pktsim_get_stats(ps, &st);
    double now_s = (double)st.now_ps * 1e-12;
    double sum[K_N][2][2] = {{{0}}}; /* [kind][all, busiest][pktsim, Parsimon] */
    size_t cnt[K_N][2] = {{0}}, n_jobs;
    const tl_parsimon_job *jobs = tl_parsimon_jobs(pa, &n_jobs);
    for (size_t j = 0; j < n_jobs && now_s > 0; j++) {
        uint32_t c = jobs[j].chan;
        const tl_topo *t = w->topo;
        int k = tl_topo_node(t, tl_topo_chan_from(t, c))->kind != TL_NODE_SWITCH ? K_FIRST
                : tl_topo_node(t, tl_topo_chan_to(t, c))->kind != TL_NODE_SWITCH ? K_LAST
                                                                                  : K_MIDDLE;
        tl_port_stats q;
        tl_pktsim_port_stats(ps, c, &q);
        double util = (double)q.bytes_tx * 8 /
                      ((double)tl_topo_link(t, tl_chan_link(c))->rate_bps * now_s);
        for (int busy = 0; busy < 1 + (util > 0.3); busy++) {
            sum[k][busy][0] += q.mean_queue_bytes * now_s;
            sum[k][busy][1] += jobs[j].queue_byte_s;
            cnt[k][busy]++;
        }
    }
    printf("\nEach kind of link's queue integrated over the run, Parsimon's link simulations "
           "over pktsim's ports (the links above 30%% utilization apart):\n\n| links | "
           "simulated | queue ratio | above 30%% | queue ratio there |\n| --- | ---: | ---: | "
           "---: | ---: |\n");
    /* not the first hops: a host NIC makes a packet when it serves a flow,
     * so its port holds no data queue in either */
    for (int k = K_MIDDLE; k < K_N; k++)
        printf("| %s | %zu | %.2f | %zu | %.2f |\n", names[k], cnt[k][0],
               sum[k][0][0] > 0 ? sum[k][0][1] / sum[k][0][0] : NAN, cnt[k][1],
               sum[k][1][0] > 0 ? sum[k][1][1] / sum[k][1][0] : NAN);
}

/* Parsimon with its delays normalized by max(packets, norm) against the
 * truth ps (whose waits are recorded): prints the tables. */
static int report(const tl_world *w, const char *scen, tl_pktsim *ps, uint32_t norm)
{
    const tl_flows *f = &w->flows;
    size_t n = f->n;
    tl_err err;
    tl_err_clear(&err);
    tl_parsimon_opts o;
    tl_parsimon_opts_default(&o);
    o.norm_pkts = norm;
    o.is_share_sources = w->sc.engine.is_share_sources; /* the scenario's, as `run` would */
    tl_parsimon *pa = tl_parsimon_create(w->topo, w->routes, f, &w->sc.params, w->sc.cc, w->sc.seed,
                                         &o, &err);
    if (!pa || tl_parsimon_run(pa, NULL, &err)) {
        fprintf(stderr, "bench_parsimon_error: parsimon: %s\n", err.msg);
        return -1;
    }
    const tl_flow_result *truth = tl_pktsim_results(ps), *est = tl_parsimon_results(pa);

    /* Each flow's delay per hop in the truth, and Parsimon's draws. */
    int64_t *delay = calloc(n * STRIDE + 1, sizeof *delay);
    int64_t *drawn = calloc(n * STRIDE + 1, sizeof *drawn);
    tl_flow_result *oracle = malloc((n + 1) * sizeof *oracle);
    size_t cap = n * 4 + 1, nv[HK_N][TL_N_BUCKETS] = {{0}};
    double *tv[HK_N][TL_N_BUCKETS], *pv[HK_N][TL_N_BUCKETS];
    int ok = delay && drawn && oracle;
    for (int h = 0; h < HK_N; h++)
        for (int b = 0; b < TL_N_BUCKETS; b++) {
            tv[h][b] = malloc(cap * sizeof(double));
            pv[h][b] = malloc(cap * sizeof(double));
            ok = ok && tv[h][b] && pv[h][b];
        }
    if (!ok) {
        fprintf(stderr, "bench_parsimon_error: out of memory\n");
        return -1;
    }
    size_t n_neg = 0, n_done = 0;
    for (size_t i = 0; i < n; i++) {
        int hops;
        const uint32_t *path = tl_pktsim_flow_path(ps, i, &hops);
        const int64_t *wt = tl_pktsim_flow_waits(ps, i);
        int64_t *d = delay + i * STRIDE, *q = drawn + i * STRIDE;
        if (hops > STRIDE || tl_parsimon_flow_hop_delays(pa, i, q, STRIDE) != hops) {
            fprintf(stderr, "bench_parsimon_error: flow %zu: paths differ\n", i);
            return -1;
        }
        if (truth[i].fct_ps < 0) /* unfinished: no delay to split */
            continue;
        n_done++;
        int64_t rest = truth[i].fct_ps - truth[i].ideal_ps;
        for (int k = 1; k < hops; k++)
            rest -= (d[k] = wt[k]);
        d[0] = wt[0] + rest;
        n_neg += d[0] < 0;
        int b = tl_bucket_of(f->v[i].size_bytes);
        for (int k = 0; k < hops; k++) {
            int h = hop_kind(w->topo, path, hops, k);
            for (int j = 0; j < 2; j++) { /* its bucket, then "all" */
                int bb = j ? TL_N_BUCKETS - 1 : b;
                if (nv[h][bb] < cap) { /* at most 4 hops of a kind per flow in fabrics */
                    tv[h][bb][nv[h][bb]] = (double)d[k];
                    pv[h][bb][nv[h][bb]++] = (double)q[k];
                }
            }
        }
    }
    if (tl_parsimon_estimate_from(pa, delay, STRIDE, oracle, &err)) {
        fprintf(stderr, "bench_parsimon_error: %s\n", err.msg);
        return -1;
    }

    printf("# %s, %s, %zu flows (%zu finished in pktsim), delays normalized by max(packets, "
           "%u); source delay below zero for %zu flows (a wait early on that a later hop absorbed, "
           "where the flow's packets would have queued behind its own)\n",
           scen, w->sc.cc, n, n_done, norm, n_neg);
    printf("\n| bucket | pktsim p99 | Parsimon p99 | oracle p99 | Parsimon error | link model | "
           "aggregation | pktsim p99.9 | Parsimon p99.9 | oracle p99.9 |\n"
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    double e99[TL_N_BUCKETS], e999[TL_N_BUCKETS];
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        double t99, t999, p99, p999, o99, o999;
        slowdown_pcts(f, truth, b, &t99, &t999);
        slowdown_pcts(f, est, b, &p99, &p999);
        slowdown_pcts(f, oracle, b, &o99, &o999);
        e99[b] = err_pct(p99, t99);
        e999[b] = err_pct(p999, t999);
        printf("| %s | %.2f | %.2f | %.2f | %+.1f%% | %+.1f pts | %+.1f%% | %.2f | %.2f | "
               "%.2f |\n",
               tl_bucket_names[b], t99, p99, o99, err_pct(p99, t99),
               err_pct(p99, t99) - err_pct(o99, t99), err_pct(o99, t99), t999, p999, o999);
    }
    /* One line to collect over scenarios: Parsimon's p99 and p99.9 errors
     * (%), the buckets then all. */
    printf("\ncsv,%s,%u", scen, norm);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        printf(",%.2f", e99[b]);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        printf(",%.2f", e999[b]);
    printf("\n");
    /* One hop kind drawn, the others each flow's own: which kind's draws
     * make the aggregation's error. A link is of one kind for all its
     * flows, so zeroing the other kinds' delays leaves their links drawing
     * zero. */
    int64_t *part = malloc((n * STRIDE + 1) * sizeof *part);
    tl_flow_result *mixed = malloc((n + 1) * sizeof *mixed);
    if (!part || !mixed) {
        fprintf(stderr, "bench_parsimon_error: out of memory\n");
        return -1;
    }
    printf("\nOne hop kind's delays drawn as Parsimon draws them, the others each flow's own "
           "(p99 error against pktsim, %%):\n\n| hop drawn | 0-1KB | 1-10KB | 10-50KB | 50KB+ "
           "| all |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int h = 0; h < HK_N; h++) {
        for (size_t i = 0; i < n; i++) {
            int hops;
            const uint32_t *path = tl_pktsim_flow_path(ps, i, &hops);
            for (int k = 0; k < hops; k++)
                part[i * STRIDE + k] =
                    hop_kind(w->topo, path, hops, k) == h ? delay[i * STRIDE + k] : 0;
        }
        if (tl_parsimon_estimate_from(pa, part, STRIDE, mixed, &err)) {
            fprintf(stderr, "bench_parsimon_error: %s\n", err.msg);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            int hops;
            tl_pktsim_flow_path(ps, i, &hops);
            for (int k = 0; k < hops; k++)
                mixed[i].fct_ps += delay[i * STRIDE + k] - part[i * STRIDE + k];
            if (truth[i].fct_ps < 0)
                mixed[i].fct_ps = -1;
        }
        printf("| %s |", hk_names[h]);
        for (int b = 0; b < TL_N_BUCKETS; b++) {
            double t99, t999, m99, m999;
            slowdown_pcts(f, truth, b, &t99, &t999);
            slowdown_pcts(f, mixed, b, &m99, &m999);
            printf(" %+.1f |", err_pct(m99, t99));
        }
        printf("\n");
    }
    free(part), free(mixed);
    printf("\nA flow's delay on one hop, ns (pktsim: its latest packet's wait; at its source, the "
           "rest of its excess; Parsimon: its draw), mean / p99:\n\n| hop | bucket | hops | "
           "pktsim | Parsimon |\n| --- | --- | ---: | ---: | ---: |\n");
    for (int h = 0; h < HK_N; h++)
        for (int b = 0; b < TL_N_BUCKETS; b++) {
            double tm, t99, pm, p99;
            delay_stats(tv[h][b], nv[h][b], &tm, &t99);
            delay_stats(pv[h][b], nv[h][b], &pm, &p99);
            printf("| %s | %s | %zu | %.0f / %.0f | %.0f / %.0f |\n", hk_names[h],
                   tl_bucket_names[b], nv[h][b], tm, t99, pm, p99);
        }
    for (int h = 0; h < HK_N; h++)
        for (int b = 0; b < TL_N_BUCKETS; b++)
            free(tv[h][b]), free(pv[h][b]);
    queue_table(w, ps, pa);
    free(delay), free(drawn), free(oracle);
    tl_parsimon_destroy(pa);
    return 0;
}

/* pktsim's summary, with the run record a `tailor run` would write, to
 * path. */
static int save_truth(const tl_world *w, const tl_pktsim *ps, const char *path)
{
    tl_err err;
    tl_err_clear(&err);
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    int rc = tl_summary_build(&sum, "pktsim", &w->flows, tl_pktsim_results(ps), &err);
    if (!rc) {
        tl_run_info_init(&sum.run, w->topo, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed, "");
        tl_pktsim_run_counters(ps, &sum.run);
        rc = tl_summary_save_json(&sum, path, &err);
    }
    if (rc)
        fprintf(stderr, "bench_parsimon_error: %s: %s\n", path, err.msg);
    tl_summary_fini(&sum);
    return rc;
}

int main(int argc, char **argv)
{
    tl_alloc_tune();
    const char *which = argc > 1 ? argv[1] : "default";
    char scen[96];
    tl_world w;
    double t_world;
    tl_err err;
    tl_err_clear(&err);
    if (strcmp(which, "default") == 0) {
        if (bench_engine_world(which, 0, &w, scen, sizeof scen, &t_world))
            return 1;
    } else {
        char *json = tl_read_file(which, NULL, &err);
        if (!json || tl_world_from_json(&w, json, 0, &err)) {
            fprintf(stderr, "bench_parsimon_error: %s: %s\n", which, err.msg);
            free(json);
            return 1;
        }
        free(json);
        const char *base = strrchr(which, '/');
        snprintf(scen, sizeof scen, "%s", base ? base + 1 : which);
    }
    tl_pktsim *ps = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                     w.sc.seed, &err);
    if (!ps || tl_pktsim_record_waits(ps, STRIDE, &err) || tl_pktsim_run(ps, 0, NULL, &err)) {
        fprintf(stderr, "bench_parsimon_error: pktsim: %s\n", err.msg);
        return 1;
    }
    const char *truth_out = getenv("TRUTH_OUT");
    if (truth_out && save_truth(&w, ps, truth_out))
        return 1;
    for (int a = 2; a == 2 || a < argc; a++)
        if (report(&w, scen, ps, a < argc ? (uint32_t)atoi(argv[a]) : 0))
            return 1;
    tl_pktsim_destroy(ps);
    tl_world_fini(&w);
    return 0;
}
