/* tailor compare REF_DIR EST_DIR [-o OUT_DIR]: the accuracy of one run
 * against a reference run (DESIGN.md: relative error (est - ref) / ref of
 * the slowdown statistics per size bucket and class). Prints the tables,
 * writes OUT_DIR/compare.json, compare_cdf.csv, compare.gp and compare.png
 * (gnuplot): CDFs of the runs with per-flow tables, the percentiles of those
 * with a summary only. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "tailor/compare.h"
#include "tailor/fileio.h"

/* Points per plotted CDF curve: enough for a smooth line, small enough that
 * the CSV stays readable for runs of millions of flows. */
#define CDF_POINTS 1000

typedef struct args {
    const char *ref, *est, *out;
    int is_quiet, is_force;
} args;

/* cli_parse takes one positional argument (a scenario); compare takes two
 * folders, so it reads its few options itself. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "tailor compare: option '-o' needs a value\n");
                return EXIT_INPUT;
            }
            a->out = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            a->is_quiet = 1;
        } else if (strcmp(argv[i], "--force") == 0) {
            a->is_force = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "tailor compare: unknown option '%s' (see 'tailor help compare')\n",
                    argv[i]);
            return EXIT_INPUT;
        } else if (!a->ref) {
            a->ref = argv[i];
        } else if (!a->est) {
            a->est = argv[i];
        } else {
            fprintf(stderr, "tailor compare: two run folders expected, found a third: '%s'\n",
                    argv[i]);
            return EXIT_INPUT;
        }
    }
    if (!a->est) {
        fprintf(stderr,
                "tailor compare: expected REF_DIR and EST_DIR (see 'tailor help compare')\n");
        return EXIT_INPUT;
    }
    return 0;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* ======================== the tables ======================== */

static void put_value(double x)
{
    if (isnan(x))
        printf(" %8s", "-");
    else
        printf(" %8.3f", x);
}

static void put_error(double e)
{
    if (isnan(e))
        printf(" %8s", "-");
    else
        printf(" %+7.1f%%", e * 100);
}

static void print_table(const char *title, const tl_cmp_row *rows)
{
    /* Each statistic spans three 9-character columns; its name is centred
     * over them in a rule. */
    printf("%s\n  %-8s %9s %9s", title, "", "", "");
    for (int k = 0; k < TL_CMP_N_STATS; k++) {
        int name = (int)strlen(tl_cmp_stat_names[k]), left = (25 - name) / 2;
        printf("  %.*s %s %.*s", left, "------------", tl_cmp_stat_names[k], 25 - name - left - 1,
               "------------");
    }
    printf("\n  %-8s %9s %9s", "bucket", "ref n", "est n");
    for (int k = 0; k < TL_CMP_N_STATS; k++)
        printf("  %8s %8s %8s", "ref", "est", "error");
    printf("\n");
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        const tl_cmp_row *r = &rows[b];
        printf("  %-8s %9llu %9llu", tl_bucket_names[b], (unsigned long long)r->ref_count,
               (unsigned long long)r->est_count);
        for (int k = 0; k < TL_CMP_N_STATS; k++) {
            printf(" ");
            put_value(r->ref[k]);
            put_value(r->est[k]);
            put_error(r->error[k]);
        }
        printf("\n");
    }
}

static int has_class(const tl_summary *s, const char *name)
{
    for (uint32_t c = 0; c < s->n_classes; c++)
        if (strcmp(s->class_names[c], name) == 0)
            return 1;
    return 0;
}

/* Notes on what the errors do not show: classes on one side only, flow
 * counts that differ (runs of different workloads?), unfinished flows. */
static void print_notes(const tl_summary *ref, const tl_summary *est)
{
    for (int side = 0; side < 2; side++) {
        const tl_summary *s = side ? est : ref, *other = side ? ref : est;
        for (uint32_t c = 0; c < s->n_classes; c++)
            if (!has_class(other, s->class_names[c]))
                fprintf(stderr,
                        "tailor compare: note: class '%s' is only in the %s run; "
                        "it has no table\n",
                        s->class_names[c], side ? "est" : "ref");
    }
    int all = TL_N_BUCKETS - 1;
    unsigned long long n_ref = ref->all[all].count + ref->n_unfinished,
                       n_est = est->all[all].count + est->n_unfinished;
    if (n_ref != n_est)
        fprintf(stderr,
                "tailor compare: note: the runs have %llu and %llu flows; are they of the "
                "same workload?\n",
                n_ref, n_est);
    if (ref->n_unfinished || est->n_unfinished)
        fprintf(stderr,
                "tailor compare: note: unfinished flows (left out of the statistics): "
                "ref %llu, est %llu\n",
                (unsigned long long)ref->n_unfinished, (unsigned long long)est->n_unfinished);
}

