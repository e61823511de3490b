/* The learned model of m3 (m3.txt §3.4) on the XGBoost C API instead of the paper's
 * transformer + MLP (DESIGN.md's dependency table): datasets, training, the model
 * file (a 64-byte header, metadata text, XGBoost's UBJSON bytes; docs/m3.md) and
 * prediction. Every XGBoost call is checked; its message becomes a tl_err. */
#include "m3/model.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <xgboost/c_api.h>

#include "tailor/fileio.h"

#define MODEL_MAGIC "TLM3MODL"
#define MODEL_VERSION 1u
#define MODEL_HEADER_BYTES 64u
/* Rounds between two log lines of m3_model_train. */
#define LOG_EVERY 50u

struct m3_model {
    BoosterHandle booster;
    uint32_t n_features;
    uint32_t schema; /* of a loaded file; 0 for a model trained here */
    uint32_t crc;    /* of a loaded file (its header's checksum); 0 for a model trained here */
    char *meta; /* owned; NULL for "" */
};

/* ======================== datasets ======================== */

int m3_dataset_init(m3_dataset *d, uint32_t n_features, tl_err *err)
{
    memset(d, 0, sizeof *d);
    if (n_features == 0)
        return tl_err_set(err, TL_EINVAL, "a dataset needs at least one feature");
    d->n_features = n_features;
    return 0;
}

static int append(m3_dataset *d, const float *row, float label, int has_q, float q, tl_err *err)
{
    if (d->n_rows && has_q != (d->q != NULL))
        return tl_err_set(err, TL_EINVAL, "a dataset's rows all have a target quantile or none");
    if (d->n_rows == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1024, x_bytes, y_bytes;
        if (__builtin_mul_overflow(cap, (size_t)d->n_features * sizeof(float), &x_bytes) ||
            __builtin_mul_overflow(cap, sizeof(float), &y_bytes))
            return tl_err_nomem(err);
        float *x = realloc(d->x, x_bytes);
        if (!x)
            return tl_err_nomem(err);
        d->x = x;
        float *y = realloc(d->y, y_bytes);
        if (!y)
            return tl_err_nomem(err);
        d->y = y;
        if (has_q) {
            float *qs = realloc(d->q, y_bytes);
            if (!qs)
                return tl_err_nomem(err);
            d->q = qs;
        }
        d->cap = cap;
    }
    memcpy(d->x + d->n_rows * d->n_features, row, d->n_features * sizeof(float));
    if (has_q)
        d->q[d->n_rows] = q;
    d->y[d->n_rows++] = label;
    return 0;
}

int m3_dataset_append(m3_dataset *d, const float *row, float label, tl_err *err)
{
    return append(d, row, label, 0, 0, err);
}

int m3_dataset_append_q(m3_dataset *d, const float *row, float label, float q, tl_err *err)
{
    if (!(q > 0 && q < 1))
        return tl_err_set(err, TL_ERANGE, "a target quantile must be in (0, 1), found %g", q);
    return append(d, row, label, 1, q, err);
}

void m3_dataset_fini(m3_dataset *d)
{
    free(d->x);
    free(d->y);
    free(d->q);
    uint32_t n_features = d->n_features;
    memset(d, 0, sizeof *d);
    d->n_features = n_features;
}

/* ======================== XGBoost glue ======================== */

/* Turns XGBGetLastError() into err. XGBoost's text reads "[hh:mm:ss]
 * ./src/x.cc:123: message", then caret lines under a JSON error and a stack
 * trace; only the message is for the user. file may be NULL. Returns code. */
static int xgb_fail(tl_err *err, int code, const char *file, const char *what)
{
    const char *s = XGBGetLastError();
    const char *p;
    if (s[0] == '[' && (p = strstr(s, "] ")))
        s = p + 2;
    if ((p = strstr(s, ": ")) && strcspn(s, " \n") > (size_t)(p - s))
        s = p + 2; /* "./src/x.cc:123" holds no space; "Check failed" does */
    int n = (int)strcspn(s, "\n");
    return tl_err_at(err, code, file, 0, 0, NULL, "%s: XGBoost: %.*s", what, n, s);
}

static int set_param(BoosterHandle b, const char *name, const char *value, tl_err *err)
{
    if (XGBoosterSetParam(b, name, value) != 0)
        return xgb_fail(err, TL_EINVAL, NULL, name);
    return 0;
}

