/* Tests for topology generators and files (src/topo/gen_*.c, src/topo/topo_io.c):
 * node, link and host counts against the figures published with Parsimon's fabric
 * (parsimon.txt §5.1, ../shared/notes/parsimon.md) and closed forms for fat trees,
 * leaf-spine, parking lots and Uno's two data centers; id/tier/rack/pod/dc spot
 * checks; both file formats round-tripped through temporary files; and one row per
 * bad input, checking that the error names the file and the line:column or JSON path. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/topo.h"
#include "topo/topo_int.h" /* to set tl_link.error_rate, which no generator sets */

#define G 1000000000ull
#define US 1000000ll /* ps */

/* ------------------------------------------------------------------ helpers */

static uint32_t degree(const tl_topo *t, uint32_t node)
{
    uint32_t n;
    tl_topo_out_chans(t, node, &n);
    return n;
}

/* Number of links joining a and b (either direction). */
static uint32_t n_links_between(const tl_topo *t, uint32_t a, uint32_t b)
{
    uint32_t n, count = 0;
    const uint32_t *ch = tl_topo_out_chans(t, a, &n);
    for (uint32_t i = 0; i < n; i++)
        count += tl_topo_chan_to(t, ch[i]) == b;
    return count;
}

static void expect_node(const char *name, const tl_topo *t, uint32_t id, int kind, int tier,
                        int pod, int rack, int dc)
{
    const tl_node *n = tl_topo_node(t, id);
    if (n->kind != kind || n->tier != tier || n->pod != pod || n->rack != rack || n->dc != dc) {
        fprintf(stderr,
                "[%s] node %u: want kind %d tier %d pod %d rack %d dc %d, "
                "got kind %d tier %d pod %d rack %d dc %d\n",
                name, id, kind, tier, pod, rack, dc, n->kind, n->tier, n->pod, n->rack, n->dc);
        fail();
    }
}

static void expect_counts(const char *name, const tl_topo *t, uint32_t hosts, uint32_t nodes,
                          uint32_t links, uint32_t racks, uint32_t pods, uint32_t dcs)
{
    if (!t) {
        fprintf(stderr, "[%s] generator failed\n", name);
        fail();
    }
    uint32_t got[6] = {tl_topo_n_hosts(t), tl_topo_n_nodes(t), tl_topo_n_links(t),
                       tl_topo_n_racks(t), tl_topo_n_pods(t),  tl_topo_n_dcs(t)};
    uint32_t want[6] = {hosts, nodes, links, racks, pods, dcs};
    static const char *what[6] = {"hosts", "nodes", "links", "racks", "pods", "dcs"};
    for (int i = 0; i < 6; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "[%s] %s: want %u, got %u\n", name, what[i], want[i], got[i]);
            fail();
        }
}

/* Number of switches of each tier 1..4. */
static void tier_counts(const tl_topo *t, uint32_t out[5])
{
    memset(out, 0, 5 * sizeof *out);
    for (uint32_t i = 0; i < tl_topo_n_nodes(t); i++) {
        const tl_node *n = tl_topo_node(t, i);
        if (n->kind == TL_NODE_SWITCH && n->tier >= 1 && n->tier <= 4)
            out[n->tier]++;
    }
}

/* --------------------------------------------------------------- generators */

/* Counts from parsimon-eval's cluster files (../shared/notes/parsimon.md §3):
 * hosts = pods*racks*hosts; nodes add one ToR per rack, pods*planes fabric switches
 * and planes*spines spines; links are one per host, racks*planes ToR-fabric and
 * pods*planes*spines fabric-spine. E.g. 1:1: 256 + 32 + 4 + 32 = 324 nodes,
 * 256 + 64 + 64 = 384 links; cluster_b: 6144 + 384 + 32 + 192 = 6752 nodes,
 * 6144 + 1536 + 1536 = 9216 links. */
static void test_fabric_counts(void **state)
{
    static const struct {
        const char *name;
        uint32_t pods, racks_per_pod, hosts_per_rack, planes, spines_per_plane;
        uint32_t hosts, nodes, links, tors, fabs, spines;
    } cases[] = {
        {"fig8_1to1", 2, 16, 8, 2, 16, 256, 324, 384, 32, 4, 32},
        {"fig8_2to1", 2, 16, 8, 2, 8, 256, 308, 352, 32, 4, 16},
        {"fig8_4to1", 2, 16, 8, 2, 4, 256, 300, 336, 32, 4, 8},
        {"cluster_b", 8, 48, 16, 4, 48, 6144, 6752, 9216, 384, 32, 192},
        {"cluster_b_2to1", 8, 48, 16, 4, 24, 6144, 6656, 8448, 384, 32, 96},
        {"one_of_each", 1, 1, 1, 1, 1, 1, 4, 3, 1, 1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_err err = {0};
        const tl_fabric_params fp = {.pods = cases[c].pods,
                                     .racks_per_pod = cases[c].racks_per_pod,
                                     .hosts_per_rack = cases[c].hosts_per_rack,
                                     .planes = cases[c].planes,
                                     .spines_per_plane = cases[c].spines_per_plane};
        const tl_fabric_params *p = &fp;
        tl_topo *t = tl_topo_fabric(p, &err);
        expect_counts(cases[c].name, t, cases[c].hosts, cases[c].nodes, cases[c].links,
                      cases[c].tors, p->pods, 1);
        uint32_t tiers[5];
        tier_counts(t, tiers);
        if (tiers[1] != cases[c].tors || tiers[2] != cases[c].fabs || tiers[3] != cases[c].spines) {
            fprintf(stderr, "[%s] tiers 1/2/3: want %u/%u/%u, got %u/%u/%u\n", cases[c].name,
                    cases[c].tors, cases[c].fabs, cases[c].spines, tiers[1], tiers[2], tiers[3]);
            fail();
        }
        /* defaults: 10G host links, 40G fabric links, 1 us everywhere */
        for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
            const tl_link *lk = tl_topo_link(t, l);
            int is_host_link = tl_topo_node(t, lk->a)->kind == TL_NODE_HOST ||
                               tl_topo_node(t, lk->b)->kind == TL_NODE_HOST;
            assert_int_equal(lk->rate_bps, is_host_link ? 10 * G : 40 * G);
            assert_int_equal(lk->delay_ps, US);
        }
        /* degrees: ToR hosts+planes, fabric racks+spines, spine one per pod */
        for (uint32_t i = 0; i < tl_topo_n_nodes(t); i++) {
            const tl_node *n = tl_topo_node(t, i);
            uint32_t want = n->tier == 0   ? 1
                            : n->tier == 1 ? p->hosts_per_rack + p->planes
                            : n->tier == 2 ? p->racks_per_pod + p->spines_per_plane
                                           : p->pods;
            assert_int_equal(degree(t, i), want);
        }
        tl_topo_destroy(t);
    }
}

