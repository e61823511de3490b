/* PARALEON's runtime monitor (issue 46, paraleon.txt §III-A/B): the ternary
 * states of Fig. 4, the Elastic Sketch's counting rules, one sketch per
 * packet across the ToRs, the KL trigger, Eq. (1)'s metrics against pktsim's
 * own counters, and a monitor that leaves every FCT as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/tap/esketch.h"
#include "pktsim/tap/flowtruth.h"
#include "tailor/pktsim.h"
#include "tailor/rng.h"
#include "tailor/tune.h"
#include "tailor/world.h"
#include "testutil.h"
#include "tune/flowstate.h"
#include "tune/monitor_int.h"

/* ---- Fig. 4 ---- */

/* Fig. 4's three flows (delta = 3, tau = 1 MB, decimal units): bytes per
 * interval, 0 = not seen. The states and elephant shares are the figure's
 * (docs/paraleon.md works them out). */
static void fig4_states(void **state)
{
    static const uint64_t sent[3][8] = {
        {1200000, 2500000, 1100000, 0, 0, 0, 0, 0},
        {25000, 28000, 33000, 100000, 216000, 221000, 423000, 530000},
        {27000, 19000, 13000, 12000, 12000, 6000, 4000, 0},
    };
    static const int want[3][8] = {
        {TL_FS_E, TL_FS_E, TL_FS_E, -1, -1, -1, -1, -1},
        {TL_FS_M, TL_FS_M, TL_FS_PE, TL_FS_PE, TL_FS_PE, TL_FS_PE, TL_FS_E, TL_FS_E},
        {TL_FS_M, TL_FS_M, TL_FS_PE, TL_FS_PE, TL_FS_PE, TL_FS_PE, TL_FS_PE, -1},
    };
    static const double want_p[8] = {1.0 / 3, 1.0 / 3, 0.38166667, 0.1285,
                                     0.2425,  0.356,   0.5465,     1.0};
    tl_err err;
    tl_err_clear(&err);
    tl_flowstate fs;
    assert_int_equal(tl_flowstate_init(&fs, 1e6, 3, 1, &err), 0);
    for (int t = 0; t < 8; t++) {
        for (uint32_t f = 0; f < 3; f++)
            if (sent[f][t])
                assert_int_equal(tl_flowstate_add(&fs, f, sent[f][t], &err), 0);
        tl_fs_counts c;
        assert_int_equal(tl_flowstate_close(&fs, &c, &err), 0);
        for (uint32_t f = 0; f < 3; f++) {
            const tl_fs_entry *e = tl_flowstate_get(&fs, f);
            if (want[f][t] < 0) {
                assert_null(e);
                continue;
            }
            assert_non_null(e);
            if (e->state != want[f][t])
                fail_msg("MI%d f%u: state %d, want %d", t + 1, f + 1, e->state, want[f][t]);
        }
        double n = (double)(c.n_e + c.n_pe + c.n_m);
        double p = ((double)c.n_e + c.sum_w) / n;
        if (fabs(p - want_p[t]) > 1e-6)
            fail_msg("MI%d: elephant share %.6f, want %.6f", t + 1, p, want_p[t]);
    }
    tl_flowstate_fini(&fs);
}

/* ---- the sketch ---- */

/* Random flows into a small sketch: a heavy entry without the flag is exact,
 * every estimate is at least the truth (counters far from saturation), and
 * reading the heavy part plus the light part's mice finds every flow. */
