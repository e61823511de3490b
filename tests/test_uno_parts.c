/* The parts Uno's experiments stand on (issue 45), each tested alone: the
 * phantom queue policy, the selective-repeat transport, per-port buffers,
 * htsim connection matrices as workloads, and the scenario keys that pick
 * pktsim's plug-ins. UnoCC's own behaviour is in test_uno.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/pktsim_int.h"
#include "pktsim/qpolicy.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"
#include "testutil.h"

/* ---- phantom queues ---- */

static const tl_qpolicy_ops *phantom_at(void *st, tl_params *p, uint64_t rate, uint64_t size)
{
    const tl_qpolicy_ops *q = tl_qpolicy_find("phantom");
    assert_non_null(q);
    assert_int_equal(tl_params_set(p, "phantom.size_bytes", (double)size, NULL), 0);
    tl_fabric_ref f = {.bdp_bytes = 22400515};
    q->configure(st, &(tl_qpolicy_port){rate, &f}, p);
    return q;
}

/* The counter grows by every packet, drains at drain_frac of line rate
 * computed from elapsed time, and marks nothing below kmin, everything
 * above kmax; size 0 takes the network's largest BDP. */
static void phantom_counter_drains_lazily(void **state)
{
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    assert_int_equal(tl_params_set(&p, "phantom.kmin_frac", 0.25, NULL), 0);
    assert_int_equal(tl_params_set(&p, "phantom.kmax_frac", 0.75, NULL), 0);
    char st[256] = {0};
    tl_rng r;
    tl_rng_init(&r, 1, "test", 0);
    /* 1 MB phantom at 100 Gb/s draining at 90 Gb/s: kmin 250 KB, kmax 750 KB */
    const tl_qpolicy_ops *q = phantom_at(st, &p, 100000000000ull, 1000000);
    int64_t t = 0;
    for (int i = 0; i < 200; i++) /* 200 x 1000 B at once: 200 KB, below kmin */
        q->on_enqueue(st, 0, 1000, t, &r);
    assert_false(q->on_dequeue(st, 0, 1000, t, &r));
    for (int i = 0; i < 600; i++) /* 800 KB: above kmax */
        q->on_enqueue(st, 0, 1000, t, &r);
    assert_true(q->on_dequeue(st, 0, 1000, t, &r));
    /* 90 Gb/s drains 800 KB - 240 KB = 560 KB in 49.8 us: below kmin after it */
    t = 49800000;
    assert_false(q->on_dequeue(st, 0, 1000, t, &r));
    /* 10 us earlier it still held 800 - 0.9 x 100e9 x 39.8e-6 / 8 = 352 KB:
     * between kmin and kmax some packets are marked, some not */
    memset(st, 0, sizeof st);
    q = phantom_at(st, &p, 100000000000ull, 1000000);
    for (int i = 0; i < 800; i++)
        q->on_enqueue(st, 0, 1000, 0, &r);
    int marks = 0;
    for (int i = 0; i < 1000; i++)
        marks += q->on_dequeue(st, 0, 0, 39800000, &r);
    assert_true(marks > 100 && marks < 400); /* p = (352 - 250) / 500 = 0.2 */
    /* the cap: no more than its size, however much arrives */
    memset(st, 0, sizeof st);
    q = phantom_at(st, &p, 100000000000ull, 1000000);
    for (int i = 0; i < 5000; i++)
        q->on_enqueue(st, 0, 1000, 0, &r);
    /* 1 MB drains to 250 KB in 53.3 us: unmarked just after */
    assert_false(q->on_dequeue(st, 0, 0, 53400000, &r));
    /* size 0: the fabric's BDP (22.4 MB), so 5 MB stays below kmin (5.6 MB) */
    memset(st, 0, sizeof st);
    q = phantom_at(st, &p, 100000000000ull, 0);
    for (int i = 0; i < 5000; i++)
        q->on_enqueue(st, 0, 1000, 0, &r);
    assert_false(q->on_dequeue(st, 0, 0, 0, &r));
    tl_params_fini(&p);
}

/* ---- selective repeat and per-port buffers ---- */

