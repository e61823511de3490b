/* Comparison of two runs (tailor/compare.h, docs/results.md §5): relative
 * errors of hand-built summaries against hand-computed values, empty buckets
 * and classes on one side only, the compare.json shape, the per-flow table
 * reader with located errors, and the downsampled CDFs' kept tail points. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/compare.h"
#include "testutil.h"

enum { B_1K, B_10K, B_50K, B_BIG, B_ALL };

/* Both NaN, or within a relative 1e-12 (the JSON round trip keeps 15 digits). */
static int close_to(double got, double want)
{
    if (isnan(want))
        return isnan(got);
    return fabs(got - want) <= 1e-12 * fmax(1, fabs(want));
}

/* A summary with every bucket empty (count 0, NaN) over all classes; the
 * per-class buckets stay calloc'd zeros, as a careless producer would leave
 * them, to check that count 0 alone makes a bucket empty. */
static void make_summary(tl_summary *s, const char *engine, const char *const *classes,
                         uint32_t n_classes)
{
    memset(s, 0, sizeof *s);
    snprintf(s->engine, sizeof s->engine, "%s", engine);
    s->n_classes = n_classes;
    s->class_names = calloc(n_classes, sizeof *s->class_names);
    s->by_class = calloc((size_t)n_classes * TL_N_BUCKETS, sizeof *s->by_class);
    assert_non_null(s->class_names);
    assert_non_null(s->by_class);
    for (uint32_t c = 0; c < n_classes; c++)
        assert_non_null(s->class_names[c] = strdup(classes[c]));
    for (int b = 0; b < TL_N_BUCKETS; b++)
        s->all[b] = (tl_slowdown_stats){0, NAN, {NAN, NAN, NAN, NAN}};
}

/* p90 is not compared; it gets a value that would show if it were. */
static void set_stats(tl_slowdown_stats *st, uint64_t count, double mean, double p50, double p99,
                      double p999)
{
    *st = (tl_slowdown_stats){count, mean, {p50, -1000, p99, p999}};
}

static tl_slowdown_stats *cls(tl_summary *s, uint32_t c, int b)
{
    return &s->by_class[(size_t)c * TL_N_BUCKETS + b];
}

/* The two summaries every case below uses, and the errors they must give. */
static void make_pair(tl_summary *ref, tl_summary *est)
{
    static const char *const ref_classes[] = {"web", "db", "only-ref"};
    static const char *const est_classes[] = {"db", "web", "only-est"};
    make_summary(ref, "pktsim", ref_classes, 3);
    make_summary(est, "flowsim", est_classes, 3);
    /* 0-1KB: the slowdowns 1..100 (docs/results.md: mean 50.5, p50 50.5,
     * p99 99.01, p99.9 99.901) against an estimate chosen for round errors. */
    set_stats(&ref->all[B_1K], 100, 50.5, 50.5, 99.01, 99.901);
    set_stats(&est->all[B_1K], 100, 60.6, 45.45, 99.01, 119.8812);
    /* 1-10KB: no reference flows; 10-50KB: no estimated flows; 50KB+: none. */
    set_stats(&est->all[B_10K], 5, 2, 2, 2, 2);
    set_stats(&ref->all[B_50K], 3, 2, 2, 2, 2);
    set_stats(&ref->all[B_ALL], 103, 4, 2, 8, 10);
    set_stats(&est->all[B_ALL], 105, 3, 3, 12, 5);
    /* Classes are matched by name, not position: ref's web is est's class 1. */
    set_stats(cls(ref, 0, B_1K), 10, 2, 2, 2, 2);
    set_stats(cls(est, 1, B_1K), 10, 3, 1, 2, 2.5);
    set_stats(cls(ref, 1, B_ALL), 7, 4, 4, 4, 4);
    set_stats(cls(est, 0, B_ALL), 7, 1, 4, 4, 4);
}

