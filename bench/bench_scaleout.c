/* Scale-out over MPI ranks (issue "scale-out", docs/scale-out.md): measures
 * the cost of every link simulation of one Parsimon run, then simulates the
 * makespan of the link-simulation phase on P ranks of T threads under three
 * schedulers, through the public API:
 *   bench_scaleout [SCEN [nocluster|cluster [threads [COSTS_CSV [MAKESPANS_CSV]]]]]
 *   bench_scaleout --replay COSTS_CSV SERIAL_S [MAKESPANS_CSV]   (from a costs file)
 * SCEN as bench_parsimon (default 6144); threads for the measured run
 * (default 1, so each job's time is its own).
 *   dynamic  tailor's: jobs in decreasing expected cost, each to the first
 *            free thread of any rank (rank 0's queue, src/core/dist.c)
 *   static   the same order dealt round-robin to the ranks in advance
 *   parsimon Parsimon's distributed mode: the links shuffled (seeded) and
 *            cut into P equal chunks (../shared/notes/parsimon.md)
 * Inside a rank, threads take the rank's jobs in order as they free up.
 * Every job also pays a hand-out latency and its result's transfer; the
 * phase ends with the broadcast of every result; the serial phases (world
 * build, decomposition and clustering, aggregation) run on every rank and
 * are added whole. Prints figures; never passes or fails. */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"
#include "tailor/alloc.h"
#include "tailor/parsimon.h"
#include "tailor/rng.h"
#include "tailor/world.h"

/* A cluster's network, as assumed for the figures: 20 us from a result's
 * arrival to the next job's start at its rank, 10 Gb/s per rank. */
#define LATENCY_S 20e-6
#define BYTES_PER_S 1.25e9

typedef struct slot_heap {
    double *t; /* (n) free-at times; a binary min-heap */
    size_t n;
} slot_heap;

static void heap_down(slot_heap *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && h->t[l] < h->t[m])
            m = l;
        if (r < h->n && h->t[r] < h->t[m])
            m = r;
        if (m == i)
            return;
        double x = h->t[i];
        h->t[i] = h->t[m], h->t[m] = x;
        i = m;
    }
}

/* Runs jobs idx[0..n) in order on k threads that each take the next job
 * when free; returns when the last ends. */
static double list_makespan(const double *dur, const size_t *idx, size_t n, size_t k,
                            double *scratch)
{
    slot_heap h = {scratch, k};
    memset(scratch, 0, k * sizeof *scratch);
    double end = 0;
    for (size_t i = 0; i < n; i++) {
        h.t[0] += dur[idx[i]];
        if (h.t[0] > end)
            end = h.t[0];
        heap_down(&h, 0);
    }
    return end;
}

/* Each rank's share (owner[i] for the i-th job of idx) on its T threads. */
static double split_makespan(const double *dur, const size_t *idx, size_t n, const int *owner,
                             int p, int t, double *scratch)
{
    size_t *mine = malloc((n + 1) * sizeof *mine);
    double worst = 0;
    for (int r = 0; mine && r < p; r++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (owner[i] == r)
                mine[m++] = idx[i];
        double e = list_makespan(dur, mine, m, (size_t)t, scratch);
        if (e > worst)
            worst = e;
    }
    free(mine);
    return worst;
}

/* Spearman's rank correlation of x and y (no tie correction: the costs are
 * packet counts, the times measured). */
static int cmp_by(const void *a, const void *b, void *ctx)
{
    const double *v = ctx;
    double x = v[*(const size_t *)a], y = v[*(const size_t *)b];
    return (x > y) - (x < y);
}

static double spearman(const double *x, const double *y, size_t n)
{
    size_t *o = malloc((n + 1) * sizeof *o);
    double *rx = malloc((n + 1) * sizeof *rx), *ry = malloc((n + 1) * sizeof *ry);
    double rho = NAN;
    if (o && rx && ry && n > 1) {
        const double *v[2] = {x, y};
        double *rk[2] = {rx, ry};
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < n; i++)
                o[i] = i;
            qsort_r(o, n, sizeof *o, cmp_by, (void *)v[k]);
            for (size_t i = 0; i < n; i++)
                rk[k][o[i]] = (double)i;
        }
        double d2 = 0;
        for (size_t i = 0; i < n; i++)
            d2 += (rx[i] - ry[i]) * (rx[i] - ry[i]);
        rho = 1 - 6 * d2 / ((double)n * ((double)n * n - 1));
    }
    free(o), free(rx), free(ry);
    return rho;
}

/* Prints (and writes to spans_path, if not NULL) the makespans of the n
 * jobs in decreasing expected cost, of durations dur, on 1-512 ranks. */
