/* The m3 engine (m3.txt §3): decompose the network into paths, draw k of
 * them, featurize each drawn path with flowsim, correct flowsim's quantiles
 * at the path's busiest link with the learned model, and mix the corrected
 * distributions into network-wide ones. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "m3/m3_int.h"
#include "m3/model.h"
#include "tailor/fanout.h"
#include "tailor/fileio.h"
#include "tailor/m3.h"
#include "tailor/rng.h"
#include "tailor/time.h"

struct tl_m3 {
    const tl_topo *t;
    const tl_routes *r;
    const tl_flows *f;
    const tl_params *p;
    char cc[32];
    uint64_t seed;
    tl_m3_opts o;
    m3_model *model; /* NULL with is_no_model */
    char model_path[4096]; /* the file it was read from (a run names it) */
    double shift[M3_N_OUT][M3_N_Q]; /* the model's calibration (metadata "shift"), or 0 */

    m3_paths g;
    uint32_t n_sel;    /* distinct drawn paths */
    uint32_t *sel;     /* (n_sel) their ids */
    uint32_t *draws;   /* (n_sel) how often each was drawn */
    m3_pathwl *wl;     /* (n_sel) flows freed after featurizing unless
                        * is_keep_workloads (a sweep may re-run flowsim) */
    m3_feat *feat;     /* (n_sel) */
    m3_refkeep *keep;  /* (n_sel) with is_keep_reference: a Kmin repredict
                        * re-queues these instead of re-running flowsim */
    double (*pred)[M3_N_OUT][M3_N_Q]; /* (n_sel) corrected quantiles */
    double (*truth)[M3_N_OUT][M3_N_Q]; /* (n_sel) path pktsim's, with is_path_pktsim */
    int is_run;
    tl_slowdown_stats all[TL_N_BUCKETS]; /* the network-wide estimate */
    tl_m3_stats st;
};

void tl_m3_opts_default(tl_m3_opts *o)
{
    memset(o, 0, sizeof *o);
    o->n_paths = 500;
    o->model_path = NULL;
    o->is_no_model = 0;
    o->is_path_pktsim = 0;
    o->is_keep_workloads = 0;
    o->is_keep_reference = 0;
    o->n_threads = 0;
}

int m3_cc_listed(const char *list, const char *cc)
{
    size_t n = strlen(cc);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, cc, n))
            return 1;
        p += len + (end != NULL);
    }
    return 0;
}

/* What the model's metadata says about its use: the congestion controls of
 * its samples ("ccs"; the scenario's must be among them, a model without
 * the key is trusted) and, for a fabric-trained model, its calibration
 * shifts ("shift", 48 numbers; zeros without). */
static int read_meta(const m3_model *m, const char *file, const char *cc,
                     double shift[M3_N_OUT][M3_N_Q], tl_err *err)
{
    memset(shift, 0, sizeof(double) * M3_N_OUT * M3_N_Q);
    json_error_t je;
    json_t *meta = json_loads(m3_model_meta(m), 0, &je);
    /* metadata that is not JSON (or none) says nothing; running out of
     * memory must not drop the calibration shifts */
    if (!meta && json_error_code(&je) == json_error_out_of_memory)
        return tl_err_nomem(err);
    const char *ccs = json_string_value(json_object_get(meta, "ccs"));
    json_t *a = json_object_get(meta, "shift");
    int rc = 0;
    if (ccs && !m3_cc_listed(ccs, cc))
        rc = tl_err_set(err, TL_EINVAL,
                        "%s: this model was trained on %s samples only and the scenario uses %s: "
                        "make samples with it (`tailor m3 gen-data DIR --cc %s`, or without --cc "
                        "for all), train on them, or run with --no-model",
                        file, ccs, cc, cc);
    else if (a && (!json_is_array(a) || json_array_size(a) != M3_N_OUT * M3_N_Q))
        rc = tl_err_set(err, TL_EPARSE, "%s: metadata \"shift\" must hold %d numbers", file,
                        M3_N_OUT * M3_N_Q);
    for (size_t i = 0; a && !rc && i < json_array_size(a); i++) {
        json_t *x = json_array_get(a, i);
        if (!json_is_number(x))
            rc = tl_err_set(err, TL_EPARSE, "%s: metadata \"shift\"[%zu] is not a number", file,
                            i);
        else
            shift[i / M3_N_Q][i % M3_N_Q] = json_number_value(x);
    }
    json_decref(meta);
    return rc;
}

