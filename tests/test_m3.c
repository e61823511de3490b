/* m3 engine: path grouping and sampling, path workloads against a recount
 * from the routes, the network-wide mixture by hand, features, synthetic
 * samples (determinism, an idle path's truth), resumable training data, and
 * determinism of the engine over thread counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "m3/m3_int.h"
#include "m3/model.h"
#include "m3train/m3train_int.h"
#include "tailor/cc.h"
#include "tailor/fileio.h"
#include "tailor/quantile.h"
#include "tailor/m3.h"
#include "tailor/pktsim.h"
#include "tailor/result.h"
#include "tailor/sizedist.h"
#include "tailor/rng.h"
#include "tailor/world.h"
#include "testutil.h"

#define FABRIC                                                                                     \
    "{\"type\": \"fabric\", \"pods\": 2, \"racks_per_pod\": 16, \"hosts_per_rack\": 8, "           \
    "\"planes\": 2, \"oversubscription\": 2}"
#define WORLD(n)                                                                                   \
    "{\"topology\": " FABRIC ", \"workload\": {\"flows\": " #n ", \"classes\": "                   \
    "[{\"sizes\": {\"cdf\": \"webserver\"}, \"spatial\": {\"type\": \"matrix\", "                  \
    "\"matrix\": \"B\"}, \"arrival\": {\"process\": \"lognormal\", \"sigma\": 2}, \"load\": "      \
    "{\"max_link_load\": 0.5}}]}, \"transport\": {\"cc\": \"dctcp-rate\"}}"

/* Flows with the same channel sequence share a path id, others do not;
 * n_fg counts them; draws add up to k and follow the flow counts. */
static void paths_and_sampling(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, WORLD(5000));
    m3_paths g;
    assert_int_equal(m3_paths_build(&g, w.routes, &w.flows, 1000, NULL), 0);
    const tl_flow_paths *fp = &g.fp;
    uint64_t sum = 0;
    for (uint32_t p = 0; p < g.n_paths; p++)
        sum += g.n_fg[p];
    assert_int_equal(sum, w.flows.n);
    for (size_t i = 0; i < w.flows.n; i += 7)
        for (size_t j = i + 1; j < w.flows.n; j += 97) {
            uint32_t li = fp->path_off[i + 1] - fp->path_off[i];
            uint32_t lj = fp->path_off[j + 1] - fp->path_off[j];
            int same = li == lj && !memcmp(fp->path + fp->path_off[i], fp->path + fp->path_off[j],
                                           li * sizeof(uint32_t));
            assert_int_equal(same, g.rec[i].path_of == g.rec[j].path_of);
        }
    /* 200,000 draws: each path's share within 5 sigma of its flow share */
    uint32_t *ids, *draws, n_u;
    const uint32_t k = 200000;
    assert_int_equal(m3_paths_sample(&g, k, 7, &ids, &draws, &n_u, NULL), 0);
    uint64_t dsum = 0;
    for (uint32_t u = 0; u < n_u; u++) {
        dsum += draws[u];
        if (u)
            assert_true(ids[u] > ids[u - 1]);
        double pr = (double)g.n_fg[ids[u]] / (double)w.flows.n;
        double sd = sqrt(k * pr * (1 - pr));
        assert_true(fabs(draws[u] - k * pr) <= 5 * sd + 1);
    }
    assert_int_equal(dsum, k);
    free(ids), free(draws);
    m3_paths_fini(&g);
    tl_world_fini(&w);
}

/* A drawn path's workload, recounted from the routes: every flow that
 * crosses one of its channels contributes one segment per stretch it
 * follows the path; foreground flows cover the path with no access links;
 * a segment's access rate is the slowest of the flow's own hops outside it. */
static void path_workload_recount(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, WORLD(5000));
    m3_paths g;
    assert_int_equal(m3_paths_build(&g, w.routes, &w.flows, 1000, NULL), 0);
    const tl_flow_paths *fp = &g.fp;
    for (uint32_t pid = 0; pid < g.n_paths; pid += g.n_paths / 17 + 1) {
        m3_pathwl pw;
        assert_int_equal(m3_paths_workload(&g, w.topo, pid, &pw, NULL), 0);
        const uint32_t *pc = fp->path + fp->path_off[g.rep[pid]];
        int np = (int)(fp->path_off[g.rep[pid] + 1] - fp->path_off[g.rep[pid]]);
        assert_int_equal(pw.n_links, np);
        size_t want = 0, want_fg = 0;
        for (size_t i = 0; i < w.flows.n; i++) {
            const uint32_t *c = fp->path + fp->path_off[i];
            int h = (int)(fp->path_off[i + 1] - fp->path_off[i]);
            int prev = -2;
            for (int k = 0; k < h; k++) {
                int pos = -1;
                for (int q = 0; q < np; q++)
                    if (pc[q] == c[k])
                        pos = q;
                if (pos >= 0 && pos != prev + 1)
                    want++; /* a new stretch */
                prev = pos >= 0 ? pos : -2;
            }
            want_fg += g.rec[i].path_of == pid;
        }
        assert_int_equal(pw.n_flows, want);
        assert_int_equal(pw.n_fg, want_fg);
        assert_int_equal(want_fg, g.n_fg[pid]);
        for (size_t i = 0; i < pw.n_flows; i++) {
            const tl_fs_path_flow *f = &pw.flow[i];
            if (i)
                assert_true(f->start_ps >= pw.flow[i - 1].start_ps);
            if (pw.is_fg[i]) {
                assert_true(f->first == 0 && f->last == np - 1);
                assert_true(f->src.rate_bps == 0 && f->dst.rate_bps == 0);
            } else {
                assert_false(f->first == 0 && f->last == np - 1);
                /* a segment that starts mid-path came from somewhere */
                assert_int_equal(f->first > 0, f->src.rate_bps > 0);
                assert_int_equal(f->last < np - 1, f->dst.rate_bps > 0);
                if (f->src.rate_bps)
                    assert_true(f->src.delay_ps >= 1000000); /* >= one 1 us hop */
            }
        }
        m3_pathwl_fini(&pw);
    }
    m3_paths_fini(&g);
    tl_world_fini(&w);
}

/* Two point masses, at 1 (weight 1) and 2 (weight 3): mean 1.75, every
 * reported percentile (>= 0.5) at 2. A uniform [1, 2] quantile function:
 * median 1.5, p90 1.9. */
static void mixture_by_hand(void **state)
{
    (void)state;
    m3_comp c[2];
    c[0].w = 1, c[1].w = 3;
    for (int q = 0; q < M3_N_Q; q++)
        c[0].q[q] = 1, c[1].q[q] = 2;
    double mean, p[TL_N_PCTS];
    m3_mixture(c, 2, &mean, p);
    assert_true(fabs(mean - 1.75) < 1e-9);
    for (int i = 0; i < TL_N_PCTS; i++)
        assert_true(fabs(p[i] - 2) < 1e-9);
    m3_comp u = {.w = 1};
    for (int q = 0; q < M3_N_Q; q++)
        u.q[q] = 1 + m3_q[q];
    m3_mixture(&u, 1, &mean, p);
    assert_true(fabs(p[0] - 1.5) < 1e-9);
    assert_true(fabs(p[1] - 1.9) < 1e-9);
    assert_true(fabs(p[2] - 1.99) < 1e-9);
    assert_true(fabs(mean - 1.5) < 0.002); /* the extrapolated top 0.1% adds < 0.001 */
    m3_mixture(c, 0, &mean, p);
    assert_true(isnan(mean) && isnan(p[0]));
}

/* Mixture calibration: paths whose flows all follow one law (log slowdown
 * 0.2 plus an exponential of mean 0.5), predicted with a path-level error
 * that grows toward the tail as a model's does (log space, uniform +-1
 * times -log(1 - q) / log(1000): +-0.1 at p50, +-1 at p99.9). The error
 * alone spreads the mixture: its p99.9 lies far above the pooled flows'.
 * The shifts bring p50, p90, p99 and p99.9 of the mixture to the pooled
 * flows' within 5%; with fewer than 10 flows above a level, the level
 * keeps the shift of the level below. */
static void calib_mixture_meets_pooled(void **state)
{
    (void)state;
    tl_rng r;
    tl_rng_init(&r, 3, "test", 0);
    m3_calib cs, small;
    m3_calib_init(&cs), m3_calib_init(&small);
    for (int k = 0; k < 2000; k++) {
        double logq[M3_N_Q], sd[20], e = 2 * tl_rng_uniform(&r) - 1;
        for (int q = 0; q < M3_N_Q; q++)
            logq[q] = 0.2 - 0.5 * log(1 - m3_q[q]) + e * -log(1 - m3_q[q]) / log(1000);
        for (int j = 0; j < 20; j++)
            sd[j] = exp(0.2 - 0.5 * log(tl_rng_uniform_pos(&r)));
        assert_int_equal(m3_calib_add(&cs, 0, logq, 20, sd, 20, NULL), 0);
        if (k < 250)
            assert_int_equal(m3_calib_add(&small, 0, logq, 20, sd, 20, NULL), 0);
    }
    static const double lv[4] = {0.5, 0.9, 0.99, 0.999}, zero[M3_N_Q] = {0};
    double shift[M3_N_OUT][M3_N_Q], mix[4], pooled[4];
    assert_int_equal(m3_calib_compare(&cs, 0, zero, lv, 4, mix, pooled, NULL), 0);
    print_message("uncalibrated mixture p99.9 %.2f, flows %.2f\n", mix[3], pooled[3]);
    assert_true(mix[3] > 1.15 * pooled[3]);
    assert_int_equal(m3_calib_shift(&cs, shift, NULL), 0);
    assert_int_equal(m3_calib_compare(&cs, 0, shift[0], lv, 4, mix, pooled, NULL), 0);
    for (int k = 0; k < 4; k++) {
        print_message("level %g: mixture %.3f, flows %.3f\n", lv[k], mix[k], pooled[k]);
        assert_true(fabs(mix[k] / pooled[k] - 1) < 0.05);
    }
    assert_true(shift[0][M3_N_Q - 1] < 0); /* the error's spread taken back */
    for (int b = 1; b < M3_N_OUT; b++) /* no flows: no shift */
        for (int q = 0; q < M3_N_Q; q++)
            assert_true(shift[b][q] == 0);
    /* 5,000 flows: 5 above p99.9, 25 above p99.5 */
    assert_int_equal(m3_calib_shift(&small, shift, NULL), 0);
    assert_true(shift[0][M3_N_Q - 1] == shift[0][M3_N_Q - 2]);
    assert_true(shift[0][M3_N_Q - 2] != shift[0][M3_N_Q - 3]);
    m3_calib_fini(&cs), m3_calib_fini(&small);
}

