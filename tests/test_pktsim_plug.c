/* pktsim's plug points (issue 43): a transport with two subflows, a
 * per-packet spraying load balancer whose path memory stays bounded, a
 * queue policy on the WAN ports only, a counting tap at every ToR, unknown
 * plug-in names refused, and the engine's invariants mid-run. Each plug-in
 * lives in its own file under src/pktsim/ and is reached by registry name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/pktsim_int.h"
#include "pktsim/tap/count.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"
#include "testutil.h"

#define FATTREE4 "{\"type\": \"fat_tree\", \"k\": 4, \"host_link_bps\": \"100Gbps\", " \
                 "\"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}"

/* A k=4 fat tree with a permutation of size-byte flows starting together. */
static void perm_world(tl_world *w, uint64_t size, const char *cc)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"seed\": 3, \"topology\": " FATTREE4 ", \"workload\": {\"flows\": 16, \"classes\": "
             "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": %llu}, \"spatial\": {\"type\": "
             "\"permutation\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}, \"transport\": "
             "{\"cc\": \"%s\"}}",
             (unsigned long long)size, cc);
    tu_world_make(w, json);
}

static tl_pktsim *make(tl_world *w, const tl_pktsim_opts *o)
{
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create_opts(w->topo, w->routes, &w->flows, &w->sc.params, o, 1, &err);
    if (!s)
        fail_msg("create: %s", err.msg);
    return s;
}

/* Runs to the end, checking the invariants every 20 us of simulated time. */
static void run_checked(tl_pktsim *s)
{
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim_stats st;
    for (int64_t t = 20000000;; t += 20000000) {
        assert_int_equal(tl_pktsim_run(s, t, NULL, &err), 0);
        tl_pktsim_check_invariants(s);
        tl_pktsim_get_stats(s, &st);
        if (st.n_flows_done + st.n_flows_unreachable == s->flows->n)
            break;
        assert_true(t < 1000000000000LL); /* a second of simulated time: stuck */
    }
}

static uint64_t total_bytes(const tl_world *w)
{
    uint64_t b = 0;
    for (size_t i = 0; i < w->flows.n; i++)
        b += w->flows.v[i].size_bytes;
    return b;
}

/* The stripe transport: two subflows per flow, each with its own CC state
 * and path; every flow completes, every byte arrives once in order per
 * subflow, and the two halves of a cross-pod flow take different paths. */
static void two_subflow_transport(void **state)
{
    tl_world w;
    perm_world(&w, 400000, "dctcp");
    tl_pktsim_opts o = {.transport = "stripe"};
    tl_pktsim *s = make(&w, &o);
    assert_int_equal((int)s->tp->n_subflows, 2);
    run_checked(s);
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_pktsim_run(s, -1, NULL, &err), 0); /* the last ACKs drain */
    tl_pktsim_check_invariants(s);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, w.flows.n);
    assert_int_equal(st.bytes_delivered, total_bytes(&w));
    const tl_flow_result *res = tl_pktsim_results(s);
    size_t n_split = 0;
    for (size_t i = 0; i < w.flows.n; i++) {
        assert_true(res[i].fct_ps >= res[i].ideal_ps / 2); /* two paths at most halve it */
        const tl_subflow *a = &s->sub[2 * i], *b = &s->sub[2 * i + 1];
        /* each subflow's CC saw its own half acknowledged */
        assert_true(a->io.snd_una > 0 && b->io.snd_una > a->io.snd_una);
        assert_int_equal(b->io.snd_una, w.flows.v[i].size_bytes);
        n_split += a->path_off != b->path_off;
    }
    assert_true(n_split > w.flows.n / 2); /* ECMP salted per subflow: most pairs split */
    tl_pktsim_destroy(s);
    /* the same run with go-back-N alone: the same bytes, fewer paths */
    tl_pktsim *g = make(&w, NULL);
    run_checked(g);
    tl_pktsim_stats sg;
    tl_pktsim_get_stats(g, &sg);
    assert_int_equal(sg.bytes_delivered, st.bytes_delivered);
    tl_pktsim_destroy(g);
    tl_world_fini(&w);
}

