/* Rate-based DCTCP of the ns-3 HPCC code (CC_MODE 8), the congestion control
 * of Parsimon's and m3's ground truth (../shared/notes/parsimon.md §2-3): a
 * flow starts at line rate with alpha = 1; alpha moves once per batch (a
 * window of sent data) by gain g towards the marked fraction; a marked ACK
 * outside recovery cuts the rate to max(min_rate, rate (1 - alpha/2)) and
 * starts a recovery that lasts until snd_una passes the current snd_nxt; each
 * batch that ends outside recovery adds ai to the rate, up to line rate. The
 * window is W x rate / line rate (the HPCC code's VAR_WIN), where W is the
 * fabric's largest BDP (tl_fabric_ref; the fork's maxBdp, 18 KB on the
 * 10 Gb/s 32-rack fabric Parsimon evaluates) unless window_bytes fixes it. */
#include "../cc.h"

extern const tl_cc_desc tl_cc_dctcp_rate;

/* ---- knobs (transport.dctcp_rate.*; indices into tl_cc_knobs) ---- */
enum { G, AI_BPS, MIN_RATE_BPS, WINDOW_BYTES, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [G] = {"dctcp_rate.g", TL_UNIT_FRAC, 0.0625, 1e-6, 1, 0, TL_DIR_UP_DELAY,
           "EWMA gain of alpha in the HPCC code's rate-based DCTCP (EWMA_GAIN 1/16)."},
    [AI_BPS] = {"dctcp_rate.ai_bps", TL_UNIT_BPS, 615e6, 0, 1e12, 0, TL_DIR_UP_THROUGHPUT,
                "Rate added per batch outside recovery (DCTCP_RATE_AI 615 Mb/s)."},
    [MIN_RATE_BPS] = {"dctcp_rate.min_rate_bps", TL_UNIT_BPS, 1e9, 1e3, 1e12, 0,
                      TL_DIR_UP_THROUGHPUT, "Floor of the rate cuts (MIN_RATE 1 Gb/s)."},
    [WINDOW_BYTES] = {"dctcp_rate.window_bytes", TL_UNIT_BYTES, 0, 0, 1e10, 1,
                      TL_DIR_UP_THROUGHPUT,
                      "Window at line rate, scaled by rate / line rate; 0 takes the fabric's "
                      "largest BDP as the ns-3 HPCC fork does (maxBdp: 18 KB = 10 Gb/s x 14.4 us "
                      "on Parsimon's 32-rack fabric)."},
};

typedef struct dctcp_rate {
    double alpha, g;
    double rate_bps;
    double ai_bps, min_bps;
    uint64_t win_bytes;
    uint64_t batch_end, recovery_end;
    uint64_t acked, marked;
    int is_recovering;
} dctcp_rate;

static void set_window(dctcp_rate *st, tl_cc_io *io)
{
    io->rate_bps = (uint64_t)st->rate_bps;
    uint64_t w = (uint64_t)((double)st->win_bytes * st->rate_bps / (double)io->line_bps);
    io->cwnd_bytes = w > io->mss_bytes ? w : io->mss_bytes;
}

/* window_bytes, or the fabric's largest BDP (this path's when the fabric
 * has none, e.g. a lone host pair on one switch). */
static uint64_t window(const double *k, const tl_cc_io *io)
{
    if (k[WINDOW_BYTES] > 0)
        return (uint64_t)k[WINDOW_BYTES];
    if (io->fabric_bdp_bytes)
        return io->fabric_bdp_bytes;
    return (uint64_t)((double)io->line_bps * (double)io->base_rtt_ps * 1e-12 / 8);
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    dctcp_rate *st = vst;
    const double *k = tl_cc_knobs(&tl_cc_dctcp_rate, p);
    st->g = k[G];
    st->alpha = 1.0;
    st->ai_bps = k[AI_BPS];
    st->min_bps = k[MIN_RATE_BPS];
    st->win_bytes = window(k, io);
    st->rate_bps = (double)io->line_bps;
    if (st->min_bps > st->rate_bps)
        st->min_bps = st->rate_bps;
    set_window(st, io);
    return 0;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    dctcp_rate *st = vst;
    st->acked += a->newly_acked;
    if (a->is_ece)
        st->marked += a->newly_acked;
    if (st->is_recovering && io->snd_una > st->recovery_end)
        st->is_recovering = 0;
    if (a->is_ece && !st->is_recovering) {
        double r = st->rate_bps * (1 - st->alpha / 2);
        st->rate_bps = r > st->min_bps ? r : st->min_bps;
        st->is_recovering = 1;
        st->recovery_end = io->snd_nxt;
    }
    if (io->snd_una > st->batch_end) { /* a batch ended */
        double frac = st->acked ? (double)st->marked / (double)st->acked : 0;
        st->alpha = (1 - st->g) * st->alpha + st->g * frac;
        st->acked = st->marked = 0;
        st->batch_end = io->snd_nxt;
        if (!st->is_recovering) {
            double r = st->rate_bps + st->ai_bps;
            st->rate_bps = r < (double)io->line_bps ? r : (double)io->line_bps;
        }
    }
    set_window(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    dctcp_rate *st = vst;
    const double *k = tl_cc_knobs(&tl_cc_dctcp_rate, p);
    st->g = k[G];
    st->ai_bps = k[AI_BPS];
    st->min_bps = k[MIN_RATE_BPS];
    st->win_bytes = window(k, io);
    if (st->min_bps > (double)io->line_bps)
        st->min_bps = (double)io->line_bps;
    set_window(st, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_dctcp_rate,
    .state_bytes = sizeof(dctcp_rate),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_dctcp_rate = {
    .name = "dctcp-rate",
    .id = TL_CC_DCTCP_RATE,
    .doc = "Rate-based DCTCP of the ns-3 HPCC code (CC_MODE 8), the congestion control of Parsimon's and m3's ground truth. A flow starts at line rate with alpha = 1; alpha moves once per batch (a window of sent data) by gain g towards the marked fraction; a marked ACK outside recovery sets rate = max(min rate, rate (1 - alpha/2)) and starts a recovery that lasts until everything sent before it is acknowledged; each batch that ends outside recovery adds ai to the rate, up to line rate. The window is W x rate / line rate (the HPCC code's VAR_WIN), W the fabric's largest BDP (the fork's maxBdp: twice the propagation plus one MTU's serialization per hop, times the path's slowest link; 18 KB on Parsimon's 10 Gb/s 32-rack fabric) unless window_bytes fixes it.",
    .groups = "dctcp_rate,switch",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .window_knob = WINDOW_BYTES,
    .queue = TL_CC_QUEUE_KMIN,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    /* a windowed flow of up to a few packets meets a busy last hop's queue
     * once, whatever its length: scaling its wait by packets over-estimated
     * the 1-10 KB tail in every scenario of the suite (5 against 10 and 20
     * on the default scenario, then held out on s08-s24) */
    .parsimon_norm_pkts = 5,
    .ops = &ops,
};