/* The same (seed, index) gives the same sample; another index another one;
 * features see the sample's configuration and count its foreground flows. */
static void synthetic_samples(void **state)
{
    (void)state;
    m3_synth_opts o;
    m3_synth_opts_default(&o);
    o.fg_flows = 200, o.max_flows = 3000;
    m3_sample a, b, c;
    assert_int_equal(m3_synth_draw(&a, 5, 3, &o, NULL), 0);
    assert_int_equal(m3_synth_draw(&b, 5, 3, &o, NULL), 0);
    assert_int_equal(m3_synth_draw(&c, 5, 4, &o, NULL), 0);
    assert_int_equal(a.w.n_flows, b.w.n_flows);
    assert_memory_equal(a.w.flow, b.w.flow, a.w.n_flows * sizeof *a.w.flow);
    assert_false(a.w.n_flows == c.w.n_flows &&
                 !memcmp(a.w.flow, c.w.flow, a.w.n_flows * sizeof *a.w.flow));
    assert_true(a.w.n_fg > 0 && a.w.n_flows <= 3000);
    /* about 200 foreground flows (a binomial draw), unless the flow cap stopped it */
    assert_true(a.w.n_fg >= 140 || a.w.n_flows == 3000);
    assert_true(a.hops == 2 || a.hops == 4 || a.hops == 6);
    m3_feat ft;
    assert_int_equal(m3_features(&a.w, &a.p, a.cc, &ft, NULL), 0);
    uint32_t nfg = 0;
    for (int k = 0; k < M3_N_OUT; k++)
        nfg += ft.n_fg[k];
    assert_int_equal(nfg, a.w.n_fg);
    assert_true(ft.shared[0] == (float)a.hops);
    int one_hot = 0;
    for (int k = 8; k <= 12; k++)
        one_hot += ft.shared[k] == 1.0f;
    assert_int_equal(one_hot, 1);
    m3_sample_fini(&a), m3_sample_fini(&b), m3_sample_fini(&c);
}

/* Forced PFC (gen-data --pfc on|off) sets every scenario's switch.pfc, where
 * the draw gives both, and leaves the other draws (here the buffer) as the
 * draw made them; folders say which in their header. */
static void forced_pfc(void **state)
{
    (void)state;
    m3_synth_opts o;
    m3_synth_opts_default(&o);
    o.only_cc = "timely";
    int n_on = 0;
    for (uint64_t i = 0; i < 16; i++) {
        m3_sample s[3];
        for (int mode = 0; mode < 3; mode++) {
            memset(&s[mode], 0, sizeof s[mode]);
            assert_int_equal(tl_params_init(&s[mode].p, NULL), 0);
            tl_rng r;
            tl_rng_init(&r, 7, "forced pfc test", i);
            o.pfc = mode;
            assert_int_equal(m3_synth_config(&s[mode], &r, &o, NULL), 0);
        }
        n_on += tl_params_get(&s[0].p, "switch.pfc") == 1;
        assert_true(tl_params_get(&s[1].p, "switch.pfc") == 1);
        assert_true(tl_params_get(&s[2].p, "switch.pfc") == 0);
        for (int mode = 1; mode < 3; mode++)
            assert_true(tl_params_get(&s[mode].p, "switch.buffer_bytes") ==
                        tl_params_get(&s[0].p, "switch.buffer_bytes"));
        for (int mode = 0; mode < 3; mode++)
            tl_params_fini(&s[mode].p);
    }
    assert_true(n_on >= 1 && n_on <= 15); /* the draw gives both */
    char tag[64];
    o.only_cc = "dctcp-rate"; /* no preset: fixed thresholds, no shift */
    o.pfc = 0;
    m3_config_tag(&o, tag, sizeof tag);
    assert_string_equal(tag, "");
    o.pfc = 1;
    m3_config_tag(&o, tag, sizeof tag);
    assert_string_equal(tag, ", pfc on");
    o.only_cc = "timely", o.pfc = 2;
    m3_config_tag(&o, tag, sizeof tag);
    assert_string_equal(tag, ", pfc shift 3, pfc off");
    o.only_cc = "hpcc", o.pfc = 0; /* HPCC's widened ranges are named */
    m3_config_tag(&o, tag, sizeof tag);
    assert_string_equal(tag, ", pfc shift 3, hpcc ranges 2");
    o.only_cc = NULL; /* any CC: HPCC among them */
    m3_config_tag(&o, tag, sizeof tag);
    assert_string_equal(tag, ", pfc shift 3, hpcc ranges 2");
}

/* What `tailor run` checks scenarios against (tl_m3_knob_untrained) is
 * what the samples are drawn from: every draw lies inside, the draws reach
 * both ends of each range, and each CC's defaults on the 32-rack fabric
 * raise no warning. The ranges were widened to hold the defaults inside,
 * not at a corner (Table 4's HPCC eta 0.70-0.95 and AI from 50 Mb/s had
 * the defaults 0.95 and 50 Mb/s on a bound): each CC's own knob has its
 * default strictly inside, with draws on both sides, but TIMELY's T_high,
 * whose 500 us default is still the top (issue 52), and the window, whose
 * default 0 takes the fabric's BDP. */
static void training_ranges_match_draws(void **state)
{
    (void)state;
    static const char *const ccs[] = {"dctcp-rate", "dcqcn", "hpcc", "timely"};
    static const char *const knobs[] = {"switch.buffer_bytes", "switch.kmin_bytes_per_gbps",
                                        "switch.kmax_bytes_per_gbps", "dctcp_rate.window_bytes",
                                        "hpcc.eta", "hpcc.ai_bps", "timely.t_low_ps",
                                        "timely.t_high_ps", "switch.pfc"};
    enum { N_KNOBS = sizeof knobs / sizeof *knobs };
    /* the 32-rack fabric's references at 10 Gb/s (3 MiB buffers, 18 KB BDP) */
    const tl_fabric_ref fab = {.rtt_ps = 14400000, .bdp_bytes = 18000, .nic_bps = 10000000000};
    char why[512];
    for (size_t c = 0; c < sizeof ccs / sizeof *ccs; c++) {
        const tl_cc_desc *d = tl_cc_lookup(ccs[c]);
        assert_non_null(d);
        m3_synth_opts o;
        m3_synth_opts_default(&o);
        o.only_cc = ccs[c];
        tl_params def;
        assert_int_equal(tl_params_init(&def, NULL), 0);
        if (d->default_preset)
            assert_int_equal(tl_params_apply_preset(&def, d->default_preset, NULL), 0);
        double lo[N_KNOBS], hi[N_KNOBS];
        int below[N_KNOBS] = {0}, above[N_KNOBS] = {0};
        for (int k = 0; k < N_KNOBS; k++)
            lo[k] = INFINITY, hi[k] = -INFINITY;
        for (uint64_t i = 0; i < 300; i++) {
            m3_sample s;
            memset(&s, 0, sizeof s);
            assert_int_equal(tl_params_init(&s.p, NULL), 0);
            tl_rng r;
            tl_rng_init(&r, 5, "training ranges test", i);
            assert_int_equal(m3_synth_config(&s, &r, &o, NULL), 0);
            for (int k = 0; k < N_KNOBS; k++) {
                int idx = tl_params_find(knobs[k]);
                assert_true(idx >= 0);
                assert_int_equal(tl_m3_knob_untrained(&s.p, (size_t)idx, ccs[c], &fab, why,
                                                      sizeof why),
                                 0);
                lo[k] = fmin(lo[k], s.p.v[idx]), hi[k] = fmax(hi[k], s.p.v[idx]);
                below[k] += s.p.v[idx] < def.v[idx], above[k] += s.p.v[idx] > def.v[idx];
            }
            assert_int_equal(tl_m3_knobs_untrained_joint(&s.p, ccs[c], why, sizeof why), 0);
            tl_params_fini(&s.p);
        }
        int n_drawn = 0;
        for (int k = 0; k < N_KNOBS; k++) {
            const m3_knob_range *g = m3_knob_range_of(d->id, knobs[k]);
            if (!g || g->lo == g->hi)
                continue;
            n_drawn++;
            double w = g->is_log ? log(g->hi / g->lo) : g->hi - g->lo;
            double near_lo = g->is_log ? log(lo[k] / g->lo) : lo[k] - g->lo;
            double near_hi = g->is_log ? log(g->hi / hi[k]) : g->hi - hi[k];
            if (!(d->id == TL_CC_DCQCN && !strcmp(knobs[k], "switch.kmax_bytes_per_gbps")))
                assert_true(near_lo < 0.05 * w); /* (DCQCN's Kmax is at least Kmin) */
            assert_true(near_hi < 0.05 * w);
            double v = def.v[tl_params_find(knobs[k])];
            int own = g->cc_id == d->id && !g->is_zero_fabric &&
                      strcmp(knobs[k], "timely.t_high_ps") && g->lo < g->hi;
            if (own)
                assert_true(v > g->lo && v < g->hi);
            if (v > g->lo && v < g->hi) /* 300 draws: at least 15 on each side */
                assert_true(below[k] >= 15 && above[k] >= 15);
        }
        assert_true(n_drawn >= 3); /* the buffer, PFC and the CC's own knobs */
        for (size_t i = 0; i < tl_params_count(); i++)
            assert_int_equal(tl_m3_knob_untrained(&def, i, ccs[c], &fab, why, sizeof why), 0);
        assert_int_equal(tl_m3_knobs_untrained_joint(&def, ccs[c], why, sizeof why), 0);
        tl_params_fini(&def);
    }
    /* outside: named with the range; read but never drawn: the value
     * training held; 0 resolved from a fabric; knobs drawn together */
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    assert_int_equal(tl_params_apply_preset(&p, "timely.default", NULL), 0);
    int th = tl_params_find("timely.t_high_ps");
    p.v[th] = 900e6;
    assert_int_equal(tl_m3_knob_untrained(&p, (size_t)th, "timely", &fab, why, sizeof why), 1);
    assert_string_equal(why, "timely.t_high_ps = 900us is outside the range m3's timely "
                             "training drew it from (100us to 500us)");
    p.v[th] = 500e6; /* a bound is inside */
    assert_int_equal(tl_m3_knob_untrained(&p, (size_t)th, "timely", &fab, why, sizeof why), 0);
    tl_params_fini(&p);
    assert_int_equal(tl_params_init(&p, NULL), 0);
    assert_int_equal(tl_params_apply_preset(&p, "dcqcn.nvidia-default", NULL), 0);
    p.v[TL_K_SW_PMAX] = 0.9;
    assert_int_equal(tl_m3_knob_untrained(&p, TL_K_SW_PMAX, "dcqcn", &fab, why, sizeof why), 1);
    assert_string_equal(why, "m3's dcqcn training held switch.pmax at 0.2; 0.9 here");
    p.v[TL_K_SW_PFC] = 0;
    assert_int_equal(tl_m3_knob_untrained(&p, TL_K_SW_PFC, "dcqcn", &fab, why, sizeof why), 1);
    const tl_fabric_ref fast = {.rtt_ps = 14400000, .bdp_bytes = 180000,
                                .nic_bps = 100000000000};
    assert_int_equal(tl_m3_knob_untrained(&p, TL_K_SW_BUFFER_BYTES, "dcqcn", NULL, why,
                                          sizeof why),
                     0);
    assert_int_equal(tl_m3_knob_untrained(&p, TL_K_SW_BUFFER_BYTES, "dcqcn", &fast, why,
                                          sizeof why),
                     1);
    assert_string_equal(why, "switch.buffer_bytes = 32MiB (0: from the fabric) is outside the "
                             "range m3's dcqcn training drew it from (200KB to 4MB)");
    assert_int_equal(tl_m3_knob_untrained(&p, tl_params_find("hpcc.eta"), "dcqcn", &fab, why,
                                          sizeof why),
                     0); /* another CC's knob */
    p.v[TL_K_SW_KMAX_BYTES_PER_GBPS] = 3000; /* below Kmin 4 KB */
    assert_int_equal(tl_m3_knobs_untrained_joint(&p, "dcqcn", why, sizeof why), 1);
    tl_params_fini(&p);
    assert_int_equal(tl_params_init(&p, NULL), 0);
    p.v[TL_K_SW_KMIN_BYTES_PER_GBPS] = 1000; /* Kmax stays 3 KB */
    assert_int_equal(tl_m3_knobs_untrained_joint(&p, "dctcp-rate", why, sizeof why), 1);
    assert_string_equal(why, "m3's dctcp-rate training marked with Kmin = Kmax (DCTCP's step); "
                             "Kmin 1KB and Kmax 3KB per Gb/s here");
    p.v[TL_K_SW_KMAX_BYTES_PER_GBPS] = 1000;
    assert_int_equal(tl_m3_knobs_untrained_joint(&p, "dctcp-rate", why, sizeof why), 0);
    tl_params_fini(&p);
}

