/* Benchmark helpers (see benchutil.h). */
#include "benchutil.h"

#include "tailor/fileio.h"
#include "tailor/time.h"
#include "tailor/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int bench_engine_world(const char *which, int threads, tl_world *w, char *scen, size_t scen_n,
                       double *build_s)
{
    tl_err e;
    tl_err_clear(&e);
    char buf[2048], *owned = NULL;
    const char *json = buf;
    if (strcmp(which, "6144") == 0) {
        if (!(owned = tl_read_file("examples/fabric-6144.json", NULL, &e))) {
            fprintf(stderr, "bench: %s (run from the repository root)\n", e.msg);
            return 1;
        }
        snprintf(scen, scen_n, "fabric6144_2to1_B_webserver_s2_50pct_1s");
        json = owned;
    } else if (strcmp(which, "default") != 0 && strcmp(which, "2m") != 0) {
        fprintf(stderr, "bench: unknown scenario '%s' (default, 2m, 6144)\n", which);
        return 1;
    } else {
        unsigned long flows = strcmp(which, "2m") == 0 ? 2000000 : 200000;
        snprintf(buf, sizeof buf,
                 "{\"seed\": 1, \"topology\": {\"type\": \"fabric\", \"pods\": 2, "
                 "\"racks_per_pod\": 16, \"hosts_per_rack\": 8, \"planes\": 2, "
                 "\"oversubscription\": 2}, \"workload\": {\"flows\": %lu, \"classes\": "
                 "[{\"sizes\": {\"cdf\": \"webserver\"}, "
                 "\"spatial\": {\"type\": \"matrix\", \"matrix\": \"B\"}, "
                 "\"arrival\": {\"process\": \"lognormal\", \"sigma\": 2}, "
                 "\"load\": {\"max_link_load\": 0.5}}]}, "
                 "\"transport\": {\"cc\": \"dctcp-rate\"}}",
                 flows);
        snprintf(scen, scen_n, "fabric32_2to1_B_webserver_s2_50pct_%luflows", flows);
    }
    double t0 = bench_now_s();
    int rc = tl_world_from_json(w, json, threads, &e);
    *build_s = bench_now_s() - t0;
    free(owned);
    if (rc)
        fprintf(stderr, "bench: %s\n", e.msg);
    return rc != 0;
}
