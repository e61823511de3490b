/* The congestion-control plug-in interface of pktsim (STYLE.md "Plug points").
 * A CC owns a flow's window and pacing rate and sees only tl_cc_io, never the
 * transport's internals; the transport holds no CC logic. One implementation
 * per file exports one descriptor (tailor/cc.h: name, id, knobs, presets,
 * doc) that points at its static ops table; cc/registry.c lists them. */
#ifndef TAILOR_PKTSIM_CC_H
#define TAILOR_PKTSIM_CC_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/cc.h"
#include "tailor/err.h"
#include "tailor/params.h"

typedef struct tl_cc_io {
    uint64_t cwnd_bytes;   /* window; UINT64_MAX = no window limit */
    uint64_t rate_bps;     /* pacing rate; 0 = send at line rate */
    uint64_t line_bps;     /* the flow's NIC rate (read only) */
    uint32_t mss_bytes;    /* payload per packet (read only) */
    int64_t now_ps;        /* read only */
    uint64_t snd_nxt, snd_una; /* read only: highest byte sent + 1, first unacked byte */
    int64_t base_rtt_ps;   /* the path's unloaded round trip (read only) */
    int64_t fabric_rtt_ps; /* the fabric's largest round trip, tl_fabric_ref (read only) */
    uint64_t fabric_bdp_bytes; /* the fabric's largest BDP, tl_fabric_ref (read only) */
    int64_t intra_rtt_ps;      /* the largest within one data center (read only) */
    uint64_t intra_bdp_bytes;  /* the largest BDP within one data center (read only) */
    int64_t timer_at_ps;   /* the CC arms its timer by setting this; 0 = none */
    int64_t rto_ps;        /* the transport's retransmission timeout for the flow, 0 if it
                            * keeps none per flow (read only) */
    uint64_t inflight_bytes; /* payload sent and neither acknowledged nor declared lost,
                              * UINT64_MAX if the transport does not count it: then
                              * snd_nxt - snd_una (read only) */
} tl_cc_io;

/* In-band telemetry stamped by every switch a data packet leaves (HPCC, Li
 * et al. SIGCOMM'19): the egress port's queue, its cumulative transmitted
 * bytes, the time and the port's rate. The ACK carries the records back. */
#define TL_MAX_INT_HOPS 8
typedef struct tl_int_hop {
    uint64_t qlen_bytes;
    uint64_t tx_bytes;
    int64_t ts_ps;
    uint64_t rate_bps;
} tl_int_hop;

typedef struct tl_ack_info {
    uint64_t ack_seq;     /* cumulative: every byte below was received */
    uint64_t newly_acked; /* bytes this ACK acknowledges for the first time */
    int is_ece;           /* the acked data packet carried an ECN mark */
    int64_t rtt_ps;       /* now - the data packet's send time */
    const tl_int_hop *hops; /* INT records of the acked packet (uses_int CCs), else NULL */
    int n_hops;
    uint32_t sub;         /* the subflow the acked packet was sent on */
    int is_nack;          /* a NACK: the receiver saw a gap (a loss) */
} tl_ack_info;

/* Name, knobs and properties are the descriptor's (tl_cc_desc); this is the
 * behaviour. Knobs are read as tl_cc_knobs(&desc, p)[KNOB], KNOB from the
 * enum beside the CC's knob table. */
struct tl_cc_ops {
    const tl_cc_desc *desc; /* its descriptor (name, knob groups, ...), for the engine */
    size_t state_bytes; /* per-flow private state, zeroed by pktsim */
    /* Receivers send CNPs for ECN-marked packets, at most one per flow per
     * cnp_interval_ps (DCQCN's notification point). */
    int uses_cnp;
    int uses_int; /* switches stamp INT records on this CC's data packets */
    /* Sets the initial window and rate; reads knobs from p. Required. */
    int (*init)(void *st, tl_cc_io *io, const tl_params *p, tl_err *err);
    void (*on_ack)(void *st, tl_cc_io *io, const tl_ack_info *ack); /* required */
    void (*on_timer)(void *st, tl_cc_io *io);                        /* optional */
    void (*on_cnp)(void *st, tl_cc_io *io); /* a CNP arrived (uses_cnp); optional */
    /* The least time between two CNPs of one flow (uses_cnp; else 0). */
    int64_t (*cnp_interval_ps)(const tl_params *p);
    void (*on_loss)(void *st, tl_cc_io *io); /* a timeout or NACK; optional */
    /* Re-reads the knobs after a run-time change; optional. */
    void (*reconfigure)(void *st, tl_cc_io *io, const tl_params *p);
};

/* For window CCs that cap their window at the flow's BDP (Uno, Gemini,
 * MPRDMA): clamps *cwnd to [1 MSS, max(bdp, 1 MSS)] and publishes it. */
static inline void tl_cc_set_window(tl_cc_io *io, double *cwnd, double bdp)
{
    double lo = io->mss_bytes, hi = bdp > lo ? bdp : lo;
    *cwnd = *cwnd < lo ? lo : *cwnd > hi ? hi : *cwnd;
    io->cwnd_bytes = (uint64_t)*cwnd;
}

/* Publishes a pacing rate; at or above line rate the flow is not paced. */
static inline void tl_cc_set_rate(tl_cc_io *io, double bps)
{
    io->rate_bps = bps >= (double)io->line_bps ? 0 : (uint64_t)bps;
}

/* pktsim's implementation of the CC named name; NULL if the name is unknown
 * or no engine implements it yet. */
const tl_cc_ops *tl_cc_find(const char *name);

#endif
