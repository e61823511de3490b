/* Every registered CC on one bottleneck (issue 44, "cc-fidelity"): a k = 8
 * fat tree at 10 and 100 Gb/s, long flows into host 0 from two 2-hop
 * senders, two 6-hop senders, one of each, a lone 6-hop sender, and a
 * 16-to-1 incast from other pods (bench/cc_probe.c measures; bench
 * bench_cc_fidelity prints the same figures). After convergence:
 *   - the bottleneck's utilization is at least the CC's design target minus
 *     5 points, the targets as issue 44 states them (HPCC: eta; the others:
 *     95%), and a lone flow reaches it;
 *   - each of two flows gets the share the CC's design predicts, within 10%
 *     of it (the table below names each split and its source);
 *   - in the incast, nothing is dropped, every sender gets its fair share
 *     within 35%, and the queue sits at the CC's operating point: DCQCN with
 *     the paper's timers (preset dcqcn.paper; NVIDIA's swing between idle and
 *     PFC), TIMELY once the line-rate start's PFC backlog has drained
 *     (docs/congestion-control.md gives the figures). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cc_probe.h"
#include "tailor/cc.h"
#include "tailor/params.h"
#include "tailor/pktsim.h"
#include "tailor/world.h"

#define MS 1000000000LL

/* How two flows of different round trips split a bottleneck. */
typedef enum {
    SPLIT_FAIR,      /* equal shares, whatever the RTTs */
    SPLIT_RTT1,      /* rate ~ 1/RTT: per-RTT additive steps on a rate */
    SPLIT_RTT2,      /* rate ~ 1/RTT^2: per-RTT additive steps on a window */
    SPLIT_SHORTER,   /* no unique split; the shorter RTT gets more */
} split_law;

/* What the incast's queue should look like. */
typedef enum {
    QUEUE_AT_K,      /* mean within [K/2, 3K/2], K the step-marking threshold */
    QUEUE_NEAR_ZERO, /* mean under ten packets */
    QUEUE_RED,       /* mean within [Kmin, Kmax], RED's marking range */
    QUEUE_BELOW_TLOW /* mean under T_low's worth of line rate */
} queue_law;

static const struct expect {
    const char *cc;
    double util_target; /* design target: the test asks for target - 0.05 */
    int64_t t1, t2;     /* after convergence */
    split_law mixed;    /* the 2-hop + 6-hop split */
    queue_law incast;
    const char *incast_preset; /* the incast's preset, or NULL for the CC's default */
    int64_t it1, it2;         /* the incast's window */
    const char *why;
} expect[] = {
    {"dctcp", 0.95, 5 * MS, 10 * MS, SPLIT_RTT2, QUEUE_AT_K, NULL, 5 * MS, 10 * MS,
     "window AIMD with marks seen together: windows grow one MSS per own RTT, so rates go as "
     "1/RTT^2 (Lakshman and Madhow, ToN 1997; DCTCP's paper does not claim RTT fairness)"},
    {"dctcp-rate", 0.95, 5 * MS, 10 * MS, SPLIT_RTT1, QUEUE_AT_K, NULL, 5 * MS, 10 * MS,
     "the HPCC fork's rate DCTCP adds ai once per batch (one RTT of data) and cuts once per "
     "RTT: rates go as 1/RTT"},
    {"dcqcn", 0.95, 5 * MS, 10 * MS, SPLIT_FAIR, QUEUE_RED, "dcqcn.paper",
     20 * MS, 30 * MS,
     "timer-driven increases and CNP-driven cuts do not depend on the RTT: fair (DCQCN paper "
     "§5; Zhu et al. CoNEXT'16: a unique, fair fixed point)"},
    {"timely", 0.95, 20 * MS, 30 * MS, SPLIT_SHORTER, QUEUE_BELOW_TLOW, NULL, 40 * MS, 50 * MS,
     "no unique fixed point (Zhu et al. CoNEXT'16 §4), and updates once per own RTT favour "
     "the shorter RTT; converges in tens of ms after a line-rate start"},
    {"hpcc", 0.95, 20 * MS, 30 * MS, SPLIT_FAIR, QUEUE_NEAR_ZERO, NULL, 5 * MS, 10 * MS,
     "one T for the fabric: every flow moves W/T by the same steps (HPCC paper §3.3, "
     "GLOBAL_T 1 in the ns-3 fork); fairness converges at W_AI per RTT, ~14 ms per e-fold at "
     "100 Gb/s"},
};

/* Unloaded round trip of an h-hop path on the probe's tree: propagation
 * both ways, a 1048-byte data packet and a 60-byte ACK serialized per hop
 * (nic.* defaults). */
static double base_rtt_s(int hops, int gbps)
{
    return hops * (2e-6 + (1048 + 60) * 8 / (gbps * 1e9));
}

