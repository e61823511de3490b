/* Shared pieces of the `tailor` command: options common to subcommands,
 * scenario loading with overrides, progress printing, error reporting. */
#ifndef TAILOR_CLI_H
#define TAILOR_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/dist.h"
#include "tailor/engine.h"
#include "tailor/err.h"
#include "tailor/pktsim.h"
#include "tailor/progress.h"
#include "tailor/spec.h"
#include "tailor/world.h"

/* Exit codes: 0 success; 1 the run failed; 2 bad input or usage (nothing written). */
enum { EXIT_RUN = 1, EXIT_INPUT = 2 };

typedef struct cli_opts {
    const char *scenario; /* NULL = built-in default */
    const char *out;      /* -o */
    const char *format;   /* --format */
    const char *flows;    /* --flows FILE (inspect an existing flow file) */
    const char *engine;   /* --engine */
    tl_engine_opts eng;   /* --cluster, --paths, --queue-trace-us, ...: the engines' options */
    uint64_t flow_count;      /* --flow-count N: the scenario's workload cut to N flows (0: as is) */
    uint64_t max_memory;      /* --max-memory: refuse inputs estimated above it (0: the machine's) */
    int is_force;             /* --force (compare: runs of different flows) */
    const char *tm;        /* --tm: throughput traffic matrix kind or file */
    const char *method;    /* --method exact|approx */
    const char *save_tm;   /* --save-tm FILE */
    double eps;            /* --eps */
    double skew;           /* --skew: fraction of large flows for the skewed TM */
    uint32_t relative;     /* --relative N: random instances */
    int is_cuts;           /* --cuts */
    int is_quick;          /* --quick */
    int is_spread;         /* --spread-servers: same-equipment graphs spread the servers */
    int is_theorem2;       /* --theorem2: also solve all-to-all for Theorem 2's lower bound */
    double time_limit;     /* --time-limit SECONDS (0: none) */
    const char *lp_solver; /* --lp-solver glpk|clp-dual|clp-barrier */
    const char *cc;       /* --cc NAME */
    const char *preset;   /* --preset NAME */
    const char *preset_file; /* --preset-file FILE (applied after --preset, before --set) */
    /* tune */
    const char *oracle;    /* --oracle pktsim|parsimon|m3|flowsim */
    const char *objective; /* --objective STAT@BUCKET[:W],... */
    const char *knobs;     /* --knobs a,b,... */
    const char *scheme;    /* --scheme paraleon|naive|acc|dcqcn-plus */
    const char *sets[64]; /* --set name=value */
    int n_sets;
    int64_t seed; /* --seed, -1 = scenario's */
    int n_threads;
    int is_quiet;
} cli_opts;

/* Parses argv[1..] into o; allowed lists the long options the subcommand takes
 * (e.g. "o,format,seed,set,threads,quiet"). Prints usage errors; returns 0 or EXIT_INPUT. */
int cli_parse(int argc, char **argv, const char *cmd, const char *allowed, cli_opts *o);

/* Loads the scenario (or the default) and applies --seed and --set. */
int cli_load_scenario(const cli_opts *o, tl_scenario *sc, tl_err *err);

/* Exit code for an error: EXIT_INPUT for bad input, EXIT_RUN otherwise. */
int cli_exit_code(const tl_err *err);
/* Prints "tailor CMD: error: <formatted>" to stderr. */
void cli_print_err(const char *cmd, const tl_err *err);

/* Progress printer on stderr (NULL when quiet). */
tl_progress *cli_progress(const cli_opts *o, tl_progress *storage);
void cli_progress_done(tl_progress *p);

/* Everything a subcommand works on, built from the options: the scenario,
 * its topology, routes and flows. */
typedef tl_world cli_world;

/* Loads the scenario, builds topology and routes, and generates the flows (or
 * loads --flows FILE: .csv as tailor CSV, anything else as ns-3 flow.txt).
 * The command line's engine options (o->eng) apply when an engine is created
 * (tl_engine_create), not here. */
int cli_world_build(const cli_opts *o, cli_world *w, tl_progress *prog, tl_err *err);
/* The fabric's references (tl_fabric_ref_of) in buf, or NULL if they
 * cannot be had. */
const tl_fabric_ref *cli_fabric(const cli_world *w, tl_fabric_ref *buf);
/* Warns on stderr, as `who`, of each knob of p but the n_skip indices in
 * skip: one m3's model does not read (tl_m3_knob_is_read) set away from
 * cc's default (the estimate is the default's, the value its training
 * had), or one it reads where its training did not go
 * (cli_m3_warn_untrained). */
void cli_m3_warn_knobs(const tl_params *p, const char *cc, const tl_fabric_ref *fab,
                       const int *skip, int n_skip, const char *who);
/* Warns on stderr, as `who`, if m3's model extrapolates at knob i of p
 * (tl_m3_knob_untrained: outside its training's range, or away from the
 * value training held it at), naming both. Returns 1 if it warned. */
int cli_m3_warn_untrained(const tl_params *p, size_t i, const char *cc, const tl_fabric_ref *fab,
                          const char *who);
/* The same for the knobs training drew together (tl_m3_knobs_untrained_joint). */
int cli_m3_warn_joint(const tl_params *p, const char *cc, const char *who);
/* The same for what the model file's training folders fixed
 * (tl_m3_model_untrained: PFC); model NULL: nothing. */
