/* UnoCC (uno.txt §4.1, Algorithm 1): one window-based AIMD loop for intra- and
 * inter-DC flows, driven by ECN from phantom queues (qpolicy/phantom.c).
 *
 *   per unmarked ACK:  cwnd += alpha x acked / cwnd      (alpha = ai x the flow's BDP)
 *   per epoch:         E = (1-g) E + g x marked fraction
 *                      if the epoch saw a mark: cwnd *= 1 - E x 4K/(K+BDP) x MD_scale
 *                      MD_scale = MD_scale x 0.3 when the ending ACK saw no queueing
 *                      delay (phantom-only congestion), else 1
 *   once per RTT:      if bytes acked in it < beta x cwnd: cwnd = bytes acked
 *                      (Quick Adapt), then no QA or MD for one RTT
 *
 * Epochs last one intra-DC RTT for every flow (the same reaction granularity
 * inside and across DCs is what makes Uno converge fast, §4.1.1): the first
 * ACK opens one, and an ACK ends it when its data packet was sent at or
 * after the epoch's end time, which then moves by one period.
 *
 * The paper is the default; Uno's public artifact (an htsim fork) departs
 * from it in places, and preset uno.artifact takes its values
 * (docs/uno.md). BDP and RTT are the flow's own path's (base_rtt_ps x line
 * rate), K is 1/7 of the network's intra-DC BDP. */
#include <math.h>

#include "../cc.h"

extern const tl_cc_desc tl_cc_uno;