tl_m3 *tl_m3_create(const tl_topo *t, const tl_routes *r, const tl_flows *f, const tl_params *p,
                    const char *cc, uint64_t seed, const tl_m3_opts *o, tl_err *err)
{
    if (!o->n_paths) {
        tl_err_set(err, TL_ERANGE, "m3: the number of sampled paths must be > 0");
        return NULL;
    }
    tl_m3 *s = calloc(1, sizeof *s);
    if (!s) {
        tl_err_nomem(err);
        return NULL;
    }
    s->t = t, s->r = r, s->f = f, s->p = p, s->seed = seed, s->o = *o;
    snprintf(s->cc, sizeof s->cc, "%s", cc);
    if (!o->is_no_model && !o->is_path_pktsim) {
        char path[4096];
        const char *mp = o->model_path;
        if (!mp) {
            /* a model of the scenario's own congestion control if one ships
             * (data/models/m3-CC.model), else the default model */
            char rel[64];
            snprintf(rel, sizeof rel, "models/m3-%s.model", cc);
            if (tl_data_path(rel, path, sizeof path, NULL) &&
                tl_data_path("models/m3.model", path, sizeof path, err)) {
                tl_m3_destroy(s);
                return NULL;
            }
            mp = path;
        }
        if (!(s->model = m3_model_load(mp, M3_SCHEMA_OLDEST, M3_FEATURE_SCHEMA, err))) {
            tl_m3_destroy(s);
            return NULL;
        }
        if (read_meta(s->model, mp, cc, s->shift, err)) {
            tl_m3_destroy(s);
            return NULL;
        }
        /* after the CC check, whose error says more to someone who took
         * another CC's model */
        if (m3_model_schema(s->model) < m3_schema_first(cc)) {
            tl_err_set(err, TL_EINVAL, "%s: the model was trained on feature schema %u, and %s's "
                       "features have changed since (this build's are of schema %u); re-train "
                       "it with `tailor m3 train`", mp, m3_model_schema(s->model), cc,
                       M3_FEATURE_SCHEMA);
            tl_m3_destroy(s);
            return NULL;
        }
        snprintf(s->model_path, sizeof s->model_path, "%s", mp);
        if (m3_model_n_features(s->model) != M3_N_FEATURES) {
            tl_err_set(err, TL_EPARSE, "%s: the model reads %u features, this build makes %d "
                       "(re-train with `tailor m3 train`)", mp, m3_model_n_features(s->model),
                       M3_N_FEATURES);
            tl_m3_destroy(s);
            return NULL;
        }
    }
    return s;
}

void tl_m3_destroy(tl_m3 *s)
{
    if (!s)
        return;
    m3_model_destroy(s->model);
    m3_paths_fini(&s->g);
    for (uint32_t k = 0; s->wl && k < s->n_sel; k++)
        m3_pathwl_fini(&s->wl[k]);
    for (uint32_t k = 0; s->keep && k < s->n_sel; k++)
        m3_refkeep_fini(&s->keep[k]);
    free(s->keep), free(s->wl), free(s->sel), free(s->draws), free(s->feat), free(s->pred);
    free(s->truth);
    free(s);
}

static int aggregate(tl_m3 *s, tl_err *err);

static int n_threads_of(const tl_m3 *s)
{
    return s->o.n_threads > 0 ? s->o.n_threads : omp_get_max_threads();
}

/* Path k's workload (when new), features and, with is_path_pktsim, truth. */
typedef struct featurize_ctx {
    tl_m3 *s;
    int is_new_workloads;
} featurize_ctx;

