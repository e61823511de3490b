/* Index-addressed object pool; a free slot stores the next free index in its
 * first four bytes (an intrusive free list, as htsim's packet free lists). */
#include "tailor/pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int tl_pool_init(tl_pool *p, size_t obj_bytes, uint32_t cap, uint32_t max_cap, tl_err *err)
{
    memset(p, 0, sizeof *p);
    p->obj_bytes = (obj_bytes + 7) & ~(size_t)7;
    if (p->obj_bytes == 0)
        p->obj_bytes = 8;
    p->cap = cap ? cap : 64;
    p->max_cap = max_cap < p->cap ? p->cap : max_cap;
    p->free_head = TL_POOL_NONE;
    p->mem = malloc((size_t)p->cap * p->obj_bytes);
    if (!p->mem)
        return tl_err_nomem(err);
    return 0;
}

void tl_pool_fini(tl_pool *p)
{
    if (!p)
        return;
    free(p->mem);
    p->mem = NULL;
}

uint32_t tl_pool_get(tl_pool *p)
{
    if (p->free_head != TL_POOL_NONE) {
        uint32_t idx = p->free_head;
        memcpy(&p->free_head, tl_pool_at(p, idx), sizeof(uint32_t));
        p->n_live++;
        return idx;
    }
    if (p->n_alloc == p->cap) {
        if (p->cap >= p->max_cap)
            return TL_POOL_NONE;
        uint64_t ncap = (uint64_t)p->cap * 2;
        if (ncap > p->max_cap)
            ncap = p->max_cap;
        unsigned char *m = realloc(p->mem, (size_t)ncap * p->obj_bytes);
        if (!m)
            return TL_POOL_NONE;
        p->mem = m;
        p->cap = (uint32_t)ncap;
    }
    p->n_live++;
    return p->n_alloc++;
}

void tl_pool_put(tl_pool *p, uint32_t idx)
{
    assert(idx < p->n_alloc && p->n_live > 0);
    memcpy(tl_pool_at(p, idx), &p->free_head, sizeof(uint32_t));
    p->free_head = idx;
    p->n_live--;
}
