/* RDMA congestion controls in pktsim (DCQCN, TIMELY, HPCC) and the DCTCP
 * variants: control laws on synthetic feedback, fairness, incast, queue
 * behaviour against the switch knobs, run-time knob changes, and deadlock
 * freedom with PFC. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktsim/cc.h"
#include "tailor/cc.h"
#include "tailor/pktsim.h"
#include "tailor/spec.h"
#include "tailor/tune.h"
#include "tailor/world.h"
#include "testutil.h"

/* The tests' scenarios: worlds built from JSON (tu_world_make). */
typedef tl_world world;

static void world_free(world *w) { tl_world_fini(w); }


static tl_pktsim *run(world *w, const tl_pktsim_control_fn ctl, void *ctx, int64_t every_ps)
{
    tl_err err;
    tl_err_clear(&err);
    tl_pktsim *s = tl_pktsim_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, 1, &err);
    if (!s)
        fail_msg("create: %s", err.msg);
    if (ctl)
        assert_int_equal(tl_pktsim_set_control(s, every_ps, ctl, ctx, &err), 0);
    if (tl_pktsim_run(s, 0, NULL, &err) != 0)
        fail_msg("run: %s", err.msg);
    return s;
}

/* ---- control laws on synthetic feedback ---- */

static tl_params params_default(void)
{
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    return p;
}

/* TIMELY: the rate falls while the RTT is above T_high and rises while it is
 * below T_low (one update per window of data: every ACK here passes snd_nxt). */
static void timely_follows_rtt(void **state)
{
    tl_params p = params_default();
    unsigned char st[256] = {0};
    assert_true(tl_cc_find("timely")->state_bytes <= sizeof st);
    tl_cc_io io = {.cwnd_bytes = UINT64_MAX, .line_bps = 100000000000ull, .mss_bytes = 1000,
                   .base_rtt_ps = 10000000};
    assert_int_equal(tl_cc_find("timely")->init(st, &io, &p, NULL), 0);
    uint64_t seq = 0, prev = io.rate_bps;
    for (int i = 0; i < 20; i++) { /* RTT 800 us > T_high = 500 us */
        io.snd_nxt = seq + 1000;
        tl_ack_info a = {.ack_seq = seq + 1000, .newly_acked = 1000, .rtt_ps = 800000000};
        tl_cc_find("timely")->on_ack(st, &io, &a);
        seq += 1000;
        if (i > 0 && io.rate_bps >= prev)
            fail_msg("update %d: rate %llu did not fall below %llu", i,
                     (unsigned long long)io.rate_bps, (unsigned long long)prev);
        prev = io.rate_bps;
    }
    for (int i = 0; i < 20; i++) { /* RTT 20 us < T_low = 50 us */
        io.snd_nxt = seq + 1000;
        tl_ack_info a = {.ack_seq = seq + 1000, .newly_acked = 1000, .rtt_ps = 20000000};
        tl_cc_find("timely")->on_ack(st, &io, &a);
        seq += 1000;
        if (i > 0 && io.rate_bps <= prev)
            fail_msg("low update %d: rate %llu did not rise above %llu", i,
                     (unsigned long long)io.rate_bps, (unsigned long long)prev);
        prev = io.rate_bps;
    }
    tl_params_fini(&p);
}

/* DCQCN: a CNP cuts the rate (alpha ~ 1 at start: by half); then, with
 * rpg_threshold 5, five timer events of fast recovery (target fixed, current
 * halfway to it each time: the stage counts the events before, as the HPCC
 * fork's), timer events of additive increase (target + ai_rate), and once
 * the byte counter has passed the threshold too, hyper increase (target +
 * i x hai_rate). */
