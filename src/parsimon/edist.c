/* Delay distributions of one link (parsimon.txt §3.3): packet-normalized
 * delays bucketed by flow size, each bucket at least B samples wide and
 * spanning sizes at least a factor x apart. */
#include <stdlib.h>
#include <string.h>

#include "parsimon/parsimon_int.h"

typedef struct rec {
    uint64_t size;
    double pnd;
} rec;

/* By size, then delay: equal sizes in a fixed order, so a bucket's sample
 * order (and every draw) does not depend on the input order. */
static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return (x->pnd > y->pnd) - (x->pnd < y->pnd);
}

void ps_edist_fini(ps_edist *e)
{
    free(e->lo), free(e->off), free(e->samples);
    memset(e, 0, sizeof *e);
}

int ps_edist_build(ps_edist *e, const uint64_t *size, const double *pnd, uint32_t n, uint32_t b,
                   double x, tl_err *err)
{
    memset(e, 0, sizeof *e);
    if (n == 0)
        return 0;
    rec *v = malloc((size_t)n * sizeof *v);
    e->lo = malloc(((size_t)n + 1) * sizeof *e->lo); /* at most one bucket per record */
    e->off = malloc(((size_t)n + 2) * sizeof *e->off);
    e->samples = malloc((size_t)n * sizeof *e->samples);
    if (!v || !e->lo || !e->off || !e->samples) {
        free(v);
        ps_edist_fini(e);
        return tl_err_nomem(err);
    }
    for (uint32_t i = 0; i < n; i++)
        v[i] = (rec){size[i], pnd[i]};
    qsort(v, n, sizeof *v, cmp_rec);
    for (uint32_t i = 0; i < n; i++)
        e->samples[i] = (float)v[i].pnd;

    uint32_t nb = 0, start = 0;
    uint64_t lo = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t count = i - start + 1;
        if (count < b || (double)v[i].size < x * (double)lo)
            continue;
        while (i + 1 < n && v[i + 1].size == v[i].size) /* equal sizes stay together */
            i++;
        e->lo[nb] = lo;
        e->off[nb++] = start;
        lo = v[i].size + 1;
        start = i + 1;
    }
    if (start < n || nb == 0) { /* the rest: a last bucket */
        e->lo[nb] = lo;
        e->off[nb++] = start;
    }
    e->off[nb] = n;
    e->n_buckets = nb;
    free(v);
    return 0;
}

double ps_edist_draw(const ps_edist *e, uint64_t size, tl_rng *r)
{
    if (e->n_buckets == 0)
        return 0;
    uint32_t lo = 0, hi = e->n_buckets; /* last bucket with lo[k] <= size */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (e->lo[mid] <= size)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t a = e->off[lo], n = e->off[lo + 1] - a;
    return n ? (double)e->samples[a + tl_rng_below(r, n)] : 0;
}

/* Sent between MPI ranks: n_buckets, then lo, off and the samples. */
int ps_edist_pack(const ps_edist *e, tl_wbuf *out, tl_err *err)
{
    uint32_t nb = e->n_buckets, ns = nb ? e->off[nb] : 0;
    int rc = tl_wbuf_put(out, &nb, sizeof nb, err);
    if (!rc && nb)
        rc = tl_wbuf_put(out, e->lo, nb * sizeof *e->lo, err);
    if (!rc && nb)
        rc = tl_wbuf_put(out, e->off, (nb + 1) * sizeof *e->off, err);
    if (!rc && nb)
        rc = tl_wbuf_put(out, e->samples, ns * sizeof *e->samples, err);
    return rc;
}

uint64_t ps_edist_packed_bytes(const ps_edist *e)
{
    uint64_t nb = e->n_buckets, ns = nb ? e->off[nb] : 0;
    return sizeof e->n_buckets +
           (nb ? nb * sizeof *e->lo + (nb + 1) * sizeof *e->off + ns * sizeof *e->samples : 0);
}

int ps_edist_unpack(ps_edist *e, tl_rbuf *in, tl_err *err)
{
    memset(e, 0, sizeof *e);
    uint32_t nb, ns = 0;
    int rc = tl_rbuf_get(in, &nb, sizeof nb, err);
    if (rc || nb == 0)
        return rc;
    /* Counts the message cannot hold are a damaged message, not an
     * allocation to try. */
    size_t left = in->n - in->pos;
    if (nb > left / (sizeof *e->lo + sizeof *e->off))
        return tl_err_set(err, TL_EPARSE, "delay distribution of %u buckets in %zu bytes", nb,
                          left);
    e->n_buckets = nb;
    e->lo = malloc(nb * sizeof *e->lo);
    e->off = malloc((nb + 1) * sizeof *e->off);
    rc = e->lo && e->off ? 0 : tl_err_nomem(err);
    rc = rc ? rc : tl_rbuf_get(in, e->lo, nb * sizeof *e->lo, err);
    rc = rc ? rc : tl_rbuf_get(in, e->off, (nb + 1) * sizeof *e->off, err);
    if (!rc && (ns = e->off[nb]) > (in->n - in->pos) / sizeof *e->samples)
        rc = tl_err_set(err, TL_EPARSE, "delay distribution of %u samples in %zu bytes", ns,
                        in->n - in->pos);
    if (!rc && !(e->samples = malloc((ns ? ns : 1) * sizeof *e->samples)))
        rc = tl_err_nomem(err);
    rc = rc ? rc : tl_rbuf_get(in, e->samples, ns * sizeof *e->samples, err);
    if (rc)
        ps_edist_fini(e);
    return rc;
}
