/* Core: event heap order and ties, pool reuse, rng streams, quantiles, units,
 * error formatting, fan-out of jobs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tailor/err.h"
#include "tailor/fanout.h"
#include "tailor/heap.h"
#include "tailor/pool.h"
#include "tailor/quantile.h"
#include "tailor/rng.h"
#include "tailor/strutil.h"
#include "tailor/time.h"
#include "tailor/units.h"
#include "testutil.h"

/* Random pushes and pops against a sorted reference: pops come out ordered by
 * (time, insertion order), and the invariants hold throughout. */
static void heap_orders_by_time_then_insertion(void **state)
{
    tl_heap h;
    assert_int_equal(tl_heap_init(&h, 4, NULL), 0); /* small: forces growth */
    tl_rng r;
    tl_rng_init(&r, 7, "test", 0);
    int64_t last_t = -1;
    uint64_t last_seq = 0;
    size_t live = 0;
    for (int round = 0; round < 20000; round++) {
        if (live == 0 || tl_rng_below(&r, 3) != 0) {
            /* Few distinct times, so ties are frequent. */
            int64_t t = (last_t < 0 ? 0 : last_t) + (int64_t)tl_rng_below(&r, 4);
            assert_true(tl_heap_push(&h, t, (uint32_t)round, 1, 0) != 0);
            live++;
        } else {
            tl_event e;
            assert_int_equal(tl_heap_pop(&h, &e), 1);
            live--;
            assert_true(e.t_ps > last_t || (e.t_ps == last_t && e.seq > last_seq));
            last_t = e.t_ps;
            last_seq = e.seq;
        }
        if (round % 997 == 0)
            tl_heap_check(&h);
    }
    tl_event e;
    while (tl_heap_pop(&h, &e)) {
        assert_true(e.t_ps > last_t || (e.t_ps == last_t && e.seq > last_seq));
        last_t = e.t_ps;
        last_seq = e.seq;
    }
    assert_int_equal(tl_heap_pop(&h, &e), 0);
    tl_heap_fini(&h);
}

/* Two heaps sharing one seq (tl_heap_take_seq, tl_heap_push_seq), popped
 * by tl_event_before, give the events in exactly the order one heap would:
 * pktsim keeps its timers apart on this. Times repeat, so ties must break
 * by seq across the heaps. */
static void split_heaps_keep_one_order(void **state)
{
    (void)state;
    tl_heap one, a, b;
    assert_int_equal(tl_heap_init(&one, 4, NULL), 0);
    assert_int_equal(tl_heap_init(&a, 4, NULL), 0);
    assert_int_equal(tl_heap_init(&b, 4, NULL), 0);
    uint64_t x = 12345;
    int n_b = 0;
    for (uint32_t i = 0; i < 3000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t t = (int64_t)((x >> 33) % 50); /* many equal times */
        uint64_t s1 = tl_heap_push(&one, t, i, 0, 0);
        uint64_t s2;
        if ((x >> 20) & 1) {
            s2 = tl_heap_push_seq(&b, t, tl_heap_take_seq(&a), i, 0, 0);
            n_b++;
        } else {
            s2 = tl_heap_push(&a, t, i, 0, 0);
        }
        assert_true(s1 == s2);
        if (i % 7 == 6) { /* pop some as we go, as a simulation does */
            tl_event e1, e2;
            const tl_event *pa = tl_heap_peek(&a), *pb = tl_heap_peek(&b);
            tl_heap *from = pb && (!pa || tl_event_before(pb, pa)) ? &b : &a;
            assert_int_equal(tl_heap_pop(&one, &e1), 1);
            assert_int_equal(tl_heap_pop(from, &e2), 1);
            assert_true(e1.seq == e2.seq && e1.target == e2.target && e1.t_ps == e2.t_ps);
        }
    }
    assert_true(n_b > 1000 && n_b < 2000);
    tl_event e1, e2;
    while (tl_heap_pop(&one, &e1)) {
        const tl_event *pa = tl_heap_peek(&a), *pb = tl_heap_peek(&b);
        tl_heap *from = pb && (!pa || tl_event_before(pb, pa)) ? &b : &a;
        assert_int_equal(tl_heap_pop(from, &e2), 1);
        assert_true(e1.seq == e2.seq && e1.target == e2.target);
    }
    assert_null(tl_heap_peek(&a));
    assert_null(tl_heap_peek(&b));
    tl_heap_fini(&one), tl_heap_fini(&a), tl_heap_fini(&b);
}

