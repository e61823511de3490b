/* Offline counterfactual tuning (docs/paraleon.md "Offline tuning"; m3.txt's
 * stated future work): PARALEON's search (Algorithm 1) over the same knobs,
 * but each candidate is scored by a fast estimator's FCT slowdowns instead
 * of a live interval's utility. A round draws anneal.batch candidates from
 * the current setting, estimates them at once (one world per candidate,
 * sharing the topology, routes and flows), and judges them in order, so
 * the result depends on the batch, never on the thread count. The best is
 * then checked against pktsim. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fanout.h"
#include "tailor/fileio.h"
#include "tailor/rng.h"
#include "tailor/tune.h"

#define MAX_KNOBS TL_TUNE_MAX_KNOBS

struct tl_offline {
    const tl_world *w;
    tl_offline_opts o;
    tl_engine_opts eng;
    tl_engine_opts eng_one; /* eng for a batch's candidate: its engine runs on one thread of
                               one rank, so it fans out over no MPI ranks itself */
    const char **knobs;
    tl_anneal *search;
    double p_elephant; /* the workload's share of flows of tau or more */
    double start[MAX_KNOBS], best[MAX_KNOBS];
    double est[2], truth[2]; /* objective of start and best */
    tl_summary sum_est[2], sum_truth[2];
    int has_truth, is_best_start;
    double *rows; /* per candidate: 6 + n */
    size_t n_rows, cap_rows;
};

/* One estimate: a world sharing w's topology, routes and flows, under its
 * own parameters. */
typedef struct job {
    const tl_offline *t;
    const tl_engine_ops *ops;
    const tl_engine_opts *eng;
    double v[MAX_KNOBS]; /* the values asked */
    double applied[MAX_KNOBS];
    int n_threads;
    int is_refused;
    tl_summary sum;
    double obj;
} job;

static int run_one(job *j, tl_err *err)
{
    const tl_offline *t = j->t;
    tl_world w = *t->w; /* shallow: the engines only read it */
    int rc = tl_params_copy(&w.sc.params, &t->w->sc.params, err);
    if (rc)
        return rc;
    w.sc.engine.n_threads = j->n_threads;
    for (size_t i = 0; i < t->o.n; i++)
        j->applied[i] = tl_params_get(&w.sc.params, t->knobs[i]);
    j->is_refused = tl_setting_apply(t->knobs, j->v, t->o.n, tl_setting_set_params,
                                     &w.sc.params, j->applied, j->applied) > 0;
    tl_engine *e = tl_engine_create(j->ops, &w, j->eng, err);
    rc = e ? tl_engine_run(e, NULL, err) : err->code;
    if (!rc)
        rc = tl_engine_summary(e, &j->sum, err);
    tl_engine_destroy(e);
    tl_params_fini(&w.sc.params);
    if (!rc) {
        j->obj = tl_objective_eval(&t->o.obj, &j->sum, err);
        if (isnan(j->obj))
            rc = err->code;
    }
    return rc;
}

static int run_job(void *ctx, size_t idx, void *local, tl_err *err)
{
    (void)local;
    return run_one((job *)ctx + idx, err);
}

/* What a candidate's estimate leaves, for the other MPI ranks. */
static int pack_job(void *ctx, size_t idx, tl_wbuf *out, tl_err *err)
{
    const job *j = (const job *)ctx + idx;
    int rc = tl_wbuf_put(out, &j->obj, sizeof j->obj, err);
    rc = rc ? rc : tl_wbuf_put(out, &j->is_refused, sizeof j->is_refused, err);
    rc = rc ? rc : tl_wbuf_put(out, j->applied, j->t->o.n * sizeof *j->applied, err);
    return rc ? rc : tl_summary_pack(&j->sum, out, err);
}

static int unpack_job(void *ctx, size_t idx, tl_rbuf *in, tl_err *err)
{
    job *j = (job *)ctx + idx;
    int rc = tl_rbuf_get(in, &j->obj, sizeof j->obj, err);
    rc = rc ? rc : tl_rbuf_get(in, &j->is_refused, sizeof j->is_refused, err);
    rc = rc ? rc : tl_rbuf_get(in, j->applied, j->t->o.n * sizeof *j->applied, err);
    return rc ? rc : tl_summary_unpack(&j->sum, in, err);
}

/* Estimates jobs[0..n) on n_threads workers (fanout: the error is the
 * lowest failing job's, whatever the thread count), and over the MPI
 * ranks of t's engine options: several candidates go one per worker, each
 * engine on one thread; a single one runs here with every thread and its
 * engine spreads its own work over the ranks. Every rank then holds every
 * job's result and judges them alike. */