/* ======================== the plot ======================== */

/* The engine names as CSV fields and plot titles: only harmless characters,
 * and " (ref)" / " (est)" appended when the two would be the same. */
static void make_labels(char labels[2][48], const tl_summary *sum[2])
{
    for (int i = 0; i < 2; i++) {
        snprintf(labels[i], sizeof labels[i], "%s", sum[i]->engine[0] ? sum[i]->engine : "unnamed");
        for (char *p = labels[i]; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *p))
                *p = '_';
    }
    if (strcmp(labels[0], labels[1]) == 0)
        for (int i = 0; i < 2; i++)
            strcat(labels[i], i ? " (est)" : " (ref)"); /* engine names are < 32 characters */
}

/* s as a gnuplot single-quoted string, where '' stands for '. */
static void put_gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* Flows of bucket b on one side: its per-flow table's, else its summary's. */
static uint64_t side_count(const tl_cdf_side *c, int b)
{
    return c->sd ? c->sd->n[b] : c->pts[b].count;
}

/* compare.gp: one panel per size bucket, the two runs read from the CSV: a
 * run with per-flow slowdowns as a CDF, one with a summary only as points at
 * its percentiles. The CDF axis is in "nines", -log10(1 - CDF), so that the
 * tail (90%, 99%, 99.9%) gets as much room as the body. It names its files
 * relative to its folder, where gnuplot runs (so a folder's name never enters
 * the script), and writes compare.png, or the file named by its first
 * argument (gnuplot -c), so that it can be re-run by hand after editing. */
static int write_script(const char *gp_path, const tl_cdf_side side[2], tl_err *err)
{
    tl_afile af;
    FILE *f = tl_afile_open(&af, gp_path, err);
    if (!f)
        return err->code;
    fprintf(f, "# gnuplot script written by tailor compare: FCT slowdown CDFs per size bucket\n"
               "set terminal pngcairo size 1500,900 font ',10' noenhanced\n"
               "set output (ARGC > 0 ? ARG1 : ");
    put_gp_str(f, "compare.png");
    fprintf(f, ")\nset datafile separator ','\ndata = ");
    put_gp_str(f, "compare_cdf.csv");
    fprintf(f,
            "\nnines(c) = c < 1 ? -log10(1 - c) : 1/0\n"
            "set multiplot layout 2,3 title 'FCT slowdown CDF: %s against the reference %s'\n"
            "set logscale x; set xlabel 'slowdown'; set ylabel 'CDF'\n"
            /* a tic label is a format: %% for a percent sign */
            "set yrange [0:*]; set ytics ('0' 0, '50%%%%' nines(0.5), '90%%%%' 1, '99%%%%' 2, "
            "'99.9%%%%' 3, '99.99%%%%' 4, '99.999%%%%' 5)\n"
            "set offsets 0, 0, 0.2, 0; set grid; set key bottom right\n",
            side[1].label, side[0].label);
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        fprintf(f, "set title '%s (ref %llu, est %llu flows)'\n", tl_bucket_names[b],
                (unsigned long long)side_count(&side[0], b),
                (unsigned long long)side_count(&side[1], b));
        if (!side_count(&side[0], b) && !side_count(&side[1], b)) {
            /* gnuplot stops the script at a plot without a single point. */
            fprintf(f, "set label 1 'no flows' at graph 0.5,0.5 center\n"
                       "plot [1:10] 2 notitle\nunset label 1\n");
            continue;
        }
        const char *sep = "plot ";
        for (int k = 0; k < 2; k++) {
            if (!side_count(&side[k], b))
                continue;
            fprintf(f,
                    "%sdata using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $3 : 1/0):(nines($4)) "
                    "%s lc %d title '%s%s'",
                    sep, tl_bucket_names[b], side[k].label,
                    side[k].sd ? "with steps lw 2" : "with points pt 7 ps 1.5", k + 1,
                    side[k].label, side[k].sd ? "" : " (p50, p90, p99, p99.9)");
            sep = ", \\\n     ";
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\nunset output\n");
    return tl_afile_commit(&af, err);
}

/* compare_cdf.csv and compare.gp (errors are errors), then compare.png, all
 * in the output transaction's folder out, where gnuplot runs. A run without
 * per-flow slowdowns (sd[i] NULL) is drawn from its summary. Sets *has_png. */
static int write_plot(const char *out, const tl_summary *sum[2], const tl_slowdowns *sd[2],
                      int *has_png, tl_err *err)
{
    char labels[2][48], csv[1200], gp[1200];
    make_labels(labels, sum);
    tl_cdf_side side[2];
    for (int i = 0; i < 2; i++)
        side[i] = (tl_cdf_side){.sd = sd[i], .pts = sum[i]->all, .label = labels[i]};
    snprintf(csv, sizeof csv, "%s/compare_cdf.csv", out);
    snprintf(gp, sizeof gp, "%s/compare.gp", out);
    int rc = tl_cdf_save_csv(side, CDF_POINTS, csv, err);
    if (!rc)
        rc = write_script(gp, side, err);
    if (rc)
        return rc;
    *has_png = cli_gnuplot("compare.gp", NULL, out) == 0;
    if (!*has_png) { /* a failed gnuplot may leave a partial image */
        snprintf(gp, sizeof gp, "%s/compare.png", out);
        unlink(gp);
    }
    return 0;
}

/* A plot of an earlier compare into the same folder that this one did not
 * redraw would sit beside a compare.json it does not match. */
static void remove_stale(const char *out, int has_png)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/compare.png", out);
    if (!has_png)
        unlink(path);
}

