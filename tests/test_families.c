/* Tests for the topology families of topology-throughput.txt (src/topo/gen_families.c,
 * src/topo/gen_random.c): host, switch and link counts and degrees against closed forms
 * derived by hand in the comments (the paper's 25-switch flattened butterfly, Slim Fly's
 * 2q^2 routers of degree (3q - delta)/2, BCube and DCell from their papers' formulas),
 * connectivity and diameters by BFS, Slim Fly q=5 as the Hoffman-Singleton Moore graph,
 * determinism of the random graphs per seed, same-equipment graphs keeping every switch's
 * ports and servers, and one row per bad parameter. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/topo.h"

#define G 1000000000ull
#define US 1000000ll /* ps */

/* ------------------------------------------------------------------ helpers */

static int is_switch(const tl_topo *t, uint32_t v)
{
    return tl_topo_node(t, v)->kind == TL_NODE_SWITCH;
}

static uint32_t count_switches(const tl_topo *t)
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < tl_topo_n_nodes(t); v++)
        n += is_switch(t, v);
    return n;
}

/* Links of v to switches and to hosts. */
static void split_degree(const tl_topo *t, uint32_t v, uint32_t *to_sw, uint32_t *to_host)
{
    uint32_t n;
    const uint32_t *ch = tl_topo_out_chans(t, v, &n);
    *to_sw = *to_host = 0;
    for (uint32_t i = 0; i < n; i++)
        *(is_switch(t, tl_topo_chan_to(t, ch[i])) ? to_sw : to_host) += 1;
}

/* Hop distances from src over all nodes (switch_only: through switches only); UINT32_MAX
 * where unreachable. dist has n_nodes entries. */
static void bfs(const tl_topo *t, uint32_t src, int switch_only, uint32_t *dist)
{
    uint32_t n = tl_topo_n_nodes(t), head = 0, tail = 0;
    uint32_t *queue = malloc(n * sizeof *queue);
    for (uint32_t v = 0; v < n; v++)
        dist[v] = UINT32_MAX;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++], deg;
        const uint32_t *ch = tl_topo_out_chans(t, u, &deg);
        for (uint32_t i = 0; i < deg; i++) {
            uint32_t w = tl_topo_chan_to(t, ch[i]);
            if (dist[w] == UINT32_MAX && (!switch_only || is_switch(t, w))) {
                dist[w] = dist[u] + 1;
                queue[tail++] = w;
            }
        }
    }
    free(queue);
}

static int is_connected(const tl_topo *t)
{
    uint32_t n = tl_topo_n_nodes(t);
    uint32_t *dist = malloc(n * sizeof *dist);
    bfs(t, 0, 0, dist);
    int ok = 1;
    for (uint32_t v = 0; v < n; v++)
        ok &= dist[v] != UINT32_MAX;
    free(dist);
    return ok;
}

/* Largest switch-to-switch distance through switches (UINT32_MAX: disconnected). */
static uint32_t switch_diameter(const tl_topo *t)
{
    uint32_t n = tl_topo_n_nodes(t), diam = 0;
    uint32_t *dist = malloc(n * sizeof *dist);
    for (uint32_t s = 0; s < n; s++) {
        if (!is_switch(t, s))
            continue;
        bfs(t, s, 1, dist);
        for (uint32_t v = 0; v < n; v++)
            if (is_switch(t, v) && dist[v] > diam)
                diam = dist[v];
    }
    free(dist);
    return diam;
}

/* Every pair of adjacent nodes is joined by exactly `mult` links (1: simple). */
static int has_multiplicity(const tl_topo *t, uint32_t mult)
{
    uint32_t n = tl_topo_n_nodes(t);
    uint32_t *seen = calloc(n, sizeof *seen);
    int ok = 1;
    for (uint32_t u = 0; u < n && ok; u++) {
        uint32_t deg;
        const uint32_t *ch = tl_topo_out_chans(t, u, &deg);
        for (uint32_t i = 0; i < deg; i++)
            seen[tl_topo_chan_to(t, ch[i])]++;
        for (uint32_t i = 0; i < deg; i++) {
            uint32_t w = tl_topo_chan_to(t, ch[i]);
            ok &= seen[w] == mult || (seen[w] == 1 && !(is_switch(t, u) && is_switch(t, w)));
        }
        for (uint32_t i = 0; i < deg; i++)
            seen[tl_topo_chan_to(t, ch[i])] = 0;
    }
    free(seen);
    return ok;
}

static uint32_t links_between(const tl_topo *t, uint32_t a, uint32_t b)
{
    uint32_t n, count = 0;
    const uint32_t *ch = tl_topo_out_chans(t, a, &n);
    for (uint32_t i = 0; i < n; i++)
        count += tl_topo_chan_to(t, ch[i]) == b;
    return count;
}

/* Same link list (endpoints, rate, delay, in order). */
static int same_links(const tl_topo *x, const tl_topo *y)
{
    if (tl_topo_n_links(x) != tl_topo_n_links(y) || tl_topo_n_nodes(x) != tl_topo_n_nodes(y))
        return 0;
    for (uint32_t l = 0; l < tl_topo_n_links(x); l++) {
        const tl_link *a = tl_topo_link(x, l), *b = tl_topo_link(y, l);
        if (a->a != b->a || a->b != b->b || a->rate_bps != b->rate_bps ||
            a->delay_ps != b->delay_ps)
            return 0;
    }
    return 1;
}

/* ----------------------------------------------------------------- families */

enum { HYPERCUBE, FLATBF, HYPERX, DRAGONFLY, SLIMFLY, LONGHOP, BCUBE, DCELL, JELLYFISH };

typedef struct family_case {
    const char *name;
    int family;
    uint32_t p[4];         /* the generator's integer parameters, in its order */
    const uint32_t *sizes; /* HyperX */
    /* expected */
    uint32_t hosts, switches, links;
    uint32_t sw_net_deg;  /* links of every switch to switches */
    uint32_t sw_host_deg; /* links of every switch to hosts */
    uint32_t host_deg;    /* links of every host */
    uint32_t mult;        /* links per adjacent switch pair */
    uint32_t diam;        /* switch-graph diameter; 0: not checked (server-centric) */
} family_case;

