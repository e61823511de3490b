/* Training m3's model from DIR/samples.csv (m3.txt §3.4, §5.1): every
 * (sample, bucket, quantile) with enough foreground flows becomes one row
 * whose label is log(truth / reference), the reference being flowsim's
 * quantile at the busiest link; every tenth sample is held out; the log
 * reports the held-out p99 error per bucket next to flowsim's own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "m3train/m3train_int.h"
#include "tailor/fileio.h"
#include "tailor/quantile.h"

/* Samples are independent random draws, so every tenth one is a random 10%. */
static int is_valid_sample(uint64_t index) { return index % 10 == 9; }

static int usable(const m3_record *r, int b, int q)
{
    double fs = r->feat.fs_q[b][q], ref = r->feat.ref_q[b][q], t = r->truth[b][q];
    return r->n_truth[b] >= M3_MIN_TRUTH && fs > 0 && isfinite(fs) && ref > 0 && isfinite(ref) &&
           t > 0 && isfinite(t);
}

/* Reads every record of path into *out (caller frees). */
static int read_records(const char *path, m3_record **out, size_t *n, char *header, size_t hn,
                        tl_err *err)
{
    *out = NULL, *n = 0;
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    size_t cap = 1024;
    m3_record *v = malloc(cap * sizeof *v);
    if (!v) {
        tl_lines_close(&lr);
        return tl_err_nomem(err);
    }
    char *line;
    char want[64];
    snprintf(want, sizeof want, "# tailor m3 samples: schema %d,", M3_FEATURE_SCHEMA);
    while ((line = tl_lines_next(&lr))) {
        if (lr.line == 1) {
            if (strncmp(line, want, strlen(want))) {
                rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                               "expected a header \"%s ...\" (samples of feature schema %d), "
                               "found \"%.120s\": re-run `tailor m3 gen-data`",
                               want, M3_FEATURE_SCHEMA, line);
                break;
            }
            snprintf(header, hn, "%s", line);
            continue;
        }
        if (*n == cap) {
            m3_record *nv = realloc(v, 2 * cap * sizeof *nv);
            if (!nv) {
                rc = tl_err_nomem(err);
                break;
            }
            v = nv, cap *= 2;
        }
        if ((rc = m3_record_parse(line, path, lr.line, &v[*n], err)))
            break;
        (*n)++;
    }
    if (!rc && lr.line < 1)
        rc = tl_err_at(err, TL_EPARSE, path, 0, 0, NULL, "empty file: no header, no samples");
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);
    if (rc) {
        free(v);
        *n = 0;
        return rc;
    }
    *out = v;
    return 0;
}

static int add_rows(m3_dataset *d, const m3_record *r, tl_err *err)
{
    float row[M3_N_FEATURES];
    for (int b = 0; b < M3_N_OUT; b++)
        for (int q = 0; q < M3_N_Q; q++) {
            if (!usable(r, b, q))
                continue;
            m3_feat_row(&r->feat, b, q, row);
            int rc = m3_dataset_append(d, row, m3_label(r->truth[b][q], r->feat.ref_q[b][q]), err);
            if (rc)
                return rc;
        }
    return 0;
}