/* fig8_1to1 ids (hosts 0..255, ToRs 256..287, fabric 288..291, spines 292..323):
 * host 8 is the first of rack 1; host 128 the first of rack 16 = pod 1; fabric switch
 * 289 is pod 0 plane 1 and reaches spines 308..323 (plane 1) and the ToRs of pod 0. */
static void test_fabric_ids(void **state)
{
    tl_fabric_params p = {.pods = 2,
                          .racks_per_pod = 16,
                          .hosts_per_rack = 8,
                          .planes = 2,
                          .spines_per_plane = 16,
                          .host_bps = 25 * G,
                          .fabric_bps = 100 * G,
                          .delay_ps = 500000};
    tl_err err = {0};
    tl_topo *t = tl_topo_fabric(&p, &err);
    assert_non_null(t);
    static const struct {
        const char *name;
        uint32_t id;
        int kind, tier, pod, rack;
    } cases[] = {
        {"host0", 0, TL_NODE_HOST, 0, 0, 0},          {"host8", 8, TL_NODE_HOST, 0, 0, 1},
        {"host128", 128, TL_NODE_HOST, 0, 1, 16},     {"host255", 255, TL_NODE_HOST, 0, 1, 31},
        {"tor0", 256, TL_NODE_SWITCH, 1, 0, 0},       {"tor16", 272, TL_NODE_SWITCH, 1, 1, 16},
        {"tor31", 287, TL_NODE_SWITCH, 1, 1, 31},     {"fab_p0_i0", 288, TL_NODE_SWITCH, 2, 0, -1},
        {"fab_p1_i1", 291, TL_NODE_SWITCH, 2, 1, -1}, {"spine0", 292, TL_NODE_SWITCH, 3, -1, -1},
        {"spine31", 323, TL_NODE_SWITCH, 3, -1, -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        expect_node(cases[c].name, t, cases[c].id, cases[c].kind, cases[c].tier, cases[c].pod,
                    cases[c].rack, 0);
    assert_int_equal(n_links_between(t, 8, 257), 1);
    assert_int_equal(n_links_between(t, 8, 256), 0);
    for (uint32_t s = 292; s < 324; s++)
        assert_int_equal(n_links_between(t, 289, s), s >= 308 ? 1 : 0);
    for (uint32_t tor = 256; tor < 288; tor++)
        assert_int_equal(n_links_between(t, 289, tor), tor < 272 ? 1 : 0);
    uint32_t n;
    const uint32_t *rack1 = tl_topo_rack_hosts(t, 1, &n);
    assert_int_equal(n, 8);
    assert_int_equal(rack1[0], 8);
    tl_topo_pod_racks(t, 1, &n);
    assert_int_equal(n, 16);
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *lk = tl_topo_link(t, l);
        assert_int_equal(lk->rate_bps, (lk->a < 256 || lk->b < 256) ? 25 * G : 100 * G);
        assert_int_equal(lk->delay_ps, 500000);
    }
    tl_topo_destroy(t);
}

/* k-ary fat tree (Al-Fares): k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 cores; links = hosts + k*(k/2)^2 edge-agg + (k/2)^2*k agg-core.
 * k=8: 8*4*4 = 128 hosts, 32+32+16 = 80 switches, 128 + 128 + 128 = 384 links
 * (256 of them between switches). k=4: 16 hosts, 20 switches, 16+16+16 = 48 links.
 * k=2: 2 hosts, 2+2+1 = 5 switches, 2+2+2 = 6 links. Oversubscribed edges have
 * more hosts but the same switch-switch links. */
static void test_fattree_counts(void **state)
{
    static const struct {
        const char *name;
        uint32_t k, hpe;
        uint32_t hosts, switches, links;
    } cases[] = {
        {"k2", 2, 0, 2, 5, 6},
        {"k4", 4, 0, 16, 20, 48},
        {"k8", 8, 0, 128, 80, 384},
        {"k4_2to1", 4, 4, 32, 20, 64},    /* 4 hosts per edge against 2 up-links */
        {"k8_4to1", 8, 16, 512, 80, 768}, /* 512 host links + 256 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_fattree_params p = {.k = cases[c].k, .hosts_per_edge = cases[c].hpe};
        tl_err err = {0};
        tl_topo *t = tl_topo_fattree(&p, &err);
        uint32_t k = cases[c].k;
        expect_counts(cases[c].name, t, cases[c].hosts, cases[c].hosts + cases[c].switches,
                      cases[c].links, k * k / 2, k, 1);
        uint32_t tiers[5];
        tier_counts(t, tiers);
        assert_int_equal(tiers[1], k * k / 2);
        assert_int_equal(tiers[2], k * k / 2);
        assert_int_equal(tiers[3], k * k / 4);
        /* every aggregation and core switch has k ports; defaults 100G and 1 us */
        for (uint32_t i = 0; i < tl_topo_n_nodes(t); i++)
            if (tl_topo_node(t, i)->tier >= 2)
                assert_int_equal(degree(t, i), k);
        for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
            assert_int_equal(tl_topo_link(t, l)->rate_bps, 100 * G);
            assert_int_equal(tl_topo_link(t, l)->delay_ps, US);
        }
        tl_topo_destroy(t);
    }
}

