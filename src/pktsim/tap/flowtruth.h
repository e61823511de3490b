/* The tap "flowtruth": the exact oracle the monitors are judged against. On
 * the switches hosts attach to it counts, at the first switch of each data
 * packet, the packet's payload per flow (this interval and in all) and
 * which host uplinks carried data this interval. */
#ifndef TAILOR_PKTSIM_TAP_FLOWTRUTH_H
#define TAILOR_PKTSIM_TAP_FLOWTRUTH_H

#include <stdint.h>

#include "flowlist.h"

typedef struct tl_flowtruth {
    tl_flowlist now;     /* this interval */
    uint64_t *total;     /* (n_flows) since the start */
    uint8_t *chan_active; /* (n_chans) the channel brought data from a host this interval */
    uint32_t n_chans;
    uint64_t n_pkts, n_bytes;
} tl_flowtruth;

#endif
