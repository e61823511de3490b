/* Per-flow byte counts over an interval, with the list of flows touched in
 * it, for the taps that keep one entry per flow (flowtruth, netflow):
 * O(1) per packet, O(touched) to read and clear. */
#ifndef TAILOR_PKTSIM_TAP_FLOWLIST_H
#define TAILOR_PKTSIM_TAP_FLOWLIST_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

typedef struct tl_flowlist {
    uint64_t *bytes;  /* (n_flows) since the last clear */
    uint32_t *touched; /* flows with bytes > 0 ... */
    size_t n_touched;  /* ... this many */
    size_t n_flows;
} tl_flowlist;

int tl_flowlist_init(tl_flowlist *l, size_t n_flows, tl_err *err);
void tl_flowlist_fini(tl_flowlist *l);
static inline void tl_flowlist_add(tl_flowlist *l, uint32_t flow, uint64_t bytes)
{
    if (!l->bytes[flow])
        l->touched[l->n_touched++] = flow;
    l->bytes[flow] += bytes ? bytes : 1; /* an empty packet still marks the flow seen */
}
void tl_flowlist_clear(tl_flowlist *l);

#endif