static tl_topo *build(const family_case *c, uint64_t link_bps, tl_err *err)
{
    const uint32_t *p = c->p;
    switch (c->family) {
    case HYPERCUBE:
        return tl_topo_hypercube(p[0], p[1], link_bps, err);
    case FLATBF:
        return tl_topo_flattened_butterfly(p[0], p[1], p[2], link_bps, err);
    case HYPERX:
        return tl_topo_hyperx(c->sizes, p[0], p[1], p[2], link_bps, err);
    case DRAGONFLY:
        return tl_topo_dragonfly(p[0], p[1], p[2], link_bps, err);
    case SLIMFLY:
        return tl_topo_slimfly(p[0], p[1], link_bps, err);
    case LONGHOP:
        return tl_topo_longhop(p[0], p[1], link_bps, err);
    case BCUBE:
        return tl_topo_bcube(p[0], p[1], link_bps, err);
    case DCELL:
        return tl_topo_dcell(p[0], p[1], link_bps, err);
    case JELLYFISH:
        return tl_topo_jellyfish(p[0], p[1], p[2], p[3], link_bps, err);
    }
    return NULL;
}

static const uint32_t hx_234[] = {2, 3, 4}, hx_33[] = {3, 3}, hx_22[] = {2, 2};

/* Closed forms (sw = switches, d = network degree, links = hosts' links + sw*d/2):
 *  hypercube dim: 2^dim sw, d = dim, diameter dim. dim 4, 2 servers: 16 sw, 32 hosts,
 *    32 + 32 = 64 links.
 *  flattened butterfly (k, n): k^n sw, d = n(k-1), diameter n. The paper's 5-ary 3-stage
 *    example (5, 2) with 5 servers: 25 sw, 125 hosts, d = 8, 125 + 100 = 225.
 *    (3, 3): 27 sw, d = 6, 27 + 81 = 108.
 *  HyperX: prod s_i sw, d = T sum(s_i - 1), diameter = dims. {2,3,4}: 24 sw, d = 6,
 *    24 + 72 = 96. {3,3} T=2, 2 servers: 9 sw, d = 8, 18 + 36 = 54. {2,2} T=3: 4 sw,
 *    d = 6, 4 + 12 = 16.
 *  Dragonfly (a, p, h): g = ah + 1 groups, ga sw, d = a - 1 + h, intra g a(a-1)/2, global
 *    g(g-1)/2, diameter 3 (local, global, local). a=4 p=2 h=2: 9 groups, 36 sw, 72 hosts,
 *    d = 5, 54 + 36 = 90 switch links, 162 links. a=1 p=1 h=3: K4.
 *  Slim Fly q: 2q^2 sw, d = (3q - delta)/2, diameter 2. q=3 (delta -1): 18 sw, d = 5,
 *    45 + 18 = 63. q=5 (delta 1), 2 servers: 50 sw, d = 7, 175 + 100 = 275. q=7 (delta -1):
 *    98 sw, d = 11, 539 + 98 = 637. q=11 (delta -1, w = 3): 242 sw, d = 17,
 *    2057 + 242 = 2299. q=13 (delta 1): 338 sw, d = 19, 3211 + 338 = 3549.
 *  Long Hop dim: 2^dim sw, d = dim + r with r least such that 2^r - r - 1 >= dim.
 *    dim 3: r = 3, d = 6, 24 + 8 = 32, diameter 2 (K8 minus a perfect matching).
 *    dim 4 (the [7,4,3] Hamming code): d = 7, 56 + 16 = 72; the generators
 *    {1,2,4,8,7,11,13} reach 14 = 2^4^8 only in 3 hops, so diameter 3.
 *    dim 6: r = 4, d = 10, 320 + 64 = 384.
 *  BCube (n, k): n^(k+1) hosts of k+1 links, (k+1) n^k sw of n links, (k+1) n^(k+1) links.
 *    (4,1): 16 hosts, 8 sw, 32. (2,2): 8 hosts, 12 sw, 24. (3,0): 3, 1, 3.
 *  DCell (n, k): t_0 = n, t_l = t_{l-1} (t_{l-1} + 1) hosts of k+1 links, t_k/n sw,
 *    t_k + t_k k/2 links. (4,1): 20 hosts, 5 sw, 20 + 10 = 30. (2,2): t = 2, 6, 42:
 *    42 hosts, 21 sw, 42 + 42 = 84. (3,2): t = 3, 12, 156: 156 hosts, 52 sw, 312.
 *  Jellyfish (n, r): n sw, d = r, n r / 2 switch links. (5, 4) can only be K5 and (100, 2)
 *    only a 100-cycle (diameter 50), which pairing alone rarely draws. */
static const family_case cases[] = {
    {"hypercube_1", HYPERCUBE, {1, 1}, NULL, 2, 2, 3, 1, 1, 1, 1, 1},
    {"hypercube_4", HYPERCUBE, {4, 2}, NULL, 32, 16, 64, 4, 2, 1, 1, 4},
    {"fb_paper_5ary", FLATBF, {5, 2, 5}, NULL, 125, 25, 225, 8, 5, 1, 1, 2},
    {"fb_3ary_3dims", FLATBF, {3, 3, 1}, NULL, 27, 27, 108, 6, 1, 1, 1, 3},
    {"hyperx_234", HYPERX, {3, 1, 1}, hx_234, 24, 24, 96, 6, 1, 1, 1, 3},
    {"hyperx_33_t2", HYPERX, {2, 2, 2}, hx_33, 18, 9, 54, 8, 2, 1, 2, 2},
    {"hyperx_22_t3", HYPERX, {2, 3, 1}, hx_22, 4, 4, 16, 6, 1, 1, 3, 2},
    {"dragonfly_a4_h2", DRAGONFLY, {4, 2, 2}, NULL, 72, 36, 162, 5, 2, 1, 1, 3},
    {"dragonfly_a1_h3", DRAGONFLY, {1, 1, 3}, NULL, 4, 4, 10, 3, 1, 1, 1, 1},
    {"slimfly_q3", SLIMFLY, {3, 1}, NULL, 18, 18, 63, 5, 1, 1, 1, 2},
    {"slimfly_q5", SLIMFLY, {5, 2}, NULL, 100, 50, 275, 7, 2, 1, 1, 2},
    {"slimfly_q7", SLIMFLY, {7, 1}, NULL, 98, 98, 637, 11, 1, 1, 1, 2},
    {"slimfly_q11", SLIMFLY, {11, 1}, NULL, 242, 242, 2299, 17, 1, 1, 1, 2},
    {"slimfly_q13", SLIMFLY, {13, 1}, NULL, 338, 338, 3549, 19, 1, 1, 1, 2},
    {"longhop_3", LONGHOP, {3, 1}, NULL, 8, 8, 32, 6, 1, 1, 1, 2},
    {"longhop_4", LONGHOP, {4, 1}, NULL, 16, 16, 72, 7, 1, 1, 1, 3},
    {"longhop_6", LONGHOP, {6, 1}, NULL, 64, 64, 384, 10, 1, 1, 1, 0},
    {"bcube_4_1", BCUBE, {4, 1}, NULL, 16, 8, 32, 0, 4, 2, 1, 0},
    {"bcube_2_2", BCUBE, {2, 2}, NULL, 8, 12, 24, 0, 2, 3, 1, 0},
    {"bcube_3_0", BCUBE, {3, 0}, NULL, 3, 1, 3, 0, 3, 1, 1, 0},
    {"dcell_4_1", DCELL, {4, 1}, NULL, 20, 5, 30, 0, 4, 2, 1, 0},
    {"dcell_2_2", DCELL, {2, 2}, NULL, 42, 21, 84, 0, 2, 3, 1, 0},
    {"dcell_3_2", DCELL, {3, 2}, NULL, 156, 52, 312, 0, 3, 3, 1, 0},
    {"jellyfish_20_4", JELLYFISH, {20, 4, 2, 7}, NULL, 40, 20, 80, 4, 2, 1, 1, 0},
    {"jellyfish_k5", JELLYFISH, {5, 4, 1, 1}, NULL, 5, 5, 15, 4, 1, 1, 1, 1},
    {"jellyfish_cycle", JELLYFISH, {100, 2, 1, 3}, NULL, 100, 100, 200, 2, 1, 1, 1, 50},
    {"jellyfish_pair", JELLYFISH, {2, 1, 3, 1}, NULL, 6, 2, 7, 1, 3, 1, 1, 1},
    {"jellyfish_1000_10", JELLYFISH, {1000, 10, 1, 42}, NULL, 1000, 1000, 6000, 10, 1, 1, 1, 0},
};