/* Packet spraying: entropy changes on every data packet, yet the path
 * store holds at most the ECMP paths of the flows' pairs (4 between pods of
 * a k=4 fat tree), however many packets are sent. */
static void spraying_keeps_path_memory_bounded(void **state)
{
    tl_world w;
    perm_world(&w, 2000000, "dctcp");
    tl_pktsim_opts o = {.lb = "spray"};
    tl_pktsim *s = make(&w, &o);
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_pktsim_run(s, 50000000, NULL, &err), 0); /* 50 us */
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    size_t mid_paths = s->path_n, mid_used = s->path_used;
    assert_true(st.n_data_pkts > 1000);
    run_checked(s);
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, w.flows.n);
    assert_int_equal(st.bytes_delivered, total_bytes(&w));
    assert_true(st.n_data_pkts > 20000);
    assert_true(s->path_n <= 4 * w.flows.n); /* at most 4 ECMP paths per pair */
    assert_true(s->path_n > 2 * w.flows.n);  /* and spraying did use them */
    /* the second part of the run sent most packets and found no new path */
    assert_int_equal(s->path_n, mid_paths);
    assert_int_equal(s->path_used, mid_used);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Two data centers: RED marking on the WAN ports only (no marking inside
 * either DC): marks appear on WAN ports and nowhere else. */
static void marking_on_wan_ports_only(void **state)
{
    tl_world w;
    tu_world_make(&w,
                  "{\"seed\": 2, \"topology\": {\"type\": \"two_dc\", \"k\": 4, "
                  "\"core_border_links\": 1, \"inter_dc_links\": 1, \"host_link_bps\": "
                  "\"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"wan_link_bps\": \"10Gbps\", "
                  "\"link_delay_ns\": 1000, \"wan_delay_ns\": 10000}, \"workload\": {\"flows\": 200, "
                  "\"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 100000}, "
                  "\"spatial\": {\"type\": \"dc_mix\", \"intra_fraction\": 0.5}, \"arrival\": "
                  "{\"process\": \"simultaneous\"}}]}, \"transport\": {\"cc\": \"dctcp\", "
                  "\"switch\": {\"kmin_bytes_per_gbps\": 100, \"kmax_bytes_per_gbps\": 100}}}");
    tl_pktsim_opts o = {.qpolicy = {[TL_PORT_HOST] = "none", [TL_PORT_DC] = "none",
                                    [TL_PORT_WAN] = "red"}};
    tl_pktsim *s = make(&w, &o);
    run_checked(s);
    uint64_t wan_marks = 0, n_wan = 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        const tl_node *a = tl_topo_node(w.topo, tl_topo_chan_from(w.topo, c));
        const tl_node *b = tl_topo_node(w.topo, tl_topo_chan_to(w.topo, c));
        int is_wan = a->kind == TL_NODE_SWITCH && b->kind == TL_NODE_SWITCH && a->dc != b->dc;
        n_wan += is_wan;
        if (is_wan)
            wan_marks += ps.marks;
        else
            assert_int_equal(ps.marks, 0);
    }
    assert_int_equal(n_wan, 2); /* one WAN link, both directions */
    assert_true(wan_marks > 0);
    tl_pktsim_destroy(s);
    /* RED everywhere (the default): the same thresholds mark inside the DCs too */
    tl_pktsim *r = make(&w, NULL);
    run_checked(r);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(r, &st);
    assert_true(st.n_marks > wan_marks);
    tl_pktsim_destroy(r);
    tl_world_fini(&w);
}

/* A counting tap on every port of every ToR sees each data packet exactly
 * once, at the ToR where it enters the network; its interval callback
 * runs; a port without a tap is untouched. */
