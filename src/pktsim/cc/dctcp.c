/* DCTCP, window-based (Alizadeh et al. SIGCOMM'10; RFC 8257): the sender
 * keeps alpha, an EWMA (gain g) of the fraction of marked bytes per window of
 * data, and at most once per window cuts cwnd by alpha/2 when marks arrive.
 * Growth is TCP's: slow start below ssthresh, then one MSS per window. */
#include <math.h>

#include "../cc.h"

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
    st->g = tl_params_get(p, "dctcp.g");
    st->alpha = tl_params_get(p, "dctcp.initial_alpha");
    io->cwnd_bytes = (uint64_t)tl_params_get(p, "dctcp.initial_window_pkts") * io->mss_bytes;
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
    ((dctcp *)vst)->g = tl_params_get(p, "dctcp.g");
}

const tl_cc_ops tl_cc_dctcp = {
    .name = "dctcp",
    .doc = "DCTCP, window-based (Alizadeh et al. SIGCOMM'10; RFC 8257). The sender keeps alpha, an EWMA with gain g of the fraction of acknowledged bytes that carried an ECN echo, updated once per window of data; the first marked ACK of a window cuts the window by alpha/2 (at most one cut per window). Growth is TCP's: slow start from the initial window until the first cut, then one MSS per window. A loss (NACK or timeout) halves ssthresh and restarts from one MSS. Switches mark with a step at K (kmin = kmax).",
    .groups = "dctcp,switch",
    .is_ramp = 1,
    .state_bytes = sizeof(dctcp),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
    .on_loss = on_loss,
};
