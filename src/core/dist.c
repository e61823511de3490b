/* Fan-outs spread over MPI ranks (tailor/dist.h, docs/scale-out.md): rank 0
 * is the master, hands out jobs largest expected cost first, one per
 * finished job (a dynamic queue: Parsimon's own mode splits links
 * statically and waits for the unluckiest rank), then sends every result
 * to every rank.
 *
 * Threads: on each rank, thread 0 of the fan-out's team (the thread that
 * called MPI_Init: MPI is used funneled) does all MPI calls, polling with
 * short naps, since a blocking receive spins a core in Open MPI; threads
 * 1..T run jobs. On rank 0 they take jobs from the master queue directly.
 *
 * Messages (tags below), per fan-out, between rank 0 and each rank r:
 *   r -> 0  READY   fan-out sequence number, n_jobs, phase, check, slots
 *   0 -> r  JOBS    job indices (up to slots at first, then one per result)
 *   r -> 0  RESULT  job, rc, wall time, then the pack (or the tl_err)
 *   0 -> r  END     rc, failed job, tl_err; then, on success, a broadcast
 *                   of every job's pack in index order
 * and outside fan-outs: r -> 0 FAIL (a failure rank 0 did not share),
 * 0 -> r QUIT (the exit code; also ends a fan-out rank r waits in).
 *
 * Invariants: rank 0 ends a fan-out only when every rank still in the job
 * has sent READY and every job handed out has come back, so no message of
 * one fan-out is left for the next; a job starts only if its index is
 * below the lowest failed one, so every job below the final one ran, as in
 * the local fan-out (fanout.c), and its error is the one every rank gets. */
#define _GNU_SOURCE /* qsort_r */
#include "tailor/dist.h"

#include <stdint.h>
#include <stdlib.h>

#include "tailor/fanout.h"
#include "tailor/rng.h"

/* Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; other launchers set PMI's
 * or PMIx's variables. */
int tl_dist_is_launched(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v)
        v = getenv("PMI_SIZE");
    return v && atoi(v) > 1;
}

#ifndef TAILOR_MPI

int tl_dist_is_built(void) { return 0; }

int tl_dist_create(tl_dist **out, tl_err *err)
{
    *out = NULL;
    return tl_err_set(err, TL_EINVAL, "this tailor was built without MPI (configure with "
                      "libopenmpi-dev installed, or -DTAILOR_MPI=ON)");
}

int tl_dist_rank(const tl_dist *d) { return 0; }
int tl_dist_size(const tl_dist *d) { return 1; }
int tl_dist_finish(tl_dist *d, int code, const tl_err *err) { return code; }
void tl_dist_write_inflight(const tl_dist *d, int fd) {}

int tl_dist_fanout(const struct tl_fanout *fo, size_t *failed_idx, tl_err *err)
{
    return tl_err_set(err, TL_EINVAL, "built without MPI");
}

#else

#include <gnu/libc-version.h>
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { TAG_READY = 101, TAG_JOBS, TAG_RESULT, TAG_END, TAG_FAIL, TAG_QUIT };
#define NONE SIZE_MAX
/* MPI counts are ints: the broadcast goes in pieces of at most this. */
#define BCAST_CHUNK (1u << 30)
#define HELD_TXT 160

struct tl_dist {
    MPI_Comm comm;
    int rank, size;
    uint64_t seq;       /* fan-outs entered: the same on every rank */
    int is_quit;        /* ranks > 0: QUIT received; quit_code is rank 0's code */
    int quit_code;
    int is_shared_err;  /* ranks > 0: the last error came from rank 0 (END or QUIT) */
    unsigned char *is_failed; /* rank 0: (size) ranks that sent FAIL */
    /* rank 0, for a message when the job is killed (tl_dist_write_inflight,
     * from a signal handler): the fan-out under way and, per rank, the
     * jobs it holds, as text rewritten on every change */
    volatile sig_atomic_t is_in_fanout;
    char phase[64];
    char (*held_txt)[HELD_TXT]; /* (size) */
};

typedef struct ready_msg {
    uint64_t seq, n_jobs, phase, check;
    int64_t slots;
} ready_msg;

typedef struct end_msg {
    int64_t rc;
    uint64_t failed_idx;
    tl_err err;
} end_msg;

typedef struct result_hdr {
    uint64_t job;
    int64_t rc;
    double wall_s;
} result_hdr;

