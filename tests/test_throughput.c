/* Throughput graphs and traffic matrices: conversion from topologies, the
 * hose model of every generated TM, longest matching against a hand-solved
 * case, TM files, A2A >= RM >= LM and Theorem 2 on every family, relative
 * throughput and determinism. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/throughput.h"
#include "tailor/topo.h"
#include "testutil.h"
#include "throughput/throughput_int.h"

static tl_topo *spec(const char *s)
{
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = tl_topo_from_spec(s, 1, &err);
    if (!t)
        fail_msg("%s: %s", s, err.msg);
    return t;
}

static void graph(tl_tgraph *g, const char *s)
{
    tl_topo *t = spec(s);
    tl_err err;
    tl_err_clear(&err);
    if (tl_tgraph_from_topo(g, t, 0, &err))
        fail_msg("%s: %s", s, err.msg);
    tl_topo_destroy(t);
}

/* Per-node sums of a TM's demands out and in. */
static void sums(const tl_tgraph *g, const tl_tm *tm, double *out, double *in)
{
    memset(out, 0, g->n_nodes * sizeof *out);
    memset(in, 0, g->n_nodes * sizeof *in);
    for (size_t k = 0; k < tm->n; k++) {
        assert_true(tm->src[k] != tm->dst[k] && tm->demand[k] > 0);
        out[tm->src[k]] += tm->demand[k];
        in[tm->dst[k]] += tm->demand[k];
    }
}

static void conversion(void **state)
{
    static const struct {
        const char *spec;
        uint32_t nodes, servers, edges;
        double ref;
    } cases[] = {
        /* k=4 fat tree: 20 switches, 16 servers, 32 switch links; hosts fold into edges */
        {"fat_tree:k=4", 20, 16, 32, 100e9},
        /* 32-rack fabric 2:1: 32 ToRs + 4 fabric + 16 spines; 352 - 256 host links;
         * the fabric links are all 40G, so capacity 1 = 40G */
        {"fabric:pods=2,racks=16,servers=8,planes=2,spines=8", 52, 256, 96, 40e9},
        /* BCube(4,1): servers route: 16 server nodes + 8 switches, 32 links */
        {"bcube:n=4,k=1", 24, 16, 32, 10e9},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tl_tgraph g;
        graph(&g, cases[i].spec);
        if (g.n_nodes != cases[i].nodes || tl_tgraph_n_servers(&g) != cases[i].servers ||
            g.n_edges != cases[i].edges || g.ref_bps != cases[i].ref)
            fail_msg("%s: %u nodes, %u servers, %u edges, ref %g", cases[i].spec, g.n_nodes,
                     tl_tgraph_n_servers(&g), g.n_edges, g.ref_bps);
        tl_tgraph_fini(&g);
    }
    /* A disconnected topology is an error. */
    tl_topo *t = tl_topo_create(NULL);
    for (int i = 0; i < 4; i++)
        tl_topo_add_node(t, i < 2 ? TL_NODE_HOST : TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, NULL);
    tl_topo_add_link(t, 0, 2, 10000000000ull, 1000000, NULL);
    tl_topo_add_link(t, 1, 3, 10000000000ull, 1000000, NULL);
    assert_int_equal(tl_topo_finish(t, NULL), 0);
    tl_tgraph g;
    tl_err err;
    tl_err_clear(&err);
    assert_int_not_equal(tl_tgraph_from_topo(&g, t, 0, &err), 0);
    tu_check_err("disconnected", &err, TL_EINVAL, "not linked", NULL);
    tl_topo_destroy(t);
}

/* Capacity 1 is the most common rate among links between routing nodes
 * (server links do not count); on a tie, the larger rate. */
static void reference_rate_is_most_common(void **state)
{
    static const struct {
        uint64_t ring[4]; /* the rates of a 4-switch ring's links */
        double ref;
    } cases[] = {
        {{10000000000ull, 40000000000ull, 10000000000ull, 40000000000ull}, 40e9}, /* tie */
        {{10000000000ull, 40000000000ull, 10000000000ull, 10000000000ull}, 10e9},
        {{25000000000ull, 40000000000ull, 100000000000ull, 40000000000ull}, 40e9},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_topo *t = tl_topo_create(NULL);
        for (int i = 0; i < 8; i++) /* switches 0-3, a server on each (4-7) */
            tl_topo_add_node(t, i < 4 ? TL_NODE_SWITCH : TL_NODE_HOST, TL_TIER_AUTO, -1, -1, 0,
                             NULL);
        for (uint32_t i = 0; i < 4; i++) {
            tl_topo_add_link(t, i, (i + 1) % 4, cases[c].ring[i], 1000000, NULL);
            tl_topo_add_link(t, i + 4, i, 100000000000ull, 1000000, NULL); /* 100G servers */
        }
        assert_int_equal(tl_topo_finish(t, NULL), 0);
        tl_tgraph g;
        assert_int_equal(tl_tgraph_from_topo(&g, t, 0, NULL), 0);
        if (g.ref_bps != cases[c].ref)
            fail_msg("case %zu: reference %g, expected %g", c, g.ref_bps, cases[c].ref);
        tl_tgraph_fini(&g);
        tl_topo_destroy(t);
    }
}

