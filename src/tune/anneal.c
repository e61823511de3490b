/* PARALEON's simulated annealing (paraleon.txt §III-C, Algorithm 1), pure:
 * the caller measures the utility of each setting it is handed and reports
 * it with the network's elephant share; the search answers with the next
 * setting. Knobs move from the current solution (the last accepted one):
 *   - guided (PARALEON): each knob moves in the dominant flow type's
 *     friendly direction (elephants: throughput-friendly; mice: delay-
 *     friendly, from the registry's direction) with probability
 *     min(mu, eta), mu the dominant type's share, else the other way;
 *   - naive: each knob moves either way with probability 1/2.
 * Every move is s_p x rand(0.5, 1), s_p = anneal step fraction x the knob's
 * scale (its default, or a thousandth of its range when the default is 0;
 * 1 for flags and small integers), rounded (integer knobs to an integer,
 * others to 6 significant digits) and clamped to the knob's search range
 * (its registered one unless the caller bounds it). Acceptance is
 * Metropolis on the utility at the temperature, which falls by the cooling
 * rate every iters_per_temp settings until it is at or below the final
 * one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/rng.h"
#include "tailor/tune.h"

struct tl_anneal {
    tl_anneal_cfg cfg;
    size_t n;
    int *idx;      /* registry indices of the searched knobs */
    double *lo, *hi, *step, *cur, *cand, *best;
    int *is_int, *up_tp; /* raising favours throughput (1) or low delay (0) */
    double cur_util, best_util, temp;
    int iter, is_done;
    tl_rng rng;
};

enum { T0, T_FINAL, COOLING, ITERS, ETA, STEP, GUIDED, BATCH, N_KNOBS };
const tl_param_def tl_tune_knobs[TL_TUNE_N_KNOBS] = {
    [T0] = {"tune.t0", TL_UNIT_NONE, 90, 1e-9, 1e9, 0, TL_DIR_NEUTRAL,
            "Initial temperature of the annealing (paraleon.txt Table III: 90)."},
    [T_FINAL] = {"tune.t_final", TL_UNIT_NONE, 10, 0, 1e9, 0, TL_DIR_NEUTRAL,
                 "The search ends once the temperature is at or below this (Table III: 10)."},
    [COOLING] = {"tune.cooling", TL_UNIT_NONE, 0.85, 0, 1, 0, TL_DIR_NEUTRAL,
                 "The temperature is multiplied by this after each round (Table III: 0.85)."},
    [ITERS] = {"tune.iters_per_temp", TL_UNIT_NONE, 20, 0, 1e6, 1, TL_DIR_NEUTRAL,
               "Settings tried, one per monitor interval, at each temperature (Table III: 20)."},
    [ETA] = {"tune.eta", TL_UNIT_FRAC, 0.8, 0, 1, 0, TL_DIR_NEUTRAL,
             "Most a knob follows the dominant flow type's direction (Table III: 0.8)."},
    [STEP] = {"tune.step_frac", TL_UNIT_NONE, 0.25, 1e-6, 100, 0, TL_DIR_NEUTRAL,
              "A knob's step s_p as a share of its default (a thousandth of its range when the "
              "default is 0)."},
    [GUIDED] = {"tune.guided", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                "1: PARALEON's guided moves; 0: naive SA, either way with probability 1/2 (the "
                "ablation of Fig. 12)."},
    [BATCH] = {"tune.batch", TL_UNIT_NONE, 4, 1, 64, 1, TL_DIR_NEUTRAL,
               "Offline tuning (tailor tune --oracle): candidates drawn from the current setting "
               "per round and estimated at once, then judged in order (1: plain SA). Not the "
               "thread count, so results do not depend on it."},
};
_Static_assert(N_KNOBS == TL_TUNE_N_KNOBS, "tailor/tune.h declares the table's size");

void tl_anneal_cfg_default(tl_anneal_cfg *c)
{
    /* paraleon.txt Table III */
    c->t0 = 90;
    c->t_final = 10;
    c->cooling = 0.85;
    c->iters_per_temp = 20;
    c->eta = 0.8;
    c->step_frac = 0.25;
    c->is_guided = 1;
    c->batch = 4;
}

