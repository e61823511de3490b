/* m3: network-wide FCT slowdown distributions from a sample of paths
 * (m3.txt). Flows are grouped by their recorded path; k paths are drawn with
 * probability proportional to their flow count; each drawn path's workload
 * (every flow crossing part of it, in path coordinates) runs through flowsim
 * in path-level mode; a learned model corrects flowsim's foreground slowdown
 * quantiles per size bucket; the k corrected distributions are mixed into
 * network-wide ones (docs/m3.md). The result is a summary only (no per-flow
 * FCTs). */
#ifndef TAILOR_M3_H
#define TAILOR_M3_H

#include <stdint.h>

#include "tailor/dist.h"
#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/pktsim.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

typedef struct tl_m3 tl_m3;

typedef struct tl_m3_opts {
    uint32_t n_paths;       /* k: paths drawn, with replacement (m3: 500) */
    const char *model_path; /* NULL: data/models/m3-CC.model for the scenario's
                             * congestion control CC if there is one, else
                             * data/models/m3.model (tl_data_path) */
    int is_no_model;        /* flowsim's own quantiles, uncorrected (ablation) */
    int is_keep_workloads;  /* keep the path workloads after featurizing, for a
                             * repredict that re-runs flowsim or path pktsim
                             * (sweeps); else they are freed path by path */
    int is_keep_reference;  /* keep each drawn path's reference flows (their
                             * flowsim slowdowns and saturated hops), for a
                             * repredict under another Kmin (sweeps) */
    int is_path_pktsim;     /* pktsim on each drawn path instead of flowsim and
                             * the model: the decomposition's own error (m3's
                             * "ns-3 path" ablation; slow) */
    int n_threads;          /* 0 = all cores */
    tl_dist *dist;          /* MPI ranks to spread the paths over (NULL: none); borrowed */
} tl_m3_opts;
void tl_m3_opts_default(tl_m3_opts *o);

/* Borrows t, r, f and p until destroy; loads the model (unless is_no_model).
 * Errors: the model file's (missing, wrong version, other feature schema). */
tl_m3 *tl_m3_create(const tl_topo *t, const tl_routes *r, const tl_flows *f, const tl_params *p,
                    const char *cc, uint64_t seed, const tl_m3_opts *o, tl_err *err);
void tl_m3_destroy(tl_m3 *s); /* accepts NULL */

/* Decomposes, samples, computes features, predicts and aggregates. The
 * same seed gives byte-identical summaries whatever n_threads. */
int tl_m3_run(tl_m3 *s, tl_progress *prog, tl_err *err);

/* Counterfactual (m3.txt §5.4): predicts again under other transport knobs
 * p (borrowed until the next call or destroy) and congestion control cc,
 * reusing the decomposition, the sampled paths and, unless a knob flowsim
 * reads changed (tl_m3_knob_changes_features), their flowsim runs.
 * Valid after run. */
int tl_m3_repredict(tl_m3 *s, const tl_params *p, const char *cc, tl_err *err);
/* Whether a change of the knob `name` under congestion control cc changes
 * flowsim's input (MTU, headers) or the reference's burst queue (TIMELY's
 * T_low), so that a repredict re-featurizes and needs the
 * path workloads (is_keep_workloads). */
int tl_m3_knob_changes_features(const char *name, const char *cc);
/* Whether it changes only the reference's queue term (Kmin; under DCQCN
 * Kmax too), so that a repredict re-queues the kept reference
 * (is_keep_reference) without re-running flowsim. */
int tl_m3_knob_changes_reference(const char *name, const char *cc);
/* Whether the model reads the knob at all under cc (flowsim's input, the
 * reference or the network configuration vector, m3.txt Table 4): a sweep
 * over one it does not read (DCQCN's rates, for example) gives every value
 * the same estimate. */
int tl_m3_knob_is_read(const char *name, const char *cc);
/* Whether m3's model extrapolates at knob i of p under cc: a knob it reads
 * whose value lies outside the range its training samples drew it from,
 * or differs from the one value they held it at (the CC's default: the
 * MTU, Pmax; DCQCN's PFC). Then why (n bytes) says so, naming the value
 * and the range, and it returns 1. switch.buffer_bytes and
 * dctcp_rate.window_bytes at 0 are resolved from fab as the features do
 * (fab NULL: not checked). */
int tl_m3_knob_untrained(const tl_params *p, size_t i, const char *cc,
                         const tl_fabric_ref *fab, char *why, size_t n);
/* The same for the knobs training drew together: DCTCP marked with Kmin =
 * Kmax, DCQCN with Kmax at least Kmin. */
int tl_m3_knobs_untrained_joint(const tl_params *p, const char *cc, char *why, size_t n);
/* The same for what the model file's own training folders fixed: PFC,
 * when every folder was made lossless or lossy (gen-data --pfc). 0 too
 * when the file cannot be read (the run that reads it says why). */
int tl_m3_model_untrained(const char *file, const tl_params *p, char *why, size_t n);

/* The network-wide summary (valid after run): counts are the workload's
 * own flows per bucket; mean and percentiles come from the mixture of the
 * sampled paths' predicted distributions. No per-class statistics. */
