/* DCQCN's reaction point (Zhu et al. SIGCOMM'15), with NVIDIA's knobs
 * (../shared/notes/topobench_paraleon.md §B4). The notification point (CNPs
 * from the receiver) is in the engine; the congestion point is the switches'
 * RED marking (qpolicy_red.c), with the thresholds of the dcqcn presets.
 *
 * Rate decrease, on a CNP, at most once per rate_reduce_monitor_period: the
 * target rate is clamped to the current one (always with clamp_tgt_rate, or
 * after a timer increase with clamp_tgt_rate_after_time_inc), then
 *   Rc <- max(min_rate, Rc x max(1 - alpha x 2^(10 - rpg_gd), min_dec_fac / 100)).
 * A flow's first CNP instead sets Rc to rate_to_set_on_first_cnp when that is
 * non-zero.
 * Alpha, once per dce_tcp_rtt: alpha <- g' alpha + (1 - g') [a CNP arrived in
 * the period], g' = dce_tcp_g / 1024. Periods without a CNP are folded in
 * lazily (alpha x g'^k), which is exact and needs no per-microsecond timer.
 * Rate increase, driven by a timer (rpg_time_reset) and a byte counter
 * (rpg_byte_reset, counted on acknowledged bytes), each event: fast recovery
 * while both counters are below rpg_threshold (Rc <- (Rt + Rc)/2); hyper
 * increase when both are above it (Rt += i hai_rate, i = min - threshold);
 * additive increase otherwise (Rt += ai_rate); then Rc <- (Rt + Rc)/2. */
#include <math.h>

#include "../cc.h"

typedef struct dcqcn {
    double rc_bps, rt_bps, alpha;
    int64_t alpha_t0_ps, last_cut_ps, next_inc_ps;
    int is_cnp_in_period, has_had_cnp, is_timer_inc_since_cut;
    uint32_t t_cnt, b_cnt;
    uint64_t bytes_since;
    /* knobs */
    double ai_bps, hai_bps, min_bps, min_dec, cut_scale, g, first_cnp_bps;
    int64_t monitor_ps, time_reset_ps, alpha_period_ps;
    uint64_t byte_reset;
    uint32_t threshold;
    int is_clamp, is_clamp_after_time_inc;
} dcqcn;

static void read_knobs(dcqcn *st, const tl_params *p)
{
    st->ai_bps = tl_params_get(p, "dcqcn.ai_rate_bps");
    st->hai_bps = tl_params_get(p, "dcqcn.hai_rate_bps");
    st->min_bps = tl_params_get(p, "dcqcn.rpg_min_rate_bps");
    st->min_dec = tl_params_get(p, "dcqcn.rpg_min_dec_fac_pct") / 100.0;
    st->cut_scale = ldexp(1.0, 10 - (int)tl_params_get(p, "dcqcn.rpg_gd"));
    st->g = tl_params_get(p, "dcqcn.dce_tcp_g") / 1024.0;
    st->first_cnp_bps = tl_params_get(p, "dcqcn.rate_to_set_on_first_cnp_bps");
    st->monitor_ps = (int64_t)tl_params_get(p, "dcqcn.rate_reduce_monitor_period_ps");
    st->time_reset_ps = (int64_t)tl_params_get(p, "dcqcn.rpg_time_reset_ps");
    st->alpha_period_ps = (int64_t)tl_params_get(p, "dcqcn.dce_tcp_rtt_ps");
    st->byte_reset = (uint64_t)tl_params_get(p, "dcqcn.rpg_byte_reset_bytes");
    st->threshold = (uint32_t)tl_params_get(p, "dcqcn.rpg_threshold");
    st->is_clamp = tl_params_get(p, "dcqcn.clamp_tgt_rate") != 0;
    st->is_clamp_after_time_inc = tl_params_get(p, "dcqcn.clamp_tgt_rate_after_time_inc") != 0;
}

static void publish(dcqcn *st, tl_cc_io *io)
{
    if (st->rc_bps > (double)io->line_bps)
        st->rc_bps = (double)io->line_bps;
    if (st->rc_bps < st->min_bps)
        st->rc_bps = st->min_bps;
    io->rate_bps = (uint64_t)st->rc_bps;
    io->cwnd_bytes = UINT64_MAX;
}

/* Folds every whole alpha period that ended before now into alpha. */
static void advance_alpha(dcqcn *st, int64_t now)
{
    if (now < st->alpha_t0_ps + st->alpha_period_ps)
        return;
    int64_t k = (now - st->alpha_t0_ps) / st->alpha_period_ps;
    st->alpha = st->g * st->alpha + (st->is_cnp_in_period ? 1 - st->g : 0);
    if (k > 1)
        st->alpha *= pow(st->g, (double)(k - 1));
    st->alpha_t0_ps += k * st->alpha_period_ps;
    st->is_cnp_in_period = 0;
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    dcqcn *st = vst;
    read_knobs(st, p);
    st->alpha = tl_params_get(p, "dcqcn.initial_alpha_value") / 1024.0;
    st->rc_bps = st->rt_bps = (double)io->line_bps;
    st->alpha_t0_ps = io->now_ps;
    st->last_cut_ps = INT64_MIN / 2;
    publish(st, io);
    return 0;
}

