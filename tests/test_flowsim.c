/* flowsim: max-min allocations against hand-computed ones (equal sharing,
 * the parking lot, a staggered cross flow), agreement with pktsim on large
 * flows, determinism, path-level mode equal to whole-network mode on a
 * topology that is a single path, and path-level mode against a fluid
 * simulation that recomputes max-min rates from scratch at every event. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowsim/flowsim_int.h"
#include "tailor/flowsim.h"
#include "tailor/pktsim.h"
#include "tailor/rng.h"
#include "tailor/spec.h"
#include "tailor/time.h"
#include "tailor/world.h"
#include "testutil.h"

/* The tests' scenarios: worlds built from JSON (tu_world_make). */
typedef tl_world world;

static void world_free(world *w) { tl_world_fini(w); }


static tl_params params(void)
{
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    return p;
}

static const tl_flow_result *run_path(tl_flowsim **out, const tl_fs_link *links, int n_links,
                                      const tl_fs_path_flow *flows, size_t n, const tl_params *p)
{
    tl_err err;
    tl_err_clear(&err);
    tl_flowsim *s = tl_flowsim_create_path(links, n_links, flows, n, p, &err);
    if (!s)
        fail_msg("create: %s", err.msg);
    assert_int_equal(tl_flowsim_run(s, NULL, &err), 0);
    tl_flowsim_check_invariants(s);
    *out = s;
    return tl_flowsim_results(s);
}

/* Transfer time of size_bytes' wire bytes (1000 B payload + 48 B header per
 * packet) at rate_bps, in ps. */
static double xfer_ps(uint64_t size, double rate_bps)
{
    uint64_t pkts = (size + 999) / 1000;
    return (double)(size + pkts * 48) * 8 / rate_bps * 1e12;
}

/* n equal flows on one 10 Gb/s link share it equally: each takes n times as
 * long as alone, and all finish together. */
static void equal_flows_share(void **state)
{
    tl_params p = params();
    tl_fs_link l = {10000000000ull, 1000000};
    for (int n = 1; n <= 8; n *= 2) {
        tl_fs_path_flow f[8];
        for (int i = 0; i < n; i++)
            f[i] = (tl_fs_path_flow){.size_bytes = 1000000, .start_ps = 0, .first = 0, .last = 0};
        tl_flowsim *s;
        const tl_flow_result *r = run_path(&s, &l, 1, f, (size_t)n, &p);
        /* latency: 1 us propagation; the only hop is the bottleneck */
        double want = 1e6 + n * xfer_ps(1000000, 10e9);
        for (int i = 0; i < n; i++)
            if (fabs((double)r[i].fct_ps - want) > 2)
                fail_msg("n=%d flow %d: fct %lld ps, want %.0f", n, i, (long long)r[i].fct_ps, want);
        if (n == 1 && llabs(r[0].fct_ps - r[0].ideal_ps) > 2)
            fail_msg("lone flow %lld ps vs ideal %lld ps", (long long)r[0].fct_ps,
                     (long long)r[0].ideal_ps);
        tl_flowsim_destroy(s);
    }
    tl_params_fini(&p);
}

/* The textbook parking lot: links of 10, 20 and 10 Gb/s; flow A crosses all
 * three, B, C and D one each. Max-min: links 0 and 2 are shared by two flows
 * (A, B and A, D get 5 each); on link 1, A is frozen at 5, so C gets 15. With
 * equal sizes, C finishes first (its leaving changes nothing for A), then A,
 * B and D together. */
