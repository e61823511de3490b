/* m3 internals (m3.txt): path-level workloads in path coordinates, the
 * flowsim feature vector a path gives the model, synthetic parking-lot
 * samples for training, and the quantile grid the model predicts on. */
#ifndef TAILOR_M3_INT_H
#define TAILOR_M3_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tailor/err.h"
#include "tailor/flowsim.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/rng.h"
#include "tailor/sizedist.h"
#include "tailor/routing.h"
#include "tailor/workload.h"

/* ---- output grid (m3.txt §3.4 step 7) ---- */

/* Output size buckets: tl_bucket_of's four, (0,1KB] .. (50KB,inf). */
#define M3_N_OUT (TL_N_BUCKETS - 1)
/* Quantiles the model predicts per output bucket (m3 uses 1..100%; the grid
 * is denser where the network-wide tail is decided, docs/m3.md). */
#define M3_N_Q 12
extern const double m3_q[M3_N_Q];

/* ---- path-level workload (m3.txt §3.2) ---- */

/* One path of n_links links and every flow that crosses part of it: a
 * foreground flow crosses all of it (first 0, last n_links - 1, no access
 * links), a background segment a contiguous part, joining and leaving through
 * its own access links (rate 0 = it starts or ends at the path's own end
 * host). Flows are sorted by start. src_key/dst_key name the host a segment
 * comes from or goes to beside the path (synthetic samples only: segments
 * with equal keys at the same switch share that host in the packet-level
 * ground truth); NULL for fabric paths. */
typedef struct m3_pathwl {
    int n_links;
    tl_fs_link link[TL_MAX_HOPS];
    tl_fs_path_flow *flow; /* (n_flows) */
    uint8_t *is_fg;        /* (n_flows) */
    uint16_t *src_key, *dst_key; /* (n_flows) or NULL */
    size_t n_flows, cap;
    size_t n_fg;
} m3_pathwl;

int m3_pathwl_init(m3_pathwl *w, int n_links, int with_keys, tl_err *err);
void m3_pathwl_fini(m3_pathwl *w);
/* Frees the flows but keeps the links and the counts (n_flows, n_fg). */
void m3_pathwl_release(m3_pathwl *w);
/* Appends a flow (any order; call m3_pathwl_sort after the last). */
/* Room for n flows in all, so adding up to n needs no growth. */
int m3_pathwl_reserve(m3_pathwl *w, size_t n, tl_err *err);
int m3_pathwl_add(m3_pathwl *w, const tl_fs_path_flow *f, int is_fg, uint16_t src_key,
                  uint16_t dst_key, tl_err *err);
/* Sorts by (start, first, last, size): a stable total order, so the result
 * does not depend on the order flows were added in. */
int m3_pathwl_sort(m3_pathwl *w, tl_err *err);

/* What building a path workload reads of a flow, in one aligned 32-byte
 * record: the workloads visit a sparse subset of the flows, where each array
 * read is a cache miss (the flow, its path id, its path's offset: three
 * lines; one here). */
typedef struct m3_flowrec {
    uint64_t size_bytes;
    int64_t start_ps;
    uint32_t path_of;  /* path id; ids in first-flow order */
    uint32_t path_off; /* its channels: fp.path[path_off .. path_off + hops) */
    uint32_t hops;
    uint32_t pad;
} m3_flowrec;
_Static_assert(sizeof(m3_flowrec) == 32, "two records per cache line");

/* Flows grouped by their recorded path (the network-wide decomposition). */
typedef struct m3_paths {
    tl_flow_paths fp;
    uint32_t n_paths;
    uint32_t *rep;     /* (n_paths) the first flow on each path */
    uint32_t *n_fg;    /* (n_paths) flows on each path (its foreground) */
    m3_flowrec *rec;   /* (n_flows) each flow: its path id and what a workload reads */
} m3_paths;

int m3_paths_build(m3_paths *g, const tl_routes *r, const tl_flows *f, tl_err *err);
void m3_paths_fini(m3_paths *g);
/* k draws with replacement, each path with probability n_fg / n_flows:
 * *ids (sorted) and *draws hold the n_unique distinct paths drawn and how
 * often (caller frees both). Deterministic in seed. */
int m3_paths_sample(const m3_paths *g, uint32_t k, uint64_t seed, uint32_t **ids,
                    uint32_t **draws, uint32_t *n_unique, tl_err *err);
/* Path pid's workload into w (initialized here; fini it), from the flows
 * m3_paths_build recorded in g. */
int m3_paths_workload(const m3_paths *g, const tl_topo *t, uint32_t pid, m3_pathwl *w,
                      tl_err *err);

/* ---- network-wide mixture (m3.txt §3.5) ---- */

/* One path's distribution of one bucket: quantiles at m3_q (non-decreasing)
 * and the weight of its flows in the network. */
typedef struct m3_comp {
    double w;
    double q[M3_N_Q];
} m3_comp;
/* Mean and tl_pcts percentiles of the weighted mixture of n components (each
 * a piecewise-linear quantile function through m3_q, extended to 0 and 1 as
 * docs/m3.md says). NaN for n == 0 or zero weight. */
