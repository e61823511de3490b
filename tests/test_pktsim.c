/* pktsim: closed forms (a lone flow's FCT is its ideal FCT to the
 * picosecond), fair sharing, conservation, determinism, bad configurations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/qpolicy/ecn.h"
#include "tailor/pktsim.h"
#include "tailor/spec.h"
#include "tailor/time.h"
#include "tailor/world.h"
#include "testutil.h"

/* The tests' scenarios: worlds built from JSON (tu_world_make). */
typedef tl_world world;

static void world_free(world *w) { tl_world_fini(w); }


#define FABRIC "{\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, \"hosts_per_rack\": 8, " \
               "\"planes\": 2, \"oversubscription\": 2}"

/* One flow at a time between a chosen pair, on an idle network. */
static tl_pktsim *lone_flow(world *w, uint32_t src, uint32_t dst, uint64_t size, const char *cc)
{
    w->flows.v[0].src = src;
    w->flows.v[0].dst = dst;
    w->flows.v[0].size_bytes = size;
    w->flows.n = 1;
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, cc, 1, &err);
    if (!s)
        fail_msg("create: %s", err.msg);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    return s;
}

/* Sizes that are whole packets (or below one), so every packet has the size
 * of the first and the store-and-forward pipeline is exactly the ideal
 * formula (docs/results.md). Hosts 0 -> 1 share a rack (2 hops), 0 -> 8 a pod
 * (4 hops), 0 -> 200 cross pods (6 hops). */
static void lone_flow_fct_is_ideal(void **state)
{
    static const struct {
        const char *name, *cc;
        uint32_t mtu, dst;
        uint64_t size;
    } cases[] = {
        {"1B 2hop", "dctcp", 1000, 1, 1},
        {"1000B 6hop", "dctcp", 1000, 200, 1000},
        {"100 pkts 4hop", "dctcp", 1000, 8, 100000},
        {"1000 pkts 6hop", "dctcp", 1000, 200, 1000000},
        {"mtu4096 6hop", "dctcp", 4096, 200, 4096 * 300},
        {"rate 6hop", "dctcp-rate", 1000, 200, 2000000},
        {"rate mtu4096 2hop", "dctcp-rate", 4096, 1, 4096},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 1, \"classes\": [{\"sizes\": "
                 "{\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": {\"type\": "
                 "\"permutation\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                 "\"transport\": {\"cc\": \"%s\", \"nic\": {\"mtu_bytes\": %u}, \"dctcp\": "
                 "{\"initial_window_pkts\": 100000}, \"dctcp_rate\": {\"window_bytes\": \"100MB\"}}}",
                 cases[c].cc, cases[c].mtu);
        world w;
        tu_world_make(&w, json);
        tl_pktsim *s = lone_flow(&w, 0, cases[c].dst, cases[c].size, cases[c].cc);
        const tl_flow_result *r = tl_pktsim_results(s);
        if (r[0].fct_ps != r[0].ideal_ps || r[0].fct_ps <= 0)
            fail_msg("case %s: fct %lld ps, ideal %lld ps", cases[c].name, (long long)r[0].fct_ps,
                     (long long)r[0].ideal_ps);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* ACK coalescing: 1,000 packets acknowledged every 4 give 250 ACKs; the lone
 * flow still meets its ideal FCT (its window never binds). */
static void ack_coalescing(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 1, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": "
                      "{\"type\": \"permutation\"}, \"arrival\": {\"process\": "
                      "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"dctcp-rate\", \"nic\": "
                      "{\"ack_every_pkts\": 4}, \"dctcp_rate\": {\"window_bytes\": \"10MB\"}}}");
    tl_pktsim *s = lone_flow(&w, 0, 200, 1000000, "dctcp-rate");
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_data_pkts, 1000);
    assert_int_equal(st.n_ack_pkts, 250);
    const tl_flow_result *r = tl_pktsim_results(s);
    assert_int_equal(r[0].fct_ps, r[0].ideal_ps);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* Two 20 MB flows from different racks into one host share its 10 Gb/s link:
 * once converged each gets half, so both finish near 2 x 20 MB / 10 Gb/s. */
static void two_flows_share_a_bottleneck(void **state)
{
    static const char *const ccs[] = {"dctcp", "dctcp-rate"};
    for (int c = 0; c < 2; c++) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2, \"classes\": [{\"sizes\": "
                 "{\"dist\": \"fixed\", \"mean_bytes\": 20000000}, \"spatial\": {\"type\": "
                 "\"incast\", \"senders\": 2, \"destination\": 0}, \"arrival\": {\"process\": "
                 "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\"}}",
                 ccs[c]);
        world w;
        tu_world_make(&w, json);
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, ccs[c], 1, &err);
        assert_non_null(s);
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        const tl_flow_result *r = tl_pktsim_results(s);
        double want = 2 * 20e6 * 1.048 * 8 / 10e9 * 1e12; /* payload + headers at 10 Gb/s */
        for (int i = 0; i < 2; i++)
            if (fabs((double)r[i].fct_ps / want - 1) > 0.05)
                fail_msg("%s flow %d: fct %.1f us, fair share gives %.1f us", ccs[c], i,
                         r[i].fct_ps * 1e-6, want * 1e-6);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* Direct delivery (tl_pktsim_set_direct_port) on the incast's bottleneck,
 * leaf -> host 0 (channel 1): nothing queues there, but the packets are
 * still timed as a FIFO at 10 Gb/s, so the two 2 MB flows together take the
 * link's time for 4 MB (the last one finishes then, within 1%); nothing is
 * marked or dropped on it. A host -> switch channel is refused. */
static void direct_port_times_a_fifo(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 2000000}, "
                      "\"spatial\": {\"type\": \"incast\", \"senders\": 2, \"destination\": 0}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"dctcp-rate\"}}");
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp-rate", 1,
                                    &err);
    assert_non_null(s);
    assert_int_equal(tl_pktsim_set_direct_port(s, 0, &err), TL_EINVAL);
    tu_check_err("host to switch", &err, TL_EINVAL, "not a switch-to-host link", NULL);
    tl_pktsim_set_direct_acks(s, 1);
    assert_int_equal(tl_pktsim_set_direct_port(s, 1, &err), 0);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    const tl_flow_result *r = tl_pktsim_results(s);
    double last = (double)(r[0].fct_ps > r[1].fct_ps ? r[0].fct_ps : r[1].fct_ps);
    double want = 2 * 2e6 * 1.048 * 8 / 10e9 * 1e12;
    if (fabs(last / want - 1) > 0.01)
        fail_msg("last flow done at %.1f us, the link needs %.1f us", last * 1e-6, want * 1e-6);
    tl_port_stats ps;
    tl_pktsim_port_stats(s, 1, &ps);
    assert_int_equal(ps.bytes_tx, 2 * 2000 * 1048);
    assert_int_equal(ps.marks + ps.drops + ps.max_queue_bytes, 0);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* Direct through (tl_pktsim_set_direct_through) on the incast's last hop,
 * leaf -> host 0: packets are delivered when they would have arrived, so
 * the flows finish exactly as with the arrival events (both runs with
 * direct ACKs). Refused: the host's up-link (other channels reach the leaf
 * too), and a flow's first hop when it is the only flow but goes on over a
 * channel that is not a direct port. */
