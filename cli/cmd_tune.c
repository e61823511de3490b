/* tailor tune SCENARIO -o OUTDIR: PARALEON's tuning of DCQCN (docs/paraleon.md).
 * With --oracle pktsim (the default) the closed loop runs inside one pktsim
 * run (as `tailor run --tune`, or a baseline controller with --scheme);
 * with --oracle parsimon|m3|flowsim the search is offline, each candidate
 * scored by the estimator's FCT slowdowns under --objective, and the best
 * is checked against pktsim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tailor/tune.h"

#define MAX_KNOBS TL_TUNE_MAX_KNOBS

/* One end of a search range: a value of knob's unit ("1Mbps", "40KB"),
 * inside its registered range (tl_params_set_text says why not). */
static int parse_end(tl_params *scratch, const char *knob, const char *text, double *v,
                     tl_err *err)
{
    int rc = tl_params_set_text(scratch, knob, text, err);
    *v = tl_params_get(scratch, knob);
    return rc;
}

/* Splits the comma-separated list text (copied to buf) into names, each
 * optionally with a search range "name=LO:HI"; *has_range is set when one
 * has, and lo/hi then hold every knob's range (the registered one when
 * not given). */
static int split_knobs(const char *text, char *buf, size_t n_buf, const char **names,
                       double *lo, double *hi, int *has_range, size_t *n, tl_err *err)
{
    if (strlen(text) >= n_buf)
        return tl_err_set(err, TL_EPARSE, "--knobs: the list is too long");
    snprintf(buf, n_buf, "%s", text);
    *n = 0;
    *has_range = 0;
    tl_params scratch;
    int rc = tl_params_init(&scratch, err);
    char *save = NULL;
    for (char *k = strtok_r(buf, ",", &save); !rc && k; k = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_KNOBS) {
            rc = tl_err_set(err, TL_EPARSE, "--knobs: at most %d knobs", MAX_KNOBS);
            break;
        }
        char *eq = strchr(k, '=');
        if (eq)
            *eq = '\0';
        int id = tl_params_find(k);
        if (id < 0) {
            const char *sg = tl_params_suggest(k);
            rc = tl_err_set(err, TL_EPARSE, "unknown knob '%s'%s%s%s", k,
                            sg ? " (did you mean '" : "", sg ? sg : "", sg ? "'?)" : "");
            break;
        }
        const tl_param_def *d = tl_params_def((size_t)id);
        lo[*n] = d->min;
        hi[*n] = d->max;
        if (eq) {
            char *colon = strchr(eq + 1, ':');
            if (!colon) {
                rc = tl_err_set(err, TL_EPARSE, "expected %s=LO:HI, found '%s=%s'", k, k, eq + 1);
                break;
            }
            *colon = '\0';
            if ((rc = parse_end(&scratch, k, eq + 1, &lo[*n], err)) ||
                (rc = parse_end(&scratch, k, colon + 1, &hi[*n], err)))
                break;
            if (lo[*n] > hi[*n]) {
                rc = tl_err_set(err, TL_ERANGE, "the range of %s is empty: %s > %s", k, eq + 1,
                                colon + 1);
                break;
            }
            *has_range = 1;
        }
        names[(*n)++] = k;
    }
    if (!rc && !*n)
        rc = tl_err_set(err, TL_EPARSE, "--knobs: no knob named");
    if (rc)
        snprintf(err->path, sizeof err->path, "--knobs %s", text);
    if (scratch.v)
        tl_params_fini(&scratch);
    return rc;
}

