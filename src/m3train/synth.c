/* Synthetic training samples (m3.txt §5.1, Tables 2 and 4): a 2-, 4- or 6-hop
 * parking lot shaped like a fabric path (host links at both ends, faster
 * links between switches), a foreground pair and random background pairs, a
 * parametric size law, log-normal arrivals scaled to a target bottleneck
 * load, and a random congestion control with random parameters. The ground
 * truth is pktsim on the same flows. Choices that differ from m3's are in
 * docs/m3.md "Training data". */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "m3train/m3train_int.h"
#include "tailor/cc.h"
#include "tailor/rng.h"
#include "tailor/sizedist.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define HOST_BPS M3_SIDE_BPS      /* the 32-rack fabric's host links (parsimon-eval) */
#define FABRIC_BPS 40000000000ull /* and its switch-to-switch links */
#define DELAY_PS M3_SIDE_DELAY_PS /* 1 us per link */
#define SIDE_HOSTS M3_SIDE_HOSTS  /* hosts beside each switch (a rack's worth) */
#define MAX_PAIRS 28              /* 7 positions: 6 hops */
#define BUFFER "switch.buffer_bytes"
#define KMIN "switch.kmin_bytes_per_gbps"
#define KMAX "switch.kmax_bytes_per_gbps"
#define WINDOW "dctcp_rate.window_bytes"
#define TLOW "timely.t_low_ps"
#define THIGH "timely.t_high_ps"

void m3_synth_opts_default(m3_synth_opts *o)
{
    *o = (m3_synth_opts){.fg_flows = 1000, .max_flows = 30000};
}

void m3_sample_fini(m3_sample *s)
{
    tl_params_fini(&s->p);
    m3_pathwl_fini(&s->w);
}

static double uni(tl_rng *r, double a, double b) { return a + (b - a) * tl_rng_uniform(r); }
static double log_uni(tl_rng *r, double a, double b) { return exp(uni(r, log(a), log(b))); }

/* One draw of knob under the CC of stable id cc, from m3's training ranges
 * (src/m3/ranges.c), which `tailor run` checks scenarios against. */
static double draw(tl_rng *r, int cc, const char *knob)
{
    const m3_knob_range *g = m3_knob_range_of(cc, knob);
    assert(g); /* every knob drawn here has its row */
    return g->is_log ? log_uni(r, g->lo, g->hi) : uni(r, g->lo, g->hi);
}

/* Network configuration (Table 4), widened to contain this tool's defaults
 * (3 KB/Gb/s marking, 3 MiB buffers, HPCC's 50 Mb/s AI, TIMELY's 500 us
 * T_high), which the evaluation scenarios use. */
int m3_synth_config(m3_sample *s, tl_rng *r, const m3_synth_opts *o, tl_err *err)
{
    static const int ccs[4] = {TL_CC_DCTCP_RATE, TL_CC_DCQCN, TL_CC_HPCC, TL_CC_TIMELY};
    const tl_cc_desc *d =
        o->only_cc ? tl_cc_lookup(o->only_cc) : tl_cc_lookup_id(ccs[tl_rng_below(r, 4)]);
    if (!d)
        return tl_err_set(err, TL_EINVAL, "unknown congestion control '%s'", o->only_cc);
    snprintf(s->cc, sizeof s->cc, "%s", d->name);
    tl_params *p = &s->p;
    const char *preset = d->default_preset;
    int rc = preset ? tl_params_apply_preset(p, preset, err) : 0;
    rc = rc ? rc : tl_params_set(p, "switch.buffer_bytes", round(draw(r, d->id, BUFFER)), err);
    if (!rc && d->id != TL_CC_DCQCN) /* DCQCN stays lossless (as in m3's data) */
        rc = tl_params_set(p, "switch.pfc", (double)tl_rng_below(r, 2), err);
    if (!rc && o->pfc) /* after the draw, which the other draws follow */
        rc = tl_params_set(p, "switch.pfc", o->pfc == 1, err);
    if (rc)
        return rc;
    /* m3's ranges per CC it trains on (by stable id); the draws' order is
     * the training data's, which a folder made before resumes */
    switch (d->id) {
    case TL_CC_DCTCP_RATE:
    case TL_CC_DCTCP: {
        double k = round(draw(r, d->id, KMIN));
        rc = tl_params_set(p, KMIN, k, err);
        rc = rc ? rc : tl_params_set(p, KMAX, k, err);
        rc = rc ? rc : tl_params_set(p, WINDOW, round(draw(r, d->id, WINDOW)), err);
        break;
    }
    case TL_CC_DCQCN: {
        double kmin = round(draw(r, d->id, KMIN));
        double kmax = round(draw(r, d->id, KMAX));
        rc = tl_params_set(p, KMIN, kmin, err);
        rc = rc ? rc : tl_params_set(p, KMAX, fmax(kmax, kmin), err);
        break;
    }
    case TL_CC_HPCC:
        rc = tl_params_set(p, "hpcc.eta", draw(r, d->id, "hpcc.eta"), err);
        rc = rc ? rc : tl_params_set(p, "hpcc.ai_bps", round(draw(r, d->id, "hpcc.ai_bps")), err);
        break;
    case TL_CC_TIMELY:
        rc = tl_params_set(p, TLOW, round(draw(r, d->id, TLOW)), err);
        rc = rc ? rc : tl_params_set(p, THIGH, round(draw(r, d->id, THIGH)), err);
        break;
    default:
        break;
    }
    return rc;
}

