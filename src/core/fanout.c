/* Fan-out of independent jobs over OpenMP threads with deterministic error
 * collection (tailor/fanout.h). Jobs are handed out one at a time
 * (schedule(dynamic, 1)): their costs vary 10x and more (Parsimon's links,
 * m3's paths), so a static split would leave threads idle at the end.
 *
 * Invariant: when a job fails, first_failed falls to its index at most;
 * a job starts only if its index is below first_failed, so every job below
 * the final first_failed has run, and the error kept is that job's. */
#include "tailor/fanout.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Worker contexts a cache line apart: jobs write their scratch pointers
 * there, and neighbours should not share a line. */
#define LOCAL_ALIGN 64

/* Runs job j with a cleared e, keeping its wall time if asked. */
static int run_timed(const tl_fanout *fo, size_t j, void *local, tl_err *e)
{
    tl_err_clear(e);
    double t0 = omp_get_wtime();
    int rc = fo->run(fo->ctx, j, local, e);
    if (fo->wall_s)
        fo->wall_s[j] = omp_get_wtime() - t0;
    return rc;
}

/* One worker in the calling thread, outside any parallel region: a job
 * that fans out over MPI ranks itself (the offline tuner's single start
 * candidate) must run on the thread that calls MPI. */
static int run_serial(const tl_fanout *fo, void *local, size_t *failed_idx, tl_err *err)
{
    size_t n = fo->n_jobs;
    double total = 0, done = 0;
    for (size_t j = 0; j < n; j++)
        total += fo->work ? fo->work[j] : 1;
    for (size_t j = 0; j < n; j++) {
        tl_err e;
        int rc = run_timed(fo, j, local, &e);
        if (rc) {
            if (err)
                *err = e;
            if (failed_idx)
                *failed_idx = j;
            return rc;
        }
        done += fo->work ? fo->work[j] : 1;
        if (fo->prog)
            tl_progress_report(fo->prog, fo->phase, done, total, fo->unit);
    }
    return 0;
}

int tl_fanout_run(const tl_fanout *fo, size_t *failed_idx, tl_err *err)
{
    size_t n = fo->n_jobs;
    if (failed_idx)
        *failed_idx = n;
    if (fo->wall_s)
        memset(fo->wall_s, 0, n * sizeof *fo->wall_s);
    if (tl_dist_size(fo->dist) > 1)
        return tl_dist_fanout(fo, failed_idx, err);
    if (n == 0)
        return 0;
    int nt = fo->n_threads > 0 ? fo->n_threads : omp_get_max_threads();
    if ((size_t)nt > n)
        nt = (int)n;
    size_t stride = (fo->local_bytes + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN;
    unsigned char *locals = NULL;
    if (stride) {
        locals = calloc((size_t)nt, stride);
        if (!locals)
            return tl_err_nomem(err);
    }
    if (nt == 1) {
        int rc = run_serial(fo, locals, failed_idx, err);
        if (fo->local_fini)
            fo->local_fini(fo->ctx, locals);
        free(locals);
        return rc;
    }
    double total = 0, done = 0;
    for (size_t j = 0; j < n; j++)
        total += fo->work ? fo->work[j] : 1;
    size_t first_failed = SIZE_MAX;
    int rc = 0;
#pragma omp parallel num_threads(nt)
    {
        void *local = locals ? locals + (size_t)omp_get_thread_num() * stride : NULL;
        tl_err e;
#pragma omp for schedule(dynamic, 1)
        for (size_t j = 0; j < n; j++) {
            size_t ff;
#pragma omp atomic read
            ff = first_failed;
            if (j > ff)
                continue;
            int jrc = run_timed(fo, j, local, &e);
            if (jrc) {
#pragma omp critical(tl_fanout_fail)
                if (j < first_failed) {
#pragma omp atomic write
                    first_failed = j;
                    rc = jrc;
                    if (err)
                        *err = e;
                }
            }
            double now;
#pragma omp atomic capture
            now = done += fo->work ? fo->work[j] : 1;
            if (fo->prog && omp_get_thread_num() == 0)
                tl_progress_report(fo->prog, fo->phase, now, total, fo->unit);
        }
    }
    for (int w = 0; fo->local_fini && w < nt; w++)
        fo->local_fini(fo->ctx, locals ? locals + (size_t)w * stride : NULL);
    free(locals);
    if (failed_idx && rc)
        *failed_idx = first_failed;
    return rc;
}