void tl_anneal_cfg_from(tl_anneal_cfg *c, const tl_params *p)
{
    const double *k = tl_params_table(p, tl_tune_knobs);
    c->t0 = k[T0];
    c->t_final = k[T_FINAL];
    c->cooling = k[COOLING];
    c->iters_per_temp = (int)k[ITERS];
    c->eta = k[ETA];
    c->step_frac = k[STEP];
    c->is_guided = k[GUIDED] != 0;
    c->batch = (int)k[BATCH];
}

void tl_anneal_destroy(tl_anneal *a)
{
    if (!a)
        return;
    free(a->idx), free(a->lo), free(a->hi), free(a->step), free(a->cur), free(a->cand);
    free(a->best), free(a->is_int), free(a->up_tp);
    free(a);
}

tl_anneal *tl_anneal_create(const tl_anneal_cfg *cfg, const char *const *knobs, size_t n,
                            const tl_params *start, uint64_t seed, tl_err *err)
{
    return tl_anneal_create_bounded(cfg, knobs, n, NULL, NULL, start, seed, err);
}

tl_anneal *tl_anneal_create_bounded(const tl_anneal_cfg *cfg, const char *const *knobs, size_t n,
                                    const double *lo, const double *hi, const tl_params *start,
                                    uint64_t seed, tl_err *err)
{
    if (!(cfg->t0 > cfg->t_final && cfg->t_final > 0 && cfg->cooling > 0 && cfg->cooling < 1 &&
          cfg->iters_per_temp > 0)) {
        tl_err_set(err, TL_ERANGE,
                   "tune: the temperature must fall from tune.t0 %g to tune.t_final %g > 0 by "
                   "tune.cooling in (0, 1) (found %g) with tune.iters_per_temp >= 1 (found %d): "
                   "otherwise the search never ends",
                   cfg->t0, cfg->t_final, cfg->cooling, cfg->iters_per_temp);
        return NULL;
    }
    if (!(cfg->eta >= 0 && cfg->eta <= 1 && cfg->step_frac > 0)) {
        tl_err_set(err, TL_ERANGE, "anneal: eta must be in [0, 1] and the step fraction > 0, "
                                   "found %g and %g",
                   cfg->eta, cfg->step_frac);
        return NULL;
    }
    tl_anneal *a = calloc(1, sizeof *a);
    if (!a) {
        tl_err_nomem(err);
        return NULL;
    }
    a->cfg = *cfg;
    a->n = n;
    size_t m = n ? n : 1;
    a->idx = calloc(m, sizeof *a->idx);
    a->is_int = calloc(m, sizeof *a->is_int);
    a->up_tp = calloc(m, sizeof *a->up_tp);
    double **arr[] = {&a->lo, &a->hi, &a->step, &a->cur, &a->cand, &a->best};
    for (size_t k = 0; k < sizeof arr / sizeof *arr; k++)
        *arr[k] = calloc(m, sizeof(double));
    if (!a->idx || !a->is_int || !a->up_tp || !a->best || !a->cand || !a->cur || !a->step ||
        !a->hi || !a->lo) {
        tl_anneal_destroy(a);
        tl_err_nomem(err);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        int id = tl_params_find(knobs[i]);
        const tl_param_def *d = id >= 0 ? tl_params_def((size_t)id) : NULL;
        if (!d || d->dir == TL_DIR_NEUTRAL) {
            if (!d)
                tl_err_set(err, TL_EINVAL, "anneal: unknown knob '%s'", knobs[i]);
            else
                tl_err_set(err, TL_EINVAL,
                           "anneal: knob '%s' has no throughput- or delay-friendly direction in "
                           "the registry, so a guided search cannot move it",
                           knobs[i]);
            tl_anneal_destroy(a);
            return NULL;
        }
        a->idx[i] = id;
        a->lo[i] = lo ? lo[i] : d->min;
        a->hi[i] = hi ? hi[i] : d->max;
        if (!(a->lo[i] >= d->min && a->hi[i] <= d->max && a->lo[i] <= a->hi[i])) {
            tl_err_set(err, TL_ERANGE,
                       "anneal: the search range of '%s', [%g, %g], must lie inside its registered "
                       "range [%g, %g] with the low end first",
                       knobs[i], a->lo[i], a->hi[i], d->min, d->max);
            tl_anneal_destroy(a);
            return NULL;
        }
        a->is_int[i] = d->is_integer;
        a->up_tp[i] = d->dir == TL_DIR_UP_THROUGHPUT;
        double scale = fabs(d->def) > 0 ? fabs(d->def) : (d->max - d->min) * 1e-3;
        a->step[i] = cfg->step_frac * scale;
        if (d->is_integer && a->step[i] < 1)
            a->step[i] = 1;
        a->cur[i] = a->cand[i] = a->best[i] = tl_params_get(start, d->name);
    }
    a->temp = cfg->t0;
    a->cur_util = a->best_util = -INFINITY;
    tl_rng_init(&a->rng, seed, "anneal", 0);
    return a;
}