static void print_offline(const tl_offline *t, const tl_offline_opts *oo, const char *out)
{
    double est[2], truth[2];
    const double *best = tl_offline_best(t, est, truth);
    printf("objective %s (lower is better):\n  %-8s %12s %12s\n", oo->obj.text, "setting",
           tl_engine_name(oo->oracle), "pktsim");
    for (int k = 0; k < 2; k++)
        printf("  %-8s %12.4f %12.4f\n", k ? "best" : "start", est[k], truth[k]);
    printf("change: %+.1f%% by %s, %+.1f%% by pktsim\n", 100 * (est[1] / est[0] - 1),
           tl_engine_name(oo->oracle), 100 * (truth[1] / truth[0] - 1));
    const tl_summary *se = tl_offline_summary(t, 1, 0), *st = tl_offline_summary(t, 1, 1);
    if (st) {
        printf("best setting, p99 slowdown per size bucket:\n  %-8s %10s %10s %9s\n", "bucket",
               tl_engine_name(oo->oracle), "pktsim", "error");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            printf("  %-8s %10.3f %10.3f %+8.1f%%\n", tl_bucket_names[b], se->all[b].p[2],
                   st->all[b].p[2], 100 * (se->all[b].p[2] / st->all[b].p[2] - 1));
    }
    printf("best setting:");
    for (size_t i = 0; i < oo->n; i++)
        printf(" %s=%.6g", oo->knobs[i], best[i]);
    printf("\nresults in %s/ (tune_offline.csv, tune_setting.json%s, tune_offline.png)\n", out,
           st ? ", tune_validation.csv" : "");
}

static int run_offline(cli_world *w, const cli_opts *o, const tl_objective *obj,
                       const char *const *knobs, size_t n, const double *lo, const double *hi,
                       const char *dir, tl_progress *prog, tl_err *err)
{
    tl_offline_opts oo;
    memset(&oo, 0, sizeof oo);
    int rc = cli_check_engine(o->oracle, w->sc.cc, err);
    if (rc)
        return rc;
    if (!strcmp(o->oracle, "pktsim"))
        return tl_err_set(err, TL_EINVAL, "internal: pktsim is the closed loop");
    oo.oracle = tl_engine_find(o->oracle, err);
    oo.eng = &o->eng;
    oo.knobs = knobs;
    oo.n = n;
    oo.lo = lo;
    oo.hi = hi;
    oo.obj = *obj;
    tl_anneal_cfg_from(&oo.anneal, &w->sc.params);
    oo.n_threads = w->sc.engine.n_threads;
    if (o->scheme && !strcmp(o->scheme, "naive"))
        oo.anneal.is_guided = 0;
    tl_offline *t = tl_offline_create(w, &oo, w->sc.seed, err);
    if (!t)
        return err->code;
    if (tl_engine_uses_model(oo.oracle, w, oo.eng)) {
        /* the ends of each knob's search against what m3's model was trained on */
        tl_fabric_ref buf;
        const tl_fabric_ref *fab = cli_fabric(w, &buf);
        tl_params p;
        for (size_t i = 0; i < n && !tl_params_copy(&p, &w->sc.params, NULL); i++) {
            int k = tl_params_find(knobs[i]);
            for (int end = 0; end < 2 && k >= 0; end++) {
                p.v[k] = end ? hi[i] : lo[i];
                cli_m3_warn_untrained(&p, (size_t)k, w->sc.cc, fab, "tailor tune");
            }
            tl_params_fini(&p);
        }
    }
    rc = tl_offline_run(t, prog, err);
    if (!rc)
        rc = tl_offline_validate(t, prog, err);
    if (!rc && !cli_is_root()) { /* rank 0 writes the results */
        tl_offline_destroy(t);
        return 0;
    }
    if (!rc)
        rc = tl_offline_save(t, dir, err);
    if (!rc) {
        if (cli_gnuplot("tune_offline.gp", NULL, dir) != 0) {
            char path[CLI_PATH_MAX + 40];
            snprintf(path, sizeof path, "%s/tune_offline.png", dir);
            unlink(path);
            fprintf(stderr, "tailor tune: note: gnuplot failed or is missing; the CSV files and "
                            "tune_offline.gp are complete\n");
        }
        print_offline(t, &oo, o->out);
    }
    tl_offline_destroy(t);
    return rc;
}