/* k=4: hosts 0..15, edges 16..23, aggregation 24..31, cores 32..35. Hosts 4 and 5
 * are under edge 0 of pod 1 (node 18, rack pod*2+edge = 2). Core 33 (group 0) reaches
 * aggregation switch 0 of every pod (24, 26, 28, 30), core 34 (group 1) switch 1. */
static void test_fattree_ids(void **state)
{
    tl_fattree_params p = {.k = 4, .host_bps = 10 * G, .fabric_bps = 40 * G, .delay_ps = 2000};
    tl_err err = {0};
    tl_topo *t = tl_topo_fattree(&p, &err);
    assert_non_null(t);
    static const struct {
        const char *name;
        uint32_t id;
        int kind, tier, pod, rack;
    } cases[] = {
        {"host0", 0, TL_NODE_HOST, 0, 0, 0},         {"host5", 5, TL_NODE_HOST, 0, 1, 2},
        {"host15", 15, TL_NODE_HOST, 0, 3, 7},       {"edge_p0_e0", 16, TL_NODE_SWITCH, 1, 0, 0},
        {"edge_p1_e0", 18, TL_NODE_SWITCH, 1, 1, 2}, {"edge_p3_e1", 23, TL_NODE_SWITCH, 1, 3, 7},
        {"agg_p1_a0", 26, TL_NODE_SWITCH, 2, 1, -1}, {"core0", 32, TL_NODE_SWITCH, 3, -1, -1},
        {"core3", 35, TL_NODE_SWITCH, 3, -1, -1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        expect_node(cases[c].name, t, cases[c].id, cases[c].kind, cases[c].tier, cases[c].pod,
                    cases[c].rack, 0);
    assert_int_equal(n_links_between(t, 5, 18), 1);
    for (uint32_t a = 24; a < 32; a++) {
        assert_int_equal(n_links_between(t, 33, a), a % 2 == 0 ? 1 : 0);
        assert_int_equal(n_links_between(t, 34, a), a % 2 == 1 ? 1 : 0);
    }
    /* edge 18 (pod 1) reaches exactly the aggregation switches of pod 1 */
    for (uint32_t a = 24; a < 32; a++)
        assert_int_equal(n_links_between(t, 18, a), a == 26 || a == 27 ? 1 : 0);
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *lk = tl_topo_link(t, l);
        assert_int_equal(lk->rate_bps, (lk->a < 16 || lk->b < 16) ? 10 * G : 40 * G);
        assert_int_equal(lk->delay_ps, 2000);
    }
    tl_topo_destroy(t);
}

/* Leaf-spine: hosts = leaves*hosts_per_leaf, links = hosts + leaves*spines.
 * PARALEON's setup: 8 leaves x 16 hosts, 4 spines: 128 hosts, 140 nodes, 160 links. */
static void test_leafspine(void **state)
{
    static const struct {
        const char *name;
        tl_leafspine_params p;
        uint32_t hosts, nodes, links;
    } cases[] = {
        {"paraleon", {.leaves = 8, .spines = 4, .hosts_per_leaf = 16}, 128, 140, 160},
        {"minimal", {.leaves = 2, .spines = 1, .hosts_per_leaf = 1}, 2, 5, 4},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_err err = {0};
        tl_topo *t = tl_topo_leafspine(&cases[c].p, &err);
        expect_counts(cases[c].name, t, cases[c].hosts, cases[c].nodes, cases[c].links,
                      cases[c].p.leaves, 1, 1);
        tl_topo_destroy(t);
    }
    tl_leafspine_params p = {.leaves = 8, .spines = 4, .hosts_per_leaf = 16, .delay_ps = 5 * US};
    tl_err err = {0};
    tl_topo *t = tl_topo_leafspine(&p, &err);
    assert_non_null(t);
    expect_node("host17", t, 17, TL_NODE_HOST, 0, 0, 1, 0);
    expect_node("leaf1", t, 129, TL_NODE_SWITCH, 1, 0, 1, 0);
    expect_node("spine0", t, 136, TL_NODE_SWITCH, 2, -1, -1, 0);
    assert_int_equal(n_links_between(t, 17, 129), 1);
    for (uint32_t s = 136; s < 140; s++)
        assert_int_equal(n_links_between(t, 129, s), 1);
    assert_int_equal(tl_topo_link(t, 0)->delay_ps, 5 * US);
    tl_topo_destroy(t);
}

/* Parking lot of n hops: n+1 switches, (n+1)*hosts_per_switch hosts, one link per
 * host and n chain links. hops=4, 1 host each: 10 nodes, 5 + 4 = 9 links. */
static void test_parking_lot(void **state)
{
    static const struct {
        const char *name;
        tl_parking_params p;
        uint32_t hosts, nodes, links;
    } cases[] = {
        {"4hop_default_hosts", {.hops = 4}, 5, 10, 9},
        {"1hop_3hosts", {.hops = 1, .hosts_per_switch = 3}, 6, 8, 7},
        {"6hop_2hosts", {.hops = 6, .hosts_per_switch = 2}, 14, 21, 20},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_err err = {0};
        tl_topo *t = tl_topo_parking_lot(&cases[c].p, &err);
        expect_counts(cases[c].name, t, cases[c].hosts, cases[c].nodes, cases[c].links,
                      cases[c].p.hops + 1, 1, 1);
        tl_topo_destroy(t);
    }
    /* hops=4: hosts 0..4, switches 5..9; S2 = node 7 links host 2, S1 and S3 */
    tl_parking_params p = {.hops = 4, .host_bps = 25 * G, .chain_bps = 100 * G};
    tl_err err = {0};
    tl_topo *t = tl_topo_parking_lot(&p, &err);
    assert_non_null(t);
    expect_node("host2", t, 2, TL_NODE_HOST, 0, 0, 2, 0);
    expect_node("S0", t, 5, TL_NODE_SWITCH, 1, 0, 0, 0);
    expect_node("S4", t, 9, TL_NODE_SWITCH, 1, 0, 4, 0);
    assert_int_equal(degree(t, 7), 3);
    assert_int_equal(n_links_between(t, 7, 2), 1);
    assert_int_equal(n_links_between(t, 7, 6), 1);
    assert_int_equal(n_links_between(t, 7, 8), 1);
    assert_int_equal(degree(t, 5), 2);
    assert_int_equal(degree(t, 9), 2);
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *lk = tl_topo_link(t, l);
        assert_int_equal(lk->rate_bps, (lk->a < 5 || lk->b < 5) ? 25 * G : 100 * G);
        assert_int_equal(lk->delay_ps, US);
    }
    tl_topo_destroy(t);
}

