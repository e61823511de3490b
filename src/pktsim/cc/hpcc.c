/* HPCC (Li et al. SIGCOMM'19): the window follows the most utilized hop,
 * measured from the in-band telemetry every switch stamps on data packets.
 * Per ACK, for each hop: u_j = min(qlen, previous qlen) / (B_j T) + txRate_j /
 * B_j, with txRate from the difference of the cumulative transmitted bytes
 * since the previous ACK's record; U is an EWMA of max_j u_j with weight
 * tau / T (tau: that hop's sample interval, at most T = base RTT).
 *   U >= eta or incStage >= maxStage:  W = Wc / (U / eta) + W_AI
 *   otherwise:                          W = Wc + W_AI
 * Wc (the reference window) and incStage move only once per RTT (when the
 * ACK passes the snd_nxt recorded at the previous update). Pacing rate = W /
 * T, capped at line rate. W_AI = ai_bps x T.
 * T is one for the whole fabric (tl_fabric_ref: its largest base RTT), as
 * the paper sets it and the ns-3 HPCC fork runs it (GLOBAL_T 1): every flow
 * then moves its rate W/T by the same steps, whatever its path's length, and
 * flows of different RTTs share a bottleneck fairly. per_flow_t takes each
 * path's own base RTT instead, which favours the longer paths. */
#include <string.h>

#include "../cc.h"

extern const tl_cc_desc tl_cc_hpcc;

/* ---- knobs (transport.hpcc.*; indices into tl_cc_knobs), the ns-3 HPCC
 * fork's defaults ---- */
enum {
    ETA,
    MAX_STAGE,
    AI_BPS,
    PER_FLOW_T,
    N_KNOBS
};
static const tl_param_def knobs[N_KNOBS] = {
    [ETA] = {"hpcc.eta", TL_UNIT_FRAC, 0.95, 0.05, 1, 0, TL_DIR_UP_THROUGHPUT,
             "Target utilization of the most utilized hop (HPCC: 0.95)."},
    [MAX_STAGE] =
        {"hpcc.max_stage", TL_UNIT_NONE, 5, 0, 1000, 1, TL_DIR_UP_THROUGHPUT,
         "Additive-increase rounds before a multiplicative adjustment (HPCC maxStage: 5)."},
    [AI_BPS] = {"hpcc.ai_bps", TL_UNIT_BPS, 50e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
                "Additive increase W_AI, as a rate (W_AI = ai x base RTT; ns-3 HPCC fork RATE_AI "
                "order: 50 Mb/s)."},
    [PER_FLOW_T] = {"hpcc.per_flow_t", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                    "1: T is each flow's own base RTT; 0: one T for the fabric, its largest base "
                    "RTT (the paper's and the ns-3 HPCC fork's GLOBAL_T 1)."},
};

/* ---- presets ---- */

/* The lossless presets take the HPCC fork's dynamic PFC thresholds (1/8 of
 * the free buffer at the NIC rate), as ns-3 runs them: a fixed 100 KB XOFF
 * pauses far earlier and spreads PAUSE storms ns-3 does not show (docs/pktsim.md). */
static const tl_param_value lossless[] = {{"switch.pfc", 1}, {"switch.pfc_shift", 3}};
static const tl_preset presets[] = {
    {"hpcc.default", "HPCC on a lossless fabric (PFC with pfc_shift 3; the default for cc hpcc)",
     lossless, sizeof lossless / sizeof *lossless},
};

typedef struct hpcc {
    double u, w_bytes, wc_bytes, t_s, w_ai_bytes, eta;
    uint32_t inc_stage, max_stage;
    uint64_t last_update_seq;
    tl_int_hop prev[TL_MAX_INT_HOPS];
    int n_prev;
} hpcc;

static void read_knobs(hpcc *st, const tl_cc_io *io, const tl_params *p)
{
    const double *k = tl_cc_knobs(&tl_cc_hpcc, p);
    st->eta = k[ETA];
    st->max_stage = (uint32_t)k[MAX_STAGE];
    int64_t t = k[PER_FLOW_T] != 0 || io->fabric_rtt_ps <= 0 ? io->base_rtt_ps : io->fabric_rtt_ps;
    st->t_s = (double)t * 1e-12;
    st->w_ai_bytes = k[AI_BPS] * st->t_s / 8;
}

