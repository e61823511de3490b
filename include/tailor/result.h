/* The common result of every engine (DESIGN.md "Data flow"): per-flow FCTs
 * with their ideal FCT and slowdown, and a summary of slowdown distributions
 * per size bucket and per traffic class. Engines that estimate distributions
 * only (m3) produce a summary without the per-flow table; reports and
 * `tailor compare` work from the summary. */
#ifndef TAILOR_RESULT_H
#define TAILOR_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/buf.h"
#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

/* Ideal FCT of a flow of size_bytes alone on its path (docs/results.md): the
 * sum of the path's propagation delays, plus its first packet
 * (min(size, mtu) + header bytes) serialized store-and-forward at every hop,
 * plus the remaining bytes with their headers (one header per further packet)
 * serialized at the path's slowest link. Each serialization is rounded to the
 * picosecond once, as pktsim does. chans: the path's directed channels.
 * Returns 0 for hops <= 0 or mtu_bytes == 0 (invalid); saturates at INT64_MAX
 * for sizes whose ideal does not fit. O(hops). */
int64_t tl_ideal_fct_ps(const tl_topo *t, const uint32_t *chans, int hops, uint64_t size_bytes,
                        uint32_t mtu_bytes, uint32_t header_bytes);
/* The same on explicit per-hop rates and delays (paths outside a topology:
 * flowsim's path-level mode). Hops beyond TL_MAX_HOPS are not allowed. */
int64_t tl_ideal_fct_links_ps(const uint64_t *rate_bps, const int64_t *delay_ps, int hops,
                              uint64_t size_bytes, uint32_t mtu_bytes, uint32_t header_bytes);

/* Size buckets of the summary: (0,1KB], (1KB,10KB], (10KB,50KB], (50KB,inf),
 * then "all". KB = 1000 bytes. */
#define TL_N_BUCKETS 5
extern const char *const tl_bucket_names[TL_N_BUCKETS]; /* "0-1KB", ..., "all" */
int tl_bucket_of(uint64_t size_bytes); /* 0..3 */

/* Percentiles reported for every bucket. */
#define TL_N_PCTS 4
extern const double tl_pcts[TL_N_PCTS]; /* 0.5, 0.9, 0.99, 0.999 */

typedef struct tl_slowdown_stats {
    uint64_t count;
    double mean;
    double p[TL_N_PCTS]; /* at tl_pcts */
} tl_slowdown_stats;

/* Per-flow outcome: filled by engines, one entry per flow of the workload. */
typedef struct tl_flow_result {
    int64_t fct_ps;   /* completion time - start; -1 if the flow did not finish */
    int64_t ideal_ps; /* tl_ideal_fct_ps on the flow's path */
} tl_flow_result;

/* What a result is of (summary.json "run"), so that `tailor compare` can
 * tell runs of different scenarios apart, and the counters a user checks
 * conservation with (offered = delivered for finished flows; drops and
 * retransmissions explain the rest). Counters an engine does not model are
 * -1 (null in JSON). */
typedef struct tl_run_info {
    int is_set;               /* 0: no record (a summary.json of an older tailor) */
    char version[32];         /* tailor's */
    char cc[32];
    uint64_t seed;
    uint64_t scenario_hash;   /* topology, flows, congestion control and every knob */
    uint64_t flows_hash;      /* topology and flows only: "the same flows" */
    char options[256];        /* the engine's options, "key=value ..." ("" if none) */
    int64_t n_flows, bytes_offered, bytes_delivered, bytes_retx;
    int64_t n_drops, n_timeouts, n_pfc_pauses;
    /* PFC: the share of the run that the links carrying data spent paused,
     * on average over them and at the most paused one (-1: not modeled;
     * Parsimon: over its link simulations, each link paused by its own
     * simulation's downstream switch) */
    double paused_frac, paused_frac_max;
} tl_run_info;

/* Fills r for a run of flows f on topology t under (cc, p, seed), with the
 * counters unknown (-1) but n_flows and bytes_offered. O(links + flows). */
void tl_run_info_init(tl_run_info *r, const tl_topo *t, const tl_flows *f, const tl_params *p,
                      const char *cc, uint64_t seed, const char *options);

