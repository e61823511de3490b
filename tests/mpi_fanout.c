/* The fan-out over MPI ranks (tailor/dist.h), run by ctest under mpirun with
 * 1, 2 and 3 ranks (CMakeLists.txt): every rank must end a fan-out holding
 * what one process computes, with the same code, failed job and message.
 * Every rank runs every test in the same order, so each test is collective;
 * ranks other than 0 print nothing, and the exit status counts the failures
 * of every rank. With the argument "diverge", rank 1 reaches another
 * fan-out (phase) than rank 0 and the job must abort (a WILL_FAIL test). */
#include <mpi.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tailor/dist.h"
#include "tailor/fanout.h"

static tl_dist *dist;
static const char *phase = "test jobs"; /* "diverge": another on rank 1 */

#define MAX_OUT 17

/* Job j's output: j % 17 bytes of a hash of j (0 bytes for every 17th). */
typedef struct job_ctx {
    size_t n;
    unsigned char (*out)[MAX_OUT]; /* (n) */
    unsigned char *len;            /* (n) */
    const size_t *fail;            /* jobs that fail (SIZE_MAX ends the list) */
    size_t pack_fail;              /* a job whose pack fails, or SIZE_MAX */
    int is_slow0;                  /* job 0 sleeps 100 ms: others surely run the failing ones */
} job_ctx;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static int job_run(void *ctx, size_t j, void *local, tl_err *err)
{
    job_ctx *c = ctx;
    if (j == 0 && c->is_slow0) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (const size_t *f = c->fail; f && *f != SIZE_MAX; f++)
        if (*f == j)
            return tl_err_set(err, TL_ERANGE, "job %zu failed", j);
    c->len[j] = (unsigned char)(j % MAX_OUT);
    for (int i = 0; i < c->len[j]; i++)
        c->out[j][i] = (unsigned char)(mix(j * 31 + (uint64_t)i) & 0xff);
    return 0;
}

static int job_pack(void *ctx, size_t j, tl_wbuf *out, tl_err *err)
{
    job_ctx *c = ctx;
    if (j == c->pack_fail)
        return tl_err_set(err, TL_EIO, "pack of job %zu failed", j);
    int rc = tl_wbuf_put(out, &c->len[j], 1, err);
    return rc ? rc : tl_wbuf_put(out, c->out[j], c->len[j], err);
}

static int job_unpack(void *ctx, size_t j, tl_rbuf *in, tl_err *err)
{
    job_ctx *c = ctx;
    int rc = tl_rbuf_get(in, &c->len[j], 1, err);
    if (!rc && c->len[j] > MAX_OUT)
        return tl_err_set(err, TL_EPARSE, "bad length");
    return rc ? rc : tl_rbuf_get(in, c->out[j], c->len[j], err);
}

typedef struct outcome {
    int rc;
    size_t failed;
    tl_err err;
    unsigned char (*out)[MAX_OUT];
    unsigned char *len;
} outcome;

static void run_case(size_t n, int threads, const size_t *fail, size_t pack_fail, tl_dist *d,
                     unsigned long long check, outcome *o)
{
    job_ctx c = {n, calloc(n + 1, MAX_OUT), calloc(n + 1, 1), fail, pack_fail,
                 d && fail != NULL};
    assert_non_null(c.out);
    assert_non_null(c.len);
    double *work = malloc((n + 1) * sizeof *work);
    assert_non_null(work);
    for (size_t j = 0; j < n; j++) /* uneven costs, the same on every rank */
        work[j] = (double)(mix(j + 7) % 1000);
    tl_fanout fo = {.n_jobs = n, .n_threads = threads, .run = job_run, .ctx = &c,
                    .phase = phase, .work = work, .dist = d, .pack = job_pack,
                    .unpack = job_unpack, .check = check};
    tl_err_clear(&o->err);
    o->failed = 12345;
    o->rc = tl_fanout_run(&fo, &o->failed, &o->err);
    o->out = c.out, o->len = c.len;
    free(work);
}

static void outcome_fini(outcome *o) { free(o->out), free(o->len); }

