/* What m3's training samples cover of the network's knobs (m3.txt Table 4,
 * widened to hold this tool's defaults; docs/m3.md "Training data"), and
 * the check `tailor run` and `sweep` make against it: outside, the trees
 * extrapolate, and no figure measured them there. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "m3/m3_int.h"
#include "tailor/cc.h"
#include "tailor/m3.h"
#include "tailor/units.h"

#define BUFFER "switch.buffer_bytes"
#define KMIN "switch.kmin_bytes_per_gbps"
#define KMAX "switch.kmax_bytes_per_gbps"
#define WINDOW "dctcp_rate.window_bytes"

/* The continuous rows are the generator's draws (src/m3train/synth.c draws
 * from them), so editing one changes the training data: a folder made
 * before would then resume with other draws unless its header tag changes
 * (m3_config_tag). The first row that matches wins: per-CC rows come
 * before the rows for every CC. */
static const m3_knob_range ranges[] = {
    /* DCTCP's step marking, K = Kmin = Kmax (the joint check below) */
    {TL_CC_DCTCP_RATE, KMIN, 500, 4000, 0, 0},
    {TL_CC_DCTCP_RATE, KMAX, 500, 4000, 0, 0},
    /* 0 takes the fabric's largest BDP (18 KB on the 32-rack fabric) */
    {TL_CC_DCTCP_RATE, WINDOW, 5e3, 30e3, 0, 1},
    {TL_CC_DCTCP, KMIN, 500, 4000, 0, 0},
    {TL_CC_DCTCP, KMAX, 500, 4000, 0, 0},
    /* dctcp does not read this knob; the generator sets it all the same */
    {TL_CC_DCTCP, WINDOW, 5e3, 30e3, 0, 1},
    {TL_CC_DCQCN, KMIN, 2000, 5000, 0, 0},
    {TL_CC_DCQCN, KMAX, 5000, 20000, 0, 0},
    {TL_CC_DCQCN, "switch.pfc", 1, 1, 0, 0}, /* DCQCN stays lossless, as in m3's data */
    /* Table 4's 0.70-0.95 and 50 Mb/s-1 Gb/s, widened so that the defaults
     * lie inside rather than at a corner (docs/m3.md, "HPCC ranges") */
    {TL_CC_HPCC, "hpcc.eta", 0.70, 1.0, 0, 0},
    {TL_CC_HPCC, "hpcc.ai_bps", 10e6, 1e9, 1, 0},
    {TL_CC_TIMELY, "timely.t_low_ps", 40e6, 60e6, 0, 0},
    {TL_CC_TIMELY, "timely.t_high_ps", 100e6, 500e6, 0, 0},
    /* every CC; 0 sizes the buffer from the fabric's fastest host link */
    {-1, BUFFER, 200e3, 4e6, 1, 1},
    {-1, "switch.pfc", 0, 1, 0, 0}, /* drawn lossless or not (m3_synth_config) */
};

const m3_knob_range *m3_knob_range_of(int cc_id, const char *knob)
{
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if ((ranges[i].cc_id < 0 || ranges[i].cc_id == cc_id) && !strcmp(ranges[i].knob, knob))
            return &ranges[i];
    return NULL;
}

/* A knob's value in its unit as --set spells it ("500us", "50Mbps", "4MB"). */
static void fmt_knob(const tl_param_def *def, double v, char *buf, size_t n)
{
    if (def->unit == TL_UNIT_PS && v >= 0 && v < 9e18)
        tl_units_fmt_time((int64_t)llround(v), buf, n);
    else if (def->unit == TL_UNIT_BPS && v >= 0 && v < 9e18)
        tl_units_fmt_rate((uint64_t)llround(v), buf, n);
    else if (def->unit == TL_UNIT_BYTES && v >= 1048576 && fmod(v, 1048576) == 0)
        snprintf(buf, n, "%gMiB", v / 1048576);
    else if (def->unit == TL_UNIT_BYTES && v >= 1e6 && fmod(v, 1e5) == 0)
        snprintf(buf, n, "%gMB", v / 1e6);
    else if (def->unit == TL_UNIT_BYTES && v >= 1e3 && fmod(v, 100) == 0)
        snprintf(buf, n, "%gKB", v / 1e3);
    else if (def->unit == TL_UNIT_BYTES)
        snprintf(buf, n, "%.0fB", v);
    else
        snprintf(buf, n, "%.6g", v);
}