/* Foreground flows far apart on an otherwise empty path: pktsim's truth,
 * flowsim and the busiest-link reference all say slowdown 1. */
static void idle_path_truth(void **state)
{
    (void)state;
    m3_sample s;
    memset(&s, 0, sizeof s);
    assert_int_equal(tl_params_init(&s.p, NULL), 0);
    snprintf(s.cc, sizeof s.cc, "dctcp-rate");
    assert_int_equal(m3_pathwl_init(&s.w, 4, 1, NULL), 0);
    for (int l = 0; l < 4; l++)
        s.w.link[l] = (tl_fs_link){l == 0 || l == 3 ? 10000000000ull : 40000000000ull, 1000000};
    for (int i = 0; i < 200; i++) {
        tl_fs_path_flow f = {.size_bytes = (uint64_t)(100 + 397 * i), .start_ps = i * 100000000ll,
                             .first = 0, .last = 3};
        assert_int_equal(m3_pathwl_add(&s.w, &f, 1, 0, 0, NULL), 0);
    }
    double truth[M3_N_OUT][M3_N_Q];
    uint32_t n[M3_N_OUT];
    assert_int_equal(m3_synth_truth(&s, truth, n, NULL), 0);
    m3_feat ft;
    assert_int_equal(m3_features(&s.w, &s.p, s.cc, &ft, NULL), 0);
    for (int b = 0; b < M3_N_OUT; b++) {
        assert_int_equal(n[b], ft.n_fg[b]);
        assert_int_equal(n[b], ft.n_ref[b]); /* every flow crosses every link */
        for (int q = 0; q < M3_N_Q && n[b]; q++) {
            assert_true(fabs(truth[b][q] - 1) < 1e-3);
            assert_true(fabs(ft.fs_q[b][q] - 1) < 1e-3);
            assert_true(fabs(ft.ref_q[b][q] - 1) < 1e-3);
        }
    }
    m3_sample_fini(&s);
}

/* The reference's queue term: a small flow that starts while two long flows
 * send across a switch hop gets m3_queue_ps over its ideal time on top of
 * flowsim's slowdown (its own, fs_q, has none); twice Kmin doubles it, and
 * HPCC (no standing ECN queue) or a path whose only link is the NIC has none. */
static void reference_queue_term(void **state)
{
    (void)state;
    double extra[4];
    for (int v = 0; v < 4; v++) {
        tl_params p;
        assert_int_equal(tl_params_init(&p, NULL), 0);
        if (v == 1)
            assert_int_equal(tl_params_set(&p, "switch.kmin_bytes_per_gbps",
                                           2 * tl_params_get(&p, "switch.kmin_bytes_per_gbps"),
                                           NULL), 0);
        int n_links = v == 3 ? 1 : 2;
        m3_pathwl w;
        assert_int_equal(m3_pathwl_init(&w, n_links, 0, NULL), 0);
        for (int l = 0; l < n_links; l++)
            w.link[l] = (tl_fs_link){10000000000ull, 1000000};
        tl_fs_path_flow f[3] = {
            {.size_bytes = 1000000, .start_ps = 0, .last = (uint16_t)(n_links - 1)},
            {.size_bytes = 1000000, .start_ps = 1000, .last = (uint16_t)(n_links - 1)},
            {.size_bytes = 500, .start_ps = 100000000, .last = (uint16_t)(n_links - 1)}};
        for (int i = 0; i < 3; i++)
            assert_int_equal(m3_pathwl_add(&w, &f[i], 1, 0, 0, NULL), 0);
        m3_feat ft;
        assert_int_equal(m3_features(&w, &p, v == 2 ? "hpcc" : "dctcp-rate", &ft, NULL), 0);
        assert_int_equal(ft.n_ref[0], 1); /* the 500 B flow alone in 0-1 KB */
        extra[v] = ft.ref_q[0][M3_N_Q - 1] - ft.fs_q[0][M3_N_Q - 1];
        m3_pathwl_fini(&w);
        tl_params_fini(&p);
    }
    assert_true(extra[0] > 1); /* Kmin's half-drain time exceeds a 500 B flow's ideal */
    assert_true(fabs(extra[1] - 2 * extra[0]) < 1e-9 * extra[0]);
    assert_true(extra[2] == 0);
    assert_true(extra[3] == 0);
}

/* The 0-1 KB reference quantile's excess over flowsim's slowdown for a 500 B
 * flow crossing path links [first, last] of a two-link path (a 100 Gb/s
 * link, then one of rate1) while n_long 1 MB flows that can each take
 * 10 Gb/s (their own access link) cross link 1; a 30 MB flow on link 0
 * makes that link the busiest, so the small flow is in the reference
 * whichever links it crosses. */
static double queue_extra(int n_long, uint64_t rate1, uint16_t first, uint16_t last)
{
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    m3_pathwl w;
    assert_int_equal(m3_pathwl_init(&w, 2, 0, NULL), 0);
    w.link[0] = (tl_fs_link){100000000000ull, 1000000};
    w.link[1] = (tl_fs_link){rate1, 1000000};
    tl_fs_path_flow big = {.size_bytes = 30000000, .start_ps = 0, .first = 0, .last = 0};
    assert_int_equal(m3_pathwl_add(&w, &big, 0, 0, 0, NULL), 0);
    for (int i = 0; i < n_long; i++) {
        tl_fs_path_flow f = {.size_bytes = 1000000, .start_ps = 1000 * (i + 1), .first = 1,
                             .last = 1, .src = {10000000000ull, 1000000}};
        assert_int_equal(m3_pathwl_add(&w, &f, 0, 0, 0, NULL), 0);
    }
    tl_fs_path_flow small = {.size_bytes = 500, .start_ps = 100000000, .first = first,
                             .last = last};
    assert_int_equal(m3_pathwl_add(&w, &small, 1, 0, 0, NULL), 0);
    assert_int_equal(m3_pathwl_sort(&w, NULL), 0);
    m3_feat ft;
    assert_int_equal(m3_features(&w, &p, "dctcp-rate", &ft, NULL), 0);
    assert_int_equal(ft.n_ref[0], 1);
    double extra = ft.ref_q[0][M3_N_Q - 1] - ft.fs_q[0][M3_N_Q - 1]; /* it is the foreground */
    m3_pathwl_fini(&w);
    tl_params_fini(&p);
    return extra;
}

/* The queue term needs a saturated hop: two flows that can each take
 * 10 Gb/s leave a 40 Gb/s hop partly idle and hold no queue there, four
 * fill it, and two fill a 10 Gb/s hop, where one alone holds none. A
 * reference flow meets the queue at
 * a hop it does not cross itself (it stands for the foreground, which
 * crosses every hop; on a rack-local path most of the busiest link's flows
 * leave the path after the NIC). */
static void reference_queue_saturation(void **state)
{
    (void)state;
    double two40 = queue_extra(2, 40000000000ull, 0, 1);
    double four40 = queue_extra(4, 40000000000ull, 0, 1);
    double two10 = queue_extra(2, 10000000000ull, 0, 1);
    double one10 = queue_extra(1, 10000000000ull, 0, 1);
    double probe = queue_extra(2, 10000000000ull, 0, 0);
    assert_true(fabs(two40) < 1e-6);
    assert_true(four40 > 1); /* Kmin's half-drain time exceeds a 500 B flow's ideal */
    assert_true(two10 > 1);
    assert_true(fabs(one10) < 1e-6); /* one flow at its own rate holds no queue */
    assert_true(probe > 1);
}

/* Flow i's ideal FCT in flowsim's path-level run of w. */
static double path_ideal_ps(const m3_pathwl *w, const tl_params *p, size_t i)
{
    tl_flowsim *fs = tl_flowsim_create_path(w->link, w->n_links, w->flow, w->n_flows, p, NULL);
    assert_non_null(fs);
    assert_int_equal(tl_flowsim_run(fs, NULL, NULL), 0);
    double ideal = (double)tl_flowsim_results(fs)[i].ideal_ps;
    tl_flowsim_destroy(fs);
    return ideal;
}