static void counting_tap_at_every_tor(void **state)
{
    tl_world w;
    perm_world(&w, 300000, "dctcp");
    tl_pktsim *s = make(&w, NULL);
    uint32_t n_ports = 2 * tl_topo_n_links(w.topo), n = 0;
    uint32_t *chans = malloc(n_ports * sizeof *chans);
    assert_non_null(chans);
    for (uint32_t c = 0; c < n_ports; c++)
        if (tl_topo_node(w.topo, tl_topo_chan_from(w.topo, c))->tier == 1)
            chans[n++] = c;
    assert_true(n > 0);
    tl_err err;
    tl_err_clear(&err);
    int id = tl_pktsim_add_tap(s, "count", chans, n, 10000000, &err); /* every 10 us */
    assert_true(id >= 0);
    run_checked(s);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    const tl_tap_count_state *cs = tl_pktsim_tap_state(s, id);
    assert_non_null(cs);
    assert_int_equal(st.n_drops, 0);
    assert_int_equal(cs->data_pkts, st.n_data_pkts);
    assert_int_equal(cs->data_bytes, st.bytes_sent + st.bytes_retx);
    assert_true(cs->other_pkts > 0); /* ACKs and data passing their last ToR */
    assert_true(cs->n_intervals >= (uint64_t)(st.now_ps / 10000000) - 1);
    assert_null(tl_pktsim_tap_state(s, id + 1));
    /* results are those of a run without the tap */
    tl_pktsim *u = make(&w, NULL);
    run_checked(u);
    for (size_t i = 0; i < w.flows.n; i++)
        assert_int_equal(tl_pktsim_results(s)[i].fct_ps, tl_pktsim_results(u)[i].fct_ps);
    tl_pktsim_destroy(u);
    /* bad taps */
    assert_true(tl_pktsim_add_tap(s, "sketch?", chans, 1, 0, &err) < 0);
    tu_check_err("unknown tap", &err, TL_EINVAL, "sketch?", "count");
    uint32_t bad = n_ports;
    assert_true(tl_pktsim_add_tap(s, "count", &bad, 1, 0, &err) < 0);
    tu_check_err("bad channel", &err, TL_ERANGE, "no channel", NULL);
    free(chans);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Unknown plug-in names are refused, naming what exists. */
static void unknown_plugins_refused(void **state)
{
    tl_world w;
    perm_world(&w, 10000, "dctcp");
    static const struct {
        tl_pktsim_opts o;
        const char *needle, *avail;
    } cases[] = {
        {{.transport = "uno"}, "transport 'uno'", "gbn"},
        {{.lb = "conga"}, "load balancer 'conga'", "spray"},
        {{.qpolicy = {[TL_PORT_WAN] = "hull"}}, "queue policy 'hull'", "phantom"},
        {{.cc = "bbr"}, "congestion control 'bbr'", "dctcp"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tl_err err;
        tl_err_clear(&err);
        assert_null(tl_pktsim_create_opts(w.topo, w.routes, &w.flows, &w.sc.params, &cases[c].o,
                                          1, &err));
        tu_check_err(cases[c].needle, &err, TL_EINVAL, cases[c].needle, cases[c].avail);
    }
    tl_world_fini(&w);
}

/* PFC under incast with every data packet sprayed: the switch memory's
 * accounting (invariant 3, headroom included) holds throughout. */
static void invariants_hold_with_pfc(void **state)
{
    tl_world w;
    tu_world_make(&w, "{\"seed\": 5, \"topology\": " FATTREE4 ", \"workload\": {\"flows\": 12, "
                      "\"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 200000}, "
                      "\"spatial\": {\"type\": \"incast\", \"senders\": 12}, \"arrival\": "
                      "{\"process\": \"simultaneous\"}}]}, \"transport\": {\"cc\": \"dcqcn\", "
                      "\"switch\": {\"pfc\": 1, \"buffer_bytes\": \"3MiB\"}}}");
    tl_pktsim_opts o = {.cc = "dcqcn", .lb = "spray"};
    tl_pktsim *s = make(&w, &o);
    run_checked(s);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, w.flows.n);
    assert_int_equal(st.n_drops, 0);
    uint64_t pauses = 0;
    for (uint32_t c = 0; c < s->n_ports; c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        pauses += ps.n_pauses;
    }
    assert_true(pauses > 0);
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_subflow_transport),
        cmocka_unit_test(spraying_keeps_path_memory_bounded),
        cmocka_unit_test(marking_on_wan_ports_only),
        cmocka_unit_test(counting_tap_at_every_tor),
        cmocka_unit_test(unknown_plugins_refused),
        cmocka_unit_test(invariants_hold_with_pfc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