static void expect_u32(const char *name, const char *what, uint32_t got, uint32_t want)
{
    if (got != want) {
        fprintf(stderr, "[%s] %s: want %u, got %u\n", name, what, want, got);
        fail();
    }
}

static void test_family_counts(void **state)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const family_case *c = &cases[i];
        tl_err err = {0};
        tl_topo *t = build(c, 0, &err);
        if (!t) {
            char buf[1024];
            fprintf(stderr, "[%s] failed: %s\n", c->name, tl_err_format(&err, buf, sizeof buf));
            fail();
        }
        expect_u32(c->name, "hosts", tl_topo_n_hosts(t), c->hosts);
        expect_u32(c->name, "switches", count_switches(t), c->switches);
        expect_u32(c->name, "links", tl_topo_n_links(t), c->links);
        for (uint32_t v = 0; v < tl_topo_n_nodes(t); v++) {
            uint32_t to_sw, to_host;
            split_degree(t, v, &to_sw, &to_host);
            if (is_switch(t, v)) {
                expect_u32(c->name, "switch links to switches", to_sw, c->sw_net_deg);
                expect_u32(c->name, "switch links to hosts", to_host, c->sw_host_deg);
                assert_true(tl_topo_node(t, v)->tier >= 1);
            } else {
                expect_u32(c->name, "host links", to_sw + to_host, c->host_deg);
            }
        }
        if (!is_connected(t)) {
            fprintf(stderr, "[%s] not connected\n", c->name);
            fail();
        }
        if (!has_multiplicity(t, c->mult)) {
            fprintf(stderr, "[%s] some adjacent pair is not joined by %u links\n", c->name,
                    c->mult);
            fail();
        }
        if (c->diam)
            expect_u32(c->name, "switch diameter", switch_diameter(t), c->diam);
        for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
            assert_int_equal(tl_topo_link(t, l)->rate_bps, 10 * G);
            assert_int_equal(tl_topo_link(t, l)->delay_ps, US);
        }
        tl_topo_destroy(t);
    }
}

/* link_bps is applied to every link, host links included. */
static void test_family_rates(void **state)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (cases[i].links > 1000)
            continue;
        tl_err err = {0};
        tl_topo *t = build(&cases[i], 25 * G, &err);
        assert_non_null(t);
        for (uint32_t l = 0; l < tl_topo_n_links(t); l++)
            assert_int_equal(tl_topo_link(t, l)->rate_bps, 25 * G);
        tl_topo_destroy(t);
    }
}

/* Long Hop degree dim + r for every dim up to 14 (r: 3 for dim 3-4, 4 for 5-11, 5 for
 * 12-26), regular, simple and connected (checked with counts above). */
static void test_longhop_degrees(void **state)
{
    static const struct {
        const char *name;
        uint32_t dim, degree;
    } rows[] = {
        {"dim3", 3, 6},    {"dim4", 4, 7},    {"dim5", 5, 9},    {"dim6", 6, 10},
        {"dim7", 7, 11},   {"dim8", 8, 12},   {"dim9", 9, 13},   {"dim10", 10, 14},
        {"dim11", 11, 15}, {"dim12", 12, 17}, {"dim13", 13, 18}, {"dim14", 14, 19},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tl_err err = {0};
        tl_topo *t = tl_topo_longhop(rows[i].dim, 1, 0, &err);
        assert_non_null(t);
        uint32_t n_sw = 1u << rows[i].dim;
        expect_u32(rows[i].name, "links", tl_topo_n_links(t), n_sw + n_sw * rows[i].degree / 2);
        for (uint32_t v = n_sw; v < 2 * n_sw; v++) {
            uint32_t to_sw, to_host;
            split_degree(t, v, &to_sw, &to_host);
            expect_u32(rows[i].name, "degree", to_sw, rows[i].degree);
        }
        if (!has_multiplicity(t, 1) || !is_connected(t)) {
            fprintf(stderr, "[%s] not simple and connected\n", rows[i].name);
            fail();
        }
        tl_topo_destroy(t);
    }
}

