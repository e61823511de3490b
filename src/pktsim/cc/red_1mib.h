/* The marking Uno's paper gives its baselines (uno.txt §5.1): RED on the
 * physical queue from 25% to 75% of a 1 MiB port, here per Gb/s of a
 * 100 Gb/s port (2,621 and 7,864 B), always above. The default presets of
 * gemini.c and mprdma_bbr.c. */
#ifndef TAILOR_PKTSIM_CC_RED_1MIB_H
#define TAILOR_PKTSIM_CC_RED_1MIB_H

#include "tailor/params.h"

static const tl_param_value red_25_75[] = {
    {"switch.kmin_bytes_per_gbps", 2621.44},
    {"switch.kmax_bytes_per_gbps", 7864.32},
    {"switch.pmax", 1},
};

#endif
