/* Tests for flow-size distributions (src/workload/sizedist.c): the built-in
 * CDFs against the means published with them (parsimon-eval, HPCC, ConWeave
 * and Uno READMEs in ../shared/data), sampled means against exact means,
 * inverse-CDF interpolation against hand-computed values, and bad input. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/fileio.h"
#include "tailor/sizedist.h"

#define SEED 20240611u

/* ------------------------------------------------------ independent helpers */

/* Mean and second moment of the linear-interpolation sampler, computed here
 * from the points as read by this test (not by the library): between points
 * the size is uniform on [a, b], so E[X] adds (a+b)/2 and E[X^2] adds
 * (a^2+ab+b^2)/3, each weighted by the segment's probability. */
typedef struct moments {
    double mean, m2;
    double max_bytes;
    size_t n_pts;
} moments;

static moments moments_of(const double *x, const double *p_pct, size_t n)
{
    moments m = {0, 0, 0, n};
    for (size_t i = 1; i < n; i++) {
        double w = (p_pct[i] - p_pct[i - 1]) / 100.0, a = x[i - 1], b = x[i];
        m.mean += w * (a + b) / 2;
        m.m2 += w * (a * a + a * b + b * b) / 3;
    }
    m.max_bytes = n ? x[n - 1] : 0;
    return m;
}

/* Reads a data/sizes file with fscanf, independently of tl_sizedist_load. */
static moments moments_of_file(const char *name)
{
    char rel[128], path[1024];
    snprintf(rel, sizeof rel, "sizes/%s.txt", name);
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_data_path(rel, path, sizeof path, &err), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    double *x = NULL, *p = NULL;
    size_t n = 0, cap = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        double a, b;
        if (line[0] == '#' || sscanf(line, "%lf %lf", &a, &b) != 2)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            x = realloc(x, cap * sizeof *x);
            p = realloc(p, cap * sizeof *p);
            assert_true(x && p);
        }
        x[n] = a;
        p[n] = b;
        n++;
    }
    fclose(f);
    moments m = moments_of(x, p, n);
    free(x);
    free(p);
    return m;
}

static double rel_err(double got, double want) { return fabs(got - want) / fabs(want); }

/* ------------------------------------------------------------ built-in CDFs */

/* Published means (bytes, trapezoid rule): webserver, hadoop, cachefollower
 * from ../shared/notes/parsimon.md (Flow-size distributions table); websearch,
 * fb-hadoop, ali-storage, google-rpc, solar, fb-hadoop-2015 from
 * ../shared/data/rdma-workloads/README.md; ali-interdc from
 * ../shared/data/uno/README.md. 0: none published. */
static const struct {
    const char *name;
    double published_mean_bytes;
} builtins[] = {
    {"webserver", 91343},
    {"hadoop", 568755},
    {"cachefollower", 609883},
    {"websearch", 1711250},
    {"fb-hadoop", 120421},
    {"google-rpc", 2892},
    {"ali-storage", 40870},
    {"solar", 39424},
    {"fb-hadoop-2015", 121849},
    {"ali-interdc", 63957661},
    {"hadoop-intracluster", 0},
    {"hadoop-intrarack", 0},
};
#define N_BUILTINS (sizeof builtins / sizeof builtins[0])

static void test_builtin_names_match_table(void **state)
{
    (void)state;
    size_t n = 0;
    for (const char *const *k = tl_sizedist_builtin_names; *k; k++, n++) {
        int found = 0;
        for (size_t i = 0; i < N_BUILTINS; i++)
            found |= strcmp(builtins[i].name, *k) == 0;
        if (!found)
            fail_msg("built-in '%s' has no row in this test", *k);
    }
    assert_int_equal(n, N_BUILTINS);
}