static int simulate(const char *scen, const double *dur, size_t n, double sum_wall,
                    double max_dur, double serial, double bcast, const char *spans_path)
{
    size_t *idx = malloc((n + 1) * sizeof *idx);
    int *owner = malloc((n + 1) * sizeof *owner);
    double *scratch = malloc((512 * 32 + 1) * sizeof *scratch);
    if (!idx || !owner || !scratch) {
        free(idx), free(owner), free(scratch);
        fprintf(stderr, "bench_scaleout: out of memory\n");
        return 1;
    }
    for (size_t j = 0; j < n; j++)
        idx[j] = j;
    FILE *out = spans_path ? fopen(spans_path, "w") : NULL;
    if (out)
        fprintf(out, "ranks,threads,bound_s,dynamic_s,static_s,parsimon_s,bound_phase_s,"
                     "dynamic_phase_s,static_phase_s,parsimon_phase_s\n");
    static const int ranks[] = {1, 2, 8, 32, 128, 512}, tpr[] = {1, 32};
    tl_rng rng;
    for (size_t a = 0; a < sizeof tpr / sizeof *tpr; a++)
        for (size_t b = 0; b < sizeof ranks / sizeof *ranks; b++) {
            int p = ranks[b], t = tpr[a];
            double bound = fmax(sum_wall / ((double)p * t), max_dur);
            double dyn = list_makespan(dur, idx, n, (size_t)p * (size_t)t, scratch);
            for (size_t i = 0; i < n; i++)
                owner[i] = (int)(i % (size_t)p);
            double stat = split_makespan(dur, idx, n, owner, p, t, scratch);
            /* Parsimon's: a seeded shuffle, then chunks of ceil(n / p) */
            size_t *sh = malloc((n + 1) * sizeof *sh);
            if (!sh)
                return 1;
            memcpy(sh, idx, n * sizeof *sh);
            tl_rng_init(&rng, 1, "scaleout", (uint64_t)p);
            for (size_t i = n; i > 1; i--) {
                size_t k = (size_t)(tl_rng_uniform(&rng) * (double)i);
                if (k >= i)
                    k = i - 1;
                size_t x = sh[i - 1];
                sh[i - 1] = sh[k], sh[k] = x;
            }
            size_t chunk = (n + (size_t)p - 1) / (size_t)p;
            for (size_t i = 0; i < n; i++)
                owner[i] = (int)(i / (chunk ? chunk : 1));
            double pars = split_makespan(dur, sh, n, owner, p, t, scratch);
            free(sh);
            double add = serial + (p > 1 ? bcast : 0);
            char name[96];
            const struct {
                const char *sched;
                double v;
            } rows[] = {{"bound", bound}, {"dynamic", dyn}, {"static", stat}, {"parsimon", pars}};
            /* the link-simulation phase alone (with its broadcast), then
             * the whole run */
            for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
                snprintf(name, sizeof name, "scaleout.phase_s.%s.ranks%d", rows[r].sched, p);
                bench_print(name, rows[r].v + (p > 1 ? bcast : 0), "s", scen, t);
                snprintf(name, sizeof name, "scaleout.makespan_s.%s.ranks%d", rows[r].sched, p);
                bench_print(name, rows[r].v + add, "s", scen, t);
            }
            double bc = p > 1 ? bcast : 0;
            if (out)
                fprintf(out, "%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", p, t,
                        bound + add, dyn + add, stat + add, pars + add, bound + bc, dyn + bc,
                        stat + bc, pars + bc);
        }
    if (out)
        fclose(out);
    free(idx), free(owner), free(scratch);
    return 0;
}

/* Reads a costs file this bench wrote: chan,expected_pkt_hops,wall_s,bytes. */
static int read_costs(const char *path, double **dur, double **cost, double **wall,
                      size_t *n, double *sum_bytes)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_scaleout: cannot read %s\n", path);
        return 1;
    }
    size_t cap = 1024;
    *n = 0, *sum_bytes = 0;
    *dur = malloc(cap * sizeof **dur), *cost = malloc(cap * sizeof **cost);
    *wall = malloc(cap * sizeof **wall);
    char line[256];
    int rc = *dur && *cost && *wall && fgets(line, sizeof line, f) ? 0 : 1; /* the header */
    unsigned chan;
    double c, w;
    unsigned long long bytes;
    while (!rc && fscanf(f, "%u,%lf,%lf,%llu", &chan, &c, &w, &bytes) == 4) {
        if (*n == cap) {
            cap *= 2;
            double *x = realloc(*dur, cap * sizeof *x), *y = realloc(*cost, cap * sizeof *y),
                   *z = realloc(*wall, cap * sizeof *z);
            if (x)
                *dur = x;
            if (y)
                *cost = y;
            if (z)
                *wall = z;
            if (!x || !y || !z) {
                rc = 1;
                break;
            }
        }
        (*cost)[*n] = c, (*wall)[*n] = w;
        (*dur)[*n] = w + LATENCY_S + (double)bytes / BYTES_PER_S;
        *sum_bytes += (double)bytes;
        ++*n;
    }
    fclose(f);
    if (rc)
        fprintf(stderr, "bench_scaleout: %s: expected this bench's costs file\n", path);
    return rc;
}