/* v to 6 significant digits: a setting reads as an operator would write
 * it, and a preset file (%.10g) holds it exactly. */
static double round_sig(double v)
{
    if (v == 0 || !isfinite(v))
        return v;
    /* exact powers of ten either way, so the quotient or product is the
     * double nearest the decimal, as strtod reads it */
    double e = 5 - floor(log10(fabs(v)));
    if (e >= 0) {
        double scale = pow(10, e);
        return round(v * scale) / scale;
    }
    double unit = pow(10, -e);
    return round(v / unit) * unit;
}

/* The next candidate, moved from the current solution. */
static void mutate(tl_anneal *a, double p_elephant)
{
    int is_tp = p_elephant >= 0.5; /* the dominant flow type */
    double mu = is_tp ? p_elephant : 1 - p_elephant;
    double p_dom = a->cfg.is_guided ? fmin(mu, a->cfg.eta) : 0.5;
    for (size_t i = 0; i < a->n; i++) {
        double s = a->step[i] * (0.5 + 0.5 * tl_rng_uniform(&a->rng));
        int is_dom = tl_rng_uniform(&a->rng) < p_dom;
        int is_toward_tp = is_dom ? is_tp : !is_tp;
        int is_up = is_toward_tp == a->up_tp[i];
        double v = a->cur[i] + (is_up ? s : -s);
        if (a->is_int[i])
            v = is_up ? ceil(v) : floor(v);
        else
            v = round_sig(v);
        a->cand[i] = fmin(a->hi[i], fmax(a->lo[i], v));
    }
}

int tl_anneal_judge(tl_anneal *a, const double *cand, double util, int *is_accepted)
{
    if (is_accepted)
        *is_accepted = 0;
    if (a->is_done)
        return 0;
    /* Algorithm 1, lines 5-13: Metropolis on the measured candidate */
    if (!isnan(util)) {
        double r = tl_rng_uniform(&a->rng);
        if (util > a->cur_util || exp((util - a->cur_util) / a->temp) > r) {
            a->cur_util = util;
            memcpy(a->cur, cand, a->n * sizeof *a->cur);
            if (is_accepted)
                *is_accepted = 1;
        }
        if (a->cur_util > a->best_util) {
            a->best_util = a->cur_util;
            memcpy(a->best, a->cur, a->n * sizeof *a->best);
        }
    }
    if (++a->iter >= a->cfg.iters_per_temp) { /* line 25 */
        a->iter = 0;
        a->temp *= a->cfg.cooling;
        if (a->temp <= a->cfg.t_final)
            a->is_done = 1;
    }
    return !a->is_done;
}

void tl_anneal_propose(tl_anneal *a, double p_elephant, double *cand)
{
    mutate(a, isnan(p_elephant) ? 0.5 : p_elephant); /* lines 14-22 */
    memcpy(cand, a->cand, a->n * sizeof *cand);
}

int tl_anneal_step(tl_anneal *a, double util, double p_elephant, double *next)
{
    if (!a->is_done)
        tl_anneal_judge(a, a->cand, util, NULL);
    if (a->is_done) {
        memcpy(next, a->best, a->n * sizeof *next);
        return 0;
    }
    tl_anneal_propose(a, p_elephant, next);
    return 1;
}

void tl_anneal_set_start(tl_anneal *a, double util)
{
    a->cur_util = a->best_util = util;
}

const double *tl_anneal_best(const tl_anneal *a, double *best_util)
{
    if (best_util)
        *best_util = a->best_util;
    return a->best;
}

double tl_anneal_temperature(const tl_anneal *a) { return a->temp; }
