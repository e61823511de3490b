/* UnoRC (issue 47, uno.txt §4.2, §5.3): erasure-coded blocks that absorb y
 * losses and NACK the (y+1)-th, UnoLB leaving a blackholed path at its first
 * loss, spraying's bounded path memory, byte conservation under every loss
 * and failure model, and determinism. Small two-DC networks (k = 4). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/pktsim_int.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"
#include "testutil.h"

/* A two-DC network (k = 4, inter_dc_links WAN links of 100 us) with n flows
 * of size bytes from DC 0 to DC 1 starting together, transport tp, load
 * balancer lb and extra transport keys. */
static void make_world(tl_world *w, int wan_links, int n, uint64_t size, const char *tp,
                       const char *lb, const char *extra)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"seed\": 7, \"topology\": {\"type\": \"two_dc\", \"k\": 4, \"inter_dc_links\": %d, "
             "\"host_link_bps\": \"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"wan_link_bps\": "
             "\"100Gbps\", \"link_delay_ns\": 1000, \"wan_delay_ns\": \"100us\"}, \"workload\": "
             "{\"flows\": %d, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": %llu}, "
             "\"spatial\": {\"type\": \"dc_mix\", \"intra_fraction\": 0}, \"arrival\": "
             "{\"process\": \"simultaneous\"}}]}, \"transport\": {\"cc\": \"uno\", \"protocol\": "
             "\"%s\", \"lb\": \"%s\", \"nic\": {\"mtu_bytes\": 4096, \"rto_ps\": \"1ms\"}%s%s}}",
             wan_links, n, (unsigned long long)size, tp, lb, extra[0] ? ", " : "", extra);
    tu_world_make(w, json);
}


static void run(tl_pktsim *s, int64_t until)
{
    tl_err err;
    tl_err_clear(&err);
    if (tl_pktsim_run(s, until, NULL, &err))
        fail_msg("run: %s", err.msg);
}

/* The WAN channel flow 0 crosses from DC 0 to DC 1. */
static uint32_t wan_chan(const tl_world *w, tl_pktsim *s)
{
    int hops;
    const uint32_t *path = tl_pktsim_flow_path(s, 0, &hops);
    for (int h = 0; h < hops; h++)
        if (tl_topo_node(w->topo, tl_topo_chan_from(w->topo, path[h]))->dc !=
            tl_topo_node(w->topo, tl_topo_chan_to(w->topo, path[h]))->dc)
            return path[h];
    fail_msg("flow 0 does not cross the WAN");
    return 0;
}

/* One inter-DC flow of one (8,2) block, some of its data-packet arrivals at
 * the WAN port dropped: up to 2 losses cost nothing; 3 and 4 losses cost one
 * NACK and exactly the missing packets (or every unacknowledged one with
 * ec.resend_all). The block timer is short so that the NACK, not the
 * sender's timeout, recovers. */
