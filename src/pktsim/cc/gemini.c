/* Gemini (Zeng et al., "Congestion control for cross-datacenter networks";
 * Uno's baseline, uno.txt §5): one window for intra- and inter-DC flows, cut
 * by ECN for congestion inside a data center and by delay for congestion
 * between them. As Uno's public artifact runs it (GeminiSrc;
 * docs/uno.md):
 *
 *   per unmarked ACK without delay:  cwnd += h x BDP_wan x acked / cwnd
 *   per ACK that is marked, or (inter-DC flows) whose round's least RTT
 *   exceeds base + T, at most once per base RTT:
 *       cwnd *= 1 - max(marked ? alpha x 4K/(K+BDP) : 0, delayed ? beta : 0)
 *   alpha: EWMA (gain g) of the marked fraction, updated once per base RTT
 *
 * BDP_wan is the network's largest BDP, so every flow adds the same bytes per
 * RTT (the artifact scales h so); BDP and the RTTs are the flow's own. The
 * window starts at one BDP and stays within [1 MSS, 1 BDP], paced at cwnd
 * per base RTT. Switches mark with RED on the physical queue (preset
 * gemini.default: 25-75% of a 1 MiB port, uno.txt §5.1); WAN ports do not
 * mark, as in the artifact's Gemini runs. */
#include <math.h>

#include "../cc.h"
#include "red_1mib.h"

extern const tl_cc_desc tl_cc_gemini;

enum { H, BETA, T_PS, G, K_BYTES, N_KNOBS };
static const tl_param_def knobs[N_KNOBS] = {
    [H] = {"gemini.h", TL_UNIT_FRAC, 0.00024, 1e-7, 1, 0, TL_DIR_UP_THROUGHPUT,
           "Additive increase per RTT as a fraction of the network's largest BDP (the artifact's "
           "-geminiH 0.00024: 5.4 KB per RTT on Uno's network)."},
    [BETA] = {"gemini.beta", TL_UNIT_FRAC, 0.1, 0, 1, 0, TL_DIR_UP_DELAY,
              "Multiplicative decrease on delay (the artifact's -geminiBeta 0.1)."},
    [T_PS] = {"gemini.t_ps", TL_UNIT_PS, 1e8, 0, 1e13, 1, TL_DIR_UP_THROUGHPUT,
              "Queueing delay above the base RTT that signals inter-DC congestion (the "
              "artifact's Fig. 3 and 8 runs: 0.1 ms; its Fig. 10-12 runs: 5 ms)."},
    [G] = {"gemini.g", TL_UNIT_FRAC, 0.5, 1e-6, 1, 0, TL_DIR_UP_DELAY,
           "EWMA gain of the marked fraction, once per base RTT (the artifact's -ecnAlpha 0.5)."},
    [K_BYTES] = {"gemini.k_bytes", TL_UNIT_BYTES, 24576, 1, 1e12, 0, TL_DIR_UP_DELAY,
                 "K in the ECN decrease alpha x 4K/(K+BDP) (the artifact's 6 x 4096 B)."},
};

/* The artifact's Fig. 10-12 scripts run Gemini with -geminiT 5 (ms), its
 * Fig. 3 and 8 ones with 0.1 ms, the knob's default. */
static const tl_param_value fig10[] = {
    {"switch.kmin_bytes_per_gbps", 2621.44},
    {"switch.kmax_bytes_per_gbps", 7864.32},
    {"switch.pmax", 1},
    {"gemini.t_ps", 5e9},
};

static const tl_preset presets[] = {
    {"gemini.default", "RED marking between 25% and 75% of a 1 MiB port at 100 Gb/s (uno.txt §5.1; the default for cc gemini)",
     red_25_75, sizeof red_25_75 / sizeof *red_25_75},
    {"gemini.fig10", "gemini.default with a delay threshold t of 5 ms, as Uno's artifact runs Gemini in its Fig. 10-12 experiments (the realistic mixes)",
     fig10, sizeof fig10 / sizeof *fig10},
};

typedef struct gemini {
    double cwnd, bdp, ai, md_ecn, beta, alpha, g;
    int64_t rtt_ps, t_ps;
    int64_t cycle_end_ps, last_cut_ps, cycle_min_rtt_ps, last_loss_ps;
    double ssthresh; /* after a timeout: slow start up to it */
    uint64_t acked, marked;
    uint8_t is_inter;
} gemini;

static void read_knobs(gemini *st, const tl_cc_io *io, const tl_params *p)
{
    const double *k = tl_cc_knobs(&tl_cc_gemini, p);
    st->rtt_ps = io->base_rtt_ps;
    st->bdp = (double)io->base_rtt_ps * (double)io->line_bps / 8e12;
    double wan_bdp = io->fabric_bdp_bytes ? (double)io->fabric_bdp_bytes : st->bdp;
    st->ai = k[H] * wan_bdp;
    st->md_ecn = 4 * k[K_BYTES] / (k[K_BYTES] + st->bdp);
    st->beta = k[BETA];
    st->t_ps = (int64_t)k[T_PS];
    st->g = k[G];
    /* delay is Gemini's signal for the flows that cross data centers */
    st->is_inter = io->intra_rtt_ps && io->base_rtt_ps > io->intra_rtt_ps;
}

