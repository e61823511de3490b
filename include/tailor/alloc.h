/* Allocator settings for tailor's programs (the CLI and the benchmarks call
 * tl_alloc_tune first thing; the library never changes them on its own). */
#ifndef TAILOR_ALLOC_H
#define TAILOR_ALLOC_H

/* The engines allocate and free arrays of tens of MB over and over (m3: a
 * workload and a flowsim per drawn path; Parsimon: a pktsim per link). With
 * glibc's defaults such blocks go back to the kernel when freed and come
 * back as fresh pages: a page fault per 4 KB and a TLB shootdown across the
 * cores on first write. tl_alloc_tune keeps blocks up to 32 MiB in the
 * heap and freed memory up to 1 GiB in the process (m3 on 2M flows: 17.4 s
 * -> 14.7 s, same peak memory). No effect off glibc. */
void tl_alloc_tune(void);

#endif