static void test_builtin_load_and_mean(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_BUILTINS; i++) {
        const char *name = builtins[i].name;
        tl_sizedist d;
        tl_err err;
        tl_err_clear(&err);
        if (tl_sizedist_load(&d, name, &err) != 0) {
            char buf[1024];
            fail_msg("[%s] load failed: %s", name, tl_err_format(&err, buf, sizeof buf));
        }
        moments m = moments_of_file(name);
        assert_int_equal(d.kind, TL_SIZE_CDF);
        assert_string_equal(d.name, name);
        assert_int_equal(d.n_pts, m.n_pts);
        assert_true(d.p_frac[0] == 0.0 && d.p_frac[d.n_pts - 1] == 1.0);
        assert_true(d.x_bytes[d.n_pts - 1] == m.max_bytes);
        if (rel_err(tl_sizedist_mean(&d), m.mean) > 1e-12)
            fail_msg("[%s] mean %.3f, trapezoid over the file %.3f", name, d.mean_bytes, m.mean);
        double pub = builtins[i].published_mean_bytes;
        if (pub > 0 && rel_err(d.mean_bytes, pub) > 1e-3)
            fail_msg("[%s] mean %.1f differs from the published %.0f by more than 0.1%%", name,
                     d.mean_bytes, pub);
        tl_sizedist_fini(&d);
    }
}

/* The web search CDF (DCTCP, as in HPCC's traffic_gen/WebSearch_distribution.txt),
 * listed by hand: the loaded points and mean must match it. */
static void test_websearch_points(void **state)
{
    (void)state;
    static const double x[] = {0,      10000,   20000,   30000,   50000,    80000,
                               200000, 1000000, 2000000, 5000000, 10000000, 30000000};
    static const double pct[] = {0, 15, 20, 30, 40, 53, 60, 70, 80, 90, 97, 100};
    size_t n = sizeof x / sizeof x[0];
    moments m = moments_of(x, pct, n);
    assert_true(m.mean == 1711250.0);
    tl_sizedist d;
    tl_err err;
    assert_int_equal(tl_sizedist_load(&d, "websearch", &err), 0);
    assert_int_equal(d.n_pts, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(d.x_bytes[i] == x[i]);
        assert_true(fabs(d.p_frac[i] - pct[i] / 100) < 1e-15);
    }
    assert_true(rel_err(d.mean_bytes, m.mean) < 1e-12);
    tl_sizedist_fini(&d);
}

/* Draws for a sampled-mean check: 1M, or more where the distribution is so
 * heavy-tailed that 1% would be fewer than 4 standard errors of the sample
 * mean (cv / sqrt(n)); with fewer, the check would pass or fail by the luck of
 * the seed. Among the built-ins this raises webserver (16M draws), hadoop
 * (15M), google-rpc (cv 22.6: 81M), ali-storage (3.5M), fb-hadoop (4.9M),
 * fb-hadoop-2015 (4.7M), hadoop-intracluster (17M) and hadoop-intrarack (7M);
 * with 1M draws their standard error is 0.47% to 2.3%. */
static long draws_for(double cv)
{
    double n = ceil(pow(4 * cv / 0.01, 2));
    return n > 1e6 ? (long)n : 1000000;
}

static void test_builtin_sampled_mean(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_BUILTINS; i++) {
        const char *name = builtins[i].name;
        tl_sizedist d;
        tl_err err;
        assert_int_equal(tl_sizedist_load(&d, name, &err), 0);
        moments m = moments_of_file(name);
        double cv = sqrt(m.m2 - m.mean * m.mean) / m.mean;
        long n = draws_for(cv);
        uint64_t max_bytes = (uint64_t)floor(m.max_bytes + 0.5);
        tl_rng r;
        tl_rng_init(&r, SEED, "sizes", i);
        double sum = 0;
        for (long k = 0; k < n; k++) {
            uint64_t s = tl_sizedist_sample(&d, &r);
            if (s < 1 || s > max_bytes)
                fail_msg("[%s] sample %llu outside [1, %llu]", name, (unsigned long long)s,
                         (unsigned long long)max_bytes);
            sum += (double)s;
        }
        double got = sum / (double)n, e = rel_err(got, d.mean_bytes);
        print_message("%-20s draws %9ld mean %14.1f sampled %14.1f err %+.3f%% (1%% = %.1f SE)\n",
                      name, n, d.mean_bytes, got, 100 * (got - d.mean_bytes) / d.mean_bytes,
                      0.01 / (cv / sqrt((double)n)));
        if (e > 0.01)
            fail_msg("[%s] sampled mean %.1f over %ld draws is %.2f%% from %.1f", name, got, n,
                     100 * e, d.mean_bytes);
        tl_sizedist_fini(&d);
    }
}

