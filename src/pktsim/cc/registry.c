/* The congestion-control registry: the one list of CCs, in the order docs,
 * messages and the parameter registry follow. Adding a CC is its file plus one
 * line here; test_cc checks every descriptor (ids, knob names, presets, ops). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cc.h"
#include "tailor/pktsim.h"
#include "tailor/strutil.h"

#define TL_CCS(X) X(tl_cc_dctcp) X(tl_cc_dctcp_rate) X(tl_cc_dcqcn) X(tl_cc_timely) X(tl_cc_hpcc) \
    X(tl_cc_uno) X(tl_cc_gemini) X(tl_cc_mprdma_bbr)

#define DECLARE(d) extern const tl_cc_desc d;
#define LIST(d) &d,
TL_CCS(DECLARE)
static const tl_cc_desc *const ccs[] = {TL_CCS(LIST)};
#define N_CCS (sizeof ccs / sizeof *ccs)

size_t tl_cc_count(void) { return N_CCS; }
const tl_cc_desc *tl_cc_get(size_t i) { return ccs[i]; }

const tl_cc_desc *tl_cc_lookup(const char *name)
{
    for (size_t i = 0; i < N_CCS; i++)
        if (strcmp(ccs[i]->name, name) == 0)
            return ccs[i];
    return NULL;
}

const tl_cc_desc *tl_cc_lookup_id(int id)
{
    for (size_t i = 0; i < N_CCS; i++)
        if (ccs[i]->id == id)
            return ccs[i];
    return NULL;
}

const char *tl_cc_suggest(const char *name)
{
    const char *names[N_CCS];
    for (size_t i = 0; i < N_CCS; i++)
        names[i] = ccs[i]->name;
    return tl_suggest(name, names, N_CCS);
}

void tl_cc_names(char *buf, size_t n, const char *sep, const char *last_sep, int is_implemented)
{
    size_t m = 0, k = 0;
    for (size_t i = 0; i < N_CCS; i++)
        m += !is_implemented || ccs[i]->ops;
    buf[0] = '\0';
    for (size_t i = 0; i < N_CCS; i++) {
        if (is_implemented && !ccs[i]->ops)
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", k == 0 ? "" : k + 1 == m ? last_sep : sep,
                 ccs[i]->name);
        k++;
    }
}

double tl_cc_start_window_bytes(const tl_cc_desc *d, const tl_params *p, double mss_bytes,
                                double fabric_bdp_bytes)
{
    if (d->window_knob < 0)
        return NAN;
    double w = tl_cc_knobs(d, p)[d->window_knob];
    if (w == 0)
        return fabric_bdp_bytes;
    return d->knobs[d->window_knob].unit == TL_UNIT_NONE ? w * mss_bytes : w;
}

const tl_cc_ops *tl_cc_find(const char *name)
{
    const tl_cc_desc *d = tl_cc_lookup(name);
    return d ? d->ops : NULL;
}

int tl_pktsim_cc_is_line_rate_start(const char *cc)
{
    const tl_cc_desc *d = tl_cc_lookup(cc);
    return d && d->ops && !d->is_ramp;
}

int tl_cc_reads_group(const tl_cc_desc *d, const char *knob)
{
    size_t n = strcspn(knob, ".");
    for (const char *g = d->groups; g && *g;) {
        size_t len = strcspn(g, ",");
        if (len == n && !strncmp(g, knob, n))
            return 1;
        if (!g[len])
            return 0;
        g += len + 1;
    }
    return 0;
}