static void ec_blocks(void **state)
{
    static const struct {
        const char *name;
        uint64_t drop[4];
        size_t n_drop;
        int resend_all;
        uint64_t nacks, retx;
    } rows[] = {
        {"no loss", {0}, 0, 0, 0, 0},
        {"one data packet", {0}, 1, 0, 0, 0},
        {"two data packets", {2, 5}, 2, 0, 0, 0},
        {"both parity packets", {8, 9}, 2, 0, 0, 0},
        {"a data and a parity packet", {7, 9}, 2, 0, 0, 0},
        {"three: one NACK, one resend", {1, 2, 3}, 3, 0, 1, 1},
        {"four: one NACK, two resends", {0, 4, 6, 8}, 4, 0, 1, 2},
        {"three, resend all", {1, 2, 3}, 3, 1, 1, 3},
    };
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        tl_world w;
        char extra[200];
        snprintf(extra, sizeof extra, "\"ec\": {\"wait_ps\": \"20us\", \"resend_all\": %d}",
                 rows[r].resend_all);
        make_world(&w, 1, 1, 8 * 4096, "ec", "ecmp", extra);
        tl_pktsim *s = tu_pktsim_make(&w);
        tl_err err;
        tl_err_clear(&err);
        assert_int_equal(loss_set_pattern(s, wan_chan(&w, s), rows[r].drop, rows[r].n_drop, &err),
                         0);
        run(s, 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        if (st.n_flows_done != 1 || st.n_nacks != rows[r].nacks ||
            st.n_retx_pkts != rows[r].retx || st.n_timeouts != 0)
            fail_msg("%s: done %llu, NACKs %llu (want %llu), resent %llu (want %llu), "
                     "timeouts %llu",
                     rows[r].name, (unsigned long long)st.n_flows_done,
                     (unsigned long long)st.n_nacks, (unsigned long long)rows[r].nacks,
                     (unsigned long long)st.n_retx_pkts, (unsigned long long)rows[r].retx,
                     (unsigned long long)st.n_timeouts);
        assert_int_equal(st.bytes_delivered, 8 * 4096);
        assert_int_equal(st.bytes_parity, 2 * 4096);
        assert_int_equal(st.bytes_lost, rows[r].n_drop * 4096);
        tl_pktsim_destroy(s);
        tl_world_fini(&w);
    }
}

/* Padding and scope: a flow is sent as whole blocks of full packets, (8, 2)
 * or (10, 2); with ec.scope 0 a flow inside one DC carries no parity. */
