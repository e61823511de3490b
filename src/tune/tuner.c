/* PARALEON's closed loop (paraleon.txt §III, Algorithm 1) inside a pktsim
 * run: a run-time control every monitor interval, set after the monitor's,
 * reads the interval the monitor has just closed. Idle until the monitor
 * first decides (after its warm-up) or its KL trigger fires; then each
 * interval hands the search the utility measured with the setting it
 * dispatched one interval before, and dispatches the next setting to every
 * NIC and switch (tl_pktsim_set_param: from this instant on). When the
 * schedule ends the best setting is dispatched, the monitor's reference is
 * set to the distribution it settled on, and the loop is idle again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"

#include "monitor_int.h"
#include "tailor/tune.h"

enum { IDLE, SEARCHING, CONTROL };

const char *const tl_tune_table1_knobs[] = {
    "dcqcn.ai_rate_bps",         "dcqcn.hai_rate_bps",         "dcqcn.rate_reduce_monitor_period_ps",
    "dcqcn.min_time_between_cnps_ps", "switch.kmin_bytes_per_gbps", "switch.kmax_bytes_per_gbps",
    "switch.pmax",
};
const size_t tl_tune_n_table1_knobs = sizeof tl_tune_table1_knobs / sizeof *tl_tune_table1_knobs;

struct tl_tuner {
    tl_pktsim *sim;
    tl_monitor *mon;
    const char **knobs; /* borrowed names */
    size_t n;
    tl_anneal_cfg cfg;
    uint64_t seed;
    tl_params cur; /* the values dispatched */
    tl_anneal *search;
    int state, n_searches, is_first_done;
    double *next;
    /* trajectory: per interval t_ms, state, util, temperature, p_e, n values */
    double *rows;
    size_t n_rows, cap_rows;
    uint64_t n_refused;
    double *lo, *hi; /* search ranges (NULL: the registered ones) */
    /* a baseline controller (scheme != TL_TUNE_PARALEON) */
    int scheme;
    const tl_topo *topo;
    double start[3];
    uint64_t prev_cnps, *prev_marks; /* per channel */
};

static int set_sim(void *ctx, const char *knob, double value, tl_err *err)
{
    return tl_pktsim_set_param(ctx, knob, value, err);
}

static int dispatch(tl_tuner *t, const double *v)
{
    double old[TL_TUNE_MAX_KNOBS], now[TL_TUNE_MAX_KNOBS];
    for (size_t i = 0; i < t->n; i++)
        old[i] = tl_params_get(&t->cur, t->knobs[i]);
    t->n_refused += (uint64_t)tl_setting_apply(t->knobs, v, t->n, set_sim, t->sim, old, now);
    for (size_t i = 0; i < t->n; i++)
        tl_params_set(&t->cur, t->knobs[i], now[i], NULL);
    return 0;
}

static int log_row(tl_tuner *t, const tl_monitor_row *r)
{
    size_t w = 5 + t->n;
    if (t->n_rows == t->cap_rows) {
        size_t cap = t->cap_rows ? 2 * t->cap_rows : 256;
        double *p = realloc(t->rows, cap * w * sizeof *p);
        if (!p)
            return TL_ENOMEM;
        t->rows = p;
        t->cap_rows = cap;
    }
    double *row = t->rows + t->n_rows++ * w;
    row[0] = (double)r->t_ps * 1e-9;
    row[1] = t->state;
    row[2] = r->u;
    row[3] = t->search ? tl_anneal_temperature(t->search) : NAN;
    row[4] = r->p_paraleon;
    for (size_t i = 0; i < t->n; i++)
        row[5 + i] = tl_params_get(&t->cur, t->knobs[i]);
    return 0;
}

/* The interval's signals for a baseline: the monitor's terms, and the CNP-
 * receiving flows per marking port (CNPs x the CNP interval / the interval
 * is how many flows were notified throughout it). */
static void signals(tl_tuner *t, const tl_monitor_row *r, tl_baseline_signals *sig)
{
    sig->o_tp = r->o_tp;
    sig->o_rtt = r->o_rtt;
    tl_pktsim_stats st;
    tl_pktsim_get_stats(t->sim, &st);
    uint32_t n_marking = 0;
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(t->topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(t->sim, c, &ps);
        n_marking += ps.marks > t->prev_marks[c];
        t->prev_marks[c] = ps.marks;
    }
    double cnp_ps = tl_params_get(&t->cur, "dcqcn.min_time_between_cnps_ps");
    double flows = (double)(st.n_cnps - t->prev_cnps) * fmax(cnp_ps, 1) /
                   (double)t->mon->interval_ps;
    t->prev_cnps = st.n_cnps;
    sig->incast = n_marking ? flows / n_marking : 0;
}

