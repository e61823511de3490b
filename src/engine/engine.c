/* The engine interface (tailor/engine.h): lookup by name, engine options,
 * and what every run shares: the summary, the run record and the common
 * result files (fct.csv, fct.txt, summary.json, docs/results.md). */
#include "tailor/engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_int.h"
#include "tailor/units.h"

/* ======================== registry ======================== */

const char *tl_engine_name(const tl_engine_ops *ops) { return ops->name; }

const tl_engine_ops *tl_engine_find(const char *name, tl_err *err)
{
    char known[256] = "";
    for (size_t i = 0; i < tl_engine_count(); i++) {
        if (!strcmp(tl_engine_at(i)->name, name))
            return tl_engine_at(i);
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 tl_engine_at(i)->name);
    }
    tl_err_set(err, TL_EINVAL, "unknown engine '%s' (available: %s)", name, known);
    return NULL;
}

/* ======================== options ======================== */

void tl_engine_opts_init(tl_engine_opts *o)
{
    memset(o, 0, sizeof *o);
    o->trace_max_bytes = TL_ENGINE_TRACE_MAX_DEFAULT;
}

static const struct {
    const char *name;
    int kind; /* 1 flag, 2 with a value */
} opt_table[] = {
    {"cluster", 1},  {"no-passthrough", 1}, {"no-residual", 1},
    {"no-model", 1}, {"path-pktsim", 1},    {"paths", 2},
    {"model", 2},    {"queue-trace-us", 2}, {"queue-trace-max", 2},
    {"monitor", 1},  {"until", 2},         {"tune", 1},
};

int tl_engine_opt_kind(const char *name)
{
    for (size_t i = 0; i < sizeof opt_table / sizeof *opt_table; i++)
        if (!strcmp(opt_table[i].name, name))
            return opt_table[i].kind;
    return 0;
}

int tl_engine_opts_set(tl_engine_opts *o, const char *name, const char *value, tl_err *err)
{
    int kind = tl_engine_opt_kind(name);
    if (!kind)
        return tl_err_set(err, TL_EINVAL, "--%s is no engine option", name);
    if ((kind == 2) != (value != NULL))
        return tl_err_set(err, TL_EINVAL, kind == 2 ? "--%s needs a value" : "--%s takes no value",
                          name);
    int *flag = !strcmp(name, "cluster")          ? &o->is_cluster
                : !strcmp(name, "no-passthrough") ? &o->is_no_passthrough
                : !strcmp(name, "no-residual")    ? &o->is_no_residual
                : !strcmp(name, "no-model")       ? &o->is_no_model
                : !strcmp(name, "path-pktsim")    ? &o->is_path_pktsim
                : !strcmp(name, "monitor")        ? &o->is_monitor
                : !strcmp(name, "tune")           ? &o->is_tune
                                                  : NULL;
    if (flag) {
        *flag = 1;
        return 0;
    }
    char *end;
    if (!strcmp(name, "model")) {
        o->model = value;
    } else if (!strcmp(name, "paths")) {
        long x = strtol(value, &end, 10);
        if (*end || end == value || x < 1 || x > 10000000)
            return tl_err_set(err, TL_EPARSE, "--paths expects 1..10000000 paths, found '%s'",
                              value);
        o->n_paths = (uint32_t)x;
    } else if (!strcmp(name, "until")) {
        int64_t ps;
        if (tl_units_parse_time(value, &ps) != 0 || ps <= 0)
            return tl_err_set(err, TL_EPARSE,
                              "--until expects a simulated time > 0 such as 50ms, found '%s'", value);
        o->until_ps = ps;
    } else if (!strcmp(name, "queue-trace-us")) {
        double us = strtod(value, &end);
        if (*end || end == value || !(us > 0) || !(us <= 1e9))
            return tl_err_set(err, TL_EPARSE, "--queue-trace-us expects a number > 0, found '%s'",
                              value);
        o->trace_interval_us = us;
    } else { /* queue-trace-max */
        uint64_t b;
        if (tl_units_parse_bytes(value, &b) != 0 || b == 0)
            return tl_err_set(err, TL_EPARSE,
                              "--queue-trace-max expects a size > 0 such as 512MB or 4GB, found "
                              "'%s'",
                              value);
        o->trace_max_bytes = b;
    }
    return 0;
}

void tl_engine_spec_apply(tl_engine_spec *es, const tl_engine_opts *o)
{
    es->is_cluster |= o->is_cluster;
    if (o->is_no_passthrough)
        es->is_passthrough = 0;
    if (o->is_no_residual)
        es->is_residual = 0;
    es->is_no_model |= o->is_no_model;
    es->is_path_pktsim |= o->is_path_pktsim;
    if (o->n_paths)
        es->n_paths = o->n_paths;
    if (o->model)
        snprintf(es->model, sizeof es->model, "%s", o->model);
}

/* ======================== a run ======================== */

static double cpu_s(void) { return (double)clock() / CLOCKS_PER_SEC; }

