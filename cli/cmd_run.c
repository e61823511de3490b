/* tailor run SCENARIO --engine pktsim -o OUTDIR: simulate the scenario and
 * write the common results: fct.csv (per flow), fct.txt (ns-3 HPCC format),
 * summary.json (slowdown per size bucket and class), links.csv (per port). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "tailor/fileio.h"
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

int cmd_run(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "run", "o,engine,seed,set,threads,quiet", &o);
    if (rc)
        return rc;
    if (!o.out) {
        fprintf(stderr, "tailor run: -o OUTDIR is required\n");
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    tl_pktsim *sim = NULL;
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    rc = cli_world_build(&o, &w, prog, &err);
    const char *engine = o.engine ? o.engine : w.sc.engine.name;
    if (!rc && strcmp(engine, "pktsim") != 0) {
        rc = tl_err_set(&err, TL_EINVAL, "engine '%s' is not available yet (available: pktsim)",
                        engine);
    }
    double t0 = (double)clock() / CLOCKS_PER_SEC;
    if (!rc && !(sim = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                        w.sc.seed, &err)))
        rc = err.code;
    if (!rc)
        rc = tl_pktsim_run(sim, 0, prog, &err);
    cli_progress_done(prog);
    if (!rc && mkdir(o.out, 0777) != 0 && errno != EEXIST)
        rc = tl_err_at(&err, TL_EIO, o.out, 0, 0, NULL, "cannot create the output folder: %s",
                       strerror(errno));
    char path[1200];
    if (!rc) {
        snprintf(path, sizeof path, "%s/fct.csv", o.out);
        rc = tl_result_save_csv(&w.flows, tl_pktsim_results(sim), path, &err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/fct.txt", o.out);
        rc = tl_result_save_ns3(&w.flows, tl_pktsim_results(sim), path, &err);
    }
    if (!rc)
        rc = tl_summary_build(&sum, "pktsim", &w.flows, tl_pktsim_results(sim), &err);
    if (!rc) {
        snprintf(path, sizeof path, "%s/summary.json", o.out);
        rc = tl_summary_save_json(&sum, path, &err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/links.csv", o.out);
        rc = save_links(sim, w.topo, path, &err);
    }
    if (rc) {
        cli_print_err("run", &err);
    } else {
        tl_pktsim_stats st;
        tl_pktsim_get_stats(sim, &st);
        double cpu = (double)clock() / CLOCKS_PER_SEC - t0;
        printf("pktsim: %llu/%zu flows done, %.6g s simulated, %llu events, %llu link-hops, "
               "%.3g link-hops/s, %llu drops, %llu marks, %llu timeouts\n",
               (unsigned long long)st.n_flows_done, w.flows.n, (double)st.now_ps * 1e-12,
               (unsigned long long)st.n_events, (unsigned long long)st.n_link_hops,
               cpu > 0 ? (double)st.n_link_hops / cpu : 0, (unsigned long long)st.n_drops,
               (unsigned long long)st.n_marks, (unsigned long long)st.n_timeouts);
        printf("slowdown (p50 / p99) per size bucket:\n");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            printf("  %-8s %8llu flows  p50 %7.3f  p99 %7.3f\n", tl_bucket_names[b],
                   (unsigned long long)sum.all[b].count, sum.all[b].p[0], sum.all[b].p[2]);
        printf("results in %s/ (fct.csv, fct.txt, summary.json, links.csv)\n", o.out);
    }
    tl_summary_fini(&sum);
    tl_pktsim_destroy(sim);
    cli_world_fini(&w);
    return rc ? cli_exit_code(&err) : 0;
}
