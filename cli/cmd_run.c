/* tailor run SCENARIO --engine pktsim -o OUTDIR: simulate the scenario and
 * write the common results: fct.csv (per flow), fct.txt (ns-3 HPCC format),
 * summary.json (slowdown per size bucket and class), links.csv (per port),
 * and with --queue-trace-us a queue-length time series, queues.csv. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "tailor/fileio.h"
#include "tailor/flowsim.h"
#include "tailor/m3.h"
#include "tailor/parsimon.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"

static int save_links(const tl_pktsim *sim, const tl_topo *t, const char *path, tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f, "chan,link,from,to,rate_bps,bytes_tx,pkts_tx,utilization,mean_queue_bytes,"
               "max_queue_bytes,marks,drops,pauses,paused_us\n");
    tl_pktsim_stats st;
    tl_pktsim_get_stats(sim, &st);
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(t); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(sim, c, &ps);
        double rate = (double)tl_topo_link(t, tl_chan_link(c))->rate_bps;
        double util = st.now_ps > 0 ? (double)ps.bytes_tx * 8 / (rate * (double)st.now_ps * 1e-12) : 0;
        fprintf(f, "%u,%u,%u,%u,%.0f,%llu,%llu,%.6f,%.1f,%llu,%llu,%llu,%llu,%.3f\n", c, tl_chan_link(c),
                tl_topo_chan_from(t, c), tl_topo_chan_to(t, c), rate,
                (unsigned long long)ps.bytes_tx, (unsigned long long)ps.pkts_tx, util,
                ps.mean_queue_bytes, (unsigned long long)ps.max_queue_bytes,
                (unsigned long long)ps.marks, (unsigned long long)ps.drops,
                (unsigned long long)ps.n_pauses, (double)ps.paused_ps * 1e-6);
    }
    return tl_afile_commit(&af, err);
}

/* queues.csv: every interval, the queue of each port that holds anything
 * (a use of pktsim's run-time control). */
typedef struct qtrace {
    FILE *f;
    const tl_topo *t;
    uint64_t max_bytes; /* the trace stops the run when it would grow past this */
    int is_over;
    int64_t over_ps;
} qtrace;

static int qtrace_sample(void *ctx, tl_pktsim *s, int64_t now)
{
    qtrace *q = ctx;
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(q->t); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        if (ps.queue_bytes_now)
            fprintf(q->f, "%.3f,%u,%llu\n", (double)now * 1e-3, c,
                    (unsigned long long)ps.queue_bytes_now);
    }
    if (q->max_bytes && (uint64_t)ftello(q->f) > q->max_bytes) {
        q->is_over = 1;
        q->over_ps = now;
        return TL_EINVAL;
    }
    return ferror(q->f) ? TL_EIO : 0;
}

/* The settings behind a result, for summary.json's run record. */
static void engine_options(const cli_world *w, const char *engine, char *buf, size_t n)
{
    const tl_engine_spec *es = &w->sc.engine;
    buf[0] = '\0';
    if (!strcmp(engine, "parsimon"))
        snprintf(buf, n, "cluster=%d passthrough=%d residual=%d", es->is_cluster,
                 es->is_passthrough, es->is_residual);
    else if (!strcmp(engine, "m3"))
        snprintf(buf, n, "paths=%u model=%s no_model=%d path_pktsim=%d", es->n_paths,
                 es->model[0] ? es->model : "default", es->is_no_model, es->is_path_pktsim);
}

static void fill_run(const cli_world *w, const char *engine, tl_run_info *r)
{
    char opts[256];
    engine_options(w, engine, opts, sizeof opts);
    tl_run_info_init(r, w->topo, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed, opts);
}

/* The common result files of an engine run, into the existing folder dir. */
static int save_results(const cli_world *w, const char *engine, const tl_flow_result *res,
                        const char *outdir, const tl_run_info *run, tl_summary *sum, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/fct.csv", outdir);
    int rc = tl_result_save_csv(&w->flows, res, path, err);
    if (!rc) {
        snprintf(path, sizeof path, "%s/fct.txt", outdir);
        rc = tl_result_save_ns3(&w->flows, res, path, err);
    }
    if (!rc)
        rc = tl_summary_build(sum, engine, &w->flows, res, err);
    if (!rc) {
        sum->run = *run;
        snprintf(path, sizeof path, "%s/summary.json", outdir);
        rc = tl_summary_save_json(sum, path, err);
    }
    return rc;
}

