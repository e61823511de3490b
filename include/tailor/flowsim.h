/* flowsim: a max-min fair flow-level simulator (m3.txt §2.2, §3.3, appendix
 * A). Flows move at their max-min fair rates, recomputed at every arrival
 * and completion; only the part of the network connected to the change (the
 * links reachable through active flows from the changed flow's links) is
 * refilled, and completions come from a heap keyed by projected finish time
 * with stale entries skipped. It is m3's feature extractor and a fast engine
 * of its own (`tailor run --engine flowsim`).
 *
 * A flow's FCT is its max-min transfer time for all its wire bytes (payload
 * plus one header per packet) plus the latency terms of the ideal FCT (the
 * path's propagation delay, and the first packet's store-and-forward time on
 * every hop but the bottleneck): a flow alone on its path gets exactly its
 * ideal FCT, as in pktsim (docs/flowsim.md). */
#ifndef TAILOR_FLOWSIM_H
#define TAILOR_FLOWSIM_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

typedef struct tl_flowsim tl_flowsim;

/* Whole-network mode: flows f on topology t, each on its ECMP path from r.
 * Borrows t, r and f. Reads nic.mtu_bytes and nic.header_bytes from p. */
tl_flowsim *tl_flowsim_create(const tl_topo *t, const tl_routes *r, const tl_flows *f,
                              const tl_params *p, tl_err *err);

/* Path-level mode (m3.txt §3.2): one path of links, its foreground flows
 * (first = 0, last = n_links - 1, no access links) and background flows
 * (crossing links first..last), each background flow attached through its
 * own source and destination access links: a private capacity and delay
 * that no other flow shares (0 bps = none: the flow starts or ends on the
 * path's own endpoint). */
typedef struct tl_fs_link {
    uint64_t rate_bps;
    int64_t delay_ps;
} tl_fs_link;

typedef struct tl_fs_path_flow {
    uint64_t size_bytes;
    int64_t start_ps;
    uint16_t first, last;   /* path links crossed, inclusive */
    tl_fs_link src, dst;    /* private access links; rate 0 = none */
} tl_fs_path_flow;

/* Copies links and flows (flows must be sorted by start). */
tl_flowsim *tl_flowsim_create_path(const tl_fs_link *links, int n_links,
                                   const tl_fs_path_flow *flows, size_t n_flows,
                                   const tl_params *p, tl_err *err);

void tl_flowsim_destroy(tl_flowsim *s);

/* Runs every flow to completion. */
int tl_flowsim_run(tl_flowsim *s, tl_progress *prog, tl_err *err);

/* Whether flowsim reads registered knob name at all: it models max-min fair
 * sharing, so only the packet sizes (MTU, header bytes) change its result. */
int tl_flowsim_knob_is_read(const char *name);

/* Per-flow results in the flows' order (valid after run). */
const tl_flow_result *tl_flowsim_results(const tl_flowsim *s);

typedef struct tl_flowsim_stats {
    uint64_t n_events;          /* arrivals + completions */
    uint64_t links_refilled;    /* summed over events */
    uint64_t flows_refilled;    /* summed over events */
    uint64_t max_active_flows;
    int64_t now_ps;
} tl_flowsim_stats;
void tl_flowsim_get_stats(const tl_flowsim *s, tl_flowsim_stats *st);

#endif