static int run_jobs(tl_offline *t, job *jobs, size_t n, int n_threads, tl_err *err)
{
    for (size_t i = 0; i < n; i++) {
        jobs[i].n_threads = n > 1 ? 1 : n_threads;
        if (jobs[i].eng && n > 1)
            jobs[i].eng = &t->eng_one;
        else if (jobs[i].eng)
            jobs[i].eng = &t->eng;
    }
    /* the candidates every rank proposed must be the same */
    uint64_t check = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < t->o.n; k++) {
            uint64_t bits;
            memcpy(&bits, &jobs[i].v[k], sizeof bits);
            check = tl_mix64(check ^ bits);
        }
    tl_fanout fo = {.n_jobs = n, .n_threads = n_threads, .run = run_job, .ctx = jobs,
                    .dist = n > 1 ? t->eng.dist : NULL, .pack = pack_job,
                    .unpack = unpack_job, .phase = "tune candidates", .check = check};
    return tl_fanout_run(&fo, NULL, err);
}

static double elephant_share(const tl_world *w)
{
    double tau = tl_params_get(&w->sc.params, "monitor.tau_bytes");
    size_t n = w->flows.n, n_e = 0;
    for (size_t i = 0; i < n; i++)
        n_e += (double)w->flows.v[i].size_bytes >= tau;
    return n ? (double)n_e / (double)n : 0.5;
}

tl_offline *tl_offline_create(const tl_world *w, const tl_offline_opts *o, uint64_t seed,
                              tl_err *err)
{
    if (o->n == 0 || o->n > MAX_KNOBS) {
        tl_err_set(err, TL_ERANGE, "tune: 1 to %d knobs, found %zu", MAX_KNOBS, o->n);
        return NULL;
    }
    if (o->anneal.batch < 1) {
        tl_err_set(err, TL_ERANGE, "tune.batch must be at least 1, found %d", o->anneal.batch);
        return NULL;
    }
    for (size_t i = 0; i < o->n; i++) {
        char why[512];
        if (!tl_engine_reads_knob(o->oracle, w, o->eng, o->knobs[i], w->sc.cc, why, sizeof why)) {
            tl_err_set(err, TL_EINVAL, "the oracle cannot tune %s: %s", o->knobs[i], why);
            snprintf(err->path, sizeof err->path, "--oracle %s", tl_engine_name(o->oracle));
            return NULL;
        }
    }
    tl_offline *t = calloc(1, sizeof *t);
    if (!t) {
        tl_err_nomem(err);
        return NULL;
    }
    t->w = w;
    t->o = *o;
    if (o->eng)
        t->eng = *o->eng;
    else
        tl_engine_opts_init(&t->eng);
    t->o.eng = &t->eng;
    t->eng_one = t->eng;
    t->eng_one.dist = NULL;
    t->knobs = malloc(o->n * sizeof *t->knobs);
    if (!t->knobs) {
        tl_err_nomem(err);
        tl_offline_destroy(t);
        return NULL;
    }
    memcpy(t->knobs, o->knobs, o->n * sizeof *o->knobs);
    t->o.knobs = t->knobs;
    t->search = tl_anneal_create_bounded(&o->anneal, o->knobs, o->n, o->lo, o->hi, &w->sc.params,
                                         seed, err);
    if (!t->search) {
        tl_offline_destroy(t);
        return NULL;
    }
    for (size_t i = 0; i < o->n; i++)
        t->start[i] = t->best[i] = tl_params_get(&w->sc.params, o->knobs[i]);
    t->p_elephant = elephant_share(w);
    t->est[0] = t->est[1] = t->truth[0] = t->truth[1] = NAN;
    t->is_best_start = 1;
    return t;
}

void tl_offline_destroy(tl_offline *t)
{
    if (!t)
        return;
    tl_anneal_destroy(t->search);
    for (int k = 0; k < 2; k++) {
        tl_summary_fini(&t->sum_est[k]);
        tl_summary_fini(&t->sum_truth[k]);
    }
    free(t->knobs);
    free(t->rows);
    free(t);
}

