/* Accuracy of an estimate against a reference run (DESIGN.md "Data flow"):
 * the relative error (estimate - truth) / truth of the mean, p50, p99 and
 * p99.9 FCT slowdown per size bucket, overall and per traffic class, as the
 * papers report it (parsimon.txt §5, m3.txt §5); and the slowdown CDFs of two
 * per-flow tables, downsampled for plotting. `tailor compare` is built on it. */
#ifndef TAILOR_COMPARE_H
#define TAILOR_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/err.h"
#include "tailor/result.h"

/* The statistics compared: mean, p50, p99, p99.9 (tl_pcts[0], [2], [3]). */
#define TL_CMP_N_STATS 4
extern const char *const tl_cmp_stat_keys[TL_CMP_N_STATS];  /* "mean", "p50", "p99", "p999" */
extern const char *const tl_cmp_stat_names[TL_CMP_N_STATS]; /* "mean", "p50", "p99", "p99.9" */

/* One bucket of one class (or of all classes) on both sides. */
typedef struct tl_cmp_row {
    uint64_t ref_count, est_count;
    double ref[TL_CMP_N_STATS], est[TL_CMP_N_STATS]; /* NaN where the count is 0 */
    double error[TL_CMP_N_STATS];                    /* tl_compare_rel_error(est, ref) */
} tl_cmp_row;

typedef struct tl_compare {
    char ref_engine[32], est_engine[32];
    tl_cmp_row all[TL_N_BUCKETS]; /* over every class */
    uint32_t n_classes;           /* classes present in both summaries */
    char **class_names;           /* (n_classes) owned, in the reference's order */
    tl_cmp_row *by_class;         /* (n_classes, TL_N_BUCKETS) owned: [c * TL_N_BUCKETS + b] */
} tl_compare;

/* (est - ref) / ref, or NaN where it is undefined: either value NaN, or ref
 * not > 0 (a slowdown is >= 1, so only a damaged summary has ref <= 0). */
double tl_compare_rel_error(double est, double ref);

/* Fills out from two summaries (borrowed for the call). Classes are matched
 * by name; those present on one side only are left out (the caller can tell
 * by comparing n_classes). A bucket empty on either side has NaN errors.
 * Errors: TL_ENOMEM; on failure out is left empty (fini is still safe).
 * O(n_ref_classes * n_est_classes) name comparisons. */
int tl_compare_build(const tl_summary *ref, const tl_summary *est, tl_compare *out, tl_err *err);
void tl_compare_fini(tl_compare *c);

/* compare.json: {"ref": ref_label, "est": est_label, "ref_engine", "est_engine",
 * "buckets": {bucket: {"ref": {count, mean, p50, p99, p999}, "est": {same},
 * "error": {mean, p50, p99, p999}}}, "classes": {name: {bucket: same}}}.
 * NaN (and infinity) is null; numbers carry 15 significant digits, as in
 * summary.json. The labels name the two runs (their folders); TL_EINVAL if
 * one is not UTF-8. Atomic (tl_afile). */
int tl_compare_save_json(const tl_compare *c, const char *ref_label, const char *est_label,
                         const char *path, tl_err *err);

/* ---- slowdown CDFs from per-flow tables ---- */

/* The slowdowns of the finished flows of one per-flow table, per size bucket
 * (TL_N_BUCKETS, "all" last), each sorted ascending. */
typedef struct tl_slowdowns {
    double *v[TL_N_BUCKETS]; /* (n[b]) owned */
    size_t n[TL_N_BUCKETS];
} tl_slowdowns;

/* Reads a per-flow CSV as tl_result_save_csv writes it (docs/results.md §2):
 * the exact header, size and slowdown columns; unfinished flows (empty
 * slowdown) are skipped. TL_EPARSE / TL_ERANGE name the file, line and column
 * of a wrong header, a short row, a size that is not an integer > 0 or a
 * slowdown that is not a number >= 1; TL_EIO if it cannot be read; TL_ENOMEM.
 * On failure s is left empty. O(n log n) time, 2n doubles. */
int tl_slowdowns_load_csv(tl_slowdowns *s, const char *path, tl_err *err);
void tl_slowdowns_fini(tl_slowdowns *s);

/* Picks the ranks of a downsampled CDF of n sorted values: at most
 * max_points (>= 8) indices, ascending and distinct, spread evenly over the
 * CDF and its nines (-log10(1 - CDF)) at once, so that the body and the
 * tail of compare.png's curves are both drawn finely, and always including
 * the first, the last (the max) and the two order statistics that the
 * type-7 p99 and p99.9 interpolate between, so the plotted tail is exact.
 * n <= max_points keeps every index. idx must hold max_points entries.
 * Returns the number written. O(max_points log n). */
size_t tl_cdf_sample(size_t n, size_t max_points, size_t *idx);

/* One run's rows in compare_cdf.csv: its per-flow slowdowns, or, for a run
 * with a summary only (m3 estimates distributions, not flows), the
 * percentiles of its summary. */
typedef struct tl_cdf_side {
    const tl_slowdowns *sd;       /* per-flow slowdowns, or NULL: then */
    const tl_slowdown_stats *pts; /* (TL_N_BUCKETS) a summary's buckets: one row per
                                   * percentile tl_pcts[i] that is a number, cdf tl_pcts[i] */
    const char *label;            /* no commas, quotes or newlines: a CSV field and a
                                   * plot title */
} tl_cdf_side;

/* compare_cdf.csv, "bucket,engine,slowdown,cdf": for each bucket, the ref's
 * (side[0]) then the est's (side[1]) rows; a per-flow side is its
 * downsampled CDF (tl_cdf_sample; point i of n has cdf (i+1)/n). A bucket
 * without flows has no rows. TL_EINVAL for max_points < 8, a bad label or a
 * side with neither sd nor pts. Atomic. */
int tl_cdf_save_csv(const tl_cdf_side side[2], size_t max_points, const char *path,
                    tl_err *err);

#endif