typedef struct tl_summary {
    tl_run_info run;
    char engine[32];
    uint32_t n_classes;
    char **class_names;          /* (n_classes) owned */
    tl_slowdown_stats all[TL_N_BUCKETS];      /* over every class */
    tl_slowdown_stats *by_class;              /* (n_classes, TL_N_BUCKETS) owned:
                                                 class c, bucket b at [c * TL_N_BUCKETS + b] */
    uint64_t n_unfinished;
} tl_summary;

/* Slowdown of a finished flow: fct / ideal, clamped at 1 (the ideal is a lower
 * bound; the clamp absorbs picosecond rounding). ideal_ps must be > 0. */
static inline double tl_slowdown(int64_t fct_ps, int64_t ideal_ps)
{
    double s = (double)fct_ps / (double)ideal_ps;
    return s > 1 ? s : 1;
}

/* Slowdown = fct / ideal (>= 1 by construction of the ideal; clamped at 1
 * to absorb the picosecond rounding). Unfinished flows are counted, not
 * included in the statistics. Buckets without flows have count 0 and NaN mean
 * and percentiles. Percentiles are exact type-7 quantiles (tailor/quantile.h);
 * the mean is summed in sorted order, so a group's statistics do not depend on
 * the order of the flows. r has f->n entries. Copies engine (truncated to 31
 * characters) and f's class names. Errors: TL_EINVAL for a class index out of
 * range or a finished flow whose ideal_ps is not > 0 (the message names the
 * flow id), TL_ENOMEM. On failure s is left empty (fini is still safe).
 * O(n log n) time, 2n doubles of scratch. */
int tl_summary_build(tl_summary *s, const char *engine, const tl_flows *f,
                     const tl_flow_result *r, tl_err *err);
void tl_summary_fini(tl_summary *s);
/* s as bytes for another MPI rank (tailor/dist.h), and back: unpack fills
 * s whole (it owns its strings and tables; on error s is empty). */
int tl_summary_pack(const tl_summary *s, tl_wbuf *out, tl_err *err);
int tl_summary_unpack(tl_summary *s, tl_rbuf *in, tl_err *err);

/* Per-flow table "id,src,dst,size,start_ns,fct_ns,ideal_ns,slowdown,class", one
 * row per flow in f's order. Times in ns, with exactly 3 decimals when not
 * whole; slowdown (tl_slowdown) with 6 decimals; fct_ns and slowdown empty for
 * an unfinished flow. TL_EINVAL (before any file is created) for a class index
 * out of range or a finished flow with ideal_ps <= 0. Atomic (tl_afile); "-"
 * writes to stdout. */
int tl_result_save_csv(const tl_flows *f, const tl_flow_result *r, const char *path, tl_err *err);
/* ns-3 HPCC fct.txt: "sip dip sport dport size start_ns fct_ns ideal_ns" with
 * host i's IP 0x0b000001 + (i/256)<<16 + (i%256)<<8 as 8 hex digits, sport
 * 10000 + id % 55000 and dport 100 (ns-3 writes the real ports; tailor's are
 * placeholders that keep the columns). Times are whole ns rounded half up;
 * ideal_ns stands where ns-3 writes its standalone FCT (a different formula,
 * docs/results.md). Unfinished flows are omitted. Atomic. */
int tl_result_save_ns3(const tl_flows *f, const tl_flow_result *r, const char *path, tl_err *err);
/* summary.json: {"run": {...} (when s->run.is_set), "engine", "unfinished", "buckets": {"0-1KB": {count, mean, p50, p90, p99,
 * p999}, ...}, "classes": {name: {same}}}. NaN statistics (empty buckets) are
 * null; numbers carry 15 significant digits, so load + save reproduces a file
 * byte for byte. TL_EINVAL for two classes of the same name. Atomic. */
int tl_summary_save_json(const tl_summary *s, const char *path, tl_err *err);
/* Reads a summary.json into s (which the caller finis). Checks the whole shape:
 * every key present, no unknown keys, integer counts >= 0, statistics numbers
 * when count > 0 and null when count == 0. TL_EPARSE / TL_ERANGE name the file,
 * line:column and JSON path ("buckets.all.p99"); syntax errors name file and
 * line:column; TL_EIO if the file cannot be read. On failure s is left empty. */
int tl_summary_load_json(tl_summary *s, const char *path, tl_err *err);

#endif