/* Every generated TM respects the hose model: no node sends or receives more
 * than its servers, and the busiest reaches it — except all-to-all, whose
 * pairs inside a node need no network: with 3 servers per node out of 60, a
 * node sends 3 x 57/59 of its 3 servers' rate, i.e. 57/59 of the hose limit. */
static void hose_model(void **state)
{
    tl_tgraph g;
    graph(&g, "jellyfish:switches=20,degree=4,servers=3");
    double *out = malloc(g.n_nodes * sizeof *out), *in = malloc(g.n_nodes * sizeof *in);
    for (int k = 0; tl_tm_kind_names[k]; k++) {
        tl_tm tm;
        assert_int_equal(tl_tm_make(&g, (tl_tm_kind)k, k == TL_TM_SKEWED ? 0.3 : 0, 7, &tm, NULL), 0);
        sums(&g, &tm, out, in);
        double worst = 0;
        for (uint32_t i = 0; i < g.n_nodes; i++) {
            assert_true(out[i] <= g.servers[i] * (1 + 1e-12) && in[i] <= g.servers[i] * (1 + 1e-12));
            worst = fmax(worst, fmax(out[i], in[i]) / g.servers[i]);
        }
        double want = k == TL_TM_ALL_TO_ALL ? 57.0 / 59 : 1;
        if (fabs(worst - want) > 1e-9)
            fail_msg("%s: busiest node at %g of its servers, want %g", tl_tm_kind_names[k], worst,
                     want);
        tl_tm_fini(&tm);
    }
    free(out);
    free(in);
    tl_tgraph_fini(&g);
}

/* Longest matching on a hypercube of dimension 3 (one server per switch):
 * the farthest node from v is its complement at distance 3, and the
 * complement map is a perfect matching, so every node sends to its
 * complement. */
static void longest_matching_hand_case(void **state)
{
    tl_tgraph g;
    graph(&g, "hypercube:dim=3,servers=1");
    uint16_t *d = tl_tgraph_distances(&g, NULL);
    tl_tm tm;
    assert_int_equal(tl_tm_longest_matching(&g, &tm, NULL), 0);
    assert_int_equal(tm.n, 8);
    for (size_t k = 0; k < tm.n; k++) {
        assert_int_equal(d[tm.src[k] * g.n_nodes + tm.dst[k]], 3);
        assert_true(tm.demand[k] == 1);
    }
    free(d);
    tl_tm_fini(&tm);
    tl_tgraph_fini(&g);
}

/* ---- the longest matching's assignment: auction and certificate against Hungarian ---- */

typedef struct mat {
    uint32_t n;
    const int32_t *w;
} mat;

static void mat_row(void *ctx, uint32_t i, int32_t *w)
{
    const mat *m = ctx;
    memcpy(w, m->w + (size_t)i * m->n, m->n * sizeof *w);
}

/* The total weight of assign, after checking it is a permutation. */
static int64_t assign_total(const mat *m, const uint32_t *assign)
{
    uint8_t *seen = calloc(m->n + 1, 1);
    int64_t total = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        assert_true(assign[i] < m->n && !seen[assign[i]]);
        seen[assign[i]] = 1;
        total += m->w[(size_t)i * m->n + assign[i]];
    }
    free(seen);
    return total;
}

/* Small integer weights like hop distance x servers, with many ties (the
 * auction's hard case) and with a few large weights (its scaling phases). */