/* The burst queue (TIMELY): two 50 KB flows start together at 10
 * Gb/s into a 10 Gb/s switch hop, each in one burst (TIMELY's T_low, 50 us,
 * covers it), so the queue grows at 10 Gb/s for their sending time d, then
 * drains at 10 Gb/s (no bytes beyond the bursts); a 100 B flow that starts
 * at 1.5 d finds d/2 of queue, added over its ideal time to the reference
 * and not to flowsim's own estimate, besides the queue term of the hop the
 * two saturate in flowsim until 2 d. HPCC has neither, and with a T_low of
 * 1 us the bursts are too short to leave a queue by then. *ideal is the
 * 100 B flow's ideal time. */
static double burst_extra(const char *cc, double t_low_ps, double *want, double *ideal)
{
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    assert_int_equal(tl_params_set(&p, "timely.t_low_ps", t_low_ps, NULL), 0);
    double mtu = tl_params_get(&p, "nic.mtu_bytes"), hdr = tl_params_get(&p, "nic.header_bytes");
    double wire = 50000 + ceil(50000 / mtu) * hdr, d_ps = wire * 8 / 10e9 * 1e12;
    m3_pathwl w;
    assert_int_equal(m3_pathwl_init(&w, 2, 0, NULL), 0);
    w.link[0] = w.link[1] = (tl_fs_link){10000000000ull, 1000000};
    tl_fs_path_flow f[3] = {
        {.size_bytes = 50000, .start_ps = 0, .first = 0, .last = 1},
        {.size_bytes = 50000, .start_ps = 0, .first = 1, .last = 1, .src = {10000000000ull, 1000000}},
        {.size_bytes = 100, .start_ps = (int64_t)llround(1.5 * d_ps), .first = 0, .last = 1}};
    for (int i = 0; i < 3; i++)
        assert_int_equal(m3_pathwl_add(&w, &f[i], i != 1, 0, 0, NULL), 0);
    assert_int_equal(m3_pathwl_sort(&w, NULL), 0);
    m3_feat ft;
    assert_int_equal(m3_features(&w, &p, cc, &ft, NULL), 0);
    assert_int_equal(ft.n_ref[0], 1); /* the 100 B flow, the only 0-1 KB flow of link 1 */
    *ideal = path_ideal_ps(&w, &p, 2);
    *want = (d_ps - (double)(w.flow[2].start_ps - llround(d_ps))) / *ideal;
    double extra = ft.ref_q[0][M3_N_Q - 1] - ft.fs_q[0][M3_N_Q - 1];
    m3_pathwl_fini(&w);
    tl_params_fini(&p);
    return extra;
}

static void reference_burst_queue(void **state)
{
    (void)state;
    double want, unused, ideal;
    tl_params p;
    assert_int_equal(tl_params_init(&p, NULL), 0);
    assert_int_equal(tl_params_set(&p, "timely.t_low_ps", 50e6, NULL), 0);
    double q50 = m3_queue_ps(&p, "timely");
    assert_int_equal(tl_params_set(&p, "timely.t_low_ps", 1e6, NULL), 0);
    double q1 = m3_queue_ps(&p, "timely");
    tl_params_fini(&p);
    double timely = burst_extra("timely", 50e6, &want, &ideal);
    assert_true(want > 1); /* half a 50 KB burst outlasts a 100 B flow's ideal time */
    want += q50 / ideal;
    assert_true(fabs(timely - want) < 1e-6 * want);
    assert_true(burst_extra("hpcc", 50e6, &unused, &ideal) == 0);
    double short_burst = burst_extra("timely", 1e6, &unused, &ideal);
    assert_true(q1 > 0);
    assert_true(fabs(short_burst - q1 / ideal) < 1e-6 * q1 / ideal);
}

/* TIMELY's queue term (schema 6): half of T_low, once per path however many
 * of its switch hops are saturated (it regulates the whole RTT), where
 * DCTCP's counts each saturated hop. Two 10 MB flows cross a NIC and two 10
 * Gb/s switch hops from time 0 and hold both hops saturated in flowsim past
 * 5 ms, when a 500 B flow starts; their line-rate bursts (T_low, 62.5 KB)
 * drained long before. */
static void reference_queue_timely(void **state)
{
    (void)state;
    double extra[2], q[2], ideal = 0;
    const char *ccs[2] = {"timely", "dctcp-rate"};
    for (int v = 0; v < 2; v++) {
        tl_params p;
        assert_int_equal(tl_params_init(&p, NULL), 0);
        q[v] = m3_queue_ps(&p, ccs[v]);
        m3_pathwl w;
        assert_int_equal(m3_pathwl_init(&w, 3, 0, NULL), 0);
        for (int l = 0; l < 3; l++)
            w.link[l] = (tl_fs_link){10000000000ull, 1000000};
        tl_fs_path_flow f[3] = {
            {.size_bytes = 10000000, .start_ps = 0, .last = 2},
            {.size_bytes = 10000000, .start_ps = 1000, .last = 2},
            {.size_bytes = 500, .start_ps = 5000000000, .last = 2}};
        for (int i = 0; i < 3; i++)
            assert_int_equal(m3_pathwl_add(&w, &f[i], 1, 0, 0, NULL), 0);
        m3_feat ft;
        assert_int_equal(m3_features(&w, &p, ccs[v], &ft, NULL), 0);
        assert_int_equal(ft.n_ref[0], 1);
        extra[v] = ft.ref_q[0][M3_N_Q - 1] - ft.fs_q[0][M3_N_Q - 1];
        ideal = path_ideal_ps(&w, &p, 2);
        m3_pathwl_fini(&w);
        tl_params_fini(&p);
    }
    assert_true(q[0] > 0 && q[1] > 0);
    assert_true(fabs(extra[0] - q[0] / ideal) < 1e-6 * extra[0]);
    assert_true(fabs(extra[1] - 2 * q[1] / ideal) < 1e-6 * extra[1]);
}

/* Feature 26, the coefficient of variation of the busiest link's
 * inter-arrival times: flows 0, 1, 5 and 6 us apart give gaps of 1, 4 and
 * 1 us, a CV of sqrt(2) / 2 under dctcp-rate; DCQCN's features hold it at 1
 * (schema 8: its training fabrics never showed the suite's burstier busy
 * racks, docs/m3.md "The DCQCN model of schema 8"). */
static void arrival_cv_per_cc(void **state)
{
    (void)state;
    const char *ccs[2] = {"dctcp-rate", "dcqcn"};
    const double want[2] = {sqrt(2) / 2, 1};
    char name[32];
    assert_string_equal(m3_feature_name(26, name, sizeof name), "iat_cv_busiest");
    for (int v = 0; v < 2; v++) {
        tl_params p;
        assert_int_equal(tl_params_init(&p, NULL), 0);
        m3_pathwl w;
        assert_int_equal(m3_pathwl_init(&w, 1, 0, NULL), 0);
        w.link[0] = (tl_fs_link){10000000000ull, 1000000};
        const int64_t at[4] = {0, 1000000, 5000000, 6000000};
        for (int i = 0; i < 4; i++) {
            tl_fs_path_flow f = {.size_bytes = 500, .start_ps = at[i], .last = 0};
            assert_int_equal(m3_pathwl_add(&w, &f, 1, 0, 0, NULL), 0);
        }
        assert_int_equal(m3_pathwl_sort(&w, NULL), 0);
        m3_feat ft;
        assert_int_equal(m3_features(&w, &p, ccs[v], &ft, NULL), 0);
        float x[M3_N_FEATURES];
        m3_feat_row(&ft, 0, 0, x);
        assert_true(fabs(x[26] - want[v]) < 1e-6);
        m3_pathwl_fini(&w);
        tl_params_fini(&p);
    }
}

/* A kept reference re-queued under another Kmin (under DCQCN, another
 * Kmax: its queue term reads both) has exactly the reference quantiles that
 * featurizing under that value gives (so such a sweep need not re-run
 * flowsim), they differ from the first value's, and re-queuing under the
 * first value gives its quantiles back bit for bit. Under DCTCP Kmax moves
 * nothing. */
static void reference_requeue(void **state)
{
    (void)state;
    const char *ccs[2] = {"dctcp-rate", "dcqcn"};
    const char *knobs[2] = {"switch.kmin_bytes_per_gbps", "switch.kmax_bytes_per_gbps"};
    for (int v = 0; v < 2; v++) {
        m3_synth_opts o;
        m3_synth_opts_default(&o);
        o.fg_flows = 300, o.max_flows = 4000, o.only_cc = ccs[v];
        m3_sample a;
        assert_int_equal(m3_synth_draw(&a, 5, 7, &o, NULL), 0);
        tl_params p2;
        assert_int_equal(tl_params_copy(&p2, &a.p, NULL), 0);
        double k0 = tl_params_get(&a.p, knobs[v]);
        assert_int_equal(tl_params_set(&p2, knobs[v], 3 * k0, NULL), 0);
        assert_true(m3_knob_changes_reference(knobs[v], a.cc));
        m3_feat f1, f1_again, f2;
        m3_refkeep keep;
        memset(&keep, 0, sizeof keep);
        assert_int_equal(m3_features_keep(&a.w, &a.p, a.cc, &f1, &keep, NULL), 0);
        assert_int_equal(m3_features(&a.w, &p2, a.cc, &f2, NULL), 0);
        f1_again = f1;
        assert_int_equal(m3_feat_requeue(&f1, &keep, m3_queue_ps(&p2, a.cc), NULL), 0);
        assert_memory_equal(f1.ref_q, f2.ref_q, sizeof f1.ref_q);
        assert_true(memcmp(f1.ref_q, f1_again.ref_q, sizeof f1.ref_q) != 0);
        assert_int_equal(m3_feat_requeue(&f1, &keep, m3_queue_ps(&a.p, a.cc), NULL), 0);
        assert_memory_equal(f1.ref_q, f1_again.ref_q, sizeof f1.ref_q);
        if (v == 0) { /* DCTCP's term reads Kmin only */
            assert_int_equal(tl_params_set(&p2, knobs[0], k0, NULL), 0);
            assert_int_equal(tl_params_set(&p2, knobs[1], 3 * tl_params_get(&a.p, knobs[1]), NULL),
                             0);
            assert_true(m3_queue_ps(&p2, a.cc) == m3_queue_ps(&a.p, a.cc));
            assert_false(m3_knob_changes_reference(knobs[1], a.cc));
        }
        m3_refkeep_fini(&keep);
        tl_params_fini(&p2);
        m3_sample_fini(&a);
    }
}

/* Three samples then six (resumed) equal six at once, and a torn last line
 * is dropped and remade; other settings in the same folder are refused. */