/* Specific adjacencies, by ids the headers document. */
static void test_family_structure(void **state)
{
    tl_err err = {0};

    /* FB(5,2,5): hosts 0..124, switch (x0, x1) = 125 + x0 + 5 x1; switch (0,0) is joined
     * to (1..4, 0) and (0, 1..4) = 126..129, 130, 135, 140, 145. */
    tl_topo *t = tl_topo_flattened_butterfly(5, 2, 5, 0, &err);
    assert_non_null(t);
    static const uint32_t fb_nbrs[] = {126, 127, 128, 129, 130, 135, 140, 145};
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(links_between(t, 125, fb_nbrs[i]), 1);
    assert_int_equal(links_between(t, 125, 131), 0); /* (1,1) differs in two digits */
    assert_int_equal(links_between(t, 0, 125), 1);   /* host 0 on switch 0 */
    assert_int_equal(links_between(t, 5, 126), 1);   /* host 5 on switch 1 */
    tl_topo_destroy(t);

    /* hypercube dim 3, one server: switch u = 8 + u joined to u ^ 1, u ^ 2, u ^ 4 */
    t = tl_topo_hypercube(3, 1, 0, &err);
    assert_non_null(t);
    for (uint32_t u = 0; u < 8; u++)
        for (uint32_t v = 0; v < 8; v++) {
            uint32_t x = u ^ v;
            assert_int_equal(links_between(t, 8 + u, 8 + v), x && !(x & (x - 1)) ? 1 : 0);
        }
    tl_topo_destroy(t);

    /* Long Hop dim 4: generators {1, 2, 4, 8, 7, 11, 13} (rows of A 111, 011, 101, 110;
     * column j has bit i = bit j of row i) */
    t = tl_topo_longhop(4, 1, 0, &err);
    assert_non_null(t);
    for (uint32_t x = 1; x < 16; x++) {
        int is_gen = x == 1 || x == 2 || x == 4 || x == 8 || x == 7 || x == 11 || x == 13;
        assert_int_equal(links_between(t, 16, 16 + x), is_gen ? 1 : 0);
    }
    tl_topo_destroy(t);

    /* Dragonfly a=4 h=2: one link between every two groups, full mesh inside, h global
     * links per switch; switch r of group i is 72 + 4i + r, pod i. */
    t = tl_topo_dragonfly(4, 2, 2, 0, &err);
    assert_non_null(t);
    for (uint32_t gi = 0; gi < 9; gi++) {
        for (uint32_t gj = 0; gj < 9; gj++) {
            uint32_t n = 0;
            for (uint32_t ri = 0; ri < 4; ri++)
                for (uint32_t rj = 0; rj < 4; rj++)
                    n += links_between(t, 72 + 4 * gi + ri, 72 + 4 * gj + rj);
            assert_int_equal(n, gi == gj ? 12 : 1); /* 12: 6 links seen from both ends */
        }
        for (uint32_t r = 0; r < 4; r++) {
            assert_int_equal(tl_topo_node(t, 72 + 4 * gi + r)->pod, (int)gi);
            assert_int_equal(tl_topo_node(t, 2 * (4 * gi + r))->pod, (int)gi);
        }
    }
    /* round-robin: groups 0-1 use switch 0 of both, 0-2 switch 1 of group 0 and switch 0
     * of group 2, 1-2 switch 1 of group 1 and switch 1 of group 2 */
    assert_int_equal(links_between(t, 72, 76), 1);
    assert_int_equal(links_between(t, 73, 80), 1);
    assert_int_equal(links_between(t, 77, 81), 1);
    tl_topo_destroy(t);

    /* BCube(4,1): host 5 = digits (1,1) on level-0 switch 16 + 1 and level-1 switch 16 + 4
     * + 1, which also serves hosts 1, 9, 13; host 5's rack is its level-0 switch. */
    t = tl_topo_bcube(4, 1, 0, &err);
    assert_non_null(t);
    assert_int_equal(links_between(t, 5, 17), 1);
    assert_int_equal(links_between(t, 5, 21), 1);
    static const uint32_t lvl1[] = {1, 5, 9, 13};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(links_between(t, lvl1[i], 21), 1);
    assert_int_equal(tl_topo_node(t, 5)->rack, 1);
    assert_int_equal(tl_topo_n_racks(t), 4);
    tl_topo_destroy(t);

    /* DCell(4,1): DCell_0 i holds hosts 4i..4i+3 on switch 20 + i; [i, j-1] - [j, i]:
     * [0,0]-[1,0] = 0-4, [0,3]-[4,0] = 3-16, [3,3]-[4,3] = 15-19, [1,1]-[2,1] = 5-9. */
    t = tl_topo_dcell(4, 1, 0, &err);
    assert_non_null(t);
    assert_int_equal(links_between(t, 0, 4), 1);
    assert_int_equal(links_between(t, 3, 16), 1);
    assert_int_equal(links_between(t, 15, 19), 1);
    assert_int_equal(links_between(t, 5, 9), 1);
    assert_int_equal(links_between(t, 0, 1), 0);
    for (uint32_t h = 0; h < 20; h++) {
        assert_int_equal(links_between(t, h, 20 + h / 4), 1);
        assert_int_equal(tl_topo_node(t, h)->rack, (int)(h / 4));
    }
    tl_topo_destroy(t);
}

/* Slim Fly q=5 has 50 = 7^2 + 1 routers of degree 7 and diameter 2: a Moore graph, so
 * girth 5 (no triangle, no two routers with two common neighbours) and it is the
 * Hoffman-Singleton graph. For q=3 and 7 (delta = -1) the MMS graphs are not Moore graphs;
 * the counts test checks their diameter 2. */
static void test_slimfly_moore(void **state)
{
    tl_err err = {0};
    tl_topo *t = tl_topo_slimfly(5, 1, 0, &err);
    assert_non_null(t);
    uint32_t first = 50;
    for (uint32_t u = first; u < first + 50; u++)
        for (uint32_t v = u + 1; v < first + 50; v++) {
            uint32_t common = 0;
            for (uint32_t w = first; w < first + 50; w++)
                common += links_between(t, u, w) && links_between(t, v, w);
            assert_true(common <= (links_between(t, u, v) ? 0u : 1u));
        }
    tl_topo_destroy(t);
}

/* ------------------------------------------------------------ random graphs */

static void test_jellyfish_determinism(void **state)
{
    static const struct {
        const char *name;
        uint32_t n, r;
    } rows[] = {{"n20_r4", 20, 4}, {"n64_r7", 64, 7}, {"n100_r3", 100, 3}, {"n50_r2", 50, 2}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tl_err err = {0};
        tl_topo *a = tl_topo_jellyfish(rows[i].n, rows[i].r, 1, 11, 0, &err);
        tl_topo *b = tl_topo_jellyfish(rows[i].n, rows[i].r, 1, 11, 0, &err);
        tl_topo *c = tl_topo_jellyfish(rows[i].n, rows[i].r, 1, 12, 0, &err);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        if (!same_links(a, b)) {
            fprintf(stderr, "[%s] same seed, different links\n", rows[i].name);
            fail();
        }
        if (same_links(a, c)) {
            fprintf(stderr, "[%s] seeds 11 and 12 gave the same graph\n", rows[i].name);
            fail();
        }
        assert_true(is_connected(c) && has_multiplicity(c, 1));
        tl_topo_destroy(a);
        tl_topo_destroy(b);
        tl_topo_destroy(c);
    }
}

/* Uniformity: the 3-regular graphs on 6 labelled switches are the 10 labellings of K3,3
 * and the 60 of the prism, so a uniform draw is bipartite with probability 1/7 = 0.1429.
 * 4000 seeds: standard error 0.0055; the band is +-3 of them. Repair without the edge
 * switching drew about 0.106. Deterministic: the seeds are fixed. */