static void sketch_counts(void **state)
{
    enum { N = 3000 };
    static uint64_t truth[N];
    memset(truth, 0, sizeof truth);
    tl_err err;
    tl_err_clear(&err);
    tl_esketch k;
    assert_int_equal(tl_esketch_init(&k, 200, 2, 8, 8000, 16, 1000, 42, &err), 0);
    tl_rng r;
    tl_rng_init(&r, 7, "test", 0);
    for (int i = 0; i < 40000; i++) {
        /* a few heavy hitters among many small flows */
        uint32_t f = tl_rng_uniform(&r) < 0.5 ? (uint32_t)tl_rng_below(&r, 30)
                                              : (uint32_t)tl_rng_below(&r, N);
        uint32_t b = 64 + (uint32_t)tl_rng_below(&r, 1000);
        tl_esketch_insert(&k, f, b);
        truth[f] += b;
    }
    uint64_t sum = 0;
    for (uint32_t f = 0; f < N; f++)
        sum += truth[f];
    assert_int_equal(k.n_bytes, sum);
    assert_true(k.n_evictions > 0); /* the test exercises ostracism */
    int n_exact = 0;
    for (size_t i = 0; i < (size_t)k.n_buckets * k.n_slots; i++)
        if (k.id[i] != TL_ESK_EMPTY && !k.flag[i]) {
            assert_int_equal(k.pos[i], truth[k.id[i]]);
            n_exact++;
        }
    assert_true(n_exact > 0);
    for (uint32_t f = 0; f < N; f++)
        if (tl_esketch_query(&k, f) < truth[f])
            fail_msg("flow %u: estimate %llu below the truth %llu", f,
                     (unsigned long long)tl_esketch_query(&k, f), (unsigned long long)truth[f]);
    /* the 30 heavy hitters stay in the heavy part */
    for (uint32_t f = 0; f < 30; f++) {
        size_t base = 0;
        int found = 0;
        for (size_t i = base; i < (size_t)k.n_buckets * k.n_slots; i++)
            found |= k.id[i] == f;
        assert_true(found);
    }
    tl_esketch_reset(&k);
    assert_int_equal(tl_esketch_query(&k, 0), 0);
    assert_int_equal(k.n_pkts, 0);
    tl_esketch_fini(&k);
}

/* One bucket of one slot: the votes against the resident flow evict it
 * exactly when they reach 8 times its own (lambda = 8). */
static void sketch_ostracism(void **state)
{
    tl_err err;
    tl_err_clear(&err);
    tl_esketch k;
    assert_int_equal(tl_esketch_init(&k, 1, 1, 8, 1000, 16, 100, 1, &err), 0);
    tl_esketch_insert(&k, 5, 100);
    tl_esketch_insert(&k, 6, 799); /* vote- 799 < 800: flow 6 goes to the light part */
    assert_int_equal(k.id[0], 5);
    assert_int_equal(k.n_evictions, 0);
    assert_int_equal(tl_esketch_query(&k, 5), 100);
    assert_true(tl_esketch_query(&k, 6) >= 799);
    tl_esketch_insert(&k, 7, 1); /* vote- 800: flow 5 is evicted, flow 7 takes the slot */
    assert_int_equal(k.id[0], 7);
    assert_int_equal(k.flag[0], 1);
    assert_int_equal(k.n_evictions, 1);
    assert_int_equal(k.neg[0], 0);
    assert_true(tl_esketch_query(&k, 5) >= 100); /* now in the light part, never under */
    assert_true(tl_esketch_query(&k, 7) >= 1);
    tl_esketch_fini(&k);
}

/* ---- in pktsim ---- */

#define SMALL_LS                                                                                   \
    "\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": " \
    "4, \"host_link_bps\": \"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}"


static tl_monitor *attach(tl_pktsim *s, const tl_world *w)
{
    tl_err err;
    tl_err_clear(&err);
    tl_monitor *m = tl_monitor_attach(s, w->topo, &w->flows, &w->sc.params, &err);
    if (!m)
        fail_msg("attach: %s", err.msg);
    return m;
}

/* The world of json, a simulation of it and a monitor on it. */
static tl_pktsim *start(tl_world *w, const char *json, tl_monitor **m)
{
    tu_world_make(w, json);
    tl_pktsim *s = tu_pktsim_make(w);
    *m = attach(s, w);
    return s;
}

static void finish(tl_world *w, tl_pktsim *s, tl_monitor *m)
{
    tl_monitor_destroy(m);
    tl_pktsim_destroy(s);
    tl_world_fini(w);
}

static void run(tl_pktsim *s, int64_t until)
{
    tl_err err;
    tl_err_clear(&err);
    if (tl_pktsim_run(s, until, NULL, &err))
        fail_msg("run: %s", err.msg);
}

/* A PARALEON sketch on every ToR: each data packet is inserted once, at the
 * ToR where it enters the network; per flow, the sketches' sum is the
 * oracle's count; a naive sketch on every ToR counts inter-rack packets
 * twice. */