/* The library never prints (STYLE.md): verbosity 0 keeps XGBoost's warnings off
 * stderr. XGBoost applies it to its per-thread logger, so it also silences
 * other boosters used on this thread; errors still come back through the API. */
static BoosterHandle booster_create(const DMatrixHandle *dmats, bst_ulong n, tl_err *err)
{
    BoosterHandle b = NULL;
    if (XGBoosterCreate(dmats, n, &b) != 0) {
        xgb_fail(err, TL_ENOMEM, NULL, "creating a booster");
        return NULL;
    }
    if (set_param(b, "verbosity", "0", err) != 0) {
        XGBoosterFree(b);
        return NULL;
    }
    return b;
}

static DMatrixHandle dmatrix_create(const m3_dataset *d, int n_threads, tl_err *err)
{
    DMatrixHandle dm = NULL;
    if (XGDMatrixCreateFromMat_omp(d->x, d->n_rows, d->n_features, NAN, &dm, n_threads) != 0) {
        xgb_fail(err, TL_EINVAL, NULL, "building the feature matrix");
        return NULL;
    }
    if (XGDMatrixSetFloatInfo(dm, "label", d->y, d->n_rows) != 0) {
        xgb_fail(err, TL_EINVAL, NULL, "setting the labels");
        XGDMatrixFree(dm);
        return NULL;
    }
    return dm;
}

/* ======================== training ======================== */

void m3_train_opts_default(m3_train_opts *o)
{
    *o = (m3_train_opts){.n_trees = 400,
                         .max_depth = 8,
                         .eta = 0.05,
                         .subsample = 0.8,
                         .colsample = 0.8,
                         .min_child_weight = 5,
                         .n_threads = 0,
                         .seed = 0,
                         .calib_min = 50,
                         .calib_folds = 0,
                         .leaf_refit = 0};
}

static int check_frac(double v, const char *name, tl_err *err)
{
    if (!(v > 0 && v <= 1))
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, name, "expected a number in (0, 1], found %g",
                         v);
    return 0;
}

static int check_opts(const m3_train_opts *o, tl_err *err)
{
    if (o->n_trees < 1 || o->n_trees > M3_MAX_TREES)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "n_trees", "expected 1..%u, found %u",
                         M3_MAX_TREES, o->n_trees);
    if (o->max_depth < 1 || o->max_depth > 32)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "max_depth", "expected 1..32, found %u",
                         o->max_depth);
    if (check_frac(o->eta, "eta", err) || check_frac(o->subsample, "subsample", err) ||
        check_frac(o->colsample, "colsample", err))
        return TL_ERANGE;
    if (!(o->min_child_weight >= 0 && isfinite(o->min_child_weight)))
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "min_child_weight",
                         "expected a finite number >= 0, found %g", o->min_child_weight);
    if (o->n_threads < 0)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "n_threads", "expected >= 0, found %d",
                         o->n_threads);
    return 0;
}

