/* The monitor's state, shared by monitor.c (the interval's work) and
 * monitor_io.c (its files). */
#ifndef TAILOR_TUNE_MONITOR_INT_H
#define TAILOR_TUNE_MONITOR_INT_H

#include "flowstate.h"
#include "tailor/tune.h"

typedef struct tl_monitor_tor {
    int tap, naive_tap; /* pktsim tap ids */
    tl_flowstate fs;
} tl_monitor_tor;

typedef struct rtt_key {
    uint64_t pair; /* src << 32 | dst */
    uint32_t flow;
} rtt_key;

struct tl_monitor {
    tl_pktsim *sim;
    const tl_topo *topo;
    const tl_flows *flows;
    double k[TL_MON_N_KNOBS];
    int64_t interval_ps;
    double tau;
    int is_baselines;
    /* ToRs */
    uint32_t n_tors;
    uint32_t *tor_of_node, *tor_node;
    tl_monitor_tor *tor;
    uint32_t *chan_buf;
    int truth_tap, netflow_tap;
    /* trigger */
    double ref_p, last_p;
    /* NetFlow's last export */
    double p_netflow;
    int64_t next_export_ps;
    /* metrics: counters at the last interval, RTT samples in this one */
    uint64_t *prev_bytes, *d_bytes; /* per channel: at the last interval, and in this one */
    int64_t *prev_paused, *d_paused;
    int64_t d_min_ps;
    double *rtt_sum;
    uint32_t *rtt_n, *rtt_touched;
    size_t n_rtt_touched;
    rtt_key *keys;
    size_t cap_keys;
    /* totals, for tests */
    uint64_t n_inserted_pkts, n_inserted_bytes;
    tl_monitor_row *rows;
    size_t n_rows, cap_rows;
};

double tl_monitor_kl2(double p, double q);

#endif