/* Two DCs of k-ary fat trees plus two borders: nodes 2*(hosts+switches)+2; links
 * 2*(fat-tree links) + 2*(k/2)^2*core_border_links + inter_dc_links.
 * k=8 defaults: 2*(128+80)+2 = 418 nodes, 2*384 + 2*16 + 8 = 808 links.
 * k=4, 2 links per core, 3 WAN links: 2*36+2 = 74 nodes, 2*48 + 2*4*2 + 3 = 115. */
static void test_two_dc_counts(void **state)
{
    static const struct {
        const char *name;
        tl_twodc_params p;
        uint32_t hosts, nodes, links, racks, pods;
    } cases[] = {
        {"uno_defaults", {0}, 256, 418, 808, 64, 16},
        {"k4", {.k = 4, .core_border_links = 2, .inter_dc_links = 3}, 32, 74, 115, 16, 8},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_err err = {0};
        tl_topo *t = tl_topo_two_dc(&cases[c].p, &err);
        expect_counts(cases[c].name, t, cases[c].hosts, cases[c].nodes, cases[c].links,
                      cases[c].racks, cases[c].pods, 2);
        tl_topo_destroy(t);
    }
}

/* k=8 defaults. DC 0: hosts 0..127, edges 128..159, aggs 160..191, cores 192..207;
 * DC 1: the same plus 208 (hosts 208..335, cores 400..415); borders 416 and 417.
 * DC 1's pods are 8..15 and its racks 32..63. */
