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

#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/pktsim.h"
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
} tl_anneal_cfg;
void tl_anneal_cfg_default(tl_anneal_cfg *c);
/* The same from the knobs tune.* of p (registered, defaults Table III's). */
void tl_anneal_cfg_from(tl_anneal_cfg *c, const tl_params *p);
#define TL_TUNE_N_KNOBS 7
extern const tl_param_def tl_tune_knobs[TL_TUNE_N_KNOBS];

typedef struct tl_anneal tl_anneal;
/* A search over the n registered knobs named (each must have a throughput-
 * or delay-friendly direction), starting from their values in start.
 * ERANGE for a schedule that never ends. */
tl_anneal *tl_anneal_create(const tl_anneal_cfg *cfg, const char *const *knobs, size_t n,
                            const tl_params *start, uint64_t seed, tl_err *err);
void tl_anneal_destroy(tl_anneal *a);
/* Reports the utility measured with the setting handed out last (NAN: none
 * measured, e.g. the first call) and the elephant share of the active flows;
 * writes the next setting (n values, knob order) to next. Returns 1 while
 * searching, 0 once the schedule has ended (next is then the best). */
int tl_anneal_step(tl_anneal *a, double util, double p_elephant, double *next);
/* The best setting so far and its utility. */
const double *tl_anneal_best(const tl_anneal *a, double *best_util);
double tl_anneal_temperature(const tl_anneal *a);

/* ---- the closed loop (src/tune/tuner.c) ---- */

/* Table I's knobs, the expert's set (paraleon.txt): what --tune searches. */
extern const char *const tl_tune_table1_knobs[];
extern const size_t tl_tune_n_table1_knobs;

typedef struct tl_tuner tl_tuner;
/* Tunes the n knobs (names borrowed) of pktsim run s by PARALEON's loop over
 * monitor m (attached first), starting from their values in p. */
tl_tuner *tl_tuner_attach(tl_pktsim *s, tl_monitor *m, const char *const *knobs, size_t n,
                          const tl_params *p, const tl_anneal_cfg *cfg, uint64_t seed,
                          tl_err *err);
void tl_tuner_destroy(tl_tuner *t);
/* Per interval: t_ms, state (0 idle, 1 searching), U, temperature, elephant
 * share, then the n knob values in force; *width = 5 + n. */
const double *tl_tuner_trajectory(const tl_tuner *t, size_t *n_rows, size_t *width);
/* The values in force now, how many searches ran and how many dispatched
 * values a rule refused (they kept their old value). */
const tl_params *tl_tuner_setting(const tl_tuner *t, int *n_searches, uint64_t *n_refused);
/* tune_trajectory.csv and tune_setting.json under dir. */
int tl_tuner_save(const tl_tuner *t, const char *dir, tl_err *err);

#endif