typedef struct fail_msg {
    int64_t code;
    tl_err err;
} fail_msg;

int tl_dist_is_built(void) { return 1; }
int tl_dist_rank(const tl_dist *d) { return d ? d->rank : 0; }
int tl_dist_size(const tl_dist *d) { return d ? d->size : 1; }


/* Waits between polls, longer the longer nothing came (*idle polls in a
 * row; reset it on activity): from 20 us to 1 ms. An MPI_Iprobe costs
 * tens of microseconds of CPU in Open MPI 4 on shared memory, so polling
 * every 50 us took half a core from the job threads (bench/scaleout.sh);
 * the longer naps delay nothing, since every rank keeps a job queued
 * beyond its threads while a result travels. */
static void nap(int *idle)
{
    long ns = 20 * 1000L << (*idle < 6 ? *idle : 6);
    struct timespec ts = {0, ns < 1000 * 1000L ? ns : 1000 * 1000L};
    nanosleep(&ts, NULL);
    ++*idle;
}

int tl_dist_create(tl_dist **out, tl_err *err)
{
    *out = NULL;
    int provided = 0, is_init = 0;
    MPI_Initialized(&is_init);
    if (!is_init && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return tl_err_set(err, TL_EIO, "MPI_Init_thread failed");
    if (is_init)
        MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_FUNNELED)
        return tl_err_set(err, TL_EINVAL, "the MPI library gives no thread support (level %d); "
                          "tailor needs MPI_THREAD_FUNNELED", provided);
    tl_dist *d = calloc(1, sizeof *d);
    if (!d)
        return tl_err_nomem(err);
    MPI_Comm_dup(MPI_COMM_WORLD, &d->comm);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    d->is_failed = calloc((size_t)d->size, 1);
    d->held_txt = calloc((size_t)d->size, sizeof *d->held_txt);
    if (!d->is_failed || !d->held_txt) {
        free(d->is_failed), free(d->held_txt), free(d);
        return tl_err_nomem(err);
    }
    /* Results travel as raw bytes and must come out bit-identical: every
     * rank must run this very build on the same C library. */
    uint64_t h = tl_hash_str(TL_VERSION " " __DATE__ " " __TIME__);
    h = tl_mix64(h ^ tl_hash_str(gnu_get_libc_version()));
    size_t sizes[] = {sizeof(void *), sizeof(long), sizeof(long double), sizeof(tl_err)};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        h = tl_mix64(h ^ sizes[i]);
    unsigned long long lo = h, hi = h;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, d->comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, d->comm);
    if (lo != hi) { /* every rank knows: no FAIL to send */
        d->is_shared_err = 1;
        tl_dist_finish(d, 2, NULL);
        return tl_err_set(err, TL_EINVAL, "the MPI ranks run different builds of tailor (or C "
                          "libraries): results would not be bit-identical; install one build "
                          "on every node");
    }
    *out = d;
    return 0;
}

int tl_dist_finish(tl_dist *d, int code, const tl_err *err)
{
    if (!d)
        return code;
    if (d->rank == 0) {
        for (int r = 1; r < d->size; r++) {
            int64_t c = code;
            MPI_Send(&c, 1, MPI_INT64_T, r, TAG_QUIT, d->comm);
        }
    } else {
        if (code && !d->is_shared_err && !d->is_quit) {
            fail_msg m = {.code = code};
            if (err)
                m.err = *err;
            MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_FAIL, d->comm);
        }
        for (int idle = 0; !d->is_quit;) {
            int flag = 0;
            MPI_Iprobe(0, TAG_QUIT, d->comm, &flag, MPI_STATUS_IGNORE);
            if (!flag) {
                nap(&idle);
                continue;
            }
            int64_t c;
            MPI_Recv(&c, 1, MPI_INT64_T, 0, TAG_QUIT, d->comm, MPI_STATUS_IGNORE);
            d->is_quit = 1, d->quit_code = (int)c;
        }
        code = d->quit_code;
    }
    /* FAIL messages rank 0 did not take in a fan-out: its code stands. */
    for (int flag = 1; d->rank == 0 && flag;) {
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_FAIL, d->comm, &flag, &st);
        if (flag) {
            fail_msg m;
            MPI_Recv(&m, (int)sizeof m, MPI_BYTE, st.MPI_SOURCE, TAG_FAIL, d->comm,
                     MPI_STATUS_IGNORE);
        }
    }
    MPI_Comm_free(&d->comm);
    free(d->is_failed);
    free(d->held_txt);
    free(d);
    MPI_Finalize();
    return code;
}