/* The PFC threshold shift of cc's default preset (0: fixed thresholds, or
 * no preset; for every CC, NULL, the largest). */
static int preset_pfc_shift(const char *cc)
{
    if (!cc) {
        int max = 0;
        for (size_t i = 0; i < tl_cc_count(); i++) {
            int shift = preset_pfc_shift(tl_cc_get(i)->name);
            max = shift > max ? shift : max;
        }
        return max;
    }
    const tl_cc_desc *d = tl_cc_lookup(cc);
    const char *preset = d ? d->default_preset : NULL;
    tl_params p;
    if (!preset || tl_params_init(&p, NULL))
        return 0;
    int shift = tl_params_apply_preset(&p, preset, NULL) ? 0 : (int)tl_knob(&p, TL_K_SW_PFC_SHIFT);
    tl_params_fini(&p);
    return shift;
}

void m3_config_tag(const m3_synth_opts *o, char *buf, size_t n)
{
    int shift = preset_pfc_shift(o->only_cc);
    char s[32] = "";
    if (shift > 0)
        snprintf(s, sizeof s, ", pfc shift %d", shift);
    /* HPCC's widened η and AI ranges change its draws: a folder made before
     * them is not extended or reused */
    const tl_cc_desc *d = o->only_cc ? tl_cc_lookup(o->only_cc) : NULL;
    int hpcc = !o->only_cc || (d && d->id == TL_CC_HPCC);
    snprintf(buf, n, "%s%s%s", s, o->pfc == 1 ? ", pfc on" : o->pfc == 2 ? ", pfc off" : "",
             hpcc ? ", hpcc ranges 2" : "");
}

/* Size law (Table 2): Pareto, exponential, Gaussian or log-normal, mean 5-50 KB. */
int m3_synth_sizes(m3_sample *s, tl_rng *r, tl_sizedist *d, double max_mean, tl_err *err)
{
    static const tl_size_kind kinds[4] = {TL_SIZE_PARETO, TL_SIZE_EXP, TL_SIZE_GAUSSIAN,
                                          TL_SIZE_LOGNORMAL};
    static const char *const names[4] = {"pareto", "exponential", "gaussian", "lognormal"};
    int k = (int)tl_rng_below(r, 4);
    s->mean_bytes = log_uni(r, 5e3, max_mean);
    s->size_shape = k == 0 ? uni(r, 1.05, 2.0) : k == 2 ? s->mean_bytes * uni(r, 0.3, 1.0)
                    : k == 3 ? uni(r, 1.0, 2.5)
                             : 0;
    snprintf(s->size_kind, sizeof s->size_kind, "%s", names[k]);
    return tl_sizedist_param(d, kinds[k], s->mean_bytes, s->size_shape, err);
}

