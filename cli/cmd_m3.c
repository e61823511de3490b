/* tailor m3 gen-data DIR | train DIR: m3's training pipeline (docs/m3.md
 * "Training"): synthetic parking-lot samples with pktsim ground truth, then
 * the gradient-boosted correction model trained on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tailor/cc.h"
#include "tailor/fileio.h"
#include "tailor/m3.h"

#define MAX_DIRS 16

typedef struct m3_args {
    const char *dir, *dirs[MAX_DIRS]; /* dir = dirs[0]; several for train and calibrate */
    int n_dirs;
    const char *out, *cc, *kind, *sizes, *traffic, *length, *pfc, *truth_from;
    uint64_t samples, seed, fg_flows, max_flows, trees, depth, calib_min, calib_folds;
    double eta;
    int n_threads, is_quiet, is_leaf_refit;
} m3_args;

/* --sizes, in the order of m3_synth_opts.is_mixture's values */
static const char *const size_laws[] = {"table2", "mixture", "mixture3", "measured"};
#define N_SIZE_LAWS (int)(sizeof size_laws / sizeof *size_laws)

/* The is_mixture value of --sizes v, or -1. */
static int size_law_index(const char *v)
{
    for (int i = 0; i < N_SIZE_LAWS; i++)
        if (!strcmp(v, size_laws[i]))
            return i;
    return -1;
}

/* Whether v is a, b or c (c may be NULL); if not, says what --opt expects. */
static int one_of(const char *sub, const char *opt, const char *v, const char *a, const char *b,
                  const char *c)
{
    if (!strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c)))
        return 1;
    if (c)
        fprintf(stderr, "tailor m3 %s: --%s expects %s, %s or %s, found '%s'\n", sub, opt, a, b,
                c, v);
    else
        fprintf(stderr, "tailor m3 %s: --%s expects %s or %s, found '%s'\n", sub, opt, a, b, v);
    return 0;
}