static void put(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k <= 0)
            return;
        s += k, n -= (size_t)k;
    }
}

void tl_dist_write_inflight(const tl_dist *d, int fd)
{
    if (!d || d->rank != 0 || !d->is_in_fanout)
        return;
    put(fd, "tailor: the job was stopped during ");
    put(fd, d->phase);
    put(fd, "; the other ranks held:\n");
    for (int r = 1; r < d->size; r++) {
        char line[HELD_TXT + 4];
        memcpy(line, d->held_txt[r], HELD_TXT);
        line[HELD_TXT - 1] = '\0'; /* a line being rewritten may be torn, never unended */
        put(fd, "  ");
        put(fd, line);
        put(fd, "\n");
    }
}

/* ---- one fan-out: state shared by a rank's threads ---- */

/* Memory for the messages themselves: without it a rank cannot take part
 * and the others would wait for it forever, so the job ends here. */
static void die_nomem(tl_dist *d, const char *what)
{
    fprintf(stderr, "tailor: error: rank %d: out of memory for %s; ending the job\n", d->rank,
            what);
    MPI_Abort(d->comm, 1);
}

/* A finished job's message: RESULT's header, then the pack, or the tl_err
 * kept inline so that reporting a failure allocates nothing. */
typedef struct out_item {
    tl_wbuf msg;
    struct {
        result_hdr h;
        tl_err err;
    } fail;
    int is_fail;
} out_item;

typedef struct fan {
    const tl_fanout *fo;
    tl_dist *d;
    int nt;              /* job threads asked on this rank */
    int n_workers;       /* job threads the team has (nt unless OpenMP gave fewer) */
    size_t stride;       /* worker context size */
    unsigned char *locals;
    size_t n;
    double total, done;  /* progress, in work units (rank 0) */
    /* failures: the lowest failed job, its code and error */
    size_t first_failed;
    int rc;
    tl_err err;
    int is_stop;         /* rank 0: a rank failed outside the fan-out; hand out nothing */
    unsigned char *ran;  /* (n) jobs run here with success */
    int active;          /* job threads still running */
    /* rank 0: the queue, in decreasing work; other ranks' RESULT messages */
    size_t *order, next;
    unsigned char **res; /* (n) by job; NULL for jobs run here */
    size_t *res_n;
    /* ranks > 0: jobs received, finished jobs not yet sent */
    size_t *q, q_head, q_tail;
    out_item *items;     /* (n) by job */
    size_t *outbox, ob_n;
    int is_ended;
} fan;

static double work_of(const tl_fanout *fo, size_t j) { return fo->work ? fo->work[j] : 1; }

static void note_failure(fan *f, size_t j, int rc, const tl_err *e)
{
#pragma omp critical(tl_dist_fail)
    if (j < f->first_failed) {
#pragma omp atomic write
        f->first_failed = j;
        f->rc = rc;
        f->err = *e;
    }
}

static size_t first_failed(fan *f)
{
    size_t ff;
#pragma omp atomic read
    ff = f->first_failed;
    return ff;
}

static void add_done(fan *f, size_t j)
{
    double w = work_of(f->fo, j);
#pragma omp atomic
    f->done += w;
}

/* Runs job j on worker context w; 0 or the job's code with e filled. */
static int run_job(fan *f, size_t j, int w, tl_err *e, double *wall)
{
    void *local = f->locals ? f->locals + (size_t)w * f->stride : NULL;
    tl_err_clear(e);
    double t0 = omp_get_wtime();
    int rc = f->fo->run(f->fo->ctx, j, local, e);
    *wall = omp_get_wtime() - t0;
    return rc;
}

static int cmp_order(const void *a, const void *b, void *ctx)
{
    const tl_fanout *fo = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double wx = work_of(fo, x), wy = work_of(fo, y);
    if (wx != wy)
        return wx < wy ? 1 : -1;
    return (x > y) - (x < y);
}

/* ---- rank 0 ---- */

/* The next job of the queue, skipping jobs above a failed one. */
static size_t pop_master(fan *f)
{
    size_t j = NONE;
#pragma omp critical(tl_dist_queue)
    while (f->next < f->n && !f->is_stop) {
        size_t c = f->order[f->next++];
        if (c < first_failed(f)) {
            j = c;
            break;
        }
    }
    return j;
}