static int featurize_path(void *ctx, size_t job_idx, void *local, tl_err *err)
{
    const featurize_ctx *c = ctx;
    tl_m3 *s = c->s;
    uint32_t k = (uint32_t)job_idx;
    int rc = 0;
    if (c->is_new_workloads)
        rc = m3_paths_workload(&s->g, s->t, s->sel[k], &s->wl[k], err);
    rc = rc ? rc : m3_features_keep(&s->wl[k], s->p, s->cc, &s->feat[k],
                                    s->keep ? &s->keep[k] : NULL, err);
    if (!rc && s->truth) {
        uint32_t n_out[M3_N_OUT];
        rc = m3_path_pktsim(&s->wl[k], s->p, s->cc, tl_mix64(s->seed ^ s->sel[k]), s->truth[k],
                            n_out, NULL, err);
    }
    if (!s->o.is_keep_workloads) /* 2M flows: 500 x 145k flows otherwise */
        m3_pathwl_release(&s->wl[k]);
    return rc;
}

/* What path k's job leaves, for the other MPI ranks: the workload's
 * counts and links (its flows are released), the features and the truth. */
static int pack_path(void *ctx, size_t job_idx, tl_wbuf *out, tl_err *err)
{
    const tl_m3 *s = ((const featurize_ctx *)ctx)->s;
    int rc = tl_wbuf_put(out, &s->wl[job_idx], sizeof s->wl[job_idx], err);
    rc = rc ? rc : tl_wbuf_put(out, &s->feat[job_idx], sizeof s->feat[job_idx], err);
    if (!rc && s->truth)
        rc = tl_wbuf_put(out, s->truth[job_idx], sizeof s->truth[job_idx], err);
    return rc;
}

static int unpack_path(void *ctx, size_t job_idx, tl_rbuf *in, tl_err *err)
{
    tl_m3 *s = ((featurize_ctx *)ctx)->s;
    m3_pathwl *w = &s->wl[job_idx];
    int rc = tl_rbuf_get(in, w, sizeof *w, err);
    w->flow = NULL, w->is_fg = NULL, w->src_key = w->dst_key = NULL, w->cap = 0;
    rc = rc ? rc : tl_rbuf_get(in, &s->feat[job_idx], sizeof s->feat[job_idx], err);
    if (!rc && s->truth)
        rc = tl_rbuf_get(in, s->truth[job_idx], sizeof s->truth[job_idx], err);
    return rc;
}

/* Workloads and features of every drawn path, in parallel; results land in
 * per-path slots, so they do not depend on the thread count. Over MPI
 * ranks too, unless the workloads or references are kept for a sweep's
 * repredict (they stay on the rank that built them). */
static int featurize(tl_m3 *s, int is_new_workloads, tl_progress *prog, tl_err *err)
{
    featurize_ctx c = {s, is_new_workloads};
    int is_kept = s->o.is_keep_workloads || s->keep;
    /* the model and the drawn paths must be the same on every rank */
    uint64_t check = s->model ? m3_model_crc(s->model) : 0;
    for (uint32_t k = 0; k < s->n_sel; k++)
        check = tl_mix64(check ^ s->sel[k]);
    tl_fanout fo = {.n_jobs = s->n_sel, .n_threads = n_threads_of(s), .run = featurize_path,
                    .ctx = &c, .prog = prog, .phase = "m3 paths", .unit = "paths",
                    .dist = is_kept ? NULL : s->o.dist, .pack = pack_path,
                    .unpack = unpack_path, .check = check};
    return tl_fanout_run(&fo, NULL, err);
}

/* Corrected quantiles: the reference times exp(model), made non-decreasing
 * in q and at least 1; flowsim's foreground quantiles with is_no_model,
 * path pktsim's with is_path_pktsim. */