void cli_m3_warn_model(const char *model, const tl_params *p, const char *who);
/* What a run's accuracy note reads of the run (cli/accuracy.c). */
typedef struct cli_run_facts {
    const char *cc;
    const tl_run_info *run; /* its record; NULL: no regime check */
    int is_pfc;             /* switch.pfc on */
    int is_regime_only;     /* the regime checks alone, not the figures */
} cli_run_facts;
/* Prints on stdout the accuracy figures data/models/accuracy.json gives for
 * an estimate by engine: m3 with the model file model_path (of CRC-32
 * model_crc, tl_engine_model), found by its CRC, or Parsimon under rf->cc;
 * warns on stderr, as `who`, when an m3 model misses the goal, and when the
 * run (rf->run) is outside the regime the figures were measured in, naming
 * the measure. Other engines: nothing. An unreadable
 * file is a warning, not an error. */
void cli_note_accuracy(const char *engine, const char *model_path, uint32_t model_crc,
                       const cli_run_facts *rf, const char *who);
void cli_world_fini(cli_world *w);

/* Runs a registered engine (tailor/engine.h) and writes and reports its
 * results (cli/cmd_run.c). */
int cli_run_engine(cli_world *w, const char *engine, const char *dir, const char *shown,
                   const tl_engine_opts *eo, tl_progress *prog, tl_err *err);
/* TL_EINVAL unless engine is registered (tl_engine_find) and implements
 * congestion control cc (every engine's estimate is checked against pktsim,
 * so a CC pktsim does not implement has no engine). */
int cli_check_engine(const char *engine, const char *cc, tl_err *err);

int cmd_compare(int argc, char **argv);
int cmd_gen_flows(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_m3(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_export_topo(int argc, char **argv);
int cmd_params(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_throughput(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_topo_bench(int argc, char **argv);

/* ---- output transactions (cli/outdir.c) ---- */
#define CLI_PATH_MAX 1024
#define CLI_OUT_MAX_MADE 16
#define CLI_OUT_MARKER ".tailor"
enum {
    CLI_OUT_DIR,   /* the target is a folder, replaced whole at commit */
    CLI_OUT_FILES, /* files added into the target folder (created if missing) */
    CLI_OUT_FILE,  /* the target is one file ("-": standard output, no transaction) */
};
typedef struct cli_out {
    int mode, is_stdout;
    char target[CLI_PATH_MAX]; /* what the user named */
    char dest[CLI_PATH_MAX];   /* the folder the results land in (DIR: the target's parent) */
    char name[256];            /* DIR: the target's last name; FILE: the file's name */
    char tmp[CLI_PATH_MAX + 300]; /* where the command writes until commit */
    char file[CLI_PATH_MAX + 600]; /* FILE: tmp/name ("-" for standard output) */
    char made[CLI_OUT_MAX_MADE][CLI_PATH_MAX]; /* folders begin created, removed by abort */
    int n_made;
} cli_out;
/* Checks target before any work (it must be creatable; an existing folder is
 * replaced only if it is empty or a tailor output folder), creates its
 * missing parents and a temporary folder beside it, and arranges for SIGINT
 * and SIGTERM to remove them. Errors name the target: TL_EINVAL (exit 2)
 * for a target that may not be replaced, TL_EIO for one that cannot be made. */
int cli_out_begin(cli_out *o, const char *target, int mode, tl_err *err);
/* Where to write until commit: the folder (DIR, FILES) or the file (FILE;
 * "-" for standard output). */
const char *cli_out_path(const cli_out *o);
/* Moves the results into place: DIR swaps the whole folder in one step. */
int cli_out_commit(cli_out *o, tl_err *err);
/* Removes the temporary folder and the parents begin created. Safe twice. */
void cli_out_abort(cli_out *o);

/* Runs gnuplot on script (its output silenced) with the working directory
 * cwd (NULL: ours) and ARG1 = arg (NULL: none), through posix_spawn with an
 * argv: no shell sees a user's string. 0 if gnuplot ran and succeeded. */
int cli_gnuplot(const char *script, const char *arg, const char *cwd);

/* ---- MPI ranks (cli/ranks.c, docs/scale-out.md) ---- */
/* Under mpirun: starts MPI and silences ranks other than 0. 0, or
 * EXIT_INPUT (a build without MPI; ranks of different builds). */
int cli_ranks_start(void);
tl_dist *cli_dist(void); /* NULL: one process */
int cli_is_root(void);   /* rank 0, or no MPI: prints and writes */
int cli_ranks(void);     /* ranks in the job (1 without mpirun) */
/* Keeps err as this rank's error, for rank 0 to name (cli_print_err). */
void cli_ranks_note_err(const tl_err *err);
/* Ends the job on every rank; returns the exit code: rank 0's. */
int cli_ranks_finish(int code);
/* EXIT_INPUT, with a message naming what, if there are several ranks and
 * what cannot use them (instead: what can, or NULL); else 0. */
int cli_ranks_refuse(const char *cmd, const char *what, const char *instead);

/* Prints the help of one subcommand; returns 0, or EXIT_INPUT if unknown. */
int cli_help(const char *cmd);

#endif
