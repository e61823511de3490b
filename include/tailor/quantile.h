/* Quantiles of samples (FCT slowdowns, link loads).
 * Exact: sorts a copy and interpolates linearly between order statistics (the
 * "type 7" definition of Hyndman & Fan, numpy's default), so p50 of {1,2} is 1.5.
 * Streaming: a log-linear histogram with bounded relative error that uses fixed
 * memory, merges exactly (bucket counts add), and so gives the same answer
 * whatever the order or the thread split of the samples. */
#ifndef TAILOR_QUANTILE_H
#define TAILOR_QUANTILE_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"

/* qsort comparator for doubles, ascending (NaN compares equal to all). */
int tl_cmp_double(const void *a, const void *b);
/* q in [0, 1]. Sorts xs in place. n == 0 gives NaN. O(n log n). */
double tl_quantile_sorted(const double *sorted, size_t n, double q);

/* Sorts n unsigned keys ascending (LSD radix, 8 bits a pass, passes whose
 * digit is the same in every key skipped); tmp holds n keys. Several times
 * faster than qsort on the flow sizes and gaps Parsimon's clustering sorts. */
void tl_sort_u64(uint64_t *keys, uint64_t *tmp, size_t n);
int tl_quantiles(double *xs, size_t n, const double *qs, double *out, size_t n_q, tl_err *err);

/* Streaming quantile sketch for positive values in [min_value, max_value];
 * values outside are clamped into the edge buckets (and counted). Each bucket
 * spans a factor (1 + 2*rel_err), and a query returns the bucket's geometric
 * midpoint, so the answer is within rel_err of some sample whose rank is
 * the requested one. */
typedef struct tl_qsketch {
    double min_value, log_base; /* bucket i covers [min*b^i, min*b^(i+1)) */
    uint32_t n_buckets;
    uint64_t *counts; /* (n_buckets) */
    uint64_t n, n_clamped;
    double min_seen, max_seen;
} tl_qsketch;

int tl_qsketch_init(tl_qsketch *s, double min_value, double max_value, double rel_err, tl_err *err);
void tl_qsketch_fini(tl_qsketch *s);
void tl_qsketch_add(tl_qsketch *s, double x);
/* Adds every count of src into dst; both must have been made with the same parameters. */
int tl_qsketch_merge(tl_qsketch *dst, const tl_qsketch *src, tl_err *err);
/* q in [0, 1]; NaN when empty. q == 0 and q == 1 give the exact min and max. */
double tl_qsketch_quantile(const tl_qsketch *s, double q);

#endif
