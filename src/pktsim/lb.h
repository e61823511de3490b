/* Load-balancing plug-in of pktsim (docs/pktsim.md "Adding a load
 * balancer"): chooses the entropy of each data packet of a subflow; packets
 * with the same entropy follow the same ECMP path (entropy 0 is the flow's
 * own hash, the path per-flow ECMP gives it). The path store interns every
 * path it hands out, so an LB that changes entropy per packet costs a path
 * lookup per packet, never memory per packet. One implementation per file
 * exports one const table, registered by name in lb/registry.c. */
#ifndef TAILOR_PKTSIM_LB_H
#define TAILOR_PKTSIM_LB_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/params.h"
#include "tailor/rng.h"

typedef struct tl_lb_ops {
    const char *name;
    const char *doc;
    size_t state_bytes; /* per subflow, zeroed by pktsim */
    /* A subflow (index sub within its connection) starts. Optional. */
    void (*init)(void *st, uint32_t sub, const tl_params *p, tl_rng *r);
    /* Entropy for the data packet starting at byte seq. Required. */
    uint64_t (*entropy)(void *st, uint64_t seq, tl_rng *r);
    /* Feedback from an ACK or NACK of a packet sent with entropy e; optional. */
    void (*on_ack)(void *st, uint64_t e, int is_ece, int is_nack, int64_t rtt_ps);
} tl_lb_ops;

const tl_lb_ops *tl_lb_find(const char *name);
void tl_lb_names(char *buf, size_t n); /* "ecmp, spray" */
extern const tl_lb_ops tl_lb_ecmp;
extern const tl_lb_ops tl_lb_spray;

#endif
