/* Allocator settings (see tailor/alloc.h for why). */
#include "tailor/alloc.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */

#ifdef __GLIBC__
#include <malloc.h>
#endif

void tl_alloc_tune(void)
{
#ifdef __GLIBC__
    /* 32 MiB is the largest threshold glibc accepts on 64-bit machines */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
