/* Internals of the Parsimon engine: decomposition (decompose.c), delay
 * distributions (edist.c), link-level simulation (linksim.c), clustering
 * (cluster.c), the sources' sharing (sharing.c); parsimon.c runs them in order
 * and aggregates. */
#ifndef TAILOR_PARSIMON_INT_H
#define TAILOR_PARSIMON_INT_H

#include "tailor/buf.h"
#include "tailor/parsimon.h"
#include "tailor/pktsim.h"
#include "tailor/rng.h"

/* Data packets of a flow: its payload in mtu-byte packets, at least one. */
static inline uint64_t ps_packets(uint64_t size_bytes, uint32_t mtu)
{
    return size_bytes ? (size_bytes + mtu - 1) / mtu : 1;
}

/* What a link's delay for a flow of size_bytes is divided by, and a draw
 * multiplied by: its packet count, at least norm (tl_parsimon_opts). */
static inline double ps_norm(uint64_t size_bytes, uint32_t mtu, uint32_t norm)
{
    uint64_t k = ps_packets(size_bytes, mtu);
    return (double)(k > norm ? k : norm);
}

/* ---- decomposition: every flow's path, every channel's flows ---- */

typedef struct ps_decomp {
    uint32_t n_chans;     /* 2 x links */
    size_t n_flows;
    uint32_t *path_off;   /* (n_flows + 1) into path */
    uint32_t *path;       /* channels of every flow's path, in path order */
    uint32_t *chan_off;   /* (n_chans + 1) into chan_flows */
    uint32_t *chan_flows; /* flow indices of each channel, in flow (start) order */
    uint64_t *bytes;      /* (n_chans) payload bytes of the channel's flows */
    uint64_t *ack_bytes;  /* (n_chans) ACK bytes those flows send back (reverse channel) */
    uint64_t *pkts;       /* (n_chans) data packets of the channel's flows */
    int64_t *first_ps, *last_ps; /* (n_chans) first and last flow start */
} ps_decomp;

/* Routes every flow (tl_routes_path with its id, as pktsim does) and lists
 * each channel's flows. mtu/ack_bytes: payload per packet and ACK size.
 * O(total hops). */
int ps_decompose(ps_decomp *d, const tl_routes *r, const tl_flows *f, uint32_t mtu,
                 uint32_t ack_bytes, tl_err *err);
void ps_decomp_fini(ps_decomp *d);

/* Rate of the ACKs that cross chan for the flows of its reverse channel:
 * their ACK bytes over the reverse channel's arrival span (first to last flow
 * start, parsimon.txt §3.2), but never over less than the time the reverse
 * channel needs to carry those flows' data (payload + header bytes) at its
 * rate. bit/s. */
double ps_ack_rate_bps(const ps_decomp *d, const tl_topo *t, uint32_t chan, uint32_t header);

/* 1 if chan cannot queue in the full network: every one of its flows
 * reaches chan's tail through the same channel up, no faster than chan (rate
 * of up <= rate of chan), and the ACKs that cross chan (those of the reverse
 * channel's flows) come through up as well. Such a link only forwards what
 * up has already serialized, so packets never wait for it; a link-level
 * simulation feeds it straight from the sources' NICs instead and would count
 * up's queue a second time (parsimon.txt §3.6, "lack of traffic smoothing").
 * Example: a spine of a 2-pod fabric links one fabric switch per pod, so its
 * down-link carries exactly the flows of the other pod's up-link. */
int ps_is_passthrough(const ps_decomp *d, const tl_topo *t, uint32_t chan);

/* Offered load of chan: its flows' payload bytes over their arrival span,
 * relative to the link rate; 0 with fewer than two starts. */
double ps_load(const ps_decomp *d, const tl_topo *t, uint32_t chan);

/* ---- delay distributions of one channel (§3.3) ---- */

typedef struct ps_edist {
    uint32_t n_buckets;
    uint64_t *lo;    /* (n_buckets) smallest size of each bucket; the last is open-ended */
    uint32_t *off;   /* (n_buckets + 1) into samples */
    float *samples;  /* packet-normalized delays, ps, sorted within a bucket */
} ps_edist;

