/* Parsimon behind the engine interface: link-level decomposition
 * (parsimon.txt). The scenario's engine keys that are set override the
 * engine's defaults (tl_parsimon_opts_default); the run record counts drops
 * and timeouts over the link simulations, not the network. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_int.h"
#include "tailor/parsimon.h"

/* A scenario's number where it set one (not NaN), else the default. */
static double set_or(double v, double dflt) { return isnan(v) ? dflt : v; }

/* max_from_bytes as tl_parsimon_opts takes it (-1: the CC's default). */
static int64_t max_from(const tl_engine_spec *es) { return (int64_t)set_or(es->max_from_bytes, -1); }

static int create(tl_engine *e, tl_err *err)
{
    const tl_world *w = e->w;
    const tl_engine_spec *es = &e->es;
    tl_parsimon_opts po;
    tl_parsimon_opts_default(&po);
    /* what the scenario (or the caller) sets; the rest (NaN, 0, -1) stays at
     * the engine's defaults */
    po.bucket_min = es->bucket_min ? es->bucket_min : po.bucket_min;
    po.norm_pkts = es->norm_pkts ? es->norm_pkts : po.norm_pkts;
    po.bucket_ratio = set_or(es->bucket_ratio, po.bucket_ratio);
    po.fat_factor = set_or(es->fat_factor, po.fat_factor);
    po.is_cluster = es->is_cluster;
    po.cluster_wmape = set_or(es->cluster_wmape, po.cluster_wmape);
    po.cluster_load = set_or(es->cluster_load, po.cluster_load);
    po.cluster_scale = set_or(es->cluster_scale, po.cluster_scale);
    po.is_passthrough = es->is_passthrough < 0 ? po.is_passthrough : es->is_passthrough;
    po.is_residual = es->is_residual < 0 ? po.is_residual : es->is_residual;
    po.is_pfc_by_channel = es->is_pfc_by_channel;
    po.is_share_sources = es->is_share_sources;
    po.max_from_bytes = max_from(es);
    po.n_threads = es->n_threads;
    po.dist = e->o.dist;
    e->st = tl_parsimon_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed,
                               &po, err);
    return e->st ? 0 : err->code;
}

static void destroy(tl_engine *e) { tl_parsimon_destroy(e->st); }

static int run(tl_engine *e, tl_progress *prog, tl_err *err)
{
    return tl_parsimon_run(e->st, prog, err);
}

static const tl_flow_result *flow_results(const tl_engine *e) { return tl_parsimon_results(e->st); }

static void counters(const tl_engine *e, tl_run_info *r)
{
    tl_parsimon_stats st;
    tl_parsimon_get_stats(e->st, &st);
    r->n_drops = (int64_t)st.n_drops; /* over the link simulations, not the network */
    r->n_timeouts = (int64_t)st.n_timeouts;
    r->paused_frac = st.n_simulated ? st.paused_frac_sum / st.n_simulated : 0;
    r->paused_frac_max = st.paused_frac_max;
}

static void options(const tl_engine_spec *es, char *buf, size_t n)
{
    snprintf(buf, n,
             "cluster=%d passthrough=%d residual=%d norm_pkts=%u pfc_by_channel=%d "
             "share_sources=%d max_from_bytes=%lld",
             es->is_cluster, es->is_passthrough, es->is_residual, es->norm_pkts,
             es->is_pfc_by_channel, es->is_share_sources,
             (long long)max_from(es));
}

static const char *files(const tl_engine *e) { return "fct.csv, fct.txt, summary.json"; }

static void report(const tl_engine *e, char *buf, size_t n)
{
    tl_parsimon_stats st;
    tl_parsimon_get_stats(e->st, &st);
    snprintf(buf, n,
             "parsimon: %zu flows, %u busy links: %u simulated (%u first hop, %u middle, %u last "
             "hop), %u pruned by clustering, %u pass-through; %llu link-hops, %llu drops, "
             "%llu timeouts; decompose %.2f s, link simulations %.2f s (slowest link %.2f s), "
             "aggregation %.2f s",
             e->w->flows.n, st.n_chans_busy, st.n_simulated, st.n_case[0], st.n_case[1],
             st.n_case[2], st.n_pruned, st.n_passthrough, (unsigned long long)st.n_link_hops,
             (unsigned long long)st.n_drops, (unsigned long long)st.n_timeouts, st.decompose_s,
             st.simulate_s, st.max_link_s, st.aggregate_s);
    /* Where the link simulations' CPU goes (docs/parsimon.md, "Profile"):
     * per case, the run with the link at its rate, then (+) the residual
     * context's run with it fat. */
    static const char *const name[3] = {"first hop ", "middle ", "last hop "};
    double all = 0, events = 0;
    size_t k = strlen(buf);
    k += (size_t)snprintf(buf + k, k < n ? n - k : 0,
                          "\nlink simulations' CPU (data packets simulated, events per packet):");
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 2; r++) {
            if (r == 1 && st.run_pkts[c][1] == 0 && st.run_cpu_s[c][1] == 0)
                continue;
            double pk = (double)st.run_pkts[c][r];
            all += st.run_cpu_s[c][r];
            events += (double)st.run_events[c][r];
            k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s%.2f s (%.1fM, %.2f)",
                                  r ? " + " : c ? "; " : " ", r ? "" : name[c],
                                  st.run_cpu_s[c][r], pk * 1e-6,
                                  pk > 0 ? (double)st.run_events[c][r] / pk : 0.0);
        }
    k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "; %.2f s and %.1fM events in all", all,
                          events * 1e-6);
    if (st.n_requeued)
        k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "; %u runs again with queues (PFC)",
                              st.n_requeued);
    if (st.paused_frac_max > 0)
        snprintf(buf + k, k < n ? n - k : 0,
                 "\nPFC: simulated links paused %.2f%% of their runs on average, %.1f%% at most",
                 100 * st.paused_frac_sum / st.n_simulated, 100 * st.paused_frac_max);
}

const tl_engine_ops tl_engine_parsimon = {
    .name = "parsimon",
    .create = create,
    .destroy = destroy,
    .run = run,
    .flow_results = flow_results,
    .counters = counters,
    .options = options,
    .files = files,
    .report = report,
};