static void heap_ties_are_fifo(void **state)
{
    tl_heap h;
    assert_int_equal(tl_heap_init(&h, 8, NULL), 0);
    for (uint32_t i = 0; i < 100; i++)
        tl_heap_push(&h, 42, i, 0, 0);
    for (uint32_t i = 0; i < 100; i++) {
        tl_event e;
        assert_int_equal(tl_heap_pop(&h, &e), 1);
        assert_int_equal(e.target, i);
    }
    tl_heap_fini(&h);
}

static void pool_reuses_and_bounds(void **state)
{
    tl_pool p;
    assert_int_equal(tl_pool_init(&p, 20, 2, 4, NULL), 0);
    uint32_t a = tl_pool_get(&p), b = tl_pool_get(&p), c = tl_pool_get(&p), d = tl_pool_get(&p);
    assert_int_equal(a, 0);
    assert_int_equal(d, 3);
    assert_int_equal(tl_pool_get(&p), TL_POOL_NONE); /* max_cap reached */
    memset(tl_pool_at(&p, c), 0xab, 20);
    tl_pool_put(&p, b);
    assert_int_equal(tl_pool_get(&p), b); /* freed slot comes back first */
    assert_int_equal(p.n_live, 4);
    tl_pool_fini(&p);
}

static void rng_streams_are_deterministic_and_distinct(void **state)
{
    tl_rng a, b, c;
    tl_rng_init(&a, 1, "sizes", 5);
    tl_rng_init(&b, 1, "sizes", 5);
    tl_rng_init(&c, 1, "sizes", 6);
    int same_ab = 1, same_ac = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = tl_rng_u64(&a), y = tl_rng_u64(&b), z = tl_rng_u64(&c);
        same_ab &= x == y;
        same_ac += x == z;
    }
    assert_true(same_ab);
    assert_int_equal(same_ac, 0);
    /* Uniform moments over 1M draws: mean 1/2 +- 0.002, below(10) hits each bin. */
    tl_rng_init(&a, 3, "moments", 0);
    double sum = 0;
    unsigned bins[10] = {0};
    for (int i = 0; i < 1000000; i++) {
        sum += tl_rng_uniform(&a);
        bins[tl_rng_below(&a, 10)]++;
    }
    assert_true(fabs(sum / 1e6 - 0.5) < 0.002);
    for (int i = 0; i < 10; i++)
        assert_true(bins[i] > 98000 && bins[i] < 102000);
}

static void quantiles_exact_and_sketch(void **state)
{
    double xs[] = {5, 1, 4, 2, 3};
    double qs[] = {0, 0.5, 1, 0.25, 0.9};
    double out[5];
    assert_int_equal(tl_quantiles(xs, 5, qs, out, 5, NULL), 0);
    /* type 7: h = q (n-1) */
    assert_true(out[0] == 1 && out[1] == 3 && out[2] == 5 && out[3] == 2);
    assert_true(fabs(out[4] - 4.6) < 1e-12);
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_quantiles(xs, 5, (double[]){1.5}, out, 1, &err), TL_ERANGE);

    /* Sketch of 1..100000: p50 and p99 within the relative error of the exact ones. */
    tl_qsketch s, s2;
    assert_int_equal(tl_qsketch_init(&s, 1, 1e9, 0.005, NULL), 0);
    assert_int_equal(tl_qsketch_init(&s2, 1, 1e9, 0.005, NULL), 0);
    for (int i = 1; i <= 100000; i++)
        tl_qsketch_add(i % 2 ? &s : &s2, (double)i);
    assert_int_equal(tl_qsketch_merge(&s, &s2, NULL), 0);
    assert_true(fabs(tl_qsketch_quantile(&s, 0.5) / 50000.0 - 1) < 0.0051);
    assert_true(fabs(tl_qsketch_quantile(&s, 0.99) / 99000.0 - 1) < 0.0051);
    assert_true(tl_qsketch_quantile(&s, 1) == 100000);
    tl_qsketch_fini(&s);
    tl_qsketch_fini(&s2);
}