static int set_train_params(BoosterHandle b, const m3_train_opts *o, tl_err *err)
{
    char v[7][32];
    snprintf(v[0], sizeof v[0], "%d", o->n_threads);
    /* XGBoost's seed is an int64, hence mod 2^63. 1.7 seeds its per-thread
     * mt19937 with it, so only the low 32 bits change the model. */
    snprintf(v[1], sizeof v[1], "%" PRId64, (int64_t)(o->seed & INT64_MAX));
    snprintf(v[2], sizeof v[2], "%u", o->max_depth);
    snprintf(v[3], sizeof v[3], "%.17g", o->eta);
    snprintf(v[4], sizeof v[4], "%.17g", o->subsample);
    snprintf(v[5], sizeof v[5], "%.17g", o->colsample);
    snprintf(v[6], sizeof v[6], "%.17g", o->min_child_weight);
    const char *params[][2] = {
        {"nthread", v[0]},
        {"seed", v[1]},
        {"objective", "reg:squarederror"},
        {"eval_metric", "rmse"},
        {"tree_method", "hist"},
        {"max_depth", v[2]},
        {"eta", v[3]},
        {"subsample", v[4]},
        {"colsample_bytree", v[5]},
        {"min_child_weight", v[6]},
    };
    for (size_t i = 0; i < sizeof params / sizeof *params; i++) {
        int rc = set_param(b, params[i][0], params[i][1], err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Mean pinball loss of predictions pred against d's labels at d's quantiles. */
static double pinball_loss(const m3_dataset *d, const float *pred)
{
    double s = 0;
    for (size_t i = 0; i < d->n_rows; i++) {
        double r = (double)d->y[i] - (double)pred[i], q = d->q[i];
        s += r >= 0 ? q * r : (q - 1) * r;
    }
    return d->n_rows ? s / (double)d->n_rows : 0;
}

/* The k-th smallest (0-based) of v[0..n-1], which it reorders: Hoare's
 * selection with the middle element as pivot, O(n) expected. */
static float select_kth(float *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float p = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                float t = v[i];
                v[i] = v[j], v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The leaf ids (node ids, as XGBoost numbers them) of dm's n rows in the
 * one-tree booster one, into ids. XGBoost 1.7 predicts leaves only from the
 * first tree on, so the caller slices the tree out into a booster of its own. */
static int leaf_ids(BoosterHandle one, DMatrixHandle dm, size_t n, float *ids, tl_err *err)
{
    const char *cfg = "{\"type\": 6, \"training\": false, \"iteration_begin\": 0, "
                      "\"iteration_end\": 0, \"strict_shape\": false}";
    const bst_ulong *shape = NULL;
    bst_ulong dim = 0;
    const float *out = NULL;
    if (XGBoosterPredictFromDMatrix(one, dm, cfg, &shape, &dim, &out) != 0)
        return xgb_fail(err, TL_EINVAL, NULL, "m3 train: leaf ids");
    size_t total = 1;
    for (bst_ulong i = 0; i < dim; i++)
        total *= shape[i];
    if (total != n)
        return tl_err_set(err, TL_EINVAL, "m3 train: %zu leaf ids for %zu rows", total, n);
    memcpy(ids, out, n * sizeof *ids);
    return 0;
}

/* Scratch of refit_tree, grown as trees need: rows per node, residuals by node. */
typedef struct refit_buf {
    uint32_t *cnt, *start;
    float *res;
    double *qsum;
    size_t n_nodes;
} refit_buf;

/* Leaf values of one tree refitted to the pinball loss: a leaf's rows
 * (residuals r_i = label - margin, quantiles q_i) are best served by the
 * value v that minimizes sum_i rho_{q_i}(r_i - v), whose subgradient after
 * the k smallest residuals is k - sum_i q_i: v is the ceil(sum q_i)-th
 * smallest residual. *val (allocated, *n_val entries) holds
 * eta * v at every leaf's node id, 0 elsewhere. */
static int refit_tree(const m3_dataset *d, const float *margin, const float *leaf, double eta,
                      refit_buf *rb, float **val, size_t *n_val, tl_err *err)
{
    size_t n = d->n_rows, n_nodes = 0;
    for (size_t i = 0; i < n; i++)
        if ((size_t)leaf[i] + 1 > n_nodes)
            n_nodes = (size_t)leaf[i] + 1;
    if (n_nodes > rb->n_nodes) {
        uint32_t *c = realloc(rb->cnt, n_nodes * sizeof *c), *st;
        if (c)
            rb->cnt = c;
        st = c ? realloc(rb->start, (n_nodes + 1) * sizeof *st) : NULL;
        if (st)
            rb->start = st;
        double *qs = st ? realloc(rb->qsum, n_nodes * sizeof *qs) : NULL;
        if (!qs)
            return tl_err_nomem(err);
        rb->qsum = qs;
        rb->n_nodes = n_nodes;
    }
    memset(rb->cnt, 0, n_nodes * sizeof *rb->cnt);
    memset(rb->qsum, 0, n_nodes * sizeof *rb->qsum);
    for (size_t i = 0; i < n; i++) {
        size_t l = (size_t)leaf[i];
        rb->cnt[l]++;
        rb->qsum[l] += d->q[i];
    }
    rb->start[0] = 0;
    for (size_t l = 0; l < n_nodes; l++)
        rb->start[l + 1] = rb->start[l] + rb->cnt[l];
    memset(rb->cnt, 0, n_nodes * sizeof *rb->cnt);
    for (size_t i = 0; i < n; i++) {
        size_t l = (size_t)leaf[i];
        rb->res[rb->start[l] + rb->cnt[l]++] = d->y[i] - margin[i];
    }
    float *v = calloc(n_nodes, sizeof *v);
    if (!v)
        return tl_err_nomem(err);
    for (size_t l = 0; l < n_nodes; l++) {
        size_t m = rb->cnt[l];
        if (!m)
            continue;
        double k = ceil(rb->qsum[l]);
        size_t kk = k < 1 ? 0 : (size_t)k - 1;
        if (kk >= m)
            kk = m - 1;
        v[l] = (float)(eta * select_kth(rb->res + rb->start[l], m, kk));
    }
    *val = v;
    *n_val = n_nodes;
    return 0;
}

/* Writes the refitted leaf values into the booster: through its JSON model
 * (XGBoost 1.7's C API has no setter for leaf values), where a leaf's value is
 * both its split_conditions and base_weights entry. */
static int set_leaves(BoosterHandle b, float **val, const size_t *n_val, uint32_t n_trees, tl_err *err)
{
    bst_ulong len = 0;
    const char *buf = NULL;
    if (XGBoosterSaveModelToBuffer(b, "{\"format\": \"json\"}", &len, &buf) != 0)
        return xgb_fail(err, TL_EINVAL, NULL, "m3 train: saving the trees");
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root)
        return tl_err_set(err,
                          json_error_code(&je) == json_error_out_of_memory ? TL_ENOMEM : TL_EINVAL,
                          "m3 train: reading XGBoost's JSON model: %s", je.text);
    json_t *trees = json_object_get(json_object_get(json_object_get(json_object_get(root, "learner"),
                                                                      "gradient_booster"), "model"), "trees");
    int rc = 0;
    if (!json_is_array(trees) || json_array_size(trees) != n_trees)
        rc = tl_err_set(err, TL_EINVAL, "m3 train: XGBoost's JSON model has no %u trees", n_trees);
    for (uint32_t t = 0; !rc && t < n_trees; t++) {
        json_t *tr = json_array_get(trees, t);
        json_t *left = json_object_get(tr, "left_children");
        json_t *sc = json_object_get(tr, "split_conditions"), *bw = json_object_get(tr, "base_weights");
        size_t nn = json_array_size(left);
        for (size_t nid = 0; nid < nn; nid++) {
            if (json_integer_value(json_array_get(left, nid)) != -1)
                continue;
            double v = nid < n_val[t] ? val[t][nid] : 0;
            if (json_array_set_new(sc, nid, json_real(v)) || json_array_set_new(bw, nid, json_real(v))) {
                rc = tl_err_set(err, TL_EINVAL, "m3 train: tree %u has no node %zu", t, nid);
                break;
            }
        }
    }
    char *out = rc ? NULL : json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(9));
    json_decref(root);
    if (!rc && !out)
        rc = tl_err_nomem(err);
    if (!rc && XGBoosterLoadModelFromBuffer(b, out, strlen(out)) != 0)
        rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train: loading the refitted trees");
    free(out);
    return rc;
}

/* Gradient boosting on the pinball (quantile) loss through XGBoost's
 * custom-objective entry: gradient -q where the prediction is below the
 * label and 1 - q where it is above, unit hessian, so a leaf moves its rows
 * toward their target quantile (XGBoost 1.7 has no quantile objective).
 * That Newton step moves a leaf of 99.9% rows by eta x (its share above the
 * prediction - 0.001) a round, so the top quantiles crawl: with leaf_refit
 * each new tree's leaves are set instead to the pinball loss's own minimizer
 * over their rows (refit_tree; what scikit-learn's quantile boosting and
 * XGBoost 2's reg:quantileerror do), the margins are kept here rather than
 * read from XGBoost's cache (which holds the unrefitted values), and the
 * values are written into the trees at the end. */
static int pinball_boost(BoosterHandle b, DMatrixHandle *dmats, const m3_dataset *train,
                         const m3_dataset *valid, const m3_train_opts *o, FILE *log, tl_err *err)
{
    int refit = o->leaf_refit;
    size_t n = train->n_rows, nv = valid ? valid->n_rows : 0, n_lid = n > nv ? n : nv;
    float *grad = malloc(n * sizeof *grad), *hess = malloc(n * sizeof *hess);
    float *mt = refit ? calloc(n, sizeof *mt) : NULL, *mv = refit ? calloc(nv + 1, sizeof *mv) : NULL;
    float *lid = refit ? malloc(n_lid * sizeof *lid) : NULL;
    float **val = refit ? calloc(o->n_trees, sizeof *val) : NULL;
    size_t *n_val = refit ? calloc(o->n_trees, sizeof *n_val) : NULL;
    refit_buf rb = {0};
    rb.res = refit ? malloc(n * sizeof *rb.res) : NULL;
    if (!grad || !hess || (refit && (!mt || !mv || !lid || !val || !n_val || !rb.res))) {
        free(grad), free(hess), free(mt), free(mv), free(lid), free(val), free(n_val), free(rb.res);
        return tl_err_nomem(err);
    }
    int rc = 0;
    for (uint32_t r = 0; r < o->n_trees && !rc; r++) {
        bst_ulong len = 0;
        const float *pred = mt;
        /* output margin, training mode: XGBoost's prediction cache makes this incremental */
        if (!refit && (XGBoosterPredict(b, dmats[0], 1, 0, 1, &len, &pred) != 0 || len != n)) {
            rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train: predicting");
            break;
        }
        for (size_t i = 0; i < n; i++) {
            grad[i] = train->y[i] > pred[i] ? -train->q[i] : 1 - train->q[i];
            hess[i] = 1;
        }
        if (XGBoosterBoostOneIter(b, dmats[0], grad, hess, n) != 0) {
            rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train");
            break;
        }
        if (refit) {
            BoosterHandle one = NULL;
            if (XGBoosterSlice(b, (int)r, (int)r + 1, 1, &one) != 0) {
                rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train: slicing a tree");
                break;
            }
            rc = leaf_ids(one, dmats[0], n, lid, err);
            rc = rc ? rc : refit_tree(train, mt, lid, o->eta, &rb, &val[r], &n_val[r], err);
            for (size_t i = 0; !rc && i < n; i++)
                mt[i] += val[r][(size_t)lid[i]];
            rc = rc || !valid ? rc : leaf_ids(one, dmats[1], nv, lid, err);
            for (size_t i = 0; !rc && valid && i < nv; i++)
                mv[i] += (size_t)lid[i] < n_val[r] ? val[r][(size_t)lid[i]] : 0;
            XGBoosterFree(one);
            if (rc)
                break;
        }
        uint32_t n_done = r + 1;
        if (log && (n_done % LOG_EVERY == 0 || n_done == o->n_trees)) {
            /* each prediction is read before the next call reuses XGBoost's buffer */
            if (!refit && XGBoosterPredict(b, dmats[0], 1, 0, 1, &len, &pred) != 0) {
                rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train: evaluating");
                break;
            }
            fprintf(log, "[%u]\ttrain-pinball:%.6f", n_done, pinball_loss(train, pred));
            if (valid) {
                pred = mv;
                if (!refit && XGBoosterPredict(b, dmats[1], 1, 0, 0, &len, &pred) != 0) {
                    rc = xgb_fail(err, TL_EINVAL, NULL, "m3 train: evaluating");
                    break;
                }
                fprintf(log, "\tvalid-pinball:%.6f", pinball_loss(valid, pred));
            }
            fputc('\n', log);
            fflush(log);
        }
    }
    if (!rc && refit)
        rc = set_leaves(b, val, n_val, o->n_trees, err);
    for (uint32_t r = 0; refit && r < o->n_trees; r++)
        free(val[r]);
    free(grad), free(hess), free(mt), free(mv), free(lid), free(val), free(n_val);
    free(rb.res), free(rb.cnt), free(rb.start), free(rb.qsum);
    return rc;
}

m3_model *m3_model_train(const m3_dataset *train, const m3_dataset *valid, const m3_train_opts *o,
                         FILE *log, tl_err *err)
{
    m3_train_opts def;
    if (!o) {
        m3_train_opts_default(&def);
        o = &def;
    }
    if (train->n_rows == 0) {
        tl_err_set(err, TL_EINVAL, "m3 train: the training set is empty");
        return NULL;
    }
    if (valid && valid->n_rows == 0) {
        tl_err_set(err, TL_EINVAL, "m3 train: the validation set is empty");
        return NULL;
    }
    if (valid && valid->n_features != train->n_features) {
        tl_err_set(err, TL_EINVAL,
                   "m3 train: validation rows have %u features, training rows have %u",
                   valid->n_features, train->n_features);
        return NULL;
    }
    if (check_opts(o, err) != 0)
        return NULL;

    /* The booster keeps only weak references to its DMatrix caches, so the
     * matrices are freed on every path, the model kept only on success. */
    DMatrixHandle dmats[2] = {NULL, NULL};
    int ok = 0;
    m3_model *m = calloc(1, sizeof *m);
    if (!m) {
        tl_err_nomem(err);
        goto done;
    }
    m->n_features = train->n_features;
    if (!(dmats[0] = dmatrix_create(train, o->n_threads, err)))
        goto done;
    if (valid && !(dmats[1] = dmatrix_create(valid, o->n_threads, err)))
        goto done;
    bst_ulong n_dmats = valid ? 2 : 1;
    if (!(m->booster = booster_create(dmats, n_dmats, err)))
        goto done;
    if (set_train_params(m->booster, o, err) != 0)
        goto done;
    if (train->q) {
        if (set_param(m->booster, "base_score", "0", err) != 0 ||
            pinball_boost(m->booster, dmats, train, valid, o, log, err))
            goto done;
        ok = 1;
        goto done;
    }
    static const char *names[2] = {"train", "valid"};
    for (uint32_t r = 0; r < o->n_trees; r++) {
        if (XGBoosterUpdateOneIter(m->booster, (int)r, dmats[0]) != 0) {
            xgb_fail(err, TL_EINVAL, NULL, "m3 train");
            goto done;
        }
        uint32_t n_done = r + 1;
        if (valid && log && (n_done % LOG_EVERY == 0 || n_done == o->n_trees)) {
            const char *line;
            /* XGBoost prints its iter argument as "[iter]": pass rounds done. */
            if (XGBoosterEvalOneIter(m->booster, (int)n_done, dmats, names, n_dmats, &line) != 0) {
                xgb_fail(err, TL_EINVAL, NULL, "m3 train: evaluating");
                goto done;
            }
            fprintf(log, "%s\n", line);
            fflush(log);
        }
    }
    ok = 1;
done:
    /* XGDMatrixFree(NULL) is refused with an error, not a crash; skip it. */
    for (int i = 0; i < 2; i++)
        if (dmats[i])
            XGDMatrixFree(dmats[i]);
    if (!ok) {
        m3_model_destroy(m);
        m = NULL;
    }
    return m;
}

void m3_model_destroy(m3_model *m)
{
    if (!m)
        return;
    if (m->booster)
        XGBoosterFree(m->booster);
    free(m->meta);
    free(m);
}

uint32_t m3_model_n_features(const m3_model *m)
{
    return m->n_features;
}

uint32_t m3_model_schema(const m3_model *m) { return m->schema; }

uint32_t m3_model_crc(const m3_model *m) { return m->crc; }

const char *m3_model_meta(const m3_model *m)
{
    return m->meta ? m->meta : "";
}

/* ======================== model files ======================== */

/* Header (64 bytes, little-endian):
 *   0  magic "TLM3MODL"       24 uint64 meta_bytes
 *   8  uint32 version (1)     32 uint64 xgb_bytes
 *  12  uint32 n_features      40 zero padding to 64
 *  16  uint32 feature_schema
 *  20  uint32 crc32 of the whole file, these 4 bytes read as zeros
 * The checksum is there because XGBoost 1.7's UBJSON reader trusts the lengths
 * inside the model bytes: a flipped bit can make it read past its buffer (found
 * under ASan). It guards against damaged files, not crafted ones; m3_ubj_check
 * (ubjson.c) bounds every length before XGBoost reads them. */
#define CRC_AT 20

/* CRC-32 of zlib and IEEE 802.3 (reflected, polynomial 0xEDB88320) of a whole
 * file of n >= 64 bytes, its crc field read as zeros. Written here rather than
 * adding zlib for 15 lines; building the table costs 2048 steps per call. */
static uint32_t file_crc(const unsigned char *file, size_t n)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    unsigned char h[MODEL_HEADER_BYTES];
    memcpy(h, file, sizeof h);
    memset(h + CRC_AT, 0, 4);
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ (i < sizeof h ? h[i] : file[i])) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void put_le(unsigned char *p, uint64_t v, int n_bytes)
{
    for (int i = 0; i < n_bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n_bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < n_bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int m3_model_save(const m3_model *m, const char *path, uint32_t feature_schema, const char *meta,
                  tl_err *err)
{
    if (!meta)
        meta = "";
    bst_ulong xgb_bytes = 0;
    const char *xgb = NULL;
    /* The bytes live in the booster until the next XGBoost call on this thread. */
    if (XGBoosterSaveModelToBuffer(m->booster, "{\"format\":\"ubj\"}", &xgb_bytes, &xgb) != 0)
        return xgb_fail(err, TL_EINVAL, path, "serializing the model");
    /* The whole file is built in memory for its checksum: a few MB at most. */
    size_t meta_bytes = strlen(meta), n = MODEL_HEADER_BYTES + meta_bytes + xgb_bytes;
    unsigned char *file = calloc(1, n);
    if (!file)
        return tl_err_nomem(err);
    memcpy(file, MODEL_MAGIC, 8);
    put_le(file + 8, MODEL_VERSION, 4);
    put_le(file + 12, m->n_features, 4);
    put_le(file + 16, feature_schema, 4);
    put_le(file + 24, meta_bytes, 8);
    put_le(file + 32, xgb_bytes, 8);
    memcpy(file + MODEL_HEADER_BYTES, meta, meta_bytes);
    memcpy(file + MODEL_HEADER_BYTES + meta_bytes, xgb, xgb_bytes);
    put_le(file + CRC_AT, file_crc(file, n), 4);

    tl_afile af;
    int rc = TL_EIO; /* tl_afile_open fails only so */
    FILE *f = tl_afile_open(&af, path, err);
    if (f) {
        fwrite(file, 1, n, f); /* a short write sets the error flag commit reports */
        rc = tl_afile_commit(&af, err);
    }
    free(file);
    return rc;
}

/* Checks the header against the file's length n; fills the fields. */
static int parse_header(const unsigned char *buf, size_t n, const char *path, uint32_t min_schema,
                        uint32_t max_schema, uint32_t *n_features, uint32_t *schema_out,
                        uint64_t *meta_bytes, uint64_t *xgb_bytes, tl_err *err)
{
    size_t n_magic = n < 8 ? n : 8;
    if (memcmp(buf, MODEL_MAGIC, n_magic) != 0)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "not an m3 model file (expected magic \"%s\" at its start)", MODEL_MAGIC);
    if (n < MODEL_HEADER_BYTES)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "truncated: %zu bytes, shorter than the %u-byte header", n,
                         MODEL_HEADER_BYTES);
    uint32_t version = (uint32_t)get_le(buf + 8, 4);
    if (version != MODEL_VERSION)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "model format version %u, this build reads version %u", version,
                         MODEL_VERSION);
    *n_features = (uint32_t)get_le(buf + 12, 4);
    uint32_t schema = *schema_out = (uint32_t)get_le(buf + 16, 4);
    *meta_bytes = get_le(buf + 24, 8);
    *xgb_bytes = get_le(buf + 32, 8);
    uint64_t body = n - MODEL_HEADER_BYTES, want;
    if (__builtin_add_overflow(*meta_bytes, *xgb_bytes, &want) || want > body)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "truncated: the header announces %" PRIu64 " + %" PRIu64
                         " bytes after it, the file holds %" PRIu64,
                         *meta_bytes, *xgb_bytes, body);
    if (want < body)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "%" PRIu64 " bytes after the end the header announces", body - want);
    uint32_t crc = (uint32_t)get_le(buf + CRC_AT, 4), crc_now = file_crc(buf, n);
    if (crc != crc_now)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "damaged: checksum 0x%08" PRIx32 " in the header, 0x%08" PRIx32
                         " computed",
                         crc, crc_now);
    if (*n_features == 0 || *xgb_bytes == 0)
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                         "header holds %u features and %" PRIu64 " model bytes; both must be > 0",
                         *n_features, *xgb_bytes);
    if (memchr(buf + MODEL_HEADER_BYTES, '\0', *meta_bytes))
        return tl_err_at(err, TL_EPARSE, path, 0, 0, NULL, "metadata text holds a NUL byte");
    if (schema < min_schema || schema > max_schema) {
        char range[32];
        if (min_schema == max_schema)
            snprintf(range, sizeof range, "%u", max_schema);
        else
            snprintf(range, sizeof range, "%u to %u", min_schema, max_schema);
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "the model was trained on feature schema %u and this build expects %s; "
                         "re-train it with `tailor m3 train`",
                         schema, range);
    }
    return 0;
}

