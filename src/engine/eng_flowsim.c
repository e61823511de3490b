/* flowsim behind the engine interface: max-min fair flow-level estimates,
 * per flow. It reads only the packet sizes of the knobs
 * (tl_flowsim_knob_is_read). */
#include <stdio.h>

#include "engine_int.h"
#include "tailor/flowsim.h"

static int create(tl_engine *e, tl_err *err)
{
    const tl_world *w = e->w;
    e->st = tl_flowsim_create(w->topo, w->routes, &w->flows, &w->sc.params, err);
    return e->st ? 0 : err->code;
}

static void destroy(tl_engine *e) { tl_flowsim_destroy(e->st); }

static int run(tl_engine *e, tl_progress *prog, tl_err *err)
{
    return tl_flowsim_run(e->st, prog, err);
}

static const tl_flow_result *flow_results(const tl_engine *e) { return tl_flowsim_results(e->st); }

static const char *files(const tl_engine *e) { return "fct.csv, fct.txt, summary.json"; }

static void report(const tl_engine *e, char *buf, size_t n)
{
    tl_flowsim_stats st;
    tl_flowsim_get_stats(e->st, &st);
    double cpu = e->cpu_s;
    size_t n_flows = e->w->flows.n;
    snprintf(buf, n,
             "flowsim: %zu flows, %.6g s simulated, %llu events, %.3g flows/s (%.2f s CPU), "
             "%.1f links and %.1f flows refilled per event",
             n_flows, (double)st.now_ps * 1e-12, (unsigned long long)st.n_events,
             cpu > 0 ? (double)n_flows / cpu : 0, cpu,
             st.n_events ? (double)st.links_refilled / (double)st.n_events : 0,
             st.n_events ? (double)st.flows_refilled / (double)st.n_events : 0);
}

static int reads_knob(const tl_engine_spec *es, const char *knob, const char *cc, char *why,
                      size_t n)
{
    if (tl_flowsim_knob_is_read(knob))
        return 1;
    snprintf(why, n,
             "flowsim does not read %s (it models max-min fair sharing, not %s), so its values "
             "get the same estimate; --engine parsimon or pktsim simulates it",
             knob, cc);
    return 0;
}

const tl_engine_ops tl_engine_flowsim = {
    .name = "flowsim",
    .create = create,
    .destroy = destroy,
    .run = run,
    .flow_results = flow_results,
    .files = files,
    .report = report,
    .reads_knob = reads_knob,
};
