/* One interface to every FCT engine (DESIGN.md "Data flow": every engine
 * consumes the same scenario and produces the same result). pktsim, flowsim,
 * parsimon and m3 are registered by name (src/engine/registry.c); a caller
 * looks one up, runs it on a built world with engine options, and gets the
 * common result: the per-flow FCT table (engines that simulate flows) and
 * the slowdown summary with its run record, plus the engine's own result
 * files. `tailor run`, `sweep`, `demo` and `tune` (its offline oracles,
 * src/tune/offline.c) dispatch through it; an MPI scale-out is meant to
 * (docs/engines.md).
 *
 * The engines' own APIs (tailor/pktsim.h, flowsim.h, parsimon.h, m3.h) stay
 * public: this layer only maps options and results. */
#ifndef TAILOR_ENGINE_H
#define TAILOR_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/dist.h"
#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/progress.h"
#include "tailor/result.h"
#include "tailor/world.h"

typedef struct tl_engine_ops tl_engine_ops; /* one per engine, in the registry */
typedef struct tl_engine tl_engine;         /* one run of one engine on one world */

/* ---- registry ---- */

/* Registered engines, in the order they are listed: pktsim, flowsim,
 * parsimon, m3. tl_engine_at(i) for i < tl_engine_count() is never NULL. */
size_t tl_engine_count(void);
const tl_engine_ops *tl_engine_at(size_t i);
const char *tl_engine_name(const tl_engine_ops *ops);
/* The engine registered as name, or NULL with TL_EINVAL in err:
 * "unknown engine 'x' (available: pktsim, flowsim, parsimon, m3)". */
const tl_engine_ops *tl_engine_find(const char *name, tl_err *err);

/* ---- options ---- */

/* What a caller asks of a run beyond the scenario. The first group
 * overrides the scenario's engine keys (tl_engine_spec, docs/scenario.md)
 * for this run; zero leaves a key as the scenario sets it. Engines ignore
 * the options of other engines. Initialize with tl_engine_opts_init. */
typedef struct tl_engine_opts {
    /* parsimon */
    int is_cluster;        /* cluster similar links (--cluster) */
    int is_no_passthrough; /* simulate pass-through links too (--no-passthrough) */
    int is_no_residual;    /* link simulations as the paper's (--no-residual) */
    /* m3 */
    uint32_t n_paths;   /* sampled paths (--paths; 0: the scenario's) */
    const char *model;  /* model file (--model; NULL: the scenario's); borrowed */
    int is_no_model;    /* flowsim's own estimate (--no-model) */
    int is_path_pktsim; /* pktsim on each drawn path (--path-pktsim) */
    /* pktsim: a queue-length trace ("t_ns,chan,queue_bytes"): every
     * interval, one row per port that holds anything (--queue-trace-us) */
    const char *trace_path;   /* written atomically by run; NULL: no trace */
    double trace_interval_us; /* 0: no trace */
    uint64_t trace_max_bytes; /* a trace that would grow past this fails the run
                                 (--queue-trace-max; TL_ENGINE_TRACE_MAX_DEFAULT) */
    /* pktsim: PARALEON's runtime monitor (--monitor; tailor/tune.h): its
     * monitor_*.csv files and monitor.gp are written with the results */
    int is_monitor;
    /* pktsim: PARALEON's closed loop over Table I's knobs (--tune; implies
     * the monitor): tune_trajectory.csv and tune_setting.json too */
    int is_tune;
    /* the knobs --tune searches (NULL: Table I's, tl_tune_table1_knobs);
     * borrowed until destroy */
    const char *const *tune_knobs;
    size_t n_tune_knobs;
    const double *tune_lo, *tune_hi; /* their search ranges (NULL: the registered ones) */
    /* what runs the loop: TL_TUNE_PARALEON (the search; tune.guided 0 makes
     * it the naive SA), or a baseline controller (tailor/tune.h) */
    int tune_scheme;
    /* pktsim: stop at this simulated time (--until); flows not done by then
     * are unfinished. 0: run until every flow is done */
    int64_t until_ps;
    /* engines that can predict again under other knobs (tl_engine_repredict):
     * the knobs a sweep will change, so the run keeps what they need */
    const char *const *swept; /* (n_swept) registered knob names; borrowed until destroy */
    int n_swept;
    /* parsimon, m3: the MPI ranks their fan-outs spread over (tailor/dist.h;
     * NULL: this process); borrowed */
    tl_dist *dist;
} tl_engine_opts;

