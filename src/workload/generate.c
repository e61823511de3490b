/* Flow generation from traffic classes (parsimon.txt §5.1, m3.txt §5.1).
 * Each class is an endless, deterministic sequence of flows: flow i lies in
 * chunk i / CHUNK, and a chunk draws its gaps, sizes and endpoints from its own
 * stream (seed, class, chunk). Chunks are generated in parallel; start times
 * are the chunk-local gap sums plus the sum of the earlier chunks' totals,
 * each rounded once, so the output does not depend on the thread count.
 * Classes are generated to a length long enough for the bounds (flow count,
 * duration), then merged by start time. */
#include "workload_int.h"
#include "tailor/time.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 65536

typedef struct class_gen {
    const tl_class_spec *cl;
    uint32_t idx;
    spatial_sampler s;
    double mean_gap_ps; /* 0 for simultaneous arrivals */
    tl_flow *v;         /* (cap) generated flows in arrival order; id = sequence in class */
    size_t n, cap;
    double *chunk_units; /* (n_chunks) sum of unit gaps per generated chunk */
    double offset_units; /* sum over all generated chunks */
    size_t n_chunks;
    size_t n_valid; /* flows inside every bound after the last cut */
    int is_complete; /* the valid prefix cannot grow: a bound was met */
} class_gen;

static double unit_gap(const tl_class_spec *cl, gsl_rng *g)
{
    switch (cl->arrival) {
    case TL_ARRIVAL_POISSON:
        return gsl_ran_exponential(g, 1.0);
    case TL_ARRIVAL_LOGNORMAL: /* mean 1: mu = -sigma^2 / 2 */
        return gsl_ran_lognormal(g, -0.5 * cl->sigma * cl->sigma, cl->sigma);
    case TL_ARRIVAL_SIMULTANEOUS:
        return 0;
    }
    return 0;
}

/* Generates chunks until at least want flows exist. */
static int extend(class_gen *g, size_t want, uint64_t seed, int n_threads, tl_progress *prog,
                  tl_err *err)
{
    size_t target_chunks = (want + CHUNK - 1) / CHUNK;
    if (target_chunks <= g->n_chunks)
        return 0;
    size_t new_cap = target_chunks * CHUNK, bytes;
    if (__builtin_mul_overflow(new_cap, sizeof(tl_flow), &bytes))
        return tl_err_set(err, TL_ERANGE, "class '%s': too many flows", g->cl->name);
    char who[96];
    snprintf(who, sizeof who, "class '%s': ", g->cl->name);
    if (flows_check_memory(new_cap, who, err))
        return err ? err->code : TL_ERANGE;
    tl_flow *v = realloc(g->v, bytes);
    if (!v)
        return tl_err_nomem(err);
    g->v = v;
    g->cap = new_cap;
    double *cu = realloc(g->chunk_units, target_chunks * sizeof *cu);
    if (!cu)
        return tl_err_nomem(err);
    g->chunk_units = cu;
    size_t first = g->n_chunks;
    const tl_class_spec *cl = g->cl;
    size_t done = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(n_threads)
    for (size_t k = first; k < target_chunks; k++) {
        tl_rng rng;
        tl_rng_init(&rng, seed, "flows", ((uint64_t)g->idx << 40) | k);
        gsl_rng gr;
        tl_rng_gsl(&gr, &rng);
        double units = 0;
        for (size_t i = k * CHUNK; i < (k + 1) * CHUNK; i++) {
            tl_flow *f = &g->v[i];
            units += unit_gap(cl, &gr);
            double t_ps = units * g->mean_gap_ps;
            /* past the horizon: a sentinel, reported if the flow is kept */
            f->start_ps = t_ps <= (double)TL_START_MAX_PS ? (int64_t)llround(t_ps)
                                                          : TL_START_MAX_PS + 1;
            f->size_bytes = tl_sizedist_sample(&cl->sizes, &rng);
            spatial_pair(&g->s, &rng, i, &f->src, &f->dst);
            f->id = i;
            f->class_idx = g->idx;
        }
        g->chunk_units[k] = units;
        if (prog && omp_get_thread_num() == 0) {
            size_t d;
#pragma omp atomic read
            d = done;
            tl_progress_report(prog, "generate", (double)(d * CHUNK), (double)(want), "flows");
        }
#pragma omp atomic
        done++;
    }
    /* Sequential pass: shift each chunk by the rounded sum of the earlier ones. */
    for (size_t k = first; k < target_chunks; k++) {
        double shift_ps = (double)cl->start_ps + g->offset_units * g->mean_gap_ps;
        int64_t shift = shift_ps <= (double)TL_START_MAX_PS ? (int64_t)llround(shift_ps)
                                                            : TL_START_MAX_PS + 1;
        for (size_t i = k * CHUNK; i < (k + 1) * CHUNK; i++) {
            int64_t *t = &g->v[i].start_ps; /* both terms <= TL_START_MAX_PS + 1: no overflow */
            *t = *t + shift <= TL_START_MAX_PS ? *t + shift : TL_START_MAX_PS + 1;
        }
        g->offset_units += g->chunk_units[k];
    }
    g->n_chunks = target_chunks;
    g->n = target_chunks * CHUNK;
    return 0;
}

