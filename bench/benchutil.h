/* Benchmark helpers: wall clock, peak memory, and the one-line figure format
 * of STYLE.md ("name value unit scenario threads=N commit"). */
#ifndef TAILOR_BENCHUTIL_H
#define TAILOR_BENCHUTIL_H

#include <stddef.h>

double bench_now_s(void);
double bench_peak_rss_mib(void);
/* Median of xs (sorted in place) and the spread max - min. */
double bench_median(double *xs, size_t n, double *spread);
void bench_print(const char *name, double value, const char *unit, const char *scenario,
                 int threads);

#endif
