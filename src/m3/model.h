/* The learned model of m3 (m3.txt §3.4): maps a path's flowSim features to a corrected
 * slowdown. Gradient-boosted trees on the XGBoost C API (DESIGN.md's dependency table)
 * replace the paper's transformer + MLP: they train on CPU in minutes. File format,
 * parameters, determinism and costs: docs/m3.md "Model files". */
#ifndef TAILOR_M3_MODEL_H
#define TAILOR_M3_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tailor/err.h"

/* ---- datasets ---- */

/* Rows of n_features floats with one float label each, grown by append. NaN in x
 * means "missing" to XGBoost; labels must be finite. */
typedef struct m3_dataset {
    float *x;            /* (n_rows, n_features) row-major */
    float *y;            /* (n_rows) */
    float *q;            /* (n_rows) target quantile of each row (pinball loss), or NULL:
                          * squared error; a dataset is one or the other */
    size_t n_rows, cap;  /* cap: rows allocated */
    uint32_t n_features; /* >= 1 */
} m3_dataset;

/* Empty dataset. TL_EINVAL when n_features is 0. */
int m3_dataset_init(m3_dataset *d, uint32_t n_features, tl_err *err);
/* Copies row (n_features floats) and label; amortized O(n_features). TL_ENOMEM. */
int m3_dataset_append(m3_dataset *d, const float *row, float label, tl_err *err);
/* A row whose label is one observation and whose prediction is to be the
 * q-quantile of such observations (pinball loss). */
int m3_dataset_append_q(m3_dataset *d, const float *row, float label, float q, tl_err *err);
/* Frees the rows and leaves an empty dataset (fini twice is safe). */
void m3_dataset_fini(m3_dataset *d);

/* ---- training ---- */

#define M3_MAX_TREES 1000000u

typedef struct m3_train_opts {
    uint32_t n_trees;        /* boosting rounds, 1..M3_MAX_TREES (default 400) */
    uint32_t max_depth;      /* 1..32 (default 8) */
    double eta;              /* learning rate in (0, 1] (default 0.05) */
    double subsample;        /* row subsample per tree in (0, 1] (default 0.8) */
    double colsample;        /* column subsample per tree in (0, 1] (default 0.8) */
    double min_child_weight; /* >= 0, the least hessian (= rows, for squared error) per leaf (5) */
    int n_threads;           /* >= 0; 0 = all cores */
    uint64_t seed;           /* XGBoost takes seed mod 2^63 (default 0) */
    uint32_t calib_min;      /* fabric data: calibration scenarios needed to calibrate (50) */
    uint32_t calib_folds;    /* fabric data: >= 2 calibrates on the training scenarios' residuals
                              * out of this many folds instead (0) */
    int leaf_refit;          /* pinball loss: set each tree's leaves to the loss's minimizer
                              * over their rows instead of XGBoost's Newton step (0) */
} m3_train_opts;

void m3_train_opts_default(m3_train_opts *o);

typedef struct m3_model m3_model;

/* Trains a regression model (reg:squarederror, tree_method hist) on train; o NULL
 * means the defaults. Borrows train and valid for the call. When valid and log
 * are both non-NULL, writes to log a line every 50 rounds and after the last:
 * "[k]\ttrain-rmse:...\tvalid-rmse:..." where k is the number of rounds done.
 * The same seed and thread count give the same model; see docs/m3.md for other
 * thread counts. Errors: TL_EINVAL (empty train or valid, valid with another
 * feature count, XGBoost refusing the data, e.g. a label that is not finite),
 * TL_ERANGE (an option out of range), TL_ENOMEM. Cost: O(n_trees x rows x
 * features) for the histograms. */
m3_model *m3_model_train(const m3_dataset *train, const m3_dataset *valid, const m3_train_opts *o,
                         FILE *log, tl_err *err);

/* ---- files ---- */

/* Writes the model file atomically (temp + rename): the 64-byte header with a
 * CRC-32 of the file, meta (UTF-8 text, e.g. a JSON line; NULL means empty) and
 * the XGBoost model in UBJSON. feature_schema: the version of the caller's
 * feature layout the model was trained on, checked by load. Errors name path:
 * TL_EIO, TL_EINVAL (XGBoost cannot serialize the model), TL_ENOMEM. Not
 * reentrant, like m3_model_predict. */
int m3_model_save(const m3_model *m, const char *path, uint32_t feature_schema, const char *meta,
                  tl_err *err);

/* Reads and checks a model file. Every error names path: TL_EIO (cannot
 * read), TL_EPARSE (not a model file, unknown format version, lengths that do
 * not match the file size, a wrong checksum, XGBoost refusing the model bytes),
 * TL_EINVAL (trained on a feature schema outside min_schema..max_schema:
 * re-train), TL_ENOMEM. Reads the whole file: O(file bytes). */
m3_model *m3_model_load(const char *path, uint32_t min_schema, uint32_t max_schema,
                        tl_err *err);

/* Checks that XGBoost model bytes (UBJSON) hold one well-formed value whose every
 * length and count fits in the n bytes, as XGBoost's reader assumes (ubjson.c).
 * Returns 0, or -1 with the offset at fault and the reason (static text). O(n). */
int m3_ubj_check(const unsigned char *b, size_t n, size_t *bad_at, const char **why);

/* Accepts NULL. */
void m3_model_destroy(m3_model *m);

uint32_t m3_model_n_features(const m3_model *m);
/* The feature schema a loaded model was trained on (0 for one trained here). */
uint32_t m3_model_schema(const m3_model *m);
/* The CRC-32 in a loaded model's header, which names the file's exact bytes
 * (0 for one trained here). */
uint32_t m3_model_crc(const m3_model *m);
/* The metadata text of a loaded model, "" if none (and for a trained model);
 * borrowed from m. */
const char *m3_model_meta(const m3_model *m);

/* ---- prediction ---- */

/* Predicts n_rows rows (row-major, m3_model_n_features(m) floats each; NaN =
 * missing) into out[n_rows]. The caller checks the feature count once, after
 * load. Deterministic: the same rows give the same bits whatever n_threads
 * (0 = all cores) and after save + load. Not reentrant: call it from one thread
 * at a time per model, because XGBoost keeps the thread count and the output
 * buffer inside the booster; other models may predict concurrently.
 * TL_ERANGE (n_threads < 0), TL_EINVAL (XGBoost failed). O(n_rows x n_trees x
 * max_depth). */
int m3_model_predict(const m3_model *m, const float *x, size_t n_rows, int n_threads, float *out,
                     tl_err *err);

#endif
