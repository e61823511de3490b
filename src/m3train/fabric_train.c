/* Training m3's model from DIR/fabric.csv (docs/m3.md "Fabric samples"):
 * every foreground flow of a drawn path gives one row per quantile of the
 * grid, labelled log(its slowdown / the reference at that quantile), and
 * the pinball loss at that quantile makes the prediction the conditional
 * quantile of the label. Every tenth scenario is held out: half of those
 * calibrate the model when there are at least o->calib_min of them (per
 * bucket and quantile, the shift in log space that makes that share of
 * their flows fall at or below the prediction, as in conformalized
 * quantile regression; stored in the model's metadata),
 * the other half are reported: per output bucket, how often a flow falls
 * at or below the predicted quantile (ideal: the quantile) next to the
 * reference's own rate (flowsim at the busiest link, uncorrected). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "m3train/m3train_int.h"
#include "tailor/fileio.h"
#include "tailor/quantile.h"
#include "tailor/time.h"

/* Scenario of a line: its index over the file's paths per scenario. */
static int is_valid_scenario(uint64_t index, uint32_t per) { return index / per % 10 == 9; }
/* Held-out scenarios alternate between calibration and the report. */
static int is_calib_scenario(uint64_t index, uint32_t per)
{
    return is_valid_scenario(index, per) && index / per / 10 % 2 == 0;
}
static int is_report_scenario(uint64_t index, uint32_t per)
{
    return is_valid_scenario(index, per) && !is_calib_scenario(index, per);
}

/* A lossy scenario whose foreground flows' median slowdown is above this has
 * collapsed (drops and retransmission timeouts: medians in the hundreds);
 * docs/m3.md "Fabric samples" says why such scenarios are left out. A
 * lossless one (PFC) cannot drop: its high slowdowns are PAUSE frames
 * spreading, which is what DCQCN with NVIDIA's defaults does in the
 * evaluation too, so it stays. */
#define COLLAPSE_MEDIAN 20.0

static size_t n_fg_all(const m3_fpath *r)
{
    size_t n = 0;
    for (int b = 0; b < M3_N_OUT; b++)
        n += r->feat.n_fg[b];
    return n;
}

/* Leaves out the paths of collapsed scenarios (their lines are contiguous)
 * and counts the scenarios left out. */
static int drop_collapsed(m3_fpath *v, size_t *n, uint32_t per, size_t *n_dropped,
                          tl_err *err)
{
    size_t kept = 0, i0 = 0;
    *n_dropped = 0;
    while (i0 < *n) {
        size_t i1 = i0, m = 0;
        while (i1 < *n && v[i1].index / per == v[i0].index / per)
            m += n_fg_all(&v[i1++]);
        double *a = malloc((m + 1) * sizeof *a), half = 0.5, med = NAN;
        if (!a) { /* keep v[0 .. *n) whole for the caller to free */
            memmove(v + kept, v + i0, (*n - i0) * sizeof *v);
            *n = kept + (*n - i0);
            return tl_err_nomem(err);
        }
        m = 0;
        for (size_t i = i0; i < i1; i++) {
            memcpy(a + m, v[i].sd, n_fg_all(&v[i]) * sizeof *a);
            m += n_fg_all(&v[i]);
        }
        tl_quantiles(a, m, &half, &med, 1, NULL);
        free(a);
        int is_out = med > COLLAPSE_MEDIAN && !m3_feat_lossless(&v[i0].feat);
        *n_dropped += (size_t)is_out;
        for (size_t i = i0; i < i1; i++) {
            if (is_out)
                m3_fpath_fini(&v[i]);
            else
                v[kept++] = v[i];
        }
        i0 = i1;
    }
    *n = kept;
    return 0;
}