static cc_probe_out probe(const struct expect *e, int gbps, int n, const uint32_t *src)
{
    int is_incast = n == 16;
    char knobs[128];
    snprintf(knobs, sizeof knobs, "\"preset\": \"%s\"", is_incast ? e->incast_preset : "");
    cc_probe_case c = {.cc = e->cc,
                       .gbps = gbps,
                       .n_src = n,
                       .knobs = is_incast && e->incast_preset ? knobs : NULL,
                       .t1_ps = is_incast ? e->it1 : e->t1,
                       .t2_ps = is_incast ? e->it2 : e->t2};
    for (int i = 0; i < n; i++)
        c.src[i] = src[i];
    cc_probe_out o;
    if (cc_probe_run(&c, &o))
        fail_msg("%s at %d Gb/s: the probe failed", e->cc, gbps);
    if (o.drops || o.timeouts)
        fail_msg("%s at %d Gb/s, %d senders: %llu drops, %llu timeouts", e->cc, gbps, n,
                 (unsigned long long)o.drops, (unsigned long long)o.timeouts);
    return o;
}

static void check_util(const struct expect *e, int gbps, const char *kind, const cc_probe_out *o)
{
    if (o->util < e->util_target - 0.05)
        fail_msg("%s at %d Gb/s, %s: utilization %.1f%%, below %.0f%% (target %.0f%% - 5)",
                 e->cc, gbps, kind, 100 * o->util, 100 * (e->util_target - 0.05),
                 100 * e->util_target);
}

static void check_share(const struct expect *e, int gbps, const char *kind, double got,
                        double want)
{
    if (fabs(got / want - 1) > 0.10)
        fail_msg("%s at %d Gb/s, %s: first flow's share %.1f%%, the design gives %.1f%% +- 10%%",
                 e->cc, gbps, kind, 100 * got, 100 * want);
}

/* The 2-hop flow's share under law l, RTTs taken with the measured queue. */
static double mixed_share(split_law l, int gbps, double q_bytes)
{
    double q_s = q_bytes * 8 / (gbps * 1e9);
    double r2 = base_rtt_s(2, gbps) + q_s, r6 = base_rtt_s(6, gbps) + q_s;
    double p = l == SPLIT_RTT2 ? 2 : l == SPLIT_RTT1 ? 1 : 0;
    double w2 = pow(r2, -p), w6 = pow(r6, -p);
    return w2 / (w2 + w6);
}

/* Knob name's value under the CC's default preset, then preset (if any):
 * the thresholds the switches and the CC run with. */
static double knob(const char *cc, const char *preset, const char *name)
{
    tl_params p;
    const char *base = tl_cc_lookup(cc)->default_preset;
    if (tl_params_init(&p, NULL) || (base && tl_params_apply_preset(&p, base, NULL)) ||
        (preset && tl_params_apply_preset(&p, preset, NULL)))
        fail_msg("%s: presets do not apply", cc);
    double v = tl_params_get(&p, name);
    tl_params_fini(&p);
    return v;
}

static void one_cc(const struct expect *e)
{
    static const uint32_t lone[] = {64}, same[] = {1, 2}, far[] = {64, 100}, mixed[] = {1, 64};
    static const uint32_t incast[] = {16, 23, 30, 37, 44, 51, 58, 65, 72, 79, 86, 93, 100, 107,
                                      114, 121};
    for (int g = 0; g < 2; g++) {
        int gbps = g ? 100 : 10;
        cc_probe_out o = probe(e, gbps, 1, lone);
        check_util(e, gbps, "a lone 6-hop flow", &o);
        o = probe(e, gbps, 2, same);
        check_util(e, gbps, "two 2-hop flows", &o);
        check_share(e, gbps, "two 2-hop flows", o.share[0], 0.5);
        o = probe(e, gbps, 2, far);
        check_util(e, gbps, "two 6-hop flows", &o);
        check_share(e, gbps, "two 6-hop flows", o.share[0], 0.5);
        o = probe(e, gbps, 2, mixed);
        check_util(e, gbps, "a 2-hop and a 6-hop flow", &o);
        if (e->mixed == SPLIT_SHORTER) {
            if (!(o.share[0] > 0.5))
                fail_msg("%s at %d Gb/s: the 2-hop flow has %.1f%%, not the larger share", e->cc,
                         gbps, 100 * o.share[0]);
        } else {
            check_share(e, gbps, "a 2-hop and a 6-hop flow", o.share[0],
                        mixed_share(e->mixed, gbps, o.q_mean));
        }
        /* the incast's utilization is not asserted: TIMELY's is 89-92% */
        o = probe(e, gbps, 16, incast);
        for (int i = 0; i < 16; i++)
            if (fabs(o.share[i] * 16 - 1) > 0.35)
                fail_msg("%s at %d Gb/s incast: sender %d has %.2f%%, the fair share is 6.25%% "
                         "+- 35%%", e->cc, gbps, i, 100 * o.share[i]);
        /* K (step marking) is Kmin; RED marks between Kmin and Kmax */
        double kmin = gbps * knob(e->cc, e->incast_preset, "switch.kmin_bytes_per_gbps");
        double kmax = gbps * knob(e->cc, e->incast_preset, "switch.kmax_bytes_per_gbps");
        if (e->incast == QUEUE_AT_K && (o.q_mean < kmin / 2 || o.q_mean > 1.5 * kmin))
            fail_msg("%s at %d Gb/s incast: mean queue %.1f KB, K is %.1f KB", e->cc, gbps,
                     o.q_mean / 1e3, kmin / 1e3);
        if (e->incast == QUEUE_RED && (o.q_mean < kmin || o.q_mean > kmax))
            fail_msg("%s at %d Gb/s incast: mean queue %.1f KB, outside [Kmin, Kmax] = [%.0f, "
                     "%.0f] KB", e->cc, gbps, o.q_mean / 1e3, kmin / 1e3, kmax / 1e3);
        /* T_low's worth of line rate */
        double q_tlow = knob(e->cc, e->incast_preset, "timely.t_low_ps") * 1e-12 * gbps * 1e9 / 8;
        if (e->incast == QUEUE_BELOW_TLOW && o.q_mean > q_tlow)
            fail_msg("%s at %d Gb/s incast: mean queue %.1f KB, above T_low's %.1f KB", e->cc,
                     gbps, o.q_mean / 1e3, q_tlow / 1e3);
        if (e->incast == QUEUE_NEAR_ZERO && o.q_mean > 10 * 1048)
            fail_msg("%s at %d Gb/s incast: mean queue %.1f KB, not near zero", e->cc, gbps,
                     o.q_mean / 1e3);
    }
}

