/* The engine plug point (STYLE.md "Plug points"): one const tl_engine_ops
 * per engine, in its own adapter file here, registered by name in
 * registry.c. An adapter maps the scenario's engine keys to its engine's
 * options, runs it, and hands back the common result; engine.c does the
 * rest (summaries, run records, the common result files) once for all. */
#ifndef TAILOR_ENGINE_INT_H
#define TAILOR_ENGINE_INT_H

#include "tailor/engine.h"
#include "tailor/spec.h"

struct tl_engine_ops {
    const char *name; /* registry key: "pktsim", "flowsim", "parsimon", "m3" */
    /* Builds the engine's object into e->st from e->w and e->es. Required. */
    int (*create)(tl_engine *e, tl_err *err);
    void (*destroy)(tl_engine *e); /* frees e->st (may be NULL). Required. */
    int (*run)(tl_engine *e, tl_progress *prog, tl_err *err); /* required */
    /* Per-flow results after run. Required unless summary is given. */
    const tl_flow_result *(*flow_results)(const tl_engine *e);
    /* The summary of an engine without per-flow results (run record unset). */
    int (*summary)(const tl_engine *e, tl_summary *out, tl_err *err);
    /* Sets the counters the engine models in r (tl_run_info_init set the rest) */
    void (*counters)(const tl_engine *e, tl_run_info *r); /* optional */
    /* "key=value ..." of the engine's options for the run record ("" if NULL) */
    void (*options)(const tl_engine_spec *es, char *buf, size_t n);
    /* Writes the engine's own files into dir, after the common ones. Optional. */
    int (*save_extra)(const tl_engine *e, const char *dir, tl_err *err);
    const char *(*files)(const tl_engine *e); /* the result files, for a report. Required. */
    void (*report)(const tl_engine *e, char *buf, size_t n); /* required */
    const char *(*model)(const tl_engine *e, uint32_t *crc); /* optional: NULL = no model */
    int (*repredict)(tl_engine *e, const tl_params *p, const char *cc, tl_err *err); /* optional */
    /* Whether a run under es reads a learned model. Optional (no). */
    int (*uses_model)(const tl_engine_spec *es);
    /* Whether the estimate under es can change with knob (1), else 0 with a
     * sentence in why. Optional (every knob counts). */
    int (*reads_knob)(const tl_engine_spec *es, const char *knob, const char *cc, char *why,
                      size_t n);
};

struct tl_engine {
    const tl_engine_ops *ops;
    const tl_world *w;      /* borrowed */
    tl_engine_spec es;      /* the scenario's engine keys with the options' overrides */
    tl_engine_opts o;       /* its pointers borrowed */
    void *st;               /* the engine's object (tl_pktsim, ...), owned */
    void *aux;              /* the adapter's own state, owned by the adapter */
    double cpu_t0_s, cpu_s; /* process CPU time at create, and create to the end of run */
    int is_run;
    int rc;      /* a failed run's error code: sticky (STYLE.md "Errors") */
    tl_err fail; /* ... and its report, which every later call returns */
};

/* The scenario's engine keys with o's overrides (the command line's over the file's). */
void tl_engine_spec_apply(tl_engine_spec *es, const tl_engine_opts *o);

extern const tl_engine_ops tl_engine_pktsim, tl_engine_flowsim, tl_engine_parsimon, tl_engine_m3;

#endif