static void master_worker(fan *f, int w)
{
    size_t j;
    tl_err e;
    while ((j = pop_master(f)) != NONE) {
        double wall;
        int rc = run_job(f, j, w, &e, &wall);
        if (f->fo->wall_s)
            f->fo->wall_s[j] = wall;
        if (rc)
            note_failure(f, j, rc, &e);
        else
            f->ran[j] = 1;
        add_done(f, j);
    }
#pragma omp atomic
    f->active--;
}

#define MAX_HANDOUT 64

/* The jobs each rank holds (rank 0's view), for naming them if the job is
 * killed: held[r] has room for the most rank r ever holds, its slots. */
typedef struct held_jobs {
    size_t **held; /* (size) (cap[r]) */
    int *n, *cap;  /* (size) */
} held_jobs;

/* Rewrites rank r's line of d->held_txt: "rank 2: link 17, link 40". */
static void describe_held(fan *f, const held_jobs *h, int r)
{
    char line[HELD_TXT], name[48];
    int len = snprintf(line, sizeof line, "rank %d:", r);
    for (int i = 0; i < h->n[r] && len < (int)sizeof line; i++) {
        if (f->fo->name)
            f->fo->name(f->fo->ctx, h->held[r][i], name, sizeof name);
        else
            snprintf(name, sizeof name, "job %zu", h->held[r][i]);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s %s", i ? "," : "", name);
    }
    if (!h->n[r])
        snprintf(line + len, sizeof line - (size_t)len, " none");
    memcpy(f->d->held_txt[r], line, sizeof line);
}

static void send_jobs(fan *f, held_jobs *h, int r, int count, int64_t *outstanding)
{
    uint64_t jobs[MAX_HANDOUT];
    while (count > 0) {
        int k = 0;
        for (size_t j; k < count && k < MAX_HANDOUT && (j = pop_master(f)) != NONE;)
            jobs[k++] = j;
        if (!k)
            break;
        MPI_Send(jobs, k, MPI_UINT64_T, r, TAG_JOBS, f->d->comm);
        outstanding[r] += k;
        count -= k;
        for (int i = 0; i < k && h->n[r] < h->cap[r]; i++)
            h->held[r][h->n[r]++] = jobs[i];
        describe_held(f, h, r);
    }
}

static void drop_held(fan *f, held_jobs *h, int r, size_t j)
{
    for (int i = 0; i < h->n[r]; i++)
        if (h->held[r][i] == j) {
            h->held[r][i] = h->held[r][--h->n[r]];
            break;
        }
    describe_held(f, h, r);
}

static void held_fini(held_jobs *h, int size)
{
    for (int r = 0; h->held && r < size; r++)
        free(h->held[r]);
    free(h->held), free(h->n), free(h->cap);
}

static size_t on_result(fan *f, const MPI_Status *st)
{
    const tl_fanout *fo = f->fo;
    int len = 0;
    MPI_Get_count(st, MPI_BYTE, &len);
    unsigned char *buf = malloc((size_t)len + 1);
    if (!buf)
        die_nomem(f->d, "a job's result");
    MPI_Recv(buf, len, MPI_BYTE, st->MPI_SOURCE, TAG_RESULT, f->d->comm, MPI_STATUS_IGNORE);
    result_hdr h;
    memcpy(&h, buf, sizeof h);
    size_t j = h.job;
    if (fo->wall_s)
        fo->wall_s[j] = h.wall_s;
    tl_err e;
    tl_err_clear(&e);
    if (h.rc) {
        memcpy(&e, buf + sizeof h, sizeof e);
        note_failure(f, j, (int)h.rc, &e);
        free(buf);
    } else {
        tl_rbuf in = {buf + sizeof h, (size_t)len - sizeof h, 0};
        int rc = fo->unpack(fo->ctx, j, &in, &e);
        if (!rc && in.pos != in.n)
            rc = tl_err_set(&e, TL_EPARSE, "result of job %zu from rank %d: %zu bytes left "
                            "unread", j, st->MPI_SOURCE, in.n - in.pos);
        if (rc) {
            note_failure(f, j, rc, &e);
            free(buf);
        } else {
            f->res[j] = buf, f->res_n[j] = (size_t)len;
        }
    }
    add_done(f, j);
    return j;
}

/* Ends the hand-out for a failure outside the jobs (a rank failed, or its
 * inputs differ): kept unless a job failed too, whose error wins. */