static int read_fpaths(const char *path, m3_fpath **out, size_t *n, char *header, size_t hn,
                       tl_err *err)
{
    *out = NULL, *n = 0;
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    size_t cap = 1024;
    m3_fpath *v = malloc(cap * sizeof *v);
    char want[64], *line;
    snprintf(want, sizeof want, "# tailor m3 fabric paths: schema %d,", M3_FEATURE_SCHEMA);
    if (!v)
        rc = tl_err_nomem(err);
    while (!rc && (line = tl_lines_next(&lr))) {
        if (lr.line == 1) {
            if (strncmp(line, want, strlen(want)))
                rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                               "expected a header \"%s ...\", found \"%.120s\": re-run "
                               "`tailor m3 gen-data --kind fabric`",
                               want, line);
            snprintf(header, hn, "%s", line);
            continue;
        }
        if (*n == cap) {
            m3_fpath *nv = realloc(v, 2 * cap * sizeof *nv);
            if (!nv) {
                rc = tl_err_nomem(err);
                break;
            }
            v = nv, cap *= 2;
        }
        if (!(rc = m3_fpath_parse(line, path, lr.line, &v[*n], err)))
            (*n)++;
    }
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (rc) {
        for (size_t i = 0; i < *n; i++)
            m3_fpath_fini(&v[i]);
        free(v);
        *n = 0;
        return rc;
    }
    *out = v;
    return 0;
}

static void free_fpaths(m3_fpath *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        m3_fpath_fini(&v[i]);
    free(v);
}

/* Reads every folder's fabric.csv into one list. The folders must agree on
 * the paths per scenario (*per); each folder's scenarios are numbered on
 * after the previous folder's, so the collapse check and the held-out split
 * (every tenth scenario) see whole scenarios. headers gets the files'
 * headers without their "# ", separated by "; ". */
static int read_folders(const char *const *dirs, int n_dirs, m3_fpath **out, size_t *n,
                        uint32_t *per, char *headers, size_t hn, tl_err *err)
{
    *out = NULL, *n = 0, *per = 0, headers[0] = 0;
    uint64_t base = 0;
    for (int k = 0; k < n_dirs; k++) {
        char path[4096], header[512] = "";
        snprintf(path, sizeof path, "%s/fabric.csv", dirs[k]);
        m3_fpath *v = NULL, *all = NULL;
        size_t m = 0;
        int rc = read_fpaths(path, &v, &m, header, sizeof header, err);
        uint32_t per_k = rc ? 0 : m3_fabric_per(header);
        if (!rc && !per_k)
            rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                           "expected the header to name the paths per scenario (\", paths N,\"), "
                           "found \"%.120s\"", header);
        else if (!rc && k && per_k != *per)
            rc = tl_err_at(err, TL_EINVAL, path, 1, 1, NULL,
                           "expected %u paths per scenario, as %s/fabric.csv has, found %u",
                           *per, dirs[0], per_k);
        if (!rc && !(all = realloc(*out, (*n + m + 1) * sizeof *all)))
            rc = tl_err_nomem(err);
        if (rc) {
            free_fpaths(v, m);
            free_fpaths(*out, *n);
            *out = NULL, *n = 0;
            return rc;
        }
        *per = per_k;
        uint64_t last = 0;
        for (size_t i = 0; i < m; i++) {
            last = v[i].index > last ? v[i].index : last;
            v[i].index += base;
        }
        memcpy(all + *n, v, m * sizeof *v);
        free(v);
        *out = all, *n += m;
        base += (last / per_k + 1) * per_k;
        size_t used = strlen(headers);
        snprintf(headers + used, hn - used, "%s%s", k ? "; " : "", header + 2);
    }
    return 0;
}

/* Whether the reference of bucket b at grid quantile q can scale a label. */
static int ref_usable(const m3_fpath *r, int b, int q)
{
    double ref = r->feat.ref_q[b][q];
    return ref > 0 && isfinite(ref);
}

static int usable(const m3_fpath *r, int b, int q, double sd)
{
    return ref_usable(r, b, q) && sd > 0 && isfinite(sd);
}

