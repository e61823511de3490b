/* Mixture calibration of m3's model (docs/m3.md "Calibration"). The
 * estimate m3 reports is the weighted mixture of its paths' predicted
 * distributions (mixture.c), so the shifts are set where that mixture is
 * judged: per size bucket, the log-space shift at each grid quantile that
 * makes the mixture of a set of fabrics' path predictions (each weighted by
 * its foreground flows in the bucket, as at inference) meet the same
 * quantile of all those paths' flows pooled.
 *
 * Why not each flow's coverage (conformalized quantile regression, the
 * calibration before 2026-11-29): a prediction's error spreads the mixture
 * on its own, and raising every path's p99.9 until 99.9% of flows fall
 * below their own path's prediction spreads it again; the mixture's p99.9
 * came out 11-76% high on the suite (0-1 KB up to 2.6x). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "m3train/m3train_int.h"
#include "tailor/quantile.h"

void m3_calib_init(m3_calib *cs) { memset(cs, 0, sizeof *cs); }

void m3_calib_fini(m3_calib *cs)
{
    for (int b = 0; b < M3_N_OUT; b++)
        free(cs->c[b]), free(cs->sd[b]);
    memset(cs, 0, sizeof *cs);
}

/* p (cap elements of size bytes) with room for need: p itself, or a
 * larger block (*cap updated); NULL when out of memory, p still valid. */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t cap2 = *cap ? *cap : 256;
    while (cap2 < need)
        cap2 *= 2;
    void *q = realloc(p, cap2 * size);
    if (q)
        *cap = cap2;
    return q;
}

int m3_calib_add(m3_calib *cs, int b, const double logq[M3_N_Q], double w, const double *sd,
                 size_t n_sd, tl_err *err)
{
    m3_comp *c = grow(cs->c[b], &cs->cap_c[b], cs->n_c[b] + 1, sizeof *c);
    if (!c)
        return tl_err_nomem(err);
    cs->c[b] = c;
    double *v = grow(cs->sd[b], &cs->cap_sd[b], cs->n_sd[b] + n_sd, sizeof *v);
    if (!v)
        return tl_err_nomem(err);
    cs->sd[b] = v;
    c += cs->n_c[b]++;
    c->w = w;
    memcpy(c->q, logq, sizeof c->q);
    for (size_t j = 0; j < n_sd; j++)
        if (sd[j] > 0 && isfinite(sd[j]))
            v[cs->n_sd[b]++] = sd[j];
    return 0;
}

/* Bucket b's components shifted by s[q] at each knot q, made
 * non-decreasing and at least 1, into tmp. */
static void shifted(const m3_calib *cs, int b, const double s[M3_N_Q], m3_comp *tmp)
{
    for (size_t j = 0; j < cs->n_c[b]; j++) {
        tmp[j].w = cs->c[b][j].w;
        for (int q = 0; q < M3_N_Q; q++)
            tmp[j].q[q] = exp(cs->c[b][j].q[q] + s[q]);
        m3_comp_fix(tmp[j].q);
    }
}

/* The fewest pooled flows above a level for its shift to be set: fewer,
 * and the level takes the shift of the level below it. */
#define CALIB_MIN_ABOVE 10.0

/* The quantiles at the k levels lv (ascending) of bucket b's pooled
 * flows (at least one). TL_ENOMEM. */
static int pooled_at(const m3_calib *cs, int b, const double *lv, int k, double *out,
                     tl_err *err)
{
    double *sd = malloc(cs->n_sd[b] * sizeof *sd);
    if (!sd)
        return tl_err_nomem(err);
    memcpy(sd, cs->sd[b], cs->n_sd[b] * sizeof *sd); /* tl_quantiles sorts */
    int rc = tl_quantiles(sd, cs->n_sd[b], lv, out, (size_t)k, err);
    free(sd);
    return rc;
}

/* Per level, the shift s of every knot alike at which the mixture holds
 * the level's share of its weight at or below the pooled flows' quantile:
 * the share falls as s grows, so bisection finds it (to 1e-6 in log
 * space, within +-5). Solving for the knots jointly instead ran away: a
 * knot pinned by its neighbours through the non-decreasing fix moved to
 * -10 without moving the mixture. Each knot then takes its own level's s,
 * which meets each level where neighbouring levels' shifts are alike; the
 * training log reports the fit. */
int m3_calib_shift(const m3_calib *cs, double shift[M3_N_OUT][M3_N_Q], tl_err *err)
{
    memset(shift, 0, sizeof(double) * M3_N_OUT * M3_N_Q);
    for (int b = 0; b < M3_N_OUT; b++) {
        if (!cs->n_c[b] || !cs->n_sd[b])
            continue;
        double pooled[M3_N_Q];
        int rc = pooled_at(cs, b, m3_q, M3_N_Q, pooled, err);
        m3_comp *tmp = rc ? NULL : malloc(cs->n_c[b] * sizeof *tmp);
        if (!tmp)
            return rc ? rc : tl_err_nomem(err);
        for (int q = 0; q < M3_N_Q; q++) {
            if ((double)cs->n_sd[b] * (1 - m3_q[q]) < CALIB_MIN_ABOVE) {
                shift[b][q] = q ? shift[b][q - 1] : 0;
                continue;
            }
            double lo = -5, hi = 5, s[M3_N_Q];
            while (hi - lo > 1e-6) {
                double mid = 0.5 * (lo + hi);
                for (int k = 0; k < M3_N_Q; k++)
                    s[k] = mid;
                shifted(cs, b, s, tmp);
                if (m3_mixture_cdf(tmp, cs->n_c[b], pooled[q]) >= m3_q[q])
                    lo = mid; /* room to shift up */
                else
                    hi = mid;
            }
            shift[b][q] = 0.5 * (lo + hi);
        }
        free(tmp);
    }
    return 0;
}

int m3_calib_compare(const m3_calib *cs, int b, const double s[M3_N_Q], const double *lv, int k,
                     double *mix, double *pooled, tl_err *err)
{
    for (int p = 0; p < k; p++)
        mix[p] = pooled[p] = NAN;
    if (!cs->n_c[b] || !cs->n_sd[b])
        return 0;
    int rc = pooled_at(cs, b, lv, k, pooled, err);
    m3_comp *tmp = rc ? NULL : malloc(cs->n_c[b] * sizeof *tmp);
    if (!tmp)
        return rc ? rc : tl_err_nomem(err);
    shifted(cs, b, s, tmp);
    m3_mixture_quantiles(tmp, cs->n_c[b], lv, k, mix);
    free(tmp);
    return 0;
}
