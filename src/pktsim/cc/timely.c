/* TIMELY (Mittal et al. SIGCOMM'15): rate control from RTT samples. Once per
 * window of data (an RTT, as the ns-3 HPCC fork updates it): the new RTT's
 * difference to the previous one enters an EWMA (weight ewma_alpha), and the
 * gradient is that EWMA over min_rtt.
 *   rtt < t_low:   rate += step
 *   rtt > t_high:  rate *= 1 - beta (1 - t_high / rtt)
 *   gradient <= 0: rate += step
 *   otherwise:     rate *= 1 - beta x gradient (at most beta)
 * In the gradient branch the step is hai_n x delta once hai_n such
 * increases came in a row (the paper's HAI; the fork also counts the t_low
 * branch, which overshoots into needless cuts: docs/congestion-control.md).
 * delta is given at 10 Gb/s and scales with the line rate, as the fork's
 * run.py scales RATE_AI (10 Mb/s at 10 Gb/s, 100 Mb/s at 100 Gb/s): a fixed
 * 10 Mb/s per RTT takes tens of milliseconds to win back a cut at 100 Gb/s.
 * The rate stays within [delta, line rate] (the fork floors at MIN_RATE
 * 1 Gb/s, which lets 11 senders overload a 10 Gb/s link for good); there is
 * no window.
 * docs/congestion-control.md compares this with the paper and the fork. */
#include "../cc.h"

extern const tl_cc_desc tl_cc_timely;

/* ---- knobs (transport.timely.*; indices into tl_cc_knobs), the ns-3 HPCC
 * fork's defaults ---- */
enum {
    T_LOW_PS,
    T_HIGH_PS,
    DELTA_BPS,
    BETA,
    EWMA_ALPHA,
    MIN_RTT_PS,
    HAI_N,
    N_KNOBS
};
static const tl_param_def knobs[N_KNOBS] = {
    [T_LOW_PS] =
        {"timely.t_low_ps", TL_UNIT_PS, 50e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
         "Below this RTT the rate grows additively whatever the gradient (TIMELY: 50 us)."},
    [T_HIGH_PS] = {"timely.t_high_ps", TL_UNIT_PS, 500e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
                   "Above this RTT the rate is cut by beta x (1 - t_high / rtt) (TIMELY: 500 us)."},
    [DELTA_BPS] = {"timely.delta_bps", TL_UNIT_BPS, 10e6, 1e3, 1e11, 0, TL_DIR_UP_THROUGHPUT,
                   "Additive increase step at 10 Gb/s, scaled by line rate / 10 Gb/s (TIMELY: "
                   "10 Mb/s; the ns-3 HPCC fork's RATE_AI, 1 Mb/s per Gb/s)."},
    [BETA] = {"timely.beta", TL_UNIT_FRAC, 0.8, 0, 1, 0, TL_DIR_UP_DELAY,
              "Multiplicative decrease factor (TIMELY: 0.8)."},
    [EWMA_ALPHA] = {"timely.ewma_alpha", TL_UNIT_FRAC, 0.875, 0, 1, 0, TL_DIR_UP_DELAY,
                    "Weight of a new RTT difference in the gradient's EWMA (ns-3 HPCC fork "
                    "TimelyAlpha: 0.875)."},
    [MIN_RTT_PS] = {"timely.min_rtt_ps", TL_UNIT_PS, 20e6, 1e3, 1e11, 0, TL_DIR_NEUTRAL,
                    "Normalizes the RTT gradient (TIMELY: 20 us)."},
    [HAI_N] =
        {"timely.hai_n", TL_UNIT_NONE, 5, 1, 1000, 1, TL_DIR_UP_DELAY,
         "After this many consecutive negative gradients, increase by n x delta (TIMELY: 5; "
         "the fork's RATE_HAI = 5 x RATE_AI)."},
};

/* ---- presets ---- */

/* The lossless presets take the HPCC fork's dynamic PFC thresholds (1/8 of
 * the free buffer at the NIC rate), as ns-3 runs them: a fixed 100 KB XOFF
 * pauses far earlier and spreads PAUSE storms ns-3 does not show (docs/pktsim.md). */