static void resumable_samples(void **state)
{
    (void)state;
    char *d1 = tu_temp_path(""), *d2 = tu_temp_path("");
    tl_m3_gen_opts o;
    tl_m3_gen_opts_default(&o);
    o.fg_flows = 100, o.max_flows = 1500, o.n_threads = 2;
    uint64_t n_new;
    o.n_samples = 6;
    assert_int_equal(tl_m3_gen_data(d1, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, 6);
    /* a run stopped before its header was written (an empty file), or
     * halfway through it, made nothing: the next run starts afresh */
    char p1[512], p2[512], head[512];
    snprintf(p1, sizeof p1, "%s/samples.csv", d1);
    snprintf(p2, sizeof p2, "%s/samples.csv", d2);
    FILE *hf = fopen(p1, "r");
    assert_non_null(hf);
    assert_non_null(fgets(head, sizeof head, hf));
    fclose(hf);
    mkdir(d2, 0777);
    for (int torn = 0; torn < 2; torn++) {
        hf = fopen(p2, "w");
        assert_non_null(hf);
        fwrite(head, 1, torn ? strlen(head) / 2 : 0, hf);
        fclose(hf);
        o.n_samples = 1;
        assert_int_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, NULL), 0);
        assert_int_equal(n_new, 1);
    }
    unlink(p2);
    o.n_samples = 3;
    assert_int_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, NULL), 0);
    FILE *f = fopen(p2, "a"); /* an interrupted write */
    fputs("3,4,dcqcn,pare", f);
    fclose(f);
    o.n_samples = 6;
    o.n_threads = 1;
    assert_int_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, 3);
    size_t l1, l2;
    char *a = tu_read_file(p1, &l1), *b = tu_read_file(p2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a), free(b);
    tl_err err;
    o.seed = 99;
    assert_int_not_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, &err), 0);
    tu_check_err("other settings", &err, TL_EINVAL, "samples.csv", "other settings");
    o.seed = 1, o.pfc = 1; /* the same samples but all lossless: another header */
    assert_int_not_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, &err), 0);
    tu_check_err("other pfc", &err, TL_EINVAL, "samples.csv", "other settings");
    unlink(p1), unlink(p2), rmdir(d1), rmdir(d2);
    free(d1), free(d2);
}

/* Each line of fabric.csv text parses back to itself, in index order;
 * foreground slowdowns are at least 1 and their count matches the buckets. */
static void check_fabric_lines(const char *file_text, uint32_t per, uint32_t n_want)
{
    char *b = strdup(file_text);
    char *line = strchr(b, '\n') + 1; /* after the header */
    assert_int_equal(m3_fabric_per(b), per);
    uint32_t n_lines = 0;
    while (*line) {
        char *end = strchr(line, '\n');
        *end = '\0';
        char *copy = strdup(line);
        m3_fpath r;
        assert_int_equal(m3_fpath_parse(copy, "fabric.csv", 2 + n_lines, &r, NULL), 0);
        assert_int_equal(r.index, n_lines);
        size_t n_fg = 0;
        for (int k = 0; k < M3_N_OUT; k++)
            n_fg += r.feat.n_fg[k];
        assert_true(n_fg >= 1); /* a drawn path carries at least one flow end to end */
        for (size_t k = 0; k < n_fg; k++)
            assert_true(r.sd[k] >= 1 - 1e-9);
        char *text = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&text, &len);
        m3_fpath_write(mf, &r);
        fclose(mf);
        assert_int_equal(len, strlen(line) + 1);
        assert_memory_equal(text, line, len - 1);
        free(text), free(copy);
        m3_fpath_fini(&r);
        line = end + 1;
        n_lines++;
    }
    assert_int_equal(n_lines, n_want);
    free(b);
}

/* Path-truth fabric samples: two scenarios on 2 threads equal one then two
 * (resumed, after a torn block) on 1, and check_fabric_lines holds. */
