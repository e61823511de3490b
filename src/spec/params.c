/* The parameter registry (see tailor/params.h). Knobs of the network model
 * shared by all engines live here; each congestion control adds its own table
 * to `tables` below when it lands. Defaults follow the ns-3 HPCC setup that
 * Parsimon and m3 use as ground truth (../shared/notes/parsimon.md §3). */
#include "tailor/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/strutil.h"
#include "tailor/units.h"

static const tl_param_def net_params[] = {
    {"nic.mtu_bytes", TL_UNIT_BYTES, 1000, 64, 65536, 1, TL_DIR_UP_THROUGHPUT,
     "Payload bytes per data packet (ns-3 HPCC PACKET_PAYLOAD_SIZE, Parsimon's 1000 B)."},
    {"nic.header_bytes", TL_UNIT_BYTES, 48, 0, 1024, 1, TL_DIR_NEUTRAL,
     "Header bytes added to every data packet (Parsimon's constant, 48 B)."},
    {"nic.ack_bytes", TL_UNIT_BYTES, 60, 1, 1024, 1, TL_DIR_NEUTRAL,
     "Size of an ACK packet on the wire (Parsimon's constant, 60 B)."},
    {"switch.buffer_bytes", TL_UNIT_BYTES, 3145728, 1024, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Shared packet buffer per switch (ns-3 HPCC run.py gives 3 MiB at 10 Gb/s)."},
};

/* pktsim's transport and switch model (docs/pktsim.md). Marking thresholds
 * scale with the port's rate as parsimon-eval sets them: K = 3 KB per Gb/s. */
static const tl_param_def pktsim_params[] = {
    {"nic.rto_ps", TL_UNIT_PS, 1e9, 1e6, 1e13, 1, TL_DIR_NEUTRAL,
     "Retransmission timeout: go-back-N from the first unacked byte when no ACK came for this "
     "long (1 ms), on a fabric without PFC."},
    {"nic.rto_lossless_ps", TL_UNIT_PS, 67108864000, 1e6, 1e13, 1, TL_DIR_NEUTRAL,
     "Retransmission timeout with switch.pfc on: a RoCE NIC's local ACK timeout, 4.096 us x "
     "2^14 (67 ms; perftest's default exponent). Lossless fabrics drop only when a switch's "
     "buffer is full; a shorter timeout fires on round trips stretched by PAUSEs, and a "
     "window-less CC (DCQCN, TIMELY) then resends all it has in flight."},
    {"nic.ack_every_pkts", TL_UNIT_NONE, 1, 1, 1024, 1, TL_DIR_UP_THROUGHPUT,
     "ACK coalescing: the receiver acknowledges every this many in-order data packets (and at "
     "once on an ECN mark, a gap or the flow's last byte); 1 = one ACK per packet (ns-3 HPCC "
     "L2_ACK_INTERVAL 1)."},
    {"switch.dt_alpha", TL_UNIT_NONE, 1, 1.0 / 64, 64, 0, TL_DIR_UP_THROUGHPUT,
     "Dynamic-threshold factor of the shared buffer: a port may hold at most alpha x the free "
     "buffer (Choudhury and Hahne)."},
    {"switch.kmin_bytes_per_gbps", TL_UNIT_BYTES, 3000, 0, 1e9, 0, TL_DIR_UP_THROUGHPUT,
     "ECN marking starts above this queue length, per Gb/s of the port's rate (parsimon-eval: "
     "3 KB per Gb/s)."},
    {"switch.kmax_bytes_per_gbps", TL_UNIT_BYTES, 3000, 0, 1e9, 0, TL_DIR_UP_THROUGHPUT,
     "Every packet is marked above this queue length, per Gb/s (equal to kmin: step marking)."},
    {"switch.pmax", TL_UNIT_FRAC, 1, 0, 1, 0, TL_DIR_UP_DELAY,
     "RED marking probability reached at kmax (1 with kmin = kmax: DCTCP's step)."},
    {"switch.mark_on_dequeue", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
     "Mark against the queue left behind a departing packet (ns-3 HPCC, Minim) rather than "
     "the queue a packet joins."},
    {"switch.pfc", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
     "Priority flow control: a switch pauses an upstream port whose packets occupy more than "
     "pfc_xoff_bytes of its buffer, and resumes it below pfc_xon_bytes, or uses pfc_shift's "
     "dynamic thresholds (lossless fabric)."},
    {"switch.pfc_xoff_bytes", TL_UNIT_BYTES, 100000, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-ingress buffer occupancy that sends PAUSE upstream."},
    {"switch.pfc_xon_bytes", TL_UNIT_BYTES, 80000, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-ingress buffer occupancy below which a paused upstream is resumed (< xoff)."},
    {"switch.pfc_shift", TL_UNIT_NONE, 0, 0, 16, 1, TL_DIR_NEUTRAL,
     "PFC thresholds: 0 = the fixed pfc_xoff_bytes / pfc_xon_bytes; s > 0 = dynamic, as ns-3's "
     "HPCC fork: pause an ingress holding more than the switch's free buffer / 2^s (s one "
     "lower per doubling of the port's rate over the host links'; the fork uses 3), resume "
     "3 KB below that."},
    {"dctcp.g", TL_UNIT_FRAC, 0.0625, 1e-6, 1, 0, TL_DIR_UP_DELAY,
     "EWMA gain of the marked fraction alpha (RFC 8257: 1/16)."},
    {"dctcp.initial_alpha", TL_UNIT_FRAC, 1, 0, 1, 0, TL_DIR_UP_DELAY,
     "Alpha before any feedback (RFC 8257: 1)."},
    {"dctcp.initial_window_pkts", TL_UNIT_NONE, 10, 1, 1e6, 1, TL_DIR_UP_THROUGHPUT,
     "Initial congestion window in packets (RFC 6928: 10)."},
    {"dctcp_rate.g", TL_UNIT_FRAC, 0.0625, 1e-6, 1, 0, TL_DIR_UP_DELAY,
     "EWMA gain of alpha in the HPCC code's rate-based DCTCP (EWMA_GAIN 1/16)."},
    {"dctcp_rate.ai_bps", TL_UNIT_BPS, 615e6, 0, 1e12, 0, TL_DIR_UP_THROUGHPUT,
     "Rate added per batch outside recovery (DCTCP_RATE_AI 615 Mb/s)."},
    {"dctcp_rate.min_rate_bps", TL_UNIT_BPS, 1e9, 1e3, 1e12, 0, TL_DIR_UP_THROUGHPUT,
     "Floor of the rate cuts (MIN_RATE 1 Gb/s)."},
    {"dctcp_rate.window_bytes", TL_UNIT_BYTES, 18000, 1000, 1e10, 1, TL_DIR_UP_THROUGHPUT,
     "Window at line rate, scaled by rate / line rate (FIXED_WIN 18 KB = 10 Gb/s x 14.4 us)."},
};

/* RDMA congestion controls. DCQCN (Zhu et al. SIGCOMM'15) with NVIDIA's
 * knob names and defaults (DOCA "DCQCN CC parameters"; ../shared/notes/
 * topobench_paraleon.md §B4); TIMELY (Mittal et al. SIGCOMM'15) and HPCC
 * (Li et al. SIGCOMM'19) with the ns-3 HPCC fork's defaults. */
static const tl_param_def rdma_params[] = {
    {"dcqcn.ai_rate_bps", TL_UNIT_BPS, 5e6, 1e5, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Additive increase of the target rate per increase event (NVIDIA rpg_ai_rate: 5 Mb/s)."},
    {"dcqcn.hai_rate_bps", TL_UNIT_BPS, 50e6, 1e5, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Hyper-increase step of the target rate (NVIDIA rpg_hai_rate: 50 Mb/s)."},
    {"dcqcn.rate_reduce_monitor_period_ps", TL_UNIT_PS, 4e6, 0, 1e10, 0, TL_DIR_UP_THROUGHPUT,
     "The reaction point cuts its rate at most once per this period (NVIDIA: 4 us)."},
    {"dcqcn.min_time_between_cnps_ps", TL_UNIT_PS, 4e6, 0, 1e10, 0, TL_DIR_UP_THROUGHPUT,
     "The notification point sends at most one CNP per flow per this period (NVIDIA: 4 us)."},
    {"dcqcn.rpg_time_reset_ps", TL_UNIT_PS, 300e6, 1e6, 1e11, 0, TL_DIR_UP_DELAY,
     "Rate-increase timer: one increase event per period without a cut (NVIDIA: 300 us)."},
    {"dcqcn.rpg_byte_reset_bytes", TL_UNIT_BYTES, 32767, 1, 1e12, 1, TL_DIR_UP_DELAY,
     "Byte counter: one increase event per this many bytes sent without a cut (NVIDIA: 32767)."},
    {"dcqcn.rpg_threshold", TL_UNIT_NONE, 1, 1, 31, 1, TL_DIR_UP_DELAY,
     "Increase events spent in fast recovery before additive increase (NVIDIA: 1)."},
    {"dcqcn.rpg_gd", TL_UNIT_NONE, 11, 1, 15, 1, TL_DIR_UP_THROUGHPUT,
     "A cut multiplies the rate by 1 - alpha x 2^(10 - gd): gd 11 halves it at alpha 1 (NVIDIA: "
     "11)."},
    {"dcqcn.rpg_min_dec_fac_pct", TL_UNIT_NONE, 50, 1, 100, 0, TL_DIR_UP_THROUGHPUT,
     "A cut keeps at least this percentage of the rate (NVIDIA: 50)."},
    {"dcqcn.rpg_min_rate_bps", TL_UNIT_BPS, 1e6, 1e3, 1e12, 0, TL_DIR_UP_THROUGHPUT,
     "Floor of the current rate (NVIDIA: 1 Mb/s)."},
    {"dcqcn.rate_to_set_on_first_cnp_bps", TL_UNIT_BPS, 0, 0, 1e12, 0, TL_DIR_UP_THROUGHPUT,
     "Rate a flow drops to at its first CNP; 0 keeps the rate and applies the normal cut (NVIDIA: "
     "0)."},
    {"dcqcn.dce_tcp_g", TL_UNIT_NONE, 1019, 1, 1023, 1, TL_DIR_UP_THROUGHPUT,
     "Alpha's EWMA weight in 1/1024: alpha <- (g/1024) alpha + (1 - g/1024) [CNP seen] once per "
     "alpha period (NVIDIA: 1019)."},
    {"dcqcn.dce_tcp_rtt_ps", TL_UNIT_PS, 1e6, 1e3, 1e10, 0, TL_DIR_NEUTRAL,
     "Alpha update period (NVIDIA dce_tcp_rtt: 1 us)."},
    {"dcqcn.initial_alpha_value", TL_UNIT_NONE, 1023, 0, 1023, 1, TL_DIR_UP_DELAY,
     "Alpha of a new flow, in 1/1024 (NVIDIA: 1023)."},
    {"dcqcn.clamp_tgt_rate", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_UP_DELAY,
     "On every cut, set the target rate to the current rate (NVIDIA: false)."},
    {"dcqcn.clamp_tgt_rate_after_time_inc", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_UP_DELAY,
     "On a cut, set the target rate to the current rate if a timer increase happened since the "
     "last cut (NVIDIA: true)."},
    {"timely.t_low_ps", TL_UNIT_PS, 50e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Below this RTT the rate grows additively whatever the gradient (TIMELY: 50 us)."},
    {"timely.t_high_ps", TL_UNIT_PS, 500e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Above this RTT the rate is cut by beta x (1 - t_high / rtt) (TIMELY: 500 us)."},
    {"timely.delta_bps", TL_UNIT_BPS, 10e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Additive increase step (TIMELY: 10 Mb/s)."},
    {"timely.beta", TL_UNIT_FRAC, 0.8, 0, 1, 0, TL_DIR_UP_DELAY,
     "Multiplicative decrease factor (TIMELY: 0.8)."},
    {"timely.ewma_alpha", TL_UNIT_FRAC, 0.875, 0, 1, 0, TL_DIR_UP_DELAY,
     "Weight of a new RTT difference in the gradient's EWMA (ns-3 HPCC fork TimelyAlpha: 0.875)."},
    {"timely.min_rtt_ps", TL_UNIT_PS, 20e6, 1e3, 1e11, 0, TL_DIR_NEUTRAL,
     "Normalizes the RTT gradient (TIMELY: 20 us)."},
    {"timely.hai_n", TL_UNIT_NONE, 5, 1, 1000, 1, TL_DIR_UP_DELAY,
     "After this many consecutive negative gradients, increase by n x delta (TIMELY: 5)."},
    {"hpcc.eta", TL_UNIT_FRAC, 0.95, 0.05, 1, 0, TL_DIR_UP_THROUGHPUT,
     "Target utilization of the most utilized hop (HPCC: 0.95)."},
    {"hpcc.max_stage", TL_UNIT_NONE, 5, 0, 1000, 1, TL_DIR_UP_THROUGHPUT,
     "Additive-increase rounds before a multiplicative adjustment (HPCC maxStage: 5)."},
    {"hpcc.ai_bps", TL_UNIT_BPS, 50e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
     "Additive increase W_AI, as a rate (W_AI = ai x base RTT; ns-3 HPCC fork RATE_AI order: 50 "
     "Mb/s)."},
};

static const struct {
    const tl_param_def *defs;
    size_t n;
} tables[] = {
    {net_params, sizeof net_params / sizeof *net_params},
    {pktsim_params, sizeof pktsim_params / sizeof *pktsim_params},
    {rdma_params, sizeof rdma_params / sizeof *rdma_params},
};

/* ---- presets: named sets of values applied over the defaults ---- */

typedef struct preset_kv {
    const char *name;
    double value;
} preset_kv;

typedef struct preset {
    const char *name, *doc;
    const preset_kv *kv;
    size_t n;
} preset;

/* DCQCN as NVIDIA ships it, on a lossless fabric; the switch thresholds are
 * the HPCC fork's dcqcn preset (100 Gb/s: Kmin 400 KB, Kmax 1600 KB, Pmax 0.2,
 * i.e. 4 and 16 KB per Gb/s). */
static const preset_kv dcqcn_default_kv[] = {
    {"switch.pfc", 1},
    {"switch.pfc_shift", 3},
    {"switch.kmin_bytes_per_gbps", 4000},
    {"switch.kmax_bytes_per_gbps", 16000},
    {"switch.pmax", 0.2},
};
/* PARALEON's "expert" setting (paraleon.txt Table I): ai 50 Mb/s, hai 150 Mb/s,
 * rate_reduce_monitor_period 80 us, min_time_between_cnps 96 us, Kmin 1600 KB,
 * Kmax 6400 KB, Pmax 0.2; the thresholds are taken at the 100 Gb/s links of
 * the paper's ns-3 setup, i.e. 16 and 64 KB per Gb/s (docs/congestion-control.md). */
static const preset_kv dcqcn_expert_kv[] = {
    {"switch.pfc", 1},
    {"switch.pfc_shift", 3},
    {"switch.kmin_bytes_per_gbps", 16000},
    {"switch.kmax_bytes_per_gbps", 64000},
    {"switch.pmax", 0.2},
    {"dcqcn.ai_rate_bps", 50e6},
    {"dcqcn.hai_rate_bps", 150e6},
    {"dcqcn.rate_reduce_monitor_period_ps", 80e6},
    {"dcqcn.min_time_between_cnps_ps", 96e6},
};
/* The lossless presets take the HPCC fork's dynamic PFC thresholds (1/8 of
 * the free buffer at the NIC rate), as ns-3 runs them: a fixed 100 KB XOFF
 * pauses far earlier and spreads PAUSE storms ns-3 does not show (docs/pktsim.md). */
static const preset_kv lossless_kv[] = {{"switch.pfc", 1}, {"switch.pfc_shift", 3}};

static const preset presets[] = {
    {"dcqcn.nvidia-default", "DCQCN with NVIDIA's defaults, PFC on (dynamic thresholds, pfc_shift 3; the default for cc dcqcn)",
     dcqcn_default_kv, sizeof dcqcn_default_kv / sizeof *dcqcn_default_kv},
    {"dcqcn.expert", "DCQCN as tuned by PARALEON's network experts (paraleon.txt Table I; PFC, pfc_shift 3)",
     dcqcn_expert_kv, sizeof dcqcn_expert_kv / sizeof *dcqcn_expert_kv},
    {"timely.default", "TIMELY on a lossless fabric (PFC with pfc_shift 3; the default for cc timely)", lossless_kv,
     sizeof lossless_kv / sizeof *lossless_kv},
    {"hpcc.default", "HPCC on a lossless fabric (PFC with pfc_shift 3; the default for cc hpcc)", lossless_kv,
     sizeof lossless_kv / sizeof *lossless_kv},
};

size_t tl_params_n_presets(void) { return sizeof presets / sizeof *presets; }
const char *tl_params_preset_name(size_t i) { return presets[i].name; }
const char *tl_params_preset_doc(size_t i) { return presets[i].doc; }

int tl_params_apply_preset(tl_params *p, const char *name, tl_err *err)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        if (strcmp(presets[i].name, name) != 0)
            continue;
        for (size_t k = 0; k < presets[i].n; k++) {
            int rc = tl_params_set(p, presets[i].kv[k].name, presets[i].kv[k].value, err);
            if (rc)
                return rc;
        }
        return 0;
    }
    const char *names[16];
    size_t n = sizeof presets / sizeof *presets;
    for (size_t i = 0; i < n && i < 16; i++)
        names[i] = presets[i].name;
    const char *sug = tl_suggest(name, names, n < 16 ? n : 16);
    char list[400] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 presets[i].name);
    return tl_err_set(err, TL_EPARSE, "unknown preset '%s'%s%s%s; presets: %s", name,
                      sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "", list);
}

const char *tl_params_cc_default_preset(const char *cc)
{
    if (strcmp(cc, "dcqcn") == 0)
        return "dcqcn.nvidia-default";
    if (strcmp(cc, "timely") == 0)
        return "timely.default";
    if (strcmp(cc, "hpcc") == 0)
        return "hpcc.default";
    return NULL;
}

size_t tl_params_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        n += tables[t].n;
    return n;
}

const tl_param_def *tl_params_def(size_t i)
{
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        if (i < tables[t].n)
            return &tables[t].defs[i];
        i -= tables[t].n;
    }
    return NULL;
}

int tl_params_find(const char *name)
{
    size_t n = tl_params_count();
    for (size_t i = 0; i < n; i++)
        if (strcmp(tl_params_def(i)->name, name) == 0)
            return (int)i;
    return -1;
}

const char *tl_params_suggest(const char *name)
{
    size_t n = tl_params_count();
    const char *names[256];
    if (n > 256)
        n = 256;
    for (size_t i = 0; i < n; i++)
        names[i] = tl_params_def(i)->name;
    return tl_suggest(name, names, n);
}

int tl_params_init(tl_params *p, tl_err *err)
{
    p->n = tl_params_count();
    p->v = malloc((p->n ? p->n : 1) * sizeof *p->v);
    if (!p->v)
        return tl_err_nomem(err);
    for (size_t i = 0; i < p->n; i++)
        p->v[i] = tl_params_def(i)->def;
    return 0;
}

void tl_params_fini(tl_params *p)
{
    if (!p)
        return;
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

int tl_params_copy(tl_params *dst, const tl_params *src, tl_err *err)
{
    if (tl_params_init(dst, err))
        return TL_ENOMEM;
    memcpy(dst->v, src->v, src->n * sizeof *src->v);
    return 0;
}

double tl_params_get(const tl_params *p, const char *name)
{
    int i = tl_params_find(name);
    return i < 0 ? NAN : p->v[i];
}

static int unknown(const char *name, tl_err *err)
{
    const char *s = tl_params_suggest(name);
    return tl_err_set(err, TL_EPARSE, "unknown parameter '%s'%s%s%s", name,
                      s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
}

int tl_params_set(tl_params *p, const char *name, double value, tl_err *err)
{
    int i = tl_params_find(name);
    if (i < 0)
        return unknown(name, err);
    const tl_param_def *d = tl_params_def((size_t)i);
    if (!isfinite(value) || value < d->min || value > d->max)
        return tl_err_set(err, TL_ERANGE, "%s: expected a value in [%g, %g] %s, found %g", name,
                          d->min, d->max, tl_unit_name(d->unit), value);
    if (d->is_integer && value != floor(value))
        return tl_err_set(err, TL_ERANGE, "%s: expected a whole number, found %g", name, value);
    p->v[i] = value;
    return 0;
}

int tl_params_set_text(tl_params *p, const char *name, const char *text, tl_err *err)
{
    int i = tl_params_find(name);
    if (i < 0)
        return unknown(name, err);
    const tl_param_def *d = tl_params_def((size_t)i);
    char *end;
    double v = strtod(text, &end);
    int ok = end != text && *end == '\0';
    if (!ok) {
        uint64_t u;
        int64_t ps;
        switch (d->unit) {
        case TL_UNIT_BYTES:
            ok = tl_units_parse_bytes(text, &u) == 0;
            v = (double)u;
            break;
        case TL_UNIT_BPS:
            ok = tl_units_parse_rate(text, &u) == 0;
            v = (double)u;
            break;
        case TL_UNIT_PS:
            ok = tl_units_parse_time(text, &ps) == 0;
            v = (double)ps;
            break;
        case TL_UNIT_BOOL:
            ok = strcmp(text, "true") == 0 || strcmp(text, "false") == 0;
            v = text[0] == 't';
            break;
        default:
            break;
        }
    }
    if (!ok)
        return tl_err_set(err, TL_EPARSE, "%s: expected a number%s%s, found '%s'", name,
                          d->unit == TL_UNIT_NONE || d->unit == TL_UNIT_FRAC ? "" : " in ",
                          d->unit == TL_UNIT_NONE || d->unit == TL_UNIT_FRAC ? ""
                                                                            : tl_unit_name(d->unit),
                          text);
    return tl_params_set(p, name, v, err);
}

int tl_params_set_assign(tl_params *p, const char *assign, tl_err *err)
{
    const char *eq = strchr(assign, '=');
    if (!eq || eq == assign || !eq[1])
        return tl_err_set(err, TL_EPARSE, "expected name=value, found '%s'", assign);
    char name[128];
    size_t len = (size_t)(eq - assign);
    if (len >= sizeof name)
        return tl_err_set(err, TL_EPARSE, "parameter name too long in '%s'", assign);
    memcpy(name, assign, len);
    name[len] = '\0';
    return tl_params_set_text(p, name, eq + 1, err);
}

const char *tl_unit_name(tl_unit u)
{
    switch (u) {
    case TL_UNIT_BYTES: return "bytes";
    case TL_UNIT_BPS: return "bit/s";
    case TL_UNIT_PS: return "ps";
    case TL_UNIT_FRAC: return "fraction";
    case TL_UNIT_BOOL: return "bool";
    default: return "";
    }
}