static void stop_all(fan *f, int code, const tl_err *e, int *is_stopped, tl_err *stop_err,
                     int *stop_code)
{
    if (!*is_stopped)
        *is_stopped = 1, *stop_err = *e, *stop_code = code;
#pragma omp critical(tl_dist_queue)
    f->is_stop = 1;
}

/* Rank 0's thread 0: serves the other ranks until every job is back. */
static void master_comm(fan *f, uint64_t phase)
{
    tl_dist *d = f->d;
    const tl_fanout *fo = f->fo;
    const char *what = fo->phase ? fo->phase : "a fan-out";
    int n_in = 0; /* ranks that sent READY or have failed */
    int64_t *outstanding = calloc((size_t)d->size, sizeof *outstanding);
    held_jobs h = {calloc((size_t)d->size, sizeof *h.held), calloc((size_t)d->size, sizeof *h.n),
                   calloc((size_t)d->size, sizeof *h.cap)};
    if (!outstanding || !h.held || !h.n || !h.cap)
        die_nomem(d, "the job table");
    snprintf(d->phase, sizeof d->phase, "%s", what);
    for (int r = 1; r < d->size; r++)
        snprintf(d->held_txt[r], HELD_TXT, "rank %d: not started", r);
    d->is_in_fanout = 1;
    int is_stopped = 0, stop_code = 0;
    tl_err stop_err, e;
    tl_err_clear(&stop_err);
    for (int r = 1; r < d->size; r++)
        if (d->is_failed[r]) {
            n_in++;
            tl_err_clear(&e);
            tl_err_set(&e, TL_EINVAL, "rank %d failed earlier", r);
            stop_all(f, TL_EINVAL, &e, &is_stopped, &stop_err, &stop_code);
        }
    double shown = -1;
    for (int idle = 0;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &flag, &st);
        int r = flag ? st.MPI_SOURCE : 0;
        if (flag)
            idle = 0;
        if (flag && st.MPI_TAG == TAG_READY) {
            ready_msg m;
            MPI_Recv(&m, (int)sizeof m, MPI_BYTE, r, TAG_READY, d->comm, MPI_STATUS_IGNORE);
            if (m.seq != d->seq || m.phase != phase) {
                fprintf(stderr, "tailor: error: rank %d reached another step than rank 0 (%s, "
                        "step %llu): the ranks run different commands; every rank must run "
                        "the same command on the same files\n", r, what,
                        (unsigned long long)d->seq);
                MPI_Abort(d->comm, 70);
            }
            n_in++;
            if (m.n_jobs != f->n || m.check != fo->check) {
                tl_err_clear(&e);
                tl_err_set(&e, TL_EINVAL, "rank %d's inputs differ from rank 0's (%s: %llu "
                           "jobs, check %llx; rank 0: %zu jobs, check %llx): every rank must "
                           "run the same command on the same files", r, what,
                           (unsigned long long)m.n_jobs, (unsigned long long)m.check, f->n,
                           fo->check);
                stop_all(f, TL_EINVAL, &e, &is_stopped, &stop_err, &stop_code);
            }
            if (m.slots > 0 && !(h.held[r] = malloc((size_t)m.slots * sizeof *h.held[r])))
                die_nomem(d, "the job table");
            h.cap[r] = m.slots > 0 ? (int)m.slots : 0;
            send_jobs(f, &h, r, (int)m.slots, outstanding);
        } else if (flag && st.MPI_TAG == TAG_RESULT) {
            outstanding[r]--;
            drop_held(f, &h, r, on_result(f, &st));
            send_jobs(f, &h, r, 1, outstanding);
        } else if (flag && st.MPI_TAG == TAG_FAIL) {
            fail_msg m;
            MPI_Recv(&m, (int)sizeof m, MPI_BYTE, r, TAG_FAIL, d->comm, MPI_STATUS_IGNORE);
            d->is_failed[r] = 1;
            n_in++;
            /* Its exit status stands for an error it did not describe. */
            int code = m.err.code < 0 ? m.err.code : m.code == 2 ? TL_EINVAL : TL_ESTOP;
            e = m.err;
            e.code = code;
            if (m.err.msg[0])
                snprintf(e.msg, sizeof e.msg, "rank %d failed before %s: %s", r, what,
                         m.err.msg);
            else
                snprintf(e.msg, sizeof e.msg, "rank %d failed before %s (exit status %d; "
                         "its messages are not shown: run its command alone on its node)",
                         r, what, (int)m.code);
            stop_all(f, code, &e, &is_stopped, &stop_err, &stop_code);
        } else if (flag) { /* QUIT and END never come to rank 0 */
            fprintf(stderr, "tailor: internal error: rank 0 got message tag %d from rank %d\n",
                    st.MPI_TAG, r);
            MPI_Abort(d->comm, 70);
        }
        if (flag)
            continue;
        double done;
#pragma omp atomic read
        done = f->done;
        if (fo->prog && done != shown)
            tl_progress_report(fo->prog, fo->phase, done, f->total, fo->unit);
        shown = done;
        int active, busy = 0;
#pragma omp atomic read
        active = f->active;
        for (int q = 1; q < d->size; q++)
            busy |= outstanding[q] != 0;
        if (n_in == d->size - 1 && !busy && active == 0)
            break;
        nap(&idle);
    }
    if (is_stopped && f->first_failed == NONE)
        f->rc = stop_code, f->err = stop_err, f->first_failed = f->n;
    d->is_in_fanout = 0;
    held_fini(&h, d->size);
    free(outstanding);
}

