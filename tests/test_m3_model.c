/* Tests of m3's learned model (src/m3/model.c: m3.txt §3.4 on XGBoost): accuracy on
 * a known function, determinism over runs and thread counts, the model file's
 * header and round trip, and refusals of bad files and requests, each naming
 * the file at fault. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "m3/model.h"
#include "tailor/rng.h"
#include "testutil.h"

#define N_FEATURES 3
#define N_TRAIN 3000
#define N_VALID 1000
#define SCHEMA 7

/* y = 3 x0 + sin(x1) with x0, x2 uniform in [0, 1) and x1 uniform in [0, 2 pi);
 * x2 is irrelevant. Var(y) = 9 Var(x0) + Var(sin x1) = 9/12 + 1/2 = 1.25. */
static double target(const float *row)
{
    return 3.0 * row[0] + sin(row[1]);
}

static void make_data(m3_dataset *d, size_t n_rows, uint64_t index)
{
    tl_rng r;
    tl_rng_init(&r, 42, "m3-model-test", index);
    assert_int_equal(m3_dataset_init(d, N_FEATURES, NULL), 0);
    for (size_t i = 0; i < n_rows; i++) {
        float row[N_FEATURES] = {(float)tl_rng_uniform(&r), (float)(2 * M_PI * tl_rng_uniform(&r)),
                                 (float)tl_rng_uniform(&r)};
        assert_int_equal(m3_dataset_append(d, row, (float)target(row), NULL), 0);
    }
}

static m3_model *train_or_fail(const m3_dataset *train, const m3_dataset *valid,
                               const m3_train_opts *o, FILE *log)
{
    tl_err err;
    tl_err_clear(&err);
    m3_model *m = m3_model_train(train, valid, o, log, &err);
    if (!m)
        fail_msg("m3_model_train: %s", err.msg);
    return m;
}

static void predict_or_fail(const m3_model *m, const m3_dataset *d, int n_threads, float *out)
{
    tl_err err;
    tl_err_clear(&err);
    if (m3_model_predict(m, d->x, d->n_rows, n_threads, out, &err) != 0)
        fail_msg("m3_model_predict: %s", err.msg);
}

/* The model trained once with the default options, shared by the tests. */
typedef struct fixture {
    m3_dataset train, valid;
    m3_model *model;
    char *log; /* what training wrote to its log */
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    make_data(&fx->train, N_TRAIN, 0);
    make_data(&fx->valid, N_VALID, 1);
    /* One thread: OpenMP's barriers make XGBoost's many short parallel regions
     * crawl when another process holds a core (docs/m3.md), as under ctest -j. */
    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_threads = 1;
    size_t log_len;
    FILE *log = open_memstream(&fx->log, &log_len);
    fx->model = train_or_fail(&fx->train, &fx->valid, &o, log);
    fclose(log);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    m3_model_destroy(fx->model);
    m3_dataset_fini(&fx->train);
    m3_dataset_fini(&fx->valid);
    free(fx->log);
    free(fx);
    return 0;
}

/* ======================== accuracy and the training log ======================== */