static void increase(dcqcn *st, tl_cc_io *io)
{
    uint32_t lo = st->t_cnt < st->b_cnt ? st->t_cnt : st->b_cnt;
    uint32_t hi = st->t_cnt < st->b_cnt ? st->b_cnt : st->t_cnt;
    if (hi < st->threshold) {
        /* fast recovery: towards the target only */
    } else if (lo > st->threshold) {
        st->rt_bps += (double)(lo - st->threshold) * st->hai_bps;
    } else {
        st->rt_bps += st->ai_bps;
    }
    if (st->rt_bps > (double)io->line_bps)
        st->rt_bps = (double)io->line_bps;
    st->rc_bps = (st->rt_bps + st->rc_bps) / 2;
    publish(st, io);
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    dcqcn *st = vst;
    if (!st->has_had_cnp || st->rc_bps >= (double)io->line_bps)
        return; /* nothing to recover */
    st->bytes_since += a->newly_acked;
    while (st->bytes_since >= st->byte_reset) {
        st->bytes_since -= st->byte_reset;
        st->b_cnt++;
        increase(st, io);
    }
}

static void on_timer(void *vst, tl_cc_io *io)
{
    dcqcn *st = vst;
    st->t_cnt++;
    st->is_timer_inc_since_cut = 1;
    increase(st, io);
    if (st->rc_bps < (double)io->line_bps)
        io->timer_at_ps = io->now_ps + st->time_reset_ps;
}

static void on_cnp(void *vst, tl_cc_io *io)
{
    dcqcn *st = vst;
    int64_t now = io->now_ps;
    advance_alpha(st, now);
    st->is_cnp_in_period = 1;
    if (now - st->last_cut_ps < st->monitor_ps)
        return;
    st->last_cut_ps = now;
    if (!st->has_had_cnp && st->first_cnp_bps > 0) {
        st->rt_bps = st->rc_bps;
        st->rc_bps = st->first_cnp_bps;
    } else {
        if (st->is_clamp || (st->is_clamp_after_time_inc && st->is_timer_inc_since_cut) ||
            !st->has_had_cnp)
            st->rt_bps = st->rc_bps;
        double f = 1 - st->alpha * st->cut_scale;
        st->rc_bps *= f > st->min_dec ? f : st->min_dec;
    }
    st->has_had_cnp = 1;
    st->t_cnt = st->b_cnt = 0;
    st->bytes_since = 0;
    st->is_timer_inc_since_cut = 0;
    io->timer_at_ps = now + st->time_reset_ps;
    publish(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    dcqcn *st = vst;
    advance_alpha(st, io->now_ps);
    read_knobs(st, p);
    publish(st, io);
}

const tl_cc_ops tl_cc_dcqcn = {
    .name = "dcqcn",
    .doc = "DCQCN (Zhu et al. SIGCOMM'15) with NVIDIA's knob names and defaults. Congestion point: switches mark with RED between Kmin and Kmax up to Pmax (the switch.* knobs; the dcqcn presets set them). Notification point: the receiver sends a CNP for a marked packet, at most one per flow per min_time_between_cnps. Reaction point: on a CNP, at most once per rate_reduce_monitor_period, the target rate is clamped to the current one (clamp_tgt_rate, or after a timer increase with clamp_tgt_rate_after_time_inc) and the current rate is cut to max(min_rate, rate x max(1 - alpha 2^(10-rpg_gd), rpg_min_dec_fac)); a flow's first CNP may instead set rate_to_set_on_first_cnp. Alpha moves once per dce_tcp_rtt by weight dce_tcp_g/1024 towards 1 if a CNP came in the period, else towards 0. Increase events come from a timer (rpg_time_reset) and a byte counter (rpg_byte_reset, on acknowledged bytes): fast recovery while both counters are below rpg_threshold (rate halfway to the target), hyper increase when both exceed it (target + i hai_rate), additive increase otherwise (target + ai_rate). No window; PFC on by default (preset dcqcn.nvidia-default).",
    .groups = "dcqcn,switch",
    .state_bytes = sizeof(dcqcn),
    .uses_cnp = 1,
    .init = init,
    .on_ack = on_ack,
    .on_timer = on_timer,
    .on_cnp = on_cnp,
    .reconfigure = reconfigure,
};