/* Sends END to every rank still in the job, then, on success, every job's
 * result in index order. */
static int master_finish(fan *f, tl_err *err)
{
    tl_dist *d = f->d;
    const tl_fanout *fo = f->fo;
    end_msg m = {.rc = f->rc, .failed_idx = f->first_failed == NONE ? f->n : f->first_failed};
    if (f->rc)
        m.err = f->err;
    tl_wbuf all = {0};
    uint64_t *off = malloc((f->n + 1) * sizeof *off);
    if (!off)
        die_nomem(d, "the results' offsets");
    /* Rank 0's own results are packed now, so that a failure to pack
     * reaches every rank with END. */
    for (size_t j = 0; !m.rc && j <= f->n; j++) {
        off[j] = all.n;
        if (j == f->n)
            break;
        tl_err e;
        tl_err_clear(&e);
        int rc = f->res[j] ? tl_wbuf_put(&all, f->res[j] + sizeof(result_hdr),
                                         f->res_n[j] - sizeof(result_hdr), &e)
                           : fo->pack(fo->ctx, j, &all, &e);
        if (rc)
            m.rc = rc, m.err = e, m.failed_idx = j;
    }
    for (int r = 1; r < d->size; r++)
        if (!d->is_failed[r])
            MPI_Send(&m, (int)sizeof m, MPI_BYTE, r, TAG_END, d->comm);
    if (!m.rc) {
        MPI_Bcast(off, (int)(f->n + 1), MPI_UINT64_T, 0, d->comm);
        for (size_t at = 0; at < all.n; at += BCAST_CHUNK) {
            size_t k = all.n - at < BCAST_CHUNK ? all.n - at : BCAST_CHUNK;
            MPI_Bcast(all.p + at, (int)k, MPI_BYTE, 0, d->comm);
        }
    }
    tl_wbuf_fini(&all);
    free(off);
    f->first_failed = m.rc ? m.failed_idx : NONE;
    if (m.rc && err)
        *err = m.err;
    return (int)m.rc;
}

/* ---- ranks > 0 ---- */

/* Fills item it for job j: RESULT's header and the pack, or the failure. */
static void make_result(fan *f, out_item *it, size_t j, int rc, double wall, tl_err *e)
{
    const tl_fanout *fo = f->fo;
    result_hdr h = {.job = j, .rc = 0, .wall_s = wall};
    if (!rc && !(rc = tl_wbuf_put(&it->msg, &h, sizeof h, e)))
        rc = fo->pack(fo->ctx, j, &it->msg, e);
    if (!rc && it->msg.n > INT32_MAX)
        rc = tl_err_set(e, TL_ERANGE, "job %zu's result is %zu bytes, more than one MPI "
                        "message carries (2 GiB)", j, it->msg.n);
    if (rc) {
        tl_wbuf_fini(&it->msg);
        it->is_fail = 1;
        it->fail.h = (result_hdr){.job = j, .rc = rc, .wall_s = wall};
        it->fail.err = *e;
    } else {
        f->ran[j] = 1;
    }
}