/* Applies the class count bound and the duration bound to the generated prefix. */
static void cut(class_gen *g, int64_t duration_ps)
{
    size_t n = g->n;
    g->is_complete = 0;
    if (g->cl->n_flows && g->cl->n_flows <= n) {
        n = g->cl->n_flows;
        g->is_complete = 1;
    }
    if (duration_ps > 0) {
        int64_t end = g->cl->start_ps + duration_ps;
        size_t lo = 0, hi = n; /* first flow starting after end */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (g->v[mid].start_ps > end)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo < n || (lo == n && n < g->n && g->v[n].start_ps > end))
            g->is_complete = 1;
        n = lo;
    }
    g->n_valid = n;
}

/* k-way merge by (start, class, sequence) into out (may be NULL to only
 * count); returns the count merged (<= limit) and, in used[c], how many flows
 * of class c the merged prefix took. */
static size_t merge(class_gen *gs, uint32_t k, tl_flow *out, size_t limit, size_t *used)
{
    memset(used, 0, k * sizeof *used);
    size_t n = 0;
    while (n < limit) {
        int best = -1;
        for (uint32_t c = 0; c < k; c++) {
            if (used[c] >= gs[c].n_valid)
                continue;
            if (best < 0 || gs[c].v[used[c]].start_ps < gs[best].v[used[best]].start_ps)
                best = (int)c;
        }
        if (best < 0)
            break;
        if (out)
            out[n] = gs[best].v[used[best]];
        used[best]++;
        n++;
    }
    return n;
}