static void dcqcn_cut_and_recovery_stages(void **state)
{
    tl_params p = params_default();
    tl_params_set(&p, "dcqcn.rpg_threshold", 5, NULL);
    tl_params_set(&p, "dcqcn.rpg_byte_reset_bytes", 10000, NULL);
    unsigned char st[512] = {0};
    assert_true(tl_cc_find("dcqcn")->state_bytes <= sizeof st);
    const double line = 100e9;
    tl_cc_io io = {.cwnd_bytes = UINT64_MAX, .line_bps = (uint64_t)line, .mss_bytes = 1000,
                   .base_rtt_ps = 10000000, .now_ps = 0};
    assert_int_equal(tl_cc_find("dcqcn")->init(st, &io, &p, NULL), 0);
    assert_true(io.rate_bps == (uint64_t)line);
    io.now_ps = 1000000;
    tl_cc_find("dcqcn")->on_cnp(st, &io);
    double rc = (double)io.rate_bps;
    /* alpha = 1023/1024 folded over one 1 us period without CNP: 1019/1024 x 1023/1024 */
    double alpha = 1023.0 / 1024 * 1019.0 / 1024;
    if (fabs(rc / (line * (1 - alpha / 2)) - 1) > 1e-6)
        fail_msg("cut to %.0f, want %.0f", rc, line * (1 - alpha / 2));
    assert_true(io.timer_at_ps == 1000000 + 300000000);
    double rt = line; /* first cut: target = rate before the cut */
    for (int i = 1; i <= 5; i++) {
        io.now_ps = io.timer_at_ps;
        tl_cc_find("dcqcn")->on_timer(st, &io);
        rc = (rt + rc) / 2;
        if (fabs((double)io.rate_bps / rc - 1) > 1e-9)
            fail_msg("fast recovery %d: rate %llu, want %.0f", i, (unsigned long long)io.rate_bps, rc);
    }
    /* rate is now within 1/32 of line: to see increases, restart below from a deep cut */
    tl_params_set(&p, "dcqcn.rate_to_set_on_first_cnp_bps", 10e9, NULL);
    tl_params_set(&p, "dcqcn.clamp_tgt_rate", 1, NULL); /* target := rate at every cut */
    memset(st, 0, sizeof st);
    io.now_ps = 0;
    assert_int_equal(tl_cc_find("dcqcn")->init(st, &io, &p, NULL), 0);
    tl_cc_find("dcqcn")->on_cnp(st, &io); /* first CNP: rate 10 Gb/s, target stays at line */
    assert_true(io.rate_bps == 10000000000ull);
    tl_cc_find("dcqcn")->on_cnp(st, &io); /* within the monitor period: ignored */
    assert_true(io.rate_bps == 10000000000ull);
    io.now_ps = 10000000;
    tl_cc_find("dcqcn")->on_cnp(st, &io); /* a real cut: the target clamps to 10 Gb/s */
    rc = (double)io.rate_bps;
    rt = 10e9;
    assert_true(rc < 10e9);
    for (int i = 1; i <= 5; i++) { /* fast recovery: stages 0..4 < 5 */
        io.now_ps = io.timer_at_ps;
        tl_cc_find("dcqcn")->on_timer(st, &io);
        rc = (rt + rc) / 2;
    }
    assert_true(fabs((double)io.rate_bps / rc - 1) < 1e-9);
    for (int i = 6; i <= 8; i++) { /* additive: time stage >= 5, byte stage 0 <= 5 */
        io.now_ps = io.timer_at_ps;
        tl_cc_find("dcqcn")->on_timer(st, &io);
        rt += 5e6;
        rc = (rt + rc) / 2;
        if (fabs((double)io.rate_bps / rc - 1) > 1e-9)
            fail_msg("additive %d: rate %llu, want %.0f", i, (unsigned long long)io.rate_bps, rc);
    }
    /* byte events at byte stages 0..5 are additive (lo <= 5), at 6 and 7 hyper
     * (lo = 6, 7 > 5; the time stage is 8) */
    for (int b = 0; b <= 7; b++) {
        tl_ack_info a = {.newly_acked = 10000};
        tl_cc_find("dcqcn")->on_ack(st, &io, &a);
        uint32_t lo = (uint32_t)b;
        rt += lo > 5 ? (lo - 5) * 50e6 : 5e6;
        rc = (rt + rc) / 2;
        if (fabs((double)io.rate_bps / rc - 1) > 1e-9)
            fail_msg("byte event %d: rate %llu, want %.0f", b, (unsigned long long)io.rate_bps, rc);
    }
    tl_params_fini(&p);
}