static void publish(gemini *st, tl_cc_io *io)
{
    tl_cc_set_window(io, &st->cwnd, st->bdp);
    tl_cc_set_rate(io, st->cwnd * 8e12 / (double)st->rtt_ps);
}

static int init(void *vst, tl_cc_io *io, const tl_params *p, tl_err *err)
{
    gemini *st = vst;
    read_knobs(st, io, p);
    st->cwnd = st->bdp;
    st->cycle_min_rtt_ps = INT64_MAX;
    st->last_loss_ps = INT64_MIN / 2;
    publish(st, io);
    return 0;
}

static void on_ack(void *vst, tl_cc_io *io, const tl_ack_info *a)
{
    gemini *st = vst;
    int64_t now = io->now_ps;
    if (a->is_nack)
        return;
    st->acked += a->newly_acked;
    if (a->is_ece)
        st->marked += a->newly_acked;
    if (a->rtt_ps < st->cycle_min_rtt_ps)
        st->cycle_min_rtt_ps = a->rtt_ps;
    int is_delayed = st->is_inter && st->cycle_min_rtt_ps != INT64_MAX &&
                     st->cycle_min_rtt_ps > st->rtt_ps + st->t_ps;
    if (!st->cycle_end_ps) {
        st->cycle_end_ps = now + st->rtt_ps;
    } else if (now >= st->cycle_end_ps) { /* one round: alpha moves */
        double frac = st->acked ? (double)st->marked / (double)st->acked : 0;
        st->alpha = (1 - st->g) * st->alpha + st->g * frac;
        st->acked = st->marked = 0;
        st->cycle_min_rtt_ps = INT64_MAX;
        st->cycle_end_ps = now + st->rtt_ps;
    }
    if (a->is_ece || is_delayed) {
        if (now - st->last_cut_ps >= st->rtt_ps) {
            double ecn = a->is_ece ? st->alpha * st->md_ecn : 0, dly = is_delayed ? st->beta : 0;
            st->cwnd *= 1 - (ecn > dly ? ecn : dly);
            st->last_cut_ps = now;
        }
    } else if (st->cwnd < st->ssthresh) {
        st->cwnd += (double)a->newly_acked; /* slow start after a timeout */
    } else {
        st->cwnd += st->ai * (double)a->newly_acked / st->cwnd;
    }
    publish(st, io);
}

/* A retransmission timeout: half the window becomes the slow-start
 * threshold and the window restarts from one packet, at most once per
 * timeout period (the flow's RTO, at least its base RTT): the artifact's
 * GeminiSrc keeps TCP's timeout cut and skips it within one RTO of the last. */
static void on_loss(void *vst, tl_cc_io *io)
{
    gemini *st = vst;
    int64_t guard = io->rto_ps > st->rtt_ps ? io->rto_ps : st->rtt_ps;
    if (io->now_ps - st->last_loss_ps < guard)
        return;
    st->last_loss_ps = io->now_ps;
    st->ssthresh = st->cwnd / 2;
    st->cwnd = io->mss_bytes;
    publish(st, io);
}

static void reconfigure(void *vst, tl_cc_io *io, const tl_params *p)
{
    gemini *st = vst;
    read_knobs(st, io, p);
    publish(st, io);
}

static const tl_cc_ops ops = {
    .desc = &tl_cc_gemini,
    .state_bytes = sizeof(gemini),
    .init = init,
    .on_ack = on_ack,
    .on_loss = on_loss,
    .reconfigure = reconfigure,
};

const tl_cc_desc tl_cc_gemini = {
    .name = "gemini",
    .id = TL_CC_GEMINI,
    .doc = "Gemini (Zeng et al., cross-datacenter congestion control; Uno's baseline, uno.txt §5), as Uno's public artifact runs it: one window per flow, starting at and capped by the flow's BDP and paced at cwnd per base RTT. Each unmarked, undelayed ACK adds h x BDP_wan x acked/cwnd (BDP_wan the network's largest BDP, so every flow gains the same bytes per RTT). After a timeout the window restarts from one packet in slow start up to half its size, at most once per RTO. A marked ACK, or for an inter-DC flow a round whose least RTT exceeds the base RTT by t, cuts the window at most once per base RTT by max(alpha x 4K/(K+BDP), beta if delayed), alpha an EWMA (gain g) of the marked fraction per round. Switches mark with RED on the physical queue (preset gemini.default, 25-75% of a 1 MiB port), WAN ports not at all (as the artifact runs it); selective repeat as Uno's.",
    .groups = "gemini,switch",
    .knobs = knobs,
    .n_knobs = N_KNOBS,
    .presets = presets,
    .n_presets = sizeof presets / sizeof *presets,
    .default_preset = "gemini.default",
    .is_ramp = 0,
    .window_knob = -1,
    .queue = TL_CC_QUEUE_KMIN_KMAX,
    .delay_knob = -1,
    .model_knobs = {-1, -1},
    .wan_qpolicy = "none", /* the artifact's WAN ports do not mark for Gemini */
    .transport = "sack",
    .ops = &ops,
};