/* A 16-to-1 incast into 64 KB port buffers: heavy drops. */
static void incast_world(tl_world *w, const char *protocol)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"seed\": 3, \"topology\": {\"type\": \"fat_tree\", \"k\": 4, \"host_link_bps\": "
             "\"100Gbps\", \"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}, "
             "\"workload\": {\"flows\": 15, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
             "\"mean_bytes\": 300000}, \"spatial\": {\"type\": \"incast\", \"senders\": 15, "
             "\"destination\": 0}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
             "\"transport\": {\"cc\": \"dctcp\", \"protocol\": \"%s\", \"nic\": {\"rto_ps\": "
             "\"100us\"}, \"switch\": {\"port_buffer_bytes\": 64000}}}",
             protocol);
    tu_world_make(w, json);
}

static void run_incast(const char *protocol, tl_pktsim_stats *st)
{
    tl_world w;
    incast_world(&w, protocol);
    assert_string_equal(w.sc.protocol, protocol);
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create_opts(w.topo, w.routes, &w.flows, &w.sc.params,
                                         &(tl_pktsim_opts){.transport = w.sc.protocol}, 1, &err);
    assert_non_null(s);
    for (int64_t t = 20000000;; t += 20000000) {
        assert_int_equal(tl_pktsim_run(s, t, NULL, &err), 0);
        tl_pktsim_check_invariants(s); /* includes: no port above its 64 KB */
        tl_pktsim_get_stats(s, st);
        if (st->n_flows_done == w.flows.n)
            break;
        assert_true(t < 1000000000000LL);
    }
    uint64_t total = 0;
    for (size_t i = 0; i < w.flows.n; i++)
        total += w.flows.v[i].size_bytes;
    assert_int_equal(st->bytes_delivered, total); /* every byte once */
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        if (tl_topo_node(w.topo, tl_topo_chan_from(w.topo, c))->kind == TL_NODE_SWITCH)
            assert_true(ps.max_queue_bytes <= 64000);
    }
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Selective repeat resends what was lost and nothing else (at most one
 * resend per dropped packet, ACKs included); go-back-N resends what
 * followed each loss too (here half again as many packets as it lost). */
static void selective_repeat_resends_only_losses(void **state)
{
    tl_pktsim_stats sr, gbn;
    run_incast("sack", &sr);
    run_incast("gbn", &gbn);
    fprintf(stderr, "sack drops %llu retx %llu timeouts %llu; gbn drops %llu retx %llu\n",
            (unsigned long long)sr.n_drops, (unsigned long long)sr.n_retx_pkts,
            (unsigned long long)sr.n_timeouts, (unsigned long long)gbn.n_drops,
            (unsigned long long)gbn.n_retx_pkts);
    assert_true(sr.n_drops > 50);
    assert_true(sr.n_retx_pkts > 0);
    assert_true(sr.n_retx_pkts <= sr.n_drops);
    assert_true(gbn.n_retx_pkts > gbn.n_drops + gbn.n_drops / 2);
}

/* nic.wan_rto_extra_ps lengthens the timeout of flows between data centers
 * only: two inter-DC and two intra-DC senders of 200 KB into one host
 * through 8 KB ports all lose packets; with 5 ms more the inter-DC flows
 * finish after 5 ms, the intra-DC ones (100 us timeouts) well before, and
 * without it everything is done in under 5 ms. */