static tl_fabric_ref ref_of_json(const char *topo)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"topology\": %s, \"workload\": {\"flows\": 2, \"classes\": [{\"sizes\": "
             "{\"dist\": \"fixed\", \"mean_bytes\": 1000}, \"spatial\": {\"type\": "
             "\"permutation\"}, \"arrival\": {\"process\": \"simultaneous\"}}]}}",
             topo);
    tl_world w;
    tl_err err;
    tl_err_clear(&err);
    if (tl_world_from_json(&w, json, 1, &err))
        fail_msg("%s", err.msg);
    tl_fabric_ref r;
    assert_int_equal(tl_fabric_ref_of(w.topo, 1000, &r, &err), 0);
    tl_world_fini(&w);
    return r;
}

/* The fabric references as the ns-3 HPCC fork computes maxRtt and maxBdp:
 * Parsimon's 32-rack fabric gives the 14.4 us and 18,000 B its runs pass
 * (../shared/notes/parsimon.md: --base_rtt 14400 --fwin 18000); a k = 8
 * tree at 100 Gb/s 12 us of propagation and six 80 ns serializations; and
 * of two equal-hop paths the slower one counts. */
static void fabric_references(void **state)
{
    (void)state;
    tl_fabric_ref r = ref_of_json(
        "{\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, \"hosts_per_rack\": 8, "
        "\"planes\": 2, \"oversubscription\": 2, \"host_link_bps\": \"10Gbps\", "
        "\"fabric_link_bps\": \"40Gbps\", \"link_delay_ns\": 1000}");
    assert_int_equal(r.rtt_ps, 14400000);
    assert_int_equal(r.bdp_bytes, 18000);
    assert_int_equal(r.nic_bps, 10000000000ull);
    r = ref_of_json("{\"type\": \"fat_tree\", \"k\": 8, \"host_link_bps\": \"100Gbps\", "
                    "\"fabric_link_bps\": \"100Gbps\", \"link_delay_ns\": 1000}");
    assert_int_equal(r.rtt_ps, 12480000);
    assert_int_equal(r.bdp_bytes, 156000);
    /* hosts 0 and 1 on switches 2 and 3, joined through switch 4 (1 us
     * links) and switch 5 (5 us links, 40 Gb/s): the slow path counts */
    tl_err err;
    tl_err_clear(&err);
    tl_topo *t = tl_topo_create(&err);
    for (int i = 0; i < 6; i++)
        tl_topo_add_node(t, i < 2 ? TL_NODE_HOST : TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, &err);
    tl_topo_add_link(t, 0, 2, 10000000000ull, 1000000, &err);
    tl_topo_add_link(t, 1, 3, 10000000000ull, 1000000, &err);
    tl_topo_add_link(t, 2, 4, 10000000000ull, 1000000, &err);
    tl_topo_add_link(t, 4, 3, 10000000000ull, 1000000, &err);
    tl_topo_add_link(t, 2, 5, 40000000000ull, 5000000, &err);
    tl_topo_add_link(t, 5, 3, 40000000000ull, 5000000, &err);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    assert_int_equal(tl_fabric_ref_of(t, 1000, &r, &err), 0);
    /* 2 x (1 + 5 + 5 + 1) us, two 800 ns and two 200 ns serializations */
    assert_int_equal(r.rtt_ps, 24000000 + 2 * 800000 + 2 * 200000);
    assert_int_equal(r.bdp_bytes, 32500);
    tl_topo_destroy(t);
    /* host 0 on switches 2 and 3, host 1 on 3 alone, 2 and 3 joined through
     * 4: the pair's path is 0-3-1 (routing takes the fewest hops), not the
     * four hops through 2 and 4 */
    t = tl_topo_create(&err);
    for (int i = 0; i < 5; i++)
        tl_topo_add_node(t, i < 2 ? TL_NODE_HOST : TL_NODE_SWITCH, TL_TIER_AUTO, -1, -1, 0, &err);
    static const uint32_t ends[][2] = {{0, 2}, {0, 3}, {1, 3}, {2, 4}, {4, 3}};
    for (int i = 0; i < 5; i++)
        tl_topo_add_link(t, ends[i][0], ends[i][1], 10000000000ull, 1000000, &err);
    assert_int_equal(tl_topo_finish(t, &err), 0);
    assert_int_equal(tl_fabric_ref_of(t, 1000, &r, &err), 0);
    assert_int_equal(r.rtt_ps, 2 * (2000000 + 800000));
    tl_topo_destroy(t);
}