static void print_buckets(const tl_summary *sum, const char *outdir, const char *files)
{
    printf("FCT slowdown per size bucket:\n  %-8s %9s %8s %8s %8s %8s\n", "bucket", "flows", "p50",
           "p90", "p99", "p99.9");
    for (int b = 0; b < TL_N_BUCKETS; b++)
        printf("  %-8s %9llu %8.3f %8.3f %8.3f %8.3f\n", tl_bucket_names[b],
               (unsigned long long)sum->all[b].count, sum->all[b].p[0], sum->all[b].p[1],
               sum->all[b].p[2], sum->all[b].p[3]);
    printf("results in %s/ (%s)\n", outdir, files);
}

static int run_flowsim(cli_world *w, const char *outdir, const char *shown, tl_progress *prog,
                       tl_err *err)
{
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    tl_flowsim *fs = tl_flowsim_create(w->topo, w->routes, &w->flows, &w->sc.params, err);
    int rc = fs ? tl_flowsim_run(fs, prog, err) : err->code;
    double cpu = (double)clock() / CLOCKS_PER_SEC - t0;
    tl_run_info run;
    fill_run(w, "flowsim", &run);
    if (!rc)
        rc = save_results(w, "flowsim", tl_flowsim_results(fs), outdir, &run, &sum, err);
    if (!rc && shown) {
        tl_flowsim_stats st;
        tl_flowsim_get_stats(fs, &st);
        printf("flowsim: %zu flows, %.6g s simulated, %llu events, %.3g flows/s (%.2f s CPU), "
               "%.1f links and %.1f flows refilled per event\n",
               w->flows.n, (double)st.now_ps * 1e-12, (unsigned long long)st.n_events,
               cpu > 0 ? (double)w->flows.n / cpu : 0, cpu,
               st.n_events ? (double)st.links_refilled / (double)st.n_events : 0,
               st.n_events ? (double)st.flows_refilled / (double)st.n_events : 0);
        print_buckets(&sum, shown, "fct.csv, fct.txt, summary.json");
    }
    tl_summary_fini(&sum);
    tl_flowsim_destroy(fs);
    return rc;
}

/* A scenario's number where it set one (not NaN), else the default. */
static double set_or(double v, double dflt) { return isnan(v) ? dflt : v; }

static int run_parsimon(cli_world *w, const char *outdir, const char *shown, tl_progress *prog,
                        tl_err *err)
{
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    const tl_engine_spec *es = &w->sc.engine;
    tl_parsimon_opts po;
    tl_parsimon_opts_default(&po);
    /* what the scenario (or the command line) sets; the rest (NaN, 0, -1)
     * stays at the engine's defaults */
    po.bucket_min = es->bucket_min ? es->bucket_min : po.bucket_min;
    po.bucket_ratio = set_or(es->bucket_ratio, po.bucket_ratio);
    po.fat_factor = set_or(es->fat_factor, po.fat_factor);
    po.is_cluster = es->is_cluster;
    po.cluster_wmape = set_or(es->cluster_wmape, po.cluster_wmape);
    po.cluster_load = set_or(es->cluster_load, po.cluster_load);
    po.cluster_scale = set_or(es->cluster_scale, po.cluster_scale);
    po.is_passthrough = es->is_passthrough < 0 ? po.is_passthrough : es->is_passthrough;
    po.is_residual = es->is_residual < 0 ? po.is_residual : es->is_residual;
    po.n_threads = es->n_threads;
    tl_parsimon *ps = tl_parsimon_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc,
                                         w->sc.seed, &po, err);
    int rc = ps ? tl_parsimon_run(ps, prog, err) : err->code;
    tl_parsimon_stats st = {0};
    if (!rc)
        tl_parsimon_get_stats(ps, &st);
    tl_run_info run;
    fill_run(w, "parsimon", &run);
    run.n_drops = (int64_t)st.n_drops; /* over the link simulations, not the network */
    run.n_timeouts = (int64_t)st.n_timeouts;
    if (!rc)
        rc = save_results(w, "parsimon", tl_parsimon_results(ps), outdir, &run, &sum, err);
    if (!rc && shown) {
        printf("parsimon: %zu flows, %u busy links: %u simulated (%u first hop, %u middle, %u last "
               "hop), %u pruned by clustering, %u pass-through; %llu link-hops, %llu drops, "
               "%llu timeouts; decompose %.2f s, link simulations %.2f s (slowest link %.2f s), "
               "aggregation %.2f s\n",
               w->flows.n, st.n_chans_busy, st.n_simulated, st.n_case[0], st.n_case[1],
               st.n_case[2], st.n_pruned, st.n_passthrough, (unsigned long long)st.n_link_hops,
               (unsigned long long)st.n_drops, (unsigned long long)st.n_timeouts, st.decompose_s,
               st.simulate_s, st.max_link_s, st.aggregate_s);
        print_buckets(&sum, shown, "fct.csv, fct.txt, summary.json");
    }
    tl_summary_fini(&sum);
    tl_parsimon_destroy(ps);
    return rc;
}