static void test_jellyfish_uniform(void **state)
{
    uint32_t n_bipartite = 0, n_draws = 4000;
    for (uint64_t seed = 0; seed < n_draws; seed++) {
        tl_err err = {0};
        tl_topo *t = tl_topo_jellyfish(6, 3, 1, seed, 0, &err);
        assert_non_null(t);
        int color[12], queue[12], head = 0, tail = 0, is_bipartite = 1;
        for (int i = 0; i < 12; i++)
            color[i] = -1;
        color[6] = 0; /* switches are 6..11 */
        queue[tail++] = 6;
        while (head < tail) {
            uint32_t u = (uint32_t)queue[head++], deg;
            const uint32_t *ch = tl_topo_out_chans(t, u, &deg);
            for (uint32_t i = 0; i < deg; i++) {
                uint32_t w = tl_topo_chan_to(t, ch[i]);
                if (!is_switch(t, w))
                    continue;
                if (color[w] < 0) {
                    color[w] = 1 - color[u];
                    queue[tail++] = (int)w;
                } else if (color[w] == color[u]) {
                    is_bipartite = 0;
                }
            }
        }
        n_bipartite += is_bipartite;
        tl_topo_destroy(t);
    }
    double frac = (double)n_bipartite / n_draws;
    if (frac < 0.1429 - 0.0166 || frac > 0.1429 + 0.0166) {
        fprintf(stderr, "K3,3 drawn %.4f of the time, want 0.1429 +- 0.0166\n", frac);
        fail();
    }
}

/* Graph nodes of t as tl_topo_same_equipment numbers them: switches and hosts with several
 * links, in id order. Returns their count; gn[v] = index or UINT32_MAX. */
static uint32_t graph_nodes(const tl_topo *t, uint32_t *gn)
{
    uint32_t n = 0;
    for (uint32_t v = 0; v < tl_topo_n_nodes(t); v++) {
        uint32_t deg;
        tl_topo_out_chans(t, v, &deg);
        gn[v] = is_switch(t, v) || deg >= 2 ? n++ : UINT32_MAX;
    }
    return n;
}

/* Per graph node: the (rate, delay) of its graph links, as a sorted signature, and its
 * servers. */
typedef struct port_sig {
    uint64_t rate_bps;
    int64_t delay_ps;
} port_sig;

static int cmp_sig(const void *a, const void *b)
{
    const port_sig *x = a, *y = b;
    if (x->rate_bps != y->rate_bps)
        return x->rate_bps < y->rate_bps ? -1 : 1;
    return (x->delay_ps > y->delay_ps) - (x->delay_ps < y->delay_ps);
}

/* sigs[i] (sorted ports of graph node i, at most max_deg), servers[i] and the sum of their
 * link rates srv_bps[i]. */
static void equipment(const tl_topo *t, uint32_t max_deg, port_sig *sigs, uint32_t *n_ports,
                      uint32_t *servers, uint64_t *srv_bps)
{
    uint32_t n = tl_topo_n_nodes(t);
    uint32_t *gn = malloc(n * sizeof *gn);
    uint32_t n_g = graph_nodes(t, gn);
    memset(n_ports, 0, n_g * sizeof *n_ports);
    memset(servers, 0, n_g * sizeof *servers);
    memset(srv_bps, 0, n_g * sizeof *srv_bps);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t deg;
        const uint32_t *ch = tl_topo_out_chans(t, v, &deg);
        if (gn[v] == UINT32_MAX) {
            servers[gn[tl_topo_chan_to(t, ch[0])]]++;
            srv_bps[gn[tl_topo_chan_to(t, ch[0])]] +=
                tl_topo_link(t, tl_chan_link(ch[0]))->rate_bps;
            continue;
        }
        if (!is_switch(t, v)) { /* a multi-homed host carries itself, at its first
                                   link's rate */
            servers[gn[v]]++;
            srv_bps[gn[v]] += tl_topo_link(t, tl_chan_link(ch[0]))->rate_bps;
        }
        for (uint32_t i = 0; i < deg; i++) {
            uint32_t w = tl_topo_chan_to(t, ch[i]);
            if (gn[w] == UINT32_MAX)
                continue;
            const tl_link *l = tl_topo_link(t, tl_chan_link(ch[i]));
            assert_true(n_ports[gn[v]] < max_deg);
            sigs[gn[v] * max_deg + n_ports[gn[v]]++] = (port_sig){l->rate_bps, l->delay_ps};
        }
    }
    for (uint32_t g = 0; g < n_g; g++)
        qsort(sigs + g * max_deg, n_ports[g], sizeof *sigs, cmp_sig);
    free(gn);
}

static uint32_t count_parallel(const tl_topo *t)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *k = tl_topo_link(t, l);
        n += links_between(t, k->a, k->b) > 1;
    }
    return n;
}

static void check_same_equipment(const char *name, const tl_topo *in, int is_simple_possible)
{
    enum { MAX_DEG = 64 };
    uint32_t n_in = tl_topo_n_nodes(in);
    uint32_t *gn = malloc(n_in * sizeof *gn);
    uint32_t n_g = graph_nodes(in, gn);
    port_sig *sig_in = malloc((size_t)n_g * MAX_DEG * sizeof *sig_in);
    port_sig *sig_out = malloc((size_t)n_g * MAX_DEG * sizeof *sig_out);
    uint32_t *ports_in = malloc(n_g * sizeof *ports_in),
             *ports_out = malloc(n_g * sizeof *ports_out);
    uint32_t *srv_in = malloc(n_g * sizeof *srv_in), *srv_out = malloc(n_g * sizeof *srv_out);
    uint64_t *bps_in = malloc(n_g * sizeof *bps_in), *bps_out = malloc(n_g * sizeof *bps_out);
    equipment(in, MAX_DEG, sig_in, ports_in, srv_in, bps_in);
    static const uint64_t seeds[] = {1, 2, 3, 1000003};
    tl_topo *first = NULL;
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        tl_err err = {0};
        tl_topo *out = tl_topo_same_equipment(in, seeds[s], &err);
        if (!out) {
            char buf[1024];
            fprintf(stderr, "[%s seed %llu] failed: %s\n", name, (unsigned long long)seeds[s],
                    tl_err_format(&err, buf, sizeof buf));
            fail();
        }
        /* the result: single-homed hosts first, then the graph nodes as switches */
        expect_u32(name, "switches", count_switches(out), n_g);
        expect_u32(name, "nodes", tl_topo_n_nodes(out), n_g + tl_topo_n_hosts(out));
        uint32_t n_host_out = tl_topo_n_hosts(out);
        for (uint32_t v = 0; v < n_host_out; v++) {
            uint32_t deg;
            tl_topo_out_chans(out, v, &deg);
            expect_u32(name, "links of a result host", deg, 1);
        }
        equipment(out, MAX_DEG, sig_out, ports_out, srv_out, bps_out);
        for (uint32_t g = 0; g < n_g; g++) {
            expect_u32(name, "servers of a switch", srv_out[g], srv_in[g]);
            assert_int_equal(bps_out[g], bps_in[g]);
            expect_u32(name, "switch ports", ports_out[g], ports_in[g]);
            if (memcmp(sig_in + g * MAX_DEG, sig_out + g * MAX_DEG, ports_in[g] * sizeof *sig_in)) {
                fprintf(stderr, "[%s] switch %u: rates or delays of its ports changed\n", name, g);
                fail();
            }
        }
        if (!is_connected(out)) {
            fprintf(stderr, "[%s seed %llu] not connected\n", name, (unsigned long long)seeds[s]);
            fail();
        }
        if (is_simple_possible && count_parallel(out)) {
            fprintf(stderr, "[%s seed %llu] %u parallel links\n", name,
                    (unsigned long long)seeds[s], count_parallel(out));
            fail();
        }
        tl_topo *again = tl_topo_same_equipment(in, seeds[s], &err);
        assert_non_null(again);
        if (!same_links(out, again)) {
            fprintf(stderr, "[%s seed %llu] not deterministic\n", name,
                    (unsigned long long)seeds[s]);
            fail();
        }
        tl_topo_destroy(again);
        if (!first)
            first = out;
        else {
            if (is_simple_possible && tl_topo_n_links(out) > 20 && same_links(first, out)) {
                fprintf(stderr, "[%s] seeds 1 and %llu gave the same graph\n", name,
                        (unsigned long long)seeds[s]);
                fail();
            }
            tl_topo_destroy(out);
        }
    }
    tl_topo_destroy(first);
    free(gn);
    free(sig_in);
    free(sig_out);
    free(ports_in);
    free(ports_out);
    free(srv_in);
    free(srv_out);
    free(bps_in);
    free(bps_out);
}