static void learns_a_known_function(void **state)
{
    fixture *fx = *state;
    assert_int_equal(m3_model_n_features(fx->model), N_FEATURES);
    assert_string_equal(m3_model_meta(fx->model), "");

    float pred[N_VALID];
    predict_or_fail(fx->model, &fx->valid, 2, pred);
    double sq = 0;
    for (size_t i = 0; i < N_VALID; i++) {
        double e = pred[i] - target(fx->valid.x + i * N_FEATURES);
        sq += e * e;
    }
    double rmse = sqrt(sq / N_VALID);
    /* The target is noise-free, so the error is the trees' step approximation
     * alone. 2400 training rows (subsample 0.8) over the two relevant inputs
     * leave cells about 1/sqrt(2400) = 0.02 of each range wide; across a cell y
     * moves by at most 3 x 0.02 (x0) + 1 x 0.02 x 2 pi (x1) = 0.19, and the
     * RMSE of a constant over a uniform spread of width w is w / sqrt(12) =
     * 0.055. 0.1 leaves room for the 400 rounds of shrunken steps and is 9% of
     * sd(y) = sqrt(1.25) = 1.12: the model explains over 99% of the variance. */
    if (!(rmse < 0.1))
        fail_msg("validation RMSE %g, want < 0.1 (sd of y 1.12)", rmse);

    /* One log line per 50 rounds: 400 rounds give [50] .. [400]. XGBoost's
     * valid-rmse after the last round is the RMSE computed here. */
    const char *p = fx->log;
    for (int k = 50; k <= 400; k += 50) {
        char want[16];
        snprintf(want, sizeof want, "[%d]\t", k);
        if (strncmp(p, want, strlen(want)) != 0)
            fail_msg("log line for round %d: '%.40s'", k, p);
        const char *eol = strchr(p, '\n');
        assert_non_null(eol);
        const char *tr = strstr(p, "train-rmse:"), *va = strstr(p, "valid-rmse:");
        assert_true(tr && va && tr < eol && va < eol);
        if (k == 400) {
            double logged = strtod(va + strlen("valid-rmse:"), NULL);
            if (fabs(logged - rmse) > 1e-5 * rmse)
                fail_msg("log says valid-rmse %.9g, predictions give %.9g", logged, rmse);
        }
        p = eol + 1;
    }
    assert_string_equal(p, "");
}

/* ======================== determinism ======================== */

static int same_bits(const float *a, const float *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

/* Pinball loss: labels x0 + U(0, 1) with the target quantile q as a
 * feature; the model's prediction at (x0, q) approaches x0 + q. A dataset
 * mixing rows with and without a target quantile is refused. */
static void learns_quantiles(void **state)
{
    (void)state;
    static const float qs[3] = {0.1f, 0.5f, 0.9f};
    m3_dataset tr, va;
    assert_int_equal(m3_dataset_init(&tr, N_FEATURES, NULL), 0);
    assert_int_equal(m3_dataset_init(&va, N_FEATURES, NULL), 0);
    tl_rng r;
    tl_rng_init(&r, 7, "m3-model-pinball", 0);
    for (int i = 0; i < 6000; i++) {
        float row[N_FEATURES] = {(float)tl_rng_below(&r, 2), qs[i % 3], 0};
        float y = row[0] + (float)tl_rng_uniform(&r);
        assert_int_equal(m3_dataset_append_q(i % 5 ? &tr : &va, row, y, qs[i % 3], NULL), 0);
    }
    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_trees = 300, o.max_depth = 3, o.eta = 0.1, o.n_threads = 1;
    m3_model *m = m3_model_train(&tr, &va, &o, NULL, NULL);
    assert_non_null(m);
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < 3; k++) {
            float row[N_FEATURES] = {(float)x, qs[k], 0}, y;
            assert_int_equal(m3_model_predict(m, row, 1, 1, &y, NULL), 0);
            print_message("x0 %d q %.1f: predicted %.3f, true quantile %.3f\n", x, qs[k], y,
                          x + qs[k]);
            assert_true(fabs(y - (x + qs[k])) < 0.08);
        }
    float row[N_FEATURES] = {0, 0.5f, 0};
    tl_err err;
    assert_int_not_equal(m3_dataset_append(&tr, row, 1, &err), 0);
    tu_check_err("mixed rows", &err, TL_EINVAL, NULL, "target quantile");
    assert_int_not_equal(m3_dataset_append_q(&tr, row, 1, 1.5f, &err), 0);
    m3_model_destroy(m);
    m3_dataset_fini(&tr), m3_dataset_fini(&va);
}

/* Pinball loss of v against labels y[0..n) at quantile q. */
static double pinball_at(const float *y, int n, double q, double v)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] > v ? q * (y[i] - v) : (1 - q) * (v - y[i]);
    return s;
}

