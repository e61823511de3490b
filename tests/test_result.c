/* Results (tailor/result.h, docs/results.md): ideal FCT against hand-computed
 * values, size buckets, slowdown statistics on flows whose percentiles are
 * known in closed form, unfinished flows, the CSV / ns-3 fct.txt formats, the
 * summary.json round trip, and located errors for bad summary files. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/result.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"
#include "testutil.h"

#define G10 10000000000u
#define NS 1000     /* ps */
#define US 1000000  /* ps */

/* host 0 - switch 2 - host 1, both links at rate_bps with delay_ps. */
static tl_topo *line3(uint64_t rate_bps, int64_t delay_ps)
{
    tl_topo *t = tl_topo_create(NULL);
    assert_non_null(t);
    assert_true(tl_topo_add_node(t, TL_NODE_HOST, TL_TIER_AUTO, -1, -1, 0, NULL) == 0);
    assert_true(tl_topo_add_node(t, TL_NODE_HOST, TL_TIER_AUTO, -1, -1, 0, NULL) == 1);
    assert_true(tl_topo_add_node(t, TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, NULL) == 2);
    assert_true(tl_topo_add_link(t, 0, 2, rate_bps, delay_ps, NULL) == 0);
    assert_true(tl_topo_add_link(t, 2, 1, rate_bps, delay_ps, NULL) == 1);
    assert_int_equal(tl_topo_finish(t, NULL), 0);
    return t;
}

/* The 2-hop path of line3 from host 0 to host 1: channel 0 (0->2), channel 2 (2->1). */
static const uint32_t line3_path[2] = {0, 2};

static void ideal_fct_hand_computed(void **state)
{
    /* One hop, 10 Gb/s (800 ps per byte), 1 us: 1000 B fits one packet, so
     * ideal = 1 us + (1000 + 48) B * 800 ps = 1,000,000 + 838,400 ps. */
    tl_topo *t = line3(G10, 1 * US);
    assert_int_equal(tl_ideal_fct_ps(t, line3_path, 1, 1000, 1000, 48), 1838400);
    assert_int_equal(tl_ideal_fct_ps(t, line3_path, 0, 1000, 1000, 48), 0); /* no path */
    assert_int_equal(tl_ideal_fct_ps(t, line3_path, 1, 1000, 0, 48), 0);    /* no mtu */
    tl_topo_destroy(t);

    /* Each serialization is rounded once, not the sum: at 3 Gb/s a 49 B
     * packet takes 130,666.67 ps -> 130,667, twice (store-and-forward) is
     * 261,334 (rounding the sum would give 261,333). 1001 B: 1048 B take
     * 2,794,666.67 -> 2,794,667 ps per hop, and the remaining 1 B + 48 B
     * header 130,667 at the bottleneck: 2 * 2,794,667 + 130,667 = 5,720,001. */
    t = line3(3000000000u, 0);
    assert_int_equal(tl_ideal_fct_ps(t, line3_path, 2, 1, 1000, 48), 261334);
    assert_int_equal(tl_ideal_fct_ps(t, line3_path, 2, 1001, 1000, 48), 5720001);
    tl_topo_destroy(t);

    /* The fabric's inter-pod path: host -10G- ToR -40G- fabric -40G- spine
     * -40G- fabric -40G- ToR -10G- host, 1 us per link: 6 us of propagation.
     * Per byte: 800 ps at 10G, 200 ps at 40G; the bottleneck is 10G. The
     * first packet (min(size, 1000) + 48 B) crosses all six hops:
     *   x B first packet -> 2 * 800x + 4 * 200x = 2400x ps. */
    static const struct {
        const char *name;
        uint64_t size_bytes;
        int64_t want_ps;
    } cases[] = {
        /* 49 B * 2400 = 117,600; nothing remains. */
        {"1B", 1, 6 * US + 117600},
        /* 1048 B * 2400 = 2,515,200; nothing remains. */
        {"1000B", 1000, 6 * US + 2515200},
        /* 2,515,200 + 1 packet of 1 + 48 B at 10G = 39,200. */
        {"1001B", 1001, 6 * US + 2515200 + 39200},
        /* 2,515,200 + 99,000 B in 99 packets: (99,000 + 99 * 48) B * 800
         * = 103,752 B * 800 = 83,001,600. */
        {"100000B", 100000, 6 * US + 2515200 + 83001600},
    };
    tl_fabric_params fp = {.pods = 2, .racks_per_pod = 2, .hosts_per_rack = 2, .planes = 2,
                           .spines_per_plane = 2, .host_bps = G10, .fabric_bps = 4 * G10,
                           .delay_ps = 1 * US};
    t = tl_topo_fabric(&fp, NULL);
    assert_non_null(t);
    tl_routes *r = tl_routes_create(t, 1, NULL);
    assert_non_null(r);
    uint32_t chans[TL_MAX_HOPS];
    int hops = tl_routes_path(r, 7, 0, 7, chans, TL_MAX_HOPS, NULL); /* host 7 is in pod 1 */
    assert_int_equal(hops, 6);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t got = tl_ideal_fct_ps(t, chans, hops, cases[i].size_bytes, 1000, 48);
        if (got != cases[i].want_ps)
            fail_msg("case %s: got %lld ps, want %lld ps", cases[i].name, (long long)got,
                     (long long)cases[i].want_ps);
    }
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

