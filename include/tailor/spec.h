/* Scenario files: one JSON document describing topology, workload (one or
 * more traffic classes), transport configuration, engine options and seed
 * (docs/scenario.md documents every field). Parsing validates everything, so
 * engines can assert instead of re-checking (STYLE.md "Errors"). Errors name
 * the file, line:column and JSON path, what was expected and what was found;
 * unknown keys get a did-you-mean suggestion. */
#ifndef TAILOR_SPEC_H
#define TAILOR_SPEC_H

#include <stdint.h>

#include "tailor/err.h"
#include "tailor/params.h"
#include "tailor/routing.h"
#include "tailor/topo.h"
#include "tailor/workload.h"

typedef enum {
    TL_TOPO_FABRIC = 0,
    TL_TOPO_FATTREE,
    TL_TOPO_LEAFSPINE,
    TL_TOPO_PARKING_LOT,
    TL_TOPO_TWO_DC,
    TL_TOPO_FILE_PARSIMON,
    TL_TOPO_FILE_NS3,
} tl_topo_kind;

typedef struct tl_topo_spec {
    tl_topo_kind kind;
    tl_fabric_params fabric;
    tl_fattree_params fattree;
    tl_leafspine_params leafspine;
    tl_parking_params parking;
    tl_twodc_params two_dc;
    char file[1024];        /* file topologies: path resolved against the scenario's folder */
    uint32_t *failed_links; /* (n_failed) link ids marked failed from the start */
    uint32_t n_failed;
} tl_topo_spec;

typedef struct tl_engine_spec {
    char name[32]; /* "pktsim", "flowsim", "parsimon", "m3" */
    int n_threads; /* 0 = all cores */
    /* parsimon (parsimon.txt §3.3, §4.2): "cluster", "bucket_min" (B),
     * "bucket_ratio" (x), "fat_factor", "cluster_wmape", "cluster_load",
     * "cluster_scale" (thresholds of less loaded links up to this many times
     * looser),
     * "passthrough" (default true: links that cannot queue are not simulated),
     * "residual", "norm_pkts" (a link's delay for a flow is normalized by
     * max(its packets, this)); unset ones are NaN, bucket_min and norm_pkts
     * 0 and the two flags -1, and the engine's defaults apply
     * (docs/parsimon.md) */
    int is_cluster, is_passthrough, is_residual;
    int is_pfc_by_channel; /* parsimon: "pfc_by_channel" (default false) */
    int is_share_sources;  /* parsimon: "share_sources" (default false) */
    uint32_t bucket_min, norm_pkts;
    double bucket_ratio, fat_factor, cluster_wmape, cluster_load, cluster_scale;
    double max_from_bytes; /* parsimon: "max_from_bytes" (NaN unset: the CC's default) */
    /* m3 (m3.txt §3.2): "paths" (k, default 500), "model" (file; empty =
     * data/models/m3.model), "no_model" (flowsim's own estimate),
     * "path_pktsim" (pktsim on each drawn path: the decomposition's error) */
    uint32_t n_paths;
    char model[512];
    int is_no_model, is_path_pktsim;
    /* pktsim: "until_ns", stop at this simulated time, 0 = when every flow
     * is done (--until) */
    int64_t until_ps;
} tl_engine_spec;

typedef struct tl_scenario {
    char name[128];
    char source[1024]; /* the file it came from, or "<built-in default>" */
    uint64_t seed;
    tl_topo_spec topo;
    tl_workload_spec workload;
    char cc[32];       /* congestion control name */
    char lb[32];       /* pktsim's load balancer (transport.lb); "" = ecmp */
    char protocol[32]; /* pktsim's transport (transport.protocol); "" = the CC's */
    /* pktsim's queue policy per port class, host NIC / DC switch port / WAN
     * port (transport.queue_policy; tl_port_class order); "" = the CC's */
    char qpolicy[3][32];
    tl_params params;  /* every registered knob */
    tl_engine_spec engine;
} tl_scenario;

/* The built-in default scenario (examples/default.json): the 32-rack fabric at
 * 2:1, matrix B, WebServer sizes, sigma 2, 50% max link load, DCTCP, 200,000 flows. */
const char *tl_scenario_default_json(void);

/* Applies a preset file ({"transport": {"<group>": {"<knob>": value}}}, as
 * `tailor tune` writes tune_setting.json) over p: `--preset-file`. A
 * "transport.cc" in the file must equal cc. Errors name the file, line,
 * column and JSON path (TL_EPARSE; TL_EIO for a file that cannot be read). */
int tl_params_apply_preset_file(tl_params *p, const char *cc, const char *path, tl_err *err);

/* Parses a scenario file. On failure sc is left empty (fini-safe). */
int tl_scenario_load(tl_scenario *sc, const char *path, tl_err *err);
/* Parses JSON text; source names it in errors; relative paths inside resolve
 * against base_dir (NULL = current directory). */
int tl_scenario_parse(tl_scenario *sc, const char *text, const char *source, const char *base_dir,
                      tl_err *err);
void tl_scenario_fini(tl_scenario *sc);

struct tl_pktsim_opts;
/* The pktsim plug-ins the scenario names (transport.cc, lb, protocol,
 * queue_policy) into o; names it leaves out stay NULL, pktsim's defaults.
 * o borrows sc's strings. */
void tl_scenario_pktsim_opts(const tl_scenario *sc, struct tl_pktsim_opts *o);

/* Builds the scenario's topology (with its failed links marked). */
tl_topo *tl_scenario_build_topo(const tl_scenario *sc, tl_err *err);

/* Names of the known engines (NULL-terminated); the congestion controls are
 * the CC registry's (tailor/cc.h). */
extern const char *const tl_engine_names[];

#endif
