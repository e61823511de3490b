/* tune: PARALEON (paraleon.txt). This header is its runtime monitor (§III-A/B,
 * docs/paraleon.md): an Elastic Sketch at every ToR of a pktsim run, each
 * flow's ternary state (elephant / potential elephant / mouse), the
 * network-wide flow-size distribution, the KL-divergence trigger and the
 * runtime metrics of Eq. (1), once per monitor interval. Baselines for
 * Fig. 10 (a naive Elastic Sketch, NetFlow) and the exact truth run beside
 * it on the same packets. */
#ifndef TAILOR_TUNE_H
#define TAILOR_TUNE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tailor/engine.h"
#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

/* The monitor's knobs ("monitor.*" in the parameter registry), at these
 * indices of tl_monitor_knobs. */
enum {
    TL_MON_INTERVAL, TL_MON_TAU, TL_MON_DELTA, TL_MON_THETA, TL_MON_W_TP, TL_MON_W_RTT,
    TL_MON_W_PFC, TL_MON_BUCKETS, TL_MON_SLOTS, TL_MON_LIGHT_BYTES, TL_MON_LIGHT_BITS,
    TL_MON_EVICT, TL_MON_IDLE, TL_MON_WARMUP, TL_MON_MIN_FLOWS, TL_MON_KL_SUCCESSIVE,
    TL_MON_LIGHT_MICE, TL_MON_RTT_ONEWAY, TL_MON_NETFLOW_RATE, TL_MON_NETFLOW_EXPORT,
    TL_MON_BASELINES, TL_MON_N_KNOBS
};
extern const tl_param_def tl_monitor_knobs[TL_MON_N_KNOBS];

/* One monitor interval's figures. p_* are elephant shares of the active
 * flows (the two-bin flow-size distribution: share >= tau, share < tau);
 * NAN where a scheme has nothing to say (NetFlow before its first export). */
typedef struct tl_monitor_row {
    int64_t t_ps;               /* end of the interval */
    double p_paraleon, p_naive, p_netflow, p_true;
    uint64_t n_flows;           /* PARALEON's active flows (heavy part + light-part mice) */
    uint64_t n_e, n_pe, n_m;    /* its states, over the heavy parts */
    double sum_w;               /* the potential elephants' likelihoods */
    double light_mice;          /* flows seen only in a light part (linear counting) */
    uint64_t n_true;            /* flows that sent data in the interval (exact) */
    double kl;                  /* KL(this || reference), NAN before the reference is set */
    double ref_p;               /* the reference's elephant share (when kl is set) */
    int is_trigger;             /* the KL trigger fired at the end of this interval */
    double o_tp, o_rtt, o_pfc, u; /* Eq. (1); NAN with no active uplink / NIC pair */
    uint32_t n_active_hosts, n_active_pairs;
} tl_monitor_row;

typedef struct tl_monitor tl_monitor;

/* Attaches a monitor to a pktsim run before it starts: the taps on every
 * switch with hosts (a ToR), a run-time control every monitor.interval_ps and
 * an RTT observer. Knobs from p (monitor.*), flow sizes (for the truth) from
 * f. Borrows t, f, p. */
tl_monitor *tl_monitor_attach(tl_pktsim *s, const tl_topo *t, const tl_flows *f,
                              const tl_params *p, tl_err *err);
void tl_monitor_destroy(tl_monitor *m);

/* The rows so far (one per complete interval; the partial one at the end of
 * the run is dropped). */
const tl_monitor_row *tl_monitor_rows(const tl_monitor *m, size_t *n);
/* Sets the reference distribution of the KL trigger to the last interval's
 * (what a tuner calls when a search settles). */
void tl_monitor_set_reference(tl_monitor *m);

/* The CSV files of docs/paraleon.md: monitor_fsd.csv, monitor_metrics.csv,
 * monitor_states.csv (per ToR and interval), monitor_triggers.csv, and
 * monitor.gp (gnuplot) under dir. Atomic per file. */