/* ----------------------------------------------------------------- parametric */

/* cv: the law's coefficient of variation, for the number of draws (draws_for). */
static const struct {
    const char *name;
    tl_size_kind kind;
    double mean_bytes, shape, cv;
} params[] = {
    {"exponential", TL_SIZE_EXP, 100000, 0, 1.0},
    /* Pareto cv = 1 / sqrt(alpha (alpha - 2)) */
    {"pareto a=3", TL_SIZE_PARETO, 100000, 3, 0.57735},
    /* log-normal cv = sqrt(exp(sigma^2) - 1): 1.31 at sigma 1, 7.32 at sigma 2,
     * so sigma 2 needs 8.6M draws rather than 1M (draws_for). */
    {"lognormal s=1", TL_SIZE_LOGNORMAL, 100000, 1, 1.31083},
    {"lognormal s=2", TL_SIZE_LOGNORMAL, 100000, 2, 7.32108},
    {"gaussian sd=mean/10", TL_SIZE_GAUSSIAN, 100000, 10000, 0.1},
};

static void test_param_sampled_mean(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        tl_sizedist d;
        tl_err err;
        tl_err_clear(&err);
        assert_int_equal(
            tl_sizedist_param(&d, params[i].kind, params[i].mean_bytes, params[i].shape, &err), 0);
        assert_true(tl_sizedist_mean(&d) == params[i].mean_bytes);
        long n = draws_for(params[i].cv);
        tl_rng r;
        tl_rng_init(&r, SEED, "param-sizes", i);
        double sum = 0;
        for (long k = 0; k < n; k++) {
            uint64_t s = tl_sizedist_sample(&d, &r);
            if (s < 1)
                fail_msg("[%s] sample 0", params[i].name);
            sum += (double)s;
        }
        double got = sum / (double)n;
        print_message("%-20s draws %9ld mean %14.1f sampled %14.1f err %+.3f%%\n",
                      params[i].name, n, d.mean_bytes, got,
                      100 * (got - d.mean_bytes) / d.mean_bytes);
        if (rel_err(got, d.mean_bytes) > 0.01)
            fail_msg("[%s] sampled mean %.1f over %ld draws, want %.1f within 1%%",
                     params[i].name, got, n, d.mean_bytes);
        tl_sizedist_fini(&d);
    }
}

static void test_param_names_and_fixed(void **state)
{
    (void)state;
    static const struct {
        tl_size_kind kind;
        double shape;
        const char *name;
    } names[] = {
        {TL_SIZE_FIXED, 0, "fixed"},      {TL_SIZE_EXP, 0, "exponential"},
        {TL_SIZE_PARETO, 2, "pareto"},    {TL_SIZE_LOGNORMAL, 1, "lognormal"},
        {TL_SIZE_GAUSSIAN, 0, "gaussian"},
    };
    tl_err err;
    tl_sizedist d;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        assert_int_equal(tl_sizedist_param(&d, names[i].kind, 1000, names[i].shape, &err), 0);
        assert_string_equal(d.name, names[i].name);
        tl_sizedist_fini(&d);
    }
    /* Fixed and zero-stddev Gaussian give the mean, rounded to the nearest byte. */
    tl_rng r;
    tl_rng_init(&r, SEED, "fixed", 0);
    assert_int_equal(tl_sizedist_param(&d, TL_SIZE_FIXED, 1499.5, 0, &err), 0);
    assert_int_equal(tl_sizedist_sample(&d, &r), 1500);
    assert_true(tl_sizedist_icdf(&d, 0.3) == 1499.5);
    assert_int_equal(tl_sizedist_param(&d, TL_SIZE_GAUSSIAN, 1499.4, 0, &err), 0);
    assert_int_equal(tl_sizedist_sample(&d, &r), 1499);
    /* Sizes below one byte become 1 byte, even where the law has no mass above 1. */
    assert_int_equal(tl_sizedist_param(&d, TL_SIZE_FIXED, 0.2, 0, &err), 0);
    assert_int_equal(tl_sizedist_sample(&d, &r), 1);
    assert_int_equal(tl_sizedist_param(&d, TL_SIZE_GAUSSIAN, 0.2, 0.01, &err), 0);
    assert_int_equal(tl_sizedist_sample(&d, &r), 1);
    assert_int_equal(tl_sizedist_param(&d, TL_SIZE_EXP, 0.01, 0, &err), 0);
    for (int k = 0; k < 1000; k++)
        assert_int_equal(tl_sizedist_sample(&d, &r), 1);
}