/* A rate change moves a paced flow's pending send. DCQCN set to drop a
 * flow to 1 Mb/s at its first CNP: the gap after the packet sent at that
 * rate is 8.4 ms, but the increase timer raises the rate halfway back to
 * line rate 300 us later, and the flow must send at once at the new rate.
 * (With the gap fixed at send time, both flows were silent until 8.4 ms.) */
static void rate_change_moves_pending_send(void **state)
{
    (void)state;
    for (int g = 0; g < 2; g++) {
        cc_probe_case c = {.cc = "dcqcn", .gbps = g ? 100 : 10, .n_src = 2, .src = {1, 2},
                           .knobs = "\"dcqcn\": {\"rate_to_set_on_first_cnp_bps\": 1e6}",
                           .t1_ps = 1 * MS, .t2_ps = 5 * MS};
        cc_probe_out o;
        if (cc_probe_run(&c, &o))
            fail_msg("the probe failed");
        if (o.util < 0.85)
            fail_msg("%d Gb/s: utilization %.1f%% in 1-5 ms after flows fell to 1 Mb/s", c.gbps,
                     100 * o.util);
    }
}

/* The CCs built for Uno's two-DC network (issue 45), checked there by
 * test_uno rather than on this one-DC tree: their windows and phantom queues
 * are sized by an inter-DC BDP, and on a lone 10 Gb/s data center UnoCC's
 * additive step (0.1% of a 17 KB BDP per RTT) leaves a lone flow at 5% of
 * the line (docs/uno.md, "Limits"). */
static const char *const two_dc_ccs[] = {"uno", "gemini", "mprdma-bbr"};

/* The table covers every CC pktsim implements but the two-DC ones, and only
 * those. */
static void table_is_whole(void **state)
{
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < tl_cc_count(); i++) {
        const tl_cc_desc *d = tl_cc_get(i);
        int is_listed = 0, is_two_dc = 0;
        for (size_t j = 0; j < sizeof expect / sizeof *expect; j++)
            is_listed |= strcmp(expect[j].cc, d->name) == 0;
        for (size_t j = 0; j < sizeof two_dc_ccs / sizeof *two_dc_ccs; j++)
            is_two_dc |= strcmp(two_dc_ccs[j], d->name) == 0;
        if (d->ops && is_listed == is_two_dc)
            fail_msg("cc %s needs a row in test_cc_fidelity's table or in two_dc_ccs, not both",
                     d->name);
        n += d->ops != NULL && !is_two_dc;
    }
    assert_int_equal(n, sizeof expect / sizeof *expect);
}

#define CC_TEST(fn, i)                                                                             \
    static void fn(void **state)                                                                   \
    {                                                                                              \
        (void)state;                                                                               \
        one_cc(&expect[i]);                                                                        \
    }
CC_TEST(dctcp, 0)
CC_TEST(dctcp_rate, 1)
CC_TEST(dcqcn, 2)
CC_TEST(timely, 3)
CC_TEST(hpcc, 4)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fabric_references), cmocka_unit_test(rate_change_moves_pending_send),
        cmocka_unit_test(table_is_whole), cmocka_unit_test(dctcp),  cmocka_unit_test(dctcp_rate),
        cmocka_unit_test(dcqcn),          cmocka_unit_test(timely), cmocka_unit_test(hpcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
