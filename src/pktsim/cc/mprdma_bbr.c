/* MPRDMA + BBR (Uno's second baseline, uno.txt §5): two separate control
 * loops, MPRDMA's ECN window for flows inside a data center and BBR's
 * bandwidth model for flows between them, as Uno's public artifact runs
 * them (its Fig. 10-12 runs: -ccAlgoIntra mprdma, -interAlgo bbr;
 * docs/uno.md). A flow is inter-DC when its base RTT exceeds the network's
 * intra-DC reference RTT.
 *
 * MPRDMA (Lu et al., NSDI'18), per ACK: unmarked, cwnd += MSS^2/cwnd; marked,
 * cwnd -= mprdma.md_pkts x MSS. Window in [1 MSS, 1 BDP], starting at one
 * BDP, paced at cwnd per base RTT.
 *
 * BBR (Cardwell et al., 2016) as the artifact has it: bandwidth = the most
 * delivered per round over the last bbr.bw_rounds rounds of one base RTT
 * each; STARTUP paces at 2.89 x bandwidth (line rate before a sample) until
 * three rounds grow it by less than 25%, DRAIN at 0.35 x until the bytes in
 * flight fall to one estimated BDP, then PROBE_BW cycles 1.25, 0.75, 1, 1,
 * 1, 1, 1, 1 x bandwidth, a round each. No min-RTT probing (the base RTT is
 * known), ECN ignored; the window stays at one BDP and a timeout restarts
 * it from one packet, growing a packet per ACK. */
#include <math.h>

#include "../cc.h"
#include "red_1mib.h"

extern const tl_cc_desc tl_cc_mprdma_bbr;

enum { MD_PKTS, BW_ROUNDS, MIN_BPS, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [MD_PKTS] = {"mprdma.md_pkts", TL_UNIT_NONE, 0.5, 0, 100, 0, TL_DIR_UP_DELAY,
                 "MPRDMA's cut per marked ACK, in packets (the artifact's Fig. 10-12 runs: 0.5; "
                 "its Fig. 3 and 8 runs: 0.15)."},
    [BW_ROUNDS] = {"mprdma.bbr_bw_rounds", TL_UNIT_NONE, 10, 1, 64, 1, TL_DIR_UP_THROUGHPUT,
                   "BBR's bandwidth filter: the most delivered in one round over this many rounds "
                   "(BBR and the artifact: 10)."},
    [MIN_BPS] = {"mprdma.bbr_min_bps", TL_UNIT_BPS, 3e9, 0, 1e12, 0, TL_DIR_UP_THROUGHPUT,
                 "Floor of BBR's bandwidth estimate (the artifact's 3 Gb/s)."},
};

static const tl_preset presets[] = {
    {"mprdma-bbr.default",
     "RED marking between 25% and 75% of a 1 MiB port at 100 Gb/s (uno.txt §5.1; the default "
     "for cc mprdma-bbr)",
     red_25_75, sizeof red_25_75 / sizeof *red_25_75},
};

#define MAX_ROUNDS 64
enum { STARTUP, DRAIN, PROBE_BW };
static const double probe_gain[8] = {1.25, 0.75, 1, 1, 1, 1, 1, 1};

typedef struct mb {
    double cwnd, bdp, md_bytes, min_bps;
    int64_t rtt_ps;
    uint8_t is_bbr, phase, cycle, n_flat, n_rounds;
    /* BBR: rounds of one base RTT, the bytes each delivered */
    int64_t round_end_ps;
    uint64_t round_bytes;
    double round_bw[MAX_ROUNDS];
    uint32_t round_i;
    double best_bw, full_bw, gain;
} mb;

static void read_knobs(mb *st, const tl_cc_io *io, const tl_params *p)
{
    const double *k = tl_cc_knobs(&tl_cc_mprdma_bbr, p);
    st->rtt_ps = io->base_rtt_ps;
    st->bdp = (double)io->base_rtt_ps * (double)io->line_bps / 8e12;
    st->md_bytes = k[MD_PKTS] * io->mss_bytes;
    st->n_rounds = (uint8_t)k[BW_ROUNDS];
    st->min_bps = k[MIN_BPS];
    st->is_bbr = io->intra_rtt_ps && io->base_rtt_ps > io->intra_rtt_ps;
}

static void publish(mb *st, tl_cc_io *io)
{
    tl_cc_set_window(io, &st->cwnd, st->bdp);
    tl_cc_set_rate(io, st->is_bbr ? (st->best_bw ? st->gain * st->best_bw : INFINITY)
                                  : st->cwnd * 8e12 / (double)st->rtt_ps);
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    mb *st = vst;
    read_knobs(st, io, p);
    st->cwnd = st->bdp;
    st->gain = 2.89;
    publish(st, io);
    return 0;
}

