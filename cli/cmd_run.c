/* tailor run SCENARIO --engine pktsim -o OUTDIR: simulate the scenario and
 * write the common results: fct.csv (per flow), fct.txt (ns-3 HPCC format),
 * summary.json (slowdown per size bucket and class), links.csv (per port),
 * with --queue-trace-us a queue-length time series, queues.csv, and with
 * --monitor PARALEON's runtime monitor (monitor_*.csv, monitor.png). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tailor/engine.h"
#include "tailor/result.h"

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

/* Renders dir/NAME.gp into NAME.png; without gnuplot, or if it fails, no
 * image is left (a failed run may leave a partial one) and a note says so. */
static void plot(const char *dir, const char *name)
{
    char path[1300];
    snprintf(path, sizeof path, "%s.gp", name);
    if (cli_gnuplot(path, NULL, dir) == 0)
        return;
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    unlink(path);
    fprintf(stderr, "tailor run: note: gnuplot failed or is missing; the CSV files and %s.gp are "
                    "complete\n",
            name);
}

/* The accuracy figures of the estimator and the check of its regime
 * (cli/accuracy.c). */
static void note_accuracy(const cli_world *w, const char *engine, const char *model,
                          uint32_t crc, const tl_run_info *run)
{
    cli_run_facts rf = {
        .cc = w->sc.cc, .run = run, .is_pfc = tl_knob(&w->sc.params, TL_K_SW_PFC) != 0};
    cli_note_accuracy(engine, model, crc, &rf, "tailor run");
}

/* Runs the engine on a built world and writes its result files into the
 * existing folder dir (an output transaction's); prints a short report on
 * stdout naming shown, where the files will be (NULL: no report). eo: the
 * command line's engine options (NULL: none); a queue trace goes to
 * dir/queues.csv. Shared by run, sweep and demo. */
int cli_run_engine(cli_world *w, const char *engine, const char *dir, const char *shown,
                   const tl_engine_opts *eo, tl_progress *prog, tl_err *err)
{
    int rc = cli_check_engine(engine, w->sc.cc, err);
    if (rc)
        return rc;
    if (cli_ranks() > 1 && strcmp(engine, "parsimon") && strcmp(engine, "m3"))
        return tl_err_set(err, TL_EINVAL, "engine '%s' does not spread over MPI ranks (%d "
                          "here): run it without mpirun; parsimon and m3 do", engine,
                          cli_ranks());
    const tl_engine_ops *ops = tl_engine_find(engine, err);
    tl_engine_opts o;
    if (eo)
        o = *eo;
    else
        tl_engine_opts_init(&o);
    if ((o.is_monitor || o.until_ps || o.is_tune) && strcmp(engine, "pktsim") != 0)
        return tl_err_set(err, TL_EINVAL,
                          "%s needs a pktsim run; engine '%s' has no packets (add --engine "
                          "pktsim)",
                          o.is_monitor ? "--monitor" : o.is_tune ? "--tune" : "--until",
                          engine);
    char trace[1200];
    if (o.trace_interval_us > 0) {
        snprintf(trace, sizeof trace, "%s/queues.csv", dir);
        o.trace_path = trace;
    }
    if (tl_engine_uses_model(ops, w, &o)) {
        tl_fabric_ref fab;
        cli_m3_warn_knobs(&w->sc.params, w->sc.cc, cli_fabric(w, &fab), NULL, 0, "tailor run");
        cli_m3_warn_joint(&w->sc.params, w->sc.cc, "tailor run");
    }
    tl_summary sum;
    memset(&sum, 0, sizeof sum);
    tl_engine *e = tl_engine_create(ops, w, &o, err);
    rc = e ? tl_engine_run(e, prog, err) : err->code;
    if (!rc && !cli_is_root()) { /* rank 0 writes the results */
        tl_engine_destroy(e);
        return 0;
    }
    if (!rc)
        rc = tl_engine_save(e, dir, &sum, err);
    if (!rc && (o.is_monitor || o.is_tune))
        plot(dir, "monitor");
    if (!rc && o.is_tune)
        plot(dir, "tune");
    if (!rc && shown) {
        char line[2048];
        tl_engine_report(e, line, sizeof line);
        printf("%s\n", line);
        uint32_t crc;
        const char *model = tl_engine_model(e, &crc);
        note_accuracy(w, engine, model, crc, &sum.run);
        cli_m3_warn_model(model, &w->sc.params, "tailor run");
        print_buckets(&sum, shown, tl_engine_files(e));
    }
    tl_summary_fini(&sum);
    tl_engine_destroy(e);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "run",
                       "o,engine,flows,seed,cc,set,preset,preset-file,threads,quiet,queue-trace-us,cluster,"
                       "no-passthrough,no-residual,paths,model,no-model,path-pktsim,queue-trace-max,"
                       "flow-count,max-memory,monitor,until,tune",
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
    if (!rc)
        rc = cli_run_engine(&w, engine, cli_out_path(&out), o.out, &o.eng, prog, &err);
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