static void wan_flows_wait_longer_timeouts(void **state)
{
    char *cm = tu_write_temp("Nodes 32\nConnections 4\n"
                             "0->20 id 1 start 0 size 200000\n"
                             "1->20 id 2 start 0 size 200000\n"
                             "17->20 id 3 start 0 size 200000\n"
                             "18->20 id 4 start 0 size 200000\n",
                             ".cm");
    for (int extra = 0; extra <= 1; extra++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"seed\": 1, \"topology\": {\"type\": \"two_dc\", \"k\": 4, \"wan_delay_ns\": "
                 "\"10us\", \"host_link_bps\": \"100Gbps\", \"fabric_link_bps\": \"100Gbps\", "
                 "\"wan_link_bps\": \"100Gbps\"}, \"workload\": {\"file\": \"%s\"}, \"transport\": "
                 "{\"cc\": \"uno\", \"nic\": {\"mtu_bytes\": 4096, \"rto_ps\": \"100us\", "
                 "\"wan_rto_extra_ps\": \"%s\"}, \"switch\": {\"port_buffer_bytes\": 8192}}}",
                 cm, extra ? "5ms" : "0");
        tl_world w;
        tu_world_make(&w, json);
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim_opts opts;
        tl_scenario_pktsim_opts(&w.sc, &opts);
        tl_pktsim *s = tl_pktsim_create_opts(w.topo, w.routes, &w.flows, &w.sc.params, &opts, 1, &err);
        assert_non_null(s);
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        assert_true(st.n_timeouts >= 4);
        const tl_flow_result *r = tl_pktsim_results(s);
        for (size_t i = 0; i < w.flows.n; i++) {
            int is_inter = !strcmp(w.flows.class_names[w.flows.v[i].class_idx], "inter");
            fprintf(stderr, "extra %d flow %llu %s: fct %.1f us\n", extra,
                    (unsigned long long)w.flows.v[i].id, is_inter ? "inter" : "intra",
                    (double)r[i].fct_ps * 1e-6);
            assert_true(r[i].fct_ps > 0);
            if (extra && is_inter)
                assert_true(r[i].fct_ps > 5000000000LL);
            else
                assert_true(r[i].fct_ps < 5000000000LL);
        }
        tl_pktsim_destroy(s);
        tl_world_fini(&w);
    }
    remove(cm);
    free(cm);
}

/* ---- htsim connection matrices ---- */

#define TWO_DC "{\"type\": \"two_dc\", \"k\": 4, \"wan_delay_ns\": \"10us\"}"

static void htsim_world(tl_world *w, const char *cm_path, int n_flows, tl_err *err, int *rc)
{
    char json[2048];
    snprintf(json, sizeof json,
             "{\"seed\": 1, \"topology\": " TWO_DC ", \"workload\": {\"file\": \"%s\"%s}}",
             cm_path, n_flows ? ", \"flows\": 2" : "");
    *rc = tl_world_from_json(w, json, 1, err);
}

/* Hosts are host indices, DC 0's first; start in us; classes intra/inter;
 * the flows come out in start order; "flows" keeps the first N. */
