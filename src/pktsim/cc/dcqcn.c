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
 * (rpg_byte_reset, counted on acknowledged bytes; 0 = the timer alone, as
 * the presets run it), each event: fast recovery
 * while both counters are below rpg_threshold (Rc <- (Rt + Rc)/2); hyper
 * increase when both are above it (Rt += i hai_rate, i = min - threshold);
 * additive increase otherwise (Rt += ai_rate); then Rc <- (Rt + Rc)/2. */
#include <math.h>

#include "../cc.h"

extern const tl_cc_desc tl_cc_dcqcn;

/* ---- knobs (transport.dcqcn.*; indices into tl_cc_knobs), NVIDIA's names
 * and defaults (DOCA "DCQCN CC parameters"; ../shared/notes/
 * topobench_paraleon.md §B4). min_time_between_cnps is the notification
 * point's: the engine's CNP service asks for it (cnp_interval_ps). ---- */
enum {
    AI_RATE_BPS,
    HAI_RATE_BPS,
    RATE_REDUCE_MONITOR_PERIOD_PS,
    MIN_TIME_BETWEEN_CNPS_PS,
    RPG_TIME_RESET_PS,
    RPG_BYTE_RESET_BYTES,
    RPG_THRESHOLD,
    RPG_GD,
    RPG_MIN_DEC_FAC_PCT,
    RPG_MIN_RATE_BPS,
    RATE_TO_SET_ON_FIRST_CNP_BPS,
    DCE_TCP_G,
    DCE_TCP_RTT_PS,
    INITIAL_ALPHA_VALUE,
    CLAMP_TGT_RATE,
    CLAMP_TGT_RATE_AFTER_TIME_INC,
    N_KNOBS
};
static const tl_param_def knobs[N_KNOBS] = {
    [AI_RATE_BPS] =
        {"dcqcn.ai_rate_bps", TL_UNIT_BPS, 5e6, 1e5, 1e11, 0, TL_DIR_UP_THROUGHPUT,
         "Additive increase of the target rate per increase event (NVIDIA rpg_ai_rate: 5 Mb/s)."},
    [HAI_RATE_BPS] = {"dcqcn.hai_rate_bps", TL_UNIT_BPS, 50e6, 1e5, 1e11, 0, TL_DIR_UP_THROUGHPUT,
                      "Hyper-increase step of the target rate (NVIDIA rpg_hai_rate: 50 Mb/s)."},
    [RATE_REDUCE_MONITOR_PERIOD_PS] =
        {"dcqcn.rate_reduce_monitor_period_ps", TL_UNIT_PS, 4e6, 0, 1e10, 0, TL_DIR_UP_THROUGHPUT,
         "The reaction point cuts its rate at most once per this period (NVIDIA: 4 us)."},
    [MIN_TIME_BETWEEN_CNPS_PS] =
        {"dcqcn.min_time_between_cnps_ps", TL_UNIT_PS, 4e6, 0, 1e10, 0, TL_DIR_UP_THROUGHPUT,
         "The notification point sends at most one CNP per flow per this period (NVIDIA: 4 us)."},
    [RPG_TIME_RESET_PS] =
        {"dcqcn.rpg_time_reset_ps", TL_UNIT_PS, 300e6, 1e6, 1e11, 0, TL_DIR_UP_DELAY,
         "Rate-increase timer: one increase event per period without a cut (NVIDIA: 300 us)."},
    [RPG_BYTE_RESET_BYTES] = {"dcqcn.rpg_byte_reset_bytes", TL_UNIT_BYTES, 32767, 0, 1e12, 1,
                              TL_DIR_UP_DELAY,
                              "Byte counter: one increase event per this many bytes sent without a "
                              "cut; 0 = no byte counter, the timer alone (NVIDIA: 32767; the "
                              "dcqcn presets set 0, as the reference simulators run DCQCN)."},
    [RPG_THRESHOLD] =
        {"dcqcn.rpg_threshold", TL_UNIT_NONE, 1, 1, 31, 1, TL_DIR_UP_DELAY,
         "Increase events spent in fast recovery before additive increase (NVIDIA: 1)."},
    [RPG_GD] = {"dcqcn.rpg_gd", TL_UNIT_NONE, 11, 1, 15, 1, TL_DIR_UP_THROUGHPUT,
                "A cut multiplies the rate by 1 - alpha x 2^(10 - gd): gd 11 halves it at alpha 1 "
                "(NVIDIA: 11)."},
    [RPG_MIN_DEC_FAC_PCT] = {"dcqcn.rpg_min_dec_fac_pct", TL_UNIT_NONE, 50, 1, 100, 0,
                             TL_DIR_UP_THROUGHPUT,
                             "A cut keeps at least this percentage of the rate (NVIDIA: 50)."},
    [RPG_MIN_RATE_BPS] = {"dcqcn.rpg_min_rate_bps", TL_UNIT_BPS, 1e6, 1e3, 1e12, 0,
                          TL_DIR_UP_THROUGHPUT, "Floor of the current rate (NVIDIA: 1 Mb/s)."},
    [RATE_TO_SET_ON_FIRST_CNP_BPS] = {"dcqcn.rate_to_set_on_first_cnp_bps", TL_UNIT_BPS, 0, 0, 1e12,
                                      0, TL_DIR_UP_THROUGHPUT,
                                      "Rate a flow drops to at its first CNP; 0 keeps the rate and "
                                      "applies the normal cut (NVIDIA: 0)."},
    [DCE_TCP_G] = {"dcqcn.dce_tcp_g", TL_UNIT_NONE, 1019, 1, 1023, 1, TL_DIR_UP_THROUGHPUT,
                   "Alpha's EWMA weight in 1/1024: alpha <- (g/1024) alpha + (1 - g/1024) [CNP "
                   "seen] once per alpha period (NVIDIA: 1019)."},
    [DCE_TCP_RTT_PS] = {"dcqcn.dce_tcp_rtt_ps", TL_UNIT_PS, 1e6, 1e3, 1e10, 0, TL_DIR_NEUTRAL,
                        "Alpha update period (NVIDIA dce_tcp_rtt: 1 us)."},
    [INITIAL_ALPHA_VALUE] = {"dcqcn.initial_alpha_value", TL_UNIT_NONE, 1023, 0, 1023, 1,
                             TL_DIR_UP_DELAY, "Alpha of a new flow, in 1/1024 (NVIDIA: 1023)."},
    [CLAMP_TGT_RATE] = {"dcqcn.clamp_tgt_rate", TL_UNIT_BOOL, 0, 0, 1, 1, TL_DIR_UP_DELAY,
                        "On every cut, set the target rate to the current rate (NVIDIA: false)."},
    [CLAMP_TGT_RATE_AFTER_TIME_INC] =
        {"dcqcn.clamp_tgt_rate_after_time_inc", TL_UNIT_BOOL, 1, 0, 1, 1, TL_DIR_UP_DELAY,
         "On a cut, set the target rate to the current rate if a timer increase happened since the "
         "last cut (NVIDIA: true)."},
};