static void direct_through_skips_the_arrival(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 300000}, "
                      "\"spatial\": {\"type\": \"incast\", \"senders\": 2, \"destination\": 0}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"dctcp-rate\"}}");
    tl_flow_result r[2][2];
    for (int through = 0; through < 2; through++) {
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp-rate",
                                        1, &err);
        assert_non_null(s);
        tl_pktsim_set_direct_acks(s, 1);
        if (through) {
            assert_int_equal(tl_pktsim_set_direct_through(s, 0, &err), TL_EINVAL);
            tu_check_err("host up-link", &err, TL_EINVAL, "not only over channel 0", NULL);
            assert_int_equal(tl_pktsim_set_direct_through(s, 1, &err), 0);
        }
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        memcpy(r[through], tl_pktsim_results(s), sizeof r[through]);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
    }
    for (int i = 0; i < 2; i++)
        assert_int_equal(r[0][i].fct_ps, r[1][i].fct_ps);
    w.flows.n = 1;
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp-rate", 1,
                                    &err);
    assert_non_null(s);
    const uint32_t *path = tl_pktsim_flow_path(s, 0, &(int){0});
    assert_int_equal(tl_pktsim_set_direct_through(s, path[0], &err), TL_EINVAL);
    tu_check_err("first hop", &err, TL_EINVAL, "not a direct port", NULL);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* A host's round-robin ring losing a flow: flow A (1 packet) starts, flow B
 * (2 packets) starts 10 ns later from the same host while A's packet is on
 * the wire. When the NIC is free again A has sent everything and leaves the
 * ring from its head; the lap over the ring must still reach B. (Before the
 * fix the lap ended at the new head, B, without looking at it, no event was
 * left, and B never started: 1 of 20,000 default-scenario flows.) Both flows
 * must finish at their ideal FCT, B behind A's packet. */
static void ring_keeps_a_flow_behind_a_finished_head(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": "
                      "{\"type\": \"incast\", \"senders\": 2, \"destination\": 0}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}}");
    w.flows.v[0] = (tl_flow){.id = 0, .size_bytes = 591, .start_ps = 0, .src = 0, .dst = 1};
    w.flows.v[1] = (tl_flow){.id = 1, .size_bytes = 1937, .start_ps = 10000, .src = 0, .dst = 9};
    w.flows.n = 2;
    static const char *const ccs[] = {"dctcp", "dctcp-rate"};
    for (int c = 0; c < 2; c++) {
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, ccs[c], 1, &err);
        assert_non_null(s);
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        const tl_flow_result *r = tl_pktsim_results(s);
        for (int i = 0; i < 2; i++)
            if (r[i].fct_ps < r[i].ideal_ps || r[i].fct_ps > 2 * r[i].ideal_ps)
                fail_msg("%s flow %d: fct %lld ps, ideal %lld ps", ccs[c], i,
                         (long long)r[i].fct_ps, (long long)r[i].ideal_ps);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
    }
    world_free(&w);
}

/* 2,000 WebServer flows at 50% max load: every flow completes, every byte
 * sent is delivered, queues drain to zero, and a second run is identical. */
static void conservation_and_determinism(void **state)
{
    const char *json = "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2000, \"classes\": "
                       "[{\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": {\"type\": \"matrix\", "
                       "\"matrix\": \"B\"}, \"arrival\": {\"process\": \"lognormal\", \"sigma\": 2},"
                       " \"load\": {\"max_link_load\": 0.5}}]}, \"transport\": {\"cc\": "
                       "\"dctcp-rate\"}}";
    world w;
    tu_world_make(&w, json);
    tl_flow_result *first = NULL;
    for (int run = 0; run < 2; run++) {
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp-rate", 7, &err);
        assert_non_null(s);
        assert_int_equal(tl_pktsim_run(s, -1, NULL, &err), 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        uint64_t total = 0;
        for (size_t i = 0; i < w.flows.n; i++)
            total += w.flows.v[i].size_bytes;
        assert_int_equal(st.n_flows_done, w.flows.n);
        assert_int_equal(st.bytes_sent, total);
        assert_int_equal(st.bytes_delivered, total);
        for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++) {
            tl_port_stats ps;
            tl_pktsim_port_stats(s, c, &ps);
            assert_int_equal(ps.queue_bytes_now, 0);
        }
        const tl_flow_result *r = tl_pktsim_results(s);
        for (size_t i = 0; i < w.flows.n; i++)
            assert_true(r[i].fct_ps >= r[i].ideal_ps - 2 * 1000 * 1000); /* see docs: within a packet */
        if (run == 0) {
            first = malloc(w.flows.n * sizeof *first);
            memcpy(first, r, w.flows.n * sizeof *first);
        } else {
            assert_memory_equal(first, r, w.flows.n * sizeof *first);
        }
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
    }
    free(first);
    world_free(&w);
}

/* Marking decisions on constructed queue lengths: step at K = 30 KB, and RED
 * between 10 KB and 50 KB with pmax 0.2 (probability 0.2 x (q - 10K) / 40K). */
static void ecn_marks_where_it_should(void **state)
{
    static const struct {
        const char *name;
        uint64_t q, kmin, kmax;
        double pmax, u;
        int want;
    } cases[] = {
        {"step below", 29999, 30000, 30000, 1, 0.0, 0},
        {"step at K", 30000, 30000, 30000, 1, 0.0, 0},
        {"step above", 30001, 30000, 30000, 1, 0.999, 1},
        {"red below kmin", 10000, 10000, 50000, 0.2, 0.0, 0},
        {"red mid, u under p", 30000, 10000, 50000, 0.2, 0.0999, 1}, /* p = 0.1 */
        {"red mid, u over p", 30000, 10000, 50000, 0.2, 0.1001, 0},
        {"red at kmax", 50000, 10000, 50000, 0.2, 0.1999, 1},         /* p = 0.2 */
        {"red at kmax, u over", 50000, 10000, 50000, 0.2, 0.2001, 0},
        {"red above kmax", 50001, 10000, 50000, 0.2, 0.999, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (tl_ecn_should_mark(cases[i].q, cases[i].kmin, cases[i].kmax, cases[i].pmax,
                               cases[i].u) != cases[i].want)
            fail_msg("case %s", cases[i].name);
}

#define INCAST "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 4, \"spines\": 2, "   \
               "\"hosts_per_leaf\": 8}, \"workload\": {\"flows\": 16, \"classes\": [{\"sizes\": " \
               "{\"dist\": \"fixed\", \"mean_bytes\": 1000000}, \"spatial\": {\"type\": "      \
               "\"incast\", \"senders\": 16, \"destination\": 0}, \"arrival\": {\"process\": "   \
               "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"dctcp\", \"switch\": {\"pfc\": " \
               "1%s}}}"

/* Runs the INCAST scenario with `extra` switch keys under DCTCP into *w and
 * checks what every PFC case needs: all 16 flows done, nothing dropped. */
static tl_pktsim *run_incast(const char *extra, world *w)
{
    char json[2048];
    snprintf(json, sizeof json, INCAST, extra);
    tu_world_make(w, json);
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 16);
    assert_int_equal(st.n_drops, 0);
    return s;
}

/* The most any ingress held at its far-end switch (hosts' NICs never count
 * ingress bytes), and the pauses over all ports into *pauses. */
static uint64_t worst_ingress(const tl_pktsim *s, const world *w, uint64_t *pauses)
{
    uint64_t worst = 0;
    *pauses = 0;
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w->topo); c++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, c, &ps);
        *pauses += ps.n_pauses;
        if (ps.max_ingress_bytes > worst)
            worst = ps.max_ingress_bytes;
    }
    return worst;
}

