/* Ideal FCT, size buckets and slowdown summaries: the common result of every
 * engine (DESIGN.md "Data flow"). The ideal FCT is Parsimon's utils::ideal_fct
 * and the ns-3 HPCC "standalone FCT" (../shared/notes/parsimon.md §"Monte Carlo
 * aggregation"); slowdown statistics are the ones the papers report per size
 * bucket (parsimon.txt §5, m3.txt §5): exact type-7 percentiles p50..p99.9. */
#include "tailor/result.h"
#include "tailor/routing.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/quantile.h"
#include "tailor/time.h"

const char *const tl_bucket_names[TL_N_BUCKETS] = {"0-1KB", "1-10KB", "10-50KB", "50KB+", "all"};
const double tl_pcts[TL_N_PCTS] = {0.5, 0.9, 0.99, 0.999};

/* ======================== ideal FCT ======================== */

/* tl_tx_time_ps, saturated at INT64_MAX where the result would not fit
 * (only for absurd sizes: about 100 days of serialization). */
static int64_t tx_ps_sat(uint64_t bytes, uint64_t rate_bps)
{
    if ((__uint128_t)bytes * 8u * 1000000000000u >= (__uint128_t)INT64_MAX * rate_bps)
        return INT64_MAX;
    return tl_tx_time_ps(bytes, rate_bps);
}

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}

int64_t tl_ideal_fct_links_ps(const uint64_t *rate_bps, const int64_t *delay_ps, int hops,
                              uint64_t size_bytes, uint32_t mtu_bytes, uint32_t header_bytes)
{
    if (hops <= 0 || mtu_bytes == 0)
        return 0;
    uint64_t first_bytes = size_bytes < mtu_bytes ? size_bytes : mtu_bytes;
    uint64_t rest_bytes = size_bytes - first_bytes;
    uint64_t n_rest_pkts = rest_bytes / mtu_bytes + (rest_bytes % mtu_bytes != 0);

    int64_t ideal_ps = 0;
    uint64_t min_bps = UINT64_MAX;
    for (int i = 0; i < hops; i++) {
        ideal_ps = add_sat(ideal_ps, delay_ps[i]);
        ideal_ps = add_sat(ideal_ps, tx_ps_sat(first_bytes + header_bytes, rate_bps[i]));
        if (rate_bps[i] < min_bps)
            min_bps = rate_bps[i];
    }
    /* The rest streams behind the first packet; only the bottleneck's
     * serialization adds to the completion time. */
    uint64_t rest_hdr_bytes, rest_wire_bytes;
    if (__builtin_mul_overflow(n_rest_pkts, (uint64_t)header_bytes, &rest_hdr_bytes) ||
        __builtin_add_overflow(rest_bytes, rest_hdr_bytes, &rest_wire_bytes))
        return INT64_MAX;
    return add_sat(ideal_ps, tx_ps_sat(rest_wire_bytes, min_bps));
}

int64_t tl_ideal_fct_ps(const tl_topo *t, const uint32_t *chans, int hops, uint64_t size_bytes,
                        uint32_t mtu_bytes, uint32_t header_bytes)
{
    uint64_t rate[TL_MAX_HOPS];
    int64_t delay[TL_MAX_HOPS];
    if (hops > TL_MAX_HOPS)
        hops = TL_MAX_HOPS;
    for (int i = 0; i < hops; i++) {
        const tl_link *l = tl_topo_link(t, tl_chan_link(chans[i]));
        rate[i] = l->rate_bps;
        delay[i] = l->delay_ps;
    }
    return tl_ideal_fct_links_ps(rate, delay, hops, size_bytes, mtu_bytes, header_bytes);
}

/* ======================== buckets ======================== */

int tl_bucket_of(uint64_t size_bytes)
{
    if (size_bytes <= 1000)
        return 0;
    if (size_bytes <= 10000)
        return 1;
    if (size_bytes <= 50000)
        return 2;
    return 3;
}

/* ======================== summary ======================== */

#define N_SIZE_BUCKETS (TL_N_BUCKETS - 1) /* the size buckets, without "all" */

/* Group of a flow in the summary's scratch order: class-major, then size bucket. */
static size_t key_of(const tl_flow *fl)
{
    return (size_t)fl->class_idx * N_SIZE_BUCKETS + (size_t)tl_bucket_of(fl->size_bytes);
}

