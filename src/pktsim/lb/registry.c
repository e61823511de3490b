/* The load balancers pktsim knows, by name. */
#include "../lb.h"
#include "../registry.h"

static const tl_lb_ops *const lbs[] = {&tl_lb_ecmp, &tl_lb_spray, &tl_lb_unolb, &tl_lb_plb};

TL_PLUGIN_REGISTRY(tl_lb_ops, tl_lb, lbs)

/* The parameter registry's view: the load balancers that have knobs, in this order. */
static const tl_lb_ops *with_knobs(size_t i)
{
    for (size_t k = 0; k < sizeof lbs / sizeof *lbs; k++)
        if (lbs[k]->n_knobs && i-- == 0)
            return lbs[k];
    return NULL;
}

size_t tl_lb_n_knob_tables(void)
{
    size_t n = 0;
    while (with_knobs(n))
        n++;
    return n;
}

const tl_param_def *tl_lb_knob_table(size_t i, size_t *n)
{
    const tl_lb_ops *l = with_knobs(i);
    *n = l->n_knobs;
    return l->knobs;
}
