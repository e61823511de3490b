/* Flow-size distributions: empirical CDFs (the published workloads carried
 * into data/sizes/) and parametric ones with a given mean. Sampling is by
 * inverse transform with linear interpolation between CDF points, as the
 * generators of parsimon-eval and the HPCC traffic_gen do; the mean of an
 * empirical CDF is the trapezoid sum over its segments, which is exactly the
 * mean of that sampler. Sampled sizes are rounded to whole bytes, at least 1. */
#ifndef TAILOR_SIZEDIST_H
#define TAILOR_SIZEDIST_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/rng.h"

typedef enum {
    TL_SIZE_CDF = 0,   /* empirical: points (x bytes, p cumulative fraction) */
    TL_SIZE_FIXED,     /* every flow has `mean` bytes */
    TL_SIZE_EXP,       /* exponential with mean */
    TL_SIZE_PARETO,    /* Pareto with mean and shape alpha > 1 (x_m = mean (alpha-1)/alpha) */
    TL_SIZE_LOGNORMAL, /* log-normal with mean and shape sigma (mu = ln mean - sigma^2/2) */
    TL_SIZE_GAUSSIAN,  /* normal with mean and stddev `shape`, redrawn while < 1 byte */
} tl_size_kind;

typedef struct tl_sizedist {
    tl_size_kind kind;
    double mean_bytes; /* the distribution's mean (for CDFs, computed at load) */
    double shape;      /* alpha (Pareto), sigma (log-normal), stddev in bytes (Gaussian) */
    size_t n_pts;
    double *x_bytes; /* (n_pts) sizes, non-decreasing */
    double *p_frac;  /* (n_pts) cumulative fraction, non-decreasing, first 0, last 1 */
    char name[64];   /* "webserver", "lognormal", or the file's base name */
} tl_sizedist;

/* Names of the built-in CDFs ("webserver", "hadoop", "cachefollower",
 * "websearch", "fb-hadoop", "google-rpc", "ali-storage", "solar", ...),
 * NULL-terminated; data/README.md gives each one's source. */
extern const char *const tl_sizedist_builtin_names[];

/* Loads a CDF by built-in name or by file path. An argument with no '/' and
 * no '.' is a built-in name, resolved to sizes/<name>.txt by tl_data_path; an
 * unknown one is TL_EPARSE listing the known names. d is overwritten (fini it
 * first if it held a CDF); on failure it is left zeroed. d->name is the
 * built-in name or the file's base name without its extension.
 * File format (data/README.md): '#' comment lines and blank lines, then
 * "size_bytes cumulative_percent" per line (percent 0..100, as the HPCC and
 * parsimon-eval files; the first point must be 0 and the last 100).
 * Errors name the file and line: TL_EPARSE for a non-numeric field, a line
 * without exactly 2 fields, fewer than 2 points; TL_ERANGE for a negative
 * size, a percent outside 0..100, sizes or percents that decrease, a first
 * point that is not 0 or a last that is not 100, a zero mean; TL_EIO for a
 * file that cannot be read. Cost O(n_pts). */
int tl_sizedist_load(tl_sizedist *d, const char *name_or_path, tl_err *err);

/* Sets a parametric distribution (d is overwritten; name is "fixed",
 * "exponential", "pareto", "lognormal" or "gaussian"; shape is ignored for
 * fixed and exponential). Errors, all TL_ERANGE: mean <= 0 or not finite;
 * Pareto alpha <= 1; log-normal sigma <= 0; Gaussian stddev < 0; TL_EINVAL
 * for TL_SIZE_CDF or an unknown kind. */
int tl_sizedist_param(tl_sizedist *d, tl_size_kind kind, double mean_bytes, double shape,
                      tl_err *err);

/* Deep copy (dst is overwritten; fini it first if it held a CDF). On
 * TL_ENOMEM dst is left zeroed. */
int tl_sizedist_copy(tl_sizedist *dst, const tl_sizedist *src, tl_err *err);
/* Frees the CDF arrays and zeroes d; accepts NULL and a zeroed struct. */
void tl_sizedist_fini(tl_sizedist *d);

static inline double tl_sizedist_mean(const tl_sizedist *d) { return d->mean_bytes; }

/* One size in bytes (>= 1), rounded to the nearest byte. Uses GSL for the
 * parametric laws through a gsl_rng view of r (no allocation); O(log n_pts)
 * for CDFs, one uniform draw each. */
uint64_t tl_sizedist_sample(const tl_sizedist *d, tl_rng *r);

/* Inverse CDF at u in [0, 1] before rounding: inf { x : F(x) >= u } with F
 * linear between points (u outside [0, 1] is clamped). For tests and plots:
 * CDF kinds, and the mean for TL_SIZE_FIXED; NaN for the other kinds. */
double tl_sizedist_icdf(const tl_sizedist *d, double u);

#endif
