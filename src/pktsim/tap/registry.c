/* The monitors pktsim knows, by name. */
#include "../registry.h"
#include "../tap.h"

static const tl_tap_ops *const taps[] = {&tl_tap_count};

TL_PLUGIN_REGISTRY(tl_tap_ops, tl_tap, taps)
