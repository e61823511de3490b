/* One bottleneck under a congestion control (issue 44, "cc-fidelity"): a
 * k = 8 fat tree with every link at one rate and 1 us per hop, long flows
 * from chosen hosts into host 0, so the bottleneck is host 0's ToR downlink.
 * (Flows may go elsewhere: dst; the bottleneck is then the link into the
 * first flow's receiver.) Between t1 and t2 of simulated time it measures the bottleneck's
 * utilization, each sender's share, the queue (sampled every 10 us), and
 * over the whole run the PAUSE frames, drops and timeouts. Shared by
 * bench_cc_fidelity (prints the figures) and test_cc_fidelity (asserts
 * them). */
#ifndef CC_PROBE_H
#define CC_PROBE_H

#include <stdint.h>

#define CC_PROBE_MAX_SRC 16

typedef struct cc_probe_case {
    const char *cc;
    int gbps;                          /* every link's rate */
    int n_src;
    uint32_t src[CC_PROBE_MAX_SRC];    /* sender host indices */
    uint32_t dst[CC_PROBE_MAX_SRC];    /* receiver host indices (0 when not set) */
    const char *knobs;                 /* extra "transport" members, JSON, or NULL */
    /* Two switch bottlenecks in a row: flow 2's id (ECMP hashes it) is the
     * first from 2 up whose path shares the second hop of flow 0's path,
     * its ToR uplink, and no other link of flows 0 and 1. */
    int is_park;
    int64_t t1_ps, t2_ps;              /* the measurement window */
} cc_probe_case;

typedef struct cc_probe_out {
    double util;                       /* bottleneck bytes over capacity in [t1, t2] */
    double nic[CC_PROBE_MAX_SRC];      /* each sender's NIC: bytes over capacity in [t1, t2] */
    double down[CC_PROBE_MAX_SRC];     /* the link into each flow's receiver, the same */
    double share[CC_PROBE_MAX_SRC];    /* each sender's part of what all sent in [t1, t2] */
    double q_mean, q_max;              /* bottleneck queue in [t1, t2], bytes */
    uint64_t pauses, drops, timeouts;  /* whole run */
    uint64_t backlog;                  /* bytes queued at t2 in all ports, the bottleneck's too */
} cc_probe_out;

/* 0, or non-zero with a message on stderr. */
int cc_probe_run(const cc_probe_case *c, cc_probe_out *out);

/* Host indices of the k = 8 tree the probes use: 1-2 share host 0's rack
 * (2 hops), 4-15 its pod (4 hops), 16-127 other pods (6 hops). */
#define CC_PROBE_HOSTS 128

#endif
