/* TIMELY (Mittal et al. SIGCOMM'15): rate control from RTT samples. Once per
 * window of data (an RTT, as the ns-3 HPCC fork updates it): the new RTT's
 * difference to the previous one enters an EWMA (weight ewma_alpha), and the
 * gradient is that EWMA over min_rtt.
 *   rtt < t_low:   rate += delta
 *   rtt > t_high:  rate *= 1 - beta (1 - t_high / rtt)
 *   gradient <= 0: rate += n delta (n = hai_n after hai_n such updates in a row, else 1)
 *   otherwise:     rate *= 1 - beta x gradient
 * The rate stays within [delta, line rate]; there is no window. */
#include "../cc.h"

typedef struct timely {
    double rate_bps, prev_rtt_ps, rtt_diff_ps;
    int has_prev;
    uint32_t n_neg;
    uint64_t update_seq;
    double t_low, t_high, delta, beta, ewma, min_rtt;
    uint32_t hai_n;
} timely;

static void read_knobs(timely *st, const tl_params *p)
{
    st->t_low = tl_params_get(p, "timely.t_low_ps");
    st->t_high = tl_params_get(p, "timely.t_high_ps");
    st->delta = tl_params_get(p, "timely.delta_bps");
    st->beta = tl_params_get(p, "timely.beta");
    st->ewma = tl_params_get(p, "timely.ewma_alpha");
    st->min_rtt = tl_params_get(p, "timely.min_rtt_ps");
    st->hai_n = (uint32_t)tl_params_get(p, "timely.hai_n");
}

static void publish(timely *st, tl_cc_io *io)
{
    if (st->rate_bps > (double)io->line_bps)
        st->rate_bps = (double)io->line_bps;
    if (st->rate_bps < st->delta)
        st->rate_bps = st->delta;
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
        st->rate_bps += st->delta;
        st->n_neg = 0;
    } else if (rtt > st->t_high) {
        st->rate_bps *= 1 - st->beta * (1 - st->t_high / rtt);
        st->n_neg = 0;
    } else if (gradient <= 0) {
        st->n_neg++;
        st->rate_bps += (st->n_neg >= st->hai_n ? st->hai_n : 1) * st->delta;
    } else {
        st->rate_bps *= 1 - st->beta * (gradient < 1 ? gradient : 1);
        st->n_neg = 0;
    }
    publish(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    read_knobs(vst, p);
    publish(vst, io);
}

const tl_cc_ops tl_cc_timely = {
    .name = "timely",
    .doc = "TIMELY (Mittal et al. SIGCOMM'15): rate control from RTT samples, updated once per window of data. The RTT difference enters an EWMA (weight ewma_alpha) whose ratio to min_rtt is the gradient. Below t_low the rate grows by delta; above t_high it is cut by beta (1 - t_high/rtt); in between, a non-positive gradient adds delta (hai_n x delta after hai_n such updates in a row) and a positive one cuts by beta x gradient. No window, no ECN; PFC on by default (preset timely.default).",
    .groups = "timely",
    .state_bytes = sizeof(timely),
    .init = init,
    .on_ack = on_ack,
    .reconfigure = reconfigure,
};