/* ----------------------------------------------------- icdf on a small file */

/* An atom at 100 B (10%..20%), a flat stretch from 100 to 300 B (no mass) and a
 * repeated last point at 100%. Hand-computed mean: 50*0.1 + 100*0.1 + 200*0 +
 * 400*0.4 + 750*0.4 + 1500*0 = 475. */
static const char small_cdf[] = "# tailor size cdf v1\n"
                                "# name: small\n"
                                "\n"
                                "0 0\n"
                                "100 10\n"
                                "100 20\n"
                                "300 20\n"
                                "500 60\n"
                                "1000 100\n"
                                "2000 100\n";

static void test_icdf_small(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double u, want_bytes;
    } cases[] = {
        {"u=0", 0.0, 0},
        {"first segment", 0.05, 50},
        {"segment end", 0.10, 100},
        {"inside atom", 0.15, 100},
        {"top of atom, before flat", 0.20, 100},
        {"just past flat", 0.25, 325},
        {"point", 0.60, 500},
        {"last segment", 0.80, 750},
        {"u=1: first point at 100%", 1.0, 1000},
        {"u>1 clamps", 1.5, 1000},
        {"u<0 clamps", -0.5, 0},
    };
    char *path = tu_write_temp(small_cdf, ".txt");
    tl_sizedist d;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_sizedist_load(&d, path, &err), 0);
    assert_int_equal(d.n_pts, 7);
    assert_true(fabs(d.mean_bytes - 475) < 1e-9);
    char base[256];
    const char *slash = strrchr(path, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : path);
    *strrchr(base, '.') = '\0';
    assert_string_equal(d.name, base);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = tl_sizedist_icdf(&d, cases[i].u);
        if (fabs(got - cases[i].want_bytes) > 1e-9)
            fail_msg("[%s] icdf(%g) = %.17g, want %g", cases[i].name, cases[i].u, got,
                     cases[i].want_bytes);
    }

    /* The copy is deep: it outlives the original. */
    tl_sizedist c;
    assert_int_equal(tl_sizedist_copy(&c, &d, &err), 0);
    assert_true(c.x_bytes != d.x_bytes && c.p_frac != d.p_frac);
    tl_sizedist_fini(&d);
    assert_null(d.x_bytes);
    assert_true(tl_sizedist_icdf(&c, 0.25) == 325);
    assert_string_equal(c.name, base);
    assert_true(c.mean_bytes == 475);

    /* Samples stay in [1, 1000] and avoid the flat stretch (100, 300). */
    tl_rng r;
    tl_rng_init(&r, SEED, "small", 0);
    for (int k = 0; k < 100000; k++) {
        uint64_t s = tl_sizedist_sample(&c, &r);
        assert_true(s >= 1 && s <= 1000);
        assert_false(s > 100 && s < 300);
    }
    tl_sizedist_fini(&c);

    tl_sizedist z;
    memset(&z, 0, sizeof z);
    tl_sizedist_fini(&z); /* a zeroed struct is fine */
    tl_sizedist_fini(&z); /* and so is finishing twice */
    tl_sizedist_fini(NULL);
    remove(path);
    free(path);
}

/* ----------------------------------------------------------------- bad input */

