/* Relative throughput against same-equipment random graphs
 * (topology-throughput.txt §IV): the network's throughput over the mean
 * throughput of random graphs with exactly its equipment, under the same
 * kind of traffic matrix. */
#include "tailor/throughput.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const tl_tm_kind_names[] = {"all-to-all", "random-matching", "longest-matching",
                                        "kodialam", "skewed", NULL};

int tl_tm_make(const tl_tgraph *g, tl_tm_kind kind, double param, uint64_t seed, tl_tm *tm,
               tl_err *err)
{
    switch (kind) {
    case TL_TM_ALL_TO_ALL: return tl_tm_all_to_all(g, tm, err);
    case TL_TM_RANDOM_MATCHING: return tl_tm_random_matching(g, (uint32_t)param, seed, tm, err);
    case TL_TM_LONGEST_MATCHING: return tl_tm_longest_matching(g, tm, err);
    case TL_TM_KODIALAM: return tl_tm_kodialam(g, tm, err);
    case TL_TM_SKEWED: return tl_tm_skewed(g, param, seed, tm, err);
    }
    return tl_err_set(err, TL_EINVAL, "unknown traffic matrix kind %d", (int)kind);
}

/* Throughput of topology t under a fresh TM of the kind. */
static int tput_of(const tl_topo *t, tl_tm_kind kind, double param, int use_exact, double eps,
                   uint64_t seed, double *out, tl_err *err)
{
    tl_tgraph g;
    tl_tm tm;
    memset(&tm, 0, sizeof tm);
    int rc = tl_tgraph_from_topo(&g, t, 0, err);
    if (rc)
        return rc;
    tl_tput r;
    if (!(rc = tl_tm_make(&g, kind, param, seed, &tm, err)))
        rc = use_exact ? tl_throughput_exact(&g, &tm, &r, err)
                       : tl_throughput_approx(&g, &tm, eps, &r, err);
    if (!rc)
        *out = r.throughput;
    tl_tm_fini(&tm);
    tl_tgraph_fini(&g);
    return rc;
}

int tl_relative_instance(const tl_topo *t, tl_tm_kind kind, double param, int use_exact,
                         double eps, int spread, uint32_t i, uint64_t seed, double *out,
                         tl_err *err)
{
    if (i == 0)
        return tput_of(t, kind, param, use_exact, eps, seed, out, err);
    tl_topo *r = spread ? tl_topo_same_equipment_spread(t, seed + i, err)
                        : tl_topo_same_equipment(t, seed + i, err);
    if (!r)
        return err ? err->code : TL_ENOMEM;
    int rc = tput_of(r, kind, param, use_exact, eps, seed, out, err);
    tl_topo_destroy(r);
    return rc;
}

void tl_relative_combine(double tput, const double *x, uint32_t n_instances, tl_rel_tput *out)
{
    memset(out, 0, sizeof *out);
    out->tput = tput;
    double sum = 0, sum2 = 0;
    for (uint32_t i = 0; i < n_instances; i++) {
        sum += x[i];
        sum2 += x[i] * x[i];
    }
    double n = n_instances, mean = sum / n;
    double var = n > 1 ? (sum2 - n * mean * mean) / (n - 1) : 0;
    double half = gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(var > 0 ? var : 0) / sqrt(n);
    out->n_instances = n_instances;
    out->random_mean = mean;
    out->random_ci95 = half;
    out->relative = mean > 0 ? out->tput / mean : 0;
    /* The topology's own value is exact (or certified): the interval is the
     * random mean's, carried through the ratio. */
    out->relative_ci95 = mean > 0 ? out->relative * half / mean : 0;
}

int tl_relative_throughput(const tl_topo *t, tl_tm_kind kind, double param, int use_exact,
                           double eps, int spread, uint32_t n_instances, uint64_t seed,
                           tl_rel_tput *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    if (n_instances < 2)
        return tl_err_set(err, TL_ERANGE, "relative throughput needs at least 2 random instances");
    double tput, *x = malloc(n_instances * sizeof *x);
    if (!x)
        return tl_err_nomem(err);
    int rc = tl_relative_instance(t, kind, param, use_exact, eps, spread, 0, seed, &tput, err);
    for (uint32_t i = 0; !rc && i < n_instances; i++)
        rc = tl_relative_instance(t, kind, param, use_exact, eps, spread, i + 1, seed, &x[i],
                                  err);
    if (!rc)
        tl_relative_combine(tput, x, n_instances, out);
    free(x);
    return rc;
}
