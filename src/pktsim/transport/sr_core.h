/* What the selective-repeat transports share (sack.c, ec.c): a FIFO of
 * fixed-size records in a growable power-of-two ring (their timeout and
 * resend queues) and the gate every packet passes, window then pacing. */
#ifndef TAILOR_PKTSIM_TRANSPORT_SR_CORE_H
#define TAILOR_PKTSIM_TRANSPORT_SR_CORE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../transport.h"
#include "tailor/time.h"

/* A FIFO of fixed-size records in a growable ring. */
static inline int fifo_push(void **buf, uint32_t *head, uint32_t *n, uint32_t *cap, size_t size,
                            const void *rec)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 64;
        char *b = malloc((size_t)nc * size);
        if (!b)
            return -1;
        for (uint32_t i = 0; i < *n; i++)
            memcpy(b + i * size, (char *)*buf + ((*head + i) & (*cap - 1)) * size, size);
        free(*buf);
        *buf = b, *head = 0, *cap = nc;
    }
    memcpy((char *)*buf + ((*head + *n) & (*cap - 1)) * size, rec, size);
    (*n)++;
    return 0;
}

/* Whether subflow sf may send payload bytes now, with in_flight bytes out
 * and its last packet of last_wire bytes sent at last_send_ps; if not,
 * *wake is TL_PULL_BLOCKED (window full) or the paced next sending time. */
static inline int sr_may_send(const tl_subflow *sf, uint64_t in_flight, uint32_t payload,
                              uint32_t last_wire, int64_t last_send_ps, int64_t now, int64_t *wake)
{
    if (in_flight + payload > sf->io.cwnd_bytes && in_flight) {
        *wake = TL_PULL_BLOCKED;
        return 0;
    }
    if (last_wire && sf->io.rate_bps && sf->io.rate_bps < sf->io.line_bps) {
        int64_t next = last_send_ps + tl_tx_time_ps(last_wire, sf->io.rate_bps);
        if (next > now) {
            *wake = next;
            return 0;
        }
    }
    return 1;
}

#endif