static void parking_lot_max_min(void **state)
{
    tl_params p = params();
    tl_fs_link l[3] = {{10000000000ull, 0}, {20000000000ull, 0}, {10000000000ull, 0}};
    uint64_t S = 4000000;
    tl_fs_path_flow f[4] = {
        {.size_bytes = S, .first = 0, .last = 2}, /* A */
        {.size_bytes = S, .first = 0, .last = 0}, /* B */
        {.size_bytes = S, .first = 1, .last = 1}, /* C */
        {.size_bytes = S, .first = 2, .last = 2}, /* D */
    };
    tl_flowsim *s;
    const tl_flow_result *r = run_path(&s, l, 3, f, 4, &p);
    /* latency terms: zero delays; A's first packet is stored and forwarded on
     * the two hops that are not its (first) bottleneck: one 10G hop and the 20G hop. */
    double first_a = tl_tx_time_ps(1048, 10000000000ull) + tl_tx_time_ps(1048, 20000000000ull);
    double want_a = xfer_ps(S, 5e9) + first_a, want_bd = xfer_ps(S, 5e9), want_c = xfer_ps(S, 15e9);
    if (fabs((double)r[0].fct_ps - want_a) > 3 || fabs((double)r[1].fct_ps - want_bd) > 3 ||
        fabs((double)r[2].fct_ps - want_c) > 3 || fabs((double)r[3].fct_ps - want_bd) > 3)
        fail_msg("fct A %lld B %lld C %lld D %lld ps; want %.0f %.0f %.0f %.0f",
                 (long long)r[0].fct_ps, (long long)r[1].fct_ps, (long long)r[2].fct_ps,
                 (long long)r[3].fct_ps, want_a, want_bd, want_c, want_bd);
    tl_flowsim_destroy(s);
    tl_params_fini(&p);
}

/* A 10 MB flow alone on 10 Gb/s from t = 0; a 2 MB flow joins at 2 ms. Until
 * then A moves at 10 Gb/s; both then get 5 Gb/s until B ends; A finishes
 * alone. By hand, with W(x) the wire bytes of x: A has W(10 MB) - 2 ms x
 * 10 Gb/s / 8 left at 2 ms; B takes W(2 MB) x 8 / 5 Gb/s; A's remainder then
 * goes at 10 Gb/s again. */
static void staggered_cross_flow(void **state)
{
    tl_params p = params();
    tl_fs_link l = {10000000000ull, 0};
    tl_fs_path_flow f[2] = {
        {.size_bytes = 10000000, .start_ps = 0, .first = 0, .last = 0},
        {.size_bytes = 2000000, .start_ps = 2000000000, .first = 0, .last = 0},
    };
    tl_flowsim *s;
    const tl_flow_result *r = run_path(&s, &l, 1, f, 2, &p);
    double wa = (10000000.0 + 10000 * 48) * 8, wb = (2000000.0 + 2000 * 48) * 8; /* bits */
    double t_b = wb / 5e9;                     /* B's transfer, s */
    double a_left = wa - 2e-3 * 10e9 - t_b * 5e9; /* bits A still has when B ends */
    double fct_a = (2e-3 + t_b + a_left / 10e9) * 1e12, fct_b = t_b * 1e12;
    if (fabs((double)r[0].fct_ps - fct_a) > 3 || fabs((double)r[1].fct_ps - fct_b) > 3)
        fail_msg("fct A %lld B %lld ps, want %.0f %.0f", (long long)r[0].fct_ps,
                 (long long)r[1].fct_ps, fct_a, fct_b);
    tl_flowsim_destroy(s);
    tl_params_fini(&p);
}

/* 4-hop parking lot at 50% load with WebSearch sizes: flowsim and pktsim
 * (dctcp-rate) agree within 10% on the mean FCT of flows of 1 MB or more,
 * and a second flowsim run is identical. */
