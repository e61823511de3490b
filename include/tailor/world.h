/* A scenario made concrete: its topology, routes and generated workload
 * (DESIGN.md's data flow: spec -> topology -> routing -> workload), in one
 * object for the engines' callers (tests, benchmarks, tools). */
#ifndef TAILOR_WORLD_H
#define TAILOR_WORLD_H

#include "tailor/spec.h"

typedef struct tl_world {
    tl_scenario sc;
    tl_topo *topo;
    tl_routes *routes;
    tl_flows flows;
} tl_world;

/* Parses scenario JSON text and builds everything (n_threads for the
 * workload; 0 = all cores). On failure w is left empty (fini-safe). */
int tl_world_from_json(tl_world *w, const char *json, int n_threads, tl_err *err);
void tl_world_fini(tl_world *w);

#endif