static void one_sketch_per_packet(void **state)
{
    tl_world w;
    tu_world_make(&w, "{\"seed\": 4, " SMALL_LS ", \"workload\": {\"flows\": 300, \"classes\": "
                      "[{\"sizes\": {\"cdf\": \"fb-hadoop\"}, \"spatial\": {\"type\": "
                      "\"uniform\"}, \"load\": {\"max_link_load\": 0.5}}]}, \"transport\": "
                      "{\"cc\": \"dctcp\", \"monitor\": {\"heavy_buckets\": 4096}}}");
    tl_pktsim *s = tu_pktsim_make(&w);
    tl_err err;
    tl_err_clear(&err);
    int tor_tap[8], naive_tap[8], n_tors = 0, truth = -1;
    uint32_t all[64], n_all = 0;
    for (uint32_t v = 0; v < tl_topo_n_nodes(w.topo); v++) {
        if (tl_topo_node(w.topo, v)->tier != 1)
            continue;
        uint32_t nc;
        const uint32_t *c = tl_topo_out_chans(w.topo, v, &nc);
        tor_tap[n_tors] = tl_pktsim_add_tap(s, "esketch", c, nc, 0, &err);
        naive_tap[n_tors] = tl_pktsim_add_tap(s, "esketch-naive", c, nc, 0, &err);
        assert_true(tor_tap[n_tors] >= 0 && naive_tap[n_tors] >= 0);
        n_tors++;
        memcpy(all + n_all, c, nc * sizeof *c);
        n_all += nc;
    }
    assert_int_equal(n_tors, 2);
    truth = tl_pktsim_add_tap(s, "flowtruth", all, n_all, 0, &err);
    assert_true(truth >= 0);
    run(s, 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    const tl_flowtruth *ft = tl_pktsim_tap_state(s, truth);
    uint64_t pkts = 0, bytes = 0, naive_bytes = 0;
    for (int i = 0; i < n_tors; i++) {
        const tl_esketch *k = &((tl_esketch_tap *)tl_pktsim_tap_state(s, tor_tap[i]))->sk;
        pkts += k->n_pkts;
        bytes += k->n_bytes;
        naive_bytes += ((tl_esketch_tap *)tl_pktsim_tap_state(s, naive_tap[i]))->sk.n_bytes;
        assert_int_equal(k->n_evictions, 0);
    }
    assert_int_equal(pkts, st.n_data_pkts);
    assert_int_equal(bytes, st.bytes_sent + st.bytes_retx);
    assert_int_equal(ft->n_bytes, bytes);
    assert_true(naive_bytes > bytes); /* inter-rack packets pass two ToRs */
    uint64_t inter = 0;
    for (size_t f = 0; f < w.flows.n; f++) {
        uint64_t sum = 0;
        int n_seen = 0;
        for (int i = 0; i < n_tors; i++) {
            uint64_t q =
                tl_esketch_query(&((tl_esketch_tap *)tl_pktsim_tap_state(s, tor_tap[i]))->sk,
                                 (uint32_t)f);
            sum += q;
            n_seen += q > 0;
        }
        assert_int_equal(sum, ft->total[f]);
        assert_true(ft->total[f] >= w.flows.v[f].size_bytes);
        assert_int_equal(n_seen, 1);
        const tl_node *a = tl_topo_node(w.topo, w.flows.v[f].src);
        const tl_node *b = tl_topo_node(w.topo, w.flows.v[f].dst);
        if (a->rack != b->rack)
            inter += ft->total[f];
    }
    assert_int_equal(naive_bytes, bytes + inter);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Monitoring only observes: with the monitor attached every flow finishes
 * at the same picosecond as without. */
static void monitor_keeps_fcts(void **state)
{
    tl_world w;
    tu_world_make(&w, "{\"seed\": 6, " SMALL_LS ", \"workload\": {\"flows\": 400, \"classes\": "
                      "[{\"sizes\": {\"cdf\": \"fb-hadoop\"}, \"spatial\": {\"type\": "
                      "\"uniform\"}, \"load\": {\"max_link_load\": 0.6}}]}, \"transport\": "
                      "{\"cc\": \"dcqcn\", \"monitor\": {\"interval_ps\": \"50us\"}}}");
    tl_pktsim *a = tu_pktsim_make(&w), *b = tu_pktsim_make(&w);
    tl_monitor *m = attach(b, &w);
    run(a, 0);
    run(b, 0);
    size_t n;
    tl_monitor_rows(m, &n);
    assert_true(n > 10);
    for (size_t i = 0; i < w.flows.n; i++)
        assert_int_equal(tl_pktsim_results(a)[i].fct_ps, tl_pktsim_results(b)[i].fct_ps);
    tl_monitor_destroy(m);
    tl_pktsim_destroy(a);
    tl_pktsim_destroy(b);
    tl_world_fini(&w);
}

/* KL trigger: a training all-to-all (every flow an elephant once it has sent
 * tau) settles the reference; an FB_Hadoop influx at 1.6 ms fires the
 * trigger in its first interval and nothing fires before. */
static void kl_fires_on_influx(void **state)
{
    tl_world w;
    tl_monitor *m;
    tl_pktsim *s = start(&w, "{\"seed\": 2, " SMALL_LS ", \"workload\": {\"duration_ns\": \"2.6ms\", \"classes\": "
            "[{\"name\": \"train\", \"flows\": 56, \"sizes\": {\"dist\": \"fixed\", "
            "\"mean_bytes\": 4000000}, \"spatial\": {\"type\": \"all_to_all\"}, \"arrival\": "
            "{\"process\": \"simultaneous\"}}, {\"name\": \"hadoop\", \"start_ns\": \"1.6ms\", "
            "\"sizes\": {\"cdf\": \"fb-hadoop\"}, \"spatial\": {\"type\": \"uniform\"}, "
            "\"arrival\": {\"process\": \"poisson\"}, \"load\": {\"offered_bps\": \"200Gbps\"}}]}, "
            "\"transport\": {\"cc\": \"dcqcn\", \"monitor\": {\"interval_ps\": \"200us\", "
            "\"warmup\": 5}}}", &m);
    run(s, 0);
    size_t n;
    const tl_monitor_row *r = tl_monitor_rows(m, &n);
    int first = -1;
    for (size_t i = 0; i < n && first < 0; i++)
        if (r[i].is_trigger)
            first = (int)i;
    assert_true(first >= 0);
    assert_int_equal(r[first].t_ps, 1800000000); /* the interval (1.6, 1.8] ms */
    assert_true(r[first].kl > 1);
    assert_true(r[first - 1].p_paraleon > 0.99); /* before: all elephants */
    finish(&w, s, m);
}

/* ... and stays silent while the mix of mice and elephants is stationary
 * (until the arrivals stop at 8 ms, a real change). Thousands of flows per
 * interval, as at the paper's scale. */
static void kl_quiet_when_stationary(void **state)
{
    tl_world w;
    tl_monitor *m;
    tl_pktsim *s = start(&w, "{\"seed\": 3, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 2, \"spines\": 4, "
            "\"hosts_per_leaf\": 8, \"host_link_bps\": \"100Gbps\", \"fabric_link_bps\": "
            "\"100Gbps\", \"link_delay_ns\": 1000}, \"workload\": {\"duration_ns\": \"8ms\", "
            "\"classes\": [{\"name\": \"mice\", \"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": "
            "2000}, \"spatial\": {\"type\": \"uniform\"}, \"arrival\": {\"process\": "
            "\"poisson\"}, \"load\": {\"offered_bps\": \"200Gbps\"}}, {\"name\": \"elephants\", "
            "\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1200000}, \"spatial\": {\"type\": "
            "\"uniform\"}, \"arrival\": {\"process\": \"poisson\"}, \"load\": {\"offered_bps\": "
            "\"400Gbps\"}}]}, \"transport\": {\"cc\": \"dcqcn\", \"monitor\": {\"interval_ps\": "
            "\"200us\", \"warmup\": 5}}}", &m);
    run(s, 0);
    size_t n;
    const tl_monitor_row *r = tl_monitor_rows(m, &n);
    int n_decided = 0;
    for (size_t i = 0; i < n && r[i].t_ps <= 8000000000; i++) {
        if (r[i].is_trigger)
            fail_msg("trigger at %.1f ms (KL %.4f)", (double)r[i].t_ps * 1e-9, r[i].kl);
        n_decided += !isnan(r[i].kl);
        assert_true(r[i].n_flows > 1000);
    }
    assert_true(n_decided >= 30);
    finish(&w, s, m);
}

/* Eq. (1) on a lone long flow: O_TP and O_PFC from pktsim's port counters
 * read by the test at the interval's end, O_RTT from the run's RTT
 * samples (every sample is the idle path's RTT). */
static void metrics_lone_flow(void **state)
{
    tl_world w;
    tl_monitor *m;
    tl_pktsim *s = start(&w, "{\"seed\": 1, " SMALL_LS ", \"workload\": {\"flows\": 1, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 10000000}, "
                      "\"spatial\": {\"type\": \"permutation\"}, \"arrival\": {\"process\": "
                      "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"dcqcn\", \"monitor\": "
                      "{\"interval_ps\": \"100us\"}}}", &m);
    const tl_flow *f = &w.flows.v[0];
    uint32_t up = tl_topo_host_chan(w.topo, f->src, 0);
    uint64_t rate = tl_topo_link(w.topo, tl_chan_link(up))->rate_bps;
    tl_port_stats p0, p1;
    run(s, 300000000); /* to 300 us, interval 3's end */
    tl_pktsim_port_stats(s, up, &p0);
    run(s, 400000000);
    tl_pktsim_port_stats(s, up, &p1);
    size_t n;
    const tl_monitor_row *r = tl_monitor_rows(m, &n);
    assert_int_equal(n, 4);
    double want_tp = (double)(p1.bytes_tx - p0.bytes_tx) * 8 / ((double)rate * 100e-6);
    assert_true(fabs(r[3].o_tp - want_tp) < 1e-9);
    assert_true(r[3].o_tp > 0.95); /* DCQCN starts at line rate on an idle path */
    assert_int_equal(r[3].n_active_hosts, 1);
    assert_int_equal(r[3].n_active_pairs, 1);
    assert_true(r[3].o_pfc == 1);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    int hops;
    tl_pktsim_flow_path(s, 0, &hops);
    double rtt = st.rtt_sum_ps / (double)st.n_rtt_samples;
    assert_true(st.rtt_max_ps - rtt < 1e-6 * rtt); /* idle path: one RTT */
    double want_rtt = 2.0 * hops * 1e6 / rtt;     /* 1 us links */
    assert_true(fabs(r[3].o_rtt - want_rtt) < 1e-9);
    assert_true(fabs(r[3].u - (0.2 * r[3].o_tp + 0.5 * r[3].o_rtt + 0.3)) < 1e-12);
    finish(&w, s, m);
}

/* O_PFC under a PFC incast in one rack: each paused device is a NIC with one
 * port, so the rows' pause time sums to the ports' paused_ps. */
static void metrics_pfc_incast(void **state)
{
    tl_world w;
    tl_monitor *m;
    tl_pktsim *s = start(&w, "{\"seed\": 1, \"topology\": {\"type\": \"leaf_spine\", \"leaves\": 1, "
                      "\"spines\": 1, \"hosts_per_leaf\": 8, \"host_link_bps\": \"100Gbps\", "
                      "\"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}, "
                      "\"workload\": {\"flows\": 7, \"classes\": [{\"sizes\": {\"dist\": "
                      "\"fixed\", \"mean_bytes\": 3000000}, \"spatial\": {\"type\": \"incast\", "
                      "\"senders\": 7}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"dcqcn\", \"switch\": {\"buffer_bytes\": "
                      "\"1MB\"}, \"monitor\": {\"interval_ps\": \"50us\"}}}", &m);
    run(s, 1000000000); /* 1 ms: 20 intervals */
    size_t n;
    const tl_monitor_row *r = tl_monitor_rows(m, &n);
    assert_int_equal(n, 20);
    double rows_ps = 0;
    uint32_t n_nodes = tl_topo_n_nodes(w.topo);
    for (size_t i = 0; i < n; i++)
        rows_ps += (1 - r[i].o_pfc) * n_nodes * 50e6;
    double ports_ps = 0;
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        if (ps.paused_ps)
            assert_int_equal(tl_topo_node(w.topo, tl_topo_chan_from(w.topo, c))->kind,
                             TL_NODE_HOST);
        ports_ps += (double)ps.paused_ps;
    }
    assert_true(ports_ps > 0); /* the incast did pause */
    assert_true(fabs(rows_ps - ports_ps) < 1e-6 * ports_ps);
    finish(&w, s, m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fig4_states),          cmocka_unit_test(sketch_counts),
        cmocka_unit_test(sketch_ostracism),     cmocka_unit_test(one_sketch_per_packet),
        cmocka_unit_test(monitor_keeps_fcts),   cmocka_unit_test(kl_fires_on_influx),
        cmocka_unit_test(kl_quiet_when_stationary), cmocka_unit_test(metrics_lone_flow),
        cmocka_unit_test(metrics_pfc_incast),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