static void buckets_have_inclusive_upper_bounds(void **state)
{
    static const struct {
        const char *name;
        uint64_t size_bytes;
        int want;
    } cases[] = {
        {"1B", 1, 0},         {"1000B", 1000, 0},   {"1001B", 1001, 1},      {"10000B", 10000, 1},
        {"10001B", 10001, 2}, {"50000B", 50000, 2}, {"50001B", 50001, 3},    {"1GB", 1000000000, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (tl_bucket_of(cases[i].size_bytes) != cases[i].want)
            fail_msg("case %s: bucket %d, want %d", cases[i].name,
                     tl_bucket_of(cases[i].size_bytes), cases[i].want);
    assert_string_equal(tl_bucket_names[0], "0-1KB");
    assert_string_equal(tl_bucket_names[3], "50KB+");
    assert_string_equal(tl_bucket_names[TL_N_BUCKETS - 1], "all");
    assert_true(tl_pcts[0] == 0.5 && tl_pcts[3] == 0.999);
}

/* ======================== summary ======================== */

/* A workload whose statistics are known in closed form (ideal = 1000 ps):
 *   class "a": 100 flows of 500 B (bucket 0) with slowdowns 1..100, in a
 *              scrambled order, plus one 20 kB flow (bucket 2) with fct < ideal
 *              (slowdown clamped to 1);
 *   class "b": 10 flows of 60 kB (bucket 3) with slowdowns 1..10, plus one
 *              unfinished 5 kB flow (bucket 1).
 * reverse_order lists the flows back to front: the summary must not change. */
static void make_flows(tl_flows *f, tl_flow_result **r_out, int reverse_order)
{
    tl_flows_init(f);
    assert_int_equal(tl_flows_add_class(f, "a", NULL), 0);
    assert_int_equal(tl_flows_add_class(f, "b", NULL), 1);
    size_t n = 112;
    assert_int_equal(tl_flows_reserve(f, n, NULL), 0);
    tl_flow_result *r = calloc(n, sizeof *r);
    for (size_t i = 0; i < n; i++) {
        size_t at = reverse_order ? n - 1 - i : i;
        tl_flow *fl = &f->v[at];
        *fl = (tl_flow){.id = i, .src = 0, .dst = 1, .start_ps = (int64_t)i * NS};
        r[at].ideal_ps = 1000;
        if (i < 100) { /* 37 is coprime with 100: k runs over 1..100 once */
            fl->size_bytes = 500;
            r[at].fct_ps = (int64_t)((i * 37) % 100 + 1) * 1000;
        } else if (i == 100) {
            fl->size_bytes = 20000;
            r[at].fct_ps = 900;
        } else if (i < 111) {
            fl->size_bytes = 60000;
            fl->class_idx = 1;
            r[at].fct_ps = (int64_t)(111 - i) * 1000;
        } else {
            fl->size_bytes = 5000;
            fl->class_idx = 1;
            r[at].fct_ps = -1;
        }
    }
    f->n = n;
    *r_out = r;
}

static void check_stats(const char *name, const tl_slowdown_stats *st, uint64_t count,
                        double mean, const double p[TL_N_PCTS])
{
    if (st->count != count)
        fail_msg("%s: count %llu, want %llu", name, (unsigned long long)st->count,
                 (unsigned long long)count);
    if (count == 0) {
        if (!isnan(st->mean) || !isnan(st->p[0]) || !isnan(st->p[3]))
            fail_msg("%s: an empty bucket must have NaN statistics", name);
        return;
    }
    if (fabs(st->mean - mean) > 1e-12 * mean)
        fail_msg("%s: mean %.15g, want %.15g", name, st->mean, mean);
    for (int i = 0; i < TL_N_PCTS; i++)
        if (fabs(st->p[i] - p[i]) > 1e-12 * p[i])
            fail_msg("%s: p%g = %.15g, want %.15g", name, tl_pcts[i] * 100, st->p[i], p[i]);
}

static void summary_statistics_known_percentiles(void **state)
{
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    tl_summary s;
    tl_err err;
    tl_err_clear(&err);
    if (tl_summary_build(&s, "pktsim", &f, r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(s.engine, "pktsim");
    assert_int_equal(s.n_unfinished, 1);
    assert_int_equal(s.n_classes, 2);
    assert_string_equal(s.class_names[1], "b");

    /* Type 7: p_q of sorted x[0..n) is x[h] interpolated at h = q (n - 1).
     * 1..100: h = 49.5, 89.1, 98.01, 98.901 -> 50.5, 90.1, 99.01, 99.901. */
    static const double p100[] = {50.5, 90.1, 99.01, 99.901};
    /* 1..10: h = 4.5, 8.1, 8.91, 8.991 -> 5.5, 9.1, 9.91, 9.991. */
    static const double p10[] = {5.5, 9.1, 9.91, 9.991};
    static const double ones[] = {1, 1, 1, 1};
    /* Class a, all: 1, 1..100 (101 values, x[h] = h for h >= 1):
     * h = 50, 90, 99, 99.9 -> 50, 90, 99, 99.9; mean 5051 / 101. */
    static const double pa[] = {50, 90, 99, 99.9};
    /* Everything: 1..100, 1..10, 1 (111 values): sorted 1,1,1, 2,2, 3,3, ...,
     * 10,10, then x[i] = i - 10 for i >= 21. h = 55, 99, 108.9, 109.89 ->
     * 45, 89, 98.9, 99.89; mean (5050 + 55 + 1) / 111 = 46. */
    static const double pall[] = {45, 89, 98.9, 99.89};

    check_stats("all/0-1KB", &s.all[0], 100, 50.5, p100);
    check_stats("all/1-10KB", &s.all[1], 0, 0, NULL);
    check_stats("all/10-50KB", &s.all[2], 1, 1, ones);
    check_stats("all/50KB+", &s.all[3], 10, 5.5, p10);
    check_stats("all/all", &s.all[4], 111, 46, pall);
    const tl_slowdown_stats *a = &s.by_class[0], *b = &s.by_class[TL_N_BUCKETS];
    check_stats("a/0-1KB", &a[0], 100, 50.5, p100);
    check_stats("a/1-10KB", &a[1], 0, 0, NULL);
    check_stats("a/10-50KB", &a[2], 1, 1, ones);
    check_stats("a/50KB+", &a[3], 0, 0, NULL);
    check_stats("a/all", &a[4], 101, 5051.0 / 101, pa);
    check_stats("b/0-1KB", &b[0], 0, 0, NULL);
    check_stats("b/1-10KB", &b[1], 0, 0, NULL); /* its one flow did not finish */
    check_stats("b/10-50KB", &b[2], 0, 0, NULL);
    check_stats("b/50KB+", &b[3], 10, 5.5, p10);
    check_stats("b/all", &b[4], 10, 5.5, p10);

    /* The order of the flows does not change a bit of the result. */
    tl_flows f2;
    tl_flow_result *r2;
    make_flows(&f2, &r2, 1);
    tl_summary s2;
    assert_int_equal(tl_summary_build(&s2, "pktsim", &f2, r2, NULL), 0);
    assert_memory_equal(s.all, s2.all, sizeof s.all);
    assert_memory_equal(s.by_class, s2.by_class, 2 * TL_N_BUCKETS * sizeof *s.by_class);

    tl_summary_fini(&s2);
    tl_summary_fini(&s);
    tl_summary_fini(&s); /* fini twice is harmless */
    free(r2);
    free(r);
    tl_flows_fini(&f2);
    tl_flows_fini(&f);
}

static void summary_unfinished_and_bad_results(void **state)
{
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    /* Everything unfinished: every bucket empty. */
    for (size_t i = 0; i < f.n; i++)
        r[i].fct_ps = -1;
    tl_summary s;
    assert_int_equal(tl_summary_build(&s, "x", &f, r, NULL), 0);
    assert_int_equal(s.n_unfinished, 112);
    for (int b = 0; b < TL_N_BUCKETS; b++)
        check_stats(tl_bucket_names[b], &s.all[b], 0, 0, NULL);
    tl_summary_fini(&s);

    /* No flows at all. */
    tl_flows empty;
    tl_flows_init(&empty);
    assert_int_equal(tl_summary_build(&s, "x", &empty, NULL, NULL), 0);
    assert_int_equal(s.all[4].count, 0);
    assert_int_equal(s.n_classes, 0);
    tl_summary_fini(&s);

    tl_err err;
    r[5].fct_ps = 1000;
    r[5].ideal_ps = 0;
    tl_err_clear(&err);
    assert_int_equal(tl_summary_build(&s, "x", &f, r, &err), TL_EINVAL);
    tu_check_err("zero ideal", &err, TL_EINVAL, "flow 5", "ideal FCT is 0");
    assert_null(s.by_class);
    r[5].ideal_ps = 1000;
    f.v[7].class_idx = 2;
    tl_err_clear(&err);
    assert_int_equal(tl_summary_build(&s, "x", &f, r, &err), TL_EINVAL);
    tu_check_err("bad class", &err, TL_EINVAL, "flow 7 has class 2", NULL);
    free(r);
    tl_flows_fini(&f);
}

/* ======================== file formats ======================== */

/* Three flows: a finished one with a fractional fct, one faster than its
 * ideal (slowdown clamped to 1), one unfinished. */
static void make_format_flows(tl_flows *f, tl_flow_result r[3])
{
    tl_flows_init(f);
    assert_int_equal(tl_flows_add_class(f, "web", NULL), 0);
    assert_int_equal(tl_flows_add_class(f, "db", NULL), 1);
    assert_int_equal(tl_flows_reserve(f, 3, NULL), 0);
    f->v[0] = (tl_flow){.id = 55001, .src = 257, .dst = 0, .size_bytes = 1000, .start_ps = 1500};
    f->v[1] = (tl_flow){.id = 1, .src = 2, .dst = 3, .size_bytes = 20000, .start_ps = 2500,
                        .class_idx = 1};
    f->v[2] = (tl_flow){.id = 2, .src = 1, .dst = 0, .size_bytes = 60000, .start_ps = 3 * US};
    f->n = 3;
    r[0] = (tl_flow_result){.fct_ps = 2500500, .ideal_ps = 1000000};
    r[1] = (tl_flow_result){.fct_ps = 900, .ideal_ps = 1000};
    r[2] = (tl_flow_result){.fct_ps = -1, .ideal_ps = 123456789};
}

static void csv_and_ns3_formats(void **state)
{
    tl_flows f;
    tl_flow_result r[3];
    make_format_flows(&f, r);
    tl_err err;
    tl_err_clear(&err);

    char *csv = tu_temp_path(".csv");
    if (tl_result_save_csv(&f, r, csv, &err) != 0)
        fail_msg("%s", err.msg);
    char *text = tu_read_file(csv, NULL);
    assert_string_equal(text, "id,src,dst,size,start_ns,fct_ns,ideal_ns,slowdown,class\n"
                              "55001,257,0,1000,1.500,2500.500,1000,2.500500,web\n"
                              "1,2,3,20000,2.500,0.900,1,1.000000,db\n"
                              "2,1,0,60000,3000,,123456.789,,web\n");
    free(text);

    /* Host 257 is 11.1.1.1 = 0b010101; sport 10000 + 55001 % 55000 = 10001;
     * ns rounded half up: 1.5 -> 2, 2.5 -> 3, 2500.5 -> 2501, 0.9 -> 1. The unfinished flow is
     * left out. */
    char *fct = tu_temp_path(".txt");
    if (tl_result_save_ns3(&f, r, fct, &err) != 0)
        fail_msg("%s", err.msg);
    text = tu_read_file(fct, NULL);
    assert_string_equal(text, "0b010101 0b000001 10001 100 1000 2 2501 1000\n"
                              "0b000201 0b000301 10001 100 20000 3 1 1\n");
    free(text);

    /* A finished flow without an ideal FCT is refused and no file appears. */
    r[1].ideal_ps = 0;
    char *bad = tu_temp_path(".csv");
    tl_err_clear(&err);
    assert_int_equal(tl_result_save_csv(&f, r, bad, &err), TL_EINVAL);
    tu_check_err("csv zero ideal", &err, TL_EINVAL, "flow 1 finished", NULL);
    assert_null(tu_read_file(bad, NULL));

    remove(csv);
    remove(fct);
    free(csv);
    free(fct);
    free(bad);
    tl_flows_fini(&f);
}

static int same_stat(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-14 * fabs(b);
}

static void summary_json_round_trip(void **state)
{
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    tl_summary s, t;
    assert_int_equal(tl_summary_build(&s, "parsimon", &f, r, NULL), 0);
    tl_err err;
    tl_err_clear(&err);
    char *p1 = tu_temp_path(".json"), *p2 = tu_temp_path(".json");
    if (tl_summary_save_json(&s, p1, &err) != 0)
        fail_msg("%s", err.msg);
    if (tl_summary_load_json(&t, p1, &err) != 0)
        fail_msg("%s", err.msg);

    assert_string_equal(t.engine, "parsimon");
    assert_int_equal(t.n_unfinished, 1);
    assert_int_equal(t.n_classes, 2);
    assert_string_equal(t.class_names[0], "a");
    assert_string_equal(t.class_names[1], "b");
    for (uint32_t c = 0; c <= s.n_classes; c++)
        for (int b = 0; b < TL_N_BUCKETS; b++) {
            size_t k = (size_t)(c - 1) * TL_N_BUCKETS + b;
            const tl_slowdown_stats *x = c == 0 ? &s.all[b] : &s.by_class[k];
            const tl_slowdown_stats *y = c == 0 ? &t.all[b] : &t.by_class[k];
            int ok = x->count == y->count && same_stat(x->mean, y->mean);
            for (int i = 0; i < TL_N_PCTS; i++)
                ok = ok && same_stat(x->p[i], y->p[i]);
            if (!ok)
                fail_msg("class %u bucket %s differs after the round trip", c, tl_bucket_names[b]);
        }

    /* Saving what was loaded reproduces the file byte for byte. */
    assert_int_equal(tl_summary_save_json(&t, p2, NULL), 0);
    char *t1 = tu_read_file(p1, NULL), *t2 = tu_read_file(p2, NULL);
    assert_string_equal(t1, t2);

    /* Shape (docs/results.md): empty buckets write null statistics and count 0. */
    json_t *root = json_loads(t1, 0, NULL);
    assert_non_null(root);
    json_t *empty = json_object_get(json_object_get(root, "buckets"), "1-10KB");
    assert_true(json_is_integer(json_object_get(empty, "count")));
    assert_int_equal(json_integer_value(json_object_get(empty, "count")), 0);
    assert_true(json_is_null(json_object_get(empty, "p999")));
    json_t *b50 = json_object_get(json_object_get(json_object_get(root, "classes"), "b"), "50KB+");
    assert_true(json_real_value(json_object_get(b50, "p50")) == 5.5);
    assert_string_equal(json_string_value(json_object_get(root, "engine")), "parsimon");
    json_decref(root);

    free(t1);
    free(t2);
    remove(p1);
    remove(p2);
    free(p1);
    free(p2);
    tl_summary_fini(&t);
    tl_summary_fini(&s);
    free(r);
    tl_flows_fini(&f);
}

/* A summary sent between MPI ranks comes back equal, with its own class
 * names and table; every cut-short message is refused and leaves it empty. */
static void summary_pack_round_trip(void **state)
{
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    tl_summary s, t;
    assert_int_equal(tl_summary_build(&s, "parsimon", &f, r, NULL), 0);
    tl_wbuf w = {0};
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_summary_pack(&s, &w, &err), 0);
    tl_rbuf in = {w.p, w.n, 0};
    assert_int_equal(tl_summary_unpack(&t, &in, &err), 0);
    assert_int_equal(in.pos, w.n);
    assert_string_equal(t.engine, "parsimon");
    assert_int_equal(t.n_classes, 2);
    assert_true(t.class_names != s.class_names && t.by_class != s.by_class);
    assert_string_equal(t.class_names[1], "b");
    assert_memory_equal(t.all, s.all, sizeof s.all);
    assert_memory_equal(t.by_class, s.by_class, 2 * TL_N_BUCKETS * sizeof *s.by_class);
    tl_summary_fini(&t);
    for (size_t cut = 0; cut < w.n; cut += 7) {
        tl_rbuf part = {w.p, cut, 0};
        if (tl_summary_unpack(&t, &part, &err) != TL_EPARSE || t.class_names || t.by_class)
            fail_msg("a message cut at %zu of %zu bytes was not refused", cut, w.n);
    }
    tl_wbuf_fini(&w);
    tl_summary_fini(&s);
    free(r);
    tl_flows_fini(&f);
}

/* Sets (value JSON text) or deletes (NULL) the member at a dotted path of objects. */
static void mutate(json_t *root, const char *path, const char *value)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *o = root;
    char *key = buf, *dot;
    while ((dot = strchr(key, '.'))) {
        *dot = '\0';
        o = json_object_get(o, key);
        assert_non_null(o);
        key = dot + 1;
    }
    if (value)
        assert_int_equal(json_object_set_new(o, key, json_loads(value, JSON_DECODE_ANY, NULL)), 0);
    else
        assert_int_equal(json_object_del(o, key), 0);
}

static void summary_json_bad_input_is_located(void **state)
{
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    tl_summary s;
    assert_int_equal(tl_summary_build(&s, "pktsim", &f, r, NULL), 0);
    char *good = tu_temp_path(".json");
    assert_int_equal(tl_summary_save_json(&s, good, NULL), 0);
    tl_summary_fini(&s);
    free(r);
    tl_flows_fini(&f);

    /* Semantic errors: a valid summary with one member changed (value) or
     * removed (NULL). Each names the JSON path and a line:column. */
    static const struct {
        const char *name, *path, *value;
        int code;
        const char *needle1, *needle2;
    } cases[] = {
        {"p99 string", "buckets.all.p99", "\"x\"", TL_EPARSE, "buckets.all.p99: ",
         "expected a number"},
        {"p50 null with count", "buckets.0-1KB.p50", "null", TL_EPARSE, "buckets.0-1KB.p50: ",
         "found null"},
        {"missing bucket", "buckets.50KB+", NULL, TL_EPARSE, "buckets: ",
         "missing required key '50KB+'"},
        {"missing classes", "classes", NULL, TL_EPARSE, "missing required key 'classes'", NULL},
        {"unknown root key", "extra", "1", TL_EPARSE, "extra: ", "unknown key 'extra'"},
        {"unknown stat", "buckets.all.p95", "2.0", TL_EPARSE, "buckets.all.p95: ",
         "unknown key"},
        {"negative count", "buckets.0-1KB.count", "-1", TL_ERANGE, "buckets.0-1KB.count: ",
         "found -1"},
        {"real count", "buckets.0-1KB.count", "1.5", TL_EPARSE, "buckets.0-1KB.count: ",
         "found a number"},
        {"value with count 0", "buckets.1-10KB.mean", "2.0", TL_EPARSE, "buckets.1-10KB.mean: ",
         "expected null"},
        {"class not an object", "classes.a", "[]", TL_EPARSE, "classes.a: ",
         "expected an object, found an array"},
        {"class stat bool", "classes.b.50KB+.p999", "true", TL_EPARSE,
         "classes.b.50KB+.p999: ", "found a boolean"},
        {"engine long", "engine", "\"an-engine-name-of-more-than-31-chars\"", TL_ERANGE,
         "engine: ", "too long"},
        {"engine number", "engine", "3", TL_EPARSE, "engine: ", "expected a string"},
        {"unfinished negative", "unfinished", "-2", TL_ERANGE, "unfinished: ", NULL},
        {"classes array", "classes", "[]", TL_EPARSE, "classes: ", "expected an object"},
    };
    char *text = tu_read_file(good, NULL);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *root = json_loads(text, 0, NULL);
        assert_non_null(root);
        mutate(root, cases[i].path, cases[i].value);
        char *bad_text = json_dumps(root, JSON_INDENT(2));
        json_decref(root);
        char *bad = tu_write_temp(bad_text, ".json");
        free(bad_text);
        tl_summary t;
        tl_err err;
        tl_err_clear(&err);
        int rc = tl_summary_load_json(&t, bad, &err);
        if (rc != cases[i].code)
            fail_msg("case %s: returned %d, want %d", cases[i].name, rc, cases[i].code);
        tu_check_err(cases[i].name, &err, cases[i].code, cases[i].needle1, cases[i].needle2);
        if (err.line <= 0 || err.col <= 0 || strcmp(err.file, bad) != 0)
            fail_msg("case %s: expected file:line:col, got '%s' %d:%d", cases[i].name, err.file,
                     err.line, err.col);
        assert_null(t.by_class); /* left empty */
        remove(bad);
        free(bad);
    }
    free(text);
    remove(good);
    free(good);

    /* Whole files: syntax errors name line:column. */
    static const struct {
        const char *name, *text;
        int code, line, col;
        const char *needle;
    } files[] = {
        {"trailing comma", "{\n  \"engine\": \"x\",\n  \"unfinished\": 0,\n}\n", TL_EPARSE, 4, 1,
         "malformed JSON"},
        {"truncated", "{\"engine\": ", TL_EPARSE, 1, 11, "malformed JSON"},
        {"duplicate key", "{\"engine\": \"a\",\n \"engine\": \"b\"}", TL_EPARSE, 2, 0,
         "duplicate"},
        {"top is an array", "[1, 2]", TL_EPARSE, 1, 1, "expected an object, found an array"},
        {"empty file", "", TL_EPARSE, 0, 0, "malformed JSON"},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *bad = tu_write_temp(files[i].text, ".json");
        tl_summary t;
        tl_err err;
        tl_err_clear(&err);
        assert_int_equal(tl_summary_load_json(&t, bad, &err), files[i].code);
        tu_check_err(files[i].name, &err, files[i].code, files[i].needle, NULL);
        if ((files[i].line && err.line != files[i].line) ||
            (files[i].col && err.col != files[i].col))
            fail_msg("case %s: at %d:%d, want %d:%d", files[i].name, err.line, err.col,
                     files[i].line, files[i].col);
        remove(bad);
        free(bad);
    }

    tl_summary t;
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_summary_load_json(&t, "/nonexistent/summary.json", &err), TL_EIO);
    tu_check_err("missing file", &err, TL_EIO, "/nonexistent/summary.json", "cannot open");
}