static void test_same_equipment(void **state)
{
    tl_err err = {0};
    static const uint32_t hx[] = {3, 4};
    tl_fattree_params ft4 = {.k = 4}, ft6 = {.k = 6, .hosts_per_edge = 5};
    tl_fabric_params fab = {
        .pods = 2, .racks_per_pod = 4, .hosts_per_rack = 2, .planes = 2, .spines_per_plane = 2};
    tl_twodc_params two = {.k = 4,
                           .core_border_links = 2,
                           .inter_dc_links = 3,
                           .wan_bps = 400 * G,
                           .wan_delay_ps = 1000 * US};
    static const struct {
        const char *name;
        int is_simple_possible;
    } rows[] = {
        {"fattree_k4", 1},      {"fattree_k6_5hosts", 1}, {"jellyfish_30_5", 1}, {"fb_paper", 1},
        {"dragonfly_4_2_2", 1}, {"slimfly_5", 1},         {"hyperx_34", 1},      {"bcube_4_1", 1},
        {"dcell_3_1", 1},       {"fabric_mixed", 1},      {"hyperx_22_t3", 0},   {"two_dc_wan", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        tl_topo *t = NULL;
        switch (i) {
        case 0:
            t = tl_topo_fattree(&ft4, &err);
            break;
        case 1:
            t = tl_topo_fattree(&ft6, &err);
            break;
        case 2:
            t = tl_topo_jellyfish(30, 5, 3, 5, 0, &err);
            break;
        case 3:
            t = tl_topo_flattened_butterfly(5, 2, 5, 0, &err);
            break;
        case 4:
            t = tl_topo_dragonfly(4, 2, 2, 0, &err);
            break;
        case 5:
            t = tl_topo_slimfly(5, 2, 0, &err);
            break;
        case 6:
            t = tl_topo_hyperx(hx, 2, 1, 1, 0, &err);
            break;
        case 7:
            t = tl_topo_bcube(4, 1, 0, &err);
            break;
        case 8:
            t = tl_topo_dcell(3, 1, 0, &err);
            break;
        /* 10G host links, 40G ToR-fabric-spine links */
        case 9:
            t = tl_topo_fabric(&fab, &err);
            break;
        /* K2 x K2 with 3 links per pair: degree 6 on 4 switches, no simple graph */
        case 10:
            t = tl_topo_hyperx(hx_22, 2, 3, 1, 0, &err);
            break;
        /* 3 WAN links (their own rate and delay) between the only two border switches */
        case 11:
            t = tl_topo_two_dc(&two, &err);
            break;
        }
        assert_non_null(t);
        check_same_equipment(rows[i].name, t, rows[i].is_simple_possible);
        tl_topo_destroy(t);
    }
}

/* BCube(4,1) as a same-equipment graph: 16 servers become switches of degree 2 with one
 * server each, next to 8 switches of degree 4: 24 switches, 16 hosts, 32 + 16 = 48 links.
 * Fat tree k=4: 20 switches (8 edges of network degree 2, 8 aggregations and 4 cores of
 * degree 4), 16 hosts, 32 + 16 = 48 links. */
static void test_same_equipment_counts(void **state)
{
    tl_err err = {0};
    tl_topo *bc = tl_topo_bcube(4, 1, 0, &err);
    tl_topo *r = tl_topo_same_equipment(bc, 9, &err);
    assert_non_null(r);
    expect_u32("bcube", "hosts", tl_topo_n_hosts(r), 16);
    expect_u32("bcube", "switches", count_switches(r), 24);
    expect_u32("bcube", "links", tl_topo_n_links(r), 48);
    tl_topo_destroy(r);
    tl_topo_destroy(bc);

    tl_fattree_params ft = {.k = 4};
    tl_topo *f = tl_topo_fattree(&ft, &err);
    r = tl_topo_same_equipment(f, 9, &err);
    assert_non_null(r);
    expect_u32("fattree", "hosts", tl_topo_n_hosts(r), 16);
    expect_u32("fattree", "switches", count_switches(r), 20);
    expect_u32("fattree", "links", tl_topo_n_links(r), 48);
    uint32_t deg2 = 0, deg4 = 0;
    for (uint32_t v = 16; v < 36; v++) {
        uint32_t to_sw, to_host;
        split_degree(r, v, &to_sw, &to_host);
        deg2 += to_sw == 2 && to_host == 2;
        deg4 += to_sw == 4 && to_host == 0;
    }
    expect_u32("fattree", "edge-like switches", deg2, 8);
    expect_u32("fattree", "4-port switches", deg4, 12);
    tl_topo_destroy(r);
    tl_topo_destroy(f);
}

/* Spread variant on the k=4 fat tree: every switch has 4 ports; the 16 servers go over
 * the 20 switches in proportion to ports, 16 x 4 / 80 = 0.8 each, so by largest remainder
 * the first 16 switches (ties go to the lower id) get one server and keep 3 switch links,
 * the last 4 get none and keep 4: 16 x 3 + 4 x 4 = 64 stubs = 32 links, the fat tree's
 * own number. A k=8 fat tree (80 switches of 8 ports, 128 servers, 1.6 each) gives 48
 * switches 2 servers and 32 switches 1. On a Jellyfish (equal ports, equal servers) the
 * spread keeps every switch's servers. BCube's server-centric nodes keep their server;
 * its 8 switches have none to spread. Links of two rates are refused. */
static void test_same_equipment_spread(void **state)
{
    (void)state;
    tl_err err = {0};
    static const struct {
        uint32_t k, n_sw, want_hi, srv_hi, n_hi_expect, srv_lo;
    } ft[] = {{4, 20, 16, 1, 16, 0}, {8, 80, 128, 2, 48, 1}};
    for (size_t c = 0; c < 2; c++) {
        tl_fattree_params fp = {.k = ft[c].k};
        tl_topo *f = tl_topo_fattree(&fp, &err);
        assert_non_null(f);
        uint32_t n_h = tl_topo_n_hosts(f), links = tl_topo_n_links(f);
        tl_topo *r = tl_topo_same_equipment_spread(f, 5, &err);
        assert_non_null(r);
        expect_u32("spread fattree", "hosts", tl_topo_n_hosts(r), n_h);
        expect_u32("spread fattree", "switches", count_switches(r), ft[c].n_sw);
        expect_u32("spread fattree", "links", tl_topo_n_links(r), links);
        assert_true(is_connected(r));
        assert_int_equal(count_parallel(r), 0);
        uint32_t n_hi = 0, n_lo = 0;
        for (uint32_t v = n_h; v < n_h + ft[c].n_sw; v++) {
            uint32_t to_sw, to_host;
            split_degree(r, v, &to_sw, &to_host);
            expect_u32("spread fattree", "ports", to_sw + to_host, ft[c].k);
            n_hi += to_host == ft[c].srv_hi;
            n_lo += to_host == ft[c].srv_lo;
        }
        expect_u32("spread fattree", "switches with more servers", n_hi, ft[c].n_hi_expect);
        expect_u32("spread fattree", "switches with fewer servers", n_lo,
                   ft[c].n_sw - ft[c].n_hi_expect);
        tl_topo *again = tl_topo_same_equipment_spread(f, 5, &err);
        assert_true(same_links(r, again));
        tl_topo_destroy(again);
        tl_topo_destroy(r);
        tl_topo_destroy(f);
    }

    tl_topo *j = tl_topo_from_spec("jellyfish:switches=30,degree=5,servers=3", 1, &err);
    assert_non_null(j);
    tl_topo *r = tl_topo_same_equipment_spread(j, 2, &err);
    assert_non_null(r);
    for (uint32_t v = 90; v < 120; v++) {
        uint32_t to_sw, to_host;
        split_degree(r, v, &to_sw, &to_host);
        assert_int_equal(to_sw, 5);
        assert_int_equal(to_host, 3);
    }
    tl_topo_destroy(r);
    tl_topo_destroy(j);

    tl_topo *bc = tl_topo_bcube(4, 1, 0, &err);
    r = tl_topo_same_equipment_spread(bc, 9, &err);
    assert_non_null(r);
    expect_u32("spread bcube", "hosts", tl_topo_n_hosts(r), 16);
    expect_u32("spread bcube", "switches", count_switches(r), 24);
    tl_topo_destroy(r);
    tl_topo_destroy(bc);

    /* a triangle of switches, one link at 40 Gb/s, one server each */
    tl_topo *two = tl_topo_create(&err);
    assert_non_null(two);
    for (int h = 0; h < 3; h++)
        assert_true(tl_topo_add_node(two, TL_NODE_HOST, 0, -1, -1, 0, &err) >= 0);
    for (int w = 0; w < 3; w++)
        assert_true(tl_topo_add_node(two, TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, &err) >= 0);
    for (uint32_t h = 0; h < 3; h++)
        assert_true(tl_topo_add_link(two, h, 3 + h, 10000000000ull, 1000000, &err) >= 0);
    assert_true(tl_topo_add_link(two, 3, 4, 10000000000ull, 1000000, &err) >= 0);
    assert_true(tl_topo_add_link(two, 4, 5, 10000000000ull, 1000000, &err) >= 0);
    assert_true(tl_topo_add_link(two, 5, 3, 40000000000ull, 1000000, &err) >= 0);
    assert_int_equal(tl_topo_finish(two, &err), 0);
    tl_err e2 = {0};
    assert_null(tl_topo_same_equipment_spread(two, 1, &e2));
    assert_int_equal(e2.code, TL_EINVAL);
    assert_non_null(strstr(e2.msg, "one rate and delay"));
    tl_topo_destroy(two);
}

/* ---------------------------------------------------------------- bad input */

/* Three switches in a triangle and a fourth with only a host: 3 switch links are enough
 * for 4 switches by count, but the fourth has no switch port. */
static tl_topo *isolated_switch_topo(void)
{
    tl_err err = {0};
    tl_topo *t = tl_topo_create(&err);
    for (int i = 0; i < 4; i++)
        tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, &err);
    for (int i = 0; i < 4; i++)
        tl_topo_add_node(t, TL_NODE_SWITCH, 1, -1, -1, 0, &err);
    for (uint32_t i = 0; i < 4; i++)
        tl_topo_add_link(t, i, 4 + i, G, US, &err);
    tl_topo_add_link(t, 4, 5, G, US, &err);
    tl_topo_add_link(t, 5, 6, G, US, &err);
    tl_topo_add_link(t, 4, 6, G, US, &err);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    return t;
}

