/* parsimon: network-wide FCT estimates by link-level decomposition
 * (parsimon.txt). Every directed link that carries flows gets a small
 * topology of its own (Fig. 4: the link, its flows' sources feeding it, fat
 * links to their destinations), simulated with pktsim under the scenario's
 * transport; each flow's delays on those links are turned into
 * packet-normalized delay distributions per size bucket, and a flow's FCT is
 * estimated as its ideal FCT plus one sampled delay per link of its own path,
 * times its packet count (docs/parsimon.md).
 *
 * Unlike the paper's public code, a flow is estimated on the path it was
 * simulated on (tl_routes_path with its id), the next hop at each tier is an
 * independent hash, every link is simulated (no work dropped), and the link
 * simulations support every congestion control pktsim has. */
#ifndef TAILOR_PARSIMON_H
#define TAILOR_PARSIMON_H

#include <stdint.h>

#include "tailor/dist.h"
#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

typedef struct tl_parsimon tl_parsimon;

typedef struct tl_parsimon_opts {
    uint32_t bucket_min;   /* B: fewest samples per delay bucket (paper: 100) */
    double bucket_ratio;   /* x: a bucket's largest size >= x * its lower bound (paper: 2) */
    double fat_factor;     /* downstream links are this many times faster (paper: 10) */
    uint32_t norm_pkts;    /* a delay is normalized by max(packets, norm_pkts) (paper: by
                              packets, 1; 0: 5 under dctcp-rate, else 1) */
    int is_cluster;        /* simulate one link per cluster of similar links (§4.2) */
    double cluster_wmape;  /* size and inter-arrival percentiles closer than this (0.15;
                              the paper: 0.1) */
    double cluster_load;   /* loads closer than this, relative |a - b| / a (0.075) */
    double cluster_scale;  /* a cluster formed around a link whose load is a share s of
                              the busiest link's gets both thresholds
                              min(cluster_scale, 1 / s) times looser (4; 1: one
                              threshold for all, as the paper's prototype) */
    int is_direct_acks;    /* link simulations deliver ACKs as timed events (default on) */
    int is_direct_data;    /* ... and data past the link and across the fat downstream
                              links as timed deliveries too (default on; needs
                              is_direct_acks; same estimates, fewer events) */
    int is_passthrough;    /* links that only forward one slower-or-equal upstream link's
                              packets add no delay and are not simulated (default on;
                              tailor's addition, docs/parsimon.md) */
    int is_residual;       /* cases B and C: the links around the link at their residual
                              rates, the link's delay measured against a run with it
                              fat (default on; tailor's addition, docs/parsimon.md) */
    int is_fat_subset;     /* ... and that run leaves out the flows that meet no other
                              flow (default on; off runs them all, for checking) */
    int is_pfc_by_channel; /* PFC at u counts and pauses the sources by the channel they
                              come into u by in the network (default off; docs/parsimon.md
                              "Limits") */
    int is_share_sources;  /* with is_residual, last-hop simulations carry their sources'
                              other flows and the ACKs of what v sends instead of averaged
                              rates (default off; docs/parsimon.md, "Sources' sharing") */
    int64_t max_from_bytes; /* flows of at least this many bytes take the largest of their
                              links' delays, not their sum: a long flow is held back by
                              one bottleneck at a time (§3.6); 0: every flow the sum;
                              -1 (the default): the CC's (tl_cc_desc) */
    int n_threads;         /* link simulations in parallel; 0 = all cores */
    tl_dist *dist;         /* MPI ranks to spread the link simulations over (NULL: none);
                              borrowed */
} tl_parsimon_opts;

/* The paper's settings: B 100, x 2, fat 10, no clustering; cluster
 * thresholds 0.15 / 0.075 (relative) scaled by load up to 4 times
 * (docs/parsimon.md; the paper's prototype: 0.1, one threshold); direct ACKs
 * (as the paper's Minim); all cores; and tailor's pass-through links and
 * residual context on. */
void tl_parsimon_opts_default(tl_parsimon_opts *o);

/* Estimates flows f on topology t with routes r (each flow on
 * tl_routes_path(r, id, ...), as pktsim routes it), transport knobs p and
 * congestion control cc. Borrows t, r, f and p until destroy. */