static int add_rows(m3_dataset *d, const m3_fpath *r, tl_err *err)
{
    float row[M3_N_FEATURES];
    size_t at = 0;
    for (int b = 0; b < M3_N_OUT; b++)
        for (uint32_t j = 0; j < r->feat.n_fg[b]; j++, at++)
            for (int q = 0; q < M3_N_Q; q++) {
                if (!usable(r, b, q, r->sd[at]))
                    continue;
                m3_feat_row(&r->feat, b, q, row);
                int rc = m3_dataset_append_q(d, row, m3_label(r->sd[at], r->feat.ref_q[b][q]),
                                             (float)m3_q[q], err);
                if (rc)
                    return rc;
            }
    return 0;
}

/* The model's M3_N_Q predictions for size bucket b of one path's features. */
static int predict_bucket(const m3_model *m, const m3_feat *f, int b, int n_threads, float *y,
                          tl_err *err)
{
    float row[M3_N_FEATURES], x[M3_N_Q * M3_N_FEATURES];
    for (int q = 0; q < M3_N_Q; q++) {
        m3_feat_row(f, b, q, row);
        memcpy(x + q * M3_N_FEATURES, row, sizeof row);
    }
    return m3_model_predict(m, x, M3_N_Q, n_threads, y, err);
}

/* Calibration of held-out flows per bucket at a few quantiles. */
static int report(FILE *log, const m3_model *m, const m3_fpath *v, size_t n, uint32_t per,
                  int n_threads, const double shift[M3_N_OUT][M3_N_Q], tl_err *err)
{
    static const int qs[4] = {3, 5, 9, 11}; /* indices of 50, 90, 99, 99.9% in m3_q */
    fprintf(log, "\nreported flows (held out, not calibrated on) at or below the predicted "
                 "quantile (ideal: the quantile); model / flowsim reference\n  %-8s %7s",
            "bucket", "flows");
    for (int k = 0; k < 4; k++)
        fprintf(log, "  %13.1f%%", 100 * m3_q[qs[k]]);
    fputc('\n', log);
    float y[M3_N_Q];
    for (int b = 0; b < M3_N_OUT; b++) {
        double below_m[4] = {0}, below_f[4] = {0}, nf = 0;
        for (size_t i = 0; i < n; i++) {
            const m3_fpath *r = &v[i];
            if (!is_report_scenario(r->index, per) || !r->feat.n_fg[b])
                continue;
            int rc = predict_bucket(m, &r->feat, b, n_threads, y, err);
            if (rc)
                return rc;
            size_t at = 0;
            for (int bb = 0; bb < b; bb++)
                at += r->feat.n_fg[bb];
            for (uint32_t j = 0; j < r->feat.n_fg[b]; j++) {
                double sd = r->sd[at + j];
                if (!(sd > 0 && isfinite(sd)))
                    continue;
                nf++;
                for (int k = 0; k < 4; k++) {
                    double ref = r->feat.ref_q[b][qs[k]];
                    below_m[k] += sd <= ref * exp((double)y[qs[k]] + shift[b][qs[k]]);
                    below_f[k] += sd <= ref;
                }
            }
        }
        fprintf(log, "  %-8s %7.0f", tl_bucket_names[b], nf);
        for (int k = 0; k < 4; k++)
            fprintf(log, "  %6.1f / %5.1f", nf ? 100 * below_m[k] / nf : NAN,
                    nf ? 100 * below_f[k] / nf : NAN);
        fputc('\n', log);
    }
    return 0;
}

/* Calibration scenarios: every twentieth (their lines are contiguous). */
static size_t n_calib_scenarios(const m3_fpath *v, size_t n, uint32_t per)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += is_calib_scenario(v[i].index, per) &&
             (i == 0 || v[i - 1].index / per != v[i].index / per);
    return k;
}

/* Scenarios a calibration pass reads: the held-out calibration split
 * (PASS_CALIB), the report split (PASS_REPORT), every scenario (PASS_ALL,
 * for a model trained on other folders), or cross-fitting fold `fold` >= 0
 * of n_folds among the training scenarios. */
