/* Exact and streaming quantiles (see tailor/quantile.h for the definitions). */
#include "tailor/quantile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tl_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tl_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double h = q * (double)(n - 1);
    size_t lo = (size_t)h;
    double frac = h - (double)lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

/* The 8-byte element i of a, read or written as a uint64_t (memcpy: a may
 * hold doubles; compilers make it one move). */
static inline uint64_t get8(const unsigned char *a, size_t i)
{
    uint64_t v;
    memcpy(&v, a + 8 * i, 8);
    return v;
}

static inline void put8(unsigned char *a, size_t i, uint64_t v) { memcpy(a + 8 * i, &v, 8); }

/* LSD radix sort of n 8-byte elements by their value as a uint64_t. */
static void radix8(void *keys, void *tmp, size_t n)
{
    unsigned char *src = keys, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((get8(src, i) >> shift) & 0xff) + 1]++;
        int is_same = 0;
        for (int d = 1; d <= 256; d++)
            is_same |= count[d] == n;
        if (is_same)
            continue;
        for (int d = 1; d <= 256; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++) {
            uint64_t v = get8(src, i);
            put8(dst, count[(v >> shift) & 0xff]++, v);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != (unsigned char *)keys)
        memcpy(keys, src, n * 8);
}

void tl_sort_u64(uint64_t *keys, uint64_t *tmp, size_t n) { radix8(keys, tmp, n); }

/* Ascending. Non-negative values (slowdowns, delays: nearly every caller)
 * order like their bit patterns, so the radix sort takes them; anything
 * else, or no memory for its scratch, takes qsort. */
static void sort_doubles(double *xs, size_t n)
{
    int is_radix = n > 64;
    for (size_t i = 0; i < n && is_radix; i++)
        is_radix = xs[i] >= 0 && !signbit(xs[i]);
    double *tmp = is_radix ? malloc(n * sizeof *tmp) : NULL; /* as much as qsort's merge */
    if (!tmp) {
        qsort(xs, n, sizeof *xs, tl_cmp_double);
        return;
    }
    radix8(xs, tmp, n);
    free(tmp);
}

int tl_quantiles(double *xs, size_t n, const double *qs, double *out, size_t n_q, tl_err *err)
{
    for (size_t i = 0; i < n_q; i++)
        if (!(qs[i] >= 0 && qs[i] <= 1))
            return tl_err_set(err, TL_ERANGE, "quantile must be in [0, 1], found %g", qs[i]);
    sort_doubles(xs, n);
    for (size_t i = 0; i < n_q; i++)
        out[i] = tl_quantile_sorted(xs, n, qs[i]);
    return 0;
}

int tl_qsketch_init(tl_qsketch *s, double min_value, double max_value, double rel_err, tl_err *err)
{
    memset(s, 0, sizeof *s);
    if (!(min_value > 0 && max_value > min_value && rel_err > 0 && rel_err < 0.5))
        return tl_err_set(err, TL_ERANGE,
                          "sketch needs 0 < min < max and rel_err in (0, 0.5), found %g, %g, %g",
                          min_value, max_value, rel_err);
    s->min_value = min_value;
    s->log_base = log1p(2 * rel_err);
    double nb = ceil(log(max_value / min_value) / s->log_base) + 1;
    if (nb > 1e7)
        return tl_err_set(err, TL_ERANGE, "sketch would need %.0f buckets", nb);
    s->n_buckets = (uint32_t)nb;
    s->counts = calloc(s->n_buckets, sizeof *s->counts);
    if (!s->counts)
        return tl_err_nomem(err);
    s->min_seen = INFINITY;
    s->max_seen = -INFINITY;
    return 0;
}

void tl_qsketch_fini(tl_qsketch *s)
{
    if (!s)
        return;
    free(s->counts);
    s->counts = NULL;
}

void tl_qsketch_add(tl_qsketch *s, double x)
{
    double r = x / s->min_value;
    long b;
    if (!(r >= 1)) {
        b = 0;
        s->n_clamped++;
    } else {
        b = (long)(log(r) / s->log_base);
        if (b >= (long)s->n_buckets) {
            b = (long)s->n_buckets - 1;
            s->n_clamped++;
        }
    }
    s->counts[b]++;
    s->n++;
    if (x < s->min_seen)
        s->min_seen = x;
    if (x > s->max_seen)
        s->max_seen = x;
}

int tl_qsketch_merge(tl_qsketch *dst, const tl_qsketch *src, tl_err *err)
{
    if (dst->n_buckets != src->n_buckets || dst->min_value != src->min_value ||
        dst->log_base != src->log_base)
        return tl_err_set(err, TL_EINVAL, "cannot merge sketches with different parameters");
    for (uint32_t i = 0; i < dst->n_buckets; i++)
        dst->counts[i] += src->counts[i];
    dst->n += src->n;
    dst->n_clamped += src->n_clamped;
    if (src->min_seen < dst->min_seen)
        dst->min_seen = src->min_seen;
    if (src->max_seen > dst->max_seen)
        dst->max_seen = src->max_seen;
    return 0;
}

double tl_qsketch_quantile(const tl_qsketch *s, double q)
{
    if (s->n == 0)
        return NAN;
    if (q <= 0)
        return s->min_seen;
    if (q >= 1)
        return s->max_seen;
    /* The sample of rank ceil(q*n) (1-based), as the "inverted CDF" definition. */
    uint64_t rank = (uint64_t)ceil(q * (double)s->n);
    if (rank < 1)
        rank = 1;
    uint64_t acc = 0;
    for (uint32_t i = 0; i < s->n_buckets; i++) {
        acc += s->counts[i];
        if (acc >= rank) {
            double v = s->min_value * exp(((double)i + 0.5) * s->log_base);
            if (v < s->min_seen)
                v = s->min_seen;
            if (v > s->max_seen)
                v = s->max_seen;
            return v;
        }
    }
    return s->max_seen;
}