/* Options: a folder, then "--name value" pairs among allowed ("samples,seed"). */
static int parse(int argc, char **argv, const char *sub, const char *allowed, m3_args *a)
{
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        if (s[0] != '-') {
            int max = strcmp(sub, "train") && strcmp(sub, "calibrate") ? 1 : MAX_DIRS;
            if (a->n_dirs == max) {
                if (max == 1)
                    fprintf(stderr, "tailor m3 %s: one folder expected, found '%s' and '%s'\n",
                            sub, a->dir, s);
                else
                    fprintf(stderr, "tailor m3 %s: at most %d folders, found '%s' after them\n",
                            sub, max, s);
                return EXIT_INPUT;
            }
            a->dirs[a->n_dirs++] = s;
            a->dir = a->dirs[0];
            continue;
        }
        const char *name = s + (s[1] == '-' ? 2 : 1);
        char want[64];
        snprintf(want, sizeof want, ",%s,", name);
        char list[256];
        snprintf(list, sizeof list, ",%s,", allowed);
        if (!strstr(list, want)) {
            fprintf(stderr, "tailor m3 %s: unknown option '%s' (see 'tailor help m3')\n", sub, s);
            return EXIT_INPUT;
        }
        if (!strcmp(name, "quiet") || !strcmp(name, "leaf-refit")) {
            *(!strcmp(name, "quiet") ? &a->is_quiet : &a->is_leaf_refit) = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "tailor m3 %s: option '%s' needs a value\n", sub, s);
            return EXIT_INPUT;
        }
        const char *v = argv[++i];
        char *end;
        if (!strcmp(name, "o")) {
            a->out = v;
        } else if (!strcmp(name, "cc")) {
            a->cc = v;
        } else if (!strcmp(name, "kind")) {
            if (!one_of(sub, name, v, "parking", "fabric", "fabric-net"))
                return EXIT_INPUT;
            a->kind = v;
        } else if (!strcmp(name, "sizes")) {
            if (size_law_index(v) < 0) {
                fprintf(stderr, "tailor m3 %s: --sizes expects %s, %s, %s or %s, found '%s'\n",
                        sub, size_laws[0], size_laws[1], size_laws[2], size_laws[3], v);
                return EXIT_INPUT;
            }
            a->sizes = v;
        } else if (!strcmp(name, "traffic")) {
            if (!one_of(sub, name, v, "uniform", "local", "skew"))
                return EXIT_INPUT;
            a->traffic = v;
        } else if (!strcmp(name, "length")) {
            if (!one_of(sub, name, v, "short", "long", NULL))
                return EXIT_INPUT;
            a->length = v;
        } else if (!strcmp(name, "pfc")) {
            if (!one_of(sub, name, v, "drawn", "on", "off"))
                return EXIT_INPUT;
            a->pfc = v;
        } else if (!strcmp(name, "truth-from")) {
            a->truth_from = v;
        } else if (!strcmp(name, "eta")) {
            a->eta = strtod(v, &end);
            if (*end || end == v || !(a->eta > 0 && a->eta <= 1)) {
                fprintf(stderr, "tailor m3 %s: --eta expects a number in (0, 1], found '%s'\n",
                        sub, v);
                return EXIT_INPUT;
            }
        } else {
            unsigned long long x = strtoull(v, &end, 10);
            uint64_t hi = !strcmp(name, "threads") ? 1024 : !strcmp(name, "depth") ? 32
                          : !strcmp(name, "calib-folds") ? 20
                          : !strcmp(name, "seed")  ? UINT64_MAX
                                                   : 100000000;
            uint64_t lo = !strcmp(name, "threads") || !strcmp(name, "seed") ? 0
                          : !strcmp(name, "calib-folds")                    ? 2
                                                                            : 1;
            if (*end || end == v || v[0] == '-' || x < lo || x > hi) {
                fprintf(stderr, "tailor m3 %s: --%s expects an integer in %llu..%llu, found '%s'\n",
                        sub, name, (unsigned long long)lo, (unsigned long long)hi, v);
                return EXIT_INPUT;
            }
            uint64_t *dst = !strcmp(name, "samples")     ? &a->samples
                            : !strcmp(name, "seed")      ? &a->seed
                            : !strcmp(name, "fg-flows")  ? &a->fg_flows
                            : !strcmp(name, "max-flows") ? &a->max_flows
                            : !strcmp(name, "trees")     ? &a->trees
                            : !strcmp(name, "depth")     ? &a->depth
                            : !strcmp(name, "calib-min") ? &a->calib_min
                            : !strcmp(name, "calib-folds") ? &a->calib_folds
                                                         : NULL;
            if (dst)
                *dst = x;
            else
                a->n_threads = (int)x;
        }
    }
    /* calibrate counts its own positional arguments (a model, then folders) */
    if (!a->dir && strcmp(sub, "calibrate")) {
        fprintf(stderr, "tailor m3 %s: the samples folder is required (see 'tailor help m3')\n",
                sub);
        return EXIT_INPUT;
    }
    return 0;
}

static int gen_data(int argc, char **argv)
{
    tl_m3_gen_opts so;
    tl_m3_gen_opts_default(&so);
    m3_args a = {.samples = so.n_samples, .seed = so.seed};
    int rc = parse(argc, argv, "gen-data", "samples,seed,threads,fg-flows,max-flows,cc,kind,sizes,traffic,length,pfc,truth-from,quiet",
               &a);
    if (rc)
        return rc;
    if (a.fg_flows)
        so.fg_flows = (uint32_t)a.fg_flows;
    if (a.max_flows)
        so.max_flows = (uint32_t)a.max_flows;
    if (a.cc) {
        const tl_cc_desc *d = tl_cc_lookup(a.cc);
        if (!d || !d->ops) { /* pktsim makes the labels */
            char known[256];
            tl_cc_names(known, sizeof known, ", ", " or ", 1);
            fprintf(stderr, "tailor m3 gen-data: --cc expects %s, found '%s'\n", known, a.cc);
            return EXIT_INPUT;
        }
        so.only_cc = a.cc;
    }
    cli_opts co = {.is_quiet = a.is_quiet};
    tl_progress ps, *prog = cli_progress(&co, &ps);
    tl_err err;
    tl_err_clear(&err);
    uint64_t n_new = 0;
    so.n_samples = a.samples, so.seed = a.seed, so.n_threads = a.n_threads;
    so.is_fabric = !a.kind || !strcmp(a.kind, "parking") ? 0 : !strcmp(a.kind, "fabric") ? 1 : 2;
    so.is_mixture = a.sizes ? size_law_index(a.sizes) : 0; /* checked by parse */
    so.is_local = a.traffic && !strcmp(a.traffic, "local");
    so.is_skew = a.traffic && !strcmp(a.traffic, "skew");
    so.is_long = a.length && !strcmp(a.length, "long");
    so.pfc = !a.pfc || !strcmp(a.pfc, "drawn") ? 0 : !strcmp(a.pfc, "on") ? 1 : 2;
    so.truth_from = a.truth_from;
    if ((so.is_mixture || so.is_local || so.is_skew || so.is_long) && !so.is_fabric) {
        fprintf(stderr, "tailor m3 gen-data: --%s%s needs --kind fabric or fabric-net\n",
                so.is_mixture ? "sizes " : so.is_local ? "traffic local"
                : so.is_skew  ? "traffic skew"
                              : "length long",
                so.is_mixture ? a.sizes : "");
        return EXIT_INPUT;
    }
    rc = tl_m3_gen_data(a.dir, &so, prog, &n_new, &err);
    cli_progress_done(prog);
    if (rc) {
        cli_print_err("m3 gen-data", &err);
        return cli_exit_code(&err);
    }
    printf("m3 gen-data: %llu new samples in %s/%s\n", (unsigned long long)n_new, a.dir,
           so.is_fabric ? "fabric.csv" : "samples.csv");
    return 0;
}

