/* m3 training pipeline internals (m3.txt §5.1, docs/m3.md "Training"):
 * synthetic samples (parking lots and fabrics), their training data files
 * with pktsim labels, and the trainers that fit the estimator's model to
 * them. Built on the estimator's internals (m3/m3_int.h, m3/model.h), which
 * never include this header. */
#ifndef TAILOR_M3TRAIN_INT_H
#define TAILOR_M3TRAIN_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "m3/m3_int.h"
#include "m3/model.h"
#include "tailor/err.h"
#include "tailor/fileio.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/rng.h"
#include "tailor/sizedist.h"

/* Version of pktsim's labels, named in a training folder's header so that a
 * folder labelled by an older truth is neither extended nor reused
 * (--truth-from): 2 since pktsim's timer stops when all is acknowledged and
 * lossless fabrics time out after nic.rto_lossless_ps, 3 since PFC switches
 * keep headroom and so never drop, 4 since HPCC takes one fabric-wide T and
 * DCQCN's presets run without the byte counter (docs/m3.md; dctcp-rate's
 * and TIMELY's labels at 10 Gb/s did not move), 5 since a rate change moves
 * a paced flow's pending send (every rate-based CC's labels move). */
#define M3_LABELS_VERSION 5

/* The label: log of the true quantile over the reference. */
static inline float m3_label(double truth, double fs) { return (float)log(truth / fs); }

/* ---- synthetic training samples (synth.c; m3.txt §5.1, Tables 2 and 4) ---- */

typedef struct m3_sample {
    uint64_t index;
    int hops;
    char cc[32];
    tl_params p;           /* owned */
    m3_pathwl w;           /* owned */
    double target_load;
    char size_kind[16];
    double mean_bytes, size_shape, sigma;
    double p_local; /* fabric samples: share of rack-local flows (0: none) */
    int has_matrix; /* fabric samples: the traffic is a rack matrix (local or skewed) */
} m3_sample;

typedef struct m3_synth_opts {
    uint32_t fg_flows;     /* foreground flows wanted per sample (default 1000) */
    uint32_t max_flows;    /* cap on all flows of one sample (default 30000) */
    const char *only_cc;   /* NULL = uniform over dctcp-rate, dcqcn, hpcc, timely */
    int is_net_truth;      /* fabric samples: label paths with the whole fabric's pktsim
                            * slowdowns instead of their own parking lot's */
    int is_mixture;        /* fabric samples: 1: two-part size laws (small and heavy-tailed
                            * flows), 2: three-part ones (a 5-50 KB middle part too),
                            * 3: measured laws, scaled (not the suite's), instead of
                            * Table 2's */
    int is_local;          /* fabric samples: half the scenarios keep a share 0.2-1 of
                            * their flows inside racks */
    int is_skew;           /* fabric samples: skewed rack matrices (a noisy gravity
                            * model) instead of uniform traffic */
    int is_long;           /* fabric samples: 1-16 GB of flows (log-uniform) instead of
                            * at most 2 GB */
    int pfc;               /* 0: drawn (half lossless, DCQCN always lossless); 1: always
                            * lossless; 2: always lossy. The draw is made either way,
                            * so the scenario's other draws do not depend on it. */
} m3_synth_opts;
void m3_synth_opts_default(m3_synth_opts *o);

/* Draws sample `index` of the stream `seed`: path length, workload and
 * network configuration. Deterministic in (seed, index). */
int m3_synth_draw(m3_sample *s, uint64_t seed, uint64_t index, const m3_synth_opts *o,
                  tl_err *err);
void m3_sample_fini(m3_sample *s);
/* The transport draw (Table 4, into s->cc and s->p, initialized) and the
 * size law (Table 2: s->size_kind, mean_bytes log-uniform in 5 KB ..
 * max_mean, size_shape; d filled), shared by the parking-lot and the fabric
 * samples. */
int m3_synth_config(m3_sample *s, tl_rng *r, const m3_synth_opts *o, tl_err *err);
/* What a samples folder's header says of the drawn network configuration
 * into buf: the PFC threshold shift of the CC's preset (", pfc shift S"
 * when dynamic; docs/pktsim.md "PFC thresholds"), o->pfc (", pfc on" /
 * ", pfc off"; nothing when drawn) and, when HPCC can be drawn, its ranges
 * (", hpcc ranges 2"; docs/m3.md "HPCC ranges"), so that a folder is not
 * extended with samples drawn or simulated otherwise. */
