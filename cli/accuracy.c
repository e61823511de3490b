/* What is known of an estimate's accuracy, from data/models/accuracy.json:
 *   - each shipped m3 model (named by the CRC-32 in its header, so a model
 *     trained again matches none) and Parsimon under each congestion
 *     control, with the engine options each entry names as a run's
 *     summary.json does (a CC's first entry: its default options; a run with
 *     options no entry names gets those and a warning that says so): the
 *     error against pktsim on the accuracy suite, of the p99 of
 *     all flows, of the worst size bucket's p99 and of the p99.9
 *     (docs/accuracy.md);
 *   - the regime those figures hold in: the share of the run Parsimon's
 *     most paused link simulation spent paused by PFC, below which the
 *     suite's scenarios were estimated as the figures say (past it are
 *     its PFC storms).
 * A run prints the figures of its estimator, warns when they miss the goal,
 * and warns, naming the measure, when the scenario is outside that regime:
 * so that nobody takes a DCQCN estimate for a DCTCP-grade one, or an
 * estimate of a fabric pausing more than any measured for a checked one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "tailor/fileio.h"
#include "tailor/jsonerr.h"

typedef struct accuracy {
    const char *cc, *max_at;           /* borrowed from the JSON */
    const char *options, *label;       /* Parsimon entries only */
    double default_mean; /* Parsimon's default options on the same scenarios (-1: none) */
    double n, mean, max, parsimon_mean; /* parsimon_mean: m3 entries only */
    /* per size bucket and at p99.9, over n_detail of the n scenarios
     * (-1: not measured) */
    double n_detail, bucket_mean, bucket_max, p999_mean;
} accuracy;

typedef struct regime {
    double paused_max; /* -1: not given */
    const char *paused_note, *storms; /* what the suite's scenarios past it did */
} regime;

typedef struct acc_file {
    double goal_mean, goal_max; /* percent */
    regime reg;
} acc_file;

/* The member obj.key (path names obj) into *x and its path into p; an
 * error names its place. With is_optional a missing member is *x = NULL. */
static int get_member(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                      int is_optional, const json_t **x, char p[160])
{
    tl_json_join(p, 160, path, key);
    if (!(*x = json_object_get(obj, key)) && !is_optional)
        return tl_json_fail(c, 0, path, TL_EPARSE, "expected a member \"%s\", found none", key);
    return 0;
}

/* A number >= 0; an optional one left out is -1. */
static int get_num(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                   int is_optional, double *v)
{
    char p[160];
    const json_t *x;
    int rc = get_member(c, obj, path, key, is_optional, &x, p);
    if (rc || !x) {
        *v = -1;
        return rc;
    }
    if (!json_is_number(x) || json_number_value(x) < 0)
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected a number >= 0, found %s",
                            json_is_number(x) ? "a negative one" : tl_json_type_name(x));
    *v = json_number_value(x);
    return 0;
}

static int get_str(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                   int is_optional, const char **v)
{
    char p[160];
    const json_t *x;
    int rc = get_member(c, obj, path, key, is_optional, &x, p);
    if (rc || !x) {
        *v = NULL;
        return rc;
    }
    if (!json_is_string(x))
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected a string, found %s",
                            tl_json_type_name(x));
    *v = json_string_value(x);
    return 0;
}

/* The figures of entry m (at path) into *a. */
static int get_entry(tl_json_ctx *c, const json_t *m, const char *path, int is_m3, accuracy *a)
{
    int rc = get_str(c, m, path, "cc", 0, &a->cc);
    rc = rc ? rc : get_str(c, m, path, "max_at", 0, &a->max_at);
    rc = rc ? rc : get_num(c, m, path, "scenarios", 0, &a->n);
    rc = rc ? rc : get_num(c, m, path, "mean_pct", 0, &a->mean);
    rc = rc ? rc : get_num(c, m, path, "max_pct", 0, &a->max);
    rc = rc ? rc : get_num(c, m, path, "parsimon_mean_pct", !is_m3, &a->parsimon_mean);
    rc = rc || is_m3 ? rc : get_str(c, m, path, "options", 0, &a->options);
    rc = rc || is_m3 ? rc : get_str(c, m, path, "label", 0, &a->label);
    rc = rc ? rc : get_num(c, m, path, "default_mean_pct", 1, &a->default_mean);
    rc = rc ? rc : get_num(c, m, path, "detail_scenarios", 1, &a->n_detail);
    rc = rc ? rc : get_num(c, m, path, "bucket_mean_pct", a->n_detail < 0, &a->bucket_mean);
    rc = rc ? rc : get_num(c, m, path, "bucket_max_pct", a->n_detail < 0, &a->bucket_max);
    return rc ? rc : get_num(c, m, path, "p999_mean_pct", a->n_detail < 0, &a->p999_mean);
}