static void agrees_with_pktsim_on_large_flows(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": {\"type\": \"parking_lot\", \"hops\": 4, "
                      "\"hosts_per_switch\": 4}, \"workload\": {\"flows\": 3000, "
                      "\"classes\": [{\"sizes\": {\"cdf\": "
                      "\"websearch\"}, \"spatial\": {\"type\": \"uniform\"}, \"arrival\": "
                      "{\"process\": \"poisson\"}, \"load\": {\"max_link_load\": 0.5}}]}, "
                      "\"transport\": {\"cc\": \"dctcp-rate\"}}");
    tl_err err;
    tl_err_clear(&err);
    tl_flowsim *fs = tl_flowsim_create(w.topo, w.routes, &w.flows, &w.sc.params, &err);
    assert_non_null(fs);
    assert_int_equal(tl_flowsim_run(fs, NULL, &err), 0);
    tl_flowsim_check_invariants(fs);
    tl_flowsim *fs2 = tl_flowsim_create(w.topo, w.routes, &w.flows, &w.sc.params, &err);
    assert_int_equal(tl_flowsim_run(fs2, NULL, &err), 0);
    assert_memory_equal(tl_flowsim_results(fs), tl_flowsim_results(fs2),
                        w.flows.n * sizeof(tl_flow_result));
    tl_pktsim *ps = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, "dctcp-rate", 1, &err);
    assert_non_null(ps);
    assert_int_equal(tl_pktsim_run(ps, 0, NULL, &err), 0);
    const tl_flow_result *a = tl_flowsim_results(fs), *b = tl_pktsim_results(ps);
    double sa = 0, sb = 0;
    int n = 0;
    for (size_t i = 0; i < w.flows.n; i++)
        if (w.flows.v[i].size_bytes >= 1000000) {
            assert_true(a[i].fct_ps > 0 && b[i].fct_ps > 0);
            sa += (double)a[i].fct_ps;
            sb += (double)b[i].fct_ps;
            n++;
        }
    assert_true(n > 100);
    if (fabs(sa / sb - 1) > 0.10)
        fail_msg("mean FCT of %d large flows: flowsim %.1f us, pktsim %.1f us", n, sa / n * 1e-6,
                 sb / n * 1e-6);
    tl_flowsim_destroy(fs);
    tl_flowsim_destroy(fs2);
    tl_pktsim_destroy(ps);
    world_free(&w);
}

/* A 3-hop parking lot with 64 hosts per switch, every flow between its own
 * two hosts (so no host link is shared): whole-network mode and path-level
 * mode (the chain as the path, each flow's host links as private access
 * links) give the same FCT to the picosecond. */
static void path_mode_equals_network_mode(void **state)
{
    world w;
    tu_world_make(&w, "{\"topology\": {\"type\": \"parking_lot\", \"hops\": 3, "
                      "\"hosts_per_switch\": 64}, \"workload\": {\"flows\": 1, "
                      "\"classes\": [{\"sizes\": {\"dist\": "
                      "\"fixed\", \"mean_bytes\": 1000}, \"spatial\": {\"type\": \"uniform\"}, "
                      "\"arrival\": {\"process\": \"simultaneous\"}}]}}");
    /* Hosts 0..255, 64 per switch S0..S3 (host h at switch h / 64); flow i goes
     * from host 64 a + i to host 64 b + i + 32 with a < b, sizes and starts varied. */
    tl_flows_reserve(&w.flows, 64, NULL);
    size_t n = 0;
    tl_rng rng;
    tl_rng_init(&rng, 5, "test", 0);
    int64_t t = 0;
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t a = (uint32_t)tl_rng_below(&rng, 3), b = a + 1 + (uint32_t)tl_rng_below(&rng, 3 - a);
        t += (int64_t)tl_rng_below(&rng, 3000000);
        w.flows.v[n] = (tl_flow){.id = n, .src = 64 * a + i, .dst = 64 * b + i + 32,
                             .size_bytes = 1 + tl_rng_below(&rng, 3000000), .start_ps = t};
        n++;
    }
    w.flows.n = n;
    tl_err err;
    tl_err_clear(&err);
    tl_flowsim *net = tl_flowsim_create(w.topo, w.routes, &w.flows, &w.sc.params, &err);
    assert_non_null(net);
    assert_int_equal(tl_flowsim_run(net, NULL, &err), 0);
    /* The path: chain links S0->S1, S1->S2, S2->S3; switches are nodes 256..259. */
    tl_fs_link links[3];
    for (int k = 0; k < 3; k++)
        for (uint32_t l = 0; l < tl_topo_n_links(w.topo); l++) {
            const tl_link *L = tl_topo_link(w.topo, l);
            if (L->a == 256u + k && L->b == 257u + k)
                links[k] = (tl_fs_link){L->rate_bps, L->delay_ps};
        }
    const tl_link *host = tl_topo_link(w.topo, 0); /* every host link is alike */
    tl_fs_path_flow pf[64];
    for (size_t i = 0; i < n; i++)
        pf[i] = (tl_fs_path_flow){.size_bytes = w.flows.v[i].size_bytes,
                                  .start_ps = w.flows.v[i].start_ps,
                                  .first = (uint16_t)(w.flows.v[i].src / 64),
                                  .last = (uint16_t)(w.flows.v[i].dst / 64 - 1),
                                  .src = {host->rate_bps, host->delay_ps},
                                  .dst = {host->rate_bps, host->delay_ps}};
    tl_params p = params();
    tl_flowsim *path;
    const tl_flow_result *rp = run_path(&path, links, 3, pf, n, &p);
    const tl_flow_result *rn = tl_flowsim_results(net);
    for (size_t i = 0; i < n; i++)
        if (rn[i].fct_ps != rp[i].fct_ps || rn[i].ideal_ps != rp[i].ideal_ps)
            fail_msg("flow %zu: network %lld/%lld ps, path %lld/%lld ps", i,
                     (long long)rn[i].fct_ps, (long long)rn[i].ideal_ps, (long long)rp[i].fct_ps,
                     (long long)rp[i].ideal_ps);
    tl_flowsim_destroy(net);
    tl_flowsim_destroy(path);
    tl_params_fini(&p);
    world_free(&w);
}