int tl_monitor_save(const tl_monitor *m, const char *dir, tl_err *err);
/* Mean over the rows after the warm-up of 1 - |p_scheme - p_true| (the
 * flow-size-distribution accuracy, docs/paraleon.md), per scheme. */
void tl_monitor_accuracy(const tl_monitor *m, double *paraleon, double *naive, double *netflow);

/* ---- the search (paraleon.txt §III-C, Algorithm 1; src/tune/anneal.c) ---- */

typedef struct tl_anneal_cfg {
    double t0, t_final, cooling; /* temperature schedule (Table III: 90, 10, 0.85) */
    int iters_per_temp;          /* settings tried per temperature (Table III: 20) */
    double eta;                  /* most a knob follows the dominant type (Table III: 0.8) */
    double step_frac;            /* s_p as a share of the knob's default (0.25) */
    int is_guided;               /* 1: PARALEON's guided moves; 0: naive SA (either way) */
    int batch;                   /* offline: candidates drawn per round, measured at once */
} tl_anneal_cfg;
void tl_anneal_cfg_default(tl_anneal_cfg *c);
/* The same from the knobs tune.* of p (registered, defaults Table III's). */
void tl_anneal_cfg_from(tl_anneal_cfg *c, const tl_params *p);
#define TL_TUNE_N_KNOBS 8
extern const tl_param_def tl_tune_knobs[TL_TUNE_N_KNOBS];

typedef struct tl_anneal tl_anneal;
/* A search over the n registered knobs named (each must have a throughput-
 * or delay-friendly direction), starting from their values in start.
 * ERANGE for a schedule that never ends. */
tl_anneal *tl_anneal_create(const tl_anneal_cfg *cfg, const char *const *knobs, size_t n,
                            const tl_params *start, uint64_t seed, tl_err *err);
/* The same with a search range per knob (lo[i], hi[i]) inside its
 * registered one (ERANGE otherwise); NULL: the registered ranges. */
tl_anneal *tl_anneal_create_bounded(const tl_anneal_cfg *cfg, const char *const *knobs, size_t n,
                                    const double *lo, const double *hi, const tl_params *start,
                                    uint64_t seed, tl_err *err);
void tl_anneal_destroy(tl_anneal *a);
/* Reports the utility measured with the setting handed out last (NAN: none
 * measured, e.g. the first call) and the elephant share of the active flows;
 * writes the next setting (n values, knob order) to next. Returns 1 while
 * searching, 0 once the schedule has ended (next is then the best). */
int tl_anneal_step(tl_anneal *a, double util, double p_elephant, double *next);
/* The same in two halves, for a caller that measures several candidates
 * at once (the offline tuner): propose writes a candidate moved from the
 * current solution (its own random draws; the schedule does not move);
 * judge reports a measured candidate (NAN: none measured), moves the
 * schedule one setting on, and returns 1 while searching, 0 once it has
 * ended. tl_anneal_step is judge(last candidate) then propose. */
void tl_anneal_propose(tl_anneal *a, double p_elephant, double *cand);
int tl_anneal_judge(tl_anneal *a, const double *cand, double util, int *is_accepted);
/* The utility of the start, when the caller has measured it (otherwise
 * the first candidate judged is accepted whatever it scores). */
void tl_anneal_set_start(tl_anneal *a, double util);
/* The best setting so far and its utility. */
const double *tl_anneal_best(const tl_anneal *a, double *best_util);
double tl_anneal_temperature(const tl_anneal *a);

/* ---- the closed loop (src/tune/tuner.c) ---- */

/* Table I's knobs, the expert's set (paraleon.txt): what --tune searches. */
extern const char *const tl_tune_table1_knobs[];
extern const size_t tl_tune_n_table1_knobs;

/* What runs the loop: PARALEON's search, or a baseline controller
 * (src/tune/baseline.c; docs/paraleon.md "Baselines"). */
