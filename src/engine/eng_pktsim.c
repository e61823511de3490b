/* pktsim behind the engine interface: the packet-level truth. Besides the
 * common results it writes links.csv (per directed link) and, when asked,
 * a queue-length trace through pktsim's run-time control (queues.csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "tailor/fileio.h"
#include "tailor/pktsim.h"
#include "tailor/tune.h"

/* The trace: every interval, the queue of each port that holds anything. */
typedef struct qtrace {
    tl_afile af;
    FILE *f;
    const tl_topo *t;
    uint64_t max_bytes; /* the trace stops the run when it would grow past this */
    int is_over;
    int64_t over_ps;
    tl_monitor *mon; /* --monitor, NULL if not asked */
    tl_tuner *tuner; /* --tune, NULL if not asked */
    char files[256]; /* what the run wrote, for files() */
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

static int has_blackholes(const tl_params *p)
{
    return tl_params_get(p, "fault.wan_blackhole") > 0 || tl_params_get(p, "fault.links_down_frac") > 0;
}

static int create(tl_engine *e, tl_err *err)
{
    const tl_world *w = e->w;
    const tl_scenario *sc = &w->sc;
    tl_pktsim_opts o;
    tl_scenario_pktsim_opts(sc, &o);
    e->st = tl_pktsim_create_opts(w->topo, w->routes, &w->flows, &sc->params, &o, sc->seed, err);
    if (!e->st)
        return err->code;
    if (!(e->aux = calloc(1, sizeof(qtrace))))
        return tl_err_nomem(err);
    return 0;
}

static void destroy(tl_engine *e)
{
    tl_pktsim_destroy(e->st);
    if (e->aux) {
        tl_tuner_destroy(((qtrace *)e->aux)->tuner);
        tl_monitor_destroy(((qtrace *)e->aux)->mon);
    }
    free(e->aux);
}

static int run(tl_engine *e, tl_progress *prog, tl_err *err)
{
    tl_pktsim *sim = e->st;
    qtrace *qt = e->aux;
    qt->t = e->w->topo;
    int rc = 0;
    if (e->o.trace_path && e->o.trace_interval_us > 0) {
        qt->max_bytes = e->o.trace_max_bytes;
        if (!(qt->f = tl_afile_open(&qt->af, e->o.trace_path, err)))
            rc = err->code;
        if (!rc) {
            fprintf(qt->f, "t_ns,chan,queue_bytes\n");
            rc = tl_pktsim_set_control(sim, (int64_t)(e->o.trace_interval_us * 1e6), qtrace_sample,
                                       qt, err);
        }
    }
    if (!rc && (e->o.is_monitor || e->o.is_tune) &&
        !(qt->mon = tl_monitor_attach(sim, e->w->topo, &e->w->flows, &e->w->sc.params, err)))
        rc = err->code;
    if (!rc && e->o.is_tune) {
        tl_anneal_cfg cfg;
        tl_anneal_cfg_from(&cfg, &e->w->sc.params);
        const char *const *knobs = e->o.tune_knobs ? e->o.tune_knobs : tl_tune_table1_knobs;
        size_t n_knobs = e->o.tune_knobs ? e->o.n_tune_knobs : tl_tune_n_table1_knobs;
        if (e->o.tune_scheme != TL_TUNE_PARALEON)
            qt->tuner = tl_tuner_attach_baseline(sim, qt->mon, e->o.tune_scheme, e->w->topo,
                                                 &e->w->sc.params, err);
        else
            qt->tuner = tl_tuner_attach_bounded(sim, qt->mon, knobs, n_knobs, e->o.tune_lo,
                                                e->o.tune_hi, &e->w->sc.params, &cfg,
                                                e->w->sc.seed, err);
        if (!qt->tuner)
            rc = err->code;
    }
    int64_t until = e->o.until_ps ? e->o.until_ps : e->w->sc.engine.until_ps;
    if (!rc && !until && has_blackholes(&e->w->sc.params))
        rc = tl_err_set(err, TL_EINVAL,
                        "the scenario blackholes links (fault.*) and routing does not avoid them: "
                        "flows that keep a dead path never finish; give --until TIME (e.g. "
                        "--until 50ms) or engine.until_ns to stop there and count them "
                        "unfinished");
    if (!rc)
        rc = tl_pktsim_run(sim, until, prog, err);
    if (rc && qt->is_over)
        rc = tl_err_set(err, TL_EINVAL,
                        "queues.csv passed --queue-trace-max %.0f MB at %.6f s of simulated "
                        "time; nothing was written: sample less often (--queue-trace-us) or "
                        "allow a larger trace (--queue-trace-max SIZE, e.g. 4GB)",
                        (double)qt->max_bytes / 1e6, (double)qt->over_ps * 1e-12);
    if (qt->f)
        rc = rc ? (tl_afile_abort(&qt->af), rc) : tl_afile_commit(&qt->af, err);
    return rc;
}

static const tl_flow_result *flow_results(const tl_engine *e) { return tl_pktsim_results(e->st); }

static void counters(const tl_engine *e, tl_run_info *r) { tl_pktsim_run_counters(e->st, r); }

/* links.csv: one row per directed link (docs/results.md). */
static int save_links(const tl_engine *e, const char *dir, tl_err *err)
{
    const tl_pktsim *sim = e->st;
    const tl_topo *t = e->w->topo;
    char path[1200];
    snprintf(path, sizeof path, "%s/links.csv", dir);
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
        double util =
            st.now_ps > 0 ? (double)ps.bytes_tx * 8 / (rate * (double)st.now_ps * 1e-12) : 0;
        fprintf(f, "%u,%u,%u,%u,%.0f,%llu,%llu,%.6f,%.1f,%llu,%llu,%llu,%llu,%.3f\n", c,
                tl_chan_link(c), tl_topo_chan_from(t, c), tl_topo_chan_to(t, c), rate,
                (unsigned long long)ps.bytes_tx, (unsigned long long)ps.pkts_tx, util,
                ps.mean_queue_bytes, (unsigned long long)ps.max_queue_bytes,
                (unsigned long long)ps.marks, (unsigned long long)ps.drops,
                (unsigned long long)ps.n_pauses, (double)ps.paused_ps * 1e-6);
    }
    int rc = tl_afile_commit(&af, err);
    const qtrace *qt = e->aux;
    if (!rc && qt->mon)
        rc = tl_monitor_save(qt->mon, dir, err);
    if (!rc && qt->tuner)
        rc = tl_tuner_save(qt->tuner, dir, err);
    return rc;
}