#define TL_ENGINE_TRACE_MAX_DEFAULT (256ull << 20)

void tl_engine_opts_init(tl_engine_opts *o);
/* Whether name (a command-line option without its dashes: "cluster",
 * "paths", "queue-trace-us") is an engine option, and whether it takes a
 * value: 0 not one, 1 a flag, 2 an option with a value. */
int tl_engine_opt_kind(const char *name);
/* Sets engine option name from value (NULL for a flag). TL_EPARSE with a
 * message naming the option ("--paths expects 1..10000000 paths, found
 * 'x'") for a bad value, TL_EINVAL for a name that is no engine option. */
int tl_engine_opts_set(tl_engine_opts *o, const char *name, const char *value, tl_err *err);

/* ---- a run ---- */

/* Prepares a run of ops on world w (borrowed until destroy, with its
 * parameters: a caller may swap w->sc.params between runs, not during one).
 * o may be NULL (the scenario's engine keys, no trace). Errors: the
 * engine's (an m3 model file that cannot be read, ...). */
tl_engine *tl_engine_create(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o,
                            tl_err *err);
void tl_engine_destroy(tl_engine *e); /* accepts NULL */

/* Runs the engine to the end (and writes the trace, if asked); the same
 * seed gives the same result whatever the thread count. Once only; a failed
 * run stays failed: every later call returns its error. err may be NULL
 * here and in create. */
int tl_engine_run(tl_engine *e, tl_progress *prog, tl_err *err);

/* Per-flow results in the flows' order (after run), or NULL for an engine
 * that estimates distributions only (m3). */
const tl_flow_result *tl_engine_flow_results(const tl_engine *e);
/* The slowdown summary (after run), named by the engine, without its run
 * record (out->run.is_set = 0; tl_engine_run_info gives it). The caller
 * finis out. */
int tl_engine_summary(const tl_engine *e, tl_summary *out, tl_err *err);
/* What the result is of (summary.json "run"): the world, the engine's
 * options and the counters the engine models (-1 the others). */
void tl_engine_run_info(const tl_engine *e, tl_run_info *r);
/* Writes the result files into the existing folder dir: fct.csv, fct.txt
 * (per-flow engines), summary.json with its run record, and the engine's
 * own (pktsim links.csv, m3 paths.csv); fills sum (the caller finis it). */
int tl_engine_save(const tl_engine *e, const char *dir, tl_summary *sum, tl_err *err);
/* The files tl_engine_run and tl_engine_save write, "fct.csv, fct.txt, ..." */
const char *tl_engine_files(const tl_engine *e);
/* One line (no newline) on what the run did: flows, events, times. */
void tl_engine_report(const tl_engine *e, char *buf, size_t n);
/* The learned model the run read and its CRC-32, or NULL (no model). */
const char *tl_engine_model(const tl_engine *e, uint32_t *crc);

/* ---- counterfactuals (m3.txt §5.4) ---- */

/* Whether ops predicts again under other knobs without a new run. */
int tl_engine_can_repredict(const tl_engine_ops *ops);
/* Predicts again (after run) under knobs p (borrowed until the next call or
 * destroy) and congestion control cc; tl_engine_summary then gives the new
 * estimate. TL_EINVAL for an engine that cannot (tl_engine_can_repredict). */
int tl_engine_repredict(tl_engine *e, const tl_params *p, const char *cc, tl_err *err);
/* Whether a run of ops under w's engine keys and options o (NULL: none)
 * reads a learned model, whose inputs are some knobs only. */
int tl_engine_uses_model(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o);
/* Whether the estimate of ops (under w's engine keys and options o) can
 * change with knob under congestion control cc; if not, and why is not
 * NULL, a sentence for a sweep over it: "flowsim does not read X (...), so
 * its values get the same estimate; ...". */
int tl_engine_reads_knob(const tl_engine_ops *ops, const tl_world *w, const tl_engine_opts *o,
                         const char *knob, const char *cc, char *why, size_t n);

#endif
