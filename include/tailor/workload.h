/* Workloads: flows (id, src, dst, size, start, class) generated from traffic
 * classes, each with a size distribution, a spatial pattern, an arrival
 * process and a load target (parsimon.txt §5.1, m3.txt §5.1), or read from
 * a flow file. Generation is parallel and deterministic: flow i of class c
 * draws from streams named by (seed, class, chunk of i), so the output is
 * byte-identical whatever the thread count. */
#ifndef TAILOR_WORKLOAD_H
#define TAILOR_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/progress.h"
#include "tailor/routing.h"
#include "tailor/sizedist.h"
#include "tailor/topo.h"

/* ---- flows ---- */

typedef struct tl_flow {
    uint64_t id;
    uint64_t size_bytes;
    int64_t start_ps;
    uint32_t src, dst;  /* host node ids */
    uint32_t class_idx; /* index into tl_flows.class_names */
} tl_flow;

typedef struct tl_flows {
    tl_flow *v; /* (n), sorted by (start_ps, id) */
    size_t n, cap;
    char **class_names; /* (n_classes) owned */
    uint32_t n_classes;
} tl_flows;

/* The most flows a flow file or workload may hold (a guard against counts
 * that cannot be meant: 40 bytes a flow, 40 GB). */
#define TL_FLOWS_MAX 1000000000ull

void tl_flows_init(tl_flows *f);
void tl_flows_fini(tl_flows *f);
/* Appends a class name (copied) and returns its index, or -1 on allocation failure. */
int tl_flows_add_class(tl_flows *f, const char *name, tl_err *err);
int tl_flows_reserve(tl_flows *f, size_t n, tl_err *err);

/* ---- rack-to-rack matrices ---- */

typedef struct tl_matrix {
    uint32_t n_racks, n_pods;
    uint32_t *pod_of; /* (n_racks) */
    double *w;        /* (n_racks, n_racks) row = source rack */
    char name[64];
} tl_matrix;

/* Loads data/matrices/<name>.txt (built-in: "a-32rack", "b-32rack", "c-32rack",
 * "a-full", "b-full", "c-full"; "A"/"B"/"C" mean the 32-rack samples) or a file
 * path. Errors name the file and line. */
int tl_matrix_load(tl_matrix *m, const char *name_or_path, tl_err *err);
void tl_matrix_fini(tl_matrix *m);

/* ---- traffic classes ---- */

typedef enum {
    TL_SPATIAL_UNIFORM = 0, /* src and dst uniform over hosts, src != dst */
    TL_SPATIAL_MATRIX,      /* (src rack, dst rack) by matrix weight, then hosts uniform */
    TL_SPATIAL_PERMUTATION, /* host i sends to perm(i), a random derangement; flows cycle over hosts */
    TL_SPATIAL_INCAST,      /* n_senders random hosts send to one destination */
    TL_SPATIAL_ALL_TO_ALL,  /* every ordered pair in turn */
    TL_SPATIAL_DC_MIX,      /* intra-DC with probability intra_frac, else inter-DC; hosts uniform */
} tl_spatial_kind;

typedef struct tl_spatial_spec {
    tl_spatial_kind kind;
    tl_matrix matrix;      /* TL_SPATIAL_MATRIX (owned) */
    uint32_t n_senders;    /* TL_SPATIAL_INCAST */
    int64_t incast_dst;    /* TL_SPATIAL_INCAST: host node id, or -1 for a random host */
    double intra_frac;     /* TL_SPATIAL_DC_MIX */
} tl_spatial_spec;

typedef enum {
    TL_ARRIVAL_POISSON = 0,  /* exponential inter-arrival times */
    TL_ARRIVAL_LOGNORMAL,    /* log-normal inter-arrivals with shape sigma (burstiness) */
    TL_ARRIVAL_SIMULTANEOUS, /* every flow starts at start_ps */
} tl_arrival_kind;

typedef enum {
    TL_LOAD_MAX_LINK = 0, /* max link load in (0, 1), as parsimon-eval calibrates it */
    TL_LOAD_FLOWS_PER_S,  /* explicit aggregate arrival rate */
    TL_LOAD_BPS,          /* explicit aggregate offered bit rate (flows/s = bps / mean bits) */
} tl_load_kind;

typedef struct tl_class_spec {
    char name[64];
    tl_sizedist sizes; /* owned */
    tl_spatial_spec spatial;
    tl_arrival_kind arrival;
    double sigma; /* log-normal shape */
    tl_load_kind load_kind;
    double load_value;
    int64_t start_ps;  /* first arrival process starts here */
    uint64_t n_flows;  /* optional per-class count bound (0 = share of the workload bound) */
} tl_class_spec;

typedef struct tl_workload_spec {
    tl_class_spec *classes; /* (n_classes) owned */
    uint32_t n_classes;
    uint64_t n_flows;    /* stop after this many flows in all (0 = no count bound) */
    int64_t duration_ps; /* stop arrivals after start + duration (0 = no time bound) */
    uint32_t calib_samples; /* pairs routed to calibrate max link load (0 = default) */
    char file[1024]; /* workload.file: flows read from this file instead (tl_flows_load_any) */
} tl_workload_spec;