static int step_baseline(tl_tuner *t, const tl_monitor_row *r)
{
    tl_baseline_signals sig;
    signals(t, r, &sig);
    double cur[3];
    for (size_t i = 0; i < 3; i++)
        cur[i] = tl_params_get(&t->cur, t->knobs[i]);
    tl_baseline_next(t->scheme, &sig, t->start, cur, t->next);
    for (size_t i = 0; i < 3; i++) { /* inside the registry's ranges */
        const tl_param_def *d = tl_params_def((size_t)tl_params_find(t->knobs[i]));
        t->next[i] = fmin(d->max, fmax(d->min, t->next[i]));
    }
    int rc = dispatch(t, t->next);
    return rc ? rc : log_row(t, r);
}

static int step(void *ctx, tl_pktsim *s, int64_t now)
{
    tl_tuner *t = ctx;
    size_t nr;
    const tl_monitor_row *rows = tl_monitor_rows(t->mon, &nr);
    if (!nr || rows[nr - 1].t_ps != now)
        return 0; /* the monitor closed no interval now */
    const tl_monitor_row *r = &rows[nr - 1];
    if (t->scheme != TL_TUNE_PARALEON)
        return step_baseline(t, r);
    int rc = 0;
    if (t->state == IDLE && (r->is_trigger || (!t->is_first_done && !isnan(t->mon->ref_p)))) {
        tl_err err;
        tl_err_clear(&err);
        t->search = tl_anneal_create_bounded(&t->cfg, t->knobs, t->n, t->lo, t->hi, &t->cur,
                                             t->seed + (uint64_t)t->n_searches, &err);
        if (!t->search)
            return err.code;
        t->state = SEARCHING;
        t->is_first_done = 1;
        t->n_searches++;
        tl_anneal_step(t->search, NAN, r->p_paraleon, t->next);
        rc = dispatch(t, t->next);
    } else if (t->state == SEARCHING) {
        double u = isnan(r->u) ? 0 : r->u; /* an idle interval scores nothing */
        if (tl_anneal_step(t->search, u, r->p_paraleon, t->next)) {
            rc = dispatch(t, t->next);
        } else {
            rc = dispatch(t, t->next); /* the best */
            tl_anneal_destroy(t->search);
            t->search = NULL;
            t->state = IDLE;
            tl_monitor_set_reference(t->mon);
        }
    }
    return rc ? rc : log_row(t, r);
}

tl_tuner *tl_tuner_attach(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                          const tl_params *p, const tl_anneal_cfg *cfg, uint64_t seed,
                          tl_err *err)
{
    return tl_tuner_attach_bounded(s, m, knobs, n, NULL, NULL, p, cfg, seed, err);
}

/* A tuner of the n knobs (names borrowed) starting from p; the caller
 * finishes it and attaches it (attach). */
static tl_tuner *tuner_new(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                           const tl_params *p, tl_err *err)
{
    if (n == 0 || n > TL_TUNE_MAX_KNOBS) {
        tl_err_set(err, TL_ERANGE, "tune: 1 to %d knobs, found %zu", TL_TUNE_MAX_KNOBS, n);
        return NULL;
    }
    tl_tuner *t = calloc(1, sizeof *t);
    if (!t) {
        tl_err_nomem(err);
        return NULL;
    }
    t->sim = s;
    t->mon = m;
    t->n = n;
    t->knobs = malloc(n * sizeof *t->knobs);
    t->next = malloc(n * sizeof *t->next);
    if (!t->knobs || !t->next ? tl_err_nomem(err) : tl_params_copy(&t->cur, p, err)) {
        tl_tuner_destroy(t);
        return NULL;
    }
    memcpy(t->knobs, knobs, n * sizeof *knobs);
    return t;
}

/* Sets t's control every monitor interval, after the monitor's (rc: an
 * error so far); destroys t on any error. */
static tl_tuner *attach(tl_tuner *t, int rc, tl_err *err)
{
    if (!rc)
        rc = tl_pktsim_set_control(t->sim, t->mon->interval_ps, step, t, err);
    if (rc) {
        tl_tuner_destroy(t);
        return NULL;
    }
    return t;
}

tl_tuner *tl_tuner_attach_bounded(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                                  const double *lo, const double *hi, const tl_params *p,
                                  const tl_anneal_cfg *cfg, uint64_t seed, tl_err *err)
{
    tl_tuner *t = tuner_new(s, m, knobs, n, p, err);
    if (!t)
        return NULL;
    t->cfg = *cfg;
    t->seed = seed;
    int rc = 0;
    if (lo && hi) {
        t->lo = malloc(n * sizeof *t->lo);
        t->hi = malloc(n * sizeof *t->hi);
        if (!t->lo || !t->hi)
            rc = tl_err_nomem(err);
        else
            memcpy(t->lo, lo, n * sizeof *lo), memcpy(t->hi, hi, n * sizeof *hi);
    }
    if (!rc) { /* the search refuses knobs it cannot move: find out before the run */
        tl_anneal *probe = tl_anneal_create_bounded(cfg, knobs, n, lo, hi, p, seed, err);
        rc = probe ? 0 : err->code;
        tl_anneal_destroy(probe);
    }
    return attach(t, rc, err);
}

