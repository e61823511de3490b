/* Fixed-size object pool with a free list (STYLE.md "Ownership"): objects are
 * named by uint32 index, so hot structs hold 4-byte handles, and get/put never
 * call malloc once the pool has reached its working size.
 *
 * Invariants: n_live + (length of the free list) == n_alloc <= cap. */
#ifndef TAILOR_POOL_H
#define TAILOR_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

#define TL_POOL_NONE UINT32_MAX

typedef struct tl_pool {
    unsigned char *mem; /* (cap, obj_bytes) */
    size_t obj_bytes;   /* rounded up to 8 so a free slot can hold the next index */
    uint32_t cap, n_alloc, n_live, free_head;
    uint32_t max_cap; /* hard limit; growth beyond fails */
} tl_pool;

/* Reserves cap objects of obj_bytes (growing by doubling up to max_cap). */
int tl_pool_init(tl_pool *p, size_t obj_bytes, uint32_t cap, uint32_t max_cap, tl_err *err);
void tl_pool_fini(tl_pool *p);

/* Takes a free object (contents unspecified); TL_POOL_NONE when full. Note: growth
 * moves the storage, so pointers from tl_pool_at are invalid after a get. */
uint32_t tl_pool_get(tl_pool *p);

/* Returns object idx to the pool. */
void tl_pool_put(tl_pool *p, uint32_t idx);

static inline void *tl_pool_at(const tl_pool *p, uint32_t idx)
{
    return p->mem + (size_t)idx * p->obj_bytes;
}

#endif
