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
struct tl_world;
/* Builds one of the engine benchmarks' scenarios into w: "default" (32-rack
 * fabric 2:1, matrix B, WebServer, sigma 2, 50% max load, dctcp-rate,
 * 200,000 flows), "2m" (the same with 2,000,000) or "6144"
 * (examples/fabric-6144.json, read from the repository root), its workload
 * on threads threads (0 = all cores). Writes its name to scen and the build
 * time to *build_s; 0, or 1 with a message on stderr. */
int bench_engine_world(const char *which, int threads, struct tl_world *w, char *scen,
                       size_t scen_n, double *build_s);

#endif