void m3_config_tag(const m3_synth_opts *o, char *buf, size_t n);
int m3_synth_sizes(m3_sample *s, tl_rng *r, tl_sizedist *d, double max_mean, tl_err *err);

/* Ground truth: simulates the sample with pktsim on its parking lot
 * (m3_path_pktsim) and fills the foreground slowdown quantiles per output
 * bucket (NaN where a bucket has no foreground flow) and counts. */
int m3_synth_truth(const m3_sample *s, double truth[M3_N_OUT][M3_N_Q], uint32_t n[M3_N_OUT],
                   tl_err *err);

/* ---- data files (datafile.c): comma-separated, resumable by blocks ---- */

/* Field reader over one comma-separated line (modified in place). */
typedef struct m3_fields {
    char *p;
    const char *file;
    int line, col;
} m3_fields;
int m3_field_num(m3_fields *fs, double *out, tl_err *err);
int m3_field_str(m3_fields *fs, char *out, size_t n, tl_err *err);
/* Complete blocks of `block` lines already in path (after the header, which
 * must match) into *count, truncating whatever follows the last one (a torn
 * or unfinished block). Returns 0 or a TL_E* code. */
int m3_resume(const char *path, const char *header, long block, long *count, tl_err *err);
/* Creates dir, resumes dir/name (into path) by whole blocks as m3_resume
 * and opens it for appending, writing the header to a new file; NULL with
 * err set on failure. */
FILE *m3_samples_open(const char *dir, const char *name, const char *header, long block,
                      char *path, size_t path_n, long *have, tl_err *err);
/* Flushes and syncs a finished block; returns rc, or the write error. */
int m3_samples_sync(FILE *f, const char *path, int rc, tl_err *err);
/* ",x" with 9 significant digits (reads back to the same float), ",nan" for NaN. */
void m3_put_num(FILE *f, double x);

/* ---- parking-lot training data (parking_data.c; docs/m3.md "Training") ---- */

/* One line of samples.csv: the sample's description, features and truth. */
typedef struct m3_record {
    uint64_t index;
    int hops;
    char cc[32], size_kind[16];
    double load, mean_bytes, shape, sigma;
    uint64_t n_flows, n_fg;
    m3_feat feat;
    double truth[M3_N_OUT][M3_N_Q];
    uint32_t n_truth[M3_N_OUT];
} m3_record;

/* Draws sample index of stream seed, featurizes it and simulates it. */
int m3_record_make(uint64_t seed, uint64_t index, const m3_synth_opts *o, m3_record *r,
                   tl_err *err);
void m3_record_write(FILE *f, const m3_record *r);
/* Parses one line (modified in place); errors name file and line. */
int m3_record_parse(char *line, const char *file, int lineno, m3_record *r, tl_err *err);
/* Makes samples 0..n_samples-1 into dir/samples.csv, continuing after the
 * ones already there (made with the same settings). *n_new: samples added. */
int m3_gen_data(const char *dir, uint64_t seed, uint64_t n_samples, const m3_synth_opts *o,
                int n_threads, tl_progress *prog, uint64_t *n_new, tl_err *err);

/* ---- fabric training data (fabric_data.c; docs/m3.md "Fabric samples") ---- */

#define M3_FABRIC_PATHS 40      /* paths (lines) per fabric scenario (block) */
#define M3_FABRIC_PATHS_NET 200 /* the same with network truth: labels cost nothing more */
/* Paths per scenario of a fabric.csv whose header is `header` (0: none named). */
uint32_t m3_fabric_per(const char *header);

/* One line of DIR/fabric.csv: a path of a synthetic fabric, its features
 * (shared, ref_q and n_fg are filled) and its foreground flows' packet-level
 * slowdowns, grouped by output bucket (n_fg[0] of bucket 0 first, ...). */
typedef struct m3_fpath {
    uint64_t index; /* scenario * paths per scenario + path */
    char cc[32];
    int hops;
    size_t n_flows;
    m3_feat feat;
    double *sd; /* owned */
} m3_fpath;
void m3_fpath_fini(m3_fpath *r);
void m3_fpath_write(FILE *f, const m3_fpath *r);
int m3_fpath_parse(char *line, const char *file, int lineno, m3_fpath *r, tl_err *err);
/* Scenario `scen` of stream seed: its transport into cfg (cc and params,
 * initialized: tl_params_fini them) and its scenario JSON (without the
 * transport's parameters) into buf. With o->is_mixture the size law is
 * written to the CDF file cdf_path, and with o->is_local or o->is_skew a
 * scenario with rack-local or skewed traffic (cfg->has_matrix) gets its rack
 * matrix in the file mat_path; the JSON names them and the caller removes
 * them once the world is built. */