static void units_parse_and_format(void **state)
{
    static const struct {
        const char *name, *text;
        uint64_t want_bps;
    } rates[] = {{"10Gbps", "10Gbps", 10000000000ull},
                 {"space", "40 Gbps", 40000000000ull},
                 {"b/s", "615Mb/s", 615000000ull},
                 {"plain", "1000bps", 1000}};
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        uint64_t v = 0;
        if (tl_units_parse_rate(rates[i].text, &v) != 0 || v != rates[i].want_bps)
            fail_msg("rate case %s: got %llu", rates[i].name, (unsigned long long)v);
    }
    static const struct {
        const char *name, *text;
        int64_t want_ps;
    } times[] = {{"1us", "1us", 1000000}, {"ns", "1000ns", 1000000}, {"ms", "0.001ms", 1000000},
                 {"s", "2s", 2000000000000}, {"ps", "20ps", 20}};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        int64_t v = 0;
        if (tl_units_parse_time(times[i].text, &v) != 0 || v != times[i].want_ps)
            fail_msg("time case %s: got %lld", times[i].name, (long long)v);
    }
    uint64_t b;
    assert_int_equal(tl_units_parse_bytes("3KB", &b), 0);
    assert_int_equal(b, 3000);
    assert_int_equal(tl_units_parse_bytes("1MiB", &b), 0);
    assert_int_equal(b, 1048576);
    assert_int_equal(tl_units_parse_rate("10 furlongs", &b), -1);
    assert_int_equal(tl_units_parse_rate("fast", &b), -1);
    char buf[32];
    assert_string_equal(tl_units_fmt_rate(40000000000ull, buf, sizeof buf), "40Gbps");
    assert_string_equal(tl_units_fmt_time(1500000, buf, sizeof buf), "1500ns");
    assert_string_equal(tl_units_fmt_time(886500000, buf, sizeof buf), "886500ns");
}