tl_parsimon *tl_parsimon_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                                const tl_params *p, const char *cc, uint64_t seed,
                                const tl_parsimon_opts *o, tl_err *err);
void tl_parsimon_destroy(tl_parsimon *s); /* accepts NULL */

/* Decomposes, simulates every (representative) link, aggregates. The same
 * seed gives byte-identical results whatever n_threads. */
int tl_parsimon_run(tl_parsimon *s, tl_progress *prog, tl_err *err);

/* Per-flow estimates, indexed like f->v (valid after run): ideal_ps is the
 * flow's ideal FCT on its path, fct_ps the estimate. */
const tl_flow_result *tl_parsimon_results(const tl_parsimon *s);

/* Diagnostics (docs/accuracy.md, "Where Parsimon's error comes from"),
 * after a run. Flow i's delay on each hop of its path as its estimate drew
 * it (ps: the packet-normalized draw times its packet count) into
 * hop_ps[0..hops): their sum is its excess over its ideal FCT, their
 * largest for a flow of max_from_bytes or more. Returns hops, or -1 if more
 * than max_hops or no run. */
int tl_parsimon_flow_hop_delays(const tl_parsimon *s, size_t i, int64_t *hop_ps, int max_hops);
/* The estimate Parsimon would make if its link simulations had measured
 * the given delays: delay_ps[i * stride + k] is flow i's delay on hop k of
 * its path. Every link's delays are bucketed and drawn as the link
 * simulations' are (pass-through links and clusters included, each link
 * its own). Writes f->n results into res. */
int tl_parsimon_estimate_from(const tl_parsimon *s, const int64_t *delay_ps, int stride,
                              tl_flow_result *res, tl_err *err);

typedef struct tl_parsimon_stats {
    uint32_t n_chans_busy;      /* directed links with at least one flow */
    uint32_t n_simulated;       /* link simulations run (cluster representatives) */
    uint32_t n_pruned;          /* busy links that reused a representative's delays */
    uint32_t n_passthrough;     /* busy links that cannot queue: no delay, not simulated */
    uint32_t n_case[3];         /* simulated links by case: first hop, middle, last hop */
    uint64_t n_link_flows;      /* flows over all simulated links */
    uint64_t n_link_hops;       /* pktsim link-hops over all link simulations */
    uint64_t n_drops, n_timeouts; /* packets dropped and RTOs over all link simulations */
    uint64_t n_samples;         /* delay samples kept (all buckets) */
    double decompose_s, simulate_s, aggregate_s; /* wall time of each phase */
    double max_link_s;          /* the slowest single link simulation (wall) */
    /* Where the link simulations' work goes, by case (first hop, middle,
     * last hop) and run (0: the link at its rate; 1: the residual context's
     * second run, the link fat): thread CPU seconds, data packets simulated
     * and pktsim events (docs/parsimon.md, "Profile"). */
    double run_cpu_s[3][2];
    uint64_t run_pkts[3][2], run_events[3][2];
    /* Runs whose watched destination links would have paused the link
     * (PFC), run again with them as queues; their first try's CPU and
     * events count above. */
    uint32_t n_requeued;
    /* PFC: per simulated link, the longest any port of its simulation was
     * paused (the link by v, or a source by u for the link's queue), as a
     * share of the run; summed over the links and at the most. */
    double paused_frac_sum, paused_frac_max;
} tl_parsimon_stats;
void tl_parsimon_get_stats(const tl_parsimon *s, tl_parsimon_stats *st);

/* One link simulation of the last run, for scheduling studies
 * (bench/bench_scaleout.c) and error studies (bench_parsimon_error): its
 * expected cost (the packet-hops the run orders and hands out jobs by),
 * its wall time (on rank 0 under MPI; 0 for a job skipped after a
 * failure), the bytes its result takes between MPI ranks, and its queue. */
typedef struct tl_parsimon_job {
    uint32_t chan;
    double cost;
    double wall_s;
    uint64_t bytes;
    double queue_byte_s; /* the link's queue over its simulation at rate (byte-seconds) */
} tl_parsimon_job;
/* The last run's link simulations, in decreasing expected cost (*n of
 * them; NULL before a run). Valid until the next run or destroy. */
const tl_parsimon_job *tl_parsimon_jobs(const tl_parsimon *s, size_t *n);

#endif