int tl_m3_knob_untrained(const tl_params *p, size_t i, const char *cc,
                         const tl_fabric_ref *fab, char *why, size_t n)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    if (!d || i >= p->n || i >= tl_params_count())
        return 0;
    const tl_param_def *def = tl_params_def(i);
    if (!m3_knob_is_read(def->name, cc))
        return 0;
    double v = p->v[i];
    const m3_knob_range *g = m3_knob_range_of(d->id, def->name);
    const char *resolved = "";
    if (g && g->is_zero_fabric && v == 0) {
        /* the value the features see (m3_features_config) */
        if (!fab)
            return 0;
        double mtu = tl_knob(p, TL_K_NIC_MTU_BYTES);
        v = !strcmp(def->name, BUFFER)
                ? (double)tl_pktsim_buffer_bytes(p, fab->nic_bps)
                : tl_cc_start_window_bytes(d, p, mtu, (double)fab->bdp_bytes);
        resolved = " (0: from the fabric)";
    }
    char a[64], b[64], x[64];
    fmt_knob(def, v, x, sizeof x);
    if (g && g->lo < g->hi) {
        if (v >= g->lo && v <= g->hi) /* the draws are rounded: a bound is inside */
            return 0;
        fmt_knob(def, g->lo, a, sizeof a);
        fmt_knob(def, g->hi, b, sizeof b);
        snprintf(why, n, "%s = %s%s is outside the range m3's %s training drew it from (%s to %s)",
                 def->name, x, resolved, cc, a, b);
        return 1;
    }
    /* held at one value: the row's, or else the CC's default (a knob the
     * model reads that the generator never draws: the MTU, Pmax) */
    double held = g ? g->lo : def->def;
    if (!g) {
        tl_params base;
        if (tl_params_init(&base, NULL))
            return 0;
        if (!d->default_preset || !tl_params_apply_preset(&base, d->default_preset, NULL))
            held = base.v[i];
        tl_params_fini(&base);
    }
    if (v == held)
        return 0;
    fmt_knob(def, held, a, sizeof a);
    snprintf(why, n, "m3's %s training held %s at %s; %s here", cc, def->name, a, x);
    return 1;
}

int tl_m3_knobs_untrained_joint(const tl_params *p, const char *cc, char *why, size_t n)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    double kmin = tl_knob(p, TL_K_SW_KMIN_BYTES_PER_GBPS);
    double kmax = tl_knob(p, TL_K_SW_KMAX_BYTES_PER_GBPS);
    const tl_param_def *def = tl_params_def(TL_K_SW_KMIN_BYTES_PER_GBPS);
    char a[64], b[64];
    fmt_knob(def, kmin, a, sizeof a);
    fmt_knob(def, kmax, b, sizeof b);
    if (d && (d->id == TL_CC_DCTCP || d->id == TL_CC_DCTCP_RATE) && kmin != kmax) {
        snprintf(why, n, "m3's %s training marked with Kmin = Kmax (DCTCP's step); Kmin %s and "
                 "Kmax %s per Gb/s here", cc, a, b);
        return 1;
    }
    if (d && d->id == TL_CC_DCQCN && kmax < kmin) {
        snprintf(why, n, "m3's dcqcn training had Kmax at least Kmin; Kmin %s and Kmax %s per "
                 "Gb/s here", a, b);
        return 1;
    }
    return 0;
}