static int predict(tl_m3 *s, tl_err *err)
{
    uint32_t n = s->n_sel;
    size_t rows = 0;
    for (uint32_t k = 0; k < n; k++)
        for (int b = 0; b < M3_N_OUT; b++)
            rows += s->feat[k].n_fg[b] ? M3_N_Q : 0;
    float *x = NULL, *y = NULL;
    if (s->model && rows) {
        x = malloc(rows * M3_N_FEATURES * sizeof *x);
        y = malloc(rows * sizeof *y);
        if (!x || !y) {
            free(x), free(y);
            return tl_err_nomem(err);
        }
        size_t i = 0;
        for (uint32_t k = 0; k < n; k++)
            for (int b = 0; b < M3_N_OUT; b++)
                for (int q = 0; s->feat[k].n_fg[b] && q < M3_N_Q; q++)
                    m3_feat_row(&s->feat[k], b, q, x + M3_N_FEATURES * i++);
        int rc = m3_model_predict(s->model, x, rows, n_threads_of(s), y, err);
        if (rc) {
            free(x), free(y);
            return rc;
        }
    }
    size_t i = 0;
    for (uint32_t k = 0; k < n; k++)
        for (int b = 0; b < M3_N_OUT; b++) {
            double *v = s->pred[k][b];
            for (int q = 0; q < M3_N_Q; q++)
                v[q] = !s->feat[k].n_fg[b] ? NAN
                       : s->truth          ? s->truth[k][b][q]
                       : s->model ? s->feat[k].ref_q[b][q] * exp((double)y[i++] + s->shift[b][q])
                                  : s->feat[k].fs_q[b][q];
            if (s->feat[k].n_fg[b])
                m3_comp_fix(v);
        }
    free(x), free(y);
    return 0;
}

int tl_m3_run(tl_m3 *s, tl_progress *prog, tl_err *err)
{
    if (s->is_run)
        return tl_err_set(err, TL_EINVAL, "m3: run called twice");
    double t0 = tl_wall_s();
    int rc = m3_paths_build(&s->g, s->r, s->f, (uint32_t)tl_knob(s->p, TL_K_NIC_MTU_BYTES), err);
    rc = rc ? rc : m3_paths_sample(&s->g, s->o.n_paths, s->seed, &s->sel, &s->draws, &s->n_sel,
                                   err);
    if (rc)
        return rc;
    s->st.n_paths_total = s->g.n_paths;
    s->st.n_paths_unique = s->n_sel;
    s->wl = calloc((size_t)s->n_sel + 1, sizeof *s->wl);
    s->feat = calloc((size_t)s->n_sel + 1, sizeof *s->feat);
    s->pred = calloc((size_t)s->n_sel + 1, sizeof *s->pred);
    if (s->o.is_path_pktsim && !(s->truth = calloc((size_t)s->n_sel + 1, sizeof *s->truth)))
        return tl_err_nomem(err);
    if (s->o.is_keep_reference && !(s->keep = calloc((size_t)s->n_sel + 1, sizeof *s->keep)))
        return tl_err_nomem(err);
    if (!s->wl || !s->feat || !s->pred)
        return tl_err_nomem(err);
    double t1 = tl_wall_s();
    s->st.decompose_s = t1 - t0;
    if ((rc = featurize(s, 1, prog, err)))
        return rc;
    for (uint32_t k = 0; k < s->n_sel; k++) {
        s->st.n_path_flows += s->wl[k].n_flows;
        s->st.n_path_fg += s->wl[k].n_fg;
        if (s->wl[k].n_flows > s->st.max_path_flows)
            s->st.max_path_flows = s->wl[k].n_flows;
    }
    double t2 = tl_wall_s();
    s->st.features_s = t2 - t1;
    if ((rc = predict(s, err)))
        return rc;
    s->st.predict_s = tl_wall_s() - t2;
    if ((rc = aggregate(s, err)))
        return rc;
    s->is_run = 1;
    return 0;
}

int tl_m3_knob_changes_features(const char *name, const char *cc)
{
    return m3_knob_changes_features(name, cc);
}

int tl_m3_knob_changes_reference(const char *name, const char *cc)
{
    return m3_knob_changes_reference(name, cc);
}

int tl_m3_knob_is_read(const char *name, const char *cc) { return m3_knob_is_read(name, cc); }

/* Whether every training folder of a model forced PFC one way: its
 * metadata's "data" holds each folder's header, "; "-separated, which
 * says ", pfc on" or ", pfc off" when gen-data --pfc forced it (drawn
 * otherwise). 1: all lossless, 0: all lossy, -1: both or unknown. */
