/* tailor throughput TOPOLOGY --tm KIND|FILE --method exact|approx: the
 * throughput of a topology under a hose-model traffic matrix, its bounds, and
 * optionally cuts and relative throughput (topology-throughput.txt). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tailor/throughput.h"
#include "tailor/units.h"

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* A family spec ("jellyfish:switches=100,degree=8"), a scenario or Parsimon
 * JSON file, or an ns-3 topology.txt. */
tl_topo *cli_topology(const char *arg, uint64_t seed, tl_err *err)
{
    /* "family:key=value,..." even when a value has a '.' (k=4.5 is then
     * reported by the family's parser, not as a missing file) */
    size_t fam = strcspn(arg, ":");
    if ((arg[fam] == ':' && !memchr(arg, '/', fam) && !memchr(arg, '.', fam)) ||
        (!strchr(arg, '/') && !strchr(arg, '.')))
        return tl_topo_from_spec(arg, seed, err);
    if (has_suffix(arg, ".json")) {
        FILE *f = fopen(arg, "r");
        char head[4096] = "";
        if (f) {
            size_t n = fread(head, 1, sizeof head - 1, f);
            head[n] = '\0';
            fclose(f);
        }
        if (strstr(head, "\"topology\"")) {
            tl_scenario sc;
            if (tl_scenario_load(&sc, arg, err))
                return NULL;
            tl_topo *t = tl_scenario_build_topo(&sc, err);
            tl_scenario_fini(&sc);
            return t;
        }
        return tl_topo_load_parsimon(arg, err);
    }
    return tl_topo_load_ns3(arg, err);
}

static int tm_kind(const char *s, tl_tm_kind *k)
{
    for (int i = 0; tl_tm_kind_names[i]; i++)
        if (strcmp(s, tl_tm_kind_names[i]) == 0) {
            *k = (tl_tm_kind)i;
            return 1;
        }
    return 0;
}

/* Set by SIGINT while an approximation runs: it stops and prints its bounds. */
static volatile int g_interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    g_interrupted = 1;
}

static void print_progress(void *ctx, const tl_tput *p)
{
    (void)ctx;
    fprintf(stderr, "[throughput] %.1f s, %llu iterations (%s): certified [%.6g, %.6g], gap %.3g%%\n",
            p->seconds, (unsigned long long)p->iterations, p->method, p->lower, p->upper,
            p->lower > 0 ? (p->upper / p->lower - 1) * 100 : INFINITY);
}

typedef struct solver {
    int is_exact;
    tl_lp_solver lp;
    tl_tput_opts approx;
} solver;

static int solve(const solver *sv, const tl_tgraph *g, const tl_tm *tm, tl_tput *r, tl_err *err)
{
    return sv->is_exact ? tl_throughput_exact_with(g, tm, sv->lp, r, err)
                        : tl_throughput_approx_opts(g, tm, &sv->approx, r, err);
}

/* The result line; an approximation stopped early says why and keeps its bounds. */
static void print_result(const char *what, const tl_tput *r, int is_exact)
{
    printf("%s: %.6g  (%s, %.3f s", what, r->throughput, r->method, r->seconds);
    if (is_exact) {
        printf(", LP %zu rows x %zu columns)\n", r->lp_rows, r->lp_cols);
        return;
    }
    printf(", %llu iterations; certified within [%.6g, %.6g], gap %.3g%%", 
           (unsigned long long)r->iterations, r->lower, r->upper,
           r->lower > 0 ? (r->upper / r->lower - 1) * 100 : INFINITY);
    if (r->stopped)
        printf("; stopped early: %s", r->stopped == TL_TPUT_TIME_LIMIT ? "time limit" : "interrupted");
    printf(")\n");
}