/* Statistics of xs[0..n); sorts xs. */
static int stats_of(double *xs, size_t n, tl_slowdown_stats *st, tl_err *err)
{
    st->count = n;
    if (n == 0) {
        st->mean = NAN;
        for (int i = 0; i < TL_N_PCTS; i++)
            st->p[i] = NAN;
        return 0;
    }
    int rc = tl_quantiles(xs, n, tl_pcts, st->p, TL_N_PCTS, err);
    if (rc)
        return rc;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += xs[i];
    st->mean = sum / (double)n;
    return 0;
}

void tl_summary_fini(tl_summary *s)
{
    if (!s)
        return;
    for (uint32_t c = 0; s->class_names && c < s->n_classes; c++)
        free(s->class_names[c]);
    free(s->class_names);
    free(s->by_class);
    memset(s, 0, sizeof *s);
}

/* The struct's bytes (its pointers are rewritten by unpack), then each
 * class name with its length, then the per-class table. */
int tl_summary_pack(const tl_summary *s, tl_wbuf *out, tl_err *err)
{
    int rc = tl_wbuf_put(out, s, sizeof *s, err);
    for (uint32_t c = 0; !rc && c < s->n_classes; c++) {
        uint32_t len = (uint32_t)strlen(s->class_names[c]);
        rc = tl_wbuf_put(out, &len, sizeof len, err);
        rc = rc ? rc : tl_wbuf_put(out, s->class_names[c], len, err);
    }
    if (!rc && s->n_classes)
        rc = tl_wbuf_put(out, s->by_class, s->n_classes * TL_N_BUCKETS * sizeof *s->by_class,
                         err);
    return rc;
}

int tl_summary_unpack(tl_summary *s, tl_rbuf *in, tl_err *err)
{
    int rc = tl_rbuf_get(in, s, sizeof *s, err);
    uint32_t n = rc ? 0 : s->n_classes;
    s->class_names = NULL, s->by_class = NULL, s->n_classes = 0;
    if (rc)
        return rc;
    if (n > (in->n - in->pos) / (sizeof(uint32_t) + TL_N_BUCKETS * sizeof *s->by_class))
        return tl_err_set(err, TL_EPARSE, "summary of %u classes in %zu bytes", n,
                          in->n - in->pos);
    s->class_names = calloc(n ? n : 1, sizeof *s->class_names);
    s->by_class = malloc((n ? n : 1) * TL_N_BUCKETS * sizeof *s->by_class);
    rc = s->class_names && s->by_class ? 0 : tl_err_nomem(err);
    if (!rc)
        s->n_classes = n;
    for (uint32_t c = 0; !rc && c < n; c++) {
        uint32_t len;
        rc = tl_rbuf_get(in, &len, sizeof len, err);
        if (!rc && len > in->n - in->pos)
            rc = tl_err_set(err, TL_EPARSE, "class name of %u bytes in %zu", len,
                            in->n - in->pos);
        if (!rc && !(s->class_names[c] = malloc((size_t)len + 1)))
            rc = tl_err_nomem(err);
        if (!rc) {
            rc = tl_rbuf_get(in, s->class_names[c], len, err);
            s->class_names[c][len] = '\0';
        }
    }
    if (!rc && n)
        rc = tl_rbuf_get(in, s->by_class, n * TL_N_BUCKETS * sizeof *s->by_class, err);
    if (rc) {
        if (!s->n_classes) /* the tables were not allocated whole */
            free(s->class_names), free(s->by_class), s->class_names = NULL, s->by_class = NULL;
        tl_summary_fini(s);
    }
    return rc;
}