/* The run record's PFC shares (docs/results.md): kept through a save and a
 * load; null or absent (a summary of an older tailor) read as -1; a share
 * above 1 refused with its JSON path. */
static void run_record_paused_shares(void **state)
{
    (void)state;
    tl_flows f;
    tl_flow_result *r;
    make_flows(&f, &r, 0);
    tl_summary s, t;
    assert_int_equal(tl_summary_build(&s, "pktsim", &f, r, NULL), 0);
    tl_run_info_init(&s.run, NULL, &f, NULL, "dcqcn", 1, "");
    assert_true(s.run.paused_frac == -1 && s.run.paused_frac_max == -1);
    s.run.paused_frac = 0.25;
    s.run.paused_frac_max = 0.5;
    s.run.is_set = 1;
    char *p = tu_temp_path(".json");
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_summary_save_json(&s, p, &err), 0);
    assert_int_equal(tl_summary_load_json(&t, p, &err), 0);
    assert_true(t.run.paused_frac == 0.25 && t.run.paused_frac_max == 0.5);
    tl_summary_fini(&t);
    char *text = tu_read_file(p, NULL);
    static const struct {
        const char *value;
        int code;
    } cases[] = {{NULL, 0}, {"null", 0}, {"1.5", TL_EPARSE}, {"\"half\"", TL_EPARSE}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *root = json_loads(text, 0, NULL);
        mutate(root, "run.paused_fraction", cases[i].value);
        char *bad_text = json_dumps(root, JSON_INDENT(2));
        json_decref(root);
        char *bad = tu_write_temp(bad_text, ".json");
        free(bad_text);
        tl_err_clear(&err);
        int rc = tl_summary_load_json(&t, bad, &err);
        assert_int_equal(rc, cases[i].code);
        if (rc)
            tu_check_err(cases[i].value, &err, rc, "run.paused_fraction: ",
                         "expected a fraction from 0 to 1 or null");
        else {
            assert_true(t.run.paused_frac == -1 && t.run.paused_frac_max == 0.5);
            tl_summary_fini(&t);
        }
        remove(bad);
        free(bad);
    }
    free(text);
    remove(p);
    free(p);
    tl_summary_fini(&s);
    free(r);
    tl_flows_fini(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ideal_fct_hand_computed),
        cmocka_unit_test(buckets_have_inclusive_upper_bounds),
        cmocka_unit_test(summary_statistics_known_percentiles),
        cmocka_unit_test(summary_unfinished_and_bad_results),
        cmocka_unit_test(csv_and_ns3_formats),
        cmocka_unit_test(summary_json_round_trip),
        cmocka_unit_test(summary_pack_round_trip),
        cmocka_unit_test(summary_json_bad_input_is_located),
        cmocka_unit_test(run_record_paused_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