/* Leaf refit: one tree of depth 1 at eta 1 on labels -Exp(1) (x0 = 0) and
 * 3 + Exp(1) (x0 = 1) at q = 0.99 (the first tree splits on x0 because the
 * halves' gradients differ in sign) must predict, for each x0, the label
 * that minimizes the pinball loss over that half (found here by trying
 * every label), where XGBoost's own unit-hessian step leaves x0 = 1 far
 * below it; after 40 refitted trees the share of training rows at or below
 * the prediction is 0.99. */
static void leaf_refit_fits_the_tail(void **state)
{
    (void)state;
    enum { N = 2000 };
    const float q = 0.99f;
    static float y[2][N / 2];
    int ny[2] = {0, 0};
    m3_dataset tr;
    assert_int_equal(m3_dataset_init(&tr, N_FEATURES, NULL), 0);
    tl_rng r;
    tl_rng_init(&r, 11, "m3-model-refit", 0);
    for (int i = 0; i < N; i++) {
        int x = i % 2;
        float row[N_FEATURES] = {(float)x, q, 0};
        double e = -log(1 - tl_rng_uniform(&r));
        float lab = (float)(x ? 3 + e : -e);
        y[x][ny[x]++] = lab;
        assert_int_equal(m3_dataset_append_q(&tr, row, lab, q, NULL), 0);
    }
    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_trees = 1, o.max_depth = 1, o.eta = 1, o.subsample = 1, o.colsample = 1, o.n_threads = 1;
    m3_model *plain = m3_model_train(&tr, NULL, &o, NULL, NULL);
    o.leaf_refit = 1;
    m3_model *m = m3_model_train(&tr, NULL, &o, NULL, NULL);
    assert_non_null(plain);
    assert_non_null(m);
    for (int x = 0; x < 2; x++) {
        float best = y[x][0], row[N_FEATURES] = {(float)x, q, 0}, p, pp;
        for (int i = 1; i < ny[x]; i++)
            if (pinball_at(y[x], ny[x], q, y[x][i]) < pinball_at(y[x], ny[x], q, best))
                best = y[x][i];
        assert_int_equal(m3_model_predict(m, row, 1, 1, &p, NULL), 0);
        assert_int_equal(m3_model_predict(plain, row, 1, 1, &pp, NULL), 0);
        print_message("x0 %d: refit %.4f, best %.4f, unrefitted %.4f\n", x, p, best, pp);
        assert_true(fabs(p - best) < 1e-5);
        if (x)
            assert_true(pp < best - 1);
    }
    m3_model_destroy(plain);
    m3_model_destroy(m);

    o.n_trees = 40, o.max_depth = 2, o.eta = 0.3, o.subsample = 0.8;
    m = m3_model_train(&tr, NULL, &o, NULL, NULL);
    assert_non_null(m);
    int below = 0;
    for (int x = 0; x < 2; x++) {
        float row[N_FEATURES] = {(float)x, q, 0}, p;
        assert_int_equal(m3_model_predict(m, row, 1, 1, &p, NULL), 0);
        for (int i = 0; i < ny[x]; i++)
            below += y[x][i] <= p;
    }
    print_message("40 refitted trees: %.4f of rows at or below the 0.99 prediction\n",
                  (double)below / N);
    assert_true(below >= 0.985 * N && below <= 0.995 * N);
    m3_model_destroy(m);
    m3_dataset_fini(&tr);
}