/* The file's goal and regime into *f. */
static int get_head(tl_json_ctx *c, const json_t *root, acc_file *f)
{
    const json_t *goal = json_object_get(root, "goal"), *reg = json_object_get(root, "regime");
    if (!json_is_object(goal))
        return tl_json_fail(c, 0, goal ? "goal" : "", TL_EPARSE, "expected an object \"goal\"");
    int rc = get_num(c, goal, "goal", "mean_pct", 0, &f->goal_mean);
    rc = rc ? rc : get_num(c, goal, "goal", "max_pct", 0, &f->goal_max);
    f->reg = (regime){-1, NULL, NULL};
    if (rc || !reg)
        return rc;
    if (!json_is_object(reg))
        return tl_json_fail(c, 0, "regime", TL_EPARSE, "expected an object, found %s",
                            tl_json_type_name(reg));
    rc = get_num(c, reg, "regime", "paused_fraction_max", 0, &f->reg.paused_max);
    rc = rc ? rc : get_str(c, reg, "regime", "paused_note", 0, &f->reg.paused_note);
    return rc ? rc : get_str(c, reg, "regime", "storms", 0, &f->reg.storms);
}

/* Finds the entry of m3 model crc (is_m3) into *a, or Parsimon's under cc:
 * the one measured with the run's engine options (options, as summary.json's
 * engine_options; NULL: unknown) into *a, and the first of cc's entries,
 * its default options', into *dflt. Returns 1 found, 2 only the defaults'
 * entry (*a is it: the run's options have no entry), 0 none, else an
 * error. */
static int find_entry(tl_json_ctx *c, const json_t *root, int is_m3, uint32_t crc,
                      const char *cc, const char *options, accuracy *a, accuracy *dflt)
{
    const char *key = is_m3 ? "models" : "parsimon";
    const json_t *list = json_object_get(root, key);
    if (!json_is_array(list))
        return tl_json_fail(c, 0, list ? key : "", TL_EPARSE, "expected an array \"%s\"", key);
    int found = 0;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *m = json_array_get(list, i);
        char path[32];
        snprintf(path, sizeof path, "%s[%zu]", key, i);
        if (!json_is_object(m))
            return tl_json_fail(c, 0, path, TL_EPARSE, "expected an object, found %s",
                                tl_json_type_name(m));
        int rc;
        if (is_m3) {
            const char *hex = NULL;
            if ((rc = get_str(c, m, path, "crc32", 0, &hex)))
                return rc;
            char *end = NULL;
            unsigned long v = strtoul(hex, &end, 16);
            if (strncmp(hex, "0x", 2) || end == hex + 2 || *end || v > 0xFFFFFFFFul) {
                char p[64];
                return tl_json_fail(c, 0, tl_json_join(p, sizeof p, path, "crc32"), TL_EPARSE,
                                    "expected a CRC-32 like \"0x1d1e9f78\", found \"%s\"", hex);
            }
            if ((uint32_t)v != crc)
                continue;
            rc = get_entry(c, m, path, is_m3, a);
            return rc ? rc : 1;
        }
        const char *entry_cc = NULL;
        if ((rc = get_str(c, m, path, "cc", 0, &entry_cc)))
            return rc;
        if (strcmp(entry_cc, cc) != 0)
            continue;
        accuracy e;
        if ((rc = get_entry(c, m, path, is_m3, &e)))
            return rc;
        if (!found) {
            *dflt = *a = e;
            found = 2;
        }
        if (options && strcmp(e.options, options) == 0) {
            *a = e;
            return 1;
        }
    }
    /* without the run's options, the defaults' figures are the ones asked */
    return found == 2 && !options ? 1 : found;
}

/* "; worst size bucket's p99 ..." when the entry has those figures. */
static void print_detail(const accuracy *a)
{
    if (a->n_detail < 0)
        return;
    printf("; over %.0f of them, the worst size bucket's p99 %.1f%% mean, %.1f%% max, the p99.9 "
           "of all flows %.1f%% mean",
           a->n_detail, a->bucket_mean, a->bucket_max, a->p999_mean);
}

/* Prints entry a (Parsimon's: dflt its default options' entry); found 2:
 * the run's options (options) have no entry, so a is the defaults'. */