/* ---- knobs (transport.uno.*; indices into tl_cc_knobs) ---- */
enum {
    AI_BDP_FRAC,
    QA_BETA,
    K_BYTES,
    EWMA_GAIN,
    GENTLE_FACTOR,
    GENTLE_COMPOUNDS,
    NO_DELAY_PS,
    NO_DELAY_FRAC,
    EPOCH_PS,
    QA_SCALE,
    QA_PERIOD_RTTS,
    QA_MEASURED_RTT,
    QA,
    HOLD_WHEN_FALLING,
    INITIAL_WINDOW_BDP,
    PACING,
    N_KNOBS
};
static const tl_param_def knobs[N_KNOBS] = {
    [AI_BDP_FRAC] = {"uno.ai_bdp_frac", TL_UNIT_FRAC, 0.001, 1e-6, 1, 0, TL_DIR_UP_THROUGHPUT,
                     "Additive increase alpha per RTT as a fraction of the flow's BDP (uno.txt "
                     "Table 2: 0.001)."},
    [QA_BETA] = {"uno.qa_beta", TL_UNIT_FRAC, 0.5, 0, 1, 0, TL_DIR_UP_DELAY,
                 "Quick Adapt fires when a period acknowledges fewer than beta x cwnd bytes "
                 "(uno.txt Table 2: 0.5)."},
    [K_BYTES] = {"uno.k_bytes", TL_UNIT_BYTES, 0, 0, 1e12, 0, TL_DIR_UP_DELAY,
                 "MD constant K in E x 4K/(K+BDP); 0 = 1/7 of the network's intra-DC BDP "
                 "(uno.txt Table 2; the artifact's 6 x 4096 B)."},
    [EWMA_GAIN] = {"uno.ewma_gain", TL_UNIT_FRAC, 0.5, 1e-6, 1, 0, TL_DIR_UP_DELAY,
                   "Gain g of the EWMA E of the marked fraction per epoch (uno.txt leaves it "
                   "open; the artifact's Fig. 10-12 runs: 0.5)."},
    [GENTLE_FACTOR] = {"uno.gentle_factor", TL_UNIT_FRAC, 0.3, 0, 1, 0, TL_DIR_UP_THROUGHPUT,
                       "MD scale factor when marks come without queueing delay, i.e. from phantom "
                       "queues alone (uno.txt Algorithm 1: 0.3; the artifact's 0.35)."},
    [GENTLE_COMPOUNDS] = {"uno.gentle_compounds", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_NEUTRAL,
                          "1: MD_scale = MD_scale x factor on each phantom-only epoch in a row, "
                          "as Algorithm 1 reads; 0: factor each time (the artifact)."},
    [NO_DELAY_PS] = {"uno.no_delay_ps", TL_UNIT_PS, 1e6, 0, 1e12, 1, TL_DIR_NEUTRAL,
                     "An RTT at most this above the path's base RTT counts as no delay, i.e. "
                     "marks from phantom queues alone (uno.txt: delay == 0; 1 us, about three "
                     "4 KB packets at 100 Gb/s, absorbs serialization jitter)."},
    [NO_DELAY_FRAC] = {"uno.no_delay_frac", TL_UNIT_FRAC, 0, 0, 10, 0, TL_DIR_NEUTRAL,
                       "Adds this fraction of the path's base RTT to the no-delay tolerance (the "
                       "artifact: 0.055 and no_delay_ps 0, which hides a 1 MB queue from an "
                       "inter-DC flow)."},
    [EPOCH_PS] = {"uno.epoch_ps", TL_UNIT_PS, 0, 0, 1e13, 1, TL_DIR_NEUTRAL,
                  "Epoch period, the same for every flow; 0 = the network's intra-DC RTT "
                  "(uno.txt §4.1.1 and Table 2: 14 us)."},
    [QA_SCALE] = {"uno.qa_scale", TL_UNIT_FRAC, 1, 0.01, 1, 0, TL_DIR_UP_THROUGHPUT,
                  "Quick Adapt sets cwnd to this x the bytes acknowledged in the period "
                  "(uno.txt: 1; the artifact's 0.96)."},
    [QA_PERIOD_RTTS] = {"uno.qa_period_rtts", TL_UNIT_NONE, 1, 0.1, 100, 0, TL_DIR_UP_DELAY,
                        "Quick Adapt period in base RTTs of the flow's path (uno.txt: once per "
                        "RTT; the artifact's 1.05)."},
    [QA_MEASURED_RTT] = {"uno.qa_measured_rtt", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                         "1: the Quick Adapt period is measured in the flow's latest RTT sample (at "
                         "least its base RTT), so queueing does not shorten a period below one "
                         "round of ACKs; 0: in base RTTs (the artifact)."},
    [QA] = {"uno.qa", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL, "Quick Adapt on (uno.txt §4.1.2)."},
    [HOLD_WHEN_FALLING] = {"uno.hold_when_falling", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_UP_THROUGHPUT,
                           "1: a marked epoch whose E fell below the previous one (E <= 0.9) "
                           "increases as an unmarked one instead of cutting (the artifact; not in "
                           "uno.txt)."},
    [INITIAL_WINDOW_BDP] = {"uno.initial_window_bdp", TL_UNIT_NONE, 1, 0.001, 1, 0,
                            TL_DIR_UP_THROUGHPUT,
                            "Initial window in BDPs of the flow's path; the window never exceeds "
                            "one BDP (the artifact's start and cap; uno.txt is silent)."},
    [PACING] = {"uno.pacing", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_NEUTRAL,
                "Pace at cwnd per base RTT (the artifact's pacer; uno.txt is silent)."},
};

/* ---- presets ---- */

/* Uno's artifact (spcl/Uno_SC25, the Fig. 10-12 runs) where it departs from
 * the paper; MTU and buffers belong to the scenario (examples/uno/). */
static const tl_param_value artifact[] = {
    {"uno.k_bytes", 24576},       {"uno.gentle_factor", 0.35}, {"uno.gentle_compounds", 0},
    {"uno.no_delay_ps", 0},       {"uno.no_delay_frac", 0.055},
    {"uno.qa_scale", 0.96},       {"uno.qa_period_rtts", 1.05}, {"uno.hold_when_falling", 1},
    {"uno.qa_measured_rtt", 0},
    {"phantom.drain_frac", 1 / 1.1}, {"phantom.kmin_frac", 0.02}, {"phantom.kmax_frac", 0.6},
};
static const tl_preset presets[] = {
    {"uno.artifact",
     "Uno's public artifact (htsim fork, Fig. 10-12 runs) where it departs from uno.txt: K 6 "
     "MTU, gentle MD x0.35 not compounding, QA to 0.96 x acked every 1.05 RTT, no cut when E "
     "fell, phantom queues draining at 1/1.1 of line rate and marking from 2% to 60%",
     artifact, sizeof artifact / sizeof *artifact},
};