int m3_synth_draw(m3_sample *s, uint64_t seed, uint64_t index, const m3_synth_opts *o,
                  tl_err *err)
{
    memset(s, 0, sizeof *s);
    s->index = index;
    tl_rng r;
    tl_rng_init(&r, seed, "m3-synth", index);
    static const int hop_choices[3] = {2, 4, 6};
    int h = hop_choices[tl_rng_below(&r, 3)];
    s->hops = h;
    tl_sizedist sd = {0};
    int rc = tl_params_init(&s->p, err);
    rc = rc ? rc : m3_synth_config(s, &r, o, err);
    rc = rc ? rc : m3_synth_sizes(s, &r, &sd, 50e3, err);
    rc = rc ? rc : m3_pathwl_init(&s->w, h, 1, err);
    if (rc)
        goto fail;
    for (int l = 0; l < h; l++)
        s->w.link[l] = (tl_fs_link){l == 0 || l == h - 1 ? HOST_BPS : FABRIC_BPS, DELAY_PS};

    /* Pairs (i < j) of positions 0..h; pair 0 is the foreground (0, h).
     * Weights as m3's generator: 1 for the foreground, u p / ntc for the
     * others with p from {ntc, 10, 20, 50, 100}. */
    int pi[MAX_PAIRS], pj[MAX_PAIRS], n_all = 0;
    for (int i = 0; i < h; i++)
        for (int j = i + 1; j <= h; j++)
            if (i != 0 || j != h)
                pi[n_all] = i, pj[n_all++] = j;
    int ntc = 2 + (int)tl_rng_below(&r, (uint64_t)(n_all + 1) - 1); /* 2 .. all pairs */
    static const double pchoice[5] = {0, 10, 20, 50, 100};
    double pw = pchoice[tl_rng_below(&r, 5)];
    if (pw == 0)
        pw = ntc;
    int ci[MAX_PAIRS], cj[MAX_PAIRS];
    double wt[MAX_PAIRS], wsum = 1;
    ci[0] = 0, cj[0] = h, wt[0] = 1;
    for (int k = 1; k < ntc; k++) { /* a partial Fisher-Yates draw without replacement */
        int m = k - 1 + (int)tl_rng_below(&r, (uint64_t)(n_all - (k - 1)));
        int ti = pi[m], tj = pj[m];
        pi[m] = pi[k - 1], pj[m] = pj[k - 1];
        pi[k - 1] = ti, pj[k - 1] = tj;
        ci[k] = ti, cj[k] = tj;
        wt[k] = tl_rng_uniform_pos(&r) * pw / ntc;
        wsum += wt[k];
    }

    /* Arrivals: one log-normal process scaled so the busiest link carries
     * the target load of its capacity. */
    s->target_load = uni(&r, 0.2, 0.8);
    s->sigma = uni(&r, 1.0, 2.0);
    uint32_t mtu = (uint32_t)tl_knob(&s->p, TL_K_NIC_MTU_BYTES);
    uint32_t hdr = (uint32_t)tl_knob(&s->p, TL_K_NIC_HEADER_BYTES);
    double wire = s->mean_bytes * (1 + (double)hdr / mtu) + hdr / 2.0; /* per flow, expected */
    double rate = INFINITY; /* flows per second */
    for (int l = 0; l < h; l++) {
        double share = 0;
        for (int k = 0; k < ntc; k++)
            if (ci[k] <= l && cj[k] > l)
                share += wt[k] / wsum;
        if (share > 0)
            rate = fmin(rate, s->target_load * (double)s->w.link[l].rate_bps / (8 * wire * share));
    }
    double fg_share = 1 / wsum;
    uint64_t n = (uint64_t)ceil(o->fg_flows / fg_share);
    if (n > o->max_flows)
        n = o->max_flows;
    if (n < o->fg_flows)
        n = o->fg_flows;

    gsl_rng gr;
    tl_rng_gsl(&gr, &r);
    double t_s = 0;
    for (uint64_t i = 0; i < n; i++) {
        double u = tl_rng_uniform(&r) * wsum;
        int k = 0;
        while (k < ntc - 1 && u >= wt[k])
            u -= wt[k++];
        tl_fs_path_flow f = {.size_bytes = tl_sizedist_sample(&sd, &r),
                             .start_ps = (int64_t)llround(t_s * 1e12),
                             .first = (uint16_t)ci[k],
                             .last = (uint16_t)(cj[k] - 1)};
        uint16_t sk = 0, dk = 0;
        if (ci[k] > 0) {
            f.src = (tl_fs_link){HOST_BPS, DELAY_PS};
            sk = (uint16_t)tl_rng_below(&r, SIDE_HOSTS);
        }
        if (cj[k] < h) {
            f.dst = (tl_fs_link){HOST_BPS, DELAY_PS};
            dk = (uint16_t)tl_rng_below(&r, SIDE_HOSTS);
        }
        if ((rc = m3_pathwl_add(&s->w, &f, k == 0, sk, dk, err)))
            goto fail;
        /* mean-1 log-normal gap times the mean gap */
        t_s += gsl_ran_lognormal(&gr, -0.5 * s->sigma * s->sigma, s->sigma) / rate;
    }
    if ((rc = m3_pathwl_sort(&s->w, err)))
        goto fail;
    tl_sizedist_fini(&sd);
    return 0;
fail:
    tl_sizedist_fini(&sd);
    m3_sample_fini(s);
    return rc;
}

/* ---- ground truth ---- */

int m3_synth_truth(const m3_sample *s, double truth[M3_N_OUT][M3_N_Q], uint32_t n_out[M3_N_OUT],
                   tl_err *err)
{
    return m3_path_pktsim(&s->w, &s->p, s->cc, tl_mix64(s->index + 1), truth, n_out, NULL, err);
}