static void print_accuracy(const char *file, int is_m3, const accuracy *a, const accuracy *dflt,
                           int found, const char *options, const acc_file *f, const char *who)
{
    if (is_m3)
        printf("accuracy of this model on %.0f %s scenarios of the suite (%s): mean |p99 "
               "error| %.1f%%, max %.1f%% (%s); Parsimon %.1f%%",
               a->n, a->cc, file, a->mean, a->max, a->max_at, a->parsimon_mean);
    else
        printf("accuracy of Parsimon (%s) on %.0f %s scenarios of the suite (%s): "
               "mean |p99 error| %.1f%%, max %.1f%% (%s)",
               a->label, a->n, a->cc, file, a->mean, a->max, a->max_at);
    print_detail(a);
    if (!is_m3 && a->default_mean >= 0)
        printf("; its %s: %.1f%% mean on the same scenarios%s", dflt->label, a->default_mean,
               a->default_mean < a->mean ? ", closer there" : "");
    printf(" (docs/accuracy.md)\n");
    if (!is_m3 && found == 2)
        fprintf(stderr,
                "%s: warning: the accuracy figures printed are Parsimon's with its %s; "
                "this run's engine options (%s) have no figures in %s\n",
                who, a->label, options, file);
    if (is_m3 && (a->mean > f->goal_mean || a->max > f->goal_max))
        fprintf(stderr,
                "%s: warning: m3's %s model misses the accuracy goal (mean |p99 error| <= "
                "%g%%, max <= %g%%): %.1f%% mean, %.1f%% max (%s) over %.0f scenarios, "
                "where Parsimon is at %.1f%% (docs/accuracy.md)%s\n",
                who, a->cc, f->goal_mean, f->goal_max, a->mean, a->max, a->max_at, a->n,
                a->parsimon_mean,
                a->parsimon_mean < a->mean ? "; --engine parsimon is closer there" : "");
}

/* Warns when the run is outside the regime the figures were measured in,
 * naming the measure. */
static void check_regime(const regime *g, const char *engine, const cli_run_facts *rf,
                         const char *who)
{
    const tl_run_info *r = rf->run;
    if (g->paused_max >= 0 && r && r->paused_frac_max > g->paused_max)
        fprintf(stderr,
                "%s: warning: outside the regime of the accuracy figures: paused_fraction_max "
                "%.2f%% (the share of the run the most paused link spent paused by PFC) is "
                "above %.2f%%, where the figures were measured: %s; check the estimate "
                "against --engine pktsim (tailor compare)\n",
                who, 100 * r->paused_frac_max, 100 * g->paused_max, g->paused_note);
    else if (g->storms && rf->is_pfc && r && r->paused_frac_max < 0)
        fprintf(stderr,
                "%s: warning: %s does not model PFC pauses (paused_fraction: null), so it "
                "cannot tell a PFC storm (the suite's: %s); --engine parsimon estimates "
                "them\n",
                who, engine, g->storms);
}

void cli_note_accuracy(const char *engine, const char *model_path, uint32_t model_crc,
                       const cli_run_facts *rf, const char *who)
{
    int is_m3 = strcmp(engine, "m3") == 0;
    char file[4096];
    if ((is_m3 && !model_path && !rf->is_regime_only) ||
        (!is_m3 && strcmp(engine, "parsimon") != 0) ||
        tl_data_path("models/accuracy.json", file, sizeof file, NULL))
        return;
    tl_err err;
    tl_err_clear(&err);
    char *text = tl_read_file(file, NULL, &err);
    json_t *root = NULL;
    if (text) {
        json_error_t je;
        if (!(root = json_loads(text, JSON_REJECT_DUPLICATES, &je)))
            tl_err_at(&err, TL_EPARSE, file, je.line, je.column, NULL, "malformed JSON: %s",
                      je.text);
    }
    accuracy a = {0}, dflt = {0};
    acc_file f = {0};
    const char *options = rf->run ? rf->run->options : NULL;
    int found = 0; /* 1: an entry for this estimate; 2: the defaults' (find_entry) */
    if (root) {
        tl_json_ctx c;
        if (!tl_json_ctx_init(&c, file, text, &err)) {
            if (!get_head(&c, root, &f) && !rf->is_regime_only)
                found = find_entry(&c, root, is_m3, model_crc, rf->cc, options, &a, &dflt);
            tl_json_ctx_fini(&c);
        }
    }
    if (err.code) {
        char msg[1024];
        fprintf(stderr, "%s: warning: no accuracy figures for the %s: %s\n", who,
                is_m3 ? "model" : "estimate", tl_err_format(&err, msg, sizeof msg));
    } else {
        if (found == 1 || found == 2)
            print_accuracy(file, is_m3, &a, &dflt, found, options, &f, who);
        if (rf->run)
            check_regime(&f.reg, engine, rf, who);
    }
    json_decref(root);
    free(text);
}
