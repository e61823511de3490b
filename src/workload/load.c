/* Load targeting and measurement. "Max link load" follows parsimon-eval
 * (../shared/notes/parsimon.md §3, "Arrivals and the max load setting"): route
 * a large sample of pairs with ECMP, find the channel with the most flows per
 * bit/s of bandwidth, and scale the aggregate arrival rate so that channel's
 * expected load equals the target. Counts are integers summed per thread, so
 * the result does not depend on the thread count. */
#include "workload_int.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static uint32_t default_samples(const tl_topo *t)
{
    uint64_t n = (uint64_t)tl_topo_n_links(t) * 2 * 64;
    if (n < 500000)
        n = 500000;
    if (n > 4000000)
        n = 4000000;
    return (uint32_t)n;
}

static int set_threads(int n_threads)
{
    return n_threads > 0 ? n_threads : omp_get_max_threads();
}

/* Item i of a batch to route: a flow id, its endpoints and a weight. */
typedef void (*item_fn)(const void *ctx, size_t i, uint64_t *id, uint32_t *src, uint32_t *dst,
                        double *weight);

/* Routes items 0..n-1 in parallel and adds each item's weight to every channel
 * of its path (sum has 2 * n_links entries, zeroed here). Per-thread sums are
 * added in thread order; weights that are whole numbers (flow counts) add
 * exactly, so such sums do not depend on the thread count. */
static int route_accumulate(const tl_routes *r, size_t n, int n_threads, item_fn item,
                            const void *ctx, double *sum, tl_err *err)
{
    const tl_topo *t = tl_routes_topo(r);
    size_t n_chans = (size_t)tl_topo_n_links(t) * 2;
    memset(sum, 0, n_chans * sizeof *sum);
    int failed = 0;
    tl_err first_err;
    tl_err_clear(&first_err);
#pragma omp parallel num_threads(set_threads(n_threads))
    {
        double *local = calloc(n_chans, sizeof *local);
        tl_err lerr;
        tl_err_clear(&lerr);
        if (!local)
            tl_err_nomem(&lerr);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            if (!local || lerr.code)
                continue;
            uint64_t id;
            uint32_t src, dst, path[TL_MAX_HOPS];
            double w;
            item(ctx, i, &id, &src, &dst, &w);
            int h = tl_routes_path(r, id, src, dst, path, TL_MAX_HOPS, &lerr);
            for (int j = 0; j < h; j++)
                local[path[j]] += w;
        }
#pragma omp critical
        {
            if (local)
                for (size_t i = 0; i < n_chans; i++)
                    sum[i] += local[i];
            if (lerr.code && !failed) {
                failed = 1;
                first_err = lerr;
            }
        }
        free(local);
    }
    if (failed) {
        if (err)
            *err = first_err;
        return first_err.code;
    }
    return 0;
}

typedef struct calib_ctx {
    const spatial_sampler *s;
    uint64_t seed, class_idx;
} calib_ctx;

/* Sample i draws from its own stream, so the sample set is the same for every
 * thread count; its id lies beyond any real flow's so ECMP draws stay apart. */
static void calib_item(const void *vctx, size_t i, uint64_t *id, uint32_t *src, uint32_t *dst,
                       double *weight)
{
    const calib_ctx *c = vctx;
    tl_rng rng;
    tl_rng_init(&rng, c->seed, "calibrate", (c->class_idx << 40) | i);
    spatial_pair(c->s, &rng, i, src, dst);
    *id = UINT64_C(1) << 62 | i;
    *weight = 1;
}

int tl_workload_class_rate(const tl_workload_spec *w, uint32_t c, const tl_topo *t,
                           const tl_routes *r, uint64_t seed, int n_threads, double *flows_per_s,
                           tl_err *err)
{
    const tl_class_spec *cl = &w->classes[c];
    double mean_bits = tl_sizedist_mean(&cl->sizes) * 8.0;
    switch (cl->load_kind) {
    case TL_LOAD_FLOWS_PER_S:
        *flows_per_s = cl->load_value;
        return 0;
    case TL_LOAD_BPS:
        *flows_per_s = cl->load_value / mean_bits;
        return 0;
    case TL_LOAD_MAX_LINK:
        break;
    }
    spatial_sampler s;
    int rc = spatial_init(&s, &cl->spatial, t, seed, c, err);
    if (rc)
        return rc;
    uint32_t n_samples = w->calib_samples ? w->calib_samples : default_samples(t);
    size_t n_chans = (size_t)tl_topo_n_links(t) * 2;
    double *count = malloc(n_chans * sizeof *count);
    if (!count) {
        spatial_fini(&s);
        return tl_err_nomem(err);
    }
    calib_ctx cc = {.s = &s, .seed = seed, .class_idx = c};
    rc = route_accumulate(r, n_samples, n_threads, calib_item, &cc, count, err);
    spatial_fini(&s);
    if (rc) {
        free(count);
        return rc;
    }
    /* The hottest channel per unit of bandwidth. */
    double best = 0;
    for (size_t i = 0; i < n_chans; i++) {
        double per_bps = count[i] / (double)tl_topo_link(t, tl_chan_link((uint32_t)i))->rate_bps;
        if (per_bps > best)
            best = per_bps;
    }
    free(count);
    if (best <= 0)
        return tl_err_set(err, TL_EINVAL, "class '%s': no sampled flow crossed any link",
                          cl->name);
    double f_per_bps = best / n_samples; /* fraction of flows on the channel, per bit/s */
    *flows_per_s = cl->load_value / (f_per_bps * mean_bits);
    return 0;
}

typedef struct flows_ctx {
    const tl_flows *f;
    const double *class_mean_bytes;
} flows_ctx;

static void flow_item(const void *vctx, size_t i, uint64_t *id, uint32_t *src, uint32_t *dst,
                      double *weight)
{
    const flows_ctx *c = vctx;
    const tl_flow *fl = &c->f->v[i];
    *id = fl->id;
    *src = fl->src;
    *dst = fl->dst;
    *weight = c->class_mean_bytes ? c->class_mean_bytes[fl->class_idx] : (double)fl->size_bytes;
}

int tl_workload_link_loads(const tl_flows *f, const tl_routes *r, int n_threads,
                           const double *class_mean_bytes, double *load_frac, tl_err *err)
{
    const tl_topo *t = tl_routes_topo(r);
    size_t n_chans = (size_t)tl_topo_n_links(t) * 2;
    flows_ctx fc = {.f = f, .class_mean_bytes = class_mean_bytes};
    int rc = route_accumulate(r, f->n, n_threads, flow_item, &fc, load_frac, err);
    if (rc)
        return rc;
    double span_s = f->n > 1 ? (double)(f->v[f->n - 1].start_ps - f->v[0].start_ps) * 1e-12 : 0;
    for (size_t i = 0; i < n_chans; i++) {
        double bps = (double)tl_topo_link(t, tl_chan_link((uint32_t)i))->rate_bps;
        load_frac[i] = span_s > 0 ? load_frac[i] * 8.0 / (span_s * bps) : 0;
    }
    return 0;
}
