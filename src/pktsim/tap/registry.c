/* The monitors pktsim knows, by name. */
#include "../registry.h"
#include "../tap.h"

static const tl_tap_ops *const taps[] = {&tl_tap_count, &tl_tap_esketch, &tl_tap_esketch_naive,
                                          &tl_tap_flowtruth, &tl_tap_netflow};

TL_PLUGIN_REGISTRY(tl_tap_ops, tl_tap, taps)