/* ---- a from-scratch oracle for path mode ---- */

enum { OR_N = 400, OR_LINKS = 4 };

/* Max-min rates of the active flows by progressive filling over every link
 * (no components, no coupling test, no incremental state). */
static void oracle_rates(const tl_fs_link *links, const tl_fs_path_flow *f, const double *cap,
                         const int *active, double *rate)
{
    int frozen[OR_N] = {0};
    double left[OR_LINKS];
    for (int l = 0; l < OR_LINKS; l++)
        left[l] = (double)links[l].rate_bps;
    for (;;) {
        double best = INFINITY;
        for (int l = 0; l < OR_LINKS; l++) {
            int nu = 0;
            for (int i = 0; i < OR_N; i++)
                nu += active[i] && !frozen[i] && f[i].first <= l && f[i].last >= l;
            if (nu)
                best = fmin(best, left[l] / nu);
        }
        for (int i = 0; i < OR_N; i++)
            if (active[i] && !frozen[i])
                best = fmin(best, cap[i]);
        if (best == INFINITY)
            return;
        int is_bottleneck[OR_LINKS];
        for (int l = 0; l < OR_LINKS; l++) {
            int nu = 0;
            for (int i = 0; i < OR_N; i++)
                nu += active[i] && !frozen[i] && f[i].first <= l && f[i].last >= l;
            is_bottleneck[l] = nu && left[l] / nu <= best * (1 + 1e-12);
        }
        for (int i = 0; i < OR_N; i++) {
            if (!active[i] || frozen[i])
                continue;
            int hit = cap[i] <= best * (1 + 1e-12);
            for (int l = f[i].first; l <= f[i].last; l++)
                hit |= is_bottleneck[l];
            if (!hit)
                continue;
            frozen[i] = 1;
            rate[i] = best;
            for (int l = f[i].first; l <= f[i].last; l++)
                left[l] -= best;
        }
    }
}

/* A random path workload that is idle at times and congested at others,
 * with private access links of several rates: every flow's transfer time
 * (FCT less the store-and-forward latency) equals a fluid simulation that
 * recomputes max-min rates from scratch at every event. This checks the
 * incremental refill, the coupling-link pruning and the skipped refills of
 * flows that meet no coupling link. */
