/* Uno's incast experiments on its two-DC network (uno.txt §5.1-5.2.1, issue
 * 45): two k = 8 fat trees at 100 Gb/s with 1 us links, one border switch
 * each, 8 WAN links of a chosen one-way delay, 4096 B MTU, 1 MiB per port.
 * Long flows from chosen senders into host 240 (DC 1) start at once; every
 * sample interval the probe records each sender's NIC rate and window and
 * the queue at the bottleneck (host 240's ToR downlink). Shared by
 * bench_uno (prints and writes the time series) and test_uno (asserts
 * them). */
#ifndef UNO_PROBE_H
#define UNO_PROBE_H

#include <stdint.h>

#define UNO_PROBE_MAX_SRC 32
#define UNO_PROBE_DST 240 /* host index: DC 1's pod 7 */
#define UNO_PROBE_RPC_SRC 241 /* host 240's rack neighbour */

typedef struct uno_probe_case {
    const char *cc;
    const char *knobs;     /* extra "transport" members, JSON, or NULL */
    const char *switch_knobs; /* extra members of transport.switch, JSON, or NULL */
    int n_inter, n_intra;  /* senders in DC 0 (other DC) and in DC 1 (other pods) */
    uint64_t size_bytes;   /* per flow */
    double wan_delay_us;   /* one way; 886.5 is the paper's "128 x" RTT ratio */
    int64_t end_ps;        /* simulate this long */
    int64_t sample_ps;     /* series resolution */
    /* A second wave: n_late more intra senders start at late_ps (0: none). */
    int n_late;
    int64_t late_ps;
    /* Fig. 4's background: n_rpc messages from host 241 (host 240's rack)
     * to host 240, one every rpc_gap_ps from rpc_start_ps, of sizes drawn
     * uniformly from [rpc_min_bytes, rpc_max_bytes] with a fixed seed. */
    int n_rpc;
    int64_t rpc_start_ps, rpc_gap_ps;
    uint64_t rpc_min_bytes, rpc_max_bytes;
} uno_probe_case;

typedef struct uno_probe_out {
    int n_flows, n_samples;
    double *rate_gbps;     /* [n_samples][n_flows]: NIC bytes sent in each interval */
    double *cwnd_bytes;    /* [n_samples][n_flows] at each sample's end */
    double *queue_bytes;   /* [n_samples]: the bottleneck's queue at each sample's end */
    int is_inter[UNO_PROBE_MAX_SRC];
    int64_t intra_rtt_ps;  /* the network's intra-DC reference RTT */
    int n_rpc;
    double *rpc_fct_us;    /* [n_rpc]: completion time (receiver side), NAN if unfinished */
    double *rpc_ideal_us;  /* [n_rpc]: the same alone in the network */
    uint64_t drops, timeouts, bneck_bytes;
} uno_probe_out;

/* 0, or non-zero with a message on stderr. Free out with uno_probe_free. */
int uno_probe_run(const uno_probe_case *c, uno_probe_out *out);
void uno_probe_free(uno_probe_out *out);

/* Fig. 4's case (the artifact's exp_paper.cm): 8 inter-DC senders of 1 GB
 * into host 240 and, from 15 ms, a 4-16 KB message from host 241 every
 * 25 us, 1,000 of them; simulated to 41 ms. Sets those fields of *c. */
void uno_probe_fig4(uno_probe_case *c);

/* The messages' FCTs: mean, p99 (nearest rank) and max of the finished
 * ones, and their mean ideal FCT (us, receiver side). Returns how many
 * finished (then the figures are NAN if none), or -1 without memory. */
typedef struct uno_rpc_stats {
    double mean_us, p99_us, max_us, ideal_mean_us;
} uno_rpc_stats;
int uno_probe_rpc_stats(const uno_probe_out *o, uno_rpc_stats *st);

/* The first sample index from which every flow's rate stays within tol of
 * the fair share (bottleneck rate / flows) up to the end; -1 if none. */
int uno_probe_fair_from(const uno_probe_out *o, double line_gbps, double tol);

#endif