void m3_mixture(const m3_comp *c, size_t n, double *mean, double pct[TL_N_PCTS]);

/* ---- features (m3.txt §3.4, docs/m3.md "Features") ---- */

/* Version of the feature layout below; a model file records the schema it
 * was trained on and is refused by a build with another, unless the
 * features of its congestion control have not changed since
 * (m3_schema_first). */
#define M3_FEATURE_SCHEMA 7
/* Version of pktsim's labels, named in a training folder's header so that a
 * folder labelled by an older truth is neither extended nor reused
 * (--truth-from): 2 since pktsim's timer stops when all is acknowledged and
 * lossless fabrics time out after nic.rto_lossless_ps, 3 since PFC switches
 * keep headroom and so never drop (docs/m3.md). */
#define M3_LABELS_VERSION 3
/* The first schema whose features of cc are this build's: schema 6 changed
 * only TIMELY's reference and schema 7 only DCQCN's, so the other CCs'
 * schema-5 models stay valid.
 * M3_SCHEMA_OLDEST is the smallest it returns. */
#define M3_SCHEMA_OLDEST 5
uint32_t m3_schema_first(const char *cc);
/* Features shared by every row of one path. None counts flows: a fabric path
 * carries a handful of foreground flows among thousands of others, a
 * training sample a thousand, so counts would tell them apart. */
#define M3_N_SHARED 78
/* Row features: the shared ones, then bucket, quantile and the reference
 * value at that (bucket, quantile). */
#define M3_N_FEATURES (M3_N_SHARED + 3)

/* The model corrects a reference that is as well estimated on a fabric path
 * (2-30 foreground flows) as on a training sample (1,000): flowsim's
 * slowdown quantiles of every flow that crosses the path's busiest link
 * (docs/m3.md "Features"). */
typedef struct m3_feat {
    float shared[M3_N_SHARED];
    double fs_q[M3_N_OUT][M3_N_Q];  /* flowsim foreground slowdown quantiles; NaN if empty */
    uint32_t n_fg[M3_N_OUT];        /* foreground flows per output bucket */
    double ref_q[M3_N_OUT][M3_N_Q]; /* flowsim quantiles at the busiest link; NaN if empty */
    uint32_t n_ref[M3_N_OUT];
} m3_feat;

/* Runs flowsim on w (path-level mode) and fills ft. p gives the transport
 * knobs (MTU, buffer, CC parameters), cc the congestion control. */
int m3_features(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft,
                tl_err *err);

/* What re-computing a path's reference under another queue wait (another
 * Kmin) needs, so that a Kmin sweep does not re-run flowsim: the busiest
 * link's flows grouped by output bucket (off), each with its flowsim
 * slowdown, ideal FCT and count of saturated switch hops. Zero-initialize. */
typedef struct m3_refkeep {
    double *sd, *ideal_ps;
    uint8_t *hits;
    uint32_t off[M3_N_OUT + 1];
} m3_refkeep;
void m3_refkeep_fini(m3_refkeep *k);
/* m3_features that also fills *keep (its previous contents freed) unless
 * keep is NULL. */
int m3_features_keep(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft,
                     m3_refkeep *keep, tl_err *err);
/* ft's reference quantiles again with queue wait q_ps (m3_queue_ps); the
 * rest of ft is unchanged. The same q_ps gives the same bits as
 * m3_features. */
int m3_feat_requeue(m3_feat *ft, const m3_refkeep *k, double q_ps, tl_err *err);
/* Rewrites only the configuration part of ft.shared (for a sweep over knobs
 * that do not change the rest: !m3_knob_changes_features). */
void m3_features_config(const m3_pathwl *w, const tl_params *p, const char *cc, m3_feat *ft);
/* Knobs that change flowsim's input (MTU, headers) or, under cc, the burst
 * queue's tau (m3_burst_tau_ps: TIMELY's T_low): a sweep over
 * one re-runs flowsim; over Kmin under DCTCP, which changes only the
 * reference's queue term, it re-queues a kept reference (m3_refkeep); over
 * any other knob it reuses the features. */
int m3_knob_changes_features(const char *name, const char *cc);
/* Kmin (and under DCQCN Kmax), the knobs the reference's queue term reads. */
int m3_knob_changes_reference(const char *name, const char *cc);
/* Whether the model's estimate under cc can depend on the knob: flowsim's
 * input, the reference or the configuration vector reads it. */
int m3_knob_is_read(const char *name, const char *cc);
/* The reference's queue term: the wait a flow gets at a saturated switch hop
 * (docs/m3.md "Features"): M3_QUEUE_SHARE of the
 * time a queue of Kmin takes to drain, for DCTCP; M3_DCQCN_QUEUE_SHARE of
 * that of a queue of (Kmin + Kmax) / 2 for DCQCN; M3_TIMELY_QUEUE_SHARE of
 * T_low for TIMELY; 0 for HPCC, which holds no standing queue. */
