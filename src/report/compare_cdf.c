/* Slowdown CDFs for `tailor compare`'s plot: the finished flows' slowdowns
 * read back from a per-flow table (fct.csv, docs/results.md §2), grouped by
 * size bucket, and compare_cdf.csv, two downsampled CDFs per bucket. The
 * papers judge an estimate by its tail (parsimon.txt §5, m3.txt §5), so the
 * downsampling always keeps the points behind p99, p99.9 and the max. */
#include "tailor/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/quantile.h"

/* ======================== fct.csv ======================== */

#define FCT_HEADER "id,src,dst,size,start_ns,fct_ns,ideal_ns,slowdown,class"
#define FCT_N_COLS 9
#define COL_SIZE 3
#define COL_SLOWDOWN 7

/* Appends x to bucket b, doubling its capacity as needed. */
static int push(tl_slowdowns *s, size_t *cap, int b, double x)
{
    if (s->n[b] == cap[b]) {
        size_t nc = cap[b] ? 2 * cap[b] : 1024;
        double *v = realloc(s->v[b], nc * sizeof *v);
        if (!v)
            return TL_ENOMEM;
        s->v[b] = v;
        cap[b] = nc;
    }
    s->v[b][s->n[b]++] = x;
    return 0;
}

/* Parses one data row: its size bucket and slowdown, or *is_finished = 0
 * for an empty slowdown. line is modified (fields are cut at commas); the
 * class, last, may itself hold commas. */
static int parse_row(char *line, const tl_lines *lr, int *bucket, double *slowdown,
                     int *is_finished, tl_err *err)
{
    char *field[FCT_N_COLS];
    int n = 0;
    field[n++] = line;
    for (char *p = line; *p && n < FCT_N_COLS; p++)
        if (*p == ',') {
            *p = '\0';
            field[n++] = p + 1;
        }
    if (n < FCT_N_COLS)
        return tl_err_at(err, TL_EPARSE, lr->path, lr->line, 1, NULL,
                         "expected %d comma-separated columns (" FCT_HEADER "), found %d",
                         FCT_N_COLS, n);
    const char *f = field[COL_SIZE];
    int col = (int)(f - line) + 1;
    char *end;
    errno = 0;
    unsigned long long size = strtoull(f, &end, 10);
    if (f[0] < '0' || f[0] > '9' || *end || errno == ERANGE || size == 0)
        return tl_err_at(err, TL_EPARSE, lr->path, lr->line, col, NULL,
                         "size: expected an integer number of bytes > 0, found '%s'", f);
    *bucket = tl_bucket_of(size);
    f = field[COL_SLOWDOWN];
    col = (int)(f - line) + 1;
    *is_finished = f[0] != '\0';
    if (!*is_finished)
        return 0;
    *slowdown = strtod(f, &end);
    if (end == f || *end)
        return tl_err_at(err, TL_EPARSE, lr->path, lr->line, col, NULL,
                         "slowdown: expected a number or nothing (unfinished), found '%s'", f);
    if (!(*slowdown >= 1) || isinf(*slowdown))
        return tl_err_at(err, TL_ERANGE, lr->path, lr->line, col, NULL,
                         "slowdown: expected a finite number >= 1, found '%s'", f);
    return 0;
}

int tl_slowdowns_load_csv(tl_slowdowns *s, const char *path, tl_err *err)
{
    memset(s, 0, sizeof *s);
    tl_lines lr;
    int rc = tl_lines_open(&lr, path, err);
    if (rc)
        return rc;
    size_t cap[TL_N_BUCKETS] = {0};
    char *line = tl_lines_next(&lr);
    if (!line || strcmp(line, FCT_HEADER) != 0)
        rc = tl_err_at(err, TL_EPARSE, path, 1, 1, NULL,
                       "expected the per-flow header '" FCT_HEADER "', found '%.80s'",
                       line ? line : "(an empty file)");
    while (!rc && (line = tl_lines_next(&lr))) {
        int b = 0, is_finished = 0;
        double x = 0;
        rc = parse_row(line, &lr, &b, &x, &is_finished, err);
        if (!rc && is_finished && push(s, cap, b, x))
            rc = tl_err_nomem(err);
    }
    if (!rc && ferror(lr.f))
        rc = tl_err_at(err, TL_EIO, path, lr.line, 0, NULL, "read failed");
    rc = tl_lines_result(&lr, rc, err);
    tl_lines_close(&lr);

    /* "all" is the concatenation of the four size buckets. */
    const int all = TL_N_BUCKETS - 1;
    size_t n_all = 0;
    for (int b = 0; b < all; b++)
        n_all += s->n[b];
    if (!rc && n_all && !(s->v[all] = malloc(n_all * sizeof(double))))
        rc = tl_err_nomem(err);
    for (int b = 0; !rc && b < all; b++) {
        if (s->n[b])
            memcpy(s->v[all] + s->n[all], s->v[b], s->n[b] * sizeof(double));
        s->n[all] += s->n[b];
    }
    if (rc) {
        tl_slowdowns_fini(s);
        return rc;
    }
    for (int b = 0; b < TL_N_BUCKETS; b++)
        if (s->n[b])
            qsort(s->v[b], s->n[b], sizeof(double), tl_cmp_double);
    return 0;
}

void tl_slowdowns_fini(tl_slowdowns *s)
{
    if (!s)
        return;
    for (int b = 0; b < TL_N_BUCKETS; b++)
        free(s->v[b]);
    memset(s, 0, sizeof *s);
}

/* ======================== downsampled CDF ======================== */