static int log_row(tl_offline *t, double temp, const job *j, double util, int is_acc)
{
    size_t w = 6 + t->o.n;
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? 2 * t->cap_rows : 256;
        double *p = realloc(t->rows, cap * w * sizeof *p);
        if (!p)
            return TL_ENOMEM;
        t->rows = p;
        t->cap_rows = cap;
    }
    double *row = t->rows + t->n_rows * w;
    row[0] = (double)t->n_rows;
    row[1] = temp;
    row[2] = j->obj;
    row[3] = util;
    row[4] = is_acc;
    row[5] = t->est[1];
    memcpy(row + 6, j->applied, t->o.n * sizeof *row);
    t->n_rows++;
    return 0;
}

int tl_offline_run(tl_offline *t, tl_progress *prog, tl_err *err)
{
    size_t n = t->o.n;
    int batch = t->o.anneal.batch;
    job *jobs = calloc((size_t)batch, sizeof *jobs);
    if (!jobs)
        return tl_err_nomem(err);
    for (int k = 0; k < batch; k++) {
        jobs[k].t = t;
        jobs[k].ops = t->o.oracle;
        jobs[k].eng = &t->eng;
    }
    /* the start, the reference every utility is measured against */
    memcpy(jobs[0].v, t->start, n * sizeof *jobs[0].v);
    int rc = run_jobs(t, jobs, 1, t->o.n_threads, err);
    if (!rc) {
        t->est[0] = t->est[1] = jobs[0].obj;
        t->sum_est[0] = jobs[0].sum;
        memset(&jobs[0].sum, 0, sizeof jobs[0].sum);
        if (!(t->est[0] > 0))
            rc = tl_err_set(err, TL_EINVAL, "the objective of the start is %g; it must be > 0",
                            t->est[0]);
        tl_anneal_set_start(t->search, 0); /* utilities are improvements over it */
    }
    /* the schedule's length, for progress */
    double total = 0;
    for (double T = t->o.anneal.t0; T > t->o.anneal.t_final; T *= t->o.anneal.cooling)
        total += t->o.anneal.iters_per_temp;
    int is_searching = 1;
    double done = 0;
    while (!rc && is_searching) {
        size_t m = (size_t)batch;
        if (total - done < (double)m)
            m = (size_t)(total - done);
        if (m == 0)
            m = 1;
        for (size_t k = 0; k < m; k++)
            tl_anneal_propose(t->search, t->p_elephant, jobs[k].v);
        if ((rc = run_jobs(t, jobs, m, t->o.n_threads, err)))
            break;
        for (size_t k = 0; k < m && is_searching; k++) {
            double temp = tl_anneal_temperature(t->search);
            /* a candidate a rule refused in part is judged as what ran */
            double util = 100 * (1 - jobs[k].obj / t->est[0]);
            int is_acc;
            is_searching = tl_anneal_judge(t->search, jobs[k].applied, util, &is_acc);
            if (jobs[k].obj < t->est[1]) {
                t->est[1] = jobs[k].obj;
                t->is_best_start = 0;
                tl_summary_fini(&t->sum_est[1]);
                t->sum_est[1] = jobs[k].sum;
                memset(&jobs[k].sum, 0, sizeof jobs[k].sum);
            }
            if ((rc = log_row(t, temp, &jobs[k], util, is_acc))) {
                tl_err_nomem(err);
                break;
            }
            done++;
        }
        for (size_t k = 0; k < m; k++)
            tl_summary_fini(&jobs[k].sum);
        tl_progress_report(prog, "tune", done, total, "candidates");
    }
    if (!rc)
        memcpy(t->best, tl_anneal_best(t->search, NULL), n * sizeof *t->best);
    for (int k = 0; k < batch; k++)
        tl_summary_fini(&jobs[k].sum);
    free(jobs);
    return rc;
}

int tl_offline_validate(tl_offline *t, tl_progress *prog, tl_err *err)
{
    tl_err_clear(err);
    const tl_engine_ops *pkt = tl_engine_find("pktsim", err);
    if (!pkt)
        return err->code;
    job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int k = 0; k < 2; k++) {
        jobs[k].t = t;
        jobs[k].ops = pkt;
        jobs[k].eng = NULL;
        memcpy(jobs[k].v, k ? t->best : t->start, t->o.n * sizeof *jobs[k].v);
    }
    tl_progress_report(prog, "validate", 0, 2, "pktsim runs");
    /* pktsim spreads over no ranks: with 2 or more, one run on each */
    int rc = run_jobs(t, jobs, 2, t->o.n_threads, err);
    for (int k = 0; k < 2; k++) {
        if (!rc) {
            t->truth[k] = jobs[k].obj;
            t->sum_truth[k] = jobs[k].sum;
        } else {
            tl_summary_fini(&jobs[k].sum);
        }
    }
    t->has_truth = !rc;
    tl_progress_report(prog, "validate", 2, 2, "pktsim runs");
    return rc;
}