enum { TL_TUNE_PARALEON, TL_TUNE_ACC, TL_TUNE_DCQCN_PLUS };
/* "paraleon" and "naive" (the search; tune.guided tells them apart), "acc",
 * "dcqcn-plus"; -1 for another name. */
int tl_tune_scheme_find(const char *name);
/* The knobs a baseline moves (3): ACC-like Kmin, Kmax, Pmax; DCQCN+-like
 * the AI and HAI steps and the rate-increase timer. */
const char *const *tl_baseline_knobs(int scheme, size_t *n);
/* The network's signals in the interval that just ended. */
typedef struct tl_baseline_signals {
    double o_tp, o_rtt; /* the monitor's (Eq. 1), NAN when not measured */
    double incast;      /* CNP-receiving flows per marking port (0: none) */
} tl_baseline_signals;
/* A baseline's next values (3) from the starting and current ones. */
void tl_baseline_next(int scheme, const tl_baseline_signals *sig, const double *start,
                      const double *cur, double *next);

typedef struct tl_tuner tl_tuner;
/* Tunes the n knobs (names borrowed) of pktsim run s by PARALEON's loop over
 * monitor m (attached first), starting from their values in p. */
tl_tuner *tl_tuner_attach(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                          const tl_params *p, const tl_anneal_cfg *cfg, uint64_t seed,
                          tl_err *err);
/* The same with search ranges (lo, hi: n values each, or NULL). */
tl_tuner *tl_tuner_attach_bounded(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                                  const double *lo, const double *hi, const tl_params *p,
                                  const tl_anneal_cfg *cfg, uint64_t seed, tl_err *err);
/* A baseline controller (TL_TUNE_ACC, TL_TUNE_DCQCN_PLUS) in the loop's
 * place: every interval from the first, its own knobs; the same files. */
tl_tuner *tl_tuner_attach_baseline(tl_pktsim *s, tl_monitor *m, int scheme, const tl_topo *t,
                                   const tl_params *p, tl_err *err);
void tl_tuner_destroy(tl_tuner *t);
/* Per interval: t_ms, state (0 idle, 1 searching), U, temperature, elephant
 * share, then the n knob values in force; *width = 5 + n. */
const double *tl_tuner_trajectory(const tl_tuner *t, size_t *n_rows, size_t *width);
/* The values in force now, how many searches ran and how many dispatched
 * values a rule refused (they kept their old value). */
const tl_params *tl_tuner_setting(const tl_tuner *t, int *n_searches, uint64_t *n_refused);
/* tune_trajectory.csv and tune_setting.json under dir. */
int tl_tuner_save(const tl_tuner *t, const char *dir, tl_err *err);

/* ---- settings (src/tune/setting.c) ---- */

/* The most knobs a tuner searches or a setting holds. */
#define TL_TUNE_MAX_KNOBS 64

/* Sets values[i] on knobs[i] through set (in order); a value set refuses
 * (a rule between knobs: Kmax below Kmin) is tried again once the others
 * are set, and otherwise keeps the value in force. Writes the values in
 * force to applied; returns how many were refused. */
typedef int (*tl_setting_fn)(void *ctx, const char *knob, double value, tl_err *err);
int tl_setting_apply(const char *const *knobs, const double *values, size_t n, tl_setting_fn set,
                     void *ctx, const double *old, double *applied);
/* A setter for tl_setting_apply on a tl_params (ctx) under pktsim's rules
 * between knobs (tl_pktsim_check_params). */
int tl_setting_set_params(void *ctx, const char *knob, double value, tl_err *err);
/* Writes a preset file ({"transport": {"group": {"knob": value}}}, what
 * `--preset-file` reads) of the n knobs and values, atomically. */
int tl_setting_save(const char *path, const char *const *knobs, const double *values, size_t n,
                    tl_err *err);

/* The last panel of a tuner's gnuplot script (tune.gp, tune_offline.gp):
 * each knob's column of csv (from first_col, 1-based) over its reference
 * value (ref NULL or 0: as is) on a log scale; ends the multiplot. */
