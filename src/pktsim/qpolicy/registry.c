/* The queue policies pktsim knows, by name. */
#include "../qpolicy.h"
#include "../registry.h"

static const tl_qpolicy_ops *const qps[] = {&tl_qpolicy_red, &tl_qpolicy_none};

TL_PLUGIN_REGISTRY(tl_qpolicy_ops, tl_qpolicy, qps)