/* Held-out errors per bucket at p99 and over all quantiles, model vs flowsim. */
static int report(FILE *log, const m3_model *m, const m3_record *v, size_t n, int n_threads,
                  tl_err *err)
{
    int q99 = 0;
    while (m3_q[q99] < 0.99)
        q99++;
    fprintf(log, "\nheld-out samples: |relative error| of the p99 slowdown per output bucket\n");
    fprintf(log, "  %-8s %7s %22s %22s %14s %14s\n", "bucket", "samples", "model p99 mean/median",
            "flowsim p99 mean/med", "model all-q", "flowsim all-q");
    double *em = malloc((n + 1) * sizeof *em), *ef = malloc((n + 1) * sizeof *ef);
    if (!em || !ef) {
        free(em), free(ef);
        return tl_err_nomem(err);
    }
    float row[M3_N_FEATURES], y[M3_N_Q];
    int rc = 0;
    for (int b = 0; b < M3_N_OUT && !rc; b++) {
        size_t k = 0;
        double am = 0, af = 0, na = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            const m3_record *r = &v[i];
            if (!is_valid_sample(r->index) || !usable(r, b, q99))
                continue;
            float x[M3_N_Q * M3_N_FEATURES];
            for (int q = 0; q < M3_N_Q; q++) {
                m3_feat_row(&r->feat, b, q, row);
                memcpy(x + q * M3_N_FEATURES, row, sizeof row);
            }
            if ((rc = m3_model_predict(m, x, M3_N_Q, n_threads, y, err)))
                break;
            for (int q = 0; q < M3_N_Q; q++) {
                if (!usable(r, b, q))
                    continue;
                double t = r->truth[b][q], fs = r->feat.fs_q[b][q];
                am += fabs(r->feat.ref_q[b][q] * exp(y[q]) / t - 1);
                af += fabs(fs / t - 1);
                na++;
            }
            double t = r->truth[b][q99], fs = r->feat.fs_q[b][q99];
            em[k] = fabs(r->feat.ref_q[b][q99] * exp(y[q99]) / t - 1);
            ef[k++] = fabs(fs / t - 1);
        }
        double sm = 0, sf = 0;
        for (size_t i = 0; i < k; i++)
            sm += em[i], sf += ef[i];
        double half = 0.5, med_m, med_f; /* NaN when k == 0 */
        tl_quantiles(em, k, &half, &med_m, 1, NULL);
        tl_quantiles(ef, k, &half, &med_f, 1, NULL);
        fprintf(log, "  %-8s %7zu %10.1f%% / %6.1f%% %10.1f%% / %6.1f%% %13.1f%% %13.1f%%\n",
                tl_bucket_names[b], k, k ? 100 * sm / k : NAN, 100 * med_m,
                k ? 100 * sf / k : NAN, 100 * med_f, na ? 100 * am / na : NAN,
                na ? 100 * af / na : NAN);
    }
    free(em), free(ef);
    return rc;
}

int m3_train_dir(const char *dir, const char *model_path, const m3_train_opts *o, tl_err *err)
{
    char path[4096], log_path[4200], header[512] = "";
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    snprintf(log_path, sizeof log_path, "%s.log", model_path);
    m3_record *v = NULL;
    size_t n = 0;
    int rc = read_records(path, &v, &n, header, sizeof header, err);
    if (rc)
        return rc;
    m3_dataset tr, va;
    memset(&tr, 0, sizeof tr), memset(&va, 0, sizeof va);
    rc = m3_dataset_init(&tr, M3_N_FEATURES, err);
    rc = rc ? rc : m3_dataset_init(&va, M3_N_FEATURES, err);
    size_t n_valid = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        n_valid += is_valid_sample(v[i].index);
        rc = add_rows(is_valid_sample(v[i].index) ? &va : &tr, &v[i], err);
    }
    if (!rc && (!tr.n_rows || !va.n_rows))
        rc = tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                       "%zu samples give %zu training and %zu held-out rows; both must be > 0 "
                       "(make more samples)", n, tr.n_rows, va.n_rows);
    tl_afile af;
    FILE *log = NULL;
    m3_model *m = NULL;
    if (!rc && !(log = tl_afile_open(&af, log_path, err)))
        rc = err->code;
    if (!rc) {
        fprintf(log, "m3 model training log (tailor m3 train)\n%s\n", header + 2);
        fprintf(log, "samples %zu (held out %zu), rows %zu training, %zu held out, %d features "
                "(schema %d)\n", n, n_valid, tr.n_rows, va.n_rows, M3_N_FEATURES,
                M3_FEATURE_SCHEMA);
        rc = m3_fit_logged(log, &tr, &va, o, &m, err);
    }
    rc = rc ? rc : report(log, m, v, n, o->n_threads, err);
    if (!rc) {
        char meta[1024];
        char ccs[256] = "";
        for (size_t i = 0; i < n; i++)
            m3_cc_add(ccs, sizeof ccs, v[i].cc);
        snprintf(meta, sizeof meta,
                 "{\"samples\": %zu, \"train_rows\": %zu, \"valid_rows\": %zu, \"trees\": %u, "
                 "\"depth\": %u, \"eta\": %g, \"ccs\": \"%s\", \"data\": \"%s\"}",
                 n, tr.n_rows, va.n_rows, o->n_trees, o->max_depth, o->eta, ccs, header + 2);
        rc = m3_model_save(m, model_path, M3_FEATURE_SCHEMA, meta, err);
    }
    rc = m3_log_finish(&af, log, rc, err);
    m3_model_destroy(m);
    m3_dataset_fini(&tr), m3_dataset_fini(&va);
    free(v);
    return rc;
}
