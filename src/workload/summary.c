/* Workload summary for `tailor inspect`: offered link loads (max, mean of the
 * top 10%, mean; parsimon.txt §5.1 reports the top-10% mean) and the
 * path-length histogram. */
#include "tailor/workload.h"

#include <stdlib.h>
#include <string.h>

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* Max, mean of the top 10% and mean of loads (sorts loads in place). */
static void reduce(double *load, size_t n, double *max, double *top10, double *mean)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += load[i];
    *mean = n ? sum / (double)n : 0;
    qsort(load, n, sizeof *load, cmp_desc);
    *max = n ? load[0] : 0;
    size_t top = n / 10 ? n / 10 : 1;
    double tsum = 0;
    for (size_t i = 0; i < top && i < n; i++)
        tsum += load[i];
    *top10 = n ? tsum / (double)(top < n ? top : n) : 0;
}

int tl_workload_summarize(const tl_flows *f, const tl_routes *r, int n_threads,
                          const double *class_mean_bytes, tl_workload_summary *s, tl_err *err)
{
    memset(s, 0, sizeof *s);
    const tl_topo *t = tl_routes_topo(r);
    size_t n_chans = (size_t)tl_topo_n_links(t) * 2;
    s->n_flows = f->n;
    if (f->n > 1)
        s->span_s = (double)(f->v[f->n - 1].start_ps - f->v[0].start_ps) * 1e-12;
    double bytes = 0;
    for (size_t i = 0; i < f->n; i++)
        bytes += (double)f->v[i].size_bytes;
    s->mean_size_bytes = f->n ? bytes / (double)f->n : 0;
    for (size_t i = 0; i < f->n; i++) {
        uint32_t path[TL_MAX_HOPS];
        int h = tl_routes_path(r, f->v[i].id, f->v[i].src, f->v[i].dst, path, TL_MAX_HOPS, err);
        if (h < 0)
            return h;
        s->hops_hist[h]++;
    }
    double *load = malloc(n_chans * sizeof *load);
    if (!load)
        return tl_err_nomem(err);
    int rc = tl_workload_link_loads(f, r, n_threads, NULL, load, err);
    if (rc) {
        free(load);
        return rc;
    }
    for (size_t i = 0; i < n_chans; i++)
        if (load[i] > load[s->max_load_chan])
            s->max_load_chan = (uint32_t)i;
    reduce(load, n_chans, &s->load_max, &s->load_top10_mean, &s->load_mean);
    if (class_mean_bytes) {
        if ((rc = tl_workload_link_loads(f, r, n_threads, class_mean_bytes, load, err))) {
            free(load);
            return rc;
        }
        reduce(load, n_chans, &s->expected_max, &s->expected_top10_mean, &s->expected_mean);
    }
    free(load);
    return 0;
}
