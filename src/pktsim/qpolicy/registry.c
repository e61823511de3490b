/* The queue policies pktsim knows, by name. */
#include "../qpolicy.h"
#include "../registry.h"

static const tl_qpolicy_ops *const qps[] = {&tl_qpolicy_red, &tl_qpolicy_none,
                                            &tl_qpolicy_phantom};

TL_PLUGIN_REGISTRY(tl_qpolicy_ops, tl_qpolicy, qps)

/* The parameter registry's view: the policies that have knobs, in this order. */
static const tl_qpolicy_ops *with_knobs(size_t i)
{
    for (size_t k = 0; k < sizeof qps / sizeof *qps; k++)
        if (qps[k]->n_knobs && i-- == 0)
            return qps[k];
    return NULL;
}

size_t tl_qpolicy_n_knob_tables(void)
{
    size_t n = 0;
    while (with_knobs(n))
        n++;
    return n;
}

const tl_param_def *tl_qpolicy_knob_table(size_t i, size_t *n)
{
    const tl_qpolicy_ops *q = with_knobs(i);
    *n = q->n_knobs;
    return q->knobs;
}