static void auction_equals_hungarian(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (uint32_t trial = 0; trial < 300; trial++) {
        uint32_t n = 1 + trial % 47;
        int32_t *w = malloc((size_t)n * n * sizeof *w);
        uint32_t range = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 6 : 1000;
        for (size_t k = 0; k < (size_t)n * n; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            w[k] = (int32_t)((x >> 33) % (range + 1)) * (trial % 2 ? 1 : 12);
        }
        mat m = {n, w};
        uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        assert_int_equal(tl_assign_hungarian(n, mat_row, &m, a, NULL), 0);
        assert_int_equal(tl_assign_auction(n, mat_row, &m, b, NULL), 0);
        assert_int_equal(tl_assign_max(n, mat_row, &m, c, NULL), 0);
        int64_t ta = assign_total(&m, a);
        if (assign_total(&m, b) != ta || assign_total(&m, c) != ta)
            fail_msg("trial %u (n %u, range %u): Hungarian %lld, auction %lld, max %lld", trial, n,
                     range, (long long)ta, (long long)assign_total(&m, b),
                     (long long)assign_total(&m, c));
        free(w), free(a), free(b), free(c);
    }
}

/* The longest-matching TM's total servers x hop distance equals the
 * Hungarian method's on families where the row-maxima certificate applies
 * (Jellyfish, fat tree) and where it does not (uneven servers). */
static void longest_matching_is_optimal(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "jellyfish:switches=300,degree=8,servers=4",
        "jellyfish:switches=600,degree=24,servers=12",
        "fat_tree:k=8",
        "dragonfly:a=4,h=2,p=2",
        "leaf_spine:leaves=12,spines=4,servers=3",
        "hypercube:dim=6,servers=2",
    };
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
        tl_tgraph g;
        graph(&g, specs[s]);
        /* Uneven servers for every other case: weights min(s_i, s_j) x distance. */
        if (s % 2)
            for (uint32_t v = 0; v < g.n_nodes; v++)
                if (g.servers[v])
                    g.servers[v] = 1 + (v * 7) % 5;
        uint16_t *d = tl_tgraph_distances(&g, NULL);
        uint32_t m = 0, *nodes = malloc(g.n_nodes * sizeof *nodes);
        for (uint32_t v = 0; v < g.n_nodes; v++)
            if (g.servers[v])
                nodes[m++] = v;
        int32_t *w = malloc((size_t)m * m * sizeof *w);
        for (uint32_t a = 0; a < m; a++)
            for (uint32_t b = 0; b < m; b++) {
                uint32_t si = g.servers[nodes[a]], sj = g.servers[nodes[b]];
                w[(size_t)a * m + b] = d[(size_t)nodes[a] * g.n_nodes + nodes[b]] * (si < sj ? si : sj);
            }
        mat mm = {m, w};
        uint32_t *a = malloc(m * sizeof *a);
        assert_int_equal(tl_assign_hungarian(m, mat_row, &mm, a, NULL), 0);
        int64_t want = assign_total(&mm, a);
        tl_tm tm;
        assert_int_equal(tl_tm_longest_matching(&g, &tm, NULL), 0);
        int64_t got = 0;
        for (size_t k = 0; k < tm.n; k++) {
            uint32_t si = g.servers[tm.src[k]], sj = g.servers[tm.dst[k]];
            assert_true(tm.demand[k] == (si < sj ? si : sj));
            got += (int64_t)d[(size_t)tm.src[k] * g.n_nodes + tm.dst[k]] * (int64_t)tm.demand[k];
        }
        if (got != want)
            fail_msg("%s: longest matching totals %lld, Hungarian %lld", specs[s], (long long)got,
                     (long long)want);
        tl_tm_fini(&tm);
        free(d), free(nodes), free(w), free(a);
        tl_tgraph_fini(&g);
    }
}