tl_tuner *tl_tuner_attach_baseline(tl_pktsim *s, tl_monitor *m, int scheme, const tl_topo *topo,
                                   const tl_params *p, tl_err *err)
{
    if (scheme != TL_TUNE_ACC && scheme != TL_TUNE_DCQCN_PLUS) {
        tl_err_set(err, TL_EINVAL, "tune: no baseline controller %d", scheme);
        return NULL;
    }
    size_t n;
    const char *const *knobs = tl_baseline_knobs(scheme, &n);
    tl_tuner *t = tuner_new(s, m, knobs, n, p, err);
    if (!t)
        return NULL;
    t->scheme = scheme;
    t->topo = topo;
    t->state = CONTROL;
    t->prev_marks = calloc(2 * (size_t)tl_topo_n_links(topo) + 1, sizeof *t->prev_marks);
    int rc = t->prev_marks ? 0 : tl_err_nomem(err);
    for (size_t i = 0; i < n; i++)
        t->start[i] = tl_params_get(p, knobs[i]);
    return attach(t, rc, err);
}

void tl_tuner_destroy(tl_tuner *t)
{
    if (!t)
        return;
    free(t->prev_marks);
    free(t->lo);
    free(t->hi);
    tl_anneal_destroy(t->search);
    if (t->cur.v)
        tl_params_fini(&t->cur);
    free(t->knobs);
    free(t->next);
    free(t->rows);
    free(t);
}

const double *tl_tuner_trajectory(const tl_tuner *t, size_t *n_rows, size_t *width)
{
    *n_rows = t->n_rows;
    *width = 5 + t->n;
    return t->rows;
}

const tl_params *tl_tuner_setting(const tl_tuner *t, int *n_searches, uint64_t *n_refused)
{
    if (n_searches)
        *n_searches = t->n_searches;
    if (n_refused)
        *n_refused = t->n_refused;
    return &t->cur;
}

/* tune_trajectory.csv (one row per monitor interval) and tune_setting.json
 * (the setting the loop ended on, as a scenario's "transport" block). */
int tl_tuner_save(const tl_tuner *t, const char *dir, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/tune_trajectory.csv", dir);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f, "t_ms,state,u,temperature,p_elephant");
    for (size_t i = 0; i < t->n; i++)
        fprintf(f, ",%s", t->knobs[i]);
    fputc('\n', f);
    size_t w = 5 + t->n;
    for (size_t r = 0; r < t->n_rows; r++) {
        const double *row = t->rows + r * w;
        fprintf(f, "%.3f,%s", row[0],
                row[1] == SEARCHING ? "search" : row[1] == CONTROL ? "control" : "idle");
        for (size_t k = 2; k < w; k++) {
            fputc(',', f);
            if (!isnan(row[k]))
                fprintf(f, "%.10g", row[k]);
        }
        fputc('\n', f);
    }
    int rc = tl_afile_commit(&af, err);
    if (rc)
        return rc;
    double v[TL_TUNE_MAX_KNOBS];
    for (size_t i = 0; i < t->n; i++)
        v[i] = tl_params_get(&t->cur, t->knobs[i]);
    snprintf(path, sizeof path, "%s/tune_setting.json", dir);
    if ((rc = tl_setting_save(path, t->knobs, v, t->n, err)))
        return rc;
    /* tune.gp: U over time, and each knob relative to its starting value */
    snprintf(path, sizeof path, "%s/tune.gp", dir);
    if (!(f = tl_afile_open(&af, path, err)))
        return err->code;
    fprintf(f, "# gnuplot script written by tailor run --tune (docs/paraleon.md)\n"
               "set terminal pngcairo size 1200,900 font ',10' noenhanced\n"
               "set output (ARGC > 0 ? ARG1 : 'tune.png')\n"
               "set datafile separator ','\nset datafile missing ''\n"
               "set multiplot layout 2,1\nset grid; set key outside right\n"
               "set xlabel 'simulated time (ms)'\n"
               "set title 'Utility U (paraleon.txt Eq. 1) under the setting in force'\n"
               "plot 'tune_trajectory.csv' using 1:3 with lines lw 2 title 'U'\n"
               "set title 'Knobs relative to their first value'\n");
    tl_setting_plot_knobs(f, "tune_trajectory.csv", 6, t->knobs, t->n_rows ? t->rows + 5 : NULL,
                          t->n);
    return tl_afile_commit(&af, err);
}