/* The ranks that must survive downsampling: the min, the max, and the two
 * order statistics each of p99 and p99.9 interpolates between (type 7, as
 * tl_quantile_sorted: h = q (n - 1)). */
#define N_KEPT 6

/* Where rank r of n > 1 sorted values sits on compare.png's two axes, each
 * scaled to [0, 1] and added: the CDF, r / (n - 1), and its "nines",
 * -log10(1 - r / n) / log10(n). Increasing in r, from 0 to 2: ranks evenly
 * spaced in it fill the body of the curve and its tail alike. */
static double cdf_pos(size_t r, size_t n)
{
    return (double)r / (double)(n - 1) + log10((double)n / (double)(n - r)) / log10((double)n);
}

/* Counts rank r, and writes it to idx unless idx is NULL, when it is not the
 * last one put (ranks come ascending). */
static void put_rank(size_t *idx, size_t *out, size_t *last, size_t r)
{
    if (r == *last)
        return;
    if (idx)
        idx[*out] = r;
    ++*out, *last = r;
}

/* Ranks of m >= 2 targets evenly spaced in cdf_pos, merged with the sorted
 * kept ones, each once (near the max several targets land on one rank):
 * written to idx unless it is NULL; returns how many. O(m log n). */
static size_t sample_pass(size_t n, const size_t kept[N_KEPT], size_t m, size_t *idx)
{
    size_t out = 0, j = 0, lo = 0, last = SIZE_MAX;
    for (size_t k = 0; k <= m; k++) {
        size_t r = n; /* past the end: the kept ranks left after the last target */
        if (k < m) {
            double target = 2.0 * (double)k / (double)(m - 1);
            size_t hi = n - 1; /* the least rank at or past target, in [lo, n - 1] */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (cdf_pos(mid, n) >= target)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            r = lo;
        }
        for (; j < N_KEPT && kept[j] <= r; j++)
            put_rank(idx, &out, &last, kept[j]);
        if (r < n)
            put_rank(idx, &out, &last, r);
    }
    return out;
}

size_t tl_cdf_sample(size_t n, size_t max_points, size_t *idx)
{
    if (n <= max_points) {
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        return n;
    }
    size_t kept[N_KEPT] = {0, n - 1};
    static const double tail_q[2] = {0.99, 0.999};
    for (int i = 0; i < 2; i++) {
        size_t lo = (size_t)(tail_q[i] * (double)(n - 1));
        kept[2 + 2 * i] = lo;
        kept[3 + 2 * i] = lo + 1 < n ? lo + 1 : lo;
    }
    for (int i = 1; i < N_KEPT; i++) /* insertion sort: six values */
        for (int j = i; j > 0 && kept[j - 1] > kept[j]; j--) {
            size_t t = kept[j];
            kept[j] = kept[j - 1];
            kept[j - 1] = t;
        }
    /* max_points - N_KEPT targets always fit; targets that share a rank
     * leave room, so add that many more while the points still fit (a few
     * rounds). */
    size_t m = max_points - N_KEPT, got = sample_pass(n, kept, m, NULL);
    for (int round = 0; round < 16 && got < max_points; round++) {
        size_t more = m + (max_points - got), k = sample_pass(n, kept, more, NULL);
        if (k > max_points || k <= got)
            break;
        m = more, got = k;
    }
    return sample_pass(n, kept, m, idx);
}

static int is_plain_label(const char *s)
{
    if (!s[0])
        return 0;
    for (; *s; s++)
        if (*s == ',' || *s == '"' || *s == '\'' || *s == '\n' || *s == '\r')
            return 0;
    return 1;
}

int tl_cdf_save_csv(const tl_cdf_side side[2], size_t max_points, const char *path,
                    tl_err *err)
{
    if (max_points < 8)
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "a CDF needs at least 8 points, asked for %zu", max_points);
    if (!is_plain_label(side[0].label) || !is_plain_label(side[1].label))
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "CDF labels must be non-empty, without commas, quotes or newlines: "
                         "'%s', '%s'",
                         side[0].label, side[1].label);
    if ((!side[0].sd && !side[0].pts) || (!side[1].sd && !side[1].pts))
        return tl_err_at(err, TL_EINVAL, path, 0, 0, NULL,
                         "each run needs per-flow slowdowns or a summary");
    size_t *idx = malloc(max_points * sizeof *idx);
    if (!idx)
        return tl_err_nomem(err);
    tl_afile af;
    FILE *f = tl_afile_open(&af, path, err);
    if (!f) {
        free(idx);
        return err ? err->code : TL_EIO;
    }
    fputs("bucket,engine,slowdown,cdf\n", f);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        for (int k = 0; k < 2; k++) {
            const tl_slowdowns *s = side[k].sd;
            const tl_slowdown_stats *st = s ? NULL : &side[k].pts[b];
            size_t n = s ? s->n[b] : 0, m = s ? tl_cdf_sample(n, max_points, idx) : 0;
            for (size_t i = 0; i < m; i++)
                fprintf(f, "%s,%s,%.6f,%.9g\n", tl_bucket_names[b], side[k].label,
                        s->v[b][idx[i]], (double)(idx[i] + 1) / (double)n);
            for (int i = 0; st && st->count && i < TL_N_PCTS; i++)
                if (isfinite(st->p[i]))
                    fprintf(f, "%s,%s,%.6f,%.9g\n", tl_bucket_names[b], side[k].label,
                            st->p[i], tl_pcts[i]);
        }
    free(idx);
    return tl_afile_commit(&af, err);
}