int m3_fabric_scenario(uint64_t seed, uint64_t scen, const m3_synth_opts *o, const char *cdf_path,
                       const char *mat_path, m3_sample *cfg, char *buf, size_t n, tl_err *err);
/* Scenarios 0..n_scen-1 into dir/fabric.csv, continuing after the complete
 * ones already there (same settings only); the file does not depend on
 * threads or interruptions. truth_from: NULL, or a folder made with the
 * same settings (any feature schema) whose labels are taken instead of
 * running pktsim. */
int m3_fabric_gen(const char *dir, uint64_t seed, uint64_t n_scen, const m3_synth_opts *o,
                  const char *truth_from, int n_threads, tl_progress *prog, uint64_t *n_new,
                  tl_err *err);

/* ---- training (fit.c, parking_train.c, fabric_train.c) ---- */

/* Shared by both trainers: adds cc to a comma-separated list unless there;
 * logs the XGBoost options, trains into *m and logs the time; commits the
 * log (rc == 0) or drops it, returning rc or the commit's error. */
void m3_cc_add(char *list, size_t cap, const char *cc);
int m3_fit_logged(FILE *log, const m3_dataset *tr, const m3_dataset *va, const m3_train_opts *o,
                  m3_model **m, tl_err *err);
int m3_log_finish(tl_afile *af, FILE *log, int rc, tl_err *err);

/* A sample's truth for (bucket, quantile) is used for training when its
 * bucket holds at least this many foreground flows. */
#define M3_MIN_TRUTH 30
/* Trains on dir/samples.csv and writes model_path and model_path.log (data
 * size, options, RMSE per 50 rounds, held-out p99 error per bucket). */
int m3_train_dir(const char *dir, const char *model_path, const m3_train_opts *o, tl_err *err);
/* Trains on dirs[0..n_dirs)/fabric.csv (pinball loss), writes model_path and
 * its log. */
int m3_train_fabric(const char *const *dirs, int n_dirs, const char *model_path,
                    const m3_train_opts *o, tl_err *err);
/* Sets the calibration shifts of the model in model_in from the fabric
 * paths of dirs (all their scenarios; collapsed ones left out, as in
 * training) and writes model_out (may be model_in) and model_out.log. The
 * trees are model_in's, unchanged. */
int m3_calibrate_fabric(const char *model_in, const char *const *dirs, int n_dirs,
                        const char *model_out, int n_threads, tl_err *err);

/* ---- mixture calibration (calib.c; docs/m3.md "Calibration") ---- */

/* Per size bucket, the calibration paths' predicted log quantiles (the
 * reference's log plus the model's output, before any shift) with their
 * weights, and all their flows' slowdowns. */
typedef struct m3_calib {
    m3_comp *c[M3_N_OUT];
    double *sd[M3_N_OUT];
    size_t n_c[M3_N_OUT], cap_c[M3_N_OUT], n_sd[M3_N_OUT], cap_sd[M3_N_OUT];
} m3_calib;
void m3_calib_init(m3_calib *cs);
void m3_calib_fini(m3_calib *cs);
/* Adds a path's bucket-b prediction (weight w) and its flows' slowdowns
 * (those not finite and positive are skipped). TL_ENOMEM. */
int m3_calib_add(m3_calib *cs, int b, const double logq[M3_N_Q], double w, const double *sd,
                 size_t n_sd, tl_err *err);
/* Per bucket and grid quantile q, the shift that makes the mixture of
 * the bucket's components, all scaled alike, meet the q-quantile of its
 * pooled flows (a level with fewer than 10 pooled flows above it takes the
 * shift of the level below; a bucket without flows 0). TL_ENOMEM. Cost:
 * levels x 100 bisection steps x components per bucket. */
int m3_calib_shift(const m3_calib *cs, double shift[M3_N_OUT][M3_N_Q], tl_err *err);
/* Bucket b's mixture under shifts s and its pooled flows, at the k levels
 * lv (ascending): NaN where the bucket is empty. TL_ENOMEM. */
int m3_calib_compare(const m3_calib *cs, int b, const double s[M3_N_Q], const double *lv, int k,
                     double *mix, double *pooled, tl_err *err);

#endif
