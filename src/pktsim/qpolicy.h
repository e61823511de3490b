/* Queue-policy plug-in of pktsim (STYLE.md "Plug points"): watches one
 * egress port's data packets and decides their ECN marks. RED/step marking
 * is the one implementation now; Uno's phantom queues (uno.txt §4) will be
 * another, counting bytes into a virtual queue drained below line rate. */
#ifndef TAILOR_PKTSIM_QPOLICY_H
#define TAILOR_PKTSIM_QPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/params.h"
#include "tailor/rng.h"

typedef struct tl_qpolicy_ops {
    const char *name;
    size_t state_bytes; /* per port, zeroed by pktsim */
    /* Reads knobs for a port of rate_bps (at create and after a run-time change). Required. */
    void (*configure)(void *st, uint64_t rate_bps, const tl_params *p);
    /* A data packet of pkt_bytes joined (q_bytes: the queue with it) or left
     * (q_bytes: the queue left behind) the port; return 1 to mark it. */
    int (*on_enqueue)(void *st, uint64_t q_bytes, uint32_t pkt_bytes, int64_t now_ps, tl_rng *r);
    int (*on_dequeue)(void *st, uint64_t q_bytes, uint32_t pkt_bytes, int64_t now_ps, tl_rng *r);
} tl_qpolicy_ops;

extern const tl_qpolicy_ops tl_qpolicy_red;

#endif