tl_engine *tl_engine_create(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o,
                            tl_err *err)
{
    tl_engine *e = calloc(1, sizeof *e);
    if (!e) {
        tl_err_nomem(err);
        return NULL;
    }
    e->ops = ops;
    e->w = w;
    if (o)
        e->o = *o;
    else
        tl_engine_opts_init(&e->o);
    e->es = w->sc.engine;
    tl_engine_spec_apply(&e->es, &e->o);
    e->cpu_t0_s = cpu_s();
    tl_err mine;
    tl_err_clear(&mine);
    if (ops->create(e, err ? err : &mine)) {
        tl_engine_destroy(e);
        return NULL;
    }
    return e;
}

void tl_engine_destroy(tl_engine *e)
{
    if (!e)
        return;
    e->ops->destroy(e);
    free(e);
}

/* The failed run's report again, into err. */
static int failed(const tl_engine *e, tl_err *err)
{
    if (err)
        *err = e->fail;
    return e->rc;
}

int tl_engine_run(tl_engine *e, tl_progress *prog, tl_err *err)
{
    if (e->is_run)
        return e->rc ? failed(e, err)
                     : tl_err_set(err, TL_EINVAL, "%s: run called twice", e->ops->name);
    tl_err *report = err ? err : &e->fail; /* adapters read err->code */
    e->rc = e->ops->run(e, prog, report);
    e->cpu_s = cpu_s() - e->cpu_t0_s;
    e->is_run = 1;
    if (e->rc)
        e->fail = *report;
    return e->rc;
}

static int check_run(const tl_engine *e, tl_err *err)
{
    if (e->rc)
        return failed(e, err);
    if (!e->is_run)
        return tl_err_set(err, TL_EINVAL, "%s: no result before a run", e->ops->name);
    return 0;
}

const tl_flow_result *tl_engine_flow_results(const tl_engine *e)
{
    return e->is_run && !e->rc && e->ops->flow_results ? e->ops->flow_results(e) : NULL;
}

int tl_engine_summary(const tl_engine *e, tl_summary *out, tl_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_run(e, err);
    if (rc)
        return rc;
    if (e->ops->summary)
        return e->ops->summary(e, out, err);
    return tl_summary_build(out, e->ops->name, &e->w->flows, e->ops->flow_results(e), err);
}

void tl_engine_run_info(const tl_engine *e, tl_run_info *r)
{
    char opts[256] = "";
    if (e->ops->options)
        e->ops->options(&e->es, opts, sizeof opts);
    const tl_world *w = e->w;
    tl_run_info_init(r, w->topo, &w->flows, &w->sc.params, w->sc.cc, w->sc.seed, opts);
    if (e->is_run && !e->rc && e->ops->counters)
        e->ops->counters(e, r);
}

int tl_engine_save(const tl_engine *e, const char *dir, tl_summary *sum, tl_err *err)
{
    memset(sum, 0, sizeof *sum);
    int rc = check_run(e, err);
    if (rc)
        return rc;
    tl_run_info run;
    tl_engine_run_info(e, &run);
    char path[1200];
    const tl_flow_result *res = tl_engine_flow_results(e);
    if (res) {
        snprintf(path, sizeof path, "%s/fct.csv", dir);
        rc = tl_result_save_csv(&e->w->flows, res, path, err);
        if (!rc) {
            snprintf(path, sizeof path, "%s/fct.txt", dir);
            rc = tl_result_save_ns3(&e->w->flows, res, path, err);
        }
    }
    if (!rc)
        rc = tl_engine_summary(e, sum, err);
    if (!rc) {
        sum->run = run;
        snprintf(path, sizeof path, "%s/summary.json", dir);
        rc = tl_summary_save_json(sum, path, err);
    }
    if (!rc && e->ops->save_extra)
        rc = e->ops->save_extra(e, dir, err);
    return rc;
}

const char *tl_engine_files(const tl_engine *e) { return e->ops->files(e); }

void tl_engine_report(const tl_engine *e, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    e->ops->report(e, buf, n);
}

const char *tl_engine_model(const tl_engine *e, uint32_t *crc)
{
    *crc = 0;
    return e->ops->model ? e->ops->model(e, crc) : NULL;
}

/* ======================== counterfactuals ======================== */

int tl_engine_can_repredict(const tl_engine_ops *ops) { return ops->repredict != NULL; }

int tl_engine_repredict(tl_engine *e, const tl_params *p, const char *cc, tl_err *err)
{
    if (!e->ops->repredict)
        return tl_err_set(err, TL_EINVAL, "%s cannot predict again without a new run",
                          e->ops->name);
    int rc = check_run(e, err);
    return rc ? rc : e->ops->repredict(e, p, cc, err);
}

static void spec_of(tl_engine_spec *es, const tl_world *w, const tl_engine_opts *o)
{
    *es = w->sc.engine;
    if (o)
        tl_engine_spec_apply(es, o);
}

int tl_engine_uses_model(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o)
{
    tl_engine_spec es;
    spec_of(&es, w, o);
    return ops->uses_model ? ops->uses_model(&es) : 0;
}

int tl_engine_reads_knob(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o,
                         const char *knob, const char *cc, char *why, size_t n)
{
    char dummy[8];
    if (!why || !n) {
        why = dummy;
        n = sizeof dummy;
    }
    why[0] = '\0';
    tl_engine_spec es;
    spec_of(&es, w, o);
    return ops->reads_knob ? ops->reads_knob(&es, knob, cc, why, n) : 1;
}