/* ======================== the command ======================== */

/* Folder paths leave room for the file names appended to them. */
#define MAX_DIR_CHARS 1000

static int load_run(const char *dir, tl_summary *s, tl_err *err)
{
    if (strlen(dir) > MAX_DIR_CHARS)
        return tl_err_at(err, TL_EIO, dir, 0, 0, NULL, "path too long (over %d characters)",
                         MAX_DIR_CHARS);
    if (!is_dir(dir))
        return tl_err_at(err, TL_EIO, dir, 0, 0, NULL,
                         "no such folder (expected the output folder of tailor run)");
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return tl_summary_load_json(s, path, err);
}

/* PFC: how long each side's links were paused, where either knows and
 * either paused (a storm that the estimate does not see shows here). */
static void note_pauses(const tl_run_info *ref, const tl_run_info *est)
{
    if (!(ref->paused_frac_max > 0 || est->paused_frac_max > 0))
        return;
    char side[2][64];
    const tl_run_info *r[2] = {ref, est};
    for (int i = 0; i < 2; i++)
        if (r[i]->paused_frac < 0)
            snprintf(side[i], sizeof side[i], "not modeled");
        else
            snprintf(side[i], sizeof side[i], "%.2f%% on average, %.1f%% at most",
                     100 * r[i]->paused_frac, 100 * r[i]->paused_frac_max);
    fprintf(stderr, "tailor compare: note: PFC: links paused for a share of the run: reference "
            "%s; estimate %s\n", side[0], side[1]);
}

/* Runs of different flows (another topology, workload or seed) differ by
 * their workloads, not by an engine's error: refused unless --force. Runs of
 * the same flows under other settings are compared, with a note. */