void tl_setting_plot_knobs(FILE *f, const char *csv, size_t first_col, const char *const *knobs,
                           const double *ref, size_t n);

/* ---- the offline tuner's objective (src/tune/objective.c) ---- */

#define TL_OBJ_MAX_TERMS 8
#define TL_OBJECTIVE_DEFAULT "p99@0-1KB,mean@50KB+"
/* A weighted sum of FCT-slowdown statistics per size bucket, lower better:
 * "STAT@BUCKET[:WEIGHT],..." with STAT mean, p50, p90, p99 or p99.9 and
 * BUCKET one of tl_bucket_names; without weights the terms count equally,
 * with them every term has one and they sum to 1. */
typedef struct tl_objective {
    int n;
    int stat[TL_OBJ_MAX_TERMS];   /* 0 mean, 1.. tl_pcts[stat - 1] */
    int bucket[TL_OBJ_MAX_TERMS]; /* index into tl_bucket_names */
    double w[TL_OBJ_MAX_TERMS];
    char text[256];
} tl_objective;
/* TL_EPARSE with err->path "--objective SPEC" and the term at fault. */
int tl_objective_parse(tl_objective *o, const char *spec, tl_err *err);
/* The objective of a summary; NAN and TL_EINVAL for a term whose bucket has
 * no finished flow. */
double tl_objective_eval(const tl_objective *o, const tl_summary *s, tl_err *err);
const char *tl_objective_stat_name(int stat); /* "mean", "p50", ... */

/* ---- offline tuning with an estimator as oracle (src/tune/offline.c) ---- */

typedef struct tl_offline_opts {
    const tl_engine_ops *oracle;
    const tl_engine_opts *eng; /* the oracle's options (NULL: none); borrowed */
    const char *const *knobs;  /* (n) searched knobs; borrowed */
    size_t n;
    const double *lo, *hi;     /* (n) their search ranges; NULL: the registered ones */
    tl_objective obj;
    tl_anneal_cfg anneal;
    int n_threads; /* workers for a round's candidates (<= 0: all cores) */
} tl_offline_opts;

typedef struct tl_offline tl_offline;
/* Checks before any simulation that the oracle reads every knob
 * (tl_engine_reads_knob: TL_EINVAL naming the knob and why) and that the
 * schedule ends. Borrows w (its parameters are the starting setting). */
tl_offline *tl_offline_create(const tl_world *w, const tl_offline_opts *o, uint64_t seed,
                              tl_err *err);
void tl_offline_destroy(tl_offline *t);
/* Measures the start, then searches: each round draws anneal.batch
 * candidates from the current setting, has the oracle estimate them at
 * once, and judges them in order. The utility of a candidate is the
 * objective's improvement over the start in percent, 100 (1 - obj/obj0). */
int tl_offline_run(tl_offline *t, tl_progress *prog, tl_err *err);
/* Runs pktsim under the start and the best setting (at once): the truth
 * the estimates are checked against. */
int tl_offline_validate(tl_offline *t, tl_progress *prog, tl_err *err);
/* Per candidate: index, temperature, objective (NAN: a rule refused it),
 * utility, accepted (0/1), best objective so far, then the n knob values;
 * *width = 6 + n. */
const double *tl_offline_trajectory(const tl_offline *t, size_t *n_rows, size_t *width);
/* The best setting (n values) and the objective of start and best by the
 * oracle and (after validate; else NAN) by pktsim. */
const double *tl_offline_best(const tl_offline *t, double est[2], double truth[2]);
/* The summaries behind those: which 0 start, 1 best; is_truth 0 the
 * oracle's, 1 pktsim's (NULL before validate). */
const tl_summary *tl_offline_summary(const tl_offline *t, int which, int is_truth);
/* tune_offline.csv (the trajectory), tune_setting.json (the best as a
 * preset file), tune_validation.csv (after validate) and tune_offline.gp
 * under dir. */
int tl_offline_save(const tl_offline *t, const char *dir, tl_err *err);

#endif