int tl_summary_build(tl_summary *s, const char *engine, const tl_flows *f,
                     const tl_flow_result *r, tl_err *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->engine, sizeof s->engine, "%s", engine ? engine : "");
    uint32_t n_classes = f->n_classes;
    size_t n_keys = (size_t)n_classes * N_SIZE_BUCKETS; /* key_of's range */
    double *sd = NULL, *buf = NULL;
    size_t *start = NULL; /* (n_keys + 1) offsets of each key's run in buf */
    int rc = 0;

    for (size_t i = 0; i < f->n; i++) {
        const tl_flow *fl = &f->v[i];
        if (fl->class_idx >= n_classes) {
            rc = tl_err_set(err, TL_EINVAL,
                            "flow %" PRIu64 " has class %u, but there are %u classes", fl->id,
                            fl->class_idx, n_classes);
            goto fail;
        }
        if (r[i].fct_ps >= 0 && r[i].ideal_ps <= 0) {
            rc = tl_err_set(err, TL_EINVAL,
                            "flow %" PRIu64 " finished but its ideal FCT is %" PRId64
                            " ps; expected > 0",
                            fl->id, r[i].ideal_ps);
            goto fail;
        }
    }

    s->n_classes = n_classes;
    s->class_names = calloc(n_classes ? n_classes : 1, sizeof *s->class_names);
    s->by_class = calloc(n_keys ? n_classes * (size_t)TL_N_BUCKETS : 1, sizeof *s->by_class);
    sd = malloc((f->n ? f->n : 1) * sizeof *sd);
    buf = malloc((f->n ? f->n : 1) * sizeof *buf);
    start = calloc(n_keys + 1, sizeof *start);
    if (!s->class_names || !s->by_class || !sd || !buf || !start) {
        rc = tl_err_nomem(err);
        goto fail;
    }
    for (uint32_t c = 0; c < n_classes; c++)
        if (!(s->class_names[c] = strdup(f->class_names[c]))) {
            rc = tl_err_nomem(err);
            goto fail;
        }

    /* Counting sort of the finished flows' slowdowns by (class, bucket), so
     * every (class, bucket) group and every class is one contiguous run. */
    for (size_t i = 0; i < f->n; i++) {
        if (r[i].fct_ps < 0) {
            s->n_unfinished++;
            continue;
        }
        start[key_of(&f->v[i]) + 1]++;
    }
    for (size_t k = 0; k < n_keys; k++)
        start[k + 1] += start[k];
    size_t n_done = n_keys ? start[n_keys] : 0;
    {
        size_t *fill = calloc(n_keys + 1, sizeof *fill);
        if (!fill) {
            rc = tl_err_nomem(err);
            goto fail;
        }
        for (size_t i = 0; i < f->n; i++) {
            if (r[i].fct_ps < 0)
                continue;
            size_t k = key_of(&f->v[i]);
            buf[start[k] + fill[k]++] = tl_slowdown(r[i].fct_ps, r[i].ideal_ps);
        }
        free(fill);
    }

    /* Overall size buckets gather from every class before the runs are sorted. */
    for (int b = 0; b < N_SIZE_BUCKETS; b++) {
        size_t n = 0;
        for (uint32_t c = 0; c < n_classes; c++) {
            size_t k = (size_t)c * N_SIZE_BUCKETS + b;
            memcpy(sd + n, buf + start[k], (start[k + 1] - start[k]) * sizeof *sd);
            n += start[k + 1] - start[k];
        }
        if ((rc = stats_of(sd, n, &s->all[b], err)))
            goto fail;
    }
    /* Per class and bucket, then per class ("all"): sorting a class's run
     * after its buckets' keeps every later run intact. */
    for (uint32_t c = 0; c < n_classes; c++) {
        tl_slowdown_stats *row = &s->by_class[(size_t)c * TL_N_BUCKETS];
        for (int b = 0; b < N_SIZE_BUCKETS; b++) {
            size_t k = (size_t)c * N_SIZE_BUCKETS + b;
            if ((rc = stats_of(buf + start[k], start[k + 1] - start[k], &row[b], err)))
                goto fail;
        }
        size_t k0 = (size_t)c * N_SIZE_BUCKETS, k1 = k0 + N_SIZE_BUCKETS;
        if ((rc = stats_of(buf + start[k0], start[k1] - start[k0], &row[TL_N_BUCKETS - 1], err)))
            goto fail;
    }
    if ((rc = stats_of(buf, n_done, &s->all[TL_N_BUCKETS - 1], err)))
        goto fail;

    free(sd);
    free(buf);
    free(start);
    return 0;
fail:
    free(sd);
    free(buf);
    free(start);
    tl_summary_fini(s);
    return rc;
}