typedef struct uno {
    double cwnd;                   /* bytes */
    double bdp, ai, md;            /* the flow's BDP, alpha, 4K/(K+BDP) */
    double ewma, prev_ewma, g, md_scale, gentle;
    double no_delay_rtt_ps;        /* an RTT at most this is "no delay" */
    double qa_beta, qa_scale;
    int64_t epoch_ps, rtt_ps, last_rtt_ps;
    double qa_rtts;
    int64_t epoch_end_ps;          /* 0 until the first ACK */
    int64_t qa_end_ps;
    int64_t hold_from_ps;          /* after a QA cut: no QA or MD until an ACK of a packet
                                    * sent at or after this (one RTT) */
    uint8_t is_holding;
    uint64_t epoch_acked, epoch_marked, qa_acked;
    uint8_t is_compounding, is_qa, is_hold_when_falling, is_pacing, is_qa_measured;
} uno;

static void read_knobs(uno *st, const tl_cc_io *io, const tl_params *p)
{
    const double *k = tl_cc_knobs(&tl_cc_uno, p);
    st->rtt_ps = io->base_rtt_ps;
    st->bdp = (double)io->base_rtt_ps * (double)io->line_bps / 8e12;
    st->ai = k[AI_BDP_FRAC] * st->bdp;
    double intra_bdp = io->intra_bdp_bytes ? (double)io->intra_bdp_bytes : st->bdp;
    double kb = k[K_BYTES] ? k[K_BYTES] : intra_bdp / 7;
    st->md = 4 * kb / (kb + st->bdp);
    st->g = k[EWMA_GAIN];
    st->gentle = k[GENTLE_FACTOR];
    st->is_compounding = k[GENTLE_COMPOUNDS] != 0;
    st->no_delay_rtt_ps = (1 + k[NO_DELAY_FRAC]) * (double)io->base_rtt_ps + k[NO_DELAY_PS];
    st->epoch_ps = k[EPOCH_PS] ? (int64_t)k[EPOCH_PS]
                   : io->intra_rtt_ps ? io->intra_rtt_ps
                                      : io->base_rtt_ps;
    st->qa_beta = k[QA_BETA];
    st->qa_scale = k[QA_SCALE];
    st->qa_rtts = k[QA_PERIOD_RTTS];
    st->is_qa_measured = k[QA_MEASURED_RTT] != 0;
    st->is_qa = k[QA] != 0;
    st->is_hold_when_falling = k[HOLD_WHEN_FALLING] != 0;
    st->is_pacing = k[PACING] != 0;
}

/* The window within [one packet, one BDP], and the pacing rate cwnd per base RTT. */
static void publish(uno *st, tl_cc_io *io)
{
    tl_cc_set_window(io, &st->cwnd, st->bdp);
    tl_cc_set_rate(io, st->is_pacing ? st->cwnd * 8e12 / (double)st->rtt_ps : INFINITY);
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    uno *st = vst;
    read_knobs(st, io, p);
    st->md_scale = 1;
    st->cwnd = tl_cc_knobs(&tl_cc_uno, p)[INITIAL_WINDOW_BDP] * st->bdp;
    publish(st, io);
    return 0;
}

/* One Quick Adapt period: qa_period_rtts round trips, of the latest sample
 * (never below the base RTT) or of the base RTT. */
static int64_t qa_period_ps(const uno *st)
{
    int64_t rtt = st->is_qa_measured && st->last_rtt_ps > st->rtt_ps ? st->last_rtt_ps : st->rtt_ps;
    return (int64_t)(st->qa_rtts * (double)rtt);
}

static void additive_increase(uno *st, uint64_t bytes)
{
    st->cwnd += st->ai * (double)bytes / st->cwnd;
}