static void fabric_samples(void **state)
{
    (void)state;
    char *d1 = tu_temp_path(""), *d2 = tu_temp_path("");
    tl_m3_gen_opts o;
    tl_m3_gen_opts_default(&o);
    o.is_fabric = 1, o.only_cc = "dctcp-rate", o.n_threads = 2;
    uint64_t n_new;
    o.n_samples = 2 * M3_FABRIC_PATHS;
    assert_int_equal(tl_m3_gen_data(d1, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, 2 * M3_FABRIC_PATHS);
    o.n_samples = 1, o.n_threads = 1; /* rounds up to one scenario */
    assert_int_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, M3_FABRIC_PATHS);
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/fabric.csv", d1);
    snprintf(p2, sizeof p2, "%s/fabric.csv", d2);
    FILE *f = fopen(p2, "a"); /* part of a second block */
    fputs("40,dctcp-rate,6,100,1\n41,dctcp", f);
    fclose(f);
    o.n_samples = 2 * M3_FABRIC_PATHS;
    assert_int_equal(tl_m3_gen_data(d2, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, M3_FABRIC_PATHS);
    size_t l1, l2;
    char *a = tu_read_file(p1, &l1), *b = tu_read_file(p2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    check_fabric_lines(a, M3_FABRIC_PATHS, 2 * M3_FABRIC_PATHS);
    free(a), free(b);
    unlink(p1), unlink(p2), rmdir(d1), rmdir(d2);
    free(d1), free(d2);
}

/* --truth-from: labels come from the old folder, features are made again.
 * An old folder whose labels were all doubled gives a file equal to the
 * honest one but for the doubled labels (a run that simulated would give
 * the honest labels); one made with other settings is refused. */
static void fabric_truth_from(void **state)
{
    (void)state;
    char *d1 = tu_temp_path(""), *d2 = tu_temp_path(""), *d3 = tu_temp_path("");
    tl_m3_gen_opts o;
    tl_m3_gen_opts_default(&o);
    o.is_fabric = 1, o.only_cc = "dctcp-rate", o.n_threads = 2, o.n_samples = M3_FABRIC_PATHS;
    uint64_t n_new;
    assert_int_equal(tl_m3_gen_data(d1, &o, NULL, &n_new, NULL), 0);
    char p1[512], p2[512], p3[512];
    snprintf(p1, sizeof p1, "%s/fabric.csv", d1);
    snprintf(p2, sizeof p2, "%s/fabric.csv", d2);
    snprintf(p3, sizeof p3, "%s/fabric.csv", d3);
    size_t len;
    char *honest = tu_read_file(p1, &len), *b = strdup(honest);
    assert_int_equal(mkdir(d2, 0777), 0);
    FILE *f = fopen(p2, "w");
    char *line = b, *end = strchr(line, '\n');
    *end = '\0';
    fprintf(f, "%s\n", line); /* the header */
    size_t n_labels = 0;
    for (line = end + 1; *line; line = end + 1) {
        end = strchr(line, '\n');
        *end = '\0';
        m3_fpath r;
        assert_int_equal(m3_fpath_parse(line, "fabric.csv", 2, &r, NULL), 0);
        size_t n_fg = 0;
        for (int k = 0; k < M3_N_OUT; k++)
            n_fg += r.feat.n_fg[k];
        for (size_t j = 0; j < n_fg; j++)
            r.sd[j] *= 2;
        n_labels += n_fg;
        m3_fpath_write(f, &r);
        m3_fpath_fini(&r);
    }
    fclose(f);
    assert_true(n_labels >= M3_FABRIC_PATHS);
    o.n_threads = 1, o.truth_from = d2;
    assert_int_equal(tl_m3_gen_data(d3, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, M3_FABRIC_PATHS);
    char *made = tu_read_file(p3, &len), *want = tu_read_file(p2, &len);
    assert_string_equal(made, want); /* the doubled labels, the same features */
    assert_true(strcmp(made, honest) != 0);
    o.only_cc = "hpcc";
    tl_err err;
    tl_err_clear(&err);
    char *d4 = tu_temp_path("");
    assert_int_equal(tl_m3_gen_data(d4, &o, NULL, &n_new, &err), TL_EINVAL);
    assert_non_null(strstr(err.msg, "same settings"));
    free(honest), free(b), free(made), free(want);
    unlink(p1), unlink(p2), unlink(p3);
    rmdir(d1), rmdir(d2), rmdir(d3), rmdir(d4);
    free(d1), free(d2), free(d3), free(d4);
}

/* Network truth: every label of scenario 0 is the slowdown of one of its
 * flows in pktsim on the whole fabric with the drawn transport (a label
 * from the path's own parking lot would match none). */
static void fabric_net_samples(void **state)
{
    (void)state;
    char *dir = tu_temp_path(""), path[512];
    tl_m3_gen_opts o;
    tl_m3_gen_opts_default(&o);
    o.is_fabric = 2, o.only_cc = "dctcp-rate", o.n_threads = 1, o.seed = 4, o.n_samples = 1;
    uint64_t n_new;
    assert_int_equal(tl_m3_gen_data(dir, &o, NULL, &n_new, NULL), 0);
    assert_int_equal(n_new, M3_FABRIC_PATHS_NET); /* one whole scenario */
    snprintf(path, sizeof path, "%s/fabric.csv", dir);
    size_t len;
    char *text = tu_read_file(path, &len);
    check_fabric_lines(text, M3_FABRIC_PATHS_NET, M3_FABRIC_PATHS_NET);
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dctcp-rate", so.is_net_truth = 1;
    m3_sample cfg;
    char json[2048];
    assert_int_equal(m3_fabric_scenario(4, 0, &so, NULL, NULL, &cfg, json, sizeof json, NULL), 0);
    tl_world w;
    assert_int_equal(tl_world_from_json(&w, json, 1, NULL), 0);
    tl_pktsim *sim = tl_pktsim_create(w.topo, w.routes, &w.flows, &cfg.p, cfg.cc, w.sc.seed, NULL);
    assert_non_null(sim);
    assert_int_equal(tl_pktsim_run(sim, 0, NULL, NULL), 0);
    const tl_flow_result *res = tl_pktsim_results(sim);
    double *all = malloc(w.flows.n * sizeof *all);
    for (size_t i = 0; i < w.flows.n; i++)
        all[i] = tl_slowdown(res[i].fct_ps, res[i].ideal_ps);
    qsort(all, w.flows.n, sizeof *all, tl_cmp_double);
    char *line = strchr(text, '\n') + 1;
    size_t n_checked = 0;
    for (uint32_t l = 0; l < M3_FABRIC_PATHS_NET; l++) {
        char *end = strchr(line, '\n');
        *end = '\0';
        m3_fpath r;
        assert_int_equal(m3_fpath_parse(line, "fabric.csv", 2 + l, &r, NULL), 0);
        size_t n_fg = 0;
        for (int k = 0; k < M3_N_OUT; k++)
            n_fg += r.feat.n_fg[k];
        for (size_t k = 0; k < n_fg; k++, n_checked++) {
            size_t lo = 0, hi = w.flows.n; /* first >= the label, less a print's rounding */
            double want = r.sd[k] * (1 - 1e-8);
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (all[mid] < want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            assert_true(lo < w.flows.n);
            assert_true(fabs(all[lo] - r.sd[k]) <= 1e-8 * r.sd[k]);
        }
        m3_fpath_fini(&r);
        line = end + 1;
    }
    assert_true(n_checked >= M3_FABRIC_PATHS_NET);
    free(all);
    tl_pktsim_destroy(sim);
    tl_world_fini(&w);
    tl_params_fini(&cfg.p);
    free(text);
    unlink(path), rmdir(dir);
    free(dir);
}

/* Fabric scenarios carry at most 2 GB of flows and 60,000 flows; with
 * --length long 1-16 GB drawn log-uniformly (at most 200,000 flows), and
 * twenty of them spread over most of that range. The long draw comes
 * last, so a scenario's law is the same either way. */
static void fabric_byte_budget(void **state)
{
    (void)state;
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dctcp-rate";
    double lo = INFINITY, hi = 0;
    for (uint64_t scen = 0; scen < 20; scen++) {
        double flows[2], mean[2];
        for (int is_long = 0; is_long < 2; is_long++) {
            m3_sample cfg;
            char json[8192];
            so.is_long = is_long;
            assert_int_equal(
                m3_fabric_scenario(1, scen, &so, NULL, NULL, &cfg, json, sizeof json, NULL), 0);
            const char *at = strstr(json, "\"flows\": ");
            assert_non_null(at);
            flows[is_long] = atof(at + 9), mean[is_long] = cfg.mean_bytes;
            tl_params_fini(&cfg.p);
        }
        assert_true(mean[0] == mean[1]);
        assert_true(flows[0] == fmin(60000, floor(2e9 / mean[0])));
        double bytes = flows[1] * mean[1];
        assert_true(flows[1] >= 1 && flows[1] <= 200000 && bytes <= 1.6e10);
        if (flows[1] < 200000) { /* not capped: the drawn budget */
            assert_true(bytes > 1e9 - mean[1]);
            lo = fmin(lo, bytes), hi = fmax(hi, bytes);
        }
    }
    assert_true(hi / lo > 4);
}

/* A mixture-law fabric scenario names its CDF file, which builds a valid
 * workload whose mean size is the law's (within the sampling noise of a
 * heavy tail); without the mixture no file is written. */
static void fabric_mixture_scenario(void **state)
{
    (void)state;
    char *cdf = tu_temp_path(".cdf");
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dctcp-rate";
    m3_sample cfg;
    char json[8192];
    assert_int_equal(m3_fabric_scenario(1, 0, &so, cdf, NULL, &cfg, json, sizeof json, NULL), 0);
    assert_int_equal(access(cdf, F_OK), -1);
    assert_null(strstr(json, "\"cdf\""));
    tl_params_fini(&cfg.p);
    so.is_mixture = 1;
    assert_int_equal(m3_fabric_scenario(1, 0, &so, cdf, NULL, &cfg, json, sizeof json, NULL), 0);
    assert_non_null(strstr(json, cdf));
    assert_string_equal(cfg.size_kind, "mixture");
    tl_world w;
    assert_int_equal(tl_world_from_json(&w, json, 1, NULL), 0);
    double sum = 0, n_small = 0;
    for (size_t i = 0; i < w.flows.n; i++) {
        sum += (double)w.flows.v[i].size_bytes;
        n_small += w.flows.v[i].size_bytes <= 5000;
    }
    assert_true(w.flows.n > 1000);
    assert_true(n_small > 0.2 * (double)w.flows.n); /* the small part is there */
    double mean = sum / (double)w.flows.n;
    assert_true(mean > 0.5 * cfg.mean_bytes && mean < 2 * cfg.mean_bytes);
    tl_world_fini(&w);
    tl_params_fini(&cfg.p);
    unlink(cdf);
    free(cdf);
}

/* The share of a tabulated size law (a CDF file, loaded as any workload
 * loads it) in [lo, hi) bytes, read at its points. */
static double cdf_share(const char *path, double lo, double hi)
{
    tl_sizedist d;
    assert_int_equal(tl_sizedist_load(&d, path, NULL), 0);
    double at_lo = 0, at_hi = 0;
    for (size_t i = 0; i < d.n_pts; i++) {
        at_lo = d.x_bytes[i] < lo ? d.p_frac[i] : at_lo;
        at_hi = d.x_bytes[i] < hi ? d.p_frac[i] : at_hi;
    }
    tl_sizedist_fini(&d);
    return at_hi - at_lo;
}

/* Three-part laws put flows in 10-50 KB, which two-part laws leave nearly
 * empty in most scenarios (docs/m3.md "Fabric samples"); the draws made
 * before the law (transport, load, burstiness) are the same either way. */
static void fabric_mixture3_scenario(void **state)
{
    (void)state;
    char *cdf = tu_temp_path(".cdf");
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "timely";
    enum { N = 41 };
    double mid[2][N];
    for (int parts = 0; parts < 2; parts++)
        for (int scen = 0; scen < N; scen++) {
            m3_sample cfg, cfg2;
            char json[8192];
            so.is_mixture = 1 + parts;
            assert_int_equal(
                m3_fabric_scenario(1, scen, &so, cdf, NULL, &cfg, json, sizeof json, NULL), 0);
            assert_string_equal(cfg.size_kind, parts ? "mixture3" : "mixture");
            mid[parts][scen] = cdf_share(cdf, 10e3, 50e3);
            so.is_mixture = 2 - parts;
            assert_int_equal(
                m3_fabric_scenario(1, scen, &so, cdf, NULL, &cfg2, json, sizeof json, NULL), 0);
            assert_true(cfg.target_load == cfg2.target_load && cfg.sigma == cfg2.sigma);
            assert_true(tl_params_get(&cfg.p, "timely.t_low_ps") ==
                        tl_params_get(&cfg2.p, "timely.t_low_ps"));
            tl_params_fini(&cfg.p);
            tl_params_fini(&cfg2.p);
        }
    qsort(mid[0], N, sizeof(double), tl_cmp_double);
    qsort(mid[1], N, sizeof(double), tl_cmp_double);
    assert_true(mid[0][N / 2] < 0.05); /* two-part: the median law holds little there */
    assert_true(mid[1][N / 2] > 0.07); /* three-part: WebServer has 9%, Hadoop 11% */
    assert_true(mid[1][N / 4] > 2 * mid[0][N / 4] + 0.01);
    unlink(cdf);
    free(cdf);
}

/* Measured laws (--sizes measured): each scenario takes one of the four
 * training laws, never a law of the accuracy suite, with its sizes scaled by
 * 0.5-2 (so its mean too); the draws before the law are those of the
 * mixtures. */
static void fabric_measured_scenario(void **state)
{
    (void)state;
    char *cdf = tu_temp_path(".cdf");
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dcqcn";
    static const char *const allowed[] = {"websearch", "google-rpc", "ali-storage", "solar"};
    int seen[4] = {0};
    for (int scen = 0; scen < 40; scen++) {
        m3_sample cfg, cfg2;
        char json[8192];
        so.is_mixture = 3;
        assert_int_equal(m3_fabric_scenario(1, scen, &so, cdf, NULL, &cfg, json, sizeof json, NULL),
                         0);
        assert_non_null(strstr(json, cdf));
        int k = -1;
        for (int i = 0; i < 4; i++)
            k = strcmp(cfg.size_kind, allowed[i]) ? k : i;
        assert_true(k >= 0);
        seen[k]++;
        tl_sizedist law, drawn;
        assert_int_equal(tl_sizedist_load(&law, allowed[k], NULL), 0);
        assert_int_equal(tl_sizedist_load(&drawn, cdf, NULL), 0);
        double scale = drawn.mean_bytes / law.mean_bytes;
        assert_true(scale > 0.49 && scale < 2.01);
        assert_true(fabs(cfg.mean_bytes / drawn.mean_bytes - 1) < 0.01);
        /* the shape is kept: the median scales as the mean does */
        double m0 = tl_sizedist_icdf(&law, 0.5), m1 = tl_sizedist_icdf(&drawn, 0.5);
        assert_true(fabs(m1 / (m0 * scale) - 1) < 0.02 || fabs(m1 - m0 * scale) < 2);
        tl_sizedist_fini(&law);
        tl_sizedist_fini(&drawn);
        so.is_mixture = 1;
        assert_int_equal(
            m3_fabric_scenario(1, scen, &so, cdf, NULL, &cfg2, json, sizeof json, NULL), 0);
        assert_true(cfg.target_load == cfg2.target_load && cfg.sigma == cfg2.sigma);
        tl_params_fini(&cfg.p);
        tl_params_fini(&cfg2.p);
    }
    int n_laws = 0;
    for (int i = 0; i < 4; i++)
        n_laws += seen[i] > 0;
    assert_true(n_laws == 4);
    unlink(cdf);
    free(cdf);
}

/* With rack-local traffic, about half the scenarios name a rack matrix whose
 * workload keeps the drawn share of flows inside racks; the others stay
 * uniform and write no matrix; without the option no scenario is local. */
static void fabric_local_scenario(void **state)
{
    (void)state;
    char *mat = tu_temp_path(".txt");
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dctcp-rate";
    m3_sample cfg;
    char json[16384];
    int n_local = 0, n_uniform = 0;
    for (uint64_t scen = 0; scen < 8; scen++) {
        so.is_local = 0;
        assert_int_equal(m3_fabric_scenario(1, scen, &so, NULL, mat, &cfg, json, sizeof json,
                                            NULL), 0);
        assert_true(cfg.p_local == 0);
        assert_non_null(strstr(json, "\"spatial\": {\"type\": \"uniform\"}"));
        tl_params_fini(&cfg.p);
        so.is_local = 1;
        assert_int_equal(m3_fabric_scenario(1, scen, &so, NULL, mat, &cfg, json, sizeof json,
                                            NULL), 0);
        if (cfg.p_local == 0) {
            n_uniform++;
            assert_int_equal(access(mat, F_OK), -1);
            assert_null(strstr(json, mat));
            tl_params_fini(&cfg.p);
            continue;
        }
        n_local++;
        assert_true(cfg.p_local >= 0.2 && cfg.p_local <= 1);
        assert_non_null(strstr(json, mat));
        tl_world w;
        assert_int_equal(tl_world_from_json(&w, json, 1, NULL), 0);
        double n_in = 0;
        for (size_t i = 0; i < w.flows.n; i++)
            n_in += tl_topo_node(w.topo, w.flows.v[i].src)->rack ==
                    tl_topo_node(w.topo, w.flows.v[i].dst)->rack;
        assert_true(w.flows.n >= 1000);
        assert_true(fabs(n_in / (double)w.flows.n - cfg.p_local) < 0.06);
        tl_world_fini(&w);
        tl_params_fini(&cfg.p);
        unlink(mat);
    }
    assert_true(n_local >= 1 && n_uniform >= 1);
    free(mat);
}

/* With skewed traffic every scenario names a rack matrix: racks send
 * unequal shares of the flows (uniform traffic sends each rack 1/32 of
 * them, within a few percent at these flow counts), about half the
 * scenarios keep the drawn share of flows inside racks and the others none. */
static void fabric_skew_scenario(void **state)
{
    (void)state;
    char *mat = tu_temp_path(".txt");
    m3_synth_opts so;
    m3_synth_opts_default(&so);
    so.only_cc = "dctcp-rate";
    so.is_skew = 1;
    m3_sample cfg;
    char json[16384];
    int n_local = 0, n_none = 0;
    for (uint64_t scen = 0; scen < 8; scen++) {
        assert_int_equal(m3_fabric_scenario(1, scen, &so, NULL, mat, &cfg, json, sizeof json,
                                            NULL), 0);
        assert_true(cfg.has_matrix);
        assert_non_null(strstr(json, mat));
        assert_true(cfg.p_local >= 0 && cfg.p_local <= 0.7);
        tl_world w;
        assert_int_equal(tl_world_from_json(&w, json, 1, NULL), 0);
        assert_true(w.flows.n >= 1000);
        double n_in = 0, per_rack[32] = {0};
        for (size_t i = 0; i < w.flows.n; i++) {
            int ra = tl_topo_node(w.topo, w.flows.v[i].src)->rack;
            n_in += ra == tl_topo_node(w.topo, w.flows.v[i].dst)->rack;
            assert_true(ra >= 0 && ra < 32);
            per_rack[ra]++;
        }
        double lo = INFINITY, hi = 0;
        for (int k = 0; k < 32; k++)
            lo = fmin(lo, per_rack[k]), hi = fmax(hi, per_rack[k]);
        assert_true(hi > 1.3 * lo);
        assert_true(fabs(n_in / (double)w.flows.n - cfg.p_local) < 0.06);
        n_local += cfg.p_local > 0, n_none += cfg.p_local == 0;
        tl_world_fini(&w);
        tl_params_fini(&cfg.p);
        unlink(mat);
    }
    assert_true(n_local >= 1 && n_none >= 1);
    free(mat);
}

/* A temporary folder (*dir) with path = its fabric.csv, open for writing
 * with a header of 4 paths per scenario, and model = a model file in it. */
static FILE *test_fabric_open(char **dir, char *path, char *model)
{
    *dir = tu_temp_path("");
    assert_int_equal(mkdir(*dir, 0777), 0);
    snprintf(path, 512, "%s/fabric.csv", *dir);
    snprintf(model, 512, "%s/m.model", *dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "# tailor m3 fabric paths: schema %d, seed 1, cc dctcp-rate, paths 4, test\n",
            M3_FEATURE_SCHEMA);
    return f;
}

/* Synthetic path i of such a folder: random shared features, n_fg 0-1 KB
 * foreground flows labelled sd (not copied) and a 0-1 KB reference of
 * 1 + step * q at grid quantile q; the other buckets empty. */
static void test_fpath(m3_fpath *fp, uint64_t i, tl_rng *r, uint32_t n_fg, double step,
                       double *sd)
{
    memset(fp, 0, sizeof *fp);
    fp->index = i, fp->hops = 4, fp->n_flows = 100;
    snprintf(fp->cc, sizeof fp->cc, "dctcp-rate");
    for (int k = 0; k < M3_N_SHARED; k++)
        fp->feat.shared[k] = (float)tl_rng_uniform(r);
    fp->feat.n_fg[0] = n_fg;
    for (int q = 0; q < M3_N_Q; q++)
        fp->feat.ref_q[0][q] = 1 + step * q;
    for (int b = 1; b < M3_N_OUT; b++)
        for (int q = 0; q < M3_N_Q; q++)
            fp->feat.ref_q[b][q] = NAN;
    fp->sd = sd;
}

/* Reported coverage (%) at the second quantile column (90%) of bucket 0-1KB
 * in a training log. */
static double reported_q90(const char *log)
{
    const char *p = strstr(log, "reported flows");
    assert_non_null(p);
    p = strstr(p, "  0-1KB");
    assert_non_null(p);
    double n, m50, f50, m90, f90;
    assert_int_equal(sscanf(p, " 0-1KB %lf %lf / %lf %lf / %lf", &n, &m50, &f50, &m90, &f90), 5);
    return m90;
}

/* Cross-fitted calibration: labels log-uniform on [1, e] over a reference
 * of 1 (so the q-quantile of the log ratio is q), a model of two shallow
 * trees that cannot learn that, and flows of held-out scenarios at or below
 * its 90% prediction: far from 90% uncalibrated, about 90% with shifts from
 * out-of-fold residuals (4 folds of the training scenarios). */
static void fabric_train_calib_folds(void **state)
{
    (void)state;
    char *dir, path[512], model[512], log_path[600];
    FILE *f = test_fabric_open(&dir, path, model);
    snprintf(log_path, sizeof log_path, "%s.log", model);
    tl_rng r;
    tl_rng_init(&r, 2, "test", 0);
    double sd[40];
    for (uint64_t i = 0; i < 40 * 4; i++) {
        m3_fpath fp;
        test_fpath(&fp, i, &r, 40, 0, sd);
        for (int k = 0; k < 40; k++)
            sd[k] = exp(tl_rng_uniform(&r));
        m3_fpath_write(f, &fp);
    }
    fclose(f);
    tl_m3_train_opts o;
    tl_m3_train_opts_default(&o);
    o.n_trees = 2, o.max_depth = 2, o.n_threads = 1;
    const char *dirs[1] = {dir};
    assert_int_equal(tl_m3_train(dirs, 1, model, &o, NULL), 0);
    char *log = tu_read_file(log_path, NULL);
    assert_non_null(strstr(log, "no calibration: 2 calibration scenarios"));
    double raw = reported_q90(log);
    free(log);
    o.calib_folds = 4;
    assert_int_equal(tl_m3_train(dirs, 1, model, &o, NULL), 0);
    log = tu_read_file(log_path, NULL);
    assert_non_null(strstr(log, "calibration fold 4 of 4: trained on"));
    assert_non_null(strstr(log, "out of fold, 4 folds of the training scenarios)"));
    double cal = reported_q90(log);
    free(log);
    print_message("held-out flows at or below the 90%% prediction: %.1f%% raw, %.1f%% "
                  "calibrated\n", raw, cal);
    assert_true(fabs(raw - 90) > 20);
    assert_true(fabs(cal - 90) < 6);
    unlink(log_path), unlink(model), unlink(path), rmdir(dir);
    free(dir);
}

/* Training on fabric paths leaves out a collapsed scenario (median
 * foreground slowdown above 20 without PFC) and keeps the others, a
 * lossless one with as high a median (PFC pauses, not drops) included. */
static void fabric_train_drops_collapse(void **state)
{
    (void)state;
    char *dir, path[512], model[512];
    FILE *f = test_fabric_open(&dir, path, model);
    tl_rng r;
    tl_rng_init(&r, 1, "test", 0);
    /* 12 scenarios of 4 paths; 3 collapsed, 5 as slow but lossless */
    for (uint64_t i = 0; i < 12 * 4; i++) {
        m3_fpath fp;
        double sd[3];
        test_fpath(&fp, i, &r, 3, 1, sd);
        fp.feat.shared[M3_SHARED_PFC] = i / 4 == 5 ? 1.0f : 0.0f;
        for (int k = 0; k < 3; k++)
            sd[k] = (i / 4 == 3 || i / 4 == 5 ? 100 : 1) + 3 * tl_rng_uniform(&r);
        m3_fpath_write(f, &fp);
    }
    fclose(f);
    tl_m3_train_opts o;
    tl_m3_train_opts_default(&o);
    o.n_trees = 3, o.max_depth = 2, o.n_threads = 1;
    const char *dirs[2] = {dir, dir};
    assert_int_equal(tl_m3_train(dirs, 1, model, &o, NULL), 0);
    char log_path[600];
    snprintf(log_path, sizeof log_path, "%s.log", model);
    char *log = tu_read_file(log_path, NULL);
    assert_non_null(strstr(log, "paths 44 (held out 4,"));
    assert_non_null(strstr(log, "left out: 1 collapsed scenarios (4 paths;"));
    free(log);
    /* the same folder twice: its scenarios numbered on, so twice the paths,
     * the held-out ones and the collapsed ones */
    assert_int_equal(tl_m3_train(dirs, 2, model, &o, NULL), 0);
    log = tu_read_file(log_path, NULL);
    assert_non_null(strstr(log, "paths 88 (held out 8,"));
    assert_non_null(strstr(log, "left out: 2 collapsed scenarios (8 paths;"));
    assert_non_null(strstr(log, "paths 4, test; tailor m3 fabric paths:"));
    free(log);
    unlink(log_path), unlink(model), unlink(path), rmdir(dir);
    free(dir);
}

static int summary_equal(const tl_summary *a, const tl_summary *b)
{
    return !memcmp(a->all, b->all, sizeof a->all);
}

/* flowsim-only m3 (no model file needed): the same summary on 1 and 2
 * threads; its counts are the workload's own; a repredict under a knob
 * that neither flowsim nor the reference reads keeps the uncorrected
 * estimate. */
static void engine_determinism(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, WORLD(4000));
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.is_no_model = 1;
    o.n_paths = 60;
    tl_summary s[2];
    for (int t = 0; t < 2; t++) {
        o.n_threads = t + 1;
        tl_m3 *m = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 3, &o, NULL);
        assert_non_null(m);
        assert_int_equal(tl_m3_run(m, NULL, NULL), 0);
        assert_int_equal(tl_m3_summary(m, &s[t], NULL), 0);
        if (t == 1) {
            tl_params p2;
            assert_int_equal(tl_params_copy(&p2, &w.sc.params, NULL), 0);
            assert_int_equal(tl_params_set(&p2, "switch.kmax_bytes_per_gbps", 30000, NULL), 0);
            assert_int_equal(tl_m3_repredict(m, &p2, w.sc.cc, NULL), 0);
            tl_summary s3;
            assert_int_equal(tl_m3_summary(m, &s3, NULL), 0);
            assert_true(summary_equal(&s[1], &s3));
            tl_m3_destroy(m);
            tl_params_fini(&p2);
        } else {
            tl_m3_destroy(m);
        }
    }
    assert_true(summary_equal(&s[0], &s[1]));
    assert_int_equal(s[0].all[TL_N_BUCKETS - 1].count, 4000);
    uint64_t n = 0;
    for (int b = 0; b < TL_N_BUCKETS - 1; b++)
        n += s[0].all[b].count;
    assert_int_equal(n, 4000);
    assert_true(s[0].all[TL_N_BUCKETS - 1].p[2] >= 1);
    tl_world_fini(&w);
}

/* pktsim on each drawn path (the decomposition's own estimate): the same on
 * 1 and 2 threads; its p99 is within a factor of two of the full pktsim
 * run's (4,000 flows make both noisy; docs/accuracy.md measures it at
 * scale) and above flowsim's, which misses queueing; a repredict under
 * another ECN threshold re-simulates and changes it. */
static void path_pktsim_engine(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, WORLD(4000));
    tl_pktsim *p = tl_pktsim_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, w.sc.seed,
                                    NULL);
    assert_non_null(p);
    assert_int_equal(tl_pktsim_run(p, 0, NULL, NULL), 0);
    tl_summary ref, s[3];
    assert_int_equal(tl_summary_build(&ref, "pktsim", &w.flows, tl_pktsim_results(p), NULL), 0);
    tl_pktsim_destroy(p);
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.n_paths = 200;
    o.is_keep_workloads = 1;
    for (int t = 0; t < 3; t++) {
        o.n_threads = t == 1 ? 2 : 1;
        o.is_path_pktsim = t < 2, o.is_no_model = t == 2;
        tl_m3 *m = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 3, &o, NULL);
        assert_non_null(m);
        assert_int_equal(tl_m3_run(m, NULL, NULL), 0);
        assert_int_equal(tl_m3_summary(m, &s[t], NULL), 0);
        if (t == 1) {
            tl_params p2;
            assert_int_equal(tl_params_copy(&p2, &w.sc.params, NULL), 0);
            assert_int_equal(tl_params_set(&p2, "switch.kmin_bytes_per_gbps", 30000, NULL), 0);
            assert_int_equal(tl_params_set(&p2, "switch.kmax_bytes_per_gbps", 30000, NULL), 0);
            assert_int_equal(tl_m3_repredict(m, &p2, w.sc.cc, NULL), 0);
            tl_summary s2;
            assert_int_equal(tl_m3_summary(m, &s2, NULL), 0);
            assert_false(summary_equal(&s[1], &s2));
            tl_params_fini(&p2);
        }
        tl_m3_destroy(m);
    }
    assert_true(summary_equal(&s[0], &s[1]));
    double r99 = ref.all[TL_N_BUCKETS - 1].p[2], e99 = s[0].all[TL_N_BUCKETS - 1].p[2],
           f99 = s[2].all[TL_N_BUCKETS - 1].p[2];
    print_message("p99: pktsim %.3f, m3 path pktsim %.3f, m3 flowsim %.3f\n", r99, e99, f99);
    assert_true(e99 > r99 / 2 && e99 < r99 * 2);
    assert_true(e99 > f99);
    tl_summary_fini(&ref);
    tl_world_fini(&w);
}

