/* The parameter registry (see tailor/params.h). Knobs of the network model
 * shared by all engines live here; each congestion control's knobs and
 * presets live in its own file (src/pktsim/cc/, tailor/cc.h) and are appended
 * after these in the CC registry's order, so a knob's index is fixed at build
 * time. Defaults follow the ns-3 HPCC setup that Parsimon and m3 use as ground
 * truth (../shared/notes/parsimon.md §3). */
#include "tailor/params.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tailor/cc.h"
#include "tailor/strutil.h"
#include "tailor/tune.h"
#include "tailor/units.h"

/* The network model's knobs, at the indices of their handles (tl_net_knob). */
static const tl_param_def net_params[TL_K_N_NET] = {
    [TL_K_NIC_MTU_BYTES] = {"nic.mtu_bytes", TL_UNIT_BYTES, 1000, 64, 65536, 1, TL_DIR_UP_THROUGHPUT,
     "Payload bytes per data packet (ns-3 HPCC PACKET_PAYLOAD_SIZE, Parsimon's 1000 B)."},
    [TL_K_NIC_HEADER_BYTES] = {"nic.header_bytes", TL_UNIT_BYTES, 48, 0, 1024, 1, TL_DIR_NEUTRAL,
     "Header bytes added to every data packet (Parsimon's constant, 48 B)."},
    [TL_K_NIC_ACK_BYTES] = {"nic.ack_bytes", TL_UNIT_BYTES, 60, 1, 1024, 1, TL_DIR_NEUTRAL,
     "Size of an ACK packet on the wire (Parsimon's constant, 60 B)."},
    [TL_K_SW_BUFFER_BYTES] = {"switch.buffer_bytes", TL_UNIT_BYTES, 0, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Shared packet buffer per switch; 0 sizes it with the fastest host link as the ns-3 HPCC fork's run.py does: floor(16 MiB x rate / 50 Gb/s), i.e. 3 MiB at 10 Gb/s, 32 MiB at 100 Gb/s."},
    /* pktsim's transport and switch model (docs/pktsim.md). Marking thresholds
     * scale with the port's rate as parsimon-eval sets them: K = 3 KB per Gb/s. */
    [TL_K_NIC_RTO_PS] = {"nic.rto_ps", TL_UNIT_PS, 1e9, 1e6, 1e13, 1, TL_DIR_NEUTRAL,
     "Retransmission timeout: go-back-N from the first unacked byte when no ACK came for this "
     "long (1 ms), on a fabric without PFC."},
    [TL_K_NIC_RTO_LOSSLESS_PS] = {"nic.rto_lossless_ps", TL_UNIT_PS, 67108864000, 1e6, 1e13, 1, TL_DIR_NEUTRAL,
     "Retransmission timeout with switch.pfc on: a RoCE NIC's local ACK timeout, 4.096 us x "
     "2^14 (67 ms; perftest's default exponent). Lossless fabrics drop only when a switch's "
     "buffer is full; a shorter timeout fires on round trips stretched by PAUSEs, and a "
     "window-less CC (DCQCN, TIMELY) then resends all it has in flight."},
    [TL_K_NIC_ACK_EVERY_PKTS] = {"nic.ack_every_pkts", TL_UNIT_NONE, 1, 1, 1024, 1, TL_DIR_UP_THROUGHPUT,
     "ACK coalescing: the receiver acknowledges every this many in-order data packets (and at "
     "once on an ECN mark, a gap or the flow's last byte); 1 = one ACK per packet (ns-3 HPCC "
     "L2_ACK_INTERVAL 1)."},
    [TL_K_SW_DT_ALPHA] = {"switch.dt_alpha", TL_UNIT_NONE, 1, 1.0 / 64, 64, 0, TL_DIR_UP_THROUGHPUT,
     "Dynamic-threshold factor of the shared buffer: a port may hold at most alpha x the free "
     "buffer (Choudhury and Hahne)."},
    [TL_K_SW_KMIN_BYTES_PER_GBPS] = {"switch.kmin_bytes_per_gbps", TL_UNIT_BYTES, 3000, 0, 1e9, 0, TL_DIR_UP_THROUGHPUT,
     "ECN marking starts above this queue length, per Gb/s of the port's rate (parsimon-eval: "
     "3 KB per Gb/s)."},
    [TL_K_SW_KMAX_BYTES_PER_GBPS] = {"switch.kmax_bytes_per_gbps", TL_UNIT_BYTES, 3000, 0, 1e9, 0, TL_DIR_UP_THROUGHPUT,
     "Every packet is marked above this queue length, per Gb/s (equal to kmin: step marking)."},
    [TL_K_SW_PMAX] = {"switch.pmax", TL_UNIT_FRAC, 1, 0, 1, 0, TL_DIR_UP_DELAY,
     "RED marking probability reached at kmax (1 with kmin = kmax: DCTCP's step)."},
    [TL_K_SW_MARK_ON_DEQUEUE] = {"switch.mark_on_dequeue", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
     "Mark against the queue left behind a departing packet (ns-3 HPCC, Minim) rather than "
     "the queue a packet joins."},
    [TL_K_SW_PFC] = {"switch.pfc", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
     "Priority flow control: a switch pauses an upstream port whose packets occupy more than "
     "pfc_xoff_bytes of its buffer, and resumes it below pfc_xon_bytes, or uses pfc_shift's "
     "dynamic thresholds (lossless fabric)."},
    [TL_K_SW_PFC_XOFF_BYTES] = {"switch.pfc_xoff_bytes", TL_UNIT_BYTES, 100000, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-ingress buffer occupancy that sends PAUSE upstream."},
    [TL_K_SW_PFC_XON_BYTES] = {"switch.pfc_xon_bytes", TL_UNIT_BYTES, 80000, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-ingress buffer occupancy below which a paused upstream is resumed (< xoff)."},
    [TL_K_SW_PFC_SHIFT] = {"switch.pfc_shift", TL_UNIT_NONE, 0, 0, 16, 1, TL_DIR_NEUTRAL,
     "PFC thresholds: 0 = the fixed pfc_xoff_bytes / pfc_xon_bytes; s > 0 = dynamic, as ns-3's "
     "HPCC fork: pause an ingress holding more than the switch's free buffer / 2^s (s one "
     "lower per doubling of the port's rate over the host links'; the fork uses 3), resume "
     "3 KB below that."},
    /* htsim's buffer model (Uno's artifact: -forceQueueSize 1000000): a fixed
     * drop-tail queue per port instead of the shared buffer. */
    [TL_K_SW_PORT_BUFFER_BYTES] = {"switch.port_buffer_bytes", TL_UNIT_BYTES, 0, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-port buffers: 0 = the shared buffer (switch.buffer_bytes, dt_alpha); b > 0 = every "
     "switch port its own drop-tail queue of b bytes, as htsim and Uno's setup (uno.txt "
     "§5.1: 1 MiB per port). Not with switch.pfc."},
    [TL_K_SW_WAN_PORT_BUFFER_BYTES] = {"switch.wan_port_buffer_bytes", TL_UNIT_BYTES, 0, 0, 1e12, 1, TL_DIR_UP_THROUGHPUT,
     "Per-port buffer of the ports on links between data centers (the WAN links of a two_dc "
     "topology), with switch.port_buffer_bytes > 0; 0 = the same as the other ports (uno.txt "
     "Fig. 12 makes them deeper)."},
    [TL_K_NIC_WAN_RTO_EXTRA_PS] = {"nic.wan_rto_extra_ps", TL_UNIT_PS, 0, 0, 1e13, 1, TL_DIR_NEUTRAL,
     "Added to the retransmission timeout of flows between data centers (transport sack): "
     "Uno's artifact adds 3 drain times of an inter-DC port, 252 us with 1 MiB ports at "
     "100 Gb/s, where its intra-DC flows wait 5 drain times of an intra-DC port."},
};

/* The network's tables; the CCs' follow (tl_cc_get(i)->knobs). */
static const struct {
    const tl_param_def *defs;
    size_t n;
} tables[] = {
    {net_params, TL_K_N_NET}, /* first: a handle is its knob's index */
};
#define N_FIXED (sizeof tables / sizeof *tables)

/* Registered last: pktsim's erasure coding, fault and loss models, then
 * PARALEON's monitor and tuner. */
static const struct {
    const tl_param_def *defs;
    size_t n;
} late[] = {{tl_ec_knobs, TL_EC_N_KNOBS},
            {tl_fault_knobs, TL_FAULT_N_KNOBS},
            {tl_loss_knobs, TL_LOSS_N_KNOBS},
            {tl_monitor_knobs, TL_MON_N_KNOBS},
            {tl_tune_knobs, TL_TUNE_N_KNOBS}};
#define N_LATE (sizeof late / sizeof *late)

/* The t-th table of the registry: the fixed ones, one per CC, the queue
 * policies' (tl_qpolicy_knob_table), the load balancers'
 * (tl_lb_knob_table), then the late ones. */
static const tl_param_def *table_at(size_t t, size_t *n)
{
    if (t < N_FIXED) {
        *n = tables[t].n;
        return tables[t].defs;
    }
    t -= N_FIXED;
    if (t < tl_cc_count()) {
        const tl_cc_desc *d = tl_cc_get(t);
        *n = d->n_knobs;
        return d->knobs;
    }
    t -= tl_cc_count();
    if (t < tl_qpolicy_n_knob_tables())
        return tl_qpolicy_knob_table(t, n);
    t -= tl_qpolicy_n_knob_tables();
    if (t < tl_lb_n_knob_tables())
        return tl_lb_knob_table(t, n);
    t -= tl_lb_n_knob_tables();
    if (t < N_LATE)
        *n = late[t].n;
    return t < N_LATE ? late[t].defs : NULL;
}

static size_t n_tables(void)
{
    return N_FIXED + tl_cc_count() + tl_qpolicy_n_knob_tables() + tl_lb_n_knob_tables() + N_LATE;
}

/* ---- presets: named sets of values, declared by the CCs ---- */

static const tl_preset *preset_at(size_t i)
{
    for (size_t c = 0; c < tl_cc_count(); c++) {
        const tl_cc_desc *d = tl_cc_get(c);
        if (i < d->n_presets)
            return &d->presets[i];
        i -= d->n_presets;
    }
    return NULL;
}

size_t tl_params_n_presets(void)
{
    size_t n = 0;
    for (size_t c = 0; c < tl_cc_count(); c++)
        n += tl_cc_get(c)->n_presets;
    return n;
}

const char *tl_params_preset_name(size_t i) { return preset_at(i)->name; }
const char *tl_params_preset_doc(size_t i) { return preset_at(i)->doc; }

int tl_params_apply_preset(tl_params *p, const char *name, tl_err *err)
{
    size_t n = tl_params_n_presets();
    for (size_t i = 0; i < n; i++) {
        const tl_preset *ps = preset_at(i);
        if (strcmp(ps->name, name) != 0)
            continue;
        for (size_t k = 0; k < ps->n_values; k++) {
            int rc = tl_params_set(p, ps->values[k].name, ps->values[k].value, err);
            if (rc)
                return rc;
        }
        return 0;
    }
    const char *names[16];
    for (size_t i = 0; i < n && i < 16; i++)
        names[i] = preset_at(i)->name;
    const char *sug = tl_suggest(name, names, n < 16 ? n : 16);
    char list[400] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 preset_at(i)->name);
    return tl_err_set(err, TL_EPARSE, "unknown preset '%s'%s%s%s; presets: %s", name,
                      sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "", list);
}

size_t tl_params_count(void)
{
    size_t n = 0, m;
    for (size_t t = 0; t < n_tables(); t++) {
        table_at(t, &m);
        n += m;
    }
    return n;
}

const tl_param_def *tl_params_def(size_t i)
{
    size_t m;
    for (size_t t = 0; t < n_tables(); t++) {
        const tl_param_def *defs = table_at(t, &m);
        if (i < m)
            return &defs[i];
        i -= m;
    }
    return NULL;
}

int tl_params_find(const char *name)
{
    size_t base = 0, m;
    for (size_t t = 0; t < n_tables(); t++) {
        const tl_param_def *defs = table_at(t, &m);
        for (size_t k = 0; k < m; k++)
            if (strcmp(defs[k].name, name) == 0)
                return (int)(base + k);
        base += m;
    }
    return -1;
}

const double *tl_params_table(const tl_params *p, const tl_param_def *table)
{
    size_t base = 0, m;
    for (size_t t = 0; t < n_tables(); t++) {
        const tl_param_def *defs = table_at(t, &m);
        if (defs == table)
            return p->v + base;
        base += m;
    }
    assert(!"tl_params_table: table not registered");
    return NULL;
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