static void training_is_deterministic(void **state)
{
    fixture *fx = *state;
    float a[N_VALID], b[N_VALID], c[N_VALID];

    /* Prediction: every row sums its trees in tree order, whatever the threads. */
    predict_or_fail(fx->model, &fx->valid, 1, a);
    predict_or_fail(fx->model, &fx->valid, 2, b);
    predict_or_fail(fx->model, &fx->valid, 0, c);
    assert_true(same_bits(a, b, N_VALID) && same_bits(a, c, N_VALID));

    /* Training: the same seed and threads twice, with and without a
     * validation set (evaluation must not disturb the random stream). 120
     * rounds: the log has a line at 50, 100 and the last. */
    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_trees = 120;
    o.seed = 5;
    o.n_threads = 1;
    char *log_text;
    size_t log_len;
    FILE *log = open_memstream(&log_text, &log_len);
    m3_model *m1 = train_or_fail(&fx->train, &fx->valid, &o, log);
    fclose(log);
    const char *l100 = strstr(log_text, "\n[100]\t"), *l120 = strstr(log_text, "\n[120]\t");
    const char *end = l120 ? strchr(l120 + 1, '\n') : NULL;
    if (strncmp(log_text, "[50]\t", 5) != 0 || !l100 || !end || end[1])
        fail_msg("log of 120 rounds:\n%s", log_text);
    free(log_text);
    m3_model *m2 = train_or_fail(&fx->train, NULL, &o, NULL);
    predict_or_fail(m1, &fx->valid, 2, a);
    predict_or_fail(m2, &fx->valid, 2, b);
    if (!same_bits(a, b, N_VALID))
        fail_msg("same seed, same threads: predictions differ");
    m3_model_destroy(m1);
    m3_model_destroy(m2);

    /* One thread against two: XGBoost 1.7's hist draws its row sample from a
     * skip-ahead generator independent of the thread count, but sums gradients
     * in per-thread blocks, so a thread count may change the last bits of a
     * leaf (docs/m3.md). What holds is checked: the models agree to float
     * rounding, far below the model's own error. 20 trees keep the two-thread
     * run short on a loaded machine. */
    o.n_trees = 20;
    m3_model *m4 = train_or_fail(&fx->train, NULL, &o, NULL);
    predict_or_fail(m4, &fx->valid, 2, a);
    o.n_threads = 2;
    m3_model *m5 = train_or_fail(&fx->train, NULL, &o, NULL);
    predict_or_fail(m5, &fx->valid, 2, c);
    double max_diff = 0;
    for (size_t i = 0; i < N_VALID; i++)
        max_diff = fmax(max_diff, fabs((double)a[i] - c[i]));
    if (!(max_diff < 1e-4))
        fail_msg("1 and 2 threads differ by %g", max_diff);
    print_message("m3 model: 1 vs 2 training threads: max |difference| %g (%s)\n", max_diff,
                  same_bits(a, c, N_VALID) ? "bit-identical" : "not bit-identical");

    m3_model_destroy(m4);
    m3_model_destroy(m5);
}

/* ======================== options ======================== */

static size_t n_distinct(const float *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && v[j] != v[i])
            j++;
        k += j == i;
    }
    return k;
}