/* m3 writes a summary only: it estimates distributions, not flows. */
static int run_m3(cli_world *w, const char *outdir, const char *shown, tl_progress *prog,
                  tl_err *err)
{
    const tl_engine_spec *es = &w->sc.engine;
    tl_m3_opts mo;
    cli_m3_opts(es, &mo);
    if (!mo.is_no_model && !mo.is_path_pktsim)
        cli_m3_warn_unread(&w->sc.params, w->sc.cc, "tailor run");
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    tl_m3 *m = tl_m3_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed,
                            &mo, err);
    int rc = m ? tl_m3_run(m, prog, err) : err->code;
    rc = rc ? rc : tl_m3_summary(m, &sum, err);
    if (!rc) {
        fill_run(w, "m3", &sum.run);
        char path[1200];
        snprintf(path, sizeof path, "%s/summary.json", outdir);
        rc = tl_summary_save_json(&sum, path, err);
    }
    if (!rc) {
        char path[1200];
        snprintf(path, sizeof path, "%s/paths.csv", outdir);
        rc = tl_m3_write_paths(m, path, err);
    }
    if (!rc && shown) {
        tl_m3_stats st;
        tl_m3_get_stats(m, &st);
        printf("m3%s: %zu flows on %llu paths; %u distinct of %u drawn paths, %.0f flows per path "
               "workload (max %llu), %.1f foreground; decompose %.2f s, flowsim features %.2f s, "
               "model %.3f s (%.3f ms per path), aggregation %.3f s%s%s\n",
               mo.is_path_pktsim ? " (pktsim on each path)"
               : mo.is_no_model  ? " (flowsim only, no model)"
                                 : "",
               w->flows.n, (unsigned long long)st.n_paths_total, st.n_paths_unique, mo.n_paths,
               st.n_paths_unique ? (double)st.n_path_flows / st.n_paths_unique : 0,
               (unsigned long long)st.max_path_flows,
               st.n_paths_unique ? (double)st.n_path_fg / st.n_paths_unique : 0, st.decompose_s,
               st.features_s,
               st.predict_s, st.n_paths_unique ? st.predict_s * 1e3 / st.n_paths_unique : 0,
               st.aggregate_s, st.model_path ? "; model " : "",
               st.model_path ? st.model_path : "");
        cli_m3_note_accuracy(&st, "tailor run");
        print_buckets(&sum, shown, "summary.json, paths.csv");
    }
    tl_summary_fini(&sum);
    tl_m3_destroy(m);
    return rc;
}

/* Runs the engine on a built world and writes its result files into the
 * existing folder dir (an output transaction's); prints a short report on
 * stdout naming shown, where the files will be (NULL: no report). Shared by
 * run, sweep and demo. */
