/* ECN marking decision of an egress port (DCTCP's step at K when kmin = kmax;
 * RED-like between kmin and kmax with probability up to pmax, as DCQCN's
 * congestion point, paraleon.txt §II). Kept pure so tests can check it on
 * constructed queue lengths. q_bytes is the queue the packet is judged
 * against (the queue it leaves behind when marking at dequeue, the queue it
 * joins, itself included, when marking at enqueue); u is uniform in [0, 1). */
#ifndef TAILOR_PKTSIM_ECN_H
#define TAILOR_PKTSIM_ECN_H

#include <stdint.h>

static inline int tl_ecn_should_mark(uint64_t q_bytes, uint64_t kmin_bytes, uint64_t kmax_bytes,
                                     double pmax, double u)
{
    if (q_bytes <= kmin_bytes)
        return 0;
    if (q_bytes > kmax_bytes)
        return 1;
    return u < pmax * (double)(q_bytes - kmin_bytes) / (double)(kmax_bytes - kmin_bytes);
}

#endif
