/* The engines by name (STYLE.md "Plug points": one list registers them).
 * Adding an engine is its adapter file and one line here; tests iterate
 * this list (tests/test_engine.c). */
#include "engine_int.h"

static const tl_engine_ops *const engines[] = {
    &tl_engine_pktsim,
    &tl_engine_flowsim,
    &tl_engine_parsimon,
    &tl_engine_m3,
};

size_t tl_engine_count(void) { return sizeof engines / sizeof *engines; }

const tl_engine_ops *tl_engine_at(size_t i) { return i < tl_engine_count() ? engines[i] : NULL; }