/* Whether a and b hold the same values, NaN equal to NaN. */
static int same_floats(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return 0;
    return 1;
}

/* m3_knob_is_read lists by hand the knobs m3_features_config reads (with
 * those that change flowsim's input or the reference): for every knob and
 * CC, moving the knob changes the configuration vector exactly when the
 * list says the model reads it, or the knob works through flowsim or the
 * reference instead. A feature added to one and not the other fails here. */
static void knob_read_list_matches_config(void **state)
{
    (void)state;
    m3_pathwl w;
    assert_int_equal(m3_pathwl_init(&w, 2, 0, NULL), 0);
    w.link[0] = (tl_fs_link){10000000000ull, 1000000};
    w.link[1] = (tl_fs_link){40000000000ull, 1000000};
    int n_read = 0;
    for (size_t c = 0; c < tl_cc_count(); c++) { /* every registered CC */
        const char *cc = tl_cc_get(c)->name;
        tl_params p;
        assert_int_equal(tl_params_init(&p, NULL), 0);
        const char *preset = tl_cc_get(c)->default_preset;
        if (preset)
            assert_int_equal(tl_params_apply_preset(&p, preset, NULL), 0);
        m3_feat f0, f1;
        memset(&f0, 0, sizeof f0), memset(&f1, 0, sizeof f1);
        m3_features_config(&w, &p, cc, &f0);
        for (size_t i = 0; i < tl_params_count(); i++) {
            const tl_param_def *d = tl_params_def(i);
            tl_params q;
            assert_int_equal(tl_params_copy(&q, &p, NULL), 0);
            double v = q.v[i];
            /* a value inside the range and far enough from v to show */
            double nv = d->unit == TL_UNIT_BOOL ? 1 - v : v < d->max ? fmin(d->max, 2 * v + 1)
                                                                      : fmax(d->min, v / 2);
            if (d->is_integer)
                nv = nv > v ? ceil(nv) : floor(nv);
            assert_true(nv != v);
            assert_int_equal(tl_params_set(&q, d->name, nv, NULL), 0);
            m3_features_config(&w, &q, cc, &f1);
            int changed = !same_floats(f0.shared, f1.shared, M3_N_SHARED);
            int elsewhere = m3_knob_changes_features(d->name, cc) ||
                            m3_knob_changes_reference(d->name, cc);
            int is_read = m3_knob_is_read(d->name, cc);
            if (elsewhere ? !is_read : changed != is_read)
                fail_msg("%s under %s: the configuration vector %s, m3_knob_is_read says %d",
                         d->name, cc, changed ? "changes" : "does not change", is_read);
            n_read += changed;
            tl_params_fini(&q);
        }
        tl_params_fini(&p);
    }
    assert_true(n_read > 10); /* the test moved knobs the vector reads */
    m3_pathwl_fini(&w);
}