const double *tl_offline_trajectory(const tl_offline *t, size_t *n_rows, size_t *width)
{
    *n_rows = t->n_rows;
    *width = 6 + t->o.n;
    return t->rows;
}

const double *tl_offline_best(const tl_offline *t, double est[2], double truth[2])
{
    if (est)
        est[0] = t->est[0], est[1] = t->est[1];
    if (truth)
        truth[0] = t->truth[0], truth[1] = t->truth[1];
    return t->best;
}

const tl_summary *tl_offline_summary(const tl_offline *t, int which, int is_truth)
{
    if (is_truth)
        return t->has_truth ? &t->sum_truth[which] : NULL;
    return which && !t->is_best_start ? &t->sum_est[1] : &t->sum_est[0];
}

/* One row of tune_validation.csv: a setting's statistics by one source. */
static void validation_row(FILE *f, const char *setting, const char *source, double obj,
                           const tl_summary *s)
{
    fprintf(f, "%s,%s,%.6g", setting, source, obj);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        fprintf(f, ",%.6g,%.6g,%.6g", s->all[b].mean, s->all[b].p[2], s->all[b].p[3]);
    fputc('\n', f);
}

int tl_offline_save(const tl_offline *t, const char *dir, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/tune_offline.csv", dir);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f, "candidate,temperature,objective,utility_pct,accepted,best_objective");
    for (size_t i = 0; i < t->o.n; i++)
        fprintf(f, ",%s", t->knobs[i]);
    fputc('\n', f);
    size_t w = 6 + t->o.n;
    for (size_t r = 0; r < t->n_rows; r++) {
        const double *row = t->rows + r * w;
        fprintf(f, "%.0f,%.6g,%.6g,%.4f,%.0f,%.6g", row[0], row[1], row[2], row[3], row[4],
                row[5]);
        for (size_t k = 6; k < w; k++)
            fprintf(f, ",%.10g", row[k]);
        fputc('\n', f);
    }
    int rc = tl_afile_commit(&af, err);
    snprintf(path, sizeof path, "%s/tune_setting.json", dir);
    if (!rc)
        rc = tl_setting_save(path, t->o.knobs, t->best, t->o.n, err);
    if (!rc && t->has_truth) {
        snprintf(path, sizeof path, "%s/tune_validation.csv", dir);
        if (!(f = tl_afile_open(&af, path, err)))
            return err->code;
        fprintf(f, "setting,source,objective");
        for (int b = 0; b < TL_N_BUCKETS; b++)
            fprintf(f, ",mean_%s,p99_%s,p99.9_%s", tl_bucket_names[b], tl_bucket_names[b],
                    tl_bucket_names[b]);
        fputc('\n', f);
        for (int k = 0; k < 2; k++) {
            const char *name = k ? "best" : "start";
            validation_row(f, name, tl_engine_name(t->o.oracle), t->est[k],
                           tl_offline_summary(t, k, 0));
            validation_row(f, name, "pktsim", t->truth[k], &t->sum_truth[k]);
        }
        rc = tl_afile_commit(&af, err);
    }
    if (rc)
        return rc;
    /* tune_offline.gp: the objective of every candidate and the best so far */
    snprintf(path, sizeof path, "%s/tune_offline.gp", dir);
    if (!(f = tl_afile_open(&af, path, err)))
        return err->code;
    fprintf(f, "# gnuplot script written by tailor tune --oracle (docs/paraleon.md)\n"
               "set terminal pngcairo size 1200,900 font ',10' noenhanced\n"
               "set output (ARGC > 0 ? ARG1 : 'tune_offline.png')\n"
               "set datafile separator ','\n"
               "set multiplot layout 2,1\nset grid; set key outside right\n"
               "set xlabel 'candidate'\n"
               "set title \"Objective %s by %s (lower is better)\"\n"
               "plot 'tune_offline.csv' using 1:3 with points pt 7 ps 0.5 title 'candidate', \\\n"
               "     '' using 1:6 with lines lw 2 title 'best so far'\n"
               "set title 'Knobs relative to their start'\n",
            t->o.obj.text, tl_engine_name(t->o.oracle));
    tl_setting_plot_knobs(f, "tune_offline.csv", 7, t->o.knobs, t->start, t->o.n);
    return tl_afile_commit(&af, err);
}
