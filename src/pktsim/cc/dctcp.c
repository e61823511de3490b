/* DCTCP, window-based (Alizadeh et al. SIGCOMM'10; RFC 8257): the sender
 * keeps alpha, an EWMA (gain g) of the fraction of marked bytes per window of
 * data, and at most once per window cuts cwnd by alpha/2 when marks arrive.
 * Growth is TCP's: slow start below ssthresh, then one MSS per window. */
#include <math.h>

#include "../cc.h"

extern const tl_cc_desc tl_cc_dctcp;

/* ---- knobs (transport.dctcp.*; indices into tl_cc_knobs) ---- */
enum { G, INITIAL_ALPHA, INITIAL_WINDOW_PKTS, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [G] = {"dctcp.g", TL_UNIT_FRAC, 0.0625, 1e-6, 1, 0, TL_DIR_UP_DELAY,
           "EWMA gain of the marked fraction alpha (RFC 8257: 1/16)."},
    [INITIAL_ALPHA] = {"dctcp.initial_alpha", TL_UNIT_FRAC, 1, 0, 1, 0, TL_DIR_UP_DELAY,
                       "Alpha before any feedback (RFC 8257: 1)."},
    [INITIAL_WINDOW_PKTS] = {"dctcp.initial_window_pkts", TL_UNIT_NONE, 10, 1, 1e6, 1,
                             TL_DIR_UP_THROUGHPUT,
                             "Initial congestion window in packets (RFC 6928: 10)."},
};

typedef struct dctcp {
    double alpha, g;
    uint64_t ssthresh;
    uint64_t win_end;       /* alpha is updated when snd_una passes this */
    uint64_t acked, marked; /* bytes in the current observation window */
    uint64_t cut_end;       /* no second cut before snd_una passes this */
    double ca_acc;          /* congestion-avoidance credit, bytes */
} dctcp;

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    dctcp *st = vst;
    const double *k = tl_cc_knobs(&tl_cc_dctcp, p);
    st->g = k[G];
    st->alpha = k[INITIAL_ALPHA];
    io->cwnd_bytes = (uint64_t)k[INITIAL_WINDOW_PKTS] * io->mss_bytes;
    io->rate_bps = 0;
    st->ssthresh = UINT64_MAX;
    st->win_end = io->cwnd_bytes;
    return 0;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    dctcp *st = vst;
    st->acked += a->newly_acked;
    if (a->is_ece)
        st->marked += a->newly_acked;
    if (io->snd_una >= st->win_end) { /* one window of data observed */
        double frac = st->acked ? (double)st->marked / (double)st->acked : 0;
        st->alpha = (1 - st->g) * st->alpha + st->g * frac;
        st->acked = st->marked = 0;
        st->win_end = io->snd_nxt;
    }
    if (a->is_ece && io->snd_una >= st->cut_end) {
        uint64_t w = (uint64_t)((double)io->cwnd_bytes * (1 - st->alpha / 2));
        io->cwnd_bytes = w > io->mss_bytes ? w : io->mss_bytes;
        st->ssthresh = io->cwnd_bytes;
        st->cut_end = io->snd_nxt;
        return;
    }
    if (io->cwnd_bytes < st->ssthresh) {
        io->cwnd_bytes += a->newly_acked;
    } else {
        st->ca_acc += (double)a->newly_acked * io->mss_bytes / (double)io->cwnd_bytes;
        if (st->ca_acc >= 1) {
            uint64_t inc = (uint64_t)st->ca_acc;
            io->cwnd_bytes += inc;
            st->ca_acc -= (double)inc;
        }
    }
}

static void on_loss(void *vst, tl_cc_io *io)
{
    dctcp *st = vst;
    st->ssthresh = io->cwnd_bytes / 2 > io->mss_bytes ? io->cwnd_bytes / 2 : io->mss_bytes;
    io->cwnd_bytes = io->mss_bytes;
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    ((dctcp *)vst)->g = tl_cc_knobs(&tl_cc_dctcp, p)[G];
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_dctcp,
    .state_bytes = sizeof(dctcp),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
    .on_loss = on_loss,
};

const tl_cc_desc tl_cc_dctcp = {
    .name = "dctcp",
    .id = TL_CC_DCTCP,
    .doc = "DCTCP, window-based (Alizadeh et al. SIGCOMM'10; RFC 8257). The sender keeps alpha, an EWMA with gain g of the fraction of acknowledged bytes that carried an ECN echo, updated once per window of data; the first marked ACK of a window cuts the window by alpha/2 (at most one cut per window). Growth is TCP's: slow start from the initial window until the first cut, then one MSS per window. A loss (NACK or timeout) halves ssthresh and restarts from one MSS. Switches mark with a step at K (kmin = kmax).",
    .groups = "dctcp,switch",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .is_ramp = 1,
    .window_knob = INITIAL_WINDOW_PKTS,
    .queue = TL_CC_QUEUE_KMIN,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    .ops = &ops,
};