int tl_m3_summary(const tl_m3 *s, tl_summary *out, tl_err *err);
/* One CSV row per distinct drawn path (after run): draws, hops, flows,
 * foreground flows, busiest/first/last link load, and per output bucket its
 * foreground flows and p99 slowdown by flowsim, by the reference and by the
 * estimate: which paths decide the tail. Written atomically. */
int tl_m3_write_paths(const tl_m3 *s, const char *path, tl_err *err);

typedef struct tl_m3_stats {
    uint64_t n_paths_total;   /* distinct populated paths */
    uint32_t n_paths_unique;  /* distinct paths among the k draws */
    uint64_t n_path_flows;    /* flows (segments) over all sampled path workloads */
    uint64_t max_path_flows;
    uint64_t n_path_fg;       /* foreground flows over all sampled paths */
    double decompose_s, features_s, predict_s, aggregate_s;
    const char *model_path;   /* the model file read (which of data/models/m3[-CC].model
                               * a run took); NULL without a model; owned by the session */
    uint32_t model_crc;       /* that file's CRC-32 (its header's), 0 without a model: which
                               * bytes a run took, for data/models/accuracy.json */
} tl_m3_stats;
void tl_m3_get_stats(const tl_m3 *s, tl_m3_stats *st);

/* ---- training pipeline (docs/m3.md "Training") ---- */

typedef struct tl_m3_gen_opts {
    uint64_t n_samples;  /* samples 0..n-1 of the stream (default 4000) */
    uint64_t seed;       /* default 1 */
    uint32_t fg_flows;   /* foreground flows per sample (default 1000) */
    uint32_t max_flows;  /* flows per sample at most (default 30000) */
    const char *only_cc; /* NULL = uniform over dctcp-rate, dcqcn, hpcc, timely */
    int is_fabric;       /* 1: paths of synthetic fabrics into dir/fabric.csv (n_samples
                          * rounded up to whole scenarios of 40 paths), labelled by
                          * pktsim on each path; 2: the same, 200 paths a scenario,
                          * labelled by pktsim on the whole fabric; 0: parking lots
                          * (docs/m3.md "Fabric samples") */
    int is_mixture;      /* fabric samples: 1: two-part size laws, 2: three-part ones
                          * (a 5-50 KB middle part too), 3: published laws other than
                          * the accuracy suite's, scaled by 0.5-2; instead of Table 2's */
    int is_local;        /* fabric samples: rack-local traffic in half the scenarios */
    int is_skew;         /* fabric samples: skewed rack matrices in every scenario */
    int is_long;         /* fabric samples: 1-16 GB of flows a scenario (log-uniform, at most
                          * 200,000 flows) instead of at most 2 GB and 60,000 flows */
    int pfc;             /* 0: drawn (half the scenarios lossless, DCQCN always);
                          * 1: every scenario lossless; 2: every one lossy */
    const char *truth_from; /* fabric samples: a folder made with the same settings (any
                             * feature schema) whose labels are reused instead of running
                             * pktsim again; NULL = simulate */
    int n_threads;       /* 0 = all cores */
} tl_m3_gen_opts;
void tl_m3_gen_opts_default(tl_m3_gen_opts *o);
/* Synthetic parking-lot samples with flowsim features and pktsim truth into
 * dir/samples.csv, continuing after those already there (same settings
 * only); the file does not depend on threads or interruptions. */
int tl_m3_gen_data(const char *dir, const tl_m3_gen_opts *o, tl_progress *prog,
                   uint64_t *n_new, tl_err *err);

typedef struct tl_m3_train_opts {
    uint32_t n_trees, max_depth; /* default 400, 8 */
    double eta;                  /* default 0.05 */
    uint64_t seed;
    int n_threads;               /* 0 = all cores */
    uint32_t calib_min;          /* fabric data: scenarios needed to calibrate (default 50) */
    uint32_t calib_folds;        /* fabric data: >= 2: calibrate on out-of-fold residuals of the
                                  * training scenarios in this many folds (default 0: on the
                                  * held-out calibration scenarios) */
    int leaf_refit;              /* fabric data: refit each tree's leaves to the pinball loss
                                  * (default 0; docs/m3.md "Leaf refit") */
} tl_m3_train_opts;
void tl_m3_train_opts_default(tl_m3_train_opts *o);
/* Trains on dirs[0..n_dirs)/fabric.csv if the first folder has one (pinball
 * loss on every foreground flow; every tenth scenario held out; the folders'
 * scenarios are numbered on, in the order given), else on the one folder's
 * samples.csv (every tenth sample held out); writes model_path and
 * model_path.log. */
int tl_m3_train(const char *const *dirs, int n_dirs, const char *model_path,
                const tl_m3_train_opts *o, tl_err *err);
/* Sets the calibration of the fabric-trained model model_in from the fabric
 * paths of dirs[0..n_dirs), which it was not trained on: per size bucket and
 * grid quantile, the shift that makes the mixture of the paths' predictions
 * (as m3 mixes them) meet the quantiles of their flows pooled (docs/m3.md
 * "Calibration"). Writes model_out (may equal model_in; the same trees) and
 * model_out.log (model_in.log, then the shifts and the fit). n_threads: 0 =
 * all cores. */
int tl_m3_calibrate(const char *model_in, const char *const *dirs, int n_dirs,
                    const char *model_out, int n_threads, tl_err *err);

#endif