static void worker_worker(fan *f, int w)
{
    for (int idle = 0;;) {
        size_t j = NONE;
        int is_ended;
#pragma omp critical(tl_dist_wqueue)
        {
            if (f->q_head < f->q_tail)
                j = f->q[f->q_head++];
            is_ended = f->is_ended;
        }
        if (j == NONE) {
            if (is_ended)
                break;
            nap(&idle);
            continue;
        }
        idle = 0;
        tl_err e;
        double wall;
        int rc = run_job(f, j, w, &e, &wall);
        make_result(f, &f->items[j], j, rc, wall, &e);
#pragma omp critical(tl_dist_wqueue)
        f->outbox[f->ob_n++] = j;
    }
#pragma omp atomic
    f->active--;
}

/* A rank's thread 0: READY, then results out and jobs in until END. */
static void worker_comm(fan *f, uint64_t phase)
{
    tl_dist *d = f->d;
    /* One job more than threads, so that a thread finds the next job
     * waiting while its result travels. */
    ready_msg m = {d->seq, f->n, phase, f->fo->check, f->n_workers ? f->n_workers + 1 : 0};
    MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_READY, d->comm);
    size_t *take = malloc((f->n + 1) * sizeof *take);
    if (!take)
        die_nomem(d, "the outbox");
    for (int idle = 0;;) {
        size_t k;
#pragma omp critical(tl_dist_wqueue)
        {
            k = f->ob_n;
            memcpy(take, f->outbox, k * sizeof *take);
            f->ob_n = 0;
        }
        for (size_t i = 0; i < k; i++) {
            out_item *it = &f->items[take[i]];
            if (it->is_fail)
                MPI_Send(&it->fail, (int)sizeof it->fail, MPI_BYTE, 0, TAG_RESULT, d->comm);
            else
                MPI_Send(it->msg.p, (int)it->msg.n, MPI_BYTE, 0, TAG_RESULT, d->comm);
            tl_wbuf_fini(&it->msg);
        }
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(0, MPI_ANY_TAG, d->comm, &flag, &st);
        if (flag || k)
            idle = 0;
        if (flag && st.MPI_TAG == TAG_JOBS) {
            int cnt = 0;
            MPI_Get_count(&st, MPI_UINT64_T, &cnt);
            uint64_t jobs[MAX_HANDOUT];
            MPI_Recv(jobs, cnt, MPI_UINT64_T, 0, TAG_JOBS, d->comm, MPI_STATUS_IGNORE);
#pragma omp critical(tl_dist_wqueue)
            for (int i = 0; i < cnt && f->q_tail < f->n; i++)
                f->q[f->q_tail++] = jobs[i];
        } else if (flag && st.MPI_TAG == TAG_END) {
            end_msg e;
            MPI_Recv(&e, (int)sizeof e, MPI_BYTE, 0, TAG_END, d->comm, MPI_STATUS_IGNORE);
            f->rc = (int)e.rc, f->err = e.err;
            f->first_failed = e.rc ? e.failed_idx : NONE;
            break;
        } else if (flag && st.MPI_TAG == TAG_QUIT) {
            int64_t c;
            MPI_Recv(&c, 1, MPI_INT64_T, 0, TAG_QUIT, d->comm, MPI_STATUS_IGNORE);
            d->is_quit = 1, d->quit_code = (int)c;
            tl_err_clear(&f->err);
            f->rc = tl_err_set(&f->err, TL_ESTOP, "rank 0 ended the job");
            f->first_failed = f->n;
            break;
        } else if (flag) {
            fprintf(stderr, "tailor: internal error: rank %d got message tag %d\n", d->rank,
                    st.MPI_TAG);
            MPI_Abort(d->comm, 70);
        } else {
            nap(&idle);
        }
    }
#pragma omp critical(tl_dist_wqueue)
    {
        f->is_ended = 1;
        f->q_head = f->q_tail; /* after QUIT: jobs not started never will */
    }
    free(take);
}