static void tx_time_is_exact(void **state)
{
    static const struct {
        const char *name;
        uint64_t bytes, rate_bps;
        int64_t want_ps;
    } cases[] = {
        {"1B@400G", 1, 400000000000u, 20},
        {"4096B@100G", 4096, 100000000000u, 327680},
        {"1048B@10G", 1048, 10000000000u, 838400},
        /* rounding at odd rates, on both sides of the 64-bit fast path's
         * limit (2e6 bytes), and at its largest rate (values by hand) */
        {"1500B@9999999937", 1500, 9999999937u, 1200000},
        {"2e6B@3", 2000000, 3, INT64_C(5333333333333333333)},
        {"2000001B@7", 2000001, 7, INT64_C(2285715428571428571)},
        {"2e6B@1e18", 2000000, 1000000000000000000u, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (tl_tx_time_ps(cases[i].bytes, cases[i].rate_bps) != cases[i].want_ps)
            fail_msg("case %s", cases[i].name);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The radix sort against qsort: small keys (passes skipped), keys spread
 * over all 64 bits, many duplicates, and lengths 0, 1 and 5,000. */
static void radix_sort_matches_qsort(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *tmp = malloc(N * sizeof *tmp);
    tl_rng r;
    tl_rng_init(&r, 3, "sort", 0);
    for (int kind = 0; kind < 3; kind++) {
        for (size_t i = 0; i < N; i++) {
            uint64_t x = tl_rng_u64(&r);
            a[i] = kind == 0 ? x % 3000 : kind == 1 ? x : (x % 7) << 40;
        }
        memcpy(b, a, N * sizeof *a);
        qsort(b, N, sizeof *b, cmp_u64);
        tl_sort_u64(a, tmp, N);
        assert_memory_equal(a, b, N * sizeof *a);
    }
    a[0] = 42;
    tl_sort_u64(a, tmp, 1);
    assert_int_equal(a[0], 42);
    tl_sort_u64(a, tmp, 0);
    free(a), free(b), free(tmp);
}

/* tl_quantiles sorts non-negative samples by radix and others by qsort:
 * both give the quantiles of the qsorted copy, with ties, zeros and (in the
 * second case) a negative value among 3,000 samples. */
static void quantiles_radix_and_qsort_agree(void **state)
{
    (void)state;
    enum { N = 3000 };
    static const double qs[] = {0, 0.01, 0.5, 0.9, 0.99, 0.999, 1};
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), got[7];
    tl_rng r;
    tl_rng_init(&r, 5, "quantiles", 0);
    for (int neg = 0; neg < 2; neg++) {
        for (size_t i = 0; i < N; i++)
            a[i] = i % 7 == 0   ? 0
                   : i % 5 == 0 ? 1.5
                                : 1 + 50 * tl_rng_uniform(&r) * tl_rng_uniform(&r);
        if (neg)
            a[17] = -2;
        memcpy(b, a, N * sizeof *a);
        qsort(b, N, sizeof *b, tl_cmp_double);
        assert_int_equal(tl_quantiles(a, N, qs, got, 7, NULL), 0);
        assert_memory_equal(a, b, N * sizeof *a); /* sorted in place */
        for (int k = 0; k < 7; k++)
            assert_true(got[k] == tl_quantile_sorted(b, N, qs[k]));
    }
    free(a), free(b);
}

static void err_format_names_location(void **state)
{
    tl_err e;
    tl_err_clear(&e);
    tl_err_at(&e, TL_ERANGE, "s.json", 3, 7, "workload.flows", "expected %s", "more");
    char buf[256];
    assert_string_equal(tl_err_format(&e, buf, sizeof buf),
                        "s.json:3:7: workload.flows: expected more");
    assert_string_equal(tl_suggest("clases", (const char *[]){"classes", "flows"}, 2), "classes");
    assert_null(tl_suggest("zzzzzzzz", (const char *[]){"classes", "flows"}, 2));
}

/* ---- fan-out ---- */

typedef struct fan_case {
    const char *name;
    size_t n_jobs;
    size_t fail[3]; /* failing jobs (SIZE_MAX: none); the first is slow */
    size_t want_failed;
} fan_case;

typedef struct fan_local {
    size_t n_run; /* jobs this worker ran */
    int *buf;     /* scratch a job allocates and the next reuses */
} fan_local;

typedef struct fan_ctx {
    const fan_case *c;
    int *runs;        /* (n_jobs) */
    size_t n_locals;  /* workers finished (local_fini calls) */
    size_t n_fini_run; /* jobs counted by the finished workers */
    int is_dirty;     /* a worker's context was not zeroed */
    double last_done, last_total;
} fan_ctx;

static int fan_job(void *ctx, size_t j, void *local, tl_err *err)
{
    fan_ctx *x = ctx;
    fan_local *l = local;
    if (!l->buf) {
        if (l->n_run)
            x->is_dirty = 1;
        l->buf = malloc(sizeof *l->buf);
        if (!l->buf)
            return tl_err_nomem(err);
    }
    l->n_run++;
#pragma omp atomic
    x->runs[j]++;
    for (int k = 0; k < 3; k++)
        if (x->c->fail[k] == j) {
            if (k == 0) /* let the higher failures finish first */
                usleep(20000);
            return tl_err_set(err, k == 0 ? TL_ERANGE : TL_EINVAL, "job %zu failed", j);
        }
    return 0;
}

static void fan_fini(void *ctx, void *local)
{
    fan_ctx *x = ctx;
    fan_local *l = local;
    x->n_locals++;
    x->n_fini_run += l->n_run;
    free(l->buf);
}

static void fan_progress(void *ctx, const tl_progress_info *info)
{
    fan_ctx *x = ctx;
    x->last_done = info->done, x->last_total = info->total;
}

/* Whatever the thread count: the lowest failing job's error wins, every job
 * below it runs exactly once, none runs twice, and with no failure every job
 * runs once; each worker's context starts zeroed and is finished once. */
static void fanout_lowest_error_wins(void **state)
{
    static const fan_case cases[] = {
        {"none", 100, {SIZE_MAX, SIZE_MAX, SIZE_MAX}, 100},
        {"empty", 0, {SIZE_MAX, SIZE_MAX, SIZE_MAX}, 0},
        {"one-fails", 1, {0, SIZE_MAX, SIZE_MAX}, 0},
        {"last-fails", 64, {63, SIZE_MAX, SIZE_MAX}, 63},
        {"three-fail", 200, {37, 38, 150}, 37},
        {"low-slow-high-fast", 200, {5, 6, 7}, 5},
    };
    static const int threads[] = {1, 2, 3, 8};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            const fan_case *c = &cases[i];
            fan_ctx x = {c, calloc(c->n_jobs + 1, sizeof(int)), 0, 0, 0, -1, -1};
            assert_non_null(x.runs);
            double *work = malloc((c->n_jobs + 1) * sizeof *work);
            assert_non_null(work);
            for (size_t j = 0; j < c->n_jobs; j++)
                work[j] = (double)(j % 3 + 1);
            tl_progress prog = {fan_progress, &x};
            tl_fanout fo = {.n_jobs = c->n_jobs, .n_threads = threads[t], .run = fan_job,
                            .ctx = &x, .local_bytes = sizeof(fan_local), .local_fini = fan_fini,
                            .prog = &prog, .phase = "test", .unit = "jobs", .work = work};
            tl_err err;
            tl_err_clear(&err);
            size_t failed = 12345;
            int rc = tl_fanout_run(&fo, &failed, &err);
            int is_fail = c->want_failed < c->n_jobs;
            char want[64];
            snprintf(want, sizeof want, "job %zu failed", c->want_failed);
            size_t n_run = 0;
            int is_ok = failed == c->want_failed && !x.is_dirty &&
                        rc == (is_fail ? TL_ERANGE : 0) &&
                        (!is_fail || strcmp(err.msg, want) == 0);
            for (size_t j = 0; j < c->n_jobs; j++) {
                n_run += (size_t)x.runs[j];
                if (x.runs[j] > 1 || (j <= c->want_failed && x.runs[j] != 1))
                    is_ok = 0;
            }
            is_ok = is_ok && x.n_fini_run == n_run && (c->n_jobs == 0 || x.n_locals >= 1) &&
                    x.n_locals <= (size_t)threads[t];
            /* the calling thread reports, if it ran a job at all (timing) */
            if (x.last_total >= 0) {
                double total = 0;
                for (size_t j = 0; j < c->n_jobs; j++)
                    total += work[j];
                is_ok = is_ok && x.last_total == total && x.last_done <= total;
            }
            if (!is_ok)
                fail_msg("fanout %s threads=%d: rc %d failed %zu msg '%s' ran %zu", c->name,
                         threads[t], rc, failed, err.msg, n_run);
            free(x.runs), free(work);
        }
}

/* Byte buffers for results between ranks: what is put comes back, and a
 * reader refuses to read past the end, leaving the target untouched. */
static void buffers_round_trip(void **state)
{
    tl_wbuf w = {0};
    tl_err err;
    tl_err_clear(&err);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(tl_wbuf_put(&w, &i, sizeof i, &err), 0);
    assert_int_equal(w.n, 4000);
    tl_rbuf r = {w.p, w.n, 0};
    for (uint32_t i = 0, v; i < 1000; i++) {
        assert_int_equal(tl_rbuf_get(&r, &v, sizeof v, &err), 0);
        assert_int_equal(v, i);
    }
    uint32_t v = 77;
    assert_int_equal(tl_rbuf_get(&r, &v, 1, &err), TL_EPARSE);
    assert_int_equal(v, 77);
    tl_wbuf_fini(&w);
    assert_null(w.p);
}

static int sleepy_job(void *ctx, size_t j, void *local, tl_err *err)
{
    if (j == 3) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return j == *(const size_t *)ctx ? tl_err_set(err, TL_ERANGE, "job %zu failed", j) : 0;
}

/* Each job's wall time lands in its slot, on 1 and 2 threads; a job never
 * run keeps 0. */
static void fanout_times_each_job(void **state)
{
    for (int t = 1; t <= 2; t++) {
        size_t fail = SIZE_MAX;
        double wall[10];
        for (int i = 0; i < 10; i++)
            wall[i] = -1;
        tl_fanout fo = {.n_jobs = 10, .n_threads = t, .run = sleepy_job, .ctx = &fail,
                        .wall_s = wall};
        assert_int_equal(tl_fanout_run(&fo, NULL, NULL), 0);
        for (int i = 0; i < 10; i++)
            assert_true(i == 3 ? wall[i] >= 0.004 : wall[i] >= 0 && wall[i] < 0.004);
        fail = 5;
        fo.n_threads = 1;
        assert_int_equal(tl_fanout_run(&fo, NULL, NULL), TL_ERANGE);
        assert_true(wall[3] >= 0.004 && wall[9] == 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_orders_by_time_then_insertion),
        cmocka_unit_test(buffers_round_trip), cmocka_unit_test(fanout_times_each_job),
        cmocka_unit_test(heap_ties_are_fifo),
        cmocka_unit_test(split_heaps_keep_one_order),
        cmocka_unit_test(pool_reuses_and_bounds),
        cmocka_unit_test(rng_streams_are_deterministic_and_distinct),
        cmocka_unit_test(quantiles_exact_and_sketch),
        cmocka_unit_test(units_parse_and_format),
        cmocka_unit_test(tx_time_is_exact), cmocka_unit_test(radix_sort_matches_qsort),
        cmocka_unit_test(quantiles_radix_and_qsort_agree),
        cmocka_unit_test(err_format_names_location),
        cmocka_unit_test(fanout_lowest_error_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