#define M3_QUEUE_SHARE 0.5
#define M3_DCQCN_QUEUE_SHARE 0.5
#define M3_TIMELY_QUEUE_SHARE 0.5
double m3_queue_ps(const tl_params *p, const char *cc);
/* At most how many saturated hops of a path add the queue term: each one
 * for DCTCP and DCQCN (every switch marks), one for TIMELY (it regulates
 * the path's whole RTT). */
int m3_queue_hops_max(const char *cc);
/* How long a flow sends at its line rate before its CC slows it, for the
 * reference's burst queue (docs/m3.md "Features"): TIMELY its T_low, the
 * others 0 (no burst queue). */
double m3_burst_tau_ps(const tl_params *p, const char *cc);
/* Busiest (which 0), first (1) or last (2) link's offered load. */
float m3_feat_load(const m3_feat *ft, int which);
/* Whether the path's network runs PFC (lossless: no drops, no timeouts):
 * shared feature M3_SHARED_PFC is not 0. */
enum { M3_SHARED_PFC = 7 };
int m3_feat_lossless(const m3_feat *ft);
/* The model's input row for (bucket b, quantile index qi). */
void m3_feat_row(const m3_feat *ft, int b, int qi, float *row);
/* Name of feature i (docs, training log). */
const char *m3_feature_name(int i, char *buf, size_t n);
/* The label: log of the true quantile over the reference. */
static inline float m3_label(double truth, double fs) { return (float)log(truth / fs); }

/* ---- synthetic training samples (m3.txt §5.1, Tables 2 and 4) ---- */

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

/* Ground truth: simulates the sample with pktsim on its parking lot and
 * fills the foreground slowdown quantiles per output bucket (NaN where a
 * bucket has no foreground flow) and counts. */
int m3_synth_truth(const m3_sample *s, double truth[M3_N_OUT][M3_N_Q], uint32_t n[M3_N_OUT],
                   tl_err *err);
/* The same for any path workload (the engine's path_pktsim ablation): its
 * parking lot with SIDE_HOSTS hosts beside each switch, 10 Gbps and 1 us
 * side links; segments without keys are spread over the side hosts. */
int m3_path_pktsim(const m3_pathwl *w, const tl_params *p, const char *cc, uint64_t seed,
                   double truth[M3_N_OUT][M3_N_Q], uint32_t n[M3_N_OUT], double *fg_sd,
                   tl_err *err);
/* (fg_sd, if not NULL: (w->n_fg) every foreground flow's slowdown, in flow
 * order.) */

/* ---- training data and training (docs/m3.md "Training") ---- */

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

/* Whether cc is an item of the comma-separated list. */
int m3_cc_listed(const char *list, const char *cc);

struct m3_train_opts;
/* ---- training data from synthetic fabrics (docs/m3.md "Fabric samples") ---- */

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
 * matrix in the file mat_path; the JSON names them and the caller removes them once the world
 * is built. */
int m3_fabric_scenario(uint64_t seed, uint64_t scen, const m3_synth_opts *o, const char *cdf_path,
                       const char *mat_path, m3_sample *cfg, char *buf, size_t n, tl_err *err);
/* Scenarios 0..n_scen-1 into dir/fabric.csv, continuing after the complete
 * ones already there (same settings only); the file does not depend on
 * threads or interruptions. */
/* truth_from: NULL, or a folder made with the same settings (any feature
 * schema) whose labels are taken instead of running pktsim. */
int m3_fabric_gen(const char *dir, uint64_t seed, uint64_t n_scen, const m3_synth_opts *o,
                  const char *truth_from, int n_threads, tl_progress *prog, uint64_t *n_new,
                  tl_err *err);
/* Shared by both trainers: adds cc to a comma-separated list unless there;
 * logs the XGBoost options, trains into *m and logs the time; commits the
 * log (rc == 0) or drops it, returning rc or the commit's error. */
struct m3_dataset;
struct m3_model;
struct tl_afile;
void m3_cc_add(char *list, size_t cap, const char *cc);
int m3_fit_logged(FILE *log, const struct m3_dataset *tr, const struct m3_dataset *va,
                  const struct m3_train_opts *o, struct m3_model **m, tl_err *err);
int m3_log_finish(struct tl_afile *af, FILE *log, int rc, tl_err *err);
/* Trains on dirs[0..n_dirs)/fabric.csv (pinball loss), writes model_path and
 * its log. */
int m3_train_fabric(const char *const *dirs, int n_dirs, const char *model_path,
                    const struct m3_train_opts *o, tl_err *err);

/* Trains on dir/samples.csv and writes model_path and model_path.log (data
 * size, options, RMSE per 50 rounds, held-out p99 error per bucket). */
struct m3_train_opts;
int m3_train_dir(const char *dir, const char *model_path, const struct m3_train_opts *o,
                 tl_err *err);

/* A sample's truth for (bucket, quantile) is used for training when its
 * bucket holds at least this many foreground flows. */
#define M3_MIN_TRUTH 30

#endif
