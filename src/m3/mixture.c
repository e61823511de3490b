/* Network-wide distributions from sampled paths (m3.txt §3.5, Fig. 8): the
 * weighted mixture of the paths' per-bucket slowdown distributions, each
 * given by its quantiles, solved exactly for the mixture's mean and
 * percentiles instead of m3's resampling. */
#include <math.h>

#include "m3/m3_int.h"

/* A component's quantile function: knots u[0..M3_N_Q+1] -> x. Below the
 * first grid quantile the distribution holds at that value; above the last
 * it rises linearly to last + (last - p99) at u = 1 (docs/m3.md). */
static void knots(const m3_comp *c, double *u, double *x)
{
    u[0] = 0, x[0] = c->q[0];
    for (int i = 0; i < M3_N_Q; i++)
        u[i + 1] = m3_q[i], x[i + 1] = c->q[i];
    double last = c->q[M3_N_Q - 1], p99 = c->q[M3_N_Q - 3];
    u[M3_N_Q + 1] = 1, x[M3_N_Q + 1] = last + (last - p99);
}

/* F(v): the fraction of the component at or below v. */
static double cdf_at(const double *u, const double *x, double v)
{
    if (v < x[0])
        return 0;
    if (v >= x[M3_N_Q + 1])
        return 1;
    int i = M3_N_Q + 1;
    while (x[i - 1] > v) /* x non-decreasing: the last knot at or below v */
        i--;
    /* x[i-1] <= v < x[i] */
    double t = (v - x[i - 1]) / (x[i] - x[i - 1]);
    return u[i - 1] + t * (u[i] - u[i - 1]);
}

/* The weighted count of the components at or below v (divide by their
 * weight sum for the mixture's CDF). */
static double cdf_sum(const m3_comp *c, size_t n, double v)
{
    double fsum = 0;
    for (size_t j = 0; j < n; j++) {
        double u[M3_N_Q + 2], x[M3_N_Q + 2];
        knots(&c[j], u, x);
        fsum += c[j].w * cdf_at(u, x, v);
    }
    return fsum;
}

/* The mixture's quantiles at lv[0..k) by bisection on its CDF: for each
 * level q the smallest v with F(v) >= q, between the components' lowest and
 * highest knots. */
static void quantiles(const m3_comp *c, size_t n, double wsum, double lo, double hi,
                      const double *lv, int k, double *out)
{
    for (int p = 0; p < k; p++) {
        if (!(wsum > 0)) {
            out[p] = NAN;
            continue;
        }
        double a = lo, b = hi;
        for (int it = 0; it < 100 && b - a > 1e-12 * b; it++) {
            double v = 0.5 * (a + b);
            if (cdf_sum(c, n, v) >= lv[p] * wsum)
                b = v;
            else
                a = v;
        }
        out[p] = b;
    }
}

/* Weight sum, mean sum and knot range of n components. */
static void span(const m3_comp *c, size_t n, double *wsum, double *msum, double *lo, double *hi)
{
    *wsum = 0, *msum = 0, *lo = INFINITY, *hi = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        double u[M3_N_Q + 2], x[M3_N_Q + 2];
        knots(&c[k], u, x);
        double m = 0;
        for (int i = 0; i + 1 < M3_N_Q + 2; i++)
            m += (u[i + 1] - u[i]) * (x[i] + x[i + 1]) / 2;
        *wsum += c[k].w;
        *msum += c[k].w * m;
        *lo = fmin(*lo, x[0]);
        *hi = fmax(*hi, x[M3_N_Q + 1]);
    }
}

void m3_mixture(const m3_comp *c, size_t n, double *mean, double pct[TL_N_PCTS])
{
    double wsum, msum, lo, hi;
    span(c, n, &wsum, &msum, &lo, &hi);
    *mean = wsum > 0 ? msum / wsum : NAN;
    quantiles(c, n, wsum, lo, hi, tl_pcts, TL_N_PCTS, pct);
}

void m3_mixture_quantiles(const m3_comp *c, size_t n, const double *lv, int k, double *out)
{
    double wsum, msum, lo, hi;
    span(c, n, &wsum, &msum, &lo, &hi);
    quantiles(c, n, wsum, lo, hi, lv, k, out);
}

double m3_mixture_cdf(const m3_comp *c, size_t n, double v)
{
    double wsum = 0;
    for (size_t k = 0; k < n; k++)
        wsum += c[k].w;
    return wsum > 0 ? cdf_sum(c, n, v) / wsum : NAN;
}

void m3_comp_fix(double q[M3_N_Q])
{
    double prev = 1;
    for (int i = 0; i < M3_N_Q; i++)
        prev = q[i] = fmax(q[i], prev);
}