static void check_row(const char *name, const tl_cmp_row *r, uint64_t ref_n, uint64_t est_n,
                      const double want[TL_CMP_N_STATS])
{
    int ok = r->ref_count == ref_n && r->est_count == est_n;
    for (int k = 0; k < TL_CMP_N_STATS; k++)
        ok = ok && close_to(r->error[k], want[k]);
    if (!ok)
        fail_msg("%s: counts %llu/%llu (want %llu/%llu), errors %g %g %g %g (want %g %g %g %g)",
                 name, (unsigned long long)r->ref_count, (unsigned long long)r->est_count,
                 (unsigned long long)ref_n, (unsigned long long)est_n, r->error[0], r->error[1],
                 r->error[2], r->error[3], want[0], want[1], want[2], want[3]);
}

static void rel_error_definition(void **state)
{
    static const struct {
        const char *name;
        double est, ref, want;
    } cases[] = {
        {"10% over: (11 - 10) / 10", 11, 10, 0.1},
        {"half under: (1 - 2) / 2", 1, 2, -0.5},
        {"equal", 3, 3, 0},
        {"est NaN (empty)", NAN, 2, NAN},
        {"ref NaN (empty)", 2, NAN, NAN},
        {"ref 0: undefined", 1, 0, NAN},
        {"ref negative: undefined", 1, -2, NAN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!close_to(tl_compare_rel_error(cases[i].est, cases[i].ref), cases[i].want))
            fail_msg("%s: got %g, want %g", cases[i].name,
                     tl_compare_rel_error(cases[i].est, cases[i].ref), cases[i].want);
}

static void build_hand_computed(void **state)
{
    tl_summary ref, est;
    make_pair(&ref, &est);
    tl_compare c;
    assert_int_equal(tl_compare_build(&ref, &est, &c, NULL), 0);
    assert_string_equal(c.ref_engine, "pktsim");
    assert_string_equal(c.est_engine, "flowsim");

    /* 0-1KB: mean (60.6 - 50.5) / 50.5 = 10.1 / 50.5 = 0.2; p50 (45.45 -
     * 50.5) / 50.5 = -5.05 / 50.5 = -0.1; p99 equal: 0; p99.9 (119.8812 -
     * 99.901) / 99.901 = 19.9802 / 99.901 = 0.2. */
    check_row("all 0-1KB", &c.all[B_1K], 100, 100, (double[]){0.2, -0.1, 0, 0.2});
    assert_true(c.all[B_1K].ref[2] == 99.01 && c.all[B_1K].est[3] == 119.8812);
    /* A side without flows: no error, but the other side's count is kept. */
    check_row("all 1-10KB (no ref flows)", &c.all[B_10K], 0, 5, (double[]){NAN, NAN, NAN, NAN});
    check_row("all 10-50KB (no est flows)", &c.all[B_50K], 3, 0, (double[]){NAN, NAN, NAN, NAN});
    check_row("all 50KB+ (empty)", &c.all[B_BIG], 0, 0, (double[]){NAN, NAN, NAN, NAN});
    assert_true(isnan(c.all[B_10K].ref[0]) && c.all[B_10K].est[0] == 2);
    /* all: mean (3 - 4) / 4 = -0.25; p50 (3 - 2) / 2 = 0.5; p99 (12 - 8) / 8
     * = 0.5; p99.9 (5 - 10) / 10 = -0.5. */
    check_row("all all", &c.all[B_ALL], 103, 105, (double[]){-0.25, 0.5, 0.5, -0.5});

    /* Classes in both, in ref's order; only-ref and only-est have no row. */
    assert_int_equal(c.n_classes, 2);
    assert_string_equal(c.class_names[0], "web");
    assert_string_equal(c.class_names[1], "db");
    /* web 0-1KB: mean (3 - 2) / 2 = 0.5; p50 (1 - 2) / 2 = -0.5; p99 0;
     * p99.9 (2.5 - 2) / 2 = 0.25. Its other buckets were left at zeros with
     * count 0: empty, not an error of (0 - 0) / 0. */
    const tl_cmp_row *web = &c.by_class[0], *db = &c.by_class[TL_N_BUCKETS];
    check_row("web 0-1KB", &web[B_1K], 10, 10, (double[]){0.5, -0.5, 0, 0.25});
    check_row("web 50KB+ (zeros, count 0)", &web[B_BIG], 0, 0, (double[]){NAN, NAN, NAN, NAN});
    assert_true(isnan(web[B_BIG].ref[1]) && isnan(web[B_BIG].est[1]));
    /* db all: mean (1 - 4) / 4 = -0.75; the percentiles are equal: 0. */
    check_row("db all", &db[B_ALL], 7, 7, (double[]){-0.75, 0, 0, 0});

    tl_compare_fini(&c);
    tl_compare_fini(&c); /* fini leaves an empty value */
    tl_summary_fini(&ref);
    tl_summary_fini(&est);
}

static json_t *at(json_t *o, const char *k1, const char *k2, const char *k3, const char *k4)
{
    const char *keys[] = {k1, k2, k3, k4};
    for (int i = 0; i < 4 && keys[i] && o; i++)
        o = json_object_get(o, keys[i]);
    if (!o)
        fail_msg("missing %s.%s.%s.%s", k1, k2 ? k2 : "", k3 ? k3 : "", k4 ? k4 : "");
    return o;
}

static void json_shape_and_values(void **state)
{
    tl_summary ref, est;
    make_pair(&ref, &est);
    tl_compare c;
    assert_int_equal(tl_compare_build(&ref, &est, &c, NULL), 0);
    char *path = tu_temp_path(".json");
    tl_err err;
    tl_err_clear(&err);
    if (tl_compare_save_json(&c, "runs/ref", "runs/est", path, &err) != 0)
        fail_msg("%s", err.msg);
    char *text = tu_read_file(path, NULL);
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        fail_msg("compare.json does not parse: %s", je.text);

    assert_int_equal(json_object_size(root), 6);
    assert_string_equal(json_string_value(at(root, "ref", NULL, NULL, NULL)), "runs/ref");
    assert_string_equal(json_string_value(at(root, "est", NULL, NULL, NULL)), "runs/est");
    assert_string_equal(json_string_value(at(root, "ref_engine", NULL, NULL, NULL)), "pktsim");
    assert_string_equal(json_string_value(at(root, "est_engine", NULL, NULL, NULL)), "flowsim");
    json_t *buckets = at(root, "buckets", NULL, NULL, NULL);
    assert_int_equal(json_object_size(buckets), TL_N_BUCKETS);
    for (int b = 0; b < TL_N_BUCKETS; b++) {
        json_t *row = at(buckets, tl_bucket_names[b], NULL, NULL, NULL);
        assert_int_equal(json_object_size(row), 3);
        assert_int_equal(json_object_size(at(row, "ref", NULL, NULL, NULL)), 5);   /* no p90 */
        assert_int_equal(json_object_size(at(row, "error", NULL, NULL, NULL)), 4); /* no count */
    }
    /* The numbers of build_hand_computed, back from text. */
    static const struct {
        const char *bucket, *side, *key;
        double want; /* NaN: null */
    } cases[] = {
        {"0-1KB", "error", "mean", 0.2}, {"0-1KB", "error", "p50", -0.1},
        {"0-1KB", "error", "p99", 0},    {"0-1KB", "error", "p999", 0.2},
        {"0-1KB", "ref", "p99", 99.01},  {"0-1KB", "est", "p999", 119.8812},
        {"all", "error", "mean", -0.25}, {"all", "error", "p999", -0.5},
        {"1-10KB", "error", "p99", NAN}, {"1-10KB", "ref", "mean", NAN},
        {"1-10KB", "est", "mean", 2},    {"10-50KB", "error", "p50", NAN},
        {"50KB+", "est", "p999", NAN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *v = at(buckets, cases[i].bucket, cases[i].side, cases[i].key, NULL);
        int ok = isnan(cases[i].want)
                     ? json_is_null(v)
                     : json_is_number(v) && close_to(json_number_value(v), cases[i].want);
        if (!ok)
            fail_msg("buckets.%s.%s.%s: want %g", cases[i].bucket, cases[i].side, cases[i].key,
                     cases[i].want);
    }
    assert_int_equal(json_integer_value(at(buckets, "1-10KB", "est", "count", NULL)), 5);
    assert_int_equal(json_integer_value(at(buckets, "1-10KB", "ref", "count", NULL)), 0);

    json_t *classes = at(root, "classes", NULL, NULL, NULL);
    assert_int_equal(json_object_size(classes), 2);
    assert_true(close_to(json_number_value(at(classes, "db", "all", "error", "mean")), -0.75));
    assert_true(close_to(json_number_value(at(classes, "web", "0-1KB", "error", "p999")), 0.25));
    assert_true(json_is_null(at(classes, "web", "50KB+", "error", "mean")));
    json_decref(root);
    free(text);

    /* Errors: an unwritable target is named and nothing appears; a label
     * that is not UTF-8 cannot go into JSON. */
    tl_err_clear(&err);
    assert_int_equal(tl_compare_save_json(&c, "a", "b", "/nonexistent-dir/compare.json", &err),
                     TL_EIO);
    tu_check_err("unwritable", &err, TL_EIO, "/nonexistent-dir/compare.json", NULL);
    remove(path);
    tl_err_clear(&err);
    assert_int_equal(tl_compare_save_json(&c, "\xff", "b", path, &err), TL_EINVAL);
    tu_check_err("not UTF-8", &err, TL_EINVAL, "UTF-8", NULL);
    assert_null(tu_read_file(path, NULL));
    free(path);
    tl_compare_fini(&c);
    tl_summary_fini(&ref);
    tl_summary_fini(&est);
}

/* ======================== per-flow tables and CDFs ======================== */

#define HEADER "id,src,dst,size,start_ns,fct_ns,ideal_ns,slowdown,class\n"

static void load_slowdowns_by_bucket(void **state)
{
    /* Sizes 1000 and 500 are 0-1KB (upper bounds inclusive), 1001 is 1-10KB,
     * 60000 is 50KB+; flow 2 did not finish; flow 3's class holds a comma. */
    char *path = tu_write_temp(HEADER "0,1,2,1000,0,2000,1000,2.000000,web\n"
                                      "1,1,2,1001,0,3000,1000,3.000000,web\n"
                                      "2,1,2,60000,0,,1000,,big\n"
                                      "3,1,2,60000,0,1000,1000,1.000000,a,b\n"
                                      "4,1,2,500,0,1500,1000,1.500000,web\n",
                               ".csv");
    tl_slowdowns s;
    tl_err err;
    tl_err_clear(&err);
    if (tl_slowdowns_load_csv(&s, path, &err) != 0)
        fail_msg("%s", err.msg);
    static const size_t want_n[TL_N_BUCKETS] = {2, 1, 0, 1, 4};
    for (int b = 0; b < TL_N_BUCKETS; b++)
        if (s.n[b] != want_n[b])
            fail_msg("bucket %s: %zu slowdowns, want %zu", tl_bucket_names[b], s.n[b], want_n[b]);
    assert_true(s.v[B_1K][0] == 1.5 && s.v[B_1K][1] == 2); /* sorted */
    assert_true(s.v[B_ALL][0] == 1 && s.v[B_ALL][1] == 1.5 && s.v[B_ALL][2] == 2 &&
                s.v[B_ALL][3] == 3);

    /* compare_cdf.csv: ref then est per bucket, cdf (i + 1) / n. */
    char *cdf = tu_temp_path(".csv");
    tl_cdf_side sides[2] = {{.sd = &s, .label = "pktsim"}, {.sd = &s, .label = "flowsim"}};
    assert_int_equal(tl_cdf_save_csv(sides, 8, cdf, &err), 0);
    char *text = tu_read_file(cdf, NULL);
    assert_non_null(strstr(text, "bucket,engine,slowdown,cdf\n"
                                 "0-1KB,pktsim,1.500000,0.5\n0-1KB,pktsim,2.000000,1\n"
                                 "0-1KB,flowsim,1.500000,0.5\n"));
    assert_non_null(strstr(text, "all,flowsim,1.000000,0.25\nall,flowsim,1.500000,0.5\n"
                                 "all,flowsim,2.000000,0.75\nall,flowsim,3.000000,1\n"));
    assert_null(strstr(text, "10-50KB"));
    free(text);

    /* A run with a summary only (m3): its percentiles, at their cdf; a NaN
     * percentile and an empty bucket give no row. */
    tl_slowdown_stats pts[TL_N_BUCKETS] = {0};
    pts[B_1K] = (tl_slowdown_stats){.count = 3, .p = {1.25, 2.5, 4, NAN}};
    pts[B_ALL] = (tl_slowdown_stats){.count = 9, .p = {1.5, 3, 6, 9}};
    pts[B_50K] = (tl_slowdown_stats){.count = 0, .p = {7, 7, 7, 7}};
    sides[1] = (tl_cdf_side){.pts = pts, .label = "m3"};
    assert_int_equal(tl_cdf_save_csv(sides, 8, cdf, &err), 0);
    text = tu_read_file(cdf, NULL);
    assert_non_null(strstr(text, "0-1KB,pktsim,2.000000,1\n0-1KB,m3,1.250000,0.5\n"
                                 "0-1KB,m3,2.500000,0.9\n0-1KB,m3,4.000000,0.99\n1-10KB,"));
    assert_non_null(strstr(text, "all,m3,1.500000,0.5\nall,m3,3.000000,0.9\n"
                                 "all,m3,6.000000,0.99\nall,m3,9.000000,0.999\n"));
    assert_null(strstr(text, "10-50KB,m3")); /* a count of 0 */
    free(text);
    tl_cdf_side none[2] = {{.sd = &s, .label = "a"}, {.label = "b"}};
    tl_err_clear(&err);
    assert_int_equal(tl_cdf_save_csv(none, 8, cdf, &err), TL_EINVAL);
    static const struct {
        const char *name, *ref_label;
        size_t max_points;
    } bad[] = {{"comma in label", "a,b", 8},
               {"quote in label", "it's", 8},
               {"empty label", "", 8},
               {"too few points", "a", 7}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tl_err_clear(&err);
        remove(cdf);
        tl_cdf_side bs[2] = {{.sd = &s, .label = bad[i].ref_label}, {.sd = &s, .label = "b"}};
        if (tl_cdf_save_csv(bs, bad[i].max_points, cdf, &err) !=
                TL_EINVAL ||
            tu_read_file(cdf, NULL))
            fail_msg("%s: expected TL_EINVAL and no file", bad[i].name);
    }
    free(cdf);
    tl_slowdowns_fini(&s);
    remove(path);
    free(path);
}

static void load_slowdowns_bad_input_is_located(void **state)
{
    static const struct {
        const char *name, *text;
        int code;
        const char *where, *what;
    } cases[] = {
        {"empty file", "", TL_EPARSE, ":1:1:", "expected the per-flow header"},
        {"flow-file header", "id,src,dst,size,start_ns,class\n", TL_EPARSE,
         ":1:1:", "found 'id,src"},
        {"short row", HEADER "0,1,2,1000\n", TL_EPARSE, ":2:1:", "found 4"},
        /* "0,1,2," is 6 characters: size starts at column 7. */
        {"size not an integer", HEADER "0,1,2,1e3,0,2,1,2.0,c\n", TL_EPARSE, ":2:7:", "'1e3'"},
        {"size 0", HEADER "0,1,2,0,0,2,1,2.0,c\n", TL_EPARSE, ":2:7:", "size"},
        {"size negative", HEADER "0,1,2,-5,0,2,1,2.0,c\n", TL_EPARSE, ":2:7:", "'-5'"},
        /* "0,1,2,1000,0,2,1," is 17 characters: slowdown starts at column 18. */
        {"slowdown text", HEADER "0,1,2,1000,0,2,1,abc,c\n", TL_EPARSE, ":2:18:", "'abc'"},
        {"slowdown trailing", HEADER "0,1,2,1000,0,2,1,2.0x,c\n", TL_EPARSE, ":2:18:", "'2.0x'"},
        {"slowdown below 1", HEADER "0,1,2,1000,0,2,1,0.5,c\n", TL_ERANGE, ":2:18:", ">= 1"},
        {"slowdown nan", HEADER "0,1,2,1000,0,2,1,nan,c\n", TL_ERANGE, ":2:18:", "'nan'"},
        {"slowdown inf", HEADER "0,1,2,1000,0,2,1,inf,c\n", TL_ERANGE, ":2:18:", "'inf'"},
        {"third row", HEADER "0,1,2,1000,0,2,1,2,c\n1,1,2,1000,0,2,1,2,c\n\n", TL_EPARSE,
         ":4:1:", "found 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path = tu_write_temp(cases[i].text, ".csv");
        tl_slowdowns s;
        tl_err err;
        tl_err_clear(&err);
        int rc = tl_slowdowns_load_csv(&s, path, &err);
        if (rc != cases[i].code)
            fail_msg("%s: returned %d, want %d", cases[i].name, rc, cases[i].code);
        tu_check_err(cases[i].name, &err, cases[i].code, cases[i].where, cases[i].what);
        for (int b = 0; b < TL_N_BUCKETS; b++)
            assert_true(s.n[b] == 0 && s.v[b] == NULL); /* left empty */
        remove(path);
        free(path);
    }
    tl_slowdowns s;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_slowdowns_load_csv(&s, "/nonexistent/fct.csv", &err), TL_EIO);
    tu_check_err("missing file", &err, TL_EIO, "/nonexistent/fct.csv", NULL);
}

static void cdf_sample_keeps_the_tail(void **state)
{
    static const struct {
        const char *name;
        size_t n, max_points;
    } cases[] = {
        {"empty", 0, 8},
        {"fewer than max", 5, 8},
        {"exactly max", 8, 8},
        {"one over, tail overlaps", 9, 8},
        {"small", 37, 10},
        {"1000 flows", 1000, 1000},
        {"1001 flows", 1001, 1000},
        {"100k flows", 100000, 1000},
        {"3.3M flows", 3333333, 1000},
    };
    size_t idx[1000];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t n = cases[i].n, k = tl_cdf_sample(n, cases[i].max_points, idx);
        const char *name = cases[i].name;
        if (n <= cases[i].max_points) {
            if (k != n)
                fail_msg("%s: %zu points, want all %zu", name, k, n);
        } else if (k > cases[i].max_points || k < cases[i].max_points - 6) {
            fail_msg("%s: %zu points for at most %zu", name, k, cases[i].max_points);
        }
        if (n == 0)
            continue;
        for (size_t j = 1; j < k; j++)
            if (idx[j] <= idx[j - 1])
                fail_msg("%s: ranks not increasing at %zu", name, j);
        if (idx[0] != 0 || idx[k - 1] != n - 1)
            fail_msg("%s: the min and the max must be kept", name);
        /* The order statistics p99 and p99.9 interpolate between: h = q (n - 1),
         * e.g. for 100,000 flows h = 98,999.01 (ranks 98,999 and 99,000) and
         * 99,899.001 (ranks 99,899 and 99,900). */
        static const double qs[2] = {0.99, 0.999};
        for (int q = 0; q < 2; q++) {
            size_t lo = (size_t)(qs[q] * (double)(n - 1)), hi = lo + 1 < n ? lo + 1 : lo;
            int has_lo = 0, has_hi = 0;
            for (size_t j = 0; j < k; j++) {
                has_lo |= idx[j] == lo;
                has_hi |= idx[j] == hi;
            }
            if (!has_lo || !has_hi)
                fail_msg("%s: ranks %zu and %zu (q %g) must be kept", name, lo, hi, qs[q]);
        }
    }
    /* The 100k case by hand. */
    size_t k = tl_cdf_sample(100000, 1000, idx);
    int found = 0;
    for (size_t j = 0; j < k; j++)
        found += idx[j] == 98999 || idx[j] == 99000 || idx[j] == 99899 || idx[j] == 99900;
    assert_int_equal(found, 4);
    /* compare.png's CDF axis is in nines: the 1,000 points cover the tail as
     * well as the body (evenly spaced ranks would put 10 in the top 1%). */
    int top1 = 0, top01 = 0, body = 0;
    for (size_t j = 0; j < k; j++)
        top1 += idx[j] >= 99000, top01 += idx[j] >= 99900, body += idx[j] < 50000;
    if (top1 < 150 || top01 < 50 || body < 250)
        fail_msg("100k flows: %d points in the top 1%%, %d in the top 0.1%%, %d below the median",
                 top1, top01, body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rel_error_definition),
        cmocka_unit_test(build_hand_computed),
        cmocka_unit_test(json_shape_and_values),
        cmocka_unit_test(load_slowdowns_by_bucket),
        cmocka_unit_test(load_slowdowns_bad_input_is_located),
        cmocka_unit_test(cdf_sample_keeps_the_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
