/* m3 estimator internals (m3.txt): path-level workloads in path coordinates,
 * the flowsim feature vector a path gives the model, the quantile grid the
 * model predicts on and a path's packet-level truth. The training pipeline
 * (src/m3train/m3train_int.h) builds on these; nothing here knows it. */
#ifndef TAILOR_M3_INT_H
#define TAILOR_M3_INT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tailor/err.h"
#include "tailor/flowsim.h"
#include "tailor/params.h"
#include "tailor/pktsim.h"
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
    tl_fabric_ref fabric; /* the network's references; zero: the path's own */
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
    tl_fabric_ref fabric; /* the whole network's, for every path's workload */
} m3_paths;

/* mtu_bytes: for the fabric references (tl_fabric_ref_of). */
int m3_paths_build(m3_paths *g, const tl_routes *r, const tl_flows *f, uint32_t mtu_bytes,
                   tl_err *err);
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
/* The same mixture's quantiles at the k levels lv (each in (0, 1)). */
void m3_mixture_quantiles(const m3_comp *c, size_t n, const double *lv, int k, double *out);
/* The same mixture's CDF at v: the weighted share at or below v. */
double m3_mixture_cdf(const m3_comp *c, size_t n, double v);
/* Makes a component's quantiles non-decreasing and at least 1 (a slowdown),
 * as the model's corrected quantiles are before they are mixed. */
void m3_comp_fix(double q[M3_N_Q]);

/* ---- features (m3.txt §3.4, docs/m3.md "Features") ---- */

/* Version of the feature layout below; a model file records the schema it
 * was trained on and is refused by a build with another, unless the
 * features of its congestion control have not changed since
 * (m3_schema_first). */
#define M3_FEATURE_SCHEMA 8
/* The first schema whose features of cc are this build's: schema 6 changed
 * only TIMELY's reference and schemas 7 and 8 only DCQCN's, so the other CCs'
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

/* ---- training ranges (ranges.c) ---- */

/* What m3's training samples draw a knob from under a CC (m3.txt Table 4,
 * widened): uniform in [lo, hi], or log-uniform (is_log). */
typedef struct m3_knob_range {
    int cc_id; /* stable CC id (tl_cc_desc.id), or -1: every CC */
    const char *knob;
    double lo, hi; /* in the knob's unit (bytes, ps, bit/s); lo = hi: held there */
    int is_log;
    int is_zero_fabric; /* 0 takes the value from the fabric: resolved, not a draw */
} m3_knob_range;

/* The range of knob under the CC of stable id cc_id, or NULL: not drawn. */
const m3_knob_range *m3_knob_range_of(int cc_id, const char *knob);
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

/* ---- packet-level truth of a path (pathsim.c) ---- */

/* The parking lot of m3_path_pktsim: the path's links, and M3_SIDE_HOSTS
 * hosts beside each switch (a rack's worth) on links of M3_SIDE_BPS and
 * M3_SIDE_DELAY_PS (the 32-rack fabric's host links, parsimon-eval), where
 * background segments join and leave; segment keys are below M3_SIDE_HOSTS. */
#define M3_SIDE_HOSTS 8
#define M3_SIDE_BPS 10000000000ull
#define M3_SIDE_DELAY_PS 1000000
/* Runs pktsim on w's parking lot (segments without keys are spread over the
 * side hosts) and fills the foreground slowdown quantiles per output bucket
 * (NaN where a bucket has no foreground flow) and counts; the engine's
 * path_pktsim ablation and the training samples' ground truth. */
int m3_path_pktsim(const m3_pathwl *w, const tl_params *p, const char *cc, uint64_t seed,
                   double truth[M3_N_OUT][M3_N_Q], uint32_t n[M3_N_OUT], double *fg_sd,
                   tl_err *err);
/* (fg_sd, if not NULL: (w->n_fg) every foreground flow's slowdown, in flow
 * order.) */

/* Whether cc is an item of the comma-separated list. */
int m3_cc_listed(const char *list, const char *cc);

#endif