static void ec_padding_and_scope(void **state)
{
    static const uint64_t sizes[] = {1, 8 * 4096, 8 * 4096 + 1, 1000000};
    for (size_t i = 0; i < 4; i++) {
        tl_world w;
        make_world(&w, 1, 1, sizes[i], "ec", "ecmp", "");
        tl_pktsim *s = tu_pktsim_make(&w);
        run(s, 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        uint64_t blocks = (sizes[i] + 8 * 4096 - 1) / (8 * 4096);
        assert_int_equal(st.n_data_pkts, blocks * 10);
        assert_int_equal(st.bytes_parity + st.bytes_sent, blocks * 10 * 4096);
        assert_int_equal(st.bytes_delivered, sizes[i]);
        tl_pktsim_destroy(s);
        tl_world_fini(&w);
    }
    { /* (10, 2) */
        tl_world w;
        make_world(&w, 1, 1, 1000000, "ec", "ecmp", "\"ec\": {\"data_pkts\": 10}");
        tl_pktsim *s = tu_pktsim_make(&w);
        run(s, 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        uint64_t blocks = (1000000 + 10 * 4096 - 1) / (10 * 4096);
        assert_int_equal(st.n_data_pkts, blocks * 12);
        assert_int_equal(st.bytes_delivered, 1000000);
        tl_pktsim_destroy(s);
        tl_world_fini(&w);
    }
    tl_world w;
    tu_world_make(&w, "{\"seed\": 1, \"topology\": {\"type\": \"two_dc\", \"k\": 4}, \"workload\": "
                      "{\"flows\": 4, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
                      "\"mean_bytes\": 100000}, \"spatial\": {\"type\": \"dc_mix\", "
                      "\"intra_fraction\": 1}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"uno\", \"protocol\": \"ec\"}}");
    tl_pktsim *s = tu_pktsim_make(&w);
    run(s, 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 4);
    assert_int_equal(st.bytes_parity, 0);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* UnoLB under a blackholed WAN link, the one most of its slots use: after
 * the flow's first loss (a NACK or a timeout) every slot has moved to a path
 * that delivers, so no packet enters the dead link after those already on
 * their way. (A link that dies mid-flow is left later: its slots still
 * collect ACKs of packets sent before the failure for up to a round trip,
 * and only a slot without ACKs for unolb.stale_rtt moves.) */
static void unolb_leaves_blackhole(void **state)
{
    static const struct {
        const char *tp, *extra;
        int wan;
    } rows[] = {
        {"sack", "", 4}, /* its first timeout */
        /* half the slots dead: blocks lose more than their parity, a NACK */
        {"ec", "\"ec\": {\"wait_ps\": \"20us\"}", 2},
    };
    for (int k = 0; k < 2; k++) {
        tl_world w;
        make_world(&w, rows[k].wan, 1, 4000000, rows[k].tp, "unolb", rows[k].extra);
        tl_pktsim *s = tu_pktsim_make(&w);
        /* a run without the failure names the WAN channel the slots use most;
         * the same seed draws the same slots, so it is dead from the start */
        run(s, 0);
        uint32_t dead = 0;
        uint64_t most = 0;
        for (uint32_t l = tl_topo_n_links(w.topo) - (uint32_t)rows[k].wan; l < tl_topo_n_links(w.topo);
             l++)
            for (uint32_t c = 2 * l; c < 2 * l + 2; c++) {
                tl_port_stats ps;
                tl_pktsim_port_stats(s, c, &ps);
                if (ps.pkts_tx > most)
                    most = ps.pkts_tx, dead = c;
            }
        tl_pktsim_destroy(s);
        s = tu_pktsim_make(&w);
        tl_err err;
        tl_err_clear(&err);
        assert_int_equal(tl_pktsim_blackhole(s, dead, 0, &err), 0);
        tl_pktsim_stats st;
        int64_t t = 0, t1 = 0;
        for (;;) {
            t += 5000000; /* 5 us */
            run(s, t);
            tl_pktsim_get_stats(s, &st);
            if (st.n_nacks + st.n_timeouts > 0 || st.n_flows_done)
                break;
        }
        t1 = t;
        if (st.n_flows_done)
            fail_msg("%s: done at %.1f us without a loss (drops at the dead link: %llu)",
                     rows[k].tp, (double)t * 1e-6, (unsigned long long)st.n_fail_drops);
        tl_port_stats ps;
        tl_pktsim_port_stats(s, dead, &ps);
        assert_true(ps.drops > 0); /* some slots did use the dead link */
        run(s, t1 + 10000000);     /* what was already on its way: 5 hops of 1 us */
        tl_pktsim_port_stats(s, dead, &ps);
        uint64_t after = ps.drops;
        run(s, 0);
        tl_pktsim_get_stats(s, &st);
        assert_int_equal(st.n_flows_done, 1);
        tl_pktsim_port_stats(s, dead, &ps);
        if (ps.drops != after)
            fail_msg("%s: %llu packets entered the dead link after the first loss", rows[k].tp,
                     (unsigned long long)(ps.drops - after));
        tl_pktsim_destroy(s);
        tl_world_fini(&w);
    }
}

/* Spraying with erasure coding under a blackhole: the path store stays
 * within the ECMP paths of the flows' pairs. */
static void spraying_paths_bounded(void **state)
{
    tl_world w;
    make_world(&w, 4, 4, 2000000, "ec", "spray", "\"fault\": {\"wan_blackhole\": 1}");
    tl_pktsim *s = tu_pktsim_make(&w);
    run(s, 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 4);
    /* per pair: 2 aggregation x 2 cores x 4 WAN links x 2 x 2 on the far side, and the
     * flows' own first paths */
    assert_true(s->path_n <= 4 * (64 + 1));
    assert_true(s->path_n > 4 * 8); /* spraying did spread */
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Every byte sent is accounted for under each loss and failure model, and
 * every flow completes: sent + parity + resent = arrived + lost. */
static void conservation(void **state)
{
    static const char *models[] = {
        "",
        "\"loss\": {\"model\": 1, \"rate\": 0.001}",
        "\"loss\": {\"model\": 2, \"p1\": 0.03, \"p2\": 0.0075, \"p3\": 0.0016}",
        "\"fault\": {\"wan_blackhole\": 1, \"blackhole_at_ps\": \"100us\"}",
        "\"fault\": {\"links_down_frac\": 0.05}",
    };
    static const char *schemes[][2] = {{"sack", "spray"}, {"ec", "unolb"}, {"ec", "plb"}};
    for (size_t m = 0; m < 5; m++)
        for (size_t k = 0; k < 3; k++) {
            tl_world w;
            make_world(&w, 4, 6, 500000, schemes[k][0], schemes[k][1], models[m]);
            tl_pktsim *s = tu_pktsim_make(&w);
            run(s, 2000000000000LL); /* 2 s at most */
            tl_pktsim_stats st;
            tl_pktsim_get_stats(s, &st);
            uint64_t out = st.bytes_sent + st.bytes_parity + st.bytes_retx;
            uint64_t in = st.bytes_arrived + st.bytes_lost;
            if (st.n_flows_done != 6 || out < in || out - in > 64ull * 4096 * 6)
                fail_msg("model %zu, %s/%s: %llu done, out %llu, arrived + lost %llu", m,
                         schemes[k][0], schemes[k][1], (unsigned long long)st.n_flows_done,
                         (unsigned long long)out, (unsigned long long)in);
            assert_int_equal(st.bytes_delivered, 6 * 500000);
            run(s, -1); /* drain: what was in flight arrives or is lost */
            tl_pktsim_get_stats(s, &st);
            assert_int_equal(st.bytes_sent + st.bytes_parity + st.bytes_retx,
                             st.bytes_arrived + st.bytes_lost);
            if (m == 1 || m == 2)
                assert_true(st.n_loss_drops > 0);
            tl_pktsim_check_invariants(s);
            tl_pktsim_destroy(s);
            tl_world_fini(&w);
        }
}

/* The same seed gives the same run under random loss; the loss model drops
 * about its mean rate: Table 1's chunks, scaled up, (p1 + 2 p2 + 3 p3) / 10
 * per packet. */
static void loss_deterministic_and_calibrated(void **state)
{
    tl_pktsim_stats st[2];
    tl_flow_result *res[2];
    tl_world w;
    make_world(&w, 4, 8, 1000000, "ec", "unolb",
               "\"loss\": {\"model\": 2, \"p1\": 0.03, \"p2\": 0.0075, \"p3\": 0.0016, "
               "\"scope\": 2}");
    for (int i = 0; i < 2; i++) {
        tl_pktsim *s = tu_pktsim_make(&w);
        run(s, -1);
        tl_pktsim_get_stats(s, &st[i]);
        res[i] = malloc(w.flows.n * sizeof *res[i]);
        memcpy(res[i], tl_pktsim_results(s), w.flows.n * sizeof *res[i]);
        tl_pktsim_destroy(s);
    }
    assert_int_equal(st[0].n_events, st[1].n_events);
    assert_int_equal(st[0].n_loss_drops, st[1].n_loss_drops);
    for (size_t f = 0; f < w.flows.n; f++)
        assert_int_equal(res[0][f].fct_ps, res[1][f].fct_ps);
    /* every packet entering a switch port is one draw: sent on, or dropped */
    double rate = (0.03 + 2 * 0.0075 + 3 * 0.0016) / 10;
    tl_pktsim *s = tu_pktsim_make(&w);
    run(s, -1);
    double arrivals = 0;
    for (uint32_t c = 0; c < s->n_ports; c++)
        if (s->ports[c].sw != NONE) {
            tl_port_stats ps;
            tl_pktsim_port_stats(s, c, &ps);
            arrivals += (double)(ps.pkts_tx + ps.drops);
        }
    tl_pktsim_stats s3;
    tl_pktsim_get_stats(s, &s3);
    double mean = rate * arrivals, sd = sqrt(3 * mean); /* chunks drop up to 3 together */
    assert_true(fabs((double)s3.n_loss_drops - mean) < 5 * sd);
    tl_pktsim_destroy(s);
    free(res[0]);
    free(res[1]);
    tl_world_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ec_blocks),
        cmocka_unit_test(ec_padding_and_scope),
        cmocka_unit_test(unolb_leaves_blackhole),
        cmocka_unit_test(spraying_paths_bounded),
        cmocka_unit_test(conservation),
        cmocka_unit_test(loss_deterministic_and_calibrated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