m3_model *m3_model_load(const char *path, uint32_t min_schema, uint32_t max_schema,
                        tl_err *err)
{
    size_t n = 0;
    unsigned char *buf = (unsigned char *)tl_read_file(path, &n, err);
    if (!buf)
        return NULL;
    m3_model *m = calloc(1, sizeof *m);
    if (!m) {
        tl_err_nomem(err);
        goto fail;
    }
    uint64_t meta_bytes = 0, xgb_bytes = 0;
    if (parse_header(buf, n, path, min_schema, max_schema, &m->n_features, &m->schema,
                     &meta_bytes, &xgb_bytes, err) != 0)
        goto fail;
    m->crc = (uint32_t)get_le(buf + CRC_AT, 4);
    if (meta_bytes) {
        if (!(m->meta = malloc(meta_bytes + 1))) {
            tl_err_nomem(err);
            goto fail;
        }
        memcpy(m->meta, buf + MODEL_HEADER_BYTES, meta_bytes);
        m->meta[meta_bytes] = '\0';
    }
    const unsigned char *xgb = buf + MODEL_HEADER_BYTES + meta_bytes;
    size_t bad_at;
    const char *why;
    if (m3_ubj_check(xgb, xgb_bytes, &bad_at, &why) != 0) {
        tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                  "damaged XGBoost model bytes: %s (at byte %zu of the file)", why,
                  (size_t)(xgb - buf) + bad_at);
        goto fail;
    }
    if (!(m->booster = booster_create(NULL, 0, err)))
        goto fail;
    if (XGBoosterLoadModelFromBuffer(m->booster, xgb, xgb_bytes) != 0) {
        xgb_fail(err, TL_EPARSE, path, "loading the XGBoost model");
        goto fail;
    }
    bst_ulong xgb_features = 0;
    if (XGBoosterGetNumFeature(m->booster, &xgb_features) != 0) {
        xgb_fail(err, TL_EPARSE, path, "loading the XGBoost model");
        goto fail;
    }
    if (xgb_features != m->n_features) {
        tl_err_at(err, TL_EPARSE, path, 0, 0, NULL,
                  "the header says %u features, the XGBoost model %" PRIu64, m->n_features,
                  (uint64_t)xgb_features);
        goto fail;
    }
    free(buf);
    return m;
