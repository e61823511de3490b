/* tailor topo-bench [-o DIR] [--quick]: the paper's topology comparison
 * (topology-throughput.txt §IV, Figures 5-6, Table I): every family at
 * several sizes up to about 1,000 servers, throughput under all-to-all,
 * random matching and longest matching, relative to same-equipment random
 * graphs. Writes DIR/topo-bench.csv, DIR/topo-bench.png (gnuplot) and
 * DIR/table.md, the relative throughput at each family's largest size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tailor/fanout.h"
#include "tailor/fileio.h"
#include "tailor/throughput.h"
#include "tailor/time.h"

typedef struct cfg {
    const char *family, *spec;
    int is_quick; /* part of the quick sweep */
} cfg;

/* Sizes chosen so most families reach 500-1,000 servers at their largest;
 * the server-centric ones (BCube, DCell: every server is a routing node) stop
 * at 216 and 420 servers, because their larger instances take over ten
 * minutes each with three random instances. */
static const cfg configs[] = {
    {"fat tree", "fat_tree:k=8,link_bps=10Gbps", 1},
    {"fat tree", "fat_tree:k=12,link_bps=10Gbps", 0},
    {"fat tree", "fat_tree:k=16,link_bps=10Gbps", 0},
    {"jellyfish", "jellyfish:switches=32,degree=6,servers=4", 1},
    {"jellyfish", "jellyfish:switches=128,degree=8,servers=4", 0},
    {"jellyfish", "jellyfish:switches=256,degree=8,servers=4", 0},
    {"hypercube", "hypercube:dim=5,servers=4", 1},
    {"hypercube", "hypercube:dim=7,servers=4", 0},
    {"hypercube", "hypercube:dim=8,servers=4", 0},
    {"flattened butterfly", "flattened_butterfly:k=5,n=2,servers=5", 1},
    {"flattened butterfly", "flattened_butterfly:k=8,n=2,servers=8", 0},
    {"flattened butterfly", "flattened_butterfly:k=6,n=3,servers=4", 0},
    {"hyperx", "hyperx:sizes=4x4,servers=4", 1},
    {"hyperx", "hyperx:sizes=4x4x4,servers=4", 0},
    {"hyperx", "hyperx:sizes=6x6x6,servers=4", 0},
    {"dragonfly", "dragonfly:a=4,p=2,h=2", 1},
    {"dragonfly", "dragonfly:a=6,p=3,h=3", 0},
    {"dragonfly", "dragonfly:a=8,p=4,h=4", 0},
    {"slim fly", "slimfly:q=5,servers=4", 1},
    {"slim fly", "slimfly:q=7,servers=5", 0},
    {"slim fly", "slimfly:q=11,servers=4", 0},
    {"bcube", "bcube:n=4,k=1", 1},
    {"bcube", "bcube:n=8,k=1", 0},
    {"bcube", "bcube:n=6,k=2", 0},
    {"dcell", "dcell:n=4,k=1", 1},
    {"dcell", "dcell:n=3,k=2", 0},
    {"dcell", "dcell:n=4,k=2", 0},
    {"long hop", "longhop:dim=5,servers=4", 1},
    {"long hop", "longhop:dim=7,servers=4", 0},
    {"long hop", "longhop:dim=8,servers=4", 0},
};
#define N_CONFIGS (sizeof configs / sizeof *configs)
static const tl_tm_kind kinds[] = {TL_TM_ALL_TO_ALL, TL_TM_RANDOM_MATCHING, TL_TM_LONGEST_MATCHING};

tl_topo *cli_topology(const char *arg, uint64_t seed, tl_err *err);

typedef struct row {
    const cfg *c;
    tl_topo *t;
    uint32_t servers, switches;
    double cost; /* an instance's expected solve cost: servers x directed arcs */
    tl_rel_tput rel[3];
} row;

/* Every (row, traffic matrix, instance) is one job of a fan-out, instance 0
 * the topology itself: over MPI ranks, one at a time per rank (igraph,
 * which draws the random graphs and matchings, is not thread-safe). */
typedef struct bench_jobs {
    row *rows;
    uint32_t n_inst;
    double eps;
    int is_spread;
    uint64_t seed;
    double *v; /* (n_rows, 3, 1 + n_inst) throughputs */
} bench_jobs;

static int run_instance(void *ctx, size_t j, void *local, tl_err *err)
{
    const bench_jobs *b = ctx;
    size_t per = (size_t)b->n_inst + 1, r = j / (3 * per), k = j / per % 3;
    return tl_relative_instance(b->rows[r].t, kinds[k], 0, 0, b->eps, b->is_spread,
                                (uint32_t)(j % per), b->seed, &b->v[j], err);
}