static int train(int argc, char **argv)
{
    m3_args a = {0};
    int rc = parse(argc, argv, "train", "o,trees,depth,eta,seed,threads,calib-min,calib-folds,leaf-refit,quiet", &a);
    if (rc)
        return rc;
    tl_m3_train_opts to;
    tl_m3_train_opts_default(&to);
    if (a.trees)
        to.n_trees = (uint32_t)a.trees;
    if (a.depth)
        to.max_depth = (uint32_t)a.depth;
    if (a.eta > 0)
        to.eta = a.eta;
    if (a.calib_min)
        to.calib_min = (uint32_t)a.calib_min;
    if (a.calib_folds)
        to.calib_folds = (uint32_t)a.calib_folds;
    to.leaf_refit = a.is_leaf_refit;
    to.seed = a.seed;
    to.n_threads = a.n_threads;
    char model[4096];
    snprintf(model, sizeof model, "%s", a.out ? a.out : "data/models/m3.model");
    tl_err err;
    tl_err_clear(&err);
    rc = tl_m3_train(a.dirs, a.n_dirs, model, &to, &err);
    if (rc) {
        cli_print_err("m3 train", &err);
        return cli_exit_code(&err);
    }
    char log_path[4200];
    snprintf(log_path, sizeof log_path, "%s.log", model);
    char *log = a.is_quiet ? NULL : tl_read_file(log_path, NULL, NULL);
    if (log)
        fputs(log, stdout);
    free(log);
    printf("m3 train: model %s, log %s\n", model, log_path);
    return 0;
}

/* tailor m3 calibrate MODEL DIR [DIR ...] [-o OUT]: the first positional
 * argument is the model, the rest its calibration folders. */
static int calibrate(int argc, char **argv)
{
    m3_args a = {0};
    int rc = parse(argc, argv, "calibrate", "o,threads,quiet", &a);
    if (rc)
        return rc;
    if (a.n_dirs < 2) {
        fprintf(stderr, "tailor m3 calibrate: expected a model file and at least one fabric "
                        "samples folder, found %d argument%s\n",
                a.n_dirs, a.n_dirs == 1 ? "" : "s");
        return EXIT_INPUT;
    }
    const char *out = a.out ? a.out : a.dirs[0];
    tl_err err;
    tl_err_clear(&err);
    rc = tl_m3_calibrate(a.dirs[0], a.dirs + 1, a.n_dirs - 1, out, a.n_threads, &err);
    if (rc) {
        cli_print_err("m3 calibrate", &err);
        return cli_exit_code(&err);
    }
    char log_path[4200];
    snprintf(log_path, sizeof log_path, "%s.log", out);
    printf("m3 calibrate: model %s, log %s\n", out, log_path);
    return 0;
}

int cmd_m3(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "tailor m3: expected gen-data, train or calibrate (see 'tailor help m3')\n");
        return EXIT_INPUT;
    }
    if (!strcmp(argv[1], "gen-data"))
        return gen_data(argc, argv);
    if (!strcmp(argv[1], "train"))
        return train(argc, argv);
    if (!strcmp(argv[1], "calibrate"))
        return calibrate(argc, argv);
    fprintf(stderr, "tailor m3: unknown step '%s'; expected gen-data, train or calibrate\n",
            argv[1]);
    return EXIT_INPUT;
}