static void test_bad_cdf_files(void **state)
{
    (void)state;
    /* text NULL: a file that does not exist. want_line 0: the error has no line. */
    static const struct {
        const char *name, *text;
        int want_code, want_line;
        const char *want_msg;
    } cases[] = {
        {"non-monotonic size", "0 0\n1000 50\n500 60\n1000 100\n", TL_ERANGE, 3,
         "non-monotonic CDF: size 500 at line 3 is below 1000 at line 2"},
        {"non-monotonic percent", "0 0\n100 50\n200 40\n300 100\n", TL_ERANGE, 3,
         "non-monotonic CDF: percent 40 at line 3 is below 50 at line 2"},
        {"line numbers count comments and blanks",
         "# tailor size cdf v1\n\n0 0\n   \n1000 50\n# c\n500 60\n1000 100\n", TL_ERANGE, 7,
         "size 500 at line 7 is below 1000 at line 5"},
        {"last point not 100", "0 0\n100 50\n200 99.5\n", TL_ERANGE, 3, "expected 100"},
        {"first point not 0", "10 5\n100 100\n", TL_ERANGE, 1, "expected 0"},
        {"non-numeric size", "0 0\nabc 50\n100 100\n", TL_EPARSE, 2, "'abc'"},
        {"non-numeric percent", "0 0\n100 5O\n200 100\n", TL_EPARSE, 2, "'5O'"},
        {"nan is not a number here", "0 0\n100 nan\n200 100\n", TL_EPARSE, 2, "'nan'"},
        {"hex is not a number here", "0 0\n0x10 50\n200 100\n", TL_EPARSE, 2, "'0x10'"},
        {"three fields", "0 0\n100 50 7\n200 100\n", TL_EPARSE, 2, "found 3"},
        {"one field", "0 0\n100\n200 100\n", TL_EPARSE, 2, "found 1"},
        {"negative size", "-5 0\n100 100\n", TL_ERANGE, 1, "size_bytes >= 0"},
        {"percent above 100", "0 0\n100 150\n", TL_ERANGE, 2, "0..100"},
        {"one point", "# only one\n0 0\n", TL_EPARSE, 2, "at least 2 points, found 1"},
        {"no points", "# nothing\n# here\n", TL_EPARSE, 2, "found 0"},
        {"zero mean", "0 0\n0 100\n", TL_ERANGE, 0, "mean"},
        {"missing file", NULL, TL_EIO, 0, "cannot open"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = cases[i].text ? tu_write_temp(cases[i].text, ".txt")
                                   : tu_temp_path("-missing.txt");
        char loc[1100];
        if (cases[i].want_line)
            snprintf(loc, sizeof loc, "%s:%d:", path, cases[i].want_line);
        else
            snprintf(loc, sizeof loc, "%s: ", path);
        tl_sizedist d;
        tl_err err;
        tl_err_clear(&err);
        assert_int_equal(tl_sizedist_load(&d, path, &err), cases[i].want_code);
        tu_check_err(cases[i].name, &err, cases[i].want_code, loc, cases[i].want_msg);
        /* A failed load leaves nothing to free. */
        assert_null(d.x_bytes);
        assert_null(d.p_frac);
        assert_int_equal(d.n_pts, 0);
        remove(path);
        free(path);
    }
}

static void test_unknown_builtin(void **state)
{
    (void)state;
    tl_sizedist d;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_sizedist_load(&d, "webservr", &err), TL_EPARSE);
    /* names what was asked and what exists */
    tu_check_err("unknown built-in", &err, TL_EPARSE, "'webservr'", "webserver, hadoop");
    tu_check_err("unknown built-in lists the last name", &err, TL_EPARSE, "hadoop-intrarack",
                 NULL);
    assert_null(d.x_bytes);
}