static void tm_files(void **state)
{
    tl_tgraph g;
    graph(&g, "hypercube:dim=3,servers=2");
    char *p = tu_write_temp("# a TM\n0 7 4\n7 0 2\n3 4 1\n", ".tm");
    tl_tm tm;
    assert_int_equal(tl_tm_load(&g, p, &tm, NULL), 0);
    assert_int_equal(tm.n, 3);
    /* hose: node 0 sends 4 with 2 servers -> scaled by 1/2 */
    assert_true(fabs(tm.demand[0] - 2) < 1e-12 && fabs(tm.demand[2] - 0.5) < 1e-12);
    char *q = tu_temp_path(".tm");
    assert_int_equal(tl_tm_save(&tm, q, NULL), 0);
    tl_tm back;
    assert_int_equal(tl_tm_load(&g, q, &back, NULL), 0);
    assert_int_equal(back.n, 3);
    for (size_t k = 0; k < 3; k++)
        assert_true(back.src[k] == tm.src[k] && fabs(back.demand[k] - tm.demand[k]) < 1e-12);
    tl_tm_fini(&tm);
    tl_tm_fini(&back);
    static const struct {
        const char *name, *text, *needle;
    } bad[] = {
        {"unknown node", "0 1 1\n0 99 1\n", ":2:1: node 99 does not exist"},
        {"negative demand", "0 1 -3\n", ":1:1: expected a demand >= 0"},
        {"same node", "5 5 1\n", ":1:1: source and destination are the same node 5"},
        {"garbage", "0 one 1\n", ":1:1: expected 'src dst demand'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *b = tu_write_temp(bad[i].text, ".tm");
        tl_err err;
        tl_err_clear(&err);
        assert_int_not_equal(tl_tm_load(&g, b, &tm, &err), 0);
        tu_check_err(bad[i].name, &err, err.code, b, bad[i].needle);
        remove(b);
        free(b);
    }
    remove(p);
    remove(q);
    free(p);
    free(q);
    tl_tgraph_fini(&g);
}

/* Figure 4's ordering, A2A >= RM >= LM, and Theorem 2, throughput(TM) >=
 * A2A / 2 for hose TMs, on a small instance of every family (exact LP). */
static void orderings_on_every_family(void **state)
{
    static const char *const specs[] = {
        "fat_tree:k=4",         "jellyfish:switches=16,degree=4,servers=2",
        "hypercube:dim=4,servers=2", "flattened_butterfly:k=3,n=2,servers=3",
        "hyperx:sizes=3x3,servers=2", "dragonfly:a=3,p=2,h=1",
        "slimfly:q=3,servers=2", "bcube:n=3,k=1",
        "dcell:n=3,k=1",        "longhop:dim=4,servers=2",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        tl_tgraph g;
        graph(&g, specs[i]);
        double t[5];
        for (int k = 0; k < 5; k++) {
            tl_tm tm;
            tl_tput r;
            tl_err err;
            tl_err_clear(&err);
            assert_int_equal(tl_tm_make(&g, (tl_tm_kind)k, k == TL_TM_SKEWED ? 0.3 : 0, 3, &tm, NULL), 0);
            if (tl_throughput_exact(&g, &tm, &r, &err))
                fail_msg("%s %s: %s", specs[i], tl_tm_kind_names[k], err.msg);
            t[k] = r.throughput;
            tl_tm_fini(&tm);
        }
        double a2a = t[TL_TM_ALL_TO_ALL], rm = t[TL_TM_RANDOM_MATCHING], lm = t[TL_TM_LONGEST_MATCHING];
        if (!(a2a >= rm * (1 - 1e-6) && rm >= lm * (1 - 1e-6)))
            fail_msg("%s: A2A %g, RM %g, LM %g", specs[i], a2a, rm, lm);
        for (int k = 0; k < 5; k++)
            if (t[k] < a2a / 2 * (1 - 1e-6))
                fail_msg("%s %s: %g below A2A/2 = %g", specs[i], tl_tm_kind_names[k], t[k], a2a / 2);
        tl_tgraph_fini(&g);
    }
}

/* A Jellyfish against random graphs with its own equipment is itself one:
 * relative throughput near 1; the same seed gives the same answer. */
static void relative_throughput(void **state)
{
    tl_topo *t = spec("jellyfish:switches=30,degree=5,servers=3");
    tl_rel_tput a, b;
    assert_int_equal(tl_relative_throughput(t, TL_TM_RANDOM_MATCHING, 0, 1, 0, 0, 5, 9, &a, NULL), 0);
    assert_int_equal(tl_relative_throughput(t, TL_TM_RANDOM_MATCHING, 0, 1, 0, 0, 5, 9, &b, NULL), 0);
    assert_true(a.relative == b.relative && a.random_ci95 == b.random_ci95);
    if (fabs(a.relative - 1) > 0.1)
        fail_msg("jellyfish relative throughput %g", a.relative);
    tl_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conversion), cmocka_unit_test(reference_rate_is_most_common),
        cmocka_unit_test(hose_model),
        cmocka_unit_test(longest_matching_hand_case),
        cmocka_unit_test(auction_equals_hungarian),
        cmocka_unit_test(longest_matching_is_optimal),
        cmocka_unit_test(tm_files),
        cmocka_unit_test(orderings_on_every_family),
        cmocka_unit_test(relative_throughput),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