static int pack_instance(void *ctx, size_t j, tl_wbuf *out, tl_err *err)
{
    return tl_wbuf_put(out, &((const bench_jobs *)ctx)->v[j], sizeof(double), err);
}

static int unpack_instance(void *ctx, size_t j, tl_rbuf *in, tl_err *err)
{
    return tl_rbuf_get(in, &((bench_jobs *)ctx)->v[j], sizeof(double), err);
}

static void name_instance(void *ctx, size_t j, char *buf, size_t n)
{
    const bench_jobs *b = ctx;
    size_t per = (size_t)b->n_inst + 1, r = j / (3 * per);
    snprintf(buf, n, "%s %s #%zu", b->rows[r].c->spec, tl_tm_kind_names[kinds[j / per % 3]],
             j % per);
}

/* topo-bench.gp names its files relative to the output folder, where
 * gnuplot runs: the folder's name never enters the script. */
static int write_plot(const char *dir, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/topo-bench.gp", dir);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err->code;
    fprintf(f,
            "# gnuplot script written by tailor topo-bench: relative throughput vs servers;\n"
            "# run it in its folder: gnuplot topo-bench.gp\n"
            "set terminal pngcairo size 1500,480 font ',10' noenhanced\n"
            "set output 'topo-bench.png'\n"
            "set datafile separator ','\n"
            "set multiplot layout 1,3\n"
            "set xlabel 'servers'; set ylabel 'relative throughput'; set grid\n"
            "set key bottom left font ',8'\n"
            "families = 'fat_tree jellyfish hypercube flattened_butterfly hyperx dragonfly "
            "slimfly bcube dcell longhop'\n");
    static const char *const cols[] = {"all-to-all", "random matching", "longest matching"};
    for (int k = 0; k < 3; k++)
        fprintf(f,
                "set title '%s'; set yrange [0:*]\n"
                "plot for [fam in families] 'topo-bench.csv' using "
                "(strcol(2) eq fam ? $4 : 1/0):%d with linespoints title fam\n",
                cols[k], 9 + 4 * k);
    fprintf(f, "unset multiplot\n");
    int rc = tl_afile_commit(&af, err);
    if (rc)
        return rc;
    if (cli_gnuplot("topo-bench.gp", NULL, dir) != 0)
        fprintf(stderr, "tailor topo-bench: gnuplot failed or is missing; the CSV is complete\n");
    return 0;
}