static void test_bad_params(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        tl_size_kind kind;
        double mean_bytes, shape;
        int want_code;
        const char *want_msg;
    } cases[] = {
        {"exp mean 0", TL_SIZE_EXP, 0, 0, TL_ERANGE, "mean_bytes > 0"},
        {"exp mean negative", TL_SIZE_EXP, -1, 0, TL_ERANGE, "mean_bytes > 0"},
        {"exp mean nan", TL_SIZE_EXP, NAN, 0, TL_ERANGE, "mean_bytes > 0"},
        {"fixed mean inf", TL_SIZE_FIXED, INFINITY, 0, TL_ERANGE, "mean_bytes > 0"},
        {"pareto alpha 1", TL_SIZE_PARETO, 1000, 1, TL_ERANGE, "alpha > 1"},
        {"pareto alpha 0.5", TL_SIZE_PARETO, 1000, 0.5, TL_ERANGE, "alpha > 1"},
        {"pareto alpha nan", TL_SIZE_PARETO, 1000, NAN, TL_ERANGE, "alpha > 1"},
        {"pareto mean 0", TL_SIZE_PARETO, 0, 2, TL_ERANGE, "pareto: expected mean_bytes"},
        {"lognormal sigma 0", TL_SIZE_LOGNORMAL, 1000, 0, TL_ERANGE, "sigma > 0"},
        {"lognormal sigma negative", TL_SIZE_LOGNORMAL, 1000, -1, TL_ERANGE, "sigma > 0"},
        {"gaussian stddev negative", TL_SIZE_GAUSSIAN, 1000, -1, TL_ERANGE, "stddev_bytes >= 0"},
        {"gaussian stddev inf", TL_SIZE_GAUSSIAN, 1000, INFINITY, TL_ERANGE, "stddev_bytes"},
        {"cdf is not parametric", TL_SIZE_CDF, 1000, 0, TL_EINVAL, "not parametric"},
        {"unknown kind", (tl_size_kind)99, 1000, 0, TL_EINVAL, "kind 99"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_sizedist d;
        tl_err err;
        tl_err_clear(&err);
        int rc = tl_sizedist_param(&d, cases[i].kind, cases[i].mean_bytes, cases[i].shape, &err);
        if (rc != cases[i].want_code)
            fail_msg("[%s] returned %d, want %d", cases[i].name, rc, cases[i].want_code);
        tu_check_err(cases[i].name, &err, cases[i].want_code, cases[i].want_msg, NULL);
    }
}

/* ---------------------------------------------------------------- determinism */

static void test_same_seed_same_sequence(void **state)
{
    (void)state;
    tl_sizedist ds[6];
    tl_err err;
    assert_int_equal(tl_sizedist_load(&ds[0], "webserver", &err), 0);
    assert_int_equal(tl_sizedist_param(&ds[1], TL_SIZE_EXP, 5000, 0, &err), 0);
    assert_int_equal(tl_sizedist_param(&ds[2], TL_SIZE_PARETO, 5000, 1.5, &err), 0);
    assert_int_equal(tl_sizedist_param(&ds[3], TL_SIZE_LOGNORMAL, 5000, 2, &err), 0);
    assert_int_equal(tl_sizedist_param(&ds[4], TL_SIZE_GAUSSIAN, 5000, 5000, &err), 0);
    assert_int_equal(tl_sizedist_param(&ds[5], TL_SIZE_FIXED, 5000, 0, &err), 0);
    for (size_t i = 0; i < 6; i++) {
        tl_rng a, b, c;
        tl_rng_init(&a, SEED, "det", 7);
        tl_rng_init(&b, SEED, "det", 7);
        tl_rng_init(&c, SEED, "det", 8);
        int n_diff = 0;
        for (int k = 0; k < 10000; k++) {
            uint64_t sa = tl_sizedist_sample(&ds[i], &a);
            if (sa != tl_sizedist_sample(&ds[i], &b))
                fail_msg("[%s] draw %d differs under the same seed", ds[i].name, k);
            n_diff += sa != tl_sizedist_sample(&ds[i], &c);
        }
        if (ds[i].kind != TL_SIZE_FIXED && n_diff == 0)
            fail_msg("[%s] another stream index gave the same sequence", ds[i].name);
        tl_sizedist_fini(&ds[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_names_match_table),
        cmocka_unit_test(test_builtin_load_and_mean),
        cmocka_unit_test(test_websearch_points),
        cmocka_unit_test(test_builtin_sampled_mean),
        cmocka_unit_test(test_param_sampled_mean),
        cmocka_unit_test(test_param_names_and_fixed),
        cmocka_unit_test(test_icdf_small),
        cmocka_unit_test(test_bad_cdf_files),
        cmocka_unit_test(test_unknown_builtin),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_same_seed_same_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
