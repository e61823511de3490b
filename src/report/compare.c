/* Relative error of an estimate's slowdown summary against a reference's
 * (DESIGN.md: (estimate - truth) / truth, the accuracy measure of parsimon.txt
 * §5 and m3.txt §5), per size bucket, overall and per class, and
 * compare.json, which records both sides and the errors. */
#include "tailor/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/jsonerr.h"

_Static_assert(TL_N_PCTS == 4 && TL_CMP_N_STATS == 4, "the keys below name tl_pcts");
const char *const tl_cmp_stat_keys[TL_CMP_N_STATS] = {"mean", "p50", "p99", "p999"};
const char *const tl_cmp_stat_names[TL_CMP_N_STATS] = {"mean", "p50", "p99", "p99.9"};
/* Where each compared statistic sits in tl_slowdown_stats.p (-1: the mean);
 * p90 is left out, as the papers report p50, p99 and p99.9. */
static const int pct_idx[TL_CMP_N_STATS] = {-1, 0, 2, 3};

double tl_compare_rel_error(double est, double ref)
{
    if (isnan(est) || isnan(ref) || !(ref > 0))
        return NAN;
    return (est - ref) / ref;
}

static void fill_row(tl_cmp_row *row, const tl_slowdown_stats *ref, const tl_slowdown_stats *est)
{
    row->ref_count = ref->count;
    row->est_count = est->count;
    for (int k = 0; k < TL_CMP_N_STATS; k++) {
        int i = pct_idx[k];
        /* An empty bucket's statistics are NaN already; forcing them keeps
         * that true for a hand-built summary that left zeros there. */
        row->ref[k] = ref->count == 0 ? NAN : i < 0 ? ref->mean : ref->p[i];
        row->est[k] = est->count == 0 ? NAN : i < 0 ? est->mean : est->p[i];
        row->error[k] = tl_compare_rel_error(row->est[k], row->ref[k]);
    }
}

static int find_class(const tl_summary *s, const char *name)
{
    for (uint32_t c = 0; c < s->n_classes; c++)
        if (strcmp(s->class_names[c], name) == 0)
            return (int)c;
    return -1;
}

int tl_compare_build(const tl_summary *ref, const tl_summary *est, tl_compare *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->ref_engine, sizeof out->ref_engine, "%s", ref->engine);
    snprintf(out->est_engine, sizeof out->est_engine, "%s", est->engine);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        fill_row(&out->all[b], &ref->all[b], &est->all[b]);
    uint32_t n = ref->n_classes;
    out->class_names = calloc(n ? n : 1, sizeof *out->class_names);
    out->by_class = calloc(n ? (size_t)n * TL_N_BUCKETS : 1, sizeof *out->by_class);
    if (!out->class_names || !out->by_class)
        goto nomem;
    for (uint32_t c = 0; c < n; c++) {
        int e = find_class(est, ref->class_names[c]);
        if (e < 0)
            continue;
        uint32_t k = out->n_classes;
        if (!(out->class_names[k] = strdup(ref->class_names[c])))
            goto nomem;
        out->n_classes++;
        for (int b = 0; b < TL_N_BUCKETS; b++)
            fill_row(&out->by_class[(size_t)k * TL_N_BUCKETS + b],
                     &ref->by_class[(size_t)c * TL_N_BUCKETS + b],
                     &est->by_class[(size_t)e * TL_N_BUCKETS + b]);
    }
    return 0;
nomem:
    tl_compare_fini(out);
    return tl_err_nomem(err);
}

void tl_compare_fini(tl_compare *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->class_names && i < c->n_classes; i++)
        free(c->class_names[i]);
    free(c->class_names);
    free(c->by_class);
    memset(c, 0, sizeof *c);
}

/* ======================== compare.json ======================== */

/* JSON has no NaN (an empty bucket, an undefined error) nor infinity. */
static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* jansson takes UTF-8 strings only; a folder name need not be one. Checked
 * here rather than by a json_string that fails, which could also mean out
 * of memory: RFC 3629, no overlong forms, surrogates or code points above
 * U+10FFFF (jansson's own rule). */
static int is_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p++;
        int n; /* continuation bytes */
        uint32_t cp;
        if (c < 0x80)
            n = 0, cp = c;
        else if ((c & 0xE0) == 0xC0)
            n = 1, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            n = 2, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            n = 3, cp = c & 0x07;
        else
            return 0;
        for (int i = 0; i < n; i++, p++) {
            if ((*p & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (*p & 0x3F);
        }
        static const uint32_t min_of[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < min_of[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
    }
    return 1;
}

/* {count, mean, p50, p99, p999} of one side; count NULL for the errors. */
static json_t *stats_json(const uint64_t *count, const double *v, int *n_bad)
{
    json_t *o = json_object();
    if (count)
        tl_json_put(o, "count", json_integer((json_int_t)*count), n_bad);
    for (int k = 0; k < TL_CMP_N_STATS; k++)
        tl_json_put(o, tl_cmp_stat_keys[k], num_or_null(v[k]), n_bad);
    return o;
}

static json_t *buckets_json(const tl_cmp_row *rows, int *n_bad)
{
    json_t *o = json_object();
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        json_t *r = json_object();
        tl_json_put(r, "ref", stats_json(&rows[b].ref_count, rows[b].ref, n_bad), n_bad);
        tl_json_put(r, "est", stats_json(&rows[b].est_count, rows[b].est, n_bad), n_bad);
        tl_json_put(r, "error", stats_json(NULL, rows[b].error, n_bad), n_bad);
        tl_json_put(o, tl_bucket_names[b], r, n_bad);
    }
    return o;
}

int tl_compare_save_json(const tl_compare *c, const char *ref_label, const char *est_label,
                         const char *path, tl_err *err)
{
    if (!is_json_string(ref_label) || !is_json_string(est_label))
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "the run labels (folder names) must be UTF-8 to go into JSON");
    int n_bad = 0;
    json_t *root = json_object();
    tl_json_put(root, "ref", json_string(ref_label), &n_bad);
    tl_json_put(root, "est", json_string(est_label), &n_bad);
    tl_json_put(root, "ref_engine", json_string(c->ref_engine), &n_bad);
    tl_json_put(root, "est_engine", json_string(c->est_engine), &n_bad);
    tl_json_put(root, "buckets", buckets_json(c->all, &n_bad), &n_bad);
    json_t *classes = json_object();
    for (uint32_t k = 0; k < c->n_classes; k++)
        tl_json_put(classes, c->class_names[k],
            buckets_json(&c->by_class[(size_t)k * TL_N_BUCKETS], &n_bad), &n_bad);
    tl_json_put(root, "classes", classes, &n_bad);
    return tl_json_save(root, n_bad, path, err);
}