/* Each option reaches XGBoost, checked by what it must do to a small model. */
static void options_reach_xgboost(void **state)
{
    fixture *fx = *state;
    float a[N_VALID], b[N_VALID];
    m3_train_opts one;
    m3_train_opts_default(&one);
    one.n_trees = 1;
    one.n_threads = 1;
    one.subsample = one.colsample = 1;

    /* One tree of depth d has at most 2^d leaves; a leaf needs a hessian sum
     * (rows, for squared error) of min_child_weight, which no split of the
     * 3000 rows gives when it is 3000. */
    static const struct {
        const char *name;
        uint32_t max_depth;
        double min_child_weight;
        size_t want_max, want_min; /* distinct predictions */
    } shape[] = {
        {"depth 1", 1, 5, 2, 2},
        {"depth 3", 3, 5, 8, 5},
        {"min_child_weight 3000", 8, N_TRAIN, 1, 1},
    };
    for (size_t i = 0; i < sizeof shape / sizeof *shape; i++) {
        m3_train_opts o = one;
        o.max_depth = shape[i].max_depth;
        o.min_child_weight = shape[i].min_child_weight;
        m3_model *m = train_or_fail(&fx->train, NULL, &o, NULL);
        predict_or_fail(m, &fx->valid, 1, a);
        size_t k = n_distinct(a, N_VALID);
        if (k > shape[i].want_max || k < shape[i].want_min)
            fail_msg("%s: %zu distinct predictions, want %zu..%zu", shape[i].name, k,
                     shape[i].want_min, shape[i].want_max);
        m3_model_destroy(m);
    }

    /* Without sampling the tree is the same, and eta scales its leaves: halving
     * eta halves every difference between two predictions (the intercept
     * cancels). */
    m3_train_opts o = one;
    o.eta = 0.5;
    m3_model *m = train_or_fail(&fx->train, NULL, &o, NULL);
    predict_or_fail(m, &fx->valid, 1, a);
    m3_model_destroy(m);
    o.eta = 0.25;
    m = train_or_fail(&fx->train, NULL, &o, NULL);
    predict_or_fail(m, &fx->valid, 1, b);
    m3_model_destroy(m);
    for (size_t i = 1; i < N_VALID; i++) {
        double da = (double)a[i] - a[0], db = (double)b[i] - b[0];
        if (fabs(da - 2 * db) > 1e-5)
            fail_msg("row %zu: eta 0.5 moves it by %g from row 0, eta 0.25 by %g", i, da, db);
    }

    /* The seed matters only through sampling: rows, columns, or none. */
    static const struct {
        const char *name;
        double subsample, colsample;
        int want_same;
    } sampling[] = {
        {"no sampling", 1, 1, 1},
        {"rows sampled", 0.5, 1, 0},
        {"columns sampled", 1, 0.5, 0},
    };
    for (size_t i = 0; i < sizeof sampling / sizeof *sampling; i++) {
        o = one;
        o.n_trees = 5;
        o.subsample = sampling[i].subsample;
        o.colsample = sampling[i].colsample;
        o.seed = 5;
        m = train_or_fail(&fx->train, NULL, &o, NULL);
        predict_or_fail(m, &fx->valid, 1, a);
        m3_model_destroy(m);
        o.seed = 6;
        m = train_or_fail(&fx->train, NULL, &o, NULL);
        predict_or_fail(m, &fx->valid, 1, b);
        m3_model_destroy(m);
        if (same_bits(a, b, N_VALID) != sampling[i].want_same)
            fail_msg("%s: seeds 5 and 6 give %s models", sampling[i].name,
                     sampling[i].want_same ? "different" : "the same");
    }
}

/* ======================== model files ======================== */

