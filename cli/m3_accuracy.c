/* What is known of a shipped m3 model's accuracy: data/models/accuracy.json
 * holds, for each model file (named by the CRC-32 in its header, so a model
 * trained again matches none), its p99 error on the accuracy suite against
 * pktsim and Parsimon's on the same scenarios (docs/accuracy.md). A run or a
 * sweep with such a model prints the figures, and warns when they miss the
 * goal, so that nobody takes a DCQCN estimate for a DCTCP-grade one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "tailor/fileio.h"
#include "tailor/jsonerr.h"

typedef struct accuracy {
    double goal_mean, goal_max; /* percent */
    const char *cc, *max_at;    /* borrowed from the JSON */
    double n, mean, max, parsimon_mean;
} accuracy;

/* The member obj.key (path names obj) into *x and its path into p; an
 * error names its place. */
static int get_member(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                      const json_t **x, char p[160])
{
    tl_json_join(p, 160, path, key);
    if (!(*x = json_object_get(obj, key)))
        return tl_json_fail(c, 0, path, TL_EPARSE, "expected a member \"%s\", found none", key);
    return 0;
}

static int get_num(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                   double *v)
{
    char p[160];
    const json_t *x;
    int rc = get_member(c, obj, path, key, &x, p);
    if (rc)
        return rc;
    if (!json_is_number(x) || json_number_value(x) < 0)
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected a number >= 0, found %s",
                            json_is_number(x) ? "a negative one" : tl_json_type_name(x));
    *v = json_number_value(x);
    return 0;
}

static int get_str(tl_json_ctx *c, const json_t *obj, const char *path, const char *key,
                   const char **v)
{
    char p[160];
    const json_t *x;
    int rc = get_member(c, obj, path, key, &x, p);
    if (rc)
        return rc;
    if (!json_is_string(x))
        return tl_json_fail(c, 0, p, TL_EPARSE, "expected a string, found %s",
                            tl_json_type_name(x));
    *v = json_string_value(x);
    return 0;
}

/* Finds the entry of crc in root into *a: 1 found, 0 none, else an error. */
static int find_entry(tl_json_ctx *c, const json_t *root, uint32_t crc, accuracy *a)
{
    const json_t *goal = json_object_get(root, "goal"), *models = json_object_get(root, "models");
    if (!json_is_object(goal))
        return tl_json_fail(c, 0, goal ? "goal" : "", TL_EPARSE, "expected an object \"goal\"");
    if (!json_is_array(models))
        return tl_json_fail(c, 0, models ? "models" : "", TL_EPARSE,
                            "expected an array \"models\"");
    int rc = get_num(c, goal, "goal", "mean_pct", &a->goal_mean);
    rc = rc ? rc : get_num(c, goal, "goal", "max_pct", &a->goal_max);
    for (size_t i = 0; !rc && i < json_array_size(models); i++) {
        const json_t *m = json_array_get(models, i);
        char path[32];
        snprintf(path, sizeof path, "models[%zu]", i);
        if (!json_is_object(m))
            return tl_json_fail(c, 0, path, TL_EPARSE, "expected an object, found %s",
                                tl_json_type_name(m));
        const char *hex = NULL;
        if ((rc = get_str(c, m, path, "crc32", &hex)))
            break;
        char *end = NULL;
        unsigned long v = strtoul(hex, &end, 16);
        if (strncmp(hex, "0x", 2) || end == hex + 2 || *end || v > 0xFFFFFFFFul) {
            char p[64];
            return tl_json_fail(c, 0, tl_json_join(p, sizeof p, path, "crc32"), TL_EPARSE,
                                "expected a CRC-32 like \"0x1d1e9f78\", found \"%s\"", hex);
        }
        if ((uint32_t)v != crc)
            continue;
        rc = get_str(c, m, path, "cc", &a->cc);
        rc = rc ? rc : get_str(c, m, path, "max_at", &a->max_at);
        rc = rc ? rc : get_num(c, m, path, "scenarios", &a->n);
        rc = rc ? rc : get_num(c, m, path, "mean_pct", &a->mean);
        rc = rc ? rc : get_num(c, m, path, "max_pct", &a->max);
        rc = rc ? rc : get_num(c, m, path, "parsimon_mean_pct", &a->parsimon_mean);
        return rc ? rc : 1;
    }
    return rc;
}

void cli_m3_note_accuracy(const char *model_path, uint32_t model_crc, const char *who)
{
    char file[4096];
    if (!model_path || tl_data_path("models/accuracy.json", file, sizeof file, NULL))
        return;
    tl_err err;
    tl_err_clear(&err);
    char *text = tl_read_file(file, NULL, &err);
    json_t *root = NULL;
    int found = 0;
    if (text) {
        json_error_t je;
        if (!(root = json_loads(text, JSON_REJECT_DUPLICATES, &je)))
            tl_err_at(&err, TL_EPARSE, file, je.line, je.column, NULL, "malformed JSON: %s",
                      je.text);
    }
    accuracy a = {0};
    if (root) {
        tl_json_ctx c;
        if (!tl_json_ctx_init(&c, file, text, &err)) {
            found = find_entry(&c, root, model_crc, &a);
            tl_json_ctx_fini(&c);
        }
    }
    if (err.code) {
        char msg[1024];
        fprintf(stderr, "%s: warning: no accuracy figures for the model: %s\n", who,
                tl_err_format(&err, msg, sizeof msg));
    } else if (found == 1) {
        printf("accuracy of this model on %.0f %s scenarios of the suite (%s): mean |p99 "
               "error| %.1f%%, max %.1f%% (%s); Parsimon %.1f%% (docs/accuracy.md)\n",
               a.n, a.cc, file, a.mean, a.max, a.max_at, a.parsimon_mean);
        if (a.mean > a.goal_mean || a.max > a.goal_max)
            fprintf(stderr,
                    "%s: warning: m3's %s model misses the accuracy goal (mean |p99 error| <= "
                    "%g%%, max <= %g%%): %.1f%% mean, %.1f%% max (%s) over %.0f scenarios, "
                    "where Parsimon is at %.1f%% (docs/accuracy.md)%s\n",
                    who, a.cc, a.goal_mean, a.goal_max, a.mean, a.max, a.max_at, a.n,
                    a.parsimon_mean,
                    a.parsimon_mean < a.mean ? "; --engine parsimon is closer there" : "");
    }
    json_decref(root);
    free(text);
}