enum { PASS_CALIB = -1, PASS_REPORT = -2, PASS_ALL = -3 };
static int in_pass(uint64_t index, uint32_t per, int fold, uint32_t n_folds)
{
    if (fold == PASS_CALIB)
        return is_calib_scenario(index, per);
    if (fold == PASS_REPORT)
        return is_report_scenario(index, per);
    if (fold == PASS_ALL)
        return 1;
    return !is_valid_scenario(index, per) && index / per % n_folds == (uint64_t)fold;
}

/* Adds model m's predictions for the paths of a pass, with their flows, to
 * the calibration set. */
static int calib_add_pass(m3_calib *cs, const m3_model *m, const m3_fpath *v, size_t n,
                          uint32_t per, int fold, uint32_t n_folds, int n_threads, tl_err *err)
{
    float y[M3_N_Q];
    for (size_t i = 0; i < n; i++) {
        const m3_fpath *r = &v[i];
        if (!in_pass(r->index, per, fold, n_folds))
            continue;
        const double *sd = r->sd;
        for (int b = 0; b < M3_N_OUT; sd += r->feat.n_fg[b++]) {
            int ok = r->feat.n_fg[b] > 0;
            for (int q = 0; ok && q < M3_N_Q; q++)
                ok = ref_usable(r, b, q);
            if (!ok)
                continue;
            int rc = predict_bucket(m, &r->feat, b, n_threads, y, err);
            double logq[M3_N_Q];
            for (int q = 0; q < M3_N_Q; q++)
                logq[q] = log(r->feat.ref_q[b][q]) + (double)y[q];
            rc = rc ? rc : m3_calib_add(cs, b, logq, r->feat.n_fg[b], sd, r->feat.n_fg[b], err);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static void log_shifts(FILE *log, const char *what, const double shift[M3_N_OUT][M3_N_Q])
{
    fprintf(log, "\ncalibration shift (log space) per bucket at the grid quantiles (mixture, "
                 "%s):\n", what);
    for (int b = 0; b < M3_N_OUT; b++) {
        fprintf(log, "  %-8s", tl_bucket_names[b]);
        for (int q = 0; q < M3_N_Q; q++)
            fprintf(log, " %+.3f", shift[b][q]);
        fputc('\n', log);
    }
}

/* Held-out calibration: model m on the calibration scenarios (fold
 * PASS_CALIB), or on every scenario (PASS_ALL). */
static int calibrate(const m3_model *m, const m3_fpath *v, size_t n, uint32_t per, int pass,
                     int n_threads, double shift[M3_N_OUT][M3_N_Q], tl_err *err)
{
    m3_calib cs;
    m3_calib_init(&cs);
    int rc = calib_add_pass(&cs, m, v, n, per, pass, 0, n_threads, err);
    rc = rc ? rc : m3_calib_shift(&cs, shift, err);
    m3_calib_fini(&cs);
    return rc;
}

/* Cross-fitted calibration (--calib-folds K): the training scenarios fall
 * into K folds by scenario number; a model trained as m was on the other
 * folds' rows predicts each fold's paths, and the shifts come from all
 * these out-of-fold predictions, so they rest on every training scenario
 * rather than on the twentieth held out for calibration. */
static int calibrate_folds(FILE *log, const m3_fpath *v, size_t n, uint32_t per,
                           const m3_train_opts *o, double shift[M3_N_OUT][M3_N_Q],
                           tl_err *err)
{
    m3_calib cs;
    m3_calib_init(&cs);
    int rc = 0;
    for (uint32_t k = 0; k < o->calib_folds && !rc; k++) {
        m3_dataset tr;
        m3_model *mk = NULL;
        double t0 = tl_wall_s();
        rc = m3_dataset_init(&tr, M3_N_FEATURES, err);
        for (size_t i = 0; i < n && !rc; i++)
            if (!is_valid_scenario(v[i].index, per) && !in_pass(v[i].index, per, (int)k,
                                                                 o->calib_folds))
                rc = add_rows(&tr, &v[i], err);
        if (!rc && !(mk = m3_model_train(&tr, NULL, o, NULL, err)))
            rc = err && err->code ? err->code : TL_EINVAL;
        rc = rc ? rc : calib_add_pass(&cs, mk, v, n, per, (int)k, o->calib_folds, o->n_threads,
                                      err);
        if (!rc)
            fprintf(log, "calibration fold %u of %u: trained on %zu rows, %.1f s\n", k + 1,
                    o->calib_folds, tr.n_rows, tl_wall_s() - t0);
        m3_model_destroy(mk);
        m3_dataset_fini(&tr);
    }
    rc = rc ? rc : m3_calib_shift(&cs, shift, err);
    m3_calib_fini(&cs);
    return rc;
}

/* What m3 reports, on the report scenarios: per bucket, the mixture of
 * their paths' calibrated predictions against all their flows pooled. */
static int report_mixture(FILE *log, const m3_model *m, const m3_fpath *v, size_t n,
                          uint32_t per, int pass, const char *which, int n_threads,
                          const double shift[M3_N_OUT][M3_N_Q], tl_err *err)
{
    static const double lv[4] = {0.5, 0.9, 0.99, 0.999};
    m3_calib cs;
    m3_calib_init(&cs);
    int rc = calib_add_pass(&cs, m, v, n, per, pass, 0, n_threads, err);
    if (!rc)
        fprintf(log, "\nmixture of the %s paths (as m3 mixes them) against their flows "
                     "pooled, slowdown\n  %-8s %7s      p50 mix / flows      p90 mix / flows"
                     "      p99 mix / flows    p99.9 mix / flows\n", which, "bucket", "flows");
    for (int b = 0; b < M3_N_OUT && !rc; b++) {
        double mix[4], pooled[4];
        if ((rc = m3_calib_compare(&cs, b, shift[b], lv, 4, mix, pooled, err)))
            break;
        fprintf(log, "  %-8s %7zu", tl_bucket_names[b], cs.n_sd[b]);
        for (int k = 0; k < 4; k++)
            fprintf(log, "  %8.3f / %8.3f", mix[k], pooled[k]);
        fputc('\n', log);
    }
    m3_calib_fini(&cs);
    return rc;
}

int m3_train_fabric(const char *const *dirs, int n_dirs, const char *model_path,
                    const m3_train_opts *o, tl_err *err)
{
    char log_path[4200], header[2048];
    snprintf(log_path, sizeof log_path, "%s.log", model_path);
    m3_fpath *v = NULL;
    size_t n = 0;
    uint32_t per = 0;
    int rc = read_folders(dirs, n_dirs, &v, &n, &per, header, sizeof header, err);
    if (rc)
        return rc;
    size_t n_read = n, n_collapsed = 0;
    if ((rc = drop_collapsed(v, &n, per, &n_collapsed, err))) {
        free_fpaths(v, n);
        return rc;
    }
    m3_dataset tr, va;
    memset(&tr, 0, sizeof tr), memset(&va, 0, sizeof va);
    rc = m3_dataset_init(&tr, M3_N_FEATURES, err);
    rc = rc ? rc : m3_dataset_init(&va, M3_N_FEATURES, err);
    size_t n_valid = 0, n_flows = 0;
    char ccs[256] = "";
    for (size_t i = 0; i < n && !rc; i++) {
        n_valid += is_valid_scenario(v[i].index, per);
        for (int b = 0; b < M3_N_OUT; b++)
            n_flows += v[i].feat.n_fg[b];
        m3_cc_add(ccs, sizeof ccs, v[i].cc);
        rc = add_rows(is_valid_scenario(v[i].index, per) ? &va : &tr, &v[i], err);
    }
    if (!rc && (!tr.n_rows || !va.n_rows))
        rc = tl_err_at(err, TL_EINVAL, dirs[0], 0, 0, NULL,
                       "%zu paths give %zu training and %zu held-out rows; both must be > 0 "
                       "(make at least ten fabric scenarios)", n, tr.n_rows, va.n_rows);
    tl_afile af;
    FILE *log = NULL;
    m3_model *m = NULL;
    if (!rc && !(log = tl_afile_open(&af, log_path, err)))
        rc = err->code;
    if (!rc) {
        fprintf(log, "m3 model training log (tailor m3 train, fabric paths, pinball loss)\n%s\n",
                header);
        fprintf(log, "paths %zu (held out %zu, every tenth scenario), foreground flows %zu, rows "
                "%zu training, %zu held out, %d features (schema %d)\n", n, n_valid, n_flows,
                tr.n_rows, va.n_rows, M3_N_FEATURES, M3_FEATURE_SCHEMA);
        if (n_collapsed)
            fprintf(log, "left out: %zu collapsed scenarios (%zu paths; no PFC, median "
                    "foreground slowdown above %g)\n", n_collapsed, n_read - n, COLLAPSE_MEDIAN);
        rc = m3_fit_logged(log, &tr, &va, o, &m, err);
    }
    /* With fewer than calib_min calibration scenarios every shift stays 0:
     * a flow's residual is not independent of its fabric's other flows (in
     * a fabric whose PFC pauses spread, all lie far above the prediction),
     * so the sample behind a shift is the scenarios, not their flows, and
     * with a handful of them the upper quantiles' shifts are whichever
     * fabric stormed (docs/m3.md, "Calibration"). */
    double shift[M3_N_OUT][M3_N_Q] = {{0}};
    size_t n_cal = n_calib_scenarios(v, n, per);
    int is_folds = o->calib_folds > 1;
    char what[128];
    if (!rc && is_folds)
        fputc('\n', log);
    if (!rc && !is_folds && n_cal < o->calib_min)
        fprintf(log, "\nno calibration: %zu calibration scenarios (every twentieth), fewer than "
                "%u (--calib-min)\n", n_cal, o->calib_min);
    else if (!rc && !(rc = is_folds ? calibrate_folds(log, v, n, per, o, shift, err)
                                    : calibrate(m, v, n, per, PASS_CALIB, o->n_threads, shift,
                                                err))) {
        if (is_folds)
            snprintf(what, sizeof what, "out of fold, %u folds of the training scenarios",
                     o->calib_folds);
        else
            snprintf(what, sizeof what, "%zu calibration scenarios", n_cal);
        log_shifts(log, what, shift);
    }
    rc = rc ? rc : report(log, m, v, n, per, o->n_threads, shift, err);
    rc = rc ? rc : report_mixture(log, m, v, n, per, PASS_REPORT, "report scenarios'",
                                  o->n_threads, shift, err);
    if (!rc) {
        char meta[8192], sh[2048] = "";
        for (int b = 0; b < M3_N_OUT; b++)
            for (int q = 0; q < M3_N_Q; q++)
                snprintf(sh + strlen(sh), sizeof sh - strlen(sh), "%s%.6g",
                         b || q ? ", " : "", shift[b][q]);
        snprintf(meta, sizeof meta,
                 "{\"paths\": %zu, \"train_rows\": %zu, \"valid_rows\": %zu, \"trees\": %u, "
                 "\"depth\": %u, \"eta\": %g, \"loss\": \"pinball\",%s \"ccs\": \"%s\", "
                 "\"calibration\": \"mixture\", \"shift\": [%s], \"data\": \"%s\"}",
                 n, tr.n_rows, va.n_rows, o->n_trees, o->max_depth, o->eta,
                 o->leaf_refit ? " \"leaf_refit\": true," : "", ccs, sh, header);
        rc = m3_model_save(m, model_path, M3_FEATURE_SCHEMA, meta, err);
    }
    rc = m3_log_finish(&af, log, rc, err);
    m3_model_destroy(m);
    m3_dataset_fini(&tr), m3_dataset_fini(&va);
    free_fpaths(v, n);
    return rc;
}

/* The model's metadata with its shifts (and the data they came from)
 * replaced; NULL when out of memory. Free with free(). */
static char *recalibrated_meta(const m3_model *m, const double shift[M3_N_OUT][M3_N_Q],
                               const char *headers)
{
    json_t *meta = json_loads(m3_model_meta(m), 0, NULL), *a = json_array();
    if (!json_is_object(meta)) {
        json_decref(meta);
        meta = json_object();
    }
    for (int b = 0; b < M3_N_OUT; b++)
        for (int q = 0; q < M3_N_Q; q++)
            json_array_append_new(a, json_real(shift[b][q]));
    json_object_set_new(meta, "calibration", json_string("mixture"));
    json_object_set_new(meta, "shift", a);
    json_object_set_new(meta, "calibration_data", json_string(headers));
    char *text = json_dumps(meta, JSON_REAL_PRECISION(6));
    json_decref(meta);
    return text;
}

int m3_calibrate_fabric(const char *model_in, const char *const *dirs, int n_dirs,
                        const char *model_out, int n_threads, tl_err *err)
{
    m3_model *m = m3_model_load(model_in, M3_SCHEMA_OLDEST, M3_FEATURE_SCHEMA, err);
    if (!m)
        return err && err->code ? err->code : TL_EINVAL;
    if (m3_model_n_features(m) != M3_N_FEATURES) {
        m3_model_destroy(m);
        return tl_err_set(err, TL_EINVAL, "%s: expected a model of fabric paths (%d features), "
                          "found %u features", model_in, M3_N_FEATURES, m3_model_n_features(m));
    }
    json_t *meta = json_loads(m3_model_meta(m), 0, NULL);
    const char *listed = json_string_value(json_object_get(meta, "ccs"));
    char ccs[256];
    snprintf(ccs, sizeof ccs, "%s", listed ? listed : ""); /* "": trusted, as m3 reads it */
    json_decref(meta);
    char header[2048];
    m3_fpath *v = NULL;
    size_t n = 0, n_collapsed = 0;
    uint32_t per = 0;
    int rc = read_folders(dirs, n_dirs, &v, &n, &per, header, sizeof header, err);
    rc = rc ? rc : drop_collapsed(v, &n, per, &n_collapsed, err);
    for (size_t i = 0; i < n && !rc; i++)
        if (*ccs && !m3_cc_listed(ccs, v[i].cc))
            rc = tl_err_set(err, TL_EINVAL, "%s was trained on %s samples; the calibration "
                            "folders hold %s paths: calibrate it on samples of its own CCs",
                            model_in, ccs, v[i].cc);
    double shift[M3_N_OUT][M3_N_Q];
    rc = rc ? rc : calibrate(m, v, n, per, PASS_ALL, n_threads, shift, err);
    /* the log: the training log the model came with, then this step */
    char in_log[4200], out_log[4200], what[128];
    snprintf(in_log, sizeof in_log, "%s.log", model_in);
    snprintf(out_log, sizeof out_log, "%s.log", model_out);
    char *prev = rc ? NULL : tl_read_file(in_log, NULL, NULL), *text = NULL;
    tl_afile af;
    FILE *log = NULL;
    if (!rc && !(log = tl_afile_open(&af, out_log, err)))
        rc = err->code;
    if (!rc) {
        if (prev)
            fprintf(log, "%s\n", prev);
        fprintf(log, "recalibrated (tailor m3 calibrate) on %zu paths of these samples, the "
                     "trees unchanged: %s\n", n, header);
        if (n_collapsed)
            fprintf(log, "left out: %zu collapsed scenarios\n", n_collapsed);
        size_t n_scen = 0;
        for (size_t i = 0; i < n; i++)
            n_scen += i == 0 || v[i - 1].index / per != v[i].index / per;
        snprintf(what, sizeof what, "%zu scenarios", n_scen);
        log_shifts(log, what, shift);
        rc = report_mixture(log, m, v, n, per, PASS_ALL, "calibration scenarios' (fitted)",
                            n_threads, shift, err);
    }
    if (!rc && !(text = recalibrated_meta(m, shift, header)))
        rc = tl_err_nomem(err);
    rc = rc ? rc : m3_model_save(m, model_out, m3_model_schema(m), text, err);
    if (log)
        rc = m3_log_finish(&af, log, rc, err);
    free(text), free(prev);
    free_fpaths(v, n);
    m3_model_destroy(m);
    return rc;
}
