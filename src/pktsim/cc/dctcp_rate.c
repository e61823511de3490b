/* Rate-based DCTCP of the ns-3 HPCC code (CC_MODE 8), the congestion control
 * of Parsimon's and m3's ground truth (../shared/notes/parsimon.md §2-3): a
 * flow starts at line rate with alpha = 1; alpha moves once per batch (a
 * window of sent data) by gain g towards the marked fraction; a marked ACK
 * outside recovery cuts the rate to max(min_rate, rate (1 - alpha/2)) and
 * starts a recovery that lasts until snd_una passes the current snd_nxt; each
 * batch that ends outside recovery adds ai to the rate, up to line rate. The
 * window is fixed_window x rate / line rate (the HPCC code's VAR_WIN). */
#include "../cc.h"

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

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    dctcp_rate *st = vst;
    st->g = tl_params_get(p, "dctcp_rate.g");
    st->alpha = 1.0;
    st->ai_bps = tl_params_get(p, "dctcp_rate.ai_bps");
    st->min_bps = tl_params_get(p, "dctcp_rate.min_rate_bps");
    st->win_bytes = (uint64_t)tl_params_get(p, "dctcp_rate.window_bytes");
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
    st->g = tl_params_get(p, "dctcp_rate.g");
    st->ai_bps = tl_params_get(p, "dctcp_rate.ai_bps");
    st->min_bps = tl_params_get(p, "dctcp_rate.min_rate_bps");
    st->win_bytes = (uint64_t)tl_params_get(p, "dctcp_rate.window_bytes");
    if (st->min_bps > (double)io->line_bps)
        st->min_bps = (double)io->line_bps;
    set_window(st, io);
}

const tl_cc_ops tl_cc_dctcp_rate = {
    .name = "dctcp-rate",
    .doc = "Rate-based DCTCP of the ns-3 HPCC code (CC_MODE 8), the congestion control of Parsimon's and m3's ground truth. A flow starts at line rate with alpha = 1; alpha moves once per batch (a window of sent data) by gain g towards the marked fraction; a marked ACK outside recovery sets rate = max(min rate, rate (1 - alpha/2)) and starts a recovery that lasts until everything sent before it is acknowledged; each batch that ends outside recovery adds ai to the rate, up to line rate. The window is window_bytes x rate / line rate (the HPCC code's VAR_WIN).",
    .groups = "dctcp_rate,switch",
    .state_bytes = sizeof(dctcp_rate),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};