/* ---- presets ---- */

/* DCQCN as NVIDIA ships it, on a lossless fabric; the switch thresholds are
 * the HPCC fork's dcqcn preset (100 Gb/s: Kmin 400 KB, Kmax 1600 KB, Pmax 0.2,
 * i.e. 4 and 16 KB per Gb/s). The byte counter is off, as both reference
 * simulators run DCQCN (the HPCC fork and PARALEON's ns-3 increase on the
 * timer alone): NVIDIA's 32767 B fires every 2.6 us at 100 Gb/s, which makes
 * the increases proportional to the rate and holds two equal flows at 74/26
 * (docs/congestion-control.md). */
/* What every dcqcn preset sets: a lossless fabric (PFC, dynamic thresholds
 * at 1/8 of the free buffer), no byte counter, RED between Kmin and Kmax
 * (bytes per Gb/s of the port) up to Pmax 0.2. */
#define LOSSLESS_TIMER_ONLY(kmin, kmax)                                                           \
    {"switch.pfc", 1}, {"dcqcn.rpg_byte_reset_bytes", 0}, {"switch.pfc_shift", 3},               \
        {"switch.kmin_bytes_per_gbps", kmin}, {"switch.kmax_bytes_per_gbps", kmax},              \
        {"switch.pmax", 0.2}
