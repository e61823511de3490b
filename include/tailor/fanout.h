/* Fan-out of independent jobs (DESIGN.md "Deterministic"): jobs 0..n_jobs-1
 * run on n_threads workers (OpenMP threads), each worker with a context of
 * its own, and with dist on the threads of every MPI rank (tailor/dist.h);
 * the error reported is the lowest failing job's, so it does not depend on
 * the thread or rank count. Parsimon's link simulations, m3's paths, the
 * offline tuner's candidates and m3's training data run through it. */
#ifndef TAILOR_FANOUT_H
#define TAILOR_FANOUT_H

#include <stddef.h>

#include "tailor/buf.h"
#include "tailor/dist.h"
#include "tailor/err.h"
#include "tailor/progress.h"

typedef struct tl_fanout {
    size_t n_jobs;
    int n_threads; /* workers; <= 0: all cores (omp_get_max_threads) */
    /* Runs job job_idx: 0, or a negative TL_E* with err filled. A job writes
     * only its own outputs and may not depend on which worker runs it, nor on
     * the order jobs run in. local: the running worker's context
     * (local_bytes, zeroed before its first job; NULL if local_bytes is 0),
     * for scratch memory a job may allocate there and leave to the next. */
    int (*run)(void *ctx, size_t job_idx, void *local, tl_err *err); /* required */
    void *ctx; /* borrowed: passed to run and local_fini */
    size_t local_bytes;
    /* Optional: frees what jobs left in a worker's context; called once per
     * worker, after the last job, on success and failure alike. */
    void (*local_fini)(void *ctx, void *local);
    /* Optional progress (reported by the calling thread's worker only, so
     * prog's callback need not be thread-safe): phase and unit name it,
     * work[job_idx] (NULL: 1 each) is a job's share of the total. */
    tl_progress *prog;
    const char *phase, *unit;
    const double *work; /* (n_jobs) or NULL */
    /* Optional out (n_jobs): each job's wall time in seconds (on rank 0
     * only when spread over ranks); jobs skipped after a failure keep 0. */
    double *wall_s;
    /* Spreading over MPI ranks (NULL or one rank: this process only). Every
     * rank passes the same n_jobs, phase and work; jobs are handed out in
     * decreasing work (index order on ties) and each result travels as
     * pack wrote it: pack appends what job job_idx wrote to out, unpack
     * (on the other ranks) writes it into place as the job would have, and
     * must read all of in. Both are required with dist. check: a value
     * every rank must agree on (a model file's CRC), else the fan-out fails
     * naming the rank that differs. */
    tl_dist *dist;
    int (*pack)(void *ctx, size_t job_idx, tl_wbuf *out, tl_err *err);
    int (*unpack)(void *ctx, size_t job_idx, tl_rbuf *in, tl_err *err);
    unsigned long long check;
    /* Optional: job job_idx's name ("link 1234"), for the message that says
     * what other ranks held when the job was killed; else "job N". */
    void (*name)(void *ctx, size_t job_idx, char *buf, size_t n);
} tl_fanout;

/* Runs every job once, except that once a job has failed, jobs of higher
 * index not yet started are skipped: every job below the lowest failing one
 * runs, so the error returned (that job's code, its err) is the same
 * whatever the thread count. *failed_idx (may be NULL): the lowest failing
 * job, n_jobs if none failed (or if another rank's failure outside any
 * job stopped it). TL_ENOMEM, before any job runs, if the workers'
 * contexts cannot be allocated. With dist, every rank returns the same
 * code and error, and on success every rank holds every job's result. */
int tl_fanout_run(const tl_fanout *fo, size_t *failed_idx, tl_err *err);

#endif