/* Hosts 0-1 linked to each other, host 2 on switch 3. */
static tl_topo *host_pair_topo(void)
{
    tl_err err = {0};
    tl_topo *t = tl_topo_create(&err);
    for (int i = 0; i < 3; i++)
        tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, &err);
    tl_topo_add_node(t, TL_NODE_SWITCH, 1, -1, -1, 0, &err);
    tl_topo_add_link(t, 0, 1, G, US, &err);
    tl_topo_add_link(t, 2, 3, G, US, &err);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    return t;
}

/* Two switches with a host each and no link between them. */
static tl_topo *no_switch_links_topo(void)
{
    tl_err err = {0};
    tl_topo *t = tl_topo_create(&err);
    for (int i = 0; i < 2; i++)
        tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, &err);
    for (int i = 0; i < 2; i++)
        tl_topo_add_node(t, TL_NODE_SWITCH, 1, -1, -1, 0, &err);
    tl_topo_add_link(t, 0, 2, G, US, &err);
    tl_topo_add_link(t, 1, 3, G, US, &err);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    return t;
}

static void test_bad_parameters(void **state)
{
    static const uint32_t hx_bad[] = {3, 1}, hx_ok[] = {3, 3};
    enum { N_CASES = 30 };
    static const struct {
        const char *name;
        int code;
        const char *needle1, *needle2;
    } rows[N_CASES] = {
        {"jellyfish_n1", TL_ERANGE, "n_switches", "found 1"},
        {"jellyfish_degree0", TL_ERANGE, "degree", "found 0"},
        {"jellyfish_degree_n", TL_ERANGE, "degree", "1..9"},
        {"jellyfish_odd", TL_EINVAL, "degree", "even"},
        {"jellyfish_degree1", TL_EINVAL, "degree", "only 2 switches"},
        {"jellyfish_no_servers", TL_ERANGE, "servers_per_switch", "found 0"},
        {"hypercube_dim0", TL_ERANGE, "dim", "found 0"},
        {"hypercube_dim31", TL_ERANGE, "dim", "found 31"},
        {"fb_k1", TL_ERANGE, "k: ", "found 1"},
        {"fb_dims0", TL_ERANGE, "n_dims", "found 0"},
        {"fb_huge", TL_ERANGE, "at most", "nodes"},
        {"hyperx_size1", TL_ERANGE, "sizes[1]", "found 1"},
        {"hyperx_mult0", TL_ERANGE, "multiplicity", "found 0"},
        {"hyperx_dims0", TL_ERANGE, "n_dims", "found 0"},
        {"dragonfly_a0", TL_ERANGE, "a: ", "found 0"},
        {"dragonfly_h0", TL_ERANGE, "h: ", "found 0"},
        {"dragonfly_p0", TL_ERANGE, "p: ", "found 0"},
        {"slimfly_q9", TL_ERANGE, "q: ", "prime"},
        {"slimfly_q2", TL_ERANGE, "q: ", "4w + delta"},
        {"slimfly_q1", TL_ERANGE, "q: ", "prime"},
        {"slimfly_huge", TL_ERANGE, "at most", "links"},
        {"longhop_dim2", TL_ERANGE, "dim", "found 2"},
        {"longhop_dim31", TL_ERANGE, "dim", "found 31"},
        {"bcube_n1", TL_ERANGE, "n: ", "found 1"},
        {"bcube_huge", TL_ERANGE, "at most", "nodes"},
        {"dcell_n1", TL_ERANGE, "n: ", "found 1"},
        {"dcell_huge", TL_ERANGE, "k: ", "more than 4194304 servers"},
        {"same_eq_isolated", TL_EINVAL, "node 7", "no link to another switch"},
        {"same_eq_host_pair", TL_EINVAL, "hosts 0 and 1", "only to each other"},
        {"same_eq_no_links", TL_EINVAL, "2 switches", "0 switch-to-switch links"},
    };
    for (int i = 0; i < N_CASES; i++) {
        tl_err err = {0};
        tl_topo *t = NULL, *in = NULL;
        switch (i) {
        case 0:
            t = tl_topo_jellyfish(1, 1, 1, 1, 0, &err);
            break;
        case 1:
            t = tl_topo_jellyfish(10, 0, 1, 1, 0, &err);
            break;
        case 2:
            t = tl_topo_jellyfish(10, 10, 1, 1, 0, &err);
            break;
        case 3:
            t = tl_topo_jellyfish(5, 3, 1, 1, 0, &err);
            break;
        case 4:
            t = tl_topo_jellyfish(10, 1, 1, 1, 0, &err);
            break;
        case 5:
            t = tl_topo_jellyfish(10, 3, 0, 1, 0, &err);
            break;
        case 6:
            t = tl_topo_hypercube(0, 1, 0, &err);
            break;
        case 7:
            t = tl_topo_hypercube(31, 1, 0, &err);
            break;
        case 8:
            t = tl_topo_flattened_butterfly(1, 2, 1, 0, &err);
            break;
        case 9:
            t = tl_topo_flattened_butterfly(4, 0, 1, 0, &err);
            break;
        case 10:
            t = tl_topo_flattened_butterfly(100, 5, 1, 0, &err);
            break;
        case 11:
            t = tl_topo_hyperx(hx_bad, 2, 1, 1, 0, &err);
            break;
        case 12:
            t = tl_topo_hyperx(hx_ok, 2, 0, 1, 0, &err);
            break;
        case 13:
            t = tl_topo_hyperx(hx_ok, 0, 1, 1, 0, &err);
            break;
        case 14:
            t = tl_topo_dragonfly(0, 1, 1, 0, &err);
            break;
        case 15:
            t = tl_topo_dragonfly(4, 1, 0, 0, &err);
            break;
        case 16:
            t = tl_topo_dragonfly(4, 0, 2, 0, &err);
            break;
        case 17:
            t = tl_topo_slimfly(9, 1, 0, &err);
            break;
        case 18:
            t = tl_topo_slimfly(2, 1, 0, &err);
            break;
        case 19:
            t = tl_topo_slimfly(1, 1, 0, &err);
            break;
        case 20:
            t = tl_topo_slimfly(2003, 1, 0, &err);
            break; /* 1.5 q^3 > 2^31 links */
        case 21:
            t = tl_topo_longhop(2, 1, 0, &err);
            break;
        case 22:
            t = tl_topo_longhop(31, 1, 0, &err);
            break;
        case 23:
            t = tl_topo_bcube(1, 1, 0, &err);
            break;
        case 24:
            t = tl_topo_bcube(2, 40, 0, &err);
            break;
        case 25:
            t = tl_topo_dcell(1, 1, 0, &err);
            break;
        case 26:
            t = tl_topo_dcell(10, 4, 0, &err);
            break;
        case 27:
            in = isolated_switch_topo();
            break;
        case 28:
            in = host_pair_topo();
            break;
        case 29:
            in = no_switch_links_topo();
            break;
        }
        if (in) {
            t = tl_topo_same_equipment(in, 1, &err);
            tl_topo_destroy(in);
        }
        if (t) {
            fprintf(stderr, "[%s] built a topology from bad parameters\n", rows[i].name);
            fail();
        }
        tu_check_err(rows[i].name, &err, rows[i].code, rows[i].needle1, rows[i].needle2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_counts),         cmocka_unit_test(test_family_rates),
        cmocka_unit_test(test_longhop_degrees),       cmocka_unit_test(test_family_structure),
        cmocka_unit_test(test_slimfly_moore),         cmocka_unit_test(test_jellyfish_determinism),
        cmocka_unit_test(test_jellyfish_uniform),     cmocka_unit_test(test_same_equipment),
        cmocka_unit_test(test_same_equipment_counts), cmocka_unit_test(test_same_equipment_spread),
        cmocka_unit_test(test_bad_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