/* The window stays within [one packet, one line-rate BDP]: HPCC paces at
 * W / T and never above line rate, so a larger window buys nothing, and the
 * multiplicative step Wc / (U / eta) must not explode when U is near 0. */
static void publish(hpcc *st, tl_cc_io *io)
{
    double bdp = (double)io->line_bps * st->t_s / 8;
    if (st->w_bytes > bdp)
        st->w_bytes = bdp;
    if (st->wc_bytes > bdp)
        st->wc_bytes = bdp;
    if (st->w_bytes < io->mss_bytes)
        st->w_bytes = io->mss_bytes;
    io->cwnd_bytes = (uint64_t)st->w_bytes;
    double r = st->w_bytes * 8 / st->t_s;
    io->rate_bps = r < (double)io->line_bps ? (uint64_t)r : io->line_bps;
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    hpcc *st = vst;
    read_knobs(st, io, p);
    st->w_bytes = st->wc_bytes = (double)io->line_bps * st->t_s / 8; /* one BDP */
    publish(st, io);
    return 0;
}

/* Updates U from the new records; returns 0 when there is no previous sample. */
static int measure(hpcc *st, const tl_ack_info *a)
{
    if (st->n_prev != a->n_hops || a->n_hops == 0)
        return 0;
    double umax = 0, tau = 0;
    for (int j = 0; j < a->n_hops; j++) {
        const tl_int_hop *h = &a->hops[j], *o = &st->prev[j];
        double dt_s = (double)(h->ts_ps - o->ts_ps) * 1e-12;
        if (dt_s <= 0)
            continue;
        double tx_bps = (double)(h->tx_bytes - o->tx_bytes) * 8 / dt_s;
        double q = (double)(h->qlen_bytes < o->qlen_bytes ? h->qlen_bytes : o->qlen_bytes);
        double u = q * 8 / ((double)h->rate_bps * st->t_s) + tx_bps / (double)h->rate_bps;
        if (u > umax) {
            umax = u;
            tau = dt_s;
        }
    }
    if (tau > st->t_s)
        tau = st->t_s;
    st->u = (1 - tau / st->t_s) * st->u + tau / st->t_s * umax;
    return 1;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    hpcc *st = vst;
    if (measure(st, a)) {
        int is_update = a->ack_seq > st->last_update_seq;
        double w;
        if (st->u >= st->eta || st->inc_stage >= st->max_stage) {
            double u = st->u > 1e-3 ? st->u : 1e-3; /* an idle path: grow, but finitely */
            w = st->wc_bytes / (u / st->eta) + st->w_ai_bytes;
            if (is_update)
                st->inc_stage = 0;
        } else {
            w = st->wc_bytes + st->w_ai_bytes;
            if (is_update)
                st->inc_stage++;
        }
        if (w < io->mss_bytes)
            w = io->mss_bytes;
        if (is_update) {
            st->wc_bytes = w;
            st->last_update_seq = io->snd_nxt;
        }
        st->w_bytes = w;
        publish(st, io);
    }
    st->n_prev = a->n_hops;
    if (a->n_hops)
        memcpy(st->prev, a->hops, (size_t)a->n_hops * sizeof *a->hops);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    read_knobs(vst, io, p);
    publish(vst, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_hpcc,
    .state_bytes = sizeof(hpcc),
    .uses_int = 1,
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_hpcc = {
    .name = "hpcc",
    .id = TL_CC_HPCC,
    .doc = "HPCC (Li et al. SIGCOMM'19): every switch stamps in-band telemetry (queue length, transmitted bytes, time, rate) on data packets, and the ACK echoes it. The sender estimates the most utilized hop's utilization U (queue over BDP plus transmit rate over capacity, EWMA over the sample interval) and sets the window W = Wc / (U/eta) + W_AI when U >= eta or after max_stage additive rounds, else W = Wc + W_AI; the reference window Wc moves once per RTT. Pacing rate = W / T. T is the fabric's largest base RTT (twice the propagation plus one MTU's serialization per hop, as the ns-3 HPCC fork's maxRtt), one for all flows, so flows on short and long paths share a bottleneck fairly; per_flow_t takes each flow's own base RTT. PFC on by default (preset hpcc.default).",
    .groups = "hpcc",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .default_preset = "hpcc.default",
    .window_knob = -1,
    .queue = TL_CC_QUEUE_NONE,
    .delay_knob = -1,
    .model_knobs = {ETA, AI_BPS},
    .ops = &ops,
};
