/* A FIFO of fixed-size records in a growable power-of-two ring (the
 * selective-repeat transports' timeout and resend queues). */
#ifndef TAILOR_PKTSIM_TRANSPORT_FIFO_H
#define TAILOR_PKTSIM_TRANSPORT_FIFO_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
