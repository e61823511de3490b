/* The counting tap's state (tap/count.c), for its readers. */
#ifndef TAILOR_PKTSIM_TAP_COUNT_H
#define TAILOR_PKTSIM_TAP_COUNT_H

#include <stdint.h>

typedef struct tl_tap_count_state {
    uint64_t data_pkts, data_bytes; /* data packets that came straight from their host */
    uint64_t other_pkts;            /* everything else it saw */
    uint64_t n_intervals;
} tl_tap_count_state;

#endif
