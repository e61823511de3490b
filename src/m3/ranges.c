/* The ranges m3's training samples draw the network's knobs from (m3.txt
 * Table 4, widened to contain this tool's defaults; docs/m3.md "Training
 * data"). The generator (src/m3train/synth.c) draws from this table, and
 * `tailor run` and `sweep` warn when a scenario sets a knob the model reads
 * outside it: there the trees extrapolate, and no figure measured them. */
#include <string.h>

#include "m3/m3_int.h"
#include "tailor/cc.h"
#include "tailor/m3.h"

#define KMIN "switch.kmin_bytes_per_gbps"
#define KMAX "switch.kmax_bytes_per_gbps"

static const m3_knob_range ranges[] = {
    /* every CC; 0 sizes the buffer from the fabric (3 MiB at 10 Gb/s) */
    {-1, "switch.buffer_bytes", 200e3, 4e6, 1, 1},
    /* DCTCP's step marking, K = Kmin = Kmax; 0 takes the fabric's BDP */
    {TL_CC_DCTCP_RATE, KMIN, 500, 4000, 0, 0},
    {TL_CC_DCTCP_RATE, KMAX, 500, 4000, 0, 0},
    {TL_CC_DCTCP_RATE, "dctcp_rate.window_bytes", 5e3, 30e3, 0, 1},
    {TL_CC_DCTCP, KMIN, 500, 4000, 0, 0},
    {TL_CC_DCTCP, KMAX, 500, 4000, 0, 0},
    {TL_CC_DCTCP, "dctcp_rate.window_bytes", 5e3, 30e3, 0, 1},
    {TL_CC_DCQCN, KMIN, 2000, 5000, 0, 0},
    {TL_CC_DCQCN, KMAX, 5000, 20000, 0, 0},
    /* Table 4's 0.70-0.95 and 50 Mb/s-1 Gb/s, widened so that the defaults
     * lie inside rather than at a corner (docs/m3.md, "HPCC ranges") */
    {TL_CC_HPCC, "hpcc.eta", 0.70, 1.0, 0, 0},
    {TL_CC_HPCC, "hpcc.ai_bps", 10e6, 1e9, 1, 0},
    {TL_CC_TIMELY, "timely.t_low_ps", 40e6, 60e6, 0, 0},
    {TL_CC_TIMELY, "timely.t_high_ps", 100e6, 500e6, 0, 0},
};

const m3_knob_range *m3_knob_range_of(int cc_id, const char *knob)
{
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if ((ranges[i].cc < 0 || ranges[i].cc == cc_id) && !strcmp(ranges[i].knob, knob))
            return &ranges[i];
    return NULL;
}

int tl_m3_knob_outside(const char *name, const char *cc, double v, double *lo, double *hi)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    const m3_knob_range *g = d ? m3_knob_range_of(d->id, name) : NULL;
    if (!g || (g->is_zero_fabric && v == 0))
        return 0;
    *lo = g->lo, *hi = g->hi;
    /* the draws are rounded to whole units: a bound itself is inside */
    return v < g->lo || v > g->hi;
}
