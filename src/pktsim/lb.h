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
    /* Its own knobs (registered after the queue policies' in the parameter
     * registry; group = its name, e.g. "unolb.subflows"), read with
     * tl_params_table(p, knobs)[KNOB]; NULL if it has none. */
    const tl_param_def *knobs;
    size_t n_knobs;
    /* A subflow (index sub within its connection) starts at now_ps; its
     * path's base RTT is base_rtt_ps. Optional. */
    void (*init)(void *st, uint32_t sub, const tl_params *p, int64_t base_rtt_ps, int64_t now_ps,
                 tl_rng *r);
    /* Entropy for the data packet starting at byte seq; *tag (0 before the
     * call) travels with the packet and comes back on its ACK or NACK (an
     * UnoLB slot). Required. */
    uint64_t (*entropy)(void *st, uint64_t seq, int64_t now_ps, tl_rng *r, uint8_t *tag);
    /* Feedback from an ACK or NACK of a packet sent with entropy e and tag;
     * optional. */
    void (*on_ack)(void *st, uint64_t e, uint8_t tag, int is_ece, int is_nack, int64_t rtt_ps,
                   int64_t now_ps);
    /* The transport declared a loss (a timeout or a NACK for a block);
     * rto_ps is the subflow's timeout. Optional. */
    void (*on_loss)(void *st, int64_t now_ps, int64_t rto_ps, tl_rng *r);
} tl_lb_ops;

const tl_lb_ops *tl_lb_find(const char *name);
void tl_lb_names(char *buf, size_t n); /* "ecmp, spray" */
extern const tl_lb_ops tl_lb_ecmp;
extern const tl_lb_ops tl_lb_spray;
extern const tl_lb_ops tl_lb_unolb;
extern const tl_lb_ops tl_lb_plb;

#endif
