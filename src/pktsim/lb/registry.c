/* The load balancers pktsim knows, by name. */
#include "../lb.h"
#include "../registry.h"

static const tl_lb_ops *const lbs[] = {&tl_lb_ecmp, &tl_lb_spray};

TL_PLUGIN_REGISTRY(tl_lb_ops, tl_lb, lbs)