/* Buckets n records (size[i], pnd[i]) sorted by size: a bucket grows until it
 * holds at least b records and its largest size is at least x times its
 * lower bound, then takes every further record of that same largest size;
 * what is left forms a last, open-ended bucket (or, if nothing is left,
 * the last bucket is made open-ended). The first bucket starts at 0. n == 0
 * gives no bucket: every draw is 0. The inputs are not modified. */
int ps_edist_build(ps_edist *e, const uint64_t *size, const double *pnd, uint32_t n, uint32_t b,
                   double x, tl_err *err);
void ps_edist_fini(ps_edist *e);
/* e as bytes for another MPI rank, and back (unpack fills e whole; on
 * error e is empty). */
int ps_edist_pack(const ps_edist *e, tl_wbuf *out, tl_err *err);
uint64_t ps_edist_packed_bytes(const ps_edist *e); /* what pack appends */
int ps_edist_unpack(ps_edist *e, tl_rbuf *in, tl_err *err);
/* One packet-normalized delay for a flow of this size, uniform over its
 * bucket's samples. */
double ps_edist_draw(const ps_edist *e, uint64_t size, tl_rng *r);

/* ---- link-level simulation (Fig. 4) ---- */

/* The fixed inputs every link simulation reads. */
typedef struct ps_env {
    const tl_topo *t;
    const tl_flows *f;
    const tl_params *p;
    const char *cc;
    uint64_t seed;
    const ps_decomp *d;
    const tl_parsimon_opts *o;
    uint32_t mtu, header;
    tl_fabric_ref fabric; /* the whole network's, for every link simulation */
} ps_env;

typedef struct ps_link_out {
    int kind;          /* 0 first hop, 1 switch to switch, 2 last hop */
    uint64_t n_link_hops, n_drops, n_timeouts;
    double wall_s;
    double cpu_s[2];                /* run 0: the link at its rate; 1: the link fat */
    uint64_t n_pkts[2], n_events[2]; /* data packets and pktsim events of each run */
    uint32_t n_requeued; /* 1 if the runs went again with queues (PFC would pause past v) */
    double paused_frac;  /* PFC: the most any port of the run at rate was paused, as a share
                            of the run (the link by v, or a source by u) */
    double queue_byte_s; /* the link's queue in the run at rate, integrated over the run
                            (byte-seconds): what bench_parsimon_error holds against pktsim's */
} ps_link_out;

/* Simulates channel chan's flows on its link-level topology with pktsim and
 * buckets their packet-normalized delays into e. */
int ps_linksim(const ps_env *env, uint32_t chan, ps_edist *e, ps_link_out *out, tl_err *err);

/* ---- the sources' sharing in a last-hop simulation (sharing.c) ---- */

typedef struct ps_share {
    uint32_t n_ctx;       /* the sources' other flows, simulated past u to a sink */
    uint32_t *ctx;        /* (n_ctx) index into env->f */
    uint32_t *ctx_src;    /* (n_ctx) its local source */
    int64_t *ctx_start;   /* (n_ctx) its start, clipped, in the network's clock */
    uint64_t *ctx_bytes;  /* (n_ctx) its size, clipped */
    uint32_t n_ack;       /* single ACK packets over the link */
    uint32_t *ack_of;     /* (n_ack) the flow v sends that each acknowledges */
    int64_t *ack_at;      /* (n_ack) its arrival at u, in the network's clock */
} ps_share;

/* What a last-hop simulation of chan adds with tl_parsimon_opts.
 * is_share_sources: fl/lsrc (n) the link's flows in start order and their
 * local sources, src_first (n_src) a flow of each local source. */
int ps_share_collect(const ps_env *env, uint32_t chan, const uint32_t *fl, const uint32_t *lsrc,
                     uint32_t n, const uint32_t *src_first, uint32_t n_src, ps_share *sh,
                     tl_err *err);
void ps_share_fini(ps_share *sh);

/* ---- clustering (§4.2, appendix D) ---- */

/* rep[c] = the channel whose simulation stands for busy channel c (c itself
 * for a representative); UINT32_MAX for idle channels. Greedy: channels in
 * decreasing load order; each unassigned one becomes a representative and
 * takes every later unassigned channel close enough to it. Without
 * clustering every busy channel represents itself, and so does every
 * pass-through channel (pass[c], never simulated) with it. */
int ps_cluster(const ps_env *env, int is_cluster, const uint8_t *pass, uint32_t *rep,
               tl_err *err);

#endif