static int model_pfc(const char *data)
{
    int n = 0, on = 0, off = 0;
    for (const char *h = data; h && *h; n++) {
        const char *end = strstr(h, "; ");
        size_t len = end ? (size_t)(end - h) : strlen(h);
        for (const char *q = h; (q = strstr(q, ", pfc o")) && q < h + len; q++)
            on += !strncmp(q, ", pfc on", 8), off += !strncmp(q, ", pfc off", 9);
        h = end ? end + 2 : h + len;
    }
    return n > 0 && on == n ? 1 : n > 0 && off == n ? 0 : -1;
}

int tl_m3_model_untrained(const char *file, const tl_params *p, char *why, size_t n)
{
    m3_model *m = m3_model_load(file, M3_SCHEMA_OLDEST, M3_FEATURE_SCHEMA, NULL);
    if (!m)
        return 0;
    json_t *meta = json_loads(m3_model_meta(m), 0, NULL);
    int pfc = model_pfc(json_string_value(json_object_get(meta, "data")));
    json_decref(meta);
    m3_model_destroy(m);
    int is_pfc = tl_knob(p, TL_K_SW_PFC) != 0;
    if (pfc < 0 || pfc == is_pfc)
        return 0;
    snprintf(why, n, "%s was trained on %s fabrics only (switch.pfc %d); switch.pfc %d here",
             file, pfc ? "lossless" : "lossy", pfc, is_pfc);
    return 1;
}

int tl_m3_repredict(tl_m3 *s, const tl_params *p, const char *cc, tl_err *err)
{
    if (!s->is_run)
        return tl_err_set(err, TL_EINVAL, "m3: repredict before run");
    int is_refeaturize = 0;
    for (size_t i = 0; i < tl_params_count(); i++) {
        const char *name = tl_params_def(i)->name;
        if (m3_knob_changes_features(name, cc) && tl_params_get(p, name) != tl_params_get(s->p, name))
            is_refeaturize = 1;
    }
    double q_ps = m3_queue_ps(p, cc);
    int is_requeue = q_ps != m3_queue_ps(s->p, s->cc);
    s->p = p;
    snprintf(s->cc, sizeof s->cc, "%s", cc);
    double t0 = tl_wall_s();
    int rc = 0;
    if ((is_refeaturize || s->truth) && !s->o.is_keep_workloads)
        return tl_err_set(err, TL_EINVAL, "m3: this knob changes the features or pktsim's "
                                          "input and the path workloads were not kept "
                                          "(is_keep_workloads)");
    if (!is_refeaturize && !s->truth && is_requeue && !s->keep)
        return tl_err_set(err, TL_EINVAL, "m3: this knob changes the reference's queue term "
                                          "(Kmin, DCQCN's Kmax) and the reference was not kept "
                                          "(is_keep_reference)");
    if (is_refeaturize || s->truth) /* path pktsim reads every knob */
        rc = featurize(s, 0, NULL, err);
    else
        for (uint32_t k = 0; k < s->n_sel && !rc; k++) {
            if (is_requeue)
                rc = m3_feat_requeue(&s->feat[k], &s->keep[k], q_ps, err);
            m3_features_config(&s->wl[k], p, cc, &s->feat[k]);
        }
    if (rc)
        return rc;
    if ((rc = predict(s, err)))
        return rc;
    s->st.predict_s = tl_wall_s() - t0;
    return aggregate(s, err);
}

/* Network-wide statistics per bucket from the drawn paths' distributions.
 * A path drawn d times, with n of its N foreground flows in bucket b, gets
 * weight d n / N in b's mixture: draws are proportional to N, so the weight
 * is proportional to the path's flows in b (m3's code pools every path with
 * flows in b equally). The overall mixture then scales each bucket to its
 * exact share of the workload's flows (known without sampling). */