/* 16-to-1 incast at 100 Gb/s (K = 300 KB): no drops with PFC, every flow
 * completes, and DCTCP holds the bottleneck's time-averaged queue in
 * [K/2, 2K]. Channel 1 is the first link's leaf -> host 0 direction. */
static void incast_with_pfc(void **state)
{
    world w;
    tl_pktsim *s = run_incast("", &w);
    tl_port_stats ps;
    assert_int_equal(tl_topo_chan_to(w.topo, 1), 0);
    tl_pktsim_port_stats(s, 1, &ps);
    if (ps.mean_queue_bytes < 150000 || ps.mean_queue_bytes > 600000)
        fail_msg("mean queue %.0f B outside [K/2, 2K] = [150000, 600000]", ps.mean_queue_bytes);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* With XOFF at 20 KB, pauses happen, nothing drops, and a pause stops the
 * upstream port within one link delay: what the switch holds from one
 * ingress never exceeds XOFF by more than what the upstream can send in the
 * round trip of the PAUSE (2 x 1 us at 100 Gb/s = 25,000 B) plus two packets. */
static void pfc_pauses_upstream_in_time(void **state)
{
    world w;
    tl_pktsim *s = run_incast(", \"pfc_xoff_bytes\": 20000, \"pfc_xon_bytes\": 10000", &w);
    uint64_t pauses, worst = worst_ingress(s, &w, &pauses);
    assert_true(pauses > 0);
    if (worst > 20000 + 25000 + 2 * 1048)
        fail_msg("an ingress held %llu B", (unsigned long long)worst);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* With PFC the RTO is nic.rto_lossless_ps (67 ms), not
 * nic.rto_ps: the incast with a 1 us nic.rto_ps, far below its round trips,
 * has no timeout; with the lossless RTO at 1 us it has, and still completes. */
static void pfc_takes_the_lossless_rto(void **state)
{
    for (int lossless = 0; lossless < 2; lossless++) {
        world w;
        char json[2048];
        snprintf(json, sizeof json, INCAST, "");
        tu_world_make(&w, json);
        tl_params_set(&w.sc.params, lossless ? "nic.rto_lossless_ps" : "nic.rto_ps", 1e6, NULL);
        tl_err err;
        tl_err_clear(&err);
        tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
        assert_non_null(s);
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        assert_int_equal(st.n_flows_done, 16);
        assert_int_equal(st.n_drops, 0);
        if (lossless ? st.n_timeouts == 0 : st.n_timeouts != 0)
            fail_msg("1 us %s: %llu timeouts", lossless ? "nic.rto_lossless_ps" : "nic.rto_ps",
                     (unsigned long long)st.n_timeouts);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* Dynamic PFC thresholds (switch.pfc_shift 3, as ns-3's HPCC fork): with a
 * 400 KB buffer an ingress may hold at most the free buffer / 8 < 50 KB, so
 * every ingress of a switch (all links 100 Gb/s) pauses below the fixed XOFF (100 KB),
 * at most 50 KB plus the PAUSE's round trip (25,000 B at 100 Gb/s) and two
 * packets; nothing drops and every flow completes (paused ingresses resume).
 * With the fixed thresholds the same incast lets an ingress hold more. */
static void pfc_dynamic_threshold(void **state)
{
    const uint64_t bound = 50000 + 25000 + 2 * 1048;
    uint64_t worst[2], pauses;
    for (int dyn = 0; dyn < 2; dyn++) {
        world w;
        tl_pktsim *s = run_incast(dyn ? ", \"buffer_bytes\": 400000, \"pfc_shift\": 3"
                                      : ", \"buffer_bytes\": 400000",
                                  &w);
        worst[dyn] = worst_ingress(s, &w, &pauses);
        if (dyn)
            assert_true(pauses > 0);
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
    if (worst[1] > bound)
        fail_msg("dynamic: an ingress held %llu B", (unsigned long long)worst[1]);
    if (worst[0] <= bound)
        fail_msg("fixed: the worst ingress held only %llu B: the case tests nothing",
                 (unsigned long long)worst[0]);
}

/* Lossless means lossless: with a 30 KB shared buffer, far below what 16
 * senders put in flight, the incast neither drops nor times out (run_incast)
 * under fixed thresholds (XOFF 100 KB, beyond the buffer, so only the
 * headroom pauses) or dynamic ones. The packets a full shared buffer could
 * not take went to the ingress headroom; without it they were dropped. */
static void pfc_headroom_keeps_a_small_buffer_lossless(void **state)
{
    for (int dyn = 0; dyn < 2; dyn++) {
        world w;
        tl_pktsim *s = run_incast(dyn ? ", \"buffer_bytes\": 30000, \"pfc_shift\": 3"
                                      : ", \"buffer_bytes\": 30000",
                                  &w);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        assert_int_equal(st.n_timeouts, 0);
        if (st.n_headroom_pkts == 0)
            fail_msg("%s thresholds: no packet used the headroom", dyn ? "dynamic" : "fixed");
        tl_pktsim_check_invariants(s);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* A direct port admits as a switch port would (tl_pktsim_set_direct_port):
 * INCAST's 16-to-1 without PFC and without marks (K out of reach), so only
 * drops slow DCTCP's windows, with leaf -> host 0 (channel 1) a direct port.
 * With a 100 KB buffer it drops, its backlog stays below dt_alpha /
 * (1 + dt_alpha) of the buffer (50 KB, 4 us at 100 Gb/s), and no round trip
 * exceeds the base one (about 8 us) by more than the switch queues on the way
 * can hold; every flow completes. Unbounded, the FIFO took every window the
 * senders grew. With PFC a direct port is refused: it cannot pause. */
static void direct_port_bounded_by_the_buffer(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 4, \"spines\": 2, "
                      "\"hosts_per_leaf\": 8}, \"workload\": {\"flows\": 16, \"classes\": "
                      "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 1000000}, "
                      "\"spatial\": {\"type\": \"incast\", \"senders\": 16, \"destination\": 0}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}, "
                      "\"transport\": {\"cc\": \"dctcp\", \"switch\": {\"buffer_bytes\": "
                      "100000, \"kmin_bytes_per_gbps\": 1e8, \"kmax_bytes_per_gbps\": 1e8}}}");
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    tl_pktsim_set_direct_acks(s, 1);
    assert_int_equal(tl_topo_chan_to(w.topo, 1), 0);
    assert_int_equal(tl_pktsim_set_direct_port(s, 1, &err), 0);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 16);
    tl_port_stats ps;
    tl_pktsim_port_stats(s, 1, &ps);
    assert_true(ps.drops > 0);
    print_message("direct port: %llu drops, longest round trip %.1f us\n",
                  (unsigned long long)ps.drops, st.rtt_max_ps * 1e-6);
    if (st.rtt_max_ps > 60e6)
        fail_msg("a round trip took %.1f us", st.rtt_max_ps * 1e-6);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
    /* the same incast with PFC on (INCAST's own switch keys) */
    char json[2048];
    snprintf(json, sizeof json, INCAST, "");
    tu_world_make(&w, json);
    s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    tl_pktsim_set_direct_acks(s, 1);
    assert_int_equal(tl_pktsim_set_direct_port(s, 1, &err), TL_EINVAL);
    tu_check_err("direct port with PFC", &err, TL_EINVAL, "faster than it sends", NULL);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* With PFC a direct port is allowed where it cannot queue: the 4-to-1
 * incast over a single spine (one host per leaf, one 100 Gb/s link per
 * leaf) reaches host 0 by the one spine -> leaf channel, no faster than
 * leaf -> host 0. There it changes no FCT (DCQCN,
 * whose CNPs and rate timers would show any shift), and it saves the
 * arrival events. With HPCC it is refused: it records no INT. */
static void direct_port_with_pfc_where_it_cannot_queue(void **state)
{
    (void)state;
    const char *json = "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 5, \"spines\": "
                       "1, \"hosts_per_leaf\": 1, \"host_link_bps\": \"100Gbps\", "
                       "\"fabric_link_bps\": \"100Gbps\"}, \"workload\": {\"flows\": 4, \"classes\": "
                       "[{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": 300000}, \"spatial\": "
                       "{\"type\": \"incast\", \"senders\": 4, \"destination\": 0}, "
                       "\"arrival\": {\"process\": \"simultaneous\"}}]}, \"transport\": {\"cc\": "
                       "\"%s\"}}";
    char spec[1024];
    tl_flow_result r[2][4];
    uint64_t ev[2];
    world w;
    tl_err err;
    tl_err_clear(&err);
    snprintf(spec, sizeof spec, json, "dcqcn");
    tu_world_make(&w, spec);
    assert_true(tl_params_get(&w.sc.params, "switch.pfc") != 0);
    assert_int_equal(tl_topo_chan_to(w.topo, 1), 0);
    for (int direct = 0; direct < 2; direct++) {
        tl_pktsim *s =
            tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dcqcn", 1, &err);
        assert_non_null(s);
        tl_pktsim_set_direct_acks(s, 1);
        if (direct)
            assert_int_equal(tl_pktsim_set_direct_port(s, 1, &err), 0);
        assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        assert_int_equal(st.n_flows_done, 4);
        assert_true(st.n_cnps > 0); /* the spine's queue marks: DCQCN's loop is busy */
        ev[direct] = st.n_events;
        memcpy(r[direct], tl_pktsim_results(s), sizeof r[direct]);
        tl_pktsim_destroy(s);
    }
    if (memcmp(r[0], r[1], sizeof r[0]))
        fail_msg("a direct port that cannot queue changed an FCT under PFC");
    assert_true(ev[1] < ev[0]);
    world_free(&w);
    snprintf(spec, sizeof spec, json, "hpcc");
    tu_world_make(&w, spec);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "hpcc", 1, &err);
    assert_non_null(s);
    assert_int_equal(tl_pktsim_set_direct_port(s, 1, &err), TL_EINVAL);
    tu_check_err("direct port with PFC and INT", &err, TL_EINVAL, "INT", NULL);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* A watched direct port (tl_pktsim_set_direct_port_watched) where flows
 * come in four times faster than it sends, under DCQCN and PFC: while its
 * switch would not pause, it is the queue it stands for, byte for byte
 * with step marking (no random draw whose order could differ), with fewer
 * events, arrivals at the switch as events or through the spine's link;
 * where the queue would pause, the run stops with TL_EPAUSE. */
static void watched_direct_port_is_the_queue_until_it_would_pause(void **state)
{
    (void)state;
    const char *spec = "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 5, \"spines\": "
                       "1, \"hosts_per_leaf\": 1, \"host_link_bps\": \"25Gbps\", "
                       "\"fabric_link_bps\": \"100Gbps\"}, \"workload\": {\"flows\": 4, "
                       "\"classes\": [{\"sizes\": {\"dist\": \"fixed\", \"mean_bytes\": "
                       "300000}, \"spatial\": {\"type\": \"incast\", \"senders\": 4, "
                       "\"destination\": 0}, \"arrival\": {\"process\": \"simultaneous\"}}]}, "
                       "\"transport\": {\"cc\": \"dcqcn\"}}";
    world w;
    tl_err err;
    tl_err_clear(&err);
    tu_world_make(&w, spec);
    assert_true(tl_params_get(&w.sc.params, "switch.pfc") != 0);
    tl_params_set(&w.sc.params, "switch.kmax_bytes_per_gbps",
                  tl_params_get(&w.sc.params, "switch.kmin_bytes_per_gbps"), NULL);
    tl_params_set(&w.sc.params, "switch.pfc_shift", 0, NULL); /* fixed thresholds, set below */
    uint32_t leaf = tl_topo_chan_from(w.topo, 1), in = UINT32_MAX;
    assert_int_equal(tl_topo_chan_to(w.topo, 1), 0);
    for (uint32_t c = 0; c < 2 * tl_topo_n_links(w.topo); c++)
        if (tl_topo_chan_to(w.topo, c) == leaf && tl_topo_node(w.topo, tl_topo_chan_from(w.topo, c))
                                                          ->kind == TL_NODE_SWITCH)
            in = c;
    assert_int_not_equal(in, UINT32_MAX);
    tl_flow_result r[3][4];
    uint64_t ev[3], marks[3];
    for (int high = 1; high >= 0; high--) { /* PFC thresholds out of reach, then the preset's */
        if (high) {
            tl_params_set(&w.sc.params, "switch.pfc_xoff_bytes", 4e6, NULL);
            tl_params_set(&w.sc.params, "switch.pfc_xon_bytes", 3e6, NULL);
        } else {
            tl_params_set(&w.sc.params, "switch.pfc_xoff_bytes", 1e5, NULL);
            tl_params_set(&w.sc.params, "switch.pfc_xon_bytes", 8e4, NULL);
        }
        for (int mode = 0; mode < 3; mode++) { /* queue; watched; watched, through */
            tl_pktsim *s =
                tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dcqcn", 1, &err);
            assert_non_null(s);
            tl_pktsim_set_direct_acks(s, 1);
            if (mode)
                assert_int_equal(tl_pktsim_set_direct_port_watched(s, 1, &err), 0);
            if (mode == 2)
                assert_int_equal(tl_pktsim_set_direct_through(s, in, &err), 0);
            int rc = tl_pktsim_run(s, 0, NULL, &err);
            tl_pktsim_stats st;
            tl_pktsim_get_stats(s, &st);
            if (!high && mode) {
                assert_int_equal(rc, TL_EPAUSE);
                tu_check_err("watched direct port", &err, TL_EPAUSE, "would pause", NULL);
                tl_pktsim_destroy(s);
                continue;
            }
            assert_int_equal(rc, 0);
            assert_int_equal(st.n_flows_done, 4);
            tl_port_stats ps;
            tl_pktsim_port_stats(s, in, &ps);
            if (!high) /* the queue does pause there */
                assert_true(ps.n_pauses > 0);
            else
                assert_int_equal(ps.n_pauses, 0);
            ev[mode] = st.n_events;
            marks[mode] = st.n_marks;
            memcpy(r[mode], tl_pktsim_results(s), sizeof r[mode]);
            tl_pktsim_destroy(s);
        }
        if (!high)
            break;
        assert_true(marks[0] > 100); /* the leaf's queue marks: DCQCN's loop is busy */
        for (int mode = 1; mode < 3; mode++) {
            if (memcmp(r[0], r[mode], sizeof r[0]) || marks[mode] != marks[0])
                fail_msg("mode %d: a watched direct port changed an FCT or a mark", mode);
            assert_true(ev[mode] < ev[mode - 1]);
        }
    }
    world_free(&w);
}

typedef struct knob_probe {
    int64_t change_at_ps;
    uint64_t marks_before, marks_at_change;
    int n_calls;
} knob_probe;

/* Before change_at: no mark may exist (kmin is out of reach); at change_at
 * the threshold drops to DCTCP's 3 KB per Gb/s. */
static int knob_control(void *ctx, tl_pktsim *s, int64_t now)
{
    knob_probe *k = ctx;
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    k->n_calls++;
    if (now < k->change_at_ps)
        k->marks_before = st.n_marks;
    if (now == k->change_at_ps) {
        k->marks_at_change = st.n_marks;
        tl_pktsim_set_param(s, "switch.kmin_bytes_per_gbps", 3000, NULL);
        tl_pktsim_set_param(s, "switch.kmax_bytes_per_gbps", 3000, NULL);
    }
    return 0;
}

/* A knob changed by the run-time control takes effect then and not before. */
static void runtime_knob_change(void **state)
{
    char json[2048];
    snprintf(json, sizeof json, INCAST,
             ", \"kmin_bytes_per_gbps\": 1e8, \"kmax_bytes_per_gbps\": 1e8");
    world w;
    tu_world_make(&w, json);
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    knob_probe k = {.change_at_ps = 300 * 1000000LL};
    assert_int_equal(tl_pktsim_set_control(s, 100 * 1000000LL, knob_control, &k, &err), 0);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_true(k.n_calls >= 4);
    assert_int_equal(k.marks_before, 0);
    assert_int_equal(k.marks_at_change, 0);
    assert_true(st.n_marks > 0);
    assert_int_equal(st.n_flows_done, 16);
    /* A change that breaks a rule is refused and the old value stays. */
    tl_err_clear(&err);
    assert_int_equal(tl_pktsim_set_param(s, "switch.kmin_bytes_per_gbps", 9000, &err), TL_ERANGE);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* A link on a long flow's path fails mid-transfer: the packets on it are
 * dropped and counted, the flow moves to another path and still completes,
 * and a flow that starts later never uses the failed link. k = 4 fat tree,
 * host 0 -> host 4 (another pod). */
static void link_failure_reroutes(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": {\"type\": \"fat_tree\", \"k\": 4}, \"workload\": "
                      "{\"flows\": 2, \"classes\": [{\"sizes\": {\"dist\": \"fixed\", "
                      "\"mean_bytes\": 10000000}, \"spatial\": {\"type\": \"permutation\"}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}, \"transport\": "
                      "{\"cc\": \"dctcp\"}}");
    w.flows.v[0].src = 0;
    w.flows.v[0].dst = 4;
    w.flows.v[1].src = 1;
    w.flows.v[1].dst = 5;
    w.flows.v[1].size_bytes = 100000;
    w.flows.v[1].start_ps = 2000 * 1000000LL; /* 2 ms: after the failure */
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    int hops;
    const uint32_t *path = tl_pktsim_flow_path(s, 0, &hops);
    assert_int_equal(hops, 6);
    uint32_t victim = tl_chan_link(path[2]); /* aggregation -> core */
    assert_int_equal(tl_pktsim_fail_link(s, victim, 100 * 1000000LL, &err), 0);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 2);
    assert_true(st.n_fail_drops > 0);
    for (size_t i = 0; i < 2; i++) {
        path = tl_pktsim_flow_path(s, i, &hops);
        for (int h = 0; h < hops; h++)
            assert_int_not_equal(tl_chan_link(path[h]), victim);
    }
    const tl_flow_result *r = tl_pktsim_results(s);
    assert_true(r[0].fct_ps > r[0].ideal_ps); /* it lost packets and recovered */
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* n_hosts 10 Gb/s hosts on one switch (node n_hosts), host k's link with
 * delay_ps[k]. */
static tl_topo *star_topo(uint32_t n_hosts, const int64_t *delay_ps)
{
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = tl_topo_create(&err);
    assert_non_null(t);
    for (uint32_t k = 0; k < n_hosts; k++)
        assert_true(tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, &err) >= 0);
    assert_true(tl_topo_add_node(t, TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, &err) >= 0);
    for (uint32_t k = 0; k < n_hosts; k++)
        assert_true(tl_topo_add_link(t, k, n_hosts, 10000000000ull, delay_ps[k], &err) >= 0);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    return t;
}

/* The star of star_topo: flows f run through pktsim with cc and knobs p,
 * results in res (f->n flows) and, if st is not NULL, the run's counters
 * in *st. With ctrl_ps, the delay back to host k is ctrl_ps[k] where that
 * is not negative (tl_pktsim_set_ctrl_delays); with fab, the fabric's
 * references are those. */
static void star_pktsim_ctrl(uint32_t n_hosts, const int64_t *delay_ps, const int64_t *ctrl_ps,
                             const tl_fabric_ref *fab, const tl_flows *f, const tl_params *p,
                             const char *cc, tl_flow_result *res, tl_pktsim_stats *st)
{
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = star_topo(n_hosts, delay_ps);
    tl_routes *r = tl_routes_create(t, 1, &err);
    assert_non_null(r);
    tl_pktsim *s = tl_pktsim_create_opts(t, r, f, p, &(tl_pktsim_opts){.cc = cc, .fabric = fab},
                                         1, &err);
    assert_non_null(s);
    for (uint32_t k = 0; ctrl_ps && k < n_hosts; k++) {
        uint32_t back = 2 * k + 1; /* switch -> host k */
        if (ctrl_ps[k] >= 0)
            assert_int_equal(tl_pktsim_set_ctrl_delays(s, &back, &ctrl_ps[k], 1, &err), 0);
    }
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    memcpy(res, tl_pktsim_results(s), f->n * sizeof *res);
    if (st)
        tl_pktsim_get_stats(s, st);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

static void star_pktsim(uint32_t n_hosts, const int64_t *delay_ps, const tl_flows *f,
                        const tl_params *p, const char *cc, tl_flow_result *res,
                        tl_pktsim_stats *st)
{
    star_pktsim_ctrl(n_hosts, delay_ps, NULL, NULL, f, p, cc, res, st);
}

/* A star of six 10 Gb/s sources and one destination (host 6) on one
 * switch, two flows per source at a time, TIMELY (paced), run through
 * pktsim with the sources' links delay d and the last hop delay d
 * (is_lead 0), or with the sources' links without delay and the last hop
 * 2d (is_lead 1). Results in res (n flows). */
static void star_run(int is_lead, tl_flow_result *res, size_t n)
{
    int64_t d = 1000000, delay[7];
    for (int k = 0; k < 6; k++)
        delay[k] = is_lead ? 0 : d;
    delay[6] = is_lead ? 2 * d : d;
    tl_flows f;
    tl_flows_init(&f);
    f.v = calloc(n, sizeof *f.v);
    f.n = f.cap = n;
    for (size_t i = 0; i < n; i++) /* irregular sizes and starts: no ties at the switch */
        f.v[i] = (tl_flow){.id = i, .size_bytes = 3000 + (i * 7919 % 61) * 1013,
                           .start_ps = (int64_t)(i / 12) * 300000000 + (int64_t)(i % 12) * 137011, .src = (uint32_t)(i % 6), .dst = 6};
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    star_pktsim(7, delay, &f, &p, "timely", res, NULL);
    tl_params_fini(&p);
    free(f.v);
}

/* A NIC on a link without delay delivers its packet on its own
 * transmit-done event (no arrival event). Moving the sources' common delay
 * past the switch shifts every arrival there equally, so every flow's FCT
 * must stay the same. (With ECN-marking CCs it does not exactly: a quarter
 * of the flows move by up to 7%, with or without the shared event, probably
 * because an arrival and a departure at the switch at the same picosecond
 * come in insertion order, which the shift changes, and move a mark.) */
static void delay_free_nic_link(void **state)
{
    (void)state;
    size_t n = 60, n_slowed = 0;
    tl_flow_result a[60], b[60];
    star_run(0, a, n);
    star_run(1, b, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i].fct_ps > 0);
        n_slowed += a[i].fct_ps > 2 * a[i].ideal_ps;
        if (a[i].fct_ps != b[i].fct_ps || a[i].ideal_ps != b[i].ideal_ps)
            fail_msg("flow %zu: FCT %lld ps with the delay before the switch, %lld ps after it",
                     i, (long long)a[i].fct_ps, (long long)b[i].fct_ps);
    }
    assert_true(n_slowed > n / 4); /* the flows share the last hop and are paced */
}

/* A source's clock run late by its link's delay d (Parsimon's link
 * simulations, docs/parsimon.md): its flows start d late, its link has no
 * delay forward and 2d back for the ACKs (tl_pktsim_set_ctrl_delays). Every
 * time at the switch and past it stays, so each FCT and its ideal lose d
 * exactly: under TIMELY (paced, its RTT read from the ACKs) with flows that
 * overlap, and under dctcp-rate and HPCC with a T per flow (its window is
 * the flow's base RTT's BDP, which counts the delay back) with flows one
 * at a time, where no two packets
 * reach the switch at one time (there simultaneous arrivals can come in
 * another order and move an ECN mark, as in delay_free_nic_link). A data
 * channel is refused. */
static void source_clock_shift_keeps_the_network_times(void **state)
{
    (void)state;
    enum { N = 60 };
    int64_t delay[7], zero[7], ctrl[7];
    for (int k = 0; k < 6; k++) {
        delay[k] = 300000 + 237000 * k; /* 0.3 to 1.5 us, all different */
        zero[k] = 0;
        ctrl[k] = 2 * delay[k];
    }
    delay[6] = zero[6] = 1000000;
    ctrl[6] = -1;
    static const char *const cc[3] = {"timely", "dctcp-rate", "hpcc"};
    for (int c = 0; c < 3; c++) {
        tl_flows f, g;
        tl_flows_init(&f);
        tl_flows_init(&g);
        f.v = calloc(N, sizeof *f.v);
        g.v = calloc(N, sizeof *g.v);
        f.n = f.cap = g.n = g.cap = N;
        size_t perm[N]; /* g.v[j] is f.v[perm[j]], by shifted start */
        for (size_t i = 0; i < N; i++) {
            f.v[i] = (tl_flow){.id = i, .size_bytes = 3000 + (i * 7919 % 61) * 1013,
                               .start_ps = c ? (int64_t)i * 300000000
                                             : (int64_t)(i / 12) * 300000000 +
                                                   (int64_t)(i % 12) * 137011,
                               .src = (uint32_t)(i % 6), .dst = 6};
            perm[i] = i;
        }
        for (size_t i = 1; i < N; i++) /* insertion sort by shifted start */
            for (size_t j = i; j > 0; j--) {
                const tl_flow *a = &f.v[perm[j - 1]], *b = &f.v[perm[j]];
                if (a->start_ps + delay[a->src] <= b->start_ps + delay[b->src])
                    break;
                size_t x = perm[j];
                perm[j] = perm[j - 1];
                perm[j - 1] = x;
            }
        for (size_t j = 0; j < N; j++) {
            g.v[j] = f.v[perm[j]];
            g.v[j].start_ps += delay[g.v[j].src];
        }
        tl_params p;
        assert_int_equal(tl_params_init(&p, NULL), 0);
        if (c == 2) /* T, the window's round trip, is the flow's base RTT */
            tl_params_set(&p, "hpcc.per_flow_t", 1, NULL);
        tl_flow_result a[N], b[N];
        tl_fabric_ref fab; /* the network's, as Parsimon passes them */
        tl_topo *t = star_topo(7, delay);
        assert_int_equal(tl_fabric_ref_of(t, 1000, &fab, NULL), 0);
        tl_topo_destroy(t);
        star_pktsim_ctrl(7, delay, NULL, &fab, &f, &p, cc[c], a, NULL);
        star_pktsim_ctrl(7, zero, ctrl, &fab, &g, &p, cc[c], b, NULL);
        for (size_t j = 0; j < N; j++) {
            const tl_flow_result *x = &a[perm[j]], *y = &b[j];
            int64_t d = delay[g.v[j].src];
            assert_true(x->fct_ps > 0);
            if (y->fct_ps != x->fct_ps - d || y->ideal_ps != x->ideal_ps - d)
                fail_msg("%s, flow %zu: FCT %lld and ideal %lld ps, shifted by %lld ps: %lld "
                         "and %lld", cc[c], perm[j], (long long)x->fct_ps,
                         (long long)x->ideal_ps, (long long)d, (long long)y->fct_ps,
                         (long long)y->ideal_ps);
        }
        tl_params_fini(&p);
        free(f.v);
        free(g.v);
    }
    /* host 6's link carries the data: refused */
    tl_err err;
    tl_err_clear(&err);
    tl_flows f;
    tl_flows_init(&f);
    f.v = calloc(1, sizeof *f.v);
    f.n = f.cap = 1;
    f.v[0] = (tl_flow){.id = 0, .size_bytes = 1000, .src = 0, .dst = 1};
    tl_topo *t = tl_topo_create(&err);
    for (int k = 0; k < 3; k++)
        assert_true(tl_topo_add_node(t, k < 2 ? TL_NODE_HOST : TL_NODE_SWITCH,
                                     k < 2 ? 0 : TL_TIER_AUTO, -1, -1, 0, &err) >= 0);
    assert_true(tl_topo_add_link(t, 0, 2, 10000000000ull, 1000, &err) >= 0);
    assert_true(tl_topo_add_link(t, 1, 2, 10000000000ull, 1000, &err) >= 0);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    tl_routes *r = tl_routes_create(t, 1, &err);
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    tl_pktsim *s = tl_pktsim_create(t, r, &f, &p, "dctcp", 1, &err);
    assert_non_null(s);
    uint32_t data = 3; /* switch -> host 1 */
    int64_t two = 2000;
    assert_int_equal(tl_pktsim_set_ctrl_delays(s, &data, &two, 1, &err), TL_EINVAL);
    tu_check_err("control delay on a data channel", &err, TL_EINVAL, "sends its data", NULL);
    tl_pktsim_destroy(s);
    tl_params_fini(&p);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
    free(f.v);
}

/* A NIC whose only armed event is a paced flow's next send, far ahead, must
 * still send another flow's packets back to back: host 0 sends flow A, which
 * TIMELY has throttled to 100 Mb/s (a packet every 84 us), when flow B of
 * four packets starts from the same host to another one at line rate. B's
 * packets all leave before its first ACK can return, so B completes in its
 * ideal time, give or take one of A's packets on the wire. (A NIC that kept
 * its later event took B's next packet out only at A's next send or at B's
 * first ACK: four round trips.) */
static void paced_flow_does_not_hold_the_nic(void **state)
{
    (void)state;
    static const int64_t delay[3] = {1000000, 1000000, 1000000};
    tl_flows f;
    tl_flows_init(&f);
    f.v = calloc(2, sizeof *f.v);
    f.n = f.cap = 2;
    f.v[0] = (tl_flow){.id = 0, .size_bytes = 2000000, .start_ps = 0, .src = 0, .dst = 1};
    f.v[1] = (tl_flow){.id = 1, .size_bytes = 4000, .start_ps = 1000000000, .src = 0, .dst = 2};
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    /* every RTT above T_high: the rate falls by 80% per update to delta */
    tl_params_set(&p, "timely.t_low_ps", 1000, NULL);
    tl_params_set(&p, "timely.t_high_ps", 1000, NULL);
    tl_params_set(&p, "timely.delta_bps", 100e6, NULL);
    tl_flow_result res[2];
    star_pktsim(3, delay, &f, &p, "timely", res, NULL);
    assert_true(res[0].fct_ps > 50 * res[0].ideal_ps); /* A is paced slowly */
    if (res[1].fct_ps > res[1].ideal_ps + 1000000)
        fail_msg("flow B: FCT %lld ps, ideal %lld ps", (long long)res[1].fct_ps,
                 (long long)res[1].ideal_ps);
    tl_params_fini(&p);
    free(f.v);
}

/* A paced flow waits longer between two packets than the RTO with nothing
 * in flight: TIMELY throttled to 100 Mb/s sends a packet every 84 us, each
 * acknowledged within a few us, on a lossless star with a 20 us RTO. Its
 * timer must not fire between packets: no timeout, no packet sent twice.
 * (A timer left armed once the last packet in flight was acknowledged
 * counted a timeout and cut the rate again on every idle gap, which on
 * DCQCN's 1 Mb/s floor, 8 ms a packet, came to every 1 ms RTO.) */
static void idle_paced_flow_does_not_time_out(void **state)
{
    (void)state;
    static const int64_t delay[2] = {1000000, 1000000};
    tl_flows f;
    tl_flows_init(&f);
    f.v = calloc(1, sizeof *f.v);
    f.n = f.cap = 1;
    f.v[0] = (tl_flow){.id = 0, .size_bytes = 100000, .start_ps = 0, .src = 0, .dst = 1};
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    tl_params_set(&p, "timely.t_low_ps", 1000, NULL);
    tl_params_set(&p, "timely.t_high_ps", 1000, NULL);
    tl_params_set(&p, "timely.delta_bps", 100e6, NULL);
    tl_params_set(&p, "nic.rto_ps", 20e6, NULL);
    tl_flow_result res[1];
    tl_pktsim_stats st;
    star_pktsim(2, delay, &f, &p, "timely", res, &st);
    assert_true(res[0].fct_ps > 50 * res[0].ideal_ps); /* paced, gaps above the RTO */
    assert_int_equal(st.n_drops, 0);
    assert_int_equal(st.n_timeouts, 0);
    assert_int_equal(st.n_retx_pkts, 0);
    tl_params_fini(&p);
    free(f.v);
}

/* Sixteen one-packet flows into one host through a switch that holds two
 * packets, no PFC: most are dropped, and with no later packet to reveal the
 * gap only the RTO (1 ms) brings them back. Every flow completes, each drop
 * costs a timeout, and a flow that timed out took at least the RTO. */
static void lone_packet_drops_come_back_by_rto(void **state)
{
    (void)state;
    world w;
    tu_world_make(&w, "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 4, \"spines\": 2, "
                      "\"hosts_per_leaf\": 8}, \"workload\": {\"flows\": 16, \"classes\": [{\"sizes\": "
                      "{\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": {\"type\": "
                      "\"incast\", \"senders\": 16, \"destination\": 0}, \"arrival\": {\"process\": "
                      "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"dctcp\", \"switch\": "
                      "{\"buffer_bytes\": 2200}}}");
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err);
    assert_non_null(s);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 16);
    assert_true(st.n_drops > 0);
    assert_int_equal(st.n_timeouts, st.n_drops);
    const tl_flow_result *r = tl_pktsim_results(s);
    size_t n_late = 0;
    for (size_t i = 0; i < 16; i++)
        n_late += r[i].fct_ps > 1000 * 1000000LL;
    assert_true(n_late > 0 && n_late <= st.n_drops);
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    world_free(&w);
}

static void bad_configurations(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 1, \"classes\": [{\"sizes\": "
                      "{\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": {\"type\": "
                      "\"uniform\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}}");
    tl_err err;
    tl_err_clear(&err);
    assert_int_equal(tl_params_set(&w.sc.params, "switch.buffer_bytes", 1024, NULL), 0);
    assert_null(tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err));
    tu_check_err("buffer below one packet", &err, TL_ERANGE, "smaller than one packet", NULL);
    tl_params_set(&w.sc.params, "switch.buffer_bytes", 3e6, NULL);
    tl_params_set(&w.sc.params, "switch.kmin_bytes_per_gbps", 5000, NULL);
    tl_err_clear(&err);
    assert_null(tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err));
    tu_check_err("kmax below kmin", &err, TL_ERANGE, "kmax", NULL);
    tl_err_clear(&err);
    assert_int_equal(tl_params_set(&w.sc.params, "switch.kmin_bytes_per_gbps", -1, &err), TL_ERANGE);
    tl_params_set(&w.sc.params, "switch.kmin_bytes_per_gbps", 3000, NULL);
    tl_params_set(&w.sc.params, "switch.pfc", 1, NULL);
    tl_params_set(&w.sc.params, "switch.pfc_xon_bytes", 200000, NULL);
    tl_err_clear(&err);
    assert_null(tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp", 1, &err));
    tu_check_err("xon above xoff", &err, TL_ERANGE, "pfc_xon_bytes", "below");
    tl_err_clear(&err);
    assert_null(tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "cubic", 1, &err));
    tu_check_err("unknown cc", &err, TL_EINVAL, "cubic", NULL);
    world_free(&w);
}

/* Hosts 0 and 1 at 40 Gb/s and hosts 2 and 3 at 10 Gb/s on one switch,
 * 1 us links; flows f through dctcp-rate with waits recorded (or not):
 * results into res, each flow's waits at hops 0 and 1 into wt. */
static void waits_run(const tl_flows *f, int is_recorded, tl_flow_result *res, int64_t (*wt)[2])
{
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = tl_topo_create(&err);
    assert_non_null(t);
    for (int k = 0; k < 4; k++)
        assert_true(tl_topo_add_node(t, TL_NODE_HOST, 0, -1, -1, 0, &err) >= 0);
    assert_true(tl_topo_add_node(t, TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, &err) >= 0);
    for (uint32_t k = 0; k < 4; k++)
        assert_true(tl_topo_add_link(t, k, 4, k < 2 ? 40000000000ull : 10000000000ull, 1000000,
                                     &err) >= 0);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    tl_routes *r = tl_routes_create(t, 1, &err);
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    tl_pktsim *s = tl_pktsim_create(t, r, f, &p, "dctcp-rate", 1, &err);
    assert_non_null(s);
    assert_null(tl_pktsim_flow_waits(s, 0));
    if (is_recorded)
        assert_int_equal(tl_pktsim_record_waits(s, 2, &err), 0);
    assert_int_equal(tl_pktsim_record_waits(s, 0, &err), TL_ERANGE);
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    assert_int_equal(tl_pktsim_record_waits(s, 2, &err), TL_EINVAL); /* after the run */
    memcpy(res, tl_pktsim_results(s), f->n * sizeof *res);
    for (size_t i = 0; is_recorded && i < f->n; i++) {
        wt[i][0] = tl_pktsim_flow_waits(s, i)[0];
        wt[i][1] = tl_pktsim_flow_waits(s, i)[1];
    }
    tl_pktsim_destroy(s);
    tl_params_fini(&p);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

/* Recorded waits (tl_pktsim_record_waits) count what other flows cost a
 * flow's latest packet at a switch port, not its own packets: a lone flow
 * from a 40 Gb/s host queues behind itself at a 10 Gb/s last hop and waits
 * 0 there; two flows whose first packets reach a 10 Gb/s last hop at one
 * time: one of them waits one packet's transmission, and the one with two
 * packets always does (behind the other's packet either first or second);
 * a source never waits; recording leaves every FCT as it was. */
static void waits_count_other_flows_only(void **state)
{
    (void)state;
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    uint32_t mtu = (uint32_t)tl_knob(&p, TL_K_NIC_MTU_BYTES);
    uint32_t wire = mtu + (uint32_t)tl_knob(&p, TL_K_NIC_HEADER_BYTES);
    int64_t pkt10 = tl_tx_time_ps(wire, 10000000000ull);
    tl_params_fini(&p);
    tl_flows f;
    tl_flows_init(&f);
    tl_flow v[3] = {
        {.id = 0, .src = 0, .dst = 2, .size_bytes = 4 * (uint64_t)mtu, .start_ps = 0},
        /* two 10 Gb/s sources to host 2 at 1 ms: first packets meet there */
        {.id = 1, .src = 3, .dst = 2, .size_bytes = 2 * (uint64_t)mtu, .start_ps = 1000000000},
        {.id = 2, .src = 1, .dst = 2, .size_bytes = mtu, .start_ps = 1000000000},
    };
    f.v = v;
    f.n = f.cap = 3;
    /* host 1 runs at 40 Gb/s: start flow 2 so its packet meets flow 1's
     * first at the switch (both sources 1 us away) */
    v[2].start_ps += pkt10 - tl_tx_time_ps(wire, 40000000000ull);
    tl_flow_result a[3], b[3];
    int64_t wt[3][2];
    waits_run(&f, 1, a, wt);
    waits_run(&f, 0, b, NULL);
    for (int i = 0; i < 3; i++) {
        assert_true(a[i].fct_ps > 0);
        assert_int_equal(a[i].fct_ps, b[i].fct_ps);
        assert_int_equal(wt[i][0], 0);
    }
    assert_int_equal(a[0].fct_ps, a[0].ideal_ps); /* alone: its queue is its own */
    assert_int_equal(wt[0][1], 0);
    assert_int_equal(wt[1][1], pkt10);
    assert_true(wt[2][1] == 0 || wt[2][1] == pkt10);
}

/* Three 10 Gb/s senders (hosts 0-2) into one switch and on to host 3, 300 KB
 * each under DCTCP with PFC at a fixed XOFF of xoff bytes; with is_grouped
 * the senders' links count and pause as one ingress
 * (tl_pktsim_set_pfc_ingress). PAUSE frames per sender link into pauses. */
static void pfc_ingress_run(int is_grouped, uint64_t xoff, uint64_t pauses[3])
{
    int64_t delay[4] = {1000000, 1000000, 1000000, 1000000};
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = star_topo(4, delay);
    tl_routes *r = tl_routes_create(t, 1, &err);
    tl_flows f;
    tl_flows_init(&f);
    tl_flow v[3];
    for (uint32_t k = 0; k < 3; k++)
        v[k] = (tl_flow){.id = k, .src = k, .dst = 3, .size_bytes = 300000, .start_ps = 0};
    f.v = v;
    f.n = f.cap = 3;
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    tl_params_set(&p, "switch.pfc", 1, NULL);
    tl_params_set(&p, "switch.pfc_shift", 0, NULL);
    tl_params_set(&p, "switch.pfc_xoff_bytes", (double)xoff, NULL);
    tl_params_set(&p, "switch.pfc_xon_bytes", (double)xoff / 2, NULL);
    tl_pktsim *s = tl_pktsim_create(t, r, &f, &p, "dctcp", 1, &err);
    assert_non_null(s);
    /* channel 2k: host k -> switch */
    if (is_grouped) {
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 2, 0, &err), 0);
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 4, 0, &err), 0);
        /* refused: itself, a channel grouped already, as a grouped one, one
         * ending elsewhere */
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 0, 0, &err), TL_ERANGE);
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 2, 6, &err), TL_EINVAL);
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 6, 2, &err), TL_EINVAL);
        assert_int_equal(tl_pktsim_set_pfc_ingress(s, 1, 0, &err), TL_EINVAL);
    }
    assert_int_equal(tl_pktsim_run(s, 0, NULL, &err), 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_int_equal(st.n_flows_done, 3);
    assert_int_equal(st.n_drops, 0);
    for (uint32_t k = 0; k < 3; k++) {
        tl_port_stats ps;
        tl_pktsim_port_stats(s, 2 * k, &ps);
        pauses[k] = ps.n_pauses;
    }
    tl_pktsim_check_invariants(s);
    tl_pktsim_destroy(s);
    tl_params_fini(&p);
    tl_routes_destroy(r);
    tl_topo_destroy(t);
}