int main(int argc, char **argv)
{
    tl_alloc_tune();
    if (argc > 1 && !strcmp(argv[1], "--replay")) { /* the makespans of a costs file */
        if (argc < 4) {
            fprintf(stderr, "usage: bench_scaleout --replay COSTS_CSV SERIAL_S [MAKESPANS_CSV]\n");
            return 2;
        }
        double *dur, *cost, *wall, sum_bytes, sum_wall = 0, max_dur = 0;
        size_t n;
        if (read_costs(argv[2], &dur, &cost, &wall, &n, &sum_bytes))
            return 1;
        for (size_t j = 0; j < n; j++) {
            sum_wall += wall[j];
            max_dur = dur[j] > max_dur ? dur[j] : max_dur;
        }
        bench_print("scaleout.cost_rank_corr", spearman(cost, wall, n), "rho", argv[2], 1);
        int rc = simulate(argv[2], dur, n, sum_wall, max_dur, atof(argv[3]),
                          2 * sum_bytes / BYTES_PER_S, argc > 4 ? argv[4] : NULL);
        free(dur), free(cost), free(wall);
        return rc;
    }
    const char *which = argc > 1 ? argv[1] : "6144";
    int is_cluster = argc > 2 && !strcmp(argv[2], "cluster");
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    const char *costs_path = argc > 4 ? argv[4] : NULL;
    const char *spans_path = argc > 5 ? argv[5] : NULL;
    char scen[128], base[96];
    tl_world w;
    double t_world;
    if (bench_engine_world(which, threads, &w, base, sizeof base, &t_world))
        return 1;
    snprintf(scen, sizeof scen, "%s%s", base, is_cluster ? "-cluster" : "");
    tl_err err;
    tl_err_clear(&err);
    tl_parsimon_opts o;
    tl_parsimon_opts_default(&o);
    o.is_cluster = is_cluster;
    o.n_threads = threads;
    double t0 = bench_now_s();
    tl_parsimon *s = tl_parsimon_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc,
                                        w.sc.seed, &o, &err);
    if (!s || tl_parsimon_run(s, NULL, &err)) {
        fprintf(stderr, "bench_scaleout: %s\n", err.msg);
        return 1;
    }
    double wall = bench_now_s() - t0;
    tl_parsimon_stats st;
    tl_parsimon_get_stats(s, &st);
    size_t n;
    const tl_parsimon_job *jobs = tl_parsimon_jobs(s, &n);
    double *dur = malloc((n + 1) * sizeof *dur), *cost = malloc((n + 1) * sizeof *cost);
    double *wall_j = malloc((n + 1) * sizeof *wall_j);
    if (!dur || !cost || !wall_j) {
        fprintf(stderr, "bench_scaleout: out of memory\n");
        return 1;
    }
    double sum_wall = 0, sum_bytes = 0, max_dur = 0;
    for (size_t j = 0; j < n; j++) {
        cost[j] = jobs[j].cost, wall_j[j] = jobs[j].wall_s;
        dur[j] = jobs[j].wall_s + LATENCY_S + (double)jobs[j].bytes / BYTES_PER_S;
        sum_wall += jobs[j].wall_s, sum_bytes += (double)jobs[j].bytes;
        if (dur[j] > max_dur)
            max_dur = dur[j];
    }
    if (costs_path) {
        FILE *f = fopen(costs_path, "w");
        if (!f) {
            fprintf(stderr, "bench_scaleout: cannot write %s\n", costs_path);
            return 1;
        }
        fprintf(f, "chan,expected_pkt_hops,wall_s,bytes\n");
        for (size_t j = 0; j < n; j++)
            fprintf(f, "%u,%.0f,%.6f,%llu\n", jobs[j].chan, jobs[j].cost, jobs[j].wall_s,
                    (unsigned long long)jobs[j].bytes);
        fclose(f);
    }
    /* every rank builds the world, decomposes, clusters and aggregates */
    double serial = t_world + st.decompose_s + st.aggregate_s;
    double bcast = 2 * sum_bytes / BYTES_PER_S;
    bench_print("scaleout.jobs", (double)n, "links", scen, threads);
    bench_print("scaleout.run_s", wall, "s", scen, threads);
    bench_print("scaleout.link_sims_s", st.simulate_s, "s", scen, threads);
    bench_print("scaleout.sum_job_s", sum_wall, "s", scen, threads);
    bench_print("scaleout.largest_job_s", max_dur, "s", scen, threads);
    bench_print("scaleout.serial_s", serial, "s", scen, threads);
    bench_print("scaleout.results_mib", sum_bytes / 1048576.0, "MiB", scen, threads);
    bench_print("scaleout.cost_rank_corr", spearman(cost, wall_j, n), "rho", scen, threads);
    bench_print("scaleout.peak_rss_mib", bench_peak_rss_mib(), "MiB", scen, threads);
    if (simulate(scen, dur, n, sum_wall, max_dur, serial, bcast, spans_path))
        return 1;
    free(dur), free(cost), free(wall_j);
    tl_parsimon_destroy(s);
    tl_world_fini(&w);
    return 0;
}
