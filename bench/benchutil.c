/* Benchmark helpers (see benchutil.h). */
#include "benchutil.h"

#include "tailor/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

double bench_now_s(void) { return tl_wall_s(); }

double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *xs, size_t n, double *spread)
{
    qsort(xs, n, sizeof *xs, cmp);
    if (spread)
        *spread = n ? xs[n - 1] - xs[0] : 0;
    return n ? (n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2])) : 0;
}

void bench_print(const char *name, double value, const char *unit, const char *scenario,
                 int threads)
{
    printf("%s %.4g %s %s threads=%d %s\n", name, value, unit, scenario, threads, TL_GIT_COMMIT);
    fflush(stdout);
}
