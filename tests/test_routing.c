/* ECMP routing: path sets of a k=4 fat tree against hand-computed ones,
 * independence of the choices at successive tiers, failures and re-routing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/routing.h"
#include "tailor/topo.h"
#include "testutil.h"

/* k=4 fat tree node ids (gen_fattree.c): hosts 0..15 (host i of edge e of pod
 * p is (2p+e)*2+i), edges 16..23 (16+2p+e), aggregations 24..31 (24+2p+a),
 * cores 32..35 (32+2g+j; core 2g+j links aggregation g of every pod). */
static tl_topo *fattree(uint32_t k)
{
    tl_fattree_params p = {.k = k, .host_bps = 100000000000ull, .fabric_bps = 100000000000ull,
                           .delay_ps = 1000000};
    tl_topo *t = tl_topo_fattree(&p, NULL);
    assert_non_null(t);
    return t;
}

/* Node sequence of a path as text "0-16-24-32-26-18-4". */
static void path_text(const tl_topo *t, uint32_t src, const uint32_t *chans, int hops, char *out,
                      size_t n)
{
    size_t off = (size_t)snprintf(out, n, "%u", src);
    for (int i = 0; i < hops; i++)
        off += (size_t)snprintf(out + off, n - off, "-%u", tl_topo_chan_to(t, chans[i]));
}

static void k4_path_sets_match_hand_computed(void **state)
{
    static const struct {
        const char *name;
        uint32_t src, dst;
        const char *paths[4];
    } cases[] = {
        {"same edge", 0, 1, {"0-16-1"}},
        {"same pod", 0, 2, {"0-16-24-17-2", "0-16-25-17-2"}},
        {"other pod",
         0,
         4,
         {"0-16-24-32-26-18-4", "0-16-24-33-26-18-4", "0-16-25-34-27-18-4", "0-16-25-35-27-18-4"}},
        {"last pod reverse",
         15,
         0,
         {"15-23-30-32-24-16-0", "15-23-30-33-24-16-0", "15-23-31-34-25-16-0",
          "15-23-31-35-25-16-0"}},
    };
    tl_topo *t = fattree(4);
    tl_routes *r = tl_routes_create(t, 1, NULL);
    assert_non_null(r);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t n_want = 0;
        while (n_want < 4 && cases[c].paths[n_want])
            n_want++;
        int seen[4] = {0};
        for (uint64_t id = 0; id < 400; id++) {
            uint32_t chans[TL_MAX_HOPS];
            int h = tl_routes_path(r, id, cases[c].src, cases[c].dst, chans, TL_MAX_HOPS, NULL);
            char txt[128];
            path_text(t, cases[c].src, chans, h, txt, sizeof txt);
            size_t k;
            for (k = 0; k < n_want && strcmp(txt, cases[c].paths[k]) != 0; k++)
                ;
            if (k == n_want)
                fail_msg("case %s: unexpected path %s", cases[c].name, txt);
            seen[k]++;
        }
        for (size_t k = 0; k < n_want; k++)
            if (seen[k] < 400 / (int)n_want / 2) /* every path used, roughly evenly */
                fail_msg("case %s: path %s used %d times of 400", cases[c].name,
                         cases[c].paths[k], seen[k]);
        uint32_t d = tl_routes_dist(r, cases[c].src, cases[c].dst);
        uint32_t dashes = 0;
        for (const char *p = cases[c].paths[0]; *p; p++)
            dashes += *p == '-';
        if (d != dashes)
            fail_msg("case %s: dist %u, want %u", cases[c].name, d, dashes);
    }
    /* The next-hop set at edge 16 toward host 4 is its two aggregation uplinks. */
    uint32_t buf[8], n;
    const uint32_t *nh = tl_routes_next(r, 16, 4, buf, 8, &n);
    assert_int_equal(n, 2);
    assert_int_equal(tl_topo_chan_to(t, nh[0]) + tl_topo_chan_to(t, nh[1]), 24 + 25);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

/* Over 100k flows from pod 0 to pod 1 of a k=8 fat tree, the core chosen at the
 * aggregation switch must not be predictable from the aggregation switch chosen
 * at the edge: chi-square test of independence on the 4 x 4 table (9 degrees of
 * freedom; 40 is far beyond the 0.001 critical value 27.9). Reusing one hash at
 * every hop would put all the mass on the diagonal (chi-square near 300,000). */