static const tl_param_value nvidia_default[] = {LOSSLESS_TIMER_ONLY(4000, 16000)};
/* PARALEON's "expert" setting (paraleon.txt Table I): ai 50 Mb/s, hai 150 Mb/s,
 * rate_reduce_monitor_period 80 us, min_time_between_cnps 96 us, Kmin 1600 KB,
 * Kmax 6400 KB, Pmax 0.2; the thresholds are taken at the 100 Gb/s links of
 * the paper's ns-3 setup, i.e. 16 and 64 KB per Gb/s (docs/congestion-control.md). */
static const tl_param_value expert[] = {
    LOSSLESS_TIMER_ONLY(16000, 64000),
    {"dcqcn.ai_rate_bps", 50e6},
    {"dcqcn.hai_rate_bps", 150e6},
    {"dcqcn.rate_reduce_monitor_period_ps", 80e6},
    {"dcqcn.min_time_between_cnps_ps", 96e6},
};
/* The DCQCN paper's timers (Zhu et al. SIGCOMM'15 §5: alpha and rate
 * decrease every 50 us with g = 1/256, a CNP at most every 50 us, an
 * increase event every 55 us), as the HPCC fork's run.py sets them for
 * "dcqcn_paper" (the variant m3's evaluation runs); steps, floor and switch
 * thresholds as nvidia-default. NVIDIA's 1 us alpha period forgets a cut in
 * about 0.2 ms, so a long-flow incast started at line rate swings between
 * idle and PFC; with these timers it settles between Kmin and Kmax
 * (docs/congestion-control.md). */
static const tl_param_value paper[] = {
    LOSSLESS_TIMER_ONLY(4000, 16000),
    {"dcqcn.dce_tcp_rtt_ps", 50e6},
    {"dcqcn.dce_tcp_g", 1020},
    {"dcqcn.rate_reduce_monitor_period_ps", 50e6},
    {"dcqcn.min_time_between_cnps_ps", 50e6},
    {"dcqcn.rpg_time_reset_ps", 55e6},
};
static const tl_preset presets[] = {
    {"dcqcn.nvidia-default",
     "DCQCN with NVIDIA's defaults but no byte counter (timer-only increase, as the reference "
     "simulators), PFC on (dynamic thresholds, pfc_shift 3; the default for cc dcqcn)",
     nvidia_default, sizeof nvidia_default / sizeof *nvidia_default},
    {"dcqcn.paper",
     "DCQCN with the paper's timers (alpha and decrease every 50 us, g 1/256, a CNP per 50 us, "
     "increase every 55 us; the HPCC fork's dcqcn_paper), otherwise as nvidia-default",
     paper, sizeof paper / sizeof *paper},
    {"dcqcn.expert",
     "DCQCN as tuned by PARALEON's network experts (paraleon.txt Table I; PFC, pfc_shift 3)",
     expert, sizeof expert / sizeof *expert},
};

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
    const double *k = tl_cc_knobs(&tl_cc_dcqcn, p);
    st->ai_bps = k[AI_RATE_BPS];
    st->hai_bps = k[HAI_RATE_BPS];
    st->min_bps = k[RPG_MIN_RATE_BPS];
    st->min_dec = k[RPG_MIN_DEC_FAC_PCT] / 100.0;
    st->cut_scale = ldexp(1.0, 10 - (int)k[RPG_GD]);
    st->g = k[DCE_TCP_G] / 1024.0;
    st->first_cnp_bps = k[RATE_TO_SET_ON_FIRST_CNP_BPS];
    st->monitor_ps = (int64_t)k[RATE_REDUCE_MONITOR_PERIOD_PS];
    st->time_reset_ps = (int64_t)k[RPG_TIME_RESET_PS];
    st->alpha_period_ps = (int64_t)k[DCE_TCP_RTT_PS];
    st->byte_reset = (uint64_t)k[RPG_BYTE_RESET_BYTES];
    st->threshold = (uint32_t)k[RPG_THRESHOLD];
    st->is_clamp = k[CLAMP_TGT_RATE] != 0;
    st->is_clamp_after_time_inc = k[CLAMP_TGT_RATE_AFTER_TIME_INC] != 0;
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
    st->alpha = tl_cc_knobs(&tl_cc_dcqcn, p)[INITIAL_ALPHA_VALUE] / 1024.0;
    st->rc_bps = st->rt_bps = (double)io->line_bps;
    st->alpha_t0_ps = io->now_ps;
    st->last_cut_ps = INT64_MIN / 2;
    publish(st, io);
    return 0;
}

