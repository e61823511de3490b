/* The offline tuner's objective (docs/paraleon.md "Offline tuning"): a
 * weighted sum of FCT-slowdown statistics per size bucket of a summary,
 * lower is better. Written "STAT@BUCKET[:WEIGHT],...", STAT one of mean,
 * p50, p90, p99, p99.9 and BUCKET a summary bucket (0-1KB, ..., all).
 * Without weights the terms count equally; with them, every term has one
 * and they sum to 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/tune.h"

static const char *const stat_names[] = {"mean", "p50", "p90", "p99", "p99.9"};
enum { N_STATS = 5 };

static int bad(tl_err *err, const char *spec, int term, const char *fmt, const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, what);
    tl_err_set(err, TL_EPARSE, "term %d: %s", term, msg);
    snprintf(err->path, sizeof err->path, "--objective %s", spec);
    return TL_EPARSE;
}

int tl_objective_parse(tl_objective *o, const char *spec, tl_err *err)
{
    memset(o, 0, sizeof *o);
    if (strlen(spec) >= sizeof o->text)
        return bad(err, "...", 0, "%s", "longer than 255 characters");
    snprintf(o->text, sizeof o->text, "%s", spec);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    int n_weighted = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = o->n + 1;
        if (o->n == TL_OBJ_MAX_TERMS)
            return bad(err, spec, k, "%s", "too many terms (at most 8)");
        char *at = strchr(t, '@');
        if (!at)
            return bad(err, spec, k, "expected STAT@BUCKET[:WEIGHT], found '%s'", t);
        *at = '\0';
        char *bucket = at + 1, *colon = strchr(bucket, ':');
        double w = NAN;
        if (colon) {
            *colon = '\0';
            char *end;
            w = strtod(colon + 1, &end);
            if (end == colon + 1 || *end || !(w > 0 && w <= 1))
                return bad(err, spec, k, "expected a weight in (0, 1] after ':', found '%s'",
                           colon + 1);
            n_weighted++;
        }
        int s = -1, b = -1;
        for (int i = 0; i < N_STATS; i++)
            if (!strcmp(t, stat_names[i]))
                s = i;
        for (int i = 0; i < TL_N_BUCKETS; i++)
            if (!strcmp(bucket, tl_bucket_names[i]))
                b = i;
        if (s < 0)
            return bad(err, spec, k,
                       "unknown statistic '%s'; expected mean, p50, p90, p99 or p99.9", t);
        if (b < 0)
            return bad(err, spec, k,
                       "unknown size bucket '%s'; expected 0-1KB, 1-10KB, 10-50KB, 50KB+ or all",
                       bucket);
        o->stat[o->n] = s;
        o->bucket[o->n] = b;
        o->w[o->n] = w;
        o->n++;
    }
    if (!o->n)
        return bad(err, spec, 0, "%s", "no term; expected STAT@BUCKET[:WEIGHT],...");
    if (n_weighted && n_weighted != o->n)
        return bad(err, spec, 0, "%s", "give every term a weight, or none");
    double sum = 0;
    for (int i = 0; i < o->n; i++)
        sum += n_weighted ? o->w[i] : (o->w[i] = 1.0 / o->n);
    if (fabs(sum - 1) > 1e-9) {
        char v[64];
        snprintf(v, sizeof v, "%.6g", sum);
        return bad(err, spec, 0, "the weights sum to %s, not 1", v);
    }
    return 0;
}

double tl_objective_eval(const tl_objective *o, const tl_summary *s, tl_err *err)
{
    double v = 0;
    for (int i = 0; i < o->n; i++) {
        const tl_slowdown_stats *st = &s->all[o->bucket[i]];
        double x = o->stat[i] == 0 ? st->mean : st->p[o->stat[i] - 1];
        if (!st->count || !isfinite(x)) {
            tl_err_set(err, TL_EINVAL,
                       "objective term %d (%s@%s): the bucket has no finished flows in this "
                       "scenario; choose another with --objective",
                       i + 1, stat_names[o->stat[i]], tl_bucket_names[o->bucket[i]]);
            return NAN;
        }
        v += o->w[i] * x;
    }
    return v;
}

const char *tl_objective_stat_name(int stat) { return stat_names[stat]; }