static void tier_choices_are_independent(void **state)
{
    tl_topo *t = fattree(8);
    tl_routes *r = tl_routes_create(t, 99, NULL);
    /* k=8: 128 hosts, edges 128.., aggs 160.. (160 + 4p + a), cores 192.. (192 + 4g + j) */
    double table[4][4] = {{0}};
    const int n = 100000;
    for (int id = 0; id < n; id++) {
        uint32_t chans[TL_MAX_HOPS];
        uint32_t src = (uint32_t)(id % 16), dst = 16 + (uint32_t)(id % 16); /* pod 0 -> pod 1 */
        int h = tl_routes_path(r, (uint64_t)id, src, dst, chans, TL_MAX_HOPS, NULL);
        assert_int_equal(h, 6);
        uint32_t agg = tl_topo_chan_to(t, chans[1]), core = tl_topo_chan_to(t, chans[2]);
        assert_true(agg >= 160 && agg < 164 && core >= 192 && core < 208);
        table[agg - 160][(core - 192) % 4] += 1;
    }
    double chi2 = 0;
    for (int a = 0; a < 4; a++)
        for (int j = 0; j < 4; j++) {
            double row = 0, col = 0;
            for (int x = 0; x < 4; x++) {
                row += table[a][x];
                col += table[x][j];
            }
            double exp = row * col / n;
            chi2 += (table[a][j] - exp) * (table[a][j] - exp) / exp;
        }
    if (chi2 > 40)
        fail_msg("chi-square %.1f: tier-2 choice depends on tier-1 choice", chi2);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

static void failures_reroute_and_disconnect(void **state)
{
    tl_topo *t = fattree(4);
    tl_routes *r = tl_routes_create(t, 1, NULL);
    /* Find and fail the link aggregation 24 - core 32. */
    uint32_t fail_link = UINT32_MAX;
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *k = tl_topo_link(t, l);
        if ((k->a == 24 && k->b == 32) || (k->a == 32 && k->b == 24))
            fail_link = l;
    }
    assert_true(fail_link != UINT32_MAX);
    assert_int_equal(tl_topo_set_failed(t, fail_link, 1, NULL), 0);
    assert_int_equal(tl_routes_rebuild(r, NULL), 0);
    for (uint64_t id = 0; id < 500; id++) {
        uint32_t chans[TL_MAX_HOPS];
        int h = tl_routes_path(r, id, 0, 4, chans, TL_MAX_HOPS, NULL);
        assert_int_equal(h, 6);
        for (int i = 0; i < h; i++)
            assert_int_not_equal(tl_chan_link(chans[i]), fail_link);
    }
    /* Failing host 4's only link makes it unreachable: a clear error. */
    uint32_t deg;
    const uint32_t *oc = tl_topo_out_chans(t, 4, &deg);
    assert_int_equal(deg, 1);
    tl_topo_set_failed(t, tl_chan_link(oc[0]), 1, NULL);
    assert_int_equal(tl_routes_rebuild(r, NULL), 0);
    tl_err err;
    tl_err_clear(&err);
    uint32_t chans[TL_MAX_HOPS];
    assert_true(tl_routes_path(r, 1, 0, 4, chans, TL_MAX_HOPS, &err) < 0);
    tu_check_err("unreachable", &err, TL_EINVAL, "no route from host 0 to host 4", NULL);
    assert_int_equal(tl_routes_dist(r, 0, 4), UINT32_MAX);
    /* Bad endpoints. */
    tl_err_clear(&err);
    assert_true(tl_routes_path(r, 1, 0, 16, chans, TL_MAX_HOPS, &err) < 0);
    tu_check_err("switch endpoint", &err, TL_EINVAL, "must be hosts", NULL);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

/* On the 32-rack fabric every inter-pod path is host-ToR-fabric-spine-fabric-ToR-host,
 * uses the same plane on both sides (fabric switch i only reaches plane i) and
 * spreads over all planes. */
static void fabric_paths_stay_in_plane(void **state)
{
    tl_fabric_params p = {.pods = 2, .racks_per_pod = 16, .hosts_per_rack = 8, .planes = 2,
                          .spines_per_plane = 8};
    tl_topo *t = tl_topo_fabric(&p, NULL);
    tl_routes *r = tl_routes_create(t, 5, NULL);
    int plane_use[2] = {0};
    for (uint64_t id = 0; id < 2000; id++) {
        uint32_t chans[TL_MAX_HOPS];
        int h = tl_routes_path(r, id, 0, 128 + (uint32_t)(id % 128), chans, TL_MAX_HOPS, NULL);
        assert_int_equal(h, 6);
        const tl_node *f1 = tl_topo_node(t, tl_topo_chan_to(t, chans[1]));
        const tl_node *sp = tl_topo_node(t, tl_topo_chan_to(t, chans[2]));
        const tl_node *f2 = tl_topo_node(t, tl_topo_chan_to(t, chans[3]));
        assert_int_equal(f1->tier, 2);
        assert_int_equal(sp->tier, 3);
        assert_int_equal(f2->tier, 2);
        /* fabric switches are ids 288 + pod*2 + plane */
        uint32_t pl1 = (tl_topo_chan_to(t, chans[1]) - 288) % 2;
        uint32_t pl2 = (tl_topo_chan_to(t, chans[3]) - 288) % 2;
        assert_int_equal(pl1, pl2);
        plane_use[pl1]++;
    }
    assert_true(plane_use[0] > 800 && plane_use[1] > 800);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(k4_path_sets_match_hand_computed),
        cmocka_unit_test(tier_choices_are_independent),
        cmocka_unit_test(failures_reroute_and_disconnect),
        cmocka_unit_test(fabric_paths_stay_in_plane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
