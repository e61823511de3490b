/* tailor sweep SCENARIO --set knob=v1,v2,...: a counterfactual sweep (m3.txt
 * §5.4). Every --set with a list of values is swept (lists of equal length
 * move together, so kmin and kmax can move as one); the p99 slowdown per size
 * bucket is printed for each setting. With m3 (the default) the paths, their
 * workloads and, unless the knob is one flowsim reads, their features are
 * computed once and only the model runs again per value; other engines run
 * the whole scenario once per value. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tailor/engine.h"
#include "tailor/result.h"

#define MAX_SWEPT 8
#define MAX_VALUES 64

typedef struct swept {
    char name[128];
    char *values[MAX_VALUES]; /* point into text */
    char text[1024];
    int n;
} swept;

/* Splits "name=v1,v2,..." into s: 1 if it is a list, 0 if it is a plain
 * single-value --set, EXIT_INPUT (printed) for an empty value or too many. */
static int split(const char *assign, swept *s)
{
    const char *eq = strchr(assign, '=');
    if (!eq || !strchr(eq, ','))
        return 0;
    snprintf(s->name, sizeof s->name, "%.*s", (int)(eq - assign), assign);
    if (strlen(eq + 1) >= sizeof s->text) {
        fprintf(stderr, "tailor sweep: --set %s: the list is too long (at most %zu characters)\n",
                s->name, sizeof s->text - 1);
        return -EXIT_INPUT;
    }
    snprintf(s->text, sizeof s->text, "%s", eq + 1);
    s->n = 0;
    for (char *tok = s->text;; s->n++) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        if (!*tok || s->n == MAX_VALUES) {
            fprintf(stderr,
                    !*tok ? "tailor sweep: --set %s: value %d of the list is empty (expected "
                            "name=v1,v2,... with no empty value)\n"
                          : "tailor sweep: --set %s: more than %d values\n",
                    assign, !*tok ? s->n + 1 : MAX_VALUES);
            return -EXIT_INPUT;
        }
        s->values[s->n] = tok;
        if (!comma)
            break;
        tok = comma + 1;
    }
    s->n++;
    return 1;
}

/* m3's model against its training (cli_m3_warn_knobs): the scenario's
 * other knobs once, then each value of each swept knob and each value's
 * Kmin and Kmax together. */
static void warn_untrained(const cli_world *w, const tl_params *vals, const swept *sw, int n_sw)
{
    tl_fabric_ref buf;
    const tl_fabric_ref *fab = cli_fabric(w, &buf);
    int idx[MAX_SWEPT];
    for (int k = 0; k < n_sw; k++)
        idx[k] = tl_params_find(sw[k].name);
    cli_m3_warn_knobs(&w->sc.params, w->sc.cc, fab, idx, n_sw, "tailor sweep");
    for (int v = 0; v < sw[0].n; v++) {
        for (int k = 0; k < n_sw; k++)
            if (idx[k] >= 0)
                cli_m3_warn_untrained(&vals[v], (size_t)idx[k], w->sc.cc, fab, "tailor sweep");
        cli_m3_warn_joint(&vals[v], w->sc.cc, "tailor sweep");
    }
}

static void print_row(FILE *f, const swept *sw, int n_sw, int v, const tl_summary *sum)
{
    char label[256] = "";
    for (int k = 0; k < n_sw; k++)
        snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s", k ? " " : "",
                 sw[k].values[v]);
    fprintf(f, "  %-24s", label);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        fprintf(f, " %9.3f", sum->all[b].p[2]);
    fputc('\n', f);
}

/* OUTDIR/vN (out: the output transaction's folder). */
static int make_vdir(const char *out, int v, char *path, size_t n, tl_err *err)
{
    snprintf(path, n, "%s/v%d", out, v);
    if (mkdir(path, 0777) != 0)
        return tl_err_at(err, TL_EIO, path, 0, 0, NULL, "cannot create the folder: %s",
                         strerror(errno));
    return 0;
}