/* The MPI run of every case equals the one-process run, on every rank. */
static void same_as_one_process(void **state)
{
    static const size_t sizes[] = {0, 1, 7, 1000};
    static const size_t fail_none[] = {SIZE_MAX}, fail_5[] = {5, SIZE_MAX},
                        fail_3_900[] = {900, 3, SIZE_MAX};
    static const struct {
        const char *name;
        const size_t *fail;
        size_t pack_fail;
    } kinds[] = {
        {"ok", NULL, SIZE_MAX},
        {"job 5 fails", fail_5, SIZE_MAX},
        {"jobs 3 and 900 fail", fail_3_900, SIZE_MAX},
        {"pack of job 4 fails", NULL, 4},
        {"none fail (slow job 0)", fail_none, SIZE_MAX},
    };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int threads = 1; threads <= 2; threads++)
            for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
                size_t n = sizes[s];
                outcome one, many;
                run_case(n, threads, kinds[k].fail, kinds[k].pack_fail, NULL, 0, &one);
                run_case(n, threads, kinds[k].fail, kinds[k].pack_fail, dist, 0, &many);
                /* the local run packs nothing: its pack failure cannot show */
                int is_pack_case = kinds[k].pack_fail < n && tl_dist_size(dist) > 1;
                int want_rc = is_pack_case ? TL_EIO : one.rc;
                size_t want_failed = is_pack_case && !one.rc ? kinds[k].pack_fail : one.failed;
                int ok = many.rc == want_rc && many.failed == want_failed;
                if (ok && !is_pack_case)
                    ok = strcmp(many.err.msg, one.err.msg) == 0;
                if (ok && is_pack_case)
                    ok = strcmp(many.err.msg, "pack of job 4 failed") == 0;
                if (ok && !many.rc)
                    ok = memcmp(one.len, many.len, n) == 0 &&
                         memcmp(one.out, many.out, n * MAX_OUT) == 0;
                if (!ok)
                    fail_msg("rank %d, %zu jobs, %d threads, %s: rc %d (want %d), failed %zu "
                             "(want %zu), '%s' (want '%s')",
                             tl_dist_rank(dist), n, threads, kinds[k].name, many.rc, want_rc,
                             many.failed, want_failed, many.err.msg, one.err.msg);
                outcome_fini(&one);
                outcome_fini(&many);
            }
}

/* A rank whose inputs differ (another check value) fails the fan-out on
 * every rank, naming that rank. */
static void differing_check_fails_everywhere(void **state)
{
    if (tl_dist_size(dist) < 2)
        skip();
    outcome o;
    run_case(50, 2, NULL, SIZE_MAX, dist, tl_dist_rank(dist) == 1 ? 99 : 7, &o);
    if (o.rc != TL_EINVAL || !strstr(o.err.msg, "rank 1's inputs differ"))
        fail_msg("rank %d: rc %d '%s'", tl_dist_rank(dist), o.rc, o.err.msg);
    outcome_fini(&o);
    /* and the next fan-out works again */
    run_case(50, 2, NULL, SIZE_MAX, dist, 7, &o);
    assert_int_equal(o.rc, 0);
    outcome_fini(&o);
    /* a rank with another number of jobs (other flows) fails it too */
    run_case(tl_dist_rank(dist) == 1 ? 51 : 50, 2, NULL, SIZE_MAX, dist, 7, &o);
    if (o.rc != TL_EINVAL || !strstr(o.err.msg, "rank 1's inputs differ"))
        fail_msg("rank %d: rc %d '%s'", tl_dist_rank(dist), o.rc, o.err.msg);
    outcome_fini(&o);
}

int main(int argc, char **argv)
{
    tl_err err;
    tl_err_clear(&err);
    if (tl_dist_create(&dist, &err)) {
        fprintf(stderr, "mpi_fanout: %s\n", err.msg);
        return 1;
    }
    if (tl_dist_rank(dist) != 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1), dup2(fd, 2), close(fd);
    }
    int failures;
    if (argc > 1 && !strcmp(argv[1], "diverge")) {
        outcome o;
        if (tl_dist_rank(dist) == 1)
            phase = "another step";
        run_case(10, 1, NULL, SIZE_MAX, dist, 0, &o);
        outcome_fini(&o);
        failures = 0; /* not reached with 2 ranks or more: the job aborts */
    } else {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(same_as_one_process),
            cmocka_unit_test(differing_check_fails_everywhere),
        };
        failures = cmocka_run_group_tests(tests, NULL, NULL);
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    tl_dist_finish(dist, failures != 0, NULL);
    return failures != 0;
}