void tl_workload_spec_fini(tl_workload_spec *w);

/* Aggregate arrival rate (flows per second) of class c that meets its load
 * target: for TL_LOAD_MAX_LINK, routes calib_samples (src, dst) pairs drawn
 * from the class's pattern, finds the channel with the most flows per bit/s
 * of bandwidth (fraction f of the pairs) and returns target * bw / (f * mean
 * bits), parsimon-eval's definition (../shared/notes/parsimon.md §3). */
int tl_workload_class_rate(const tl_workload_spec *w, uint32_t c, const tl_topo *t,
                           const tl_routes *r, uint64_t seed, int n_threads, double *flows_per_s,
                           tl_err *err);

/* Generates the flows of w on t, sorted by start time, ids 0..n-1 in that
 * order. n_threads <= 0 means all cores. */
int tl_workload_generate(const tl_workload_spec *w, const tl_topo *t, const tl_routes *r,
                         uint64_t seed, int n_threads, tl_flows *out, tl_progress *prog,
                         tl_err *err);

/* ---- offered load ---- */

/* Offered load of every directed channel: bytes routed over it (payload) * 8 /
 * (arrival span * rate), span = last start - first start. load_frac has
 * 2 * n_links entries. With class_mean_bytes (n_classes entries) each flow
 * counts as its class's mean size instead of its own: the expected load, free
 * of the sampling noise of heavy-tailed sizes (at 200k WebServer flows the
 * realized byte load of one host link varies by +-15% around it). */
int tl_workload_link_loads(const tl_flows *f, const tl_routes *r, int n_threads,
                           const double *class_mean_bytes, double *load_frac, tl_err *err);

/* Summary of a workload on its topology, for `tailor inspect`. */
typedef struct tl_workload_summary {
    size_t n_flows;
    double span_s;          /* last start - first start */
    double mean_size_bytes;
    double load_max, load_top10_mean, load_mean; /* realized bytes, over all directed channels */
    uint32_t max_load_chan;
    double expected_max, expected_top10_mean, expected_mean; /* flows x class mean size */
    uint64_t hops_hist[TL_MAX_HOPS + 1]; /* flows per path length */
} tl_workload_summary;
/* class_mean_bytes may be NULL (then the expected_* fields stay 0). */
int tl_workload_summarize(const tl_flows *f, const tl_routes *r, int n_threads,
                          const double *class_mean_bytes, tl_workload_summary *s, tl_err *err);

/* ---- flow files ---- */

/* Every flow on its path (tl_routes_path with the flow's id, as pktsim routes
 * it) and every directed channel's flows, both as CSR arrays: the
 * decomposition Parsimon and m3 start from. Flow i's channels are
 * path[path_off[i] .. path_off[i+1]); channel c's flows (indices into f->v,
 * in f's order, so in start order) are chan_flows[chan_off[c] .. chan_off[c+1]). */
typedef struct tl_flow_paths {
    size_t n_flows;
    uint32_t n_chans;     /* 2 x links of the routes' topology */
    uint32_t *path_off;   /* (n_flows + 1) */
    uint32_t *path;       /* (path_off[n_flows]) channels in path order */
    uint32_t *chan_off;   /* (n_chans + 1) */
    uint32_t *chan_flows; /* (chan_off[n_chans]) */
} tl_flow_paths;
/* Routes every flow of f. Errors: a flow with no route (its tl_routes_path
 * error), TL_ENOMEM; fp is left zeroed on failure. O(total hops). */
int tl_flow_paths_build(tl_flow_paths *fp, const tl_routes *r, const tl_flows *f, tl_err *err);
void tl_flow_paths_fini(tl_flow_paths *fp); /* accepts a zeroed struct */

/* CSV with header "id,src,dst,size,start_ns,class"; start_ns may have a
 * fractional part (picosecond resolution). Class names are created on first use. */
int tl_flows_load_csv(tl_flows *f, const char *path, const tl_topo *t, tl_err *err);
int tl_flows_save_csv(const tl_flows *f, const char *path, tl_err *err);

/* ns-3 HPCC flow.txt: line 1 the flow count, then "src dst pg dport size
 * start_s" per flow. Loading assigns class "default"; saving writes pg 3 and
 * dport 100 as the HPCC generator does, and start + offset_s in seconds. */
int tl_flows_load_ns3(tl_flows *f, const char *path, const tl_topo *t, tl_err *err);
int tl_flows_save_ns3(const tl_flows *f, const char *path, double offset_s, tl_err *err);

/* htsim's connection matrix (.cm: "Nodes N", "Connections M", then
 * "src->dst id ID start US size BYTES"; # comments), src and dst host
 * indices in tl_topo_hosts order. Classes: "intra" and "inter" in a
 * multi-DC topology, else "default". */
int tl_flows_load_htsim(tl_flows *f, const char *path, const tl_topo *t, tl_err *err);
/* By suffix: .csv tailor's CSV, .cm htsim, anything else ns-3's flow.txt. */
int tl_flows_load_any(tl_flows *f, const char *path, const tl_topo *t, tl_err *err);

#endif