int cmd_topo_bench(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "topo-bench", "o,quick,seed,relative,spread-servers,eps,quiet", &o);
    if (rc)
        return rc;
    const char *dir = o.out ? o.out : "out/topo-bench";
    uint32_t n_inst = o.relative ? o.relative : (o.is_quick ? 2 : 3);
    double eps = o.eps > 0 ? o.eps : 0.05;
    uint64_t seed = o.seed >= 0 ? (uint64_t)o.seed : 1;
    tl_err err;
    tl_err_clear(&err);
    cli_out out;
    if ((rc = cli_out_begin(&out, dir, CLI_OUT_DIR, &err))) {
        cli_print_err("topo-bench", &err);
        return cli_exit_code(&err);
    }
    const char *tmp = cli_out_path(&out);
    row rows[N_CONFIGS];
    size_t n_rows = 0;
    double t0 = tl_wall_s();
    for (size_t i = 0; i < N_CONFIGS && !rc; i++) {
        if (o.is_quick && !configs[i].is_quick)
            continue;
        tl_topo *t = cli_topology(configs[i].spec, seed, &err);
        if (!t) {
            rc = err.code;
            break;
        }
        tl_tgraph g;
        if ((rc = tl_tgraph_from_topo(&g, t, 0, &err))) {
            tl_topo_destroy(t);
            break;
        }
        row *r = &rows[n_rows++];
        r->c = &configs[i];
        r->t = t;
        r->servers = tl_tgraph_n_servers(&g);
        r->switches = g.n_nodes;
        r->cost = (double)r->servers * (double)tl_topo_n_links(t);
        tl_tgraph_fini(&g);
    }
    size_t per = (size_t)n_inst + 1, n_jobs = n_rows * 3 * per;
    bench_jobs b = {rows, n_inst, eps, o.is_spread, seed, calloc(n_jobs + 1, sizeof(double))};
    double *work = malloc((n_jobs + 1) * sizeof *work);
    if (!rc && (!b.v || !work))
        rc = tl_err_nomem(&err);
    for (size_t j = 0; !rc && j < n_jobs; j++)
        work[j] = rows[j / (3 * per)].cost;
    tl_progress ps, *prog = cli_progress(&o, &ps);
    tl_fanout fo = {.n_jobs = n_jobs, .n_threads = 1, .run = run_instance, .ctx = &b,
                    .prog = prog, .phase = "topo-bench instances", .unit = "solves", .work = work,
                    .dist = cli_dist(), .pack = pack_instance, .unpack = unpack_instance,
                    .name = name_instance};
    if (!rc)
        rc = tl_fanout_run(&fo, NULL, &err);
    cli_progress_done(prog);
    for (size_t i = 0; !rc && i < n_rows; i++) {
        row *r = &rows[i];
        for (int k = 0; k < 3; k++) {
            const double *v = b.v + (i * 3 + (size_t)k) * per;
            tl_relative_combine(v[0], v + 1, n_inst, &r->rel[k]);
        }
        if (!o.is_quiet)
            fprintf(stderr, "[topo-bench] %-44s %5u servers  relative %.3f %.3f %.3f\n",
                    r->c->spec, r->servers, r->rel[0].relative, r->rel[1].relative,
                    r->rel[2].relative);
    }
    for (size_t i = 0; i < n_rows; i++)
        tl_topo_destroy(rows[i].t);
    free(b.v), free(work);
    if (!rc && !cli_is_root())
        return 0; /* rank 0 writes the results */
    if (rc)
        goto fail;
    char path[1200];
    snprintf(path, sizeof path, "%s/topo-bench.csv", tmp);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, &err);
    if (!f)
        goto fail;
    fprintf(f, "family,family_key,spec,servers,nodes");
    for (int k = 0; k < 3; k++)
        fprintf(f, ",%s_throughput,%s_random_mean,%s_random_ci95,%s_relative", tl_tm_kind_names[kinds[k]],
                tl_tm_kind_names[kinds[k]], tl_tm_kind_names[kinds[k]], tl_tm_kind_names[kinds[k]]);
    fprintf(f, "\n");
    for (size_t i = 0; i < n_rows; i++) {
        char key[64], spec[128];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(rows[i].c->spec, ":"), rows[i].c->spec);
        snprintf(spec, sizeof spec, "%s", rows[i].c->spec);
        for (char *p = spec; *p; p++)
            if (*p == ',')
                *p = ';'; /* keep the CSV (and gnuplot) free of quoted fields */
        fprintf(f, "%s,%s,%s,%u,%u", rows[i].c->family, key, spec, rows[i].servers, rows[i].switches);
        for (int k = 0; k < 3; k++)
            fprintf(f, ",%.6g,%.6g,%.4g,%.4f", rows[i].rel[k].tput, rows[i].rel[k].random_mean,
                    rows[i].rel[k].random_ci95, rows[i].rel[k].relative);
        fprintf(f, "\n");
    }
    if ((rc = tl_afile_commit(&af, &err)) || (rc = write_plot(tmp, &err)))
        goto fail;
    /* Table I: relative throughput at each family's largest size. */
    snprintf(path, sizeof path, "%s/table.md", tmp);
    f = tl_afile_open(&af, path, &err);
    if (!f)
        goto fail;
    printf("relative throughput at the largest size tested (%u random instances, eps %.2g):\n",
           n_inst, eps);
    printf("%-22s %8s %12s %12s %12s\n", "family", "servers", "all-to-all", "random match",
           "longest match");
    fprintf(f, "| family | servers | all-to-all | random matching | longest matching |\n"
               "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < n_rows; i++) {
        if (i + 1 < n_rows && strcmp(rows[i + 1].c->family, rows[i].c->family) == 0)
            continue;
        printf("%-22s %8u %11.0f%% %11.0f%% %11.0f%%\n", rows[i].c->family, rows[i].servers,
               rows[i].rel[0].relative * 100, rows[i].rel[1].relative * 100,
               rows[i].rel[2].relative * 100);
        fprintf(f, "| %s | %u | %.0f%% | %.0f%% | %.0f%% |\n", rows[i].c->family, rows[i].servers,
                rows[i].rel[0].relative * 100, rows[i].rel[1].relative * 100,
                rows[i].rel[2].relative * 100);
    }
    if ((rc = tl_afile_commit(&af, &err)) || (rc = cli_out_commit(&out, &err)))
        goto fail;
    printf("wrote %s/topo-bench.csv, topo-bench.png, table.md in %.1f s\n", dir, tl_wall_s() - t0);
    return 0;
fail:
    cli_out_abort(&out);
    cli_print_err("topo-bench", &err);
    return cli_exit_code(&err);
}
