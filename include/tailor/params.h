/* The parameter registry (DESIGN.md): every tunable knob is declared once with
 * its name, unit, default, valid range and which direction favours throughput
 * or delay. The registry feeds the scenario file (transport.<group>.<knob>),
 * the CLI's --set group.knob=value, docs/parameters.md and the tuner; nothing
 * else hard-codes a knob. The network's knobs are tables in src/spec/params.c;
 * each congestion control brings its own table and presets in its descriptor
 * (tailor/cc.h), appended in the CC registry's order. */
#ifndef TAILOR_PARAMS_H
#define TAILOR_PARAMS_H

#include <stddef.h>

#include "tailor/err.h"

typedef enum {
    TL_UNIT_NONE = 0, /* dimensionless number */
    TL_UNIT_BYTES,
    TL_UNIT_BPS,
    TL_UNIT_PS, /* time; files and --set accept "10us" etc. */
    TL_UNIT_FRAC,
    TL_UNIT_BOOL,
} tl_unit;

typedef enum {
    TL_DIR_NEUTRAL = 0,
    TL_DIR_UP_THROUGHPUT, /* raising it favours throughput (and usually costs delay) */
    TL_DIR_UP_DELAY,      /* raising it favours low delay */
} tl_param_dir;

typedef struct tl_param_def {
    const char *name; /* "group.knob", e.g. "nic.mtu_bytes", "dctcp.k_bytes" */
    tl_unit unit;
    double def, min, max; /* inclusive range */
    int is_integer;
    tl_param_dir dir;
    const char *doc; /* one sentence, with the source of the default */
} tl_param_def;

/* The knob tables of pktsim's queue policies (src/pktsim/qpolicy/registry.c),
 * registered after the CCs': the i-th of n (0 <= i < n), its size in *n. */
size_t tl_qpolicy_n_knob_tables(void);
const tl_param_def *tl_qpolicy_knob_table(size_t i, size_t *n);
/* The same for pktsim's load balancers (src/pktsim/lb/registry.c),
 * registered after the queue policies'. */
size_t tl_lb_n_knob_tables(void);
const tl_param_def *tl_lb_knob_table(size_t i, size_t *n);
/* pktsim's blackholes ("fault.*", src/pktsim/fault.c) and random loss
 * ("loss.*", src/pktsim/loss.c). */
#define TL_FAULT_N_KNOBS 3
#define TL_LOSS_N_KNOBS 8
#define TL_EC_N_KNOBS 5
extern const tl_param_def tl_fault_knobs[TL_FAULT_N_KNOBS], tl_loss_knobs[TL_LOSS_N_KNOBS],
    tl_ec_knobs[TL_EC_N_KNOBS];

/* Number of registered knobs and the i-th definition (0 <= i < n). */
size_t tl_params_count(void);
const tl_param_def *tl_params_def(size_t i);
/* Index of a knob by name, or -1. */
int tl_params_find(const char *name);
/* The closest registered name (for "did you mean"), or NULL. */
const char *tl_params_suggest(const char *name);

/* Values of every knob, indexed like the registry. */
typedef struct tl_params {
    double *v;
    size_t n;
} tl_params;

int tl_params_init(tl_params *p, tl_err *err); /* all defaults */
void tl_params_fini(tl_params *p);
int tl_params_copy(tl_params *dst, const tl_params *src, tl_err *err);
double tl_params_get(const tl_params *p, const char *name); /* NaN if unknown */
/* The values of a registered knob table (a CC's descriptor knobs), indexed
 * like the table: a typed view resolved without names. Costs one scan of the
 * registry's tables (a few pointer compares); table must be registered. */
const double *tl_params_table(const tl_params *p, const tl_param_def *table);

/* Typed handles of the network model's knobs (nic.*, switch.*): their
 * indices in the registry, whose first table they are in this order
 * (params.c declares it with these designators). Read a value with
 * tl_knob(p, TL_K_...): a misspelt handle does not compile, where a
 * misspelt name would read NaN. */
typedef enum tl_net_knob {
    TL_K_NIC_MTU_BYTES, /* nic.mtu_bytes */
    TL_K_NIC_HEADER_BYTES, /* nic.header_bytes */
    TL_K_NIC_ACK_BYTES, /* nic.ack_bytes */
    TL_K_SW_BUFFER_BYTES, /* switch.buffer_bytes */
    TL_K_NIC_RTO_PS, /* nic.rto_ps */
    TL_K_NIC_RTO_LOSSLESS_PS, /* nic.rto_lossless_ps */
    TL_K_NIC_ACK_EVERY_PKTS, /* nic.ack_every_pkts */
    TL_K_SW_DT_ALPHA, /* switch.dt_alpha */
    TL_K_SW_KMIN_BYTES_PER_GBPS, /* switch.kmin_bytes_per_gbps */
    TL_K_SW_KMAX_BYTES_PER_GBPS, /* switch.kmax_bytes_per_gbps */
    TL_K_SW_PMAX, /* switch.pmax */
    TL_K_SW_MARK_ON_DEQUEUE, /* switch.mark_on_dequeue */
    TL_K_SW_PFC, /* switch.pfc */
    TL_K_SW_PFC_XOFF_BYTES, /* switch.pfc_xoff_bytes */
    TL_K_SW_PFC_XON_BYTES, /* switch.pfc_xon_bytes */
    TL_K_SW_PFC_SHIFT, /* switch.pfc_shift */
    TL_K_SW_PORT_BUFFER_BYTES, /* switch.port_buffer_bytes */
    TL_K_SW_WAN_PORT_BUFFER_BYTES, /* switch.wan_port_buffer_bytes */
    TL_K_NIC_WAN_RTO_EXTRA_PS, /* nic.wan_rto_extra_ps */
    TL_K_N_NET
} tl_net_knob;

static inline double tl_knob(const tl_params *p, tl_net_knob k) { return p->v[k]; }

/* Sets a knob after checking type and range. */
int tl_params_set(tl_params *p, const char *name, double value, tl_err *err);
/* Parses "value" in the knob's unit ("30KB", "10us", "0.5", "true") and sets it. */
int tl_params_set_text(tl_params *p, const char *name, const char *text, tl_err *err);
/* Parses "name=value" (the CLI's --set). */
int tl_params_set_assign(tl_params *p, const char *assign, tl_err *err);

/* Presets: named sets of values applied over the current ones
 * ("dcqcn.nvidia-default", "dcqcn.expert", "timely.default", "hpcc.default").
 * A CC declares its own in its descriptor (tailor/cc.h). */
typedef struct tl_param_value {
    const char *name; /* a registered knob: a typo fails every apply; test_cc applies them all */
    double value;
} tl_param_value;

typedef struct tl_preset {
    const char *name, *doc;
    const tl_param_value *values;
    size_t n_values;
} tl_preset;

size_t tl_params_n_presets(void);
const char *tl_params_preset_name(size_t i);
const char *tl_params_preset_doc(size_t i);
int tl_params_apply_preset(tl_params *p, const char *name, tl_err *err);

/* Unit name for docs ("bytes", "bit/s", "ps", "fraction", "bool", ""). */
const char *tl_unit_name(tl_unit u);

#endif