/* Channels counted as one ingress (tl_pktsim_set_pfc_ingress, Parsimon's
 * sources that share a channel into u): at a 20 KB XOFF, three senders
 * each hold too little at the switch to be paused, together enough; then
 * every PAUSE reaches all three. Bad groupings are refused. */
static void pfc_ingress_channels_count_as_one(void **state)
{
    (void)state;
    uint64_t apart[3], one[3];
    pfc_ingress_run(0, 20000, apart);
    pfc_ingress_run(1, 20000, one);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(apart[k], 0);
        assert_int_equal(one[k], one[0]);
    }
    assert_true(one[0] > 0); /* 30 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lone_flow_fct_is_ideal),
        cmocka_unit_test(ack_coalescing),
        cmocka_unit_test(two_flows_share_a_bottleneck),
        cmocka_unit_test(direct_port_times_a_fifo),
        cmocka_unit_test(direct_through_skips_the_arrival),
        cmocka_unit_test(direct_port_bounded_by_the_buffer),
        cmocka_unit_test(direct_port_with_pfc_where_it_cannot_queue),
        cmocka_unit_test(watched_direct_port_is_the_queue_until_it_would_pause),
        cmocka_unit_test(ring_keeps_a_flow_behind_a_finished_head),
        cmocka_unit_test(conservation_and_determinism),
        cmocka_unit_test(ecn_marks_where_it_should),
        cmocka_unit_test(incast_with_pfc),
        cmocka_unit_test(pfc_pauses_upstream_in_time),
        cmocka_unit_test(pfc_dynamic_threshold),
        cmocka_unit_test(pfc_headroom_keeps_a_small_buffer_lossless),
        cmocka_unit_test(pfc_takes_the_lossless_rto),
        cmocka_unit_test(runtime_knob_change),
        cmocka_unit_test(link_failure_reroutes),
        cmocka_unit_test(delay_free_nic_link),
        cmocka_unit_test(source_clock_shift_keeps_the_network_times),
        cmocka_unit_test(paced_flow_does_not_hold_the_nic),
        cmocka_unit_test(idle_paced_flow_does_not_time_out),
        cmocka_unit_test(lone_packet_drops_come_back_by_rto),
        cmocka_unit_test(waits_count_other_flows_only),
        cmocka_unit_test(pfc_ingress_channels_count_as_one),
        cmocka_unit_test(bad_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
