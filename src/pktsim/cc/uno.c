/* Uno's congestion control (uno.txt §4): registered so that a scenario may name
 * it and get a clear error, but no engine implements it yet (ops NULL, no
 * knobs). Implementing it fills this descriptor; nothing else changes. */
#include "../cc.h"

const tl_cc_desc tl_cc_uno = {
    .name = "uno",
    .id = TL_CC_UNO,
    .doc = "Uno (uno.txt): not implemented yet.",
    .groups = "",
    .window_knob = -1,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
};