/* ---- in the simulator ---- */

#define FABRIC "{\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, \"hosts_per_rack\": 8, " \
               "\"planes\": 2, \"oversubscription\": 2}"

/* The table tests run every CC pktsim implements, from the registry. */
#define FOR_EACH_CC(d)                                                                       \
    for (size_t cc_i_ = 0; cc_i_ < tl_cc_count(); cc_i_++)                                   \
        for (const tl_cc_desc *d = tl_cc_get(cc_i_); d; d = NULL)                            \
            if (d->ops)

/* Two 20 MB flows into one 10 Gb/s host link: each converges to half, so
 * they finish within 10% of each other, and, for DCQCN and HPCC, within 10% of
 * 2 x 20 MB / 10 Gb/s. TIMELY shares fairly but leaves the link partly idle
 * (its gradient cuts overshoot and its additive increase is slow, as "ECN or
 * Delay" (Zhu et al. CoNEXT'16) analyses): it is held to 80% utilization.
 * DCQCN gets 15%: under the dynamic PFC thresholds of its preset no PAUSE
 * evens the two senders out, and NVIDIA's 5 Mb/s additive increase leaves
 * them up to about 11% apart after 33 ms (a fixed 100 KB XOFF paused them
 * into step). */
static void two_flows_fair(void **state)
{
    FOR_EACH_CC(d) {
        if (!d->default_preset)
            continue; /* the lossless (RDMA) CCs: the DCTCPs' windows split unevenly here */
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 2, \"classes\": [{\"sizes\": "
                 "{\"dist\": \"fixed\", \"mean_bytes\": 20000000}, \"spatial\": {\"type\": "
                 "\"incast\", \"senders\": 2, \"destination\": 0}, \"arrival\": {\"process\": "
                 "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\"}}",
                 d->name);
        world w;
        tu_world_make(&w, json);
        tl_pktsim *s = run(&w, NULL, NULL, 0);
        const tl_flow_result *r = tl_pktsim_results(s);
        double want = 2 * 20e6 * 1.048 * 8 / 10e9 * 1e12;
        double tol = d->id == TL_CC_TIMELY ? 0.25 : d->id == TL_CC_DCQCN ? 0.15 : 0.10;
        for (int i = 0; i < 2; i++)
            if (fabs((double)r[i].fct_ps / want - 1) > tol)
                fail_msg("%s flow %d: fct %.1f us, fair share gives %.1f us", d->name, i,
                         r[i].fct_ps * 1e-6, want * 1e-6);
        if (fabs((double)r[0].fct_ps / (double)r[1].fct_ps - 1) > (tol < 0.15 ? tol : 0.15))
            fail_msg("%s: unfair split, fct %.1f vs %.1f us", d->name, r[0].fct_ps * 1e-6,
                     r[1].fct_ps * 1e-6);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

#define INCAST "{\"topology\": {\"type\": \"leaf_spine\", \"leaves\": 4, \"spines\": 2, "     \
               "\"hosts_per_leaf\": 8}, \"workload\": {\"flows\": 16, \"classes\": [{\"sizes\": " \
               "{\"dist\": \"fixed\", \"mean_bytes\": 1000000}, \"spatial\": {\"type\": "         \
               "\"incast\", \"senders\": 16, \"destination\": 0}, \"arrival\": {\"process\": "     \
               "\"simultaneous\"}}]}, \"transport\": {\"cc\": \"%s\"%s}}"

static double incast_mean_queue(const char *cc, const char *extra, uint64_t *drops)
{
    char json[2048];
    snprintf(json, sizeof json, INCAST, cc, extra);
    world w;
    tu_world_make(&w, json);
    tl_pktsim *s = run(&w, NULL, NULL, 0);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    if (st.n_flows_done != 16)
        fail_msg("%s incast: %llu of 16 flows done", cc, (unsigned long long)st.n_flows_done);
    *drops = st.n_drops;
    tl_port_stats ps;
    tl_pktsim_port_stats(s, 1, &ps); /* leaf -> host 0 */
    uint64_t buffer = tl_pktsim_buffer_bytes(&w.sc.params, tl_topo_link(w.topo, 0)->rate_bps);
    if (ps.max_queue_bytes > buffer)
        fail_msg("%s incast: queue %llu above the buffer", cc, (unsigned long long)ps.max_queue_bytes);
    double q = ps.mean_queue_bytes;
    tl_pktsim_destroy(s);
    world_free(&w);
    return q;
}

/* Every CC completes a 16-to-1 incast with PFC and no drop; HPCC at eta 0.95
 * keeps the bottleneck's mean queue far below DCQCN's. */
static void incast_per_cc(void **state)
{
    double q_hpcc = NAN, q_dcqcn = NAN;
    FOR_EACH_CC(d) {
        uint64_t drops;
        double q = incast_mean_queue(d->name, ", \"switch\": {\"pfc\": 1}", &drops);
        if (drops)
            fail_msg("%s incast: %llu drops with PFC", d->name, (unsigned long long)drops);
        q_hpcc = d->id == TL_CC_HPCC ? q : q_hpcc;
        q_dcqcn = d->id == TL_CC_DCQCN ? q : q_dcqcn;
    }
    if (!(q_hpcc < q_dcqcn / 4))
        fail_msg("HPCC mean queue %.0f B is not well below DCQCN's %.0f B", q_hpcc, q_dcqcn);
}

/* DCQCN's mean queue rises with Kmax (Kmin 0, Pmax 0.2): three settings.
 * NVIDIA's byte counter is on: within this 1.3 ms incast the timer alone
 * (300 us) hardly raises a rate, and the queue is the first burst's. */
static void dcqcn_queue_follows_kmax(void **state)
{
    static const double kmax[] = {2000, 8000, 32000}; /* bytes per Gb/s: 200 KB, 800 KB, 3.2 MB at 100G */
    double q[3];
    for (int i = 0; i < 3; i++) {
        char extra[256];
        uint64_t drops;
        snprintf(extra, sizeof extra,
                 ", \"switch\": {\"kmin_bytes_per_gbps\": 0, \"kmax_bytes_per_gbps\": %g, "
                 "\"buffer_bytes\": \"12MB\"}, \"dcqcn\": {\"rpg_byte_reset_bytes\": 32767}",
                 kmax[i]);
        q[i] = incast_mean_queue("dcqcn", extra, &drops);
    }
    if (!(q[0] < q[1] && q[1] < q[2]))
        fail_msg("mean queue %.0f, %.0f, %.0f B for Kmax 200 KB, 800 KB, 3.2 MB", q[0], q[1], q[2]);
}

typedef struct cnp_probe {
    int64_t change_at_ps;
    uint64_t cnps_before, cnps_at_change;
} cnp_probe;

static int cnp_control(void *ctx, tl_pktsim *s, int64_t now)
{
    cnp_probe *k = ctx;
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    if (now < k->change_at_ps)
        k->cnps_before = st.n_cnps;
    if (now == k->change_at_ps) {
        k->cnps_at_change = st.n_cnps;
        tl_pktsim_set_param(s, "dcqcn.min_time_between_cnps_ps", 4e6, NULL);
    }
    return 0;
}

/* A NIC knob changed at run time takes effect then and not before: with one
 * CNP per flow per 10 ms allowed (longer than the run), at most 16 CNPs precede the change to 4 us
 * at 200 us, and many more follow. */
static void dcqcn_runtime_knob(void **state)
{
    char json[2048];
    snprintf(json, sizeof json, INCAST, "dcqcn",
             ", \"dcqcn\": {\"min_time_between_cnps_ps\": \"10ms\"}, \"switch\": "
             "{\"kmin_bytes_per_gbps\": 100, \"kmax_bytes_per_gbps\": 400}");
    world w;
    tu_world_make(&w, json);
    cnp_probe k = {.change_at_ps = 200 * 1000000LL};
    tl_pktsim *s = run(&w, cnp_control, &k, 100 * 1000000LL);
    tl_pktsim_stats st;
    tl_pktsim_get_stats(s, &st);
    assert_true(k.cnps_before <= 16 && k.cnps_at_change <= 16);
    if (!(st.n_cnps > k.cnps_at_change + 100))
        fail_msg("%llu CNPs after the change, %llu before", (unsigned long long)st.n_cnps,
                 (unsigned long long)k.cnps_at_change);
    tl_pktsim_destroy(s);
    world_free(&w);
}

/* k = 8 fat tree, a permutation at 90% max link load with PFC: no deadlock,
 * no drop, every flow completes, for every CC. */
static void permutation_90_no_deadlock(void **state)
{
    FOR_EACH_CC(d) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": {\"type\": \"fat_tree\", \"k\": 8}, \"workload\": {\"flows\": "
                 "1500, \"classes\": [{\"sizes\": {\"cdf\": \"ali-storage\"}, \"spatial\": "
                 "{\"type\": \"permutation\"}, \"arrival\": {\"process\": \"poisson\"}, \"load\": "
                 "{\"max_link_load\": 0.9}}]}, \"transport\": {\"cc\": \"%s\", \"switch\": "
                 "{\"pfc\": 1}}}",
                 d->name);
        world w;
        tu_world_make(&w, json);
        tl_pktsim *s = run(&w, NULL, NULL, 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        if (st.n_flows_done != w.flows.n || st.n_drops)
            fail_msg("%s: %llu/%zu flows done, %llu drops", d->name,
                     (unsigned long long)st.n_flows_done, w.flows.n, (unsigned long long)st.n_drops);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* Every CC carries 3,000 flows of the default scenario's workload (WebServer
 * sizes, bursty arrivals, 50% max load on the 2:1 fabric) to completion, with
 * every byte delivered. (HPCC once stalled here: an idle-path utilization
 * near 0 blew its window up to an invalid value.) */
static void fabric_workload_completes(void **state)
{
    FOR_EACH_CC(d) {
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"topology\": " FABRIC ", \"workload\": {\"flows\": 3000, \"classes\": "
                 "[{\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": {\"type\": \"matrix\", "
                 "\"matrix\": \"B\"}, \"arrival\": {\"process\": \"lognormal\", \"sigma\": 2},"
                 " \"load\": {\"max_link_load\": 0.5}}]}, \"transport\": {\"cc\": \"%s\"}}",
                 d->name);
        world w;
        tu_world_make(&w, json);
        tl_pktsim *s = run(&w, NULL, NULL, 0);
        tl_pktsim_stats st;
        tl_pktsim_get_stats(s, &st);
        uint64_t total = 0;
        for (size_t i = 0; i < w.flows.n; i++)
            total += w.flows.v[i].size_bytes;
        if (st.n_flows_done != w.flows.n || st.bytes_delivered != total)
            fail_msg("%s: %llu/%zu flows, %llu/%llu bytes", d->name,
                     (unsigned long long)st.n_flows_done, w.flows.n,
                     (unsigned long long)st.bytes_delivered, (unsigned long long)total);
        tl_pktsim_destroy(s);
        world_free(&w);
    }
}

/* The presets and the CC default presets reach the parameters. */
static void presets_apply(void **state)
{
    world w;
    char json[2048];
    snprintf(json, sizeof json, INCAST, "dcqcn", ", \"preset\": \"dcqcn.expert\"");
    tu_world_make(&w, json);
    assert_true(tl_params_get(&w.sc.params, "switch.pfc") == 1);
    assert_true(tl_params_get(&w.sc.params, "dcqcn.ai_rate_bps") == 50e6);
    assert_true(tl_params_get(&w.sc.params, "switch.kmax_bytes_per_gbps") == 64000);
    world_free(&w);
    snprintf(json, sizeof json, INCAST, "dcqcn", ", \"switch\": {\"pfc\": 0}");
    tu_world_make(&w, json); /* explicit knobs override the CC's default preset */
    assert_true(tl_params_get(&w.sc.params, "switch.pfc") == 0);
    assert_true(tl_params_get(&w.sc.params, "switch.kmin_bytes_per_gbps") == 4000);
    world_free(&w);
    tl_scenario sc;
    tl_err err;
    tl_err_clear(&err);
    snprintf(json, sizeof json, INCAST, "dcqcn", ", \"preset\": \"dcqcn.expret\"");
    assert_int_equal(tl_scenario_parse(&sc, json, "t.json", NULL, &err), TL_EPARSE);
    tu_check_err("preset typo", &err, TL_EPARSE, "transport.preset", "did you mean 'dcqcn.expert'");
}

/* Every registered descriptor is whole: unique names and ids, knobs named
 * "<group>.<knob>" in one of its groups, each knob's handle (tl_cc_knobs)
 * the value its name finds, indices in range, presets that apply, ops with
 * their required members. A CC added to the registry is checked here. */
/* A CC hears the knobs of its groups, by whole group name. */
static void cc_reads_its_groups(void **state)
{
    const tl_cc_desc *d = tl_cc_lookup("dcqcn");
    assert_non_null(d);
    assert_true(tl_cc_reads_group(d, "dcqcn.ai_rate_bps"));
    assert_true(tl_cc_reads_group(d, "switch.pmax"));
    assert_false(tl_cc_reads_group(d, "hpcc.eta"));
    assert_false(tl_cc_reads_group(d, "dcq.x"));
    assert_false(tl_cc_reads_group(d, "dcqcnx.x"));
    assert_false(tl_cc_reads_group(d, "nic.mtu_bytes"));
    for (size_t i = 0; i < tl_cc_count(); i++) /* every CC's own knobs */
        for (size_t k = 0; k < tl_cc_get(i)->n_knobs; k++)
            assert_true(tl_cc_reads_group(tl_cc_get(i), tl_cc_get(i)->knobs[k].name));
}

static void registry_descriptors_are_whole(void **state)
{
    (void)state;
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    size_t n_knobs = 0;
    for (size_t i = 0; i < tl_cc_count(); i++) {
        const tl_cc_desc *d = tl_cc_get(i);
        if (tl_cc_lookup(d->name) != d || tl_cc_lookup_id(d->id) != d)
            fail_msg("%s: name or id %d is not unique", d->name, d->id);
        assert_non_null(d->doc);
        assert_non_null(d->groups);
        for (size_t k = 0; k < d->n_knobs; k++) {
            const char *name = d->knobs[k].name, *dot = strchr(name, '.');
            size_t gl = dot ? (size_t)(dot - name) : 0;
            if (!dot || strncmp(d->groups, name, gl) != 0 ||
                (d->groups[gl] != ',' && d->groups[gl] != '\0'))
                fail_msg("%s: knob %s is not in its first group (%s)", d->name, name, d->groups);
            int idx = tl_params_find(name);
            if (idx < 0 || &tl_cc_knobs(d, &p)[k] != &p.v[idx])
                fail_msg("%s: the handle of %s is not its registry slot", d->name, name);
            n_knobs++;
        }
        int ks[] = {d->window_knob, d->delay_knob, d->model_knobs[0], d->model_knobs[1]};
        for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
            if (ks[j] < -1 || ks[j] >= (int)d->n_knobs)
                fail_msg("%s: knob index %d out of range", d->name, ks[j]);
        if ((d->queue == TL_CC_QUEUE_DELAY) != (d->delay_knob >= 0))
            fail_msg("%s: a delay-target queue needs its delay knob", d->name);
        int has_default = !d->default_preset;
        for (size_t k = 0; k < d->n_presets; k++) {
            tl_params q;
            tl_err err;
            tl_err_clear(&err);
            assert_int_equal(tl_params_init(&q, NULL), 0);
            if (tl_params_apply_preset(&q, d->presets[k].name, &err))
                fail_msg("%s: preset %s: %s", d->name, d->presets[k].name, err.msg);
            tl_params_fini(&q);
            has_default |= d->default_preset && !strcmp(d->default_preset, d->presets[k].name);
        }
        if (!has_default)
            fail_msg("%s: default preset %s is not one of its own", d->name, d->default_preset);
        if (d->ops && (d->ops->desc != d || !d->ops->init || !d->ops->on_ack ||
                       (d->ops->uses_cnp && !d->ops->on_cnp)))
            fail_msg("%s: ops lack a required member", d->name);
    }
    size_t n_net = 0;
    for (size_t i = 0; i < tl_params_count(); i++)
        n_net += !strncmp(tl_params_def(i)->name, "nic.", 4) ||
                 !strncmp(tl_params_def(i)->name, "switch.", 7);
    size_t n_qp = 0; /* the queue policies' own knobs follow the CCs' */
    for (size_t t = 0; t < tl_qpolicy_n_knob_tables(); t++) {
        size_t m;
        const tl_param_def *defs = tl_qpolicy_knob_table(t, &m);
        for (size_t k = 0; k < m; k++)
            assert_int_equal(tl_params_find(defs[k].name), (int)(n_net + n_knobs + n_qp + k));
        n_qp += m;
    }
    assert_true(n_qp >= 4); /* phantom's */
    for (size_t t = 0; t < tl_lb_n_knob_tables(); t++) { /* the load balancers' */
        size_t m;
        const tl_param_def *defs = tl_lb_knob_table(t, &m);
        for (size_t k = 0; k < m; k++)
            assert_int_equal(tl_params_find(defs[k].name), (int)(n_net + n_knobs + n_qp + k));
        n_qp += m;
    }
    /* then pktsim's coding, faults and losses, and PARALEON's monitor's and tuner's last */
    const struct {
        const tl_param_def *defs;
        size_t n;
    } late[] = {{tl_ec_knobs, TL_EC_N_KNOBS},
                {tl_fault_knobs, TL_FAULT_N_KNOBS},
                {tl_loss_knobs, TL_LOSS_N_KNOBS},
                {tl_monitor_knobs, TL_MON_N_KNOBS},
                {tl_tune_knobs, TL_TUNE_N_KNOBS}};
    for (size_t t = 0; t < 5; t++) {
        for (size_t k = 0; k < late[t].n; k++)
            assert_int_equal(tl_params_find(late[t].defs[k].name),
                             (int)(n_net + n_knobs + n_qp + k));
        n_qp += late[t].n;
    }
    assert_int_equal(n_net + n_knobs + n_qp, tl_params_count());
    tl_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_descriptors_are_whole),
        cmocka_unit_test(cc_reads_its_groups),
        cmocka_unit_test(timely_follows_rtt),
        cmocka_unit_test(dcqcn_cut_and_recovery_stages),
        cmocka_unit_test(two_flows_fair),
        cmocka_unit_test(incast_per_cc),
        cmocka_unit_test(dcqcn_queue_follows_kmax),
        cmocka_unit_test(dcqcn_runtime_knob),
        cmocka_unit_test(permutation_90_no_deadlock),
        cmocka_unit_test(fabric_workload_completes),
        cmocka_unit_test(presets_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