fail:
    free(buf);
    m3_model_destroy(m);
    return NULL;
}

/* ======================== prediction ======================== */

int m3_model_predict(const m3_model *m, const float *x, size_t n_rows, int n_threads, float *out,
                     tl_err *err)
{
    if (n_threads < 0)
        return tl_err_at(err, TL_ERANGE, NULL, 0, 0, "n_threads", "expected >= 0, found %d",
                         n_threads);
    if (n_rows == 0)
        return 0;
    /* Setting nthread makes XGBoost re-configure the learner on the next call:
     * about 8 us, against 40 us for one row of 400 trees of depth 8. */
    char threads[16];
    snprintf(threads, sizeof threads, "%d", n_threads);
    int rc = set_param(m->booster, "nthread", threads, err);
    if (rc != 0)
        return rc;
    /* In-place prediction reads x through NumPy's __array_interface__ (version 3)
     * without copying it into a DMatrix. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const char *typestr = ">f4";
#else
    const char *typestr = "<f4";
#endif
    char array[192];
    snprintf(array, sizeof array,
             "{\"data\":[%" PRIuPTR ",true],\"shape\":[%zu,%u],\"typestr\":\"%s\",\"version\":3}",
             (uintptr_t)x, n_rows, m->n_features, typestr);
    /* XGBoost 1.7 requires cache_id (0: no prediction cache) besides the documented keys. */
    static const char config[] = "{\"type\":0,\"training\":false,\"iteration_begin\":0,"
                                 "\"iteration_end\":0,\"strict_shape\":false,\"missing\":NaN,"
                                 "\"cache_id\":0}";
    const bst_ulong *shape = NULL;
    bst_ulong dim = 0;
    const float *result = NULL;
    if (XGBoosterPredictFromDense(m->booster, array, config, NULL, &shape, &dim, &result) != 0)
        return xgb_fail(err, TL_EINVAL, NULL, "m3 predict");
    if (dim != 1 || shape[0] != n_rows)
        return tl_err_set(err, TL_EINVAL,
                          "m3 predict: XGBoost returned %" PRIu64 " dimensions (first %" PRIu64
                          ") for %zu rows",
                          (uint64_t)dim, dim ? (uint64_t)shape[0] : 0, n_rows);
    memcpy(out, result, n_rows * sizeof *out);
    return 0;
}
