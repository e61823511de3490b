/* Load-balancing plug-in of pktsim (STYLE.md "Plug points"): chooses the
 * entropy of each data packet; packets with the same entropy follow the same
 * ECMP path (the path of entropy 0 is the flow's recorded path). Per-flow
 * ECMP is the one implementation now; packet spraying, PLB and Uno's
 * subflows (uno.txt §4) will choose other entropies. */
#ifndef TAILOR_PKTSIM_LB_H
#define TAILOR_PKTSIM_LB_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/params.h"
#include "tailor/rng.h"

typedef struct tl_lb_ops {
    const char *name;
    size_t state_bytes; /* per flow, zeroed by pktsim */
    void (*init)(void *st, const tl_params *p, tl_rng *r); /* optional */
    /* Entropy for the data packet starting at byte seq. Required. */
    uint64_t (*entropy)(void *st, uint64_t seq, tl_rng *r);
    /* Feedback from an ACK of a packet sent with entropy e; optional. */
    void (*on_ack)(void *st, uint64_t e, int is_ece, int64_t rtt_ps);
} tl_lb_ops;

extern const tl_lb_ops tl_lb_ecmp;

#endif