static int save_summary(const char *out, int v, const tl_summary *sum, tl_err *err)
{
    char path[1200];
    if (make_vdir(out, v, path, sizeof path, err))
        return tl_err_at(err, TL_EIO, path, 0, 0, NULL, "cannot create the folder: %s",
                         strerror(errno));
    snprintf(path, sizeof path, "%s/v%d/summary.json", out, v);
    return tl_summary_save_json(sum, path, err);
}

int cmd_sweep(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "sweep",
                       "o,engine,seed,cc,set,preset,preset-file,threads,quiet,paths,model,no-model,flow-count", &o);
    if (rc)
        return rc;
    swept sw[MAX_SWEPT];
    int n_sw = 0, n_keep = 0;
    for (int i = 0; i < o.n_sets; i++) {
        int is_list = n_sw < MAX_SWEPT ? split(o.sets[i], &sw[n_sw]) : 0;
        if (is_list < 0)
            return -is_list;
        if (is_list) {
            if (n_sw && sw[n_sw].n != sw[0].n) {
                fprintf(stderr, "tailor sweep: --set %s has %d values, --set %s=... has %d; "
                                "swept knobs move together and need as many values\n",
                        o.sets[i], sw[n_sw].n, sw[0].name, sw[0].n);
                return EXIT_INPUT;
            }
            n_sw++;
        } else {
            o.sets[n_keep++] = o.sets[i]; /* fixed knobs stay in the scenario */
        }
    }
    o.n_sets = n_keep;
    if (!n_sw) {
        fprintf(stderr, "tailor sweep: expected a --set knob=v1,v2,... with two or more values\n");
        return EXIT_INPUT;
    }
    if (o.is_quiet && !o.out) {
        fprintf(stderr, "tailor sweep: --quiet silences the table, so it needs -o OUTDIR for "
                        "the results\n");
        return EXIT_INPUT;
    }
    const char *engine = o.engine ? o.engine : "m3";
    tl_err err;
    tl_err_clear(&err);
    /* Results go to OUTDIR; without -o, the full runs of other engines need a
     * scratch folder, removed at the end. */
    cli_out out;
    char scratch[CLI_PATH_MAX];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/tailor-sweep.%ld", tmpdir && tmpdir[0] ? tmpdir : "/tmp",
             (long)getpid());
    if ((rc = cli_out_begin(&out, o.out ? o.out : scratch, CLI_OUT_DIR, &err))) {
        cli_print_err("sweep", &err);
        return cli_exit_code(&err);
    }
    tl_progress ps, *prog = cli_progress(&o, &ps);
    cli_world w;
    rc = cli_world_build(&o, &w, prog, &err);
    if (!rc)
        rc = cli_check_engine(engine, w.sc.cc, &err);
    const tl_engine_ops *ops = rc ? NULL : tl_engine_find(engine, &err);
    /* An engine that predicts again under each value (m3) runs once; the
     * others run the whole scenario once per value. */
    int is_repredict = ops && tl_engine_can_repredict(ops);
    const char *swept_names[MAX_SWEPT];
    for (int k = 0; k < n_sw; k++)
        swept_names[k] = sw[k].name;
    char why[1024];
    for (int k = 0; k < n_sw && ops && !is_repredict && !o.is_quiet; k++)
        if (!tl_engine_reads_knob(ops, &w, &o.eng, sw[k].name, w.sc.cc, why, sizeof why))
            fprintf(stderr, "tailor sweep: warning: %s\n", why);
    /* every setting is built, so every value checked, before anything runs */
    tl_params vals[MAX_VALUES];
    memset(vals, 0, sizeof vals);
    tl_engine *m = NULL;
    for (int v = 0; v < sw[0].n && !rc; v++) {
        tl_params *cur = &vals[v];
        rc = tl_params_copy(cur, &w.sc.params, &err);
        for (int k = 0; k < n_sw && !rc; k++)
            if ((rc = tl_params_set_text(cur, sw[k].name, sw[k].values[v], &err)))
                snprintf(err.path, sizeof err.path, "--set %s=%s", sw[k].name, sw[k].values[v]);
    }
    if (!rc && tl_engine_uses_model(ops, &w, &o.eng))
        warn_untrained(&w, vals, sw, n_sw);
    if (!rc && is_repredict) {
        /* the sweep still runs when the engine ignores a knob: another knob
         * swept with it may matter */
        for (int k = 0; k < n_sw; k++)
            if (!tl_engine_reads_knob(ops, &w, &o.eng, sw[k].name, w.sc.cc, why, sizeof why))
                fprintf(stderr, "tailor sweep: warning: %s\n", why);
        tl_engine_opts eo = o.eng;
        eo.swept = swept_names; /* the run keeps what a repredict over them needs */
        eo.n_swept = n_sw;
        m = tl_engine_create(ops, &w, &eo, &err);
        rc = m ? tl_engine_run(m, prog, &err) : err.code;
    }
    cli_progress_done(prog);
    tl_summary *sums = rc ? NULL : calloc((size_t)sw[0].n, sizeof *sums);
    if (!rc && !sums)
        rc = tl_err_nomem(&err);
    int n_done = 0;
    for (int v = 0; v < sw[0].n && !rc; v++) {
        tl_summary sum;
        memset(&sum, 0, sizeof sum);
        if (!rc && m) {
            rc = tl_engine_repredict(m, &vals[v], w.sc.cc, &err);
            rc = rc ? rc : tl_engine_summary(m, &sum, &err);
            if (!rc && o.out)
                rc = save_summary(cli_out_path(&out), v, &sum, &err);
        } else if (!rc) {
            /* a full run per value into OUTDIR/vN (or the scratch folder) */
            char dir[1200];
            tl_params keep = w.sc.params;
            w.sc.params = vals[v];
            rc = make_vdir(cli_out_path(&out), v, dir, sizeof dir, &err);
            if (!rc) /* no report per run (shown NULL): the table is the sweep's */
                rc = cli_run_engine(&w, engine, dir, NULL, &o.eng, NULL, &err);
            w.sc.params = keep;
            if (!rc) {
                char path[1300];
                snprintf(path, sizeof path, "%s/summary.json", dir);
                rc = tl_summary_load_json(&sum, path, &err);
            }
        }
        sums[v] = sum;
        n_done++;
    }
    if (!rc && !o.is_quiet) {
        uint32_t crc = 0;
        const char *model = m ? tl_engine_model(m, &crc) : NULL;
        printf("p99 FCT slowdown per size bucket (%s%s%s):\n  %-24s", engine,
               model ? ", model " : "", model ? model : "", "value");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            printf(" %9s", tl_bucket_names[b]);
        printf("\n");
        for (int v = 0; v < sw[0].n; v++)
            print_row(stdout, sw, n_sw, v, &sums[v]);
        if (model) {
            cli_run_facts rf = {.cc = w.sc.cc};
            cli_note_accuracy(engine, model, crc, &rf, "tailor sweep");
            cli_m3_warn_model(model, &w.sc.params, "tailor sweep");
        }
    }
    for (int v = 0; v < n_done; v++)
        tl_summary_fini(&sums[v]);
    free(sums);
    if (!rc && o.out)
        rc = cli_out_commit(&out, &err);
    else
        cli_out_abort(&out); /* the scratch folder, or a failed OUTDIR */
    if (!rc && o.out && !o.is_quiet)
        printf("summaries in %s/v0 .. v%d/summary.json\n", o.out, sw[0].n - 1);
    if (rc)
        cli_print_err("sweep", &err);
    tl_engine_destroy(m); /* it borrows the settings below */
    for (int v = 0; v < sw[0].n; v++)
        tl_params_fini(&vals[v]);
    cli_world_fini(&w);
    return rc ? cli_exit_code(&err) : 0;
}