int tl_workload_generate(const tl_workload_spec *w, const tl_topo *t, const tl_routes *r,
                         uint64_t seed, int n_threads, tl_flows *out, tl_progress *prog,
                         tl_err *err)
{
    tl_flows_init(out);
    if (w->file[0]) { /* workload.file: the flows are given */
        int rc = tl_flows_load_any(out, w->file, t, err);
        if (rc && err && !err->path[0])
            snprintf(err->path, sizeof err->path, "workload.file");
        if (!rc && w->n_flows && w->n_flows < out->n)
            out->n = (size_t)w->n_flows; /* the first N by start time */
        return rc;
    }
    if (n_threads <= 0)
        n_threads = omp_get_max_threads();
    if (w->n_classes == 0)
        return tl_err_set(err, TL_EINVAL, "the workload has no traffic class");
    class_gen *gs = calloc(w->n_classes, sizeof *gs);
    if (!gs)
        return tl_err_nomem(err);
    int rc = 0;
    double rate_sum = 0;
    for (uint32_t c = 0; c < w->n_classes && !rc; c++) {
        class_gen *g = &gs[c];
        g->cl = &w->classes[c];
        g->idx = c;
        if ((rc = spatial_init(&g->s, &g->cl->spatial, t, seed, c, err))) {
            if (err && !err->path[0])
                snprintf(err->path, sizeof err->path, "workload.classes[%u].spatial", c);
            break;
        }
        if (g->cl->arrival == TL_ARRIVAL_SIMULTANEOUS) {
            if (!g->cl->n_flows && !(w->n_flows && w->n_classes == 1))
                rc = tl_err_set(err, TL_EINVAL,
                                "class '%s': simultaneous arrivals need a flow count (the class's "
                                "'flows', or the workload's when it is the only class)",
                                g->cl->name);
            continue;
        }
        double rate;
        if ((rc = tl_workload_class_rate(w, c, t, r, seed, n_threads, &rate, err)))
            break;
        if (!(rate > 0) || !isfinite(rate)) {
            rc = tl_err_set(err, TL_ERANGE, "class '%s': arrival rate %g flows/s is not positive",
                            g->cl->name, rate);
            break;
        }
        g->mean_gap_ps = 1e12 / rate;
        rate_sum += rate;
    }
    if (!rc && !w->n_flows && !w->duration_ps)
        for (uint32_t c = 0; c < w->n_classes; c++)
            if (!gs[c].cl->n_flows)
                rc = tl_err_set(err, TL_EINVAL,
                                "class '%s' is unbounded: give the workload a flow count or a "
                                "duration, or the class an n_flows",
                                gs[c].cl->name);

    /* First guess of each class's length, doubled until the bounds are met. */
    size_t *want = calloc(w->n_classes, sizeof *want);
    size_t *used = calloc(w->n_classes, sizeof *used);
    if (!rc && (!want || !used))
        rc = tl_err_nomem(err);
    for (uint32_t c = 0; c < w->n_classes && !rc; c++) {
        class_gen *g = &gs[c];
        double guess = 0;
        if (g->cl->n_flows)
            guess = (double)g->cl->n_flows;
        else if (w->n_flows)
            guess = g->mean_gap_ps > 0 && rate_sum > 0
                        ? (double)w->n_flows * (1e12 / g->mean_gap_ps) / rate_sum * 1.05 + 64
                        : (double)w->n_flows;
        if (w->duration_ps && g->mean_gap_ps > 0) {
            double d = (double)w->duration_ps / g->mean_gap_ps * 1.05 + 64;
            guess = guess > 0 && guess < d ? guess : d;
        }
        want[c] = guess > 1 ? (size_t)guess : 1;
    }
    size_t n_total = 0;
    while (!rc) {
        int again = 0;
        for (uint32_t c = 0; c < w->n_classes && !rc; c++) {
            rc = extend(&gs[c], want[c], seed, n_threads, prog, err);
            cut(&gs[c], w->duration_ps);
        }
        if (rc)
            break;
        size_t avail = 0;
        for (uint32_t c = 0; c < w->n_classes; c++)
            avail += gs[c].n_valid;
        n_total = w->n_flows && w->n_flows < avail ? w->n_flows : avail;
        /* The merged prefix is exact unless it used up a class that could still
         * grow: that class's next flow might belong before the cut. A class the
         * prefix did not exhaust cannot: its later flows start no earlier than
         * the first one left out. */
        merge(gs, w->n_classes, NULL, n_total, used);
        for (uint32_t c = 0; c < w->n_classes; c++) {
            class_gen *g = &gs[c];
            if (!g->is_complete && used[c] == g->n_valid) {
                want[c] = g->n * 2;
                again = 1;
            }
        }
        if (!again)
            break;
    }
    if (!rc) {
        for (uint32_t c = 0; c < w->n_classes && !rc; c++)
            if (tl_flows_add_class(out, w->classes[c].name, err) < 0)
                rc = err ? err->code : TL_ENOMEM;
    }
    if (!rc && w->n_classes == 1) {
        /* One class: hand its buffer over instead of copying 16M flows. */
        out->v = gs[0].v;
        out->cap = gs[0].cap;
        out->n = n_total;
        gs[0].v = NULL;
    } else if (!rc) {
        rc = tl_flows_reserve(out, n_total ? n_total : 1, err);
        if (!rc && merge(gs, w->n_classes, out->v, n_total, used) != n_total)
            rc = tl_err_nomem(err);
        out->n = n_total;
    }
    if (!rc && out->n && out->v[out->n - 1].start_ps > TL_START_MAX_PS) {
        const tl_flow *last = &out->v[out->n - 1];
        uint32_t c = last->class_idx;
        char jp[64];
        snprintf(jp, sizeof jp, "workload.classes[%u].load", c);
        rc = tl_err_at(err, TL_ERANGE, NULL, 0, 0, jp,
                       "class '%s': at %.3g flows/s its flows would start as late as %.3g s, "
                       "past the %.1f days of flow starts tailor simulates (int64 picoseconds, "
                       "with room for the flows to finish); raise the arrival rate or load, or "
                       "lower the flow count or duration",
                       w->classes[c].name, gs[c].mean_gap_ps > 0 ? 1e12 / gs[c].mean_gap_ps : 0,
                       (double)(used[c] ? used[c] : 1) * gs[c].mean_gap_ps * 1e-12,
                       (double)TL_START_MAX_PS * 1e-12 / 86400);
    }
    if (!rc)
        for (size_t i = 0; i < out->n; i++)
            out->v[i].id = i;
    if (!rc)
        tl_progress_report(prog, "generate", (double)out->n, (double)out->n, "flows");
    if (rc)
        tl_flows_fini(out);
    for (uint32_t c = 0; c < w->n_classes; c++) {
        spatial_fini(&gs[c].s);
        free(gs[c].v);
        free(gs[c].chunk_units);
    }
    free(gs);
    free(want);
    free(used);
    return rc;
}