static const char *files(const tl_engine *e)
{
    qtrace *qt = e->aux;
    if (!qt)
        return "fct.csv, fct.txt, summary.json, links.csv";
    snprintf(qt->files, sizeof qt->files, "fct.csv, fct.txt, summary.json, links.csv%s%s%s",
             qt->f ? ", queues.csv" : "", qt->mon ? ", monitor_*.csv, monitor.png" : "",
             qt->tuner ? ", tune_trajectory.csv, tune_setting.json, tune.png" : "");
    return qt->files;
}

static void report(const tl_engine *e, char *buf, size_t n)
{
    tl_pktsim_stats st;
    tl_pktsim_get_stats(e->st, &st);
    double cpu = e->cpu_s;
    snprintf(buf, n,
             "pktsim: %llu/%zu flows done, %.6g s simulated, %llu events, %llu link-hops, "
             "%.3g link-hops/s (%.1f s CPU), %llu drops, %llu marks, %llu timeouts",
             (unsigned long long)st.n_flows_done, e->w->flows.n, (double)st.now_ps * 1e-12,
             (unsigned long long)st.n_events, (unsigned long long)st.n_link_hops,
             cpu > 0 ? (double)st.n_link_hops / cpu : 0, cpu, (unsigned long long)st.n_drops,
             (unsigned long long)st.n_marks, (unsigned long long)st.n_timeouts);
    double mean, most;
    if (tl_pktsim_paused_share(e->st, &mean, &most) > 0) {
        size_t len = strlen(buf);
        snprintf(buf + len, len < n ? n - len : 0,
                 ", PFC: links paused %.2f%% of the run on average, %.1f%% at most", 100 * mean,
                 100 * most);
    }
    const qtrace *qt = e->aux;
    if (qt && qt->mon) {
        size_t nr, nt = 0;
        const tl_monitor_row *r = tl_monitor_rows(qt->mon, &nr);
        for (size_t i = 0; i < nr; i++)
            nt += r[i].is_trigger;
        double a[3];
        tl_monitor_accuracy(qt->mon, &a[0], &a[1], &a[2]);
        size_t len = strlen(buf);
        char nf[64] = "n/a (no export yet)";
        if (!isnan(a[2]))
            snprintf(nf, sizeof nf, "%.3f", a[2]);
        snprintf(buf + len, n - len,
                 "\nmonitor: %zu intervals, %zu KL triggers; flow-size distribution accuracy "
                 "PARALEON %.3f, naive Elastic Sketch %.3f, NetFlow %s",
                 nr, nt, a[0], a[1], nf);
    }
    if (qt && qt->tuner) {
        int n_searches;
        uint64_t n_refused;
        const tl_params *cur = tl_tuner_setting(qt->tuner, &n_searches, &n_refused);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "\ntune: %d searches, %llu values refused by a rule; ended on",
                 n_searches, (unsigned long long)n_refused);
        const char *const *knobs = e->o.tune_knobs ? e->o.tune_knobs : tl_tune_table1_knobs;
        size_t n_knobs = e->o.tune_knobs ? e->o.n_tune_knobs : tl_tune_n_table1_knobs;
        if (e->o.tune_scheme != TL_TUNE_PARALEON)
            knobs = tl_baseline_knobs(e->o.tune_scheme, &n_knobs);
        for (size_t i = 0; i < n_knobs; i++) {
            len = strlen(buf);
            snprintf(buf + len, n - len, " %s=%.4g", knobs[i], tl_params_get(cur, knobs[i]));
        }
    }
}

const tl_engine_ops tl_engine_pktsim = {
    .name = "pktsim",
    .create = create,
    .destroy = destroy,
    .run = run,
    .flow_results = flow_results,
    .counters = counters,
    .save_extra = save_links,
    .files = files,
    .report = report,
};
