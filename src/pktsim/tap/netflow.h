/* The tap "netflow": sampled NetFlow, PARALEON's Fig. 10 baseline
 * (paraleon.txt §IV-B3). At each data packet's first switch it keeps one
 * packet in monitor.netflow_rate, chosen by a hash of (flow, sequence), so
 * no random stream is drawn and a retransmission is judged as its original;
 * the reader scales sampled bytes by the rate at each export. */
#ifndef TAILOR_PKTSIM_TAP_NETFLOW_H
#define TAILOR_PKTSIM_TAP_NETFLOW_H

#include <stdint.h>

#include "flowlist.h"

typedef struct tl_netflow {
    tl_flowlist sampled; /* sampled payload since the last export */
    uint64_t rate;
    uint64_t salt;
} tl_netflow;

#endif
