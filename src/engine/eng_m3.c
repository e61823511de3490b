/* m3 behind the engine interface (m3.txt): a summary only, no per-flow
 * FCTs, plus paths.csv. It predicts again under other knobs without a new
 * run (a sweep, m3.txt §5.4); a run told which knobs will be swept keeps
 * what a repredict over them needs, and nothing more (the path workloads
 * are 4.3 GB at 2M flows). */
#include <stdio.h>

#include "engine_int.h"
#include "tailor/flowsim.h"
#include "tailor/m3.h"

static int uses_model(const tl_engine_spec *es) { return !es->is_no_model && !es->is_path_pktsim; }

static int create(tl_engine *e, tl_err *err)
{
    const tl_world *w = e->w;
    const tl_engine_spec *es = &e->es;
    tl_m3_opts mo;
    tl_m3_opts_default(&mo);
    mo.n_paths = es->n_paths;
    mo.model_path = es->model[0] ? es->model : NULL;
    mo.is_no_model = es->is_no_model;
    mo.is_path_pktsim = es->is_path_pktsim;
    mo.n_threads = es->n_threads;
    mo.dist = e->o.dist;
    if (e->o.n_swept) {
        /* The workloads are kept only when a swept knob changes flowsim's
         * input or path pktsim reruns, the reference flows when it changes
         * the reference's queue term (Kmin, DCQCN's Kmax); otherwise a value
         * needs only the features and the model. */
        mo.is_keep_workloads = mo.is_path_pktsim;
        for (int k = 0; k < e->o.n_swept; k++) {
            mo.is_keep_workloads |= tl_m3_knob_changes_features(e->o.swept[k], w->sc.cc);
            mo.is_keep_reference |= tl_m3_knob_changes_reference(e->o.swept[k], w->sc.cc);
        }
    }
    e->st =
        tl_m3_create(w->topo, w->routes, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed, &mo, err);
    return e->st ? 0 : err->code;
}

static void destroy(tl_engine *e) { tl_m3_destroy(e->st); }

static int run(tl_engine *e, tl_progress *prog, tl_err *err) { return tl_m3_run(e->st, prog, err); }

static int summary(const tl_engine *e, tl_summary *out, tl_err *err)
{
    return tl_m3_summary(e->st, out, err);
}

static void options(const tl_engine_spec *es, char *buf, size_t n)
{
    snprintf(buf, n, "paths=%u model=%s no_model=%d path_pktsim=%d", es->n_paths,
             es->model[0] ? es->model : "default", es->is_no_model, es->is_path_pktsim);
}

static int save_paths(const tl_engine *e, const char *dir, tl_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/paths.csv", dir);
    return tl_m3_write_paths(e->st, path, err);
}

static const char *files(const tl_engine *e) { return "summary.json, paths.csv"; }

static void report(const tl_engine *e, char *buf, size_t n)
{
    const tl_engine_spec *es = &e->es;
    tl_m3_stats st;
    tl_m3_get_stats(e->st, &st);
    snprintf(buf, n,
             "m3%s: %zu flows on %llu paths; %u distinct of %u drawn paths, %.0f flows per path "
             "workload (max %llu), %.1f foreground; decompose %.2f s, flowsim features %.2f s, "
             "model %.3f s (%.3f ms per path), aggregation %.3f s%s%s",
             es->is_path_pktsim ? " (pktsim on each path)"
             : es->is_no_model  ? " (flowsim only, no model)"
                                : "",
             e->w->flows.n, (unsigned long long)st.n_paths_total, st.n_paths_unique, es->n_paths,
             st.n_paths_unique ? (double)st.n_path_flows / st.n_paths_unique : 0,
             (unsigned long long)st.max_path_flows,
             st.n_paths_unique ? (double)st.n_path_fg / st.n_paths_unique : 0, st.decompose_s,
             st.features_s, st.predict_s,
             st.n_paths_unique ? st.predict_s * 1e3 / st.n_paths_unique : 0, st.aggregate_s,
             st.model_path ? "; model " : "", st.model_path ? st.model_path : "");
}

static const char *model(const tl_engine *e, uint32_t *crc)
{
    tl_m3_stats st;
    tl_m3_get_stats(e->st, &st);
    *crc = st.model_crc;
    return st.model_path;
}

static int repredict(tl_engine *e, const tl_params *p, const char *cc, tl_err *err)
{
    return tl_m3_repredict(e->st, p, cc, err);
}

static int reads_knob(const tl_engine_spec *es, const char *knob, const char *cc, char *why,
                      size_t n)
{
    if (es->is_path_pktsim) /* pktsim on each path reads every knob */
        return 1;
    if (es->is_no_model) { /* flowsim on the drawn paths: max-min sharing, no CC */
        if (tl_flowsim_knob_is_read(knob))
            return 1;
        snprintf(why, n,
                 "m3 --no-model is flowsim on the drawn paths and does not read %s (it models "
                 "max-min fair sharing, not %s), so its values get the same estimate; "
                 "--engine parsimon or pktsim simulates it",
                 knob, cc);
        return 0;
    }
    if (tl_m3_knob_is_read(knob, cc))
        return 1;
    snprintf(why, n,
             "m3's model does not read %s under %s, so its values get the same estimate "
             "(docs/m3.md, \"Known limits\"); --engine parsimon or pktsim simulates it",
             knob, cc);
    return 0;
}

const tl_engine_ops tl_engine_m3 = {
    .name = "m3",
    .create = create,
    .destroy = destroy,
    .run = run,
    .summary = summary,
    .options = options,
    .save_extra = save_paths,
    .files = files,
    .report = report,
    .model = model,
    .repredict = repredict,
    .uses_model = uses_model,
    .reads_knob = reads_knob,
};
