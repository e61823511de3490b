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

#define CHUNK 65536

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
    uint64_t *count = calloc(n_chans, sizeof *count);
    if (!count) {
        spatial_fini(&s);
        return tl_err_nomem(err);
    }
    uint32_t n_chunks = (n_samples + CHUNK - 1) / CHUNK;
    int failed = 0;
    tl_err first_err;
    tl_err_clear(&first_err);
#pragma omp parallel num_threads(set_threads(n_threads))
    {
        uint64_t *local = calloc(n_chans, sizeof *local);
        tl_err lerr;
        tl_err_clear(&lerr);
        if (!local)
            tl_err_nomem(&lerr);
#pragma omp for schedule(dynamic, 1)
        for (uint32_t k = 0; k < n_chunks; k++) {
            if (!local || lerr.code)
                continue;
            tl_rng rng;
            tl_rng_init(&rng, seed, "calibrate", ((uint64_t)c << 40) | k);
            uint32_t end = (k + 1) * (uint64_t)CHUNK < n_samples ? (k + 1) * CHUNK : n_samples;
            for (uint32_t i = k * CHUNK; i < end; i++) {
                uint32_t src, dst, path[TL_MAX_HOPS];
                spatial_pair(&s, &rng, i, &src, &dst);
                /* Ids beyond any real flow's keep the sample's ECMP draws apart. */
                int h = tl_routes_path(r, UINT64_C(1) << 62 | i, src, dst, path, TL_MAX_HOPS, &lerr);
                if (h < 0)
                    break;
                for (int j = 0; j < h; j++)
                    local[path[j]]++;
            }
        }
#pragma omp critical
        {
            if (local)
                for (size_t i = 0; i < n_chans; i++)
                    count[i] += local[i];
            if (lerr.code && !failed) {
                failed = 1;
                first_err = lerr;
            }
        }
        free(local);
    }
    spatial_fini(&s);
    if (failed) {
        free(count);
        if (err)
            *err = first_err;
        return first_err.code;
    }
    /* The hottest channel per unit of bandwidth. */
    double best = 0;
    for (size_t i = 0; i < n_chans; i++) {
        double per_bps = (double)count[i] / (double)tl_topo_link(t, tl_chan_link((uint32_t)i))->rate_bps;
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

int tl_workload_link_loads(const tl_flows *f, const tl_routes *r, int n_threads,
                           const double *class_mean_bytes, double *load_frac, tl_err *err)
{
    const tl_topo *t = tl_routes_topo(r);
    size_t n_chans = (size_t)tl_topo_n_links(t) * 2;
    double *bytes = calloc(n_chans, sizeof *bytes);
    if (!bytes)
        return tl_err_nomem(err);
    /* Per-thread sums are added in thread order; doubles make that order matter
     * in the last bits, so with several threads the sum is exact only up to
     * rounding. Loads are reports, never inputs to generation. */
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
        for (size_t i = 0; i < f->n; i++) {
            if (!local || lerr.code)
                continue;
            uint32_t path[TL_MAX_HOPS];
            const tl_flow *fl = &f->v[i];
            int h = tl_routes_path(r, fl->id, fl->src, fl->dst, path, TL_MAX_HOPS, &lerr);
            double b = class_mean_bytes ? class_mean_bytes[fl->class_idx] : (double)fl->size_bytes;
            for (int j = 0; j < h; j++)
                local[path[j]] += b;
        }
#pragma omp critical
        {
            if (local)
                for (size_t i = 0; i < n_chans; i++)
                    bytes[i] += local[i];
            if (lerr.code && !failed) {
                failed = 1;
                first_err = lerr;
            }
        }
        free(local);
    }
    if (failed) {
        free(bytes);
        if (err)
            *err = first_err;
        return first_err.code;
    }
    double span_s = f->n > 1 ? (double)(f->v[f->n - 1].start_ps - f->v[0].start_ps) * 1e-12 : 0;
    for (size_t i = 0; i < n_chans; i++) {
        double bps = (double)tl_topo_link(t, tl_chan_link((uint32_t)i))->rate_bps;
        load_frac[i] = span_s > 0 ? bytes[i] * 8.0 / (span_s * bps) : 0;
    }
    free(bytes);
    return 0;
}
