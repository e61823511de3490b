/* Spreading fan-outs over MPI ranks (docs/scale-out.md). Every rank runs
 * the same command on the same inputs and reaches the same fan-outs in the
 * same order; only a fan-out's jobs are split. Rank 0 hands them out,
 * largest expected cost first, one at a time as ranks finish them; every
 * result is then sent to every rank, so after a fan-out all ranks hold what
 * one process would have, and whatever follows (aggregation, the tuner's
 * next step) runs alike everywhere. Only rank 0 writes results.
 *
 * Built without MPI (TAILOR_MPI off), tl_dist_create fails and a NULL
 * handle means one process: tl_dist_rank gives 0 and tl_dist_size 1. */
#ifndef TAILOR_DIST_H
#define TAILOR_DIST_H

#include <stddef.h>

#include "tailor/err.h"

typedef struct tl_dist tl_dist;
struct tl_fanout;

/* Whether this build can use MPI. */
int tl_dist_is_built(void);
/* Whether an MPI launcher (mpirun) started this process as one of several
 * ranks: then a build without MPI must refuse to run, or each rank would
 * do the whole job and write the same output. */
int tl_dist_is_launched(void);

/* Starts MPI (MPI_Init_thread, funneled: only the thread that called it
 * calls MPI) and checks that every rank runs the same build; a mismatch
 * is a TL_EINVAL on every rank. *out stays NULL on error. */
int tl_dist_create(tl_dist **out, tl_err *err);
int tl_dist_rank(const tl_dist *d); /* 0 for NULL */
int tl_dist_size(const tl_dist *d); /* 1 for NULL */

/* Ends the job on every rank and frees d (NULL: returns code). code is
 * this rank's exit status and err (may be NULL) its error. Rank 0 sends its
 * code to every rank; another rank first reports to rank 0 an error that
 * rank 0 did not share (a file missing on its node), then waits for rank
 * 0's code. Returns the status every rank exits with: rank 0's. */
int tl_dist_finish(tl_dist *d, int code, const tl_err *err);

/* Rank 0, during a fan-out: writes to fd, with write(2) only (so from a
 * signal handler: mpirun stops the job this way when a rank dies), the
 * fan-out's phase and the jobs each other rank held ("rank 1: link 37,
 * link 52"). Nothing on other ranks, outside fan-outs or for NULL. */
void tl_dist_write_inflight(const tl_dist *d, int fd);

/* The distributed tl_fanout_run (fo->dist with more than one rank; called
 * by tl_fanout_run, which documents the contract). Every rank calls it
 * with the same n_jobs, phase, work and check. */
int tl_dist_fanout(const struct tl_fanout *fo, size_t *failed_idx, tl_err *err);

#endif