/* One increase event. The stage counts the events before this one, so
 * rpg_threshold events are fast recovery, as the knob says and as the HPCC
 * fork's RateIncEventTimerMlx (stage compared, then counted) runs it. */
static void increase(dcqcn *st, tl_cc_io *io)
{
    /* without a byte counter the timer alone drives the stages (the HPCC
     * fork's and PARALEON's ns-3 DCQCN) */
    uint32_t b = st->byte_reset ? st->b_cnt : st->t_cnt;
    uint32_t lo = st->t_cnt < b ? st->t_cnt : b;
    uint32_t hi = st->t_cnt < b ? b : st->t_cnt;
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
    if (!st->has_had_cnp || st->rc_bps >= (double)io->line_bps || !st->byte_reset)
        return; /* nothing to recover, or no byte counter */
    st->bytes_since += a->newly_acked;
    while (st->bytes_since >= st->byte_reset) {
        st->bytes_since -= st->byte_reset;
        increase(st, io);
        st->b_cnt++;
    }
}

static void on_timer(void *vst, tl_cc_io *io)
{
    dcqcn *st = vst;
    st->is_timer_inc_since_cut = 1;
    increase(st, io);
    st->t_cnt++;
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

/* The notification point's pacing of CNPs, which the engine's CNP service
 * applies at the receiver. */
static int64_t cnp_interval_ps(const tl_params *p)
{
    return (int64_t)tl_cc_knobs(&tl_cc_dcqcn, p)[MIN_TIME_BETWEEN_CNPS_PS];
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_dcqcn,
    .state_bytes = sizeof(dcqcn),
    .uses_cnp = 1,
    .init = init,
    .on_ack = on_ack,
    .on_timer = on_timer,
    .on_cnp = on_cnp,
    .cnp_interval_ps = cnp_interval_ps,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_dcqcn = {
    .name = "dcqcn",
    .id = TL_CC_DCQCN,
    .doc = "DCQCN (Zhu et al. SIGCOMM'15) with NVIDIA's knob names and defaults. Congestion point: switches mark with RED between Kmin and Kmax up to Pmax (the switch.* knobs; the dcqcn presets set them). Notification point: the receiver sends a CNP for a marked packet, at most one per flow per min_time_between_cnps. Reaction point: on a CNP, at most once per rate_reduce_monitor_period, the target rate is clamped to the current one (clamp_tgt_rate, or after a timer increase with clamp_tgt_rate_after_time_inc) and the current rate is cut to max(min_rate, rate x max(1 - alpha 2^(10-rpg_gd), rpg_min_dec_fac)); a flow's first CNP may instead set rate_to_set_on_first_cnp. Alpha moves once per dce_tcp_rtt by weight dce_tcp_g/1024 towards 1 if a CNP came in the period, else towards 0. Increase events come from a timer (rpg_time_reset) and a byte counter (rpg_byte_reset, on acknowledged bytes; 0 = none, the timer alone, as the presets and the reference simulators run it): fast recovery while both counters are below rpg_threshold (rate halfway to the target), hyper increase when both exceed it (target + i hai_rate), additive increase otherwise (target + ai_rate). No window; PFC on by default (preset dcqcn.nvidia-default).",
    .groups = "dcqcn,switch",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .default_preset = "dcqcn.nvidia-default",
    .window_knob = -1,
    .queue = TL_CC_QUEUE_KMIN_KMAX,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    .m3_schema = 8, /* DCQCN's queue term (7), its arrivals (8) */
    .m3_flat_arrivals = 1,
    .ops = &ops,
};