int cli_run_engine(cli_world *w, const char *engine, const char *dir, const char *shown,
                   const cli_trace *trace, tl_progress *prog, tl_err *err)
{
    int rc = cli_check_engine(engine, w->sc.cc, err);
    if (rc)
        return rc;
    if (strcmp(engine, "flowsim") == 0)
        return run_flowsim(w, dir, shown, prog, err);
    if (strcmp(engine, "parsimon") == 0)
        return run_parsimon(w, dir, shown, prog, err);
    if (strcmp(engine, "m3") == 0)
        return run_m3(w, dir, shown, prog, err);
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    tl_pktsim *sim = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc,
                                      w->sc.seed, err);
    rc = sim ? 0 : err->code;
    char path[1200];
    tl_afile qf = {0};
    qtrace qt = {.t = w->topo};
    if (!rc && trace && trace->interval_us > 0) {
        snprintf(path, sizeof path, "%s/queues.csv", dir);
        qt.max_bytes = trace->max_bytes;
        if (!(qt.f = tl_afile_open(&qf, path, err)))
            rc = err->code;
        if (!rc) {
            fprintf(qt.f, "t_ns,chan,queue_bytes\n");
            rc = tl_pktsim_set_control(sim, (int64_t)(trace->interval_us * 1e6), qtrace_sample,
                                       &qt, err);
        }
    }
    if (!rc)
        rc = tl_pktsim_run(sim, 0, prog, err);
    if (rc && qt.is_over)
        rc = tl_err_set(err, TL_EINVAL,
                        "queues.csv passed --queue-trace-max %.0f MB at %.6f s of simulated "
                        "time; nothing was written: sample less often (--queue-trace-us) or "
                        "allow a larger trace (--queue-trace-max SIZE, e.g. 4GB)",
                        (double)qt.max_bytes / 1e6, (double)qt.over_ps * 1e-12);
    if (qt.f)
        rc = rc ? (tl_afile_abort(&qf), rc) : tl_afile_commit(&qf, err);
    double cpu = (double)clock() / CLOCKS_PER_SEC - t0;
    tl_pktsim_stats st = {0};
    if (!rc)
        tl_pktsim_get_stats(sim, &st);
    tl_run_info run;
    fill_run(w, "pktsim", &run);
    if (!rc) {
        run.bytes_delivered = (int64_t)st.bytes_delivered;
        run.bytes_retx = (int64_t)st.bytes_retx;
        run.n_drops = (int64_t)(st.n_drops + st.n_fail_drops);
        run.n_timeouts = (int64_t)st.n_timeouts;
        run.n_pfc_pauses = 0;
        for (uint32_t c = 0; c < 2 * tl_topo_n_links(w->topo); c++) {
            tl_port_stats ps;
            tl_pktsim_port_stats(sim, c, &ps);
            run.n_pfc_pauses += (int64_t)ps.n_pauses;
        }
        rc = save_results(w, "pktsim", tl_pktsim_results(sim), dir, &run, &sum, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/links.csv", dir);
        rc = save_links(sim, w->topo, path, err);
    }
    if (!rc && shown) {
        printf("pktsim: %llu/%zu flows done, %.6g s simulated, %llu events, %llu link-hops, "
               "%.3g link-hops/s (%.1f s CPU), %llu drops, %llu marks, %llu timeouts\n",
               (unsigned long long)st.n_flows_done, w->flows.n, (double)st.now_ps * 1e-12,
               (unsigned long long)st.n_events, (unsigned long long)st.n_link_hops,
               cpu > 0 ? (double)st.n_link_hops / cpu : 0, cpu, (unsigned long long)st.n_drops,
               (unsigned long long)st.n_marks, (unsigned long long)st.n_timeouts);
        print_buckets(&sum, shown,
                      qt.f ? "fct.csv, fct.txt, summary.json, links.csv, queues.csv"
                           : "fct.csv, fct.txt, summary.json, links.csv");
    }
    tl_summary_fini(&sum);
    tl_pktsim_destroy(sim);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "run",
                       "o,engine,flows,seed,cc,set,preset,threads,quiet,queue-trace-us,cluster,"
                       "no-passthrough,no-residual,paths,model,no-model,path-pktsim,queue-trace-max,"
                       "flow-count,max-memory",
                       &o);
    if (rc)
        return rc;
    if (!o.out) {
        fprintf(stderr, "tailor run: -o OUTDIR is required\n");
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    cli_out out;
    if ((rc = cli_out_begin(&out, o.out, CLI_OUT_DIR, &err))) {
        cli_print_err("run", &err);
        return cli_exit_code(&err);
    }
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    const char *engine = o.engine ? o.engine : w.sc.engine.name;
    cli_trace trace = {o.queue_trace_us, o.queue_trace_max};
    if (!rc)
        rc = cli_run_engine(&w, engine, cli_out_path(&out), o.out, &trace, prog, &err);
    if (!rc)
        rc = cli_out_commit(&out, &err);
    cli_progress_done(prog);
    if (rc) {
        cli_out_abort(&out);
        cli_print_err("run", &err);
    }
    cli_world_fini(&w);
    return rc ? cli_exit_code(&err) : 0;
}