static int check_same_flows(const args *a, const tl_run_info *ref, const tl_run_info *est,
                            tl_err *err)
{
    const char *dirs[2] = {a->ref, a->est};
    const tl_run_info *r[2] = {ref, est};
    for (int i = 0; i < 2; i++)
        if (!r[i]->is_set) {
            if (!a->is_quiet)
                fprintf(stderr,
                        "tailor compare: note: %s/summary.json has no run record (an older "
                        "tailor's); whether both runs simulate the same flows is not checked\n",
                        dirs[i]);
            return 0;
        }
    if (ref->flows_hash != est->flows_hash) {
        if (!a->is_force)
            return tl_err_set(err, TL_EINVAL,
                              "the runs simulate different flows (topology-and-flows hash %016llx "
                              "in %s, %016llx in %s; seeds %llu and %llu, %lld and %lld flows): "
                              "their difference is the workloads', not an engine's error; "
                              "pass --force to compare them anyway",
                              (unsigned long long)ref->flows_hash, a->ref,
                              (unsigned long long)est->flows_hash, a->est,
                              (unsigned long long)ref->seed, (unsigned long long)est->seed,
                              (long long)ref->n_flows, (long long)est->n_flows);
        if (!a->is_quiet)
            fprintf(stderr, "tailor compare: note: --force: the runs simulate different flows "
                            "(seeds %llu and %llu)\n",
                    (unsigned long long)ref->seed, (unsigned long long)est->seed);
        return 0;
    }
    if (a->is_quiet)
        return 0;
    if (ref->seed != est->seed)
        fprintf(stderr, "tailor compare: note: the seeds differ (%llu and %llu) but the flows are "
                        "the same; the engines' own random choices differ\n",
                (unsigned long long)ref->seed, (unsigned long long)est->seed);
    if (strcmp(ref->cc, est->cc))
        fprintf(stderr, "tailor compare: note: the congestion controls differ (%s and %s)\n",
                ref->cc, est->cc);
    else if (ref->scenario_hash != est->scenario_hash)
        fprintf(stderr, "tailor compare: note: the same flows under different knob settings "
                        "(scenario hash %016llx and %016llx)\n",
                (unsigned long long)ref->scenario_hash, (unsigned long long)est->scenario_hash);
    if (strcmp(ref->options, est->options) && ref->options[0] && est->options[0])
        fprintf(stderr, "tailor compare: note: the engine options differ ('%s' and '%s')\n",
                ref->options, est->options);
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    const char *out = a.out ? a.out : a.est;
    tl_err err;
    tl_err_clear(&err);
    tl_summary sum[2] = {0};
    tl_slowdowns sd[2] = {0};
    tl_compare cmp = {0};
    const char *dirs[2] = {a.ref, a.est};
    for (int i = 0; i < 2 && !rc; i++)
        rc = load_run(dirs[i], &sum[i], &err);

    /* Every input is read before anything is written: bad input leaves no output. */
    char fct[2][1200];
    int has_fct[2], has_png = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(fct[i], sizeof fct[i], "%s/fct.csv", dirs[i]);
        has_fct[i] = is_file(fct[i]);
    }
    for (int i = 0; i < 2 && !rc; i++)
        if (has_fct[i])
            rc = tl_slowdowns_load_csv(&sd[i], fct[i], &err);
    if (!rc)
        rc = tl_compare_build(&sum[0], &sum[1], &cmp, &err);
    if (!rc && strlen(out) > MAX_DIR_CHARS)
        rc = tl_err_at(&err, TL_EIO, out, 0, 0, NULL, "path too long (over %d characters)",
                       MAX_DIR_CHARS);
    if (!rc)
        rc = check_same_flows(&a, &sum[0].run, &sum[1].run, &err);
    if (!rc) {
        note_pauses(&sum[0].run, &sum[1].run);
        /* the estimate's regime, as its run warned (cli/accuracy.c) */
        cli_run_facts rf = {.cc = sum[1].run.cc,
                            .run = &sum[1].run,
                            .is_pfc = sum[0].run.paused_frac_max > 0,
                            .is_regime_only = 1};
        cli_note_accuracy(sum[1].engine, NULL, 0, &rf, "tailor compare");
    }
    cli_out tx = {0};
    if (!rc)
        rc = cli_out_begin(&tx, out, CLI_OUT_FILES, &err);
    if (!rc) {
        char path[1200];
        snprintf(path, sizeof path, "%s/compare.json", cli_out_path(&tx));
        rc = tl_compare_save_json(&cmp, a.ref, a.est, path, &err);
    }
    if (!rc)
        rc = write_plot(cli_out_path(&tx), (const tl_summary *[2]){&sum[0], &sum[1]},
                        (const tl_slowdowns *[2]){has_fct[0] ? &sd[0] : NULL,
                                                  has_fct[1] ? &sd[1] : NULL},
                        &has_png, &err);
    if (!rc)
        rc = cli_out_commit(&tx, &err);
    else
        cli_out_abort(&tx);
    if (!rc)
        remove_stale(out, has_png);
    if (!rc) {
        printf("FCT slowdown of %s (est: %s) against %s (ref: %s); error = (est - ref) / ref\n\n",
               a.est, cmp.est_engine, a.ref, cmp.ref_engine);
        print_table("all classes:", cmp.all);
        for (uint32_t c = 0; c < cmp.n_classes; c++) {
            char title[300];
            snprintf(title, sizeof title, "\nclass %s:", cmp.class_names[c]);
            print_table(title, &cmp.by_class[(size_t)c * TL_N_BUCKETS]);
        }
        printf("\nresults in %s/ (compare.json, compare_cdf.csv, compare.gp%s)\n", out,
               has_png ? ", compare.png" : "");
        if (!a.is_quiet) {
            print_notes(&sum[0], &sum[1]);
            for (int i = 0; i < 2; i++)
                if (!has_fct[i])
                    fprintf(stderr,
                            "tailor compare: note: no per-flow table %s; the plot shows that "
                            "run's percentiles as points\n",
                            fct[i]);
            if (!has_png)
                fprintf(stderr, "tailor compare: note: gnuplot failed or is missing; "
                                "compare_cdf.csv and compare.gp are complete\n");
        }
    }
    if (rc)
        cli_print_err("compare", &err);
    tl_compare_fini(&cmp);
    for (int i = 0; i < 2; i++) {
        tl_slowdowns_fini(&sd[i]);
        tl_summary_fini(&sum[i]);
    }
    return rc ? cli_exit_code(&err) : 0;
}