static void htsim_matrix_loads(void **state)
{
    char *cm = tu_write_temp("# a comment\nNodes 32\nConnections 3\n"
                             "0->17 id 7 start 5.5 size 4000\n"
                             "# another\n"
                             "3->1 id 8 start 2 size 1000\n"
                             "20->21 id 9 start 2 size 9000\n",
                             ".cm");
    tl_world w;
    tl_err err;
    tl_err_clear(&err);
    int rc;
    htsim_world(&w, cm, 0, &err, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(w.flows.n, 3);
    const uint32_t *hosts = tl_topo_hosts(w.topo);
    /* start order: id 8 (2 us), id 9 (2 us), id 7 (5.5 us) */
    assert_int_equal(w.flows.v[0].id, 8);
    assert_int_equal(w.flows.v[0].src, hosts[3]);
    assert_int_equal(w.flows.v[0].start_ps, 2000000);
    assert_string_equal(w.flows.class_names[w.flows.v[0].class_idx], "intra");
    assert_int_equal(w.flows.v[2].id, 7);
    assert_int_equal(w.flows.v[2].start_ps, 5500000);
    assert_int_equal(w.flows.v[2].dst, hosts[17]);
    assert_int_equal(tl_topo_node(w.topo, hosts[17])->dc, 1);
    assert_string_equal(w.flows.class_names[w.flows.v[2].class_idx], "inter");
    assert_string_equal(w.flows.class_names[w.flows.v[1].class_idx], "intra");
    tl_world_fini(&w);
    htsim_world(&w, cm, 2, &err, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(w.flows.n, 2);
    tl_world_fini(&w);
    remove(cm);
    free(cm);
}

/* Bad matrices name the file, the line and what was expected. */
static void htsim_matrix_errors(void **state)
{
    static const struct {
        const char *text, *needle;
        int line;
    } bad[] = {
        {"Nodes 32\nConnections 1\n0->40 id 1 start 0 size 10\n", "host 40 is not in the topology", 3},
        {"Nodes 32\nConnections 1\n0-1 id 1 start 0 size 10\n", "expected 'SRC->DST id ID start", 3},
        {"Nodes 32\nConnections 2\n0->1 id 1 start 0 size 10\n", "announces 2 flows, found only 1", 3},
        {"Nodes 32\nConnections 1\n0->1 id 1 start 0 size 10\n1->2 id 2 start 0 size 10\n",
         "there are more lines", 4},
        {"Connections 1\n0->1 id 1 start 0 size 10\n", "expected 'Nodes <count>'", 1},
        {"Nodes 32\nConnections 2\n0->1 id 1 start 0 size 10\n1->2 id 1 start 0 size 10\n",
         "flow id 1 appears again", 4},
        {"Nodes 32\nConnections 1\n3->3 id 1 start 0 size 10\n", "same host", 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *cm = tu_write_temp(bad[i].text, ".cm");
        tl_world w;
        tl_err err;
        tl_err_clear(&err);
        int rc;
        htsim_world(&w, cm, 0, &err, &rc);
        assert_int_not_equal(rc, 0);
        if (!strstr(err.msg, bad[i].needle) || err.line != bad[i].line || !strstr(err.file, ".cm"))
            fail_msg("case %zu: %s:%d: %s", i, err.file, err.line, err.msg);
        remove(cm);
        free(cm);
    }
}

/* ---- scenario keys ---- */

static void scenario_names_plugins(void **state)
{
    static const struct {
        const char *transport, *path, *needle;
    } bad[] = {
        {"{\"lb\": \"sprya\"}", "transport.lb", "unknown load balancer \"sprya\"; known: ecmp, spray"},
        {"{\"protocol\": \"tcp\"}", "transport.protocol", "known: gbn, stripe, sack"},
        {"{\"queue_policy\": {\"dc\": \"phantomm\"}}", "transport.queue_policy.dc",
         "known: red, none, phantom"},
        {"{\"queue_policy\": {\"core\": \"red\"}}", "transport.queue_policy.core", "unknown key"},
        {"{\"switch\": {\"port_buffer_bytes\": -1}}", "transport.switch.port_buffer_bytes", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"topology\": " TWO_DC ", \"workload\": {\"flows\": 4, \"classes\": "
                 "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": "
                 "{\"type\": \"permutation\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                 "\"transport\": %s}",
                 bad[i].transport);
        tl_scenario sc;
        tl_err err;
        tl_err_clear(&err);
        assert_int_not_equal(tl_scenario_parse(&sc, json, "t.json", NULL, &err), 0);
        if (strcmp(err.path, bad[i].path) != 0 || !strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: %s: %s", i, err.path, err.msg);
    }
    /* uno takes phantom queues on switch ports and selective repeat unless told */
    tl_world w;
    tu_world_make(&w, "{\"topology\": " TWO_DC ", \"workload\": {\"flows\": 4, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": "
                      "{\"type\": \"permutation\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"uno\", \"queue_policy\": {\"wan\": \"none\"}}}");
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim_opts o = {.cc = "uno", .qpolicy = {NULL, NULL, w.sc.qpolicy[2]}};
    tl_pktsim *s = tl_pktsim_create_opts(w.topo, w.routes, &w.flows, &w.sc.params, &o, 1, &err);
    assert_non_null(s);
    assert_string_equal(s->tp->name, "sack");
    assert_string_equal(s->qp_class[TL_PORT_HOST]->name, "red");
    assert_string_equal(s->qp_class[TL_PORT_DC]->name, "phantom");
    assert_string_equal(s->qp_class[TL_PORT_WAN]->name, "none");
    tl_pktsim_destroy(s);
    tl_world_fini(&w);
}

/* Per-port buffers and PFC do not mix: a clear error, not a wrong run. */
static void port_buffers_refuse_pfc(void **state)
{
    tl_world w;
    incast_world(&w, "gbn");
    assert_int_equal(tl_params_set(&w.sc.params, "switch.pfc", 1, NULL), 0);
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_null(s);
    assert_non_null(strstr(err.msg, "switch.port_buffer_bytes"));
    tl_world_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phantom_counter_drains_lazily),
        cmocka_unit_test(selective_repeat_resends_only_losses),
        cmocka_unit_test(wan_flows_wait_longer_timeouts),
        cmocka_unit_test(htsim_matrix_loads),
        cmocka_unit_test(htsim_matrix_errors),
        cmocka_unit_test(scenario_names_plugins),
        cmocka_unit_test(port_buffers_refuse_pfc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