int cmd_tune(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "tune",
                       "o,oracle,objective,knobs,scheme,seed,cc,set,preset,preset-file,threads,"
                       "quiet,cluster,no-passthrough,no-residual,paths,model,no-model,flow-count,"
                       "until",
                       &o);
    if (rc)
        return rc;
    if (!o.out) {
        fprintf(stderr, "tailor tune: -o OUTDIR is required\n");
        return EXIT_INPUT;
    }
    if (!o.oracle)
        o.oracle = "pktsim";
    const char *scheme = o.scheme ? o.scheme : "paraleon";
    tl_err err;
    tl_err_clear(&err);
    int is_offline = strcmp(o.oracle, "pktsim") != 0;
    int scheme_id = tl_tune_scheme_find(scheme);
    if (scheme_id < 0)
        rc = tl_err_set(&err, TL_EPARSE,
                        "--scheme: expected paraleon, naive, acc or dcqcn-plus, found '%s'",
                        scheme);
    else if (is_offline && scheme_id != TL_TUNE_PARALEON && strcmp(scheme, "naive"))
        rc = tl_err_set(&err, TL_EINVAL,
                        "--scheme %s is a controller inside a pktsim run; offline (--oracle %s) "
                        "searches with paraleon or naive",
                        scheme, o.oracle);
    else if (!is_offline && o.objective)
        rc = tl_err_set(&err, TL_EINVAL,
                        "--objective scores an offline search (--oracle parsimon, m3 or "
                        "flowsim); the closed loop maximizes PARALEON's utility U");
    else if (!is_offline && cli_ranks() > 1)
        rc = tl_err_set(&err, TL_EINVAL, "the closed loop (--oracle pktsim) does not spread "
                        "over MPI ranks (%d here): run it without mpirun; the offline search "
                        "(--oracle parsimon, m3 or flowsim) does", cli_ranks());
    else if (is_offline && o.eng.until_ps)
        rc = tl_err_set(&err, TL_EINVAL, "--until applies to the closed loop (--oracle pktsim)");
    char knob_buf[2048];
    const char *knobs[MAX_KNOBS];
    size_t n_knobs = tl_tune_n_table1_knobs;
    memcpy(knobs, tl_tune_table1_knobs, n_knobs * sizeof *knobs);
    double lo[MAX_KNOBS], hi[MAX_KNOBS];
    int has_range = 0;
    if (!rc && o.knobs)
        rc = split_knobs(o.knobs, knob_buf, sizeof knob_buf, knobs, lo, hi, &has_range, &n_knobs,
                         &err);
    if (!rc && o.knobs && scheme_id != TL_TUNE_PARALEON)
        rc = tl_err_set(&err, TL_EINVAL, "--knobs chooses what paraleon and naive search; --scheme "
                                         "%s moves its own knobs",
                        scheme);
    tl_objective obj; /* parsed before any work, so its errors come first */
    if (!rc && is_offline)
        rc = tl_objective_parse(&obj, o.objective ? o.objective : TL_OBJECTIVE_DEFAULT, &err);
    if (rc) {
        cli_print_err("tune", &err);
        return EXIT_INPUT;
    }
    cli_out out;
    if ((rc = cli_out_begin(&out, o.out, CLI_OUT_DIR, &err))) {
        cli_print_err("tune", &err);
        return cli_exit_code(&err);
    }
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    if (!rc && is_offline) {
        rc = run_offline(&w, &o, &obj, knobs, n_knobs, has_range ? lo : NULL,
                         has_range ? hi : NULL, cli_out_path(&out), prog, &err);
    } else if (!rc) {
        tl_engine_opts eo = o.eng;
        eo.is_tune = 1;
        eo.tune_scheme = scheme_id;
        eo.tune_knobs = knobs;
        eo.n_tune_knobs = n_knobs;
        eo.tune_lo = has_range ? lo : NULL;
        eo.tune_hi = has_range ? hi : NULL;
        if (!strcmp(scheme, "naive"))
            rc = tl_params_set(&w.sc.params, "tune.guided", 0, &err);
        if (!rc)
            rc = cli_run_engine(&w, "pktsim", cli_out_path(&out), o.out, &eo, prog, &err);
    }
    if (!rc)
        rc = cli_out_commit(&out, &err);
    cli_progress_done(prog);
    if (rc) {
        cli_out_abort(&out);
        cli_print_err("tune", &err);
    }
    cli_world_fini(&w);
    return rc ? cli_exit_code(&err) : 0;
}