/* A missing model file is an error naming it. */
static void missing_model(void **state)
{
    (void)state;
    tl_world w;
    tu_world_make(&w, WORLD(100));
    tl_m3_opts o;
    tl_m3_opts_default(&o);
    o.model_path = "/nonexistent/m3.model";
    tl_err err;
    assert_null(tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, w.sc.cc, 1, &o, &err));
    tu_check_err("missing model", &err, TL_EIO, "/nonexistent/m3.model", NULL);
    tl_world_fini(&w);
}

/* A model file records its feature schema; the engine reads one of an older
 * schema when the features of the scenario's CC have not changed since
 * (schema 6 changed TIMELY's only, schema 7 DCQCN's): a schema-5 HPCC model
 * is read, schema-5 TIMELY and DCQCN models are refused with an error that
 * names the file and the schema. The trees are the shipped dctcp-rate model's, re-saved. */
static void model_schema_per_cc(void **state)
{
    (void)state;
    char shipped[4096];
    tl_err err;
    assert_int_equal(tl_data_path("models/m3.model", shipped, sizeof shipped, &err), 0);
    m3_model *m = m3_model_load(shipped, M3_SCHEMA_OLDEST, M3_FEATURE_SCHEMA, &err);
    assert_non_null(m);
    char *f = tu_temp_path(".model");
    tl_world w;
    tu_world_make(&w, WORLD(100));
    const char *ccs[3] = {"hpcc", "timely", "dcqcn"};
    for (int v = 0; v < 3; v++) {
        char meta[64];
        snprintf(meta, sizeof meta, "{\"ccs\": \"%s\"}", ccs[v]);
        assert_int_equal(m3_model_save(m, f, M3_SCHEMA_OLDEST, meta, &err), 0);
        tl_m3_opts o;
        tl_m3_opts_default(&o);
        o.model_path = f;
        tl_err_clear(&err);
        tl_m3 *e = tl_m3_create(w.topo, w.routes, &w.flows, &w.sc.params, ccs[v], 1, &o, &err);
        if (v == 0)
            assert_non_null(e);
        else {
            char want[128];
            snprintf(want, sizeof want, "trained on feature schema 5, and %s's features have "
                     "changed", ccs[v]);
            tu_check_err("a schema-5 TIMELY or DCQCN model", &err, TL_EINVAL, f, want);
        }
        tl_m3_destroy(e);
    }
    assert_true(m3_schema_first("dcqcn") == M3_FEATURE_SCHEMA);
    remove(f);
    free(f);
    tl_world_fini(&w);
    m3_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_and_sampling),  cmocka_unit_test(path_workload_recount),
        cmocka_unit_test(mixture_by_hand),     cmocka_unit_test(synthetic_samples),
        cmocka_unit_test(idle_path_truth),     cmocka_unit_test(resumable_samples),
        cmocka_unit_test(forced_pfc),
        cmocka_unit_test(fabric_samples),
        cmocka_unit_test(fabric_net_samples),
        cmocka_unit_test(fabric_truth_from),
        cmocka_unit_test(fabric_train_drops_collapse),
        cmocka_unit_test(fabric_train_calib_folds),
        cmocka_unit_test(calib_mixture_meets_pooled),
        cmocka_unit_test(fabric_mixture_scenario),
        cmocka_unit_test(fabric_mixture3_scenario),
        cmocka_unit_test(fabric_measured_scenario),
        cmocka_unit_test(fabric_byte_budget),
        cmocka_unit_test(fabric_local_scenario),
        cmocka_unit_test(fabric_skew_scenario),
        cmocka_unit_test(reference_queue_term),
        cmocka_unit_test(reference_queue_saturation),
        cmocka_unit_test(reference_burst_queue),
        cmocka_unit_test(reference_queue_timely),
        cmocka_unit_test(arrival_cv_per_cc),
        cmocka_unit_test(model_schema_per_cc),
        cmocka_unit_test(reference_requeue),
        cmocka_unit_test(engine_determinism),  cmocka_unit_test(path_pktsim_engine),
        cmocka_unit_test(missing_model),
        cmocka_unit_test(knob_read_list_matches_config),
        cmocka_unit_test(training_ranges_match_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