/* After END: the other ranks' results, from rank 0's broadcast. */
static int worker_receive(fan *f, tl_err *err)
{
    tl_dist *d = f->d;
    const tl_fanout *fo = f->fo;
    uint64_t *off = malloc((f->n + 1) * sizeof *off);
    if (!off)
        die_nomem(d, "the results' offsets");
    MPI_Bcast(off, (int)(f->n + 1), MPI_UINT64_T, 0, d->comm);
    size_t total = off[f->n];
    unsigned char *all = malloc(total + 1);
    if (!all)
        die_nomem(d, "the results");
    for (size_t at = 0; at < total; at += BCAST_CHUNK) {
        size_t k = total - at < BCAST_CHUNK ? total - at : BCAST_CHUNK;
        MPI_Bcast(all + at, (int)k, MPI_BYTE, 0, d->comm);
    }
    int rc = 0;
    for (size_t j = 0; !rc && j < f->n; j++) {
        if (f->ran[j])
            continue;
        tl_rbuf in = {all + off[j], off[j + 1] - off[j], 0};
        rc = fo->unpack(fo->ctx, j, &in, err);
        if (!rc && in.pos != in.n)
            rc = tl_err_set(err, TL_EPARSE, "result of job %zu: %zu bytes left unread", j,
                            in.n - in.pos);
    }
    free(off);
    free(all);
    return rc;
}

int tl_dist_fanout(const tl_fanout *fo, size_t *failed_idx, tl_err *err)
{
    tl_dist *d = fo->dist;
    size_t n = fo->n_jobs;
    int is_main = 0;
    MPI_Is_thread_main(&is_main);
    if (!is_main || omp_in_parallel() || !fo->pack || !fo->unpack) {
        fprintf(stderr, "tailor: internal error: fan-out '%s' spread over ranks %s\n",
                fo->phase ? fo->phase : "",
                !fo->pack || !fo->unpack ? "without pack/unpack" : "off MPI's thread");
        MPI_Abort(d->comm, 70);
    }
    d->seq++;
    d->is_shared_err = 0;
    uint64_t phase = tl_hash_str(fo->phase ? fo->phase : "");
    fan f = {.fo = fo, .d = d, .n = n, .first_failed = NONE};
    f.nt = fo->n_threads > 0 ? fo->n_threads : omp_get_max_threads();
    f.stride = (fo->local_bytes + 63) / 64 * 64;
    int is_root = d->rank == 0;
    int ok = (f.ran = calloc(n + 1, 1)) != NULL;
    if (f.stride)
        ok &= (f.locals = calloc((size_t)f.nt, f.stride)) != NULL;
    if (is_root) {
        ok &= (f.order = malloc((n + 1) * sizeof *f.order)) != NULL;
        ok &= (f.res = calloc(n + 1, sizeof *f.res)) != NULL;
        ok &= (f.res_n = calloc(n + 1, sizeof *f.res_n)) != NULL;
    } else {
        ok &= (f.q = malloc((n + 1) * sizeof *f.q)) != NULL;
        ok &= (f.items = calloc(n + 1, sizeof *f.items)) != NULL;
        ok &= (f.outbox = malloc((n + 1) * sizeof *f.outbox)) != NULL;
    }
    if (!ok)
        die_nomem(d, "a fan-out's tables");
    if (is_root) {
        for (size_t j = 0; j < n; j++)
            f.order[j] = j, f.total += work_of(fo, j);
        qsort_r(f.order, n, sizeof *f.order, cmp_order, (void *)fo);
    }
#pragma omp parallel num_threads(f.nt + 1)
    {
        /* OpenMP may give fewer threads than asked (OMP_THREAD_LIMIT):
         * thread 0 must know how many job threads will end. */
#pragma omp single
        f.n_workers = f.active = omp_get_num_threads() - 1;
        int t = omp_get_thread_num();
        if (t == 0)
            is_root ? master_comm(&f, phase) : worker_comm(&f, phase);
        else if (is_root)
            master_worker(&f, t - 1);
        else
            worker_worker(&f, t - 1);
    }
    int rc;
    if (is_root) {
        rc = master_finish(&f, err);
    } else if ((rc = f.rc) != 0) {
        if (err)
            *err = f.err;
        d->is_shared_err = 1;
    } else {
        rc = worker_receive(&f, err);
    }
    if (rc && failed_idx)
        *failed_idx = f.first_failed < n ? f.first_failed : n;
    for (int w = 0; fo->local_fini && w < f.nt; w++)
        fo->local_fini(fo->ctx, f.locals ? f.locals + (size_t)w * f.stride : NULL);
    for (size_t j = 0; f.res && j < n; j++)
        free(f.res[j]);
    for (size_t j = 0; f.items && j < n; j++)
        tl_wbuf_fini(&f.items[j].msg);
    free(f.res), free(f.res_n), free(f.order), free(f.q), free(f.items), free(f.outbox);
    free(f.ran), free(f.locals);
    return rc;
}

#endif
