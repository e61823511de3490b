/* Queue-policy plug-in of pktsim (docs/pktsim.md "Adding a queue policy"):
 * watches one egress port's data packets and decides their ECN marks. Each
 * port takes the policy of its class (host NIC, intra-DC switch port, WAN
 * port: tl_pktsim_opts.qpolicy), so Uno's phantom queues (uno.txt §4) can
 * run on WAN ports only. One implementation per file exports one const
 * table, registered by name in qpolicy/registry.c. */
#ifndef TAILOR_PKTSIM_QPOLICY_H
#define TAILOR_PKTSIM_QPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/params.h"
#include "tailor/pktsim.h"
#include "tailor/rng.h"

/* What a policy knows of its port. */
typedef struct tl_qpolicy_port {
    uint64_t rate_bps;
    const tl_fabric_ref *fabric; /* the network's references (largest BDP, ...) */
} tl_qpolicy_port;

typedef struct tl_qpolicy_ops {
    const char *name;
    const char *doc;
    size_t state_bytes; /* per port, zeroed by pktsim */
    /* Its own knobs (registered after the CCs' in the parameter registry;
     * group = its name, e.g. "phantom.drain_frac"), read with
     * tl_params_table(p, knobs)[KNOB]; NULL if it has none. */
    const tl_param_def *knobs;
    size_t n_knobs;
    /* Reads knobs for its port (at create and after a run-time change). Required. */
    void (*configure)(void *st, const tl_qpolicy_port *port, const tl_params *p);
    /* A data packet of pkt_bytes joined (q_bytes: the queue with it) or left
     * (q_bytes: the queue left behind) the port; return 1 to mark it. */
    int (*on_enqueue)(void *st, uint64_t q_bytes, uint32_t pkt_bytes, int64_t now_ps, tl_rng *r);
    int (*on_dequeue)(void *st, uint64_t q_bytes, uint32_t pkt_bytes, int64_t now_ps, tl_rng *r);
} tl_qpolicy_ops;

const tl_qpolicy_ops *tl_qpolicy_find(const char *name);
void tl_qpolicy_names(char *buf, size_t n);
extern const tl_qpolicy_ops tl_qpolicy_red;
extern const tl_qpolicy_ops tl_qpolicy_none;
extern const tl_qpolicy_ops tl_qpolicy_phantom;

#endif