static uint64_t le(const unsigned char *p, int n_bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < n_bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Bitwise CRC-32 (zlib's: reflected, polynomial 0xEDB88320), independent of the
 * table-driven one in model.c. */
static uint32_t crc32_bitwise(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

/* The checksum a model file must carry: its CRC-32 with bytes 20..23 as zeros. */
static uint32_t model_crc(const unsigned char *file, size_t n)
{
    unsigned char *copy = malloc(n);
    memcpy(copy, file, n);
    memset(copy + 20, 0, 4);
    uint32_t crc = crc32_bitwise(copy, n);
    free(copy);
    return crc;
}

static void put_crc(unsigned char *file, size_t n)
{
    uint32_t crc = model_crc(file, n);
    for (int k = 0; k < 4; k++)
        file[20 + k] = (unsigned char)(crc >> (8 * k));
}

static void save_load_round_trip(void **state)
{
    fixture *fx = *state;
    static const char meta[] = "{\"trained\":\"test\",\"rows\":3000}";
    char *path = tu_temp_path(".m3model");
    tl_err err;
    tl_err_clear(&err);
    if (m3_model_save(fx->model, path, SCHEMA, meta, &err) != 0)
        fail_msg("save: %s", err.msg);

    size_t n;
    unsigned char *bytes = (unsigned char *)tu_read_file(path, &n);
    assert_non_null(bytes);
    assert_true(n > 64 + strlen(meta));
    assert_memory_equal(bytes, "TLM3MODL", 8);
    assert_int_equal(le(bytes + 8, 4), 1); /* format version */
    assert_int_equal(le(bytes + 12, 4), N_FEATURES);
    assert_int_equal(le(bytes + 16, 4), SCHEMA);
    assert_int_equal(crc32_bitwise((const unsigned char *)"123456789", 9), 0xCBF43926u);
    assert_int_equal(le(bytes + 20, 4), model_crc(bytes, n));
    assert_int_equal(le(bytes + 24, 8), strlen(meta));
    assert_int_equal(le(bytes + 32, 8), n - 64 - strlen(meta));
    for (int i = 40; i < 64; i++)
        assert_int_equal(bytes[i], 0);
    assert_memory_equal(bytes + 64, meta, strlen(meta));
    assert_int_equal(bytes[64 + strlen(meta)], '{'); /* a UBJSON object */

    m3_model *m = m3_model_load(path, SCHEMA, SCHEMA, &err);
    if (!m)
        fail_msg("load: %s", err.msg);
    assert_int_equal(m3_model_n_features(m), N_FEATURES);
    assert_string_equal(m3_model_meta(m), meta);
    float a[N_VALID], b[N_VALID];
    predict_or_fail(fx->model, &fx->valid, 2, a);
    predict_or_fail(m, &fx->valid, 2, b);
    if (!same_bits(a, b, N_VALID))
        fail_msg("predictions after save + load differ from the trained model's");

    /* Saving the loaded model again gives the same bytes; no meta is empty. */
    char *again = tu_temp_path(".m3model");
    assert_int_equal(m3_model_save(m, again, SCHEMA, meta, &err), 0);
    size_t n2;
    char *bytes2 = tu_read_file(again, &n2);
    assert_true(n2 == n && memcmp(bytes, bytes2, n) == 0);
    free(bytes2);
    assert_int_equal(m3_model_save(m, again, SCHEMA, NULL, &err), 0);
    m3_model_destroy(m);
    m = m3_model_load(again, SCHEMA, SCHEMA, &err);
    assert_non_null(m);
    assert_string_equal(m3_model_meta(m), "");
    m3_model_destroy(m);

    /* A range of schemas (a CC whose features did not change since an older
     * schema) takes the file inside it and refuses it outside. */
    m = m3_model_load(path, SCHEMA - 1, SCHEMA + 1, &err);
    assert_non_null(m);
    m3_model_destroy(m);
    tl_err_clear(&err);
    assert_null(m3_model_load(path, SCHEMA + 1, SCHEMA + 2, &err));
    tu_check_err("schema below the range", &err, TL_EINVAL, path,
                 "trained on feature schema 7 and this build expects 8 to 9");

    /* An unwritable target: named, and nothing is left behind. */
    tl_err_clear(&err);
    assert_int_equal(m3_model_save(fx->model, "/nonexistent-dir/a.m3model", SCHEMA, NULL, &err),
                     TL_EIO);
    tu_check_err("unwritable", &err, TL_EIO, "/nonexistent-dir/a.m3model", NULL);

    remove(again);
    free(again);
    remove(path);
    free(path);
    free(bytes);
}

/* Byte edits of a good file, one per refusal. */
enum edit { TRUNCATE, APPEND, SET_U32, SET_BYTE, FLIP_BIT };

static void bad_files_are_refused(void **state)
{
    fixture *fx = *state;
    char *good = tu_temp_path(".m3model");
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(m3_model_save(fx->model, good, SCHEMA, "meta", &err), 0);
    size_t n;
    unsigned char *bytes = (unsigned char *)tu_read_file(good, &n);

    /* Edits refresh the checksum, so that each reaches the check it names,
     * unless is_stale_crc: the damage the checksum is there to catch. */
    static const struct {
        const char *name;
        enum edit edit;
        long at;        /* TRUNCATE: new length, from the end if < 0; APPEND: bytes
                           added; others: offset */
        uint32_t value; /* SET_U32 / SET_BYTE */
        int is_stale_crc;
        int code;
        const char *what;
    } cases[] = {
        {"empty file", TRUNCATE, 0, 0, 0, TL_EPARSE, "truncated: 0 bytes"},
        {"wrong magic", SET_BYTE, 3, 'x', 0, TL_EPARSE, "not an m3 model file"},
        {"other format", SET_BYTE, 0, '{', 0, TL_EPARSE, "not an m3 model file"},
        {"unknown version", SET_U32, 8, 2, 0, TL_EPARSE, "version 2, this build reads version 1"},
        {"truncated header", TRUNCATE, 40, 0, 0, TL_EPARSE, "shorter than the 64-byte header"},
        {"truncated model", TRUNCATE, -100, 0, 0, TL_EPARSE, "truncated"},
        {"meta length too long", SET_U32, 24, 1u << 30, 0, TL_EPARSE, "truncated"},
        {"trailing bytes", APPEND, 5, 0, 0, TL_EPARSE, "5 bytes after the end"},
        {"flipped model bit", FLIP_BIT, 1000, 0, 1, TL_EPARSE, "damaged: checksum"},
        {"flipped padding bit", FLIP_BIT, 50, 0, 1, TL_EPARSE, "damaged: checksum"},
        {"zero features", SET_U32, 12, 0, 0, TL_EPARSE, "0 features"},
        {"features disagree", SET_U32, 12, 4, 0, TL_EPARSE, "header says 4 features"},
        {"schema mismatch", SET_U32, 16, SCHEMA + 1, 0, TL_EINVAL,
         "trained on feature schema 8 and this build expects 7"},
        {"NUL in meta", SET_BYTE, 64 + 1, 0, 0, TL_EPARSE, "NUL"},
        /* After the header and "meta", UBJSON's "{" then a length marker; a quote
         * there makes it text JSON that does not parse. */
        {"corrupt XGBoost bytes", SET_BYTE, 64 + 4 + 1, '"', 0, TL_EPARSE, "XGBoost"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *b = malloc(n + 16);
        memcpy(b, bytes, n);
        size_t len = n, at = (size_t)cases[i].at;
        switch (cases[i].edit) {
        case TRUNCATE:
            len = cases[i].at < 0 ? n - (size_t)-cases[i].at : at;
            break;
        case APPEND:
            memset(b + n, 0, at);
            len = n + at;
            break;
        case SET_U32:
            for (int k = 0; k < 4; k++)
                b[at + k] = (unsigned char)(cases[i].value >> (8 * k));
            break;
        case SET_BYTE:
            b[at] = (unsigned char)cases[i].value;
            break;
        case FLIP_BIT:
            b[at] ^= 0x10;
            break;
        }
        if (!cases[i].is_stale_crc && len >= 64)
            put_crc(b, len);
        char *path = tu_temp_path(".m3model");
        FILE *f = fopen(path, "wb");
        fwrite(b, 1, len, f);
        fclose(f);
        tl_err_clear(&err);
        m3_model *m = m3_model_load(path, SCHEMA, SCHEMA, &err);
        if (m)
            fail_msg("%s: loaded", cases[i].name);
        tu_check_err(cases[i].name, &err, cases[i].code, path, cases[i].what);
        remove(path);
        free(path);
        free(b);
    }
    tl_err_clear(&err);
    assert_null(m3_model_load("/nonexistent/model.m3model", SCHEMA, SCHEMA, &err));
    tu_check_err("missing file", &err, TL_EIO, "/nonexistent/model.m3model", NULL);
    remove(good);
    free(good);
    free(bytes);
}

/* ======================== bad requests ======================== */

static void bad_requests_are_refused(void **state)
{
    fixture *fx = *state;
    tl_err err;
    float out[4];

    tl_err_clear(&err);
    assert_int_equal(m3_model_predict(fx->model, fx->valid.x, 1, -1, out, &err), TL_ERANGE);
    tu_check_err("predict: -1 threads", &err, TL_ERANGE, "n_threads", NULL);
    assert_int_equal(m3_model_predict(fx->model, fx->valid.x, 0, 1, out, &err), 0);

    m3_dataset empty, wide, nan_label;
    tl_err_clear(&err);
    assert_int_equal(m3_dataset_init(&empty, 0, &err), TL_EINVAL);
    assert_int_equal(m3_dataset_init(&empty, N_FEATURES, &err), 0);
    assert_int_equal(m3_dataset_init(&wide, 4, &err), 0);
    assert_int_equal(m3_dataset_append(&wide, (float[]){1, 2, 3, 4}, 1, &err), 0);
    assert_int_equal(m3_dataset_init(&nan_label, N_FEATURES, &err), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(m3_dataset_append(&nan_label, (float[]){i, 1, 2}, i == 3 ? NAN : 1, &err),
                         0);

    m3_train_opts o;
    m3_train_opts_default(&o);
    o.n_trees = 2;
    static const struct {
        const char *name;
        int train_set, valid_set; /* 0 train, 1 empty, 2 wide, 3 NaN label, -1 none */
        const char *opt;          /* option to break, NULL for none */
        int code;
        const char *what;
    } cases[] = {
        {"empty training set", 1, -1, NULL, TL_EINVAL, "training set is empty"},
        {"empty validation set", 0, 1, NULL, TL_EINVAL, "validation set is empty"},
        {"feature mismatch", 0, 2, NULL, TL_EINVAL, "validation rows have 4 features"},
        {"NaN label", 3, -1, NULL, TL_EINVAL, "XGBoost"},
        {"n_trees 0", 0, -1, "n_trees", TL_ERANGE, "n_trees"},
        {"max_depth 0", 0, -1, "max_depth", TL_ERANGE, "max_depth"},
        {"eta 0", 0, -1, "eta", TL_ERANGE, "eta"},
        {"subsample 1.5", 0, -1, "subsample", TL_ERANGE, "subsample"},
        {"colsample NaN", 0, -1, "colsample", TL_ERANGE, "colsample"},
        {"min_child_weight -1", 0, -1, "min_child_weight", TL_ERANGE, "min_child_weight"},
        {"n_threads -1", 0, -1, "n_threads", TL_ERANGE, "n_threads"},
    };
    const m3_dataset *sets[4] = {&fx->train, &empty, &wide, &nan_label};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        m3_train_opts bad = o;
        const char *opt = cases[i].opt;
        if (opt && !strcmp(opt, "n_trees"))
            bad.n_trees = 0;
        if (opt && !strcmp(opt, "max_depth"))
            bad.max_depth = 0;
        if (opt && !strcmp(opt, "eta"))
            bad.eta = 0;
        if (opt && !strcmp(opt, "subsample"))
            bad.subsample = 1.5;
        if (opt && !strcmp(opt, "colsample"))
            bad.colsample = NAN;
        if (opt && !strcmp(opt, "min_child_weight"))
            bad.min_child_weight = -1;
        if (opt && !strcmp(opt, "n_threads"))
            bad.n_threads = -1;
        const m3_dataset *valid = cases[i].valid_set < 0 ? NULL : sets[cases[i].valid_set];
        tl_err_clear(&err);
        m3_model *m = m3_model_train(sets[cases[i].train_set], valid, &bad, NULL, &err);
        if (m)
            fail_msg("%s: trained", cases[i].name);
        tu_check_err(cases[i].name, &err, cases[i].code, cases[i].what, NULL);
    }
    m3_dataset_fini(&empty);
    m3_dataset_fini(&wide);
    m3_dataset_fini(&nan_label);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(learns_a_known_function),
        cmocka_unit_test(learns_quantiles),
        cmocka_unit_test(leaf_refit_fits_the_tail),
        cmocka_unit_test(training_is_deterministic),
        cmocka_unit_test(options_reach_xgboost),
        cmocka_unit_test(save_load_round_trip),
        cmocka_unit_test(bad_files_are_refused),
        cmocka_unit_test(bad_requests_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