int cmd_throughput(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, "throughput",
                       "tm,method,eps,seed,skew,relative,spread-servers,cuts,save-tm,quiet,"
                       "time-limit,threads,theorem2,lp-solver", &o);
    if (rc)
        return rc;
    if (!o.scenario) {
        fprintf(stderr, "tailor throughput: a topology is required (a family like "
                        "jellyfish:switches=100,degree=8,servers=4, or a file)\n");
        return EXIT_INPUT;
    }
    const char *method = o.method ? o.method : "exact";
    if (strcmp(method, "exact") != 0 && strcmp(method, "approx") != 0) {
        fprintf(stderr, "tailor throughput: --method expects exact or approx, found '%s'\n", method);
        return EXIT_INPUT;
    }
    int is_exact = strcmp(method, "exact") == 0;
    double eps = o.eps > 0 ? o.eps : 0.02;
    uint64_t seed = o.seed >= 0 ? (uint64_t)o.seed : 1;
    const char *tm_arg = o.tm ? o.tm : "longest-matching";
    tl_tm_kind kind = TL_TM_LONGEST_MATCHING;
    int is_file = !tm_kind(tm_arg, &kind);
    if (is_file && !strchr(tm_arg, '/') && !strchr(tm_arg, '.')) {
        fprintf(stderr,
                "tailor throughput: --tm expects all-to-all, random-matching, longest-matching, "
                "kodialam, skewed or a file, found '%s'\n",
                tm_arg);
        return EXIT_INPUT;
    }
    tl_err err;
    tl_err_clear(&err);
    if (is_file) { /* the file's own mistakes before any topology is built */
        tl_tm pre;
        if (tl_tm_load(NULL, tm_arg, &pre, &err)) {
            cli_print_err("throughput", &err);
            return cli_exit_code(&err);
        }
        tl_tm_fini(&pre);
    }
    if (o.relative && is_file) {
        fprintf(stderr, "tailor throughput: --relative needs a generated TM kind (a file's node "
                        "ids do not carry over to random graphs)\n");
        return EXIT_INPUT;
    }
    tl_lp_solver lp = TL_LP_DEFAULT;
    if (o.lp_solver) {
        int i = 0;
        while (tl_lp_solver_names[i] && strcmp(o.lp_solver, tl_lp_solver_names[i]) != 0)
            i++;
        if (!tl_lp_solver_names[i]) {
            fprintf(stderr, "tailor throughput: --lp-solver expects glpk, clp-dual or clp-barrier, "
                            "found '%s'\n", o.lp_solver);
            return EXIT_INPUT;
        }
        lp = (tl_lp_solver)i;
    }
    solver sv = {.is_exact = is_exact,
                 .lp = lp,
                 .approx = {.eps = eps, .n_threads = o.n_threads, .time_limit_s = o.time_limit,
                            .stop = &g_interrupted,
                            .progress = o.is_quiet ? NULL : print_progress}};
    cli_out tmo = {0};
    if (o.save_tm) {
        if ((rc = cli_out_begin(&tmo, o.save_tm, CLI_OUT_FILE, &err))) {
            cli_print_err("throughput", &err);
            return cli_exit_code(&err);
        }
    }
    tl_tgraph g;
    memset(&g, 0, sizeof g);
    tl_tm tm, a2a;
    memset(&tm, 0, sizeof tm);
    memset(&a2a, 0, sizeof a2a);
    uint16_t *dist = NULL;
    struct sigaction old_sa;
    int has_handler = 0;
    tl_topo *t = cli_topology(o.scenario, seed, &err);
    if (!t) {
        rc = err.code ? err.code : TL_EINVAL;
        goto out;
    }
    if ((rc = tl_tgraph_from_topo(&g, t, 0, &err)))
        goto out;
    if (is_file)
        rc = tl_tm_load(&g, tm_arg, &tm, &err);
    else
        rc = tl_tm_make(&g, kind, kind == TL_TM_SKEWED ? (o.skew > 0 ? o.skew : 0.1) : 0, seed, &tm,
                        &err);
    if (rc || (o.save_tm && ((rc = tl_tm_save(&tm, cli_out_path(&tmo), &err)) ||
                             (rc = cli_out_commit(&tmo, &err)))))
        goto out;
    char ref[32];
    printf("topology: %s: %u nodes, %u servers, %u edges (capacity 1 = %s)\n", o.scenario,
           g.n_nodes, tl_tgraph_n_servers(&g), g.n_edges,
           tl_units_fmt_rate((uint64_t)g.ref_bps, ref, sizeof ref));
    printf("traffic matrix: %s, %zu commodities (hose model)\n", is_file ? tm_arg : tl_tm_kind_names[kind],
           tm.n);
    tl_tput r;
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    has_handler = sigaction(SIGINT, &sa, &old_sa) == 0;
    rc = solve(&sv, &g, &tm, &r, &err);
    if (rc)
        goto out;
    print_result("throughput", &r, is_exact);
    if (r.stopped) { /* the bounds are the answer; the rest would take as long again */
        rc = r.stopped == TL_TPUT_INTERRUPTED ? 130 : 0;
        goto out;
    }
    if (!(dist = tl_tgraph_distances(&g, &err))) {
        rc = err.code;
        goto out;
    }
    printf("upper bound (total capacity / demand x path length): %.6g\n",
           tl_tput_upper_bound_paths(&g, &tm, dist));
    /* Theorem 2 (every hose TM gets at least half the all-to-all
     * throughput): free when the TM is all-to-all, a second solve otherwise. */
    if (!is_file && kind == TL_TM_ALL_TO_ALL)
        printf("lower bound (Theorem 2: all-to-all throughput / 2): %.6g\n", r.throughput / 2);
    else if (o.is_theorem2) {
        tl_tput ra;
        if ((rc = tl_tm_all_to_all(&g, &a2a, &err)) || (rc = solve(&sv, &g, &a2a, &ra, &err)))
            goto out;
        if (ra.stopped) {
            print_result("all-to-all", &ra, is_exact);
            rc = ra.stopped == TL_TPUT_INTERRUPTED ? 130 : 0;
            goto out;
        }
        printf("lower bound (Theorem 2: all-to-all throughput / 2): %.6g  (all-to-all: %.6g)\n",
               ra.throughput / 2, ra.throughput);
    }
    if (o.is_cuts) {
        tl_cut c;
        memset(&c, 0, sizeof c);
        if ((rc = tl_sparsest_cut(&g, &tm, &c, &err)))
            goto out;
        printf("sparsest cut: %.6g  (%s)\n", c.value, c.method);
        tl_cut_fini(&c);
        if ((rc = tl_bisection_bandwidth(&g, &c, &err)))
            goto out;
        printf("bisection bandwidth: %.6g  (%s)\n", c.value, c.method);
        tl_cut_fini(&c);
    }
    if (o.relative) {
        tl_rel_tput rel;
        if ((rc = tl_relative_throughput(t, kind, o.skew > 0 ? o.skew : 0.1, is_exact, eps,
                                         o.is_spread, o.relative, seed, &rel, &err)))
            goto out;
        printf("relative throughput: %.4f +- %.4f  (same-equipment random graphs: %.6g +- %.3g, "
               "%u instances, 95%% CI)\n",
               rel.relative, rel.relative_ci95, rel.random_mean, rel.random_ci95, rel.n_instances);
    }
out:
    if (has_handler)
        sigaction(SIGINT, &old_sa, NULL);
    if (rc && rc != 130) {
        cli_out_abort(&tmo);
        cli_print_err("throughput", &err);
    }
    free(dist);
    tl_tm_fini(&tm);
    tl_tm_fini(&a2a);
    tl_tgraph_fini(&g);
    tl_topo_destroy(t);
    return rc == 130 ? 130 : rc ? cli_exit_code(&err) : 0;
}
