/* The list of congestion controls pktsim knows, by name. */
#include <string.h>

#include "../cc.h"
#include "tailor/pktsim.h"

static const tl_cc_ops *const ccs[] = {&tl_cc_dctcp, &tl_cc_dctcp_rate, &tl_cc_dcqcn, &tl_cc_timely,
                                       &tl_cc_hpcc};

const tl_cc_ops *tl_cc_find(const char *name)
{
    for (size_t i = 0; i < sizeof ccs / sizeof *ccs; i++)
        if (strcmp(ccs[i]->name, name) == 0)
            return ccs[i];
    return NULL;
}

size_t tl_pktsim_n_ccs(void) { return sizeof ccs / sizeof *ccs; }
const char *tl_pktsim_cc_name(size_t i) { return ccs[i]->name; }
const char *tl_pktsim_cc_doc(size_t i) { return ccs[i]->doc; }
const char *tl_pktsim_cc_groups(size_t i) { return ccs[i]->groups; }

int tl_pktsim_cc_is_line_rate_start(const char *cc)
{
    const tl_cc_ops *o = tl_cc_find(cc);
    return o && !o->is_ramp;
}
