/* Scenario -> topology -> routes -> workload in one call (see tailor/world.h). */
#include "tailor/world.h"

#include <string.h>

void tl_world_fini(tl_world *w)
{
    if (!w)
        return;
    tl_flows_fini(&w->flows);
    tl_routes_destroy(w->routes);
    tl_topo_destroy(w->topo);
    tl_scenario_fini(&w->sc);
    memset(w, 0, sizeof *w);
}

int tl_world_from_json(tl_world *w, const char *json, int n_threads, tl_err *err)
{
    memset(w, 0, sizeof *w);
    tl_flows_init(&w->flows);
    int rc = tl_scenario_parse(&w->sc, json, "<scenario>", NULL, err);
    if (!rc && !(w->topo = tl_scenario_build_topo(&w->sc, err)))
        rc = err ? err->code : TL_EINVAL;
    if (!rc && !(w->routes = tl_routes_create(w->topo, w->sc.seed, err)))
        rc = err ? err->code : TL_ENOMEM;
    if (!rc)
        rc = tl_workload_generate(&w->sc.workload, w->topo, w->routes, w->sc.seed, n_threads,
                                  &w->flows, NULL, err);
    if (rc)
        tl_world_fini(w);
    return rc;
}