/* BBR: a round ended; its delivery rate enters the filter, the phase moves. */
static void bbr_round(mb *st, int64_t now)
{
    double secs = (double)(now - st->round_end_ps + st->rtt_ps) * 1e-12;
    st->round_bw[st->round_i++ % st->n_rounds] = (double)st->round_bytes * 8 / secs;
    st->round_bytes = 0;
    double best = 0;
    uint32_t n = st->round_i < st->n_rounds ? st->round_i : st->n_rounds;
    for (uint32_t i = 0; i < n; i++)
        best = st->round_bw[i] > best ? st->round_bw[i] : best;
    st->best_bw = best > st->min_bps ? best : st->min_bps;
    if (st->phase == STARTUP) { /* the pipe is full once three rounds grow it < 25% */
        if (st->best_bw >= 1.25 * st->full_bw)
            st->full_bw = st->best_bw, st->n_flat = 0;
        else if (++st->n_flat >= 3)
            st->phase = DRAIN, st->gain = 0.35;
    } else if (st->phase == PROBE_BW) {
        st->cycle = (uint8_t)((st->cycle + 1) % 8);
        st->gain = probe_gain[st->cycle];
    }
}

/* DRAIN ends once what is in flight fits the estimated BDP, checked on
 * every ACK as the artifact's BBRSrc does. In flight means sent and neither
 * acknowledged nor declared lost: after the first burst's timeouts the
 * range snd_una..snd_nxt still spans a whole flow's SACKed data and holes,
 * and a test on it kept flows paced at 0.35 x for tens of ms. */
static void bbr_drain_check(mb *st, const tl_cc_io *io)
{
    uint64_t fl = io->inflight_bytes != UINT64_MAX ? io->inflight_bytes : io->snd_nxt - io->snd_una;
    if (st->phase == DRAIN && (double)fl <= st->best_bw * (double)st->rtt_ps / 8e12 + io->mss_bytes)
        st->phase = PROBE_BW, st->cycle = 0, st->gain = probe_gain[0];
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    mb *st = vst;
    int64_t now = io->now_ps;
    if (a->is_nack)
        return;
    if (!st->is_bbr) { /* MPRDMA */
        if (a->is_ece)
            st->cwnd -= st->md_bytes;
        else
            st->cwnd += (double)io->mss_bytes * io->mss_bytes / st->cwnd;
        publish(st, io);
        return;
    }
    st->round_bytes += a->newly_acked;
    if (!st->round_end_ps)
        st->round_end_ps = now + st->rtt_ps;
    else if (now >= st->round_end_ps) {
        bbr_round(st, now);
        st->round_end_ps = now + st->rtt_ps;
    }
    bbr_drain_check(st, io);
    if (st->cwnd < st->bdp) /* after a timeout: a packet per ACK back to one BDP */
        st->cwnd += io->mss_bytes;
    publish(st, io);
}

/* A timeout: BBR restarts its window from one packet (the artifact's BBRSrc);
 * MPRDMA keeps it (its runs pass -noRto). */
static void on_loss(void *vst, tl_cc_io *io)
{
    mb *st = vst;
    if (st->is_bbr) {
        st->cwnd = io->mss_bytes;
        publish(st, io);
    }
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    mb *st = vst;
    read_knobs(st, io, p);
    publish(st, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_mprdma_bbr,
    .state_bytes = sizeof(mb),
    .init = init,
    .on_ack = on_ack,
    .on_loss = on_loss,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_mprdma_bbr = {
    .name = "mprdma-bbr",
    .id = TL_CC_MPRDMA_BBR,
    .doc = "MPRDMA + BBR (Uno's second baseline, uno.txt §5), two control loops as Uno's public artifact runs them. Flows inside a data center run MPRDMA's window: per unmarked ACK cwnd += MSS^2/cwnd, per marked ACK cwnd -= md_pkts MSS, within [1 MSS, 1 BDP] from one BDP, paced at cwnd per base RTT. Flows between data centers run BBR: the bandwidth is the most delivered per base-RTT round over bbr_bw_rounds rounds (at least bbr_min_bps); STARTUP paces at 2.89 x bandwidth (line rate before a sample) until three rounds grow it by less than 25%, DRAIN at 0.35 x until the bytes in flight (sent, not acknowledged, not declared lost; checked per ACK) fall to one estimated BDP, then PROBE_BW cycles 1.25, 0.75 and six times 1 x bandwidth, a round each; no min-RTT probing, ECN ignored, window one BDP, a timeout restarts it from one packet. Switches mark with RED on the physical queue (preset mprdma-bbr.default, 25-75% of a 1 MiB port), WAN ports not at all; selective repeat.",
    .groups = "mprdma,switch",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .default_preset = "mprdma-bbr.default",
    .is_ramp = 0,
    .window_knob = -1,
    .queue = TL_CC_QUEUE_KMIN_KMAX,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    .wan_qpolicy = "none",
    .transport = "sack",
    .ops = &ops,
};