static const tl_param_value lossless[] = {{"switch.pfc", 1}, {"switch.pfc_shift", 3}};
static const tl_preset presets[] = {
    {"timely.default",
     "TIMELY on a lossless fabric (PFC with pfc_shift 3; the default for cc timely)", lossless,
     sizeof lossless / sizeof *lossless},
};

typedef struct timely {
    double rate_bps, prev_rtt_ps, rtt_diff_ps;
    int has_prev;
    uint32_t n_inc; /* gradient-branch increases in a row */
    uint64_t update_seq;
    double t_low, t_high, delta, beta, ewma, min_rtt;
    uint32_t hai_n;
} timely;

static void read_knobs(timely *st, const tl_params *p)
{
    const double *k = tl_cc_knobs(&tl_cc_timely, p);
    st->t_low = k[T_LOW_PS];
    st->t_high = k[T_HIGH_PS];
    st->delta = k[DELTA_BPS];
    st->beta = k[BETA];
    st->ewma = k[EWMA_ALPHA];
    st->min_rtt = k[MIN_RTT_PS];
    st->hai_n = (uint32_t)k[HAI_N];
}

/* delta at this line rate */
static double step(const timely *st, const tl_cc_io *io)
{
    return st->delta * (double)io->line_bps / 10e9;
}

static void publish(timely *st, tl_cc_io *io)
{
    if (st->rate_bps > (double)io->line_bps)
        st->rate_bps = (double)io->line_bps;
    if (st->rate_bps < step(st, io))
        st->rate_bps = step(st, io);
    io->rate_bps = (uint64_t)st->rate_bps;
    io->cwnd_bytes = UINT64_MAX;
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    timely *st = vst;
    read_knobs(st, p);
    st->rate_bps = (double)io->line_bps;
    publish(st, io);
    return 0;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    timely *st = vst;
    if (a->ack_seq <= st->update_seq)
        return;
    st->update_seq = io->snd_nxt;
    double rtt = (double)a->rtt_ps;
    if (!st->has_prev) {
        st->has_prev = 1;
        st->prev_rtt_ps = rtt;
        return;
    }
    double diff = rtt - st->prev_rtt_ps;
    st->prev_rtt_ps = rtt;
    st->rtt_diff_ps = (1 - st->ewma) * st->rtt_diff_ps + st->ewma * diff;
    double gradient = st->rtt_diff_ps / st->min_rtt;
    if (rtt < st->t_low) {
        st->rate_bps += step(st, io);
        st->n_inc = 0;
    } else if (rtt <= st->t_high && gradient <= 0) {
        st->rate_bps += (st->n_inc >= st->hai_n ? st->hai_n : 1) * step(st, io);
        st->n_inc++;
    } else if (rtt > st->t_high) {
        st->rate_bps *= 1 - st->beta * (1 - st->t_high / rtt);
        st->n_inc = 0;
    } else {
        st->rate_bps *= 1 - st->beta * (gradient < 1 ? gradient : 1);
        st->n_inc = 0;
    }
    publish(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    read_knobs(vst, p);
    publish(vst, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_timely,
    .state_bytes = sizeof(timely),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_timely = {
    .name = "timely",
    .id = TL_CC_TIMELY,
    .doc = "TIMELY (Mittal et al. SIGCOMM'15): rate control from RTT samples, updated once per window of data. The RTT difference enters an EWMA (weight ewma_alpha) whose ratio to min_rtt is the gradient. Below t_low the rate grows by delta; above t_high it is cut by beta (1 - t_high/rtt); in between, a non-positive gradient adds delta (hai_n x delta after hai_n such updates in a row) and a positive one cuts by beta x gradient. delta is given at 10 Gb/s and scales with the line rate, as the ns-3 HPCC fork scales RATE_AI; the rate never falls below delta. No window, no ECN; PFC on by default (preset timely.default).",
    .groups = "timely",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .default_preset = "timely.default",
    .window_knob = -1,
    .queue = TL_CC_QUEUE_DELAY,
    .delay_knob = T_LOW_PS,
    .model_knobs = {T_LOW_PS, T_HIGH_PS},
    .m3_schema = 6, /* TIMELY's queue term */
    /* its long flows' p99 over-estimated by the sum of their links' delays
     * (docs/parsimon.md, "Long flows: one bottleneck at a time") */
    .parsimon_max_from_bytes = 10000,
    .ops = &ops,
};