static void test_two_dc_ids(void **state)
{
    tl_twodc_params p = {0};
    tl_err err = {0};
    tl_topo *t = tl_topo_two_dc(&p, &err);
    assert_non_null(t);
    static const struct {
        const char *name;
        uint32_t id;
        int kind, tier, pod, rack, dc;
    } cases[] = {
        {"dc0_host0", 0, TL_NODE_HOST, 0, 0, 0, 0},
        {"dc0_host127", 127, TL_NODE_HOST, 0, 7, 31, 0},
        {"dc0_edge0", 128, TL_NODE_SWITCH, 1, 0, 0, 0},
        {"dc0_core0", 192, TL_NODE_SWITCH, 3, -1, -1, 0},
        {"dc1_host0", 208, TL_NODE_HOST, 0, 8, 32, 1},
        {"dc1_edge0", 336, TL_NODE_SWITCH, 1, 8, 32, 1},
        {"dc1_agg_last", 399, TL_NODE_SWITCH, 2, 15, -1, 1},
        {"dc1_core_last", 415, TL_NODE_SWITCH, 3, -1, -1, 1},
        {"border0", 416, TL_NODE_SWITCH, 4, -1, -1, 0},
        {"border1", 417, TL_NODE_SWITCH, 4, -1, -1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        expect_node(cases[c].name, t, cases[c].id, cases[c].kind, cases[c].tier, cases[c].pod,
                    cases[c].rack, cases[c].dc);
    /* host index 128 (htsim's first DC-1 host) is node 208 */
    assert_int_equal(tl_topo_hosts(t)[128], 208);
    /* each border: 16 cores of its own DC and 8 parallel WAN links */
    assert_int_equal(degree(t, 416), 24);
    assert_int_equal(n_links_between(t, 416, 417), 8);
    for (uint32_t c = 192; c < 208; c++) {
        assert_int_equal(n_links_between(t, 416, c), 1);
        assert_int_equal(n_links_between(t, 417, c), 0);
        assert_int_equal(n_links_between(t, 417, c + 208), 1);
    }
    uint32_t n_wan = 0;
    for (uint32_t l = 0; l < tl_topo_n_links(t); l++) {
        const tl_link *lk = tl_topo_link(t, l);
        int is_wan = lk->a >= 416 && lk->b >= 416;
        n_wan += is_wan;
        assert_int_equal(lk->rate_bps, 100 * G);
        assert_int_equal(lk->delay_ps, is_wan ? 886500000 : US);
    }
    assert_int_equal(n_wan, 8);
    tl_topo_destroy(t);
}

/* Bad generator parameters: TL_ERANGE naming the parameter, and nothing built. */
static void test_generator_errors(void **state)
{
    tl_err err;
    tl_fabric_params fab = {
        .pods = 2, .racks_per_pod = 16, .hosts_per_rack = 8, .planes = 0, .spines_per_plane = 16};
    tl_err_clear(&err);
    assert_null(tl_topo_fabric(&fab, &err));
    tu_check_err("fabric_planes0", &err, TL_ERANGE, "planes", "found 0");
    fab.planes = 2;
    fab.delay_ps = -1;
    tl_err_clear(&err);
    assert_null(tl_topo_fabric(&fab, &err));
    tu_check_err("fabric_negative_delay", &err, TL_ERANGE, "delay_ps", "-1");
    /* 2^32 racks of 2^16 hosts: refused before any allocation */
    tl_fabric_params huge = {.pods = 65536,
                             .racks_per_pod = 65536,
                             .hosts_per_rack = 65536,
                             .planes = 1,
                             .spines_per_plane = 1};
    tl_err_clear(&err);
    assert_null(tl_topo_fabric(&huge, &err));
    tu_check_err("fabric_huge", &err, TL_ERANGE, "at most", "nodes");

    static const uint32_t bad_k[] = {0, 1, 3, 7};
    for (size_t i = 0; i < sizeof bad_k / sizeof *bad_k; i++) {
        tl_fattree_params ft = {.k = bad_k[i]};
        tl_err_clear(&err);
        assert_null(tl_topo_fattree(&ft, &err));
        tu_check_err("fattree_bad_k", &err, TL_ERANGE, "k: ", "even");
        tl_twodc_params dc = {.k = bad_k[i] ? bad_k[i] : 5};
        tl_err_clear(&err);
        assert_null(tl_topo_two_dc(&dc, &err));
        tu_check_err("two_dc_bad_k", &err, TL_ERANGE, "k: ", "even");
    }
    tl_leafspine_params ls = {.leaves = 4, .spines = 0, .hosts_per_leaf = 4};
    tl_err_clear(&err);
    assert_null(tl_topo_leafspine(&ls, &err));
    tu_check_err("leafspine_spines0", &err, TL_ERANGE, "spines", NULL);
    tl_parking_params pl = {.hops = 0};
    tl_err_clear(&err);
    assert_null(tl_topo_parking_lot(&pl, &err));
    tu_check_err("parking_hops0", &err, TL_ERANGE, "hops", NULL);
    tl_twodc_params dc = {.wan_delay_ps = -5};
    tl_err_clear(&err);
    assert_null(tl_topo_two_dc(&dc, &err));
    tu_check_err("two_dc_wan_delay", &err, TL_ERANGE, "wan_delay_ps", NULL);
}

/* ------------------------------------------------------------- round trips */

/* Loaders give no tiers, racks or pods; they derive tiers from the distance to the
 * nearest host, which for these generators equals the generator's tier (ToR/edge 1,
 * fabric/aggregation 2, spine/core 3, border 4). */
static void expect_same(const char *name, const tl_topo *a, const tl_topo *b)
{
    if (!b) {
        fprintf(stderr, "[%s] reload failed\n", name);
        fail();
    }
    assert_int_equal(tl_topo_n_nodes(a), tl_topo_n_nodes(b));
    assert_int_equal(tl_topo_n_links(a), tl_topo_n_links(b));
    for (uint32_t i = 0; i < tl_topo_n_nodes(a); i++) {
        assert_int_equal(tl_topo_node(a, i)->kind, tl_topo_node(b, i)->kind);
        assert_int_equal(tl_topo_node(a, i)->tier, tl_topo_node(b, i)->tier);
    }
    for (uint32_t l = 0; l < tl_topo_n_links(a); l++) {
        const tl_link *x = tl_topo_link(a, l), *y = tl_topo_link(b, l);
        if (x->a != y->a || x->b != y->b || x->rate_bps != y->rate_bps ||
            x->delay_ps != y->delay_ps || x->error_rate != y->error_rate) {
            fprintf(stderr,
                    "[%s] link %u: %u-%u %llu bps %lld ps %g vs %u-%u %llu bps %lld ps %g\n", name,
                    l, x->a, x->b, (unsigned long long)x->rate_bps, (long long)x->delay_ps,
                    x->error_rate, y->a, y->b, (unsigned long long)y->rate_bps,
                    (long long)y->delay_ps, y->error_rate);
            fail();
        }
    }
}

static void test_roundtrip_generated(void **state)
{
    tl_fabric_params fab = {
        .pods = 2, .racks_per_pod = 16, .hosts_per_rack = 8, .planes = 2, .spines_per_plane = 16};
    tl_twodc_params dc = {.k = 4, .core_border_links = 2, .inter_dc_links = 3};
    tl_topo *gens[2];
    tl_err err = {0};
    gens[0] = tl_topo_fabric(&fab, &err);
    gens[1] = tl_topo_two_dc(&dc, &err);
    assert_non_null(gens[0]);
    assert_non_null(gens[1]);
    /* error rates survive both formats (the JSON carries them as "error_rate") */
    gens[1]->links[0].error_rate = 0.001;
    gens[1]->links[3].error_rate = 0.1;
    gens[1]->links[tl_topo_n_links(gens[1]) - 1].error_rate = 1e-5;
    static const char *names[2] = {"fabric_1to1", "two_dc_k4"};
    for (int g = 0; g < 2; g++) {
        char *json = tu_temp_path(".json"), *txt = tu_temp_path(".txt");
        char name[64];
        assert_int_equal(tl_topo_save_parsimon(gens[g], json, &err), 0);
        tl_topo *back = tl_topo_load_parsimon(json, &err);
        snprintf(name, sizeof name, "%s_parsimon", names[g]);
        expect_same(name, gens[g], back);
        tl_topo_destroy(back);
        assert_int_equal(tl_topo_save_ns3(gens[g], txt, &err), 0);
        back = tl_topo_load_ns3(txt, &err);
        snprintf(name, sizeof name, "%s_ns3", names[g]);
        expect_same(name, gens[g], back);
        tl_topo_destroy(back);
        remove(json);
        remove(txt);
        free(json);
        free(txt);
    }
    tl_topo_destroy(gens[0]);
    tl_topo_destroy(gens[1]);
}

/* A hand-built topology whose switches are not the last ids, with rates and delays
 * that stress both unit spellings. ns-3 keeps delays to the ps; the Parsimon JSON
 * has ns, so 1500 ps -> 2 ns (half rounds up) and 1499 ps -> 1 ns. */
static void test_roundtrip_units(void **state)
{
    static const struct {
        const char *name;
        uint32_t a, b;
        uint64_t rate_bps;
        int64_t delay_ps, json_delay_ps;
        double error_rate;
        const char *ns3_line;
    } links[] = {
        {"100G_1us", 0, 1, 100 * G, US, US, 0, "0 1 100Gbps 1us 0"},
        {"1T_1500ps", 1, 2, 1000 * G, 1500, 2000, 0.001, "1 2 1000Gbps 1500ps 0.001"},
        {"odd_rate_zero_delay", 1, 3, 1234567, 0, 0, 0.1, "1 3 1234567bps 0ps 0.1"},
        {"wan", 2, 4, 25 * G, 886500000, 886500000, 0, "2 4 25Gbps 886500ns 0"},
        {"1499ps", 4, 3, 40 * G, 1499, 1000, 1e-5, "4 3 40Gbps 1499ps 1e-05"},
    };
    static const int kinds[5] = {TL_NODE_HOST, TL_NODE_SWITCH, TL_NODE_SWITCH, TL_NODE_HOST,
                                 TL_NODE_SWITCH};
    tl_err err = {0};
    tl_topo *t = tl_topo_create(&err);
    assert_non_null(t);
    for (int i = 0; i < 5; i++)
        assert_true(tl_topo_add_node(t, kinds[i], TL_TIER_AUTO, -1, -1, 0, &err) == i);
    size_t n = sizeof links / sizeof *links;
    for (size_t i = 0; i < n; i++) {
        assert_true(tl_topo_add_link(t, links[i].a, links[i].b, links[i].rate_bps,
                                     links[i].delay_ps, &err) == (int64_t)i);
        t->links[i].error_rate = links[i].error_rate;
    }
    assert_int_equal(tl_topo_finish(t, &err), 0);

    /* ns-3: exact text (HPCC's layout), then exact reload */
    char *txt = tu_temp_path(".txt");
    assert_int_equal(tl_topo_save_ns3(t, txt, &err), 0);
    char want[512] = "5 3 5\n1 2 4\n";
    for (size_t i = 0; i < n; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", links[i].ns3_line);
    char *got = tu_read_file(txt, NULL);
    assert_string_equal(got, want);
    free(got);
    tl_topo *back = tl_topo_load_ns3(txt, &err);
    expect_same("units_ns3", t, back);
    tl_topo_destroy(back);

    char *json = tu_temp_path(".json");
    assert_int_equal(tl_topo_save_parsimon(t, json, &err), 0);
    back = tl_topo_load_parsimon(json, &err);
    assert_non_null(back);
    for (size_t i = 0; i < n; i++) {
        const tl_link *l = tl_topo_link(back, (uint32_t)i);
        if (l->a != links[i].a || l->b != links[i].b || l->rate_bps != links[i].rate_bps ||
            l->delay_ps != links[i].json_delay_ps || l->error_rate != links[i].error_rate) {
            fprintf(stderr, "[%s] parsimon reload differs\n", links[i].name);
            fail();
        }
    }
    for (uint32_t i = 0; i < 5; i++)
        assert_int_equal(tl_topo_node(back, i)->kind, kinds[i]);
    tl_topo_destroy(back);
    remove(txt);
    remove(json);
    free(txt);
    free(json);
    tl_topo_destroy(t);
}

/* Parsimon's own layout as parsimon-utils reads it (keys in any order, ids in any
 * order), loaded and checked by hand: 2 hosts under one switch. */
static void test_load_parsimon_plain(void **state)
{
    const char *text = "{\"links\": [{\"delay\": 1000, \"bandwidth\": 10000000000, \"b\": 2, "
                       "\"a\": 0},\n {\"a\": 1, \"b\": 2, \"bandwidth\": 40000000000, "
                       "\"delay\": 0}],\n \"nodes\": [{\"kind\": \"Switch\", \"id\": 2}, "
                       "{\"id\": 0, \"kind\": \"Host\"}, {\"id\": 1, \"kind\": \"Host\"}]}\n";
    char *path = tu_write_temp(text, ".json");
    tl_err err = {0};
    tl_topo *t = tl_topo_load_parsimon(path, &err);
    assert_non_null(t);
    expect_counts("parsimon_plain", t, 2, 3, 2, 1, 1, 1);
    expect_node("host0", t, 0, TL_NODE_HOST, 0, 0, 0, 0);
    expect_node("switch2", t, 2, TL_NODE_SWITCH, 1, -1, 0, 0);
    assert_int_equal(tl_topo_link(t, 0)->rate_bps, 10 * G);
    assert_int_equal(tl_topo_link(t, 0)->delay_ps, US);
    assert_int_equal(tl_topo_link(t, 1)->rate_bps, 40 * G);
    assert_int_equal(tl_topo_link(t, 1)->delay_ps, 0);
    tl_topo_destroy(t);
    remove(path);
    free(path);
}

/* ------------------------------------------------------------------ bad input */

/* Three nodes (hosts 0, 1 and switch 2) and two links, one field spoiled per row. */
#define NODES3                                                                                     \
    "{\n  \"nodes\": [{\"id\": 0, \"kind\": \"Host\"}, {\"id\": 1, \"kind\": \"Host\"},\n"         \
    "            {\"id\": 2, \"kind\": \"Switch\"}],\n"
#define LINK0 "{\"a\": 0, \"b\": 2, \"bandwidth\": 10000000000, \"delay\": 1000}"

static void test_parsimon_bad_input(void **state)
{
    static const struct {
        const char *name, *text;
        int code;
        const char *needle1, *needle2;
    } cases[] = {
        /* jansson's position: line 3, where the second comma is */
        {"malformed", "{\n  \"nodes\": [{\"id\": 0, \"kind\": \"Host\"},\n     ,]}\n", TL_EPARSE,
         ".json:3:6:", "malformed JSON"},
        {"truncated", NODES3 "  \"links\": [" LINK0 ",\n", TL_EPARSE, ".json:5:", "malformed"},
        {"unknown_key",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwith\": 10000000000, \"delay\": 1000}]}",
         TL_EPARSE, ".json: links[1].bandwith:", "did you mean \"bandwidth\""},
        {"unknown_top_key", NODES3 "  \"links\": [" LINK0 "], \"flows\": []}", TL_EPARSE,
         "json: flows: unknown key", NULL},
        {"wrong_type",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwidth\": \"10G\", \"delay\": 1000}]}",
         TL_EPARSE, "links[1].bandwidth: expected an integer", "a string (\"10G\")"},
        {"unknown_node",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 999, \"bandwidth\": 10000000000, \"delay\": 1}]}",
         TL_ERANGE, ".json: links[1].b:", "node 999 does not exist (ids 0..2)"},
        {"zero_bandwidth",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwidth\": 0, \"delay\": 1000}]}",
         TL_ERANGE, "links[1].bandwidth:", "found 0"},
        {"negative_delay",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwidth\": 10000000000, \"delay\": -5}]}",
         TL_ERANGE, "links[1].delay:", "found -5"},
        {"missing_delay",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwidth\": 10000000000}]}",
         TL_EPARSE, "links[1].delay: missing", NULL},
        {"self_link",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 2, \"b\": 2, \"bandwidth\": 10000000000, \"delay\": 1}]}",
         TL_EINVAL, "links[1]:", "itself"},
        {"error_rate_range",
         NODES3 "  \"links\": [" LINK0 ",\n"
                "    {\"a\": 1, \"b\": 2, \"bandwidth\": 1, \"delay\": 1, "
                "\"error_rate\": 2}]}",
         TL_ERANGE, "links[1].error_rate:", "[0, 1]"},
        {"unknown_kind",
         "{\"nodes\": [{\"id\": 0, \"kind\": \"Host\"}, {\"id\": 1, \"kind\": "
         "\"Router\"}], \"links\": []}",
         TL_EPARSE, "nodes[1].kind:", "found \"Router\""},
        {"duplicate_id",
         "{\"nodes\": [{\"id\": 0, \"kind\": \"Host\"}, {\"id\": 1, \"kind\": "
         "\"Host\"}, {\"id\": 1, \"kind\": \"Switch\"}], \"links\": []}",
         TL_EPARSE, "nodes[2].id:", "duplicate id 1 (also nodes[1].id)"},
        {"gapped_id",
         "{\"nodes\": [{\"id\": 0, \"kind\": \"Host\"}, {\"id\": 1, \"kind\": "
         "\"Host\"}, {\"id\": 3, \"kind\": \"Switch\"}], \"links\": []}",
         TL_ERANGE, "nodes[2].id:", "expected an id in 0..2"},
        {"node_not_object", "{\"nodes\": [7], \"links\": []}", TL_EPARSE,
         "nodes[0]:", "an integer (7)"},
        {"nodes_not_array", "{\"nodes\": {}, \"links\": []}", TL_EPARSE, "nodes: expected an array",
         NULL},
        {"missing_links", "{\"nodes\": [{\"id\": 0, \"kind\": \"Host\"}]}", TL_EPARSE,
         "links: missing", NULL},
        {"top_not_object", "[1, 2]", TL_EPARSE, ".json: expected an object", NULL},
        {"no_nodes", "{\"nodes\": [], \"links\": []}", TL_EPARSE, "nodes: expected at least one",
         NULL},
        {"host_without_link", NODES3 "  \"links\": [" LINK0 "]}", TL_EINVAL,
         ".json: ", "host 1 has no link"},
        {"duplicate_key", "{\"nodes\": [], \"nodes\": [], \"links\": []}", TL_EPARSE,
         ".json:1:", "duplicate"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *path = tu_write_temp(cases[c].text, ".json");
        tl_err err = {0};
        tl_topo *t = tl_topo_load_parsimon(path, &err);
        if (t)
            fprintf(stderr, "[%s] loaded bad input\n", cases[c].name);
        assert_null(t);
        tu_check_err(cases[c].name, &err, cases[c].code, cases[c].needle1, cases[c].needle2);
        assert_string_equal(err.file, path);
        remove(path);
        free(path);
    }
    tl_err err = {0};
    assert_null(tl_topo_load_parsimon("/nonexistent/topo.json", &err));
    tu_check_err("missing_file", &err, TL_EIO, "/nonexistent/topo.json: cannot open",
                 "No such file");
}

/* Header "4 1 3": hosts 0, 1, 2 under switch 3. Columns are 1-based. */
static void test_ns3_bad_input(void **state)
{
    static const struct {
        const char *name, *text;
        int code;
        const char *needle1, *needle2;
    } cases[] = {
        {"bad_rate", "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbs 1000ns 0\n2 3 1G 1us 0\n",
         TL_EPARSE, ".txt:4:5:", "found '100Gbs'"},
        {"zero_rate", "4 1 3\n3\n0 3 0Gbps 1000ns 0\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_ERANGE,
         ".txt:3:5:", "rate > 0"},
        {"bad_delay", "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 10 0\n2 3 1G 1us 0\n", TL_EPARSE,
         ".txt:4:13:", "found '10'"},
        {"negative_delay", "4 1 3\n3\n0 3 100Gbps -1ns 0\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_ERANGE,
         ".txt:3:13:", "delay >= 0"},
        {"too_few_lines", "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n", TL_EPARSE,
         ".txt:5:", "line 1 declares 3 links, found 2"},
        {"too_many_lines", "4 1 1\n3\n0 3 1G 1us 0\n1 3 1G 1us 0\n", TL_EPARSE,
         ".txt:4:", "found more"},
        {"unknown_node", "4 1 3\n3\n0 9 1G 1us 0\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_ERANGE,
         ".txt:3:3:", "node 9 does not exist (ids 0..3)"},
        {"self_link", "4 1 3\n3\n0 3 1G 1us 0\n3 3 1G 1us 0\n2 3 1G 1us 0\n", TL_EINVAL,
         ".txt:4:", "itself"},
        {"four_fields", "4 1 3\n3\n0 3 1G 1us\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_EPARSE,
         ".txt:3:", "found 4 fields"},
        {"six_fields", "4 1 3\n3\n0 3 1G 1us 0 7\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_EPARSE,
         ".txt:3:14:", "sixth field"},
        {"bad_error_rate", "4 1 3\n3\n0 3 1G 1us x\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_EPARSE,
         ".txt:3:12:", "error rate"},
        {"error_rate_range", "4 1 3\n3\n0 3 1G 1us 1.5\n1 3 1G 1us 0\n2 3 1G 1us 0\n", TL_ERANGE,
         ".txt:3:12:", "[0, 1]"},
        {"short_header", "4 1\n3\n", TL_EPARSE, ".txt:1:", "found 2 numbers"},
        {"header_not_number", "4 one 3\n3\n", TL_EPARSE, ".txt:1:3:", "number of switches"},
        {"more_switches_than_nodes", "2 3 1\n0 1 2\n", TL_ERANGE, ".txt:1:", "at most 2 switches"},
        {"switch_out_of_range", "4 1 3\n7\n", TL_ERANGE, ".txt:2:1:", "node 7 does not exist"},
        {"too_many_switch_ids", "4 1 3\n3 2\n", TL_EPARSE,
         ".txt:2:3:", "declares 1 switches, found more"},
        {"too_few_switch_ids", "4 2 3\n3\n", TL_EPARSE, ".txt:2:", "found 1 ids"},
        {"missing_switch_line", "4 1 3\n", TL_EPARSE, ".txt:2:", "switch ids"},
        {"empty_file", "", TL_EPARSE, ".txt:1:", "end of file"},
        {"duplicate_switch", "4 2 3\n3 3\n", TL_EPARSE, ".txt:2:3:", "switch 3 listed twice"},
        /* counts on line 1 that the file does not back are refused before allocating */
        {"hosts_beyond_links", "4000000 0 1\n0 1 1G 1us 0\n", TL_EINVAL,
         ".txt:1:", "need at least 2000000 links"},
        {"links_beyond_file", "4000000 0 4000000\n0 1 1G 1us 0\n", TL_EPARSE,
         ".txt:3:", "declares 4000000 links, found 1"},
        {"switches_beyond_line", "4000000 4000000 0\n0 1\n", TL_EPARSE,
         ".txt:2:", "found 2 ids"},
        {"nodes_beyond_limit", "2000000000 0 1\n0 1 1G 1us 0\n", TL_ERANGE, ".txt:1:",
         "expected 1..4194304 nodes"},
        {"host_without_link", "4 1 2\n3\n0 3 1G 1us 0\n1 3 1G 1us 0\n", TL_EINVAL,
         ".txt: ", "host 2 has no link"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *path = tu_write_temp(cases[c].text, ".txt");
        tl_err err = {0};
        tl_topo *t = tl_topo_load_ns3(path, &err);
        if (t)
            fprintf(stderr, "[%s] loaded bad input\n", cases[c].name);
        assert_null(t);
        tu_check_err(cases[c].name, &err, cases[c].code, cases[c].needle1, cases[c].needle2);
        remove(path);
        free(path);
    }
    tl_err err = {0};
    assert_null(tl_topo_load_ns3("/nonexistent/topology.txt", &err));
    tu_check_err("missing_file", &err, TL_EIO, "/nonexistent/topology.txt", NULL);
}

/* HPCC's own spelling (0.001ms, 10000000000bps as Parsimon writes it, blank lines). */
static void test_load_ns3_spellings(void **state)
{
    char *path = tu_write_temp(
        "3 1 2\n2\n\n0 2 10000000000bps 0.001ms 0\n1 2 100Gbps 1000ns 0.5\n\n", ".txt");
    tl_err err = {0};
    tl_topo *t = tl_topo_load_ns3(path, &err);
    assert_non_null(t);
    expect_counts("ns3_spellings", t, 2, 3, 2, 1, 1, 1);
    assert_int_equal(tl_topo_link(t, 0)->rate_bps, 10 * G);
    assert_int_equal(tl_topo_link(t, 0)->delay_ps, US);
    assert_int_equal(tl_topo_link(t, 1)->rate_bps, 100 * G);
    assert_int_equal(tl_topo_link(t, 1)->delay_ps, US);
    assert_true(tl_topo_link(t, 1)->error_rate == 0.5);
    assert_int_equal(tl_topo_node(t, 2)->kind, TL_NODE_SWITCH);
    tl_topo_destroy(t);
    remove(path);
    free(path);
}

/* A write that cannot happen names the path. */
static void test_save_errors(void **state)
{
    tl_leafspine_params p = {.leaves = 2, .spines = 1, .hosts_per_leaf = 1};
    tl_err err = {0};
    tl_topo *t = tl_topo_leafspine(&p, &err);
    assert_non_null(t);
    assert_int_not_equal(tl_topo_save_parsimon(t, "/nonexistent/dir/t.json", &err), 0);
    tu_check_err("save_parsimon", &err, TL_EIO, "/nonexistent/dir/t.json", NULL);
    tl_err_clear(&err);
    assert_int_not_equal(tl_topo_save_ns3(t, "/nonexistent/dir/t.txt", &err), 0);
    tu_check_err("save_ns3", &err, TL_EIO, "/nonexistent/dir/t.txt", NULL);
    tl_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fabric_counts),      cmocka_unit_test(test_fabric_ids),
        cmocka_unit_test(test_fattree_counts),     cmocka_unit_test(test_fattree_ids),
        cmocka_unit_test(test_leafspine),          cmocka_unit_test(test_parking_lot),
        cmocka_unit_test(test_two_dc_counts),      cmocka_unit_test(test_two_dc_ids),
        cmocka_unit_test(test_generator_errors),   cmocka_unit_test(test_roundtrip_generated),
        cmocka_unit_test(test_roundtrip_units),    cmocka_unit_test(test_load_parsimon_plain),
        cmocka_unit_test(test_parsimon_bad_input), cmocka_unit_test(test_ns3_bad_input),
        cmocka_unit_test(test_load_ns3_spellings), cmocka_unit_test(test_save_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