static void path_mode_matches_from_scratch_max_min(void **state)
{
    (void)state;
    static const tl_fs_link links[OR_LINKS] = {
        {10000000000ull, 0}, {40000000000ull, 0}, {25000000000ull, 0}, {10000000000ull, 0}};
    static const uint64_t access[4] = {0, 10000000000ull, 25000000000ull, 4000000000ull};
    static tl_fs_path_flow f[OR_N];
    static double bits[OR_N], cap[OR_N], rem[OR_N], rate[OR_N], dur_ps[OR_N];
    static int active[OR_N];
    tl_rng rng;
    tl_rng_init(&rng, 11, "test", 0);
    int64_t t = 0;
    for (int i = 0; i < OR_N; i++) {
        /* bursts of close arrivals between quiet stretches */
        t += (int64_t)(tl_rng_below(&rng, 8) ? tl_rng_below(&rng, 400000)
                                             : tl_rng_below(&rng, 300000000));
        uint16_t a = (uint16_t)tl_rng_below(&rng, OR_LINKS);
        uint16_t b = (uint16_t)(a + tl_rng_below(&rng, OR_LINKS - a));
        f[i] = (tl_fs_path_flow){.size_bytes = 1 + tl_rng_below(&rng, 400000), .start_ps = t,
                                 .first = a, .last = b,
                                 .src = {access[tl_rng_below(&rng, 4)], 0},
                                 .dst = {access[tl_rng_below(&rng, 4)], 0}};
    }
    tl_params p = params();
    uint64_t mtu = (uint64_t)tl_params_get(&p, "nic.mtu_bytes");
    uint64_t hdr = (uint64_t)tl_params_get(&p, "nic.header_bytes");
    for (int i = 0; i < OR_N; i++) {
        uint64_t pkts = (f[i].size_bytes + mtu - 1) / mtu;
        bits[i] = (double)(f[i].size_bytes + pkts * hdr) * 8;
        cap[i] = INFINITY;
        if (f[i].src.rate_bps)
            cap[i] = fmin(cap[i], (double)f[i].src.rate_bps);
        if (f[i].dst.rate_bps)
            cap[i] = fmin(cap[i], (double)f[i].dst.rate_bps);
    }
    /* the fluid simulation, in seconds */
    double now = 0;
    int next = 0, n_done = 0, max_active = 0;
    while (n_done < OR_N) {
        while (next < OR_N && (double)f[next].start_ps * 1e-12 <= now) {
            active[next] = 1;
            rem[next] = bits[next];
            next++;
        }
        int n_active = 0;
        for (int i = 0; i < OR_N; i++)
            n_active += active[i];
        max_active = n_active > max_active ? n_active : max_active;
        if (!n_active) {
            now = (double)f[next].start_ps * 1e-12;
            continue;
        }
        oracle_rates(links, f, cap, active, rate);
        double step = next < OR_N ? (double)f[next].start_ps * 1e-12 - now : INFINITY;
        for (int i = 0; i < OR_N; i++)
            if (active[i])
                step = fmin(step, rem[i] / rate[i]);
        for (int i = 0; i < OR_N; i++) {
            if (!active[i])
                continue;
            if (rem[i] / rate[i] <= step * (1 + 1e-12)) {
                active[i] = 0;
                n_done++;
                dur_ps[i] = (now + step - (double)f[i].start_ps * 1e-12) * 1e12;
            } else {
                rem[i] -= rate[i] * step;
            }
        }
        now += step;
    }
    assert_true(max_active >= 8); /* it did get congested */
    tl_flowsim *s;
    const tl_flow_result *res = run_path(&s, links, OR_LINKS, f, OR_N, &p);
    for (int i = 0; i < OR_N; i++) {
        /* latency: the first packet's store-and-forward at every hop but the
         * slowest (docs/results.md's ideal FCT; no propagation here) */
        uint64_t r[TL_MAX_HOPS], slow = UINT64_MAX, first = (f[i].size_bytes < mtu ? f[i].size_bytes : mtu) + hdr;
        int h = 0;
        if (f[i].src.rate_bps)
            r[h++] = f[i].src.rate_bps;
        for (int l = f[i].first; l <= f[i].last; l++)
            r[h++] = links[l].rate_bps;
        if (f[i].dst.rate_bps)
            r[h++] = f[i].dst.rate_bps;
        int64_t lat = 0;
        for (int k = 0; k < h; k++) {
            lat += tl_tx_time_ps(first, r[k]);
            slow = r[k] < slow ? r[k] : slow;
        }
        lat -= tl_tx_time_ps(first, slow);
        double got = (double)(res[i].fct_ps - lat);
        if (fabs(got - dur_ps[i]) > 1e-6 * dur_ps[i] + 2000)
            fail_msg("flow %d: transfer %.0f ps, from-scratch max-min %.0f ps", i, got, dur_ps[i]);
    }
    tl_flowsim_destroy(s);
    tl_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_flows_share),
        cmocka_unit_test(parking_lot_max_min),
        cmocka_unit_test(staggered_cross_flow),
        cmocka_unit_test(agrees_with_pktsim_on_large_flows),
        cmocka_unit_test(path_mode_equals_network_mode),
        cmocka_unit_test(path_mode_matches_from_scratch_max_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
