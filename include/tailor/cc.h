/* Congestion-control descriptors: one identity per CC (docs/congestion-control.md).
 * Each CC file in src/pktsim/cc/ exports one tl_cc_desc holding its name, stable id,
 * knob table, presets, doc paragraph and the properties other modules ask about;
 * cc/registry.c lists them. Nothing outside the registry compares CC names: callers
 * look a name up once and then read the descriptor. */
#ifndef TAILOR_CC_H
#define TAILOR_CC_H

#include <stddef.h>
#include <stdint.h>

#include "tailor/params.h"

/* Stable ids: m3's one-hot feature column (m3.txt Table 4) and the order of its
 * trained models. Never reuse or renumber one; a new CC takes the next free
 * number and is named here only if another module must refer to it. */
enum {
    TL_CC_DCTCP = 0,
    TL_CC_DCTCP_RATE = 1,
    TL_CC_DCQCN = 2,
    TL_CC_HPCC = 3,
    TL_CC_TIMELY = 4,
    TL_CC_UNO = 5,
    TL_CC_GEMINI = 6,
    TL_CC_MPRDMA_BBR = 7,
};

/* The CC of a scenario that names none (docs/scenario.md). */
#define TL_CC_DEFAULT "dctcp"

/* Where a CC holds its standing queue in steady state: what m3's reference
 * adds for a flow meeting a saturated hop (docs/m3.md "Features"). */
typedef enum {
    TL_CC_QUEUE_NONE = 0,   /* no standing queue (HPCC aims below full utilization) */
    TL_CC_QUEUE_KMIN,       /* at each marking hop, near the ECN threshold Kmin (DCTCP) */
    TL_CC_QUEUE_KMIN_KMAX,  /* at each marking hop, inside the RED range (DCQCN's slow cuts) */
    TL_CC_QUEUE_DELAY,      /* one path-wide queue near its delay target (TIMELY's T_low) */
} tl_cc_queue;

typedef struct tl_cc_ops tl_cc_ops; /* pktsim's implementation (src/pktsim/cc.h) */

typedef struct tl_cc_desc {
    const char *name; /* registry key: "dctcp", "dctcp-rate", "dcqcn", ... */
    int id;           /* stable, unique (the enum above) */
    const char *doc;    /* one paragraph for docs/congestion-control.md, with its source */
    const char *groups; /* knob groups it reads, comma-separated: "dcqcn,switch" */
    /* Its knobs, appended to the parameter registry in registry order; the
     * CC reads them through tl_cc_knobs with its own enum as index. */
    const tl_param_def *knobs;
    size_t n_knobs;
    const tl_preset *presets; /* its named presets ("dcqcn.expert") */
    size_t n_presets;
    const char *default_preset; /* applied when the CC is chosen (PFC on for RDMA CCs); NULL none */
    /* A lone flow does not start at line rate (its window grows from an initial one). */
    int is_ramp;
    /* The knob (index into knobs) fixing a flow's window at start: in bytes,
     * or in MSS-sized packets when its unit is TL_UNIT_NONE; -1 for a CC
     * limited by its rate alone. */
    int window_knob;
    tl_cc_queue queue;
    int delay_knob;     /* its delay target (TL_CC_QUEUE_DELAY), index into knobs; else -1 */
    int model_knobs[2]; /* the knobs m3's feature vector carries for it (m3.txt Table 4); -1 none */
    unsigned m3_schema; /* the oldest m3 feature schema its models may use; 0 = m3's oldest */
    /* Its m3 features hold the busiest hop's inter-arrival CV at 1 (schema 8:
     * DCQCN's training fabrics span too little of it, docs/m3.md). */
    int m3_flat_arrivals;
    /* Parsimon's norm_pkts when the scenario leaves it unset (docs/accuracy.md,
     * "Normalizing by at least a few packets"): a link's delay for a flow of
     * k packets is normalized by max(k, this); 0 = by packets, the paper's. */
    unsigned parsimon_norm_pkts;
    /* Parsimon's max_from_bytes when the scenario leaves it unset
     * (docs/parsimon.md, "Long flows: one bottleneck at a time"): flows of
     * at least this many bytes take the largest of their links' delays, not
     * their sum; 0 = every flow the sum, the paper's. */
    uint64_t parsimon_max_from_bytes;
    /* The queue policy its switch ports take unless the scenario names one
     * (pktsim's qpolicy registry: "phantom" for Uno); NULL = "red". */
    const char *switch_qpolicy;
    const char *wan_qpolicy; /* the same for WAN ports; NULL = switch_qpolicy's */
    /* The transport its flows take unless the scenario names one (pktsim's
     * transport registry: "sack" for Uno, as its artifact); NULL = "gbn". */
    const char *transport;
    const tl_cc_ops *ops; /* pktsim's implementation; NULL = no engine implements it yet */
} tl_cc_desc;

/* The registry, in a fixed order (docs, --help and the parameter registry follow it). */
size_t tl_cc_count(void);
const tl_cc_desc *tl_cc_get(size_t i); /* 0 <= i < tl_cc_count() */
/* The CC named name, or NULL. */
const tl_cc_desc *tl_cc_lookup(const char *name);
/* The CC with stable id id, or NULL. */
const tl_cc_desc *tl_cc_lookup_id(int id);
/* The closest registered name (for "did you mean"), or NULL. */
const char *tl_cc_suggest(const char *name);
/* Writes the registered names into buf, separated by sep, the last one by
 * last_sep ("a, b or c"); only those pktsim implements if is_implemented. */
void tl_cc_names(char *buf, size_t n, const char *sep, const char *last_sep, int is_implemented);

/* Whether knob's group (the part of its name before the dot) is one of
 * d->groups: the knobs the CC reads, whose run-time changes it hears. */
int tl_cc_reads_group(const tl_cc_desc *d, const char *knob);

/* The values of d's knobs, indexed like d->knobs (p from tl_params_init). */
static inline const double *tl_cc_knobs(const tl_cc_desc *d, const tl_params *p)
{
    return tl_params_table(p, d->knobs);
}

/* Bytes in a flow's window at start (window_knob; mss_bytes per packet;
 * fabric_bdp_bytes when the knob is 0, "the fabric's BDP"), or NaN for a
 * rate-limited CC. */
double tl_cc_start_window_bytes(const tl_cc_desc *d, const tl_params *p, double mss_bytes,
                                double fabric_bdp_bytes);

#endif