static int aggregate(tl_m3 *s, tl_err *err)
{
    double t0 = tl_wall_s();
    tl_slowdown_stats *out = s->all;
    memset(out, 0, sizeof s->all);
    m3_comp *c = malloc(((size_t)s->n_sel * M3_N_OUT + 1) * sizeof *c);
    if (!c)
        return tl_err_nomem(err);
    for (size_t i = 0; i < s->f->n; i++)
        out[tl_bucket_of(s->f->v[i].size_bytes)].count++;
    out[TL_N_BUCKETS - 1].count = s->f->n;
    double bw[M3_N_OUT] = {0};
    size_t n = 0, from[M3_N_OUT + 1];
    for (int b = 0; b < M3_N_OUT; b++) {
        size_t first = from[b] = n;
        for (uint32_t k = 0; k < s->n_sel; k++) {
            const m3_feat *ft = &s->feat[k];
            uint32_t nf = 0;
            for (int bb = 0; bb < M3_N_OUT; bb++)
                nf += ft->n_fg[bb];
            if (!ft->n_fg[b])
                continue;
            c[n].w = (double)s->draws[k] * ft->n_fg[b] / nf;
            memcpy(c[n].q, s->pred[k][b], sizeof c[n].q);
            bw[b] += c[n].w;
            n++;
        }
        from[b + 1] = n;
        m3_mixture(c + first, n - first, &out[b].mean, out[b].p);
        if (!out[b].count) { /* no flow of this size in the workload */
            out[b].mean = NAN;
            for (int p = 0; p < TL_N_PCTS; p++)
                out[b].p[p] = NAN;
        }
    }
    /* rescale: bucket b's components weigh its share of all flows */
    for (int b = 0; b < M3_N_OUT; b++) {
        double scale = bw[b] > 0 ? (double)out[b].count / bw[b] : 0;
        for (size_t j = from[b]; j < from[b + 1]; j++)
            c[j].w *= scale;
    }
    m3_mixture(c, n, &out[TL_N_BUCKETS - 1].mean, out[TL_N_BUCKETS - 1].p);
    free(c);
    s->st.aggregate_s = tl_wall_s() - t0;
    return 0;
}

int tl_m3_summary(const tl_m3 *s, tl_summary *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    if (!s->is_run)
        return tl_err_set(err, TL_EINVAL, "m3: summary before run");
    snprintf(out->engine, sizeof out->engine, "m3");
    memcpy(out->all, s->all, sizeof out->all);
    return 0;
}

int tl_m3_write_paths(const tl_m3 *s, const char *path, tl_err *err)
{
    if (!s->is_run)
        return tl_err_set(err, TL_EINVAL, "m3: paths before run");
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f)
        return err && err->code ? err->code : TL_EIO;
    int q99 = 0;
    while (m3_q[q99] < 0.99)
        q99++;
    fprintf(f, "path,draws,hops,flows,fg_flows,load_max,load_first,load_last");
    for (int b = 0; b < M3_N_OUT; b++)
        fprintf(f, ",fg_%s,flowsim_p99_%s,ref_p99_%s,est_p99_%s", tl_bucket_names[b],
                tl_bucket_names[b], tl_bucket_names[b], tl_bucket_names[b]);
    fputc('\n', f);
    for (uint32_t k = 0; k < s->n_sel; k++) {
        const m3_feat *ft = &s->feat[k];
        fprintf(f, "%u,%u,%d,%zu,%zu,%.4g,%.4g,%.4g", s->sel[k], s->draws[k], s->wl[k].n_links,
                s->wl[k].n_flows, s->wl[k].n_fg, m3_feat_load(ft, 0), m3_feat_load(ft, 1),
                m3_feat_load(ft, 2));
        for (int b = 0; b < M3_N_OUT; b++)
            fprintf(f, ",%u,%.6g,%.6g,%.6g", ft->n_fg[b], ft->fs_q[b][q99], ft->ref_q[b][q99],
                    s->pred[k][b][q99]);
        fputc('\n', f);
    }
    return tl_afile_commit(&af, err);
}

void tl_m3_get_stats(const tl_m3 *s, tl_m3_stats *st)
{
    *st = s->st;
    st->model_path = s->model ? s->model_path : NULL;
    st->model_crc = s->model ? m3_model_crc(s->model) : 0;
}