/* An epoch ended on an ACK of RTT rtt_ps: update E, cut if it saw a mark. */
static void epoch_end(uno *st, int64_t rtt_ps, int64_t now)
{
    double frac = st->epoch_acked ? (double)st->epoch_marked / (double)st->epoch_acked : 0;
    st->ewma = (1 - st->g) * st->ewma + st->g * frac;
    if (frac > 0) {
        if ((double)rtt_ps <= st->no_delay_rtt_ps) /* marks from phantom queues alone */
            st->md_scale = (st->is_compounding ? st->md_scale : 1) * st->gentle;
        else
            st->md_scale = 1;
        if (st->is_hold_when_falling && st->prev_ewma > 0 && st->ewma <= 0.9 &&
            st->ewma < st->prev_ewma)
            additive_increase(st, st->epoch_acked);
        else
            st->cwnd *= 1 - st->ewma * st->md * st->md_scale;
    }
    st->prev_ewma = st->ewma;
    st->epoch_acked = st->epoch_marked = 0;
}

/* Quick Adapt (§4.1.2): at the end of each period, a window that the
 * network acknowledged less than beta of is cut to what it did acknowledge;
 * then one RTT without QA or MD: until the first ACK of a packet sent after
 * the cut (the artifact re-arms QA the same way), so the feedback of what
 * was sent before the cut neither cuts again nor counts. */
static void quick_adapt(uno *st, int64_t now)
{
    if (st->qa_acked < st->qa_beta * st->cwnd) {
        st->cwnd = st->qa_scale * (double)st->qa_acked;
        st->is_holding = 1;
        st->hold_from_ps = now;
        st->epoch_acked = st->epoch_marked = 0;
    } else {
        st->qa_end_ps = now + qa_period_ps(st);
    }
    st->qa_acked = 0;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    uno *st = vst;
    int64_t now = io->now_ps, sent = now - a->rtt_ps;
    if (a->is_nack)
        return;
    st->last_rtt_ps = a->rtt_ps;
    if (!st->epoch_end_ps) { /* the first ACK opens the first epoch and QA period */
        st->epoch_end_ps = now;
        st->qa_end_ps = now + qa_period_ps(st);
    } else if (st->is_holding && sent >= st->hold_from_ps) {
        st->is_holding = 0; /* one RTT after a QA cut: a new period and epoch */
        st->qa_end_ps = now + qa_period_ps(st);
        st->epoch_end_ps = now;
    } else if (!st->is_holding) {
        st->qa_acked += a->newly_acked;
    }
    if (a->is_ece)
        st->epoch_marked += a->newly_acked;
    else
        additive_increase(st, a->newly_acked);
    if (!st->is_holding) {
        st->epoch_acked += a->newly_acked;
        if (st->is_qa && now >= st->qa_end_ps)
            quick_adapt(st, now);
    }
    if (!st->is_holding && sent >= st->epoch_end_ps) {
        epoch_end(st, a->rtt_ps, now);
        st->epoch_end_ps += st->epoch_ps;
    }
    publish(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    uno *st = vst;
    read_knobs(st, io, p);
    publish(st, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_uno,
    .state_bytes = sizeof(uno),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_uno = {
    .name = "uno",
    .id = TL_CC_UNO,
    .doc = "UnoCC (Uno, SC'25, uno.txt §4.1, Algorithm 1): one window-based AIMD loop for intra- and inter-DC flows. Every unmarked ACK adds alpha x acked/cwnd (alpha = ai_bdp_frac of the flow's BDP). Epochs last one intra-DC RTT for every flow: an ACK ends the epoch when its data packet left after the epoch's end time; E, an EWMA (gain ewma_gain) of the epoch's marked fraction, then cuts cwnd by E x 4K/(K+BDP) x MD_scale if the epoch saw a mark, with K = 1/7 of the intra-DC BDP and BDP the flow's own; MD_scale shrinks by gentle_factor per epoch whose ending ACK saw no queueing delay (marks from phantom queues alone) and is 1 otherwise. Quick Adapt: once per RTT, if the period acknowledged less than qa_beta x cwnd, cwnd becomes the bytes acknowledged, then one RTT without QA or MD. The window starts at and never exceeds one BDP, paced at cwnd per base RTT. Switch ports take phantom queues by default (queue policy phantom: a counter draining at phantom.drain_frac of line rate, marking between phantom.kmin_frac and kmax_frac of its size). Preset uno.artifact takes the public artifact's departures from the paper.",
    .groups = "uno,phantom",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .is_ramp = 0,
    .window_knob = -1,
    .queue = TL_CC_QUEUE_NONE,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    .switch_qpolicy = "phantom",
    .transport = "sack",
    .ops = &ops,
};
